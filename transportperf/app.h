/*
 * TransportPerf's run: what the main thread holds (main.c) and its statistics (collect.c):
 * each interval's counters and latency sets of every worker, the console lines, the
 * statistics rows, and the summary at the end.
 */
#ifndef RWFPERF_TPERF_APP_H
#define RWFPERF_TPERF_APP_H

#include "config.h"
#include "report.h"
#include "run_col.h"
#include "worker.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct tperf_app {
    tperf_config cfg;
    FILE *summary;
    out_report rep;
    int n;      /* threads */
    int n_init; /* workers initialised (to free) */
    tperf_worker *w;
    run_handoff **to; /* each worker's hand-over */
    run_col col;
    bool neg_warned;
    lra la;
    bool la_on;
    tp_server *srv;
    int status;
} tperf_app;

/* Says once, in the summary's report, that worker w measured a negative latency
 * (unsynchronised clocks). */
void tperf_check_negative(tperf_app *R, tperf_worker *w);

/* Collects one interval of every worker and writes its console lines (second `sec`) and
 * statistics rows. */
void tperf_collect(tperf_app *R, unsigned sec);

/* After the workers were joined and their sets collected: the summary (console and file) and
 * the JSON summary; a write failure makes R->status 1. */
void tperf_write_summary(tperf_app *R);

#endif
