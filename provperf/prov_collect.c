/* The main thread's side of ProvPerf's statistics: each interval, and at the end. */
#include "prov_collect.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int prov_collect_init(prov_collect *c, prov_app *app)
{
    memset(c, 0, sizeof(*c));
    c->app = app;
    int n = app->n_threads;
    c->csv = calloc((size_t)n, sizeof(*c->csv));
    c->latcsv = calloc((size_t)n, sizeof(*c->latcsv));
    c->sum = calloc((size_t)n, sizeof(*c->sum));
    c->tot = malloc((size_t)n * PV_LAT_KINDS * sizeof(*c->tot));
    c->samples = malloc(4096 * sizeof(*c->samples));
    if (!c->csv || !c->latcsv || !c->sum || !c->tot || !c->samples)
        return err_set("out of memory for the statistics of %d threads", n);
    for (int i = 0; i < n * PV_LAT_KINDS; i++)
        lat_reset(&c->tot[i]);
    for (int i = 0; i < n; i++) {
        if (prov_stats_open(&c->csv[i], &app->cfg, i + 1) != 0 ||
            prov_latency_open(&c->latcsv[i], &app->cfg, i + 1) != 0)
            return -1;
    }
    /* A thread hands its latency set over at its next tick: wait two ticks at most. */
    c->wait_ns = 2 * CLK_NS_PER_SEC / app->cfg.tick_rate + 10 * 1000000LL;
    if (c->wait_ns > CLK_NS_PER_SEC)
        c->wait_ns = CLK_NS_PER_SEC;
    if (res_init(&c->res) != 0)
        return -1;
    return 0;
}

void prov_collect_free(prov_collect *c)
{
    for (int i = 0; c->csv && i < c->app->n_threads; i++) {
        out_csv_close(&c->csv[i]);
        out_csv_close(&c->latcsv[i]);
    }
    free(c->csv);
    free(c->latcsv);
    free(c->sum);
    free(c->tot);
    free(c->samples);
    memset(c, 0, sizeof(*c));
}

/* Writes the samples the thread's ring holds to its latency log. */
static void drain_ring(prov_collect *c, int i)
{
    pv_stats *st = &c->app->threads[i].stats;
    if (!st->ring_on)
        return;
    size_t n;
    while ((n = latring_pop(&st->ring, c->samples, 4096)) > 0)
        for (size_t k = 0; k < n; k++)
            out_latlog_row(&c->latcsv[i], "Gen", (uint64_t)c->samples[k].send,
                           (uint64_t)c->samples[k].recv);
    out_latlog_flush(&c->latcsv[i]);
}

/* Moves thread i's counts since the last call into iv and the thread's sums. */
static void take_counts(prov_collect *c, int i, prov_interval *iv)
{
    pv_stats *st = &c->app->threads[i].stats;
    prov_stats *sum = &c->sum[i];
    iv->requests = counter_change(&st->requests);
    iv->refreshes = counter_change(&st->refreshes);
    iv->updates = counter_change(&st->updates);
    iv->posts = counter_change(&st->posts);
    iv->closes = counter_change(&st->closes);
    iv->out_of_bufs = counter_change(&st->out_of_bufs);
    iv->genmsgs_sent = counter_change(&st->genmsgs_sent);
    iv->genmsgs_recv = counter_change(&st->genmsgs_recv);
    iv->genmsg_lat_sent = counter_change(&st->genmsg_lat_sent);
    iv->msgs_packed = counter_change(&st->msgs_packed);
    iv->buffers_sent = counter_change(&st->packs);
    sum->requests += iv->requests;
    sum->refreshes += iv->refreshes;
    sum->updates += iv->updates;
    sum->posts += iv->posts;
    sum->closes += iv->closes;
    sum->out_of_bufs += iv->out_of_bufs;
    sum->genmsgs_sent += iv->genmsgs_sent;
    sum->genmsgs_recv += iv->genmsgs_recv;
    sum->genmsg_lat_sent += iv->genmsg_lat_sent;
    c->requests_total += iv->requests;
    c->refreshes_total += iv->refreshes;
    iv->requests_total = c->requests_total;
    iv->refreshes_total = c->refreshes_total;
}

/* Takes thread i's latency set of the interval (when the thread handed it over in time). */
static void take_latency(prov_collect *c, int i, prov_interval *iv, int64_t wait_ns)
{
    const lat *set = latbuf_collect(&c->app->threads[i].stats.lat, wait_ns);
    if (!set)
        return;
    lat_summary(&set[PV_LAT_GENMSG], &iv->genmsg_lat);
    lat_summary(&set[PV_LAT_GENMSG_SCHED], &iv->genmsg_sched);
    lat_summary(&set[PV_LAT_ENCODE], &iv->encode);
    for (int k = 0; k < PV_LAT_KINDS; k++)
        lat_merge(&c->tot[i * PV_LAT_KINDS + k], &set[k]);
}

void prov_collect_interval(prov_collect *c, unsigned sec, unsigned interval)
{
    prov_app *app = c->app;
    const prov_config *cfg = &app->cfg;
    double cpu = 0, mem = 0;
    if (res_sample(&c->res) == 0) {
        cpu = c->res.cpu;
        mem = c->res.mem;
    }
    time_t now = time(NULL);
    for (int i = 0; i < app->n_threads; i++) {
        prov_interval iv;
        memset(&iv, 0, sizeof(iv));
        take_counts(c, i, &iv);
        take_latency(c, i, &iv, c->wait_ns);
        drain_ring(c, i);
        iv.cpu = cpu;
        iv.mem_mb = mem;
        if (prov_report_stats_row(&c->csv[i], now, &iv) != 0 && !c->csv_error) {
            c->csv_error = true;
            fprintf(stderr, "Error: %s\n", err_msg());
        }
        if (cfg->display_stats)
            prov_report_interval(stdout, sec, i + 1, app->n_threads, interval, &iv);
    }
    fflush(stdout);
}

void prov_collect_final(prov_collect *c, prov_result *out)
{
    prov_app *app = c->app;
    int n = app->n_threads;
    memset(out, 0, sizeof(*out));
    prov_stats *t = &out->total;
    lat *all = malloc(3 * sizeof(*all));
    if (all)
        for (int k = 0; k < 3; k++)
            lat_reset(&all[k]);
    for (int i = 0; i < n; i++) {
        prov_interval iv;
        memset(&iv, 0, sizeof(iv));
        take_counts(c, i, &iv);
        if (app->threads[i].started)
            take_latency(c, i, &iv, c->wait_ns);
        drain_ring(c, i);
        pv_stats *st = &app->threads[i].stats;
        prov_stats *s = &c->sum[i];
        s->first_genmsg_sent_ns = (uint64_t)pv_stats_time(&st->first_genmsg_sent_ns);
        s->first_genmsg_recv_ns = (uint64_t)pv_stats_time(&st->first_genmsg_recv_ns);
        s->inactive_ns = (uint64_t)pv_stats_time(&st->inactive_ns);
        s->conn_secs = (double)pv_stats_time(&st->conn_ns) / 1e9;
        lat_summary(&c->tot[i * PV_LAT_KINDS + PV_LAT_GENMSG], &s->genmsg_lat);
        lat_summary(&c->tot[i * PV_LAT_KINDS + PV_LAT_GENMSG_SCHED], &s->genmsg_sched);
        lat_summary(&c->tot[i * PV_LAT_KINDS + PV_LAT_ENCODE], &s->encode);
        if (all)
            for (int k = 0; k < 3; k++)
                lat_merge(&all[k], &c->tot[i * PV_LAT_KINDS + k]);

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
        if (s->first_genmsg_sent_ns &&
            (!t->first_genmsg_sent_ns || s->first_genmsg_sent_ns < t->first_genmsg_sent_ns))
            t->first_genmsg_sent_ns = s->first_genmsg_sent_ns;
        if (s->first_genmsg_recv_ns &&
            (!t->first_genmsg_recv_ns || s->first_genmsg_recv_ns < t->first_genmsg_recv_ns))
            t->first_genmsg_recv_ns = s->first_genmsg_recv_ns;
        if (s->inactive_ns > t->inactive_ns)
            t->inactive_ns = s->inactive_ns;
    }
    if (all) {
        lat_summary(&all[PV_LAT_GENMSG], &t->genmsg_lat);
        lat_summary(&all[PV_LAT_GENMSG_SCHED], &t->genmsg_sched);
        lat_summary(&all[PV_LAT_ENCODE], &t->encode);
        free(all);
    }
    out->thread_count = n;
    out->thread = c->sum;
    res_summary(&c->res, &out->res);
    out->now_ns = (uint64_t)clk_ns();
}
