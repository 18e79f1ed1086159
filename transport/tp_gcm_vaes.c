/*
 * tp_gcm_vaes: AES-GCM open and seal with VAES and VPCLMULQDQ on 256-bit registers (see
 * tp_gcm_vaes.h).
 *
 * GHASH representation. Each 16-byte block is byte-reversed when loaded, so that the
 * coefficient of x^i of the GCM field element sits at bit 127-i of the 128-bit register.
 * Read as a polynomial in y = x^-1 (bit p is y^p), such a register holds a * x^-127, and
 * the reduction modulo the reflected polynomial P*(y) = y^128 + y^127 + y^126 + y^121 + 1
 * (the 0xC2...01 constant) is a Montgomery reduction: it divides by y^128. A multiply of a
 * block by a key power stored as H^k * x^-128 (the byte-reversed H^k shifted left by one bit,
 * modulo P*) therefore gives the byte-reversed product directly, with no shift per multiply:
 *   (a x^-127)(h x^-128) x^128 = (a h) x^-127.
 * The bulk runs in steps of eight blocks (four 256-bit registers of two blocks each for the
 * counter mode), two steps per GHASH reduction: their sixteen blocks are multiplied by
 * H^16..H^1 (Karatsuba: three carry-less multiplies a block, the key powers' half XORs
 * precomputed), the 256-bit products summed and the sum reduced once. The last partial step
 * and the AAD are hashed block by block with the powers their count needs, one reduction.
 * The seal hashes its output: from the third chunk of eight blocks on, two chunks are
 * encrypted while the two before them are hashed; the last two or three chunks and the tail
 * are hashed after, as the AAD is.
 *
 * Counter blocks are kept byte-reversed too, so that the 32-bit big-endian counter is the
 * low little-endian lane and a vector add increments it (wrapping mod 2^32).
 */
#include "tp_gcm_vaes.h"

#include <string.h>

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>
#include <wmmintrin.h>

#define TGT __attribute__((target("aes,pclmul,avx2,vaes,vpclmulqdq")))
#define TGTI static inline __attribute__((always_inline, target("aes,pclmul,avx2,vaes,vpclmulqdq")))

/* 0 not yet known, 1 available, 2 not available. */
static atomic_int gcm_avail;

/* Whether the CPU and OS support everything the open needs (cpuid and XCR0). */
static int gcm_probe(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const unsigned need1 = (1u << 1) | (1u << 25) | (1u << 27) | (1u << 28); /* pclmul aes
                                                                                osxsave avx */
    if ((c & need1) != need1)
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6u) != 6u) /* XMM and YMM state saved by the OS */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & (1u << 5))) /* AVX2 */
        return 0;
    return (c & (1u << 9)) && (c & (1u << 10)); /* VAES, VPCLMULQDQ */
}

int tp_gcm_vaes_available(void)
{
    int v = atomic_load_explicit(&gcm_avail, memory_order_relaxed);
    if (v == 0) {
        v = gcm_probe() ? 1 : 2;
        atomic_store_explicit(&gcm_avail, v, memory_order_relaxed);
    }
    return v == 1;
}

/* The byte-reversal shuffle mask (one 128-bit lane). */
TGTI __m128i bswap_mask(void)
{
    return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/* The reduction constant: y^127 + y^126 + y^121 in the high half, 1 in the low half. */
TGTI __m128i gf_poly(void)
{
    return _mm_set_epi64x((long long)0xC200000000000000ull, 1);
}

/* Reduces the 256-bit product lo + mi*y^64 + hi*y^128 modulo P*, dividing by y^128. */
TGTI __m128i gf_reduce(__m128i lo, __m128i mi, __m128i hi)
{
    const __m128i p = gf_poly();
    mi = _mm_xor_si128(
        mi, _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, p, 0x10)));
    hi = _mm_xor_si128(
        hi, _mm_xor_si128(_mm_shuffle_epi32(mi, 0x4e), _mm_clmulepi64_si128(mi, p, 0x10)));
    return hi;
}

/* One multiply of a (block form) by k (key form); the result is in block form. */
TGTI __m128i gf_mul(__m128i a, __m128i k)
{
    __m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
    __m128i mi = _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x01), _mm_clmulepi64_si128(a, k, 0x10));
    return gf_reduce(lo, mi, hi);
}

/* Adds the unreduced products of the two blocks of x by the key powers of pair j (hp[2j],
 * hp[2j+1]) in Karatsuba form: lo and hi products, and the product of the halves' XORs in mid
 * (the middle term is mid ^ lo ^ hi, see ghash_finish). */
TGTI void gf_mul_acc2(const tp_gcm_vaes *g, int j, __m256i x, __m256i *lo, __m256i *mid,
                      __m256i *hi)
{
    const __m256i k = _mm256_loadu_si256((const __m256i *)g->hp[2 * j]);
    const __m256i kx = _mm256_loadu_si256((const __m256i *)g->hx[j]);
    const __m256i xx = _mm256_xor_si256(x, _mm256_shuffle_epi32(x, 0x4e));
    *lo = _mm256_xor_si256(*lo, _mm256_clmulepi64_epi128(x, k, 0x00));
    *hi = _mm256_xor_si256(*hi, _mm256_clmulepi64_epi128(x, k, 0x11));
    *mid = _mm256_xor_si256(*mid, _mm256_clmulepi64_epi128(xx, kx, 0x00));
}

/* The XOR of the two 128-bit halves. */
TGTI __m128i fold_lanes(__m256i v)
{
    return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

/* The reduced sum of the products accumulated by gf_mul_acc2. */
TGTI __m128i ghash_finish(__m256i lo, __m256i mid, __m256i hi)
{
    const __m128i l = fold_lanes(lo), h = fold_lanes(hi);
    return gf_reduce(l, _mm_xor_si128(fold_lanes(mid), _mm_xor_si128(l, h)), h);
}

/* GHASH of eight blocks given byte-reversed in x0..x3 (the running value already added to
 * the first), with the powers H^8..H^1 (pairs 4..7): the new running value. */
TGTI __m128i ghash8(const tp_gcm_vaes *g, __m256i x0, __m256i x1, __m256i x2, __m256i x3)
{
    __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
    gf_mul_acc2(g, 4, x0, &lo, &mid, &hi);
    gf_mul_acc2(g, 5, x1, &lo, &mid, &hi);
    gf_mul_acc2(g, 6, x2, &lo, &mid, &hi);
    gf_mul_acc2(g, 7, x3, &lo, &mid, &hi);
    return ghash_finish(lo, mid, hi);
}

/* Loads 32 bytes and byte-reverses each 16-byte half. */
TGTI __m256i load_rev(const uint8_t *p)
{
    const __m256i m = _mm256_broadcastsi128_si256(bswap_mask());
    return _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)p), m);
}

/* The len bytes (1 to 16) at p, zero-padded to a block, read without touching memory past
 * them and without a store to reload (two 8-byte loads when len is 8 or more). */
TGTI __m128i load_partial(const uint8_t *p, size_t len)
{
    uint64_t lo = 0, hi = 0;
    if (len >= 8) {
        memcpy(&lo, p, 8);
        if (len > 8) {
            memcpy(&hi, p + len - 8, 8);
            hi >>= 8 * (16 - len);
        }
    } else {
        for (size_t i = 0; i < len; i++)
            lo |= (uint64_t)p[i] << (8 * i);
    }
    return _mm_set_epi64x((long long)hi, (long long)lo);
}

/* GHASH of len bytes (at most 128) at p, zero-padded to whole blocks: the new running value.
 * Block i of n meets H^(n-i), read in place (the last one by load_partial when partial). */
TGT static __m128i ghash_upto128(const tp_gcm_vaes *g, __m128i x, const uint8_t *p, size_t len)
{
    const size_t nb = (len + 15) / 16, full = len / 16;
    __m128i lo = _mm_setzero_si128(), mi = lo, hi = lo;
    for (size_t i = 0; i < nb; i++) {
        __m128i b = i < full ? _mm_loadu_si128((const __m128i *)(p + 16 * i))
                             : load_partial(p + 16 * i, len % 16);
        b = _mm_shuffle_epi8(b, bswap_mask());
        if (i == 0)
            b = _mm_xor_si128(b, x);
        const __m128i k = _mm_loadu_si128((const __m128i *)g->hp[16 - nb + i]);
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(b, k, 0x00));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(b, k, 0x11));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128(b, k, 0x01));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128(b, k, 0x10));
    }
    return nb ? gf_reduce(lo, mi, hi) : x;
}

/* GHASH of len bytes at p, zero-padded to whole blocks: the new running value. Sixteen
 * blocks share a reduction while 256 bytes or more are left, then eight, then the rest. */
TGT static __m128i ghash_bytes(const tp_gcm_vaes *g, __m128i x, const uint8_t *p, size_t len)
{
    for (; len >= 256; p += 256, len -= 256) {
        __m256i lo = _mm256_setzero_si256(), mi = lo, hi = lo;
        __m256i x0 = load_rev(p);
        x0 = _mm256_xor_si256(x0, _mm256_inserti128_si256(_mm256_setzero_si256(), x, 0));
        gf_mul_acc2(g, 0, x0, &lo, &mi, &hi);
        for (int j = 1; j < 8; j++)
            gf_mul_acc2(g, j, load_rev(p + 32 * j), &lo, &mi, &hi);
        x = ghash_finish(lo, mi, hi);
    }
    for (; len >= 128; p += 128, len -= 128) {
        __m256i x0 = load_rev(p);
        x0 = _mm256_xor_si256(x0, _mm256_inserti128_si256(_mm256_setzero_si256(), x, 0));
        x = ghash8(g, x0, load_rev(p + 32), load_rev(p + 64), load_rev(p + 96));
    }
    return ghash_upto128(g, x, p, len);
}

/* AES encryption of one block. */
TGT static __m128i aes_block(const tp_gcm_vaes *g, __m128i b)
{
    b = _mm_xor_si128(b, _mm_loadu_si128((const __m128i *)g->rk[0]));
    for (int r = 1; r < g->rounds; r++)
        b = _mm_aesenc_si128(b, _mm_loadu_si128((const __m128i *)g->rk[r]));
    return _mm_aesenclast_si128(b, _mm_loadu_si128((const __m128i *)g->rk[g->rounds]));
}

/* One AES round on the four registers s0..s3 with round key r. */
#define ROUND4(r)                                                                                  \
    do {                                                                                           \
        const __m256i k_ = _mm256_loadu_si256((const __m256i *)g->rk[r]);                          \
        s0 = _mm256_aesenc_epi128(s0, k_);                                                         \
        s1 = _mm256_aesenc_epi128(s1, k_);                                                         \
        s2 = _mm256_aesenc_epi128(s2, k_);                                                         \
        s3 = _mm256_aesenc_epi128(s3, k_);                                                         \
    } while (0)

/* The counter registers for the eight blocks from c on (byte-reversed form), converted to
 * counter blocks and whitened with round key 0, in s0..s3; c advances by eight. */
#define CTR_START()                                                                                \
    do {                                                                                           \
        const __m256i bm_ = _mm256_broadcastsi128_si256(bswap_mask());                             \
        const __m256i k0_ = _mm256_loadu_si256((const __m256i *)g->rk[0]);                         \
        s0 = _mm256_xor_si256(_mm256_shuffle_epi8(c, bm_), k0_);                                   \
        s1 = _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(c, two), bm_), k0_);            \
        s2 = _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(c, four), bm_), k0_);           \
        s3 = _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(c, six), bm_), k0_);            \
        c = _mm256_add_epi32(c, eight);                                                            \
    } while (0)

/* The last rounds (from round 10 on) and the final round on s0..s3. */
#define ROUNDS_END()                                                                               \
    do {                                                                                           \
        if (g->rounds == 14) {                                                                     \
            ROUND4(10);                                                                            \
            ROUND4(11);                                                                            \
            ROUND4(12);                                                                            \
            ROUND4(13);                                                                            \
        }                                                                                          \
        const __m256i kl_ = _mm256_loadu_si256((const __m256i *)g->rk[g->rounds]);                 \
        s0 = _mm256_aesenclast_epi128(s0, kl_);                                                    \
        s1 = _mm256_aesenclast_epi128(s1, kl_);                                                    \
        s2 = _mm256_aesenclast_epi128(s2, kl_);                                                    \
        s3 = _mm256_aesenclast_epi128(s3, kl_);                                                    \
    } while (0)

/* Decrypts the 128-byte chunk at p in place with the counters from *cp (advanced by eight),
 * and adds the unreduced GHASH products of its ciphertext, x added to its first block, by the
 * key pairs j0..j0+3 to lo, mid, hi (see gf_mul_acc2); interleaved with the AES rounds. */
TGTI void open_chunk(const tp_gcm_vaes *g, __m256i *cp, uint8_t *p, int j0, __m128i x, __m256i *lo,
                     __m256i *mi, __m256i *hi)
{
    const __m256i two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2), four = _mm256_add_epi32(two, two);
    const __m256i six = _mm256_add_epi32(four, two), eight = _mm256_add_epi32(four, four);
    const __m256i bm = _mm256_broadcastsi128_si256(bswap_mask());
    __m256i c = *cp, s0, s1, s2, s3;
    CTR_START();
    *cp = c;
    const __m256i d0 = _mm256_loadu_si256((const __m256i *)p);
    const __m256i d1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    const __m256i d2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    const __m256i d3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    ROUND4(1);
    __m256i x0 = _mm256_shuffle_epi8(d0, bm);
    x0 = _mm256_xor_si256(x0, _mm256_inserti128_si256(_mm256_setzero_si256(), x, 0));
    gf_mul_acc2(g, j0, x0, lo, mi, hi);
    ROUND4(2);
    gf_mul_acc2(g, j0 + 1, _mm256_shuffle_epi8(d1, bm), lo, mi, hi);
    ROUND4(3);
    gf_mul_acc2(g, j0 + 2, _mm256_shuffle_epi8(d2, bm), lo, mi, hi);
    ROUND4(4);
    gf_mul_acc2(g, j0 + 3, _mm256_shuffle_epi8(d3, bm), lo, mi, hi);
    ROUND4(5);
    ROUND4(6);
    ROUND4(7);
    ROUND4(8);
    ROUND4(9);
    ROUNDS_END();
    _mm256_storeu_si256((__m256i *)p, _mm256_xor_si256(s0, d0));
    _mm256_storeu_si256((__m256i *)(p + 32), _mm256_xor_si256(s1, d1));
    _mm256_storeu_si256((__m256i *)(p + 64), _mm256_xor_si256(s2, d2));
    _mm256_storeu_si256((__m256i *)(p + 96), _mm256_xor_si256(s3, d3));
}

/* Hashes and decrypts n 128-byte chunks at p in place, with the counters from *ctr (advanced)
 * and the running GHASH value x: the new running value. Two chunks share one reduction (key
 * powers H^16..H^1), so that the reduction's latency, which the next step waits for, is paid
 * once per 256 bytes. */
TGT static __m128i open_chunks(const tp_gcm_vaes *g, __m256i *ctr, __m128i x, uint8_t *p, size_t n)
{
    for (; n >= 2; n -= 2, p += 256) {
        __m256i lo = _mm256_setzero_si256(), mi = lo, hi = lo;
        open_chunk(g, ctr, p, 0, x, &lo, &mi, &hi);
        open_chunk(g, ctr, p + 128, 4, _mm_setzero_si128(), &lo, &mi, &hi);
        x = ghash_finish(lo, mi, hi);
    }
    if (n) {
        __m256i lo = _mm256_setzero_si256(), mi = lo, hi = lo;
        open_chunk(g, ctr, p, 4, x, &lo, &mi, &hi);
        x = ghash_finish(lo, mi, hi);
    }
    return x;
}

/* Encrypts (or decrypts: the same) the last len bytes (1 to 127) at src into dst with the
 * counters from ctr; dst is src or does not overlap it. Full blocks are read and written in
 * place, the partial one without touching bytes past it. */
TGT static void ctr_tail(const tp_gcm_vaes *g, __m256i ctr, const uint8_t *src, uint8_t *dst,
                         size_t len)
{
    const __m256i two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2), four = _mm256_add_epi32(two, two);
    const __m256i six = _mm256_add_epi32(four, two), eight = _mm256_add_epi32(four, four);
    __m256i c = ctr, s0, s1, s2, s3;
    CTR_START();
    for (int r = 1; r < 10; r++)
        ROUND4(r);
    ROUNDS_END();
    _Alignas(32) uint8_t ks[128];
    _mm256_store_si256((__m256i *)ks, s0);
    _mm256_store_si256((__m256i *)(ks + 32), s1);
    _mm256_store_si256((__m256i *)(ks + 64), s2);
    _mm256_store_si256((__m256i *)(ks + 96), s3);
    const size_t full = len / 16;
    for (size_t i = 0; i < full; i++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(src + 16 * i));
        _mm_storeu_si128((__m128i *)(dst + 16 * i),
                         _mm_xor_si128(v, _mm_load_si128((__m128i *)(ks + 16 * i))));
    }
    if (len % 16) {
        uint8_t t[16];
        __m128i v = load_partial(src + 16 * full, len % 16);
        _mm_storeu_si128((__m128i *)t,
                         _mm_xor_si128(v, _mm_load_si128((__m128i *)(ks + 16 * full))));
        memcpy(dst + 16 * full, t, len % 16);
    }
}

/* Hashes and decrypts the last len bytes (fewer than 128) at p in place, with the counters
 * from ctr: the new running value. */
TGT static __m128i open_tail(const tp_gcm_vaes *g, __m256i ctr, __m128i x, uint8_t *p, size_t len)
{
    if (len == 0)
        return x;
    x = ghash_upto128(g, x, p, len);
    ctr_tail(g, ctr, p, p, len);
    return x;
}

/* Encrypts the 128-byte chunk at src into dst with the counters from *cp (advanced by eight).
 * When h is not NULL, adds the unreduced GHASH products of the 128 bytes of ciphertext at h
 * (an earlier chunk's output), x added to its first block, by the key pairs j0..j0+3 to lo,
 * mid, hi (see gf_mul_acc2), interleaved with the AES rounds. */
TGTI void seal_chunk(const tp_gcm_vaes *g, __m256i *cp, const uint8_t *src, uint8_t *dst,
                     const uint8_t *h, int j0, __m128i x, __m256i *lo, __m256i *mi, __m256i *hi)
{
    const __m256i two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2), four = _mm256_add_epi32(two, two);
    const __m256i six = _mm256_add_epi32(four, two), eight = _mm256_add_epi32(four, four);
    __m256i c = *cp, s0, s1, s2, s3;
    CTR_START();
    *cp = c;
    ROUND4(1);
    if (h) {
        __m256i x0 = load_rev(h);
        x0 = _mm256_xor_si256(x0, _mm256_inserti128_si256(_mm256_setzero_si256(), x, 0));
        gf_mul_acc2(g, j0, x0, lo, mi, hi);
    }
    ROUND4(2);
    if (h)
        gf_mul_acc2(g, j0 + 1, load_rev(h + 32), lo, mi, hi);
    ROUND4(3);
    if (h)
        gf_mul_acc2(g, j0 + 2, load_rev(h + 64), lo, mi, hi);
    ROUND4(4);
    if (h)
        gf_mul_acc2(g, j0 + 3, load_rev(h + 96), lo, mi, hi);
    ROUND4(5);
    ROUND4(6);
    ROUND4(7);
    ROUND4(8);
    ROUND4(9);
    ROUNDS_END();
    s0 = _mm256_xor_si256(s0, _mm256_loadu_si256((const __m256i *)src));
    s1 = _mm256_xor_si256(s1, _mm256_loadu_si256((const __m256i *)(src + 32)));
    s2 = _mm256_xor_si256(s2, _mm256_loadu_si256((const __m256i *)(src + 64)));
    s3 = _mm256_xor_si256(s3, _mm256_loadu_si256((const __m256i *)(src + 96)));
    _mm256_storeu_si256((__m256i *)dst, s0);
    _mm256_storeu_si256((__m256i *)(dst + 32), s1);
    _mm256_storeu_si256((__m256i *)(dst + 64), s2);
    _mm256_storeu_si256((__m256i *)(dst + 96), s3);
}

/* Encrypts n 128-byte chunks from src into dst with the counters from *ctr (advanced), and
 * hashes into the running value x (returned) all but the last two or three of them (none when
 * n < 4): from the third chunk on, two chunks are encrypted while the two before them are
 * hashed (key powers H^16..H^1, one reduction). *hashed receives the number of bytes hashed,
 * from dst on. */
TGT static __m128i seal_chunks(const tp_gcm_vaes *g, __m256i *ctr, __m128i x, const uint8_t *src,
                               uint8_t *dst, size_t n, size_t *hashed)
{
    __m256i lo = _mm256_setzero_si256(), mi = lo, hi = lo;
    size_t k = 0;
    for (; k < 2 && k < n; k++)
        seal_chunk(g, ctr, src + 128 * k, dst + 128 * k, NULL, 0, x, &lo, &mi, &hi);
    for (; k + 2 <= n; k += 2) {
        const size_t o = 128 * k;
        lo = mi = hi = _mm256_setzero_si256();
        seal_chunk(g, ctr, src + o, dst + o, dst + o - 256, 0, x, &lo, &mi, &hi);
        seal_chunk(g, ctr, src + o + 128, dst + o + 128, dst + o - 128, 4, _mm_setzero_si128(), &lo,
                   &mi, &hi);
        x = ghash_finish(lo, mi, hi);
    }
    if (k < n)
        seal_chunk(g, ctr, src + 128 * k, dst + 128 * k, NULL, 0, x, &lo, &mi, &hi);
    *hashed = k >= 2 ? 128 * (k - 2) : 0;
    return x;
}

/* The AES key schedule step: key XOR its shifted copies XOR the key-assist word kg. */
TGTI __m128i key_step(__m128i key, __m128i kg)
{
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    return _mm_xor_si128(key, kg);
}

/* Next AES-128 round key from k with round constant rc. */
#define K128(k, rc) key_step(k, _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k, rc), 0xff))
/* Next even AES-256 round key from k2 back and k1 back, with round constant rc. */
#define K256A(k2, k1, rc) key_step(k2, _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k1, rc), 0xff))
/* Next odd AES-256 round key from k2 back and k1 back. */
#define K256B(k2, k1) key_step(k2, _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k1, 0), 0xaa))

/* Expands an AES-128 (klen 16) or AES-256 (klen 32) key into k[0..rounds]. */
TGT static void aes_expand(__m128i *k, const uint8_t *key, size_t klen)
{
    k[0] = _mm_loadu_si128((const __m128i *)key);
    if (klen == 16) {
        k[1] = K128(k[0], 0x01), k[2] = K128(k[1], 0x02), k[3] = K128(k[2], 0x04);
        k[4] = K128(k[3], 0x08), k[5] = K128(k[4], 0x10), k[6] = K128(k[5], 0x20);
        k[7] = K128(k[6], 0x40), k[8] = K128(k[7], 0x80), k[9] = K128(k[8], 0x1b);
        k[10] = K128(k[9], 0x36);
        return;
    }
    k[1] = _mm_loadu_si128((const __m128i *)(key + 16));
    k[2] = K256A(k[0], k[1], 0x01), k[3] = K256B(k[1], k[2]);
    k[4] = K256A(k[2], k[3], 0x02), k[5] = K256B(k[3], k[4]);
    k[6] = K256A(k[4], k[5], 0x04), k[7] = K256B(k[5], k[6]);
    k[8] = K256A(k[6], k[7], 0x08), k[9] = K256B(k[7], k[8]);
    k[10] = K256A(k[8], k[9], 0x10), k[11] = K256B(k[9], k[10]);
    k[12] = K256A(k[10], k[11], 0x20), k[13] = K256B(k[11], k[12]);
    k[14] = K256A(k[12], k[13], 0x40);
}

/* Block form to key form: times y (a shift left by one bit) modulo P*. */
TGTI __m128i key_form(__m128i h)
{
    __m128i carry = _mm_slli_si128(_mm_srli_epi64(h, 63), 8);
    __m128i top = _mm_shuffle_epi32(_mm_srai_epi32(h, 31), 0xff);
    __m128i s = _mm_or_si128(_mm_slli_epi64(h, 1), carry);
    return _mm_xor_si128(s, _mm_and_si128(top, gf_poly()));
}

/* Round keys (each twice), the key powers H^16..H^1 of key and their half XORs into g. */
TGT static void gcm_init(tp_gcm_vaes *g, const uint8_t *key, size_t key_len)
{
    __m128i k[15];
    aes_expand(k, key, key_len);
    g->rounds = key_len == 16 ? 10 : 14;
    for (int r = 0; r <= g->rounds; r++) {
        _mm_storeu_si128((__m128i *)g->rk[r], k[r]);
        _mm_storeu_si128((__m128i *)(g->rk[r] + 16), k[r]);
    }
    __m128i h = key_form(_mm_shuffle_epi8(aes_block(g, _mm_setzero_si128()), bswap_mask()));
    __m128i hk = h;
    for (int i = 15; i >= 0; i--) {
        _mm_storeu_si128((__m128i *)g->hp[i], hk);
        if (i)
            hk = gf_mul(hk, h); /* key form times key form stays in key form */
    }
    for (int j = 0; j < 8; j++) {
        __m256i p = _mm256_loadu_si256((const __m256i *)g->hp[2 * j]);
        _mm256_storeu_si256((__m256i *)g->hx[j],
                            _mm256_xor_si256(p, _mm256_shuffle_epi32(p, 0x4e)));
    }
    memset(k, 0, sizeof(k));
}

int tp_gcm_vaes_init(tp_gcm_vaes *g, const uint8_t *key, size_t key_len)
{
    if (key_len != 16 && key_len != 32)
        return -1;
    memset(g, 0, sizeof(*g));
    gcm_init(g, key, key_len);
    return 0;
}

/* The first two counters (J0+1, J0+2, byte-reversed form) into *ctr, and E(K, J0), for iv. */
TGTI __m128i gcm_start(const tp_gcm_vaes *g, const uint8_t iv[12], __m256i *ctr)
{
    uint64_t iv_lo;
    uint32_t iv_hi;
    memcpy(&iv_lo, iv, 8);
    memcpy(&iv_hi, iv + 8, 4);
    /* J0 = IV || 00 00 00 01 */
    const __m128i j0 = _mm_set_epi32(0x01000000, (int)iv_hi, (int)(iv_lo >> 32), (int)iv_lo);
    const __m128i r0 = _mm_add_epi32(_mm_shuffle_epi8(j0, bswap_mask()), _mm_set_epi32(0, 0, 0, 1));
    *ctr =
        _mm256_add_epi32(_mm256_broadcastsi128_si256(r0), _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0));
    return aes_block(g, j0);
}

/* The tag: the running value x with the lengths block hashed, byte-reversed, XOR E(K, J0). */
TGTI __m128i gcm_tag(const tp_gcm_vaes *g, __m128i x, size_t aad_len, size_t len, __m128i ekj0)
{
    const __m128i lens =
        _mm_set_epi64x((long long)((uint64_t)aad_len * 8), (long long)((uint64_t)len * 8));
    x = gf_mul(_mm_xor_si128(x, lens), _mm_loadu_si128((const __m128i *)g->hp[15]));
    return _mm_xor_si128(ekj0, _mm_shuffle_epi8(x, bswap_mask()));
}

/* The whole open (see tp_gcm_vaes_open). */
TGT static int gcm_open(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad,
                        size_t aad_len, uint8_t *buf, size_t len, const uint8_t tag[16])
{
    __m256i ctr;
    const __m128i ekj0 = gcm_start(g, iv, &ctr); /* independent of the rest: started first */
    __m128i x = ghash_bytes(g, _mm_setzero_si128(), aad, aad_len);
    x = open_chunks(g, &ctr, x, buf, len / 128);
    if (len & 127)
        x = open_tail(g, ctr, x, buf + (len & ~(size_t)127), len & 127);
    __m128i t = gcm_tag(g, x, aad_len, len, ekj0);
    t = _mm_xor_si128(t, _mm_loadu_si128((const __m128i *)tag));
    return _mm_testz_si128(t, t) ? 0 : -1;
}

/* The whole seal (see tp_gcm_vaes_seal). */
TGT static void gcm_seal(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad,
                         size_t aad_len, const uint8_t *src, uint8_t *dst, size_t len,
                         uint8_t tag[16])
{
    __m256i ctr;
    const __m128i ekj0 = gcm_start(g, iv, &ctr);
    __m128i x = ghash_bytes(g, _mm_setzero_si128(), aad, aad_len);
    size_t hashed = 0;
    x = seal_chunks(g, &ctr, x, src, dst, len / 128, &hashed);
    const size_t bulk = len & ~(size_t)127;
    if (len & 127)
        ctr_tail(g, ctr, src + bulk, dst + bulk, len & 127);
    x = ghash_bytes(g, x, dst + hashed, len - hashed);
    _mm_storeu_si128((__m128i *)tag, gcm_tag(g, x, aad_len, len, ekj0));
}

int tp_gcm_vaes_open(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
                     uint8_t *buf, size_t len, const uint8_t tag[16])
{
    return gcm_open(g, iv, aad, aad_len, buf, len, tag);
}

void tp_gcm_vaes_seal(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad,
                      size_t aad_len, const uint8_t *src, uint8_t *dst, size_t len, uint8_t tag[16])
{
    gcm_seal(g, iv, aad, aad_len, src, dst, len, tag);
}

#else /* not x86-64: stubs */

int tp_gcm_vaes_available(void)
{
    return 0;
}

int tp_gcm_vaes_init(tp_gcm_vaes *g, const uint8_t *key, size_t key_len)
{
    (void)key, (void)key_len;
    memset(g, 0, sizeof(*g));
    return -1;
}

int tp_gcm_vaes_open(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
                     uint8_t *buf, size_t len, const uint8_t tag[16])
{
    (void)g, (void)iv, (void)aad, (void)aad_len, (void)buf, (void)len, (void)tag;
    return -1;
}

void tp_gcm_vaes_seal(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad,
                      size_t aad_len, const uint8_t *src, uint8_t *dst, size_t len, uint8_t tag[16])
{
    (void)g, (void)iv, (void)aad, (void)aad_len, (void)src;
    if (len)
        memset(dst, 0, len);
    memset(tag, 0, 16);
}

#endif

void tp_gcm_vaes_clear(tp_gcm_vaes *g)
{
    volatile uint8_t *p = (volatile uint8_t *)g;
    for (size_t i = 0; i < sizeof(*g); i++)
        p[i] = 0;
}
