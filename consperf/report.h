/*
 * ConsPerf reports: the result structures the consumer threads and the main loop fill, and the
 * writers of every output (docs/tools.md#outputs):
 *
 *   - the summary (per-connection CLIENT blocks when there are several, then the OVERALL
 *     SUMMARY), to the console and the summary file at once;
 *   - the statistics file of each connection (ConsStats<n>.csv) and its rows;
 *   - the console lines of each statistics interval;
 *   - the latency log (<latencyFile><n>.csv) through out_latlog_*;
 *   - the JSON summary.
 *
 * The writers take plain numbers: times are CLOCK_MONOTONIC nanoseconds (0 = "did not happen"),
 * latencies are stat_lat summaries in microseconds. Every rate and duration is derived here, the
 * way ConsPerf derives it, except that a rate over an empty or negative time span is 0 where the
 * original would print nan, inf or -0.
 */
#ifndef RWFPERF_CONS_REPORT_H
#define RWFPERF_CONS_REPORT_H

#include "config.h"
#include "out.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* What one consumer connection measured over the whole run, or the whole run over every
 * connection (cons_result.total). */
typedef struct cons_stats {
    int item_count;                /* items this connection requests (total: -itemCount) */
    uint64_t image_start_ns;       /* first item request sent */
    uint64_t image_end_ns;         /* last expected image received; 0 = not all received */
    uint64_t first_update_ns;      /* first update received */
    uint64_t first_genmsg_sent_ns; /* first generic message sent */
    uint64_t first_genmsg_recv_ns; /* first generic message received */

    uint64_t requests;        /* item requests sent */
    uint64_t refreshes;       /* refreshes (images) received */
    uint64_t startup_updates; /* updates received before all images were in */
    uint64_t steady_updates;  /* updates received after */
    uint64_t posts_sent;
    uint64_t genmsgs_sent;
    uint64_t genmsgs_recv;
    uint64_t genmsg_lat_sent; /* generic messages sent with a latency stamp */

    stat_lat startup_lat; /* update latency before all images were in */
    stat_lat steady_lat;  /* ... after them (and after -delaySteadyStateCalc) */
    stat_lat overall_lat; /* every update latency */
    stat_lat post_lat;    /* post round-trip latency */
    stat_lat genmsg_lat;  /* generic message latency */

    /* The same latencies measured from the time each message was due by its sender's tick
     * schedule (count 0 = not measured: the lines are left out). */
    stat_lat startup_sched;
    stat_lat steady_sched;
    stat_lat overall_sched;
    stat_lat post_sched;
    stat_lat genmsg_sched;

    /* Warm standby: switches to the standby server, the last switch-over time in ns (the lost
     * server's last update to the new active server's first; -1: no update after it), items
     * open on the active server at the end. */
    uint32_t wsb_switches;
    int64_t wsb_switch_ns;
    int64_t wsb_promote_ns; /* loss detected -> standby made active (the longest) */
    int64_t wsb_first_ns;   /* loss detected -> first update from it (-1: none) */
    uint32_t wsb_items_open;
    uint64_t status_msgs; /* item status messages received (all the run) */

    char error[512]; /* why this connection failed, "" when it did not */
} cons_stats;

/* The run as the summary reports it. */
typedef struct cons_result {
    int thread_count;         /* connections */
    const cons_stats *thread; /* thread_count entries; CLIENT blocks only when > 1 */
    cons_stats total;         /* the whole run (with one connection: a copy of it) */
    stat_res res;             /* process CPU and memory samples */
    uint64_t now_ns;          /* when the summary is computed (the end of every time span) */
    int interrupted;          /* SIGINT or SIGTERM that ended the run early; 0: it was not */
    int steady_state_time;    /* the steady state's planned length, seconds (-steadyStateTime) */
} cons_result;

/*
 * Writes the summary that follows the TEST INPUTS block: a CLIENT block per connection when
 * there are several, the OVERALL SUMMARY, then (ours) "Test interrupted by SIGINT ..." when a
 * signal ended the run before its steady state completed, then a "ERROR: TEST FAILED ..."
 * paragraph for each connection that failed. Returns true when any connection failed or the run
 * was interrupted.
 */
bool cons_report_summary(out_report *r, const cons_config *cfg, const cons_result *res);

/* "SIGINT", "SIGTERM" (else "a signal"). */
const char *cons_signal_name(int sig);

/* One statistics interval of one connection: counts are for the interval only. The members
 * stand in the order of the console lines they are printed in. */
typedef struct cons_interval {
    uint64_t refreshes; /* images received */
    uint64_t posts_sent;
    uint64_t updates;          /* updates received (startup + steady) */
    double cpu;                /* process CPU % of the interval */
    double mem_mb;             /* resident memory, MB */
    stat_lat lat;              /* update latency */
    stat_lat lat_sched;        /* ... from the scheduled send time (count 0 = none) */
    uint64_t post_out_of_bufs; /* posts not sent for lack of output buffers */
    stat_lat post_lat;
    stat_lat post_sched;
    uint64_t genmsgs_sent;
    uint64_t genmsgs_recv;
    uint64_t genmsg_lat_sent;
    uint64_t genmsg_out_of_bufs;
    stat_lat genmsg_lat; /* its count is the "latencies received" */
    stat_lat genmsg_sched;
    stat_lat decode;      /* update decode time (-measureDecode; count 0 = none) */
    stat_lat tunnel_bufs; /* tunnel buffers in use, sampled (-tunnelStreamBuffersUsed) */
    uint64_t status_msgs; /* status messages received */
    int image_items;      /* > 0: print the connection's image retrieval line, once */
    uint64_t image_ns;    /* its image retrieval time */
} cons_interval;

/*
 * Writes one connection's console lines for an interval ending `sec` seconds into the run.
 * thread is 1-based; with one connection (threads == 1) the line starts "NNN: Images:", with
 * several "NNN: Client <n>:" and the values on the next line, as ConsPerf prints them.
 */
void cons_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                          const cons_interval *iv);

/* The console line printed once when every connection has all its images (several
 * connections only): "Overall image retrieval time for N images: X.XXXs (Y Images/s)." */
void cons_report_overall_images(FILE *f, int items, uint64_t ns);

/* Creates connection `thread`'s (1-based) statistics file with its header: the original's 23
 * columns, then ours (out_csv_lat_header for "Latency", "Posting Latency" and "GenMsg
 * Latency"). Returns 0, or -1 (err_set naming the file). */
int cons_stats_open(out_csv *csv, const cons_config *cfg, int thread);

/* Writes one statistics row for an interval ending at wall-clock time t. Returns 0 or -1. */
int cons_report_stats_row(out_csv *csv, time_t t, unsigned interval_secs, const cons_interval *iv);

/* Builds the JSON summary: out_json_doc's members, "inputs" (cons_config_json), "results"
 * {"overall", "threads": [...], "resources", "interrupted" (with "signal": "SIGINT" or
 * "SIGTERM" when true), "passed"}; an interrupted run has not passed. Caller owns the result. */
json_object *cons_report_json(const cons_config *cfg, const cons_result *res, const out_host *host,
                              int pid, time_t now);

#endif
