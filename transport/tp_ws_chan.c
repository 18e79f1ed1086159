/* The WebSocket layer of a channel during its handshake: the stream in the stack (HTTP
 * upgrade in both roles, then, for rssl.rwf, the RIPC handshake messages in binary frames),
 * the server's detection of an upgrade among RIPC clients, and the switch to in-place
 * framing when the channel becomes active. See tp_ws_int.h for the design. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "tp_ws_int.h"

#define WS(s) ((tp_ws *)(s))

static const char *peer_name(const tp_channel *ch, char *buf, size_t cap)
{
    if (ch->server)
        snprintf(buf, cap, "the client");
    else
        snprintf(buf, cap, "%s:%s", ch->host[0] ? ch->host : "localhost", ch->port);
    return buf;
}

static uint64_t seed(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    }
    return v ? v : 0x853c49e6748fea9bull;
}

int tp_ws_pl_setup(tp_opts *dst_opts, const tp_opts *o, bool server, char *dst)
{
    if (tp_ws_pl_rewrite(o->ws_protocols, server, dst, TP_WS_PL_MAX) < 0) {
        dst_opts->ws_protocols = NULL;
        return TP_EINVAL;
    }
    dst_opts->ws_protocols = dst;
    return 0;
}

tp_ws_proto tp_ws_protocol(const tp_channel *ch)
{
    return ch->ws && (ch->ws->hs == WS_HS_DONE || ch->ws->raw) ? (tp_ws_proto)ch->ws->proto
                                                               : TP_WS_PROTO_NONE;
}

int tp_ws_protocols_check(const char *pl)
{
    char list[TP_WS_PL_MAX];
    return tp_ws_pl_rewrite(pl, false, list, sizeof(list)) < 0 ? TP_EINVAL : 0;
}

/* ---- handshake I/O ------------------------------------------------------------------- */

/* Writes buf2[out_sent, out_len) to the stream below. 1 when all is out, 0 to wait, or
 * TP_EFAIL. */
static int send_out(tp_ws *w)
{
    while (w->out_sent < w->out_len) {
        long n = tp_stream_lower_write(&w->base, w->buf2 + w->out_sent, w->out_len - w->out_sent);
        if (n < 0)
            return err_push("WebSocket handshake"), TP_EFAIL;
        if (n == 0)
            return 0;
        w->out_sent += (uint32_t)n;
    }
    return 1;
}

/* Reads what the stream below has into buf. 1 when bytes arrived, 0 when none, TP_IO_EOF or
 * TP_EFAIL (err_set() says which). */
static int read_in(tp_ws *w, const char *what)
{
    uint32_t room = (uint32_t)sizeof(w->buf) - w->len;
    if (room == 0)
        return err_set("WebSocket %s: buffer full", what), TP_EFAIL;
    long n = tp_stream_lower_read(&w->base, w->buf + w->len, room);
    if (n > 0) {
        w->len += (uint32_t)n;
        return 1;
    }
    if (n == 0)
        return 0;
    if (n == TP_IO_EOF) {
        err_set("connection closed by peer during the WebSocket %s", what);
        return TP_IO_EOF;
    }
    err_push("WebSocket %s", what);
    return TP_EFAIL;
}

/* Keeps the bytes after the HTTP block (frames that came with it) at the start of buf. */
static void drop_block(tp_ws *w, uint32_t n)
{
    memmove(w->buf, w->buf + n, w->len - n);
    w->len -= n;
    w->rd = 0;
}

/* ---- client -------------------------------------------------------------------------- */

static int client_start(tp_ws *w)
{
    tp_channel *ch = w->base.ch;
    uint8_t rnd[16];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        for (int i = 0; i < 16; i++)
            rnd[i] = (uint8_t)(seed() >> 13);
    tp_ws_key_make(rnd, w->key);
    int n = tp_ws_req_build((char *)w->buf2, sizeof(w->buf2), ch->host[0] ? ch->host : "localhost",
                            ch->port, w->key, w->list, ch->o.compression == TP_COMP_ZLIB);
    if (n < 0)
        return err_set("WebSocket upgrade request does not fit in %zu bytes", sizeof(w->buf2));
    w->out_len = (uint32_t)n;
    w->out_sent = 0;
    w->hs = WS_HS_SEND;
    return 0;
}

/* Judges the server's answer. 0 (agreed: w->proto set) or TP_EFAIL. */
static int client_check(tp_ws *w, const tp_ws_resp *r)
{
    tp_channel *ch = w->base.ch;
    char peer[320];
    peer_name(ch, peer, sizeof(peer));
    if (r->status != 101) {
        /* a refusal may say why after its header block (this server's 400s do) */
        int end = tp_ws_resp_parse((const char *)w->buf, w->len, &(tp_ws_resp){0});
        const char *body = (const char *)w->buf + end;
        size_t bl = w->len - (uint32_t)end;
        while (bl && (body[bl - 1] == '\n' || body[bl - 1] == '\r'))
            bl--;
        err_set("WebSocket upgrade refused by %s: Invalid HTTP response, status code %d "
                "%.*s%s%.*s",
                peer, r->status, (int)(r->reason.len > 60 ? 60 : r->reason.len),
                r->reason.p ? r->reason.p : "", bl ? ": " : "", (int)(bl > 300 ? 300 : bl), body);
        /* 400: the server refuses this request (no sub-protocol in common, none accepted) and
         * will refuse the same request again: final. Other refusals (503) may pass. */
        if (r->status == 400)
            err_final();
        return TP_EFAIL;
    }
    if (!r->upgrade_ws || !r->connection_upg)
        return err_set("WebSocket upgrade answer from %s lacks 'Upgrade: websocket' or "
                       "'Connection: Upgrade'",
                       peer);
    char acc[29];
    tp_ws_accept(w->key, strlen(w->key), acc);
    if (!r->accept.p || r->accept.len != 28 || memcmp(r->accept.p, acc, 28) != 0)
        return err_set("WebSocket upgrade answer from %s has Sec-WebSocket-Accept '%.*s', "
                       "expected '%s'",
                       peer, (int)(r->accept.len > 40 ? 40 : r->accept.len),
                       r->accept.p ? r->accept.p : "", acc);
    tp_ws_proto p =
        r->protocol.p ? tp_ws_proto_of(r->protocol.p, r->protocol.len) : TP_WS_PROTO_NONE;
    char name[32];
    snprintf(name, sizeof(name), "%.*s", (int)(r->protocol.len > 20 ? 20 : r->protocol.len),
             r->protocol.p ? r->protocol.p : "");
    if (p == TP_WS_PROTO_NONE || !tp_ws_has_token(w->list, strlen(w->list), name))
        return err_set("WebSocket server %s chose sub-protocol '%s', which was not offered "
                       "('%s')",
                       peer, name, w->list),
               err_final();
    tp_ws_pmd_params pp;
    if (tp_ws_pmd_parse(r->extensions.p, r->extensions.len, &pp) < 0)
        return err_push("WebSocket upgrade answer from %s", peer);
    if (pp.on && ch->o.compression != TP_COMP_ZLIB)
        return err_set("WebSocket server %s agreed to permessage-deflate, which was not offered",
                       peer);
    if (pp.on && pp.client_max_window && pp.client_max_window != 255 && pp.client_max_window < 9)
        return err_set("WebSocket server %s asks for a %u-bit deflate window (9..15 supported)",
                       peer, pp.client_max_window);
    w->pmd_params = pp;
    w->deflate = pp.on && p == TP_WS_PROTO_JSON2;
    w->proto = (uint8_t)p;
    w->json = p == TP_WS_PROTO_JSON2;
    return 0;
}

static int client_read(tp_ws *w)
{
    for (;;) {
        tp_ws_resp r;
        int n = tp_ws_resp_parse((const char *)w->buf, w->len, &r);
        if (n < 0)
            return err_push("WebSocket upgrade answer"), TP_EFAIL;
        if (n > 0) {
            if (r.status != 101) {
                /* give a refusal's explanation a moment to arrive with it */
                read_in(w, "upgrade");
                n = tp_ws_resp_parse((const char *)w->buf, w->len, &r);
            }
            if (client_check(w, &r) < 0)
                return TP_EFAIL;
            drop_block(w, (uint32_t)n);
            w->hs = WS_HS_DONE;
            return 1;
        }
        int rc = read_in(w, "upgrade (waiting for the server's answer)");
        if (rc <= 0)
            return rc < 0 ? TP_EFAIL : 0;
    }
}

/* ---- server -------------------------------------------------------------------------- */

/* Prepares the 400 and keeps why for the failure that follows it being sent. */
static int refuse(tp_ws *w, const char *fmt, ...) ERR_PRINTF(2, 3);
static int refuse(tp_ws *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof(w->why), fmt, ap);
    va_end(ap);
    int n = tp_ws_resp_400((char *)w->buf2, sizeof(w->buf2), w->why);
    if (n < 0)
        n = tp_ws_resp_400((char *)w->buf2, sizeof(w->buf2), NULL);
    w->out_len = (uint32_t)n;
    w->out_sent = 0;
    w->hs = WS_HS_REFUSED;
    return 0;
}

/* A complete request: choose, then answer 101 or 400. */
static int server_answer(tp_ws *w, const tp_ws_req *r, int n)
{
    tp_channel *ch = w->base.ch;
    if (tp_ws_req_check(r) < 0)
        return refuse(w, "bad WebSocket upgrade request: %s", err_msg());
    const char *name;
    size_t nl;
    tp_ws_proto p = tp_ws_pl_select(w->list, r->protocol.p, r->protocol.len, &name, &nl);
    if (!w->list[0])
        return refuse(w,
                      "WebSocket upgrade refused: this server accepts no WebSocket "
                      "sub-protocol (no -pl list); the client offered '%.*s'",
                      (int)(r->protocol.len > 100 ? 100 : r->protocol.len),
                      r->protocol.p ? r->protocol.p : "");
    if (p == TP_WS_PROTO_NONE)
        return refuse(w,
                      "WebSocket upgrade refused: no common sub-protocol: the client offered "
                      "'%.*s'; this server supports '%s'",
                      (int)(r->protocol.len > 100 ? 100 : r->protocol.len),
                      r->protocol.p ? r->protocol.p : "", w->list);
    tp_ws_pmd_params pp;
    if (tp_ws_pmd_parse(r->extensions.p, r->extensions.len, &pp) < 0)
        return refuse(w, "bad WebSocket upgrade request: %s", err_msg());
    char ext[128] = "";
    /* as ETA: deflate only for JSON, and only when this server compresses with zlib */
    if (pp.on && p == TP_WS_PROTO_JSON2 && ch->o.compression == TP_COMP_ZLIB &&
        (pp.server_max_window == 0 || pp.server_max_window >= 9)) {
        tp_ws_pmd_params a = {.on = 1,
                              .server_no_ctx = pp.server_no_ctx,
                              .client_no_ctx = pp.client_no_ctx,
                              .server_max_window = pp.server_max_window};
        tp_ws_pmd_format(&a, ext, sizeof(ext));
        w->pmd_params = a;
        w->deflate = 1;
    }
    char acc[29];
    tp_ws_accept(r->key.p, r->key.len, acc);
    int k = tp_ws_resp_101((char *)w->buf2, sizeof(w->buf2), name, nl, acc, ext[0] ? ext : NULL);
    if (k < 0)
        return err_set("WebSocket upgrade answer does not fit"), TP_EFAIL;
    w->out_len = (uint32_t)k;
    w->out_sent = 0;
    w->proto = (uint8_t)p;
    w->json = p == TP_WS_PROTO_JSON2;
    drop_block(w, (uint32_t)n);
    w->hs = WS_HS_SEND;
    return 0;
}

static int server_read(tp_ws *w)
{
    for (;;) {
        tp_ws_req r;
        int n = tp_ws_req_parse((const char *)w->buf, w->len, &r);
        if (n < 0) {
            refuse(w, "bad WebSocket upgrade request: %s", err_msg());
            return 1;
        }
        if (n > 0)
            return server_answer(w, &r, n) < 0 ? TP_EFAIL : 1;
        int rc = read_in(w, "upgrade (reading the request)");
        if (rc <= 0)
            return rc < 0 ? TP_EFAIL : 0;
    }
}

/* ---- the stream ---------------------------------------------------------------------- */

static int ws_handshake(tp_stream *s)
{
    tp_ws *w = WS(s);
    for (;;) {
        int rc;
        switch (w->hs) {
        case WS_HS_SEND:
            rc = send_out(w);
            if (rc <= 0) {
                s->want = POLLOUT;
                return rc;
            }
            if (w->server) {
                w->hs = WS_HS_DONE;
                return 1;
            }
            w->hs = WS_HS_READ;
            break;
        case WS_HS_READ:
            rc = w->server ? server_read(w) : client_read(w);
            if (rc == 0)
                s->want = POLLIN;
            if (rc <= 0)
                return rc;
            if (!w->server)
                return 1;
            break;
        case WS_HS_REFUSED:
            rc = send_out(w);
            if (rc == 0) {
                s->want = POLLOUT;
                return 0;
            }
            err_set("%s", w->why);
            return TP_EFAIL;
        default:
            return 1;
        }
    }
}

/* Pre-activation read (rssl.rwf): the payload bytes of binary frames. */
static long ws_read(tp_stream *s, uint8_t *buf, size_t n)
{
    tp_ws *w = WS(s);
    if (w->raw)
        return tp_stream_lower_read(s, buf, n);
    for (;;) {
        if (w->pl_left) {
            size_t k = n < w->pl_left ? n : w->pl_left;
            memcpy(buf, w->pl, k);
            w->pl += k;
            w->pl_left -= (uint32_t)k;
            return (long)k;
        }
        tp_ws_ev e;
        int rc = tp_ws_rx_next(&w->rx, w->buf, &w->rd, w->len, &e);
        if (rc < 0) {
            tp_ws_send_close(s->ch, w->rx.close_code, tp_ws_close_text(w->rx.close_code));
            return err_push("WebSocket"), TP_EFAIL;
        }
        if (rc == 1) {
            if (e.kind == TP_WS_EV_CLOSE) {
                err_set("WS Code %u %s (the peer closed during the RIPC handshake)", e.close_code,
                        tp_ws_close_text(e.close_code));
                return TP_EFAIL;
            }
            if (e.kind == TP_WS_EV_PING) {
                uint8_t pong[2] = {0x8A, 0};
                tp_stream_lower_write(s, pong, 2); /* best effort, 2 bytes */
                continue;
            }
            if (e.kind != TP_WS_EV_MSG)
                continue;
            if (e.opcode != TP_WS_OP_BINARY)
                return err_set("text frame during the RIPC handshake of a rssl.rwf channel"),
                       TP_EFAIL;
            w->pl = e.data;
            w->pl_left = e.len;
            continue;
        }
        uint32_t keep = tp_ws_rx_keep(&w->rx, w->rd);
        if (keep) {
            memmove(w->buf, w->buf + keep, w->len - keep);
            w->len -= keep;
            w->rd -= keep;
            tp_ws_rx_moved(&w->rx, keep);
        }
        rc = read_in(w, "framing of the RIPC handshake");
        if (rc == 0)
            s->want = POLLIN;
        if (rc <= 0)
            return rc;
    }
}

/* Pre-activation write (rssl.rwf): each call's bytes (one RIPC handshake message) in one
 * binary frame. The frame is built once; a call with the same bytes continues it. */
static long ws_write(tp_stream *s, const uint8_t *buf, size_t n)
{
    tp_ws *w = WS(s);
    if (w->raw)
        return tp_stream_lower_write(s, buf, n);
    if (!w->wr_pending) {
        if (n + TP_WS_HDR_MAX > sizeof(w->buf2))
            return err_set("RIPC handshake message of %zu bytes is too large", n), TP_EFAIL;
        uint8_t key[4];
        tp_ws_next_key(w, key);
        uint32_t h =
            tp_ws_hdr_write(w->buf2, true, false, TP_WS_OP_BINARY, n, w->server ? NULL : key);
        memcpy(w->buf2 + h, buf, n);
        if (!w->server)
            tp_ws_mask(w->buf2 + h, n, key, 0);
        w->out_len = h + (uint32_t)n;
        w->out_sent = 0;
        w->wr_pending = (uint32_t)n;
    }
    int rc = send_out(w);
    if (rc <= 0) {
        s->want = POLLOUT;
        return rc;
    }
    w->wr_pending = 0;
    return (long)n;
}

static int ws_pending(const tp_stream *s)
{
    const tp_ws *w = (const tp_ws *)s;
    if (!w->raw && (w->pl_left || w->len > w->rd))
        return 1;
    return s->lower && s->lower->ops->pending(s->lower);
}

static void ws_info(const tp_stream *s, tp_info *out)
{
    out->ws_protocol = (tp_ws_proto)((const tp_ws *)s)->proto;
}

static void ws_destroy(tp_stream *s, int graceful)
{
    tp_ws *w = WS(s);
    tp_channel *ch = s->ch;
    if (graceful && w->raw && w->json && ch->state == TP_STATE_ACTIVE)
        tp_ws_send_close(ch, TP_WS_CLOSE_NORMAL, "Normal Closure");
    if (w->pmd_ok)
        tp_ws_pmd_free(&w->pmd);
    free(w->dec);
    free(w->ztmp);
    if (ch && ch->ws == w) {
        ch->ws = NULL;
        ch->ws_json = 0;
    }
    free(w);
}

static const tp_stream_ops ws_ops = {
    .name = "WebSocket",
    .handshake = ws_handshake,
    .read = ws_read,
    .write = ws_write,
    .pending = ws_pending,
    .activate = NULL,
    .info = ws_info,
    .destroy = ws_destroy,
};

static tp_ws *ws_new(tp_channel *ch, bool server)
{
    tp_ws *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->base.ops = &ws_ops;
    w->server = server;
    w->prng = seed();
    w->utf8 = !ch->o.ws_no_utf8_check;
    snprintf(w->list, sizeof(w->list), "%s", ch->ws_pl);
    tp_ws_rx_init(&w->rx, server, sizeof(w->buf));
    return w;
}

int tp_ws_client_push(tp_channel *ch)
{
    tp_ws *w = ws_new(ch, false);
    if (!w)
        return err_set("out of memory for the WebSocket layer");
    if (tp_stream_push(ch, &w->base) < 0)
        return TP_EFAIL;
    ch->ws = w;
    return client_start(w) < 0 ? TP_EFAIL : 0;
}

int tp_ws_detect(tp_channel *ch)
{
    while (ch->hs_len < 3) {
        long n = tp_io_read(ch, ch->hs + ch->hs_len, 3 - ch->hs_len);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (n == TP_IO_EOF)
                err_set("connection closed by peer before its first message");
            return TP_EFAIL;
        }
        ch->hs_len += (uint32_t)n;
        if (ch->hs[0] != 'G' || (ch->hs_len >= 2 && ch->hs[1] != 'E'))
            return 1; /* not "GE..": RIPC (hs_recv goes on from these bytes) */
    }
    if (memcmp(ch->hs, "GET", 3) != 0)
        return 1;
    tp_ws *w = ws_new(ch, true);
    if (!w)
        return err_set("out of memory for the WebSocket layer");
    memcpy(w->buf, ch->hs, 3);
    w->len = 3;
    w->hs = WS_HS_READ;
    ch->hs_len = 0;
    if (tp_stream_push(ch, &w->base) < 0)
        return TP_EFAIL;
    ch->ws = w;
    ch->strm_hs = (uint8_t)(ch->n_strm - 1);
    return 2;
}

/* ---- activation ---------------------------------------------------------------------- */

/* Moves what the stream holds into the input area: payload bytes not yet read (RIPC, in
 * front) and raw frames after them. */
static void take_over(tp_channel *ch, tp_ws *w)
{
    uint32_t a = w->pl_left;
    if (a)
        memcpy(ch->in, w->pl, a);
    ch->in_rd = 0;
    ch->in_wr = a;
    uint32_t keep = tp_ws_rx_keep(&w->rx, w->rd);
    uint32_t raw = w->len - keep;
    memcpy(ch->in + a, w->buf + keep, raw);
    w->rx.msg_start = w->rx.msg_start - keep + a;
    w->raw_rd = w->rd - keep + a;
    w->raw_wr = a + raw;
    w->pl_left = 0;
    w->len = w->rd = 0;
}

/* The settings both sub-protocols share once active. 0 or TP_EFAIL. */
static int go_raw(tp_channel *ch, tp_ws *w)
{
    w->max_msg = ch->o.ws_max_msg ? ch->o.ws_max_msg : 1u << 20;
    if (w->max_msg > ch->in_cap / 2)
        w->max_msg = ch->in_cap / 2;
    tp_ws_rx rx = w->rx;
    tp_ws_rx_init(&w->rx, w->server, w->max_msg);
    w->rx.deflate = w->deflate;
    w->rx.utf8 = w->utf8 && !w->deflate; /* inflated text is checked after inflating */
    w->rx.in_msg = rx.in_msg;
    w->rx.msg_op = rx.msg_op;
    w->rx.msg_rsv1 = rx.msg_rsv1;
    w->rx.msg_frames = rx.msg_frames;
    w->rx.msg_start = rx.msg_start;
    w->rx.msg_len = rx.msg_len;
    w->rx.utf8_state = rx.utf8_state;
    take_over(ch, w);
    w->raw = 1;
    ch->rd_fast = 0;
    ch->wr_fast = 0;
    ch->rx_pend = w->base.lower && w->base.lower->ops->pending(w->base.lower);
    return 0;
}

int tp_ws_activated(tp_channel *ch)
{
    if (go_raw(ch, ch->ws) < 0)
        return TP_EFAIL;
    ch->ws_fast = !ch->comp_out;
    return 0;
}

/* rssl.json.v2: no RIPC handshake; the channel's sizes follow the ETA WebSocket transport
 * (maxFragmentSize 61438 for a client, the server's fragment size + 9 for a server). */
static int json_activate(tp_channel *ch, tp_ws *w)
{
    ch->ws_json = 1;
    ch->max_user = w->server ? ch->o.max_fragment_size + 11 : 61440;
    ch->ping_timeout = ch->o.ping_timeout ? ch->o.ping_timeout : 60;
    ch->session_flags = TP_PING_CLIENT_TO_SERVER | TP_PING_SERVER_TO_CLIENT;
    ch->rwf_major = ch->o.rwf_major;
    ch->rwf_minor = ch->o.rwf_minor;
    ch->protocol_type = ch->o.protocol_type;
    ch->gen = 0;
    ch->send_pings = ch->expect_pings = 1;
    ch->hwm = tp_hwm_for(ch, ch->o.high_water_mark);
    size_t per = (size_t)ch->o.max_fragment_size + 32;
    size_t in_cap = (size_t)ch->o.num_input_buffers * per;
    uint64_t want = ch->o.ws_max_msg ? ch->o.ws_max_msg : 1u << 20;
    if (in_cap < 2 * want + 2 * TP_WS_HDR_MAX)
        in_cap = 2 * want + 2 * TP_WS_HDR_MAX;
    if (in_cap > (1u << 30))
        in_cap = 1u << 30;
    size_t out_cap = (size_t)ch->o.max_output_buffers * per;
    if (out_cap < 4 * ((size_t)ch->max_user + 32))
        out_cap = 4 * ((size_t)ch->max_user + 32);
    ch->in = malloc(in_cap);
    ch->out = malloc(out_cap);
    if (!ch->in || !ch->out)
        return err_set("out of memory for the channel's %zu-byte input and %zu-byte output areas",
                       in_cap, out_cap),
               TP_EFAIL;
    ch->in_cap = (uint32_t)in_cap;
    ch->out_cap = out_cap;
    if (go_raw(ch, w) < 0)
        return TP_EFAIL;
    if (w->deflate) {
        int level = w->server ? ch->o.compression_level : Z_DEFAULT_COMPRESSION;
        if (tp_ws_pmd_init(&w->pmd, &w->pmd_params, w->server, level) < 0)
            return TP_EFAIL;
        w->pmd_ok = 1;
        w->dec_cap = (uint32_t)w->max_msg;
        w->dec = malloc(w->dec_cap);
        w->ztmp_cap = tp_ws_pmd_bound((uint32_t)w->max_msg);
        w->ztmp = malloc(w->ztmp_cap);
        if (!w->dec || !w->ztmp)
            return err_set("out of memory for permessage-deflate buffers"), TP_EFAIL;
        ch->comp_in = ch->comp_out = TP_COMP_ZLIB;
    }
    for (unsigned i = 0; i < ch->n_strm; i++)
        if (ch->stack[i]->ops->activate)
            ch->stack[i]->ops->activate(ch->stack[i]);
    ch->rx_pend = w->base.lower && w->base.lower->ops->pending(w->base.lower);
    ch->ws_fast = !ch->comp_out;
    ch->istate = TP_IS_ACTIVE;
    ch->state = TP_STATE_ACTIVE;
    ch->init_deadline_ns = 0;
    return 1;
}

int tp_ws_after_handshake(tp_channel *ch)
{
    tp_ws *w = ch->ws;
    if (!w || !w->json)
        return 0;
    return json_activate(ch, w) < 0 ? TP_EFAIL : 1;
}
