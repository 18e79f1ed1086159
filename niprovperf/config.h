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

#include "opt.h"
#include "run_tls.h"
#include "out.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* NIProvPerf runs at most this many provider threads (one ADH connection each). */
#define NIPROV_MAX_THREADS 128

/* Labels of the TEST INPUTS block are right-justified to this width, those after its blank
 * line to NIPROV_LABEL_WIDTH_TAIL. */
#define NIPROV_LABEL_WIDTH 22
#define NIPROV_LABEL_WIDTH_TAIL 21

#define NIPROV_NAME_LEN 256
#define NIPROV_PATH_LEN 512

typedef struct niprov_config {
    /* Connection */
    char host[NIPROV_NAME_LEN];           /* -h, "localhost" */
    char port[64];                        /* -p, "14003" */
    char interface_name[NIPROV_NAME_LEN]; /* -if, "" = any */
    int conn_type;                        /* -connType: 0 = socket, 1 = encrypted (TLS) */
    run_tls tls;                          /* -encryptedConnType, -castore */
    int compression_type;                 /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    opt_threads threads;                  /* -threads: one connection per entry */
    bool reactor;                         /* -reactor: connections over the reactor layer */
    opt_threads worker_threads;           /* -workerThreads: each connection's reactor worker */
    int output_bufs;                      /* -outputBufs, 5000 */
    int send_buf_size;                    /* -sendBufSize, 0 = system default */
    int recv_buf_size;                    /* -recvBufSize, 0 = system default */
    int high_water_mark;                  /* -highWaterMark, 0 = transport default */
    bool tcp_nodelay;                     /* true unless -tcpDelay */
    bool direct_write;                    /* -directWrite */
    char uname[NIPROV_NAME_LEN];          /* -uname, "" = the login name */

    /* Test */
    int run_time;                       /* -runTime, s, 360 */
    int tick_rate;                      /* -tickRate, 1000 */
    int item_count;                     /* -itemCount, 100000 */
    int common_item_count;              /* -commonItemCount, 0 */
    int update_rate;                    /* -updateRate, per connection, 100000 */
    int latency_update_rate;            /* -latencyUpdateRate, 10, or OPT_RATE_ALL */
    int refresh_burst_size;             /* -refreshBurstSize, 10 */
    int max_pack_count;                 /* -maxPackCount, 1 = no packing */
    int pack_buf_size;                  /* -packBufSize, 6000 */
    uint64_t service_id;                /* -serviceId, 1 */
    char service_name[NIPROV_NAME_LEN]; /* -serviceName, "DIRECT_FEED" */
    bool pre_enc;                       /* -preEnc */
    bool nano_time;                     /* -nanoTime */
    bool measure_encode;                /* -measureEncode */
    bool sched_stamp; /* scheduled send time in latency updates; false with -noScheduledStamp */

    /* Files and output */
    char item_file[NIPROV_PATH_LEN];     /* -itemFile, "350k.xml" */
    char msg_file[NIPROV_PATH_LEN];      /* -msgFile, "MsgData.xml" */
    char summary_file[NIPROV_PATH_LEN];  /* -summaryFile, "NIProvSummary.out" */
    char stats_file[NIPROV_PATH_LEN];    /* -statsFile, base name, "NIProvStats" */
    char histogram_log[NIPROV_PATH_LEN]; /* -histogramLog, base name, "" = none (ours) */
    int write_stats_interval;            /* -writeStatsInterval, s, 5 */
    bool display_stats;                  /* false with -noDisplayStats */
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

/* Number of connections (provider threads): the -threads entries, 1 by default. */
int niprov_config_threads(const niprov_config *cfg);

/* The latency update rate as a number: the update rate when it is "all". */
int niprov_config_latency_update_rate(const niprov_config *cfg);

/* Writes the TEST INPUTS block to r, as NIProvPerf 3.6.5 prints it (ending with its blank
 * line), with our additional inputs (extra may be NULL) after the original's lines. */
void niprov_config_print(const niprov_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, plus "threadCount"). Caller owns. */
json_object *niprov_config_json(const niprov_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def niprov_options[];

#endif
