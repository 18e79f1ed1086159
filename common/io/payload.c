#include "payload.h"

#include "err.h"

/* Set definitions of one MarketByOrder map: room for every entry of 16 sets of 16 fields,
 * more than any MsgData.xml writes. */
#define PAYLOAD_SET_POOL 256

/* Adds the field's name to the error text on the way out. */
static int field_fail(const rwf_dict *d, int16_t fid)
{
    const rwf_dict_field *def = rwf_dict_field_by_fid(d, fid);
    if (def)
        return err_push("field %d (%.*s)", fid, (int)def->acronym.len, def->acronym.data);
    return err_push("field %d", fid);
}

static int decode_array(rwf_buf data, payload_stamps *st)
{
    rwf_array_dec a;
    if (rwf_array_dec_init(&a, data) < 0)
        return -1;
    rwf_buf item;
    int r;
    while ((r = rwf_array_next(&a, &item)) == RWF_OK) {
        rwf_value v;
        if (rwf_array_item_value(&a, item, &v) < 0)
            return -1;
        st->sum += v.u;
    }
    return r == RWF_END ? 0 : -1;
}

/* Types a field rarely holds: decoded through the generic value decoder. */
static int decode_other(int type, rwf_buf data, payload_stamps *st)
{
    if (type == RWF_DT_ARRAY)
        return decode_array(data, st);
    rwf_value v;
    int r = rwf_get_value(type, data, &v);
    if (r == RWF_E_UNSUPPORTED)
        return err_set("the dictionary gives it type %s, which a field cannot hold",
                       rwf_dict_rwf_type_name(type));
    if (r < 0)
        return -1;
    st->sum += v.u;
    return 0;
}

/* A set-defined entry: its type comes from the set definition and must agree with the
 * dictionary's. */
static int decode_set_field(const rwf_dict *d, const rwf_field *f, int dict_type,
                            payload_stamps *st)
{
    int base = rwf_base_type(f->type);
    if (base != dict_type)
        return err_set("set definition type %s disagrees with the dictionary type %s",
                       rwf_type_name(f->type) ? rwf_type_name(f->type) : "?",
                       rwf_dict_rwf_type_name(dict_type));
    if (base == RWF_DT_ARRAY)
        return decode_array(f->data, st);
    rwf_value v;
    int r = rwf_get_value(f->type, f->data, &v);
    if (r < 0)
        return -1;
    if (r == RWF_OK) {
        st->sum += v.u;
        unsigned k = (unsigned)(uint16_t)(f->fid - RWF_FID_TIM_TRK_1);
        if (base == RWF_DT_UINT && k < 3)
            st->t[k] = v.u;
        if (base == RWF_DT_ENUM) {
            const rwf_enum_value *e = rwf_dict_enum(d, f->fid, v.enm);
            st->sum += e ? e->display.len : 0;
        }
    }
    return 0;
}

/* One field: type from the dictionary, value decoded as that type. */
static inline int decode_field(const rwf_dict *d, const rwf_field *f, payload_stamps *st)
{
    int type = rwf_dict_type(d, f->fid);
    if (__builtin_expect(type == RWF_DT_UNKNOWN, 0))
        return err_set("field %d is not in the dictionary", f->fid);
    if (__builtin_expect(f->type != RWF_DT_UNKNOWN, 0))
        return decode_set_field(d, f, type, st);
    int r;
    switch (type) {
    case RWF_DT_UINT: {
        uint64_t u;
        r = rwf_get_uint(f->data, &u);
        if (r == RWF_OK) {
            st->sum += u;
            unsigned k = (unsigned)(uint16_t)(f->fid - RWF_FID_TIM_TRK_1);
            if (k < 3)
                st->t[k] = u;
        }
        break;
    }
    case RWF_DT_INT: {
        int64_t i;
        r = rwf_get_int(f->data, &i);
        st->sum += (uint64_t)i;
        break;
    }
    case RWF_DT_REAL: {
        rwf_real x;
        r = rwf_get_real(f->data, &x);
        st->sum += (uint64_t)x.value + x.hint;
        break;
    }
    case RWF_DT_ENUM: {
        uint16_t e;
        r = rwf_get_enum(f->data, &e);
        if (r == RWF_OK) {
            const rwf_enum_value *ev = rwf_dict_enum(d, f->fid, e);
            st->sum += ev ? ev->display.len : e;
        }
        break;
    }
    case RWF_DT_DATE: {
        rwf_date x;
        r = rwf_get_date(f->data, &x);
        st->sum += x.year;
        break;
    }
    case RWF_DT_TIME: {
        rwf_time x;
        r = rwf_get_time(f->data, &x);
        st->sum += x.second;
        break;
    }
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        st->sum += f->data.len;
        return 0;
    default:
        r = decode_other(type, f->data, st);
        break;
    }
    return r < 0 ? -1 : 0;
}

int payload_decode_field_list(const rwf_dict *dict, rwf_buf data, const rwf_set_db *sets,
                              payload_stamps *st)
{
    rwf_fl_dec d;
    int r = rwf_fl_dec_init(&d, data, sets);
    if (r == RWF_SET_SKIPPED)
        return err_set("FieldList carries set data without a set definition");
    if (r < 0)
        return -1;
    rwf_field f;
    while ((r = rwf_fl_next(&d, &f)) == RWF_OK)
        if (__builtin_expect(decode_field(dict, &f, st) < 0, 0))
            return field_fail(dict, f.fid);
    return r == RWF_END ? 0 : -1;
}

static int decode_map(const rwf_dict *dict, rwf_buf data, payload_stamps *st)
{
    rwf_map_dec m;
    if (rwf_map_dec_init(&m, data) < 0)
        return -1;
    if (m.hdr.ctype != RWF_DT_FIELD_LIST && m.hdr.ctype != RWF_DT_NO_DATA)
        return err_set("Map entries of type %s where FieldLists were expected",
                       rwf_type_name(m.hdr.ctype) ? rwf_type_name(m.hdr.ctype) : "?");
    rwf_set_db db;
    rwf_set_entry pool[PAYLOAD_SET_POOL];
    const rwf_set_db *sets = NULL;
    if (m.hdr.flags & RWF_MPF_HAS_SET_DEFS) {
        if (rwf_set_db_decode(&db, RWF_DT_FIELD_LIST, m.hdr.set_defs, pool, PAYLOAD_SET_POOL) < 0)
            return err_push("Map set definitions");
        sets = &db;
    }
    if ((m.hdr.flags & RWF_MPF_HAS_SUMMARY_DATA) &&
        payload_decode_field_list(dict, m.hdr.summary, sets, st) < 0)
        return err_push("Map summary data");
    rwf_map_entry e;
    int r;
    unsigned n = 0;
    while ((r = rwf_map_next(&m, &e)) == RWF_OK) {
        rwf_value key;
        if (rwf_get_value(m.hdr.key_type, e.key, &key) < 0)
            return err_push("Map entry %u key", n);
        st->sum += key.u;
        if (e.action != RWF_MPEA_DELETE_ENTRY && m.hdr.ctype == RWF_DT_FIELD_LIST &&
            payload_decode_field_list(dict, e.data, sets, st) < 0)
            return err_push("Map entry %u", n);
        n++;
    }
    return r == RWF_END ? 0 : -1;
}

int payload_decode(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st)
{
    st->t[0] = st->t[1] = st->t[2] = 0;
    st->sum = 0;
    switch (m->container_type) {
    case RWF_DT_FIELD_LIST:
        return payload_decode_field_list(dict, m->payload, NULL, st);
    case RWF_DT_MAP:
        return decode_map(dict, m->payload, st);
    case RWF_DT_NO_DATA:
        return 0;
    default: {
        const char *name = rwf_type_name(m->container_type);
        return err_set("payload of type %s (%d), which the payload decoder does not decode",
                       name ? name : "?", m->container_type);
    }
    }
}
