/*
 * run_loop: the main thread's one-second loop, the same for every tool.
 *
 *     run_loop l;
 *     run_loop_init(&l, cfg->write_stats_interval, cfg->run_time);   (run_time < 0: none)
 *     int ev;
 *     while ((ev = run_loop_next(&l)) > 0) {
 *         if (ev == RUN_LOOP_INTERVAL) ...collect and report an interval...
 *         else run_col_drain_all(&col);
 *         ...the tool's own checks of the second (it may break out)...
 *     }
 *     if (ev == RUN_LOOP_END) printf("\nRun time of %d seconds has expired.\n", ...);
 *
 * Seconds are counted on an absolute schedule from run_loop_init(). While it waits, the loop
 * accepts connections on a server (run_loop_serve) and gives each to the least loaded
 * worker, and it sees a stop request (a signal, a worker's failure) within 100 ms.
 */
#ifndef RWFPERF_RUN_LOOP_H
#define RWFPERF_RUN_LOOP_H

#include "run_chan.h"
#include "tp.h"

#include <stdbool.h>
#include <stdint.h>

/* What run_loop_next() returns. */
enum {
    RUN_LOOP_STOP = 0,     /* a stop was requested */
    RUN_LOOP_END = -1,     /* the run time has passed */
    RUN_LOOP_SECOND = 1,   /* one more second */
    RUN_LOOP_INTERVAL = 2, /* one more second, which ends a statistics interval */
};

typedef struct run_loop {
    int64_t start_ns;
    int64_t end_ns; /* meaningful when has_end */
    bool has_end;
    unsigned sec;      /* seconds counted so far */
    unsigned interval; /* seconds per statistics interval */
    unsigned since;    /* seconds into the current interval */
    tp_server *srv;    /* accept while waiting (NULL: none) */
    run_handoff *const *to;
    int n_to;
    const run_accept_text *text;
} run_loop;

/* Starts the schedule now: statistics every interval_s seconds, the end after run_time_s
 * seconds (none when negative). */
void run_loop_init(run_loop *l, int interval_s, int run_time_s);

/* Accepts connections on srv while waiting, giving each to the least loaded of the n workers'
 * hand-overs (run_accept_all), and once at once. */
void run_loop_serve(run_loop *l, tp_server *srv, run_handoff *const *to, int n,
                    const run_accept_text *text);

/* Waits for the next second and says what it is (see the enum); returns RUN_LOOP_END without
 * waiting once the run time has passed, RUN_LOOP_STOP as soon as a stop is requested. */
int run_loop_next(run_loop *l);

struct run_prog_text;

/* Adds what the loop knows to a progress line (run_prog.h), as of now (clk_ns()): the whole
 * seconds of run time left, when the run has an end, and the channels open across the
 * hand-overs, when the loop serves. */
void run_loop_prog(const run_loop *l, struct run_prog_text *t, int64_t now);

#endif
