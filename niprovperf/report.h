/*
 * NIProvPerf reports: the writers of every output (docs/tools.md#outputs), from the figures the
 * main loop collects (pv_report.h's pv_result and pv_interval, pv_collect.h):
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
#include "pv_report.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Writes the summary that follows the TEST INPUTS block: THREAD blocks when there are several
 * threads, the OVERALL SUMMARY, the two console-only blank lines NIProvPerf prints after it,
 * then "TEST FAILED. An error occurred during this test." when res->failed. */
void niprov_report_summary(out_report *r, const niprov_config *cfg, const pv_result *res);

/* Writes one thread's console lines for an interval ending `sec` seconds into the run. thread
 * is 1-based; with several threads the line starts "NNN: Thread <n>:". */
void niprov_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                            const pv_interval *iv);

/* The statistics file's header, "UTC, Images sent, Updates sent, CPU usage (%), Memory (MB)". */
const char *niprov_stats_header(void);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int niprov_report_stats_row(out_csv *csv, time_t t, const pv_interval *iv);

/* Creates thread `thread`'s (1-based) statistics file, named after pv->stats_file, with its
 * header. Returns 0, or -1 (err_set). */
int niprov_stats_open(out_csv *csv, const pv_config *pv, int thread);

/* Builds the JSON summary: out_json_doc's members, "inputs", "results" {"overall", "threads",
 * "resources", "passed"}. Caller owns the result. */
json_object *niprov_report_json(const niprov_config *cfg, const pv_result *res,
                                const out_host *host, int pid, time_t now);

#endif
