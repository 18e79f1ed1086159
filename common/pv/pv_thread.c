#include "pv_thread.h"

#include "err.h"
#include "tick.h"

#include <stdio.h>

void *pv_thread_run(void *th, const cpu_entry *cpu, bool reactor, pv_stats *stats,
                    const pv_thread_fns *fns)
{
    if (cpu_bind(cpu) != 0) {
        char line[ERR_MSG_MAX + CPU_ENTRY_LEN + 64];
        snprintf(line, sizeof(line), "Error: Failed to bind thread to core %s: %s.", cpu->text,
                 err_msg());
        fns->bind_failed(th, line);
    } else if (reactor) {
        fns->reactor(th);
    } else {
        tick_tighten_slack();
        fns->bare(th);
    }
    latbuf_close(&stats->lat);
    return NULL;
}
