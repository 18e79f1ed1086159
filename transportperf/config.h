/*
 * TransportPerf configuration: every option of the ETA TransportPerf with its default and
 * validation (tools.md §1.4), parsed from the command line, the file names with the process
 * id, and the TEST INPUTS block exactly as TransportPerf 3.6.5 prints it.
 *
 * File names (tools.md §3.1), as the original makes them:
 *   summary  TransportSummary_<pid>.out; -summaryFile X gives X_<pid>.out; -summaryFileStatic X
 *            gives X.out
 *   stats    <base><thread>_<pid>.csv with base TransportStats; -statsFile X makes the base
 *            X_<pid> (so X_<pid><thread>_<pid>.csv); -statsFileStatic X makes it X
 *   latency  <latencyFile><thread>_<pid>.csv
 *
 * Sequenced multicast (-connType seqMCast) takes the original's -sa/-sp/-ra/-rp/-u and
 * -mcastStats; options of ours choose what a receiver does on a sequence gap (-seqGaps) and
 * switch on a loss generator (-recvLoss). Options of WebSocket connections, reliable multicast
 * (a closed protocol) and HTTP tunnelling (Windows only in the original) are recognised and
 * refused (exit status 2) with a message saying why.
 */
#ifndef RWFPERF_TPERF_CONFIG_H
#define RWFPERF_TPERF_CONFIG_H

#include "opt.h"
#include "run_tls.h"
#include "run_ws.h"
#include "out.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* TransportPerf runs at most this many threads. */
#define TPERF_MAX_THREADS 128

/* Labels of the TEST INPUTS block are right-justified to this width. */
#define TPERF_LABEL_WIDTH 22

#define TPERF_NAME_LEN 256
#define TPERF_PATH_LEN 512

/* -appType */
enum { TPERF_SERVER = 0, TPERF_CLIENT = 1 };

/* -connType */
enum { TPERF_SOCKET = 0, TPERF_SHMEM = 1, TPERF_ENCRYPTED = 2, TPERF_SEQ_MCAST = 3,
       TPERF_WEBSOCKET = 4 };

/* -seqGaps: what a receiver does when a message's sequence number is not the next one */
enum { TPERF_GAPS_FAIL = 0, TPERF_GAPS_COUNT = 1 };

/* Each message carries an 8-byte sequence number and an 8-byte time stamp. */
#define TPERF_MIN_MSG_SIZE 16

typedef struct tperf_config {
    /* Connection */
    int app_type;                        /* -appType: TPERF_SERVER (default) or TPERF_CLIENT */
    int conn_type;                       /* -connType: TPERF_SOCKET (default), TPERF_SHMEM or
                                          * TPERF_ENCRYPTED or TPERF_WEBSOCKET */
    run_tls tls;                         /* -encryptedConnType, -castore, -keyfile, -cert */
    run_ws ws;                           /* -pl: WebSocket sub-protocols (client: offered;
                                          * server: accepted) */
    char host[TPERF_NAME_LEN];           /* -h, "localhost" (client, shmem client) */
    char port[64];                       /* -p, "14002" */
    char interface_name[TPERF_NAME_LEN]; /* -if, "" = any */
    opt_threads threads;                 /* -threads */
    int output_bufs;                     /* -outputBufs, 5000 */
    int input_bufs;                      /* -inputBufs, 50 (the guide's option) */
    int max_fragment_size;               /* -maxFragmentSize, 6144 */
    int send_buf_size;                   /* -sendBufSize, 0 = system default */
    int recv_buf_size;                   /* -recvBufSize, 0 = system default */
    int high_water_mark;                 /* -highWaterMark, 0 = transport default */
    int compression_type;                /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    int compression_level;               /* -compressionLevel, 0..9, 5 */
    bool tcp_nodelay;                    /* true unless -tcpDelay */
    bool direct_write;                   /* -directWrite */
    bool busy_read;                      /* -busyRead: read without waiting for readiness */

    /* Sequenced multicast (-connType seqMCast) */
    char send_addr[128];   /* -sa, "" = not given */
    char send_port[32];    /* -sp */
    char recv_addr[128];   /* -ra, "" = not given (then -h) */
    char recv_port[32];    /* -rp (then -p) */
    char unicast_port[32]; /* -u: printed, as the original does; seqMCast does not use it */
    bool mcast_stats;      /* -mcastStats: datagram counters in every statistics interval */

    /* Ours */
    int gap_mode;            /* -seqGaps: TPERF_GAPS_FAIL (default, as the original) or COUNT */
    int recv_loss_ppm;       /* -recvLoss <percent>, as parts per million: 0 = off */
    uint64_t recv_loss_seed; /* -recvLossSeed: 0 = from the clock */

    /* Test */
    int run_time;         /* -runTime, s, 300 */
    int tick_rate;        /* -tickRate, 1000 */
    int msg_rate;         /* -msgRate, per connection, 100000 */
    int latency_msg_rate; /* -latencyMsgRate, 10, or OPT_RATE_ALL */
    int msg_size;         /* -msgSize, bytes, 76 */
    int pack;             /* -pack, messages per buffer, 1 = no packing */
    bool reflect_msgs;    /* -reflectMsgs: write every received message back */

    /* Files and output; the names are final (process id included). */
    char summary_file[TPERF_PATH_LEN];  /* TransportSummary_<pid>.out */
    char stats_file[TPERF_PATH_LEN];    /* base of the statistics files */
    char latency_file[TPERF_PATH_LEN];  /* -latencyFile, base, "" = no latency log */
    char histogram_log[TPERF_PATH_LEN]; /* -histogramLog, base, "" = none (ours) */
    int write_stats_interval;           /* -writeStatsInterval, s, 5 */
    bool display_stats;                 /* false with -noDisplayStats */
    int pid;                            /* the process id in the file names */
} tperf_config;

/* WebSocket: -connType websocket, or encrypted with -encryptedConnType websocket (a client),
 * or a server given -pl. */
static inline bool tperf_config_websocket(const tperf_config *c)
{
    return c->conn_type == TPERF_WEBSOCKET ||
           (c->conn_type == TPERF_ENCRYPTED && c->tls.encrypted_protocol == TP_CONN_WEBSOCKET);
}

/* Fills cfg with TransportPerf's defaults; pid goes into the file names. */
void tperf_config_defaults(tperf_config *cfg, int pid);

/*
 * Fills cfg from the command line: defaults (with this process's id), then argv, then the
 * cross-option checks. Prints the usage to out for -? / -help, and errors to err. Returns
 * OPT_CONTINUE when the program should run, else the exit status to end with (0 after the
 * usage, 2 after an error).
 */
int tperf_config_init(tperf_config *cfg, int argc, char **argv, FILE *out, FILE *err);

/* The cross-option rules. Returns 0, or -1 after err_set() with the user-facing message. */
int tperf_config_check(const tperf_config *cfg);

/* The -connType word of a TPERF_ connection type ("socket", "shmem", "seqMCast"). */
const char *tperf_conn_name(int conn_type);

/* Number of threads: the -threads entries, 1 by default. */
int tperf_config_threads(const tperf_config *cfg);

/* The latency message rate as a number: the message rate when it is "all". */
int tperf_config_latency_rate(const tperf_config *cfg);

/* Bytes a packed buffer needs: (msgSize + 8) × pack. The original ends the run when the
 * channel's maxFragmentSize is smaller (checked when the channel becomes active). */
int tperf_config_pack_bytes(const tperf_config *cfg);

/* Writes the TEST INPUTS block (with the blank line before it and after it) to r, as
 * TransportPerf 3.6.5 prints it, with our additional inputs (extra may be NULL) after the
 * original's lines. */
void tperf_config_print(const tperf_config *cfg, const out_extra *extra, out_report *r);

/* The inputs as a new JSON object (every accepted option, the file names, "threadCount").
 * Caller owns. */
json_object *tperf_config_json(const tperf_config *cfg);

/* The option table (for usage and tests). */
extern const opt_def tperf_options[];

#endif
