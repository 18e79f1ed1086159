/*
 * rjs_wprim: RWF -> JSON for primitive values — numbers, REAL with its hint's decimals, ISO
 * dates and times, strings (JSON escapes, RMTES as UTF-8), base64 buffers, QoS, state, arrays.
 * Everything is written straight into the output; nothing allocates.
 */
#include <math.h>
#include <stdio.h>

#include "rjs_int.h"
#include "rjs_names.h"

const char rjs_digits2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                           "34353637383940414243444546474849505152535455565758596061626364656667"
                           "6869707172737475767778798081828384858687888990919293949596979899";

int rjs_w_full(rjs_w *w)
{
    err_set("JSON output buffer too small");
    w->p = w->end; /* later writes fail too */
    return RWF_E_NOSPACE;
}

int rjs_write(rjs_w *w, const char *s, size_t n)
{
    if (!rjs_room(w, n))
        return RWF_E_NOSPACE;
    rjs_put(w, s, n);
    return RWF_OK;
}

char *rjs_fmt_u64(char *p, uint64_t v)
{
    return rjs_put_u64(p, v);
}

char *rjs_fmt_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return rjs_fmt_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return rjs_fmt_u64(p, (uint64_t)v);
}

int rjs_w_u64(rjs_w *w, uint64_t v)
{
    if (!rjs_room(w, 20))
        return RWF_E_NOSPACE;
    w->p = rjs_fmt_u64(w->p, v);
    return RWF_OK;
}

int rjs_w_i64(rjs_w *w, int64_t v)
{
    if (!rjs_room(w, 21))
        return RWF_E_NOSPACE;
    w->p = rjs_fmt_i64(w->p, v);
    return RWF_OK;
}

/* The escape of byte b inside a JSON string, or NULL when b is copied as it is. */
static const char *escape_of(uint8_t b, char buf[8])
{
    static const char hex[] = "0123456789abcdef";
    switch (b) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    }
    if (b >= 0x20 && b != 0x7F)
        return NULL;
    memcpy(buf, "\\u00", 4);
    buf[4] = hex[b >> 4];
    buf[5] = hex[b & 15];
    buf[6] = '\0';
    return buf;
}

/* Bytes the escaped form of s[0..len) takes. */
static size_t escaped_len(const uint8_t *s, size_t len)
{
    size_t n = len;
    char buf[8];
    for (size_t i = 0; i < len; i++) {
        const char *e = escape_of(s[i], buf);
        if (e)
            n += strlen(e) - 1;
    }
    return n;
}

int rjs_w_str(rjs_w *w, const char *s, size_t len)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t worst = len * 6 + 2;
    if ((size_t)(w->end - w->p) < worst && !rjs_room(w, escaped_len(u, len) + 2))
        return RWF_E_NOSPACE;
    char *p = w->p, buf[8];
    *p++ = '"';
    for (size_t i = 0; i < len; i++) {
        uint8_t b = u[i];
        if (b >= 0x20 && b != '"' && b != '\\' && b != 0x7F) {
            *p++ = (char)b;
            continue;
        }
        const char *e = escape_of(b, buf);
        size_t n = strlen(e);
        memcpy(p, e, n);
        p += n;
    }
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

int rjs_w_key(rjs_w *w, const char *s, size_t len, int comma)
{
    if (comma && rjs_write(w, ",", 1) < 0)
        return RWF_E_NOSPACE;
    if (rjs_w_str(w, s, len) < 0 || rjs_write(w, ":", 1) < 0)
        return RWF_E_NOSPACE;
    return RWF_OK;
}

/* An RMTES string: as it is when plain ASCII, else converted to UTF-8, escaped. The UTF-8 form
 * is made in the tail of the free space and escaped forward from there: with room for the whole
 * escaped text, the writing never overtakes the reading. */
static int w_rmtes(rjs_w *w, const uint8_t *s, size_t len)
{
    size_t n = rjs_rmtes_utf8_len(s, len);
    if (n == len && rjs_is_plain(s, len))
        return rjs_w_str(w, (const char *)s, len);
    if (!rjs_room(w, n + 2))
        return RWF_E_NOSPACE;
    char *tmp = w->end - n;
    rjs_rmtes_to_utf8(tmp, s, len);
    if (!rjs_room(w, escaped_len((const uint8_t *)tmp, n) + 2))
        return RWF_E_NOSPACE;
    char *p = w->p, buf[8];
    *p++ = '"';
    for (size_t i = 0; i < n; i++) {
        uint8_t b = (uint8_t)tmp[i];
        const char *e = escape_of(b, buf);
        if (!e) {
            *p++ = (char)b;
        } else {
            size_t k = strlen(e);
            memcpy(p, e, k);
            p += k;
        }
    }
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

int rjs_w_buf64(rjs_w *w, const void *data, size_t len)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *s = data;
    if (!rjs_room(w, (len + 2) / 3 * 4 + 2))
        return RWF_E_NOSPACE;
    char *p = w->p;
    *p++ = '"';
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        *p++ = tab[v >> 18];
        *p++ = tab[(v >> 12) & 63];
        *p++ = tab[(v >> 6) & 63];
        *p++ = tab[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < len ? (uint32_t)s[i + 1] << 8 : 0);
        *p++ = tab[v >> 18];
        *p++ = tab[(v >> 12) & 63];
        *p++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        *p++ = '=';
    }
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

/* A double as the original writes it ("%.15G"; Inf/-Inf/NaN as strings). */
static int w_double(rjs_w *w, double d, int digits)
{
    if (isnan(d))
        return RJS_WRITES(w, "\"NaN\"");
    if (isinf(d))
        return d < 0 ? RJS_WRITES(w, "\"-Inf\"") : RJS_WRITES(w, "\"Inf\"");
    char buf[40];
    int n = snprintf(buf, sizeof(buf), "%.*G", digits, d);
    return rjs_write(w, buf, (size_t)n);
}

int rjs_w_real(rjs_w *w, const rwf_real *r)
{
    if (r->blank)
        return RJS_WRITES(w, "null");
    if (r->hint >= RWF_RH_FRACTION_1) {
        switch (r->hint) {
        case RWF_RH_INFINITY:
            return RJS_WRITES(w, "\"Inf\"");
        case RWF_RH_NEG_INFINITY:
            return RJS_WRITES(w, "\"-Inf\"");
        case RWF_RH_NOT_A_NUMBER:
            return RJS_WRITES(w, "\"NaN\"");
        }
        if (r->hint > RWF_RH_FRACTION_256) {
            err_set("REAL hint %u is not valid", r->hint);
            return RWF_E_MALFORMED;
        }
        return w_double(w, ldexp((double)r->value, -(int)(r->hint - RWF_RH_FRACTION_1)), 15);
    }
    if (!rjs_room(w, 40))
        return RWF_E_NOSPACE;
    char *p = w->p;
    uint64_t mag = r->value < 0 ? (uint64_t)0 - (uint64_t)r->value : (uint64_t)r->value;
    if (r->hint < RWF_RH_EXPONENT0) { /* d decimals, all kept */
        unsigned d = RWF_RH_EXPONENT0 - r->hint;
        if (r->value < 0)
            *p++ = '-';
        char digs[24]; /* the digits, then the '.' put d from the end (no division) */
        size_t nd = (size_t)(rjs_fmt_u64(digs, mag) - digs);
        if (nd > d) {
            memcpy(p, digs, nd - d);
            p += nd - d;
            *p++ = '.';
            memcpy(p, digs + nd - d, d);
            p += d;
        } else {
            *p++ = '0';
            *p++ = '.';
            memset(p, '0', d - nd);
            memcpy(p + (d - nd), digs, nd);
            p += d;
        }
    } else if (mag == 0) {
        *p++ = '0';
    } else { /* integer times 10^(hint - 14): trailing zeros written out */
        if (r->value < 0)
            *p++ = '-';
        p = rjs_fmt_u64(p, mag);
        unsigned z = r->hint - RWF_RH_EXPONENT0;
        memset(p, '0', z);
        p += z;
    }
    w->p = p;
    return RWF_OK;
}

/* Two digits of v (0..99). */
static char *put2(char *p, unsigned v)
{
    memcpy(p, rjs_digits2 + 2 * (v % 100), 2);
    return p + 2;
}

/* Time in ISO 8601 as the original writes it: parts that hold their blank value end the text
 * (HH, HH:MM, HH:MM:SS), sub-seconds as 3/6/9 digits with trailing zeros (and a bare '.')
 * removed. Room for 24 bytes checked by the caller. */
static char *put_time(char *p, const rwf_time *t)
{
    p = t->hour > 99 ? rjs_fmt_u64(p, t->hour) : put2(p, t->hour);
    if (t->minute == 255)
        return p;
    *p++ = ':';
    p = t->minute > 99 ? rjs_fmt_u64(p, t->minute) : put2(p, t->minute);
    if (t->second == 255)
        return p;
    *p++ = ':';
    p = t->second > 99 ? rjs_fmt_u64(p, t->second) : put2(p, t->second);
    if (t->millisecond == 65535)
        return p;
    char *dot = p;
    *p++ = '.';
    unsigned parts[3] = {t->millisecond, t->microsecond, t->nanosecond};
    unsigned n = t->microsecond == 2047 ? 1 : t->nanosecond == 2047 ? 2 : 3;
    for (unsigned i = 0; i < n; i++) {
        unsigned v = parts[i] > 999 ? 999 : parts[i];
        *p++ = (char)('0' + v / 100);
        p = put2(p, v % 100);
    }
    while (p > dot + 1 && p[-1] == '0')
        p--;
    return p == dot + 1 ? dot : p;
}

/* Date in ISO 8601 as the original writes it: YYYY-MM-DD, a zero part as spaces ("--" for the
 * year), trailing non-digits cut. Room for 16 bytes checked by the caller. */
static char *put_date(char *p, const rwf_date *d)
{
    char *start = p;
    if (d->year) {
        unsigned y = d->year;
        if (y > 9999) {
            p = rjs_fmt_u64(p, y);
        } else {
            p = put2(p, y / 100);
            p = put2(p, y % 100);
        }
        *p++ = '-';
    } else {
        memcpy(p, "--", 2);
        p += 2;
    }
    if (d->month) { /* a part out of range is written as it is (and will not read back) */
        p = d->month > 99 ? rjs_fmt_u64(p, d->month) : put2(p, d->month);
        *p++ = '-';
    } else {
        memcpy(p, "  -", 3);
        p += 3;
    }
    if (d->day) {
        p = d->day > 99 ? rjs_fmt_u64(p, d->day) : put2(p, d->day);
    } else {
        memcpy(p, "  ", 2);
        p += 2;
    }
    while (p > start && (p[-1] < '0' || p[-1] > '9'))
        p--;
    return p;
}

static int w_time(rjs_w *w, const rwf_time *t)
{
    if (!rjs_room(w, 40))
        return RWF_E_NOSPACE;
    char *p = w->p;
    *p++ = '"';
    p = put_time(p, t);
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

static int w_date(rjs_w *w, const rwf_date *d)
{
    if (!rjs_room(w, 24))
        return RWF_E_NOSPACE;
    char *p = w->p;
    *p++ = '"';
    p = put_date(p, d);
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

static int w_datetime(rjs_w *w, const rwf_datetime *dt)
{
    if (!rjs_room(w, 64))
        return RWF_E_NOSPACE;
    const rwf_time *t = &dt->time;
    int time_blank = t->hour == 255 && t->minute == 255 && t->second == 255 &&
                     t->millisecond == 65535 && t->microsecond == 2047 && t->nanosecond == 2047;
    char *p = w->p;
    *p++ = '"';
    if (dt->date.day || dt->date.month || dt->date.year)
        p = put_date(p, &dt->date);
    if (!time_blank) {
        *p++ = 'T';
        p = put_time(p, t);
    }
    *p++ = '"';
    w->p = p;
    return RWF_OK;
}

/* Writes the name of value v in t as a JSON string, or the number when it has none. */
static int w_named(rjs_w *w, const rjs_names *t, int v)
{
    const rjs_name_ent *e = rjs_name(t, v);
    if (!e)
        return rjs_w_i64(w, v);
    if (!rjs_room(w, (size_t)e->len + 2))
        return RWF_E_NOSPACE;
    *w->p++ = '"';
    rjs_put(w, e->name, e->len);
    *w->p++ = '"';
    return RWF_OK;
}

int rjs_w_qos(rjs_w *w, const rwf_qos *q)
{
    if (RJS_WRITES(w, "{\"Timeliness\":") < 0 || w_named(w, &rjs_timeliness, q->timeliness) < 0 ||
        RJS_WRITES(w, ",\"Rate\":") < 0 || w_named(w, &rjs_rates, q->rate) < 0)
        return RWF_E_NOSPACE;
    if (q->dynamic && RJS_WRITES(w, ",\"Dynamic\":true") < 0)
        return RWF_E_NOSPACE;
    if (q->timeliness == RWF_QOS_TIME_DELAYED &&
        (RJS_WRITES(w, ",\"TimeInfo\":") < 0 || rjs_w_u64(w, q->time_info) < 0))
        return RWF_E_NOSPACE;
    if (q->rate == RWF_QOS_RATE_TIME_CONFLATED &&
        (RJS_WRITES(w, ",\"RateInfo\":") < 0 || rjs_w_u64(w, q->rate_info) < 0))
        return RWF_E_NOSPACE;
    return RJS_WRITES(w, "}");
}

int rjs_w_state(rjs_w *w, const rwf_state *s)
{
    if (RJS_WRITES(w, "{\"Stream\":") < 0 || w_named(w, &rjs_stream_states, s->stream_state) < 0 ||
        RJS_WRITES(w, ",\"Data\":") < 0 || w_named(w, &rjs_data_states, s->data_state) < 0)
        return RWF_E_NOSPACE;
    if (s->code > RWF_SC_NONE &&
        (RJS_WRITES(w, ",\"Code\":") < 0 || w_named(w, &rjs_state_codes, s->code) < 0))
        return RWF_E_NOSPACE;
    if (s->text.len &&
        (RJS_WRITES(w, ",\"Text\":") < 0 || rjs_w_str(w, s->text.data, s->text.len) < 0))
        return RWF_E_NOSPACE;
    return RJS_WRITES(w, "}");
}

static int w_array(rjs_w *w, rwf_buf data)
{
    rwf_array_dec d;
    rwf_buf item;
    int rc = rwf_array_dec_init(&d, data);
    if (rc < 0)
        return rc;
    if (data.len == 0)
        return RJS_WRITES(w, "null");
    const rjs_name_ent *tn = rjs_name(&rjs_data_types, d.type);
    if (RJS_WRITES(w, "{\"Type\":") < 0 || rjs_w_str(w, tn->name, tn->len) < 0 ||
        RJS_WRITES(w, ",\"Data\":[") < 0)
        return RWF_E_NOSPACE;
    for (unsigned i = 0; (rc = rwf_array_next(&d, &item)) == RWF_OK; i++) {
        if (i && RJS_WRITES(w, ",") < 0)
            return RWF_E_NOSPACE;
        int t = d.type;
        if (d.item_len && t != RWF_DT_ENUM && (t < RWF_DT_BUFFER || t > RWF_DT_RMTES_STRING) &&
            !(t = rwf_fixed_type(d.type, d.item_len))) {
            err_set("Array of %s cannot have fixed items of %u bytes", tn->name, d.item_len);
            return RWF_E_MALFORMED;
        }
        rc = rjs_w_prim(w, t, item, 0);
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    return RJS_WRITES(w, "]}");
}

/* An ENUM: its display text when asked for and known, else the number. */
static int w_enum(rjs_w *w, uint16_t v, int16_t fid)
{
    if (fid && (w->c->opts.flags & RJS_ENUM_TEXT)) {
        const rwf_buf *t = rjs_enum_text(w->c, fid, v);
        if (t)
            return rjs_w_str(w, t->data, t->len);
    }
    return rjs_w_u64(w, v);
}

int rjs_w_prim(rjs_w *w, int type, rwf_buf data, int16_t fid)
{
    rwf_value v;
    int rc;
    switch (type) { /* types whose bytes are written without a decode */
    case RWF_DT_BUFFER:
        return data.len ? rjs_w_buf64(w, data.data, data.len) : RJS_WRITES(w, "null");
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
        return data.len ? rjs_w_str(w, data.data, data.len) : RJS_WRITES(w, "null");
    case RWF_DT_RMTES_STRING:
        return data.len ? w_rmtes(w, (const uint8_t *)data.data, data.len) : RJS_WRITES(w, "null");
    case RWF_DT_ARRAY:
        return w_array(w, data);
    case RWF_DT_ENUM: {
        uint16_t e;
        if ((rc = rwf_get_enum(data, &e)) < 0)
            return rc;
        return rc == RWF_BLANK ? RJS_WRITES(w, "null") : w_enum(w, e, fid);
    }
    }
    if ((rc = rwf_get_value(type, data, &v)) < 0)
        return rc;
    if (rc == RWF_BLANK)
        return RJS_WRITES(w, "null");
    switch (v.type) {
    case RWF_DT_INT:
        return rjs_w_i64(w, v.i);
    case RWF_DT_UINT:
        return rjs_w_u64(w, v.u);
    case RWF_DT_FLOAT:
        return w_double(w, v.f, 6);
    case RWF_DT_DOUBLE:
        return w_double(w, v.d, 15);
    case RWF_DT_REAL:
        return rjs_w_real(w, &v.real);
    case RWF_DT_DATE:
        return w_date(w, &v.date);
    case RWF_DT_TIME:
        return w_time(w, &v.time);
    case RWF_DT_DATETIME:
        return w_datetime(w, &v.datetime);
    case RWF_DT_QOS:
        return rjs_w_qos(w, &v.qos);
    case RWF_DT_STATE:
        return rjs_w_state(w, &v.state);
    }
    err_set("data type %d has no JSON form", type);
    return RWF_E_UNSUPPORTED;
}
