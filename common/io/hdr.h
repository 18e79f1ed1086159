/*
 * hdr: histograms in HdrHistogram's layout, and their V2 compressed encoding.
 *
 * Layout. An HdrHistogram is defined by three numbers: the lowest discernible value L (>= 1),
 * the highest trackable value H (>= 2 L) and the number of significant decimal digits d (1-5).
 * From them:
 *   - the sub-bucket count S is the smallest power of two >= 2 * 10^d (d = 2: 256, d = 3: 2048);
 *   - the unit u is the largest power of two <= L (values are counted in units of 2^u);
 *   - bucket 0 holds the values [0, S * 2^u) with a counter per unit; bucket k >= 1 holds
 *     [S/2 * 2^(u+k), S * 2^(u+k)) with S/2 counters, each 2^(u+k) wide;
 *   - the counts array has (B + 1) * S/2 entries, B being the number of buckets needed to reach
 *     H. The index of v is (k + 1) * S/2 + (v >> (k + u)) - S/2, where its bucket k is
 *     floor(log2(v | (S - 1) 2^u)) - u - log2(S) + 1.
 * So every counter's range is at most 1 / (S/2) of its values: 10^-d or better.
 *
 * The latency recorder (lat.h) counts in exactly this layout with L = 1 ns, d = 2 and
 * H = 2^42 - 1 ns (hdr_layout_lat): its histogram is written to a log as it is, with no
 * conversion and no loss.
 *
 * V2 encoding (what HdrHistogram's readers in Java, C, JavaScript, ... decode): all integers
 * big-endian,
 *     int32 cookie 0x1c849313 (the V2 base 0x1c849303 with word-size nibble 0x10)
 *     int32 payload length in bytes
 *     int32 normalizing index offset (0)
 *     int32 significant digits d
 *     int64 lowest discernible value L
 *     int64 highest trackable value H
 *     int64 the bits of the double 1.0 (integer-to-double conversion ratio)
 * then the payload: the counts from index 0 up to the last non-zero one (at least one entry),
 * each as a ZigZag LEB128 signed integer of at most 9 bytes (the 9th byte holds 8 bits): a
 * count >= 0 as itself, a run of n >= 2 zero counts as -n.
 * The compressed form wraps it: int32 cookie 0x1c849314 (base 0x1c849304), int32 length of
 * the zlib stream (RFC 1950, deflate inside) that follows, holding the V2 encoding.
 * Readers compare cookies without their word-size nibble (cookie & ~0xf0), as HdrHistogram's do.
 *
 * Nothing here runs on a hot path: the encoder and decoder are used by the collecting thread at
 * interval ends and by the merge tool. A codec (hdr_codec) keeps its buffers and zlib states
 * between uses, so encoding an interval allocates nothing once the buffers have grown.
 */
#ifndef RWFPERF_HDR_H
#define RWFPERF_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HDR_COOKIE_V2 0x1c849303u            /* V2 encoding, word-size nibble clear */
#define HDR_COOKIE_V2_COMPRESSED 0x1c849304u /* its compressed wrapper */
#define HDR_COOKIE_WORD_NIBBLE 0x10u         /* written into both cookies, as all writers do */
#define HDR_V2_HEADER 40                     /* bytes before the payload */
#define HDR_WRAP_HEADER 8                    /* cookie + length before the zlib stream */
#define HDR_LEB_MAX 9                        /* longest ZigZag LEB128 integer */
#define HDR_LEN_MAX (1 << 23)                /* largest counts array we accept (64 MiB) */

/* A histogram layout: the three defining numbers and what follows from them. */
typedef struct hdr_layout {
    int64_t lowest;   /* lowest discernible value L, >= 1 */
    int64_t highest;  /* highest trackable value H, >= 2 L */
    int digits;       /* significant value digits d, 1..5 */
    int unit_mag;     /* u: floor(log2(L)) */
    int sub_mag;      /* log2(S) */
    int half_mag;     /* log2(S / 2) */
    int64_t sub_mask; /* (S - 1) << u */
    int32_t len;      /* entries in the counts array */
} hdr_layout;

/* Sets up lay for (lowest, highest, digits). Returns 0, or -1 (err_set saying which number is
 * out of range) when lowest < 1, highest < 2 * lowest, digits is not 1..5, or the counts array
 * would exceed HDR_LEN_MAX entries. */
int hdr_layout_init(hdr_layout *lay, int64_t lowest, int64_t highest, int digits);

/* The layout of the latency recorder's histogram (lat.h): L = 1, H = 2^42 - 1, d = 2. */
void hdr_layout_lat(hdr_layout *lay);

/* The layout of its histogram of negative samples' magnitudes: L = 1, H = 2^42 - 1, d = 1. */
void hdr_layout_lat_neg(hdr_layout *lay);

/* True when a and b have the same defining numbers (and so the same counts array). */
bool hdr_layout_same(const hdr_layout *a, const hdr_layout *b);

/* The counts index of value v >= 0. Values above the highest trackable one give an index
 * >= lay->len (callers clamp or refuse). */
static inline int32_t hdr_index(const hdr_layout *lay, int64_t v)
{
    int bucket = 63 - __builtin_clzll((uint64_t)v | (uint64_t)lay->sub_mask) - lay->unit_mag -
                 lay->sub_mag + 1;
    int64_t sub = v >> (bucket + lay->unit_mag);
    return (int32_t)(((int64_t)(bucket + 1) << lay->half_mag) + sub -
                     ((int64_t)1 << lay->half_mag));
}

/* The lowest value counted at index i (0 <= i < len). */
int64_t hdr_index_low(const hdr_layout *lay, int32_t i);

/* The highest value counted at index i (0 <= i < len). */
int64_t hdr_index_high(const hdr_layout *lay, int32_t i);

/* ------------------------------------------------------------------------------------------ */
/* A histogram with its own counts array                                                      */

typedef struct hdr_hist {
    hdr_layout lay;
    uint64_t *counts; /* lay.len entries; NULL until hdr_hist_init */
    uint64_t total;   /* sum of counts */
    int32_t hi;       /* every count from this index up is zero */
} hdr_hist;

/* Allocates an empty histogram of layout lay. Returns 0, or -1 (err_set) when out of memory. */
int hdr_hist_init(hdr_hist *h, const hdr_layout *lay);

/* Releases the counts; h can be initialised again. Safe on a zeroed or released histogram. */
void hdr_hist_free(hdr_hist *h);

/* Empties h, keeping its layout. */
void hdr_hist_reset(hdr_hist *h);

/* Counts n samples of value v. Returns 0, or -1 (err_set) when v < 0 or v is above the highest
 * trackable value. */
int hdr_hist_record(hdr_hist *h, int64_t v, uint64_t n);

/* Adds src's counts to dst. With the same layout the counts add index by index (exact);
 * otherwise each of src's counts is recorded at the lowest value of its counter in dst.
 * Returns 0, or -1 (err_set) when a value of src is beyond dst's range. */
int hdr_hist_add(hdr_hist *dst, const hdr_hist *src);

/* Adds a raw counts array of layout src_lay (lat.h's histogram, for instance) to dst, as
 * hdr_hist_add does. */
int hdr_hist_add_counts(hdr_hist *dst, const hdr_layout *src_lay, const uint64_t *counts);

/* Index of the highest non-zero count, or -1 when empty. */
int32_t hdr_hist_max_index(const hdr_hist *h);

/* Index of the lowest non-zero count, or -1 when empty. */
int32_t hdr_hist_min_index(const hdr_hist *h);

/*
 * The p-th percentile (0 < p <= 100) as the latency recorder reads it (lat_percentile): the
 * counter holding the nearest-rank sample (rank ceil(p/100 * total)) is found and the middle
 * of its range returned, clamped to max_exact when max_exact >= 0 (the exact maximum, when
 * known); the highest rank reads as max_exact itself (or the top of its counter when
 * max_exact < 0). p <= 0 gives the lowest counter's low end. Returns 0 when empty.
 */
double hdr_hist_percentile(const hdr_hist *h, double p, int64_t max_exact);

/* The mean of the samples taking each at the middle of its counter; 0 when empty. */
double hdr_hist_mean(const hdr_hist *h);

/* ------------------------------------------------------------------------------------------ */
/* Encoding                                                                                   */

/* Largest V2 encoding of a histogram of layout lay, in bytes (header included). */
size_t hdr_v2_bound(const hdr_layout *lay);

/* Writes the V2 encoding of counts (lay->len entries, layout lay) to out, which holds at least
 * hdr_v2_bound(lay) bytes. Returns the number of bytes written. Counts above INT64_MAX are
 * written as INT64_MAX. */
size_t hdr_v2_encode(const hdr_layout *lay, const uint64_t *counts, uint8_t *out);

/* Decodes a V2 encoding of exactly n bytes into h: h is (re)initialised with the encoded
 * layout when it has no counts or another layout, else emptied first. Returns 0, or -1
 * (err_set saying what is wrong: cookie, header numbers, payload length, a truncated or
 * over-long integer, counts beyond the layout, a negative total) on malformed input. */
int hdr_v2_decode(const uint8_t *p, size_t n, hdr_hist *h);

/* Writes one ZigZag LEB128 integer (1-9 bytes) to out; returns its length. */
size_t hdr_zz_put(uint8_t *out, int64_t v);

/* Reads one ZigZag LEB128 integer from p (n bytes available). Returns its length, or 0 when
 * the integer is cut off by the end of the input. */
size_t hdr_zz_get(const uint8_t *p, size_t n, int64_t *v);

/* Base64 (RFC 4648 standard alphabet, '=' padding) of n bytes into out, which holds
 * hdr_b64_len(n) + 1 bytes; NUL-terminated. Returns the text length. */
size_t hdr_b64_encode(const uint8_t *in, size_t n, char *out);

/* Text length of the base64 of n bytes. */
size_t hdr_b64_len(size_t n);

/* Decodes n characters of base64 into out (room for n / 4 * 3 bytes). Returns 0 and the byte
 * count in *out_len, or -1 (err_set naming the offending character's position) when the text
 * has a character outside the alphabet, a length not a multiple of 4, or misplaced padding. */
int hdr_b64_decode(const char *in, size_t n, uint8_t *out, size_t *out_len);

/* Buffers and zlib states reused across encodings and decodings. Zero it before first use. */
typedef struct hdr_codec {
    void *zdef;   /* z_stream for deflate, set up on first use */
    void *zinf;   /* z_stream for inflate */
    uint8_t *raw; /* V2 encoding */
    size_t raw_cap;
    uint8_t *bin; /* compressed form */
    size_t bin_cap;
    char *text; /* base64 */
    size_t text_cap;
} hdr_codec;

/* Releases what the codec holds; it is then as zeroed. */
void hdr_codec_free(hdr_codec *c);

/* The compressed form (wrapper + zlib stream of the V2 encoding) of counts of layout lay.
 * *out points into the codec and stays valid until its next use. Returns 0, or -1 (err_set)
 * when memory or zlib fail. */
int hdr_compress(hdr_codec *c, const hdr_layout *lay, const uint64_t *counts, const uint8_t **out,
                 size_t *out_len);

/* Decodes a compressed form of exactly n bytes into h (see hdr_v2_decode for h). Returns 0,
 * or -1 (err_set) on a wrong cookie, a length that disagrees with n, a zlib stream that does
 * not inflate to exactly one V2 encoding, or a malformed encoding. */
int hdr_decompress(hdr_codec *c, const uint8_t *p, size_t n, hdr_hist *h);

/* The base64 text of the compressed form, as an interval log line carries it. *text points
 * into the codec (NUL-terminated) until its next use. Returns 0, or -1 (err_set). */
int hdr_encode_text(hdr_codec *c, const hdr_layout *lay, const uint64_t *counts, const char **text);

/* Decodes n characters of base64 text holding a compressed form into h. Returns 0, or -1
 * (err_set: bad base64, or what hdr_decompress reports). */
int hdr_decode_text(hdr_codec *c, const char *text, size_t n, hdr_hist *h);

#endif
