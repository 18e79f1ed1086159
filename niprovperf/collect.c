/* NIProvPerf's statistics on the main thread: each interval, and at the end. */
#include "niprov.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int niprov_collect_init(niprov_app *a)
{
    a->sum = calloc((size_t)a->n_threads, sizeof(*a->sum));
    a->totals = calloc((size_t)a->n_threads, sizeof(*a->totals));
    if (!a->sum || !a->totals)
        return err_set("out of memory for the statistics of %d threads", a->n_threads);
    if (run_col_init(&a->col, a->n_threads, PV_LAT_KINDS, a->cfg.pv.tick_rate) != 0)
        return -1;
    for (int i = 0; i < a->n_threads; i++)
        if (niprov_stats_open(run_col_stats(&a->col, i), &a->cfg, i + 1) != 0)
            return -1;
    /* Histogram logs (-histogramLog): a non-interactive provider measures no message latency,
     * only the encoding time of its updates (-measureEncode). */
    static const char *const tags[PV_LAT_KINDS] = {[PV_LAT_ENCODE] = "encode"};
    if (a->cfg.pv.histogram_log[0] &&
        run_col_hlog(&a->col, a->cfg.pv.histogram_log, 0, "NIProvPerf", tags) != 0)
        return -1;
    return 0;
}

void niprov_collect_free(niprov_app *a)
{
    run_col_free(&a->col);
    free(a->sum);
    free(a->totals);
    a->sum = NULL;
    a->totals = NULL;
}

/* Thread i's counts since the last time into iv (and its sums), and its latency set. */
static void take(niprov_app *a, int i, niprov_interval *iv)
{
    pv_counts d;
    pv_stats_take(&a->threads[i].stats, &d, &a->sum[i]);
    iv->refreshes = d.refreshes;
    iv->updates = d.updates;
    iv->closes = d.closes;
    iv->out_of_bufs = d.out_of_bufs;
    iv->msgs_packed = d.msgs_packed;
    iv->buffers_sent = d.packs;
    a->refreshes_total += d.refreshes;
    iv->refreshes_total = a->refreshes_total;
    const lat *set = run_col_take(&a->col, i);
    if (set)
        lat_summary(&set[PV_LAT_ENCODE], &iv->encode);
}

void niprov_collect_interval(niprov_app *a, unsigned sec)
{
    run_col_interval(&a->col);
    for (int i = 0; i < a->n_threads; i++) {
        niprov_interval iv;
        memset(&iv, 0, sizeof(iv));
        take(a, i, &iv);
        iv.cpu = a->col.cpu;
        iv.mem_mb = a->col.mem_mb;
        run_col_row_done(&a->col, i,
                         niprov_report_stats_row(run_col_stats(&a->col, i), a->col.wall, &iv));
        if (a->cfg.pv.display_stats)
            niprov_report_interval(stdout, sec, i + 1, a->n_threads,
                                   (unsigned)a->cfg.pv.write_stats_interval, &iv);
    }
    fflush(stdout);
}

void niprov_collect_result(niprov_app *a, niprov_result *out)
{
    memset(out, 0, sizeof(*out));
    run_col_final(&a->col);
    for (int i = 0; i < a->n_threads; i++) {
        pv_counts d;
        pv_stats_take(&a->threads[i].stats, &d, &a->sum[i]);
        niprov_stats *s = &a->totals[i];
        s->refreshes = a->sum[i].refreshes;
        s->updates = a->sum[i].updates;
        s->closes = a->sum[i].closes;
        s->out_of_bufs = a->sum[i].out_of_bufs;
        s->conn_secs = (double)pv_stats_time(&a->threads[i].stats.conn_ns) / 1e9;
        run_col_summary(&a->col, i, PV_LAT_ENCODE, &s->encode);
        out->total.refreshes += s->refreshes;
        out->total.updates += s->updates;
        out->total.closes += s->closes;
        out->total.out_of_bufs += s->out_of_bufs;
        out->total.conn_secs += s->conn_secs;
    }
    run_col_summary(&a->col, -1, PV_LAT_ENCODE, &out->total.encode);
    out->thread_count = a->n_threads;
    out->thread = a->totals;
    run_col_res(&a->col, &out->res);
    out->failed = run_fail_status(&a->fail) != RUN_EXIT_OK;
}
