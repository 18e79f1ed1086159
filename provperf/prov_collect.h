/*
 * ProvPerf's statistics on the main thread, over the run-time's collector (run_col.h): every
 * -writeStatsInterval it takes each provider thread's counts (changes since the last time) and
 * its latency set of the interval, writes the statistics rows and the console lines, and keeps
 * the totals; at the end it builds the summary's prov_result.
 */
#ifndef RWFPERF_PROV_COLLECT_H
#define RWFPERF_PROV_COLLECT_H

#include "prov.h"
#include "report.h"
#include "run_col.h"

typedef struct prov_collect {
    prov_app *app;
    run_col col;
    pv_counts *sum; /* each thread's counts so far */
    prov_stats *st; /* each thread's figures for the summary */
    uint64_t requests_total, refreshes_total;
} prov_collect;

/* Creates the statistics files (and latency logs) of every thread and takes the resource
 * baseline. Returns 0, or -1 with err_msg() naming what failed. */
int prov_collect_init(prov_collect *c, prov_app *app);

/* Closes the files and frees the totals. */
void prov_collect_free(prov_collect *c);

/* One interval ending `sec` seconds into the run, `interval` seconds long: a resource sample,
 * each thread's statistics row and console lines. */
void prov_collect_interval(prov_collect *c, unsigned sec, unsigned interval);

/* After the threads were joined: takes what remains and fills out (whose thread array points
 * into c, valid until prov_collect_free). */
void prov_collect_final(prov_collect *c, prov_result *out);

#endif
