/*
 * rwf_wire: views and the raw forms of RWF on the wire (docs/wire.md#lengths).
 *
 * Big-endian loads and stores, and the length encodings: u15rb, u16ob, u30rb, i15rb. Writers
 * take a pointer with enough room (the caller has checked) and return the pointer after what
 * they wrote. Readers take [p, end) and return the pointer after what they read, or NULL when
 * the encoding does not fit. The limits of each length form are defined here, once.
 *
 * Nothing here allocates. Views (rwf_buf) point into memory the caller owns.
 */
#ifndef RWFPERF_RWF_WIRE_H
#define RWFPERF_RWF_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* ---- Length forms ------------------------------------------------------------------------ */

/* u15rb: values below RWF_U15RB_LONG take one byte, the others two (0x8000 set); the largest
 * is RWF_U15RB_MAX. */
#define RWF_U15RB_LONG 0x80
#define RWF_U15RB_MAX 0x7FFF

/* u16ob: values below RWF_U16OB_LONG take one byte; the others are RWF_U16OB_LONG then a u16.
 * 0xFF is not a valid first byte. The largest is RWF_U16OB_MAX. */
#define RWF_U16OB_LONG 0xFE
#define RWF_U16OB_MAX 0xFFFF

/* u30rb: every value below RWF_U30RB_LIMIT (1 to 4 bytes). */
#define RWF_U30RB_LIMIT 0x40000000u

/* Entry counts of containers are a u16 on the wire, a FilterList's a u8. */
#define RWF_COUNT_MAX 0xFFFF
#define RWF_FILTER_COUNT_MAX 0xFF

/* ---- Loads and stores -------------------------------------------------------------------- */

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

/* The 8 bytes end - 8 .. end - 1 as one big-endian number, in one load. The caller knows
 * that all 8 are inside its buffer. */
static inline uint64_t rwf_rd64_ending(const uint8_t *end)
{
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, end - 8, 8);
    return __builtin_bswap64(w);
#else
    return rwf_rdn(end - 8, 8);
#endif
}

/* rwf_rdn for a value that sits in a buffer starting at lo (lo <= p): when the 8 bytes that
 * end at p + n are inside [lo, p + n), one 8-byte load and a shift instead of a load per
 * length; else rwf_rdn. 1 <= n <= 8. Reads nothing outside [lo, p + n). */
static inline uint64_t rwf_rdn_in(const uint8_t *lo, const uint8_t *p, unsigned n)
{
    if ((size_t)(p - lo) + n >= 8) {
        unsigned shift = 64 - 8 * n;
        return rwf_rd64_ending(p + n) << shift >> shift;
    }
    return rwf_rdn(p, n);
}

/* rwf_rdn_signed for a value in a buffer starting at lo, as rwf_rdn_in. 1 <= n <= 8. */
static inline int64_t rwf_rdn_signed_in(const uint8_t *lo, const uint8_t *p, unsigned n)
{
    unsigned shift = 64 - 8 * n;
    return (int64_t)(rwf_rdn_in(lo, p, n) << shift) >> shift;
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

/* Bytes of the minimal u15rb / u16ob form of v. */
static inline unsigned rwf_u15rb_size(uint32_t v)
{
    return v < RWF_U15RB_LONG ? 1u : 2u;
}

static inline unsigned rwf_u16ob_size(uint32_t v)
{
    return v < RWF_U16OB_LONG ? 1u : 3u;
}

/* u15rb: < 0x80 in one byte, else two bytes with 0x8000 set. v must be <= 0x7FFF. */
static inline uint8_t *rwf_wr_u15rb(uint8_t *p, uint16_t v)
{
    if (v < RWF_U15RB_LONG) {
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
    if (v < RWF_U16OB_LONG) {
        *p = (uint8_t)v;
        return p + 1;
    }
    p[0] = RWF_U16OB_LONG;
    return rwf_wr16(p + 1, v);
}

/* u16ob in its 3-byte form whatever the value (the form ETA reserves in place). */
static inline uint8_t *rwf_wr_u16ob3(uint8_t *p, uint16_t v)
{
    p[0] = RWF_U16OB_LONG;
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
    if (p[0] < RWF_U16OB_LONG) {
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
    *v = (uint32_t)rwf_rdn(p, n) & ((RWF_U30RB_LIMIT - 1) >> (8 * (4 - n)));
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

/* Map, Vector and FilterList entries start with one byte: the entry's flags in the high
 * nibble, its action in the low one. */
static inline uint8_t rwf_entry_head(unsigned flags, unsigned action)
{
    return (uint8_t)(flags << 4 | action);
}

static inline uint8_t rwf_entry_action(uint8_t head)
{
    return head & 0x0F;
}

static inline uint8_t rwf_entry_flags(uint8_t head)
{
    return head >> 4;
}

#endif
