#include "report.h"

#include "err.h"
#include "pv_report.h"
#include "run_setup.h"

#include <inttypes.h>
#include <string.h>

/* The end of a thread's time spans: when its last connection closed, else now. */
static uint64_t stats_end(const pv_totals *s, uint64_t now)
{
    return s->inactive_ns && s->inactive_ns < now ? s->inactive_ns : now;
}

typedef struct prov_derived {
    out_genmsg genmsg;  /* generic messages */
    double update_rate; /* achieved updates per second per connection; 0 = unknown */
    double genmsg_rate; /* achieved generic messages per second per connection */
} prov_derived;

static prov_derived derive(const pv_totals *s, uint64_t now)
{
    prov_derived d;
    uint64_t end = stats_end(s, now);
    d.genmsg =
        out_genmsg_of(s->genmsgs_sent, s->genmsgs_recv, s->genmsg_lat_sent, s->genmsg_lat.count,
                      s->first_genmsg_sent_ns, s->first_genmsg_recv_ns, end);
    d.update_rate = out_rate((double)s->updates, s->conn_secs);
    d.genmsg_rate = out_rate((double)s->genmsgs_sent, s->conn_secs);
    return d;
}

/* The lines of an "Overall Statistics" block, THREAD or OVERALL, before the CPU block. */
static void stats_block(out_report *r, const prov_config *cfg, const pv_totals *s,
                        const prov_derived *d)
{
    out_printf(r, "Overall Statistics: \n");
    out_lat_blocks(r, "GenMsg latency", "GenMsg latency", &s->genmsg_lat, &s->genmsg_sched, 1,
                   "  No GenMsg latency information was received.\n");
    out_genmsg_counts(r, &d->genmsg, cfg->pv.opts.generic_msg_rate != 0,
                      cfg->pv.opts.generic_msg_latency_rate != 0);
    out_genmsg_rates(r, &d->genmsg, cfg->pv.opts.generic_msg_rate != 0,
                     cfg->pv.opts.generic_msg_latency_rate != 0);
    out_printf(r, "  Image requests received: %" PRIu64 "\n", s->requests);
    if (cfg->pv.update_rate)
        out_printf(r, "  Updates sent: %" PRIu64 "\n", s->updates);
    if (s->posts) {
        out_printf(r, "  Posts received: %" PRIu64 "\n", s->posts);
        out_printf(r, "  Posts reflected: %" PRIu64 "\n", s->posts);
    }
}

/* Ours, after a block's original lines. */
static void our_lines(out_report *r, const prov_config *cfg, const pv_totals *s,
                      const prov_derived *d)
{
    pv_report_our_lines(r, s->out_of_bufs, s->conn_secs, cfg->pv.update_rate, s->updates);
    if (s->conn_secs > 0)
        out_rate_check(r, "GenMsg", cfg->pv.opts.generic_msg_rate, d->genmsg_rate);
}

void prov_report_summary(out_report *r, const prov_config *cfg, const pv_result *res)
{
    if (res->thread_count > 1) {
        for (int i = 0; i < res->thread_count; i++) {
            const pv_totals *t = &res->thread[i];
            prov_derived d = derive(t, res->now_ns);
            out_printf(r, "\n--- THREAD %d SUMMARY ---\n\n", i + 1);
            stats_block(r, cfg, t, &d);
            our_lines(r, cfg, t, &d);
        }
    }
    prov_derived d = derive(&res->total, res->now_ns);
    out_printf(r, "\n--- OVERALL SUMMARY ---\n\n");
    stats_block(r, cfg, &res->total, &d);
    out_res_block(r, &res->res);
    our_lines(r, cfg, &res->total, &d);
    out_console(r, "\n\n");
}

/* ------------------------------------------------------------------------------------------ */
/* Interval outputs                                                                           */

void prov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                          const pv_interval *iv)
{
    pv_report_interval_head(f, sec, thread, threads, interval_secs, iv->updates, iv->cpu,
                            iv->mem_mb);
    if (iv->requests || iv->refreshes)
        fprintf(f,
                "  - Received %" PRIu64 " item requests (total: %" PRIu64 "), sent %" PRIu64
                " images (total: %" PRIu64 ")\n",
                iv->requests, iv->requests_total, iv->refreshes, iv->refreshes_total);
    if (iv->posts)
        fprintf(f, "  Posting: received %" PRIu64 ", reflected %" PRIu64 "\n", iv->posts,
                iv->posts);
    out_console_genmsgs(f, iv->genmsgs_sent, iv->genmsgs_recv, iv->genmsg_lat_sent, 0,
                        &iv->genmsg_lat, &iv->genmsg_sched);
    if (iv->tunnel_bufs.count)
        out_console_stat(f, "  TunnelStreamBufferUsed", &iv->tunnel_bufs, false, "Samples");
    pv_report_interval_tail(f, iv->closes, iv->out_of_bufs, &iv->encode, iv->msgs_packed,
                            iv->buffers_sent);
}

/* The statistics file's columns: the original's 15, then ours for generic messages. */
static const char stats_columns[] =
    "UTC, Requests received, Images sent, Updates sent, Posts reflected, GenMsgs sent, "
    "GenMsgs received, GenMSg Latencies sent, GenMsg Latencies received, GenMsg Latency avg "
    "(usec), GenMsg Latency std dev (usec), GenMsg Latency max (usec), GenMsg Latency min "
    "(usec), CPU usage (%), Memory (MB)";
static const char *const stats_lat_kinds[] = {"GenMsg Latency", NULL};

int prov_report_stats_row(out_csv *csv, time_t t, const pv_interval *iv)
{
    char utc[32], extra[512] = "";
    out_utc(utc, sizeof(utc), t);
    out_csv_lat_values(extra, sizeof(extra), &iv->genmsg_lat, &iv->genmsg_sched, 1);
    const stat_lat *g = &iv->genmsg_lat;
    return out_csv_row(csv,
                       "%s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
                       ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %.1f, %.1f, %.1f, %.1f, %.2f, "
                       "%.2f%s",
                       utc, iv->requests, iv->refreshes, iv->updates, iv->posts, iv->genmsgs_sent,
                       iv->genmsgs_recv, iv->genmsg_lat_sent, g->count, g->avg, g->stddev,
                       g->count ? g->max : 0.0, g->count ? g->min : 0.0, iv->cpu, iv->mem_mb,
                       extra);
}

int prov_stats_open(out_csv *csv, const pv_config *pv, int thread)
{
    return run_file_stats_built(csv, pv->opts.stats_file, thread, 0, stats_columns,
                                stats_lat_kinds);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

/* pv_stats_json_fn: ProvPerf's figures. */
static json_object *stats_json(const void *config, const pv_totals *s, uint64_t now)
{
    const prov_config *cfg = config;
    prov_derived d = derive(s, now);
    json_object *o = json_object_new_object();
    pv_report_json_counts(o, s, true);
    out_json_add(o, "genmsg_send_rate", out_json_double(d.genmsg.send_rate));
    out_json_add(o, "genmsg_receive_rate", out_json_double(d.genmsg.recv_rate));
    pv_report_json_rate(o, s->conn_secs, cfg->pv.update_rate, s->updates);
    if (s->conn_secs > 0)
        out_json_add_rates(o, "genmsg", cfg->pv.opts.generic_msg_rate, d.genmsg_rate);
    out_json_add_lat(o, "genmsg_latency", &s->genmsg_lat);
    out_json_add_lat(o, "sched_genmsg_latency", &s->genmsg_sched);
    out_json_add_lat(o, "update_encode_time", &s->encode);
    return o;
}

json_object *prov_report_json(const prov_config *cfg, const pv_result *res, const out_host *host,
                              int pid, time_t now)
{
    return pv_report_json("ProvPerf", prov_config_json(cfg), res, stats_json, cfg, host, pid, now,
                          NULL);
}
