/*
 * rwf_enc: the RWF encoder — one pass, nested, straight into the caller's buffer.
 *
 * An rwf_enc iterator writes into a buffer the caller owns. Containers nest: begin a
 * container, write its entries (each entry = a head, then a value: a primitive, pre-encoded
 * bytes, or a nested container), end it. Lengths that are only known at the end are reserved
 * in their largest form and back-filled, exactly as ETA does (docs/wire.md#lengths), so the bytes
 * are ETA's bytes:
 *   - containers and arrays that are entry values: 3-byte u16ob (FE hi lo);
 *   - set data, set definitions, summary data and key attributes written in place: 2-byte
 *     u15rb (80|hi lo);
 *   - pre-encoded values (rwf_enc_encoded) and primitives: the minimal forms.
 *
 * Errors are sticky, like a stream's error flag: the first failure (no room, a call out of
 * order, a value that cannot be encoded) is remembered with its err_msg() text, every later
 * call returns it without writing, and rwf_enc_finish() reports it. A caller may therefore
 * check once at the end. Nothing is ever written past the end of the buffer.
 *
 *     rwf_enc e;
 *     rwf_enc_init(&e, buf, sizeof(buf));
 *     rwf_enc_msg_begin(&e, &update);           // update.container_type = RWF_DT_FIELD_LIST
 *     rwf_enc_fl_begin_std(&e);
 *     rwf_enc_fl_real(&e, 22, &bid);
 *     rwf_enc_fl_uint(&e, 3902, now_us);
 *     rwf_enc_fl_end(&e);
 *     rwf_enc_msg_end(&e);
 *     if (rwf_enc_finish(&e, &len) < 0) ...     // err_msg() says what went wrong
 *
 * Nothing allocates. The iterator keeps pointers to the headers given to *_begin only for
 * rwf_enc_msg_begin (until the message key attribute, when encoded in place, is done).
 */
#ifndef RWFPERF_RWF_ENC_H
#define RWFPERF_RWF_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_dec.h"
#include "rwf_prim.h"
#include "rwf_set.h"

#define RWF_ENC_MAX_DEPTH 16

/* What the innermost open container expects next. */
enum {
    RWF_ES_ROOT,      /* nothing open: a message, container or raw bytes may be written */
    RWF_ES_ENTRIES,   /* an entry head, or the container's end */
    RWF_ES_VALUE,     /* an entry head was written: its value follows */
    RWF_ES_SET,       /* set data: the next field/element of the set definition */
    RWF_ES_SET_VALUE, /* set entry head checked: its value follows */
    RWF_ES_KEY,       /* a map entry's key */
    RWF_ES_DATA,      /* a map/filter/vector/series entry's container (or encoded bytes) */
    RWF_ES_SETDEFS,   /* set definitions of a map/vector/series (rwf_enc_set_db) */
    RWF_ES_SUMMARY,   /* summary data of a map/vector/series (a container) */
    RWF_ES_ATTRIB,    /* a message key's attribute (a container) */
    RWF_ES_PAYLOAD,   /* a message's payload (a container) */
    RWF_ES_ITEMS,     /* array items */
    RWF_ES_DONE,      /* the container is full: only its end may follow */
};

typedef struct rwf_enc_frame {
    uint8_t kind;       /* RWF_DT_FIELD_LIST ... RWF_DT_ARRAY, RWF_DT_MSG; 0 for the root */
    uint8_t state;      /* RWF_ES_* */
    uint8_t len_form;   /* own length to back-fill at len_at: 0 none, 2 u15rb, 3 u16ob */
    uint8_t flags;      /* container flags as given */
    uint8_t ctype;      /* container type of entries; array item type */
    uint8_t key_type;   /* map key type */
    uint8_t value_type; /* type announced by the current element entry (0 = any) */
    uint8_t set_index;  /* next set entry */
    uint8_t entry_perm; /* a map/vector/filter entry carried perm data */
    uint16_t len_hint;  /* size hint for the next in-place entry value (rwf_enc_size_hint) */
    uint16_t item_len;  /* array fixed item length */
    uint16_t count;     /* entries written */
    uint16_t msg_flags; /* message: the class flags as written */
    uint32_t hint;      /* total count hint to write after summary data */
    uint8_t *start;     /* first byte of the container */
    uint8_t *len_at;    /* own length field */
    uint8_t *count_at;  /* entry count field */
    uint8_t *mark;      /* a 2-byte length reserved inside this container */
    const rwf_set_def *set;
    const void *msg; /* message whose header continues after an in-place key attribute */
} rwf_enc_frame;

typedef struct rwf_enc {
    uint8_t *buf, *pos, *end;
    int err;   /* first error, sticky; 0 while all is well */
    int depth; /* open containers; stack[depth] is the innermost (stack[0] = root) */
    rwf_enc_frame stack[RWF_ENC_MAX_DEPTH + 1];
} rwf_enc;

/* Starts encoding into buf[0..cap). */
void rwf_enc_init(rwf_enc *e, void *buf, size_t cap);

/* Bytes written so far. */
static inline size_t rwf_enc_len(const rwf_enc *e)
{
    return (size_t)(e->pos - e->buf);
}

/* The sticky status: 0, or the first error. */
static inline int rwf_enc_status(const rwf_enc *e)
{
    return e->err;
}

/* Ends encoding: returns the first error, or RWF_E_INVALID if a container is still open;
 * else RWF_OK with the encoded length in *len (may be NULL). */
int rwf_enc_finish(rwf_enc *e, size_t *len);

/* Records err as the sticky error (if none yet) and returns it; err text must already be set.
 * For callers that detect a failure while encoding. */
int rwf_enc_fail(rwf_enc *e, int err);

/* ---- Values: written where the innermost container expects one ----------------------------
 * After an entry head (field/element entry): the length-prefixed form. In set data: the
 * set-defined form of the definition's type. As a map key: the key form (u15rb length for
 * buffers). As an array item: length-prefixed (variable arrays) or fixed (item_len). */

int rwf_enc_value(rwf_enc *e, const rwf_value *v);
int rwf_enc_blank(rwf_enc *e);
int rwf_enc_int(rwf_enc *e, int64_t v);
int rwf_enc_uint(rwf_enc *e, uint64_t v);
int rwf_enc_float(rwf_enc *e, float v);
int rwf_enc_double(rwf_enc *e, double v);
int rwf_enc_real(rwf_enc *e, const rwf_real *v);
int rwf_enc_date(rwf_enc *e, const rwf_date *v);
int rwf_enc_time(rwf_enc *e, const rwf_time *v);
int rwf_enc_datetime(rwf_enc *e, const rwf_datetime *v);
int rwf_enc_qos(rwf_enc *e, const rwf_qos *v);
int rwf_enc_state(rwf_enc *e, const rwf_state *v);
int rwf_enc_enum(rwf_enc *e, uint16_t v);
/* A buffer/string value (type RWF_DT_BUFFER, ASCII_STRING, UTF8_STRING or RMTES_STRING). */
int rwf_enc_buf(rwf_enc *e, int type, rwf_buf v);

/* Pre-encoded bytes where a value or container is expected: after an entry head (u16ob
 * length + bytes), as entry data (u16ob), as set definitions / summary / key attribute (u15rb,
 * minimal form), as a message payload or at the root (raw), as an array item (fixed: exactly
 * item_len bytes; variable: u16ob). */
int rwf_enc_encoded(rwf_enc *e, rwf_buf data);

/* ---- FieldList --------------------------------------------------------------------------- */

/* Begins a FieldList. h->flags says what follows; with RWF_FLF_HAS_SET_DATA and an empty
 * h->set_data, the set data is encoded in place from the definition of h->set_id found in
 * sets (the first entries written are then the set's fields, in order). */
int rwf_enc_fl_begin(rwf_enc *e, const rwf_fl_hdr *h, const rwf_set_db *sets);

/* Begins a FieldList of standard data only (flags 0x08) — the MarketPrice case. */
int rwf_enc_fl_begin_std(rwf_enc *e);

/* Writes a field head (fid); a value, encoded bytes or a container follows. */
int rwf_enc_fl_entry(rwf_enc *e, int16_t fid);

/* Appends count pre-encoded standard entries (fid + value each, back to back). */
int rwf_enc_fl_append(rwf_enc *e, rwf_buf entries, uint16_t count);

/* Ends the innermost container, which must be a FieldList (likewise the other *_end calls for
 * their kind): back-fills its count and length. Returns RWF_OK or the sticky error. */
int rwf_enc_fl_end(rwf_enc *e);

/* Field entry + value in one call. The fast path (standard data, room for the worst case)
 * is inline; anything else goes through rwf_enc_fl_entry + the value writer. */
int rwf_enc_fl_slow(rwf_enc *e, int16_t fid, const rwf_value *v);

/* The innermost open container's frame (the root frame when none is open). */
static inline rwf_enc_frame *rwf_enc_top(rwf_enc *e)
{
    return &e->stack[e->depth];
}

/* 1 when the fast path of the rwf_enc_fl_<type> writers below may write a field of at most
 * need bytes: a standard-data FieldList expects entries and holds fewer than 65535, no error
 * is pending, need bytes fit. Otherwise the slow path sets the error. */
static inline int rwf_enc_fl_fast(rwf_enc *e, size_t need)
{
    rwf_enc_frame *f = rwf_enc_top(e);
    return f->state == RWF_ES_ENTRIES && f->kind == RWF_DT_FIELD_LIST && f->count < RWF_COUNT_MAX &&
           (size_t)(e->end - e->pos) >= need && !e->err;
}

/* Field entry + value in one call, for each primitive type: the same bytes and status as
 * rwf_enc_fl_entry followed by the value writer. */
static inline int rwf_enc_fl_uint(rwf_enc *e, int16_t fid, uint64_t v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_UINT)) {
        e->pos = rwf_put_uint(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_UINT, .u = v};
    return rwf_enc_fl_slow(e, fid, &x);
}

static inline int rwf_enc_fl_int(rwf_enc *e, int16_t fid, int64_t v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_INT)) {
        e->pos = rwf_put_int(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_INT, .i = v};
    return rwf_enc_fl_slow(e, fid, &x);
}

static inline int rwf_enc_fl_real(rwf_enc *e, int16_t fid, const rwf_real *v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_REAL) && rwf_real_valid(v)) {
        e->pos = rwf_put_real(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_REAL, .real = *v};
    return rwf_enc_fl_slow(e, fid, &x);
}

static inline int rwf_enc_fl_enum(rwf_enc *e, int16_t fid, uint16_t v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_ENUM)) {
        e->pos = rwf_put_enum(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_ENUM, .enm = v};
    return rwf_enc_fl_slow(e, fid, &x);
}

static inline int rwf_enc_fl_time(rwf_enc *e, int16_t fid, const rwf_time *v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_TIME)) {
        e->pos = rwf_put_time(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_TIME, .time = *v};
    return rwf_enc_fl_slow(e, fid, &x);
}

static inline int rwf_enc_fl_date(rwf_enc *e, int16_t fid, const rwf_date *v)
{
    if (rwf_enc_fl_fast(e, 2 + RWF_PUT_MAX_DATE)) {
        e->pos = rwf_put_date(rwf_wr16(e->pos, (uint16_t)fid), v);
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = RWF_DT_DATE, .date = *v};
    return rwf_enc_fl_slow(e, fid, &x);
}

/* A buffer/string field (type RWF_DT_BUFFER / ASCII / UTF8 / RMTES). */
static inline int rwf_enc_fl_buf(rwf_enc *e, int16_t fid, int type, rwf_buf v)
{
    if (v.len < RWF_U16OB_LONG && rwf_enc_fl_fast(e, 3 + (size_t)v.len)) {
        uint8_t *p = rwf_wr16(e->pos, (uint16_t)fid);
        *p++ = (uint8_t)v.len;
        if (v.len)
            memcpy(p, v.data, v.len);
        e->pos = p + v.len;
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    rwf_value x = {.type = (uint8_t)type, .buf = v};
    return rwf_enc_fl_slow(e, fid, &x);
}

/* A blank field: fid + 00. */
static inline int rwf_enc_fl_blank(rwf_enc *e, int16_t fid)
{
    if (rwf_enc_fl_fast(e, 3)) {
        uint8_t *p = rwf_wr16(e->pos, (uint16_t)fid);
        *p = 0;
        e->pos = p + 1;
        rwf_enc_top(e)->count++;
        return RWF_OK;
    }
    return rwf_enc_fl_slow(e, fid, NULL);
}

/* ---- ElementList ------------------------------------------------------------------------- */

/* Begins an ElementList, as rwf_enc_fl_begin begins a FieldList: with RWF_ELF_HAS_SET_DATA and
 * an empty h->set_data, the elements of set h->set_id (found in sets) are written first, in the
 * definition's order, as set data. rwf_enc_el_begin_std: standard data only (flags 0x08). */
int rwf_enc_el_begin(rwf_enc *e, const rwf_el_hdr *h, const rwf_set_db *sets);
int rwf_enc_el_begin_std(rwf_enc *e);

/* Writes an element head: name (buf15) and data type (full id). Unless type is NO_DATA, a value
 * of that type follows (primitive, array, encoded bytes, or a container of that type). */
int rwf_enc_el_entry(rwf_enc *e, rwf_buf name, int type);

int rwf_enc_el_end(rwf_enc *e);

/* Element head + value in one call. */
int rwf_enc_el_uint(rwf_enc *e, rwf_buf name, uint64_t v);
int rwf_enc_el_int(rwf_enc *e, rwf_buf name, int64_t v);
int rwf_enc_el_buf(rwf_enc *e, rwf_buf name, int type, rwf_buf v);
int rwf_enc_el_value(rwf_enc *e, rwf_buf name, const rwf_value *v);

/* ---- Map --------------------------------------------------------------------------------- */

/* Begins a Map. With RWF_MPF_HAS_SET_DEFS and empty h->set_defs, write the definitions next
 * with rwf_enc_set_db; with RWF_MPF_HAS_SUMMARY_DATA and empty h->summary, begin a container
 * of type h->ctype next for the summary. Pre-encoded set_defs / summary are copied. */
int rwf_enc_map_begin(rwf_enc *e, const rwf_map_hdr *h);

/* Writes a map entry head: action (RWF_MPEA_*), optional perm data (NULL or empty = none),
 * and the key, a value of the map's key type. The entry's container follows unless the action
 * is DELETE or the map holds NO_DATA. */
int rwf_enc_map_entry(rwf_enc *e, int action, const rwf_buf *perm, const rwf_value *key);
int rwf_enc_map_entry_uint(rwf_enc *e, int action, uint64_t key);
int rwf_enc_map_entry_buf(rwf_enc *e, int action, rwf_buf key);
int rwf_enc_map_end(rwf_enc *e);

/* Writes set definitions where they are expected (RWF_ES_SETDEFS), 2-byte length form. */
int rwf_enc_set_db(rwf_enc *e, const rwf_set_db *db);

/* ---- FilterList -------------------------------------------------------------------------- */

/* Begins a FilterList of h->ctype entries (h->total_count_hint written when its flag is set).
 * At most 255 entries. */
int rwf_enc_filter_begin(rwf_enc *e, const rwf_filter_hdr *h);
/* Writes a filter entry head. ctype 0 = the list's container type; any other value is written
 * with RWF_FTEF_HAS_CONTAINER_TYPE. Data follows unless action is CLEAR or the type NO_DATA. */
int rwf_enc_filter_entry(rwf_enc *e, int action, uint8_t id, int ctype, const rwf_buf *perm);
int rwf_enc_filter_end(rwf_enc *e);

/* ---- Vector ------------------------------------------------------------------------------ */

/* Begins a Vector; set definitions and summary data as for rwf_enc_map_begin. A vector entry
 * head: action (RWF_VTEA_*), index (< 2^30), optional perm data; its container follows unless
 * the action is CLEAR or DELETE or the vector holds NO_DATA. */
int rwf_enc_vector_begin(rwf_enc *e, const rwf_vector_hdr *h);
int rwf_enc_vector_entry(rwf_enc *e, int action, uint32_t index, const rwf_buf *perm);
int rwf_enc_vector_end(rwf_enc *e);

/* ---- Series ------------------------------------------------------------------------------ */

/* Begins a Series; set definitions and summary data as for rwf_enc_map_begin. */
int rwf_enc_series_begin(rwf_enc *e, const rwf_series_hdr *h);
/* Starts a series entry: its container follows (nothing when the series holds NO_DATA). */
int rwf_enc_series_entry(rwf_enc *e);
int rwf_enc_series_end(rwf_enc *e);

/* ---- Array ------------------------------------------------------------------------------- */

/* Begins an Array value (after an entry head): item type (a standard primitive) and item_len
 * (0: length-prefixed items; else fixed items of item_len bytes). Items are written with the
 * value writers, rwf_enc_blank or rwf_enc_encoded. */
int rwf_enc_array_begin(rwf_enc *e, int type, uint16_t item_len);
int rwf_enc_array_end(rwf_enc *e);

/* ---- Generic ----------------------------------------------------------------------------- */

/* Appends count pre-encoded entries (back to back, each in the container's entry form) to the
 * open FieldList, ElementList, Map, Vector or Series, which must be expecting entries (set
 * data, set definitions and summary data already written). The bytes are copied as they are:
 * they must match the container's header (entry types, per-entry perm data flag, set ids).
 * Returns RWF_OK, RWF_E_INVALID (wrong container or state, more than 65535 entries) or
 * RWF_E_NOSPACE. */
int rwf_enc_append(rwf_enc *e, rwf_buf entries, uint16_t count);

/* Ends the innermost open container, whatever it is. */
int rwf_enc_end(rwf_enc *e);

/* Announces that the next container begun as an entry value (after a field/element/set entry
 * head, or as map/filter/vector/series entry data) takes at most max bytes: when max is 1..253
 * its length is reserved as one byte instead of three (ETA's "max encoding size" of its
 * *EntryInit calls; the dictionary refresh uses it). A container that then exceeds 253 bytes
 * is an error. 0 (the default) reserves three bytes. */
int rwf_enc_size_hint(rwf_enc *e, uint16_t max);

#endif
