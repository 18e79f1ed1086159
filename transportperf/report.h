/*
 * TransportPerf reports: the result structures the transport threads and the main loop fill,
 * and the writers of every output (docs/tools.md#outputs):
 *
 *   - the summary (THREAD blocks when there are several, then the OVERALL SUMMARY with the
 *     process id), to the console and the summary file at once;
 *   - the statistics file of each thread (<stats base><n>_<pid>.csv) and its rows;
 *   - the console lines of each statistics interval;
 *   - the latency log (<latencyFile><n>_<pid>.csv, nanoseconds) through out_latlog_*;
 *   - the negative-latency warning, and the JSON summary.
 *
 * Latencies are stat_lat summaries in microseconds, printed with three decimals. Data volumes
 * count bytes as the threads count them (the sender with the transport header, the receiver
 * without); MB = bytes / 1,048,576.
 */
#ifndef RWFPERF_TPERF_REPORT_H
#define RWFPERF_TPERF_REPORT_H

#include "config.h"
#include "out.h"
#include "stats.h"
#include "tp_mcast.h"

#include <stdint.h>
#include <time.h>

/* What one thread did over the run (its connections), or every thread (tperf_result.total:
 * connect_ns the earliest connection, disconnect_ns the latest disconnection). */
typedef struct tperf_stats {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t msgs_recv;
    uint64_t bytes_recv;
    uint64_t out_of_bufs;          /* messages not sent for lack of output buffers */
    uint64_t seq_gaps;             /* gaps in the sequence numbers received (numbers ahead of the
                                      expected one; without a tracker, any wrong number) */
    uint64_t seq_lost;             /* numbers skipped by those gaps and not arrived since */
    bool tracked;                  /* numbers followed per sender (seqMCast, -seqGaps count): */
    uint64_t seq_dups;             /*   numbers received twice */
    uint64_t seq_ooo;              /*   numbers received after a later one (out of order) */
    uint64_t seq_short;            /*   messages too short to carry a number */
    uint64_t seq_untracked;        /*   messages of senders beyond the followed ones */
    const tp_seqtrack *const *trk; /* the trackers (their senders), n_trk of them */
    int n_trk;
    bool mcast; /* seqMCast: the channels' datagram counts */
    tp_mc_stats mc;
    uint64_t first_seq;     /* sequence number of the first message received (the sum over
                               threads for a total): what the sender had sent before this side
                               started receiving, as a shared-memory reader that attached late */
    uint64_t connect_ns;    /* connection became active (CLOCK_MONOTONIC ns) */
    uint64_t disconnect_ns; /* connection ended */
    double conn_secs;       /* connection-seconds spent sending (sum over connections); 0 =
                               unknown: the achieved per-connection rate divides by it */
    stat_lat lat;           /* latency of the time-stamped messages received */
    stat_lat lat_sched;     /* ... from their scheduled send time (count 0 = not measured) */
} tperf_stats;

/* The run as the summary reports it. */
typedef struct tperf_result {
    int thread_count;          /* threads */
    const tperf_stats *thread; /* thread_count entries; THREAD blocks only when > 1 */
    tperf_stats total;         /* every thread */
    stat_res res;              /* process CPU and memory samples */
    int pid;                   /* printed as "Process ID" */
} tperf_result;

/* Writes the summary that follows the TEST INPUTS block (or the console's "Shutting down."):
 * a THREAD block per thread when there are several, then the OVERALL SUMMARY ending with the
 * process id. Without CPU samples, "No CPU/Mem statistics taken." goes to the console alone. */
void tperf_report_summary(out_report *r, const tperf_config *cfg, const tperf_result *res);

/* Writes, to the console and the summary file, the warning TransportPerf prints the first time
 * a latency comes out negative (stamps from two hosts' unsynchronised clocks). The caller
 * prints it once per run. */
void tperf_report_negative_latency(out_report *r, uint64_t start, uint64_t end);

/* Whether a run of cfg follows message numbers per sender (seqMCast, -seqGaps count). */
bool tperf_tracked(const tperf_config *cfg);

/* One statistics interval of one thread; counts are for the interval only. */
typedef struct tperf_interval {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t msgs_recv;
    uint64_t bytes_recv;
    uint64_t out_of_bufs;
    stat_lat lat;       /* its count is the "Latency msgs received" */
    stat_lat lat_sched; /* count 0 = not measured */
    double cpu;         /* process CPU % of the interval */
    double mem_mb;      /* resident memory, MB */
    bool tracked;       /* with a tracker (seqMCast, -seqGaps count): */
    uint64_t gaps, dups, ooo;
    int64_t lost;     /*   net: late numbers take lost ones back */
    bool mcast;       /* seqMCast: */
    bool mcast_stats; /*   print the datagram counts (-mcastStats) */
    uint64_t pkts_sent, pkts_recv, retrans_sent, retrans_recv;
} tperf_interval;

/* Writes one thread's console lines for an interval ending `sec` seconds into the run. thread
 * is 1-based; with several threads the heading is "NNN: Thread <n>:". */
void tperf_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                           const tperf_interval *iv);

/* Writes the statistics file's header into buf: the original's 12 columns, then ours for
 * "Latency", then (cfg not NULL) the sequence counts with a tracker and the datagram counts
 * of seqMCast. Returns 0, or -1 when buf (1 KB is enough) is too small. */
int tperf_stats_header(char *buf, size_t size, const tperf_config *cfg);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int tperf_report_stats_row(out_csv *csv, time_t t, const tperf_interval *iv);

/* Creates thread `thread`'s (1-based) statistics file with its header (run_file_stats: the
 * file names of the run-time). Returns 0, or -1 (err_set naming the file). */
int tperf_stats_open(out_csv *csv, const tperf_config *cfg, int thread);

/* ---- report_seq.c: the sequence and seqMCast parts (ours) ---- */

/* The summary lines of s's sequence checks (and seqMCast datagrams and senders). */
void tperf_report_seq_lines(out_report *r, const tperf_stats *s);

/* The interval's "Multicast:" line (-mcastStats, the original's, before the CPU line) and our
 * "Sequence:" line (after it, only when something went wrong in the interval). */
void tperf_report_interval_mcast(FILE *f, const tperf_interval *iv);
void tperf_report_interval_seq(FILE *f, const tperf_interval *iv);

/* The statistics file's extra columns (header) and values (row) for cfg / iv; "" when none. */
int tperf_seq_header(char *buf, size_t size, const tperf_config *cfg);
void tperf_seq_values(char *buf, size_t size, const tperf_interval *iv);

/* Adds s's "sequence" and "multicast" members to the JSON object o. */
void tperf_seq_json(json_object *o, const tperf_stats *s);

/* Builds the JSON summary: out_json_doc's members, "inputs", "results" {"overall", "threads",
 * "resources"}. Caller owns the result. */
json_object *tperf_report_json(const tperf_config *cfg, const tperf_result *res,
                               const out_host *host, time_t now);

#endif
