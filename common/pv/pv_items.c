#include "pv_items.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

/* ---- hashing ------------------------------------------------------------------------------ */

static inline uint32_t mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static inline uint32_t hash_sid(int32_t sid)
{
    return mix32((uint32_t)sid);
}

/* Domain and name only: the parts every equal key shares (a name type of 1 equals an absent
 * one, so it cannot be hashed). */
static uint32_t hash_key(uint8_t domain, const pv_key *k)
{
    uint32_t h = 2166136261U ^ domain;
    h *= 16777619U;
    if (k->flags & PV_KEY_NAME)
        for (uint32_t i = 0; i < k->name_len; i++) {
            h ^= k->name[i];
            h *= 16777619U;
        }
    return mix32(h);
}

bool pv_key_equal(const pv_key *a, const pv_key *b)
{
    bool at = a->flags & PV_KEY_NAME_TYPE, bt = b->flags & PV_KEY_NAME_TYPE;
    if (at && bt) {
        if (a->name_type != b->name_type)
            return false;
    } else if (at || bt) {
        if ((at ? a->name_type : b->name_type) != 1)
            return false;
    }
    uint8_t diff = (uint8_t)((a->flags ^ b->flags) & ~PV_KEY_NAME_TYPE);
    if (diff)
        return false;
    if ((a->flags & PV_KEY_NAME) &&
        (a->name_len != b->name_len || memcmp(a->name, b->name, a->name_len) != 0))
        return false;
    if ((a->flags & PV_KEY_SERVICE_ID) && a->service_id != b->service_id)
        return false;
    if ((a->flags & PV_KEY_FILTER) && a->filter != b->filter)
        return false;
    if ((a->flags & PV_KEY_IDENTIFIER) && a->identifier != b->identifier)
        return false;
    if ((a->flags & PV_KEY_ATTRIB) &&
        (a->attrib_type != b->attrib_type || a->attrib_len != b->attrib_len ||
         memcmp(a->attrib, b->attrib, a->attrib_len) != 0))
        return false;
    return true;
}

/* Linear probing; slots hold item index + 1, 0 = empty. */
static void hash_put(uint32_t *tab, uint32_t cap, uint32_t h, uint32_t item)
{
    uint32_t m = cap - 1;
    for (uint32_t s = h & m;; s = (s + 1) & m)
        if (!tab[s]) {
            tab[s] = item + 1;
            return;
        }
}

static uint32_t item_hash_key(const pv_items *t, uint32_t i)
{
    return hash_key(t->v[i].domain, &t->keys[i]);
}

static uint32_t item_hash_sid(const pv_items *t, uint32_t i)
{
    return hash_sid(t->v[i].stream_id);
}

/* Removes item from a table by backward-shift deletion, so that no tombstones accumulate. */
static void hash_del(const pv_items *t, uint32_t *tab, uint32_t h, uint32_t item,
                     uint32_t (*rehash)(const pv_items *, uint32_t))
{
    uint32_t m = t->hash_cap - 1, s = h & m;
    while (tab[s] != item + 1) {
        if (!tab[s])
            return; /* not there (cannot happen for an open item) */
        s = (s + 1) & m;
    }
    uint32_t hole = s;
    for (s = (s + 1) & m; tab[s]; s = (s + 1) & m) {
        uint32_t home = rehash(t, tab[s] - 1) & m;
        /* The entry at s may move into the hole when its home is not in (hole, s]. */
        bool stays = hole <= s ? (home > hole && home <= s) : (home > hole || home <= s);
        if (!stays) {
            tab[hole] = tab[s];
            hole = s;
        }
    }
    tab[hole] = 0;
}

static int hash_grow(pv_items *t, uint32_t want)
{
    uint32_t cap = t->hash_cap ? t->hash_cap : 16;
    while (cap < want * 2)
        cap *= 2;
    if (cap == t->hash_cap)
        return 0;
    uint32_t *k = calloc(cap, sizeof(*k)), *s = calloc(cap, sizeof(*s));
    if (!k || !s) {
        free(k);
        free(s);
        return err_set("item table: out of memory for %u hash slots", cap);
    }
    free(t->by_key);
    free(t->by_sid);
    t->by_key = k;
    t->by_sid = s;
    t->hash_cap = cap;
    for (uint32_t i = 0; i < t->used; i++)
        if (t->v[i].list != PV_LIST_FREE) {
            hash_put(k, cap, item_hash_key(t, i), i);
            hash_put(s, cap, item_hash_sid(t, i), i);
        }
    return 0;
}

/* ---- lists -------------------------------------------------------------------------------- */

static void list_push_back(pv_items *t, pv_list *l, uint32_t i)
{
    pv_item *it = &t->v[i];
    it->next = PV_NONE;
    it->prev = l->tail;
    if (l->tail != PV_NONE)
        t->v[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
    l->count++;
}

static void list_unlink(pv_items *t, pv_list *l, uint32_t i)
{
    pv_item *it = &t->v[i];
    if (it->prev != PV_NONE)
        t->v[it->prev].next = it->next;
    else
        l->head = it->next;
    if (it->next != PV_NONE)
        t->v[it->next].prev = it->prev;
    else
        l->tail = it->prev;
    it->prev = it->next = PV_NONE;
    l->count--;
}

/* Takes i off whatever list it is on (keeping the update cursor valid). */
static void detach(pv_items *t, uint32_t i)
{
    pv_item *it = &t->v[i];
    if (it->list == PV_LIST_REFRESH) {
        list_unlink(t, &t->refresh, i);
    } else if (it->list == PV_LIST_UPDATE) {
        if (t->cursor == i) {
            /* The cursor steps back, so that the item after this one is taken next. */
            uint32_t p = it->prev != PV_NONE ? it->prev : t->update.tail;
            t->cursor = p == i ? PV_NONE : p;
        }
        list_unlink(t, &t->update, i);
        if (!t->update.count)
            t->cursor = PV_NONE;
    }
}

/* ---- table -------------------------------------------------------------------------------- */

int pv_items_init(pv_items *t, uint32_t expected)
{
    memset(t, 0, sizeof(*t));
    t->free = PV_NONE;
    t->refresh.head = t->refresh.tail = PV_NONE;
    t->update.head = t->update.tail = PV_NONE;
    t->cursor = PV_NONE;
    uint32_t cap = expected > 16 ? expected : 16;
    t->v = malloc((size_t)cap * sizeof(*t->v));
    t->keys = malloc((size_t)cap * sizeof(*t->keys));
    if (!t->v || !t->keys) {
        pv_items_free(t);
        return err_set("item table: out of memory for %u items", cap);
    }
    t->cap = cap;
    if (hash_grow(t, cap) != 0) {
        pv_items_free(t);
        return -1;
    }
    return 0;
}

void pv_items_free(pv_items *t)
{
    if (t->v)
        for (uint32_t i = 0; i < t->used; i++)
            if (t->v[i].list != PV_LIST_FREE)
                free((void *)t->keys[i].name);
    free(t->v);
    free(t->keys);
    free(t->by_key);
    free(t->by_sid);
    memset(t, 0, sizeof(*t));
    t->free = PV_NONE;
    t->refresh.head = t->refresh.tail = PV_NONE;
    t->update.head = t->update.tail = PV_NONE;
    t->cursor = PV_NONE;
}

static int grow_items(pv_items *t)
{
    uint32_t cap = t->cap * 2;
    pv_item *v = realloc(t->v, (size_t)cap * sizeof(*v));
    if (!v)
        return err_set("item table: out of memory for %u items", cap);
    t->v = v;
    pv_key *k = realloc(t->keys, (size_t)cap * sizeof(*k));
    if (!k)
        return err_set("item table: out of memory for %u keys", cap);
    t->keys = k;
    t->cap = cap;
    return 0;
}

int pv_items_add(pv_items *t, int32_t stream_id, uint8_t domain, const pv_key *key, uint8_t flags,
                 uint32_t *out)
{
    if (t->free == PV_NONE && t->used == t->cap && grow_items(t) != 0)
        return -1;
    if ((t->count + 1) * 2 > t->hash_cap && hash_grow(t, t->count + 1) != 0)
        return -1;

    size_t name_len = (key->flags & PV_KEY_NAME) ? key->name_len : 0;
    size_t attrib_len = (key->flags & PV_KEY_ATTRIB) ? key->attrib_len : 0;
    /* One allocation for both (at least one byte, so that a key always owns its memory). */
    uint8_t *mem = malloc(name_len + attrib_len + 1);
    if (!mem)
        return err_set("item table: out of memory for a key of %zu bytes", name_len + attrib_len);

    uint32_t i;
    if (t->free != PV_NONE) {
        i = t->free;
        t->free = t->v[i].next;
    } else {
        i = t->used++;
    }
    pv_key *k = &t->keys[i];
    *k = *key;
    if (name_len)
        memcpy(mem, key->name, name_len);
    if (attrib_len)
        memcpy(mem + name_len, key->attrib, attrib_len);
    k->name = mem;
    k->attrib = mem + name_len;
    if (!(key->flags & PV_KEY_NAME))
        k->name_len = 0;
    if (!(key->flags & PV_KEY_ATTRIB))
        k->attrib_len = 0;

    pv_item *it = &t->v[i];
    memset(it, 0, sizeof(*it));
    it->stream_id = stream_id;
    it->domain = domain;
    it->flags = flags;
    it->list = PV_LIST_REFRESH;
    list_push_back(t, &t->refresh, i);
    t->count++;
    hash_put(t->by_key, t->hash_cap, item_hash_key(t, i), i);
    hash_put(t->by_sid, t->hash_cap, item_hash_sid(t, i), i);
    *out = i;
    return 0;
}

void pv_items_remove(pv_items *t, uint32_t i)
{
    pv_item *it = &t->v[i];
    if (it->list == PV_LIST_FREE)
        return;
    hash_del(t, t->by_key, item_hash_key(t, i), i, item_hash_key);
    hash_del(t, t->by_sid, item_hash_sid(t, i), i, item_hash_sid);
    detach(t, i);
    free((void *)t->keys[i].name);
    memset(&t->keys[i], 0, sizeof(t->keys[i]));
    it->list = PV_LIST_FREE;
    it->next = t->free;
    t->free = i;
    t->count--;
}

uint32_t pv_items_find_stream(const pv_items *t, int32_t stream_id)
{
    uint32_t m = t->hash_cap - 1;
    for (uint32_t s = hash_sid(stream_id) & m; t->by_sid[s]; s = (s + 1) & m) {
        uint32_t i = t->by_sid[s] - 1;
        if (t->v[i].stream_id == stream_id)
            return i;
    }
    return PV_NONE;
}

uint32_t pv_items_find_key(const pv_items *t, uint8_t domain, const pv_key *key)
{
    uint32_t m = t->hash_cap - 1;
    for (uint32_t s = hash_key(domain, key) & m; t->by_key[s]; s = (s + 1) & m) {
        uint32_t i = t->by_key[s] - 1;
        if (t->v[i].domain == domain && pv_key_equal(&t->keys[i], key))
            return i;
    }
    return PV_NONE;
}

void pv_items_to_refresh(pv_items *t, uint32_t i)
{
    detach(t, i);
    t->v[i].list = PV_LIST_REFRESH;
    list_push_back(t, &t->refresh, i);
}

void pv_items_to_update(pv_items *t, uint32_t i)
{
    detach(t, i);
    t->v[i].list = PV_LIST_UPDATE;
    list_push_back(t, &t->update, i);
    if (t->cursor == PV_NONE)
        t->cursor = i;
}
