/*
 * run_drv: the session driver, the one loop of every tool's worker threads (docs/driver.md).
 *
 * This part: the Reactor layer's connection settings of a consumer or non-interactive provider
 * channel, made from the run options by run_conn_tp() like every other connection's.
 */
#ifndef RWFPERF_RUN_DRV_H
#define RWFPERF_RUN_DRV_H

#include "run_conn.h"
#include "run_opts.h"
#include "rx.h"

/* Fills *co (rx_conn_opts_init first) for a channel the Reactor connects: its tp settings from
 * run_conn_tp(o, l) and the high-water mark set when it comes up. The strings of *co point
 * into o and l, which must outlive the channel. */
void run_drv_rx_conn(const run_opts *o, const run_link *l, rx_conn_opts *co);

#endif
