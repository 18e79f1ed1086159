/*
 * NIProvPerf reports: the result structures the provider threads and the main loop fill, and
 * the writers of every output (tools.md §3.7):
 *
 *   - the summary (THREAD blocks when there are several, then the OVERALL SUMMARY), to the
 *     console and the summary file at once, and the "TEST FAILED" line after it;
 *   - the statistics file of each thread (NIProvStats<n>.csv) and its rows;
 *   - the console lines of each statistics interval;
 *   - the JSON summary.
 *
 * NIProvPerf measures no latency itself (the consumers behind the ADH do), so its files have
 * no latency columns.
 */
#ifndef RWFPERF_NIPROV_REPORT_H
#define RWFPERF_NIPROV_REPORT_H

#include "config.h"
#include "out.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* What one provider thread (one ADH connection) did over the run, or all of them. */
typedef struct niprov_stats {
    uint64_t refreshes;   /* images sent */
    uint64_t updates;     /* updates sent */
    uint64_t closes;      /* item closes received */
    uint64_t out_of_bufs; /* updates stopped for lack of output buffers */
    double conn_secs;     /* connection-seconds of publishing (sum over connections); 0 =
                             unknown: the achieved per-connection update rate divides by it */
    stat_lat encode;      /* -measureEncode: time to encode a latency update */
} niprov_stats;

/* The run as the summary reports it. */
typedef struct niprov_result {
    int thread_count;           /* provider threads */
    const niprov_stats *thread; /* thread_count entries; THREAD blocks only when > 1 */
    niprov_stats total;         /* every thread */
    stat_res res;               /* process CPU and memory samples */
    bool failed;                /* an error ended the test */
} niprov_result;

/* Writes the summary that follows the TEST INPUTS block: THREAD blocks when there are several
 * threads, the OVERALL SUMMARY, the two console-only blank lines NIProvPerf prints after it,
 * then "TEST FAILED. An error occurred during this test." when res->failed. */
void niprov_report_summary(out_report *r, const niprov_config *cfg, const niprov_result *res);

/* One statistics interval of one provider thread: counts are for the interval only, except the
 * total. */
typedef struct niprov_interval {
    uint64_t refreshes;
    uint64_t refreshes_total; /* images sent since the start, every thread */
    uint64_t updates;
    uint64_t closes;
    uint64_t out_of_bufs;
    uint64_t msgs_packed;  /* messages sent in packed buffers (packing only) */
    uint64_t buffers_sent; /* packed buffers sent (packing only) */
    stat_lat encode;       /* update encoding time (-measureEncode; count 0 = none) */
    double cpu;            /* process CPU % of the interval */
    double mem_mb;         /* resident memory, MB */
} niprov_interval;

/* Writes one thread's console lines for an interval ending `sec` seconds into the run. thread
 * is 1-based; with several threads the line starts "NNN: Thread <n>:". */
void niprov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                            const niprov_interval *iv);

/* The statistics file's header, "UTC, Images sent, Updates sent, CPU usage (%), Memory (MB)". */
const char *niprov_stats_header(void);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int niprov_report_stats_row(out_csv *csv, time_t t, const niprov_interval *iv);

/* Creates thread `thread`'s statistics file with its header. Returns 0, or -1 (err_set). */
int niprov_stats_open(out_csv *csv, const niprov_config *cfg, int thread);

/* Builds the JSON summary: out_json_doc's members, "inputs", "results" {"overall", "threads",
 * "resources", "passed"}. Caller owns the result. */
json_object *niprov_report_json(const niprov_config *cfg, const niprov_result *res,
                                const out_host *host, int pid, time_t now);

#endif
