#include "latring.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

#define LATRING_MAX ((size_t)1 << 30)

int latring_init(latring *r, size_t capacity)
{
    memset(r, 0, sizeof(*r));
    if (capacity > LATRING_MAX)
        return err_set("latency sample ring: %zu samples is more than the %zu allowed", capacity,
                       LATRING_MAX);
    size_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    r->slots = calloc(cap, sizeof(latring_sample));
    if (!r->slots)
        return err_set("latency sample ring: out of memory for %zu samples", cap);
    r->mask = cap - 1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->dropped, 0);
    return 0;
}

void latring_free(latring *r)
{
    free(r->slots);
    r->slots = NULL;
}

size_t latring_pop(latring *r, latring_sample *out, size_t max)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (r->head_cache - t < max)
        r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t avail = r->head_cache - t;
    size_t n = avail < max ? (size_t)avail : max;
    for (size_t i = 0; i < n; i++)
        out[i] = r->slots[(t + i) & r->mask];
    if (n)
        atomic_store_explicit(&r->tail, t + n, memory_order_release);
    return n;
}

uint64_t latring_dropped(latring *r)
{
    return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}
