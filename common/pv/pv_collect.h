/*
 * pv_collect: the main thread's side of a provider's statistics (ProvPerf, NIProvPerf), over
 * the run-time's collector (run_col.h). Every -writeStatsInterval it takes each provider
 * thread's counts (changes since the last time, pv_stats_take) and its latency set of the
 * interval, writes the thread's statistics row and console lines with the tool's writers, and
 * keeps the totals; at the end it builds the summary's pv_result.
 */
#ifndef RWFPERF_PV_COLLECT_H
#define RWFPERF_PV_COLLECT_H

#include "pv_config.h"
#include "pv_report.h"
#include "pv_stats.h"
#include "run_col.h"
#include "run_loop.h"

#include <stdio.h>
#include <time.h>

/* What differs between the tools. */
typedef struct pv_collect_spec {
    const char *tool;             /* "ProvPerf": named in the histogram logs */
    const char *const *hlog_tags; /* PV_LAT_KINDS tags of the histogram logs (NULL: not
                                     logged); static */
    const char *latency_file;     /* -latencyFile base ("" = none); NULL: the tool has no
                                     latency log and hands over no sample ring */
    /* Creates thread `thread`'s (1-based) statistics file with its header: 0, or -1 (err_set). */
    int (*stats_open)(out_csv *csv, const pv_config *pv, int thread);
    /* Writes one statistics row for an interval ending at wall-clock time t: 0 or -1. */
    int (*stats_row)(out_csv *csv, time_t t, const pv_interval *iv);
    /* Writes one thread's console lines of an interval (-displayStats). */
    void (*console)(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                    const pv_interval *iv);
} pv_collect_spec;

typedef struct pv_collect {
    pv_collect_spec spec;
    const pv_config *pv;
    int n;            /* provider threads */
    pv_stats **stats; /* each thread's counters and latency sets (pv_collect_thread) */
    run_col col;      /* the run-time's collector: files, latency sets, resources */
    pv_counts *sum;   /* each thread's counts so far */
    pv_totals *st;    /* each thread's figures for the summary */
    uint64_t requests_total, refreshes_total;
} pv_collect;

/* Prepares the statistics of n threads paced by pv's tick rate: creates every thread's
 * statistics file (and latency log), the histogram logs of pv->histogram_log, and takes the
 * resource baseline. spec is copied; pv must outlive c. Returns 0, or -1 with err_msg() naming
 * what failed (c may then be given to pv_collect_free). */
int pv_collect_init(pv_collect *c, const pv_collect_spec *spec, const pv_config *pv, int n);

/* Thread i's counters (they must outlive c): call for every thread before the first interval. */
void pv_collect_thread(pv_collect *c, int i, pv_stats *s);

/* Once thread i has started: the collector takes its latency sets (and raw samples) from now
 * on. */
void pv_collect_watch(pv_collect *c, int i);

/* Closes the files and frees the totals. */
void pv_collect_free(pv_collect *c);

/* One interval ending `sec` seconds into the run, `interval_secs` seconds long: a resource
 * sample, each thread's statistics row and, with -displayStats, its console lines. */
void pv_collect_interval(pv_collect *c, unsigned sec, unsigned interval_secs);

/* The main thread's wait over the run, on loop (set up by the caller, run_loop_init; serving
 * accepts when run_loop_serve was called): each -writeStatsInterval of pv an interval
 * (pv_collect_interval), every other second the latency sets drained; on a terminal the
 * progress line each second (run_prog.h), erased at the end. Returns the event that ended it:
 * RUN_LOOP_END when the run time has passed, RUN_LOOP_STOP on a stop request. */
int pv_collect_run(pv_collect *c, run_loop *loop, const pv_config *pv);

/* After the threads were joined: takes what remains and fills out (whose thread array points
 * into c, valid until pv_collect_free). out->failed is left false for the caller. */
void pv_collect_final(pv_collect *c, pv_result *out);

#endif
