/* The write path. The output area is one contiguous byte queue [out_head, out_tail) that a
 * single send() drains. An unpacked or packed message on an uncompressed channel is built in
 * place: the buffer handed out is a view just past the 3 header bytes reserved at the tail,
 * so writing it means filling in those 3 bytes and moving the tail. Other buffers (a second
 * one opened while the direct one is open, compressed channels, messages larger than one
 * frame) live in staging slots and are copied or compressed into the queue by tp_write —
 * for compression that copy is the compressor's own output. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_mc_int.h"
#include "tp_stream.h"
#include "tp_ws_int.h"

/* tp_buf.deferred_flags: the write flags in the low byte, and */
#define BF_PACKED 0x100 /* the payload is a packed series */
#define BF_FINAL 0x200  /* b->len is the final payload length (retry or deferred) */

static inline int clamp_int(size_t q)
{
    return q > INT_MAX ? INT_MAX : (int)q;
}

static int state_err(tp_channel *ch)
{
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    err_set("channel is not active yet");
    return TP_EINVAL;
}

static int __attribute__((noinline)) flush_stream(tp_channel *ch);

int tp_out_flush(tp_channel *ch)
{
    if (TP_UNLIKELY(ch->strm != NULL))
        return flush_stream(ch);
    size_t q = ch->out_tail - ch->out_head;
    while (q > 0) {
        ssize_t n = send(ch->fd, ch->out + ch->out_head, q, MSG_NOSIGNAL);
        ch->st.send_calls++;
        if (n > 0) {
            ch->out_head += (size_t)n;
            ch->st.bytes_sent += (uint64_t)n;
            q -= (size_t)n;
            ch->blocked_at = q; /* a short send means the socket is full */
            break;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ch->blocked_at = q;
            break;
        }
        if (n < 0 && errno == EINTR)
            continue;
        char what[64];
        snprintf(what, sizeof(what), "send of %zu queued bytes", q);
        tp_send_failed(n < 0 ? errno : EIO, what);
        return tp_chan_fail(ch);
    }
    if (ch->out_head == ch->out_tail) {
        ch->blocked_at = 0;
        if (!ch->direct.busy)
            ch->out_head = ch->out_tail = 0;
    }
    return clamp_int(ch->out_tail - ch->out_head);
}

/* tp_out_flush through the stream stack: hands the queue to the top stream until it takes
 * everything or must wait (TLS takes one record of up to 16 KiB per call, so a short write
 * does not mean that the socket is full; only a 0 does). */
static int __attribute__((noinline)) flush_stream(tp_channel *ch)
{
    size_t q = ch->out_tail - ch->out_head;
    while (q > 0) {
        long n = ch->strm->ops->write(ch->strm, ch->out + ch->out_head, q);
        ch->st.send_calls++;
        if (n > 0) {
            ch->out_head += (size_t)n;
            ch->st.bytes_sent += (uint64_t)n;
            q -= (size_t)n;
            continue;
        }
        if (n == 0) {
            ch->blocked_at = q;
            break;
        }
        err_push("send of %zu queued bytes", q);
        return tp_chan_fail(ch);
    }
    if (ch->out_head == ch->out_tail) {
        ch->blocked_at = 0;
        if (!ch->direct.busy)
            ch->out_head = ch->out_tail = 0;
    }
    return clamp_int(ch->out_tail - ch->out_head);
}

/* Queued bytes that are always worth moving to the front of the output area to make room. */
#define TP_MOVE_ALWAYS (64u * 1024u)

/* Makes need contiguous bytes available at the tail: flushes once, then reclaims the sent
 * space at the front. The queued bytes are moved there only when they are few (up to
 * TP_MOVE_ALWAYS) or no more than the room the move leaves, so that a long backlog that the
 * socket drains slowly is not moved again for every message: each byte moved is paid for by
 * at least as many bytes queued after it. Returns 0, TP_ENOBUFS or TP_EFAIL. */
int tp_out_reserve(tp_channel *ch, size_t need)
{
    if (ch->out_cap - ch->out_tail >= need)
        return 0;
    if (ch->out_tail > ch->out_head && tp_out_flush(ch) < 0)
        return TP_EFAIL;
    if (ch->out_cap - ch->out_tail >= need)
        return 0;
    size_t q = ch->out_tail - ch->out_head;
    if (!ch->direct.busy && ch->out_head > 0 && (q <= TP_MOVE_ALWAYS || q <= ch->out_cap - q)) {
        ch->st.bytes_moved += q;
        memmove(ch->out, ch->out + ch->out_head, q);
        ch->out_head = 0;
        ch->out_tail = q;
        if (ch->blocked_at)
            ch->blocked_at = q;
    }
    if (ch->out_cap - ch->out_tail >= need)
        return 0;
    ch->st.no_buffers++;
    err_set("output buffers exhausted: %zu bytes queued, %zu more needed",
            ch->out_tail - ch->out_head, need);
    return TP_ENOBUFS;
}

static int run_deferred(tp_channel *ch);

/* Sends once, then queues deferred messages into the room the send freed, so that the
 * result (bytes queued, or TP_EFAIL) is never 0 while a deferred message still waits:
 * a caller that flushes until 0 does not strand it. */
static int flush_refill(tp_channel *ch)
{
    int q = tp_out_flush(ch);
    if (q < 0 || !ch->n_deferred || ch->direct.busy)
        return q;
    if (run_deferred(ch) < 0)
        return TP_EFAIL;
    return clamp_int(ch->out_tail - ch->out_head);
}

/* After a frame was queued: flush if asked to (direct write on an empty queue) or if the
 * high-water mark is reached (and the socket was not found full since less than one more
 * high-water mark was queued). Returns the bytes still queued or TP_EFAIL. */
int __attribute__((noinline)) tp_out_commit(tp_channel *ch, size_t before, unsigned flags)
{
    size_t q = ch->out_tail - ch->out_head;
    if (((flags & TP_WRITE_DIRECT) && before == 0) ||
        (q >= ch->hwm && (!ch->blocked_at || q >= ch->blocked_at + ch->hwm)))
        return flush_refill(ch);
    return clamp_int(q);
}

/* Queues one frame of n payload bytes taken from src, compressing it when the channel
 * compresses, the message is large enough, the caller allows it, and the result is sure to
 * fit one frame. Returns 0, TP_ENOBUFS or TP_EFAIL. */
static int emit_frame(tp_channel *ch, uint8_t fl, uint8_t ext, uint32_t total, uint16_t id,
                      const uint8_t *src, uint32_t n, unsigned wflags)
{
    uint32_t idb = ch->frag_id_bytes, hdr = 3;
    int k = 0;
    if (fl & TP_F_EXT) {
        hdr = 4;
        if (ext & TP_X_FRAG_HEADER) {
            hdr += 4 + idb;
            k = 1;
        } else if (ext & TP_X_FRAG) {
            hdr += idb;
            k = 2;
        }
    }
    uint8_t *f;
    uint32_t flen = 0, room = 0;
    if (ch->comp_out && !(wflags & TP_WRITE_NO_COMPRESS) && n >= ch->comp_threshold &&
        n <= ch->comp_max[k]) {
        uint32_t bound = tp_comp_bound(ch, n);
        room = ch->ws ? tp_ws_room(ch, hdr + bound) : 0;
        int rc = tp_out_reserve(ch, room + hdr + bound);
        if (rc < 0)
            return rc;
        f = ch->out + ch->out_tail + room;
        int clen = tp_compress(ch, src, n, f + hdr, bound);
        if (clen < 0)
            return tp_chan_fail(ch);
        if (clen > 0) {
            fl = (uint8_t)((fl & ~TP_F_DATA) | TP_F_COMP);
            flen = hdr + (uint32_t)clen;
        }
    }
    if (flen == 0) {
        room = ch->ws ? tp_ws_room(ch, hdr + n) : 0;
        int rc = tp_out_reserve(ch, room + hdr + n);
        if (rc < 0)
            return rc;
        f = ch->out + ch->out_tail + room;
        memcpy(f + hdr, src, n);
        flen = hdr + n;
    }
    tp_put16(f, flen);
    f[2] = fl;
    if (fl & TP_F_EXT) {
        f[3] = ext;
        uint8_t *idp = f + 4;
        if (ext & TP_X_FRAG_HEADER) {
            tp_put32(f + 4, total);
            idp = f + 8;
        }
        if (ext & (TP_X_FRAG_HEADER | TP_X_FRAG)) {
            if (idb == 2)
                tp_put16(idp, id);
            else
                *idp = (uint8_t)id;
        }
    }
    if (ch->ws)
        flen = tp_ws_wrap(ch, ch->out + ch->out_tail, room, flen, TP_WS_OP_BINARY);
    ch->out_tail += flen;
    ch->st.bytes_written += flen;
    return 0;
}

/* Queues a staged buffer whose payload (plen bytes) is final: one frame, or fragments.
 * Returns 0, TP_ENOBUFS (nothing queued), TP_ECALLAGAIN (fragments partly queued) or
 * TP_EFAIL. On 0 the buffer is released. */
static int emit_staged(tp_channel *ch, tp_buf *b, uint32_t plen, int packed, unsigned wflags)
{
    if (ch->ws_json)
        return tp_ws_json_emit(ch, b, plen, wflags);
    if (plen <= ch->max_user) {
        int rc = emit_frame(ch, packed ? TP_F_DATA | TP_F_PACKED : TP_F_DATA, 0, 0, 0, b->pay, plen,
                            wflags);
        if (rc < 0)
            return rc;
    } else {
        if (b->frag_id == 0) {
            b->frag_id = ch->next_frag_id;
            ch->next_frag_id = ch->next_frag_id >= ch->frag_id_max ? 1 : ch->next_frag_id + 1;
            b->wr_off = 0;
        }
        while (b->wr_off < plen) {
            int first = b->wr_off == 0;
            uint32_t chunk = first ? ch->frag_first : ch->frag_sub;
            if (chunk > plen - b->wr_off)
                chunk = plen - b->wr_off;
            int rc = emit_frame(ch, TP_F_EXT | TP_F_DATA, first ? TP_X_FRAG_HEADER : TP_X_FRAG,
                                plen, b->frag_id, b->pay + b->wr_off, chunk, wflags);
            if (rc == TP_ENOBUFS)
                return TP_ECALLAGAIN;
            if (rc < 0)
                return rc;
            b->wr_off += chunk;
        }
    }
    ch->st.msgs_written++;
    b->busy = 0;
    b->deferred = 0;
    b->deferred_flags = 0;
    b->wr_off = 0;
    b->frag_id = 0;
    return 0;
}

/* Queues staged buffers that were written while the direct buffer was open, in the order
 * they were written. Stops at the first that does not fit (it is retried later). */
static int run_deferred(tp_channel *ch)
{
    while (ch->n_deferred > 0 && !ch->direct.busy) {
        tp_buf *b = &ch->stage[ch->deferred[0]];
        int rc = emit_staged(ch, b, b->len, (b->deferred_flags & BF_PACKED) != 0,
                             b->deferred_flags & 0xFF);
        if (rc == TP_ENOBUFS || rc == TP_ECALLAGAIN)
            return 0;
        if (rc < 0)
            return rc;
        memmove(ch->deferred, ch->deferred + 1, --ch->n_deferred);
    }
    return 0;
}

static tp_buf *own_buf(tp_channel *ch, tp_buf *b)
{
    if (b == &ch->direct)
        return b;
    if (b >= ch->stage && b < ch->stage + TP_STAGE_SLOTS)
        return b;
    return NULL;
}

static int get_slow(tp_channel *ch, uint32_t size, bool packed, tp_buf **out);

/* WebSocket channels without compression: the direct buffer sits after the room for the
 * frame header (2 or 4 bytes as the size asked for needs, and a client's 4-byte mask key),
 * then the RIPC header (rssl.rwf) or the "[" (rssl.json.v2). */
static int __attribute__((noinline))
ws_get_fast(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    uint32_t hdr = ch->ws_json ? 0 : 3;
    uint32_t pay = size + (packed || ch->ws_json ? 2u : 0u);
    uint32_t room = (pay + hdr < 126 ? 2u : 4u) + (ch->server ? 0u : 4u);
    if (TP_LIKELY(!ch->direct.busy && !ch->n_deferred && pay <= ch->max_user && pay >= size &&
                  ch->out_cap - ch->out_tail >= (size_t)room + hdr + pay)) {
        tp_buf *b = &ch->direct;
        b->room = (uint8_t)room;
        b->packed = packed;
        b->pay = ch->out + ch->out_tail + room + hdr;
        b->pay_cap = pay;
        b->pack_off = ch->ws_json ? 1 : packed ? 2 : 0;
        if (ch->ws_json)
            b->pay[0] = '[';
        b->data = b->pay + b->pack_off;
        b->len = size;
        b->busy = 1;
        *out = b;
        return 0;
    }
    return get_slow(ch, size, packed, out);
}

int tp_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    /* the common case: an open direct buffer in the output area, room at its tail */
    uint32_t pay = size + (packed ? 2u : 0u);
    if (TP_LIKELY(ch->wr_fast && !ch->direct.busy && !ch->n_deferred && pay <= ch->max_user &&
                  pay >= size && ch->out_cap - ch->out_tail >= (size_t)pay + 3)) {
        tp_buf *b = &ch->direct;
        b->pay = ch->out + ch->out_tail + 3;
        b->pay_cap = pay;
        b->pack_off = packed ? 2 : 0;
        b->data = b->pay + b->pack_off;
        b->len = size;
        b->busy = 1;
        *out = b;
        return 0;
    }
    if (ch->ws_fast)
        return ws_get_fast(ch, size, packed, out);
    if (ch->shm)
        return tp_shm_get_buffer(ch, size, packed, out);
    if (ch->mc)
        return tp_mc_get_buffer(ch, size, packed, out);
    return get_slow(ch, size, packed, out);
}

static int __attribute__((noinline))
get_slow(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    if (TP_UNLIKELY(ch->conn_type != TP_CONN_SOCKET))
        return tp_shm_get_buffer(ch, size, packed, out);
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    if (ch->n_deferred && !ch->direct.busy) {
        /* messages written earlier still wait for room: a new one must not overtake them */
        if (run_deferred(ch) < 0)
            return TP_EFAIL;
        if (ch->n_deferred) {
            ch->st.no_buffers++;
            err_set("output buffers exhausted: %u earlier message(s) still wait for room, %zu "
                    "bytes queued",
                    ch->n_deferred, ch->out_tail - ch->out_head);
            return TP_ENOBUFS;
        }
    }
    /* RIPC: a 3-byte header, 2-byte lengths for packed messages; rssl.json.v2: "[" and "]"
     * around the message(s), "," between packed ones */
    uint64_t pay = (uint64_t)size + (packed || ch->ws_json ? 2 : 0);
    uint32_t hdr = ch->ws_json ? 0 : 3;
    if (!ch->direct.busy && !ch->comp_out && pay <= ch->max_user) {
        uint32_t room = ch->ws ? tp_ws_room(ch, (uint32_t)pay + hdr) : 0;
        size_t need = room + (size_t)pay + hdr;
        int rc = tp_out_reserve(ch, need);
        if (rc < 0)
            return rc;
        tp_buf *b = &ch->direct;
        b->room = (uint8_t)room;
        b->packed = packed;
        b->pay = ch->out + ch->out_tail + room + hdr;
        b->pay_cap = (uint32_t)pay;
        b->pack_off = ch->ws_json ? 1 : packed ? 2 : 0;
        if (ch->ws_json)
            b->pay[0] = '[';
        b->data = b->pay + b->pack_off;
        b->len = size;
        b->busy = 1;
        *out = b;
        return 0;
    }
    /* staged */
    if (packed && pay > ch->max_user) {
        err_set("packed buffer of %u bytes exceeds the %u-byte maximum", size, ch->max_user - 2);
        return TP_EINVAL;
    }
    if (pay > ch->o.max_reassembly || pay > (1u << 30)) {
        err_set("buffer of %u bytes exceeds the %u-byte message limit", size, ch->o.max_reassembly);
        return TP_EINVAL;
    }
    tp_buf *b = NULL;
    for (int i = 0; i < TP_STAGE_SLOTS && !b; i++)
        if (!ch->stage[i].busy)
            b = &ch->stage[i];
    if (!b) {
        ch->st.no_buffers++;
        err_set("more than %d buffers are open on this channel", TP_STAGE_SLOTS + 1);
        return TP_ENOBUFS;
    }
    /* room for (the first frame of) the message must exist now, as ETA requires */
    uint32_t first = pay > ch->max_user ? ch->max_user : (uint32_t)pay;
    size_t need = 16 + (ch->ws_json    ? (ch->comp_out ? tp_ws_pmd_bound(first) : first)
                        : ch->comp_out ? tp_comp_bound(ch, first)
                                       : first);
    if (ch->out_cap - ch->out_tail < need) {
        int rc = tp_out_reserve(ch, need);
        if (rc < 0)
            return rc;
    }
    if (b->stage_cap < pay) {
        uint32_t cap = pay < 256 ? 256 : (uint32_t)pay;
        uint8_t *m = realloc(b->stage, cap);
        if (!m) {
            err_set("out of memory for a %u-byte buffer", size);
            return TP_ENOBUFS;
        }
        b->stage = m;
        b->stage_cap = cap;
    }
    b->pay = b->stage;
    b->pay_cap = (uint32_t)pay;
    b->room = 0;
    b->packed = packed;
    b->pack_off = ch->ws_json ? 1 : packed ? 2 : 0;
    if (ch->ws_json)
        b->pay[0] = '[';
    b->data = b->pay + b->pack_off;
    b->len = size;
    b->busy = 1;
    b->deferred = 0;
    b->deferred_flags = 0;
    b->wr_off = 0;
    b->frag_id = 0;
    *out = b;
    return 0;
}

/* Points b's room at what is left after its last packed message: data at the next message's
 * payload and len at the bytes left (len 0, data at the end, when the buffer is full). */
static void pack_next(tp_buf *b)
{
    if (b->pack_off < b->pay_cap) {
        b->data = b->pay + b->pack_off;
        b->len = b->pay_cap - b->pack_off;
    } else {
        b->data = b->pay + b->pay_cap;
        b->len = 0;
    }
}

int tp_pack(tp_channel *ch, tp_buf *b)
{
    if (ch->ws_json && own_buf(ch, b))
        return tp_ws_json_pack(ch, b);
    /* a seqMCast datagram's entries have the layout of a packed frame's */
    if ((ch->conn_type != TP_CONN_SOCKET && !ch->mc) || !own_buf(ch, b) || !b->busy ||
        !b->pack_off) {
        err_set("tp_pack: not an open packed buffer of this channel");
        return TP_EINVAL;
    }
    if (b->pack_off > b->pay_cap || b->len > b->pay_cap - b->pack_off) {
        err_set("packed message of %u bytes exceeds the %u bytes left in its buffer", b->len,
                b->pack_off > b->pay_cap ? 0 : b->pay_cap - b->pack_off);
        return TP_EINVAL;
    }
    tp_put16(b->pay + b->pack_off - 2, b->len);
    b->pack_off += b->len + 2;
    pack_next(b);
    return 0;
}

int tp_pack_run(tp_channel *ch, tp_buf *b, uint32_t size, uint32_t k)
{
    if (ch->ws_json || (ch->conn_type != TP_CONN_SOCKET && !ch->mc) || !own_buf(ch, b) ||
        !b->busy || !b->pack_off) {
        err_set("tp_pack_run: not an open packed buffer of this channel");
        return TP_EINVAL;
    }
    const uint64_t stride = (uint64_t)size + 2;
    if (k == 0)
        return 0;
    if (b->pack_off > b->pay_cap || stride * k - 2 > b->pay_cap - b->pack_off) {
        err_set("%u packed messages of %u bytes exceed the %u bytes left in their buffer", k, size,
                b->pack_off > b->pay_cap ? 0 : b->pay_cap - b->pack_off);
        return TP_EINVAL;
    }
    /* the length in network order made once, then one 2-byte store per message */
    uint8_t len[2];
    tp_put16(len, size);
    uint8_t *p = b->pay + b->pack_off - 2;
    for (const uint8_t *const end = p + stride * k; p != end; p += stride)
        memcpy(p, len, 2);
    b->pack_off += (uint32_t)(stride * k);
    pack_next(b);
    return 0;
}

/* The payload length of b as it will be sent (closing the last packed message). */
static int final_len(tp_buf *b, uint32_t *plen)
{
    if (b->pack_off) {
        if (b->len == 0) {
            *plen = b->pack_off - 2; /* drop the slot opened for a next message */
            return 0;
        }
        if (b->pack_off > b->pay_cap || b->len > b->pay_cap - b->pack_off)
            return err_set("packed message of %u bytes exceeds the room left in its buffer",
                           b->len);
        tp_put16(b->pay + b->pack_off - 2, b->len);
        *plen = b->pack_off + b->len;
        return 0;
    }
    if (b->len > b->pay_cap)
        return err_set("buffer length %u exceeds the %u bytes obtained", b->len, b->pay_cap);
    *plen = b->len;
    return 0;
}

static int write_slow(tp_channel *ch, tp_buf *b, unsigned flags)
{
    if (!own_buf(ch, b) || !b->busy || b->deferred) {
        err_set("tp_write: buffer is not open on this channel");
        return TP_EINVAL;
    }
    if (ch->state != TP_STATE_ACTIVE)
        return state_err(ch);
    size_t before = ch->out_tail - ch->out_head;
    if (!(b->deferred_flags & BF_FINAL)) {
        uint32_t plen = 0;
        if ((ch->ws_json ? tp_ws_json_final(b, &plen) : final_len(b, &plen)) < 0)
            return TP_EINVAL;
        if (plen == 0) { /* nothing to send (a zero-length frame would be a ping) */
            tp_release(ch, b);
            return clamp_int(ch->out_tail - ch->out_head);
        }
        if (b->kind == TP_BUF_DIRECT) {
            uint8_t *f = b->pay;
            uint32_t flen = plen;
            if (!ch->ws_json) {
                f -= 3;
                flen += 3;
                tp_put16(f, flen);
                f[2] = b->pack_off ? TP_F_DATA | TP_F_PACKED : TP_F_DATA;
            }
            if (ch->ws)
                flen = tp_ws_wrap(ch, f - b->room, b->room, flen,
                                  ch->ws_json ? TP_WS_OP_TEXT : TP_WS_OP_BINARY);
            ch->out_tail += flen;
            ch->st.bytes_written += flen;
            ch->st.msgs_written++;
            b->busy = 0;
            if (ch->ws && tp_ws_flush_controls(ch) < 0)
                return TP_EFAIL;
            if (ch->n_deferred && run_deferred(ch) < 0)
                return TP_EFAIL;
            return tp_out_commit(ch, before, flags);
        }
        b->deferred_flags = BF_FINAL | (b->pack_off ? BF_PACKED : 0u);
        b->len = plen;
    }
    b->deferred_flags = (b->deferred_flags & (BF_FINAL | BF_PACKED)) | (flags & 0xFF);
    if (ch->n_deferred && !ch->direct.busy && run_deferred(ch) < 0)
        return TP_EFAIL;
    if (ch->direct.busy || ch->n_deferred) {
        /* the open direct buffer owns the tail, or earlier messages still wait for room:
         * this one goes after them */
        b->deferred = 1;
        ch->deferred[ch->n_deferred++] = b->slot;
        return clamp_int(ch->out_tail - ch->out_head);
    }
    int rc = emit_staged(ch, b, b->len, (b->deferred_flags & BF_PACKED) != 0, flags);
    if (rc < 0) {
        if (rc == TP_ECALLAGAIN)
            ch->st.no_buffers++;
        return rc;
    }
    return tp_out_commit(ch, before, flags);
}

/* After a WebSocket frame of n bytes was written at the tail by the direct buffer (open,
 * before the queue held before bytes): queues it and closes the buffer, counts it, queues the
 * messages deferred behind it and the control frames due, then flushes as tp_out_commit()
 * says. Returns what tp_write() returns: the bytes still queued, or TP_EFAIL. */
static inline int ws_queued(tp_channel *ch, uint32_t n, size_t before, unsigned flags)
{
    ch->out_tail += n;
    ch->direct.busy = 0;
    ch->st.bytes_written += n;
    ch->st.msgs_written++;
    if (TP_UNLIKELY(ch->n_deferred) && run_deferred(ch) < 0)
        return TP_EFAIL;
    if (TP_UNLIKELY((ch->ws->pong_due || ch->ws->jpong_due) && tp_ws_flush_controls(ch) < 0))
        return TP_EFAIL;
    size_t q = ch->out_tail - ch->out_head;
    if (TP_LIKELY(q < ch->hwm && !(flags & TP_WRITE_DIRECT)))
        return (int)q;
    return tp_out_commit(ch, before, flags);
}

/* WebSocket channels without compression: an unpacked direct buffer gets its RIPC header (or
 * its closing "]") and its frame header in place. */
static int __attribute__((noinline)) ws_write_fast(tp_channel *ch, tp_buf *b, unsigned flags)
{
    uint32_t extra = ch->ws_json ? 2u : 0u; /* the brackets */
    if (!(b == &ch->direct && b->busy && !b->packed && b->len - 1u < b->pay_cap - extra &&
          !ch->n_deferred))
        return write_slow(ch, b, flags);
    size_t before = ch->out_tail - ch->out_head;
    uint8_t *f;
    uint32_t flen;
    if (ch->ws_json) {
        f = b->pay; /* "[" is there */
        f[b->len + 1] = ']';
        flen = b->len + 2;
    } else {
        f = b->pay - 3;
        flen = b->len + 3;
        tp_put16(f, flen);
        f[2] = TP_F_DATA;
    }
    uint32_t n =
        tp_ws_wrap(ch, f - b->room, b->room, flen, ch->ws_json ? TP_WS_OP_TEXT : TP_WS_OP_BINARY);
    return ws_queued(ch, n, before, flags);
}

int tp_write(tp_channel *ch, tp_buf *b, unsigned flags)
{
    /* the common case: the direct buffer, unpacked, nothing deferred */
    if (TP_LIKELY(b == &ch->direct && ch->wr_fast && b->busy && !b->pack_off &&
                  b->len - 1u < b->pay_cap && !ch->n_deferred)) {
        size_t before = ch->out_tail - ch->out_head;
        uint32_t flen = b->len + 3;
        uint8_t *f = b->pay - 3;
        tp_put16(f, flen);
        f[2] = TP_F_DATA;
        ch->out_tail += flen;
        b->busy = 0;
        ch->st.bytes_written += flen;
        ch->st.msgs_written++;
        size_t q = before + flen;
        if (TP_LIKELY(q < ch->hwm && !(flags & TP_WRITE_DIRECT)))
            return (int)q; /* q < hwm, which fits an int */
        return tp_out_commit(ch, before, flags);
    }
    if (ch->ws_fast)
        return ws_write_fast(ch, b, flags);
    if (ch->shm)
        return tp_shm_write(ch, b, flags);
    if (ch->mc)
        return tp_mc_write(ch, b, flags);
    return write_slow(ch, b, flags);
}

/* ---- rssl.json.v2 messages in place ------------------------------------------------------ */

/* The frame of a message: a 4-byte header (a server's text frame of 126 to 65,535 bytes),
 * then "[", the message and "]". */
#define TP_JSON_HDR 4u

int tp_json_get(tp_channel *ch, uint32_t size, uint8_t **at)
{
    uint32_t flen = size + 2; /* the brackets */
    if (TP_UNLIKELY(!ch->ws_fast || !ch->ws_json || !ch->server || ch->direct.busy ||
                    ch->n_deferred || flen < size || flen > ch->max_user || flen > 0xFFFF))
        return TP_EINVAL;
    if (TP_UNLIKELY(ch->out_cap - ch->out_tail < (size_t)TP_JSON_HDR + flen)) {
        int rc = tp_out_reserve(ch, (size_t)TP_JSON_HDR + flen);
        if (rc < 0)
            return rc;
    }
    uint8_t *f = ch->out + ch->out_tail;
    f[TP_JSON_HDR] = '[';
    ch->direct.busy = 1; /* the tail is the message's */
    ch->json_open = size + 1;
    *at = f + TP_JSON_HDR + 1;
    return 0;
}

/* tp_json_write() when its message cannot be queued as it is: none open (TP_EINVAL); the
 * channel failed since (its error); len 0 (nothing sent, the bytes queued) or too large
 * (TP_EINVAL). An open message is closed either way. */
static int __attribute__((noinline)) json_write_odd(tp_channel *ch, uint32_t len)
{
    if (!ch->json_open) {
        err_set("tp_json_write: no message open on this channel");
        return TP_EINVAL;
    }
    uint32_t size = ch->json_open - 1;
    ch->json_open = 0;
    ch->direct.busy = 0;
    if (!ch->ws_fast)
        return state_err(ch);
    if (ch->n_deferred && run_deferred(ch) < 0)
        return TP_EFAIL;
    if (len == 0) /* nothing to send (a zero-length frame would be a ping) */
        return clamp_int(ch->out_tail - ch->out_head);
    err_set("tp_json_write: a message of %u bytes in room for %u", len, size);
    return TP_EINVAL;
}

int tp_json_write(tp_channel *ch, uint32_t len, unsigned flags)
{
    if (TP_UNLIKELY(len == 0 || len >= ch->json_open || !ch->ws_fast))
        return json_write_odd(ch, len);
    size_t before = ch->out_tail - ch->out_head;
    uint8_t *f = ch->out + ch->out_tail;
    f[TP_JSON_HDR + 1 + len] = ']';
    uint32_t flen = len + 2, n;
    if (TP_LIKELY(flen >= 126)) { /* the 4-byte header in place (tp_ws_wrap's, unmasked) */
        f[0] = 0x80 | TP_WS_OP_TEXT;
        f[1] = 126;
        tp_put16(f + 2, flen);
        n = TP_JSON_HDR + flen;
    } else {
        n = tp_ws_wrap(ch, f, TP_JSON_HDR, flen, TP_WS_OP_TEXT); /* a 2-byte header */
    }
    ch->json_open = 0;
    return ws_queued(ch, n, before, flags);
}

/* ---- runs ------------------------------------------------------------------------------ */

int tp_run_get(tp_channel *ch, uint32_t size, uint32_t want, unsigned flags, tp_run *run)
{
    if (ch->shm)
        return tp_shm_run_get(ch, size, want, run);
    if (TP_UNLIKELY(!ch->wr_fast || ch->direct.busy || ch->n_deferred || size == 0 ||
                    size > ch->max_user || want == 0)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_run_get: no run of %u-byte messages on this channel now", size);
        return TP_EINVAL;
    }
    const size_t fs = (size_t)size + 3;
    if (ch->out_cap - ch->out_tail < fs) {
        int rc = tp_out_reserve(ch, fs);
        if (rc < 0)
            return rc;
    }
    size_t n = (ch->out_cap - ch->out_tail) / fs;
    if (n > want)
        n = want;
    /* the message after which tp_write() would flush: the queue reaching the high-water mark
     * (one more mark past where the socket was last found full), or the first message on an
     * empty queue with TP_WRITE_DIRECT */
    size_t q = ch->out_tail - ch->out_head, mark = ch->hwm + ch->blocked_at;
    size_t upto = q >= mark ? 1 : (mark - q + fs - 1) / fs;
    if ((flags & TP_WRITE_DIRECT) && q == 0)
        upto = 1;
    if (n > upto)
        n = upto;
    ch->direct.busy = 1; /* the tail is the run's until tp_run_write() */
    run->data = ch->out + ch->out_tail + 3;
    run->stride = (uint32_t)fs;
    run->size = size;
    run->n = (uint32_t)n;
    return 0;
}

int tp_run_write(tp_channel *ch, tp_run *run, uint32_t k, unsigned flags)
{
    if (ch->shm)
        return tp_shm_run_write(ch, run, k);
    if (TP_UNLIKELY(!ch->wr_fast || !ch->direct.busy || k > run->n ||
                    run->data != ch->out + ch->out_tail + 3)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_run_write: not the open run of this channel");
        return TP_EINVAL;
    }
    ch->direct.busy = 0;
    if (k == 0) {
        if (ch->n_deferred && run_deferred(ch) < 0)
            return TP_EFAIL;
        return clamp_int(ch->out_tail - ch->out_head);
    }
    const uint32_t fs = run->stride;
    uint8_t *f = run->data - 3;
    for (uint32_t i = 0; i < k; i++, f += fs) {
        tp_put16(f, fs);
        f[2] = TP_F_DATA;
    }
    size_t before = ch->out_tail - ch->out_head + (size_t)(k - 1) * fs;
    ch->out_tail += (size_t)k * fs;
    ch->st.bytes_written += (uint64_t)k * fs;
    ch->st.msgs_written += k;
    if (ch->n_deferred && run_deferred(ch) < 0) /* buffers written while the run was open */
        return TP_EFAIL;
    return tp_out_commit(ch, before, flags);
}

int tp_release(tp_channel *ch, tp_buf *b)
{
    if (ch->mc)
        return tp_mc_release(ch, b);
    if (ch->conn_type != TP_CONN_SOCKET)
        return tp_shm_release(ch, b);
    if (!own_buf(ch, b) || !b->busy || b->deferred) {
        err_set("tp_release: buffer is not open on this channel");
        return TP_EINVAL;
    }
    b->busy = 0;
    b->wr_off = 0;
    b->frag_id = 0;
    b->deferred_flags = 0;
    if (b == &ch->direct && ch->n_deferred && ch->state == TP_STATE_ACTIVE && run_deferred(ch) < 0)
        return TP_EFAIL;
    if (b == &ch->direct && ch->ws && ch->state == TP_STATE_ACTIVE && tp_ws_flush_controls(ch) < 0)
        return TP_EFAIL;
    return 0;
}

int tp_flush(tp_channel *ch)
{
    if (ch->mc)
        return tp_mc_flush(ch);
    if (ch->conn_type != TP_CONN_SOCKET)
        return tp_shm_flush(ch);
    if (ch->state != TP_STATE_ACTIVE)
        return state_err(ch);
    if (ch->n_deferred && run_deferred(ch) < 0)
        return TP_EFAIL;
    return flush_refill(ch);
}

int tp_ping(tp_channel *ch)
{
    static const uint8_t ping[3] = {0x00, 0x03, TP_F_DATA};
    if (ch->mc)
        return tp_mc_ping(ch);
    if (ch->conn_type != TP_CONN_SOCKET)
        return tp_shm_ping(ch);
    if (ch->state != TP_STATE_ACTIVE)
        return state_err(ch);
    if (ch->out_tail > ch->out_head)
        return tp_flush(ch);
    if (ch->ws_json)
        return tp_ws_json_ping(ch);
    if (!ch->direct.busy) {
        uint32_t room = ch->ws ? tp_ws_room(ch, 3) : 0, n = 3;
        if (tp_out_reserve(ch, room + 3) < 0)
            return TP_EFAIL;
        memcpy(ch->out + ch->out_tail + room, ping, 3);
        if (ch->ws)
            n = tp_ws_wrap(ch, ch->out + ch->out_tail, room, 3, TP_WS_OP_BINARY);
        ch->out_tail += n;
        ch->st.bytes_written += n;
        ch->st.pings_sent++;
        return tp_out_flush(ch);
    }
    /* the open direct buffer owns the tail, and nothing is queued: send the ping itself. A
     * stream (TLS) cannot take a separate write that might stay half done under the queue's
     * next one: the ping waits for the next tick there, the buffer being written by then. */
    if (ch->strm)
        return 0;
    for (;;) {
        ssize_t n = send(ch->fd, ping, 3, MSG_NOSIGNAL);
        ch->st.send_calls++;
        if (n == 3) {
            ch->st.pings_sent++;
            ch->st.bytes_sent += 3;
            return 0;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0; /* the socket is full, so the peer has data to read anyway */
        if (n < 0 && errno == EINTR)
            continue;
        tp_send_failed(n < 0 ? errno : EIO, "sending a ping");
        return tp_chan_fail(ch);
    }
}
