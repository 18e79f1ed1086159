/*
 * rwf_dec: container decoders. Every read is bounded by the container's end; every failure
 * says which container, which entry and which offset.
 */
#include "rwf_dec.h"

#include <stdarg.h>
#include <stdio.h>

#include "err.h"

static int bad(const char *what, const uint8_t *start, const uint8_t *at, const char *fmt, ...)
    ERR_PRINTF(4, 5);

static int bad(const char *what, const uint8_t *start, const uint8_t *at, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    err_set("%s at offset %u: %s", what, (unsigned)(at - start), msg);
    return RWF_E_MALFORMED;
}

/* Reads a u15rb-prefixed view. */
static const uint8_t *get_buf15(const uint8_t *p, const uint8_t *end, rwf_buf *out)
{
    uint16_t n;
    const uint8_t *q = rwf_rd_u15rb(p, end, &n);
    if (!q || n > end - q)
        return NULL;
    *out = rwf_buf_make(q, n);
    return q + n;
}

/* Reads a u16ob-prefixed view. */
static const uint8_t *get_buf16(const uint8_t *p, const uint8_t *end, rwf_buf *out)
{
    uint16_t n;
    const uint8_t *q = rwf_rd_u16ob(p, end, &n);
    if (!q || n > end - q)
        return NULL;
    *out = rwf_buf_make(q, n);
    return q + n;
}

/* Standard primitive types in set data and variable-length arrays carry a length prefix: a u8
 * for the numeric types, a u16ob for the others (as ETA reads them). */
static int prefix_is_u8(int type)
{
    return type <= RWF_DT_QOS;
}

/* Reads one set-defined or length-prefixed item of type at p. Returns the end of the item,
 * or NULL when it does not fit or the type cannot appear there. */
static const uint8_t *get_item(int type, const uint8_t *p, const uint8_t *end, rwf_buf *out)
{
    int size = rwf_set_type_size(type);
    if (size > 0) {
        if (end - p < size)
            return NULL;
        *out = rwf_buf_make(p, (size_t)size);
        return p + size;
    }
    if (size < 0)
        return NULL;
    if (type == RWF_DT_REAL_4RB || type == RWF_DT_REAL_8RB) {
        if (p >= end)
            return NULL;
        unsigned n = (p[0] & RWF_REAL_HINT_BLANK)
                         ? 1
                         : 1 + rwf_real_rb_len(type == RWF_DT_REAL_8RB, p[0] >> 6);
        if ((size_t)(end - p) < n)
            return NULL;
        *out = rwf_buf_make(p, n);
        return p + n;
    }
    if (prefix_is_u8(type)) {
        if (p >= end || p[0] > end - p - 1)
            return NULL;
        *out = rwf_buf_make(p + 1, p[0]);
        return p + 1 + p[0];
    }
    return get_buf16(p, end, out);
}

/* Common header tail of FieldList and ElementList: [set id] [set data] [count]. */
static int list_sets(const char *what, const uint8_t *start, const uint8_t **pp, const uint8_t *end,
                     uint8_t flags, uint16_t *set_id, rwf_buf *set_data, uint16_t *count)
{
    const uint8_t *p = *pp;
    *set_id = 0;
    if (flags & RWF_FLF_HAS_SET_DATA) {
        if (flags & RWF_FLF_HAS_SET_ID) {
            p = rwf_rd_u15rb(p, end, set_id);
            if (!p)
                return bad(what, start, *pp, "truncated set id");
        }
        if (flags & RWF_FLF_HAS_STANDARD_DATA) {
            const uint8_t *q = get_buf15(p, end, set_data);
            if (!q)
                return bad(what, start, p, "set data length exceeds the %u bytes left",
                           (unsigned)(end - p));
            p = q;
        } else {
            *set_data = rwf_buf_make(p, (size_t)(end - p));
            p = end;
        }
    }
    *count = 0;
    if (flags & RWF_FLF_HAS_STANDARD_DATA) {
        if (end - p < 2)
            return bad(what, start, p, "truncated entry count");
        *count = rwf_rd16(p);
        p += 2;
    }
    *pp = p;
    return RWF_OK;
}

/* ---- FieldList --------------------------------------------------------------------------- */

int rwf_fl_dec_init(rwf_fl_dec *d, rwf_buf data, const rwf_set_db *sets)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    int r;

    /* Fields set one by one: cheaper than a memset of the struct on this path. */
    d->hdr.flags = 0;
    d->hdr.dict_id = 0;
    d->hdr.fl_num = 0;
    d->hdr.set_id = 0;
    d->hdr.set_data = (rwf_buf){0};
    d->count = d->index = 0;
    d->set_left = d->set_index = 0;
    d->set = NULL;
    d->set_pos = d->set_end = NULL;
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    if (data.len >= 3 && p[0] == RWF_FLF_HAS_STANDARD_DATA) { /* the MarketPrice case */
        d->hdr.flags = RWF_FLF_HAS_STANDARD_DATA;
        d->count = rwf_rd16(p + 1);
        d->pos = p + 3;
        return RWF_OK;
    }
    d->hdr.flags = *p++;
    if (d->hdr.flags & RWF_FLF_HAS_FIELD_LIST_INFO) {
        if (p >= end || p[0] > end - p - 1)
            return bad("FieldList", d->start, p, "truncated info");
        const uint8_t *info = p + 1, *info_end = info + p[0];
        const uint8_t *q = rwf_rd_i15rb(info, info_end, &d->hdr.dict_id);
        if (!q || info_end - q < 2)
            return bad("FieldList", d->start, p, "info of %u bytes is too short", p[0]);
        d->hdr.fl_num = rwf_rd16(q);
        p = info_end;
    }
    r = list_sets("FieldList", d->start, &p, end, d->hdr.flags, &d->hdr.set_id, &d->hdr.set_data,
                  &d->count);
    if (r < 0)
        return r;
    d->pos = p;
    if (d->hdr.flags & RWF_FLF_HAS_SET_DATA) {
        const rwf_set_def *def = rwf_set_db_find(sets, d->hdr.set_id);
        if (!def || (sets && sets->kind != RWF_DT_FIELD_LIST))
            return RWF_SET_SKIPPED;
        d->set = def;
        d->set_left = def->count;
        d->set_pos = (const uint8_t *)d->hdr.set_data.data;
        d->set_end = d->set_pos + d->hdr.set_data.len;
    }
    return RWF_OK;
}

int rwf_fl_next_set(rwf_fl_dec *d, rwf_field *f)
{
    const rwf_set_entry *se = &d->set->entries[d->set_index];
    const uint8_t *q = get_item(se->type, d->set_pos, d->set_end, &f->data);
    if (!q)
        return bad("FieldList set data", (const uint8_t *)d->hdr.set_data.data, d->set_pos,
                   "entry %u (fid %d, %s) does not fit", d->set_index, se->fid,
                   rwf_type_name(se->type) ? rwf_type_name(se->type) : "bad type");
    f->fid = se->fid;
    f->type = se->type;
    d->set_pos = q;
    d->set_index++;
    d->set_left--;
    return RWF_OK;
}

int rwf_fl_bad_entry(rwf_fl_dec *d, const uint8_t *at)
{
    size_t left = (size_t)(d->end - at);
    if (left < 3)
        return bad("FieldList", d->start, at, "entry %u of %u truncated (%zu bytes left)", d->index,
                   d->count, left);
    return bad("FieldList", d->start, at,
               "entry %u of %u (fid %d): value length exceeds the %zu bytes left", d->index,
               d->count, (int16_t)rwf_rd16(at), left - 3);
}

/* ---- ElementList ------------------------------------------------------------------------- */

int rwf_el_dec_init(rwf_el_dec *d, rwf_buf data, const rwf_set_db *sets)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    int r;

    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    d->hdr.flags = *p++;
    if (d->hdr.flags & RWF_ELF_HAS_ELEMENT_LIST_INFO) {
        if (p >= end || p[0] > end - p - 1 || p[0] < 2)
            return bad("ElementList", d->start, p, "truncated info");
        d->hdr.el_num = rwf_rd16(p + 1);
        p += 1 + p[0];
    }
    r = list_sets("ElementList", d->start, &p, end, d->hdr.flags, &d->hdr.set_id, &d->hdr.set_data,
                  &d->count);
    if (r < 0)
        return r;
    d->pos = p;
    if (d->hdr.flags & RWF_ELF_HAS_SET_DATA) {
        const rwf_set_def *def = rwf_set_db_find(sets, d->hdr.set_id);
        if (!def || (sets && sets->kind != RWF_DT_ELEMENT_LIST))
            return RWF_SET_SKIPPED;
        d->set = def;
        d->set_pos = (const uint8_t *)d->hdr.set_data.data;
        d->set_end = d->set_pos + d->hdr.set_data.len;
    }
    return RWF_OK;
}

int rwf_el_next(rwf_el_dec *d, rwf_element *e)
{
    if (d->set && d->set_index < d->set->count) {
        const rwf_set_entry *se = &d->set->entries[d->set_index];
        const uint8_t *q = get_item(se->type, d->set_pos, d->set_end, &e->data);
        if (!q)
            return bad("ElementList set data", (const uint8_t *)d->hdr.set_data.data, d->set_pos,
                       "entry %u (%.*s) does not fit", d->set_index, (int)se->name.len,
                       se->name.data);
        e->name = se->name;
        e->type = se->type;
        d->set_pos = q;
        d->set_index++;
        return RWF_OK;
    }
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *q;
    q = get_buf15(p, d->end, &e->name);
    if (!q || q >= d->end)
        return bad("ElementList", d->start, p, "entry %u of %u: truncated name or type", d->index,
                   d->count);
    e->type = *q++;
    if (e->type == RWF_DT_NO_DATA) {
        e->data = rwf_buf_make(q, 0);
    } else {
        const uint8_t *r = get_buf16(q, d->end, &e->data);
        if (!r)
            return bad("ElementList", d->start, p,
                       "entry %u of %u (%.*s): value length exceeds the %u bytes left", d->index,
                       d->count, (int)e->name.len, e->name.data, (unsigned)(d->end - q));
        q = r;
    }
    d->pos = q;
    d->index++;
    return RWF_OK;
}

/* ---- Map --------------------------------------------------------------------------------- */

/* [set defs buf15] [summary buf15] [count hint u30rb] count u16 — shared by Map, Vector and
 * Series. */
static int dict_header_tail(const char *what, const uint8_t *start, const uint8_t **pp,
                            const uint8_t *end, int has_defs, int has_summary, int has_hint,
                            rwf_buf *defs, rwf_buf *summary, uint32_t *hint, uint16_t *count)
{
    const uint8_t *p = *pp, *q;
    if (has_defs) {
        if (!(q = get_buf15(p, end, defs)))
            return bad(what, start, p, "set definitions length exceeds the %u bytes left",
                       (unsigned)(end - p));
        p = q;
    }
    if (has_summary) {
        if (!(q = get_buf15(p, end, summary)))
            return bad(what, start, p, "summary data length exceeds the %u bytes left",
                       (unsigned)(end - p));
        p = q;
    }
    if (has_hint) {
        if (!(q = rwf_rd_u30rb(p, end, hint)))
            return bad(what, start, p, "truncated total count hint");
        p = q;
    }
    if (end - p < 2)
        return bad(what, start, p, "truncated entry count");
    *count = rwf_rd16(p);
    *pp = p + 2;
    return RWF_OK;
}

int rwf_map_dec_init(rwf_map_dec *d, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    if (data.len < 3)
        return bad("Map", d->start, p, "header truncated (%u bytes)", (unsigned)data.len);
    d->hdr.flags = p[0];
    d->hdr.key_type = p[1];
    d->hdr.ctype = (uint8_t)(p[2] + RWF_DT_CONTAINER_MIN);
    p += 3;
    if (d->hdr.flags & RWF_MPF_HAS_KEY_FIELD_ID) {
        if (end - p < 2)
            return bad("Map", d->start, p, "truncated key field id");
        d->hdr.key_fid = (int16_t)rwf_rd16(p);
        p += 2;
    }
    int r = dict_header_tail("Map", d->start, &p, end, d->hdr.flags & RWF_MPF_HAS_SET_DEFS,
                             d->hdr.flags & RWF_MPF_HAS_SUMMARY_DATA,
                             d->hdr.flags & RWF_MPF_HAS_TOTAL_COUNT_HINT, &d->hdr.set_defs,
                             &d->hdr.summary, &d->hdr.total_count_hint, &d->count);
    d->pos = p;
    return r;
}

int rwf_map_next(rwf_map_dec *d, rwf_map_entry *e)
{
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *end = d->end, *q;
    if (p >= end)
        return bad("Map", d->start, p, "entry %u of %u missing", d->index, d->count);
    e->action = rwf_entry_action(p[0]);
    e->flags = rwf_entry_flags(p[0]);
    q = p + 1;
    e->perm = rwf_buf_make(q, 0);
    if ((d->hdr.flags & RWF_MPF_HAS_PER_ENTRY_PERM_DATA) && (e->flags & RWF_MPEF_HAS_PERM_DATA)) {
        if (!(q = get_buf15(q, end, &e->perm)))
            return bad("Map", d->start, p, "entry %u: perm data exceeds the container", d->index);
    }
    const uint8_t *k = q;
    if (!(q = get_buf15(q, end, &e->key)))
        return bad("Map", d->start, k, "entry %u: key length exceeds the %u bytes left", d->index,
                   (unsigned)(end - k));
    e->data = rwf_buf_make(q, 0);
    if (e->action != RWF_MPEA_DELETE_ENTRY && d->hdr.ctype != RWF_DT_NO_DATA) {
        const uint8_t *v = q;
        if (!(q = get_buf16(q, end, &e->data)))
            return bad("Map", d->start, v, "entry %u: data length exceeds the %u bytes left",
                       d->index, (unsigned)(end - v));
    }
    d->pos = q;
    d->index++;
    return RWF_OK;
}

/* ---- FilterList -------------------------------------------------------------------------- */

int rwf_filter_dec_init(rwf_filter_dec *d, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    unsigned need = 3 + ((p[0] & RWF_FTF_HAS_TOTAL_COUNT_HINT) ? 1 : 0);
    if (data.len < need)
        return bad("FilterList", d->start, p, "header truncated (%u bytes)", (unsigned)data.len);
    d->hdr.flags = p[0];
    d->hdr.ctype = (uint8_t)(p[1] + RWF_DT_CONTAINER_MIN);
    p += 2;
    if (d->hdr.flags & RWF_FTF_HAS_TOTAL_COUNT_HINT)
        d->hdr.total_count_hint = *p++;
    d->count = *p++;
    d->pos = p;
    return RWF_OK;
}

int rwf_filter_next(rwf_filter_dec *d, rwf_filter_entry *e)
{
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *end = d->end, *q;
    if (end - p < 2)
        return bad("FilterList", d->start, p, "entry %u of %u truncated", d->index, d->count);
    e->action = rwf_entry_action(p[0]);
    e->flags = rwf_entry_flags(p[0]);
    e->id = p[1];
    q = p + 2;
    e->ctype = d->hdr.ctype;
    if (e->flags & RWF_FTEF_HAS_CONTAINER_TYPE) {
        if (q >= end)
            return bad("FilterList", d->start, q, "entry %u: truncated container type", d->index);
        e->ctype = (uint8_t)(*q++ + RWF_DT_CONTAINER_MIN);
    }
    e->perm = rwf_buf_make(q, 0);
    if ((d->hdr.flags & RWF_FTF_HAS_PER_ENTRY_PERM_DATA) && (e->flags & RWF_FTEF_HAS_PERM_DATA)) {
        if (!(q = get_buf15(q, end, &e->perm)))
            return bad("FilterList", d->start, p, "entry %u: perm data exceeds the container",
                       d->index);
    }
    e->data = rwf_buf_make(q, 0);
    if (e->ctype != RWF_DT_NO_DATA && e->action != RWF_FTEA_CLEAR_ENTRY) {
        const uint8_t *v = q;
        if (!(q = get_buf16(q, end, &e->data)))
            return bad("FilterList", d->start, v,
                       "entry %u (id %u): data length exceeds the %u bytes left", d->index, e->id,
                       (unsigned)(end - v));
    }
    d->pos = q;
    d->index++;
    return RWF_OK;
}

/* ---- Vector ------------------------------------------------------------------------------ */

int rwf_vector_dec_init(rwf_vector_dec *d, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    if (data.len < 2)
        return bad("Vector", d->start, p, "header truncated (%u bytes)", (unsigned)data.len);
    d->hdr.flags = p[0];
    d->hdr.ctype = (uint8_t)(p[1] + RWF_DT_CONTAINER_MIN);
    p += 2;
    int r = dict_header_tail("Vector", d->start, &p, end, d->hdr.flags & RWF_VTF_HAS_SET_DEFS,
                             d->hdr.flags & RWF_VTF_HAS_SUMMARY_DATA,
                             d->hdr.flags & RWF_VTF_HAS_TOTAL_COUNT_HINT, &d->hdr.set_defs,
                             &d->hdr.summary, &d->hdr.total_count_hint, &d->count);
    d->pos = p;
    return r;
}

int rwf_vector_next(rwf_vector_dec *d, rwf_vector_entry *e)
{
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *end = d->end, *q;
    if (p >= end)
        return bad("Vector", d->start, p, "entry %u of %u missing", d->index, d->count);
    e->action = rwf_entry_action(p[0]);
    e->flags = rwf_entry_flags(p[0]);
    if (!(q = rwf_rd_u30rb(p + 1, end, &e->index)))
        return bad("Vector", d->start, p, "entry %u: truncated index", d->index);
    e->perm = rwf_buf_make(q, 0);
    if ((d->hdr.flags & RWF_VTF_HAS_PER_ENTRY_PERM_DATA) && (e->flags & RWF_VTEF_HAS_PERM_DATA)) {
        if (!(q = get_buf15(q, end, &e->perm)))
            return bad("Vector", d->start, p, "entry %u: perm data exceeds the container",
                       d->index);
    }
    e->data = rwf_buf_make(q, 0);
    if (e->action != RWF_VTEA_CLEAR_ENTRY && e->action != RWF_VTEA_DELETE_ENTRY &&
        d->hdr.ctype != RWF_DT_NO_DATA) {
        const uint8_t *v = q;
        if (!(q = get_buf16(q, end, &e->data)))
            return bad("Vector", d->start, v, "entry %u: data length exceeds the %u bytes left",
                       d->index, (unsigned)(end - v));
    }
    d->pos = q;
    d->index++;
    return RWF_OK;
}

/* ---- Series ------------------------------------------------------------------------------ */

int rwf_series_dec_init(rwf_series_dec *d, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len;
    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    if (data.len < 2)
        return bad("Series", d->start, p, "header truncated (%u bytes)", (unsigned)data.len);
    d->hdr.flags = p[0];
    d->hdr.ctype = (uint8_t)(p[1] + RWF_DT_CONTAINER_MIN);
    p += 2;
    int r = dict_header_tail("Series", d->start, &p, end, d->hdr.flags & RWF_SRF_HAS_SET_DEFS,
                             d->hdr.flags & RWF_SRF_HAS_SUMMARY_DATA,
                             d->hdr.flags & RWF_SRF_HAS_TOTAL_COUNT_HINT, &d->hdr.set_defs,
                             &d->hdr.summary, &d->hdr.total_count_hint, &d->count);
    d->pos = p;
    return r;
}

int rwf_series_next(rwf_series_dec *d, rwf_buf *data)
{
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *q;
    *data = rwf_buf_make(p, 0);
    if (d->hdr.ctype != RWF_DT_NO_DATA) {
        if (!(q = get_buf16(p, d->end, data)))
            return bad("Series", d->start, p, "entry %u of %u: length exceeds the %u bytes left",
                       d->index, d->count, (unsigned)(d->end - p));
        d->pos = q;
    }
    d->index++;
    return RWF_OK;
}

/* ---- Array ------------------------------------------------------------------------------- */

int rwf_array_dec_init(rwf_array_dec *d, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data, *end = p + data.len, *q;
    memset(d, 0, sizeof(*d));
    d->start = d->pos = d->end = p;
    if (data.len == 0)
        return RWF_OK;
    d->end = end;
    d->type = p[0];
    if (!(q = rwf_rd_u16ob(p + 1, end, &d->item_len)) || end - q < 2)
        return bad("Array", d->start, p, "header truncated (%u bytes)", (unsigned)data.len);
    d->count = rwf_rd16(q);
    d->pos = q + 2;
    if (!rwf_is_primitive(d->type) || d->type == RWF_DT_ARRAY)
        return bad("Array", d->start, p, "item type %u is not a primitive type", d->type);
    return RWF_OK;
}

int rwf_array_next(rwf_array_dec *d, rwf_buf *item)
{
    if (d->index >= d->count)
        return RWF_END;
    const uint8_t *p = d->pos, *q;
    if (d->item_len) {
        if ((size_t)(d->end - p) < d->item_len)
            return bad("Array", d->start, p, "item %u of %u: %u bytes needed, %u left", d->index,
                       d->count, d->item_len, (unsigned)(d->end - p));
        *item = rwf_buf_make(p, d->item_len);
        q = p + d->item_len;
    } else if (!(q = get_item(d->type, p, d->end, item))) {
        return bad("Array", d->start, p, "item %u of %u: length exceeds the %u bytes left",
                   d->index, d->count, (unsigned)(d->end - p));
    }
    d->pos = q;
    d->index++;
    return RWF_OK;
}

int rwf_array_item_value(const rwf_array_dec *d, rwf_buf item, rwf_value *out)
{
    if (!d->item_len)
        return rwf_get_value(d->type, item, out);
    switch (d->type) {
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        memset(out, 0, sizeof(*out));
        out->type = d->type;
        out->buf = item;
        return RWF_OK;
    case RWF_DT_ENUM:
        if (d->item_len == 1 || d->item_len == 2)
            return rwf_get_value(RWF_DT_ENUM, item, out);
        break;
    default: {
        int t = rwf_fixed_type(d->type, d->item_len);
        if (t)
            return rwf_get_value(t, item, out);
    }
    }
    err_set("Array of %s cannot have fixed items of %u bytes", rwf_type_name(d->type), d->item_len);
    return RWF_E_MALFORMED;
}
