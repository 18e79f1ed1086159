/*
 * pv_items: the items a provider serves on one channel.
 *
 * Every open item has a stream id, a domain and a message key (a copy of the request's, or the
 * one a non-interactive provider makes up), and lives on exactly one of two lists:
 *
 *   - the refresh queue, first in first out: items whose refresh (image) is still to be sent.
 *     A provider drains it a few items at a time in the spare time of each tick;
 *   - the update ring: items that have had their refresh and now get updates (and generic
 *     messages), taken in turn by a cursor that goes round and round the ring.
 *
 * Two hash tables find an item by stream id and by domain + key, so that a request can be
 * checked against the open items (same key on another stream, stream reused for another key)
 * the way the ETA provider checks it; keys compare as rsslCompareMsgKeys() compares them (a
 * name type of 1 matches an absent one).
 *
 * Items are named by their index in the table (stable until the item is removed; a removed
 * item's index is reused by a later add). The hot part of an item (stream id, domain, template
 * cursors, list links) is a 24-byte struct in one array, so that walking the update ring for a
 * burst of updates touches little memory; keys sit in a parallel array and are read only when a
 * request arrives or a refresh is encoded.
 *
 * Adding and removing items allocates (they happen when requests arrive, not per update);
 * pv_items_next_update() and the list moves allocate nothing. One thread owns a table.
 */
#ifndef RWFPERF_PV_ITEMS_H
#define RWFPERF_PV_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "No item": what the lookups and list heads return when there is none. */
#define PV_NONE UINT32_MAX

/* Message key flags (the RWF values). */
#define PV_KEY_SERVICE_ID 0x01
#define PV_KEY_NAME 0x02
#define PV_KEY_NAME_TYPE 0x04
#define PV_KEY_FILTER 0x08
#define PV_KEY_IDENTIFIER 0x10
#define PV_KEY_ATTRIB 0x20

/* A message key. name and attrib point to bytes the key does not own when given to
 * pv_items_add(), and into the table's own copy when read back with pv_items_key(). */
typedef struct pv_key {
    uint8_t flags;       /* PV_KEY_* */
    uint8_t name_type;   /* with PV_KEY_NAME_TYPE */
    uint8_t attrib_type; /* with PV_KEY_ATTRIB: the attribute's container type (full id) */
    uint16_t service_id; /* with PV_KEY_SERVICE_ID */
    uint16_t name_len;   /* with PV_KEY_NAME, at most 255 */
    uint32_t filter;     /* with PV_KEY_FILTER */
    int32_t identifier;  /* with PV_KEY_IDENTIFIER */
    uint32_t attrib_len; /* with PV_KEY_ATTRIB */
    const uint8_t *name;
    const uint8_t *attrib;
} pv_key;

/* Item flags. */
#define PV_ITEM_STREAMING 0x01 /* streaming request: joins the update ring after its refresh */
#define PV_ITEM_PRIVATE 0x02   /* private stream: its refresh says so */
#define PV_ITEM_SOLICITED 0x04 /* requested (refresh SOLICITED); unset for NI-provider items */

/* Which list an item is on. */
enum { PV_LIST_FREE = 0, PV_LIST_REFRESH = 1, PV_LIST_UPDATE = 2 };

typedef struct pv_item {
    int32_t stream_id;
    uint8_t domain; /* RDM domain type */
    uint8_t flags;  /* PV_ITEM_* */
    uint8_t list;   /* PV_LIST_* */
    uint8_t reserved;
    uint16_t upd_tmpl; /* next update template of this item (round robin, owned by the caller) */
    uint16_t gen_tmpl; /* next generic-message template */
    uint32_t prev;     /* list links (item indices, PV_NONE at the ends); free list: next */
    uint32_t next;
} pv_item;

/* A list of items linked through prev/next. */
typedef struct pv_list {
    uint32_t head;
    uint32_t tail;
    uint32_t count;
} pv_list;

typedef struct pv_items {
    pv_item *v;        /* cap items */
    pv_key *keys;      /* cap keys, parallel to v; name/attrib in memory owned per item */
    uint32_t cap;      /* slots in v and keys */
    uint32_t used;     /* slots ever used (the free list holds the removed ones below it) */
    uint32_t free;     /* first free slot below used, PV_NONE when none */
    uint32_t count;    /* open items */
    pv_list refresh;   /* refresh queue */
    pv_list update;    /* update ring */
    uint32_t cursor;   /* the update-ring item taken last (the first one added when none was
                          taken yet), PV_NONE when the ring is empty */
    uint32_t *by_key;  /* open addressing: item index + 1, 0 = empty */
    uint32_t *by_sid;  /* same, by stream id */
    uint32_t hash_cap; /* slots in each hash table (power of two) */
} pv_items;

/* Sets up an empty table with room for about `expected` items before it first grows. Returns 0,
 * or -1 with err_msg() set when memory runs out. */
int pv_items_init(pv_items *t, uint32_t expected);

/* Frees the table and every item's key. The table may be initialised again. */
void pv_items_free(pv_items *t);

/* Adds an item on stream_id with a copy of key (name and attrib copied) and puts it at the
 * back of the refresh queue with the given PV_ITEM_* flags. The caller has checked that no open
 * item uses the stream id or the domain + key. Returns the new item's index in *out and 0, or
 * -1 with err_msg() set when memory runs out (the table is unchanged then). */
int pv_items_add(pv_items *t, int32_t stream_id, uint8_t domain, const pv_key *key, uint8_t flags,
                 uint32_t *out);

/* Removes item i from its list and both hash tables and frees its key. */
void pv_items_remove(pv_items *t, uint32_t i);

/* The open item on stream_id, or PV_NONE. */
uint32_t pv_items_find_stream(const pv_items *t, int32_t stream_id);

/* The open item with this domain and a key equal to `key` (rsslCompareMsgKeys rules), or
 * PV_NONE. */
uint32_t pv_items_find_key(const pv_items *t, uint8_t domain, const pv_key *key);

/* True when the two keys are equal by the rsslCompareMsgKeys rules. */
bool pv_key_equal(const pv_key *a, const pv_key *b);

/* Moves item i to the back of the refresh queue (a reissue), wherever it is now. */
void pv_items_to_refresh(pv_items *t, uint32_t i);

/* Moves item i (its refresh just sent) from the refresh queue to the back of the update ring.
 * The ring is walked as the ETA provider walks it: the first item added is the cursor, and the
 * first update goes to the item after it (items 1..5 get updates 2, 3, 4, 5, 1, 2, ...). */
void pv_items_to_update(pv_items *t, uint32_t i);

/* Item i. */
static inline pv_item *pv_items_at(pv_items *t, uint32_t i)
{
    return &t->v[i];
}

/* Item i's key (name and attrib point into the table's copy). */
static inline const pv_key *pv_items_key(const pv_items *t, uint32_t i)
{
    return &t->keys[i];
}

/* The first item of the refresh queue, or PV_NONE. */
static inline uint32_t pv_items_refresh_head(const pv_items *t)
{
    return t->refresh.head;
}

/* The next item of the update ring, the one after the cursor (which moves onto it), or
 * PV_NONE when the ring is empty. */
static inline uint32_t pv_items_next_update(pv_items *t)
{
    uint32_t i = t->cursor;
    if (i == PV_NONE)
        return PV_NONE;
    uint32_t n = t->v[i].next;
    t->cursor = n != PV_NONE ? n : t->update.head;
    return t->cursor;
}

#endif
