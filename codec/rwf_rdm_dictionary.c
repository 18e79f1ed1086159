/*
 * rwf_rdm_dictionary: Dictionary messages — request (encode, decode), the refresh parts of the
 * field definitions and of the enum tables exactly as the ETA dictionary encoders write them,
 * applying refresh parts to an rwf_dict, and the reject.
 */
#include <assert.h>
#include <stdlib.h>

#include "err.h"
#include "rwf_enc_int.h"
#include "rwf_rdm_int.h"

/* Element names of the summary data of a dictionary refresh. */
#define SUM_TYPE "Type"
#define SUM_DICTIONARY_ID "DictionaryId"
#define SUM_VERSION "Version"
#define SUM_RT_VERSION "RT_Version"
#define SUM_DT_VERSION "DT_Version"

/* Element names of a field definition (set definition 0 of a field dictionary refresh). */
#define FLD_NAME "NAME"
#define FLD_FID "FID"
#define FLD_RIPPLETO "RIPPLETO"
#define FLD_TYPE "TYPE"
#define FLD_LENGTH "LENGTH"
#define FLD_RWFTYPE "RWFTYPE"
#define FLD_RWFLEN "RWFLEN"
#define FLD_ENUMLENGTH "ENUMLENGTH"
#define FLD_LONGNAME "LONGNAME"

/* Element names of an enum table (set definition 0 of an enum tables refresh). */
#define ENUM_FIDS "FIDS"
#define ENUM_VALUE "VALUE"
#define ENUM_DISPLAY "DISPLAY"

/* ---- Request ----------------------------------------------------------------------------- */

int rwf_rdm_dictionary_request(rwf_enc *e, int32_t stream_id, uint16_t service_id, rwf_buf name,
                               uint32_t verbosity)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_DICTIONARY, stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_RQMF_STREAMING;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = service_id;
    m.key.name = name;
    m.key.filter = verbosity;
    return rwf_enc_msg(e, &m);
}

int rwf_rdm_dictionary_request_decode(const rwf_msg *m, rwf_dict_request *out)
{
    memset(out, 0, sizeof(*out));
    if (m->domain != RWF_DMT_DICTIONARY || m->msg_class != RWF_MC_REQUEST) {
        err_set("not a dictionary request (class %s, domain %u)", rwf_msg_class_name(m->msg_class),
                m->domain);
        return RWF_E_INVALID;
    }
    if (!(m->key.flags & RWF_MKF_HAS_NAME)) {
        err_set("dictionary request without a dictionary name");
        return RWF_E_MALFORMED;
    }
    out->stream_id = m->stream_id;
    out->service_id = m->key.service_id;
    out->name = m->key.name;
    out->verbosity = (m->key.flags & RWF_MKF_HAS_FILTER) ? m->key.filter : RWF_DICT_NORMAL;
    out->streaming = (m->flags & RWF_RQMF_STREAMING) != 0;
    return RWF_OK;
}

/* ---- Refresh ----------------------------------------------------------------------------- */

/* Element set definition 0 of field dictionary entries (7 entries at MINIMAL, 9 from NORMAL)
 * and of enum tables (FIDS, VALUE, DISPLAY), as the ETA dictionary encoders define them. */
static const rwf_set_entry field_set[9] = {
    {.name = NAME_INIT(FLD_NAME), .type = RWF_DT_ASCII_STRING},
    {.name = NAME_INIT(FLD_FID), .type = RWF_DT_INT_2},
    {.name = NAME_INIT(FLD_RIPPLETO), .type = RWF_DT_INT_2},
    {.name = NAME_INIT(FLD_TYPE), .type = RWF_DT_INT_1},
    {.name = NAME_INIT(FLD_LENGTH), .type = RWF_DT_UINT_2},
    {.name = NAME_INIT(FLD_RWFTYPE), .type = RWF_DT_UINT_1},
    {.name = NAME_INIT(FLD_RWFLEN), .type = RWF_DT_UINT_2},
    {.name = NAME_INIT(FLD_ENUMLENGTH), .type = RWF_DT_UINT_1},
    {.name = NAME_INIT(FLD_LONGNAME), .type = RWF_DT_ASCII_STRING},
};

static const rwf_set_entry enum_set[3] = {
    {.name = NAME_INIT(ENUM_FIDS), .type = RWF_DT_ARRAY},
    {.name = NAME_INIT(ENUM_VALUE), .type = RWF_DT_ARRAY},
    {.name = NAME_INIT(ENUM_DISPLAY), .type = RWF_DT_ARRAY},
};

/* Sets the REFRESH_COMPLETE flag of the refresh message that starts at msg. */
static void set_refresh_complete(uint8_t *msg)
{
    /* the flags are a u15rb; 0x40 sits in the last byte of either form */
    uint8_t *flags = msg + RWF_MSG_AT_FLAGS;
    if (flags[0] >= RWF_U15RB_LONG)
        flags[1] |= (uint8_t)RWF_RFMF_REFRESH_COMPLETE;
    else
        flags[0] |= (uint8_t)RWF_RFMF_REFRESH_COMPLETE;
}

static void dict_summary(rwf_enc *e, const rwf_dict *d, int type)
{
    rwf_enc_el_begin_std(e);
    rwf_enc_el_int(e, NAME(SUM_TYPE), type);
    rwf_enc_el_int(e, NAME(SUM_DICTIONARY_ID), d->info.dictionary_id);
    if (type == RWF_DICT_FIELD_DEFINITIONS) {
        rwf_rdm_put_ascii(e, NAME(SUM_VERSION), d->info.field_version);
    } else {
        rwf_rdm_put_ascii(e, NAME(SUM_RT_VERSION), d->info.enum_rt_version);
        rwf_rdm_put_ascii(e, NAME(SUM_DT_VERSION), d->info.enum_dt_version);
        rwf_rdm_put_ascii(e, NAME(SUM_VERSION), d->info.enum_dt_version);
    }
    rwf_enc_el_end(e);
}

static int field_part(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d, int32_t *next)
{
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_ELEMENT_LIST);
    rwf_set_db_add(&db, 0, field_set, r->verbosity >= RWF_DICT_NORMAL ? 9 : 7);
    int first = *next == 0; /* else *next is the fid to continue from, plus 65536 */
    int32_t fid = first ? d->min_fid : *next - 65536, from = fid;
    rwf_series_hdr sh = {.ctype = RWF_DT_ELEMENT_LIST};
    if (r->verbosity > RWF_DICT_INFO)
        sh.flags |= RWF_SRF_HAS_SET_DEFS;
    if (first) {
        if (d->field_count) {
            sh.flags |= RWF_SRF_HAS_TOTAL_COUNT_HINT;
            sh.total_count_hint = d->field_count;
        }
        sh.flags |= RWF_SRF_HAS_SUMMARY_DATA;
    }
    rwf_enc_series_begin(e, &sh);
    if (r->verbosity > RWF_DICT_INFO)
        rwf_enc_set_db(e, &db);
    if (first)
        dict_summary(e, d, RWF_DICT_FIELD_DEFINITIONS);
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_SET_DATA};
    for (; fid <= d->max_fid && !rwf_enc_status(e); fid++) {
        if (r->verbosity <= RWF_DICT_INFO)
            continue;
        const rwf_dict_field *f = rwf_dict_field_by_fid(d, (int16_t)fid);
        if (!f)
            continue;
        size_t need = (size_t)f->acronym.len + f->dde_acronym.len + 14;
        if ((size_t)(e->end - e->pos) < need + 3) { /* the rest goes in the next part */
            if (fid == from && !first)
                return rwf_enc_err(e, RWF_E_NOSPACE,
                                   "field %d (%zu bytes) does not fit an empty part", fid, need);
            break;
        }
        rwf_enc_series_entry(e);
        rwf_enc_size_hint(e, (uint16_t)(need > 0xFFFF ? 0xFFFF : need));
        rwf_enc_el_begin(e, &eh, &db);
        rwf_rdm_put_ascii(e, NAME(FLD_NAME), f->acronym);
        rwf_enc_el_int(e, NAME(FLD_FID), f->fid);
        rwf_enc_el_int(e, NAME(FLD_RIPPLETO), f->ripple_to);
        rwf_enc_el_int(e, NAME(FLD_TYPE), f->mf_type);
        rwf_enc_el_uint(e, NAME(FLD_LENGTH), f->length);
        rwf_enc_el_uint(e, NAME(FLD_RWFTYPE), f->rwf_type);
        rwf_enc_el_uint(e, NAME(FLD_RWFLEN), f->rwf_len);
        if (r->verbosity >= RWF_DICT_NORMAL) {
            rwf_enc_el_uint(e, NAME(FLD_ENUMLENGTH), f->enum_length);
            rwf_rdm_put_ascii(e, NAME(FLD_LONGNAME), f->dde_acronym);
        }
        rwf_enc_el_end(e);
    }
    rwf_enc_series_end(e);
    *next = fid + 65536;
    return fid > d->max_fid ? RWF_OK : RWF_PART_MORE;
}

/* The string type ETA gives a table's displays: ASCII, UTF8 when valid multi-byte UTF-8
 * appears, RMTES when any display is not valid UTF-8. */
static int display_type(const rwf_enum_table *t)
{
    int type = RWF_DT_ASCII_STRING;
    for (uint32_t v = 0; v < t->count; v++) {
        const uint8_t *p = (const uint8_t *)t->values[v].display.data;
        uint32_t n = t->values[v].display.len, i = 0;
        while (i < n) {
            unsigned more = p[i] < 0x80             ? 0
                            : (p[i] & 0xE0) == 0xC0 ? 1
                            : (p[i] & 0xF0) == 0xE0 ? 2
                            : (p[i] & 0xF8) == 0xF0 ? 3
                                                    : 4;
            if (more == 4 || (more && i + more >= n))
                return RWF_DT_RMTES_STRING;
            for (unsigned k = 1; k <= more; k++)
                if ((p[i + k] & 0xC0) != 0x80)
                    return RWF_DT_RMTES_STRING;
            if (more)
                type = RWF_DT_UTF8_STRING;
            i += 1 + more;
        }
    }
    return type;
}

/* Bytes the series entry of table t takes (to decide whether it fits this part). */
static size_t table_size(const rwf_enum_table *t)
{
    size_t n = 3 + 2;                      /* entry length, list flags, set id */
    n += 3 + 4 + 2 * (size_t)t->fid_count; /* FIDS */
    n += 3 + 4;                            /* VALUE */
    for (uint32_t i = 0; i < t->count; i++)
        n += t->values[i].value > 0xFF ? 3 : 2;
    n += 3 + 4; /* DISPLAY */
    for (uint32_t i = 0; i < t->count; i++)
        n += rwf_u16ob_size(t->values[i].display.len) + t->values[i].display.len;
    return n;
}

static int enum_part(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d, int32_t *next)
{
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_ELEMENT_LIST);
    rwf_set_db_add(&db, 0, enum_set, 3);
    uint32_t t = *next < 0 ? 0 : (uint32_t)*next, start = t;
    rwf_series_hdr sh = {.ctype = RWF_DT_ELEMENT_LIST};
    if (t == 0)
        sh.flags |= RWF_SRF_HAS_SUMMARY_DATA;
    if (r->verbosity > RWF_DICT_INFO)
        sh.flags |= RWF_SRF_HAS_SET_DEFS;
    rwf_enc_series_begin(e, &sh);
    if (r->verbosity > RWF_DICT_INFO)
        rwf_enc_set_db(e, &db);
    if (t == 0)
        dict_summary(e, d, RWF_DICT_ENUM_TABLES);
    if (r->verbosity <= RWF_DICT_INFO)
        t = d->table_count;
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_SET_DATA | RWF_ELF_HAS_SET_ID, .set_id = 0};
    for (; t < d->table_count && !rwf_enc_status(e); t++) {
        const rwf_enum_table *tb = &d->tables[t];
        /* + 2: the encoder asks room for an item's length in its 3-byte form before it
         * writes the 1-byte form, so the last display needs 2 bytes more than it takes. */
        if ((size_t)(e->end - e->pos) < table_size(tb) + 2) {
            if (t == start)
                return rwf_enc_err(e, RWF_E_NOSPACE,
                                   "enum table %u (%zu bytes) does not fit an empty part", t,
                                   table_size(tb));
            break;
        }
        uint8_t *before = e->pos;
        rwf_enc_series_entry(e);
        rwf_enc_el_begin(e, &eh, &db);
        rwf_enc_el_entry(e, NAME(ENUM_FIDS), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, RWF_DT_INT, 2);
        for (uint32_t i = 0; i < tb->fid_count; i++)
            rwf_enc_int(e, tb->fids[i]);
        rwf_enc_array_end(e);
        rwf_enc_el_entry(e, NAME(ENUM_VALUE), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, RWF_DT_ENUM, 0);
        for (uint32_t i = 0; i < tb->count; i++)
            rwf_enc_enum(e, tb->values[i].value);
        rwf_enc_array_end(e);
        int dt = display_type(tb);
        rwf_enc_el_entry(e, NAME(ENUM_DISPLAY), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, dt, 0);
        for (uint32_t i = 0; i < tb->count; i++)
            rwf_enc_buf(e, dt, tb->values[i].display);
        rwf_enc_array_end(e);
        rwf_enc_el_end(e);
        assert(rwf_enc_status(e) || (size_t)(e->pos - before) == table_size(tb));
        (void)before;
    }
    rwf_enc_series_end(e);
    *next = (int32_t)t;
    return t >= d->table_count ? RWF_OK : RWF_PART_MORE;
}

int rwf_rdm_dictionary_refresh(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d,
                               int32_t *next)
{
    rwf_msg m;
    if (r->type != RWF_DICT_FIELD_DEFINITIONS && r->type != RWF_DICT_ENUM_TABLES)
        return rwf_enc_err(e, RWF_E_INVALID, "dictionary type %d is neither fields nor enums",
                           r->type);
    rwf_msg_init(&m, RWF_MC_REFRESH, RWF_DMT_DICTIONARY, r->stream_id, RWF_DT_SERIES);
    m.flags = RWF_RFMF_HAS_MSG_KEY | (r->solicited ? RWF_RFMF_SOLICITED : 0);
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER | RWF_MKF_HAS_SERVICE_ID;
    m.key.name = r->name;
    m.key.filter = r->verbosity;
    m.key.service_id = r->service_id;
    uint8_t *start = e->pos;
    int depth = e->depth;
    rwf_enc_msg_begin(e, &m);
    int more = r->type == RWF_DICT_FIELD_DEFINITIONS ? field_part(e, r, d, next)
                                                     : enum_part(e, r, d, next);
    rwf_enc_msg_end(e);
    if (rwf_enc_status(e))
        return rwf_enc_status(e);
    if (more == RWF_OK && e->depth == depth)
        set_refresh_complete(start);
    return more;
}

int rwf_rdm_dictionary_reject(rwf_enc *e, int32_t stream_id)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_STATUS, RWF_DMT_DICTIONARY, stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_HAS_STATE;
    m.state.stream_state = RWF_STREAM_CLOSED;
    m.state.data_state = RWF_DATA_SUSPECT;
    m.state.code = RWF_SC_INVALID_ARGUMENT;
    m.state.text = NAME("Unknown dictionary name.");
    return rwf_enc_msg(e, &m);
}

/* ---- Applying a refresh ------------------------------------------------------------------ */

static int summary_info(rwf_dict *d, rwf_buf data, int *type)
{
    rwf_el_dec ed;
    rwf_element el;
    int r = rwf_el_dec_init(&ed, data, NULL);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        uint64_t v;
        rwf_buf s;
        if (rwf_buf_eq_cstr(el.name, SUM_TYPE)) {
            if ((r = rwf_rdm_get_uint(&el, &v)) < 0)
                return r;
            if (v != RWF_DICT_FIELD_DEFINITIONS && v != RWF_DICT_ENUM_TABLES) {
                err_set("dictionary Type %llu is neither fields (1) nor enums (2)",
                        (unsigned long long)v);
                return RWF_E_MALFORMED;
            }
            *type = (int)v;
        } else if (rwf_buf_eq_cstr(el.name, SUM_DICTIONARY_ID)) {
            if ((r = rwf_rdm_get_uint(&el, &v)) < 0)
                return r;
            d->info.dictionary_id = (int)(int64_t)v;
        } else if (rwf_is_buf_type(el.type)) {
            s = rwf_dict_strdup(d, el.data);
            if (rwf_buf_eq_cstr(el.name, SUM_RT_VERSION))
                d->info.enum_rt_version = s;
            else if (rwf_buf_eq_cstr(el.name, SUM_DT_VERSION))
                d->info.enum_dt_version = s;
            else if (rwf_buf_eq_cstr(el.name, SUM_VERSION) && *type != RWF_DICT_ENUM_TABLES)
                d->info.field_version = s;
        }
    }
    return r < 0 ? r : RWF_OK;
}

static int apply_field(rwf_dict *d, rwf_buf data, const rwf_set_db *db)
{
    rwf_el_dec ed;
    rwf_element el;
    rwf_dict_field f;
    rwf_value v;
    int r = rwf_el_dec_init(&ed, data, db);
    if (r < 0)
        return r;
    memset(&f, 0, sizeof(f));
    int have_fid = 0;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        if (el.type == RWF_DT_NO_DATA)
            continue;
        if ((r = rwf_get_value(el.type, el.data, &v)) < 0)
            return err_push("element %.*s", (int)el.name.len, el.name.data), r;
        if (rwf_buf_eq_cstr(el.name, FLD_NAME))
            f.acronym = v.buf;
        else if (rwf_buf_eq_cstr(el.name, FLD_LONGNAME))
            f.dde_acronym = v.buf;
        else if (rwf_buf_eq_cstr(el.name, FLD_FID))
            f.fid = (int16_t)v.i, have_fid = 1;
        else if (rwf_buf_eq_cstr(el.name, FLD_RIPPLETO))
            f.ripple_to = (int16_t)v.i;
        else if (rwf_buf_eq_cstr(el.name, FLD_TYPE))
            f.mf_type = (int8_t)v.i;
        else if (rwf_buf_eq_cstr(el.name, FLD_LENGTH))
            f.length = (uint16_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, FLD_RWFTYPE))
            f.rwf_type = (uint8_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, FLD_RWFLEN))
            f.rwf_len = (uint16_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, FLD_ENUMLENGTH))
            f.enum_length = (uint8_t)v.u;
    }
    if (r < 0)
        return r;
    if (!have_fid || !f.acronym.len) {
        err_set("field definition without NAME or FID");
        return RWF_E_MALFORMED;
    }
    return rwf_dict_add_field(d, &f);
}

static int apply_table(rwf_dict *d, rwf_buf data, const rwf_set_db *db)
{
    rwf_el_dec ed;
    rwf_element el;
    rwf_buf fids_el = {0}, values_el = {0}, displays_el = {0};
    int r = rwf_el_dec_init(&ed, data, db);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        if (el.type != RWF_DT_ARRAY)
            continue;
        if (rwf_buf_eq_cstr(el.name, ENUM_FIDS))
            fids_el = el.data;
        else if (rwf_buf_eq_cstr(el.name, ENUM_VALUE))
            values_el = el.data;
        else if (rwf_buf_eq_cstr(el.name, ENUM_DISPLAY))
            displays_el = el.data;
    }
    if (r < 0)
        return r;
    rwf_array_dec fa, va, da;
    if ((r = rwf_array_dec_init(&fa, fids_el)) < 0 ||
        (r = rwf_array_dec_init(&va, values_el)) < 0 ||
        (r = rwf_array_dec_init(&da, displays_el)) < 0)
        return r;
    if (!fa.count || va.count != da.count) {
        err_set("enum table with %u fids, %u values and %u displays", fa.count, va.count, da.count);
        return RWF_E_MALFORMED;
    }
    int16_t *fids = malloc(fa.count * sizeof(int16_t));
    rwf_enum_value *vals = malloc((va.count ? va.count : 1) * sizeof(rwf_enum_value));
    if (!fids || !vals) {
        free(fids);
        free(vals);
        err_set("out of memory for an enum table");
        return RWF_E_NOMEM;
    }
    rwf_buf item;
    rwf_value v;
    uint32_t n = 0;
    while (r >= 0 && (r = rwf_array_next(&fa, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&fa, item, &v)) >= 0)
            fids[n++] = (int16_t)(v.type == RWF_DT_UINT ? (int64_t)v.u : v.i);
    }
    n = 0;
    while (r >= 0 && (r = rwf_array_next(&va, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&va, item, &v)) >= 0) {
            vals[n].value = v.type == RWF_DT_ENUM ? v.enm : (uint16_t)v.u;
            vals[n].meaning = rwf_buf_make(NULL, 0);
            n++;
        }
    }
    n = 0;
    while (r >= 0 && (r = rwf_array_next(&da, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&da, item, &v)) >= 0)
            vals[n++].display = v.buf;
    }
    if (r >= 0)
        r = rwf_dict_add_enum_table(d, fids, NULL, fa.count, vals, va.count);
    free(fids);
    free(vals);
    return r < 0 ? r : RWF_OK;
}

int rwf_rdm_dictionary_apply(rwf_dict *d, const rwf_msg *m, int *type)
{
    rwf_series_dec sd;
    rwf_buf entry;
    rwf_set_db db, *sets = NULL;
    rwf_set_entry pool[32];
    int r;

    if (m->domain != RWF_DMT_DICTIONARY || m->msg_class != RWF_MC_REFRESH) {
        err_set("not a dictionary refresh (class %s, domain %u)", rwf_msg_class_name(m->msg_class),
                m->domain);
        return RWF_E_INVALID;
    }
    if (m->container_type != RWF_DT_SERIES) {
        err_set("dictionary refresh payload is a %s, not a Series",
                rwf_type_name(m->container_type));
        return RWF_E_MALFORMED;
    }
    if ((r = rwf_series_dec_init(&sd, m->payload)) < 0)
        return err_push("dictionary refresh"), r;
    if (sd.hdr.flags & RWF_SRF_HAS_SET_DEFS) {
        if ((r = rwf_set_db_decode(&db, RWF_DT_ELEMENT_LIST, sd.hdr.set_defs, pool, 32)) < 0)
            return err_push("dictionary refresh set definitions"), r;
        sets = &db;
    }
    if ((sd.hdr.flags & RWF_SRF_HAS_SUMMARY_DATA) &&
        (r = summary_info(d, sd.hdr.summary, type)) < 0)
        return err_push("dictionary refresh summary"), r;
    if (*type != RWF_DICT_FIELD_DEFINITIONS && *type != RWF_DICT_ENUM_TABLES) {
        err_set("dictionary refresh: type unknown (no summary data seen yet)");
        return RWF_E_MALFORMED;
    }
    while ((r = rwf_series_next(&sd, &entry)) == RWF_OK) {
        r = *type == RWF_DICT_FIELD_DEFINITIONS ? apply_field(d, entry, sets)
                                                : apply_table(d, entry, sets);
        if (r < 0)
            return err_push("dictionary refresh entry %u", sd.index - 1), r;
    }
    return r < 0 ? err_push("dictionary refresh"), r : RWF_OK;
}
