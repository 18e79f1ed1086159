/*
 * rwf_pre: a payload of pre-encoded entries with a few UINT fields added per message, written
 * in one pass — the encoder of a provider's hot path.
 *
 * A provider sends the same content again and again (docs/wire.md#items): the entries of a
 * FieldList (MarketPrice) or of a Map of FieldLists (MarketByOrder) are encoded once, and each
 * message adds only its stamps (UINT fields such as TIM_TRK_1) or, in a refresh, the same fields
 * blank. rwf_pre_put (or rwf_pre_put_begin, a writer per field, rwf_pre_put_end) writes such a
 * payload straight into the caller's buffer: no iterator, no room checks (the caller reserves
 * rwf_pre_max_size bytes), no allocation, no state; a header with no optional members in front
 * of it comes from rwf_msg_put_short (rwf_msg.h).
 *
 * The bytes are those the rwf_enc iterator writes for the same content: a FieldList of
 * standard data (flags 0x08, count, the entries, then the added fields); a Map with its key
 * field id, set definitions when given and, when fields are added, summary data holding them
 * (a FieldList of standard data), set definitions and summary data with the 2-byte length
 * form, then the entry count and the entries. A Map with no added fields has no summary data.
 */
#ifndef RWFPERF_RWF_PRE_H
#define RWFPERF_RWF_PRE_H

#include <stdint.h>
#include <string.h>

#include "rwf_prim.h"
#include "rwf_types.h"
#include "rwf_wire.h"

/* The pre-encoded content of a payload. */
typedef struct rwf_pre_body {
    uint8_t ctype;           /* RWF_DT_FIELD_LIST, or RWF_DT_MAP of FieldLists */
    uint8_t key_type;        /* Map: the keys' primitive type (full id) */
    uint16_t count;          /* entries at entries */
    int16_t key_fid;         /* Map: the key field id */
    const uint8_t *entries;  /* field entries, or map entries, back to back */
    uint32_t entries_len;    /* bytes at entries */
    const uint8_t *set_defs; /* Map: encoded field-list set definitions, or NULL */
    uint32_t set_defs_len;   /* bytes at set_defs (at most 0x7FFF) */
} rwf_pre_body;

/* A UINT field added to a payload: fid and value, or blank (length 0) when blank is set. */
typedef struct rwf_pre_field {
    int16_t fid;
    uint8_t blank;
    uint64_t value;
} rwf_pre_field;

/* Largest payload rwf_pre_put writes for b with n added fields (each of its largest value). */
static inline uint32_t rwf_pre_max_size(const rwf_pre_body *b, unsigned n)
{
    uint32_t fields = n * (2 + RWF_PUT_MAX_UINT);
    if (b->ctype != RWF_DT_MAP)
        return 3 + b->entries_len + fields; /* flags, count */
    /* flags, key type, container type, key fid; set definitions (2-byte length); summary
     * data (2-byte length, FieldList flags and count); entry count */
    return 5 + 2 + b->set_defs_len + 2 + 3 + 2 + b->entries_len + fields;
}

/* The head of a FieldList of standard data: flags and count; its entries follow. */
static inline uint8_t *rwf_pre_put_fl(uint8_t *p, uint16_t count)
{
    *p = RWF_FLF_HAS_STANDARD_DATA;
    return rwf_wr16(p + 1, count);
}

/*
 * Writes the payload of b up to where its n added fields go (n <= 0xFFFF - b->count) at p,
 * which has rwf_pre_max_size(b, n) bytes of room, and returns the end. FieldList: its head and
 * the entries. Map: its head, the set definitions and, when n > 0, the head of the summary
 * data (*mark: where its length goes; else NULL). Then come the n fields, each written by
 * rwf_pre_put_uint or rwf_pre_put_blank, and rwf_pre_put_end.
 */
static inline uint8_t *rwf_pre_put_begin(uint8_t *p, const rwf_pre_body *b, unsigned n,
                                         uint8_t **mark)
{
    *mark = NULL;
    if (b->ctype != RWF_DT_MAP) {
        p = rwf_pre_put_fl(p, (uint16_t)(b->count + n));
        memcpy(p, b->entries, b->entries_len);
        return p + b->entries_len;
    }
    uint8_t flags = RWF_MPF_HAS_KEY_FIELD_ID;
    if (b->set_defs_len)
        flags |= RWF_MPF_HAS_SET_DEFS;
    if (n)
        flags |= RWF_MPF_HAS_SUMMARY_DATA;
    p[0] = flags;
    p[1] = b->key_type;
    p[2] = RWF_DT_FIELD_LIST - RWF_DT_CONTAINER_MIN;
    p = rwf_wr16(p + 3, (uint16_t)b->key_fid);
    if (b->set_defs_len) {
        p = rwf_wr_u15rb2(p, (uint16_t)b->set_defs_len);
        memcpy(p, b->set_defs, b->set_defs_len);
        p += b->set_defs_len;
    }
    if (!n)
        return p;
    *mark = p;
    return rwf_pre_put_fl(p + 2, (uint16_t)n);
}

/* An added field: fid, then the value's length and its minimal bytes. */
static inline uint8_t *rwf_pre_put_uint(uint8_t *p, int16_t fid, uint64_t v)
{
    return rwf_put_uint(rwf_wr16(p, (uint16_t)fid), v);
}

/* An added field, blank: fid and length 0. */
static inline uint8_t *rwf_pre_put_blank(uint8_t *p, int16_t fid)
{
    p = rwf_wr16(p, (uint16_t)fid);
    *p = 0;
    return p + 1;
}

/* Ends the payload of b begun by rwf_pre_put_begin (mark as it set), the added fields written
 * up to p: a Map's summary length, entry count and entries. Returns the end of the payload. */
static inline uint8_t *rwf_pre_put_end(uint8_t *p, const rwf_pre_body *b, uint8_t *mark)
{
    if (b->ctype != RWF_DT_MAP)
        return p;
    if (mark)
        rwf_wr_u15rb2(mark, (uint16_t)(p - (mark + 2)));
    p = rwf_wr16(p, b->count);
    memcpy(p, b->entries, b->entries_len);
    return p + b->entries_len;
}

/* Writes the payload of b with the n fields of f added, as rwf_pre_put_begin, a field each
 * (blank or its value) and rwf_pre_put_end, and returns its end. */
static inline uint8_t *rwf_pre_put(uint8_t *p, const rwf_pre_body *b, const rwf_pre_field *f,
                                   unsigned n)
{
    uint8_t *mark;
    p = rwf_pre_put_begin(p, b, n, &mark);
    for (unsigned i = 0; i < n; i++)
        p = f[i].blank ? rwf_pre_put_blank(p, f[i].fid) : rwf_pre_put_uint(p, f[i].fid, f[i].value);
    return rwf_pre_put_end(p, b, mark);
}

#endif
