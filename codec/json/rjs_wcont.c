/*
 * rjs_wcont: RWF -> JSON for containers — FieldList (names from the dictionary), ElementList,
 * FilterList, Map, Vector, Series, and the opaque kinds — in the layout of rssl.json.v2:
 *
 *   "Fields":{"BID":1.5,...}            "Elements":{"Name":"x","Qos":{"Type":"Qos","Data":...}}
 *   "Map":{"KeyType":"UInt","Summary":{"Fields":{...}},"CountHint":n,"KeyFieldID":n,
 *          "Entries":[{"Action":"Add","Key":1,"PermData":"..","Fields":{...}},...]}
 *   "FilterList":{"CountHint":n,"Entries":[{"ID":1,"Action":"Set","Elements":{...}},...]}
 *   "Vector":{"Summary":{...},"CountHint":n,"SupportSorting":true,
 *             "Entries":[{"Index":0,"Action":"Set","Fields":{...}},...]}
 *   "Series":{"Summary":{...},"CountHint":n,"Entries":[{"Fields":{...}},...]}
 *
 * Set-defined data is written like standard data (the JSON form has no set definitions).
 */
#include "rjs_int.h"
#include "rjs_lex.h"
#include "rjs_names.h"

#define SET_POOL 256 /* set definition entries one container may define */

/* "Key": of a container (when tagged). */
static int w_tag(rjs_w *w, int type, int tagged)
{
    if (!tagged)
        return RWF_OK;
    const char *k = rjs_container_key(type);
    if (!k) {
        err_set("container type %d has no JSON form", type);
        return RWF_E_UNSUPPORTED;
    }
    size_t n = strlen(k);
    if (!rjs_room(w, n + 3))
        return RWF_E_NOSPACE;
    *w->p++ = '"';
    rjs_put(w, k, n);
    *w->p++ = '"';
    *w->p++ = ':';
    return RWF_OK;
}

static int w_fields(rjs_w *w, rwf_buf data, const rwf_set_db *sets)
{
    rwf_fl_dec d;
    rwf_field f;
    const rwf_dict *dict = w->c->dict;
    int rc = rwf_fl_dec_init(&d, data, sets);
    if (rc < 0)
        return rc;
    if (!rjs_room(w, 1))
        return RWF_E_NOSPACE;
    *w->p++ = '{';
    int comma = 0;
    while ((rc = rwf_fl_next(&d, &f)) == RWF_OK) {
        const rwf_dict_field *def = rwf_dict_field_by_fid(dict, f.fid);
        if (!def) /* no name to give it: left out, as the original does */
            continue;
        int type = f.type ? f.type : def->rwf_type;
        if (f.type && rwf_base_type(f.type) != def->rwf_type) {
            /* the JSON form names the field and its reader takes the dictionary's type */
            err_set("field %.*s (%d): set-defined type %d is not the dictionary's type %d",
                    (int)def->acronym.len, def->acronym.data, f.fid, f.type, def->rwf_type);
            return RWF_E_UNSUPPORTED;
        }
        size_t n = def->acronym.len;
        if (!rjs_room(w, n + 4))
            return RWF_E_NOSPACE;
        char *p = w->p;
        if (comma)
            *p++ = ',';
        *p++ = '"';
        memcpy(p, def->acronym.data, n);
        p += n;
        *p++ = '"';
        *p++ = ':';
        w->p = p;
        comma = 1;
        if (rwf_is_container(type))
            rc = rjs_w_container(w, type, f.data, NULL, 0);
        else
            rc = rjs_w_prim(w, type, f.data, f.fid);
        if (rc < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("field %.*s (%d)", (int)n, def->acronym.data, f.fid);
            return rc;
        }
    }
    if (rc < 0)
        return rc;
    return RJS_WRITES(w, "}");
}

/* One element: plain for non-empty AsciiString and UInt, else {"Type":..,"Data":..}; a
 * set-defined type ("UInt1"...) is named by its base type, as its value is written. */
static int w_element(rjs_w *w, const rwf_element *el)
{
    int base = rwf_base_type(el->type);
    if (el->data.len && (base == RWF_DT_ASCII_STRING || base == RWF_DT_UINT))
        return rjs_w_prim(w, el->type, el->data, 0);
    const rjs_name_ent *tn = rjs_name(&rjs_data_types, base);
    if (!tn) {
        err_set("element type %u is not known", el->type);
        return RWF_E_MALFORMED;
    }
    if (RJS_WRITES(w, "{\"Type\":") < 0 || rjs_w_str(w, tn->name, tn->len) < 0 ||
        RJS_WRITES(w, ",\"Data\":") < 0)
        return RWF_E_NOSPACE;
    int rc;
    if (el->type == RWF_DT_NO_DATA)
        rc = RJS_WRITES(w, "null");
    else if (rwf_is_container(el->type))
        rc = rjs_w_container(w, el->type, el->data, NULL, 0);
    else
        rc = rjs_w_prim(w, el->type, el->data, 0);
    return rc < 0 ? rc : RJS_WRITES(w, "}");
}

static int w_elements(rjs_w *w, rwf_buf data, const rwf_set_db *sets)
{
    rwf_el_dec d;
    rwf_element el;
    int rc = rwf_el_dec_init(&d, data, sets);
    if (rc < 0)
        return rc;
    if (RJS_WRITES(w, "{") < 0)
        return RWF_E_NOSPACE;
    for (int i = 0; (rc = rwf_el_next(&d, &el)) == RWF_OK; i++) {
        if (rjs_w_key(w, el.name.data, el.name.len, i > 0) < 0)
            return RWF_E_NOSPACE;
        if ((rc = w_element(w, &el)) < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("element %.*s", (int)el.name.len, el.name.data);
            return rc;
        }
    }
    if (rc < 0)
        return rc;
    return RJS_WRITES(w, "}");
}

/* Decodes the set definitions of a map/vector/series of entries ctype into db (pool for its
 * entries); *out = db, or NULL when there are none. */
static int get_sets(rwf_buf defs, int ctype, rwf_set_db *db, rwf_set_entry *pool,
                    const rwf_set_db **out)
{
    *out = NULL;
    if (!defs.len || (ctype != RWF_DT_FIELD_LIST && ctype != RWF_DT_ELEMENT_LIST))
        return RWF_OK;
    int rc = rwf_set_db_decode(db, ctype, defs, pool, SET_POOL);
    if (rc < 0)
        return rc;
    *out = db;
    return RWF_OK;
}

/* "Summary":{<tag>:...}. */
static int w_summary(rjs_w *w, int ctype, rwf_buf summary, const rwf_set_db *sets, int comma)
{
    if (rjs_write_sep(w, ",\"Summary\":{", comma) < 0)
        return RWF_E_NOSPACE;
    int rc = rjs_w_container(w, ctype, summary, sets, 1);
    return rc < 0 ? rc : RJS_WRITES(w, "}");
}

/* ,"PermData":"base64" of an entry (left out when empty, as the encoder does). */
static int w_perm(rjs_w *w, rwf_buf perm)
{
    if (RJS_WRITES(w, ",\"PermData\":") < 0)
        return RWF_E_NOSPACE;
    return rjs_w_buf64(w, perm.data, perm.len);
}

static int w_map_entry(rjs_w *w, const rwf_map_hdr *h, const rwf_map_entry *e,
                       const rwf_set_db *sets)
{
    const rjs_name_ent *an = rjs_name(&rjs_map_actions, e->action);
    if (!an) {
        err_set("map entry action %u is not valid", e->action);
        return RWF_E_MALFORMED;
    }
    if (RJS_WRITES(w, "{\"Action\":") < 0 || rjs_w_str(w, an->name, an->len) < 0 ||
        RJS_WRITES(w, ",\"Key\":") < 0)
        return RWF_E_NOSPACE;
    int rc = rjs_w_prim(w, h->key_type, e->key, 0);
    if (rc < 0)
        return rc;
    if ((e->flags & RWF_MPEF_HAS_PERM_DATA) && e->perm.len && w_perm(w, e->perm) < 0)
        return RWF_E_NOSPACE;
    /* an entry that is not a delete holds the map's container, empty or not */
    if (e->action != RWF_MPEA_DELETE_ENTRY && h->ctype != RWF_DT_NO_DATA) {
        if (RJS_WRITES(w, ",") < 0)
            return RWF_E_NOSPACE;
        if ((rc = rjs_w_container(w, h->ctype, e->data, sets, 1)) < 0)
            return rc;
    }
    return RJS_WRITES(w, "}");
}

static int w_map(rjs_w *w, rwf_buf data)
{
    rwf_map_dec d;
    rwf_map_entry e;
    rwf_set_db db;
    rwf_set_entry pool[SET_POOL];
    const rwf_set_db *sets;
    int rc = rwf_map_dec_init(&d, data);
    if (rc < 0 || (rc = get_sets(d.hdr.set_defs, d.hdr.ctype, &db, pool, &sets)) < 0)
        return rc;
    const rjs_name_ent *kt = rjs_name(&rjs_data_types, d.hdr.key_type);
    if (!kt) {
        err_set("map key type %u is not known", d.hdr.key_type);
        return RWF_E_MALFORMED;
    }
    if (RJS_WRITES(w, "{\"KeyType\":") < 0 || rjs_w_str(w, kt->name, kt->len) < 0)
        return RWF_E_NOSPACE;
    if ((d.hdr.flags & RWF_MPF_HAS_SUMMARY_DATA) && d.hdr.ctype != RWF_DT_NO_DATA &&
        (rc = w_summary(w, d.hdr.ctype, d.hdr.summary, sets, 1)) < 0)
        return rc;
    if ((d.hdr.flags & RWF_MPF_HAS_TOTAL_COUNT_HINT) &&
        (RJS_WRITES(w, ",\"CountHint\":") < 0 || rjs_w_u64(w, d.hdr.total_count_hint) < 0))
        return RWF_E_NOSPACE;
    if ((d.hdr.flags & RWF_MPF_HAS_KEY_FIELD_ID) &&
        (RJS_WRITES(w, ",\"KeyFieldID\":") < 0 || rjs_w_i64(w, d.hdr.key_fid) < 0))
        return RWF_E_NOSPACE;
    if (d.count == 0)
        return RJS_WRITES(w, "}");
    if (RJS_WRITES(w, ",\"Entries\":[") < 0)
        return RWF_E_NOSPACE;
    for (unsigned i = 0; (rc = rwf_map_next(&d, &e)) == RWF_OK; i++) {
        if ((i && RJS_WRITES(w, ",") < 0) || (rc = w_map_entry(w, &d.hdr, &e, sets)) < 0) {
            if (rc != RWF_E_NOSPACE)
                err_push("map entry %u", i);
            return rc < 0 ? rc : RWF_E_NOSPACE;
        }
    }
    return rc < 0 ? rc : RJS_WRITES(w, "]}");
}

static int w_filter(rjs_w *w, rwf_buf data)
{
    rwf_filter_dec d;
    rwf_filter_entry e;
    int rc = rwf_filter_dec_init(&d, data);
    if (rc < 0)
        return rc;
    if (RJS_WRITES(w, "{") < 0)
        return RWF_E_NOSPACE;
    int comma = 0;
    if (d.hdr.flags & RWF_FTF_HAS_TOTAL_COUNT_HINT) {
        if (RJS_WRITES(w, "\"CountHint\":") < 0 || rjs_w_u64(w, d.hdr.total_count_hint) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (d.count == 0)
        return RJS_WRITES(w, "}");
    if (rjs_write_sep(w, ",\"Entries\":[", comma) < 0)
        return RWF_E_NOSPACE;
    for (unsigned i = 0; (rc = rwf_filter_next(&d, &e)) == RWF_OK; i++) {
        const rjs_name_ent *an = rjs_name(&rjs_filter_actions, e.action);
        if (!an) {
            err_set("filter entry %u: action %u is not valid", i, e.action);
            return RWF_E_MALFORMED;
        }
        if ((i && RJS_WRITES(w, ",") < 0) || RJS_WRITES(w, "{\"ID\":") < 0 ||
            rjs_w_u64(w, e.id) < 0 || RJS_WRITES(w, ",\"Action\":") < 0 ||
            rjs_w_str(w, an->name, an->len) < 0)
            return RWF_E_NOSPACE;
        if ((e.flags & RWF_FTEF_HAS_PERM_DATA) && e.perm.len && w_perm(w, e.perm) < 0)
            return RWF_E_NOSPACE;
        if (e.ctype != RWF_DT_NO_DATA) {
            if (RJS_WRITES(w, ",") < 0)
                return RWF_E_NOSPACE;
            if ((rc = rjs_w_container(w, e.ctype, e.data, NULL, 1)) < 0) {
                if (rc != RWF_E_NOSPACE)
                    err_push("filter entry %u", e.id);
                return rc;
            }
        }
        if (RJS_WRITES(w, "}") < 0)
            return RWF_E_NOSPACE;
    }
    return rc < 0 ? rc : RJS_WRITES(w, "]}");
}

static int w_vector(rjs_w *w, rwf_buf data)
{
    rwf_vector_dec d;
    rwf_vector_entry e;
    rwf_set_db db;
    rwf_set_entry pool[SET_POOL];
    const rwf_set_db *sets;
    int rc = rwf_vector_dec_init(&d, data), comma = 0;
    if (rc < 0 || (rc = get_sets(d.hdr.set_defs, d.hdr.ctype, &db, pool, &sets)) < 0)
        return rc;
    if (RJS_WRITES(w, "{") < 0)
        return RWF_E_NOSPACE;
    if ((d.hdr.flags & RWF_VTF_HAS_SUMMARY_DATA) && d.hdr.ctype != RWF_DT_NO_DATA) {
        if ((rc = w_summary(w, d.hdr.ctype, d.hdr.summary, sets, 0)) < 0)
            return rc;
        comma = 1;
    }
    if (d.hdr.flags & RWF_VTF_HAS_TOTAL_COUNT_HINT) {
        if (rjs_write_sep(w, ",\"CountHint\":", comma) < 0 ||
            rjs_w_u64(w, d.hdr.total_count_hint) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (d.hdr.flags & RWF_VTF_SUPPORTS_SORTING) {
        if (rjs_write_sep(w, ",\"SupportSorting\":true", comma) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (d.count == 0)
        return RJS_WRITES(w, "}");
    if (rjs_write_sep(w, ",\"Entries\":[", comma) < 0)
        return RWF_E_NOSPACE;
    for (unsigned i = 0; (rc = rwf_vector_next(&d, &e)) == RWF_OK; i++) {
        const rjs_name_ent *an = rjs_name(&rjs_vector_actions, e.action);
        if (!an) {
            err_set("vector entry %u: action %u is not valid", i, e.action);
            return RWF_E_MALFORMED;
        }
        if ((i && RJS_WRITES(w, ",") < 0) || RJS_WRITES(w, "{\"Index\":") < 0 ||
            rjs_w_u64(w, e.index) < 0 || RJS_WRITES(w, ",\"Action\":") < 0 ||
            rjs_w_str(w, an->name, an->len) < 0)
            return RWF_E_NOSPACE;
        if ((e.flags & RWF_VTEF_HAS_PERM_DATA) && e.perm.len && w_perm(w, e.perm) < 0)
            return RWF_E_NOSPACE;
        if (d.hdr.ctype != RWF_DT_NO_DATA && e.data.len) {
            if (RJS_WRITES(w, ",") < 0)
                return RWF_E_NOSPACE;
            if ((rc = rjs_w_container(w, d.hdr.ctype, e.data, sets, 1)) < 0)
                return rc;
        }
        if (RJS_WRITES(w, "}") < 0)
            return RWF_E_NOSPACE;
    }
    return rc < 0 ? rc : RJS_WRITES(w, "]}");
}

static int w_series(rjs_w *w, rwf_buf data)
{
    rwf_series_dec d;
    rwf_buf e;
    rwf_set_db db;
    rwf_set_entry pool[SET_POOL];
    const rwf_set_db *sets;
    int rc = rwf_series_dec_init(&d, data), comma = 0;
    if (rc < 0 || (rc = get_sets(d.hdr.set_defs, d.hdr.ctype, &db, pool, &sets)) < 0)
        return rc;
    if (RJS_WRITES(w, "{") < 0)
        return RWF_E_NOSPACE;
    if ((d.hdr.flags & RWF_SRF_HAS_SUMMARY_DATA) && d.hdr.ctype != RWF_DT_NO_DATA) {
        if ((rc = w_summary(w, d.hdr.ctype, d.hdr.summary, sets, 0)) < 0)
            return rc;
        comma = 1;
    }
    if (d.hdr.flags & RWF_SRF_HAS_TOTAL_COUNT_HINT) {
        if (rjs_write_sep(w, ",\"CountHint\":", comma) < 0 ||
            rjs_w_u64(w, d.hdr.total_count_hint) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (d.count == 0)
        return RJS_WRITES(w, "}");
    if (rjs_write_sep(w, ",\"Entries\":[", comma) < 0)
        return RWF_E_NOSPACE;
    for (unsigned i = 0; (rc = rwf_series_next(&d, &e)) == RWF_OK; i++) {
        if ((i && RJS_WRITES(w, ",") < 0) || RJS_WRITES(w, "{") < 0)
            return RWF_E_NOSPACE;
        if (d.hdr.ctype != RWF_DT_NO_DATA && (rc = rjs_w_container(w, d.hdr.ctype, e, sets, 1)) < 0)
            return rc;
        if (RJS_WRITES(w, "}") < 0)
            return RWF_E_NOSPACE;
    }
    return rc < 0 ? rc : RJS_WRITES(w, "]}");
}

int rjs_w_container(rjs_w *w, int type, rwf_buf data, const rwf_set_db *sets, int tagged)
{
    int rc = w_tag(w, type, tagged);
    if (rc < 0)
        return rc;
    if (++w->depth > RJS_MAX_DEPTH) {
        err_set("containers nested deeper than %d", RJS_MAX_DEPTH);
        return RWF_E_UNSUPPORTED;
    }
    switch (type) {
    case RWF_DT_FIELD_LIST:
        rc = data.len ? w_fields(w, data, sets) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_ELEMENT_LIST:
        rc = data.len ? w_elements(w, data, sets) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_MAP:
        rc = data.len ? w_map(w, data) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_FILTER_LIST:
        rc = data.len ? w_filter(w, data) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_VECTOR:
        rc = data.len ? w_vector(w, data) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_SERIES:
        rc = data.len ? w_series(w, data) : RJS_WRITES(w, "{}");
        break;
    case RWF_DT_MSG:
        rc = rjs_w_msg(w, data);
        break;
    case RWF_DT_OPAQUE:
        rc = data.len ? rjs_w_buf64(w, data.data, data.len) : RJS_WRITES(w, "null");
        break;
    case RWF_DT_XML:
        rc = rjs_w_str(w, data.data, data.len);
        break;
    case RWF_DT_JSON: /* JSON text carried as it is, once checked */
        if (!data.len)
            rc = RJS_WRITES(w, "null");
        else if ((rc = rjs_json_check((const char *)data.data, data.len)) < 0)
            err_push("JSON payload");
        else
            rc = rjs_write(w, data.data, data.len);
        break;
    default:
        err_set("container type %d has no JSON form", type);
        rc = RWF_E_UNSUPPORTED;
    }
    w->depth--;
    return rc;
}
