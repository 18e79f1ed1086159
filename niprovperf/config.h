/*
 * NIProvPerf configuration: every option of the ETA NIProvPerf with its default and validation
 * (tools.md §1.3), parsed from the command line, and the TEST INPUTS block exactly as
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
    pv_config pv; /* what NIProvPerf shares with ProvPerf: -p (default "14003"), -summaryFile
                   * ("NIProvSummary.out"), -statsFile ("NIProvStats"), ... */

    /* Connection */
    char host[PV_NAME_LEN];  /* -h, "localhost" */
    char uname[PV_NAME_LEN]; /* -uname, "" = the login name */

    /* Test */
    int item_count;        /* -itemCount, 100000 */
    int common_item_count; /* -commonItemCount, 0 */

    /* Files and output */
    char item_file[PV_PATH_LEN]; /* -itemFile, "350k.xml" */
} niprov_config;

/* Fills cfg with NIProvPerf's defaults. */
void niprov_config_defaults(niprov_config *cfg);

/*
 * Fills cfg from the command line: defaults, then argv, then the cross-option checks. Prints
 * the usage to out for -? / -help, and errors to err. Returns OPT_CONTINUE when the program
 * should run, else the exit status to end with (0 after the usage, 2 after an error).
 */
int niprov_config_init(niprov_config *cfg, int argc, char **argv, FILE *out, FILE *err);

/* The cross-option rules. Returns 0, or -1 after err_set() with the user-facing message. */
int niprov_config_check(const niprov_config *cfg);

/* (The number of connections and the latency update rate: pv_config_threads,
 * pv_config_latency_update_rate of cfg->pv.) */

/* Writes the TEST INPUTS block to r, as NIProvPerf 3.6.5 prints it (ending with its blank
 * line), with our additional inputs (extra may be NULL) after the original's lines. */
void niprov_config_print(const niprov_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, plus "threadCount"). Caller owns. */
json_object *niprov_config_json(const niprov_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def niprov_options[];

#endif
