/*
 * latbuf: hands a worker thread's latency recorders to the main thread once per stats
 * interval, without a lock on the worker's record path and without data races.
 *
 * The worker owns two sets of `n` recorders (one per kind of latency it measures: updates,
 * posts, generic messages, ...). It records into the active set. When the main thread wants an
 * interval's figures it raises a request; at its next tick boundary the worker sees it, moves
 * to the other set (which the main thread emptied beforehand) and acknowledges. The main thread
 * then owns the set the worker left and reads it at leisure, until its next request.
 *
 *     worker, each loop iteration:           main thread, each stats interval:
 *       lat *cur = latbuf_cur(b);              const lat *iv = latbuf_collect(b, 50 * 1000000);
 *       lat_record(&cur[LAT_KIND_UPD], d);     if (iv) { lat_merge(&total, &iv[0]); ... }
 *       latbuf_poll(b);
 *     worker, on exit: latbuf_close(b);
 *
 * Ordering: the main thread empties the free set, then publishes the request with a release
 * store; the worker reads it with an acquire load before writing into that set. The worker
 * publishes its acknowledgement with a release store after its last write into the set it
 * leaves; the main thread reads it with an acquire load before reading that set. So every
 * recorder is written by one thread at a time, each hand-over is a happens-before edge, and
 * the worker's cost is one load per poll (plus a store per interval).
 *
 * A worker that stops polling (blocked, ended) is covered: latbuf_close() at its exit hands
 * over the active set for good, and a collect that times out returns NULL and leaves the
 * request standing, so that the samples arrive with a later interval instead of being lost.
 */
#ifndef RWFPERF_LATBUF_H
#define RWFPERF_LATBUF_H

#include "lat.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct latbuf {
    lat *set[2]; /* two sets of n recorders, one allocation */
    size_t n;

    /* Worker side. */
    lat *cur;      /* the active set */
    uint64_t seen; /* last request acted upon */
    char pad0[64];

    /* Shared: each written by one side only. */
    _Atomic uint64_t req; /* written by the main thread */
    _Atomic uint64_t ack; /* written by the worker */
    _Atomic int closed;   /* written by the worker at exit */
    char pad1[64];

    /* Main side. */
    uint64_t asked; /* requests raised so far */
    uint64_t got;   /* the request `owned` answers; asked != got while one is pending */
    lat *owned;     /* the set the main thread holds, to empty before the next request */
    bool final;     /* the worker closed and its last set was handed over */
} latbuf;

/* Allocates and empties two sets of n recorders (n >= 1). Returns 0, or -1 with err_msg()
 * set when memory runs out. The worker starts on set 0. */
int latbuf_init(latbuf *b, size_t n);

/* Frees the recorders. Call after the worker thread has been joined. */
void latbuf_free(latbuf *b);

/* Worker: the active set of n recorders. The pointer changes when latbuf_poll() flips. */
static inline lat *latbuf_cur(latbuf *b)
{
    return b->cur;
}

/* Worker: acts on a pending request (moves to the other set and acknowledges). Call at each
 * tick boundary or loop iteration; between calls the sets do not change hands. Returns true
 * when it flipped. */
static inline bool latbuf_poll(latbuf *b)
{
    uint64_t r = atomic_load_explicit(&b->req, memory_order_acquire);
    if (r == b->seen)
        return false;
    b->seen = r;
    b->cur = b->set[r & 1];
    atomic_store_explicit(&b->ack, r, memory_order_release);
    return true;
}

/* Worker: gives up the active set for good (call on the way out of the thread; no recording
 * afterwards). */
void latbuf_close(latbuf *b);

/* Main thread: empties the set it holds and asks the worker for the active one. Does
 * nothing while an earlier request is still pending or after the worker closed. */
void latbuf_request(latbuf *b);

/* Main thread: the set the worker handed over for the pending request, or NULL when it has not
 * yet acknowledged. After the worker closed, returns its last set once, then an empty set.
 * The set stays valid and unchanged until the next latbuf_request(). */
const lat *latbuf_take(latbuf *b);

/* Main thread: true once the worker closed and its last set was handed over (later sets are
 * empty). */
static inline bool latbuf_done(const latbuf *b)
{
    return b->final;
}

/* Main thread: latbuf_request(), then waits up to timeout_ns for latbuf_take() to succeed,
 * sleeping in short steps. Returns the interval's set, or NULL on timeout (the request stays
 * pending, so the samples come with a later interval). */
const lat *latbuf_collect(latbuf *b, int64_t timeout_ns);

#endif
