/*
 * ConsPerf's main-thread side of the statistics, over the run-time's collector (run_col.h):
 * once per -writeStatsInterval it takes each thread's latency recorders (latbuf hand-off),
 * counters ("change since last time") and raw latency samples, adds them to running totals,
 * and writes the console lines, the statistics CSV row and the latency log rows of the
 * interval. At the end it turns the totals into the cons_result the summary and the JSON are
 * written from.
 *
 * Everything here runs on the main thread only.
 */
#ifndef RWFPERF_CONS_COLLECT_H
#define RWFPERF_CONS_COLLECT_H

#include "cons.h"
#include "out.h"
#include "report.h"
#include "run_col.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cons_collector {
    cons_run *run;
    const cons_config *cfg;
    run_col col;        /* latency totals, statistics files and latency logs per thread */
    bool *image_shown;  /* each thread's image retrieval line was printed */
    bool overall_shown; /* "Overall image retrieval time" printed (several threads) */
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
