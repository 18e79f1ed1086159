/*
 * pv_config: the inputs ProvPerf and NIProvPerf share, embedded as `pv` in each tool's
 * configuration: the connection's transport options, the publishing test (rates, packing,
 * service, content) and the output files. The tools' option tables name these fields
 * (pv.<field>); their defaults, the thread count, the latency rate and the checks both tools
 * apply are written here once.
 */
#ifndef RWFPERF_PV_CONFIG_H
#define RWFPERF_PV_CONFIG_H

#include "cpu.h"
#include "opt.h"
#include "run_tls.h"

#include <stdbool.h>
#include <stdint.h>

/* A provider runs at most this many threads. */
#define PV_MAX_THREADS 128

#define PV_NAME_LEN 256
#define PV_PATH_LEN 512

typedef struct pv_config {
    /* Connection */
    char port[64];                    /* -p */
    char interface_name[PV_NAME_LEN]; /* -if, "" = any */
    int conn_type;                    /* -connType: 0 = socket, RUN_CONN_ENCRYPTED */
    run_tls tls;                      /* the encrypted connection's options */
    int compression_type;             /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    opt_threads threads;              /* -threads: provider threads */
    bool reactor;                     /* -reactor: channels run over the reactor layer */
    opt_threads worker_threads;       /* -workerThreads: each thread's reactor worker */
    int output_bufs;                  /* -outputBufs, guaranteed per channel, 5000 */
    int send_buf_size;                /* -sendBufSize, 0 = system default */
    int recv_buf_size;                /* -recvBufSize, 0 = system default */
    int high_water_mark;              /* -highWaterMark, 0 = transport default */
    bool tcp_nodelay;                 /* true unless -tcpDelay */
    bool direct_write;                /* -directWrite */

    /* Test */
    int run_time;                   /* -runTime, s, 360 */
    int tick_rate;                  /* -tickRate, 1000 */
    int update_rate;                /* -updateRate, per connection, 100000 */
    int latency_update_rate;        /* -latencyUpdateRate, 10, or OPT_RATE_ALL */
    int refresh_burst_size;         /* -refreshBurstSize, 10 */
    int max_pack_count;             /* -maxPackCount, 1 = no packing */
    int pack_buf_size;              /* -packBufSize, 6000 */
    uint64_t service_id;            /* -serviceId, 1 */
    char service_name[PV_NAME_LEN]; /* -serviceName, "DIRECT_FEED" */
    bool pre_enc;                   /* -preEnc */
    bool nano_time;                 /* -nanoTime */
    bool measure_encode;            /* -measureEncode */
    bool sched_stamp; /* scheduled send time in latency messages; false with -noScheduledStamp */

    /* Files and output */
    char msg_file[PV_PATH_LEN];      /* -msgFile, "MsgData.xml" */
    char summary_file[PV_PATH_LEN];  /* -summaryFile */
    char stats_file[PV_PATH_LEN];    /* -statsFile, base name */
    char histogram_log[PV_PATH_LEN]; /* -histogramLog, base name, "" = none (ours) */
    int write_stats_interval;        /* -writeStatsInterval, s, 5 */
    bool display_stats;              /* false with -noDisplayStats */
} pv_config;

/*
 * Option table entries both providers have alike, for a configuration type T that embeds
 * pv_config as `pv`: PV_SOCKET_OPTIONS, the socket's sizes (OPT_SOCKET_SIZES_), -tcpDelay and
 * -directWrite; PV_UPDATE_RATE_OPTIONS, -updateRate, -latencyUpdateRate; PV_PACK_OPTIONS,
 * -refreshBurstSize, -maxPackCount, -packBufSize; PV_ENCODE_OPTIONS, -preEnc, -nanoTime,
 * -measureEncode; PV_FILE_OPTIONS, -msgFile, -summaryFile and -statsFile.
 */
#define PV_SOCKET_OPTIONS(T)                                                                       \
    OPT_SOCKET_SIZES_(T, pv.send_buf_size, pv.recv_buf_size, pv.high_water_mark),                  \
        OPT_FLAG_OFF_("-tcpDelay", T, pv.tcp_nodelay,                                              \
                      "Leave Nagle's algorithm on (no TCP_NODELAY)"),                              \
        OPT_FLAG_("-directWrite", T, pv.direct_write,                                              \
                  "Write to the socket at once when nothing is queued")
#define PV_UPDATE_RATE_OPTIONS(T)                                                                  \
    OPT_INT_("-updateRate", T, pv.update_rate, 0, INT_MAX, "<updates/sec>",                        \
             "Updates per second per connection"),                                                 \
        OPT_RATE_("-latencyUpdateRate", T, pv.latency_update_rate, "<updates/sec|all>",            \
                  "Updates per second that carry a latency stamp (all: every update)")
#define PV_PACK_OPTIONS(T)                                                                         \
    OPT_INT_("-refreshBurstSize", T, pv.refresh_burst_size, 1, INT_MAX, "<count>",                 \
             "Refreshes sent between two looks at the clock"),                                     \
        OPT_INT_("-maxPackCount", T, pv.max_pack_count, 1, INT_MAX, "<count>",                     \
                 "Messages packed into one buffer (1: no packing)"),                               \
        OPT_INT_("-packBufSize", T, pv.pack_buf_size, 0, INT_MAX, "<bytes>",                       \
                 "Size of a packed buffer")
#define PV_ENCODE_OPTIONS(T)                                                                       \
    OPT_FLAG_("-preEnc", T, pv.pre_enc,                                                            \
              "Send pre-encoded updates (latency updates still encoded)"),                         \
        OPT_FLAG_("-nanoTime", T, pv.nano_time,                                                    \
                  "Latency stamps in nanoseconds instead of microseconds"),                        \
        OPT_FLAG_("-measureEncode", T, pv.measure_encode,                                          \
                  "Measure the time spent encoding updates")
#define PV_FILE_OPTIONS(T)                                                                         \
    OPT_STR_("-msgFile", T, pv.msg_file, "<file>", "Message content"),                             \
        OPT_STR_("-summaryFile", T, pv.summary_file, "<file>", "Summary file"),                    \
        OPT_STR_("-statsFile", T, pv.stats_file, "<base>",                                         \
                 "Statistics file base name (<base><thread>.csv)")

/* Fills c with the defaults both providers have; port, summary_file and stats_file are the
 * tool's own. */
void pv_config_defaults(pv_config *c, const char *port, const char *summary_file,
                        const char *stats_file);

/* Number of provider threads: the -threads entries (1 by default), or as the original the
 * -workerThreads entries when only those were given. */
int pv_config_threads(const pv_config *c);

/* The latency update rate as a number: the update rate when it is "all". */
int pv_config_latency_update_rate(const pv_config *c);

/* -workerThreads and -threads both given with different counts is an error. Returns 0, or -1
 * after err_set() with the "Config Error: ..." text. */
int pv_config_check_workers(const pv_config *c);

/* Checks the publishing options, in this order: -latencyUpdateRate against -updateRate and
 * -tickRate, -preEnc with "-latencyUpdateRate all", -measureEncode without latency updates,
 * -updateRate against -tickRate, -maxPackCount without -packBufSize. Returns 0, or -1 after
 * err_set() with the "Config Error: ..." text. */
int pv_config_check_feed(const pv_config *c);

#endif
