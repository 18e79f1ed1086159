/*
 * rwf_set: set definition databases (local set definitions of field lists and element lists).
 *
 * A set definition lists the fields (fid + type) or elements (name + type) whose values a
 * FieldList/ElementList carries as "set data": values only, in order, in their set-defined
 * (mostly fixed-size) form. Maps, vectors and series carry the database that their entries'
 * lists refer to by set id (0..15).
 *
 * A database does not own its entries: for encoding, the caller points each definition at its
 * own (usually static) array; rwf_set_db_decode fills a caller-provided pool and leaves element
 * names as views into the decoded buffer. Nothing here allocates.
 */
#ifndef RWFPERF_RWF_SET_H
#define RWFPERF_RWF_SET_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_prim.h"

#define RWF_SET_MAX_ID 15 /* local set ids are 0..15 */

/* One entry of a definition: fid for field-list sets, name for element-list sets; type is a
 * standard primitive (length-prefixed in set data) or a set-defined type (INT_1..TIME_8). */
typedef struct rwf_set_entry {
    rwf_buf name;
    int16_t fid;
    uint8_t type;
} rwf_set_entry;

typedef struct rwf_set_def {
    const rwf_set_entry *entries;
    uint16_t id;
    uint8_t count;
    uint8_t used; /* 1 when this id is defined */
} rwf_set_def;

typedef struct rwf_set_db {
    uint8_t kind; /* RWF_DT_FIELD_LIST or RWF_DT_ELEMENT_LIST */
    rwf_set_def defs[RWF_SET_MAX_ID + 1];
} rwf_set_db;

/* Empties db and sets its kind (RWF_DT_FIELD_LIST or RWF_DT_ELEMENT_LIST). */
void rwf_set_db_init(rwf_set_db *db, int kind);

/* Defines set id (0..15) with count entries; entries must outlive db (not copied). Returns
 * RWF_OK or RWF_E_INVALID (id out of range, already defined, count 0). */
int rwf_set_db_add(rwf_set_db *db, uint16_t id, const rwf_set_entry *entries, uint8_t count);

/* The definition of id, or NULL when db is NULL or id is not defined. */
static inline const rwf_set_def *rwf_set_db_find(const rwf_set_db *db, uint16_t id)
{
    return (db && id <= RWF_SET_MAX_ID && db->defs[id].used) ? &db->defs[id] : NULL;
}

/* Decodes an encoded database (a map/vector/series set-definitions block) of the given kind.
 * Entries are written to pool[0..pool_cap); element names are views into data. Returns
 * RWF_OK, RWF_E_MALFORMED (truncated, bad id, duplicate id) or RWF_E_NOSPACE (more entries
 * than pool_cap), with err text. */
int rwf_set_db_decode(rwf_set_db *db, int kind, rwf_buf data, rwf_set_entry *pool, size_t pool_cap);

/* Bytes the encoded form of db takes (see rwf_enc_set_db). */
size_t rwf_set_db_encoded_size(const rwf_set_db *db);

/* Writes the encoded form of db at p (rwf_set_db_encoded_size bytes of room): u8 flags 0,
 * u8 count, then per definition in id order: id u15rb, u8 entry count, entries (fid i16 or
 * name buf15, then u8 type). Returns the new end. */
uint8_t *rwf_set_db_put(uint8_t *p, const rwf_set_db *db);

#endif
