/*
 * rwf_prim: RWF primitive values — their wire forms. This header also brings in the layers
 * below and beside it, so that including it gives the whole primitive vocabulary:
 *
 *   rwf_wire.h   views (rwf_buf), big-endian loads/stores, the length forms (u15rb, u16ob,
 *                u30rb, i15rb) and their limits
 *   rwf_value.h  value structs (rwf_real, rwf_time, rwf_qos, rwf_state, rwf_value ...)
 *   rwf_text.h   text conversions (numeric string <-> Real, dates, times, integers)
 *
 * Here: rwf_put_<type>() writes a value in its length-prefixed form (the form used in
 * field/element entries, variable arrays and map keys) and returns the new end; the caller
 * guarantees RWF_PUT_MAX_<TYPE> bytes of room. rwf_get_<type>() decodes the value bytes of an
 * entry (the bytes after the length prefix, as a view) and returns RWF_OK, RWF_BLANK (zero
 * length or the type's blank pattern; *out is then zeroed or set to the blank pattern) or
 * RWF_E_MALFORMED with err_msg() saying what is wrong. These are inline: they are the
 * per-field cost of decoding a MarketPrice update. Then the generic value codec and the
 * set-defined (fixed size) forms.
 *
 * Nothing here allocates.
 */
#ifndef RWFPERF_RWF_PRIM_H
#define RWFPERF_RWF_PRIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rwf_text.h"
#include "rwf_types.h"
#include "rwf_value.h"
#include "rwf_wire.h"

/* ---- Length-prefixed writers ------------------------------------------------------------- */

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
    *p++ = rwf_qos_byte(q);
    if (rwf_qos_has_time_info(q))
        p = rwf_wr16(p, q->time_info);
    if (rwf_qos_has_rate_info(q))
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
    *p++ = rwf_state_byte(s);
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

/* ---- Decoders of an entry's value bytes -------------------------------------------------- */

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

/* The bit of a Real's hint byte that marks it blank (unless the hint is Inf/-Inf/NaN). The
 * REAL_4RB / REAL_8RB set forms write it alone for a blank Real. */
#define RWF_REAL_HINT_BLANK 0x20

/* REAL_4RB / REAL_8RB: a hint byte whose top two bits are a size code, then a mantissa of
 * rwf_real_rb_len(is REAL_8RB, code) bytes. */
static inline unsigned rwf_real_rb_len(int eight, unsigned code)
{
    return eight ? 2 * (code + 1) : code + 1;
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
    if (v.len == 1 || (f & RWF_REAL_HINT_BLANK))
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

#endif
