/*
 * rx_map: a hash map from 32-bit stream ids to pointers (open addressing, linear probing,
 * deletion by backward shift), for the watchlist's id mappings.
 *
 * Lookups and updates of existing keys allocate nothing; an insert that takes the map past
 * half full doubles it (a new stream, never a message of an open one).
 */
#ifndef RWFPERF_RX_MAP_H
#define RWFPERF_RX_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rx_map_slot {
    int32_t key;
    uint32_t used;
    void *val;
} rx_map_slot;

typedef struct rx_map {
    rx_map_slot *v;
    uint32_t cap; /* power of two */
    uint32_t n;
} rx_map;

/* Makes an empty map with room for about `hint` keys. Returns 0 or -1 (err_msg()). */
int rx_map_init(rx_map *m, uint32_t hint);
void rx_map_free(rx_map *m);

/* Stream ids are mostly consecutive (the watchlist's wire ids, the tools' ids). Runs of 64
 * consecutive ids keep consecutive slots, so a pass over the items in order reads the table
 * in order (as an array would be) instead of taking a cache miss per message; the runs are
 * spread by a multiplicative hash of the rest (a bijection on the low bits: dense ids never
 * collide), so that clusters, and the work of a deletion, stay short. */
static inline uint32_t rx_map_hash(int32_t key)
{
    uint32_t k = (uint32_t)key, run = k >> 6;
    run ^= run >> 13;
    return ((run * 0x9E3779B1u) << 6) | (k & 63u);
}

/* The value of key, or NULL. */
static inline void *rx_map_get(const rx_map *m, int32_t key)
{
    uint32_t mask = m->cap - 1;
    for (uint32_t i = rx_map_hash(key) & mask;; i = (i + 1) & mask) {
        const rx_map_slot *s = &m->v[i];
        if (!s->used)
            return NULL;
        if (s->key == key)
            return s->val;
    }
}

/* Sets key to val (replacing a value). Returns 0 or -1 (no memory; err_msg()). */
int rx_map_put(rx_map *m, int32_t key, void *val);

/* Removes key; returns its value or NULL. */
void *rx_map_del(rx_map *m, int32_t key);

/* Calls fn for every entry (the map must not change meanwhile). */
void rx_map_each(const rx_map *m, void (*fn)(int32_t key, void *val, void *arg), void *arg);

#endif
