/*
 * ProvPerf's statistics on the main thread: every -writeStatsInterval it takes each provider
 * thread's counts (changes since the last time), its latency set of the interval (latbuf
 * hand-off) and its raw generic-message samples (latency log), writes the statistics rows and
 * the console lines, and keeps the totals; at the end it builds the summary's prov_result.
 */
#ifndef RWFPERF_PROV_COLLECT_H
#define RWFPERF_PROV_COLLECT_H

#include "prov.h"
#include "report.h"
#include "res.h"

typedef struct prov_collect {
    prov_app *app;
    res res;
    out_csv *csv;    /* each thread's statistics file */
    out_csv *latcsv; /* each thread's latency log (closed when none) */
    prov_stats *sum; /* each thread's totals so far */
    lat *tot;        /* each thread's latency totals, PV_LAT_KINDS per thread */
    latring_sample *samples;
    uint64_t requests_total, refreshes_total;
    int64_t wait_ns; /* how long to wait for a thread's latency set */
    bool csv_error;
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
