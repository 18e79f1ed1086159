/*
 * rx_ring: a single-producer single-consumer ring of variable-length records, the only
 * channel between the reactor's two threads.
 *
 * Records are 8-byte aligned and start with a rx_rec header whose first word is the record's
 * whole size. The producer reserves room (contiguous: a record never wraps; when the end of the
 * buffer is too close a padding record fills it), writes, commits, and publishes: only a publish
 * makes committed records visible to the consumer (one release store per batch). The consumer
 * peeks the next record, uses it in place (it may even rewrite it: the bytes are its own until
 * it consumes them), consumes it, and releases the space (one store per batch).
 *
 * Nothing allocates after rx_ring_init; nothing locks. The head and tail live on their own
 * cache lines. A record may be at most half the capacity (so that it always fits after a pad).
 */
#ifndef RWFPERF_RX_RING_H
#define RWFPERF_RX_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The header every record starts with. */
typedef struct rx_rec {
    uint32_t size; /* whole record, header included, multiple of 8 */
    uint16_t type; /* RX_REC_PAD or the user's types */
    uint16_t flags;
    uint32_t len;   /* payload bytes */
    uint32_t epoch; /* the user's session number */
    void *ptr;      /* the user's pointer (channel, heap payload) */
} rx_rec;

#define RX_REC_PAD 0
#define RX_REC_HDR ((uint32_t)sizeof(rx_rec))

typedef struct rx_ring {
    uint8_t *buf;
    uint64_t cap; /* power of two */
    /* producer side */
    _Alignas(64) _Atomic uint64_t head; /* published end */
    uint64_t prod_pos;                  /* committed end (>= head) */
    uint64_t res_pos;                   /* where the reserved record starts */
    uint64_t tail_cache;                /* last tail seen */
    /* consumer side */
    _Alignas(64) _Atomic uint64_t tail; /* released start */
    uint64_t cons_pos;                  /* next record to read (>= tail) */
    uint64_t head_cache;                /* last head seen */
} rx_ring;

/* The payload of a record (right after its header). */
static inline uint8_t *rx_rec_data(rx_rec *rec)
{
    return (uint8_t *)rec + RX_REC_HDR;
}

static inline uint32_t rx_align8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

/* Allocates a ring of at least bytes (rounded up to a power of two, at least 4 KiB). Returns 0,
 * or -1 with err_msg() set. */
int rx_ring_init(rx_ring *r, uint64_t bytes);

/* Frees the ring's memory (not the struct). */
void rx_ring_free(rx_ring *r);

/* Largest record size accepted (header included). */
static inline uint32_t rx_ring_max_record(const rx_ring *r)
{
    return (uint32_t)(r->cap / 2);
}

/* Producer: room for a record of `size` bytes (header included, will be rounded up to 8).
 * Returns the record (its header to be filled by rx_ring_commit) or NULL when the consumer has
 * not freed enough yet, or size exceeds rx_ring_max_record(). At most one reservation is open. */
static inline rx_rec *rx_ring_reserve(rx_ring *r, uint32_t size)
{
    size = rx_align8(size);
    if (size > rx_ring_max_record(r))
        return NULL;
    uint64_t pos = r->prod_pos;
    uint64_t off = pos & (r->cap - 1);
    uint64_t contig = r->cap - off;
    uint64_t need = size <= contig ? size : contig + size;
    if (r->cap - (pos - r->tail_cache) < need) {
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (r->cap - (pos - r->tail_cache) < need)
            return NULL;
    }
    if (size > contig) {
        rx_rec *pad = (rx_rec *)(r->buf + off);
        pad->size = (uint32_t)contig;
        pad->type = RX_REC_PAD;
        pos += contig;
        off = 0;
    }
    r->res_pos = pos;
    return (rx_rec *)(r->buf + off);
}

/* Producer: closes the reservation as a record of type with len payload bytes (len + header
 * must not exceed what was reserved). The record is visible after rx_ring_publish(). */
static inline void rx_ring_commit(rx_ring *r, rx_rec *rec, uint16_t type, uint32_t len)
{
    rec->size = rx_align8(RX_REC_HDR + len);
    rec->type = type;
    rec->len = len;
    r->prod_pos = r->res_pos + rec->size;
}

/* Producer: closes the reservation as a record of `size` bytes (header included, multiple of
 * 8) whose len field says something else (a record pointing to memory elsewhere). */
static inline void rx_ring_commit_sized(rx_ring *r, rx_rec *rec, uint16_t type, uint32_t len,
                                        uint32_t size)
{
    rec->size = size;
    rec->type = type;
    rec->len = len;
    r->prod_pos = r->res_pos + size;
}

/* Producer: drops the open reservation (a pad written for it stays, harmlessly, unpublished
 * until the next commit). */
static inline void rx_ring_cancel(rx_ring *r)
{
    (void)r;
}

/* Producer: makes every committed record visible. Sequentially consistent, so that a consumer
 * that announced it sleeps is seen (see rx_core.c). */
static inline void rx_ring_publish(rx_ring *r)
{
    atomic_store_explicit(&r->head, r->prod_pos, memory_order_seq_cst);
}

/* Producer: bytes committed and not yet published. */
static inline uint64_t rx_ring_unpublished(const rx_ring *r)
{
    return r->prod_pos - atomic_load_explicit(&r->head, memory_order_relaxed);
}

/* Consumer: the next record, or NULL when none is published. Pads are skipped. */
static inline rx_rec *rx_ring_peek(rx_ring *r)
{
    for (;;) {
        if (r->cons_pos == r->head_cache) {
            r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
            if (r->cons_pos == r->head_cache)
                return NULL;
        }
        rx_rec *rec = (rx_rec *)(r->buf + (r->cons_pos & (r->cap - 1)));
        if (rec->type != RX_REC_PAD)
            return rec;
        r->cons_pos += rec->size;
    }
}

/* Consumer: done with the record rx_ring_peek() returned. */
static inline void rx_ring_consume(rx_ring *r, const rx_rec *rec)
{
    r->cons_pos += rec->size;
}

/* Consumer: gives the consumed space back to the producer. */
static inline void rx_ring_release(rx_ring *r)
{
    atomic_store_explicit(&r->tail, r->cons_pos, memory_order_seq_cst);
}

/* Consumer: true when a published record waits (sequentially consistent load). */
static inline bool rx_ring_pending(rx_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_seq_cst) != r->cons_pos;
}

/* Either side: bytes free for the producer as last published by the consumer. */
static inline uint64_t rx_ring_free_bytes(rx_ring *r)
{
    return r->cap - (r->prod_pos - atomic_load_explicit(&r->tail, memory_order_acquire));
}

#endif
