/* ConsPerf's native JSON reading: see jdecode.h. */
#include "jdecode.h"

#include "err.h"
#include "rjs_names.h"

#include <arpa/inet.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif
#include <stdio.h>
#include <string.h>

void cons_jreader_init(cons_jreader *r, const char *text, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->lx.base = r->lx.p = text;
    r->lx.end = text + len;
    rjs_ws(&r->lx);
    r->array = r->lx.p < r->lx.end && *r->lx.p == '[';
    r->sc.base = text;
    r->sc.end = r->lx.end;
    r->sc.blk = text; /* no bits: the first search reads the first block */
}

/* An integer value (no fraction or exponent) into *v. */
static int read_int(rjs_lex *lx, const char *key, int64_t *v)
{
    const char *at = lx->p, *s;
    size_t n;
    if (rjs_kind(lx) != RJS_V_NUM)
        return rjs_lex_err(lx, at, "\"%s\" is %s, not a number", key, rjs_kind_name(rjs_kind(lx)));
    if (rjs_number(lx, &s, &n) < 0)
        return -1;
    size_t i = s[0] == '-';
    int64_t x = 0;
    if (i == n)
        return rjs_lex_err(lx, at, "\"%s\" is not an integer", key);
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (INT64_MAX - 9) / 10)
            return rjs_lex_err(lx, at, "\"%s\" is not an integer of 63 bits", key);
        x = x * 10 + (s[i] - '0');
    }
    *v = s[0] == '-' ? -x : x;
    return 0;
}

/* A string value naming an entry of table t (or, for domains, a number). */
static int read_name(rjs_lex *lx, const rjs_names *t, const char *key, int *v)
{
    const char *at = lx->p;
    if (rjs_kind(lx) == RJS_V_NUM) {
        int64_t x;
        if (read_int(lx, key, &x) < 0)
            return -1;
        *v = (int)x;
        return 0;
    }
    rjs_str s;
    if (rjs_kind(lx) != RJS_V_STR)
        return rjs_lex_err(lx, at, "\"%s\" is %s, not a string", key, rjs_kind_name(rjs_kind(lx)));
    if (rjs_string(lx, &s) < 0)
        return -1;
    *v = s.esc ? -1 : rjs_value(t, s.s, s.len);
    if (*v < 0)
        return rjs_lex_err(lx, at, "\"%s\": unknown %s \"%.*s\"", key, t->what,
                           (int)(s.len > 40 ? 40 : s.len), s.s);
    return 0;
}

static int read_state(rjs_lex *lx, rwf_state *st)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx), v;
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Stream")) {
            if (read_name(lx, &rjs_stream_states, "Stream", &v) < 0)
                return -1;
            st->stream_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Data")) {
            if (read_name(lx, &rjs_data_states, "Data", &v) < 0)
                return -1;
            st->data_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Code")) {
            if (read_name(lx, &rjs_state_codes, "Code", &v) < 0)
                return -1;
            st->code = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Text") && rjs_kind(lx) == RJS_V_STR) {
            rjs_str t;
            if (rjs_string(lx, &t) < 0)
                return -1;
            st->text = rwf_buf_make(t.s, t.len);
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

static int read_post_user(rjs_lex *lx, cons_jmsg *m)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Address") && rjs_kind(lx) == RJS_V_STR) {
            const char *at = lx->p;
            rjs_str a;
            char ip[64];
            struct in_addr in;
            if (rjs_string(lx, &a) < 0)
                return -1;
            snprintf(ip, sizeof(ip), "%.*s", (int)(a.len > 60 ? 60 : a.len), a.s);
            if (inet_pton(AF_INET, ip, &in) != 1)
                return rjs_lex_err(lx, at, "\"Address\" \"%s\" is not an IPv4 address", ip);
            m->post_user_addr = ntohl(in.s_addr);
        } else if (RJS_STR_IS(&k, "UserID")) {
            int64_t v;
            if (read_int(lx, "UserID", &v) < 0)
                return -1;
            m->post_user_id = (uint32_t)v;
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    m->has_post_user = true;
    return rc;
}

/* "TIM_TRK_n" with n in 1..3: its index, else -1. */
static inline int stamp_index(const rjs_str *k)
{
    if (k->len != 9 || k->esc || memcmp(k->s, "TIM_TRK_", 8) != 0)
        return -1;
    int i = k->s[8] - '1';
    return i >= 0 && i < 3 ? i : -1;
}

static inline const char *skip_ws(const char *p, const char *end)
{
    if (p < end && (uint8_t)*p > ' ') /* the usual text: no white space */
        return p;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static inline bool is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* The end of the JSON number at p (its grammar checked), or NULL when there is none. */
static inline const char *number_end(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p))
        return NULL;
    if (*p == '0')
        p++;
    else
        while (p < end && is_digit(*p))
            p++;
    if (p < end && *p == '.') {
        if (++p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    return p;
}

/* ---- the scan ---------------------------------------------------------------------------- */

#define BLK 64 /* bytes of a block */

/* The stop bits of the 64 bytes at p: those that end a plain string ('"', '\\', control
 * bytes). */
static inline uint64_t bits_of(const char *p)
{
    uint64_t s = 0;
#ifdef __SSE2__
    const __m128i qq = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c = _mm_set1_epi8(0x1F);
    for (int i = 0; i < BLK / 16; i++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i st = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, qq), _mm_cmpeq_epi8(a, bs)),
                                  _mm_cmpeq_epi8(_mm_max_epu8(a, c), c));
        s |= (uint64_t)(uint32_t)_mm_movemask_epi8(st) << (16 * i);
    }
#else
    for (int i = 0; i < BLK; i++) {
        uint8_t b = (uint8_t)p[i];
        s |= (uint64_t)(b == '"' || b == '\\' || b < 0x20) << i;
    }
#endif
    return s;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_BITS 1
/* bits_of with AVX2, 32 bytes at a time (the CPU must have it: __builtin_cpu_supports). */
__attribute__((target("avx2"))) static inline uint64_t bits_of_avx2(const char *p)
{
    const __m256i qq = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'),
                  c = _mm256_set1_epi8(0x1F);
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i sa =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(a, qq), _mm256_cmpeq_epi8(a, bs)),
                        _mm256_cmpeq_epi8(_mm256_max_epu8(a, c), c));
    __m256i sb =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(b, qq), _mm256_cmpeq_epi8(b, bs)),
                        _mm256_cmpeq_epi8(_mm256_max_epu8(b, c), c));
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(sa) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(sb) << 32;
}
#endif

/* 1 when the scan takes its AVX2 forms (scan_far_avx2, scan_fields_avx2): chosen once at start
 * (scan_choose), or by tests (cons_jscan_sse2); one load where the choice is made, once per
 * search or "Fields" object. */
static bool scan_wide;

/* Sets scan_wide to 1 when the CPU has AVX2 and BMI, else 0. Runs before main (and before any
 * thread reads), and again for cons_jscan_sse2. */
__attribute__((constructor)) static void scan_choose(void)
{
#ifdef HAVE_AVX2_BITS
    __builtin_cpu_init();
    scan_wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
#else
    scan_wide = false;
#endif
}

/* 1 when the scan takes its AVX2 forms, else 0 (scan_wide). */
static inline bool scan_avx2(void)
{
    return scan_wide;
}

int cons_jscan_sse2(int on)
{
    scan_choose();
    if (on)
        scan_wide = false;
    return scan_wide;
}

/* The stop bits of the 64 bytes at p: by bits_of_avx2 when avx2, else by bits_of. */
static inline __attribute__((always_inline)) uint64_t bits_by(const char *p, bool avx2)
{
#ifdef HAVE_AVX2_BITS
    if (avx2)
        return bits_of_avx2(p);
#endif
    (void)avx2;
    return bits_of(p);
}

/* The stop bits of the n bytes at p (n < 64) of a frame shorter than 64 bytes, from a copy. */
__attribute__((noinline)) static uint64_t short_bits(const char *p, size_t n)
{
    char tail[BLK];
    memset(tail, 0, sizeof(tail));
    memcpy(tail, p, n);
    return bits_of(tail);
}

/* The stop bits of the last block at[0..64) of the frame base[0..end - base) (base <= at <= end,
 * fewer than 64 bytes from at to the end), the bytes past the end counting as stop bytes: read
 * from the frame's last 64 bytes by the bits_by of avx2, or from a copy (short_bits) when the
 * frame is shorter. One form for each width of bits_by (last_bits_avx2, last_bits_sse2). */
static inline __attribute__((always_inline)) uint64_t last_bits_by(const char *base, const char *at,
                                                                   const char *end, bool avx2)
{
    size_t n = (size_t)(end - at);
    if (n == 0)
        return ~0ull;
    uint64_t past = ~0ull << n;
    if (end - base >= BLK)
        return bits_by(end - BLK, avx2) >> (BLK - n) | past;
    return short_bits(at, n) | past;
}

#ifdef HAVE_AVX2_BITS
/* last_bits_by with the AVX2 bits_by (the CPU must have AVX2). */
__attribute__((target("avx2"), noinline)) static uint64_t
last_bits_avx2(const char *base, const char *at, const char *end)
{
    return last_bits_by(base, at, end, true);
}
#endif

/* last_bits_by with the SSE2 (or plain C) bits_by. */
__attribute__((noinline)) static uint64_t last_bits_sse2(const char *base, const char *at,
                                                         const char *end)
{
    return last_bits_by(base, at, end, false);
}

/* The stop bits of the block at[0..64) of the frame base[0..end - base) (base <= at <= end).
 * The bytes past the end count as stop bytes, so that every search ends by the end (the last
 * block's bits by last_bits_by, in the form of avx2). */
static inline __attribute__((always_inline)) uint64_t block_bits(const char *base, const char *at,
                                                                 const char *end, bool avx2)
{
    if (__builtin_expect((size_t)(end - at) >= BLK, 1))
        return bits_by(at, avx2);
#ifdef HAVE_AVX2_BITS
    if (avx2)
        return last_bits_avx2(base, at, end);
#endif
    return last_bits_sse2(base, at, end);
}

/* A block of the scan and its stop bits, as scan_far returns them (in two registers). */
typedef struct scan_blk {
    const char *blk;
    uint64_t stop;
} scan_blk;

/* The block, from p on, that holds the first stop byte at or after p (p <= end) of the frame
 * base[0..end - base): the blocks at p, p + 64, ... until one has a stop bit (the last one has,
 * for the bytes past the end). One form for each width of bits_by, the widest the CPU has
 * chosen by scan_far. */
static inline __attribute__((always_inline)) scan_blk scan_far_by(const char *base, const char *p,
                                                                  const char *end, bool avx2)
{
    scan_blk b = {p, block_bits(base, p, end, avx2)};
    while (!b.stop) {
        b.blk += BLK;
        b.stop = block_bits(base, b.blk, end, avx2);
    }
    return b;
}

#ifdef HAVE_AVX2_BITS
/* scan_far_by with the AVX2 bits_by (the CPU must have AVX2). */
__attribute__((target("avx2"), noinline)) static scan_blk
scan_far_avx2(const char *base, const char *p, const char *end)
{
    return scan_far_by(base, p, end, true);
}
#endif

/* scan_far_by with the SSE2 (or plain C) bits_by. */
__attribute__((noinline)) static scan_blk scan_far_sse2(const char *base, const char *p,
                                                        const char *end)
{
    return scan_far_by(base, p, end, false);
}

/* scan_far_by with the widest bits_by the scan takes (scan_avx2): see there. */
static inline __attribute__((always_inline)) scan_blk scan_far(const char *base, const char *p,
                                                               const char *end)
{
#ifdef HAVE_AVX2_BITS
    if (scan_avx2())
        return scan_far_avx2(base, p, end);
#endif
    return scan_far_sse2(base, p, end);
}

/* The first stop byte at or after p (blk <= p <= end) from the block blk[0..64) and its bits
 * *stop, which move on (scan_far) when the block holds none from p on. */
static inline __attribute__((always_inline)) const char *
find_stop(const char *base, const char *end, const char **blk, uint64_t *stop, const char *p)
{
    size_t rel = (size_t)(p - *blk);
    uint64_t m;
    if (__builtin_expect(rel < BLK, 1) && __builtin_expect((m = *stop >> rel) != 0, 1))
        return p + __builtin_ctzll(m);
    scan_blk b = scan_far(base, p, end);
    *blk = b.blk;
    *stop = b.stop;
    return b.blk + __builtin_ctzll(b.stop);
}

/* find_stop with the next blocks' bits computed in line (scan_far_by), by the bits_by of avx2:
 * for the loops that hold the block and its bits in locals (scan_fields_by). */
static inline __attribute__((always_inline)) const char *
find_stop_by(const char *base, const char *end, const char **blk, uint64_t *stop, const char *p,
             bool avx2)
{
    size_t rel = (size_t)(p - *blk);
    uint64_t m;
    if (__builtin_expect(rel < BLK, 1) && __builtin_expect((m = *stop >> rel) != 0, 1))
        return p + __builtin_ctzll(m);
    scan_blk b = scan_far_by(base, p, end, avx2);
    *blk = b.blk;
    *stop = b.stop;
    return b.blk + __builtin_ctzll(b.stop);
}

/* The first byte at or after p (p <= end) that ends a plain string, from the blocks' bits; end
 * at the latest. */
static inline __attribute__((always_inline)) const char *scan_next(cons_jscan *s, const char *p)
{
    return find_stop(s->base, s->end, &s->blk, &s->stop, p);
}

/* The closing quote of the string whose contents start at p, or NULL when a backslash or a
 * control byte comes first or the frame ends (the full reader then reads it). */
static inline __attribute__((always_inline)) const char *str_close(cons_jscan *s, const char *p)
{
    const char *q = scan_next(s, p);
    return q < s->end && *q == '"' ? q : NULL;
}

#ifdef __SSE2__
/* The constants of num_close16_k: '0', 9 and '.' in every byte. */
typedef struct num16_k {
    __m128i zero, nine, point;
} num16_k;
#else
typedef char num16_k;
#endif

/* num16_k's constants (a loop holds them in registers: scan_fields_by). */
static inline num16_k num16_consts(void)
{
#ifdef __SSE2__
    return (num16_k){_mm_set1_epi8('0'), _mm_set1_epi8(9), _mm_set1_epi8('.')};
#else
    return 0;
#endif
}

/* The end of the JSON number at v (*v a digit, v + 16 <= end), its grammar checked, or NULL
 * when there is none: an integer or a decimal fraction of fewer than 16 bytes (the usual form)
 * is checked from the bits of the 16 bytes at v at once, its digits and its point (by the
 * constants k); anything else (an exponent, a longer number) by number_end. */
static inline __attribute__((always_inline)) const char *
num_close16_k(const char *v, const char *end, const num16_k *k)
{
#ifdef __SSE2__
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)v);
    __m128i t = _mm_sub_epi8(a, k->zero);
    unsigned d = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, k->nine), t));
    unsigned pt = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, k->point));
    unsigned len = (unsigned)__builtin_ctz(~(d | pt)); /* at most 16 */
    if (__builtin_expect(len < 16, 1)) {
        const char *e = v + len;
        pt &= (1u << len) - 1;
        /* one point at most, a digit after it; no leading zero */
        if (pt && ((pt & (pt - 1)) || !(d & (pt << 1))))
            return NULL;
        if (*v == '0' && len > 1 && pt != 2)
            return NULL;
        return (*e | 0x20) == 'e' ? number_end(v, end) : e;
    }
#else
    (void)k;
#endif
    return number_end(v, end);
}

/* num_close16_k with its constants made in place. */
static inline __attribute__((always_inline)) const char *num_close16(const char *v, const char *end)
{
    num16_k k = num16_consts();
    return num_close16_k(v, end, &k);
}

/* The end of the JSON number at v (v < end), its grammar checked, or NULL when there is none:
 * num_close16 where it can, number_end otherwise ('-', the frame's last 16 bytes). */
static inline __attribute__((always_inline)) const char *num_close(const char *v, const char *end)
{
    if (is_digit(*v) && end - v >= 16)
        return num_close16(v, end);
    return number_end(v, end);
}

/* 1 when c may be white space (a byte up to ' ': white space, or a control byte, which the
 * caller's skip_ws then refuses to skip): one comparison on the usual text, which has none. */
static inline bool maybe_ws(char c)
{
    return (uint8_t)c <= ' ';
}

/* Past the byte c at p, white space before it allowed, and past the white space after it; NULL
 * when another byte comes. */
static inline const char *past(const char *p, const char *end, char c)
{
    if (p >= end || *p != c) {
        p = skip_ws(p, end);
        if (p >= end || *p != c)
            return NULL;
    }
    p++;
    return p < end && maybe_ws(*p) ? skip_ws(p, end) : p;
}

/* After a member's value (p): 1 with *pp at the next member's key, 0 with *pp past the '}' that
 * ends the object, -1 when something else comes. */
static inline int member_next(const char **pp, const char *end)
{
    const char *p = *pp;
    if (p < end && *p == ',') {
        p++;
    } else {
        p = skip_ws(p, end);
        if (p < end && *p == '}') {
            *pp = p + 1;
            return 0;
        }
        if (p >= end || *p != ',')
            return -1;
        p++;
    }
    *pp = p < end && maybe_ws(*p) ? skip_ws(p, end) : p;
    return 1;
}

/* 1 when the two bytes at p are a and b (p[0..2) inside the frame). */
static inline bool two_are(const char *p, char a, char b)
{
    uint16_t x;
    memcpy(&x, p, 2);
    return x == (uint16_t)((uint8_t)a | (uint8_t)b << 8);
}

/* The value of a member of a "Fields" object at v (v < end), its key key[0..n): a number, a
 * string without escapes, or null, into *sum (the length of its text), *blank (null) and the
 * stamps (a TIM_TRK_n's number while no blank was seen). Returns the end of the value, or NULL
 * for anything else. */
static inline __attribute__((always_inline)) const char *field_value(cons_jscan *s, const char *key,
                                                                     size_t n, const char *v,
                                                                     size_t *sum, bool *blank,
                                                                     payload_stamps *st)
{
    const char *e;
    if (*v == '"') {
        if (!(e = str_close(s, v + 1)))
            return NULL;
        *sum += (size_t)(e - v - 1);
        return e + 1;
    }
    if (*v == 'n') {
        if (s->end - v < 4 || memcmp(v, "null", 4) != 0)
            return NULL;
        *blank = true;
        return v + 4;
    }
    if (!(e = num_close(v, s->end)))
        return NULL;
    *sum += (size_t)(e - v);
    if (n == 9 && !*blank && memcmp(key, "TIM_TRK_", 8) == 0 && (unsigned)(key[8] - '1') < 3) {
        uint64_t x = 0;
        for (const char *d = v; d < e && is_digit(*d); d++)
            x = x * 10 + (uint64_t)(*d - '0');
        st->t[key[8] - '1'] = x;
    }
    return e;
}

/* The walk of scan_fields_by's first loop: *m holds the stop bits of the block *blk[0..64)
 * (*stop) after the last stop byte passed. When all are passed, the block becomes the next one
 * with a stop byte (scan_far_by): *blk + 64 <= end then, as the bits of the bytes past the end
 * are never passed. */
static inline __attribute__((always_inline)) void walk_blk(const char *base, const char *end,
                                                           const char **blk, uint64_t *stop,
                                                           uint64_t *m, bool avx2)
{
    if (__builtin_expect(!*m, 0)) {
        scan_blk b = scan_far_by(base, *blk + BLK, end, avx2);
        *blk = b.blk;
        *m = *stop = b.stop;
    }
}

/* Passes the next stop byte, which the caller knows (a quote it has seen). */
static inline __attribute__((always_inline)) void walk_pass(const char *base, const char *end,
                                                            const char **blk, uint64_t *stop,
                                                            uint64_t *m, bool avx2)
{
    walk_blk(base, end, blk, stop, m, avx2);
    *m &= *m - 1;
}

/* The next stop byte (end at the latest), passed. */
static inline __attribute__((always_inline)) const char *walk_next(const char *base,
                                                                   const char *end,
                                                                   const char **blk, uint64_t *stop,
                                                                   uint64_t *m, bool avx2)
{
    walk_blk(base, end, blk, stop, m, avx2);
    const char *q = *blk + __builtin_ctzll(*m);
    *m &= *m - 1;
    return q;
}

/* The scan of a "Fields" object at p ('{'), what read_fields does for the usual text: keys
 * without escapes, values that are numbers, strings without escapes, or null, no syntax error.
 * Returns the end of the object and updates *st and *blank; NULL when the object holds anything
 * else (then *st and *blank may have changed: the caller reads it again from the start with
 * the full reader, which says what is wrong). The usual text, "KEY":VALUE members joined by ','
 * without white space and more than 20 bytes before the end of the frame, is read by the first
 * loop, its place in locals (in registers), each separator tested by one comparison of two
 * bytes, the next blocks' bits computed in line by the bits_by of avx2 (scan_fields chooses);
 * the rest by the second loop, which allows white space (*sp is updated at the end). */
static inline __attribute__((always_inline)) const char *
scan_fields_by(cons_jscan *sp, const char *p, payload_stamps *st, bool *blank, bool avx2)
{
    cons_jscan s = *sp;
    const char *end = s.end, *base = s.base, *ret = NULL;
    const char *blk = s.blk, *key, *ke, *v, *e;
    /* before near: 20 bytes to read without a test; in a frame shorter than 20 bytes, none
     * (near at its start, where end - 20 would point before it) */
    const char *near = end - base >= 20 ? end - 20 : base;
    uint64_t stop = s.stop, m = 0;
    size_t sum = st->sum;
    bool b = *blank;
    num16_k k = num16_consts();
#ifdef __SSE2__
    /* held in registers: not made again for each number */
    __asm__("" : "+x"(k.zero), "+x"(k.nine), "+x"(k.point));
#endif
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        ret = p + 1;
        goto out;
    }
    if (p >= end || *p != '"')
        goto out;
    key = p + 1;
    ke = find_stop_by(base, end, &blk, &stop, key, avx2);
    m = stop & (~1ull << (ke - blk)); /* the stop bytes after ke */
    for (;;) { /* ke: the first stop byte after the opening quote of a member's key */
        if (__builtin_expect(ke >= near, 0) || !two_are(ke, '"', ':'))
            break; /* white space, an escape, the frame's last bytes */
        v = ke + 2;
        if (*v == '"') {
            walk_pass(base, end, &blk, &stop, &m, avx2); /* v */
            e = walk_next(base, end, &blk, &stop, &m, avx2);
            if (__builtin_expect(e >= near, 0)) {
                blk = ke; /* the second loop reads the value: no bits */
                stop = 0;
                break;
            }
            if (*e != '"')
                goto out_blk;
            sum += (size_t)(e - v - 1);
            e++;
        } else if (is_digit(*v)) { /* v + 16 < end */
            if (!(e = num_close16_k(v, end, &k)))
                goto out_blk;
            if (__builtin_expect(e >= near, 0))
                break; /* a long number (number_end) near the end: the second loop reads it */
            sum += (size_t)(e - v);
            if (ke - key == 9 && !b && memcmp(key, "TIM_TRK_", 8) == 0 &&
                (unsigned)(key[8] - '1') < 3) {
                uint64_t x = 0;
                for (const char *d = v; d < e && is_digit(*d); d++)
                    x = x * 10 + (uint64_t)(*d - '0');
                st->t[key[8] - '1'] = x;
            }
        } else if (two_are(v, 'n', 'u') && two_are(v + 2, 'l', 'l')) {
            b = true;
            e = v + 4;
        } else {
            break; /* '-', white space, anything else */
        }
        if (!two_are(e, ',', '"')) {
            s.blk = blk;
            s.stop = stop;
            if (*e == '}') {
                ret = e + 1;
                goto out;
            }
            p = e;
            goto next;
        }
        walk_pass(base, end, &blk, &stop, &m, avx2); /* e + 1 */
        key = e + 2;
        ke = walk_next(base, end, &blk, &stop, &m, avx2);
    }
    s.blk = blk;
    s.stop = stop;
    if (ke >= end || *ke != '"')
        goto out;
    for (;;) { /* ke: the closing quote of a member's key */
        if (!(v = past(ke + 1, end, ':')) || v >= end ||
            !(p = field_value(&s, key, (size_t)(ke - key), v, &sum, &b, st)))
            goto out;
    next:;
        int rc = member_next(&p, end);
        if (rc <= 0) {
            ret = rc == 0 ? p : NULL;
            break;
        }
        if (p >= end || *p != '"')
            goto out;
        key = p + 1;
        if (!(ke = str_close(&s, key)))
            goto out;
    }
    goto out;
out_blk:
    s.blk = blk;
    s.stop = stop;
out:
    *sp = s;
    st->sum = sum;
    *blank = b;
    return ret;
}

#ifdef HAVE_AVX2_BITS
/* scan_fields_by with the AVX2 bits_by (the CPU must have AVX2 and BMI). */
__attribute__((target("avx2,bmi"), noinline)) static const char *
scan_fields_avx2(cons_jscan *sp, const char *p, payload_stamps *st, bool *blank)
{
    return scan_fields_by(sp, p, st, blank, true);
}
#endif

/* scan_fields_by with the SSE2 (or plain C) bits_by. */
__attribute__((noinline)) static const char *scan_fields_sse2(cons_jscan *sp, const char *p,
                                                              payload_stamps *st, bool *blank)
{
    return scan_fields_by(sp, p, st, blank, false);
}

/* scan_fields_by with the widest bits_by the scan takes (scan_avx2): see there. */
static inline const char *scan_fields(cons_jscan *sp, const char *p, payload_stamps *st,
                                      bool *blank)
{
#ifdef HAVE_AVX2_BITS
    if (scan_avx2())
        return scan_fields_avx2(sp, p, st, blank);
#endif
    return scan_fields_sse2(sp, p, st, blank);
}

/* The members of a "Fields" object: numbers and strings are values, null a blank; stamps are
 * taken while no blank was seen. */
static int read_fields(cons_jreader *r, cons_jmsg *m, bool *blank)
{
    rjs_lex *lx = &r->lx;
    payload_stamps st = m->st;
    bool b = *blank;
    const char *e = r->full ? NULL : scan_fields(&r->sc, lx->p, &st, &b);
    if (e) {
        m->st = st;
        *blank = b;
        lx->p = e;
        return 0;
    }
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        const char *at = lx->p, *s;
        size_t n;
        switch (rjs_kind(lx)) {
        case RJS_V_NUM: {
            if (rjs_number(lx, &s, &n) < 0)
                return -1;
            m->st.sum += n;
            int i = stamp_index(&k);
            if (i >= 0 && !*blank) {
                uint64_t v = 0;
                for (size_t j = 0; j < n && s[j] >= '0' && s[j] <= '9'; j++)
                    v = v * 10 + (uint64_t)(s[j] - '0');
                m->st.t[i] = v;
            }
            break;
        }
        case RJS_V_STR: {
            rjs_str v;
            if (rjs_string(lx, &v) < 0)
                return -1;
            m->st.sum += v.len;
            break;
        }
        case RJS_V_NULL:
            if (rjs_literal(lx, RJS_V_NULL) < 0)
                return -1;
            *blank = true;
            break;
        default:
            return rjs_lex_err(lx, at, "Unhandled JSON data type (%s) in JSON field %.*s",
                               rjs_kind_name(rjs_kind(lx)), (int)(k.len > 60 ? 60 : k.len), k.s);
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

/* A MarketByOrder "Map": the stamps are in its "Summary" "Fields". */
static int read_map(cons_jreader *r, cons_jmsg *m, bool *blank)
{
    rjs_lex *lx = &r->lx;
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Summary") && rjs_kind(lx) == RJS_V_OBJ) {
            rjs_str k2;
            int r2 = rjs_obj_begin(lx);
            while (r2 > 0) {
                if (rjs_obj_key(lx, &k2) < 0)
                    return -1;
                if (RJS_STR_IS(&k2, "Fields") && rjs_kind(lx) == RJS_V_OBJ) {
                    if (read_fields(r, m, blank) < 0)
                        return -1;
                } else if (rjs_skip(lx) < 0) {
                    return -1;
                }
                r2 = rjs_obj_next(lx);
            }
            if (r2 < 0)
                return -1;
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

/* The "Type" value: a message class, or Ping, Pong, Error. */
static int read_type(rjs_lex *lx, cons_jmsg *m)
{
    const char *at = lx->p;
    rjs_str s;
    if (rjs_kind(lx) != RJS_V_STR)
        return rjs_lex_err(lx, at, "\"Type\" is %s, not a string", rjs_kind_name(rjs_kind(lx)));
    if (rjs_string(lx, &s) < 0)
        return -1;
    if (RJS_STR_IS(&s, "Ping"))
        m->kind = CONS_JMSG_PING;
    else if (RJS_STR_IS(&s, "Pong"))
        m->kind = CONS_JMSG_PONG;
    else if (RJS_STR_IS(&s, "Error"))
        m->kind = CONS_JMSG_ERROR;
    else if ((m->kind = s.esc ? -1 : rjs_value(&rjs_msg_classes, s.s, s.len)) < 0)
        return rjs_lex_err(lx, at, "\"Type\": unknown message type \"%.*s\"",
                           (int)(s.len > 40 ? 40 : s.len), s.s);
    return 0;
}

/* One member of a message object. */
static int read_member(cons_jreader *r, const rjs_str *k, cons_jmsg *m, bool *blank)
{
    rjs_lex *lx = &r->lx;
    int64_t v;
    int d;
    if (RJS_STR_IS(k, "ID")) {
        if (read_int(lx, "ID", &v) < 0)
            return -1;
        m->stream_id = (int32_t)v;
    } else if (RJS_STR_IS(k, "Type")) {
        return read_type(lx, m);
    } else if (RJS_STR_IS(k, "Domain")) {
        if (read_name(lx, &rjs_domains, "Domain", &d) < 0)
            return -1;
        m->domain = (uint8_t)d;
    } else if (RJS_STR_IS(k, "State") && rjs_kind(lx) == RJS_V_OBJ) {
        m->has_state = true;
        return read_state(lx, &m->state);
    } else if (RJS_STR_IS(k, "Complete")) {
        int kind = rjs_kind(lx);
        if (kind != RJS_V_TRUE && kind != RJS_V_FALSE)
            return rjs_lex_err(lx, lx->p, "\"Complete\" is %s, not a boolean", rjs_kind_name(kind));
        m->complete = kind == RJS_V_TRUE;
        return rjs_literal(lx, kind);
    } else if (RJS_STR_IS(k, "Fields") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_fields(r, m, blank);
    } else if (RJS_STR_IS(k, "Map") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_map(r, m, blank);
    } else if (RJS_STR_IS(k, "PostUserInfo") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_post_user(lx, m);
    } else {
        return rjs_skip(lx);
    }
    return 0;
}

/* 1 when the key k[0..n) is the literal lit. */
#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* The scan of the value of "ID" at v (v < end): an integer of at most 18 digits into
 * m->stream_id. Returns the end of the value, or NULL for anything else (the full reader). */
static inline __attribute__((always_inline)) const char *scan_id(const char *v, const char *end,
                                                                 cons_jmsg *m)
{
    const char *d = v + (*v == '-'), *e = d;
    uint64_t x = 0;
    while (e < end && is_digit(*e) && e - d < 18)
        x = x * 10 + (uint64_t)(*e++ - '0');
    if (e == d || (*d == '0' && e - d > 1) ||
        (e < end && (is_digit(*e) || *e == '.' || *e == 'e' || *e == 'E')))
        return NULL;
    m->stream_id = (int32_t)(*v == '-' ? -(int64_t)x : (int64_t)x);
    return e;
}

/* The scan of the value of member k[0..n) at v (v < end, after the ':' and white space) of a
 * message: "ID" (an integer of at most 18 digits), "Type" (a message class), "Domain" (a
 * name), "Fields" (scan_fields), and the members read_member skips whose value is a string
 * without escapes, a number or a literal. Returns the end of the value, or NULL for anything
 * else (the members read_member reads otherwise, pings, errors, unusual text). */
static inline const char *scan_member(cons_jscan *s, const char *k, size_t n, const char *v,
                                      cons_jmsg *m, bool *blank)
{
    const char *end = s->end;
    if (KEY_IS(k, n, "Fields"))
        return *v == '{' ? scan_fields(s, v, &m->st, blank) : NULL;
    if (KEY_IS(k, n, "ID"))
        return scan_id(v, end, m);
    bool type = KEY_IS(k, n, "Type"), domain = !type && KEY_IS(k, n, "Domain");
    if (type || domain) {
        const char *e = *v == '"' ? str_close(s, v + 1) : NULL;
        if (!e)
            return NULL;
        size_t len = (size_t)(e - v - 1);
        int x = type && KEY_IS(v + 1, len, "Update")
                    ? RWF_MC_UPDATE
                    : rjs_value(type ? &rjs_msg_classes : &rjs_domains, v + 1, len);
        if (x < 0)
            return NULL; /* pings, errors, unknown names: the full reader */
        if (type)
            m->kind = x;
        else
            m->domain = (uint8_t)x;
        return e + 1;
    }
    if (KEY_IS(k, n, "State") || KEY_IS(k, n, "Complete") || KEY_IS(k, n, "Map") ||
        KEY_IS(k, n, "PostUserInfo"))
        return NULL;
    if (*v == '"') {
        const char *e = str_close(s, v + 1);
        return e ? e + 1 : NULL;
    }
    if (*v == 't' || *v == 'f' || *v == 'n') {
        const char *lit = *v == 't' ? "true" : *v == 'f' ? "false" : "null";
        size_t ln = strlen(lit);
        return (size_t)(end - v) >= ln && memcmp(v, lit, ln) == 0 ? v + ln : NULL;
    }
    return num_close(v, end);
}

/* 1 when the n bytes at p (16 <= n <= 32) are those of lit. */
static inline bool same_bytes(const char *p, const char *lit, size_t n)
{
#ifdef __SSE2__
    __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                               _mm_loadu_si128((const __m128i *)(const void *)lit));
    __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)),
                               _mm_loadu_si128((const __m128i *)(const void *)(lit + n - 16)));
    return _mm_movemask_epi8(_mm_and_si128(a, b)) == 0xFFFF;
#else
    return memcmp(p, lit, n) == 0;
#endif
}

/* The first stop byte (bits_of) of the 16 bytes at p: its offset, or 16 when there is none. */
static inline unsigned stop16(const char *p)
{
#ifdef __SSE2__
    const __m128i c = _mm_set1_epi8(0x1F);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i st = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('"')), _mm_cmpeq_epi8(a, _mm_set1_epi8('\\'))),
        _mm_cmpeq_epi8(_mm_max_epu8(a, c), c));
    return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(st) | 0x10000u);
#else
    unsigned i = 0;
    while (i < 16 && p[i] != '"' && p[i] != '\\' && (uint8_t)p[i] >= 0x20)
        i++;
    return i;
#endif
}

/* The usual head of an update, `"ID":N,"Type":"Update","UpdateType":"NAME","Fields":{` at p
 * (the byte after the message's '{', p < end), N what scan_id takes and NAME a string of fewer
 * than 16 bytes without escapes, read as scan_object and scan_member read it (N into
 * m->stream_id, the class Update into m->kind, NAME passed) without the blocks' bits: returns
 * the '{' of "Fields", or NULL when the text differs (scan_object then reads it member by member;
 * m->stream_id may have changed, and is read again). */
static inline const char *scan_head(const char *p, const char *end, cons_jmsg *m)
{
    static const char mid[32] = ",\"Type\":\"Update\",\"UpdateType\":\"";
    const char *e, *q;
    unsigned i;
    if (end - p < 8 || memcmp(p, "\"ID\":", 5) != 0 || !(e = scan_id(p + 5, end, m)) ||
        end - e < 64 || !same_bytes(e, mid, sizeof(mid) - 1))
        return NULL;
    q = e + sizeof(mid) - 1;
    if ((i = stop16(q)) == 16 || q[i] != '"' || memcmp(q + i + 1, ",\"Fields\":{", 11) != 0)
        return NULL;
    m->kind = RWF_MC_UPDATE;
    return q + i + 11;
}

/* The scan of a message object at p ('{'): its members by scan_member. Returns the end of the
 * object, or NULL when the full reader must read it (*m may have changed). */
static const char *scan_object(cons_jscan *sp, const char *p, cons_jmsg *m)
{
    cons_jscan s = *sp;
    const char *end = s.end, *ret = NULL;
    bool blank = false;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        ret = p + 1;
        goto out;
    }
    const char *fields = scan_head(p, end, m);
    if (fields) { /* the usual head, then "Fields" */
        if (!(p = scan_fields(&s, fields, &m->st, &blank)))
            goto out;
        goto member_end;
    }
    for (;;) {
        if (p >= end || *p != '"')
            goto out;
        const char *key = p + 1, *ke = scan_next(&s, key), *v;
        if (end - ke > 3 && two_are(ke, '"', ':') && !maybe_ws(ke[2])) /* "KEY":VALUE */
            v = ke + 2;
        else if (ke >= end || *ke != '"' || !(v = past(ke + 1, end, ':')) || v >= end)
            goto out;
        if (!(p = scan_member(&s, key, (size_t)(ke - key), v, m, &blank)))
            goto out;
    member_end:
        if (end - p > 2 && two_are(p, ',', '"')) { /* ,"KEY" next */
            p++;
            continue;
        }
        int rc = member_next(&p, end);
        if (rc <= 0) {
            ret = rc == 0 ? p : NULL;
            break;
        }
    }
out:
    *sp = s;
    return ret;
}

/* A message's defaults: a MarketPrice request, complete. */
static void msg_defaults(cons_jmsg *m)
{
    *m = (cons_jmsg){.kind = RWF_MC_REQUEST, .domain = RWF_DMT_MARKET_PRICE, .complete = true};
}

static int read_object(cons_jreader *r, cons_jmsg *m)
{
    rjs_lex *lx = &r->lx;
    msg_defaults(m);
    int kind = !r->full && lx->p < lx->end && *lx->p == '{' ? RJS_V_OBJ : rjs_kind(lx);
    if (kind != RJS_V_OBJ)
        return rjs_lex_err(lx, lx->p, "the message is %s, not an object", rjs_kind_name(kind));
    m->text = lx->p;
    const char *e = r->full ? NULL : scan_object(&r->sc, lx->p, m);
    if (e) {
        lx->p = e;
        m->text_len = (size_t)(e - m->text);
        r->scanned++;
        return 0;
    }
    msg_defaults(m); /* the full path reads it again */
    m->text = lx->p;
    bool blank = false;
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0 || read_member(r, &k, m, &blank) < 0)
            return -1;
        rc = rjs_obj_next(lx);
    }
    if (rc < 0)
        return -1;
    m->text_len = (size_t)(lx->p - m->text);
    return 0;
}

int cons_jreader_next(cons_jreader *r, cons_jmsg *m)
{
    if (r->done)
        return 0;
    rjs_lex *lx = &r->lx;
    const char *p = lx->p;
    int rc = 1;
    if (r->array) {
        /* "[{" and ",{" (the next message), "]": what rjs_arr_begin and rjs_arr_next do */
        if (!r->full && lx->end - p > 1 && p[0] == (r->index == 0 ? '[' : ',') && p[1] == '{')
            lx->p = p + 1;
        else if (!r->full && r->index > 0 && p < lx->end && p[0] == ']')
            lx->p = p + 1, rc = 0;
        else
            rc = r->index == 0 ? rjs_arr_begin(lx) : rjs_arr_next(lx);
    } else if (r->index > 0) {
        rc = 0;
    }
    if (rc == 0) {
        r->done = true;
        rjs_ws(lx);
        if (lx->p != lx->end) {
            rjs_lex_err(lx, lx->p, "text after the end of the frame's JSON");
            goto fail;
        }
        return 0;
    }
    if (rc < 0 || read_object(r, m) < 0)
        goto fail;
    r->index++;
    if (r->array && !r->full && lx->end - lx->p == 1 && *lx->p == ']') {
        /* the frame's last message: what the next call finds ("]" and the end), found now */
        lx->p = lx->end;
        r->done = true;
    }
    return 1;
fail:
    r->done = true;
    err_push("JSON message %u", r->index + 1);
    return -1;
}
