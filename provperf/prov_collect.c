/* The main thread's side of ProvPerf's statistics: each interval, and at the end. */
#include "prov_collect.h"

#include "clk.h"
#include "err.h"
#include "run_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int prov_collect_init(prov_collect *c, prov_app *app)
{
    memset(c, 0, sizeof(*c));
    c->app = app;
    int n = app->n_threads;
    c->sum = calloc((size_t)n, sizeof(*c->sum));
    c->st = calloc((size_t)n, sizeof(*c->st));
    if (!c->sum || !c->st)
        return err_set("out of memory for the statistics of %d threads", n);
    if (run_col_init(&c->col, n, PV_LAT_KINDS, app->cfg.pv.tick_rate) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (prov_stats_open(run_col_stats(&c->col, i), &app->cfg, i + 1) != 0 ||
            run_file_latency(run_col_latlog(&c->col, i), app->cfg.latency_file, i + 1, 0, true) !=
                0)
            return -1;
    /* Histogram logs (-histogramLog): generic-message latency first, the encoding time with
     * -measureEncode. */
    static const char *const tags[PV_LAT_KINDS] = {[PV_LAT_GENMSG] = "genmsg",
                                                   [PV_LAT_GENMSG_SCHED] = "sched-genmsg",
                                                   [PV_LAT_ENCODE] = "encode"};
    if (app->cfg.pv.histogram_log[0] &&
        run_col_hlog(&c->col, app->cfg.pv.histogram_log, 0, "ProvPerf", tags) != 0)
        return -1;
    return 0;
}

void prov_collect_free(prov_collect *c)
{
    run_col_free(&c->col);
    free(c->sum);
    free(c->st);
    memset(c, 0, sizeof(*c));
}

/* Moves thread i's counts since the last call into iv and the thread's sums. */
static void take_counts(prov_collect *c, int i, prov_interval *iv)
{
    pv_counts d;
    pv_stats_take(&c->app->threads[i].stats, &d, &c->sum[i]);
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

void prov_collect_interval(prov_collect *c, unsigned sec, unsigned interval)
{
    prov_app *app = c->app;
    run_col_interval(&c->col);
    for (int i = 0; i < app->n_threads; i++) {
        prov_interval iv;
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
                         prov_report_stats_row(run_col_stats(&c->col, i), c->col.wall, &iv));
        if (app->cfg.pv.display_stats)
            prov_report_interval(stdout, sec, i + 1, app->n_threads, interval, &iv);
    }
    fflush(stdout);
}

static uint64_t min_nonzero(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

void prov_collect_final(prov_collect *c, prov_result *out)
{
    prov_app *app = c->app;
    memset(out, 0, sizeof(*out));
    run_col_final(&c->col);
    prov_stats *t = &out->total;
    for (int i = 0; i < app->n_threads; i++) {
        prov_interval iv;
        take_counts(c, i, &iv);
        pv_stats *st = &app->threads[i].stats;
        const pv_counts *sum = &c->sum[i];
        prov_stats *s = &c->st[i];
        s->requests = sum->requests;
        s->refreshes = sum->refreshes;
        s->updates = sum->updates;
        s->posts = sum->posts;
        s->closes = sum->closes;
        s->out_of_bufs = sum->out_of_bufs;
        s->genmsgs_sent = sum->genmsgs_sent;
        s->genmsgs_recv = sum->genmsgs_recv;
        s->genmsg_lat_sent = sum->genmsg_lat_sent;
        s->first_genmsg_sent_ns = (uint64_t)pv_stats_time(&st->first_genmsg_sent_ns);
        s->first_genmsg_recv_ns = (uint64_t)pv_stats_time(&st->first_genmsg_recv_ns);
        s->inactive_ns = (uint64_t)pv_stats_time(&st->inactive_ns);
        s->conn_secs = (double)pv_stats_time(&st->conn_ns) / 1e9;
        run_col_summary(&c->col, i, PV_LAT_GENMSG, &s->genmsg_lat);
        run_col_summary(&c->col, i, PV_LAT_GENMSG_SCHED, &s->genmsg_sched);
        run_col_summary(&c->col, i, PV_LAT_ENCODE, &s->encode);

        t->requests += s->requests;
        t->refreshes += s->refreshes;
        t->updates += s->updates;
        t->posts += s->posts;
        t->closes += s->closes;
        t->out_of_bufs += s->out_of_bufs;
        t->genmsgs_sent += s->genmsgs_sent;
        t->genmsgs_recv += s->genmsgs_recv;
        t->genmsg_lat_sent += s->genmsg_lat_sent;
        t->conn_secs += s->conn_secs;
        t->first_genmsg_sent_ns = min_nonzero(t->first_genmsg_sent_ns, s->first_genmsg_sent_ns);
        t->first_genmsg_recv_ns = min_nonzero(t->first_genmsg_recv_ns, s->first_genmsg_recv_ns);
        if (s->inactive_ns > t->inactive_ns)
            t->inactive_ns = s->inactive_ns;
    }
    run_col_summary(&c->col, -1, PV_LAT_GENMSG, &t->genmsg_lat);
    run_col_summary(&c->col, -1, PV_LAT_GENMSG_SCHED, &t->genmsg_sched);
    run_col_summary(&c->col, -1, PV_LAT_ENCODE, &t->encode);
    out->thread_count = app->n_threads;
    out->thread = c->st;
    run_col_res(&c->col, &out->res);
    out->now_ns = (uint64_t)clk_ns();
}
