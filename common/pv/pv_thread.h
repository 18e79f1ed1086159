/*
 * pv_thread: what every provider thread (ProvPerf's, NIProvPerf's) has and does around its
 * loop: its number, CPU bindings, tick schedule and statistics; bound to its CPU, its reactor
 * loop or its bare one, and its latency sets closed at the end so that the collector takes the
 * last of them. A tool's thread holds a pv_thread and gives its own loops (pv_thread_fns).
 */
#ifndef RWFPERF_PV_THREAD_H
#define RWFPERF_PV_THREAD_H

#include "cpu.h"
#include "pv_stats.h"
#include "sig.h"
#include "tick.h"

#include <stdbool.h>
#include <stddef.h>

/* What one tool's provider threads do once bound; th is the tool's thread (the owner). */
typedef struct pv_thread_fns {
    void (*reactor)(void *th); /* the loop with -reactor */
    void (*bare)(void *th);    /* the loop over the thread's own channels */
    /* Reports that the thread could not be bound: line is the original's console line,
     * "Error: Failed to bind thread to core <cpu>: <why>." (err_msg() still says why). */
    void (*bind_failed)(void *th, const char *line);
} pv_thread_fns;

/* The part of a provider thread that every provider has. */
typedef struct pv_thread {
    int index;            /* 0-based; printed 1-based */
    sig_thread thread;    /* started by pv_thread_start */
    cpu_entry cpu;        /* where it runs */
    cpu_entry worker_cpu; /* where its reactor's worker runs (-reactor -workerThreads) */
    bool worker_bound;    /* worker_cpu was given */
    tick t;               /* its tick schedule */
    pv_stats stats;       /* its counters and latency sets, read by the collector */
    /* What the started thread runs (pv_thread_start). */
    void *owner;
    bool reactor;
    const pv_thread_fns *fns;
} pv_thread;

/* Sets p (zeroed by the caller) up as provider thread i (0-based), with a raw-sample ring of
 * ring samples for the latency log (0: none; pv_stats_init). Returns 0, or -1 with err_msg()
 * set. */
int pv_thread_init(pv_thread *p, int i, size_t ring);

/* Where p runs: its CPU from cpus (the first entry when it has fewer than p's number), and
 * with workers given and an entry for p, its reactor worker's CPU (worker_bound set). */
void pv_thread_cpus(pv_thread *p, const cpu_list *cpus, const cpu_list *workers);

/* Starts p (sig_thread_start: "starting provider thread <n>" on failure) running, in the new
 * thread, the body of a provider thread for owner: bound to p's CPU (else fns->bind_failed,
 * and no loop runs), fns->reactor(owner) when reactor, else fns->bare(owner), then p's latency sets
 * closed (latbuf_close). Returns 0, or -1 with err_msg() set. */
int pv_thread_start(pv_thread *p, void *owner, bool reactor, const pv_thread_fns *fns);

/* Frees what pv_thread_init() made (after the join). */
void pv_thread_free(pv_thread *p);

#endif
