/*
 * rwf_enc_map: the containers of containers — Map, Vector and Series (with set definitions,
 * summary data and a total count hint), FilterList — and the Array value.
 */
#include "rwf_enc_int.h"

/* ---- Map / Vector / Series --------------------------------------------------------------- */

/* Writes the total count hint and reserves the entry count: the last part of Map, Vector and
 * Series headers. */
int rwf_enc_dict_tail(rwf_enc *e, rwf_enc_frame *f)
{
    int has_hint = f->kind == RWF_DT_SERIES ? (f->flags & RWF_SRF_HAS_TOTAL_COUNT_HINT)
                                            : (f->flags & RWF_MPF_HAS_TOTAL_COUNT_HINT);
    if (!rwf_enc_room(e, 6, rwf_enc_kind_name(f->kind)))
        return e->err;
    if (has_hint) {
        if (f->hint >= RWF_U30RB_LIMIT)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: total count hint %u is too large",
                               rwf_enc_kind_name(f->kind), f->hint);
        e->pos = rwf_wr_u30rb(e->pos, f->hint);
    }
    f->count_at = e->pos;
    e->pos += 2;
    f->state = RWF_ES_ENTRIES;
    return RWF_OK;
}

/* After the set definitions of a Map/Vector/Series: summary data (pre-encoded summary is
 * copied, else the iterator waits for it), then the tail. */
int rwf_enc_dict_after_setdefs(rwf_enc *e, rwf_enc_frame *f, rwf_buf summary)
{
    if (f->flags & RWF_MPF_HAS_SUMMARY_DATA) { /* same bit for Vector and Series */
        if (summary.len == 0) {
            f->state = RWF_ES_SUMMARY;
            return RWF_OK;
        }
        if (summary.len > RWF_U15RB_MAX)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: summary data of %u bytes is too long",
                               rwf_enc_kind_name(f->kind), (unsigned)summary.len);
        if (!rwf_enc_room(e, 2 + (size_t)summary.len, "summary data"))
            return e->err;
        e->pos = rwf_wr_u15rb(e->pos, (uint16_t)summary.len);
        memcpy(e->pos, summary.data, summary.len);
        e->pos += summary.len;
    }
    return rwf_enc_dict_tail(e, f);
}

/* Begins the set definitions of a Map/Vector/Series frame (flags in f->flags). */
static int dict_setdefs(rwf_enc *e, rwf_enc_frame *f, rwf_buf set_defs, rwf_buf summary)
{
    if (f->flags & RWF_MPF_HAS_SET_DEFS) { /* same bit for Vector and Series */
        if (set_defs.len == 0) {
            f->state = RWF_ES_SETDEFS;
            return RWF_OK;
        }
        if (rwf_enc_put_encoded(e, set_defs, 1, "encoded set definitions") < 0)
            return e->err;
    }
    return rwf_enc_dict_after_setdefs(e, f, summary);
}

int rwf_enc_set_db(rwf_enc *e, const rwf_set_db *db)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    if (f->state != RWF_ES_SETDEFS)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: set definitions are not expected here",
                           rwf_enc_kind_name(f->kind));
    if (db->kind != f->ctype)
        return rwf_enc_err(e, RWF_E_INVALID, "%s of %s: set definitions are for %s",
                           rwf_enc_kind_name(f->kind), rwf_enc_kind_name(f->ctype),
                           rwf_enc_kind_name(db->kind));
    size_t size = rwf_set_db_encoded_size(db);
    if (size > RWF_U15RB_MAX)
        return rwf_enc_err(e, RWF_E_INVALID, "set definitions of %zu bytes are too long", size);
    if (!rwf_enc_room(e, 2 + size, "set definitions"))
        return e->err;
    e->pos = rwf_wr_u15rb2(e->pos, (uint16_t)size);
    e->pos = rwf_set_db_put(e->pos, db);
    return rwf_enc_dict_after_setdefs(e, f, rwf_buf_make(NULL, 0));
}

static int check_ctype(rwf_enc *e, int ctype)
{
    if (ctype < RWF_DT_CONTAINER_MIN || ctype > 255)
        return rwf_enc_err(e, RWF_E_INVALID, "type %d is not a container type", ctype);
    return RWF_OK;
}

/* Opens a container frame of type with entries of ctype: checks ctype, pushes the frame, makes
 * room for a header of size bytes (what names it in errors), keeps flags and ctype in the frame
 * and writes them as the header's first two bytes. Returns RWF_OK with *fp set, or the
 * encoder's error. */
static int begin_frame(rwf_enc *e, int type, uint8_t flags, int ctype, size_t size,
                       const char *what, rwf_enc_frame **fp)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, ctype)) < 0)
        return r;
    if ((r = rwf_enc_push(e, type, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, size, what))
        return e->err;
    f->flags = flags;
    f->ctype = (uint8_t)ctype;
    *e->pos++ = flags;
    *e->pos++ = (uint8_t)(ctype - RWF_DT_CONTAINER_MIN);
    *fp = f;
    return RWF_OK;
}

int rwf_enc_map_begin(rwf_enc *e, const rwf_map_hdr *h)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, h->ctype)) < 0)
        return r;
    if (h->key_type < RWF_DT_INT || h->key_type > RWF_DT_RMTES_STRING ||
        h->key_type == RWF_DT_ARRAY)
        return rwf_enc_err(e, RWF_E_INVALID, "map key type %d is not a primitive type",
                           h->key_type);
    if ((r = rwf_enc_push(e, RWF_DT_MAP, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 5, "a Map header"))
        return e->err;
    f->flags = h->flags;
    f->key_type = h->key_type;
    f->ctype = h->ctype;
    f->hint = h->total_count_hint;
    *e->pos++ = h->flags;
    *e->pos++ = h->key_type;
    *e->pos++ = (uint8_t)(h->ctype - RWF_DT_CONTAINER_MIN);
    if (h->flags & RWF_MPF_HAS_KEY_FIELD_ID)
        e->pos = rwf_wr16(e->pos, (uint16_t)h->key_fid);
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

/* Writes an entry's perm data (when given), marking the container's per-entry flag. */
static int put_perm(rwf_enc *e, rwf_enc_frame *f, const rwf_buf *perm, uint8_t list_flag)
{
    if (perm->len > RWF_U15RB_MAX)
        return rwf_enc_err(e, RWF_E_INVALID, "perm data of %u bytes is too long",
                           (unsigned)perm->len);
    e->pos = rwf_wr_u15rb(e->pos, (uint16_t)perm->len);
    memcpy(e->pos, perm->data, perm->len);
    e->pos += perm->len;
    f->start[0] |= list_flag;
    f->flags |= list_flag;
    return RWF_OK;
}

static rwf_enc_frame *entries_of(rwf_enc *e, int kind)
{
    rwf_enc_frame *f = rwf_enc_top(e);
    if (e->err)
        return NULL;
    if (f->kind != kind || f->state != RWF_ES_ENTRIES) {
        rwf_enc_err(e, RWF_E_INVALID, "%s entry: the open container is a %s expecting %s",
                    rwf_enc_kind_name(kind), rwf_enc_kind_name(f->kind),
                    rwf_enc_state_name(f->state));
        return NULL;
    }
    return f;
}

int rwf_enc_map_entry(rwf_enc *e, int action, const rwf_buf *perm, const rwf_value *key)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_MAP);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_MPEA_UPDATE_ENTRY || action > RWF_MPEA_DELETE_ENTRY)
        return rwf_enc_err(e, RWF_E_INVALID, "map entry action %d invalid", action);
    if (!rwf_enc_room(e, 1 + (has_perm ? 2 + (size_t)perm->len : 0), "a map entry"))
        return e->err;
    if ((r = rwf_enc_count_entry(e, f)) < 0)
        return r;
    *e->pos++ = rwf_entry_head(has_perm ? RWF_MPEF_HAS_PERM_DATA : 0, (unsigned)action);
    if (has_perm && put_perm(e, f, perm, RWF_MPF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    f->value_type = (action == RWF_MPEA_DELETE_ENTRY || f->ctype == RWF_DT_NO_DATA) ? 0 : f->ctype;
    f->state = RWF_ES_KEY;
    return rwf_enc_value(e, key);
}

int rwf_enc_map_entry_uint(rwf_enc *e, int action, uint64_t key)
{
    rwf_value k = {.type = RWF_DT_UINT, .u = key};
    return rwf_enc_map_entry(e, action, NULL, &k);
}

int rwf_enc_map_entry_buf(rwf_enc *e, int action, rwf_buf key)
{
    rwf_value k = {.type = RWF_DT_BUFFER, .buf = key};
    if (e->stack[e->depth].kind == RWF_DT_MAP)
        k.type = e->stack[e->depth].key_type;
    return rwf_enc_map_entry(e, action, NULL, &k);
}

int rwf_enc_vector_begin(rwf_enc *e, const rwf_vector_hdr *h)
{
    rwf_enc_frame *f;
    int r = begin_frame(e, RWF_DT_VECTOR, h->flags, h->ctype, 2, "a Vector header", &f);
    if (r < 0)
        return r;
    f->hint = h->total_count_hint;
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

int rwf_enc_vector_entry(rwf_enc *e, int action, uint32_t index, const rwf_buf *perm)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_VECTOR);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_VTEA_UPDATE_ENTRY || action > RWF_VTEA_DELETE_ENTRY ||
        index >= RWF_U30RB_LIMIT)
        return rwf_enc_err(e, RWF_E_INVALID, "vector entry action %d / index %u invalid", action,
                           index);
    if (!rwf_enc_room(e, 5 + (has_perm ? 2 + (size_t)perm->len : 0), "a vector entry"))
        return e->err;
    if ((r = rwf_enc_count_entry(e, f)) < 0)
        return r;
    *e->pos++ = rwf_entry_head(has_perm ? RWF_VTEF_HAS_PERM_DATA : 0, (unsigned)action);
    e->pos = rwf_wr_u30rb(e->pos, index);
    if (has_perm && put_perm(e, f, perm, RWF_VTF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    if (action != RWF_VTEA_CLEAR_ENTRY && action != RWF_VTEA_DELETE_ENTRY &&
        f->ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = f->ctype;
    }
    return RWF_OK;
}

int rwf_enc_series_begin(rwf_enc *e, const rwf_series_hdr *h)
{
    rwf_enc_frame *f;
    int r = begin_frame(e, RWF_DT_SERIES, h->flags, h->ctype, 2, "a Series header", &f);
    if (r < 0)
        return r;
    f->hint = h->total_count_hint;
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

int rwf_enc_series_entry(rwf_enc *e)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_SERIES);
    int r;
    if (!f)
        return e->err;
    if ((r = rwf_enc_count_entry(e, f)) < 0)
        return r;
    if (f->ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = f->ctype;
    }
    return RWF_OK;
}

/* ---- FilterList -------------------------------------------------------------------------- */

int rwf_enc_filter_begin(rwf_enc *e, const rwf_filter_hdr *h)
{
    rwf_enc_frame *f;
    int r = begin_frame(e, RWF_DT_FILTER_LIST, h->flags, h->ctype, 4, "a FilterList header", &f);
    if (r < 0)
        return r;
    if (h->flags & RWF_FTF_HAS_TOTAL_COUNT_HINT)
        *e->pos++ = h->total_count_hint;
    f->count_at = e->pos++;
    f->state = RWF_ES_ENTRIES;
    return RWF_OK;
}

int rwf_enc_filter_entry(rwf_enc *e, int action, uint8_t id, int ctype, const rwf_buf *perm)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_FILTER_LIST);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_FTEA_UPDATE_ENTRY || action > RWF_FTEA_CLEAR_ENTRY)
        return rwf_enc_err(e, RWF_E_INVALID, "filter entry action %d invalid", action);
    if (ctype && (r = check_ctype(e, ctype)) < 0)
        return r;
    if (!rwf_enc_room(e, 3 + (has_perm ? 2 + (size_t)perm->len : 0), "a filter entry"))
        return e->err;
    if ((r = rwf_enc_count_entry(e, f)) < 0)
        return r;
    uint8_t flags = (uint8_t)((has_perm ? RWF_FTEF_HAS_PERM_DATA : 0) |
                              (ctype ? RWF_FTEF_HAS_CONTAINER_TYPE : 0));
    *e->pos++ = rwf_entry_head(flags, (unsigned)action);
    *e->pos++ = id;
    if (ctype)
        *e->pos++ = (uint8_t)(ctype - RWF_DT_CONTAINER_MIN);
    if (has_perm && put_perm(e, f, perm, RWF_FTF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    int entry_ctype = ctype ? ctype : f->ctype;
    if (action != RWF_FTEA_CLEAR_ENTRY && entry_ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = (uint8_t)entry_ctype;
    }
    return RWF_OK;
}

/* ---- Array ------------------------------------------------------------------------------- */

int rwf_enc_array_begin(rwf_enc *e, int type, uint16_t item_len)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if (!rwf_is_primitive(type) || type == RWF_DT_ARRAY)
        return rwf_enc_err(e, RWF_E_INVALID, "Array item type %d is not a primitive type", type);
    if ((r = rwf_enc_push(e, RWF_DT_ARRAY, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 6, "an Array header"))
        return e->err;
    f->ctype = (uint8_t)type;
    f->item_len = item_len;
    *e->pos++ = (uint8_t)type;
    e->pos = rwf_wr_u16ob(e->pos, item_len);
    f->count_at = e->pos;
    e->pos += 2;
    f->state = RWF_ES_ITEMS;
    return RWF_OK;
}
