/* The session driver's loop, its channels (bare mode) and its failure path: see run_drv.h. */
#include "run_drv.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest single wait while ticks run: the main thread's requests (latency sets) are answered
 * at least this often whatever the tick rate. */
#define MAX_WAIT_NS (10 * 1000 * 1000)
/* Longest wait without ticks (nothing up yet): a hand-over or a connecting channel's
 * descriptor wakes the loop before. */
#define IDLE_PASS_NS (100 * 1000 * 1000)
/* How often the handshake time limits of channels not up are looked at without ticks. */
#define HS_CHECK_NS (100 * 1000 * 1000)
/* A shared-memory reader that finds nothing looks again after a pause that doubles up to this
 * (the ring holds thousands of messages: at 4M/s, 5000 slots last 1.2 ms). */
#define SHM_NAP_MAX_NS (50 * 1000)
/* A client's next attempt after a failed one. */
#define RETRY_NS CLK_NS_PER_SEC

/* Hands the latency sets over when the main thread asked for them. */
static inline void poll_lat(run_drv *d)
{
    if (d->cfg.lat)
        latbuf_poll(d->cfg.lat);
}

/* ---- failures ------------------------------------------------------------------------------ */

/* Records err_msg() with what as context into the slot; returns whether this text was the
 * first recorded. */
static bool record(run_drv *d, int status, const char *what)
{
    if (what)
        err_push("%s", what);
    return run_fail_set(d->cfg.fail, status, "%s", err_msg());
}

int run_drv_fail(run_drv *d, int status, const char *what)
{
    bool first = record(d, status, what);
    if (first && d->cfg.print_fail) {
        printf("%s\n", run_fail_text(d->cfg.fail));
        fflush(stdout);
    }
    d->failed = true;
    sig_request_stop();
    return RUN_DRV_FAILED;
}

void run_drv_mark(run_drv *d, int status, const char *what)
{
    record(d, status, what);
}

/* A failure of the driver's own (waiting, the schedule, the Reactor): err_msg() with what and
 * the thread's name as context. */
static int self_fail(run_drv *d, const char *what)
{
    if (what)
        err_push("%s", what);
    if (d->cfg.name)
        err_push("%s", d->cfg.name);
    return run_drv_fail(d, RUN_EXIT_FAILED, NULL);
}

bool run_drv_heals(run_drv_stage stage, const char *why, bool final)
{
    (void)stage;
    (void)why;
    /* The original tries every failure again a second later; one that the transport marked
     * final would fail alike every second until the run time ends. */
    return !final;
}

/* ---- channels ------------------------------------------------------------------------------ */

/* Makes room for one more channel in the arrays of the loop (a pass allocates nothing). */
static int grow(run_drv *d)
{
    if (d->n_chs < d->cap_chs)
        return 0;
    int cap = d->cap_chs ? 2 * d->cap_chs : 4;
    run_drv_ch **v = realloc(d->chs, (size_t)cap * sizeof(*v));
    if (!v)
        return -1;
    d->chs = v;
    struct pollfd *p = realloc(d->pfds, (size_t)(cap + 1) * sizeof(*p));
    if (!p)
        return -1;
    d->pfds = p;
    run_drv_ch **q = realloc(d->pch, (size_t)(cap + 1) * sizeof(*q));
    if (!q)
        return -1;
    d->pch = q;
    d->cap_chs = cap;
    return 0;
}

/* A new channel of the driver's; NULL when memory ran out (ch is then closed, with a line). */
static run_drv_ch *add(run_drv *d, tp_channel *ch, bool client)
{
    run_drv_ch *c = grow(d) == 0 ? calloc(1, sizeof(*c)) : NULL;
    if (!c) {
        tp_close(ch);
        if (d->cfg.hand)
            run_handoff_closed(d->cfg.hand);
        run_channel_closed(stdout, "out of memory adopting a channel");
        fflush(stdout);
        return NULL;
    }
    c->ch = ch;
    c->fd = tp_fd(ch);
    c->client = client;
    d->chs[d->n_chs++] = c;
    return c;
}

/* Frees the channels closed during the pass. */
static void compact(run_drv *d)
{
    for (int i = 0; i < d->n_chs;) {
        if (d->chs[i]->closed) {
            free(d->chs[i]);
            d->chs[i] = d->chs[--d->n_chs];
        } else {
            i++;
        }
    }
}

/* Starts the schedule afresh: the first tick one interval from now. */
static int start_ticks(run_drv *d)
{
    int64_t now = clk_ns();
    if (tick_init(d->cfg.tk, d->cfg.tick_rate, now + CLK_NS_PER_SEC / d->cfg.tick_rate) != 0)
        return self_fail(d, "the tick schedule");
    d->ticking = true;
    return 0;
}

void run_drv_ticking(run_drv *d, bool on)
{
    if (on && !d->ticking)
        start_ticks(d);
    else if (!on)
        d->ticking = false;
}

/* Ends a channel: its text is copied first (why may be err_msg(), which the callback may
 * change). */
static void finish_ch(run_drv *d, run_drv_ch *c)
{
    tp_close(c->ch);
    c->ch = NULL;
    c->closed = true;
    if (d->cfg.hand)
        run_handoff_closed(d->cfg.hand);
}

void run_drv_close(run_drv *d, run_drv_ch *c, const char *why)
{
    if (c->closed)
        return;
    char text[ERR_MSG_MAX];
    if (why)
        snprintf(text, sizeof(text), "%s", why);
    c->closed = true; /* no second close from inside the callback */
    if (c->up && --d->n_up == 0 && !d->cfg.rx)
        d->ticking = false; /* no channel: no ticks to keep */
    if (d->cfg.ops->down)
        d->cfg.ops->down(d->cfg.tool, c, why ? text : NULL);
    finish_ch(d, c);
}

/* A client's attempt failed at stage with text why: printed through the tool (flagged when it
 * is the previous failure's), then the next attempt a second later. */
static void connect_failed(run_drv *d, run_drv_stage stage, const char *why, bool final)
{
    char text[ERR_MSG_MAX];
    snprintf(text, sizeof(text), "%s", why);
    bool repeat = strcmp(d->errs.last, text) == 0;
    if (repeat)
        d->errs.repeats++;
    else
        snprintf(d->errs.last, sizeof(d->errs.last), "%s", text);
    if (d->cfg.ops->connect_failed && run_drv_heals(stage, text, final))
        d->cfg.ops->connect_failed(d->cfg.tool, stage, text, repeat);
    d->connect_ns = clk_ns() + RETRY_NS;
    if (!run_drv_heals(stage, text, final)) {
        if (d->cfg.ops->connect_final) {
            d->cfg.ops->connect_final(d->cfg.tool, stage, text); /* its line, its err_msg() */
        } else {
            printf("Error: %s (trying again cannot succeed).\n", text);
            fflush(stdout);
            err_set("%s", text);
        }
        run_drv_fail(d, RUN_EXIT_FAILED, NULL);
    }
}

/* c finished its handshake: the tool's ops->up, then the schedule when it is the first up. */
static void activate(run_drv *d, run_drv_ch *c)
{
    c->fd = tp_fd(c->ch);
    c->up_ns = clk_ns();
    tp_info in;
    c->shm = tp_get_info(c->ch, &in) == 0 && in.conn_type == TP_CONN_SHMEM;
    if (c->client)
        d->ever_up = true;
    int rc = d->cfg.ops->up ? d->cfg.ops->up(d->cfg.tool, c) : 0;
    if (rc == RUN_DRV_CLOSE) {
        run_drv_close(d, c, err_msg());
        return;
    }
    if (rc < 0)
        return; /* the thread failed; the channel closes with the others */
    c->up = true;
    /* what arrived with the end of the handshake (inside TLS) makes no readiness event */
    c->more = tp_read_ready(c->ch);
    if (d->n_up++ == 0 && !d->cfg.rx)
        start_ticks(d);
}

/* Advances the handshake of c (not up). */
static void handshake(run_drv *d, run_drv_ch *c)
{
    int rc = tp_init(c->ch);
    if (rc == TP_ACTIVE) {
        activate(d, c);
    } else if (rc < 0) {
        if (c->client) {
            bool final = err_is_final(); /* before the close */
            finish_ch(d, c);
            connect_failed(d, RUN_DRV_AT_INIT, err_msg(), final);
        } else {
            run_drv_close(d, c, err_msg());
        }
    }
}

/* The time limits of channels still in their handshake (their stall makes no event), and of
 * the pings of those up when ticks do not run. */
static void check_time_limits(run_drv *d, int64_t now, bool up_too)
{
    for (int i = 0; i < d->n_chs; i++) {
        run_drv_ch *c = d->chs[i];
        if (c->closed || (c->up && !up_too))
            continue;
        if (tp_tick(c->ch, (uint64_t)now) >= 0)
            continue;
        if (!c->up && c->client) {
            bool final = err_is_final(); /* before the close */
            finish_ch(d, c);
            connect_failed(d, RUN_DRV_AT_INIT, err_msg(), final);
        } else {
            run_drv_close(d, c, err_msg());
        }
    }
}

/* Takes what the main thread handed over: bare, the driver's channels (a shared-memory one is
 * active at once); Reactor, the tool's (ops->adopt). */
static void take_handed(run_drv *d)
{
    tp_channel *in[16];
    int n;
    while ((n = run_handoff_take(d->cfg.hand, in, 16)) > 0)
        for (int k = 0; k < n; k++) {
            if (d->cfg.rx) {
                d->cfg.ops->adopt(d->cfg.tool, in[k]);
                continue;
            }
            run_drv_ch *c = add(d, in[k], false);
            if (c && tp_get_state(in[k]) == TP_STATE_ACTIVE)
                activate(d, c);
        }
}

/* A client's attempt when one is due: the tool's line, tp_connect, the handshake begun. */
static void try_connect(run_drv *d, int64_t now)
{
    if (!d->cfg.connect || d->ever_up || now < d->connect_ns)
        return;
    for (int i = 0; i < d->n_chs; i++)
        if (d->chs[i]->client && !d->chs[i]->closed)
            return; /* an attempt is under way */
    if (d->cfg.ops->connecting)
        d->cfg.ops->connecting(d->cfg.tool);
    tp_channel *ch = NULL;
    if (tp_connect(&d->conn, &ch) != 0) {
        connect_failed(d, RUN_DRV_AT_CONNECT, err_msg(), err_is_final());
        return;
    }
    if (d->cfg.hand)
        run_handoff_opened(d->cfg.hand);
    run_drv_ch *c = add(d, ch, true);
    if (c)
        handshake(d, c);
}

/* ---- reading and waiting (bare) -------------------------------------------------------------- */

/* A message callback's non-zero result r: RUN_DRV_CLOSE closes the channel with the reason the
 * tool set (copied into text, which *why then names); anything else fails the run (*failed). */
static void msg_refused(int r, char *text, size_t n, const char **why, bool *failed)
{
    if (r == RUN_DRV_CLOSE) {
        snprintf(text, n, "%s", err_msg());
        *why = text;
    } else {
        *failed = true;
    }
}

/* Reads what c has: every complete message to ops->msg (or in batches to ops->msgs, or in
 * frames to ops->frames), until nothing complete is left (with read_on: until a read finds
 * nothing or `until` passes), back to the loop every read_batch messages when a tick is due
 * or a stop was requested (c->more then says to come back). */
static void read_ch(run_drv *d, run_drv_ch *c, int64_t until)
{
    const run_drv_ops *ops = d->cfg.ops;
    const unsigned batch = d->cfg.read_batch;
    const char *why = NULL;
    bool failed = false;
    char text[ERR_MSG_MAX];
    c->more = false;
    /* By frames (a packed one whole) when the tool takes them, else by batches of messages;
     * shared memory gives a tool that takes both its messages. */
    const bool by_frames = ops->frames && !(c->shm && ops->msgs);
    if (by_frames || ops->msgs) {
        union {
            tp_frame f[RUN_DRV_VEC];
            tp_msg m[RUN_DRV_VEC];
        } v;
        unsigned since = 0; /* reads' units (a message, a frame, an empty read) since the tick
                             * was looked at; a packed frame counts once */
        for (;;) {
            bool more;
            int n = by_frames ? tp_read_frames(c->ch, v.f, RUN_DRV_VEC, &more)
                              : tp_read_batch(c->ch, v.m, RUN_DRV_VEC, &more);
            if (__builtin_expect(n < 0, 0)) {
                snprintf(text, sizeof(text), "%s", err_msg());
                why = text;
                break;
            }
            if (n > 0) {
                int r = by_frames ? ops->frames(d->cfg.tool, c, v.f, n)
                                  : ops->msgs(d->cfg.tool, c, v.m, n);
                if (__builtin_expect(r != 0, 0)) {
                    msg_refused(r, text, sizeof(text), &why, &failed);
                    break;
                }
            }
            if (!more && (!d->cfg.read_on || n == 0 || clk_ns() >= until))
                break;
            since += n > 0 ? (unsigned)n : 1u;
            if (since >= batch) {
                since = 0;
                if ((d->ticking && clk_ns() >= d->cfg.tk->next_ns) || sig_stop_requested()) {
                    c->more = true;
                    break;
                }
            }
        }
        goto done;
    }
    for (unsigned n = 1;; n++) {
        tp_msg m;
        int rc = tp_read(c->ch, &m);
        if (__builtin_expect(rc < 0, 0)) {
            snprintf(text, sizeof(text), "%s", err_msg());
            why = text;
            break;
        }
        if (rc & TP_READ_MSG) {
            int r = ops->msg(d->cfg.tool, c, &m);
            if (__builtin_expect(r != 0, 0)) {
                msg_refused(r, text, sizeof(text), &why, &failed);
                break;
            }
        }
        if (!(rc & TP_READ_MORE) && (!d->cfg.read_on || rc == 0 || clk_ns() >= until))
            break;
        if (n % batch == 0 &&
            ((d->ticking && clk_ns() >= d->cfg.tk->next_ns) || sig_stop_requested())) {
            c->more = true;
            break;
        }
    }
done:
    if (ops->batch)
        ops->batch(d->cfg.tool, c);
    if (why && !failed)
        run_drv_close(d, c, why);
}

/* Waits until `until` at the latest for the channels and the hand-over, then reads, flushes and
 * advances handshakes. */
static void io_pass(run_drv *d, int64_t until)
{
    struct pollfd *fds = d->pfds;
    run_drv_ch **pch = d->pch;
    const bool busy = d->cfg.busy_read;
    int n = 0, shm_readers = 0;
    bool more = false;
    for (int i = 0; i < d->n_chs; i++) {
        run_drv_ch *c = d->chs[i];
        if (c->closed)
            continue;
        if (c->up && c->shm) { /* never polled: its descriptor is always ready */
            shm_readers += c->client;
            continue;
        }
        fds[n].fd = tp_fd(c->ch);
        fds[n].events = tp_events(c->ch); /* when up: POLLIN, and POLLOUT while queued */
        fds[n].revents = 0;
        more |= c->more;
        pch[n++] = c;
    }
    const int n_chs = n; /* channels polled; the hand-over's descriptor follows */
    if (d->cfg.hand) {
        fds[n].fd = d->cfg.hand->evfd;
        fds[n].events = POLLIN;
        fds[n].revents = 0;
        pch[n++] = NULL;
    }

    int64_t now = clk_ns();
    int64_t wait = until > now ? until - now : 0;
    if (d->ticking && wait < d->cfg.idle_wait_ns && d->cfg.ops->idle &&
        d->cfg.ops->idle(d->cfg.tool))
        wait = d->cfg.idle_wait_ns;
    int64_t most = d->ticking ? MAX_WAIT_NS : IDLE_PASS_NS;
    if (wait > most)
        wait = most;
    if (shm_readers && wait > d->shm_nap)
        wait = d->shm_nap;
    if (more || busy)
        wait = 0;

    int ready = 0;
    if (busy) {
        /* Busy reading: no readiness check, every channel is read (and flushed) as it is. */
        for (int k = 0; k < n; k++)
            fds[k].revents = (short)(fds[k].events | POLLIN);
        ready = n;
    } else if (n_chs > 0 || (n > 0 && wait > 0)) {
        /* Not with nothing to wait for but the hand-over: the pass's top takes that, and a
         * shared-memory reader that found messages comes back here at once (shm_nap 0), for
         * which a ppoll() per pass made the reader and its writer dearer per message. */
        struct timespec ts = clk_timespec(wait);
        ready = ppoll(fds, (nfds_t)n, &ts, NULL);
        if (ready < 0) {
            if (errno != EINTR) {
                err_set_errno(errno, "ppoll");
                self_fail(d, NULL);
            }
            return;
        }
    } else if (wait > 0) {
        clk_sleep_until(now + wait);
    }

    int64_t deadline = until > now ? until : now;
    for (int k = 0; k < n && (ready > 0 || more); k++) {
        run_drv_ch *c = pch[k];
        short re = fds[k].revents;
        if (!c) {
            if (re)
                take_handed(d);
            continue;
        }
        if (c->closed)
            continue;
        if (!c->up) {
            if (re)
                handshake(d, c);
            continue;
        }
        if ((re & (POLLIN | POLLERR | POLLHUP)) || c->more)
            read_ch(d, c, deadline);
        if (c->closed)
            continue;
        if ((re & POLLOUT) || (busy && tp_queued(c->ch))) {
            if (tp_flush(c->ch) < 0)
                run_drv_close(d, c, err_msg());
        }
    }

    if (shm_readers) {
        bool got = false;
        for (int i = 0; i < d->n_chs; i++) {
            run_drv_ch *c = d->chs[i];
            if (c->closed || !c->up || !c->shm || !c->client)
                continue;
            tp_stats before, after;
            tp_get_stats(c->ch, &before);
            read_ch(d, c, deadline);
            if (!c->closed) {
                tp_get_stats(c->ch, &after);
                got |= after.msgs_read != before.msgs_read;
            }
        }
        d->shm_nap =
            got ? 0
                : (d->shm_nap ? (d->shm_nap * 2 > SHM_NAP_MAX_NS ? SHM_NAP_MAX_NS : d->shm_nap * 2)
                              : 1000);
    }
}

int run_drv_write(run_drv_ch *c, tp_buf *b, unsigned flags)
{
    int rc = tp_write(c->ch, b, flags);
    while (rc == TP_ECALLAGAIN) {
        if (tp_flush(c->ch) < 0)
            return TP_EFAIL;
        struct pollfd p = {.fd = tp_fd(c->ch), .events = POLLOUT};
        poll(&p, 1, 10);
        rc = tp_write(c->ch, b, flags);
    }
    return rc;
}

void run_drv_io(run_drv *d, int64_t until)
{
    poll_lat(d);
    io_pass(d, until);
    compact(d);
}

/* ---- the Reactor -------------------------------------------------------------------------- */

/* Waits for the Reactor (and the hand-over) until the next tick and dispatches its events. */
static void rx_pass(run_drv *d, int64_t now)
{
    int64_t wait = d->ticking ? tick_wait_ns(d->cfg.tk, now) : IDLE_PASS_NS;
    if (d->ticking && wait < d->cfg.idle_wait_ns && d->cfg.ops->idle &&
        d->cfg.ops->idle(d->cfg.tool))
        wait = d->cfg.idle_wait_ns;
    int w = d->cfg.hand ? rx_wait_fd(d->cfg.rx, wait, d->cfg.hand->evfd) : rx_wait(d->cfg.rx, wait);
    if (w < 0) {
        if (errno != EINTR) {
            err_set_errno(errno, "waiting for the reactor");
            self_fail(d, NULL);
        }
        return;
    }
    if (d->cfg.hand && (w & RX_WAIT_FD))
        take_handed(d);
    const unsigned batch = d->cfg.dispatch_batch;
    int n;
    do {
        n = rx_dispatch(d->cfg.rx, batch);
    } while (n == (int)batch && (!d->ticking || clk_ns() < d->cfg.tk->next_ns) &&
             !sig_stop_requested());
    /* A handler that failed the thread recorded why; anything else is the layer's. */
    if (n < 0 && !d->failed)
        self_fail(d, "the reactor");
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* The due tick: the tool's bursts, then (bare) every channel's pings and time limits. */
static void do_tick(run_drv *d, int64_t now)
{
    if (d->cfg.ops->tick(d->cfg.tool, d->cfg.tk, now) < 0)
        return;
    if (!d->cfg.rx)
        check_time_limits(d, now, true);
    poll_lat(d);
}

int run_drv_init(run_drv *d, const run_drv_cfg *cfg)
{
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    if (!d->cfg.tk)
        d->cfg.tk = &d->own_tk;
    if (!d->cfg.read_batch)
        d->cfg.read_batch = 64;
    if (!d->cfg.dispatch_batch)
        d->cfg.dispatch_batch = 256;
    if (!d->cfg.idle_wait_ns)
        d->cfg.idle_wait_ns = 10 * 1000 * 1000;
    if (!d->cfg.tick_rate)
        d->cfg.tick_rate = 1000;
    d->ticking = d->cfg.rx != NULL; /* the Reactor modes tick from the start */
    if (d->cfg.connect) {
        d->cfg.link.side = RUN_CLIENT;
        run_conn_tp(d->cfg.connect, &d->cfg.link, &d->conn);
    }
    return grow(d);
}

void run_drv_use_reactor(run_drv *d, rx_reactor *rx)
{
    d->cfg.rx = rx;
    d->ticking = true;
}

int run_drv_run(run_drv *d)
{
    tick_tighten_slack();
    if (d->ticking)
        start_ticks(d);
    while (!sig_stop_requested() && !d->failed) {
        poll_lat(d);
        int64_t now = clk_ns();
        if (d->cfg.hand && !d->cfg.rx)
            take_handed(d);
        try_connect(d, now);
        if (d->ticking && tick_poll(d->cfg.tk, now)) {
            do_tick(d, now);
            compact(d);
            continue;
        }
        if (d->cfg.rx) {
            rx_pass(d, now);
            continue;
        }
        if (!d->ticking && now >= d->hs_check_ns) {
            check_time_limits(d, now, false);
            d->hs_check_ns = now + HS_CHECK_NS;
        }
        io_pass(d, d->ticking ? d->cfg.tk->next_ns : now + IDLE_PASS_NS);
        compact(d);
    }
    if (d->cfg.ops->end)
        d->cfg.ops->end(d->cfg.tool);
    for (int i = 0; i < d->n_chs; i++)
        run_drv_close(d, d->chs[i], NULL);
    compact(d);
    poll_lat(d);
    if (d->failed)
        return RUN_DRV_THREAD_FAILED;
    return sig_caught() ? RUN_DRV_INTERRUPTED : RUN_DRV_STOPPED;
}

void run_drv_free(run_drv *d)
{
    for (int i = 0; i < d->n_chs; i++) {
        tp_close(d->chs[i]->ch);
        free(d->chs[i]);
    }
    free(d->chs);
    free(d->pfds);
    free(d->pch);
    memset(d, 0, sizeof(*d));
}
