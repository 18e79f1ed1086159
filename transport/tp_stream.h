/*
 * tp_stream: the byte stream under the RIPC framing.
 *
 * Design. A socket channel moves RIPC frames (tp_read.c, tp_write.c, the handshake in
 * tp_chan.c) over a byte stream. The plain TCP socket is the base case and is not an object:
 * while ch->strm is NULL the read and write paths call recv()/send() on ch->fd themselves,
 * behind one predicted branch, so a plain channel pays no indirect call and no copy it did
 * not pay before. Every other stream is a tp_stream: an ops table plus the stream below it.
 * Streams stack; ch->strm is the top, and the RIPC layer reads and writes only through it:
 *
 *     RIPC framing       tp_io_read / tp_io_write (below), tp_read.c fill, tp_write.c flush
 *     [ WebSocket ]      lower = the TLS stream, or NULL (the socket)         (tp_ws*.c)
 *     [ TLS       ]      lower = NULL: OpenSSL reads and writes ch->fd itself  (tp_tls.c)
 *     TCP socket         ch->fd
 *
 * A stream that sits on another one reads and writes through tp_stream_lower_read/write,
 * which call the lower stream or, at the bottom, recv()/send() on the socket.
 *
 * Lifecycle. tp_stream_stack_build() pushes the streams that tp_opts asks for (conn_type,
 * encrypted_protocol) when the TCP connection exists: after connect() completes (client;
 * again on each RIPC version fall-back, which opens a new connection) or at accept (server).
 * tp_init then runs each stream's own handshake (TLS handshake, WebSocket upgrade), bottom
 * first, in the channel state TP_IS_STREAM, and starts the RIPC handshake when the top one
 * is done. A server that must look at the first bytes to choose a stream (RIPC or a
 * WebSocket upgrade on one port) can push a stream later with tp_stream_push(), handing it
 * the bytes already read. tp_close frees the stack, top first.
 *
 * Contract of the ops (all non-blocking; none may allocate per message on the steady-state
 * path):
 *   handshake  1 = done, 0 = in progress (s->want: the poll events to wait for), TP_EFAIL
 *              with err_set() saying why.
 *   read       > 0 bytes placed at buf (at most n); 0 = none now (s->want); TP_IO_EOF when
 *              the peer ended the stream (err_set() says how); TP_EFAIL on an error.
 *   write      > 0 bytes taken from buf (at most n; may be fewer); 0 = none now (s->want);
 *              TP_EFAIL. After a 0 or a short write the caller calls again with the bytes
 *              not taken first, possibly moved and possibly followed by more: TLS needs this
 *              (it has encrypted a record of them already).
 *   pending    non-zero when read would return bytes that the descriptor will not announce
 *              (they were read from the socket and are held in the stream).
 *   fill       only while ch->rx_inplace (set by the stream's activate): the stream reads
 *              straight into the channel's input area and keeps it (tp_tls_rx_fill's contract).
 *              May be NULL.
 *   activate   the RIPC handshake is complete (a stream may switch to its fast settings).
 *   info       fills the stream's part of tp_info (TLS version and cipher); may be NULL.
 *   destroy    frees the stream (not the ones below); a best-effort orderly end (TLS
 *              close_notify) when graceful is set, never blocking.
 */
#ifndef RWFPERF_TP_STREAM_H
#define RWFPERF_TP_STREAM_H

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include "tp_int.h"

#define TP_IO_EOF (-5) /* stream read: the peer ended the stream */

typedef struct tp_stream tp_stream;

typedef struct tp_stream_ops {
    const char *name; /* "TLS", "WebSocket": used in error texts */
    int (*handshake)(tp_stream *s);
    long (*read)(tp_stream *s, uint8_t *buf, size_t n);
    long (*write)(tp_stream *s, const uint8_t *buf, size_t n);
    int (*pending)(const tp_stream *s);
    int (*fill)(tp_stream *s);
    void (*activate)(tp_stream *s);
    void (*info)(const tp_stream *s, tp_info *out);
    void (*destroy)(tp_stream *s, int graceful);
} tp_stream_ops;

/* The part every stream begins with. */
struct tp_stream {
    const tp_stream_ops *ops;
    tp_stream *lower; /* the stream below; NULL: the socket */
    tp_channel *ch;   /* the owner (its fd, options, host and port for error texts) */
    short want;       /* poll events the last 0 return of an op waits for (0 once one succeeds) */
    uint8_t done;     /* handshake complete */
};

/* Reads from the stream below s (or the socket): the read contract above. */
long tp_stream_lower_read(tp_stream *s, uint8_t *buf, size_t n);

/* Writes to the stream below s (or the socket): the write contract above. */
long tp_stream_lower_write(tp_stream *s, const uint8_t *buf, size_t n);

/* Pushes s on top of ch's stack (s->lower and s->ch are set here). Returns 0, or TP_EFAIL
 * when the stack is full (s is then destroyed). */
int tp_stream_push(tp_channel *ch, tp_stream *s);

/* Pushes the streams ch's options ask for on its connected socket (none for a plain socket
 * channel). Returns 0 or TP_EFAIL with err_set(). */
int tp_stream_stack_build(tp_channel *ch);

/* Runs the handshakes of the stack, bottom first. Returns 1 when every stream is done, 0
 * while one is in progress, TP_EFAIL (err_set() names the stream and why). */
int tp_stream_stack_handshake(tp_channel *ch);

/* Destroys every stream of ch, top first (graceful: as for destroy). */
void tp_stream_stack_free(tp_channel *ch, int graceful);

/* The poll events the stack waits for (0 when it waits for nothing in particular). */
short tp_stream_stack_want(const tp_channel *ch);

/* ---- the channel's I/O, through the stack or straight to the socket ---------------------
 * Same contract as the stream read/write ops. With no stream these are recv()/send(). */

static inline long tp_io_read(tp_channel *ch, uint8_t *buf, size_t n)
{
    if (ch->strm)
        return ch->strm->ops->read(ch->strm, buf, n);
    for (;;) {
        ssize_t r = recv(ch->fd, buf, n, 0);
        if (r > 0)
            return (long)r;
        if (r == 0) {
            err_set("connection closed by peer");
            return TP_IO_EOF;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno != EINTR) {
            int e = errno;
            err_set_errno(e, "recv");
            errno = e; /* for callers that look at it (RIPC version fall-back) */
            return TP_EFAIL;
        }
    }
}

static inline long tp_io_write(tp_channel *ch, const uint8_t *buf, size_t n)
{
    if (ch->strm)
        return ch->strm->ops->write(ch->strm, buf, n);
    for (;;) {
        ssize_t r = send(ch->fd, buf, n, MSG_NOSIGNAL);
        if (r >= 0)
            return (long)r;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno != EINTR) {
            tp_send_failed(errno, "send"); /* errno kept: the RIPC version fall-back reads it */
            return TP_EFAIL;
        }
    }
}

#endif
