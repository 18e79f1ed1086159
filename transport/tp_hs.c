/* The RIPC handshake in both roles, once the channel's streams (TLS, WebSocket) are set up:
 * the client's connection request with its version fall-back, the server's answer, the v14 key
 * exchange, and the state machine that drives them (tp_init, tp_init_wait). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tp_mc_int.h"
#include "tp_stream.h"
#include "tp_ws_int.h"

/* 64 random bits for the key exchange (the primes and secrets), from the kernel, else from
 * the clock and the process id. */
static uint64_t rand64(void)
{
    uint64_t v;
    if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
        return v;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 17);
}
static int build_req(tp_channel *ch);

int tp_chan_start_streams(tp_channel *ch)
{
    if (tp_stream_stack_build(ch) < 0)
        return TP_EFAIL;
    if (ch->n_strm) {
        ch->istate = TP_IS_STREAM;
        return 0;
    }
    if (ch->server) {
        ch->istate = TP_IS_WAIT_REQ;
        ch->hs_len = 0;
        return 0;
    }
    return build_req(ch);
}
/* ---- handshake helpers --------------------------------------------------------------- */

/* Receives one length-prefixed handshake message into ch->hs, reading exactly its bytes
 * (never more, so data that follows the handshake stays in the socket and still makes it
 * readable). Returns 1 when complete, 0 when more is needed, -1 when the peer dropped the
 * connection, -2 on a malformed length (err_set() in both failure cases). */
static int hs_recv(tp_channel *ch, uint32_t minlen, uint32_t maxlen, const char *what)
{
    for (;;) {
        uint32_t need = 2;
        if (ch->hs_len >= 2) {
            need = tp_get16(ch->hs);
            if (need < minlen || need > maxlen) {
                err_set("%s length %u is outside %u..%u (not a RIPC peer?)", what, need, minlen,
                        maxlen);
                return -2;
            }
            if (ch->hs_len >= need)
                return 1;
        }
        long n = tp_io_read(ch, ch->hs + ch->hs_len, need - ch->hs_len);
        if (n > 0) {
            ch->hs_len += (uint32_t)n;
            continue;
        }
        if (n == 0)
            return 0;
        if (n == TP_IO_EOF)
            err_set("connection closed by peer while waiting for the %s", what);
        else
            err_push("reading the %s", what);
        return -1;
    }
}

static void hs_send(tp_channel *ch, int len, uint8_t next)
{
    ch->hs_out_len = (uint32_t)len;
    ch->hs_out_sent = 0;
    ch->hs_next = next;
    ch->istate = TP_IS_SENDING;
}

static int build_req(tp_channel *ch)
{
    char hostname[256] = "", ip[64] = "";
    if (gethostname(hostname, sizeof(hostname)) == 0) {
        hostname[sizeof(hostname) - 1] = 0;
        tp_sock_local_ip(ch->fd, ip, sizeof(ip));
    } else {
        hostname[0] = 0;
    }
    tp_ripc_req r;
    memset(&r, 0, sizeof(r));
    r.gen = ch->gen;
    r.flags = ch->gen >= 14 ? TP_RIPC_KEY_EXCHANGE : 0;
    r.comp_bitmap = ch->o.compression == TP_COMP_ZLIB  ? 0x01
                    : ch->o.compression == TP_COMP_LZ4 ? 0x02
                                                       : 0;
    r.ping_timeout = ch->o.ping_timeout;
    r.protocol_type = ch->o.protocol_type;
    r.rwf_major = ch->o.rwf_major;
    r.rwf_minor = ch->o.rwf_minor;
    r.host.p = hostname;
    r.host.len = (uint8_t)(strlen(hostname) > 255 ? 255 : strlen(hostname));
    r.ip.p = ip;
    r.ip.len = (uint8_t)strlen(ip);
    r.component.p = ch->component;
    r.component.len = (uint8_t)strlen(ch->component);
    ch->req_flags = r.flags;
    int n = tp_ripc_req_encode(&r, ch->hs_out, sizeof(ch->hs_out));
    if (n < 0)
        return err_set("ConnectReq does not fit in %zu bytes", sizeof(ch->hs_out));
    hs_send(ch, n, TP_IS_WAIT_ACK);
    return 0;
}

/* The server dropped the connection before acknowledging: try the next older generation on
 * a new connection, as the ETA client does. */
static int client_fallback(tp_channel *ch)
{
    if (!ch->addr_ok || ch->gen <= 10 ||
        (ch->gen == 12 && ch->o.protocol_type != TP_PROTOCOL_RWF)) {
        err_push("no ConnectAck from %s:%s (tried RIPC %u down to %u)",
                 ch->host[0] ? ch->host : "localhost", ch->port, ch->o.ripc_version, ch->gen);
        return tp_chan_fail(ch);
    }
    tp_stream_stack_free(ch, 0);
    close(ch->fd);
    ch->fd = -1;
    ch->gen--;
    ch->hs_len = 0;
    if (tp_sock_connect(ch) < 0) {
        err_push("reconnecting with RIPC %u", ch->gen);
        return tp_chan_fail(ch);
    }
    ch->istate = TP_IS_CONNECTING;
    return TP_FD_CHANGE;
}

static int handle_ack(tp_channel *ch)
{
    char text[256];
    if (tp_ripc_is_nak(ch->hs, ch->hs_len, text, sizeof(text))) {
        err_set("connection refused by the server (ConnectNak): %s", text);
        return tp_chan_fail(ch);
    }
    tp_ripc_ack a;
    if (tp_ripc_ack_parse(ch->hs, ch->hs_len, ch->req_flags & TP_RIPC_KEY_EXCHANGE, &a) < 0) {
        err_push("bad ConnectAck from %s:%s", ch->host[0] ? ch->host : "localhost", ch->port);
        return tp_chan_fail(ch);
    }
    ch->gen = a.gen;
    ch->max_user = a.max_user;
    ch->ping_timeout = a.ping_timeout ? a.ping_timeout : 1;
    ch->session_flags = a.session_flags;
    ch->rwf_major = a.rwf_major;
    ch->rwf_minor = a.rwf_minor;
    ch->protocol_type = ch->o.protocol_type;
    uint8_t comp = (uint8_t)a.compression;
    if (!comp && (a.flags & TP_F_COMP_FORCE) && a.gen >= 11)
        comp = TP_COMP_ZLIB;
    ch->comp_in = comp;
    ch->comp_out = a.gen >= 11 ? comp : 0;
    ch->zlevel = a.zlib_level;
    if (ch->comp_out == TP_COMP_ZLIB && ch->zlevel > 9) {
        err_set("server's zlib compression level %u is outside 0..9", ch->zlevel);
        return tp_chan_fail(ch);
    }
    snprintf(ch->peer_component, sizeof(ch->peer_component), "%.*s", a.component.len,
             a.component.p ? a.component.p : "");
    if (a.gen >= 14 && (ch->req_flags & TP_RIPC_KEY_EXCHANGE)) {
        int with = 0;
        uint64_t kc = 0;
        if (a.has_key && a.key_type == 1 && a.key_p != 0) {
            uint64_t r = rand64();
            kc = tp_ripc_modpow(a.key_g, r, a.key_p);
            ch->key_shared = tp_ripc_modpow(a.key_k, r, a.key_p);
            with = 1;
        }
        ch->key_mine = kc;
        hs_send(ch, tp_ripc_key_encode(with, kc, ch->hs_out, sizeof(ch->hs_out)), TP_IS_ACTIVE);
        return TP_PENDING;
    }
    return tp_chan_activate(ch) < 0 ? TP_EFAIL : TP_ACTIVE;
}

static int handle_req(tp_channel *ch)
{
    tp_ripc_req r;
    if (tp_ripc_req_parse(ch->hs, ch->hs_len, &r) < 0) {
        err_push("bad ConnectReq");
        return tp_chan_fail(ch);
    }
    if (r.gen > ch->o.ripc_version) {
        /* an old server does not know the version and just drops the connection */
        err_set("client asked for RIPC %u; this server accepts up to %u", r.gen,
                ch->o.ripc_version);
        return tp_chan_fail(ch);
    }
    tp_ripc_ack a;
    int nak;
    tp_ripc_negotiate(&ch->o, &r, &a, &nak);
    /* over WebSocket the sub-protocol (rssl.rwf) already says what is spoken: the ETA
     * TransportPerf client sends protocol type 0 there, and its server takes it */
    if (nak && ch->ws && r.protocol_type == TP_PROTOCOL_RWF)
        nak = 0;
    snprintf(ch->peer_component, sizeof(ch->peer_component), "%.*s", r.component.len,
             r.component.p ? r.component.p : "");
    if (nak) {
        int n = tp_ripc_nak_encode("Connection refused.", ch->hs_out, sizeof(ch->hs_out));
        long w = tp_io_write(ch, ch->hs_out, (size_t)n);
        (void)w;
        err_set("refused connection: client protocol type %u, this server's %u",
                r.gen >= 12 ? r.protocol_type : 0, ch->o.protocol_type);
        return tp_chan_fail(ch);
    }
    if (a.has_key) {
        if (ch->o.zero_key) {
            a.key_p = a.key_g = a.key_k = 0;
        } else {
            a.key_p = rand64() & 0x7FFFFFFFFFFFFFFFull;
            a.key_g = a.key_p ? 5 : 0;
            ch->key_mine = rand64();
            a.key_k = tp_ripc_modpow(a.key_g, ch->key_mine, a.key_p);
        }
        ch->key_p = a.key_p;
        ch->key_g = a.key_g;
    }
    a.component.p = ch->component;
    a.component.len = (uint8_t)strlen(ch->component);
    ch->req_flags = r.flags;
    ch->gen = r.gen;
    ch->max_user = a.max_user;
    ch->ping_timeout = a.ping_timeout ? a.ping_timeout : 1;
    ch->session_flags = a.session_flags;
    ch->rwf_major = a.rwf_major;
    ch->rwf_minor = a.rwf_minor;
    ch->protocol_type = ch->o.protocol_type;
    ch->comp_out = (uint8_t)a.compression;
    ch->comp_in = r.gen >= 11 ? (uint8_t)a.compression : 0;
    ch->zlevel = ch->o.compression_level;
    int n = tp_ripc_ack_encode(&a, ch->hs_out, sizeof(ch->hs_out));
    hs_send(ch, n, a.has_key ? TP_IS_WAIT_KEY : TP_IS_ACTIVE);
    ch->hs_len = 0;
    return TP_PENDING;
}

static int handle_key(tp_channel *ch)
{
    uint64_t k;
    int has;
    if (tp_ripc_key_parse(ch->hs, ch->hs_len, &k, &has) < 0) {
        err_push("bad v14 key exchange");
        return tp_chan_fail(ch);
    }
    ch->key_theirs = k;
    if (has && ch->key_p)
        ch->key_shared = tp_ripc_modpow(k, ch->key_mine, ch->key_p);
    return tp_chan_activate(ch) < 0 ? TP_EFAIL : TP_ACTIVE;
}

/* A client that sent the v14 key message inside TLS waits TP_KEY_SETTLE_MS before it reports
 * the channel active, unless the server is one of ours. An ETA server reads the key message
 * with one read of 14 bytes; over TLS that read goes on into the next record when it has
 * already arrived (the first message the client writes once active), takes its first bytes
 * and leaves the rest inside the server's TLS session, where no readiness event announces
 * it: the server then never sees that message (the login request). Over plain TCP the rest
 * stays in the socket and is read normally. */
#define TP_KEY_SETTLE_MS 20

static void key_settle(tp_channel *ch)
{
    if (ch->server || !ch->strm || ch->hs_out_len < 4 || !strncmp(ch->peer_component, "rwfperf", 7))
        return;
    struct timespec ts = {0, TP_KEY_SETTLE_MS * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- the handshake state machine ----------------------------------------------------- */

/* A step's result beside the TP_* codes tp_init returns: the state moved on, run the next. */
#define HS_NEXT 100

/* TP_IS_CONNECTING: once the TCP connect completed, pushes the streams (or starts the RIPC
 * handshake). HS_NEXT, TP_PENDING while connecting, TP_EFAIL. */
static int step_connecting(tp_channel *ch)
{
    struct pollfd p = {.fd = ch->fd, .events = POLLOUT};
    if (poll(&p, 1, 0) == 0)
        return TP_PENDING;
    int e = 0;
    socklen_t el = sizeof(e);
    if (getsockopt(ch->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
        e = errno;
    if (e) {
        err_set_errno(e, "connect to %s:%s", ch->host[0] ? ch->host : "localhost", ch->port);
        return tp_chan_fail(ch);
    }
    if (tp_chan_start_streams(ch) < 0)
        return tp_chan_fail(ch);
    return HS_NEXT;
}

/* TP_IS_STREAM: the streams' handshakes (TLS, WebSocket), then the RIPC one (none for
 * rssl.json.v2). HS_NEXT, TP_PENDING, TP_ACTIVE, TP_EFAIL. */
static int step_stream(tp_channel *ch)
{
    int r = tp_stream_stack_handshake(ch);
    if (r == 0)
        return TP_PENDING;
    if (r < 0)
        return tp_chan_fail(ch);
    r = tp_ws_after_handshake(ch); /* rssl.json.v2: no RIPC */
    if (r != 0)
        return r < 0 ? tp_chan_fail(ch) : TP_ACTIVE;
    if (ch->server) {
        ch->istate = TP_IS_WAIT_REQ;
        ch->hs_len = 0;
    } else if (build_req(ch) < 0) {
        return tp_chan_fail(ch);
    }
    return HS_NEXT;
}

/* TP_IS_SENDING: writes the rest of the handshake message, then moves to ch->hs_next (the
 * channel is up after the last one). HS_NEXT, TP_PENDING, TP_ACTIVE, TP_FD_CHANGE (the
 * client's fall-back), TP_EFAIL. */
static int step_sending(tp_channel *ch)
{
    errno = 0;
    long n = tp_io_write(ch, ch->hs_out + ch->hs_out_sent, ch->hs_out_len - ch->hs_out_sent);
    if (n == 0)
        return TP_PENDING;
    if (n < 0) {
        if (!ch->server && ch->hs_next == TP_IS_WAIT_ACK &&
            (errno == EPIPE || errno == ECONNRESET)) {
            err_push("sending the ConnectReq");
            return client_fallback(ch);
        }
        err_push("sending a handshake message");
        return tp_chan_fail(ch);
    }
    ch->hs_out_sent += (uint32_t)n;
    if (ch->hs_out_sent < ch->hs_out_len)
        return HS_NEXT;
    ch->hs_len = 0;
    ch->istate = ch->hs_next;
    if (ch->istate == TP_IS_ACTIVE) {
        key_settle(ch);
        return tp_chan_activate(ch) < 0 ? TP_EFAIL : TP_ACTIVE;
    }
    return HS_NEXT;
}

/* TP_IS_WAIT_REQ (server): tells a WebSocket upgrade from a RIPC ConnectReq by the first bytes,
 * then receives and answers the ConnectReq. HS_NEXT, TP_PENDING, or handle_req's result. */
static int step_wait_req(tp_channel *ch)
{
    if (!ch->ws) {
        /* an HTTP upgrade or a RIPC ConnectReq: the first bytes tell */
        int d = tp_ws_detect(ch);
        if (d == 0)
            return TP_PENDING;
        if (d < 0)
            return tp_chan_fail(ch);
        if (d == 2) {
            ch->istate = TP_IS_STREAM;
            return HS_NEXT;
        }
    }
    int r = hs_recv(ch, 14, TP_RIPC_HS_MAX, "ConnectReq");
    if (r == 0)
        return TP_PENDING;
    if (r == -2 && !ch->strm && ch->hs[0] == 0x16 && ch->hs[1] == 0x03)
        err_set("the client speaks TLS (its first bytes are a TLS handshake record), "
                "and this server is not encrypted");
    if (r < 0)
        return tp_chan_fail(ch);
    int rc = handle_req(ch);
    return rc == TP_PENDING ? HS_NEXT : rc;
}

/* TP_IS_WAIT_ACK (client): receives the server's ConnectAck (or falls back to an older version
 * when the server dropped the connection). HS_NEXT, TP_PENDING, or handle_ack's result. */
static int step_wait_ack(tp_channel *ch)
{
    int r = hs_recv(ch, 4, TP_RIPC_HS_MAX, "ConnectAck");
    if (r == 0)
        return TP_PENDING;
    if (r == -1)
        return client_fallback(ch);
    if (r < 0)
        return tp_chan_fail(ch);
    int rc = handle_ack(ch);
    return rc == TP_PENDING ? HS_NEXT : rc;
}

int tp_init(tp_channel *ch)
{
    if (ch->state == TP_STATE_ACTIVE)
        return TP_ACTIVE;
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    if (ch->conn_type == TP_CONN_SHMEM)
        return tp_shm_init(ch);
    if (ch->init_deadline_ns && tp_chan_check_deadline(ch) < 0)
        return TP_EFAIL;
    for (;;) {
        int rc;
        switch (ch->istate) {
        case TP_IS_CONNECTING:
            rc = step_connecting(ch);
            break;
        case TP_IS_STREAM:
            rc = step_stream(ch);
            break;
        case TP_IS_SENDING:
            rc = step_sending(ch);
            break;
        case TP_IS_WAIT_ACK:
            rc = step_wait_ack(ch);
            break;
        case TP_IS_WAIT_REQ:
            rc = step_wait_req(ch);
            break;
        case TP_IS_WAIT_KEY: {
            int r = hs_recv(ch, 4, 22, "v14 client key");
            if (r == 0)
                return TP_PENDING;
            if (r < 0)
                return tp_chan_fail(ch);
            return handle_key(ch);
        }
        default:
            err_set("channel in unexpected handshake state %u", ch->istate);
            return tp_chan_fail(ch);
        }
        if (rc != HS_NEXT)
            return rc;
    }
}

int tp_init_wait(tp_channel *ch, int timeout_ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int rc = tp_init(ch);
        if (rc == TP_ACTIVE || rc < 0)
            return rc;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long el = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= timeout_ms) {
            err_set("handshake timed out after %d ms", timeout_ms);
            return tp_chan_fail(ch);
        }
        if (ch->conn_type == TP_CONN_SHMEM) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        struct pollfd p = {.fd = ch->fd, .events = tp_events(ch)};
        poll(&p, 1, (int)(timeout_ms - el));
    }
}
