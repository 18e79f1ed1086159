/*
 * rwf_prim: the out-of-line half of the primitives — rarely used types, the generic value
 * codec, set-defined forms, names, and text conversions.
 */
#include "rwf_prim.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "err.h"

/* ---- Names ------------------------------------------------------------------------------- */

static const struct {
    int type;
    const char *name;
} type_names[] = {
    {RWF_DT_UNKNOWN, "RSSL_DT_UNKNOWN"},
    {RWF_DT_INT, "RSSL_DT_INT"},
    {RWF_DT_UINT, "RSSL_DT_UINT"},
    {RWF_DT_FLOAT, "RSSL_DT_FLOAT"},
    {RWF_DT_DOUBLE, "RSSL_DT_DOUBLE"},
    {RWF_DT_REAL, "RSSL_DT_REAL"},
    {RWF_DT_DATE, "RSSL_DT_DATE"},
    {RWF_DT_TIME, "RSSL_DT_TIME"},
    {RWF_DT_DATETIME, "RSSL_DT_DATETIME"},
    {RWF_DT_QOS, "RSSL_DT_QOS"},
    {RWF_DT_STATE, "RSSL_DT_STATE"},
    {RWF_DT_ENUM, "RSSL_DT_ENUM"},
    {RWF_DT_ARRAY, "RSSL_DT_ARRAY"},
    {RWF_DT_BUFFER, "RSSL_DT_BUFFER"},
    {RWF_DT_ASCII_STRING, "RSSL_DT_ASCII_STRING"},
    {RWF_DT_UTF8_STRING, "RSSL_DT_UTF8_STRING"},
    {RWF_DT_RMTES_STRING, "RSSL_DT_RMTES_STRING"},
    {RWF_DT_INT_1, "RSSL_DT_INT_1"},
    {RWF_DT_UINT_1, "RSSL_DT_UINT_1"},
    {RWF_DT_INT_2, "RSSL_DT_INT_2"},
    {RWF_DT_UINT_2, "RSSL_DT_UINT_2"},
    {RWF_DT_INT_4, "RSSL_DT_INT_4"},
    {RWF_DT_UINT_4, "RSSL_DT_UINT_4"},
    {RWF_DT_INT_8, "RSSL_DT_INT_8"},
    {RWF_DT_UINT_8, "RSSL_DT_UINT_8"},
    {RWF_DT_FLOAT_4, "RSSL_DT_FLOAT_4"},
    {RWF_DT_DOUBLE_8, "RSSL_DT_DOUBLE_8"},
    {RWF_DT_REAL_4RB, "RSSL_DT_REAL_4RB"},
    {RWF_DT_REAL_8RB, "RSSL_DT_REAL_8RB"},
    {RWF_DT_DATE_4, "RSSL_DT_DATE_4"},
    {RWF_DT_TIME_3, "RSSL_DT_TIME_3"},
    {RWF_DT_TIME_5, "RSSL_DT_TIME_5"},
    {RWF_DT_DATETIME_7, "RSSL_DT_DATETIME_7"},
    {RWF_DT_DATETIME_9, "RSSL_DT_DATETIME_9"},
    {RWF_DT_DATETIME_11, "RSSL_DT_DATETIME_11"},
    {RWF_DT_DATETIME_12, "RSSL_DT_DATETIME_12"},
    {RWF_DT_TIME_7, "RSSL_DT_TIME_7"},
    {RWF_DT_TIME_8, "RSSL_DT_TIME_8"},
    {RWF_DT_NO_DATA, "RSSL_DT_NO_DATA"},
    {RWF_DT_OPAQUE, "RSSL_DT_OPAQUE"},
    {RWF_DT_XML, "RSSL_DT_XML"},
    {RWF_DT_FIELD_LIST, "RSSL_DT_FIELD_LIST"},
    {RWF_DT_ELEMENT_LIST, "RSSL_DT_ELEMENT_LIST"},
    {RWF_DT_ANSI_PAGE, "RSSL_DT_ANSI_PAGE"},
    {RWF_DT_FILTER_LIST, "RSSL_DT_FILTER_LIST"},
    {RWF_DT_VECTOR, "RSSL_DT_VECTOR"},
    {RWF_DT_MAP, "RSSL_DT_MAP"},
    {RWF_DT_SERIES, "RSSL_DT_SERIES"},
    {RWF_DT_MSG, "RSSL_DT_MSG"},
    {RWF_DT_JSON, "RSSL_DT_JSON"},
};

const char *rwf_type_name(int type)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (type_names[i].type == type)
            return type_names[i].name;
    return NULL;
}

int rwf_type_from_name(const char *name)
{
    const char *bare = strncmp(name, "RSSL_DT_", 8) == 0 ? name + 8 : name;
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (strcmp(type_names[i].name + 8, bare) == 0)
            return type_names[i].type;
    return -1;
}

const char *rwf_msg_class_name(int c)
{
    static const char *const n[] = {"?",     "REQUEST", "REFRESH", "STATUS", "UPDATE",
                                    "CLOSE", "ACK",     "GENERIC", "POST"};
    return (c >= 1 && c <= 8) ? n[c] : "?";
}

const char *rwf_stream_state_name(int s)
{
    static const char *const n[] = {"UNSPECIFIED",    "OPEN",   "NON_STREAMING",
                                    "CLOSED_RECOVER", "CLOSED", "REDIRECTED"};
    return (s >= 0 && s <= 5) ? n[s] : "?";
}

const char *rwf_data_state_name(int s)
{
    static const char *const n[] = {"NO_CHANGE", "OK", "SUSPECT"};
    return (s >= 0 && s <= 2) ? n[s] : "?";
}

const char *rwf_state_code_name(int c)
{
    static const char *const n[] = {"NONE",
                                    "NOT_FOUND",
                                    "TIMEOUT",
                                    "NOT_ENTITLED",
                                    "INVALID_ARGUMENT",
                                    "USAGE_ERROR",
                                    "PREEMPTED",
                                    "JIT_CONFLATION_STARTED",
                                    "REALTIME_RESUMED",
                                    "FAILOVER_STARTED",
                                    "FAILOVER_COMPLETED",
                                    "GAP_DETECTED",
                                    "NO_RESOURCES",
                                    "TOO_MANY_ITEMS",
                                    "ALREADY_OPEN",
                                    "SOURCE_UNKNOWN",
                                    "NOT_OPEN",
                                    "?",
                                    "?",
                                    "NON_UPDATING_ITEM",
                                    "UNSUPPORTED_VIEW_TYPE",
                                    "INVALID_VIEW",
                                    "FULL_VIEW_PROVIDED",
                                    "UNABLE_TO_REQUEST_AS_BATCH",
                                    "?",
                                    "?",
                                    "NO_BATCH_VIEW_SUPPORT_IN_REQ",
                                    "EXCEEDED_MAX_MOUNTS_PER_USER",
                                    "ERROR",
                                    "DACS_DOWN",
                                    "USER_UNKNOWN_TO_PERM_SYS",
                                    "DACS_MAX_LOGINS_REACHED",
                                    "DACS_USER_ACCESS_TO_APP_DENIED",
                                    "?",
                                    "GAP_FILL",
                                    "APP_AUTHORIZATION_FAILED"};
    return (c >= 0 && c < (int)(sizeof(n) / sizeof(n[0]))) ? n[c] : "?";
}

int rwf_base_type(int type)
{
    switch (type) {
    case RWF_DT_INT_1:
    case RWF_DT_INT_2:
    case RWF_DT_INT_4:
    case RWF_DT_INT_8:
        return RWF_DT_INT;
    case RWF_DT_UINT_1:
    case RWF_DT_UINT_2:
    case RWF_DT_UINT_4:
    case RWF_DT_UINT_8:
        return RWF_DT_UINT;
    case RWF_DT_FLOAT_4:
        return RWF_DT_FLOAT;
    case RWF_DT_DOUBLE_8:
        return RWF_DT_DOUBLE;
    case RWF_DT_REAL_4RB:
    case RWF_DT_REAL_8RB:
        return RWF_DT_REAL;
    case RWF_DT_DATE_4:
        return RWF_DT_DATE;
    case RWF_DT_TIME_3:
    case RWF_DT_TIME_5:
    case RWF_DT_TIME_7:
    case RWF_DT_TIME_8:
        return RWF_DT_TIME;
    case RWF_DT_DATETIME_7:
    case RWF_DT_DATETIME_9:
    case RWF_DT_DATETIME_11:
    case RWF_DT_DATETIME_12:
        return RWF_DT_DATETIME;
    default:
        return type;
    }
}

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
    out->timeliness = p[0] >> 5;
    out->rate = (p[0] >> 1) & 0x0F;
    out->dynamic = p[0] & 1;
    uint32_t need = 1 + (out->timeliness > RWF_QOS_TIME_DELAYED_UNKNOWN ? 2 : 0) +
                    (out->rate > RWF_QOS_RATE_JIT_CONFLATED ? 2 : 0);
    if (v.len < need)
        return rwf_bad_value("QOS", v.len);
    p++;
    if (out->timeliness > RWF_QOS_TIME_DELAYED_UNKNOWN) {
        out->time_info = rwf_rd16(p);
        p += 2;
    }
    if (out->rate > RWF_QOS_RATE_JIT_CONFLATED)
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
    out->stream_state = p[0] >> 3;
    out->data_state = p[0] & 7;
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
        if (v->state.text.len > 0x7FFF - 4) {
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
        if (v->buf.len > 0xFFFF) {
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
        return (type >= RWF_DT_INT && type <= RWF_DT_RMTES_STRING && type != 7) ? 0 : -1;
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

/* REAL_4RB / REAL_8RB: format byte = hint | size code, then the mantissa. */
static uint8_t *put_real_rb(uint8_t *p, const rwf_real *r, int eight)
{
    if (r->blank) {
        *p = 0x20;
        return p + 1;
    }
    int64_t v = r->value;
    unsigned code, n;
    if (!eight) {
        n = rwf_int_size(v);
        n = n <= 1 ? 1 : n <= 2 ? 2 : n <= 3 ? 3 : 4;
        code = n - 1;
    } else {
        n = rwf_int_size(v);
        n = n <= 2 ? 2 : n <= 4 ? 4 : n <= 6 ? 6 : 8;
        code = n / 2 - 1;
    }
    *p = (uint8_t)(r->hint | code << 6);
    return rwf_wrn(p + 1, (uint64_t)v, n);
}

uint8_t *rwf_put_set_value(uint8_t *p, uint8_t *end, int set_type, const rwf_value *v, int *status)
{
    rwf_value blank;
    size_t room = (size_t)(end - p);
    int base = rwf_base_type(set_type);
    *status = RWF_OK;

    int fam = base >= RWF_DT_BUFFER && base <= RWF_DT_RMTES_STRING && v &&
              v->type >= RWF_DT_BUFFER && v->type <= RWF_DT_RMTES_STRING;
    if (v && v->type != base && !fam) {
        *status = RWF_E_INVALID;
        err_set("a %s value cannot fill a %s set entry", rwf_type_name(v->type),
                rwf_type_name(set_type));
        return NULL;
    }
    if (set_type < RWF_DT_SET_PRIMITIVE_MIN) { /* standard type: length-prefixed form */
        if (!v) {
            if (room < 1)
                goto nospace;
            *p = 0;
            return p + 1;
        }
        if (room < rwf_value_max_size(v))
            goto nospace;
        uint8_t *e = rwf_put_value(p, v);
        if (!e)
            *status = RWF_E_INVALID;
        return e;
    }
    if (!v) { /* blank of a fixed type: the type's blank pattern */
        memset(&blank, 0, sizeof(blank));
        blank.type = (uint8_t)base;
        if (base == RWF_DT_REAL)
            blank.real.blank = 1;
        else if (base == RWF_DT_TIME)
            rwf_time_blank(&blank.time);
        else if (base == RWF_DT_DATETIME)
            rwf_time_blank(&blank.datetime.time);
        v = &blank;
    }
    int n = rwf_set_type_size(set_type);
    if (room < (size_t)(n ? n : 9))
        goto nospace;
    switch (set_type) {
    case RWF_DT_INT_1:
    case RWF_DT_INT_2:
    case RWF_DT_INT_4:
    case RWF_DT_INT_8:
        if (n < 8 && (v->i < -((int64_t)1 << (8 * n - 1)) || v->i >= ((int64_t)1 << (8 * n - 1))))
            goto range;
        return rwf_wrn(p, (uint64_t)v->i, (unsigned)n);
    case RWF_DT_UINT_1:
    case RWF_DT_UINT_2:
    case RWF_DT_UINT_4:
    case RWF_DT_UINT_8:
        if (n < 8 && v->u >= ((uint64_t)1 << (8 * n)))
            goto range;
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
        if (!v->real.blank && v->real.hint > RWF_RH_FRACTION_256) {
            *status = RWF_E_INVALID;
            err_set("%s cannot hold Inf/NaN", rwf_type_name(set_type));
            return NULL;
        }
        if (set_type == RWF_DT_REAL_4RB && !v->real.blank &&
            (v->real.value < INT32_MIN || v->real.value > INT32_MAX))
            goto range;
        return put_real_rb(p, &v->real, set_type == RWF_DT_REAL_8RB);
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
nospace:
    *status = RWF_E_NOSPACE;
    err_set("no room for a %s set entry", rwf_type_name(set_type));
    return NULL;
range:
    *status = RWF_E_INVALID;
    err_set("value out of range for %s", rwf_type_name(set_type));
    return NULL;
}

/* ---- Text: Real -------------------------------------------------------------------------- */

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

static int invalid_text(const char *what, const char *s, size_t len)
{
    err_set("\"%.*s\" is not a valid %s", (int)(len > 64 ? 64 : len), s, what);
    return RWF_E_INVALID;
}

static uint8_t fraction_hint(int64_t den)
{
    for (int i = 0; i <= 8; i++)
        if (den == ((int64_t)1 << i))
            return (uint8_t)(RWF_RH_FRACTION_1 + i);
    return 0;
}

/* Reads decimal digits into *v while they fit in max; returns the position after them. */
static const char *read_digits(const char *p, const char *end, uint64_t max, uint64_t *v, int *any)
{
    while (p < end && digit(*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (*v > (max - d) / 10)
            break;
        *v = *v * 10 + d;
        *any = 1;
        p++;
    }
    return p;
}

/* 1 when [p, end) holds only spaces. */
static int only_spaces(const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    return p == end;
}

/* The mantissa of magnitude mag (at most 2^63 when neg, INT64_MAX otherwise). */
static int64_t signed_mantissa(uint64_t mag, int neg)
{
    return neg && mag ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
}

int rwf_real_from_str(rwf_real *r, const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    uint64_t value = 0, tz_value = 0, lim;
    int tz_count = 0, seen = 0, neg = 0, plus_zero = 0; /* seen: 0 none, 1 zeros, 2 non-zero */

    r->value = 0;
    r->hint = 0;
    r->blank = 1;
    while (p < end && *p == ' ')
        p++;
    if (p == end)
        return RWF_BLANK;
    if (*p == '+' && end - p >= 2 && p[1] == '0') {
        if (end - p == 2)
            return RWF_BLANK;
        plus_zero = 1;
    }
    static const struct {
        const char *word;
        uint8_t hint;
    } special[] = {
        {"Inf", RWF_RH_INFINITY}, {"-Inf", RWF_RH_NEG_INFINITY}, {"NaN", RWF_RH_NOT_A_NUMBER}};
    for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
        size_t n = strlen(special[i].word);
        if ((size_t)(end - p) >= n && strncasecmp(p, special[i].word, n) == 0) {
            if (!only_spaces(p + n, end))
                return invalid_text("number", s, len);
            r->hint = special[i].hint;
            r->blank = 0;
            return RWF_OK;
        }
    }
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

    /* Integer part, remembering the value before a run of trailing zeros. */
    while (p < end && digit(*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (value > (lim - d) / 10)
            break;
        if (d == 0) {
            if (tz_count == 0)
                tz_value = value;
            if (seen == 2)
                tz_count++;
        } else {
            tz_count = 0;
            seen = 2;
        }
        if (seen != 2)
            seen = 1;
        value = value * 10 + d;
        p++;
    }

    if (p < end && *p == '.') {
        const char *dec = ++p;
        int any = 0;
        p = read_digits(p, end, lim, &value, &any);
        int exponent = (int)(p - dec);
        while (p < end && *p == '0') /* digits that no longer fit must be zeros */
            p++;
        if (p != end || exponent > 14 || (!seen && !any))
            return invalid_text("number", s, len);
        if (value == 0 && plus_zero)
            return RWF_BLANK;
        r->hint = (uint8_t)(RWF_RH_EXPONENT0 - exponent);
        r->value = signed_mantissa(value, neg);
        r->blank = 0;
        return RWF_OK;
    }
    if (p < end && *p == ' ') { /* "12 3/4" or trailing spaces */
        while (p < end && *p == ' ')
            p++;
        if (!seen)
            return p == end ? RWF_BLANK : invalid_text("number", s, len); /* a lone sign */
        if (p == end) {
            r->hint = RWF_RH_EXPONENT0;
            r->value = signed_mantissa(value, neg);
            r->blank = 0;
            return RWF_OK;
        }
        uint64_t num = 0, den = 0;
        int any = 0;
        p = read_digits(p, end, INT32_MAX, &num, &any);
        if (!any || p == end || *p != '/')
            return invalid_text("number", s, len);
        any = 0;
        p = read_digits(p + 1, end, INT32_MAX, &den, &any);
        if (p != end || !(r->hint = fraction_hint((int64_t)den)) || value > (lim - num) / den)
            return invalid_text("number", s, len);
        value = value * den + num;
        r->value = signed_mantissa(value, neg);
        r->blank = 0;
        return RWF_OK;
    }
    if (p < end && *p == '/') {
        uint64_t den = 0;
        int any = 0;
        if (!seen)
            return invalid_text("number", s, len);
        p = read_digits(p + 1, end, INT32_MAX, &den, &any);
        if (p != end || !(r->hint = fraction_hint((int64_t)den)))
            return invalid_text("number", s, len);
        r->value = signed_mantissa(value, neg);
        r->blank = 0;
        return RWF_OK;
    }
    if (seen) {
        if (p < end) { /* digits that did not fit: only zeros may follow */
            if (*p != '0')
                return invalid_text("number", s, len);
            if (tz_count == 0)
                tz_value = value;
            while (p < end && *p == '0') {
                tz_count++;
                p++;
            }
            if (p != end)
                return invalid_text("number", s, len);
        }
        r->blank = 0;
        if (tz_count > 0) {
            while (tz_count > 7 && tz_value <= lim / 10) {
                tz_value *= 10;
                tz_count--;
            }
            if (tz_count > 7)
                return invalid_text("number", s, len);
            r->hint = (uint8_t)(RWF_RH_EXPONENT0 + tz_count);
            r->value = signed_mantissa(tz_value, neg);
        } else {
            r->hint = RWF_RH_EXPONENT0;
            r->value = signed_mantissa(value, neg);
            if (value == 0 && plus_zero) {
                r->blank = 1;
                return RWF_BLANK;
            }
        }
        return RWF_OK;
    }
    if (p == end) /* a lone sign */
        return RWF_BLANK;
    return invalid_text("number", s, len);
}

int rwf_real_to_str(const rwf_real *r, char *buf, size_t cap)
{
    int n;
    if (r->blank)
        n = snprintf(buf, cap, "%s", "");
    else if (r->hint == RWF_RH_INFINITY)
        n = snprintf(buf, cap, "Inf");
    else if (r->hint == RWF_RH_NEG_INFINITY)
        n = snprintf(buf, cap, "-Inf");
    else if (r->hint == RWF_RH_NOT_A_NUMBER)
        n = snprintf(buf, cap, "NaN");
    else {
        uint64_t mag = r->value < 0 ? (uint64_t)0 - (uint64_t)r->value : (uint64_t)r->value;
        const char *sign = r->value < 0 ? "-" : "";
        if (r->hint < RWF_RH_EXPONENT0) {
            unsigned dec = RWF_RH_EXPONENT0 - r->hint;
            uint64_t pow = 1;
            for (unsigned i = 0; i < dec; i++)
                pow *= 10;
            n = snprintf(buf, cap, "%s%llu.%0*llu", sign, (unsigned long long)(mag / pow), (int)dec,
                         (unsigned long long)(mag % pow));
        } else if (r->hint <= RWF_RH_EXPONENT7) {
            n = snprintf(buf, cap, "%s%llu%.*s", sign, (unsigned long long)mag,
                         (int)(r->hint - RWF_RH_EXPONENT0), "0000000");
            if (mag == 0)
                n = snprintf(buf, cap, "0");
        } else if (r->hint <= RWF_RH_FRACTION_256) {
            uint64_t den = (uint64_t)1 << (r->hint - RWF_RH_FRACTION_1);
            uint64_t whole = mag / den, num = mag % den;
            if (num == 0)
                n = snprintf(buf, cap, "%s%llu", sign, (unsigned long long)whole);
            else if (whole == 0)
                n = snprintf(buf, cap, "%s%llu/%llu", sign, (unsigned long long)num,
                             (unsigned long long)den);
            else
                n = snprintf(buf, cap, "%s%llu %llu/%llu", sign, (unsigned long long)whole,
                             (unsigned long long)num, (unsigned long long)den);
        } else {
            err_set("REAL hint %u is not valid", r->hint);
            return RWF_E_INVALID;
        }
    }
    if (n < 0 || (size_t)n >= cap) {
        err_set("text buffer of %zu bytes too small for a REAL", cap);
        return RWF_E_NOSPACE;
    }
    return n;
}

double rwf_real_to_double(const rwf_real *r)
{
    if (r->blank)
        return 0;
    switch (r->hint) {
    case RWF_RH_INFINITY:
        return INFINITY;
    case RWF_RH_NEG_INFINITY:
        return -INFINITY;
    case RWF_RH_NOT_A_NUMBER:
        return NAN;
    }
    if (r->hint <= RWF_RH_EXPONENT7)
        return (double)r->value * pow(10.0, (double)r->hint - RWF_RH_EXPONENT0);
    if (r->hint <= RWF_RH_FRACTION_256)
        return (double)r->value / (double)(1u << (r->hint - RWF_RH_FRACTION_1));
    return 0;
}

/* ---- Text: dates and times --------------------------------------------------------------- */

static const char *const month_names[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                            "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};

static int month_from_name(const char *p, const char *end)
{
    if (end - p < 3)
        return 0;
    for (int i = 0; i < 12; i++)
        if (strncasecmp(p, month_names[i], 3) == 0)
            return i + 1;
    return 0;
}

/* Copies [s, s+len) into a NUL-terminated scratch buffer; 0 when it does not fit. */
static int scratch(char *out, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        return 0;
    memcpy(out, s, len);
    out[len] = '\0';
    return 1;
}

/* Reads up to max digits; returns the count read (0 = none) and the value in *v. */
static int take_digits(const char **pp, int max, long *v)
{
    const char *p = *pp;
    long x = 0;
    int n = 0;
    while (n < max && digit(*p)) {
        x = x * 10 + (*p - '0');
        p++;
        n++;
    }
    *pp = p;
    *v = x;
    return n;
}

static int set_date(rwf_date *d, long day, long month, long year, const char *s, size_t len)
{
    if (day < 0 || day > 255 || month < 0 || month > 255 || year < 0 || year > 65535)
        return invalid_text("date", s, len);
    d->day = (uint8_t)day;
    d->month = (uint8_t)month;
    d->year = (uint16_t)year;
    return RWF_OK;
}

/* Three numbers a, b, c in either order: yyyy/m/d when a > 255, else m/d/yy(yy). */
static int date_from_three(rwf_date *d, long a, long b, long c, const char *s, size_t len)
{
    if (a > 255)
        return set_date(d, c, b, a, s, len);
    if (c < 100)
        return set_date(d, b, a, c + 1900, s, len);
    return set_date(d, b, a, c, s, len);
}

int rwf_date_from_str(rwf_date *d, const char *s, size_t len)
{
    char tmp[64];
    const char *p;
    long a, b, c;
    int n;

    memset(d, 0, sizeof(*d));
    if (!scratch(tmp, sizeof(tmp), s, len))
        return invalid_text("date", s, len);
    p = tmp;
    while (*p == ' ')
        p++;
    if (*p == '\0')
        return RWF_BLANK;

    const char *start = p;
    n = take_digits(&p, 9, &a);
    if (n == 4 && *p == '\0')
        return set_date(d, 0, 0, a, s, len); /* yyyy */
    if (n == 4 && *p == '-') {               /* yyyy-mm[-dd] */
        p++;
        if (take_digits(&p, 3, &b) != 2)
            return invalid_text("date", s, len);
        if (*p == '\0')
            return set_date(d, 0, b, a, s, len);
        if (*p++ != '-' || take_digits(&p, 3, &c) != 2 || *p != '\0')
            return invalid_text("date", s, len);
        return set_date(d, c, b, a, s, len);
    }
    if (n == 8 && *p == '\0') { /* yyyymmdd */
        return set_date(d, (start[6] - '0') * 10 + (start[7] - '0'),
                        (start[4] - '0') * 10 + (start[5] - '0'),
                        ((start[0] - '0') * 10 + (start[1] - '0')) * 100 + (start[2] - '0') * 10 +
                            (start[3] - '0'),
                        s, len);
    }
    if (n == 0 && p[0] == '-' && p[1] == '-') { /* --mm-dd or --mmdd */
        p += 2;
        if (take_digits(&p, 2, &b) != 2)
            return invalid_text("date", s, len);
        if (*p == '-')
            p++;
        if (take_digits(&p, 3, &c) != 2 || *p != '\0')
            return invalid_text("date", s, len);
        return set_date(d, c, b, 0, s, len);
    }
    if (n > 0 && (*p == '/' || *p == ' ')) {
        char sep = *p;
        const char *q = p;
        while (*q == ' ')
            q++;
        if (sep == '/')
            q = p + 1;
        if (digit(*q)) { /* a/b/c or a b c */
            p = q;
            if (take_digits(&p, 9, &b) == 0)
                return invalid_text("date", s, len);
            if (sep == '/') {
                if (*p != '/')
                    return invalid_text("date", s, len);
                p++;
            } else {
                while (*p == ' ')
                    p++;
            }
            if (take_digits(&p, 9, &c) == 0)
                return invalid_text("date", s, len);
            while (*p == ' ')
                p++;
            if (*p != '\0')
                return invalid_text("date", s, len);
            return date_from_three(d, a, b, c, s, len);
        }
        if (sep == ' ') { /* dd MON yyyy */
            int m = month_from_name(q, tmp + len);
            if (!m)
                return invalid_text("date", s, len);
            p = q + 3;
            while (*p == ' ')
                p++;
            if (take_digits(&p, 9, &c) == 0)
                return invalid_text("date", s, len);
            while (*p == ' ')
                p++;
            if (*p != '\0')
                return invalid_text("date", s, len);
            return set_date(d, a, m, c < 100 ? c + 1900 : c, s, len);
        }
    }
    return invalid_text("date", s, len);
}

int rwf_date_to_str(const rwf_date *d, char *buf, size_t cap)
{
    int n;
    if (!d->day && !d->month && !d->year)
        n = snprintf(buf, cap, "%s", "");
    else if (d->month >= 1 && d->month <= 12)
        n = snprintf(buf, cap, "%02u %s %04u", d->day, month_names[d->month - 1], d->year);
    else
        n = snprintf(buf, cap, "%02u %02u %04u", d->day, d->month, d->year);
    if (n < 0 || (size_t)n >= cap) {
        err_set("text buffer of %zu bytes too small for a DATE", cap);
        return RWF_E_NOSPACE;
    }
    return n;
}

/* 1 when p (NUL-terminated) is the end of a time: nothing, "Z", or a UTC offset "+hh",
 * "+hhmm" or "+hh:mm" (or with '-'). The zone is checked, not applied. */
static int time_tail(const char *p)
{
    if (*p == 'Z')
        return p[1] == '\0';
    if (*p != '+' && *p != '-')
        return *p == '\0';
    p++;
    if (!digit(p[0]) || !digit(p[1]))
        return 0;
    p += 2;
    if (*p == ':')
        p++;
    else if (*p == '\0')
        return 1;
    return digit(p[0]) && digit(p[1]) && p[2] == '\0';
}

/* Sub-second digits after '.' or ',': up to 9, filling ms, us, ns from the left. */
static int time_fraction(const char *p, rwf_time *t)
{
    long part[3] = {0, 0, 0};
    for (int i = 0; i < 9 && digit(*p); i++, p++)
        part[i / 3] += (*p - '0') * (i % 3 == 0 ? 100 : i % 3 == 1 ? 10 : 1);
    if (!time_tail(p))
        return 0;
    t->millisecond = (uint16_t)part[0];
    t->microsecond = (uint16_t)part[1];
    t->nanosecond = (uint16_t)part[2];
    return 1;
}

static int set_time(rwf_time *t, long h, long m, long sec, long ms, long us, long ns, const char *s,
                    size_t len)
{
    if (h > 255 || m > 255 || sec > 255 || ms > 65535 || us > 2047 || ns > 2047)
        return invalid_text("time", s, len);
    t->hour = (uint8_t)h;
    t->minute = (uint8_t)m;
    t->second = (uint8_t)sec;
    t->millisecond = (uint16_t)ms;
    t->microsecond = (uint16_t)us;
    t->nanosecond = (uint16_t)ns;
    return RWF_OK;
}

int rwf_time_from_str(rwf_time *t, const char *s, size_t len)
{
    char tmp[64];
    const char *p;
    long v[6] = {0, 0, 0, 0, 0, 0};
    int n;

    memset(t, 0, sizeof(*t));
    if (!scratch(tmp, sizeof(tmp), s, len))
        return invalid_text("time", s, len);
    p = tmp;
    n = take_digits(&p, 7, &v[0]);

    if (n == 2 && *p == ':') { /* hh:mm[:ss[:mmm[:uuu[:nnn]]]] or hh:mm:ss.fffffffff */
        p++;
        if (take_digits(&p, 3, &v[1]) != 2)
            return invalid_text("time", s, len);
        if (time_tail(p))
            return set_time(t, v[0], v[1], 0, 0, 0, 0, s, len);
        if (*p++ != ':' || take_digits(&p, 3, &v[2]) != 2)
            return invalid_text("time", s, len);
        if (time_tail(p))
            return set_time(t, v[0], v[1], v[2], 0, 0, 0, s, len);
        if (*p == '.' || *p == ',') {
            if (!time_fraction(p + 1, t) || p[1] == '\0')
                return invalid_text("time", s, len);
            t->hour = (uint8_t)v[0];
            t->minute = (uint8_t)v[1];
            t->second = (uint8_t)v[2];
            return RWF_OK;
        }
        for (int i = 3; i < 6; i++) {
            if (*p++ != ':' || take_digits(&p, 4, &v[i]) != 3)
                return invalid_text("time", s, len);
            if (*p == '\0')
                return set_time(t, v[0], v[1], v[2], v[3], v[4], v[5], s, len);
        }
        return invalid_text("time", s, len);
    }
    if ((n == 4 || n == 6) && (time_tail(p) || (n == 6 && (*p == '.' || *p == ',')))) {
        const char *q = tmp; /* hhmm or hhmmss[.fffffffff] */
        long h = (q[0] - '0') * 10 + (q[1] - '0'), m = (q[2] - '0') * 10 + (q[3] - '0');
        long sec = n == 6 ? (q[4] - '0') * 10 + (q[5] - '0') : 0;
        if (set_time(t, h, m, sec, 0, 0, 0, s, len) != RWF_OK)
            return RWF_E_INVALID;
        if (*p == '.' || *p == ',') {
            if (p[1] == '\0' || !time_fraction(p + 1, t))
                return invalid_text("time", s, len);
        }
        return RWF_OK;
    }

    /* Lenient form: leading spaces, parts separated by ':' or spaces (" 21:00:01:000"). */
    p = tmp;
    while (*p == ' ')
        p++;
    if (*p == '\0') {
        rwf_time_blank(t);
        return RWF_BLANK;
    }
    int parts = 0;
    while (parts < 6) {
        if (!digit(*p))
            break;
        if (take_digits(&p, 6, &v[parts]) == 0)
            break;
        if (digit(*p)) /* a part of more than 6 digits is not two parts */
            return invalid_text("time", s, len);
        parts++;
        while (*p == ':' || *p == ' ')
            p++;
    }
    if (parts < 2 || *p != '\0')
        return invalid_text("time", s, len);
    return set_time(t, v[0], v[1], v[2], v[3], v[4], v[5], s, len);
}

int rwf_datetime_from_str(rwf_datetime *dt, const char *s, size_t len)
{
    size_t i, split = len;
    int r;

    memset(dt, 0, sizeof(*dt));
    for (i = 0; i < len && s[i] != ' '; i++) {
        if (s[i] == 'T') { /* ISO 8601: date 'T' time */
            if ((r = rwf_date_from_str(&dt->date, s, i)) != RWF_OK)
                return r < 0 ? r : invalid_text("date and time", s, len);
            if (i + 1 >= len)
                return invalid_text("date and time", s, len);
            r = rwf_time_from_str(&dt->time, s + i + 1, len - i - 1);
            return r == RWF_BLANK ? invalid_text("date and time", s, len) : r;
        }
    }
    /* "<date> <time>": the time starts after the last space before the first ':'. */
    const char *colon = memchr(s, ':', len);
    if (colon) {
        for (split = (size_t)(colon - s); split > 0 && s[split - 1] != ' '; split--)
            ;
        if (split == 0)
            return invalid_text("date and time", s, len);
    }
    r = rwf_date_from_str(&dt->date, s, split);
    if (r == RWF_BLANK && !colon) {
        rwf_time_blank(&dt->time);
        return RWF_BLANK;
    }
    if (r < 0)
        return r;
    if (!colon)
        return RWF_OK;
    r = rwf_time_from_str(&dt->time, s + split, len - split);
    return r < 0 ? r : RWF_OK;
}

int rwf_time_to_str(const rwf_time *t, char *buf, size_t cap)
{
    int n;
    if (t->hour == 255 && t->minute == 255)
        n = snprintf(buf, cap, "%s", "");
    else if (t->nanosecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u:%03u:%03u", t->hour, t->minute, t->second,
                     t->millisecond, t->microsecond, t->nanosecond);
    else if (t->microsecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u:%03u", t->hour, t->minute, t->second,
                     t->millisecond, t->microsecond);
    else if (t->millisecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u", t->hour, t->minute, t->second,
                     t->millisecond);
    else
        n = snprintf(buf, cap, "%02u:%02u:%02u", t->hour, t->minute, t->second);
    if (n < 0 || (size_t)n >= cap) {
        err_set("text buffer of %zu bytes too small for a TIME", cap);
        return RWF_E_NOSPACE;
    }
    return n;
}

/* ---- Text: integers ---------------------------------------------------------------------- */

/* Trims spaces; returns 0 when nothing is left. */
static int trimmed(const char **ps, size_t *plen)
{
    const char *s = *ps;
    size_t len = *plen;
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    *ps = s;
    *plen = len;
    return len != 0;
}

int rwf_uint_from_str(uint64_t *v, const char *s, size_t len)
{
    const char *orig = s;
    size_t olen = len;
    uint64_t x = 0;
    *v = 0;
    if (!trimmed(&s, &len))
        return RWF_BLANK;
    size_t i = (s[0] == '+') ? 1 : 0;
    if (i == len)
        return invalid_text("unsigned integer", orig, olen);
    for (; i < len; i++) {
        if (!digit(s[i]) || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return invalid_text("unsigned integer", orig, olen);
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return RWF_OK;
}

int rwf_int_from_str(int64_t *v, const char *s, size_t len)
{
    const char *orig = s;
    size_t olen = len;
    uint64_t x = 0;
    int neg = 0;
    *v = 0;
    if (!trimmed(&s, &len))
        return RWF_BLANK;
    size_t i = 0;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return invalid_text("integer", orig, olen);
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        if (!digit(s[i]) || x > (limit - (uint64_t)(s[i] - '0')) / 10)
            return invalid_text("integer", orig, olen);
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return RWF_OK;
}

int rwf_enum_from_str(uint16_t *v, const char *s, size_t len)
{
    uint64_t x;
    int r = rwf_uint_from_str(&x, s, len);
    *v = 0;
    if (r != RWF_OK)
        return r;
    if (x > 0xFFFF)
        return invalid_text("enum value (0..65535)", s, len);
    *v = (uint16_t)x;
    return RWF_OK;
}
