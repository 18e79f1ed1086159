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

#include "opt.h"
#include "run_tls.h"
#include "out.h"
#include "run_ws.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ProvPerf runs at most this many provider threads. */
#define PROV_MAX_THREADS 128

/* Labels of ProvPerf's TEST INPUTS block are right-justified to this width. */
#define PROV_LABEL_WIDTH 24

#define PROV_NAME_LEN 256
#define PROV_PATH_LEN 512

typedef struct prov_config {
    /* Server */
    char port[64];                      /* -p, "14002" */
    char interface_name[PROV_NAME_LEN]; /* -if, "" = any */
    int conn_type;                      /* -connType: 0 = socket, 1 = encrypted (TLS) */
    run_tls tls;                        /* -keyfile, -cert, -cipher */
    run_ws ws;                          /* -pl: WebSocket sub-protocols accepted */
    opt_threads threads;                /* -threads: provider threads */
    bool reactor;                       /* -reactor: channels run over the reactor layer */
    opt_threads worker_threads;         /* -workerThreads: each thread's reactor worker */
    int tunnel_output_bufs;             /* -tunnelStreamOutputBufs, 15000 */
    bool tunnel_bufs_used;              /* -tunnelStreamBuffersUsed */
    int max_events_in_pool;             /* -maxEventsInPool: accepted, -1 (the layer has no
                                         * event pool to size) */
    int output_bufs;                    /* -outputBufs, guaranteed per channel, 5000 */
    int max_output_bufs;                /* -maxOutputBufs, 5000 */
    int max_fragment_size;              /* -maxFragmentSize, 6144 */
    int send_buf_size;                  /* -sendBufSize, 0 = system default */
    int recv_buf_size;                  /* -recvBufSize, 0 = system default */
    int high_water_mark;                /* -highWaterMark, 0 = transport default */
    bool tcp_nodelay;                   /* true unless -tcpDelay */
    bool direct_write;                  /* -directWrite */
    int compression_type;               /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    int compression_level;              /* -compressionLevel, 0..9, 0 (as the original) */

    /* Test */
    int run_time;                     /* -runTime, s, 360 */
    int tick_rate;                    /* -tickRate, 1000 */
    int update_rate;                  /* -updateRate, per connection, 100000 */
    int latency_update_rate;          /* -latencyUpdateRate, 10, or OPT_RATE_ALL */
    int generic_msg_rate;             /* -genericMsgRate, per connection, 0 */
    int generic_msg_latency_rate;     /* -genericMsgLatencyRate, 0, or OPT_RATE_ALL */
    int refresh_burst_size;           /* -refreshBurstSize, 10 */
    int max_pack_count;               /* -maxPackCount, 1 = no packing */
    int pack_buf_size;                /* -packBufSize, 6000 */
    uint64_t service_id;              /* -serviceId, 1 */
    char service_name[PROV_NAME_LEN]; /* -serviceName, "DIRECT_FEED" */
    uint64_t open_limit;              /* -openLimit, 1000000 */
    bool pre_enc;                     /* -preEnc */
    bool nano_time;                   /* -nanoTime */
    bool measure_encode;              /* -measureEncode */
    bool sched_stamp; /* scheduled send time in latency messages; false with -noScheduledStamp */

    /* Files and output */
    char msg_file[PROV_PATH_LEN];      /* -msgFile, "MsgData.xml" */
    char summary_file[PROV_PATH_LEN];  /* -summaryFile, "ProvSummary.out" */
    char stats_file[PROV_PATH_LEN];    /* -statsFile, base name, "ProvStats" */
    char latency_file[PROV_PATH_LEN];  /* -latencyFile, base name, "" = none */
    char histogram_log[PROV_PATH_LEN]; /* -histogramLog, base name, "" = none (ours) */
    int write_stats_interval;          /* -writeStatsInterval, s, 5 */
    bool display_stats;                /* false with -noDisplayStats */
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

/* Number of provider threads: the -threads entries, 1 by default. */
int prov_config_threads(const prov_config *cfg);

/* The latency update rate as a number: the update rate when it is "all". Likewise for generic
 * messages. */
int prov_config_latency_update_rate(const prov_config *cfg);
int prov_config_latency_genmsg_rate(const prov_config *cfg);

/* Writes the TEST INPUTS block (ending with its blank line) to r, as ProvPerf 3.6.5 prints it,
 * with our additional inputs (extra may be NULL) after the original's lines. */
void prov_config_print(const prov_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, plus "threadCount"). Caller owns. */
json_object *prov_config_json(const prov_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def prov_options[];

#endif
