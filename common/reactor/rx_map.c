/* rx_map: stream id -> pointer hash map (rx_map.h). */
#include "rx_map.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

int rx_map_init(rx_map *m, uint32_t hint)
{
    uint32_t cap = 16;
    while (cap < hint * 2 && cap < (1u << 30))
        cap <<= 1;
    m->v = calloc(cap, sizeof(*m->v));
    if (!m->v)
        return err_set("out of memory for a stream map of %u slots", cap);
    m->cap = cap;
    m->n = 0;
    return 0;
}

void rx_map_free(rx_map *m)
{
    free(m->v);
    m->v = NULL;
    m->cap = m->n = 0;
}

/* Inserts into a map known to have room, without growing. */
static void put_raw(rx_map *m, int32_t key, void *val)
{
    uint32_t mask = m->cap - 1;
    for (uint32_t i = rx_map_hash(key) & mask;; i = (i + 1) & mask) {
        rx_map_slot *s = &m->v[i];
        if (!s->used) {
            s->used = 1;
            s->key = key;
            s->val = val;
            m->n++;
            return;
        }
        if (s->key == key) {
            s->val = val;
            return;
        }
    }
}

static int grow(rx_map *m)
{
    if (m->cap >= (1u << 30))
        return err_set("stream map is full (%u entries)", m->n);
    rx_map old = *m;
    m->v = calloc((size_t)old.cap * 2, sizeof(*m->v));
    if (!m->v) {
        *m = old;
        return err_set("out of memory growing a stream map to %u slots", old.cap * 2);
    }
    m->cap = old.cap * 2;
    m->n = 0;
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.v[i].used)
            put_raw(m, old.v[i].key, old.v[i].val);
    free(old.v);
    return 0;
}

int rx_map_put(rx_map *m, int32_t key, void *val)
{
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    put_raw(m, key, val);
    return 0;
}

void *rx_map_del(rx_map *m, int32_t key)
{
    uint32_t mask = m->cap - 1;
    uint32_t i = rx_map_hash(key) & mask;
    for (;; i = (i + 1) & mask) {
        if (!m->v[i].used)
            return NULL;
        if (m->v[i].key == key)
            break;
    }
    void *val = m->v[i].val;
    /* Backward shift: move later entries of the probe run into the hole. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & mask; m->v[j].used; j = (j + 1) & mask) {
        uint32_t home = rx_map_hash(m->v[j].key) & mask;
        /* j may move to hole when its home is not in (hole, j] cyclically. */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->v[hole] = m->v[j];
            hole = j;
        }
    }
    m->v[hole].used = 0;
    m->v[hole].val = NULL;
    m->n--;
    return val;
}

void rx_map_each(const rx_map *m, void (*fn)(int32_t key, void *val, void *arg), void *arg)
{
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->v[i].used)
            fn(m->v[i].key, m->v[i].val, arg);
}
