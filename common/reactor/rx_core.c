/*
 * rx_core: the reactor object and the application thread's side of it: creating and
 * destroying, waiting, dispatching the worker's records to the callbacks, opening and closing
 * channels, and the write buffers.
 *
 * Sleeping and waking: a side that is about to block announces it in its sleep flag (sequentially
 * consistent store), then looks at its ring once more; the other side, after publishing, looks
 * at that flag (sequentially consistent load) and writes the sleeper's eventfd only when it is
 * set. So a busy receiver is never woken by a system call, and a sleeping one is never missed.
 */
#include "rx_int.h"
#include "rx_tun_int.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RX_IN_RING_DEFAULT (4u << 20)
#define RX_OUT_RING_DEFAULT (2u << 20)
#define RX_MAX_CHANNELS_DEFAULT 1024
#define RX_HWM_DEFAULT 6000
#define RX_RELEASE_EVERY 64

void rx_opts_init(rx_opts *o)
{
    memset(o, 0, sizeof(*o));
}

void rx_conn_opts_init(rx_conn_opts *o)
{
    memset(o, 0, sizeof(*o));
    tp_opts_init(&o->tp);
    o->reconnect_limit = -1;
    o->reconnect_min_ms = 1000;
    o->reconnect_max_ms = 5000;
}

void rx_role_init(rx_role *role, int kind)
{
    memset(role, 0, sizeof(*role));
    role->kind = kind;
    role->directory = kind == RX_ROLE_CONSUMER;
    role->directory_filter = RWF_DIR_INFO | RWF_DIR_STATE | RWF_DIR_GROUP;
    role->request_timeout_ms = 15000;
    role->post_ack_timeout_ms = 15000;
}

/* Zeroed memory aligned for the cache-line aligned members of the reactor's structures. */
static void *rx_zalloc(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, size) != 0)
        return NULL;
    memset(p, 0, size);
    return p;
}

/* ---- waking ------------------------------------------------------------------------------ */

static void efd_signal(int fd)
{
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof(one));
    (void)n; /* EAGAIN: the counter is already non-zero, the sleeper wakes anyway */
}

static void efd_drain(int fd)
{
    uint64_t v;
    ssize_t n = read(fd, &v, sizeof(v));
    (void)n;
}

void rx_wake_worker(rx_reactor *r)
{
    if (atomic_load_explicit(&r->worker_sleep, memory_order_seq_cst) &&
        atomic_exchange_explicit(&r->worker_sleep, 0, memory_order_seq_cst))
        efd_signal(r->worker_efd);
}

int rx_cmd(rx_reactor *r, int op, rx_chan *ch)
{
    rx_rec *rec = rx_ring_reserve(&r->cmd, RX_REC_HDR);
    if (!rec)
        return err_set("reactor command queue full");
    rec->ptr = ch;
    rec->epoch = 0;
    rec->flags = 0;
    rx_ring_commit(&r->cmd, rec, (uint16_t)op, 0);
    rx_ring_publish(&r->cmd);
    rx_wake_worker(r);
    return 0;
}

void rx_chan_publish(rx_chan *ch)
{
    if (!rx_ring_unpublished(&ch->out))
        return;
    rx_ring_publish(&ch->out);
    if (!atomic_exchange_explicit(&ch->flush_req, 1, memory_order_seq_cst) &&
        rx_cmd(ch->r, RX_CMD_WAKE, ch) != 0)
        atomic_store_explicit(&ch->flush_req, 0, memory_order_relaxed);
}

/* Hands every channel's committed records to the worker. */
static void publish_all(rx_reactor *r)
{
    for (rx_chan *ch = r->chans; ch; ch = ch->next)
        rx_chan_publish(ch);
}

/* ---- create / destroy -------------------------------------------------------------------- */

static int make_fds(rx_reactor *r)
{
    r->app_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    r->worker_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    r->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (r->app_efd < 0 || r->worker_efd < 0 || r->epfd < 0)
        return err_set_errno(errno, "reactor: eventfd/epoll");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->worker_efd, &ev) != 0)
        return err_set_errno(errno, "reactor: epoll_ctl");
    return 0;
}

/* Starts the worker and waits until it runs (bound) or failed. */
static int start_worker(rx_reactor *r)
{
    int rc = sig_thread_create(&r->tid, rx_worker_main, r);
    if (rc != 0)
        return err_set_errno(rc, "starting the reactor worker thread");
    r->started = true;
    while (atomic_load_explicit(&r->start_state, memory_order_acquire) == 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (atomic_load_explicit(&r->start_state, memory_order_acquire) < 0)
        return err_set("%s", r->start_err);
    return 0;
}

int rx_create(const rx_opts *o, rx_reactor **out)
{
    rx_opts def;
    if (!o) {
        rx_opts_init(&def);
        o = &def;
    }
    rx_reactor *r = rx_zalloc(sizeof(*r));
    if (!r)
        return err_set("out of memory for a reactor");
    r->app_efd = r->worker_efd = r->epfd = -1;
    r->max_channels = o->max_channels ? o->max_channels : RX_MAX_CHANNELS_DEFAULT;
    r->json = o->json;
    if (o->worker_cpu) {
        r->cpu = *o->worker_cpu;
        r->bind = true;
    }
    atomic_init(&r->app_sleep, 0);
    atomic_init(&r->worker_sleep, 0);
    atomic_init(&r->in_full, 0);
    atomic_init(&r->start_state, 0);
    uint64_t cmd_bytes = (uint64_t)(4 * r->max_channels + 16) * RX_REC_HDR;
    if (rx_ring_init(&r->in, o->in_ring_bytes ? o->in_ring_bytes : RX_IN_RING_DEFAULT) != 0 ||
        rx_ring_init(&r->cmd, cmd_bytes) != 0 || make_fds(r) != 0 ||
        !(r->scratch = malloc(RX_SCRATCH)) ||
        !(r->wch = calloc(r->max_channels, sizeof(*r->wch)))) {
        if (!err_msg()[0] || !r->scratch || !r->wch)
            err_set("out of memory for a reactor");
        rx_destroy(r);
        return -1;
    }
    if (start_worker(r) != 0) {
        char why[ERR_MSG_MAX];
        snprintf(why, sizeof(why), "%s", err_msg());
        rx_destroy(r);
        return err_set("%s", why);
    }
    *out = r;
    return 0;
}

/* Frees a channel the worker is done with (or never saw). */
static void chan_free(rx_chan *ch)
{
    rx_reactor *r = ch->r;
    if (ch->prev)
        ch->prev->next = ch->next;
    else if (r->chans == ch)
        r->chans = ch->next;
    if (ch->next)
        ch->next->prev = ch->prev;
    r->nchans--;
    if (r->stopped) {
        rx_ring_publish(&ch->out);
        rx_rec *rec;
        while ((rec = rx_ring_peek(&ch->out))) {
            if (rec->type == RX_OUT_BIG)
                free(rec->ptr);
            rx_ring_consume(&ch->out, rec);
        }
    }
    if (ch->a.buf_open && ch->a.buf.big)
        free(ch->a.buf.data);
    rx_session_free(ch);
    rx_json_free(ch);
    rx_ring_free(&ch->out);
    free(ch);
}

/* Frees what the worker left in the inbound ring (heap copies of large messages). */
static void drain_in(rx_reactor *r)
{
    rx_rec *rec;
    while ((rec = rx_ring_peek(&r->in))) {
        if (rec->type == RX_IN_BIG) {
            void *heap;
            memcpy(&heap, rec + 1, sizeof(heap));
            free(heap);
        }
        rx_ring_consume(&r->in, rec);
    }
    rx_ring_release(&r->in);
}

void rx_destroy(rx_reactor *r)
{
    if (!r)
        return;
    if (r->started) {
        while (rx_cmd(r, RX_CMD_STOP, NULL) != 0) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        pthread_join(r->tid, NULL);
    }
    r->stopped = true;
    if (r->in.buf)
        drain_in(r);
    while (r->chans)
        chan_free(r->chans);
    const int fds[] = {r->app_efd, r->worker_efd, r->epfd}; /* -1: not opened */
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    rx_ring_free(&r->in);
    rx_ring_free(&r->cmd);
    free(r->scratch);
    free(r->wch);
    free(r);
}

/* ---- waiting ------------------------------------------------------------------------------ */

/* The earliest role timer of any channel (INT64_MAX: none). */
static int64_t next_timer(rx_reactor *r)
{
    int64_t t = INT64_MAX;
    for (rx_chan *ch = r->chans; ch; ch = ch->next) {
        int64_t c = rx_session_next_timer(ch);
        if (c < t)
            t = c;
    }
    return t;
}

int rx_wait_fd(rx_reactor *r, int64_t timeout_ns, int fd)
{
    publish_all(r);
    if (rx_ring_pending(&r->in))
        return RX_WAIT_EVENTS;
    int64_t now = clk_ns();
    int64_t due = next_timer(r);
    if (due != INT64_MAX) {
        int64_t left = due > now ? due - now : 0;
        if (timeout_ns < 0 || left < timeout_ns)
            timeout_ns = left;
    }
    atomic_store_explicit(&r->app_sleep, 1, memory_order_seq_cst);
    if (rx_ring_pending(&r->in)) {
        atomic_store_explicit(&r->app_sleep, 0, memory_order_relaxed);
        return RX_WAIT_EVENTS;
    }
    struct pollfd p[2] = {{.fd = r->app_efd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    struct timespec ts = clk_timespec(timeout_ns > 0 ? timeout_ns : 0);
    int n = ppoll(p, fd >= 0 ? 2 : 1, timeout_ns < 0 ? NULL : &ts, NULL);
    int e = errno;
    atomic_store_explicit(&r->app_sleep, 0, memory_order_relaxed);
    if (n > 0 && (p[0].revents & POLLIN))
        efd_drain(r->app_efd);
    int rc = (rx_ring_pending(&r->in) ? RX_WAIT_EVENTS : 0) |
             (n > 0 && fd >= 0 && (p[1].revents & (POLLIN | POLLERR | POLLHUP)) ? RX_WAIT_FD : 0);
    if (!rc && n < 0 && e == EINTR) {
        errno = EINTR;
        return -1;
    }
    return rc;
}

int rx_wait(rx_reactor *r, int64_t timeout_ns)
{
    int rc = rx_wait_fd(r, timeout_ns, -1);
    return rc < 0 ? rc : rc != 0;
}

/* ---- dispatching -------------------------------------------------------------------------- */

static int channel_event(rx_chan *ch, rx_event ev, const char *text)
{
    if (!ch->role.cb.on_channel)
        return 0;
    return ch->role.cb.on_channel(ch, ev, text);
}

/* A message record of ch (payload data, len bytes). */
static int on_message(rx_chan *ch, uint8_t *data, uint32_t len)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(data, len)) != RWF_OK) {
        char text[RX_TEXT_MAX];
        snprintf(text, sizeof(text), "dropped an undecodable message of %u bytes: %s", len,
                 err_msg());
        return channel_event(ch, RX_CHANNEL_WARNING, text);
    }
    return rx_session_msg(ch, &m);
}

static int on_up(rx_chan *ch, const rx_rec *rec)
{
    ch->a.state = RXA_UP;
    ch->a.epoch = rec->epoch;
    memcpy(&ch->a.up, rec + 1, sizeof(ch->a.up));
    ch->a.have_info = true;
    int rc = channel_event(ch, RX_CHANNEL_UP, NULL);
    if (rc < 0 || ch->a.closed_by_app)
        return rc;
    return rx_session_up(ch);
}

static int on_down(rx_chan *ch, bool reconnecting, const char *text)
{
    ch->a.state = RXA_DOWN;
    /* The channel's tunnel streams end first ("Channel was closed."), as the original's. */
    int rc = rx_tun_down(ch);
    if (rc < 0 || ch->a.closed_by_app) {
        if (!reconnecting)
            rx_close(ch);
        return rc;
    }
    /* The tool hears of the loss first (a warm-standby tool promotes the standby at once),
     * then the watchlist gives the channel's items their statuses. */
    ch->a.wsb_lost_standby = ch->a.wsb_standby;
    rc = channel_event(ch, reconnecting ? RX_CHANNEL_DOWN_RECONNECTING : RX_CHANNEL_DOWN, text);
    if (rc >= 0 && !ch->a.closed_by_app)
        rc = rx_session_down(ch, reconnecting, text);
    if (!reconnecting)
        rx_close(ch);
    return rc;
}

/* Handles one inbound record. */
static int handle(rx_reactor *r, rx_rec *rec)
{
    rx_chan *ch = rec->ptr;
    if (rec->type == RX_IN_CLOSED) {
        chan_free(ch);
        return 0;
    }
    void *heap = NULL;
    if (rec->type == RX_IN_BIG)
        memcpy(&heap, rec + 1, sizeof(heap));
    int rc = 0;
    if (ch->a.closed_by_app) {
        /* the tool closed it: nothing more is delivered */
    } else if (rec->type == RX_IN_MSG || rec->type == RX_IN_BIG) {
        if (rec->epoch == ch->a.epoch && ch->a.state == RXA_UP)
            rc = on_message(ch, heap ? heap : (uint8_t *)(rec + 1), rec->len);
    } else if (rec->type == RX_IN_UP) {
        rc = on_up(ch, rec);
    } else {
        /* the time the worker saw it, then the text */
        char text[RX_TEXT_MAX];
        const uint8_t *p = (const uint8_t *)(rec + 1);
        uint32_t n = rec->len >= sizeof(int64_t) ? rec->len - (uint32_t)sizeof(int64_t) : 0;
        if (rec->len >= sizeof(int64_t))
            memcpy(&ch->a.ev_ns, p, sizeof(int64_t));
        snprintf(text, sizeof(text), "%.*s", (int)n, (const char *)p + sizeof(int64_t));
        if (rec->type == RX_IN_WARNING)
            rc = channel_event(ch, RX_CHANNEL_WARNING, text);
        else
            rc = on_down(ch, rec->type == RX_IN_DOWN_RECONN, text);
    }
    free(heap);
    (void)r;
    return rc;
}

/* Gives consumed inbound space back and wakes the worker if it waits for it. */
static void release_in(rx_reactor *r)
{
    rx_ring_release(&r->in);
    if (atomic_load_explicit(&r->in_full, memory_order_seq_cst) &&
        atomic_exchange_explicit(&r->in_full, 0, memory_order_seq_cst))
        efd_signal(r->worker_efd);
}

static int run_timers(rx_reactor *r)
{
    int64_t now = clk_ns();
    for (rx_chan *ch = r->chans; ch; ch = ch->next) {
        if (ch->a.closed_by_app || rx_session_next_timer(ch) > now)
            continue;
        int rc = rx_session_timers(ch, now);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int rx_dispatch(rx_reactor *r, unsigned max)
{
    if (r->in_dispatch)
        return err_set("rx_dispatch called from a callback");
    r->in_dispatch = true;
    int rc = 0;
    unsigned n = 0;
    rx_rec *rec;
    while (n < max && (rec = rx_ring_peek(&r->in))) {
        rc = handle(r, rec);
        rx_ring_consume(&r->in, rec);
        n++;
        if (rc < 0)
            break;
        if (n % RX_RELEASE_EVERY == 0)
            release_in(r);
    }
    release_in(r);
    if (rc >= 0)
        rc = run_timers(r);
    publish_all(r);
    r->in_dispatch = false;
    return rc < 0 ? rc : (int)n;
}

/* ---- channels ------------------------------------------------------------------------------ */

static rx_chan *chan_new(rx_reactor *r, const rx_role *role, void *user, uint32_t ring_bytes)
{
    if (r->nchans >= r->max_channels) {
        err_set("the reactor already has %u channels (its maximum)", r->max_channels);
        return NULL;
    }
    rx_chan *ch = rx_zalloc(sizeof(*ch));
    if (!ch) {
        err_set("out of memory for a channel");
        return NULL;
    }
    ch->r = r;
    ch->role = *role;
    ch->user = user;
    ch->w.fd = -1;
    atomic_init(&ch->flush_req, 0);
    if (rx_ring_init(&ch->out, ring_bytes ? ring_bytes : RX_OUT_RING_DEFAULT) != 0 ||
        rx_session_prepare(ch, role) != 0) {
        rx_session_free(ch);
        rx_ring_free(&ch->out);
        free(ch);
        return NULL;
    }
    ch->role.login = NULL;
    ch->role.directory_refresh = NULL;
    ch->next = r->chans;
    if (r->chans)
        r->chans->prev = ch;
    r->chans = ch;
    r->nchans++;
    return ch;
}

static void copy_str(char *dst, size_t cap, const char *src, const char **field)
{
    snprintf(dst, cap, "%s", src ? src : "");
    *field = src ? dst : NULL;
}

int rx_connect(rx_reactor *r, const rx_conn_opts *o, const rx_role *role, void *user, rx_chan **out)
{
    if (role->kind != RX_ROLE_CONSUMER && role->kind != RX_ROLE_NIPROVIDER)
        return err_set("rx_connect: the role must be a consumer or a non-interactive provider");
    tp_conn_type inner =
        o->tp.conn_type == TP_CONN_ENCRYPTED ? o->tp.encrypted_protocol : o->tp.conn_type;
    if (inner != TP_CONN_SOCKET && inner != TP_CONN_WEBSOCKET)
        return err_set("the reactor supports socket and WebSocket connections (in the clear or "
                       "encrypted) only");
    rx_chan *ch = chan_new(r, role, user, o->out_ring_bytes);
    if (!ch)
        return -1;
    ch->tp = o->tp;
    copy_str(ch->host, sizeof(ch->host), o->tp.host, &ch->tp.host);
    copy_str(ch->port, sizeof(ch->port), o->tp.port, &ch->tp.port);
    copy_str(ch->iface, sizeof(ch->iface), o->tp.interface, &ch->tp.interface);
    ch->tp.component = NULL;
    ch->reconnect_limit = o->reconnect_limit;
    ch->reconnect_min_ms = o->reconnect_min_ms > 0 ? o->reconnect_min_ms : 1;
    ch->reconnect_max_ms =
        o->reconnect_max_ms >= ch->reconnect_min_ms ? o->reconnect_max_ms : ch->reconnect_min_ms;
    ch->hwm = o->high_water_mark;
    if (rx_cmd(r, RX_CMD_OPEN, ch) != 0) {
        chan_free(ch);
        return -1;
    }
    *out = ch;
    return 0;
}

int rx_accept(rx_reactor *r, tp_channel *tpch, uint32_t high_water_mark, uint32_t out_ring_bytes,
              const rx_role *role, void *user, rx_chan **out)
{
    if (role->kind != RX_ROLE_PROVIDER) {
        tp_close(tpch);
        return err_set("rx_accept: the role must be a provider");
    }
    rx_chan *ch = chan_new(r, role, user, out_ring_bytes);
    if (!ch) {
        tp_close(tpch);
        return -1;
    }
    ch->accepted = tpch;
    ch->reconnect_limit = 0;
    ch->hwm = high_water_mark;
    if (rx_cmd(r, RX_CMD_OPEN, ch) != 0) {
        tp_close(tpch);
        chan_free(ch);
        return -1;
    }
    *out = ch;
    return 0;
}

int rx_close(rx_chan *ch)
{
    if (ch->a.closed_by_app)
        return 0;
    if (ch->a.buf_open)
        rx_release(ch, &ch->a.buf);
    ch->a.closed_by_app = true;
    ch->a.state = RXA_CLOSING;
    rx_ring_publish(&ch->out);
    if (rx_cmd(ch->r, RX_CMD_CLOSE, ch) != 0) {
        /* cannot happen: the command ring has room for every channel's commands */
        fprintf(stderr, "rx_close: %s\n", err_msg());
        abort();
    }
    return 0;
}

void *rx_user(const rx_chan *ch)
{
    return ch->user;
}

const tp_info *rx_info(const rx_chan *ch)
{
    return ch->a.have_info ? &ch->a.up.info : NULL;
}

int rx_chan_fd(const rx_chan *ch)
{
    return ch->a.have_info ? ch->a.up.fd : -1;
}

bool rx_is_up(const rx_chan *ch)
{
    return ch->a.state == RXA_UP;
}

int64_t rx_event_ns(const rx_chan *ch)
{
    return ch->a.ev_ns;
}

void rx_get_stats(const rx_chan *ch, rx_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->msgs_read = atomic_load_explicit(&ch->msgs_read, memory_order_relaxed);
    s->msgs_written = atomic_load_explicit(&ch->msgs_written, memory_order_relaxed);
    s->out_dropped = atomic_load_explicit(&ch->out_dropped, memory_order_relaxed);
    s->connects = atomic_load_explicit(&ch->connects, memory_order_relaxed);
    s->reconnects = atomic_load_explicit(&ch->reconnects, memory_order_relaxed);
    s->warnings_lost = atomic_load_explicit(&ch->warnings_lost, memory_order_relaxed);
    s->unknown_stream = ch->a.unknown_stream;
    s->req_timeouts = ch->a.req_timeouts;
    s->acks_untracked = ch->a.acks_untracked;
    s->ack_timeouts = ch->a.ack_timeouts;
    rx_wl_stats(ch, s);
}
