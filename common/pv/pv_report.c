#include "pv_report.h"

#include <inttypes.h>

void pv_report_interval_head(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                             uint64_t updates, double cpu, double mem_mb)
{
    if (threads <= 1)
        fprintf(f, "%03u: ", sec);
    else
        fprintf(f, "%03u: Thread %d:\n  ", sec, thread);
    fprintf(f, "UpdRate: %8" PRIu64 ", CPU: %6.2f%%, Mem: %6.2fMB\n",
            interval_secs ? updates / interval_secs : 0, cpu, mem_mb);
}

void pv_report_interval_tail(FILE *f, uint64_t closes, uint64_t out_of_bufs, const stat_lat *encode,
                             uint64_t msgs_packed, uint64_t buffers_sent)
{
    if (closes)
        fprintf(f, "  - Received %" PRIu64 " closes.\n", closes);
    if (out_of_bufs)
        fprintf(f, "  - Stopped %" PRIu64 " updates due to lack of output buffers.\n", out_of_bufs);
    if (encode->count)
        out_console_stat(f, "Update Encode Time (usec)", encode, true, "Msgs");
    if (buffers_sent)
        fprintf(f, "  - Approx. avg msgs per pack: %.0f\n",
                (double)msgs_packed / (double)buffers_sent);
}

void pv_report_our_lines(out_report *r, uint64_t out_of_bufs, double conn_secs, int update_rate,
                         uint64_t updates)
{
    if (out_of_bufs)
        out_printf(r, "  Updates stopped for lack of output buffers: %" PRIu64 "\n", out_of_bufs);
    if (conn_secs > 0)
        out_rate_check(r, "update", update_rate, out_rate((double)updates, conn_secs));
}

/* What thread_json needs. */
typedef struct json_ctx {
    const pv_result *res;
    pv_stats_json_fn stats;
    const void *cfg;
} json_ctx;

/* out_json_stats_fn: thread i's figures (with one thread, the totals), or the totals (-1). */
static json_object *thread_json(const void *ctx, int i)
{
    const json_ctx *x = ctx;
    const pv_result *res = x->res;
    const pv_totals *s = i >= 0 && res->thread_count > 1 ? &res->thread[i] : &res->total;
    return x->stats(x->cfg, s, res->now_ns);
}

json_object *pv_report_json(const char *tool, json_object *inputs, const pv_result *res,
                            pv_stats_json_fn stats, const void *cfg, const out_host *host, int pid,
                            time_t now, json_object **results)
{
    json_ctx x = {res, stats, cfg};
    return out_json_summary(tool, host, pid, now, inputs, res->thread_count, thread_json, &x,
                            &res->res, results);
}

void pv_report_json_counts(json_object *o, const pv_totals *s, bool interactive)
{
    const struct {
        out_json_count m;
        bool interactive; /* ProvPerf's only */
    } counts[] = {
        {{"image_requests_received", s->requests}, true},
        {{"images_sent", s->refreshes}, false},
        {{"updates_sent", s->updates}, false},
        {{"posts_received", s->posts}, true},
        {{"posts_reflected", s->posts}, true},
        {{"closes_received", s->closes}, false},
        {{"updates_out_of_buffers", s->out_of_bufs}, false},
        {{"genmsgs_sent", s->genmsgs_sent}, true},
        {{"genmsgs_received", s->genmsgs_recv}, true},
        {{"genmsg_latencies_sent", s->genmsg_lat_sent}, true},
    };
    for (size_t i = 0; i < OUT_LEN(counts); i++)
        if (interactive || !counts[i].interactive)
            out_json_add_counts(o, &counts[i].m, 1);
}

void pv_report_json_rate(json_object *o, double conn_secs, int update_rate, uint64_t updates)
{
    if (conn_secs <= 0)
        return;
    out_json_add(o, "connection_secs", out_json_double(conn_secs));
    out_json_add_rates(o, "update", update_rate, out_rate((double)updates, conn_secs));
}
