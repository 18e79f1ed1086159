/*
 * pv_report: the report lines ProvPerf and NIProvPerf print alike: the first and last lines of
 * a provider thread's statistics interval on the console, our lines after a summary block, and
 * the members of the JSON summary about the achieved update rate.
 */
#ifndef RWFPERF_PV_REPORT_H
#define RWFPERF_PV_REPORT_H

#include "out.h"
#include "stats.h"

#include <stdint.h>
#include <stdio.h>

/* The first console line of one thread's interval ending `sec` seconds into the run: "NNN: "
 * (with several threads "NNN: Thread <n>:" and an indented new line; thread is 1-based), then
 * the update rate over interval_secs, the process CPU % and the resident memory in MB. */
void pv_report_interval_head(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                             uint64_t updates, double cpu, double mem_mb);

/* The last console lines of an interval, each only when it has something to say: closes
 * received, updates stopped for lack of output buffers, the update encoding time
 * (-measureEncode), the average of messages per packed buffer. */
void pv_report_interval_tail(FILE *f, uint64_t closes, uint64_t out_of_bufs, const stat_lat *encode,
                             uint64_t msgs_packed, uint64_t buffers_sent);

/* Our lines after a summary block's original ones: the updates stopped for lack of output
 * buffers (when any), then, when the connection time is known (conn_secs > 0), the achieved
 * per-connection update rate against the offered update_rate (out_rate_check). */
void pv_report_our_lines(out_report *r, uint64_t out_of_bufs, double conn_secs, int update_rate,
                         uint64_t updates);

/* Adds to o, when the connection time is known (conn_secs > 0): "connection_secs",
 * "offered_update_rate" and "achieved_update_rate". */
void pv_report_json_rate(json_object *o, double conn_secs, int update_rate, uint64_t updates);

#endif
