/*
 * counter: a monotonically increasing count written by one worker thread and read by the main
 * thread as "change since the last read" (updates sent, refreshes received, posts, generic
 * messages, bytes, out-of-buffer events, ...).
 *
 * The worker adds with a relaxed load and store of its own counter (one writer: no locked
 * read-modify-write, no fence; on x86 a plain add to memory). The main thread reads with a
 * relaxed load: the value may be a few increments behind, never torn, and what is not seen
 * in this interval is seen in the next. Totals therefore always add up.
 *
 * Put a thread's counters together in the thread's own struct, away from other threads'
 * data, so that two workers never write the same cache line.
 */
#ifndef RWFPERF_COUNTER_H
#define RWFPERF_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct counter {
    _Atomic uint64_t value; /* written by the owning worker only */
    uint64_t seen;          /* main thread only: value at its last counter_change() */
} counter;

/* Sets the count to 0. Call before the worker starts. */
static inline void counter_init(counter *c)
{
    atomic_init(&c->value, 0);
    c->seen = 0;
}

/* Worker (the single writer): adds n. */
static inline void counter_add(counter *c, uint64_t n)
{
    uint64_t v = atomic_load_explicit(&c->value, memory_order_relaxed);
    atomic_store_explicit(&c->value, v + n, memory_order_relaxed);
}

/* Worker: adds 1. */
static inline void counter_inc(counter *c)
{
    counter_add(c, 1);
}

/* Any thread: the count so far. */
static inline uint64_t counter_total(counter *c)
{
    return atomic_load_explicit(&c->value, memory_order_relaxed);
}

/* Main thread (one reader): the increase since its previous call (or since the start). */
static inline uint64_t counter_change(counter *c)
{
    uint64_t v = atomic_load_explicit(&c->value, memory_order_relaxed);
    uint64_t d = v - c->seen;
    c->seen = v;
    return d;
}

#endif
