/*
 * ConsPerf's run: what the main thread and the consumer threads share.
 *
 * The main thread builds one cons_run (configuration, item list, dictionary when it could be
 * loaded from files, message data, latency random arrays, post user info) and one cons_thread
 * per connection, then starts the threads. From then on the run is read-only, and each
 * cons_thread is split in two by who writes it:
 *
 *   - the worker writes its counters (counter.h: relaxed single-writer), its latency recorders
 *     (latbuf.h: handed over at stats intervals), its raw latency samples (latring.h), a few
 *     moments (atomic ns stamps, written once), and on failure its failure slot (run_fail.h);
 *   - the main thread reads them, as "change since last time" for counters, and after joining
 *     the thread for the rest.
 *
 * Nothing on the worker's per-message path takes a lock or allocates.
 */
#ifndef RWFPERF_CONS_H
#define RWFPERF_CONS_H

#include "clksync.h"
#include "config.h"
#include "counter.h"
#include "cpu.h"
#include "items.h"
#include "latbuf.h"
#include "latring.h"
#include "lra.h"
#include "run_col.h"
#include "run_fail.h"
#include "run_ws.h"
#include "rwf.h"
#include "sig.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CONS_LOGIN_STREAM 1
#define CONS_DIRECTORY_STREAM 2
#define CONS_FIELD_DICT_STREAM 3
#define CONS_ENUM_DICT_STREAM 4
#define CONS_ITEM_STREAM_START 5 /* item i of a thread's share is on stream 5 + i */

/* The latency recorders of a thread (one latbuf set). "T_" kinds are the same samples
 * classified against the whole run's image retrieval end instead of the thread's own, kept
 * only when there are several threads. "SCH_" kinds are measured from the scheduled send
 * time. */
enum cons_lat_kind {
    CONS_LAT_UPD,           /* every update latency sample (the interval's and overall) */
    CONS_LAT_UPD_STARTUP,   /* received before the thread had all its images */
    CONS_LAT_UPD_STEADY,    /* received after them and after -delaySteadyStateCalc */
    CONS_LAT_UPD_T_STARTUP, /* received before the whole run had all its images */
    CONS_LAT_UPD_T_STEADY,  /* received after them and after -delaySteadyStateCalc */
    CONS_LAT_SCH,
    CONS_LAT_SCH_STARTUP,
    CONS_LAT_SCH_STEADY,
    CONS_LAT_SCH_T_STARTUP,
    CONS_LAT_SCH_T_STEADY,
    CONS_LAT_POST,
    CONS_LAT_POST_SCH,
    CONS_LAT_GEN,
    CONS_LAT_GEN_SCH,
    CONS_LAT_DECODE,      /* update decode time (-measureDecode) */
    CONS_LAT_TUNNEL_BUFS, /* tunnel buffers in use after each submit (x 1000: not a latency) */
    CONS_LAT_KINDS
};

/* Types of the raw samples pushed to the latency ring (-latencyFile): the run-time's. */
enum cons_sample_type {
    CONS_SAMPLE_UPD = RUN_SAMPLE_UPD,
    CONS_SAMPLE_POST = RUN_SAMPLE_POST,
    CONS_SAMPLE_GEN = RUN_SAMPLE_GEN
};

/* Counts a worker publishes (each written by that worker only). */
typedef struct cons_counters {
    counter requests;
    counter refreshes; /* refreshes received (images) */
    counter startup_updates;
    counter steady_updates;
    counter status_msgs;
    counter posts_sent;
    counter post_out_of_bufs;
    counter genmsgs_sent;
    counter genmsgs_recv;
    counter genmsg_lat_sent;
    counter genmsg_out_of_bufs;
} cons_counters;

struct cons_thread;
struct msgdata;

/* What every thread reads and nobody changes once the threads run. */
typedef struct cons_run {
    const cons_config *cfg;
    const items *list;          /* the first items_needed() items of -itemFile */
    const rwf_dict *dict;       /* loaded from the working folder; NULL: download it */
    const run_ws_conv *json;    /* WebSocket: the RWF <-> JSON converter (needs dict) */
    const struct msgdata *msgs; /* MsgData.xml when posting or sending generic messages */
    lra post_lra;               /* which post of which tick carries TIM_TRK_2 */
    lra gen_lra;                /* which generic message carries TIM_TRK_3 */
    bool post_lra_on, gen_lra_on;
    uint32_t post_user_addr; /* IPv4 of this host, host order */
    uint32_t post_user_id;   /* process id */
    int thread_count;
    struct cons_thread *threads; /* thread_count entries */
} cons_run;

typedef struct cons_thread {
    /* Set by the main thread before the worker starts. */
    cons_run *run;
    int index;            /* 0-based; console and files number it index + 1 */
    items_share share;    /* its items: see items_split() */
    cpu_entry cpu;        /* where to bind it */
    cpu_entry worker_cpu; /* where to bind its reactor's worker (-workerThreads) */
    bool worker_bound;    /* -workerThreads was given */
    sig_thread thread;    /* started by the main thread */

    /* Published by the worker, read by the main thread. */
    cons_counters c;
    latbuf lat;                         /* CONS_LAT_KINDS recorders */
    latring ring;                       /* raw samples for -latencyFile (capacity 0 without it) */
    bool has_ring;                      /* ring allocated */
    _Atomic uint64_t image_start_ns;    /* first item request sent */
    _Atomic uint64_t image_end_ns;      /* last image received (0: not all yet) */
    _Atomic uint64_t first_update_ns;   /* first update received */
    _Atomic uint64_t first_gen_sent_ns; /* first generic message sent */
    _Atomic uint64_t first_gen_recv_ns; /* first generic message received */
    _Atomic int done;                   /* the worker returned */
    run_fail fail;                      /* why the worker failed */
    /* Written by the worker, read by the main thread after joining it. */
    char conn_error[512]; /* the last failed connection attempt's reason, "" if none */
    char tls_version[16]; /* of the encrypted connection ("" when not encrypted) */
    char tls_cipher[64];
    clksync clksync;             /* the clock offset to its provider (clksync.h) */
    _Atomic uint64_t decode_sum; /* the running sum of decoded values (payload_stamps.sum) */
    /* Warm standby: switches to the standby server, the last switch-over time (the lost
     * server's last update to the new active's first; -1 while none came yet), the items
     * open on the active server at the end. */
    _Atomic uint32_t wsb_switches;
    _Atomic int64_t wsb_switch_ns;
    _Atomic int64_t wsb_promote_ns; /* last switch: loss detected -> standby made active */
    _Atomic int64_t wsb_first_ns;   /* last switch: loss detected -> new active's first update
                                     * (-1: none yet) */
    uint32_t wsb_items_open;
} cons_thread;

/* The worker thread's entry point; arg is its cons_thread. Runs until sig_stop_requested(),
 * publishing as described above, and fails the thread (its failure slot, and
 * sig_request_stop) on any error after the connection was made. */
void *cons_thread_main(void *arg);

/* Whether a thread counts towards "all images received": it has items to request. */
static inline bool cons_thread_has_items(const cons_thread *t)
{
    return t->share.count > 0;
}

#endif
