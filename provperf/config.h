/*
 * ProvPerf configuration: every option of the ETA ProvPerf with its default and validation
 * (tools.md §1.2), parsed from the command line, and the TEST INPUTS block exactly as ProvPerf
 * 3.6.5 prints it, tab-indented "Connection Type" line included.
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
#include "run_ws.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Labels of ProvPerf's TEST INPUTS block are right-justified to this width. */
#define PROV_LABEL_WIDTH 24

typedef struct prov_config {
    pv_config pv; /* what ProvPerf shares with NIProvPerf: -p (default "14002"), -summaryFile
                   * ("ProvSummary.out"), -statsFile ("ProvStats"), ... */

    /* Server */
    run_ws ws;                /* -pl: WebSocket sub-protocols accepted */
    int tunnel_output_bufs;   /* -tunnelStreamOutputBufs, 15000 */
    bool tunnel_bufs_used;    /* -tunnelStreamBuffersUsed */
    int max_events_in_pool;   /* -maxEventsInPool: accepted, -1 (the layer has no
                               * event pool to size) */
    int max_output_bufs;      /* -maxOutputBufs, 5000 */
    int max_fragment_size;    /* -maxFragmentSize, 6144 */
    int compression_level;    /* -compressionLevel, 0..9, 0 (as the original) */
    bool support_standby;     /* -supportStandby (ours): warm standby advertised in the login
                               * refresh (a consumer's role is honoured in any case) */
    bool standby_ignore_role; /* -standbyIgnoreRole (ours): updates go on when a warm-standby
                               * consumer makes this server its standby */

    /* Test */
    int generic_msg_rate;         /* -genericMsgRate, per connection, 0 */
    int generic_msg_latency_rate; /* -genericMsgLatencyRate, 0, or OPT_RATE_ALL */
    uint64_t open_limit;          /* -openLimit, 1000000 */

    /* Files and output */
    char latency_file[PV_PATH_LEN]; /* -latencyFile, base name, "" = none */
} prov_config;

/* Fills cfg with ProvPerf's defaults. */
void prov_config_defaults(prov_config *cfg);

/*
 * Fills cfg from the command line: defaults, then argv, then the cross-option checks. Prints
 * the usage to out for -? / -help, and errors to err. Returns OPT_CONTINUE when the program
 * should run, else the exit status to end with (0 after the usage, 2 after an error).
 */
int prov_config_init(prov_config *cfg, int argc, char **argv, FILE *out, FILE *err);

/* The cross-option rules. Returns 0, or -1 after err_set() with the user-facing message. */
int prov_config_check(const prov_config *cfg);

/* The latency generic message rate as a number: the generic message rate when it is "all".
 * (The thread count and latency update rate: pv_config_threads, pv_config_latency_update_rate
 * of cfg->pv.) */
int prov_config_latency_genmsg_rate(const prov_config *cfg);

/* Writes the TEST INPUTS block (ending with its blank line) to r, as ProvPerf 3.6.5 prints it,
 * with our additional inputs (extra may be NULL) after the original's lines. */
void prov_config_print(const prov_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, plus "threadCount"). Caller owns. */
json_object *prov_config_json(const prov_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def prov_options[];

#endif
