/*
 * ProvPerf configuration: every option of the ETA ProvPerf with its default and validation
 * (docs/tools.md#options), parsed from the command line, and the TEST INPUTS block exactly as
 * ProvPerf 3.6.5 prints it, tab-indented "Connection Type" line included.
 *
 * -reactor runs each provider thread's channels over the reactor layer (common/reactor),
 * -workerThreads binds each thread's reactor worker, -maxEventsInPool is accepted (the layer
 * needs no event pool); with -reactor a consumer may open a tunnel stream, whose buffers
 * -tunnelStreamOutputBufs and -tunnelStreamBuffersUsed size and report. Options of WebSocket are
 * recognised and refused (exit status 2) with a message saying they are not available in this
 * build; their TEST INPUTS lines are printed with the values the original prints when off.
 */
#ifndef RWFPERF_PROV_CONFIG_H
#define RWFPERF_PROV_CONFIG_H

#include "out.h"
#include "pv_config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Labels of ProvPerf's TEST INPUTS block are right-justified to this width. */
#define PROV_LABEL_WIDTH 24

typedef struct prov_config {
    pv_config pv; /* what ProvPerf shares with NIProvPerf and the other tools: -p (default
                   * "14002"), -summaryFile ("ProvSummary.out"), -statsFile ("ProvStats"),
                   * -maxOutputBufs (5000), -compressionLevel (0, as the original),
                   * -genericMsgRate, -tunnelStreamOutputBufs, ... */

    /* Server */
    int max_events_in_pool;   /* -maxEventsInPool: accepted, -1 (the layer has no
                               * event pool to size) */
    bool support_standby;     /* -supportStandby (ours): warm standby advertised in the login
                               * refresh (a consumer's role is honoured in any case) */
    bool standby_ignore_role; /* -standbyIgnoreRole (ours): updates go on when a warm-standby
                               * consumer makes this server its standby */

    /* Test */
    uint64_t open_limit; /* -openLimit, 1000000 */
} prov_config;

/* Fills cfg with ProvPerf's defaults. */
void prov_config_defaults(prov_config *cfg);

/* prov_config_init, _check, _print (as ProvPerf 3.6.5 prints it), _json, prov_options. */
RUN_OPTS_DECLARE_TOOL(prov_config, prov_config, prov_options);

/* The latency generic message rate as a number: the generic message rate when it is "all".
 * (The thread count and latency update rate: pv_config_threads, pv_config_latency_update_rate
 * of cfg->pv.) */
int prov_config_latency_genmsg_rate(const prov_config *cfg);

#endif
