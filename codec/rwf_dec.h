/*
 * rwf_dec: decoders of RWF containers — FieldList, ElementList, Map, FilterList, Vector,
 * Series, Array.
 *
 * Each container has a small decoder struct on the caller's stack: rwf_<c>_dec_init() reads
 * the container header from a view of its bytes, then rwf_<c>_next() returns one entry at a
 * time as views into the same bytes. Nothing is copied or allocated; the input must stay
 * alive while views are used. Nesting is the caller's: an entry's data view is handed to the
 * init of the entry's container type.
 *
 * Every length is checked against the bytes that remain. Malformed input gives RWF_E_MALFORMED
 * with err_msg() naming the container, the entry number and the offset inside the container
 * ("FieldList entry 3 (fid 22): value length 200 exceeds the 5 bytes left at offset 17"); the
 * caller adds its context with err_push(). Return values: init RWF_OK (or RWF_SET_SKIPPED when
 * set data cannot be decoded for want of a definition); next RWF_OK with an entry, RWF_END
 * after the last one, or an error.
 *
 * rwf_fl_next is inline: it is the loop ConsPerf runs for every field of every update.
 */
#ifndef RWFPERF_RWF_DEC_H
#define RWFPERF_RWF_DEC_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_prim.h"
#include "rwf_set.h"

/* ---- FieldList --------------------------------------------------------------------------- */

/* Header of a FieldList (also what rwf_enc_fl_begin takes). */
typedef struct rwf_fl_hdr {
    uint8_t flags;    /* RWF_FLF_* */
    int16_t dict_id;  /* with RWF_FLF_HAS_FIELD_LIST_INFO */
    uint16_t fl_num;  /* with RWF_FLF_HAS_FIELD_LIST_INFO */
    uint16_t set_id;  /* with RWF_FLF_HAS_SET_ID (else set 0 when HAS_SET_DATA) */
    rwf_buf set_data; /* decode: the set data; encode: pre-encoded set data, or empty */
} rwf_fl_hdr;

/* One field. type is RWF_DT_UNKNOWN for a standard entry (its type comes from the dictionary)
 * and the set definition's type for a set-defined entry; data is the value bytes (after the
 * length prefix for length-prefixed forms): decode with rwf_get_<type> / rwf_get_value. */
typedef struct rwf_field {
    int16_t fid;
    uint8_t type;
    rwf_buf data;
} rwf_field;

typedef struct rwf_fl_dec {
    rwf_fl_hdr hdr;
    uint16_t count;    /* standard entries announced by the header */
    uint16_t index;    /* standard entries returned so far */
    uint8_t set_left;  /* set-defined entries still to return */
    uint8_t set_index; /* set entries returned so far */
    const uint8_t *pos, *end, *start;
    const rwf_set_def *set; /* definition of the set data, when decodable */
    const uint8_t *set_pos, *set_end;
} rwf_fl_dec;

/* Reads the FieldList header from data. sets (may be NULL) resolves the set id of set data.
 * An empty view is an empty list. Returns RWF_OK, RWF_SET_SKIPPED, or RWF_E_MALFORMED. */
int rwf_fl_dec_init(rwf_fl_dec *d, rwf_buf data, const rwf_set_db *sets);

/* Out of line: set-defined entries, and the error path. */
int rwf_fl_next_set(rwf_fl_dec *d, rwf_field *f);
int rwf_fl_bad_entry(rwf_fl_dec *d, const uint8_t *at);

#if defined(__GNUC__)
#define RWF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define RWF_UNLIKELY(x) (x)
#endif

static inline int rwf_fl_next(rwf_fl_dec *d, rwf_field *f)
{
    if (RWF_UNLIKELY(d->set_left))
        return rwf_fl_next_set(d, f);
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *end = d->end;
    if (RWF_UNLIKELY(end - p < 3))
        return rwf_fl_bad_entry(d, p);
    size_t n = p[2];
    const uint8_t *v = p + 3;
    if (RWF_UNLIKELY(n >= RWF_U16OB_LONG)) {
        if (n == 0xFF || end - v < 2)
            return rwf_fl_bad_entry(d, p);
        n = rwf_rd16(v);
        v += 2;
    }
    if (RWF_UNLIKELY(n > (size_t)(end - v)))
        return rwf_fl_bad_entry(d, p);
    f->fid = (int16_t)rwf_rd16(p);
    f->type = RWF_DT_UNKNOWN;
    f->data.data = (const char *)v;
    f->data.len = (uint32_t)n;
    d->pos = v + n;
    d->index++;
    return RWF_OK;
}

/* ---- ElementList ------------------------------------------------------------------------- */

typedef struct rwf_el_hdr {
    uint8_t flags;   /* RWF_ELF_* */
    uint16_t el_num; /* with RWF_ELF_HAS_ELEMENT_LIST_INFO */
    uint16_t set_id; /* with RWF_ELF_HAS_SET_ID */
    rwf_buf set_data;
} rwf_el_hdr;

/* One element: name, data type (full id; containers too), value bytes (empty for NO_DATA). */
typedef struct rwf_element {
    rwf_buf name;
    uint8_t type;
    rwf_buf data;
} rwf_element;

typedef struct rwf_el_dec {
    rwf_el_hdr hdr;
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
    const rwf_set_def *set;
    uint8_t set_index;
    const uint8_t *set_pos, *set_end;
} rwf_el_dec;

/* Reads the ElementList header from data, as rwf_fl_dec_init does for a FieldList (sets
 * resolves set data; RWF_SET_SKIPPED when it cannot). rwf_el_next returns the set-defined
 * elements first, then the standard ones: RWF_OK with *e, RWF_END, or RWF_E_MALFORMED. */
int rwf_el_dec_init(rwf_el_dec *d, rwf_buf data, const rwf_set_db *sets);
int rwf_el_next(rwf_el_dec *d, rwf_element *e);

/* ---- Map --------------------------------------------------------------------------------- */

typedef struct rwf_map_hdr {
    uint8_t flags;    /* RWF_MPF_* */
    uint8_t key_type; /* primitive type of the keys (full id) */
    uint8_t ctype;    /* container type of the entries (full id) */
    int16_t key_fid;  /* with RWF_MPF_HAS_KEY_FIELD_ID */
    rwf_buf set_defs; /* with RWF_MPF_HAS_SET_DEFS: encoded set definitions */
    rwf_buf summary;  /* with RWF_MPF_HAS_SUMMARY_DATA: a container of type ctype */
    uint32_t total_count_hint;
} rwf_map_hdr;

/* One map entry: action RWF_MPEA_*, entry flags, perm data, key value bytes (decode with
 * rwf_get_value(hdr.key_type, key)), and the entry's container bytes (empty for DELETE). */
typedef struct rwf_map_entry {
    uint8_t action;
    uint8_t flags;
    rwf_buf perm;
    rwf_buf key;
    rwf_buf data;
} rwf_map_entry;

typedef struct rwf_map_dec {
    rwf_map_hdr hdr;
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
} rwf_map_dec;

/* Reads the Map header (set definitions and summary data as views, to be decoded by the
 * caller) / the next entry. Init: RWF_OK or RWF_E_MALFORMED; next: RWF_OK, RWF_END or
 * RWF_E_MALFORMED. The same for the FilterList, Vector and Series decoders below. */
int rwf_map_dec_init(rwf_map_dec *d, rwf_buf data);
int rwf_map_next(rwf_map_dec *d, rwf_map_entry *e);

/* ---- FilterList -------------------------------------------------------------------------- */

typedef struct rwf_filter_hdr {
    uint8_t flags; /* RWF_FTF_* */
    uint8_t ctype; /* default container type of the entries */
    uint8_t total_count_hint;
} rwf_filter_hdr;

typedef struct rwf_filter_entry {
    uint8_t action; /* RWF_FTEA_* */
    uint8_t flags;  /* RWF_FTEF_* */
    uint8_t id;
    uint8_t ctype; /* the entry's container type (its own, or the list's) */
    rwf_buf perm;
    rwf_buf data; /* empty for CLEAR */
} rwf_filter_entry;

typedef struct rwf_filter_dec {
    rwf_filter_hdr hdr;
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
} rwf_filter_dec;

int rwf_filter_dec_init(rwf_filter_dec *d, rwf_buf data);
int rwf_filter_next(rwf_filter_dec *d, rwf_filter_entry *e);

/* ---- Vector ------------------------------------------------------------------------------ */

typedef struct rwf_vector_hdr {
    uint8_t flags; /* RWF_VTF_* */
    uint8_t ctype;
    rwf_buf set_defs;
    rwf_buf summary;
    uint32_t total_count_hint;
} rwf_vector_hdr;

typedef struct rwf_vector_entry {
    uint8_t action; /* RWF_VTEA_* */
    uint8_t flags;
    uint32_t index;
    rwf_buf perm;
    rwf_buf data; /* empty for CLEAR and DELETE */
} rwf_vector_entry;

typedef struct rwf_vector_dec {
    rwf_vector_hdr hdr;
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
} rwf_vector_dec;

int rwf_vector_dec_init(rwf_vector_dec *d, rwf_buf data);
int rwf_vector_next(rwf_vector_dec *d, rwf_vector_entry *e);

/* ---- Series ------------------------------------------------------------------------------ */

typedef struct rwf_series_hdr {
    uint8_t flags; /* RWF_SRF_* */
    uint8_t ctype;
    rwf_buf set_defs;
    rwf_buf summary;
    uint32_t total_count_hint;
} rwf_series_hdr;

typedef struct rwf_series_dec {
    rwf_series_hdr hdr;
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
} rwf_series_dec;

int rwf_series_dec_init(rwf_series_dec *d, rwf_buf data);
/* *data receives the entry's container bytes (empty when the series holds NO_DATA). */
int rwf_series_next(rwf_series_dec *d, rwf_buf *data);

/* ---- Array ------------------------------------------------------------------------------- */

typedef struct rwf_array_dec {
    uint8_t type;      /* primitive type of the items */
    uint16_t item_len; /* 0: items are length-prefixed; else each item is item_len bytes */
    uint16_t count, index;
    const uint8_t *pos, *end, *start;
} rwf_array_dec;

/* data is the array value (the bytes after the entry's length prefix). */
int rwf_array_dec_init(rwf_array_dec *d, rwf_buf data);

/* *item receives the item's value bytes; decode them with rwf_array_item_value. */
int rwf_array_next(rwf_array_dec *d, rwf_buf *item);

/* Decodes one item of d (variable: standard form; fixed: the set-defined form matching type
 * and item_len, raw bytes for the buffer types). */
int rwf_array_item_value(const rwf_array_dec *d, rwf_buf item, rwf_value *out);

#endif
