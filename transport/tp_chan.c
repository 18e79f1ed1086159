/* Channel lifecycle: connect, accept, activation, keep-alive, information, close (the RIPC
 * handshake between them is tp_hs.c's). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    ch->fail_final = err_is_final();
    if (ch->state != TP_STATE_CLOSED && ch->fd >= 0 && ch->conn_type == TP_CONN_SOCKET)
        shutdown(ch->fd, SHUT_RDWR); /* the peer learns now; the number stays ours until close */
    ch->state = TP_STATE_CLOSED;
    ch->pk_cur = NULL;
    ch->rd_fast = ch->wr_fast = ch->shm_rd = ch->shm_wr = ch->ws_fast = 0;
    return TP_EFAIL;
}

bool tp_closed_by_peer(const char *why)
{
    if (!why)
        return false;
    const size_t n = strlen(TP_PEER_CLOSED);
    for (const char *p = strstr(why, TP_PEER_CLOSED); p; p = strstr(p + n, TP_PEER_CLOSED))
        if (p[n] == '\0' || (p[n] == ' ' && p[n + 1] == '('))
            return true;
    return false;
}

void tp_send_failed(int e, const char *what)
{
    if (e == EPIPE)
        err_set("%s (%s after its end: %s)", TP_PEER_CLOSED, what, strerror(e));
    else
        err_set_errno(e, "%s", what);
    errno = e;
}

int tp_chan_refail(tp_channel *ch)
{
    err_set("%s", ch->fail[0] ? ch->fail : "channel is closed");
    if (ch->fail_final)
        err_final();
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
    ch->hwm = tp_hwm_for(ch, ch->o.high_water_mark);
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
    ch->rd_fast = 1;
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
        ch->hwm = tp_hwm_for(ch, bytes);
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
    bool active = ch->state == TP_STATE_ACTIVE;
    tp_stream_stack_free(ch, active);
    /* An active TCP connection ends with our FIN before the close: when unread bytes make
     * close() reset the connection, the peer still reads the end of the stream first, and
     * reports an orderly close (TP_PEER_CLOSED) instead of a reset. */
    if (active && ch->fd >= 0 &&
        (ch->conn_type == TP_CONN_SOCKET || ch->conn_type == TP_CONN_ENCRYPTED ||
         ch->conn_type == TP_CONN_WEBSOCKET))
        shutdown(ch->fd, SHUT_WR);
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
