/* The stream stack of a socket channel: building it from the options, running the streams'
 * handshakes, reaching the stream below, freeing it. See tp_stream.h for the design. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_stream.h"
#include "tp_tls.h"
#include "tp_ws_int.h"

long tp_stream_lower_read(tp_stream *s, uint8_t *buf, size_t n)
{
    if (s->lower)
        return s->lower->ops->read(s->lower, buf, n);
    for (;;) {
        ssize_t r = recv(s->ch->fd, buf, n, 0);
        if (r > 0) {
            s->want = 0; /* a wait an earlier call asked for is over */
            return (long)r;
        }
        if (r == 0) {
            err_set("connection closed by peer");
            return TP_IO_EOF;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            s->want = POLLIN;
            return 0;
        }
        if (errno != EINTR) {
            int e = errno;
            err_set_errno(e, "recv");
            errno = e; /* for callers that look at it (RIPC version fall-back) */
            return TP_EFAIL;
        }
    }
}

long tp_stream_lower_write(tp_stream *s, const uint8_t *buf, size_t n)
{
    if (s->lower)
        return s->lower->ops->write(s->lower, buf, n);
    for (;;) {
        ssize_t r = send(s->ch->fd, buf, n, MSG_NOSIGNAL);
        if (r >= 0) {
            s->want = 0; /* a wait an earlier call asked for is over */
            return (long)r;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            s->want = POLLOUT;
            return 0;
        }
        if (errno != EINTR) {
            tp_send_failed(errno, "send"); /* errno kept: the RIPC version fall-back reads it */
            return TP_EFAIL;
        }
    }
}

int tp_stream_push(tp_channel *ch, tp_stream *s)
{
    if (ch->n_strm >= TP_STREAM_MAX) {
        s->ops->destroy(s, 0);
        return err_set("more than %d stream layers on one channel", TP_STREAM_MAX);
    }
    s->ch = ch;
    s->lower = ch->strm;
    ch->stack[ch->n_strm++] = s;
    ch->strm = s;
    return 0;
}

int tp_stream_stack_build(tp_channel *ch)
{
    tp_conn_type t = ch->o.conn_type;
    tp_conn_type inner = t == TP_CONN_ENCRYPTED ? ch->o.encrypted_protocol : t;
    if (t == TP_CONN_ENCRYPTED) {
        tp_stream *s;
        if (tp_tls_stream_new(ch, &s) < 0)
            return TP_EFAIL;
        if (tp_stream_push(ch, s) < 0)
            return TP_EFAIL;
    }
    if (inner == TP_CONN_WEBSOCKET && !ch->server && tp_ws_client_push(ch) < 0)
        return TP_EFAIL;
    if (inner != TP_CONN_SOCKET && inner != TP_CONN_WEBSOCKET)
        return err_set("connection type %d cannot run inside TLS", (int)inner);
    ch->strm_hs = 0;
    return 0;
}

int tp_stream_stack_handshake(tp_channel *ch)
{
    while (ch->strm_hs < ch->n_strm) {
        tp_stream *s = ch->stack[ch->strm_hs];
        int rc = s->ops->handshake(s);
        if (rc == 0)
            return 0;
        if (rc < 0)
            return TP_EFAIL;
        s->done = 1;
        s->want = 0;
        ch->strm_hs++;
    }
    return 1;
}

void tp_stream_stack_free(tp_channel *ch, int graceful)
{
    while (ch->n_strm > 0) {
        tp_stream *s = ch->stack[--ch->n_strm];
        ch->stack[ch->n_strm] = NULL;
        s->ops->destroy(s, graceful);
    }
    ch->strm = NULL;
    ch->strm_hs = 0;
    ch->rx_pend = 0;
    ch->rx_inplace = 0;
}

short tp_stream_stack_want(const tp_channel *ch)
{
    short w = 0;
    for (unsigned i = 0; i < ch->n_strm; i++)
        w |= ch->stack[i]->want;
    return w;
}
