/*
 * rwf_text_num: numeric text — Real <-> text with ETA's hint rules, Real -> double, and
 * decimal integers.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "err.h"
#include "rwf_text.h"
#include "rwf_text_int.h"

/* ---- Text: Real -------------------------------------------------------------------------- */

int rwf_text_invalid(const char *what, const char *s, size_t len)
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
    while (p < end && rwf_text_digit(*p)) {
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

/* A numeric text being read into a Real: where the reading is, and what was seen so far. */
typedef struct real_text {
    const char *s; /* the whole text, for error text */
    size_t len;
    const char *p, *end; /* what is left to read */
    uint64_t value;      /* the digits read so far */
    uint64_t tz_value;   /* value before the run of trailing zeros of the integer part */
    uint64_t lim;        /* the largest magnitude: INT64_MAX, or 2^63 when negative */
    int tz_count;        /* trailing zeros of the integer part */
    int seen;            /* integer digits: 0 none, 1 zeros only, 2 a non-zero one */
    int neg;
    int plus_zero; /* the text starts "+0" */
} real_text;

static int real_invalid(const real_text *t)
{
    return rwf_text_invalid("number", t->s, t->len);
}

/* Sets r to mantissa mag (with t's sign) and hint; returns RWF_OK. */
static int real_set(rwf_real *r, const real_text *t, uint64_t mag, uint8_t hint)
{
    r->hint = hint;
    r->value = signed_mantissa(mag, t->neg);
    r->blank = 0;
    return RWF_OK;
}

/* "Inf", "-Inf", "NaN" (any case, then only spaces): 1 with *rc set when the text starts with
 * one of them, else 0. */
static int real_special(rwf_real *r, const real_text *t, int *rc)
{
    static const struct {
        const char *word;
        uint8_t hint;
    } special[] = {
        {"Inf", RWF_RH_INFINITY}, {"-Inf", RWF_RH_NEG_INFINITY}, {"NaN", RWF_RH_NOT_A_NUMBER}};
    for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
        size_t n = strlen(special[i].word);
        if ((size_t)(t->end - t->p) >= n && strncasecmp(t->p, special[i].word, n) == 0) {
            if (!only_spaces(t->p + n, t->end)) {
                *rc = real_invalid(t);
            } else {
                r->hint = special[i].hint;
                r->blank = 0;
                *rc = RWF_OK;
            }
            return 1;
        }
    }
    return 0;
}

/* The integer part, remembering the value before a run of trailing zeros; stops at the first
 * digit that would not fit. */
static void real_integer_digits(real_text *t)
{
    while (t->p < t->end && rwf_text_digit(*t->p)) {
        unsigned d = (unsigned)(*t->p - '0');
        if (t->value > (t->lim - d) / 10)
            break;
        if (d == 0) {
            if (t->tz_count == 0)
                t->tz_value = t->value;
            if (t->seen == 2)
                t->tz_count++;
        } else {
            t->tz_count = 0;
            t->seen = 2;
        }
        if (t->seen != 2)
            t->seen = 1;
        t->value = t->value * 10 + d;
        t->p++;
    }
}

/* After '.': every decimal digit is kept (at most 14); digits that no longer fit must be
 * zeros. */
static int real_decimals(rwf_real *r, real_text *t)
{
    const char *dec = ++t->p;
    int any = 0;
    t->p = read_digits(t->p, t->end, t->lim, &t->value, &any);
    int exponent = (int)(t->p - dec);
    while (t->p < t->end && *t->p == '0')
        t->p++;
    if (t->p != t->end || exponent > 14 || (!t->seen && !any))
        return real_invalid(t);
    if (t->value == 0 && t->plus_zero)
        return RWF_BLANK;
    return real_set(r, t, t->value, (uint8_t)(RWF_RH_EXPONENT0 - exponent));
}

/* After a space: trailing spaces, or "w n/d". */
static int real_after_space(rwf_real *r, real_text *t)
{
    while (t->p < t->end && *t->p == ' ')
        t->p++;
    if (!t->seen)
        return t->p == t->end ? RWF_BLANK : real_invalid(t); /* a lone sign */
    if (t->p == t->end)
        return real_set(r, t, t->value, RWF_RH_EXPONENT0);
    uint64_t num = 0, den = 0;
    int any = 0;
    t->p = read_digits(t->p, t->end, INT32_MAX, &num, &any);
    if (!any || t->p == t->end || *t->p != '/')
        return real_invalid(t);
    any = 0;
    t->p = read_digits(t->p + 1, t->end, INT32_MAX, &den, &any);
    if (t->p != t->end || !(r->hint = fraction_hint((int64_t)den)) ||
        t->value > (t->lim - num) / den)
        return real_invalid(t);
    return real_set(r, t, t->value * den + num, r->hint);
}

/* After '/': "n/d". */
static int real_fraction(rwf_real *r, real_text *t)
{
    uint64_t den = 0;
    int any = 0;
    if (!t->seen)
        return real_invalid(t);
    t->p = read_digits(t->p + 1, t->end, INT32_MAX, &den, &any);
    if (t->p != t->end || !(r->hint = fraction_hint((int64_t)den)))
        return real_invalid(t);
    return real_set(r, t, t->value, r->hint);
}

/* An integer: trailing zeros fold into the exponent (up to 7; more scale the mantissa while
 * it fits). */
static int real_integer(rwf_real *r, real_text *t)
{
    if (t->p < t->end) { /* digits that did not fit: only zeros may follow */
        if (*t->p != '0')
            return real_invalid(t);
        if (t->tz_count == 0)
            t->tz_value = t->value;
        while (t->p < t->end && *t->p == '0') {
            t->tz_count++;
            t->p++;
        }
        if (t->p != t->end)
            return real_invalid(t);
    }
    r->blank = 0;
    if (t->tz_count > 0) {
        while (t->tz_count > 7 && t->tz_value <= t->lim / 10) {
            t->tz_value *= 10;
            t->tz_count--;
        }
        if (t->tz_count > 7)
            return real_invalid(t);
        return real_set(r, t, t->tz_value, (uint8_t)(RWF_RH_EXPONENT0 + t->tz_count));
    }
    real_set(r, t, t->value, RWF_RH_EXPONENT0);
    if (t->value == 0 && t->plus_zero) {
        r->blank = 1;
        return RWF_BLANK;
    }
    return RWF_OK;
}

int rwf_real_from_str(rwf_real *r, const char *s, size_t len)
{
    real_text t = {.s = s, .len = len, .p = s, .end = s + len};
    int rc;

    r->value = 0;
    r->hint = 0;
    r->blank = 1;
    while (t.p < t.end && *t.p == ' ')
        t.p++;
    if (t.p == t.end)
        return RWF_BLANK;
    if (*t.p == '+' && t.end - t.p >= 2 && t.p[1] == '0') {
        if (t.end - t.p == 2)
            return RWF_BLANK;
        t.plus_zero = 1;
    }
    if (real_special(r, &t, &rc))
        return rc;
    if (*t.p == '-' || *t.p == '+')
        t.neg = *t.p++ == '-';
    t.lim = t.neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    real_integer_digits(&t);
    if (t.p < t.end && *t.p == '.')
        return real_decimals(r, &t);
    if (t.p < t.end && *t.p == ' ')
        return real_after_space(r, &t);
    if (t.p < t.end && *t.p == '/')
        return real_fraction(r, &t);
    if (t.seen)
        return real_integer(r, &t);
    if (t.p == t.end) /* a lone sign */
        return RWF_BLANK;
    return real_invalid(&t);
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
        return rwf_text_invalid("unsigned integer", orig, olen);
    for (; i < len; i++) {
        if (!rwf_text_digit(s[i]) || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return rwf_text_invalid("unsigned integer", orig, olen);
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
        return rwf_text_invalid("integer", orig, olen);
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        if (!rwf_text_digit(s[i]) || x > (limit - (uint64_t)(s[i] - '0')) / 10)
            return rwf_text_invalid("integer", orig, olen);
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
        return rwf_text_invalid("enum value (0..65535)", s, len);
    *v = (uint16_t)x;
    return RWF_OK;
}
