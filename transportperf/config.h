/*
 * TransportPerf configuration: every option of the ETA TransportPerf with its default and
 * validation (docs/tools.md#options), parsed from the command line, the file names with the process
 * id, and the TEST INPUTS block exactly as TransportPerf 3.6.5 prints it.
 *
 * File names (docs/tools.md#outputs), as the original makes them:
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
#include "out.h"
#include "run_opts.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* TransportPerf runs at most this many threads. */
#define TPERF_MAX_THREADS 128

/* Labels of the TEST INPUTS block are right-justified to this width. */
#define TPERF_LABEL_WIDTH 22

/* -appType */
enum { TPERF_SERVER = 0, TPERF_CLIENT = 1 };

/* -seqGaps: what a receiver does when a message's sequence number is not the next one */
enum { TPERF_GAPS_FAIL = 0, TPERF_GAPS_COUNT = 1 };

/* Each message carries an 8-byte sequence number and an 8-byte time stamp. */
#define TPERF_MIN_MSG_SIZE 16

typedef struct tperf_config {
    run_opts opts; /* what every tool has: -h, -p ("14002"), -connType (socket, shmem,
                    * encrypted, seqMCast or websocket), seqMCast's groups (opts.mc), -pl
                    * (client: offered; server: accepted), -inputBufs (50), -compressionLevel
                    * (5), -runTime (300), ...; summary_file and stats_file are the final names
                    * (process id included): TransportSummary_<pid>.out, TransportStats */

    /* Connection */
    int app_type;   /* -appType: TPERF_SERVER (default) or TPERF_CLIENT */
    bool busy_read; /* -busyRead: read without waiting for readiness */

    /* Sequenced multicast (-connType seqMCast; its groups are opts.mc) */
    bool mcast_stats; /* -mcastStats: datagram counters in every statistics interval */

    /* Ours */
    int gap_mode; /* -seqGaps: TPERF_GAPS_FAIL (default, as the original) or COUNT */

    /* Test */
    int msg_rate;         /* -msgRate, per connection, 100000 */
    int latency_msg_rate; /* -latencyMsgRate, 10, or OPT_RATE_ALL */
    int msg_size;         /* -msgSize, bytes, 76 */
    int pack;             /* -pack, messages per buffer, 1 = no packing */
    bool reflect_msgs;    /* -reflectMsgs: write every received message back */
    int pid;              /* the process id in the file names */
} tperf_config;

/* Fills cfg with TransportPerf's defaults; pid goes into the file names. */
void tperf_config_defaults(tperf_config *cfg, int pid);

/* tperf_config_init (defaults with this process's id), _check, _print (as TransportPerf 3.6.5
 * prints it, with the blank line before the block too), _json (with the file names),
 * tperf_options. */
RUN_OPTS_DECLARE_TOOL(tperf_config, tperf_config, tperf_options);

/* Number of threads: the -threads entries, 1 by default. */
int tperf_config_threads(const tperf_config *cfg);

/* The latency message rate as a number: the message rate when it is "all". */
int tperf_config_latency_rate(const tperf_config *cfg);

/* Bytes a packed buffer needs: (msgSize + 8) × pack. The original ends the run when the
 * channel's maxFragmentSize is smaller (checked when the channel becomes active). */
int tperf_config_pack_bytes(const tperf_config *cfg);

#endif
