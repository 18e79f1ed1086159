/*
 * pv_thread: the body every provider thread (ProvPerf's, NIProvPerf's) runs around its loop:
 * bound to its CPU, its reactor loop or its bare one, and its latency sets closed at the end so
 * that the collector takes the last of them.
 */
#ifndef RWFPERF_PV_THREAD_H
#define RWFPERF_PV_THREAD_H

#include "cpu.h"
#include "pv_stats.h"

#include <stdbool.h>

/* What one tool's provider threads do once bound. */
typedef struct pv_thread_fns {
    void (*reactor)(void *th); /* the loop with -reactor */
    void (*bare)(void *th);    /* the loop over the thread's own channels */
    /* Reports that the thread could not be bound: line is the original's console line,
     * "Error: Failed to bind thread to core <cpu>: <why>." (err_msg() still says why). */
    void (*bind_failed)(void *th, const char *line);
} pv_thread_fns;

/* The body of provider thread th: binds it to cpu (else fns->bind_failed, and no loop runs),
 * runs fns->reactor(th) when reactor, else fns->bare(th) with the thread's timer slack tightened
 * (tick_tighten_slack), then closes the latency sets of stats (latbuf_close). Returns NULL, the
 * thread's result. */
void *pv_thread_run(void *th, const cpu_entry *cpu, bool reactor, pv_stats *stats,
                    const pv_thread_fns *fns);

#endif
