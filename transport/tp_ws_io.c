/* The steady-state paths of an active WebSocket channel: frames parsed in place in the input
 * area (rssl.rwf: their payloads handed to the RIPC reader; rssl.json.v2: messages returned
 * as they lie, inflated when compressed), control frames answered, violations closed with
 * their status code; and the frame headers, masking and JSON arrays of the write side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_ws_int.h"

#define bad(ch, ...) (err_set(__VA_ARGS__), tp_chan_fail(ch))

static const char json_ping[] = "[{\"Type\":\"Ping\"}]";
static const char json_pong[] = "[{\"Type\":\"Pong\"}]";

/* ---- control frames ------------------------------------------------------------------ */

/* Queues one unfragmented frame (payload copied, masked for a client) at the output tail and
 * sends once. Returns 1 (queued), 0 (no room now, or the direct buffer owns the tail), or
 * TP_EFAIL. */
static int queue_frame(tp_channel *ch, uint8_t opcode, const void *pay, uint32_t len)
{
    if (ch->direct.busy)
        return 0;
    uint32_t h = tp_ws_hdr_size(len, !ch->server);
    int rc = tp_out_reserve(ch, h + len);
    if (rc == TP_ENOBUFS) {
        ch->st.no_buffers--; /* not the caller's buffer request */
        return 0;
    }
    if (rc < 0)
        return TP_EFAIL;
    uint8_t *f = ch->out + ch->out_tail;
    if (len)
        memcpy(f + h, pay, len);
    tp_ws_wrap(ch, f, h, len, opcode);
    ch->out_tail += h + len;
    ch->st.bytes_written += h + len;
    return tp_out_flush(ch) < 0 ? TP_EFAIL : 1;
}

int tp_ws_flush_controls(tp_channel *ch)
{
    tp_ws *w = ch->ws;
    if (TP_LIKELY(!w->pong_due && !w->jpong_due))
        return 0;
    int rc;
    if (w->pong_due) {
        rc = queue_frame(ch, TP_WS_OP_PONG, NULL, 0);
        if (rc < 0)
            return rc;
        w->pong_due = rc == 0;
    }
    if (w->jpong_due) {
        rc = queue_frame(ch, TP_WS_OP_TEXT, json_pong, sizeof(json_pong) - 1);
        if (rc < 0)
            return rc;
        w->jpong_due = rc == 0;
    }
    return 0;
}

void tp_ws_send_close(tp_channel *ch, uint16_t code, const char *reason)
{
    tp_ws *w = ch->ws;
    if (!w || w->close_sent)
        return;
    w->close_sent = 1;
    uint8_t pay[125];
    uint32_t n = tp_ws_close_payload(pay, code, reason);
    if (w->raw && ch->out && !ch->direct.busy) {
        char saved[ERR_MSG_MAX];
        snprintf(saved, sizeof(saved), "%s", err_msg());
        queue_frame(ch, TP_WS_OP_CLOSE, pay, n); /* best effort */
        err_set("%s", saved);
        return;
    }
    /* the handshake, or the tail is taken: a separate write of the whole frame */
    uint8_t f[TP_WS_HDR_MAX + 125], key[4];
    tp_ws_next_key(w, key);
    uint32_t h = tp_ws_hdr_write(f, true, false, TP_WS_OP_CLOSE, n, w->server ? NULL : key);
    memcpy(f + h, pay, n);
    if (!w->server)
        tp_ws_mask(f + h, n, key, 0);
    tp_stream_lower_write(&w->base, f, h + n);
}

/* A protocol violation: close with its code, fail the channel. */
static int violation(tp_channel *ch, uint16_t code)
{
    char why[ERR_MSG_MAX];
    snprintf(why, sizeof(why), "%s", err_msg());
    tp_ws_send_close(ch, code, tp_ws_close_text(code));
    err_set("WebSocket: %s (closed with %u %s)", why, code, tp_ws_close_text(code));
    return tp_chan_fail(ch);
}

/* The peer closed: answer (a server says Going Away, as ETA; a client echoes the code) and
 * fail the channel with the peer's code. */
static int peer_close(tp_channel *ch, const tp_ws_ev *e)
{
    tp_ws *w = ch->ws;
    uint16_t mine = w->server                                ? TP_WS_CLOSE_GOING_AWAY
                    : e->close_code == TP_WS_CLOSE_NO_STATUS ? TP_WS_CLOSE_NORMAL
                                                             : e->close_code;
    tp_ws_send_close(ch, mine, tp_ws_close_text(mine));
    if (w->rx.in_msg)
        return bad(ch, "WS Code %u %s in the middle of a fragmented message (%u bytes received)",
                   e->close_code, tp_ws_close_text(e->close_code), w->rx.msg_len);
    const char *std = tp_ws_close_text(e->close_code);
    if (e->len && (e->len != strlen(std) || memcmp(e->data, std, e->len) != 0))
        return bad(ch, "WS Code %u %s: %.*s", e->close_code, std,
                   (int)(e->len > 123 ? 123 : e->len), (const char *)e->data);
    /* 1000 Normal Closure, 1001 Going Away, 1005 (a close frame without a code): the peer's
     * orderly end */
    if (e->close_code == TP_WS_CLOSE_NORMAL || e->close_code == TP_WS_CLOSE_GOING_AWAY ||
        e->close_code == TP_WS_CLOSE_NO_STATUS)
        return bad(ch, "%s (WS Code %u %s)", TP_PEER_CLOSED, e->close_code,
                   tp_ws_close_text(e->close_code));
    return bad(ch, "WS Code %u %s", e->close_code, tp_ws_close_text(e->close_code));
}

/* ---- reading ------------------------------------------------------------------------- */

int tp_ws_more(const tp_channel *ch)
{
    const tp_ws *w = ch->ws;
    if (ch->pk_cur || ch->rx_pend)
        return TP_READ_MORE;
    if (!ch->ws_json) {
        uint32_t avail = ch->in_wr - ch->in_rd;
        if (avail >= 3 && tp_get16(ch->in + ch->in_rd) <= avail)
            return TP_READ_MORE;
    }
    uint32_t raw = w->raw_wr - w->raw_rd;
    const uint8_t *p = ch->in + w->raw_rd;
    if (raw >= 4 && !(p[1] & 0x80) && (p[1] & 0x7F) <= 126) {
        /* an unmasked frame with a 7- or 16-bit length (a server's): what tp_ws_hdr_parse
         * finds, without its copy of the header */
        uint32_t len = p[1] & 0x7F, hl = 2;
        if (len == 126) {
            len = tp_get16(p + 2);
            hl = 4;
        }
        return len <= raw - hl ? TP_READ_MORE : 0;
    }
    tp_ws_hdr h;
    int n = tp_ws_hdr_parse(p, raw, &h);
    if (n < 0 || (n > 0 && h.len <= raw - (uint32_t)n))
        return TP_READ_MORE;
    return 0;
}

/* One read from the stream into the input area, after making room: the bytes still needed
 * (pending RIPC bytes, a message being collected, raw frames) move to the front. Returns 1
 * (bytes arrived), 0 (none), TP_EFAIL. */
static int ws_fill(tp_channel *ch, tp_ws *w)
{
    uint32_t keep = tp_ws_rx_keep(&w->rx, w->raw_rd);
    if (ch->in_rd < ch->in_wr && ch->in_rd < keep)
        keep = ch->in_rd;
    if (keep == w->raw_wr || ch->in_cap - w->raw_wr < w->max_msg + TP_WS_HDR_MAX) {
        if (keep < w->raw_wr)
            memmove(ch->in, ch->in + keep, w->raw_wr - keep);
        if (ch->in_rd < ch->in_wr) {
            ch->in_rd -= keep;
            ch->in_wr -= keep;
        } else {
            ch->in_rd = ch->in_wr = 0;
        }
        w->raw_rd -= keep;
        w->raw_wr -= keep;
        tp_ws_rx_moved(&w->rx, keep);
    }
    uint32_t room = ch->in_cap - w->raw_wr;
    if (room == 0)
        return bad(ch, "WebSocket input area of %u bytes is full", ch->in_cap);
    long n = tp_io_read(ch, ch->in + w->raw_wr, room);
    ch->st.recv_calls++;
    if (n > 0) {
        w->raw_wr += (uint32_t)n;
        ch->st.bytes_read += (uint64_t)n;
        ch->rx_seen = 1;
        ch->rx_pend = ch->strm->ops->pending(ch->strm) != 0;
        return 1;
    }
    ch->rx_pend = 0;
    if (n == 0)
        return 0;
    if (n != TP_IO_EOF)
        return tp_chan_fail(ch);
    if (w->rx.in_msg)
        return bad(ch,
                   "connection closed by peer in the middle of a fragmented WebSocket message "
                   "(%u bytes received)",
                   w->rx.msg_len);
    if (w->raw_wr > w->raw_rd)
        return bad(ch,
                   "connection closed by peer in the middle of a WebSocket frame (%u bytes of "
                   "it received)",
                   w->raw_wr - w->raw_rd);
    if (ch->in_wr > ch->in_rd)
        return bad(ch,
                   "connection closed by peer in the middle of a RIPC message (%u bytes of it "
                   "received)",
                   ch->in_wr - ch->in_rd);
    return bad(ch, "connection closed by peer");
}

/* The next frame event from the raw bytes: 1 (filled *e; control frames answered: the caller
 * returns TP_READ_PING for them), 0 (need bytes), TP_EFAIL. A close fails the channel. */
static int next_event(tp_channel *ch, tp_ws *w, tp_ws_ev *e)
{
    int rc = tp_ws_rx_next(&w->rx, ch->in, &w->raw_rd, w->raw_wr, e);
    if (rc < 0)
        return violation(ch, w->rx.close_code);
    if (rc == 0)
        return 0;
    if (e->kind == TP_WS_EV_CLOSE)
        return peer_close(ch, e);
    if (e->kind == TP_WS_EV_PING) {
        w->pong_due = 1;
        if (tp_ws_flush_controls(ch) < 0)
            return TP_EFAIL;
    }
    if (e->kind != TP_WS_EV_MSG)
        ch->st.pings_read++;
    return 1;
}

/* rssl.rwf: appends a binary message's payload to the RIPC bytes. When none are pending the
 * RIPC region starts at the payload; otherwise the pending bytes move up to meet it. */
static void rwf_take(tp_channel *ch, const tp_ws_ev *e)
{
    uint32_t off = (uint32_t)(e->data - ch->in);
    uint32_t pend = ch->in_wr - ch->in_rd;
    if (pend)
        memmove(ch->in + off - pend, ch->in + ch->in_rd, pend);
    ch->in_rd = off - pend;
    ch->in_wr = off + e->len;
}

static inline int with_more(const tp_channel *ch, int rc)
{
    if (rc > 0)
        rc = (rc & ~TP_READ_MORE) | tp_ws_more(ch);
    return rc;
}

static int read_rwf(tp_channel *ch, tp_ws *w, tp_msg *msg)
{
    int did_io = 0, rc;
    for (;;) {
        if (ch->pk_cur) {
            rc = tp_ripc_pack_next(ch, msg);
            if (rc != 0)
                return with_more(ch, rc);
        }
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
                    return TP_READ_MSG | tp_ws_more(ch);
                }
                rc = tp_ripc_frame_in(ch, p, flen, msg);
                if (rc != 0)
                    return with_more(ch, rc);
                continue;
            }
            if (flen > ch->max_in_frame)
                return bad(ch, "frame of %u bytes exceeds the maximum of %u", flen,
                           ch->max_in_frame);
        }
        tp_ws_ev e;
        rc = next_event(ch, w, &e);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            if (e.kind != TP_WS_EV_MSG)
                return TP_READ_PING | tp_ws_more(ch);
            if (e.opcode != TP_WS_OP_BINARY) {
                err_set("text message of %u bytes on a rssl.rwf channel", e.len);
                return violation(ch, TP_WS_CLOSE_UNSUPPORTED);
            }
            rwf_take(ch, &e);
            continue;
        }
        if (did_io)
            return 0;
        rc = ws_fill(ch, w);
        if (rc <= 0)
            return rc;
        did_io = 1;
    }
}

/* rssl.json.v2: a text message, inflated and checked. */
static int json_message(tp_channel *ch, tp_ws *w, const tp_ws_ev *e, tp_msg *msg)
{
    if (e->opcode != TP_WS_OP_TEXT) {
        err_set("binary message of %u bytes on a rssl.json.v2 channel", e->len);
        return violation(ch, TP_WS_CLOSE_UNSUPPORTED);
    }
    const uint8_t *p = e->data;
    uint32_t len = e->len;
    if (e->compressed) {
        bool big;
        int n = tp_ws_pmd_inflate(&w->pmd, p, len, w->dec, w->dec_cap, &big);
        if (n < 0)
            return violation(ch, big ? TP_WS_CLOSE_TOO_BIG : TP_WS_CLOSE_INVALID_DATA);
        p = w->dec;
        len = (uint32_t)n;
        if (w->utf8 && tp_utf8_step(0, p, len) != TP_UTF8_OK) {
            err_set("text message is not valid UTF-8 (after inflating, %u bytes)", len);
            return violation(ch, TP_WS_CLOSE_INVALID_DATA);
        }
    }
    if (len == sizeof(json_ping) - 1 && memcmp(p, json_ping, len) == 0) {
        ch->st.pings_read++;
        w->jpong_due = 1;
        return tp_ws_flush_controls(ch) < 0 ? TP_EFAIL : TP_READ_PING | tp_ws_more(ch);
    }
    if (len == sizeof(json_pong) - 1 && memcmp(p, json_pong, len) == 0) {
        ch->st.pings_read++;
        return TP_READ_PING | tp_ws_more(ch);
    }
    msg->data = p;
    msg->len = len;
    ch->st.msgs_read++;
    return TP_READ_MSG | tp_ws_more(ch);
}

static int read_json(tp_channel *ch, tp_ws *w, tp_msg *msg)
{
    int did_io = 0;
    for (;;) {
        tp_ws_ev e;
        int rc = next_event(ch, w, &e);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            if (e.kind != TP_WS_EV_MSG)
                return TP_READ_PING | tp_ws_more(ch);
            return json_message(ch, w, &e, msg);
        }
        if (did_io)
            return 0;
        rc = ws_fill(ch, w);
        if (rc <= 0)
            return rc;
        did_io = 1;
    }
}

/* The common case of a client: an unmasked, final binary frame holding one plain RIPC data
 * message (rssl.rwf), or an unmasked, final, uncompressed text frame (rssl.json.v2), complete
 * in the input area with nothing pending. Returns the tp_read() result, or -1000 to take the
 * general path. */
static inline int read_fast(tp_channel *ch, tp_ws *w, tp_msg *msg)
{
    if (w->server || ch->pk_cur || ch->in_rd != ch->in_wr || w->rx.in_msg || ch->split)
        return -1000;
    uint32_t raw = w->raw_wr - w->raw_rd;
    const uint8_t *p = ch->in + w->raw_rd;
    if (raw < 2 || p[0] != (ch->ws_json ? 0x81 : 0x82))
        return -1000;
    uint32_t len = p[1], hl = 2;
    if (len == 126 && raw >= 4) {
        len = tp_get16(p + 2);
        hl = 4;
    } else if (len >= 126) {
        return -1000;
    }
    if (raw - hl < len || len < 3)
        return -1000;
    const uint8_t *q = p + hl;
    if (ch->ws_json) {
        if (len > w->max_msg || (len == 17 && q[9] == 'P') ||
            (w->utf8 && tp_utf8_step(0, q, len) != TP_UTF8_OK))
            return -1000; /* a ping or pong, or the error path */
    } else if (tp_get16(q) != len || q[2] != TP_F_DATA || len > ch->max_in_frame) {
        return -1000;
    } else {
        q += 3;
        len -= 3;
    }
    w->raw_rd += hl + (uint32_t)(q - p - hl) + len;
    ch->in_rd = ch->in_wr = w->raw_rd;
    msg->data = q;
    msg->len = len;
    ch->st.msgs_read++;
    return TP_READ_MSG | tp_ws_more(ch);
}

int tp_ws_read(tp_channel *ch, tp_msg *msg)
{
    if (TP_LIKELY(ch->ws_fast)) {
        int rc = read_fast(ch, ch->ws, msg);
        if (rc != -1000)
            return rc;
    }
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_read: channel is not active yet");
        return TP_EINVAL;
    }
    return ch->ws_json ? read_json(ch, ch->ws, msg) : read_rwf(ch, ch->ws, msg);
}

/* ---- writing ------------------------------------------------------------------------- */

int tp_ws_json_pack(tp_channel *ch, tp_buf *b)
{
    if (!b->busy || !b->packed || b->deferred) {
        err_set("tp_pack: not an open packed buffer of this channel");
        return TP_EINVAL;
    }
    uint32_t left = b->pack_off + 1 <= b->pay_cap ? b->pay_cap - 1 - b->pack_off : 0;
    if (b->len > left) {
        err_set("packed message of %u bytes exceeds the %u bytes left in its buffer", b->len, left);
        return TP_EINVAL;
    }
    if (b->len == 0)
        return 0; /* an empty message adds nothing to the array */
    b->pay[b->pack_off + b->len] = ',';
    b->pack_off += b->len + 1;
    b->data = b->pay + b->pack_off;
    b->len = b->pack_off + 1 <= b->pay_cap ? b->pay_cap - 1 - b->pack_off : 0;
    return 0;
}

int tp_ws_json_final(tp_buf *b, uint32_t *plen)
{
    uint32_t left = b->pack_off + 1 <= b->pay_cap ? b->pay_cap - 1 - b->pack_off : 0;
    if (b->len == 0) {
        if (b->pack_off <= 1) {
            *plen = 0;
            return 0;
        }
        b->pay[b->pack_off - 1] = ']'; /* the "," opened for a next message */
        *plen = b->pack_off;
        return 0;
    }
    if (b->len > left)
        return err_set("message of %u bytes exceeds the %u bytes obtained", b->len, left);
    b->pay[b->pack_off + b->len] = ']';
    *plen = b->pack_off + b->len + 1;
    return 0;
}

static void release_staged(tp_channel *ch, tp_buf *b)
{
    ch->st.msgs_written++;
    b->busy = 0;
    b->deferred = 0;
    b->deferred_flags = 0;
    b->wr_off = 0;
    b->frag_id = 0;
}

/* Queues src[0..n) as frames of at most max_user payload bytes (text, continuations),
 * continuing at b->wr_off. 0, TP_ENOBUFS (nothing queued), TP_ECALLAGAIN, TP_EFAIL. */
static int emit_fragments(tp_channel *ch, tp_buf *b, const uint8_t *src, uint32_t n, bool rsv1)
{
    bool masked = !ch->server;
    while (b->wr_off < n) {
        uint32_t chunk = n - b->wr_off;
        if (chunk > ch->max_user)
            chunk = ch->max_user;
        bool first = b->wr_off == 0, last = b->wr_off + chunk == n;
        uint32_t h = tp_ws_hdr_size(chunk, masked);
        int rc = tp_out_reserve(ch, h + chunk);
        if (rc == TP_ENOBUFS)
            return first ? TP_ENOBUFS : TP_ECALLAGAIN;
        if (rc < 0)
            return rc;
        uint8_t *f = ch->out + ch->out_tail, key[4];
        if (masked)
            tp_ws_next_key(ch->ws, key);
        tp_ws_hdr_write(f, last, first && rsv1, first ? TP_WS_OP_TEXT : TP_WS_OP_CONT, chunk,
                        masked ? key : NULL);
        memcpy(f + h, src + b->wr_off, chunk);
        if (masked)
            tp_ws_mask(f + h, chunk, key, 0);
        ch->out_tail += h + chunk;
        ch->st.bytes_written += h + chunk;
        b->wr_off += chunk;
    }
    return 0;
}

/* permessage-deflate: the whole compressed message must fit the output area before the
 * deflate stream takes it (its context then holds it: it must be sent exactly once). */
static int emit_deflated(tp_channel *ch, tp_buf *b, uint32_t n)
{
    tp_ws *w = ch->ws;
    uint32_t bound = tp_ws_pmd_bound(n);
    if (bound > w->ztmp_cap) {
        err_set("message of %u bytes is too large to compress (limit %u)", n, w->ztmp_cap);
        return TP_EINVAL;
    }
    uint32_t frames = bound / ch->max_user + 1;
    int rc = tp_out_reserve(ch, bound + frames * TP_WS_HDR_MAX);
    if (rc < 0)
        return rc;
    bool masked = !ch->server;
    uint32_t room = tp_ws_hdr_size(bound, masked);
    if (bound <= ch->max_user) { /* one frame: compress in place */
        uint8_t *f = ch->out + ch->out_tail;
        int c = tp_ws_pmd_compress(&w->pmd, b->pay, n, f + room, bound);
        if (c < 0)
            return tp_chan_fail(ch);
        uint32_t len = tp_ws_wrap(ch, f, room, (uint32_t)c, TP_WS_OP_TEXT);
        f[0] |= 0x40; /* RSV1: compressed */
        ch->out_tail += len;
        ch->st.bytes_written += len;
        return 0;
    }
    int c = tp_ws_pmd_compress(&w->pmd, b->pay, n, w->ztmp, w->ztmp_cap);
    if (c < 0)
        return tp_chan_fail(ch);
    b->wr_off = 0;
    rc = emit_fragments(ch, b, w->ztmp, (uint32_t)c, true);
    return rc < 0 ? tp_chan_fail(ch) : 0; /* the room was reserved: cannot run short */
}

int tp_ws_json_emit(tp_channel *ch, tp_buf *b, uint32_t plen, unsigned wflags)
{
    int rc;
    if (ch->ws->deflate && !(wflags & TP_WRITE_NO_COMPRESS) && b->wr_off == 0)
        rc = emit_deflated(ch, b, plen);
    else
        rc = emit_fragments(ch, b, b->pay, plen, false);
    if (rc < 0)
        return rc;
    release_staged(ch, b);
    return 0;
}

int tp_ws_json_ping(tp_channel *ch)
{
    if (ch->direct.busy)
        return 0; /* the buffer being filled is traffic enough */
    int rc = queue_frame(ch, TP_WS_OP_TEXT, json_ping, sizeof(json_ping) - 1);
    if (rc < 0)
        return TP_EFAIL;
    if (rc > 0)
        ch->st.pings_sent++;
    return (int)(ch->out_tail - ch->out_head);
}
