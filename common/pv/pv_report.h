/*
 * pv_report: what ProvPerf and NIProvPerf report alike: the figures of a provider thread's run
 * and of one statistics interval (pv_totals, pv_result, pv_interval), the first and last lines
 * of an interval on the console, our lines after a summary block, and the members of the JSON
 * summary about the achieved update rate.
 */
#ifndef RWFPERF_PV_REPORT_H
#define RWFPERF_PV_REPORT_H

#include "out.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What one provider thread did over the run, or every thread (pv_result.total). Times are
 * CLOCK_MONOTONIC nanoseconds (0 = "did not happen"); latencies are stat_lat summaries in
 * microseconds. NIProvPerf receives no requests, posts or generic messages: those stay 0. */
typedef struct pv_totals {
    uint64_t requests;    /* item requests received */
    uint64_t refreshes;   /* images sent */
    uint64_t updates;     /* updates sent */
    uint64_t posts;       /* posts received (each one is reflected) */
    uint64_t closes;      /* item closes received */
    uint64_t out_of_bufs; /* updates stopped for lack of output buffers */
    uint64_t genmsgs_sent;
    uint64_t genmsgs_recv;
    uint64_t genmsg_lat_sent;      /* generic messages sent with a latency stamp */
    uint64_t first_genmsg_sent_ns; /* first generic message sent */
    uint64_t first_genmsg_recv_ns; /* first generic message received */
    uint64_t inactive_ns;          /* when the last connection closed; 0 = still open */
    double conn_secs;      /* connection-seconds of publishing (sum over connections), 0 = unknown:
                              the achieved per-connection rates divide by it */
    stat_lat genmsg_lat;   /* latency of the generic messages received */
    stat_lat genmsg_sched; /* ... from their scheduled send time (count 0 = not measured) */
    stat_lat encode;       /* -measureEncode: time to encode a latency update */
} pv_totals;

/* The run as the summary reports it. */
typedef struct pv_result {
    int thread_count;        /* provider threads */
    const pv_totals *thread; /* thread_count entries; THREAD blocks only when > 1 */
    pv_totals total;         /* every thread */
    stat_res res;            /* process CPU and memory samples */
    uint64_t now_ns;         /* when the summary is computed */
    bool failed;             /* an error ended the test (NIProvPerf's summary says so) */
} pv_result;

/* One statistics interval of one provider thread: counts are for the interval only, except the
 * two totals. */
typedef struct pv_interval {
    uint64_t requests;
    uint64_t refreshes;
    uint64_t requests_total;  /* item requests received since the start, every thread */
    uint64_t refreshes_total; /* images sent since the start, every thread */
    uint64_t updates;
    uint64_t posts; /* received and reflected */
    uint64_t genmsgs_sent;
    uint64_t genmsgs_recv;
    uint64_t genmsg_lat_sent;
    uint64_t closes;
    uint64_t out_of_bufs;
    uint64_t msgs_packed;  /* messages sent in packed buffers (packing only) */
    uint64_t buffers_sent; /* packed buffers sent (packing only) */
    stat_lat genmsg_lat;   /* its count is the "latencies received" */
    stat_lat genmsg_sched;
    stat_lat encode;      /* update encoding time (-measureEncode; count 0 = none) */
    stat_lat tunnel_bufs; /* tunnel buffers in use, sampled (-tunnelStreamBuffersUsed) */
    double cpu;           /* process CPU % of the interval */
    double mem_mb;        /* resident memory, MB */
} pv_interval;

/* The first console line of one thread's interval ending `sec` seconds into the run: "NNN: "
 * (with several threads "NNN: Thread <n>:" and an indented new line; thread is 1-based), then
 * the update rate over interval_secs, the process CPU % and the resident memory in MB. */
void pv_report_interval_head(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                             uint64_t updates, double cpu, double mem_mb);

/* The last console lines of an interval, each only when it has something to say: closes
 * received, updates stopped for lack of output buffers, the update encoding time
 * (-measureEncode), the average of messages per packed buffer. */
void pv_report_interval_tail(FILE *f, uint64_t closes, uint64_t out_of_bufs, const stat_lat *encode,
                             uint64_t msgs_packed, uint64_t buffers_sent);

/* Our lines after a summary block's original ones: the updates stopped for lack of output
 * buffers (when any), then, when the connection time is known (conn_secs > 0), the achieved
 * per-connection update rate against the offered update_rate (out_rate_check). */
void pv_report_our_lines(out_report *r, uint64_t out_of_bufs, double conn_secs, int update_rate,
                         uint64_t updates);

/* Adds to o the counts of s: "images_sent", "updates_sent", "closes_received",
 * "updates_out_of_buffers" and, when interactive (ProvPerf), "image_requests_received",
 * "posts_received", "posts_reflected", "genmsgs_sent", "genmsgs_received" and
 * "genmsg_latencies_sent", in ProvPerf's order. */
void pv_report_json_counts(json_object *o, const pv_totals *s, bool interactive);

/* Adds to o, when the connection time is known (conn_secs > 0): "connection_secs",
 * "offered_update_rate" and "achieved_update_rate". */
void pv_report_json_rate(json_object *o, double conn_secs, int update_rate, uint64_t updates);

/* Makes the JSON object of one provider thread's figures s (or of every thread's), with the
 * tool's configuration cfg and the time of the summary (now_ns, CLOCK_MONOTONIC). */
typedef json_object *(*pv_stats_json_fn)(const void *cfg, const pv_totals *s, uint64_t now_ns);

/* Builds a provider's JSON summary (out_json_summary, inputs taken over): "overall" from the
 * totals of res, "threads" from each thread's figures (with one thread, the totals), each made
 * by stats with cfg. Sets *results as out_json_summary does. The caller owns the result; NULL
 * when out of memory. */
json_object *pv_report_json(const char *tool, json_object *inputs, const pv_result *res,
                            pv_stats_json_fn stats, const void *cfg, const out_host *host, int pid,
                            time_t now, json_object **results);

#endif
