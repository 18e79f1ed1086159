/*
 * ProvPerf reports: the result structures the provider threads and the main loop fill, and the
 * writers of every output (tools.md §3.6):
 *
 *   - the summary (per-thread THREAD blocks when there are several, then the OVERALL SUMMARY),
 *     to the console and the summary file at once;
 *   - the statistics file of each thread (ProvStats<n>.csv) and its rows;
 *   - the console lines of each statistics interval;
 *   - the generic-message latency log (<latencyFile><n>.csv, "Gen" rows) through out_latlog_*;
 *   - the JSON summary.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (0 = "did not happen"); latencies are stat_lat
 * summaries in microseconds. A rate over an empty time span is 0.
 */
#ifndef RWFPERF_PROV_REPORT_H
#define RWFPERF_PROV_REPORT_H

#include "config.h"
#include "out.h"
#include "stats.h"

#include <stdint.h>
#include <time.h>

/* What one provider thread did over the run, or every thread (prov_result.total). */
typedef struct prov_stats {
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
} prov_stats;

/* The run as the summary reports it. */
typedef struct prov_result {
    int thread_count;         /* provider threads */
    const prov_stats *thread; /* thread_count entries; THREAD blocks only when > 1 */
    prov_stats total;         /* every thread */
    stat_res res;             /* process CPU and memory samples */
    uint64_t now_ns;          /* when the summary is computed */
} prov_result;

/* Writes the summary that follows the TEST INPUTS block: a THREAD block per thread when there
 * are several, then the OVERALL SUMMARY; then, on the console only, the two blank lines ProvPerf
 * prints there. */
void prov_report_summary(out_report *r, const prov_config *cfg, const prov_result *res);

/* One statistics interval of one provider thread: counts are for the interval only, except the
 * two totals. */
typedef struct prov_interval {
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
} prov_interval;

/* Writes one thread's console lines for an interval ending `sec` seconds into the run. thread
 * is 1-based; with several threads the line starts "NNN: Thread <n>:". */
void prov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                          const prov_interval *iv);

/* Writes the statistics file's header into buf: the original's 15 columns, then ours for
 * "GenMsg Latency". Returns 0, or -1 when buf (1 KB is enough) is too small. */
int prov_stats_header(char *buf, size_t size);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int prov_report_stats_row(out_csv *csv, time_t t, const prov_interval *iv);

/* Creates thread `thread`'s (1-based) statistics file with its header (run_file_stats: the
 * file names of the run-time). Returns 0, or -1 (err_set naming the file). */
int prov_stats_open(out_csv *csv, const prov_config *cfg, int thread);

/* Builds the JSON summary: out_json_doc's members, "inputs", "results" {"overall", "threads",
 * "resources"}. Caller owns the result. */
json_object *prov_report_json(const prov_config *cfg, const prov_result *res, const out_host *host,
                              int pid, time_t now);

#endif
