/*
 * bench_reactor: what the reactor layer costs against the bare channel, in messages per second
 * and CPU time per message, for a consumer receiving updates and for a provider sending them.
 *
 *   bench_reactor [-t seconds] [-items n] [-size bytes] [-reps n]
 *                 [-mode in-bare|in-reactor|in-watchlist|out-bare|out-reactor|all]
 *
 * in-*:  a provider thread floods updates of -size bytes round robin over -items streams through
 *        the transport; the consumer is a bare channel read in this thread (in-bare), or the
 *        layer (a consumer channel dispatched in this thread, its worker thread doing the reads),
 *        without or with the watchlist (which also maps every message to the tool's stream id).
 * out-*: this thread writes updates (bare: tp_get_buffer/tp_write; reactor: rx_get_buffer /
 *        rx_submit, the worker writing them), a reader thread takes them off the other end.
 * The rate is the messages the measured side handled per second of the run; the CPU per message
 * is the process's CPU time (user + system, every thread) minus the other side's thread's, per
 * message: for the layer it includes its worker thread. Best of -reps runs (default 3).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "rwf.h"
#include "rx.h"
#include "tp.h"

typedef struct cfg {
    double secs;
    int items;
    uint32_t size;
} cfg;

enum { IN_BARE, IN_REACTOR, IN_WATCHLIST, OUT_BARE, OUT_REACTOR, MODES };
static const char *mode_names[MODES] = {"in-bare", "in-reactor", "in-watchlist", "out-bare",
                                        "out-reactor"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_of(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

/* An update of `size` bytes on stream: header, then a FieldList of opaque filler fields. */
static uint32_t make_update(uint8_t *buf, uint32_t size, int32_t stream)
{
    rwf_msg u;
    rwf_msg_init(&u, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, stream, RWF_DT_FIELD_LIST);
    rwf_enc e;
    rwf_enc_init(&e, buf, size + 64);
    rwf_enc_msg_begin(&e, &u);
    rwf_enc_fl_begin_std(&e);
    int16_t fid = 1;
    while (rwf_enc_len(&e) + 12 < size)
        rwf_enc_fl_uint(&e, fid++, 123456789);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    size_t len = 0;
    if (rwf_enc_finish(&e, &len) != 0) {
        fprintf(stderr, "encode: %s\n", err_msg());
        exit(1);
    }
    return (uint32_t)len;
}

/* ---- the other side -------------------------------------------------------------------------- */

typedef struct side {
    const cfg *c;
    int mode;
    tp_server *srv;
    char port[16];
    _Atomic int ready, stop;
    _Atomic uint64_t sent, got;
    double cpu;
} side;

static void write_msg(tp_channel *ch, const uint8_t *p, uint32_t len)
{
    tp_buf *b;
    int rc;
    while ((rc = tp_get_buffer(ch, len, false, &b)) == TP_ENOBUFS) {
        tp_flush(ch);
        struct pollfd f = {.fd = tp_fd(ch), .events = POLLOUT};
        poll(&f, 1, 10);
    }
    if (rc < 0)
        return;
    memcpy(b->data, p, len);
    b->len = len;
    tp_write(ch, b, 0);
}

static int read_msg(tp_channel *ch, rwf_msg *m, uint8_t *copy)
{
    for (;;) {
        tp_msg t;
        int rc = tp_read(ch, &t);
        if (rc < 0)
            return -1;
        if (rc & TP_READ_MSG) {
            memcpy(copy, t.data, t.len);
            return rwf_msg_decode(m, rwf_buf_make(copy, t.len)) == RWF_OK ? 0 : -1;
        }
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
            poll(&f, 1, 100);
        }
    }
}

/* Answers the layer's login, directory and (watchlist) item requests; returns the item wire
 * stream ids in ids[]. */
static int serve_admin(side *s, tp_channel *ch, int32_t *ids)
{
    static uint8_t in[65536], out[4096];
    rwf_msg m;
    if (read_msg(ch, &m, in) != 0)
        return -1;
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("bench");
    l.flags = RWF_LOGIN_SOLICITED | RWF_LOGIN_HAS_SUPPORT_POST;
    l.state.stream_state = RWF_STREAM_OPEN;
    l.state.data_state = RWF_DATA_OK;
    l.support_post = 1;
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, out, sizeof(out));
    rwf_rdm_login_refresh(&e, &l);
    rwf_enc_finish(&e, &len);
    write_msg(ch, out, (uint32_t)len);
    tp_flush(ch);
    if (read_msg(ch, &m, in) != 0)
        return -1;
    rwf_service svc;
    memset(&svc, 0, sizeof(svc));
    svc.id = 1;
    svc.action = RWF_MPEA_ADD_ENTRY;
    svc.flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE;
    svc.name = RWF_STR("DIRECT_FEED");
    svc.service_state = 1;
    rwf_directory d;
    memset(&d, 0, sizeof(d));
    d.stream_id = 2;
    d.filter = m.key.filter;
    d.solicited = 1;
    d.state.stream_state = RWF_STREAM_OPEN;
    d.state.data_state = RWF_DATA_OK;
    d.services = &svc;
    d.service_count = 1;
    rwf_enc_init(&e, out, sizeof(out));
    rwf_rdm_directory_refresh(&e, &d);
    rwf_enc_finish(&e, &len);
    write_msg(ch, out, (uint32_t)len);
    tp_flush(ch);
    for (int i = 0; i < s->c->items; i++) {
        if (s->mode != IN_WATCHLIST) {
            ids[i] = 5 + i;
            continue;
        }
        if (read_msg(ch, &m, in) != 0)
            return -1;
        ids[i] = m.stream_id;
        rwf_msg r;
        rwf_msg_init(&r, RWF_MC_REFRESH, RWF_DMT_MARKET_PRICE, m.stream_id, RWF_DT_NO_DATA);
        r.flags = RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE;
        r.state.stream_state = RWF_STREAM_OPEN;
        r.state.data_state = RWF_DATA_OK;
        rwf_msg_encode(&r, out, sizeof(out), &len);
        write_msg(ch, out, (uint32_t)len);
    }
    tp_flush(ch);
    return 0;
}

/* The provider of the in-* modes: floods updates until told to stop. */
static void *provider(void *arg)
{
    side *s = arg;
    tp_channel *ch = NULL;
    while (!ch) {
        if (tp_accept(s->srv, &ch) < 0)
            return NULL;
        struct pollfd f = {.fd = tp_server_fd(s->srv), .events = POLLIN};
        if (!ch)
            poll(&f, 1, 100);
    }
    if (tp_init_wait(ch, 5000) != TP_ACTIVE)
        return NULL;
    int32_t *ids = calloc((size_t)s->c->items, sizeof(*ids));
    if (s->mode != IN_BARE && serve_admin(s, ch, ids) != 0)
        return NULL;
    if (s->mode == IN_BARE)
        for (int i = 0; i < s->c->items; i++)
            ids[i] = 5 + i;
    uint8_t *tmpl = malloc(s->c->size + 64);
    uint32_t len = make_update(tmpl, s->c->size, 5);
    atomic_store(&s->ready, 1);
    double c0 = cpu_of(RUSAGE_THREAD);
    uint64_t n = 0;
    int k = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        tp_buf *b;
        int rc = tp_get_buffer(ch, len, false, &b);
        if (rc == TP_ENOBUFS) {
            if (tp_flush(ch) < 0)
                break;
            struct pollfd f = {.fd = tp_fd(ch), .events = POLLOUT};
            poll(&f, 1, 10);
            continue;
        }
        if (rc < 0)
            break;
        memcpy(b->data, tmpl, len);
        rwf_wr32(b->data + 4, (uint32_t)ids[k]);
        k = k + 1 == s->c->items ? 0 : k + 1;
        b->len = len;
        if (tp_write(ch, b, 0) < 0)
            break;
        atomic_store_explicit(&s->sent, ++n, memory_order_relaxed);
    }
    while (tp_flush(ch) > 0) {
        struct pollfd f = {.fd = tp_fd(ch), .events = POLLOUT};
        poll(&f, 1, 100);
    }
    s->cpu = cpu_of(RUSAGE_THREAD) - c0;
    atomic_store(&s->ready, 2);
    /* Keep the channel until the consumer has read everything. */
    while (atomic_load(&s->stop) < 2) {
        tp_msg t;
        if (tp_read(ch, &t) < 0)
            break;
        struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
        poll(&f, 1, 10);
    }
    tp_close(ch);
    free(tmpl);
    free(ids);
    return NULL;
}

/* The reader of the out-* modes: a client that counts what it reads. */
static void *reader(void *arg)
{
    side *s = arg;
    tp_opts o;
    tp_opts_init(&o);
    o.host = "127.0.0.1";
    o.port = s->port;
    tp_channel *ch;
    if (tp_connect(&o, &ch) != 0 || tp_init_wait(ch, 5000) != TP_ACTIVE)
        return NULL;
    double c0 = cpu_of(RUSAGE_THREAD);
    uint64_t n = 0;
    while (atomic_load_explicit(&s->stop, memory_order_relaxed) < 2) {
        tp_msg t;
        int rc = tp_read(ch, &t);
        if (rc < 0)
            break;
        if (rc & TP_READ_MSG)
            atomic_store_explicit(&s->got, ++n, memory_order_relaxed);
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
            poll(&f, 1, 10);
        }
    }
    s->cpu = cpu_of(RUSAGE_THREAD) - c0;
    tp_close(ch);
    return NULL;
}

/* ---- the measured side ------------------------------------------------------------------------
 */

typedef struct result {
    double rate, ns_per_msg;
} result;

static uint64_t consumed;

static int count_msg(rx_chan *ch, const rwf_msg *m)
{
    (void)ch;
    consumed += m->msg_class == RWF_MC_UPDATE;
    return 0;
}

static int null_event(rx_chan *ch, rx_event ev, const char *text)
{
    (void)ch;
    (void)ev;
    (void)text;
    return 0;
}

/* Opens the layer's consumer channel to port and, with the watchlist, requests the items. */
static rx_chan *open_layer(rx_reactor *r, const cfg *c, const char *port, bool wl)
{
    static rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("bench");
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    role.cb.on_channel = null_event;
    role.cb.on_msg = count_msg;
    role.login = &l;
    role.watchlist = wl;
    role.request_timeout_ms = 0;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = port;
    rx_chan *ch;
    if (rx_connect(r, &co, &role, NULL, &ch) != 0)
        return NULL;
    while (!rx_is_up(ch)) {
        rx_wait(r, 10000000);
        rx_dispatch(r, 1000);
    }
    for (int i = 0; wl && i < c->items; i++) {
        char name[32];
        snprintf(name, sizeof(name), "ITEM%d", i);
        rwf_msg q;
        rwf_msg_init(&q, RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, 5 + i, RWF_DT_NO_DATA);
        q.flags = RWF_RQMF_STREAMING;
        q.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        q.key.service_id = 1;
        q.key.name = rwf_buf_cstr(name);
        while (rx_submit_msg(ch, &q) == TP_ENOBUFS) {
            rx_wait(r, 1000000);
            rx_dispatch(r, 1000);
        }
    }
    return ch;
}

static int run_in(const cfg *c, int mode, result *res)
{
    side s;
    memset(&s, 0, sizeof(s));
    s.c = c;
    s.mode = mode;
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = "0";
    if (tp_bind(&o, &s.srv) != 0)
        return -1;
    snprintf(s.port, sizeof(s.port), "%u", tp_server_port(s.srv));
    pthread_t t;
    pthread_create(&t, NULL, provider, &s);
    rx_reactor *r = NULL;
    tp_channel *bare = NULL;
    consumed = 0;
    if (mode == IN_BARE) {
        tp_opts co;
        tp_opts_init(&co);
        co.host = "127.0.0.1";
        co.port = s.port;
        if (tp_connect(&co, &bare) != 0 || tp_init_wait(bare, 5000) != TP_ACTIVE)
            return -1;
    } else if (rx_create(NULL, &r) != 0 || !open_layer(r, c, s.port, mode == IN_WATCHLIST)) {
        return -1;
    }
    while (!atomic_load(&s.ready)) {
        if (r) {
            rx_wait(r, 1000000);
            rx_dispatch(r, 1000);
        } else {
            usleep(1000);
        }
    }
    double t0 = now_s(), c0 = cpu_of(RUSAGE_SELF), end = t0 + c->secs;
    while (now_s() < end || consumed < atomic_load(&s.sent)) {
        if (now_s() >= end)
            atomic_store(&s.stop, 1);
        if (bare) {
            tp_msg m;
            int rc = tp_read(bare, &m);
            if (rc < 0)
                break;
            if (rc & TP_READ_MSG) {
                rwf_msg d;
                rwf_msg_decode(&d, rwf_buf_make(m.data, m.len));
                consumed += d.msg_class == RWF_MC_UPDATE;
            }
            if (!(rc & TP_READ_MORE)) {
                struct pollfd f = {.fd = tp_fd(bare), .events = POLLIN};
                poll(&f, 1, 10);
            }
        } else {
            rx_wait(r, 10000000);
            rx_dispatch(r, 4096);
        }
        if (atomic_load(&s.ready) == 2 && consumed >= atomic_load(&s.sent))
            break;
    }
    double secs = now_s() - t0;
    while (atomic_load(&s.ready) != 2)
        usleep(1000);
    double cpu = cpu_of(RUSAGE_SELF) - c0 - s.cpu;
    atomic_store(&s.stop, 2);
    pthread_join(t, NULL);
    tp_close(bare);
    rx_destroy(r);
    tp_server_close(s.srv);
    res->rate = consumed / secs;
    res->ns_per_msg = consumed ? cpu * 1e9 / consumed : 0;
    return 0;
}

static int run_out(const cfg *c, int mode, result *res)
{
    side s;
    memset(&s, 0, sizeof(s));
    s.c = c;
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = "0";
    if (tp_bind(&o, &s.srv) != 0)
        return -1;
    snprintf(s.port, sizeof(s.port), "%u", tp_server_port(s.srv));
    pthread_t t;
    pthread_create(&t, NULL, reader, &s);
    tp_channel *ch = NULL;
    while (!ch) {
        tp_accept(s.srv, &ch);
        struct pollfd f = {.fd = tp_server_fd(s.srv), .events = POLLIN};
        if (!ch)
            poll(&f, 1, 100);
    }
    rx_reactor *r = NULL;
    rx_chan *rc = NULL;
    if (mode == OUT_BARE) {
        if (tp_init_wait(ch, 5000) != TP_ACTIVE)
            return -1;
    } else {
        rx_role role;
        rx_role_init(&role, RX_ROLE_PROVIDER);
        role.cb.on_channel = null_event;
        if (rx_create(NULL, &r) != 0 || rx_accept(r, ch, 0, 0, &role, NULL, &rc) != 0)
            return -1;
        while (!rx_is_up(rc)) {
            rx_wait(r, 10000000);
            rx_dispatch(r, 1000);
        }
    }
    uint8_t *tmpl = malloc(c->size + 64);
    uint32_t len = make_update(tmpl, c->size, 5);
    double t0 = now_s(), c0 = cpu_of(RUSAGE_SELF), end = t0 + c->secs;
    uint64_t n = 0;
    int k = 0;
    while (now_s() < end) {
        for (int burst = 0; burst < 100; burst++) {
            uint8_t *dst;
            tp_buf *tb = NULL;
            rx_buf *rb = NULL;
            int rv = mode == OUT_BARE ? tp_get_buffer(ch, len, false, &tb)
                                      : rx_get_buffer(rc, len, false, &rb);
            if (rv < 0)
                break;
            dst = tb ? tb->data : rb->data;
            memcpy(dst, tmpl, len);
            rwf_wr32(dst + 4, (uint32_t)(5 + k));
            k = k + 1 == c->items ? 0 : k + 1;
            if (tb) {
                tb->len = len;
                tp_write(ch, tb, 0);
            } else {
                rb->len = len;
                rx_submit(rc, rb, 0);
            }
            n++;
        }
        if (mode == OUT_BARE) {
            if (tp_flush(ch) > 0) {
                struct pollfd f = {.fd = tp_fd(ch), .events = POLLOUT};
                poll(&f, 1, 1);
            }
        } else {
            rx_flush(rc);
            rx_dispatch(r, 100);
        }
    }
    while (atomic_load(&s.got) < n && now_s() < end + 10) {
        if (mode == OUT_BARE) {
            tp_flush(ch);
            usleep(100);
        } else {
            rx_wait(r, 1000000);
            rx_dispatch(r, 100);
        }
    }
    double secs = now_s() - t0;
    atomic_store(&s.stop, 2);
    pthread_join(t, NULL);
    double cpu = cpu_of(RUSAGE_SELF) - c0 - s.cpu;
    if (mode == OUT_BARE)
        tp_close(ch);
    rx_destroy(r);
    tp_server_close(s.srv);
    free(tmpl);
    res->rate = atomic_load(&s.got) / secs;
    res->ns_per_msg = n ? cpu * 1e9 / n : 0;
    return 0;
}

int main(int argc, char **argv)
{
    cfg c = {.secs = 3, .items = 1000, .size = 150};
    int reps = 3, only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            c.secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "-items") && i + 1 < argc)
            c.items = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-size") && i + 1 < argc)
            c.size = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-mode") && i + 1 < argc) {
            const char *m = argv[++i];
            only = -2;
            for (int k = 0; k < MODES; k++)
                if (!strcmp(m, mode_names[k]))
                    only = k;
            if (!strcmp(m, "all"))
                only = -1;
            if (only == -2) {
                fprintf(stderr, "unknown mode %s\n", m);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bench_reactor [-t s] [-items n] [-size bytes] [-reps n] "
                            "[-mode in-bare|in-reactor|in-watchlist|out-bare|out-reactor|all]\n");
            return 2;
        }
    }
    if (c.items < 1 || c.size < 32 || c.secs <= 0 || reps < 1) {
        fprintf(stderr, "invalid arguments\n");
        return 2;
    }
    printf("%-14s %14s %14s   (%d items, %u-byte updates, %.1f s, best of %d)\n", "mode", "msgs/s",
           "CPU ns/msg", c.items, c.size, c.secs, reps);
    for (int m = 0; m < MODES; m++) {
        if (only >= 0 && m != only)
            continue;
        result best = {0, 0};
        for (int k = 0; k < reps; k++) {
            result res;
            int rc = m < OUT_BARE ? run_in(&c, m, &res) : run_out(&c, m, &res);
            if (rc != 0) {
                fprintf(stderr, "%s failed: %s\n", mode_names[m], err_msg());
                return 1;
            }
            if (res.rate > best.rate)
                best = res;
        }
        printf("%-14s %14.0f %14.0f\n", mode_names[m], best.rate, best.ns_per_msg);
        fflush(stdout);
    }
    return 0;
}
