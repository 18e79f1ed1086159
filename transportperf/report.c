#include "report.h"

#include "err.h"
#include "run_setup.h"

#include <inttypes.h>
#include <string.h>

#define MB 1048576.0

typedef struct tperf_derived {
    double secs; /* disconnect - connect */
    double sent_mb;
    double recv_mb;
    double sent_rate;
    double recv_rate;
    double sent_mb_rate;
    double recv_mb_rate;
    double achieved_rate; /* messages sent per second per connection; 0 = unknown */
} tperf_derived;

static tperf_derived derive(const tperf_stats *s)
{
    tperf_derived d;
    d.secs = ((double)s->disconnect_ns - (double)s->connect_ns) / 1e9;
    d.sent_mb = (double)s->bytes_sent / MB;
    d.recv_mb = (double)s->bytes_recv / MB;
    d.sent_rate = out_rate((double)s->msgs_sent, d.secs);
    d.recv_rate = out_rate((double)s->msgs_recv, d.secs);
    d.sent_mb_rate = out_rate(d.sent_mb, d.secs);
    d.recv_mb_rate = out_rate(d.recv_mb, d.secs);
    d.achieved_rate = out_rate((double)s->msgs_sent, s->conn_secs);
    return d;
}

/* The "Statistics: " block of a THREAD or OVERALL summary, up to the data rates. */
static void stats_block(out_report *r, const tperf_stats *s, const tperf_derived *d)
{
    out_printf(r, "Statistics: \n");
    out_lat_blocks(r, "Latency", "latency", &s->lat, &s->lat_sched, 3,
                   "  No latency information was received.\n\n");
    out_printf(r,
               "  Sampling duration(sec): %.2f\n"
               "  Msgs Sent: %" PRIu64 "\n"
               "  Msgs Received: %" PRIu64 "\n"
               "  Data Sent (MB): %.2f\n"
               "  Data Received (MB): %.2f\n"
               "  Avg. Msg Sent Rate: %.0f\n"
               "  Avg. Msg Recv Rate: %.0f\n"
               "  Avg. Data Sent Rate (MB): %.2f\n"
               "  Avg. Data Recv Rate (MB): %.2f\n",
               d->secs, s->msgs_sent, s->msgs_recv, d->sent_mb, d->recv_mb, d->sent_rate,
               d->recv_rate, d->sent_mb_rate, d->recv_mb_rate);
}

/* Ours, after a block's original lines. */
static void our_lines(out_report *r, const tperf_config *cfg, const tperf_stats *s,
                      const tperf_derived *d)
{
    if (s->tracked || s->mcast)
        tperf_report_seq_lines(r, s);
    else if (s->msgs_recv)
        out_printf(r, "  Sequence gaps: %" PRIu64 "\n", s->seq_gaps);
    if (s->out_of_bufs)
        out_printf(r, "  Msgs not sent for lack of output buffers: %" PRIu64 "\n", s->out_of_bufs);
    if (!cfg->reflect_msgs && s->conn_secs > 0)
        out_rate_check(r, "msg", cfg->msg_rate, d->achieved_rate);
}

void tperf_report_summary(out_report *r, const tperf_config *cfg, const tperf_result *res)
{
    if (res->thread_count > 1) {
        for (int i = 0; i < res->thread_count; i++) {
            const tperf_stats *t = &res->thread[i];
            tperf_derived d = derive(t);
            out_printf(r, "--- THREAD %d SUMMARY ---\n\n", i + 1);
            stats_block(r, t, &d);
            our_lines(r, cfg, t, &d);
            out_printf(r, "\n");
        }
    }
    tperf_derived d = derive(&res->total);
    out_printf(r, "--- OVERALL SUMMARY ---\n\n");
    stats_block(r, &res->total, &d);
    if (res->res.samples)
        out_res_block(r, &res->res);
    else
        out_console(r, "No CPU/Mem statistics taken.\n\n");
    out_printf(r, "  Process ID: %d\n", res->pid);
    our_lines(r, cfg, &res->total, &d);
}

void tperf_report_negative_latency(out_report *r, uint64_t start, uint64_t end)
{
    out_printf(r,
               "Warning: negative latency calculated. The clocks do not appear to be "
               "synchronized. (start=%" PRIu64 ", end=%" PRIu64 ")\n",
               start, end);
}

/* ------------------------------------------------------------------------------------------ */
/* Interval outputs                                                                           */

void tperf_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                           const tperf_interval *iv)
{
    double secs = (double)interval_secs;
    if (threads <= 1)
        fprintf(f, "%03u:\n", sec);
    else
        fprintf(f, "%03u: Thread %d:\n", sec, thread);
    fprintf(f, "  Sent: MsgRate: %8.0f, DataRate:%8.3fMBps\n",
            out_rate((double)iv->msgs_sent, secs), out_rate((double)iv->bytes_sent / MB, secs));
    fprintf(f, "  Recv: MsgRate: %8.0f, DataRate:%8.3fMBps\n",
            out_rate((double)iv->msgs_recv, secs), out_rate((double)iv->bytes_recv / MB, secs));
    if (iv->out_of_bufs)
        fprintf(f, "  %" PRIu64 " messages not sent due to lack of output buffers.\n",
                iv->out_of_bufs);
    out_console_lat(f, "  Latency (usec)", &iv->lat, &iv->lat_sched, true);
    tperf_report_interval_mcast(f, iv);
    fprintf(f, "  CPU: %6.2f%% Mem: %8.2fMB\n", iv->cpu, iv->mem_mb);
    tperf_report_interval_seq(f, iv);
}

int tperf_stats_header(char *buf, size_t size, const tperf_config *cfg)
{
    static const char *const lat_kinds[] = {"Latency", NULL};
    if (out_csv_header(buf, size,
                       "UTC, Msgs sent, Bytes sent, Msgs received, Bytes received, Latency msgs "
                       "received, Latency avg (usec), Latency std dev (usec), Latency max (usec), "
                       "Latency min (usec), CPU usage (%), Memory (MB)",
                       lat_kinds) != 0)
        return -1;
    size_t used = strlen(buf);
    return cfg ? tperf_seq_header(buf + used, size - used, cfg) : 0;
}

int tperf_report_stats_row(out_csv *csv, time_t t, const tperf_interval *iv)
{
    char utc[32], extra[512] = "", seq[256] = "";
    out_utc(utc, sizeof(utc), t);
    out_csv_lat_values(extra, sizeof(extra), &iv->lat, &iv->lat_sched, 3);
    tperf_seq_values(seq, sizeof(seq), iv);
    const stat_lat *l = &iv->lat;
    return out_csv_row(csv,
                       "%s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
                       ", %.3f, %.3f, %.3f, %.3f, %.2f, %.2f%s%s",
                       utc, iv->msgs_sent, iv->bytes_sent, iv->msgs_recv, iv->bytes_recv, l->count,
                       l->avg, l->stddev, l->count ? l->max : 0.0, l->count ? l->min : 0.0, iv->cpu,
                       iv->mem_mb, extra, seq);
}

int tperf_stats_open(out_csv *csv, const tperf_config *cfg, int thread)
{
    char header[1024];
    if (tperf_stats_header(header, sizeof(header), cfg) != 0)
        return err_set("statistics file header too long");
    return run_file_stats(csv, cfg->opts.stats_file, thread, cfg->pid, header);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

static json_object *stats_json(const tperf_config *cfg, const tperf_stats *s)
{
    tperf_derived d = derive(s);
    json_object *o = json_object_new_object();
    out_json_add(o, "sampling_secs", out_json_double(d.secs));
    out_json_add(o, "msgs_sent", json_object_new_uint64(s->msgs_sent));
    out_json_add(o, "msgs_received", json_object_new_uint64(s->msgs_recv));
    out_json_add(o, "bytes_sent", json_object_new_uint64(s->bytes_sent));
    out_json_add(o, "bytes_received", json_object_new_uint64(s->bytes_recv));
    out_json_add(o, "msg_sent_rate", out_json_double(d.sent_rate));
    out_json_add(o, "msg_recv_rate", out_json_double(d.recv_rate));
    out_json_add(o, "data_sent_rate_mb", out_json_double(d.sent_mb_rate));
    out_json_add(o, "data_recv_rate_mb", out_json_double(d.recv_mb_rate));
    out_json_add(o, "sequence_gaps", json_object_new_uint64(s->seq_gaps));
    if (s->msgs_recv)
        out_json_add(o, "first_sequence", json_object_new_uint64(s->first_seq));
    out_json_add(o, "msgs_out_of_buffers", json_object_new_uint64(s->out_of_bufs));
    tperf_seq_json(o, s);
    if (!cfg->reflect_msgs && s->conn_secs > 0)
        out_json_add_rates(o, "msg", cfg->msg_rate, d.achieved_rate);
    out_json_add_lat(o, "latency", &s->lat);
    out_json_add_lat(o, "sched_latency", &s->lat_sched);
    return o;
}

json_object *tperf_report_json(const tperf_config *cfg, const tperf_result *res,
                               const out_host *host, time_t now)
{
    json_object *doc = out_json_doc("TransportPerf", host, res->pid, now);
    if (!doc)
        return NULL;
    out_json_add(doc, "inputs", tperf_config_json(cfg));
    json_object *results = json_object_new_object();
    out_json_add(results, "overall", stats_json(cfg, &res->total));
    json_object *threads = json_object_new_array();
    for (int i = 0; threads && i < res->thread_count; i++) {
        const tperf_stats *t = res->thread_count > 1 ? &res->thread[i] : &res->total;
        json_object_array_add(threads, stats_json(cfg, t));
    }
    out_json_add(results, "threads", threads);
    out_json_add(results, "resources", out_json_res(&res->res));
    out_json_add(doc, "results", results);
    return doc;
}
