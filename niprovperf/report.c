#include "report.h"

#include "err.h"
#include "pv_report.h"
#include "run_setup.h"

#include <inttypes.h>
#include <string.h>

void niprov_report_summary(out_report *r, const niprov_config *cfg, const pv_result *res)
{
    if (res->thread_count > 1) {
        for (int i = 0; i < res->thread_count; i++) {
            const pv_totals *t = &res->thread[i];
            out_printf(r, "\n--- THREAD %d SUMMARY ---\n\n", i + 1);
            out_printf(r,
                       "Overall Statistics: \n"
                       "  Images sent: %" PRIu64 "\n"
                       "  Updates sent: %" PRIu64 "\n",
                       t->refreshes, t->updates);
            pv_report_our_lines(r, t->out_of_bufs, t->conn_secs, cfg->pv.update_rate, t->updates);
            out_printf(r, "\n");
        }
    }
    out_printf(r, "\n--- OVERALL SUMMARY ---\n\n");
    out_printf(r,
               "Overall Statistics: \n"
               "  Images sent: %" PRIu64 "\n"
               "  Updates sent: %" PRIu64 "\n",
               res->total.refreshes, res->total.updates);
    out_res_block(r, &res->res);
    pv_report_our_lines(r, res->total.out_of_bufs, res->total.conn_secs, cfg->pv.update_rate,
                        res->total.updates);
    out_console(r, "\n\n");
    if (res->failed)
        out_printf(r, "TEST FAILED. An error occurred during this test.\n");
}

void niprov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                            const pv_interval *iv)
{
    pv_report_interval_head(f, sec, thread, threads, interval_secs, iv->updates, iv->cpu,
                            iv->mem_mb);
    if (iv->refreshes)
        fprintf(f, "  - Sent %" PRIu64 " images (total: %" PRIu64 ")\n", iv->refreshes,
                iv->refreshes_total);
    pv_report_interval_tail(f, iv->closes, iv->out_of_bufs, &iv->encode, iv->msgs_packed,
                            iv->buffers_sent);
}

const char *niprov_stats_header(void)
{
    return "UTC, Images sent, Updates sent, CPU usage (%), Memory (MB)";
}

int niprov_report_stats_row(out_csv *csv, time_t t, const pv_interval *iv)
{
    char utc[32];
    out_utc(utc, sizeof(utc), t);
    return out_csv_row(csv, "%s, %" PRIu64 ", %" PRIu64 ", %.2f, %.2f", utc, iv->refreshes,
                       iv->updates, iv->cpu, iv->mem_mb);
}

int niprov_stats_open(out_csv *csv, const pv_config *pv, int thread)
{
    return run_file_stats(csv, pv->opts.stats_file, thread, 0, niprov_stats_header());
}

/* pv_stats_json_fn: NIProvPerf's figures (no rates over time: now is not needed). */
static json_object *stats_json(const void *config, const pv_totals *s, uint64_t now)
{
    (void)now;
    const niprov_config *cfg = config;
    json_object *o = json_object_new_object();
    pv_report_json_counts(o, s, false);
    pv_report_json_rate(o, s->conn_secs, cfg->pv.update_rate, s->updates);
    out_json_add_lat(o, "update_encode_time", &s->encode);
    return o;
}

json_object *niprov_report_json(const niprov_config *cfg, const pv_result *res,
                                const out_host *host, int pid, time_t now)
{
    json_object *results = NULL;
    json_object *doc = pv_report_json("NIProvPerf", niprov_config_json(cfg), res, stats_json, cfg,
                                      host, pid, now, &results);
    if (doc)
        out_json_add(results, "passed", json_object_new_boolean(!res->failed));
    return doc;
}
