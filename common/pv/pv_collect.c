/* The main thread's side of a provider's statistics: each interval, and at the end. */
#include "pv_collect.h"

#include "clk.h"
#include "err.h"
#include "run_prog.h"
#include "run_setup.h"

#include <stdlib.h>
#include <string.h>

int pv_collect_init(pv_collect *c, const pv_collect_spec *spec, const pv_config *pv, int n)
{
    memset(c, 0, sizeof(*c));
    c->spec = *spec;
    c->pv = pv;
    c->n = n;
    c->stats = calloc((size_t)n, sizeof(*c->stats));
    c->sum = calloc((size_t)n, sizeof(*c->sum));
    c->st = calloc((size_t)n, sizeof(*c->st));
    if (!c->stats || !c->sum || !c->st)
        return err_set("out of memory for the statistics of %d threads", n);
    if (run_col_init(&c->col, n, PV_LAT_KINDS, pv->opts.tick_rate) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (spec->stats_open(run_col_stats(&c->col, i), pv, i + 1) != 0)
            return -1;
        if (spec->latency_file &&
            run_file_latency(run_col_latlog(&c->col, i), spec->latency_file, i + 1, 0, true) != 0)
            return -1;
    }
    if (pv->opts.histogram_log[0] && spec->hlog_tags &&
        run_col_hlog(&c->col, pv->opts.histogram_log, 0, spec->tool, spec->hlog_tags) != 0)
        return -1;
    return 0;
}

void pv_collect_thread(pv_collect *c, int i, pv_stats *s)
{
    c->stats[i] = s;
}

void pv_collect_watch(pv_collect *c, int i)
{
    pv_stats *s = c->stats[i];
    run_col_watch(&c->col, i, &s->lat, c->spec.latency_file ? &s->ring : NULL);
}

void pv_collect_free(pv_collect *c)
{
    run_col_free(&c->col);
    free(c->stats);
    free(c->sum);
    free(c->st);
    memset(c, 0, sizeof(*c));
}

/* Moves thread i's counts since the last call into iv and the thread's sums. */
static void take_counts(pv_collect *c, int i, pv_interval *iv)
{
    pv_counts d;
    pv_stats_take(c->stats[i], &d, &c->sum[i]);
    iv->requests = d.requests;
    iv->refreshes = d.refreshes;
    iv->updates = d.updates;
    iv->posts = d.posts;
    iv->closes = d.closes;
    iv->out_of_bufs = d.out_of_bufs;
    iv->genmsgs_sent = d.genmsgs_sent;
    iv->genmsgs_recv = d.genmsgs_recv;
    iv->genmsg_lat_sent = d.genmsg_lat_sent;
    iv->msgs_packed = d.msgs_packed;
    iv->buffers_sent = d.packs;
    c->requests_total += iv->requests;
    c->refreshes_total += iv->refreshes;
    iv->requests_total = c->requests_total;
    iv->refreshes_total = c->refreshes_total;
}

void pv_collect_interval(pv_collect *c, unsigned sec, unsigned interval_secs)
{
    run_col_interval(&c->col);
    for (int i = 0; i < c->n; i++) {
        pv_interval iv;
        memset(&iv, 0, sizeof(iv));
        take_counts(c, i, &iv);
        const lat *set = run_col_take(&c->col, i);
        if (set) {
            lat_summary(&set[PV_LAT_GENMSG], &iv.genmsg_lat);
            lat_summary(&set[PV_LAT_GENMSG_SCHED], &iv.genmsg_sched);
            lat_summary(&set[PV_LAT_ENCODE], &iv.encode);
            lat_summary(&set[PV_LAT_TUNNEL_BUFS], &iv.tunnel_bufs);
        }
        iv.cpu = c->col.cpu;
        iv.mem_mb = c->col.mem_mb;
        run_col_row_done(&c->col, i,
                         c->spec.stats_row(run_col_stats(&c->col, i), c->col.wall, &iv));
        if (c->pv->opts.display_stats)
            c->spec.console(stdout, sec, i + 1, c->n, interval_secs, &iv);
    }
    fflush(stdout);
}

/* The progress line of the second (run_prog.h), every thread together: the run time gone and
 * left, the channels open (a server), the update rate of the second, the images and updates
 * sent so far, and the generic messages' latency p99 so far when there is any. */
static void progress(pv_collect *c, const run_loop *loop, run_prog_rate *r)
{
    if (!run_prog_on())
        return;
    int64_t now = clk_ns();
    uint64_t images = 0, updates = 0, n;
    for (int i = 0; i < c->n; i++) {
        images += counter_total(&c->stats[i]->refreshes);
        updates += counter_total(&c->stats[i]->updates);
    }
    char a[32], b[32];
    run_prog_text t;
    run_prog_start(&t, c->spec.tool, now - loop->start_ns);
    run_loop_prog(loop, &t, now);
    run_prog_add(&t, "%s upd/s",
                 run_prog_count(a, sizeof(a), (uint64_t)run_prog_rate_next(r, updates, now)));
    run_prog_add(&t, "images sent %s", run_prog_count(a, sizeof(a), images));
    run_prog_add(&t, "updates sent %s", run_prog_count(b, sizeof(b), updates));
    double p99 = run_col_percentile(&c->col, PV_LAT_GENMSG, 99.0, &n);
    if (n)
        run_prog_add(&t, "genmsg p99 %s", run_prog_latency(a, sizeof(a), p99, n));
    run_prog_draw(&t);
}

int pv_collect_run(pv_collect *c, run_loop *loop, const pv_config *pv)
{
    run_prog_rate rate = {.ns = loop->start_ns};
    int ev;
    while ((ev = run_loop_next(loop)) > 0) {
        if (ev == RUN_LOOP_INTERVAL)
            pv_collect_interval(c, loop->sec, (unsigned)pv->opts.write_stats_interval);
        else
            run_col_drain_all(&c->col);
        progress(c, loop, &rate);
    }
    run_prog_end();
    return ev;
}

/* The earlier of two times, 0 meaning "did not happen". */
static uint64_t min_nonzero(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

/* The counts sum into the figures s (a thread's or the run's). */
static void totals_counts(pv_totals *s, const pv_counts *sum)
{
    s->requests = sum->requests;
    s->refreshes = sum->refreshes;
    s->updates = sum->updates;
    s->posts = sum->posts;
    s->closes = sum->closes;
    s->out_of_bufs = sum->out_of_bufs;
    s->genmsgs_sent = sum->genmsgs_sent;
    s->genmsgs_recv = sum->genmsgs_recv;
    s->genmsg_lat_sent = sum->genmsg_lat_sent;
}

/* Thread i's figures over the run into s, from its sums and its times. */
static void thread_totals(pv_collect *c, int i, pv_totals *s)
{
    pv_stats *st = c->stats[i];
    totals_counts(s, &c->sum[i]);
    s->first_genmsg_sent_ns = (uint64_t)pv_stats_time(&st->first_genmsg_sent_ns);
    s->first_genmsg_recv_ns = (uint64_t)pv_stats_time(&st->first_genmsg_recv_ns);
    s->inactive_ns = (uint64_t)pv_stats_time(&st->inactive_ns);
    s->conn_secs = (double)pv_stats_time(&st->conn_ns) / 1e9;
    run_col_summary(&c->col, i, PV_LAT_GENMSG, &s->genmsg_lat);
    run_col_summary(&c->col, i, PV_LAT_GENMSG_SCHED, &s->genmsg_sched);
    run_col_summary(&c->col, i, PV_LAT_ENCODE, &s->encode);
}

/* Adds one thread's times s to the run's t (the counts are added as pv_counts, the latencies
 * summarised apart). */
static void add_times(pv_totals *t, const pv_totals *s)
{
    t->conn_secs += s->conn_secs;
    t->first_genmsg_sent_ns = min_nonzero(t->first_genmsg_sent_ns, s->first_genmsg_sent_ns);
    t->first_genmsg_recv_ns = min_nonzero(t->first_genmsg_recv_ns, s->first_genmsg_recv_ns);
    if (s->inactive_ns > t->inactive_ns)
        t->inactive_ns = s->inactive_ns;
}

void pv_collect_final(pv_collect *c, pv_result *out)
{
    memset(out, 0, sizeof(*out));
    run_col_final(&c->col);
    pv_totals *t = &out->total;
    pv_counts all;
    memset(&all, 0, sizeof(all));
    for (int i = 0; i < c->n; i++) {
        pv_interval iv;
        take_counts(c, i, &iv);
        thread_totals(c, i, &c->st[i]);
        pv_counts_add(&all, &c->sum[i]);
        add_times(t, &c->st[i]);
    }
    totals_counts(t, &all);
    run_col_summary(&c->col, -1, PV_LAT_GENMSG, &t->genmsg_lat);
    run_col_summary(&c->col, -1, PV_LAT_GENMSG_SCHED, &t->genmsg_sched);
    run_col_summary(&c->col, -1, PV_LAT_ENCODE, &t->encode);
    out->thread_count = c->n;
    out->thread = c->st;
    run_col_res(&c->col, &out->res);
    out->now_ns = (uint64_t)clk_ns();
}
