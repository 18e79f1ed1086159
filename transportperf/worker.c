#include "worker_int.h"

#include "clk.h"
#include "err.h"
#include "lat.h"
#include "msg.h"
#include "sig.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

    w->link = (run_link){.side = cfg->app_type == TPERF_CLIENT ? RUN_CLIENT : RUN_SERVER,
                         .protocol_type = TP_PROTOCOL_TRANSPORTPERF,
                         .thread = index};
    return tperf_mc_init(w);
}

void worker_free(tperf_worker *w)
{
    run_drv_free(&w->drv); /* closes what the loop still held */
    for (int i = 0; i < w->n_sess; i++)
        free(w->sess[i]);
    free(w->sess);
    run_handoff_free(&w->hand);
    tperf_track_free(w);
    latbuf_free(&w->lat);
    if (w->ring_on)
        latring_free(&w->ring);
}

/* ------------------------------------------------------------------------------------------ */
/* Sessions                                                                                   */

/* The "writer" role of a run configured by cfg: it sends bursts of its own. */
static bool cfg_writes(const tperf_config *cfg)
{
    return !cfg->reflect_msgs && cfg->msg_rate > 0;
}

static bool is_writer(const tperf_worker *w)
{
    return cfg_writes(w->cfg);
}

bool tperf_burst_hwm(const tperf_config *cfg, const tp_info *in)
{
    return cfg_writes(cfg) && cfg->opts.high_water_mark <= 0 && in->conn_type == TP_CONN_SOCKET;
}

/* A new session for the driver's channel c, listed with the worker's; NULL when memory ran
 * out. */
static tperf_session *session_add(tperf_worker *w, run_drv_ch *c)
{
    if (w->n_sess == w->cap_sess) {
        int cap = w->cap_sess ? 2 * w->cap_sess : 4;
        tperf_session **m = realloc(w->sess, (size_t)cap * sizeof(*m));
        if (!m)
            return NULL;
        w->sess = m;
        w->cap_sess = cap;
    }
    tperf_session *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->ch = c->ch;
    s->dc = c;
    s->fd = c->fd;
    s->mc = w->cfg->opts.conn_type == TP_CONN_SEQ_MCAST;
    s->from.addr = ++w->n_serial; /* its identity in the tracker (seqMCast: per message) */
    w->mc_any |= s->mc;
    w->sess[w->n_sess++] = s;
    c->user = s;
    return s;
}

/* run_drv_ops.up: prints the channel, checks that a packed buffer fits its fragments, and
 * starts its session. */
static int on_up(void *arg, run_drv_ch *c)
{
    tperf_worker *w = arg;
    const tperf_config *cfg = w->cfg;
    tp_info in;
    if (tp_get_info(c->ch, &in) < 0)
        return RUN_DRV_CLOSE;
    run_channel_info_print(stdout, c->fd, &in);
    run_tls_seen_add(&w->tls_seen, in.tls_version, in.tls_cipher);
    if (cfg->pack > 1 && is_writer(w) && w->pack_bytes > (int64_t)in.max_fragment_size) {
        printf("Error(Channel %d): MaxFragmentSize %u is too small for packing buffer size "
               "%" PRId64 "\n",
               c->fd, in.max_fragment_size, w->pack_bytes);
        err_set("channel %d: -pack larger than a fragment", c->fd);
        run_drv_mark(&w->drv, RUN_EXIT_INVALID, NULL);
        sig_request_stop();
        return err_set("packing buffer larger than the maximum fragment size"), RUN_DRV_CLOSE;
    }
    tperf_session *s = session_add(w, c);
    if (!s)
        return err_set("thread %d: out of memory for a session", w->index + 1), RUN_DRV_CLOSE;
    s->json = in.ws_protocol == TP_WS_PROTO_JSON2;
    s->burst_hwm = tperf_burst_hwm(cfg, &in);
    if (s->burst_hwm)
        tp_set_high_water_mark(c->ch, RUN_BURST_HWM);
    s->active = true;
    s->active_ns = c->up_ns;
    tp_stats st;
    tp_get_stats(c->ch, &st);
    s->written_mark = st.bytes_written;
    if (!w->ever_active)
        w->connect_ns = s->active_ns;
    w->ever_active = true;
    return 0;
}

/* run_drv_ops.down: prints why (NULL: an orderly close of ours), accounts the connection's
 * time and frees its session. A reader that was too slow lost messages: the test failed. A
 * client that loses a connection that was up ends the test (docs/tools.md#transportperf). */
static void on_down(void *arg, run_drv_ch *c, const char *why)
{
    tperf_worker *w = arg;
    tperf_session *s = c->user;
    int64_t now = clk_ns();
    if (why && run_channel_slow_reader(why)) {
        err_set("thread %d: %s", w->index + 1, why);
        run_drv_mark(&w->drv, RUN_EXIT_FAILED, NULL);
    }
    run_channel_closed(stdout, why);
    if (!s)
        return; /* a server's channel that never came up */
    w->disconnect_ns = now;
    if (s->active && why) {
        if (s->sent > 0)
            w->conn_secs += (double)(now - s->active_ns) / 1e9;
        if (w->cfg->app_type == TPERF_CLIENT)
            sig_request_stop();
    }
    tperf_track_closing(w, s);
    for (int i = 0; i < w->n_sess; i++)
        if (w->sess[i] == s) {
            w->sess[i] = w->sess[--w->n_sess];
            break;
        }
    free(s);
    c->user = NULL;
}

/* run_drv_ops.connecting: the client's "Attempting ..." line. */
static void on_connecting(void *arg)
{
    tperf_mc_connect_line(arg);
}

/* run_drv_ops.connect_failed: each distinct reason once, however often the client retries. */
static void on_connect_failed(void *arg, run_drv_stage stage, const char *why, bool repeat)
{
    (void)arg;
    if (repeat)
        return;
    if (stage == RUN_DRV_AT_CONNECT)
        printf("Connection failed: %s\n", why);
    else
        run_channel_closed(stdout, why);
}

/* run_drv_ops.tick: the bursts of every session that was up when the tick was due. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    tperf_worker *w = arg;
    (void)now;
    const bool writer = is_writer(w);
    for (int i = 0; i < w->n_sess;) {
        tperf_session *s = w->sess[i];
        /* A tick that was due before the channel came up is not made up on it. */
        if (writer && s->active && tick_deadline(t) >= s->active_ns &&
            worker_send_burst(w, s, t) < 0)
            continue; /* closed: slot i now holds another session */
        if (s->mc && s->active && !writer)
            tperf_track_publish(w, s); /* its pings */
        i++;
    }
    return 0;
}

/* run_drv_ops.end: output still queued is flushed (reading meanwhile, so that a reflecting
 * peer is not blocked), and replies to what this side sent are awaited briefly; the driver
 * then closes every channel. */
static void on_end(void *arg)
{
    tperf_worker *w = arg;
    int64_t start = clk_ns();
    bool sent_any = counter_total(&w->msgs_sent) > 0;
    bool recv_any = counter_total(&w->msgs_recv) > 0;

    for (int i = 0; i < w->n_sess; i++) {
        tperf_session *s = w->sess[i];
        if (s->active && s->sent > 0 && !w->cfg->reflect_msgs)
            w->conn_secs += (double)(start - s->active_ns) / 1e9;
        s->sent = 0;       /* counted */
        s->active = false; /* an orderly close from now on: no "channel lost" */
    }
    for (;;) {
        bool queued = false;
        for (int i = 0; i < w->n_sess; i++)
            queued |= !w->sess[i]->dc->shm && tp_queued(w->sess[i]->ch) > 0;
        int64_t now = clk_ns();
        if (!queued || now - start >= FINAL_FLUSH_NS)
            break;
        run_drv_io(&w->drv, now + 10 * 1000 * 1000);
    }
    if (sent_any && recv_any && !w->cfg->reflect_msgs) {
        int64_t t0 = clk_ns(), last = t0;
        uint64_t seen = counter_total(&w->msgs_recv);
        while (w->n_sess > 0) {
            int64_t now = clk_ns();
            if (now - last >= DRAIN_IDLE_NS || now - t0 >= DRAIN_MAX_NS)
                break;
            run_drv_io(&w->drv, now + 10 * 1000 * 1000);
            uint64_t got = counter_total(&w->msgs_recv);
            if (got != seen) {
                seen = got;
                last = clk_ns();
            }
        }
    }
}

static const run_drv_ops ops = {
    .tick = on_tick,
    .up = on_up,
    .msg = worker_on_read,
    .msgs = worker_on_reads,
    .frames = worker_on_frames,
    .batch = worker_on_batch,
    .down = on_down,
    .connecting = on_connecting,
    .connect_failed = on_connect_failed,
    .end = on_end,
};

static void *worker_main(void *arg)
{
    tperf_worker *w = arg;
    const tperf_config *cfg = w->cfg;
    if (w->cpu && cpu_bind(w->cpu) != 0) {
        printf("Error: Failed to bind thread %d: %s\n", w->index + 1, err_msg());
        run_fail_stop(&w->fail, "binding the thread");
        latbuf_close(&w->lat);
        return NULL;
    }
    run_drv_cfg dc = {
        .tool = w,
        .ops = &ops,
        .tick_rate = (uint32_t)cfg->opts.tick_rate,
        .tk = &w->sched,
        .lat = &w->lat,
        .fail = &w->fail,
        .hand = &w->hand,
        .connect = cfg->app_type == TPERF_CLIENT ? &cfg->opts : NULL,
        .link = w->link,
        /* After a read that emptied a socket, back to the wait: one more recv() there mostly
         * finds nothing (docs/performance.md#transportperf); a shared-memory ring is read on,
         * which costs no system call. */
        .read_on = cfg->opts.conn_type == TP_CONN_SHMEM,
        .busy_read = cfg->busy_read,
    };
    if (run_drv_init(&w->drv, &dc) != 0)
        run_fail_stop(&w->fail, NULL);
    else
        run_drv_run(&w->drv);
    latbuf_close(&w->lat);
    return NULL;
}

int worker_start(tperf_worker *w)
{
    return sig_thread_start(&w->thread, worker_main, w, "thread", w->index + 1);
}
