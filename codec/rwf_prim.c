/*
 * rwf_prim: the out-of-line half of the primitives — rarely used types, the generic value
 * codec and the set-defined forms.
 */
#include "rwf_prim.h"

#include <limits.h>

#include "err.h"

/* ---- Decoders ---------------------------------------------------------------------------- */

int rwf_bad_value(const char *type, uint32_t len)
{
    err_set("%s value of %u bytes is malformed", type, (unsigned)len);
    return RWF_E_MALFORMED;
}

/* 1 when the parts of t that a time of len bytes carries hold the blank pattern. */
static int reads_as_blank(const rwf_time *t, unsigned len)
{
    return t->hour == 255 && t->minute == 255 && (len < 3 || t->second == 255) &&
           (len < 5 || t->millisecond == 65535) && (len < 7 || t->microsecond == 2047) &&
           (len < 8 || t->nanosecond == 2047);
}

unsigned rwf_time_len_blankish(const rwf_time *t, unsigned n)
{
    if (reads_as_blank(t, 8))
        return 2;
    while (n < 8 && reads_as_blank(t, n))
        n = n == 2 ? 3 : n == 3 ? 5 : n == 5 ? 7 : 8;
    return n;
}

int rwf_get_datetime(rwf_buf v, rwf_datetime *out)
{
    const uint8_t *p = (const uint8_t *)v.data;
    switch (v.len) {
    case 0:
        memset(&out->date, 0, sizeof(out->date));
        rwf_time_blank(&out->time);
        return RWF_BLANK;
    case 6:
    case 7:
    case 9:
    case 11:
    case 12: {
        out->date.day = p[0];
        out->date.month = p[1];
        out->date.year = rwf_rd16(p + 2);
        int t = rwf_get_time_body(p + 4, v.len - 4, &out->time);
        int date_blank = !(p[0] | p[1] | p[2] | p[3]);
        return (t == RWF_BLANK && date_blank) ? RWF_BLANK : RWF_OK;
    }
    default:
        memset(&out->date, 0, sizeof(out->date));
        rwf_time_blank(&out->time);
        return rwf_bad_value("DATETIME", v.len);
    }
}

int rwf_get_float(rwf_buf v, float *out)
{
    *out = 0;
    if (v.len == 0) {
        *out = 0;
        return RWF_BLANK;
    }
    if (v.len != 4)
        return rwf_bad_value("FLOAT", v.len);
    uint32_t u = rwf_rd32((const uint8_t *)v.data);
    memcpy(out, &u, 4);
    return RWF_OK;
}

int rwf_get_double(rwf_buf v, double *out)
{
    *out = 0;
    if (v.len == 0) {
        *out = 0;
        return RWF_BLANK;
    }
    if (v.len != 8)
        return rwf_bad_value("DOUBLE", v.len);
    uint64_t u = rwf_rdn((const uint8_t *)v.data, 8);
    memcpy(out, &u, 8);
    return RWF_OK;
}

int rwf_get_qos(rwf_buf v, rwf_qos *out)
{
    const uint8_t *p = (const uint8_t *)v.data;
    memset(out, 0, sizeof(*out));
    if (v.len == 0)
        return RWF_BLANK;
    rwf_qos_from_byte(out, p[0]);
    uint32_t need = 1 + (rwf_qos_has_time_info(out) ? 2 : 0) + (rwf_qos_has_rate_info(out) ? 2 : 0);
    if (v.len < need)
        return rwf_bad_value("QOS", v.len);
    p++;
    if (rwf_qos_has_time_info(out)) {
        out->time_info = rwf_rd16(p);
        p += 2;
    }
    if (rwf_qos_has_rate_info(out))
        out->rate_info = rwf_rd16(p);
    return RWF_OK;
}

int rwf_get_state(rwf_buf v, rwf_state *out)
{
    const uint8_t *p = (const uint8_t *)v.data, *end = p + v.len;
    uint16_t tlen;
    memset(out, 0, sizeof(*out));
    if (v.len == 0)
        return RWF_BLANK;
    if (v.len < 3)
        return rwf_bad_value("STATE", v.len);
    rwf_state_from_byte(out, p[0]);
    out->code = p[1];
    const uint8_t *t = rwf_rd_u15rb(p + 2, end, &tlen);
    if (!t || tlen > end - t)
        return rwf_bad_value("STATE (text)", v.len);
    out->text = rwf_buf_make(t, tlen);
    return RWF_OK;
}

/* Set-defined integer of n bytes. */
static int get_fixed_int(rwf_buf v, unsigned n, int is_signed, rwf_value *out, const char *what)
{
    if (v.len != n)
        return rwf_bad_value(what, v.len);
    if (is_signed)
        out->i = rwf_rdn_signed((const uint8_t *)v.data, n);
    else
        out->u = rwf_rdn((const uint8_t *)v.data, n);
    return RWF_OK;
}

int rwf_get_value(int type, rwf_buf v, rwf_value *out)
{
    memset(out, 0, sizeof(*out));
    out->type = (uint8_t)rwf_base_type(type);
    switch (type) {
    case RWF_DT_INT:
        return rwf_get_int(v, &out->i);
    case RWF_DT_UINT:
        return rwf_get_uint(v, &out->u);
    case RWF_DT_FLOAT:
        return rwf_get_float(v, &out->f);
    case RWF_DT_DOUBLE:
        return rwf_get_double(v, &out->d);
    case RWF_DT_REAL:
        return rwf_get_real(v, &out->real);
    case RWF_DT_DATE:
        return rwf_get_date(v, &out->date);
    case RWF_DT_TIME:
        return rwf_get_time(v, &out->time);
    case RWF_DT_DATETIME:
        return rwf_get_datetime(v, &out->datetime);
    case RWF_DT_QOS:
        return rwf_get_qos(v, &out->qos);
    case RWF_DT_STATE:
        return rwf_get_state(v, &out->state);
    case RWF_DT_ENUM:
        return rwf_get_enum(v, &out->enm);
    case RWF_DT_ARRAY:
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        out->buf = v;
        return v.len ? RWF_OK : RWF_BLANK;
    case RWF_DT_INT_1:
        return get_fixed_int(v, 1, 1, out, "INT_1");
    case RWF_DT_UINT_1:
        return get_fixed_int(v, 1, 0, out, "UINT_1");
    case RWF_DT_INT_2:
        return get_fixed_int(v, 2, 1, out, "INT_2");
    case RWF_DT_UINT_2:
        return get_fixed_int(v, 2, 0, out, "UINT_2");
    case RWF_DT_INT_4:
        return get_fixed_int(v, 4, 1, out, "INT_4");
    case RWF_DT_UINT_4:
        return get_fixed_int(v, 4, 0, out, "UINT_4");
    case RWF_DT_INT_8:
        return get_fixed_int(v, 8, 1, out, "INT_8");
    case RWF_DT_UINT_8:
        return get_fixed_int(v, 8, 0, out, "UINT_8");
    case RWF_DT_FLOAT_4:
        if (v.len != 4)
            return rwf_bad_value("FLOAT_4", v.len);
        return rwf_get_float(v, &out->f);
    case RWF_DT_DOUBLE_8:
        if (v.len != 8)
            return rwf_bad_value("DOUBLE_8", v.len);
        return rwf_get_double(v, &out->d);
    case RWF_DT_REAL_4RB:
    case RWF_DT_REAL_8RB:
        if (v.len == 0)
            return rwf_bad_value(type == RWF_DT_REAL_4RB ? "REAL_4RB" : "REAL_8RB", 0);
        return rwf_get_real(v, &out->real);
    case RWF_DT_DATE_4:
        if (v.len != 4)
            return rwf_bad_value("DATE_4", v.len);
        return rwf_get_date(v, &out->date);
    case RWF_DT_TIME_3:
    case RWF_DT_TIME_5:
    case RWF_DT_TIME_7:
    case RWF_DT_TIME_8: {
        unsigned n = (unsigned)rwf_set_type_size(type);
        if (v.len != n)
            return rwf_bad_value("TIME_n", v.len);
        return rwf_get_time_body((const uint8_t *)v.data, n, &out->time);
    }
    case RWF_DT_DATETIME_7:
    case RWF_DT_DATETIME_9:
    case RWF_DT_DATETIME_11:
    case RWF_DT_DATETIME_12:
        if (v.len != (unsigned)rwf_set_type_size(type))
            return rwf_bad_value("DATETIME_n", v.len);
        return rwf_get_datetime(v, &out->datetime);
    default:
        err_set("type %d is not a primitive type", type);
        return RWF_E_UNSUPPORTED;
    }
}

/* ---- Encoders ---------------------------------------------------------------------------- */

size_t rwf_value_max_size(const rwf_value *v)
{
    switch (v->type) {
    case RWF_DT_STATE:
        return 6 + v->state.text.len;
    case RWF_DT_ARRAY:
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        return 3 + (size_t)v->buf.len;
    default:
        return 13; /* the largest fixed primitive: DATETIME with nanoseconds */
    }
}

uint8_t *rwf_put_value(uint8_t *p, const rwf_value *v)
{
    switch (v->type) {
    case RWF_DT_INT:
        return rwf_put_int(p, v->i);
    case RWF_DT_UINT:
        return rwf_put_uint(p, v->u);
    case RWF_DT_FLOAT:
        return rwf_put_float(p, v->f);
    case RWF_DT_DOUBLE:
        return rwf_put_double(p, v->d);
    case RWF_DT_REAL:
        if (!rwf_real_valid(&v->real)) {
            err_set("REAL hint %u is not valid", v->real.hint);
            return NULL;
        }
        return rwf_put_real(p, &v->real);
    case RWF_DT_DATE:
        return rwf_put_date(p, &v->date);
    case RWF_DT_TIME:
        return rwf_put_time(p, &v->time);
    case RWF_DT_DATETIME:
        return rwf_put_datetime(p, &v->datetime);
    case RWF_DT_QOS:
        if (!rwf_qos_valid(&v->qos)) {
            err_set("QOS with unspecified timeliness or rate cannot be encoded");
            return NULL;
        }
        return rwf_put_qos(p, &v->qos);
    case RWF_DT_STATE:
        if (v->state.text.len > RWF_U15RB_MAX - 4) {
            err_set("STATE text of %u bytes is too long", (unsigned)v->state.text.len);
            return NULL;
        }
        return rwf_put_state(p, &v->state);
    case RWF_DT_ENUM:
        return rwf_put_enum(p, v->enm);
    case RWF_DT_ARRAY:
    case RWF_DT_BUFFER:
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        if (v->buf.len > RWF_U16OB_MAX) {
            err_set("%s of %u bytes is too long", rwf_type_name(v->type), (unsigned)v->buf.len);
            return NULL;
        }
        return rwf_put_buf(p, v->buf.data, (uint16_t)v->buf.len);
    default:
        err_set("type %d is not a primitive type", v->type);
        return NULL;
    }
}

int rwf_set_type_size(int type)
{
    switch (type) {
    case RWF_DT_INT_1:
    case RWF_DT_UINT_1:
        return 1;
    case RWF_DT_INT_2:
    case RWF_DT_UINT_2:
        return 2;
    case RWF_DT_TIME_3:
        return 3;
    case RWF_DT_INT_4:
    case RWF_DT_UINT_4:
    case RWF_DT_FLOAT_4:
    case RWF_DT_DATE_4:
        return 4;
    case RWF_DT_TIME_5:
        return 5;
    case RWF_DT_TIME_7:
    case RWF_DT_DATETIME_7:
        return 7;
    case RWF_DT_INT_8:
    case RWF_DT_UINT_8:
    case RWF_DT_DOUBLE_8:
    case RWF_DT_TIME_8:
        return 8;
    case RWF_DT_DATETIME_9:
        return 9;
    case RWF_DT_DATETIME_11:
        return 11;
    case RWF_DT_DATETIME_12:
        return 12;
    case RWF_DT_REAL_4RB:
    case RWF_DT_REAL_8RB:
        return 0;
    default:
        return rwf_is_primitive(type) ? 0 : -1;
    }
}

int rwf_fixed_type(int type, unsigned len)
{
    switch (type) {
    case RWF_DT_INT:
        return len == 1   ? RWF_DT_INT_1
               : len == 2 ? RWF_DT_INT_2
               : len == 4 ? RWF_DT_INT_4
               : len == 8 ? RWF_DT_INT_8
                          : 0;
    case RWF_DT_UINT:
        return len == 1   ? RWF_DT_UINT_1
               : len == 2 ? RWF_DT_UINT_2
               : len == 4 ? RWF_DT_UINT_4
               : len == 8 ? RWF_DT_UINT_8
                          : 0;
    case RWF_DT_FLOAT:
        return len == 4 ? RWF_DT_FLOAT_4 : 0;
    case RWF_DT_DOUBLE:
        return len == 8 ? RWF_DT_DOUBLE_8 : 0;
    case RWF_DT_DATE:
        return len == 4 ? RWF_DT_DATE_4 : 0;
    case RWF_DT_TIME:
        return len == 3   ? RWF_DT_TIME_3
               : len == 5 ? RWF_DT_TIME_5
               : len == 7 ? RWF_DT_TIME_7
               : len == 8 ? RWF_DT_TIME_8
                          : 0;
    case RWF_DT_DATETIME:
        return len == 7    ? RWF_DT_DATETIME_7
               : len == 9  ? RWF_DT_DATETIME_9
               : len == 11 ? RWF_DT_DATETIME_11
               : len == 12 ? RWF_DT_DATETIME_12
                           : 0;
    default:
        return 0;
    }
}

/* REAL_4RB / REAL_8RB: the hint byte with the size code of the smallest mantissa that holds
 * the value, then the mantissa (a blank Real: the blank hint byte alone). */
static uint8_t *put_real_rb(uint8_t *p, const rwf_real *r, int eight)
{
    if (r->blank) {
        *p = RWF_REAL_HINT_BLANK;
        return p + 1;
    }
    unsigned size = rwf_int_size(r->value), code = 0;
    while (code < 3 && rwf_real_rb_len(eight, code) < size)
        code++;
    *p = (uint8_t)(r->hint | code << 6);
    return rwf_wrn(p + 1, (uint64_t)r->value, rwf_real_rb_len(eight, code));
}

/* The error ends of rwf_put_set_value: *status and err text set, NULL returned. */
static uint8_t *set_nospace(int set_type, int *status)
{
    *status = RWF_E_NOSPACE;
    err_set("no room for a %s set entry", rwf_type_name(set_type));
    return NULL;
}

static uint8_t *set_range(int set_type, int *status)
{
    *status = RWF_E_INVALID;
    err_set("value out of range for %s", rwf_type_name(set_type));
    return NULL;
}

/* A standard type in a set definition: its length-prefixed form (v NULL: blank), in room
 * bytes. */
static uint8_t *put_set_std(uint8_t *p, size_t room, int set_type, const rwf_value *v, int *status)
{
    if (!v) {
        if (room < 1)
            return set_nospace(set_type, status);
        *p = 0;
        return p + 1;
    }
    if (room < rwf_value_max_size(v))
        return set_nospace(set_type, status);
    uint8_t *e = rwf_put_value(p, v);
    if (!e)
        *status = RWF_E_INVALID;
    return e;
}

/* Sets *blank to the blank value of base type base: the blank pattern of its fixed forms. */
static void set_blank(rwf_value *blank, int base)
{
    memset(blank, 0, sizeof(*blank));
    blank->type = (uint8_t)base;
    if (base == RWF_DT_REAL)
        blank->real.blank = 1;
    else if (base == RWF_DT_TIME)
        rwf_time_blank(&blank->time);
    else if (base == RWF_DT_DATETIME)
        rwf_time_blank(&blank->datetime.time);
}

/* A Real as REAL_4RB / REAL_8RB: no Inf/NaN, and a 4RB mantissa within 32 bits. */
static uint8_t *put_set_real(uint8_t *p, int set_type, const rwf_real *r, int *status)
{
    if (!r->blank && r->hint > RWF_RH_FRACTION_256) {
        *status = RWF_E_INVALID;
        err_set("%s cannot hold Inf/NaN", rwf_type_name(set_type));
        return NULL;
    }
    if (set_type == RWF_DT_REAL_4RB && !r->blank && (r->value < INT32_MIN || r->value > INT32_MAX))
        return set_range(set_type, status);
    return put_real_rb(p, r, set_type == RWF_DT_REAL_8RB);
}

/* v in the form of set-defined type set_type, which takes n bytes (0: REAL_xRB, up to 9); the
 * caller has checked the room. */
static uint8_t *put_fixed(uint8_t *p, int set_type, int n, const rwf_value *v, int *status)
{
    switch (set_type) {
    case RWF_DT_INT_1:
    case RWF_DT_INT_2:
    case RWF_DT_INT_4:
    case RWF_DT_INT_8:
        if (n < 8 && (v->i < -((int64_t)1 << (8 * n - 1)) || v->i >= ((int64_t)1 << (8 * n - 1))))
            return set_range(set_type, status);
        return rwf_wrn(p, (uint64_t)v->i, (unsigned)n);
    case RWF_DT_UINT_1:
    case RWF_DT_UINT_2:
    case RWF_DT_UINT_4:
    case RWF_DT_UINT_8:
        if (n < 8 && v->u >= ((uint64_t)1 << (8 * n)))
            return set_range(set_type, status);
        return rwf_wrn(p, v->u, (unsigned)n);
    case RWF_DT_FLOAT_4: {
        uint32_t u;
        memcpy(&u, &v->f, 4);
        return rwf_wr32(p, u);
    }
    case RWF_DT_DOUBLE_8: {
        uint64_t u;
        memcpy(&u, &v->d, 8);
        return rwf_wrn(p, u, 8);
    }
    case RWF_DT_REAL_4RB:
    case RWF_DT_REAL_8RB:
        return put_set_real(p, set_type, &v->real, status);
    case RWF_DT_DATE_4:
        p[0] = v->date.day;
        p[1] = v->date.month;
        return rwf_wr16(p + 2, v->date.year);
    case RWF_DT_TIME_3:
    case RWF_DT_TIME_5:
    case RWF_DT_TIME_7:
    case RWF_DT_TIME_8:
        return rwf_put_time_body(p, &v->time, (unsigned)n);
    case RWF_DT_DATETIME_7:
    case RWF_DT_DATETIME_9:
    case RWF_DT_DATETIME_11:
    case RWF_DT_DATETIME_12:
        p[0] = v->datetime.date.day;
        p[1] = v->datetime.date.month;
        rwf_wr16(p + 2, v->datetime.date.year);
        return rwf_put_time_body(p + 4, &v->datetime.time, (unsigned)n - 4);
    default:
        *status = RWF_E_UNSUPPORTED;
        err_set("type %d cannot be used in set data", set_type);
        return NULL;
    }
}

uint8_t *rwf_put_set_value(uint8_t *p, uint8_t *end, int set_type, const rwf_value *v, int *status)
{
    rwf_value blank;
    size_t room = (size_t)(end - p);
    int base = rwf_base_type(set_type);
    *status = RWF_OK;

    int fam = rwf_is_buf_type(base) && v && rwf_is_buf_type(v->type);
    if (v && v->type != base && !fam) {
        *status = RWF_E_INVALID;
        err_set("a %s value cannot fill a %s set entry", rwf_type_name(v->type),
                rwf_type_name(set_type));
        return NULL;
    }
    if (set_type < RWF_DT_SET_PRIMITIVE_MIN) /* standard type: length-prefixed form */
        return put_set_std(p, room, set_type, v, status);
    if (!v) { /* blank of a fixed type: the type's blank pattern */
        set_blank(&blank, base);
        v = &blank;
    }
    int n = rwf_set_type_size(set_type);
    if (room < (size_t)(n ? n : 9))
        return set_nospace(set_type, status);
    return put_fixed(p, set_type, n, v, status);
}
