/*
 * pv_stats: what one provider thread counts and measures, handed to the main thread.
 *
 * The worker adds to its counters (counter.h: one writer, relaxed, no locked instruction) and
 * records latencies into its latbuf sets (latbuf.h: swapped at the main thread's request at a
 * tick boundary); raw generic-message samples for -latencyFile go into a latring. The main
 * thread reads counters as changes since its last read, collects the latency sets once per
 * statistics interval, and drains the ring into the file. The few times (first generic message
 * sent and received, last channel closed) are written once or rarely by the worker with
 * relaxed stores and read the same way.
 *
 * Keep one pv_stats per worker, in the worker's own struct, so that two workers never write
 * the same cache line.
 */
#ifndef RWFPERF_PV_STATS_H
#define RWFPERF_PV_STATS_H

#include "counter.h"
#include "latbuf.h"
#include "latring.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Latency kinds in a pv_stats latbuf set. */
enum {
    PV_LAT_GENMSG,       /* generic messages received: now - TIM_TRK_3 */
    PV_LAT_GENMSG_SCHED, /* ... from their scheduled send time (TIM_TRK_1, ours) */
    PV_LAT_ENCODE,       /* -measureEncode: time to encode a latency update */
    PV_LAT_TUNNEL_BUFS,  /* tunnel buffers in use after each write (x 1000: not a latency) */
    PV_LAT_KINDS
};

/* Sample type of the latency-file ring (run_col.h's RUN_SAMPLE_GEN: written as "Gen"). */
#define PV_RING_GENMSG 2

typedef struct pv_stats {
    counter requests;        /* item requests received */
    counter refreshes;       /* images sent */
    counter updates;         /* updates sent */
    counter posts;           /* posts received (each reflected) */
    counter closes;          /* item closes received */
    counter out_of_bufs;     /* updates (and generic messages) dropped for lack of buffers */
    counter genmsgs_sent;    /* generic messages sent */
    counter genmsgs_recv;    /* generic messages received */
    counter genmsg_lat_sent; /* generic messages sent with a stamp */
    counter msgs_packed;     /* messages that went in packed buffers */
    counter packs;           /* packed buffers written */
    _Atomic int64_t first_genmsg_sent_ns; /* 0 = none yet */
    _Atomic int64_t first_genmsg_recv_ns;
    _Atomic int64_t inactive_ns; /* when a channel last closed; 0 = none did */
    _Atomic int64_t conn_ns;     /* nanoseconds of publishing of the channels closed so far */
    latbuf lat;                  /* PV_LAT_KINDS recorders per set */
    latring ring;                /* generic-message samples for the latency file */
    bool ring_on;                /* -latencyFile given */
    char pad[64];
} pv_stats;

/* How many counts a pv_stats keeps. */
#define PV_COUNTS 11

/* The counts of a pv_stats, as changes since the main thread's last look: by name, or as all[]
 * in the same order (to add them up). */
typedef union pv_counts {
    struct {
        uint64_t requests, refreshes, updates, posts, closes, out_of_bufs;
        uint64_t genmsgs_sent, genmsgs_recv, genmsg_lat_sent, msgs_packed, packs;
    };
    uint64_t all[PV_COUNTS];
} pv_counts;

_Static_assert(sizeof(pv_counts) == PV_COUNTS * sizeof(uint64_t), "pv_counts: PV_COUNTS counts");

/* sum += d, count by count. */
void pv_counts_add(pv_counts *sum, const pv_counts *d);

/* Main thread: the counts since its previous call into out, added to *sum when sum is not
 * NULL. */
void pv_stats_take(pv_stats *s, pv_counts *out, pv_counts *sum);

/* Sets everything to zero and allocates the latency sets, and the sample ring when ring_size
 * is not 0. Returns 0, or -1 with err_msg() set. */
int pv_stats_init(pv_stats *s, size_t ring_size);

/* Frees what pv_stats_init() allocated (after the worker has been joined). */
void pv_stats_free(pv_stats *s);

/* Worker: records the time of the first generic message sent / received. */
static inline void pv_stats_first(_Atomic int64_t *at, int64_t now_ns)
{
    if (!atomic_load_explicit(at, memory_order_relaxed))
        atomic_store_explicit(at, now_ns, memory_order_relaxed);
}

/* Worker: a channel that published from since_ns closed at now_ns. */
static inline void pv_stats_closed(pv_stats *s, int64_t since_ns, int64_t now_ns)
{
    int64_t c = atomic_load_explicit(&s->conn_ns, memory_order_relaxed);
    if (since_ns && now_ns > since_ns)
        atomic_store_explicit(&s->conn_ns, c + (now_ns - since_ns), memory_order_relaxed);
    atomic_store_explicit(&s->inactive_ns, now_ns, memory_order_relaxed);
}

/* Any thread: a relaxed read of one of the times. */
static inline int64_t pv_stats_time(_Atomic int64_t *at)
{
    return atomic_load_explicit(at, memory_order_relaxed);
}

#endif
