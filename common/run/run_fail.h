/*
 * run_fail: the exit codes of every tool, and the failure slot through which a worker thread's
 * failure, with its text, reaches the main thread.
 *
 * A slot is written by whoever fails first and read by the main thread, at any time (the
 * status is published with a release store after the text) or after joining the threads. A
 * slot may be one per thread (each thread its own error text, as ConsPerf reports them) or one
 * per run shared by every thread (the first failure wins, as the providers report it); either
 * way no lock is taken. Failing does not stop the run by itself: the caller decides, usually
 * with sig_request_stop(), so that one notion of "the run is ending" remains.
 */
#ifndef RWFPERF_RUN_FAIL_H
#define RWFPERF_RUN_FAIL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define RUN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RUN_PRINTF(a, b)
#endif

/* Exit status of every tool (README "Exit codes"). A worse status outranks a better one. */
enum {
    RUN_EXIT_OK = 0,      /* the run completed */
    RUN_EXIT_FAILED = 1,  /* the test failed (images late, peer lost, a thread's error) */
    RUN_EXIT_INVALID = 2, /* invalid command line, input file or options for the channel */
};

/* The worse of two exit statuses. */
static inline int run_worst(int a, int b)
{
    return a > b ? a : b;
}

#define RUN_FAIL_TEXT 1024

typedef struct run_fail {
    atomic_int claimed;   /* 1 once a writer took the text */
    atomic_int published; /* 1 once that writer's text is complete (release) */
    atomic_int worst;     /* the worst status any writer gave */
    char text[RUN_FAIL_TEXT];
} run_fail;

/* Empties the slot. Not to be called while another thread may fail into it. */
void run_fail_init(run_fail *f);

/*
 * Records a failure with exit status `status` (RUN_EXIT_FAILED or RUN_EXIT_INVALID) and the
 * formatted text: the first caller's text is kept, later callers only make the status worse.
 * Any thread. Returns true when this call's text was the one recorded.
 */
bool run_fail_set(run_fail *f, int status, const char *fmt, ...) RUN_PRINTF(3, 4);

/* run_fail_set with a va_list. */
bool run_fail_vset(run_fail *f, int status, const char *fmt, va_list ap) RUN_PRINTF(3, 0);

/* A worker's usual failure: records err_msg() (prefixed with "<what>: " when what is not NULL)
 * with RUN_EXIT_FAILED, and asks the run to stop (sig_request_stop). Returns -1, so that a
 * failing function can end with `return run_fail_stop(...)`. */
int run_fail_stop(run_fail *f, const char *what);

/* The status recorded so far (RUN_EXIT_OK when none). Any thread. */
int run_fail_status(const run_fail *f);

/* The text of the first failure, "" when none was published. */
const char *run_fail_text(const run_fail *f);

#endif
