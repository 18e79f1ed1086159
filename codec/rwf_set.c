/*
 * rwf_set: set definition databases, encode and decode.
 */
#include "rwf_set.h"

#include "err.h"

void rwf_set_db_init(rwf_set_db *db, int kind)
{
    memset(db, 0, sizeof(*db));
    db->kind = (uint8_t)kind;
}

int rwf_set_db_add(rwf_set_db *db, uint16_t id, const rwf_set_entry *entries, uint8_t count)
{
    const char *why = id > RWF_SET_MAX_ID      ? "the id is out of 0..15"
                      : db->defs[id].used      ? "the id is already defined"
                      : count == 0 || !entries ? "it has no entries"
                                               : NULL;
    if (why) {
        err_set("set definition %u: %s", id, why);
        return RWF_E_INVALID;
    }
    db->defs[id].entries = entries;
    db->defs[id].id = id;
    db->defs[id].count = count;
    db->defs[id].used = 1;
    return RWF_OK;
}

int rwf_set_db_decode(rwf_set_db *db, int kind, rwf_buf data, rwf_set_entry *pool, size_t pool_cap)
{
    const uint8_t *p = (const uint8_t *)data.data, *start = p, *end = p + data.len;
    size_t used = 0;
    const char *what =
        kind == RWF_DT_ELEMENT_LIST ? "element set definitions" : "field set definitions";

    rwf_set_db_init(db, kind);
    if (data.len < 2) {
        err_set("%s: %u bytes, need at least 2", what, (unsigned)data.len);
        return RWF_E_MALFORMED;
    }
    unsigned ndefs = p[1];
    p += 2;
    if (ndefs > RWF_SET_MAX_ID + 1) {
        err_set("%s: %u definitions, at most 16", what, ndefs);
        return RWF_E_MALFORMED;
    }
    for (unsigned i = 0; i < ndefs; i++) {
        uint16_t id;
        const uint8_t *q = rwf_rd_u15rb(p, end, &id);
        if (!q || q >= end)
            goto truncated;
        if (id > RWF_SET_MAX_ID || db->defs[id].used) {
            err_set("%s: definition %u has id %u (out of 0..15 or repeated) at offset %u", what, i,
                    id, (unsigned)(p - start));
            return RWF_E_MALFORMED;
        }
        unsigned count = *q++;
        if (used + count > pool_cap) {
            err_set("%s: more than %zu entries", what, pool_cap);
            return RWF_E_NOSPACE;
        }
        p = q;
        for (unsigned j = 0; j < count; j++) {
            rwf_set_entry *e = &pool[used + j];
            memset(e, 0, sizeof(*e));
            if (kind == RWF_DT_ELEMENT_LIST) {
                uint16_t n;
                q = rwf_rd_u15rb(p, end, &n);
                if (!q || n >= end - q)
                    goto truncated;
                e->name = rwf_buf_make(q, n);
                p = q + n;
            } else {
                if (end - p < 3)
                    goto truncated;
                e->fid = (int16_t)rwf_rd16(p);
                p += 2;
            }
            e->type = *p++;
        }
        db->defs[id].entries = &pool[used];
        db->defs[id].id = id;
        db->defs[id].count = (uint8_t)count;
        db->defs[id].used = 1;
        used += count;
    }
    return RWF_OK;
truncated:
    err_set("%s: truncated at offset %u of %u", what, (unsigned)(p - start), (unsigned)data.len);
    return RWF_E_MALFORMED;
}

size_t rwf_set_db_encoded_size(const rwf_set_db *db)
{
    size_t n = 2;
    for (unsigned id = 0; id <= RWF_SET_MAX_ID; id++) {
        const rwf_set_def *d = &db->defs[id];
        if (!d->used)
            continue;
        n += 2;
        for (unsigned j = 0; j < d->count; j++)
            n += db->kind == RWF_DT_ELEMENT_LIST /* name buf15 + type, or fid + type */
                     ? rwf_u15rb_size(d->entries[j].name.len) + d->entries[j].name.len + 1
                     : 3;
    }
    return n;
}

uint8_t *rwf_set_db_put(uint8_t *p, const rwf_set_db *db)
{
    unsigned ndefs = 0;
    for (unsigned id = 0; id <= RWF_SET_MAX_ID; id++)
        ndefs += db->defs[id].used;
    *p++ = 0;
    *p++ = (uint8_t)ndefs;
    for (unsigned id = 0; id <= RWF_SET_MAX_ID; id++) {
        const rwf_set_def *d = &db->defs[id];
        if (!d->used)
            continue;
        p = rwf_wr_u15rb(p, (uint16_t)id);
        *p++ = d->count;
        for (unsigned j = 0; j < d->count; j++) {
            const rwf_set_entry *e = &d->entries[j];
            if (db->kind == RWF_DT_ELEMENT_LIST) {
                p = rwf_wr_u15rb(p, (uint16_t)e->name.len);
                memcpy(p, e->name.data, e->name.len);
                p += e->name.len;
            } else {
                p = rwf_wr16(p, (uint16_t)e->fid);
            }
            *p++ = e->type;
        }
    }
    return p;
}
