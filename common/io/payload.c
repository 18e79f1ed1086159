#include "payload.h"

#include "err.h"

#include <stdbool.h>
#include <string.h>

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

/* decode_field through a view of the entry (fid at p, n value bytes at v). Returns 0, or -1
 * with the error text naming the field. */
static int __attribute__((noinline)) decode_field_at(const rwf_dict *dict, const uint8_t *p,
                                                     const uint8_t *v, size_t n, payload_stamps *st)
{
    rwf_field f = {(int16_t)rwf_rd16(p), RWF_DT_UNKNOWN, rwf_buf_make(v, n)};
    return decode_field(dict, &f, st) < 0 ? field_fail(dict, f.fid) : 0;
}

/* The mantissa of a REAL value of n bytes at v (hint byte, then 2 <= n <= 9 bytes in all),
 * sign-extended, from one 8-byte load of the bytes that end with the value: it starts at
 * v + n - 8, which is inside the FieldList whenever the entry is (its fid and length take the
 * 3 bytes before v, and the list's flags and count the 3 before the first entry). */
static inline int64_t real_mantissa(const uint8_t *v, unsigned n)
{
    unsigned shift = 72 - 8 * n; /* the n - 1 mantissa bytes are the low ones */
    return (int64_t)(rwf_rd64_ending(v + n) << shift) >> shift;
}

/* The standard entries of d (a FieldList without set data) whose value length has the short
 * form and fits, from d->pos on: each decoded as decode_field does, the common shapes of the
 * common types here with the decoder state in registers and one dictionary entry read per
 * field (type and enum display lengths: rwf_dict_entry), anything else (and every error)
 * through decode_field. Stops at the end, or before an entry rwf_fl_next must look at (long
 * length form, truncated entry: it reports those); d->pos and d->index say where. Returns 0,
 * or -1 with the error text naming the field. */
static int decode_standard(const rwf_dict *dict, rwf_fl_dec *d, payload_stamps *st)
{
    const uint8_t *p = d->pos, *end = d->end, *lo = d->start;
    unsigned i = d->index, count = d->count;
    uint64_t sum = st->sum;
    int rc = 0;
    if (RWF_UNLIKELY(p - lo < 3)) /* never after a list header; real_mantissa relies on it */
        return 0;
    for (; i < count; i++) {
        size_t left = (size_t)(end - p);
        if (RWF_UNLIKELY(left < 3))
            break;
        size_t n = p[2];
        if (RWF_UNLIKELY(n >= RWF_U16OB_LONG || n + 3 > left))
            break;
        const uint8_t *v = p + 3;
        int16_t fid = (int16_t)rwf_rd16(p);
        const rwf_dict_entry *e = &dict->entry[rwf_dict_slot(fid)]; /* the rest for enums */
        switch (e->type) {
        case RWF_DT_REAL: { /* hint byte (not blank, Inf or NaN) + 1..8 mantissa bytes */
            if (n == 0)
                break; /* blank */
            unsigned h = v[0];
            if (RWF_UNLIKELY(n - 2 > 7 || (h & RWF_REAL_HINT_BLANK) ||
                             (h & 0x1F) > RWF_RH_FRACTION_256))
                goto other;
            sum += (uint64_t)real_mantissa(v, (unsigned)n) + (h & 0x1F);
            break;
        }
        case RWF_DT_ENUM: {
            if (n == 0)
                break; /* blank */
            rwf_dict_entry ee = *e;
            if (RWF_UNLIKELY(n > 2 || ee.enum_kind == RWF_DICT_ENUM_SPARSE))
                goto other;
            unsigned ev = n == 1 ? v[0] : rwf_rd16(v);
            unsigned len = ee.enum_kind == RWF_DICT_ENUM_DENSE
                               ? rwf_dict_entry_enum_len(dict, ee, (uint16_t)ev)
                               : RWF_DICT_ENUM_NO_VALUE;
            sum += len != RWF_DICT_ENUM_NO_VALUE ? len : ev;
            break;
        }
        case RWF_DT_BUFFER:
        case RWF_DT_ASCII_STRING:
        case RWF_DT_UTF8_STRING:
        case RWF_DT_RMTES_STRING:
            sum += n;
            break;
        case RWF_DT_UINT:
            if (n == 0 || n > 8 || (unsigned)(uint16_t)(fid - RWF_FID_TIM_TRK_1) < 3)
                goto other; /* blank, malformed, or a latency stamp */
            sum += rwf_rdn_in(lo, v, (unsigned)n);
            break;
        case RWF_DT_TIME: { /* hour, minute, second [, ms [, us [, ns]]] */
            rwf_time x;
            if (n != 3 && n != 5 && n != 7 && n != 8)
                goto other;
            rwf_get_time_body(v, (unsigned)n, &x);
            sum += x.second;
            break;
        }
        default:
        other:
            st->sum = sum;
            rc = decode_field_at(dict, p, v, n, st);
            sum = st->sum;
            if (rc < 0)
                goto out;
            break;
        }
        p = v + n;
    }
out:
    d->pos = p;
    d->index = (uint16_t)i;
    st->sum = sum;
    return rc;
}

/* payload_decode_field_list; fast: through decode_standard where it can (else entry by
 * entry, the reference the tests hold the fast path against). */
static inline int decode_fl(const rwf_dict *dict, rwf_buf data, const rwf_set_db *sets,
                            payload_stamps *st, bool fast)
{
    rwf_fl_dec d;
    int r = rwf_fl_dec_init(&d, data, sets);
    if (r == RWF_SET_SKIPPED)
        return err_set("FieldList carries set data without a set definition");
    if (r < 0)
        return -1;
    if (fast && !d.set_left && decode_standard(dict, &d, st) < 0)
        return -1;
    rwf_field f;
    while ((r = rwf_fl_next(&d, &f)) == RWF_OK)
        if (__builtin_expect(decode_field(dict, &f, st) < 0, 0))
            return field_fail(dict, f.fid);
    return r == RWF_END ? 0 : -1;
}

int payload_decode_field_list(const rwf_dict *dict, rwf_buf data, const rwf_set_db *sets,
                              payload_stamps *st)
{
    return decode_fl(dict, data, sets, st, true);
}

static int decode_map(const rwf_dict *dict, rwf_buf data, payload_stamps *st, bool fast)
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
        decode_fl(dict, m.hdr.summary, sets, st, fast) < 0)
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
            decode_fl(dict, e.data, sets, st, fast) < 0)
            return err_push("Map entry %u", n);
        n++;
    }
    return r == RWF_END ? 0 : -1;
}

/* payload_decode, through the fast path or not (see decode_fl). */
static inline int decode_payload(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st,
                                 bool fast)
{
    st->t[0] = st->t[1] = st->t[2] = 0;
    st->sum = 0;
    switch (m->container_type) {
    case RWF_DT_FIELD_LIST:
        return decode_fl(dict, m->payload, NULL, st, fast);
    case RWF_DT_MAP:
        return decode_map(dict, m->payload, st, fast);
    case RWF_DT_NO_DATA:
        return 0;
    default: {
        const char *name = rwf_type_name(m->container_type);
        return err_set("payload of type %s (%d), which the payload decoder does not decode",
                       name ? name : "?", m->container_type);
    }
    }
}

int payload_decode(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st)
{
    return decode_payload(dict, m, st, true);
}

int payload_decode_reference(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st)
{
    return decode_payload(dict, m, st, false);
}
