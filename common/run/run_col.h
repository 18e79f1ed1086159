/*
 * run_col: the main thread's side of the workers' measurements, the same for every tool.
 *
 * For each worker it holds the latency totals of the run, the statistics file and the latency
 * log. Each second the main thread writes the raw latency samples the workers queued to the
 * latency logs (run_col_drain_all), and says on stderr how many a worker could not queue;
 * once per -writeStatsInterval it takes a CPU/memory sample and each worker's latency set of
 * the interval (run_col_take), which is added to the totals and given to the tool, which
 * writes its console lines and statistics row from it and from its own counters. At the end,
 * after the workers were joined, run_col_final takes what they had not handed over, and the
 * tool reads the totals (run_col_summary).
 *
 * One wait rule for every tool: a worker hands its latency set over at its next tick, or
 * within 100 ms when it has nothing to send (connecting, idle); the main thread waits two
 * ticks and 200 ms at most (never more than a second). A set that comes late is not lost: it
 * comes with a later interval or at the end.
 *
 * Everything here runs on the main thread only.
 */
#ifndef RWFPERF_RUN_COL_H
#define RWFPERF_RUN_COL_H

#include "lat.h"
#include "latbuf.h"
#include "latring.h"
#include "out.h"
#include "res.h"
#include "run_hlog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Types of the raw samples a worker queues for the latency log, and the message type column
 * they are written with ("Upd", "Pst", "Gen"). */
enum run_sample_type { RUN_SAMPLE_UPD, RUN_SAMPLE_POST, RUN_SAMPLE_GEN, RUN_SAMPLE_TYPES };

typedef struct run_col_thread {
    latbuf *lat;      /* the worker's latency hand-over; NULL: never started */
    latring *ring;    /* its raw samples; NULL without a latency log */
    out_csv stats;    /* its statistics file */
    out_csv latlog;   /* its latency log (closed without -latencyFile) */
    lat *tot;         /* kinds recorders: every sample so far */
    uint64_t dropped; /* samples its ring refused, as last reported */
    run_hlog *hlog;   /* its histogram log; NULL without -histogramLog */
} run_col_thread;

typedef struct run_col {
    int n;        /* workers */
    size_t kinds; /* latency recorders per set */
    run_col_thread *t;
    int64_t wait_ns; /* how long to wait for a worker's latency set */
    res res;
    bool res_ok;
    double cpu, mem_mb; /* the last interval's sample (0 when none) */
    time_t wall;        /* wall-clock time of the last interval */
    latring_sample *samples;
    size_t samples_cap;
    const char *const *hlog_tags; /* per kind: tag in the histogram logs, NULL: not logged */
    lat *scratch;                 /* every worker's totals of one kind (run_col_percentile) */
} run_col;

/* Prepares the totals of n workers with `kinds` latency recorders each, paced at tick_rate
 * ticks per second, and takes the CPU baseline. Files stay closed until the tool opens them
 * (run_col_stats / run_col_latlog). Returns 0, or -1 with err_msg() set. */
int run_col_init(run_col *c, int n, size_t kinds, int tick_rate);

/* Closes the files and frees the totals. */
void run_col_free(run_col *c);

/* The wait for a worker's latency set at tick_rate ticks per second (the rule above). */
int64_t run_col_wait_ns(int tick_rate);

/* Worker i's hand-over and sample ring (NULL: none), once the worker is started. */
void run_col_watch(run_col *c, int i, latbuf *hand, latring *ring);

/* Worker i's statistics file and latency log, for the tool to open and write rows to. */
static inline out_csv *run_col_stats(run_col *c, int i)
{
    return &c->t[i].stats;
}
static inline out_csv *run_col_latlog(run_col *c, int i)
{
    return &c->t[i].latlog;
}

/*
 * Histogram logs (-histogramLog <base>, run_hlog.h): creates every worker's log for `tool`, and
 * from then on writes each latency set taken from a worker to its log, kind k under tags[k]
 * (NULL: not written; the array must outlive the collector). pid > 0 puts it in the file names
 * (TransportPerf). Returns 0, or -1 (err_set naming the file).
 */
int run_col_hlog(run_col *c, const char *base, int pid, const char *tool, const char *const *tags);

/* Called after writing worker i's statistics row, with the writer's status: on a failure
 * prints "Error: <err_msg()>" once and closes the file (later rows are ignored). */
void run_col_row_done(run_col *c, int i, int rc);

/* Writes worker i's queued raw samples to its latency log and warns on stderr about the samples
 * its ring refused since the last time. */
void run_col_drain(run_col *c, int i);

/* run_col_drain for every worker: call every second. */
void run_col_drain_all(run_col *c);

/* Starts an interval: a CPU/memory sample (c->cpu, c->mem_mb) and the wall-clock time. */
void run_col_interval(run_col *c);

/* Worker i's latency set of the interval (waiting for it as the rule says), already added to
 * its totals, and its samples drained; NULL when the worker did not hand it over in time or
 * was never watched. The set stays valid until the next take of the same worker. */
const lat *run_col_take(run_col *c, int i);

/* After the workers were joined: takes every latency set they have not handed over (a set of
 * a hand-over that timed out, then the last active one) and their samples. */
void run_col_final(run_col *c);

/* The summary of latency `kind` over the run: of worker i, or of every worker when i < 0.
 * Returns 0, or -1 when memory runs out (out is then zeroed). */
int run_col_summary(const run_col *c, int i, size_t kind, stat_lat *out);

/* Percentile p of latency `kind` over the run so far, every worker's totals together (those
 * taken at the intervals), in nanoseconds; *count is the number of samples it is read from (0:
 * none, the result is then 0). For the progress line: with several workers it sums their
 * histograms into a recorder of the collector's, allocated once. */
double run_col_percentile(run_col *c, size_t kind, double p, uint64_t *count);

/* The process's CPU/memory samples of the run. */
void run_col_res(const run_col *c, stat_res *out);

#endif
