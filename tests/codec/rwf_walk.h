/*
 * rwf_walk: a complete recursive walk over an RWF message or container, for tests and the
 * fuzz target. Every container is decoded, every primitive decoded with its type (field types
 * from a dictionary), and — when an encoder is given — everything is re-encoded through the
 * encoder API with in-place containers, so that comparing the output with the input checks
 * that decode + encode reproduce ETA's bytes.
 *
 * Header-only (static functions); include it in one test or fuzz source.
 */
#ifndef RWFPERF_TEST_RWF_WALK_H
#define RWFPERF_TEST_RWF_WALK_H

#include "err.h"
#include "rwf.h"

typedef struct walk_ctx {
    const rwf_dict *dict; /* field types; NULL: field values are kept as encoded bytes */
    rwf_enc *enc;         /* re-encode into this when not NULL */
    unsigned msgs, fields, elements, entries, items, blanks;
    unsigned unknown_fids; /* fields the dictionary does not define */
    int max_depth;         /* deepest nesting seen */
} walk_ctx;

#define WALK_MAX_DEPTH 24
#define WALK_SET_POOL 1024

static int walk_container(walk_ctx *w, int type, rwf_buf data, const rwf_set_db *sets, int depth);
static int walk_msg(walk_ctx *w, rwf_buf data, int depth);

static int walk_enc(walk_ctx *w, int r)
{
    (void)w;
    return r;
}

/* A primitive of type (standard or set-defined) with value bytes data: decoded, re-encoded
 * in the form it came in. */
static int walk_prim(walk_ctx *w, int type, rwf_buf data, int depth)
{
    rwf_value v;
    if (type == RWF_DT_ARRAY) {
        rwf_array_dec a;
        rwf_buf item;
        int r = rwf_array_dec_init(&a, data);
        if (r < 0)
            return r;
        if (data.len == 0) {
            w->blanks++;
            return w->enc ? rwf_enc_blank(w->enc) : RWF_OK;
        }
        if (w->enc && (r = rwf_enc_array_begin(w->enc, a.type, a.item_len)) < 0)
            return r;
        while ((r = rwf_array_next(&a, &item)) == RWF_OK) {
            w->items++;
            int rr = rwf_array_item_value(&a, item, &v);
            if (rr < 0)
                return err_push("array item %u", a.index - 1), rr;
            if (!w->enc)
                continue;
            if (rr == RWF_BLANK && item.len == 0)
                r = rwf_enc_blank(w->enc);
            else if (a.item_len || rr == RWF_OK)
                r = rwf_enc_value(w->enc, &v);
            else
                r = rwf_enc_encoded(w->enc, item);
            if (r < 0)
                return r;
        }
        if (r < 0)
            return r;
        return w->enc ? rwf_enc_array_end(w->enc) : RWF_OK;
    }
    if (rwf_is_container(type))
        return walk_container(w, type, data, NULL, depth + 1);
    int rr = rwf_get_value(type, data, &v);
    if (rr < 0)
        return rr;
    if (rr == RWF_BLANK)
        w->blanks++;
    if (!w->enc)
        return RWF_OK;
    if (rr == RWF_BLANK && data.len == 0)
        return rwf_enc_blank(w->enc);
    if (rr == RWF_BLANK && type < RWF_DT_SET_PRIMITIVE_MIN) /* a blank pattern: keep the bytes */
        return rwf_enc_encoded(w->enc, data);
    return rwf_enc_value(w->enc, &v);
}

/* Decodes set definitions of a Map/Vector/Series into db (entries in pool). */
static int walk_setdefs(walk_ctx *w, int ctype, rwf_buf defs, rwf_set_db *db, rwf_set_entry *pool)
{
    (void)w;
    int kind = ctype == RWF_DT_ELEMENT_LIST ? RWF_DT_ELEMENT_LIST : RWF_DT_FIELD_LIST;
    return rwf_set_db_decode(db, kind, defs, pool, WALK_SET_POOL);
}

static int walk_fl(walk_ctx *w, rwf_buf data, const rwf_set_db *sets, int depth)
{
    rwf_fl_dec d;
    rwf_field f;
    int r = rwf_fl_dec_init(&d, data, sets);
    if (r < 0)
        return r;
    if (w->enc) {
        rwf_fl_hdr h = d.hdr;
        if (r == RWF_OK)
            h.set_data = rwf_buf_make(NULL, 0); /* re-encode set data in place */
        if ((r = rwf_enc_fl_begin(w->enc, &h, sets)) < 0)
            return r;
    }
    while ((r = rwf_fl_next(&d, &f)) == RWF_OK) {
        int type = f.type ? f.type : (w->dict ? rwf_dict_type(w->dict, f.fid) : 0);
        w->fields++;
        if (w->enc && (r = rwf_enc_fl_entry(w->enc, f.fid)) < 0)
            return r;
        if (!type) {
            if (w->dict)
                w->unknown_fids++;
            if (w->enc && (r = rwf_enc_encoded(w->enc, f.data)) < 0)
                return r;
            continue;
        }
        if ((r = walk_prim(w, type, f.data, depth)) < 0)
            return err_push("fid %d (%s)", f.fid, rwf_type_name(type)), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_fl_end(w->enc) : RWF_OK;
}

static int walk_el(walk_ctx *w, rwf_buf data, const rwf_set_db *sets, int depth)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, data, sets);
    if (r < 0)
        return r;
    if (w->enc) {
        rwf_el_hdr h = d.hdr;
        if (r == RWF_OK)
            h.set_data = rwf_buf_make(NULL, 0);
        if ((r = rwf_enc_el_begin(w->enc, &h, sets)) < 0)
            return r;
    }
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        w->elements++;
        int base = rwf_base_type(el.type);
        if (w->enc && (r = rwf_enc_el_entry(w->enc, el.name, base)) < 0)
            return r;
        if (el.type == RWF_DT_NO_DATA)
            continue;
        if ((r = walk_prim(w, el.type, el.data, depth)) < 0)
            return err_push("element %.*s", (int)el.name.len, el.name.data), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_el_end(w->enc) : RWF_OK;
}

static int walk_map(walk_ctx *w, rwf_buf data, int depth)
{
    rwf_map_dec d;
    rwf_map_entry me;
    rwf_set_db db, *sets = NULL;
    static rwf_set_entry pools[WALK_MAX_DEPTH + 2][WALK_SET_POOL];
    int r = rwf_map_dec_init(&d, data);
    if (r < 0)
        return r;
    if (d.hdr.flags & RWF_MPF_HAS_SET_DEFS) {
        if ((r = walk_setdefs(w, d.hdr.ctype, d.hdr.set_defs, &db, pools[depth])) < 0)
            return err_push("Map set definitions"), r;
        sets = &db;
    }
    if (w->enc) {
        rwf_map_hdr h = d.hdr;
        h.set_defs = h.summary = rwf_buf_make(NULL, 0);
        if ((r = rwf_enc_map_begin(w->enc, &h)) < 0)
            return r;
        if (sets && (r = rwf_enc_set_db(w->enc, sets)) < 0)
            return r;
    }
    if (d.hdr.flags & RWF_MPF_HAS_SUMMARY_DATA) {
        if ((r = walk_container(w, d.hdr.ctype, d.hdr.summary, sets, depth + 1)) < 0)
            return err_push("Map summary data"), r;
    }
    while ((r = rwf_map_next(&d, &me)) == RWF_OK) {
        rwf_value key;
        w->entries++;
        int kr = rwf_get_value(d.hdr.key_type, me.key, &key);
        if (kr < 0)
            return err_push("Map entry %u key", d.index - 1), kr;
        if (w->enc && (r = rwf_enc_map_entry(w->enc, me.action, &me.perm, &key)) < 0)
            return r;
        if (me.action == RWF_MPEA_DELETE_ENTRY || d.hdr.ctype == RWF_DT_NO_DATA)
            continue;
        if ((r = walk_container(w, d.hdr.ctype, me.data, sets, depth + 1)) < 0)
            return err_push("Map entry %u", d.index - 1), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_map_end(w->enc) : RWF_OK;
}

static int walk_filter(walk_ctx *w, rwf_buf data, int depth)
{
    rwf_filter_dec d;
    rwf_filter_entry fe;
    int r = rwf_filter_dec_init(&d, data);
    if (r < 0)
        return r;
    if (w->enc && (r = rwf_enc_filter_begin(w->enc, &d.hdr)) < 0)
        return r;
    while ((r = rwf_filter_next(&d, &fe)) == RWF_OK) {
        w->entries++;
        int own = (fe.flags & RWF_FTEF_HAS_CONTAINER_TYPE) ? fe.ctype : 0;
        if (w->enc && (r = rwf_enc_filter_entry(w->enc, fe.action, fe.id, own, &fe.perm)) < 0)
            return r;
        if (fe.action == RWF_FTEA_CLEAR_ENTRY || fe.ctype == RWF_DT_NO_DATA)
            continue;
        if ((r = walk_container(w, fe.ctype, fe.data, NULL, depth + 1)) < 0)
            return err_push("FilterList entry id %u", fe.id), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_filter_end(w->enc) : RWF_OK;
}

static int walk_vector(walk_ctx *w, rwf_buf data, int depth)
{
    rwf_vector_dec d;
    rwf_vector_entry ve;
    rwf_set_db db, *sets = NULL;
    static rwf_set_entry pools[WALK_MAX_DEPTH + 2][WALK_SET_POOL];
    int r = rwf_vector_dec_init(&d, data);
    if (r < 0)
        return r;
    if (d.hdr.flags & RWF_VTF_HAS_SET_DEFS) {
        if ((r = walk_setdefs(w, d.hdr.ctype, d.hdr.set_defs, &db, pools[depth])) < 0)
            return err_push("Vector set definitions"), r;
        sets = &db;
    }
    if (w->enc) {
        rwf_vector_hdr h = d.hdr;
        h.set_defs = h.summary = rwf_buf_make(NULL, 0);
        if ((r = rwf_enc_vector_begin(w->enc, &h)) < 0)
            return r;
        if (sets && (r = rwf_enc_set_db(w->enc, sets)) < 0)
            return r;
    }
    if (d.hdr.flags & RWF_VTF_HAS_SUMMARY_DATA) {
        if ((r = walk_container(w, d.hdr.ctype, d.hdr.summary, sets, depth + 1)) < 0)
            return err_push("Vector summary data"), r;
    }
    while ((r = rwf_vector_next(&d, &ve)) == RWF_OK) {
        w->entries++;
        if (w->enc && (r = rwf_enc_vector_entry(w->enc, ve.action, ve.index, &ve.perm)) < 0)
            return r;
        if (ve.action == RWF_VTEA_CLEAR_ENTRY || ve.action == RWF_VTEA_DELETE_ENTRY ||
            d.hdr.ctype == RWF_DT_NO_DATA)
            continue;
        if ((r = walk_container(w, d.hdr.ctype, ve.data, sets, depth + 1)) < 0)
            return err_push("Vector entry %u", d.index - 1), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_vector_end(w->enc) : RWF_OK;
}

static int walk_series(walk_ctx *w, rwf_buf data, int depth)
{
    rwf_series_dec d;
    rwf_buf entry;
    rwf_set_db db, *sets = NULL;
    static rwf_set_entry pools[WALK_MAX_DEPTH + 2][WALK_SET_POOL];
    int r = rwf_series_dec_init(&d, data);
    if (r < 0)
        return r;
    if (d.hdr.flags & RWF_SRF_HAS_SET_DEFS) {
        if ((r = walk_setdefs(w, d.hdr.ctype, d.hdr.set_defs, &db, pools[depth])) < 0)
            return err_push("Series set definitions"), r;
        sets = &db;
    }
    if (w->enc) {
        rwf_series_hdr h = d.hdr;
        h.set_defs = h.summary = rwf_buf_make(NULL, 0);
        if ((r = rwf_enc_series_begin(w->enc, &h)) < 0)
            return r;
        if (sets && (r = rwf_enc_set_db(w->enc, sets)) < 0)
            return r;
    }
    if (d.hdr.flags & RWF_SRF_HAS_SUMMARY_DATA) {
        if ((r = walk_container(w, d.hdr.ctype, d.hdr.summary, sets, depth + 1)) < 0)
            return err_push("Series summary data"), r;
    }
    while ((r = rwf_series_next(&d, &entry)) == RWF_OK) {
        w->entries++;
        if (w->enc && (r = rwf_enc_series_entry(w->enc)) < 0)
            return r;
        if (d.hdr.ctype == RWF_DT_NO_DATA)
            continue;
        if ((r = walk_container(w, d.hdr.ctype, entry, sets, depth + 1)) < 0)
            return err_push("Series entry %u", d.index - 1), r;
    }
    if (r < 0)
        return r;
    return w->enc ? rwf_enc_series_end(w->enc) : RWF_OK;
}

static int walk_container(walk_ctx *w, int type, rwf_buf data, const rwf_set_db *sets, int depth)
{
    if (depth > w->max_depth)
        w->max_depth = depth;
    if (depth > WALK_MAX_DEPTH) {
        err_set("nesting deeper than %d", WALK_MAX_DEPTH);
        return RWF_E_UNSUPPORTED;
    }
    if (data.len == 0 && type != RWF_DT_NO_DATA) { /* an empty container */
        if (!w->enc || rwf_enc_top(w->enc)->state == RWF_ES_PAYLOAD)
            return RWF_OK;
        return rwf_enc_encoded(w->enc, data);
    }
    switch (type) {
    case RWF_DT_NO_DATA:
        return RWF_OK;
    case RWF_DT_FIELD_LIST:
        return walk_fl(w, data, sets && sets->kind == RWF_DT_FIELD_LIST ? sets : NULL, depth);
    case RWF_DT_ELEMENT_LIST:
        return walk_el(w, data, sets && sets->kind == RWF_DT_ELEMENT_LIST ? sets : NULL, depth);
    case RWF_DT_MAP:
        return walk_map(w, data, depth);
    case RWF_DT_FILTER_LIST:
        return walk_filter(w, data, depth);
    case RWF_DT_VECTOR:
        return walk_vector(w, data, depth);
    case RWF_DT_SERIES:
        return walk_series(w, data, depth);
    case RWF_DT_MSG:
        return walk_msg(w, data, depth + 1);
    case RWF_DT_OPAQUE:
    case RWF_DT_XML:
    case RWF_DT_ANSI_PAGE:
    case RWF_DT_JSON:
        return w->enc ? walk_enc(w, rwf_enc_encoded(w->enc, data)) : RWF_OK;
    default:
        err_set("unknown container type %d", type);
        return RWF_E_UNSUPPORTED;
    }
}

static int walk_msg(walk_ctx *w, rwf_buf data, int depth)
{
    rwf_msg m, m2;
    int r = rwf_msg_decode(&m, data);
    if (r < 0)
        return r;
    w->msgs++;
    int attrib = rwf_msg_has_key(&m) && (m.key.flags & RWF_MKF_HAS_ATTRIB) &&
                 m.key.attrib_type != RWF_DT_NO_DATA;
    if (w->enc) {
        m2 = m;
        m2.payload = rwf_buf_make(NULL, 0);
        if (attrib)
            m2.key.attrib = rwf_buf_make(NULL, 0);
        if ((r = rwf_enc_msg_begin(w->enc, &m2)) < 0)
            return r;
    }
    if (attrib && (r = walk_container(w, m.key.attrib_type, m.key.attrib, NULL, depth + 1)) < 0)
        return err_push("%s key attribute", rwf_msg_class_name(m.msg_class)), r;
    if (m.container_type != RWF_DT_NO_DATA &&
        (r = walk_container(w, m.container_type, m.payload, NULL, depth + 1)) < 0)
        return err_push("%s payload", rwf_msg_class_name(m.msg_class)), r;
    return w->enc ? rwf_enc_msg_end(w->enc) : RWF_OK;
}

#endif
