/*
 * run_prog: the live progress line on a terminal (docs/outputs.md#the-progress-line).
 *
 * One line on stderr, drawn in place ("\r<text>\033[K") by the main thread once a second from
 * the counters its statistics already read: the time gone and left, the rate, the p99 so far
 * and the tool's own counts, one line for the whole process whatever its threads:
 *
 *     ConsPerf 17 s | steady state 12/60 s, 48 s left | 100,001 upd/s | p99 91 us | images ...
 *
 * It is drawn only when stderr is a terminal, and neither RWFPERF_NO_PROGRESS (set to anything
 * but "" or "0") nor the tool's -noProgress turns it off. Otherwise nothing changes at all.
 *
 * A console line must never land behind the progress text. So, when the line is to be drawn,
 * run_prog_init() puts a writer in front of stdout and stderr where they are terminals: what a
 * thread writes there first erases the line, which the next second draws again. The bytes
 * written are the tool's, unchanged. The writer and the drawing share one lock, taken only when
 * something is written to the terminal: never on a measuring path.
 *
 *     run_prog_init();                       first thing in main, before anything is written
 *     ...options parsed: if (-noProgress) run_prog_off();
 *     each second: run_prog_text t; run_prog_start(&t, "ConsPerf", now - start);
 *                  run_prog_add(&t, "%s upd/s", ...); ...; run_prog_draw(&t);
 *     at the end, before the summary: run_prog_end();
 */
#ifndef RWFPERF_RUN_PROG_H
#define RWFPERF_RUN_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decides whether the line is drawn (stderr a terminal, RWFPERF_NO_PROGRESS unset) and, when
 * it is, puts the erasing writer in front of stdout and stderr (those that are terminals). Call
 * once, before the first output. */
void run_prog_init(void);

/* No line from now on (-noProgress); what run_prog_init put in front stays, and only writes. */
void run_prog_off(void);

/* Whether the line is drawn: the tools build its text only then. */
bool run_prog_on(void);

/* The text of one drawing: parts separated by " | ". */
typedef struct run_prog_text {
    char s[512];
    size_t len;
} run_prog_text;

/* Starts the text with the tool's name and the seconds since its start. */
void run_prog_start(run_prog_text *t, const char *tool, int64_t elapsed_ns);

/* Adds a part (printf-style). */
void run_prog_add(run_prog_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Draws t as the line, cut to the terminal's width. Nothing when the line is off. */
void run_prog_draw(const run_prog_text *t);

/* Erases the line and draws it no more: call when the run ends, before the summary. */
void run_prog_end(void);

/* v with thousands separators ("100,001") into buf; returns buf. */
const char *run_prog_count(char *buf, size_t n, uint64_t v);

/* A latency in nanoseconds as the line shows it ("91 us", "12.3 ms") into buf; "-" when
 * there is no sample (count 0). Returns buf. */
const char *run_prog_latency(char *buf, size_t n, double ns, uint64_t count);

/* A rate from successive totals: the first call gives 0, each later one the increase per
 * second since the previous call. */
typedef struct run_prog_rate {
    int64_t ns;
    uint64_t total;
} run_prog_rate;
double run_prog_rate_next(run_prog_rate *r, uint64_t total, int64_t now_ns);

#endif
