/*
 * ConsPerf's run as the main thread holds it (main.c), what it prepares before the consumer
 * threads start (setup.c): the item list, the dictionary when its files are found, the message
 * data, the latency stamp schedules, the threads and the statistics; and the summaries it
 * writes at the end (summary.c).
 */
#ifndef RWFPERF_CONS_APP_H
#define RWFPERF_CONS_APP_H

#include "collect.h"
#include "cons.h"
#include "msgdata.h"

#include <stdbool.h>
#include <stdio.h>

/* Everything the run owns, released in one place. */
typedef struct cons_app {
    cons_config cfg;
    items list;
    rwf_dict *dict;
    run_ws_conv *json; /* WebSocket: the RWF <-> JSON converter */
    msgdata msgs;
    bool have_msgs;
    cpu_list cpus;
    cpu_list worker_cpus; /* -workerThreads */
    cons_run run;
    cons_thread *threads;
    cons_collector col;
    FILE *summary;
} cons_app;

/* Everything before the threads start (a->cfg parsed). Returns OPT_CONTINUE, or the exit
 * status after printing why. */
int cons_app_prepare(cons_app *a);

/* Why the run ended, as far as the exit status and the summary are concerned. */
typedef enum cons_end {
    CONS_END_EXPIRED = 1, /* the steady-state time passed */
    CONS_END_SNAPSHOT,    /* snapshot mode: every image is in */
    CONS_END_IMAGES_LATE, /* the images were not all in within the steady-state time */
    CONS_END_STOPPED      /* SIGINT/SIGTERM or a thread's failure */
} cons_end;

/* After the threads were joined and the collector's final take (summary.c): writes the summary
 * (console and file) and the JSON summary, with the error texts of why the run ended. Returns
 * the exit status: 128 + the signal (130 SIGINT, 143 SIGTERM) when one ended the run before its
 * steady state completed (everything measured is written, "interrupted" said), RUN_EXIT_FAILED
 * when the summary says the test failed, the images were late or the results could not be
 * made, else RUN_EXIT_OK. */
int cons_app_summary(cons_app *a, cons_end why);

/* Releases what cons_app_prepare() made (after the threads were joined). */
void cons_app_free(cons_app *a);

#endif
