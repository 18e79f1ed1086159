/*
 * ProvPerf reports: the writers of every output (docs/tools.md#outputs), from the figures the main
 * loop collects (pv_report.h's pv_result and pv_interval, pv_collect.h):
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
#include "pv_report.h"
#include "stats.h"

#include <stdint.h>
#include <time.h>

/* Writes the summary that follows the TEST INPUTS block: a THREAD block per thread when there
 * are several, then the OVERALL SUMMARY; then, on the console only, the two blank lines ProvPerf
 * prints there. */
void prov_report_summary(out_report *r, const prov_config *cfg, const pv_result *res);

/* Writes one thread's console lines for an interval ending `sec` seconds into the run. thread
 * is 1-based; with several threads the line starts "NNN: Thread <n>:". */
void prov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                          const pv_interval *iv);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int prov_report_stats_row(out_csv *csv, time_t t, const pv_interval *iv);

/* Creates thread `thread`'s (1-based) statistics file, named after pv->stats_file, with its
 * header: the original's 15 columns, then ours for "GenMsg Latency" (run_file_stats_built:
 * the file names of the run-time). Returns 0, or -1 (err_set naming
 * the file). */
int prov_stats_open(out_csv *csv, const pv_config *pv, int thread);

/* Builds the JSON summary: out_json_doc's members, "inputs", "results" {"overall", "threads",
 * "resources"}. Caller owns the result. */
json_object *prov_report_json(const prov_config *cfg, const pv_result *res, const out_host *host,
                              int pid, time_t now);

#endif
