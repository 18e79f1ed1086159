/*
 * run_setup: what every tool sets up before its threads start and writes when they end, in
 * one place: the clock figures of the TEST INPUTS block, the schedule of latency stamps, the
 * names of the per-thread output files, the summary file, and the JSON summary beside it.
 */
#ifndef RWFPERF_RUN_SETUP_H
#define RWFPERF_RUN_SETUP_H

#include "lra.h"
#include "out.h"
#include "run_fail.h"
#include "run_tls.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The environment variable of the test-only clock skew: a whole number of nanoseconds (sign
 * allowed) added to every time the process reads (clk_use). Never set it in a real run. */
#define RUN_CLOCK_SKEW_ENV "RWFPERF_TEST_CLOCK_SKEW_NS"

/*
 * Selects the process's clock (clk_use): source (the -clock option, a clk_source) with the
 * skew read once here from RUN_CLOCK_SKEW_ENV (0 when unset or empty); then calibrates it and
 * fills *extra with our TEST INPUTS figures (OUT_EXTRA_NONE's values for what could not be
 * measured). Call it before any thread starts and before any time is read for later use.
 * Returns 0, or -1 with err_msg() naming what is wrong (a skew that is not a whole number).
 */
int run_extra_inputs(int source, out_extra *extra);

/*
 * Prepares the schedule of latency stamps for `rate` messages per second of which
 * `latency_rate` carry a stamp (OPT_RATE_ALL: every one), at `tick_rate` ticks per second,
 * drawn from seed. Sets *on to whether stamps are sent at all (rate and latency_rate not 0).
 * Returns 0, or -1 with err_msg() set (the caller adds the option's name).
 */
int run_stamps(lra *l, bool *on, int rate, int latency_rate, int tick_rate, uint64_t seed);

/* The name of thread `thread`'s (1-based) file of a per-thread output: "<base><n>.csv", or
 * "<base><n>_<pid>.csv" when pid > 0 (TransportPerf). Returns 0, or -1 when buf is too small. */
int run_file_name(char *buf, size_t size, const char *base, int thread, int pid);

/* Creates thread `thread`'s statistics file ("<base><n>[_<pid>].csv") with its header line.
 * Returns 0, or -1 (err_set naming the file). */
int run_file_stats(out_csv *csv, const char *base, int thread, int pid, const char *header);

/* run_file_stats with the header of up to 4 KB out_csv_header() makes of columns and
 * lat_kinds (the tool's own columns, then ours for each latency kind). */
int run_file_stats_built(out_csv *csv, const char *base, int thread, int pid, const char *columns,
                         const char *const *lat_kinds);

/* Creates thread `thread`'s latency log when base is not "" (-latencyFile), in the OMM tools'
 * form with a message type column when with_type, TransportPerf's without; leaves csv closed
 * (rows are ignored) when base is "". Returns 0, or -1 (err_set naming the file). */
int run_file_latency(out_csv *csv, const char *base, int thread, int pid, bool with_type);

/* Creates the summary file. Returns it, or NULL after printing "Error: Failed to open file
 * '<path>': <reason>" on stdout. */
FILE *run_summary_open(const char *path);

/* What run_start() asks of a tool: load(app) reads its input files (0, or -1 with err_msg()
 * set); print(app, extra, r) writes its TEST INPUTS block. */
typedef int (*run_load_fn)(void *app);
typedef void (*run_print_fn)(const void *app, const out_extra *extra, out_report *r);

/* What a provider's main thread keeps over its run (run_start to run_finish): the failure slot
 * its threads report to, the record of their encrypted sessions, and the summary written to the
 * console and the summary file. */
typedef struct run_main {
    run_fail fail;
    run_tls_seen tls_seen;
    out_report rep; /* the console and the summary file */
    FILE *summary;  /* the summary file */
} run_main;

/*
 * The start of a provider's main thread, in this order: the failure slot and the record of
 * encrypted sessions of m set up (run_fail_init, run_tls_seen_init), stdout line-buffered, the
 * signal handlers installed (sig_install; else "Error: <why>" on stderr and RUN_EXIT_FAILED),
 * the clock (-clock) selected and calibrated (run_extra_inputs; else "Config Error: <why>" on
 * stderr and RUN_EXIT_INVALID), the inputs loaded by load (else its message on stderr and
 * RUN_EXIT_INVALID), the summary file created (run_summary_open; else RUN_EXIT_INVALID), and the
 * TEST INPUTS block written by print through m->rep to the console and m->summary. Returns
 * RUN_EXIT_OK with m->summary open and m->rep set up, or the exit status to end with.
 */
int run_start(run_main *m, void *app, run_load_fn load, run_print_fn print,
              const char *summary_file, int clock);

/* The end of a provider's main thread, once its summary lines are written through m->rep: the
 * summary flushed and its file closed, the JSON summary doc (given the TLS sessions seen,
 * run_tls_seen_to_results) written beside summary_file (run_json_summary, which releases it),
 * and "Exiting." on stdout. */
void run_finish(run_main *m, const char *summary_file, json_object *doc);

/* Writes the JSON summary doc beside summary_file (out_json_path) and releases doc (which may
 * be NULL: json-c ran out of memory). Returns 0, or -1 after printing why on stderr. */
int run_json_summary(const char *summary_file, json_object *doc);

#endif
