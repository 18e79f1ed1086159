/*
 * Helpers shared by the transport tests: a server and a client connected on 127.0.0.1
 * (ephemeral port), and loops that drive both ends from one thread with short polls.
 */
#ifndef RWFPERF_TP_TESTUTIL_H
#define RWFPERF_TP_TESTUTIL_H

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "testsupport.h"
#include "tp.h"

static inline uint64_t tu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Loopback defaults: 127.0.0.1, an ephemeral port for servers. */
static inline void tu_opts(tp_opts *o)
{
    tp_opts_init(o);
    o->host = "127.0.0.1";
    o->interface = "127.0.0.1";
    o->port = "0";
}

typedef struct tu_pair {
    tp_server *srv;
    tp_channel *s; /* server side of the connection */
    tp_channel *c; /* client side */
    char port[16];
} tu_pair;

/* Drives both handshakes until each returns active or failed, or timeout_ms passes.
 * Stores the final tp_init() results in *rs / *rc. */
static inline void tu_handshake(tu_pair *p, int *rs, int *rc, int timeout_ms)
{
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    *rs = *rc = TP_PENDING;
    while (tu_now_ms() < end) {
        if (!p->s) {
            int a = tp_accept(p->srv, &p->s);
            assert_true(a >= 0);
        }
        if (p->s && (*rs == TP_PENDING || *rs == TP_FD_CHANGE))
            *rs = tp_init(p->s);
        if (p->s && *rs < 0 && *rc >= 0 && *rc != TP_ACTIVE) {
            /* the server dropped this attempt (version too new): the client retries */
            tp_close(p->s);
            p->s = NULL;
            *rs = TP_PENDING;
        }
        if (*rc == TP_PENDING || *rc == TP_FD_CHANGE)
            *rc = tp_init(p->c);
        int sdone = p->s && (*rs == TP_ACTIVE || *rs < 0);
        int cdone = *rc == TP_ACTIVE || *rc < 0;
        if (sdone && cdone)
            return;
        if (cdone && *rc < 0 && !p->s)
            return;
        struct pollfd f[3];
        int n = 0;
        f[n++] = (struct pollfd){.fd = tp_server_fd(p->srv), .events = POLLIN};
        f[n++] = (struct pollfd){.fd = tp_fd(p->c), .events = tp_events(p->c)};
        if (p->s)
            f[n++] = (struct pollfd){.fd = tp_fd(p->s), .events = tp_events(p->s)};
        poll(f, (nfds_t)n, 5);
    }
}

/* Binds a server with *so, connects a client with *co (its port set to the server's), and
 * drives both to active; fails the test otherwise. */
static inline void tu_connect(tu_pair *p, tp_opts *so, tp_opts *co)
{
    memset(p, 0, sizeof(*p));
    if (tp_bind(so, &p->srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    snprintf(p->port, sizeof(p->port), "%u", tp_server_port(p->srv));
    co->port = p->port;
    if (tp_connect(co, &p->c) != 0)
        fail_msg("tp_connect: %s", err_msg());
    int rs, rc;
    tu_handshake(p, &rs, &rc, 5000);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("handshake: server %d client %d: %s", rs, rc, err_msg());
}

static inline void tu_close(tu_pair *p)
{
    tp_close(p->c);
    tp_close(p->s);
    tp_server_close(p->srv);
    memset(p, 0, sizeof(*p));
}

/* Reads until one message arrives (returns 1 and *m), the channel fails (returns the error
 * code) or timeout_ms passes (returns 0). Pings are skipped. */
static inline int tu_read(tp_channel *ch, tp_msg *m, int timeout_ms)
{
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        int rc = tp_read(ch, m);
        if (rc < 0)
            return rc;
        if (rc & TP_READ_MSG)
            return 1;
        if (rc & TP_READ_MORE)
            continue;
        if (tu_now_ms() >= end)
            return 0;
        struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
        poll(&f, 1, 2);
    }
}

/* Writes len bytes as one message from w (flushing and retrying on back-pressure while
 * reading r into the given callback, so that a single thread can move large messages).
 * Returns the tp_write result. */
static inline int tu_write(tp_channel *w, const void *data, uint32_t len, unsigned flags)
{
    tp_buf *b;
    int rc = tp_get_buffer(w, len, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, data, len);
    b->len = len;
    return tp_write(w, b, flags);
}

/* Fills p with a pattern derived from seed. */
static inline void tu_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* Moves one message of len bytes from w to r, driving both from this thread. The message
 * content is a pattern of seed, or compressible text when compressible is set. Fails the
 * test if what arrives differs. */
static inline void tu_transfer(tp_channel *w, tp_channel *r, uint32_t len, uint32_t seed,
                               int compressible)
{
    uint8_t *src = malloc(len ? len : 1);
    assert_non_null(src);
    if (compressible)
        for (uint32_t i = 0; i < len; i++)
            src[i] = (uint8_t)("market data is repetitive "[(i + seed) % 26]);
    else
        tu_pattern(src, len, seed);
    tp_buf *b;
    int rc = tp_get_buffer(w, len, false, &b);
    if (rc != 0)
        fail_msg("tp_get_buffer(%u): %d %s", len, rc, err_msg());
    memcpy(b->data, src, len);
    b->len = len;
    int written = 0, got = 0;
    uint64_t end = tu_now_ms() + 20000;
    while (!got) {
        if (tu_now_ms() > end)
            fail_msg("transfer of %u bytes timed out", len);
        if (!written) {
            rc = tp_write(w, b, 0);
            if (rc >= 0)
                written = 1;
            else if (rc != TP_ECALLAGAIN)
                fail_msg("tp_write: %d %s", rc, err_msg());
        }
        if (tp_flush(w) < 0)
            fail_msg("tp_flush: %s", err_msg());
        tp_msg m;
        for (;;) {
            rc = tp_read(r, &m);
            if (rc < 0)
                fail_msg("tp_read: %s", err_msg());
            if (rc & TP_READ_MSG) {
                ts_assert_bytes_equal(m.data, m.len, src, len);
                got = 1;
                break;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        if (!got) {
            struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
            poll(&f, 1, 1);
        }
    }
    free(src);
}

#endif
