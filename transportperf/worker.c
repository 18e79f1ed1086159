#include "worker_int.h"

#include "clk.h"
#include "err.h"
#include "lat.h"
#include "msg.h"
#include "sig.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest wait in one poll: the main thread's requests (latency sets) are answered at least
 * this often whatever the tick rate. */
#define MAX_WAIT_NS (10 * 1000 * 1000)
/* A shared-memory reader that finds nothing polls again after a pause that doubles up to
 * this (the ring holds thousands of messages: at 4M/s, 5000 slots last 1.2 ms). */
#define SHM_NAP_MAX_NS (50 * 1000)
/* End of the run: how long queued output may take to leave, and how long replies to what
 * this side sent (a reflecting peer) are awaited after the last one arrived. */
#define FINAL_FLUSH_NS (2 * CLK_NS_PER_SEC)
#define DRAIN_IDLE_NS (100 * 1000 * 1000)
#define DRAIN_MAX_NS (CLK_NS_PER_SEC)

/* ------------------------------------------------------------------------------------------ */
/* Set-up                                                                                     */

int worker_init(tperf_worker *w, int index, const tperf_config *cfg, const lra *la,
                const cpu_entry *cpu)
{
    memset(w, 0, sizeof(*w));
    w->index = index;
    w->cfg = cfg;
    w->lra = la;
    w->cpu = cpu;
    run_fail_init(&w->fail);
    run_tls_seen_init(&w->tls_seen);
    w->pack_bytes = tperf_config_pack_bytes(cfg);
    w->write_flags = cfg->opts.direct_write ? TP_WRITE_DIRECT : 0;
    counter_init(&w->msgs_sent);
    counter_init(&w->bytes_sent);
    counter_init(&w->msgs_recv);
    counter_init(&w->bytes_recv);
    counter_init(&w->out_of_bufs);
    atomic_init(&w->neg_send, 0);
    atomic_init(&w->neg_recv, 0);
    w->hand.evfd = -1;
    if (run_handoff_init(&w->hand, index) != 0)
        return -1;
    if (latbuf_init(&w->lat, TPERF_LAT_KINDS) != 0)
        return err_push("thread %d", index + 1);
    if (cfg->opts.latency_file[0]) {
        /* One interval of samples at the latency rate, twice over; "all" at high rates will
         * overflow it, and the drop count says so. */
        uint64_t want =
            (uint64_t)tperf_config_latency_rate(cfg) * cfg->opts.write_stats_interval * 2;
        if (cfg->reflect_msgs || cfg->app_type == TPERF_CLIENT)
            want = want < 65536 ? 65536 : want;
        if (want > (1u << 20))
            want = 1u << 20;
        if (want < 1024)
            want = 1024;
        if (latring_init(&w->ring, (size_t)want) != 0)
            return err_push("thread %d", index + 1);
        w->ring_on = true;
    }

    const run_link link = {.side = cfg->app_type == TPERF_CLIENT ? RUN_CLIENT : RUN_SERVER,
                           .protocol_type = TP_PROTOCOL_TRANSPORTPERF,
                           .thread = index};
    run_conn_tp(&cfg->opts, &link, &w->opts);
    return tperf_mc_init(w);
}

void worker_free(tperf_worker *w)
{
    for (int i = 0; i < w->n_sess; i++) {
        tp_close(w->sess[i]->ch);
        free(w->sess[i]);
    }
    free(w->sess);
    free(w->pfds);
    free(w->pidx);
    run_handoff_free(&w->hand);
    tperf_track_free(w);
    latbuf_free(&w->lat);
    if (w->ring_on)
        latring_free(&w->ring);
}

/* ------------------------------------------------------------------------------------------ */
/* Sessions                                                                                   */

static tperf_session *session_add(tperf_worker *w, tp_channel *ch)
{
    if (w->n_sess == w->cap_sess) {
        int cap = w->cap_sess ? 2 * w->cap_sess : 4;
        tperf_session **m = realloc(w->sess, (size_t)cap * sizeof(*m));
        if (!m)
            return NULL;
        w->sess = m;
        /* The poll set grows here, with the sessions, so that a pass allocates nothing. */
        struct pollfd *f = realloc(w->pfds, (size_t)cap * sizeof(*f));
        if (!f)
            return NULL;
        w->pfds = f;
        int *x = realloc(w->pidx, (size_t)cap * sizeof(*x));
        if (!x)
            return NULL;
        w->pidx = x;
        w->cap_sess = cap;
    }
    tperf_session *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->ch = ch;
    s->fd = tp_fd(ch);
    s->shm = w->cfg->opts.conn_type == TP_CONN_SHMEM;
    s->mc = w->cfg->opts.conn_type == TP_CONN_SEQ_MCAST;
    s->from.addr = ++w->n_serial; /* its identity in the tracker (seqMCast: per message) */
    w->mc_any |= s->mc;
    w->sess[w->n_sess++] = s;
    return s;
}

/* The worker's "writer" role: it sends bursts of its own. */
static bool is_writer(const tperf_worker *w)
{
    return !w->cfg->reflect_msgs && w->cfg->msg_rate > 0;
}

/* Closes session i: prints why (NULL: an orderly close of ours), accounts its time, frees
 * it. A client that loses a connection that was active ends the test (docs/tools.md#transportperf).
 */
void worker_session_close(tperf_worker *w, int i, const char *why)
{
    tperf_session *s = w->sess[i];
    int64_t now = clk_ns();
    /* a client's failed attempts: each distinct reason once, however often it retries */
    bool retrying = !s->active && why && w->cfg->app_type == TPERF_CLIENT;
    if (!retrying || strcmp(w->errs.last, why) != 0)
        run_channel_closed(stdout, why);
    if (retrying)
        snprintf(w->errs.last, sizeof(w->errs.last), "%s", why);
    if (s->active) {
        w->disconnect_ns = now;
        if (s->sent > 0)
            w->conn_secs += (double)(now - s->active_ns) / 1e9;
        if (w->cfg->app_type == TPERF_CLIENT)
            sig_request_stop();
    }
    tperf_track_closing(w, s);
    tp_close(s->ch);
    free(s);
    w->sess[i] = w->sess[--w->n_sess];
    run_handoff_closed(&w->hand);
    if (w->cfg->app_type == TPERF_CLIENT && !w->ever_active)
        w->reconnect_ns = now + CLK_NS_PER_SEC;
}

/* Closes session i after a transport failure, with the transport's reason. A reader that
 * was too slow lost messages: the test failed. */
void worker_session_fail(tperf_worker *w, int i)
{
    char why[ERR_MSG_MAX];
    snprintf(why, sizeof(why), "%s", err_msg());
    if (run_channel_slow_reader(why))
        run_fail_set(&w->fail, RUN_EXIT_FAILED, "thread %d: %s", w->index + 1, why);
    worker_session_close(w, i, why);
}

/* The channel of session i became active. Returns 0, or -1 when the session was closed. */
static int session_activate(tperf_worker *w, int i)
{
    tperf_session *s = w->sess[i];
    const tperf_config *cfg = w->cfg;
    tp_info in;
    s->fd = tp_fd(s->ch);
    if (tp_get_info(s->ch, &in) < 0) {
        worker_session_fail(w, i);
        return -1;
    }
    run_channel_info_print(stdout, s->fd, &in);
    s->json = in.ws_protocol == TP_WS_PROTO_JSON2;
    run_tls_seen_add(&w->tls_seen, in.tls_version, in.tls_cipher);
    if (cfg->opts.high_water_mark > 0)
        tp_set_high_water_mark(s->ch, (uint32_t)cfg->opts.high_water_mark);
    if (cfg->pack > 1 && is_writer(w) && w->pack_bytes > (int64_t)in.max_fragment_size) {
        printf("Error(Channel %d): MaxFragmentSize %u is too small for packing buffer size "
               "%" PRId64 "\n",
               s->fd, in.max_fragment_size, w->pack_bytes);
        run_fail_set(&w->fail, RUN_EXIT_INVALID, "channel %d: -pack larger than a fragment", s->fd);
        sig_request_stop();
        worker_session_close(w, i, "packing buffer larger than the maximum fragment size");
        return -1;
    }
    s->active = true;
    s->active_ns = clk_ns();
    if (!w->ever_active)
        w->connect_ns = s->active_ns;
    w->ever_active = true;
    return 0;
}

/* Advances the handshake of session i. Returns 0, or -1 when the session was closed. */
static int session_init(tperf_worker *w, int i)
{
    int rc = tp_init(w->sess[i]->ch);
    if (rc == TP_ACTIVE)
        return session_activate(w, i);
    if (rc < 0) {
        worker_session_fail(w, i);
        return -1;
    }
    w->sess[i]->fd = tp_fd(w->sess[i]->ch);
    return 0;
}

/* Takes the channels the main thread handed over. */
static void take_incoming(tperf_worker *w)
{
    tp_channel *in[16];
    int n;
    while ((n = run_handoff_take(&w->hand, in, 16)) > 0)
        for (int k = 0; k < n; k++) {
            if (!session_add(w, in[k])) {
                printf("Error: thread %d: out of memory for a session.\n", w->index + 1);
                tp_close(in[k]);
                run_handoff_closed(&w->hand);
                continue;
            }
            if (tp_get_state(in[k]) == TP_STATE_ACTIVE)
                session_activate(w, w->n_sess - 1);
        }
}

/* Client: one connection attempt (the next one a second later when it fails). */
static void client_connect(tperf_worker *w)
{
    tp_channel *ch;
    tperf_mc_connect_line(w);
    w->reconnect_ns = clk_ns() + CLK_NS_PER_SEC;
    if (tp_connect(&w->opts, &ch) < 0) {
        run_conn_error(&w->errs, "Connection failed: %s\n", err_msg());
        return;
    }
    run_handoff_opened(&w->hand);
    if (!session_add(w, ch)) {
        printf("Error: thread %d: out of memory for a session.\n", w->index + 1);
        tp_close(ch);
        run_handoff_closed(&w->hand);
        return;
    }
    session_init(w, w->n_sess - 1);
}

/* ------------------------------------------------------------------------------------------ */
/* The loop                                                                                   */

/* The work of one tick: hand-overs, bursts, keep-alive, connection attempts. */
static void on_tick(tperf_worker *w, const tick *t, int64_t now)
{
    take_incoming(w);
    const bool writer = is_writer(w);
    for (int i = 0; i < w->n_sess;) {
        tperf_session *s = w->sess[i];
        if (s->active) {
            /* A tick that was due before the channel came up is not made up on it. */
            if (writer && tick_deadline(t) >= s->active_ns && worker_send_burst(w, i, t) < 0)
                continue;
        }
        /* keep-alive; a handshake that stalls makes no event, its time limit is checked here */
        if (tp_tick(s->ch, (uint64_t)now) < 0) {
            worker_session_fail(w, i);
            continue;
        }
        if (s->mc && s->active && !writer)
            tperf_track_publish(w, s); /* its pings */
        i++;
    }
    if (w->cfg->app_type == TPERF_CLIENT && !w->ever_active && w->n_sess == 0 &&
        now >= w->reconnect_ns)
        client_connect(w);
}

/* Reads, flushes and advances handshakes until `until` (CLOCK_MONOTONIC ns), or once without
 * waiting when it has passed. shm_nap is the shared-memory reader's pause, adapted here. */
static void io_pass(tperf_worker *w, int64_t until, int64_t *shm_nap)
{
    struct pollfd *fds = w->pfds; /* room for every session (session_add) */
    int *idx = w->pidx;
    const bool busy = w->cfg->busy_read;
    int n = 0, shm_readers = 0;

    for (int i = 0; i < w->n_sess; i++) {
        tperf_session *s = w->sess[i];
        if (s->shm && s->active) {
            shm_readers += w->cfg->app_type == TPERF_CLIENT;
            continue;
        }
        fds[n].fd = tp_fd(s->ch);
        fds[n].events = tp_events(s->ch);
        if (s->active && !s->want_flush)
            fds[n].events &= (short)~POLLOUT;
        fds[n].revents = 0;
        idx[n++] = i;
    }

    int64_t now = clk_ns();
    int64_t wait = until > now ? until - now : 0;
    if (wait > MAX_WAIT_NS)
        wait = MAX_WAIT_NS;
    if (shm_readers && wait > *shm_nap)
        wait = *shm_nap;
    if (busy)
        wait = 0;

    int ready = 0;
    if (n > 0) {
        struct timespec ts = clk_timespec(wait);
        if (busy) {
            /* Busy reading: no readiness check, every channel is read (and flushed) as is. */
            for (int k = 0; k < n; k++)
                fds[k].revents = (short)(fds[k].events | POLLIN);
            ready = n;
        } else {
            ready = ppoll(fds, (nfds_t)n, &ts, NULL);
            if (ready < 0 && errno != EINTR)
                printf("Error: poll: %s\n", strerror(errno));
        }
    } else if (wait > 0) {
        clk_sleep_until(now + wait);
    }

    /* Sessions are removed by swapping the last one in: walk the ready ones from the end so
     * that the indexes still to visit stay valid. */
    int64_t deadline = until > now ? until : now;
    for (int k = n - 1; k >= 0 && ready > 0; k--) {
        short re = fds[k].revents;
        if (!re)
            continue;
        int i = idx[k];
        tperf_session *s = w->sess[i];
        if (!s->active) {
            session_init(w, i);
            continue;
        }
        if ((re & (POLLIN | POLLERR | POLLHUP)) && worker_session_read(w, i, deadline) < 0)
            continue;
        if ((re & POLLOUT) || (busy && s->want_flush)) {
            int rc = tp_flush(s->ch);
            if (rc < 0) {
                worker_session_fail(w, i);
                continue;
            }
            s->want_flush = rc > 0;
        }
    }

    if (shm_readers) {
        uint64_t before = counter_total(&w->msgs_recv);
        for (int i = w->n_sess - 1; i >= 0; i--)
            if (w->sess[i]->shm && w->sess[i]->active)
                worker_session_read(w, i, deadline);
        if (counter_total(&w->msgs_recv) != before)
            *shm_nap = 0;
        else
            *shm_nap =
                *shm_nap ? (*shm_nap * 2 > SHM_NAP_MAX_NS ? SHM_NAP_MAX_NS : *shm_nap * 2) : 1000;
    }
}

/* The end of the run: output still queued is flushed (reading meanwhile, so that a
 * reflecting peer is not blocked), replies to what this side sent are awaited briefly, and
 * every channel is closed. */
static void finish(tperf_worker *w)
{
    int64_t start = clk_ns();
    int64_t nap = 0;
    bool sent_any = counter_total(&w->msgs_sent) > 0;
    bool recv_any = counter_total(&w->msgs_recv) > 0;

    for (int i = 0; i < w->n_sess; i++) {
        tperf_session *s = w->sess[i];
        if (s->active && s->sent > 0 && !w->cfg->reflect_msgs)
            w->conn_secs += (double)(start - s->active_ns) / 1e9;
        s->sent = 0; /* counted */
    }
    for (;;) {
        bool queued = false;
        for (int i = 0; i < w->n_sess; i++) {
            tperf_session *s = w->sess[i];
            if (s->active && !s->shm && tp_queued(s->ch) > 0) {
                s->want_flush = true;
                queued = true;
            }
        }
        int64_t now = clk_ns();
        if (!queued || now - start >= FINAL_FLUSH_NS)
            break;
        latbuf_poll(&w->lat);
        io_pass(w, now + 10 * 1000 * 1000, &nap);
    }
    if (sent_any && recv_any && !w->cfg->reflect_msgs) {
        int64_t t0 = clk_ns(), last = t0;
        uint64_t seen = counter_total(&w->msgs_recv);
        while (w->n_sess > 0) {
            int64_t now = clk_ns();
            if (now - last >= DRAIN_IDLE_NS || now - t0 >= DRAIN_MAX_NS)
                break;
            latbuf_poll(&w->lat);
            io_pass(w, now + 10 * 1000 * 1000, &nap);
            uint64_t got = counter_total(&w->msgs_recv);
            if (got != seen) {
                seen = got;
                last = clk_ns();
            }
        }
    }
    while (w->n_sess > 0) {
        tperf_session *s = w->sess[w->n_sess - 1];
        bool was_active = s->active;
        s->active = false; /* an orderly close: no "channel lost" */
        if (was_active)
            w->disconnect_ns = clk_ns();
        worker_session_close(w, w->n_sess - 1, NULL);
    }
}

static void *worker_main(void *arg)
{
    tperf_worker *w = arg;
    const tperf_config *cfg = w->cfg;
    tick_tighten_slack();
    if (w->cpu && cpu_bind(w->cpu) != 0) {
        printf("Error: Failed to bind thread %d: %s\n", w->index + 1, err_msg());
        run_fail_stop(&w->fail, "binding the thread");
        latbuf_close(&w->lat);
        return NULL;
    }
    int64_t now = clk_ns();
    tick_init(&w->sched, (uint32_t)cfg->opts.tick_rate, now + CLK_NS_PER_SEC / cfg->opts.tick_rate);
    if (cfg->app_type == TPERF_CLIENT)
        client_connect(w);

    int64_t nap = 0;
    while (!sig_stop_requested()) {
        latbuf_poll(&w->lat);
        now = clk_ns();
        if (tick_poll(&w->sched, now))
            on_tick(w, &w->sched, now);
        io_pass(w, w->sched.next_ns, &nap);
    }
    finish(w);
    latbuf_close(&w->lat);
    return NULL;
}

int worker_start(tperf_worker *w)
{
    return sig_thread_start(&w->thread, worker_main, w, "thread", w->index + 1);
}
