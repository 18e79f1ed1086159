/*
 * rjs_rprim: JSON -> RWF for primitive values. Numbers are read from their text without a
 * conversion through double (REAL keeps the decimals written as its hint; an integer's trailing
 * zeros fold into the exponent as ETA's numeric-string rule does); TIME and DATE from their ISO
 * forms (other text forms through the codec's parsers); ENUM from a number or a display text;
 * strings with their escapes decoded; null as blank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rjs_names.h"
#include "rjs_rd.h"

int rjs_r_expected(rjs_lex *lx, const char *exp)
{
    int k = rjs_kind(lx);
    return rjs_lex_err(lx, lx->p, "expected %s, found %s", exp,
                       k == RJS_V_BAD ? (lx->p >= lx->end ? "the end of the text" : "no value")
                                      : rjs_kind_name(k));
}

/* A JSON number taken apart: mant * 10^exp, negative when neg. */
typedef struct num {
    uint64_t mant;
    int exp;
    uint8_t neg;
    uint8_t is_int;   /* no '.' and no exponent */
    uint8_t overflow; /* more digits than 64 bits hold */
    uint8_t sig;      /* significant digits in mant (up to 19 counted) */
} num;

/* Digits at p into o (each one after the '.' lowers the exponent when frac); returns the end
 * of the digits. The first 19 significant digits cannot overflow and take the short path. */
static const char *num_digits(num *o, const char *p, const char *end, int frac)
{
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (o->sig < 19) {
            o->mant = o->mant * 10 + d;
            o->sig += o->mant != 0;
        } else if (o->mant > (UINT64_MAX - d) / 10) {
            if (d) /* a zero that does not fit only scales: 1e23 written out reads back */
                o->overflow = 1;
            else
                o->exp += !frac;
            continue;
        } else {
            o->mant = o->mant * 10 + d;
        }
        o->exp -= frac;
    }
    return p;
}

/* Reads a number value at lx into *o, checking its JSON syntax on the way; err text (expected
 * exp) for anything else. */
static int read_num(rjs_lex *lx, num *o, const char *exp)
{
    rjs_ws(lx);
    const char *start = lx->p, *p = start, *end = lx->end;
    memset(o, 0, sizeof(*o));
    o->is_int = 1;
    if (p < end && *p == '-') {
        o->neg = 1;
        p++;
    }
    if (p >= end || (unsigned)(*p - '0') >= 10)
        return p > start ? rjs_lex_err(lx, start, "'-' without digits") : rjs_r_expected(lx, exp);
    p = *p == '0' ? p + 1 : num_digits(o, p, end, 0);
    if (p < end && *p == '.') {
        if (++p >= end || (unsigned)(*p - '0') >= 10)
            return rjs_lex_err(lx, start, "number without digits after its '.'");
        o->is_int = 0;
        p = num_digits(o, p, end, 1);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, e = 0;
        o->is_int = 0;
        if (++p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p >= end || (unsigned)(*p - '0') >= 10)
            return rjs_lex_err(lx, start, "number without digits in its exponent");
        for (; p < end && (unsigned)(*p - '0') < 10; p++)
            if (e < 10000)
                e = e * 10 + (*p - '0');
        o->exp += eneg ? -e : e;
    }
    lx->p = p;
    return RWF_OK;
}

int rjs_r_uint(rjs_lex *lx, uint64_t max, uint64_t *out)
{
    num v;
    const char *at = (rjs_ws(lx), lx->p);
    int rc = read_num(lx, &v, "an unsigned integer");
    if (rc < 0)
        return rc;
    if (!v.is_int || (v.neg && v.mant) || v.overflow || v.exp || v.mant > max)
        return rjs_lex_err(lx, at, "%.*s is not an integer in 0..%llu", (int)(lx->p - at), at,
                           (unsigned long long)max);
    *out = v.mant;
    return RWF_OK;
}

int rjs_r_int(rjs_lex *lx, int64_t min, int64_t max, int64_t *out)
{
    num v;
    const char *at = (rjs_ws(lx), lx->p);
    int rc = read_num(lx, &v, "an integer");
    if (rc < 0)
        return rc;
    int ok = v.is_int && !v.overflow && !v.exp;
    int64_t x = 0;
    if (ok && v.neg) {
        ok = v.mant <= (uint64_t)INT64_MAX + 1;
        x = v.mant == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v.mant;
    } else if (ok) {
        ok = v.mant <= (uint64_t)INT64_MAX;
        x = (int64_t)v.mant;
    }
    if (!ok || x < min || x > max)
        return rjs_lex_err(lx, at, "%.*s is not an integer in %lld..%lld", (int)(lx->p - at), at,
                           (long long)min, (long long)max);
    *out = x;
    return RWF_OK;
}

int rjs_r_bool(rjs_lex *lx, int *out)
{
    int k = rjs_kind(lx);
    if (k == RJS_V_TRUE || k == RJS_V_FALSE) {
        *out = k == RJS_V_TRUE;
        return rjs_literal(lx, k);
    }
    if (k == RJS_V_NUM) {
        uint64_t v;
        int rc = rjs_r_uint(lx, 1, &v);
        *out = (int)v;
        return rc;
    }
    return rjs_r_expected(lx, "true or false");
}

int rjs_r_named(rjs_lex *lx, const rjs_names *t, int max, int *out)
{
    int k = rjs_kind(lx);
    if (k == RJS_V_NUM) {
        uint64_t v;
        int rc = rjs_r_uint(lx, (uint64_t)max, &v);
        *out = (int)v;
        return rc;
    }
    if (k != RJS_V_STR)
        return rjs_r_expected(lx, "a name or a number");
    rjs_str s;
    const char *at = lx->p;
    int rc = rjs_string(lx, &s);
    if (rc < 0)
        return rc;
    int v = s.esc ? -1 : rjs_value(t, s.s, s.len);
    if (v < 0)
        return rjs_lex_err(lx, at, "\"%.*s\" is not a %s", (int)s.len, s.s, t->what);
    *out = v;
    return RWF_OK;
}

int rjs_r_string(rjs_rd *rd, rjs_lex *lx, rwf_buf *out)
{
    rjs_str s;
    int rc = rjs_string(lx, &s);
    if (rc < 0)
        return rc;
    if (!s.esc) {
        out->data = s.s;
        out->len = s.len;
        return RWF_OK;
    }
    size_t n = rjs_unescaped_len(&s);
    char *t = rjs_tail(rd, n);
    if (!t)
        return RWF_E_NOSPACE;
    rjs_unescape(&s, t);
    *out = rwf_buf_make(t, n);
    return RWF_OK;
}

static int b64val(uint8_t c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

int rjs_r_base64(rjs_rd *rd, rjs_lex *lx, rwf_buf *out)
{
    rjs_str s;
    const char *at = (rjs_ws(lx), lx->p);
    int rc = rjs_string(lx, &s);
    if (rc < 0)
        return rc;
    if (s.esc)
        return rjs_lex_err(lx, at, "base64 text with escapes");
    size_t n = s.len;
    while (n && s.s[n - 1] == '=')
        n--;
    if (s.len - n > 2 || n % 4 == 1)
        return rjs_lex_err(lx, at, "base64 text of bad length %u", s.len);
    char *o = rjs_tail(rd, n * 3 / 4 + 1), *start = o;
    if (!o)
        return RWF_E_NOSPACE;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64val((uint8_t)s.s[i]);
        if (v < 0)
            return rjs_lex_err(lx, s.s + i, "byte '%c' is not base64", s.s[i]);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *o++ = (char)(acc >> bits);
        }
    }
    *out = rwf_buf_make(start, (size_t)(o - start));
    return RWF_OK;
}

/* REAL of a number: the hint keeps the decimals written; an integer's trailing zeros fold into
 * the exponent (at most 10^7). */
static int real_of_num(rjs_lex *lx, const char *at, const num *v, rwf_real *r)
{
    uint64_t m = v->mant;
    int e = v->exp;
    if (v->overflow)
        return rjs_lex_err(lx, at, "number with too many digits for a REAL");
    /* A value without decimals (an integer, or an exponent that leaves none) folds its
     * trailing zeros into the exponent as an integer's text does, so that the REAL reads back
     * from the integer the writer makes of it with the same hint; zero has exponent 0. */
    if (e >= 0)
        while (m && m % 10 == 0 && e < 7) {
            m /= 10;
            e++;
        }
    if (m == 0 && e > 0)
        e = 0;
    while (e > 7) {
        if (m > (uint64_t)INT64_MAX / 10)
            return rjs_lex_err(lx, at, "number too large for a REAL");
        m *= 10;
        e--;
    }
    while (e < -14 && m % 10 == 0 && m) {
        m /= 10;
        e++;
    }
    if (e < -14 && m)
        return rjs_lex_err(lx, at, "number with more than 14 decimals for a REAL");
    if (e < -14)
        e = -14;
    if (m > (uint64_t)INT64_MAX + (v->neg ? 1 : 0))
        return rjs_lex_err(lx, at, "number too large for a REAL");
    r->blank = 0;
    r->hint = (uint8_t)(RWF_RH_EXPONENT0 + e);
    r->value = v->neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return RWF_OK;
}

/* "Inf", "-Inf", "NaN" for REAL, FLOAT and DOUBLE: 0..2, or -1. */
static int special_of(const rjs_str *s)
{
    if (RJS_STR_IS(s, "Inf"))
        return 0;
    if (RJS_STR_IS(s, "-Inf"))
        return 1;
    if (RJS_STR_IS(s, "NaN"))
        return 2;
    return -1;
}

static int get_real(rjs_lex *lx, rwf_value *out)
{
    const char *at = (rjs_ws(lx), lx->p);
    if (rjs_kind(lx) == RJS_V_STR) {
        rjs_str s;
        int rc = rjs_string(lx, &s), sp = rc < 0 ? -1 : special_of(&s);
        if (rc < 0)
            return rc;
        if (sp < 0)
            return rjs_lex_err(lx, at, "\"%.*s\" is not a number (REAL)", (int)s.len, s.s);
        static const uint8_t hints[] = {RWF_RH_INFINITY, RWF_RH_NEG_INFINITY, RWF_RH_NOT_A_NUMBER};
        out->real.hint = hints[sp];
        return RWF_OK;
    }
    num v;
    int rc = read_num(lx, &v, "a number (REAL)");
    return rc < 0 ? rc : real_of_num(lx, at, &v, &out->real);
}

static int get_double(rjs_lex *lx, rwf_value *out, int is_float)
{
    const char *at = (rjs_ws(lx), lx->p);
    double d;
    if (rjs_kind(lx) == RJS_V_STR) {
        rjs_str s;
        int rc = rjs_string(lx, &s), sp = rc < 0 ? -1 : special_of(&s);
        if (rc < 0)
            return rc;
        if (sp < 0)
            return rjs_lex_err(lx, at, "\"%.*s\" is not a number", (int)s.len, s.s);
        d = sp == 0 ? (double)INFINITY : sp == 1 ? -(double)INFINITY : (double)NAN;
    } else {
        const char *s;
        size_t n;
        char tmp[64];
        if (rjs_kind(lx) != RJS_V_NUM)
            return rjs_r_expected(lx, "a number");
        int rc = rjs_number(lx, &s, &n);
        if (rc < 0)
            return rc;
        if (n >= sizeof(tmp))
            return rjs_lex_err(lx, at, "number of %zu characters is too long", n);
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        d = strtod(tmp, NULL);
    }
    if (is_float)
        out->f = (float)d;
    else
        out->d = d;
    return RWF_OK;
}

/* Up to ndig digits at *p (at least one): their value; -1 when none. */
static int digits(const char **p, const char *end, int ndig)
{
    int v = 0, n = 0;
    while (*p < end && n < ndig && **p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n == ndig ? v : -1;
}

/* ISO times: HH, HH:MM, HH:MM:SS, HH:MM:SS.f (1 to 9 digits). A part left out is blank (255),
 * as the writer leaves out a blank part. 0 on success, -1 for any other text. */
static int iso_time(const char *s, size_t len, rwf_time *t)
{
    const char *p = s, *end = s + len;
    int h = digits(&p, end, 2), m = 255, sec = 255;
    memset(t, 0, sizeof(*t));
    if (h < 0 || h > 23)
        return -1;
    if (p < end) {
        if (*p++ != ':' || (m = digits(&p, end, 2)) < 0 || m > 59)
            return -1;
        if (p < end && (*p++ != ':' || (sec = digits(&p, end, 2)) < 0 || sec > 60))
            return -1;
    }
    t->hour = (uint8_t)h;
    t->minute = (uint8_t)m;
    t->second = (uint8_t)sec;
    if (p == end)
        return 0;
    if (sec == 255 || *p++ != '.' || p == end || end - p > 9)
        return -1;
    uint32_t frac = 0, n = 0;
    for (; p < end; p++, n++) {
        if (*p < '0' || *p > '9')
            return -1;
        frac = frac * 10 + (uint32_t)(*p - '0');
    }
    for (; n < 9; n++)
        frac *= 10;
    t->millisecond = (uint16_t)(frac / 1000000);
    t->microsecond = (uint16_t)(frac / 1000 % 1000);
    t->nanosecond = (uint16_t)(frac % 1000);
    return 0;
}

/* Two digits, or two spaces (a blank part: 0). -1 for anything else. */
static int part2(const char **p, const char *end)
{
    if (end - *p >= 2 && (*p)[0] == ' ' && (*p)[1] == ' ') {
        *p += 2;
        return 0;
    }
    return digits(p, end, 2);
}

/* Dates as the writer makes them: "YYYY-MM-DD" with "--" for a blank year and two spaces for a
 * blank month or day, the blank parts at the end cut ("2005", "2005-11", "2005-  -15",
 * "--11-15"). 0 on success, -1 for any other text. */
static int iso_date(const char *s, size_t len, rwf_date *d)
{
    const char *p = s, *end = s + len;
    unsigned y = 0;
    int m = 0, day = 0;
    if (len >= 2 && s[0] == '-' && s[1] == '-') {
        p += 2;
    } else {
        for (; p < end && p - s < 5 && *p >= '0' && *p <= '9'; p++)
            y = y * 10 + (unsigned)(*p - '0');
        if (p - s < 4 || y > 65535 || (p < end && *p++ != '-'))
            return -1;
    }
    if (p < end && ((m = part2(&p, end)) < 0 || (p < end && *p++ != '-')))
        return -1;
    if (p < end && ((day = part2(&p, end)) < 0 || p < end))
        return -1;
    if (p == s + 2 || p[-1] == ' ' || p[-1] == '-') /* nothing after "--", or a blank at the end */
        return -1;
    d->year = (uint16_t)y;
    d->month = (uint8_t)m;
    d->day = (uint8_t)day;
    return 0;
}

/* A time whose parts are in range or blank (255, 65535, 2047 for the sub-second parts). */
static int time_ok(const rwf_time *t)
{
    return (t->hour <= 23 || t->hour == 255) && (t->minute <= 59 || t->minute == 255) &&
           (t->second <= 60 || t->second == 255) &&
           (t->millisecond <= 999 || t->millisecond == 65535) &&
           (t->microsecond <= 999 || t->microsecond == 2047) &&
           (t->nanosecond <= 999 || t->nanosecond == 2047);
}

/* A date whose parts are in range; a part may be 0 (blank). A day past the end of its month is
 * refused when month and year are known. */
static int date_ok(const rwf_date *d)
{
    static const uint8_t mdays[13] = {31, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d->month > 12 || d->day > mdays[d->month])
        return 0;
    if (d->month == 2 && d->day == 29 && d->year &&
        (d->year % 4 != 0 || (d->year % 100 == 0 && d->year % 400 != 0)))
        return 0;
    return 1;
}

/* TIME, DATE or DATETIME from a string. */
static int get_datetime(rjs_lex *lx, int type, rwf_value *out)
{
    const char *at = (rjs_ws(lx), lx->p);
    rjs_str s;
    if (rjs_kind(lx) != RJS_V_STR)
        return rjs_r_expected(lx, type == RWF_DT_TIME ? "a time (string)" : "a date (string)");
    int rc = rjs_string(lx, &s);
    if (rc < 0)
        return rc;
    if (s.esc)
        return rjs_lex_err(lx, at, "date or time text with escapes");
    if (type == RWF_DT_TIME) {
        if (iso_time(s.s, s.len, &out->time) == 0)
            return RWF_OK;
        rc = rwf_time_from_str(&out->time, s.s, s.len);
        if (rc == RWF_OK && !time_ok(&out->time))
            rc = RWF_E_INVALID;
    } else if (type == RWF_DT_DATE) {
        if (iso_date(s.s, s.len, &out->date) == 0 && date_ok(&out->date))
            return RWF_OK;
        rc = rwf_date_from_str(&out->date, s.s, s.len);
        if (rc == RWF_OK && !date_ok(&out->date))
            rc = RWF_E_INVALID;
    } else {
        /* The writer's form first: "<date>T<time>", either part left out when blank. */
        const char *tpos = memchr(s.s, 'T', s.len);
        size_t dlen = tpos ? (size_t)(tpos - s.s) : s.len;
        rwf_datetime *dt = &out->datetime;
        memset(&dt->date, 0, sizeof(dt->date));
        rwf_time_blank(&dt->time);
        if ((dlen == 0 || iso_date(s.s, dlen, &dt->date) == 0) &&
            (!tpos || iso_time(tpos + 1, (size_t)(s.s + s.len - tpos - 1), &dt->time) == 0))
            rc = RWF_OK;
        else
            rc = rwf_datetime_from_str(dt, s.s, s.len);
        if (rc == RWF_OK && (!date_ok(&out->datetime.date) || !time_ok(&out->datetime.time)))
            rc = RWF_E_INVALID;
    }
    if (rc < 0)
        return rjs_lex_err(lx, at, "\"%.*s\" is not a %s", (int)s.len, s.s,
                           type == RWF_DT_TIME   ? "time"
                           : type == RWF_DT_DATE ? "date"
                                                 : "date and time");
    return rc == RWF_BLANK || s.len == 0 ? RWF_BLANK : RWF_OK; /* "" is blank, as null is */
}

/* ENUM: a number, or a display text of the field's enum table. */
static int get_enum(rjs_rd *rd, rjs_lex *lx, int16_t fid, rwf_value *out)
{
    const char *at = (rjs_ws(lx), lx->p);
    if (rjs_kind(lx) != RJS_V_STR) {
        uint64_t v = 0;
        int rc = rjs_kind(lx) == RJS_V_NUM ? rjs_r_uint(lx, 65535, &v)
                                           : rjs_r_expected(lx, "an enum value or display text");
        out->enm = (uint16_t)v;
        return rc;
    }
    rwf_buf text;
    uint8_t *mark = rjs_tail_mark(rd);
    int rc = rjs_r_string(rd, lx, &text);
    if (rc < 0)
        return rc;
    rc = fid ? rjs_enum_value(rd->c, fid, text.data, text.len, &out->enm) : -1;
    rjs_tail_release(rd, mark);
    if (rc < 0)
        return rjs_lex_err(lx, at, "\"%.*s\" is not a display text of the enum table",
                           (int)(lx->p - at - 2), at + 1);
    return RWF_OK;
}

int rjs_r_qos(rjs_lex *lx, rwf_qos *q)
{
    rjs_str k;
    int have = 0, v, rc = rjs_obj_begin(lx);
    uint64_t u;
    memset(q, 0, sizeof(*q));
    while (rc > 0) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Timeliness")) {
            rc = rjs_r_named(lx, &rjs_timeliness, 7, &v);
            q->timeliness = (uint8_t)v;
            have |= 1;
        } else if (RJS_STR_IS(&k, "Rate")) {
            rc = rjs_r_named(lx, &rjs_rates, 15, &v);
            q->rate = (uint8_t)v;
            have |= 2;
        } else if (RJS_STR_IS(&k, "Dynamic")) {
            rc = rjs_r_bool(lx, &v);
            q->dynamic = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "TimeInfo")) {
            rc = rjs_r_uint(lx, 65535, &u);
            q->time_info = (uint16_t)u;
        } else if (RJS_STR_IS(&k, "RateInfo")) {
            rc = rjs_r_uint(lx, 65535, &u);
            q->rate_info = (uint16_t)u;
        } else {
            return rjs_lex_err(lx, k.s - 1, "unknown key \"%.*s\" in a Qos", (int)k.len, k.s);
        }
        if (rc < 0 || (rc = rjs_obj_next(lx)) < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (have != 3)
        return rjs_lex_err(lx, lx->p, "a Qos needs \"Timeliness\" and \"Rate\"");
    return RWF_OK;
}

int rjs_r_state(rjs_rd *rd, rjs_lex *lx, rwf_state *s)
{
    rjs_str k;
    int v, rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Stream")) {
            rc = rjs_r_named(lx, &rjs_stream_states, 31, &v);
            s->stream_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Data")) {
            rc = rjs_r_named(lx, &rjs_data_states, 7, &v);
            s->data_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Code")) {
            rc = rjs_r_named(lx, &rjs_state_codes, 255, &v);
            s->code = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Text")) {
            if (rjs_kind(lx) == RJS_V_NULL) {
                rc = rjs_literal(lx, RJS_V_NULL);
                s->text = rwf_buf_make(NULL, 0);
            } else if ((rc = rjs_r_string(rd, lx, &s->text)) >= 0 && s->text.len > 0x7FF0) {
                rc = rjs_lex_err(lx, lx->p, "state text of %u bytes is too long", s->text.len);
            }
        } else {
            return rjs_lex_err(lx, k.s - 1, "unknown key \"%.*s\" in a State", (int)k.len, k.s);
        }
        if (rc < 0 || (rc = rjs_obj_next(lx)) < 0)
            return rc;
    }
    return rc < 0 ? rc : RWF_OK;
}

/* "a.b.c.d" as a host-order integer, or -1. */
static int64_t ip_of(const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    uint32_t ip = 0;
    for (int i = 0; i < 4; i++) {
        unsigned v = 0, n = 0;
        while (p < end && *p >= '0' && *p <= '9' && n < 3) {
            v = v * 10 + (unsigned)(*p++ - '0');
            n++;
        }
        if (!n || v > 255 || (i < 3 && (p >= end || *p++ != '.')))
            return -1;
        ip = ip << 8 | v;
    }
    return p == end ? (int64_t)ip : -1;
}

int rjs_r_post_user(rjs_lex *lx, uint32_t *addr, uint32_t *id)
{
    rjs_str k, s;
    uint64_t u;
    int have = 0, rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        const char *at = (rjs_ws(lx), lx->p);
        if (RJS_STR_IS(&k, "Address")) {
            if (rjs_kind(lx) == RJS_V_NUM) {
                rc = rjs_r_uint(lx, UINT32_MAX, &u);
                *addr = (uint32_t)u;
            } else if ((rc = rjs_string(lx, &s)) >= 0) {
                int64_t ip = s.esc ? -1 : ip_of(s.s, s.len);
                if (ip < 0)
                    return rjs_lex_err(lx, at, "\"%.*s\" is not an IPv4 address", (int)s.len, s.s);
                *addr = (uint32_t)ip;
            }
            have |= 1;
        } else if (RJS_STR_IS(&k, "UserID")) {
            rc = rjs_r_uint(lx, UINT32_MAX, &u);
            *id = (uint32_t)u;
            have |= 2;
        } else {
            return rjs_lex_err(lx, k.s - 1, "unknown key \"%.*s\" in a PostUserInfo", (int)k.len,
                               k.s);
        }
        if (rc < 0 || (rc = rjs_obj_next(lx)) < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (have != 3)
        return rjs_lex_err(lx, lx->p, "a PostUserInfo needs \"Address\" and \"UserID\"");
    return RWF_OK;
}

int rjs_r_prim(rjs_rd *rd, rjs_lex *lx, int type, int16_t fid, rwf_value *v)
{
    int base = rwf_base_type(type), k = rjs_kind(lx), rc;
    memset(v, 0, sizeof(*v));
    v->type = (uint8_t)base;
    if (k == RJS_V_NULL) {
        rc = rjs_literal(lx, RJS_V_NULL);
        return rc < 0 ? rc : RWF_BLANK;
    }
    switch (base) {
    case RWF_DT_UINT:
        return rjs_r_uint(lx, UINT64_MAX, &v->u);
    case RWF_DT_INT:
        return rjs_r_int(lx, INT64_MIN, INT64_MAX, &v->i);
    case RWF_DT_REAL:
        return get_real(lx, v);
    case RWF_DT_FLOAT:
        return get_double(lx, v, 1);
    case RWF_DT_DOUBLE:
        return get_double(lx, v, 0);
    case RWF_DT_DATE:
    case RWF_DT_TIME:
    case RWF_DT_DATETIME:
        return get_datetime(lx, base, v);
    case RWF_DT_ENUM:
        return get_enum(rd, lx, fid, v);
    case RWF_DT_QOS:
        return k == RJS_V_OBJ ? rjs_r_qos(lx, &v->qos) : rjs_r_expected(lx, "a Qos object");
    case RWF_DT_STATE:
        return k == RJS_V_OBJ ? rjs_r_state(rd, lx, &v->state)
                              : rjs_r_expected(lx, "a State object");
    case RWF_DT_BUFFER:
        if (k != RJS_V_STR)
            return rjs_r_expected(lx, "a base64 string");
        return rjs_r_base64(rd, lx, &v->buf);
    case RWF_DT_ASCII_STRING:
    case RWF_DT_UTF8_STRING:
    case RWF_DT_RMTES_STRING:
        if (k != RJS_V_STR)
            return rjs_r_expected(lx, "a string");
        if ((rc = rjs_r_string(rd, lx, &v->buf)) < 0)
            return rc;
        if (base == RWF_DT_RMTES_STRING &&
            !rjs_is_plain((const uint8_t *)v->buf.data, v->buf.len)) {
            char *t = rjs_tail(rd, v->buf.len + 3);
            if (!t)
                return RWF_E_NOSPACE;
            v->buf = rwf_buf_make(t, rjs_utf8_to_rmtes(t, v->buf.data, v->buf.len));
        }
        if (v->buf.len > 0xFFFF)
            return rjs_lex_err(lx, lx->p, "string of %u bytes is too long", v->buf.len);
        return RWF_OK;
    }
    return rjs_lex_err(lx, lx->p, "data type %d cannot be given as a JSON value here", type);
}

/* The set-defined (fixed) type of items of type of len bytes, or 0. */
static int fixed_item_type(int type, unsigned len)
{
    if (type == RWF_DT_ENUM || (type >= RWF_DT_BUFFER && type <= RWF_DT_RMTES_STRING))
        return type;
    return rwf_fixed_type(type, len);
}

int rjs_r_array(rjs_rd *rd, rjs_lex *lx)
{
    rjs_str k;
    int type = -1, rc;
    uint64_t item_len = 0;
    const char *data = NULL, *start = (rjs_ws(lx), lx->p);
    if (rjs_kind(lx) != RJS_V_OBJ)
        return rjs_r_expected(lx, "an Array object ({\"Type\":..,\"Data\":[..]})");
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Type"))
            rc = rjs_r_named(lx, &rjs_data_types, 255, &type);
        else if (RJS_STR_IS(&k, "Length"))
            rc = rjs_r_uint(lx, 65535, &item_len);
        else if (RJS_STR_IS(&k, "Data"))
            data = (rjs_ws(lx), lx->p), rc = rjs_skip(lx);
        else
            return rjs_lex_err(lx, k.s - 1, "unknown key \"%.*s\" in an Array", (int)k.len, k.s);
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (type < RWF_DT_INT || type > RWF_DT_RMTES_STRING || type == RWF_DT_ARRAY || type == 7 ||
        !data)
        return rjs_lex_err(lx, start, "an Array needs a primitive \"Type\" and \"Data\"");
    if (item_len && !fixed_item_type(type, (unsigned)item_len))
        return rjs_lex_err(lx, start, "items of %s cannot be %u bytes long",
                           rjs_name(&rjs_data_types, type)->name, (unsigned)item_len);
    rjs_lex sub = {lx->base, data, lx->end};
    if ((rc = rwf_enc_array_begin(&rd->e, type, (uint16_t)item_len)) < 0)
        return rc;
    for (rc = rjs_arr_begin(&sub); rc > 0; rc = rjs_arr_next(&sub)) {
        rwf_value v;
        uint8_t *mark = rjs_tail_mark(rd);
        if ((rc = rjs_r_prim(rd, &sub, type, 0, &v)) < 0)
            return rc;
        rc = rc == RWF_BLANK ? rwf_enc_blank(&rd->e) : rwf_enc_value(&rd->e, &v);
        rjs_tail_release(rd, mark);
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : rwf_enc_array_end(&rd->e);
}
