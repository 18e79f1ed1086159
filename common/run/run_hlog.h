/*
 * run_hlog: the tools' histogram logs (-histogramLog <base>): the collector (run_col) writes each
 * latency set it takes from a worker to that worker's HdrHistogram interval log (hdr_log.h), one
 * line per latency kind with a tag, on the main thread, at interval ends. The workers' hot path
 * is untouched: the sets are the recorders the collector already takes, and their histograms
 * are HdrHistogram layouts written as they are.
 *
 * A worker's file is "<base><n>.hlog" (n from 1, as the tools name their latency logs), or
 * "<base><n>_<pid>.hlog" for TransportPerf. An interval runs from the previous take (the log's
 * opening for the first) to this one. The first tagged kind (the tool's main latency) is
 * written at every interval; any other from its first interval with samples on, so that a
 * series, once started, has a line per interval. The magnitudes of a kind's negative samples
 * (clocks that disagree) go to "<tag>-negative" lines when there are any.
 */
#ifndef RWFPERF_RUN_HLOG_H
#define RWFPERF_RUN_HLOG_H

#include "hdr_log.h"
#include "lat.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct run_hlog {
    hdr_log_writer w;
    double from;   /* start of the next interval, seconds since the epoch */
    bool *started; /* per kind: a line was written */
    bool failed;   /* a write failed (said once); nothing more is written */
} run_hlog;

/* The file name of thread `thread`'s (1-based) log into buf. Returns 0, or -1 when it does not
 * fit. */
int run_hlog_name(char *buf, size_t size, const char *base, int thread, int pid);

/* Creates thread `thread`'s log for `tool` with `kinds` latency kinds. Returns a new log, or
 * NULL (err_set naming the file). */
run_hlog *run_hlog_open(const char *base, int thread, int pid, const char *tool, size_t kinds);

/* Writes one interval ending now: a line per kind k of set (kinds recorders) whose tags[k] is
 * not NULL, as the rules above say. On a write error prints "Error: <what>" once and writes
 * nothing more. */
void run_hlog_write(run_hlog *h, const char *const *tags, size_t kinds, const lat *set);

/* Closes and frees the log (NULL allowed); prints "Error: <what>" when the file could not be
 * written whole. */
void run_hlog_close(run_hlog *h);

#endif
