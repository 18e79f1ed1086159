/*
 * pv_config: the inputs ProvPerf and NIProvPerf share, embedded as `pv` in each tool's
 * configuration: the inputs of every tool (run_opts, as `opts`) and the publishing test's
 * (rates, packing, service, encoding). The tools' option tables name these fields (pv.<field>,
 * pv.opts.<field>); their defaults, the thread count, the latency rate, the checks and the TEST
 * INPUTS lines both tools have are written here once.
 */
#ifndef RWFPERF_PV_CONFIG_H
#define RWFPERF_PV_CONFIG_H

#include "cpu.h"
#include "opt.h"
#include "out.h"
#include "run_opts.h"

#include <stdbool.h>
#include <stdint.h>

/* A provider runs at most this many threads. */
#define PV_MAX_THREADS 128

typedef struct pv_config {
    run_opts opts; /* what every tool has: -p, -threads, -runTime (360), -summaryFile, ... */

    /* Test */
    int update_rate;         /* -updateRate, per connection, 100000 */
    int latency_update_rate; /* -latencyUpdateRate, 10, or OPT_RATE_ALL */
    int refresh_burst_size;  /* -refreshBurstSize, 10 */
    int max_pack_count;      /* -maxPackCount, 1 = no packing */
    int pack_buf_size;       /* -packBufSize, 6000 */
    uint64_t service_id;     /* -serviceId, 1 */
    bool pre_enc;            /* -preEnc */
    bool measure_encode;     /* -measureEncode */
    bool sched_stamp; /* scheduled send time in latency messages; false with -noScheduledStamp */
} pv_config;

/*
 * Option table entries both providers have alike, for a configuration type T that embeds
 * pv_config as `pv`: PV_SOCKET_OPTIONS, the socket's sizes, -tcpDelay and -directWrite;
 * PV_UPDATE_RATE_OPTIONS, -updateRate, -latencyUpdateRate; PV_PACK_OPTIONS, -refreshBurstSize,
 * -maxPackCount, -packBufSize; PV_ENCODE_OPTIONS, -preEnc, -nanoTime, -measureEncode;
 * PV_FILE_OPTIONS, -msgFile, -summaryFile and -statsFile.
 */
#define PV_SOCKET_OPTIONS(T)                                                                       \
    RUN_OPT_SOCKET_SIZES(T, pv.opts), RUN_OPT_TCP_DELAY(T, pv.opts),                               \
        RUN_OPT_DIRECT_WRITE(T, pv.opts)
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
        RUN_OPT_NANO_TIME(T, pv.opts),                                                             \
        OPT_FLAG_("-measureEncode", T, pv.measure_encode,                                          \
                  "Measure the time spent encoding updates")
#define PV_FILE_OPTIONS(T)                                                                         \
    RUN_OPT_MSG_FILE(T, pv.opts, "Message content"), RUN_OPT_SUMMARY_STATS(T, pv.opts)

/* Fills c with the defaults both providers have (run_opts_defaults, -runTime 360); port,
 * summary_file and stats_file are the tool's own. */
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

/* TEST INPUTS lines both providers print, right-justified to w: pv_config_print_rates, "Update
 * Rate" and "Latency Update Rate"; pv_config_print_service, "Packing", "Service ID" and "Service
 * Name"; pv_config_print_encode, "Pre-Encoded Updates", "Nanosecond Time" and "Measure
 * Encode". */
void pv_config_print_rates(out_report *r, int w, const pv_config *c);
void pv_config_print_service(out_report *r, int w, const pv_config *c);
void pv_config_print_encode(out_report *r, int w, const pv_config *c);

#endif
