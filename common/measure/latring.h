/*
 * latring: a bounded single-producer / single-consumer ring of raw latency samples
 * (type, send stamp, receive stamp), for the optional latency CSV files.
 *
 * A worker pushes each sample it measures; the main thread drains the ring once per stats
 * interval and writes the rows. Pushing never blocks and never allocates: when the ring is
 * full the sample is counted as dropped and the worker moves on, so a slow disk cannot stall
 * a measurement. Size the ring for one interval of samples (latency rate x interval, with
 * room to spare); the drop count tells when it was too small.
 *
 * Each index is written by one side only. The producer publishes a filled slot with a release
 * store of `head`, and the consumer frees slots with a release store of `tail`; each side
 * keeps a cached copy of the other's index and reads the shared one (acquire) only when the
 * cached one says full or empty, so that in steady state the two sides do not share a
 * written cache line.
 */
#ifndef RWFPERF_LATRING_H
#define RWFPERF_LATRING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct latring_sample {
    int64_t send; /* sender's stamp, as read from the message */
    int64_t recv; /* receiver's stamp, same unit */
    uint32_t type;
} latring_sample;

typedef struct latring {
    /* Producer side. */
    _Atomic uint64_t head;    /* next slot to fill */
    uint64_t tail_cache;      /* producer's last view of tail */
    _Atomic uint64_t dropped; /* samples refused because the ring was full */
    char pad0[64];

    /* Consumer side. */
    _Atomic uint64_t tail; /* next slot to read */
    uint64_t head_cache;   /* consumer's last view of head */
    char pad1[64];

    /* Fixed after init. */
    uint64_t mask;
    latring_sample *slots;
} latring;

/* Allocates a ring for at least `capacity` samples (rounded up to a power of two, at least 2,
 * at most 2^30). Returns 0, or -1 with err_msg() set. */
int latring_init(latring *r, size_t capacity);

/* Frees the slots. Call when neither side uses the ring any more. */
void latring_free(latring *r);

/* Producer: appends a sample. Returns true, or false (counting it as dropped) when full. */
static inline bool latring_push(latring *r, uint32_t type, int64_t send, int64_t recv)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h - r->tail_cache > r->mask) {
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_cache > r->mask) {
            /* Only the producer writes the count: a plain add, no locked instruction. */
            uint64_t d = atomic_load_explicit(&r->dropped, memory_order_relaxed);
            atomic_store_explicit(&r->dropped, d + 1, memory_order_relaxed);
            return false;
        }
    }
    latring_sample *s = &r->slots[h & r->mask];
    s->send = send;
    s->recv = recv;
    s->type = type;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return true;
}

/* Consumer: moves up to max samples, oldest first, into out. Returns how many. */
size_t latring_pop(latring *r, latring_sample *out, size_t max);

/* Consumer (or anyone): samples dropped so far. */
uint64_t latring_dropped(latring *r);

/* The number of samples the ring holds. */
static inline size_t latring_capacity(const latring *r)
{
    return (size_t)r->mask + 1;
}

#endif
