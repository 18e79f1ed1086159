/*
 * rwf_prim: RWF primitive values — views, value structs, wire forms, text conversions.
 *
 * Three layers, from the bytes up:
 *
 *  1. Raw wire helpers: big-endian loads/stores and the length encodings of wire.md §4.1
 *     (u15rb, u16ob, u30rb, i15rb). Writers take a pointer with enough room (the caller has
 *     checked) and return the pointer after what they wrote. Readers take [p, end) and return
 *     the pointer after what they read, or NULL when the encoding does not fit.
 *
 *  2. Primitive values. rwf_put_<type>() writes a value in its length-prefixed form (the form
 *     used in field/element entries, variable arrays and map keys) and returns the new end;
 *     the caller guarantees RWF_PUT_MAX_<TYPE> bytes of room. rwf_get_<type>() decodes the
 *     value bytes of an entry (the bytes after the length prefix, as a view) and returns
 *     RWF_OK, RWF_BLANK (zero length or the type's blank pattern; *out is then zeroed or set to
 *     the blank pattern) or RWF_E_MALFORMED with err_msg() saying what is wrong. These are
 *     inline: they are the per-field cost of decoding a MarketPrice update.
 *
 *  3. Text conversions used by MsgData.xml and the summaries (numeric string <-> Real with
 *     ETA's hint rules, dates, times, integers).
 *
 * Nothing here allocates. Views (rwf_buf) point into memory the caller owns.
 */
#ifndef RWFPERF_RWF_PRIM_H
#define RWFPERF_RWF_PRIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rwf_types.h"

/* A view: len bytes at data, owned by someone else (an input buffer, a dictionary, a string
 * literal). data may be NULL when len is 0. */
typedef struct rwf_buf {
    const char *data;
    uint32_t len;
} rwf_buf;

/* A view of a string literal, without its NUL. */
#define RWF_STR(lit) ((rwf_buf){(lit), (uint32_t)(sizeof(lit) - 1)})

/* A view of a NUL-terminated string (NULL gives an empty view). */
static inline rwf_buf rwf_buf_cstr(const char *s)
{
    rwf_buf b = {s, s ? (uint32_t)strlen(s) : 0};
    return b;
}

/* A view of len bytes at p (len must fit 32 bits; the codec's lengths are at most 16). */
static inline rwf_buf rwf_buf_make(const void *p, size_t len)
{
    rwf_buf b = {(const char *)p, (uint32_t)len};
    return b;
}

/* 1 when both views hold the same bytes. */
static inline int rwf_buf_eq(rwf_buf a, rwf_buf b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* 1 when the view holds exactly the bytes of the NUL-terminated string s. */
static inline int rwf_buf_eq_cstr(rwf_buf a, const char *s)
{
    size_t n = strlen(s);
    return a.len == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

/* ---- Value structs ----------------------------------------------------------------------- */

/* value * 10^(hint - 14) for hints 0..21, value / 2^(hint - 22) for 22..30; hints 33/34/35
 * are +Inf/-Inf/NaN (value 0). blank = 1 marks the blank Real. */
typedef struct rwf_real {
    int64_t value;
    uint8_t hint;
    uint8_t blank;
} rwf_real;

typedef struct rwf_date {
    uint8_t day;
    uint8_t month;
    uint16_t year;
} rwf_date; /* 0/0/0 is blank */

typedef struct rwf_time {
    uint8_t hour;
    uint8_t minute;
    uint8_t second;
    uint16_t millisecond;
    uint16_t microsecond; /* 0..999 (11 bits on the wire) */
    uint16_t nanosecond;  /* 0..999 (11 bits on the wire) */
} rwf_time;               /* blank pattern: 255/255/255/65535/2047/2047 */

typedef struct rwf_datetime {
    rwf_date date;
    rwf_time time;
} rwf_datetime;

typedef struct rwf_qos {
    uint8_t timeliness; /* RWF_QOS_TIME_* */
    uint8_t rate;       /* RWF_QOS_RATE_* */
    uint8_t dynamic;    /* 0 or 1 */
    uint16_t time_info; /* present on the wire when timeliness > DELAYED_UNKNOWN */
    uint16_t rate_info; /* present on the wire when rate > JIT_CONFLATED */
} rwf_qos;

typedef struct rwf_state {
    uint8_t stream_state; /* RWF_STREAM_* */
    uint8_t data_state;   /* RWF_DATA_* */
    uint8_t code;         /* RWF_SC_* */
    rwf_buf text;
} rwf_state;

/* A decoded primitive of any type. type is the base type (set-defined types decode into their
 * base type: RWF_DT_UINT_2 -> RWF_DT_UINT). For ARRAY, buf is the encoded array (decode it
 * with rwf_array_dec_init); for the four string/buffer types, buf is the bytes. */
typedef struct rwf_value {
    uint8_t type;
    union {
        int64_t i;
        uint64_t u;
        float f;
        double d;
        rwf_real real;
        rwf_date date;
        rwf_time time;
        rwf_datetime datetime;
        rwf_qos qos;
        rwf_state state;
        uint16_t enm;
        rwf_buf buf;
    };
} rwf_value;

/* ---- 1. Raw wire helpers ----------------------------------------------------------------- */

static inline uint16_t rwf_rd16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t rwf_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint8_t *rwf_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static inline uint8_t *rwf_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

/* Unsigned big-endian of n bytes (n <= 8; 0 gives 0). Fixed-size loads per length: no loop. */
static inline uint64_t rwf_rdn(const uint8_t *p, unsigned n)
{
    switch (n) {
    case 1:
        return p[0];
    case 2:
        return rwf_rd16(p);
    case 3:
        return (uint64_t)rwf_rd16(p) << 8 | p[2];
    case 4:
        return rwf_rd32(p);
    case 5:
        return (uint64_t)rwf_rd32(p) << 8 | p[4];
    case 6:
        return (uint64_t)rwf_rd32(p) << 16 | rwf_rd16(p + 4);
    case 7:
        return (uint64_t)rwf_rd32(p) << 24 | (uint64_t)rwf_rd16(p + 4) << 8 | p[6];
    case 8:
        return (uint64_t)rwf_rd32(p) << 32 | rwf_rd32(p + 4);
    default:
        return 0;
    }
}

/* Two's complement big-endian of n bytes (1 <= n <= 8), sign-extended. */
static inline int64_t rwf_rdn_signed(const uint8_t *p, unsigned n)
{
    unsigned shift = 64 - 8 * n;
    return (int64_t)(rwf_rdn(p, n) << shift) >> shift;
}

/* Writes the low n bytes of v big-endian. */
static inline uint8_t *rwf_wrn(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = n; i > 0; i--) {
        p[i - 1] = (uint8_t)v;
        v >>= 8;
    }
    return p + n;
}

/* u15rb: < 0x80 in one byte, else two bytes with 0x8000 set. v must be <= 0x7FFF. */
static inline uint8_t *rwf_wr_u15rb(uint8_t *p, uint16_t v)
{
    if (v < 0x80) {
        *p = (uint8_t)v;
        return p + 1;
    }
    return rwf_wr16(p, (uint16_t)(v | 0x8000));
}

/* u15rb in its 2-byte form whatever the value (the form ETA reserves in place). */
static inline uint8_t *rwf_wr_u15rb2(uint8_t *p, uint16_t v)
{
    return rwf_wr16(p, (uint16_t)(v | 0x8000));
}

/* u16ob: < 0xFE in one byte, else 0xFE + u16. */
static inline uint8_t *rwf_wr_u16ob(uint8_t *p, uint16_t v)
{
    if (v < 0xFE) {
        *p = (uint8_t)v;
        return p + 1;
    }
    p[0] = 0xFE;
    return rwf_wr16(p + 1, v);
}

/* u16ob in its 3-byte form whatever the value (the form ETA reserves in place). */
static inline uint8_t *rwf_wr_u16ob3(uint8_t *p, uint16_t v)
{
    p[0] = 0xFE;
    return rwf_wr16(p + 1, v);
}

/* u30rb: 1, 2, 3 or 4 bytes, top two bits of the first byte 00/10/01/11. v < 0x40000000. */
static inline uint8_t *rwf_wr_u30rb(uint8_t *p, uint32_t v)
{
    if (v < 0x40) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000)
        return rwf_wr16(p, (uint16_t)(v | 0x8000));
    if (v < 0x400000) {
        p[0] = (uint8_t)(v >> 16 | 0x40);
        p[1] = (uint8_t)(v >> 8);
        p[2] = (uint8_t)v;
        return p + 3;
    }
    return rwf_wr32(p, v | 0xC0000000u);
}

/* i15rb: -64..63 in one byte, -16384..16383 in two bytes with 0x80 in the first. */
static inline uint8_t *rwf_wr_i15rb(uint8_t *p, int16_t v)
{
    if (v >= -64 && v < 64) {
        *p = (uint8_t)v & 0x7F;
        return p + 1;
    }
    return rwf_wr16(p, (uint16_t)(((uint16_t)v & 0x7FFF) | 0x8000));
}

static inline const uint8_t *rwf_rd_u15rb(const uint8_t *p, const uint8_t *end, uint16_t *v)
{
    if (p >= end)
        return NULL;
    if (!(p[0] & 0x80)) {
        *v = p[0];
        return p + 1;
    }
    if (end - p < 2)
        return NULL;
    *v = (uint16_t)(rwf_rd16(p) & 0x7FFF);
    return p + 2;
}

static inline const uint8_t *rwf_rd_u16ob(const uint8_t *p, const uint8_t *end, uint16_t *v)
{
    if (p >= end)
        return NULL;
    if (p[0] < 0xFE) {
        *v = p[0];
        return p + 1;
    }
    if (p[0] == 0xFF || end - p < 3) /* 0xFF is not a valid first byte */
        return NULL;
    *v = rwf_rd16(p + 1);
    return p + 3;
}

static inline const uint8_t *rwf_rd_u30rb(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
    if (p >= end)
        return NULL;
    unsigned top = p[0] >> 6; /* 00 -> 1 byte, 10 -> 2, 01 -> 3, 11 -> 4 */
    unsigned n = top == 0 ? 1 : top == 2 ? 2 : top == 1 ? 3 : 4;
    if ((size_t)(end - p) < n)
        return NULL;
    *v = (uint32_t)rwf_rdn(p, n) & (0x3FFFFFFFu >> (8 * (4 - n)));
    return p + n;
}

static inline const uint8_t *rwf_rd_i15rb(const uint8_t *p, const uint8_t *end, int16_t *v)
{
    if (p >= end)
        return NULL;
    if (!(p[0] & 0x80)) {
        int x = p[0] & 0x7F;
        *v = (int16_t)((x & 0x40) ? x - 0x80 : x);
        return p + 1;
    }
    if (end - p < 2)
        return NULL;
    int x = rwf_rd16(p) & 0x7FFF;
    *v = (int16_t)((x & 0x4000) ? x - 0x8000 : x);
    return p + 2;
}

/* ---- 2. Primitive values: length-prefixed writers ---------------------------------------- */

/* Room the writers below may use, length byte included (integer and Real writers store their
 * value with one 8-byte store, so they may touch up to this many bytes even for small values;
 * the bytes past the value are left as scratch for the next write). */
#define RWF_PUT_MAX_INT 9
#define RWF_PUT_MAX_UINT 9
#define RWF_PUT_MAX_FLOAT 5
#define RWF_PUT_MAX_DOUBLE 9
#define RWF_PUT_MAX_REAL 10
#define RWF_PUT_MAX_DATE 5
#define RWF_PUT_MAX_TIME 9
#define RWF_PUT_MAX_DATETIME 13
#define RWF_PUT_MAX_QOS 6
#define RWF_PUT_MAX_ENUM 3

/* Bytes of the minimal unsigned big-endian form of v (0 -> 1). */
static inline unsigned rwf_uint_size(uint64_t v)
{
#if defined(__GNUC__)
    return (unsigned)(64 - __builtin_clzll(v | 1) + 7) / 8;
#else
    unsigned n = 1;
    while (n < 8 && (v >> (8 * n)) != 0)
        n++;
    return n;
#endif
}

/* Bytes of the minimal two's complement big-endian form of v (0 -> 1, 128 -> 2, -1 -> 1). */
static inline unsigned rwf_int_size(int64_t v)
{
    uint64_t m = v < 0 ? ~(uint64_t)v : (uint64_t)v; /* magnitude bits without the sign */
#if defined(__GNUC__)
    return (unsigned)(64 - __builtin_clzll(m | 1) + 1 + 7) / 8;
#else
    unsigned n = 1;
    while (n < 8 && (m >> (8 * n - 1)) != 0)
        n++;
    return n;
#endif
}

/* Stores v big-endian in 8 bytes. */
static inline void rwf_wr64(uint8_t *p, uint64_t v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    rwf_wrn(p, v, 8);
#endif
}

/* Writes the low n (1..8) bytes of v big-endian as one 8-byte store: the caller provides 8
 * bytes of room at p (the bytes after the n written are scratch). */
static inline uint8_t *rwf_wrn8(uint8_t *p, uint64_t v, unsigned n)
{
    rwf_wr64(p, v << (64 - 8 * n));
    return p + n;
}

static inline uint8_t *rwf_put_uint(uint8_t *p, uint64_t v)
{
    unsigned n = rwf_uint_size(v);
    *p = (uint8_t)n;
    return rwf_wrn8(p + 1, v, n);
}

static inline uint8_t *rwf_put_int(uint8_t *p, int64_t v)
{
    unsigned n = rwf_int_size(v);
    *p = (uint8_t)n;
    return rwf_wrn8(p + 1, (uint64_t)v, n);
}

/* Blank -> 00; Inf/-Inf/NaN -> 01 hint; else len, hint, minimal mantissa. The caller has
 * checked that the hint is valid (rwf_real_valid). */
static inline uint8_t *rwf_put_real(uint8_t *p, const rwf_real *r)
{
    if (r->blank) {
        *p = 0;
        return p + 1;
    }
    if (r->hint >= RWF_RH_INFINITY) {
        p[0] = 1;
        p[1] = r->hint;
        return p + 2;
    }
    unsigned n = rwf_int_size(r->value);
    p[0] = (uint8_t)(n + 1);
    p[1] = r->hint;
    return rwf_wrn8(p + 2, (uint64_t)r->value, n);
}

static inline uint8_t *rwf_put_enum(uint8_t *p, uint16_t v)
{
    if (v <= 0xFF) {
        p[0] = 1;
        p[1] = (uint8_t)v;
        return p + 2;
    }
    p[0] = 2;
    return rwf_wr16(p + 1, v);
}

static inline uint8_t *rwf_put_date(uint8_t *p, const rwf_date *d)
{
    p[0] = 4;
    p[1] = d->day;
    p[2] = d->month;
    return rwf_wr16(p + 3, d->year);
}

/* Time bytes without a length: hh mm [ss [ms [us|ns-high [ns-low]]]] for a length of 2, 3,
 * 5, 7 or 8. */
static inline uint8_t *rwf_put_time_body(uint8_t *p, const rwf_time *t, unsigned len)
{
    p[0] = t->hour;
    p[1] = t->minute;
    if (len == 2)
        return p + 2;
    p[2] = t->second;
    if (len == 3)
        return p + 3;
    rwf_wr16(p + 3, t->millisecond);
    if (len == 5)
        return p + 5;
    if (len == 7)
        return rwf_wr16(p + 5, t->microsecond);
    rwf_wr16(p + 5, (uint16_t)(((t->nanosecond & 0xFF00) << 3) | t->microsecond));
    p[7] = (uint8_t)t->nanosecond;
    return p + 8;
}

/* Out of line: the length of a time starting 255:255 (blank, or one that would read as blank
 * in its shortest form and needs a longer one). */
unsigned rwf_time_len_blankish(const rwf_time *t, unsigned shortest);

/* The shortest time length whose dropped parts are all zero (2, 3, 5, 7 or 8). The blank
 * pattern takes 2 bytes (FF FF, read back as blank); a time that is not blank never gets a
 * form that would read back as blank. */
static inline unsigned rwf_time_len(const rwf_time *t)
{
    unsigned n = t->nanosecond ? 8 : t->microsecond ? 7 : t->millisecond ? 5 : t->second ? 3 : 2;
    if (t->hour == 255 && t->minute == 255)
        n = rwf_time_len_blankish(t, n);
    return n;
}

static inline uint8_t *rwf_put_time(uint8_t *p, const rwf_time *t)
{
    unsigned n = rwf_time_len(t);
    *p = (uint8_t)n;
    return rwf_put_time_body(p + 1, t, n);
}

static inline uint8_t *rwf_put_datetime(uint8_t *p, const rwf_datetime *dt)
{
    unsigned n = rwf_time_len(&dt->time);
    p[0] = (uint8_t)(n + 4);
    p[1] = dt->date.day;
    p[2] = dt->date.month;
    rwf_wr16(p + 3, dt->date.year);
    return rwf_put_time_body(p + 5, &dt->time, n);
}

static inline uint8_t *rwf_put_float(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    p[0] = 4;
    return rwf_wr32(p + 1, u);
}

static inline uint8_t *rwf_put_double(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    p[0] = 8;
    return rwf_wrn(p + 1, u, 8);
}

/* QoS bytes without a length (1, 3 or 5 bytes); returns the new end. */
static inline uint8_t *rwf_put_qos_body(uint8_t *p, const rwf_qos *q)
{
    *p++ = (uint8_t)(q->timeliness << 5 | q->rate << 1 | (q->dynamic & 1));
    if (q->timeliness > RWF_QOS_TIME_DELAYED_UNKNOWN)
        p = rwf_wr16(p, q->time_info);
    if (q->rate > RWF_QOS_RATE_JIT_CONFLATED)
        p = rwf_wr16(p, q->rate_info);
    return p;
}

/* QoS as a primitive: u8 length (1, 3 or 5) + body. Unspecified timeliness or rate cannot be
 * encoded: check with rwf_qos_valid first. */
static inline uint8_t *rwf_put_qos(uint8_t *p, const rwf_qos *q)
{
    uint8_t *e = rwf_put_qos_body(p + 1, q);
    *p = (uint8_t)(e - p - 1);
    return e;
}

/* State as a primitive: u15rb length (3 + textLen, + 1 if textLen > 0x80 — ETA's quirk),
 * state byte, code, text buf15. Needs 6 + text.len bytes of room; text.len <= 0x7FFB, so
 * that the length fits its u15rb (rwf_put_value checks this). */
static inline uint8_t *rwf_put_state(uint8_t *p, const rwf_state *s)
{
    uint16_t len = (uint16_t)(3 + s->text.len + (s->text.len > 0x80 ? 1 : 0));
    p = rwf_wr_u15rb(p, len);
    *p++ = (uint8_t)(s->stream_state << 3 | (s->data_state & 7));
    *p++ = s->code;
    p = rwf_wr_u15rb(p, (uint16_t)s->text.len);
    if (s->text.len)
        memcpy(p, s->text.data, s->text.len);
    return p + s->text.len;
}

/* A buffer/string value: u16ob length + bytes. len <= 0xFFFF; room len + 3. */
static inline uint8_t *rwf_put_buf(uint8_t *p, const void *data, uint16_t len)
{
    p = rwf_wr_u16ob(p, len);
    if (len)
        memcpy(p, data, len);
    return p + len;
}

/* ---- 2. Primitive values: decoders of an entry's value bytes ----------------------------- */

/* Out-of-line error path: sets err text "<type> value of <len> bytes ..." and returns
 * RWF_E_MALFORMED. */
int rwf_bad_value(const char *type, uint32_t len);

static inline int rwf_get_uint(rwf_buf v, uint64_t *out)
{
    if (v.len == 0) {
        *out = 0;
        return RWF_BLANK;
    }
    if (v.len > 8) {
        *out = 0;
        return rwf_bad_value("UINT", v.len);
    }
    *out = rwf_rdn((const uint8_t *)v.data, v.len);
    return RWF_OK;
}

static inline int rwf_get_int(rwf_buf v, int64_t *out)
{
    if (v.len == 0) {
        *out = 0;
        return RWF_BLANK;
    }
    if (v.len > 8) {
        *out = 0;
        return rwf_bad_value("INT", v.len);
    }
    *out = rwf_rdn_signed((const uint8_t *)v.data, v.len);
    return RWF_OK;
}

/* Real: 0 bytes blank; 1 byte = hint only (Inf/-Inf/NaN, anything else blank); else hint byte
 * + 1..8 mantissa bytes. A hint with 0x20 set (not Inf/NaN) is blank; hint 31/32 invalid.
 * Also decodes the REAL_4RB/REAL_8RB set forms (same layout, size bits ignored). */
static inline int rwf_get_real(rwf_buf v, rwf_real *out)
{
    const uint8_t *p = (const uint8_t *)v.data;
    out->value = 0;
    out->hint = 0;
    out->blank = 1;
    if (v.len == 0)
        return RWF_BLANK;
    if (v.len > 9)
        return rwf_bad_value("REAL", v.len);
    uint8_t f = p[0], h = f & 0x3F;
    if (h == RWF_RH_INFINITY || h == RWF_RH_NEG_INFINITY || h == RWF_RH_NOT_A_NUMBER) {
        out->hint = h;
        out->blank = 0;
        return RWF_OK;
    }
    if (v.len == 1 || (f & 0x20))
        return RWF_BLANK;
    h = f & 0x1F;
    if (h > RWF_RH_FRACTION_256)
        return rwf_bad_value("REAL (hint)", v.len);
    out->hint = h;
    out->blank = 0;
    out->value = rwf_rdn_signed(p + 1, v.len - 1);
    return RWF_OK;
}

static inline int rwf_get_enum(rwf_buf v, uint16_t *out)
{
    const uint8_t *p = (const uint8_t *)v.data;
    switch (v.len) {
    case 0:
        *out = 0;
        return RWF_BLANK;
    case 1:
        *out = p[0];
        return RWF_OK;
    case 2:
        *out = rwf_rd16(p);
        return RWF_OK;
    default:
        *out = 0;
        return rwf_bad_value("ENUM", v.len);
    }
}

/* Sets t to the blank time (255:255:255:65535:2047:2047). */
static inline void rwf_time_blank(rwf_time *t)
{
    t->hour = t->minute = t->second = 255;
    t->millisecond = 65535;
    t->microsecond = t->nanosecond = 2047;
}

/* Time bytes of length 2, 3, 5, 7 or 8 (no length prefix). Returns RWF_BLANK when the parts
 * present hold the blank pattern; the parts absent are then blank too, else 0. */
static inline int rwf_get_time_body(const uint8_t *p, unsigned len, rwf_time *t)
{
    int blank;
    t->hour = p[0];
    t->minute = p[1];
    t->second = 0;
    t->millisecond = t->microsecond = t->nanosecond = 0;
    blank = p[0] == 255 && p[1] == 255;
    if (len >= 3) {
        t->second = p[2];
        blank = blank && p[2] == 255;
    }
    if (len >= 5) {
        t->millisecond = rwf_rd16(p + 3);
        blank = blank && t->millisecond == 65535;
    }
    if (len == 7) {
        t->microsecond = rwf_rd16(p + 5);
        blank = blank && t->microsecond == 2047;
    } else if (len == 8) {
        uint16_t us = rwf_rd16(p + 5);
        t->microsecond = us & 0x07FF;
        t->nanosecond = (uint16_t)(((us & 0x3800) >> 3) + p[7]);
        blank = blank && t->microsecond == 2047 && t->nanosecond == 2047;
    }
    if (blank) {
        rwf_time_blank(t);
        return RWF_BLANK;
    }
    return RWF_OK;
}

static inline int rwf_get_time(rwf_buf v, rwf_time *out)
{
    switch (v.len) {
    case 0:
        rwf_time_blank(out);
        return RWF_BLANK;
    case 2:
    case 3:
    case 5:
    case 7:
    case 8:
        return rwf_get_time_body((const uint8_t *)v.data, v.len, out);
    default:
        rwf_time_blank(out);
        return rwf_bad_value("TIME", v.len);
    }
}

static inline int rwf_get_date(rwf_buf v, rwf_date *out)
{
    const uint8_t *p = (const uint8_t *)v.data;
    if (v.len == 0) {
        out->day = out->month = 0;
        out->year = 0;
        return RWF_BLANK;
    }
    if (v.len != 4) {
        out->day = out->month = 0;
        out->year = 0;
        return rwf_bad_value("DATE", v.len);
    }
    out->day = p[0];
    out->month = p[1];
    out->year = rwf_rd16(p + 2);
    return (p[0] | p[1] | p[2] | p[3]) ? RWF_OK : RWF_BLANK;
}

/* DateTime: 0 (blank), 6, 7, 9, 11 or 12 bytes = date + time of 2/3/5/7/8. Blank when both
 * parts are blank. */
int rwf_get_datetime(rwf_buf v, rwf_datetime *out);
int rwf_get_float(rwf_buf v, float *out);
int rwf_get_double(rwf_buf v, double *out);
/* QoS primitive body (after its u8 length). */
int rwf_get_qos(rwf_buf v, rwf_qos *out);
/* State primitive body (after its u15rb length); text is a view into v. */
int rwf_get_state(rwf_buf v, rwf_state *out);

/* Decodes the value bytes v of a primitive of the given type — standard (INT..RMTES, value
 * bytes after the length prefix) or set-defined (INT_1..TIME_8, the fixed bytes). out->type is
 * set to the base type. Returns RWF_OK, RWF_BLANK, RWF_E_MALFORMED, or RWF_E_UNSUPPORTED for a
 * container or unknown type. */
int rwf_get_value(int type, rwf_buf v, rwf_value *out);

/* Room rwf_put_value needs for v (length prefix included). */
size_t rwf_value_max_size(const rwf_value *v);

/* Writes v in its length-prefixed form; the caller provides rwf_value_max_size(v) bytes.
 * Returns the new end, or NULL (with err text) when v cannot be encoded (unspecified QoS,
 * invalid Real hint, buffer longer than 0xFFFF, not a primitive type). */
uint8_t *rwf_put_value(uint8_t *p, const rwf_value *v);

/* Fixed size in bytes of a set-defined type, 0 for REAL_4RB/REAL_8RB (size in the first
 * byte) and for standard types (length-prefixed in set data), -1 for anything else. */
int rwf_set_type_size(int type);

/* The set-defined type that holds a value of standard type `type` in exactly len bytes — the
 * form of the items of a fixed-length Array (UINT of 2 bytes: RWF_DT_UINT_2; TIME of 5 bytes:
 * RWF_DT_TIME_5) — or 0 when there is none (REAL, ENUM, the buffer types, odd lengths). */
int rwf_fixed_type(int type, unsigned len);

/* Writes v (NULL = blank) in the set-defined form of set_type into [p, end). Standard types in
 * set definitions use their length-prefixed form. Returns the new end, or NULL with err text
 * (no room: RWF_E_NOSPACE in *status; bad value: RWF_E_INVALID). */
uint8_t *rwf_put_set_value(uint8_t *p, uint8_t *end, int set_type, const rwf_value *v, int *status);

/* Validity checks used by the encoders (1 = encodable). */
static inline int rwf_real_valid(const rwf_real *r)
{
    return r->blank || r->hint <= RWF_RH_FRACTION_256 || r->hint == RWF_RH_INFINITY ||
           r->hint == RWF_RH_NEG_INFINITY || r->hint == RWF_RH_NOT_A_NUMBER;
}

static inline int rwf_qos_valid(const rwf_qos *q)
{
    return q->timeliness != RWF_QOS_TIME_UNSPECIFIED && q->rate != RWF_QOS_RATE_UNSPECIFIED &&
           q->timeliness < 8 && q->rate < 16;
}

/* ---- 3. Text conversions ----------------------------------------------------------------- */

/* Numeric text -> Real with ETA's hint rules (wire.md §4.6): decimal digits are all kept
 * ("9000.00" -> 900000 hint EXPONENT_2), integer trailing zeros fold into the exponent
 * ("1266750" -> 126675 hint EXPONENT1, up to 7 zeros), "n/d" and "w n/d" give fraction hints,
 * "Inf"/"-Inf"/"NaN" (whole words), leading spaces skipped, "" / spaces / a lone sign / "+0"
 * blank. The mantissa takes the full int64 range (INT64_MIN included); text without a digit
 * or with anything after the number but spaces is invalid. Returns RWF_OK, RWF_BLANK
 * (r->blank set) or RWF_E_INVALID with err text naming the text. */
int rwf_real_from_str(rwf_real *r, const char *s, size_t len);

/* Real -> text ("2848.560000", "39100330", "12 3/4", "Inf", "" for blank), NUL-terminated.
 * Returns the length, or RWF_E_NOSPACE when cap is too small (cap >= 32 always suffices). */
int rwf_real_to_str(const rwf_real *r, char *buf, size_t cap);

/* Real -> double (blank -> 0, Inf/NaN as IEEE). */
double rwf_real_to_double(const rwf_real *r);

/* Date text: "11/15/2005" (m/d/yyyy; yyyy/m/d when the first part > 255; 2-digit years add
 * 1900), "15 NOV 2005", "2005-11-15", "2005-11", "2005", "20051115", "--11-15", "--1115".
 * "" is blank. Returns RWF_OK, RWF_BLANK or RWF_E_INVALID (err text). */
int rwf_date_from_str(rwf_date *d, const char *s, size_t len);

/* Time text: "15:52:12:000:000:000" (hh:mm[:ss[:mmm[:uuu[:nnn]]]]), "15:52:12.123456789",
 * "155212", "1552", and the lenient form with leading spaces and ':'/space separators
 * (" 21:00:01:000"). The strict forms may end with a zone, "Z", "+hh", "+hhmm" or "+hh:mm"
 * (or '-'), which is checked and ignored; anything else after the time is invalid. "" or
 * spaces is blank. Returns RWF_OK, RWF_BLANK or RWF_E_INVALID. */
int rwf_time_from_str(rwf_time *t, const char *s, size_t len);

/* DateTime text: "<date> <time>" with the forms above, or ISO "2005-11-15T15:52:12". */
int rwf_datetime_from_str(rwf_datetime *dt, const char *s, size_t len);

/* "15 NOV 2005" (blank -> ""); "15:52:12:000:000:000" trimmed of zero sub-second groups
 * ("21:00:01"); NUL-terminated. Return the length or RWF_E_NOSPACE (cap >= 32 suffices). */
int rwf_date_to_str(const rwf_date *d, char *buf, size_t cap);
int rwf_time_to_str(const rwf_time *t, char *buf, size_t cap);

/* Decimal integers with optional sign and surrounding spaces; the whole text must be the
 * number. "" is blank. Out of range -> RWF_E_INVALID. Enum accepts 0..65535. */
int rwf_uint_from_str(uint64_t *v, const char *s, size_t len);
int rwf_int_from_str(int64_t *v, const char *s, size_t len);
int rwf_enum_from_str(uint16_t *v, const char *s, size_t len);

#endif
