#include "collect.h"

#include "clk.h"
#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long the main thread waits for a worker to hand its latency set over (a worker polls at
 * every tick and every 50 ms while connecting). */
#define CONS_COLLECT_WAIT_NS (200 * 1000000LL)

/* Samples moved out of a latency ring per batch. */
#define CONS_SAMPLE_BATCH 4096

static const char *const sample_name[] = {"Upd", "Pst", "Gen"};

int cons_collect_init(cons_collector *c, cons_run *run)
{
    memset(c, 0, sizeof(*c));
    c->run = run;
    c->cfg = run->cfg;
    c->tot = calloc((size_t)run->thread_count, sizeof(*c->tot));
    c->samples_cap = CONS_SAMPLE_BATCH;
    c->samples = calloc(c->samples_cap, sizeof(*c->samples));
    if (!c->tot || !c->samples)
        return err_set("out of memory for the statistics");
    for (int i = 0; i < run->thread_count; i++) {
        cons_totals *t = &c->tot[i];
        for (int k = 0; k < CONS_LAT_KINDS; k++)
            lat_reset(&t->l[k]);
        if (cons_stats_open(&t->stats, c->cfg, i + 1) < 0 ||
            cons_latency_open(&t->latlog, c->cfg, i + 1) < 0)
            return -1;
    }
    c->res_ok = res_init(&c->res) == 0;
    return 0;
}

void cons_collect_free(cons_collector *c)
{
    if (c->tot) {
        for (int i = 0; i < c->run->thread_count; i++) {
            out_csv_close(&c->tot[i].stats);
            out_csv_close(&c->tot[i].latlog);
        }
    }
    free(c->tot);
    free(c->samples);
    c->tot = NULL;
    c->samples = NULL;
}

/* Moves a thread's raw latency samples to its latency log, and says on stderr how many the
 * worker could not queue since the last time (ring full). */
static void drain_samples(cons_collector *c, cons_thread *t, cons_totals *tot)
{
    if (!t->has_ring)
        return;
    size_t n;
    while ((n = latring_pop(&t->ring, c->samples, c->samples_cap)) > 0)
        for (size_t i = 0; i < n; i++) {
            const latring_sample *s = &c->samples[i];
            out_latlog_row(&tot->latlog, sample_name[s->type < 3 ? s->type : 0], (uint64_t)s->send,
                           (uint64_t)s->recv);
        }
    out_latlog_flush(&tot->latlog);
    uint64_t dropped = latring_dropped(&t->ring);
    if (dropped != tot->log_dropped) {
        fprintf(stderr,
                "Warning: %" PRIu64 " latency samples of thread %d were not written to %s "
                "(more than %zu samples between two writes).\n",
                dropped - tot->log_dropped, t->index + 1, tot->latlog.path,
                (size_t)(t->ring.mask + 1));
        tot->log_dropped = dropped;
    }
}

void cons_collect_samples(cons_collector *c)
{
    for (int i = 0; i < c->run->thread_count; i++)
        drain_samples(c, &c->run->threads[i], &c->tot[i]);
}

/* Takes a thread's latency set of the interval (or its last one) into the totals, and its
 * interval summaries into iv when iv is not NULL. Returns false when the worker did not hand
 * a set over in time. */
static bool take_latency(cons_collector *c, cons_thread *t, cons_totals *tot, cons_interval *iv)
{
    const lat *set = latbuf_collect(&t->lat, CONS_COLLECT_WAIT_NS);
    drain_samples(c, t, tot);
    if (!set)
        return false;
    for (int k = 0; k < CONS_LAT_KINDS; k++)
        if (set[k].count)
            lat_merge(&tot->l[k], &set[k]);
    if (!iv)
        return true;
    lat_summary(&set[CONS_LAT_UPD], &iv->lat);
    lat_summary(&set[CONS_LAT_SCH], &iv->lat_sched);
    lat_summary(&set[CONS_LAT_POST], &iv->post_lat);
    lat_summary(&set[CONS_LAT_POST_SCH], &iv->post_sched);
    lat_summary(&set[CONS_LAT_GEN], &iv->genmsg_lat);
    lat_summary(&set[CONS_LAT_GEN_SCH], &iv->genmsg_sched);
    lat_summary(&set[CONS_LAT_DECODE], &iv->decode);
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
    const unsigned secs = (unsigned)cfg->write_stats_interval;
    const int n = c->run->thread_count;
    if (c->res_ok)
        res_sample(&c->res);
    time_t wall = time(NULL);
    for (int i = 0; i < n; i++) {
        cons_thread *t = &c->run->threads[i];
        cons_totals *tot = &c->tot[i];
        cons_interval iv;
        memset(&iv, 0, sizeof(iv));
        take_latency(c, t, tot, &iv);
        iv.refreshes = counter_change(&t->c.refreshes);
        iv.updates = counter_change(&t->c.startup_updates) + counter_change(&t->c.steady_updates);
        iv.posts_sent = counter_change(&t->c.posts_sent);
        iv.post_out_of_bufs = counter_change(&t->c.post_out_of_bufs);
        iv.genmsgs_sent = counter_change(&t->c.genmsgs_sent);
        iv.genmsgs_recv = counter_change(&t->c.genmsgs_recv);
        iv.genmsg_lat_sent = counter_change(&t->c.genmsg_lat_sent);
        iv.genmsg_out_of_bufs = counter_change(&t->c.genmsg_out_of_bufs);
        iv.status_msgs = counter_change(&t->c.status_msgs);
        iv.cpu = c->res.cpu;
        iv.mem_mb = c->res.mem;
        uint64_t end = atomic_load_explicit(&t->image_end_ns, memory_order_acquire);
        if (end && !tot->image_shown) {
            tot->image_shown = true;
            iv.image_items = (int)t->share.count;
            iv.image_ns = end - atomic_load_explicit(&t->image_start_ns, memory_order_relaxed);
        }
        if (display)
            cons_report_interval(stdout, sec, i + 1, n, secs, &iv);
        if (cons_report_stats_row(&tot->stats, wall, secs, &iv) < 0)
            fprintf(stderr, "%s\n", err_msg());
    }
    if (n > 1 && !c->overall_shown) {
        uint64_t end = cons_collect_images_end(c->run);
        if (end) {
            c->overall_shown = true;
            if (display)
                cons_report_overall_images(stdout, cfg->item_count, end - images_start(c->run));
        }
    }
    fflush(stdout);
}

void cons_collect_final(cons_collector *c)
{
    /* One take is not always enough: when an interval's hand-over timed out and the worker
     * acknowledged it afterwards, the first take returns the set it left then, and only the
     * next one its last active set. A joined worker has closed its recorders, so this ends
     * within two takes; one that never started answers nothing and is left after a timeout. */
    for (int i = 0; i < c->run->thread_count; i++) {
        cons_thread *t = &c->run->threads[i];
        while (!latbuf_done(&t->lat) && take_latency(c, t, &c->tot[i], NULL))
            ;
    }
}

static void fill_thread(cons_thread *mt, const cons_totals *tot, cons_stats *s)
{
    memset(s, 0, sizeof(*s));
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
    lat_summary(&tot->l[CONS_LAT_UPD_STARTUP], &s->startup_lat);
    lat_summary(&tot->l[CONS_LAT_UPD_STEADY], &s->steady_lat);
    lat_summary(&tot->l[CONS_LAT_UPD], &s->overall_lat);
    lat_summary(&tot->l[CONS_LAT_POST], &s->post_lat);
    lat_summary(&tot->l[CONS_LAT_GEN], &s->genmsg_lat);
    lat_summary(&tot->l[CONS_LAT_SCH_STARTUP], &s->startup_sched);
    lat_summary(&tot->l[CONS_LAT_SCH_STEADY], &s->steady_sched);
    lat_summary(&tot->l[CONS_LAT_SCH], &s->overall_sched);
    lat_summary(&tot->l[CONS_LAT_POST_SCH], &s->post_sched);
    lat_summary(&tot->l[CONS_LAT_GEN_SCH], &s->genmsg_sched);
    if (atomic_load_explicit(&mt->failed, memory_order_acquire))
        snprintf(s->error, sizeof(s->error), "%s", t->error);
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
    s->item_count = c->cfg->item_count;
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
    lat *sum = malloc(sizeof(*sum));
    if (!sum)
        return err_set("out of memory for the summary");
    for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++) {
        lat_reset(sum);
        for (int i = 0; i < n; i++)
            lat_merge(sum, &c->tot[i].l[map[m].kind]);
        lat_summary(sum, (stat_lat *)((char *)s + map[m].off));
    }
    free(sum);
    return 0;
}

int cons_collect_result(cons_collector *c, cons_result *out, cons_stats *thread, uint64_t now_ns)
{
    const int n = c->run->thread_count;
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < n; i++)
        fill_thread(&c->run->threads[i], &c->tot[i], &thread[i]);
    out->thread_count = n;
    out->thread = thread;
    out->now_ns = now_ns;
    if (n == 1) {
        out->total = thread[0];
        out->total.item_count = c->cfg->item_count;
    } else if (fill_total(c, thread, &out->total) < 0) {
        return -1;
    }
    res_summary(&c->res, &out->res);
    return 0;
}
