/*
 * NIProvPerf configuration: every option of the ETA NIProvPerf with its default and validation
 * (docs/tools.md#options), parsed from the command line, and the TEST INPUTS block exactly as
 * NIProvPerf 3.6.5 prints it: labels right-justified to 22 characters, then, after a blank
 * line, four more lines justified to 21.
 *
 * -reactor connects each thread over the reactor layer (common/reactor) with the
 * non-interactive provider role, -workerThreads binds each connection's reactor worker. Options
 * of reliable multicast are recognised and refused (exit status 2) with a message saying they
 * are not available in this build. -compressionType, which the
 * original NIProvPerf lacks, is accepted as in every tool.
 */
#ifndef RWFPERF_NIPROV_CONFIG_H
#define RWFPERF_NIPROV_CONFIG_H

#include "out.h"
#include "pv_config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Labels of the TEST INPUTS block are right-justified to this width, those after its blank
 * line to NIPROV_LABEL_WIDTH_TAIL. */
#define NIPROV_LABEL_WIDTH 22
#define NIPROV_LABEL_WIDTH_TAIL 21

typedef struct niprov_config {
    pv_config pv; /* what NIProvPerf shares with ProvPerf and the other tools: -p (default
                   * "14003"), -summaryFile ("NIProvSummary.out"), -statsFile ("NIProvStats"),
                   * -h, -uname, -itemCount, -commonItemCount, -itemFile, ... */
} niprov_config;

/* Fills cfg with NIProvPerf's defaults. */
void niprov_config_defaults(niprov_config *cfg);

/* niprov_config_init, _check, _print (as NIProvPerf 3.6.5 prints it), _json, niprov_options.
 * (The number of connections and the latency update rate: pv_config_threads,
 * pv_config_latency_update_rate of cfg->pv.) */
RUN_OPTS_DECLARE_TOOL(niprov_config, niprov_config, niprov_options);

#endif
