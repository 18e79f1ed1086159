#include "pv_thread.h"

#include "err.h"

#include <stdio.h>

int pv_thread_init(pv_thread *p, int i, size_t ring)
{
    p->index = i;
    return pv_stats_init(&p->stats, ring);
}

void pv_thread_cpus(pv_thread *p, const cpu_list *cpus, const cpu_list *workers)
{
    int i = p->index;
    p->cpu = cpus->entry[i < cpus->count ? i : 0];
    if (workers->given && i < workers->count) {
        p->worker_cpu = workers->entry[i];
        p->worker_bound = true;
    }
}

/* The started thread: see pv_thread_start. */
static void *body(void *arg)
{
    pv_thread *p = arg;
    if (cpu_bind(&p->cpu) != 0) {
        char line[ERR_MSG_MAX + CPU_ENTRY_LEN + 64];
        snprintf(line, sizeof(line), "Error: Failed to bind thread to core %s: %s.", p->cpu.text,
                 err_msg());
        p->fns->bind_failed(p->owner, line);
    } else if (p->reactor) {
        p->fns->reactor(p->owner);
    } else {
        p->fns->bare(p->owner);
    }
    latbuf_close(&p->stats.lat);
    return NULL;
}

int pv_thread_start(pv_thread *p, void *owner, bool reactor, const pv_thread_fns *fns)
{
    p->owner = owner;
    p->reactor = reactor;
    p->fns = fns;
    return sig_thread_start(&p->thread, body, p, "provider thread", p->index + 1);
}

void pv_thread_free(pv_thread *p)
{
    pv_stats_free(&p->stats);
}
