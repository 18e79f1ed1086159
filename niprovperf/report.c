#include "report.h"

#include "err.h"
#include "run_setup.h"

#include <inttypes.h>
#include <string.h>

/* Ours, after a block's original lines. */
static void our_lines(out_report *r, const niprov_config *cfg, const niprov_stats *s)
{
    if (s->out_of_bufs)
        out_printf(r, "  Updates stopped for lack of output buffers: %" PRIu64 "\n",
                   s->out_of_bufs);
    if (s->conn_secs > 0)
        out_rate_check(r, "update", cfg->update_rate, out_rate((double)s->updates, s->conn_secs));
}

void niprov_report_summary(out_report *r, const niprov_config *cfg, const niprov_result *res)
{
    if (res->thread_count > 1) {
        for (int i = 0; i < res->thread_count; i++) {
            const niprov_stats *t = &res->thread[i];
            out_printf(r, "\n--- THREAD %d SUMMARY ---\n\n", i + 1);
            out_printf(r,
                       "Overall Statistics: \n"
                       "  Images sent: %" PRIu64 "\n"
                       "  Updates sent: %" PRIu64 "\n",
                       t->refreshes, t->updates);
            our_lines(r, cfg, t);
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
    our_lines(r, cfg, &res->total);
    out_console(r, "\n\n");
    if (res->failed)
        out_printf(r, "TEST FAILED. An error occurred during this test.\n");
}

void niprov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                            const niprov_interval *iv)
{
    if (threads <= 1)
        fprintf(f, "%03u: ", sec);
    else
        fprintf(f, "%03u: Thread %d:\n  ", sec, thread);
    fprintf(f, "UpdRate: %8" PRIu64 ", CPU: %6.2f%%, Mem: %6.2fMB\n",
            interval_secs ? iv->updates / interval_secs : 0, iv->cpu, iv->mem_mb);
    if (iv->refreshes)
        fprintf(f, "  - Sent %" PRIu64 " images (total: %" PRIu64 ")\n", iv->refreshes,
                iv->refreshes_total);
    if (iv->closes)
        fprintf(f, "  - Received %" PRIu64 " closes.\n", iv->closes);
    if (iv->out_of_bufs)
        fprintf(f, "  - Stopped %" PRIu64 " updates due to lack of output buffers.\n",
                iv->out_of_bufs);
    if (iv->encode.count)
        out_console_stat(f, "Update Encode Time (usec)", &iv->encode, true, "Msgs");
    if (iv->buffers_sent)
        fprintf(f, "  - Approx. avg msgs per pack: %.0f\n",
                (double)iv->msgs_packed / (double)iv->buffers_sent);
}

const char *niprov_stats_header(void)
{
    return "UTC, Images sent, Updates sent, CPU usage (%), Memory (MB)";
}

int niprov_report_stats_row(out_csv *csv, time_t t, const niprov_interval *iv)
{
    char utc[32];
    out_utc(utc, sizeof(utc), t);
    return out_csv_row(csv, "%s, %" PRIu64 ", %" PRIu64 ", %.2f, %.2f", utc, iv->refreshes,
                       iv->updates, iv->cpu, iv->mem_mb);
}

int niprov_stats_open(out_csv *csv, const niprov_config *cfg, int thread)
{
    return run_file_stats(csv, cfg->stats_file, thread, 0, niprov_stats_header());
}

static json_object *stats_json(const niprov_config *cfg, const niprov_stats *s)
{
    json_object *o = json_object_new_object();
    out_json_add(o, "images_sent", json_object_new_uint64(s->refreshes));
    out_json_add(o, "updates_sent", json_object_new_uint64(s->updates));
    out_json_add(o, "closes_received", json_object_new_uint64(s->closes));
    out_json_add(o, "updates_out_of_buffers", json_object_new_uint64(s->out_of_bufs));
    if (s->conn_secs > 0) {
        out_json_add(o, "connection_secs", out_json_double(s->conn_secs));
        out_json_add(o, "offered_update_rate", json_object_new_int(cfg->update_rate));
        out_json_add(o, "achieved_update_rate",
                     out_json_double(out_rate((double)s->updates, s->conn_secs)));
    }
    if (s->encode.count)
        out_json_add(o, "update_encode_time", out_json_lat(&s->encode));
    return o;
}

json_object *niprov_report_json(const niprov_config *cfg, const niprov_result *res,
                                const out_host *host, int pid, time_t now)
{
    json_object *doc = out_json_doc("NIProvPerf", host, pid, now);
    if (!doc)
        return NULL;
    out_json_add(doc, "inputs", niprov_config_json(cfg));
    json_object *results = json_object_new_object();
    out_json_add(results, "overall", stats_json(cfg, &res->total));
    json_object *threads = json_object_new_array();
    for (int i = 0; threads && i < res->thread_count; i++) {
        const niprov_stats *t = res->thread_count > 1 ? &res->thread[i] : &res->total;
        json_object_array_add(threads, stats_json(cfg, t));
    }
    out_json_add(results, "threads", threads);
    out_json_add(results, "resources", out_json_res(&res->res));
    out_json_add(results, "passed", json_object_new_boolean(!res->failed));
    out_json_add(doc, "results", results);
    return doc;
}
