/*
 * A client channel of ours made active over one end of a socketpair, the test holding the
 * other end and writing the server's bytes itself: for input that a real server would not
 * send, and for feeding frames in chosen pieces.
 */
#ifndef RWFPERF_TP_RAWPEER_H
#define RWFPERF_TP_RAWPEER_H

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_ripc.h"
#include "tp_testutil.h"

typedef struct peer {
    tp_channel *ch;
    int fd; /* the test's end of the socketpair */
} peer;

static inline void drain(int fd)
{
    uint8_t sink[4096];
    while (read(fd, sink, sizeof(sink)) > 0)
        ;
}

/* Our client, active after a valid v<gen> ConnectAck (compression comp, max user mu, an
 * output area of out_bufs buffers; 0: the default). */
static inline peer client_after_ack_with(int gen, int comp, uint16_t mu, uint32_t out_bufs)
{
    peer p;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    p.fd = sv[1];
    fcntl(p.fd, F_SETFL, fcntl(p.fd, F_GETFL) | O_NONBLOCK);
    tp_opts o;
    tp_opts_init(&o);
    o.ripc_version = (uint8_t)gen;
    o.compression = (tp_comp)comp;
    o.max_reassembly = 1 << 20;
    o.max_output_buffers = out_bufs;
    assert_int_equal(tp_adopt(sv[0], false, &o, &p.ch), 0);
    uint8_t req[TP_RIPC_HS_MAX];
    size_t got = 0;
    uint64_t end = tu_now_ms() + 5000;
    while (got < 2 || got < ((size_t)req[0] << 8 | req[1])) {
        assert_true(tu_now_ms() < end);
        assert_int_equal(tp_init(p.ch), TP_PENDING);
        ssize_t r = read(p.fd, req + got, sizeof(req) - got);
        if (r > 0)
            got += (size_t)r;
    }
    tp_ripc_ack a = {.gen = (uint8_t)gen,
                     .flags = 1,
                     .max_user = mu,
                     .session_flags = 3,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .compression = (uint16_t)comp,
                     .zlib_level = 6,
                     .has_key = gen >= 14,
                     .key_type = 1,
                     .component = {"peer", 4}};
    uint8_t ack[256];
    int n = tp_ripc_ack_encode(&a, ack, sizeof(ack));
    assert_int_equal(write(p.fd, ack, (size_t)n), n);
    assert_int_equal(tp_init_wait(p.ch, 5000), TP_ACTIVE);
    drain(p.fd);
    return p;
}

static inline peer client_after_ack_mu(int gen, int comp, uint16_t mu)
{
    return client_after_ack_with(gen, comp, mu, 0);
}

static inline peer client_after_ack(int gen, int comp)
{
    return client_after_ack_mu(gen, comp, 6144);
}

static inline void feed(peer *p, const uint8_t *b, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(p->fd, b + off, n - off);
        assert_true(w > 0);
        off += (size_t)w;
    }
}

static inline void done(peer *p)
{
    tp_close(p->ch);
    close(p->fd);
}

#endif
