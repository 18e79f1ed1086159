/* The read path: RIPC frames parsed in place in the input area; packed frames split into
 * their messages; fragments reassembled; compressed frames (including split ones) undone.
 * Every length from the network is checked before it is used; anything malformed fails the
 * channel with a message saying what was wrong. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_mc_int.h"
#include "tp_stream.h"
#include "tp_ws_int.h"

#define bad(ch, ...) (err_set(__VA_ARGS__), tp_chan_fail(ch))

/* TP_READ_MORE when another message can be returned without a system call, or when the
 * stream stack holds bytes that the descriptor will not announce. A malformed length also
 * counts, so that the next call reports it. */
static inline int more_flag(const tp_channel *ch)
{
    if (ch->pk_cur || ch->rx_pend)
        return TP_READ_MORE;
    uint32_t avail = ch->in_wr - ch->in_rd;
    if (avail >= 3 && tp_get16(ch->in + ch->in_rd) <= avail)
        return TP_READ_MORE;
    return 0;
}

/* Returns the next non-empty message of the packed frame being split, 0 when it holds no
 * more, or TP_EFAIL. */
int tp_ripc_pack_next(tp_channel *ch, tp_msg *msg)
{
    while (ch->pk_cur) {
        const uint8_t *p = ch->pk_cur;
        size_t left = (size_t)(ch->pk_end - p);
        if (left < 2)
            return bad(ch, "packed frame ends with %zu stray byte(s)", left);
        uint32_t len = tp_get16(p);
        if (len > left - 2)
            return bad(ch, "packed message of %u bytes exceeds the %zu bytes left in its frame",
                       len, left - 2);
        p += 2;
        ch->pk_cur = p + len == ch->pk_end ? NULL : p + len;
        if (len == 0)
            continue;
        msg->data = p;
        msg->len = len;
        ch->st.msgs_read++;
        return TP_READ_MSG | more_flag(ch);
    }
    return 0;
}

static tp_frag *frag_find(tp_channel *ch, uint16_t id)
{
    for (int i = 0; i < TP_FRAG_SLOTS; i++)
        if (ch->frags[i].used && ch->frags[i].id == id)
            return &ch->frags[i];
    return NULL;
}

/* Makes room for need bytes in f, growing geometrically but never past its total. */
static int frag_grow(tp_channel *ch, tp_frag *f, uint32_t need)
{
    if (need <= f->cap)
        return 0;
    uint64_t cap = f->cap ? (uint64_t)f->cap * 2 : 65536;
    if (cap < need)
        cap = need;
    if (cap > f->total)
        cap = f->total;
    uint8_t *b = realloc(f->buf, cap);
    if (!b)
        return bad(ch, "out of memory reassembling a %u-byte message", f->total);
    f->buf = b;
    f->cap = (uint32_t)cap;
    return 0;
}

static int frag_first(tp_channel *ch, uint16_t id, uint32_t total, const uint8_t *pay,
                      uint32_t plen, tp_msg *msg)
{
    if (total == 0)
        return bad(ch, "first fragment (id %u) announces a total length of 0", id);
    if (total > ch->o.max_reassembly)
        return bad(ch, "fragmented message of %u bytes exceeds the %u-byte limit", total,
                   ch->o.max_reassembly);
    if (plen > total)
        return bad(ch, "first fragment (id %u) carries %u bytes of a %u-byte message", id, plen,
                   total);
    tp_frag *f = frag_find(ch, id);
    if (f)
        f->used = 0; /* a new message with an id still in progress replaces the stale one */
    if (plen == total) {
        msg->data = pay;
        msg->len = plen;
        ch->st.msgs_read++;
        return TP_READ_MSG | more_flag(ch);
    }
    if (!f) {
        for (int i = 0; i < TP_FRAG_SLOTS && !f; i++)
            if (!ch->frags[i].used)
                f = &ch->frags[i];
        if (!f)
            return bad(ch, "more than %d fragmented messages in reassembly at once", TP_FRAG_SLOTS);
    }
    f->total = total;
    f->got = 0;
    f->id = id;
    if (frag_grow(ch, f, plen ? plen : 1) < 0)
        return TP_EFAIL;
    memcpy(f->buf, pay, plen);
    f->got = plen;
    f->used = 1;
    return 0;
}

static int frag_next(tp_channel *ch, uint16_t id, const uint8_t *pay, uint32_t plen, tp_msg *msg)
{
    if (plen == 0)
        return 0; /* ETA ignores empty subsequent fragments */
    tp_frag *f = frag_find(ch, id);
    if (!f)
        return bad(ch, "fragment for unknown fragment id %u", id);
    if (plen > f->total - f->got)
        return bad(ch, "fragments of id %u carry more than the announced %u bytes", id, f->total);
    if (frag_grow(ch, f, f->got + plen) < 0)
        return TP_EFAIL;
    memcpy(f->buf + f->got, pay, plen);
    f->got += plen;
    if (f->got < f->total)
        return 0;
    f->used = 0;
    msg->data = f->buf;
    msg->len = f->total;
    ch->st.msgs_read++;
    return TP_READ_MSG | more_flag(ch);
}

/* Hands over the payload of a complete (decompressed) frame. */
static int deliver(tp_channel *ch, uint8_t flags, uint8_t ext, uint32_t total, uint16_t id,
                   const uint8_t *pay, uint32_t plen, tp_msg *msg)
{
    if (ext & TP_X_FRAG_HEADER)
        return frag_first(ch, id, total, pay, plen, msg);
    if (ext & TP_X_FRAG)
        return frag_next(ch, id, pay, plen, msg);
    if (plen > 0 && (flags & TP_F_PACKED)) {
        ch->pk_cur = pay;
        ch->pk_end = pay + plen;
        int rc = tp_ripc_pack_next(ch, msg);
        if (rc != 0)
            return rc;
    } else if (plen > 0) {
        msg->data = pay;
        msg->len = plen;
        ch->st.msgs_read++;
        return TP_READ_MSG | more_flag(ch);
    }
    ch->st.pings_read++;
    return TP_READ_PING | more_flag(ch);
}

static int decompress(tp_channel *ch, const uint8_t *src, uint32_t n)
{
    if (n == 0)
        return err_set("compressed frame with no compressed bytes");
    if (ch->comp_in == TP_COMP_ZLIB)
        return tp_inflate(ch, src, n);
    return tp_lz4_decompress(ch, src, n);
}

/* The frame after one flagged COMP_FRAG: the rest of the compressed message. */
static int split_second(tp_channel *ch, const uint8_t *p, uint32_t flen, tp_msg *msg)
{
    if (p[2] != TP_F_COMP)
        return bad(ch, "expected the rest of a split compressed frame, got flags 0x%02x", p[2]);
    const uint8_t *pay = p + 3;
    uint32_t plen = flen - 3;
    if (ch->comp_in == TP_COMP_ZLIB) {
        if (tp_inflate(ch, pay, plen) < 0)
            return tp_chan_fail(ch);
    } else {
        if (ch->lz_len + plen > ch->lz_cap)
            return bad(ch, "split lz4 frame larger than %u bytes", ch->lz_cap);
        memcpy(ch->lz_tmp + ch->lz_len, pay, plen);
        ch->lz_len += plen;
        ch->dec_len = 0;
        if (decompress(ch, ch->lz_tmp, ch->lz_len) < 0)
            return tp_chan_fail(ch);
    }
    ch->split = 0;
    return deliver(ch, ch->split_flags, ch->split_ext, ch->split_total, ch->split_id, ch->dec,
                   ch->dec_len, msg);
}

/* Everything but a plain uncompressed data frame. The frame (flen bytes at p) is complete in
 * the input area. Returns 0 when it delivered nothing (a fragment, the first part of a
 * split), the tp_read() flags otherwise, or TP_EFAIL. */
int tp_ripc_frame_in(tp_channel *ch, const uint8_t *p, uint32_t flen, tp_msg *msg)
{
    if (flen < 3)
        return bad(ch, "frame length %u is shorter than its 3-byte header", flen);
    if (flen > ch->max_in_frame)
        return bad(ch, "frame of %u bytes exceeds the maximum of %u", flen, ch->max_in_frame);
    ch->in_rd += flen;
    if (ch->split)
        return split_second(ch, p, flen, msg);
    uint8_t flags = p[2];
    if (flags & ~(TP_F_EXT | TP_F_DATA | TP_F_COMP | TP_F_COMP_FRAG | TP_F_PACKED))
        return bad(ch, "frame has unknown flags 0x%02x", flags);
    if (!(flags & (TP_F_DATA | TP_F_COMP)))
        return bad(ch, "frame flags 0x%02x carry neither data nor compressed data", flags);
    if ((flags & TP_F_COMP_FRAG) && !(flags & TP_F_COMP))
        return bad(ch, "frame flags 0x%02x: split flag without compression", flags);
    uint32_t hdr = 3, total = 0;
    uint16_t id = 0;
    uint8_t ext = 0;
    if (flags & TP_F_EXT) {
        if (flen < 4)
            return bad(ch, "frame of %u bytes lacks its extended flags", flen);
        ext = p[3];
        uint32_t idb = ch->frag_id_bytes;
        if ((ext & ~(TP_X_FRAG | TP_X_FRAG_HEADER)) || ext == (TP_X_FRAG | TP_X_FRAG_HEADER))
            return bad(ch, "data frame has invalid extended flags 0x%02x", ext);
        if (ext & TP_X_FRAG_HEADER) {
            hdr = 8 + idb;
            if (flen < hdr)
                return bad(ch, "first fragment frame of %u bytes is shorter than its header", flen);
            total = tp_get32(p + 4);
            id = (uint16_t)(idb == 2 ? tp_get16(p + 8) : p[8]);
        } else if (ext & TP_X_FRAG) {
            hdr = 4 + idb;
            if (flen < hdr)
                return bad(ch, "fragment frame of %u bytes is shorter than its header", flen);
            id = (uint16_t)(idb == 2 ? tp_get16(p + 4) : p[4]);
        } else {
            hdr = 4;
        }
        if ((flags & TP_F_PACKED) && ext)
            return bad(ch, "frame is both packed and fragmented");
    }
    const uint8_t *pay = p + hdr;
    uint32_t plen = flen - hdr;
    if (flags & TP_F_COMP) {
        if (!ch->comp_in)
            return bad(ch, "compressed frame on a channel that negotiated no compression");
        ch->dec_len = 0;
        if (flags & TP_F_COMP_FRAG) {
            ch->split = 1;
            ch->split_flags = flags & (uint8_t)~TP_F_COMP_FRAG;
            ch->split_ext = ext;
            ch->split_total = total;
            ch->split_id = id;
            if (ch->comp_in == TP_COMP_ZLIB) {
                if (tp_inflate(ch, pay, plen) < 0)
                    return tp_chan_fail(ch);
            } else {
                if (plen > ch->lz_cap)
                    return bad(ch, "split lz4 frame larger than %u bytes", ch->lz_cap);
                memcpy(ch->lz_tmp, pay, plen);
                ch->lz_len = plen;
            }
            return 0;
        }
        if (decompress(ch, pay, plen) < 0)
            return tp_chan_fail(ch);
        pay = ch->dec;
        plen = ch->dec_len;
    }
    return deliver(ch, flags, ext, total, id, pay, plen, msg);
}

/* The peer ended the stream: fails the channel saying where in a message it stopped. */
static int peer_closed(tp_channel *ch)
{
    uint32_t part = ch->in_wr - ch->in_rd;
    if (part || ch->split)
        return bad(ch,
                   "connection closed by peer in the middle of a frame (%u bytes "
                   "of it received)",
                   part);
    for (int i = 0; i < TP_FRAG_SLOTS; i++)
        if (ch->frags[i].used)
            return bad(ch,
                       "connection closed by peer in the middle of a fragmented "
                       "message (%u of %u bytes received)",
                       ch->frags[i].got, ch->frags[i].total);
    return bad(ch, "connection closed by peer");
}

/* Reads from the stream stack into the input area until it has nothing more that was
 * already read from the socket, or the area is full (then ch->rx_pend stays set, so that
 * tp_read says TP_READ_MORE although the descriptor may never announce those bytes). The
 * end of the stream found after bytes in the same call is kept (ch->rx_eof) and reported by
 * the next call, so that those bytes are read first. Returns 1 (bytes arrived), 0 (none
 * available) or TP_EFAIL. */
static int fill_stream(tp_channel *ch)
{
    int got = 0;
    if (TP_UNLIKELY(ch->rx_eof))
        return peer_closed(ch);
    for (;;) {
        uint32_t room = ch->in_cap - ch->in_wr;
        if (room == 0) {
            ch->rx_pend = 1;
            return 1;
        }
        long n = ch->strm->ops->read(ch->strm, ch->in + ch->in_wr, room);
        ch->st.recv_calls++;
        if (n > 0) {
            ch->in_wr += (uint32_t)n;
            ch->st.bytes_read += (uint64_t)n;
            ch->rx_seen = 1;
            got = 1;
            if (ch->strm->ops->pending(ch->strm))
                continue;
            ch->rx_pend = 0;
            return 1;
        }
        ch->rx_pend = 0;
        if (n == 0)
            return got;
        if (n == TP_IO_EOF) {
            if (!got)
                return peer_closed(ch);
            /* The peer's last bytes came with its close (a TLS close_notify read ahead with
             * the last record): they are parsed first, the close is reported by the next
             * fill. rx_pend makes tp_read say TP_READ_MORE until then, as the descriptor may
             * announce nothing more. */
            ch->rx_eof = 1;
            ch->rx_pend = 1;
            return 1;
        }
        return tp_chan_fail(ch);
    }
}

/* One recv() into the input area. Returns 1 (bytes arrived), 0 (none available) or
 * TP_EFAIL (end of file, error). */
static int fill(tp_channel *ch)
{
    if (TP_UNLIKELY(ch->rx_inplace)) { /* the stream keeps the input area itself */
        int rc = ch->strm->ops->fill(ch->strm);
        if (rc >= 0)
            return rc;
        return rc == TP_IO_EOF ? peer_closed(ch) : tp_chan_fail(ch);
    }
    if (ch->in_rd == ch->in_wr) {
        ch->in_rd = ch->in_wr = 0;
    } else if (ch->in_cap - ch->in_wr < ch->max_in_frame) {
        memmove(ch->in, ch->in + ch->in_rd, ch->in_wr - ch->in_rd);
        ch->in_wr -= ch->in_rd;
        ch->in_rd = 0;
    }
    if (TP_UNLIKELY(ch->strm != NULL))
        return fill_stream(ch);
    for (;;) {
        uint32_t room = ch->in_cap - ch->in_wr;
        ssize_t n = recv(ch->fd, ch->in + ch->in_wr, room, 0);
        ch->st.recv_calls++;
        if (n > 0) {
            ch->in_wr += (uint32_t)n;
            ch->st.bytes_read += (uint64_t)n;
            ch->rx_seen = 1;
            /* A recv() that filled the room most likely left bytes in the socket: rx_pend
             * makes tp_read say TP_READ_MORE once the area is parsed, so that the caller
             * reads them at once instead of asking the descriptor first. A shorter one
             * emptied the socket: the caller waits for the descriptor. */
            ch->rx_pend = (uint32_t)n == room;
            return 1;
        }
        ch->rx_pend = 0;
        if (n == 0)
            return peer_closed(ch);
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno == EINTR)
            continue;
        err_set_errno(errno, "recv");
        return tp_chan_fail(ch);
    }
}

/* Everything tp_read's fast path does not handle. */
static int __attribute__((noinline)) read_slow(tp_channel *ch, tp_msg *msg)
{
    int rc;
    if (ch->ws)
        return tp_ws_read(ch, msg);
    if (ch->pk_cur) {
        rc = tp_ripc_pack_next(ch, msg);
        if (rc != 0)
            goto out;
    }
    if (TP_UNLIKELY(ch->conn_type != TP_CONN_SOCKET))
        return tp_shm_read(ch, msg);
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_read: channel is not active yet");
        return TP_EINVAL;
    }
    int did_io = 0;
    for (;;) {
        uint32_t avail = ch->in_wr - ch->in_rd;
        if (avail >= 3) {
            const uint8_t *p = ch->in + ch->in_rd;
            uint32_t flen = tp_get16(p);
            if (flen <= avail) {
                if (p[2] == TP_F_DATA && flen > 3 && flen <= ch->max_in_frame && !ch->split) {
                    ch->in_rd += flen;
                    msg->data = p + 3;
                    msg->len = flen - 3;
                    ch->st.msgs_read++;
                    rc = TP_READ_MSG | more_flag(ch);
                    goto out;
                }
                rc = tp_ripc_frame_in(ch, p, flen, msg);
                if (rc != 0)
                    goto out;
                continue;
            }
            if (flen > ch->max_in_frame)
                return bad(ch, "frame of %u bytes exceeds the maximum of %u", flen,
                           ch->max_in_frame);
        }
        if (did_io) {
            /* nothing complete; TP_READ_MORE when the last read filled the input area (or
             * the stream stack holds more): the descriptor may not announce those bytes */
            rc = more_flag(ch);
            goto out;
        }
        rc = fill(ch);
        if (rc <= 0)
            goto out;
        did_io = 1;
    }
out:
    ch->rd_fast = ch->state == TP_STATE_ACTIVE && !ch->pk_cur && !ch->split;
    return rc;
}

int tp_read(tp_channel *ch, tp_msg *msg)
{
    /* the common case: a complete plain data frame is already buffered */
    if (TP_LIKELY(ch->rd_fast)) {
        uint32_t avail = ch->in_wr - ch->in_rd;
        const uint8_t *p = ch->in + ch->in_rd;
        if (avail >= 3) {
            uint32_t flen = tp_get16(p);
            if (flen <= avail && p[2] == TP_F_DATA && flen > 3 && flen <= ch->max_in_frame) {
                ch->in_rd += flen;
                msg->data = p + 3;
                msg->len = flen - 3;
                ch->st.msgs_read++;
                avail -= flen;
                if (avail >= 3 && tp_get16(p + flen) <= avail)
                    return TP_READ_MSG | TP_READ_MORE;
                return TP_READ_MSG | (ch->rx_pend ? TP_READ_MORE : 0);
            }
        }
    }
    if (ch->ws)
        return tp_ws_read(ch, msg);
    if (ch->shm)
        return tp_shm_read(ch, msg);
    if (ch->mc)
        return tp_mc_read(ch, msg);
    return read_slow(ch, msg);
}

/* The rest of the packed frame being split (ch->pk_cur), taken into msgs[n..max) while its
 * messages are well formed. Returns the new n; ch->pk_cur is NULL when the frame is done.
 * One pass over the lengths: the bytes left in the frame are kept in a register and each
 * message costs one length check against them, no call and no second look; a malformed
 * length or stray bytes at the end stop the loop with ch->pk_cur on them, for
 * tp_ripc_pack_next() to report. */
static inline int batch_unpack(tp_channel *ch, tp_msg *msgs, int n, int max)
{
    const uint8_t *p = ch->pk_cur;
    size_t left = (size_t)(ch->pk_end - p);
    tp_msg *o = msgs + n;
    tp_msg *const oe = msgs + max;
    while (o < oe && left >= 2) {
        const size_t len = tp_get16(p);
        const size_t rest = left - 2;
        if (TP_UNLIKELY(len > rest))
            break;
        p += 2;
        if (TP_LIKELY(len != 0)) {
            o->data = p;
            o->len = (uint32_t)len;
            o++;
        }
        p += len;
        left = rest - len;
    }
    ch->pk_cur = left ? p : NULL;
    return (int)(o - msgs);
}

/* Messages of the plain and packed data frames complete in the input area (and of a packed
 * frame being split), taken into msgs[n..max) without a system call and without touching
 * anything a view taken earlier points into. Stops at anything else (a partial frame,
 * another kind of frame, a length the parser refuses), which tp_read() then handles.
 * Returns the new n. */
static int batch_take(tp_channel *ch, tp_msg *msgs, int n, int max)
{
    const int n0 = n;
    if (ch->pk_cur)
        n = batch_unpack(ch, msgs, n, max);
    if (!ch->pk_cur) {
        const uint8_t *const in = ch->in, *const end = in + ch->in_wr;
        const uint8_t *p = in + ch->in_rd;
        const uint32_t maxf = ch->max_in_frame;
        while (n < max && end - p >= 3) {
            uint32_t flen = tp_get16(p);
            /* complete, and 4 .. max_in_frame bytes long (a payload, not refused) */
            if (flen > (size_t)(end - p) || flen - 4u > maxf - 4u)
                break;
            if (TP_LIKELY(p[2] == TP_F_DATA)) {
                /* a run of plain frames, the usual input, in a loop of its own: the same checks,
                 * the next frame's length read once */
                tp_msg *o = msgs + n, *const oe = msgs + max;
                do {
                    o->data = p + 3;
                    o->len = flen - 3;
                    o++;
                    p += flen;
                    if (o == oe || end - p < 3)
                        break;
                    flen = tp_get16(p);
                } while (flen <= (size_t)(end - p) && flen - 4u <= maxf - 4u && p[2] == TP_F_DATA);
                n = (int)(o - msgs);
                continue;
            }
            if (p[2] != (TP_F_DATA | TP_F_PACKED))
                break;
            ch->pk_cur = p + 3;
            ch->pk_end = p + flen;
            p += flen;
            int before = n;
            n = batch_unpack(ch, msgs, n, max);
            if (ch->pk_cur)
                break;
            if (n == before)
                ch->st.pings_read++; /* only empty entries: a ping, as tp_read() counts it */
        }
        ch->in_rd = (uint32_t)(p - in);
    }
    ch->st.msgs_read += (uint64_t)(n - n0);
    ch->rd_fast = !ch->pk_cur;
    return n;
}

/* True when batch_take() may parse ch's input: an active RIPC channel (socket or TLS) whose
 * next bytes are a frame or the rest of a packed one. */
static inline bool batch_ok(const tp_channel *ch)
{
    return ch->rd_fast || (ch->pk_cur && !ch->ws && !ch->split && ch->state == TP_STATE_ACTIVE);
}

int tp_read_batch(tp_channel *ch, tp_msg *msgs, int max, bool *more)
{
    int n = 0;
    if (TP_LIKELY(batch_ok(ch))) {
        n = batch_take(ch, msgs, 0, max);
        if (TP_LIKELY(n > 0)) {
            *more = more_flag(ch) != 0;
            return n;
        }
    }
    if (ch->shm) /* the slots one refill copied, not one tp_read() each */
        return tp_shm_read_batch(ch, msgs, max, more);
    /* nothing plain is complete: one tp_read() (the other frames, the system call) */
    int rc = tp_read(ch, &msgs[0]);
    if (rc < 0)
        return rc;
    n = (rc & TP_READ_MSG) ? 1 : 0;
    *more = (rc & TP_READ_MORE) != 0;
    if (*more && batch_ok(ch) && n < max) {
        n = batch_take(ch, msgs, n, max);
        *more = more_flag(ch) != 0;
    }
    return n;
}

/* The packed entries from p to end checked in one pass of their lengths, up to the first
 * empty or malformed one: returns where the checked ones end (end when all are), *msgs their
 * number. One comparison an entry: with r the bytes after its length, 1 <= len <= r is
 * len - 1 < r, an empty entry's len - 1 wrapping round. */
static inline const uint8_t *pack_check(const uint8_t *p, const uint8_t *const end, uint32_t *msgs)
{
    uint32_t k = 0;
    if (end - p >= 2) {
        const uint8_t *const last = end - 2; /* the last place a length may start */
        while (p <= last) {
            const size_t len = tp_get16(p);
            if (TP_UNLIKELY(len - 1 >= (size_t)(last - p)))
                break;
            k++;
            p += 2 + len;
        }
    }
    *msgs = k;
    return p;
}

/* The packed entries from p to end into frames f[n..max): each run of messages between empty
 * entries (skipped) one frame. A malformed length or stray bytes leave ch->pk_cur on them, for
 * tp_ripc_pack_next() to report; entries left when f is full leave ch->pk_cur on the first of
 * them. Returns the new n; adds the messages to *msgs. */
static inline int frame_packed(tp_channel *ch, const uint8_t *p, const uint8_t *const end,
                               tp_frame *f, int n, int max, uint64_t *msgs)
{
    for (;;) {
        uint32_t k;
        const uint8_t *const q = pack_check(p, end, &k);
        if (TP_LIKELY(k != 0)) {
            if (TP_UNLIKELY(n == max))
                break;
            f[n++] = (tp_frame){.data = p, .len = (uint32_t)(q - p), .packed = k};
            *msgs += k;
        }
        p = q;
        if (TP_LIKELY(p == end)) {
            ch->pk_cur = NULL;
            return n;
        }
        if (end - p < 2 || tp_get16(p) != 0)
            break; /* malformed */
        p += 2;    /* an empty entry */
    }
    ch->pk_cur = p;
    ch->pk_end = end;
    return n;
}

/* batch_take() by frames: the plain and packed data frames complete in the input area (and
 * the rest of a packed frame being split) into f[n..max), with the same checks and stops.
 * Returns the new n. */
static int frames_take(tp_channel *ch, tp_frame *f, int n, int max)
{
    uint64_t msgs = 0;
    if (ch->pk_cur)
        n = frame_packed(ch, ch->pk_cur, ch->pk_end, f, n, max, &msgs);
    if (!ch->pk_cur) {
        const uint8_t *const in = ch->in, *const end = in + ch->in_wr;
        const uint8_t *p = in + ch->in_rd;
        const uint32_t maxf = ch->max_in_frame;
        while (n < max && end - p >= 3) {
            uint32_t flen = tp_get16(p);
            /* complete, and 4 .. max_in_frame bytes long (a payload, not refused) */
            if (flen > (size_t)(end - p) || flen - 4u > maxf - 4u)
                break;
            if (TP_LIKELY(p[2] == TP_F_DATA)) {
                /* a run of plain frames in a loop of its own, as in batch_take() */
                tp_frame *o = f + n, *const oe = f + max;
                do {
                    *o++ = (tp_frame){.data = p + 3, .len = flen - 3, .packed = 0};
                    p += flen;
                    if (o == oe || end - p < 3)
                        break;
                    flen = tp_get16(p);
                } while (flen <= (size_t)(end - p) && flen - 4u <= maxf - 4u && p[2] == TP_F_DATA);
                msgs += (uint64_t)(o - (f + n));
                n = (int)(o - f);
                continue;
            }
            if (p[2] != (TP_F_DATA | TP_F_PACKED))
                break;
            const int before = n;
            n = frame_packed(ch, p + 3, p + flen, f, n, max, &msgs);
            p += flen;
            if (ch->pk_cur)
                break;
            if (n == before)
                ch->st.pings_read++; /* only empty entries: a ping, as tp_read() counts it */
        }
        ch->in_rd = (uint32_t)(p - in);
    }
    ch->st.msgs_read += msgs;
    ch->rd_fast = !ch->pk_cur;
    return n;
}

int tp_read_frames(tp_channel *ch, tp_frame *f, int max, bool *more)
{
    int n = 0;
    if (TP_LIKELY(batch_ok(ch))) {
        n = frames_take(ch, f, 0, max);
        if (TP_LIKELY(n > 0)) {
            *more = more_flag(ch) != 0;
            return n;
        }
    }
    if (ch->shm) { /* the slots one refill copied, a frame each */
        tp_msg ms[64];
        n = tp_shm_read_batch(ch, ms, max < 64 ? max : 64, more);
        for (int i = 0; i < n; i++)
            f[i] = (tp_frame){.data = ms[i].data, .len = ms[i].len, .packed = 0};
        return n;
    }
    /* nothing plain is complete: one tp_read() (the other frames, the system call) */
    tp_msg m;
    int rc = tp_read(ch, &m);
    if (rc < 0)
        return rc;
    if (rc & TP_READ_MSG)
        f[n++] = (tp_frame){.data = m.data, .len = m.len, .packed = 0};
    *more = (rc & TP_READ_MORE) != 0;
    if (*more && batch_ok(ch) && n < max) {
        n = frames_take(ch, f, n, max);
        *more = more_flag(ch) != 0;
    }
    return n;
}

bool tp_read_ready(const tp_channel *ch)
{
    if (ch->mc)
        return ch->state == TP_STATE_ACTIVE && (ch->mc->cur || ch->mc->rx_i < ch->mc->rx_n);
    if (ch->conn_type != TP_CONN_SOCKET || ch->state != TP_STATE_ACTIVE)
        return false;
    return (ch->ws ? tp_ws_more(ch) : more_flag(ch)) != 0;
}
