/*
 * ConsPerf configuration: every option of the ETA ConsPerf with its default and validation
 * (tools.md §1.1), parsed from the command line, and the TEST INPUTS block exactly as ConsPerf
 * 3.6.5 prints it.
 *
 * -reactor runs each connection over the reactor layer (common/reactor), -watchlist over its
 * watchlist too, -workerThreads binds the reactor's worker thread of each connection; -tunnel
 * (with -reactor or -watchlist) carries the item traffic inside a tunnel stream. Options of
 * warm standby and WebSocket/JSON are recognised and refused (exit status 2) with a message
 * saying they are not available in this build. Their TEST INPUTS lines are still printed, with
 * the values the original prints when they are off, so that parsers of the original's summary
 * find every line.
 */
#ifndef RWFPERF_CONS_CONFIG_H
#define RWFPERF_CONS_CONFIG_H

#include "opt.h"
#include "out.h"
#include "run_tls.h"
#include "run_ws.h"

#include <stdbool.h>
#include <stdio.h>

/* ConsPerf opens at most this many connections (one per -threads entry). */
#define CONS_MAX_THREADS 8

/* Labels of ConsPerf's TEST INPUTS block are right-justified to this width. */
#define CONS_LABEL_WIDTH 24

#define CONS_NAME_LEN 256
#define CONS_PATH_LEN 512

enum { CONS_WSB_NONE = 0, CONS_WSB_LOGIN = 1, CONS_WSB_SERVICE = 2 }; /* cons_config.wsb_mode */

typedef struct cons_config {
    /* Connection */
    char host[CONS_NAME_LEN];           /* -h, "localhost" */
    char port[64];                      /* -p, "14002" (a number or a service name) */
    char interface_name[CONS_NAME_LEN]; /* -if / -i, "" = any */
    int conn_type;                      /* -connType: 0 socket, 1 encrypted (TLS), 7 websocket */
    run_tls tls;                        /* -encryptedConnType, -castore, -spTLSv1.2 */
    run_ws ws;                          /* -pl: WebSocket sub-protocols offered, in order */
    int compression_type;               /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    opt_threads threads;                /* -threads: one connection per entry */
    int output_bufs;                    /* -outputBufs, guaranteed output buffers, 5000 */
    int max_output_bufs;                /* -maxOutputBufs / -maxOutputBuffer, 0 = outputBufs */
    int input_bufs;                     /* -inputBufs, 15 */
    int send_buf_size;                  /* -sendBufSize, 0 = system default */
    int recv_buf_size;                  /* -recvBufSize, 0 = system default */
    int high_water_mark;                /* -highWaterMark, 0 = transport default */
    bool tcp_nodelay;                   /* true unless -tcpDelay */
    char uname[CONS_NAME_LEN];          /* -uname, "" = the login name */
    char service_name[CONS_NAME_LEN];   /* -serviceName, "DIRECT_FEED" */
    bool reactor;                       /* -reactor: over the reactor layer */
    bool watchlist;                     /* -watchlist: over the reactor and its watchlist */
    opt_threads worker_threads;         /* -workerThreads: binding of each reactor's worker */
    bool tunnel;                        /* -tunnel: items, posts, generics inside a tunnel */
    bool tunnel_auth;                   /* -tunnelAuth: OMM-login authentication inside it */
    int tunnel_output_bufs;             /* -tunnelStreamOutputBufs, 15000 */
    bool tunnel_bufs_used;              /* -tunnelStreamBuffersUsed: print the buffer usage */
    /* Warm standby: on when the four host/port options are all given (then -watchlist is
     * needed); -h/-p are not used then. */
    char wsb_start_host[CONS_NAME_LEN];   /* -startingHostName */
    char wsb_start_port[64];              /* -startingPort */
    char wsb_standby_host[CONS_NAME_LEN]; /* -standbyHostName */
    char wsb_standby_port[64];            /* -standbyPort */
    int wsb_mode; /* -warmStandbyMode login|service (CONS_WSB_*, login by default): as
                   * given; cons_wsb_mode() is the mode in force */

    /* Test */
    int steady_state_time;        /* -steadyStateTime, s, 300; also the image timeout */
    int delay_steady_state_calc;  /* -delaySteadyStateCalc, ms, 0..30000 */
    int tick_rate;                /* -tickRate, 1000 */
    int item_count;               /* -itemCount, 100000 */
    int common_item_count;        /* -commonItemCount, 0 */
    int request_rate;             /* -requestRate, items/s, 500000 */
    bool snapshot;                /* -snapshot */
    int posting_rate;             /* -postingRate, posts/s per connection, 0 */
    int posting_latency_rate;     /* -postingLatencyRate, 0 */
    int generic_msg_rate;         /* -genericMsgRate, per connection, 0 */
    int generic_msg_latency_rate; /* -genericMsgLatencyRate, 0 */
    bool nano_time;               /* -nanoTime: latency stamps in ns */
    bool measure_decode;          /* -measureDecode */
    int expected_update_rate;     /* -expectedUpdateRate (ours), updates/s per connection, 0 */

    /* Files and output */
    char item_file[CONS_PATH_LEN];     /* -itemFile, "350k.xml" */
    char msg_file[CONS_PATH_LEN];      /* -msgFile, "MsgData.xml" */
    char summary_file[CONS_PATH_LEN];  /* -summaryFile, "ConsSummary.out" */
    char stats_file[CONS_PATH_LEN];    /* -statsFile, base name, "ConsStats" */
    char latency_file[CONS_PATH_LEN];  /* -latencyFile, base name, "" = no latency log */
    char histogram_log[CONS_PATH_LEN]; /* -histogramLog, base name, "" = none (ours) */
    int write_stats_interval;          /* -writeStatsInterval, s, 5 */
    bool display_stats;                /* false with -noDisplayStats */

    /* WebSocket JSON (modes.md §4) */
    bool calc_json_latency;  /* -calcRWFJSONConversionLatency: every received item message on a
                              * WebSocket RWF channel is also converted to JSON, inside the
                              * measured decode */
    bool add_conversion;     /* -addConversionOverhead: on a JSON channel, RWF is encoded and
                              * converted to JSON to send, and received JSON converted back to
                              * RWF to decode (else the JSON is read natively) */
    int json_allocator_size; /* -jsonAllocatorSize, 65536: printed; see the option's help */
} cons_config;

/* The channel is a WebSocket one (-connType websocket, or encrypted with -encryptedConnType
 * websocket). */
static inline bool cons_config_websocket(const cons_config *c)
{
    return c->conn_type == RUN_CONN_WEBSOCKET ||
           (c->conn_type == RUN_CONN_ENCRYPTED && c->tls.encrypted_protocol == TP_CONN_WEBSOCKET);
}

/* Fills cfg with ConsPerf's defaults. */
void cons_config_defaults(cons_config *cfg);

/*
 * Fills cfg from the command line: defaults, then argv, then the cross-option checks. Prints
 * the usage to out for -? / -help, and errors to err ("Config Error: ...", then how to see the
 * usage). Returns OPT_CONTINUE when the program should run, else the exit status to end with:
 * 0 after the usage, OPT_EXIT_INVALID (2) after an error.
 */
int cons_config_init(cons_config *cfg, int argc, char **argv, FILE *out, FILE *err);

/* The cross-option rules (rates against the tick rate, snapshot, common items, steady-state
 * delay, output buffers). Returns 0, or -1 after err_set() with the user-facing message. */
int cons_config_check(const cons_config *cfg);

/* Number of connections (consumer threads): the -threads entries, 1 by default. */
int cons_config_threads(const cons_config *cfg);

/* Writes the TEST INPUTS block (ending with its blank line) to r, as ConsPerf 3.6.5 prints it,
 * with our additional inputs (extra may be NULL) after the original's lines. */
void cons_config_print(const cons_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, plus "threadCount"). Caller owns. */
json_object *cons_config_json(const cons_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def cons_options[];

/* The warm-standby mode in force: -warmStandbyMode when the four host/port options are all
 * given (the original's rule), else CONS_WSB_NONE. */
static inline int cons_wsb_mode(const cons_config *c)
{
    if (!c->wsb_start_host[0] || !c->wsb_start_port[0] || !c->wsb_standby_host[0] ||
        !c->wsb_standby_port[0])
        return CONS_WSB_NONE;
    return c->wsb_mode;
}

#endif
