/*
 * ConsPerf's run as the main thread holds it (main.c), and what it prepares before the
 * consumer threads start (setup.c): the item list, the dictionary when its files are found,
 * the message data, the latency stamp schedules, the threads and the statistics.
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

/* Releases what cons_app_prepare() made (after the threads were joined). */
void cons_app_free(cons_app *a);

#endif
