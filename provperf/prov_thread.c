/* A ProvPerf provider thread: its tick loop over the channels it owns. */
#include "prov.h"

#include "pv_admin.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

void prov_app_fail(prov_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool first = run_fail_vset(&a->run.fail, RUN_EXIT_FAILED, fmt, ap);
    va_end(ap);
    if (first) {
        printf("%s\n", run_fail_text(&a->run.fail));
        fflush(stdout);
    }
    sig_request_stop();
}

#define MAX_EVENTS 64

/* A session's epoll data: the session pointer; the eventfd is NULL. */

int prov_thread_init(prov_thread *th, prov_app *app, int i)
{
    memset(th, 0, sizeof(*th));
    th->app = app;
    th->epfd = -1;
    th->hand.evfd = -1;
    size_t ring = app->cfg.pv.opts.latency_file[0] ? 1u << 16 : 0;
    if (pv_thread_init(&th->pv, i, ring) != 0 || run_handoff_init(&th->hand, i) != 0)
        return -1;
    th->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (th->epfd < 0)
        return err_set_errno(errno, "provider thread %d: epoll", i + 1);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->hand.evfd, &ev) != 0)
        return err_set_errno(errno, "provider thread %d: epoll", i + 1);
    if (app->json) {
        if (run_json_init(&th->json, app->json->conv, PROV_JSON_RWF_MAX) != 0)
            return -1;
        th->json_out = malloc(PROV_JSON_RWF_MAX);
        if (!th->json_out)
            return err_set("provider thread %d: out of memory for JSON conversion", i + 1);
    }
    return 0;
}

void prov_thread_free(prov_thread *th)
{
    run_handoff_free(&th->hand);
    free(th->sess);
    if (th->epfd >= 0)
        close(th->epfd);
    pv_thread_free(&th->pv);
    run_json_free(&th->json);
    free(th->json_out);
}

/* ---- sessions ----------------------------------------------------------------------------- */

static void set_events(prov_thread *th, pv_sess *s, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = s};
    epoll_ctl(th->epfd, EPOLL_CTL_MOD, tp_fd(s->ch), &ev);
}

static uint32_t poll_to_epoll(short e)
{
    return (e & POLLIN ? EPOLLIN : 0) | (e & POLLOUT ? EPOLLOUT : 0);
}

/* Closes session s: the Channel Closed line with why, its publishing time, its channel and
 * items, then prov_remove_session. */
static void close_session(prov_thread *th, pv_sess *s, const char *why)
{
    int64_t now = clk_ns();
    run_channel_closed(stdout, why);
    fflush(stdout);
    if (s->active_ns)
        pv_stats_closed(&th->pv.stats, s->pub_ns, now);
    epoll_ctl(th->epfd, EPOLL_CTL_DEL, tp_fd(s->ch), NULL);
    tp_close(s->ch);
    pv_items_free(&s->items);
    prov_remove_session(th, s);
}

void prov_remove_session(prov_thread *th, pv_sess *s)
{
    for (int i = 0; i < th->n_sess; i++)
        if (th->sess[i] == s) {
            th->sess[i] = th->sess[--th->n_sess];
            break;
        }
    free(s);
    run_handoff_closed(&th->hand);
}

int prov_grow_sessions(prov_thread *th)
{
    if (th->n_sess < th->cap_sess)
        return 0;
    int cap = th->cap_sess ? th->cap_sess * 2 : 8;
    pv_sess **v = realloc(th->sess, (size_t)cap * sizeof(*v));
    if (!v)
        return -1;
    th->sess = v;
    th->cap_sess = cap;
    return 0;
}

static void adopt(prov_thread *th, tp_channel *ch)
{
    pv_sess *s = calloc(1, sizeof(*s));
    if (!s || prov_grow_sessions(th) != 0) {
        free(s);
        tp_close(ch);
        run_handoff_closed(&th->hand);
        run_channel_closed(stdout, "out of memory adopting a channel");
        return;
    }
    s->ch = ch;
    th->sess[th->n_sess++] = s;
    struct epoll_event ev = {.events = poll_to_epoll(tp_events(ch)) | EPOLLIN, .data.ptr = s};
    if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, tp_fd(ch), &ev) != 0) {
        char why[128];
        snprintf(why, sizeof(why), "epoll: %s", strerror(errno));
        close_session(th, s, why);
    }
}

static void adopt_pending(prov_thread *th)
{
    tp_channel *ch[16];
    int n;
    while ((n = run_handoff_take(&th->hand, ch, 16)) > 0)
        for (int i = 0; i < n; i++)
            adopt(th, ch[i]);
}

/* The channel finished its handshake: print what the ETA provider prints, then start. */
static int activate(prov_thread *th, pv_sess *s)
{
    prov_app *app = th->app;
    const prov_config *cfg = &app->cfg;
    tp_info info;
    if (tp_get_info(s->ch, &info) != 0)
        return -1;
    if (cfg->pv.opts.high_water_mark > 0)
        tp_set_high_water_mark(s->ch, (uint32_t)cfg->pv.opts.high_water_mark);
    run_channel_info(stdout, s->ch);
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info.max_fragment_size) {
        prov_app_fail(app,
                      "Error(Channel %d): MaxFragmentSize %u is too small for packing "
                      "buffer size %d",
                      tp_fd(s->ch), info.max_fragment_size, cfg->pv.pack_buf_size);
        return -1;
    }
    pv_content_print_sizes(app->in.content, stdout);
    fflush(stdout);
    run_tls_seen_note(&app->run.tls_seen, s->ch);
    if (pv_items_init(&s->items, 1024) != 0)
        return -1;
    pv_out_init(&s->out, s->ch, (uint32_t)cfg->pv.max_pack_count, (uint32_t)cfg->pv.pack_buf_size,
                cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
    s->json = run_json_channel(s->ch);
    if (s->json)
        pv_out_json(&s->out, app->json->conv, th->json_out, PROV_JSON_RWF_MAX);
    s->active_ns = clk_ns();
    return 0;
}

static void on_handshake(prov_thread *th, pv_sess *s)
{
    int rc = tp_init(s->ch);
    if (rc == TP_ACTIVE) {
        if (activate(th, s) != 0) {
            close_session(th, s, err_msg());
            return;
        }
        set_events(th, s, EPOLLIN);
        /* what arrived with the end of the handshake (inside TLS) has no readiness event */
        s->more_input = tp_read_ready(s->ch);
    } else if (rc < 0) {
        close_session(th, s, err_msg());
    } else {
        set_events(th, s, poll_to_epoll(tp_events(s->ch)) | EPOLLIN);
    }
}

/* One received message (a JSON frame: each message in it). Returns false when the session was
 * closed. */
static bool handle_msg(prov_thread *th, pv_sess *s, const tp_msg *m)
{
    int h;
    if (!s->json) {
        h = prov_handle(th, s, m->data, m->len);
    } else {
        run_json_in in;
        run_json_in_start(&in, &th->json, s->ch, m->data, m->len);
        rwf_buf msg;
        int rc;
        h = 0;
        while (h >= 0 && (rc = run_json_in_next(&in, &msg)) > 0) {
            int r = prov_handle(th, s, (const uint8_t *)msg.data, (uint32_t)msg.len);
            h = r < 0 ? r : h | r;
        }
        if (h >= 0 && rc < 0) {
            err_push("Error in Json Conversion");
            h = -1;
        }
    }
    if (h < 0) {
        close_session(th, s, err_msg());
        return false;
    }
    if (h > 0)
        s->want_write = true;
    return true;
}

/* Reads what is buffered on s (returns false when the session was closed). Stops early when
 * the next tick is due: s->more_input then says that complete messages wait in the channel,
 * which the socket's readiness would no longer signal, and the loop comes back for them. */
static bool on_readable(prov_thread *th, pv_sess *s)
{
    s->more_input = false;
    for (int n = 0;; n++) {
        tp_msg m;
        int rc = tp_read(s->ch, &m);
        if (rc < 0) {
            close_session(th, s, err_msg());
            return false;
        }
        if ((rc & TP_READ_MSG) && !handle_msg(th, s, &m))
            return false;
        if (!(rc & TP_READ_MORE))
            break;
        if ((n & 15) == 15 && tick_wait_ns(&th->pv.t, clk_ns()) == 0) {
            s->more_input = true;
            break;
        }
    }
    return true;
}

/* Reads the input left buffered by an earlier on_readable(). Returns true when some is still
 * left (the next wait must not block). */
static bool read_leftovers(prov_thread *th)
{
    bool left = false;
    for (int i = 0; i < th->n_sess; i++) {
        pv_sess *s = th->sess[i];
        if (s->more_input && on_readable(th, s) && s->more_input)
            left = true;
    }
    return left;
}

/* Arms EPOLLOUT exactly while output waits to be sent. */
static void sync_write_interest(prov_thread *th)
{
    for (int j = 0; j < th->n_sess; j++) {
        pv_sess *s = th->sess[j];
        if (s->active_ns && s->want_write != s->write_armed) {
            set_events(th, s, EPOLLIN | (s->want_write ? EPOLLOUT : 0));
            s->write_armed = s->want_write;
        }
    }
}

static void on_writable(prov_thread *th, pv_sess *s)
{
    int q = pv_out_flush(&s->out);
    if (q < 0) {
        close_session(th, s, err_msg());
        return;
    }
    s->want_write = q > 0;
}

/* Sends the tick's bursts on every channel, then pings. */
static void tick_bursts(prov_thread *th)
{
    prov_app *app = th->app;
    int64_t now = clk_ns();
    for (int i = 0; i < th->n_sess;) {
        pv_sess *s = th->sess[i];
        if (!s->active_ns) {
            /* a handshake that stalls makes no event: its time limit is checked here */
            if (tp_tick(s->ch, (uint64_t)now) < 0) {
                close_session(th, s, err_msg());
                continue;
            }
            i++;
            continue;
        }
        int rc = pv_burst_tick(s, &app->in.feed, &app->in.rates, &th->pv.stats, &th->pv.t);
        if (rc == TP_EFAIL) {
            char why[ERR_MSG_MAX + 64];
            snprintf(why, sizeof(why), "Failure while writing message bursts: %s", err_msg());
            close_session(th, s, why);
            continue; /* slot i now holds another session */
        }
        if (tp_tick(s->ch, (uint64_t)now) < 0) {
            close_session(th, s, err_msg());
            continue;
        }
        i++;
    }
    latbuf_poll(&th->pv.stats.lat);
    sync_write_interest(th);
}

/* Handles what epoll reported. */
static void on_events(prov_thread *th, struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        pv_sess *s = ev[i].data.ptr;
        if (!s) {
            adopt_pending(th);
            continue;
        }
        /* A session closed by an earlier event of this batch is no longer listed. */
        bool live = false;
        for (int j = 0; j < th->n_sess && !live; j++)
            live = th->sess[j] == s;
        if (!live)
            continue;
        if (!s->active_ns) {
            on_handshake(th, s);
            continue;
        }
        if ((ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !on_readable(th, s))
            continue;
        if (ev[i].events & EPOLLOUT)
            on_writable(th, s);
    }
    sync_write_interest(th);
}

/* pv_thread_fns: the thread's loop over its own channels (bare). */
static void bare_loop(void *arg)
{
    prov_thread *th = arg;
    prov_app *app = th->app;
    const uint32_t rate = (uint32_t)app->cfg.pv.opts.tick_rate;
    const int64_t interval = CLK_NS_PER_SEC / rate;
    tick_init(&th->pv.t, rate, clk_ns() + interval);
    struct epoll_event ev[MAX_EVENTS];

    while (!sig_stop_requested()) {
        if (!th->n_sess) {
            /* No channel: nothing to send, so no ticks to keep. Sleep until one is handed
             * over (or a stop), then start a fresh schedule rather than catching up. */
            latbuf_poll(&th->pv.stats.lat);
            int n = epoll_wait(th->epfd, ev, MAX_EVENTS, 100);
            if (n > 0)
                on_events(th, ev, n);
            if (th->n_sess)
                tick_init(&th->pv.t, rate, clk_ns() + interval);
            continue;
        }
        int64_t now = clk_ns();
        if (tick_poll(&th->pv.t, now)) {
            tick_bursts(th);
            continue;
        }
        struct timespec ts = tick_wait_timespec(&th->pv.t, now);
        if (read_leftovers(th))
            ts.tv_sec = ts.tv_nsec = 0;
        int n = epoll_pwait2(th->epfd, ev, MAX_EVENTS, &ts, NULL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            prov_app_fail(app, "provider thread %d: epoll_pwait2: %s", th->pv.index + 1,
                          strerror(errno));
            break;
        }
        on_events(th, ev, n);
    }
    while (th->n_sess)
        close_session(th, th->sess[0], NULL);
}

/* pv_thread_fns: the loop with -reactor. */
static void reactor_loop(void *th)
{
    prov_rx_thread(th);
}

/* pv_thread_fns: the binding failed; the first failure's line is printed and ends the run. */
static void bind_failed(void *th, const char *line)
{
    prov_app_fail(((prov_thread *)th)->app, "%s", line);
}

int prov_thread_start(prov_thread *th)
{
    static const pv_thread_fns fns = {reactor_loop, bare_loop, bind_failed};
    return pv_thread_start(&th->pv, th, th->app->cfg.pv.opts.reactor, &fns);
}
