/*
 * rjs_rcont: JSON -> RWF for containers: "Fields" (names through the dictionary), "Elements"
 * (plain strings and numbers, or {"Type":..,"Data":..}), "Map", "FilterList", "Vector",
 * "Series", and the opaque kinds. Members of a container object may come in any order: the
 * header members are read first (values skipped), then the entries are encoded.
 */
#include "rjs_names.h"
#include "rjs_rd.h"

/* Names a failed member in the error text ("<what> \"<key>\": ..."), unless out of room. */
static int fail_in(int rc, const char *what, const rjs_str *k)
{
    if (rc < 0 && rc != RWF_E_NOSPACE)
        err_push("%s \"%.*s\"", what, (int)k->len, k->s);
    return rc;
}

/* An unknown key: skipped with RJS_SKIP_UNKNOWN, else an error. */
static int unknown_key(rjs_rd *rd, rjs_lex *lx, const rjs_str *k, const char *in)
{
    if (rd->c->opts.flags & RJS_SKIP_UNKNOWN)
        return rjs_skip(lx);
    return rjs_lex_err(lx, k->s - 1, "unknown key \"%.*s\" in %s", (int)k->len, k->s, in);
}

/* The definition of the field a Fields key names (escapes decoded), or NULL. */
static const rwf_dict_field *field_of(rjs_rd *rd, const rjs_lex *lx, const rjs_str *k)
{
    if (!k->esc)
        return rjs_field_by_name(rd->c, k->s, k->len, (size_t)(lx->end - k->s));
    char tmp[256];
    if (rjs_unescaped_len(k) > sizeof(tmp))
        return NULL;
    char *end = rjs_unescape(k, tmp);
    return rjs_field_by_name(rd->c, tmp, (size_t)(end - tmp), (size_t)(end - tmp));
}

/* Encodes a primitive field from v (RWF_BLANK in rc: blank). */
static int enc_field(rwf_enc *e, int16_t fid, int type, int rc, const rwf_value *v)
{
    if (rc == RWF_BLANK)
        return rwf_enc_fl_blank(e, fid);
    switch (v->type) {
    case RWF_DT_UINT:
        return rwf_enc_fl_uint(e, fid, v->u);
    case RWF_DT_INT:
        return rwf_enc_fl_int(e, fid, v->i);
    case RWF_DT_REAL:
        return rwf_enc_fl_real(e, fid, &v->real);
    case RWF_DT_ENUM:
        return rwf_enc_fl_enum(e, fid, v->enm);
    case RWF_DT_TIME:
        return rwf_enc_fl_time(e, fid, &v->time);
    case RWF_DT_DATE:
        return rwf_enc_fl_date(e, fid, &v->date);
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        return rwf_enc_fl_buf(e, fid, type, v->buf);
    }
    return rwf_enc_fl_slow(e, fid, v);
}

static int r_field(rjs_rd *rd, rjs_lex *lx, const rwf_dict_field *def)
{
    rwf_enc *e = &rd->e;
    int type = def->rwf_type, rc;
    if (rwf_is_container(type)) {
        if ((rc = rwf_enc_fl_entry(e, def->fid)) < 0)
            return rc;
        return rjs_r_container(rd, lx, type);
    }
    if (type == RWF_DT_ARRAY) {
        if (rjs_kind(lx) == RJS_V_NULL)
            return rjs_literal(lx, RJS_V_NULL) < 0 ? RWF_E_MALFORMED
                                                   : rwf_enc_fl_blank(e, def->fid);
        if ((rc = rwf_enc_fl_entry(e, def->fid)) < 0)
            return rc;
        return rjs_r_array(rd, lx);
    }
    rwf_value v;
    uint8_t *mark = rjs_tail_mark(rd);
    rc = rjs_r_prim(rd, lx, type, def->fid, &v);
    if (rc >= 0)
        rc = enc_field(e, def->fid, type, rc, &v);
    rjs_tail_release(rd, mark);
    return rc;
}

static int r_fields(rjs_rd *rd, rjs_lex *lx)
{
    rjs_str k;
    int rc = rwf_enc_fl_begin_std(&rd->e);
    if (rc < 0)
        return rc;
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        const rwf_dict_field *def = field_of(rd, lx, &k);
        if (!def) {
            if (rd->c->opts.flags & RJS_SKIP_UNKNOWN) {
                if ((rc = rjs_skip(lx)) < 0)
                    return rc;
                continue;
            }
            return rjs_lex_err(lx, k.s - 1, "field \"%.*s\" is not in the dictionary", (int)k.len,
                               k.s);
        }
        if ((rc = r_field(rd, lx, def)) < 0)
            return fail_in(rc, "field", &k);
    }
    return rc < 0 ? rc : rwf_enc_fl_end(&rd->e);
}

/* A plain number element: UInt, Int when negative, Real when it has a fraction or exponent. */
static int number_type(const rjs_lex *lx)
{
    const char *p = lx->p;
    int type = *p == '-' ? RWF_DT_INT : RWF_DT_UINT;
    for (p++; p < lx->end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
                              *p == '+' || *p == '-');
         p++)
        if (*p == '.' || *p == 'e' || *p == 'E')
            type = RWF_DT_REAL;
    return type;
}

/* {"Type":<type>,"Data":<value>} of an element. */
static int r_typed_element(rjs_rd *rd, rjs_lex *lx, rwf_buf name)
{
    rjs_str k;
    int type = -1, rc;
    const char *data = NULL, *start = lx->p;
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Type"))
            rc = rjs_r_named(lx, &rjs_data_types, 255, &type);
        else if (RJS_STR_IS(&k, "Data"))
            data = (rjs_ws(lx), lx->p), rc = rjs_skip(lx);
        else
            rc = unknown_key(rd, lx, &k, "an element");
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (type < 0 || !data || rjs_name(&rjs_data_types, type) == NULL)
        return rjs_lex_err(lx, start, "an element object needs \"Type\" and \"Data\"");
    rjs_lex sub = {lx->base, data, lx->end};
    rwf_enc *e = &rd->e;
    if (type >= RWF_DT_SET_PRIMITIVE_MIN && type <= RWF_DT_SET_PRIMITIVE_MAX)
        type = rwf_base_type(type); /* "Int2"... of set data: the standard form */
    if (type == RWF_DT_NO_DATA)
        return rwf_enc_el_entry(e, name, RWF_DT_NO_DATA);
    if (type == RWF_DT_ANSI_PAGE || (type > RWF_DT_RMTES_STRING && type < RWF_DT_NO_DATA))
        return rjs_lex_err(lx, start, "element type %d cannot be given in JSON", type);
    if ((rc = rwf_enc_el_entry(e, name, type)) < 0)
        return rc;
    if (rwf_is_container(type))
        return rjs_r_container(rd, &sub, type);
    if (rjs_kind(&sub) == RJS_V_NULL)
        return rjs_literal(&sub, RJS_V_NULL) < 0 ? RWF_E_MALFORMED : rwf_enc_blank(e);
    if (type == RWF_DT_ARRAY)
        return rjs_r_array(rd, &sub);
    rwf_value v;
    if ((rc = rjs_r_prim(rd, &sub, type, 0, &v)) < 0)
        return rc;
    return rc == RWF_BLANK ? rwf_enc_blank(e) : rwf_enc_value(e, &v);
}

static int r_element(rjs_rd *rd, rjs_lex *lx, rwf_buf name)
{
    rwf_value v;
    int k = rjs_kind(lx), rc;
    switch (k) {
    case RJS_V_STR:
        if ((rc = rjs_r_prim(rd, lx, RWF_DT_ASCII_STRING, 0, &v)) < 0)
            return rc;
        return rwf_enc_el_buf(&rd->e, name, RWF_DT_ASCII_STRING, v.buf);
    case RJS_V_NUM:
        if ((rc = rjs_r_prim(rd, lx, number_type(lx), 0, &v)) < 0)
            return rc;
        return rwf_enc_el_value(&rd->e, name, &v);
    case RJS_V_OBJ:
        return r_typed_element(rd, lx, name);
    }
    return rjs_r_expected(lx, "a string, a number or {\"Type\":..,\"Data\":..}");
}

static int r_elements(rjs_rd *rd, rjs_lex *lx)
{
    rjs_str k;
    rwf_buf name;
    int rc = rwf_enc_el_begin_std(&rd->e);
    if (rc < 0)
        return rc;
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        uint8_t *mark = rjs_tail_mark(rd);
        const char *at = (rjs_ws(lx), lx->p);
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        rjs_lex kl = {lx->base, at, lx->end};
        if ((rc = rjs_r_string(rd, &kl, &name)) < 0)
            return rc;
        if (name.len > RWF_U15RB_MAX)
            return rjs_lex_err(lx, at, "element name of %u bytes is too long", name.len);
        rc = r_element(rd, lx, name);
        rjs_tail_release(rd, mark);
        if (rc < 0)
            return fail_in(rc, "element", &k);
    }
    return rc < 0 ? rc : rwf_enc_el_end(&rd->e);
}

int rjs_r_peek_container(const rjs_lex *lx)
{
    rjs_lex l = *lx;
    rjs_str k;
    int rc;
    if (rjs_kind(&l) != RJS_V_OBJ)
        return -1;
    for (rc = rjs_obj_begin(&l); rc > 0; rc = rjs_obj_next(&l)) {
        if (rjs_obj_key(&l, &k) < 0)
            return -1;
        int t = k.esc ? -1 : rjs_container_of_key(k.s, k.len);
        if (t >= 0)
            return t;
        if (rjs_skip(&l) < 0)
            return -1;
    }
    return -1;
}

/* {"<tag>":<container>} of a summary: the container encoded (its type must be type). */
static int r_summary(rjs_rd *rd, rjs_lex *lx, int type)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    if (rc <= 0)
        return rc < 0 ? rc : rjs_lex_err(lx, lx->p, "an empty Summary");
    if ((rc = rjs_obj_key(lx, &k)) < 0)
        return rc;
    if (k.esc || rjs_container_of_key(k.s, k.len) != type)
        return rjs_lex_err(lx, k.s - 1,
                           "the Summary holds \"%.*s\", not the container of the "
                           "entries",
                           (int)k.len, k.s);
    if ((rc = rjs_r_container(rd, lx, type)) < 0 || (rc = rjs_obj_next(lx)) < 0)
        return rc;
    return rc == 0 ? RWF_OK : rjs_lex_err(lx, lx->p, "a Summary holds one container");
}

/* The members of an entry object other than its container. */
typedef struct entry_fields {
    int action;
    const char *key, *data; /* value positions */
    int data_type;
    uint64_t index, id;
    int has_perm, has_index, has_id;
    rwf_buf perm;
} entry_fields;

/* Reads the members of an entry object (names valid: "Action", "Key", "Index", "ID",
 * "PermData", a container key); actions from t. */
static int r_entry_fields(rjs_rd *rd, rjs_lex *lx, const rjs_names *t, entry_fields *f)
{
    rjs_str k;
    int rc;
    memset(f, 0, sizeof(*f));
    f->action = -1;
    f->data_type = -1;
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        int ct = k.esc ? -1 : rjs_container_of_key(k.s, k.len);
        if (t && RJS_STR_IS(&k, "Action")) {
            rc = rjs_r_named(lx, t, 255, &f->action);
        } else if (t == &rjs_map_actions && RJS_STR_IS(&k, "Key")) {
            f->key = (rjs_ws(lx), lx->p);
            rc = rjs_skip(lx);
        } else if (t == &rjs_vector_actions && RJS_STR_IS(&k, "Index")) {
            rc = rjs_r_uint(lx, 0x3FFFFFFF, &f->index);
            f->has_index = 1;
        } else if (t == &rjs_filter_actions && RJS_STR_IS(&k, "ID")) {
            rc = rjs_r_uint(lx, 255, &f->id);
            f->has_id = 1;
        } else if (t && RJS_STR_IS(&k, "PermData")) {
            rc = rjs_r_base64(rd, lx, &f->perm);
            f->has_perm = 1;
        } else if (ct >= 0) {
            f->data_type = ct;
            f->data = (rjs_ws(lx), lx->p);
            rc = rjs_skip(lx);
        } else {
            rc = unknown_key(rd, lx, &k, "an entry");
        }
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : RWF_OK;
}

/* The container of an entry (an empty list when the entry gives none and type is a list). */
static int r_entry_data(rjs_rd *rd, rjs_lex *lx, const entry_fields *f, int type)
{
    static const char empty[] = "{}";
    if (type == RWF_DT_NO_DATA)
        return RWF_OK;
    if (f->data && f->data_type != type)
        return rjs_lex_err(lx, f->data, "an entry holds %s, the others %s",
                           rjs_name(&rjs_data_types, f->data_type)->name,
                           rjs_name(&rjs_data_types, type)->name);
    if (!f->data && type != RWF_DT_FIELD_LIST && type != RWF_DT_ELEMENT_LIST)
        return rjs_lex_err(lx, lx->p, "an entry needs its container");
    rjs_lex sub = {lx->base, f->data, lx->end};
    if (!f->data) {
        sub.base = sub.p = empty;
        sub.end = empty + 2;
    }
    return rjs_r_container(rd, &sub, type);
}

/* The container type of the entries of an array of entry objects at pos (the first entry
 * that has one), or NO_DATA. */
static int entries_type(const rjs_lex *lx, const char *pos)
{
    rjs_lex l = {lx->base, pos, lx->end};
    int rc;
    for (rc = rjs_arr_begin(&l); rc > 0; rc = rjs_arr_next(&l)) {
        int t = rjs_r_peek_container(&l);
        if (t >= 0)
            return t;
        if (rjs_skip(&l) < 0)
            break;
    }
    return RWF_DT_NO_DATA;
}

/* The members of a Map/FilterList/Vector/Series object besides its entries. */
typedef struct cont_hdr {
    int key_type;                  /* Map: "KeyType" */
    const char *summary, *entries; /* value positions */
    uint64_t count_hint;
    int64_t key_fid;
    int has_hint, has_key_fid, sorting;
} cont_hdr;

static int r_cont_hdr(rjs_rd *rd, rjs_lex *lx, int kind, cont_hdr *h)
{
    rjs_str k;
    int rc;
    const char *what = rjs_container_key(kind);
    memset(h, 0, sizeof(*h));
    h->key_type = -1;
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        if (kind == RWF_DT_MAP && RJS_STR_IS(&k, "KeyType")) {
            rc = rjs_r_named(lx, &rjs_data_types, 255, &h->key_type);
        } else if (kind != RWF_DT_FILTER_LIST && RJS_STR_IS(&k, "Summary")) {
            h->summary = (rjs_ws(lx), lx->p);
            rc = rjs_skip(lx);
        } else if (RJS_STR_IS(&k, "CountHint")) {
            rc = rjs_r_uint(lx, kind == RWF_DT_FILTER_LIST ? 255 : 0x3FFFFFFF, &h->count_hint);
            h->has_hint = 1;
        } else if (kind == RWF_DT_MAP && RJS_STR_IS(&k, "KeyFieldID")) {
            rc = rjs_r_int(lx, INT16_MIN, INT16_MAX, &h->key_fid);
            h->has_key_fid = 1;
        } else if (kind == RWF_DT_VECTOR && RJS_STR_IS(&k, "SupportSorting")) {
            rc = rjs_r_bool(lx, &h->sorting);
        } else if (RJS_STR_IS(&k, "Entries")) {
            h->entries = (rjs_ws(lx), lx->p);
            rc = rjs_kind(lx) == RJS_V_ARR ? rjs_skip(lx) : rjs_r_expected(lx, "an array");
        } else {
            rc = unknown_key(rd, lx, &k, what);
        }
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : RWF_OK;
}

/* The container type of the entries: the Summary's, else the first entry's, else dflt. */
static int entry_type_of(const rjs_lex *lx, const cont_hdr *h, int dflt)
{
    if (h->summary) {
        rjs_lex l = {lx->base, h->summary, lx->end};
        return rjs_r_peek_container(&l);
    }
    int t = h->entries ? entries_type(lx, h->entries) : RWF_DT_NO_DATA;
    return t == RWF_DT_NO_DATA ? dflt : t;
}

static int r_map_entry(rjs_rd *rd, rjs_lex *lx, const rwf_map_hdr *h)
{
    entry_fields f;
    rwf_value key;
    int rc = r_entry_fields(rd, lx, &rjs_map_actions, &f);
    if (rc < 0)
        return rc;
    if (f.action < 0 || !f.key)
        return rjs_lex_err(lx, lx->p, "a Map entry needs \"Action\" and \"Key\"");
    rjs_lex kl = {lx->base, f.key, lx->end};
    int16_t enum_fid = (h->flags & RWF_MPF_HAS_KEY_FIELD_ID) ? h->key_fid : 0;
    if ((rc = rjs_r_prim(rd, &kl, h->key_type, enum_fid, &key)) < 0)
        return rc;
    if (rc == RWF_BLANK)
        return rjs_lex_err(lx, f.key, "a Map entry key cannot be null");
    if ((rc = rwf_enc_map_entry(&rd->e, f.action, f.has_perm ? &f.perm : NULL, &key)) < 0)
        return rc;
    if (f.action == RWF_MPEA_DELETE_ENTRY)
        return RWF_OK;
    return r_entry_data(rd, lx, &f, h->ctype);
}

static int r_map(rjs_rd *rd, rjs_lex *lx)
{
    cont_hdr c;
    const char *start = (rjs_ws(lx), lx->p);
    int rc = r_cont_hdr(rd, lx, RWF_DT_MAP, &c);
    if (rc < 0)
        return rc;
    if (c.key_type < RWF_DT_INT || c.key_type > RWF_DT_RMTES_STRING || c.key_type == RWF_DT_ARRAY ||
        c.key_type == 7)
        return rjs_lex_err(lx, start, "a Map needs a primitive \"KeyType\"");
    rwf_map_hdr h;
    memset(&h, 0, sizeof(h));
    h.key_type = (uint8_t)c.key_type;
    int ct = entry_type_of(lx, &c, RWF_DT_NO_DATA);
    if (ct < 0)
        return rjs_lex_err(lx, c.summary, "the Summary holds no container");
    h.ctype = (uint8_t)ct;
    if (c.summary)
        h.flags |= RWF_MPF_HAS_SUMMARY_DATA;
    if (c.has_hint) {
        h.flags |= RWF_MPF_HAS_TOTAL_COUNT_HINT;
        h.total_count_hint = (uint32_t)c.count_hint;
    }
    if (c.has_key_fid) {
        h.flags |= RWF_MPF_HAS_KEY_FIELD_ID;
        h.key_fid = (int16_t)c.key_fid;
    }
    if ((rc = rwf_enc_map_begin(&rd->e, &h)) < 0)
        return rc;
    rjs_lex sub = {lx->base, c.summary, lx->end};
    if (c.summary && (rc = r_summary(rd, &sub, ct)) < 0)
        return rc;
    sub.p = c.entries;
    unsigned i = 0;
    for (rc = c.entries ? rjs_arr_begin(&sub) : 0; rc > 0; rc = rjs_arr_next(&sub), i++) {
        uint8_t *mark = rjs_tail_mark(rd);
        rc = r_map_entry(rd, &sub, &h);
        rjs_tail_release(rd, mark);
        if (rc < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("Map entry %u", i);
            return rc;
        }
    }
    return rc < 0 ? rc : rwf_enc_map_end(&rd->e);
}

static int r_filter(rjs_rd *rd, rjs_lex *lx)
{
    cont_hdr c;
    int rc = r_cont_hdr(rd, lx, RWF_DT_FILTER_LIST, &c);
    if (rc < 0)
        return rc;
    rwf_filter_hdr h = {0, (uint8_t)entry_type_of(lx, &c, RWF_DT_ELEMENT_LIST), 0};
    if (c.has_hint) {
        h.flags = RWF_FTF_HAS_TOTAL_COUNT_HINT;
        h.total_count_hint = (uint8_t)c.count_hint;
    }
    if ((rc = rwf_enc_filter_begin(&rd->e, &h)) < 0)
        return rc;
    rjs_lex sub = {lx->base, c.entries, lx->end};
    unsigned i = 0;
    for (rc = c.entries ? rjs_arr_begin(&sub) : 0; rc > 0; rc = rjs_arr_next(&sub), i++) {
        entry_fields f;
        uint8_t *mark = rjs_tail_mark(rd);
        if ((rc = r_entry_fields(rd, &sub, &rjs_filter_actions, &f)) >= 0) {
            /* an entry without a container holds no data: its own type NO_DATA */
            int type = f.data ? f.data_type : RWF_DT_NO_DATA;
            if (f.action < 0 || !f.has_id)
                rc = rjs_lex_err(&sub, sub.p, "a FilterList entry needs \"ID\" and \"Action\"");
            else
                rc = rwf_enc_filter_entry(&rd->e, f.action, (uint8_t)f.id,
                                          type == h.ctype ? 0 : type, f.has_perm ? &f.perm : NULL);
            if (rc >= 0 && f.action != RWF_FTEA_CLEAR_ENTRY)
                rc = r_entry_data(rd, &sub, &f, type);
        }
        rjs_tail_release(rd, mark);
        if (rc < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("FilterList entry %u", i);
            return rc;
        }
    }
    return rc < 0 ? rc : rwf_enc_filter_end(&rd->e);
}

static int r_vector(rjs_rd *rd, rjs_lex *lx)
{
    cont_hdr c;
    int rc = r_cont_hdr(rd, lx, RWF_DT_VECTOR, &c);
    if (rc < 0)
        return rc;
    int ct = entry_type_of(lx, &c, RWF_DT_NO_DATA);
    if (ct < 0)
        return rjs_lex_err(lx, c.summary, "the Summary holds no container");
    rwf_vector_hdr h;
    memset(&h, 0, sizeof(h));
    h.ctype = (uint8_t)ct;
    h.flags = (uint8_t)((c.summary ? RWF_VTF_HAS_SUMMARY_DATA : 0) |
                        (c.has_hint ? RWF_VTF_HAS_TOTAL_COUNT_HINT : 0) |
                        (c.sorting ? RWF_VTF_SUPPORTS_SORTING : 0));
    h.total_count_hint = (uint32_t)c.count_hint;
    if ((rc = rwf_enc_vector_begin(&rd->e, &h)) < 0)
        return rc;
    rjs_lex sub = {lx->base, c.summary, lx->end};
    if (c.summary && (rc = r_summary(rd, &sub, ct)) < 0)
        return rc;
    sub.p = c.entries;
    unsigned i = 0;
    for (rc = c.entries ? rjs_arr_begin(&sub) : 0; rc > 0; rc = rjs_arr_next(&sub), i++) {
        entry_fields f;
        uint8_t *mark = rjs_tail_mark(rd);
        if ((rc = r_entry_fields(rd, &sub, &rjs_vector_actions, &f)) >= 0) {
            if (f.action < 0 || !f.has_index)
                rc = rjs_lex_err(&sub, sub.p, "a Vector entry needs \"Index\" and \"Action\"");
            else
                rc = rwf_enc_vector_entry(&rd->e, f.action, (uint32_t)f.index,
                                          f.has_perm ? &f.perm : NULL);
            if (rc >= 0 && f.action != RWF_VTEA_CLEAR_ENTRY && f.action != RWF_VTEA_DELETE_ENTRY)
                rc = r_entry_data(rd, &sub, &f, ct);
        }
        rjs_tail_release(rd, mark);
        if (rc < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("Vector entry %u", i);
            return rc;
        }
    }
    return rc < 0 ? rc : rwf_enc_vector_end(&rd->e);
}

static int r_series(rjs_rd *rd, rjs_lex *lx)
{
    cont_hdr c;
    int rc = r_cont_hdr(rd, lx, RWF_DT_SERIES, &c);
    if (rc < 0)
        return rc;
    int ct = entry_type_of(lx, &c, RWF_DT_NO_DATA);
    if (ct < 0)
        return rjs_lex_err(lx, c.summary, "the Summary holds no container");
    rwf_series_hdr h;
    memset(&h, 0, sizeof(h));
    h.ctype = (uint8_t)ct;
    h.flags = (uint8_t)((c.summary ? RWF_SRF_HAS_SUMMARY_DATA : 0) |
                        (c.has_hint ? RWF_SRF_HAS_TOTAL_COUNT_HINT : 0));
    h.total_count_hint = (uint32_t)c.count_hint;
    if ((rc = rwf_enc_series_begin(&rd->e, &h)) < 0)
        return rc;
    rjs_lex sub = {lx->base, c.summary, lx->end};
    if (c.summary && (rc = r_summary(rd, &sub, ct)) < 0)
        return rc;
    sub.p = c.entries;
    unsigned i = 0;
    for (rc = c.entries ? rjs_arr_begin(&sub) : 0; rc > 0; rc = rjs_arr_next(&sub), i++) {
        entry_fields f;
        if ((rc = r_entry_fields(rd, &sub, NULL, &f)) >= 0 &&
            (rc = rwf_enc_series_entry(&rd->e)) >= 0)
            rc = r_entry_data(rd, &sub, &f, ct);
        if (rc < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("Series entry %u", i);
            return rc;
        }
    }
    return rc < 0 ? rc : rwf_enc_series_end(&rd->e);
}

/* Opaque (base64), Xml (a string), Json (any value, carried as its text). */
static int r_opaque(rjs_rd *rd, rjs_lex *lx, int type)
{
    rwf_buf b = {NULL, 0};
    int rc;
    const char *start = (rjs_ws(lx), lx->p);
    uint8_t *mark = rjs_tail_mark(rd);
    if (type == RWF_DT_JSON) {
        if ((rc = rjs_skip(lx)) < 0)
            return rc;
        b = rwf_buf_make(start, (size_t)(lx->p - start));
    } else if (rjs_kind(lx) == RJS_V_NULL) {
        rc = rjs_literal(lx, RJS_V_NULL);
    } else if (rjs_kind(lx) != RJS_V_STR) {
        rc = rjs_r_expected(lx, "a string");
    } else {
        rc = type == RWF_DT_OPAQUE ? rjs_r_base64(rd, lx, &b) : rjs_r_string(rd, lx, &b);
    }
    if (rc >= 0 && b.len > 0xFFFF)
        rc = rjs_lex_err(lx, start, "payload of %u bytes is too long", b.len);
    if (rc >= 0 && b.len)
        rc = rwf_enc_encoded(&rd->e, b);
    rjs_tail_release(rd, mark);
    return rc;
}

int rjs_r_container(rjs_rd *rd, rjs_lex *lx, int type)
{
    int rc, kind;
    if (++rd->depth > RJS_MAX_DEPTH) {
        rd->depth--;
        return rjs_lex_err(lx, lx->p, "containers nested deeper than %d", RJS_MAX_DEPTH);
    }
    switch (type) {
    case RWF_DT_FIELD_LIST:
        rc = r_fields(rd, lx);
        break;
    case RWF_DT_ELEMENT_LIST:
        rc = r_elements(rd, lx);
        break;
    case RWF_DT_MAP:
        rc = r_map(rd, lx);
        break;
    case RWF_DT_FILTER_LIST:
        rc = r_filter(rd, lx);
        break;
    case RWF_DT_VECTOR:
        rc = r_vector(rd, lx);
        break;
    case RWF_DT_SERIES:
        rc = r_series(rd, lx);
        break;
    case RWF_DT_MSG:
        rc = rjs_r_msg(rd, lx, 1, &kind, NULL);
        break;
    case RWF_DT_OPAQUE:
    case RWF_DT_XML:
    case RWF_DT_JSON:
        rc = r_opaque(rd, lx, type);
        break;
    default:
        rc = rjs_lex_err(lx, lx->p, "container type %d cannot be given in JSON", type);
    }
    rd->depth--;
    return rc;
}
