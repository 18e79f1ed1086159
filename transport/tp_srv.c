/* Servers: bind (socket, encrypted, shared memory), accept, close. An encrypted server loads
 * its TLS settings once at bind; every channel it accepts shares them. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_int.h"

int tp_bind(const tp_opts *o, tp_server **out)
{
    *out = NULL;
    tp_server *s = calloc(1, sizeof(*s));
    if (!s)
        return err_set("out of memory for a server");
    s->fd = -1;
    tp_opts_copy(&s->o, o, s->host, s->port_s, s->iface, s->component);
    s->conn_type = (uint8_t)o->conn_type;
    if (s->o.compression_level > 9) {
        free(s);
        return err_set("compression level %u is outside 0..9", o->compression_level);
    }
    if (s->o.max_fragment_size < 25 || s->o.max_fragment_size > 0xFFFF) {
        free(s);
        return err_set("max fragment size %u is outside 25..65535", o->max_fragment_size);
    }
    if (tp_ws_pl_setup(&s->o, o, true, s->ws_pl) < 0) {
        free(s);
        return TP_EINVAL;
    }
    if (s->conn_type == TP_CONN_WEBSOCKET)
        s->conn_type = TP_CONN_SOCKET; /* every socket server takes RIPC and WebSocket */
    if (s->conn_type == TP_CONN_ENCRYPTED) {
        if (o->encrypted_protocol != TP_CONN_SOCKET && o->encrypted_protocol != TP_CONN_WEBSOCKET) {
            free(s);
            return err_set("an encrypted server carries RIPC or WebSocket, not connection "
                           "type %d",
                           (int)o->encrypted_protocol);
        }
        if (tp_tls_ctx_new(o, 1, &s->tls_ctx) < 0) {
            free(s);
            return TP_EINVAL;
        }
    }
    if (s->conn_type == TP_CONN_SEQ_MCAST) {
        free(s);
        return err_set("sequenced multicast has no server: both ends connect (as clients) to "
                       "the groups");
    }
    int rc = s->conn_type == TP_CONN_SHMEM ? tp_shm_bind(s)
             : s->conn_type == TP_CONN_SOCKET || s->conn_type == TP_CONN_ENCRYPTED
                 ? tp_sock_bind(s)
                 : err_set("connection type %d is not supported", (int)o->conn_type);
    if (rc < 0) {
        if (s->tls_ctx)
            tp_tls_ctx_free(s->tls_ctx);
        free(s);
        return TP_EFAIL;
    }
    *out = s;
    return 0;
}

int tp_server_fd(const tp_server *s)
{
    return s->fd;
}

uint16_t tp_server_port(const tp_server *s)
{
    return s->port;
}

int tp_accept(tp_server *s, tp_channel **out)
{
    *out = NULL;
    if (s->conn_type == TP_CONN_SHMEM)
        return tp_shm_accept(s, out);
    int fd;
    for (;;) {
        fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EPROTO)
            return 0;
        return err_set_errno(errno, "accept on port %u", s->port);
    }
    tp_channel *ch = tp_chan_new(&s->o, 1);
    if (!ch) {
        close(fd);
        return err_set("out of memory for a channel");
    }
    ch->fd = fd;
    tp_sock_options(fd, &ch->o, 0);
    tp_sock_notsent_lowat(fd);
    if (s->tls_ctx) {
        if (tp_tls_ctx_ref(s->tls_ctx) < 0) {
            tp_close(ch);
            return TP_EFAIL;
        }
        ch->tls_ctx = s->tls_ctx;
    }
    if (tp_chan_start_streams(ch) < 0) {
        /* this connection only: the server goes on */
        err_push("accepting a connection on port %u", s->port);
        tp_close(ch);
        return 0;
    }
    *out = ch;
    return 1;
}

void tp_server_close(tp_server *s)
{
    if (!s)
        return;
    if (s->conn_type == TP_CONN_SHMEM)
        tp_shm_server_close(s);
    if (s->fd >= 0)
        close(s->fd);
    if (s->tls_ctx)
        tp_tls_ctx_free(s->tls_ctx);
    free(s);
}
