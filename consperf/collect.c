#include "collect.h"

#include "clk.h"
#include "err.h"
#include "run_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The run-time's collector looks at each thread's hand-over and, with -latencyFile, its ring. */
static void watch(cons_collector *c)
{
    for (int i = 0; i < c->run->thread_count; i++) {
        cons_thread *t = &c->run->threads[i];
        run_col_watch(&c->col, i, &t->lat, t->has_ring ? &t->ring : NULL);
    }
}

/* The tags of the latency kinds in the histogram logs (-histogramLog); the first is the main. */
static const char *const hlog_tags[CONS_LAT_KINDS] = {
    [CONS_LAT_UPD] = "update",    [CONS_LAT_SCH] = "sched-update",
    [CONS_LAT_POST] = "post",     [CONS_LAT_POST_SCH] = "sched-post",
    [CONS_LAT_GEN] = "genmsg",    [CONS_LAT_GEN_SCH] = "sched-genmsg",
    [CONS_LAT_DECODE] = "decode",
};

int cons_collect_init(cons_collector *c, cons_run *run)
{
    memset(c, 0, sizeof(*c));
    c->run = run;
    c->cfg = run->cfg;
    c->image_shown = calloc((size_t)run->thread_count, sizeof(*c->image_shown));
    if (!c->image_shown)
        return err_set("out of memory for the statistics");
    if (run_col_init(&c->col, run->thread_count, CONS_LAT_KINDS, c->cfg->opts.tick_rate) < 0)
        return -1;
    for (int i = 0; i < run->thread_count; i++)
        if (cons_stats_open(run_col_stats(&c->col, i), c->cfg, i + 1) < 0 ||
            run_file_latency(run_col_latlog(&c->col, i), c->cfg->opts.latency_file, i + 1, 0,
                             true) < 0)
            return -1;
    if (c->cfg->opts.histogram_log[0] &&
        run_col_hlog(&c->col, c->cfg->opts.histogram_log, 0, "ConsPerf", hlog_tags) < 0)
        return -1;
    watch(c);
    return 0;
}

void cons_collect_free(cons_collector *c)
{
    run_col_free(&c->col);
    free(c->image_shown);
    c->image_shown = NULL;
}

void cons_collect_samples(cons_collector *c)
{
    watch(c);
    run_col_drain_all(&c->col);
}

/* Takes a thread's latency set of the interval into iv's summaries; false when the worker did
 * not hand a set over in time. */
static bool take_latency(cons_collector *c, int i, cons_interval *iv)
{
    const lat *set = run_col_take(&c->col, i);
    if (!set)
        return false;
    lat_summary(&set[CONS_LAT_UPD], &iv->lat);
    lat_summary(&set[CONS_LAT_SCH], &iv->lat_sched);
    lat_summary(&set[CONS_LAT_POST], &iv->post_lat);
    lat_summary(&set[CONS_LAT_POST_SCH], &iv->post_sched);
    lat_summary(&set[CONS_LAT_GEN], &iv->genmsg_lat);
    lat_summary(&set[CONS_LAT_GEN_SCH], &iv->genmsg_sched);
    lat_summary(&set[CONS_LAT_DECODE], &iv->decode);
    lat_summary(&set[CONS_LAT_TUNNEL_BUFS], &iv->tunnel_bufs);
    return true;
}

uint64_t cons_collect_images_end(const cons_run *run)
{
    uint64_t end = 0;
    for (int i = 0; i < run->thread_count; i++) {
        cons_thread *t = &run->threads[i];
        if (!cons_thread_has_items(t))
            continue;
        uint64_t e = atomic_load_explicit(&t->image_end_ns, memory_order_acquire);
        if (!e)
            return 0;
        if (e > end)
            end = e;
    }
    return end;
}

static uint64_t images_start(const cons_run *run)
{
    uint64_t start = 0;
    for (int i = 0; i < run->thread_count; i++) {
        uint64_t s = atomic_load_explicit(&run->threads[i].image_start_ns, memory_order_relaxed);
        if (s && (!start || s < start))
            start = s;
    }
    return start;
}

void cons_collect_interval(cons_collector *c, unsigned sec, bool display)
{
    const cons_config *cfg = c->cfg;
    const unsigned secs = (unsigned)cfg->opts.write_stats_interval;
    const int n = c->run->thread_count;
    watch(c);
    run_col_interval(&c->col);
    for (int i = 0; i < n; i++) {
        cons_thread *t = &c->run->threads[i];
        cons_interval iv;
        memset(&iv, 0, sizeof(iv));
        take_latency(c, i, &iv);
        iv.refreshes = counter_change(&t->c.refreshes);
        iv.updates = counter_change(&t->c.startup_updates) + counter_change(&t->c.steady_updates);
        iv.posts_sent = counter_change(&t->c.posts_sent);
        iv.post_out_of_bufs = counter_change(&t->c.post_out_of_bufs);
        iv.genmsgs_sent = counter_change(&t->c.genmsgs_sent);
        iv.genmsgs_recv = counter_change(&t->c.genmsgs_recv);
        iv.genmsg_lat_sent = counter_change(&t->c.genmsg_lat_sent);
        iv.genmsg_out_of_bufs = counter_change(&t->c.genmsg_out_of_bufs);
        iv.status_msgs = counter_change(&t->c.status_msgs);
        iv.cpu = c->col.cpu;
        iv.mem_mb = c->col.mem_mb;
        uint64_t end = atomic_load_explicit(&t->image_end_ns, memory_order_acquire);
        if (end && !c->image_shown[i]) {
            c->image_shown[i] = true;
            iv.image_items = (int)t->share.count;
            iv.image_ns = end - atomic_load_explicit(&t->image_start_ns, memory_order_relaxed);
        }
        if (display)
            cons_report_interval(stdout, sec, i + 1, n, secs, &iv);
        run_col_row_done(&c->col, i,
                         cons_report_stats_row(run_col_stats(&c->col, i), c->col.wall, secs, &iv));
    }
    if (n > 1 && !c->overall_shown) {
        uint64_t end = cons_collect_images_end(c->run);
        if (end) {
            c->overall_shown = true;
            if (display)
                cons_report_overall_images(stdout, cfg->opts.item_count,
                                           end - images_start(c->run));
        }
    }
    fflush(stdout);
}

void cons_collect_final(cons_collector *c)
{
    watch(c);
    run_col_final(&c->col);
}

static void fill_thread(cons_collector *c, int i, cons_stats *s)
{
    memset(s, 0, sizeof(*s));
    cons_thread *mt = &c->run->threads[i];
    const cons_thread *t = mt;
    s->item_count = (int)t->share.count;
    s->image_start_ns = atomic_load(&mt->image_start_ns);
    s->image_end_ns = atomic_load(&mt->image_end_ns);
    s->first_update_ns = atomic_load(&mt->first_update_ns);
    s->first_genmsg_sent_ns = atomic_load(&mt->first_gen_sent_ns);
    s->first_genmsg_recv_ns = atomic_load(&mt->first_gen_recv_ns);
    s->requests = counter_total(&mt->c.requests);
    s->refreshes = counter_total(&mt->c.refreshes);
    s->startup_updates = counter_total(&mt->c.startup_updates);
    s->steady_updates = counter_total(&mt->c.steady_updates);
    s->posts_sent = counter_total(&mt->c.posts_sent);
    s->genmsgs_sent = counter_total(&mt->c.genmsgs_sent);
    s->genmsgs_recv = counter_total(&mt->c.genmsgs_recv);
    s->genmsg_lat_sent = counter_total(&mt->c.genmsg_lat_sent);
    run_col_summary(&c->col, i, CONS_LAT_UPD_STARTUP, &s->startup_lat);
    run_col_summary(&c->col, i, CONS_LAT_UPD_STEADY, &s->steady_lat);
    run_col_summary(&c->col, i, CONS_LAT_UPD, &s->overall_lat);
    run_col_summary(&c->col, i, CONS_LAT_POST, &s->post_lat);
    run_col_summary(&c->col, i, CONS_LAT_GEN, &s->genmsg_lat);
    run_col_summary(&c->col, i, CONS_LAT_SCH_STARTUP, &s->startup_sched);
    run_col_summary(&c->col, i, CONS_LAT_SCH_STEADY, &s->steady_sched);
    run_col_summary(&c->col, i, CONS_LAT_SCH, &s->overall_sched);
    run_col_summary(&c->col, i, CONS_LAT_POST_SCH, &s->post_sched);
    run_col_summary(&c->col, i, CONS_LAT_GEN_SCH, &s->genmsg_sched);
    s->wsb_switches = atomic_load(&mt->wsb_switches);
    s->wsb_switch_ns = atomic_load(&mt->wsb_switch_ns);
    s->wsb_promote_ns = atomic_load(&mt->wsb_promote_ns);
    s->wsb_first_ns = atomic_load(&mt->wsb_first_ns);
    s->wsb_items_open = mt->wsb_items_open;
    s->status_msgs = counter_total(&mt->c.status_msgs);
    if (run_fail_status(&mt->fail))
        snprintf(s->error, sizeof(s->error), "%s", run_fail_text(&mt->fail));
}

static uint64_t min_nonzero(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

/* The run's totals from several threads: counts add up, the image span is the earliest start
 * to the latest end (when every thread with items has its images), latencies merge (startup
 * and steady state as classified against the run). */
static int fill_total(cons_collector *c, const cons_stats *thread, cons_stats *s)
{
    const int n = c->run->thread_count;
    memset(s, 0, sizeof(*s));
    s->item_count = c->cfg->opts.item_count;
    for (int i = 0; i < n; i++) {
        const cons_stats *t = &thread[i];
        s->image_start_ns = min_nonzero(s->image_start_ns, t->image_start_ns);
        s->first_update_ns = min_nonzero(s->first_update_ns, t->first_update_ns);
        s->first_genmsg_sent_ns = min_nonzero(s->first_genmsg_sent_ns, t->first_genmsg_sent_ns);
        s->first_genmsg_recv_ns = min_nonzero(s->first_genmsg_recv_ns, t->first_genmsg_recv_ns);
        s->requests += t->requests;
        s->refreshes += t->refreshes;
        s->startup_updates += t->startup_updates;
        s->steady_updates += t->steady_updates;
        s->posts_sent += t->posts_sent;
        s->genmsgs_sent += t->genmsgs_sent;
        s->genmsgs_recv += t->genmsgs_recv;
        s->genmsg_lat_sent += t->genmsg_lat_sent;
        s->wsb_switches += t->wsb_switches;
        s->wsb_items_open += t->wsb_items_open;
        s->status_msgs += t->status_msgs;
        /* the longest switch-over; -1 (no update after a switch) wins */
        if (t->wsb_switches && s->wsb_switch_ns >= 0)
            s->wsb_switch_ns = t->wsb_switch_ns < 0 || t->wsb_switch_ns > s->wsb_switch_ns
                                   ? t->wsb_switch_ns
                                   : s->wsb_switch_ns;
        if (t->wsb_switches && t->wsb_promote_ns > s->wsb_promote_ns)
            s->wsb_promote_ns = t->wsb_promote_ns;
        if (t->wsb_switches && s->wsb_first_ns >= 0)
            s->wsb_first_ns = t->wsb_first_ns < 0 || t->wsb_first_ns > s->wsb_first_ns
                                  ? t->wsb_first_ns
                                  : s->wsb_first_ns;
    }
    s->image_end_ns = cons_collect_images_end(c->run);
    static const struct {
        int kind;
        size_t off;
    } map[] = {
        {CONS_LAT_UPD_T_STARTUP, offsetof(cons_stats, startup_lat)},
        {CONS_LAT_UPD_T_STEADY, offsetof(cons_stats, steady_lat)},
        {CONS_LAT_UPD, offsetof(cons_stats, overall_lat)},
        {CONS_LAT_POST, offsetof(cons_stats, post_lat)},
        {CONS_LAT_GEN, offsetof(cons_stats, genmsg_lat)},
        {CONS_LAT_SCH_T_STARTUP, offsetof(cons_stats, startup_sched)},
        {CONS_LAT_SCH_T_STEADY, offsetof(cons_stats, steady_sched)},
        {CONS_LAT_SCH, offsetof(cons_stats, overall_sched)},
        {CONS_LAT_POST_SCH, offsetof(cons_stats, post_sched)},
        {CONS_LAT_GEN_SCH, offsetof(cons_stats, genmsg_sched)},
    };
    for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++)
        if (run_col_summary(&c->col, -1, (size_t)map[m].kind,
                            (stat_lat *)((char *)s + map[m].off)) < 0)
            return -1;
    return 0;
}

int cons_collect_result(cons_collector *c, cons_result *out, cons_stats *thread, uint64_t now_ns)
{
    const int n = c->run->thread_count;
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < n; i++)
        fill_thread(c, i, &thread[i]);
    out->thread_count = n;
    out->thread = thread;
    out->now_ns = now_ns;
    if (n == 1) {
        out->total = thread[0];
        out->total.item_count = c->cfg->opts.item_count;
    } else if (fill_total(c, thread, &out->total) < 0) {
        return -1;
    }
    run_col_res(&c->col, &out->res);
    return 0;
}
