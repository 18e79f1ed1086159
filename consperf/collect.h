/*
 * ConsPerf's main-thread side of the statistics: once per -writeStatsInterval it takes each
 * thread's latency recorders (latbuf hand-off), counters ("change since last time") and raw
 * latency samples, adds them to running totals, and writes the console lines, the statistics
 * CSV row and the latency log rows of the interval. At the end it turns the totals into the
 * cons_result the summary and the JSON are written from.
 *
 * Everything here runs on the main thread only.
 */
#ifndef RWFPERF_CONS_COLLECT_H
#define RWFPERF_CONS_COLLECT_H

#include "cons.h"
#include "out.h"
#include "report.h"
#include "res.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cons_totals {
    lat l[CONS_LAT_KINDS]; /* every sample so far, by kind */
    bool image_shown;      /* its image retrieval line was printed */
    out_csv stats;         /* <statsFile><n>.csv */
    out_csv latlog;        /* <latencyFile><n>.csv (closed without -latencyFile) */
    uint64_t log_dropped;  /* samples the worker could not queue for it, as last reported */
} cons_totals;

typedef struct cons_collector {
    cons_run *run;
    const cons_config *cfg;
    cons_totals *tot; /* one per thread */
    res res;
    bool res_ok;
    bool overall_shown; /* "Overall image retrieval time" printed (several threads) */
    latring_sample *samples;
    size_t samples_cap;
} cons_collector;

/* Prepares the totals and creates every thread's statistics file (and latency log with
 * -latencyFile). Takes the CPU baseline. Returns 0, or -1 with err_msg() naming the file. */
int cons_collect_init(cons_collector *c, cons_run *run);

/* Closes the files and frees the totals. */
void cons_collect_free(cons_collector *c);

/* Collects one interval ending `sec` seconds into the run: console lines (when display),
 * statistics rows, latency log rows. */
void cons_collect_interval(cons_collector *c, unsigned sec, bool display);

/* Writes the raw latency samples queued so far to the latency logs (-latencyFile), so that a
 * worker's ring holds one second of samples rather than one interval. Reports on stderr the
 * samples that did not fit. Call every second. */
void cons_collect_samples(cons_collector *c);

/* After the threads were joined: takes every latency set they have not handed over yet (the
 * set of a hand-over that timed out, then the last active one) and their samples (no output
 * but the latency log). */
void cons_collect_final(cons_collector *c);

/* The moment every thread with items had all its images (the latest of them), or 0. */
uint64_t cons_collect_images_end(const cons_run *run);

/*
 * Fills res for the summary: thread[] (run->thread_count entries, provided by the caller)
 * and total, as of now_ns. Latency summaries are computed into the caller's structures; the
 * error text of each failed thread is copied. Returns 0, or -1 when memory runs out.
 */
int cons_collect_result(cons_collector *c, cons_result *out, cons_stats *thread, uint64_t now_ns);

#endif
