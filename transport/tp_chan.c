/* Channel lifecycle: connect, accept, the RIPC handshake in both roles (with the client's
 * version fall-back and the v14 key exchange), activation, keep-alive, information, close. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* ---- failure ------------------------------------------------------------------------- */

int tp_chan_fail(tp_channel *ch)
{
    snprintf(ch->fail, sizeof(ch->fail), "%s", err_msg());
    if (ch->state != TP_STATE_CLOSED && ch->fd >= 0 && ch->conn_type == TP_CONN_SOCKET)
        shutdown(ch->fd, SHUT_RDWR); /* the peer learns now; the number stays ours until close */
    ch->state = TP_STATE_CLOSED;
    ch->pk_cur = NULL;
    ch->rd_fast = ch->wr_fast = ch->shm_rd = ch->shm_wr = ch->ws_fast = 0;
    return TP_EFAIL;
}

int tp_chan_refail(tp_channel *ch)
{
    err_set("%s", ch->fail[0] ? ch->fail : "channel is closed");
    return TP_EFAIL;
}

/* ---- creation ------------------------------------------------------------------------ */

tp_channel *tp_chan_new(const tp_opts *o, int server)
{
    tp_channel *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return NULL;
    ch->fd = -1;
    tp_opts_copy(&ch->o, o, ch->host, ch->port, ch->iface, ch->component);
    ch->server = (uint8_t)server;
    /* a server's list is already rewritten; a client's is checked by tp_chan_tls_setup */
    snprintf(ch->ws_pl, sizeof(ch->ws_pl), "%s", o->ws_protocols ? o->ws_protocols : "");
    ch->o.ws_protocols = ch->ws_pl;
    /* the framing: RIPC over a byte stream (socket, TLS, ...) or the shared-memory ring */
    ch->conn_type = (uint8_t)(o->conn_type == TP_CONN_SHMEM ? TP_CONN_SHMEM : TP_CONN_SOCKET);
    ch->state = TP_STATE_INITIALIZING;
    if (ch->o.init_timeout_ms)
        ch->init_deadline_ns = tp_now_ns() + (uint64_t)ch->o.init_timeout_ms * 1000000u;
    ch->direct.kind = TP_BUF_DIRECT;
    for (int i = 0; i < TP_STAGE_SLOTS; i++) {
        ch->stage[i].kind = TP_BUF_STAGED;
        ch->stage[i].slot = (uint8_t)i;
    }
    ch->gen = ch->o.ripc_version;
    return ch;
}

static uint64_t rand64(void)
{
    uint64_t v;
    if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
        return v;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 17);
}

uint64_t tp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Refuses the connection types this build lacks and, for an encrypted channel, makes its
 * TLS settings from o (a server channel that tp_accept made already has its server's) and
 * keeps the CA store's name for error texts. 0 or TP_EFAIL. */
static int tp_chan_tls_setup(tp_channel *ch, const tp_opts *o)
{
    tp_conn_type t = o->conn_type;
    tp_conn_type inner = t == TP_CONN_ENCRYPTED ? o->encrypted_protocol : t;
    if (t != TP_CONN_SOCKET && t != TP_CONN_ENCRYPTED && t != TP_CONN_WEBSOCKET)
        return err_set("connection type %d is not supported", (int)t);
    if (inner != TP_CONN_SOCKET && inner != TP_CONN_WEBSOCKET)
        return err_set("connection type %d cannot run inside TLS", (int)inner);
    if (tp_ws_pl_setup(&ch->o, o, ch->server, ch->ws_pl) < 0)
        return TP_EFAIL;
    if (t != TP_CONN_ENCRYPTED || ch->tls_ctx)
        return 0;
    snprintf(ch->tls_ca, sizeof(ch->tls_ca), "%s", o->tls_ca_store ? o->tls_ca_store : "");
    return tp_tls_ctx_new(o, ch->server, &ch->tls_ctx) < 0 ? TP_EFAIL : 0;
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

int tp_chan_check_deadline(tp_channel *ch)
{
    if (!ch->init_deadline_ns || tp_now_ns() < ch->init_deadline_ns)
        return 0;
    const char *stage = ch->istate == TP_IS_CONNECTING ? "TCP connect"
                        : ch->istate == TP_IS_STREAM   ? "TLS handshake"
                                                       : "RIPC handshake";
    if (ch->server)
        err_set("handshake timed out: the client did not complete the %s within %.1f s", stage,
                ch->o.init_timeout_ms / 1000.0);
    else
        err_set("handshake timed out: the %s with %s:%s did not complete within %.1f s", stage,
                ch->host[0] ? ch->host : "localhost", ch->port, ch->o.init_timeout_ms / 1000.0);
    return tp_chan_fail(ch);
}

int tp_connect(const tp_opts *o, tp_channel **out)
{
    *out = NULL;
    if (o->conn_type == TP_CONN_SEQ_MCAST)
        return tp_mc_connect(o, out);
    tp_channel *ch = tp_chan_new(o, 0);
    if (!ch)
        return err_set("out of memory for a channel");
    if (ch->conn_type == TP_CONN_SHMEM) {
        if (tp_shm_connect(ch) < 0) {
            tp_close(ch);
            return TP_EFAIL;
        }
        *out = ch;
        return 0;
    }
    if (tp_chan_tls_setup(ch, o) < 0) {
        tp_close(ch);
        return TP_EFAIL;
    }
    const char *host = ch->o.host && *ch->o.host ? ch->o.host : "localhost";
    if (tp_sock_resolve(host, ch->port, &ch->addr) < 0 || tp_sock_connect(ch) < 0) {
        tp_close(ch);
        return TP_EFAIL;
    }
    ch->addr_ok = 1;
    ch->istate = TP_IS_CONNECTING;
    *out = ch;
    return 0;
}

int tp_adopt(int fd, bool server, const tp_opts *o, tp_channel **out)
{
    *out = NULL;
    tp_opts so = *o;
    if (so.conn_type != TP_CONN_ENCRYPTED && so.conn_type != TP_CONN_WEBSOCKET)
        so.conn_type = TP_CONN_SOCKET;
    tp_channel *ch = tp_chan_new(&so, server);
    if (!ch) {
        close(fd);
        return err_set("out of memory for a channel");
    }
    ch->fd = fd;
    if (tp_chan_tls_setup(ch, &so) < 0) {
        tp_close(ch);
        return TP_EFAIL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        int e = errno;
        tp_close(ch);
        return err_set_errno(e, "fcntl(O_NONBLOCK)");
    }
    tp_sock_options(fd, &ch->o, 0);
    ch->istate = TP_IS_CONNECTING;
    if (server && tp_chan_start_streams(ch) < 0) {
        tp_close(ch);
        return TP_EFAIL;
    }
    *out = ch;
    return 0;
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
        switch (ch->istate) {
        case TP_IS_CONNECTING: {
            struct pollfd p = {.fd = ch->fd, .events = POLLOUT};
            if (poll(&p, 1, 0) == 0)
                return TP_PENDING;
            int e = 0;
            socklen_t el = sizeof(e);
            if (getsockopt(ch->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
                e = errno;
            if (e) {
                err_set_errno(e, "connect to %s:%s", ch->host[0] ? ch->host : "localhost",
                              ch->port);
                return tp_chan_fail(ch);
            }
            if (tp_chan_start_streams(ch) < 0)
                return tp_chan_fail(ch);
            break;
        }
        case TP_IS_STREAM: {
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
            break;
        }
        case TP_IS_SENDING: {
            errno = 0;
            long n =
                tp_io_write(ch, ch->hs_out + ch->hs_out_sent, ch->hs_out_len - ch->hs_out_sent);
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
                break;
            ch->hs_len = 0;
            ch->istate = ch->hs_next;
            if (ch->istate == TP_IS_ACTIVE) {
                key_settle(ch);
                return tp_chan_activate(ch) < 0 ? TP_EFAIL : TP_ACTIVE;
            }
            break;
        }
        case TP_IS_WAIT_ACK: {
            int r = hs_recv(ch, 4, TP_RIPC_HS_MAX, "ConnectAck");
            if (r == 0)
                return TP_PENDING;
            if (r == -1)
                return client_fallback(ch);
            if (r < 0)
                return tp_chan_fail(ch);
            int rc = handle_ack(ch);
            if (rc != TP_PENDING)
                return rc;
            break;
        }
        case TP_IS_WAIT_REQ: {
            if (!ch->ws) {
                /* an HTTP upgrade or a RIPC ConnectReq: the first bytes tell */
                int d = tp_ws_detect(ch);
                if (d == 0)
                    return TP_PENDING;
                if (d < 0)
                    return tp_chan_fail(ch);
                if (d == 2) {
                    ch->istate = TP_IS_STREAM;
                    break;
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
            if (rc != TP_PENDING)
                return rc;
            break;
        }
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

/* ---- activation ---------------------------------------------------------------------- */

int tp_chan_activate(tp_channel *ch)
{
    uint32_t mu = ch->max_user;
    /* a frame's length, its 3-byte header included, is 16 bits: with a negotiated maximum
     * above 65532 (the ack field allows 65535) an unfragmented message could not be framed */
    if (mu > 0xFFFF - 3)
        mu = ch->max_user = 0xFFFF - 3;
    ch->frag_id_bytes = ch->gen >= 13 ? 2 : 1;
    ch->frag_id_max = ch->gen >= 13 ? 0xFFFF : 0xFF;
    ch->next_frag_id = 1;
    ch->max_in_frame = mu + (ch->server ? 25u : 17u);
    if (ch->max_in_frame > 0xFFFF)
        ch->max_in_frame = 0xFFFF;
    /* what each side promises to send: 0x01 client pings, 0x02 server pings */
    uint8_t mine = ch->server ? TP_PING_SERVER_TO_CLIENT : TP_PING_CLIENT_TO_SERVER;
    uint8_t theirs = ch->server ? TP_PING_CLIENT_TO_SERVER : TP_PING_SERVER_TO_CLIENT;
    ch->send_pings = (ch->session_flags & mine) != 0;
    ch->expect_pings = (ch->session_flags & theirs) != 0;
    ch->hwm = ch->o.high_water_mark ? ch->o.high_water_mark : TP_DEFAULT_HWM;
    if (ch->hwm > INT_MAX)
        ch->hwm = INT_MAX;
    ch->frag_first = mu - 16;
    ch->frag_sub = mu - 12;

    size_t per = (size_t)mu + 32;
    size_t in_cap = (size_t)ch->o.num_input_buffers * per;
    if (in_cap < 131072)
        in_cap = 131072;
    if (in_cap < 2 * (size_t)ch->max_in_frame)
        in_cap = 2 * (size_t)ch->max_in_frame;
    if (in_cap > (1u << 30))
        in_cap = 1u << 30;
    size_t out_cap = (size_t)ch->o.max_output_buffers * per;
    if (out_cap < 4 * per)
        out_cap = 4 * per;
    ch->in = malloc(in_cap);
    ch->out = malloc(out_cap);
    if (!ch->in || !ch->out) {
        err_set("out of memory for the channel's %zu-byte input and %zu-byte output areas", in_cap,
                out_cap);
        return tp_chan_fail(ch);
    }
    ch->in_cap = (uint32_t)in_cap;
    ch->out_cap = out_cap;
    if ((ch->comp_in || ch->comp_out) && tp_comp_start(ch) < 0)
        return tp_chan_fail(ch);
    ch->istate = TP_IS_ACTIVE;
    ch->state = TP_STATE_ACTIVE;
    ch->init_deadline_ns = 0;
    for (unsigned i = 0; i < ch->n_strm; i++)
        if (ch->stack[i]->ops->activate)
            ch->stack[i]->ops->activate(ch->stack[i]);
    /* bytes that arrived with the end of the handshake and wait inside the stream */
    ch->rx_pend = ch->strm && ch->strm->ops->pending(ch->strm);
    ch->rd_fast = !ch->rx_pend;
    ch->wr_fast = !ch->comp_out;
    if (ch->ws && tp_ws_activated(ch) < 0)
        return tp_chan_fail(ch);
    return 0;
}

/* ---- accessors ----------------------------------------------------------------------- */

int tp_fd(const tp_channel *ch)
{
    return ch->fd;
}

tp_state tp_get_state(const tp_channel *ch)
{
    return (tp_state)ch->state;
}

short tp_events(const tp_channel *ch)
{
    if (ch->mc && ch->state == TP_STATE_ACTIVE)
        return (short)(POLLIN | (tp_queued(ch) ? POLLOUT : 0));
    if (ch->state == TP_STATE_ACTIVE)
        return (short)(POLLIN | (ch->out_tail > ch->out_head ? POLLOUT : 0) |
                       (ch->strm ? ch->strm->want : 0));
    switch (ch->istate) {
    case TP_IS_STREAM: {
        short w = tp_stream_stack_want(ch);
        return w ? w : POLLIN;
    }
    case TP_IS_CONNECTING:
    case TP_IS_SENDING:
        return POLLOUT;
    default:
        return POLLIN;
    }
}

size_t tp_queued(const tp_channel *ch)
{
    if (ch->mc)
        return ch->mc->tx_bytes;
    return ch->out_tail - ch->out_head;
}

void tp_get_stats(const tp_channel *ch, tp_stats *out)
{
    *out = ch->st;
}

int tp_set_high_water_mark(tp_channel *ch, uint32_t bytes)
{
    ch->o.high_water_mark = bytes;
    if (ch->state == TP_STATE_ACTIVE)
        ch->hwm = bytes ? (bytes > INT_MAX ? INT_MAX : bytes) : TP_DEFAULT_HWM;
    return 0;
}

int tp_get_info(tp_channel *ch, tp_info *out)
{
    memset(out, 0, sizeof(*out));
    if (ch->state != TP_STATE_ACTIVE) {
        err_set("channel is not active");
        return TP_EINVAL;
    }
    out->conn_type = (tp_conn_type)ch->conn_type;
    if (ch->conn_type == TP_CONN_SHMEM) {
        tp_shm_info(ch, out);
        return 0;
    }
    if (ch->mc) {
        tp_mc_info(ch, out);
        return 0;
    }
    out->max_user_msg_size = ch->max_user;
    out->max_fragment_size = ch->max_user - 2;
    out->guaranteed_output_buffers = ch->o.guaranteed_output_buffers;
    out->max_output_buffers = ch->o.max_output_buffers;
    out->num_input_buffers = ch->o.num_input_buffers;
    out->ping_timeout = ch->ping_timeout;
    out->client_to_server_pings = (ch->session_flags & TP_PING_CLIENT_TO_SERVER) != 0;
    out->server_to_client_pings = (ch->session_flags & TP_PING_SERVER_TO_CLIENT) != 0;
    socklen_t l = sizeof(int);
    getsockopt(ch->fd, SOL_SOCKET, SO_SNDBUF, &out->sys_send_buf_size, &l);
    l = sizeof(int);
    getsockopt(ch->fd, SOL_SOCKET, SO_RCVBUF, &out->sys_recv_buf_size, &l);
    out->compression = (tp_comp)ch->comp_out;
    out->compression_threshold = ch->comp_out ? ch->comp_threshold : 0;
    snprintf(out->component, sizeof(out->component), "%s", ch->peer_component);
    out->ripc_version = ch->gen;
    out->protocol_type = ch->protocol_type;
    out->rwf_major = ch->rwf_major;
    out->rwf_minor = ch->rwf_minor;
    out->conn_type = ch->o.conn_type;
    out->encrypted_protocol = ch->o.conn_type == TP_CONN_ENCRYPTED ? ch->o.encrypted_protocol : 0;
    if (ch->ws) { /* a server's channel too: it became a WebSocket one */
        if (ch->o.conn_type == TP_CONN_ENCRYPTED)
            out->encrypted_protocol = TP_CONN_WEBSOCKET;
        else
            out->conn_type = TP_CONN_WEBSOCKET;
    }
    for (unsigned i = 0; i < ch->n_strm; i++)
        if (ch->stack[i]->ops->info)
            ch->stack[i]->ops->info(ch->stack[i], out);
    return 0;
}

/* ---- keep-alive ---------------------------------------------------------------------- */

int tp_tick(tp_channel *ch, uint64_t now_ns)
{
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    if (ch->state != TP_STATE_ACTIVE)
        return ch->conn_type == TP_CONN_SOCKET ? tp_chan_check_deadline(ch) : 0;
    uint64_t timeout = (uint64_t)ch->ping_timeout * 1000000000ull;
    if (!ch->tick_started) {
        ch->tick_started = 1;
        ch->rx_seen = 0;
        ch->last_rx_ns = now_ns;
        ch->next_ping_ns = now_ns + timeout / 3;
        return 0;
    }
    if (ch->rx_seen) {
        ch->rx_seen = 0;
        ch->last_rx_ns = now_ns;
    }
    if (ch->expect_pings && now_ns > ch->last_rx_ns && now_ns - ch->last_rx_ns > timeout) {
        err_set("Ping timed out.");
        return tp_chan_fail(ch);
    }
    if (ch->send_pings && now_ns >= ch->next_ping_ns) {
        ch->next_ping_ns = now_ns + timeout / 3;
        if (tp_ping(ch) < 0)
            return TP_EFAIL;
    }
    return 0;
}

/* ---- close --------------------------------------------------------------------------- */

void tp_close(tp_channel *ch)
{
    if (!ch)
        return;
    if (ch->conn_type == TP_CONN_SHMEM)
        tp_shm_close(ch);
    tp_mc_close(ch);
    /* first: a stream's orderly end (a WebSocket close frame) uses the output area */
    tp_stream_stack_free(ch, ch->state == TP_STATE_ACTIVE);
    tp_comp_stop(ch);
    free(ch->in);
    free(ch->out);
    free(ch->dec);
    free(ch->lz_tmp);
    for (int i = 0; i < TP_FRAG_SLOTS; i++)
        free(ch->frags[i].buf);
    for (int i = 0; i < TP_STAGE_SLOTS; i++)
        free(ch->stage[i].stage);
    if (ch->tls_ctx)
        tp_tls_ctx_free(ch->tls_ctx);
    if (ch->fd >= 0)
        close(ch->fd);
    free(ch);
}
