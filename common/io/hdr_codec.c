/* hdr_codec: the V2 encoding, its zlib-compressed wrapper and base64 (see hdr.h). */
#include "hdr.h"

#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DOUBLE_ONE_BITS UINT64_C(0x3ff0000000000000) /* IEEE 754 bits of 1.0 */

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* Grows *buf to hold at least need bytes. Returns 0, or -1 (err_set). */
static int grow(void **buf, size_t *cap, size_t need)
{
    if (*cap >= need)
        return 0;
    size_t n = *cap * 2 > need ? *cap * 2 : need;
    void *p = realloc(*buf, n);
    if (!p)
        return err_set("out of memory for %zu bytes of histogram encoding", n);
    *buf = p;
    *cap = n;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* ZigZag LEB128                                                                              */

size_t hdr_zz_put(uint8_t *out, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
    size_t k = 0;
    while (k < 8) {
        if (u < 0x80) {
            out[k++] = (uint8_t)u;
            return k;
        }
        out[k++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    out[k++] = (uint8_t)u; /* the 9th byte carries the last 8 bits whole */
    return k;
}

size_t hdr_zz_get(const uint8_t *p, size_t n, int64_t *v)
{
    uint64_t u = 0;
    size_t k = 0;
    for (;;) {
        if (k >= n)
            return 0;
        uint8_t b = p[k];
        if (k == 8) {
            u |= (uint64_t)b << 56;
            k++;
            break;
        }
        u |= (uint64_t)(b & 0x7f) << (7 * k);
        k++;
        if (!(b & 0x80))
            break;
    }
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return k;
}

/* ------------------------------------------------------------------------------------------ */
/* V2 encoding                                                                                */

size_t hdr_v2_bound(const hdr_layout *lay)
{
    return HDR_V2_HEADER + (size_t)HDR_LEB_MAX * (size_t)lay->len;
}

size_t hdr_v2_encode(const hdr_layout *lay, const uint64_t *counts, uint8_t *out)
{
    int32_t limit = lay->len;
    while (limit > 1 && counts[limit - 1] == 0)
        limit--;
    uint8_t *p = out + HDR_V2_HEADER;
    for (int32_t i = 0; i < limit;) {
        if (counts[i] == 0) {
            int32_t j = i + 1;
            while (j < limit && counts[j] == 0)
                j++;
            p += hdr_zz_put(p, j - i > 1 ? -(int64_t)(j - i) : 0);
            i = j;
        } else {
            p += hdr_zz_put(p, counts[i] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)counts[i]);
            i++;
        }
    }
    size_t payload = (size_t)(p - out) - HDR_V2_HEADER;
    put32(out, HDR_COOKIE_V2 | HDR_COOKIE_WORD_NIBBLE);
    put32(out + 4, (uint32_t)payload);
    put32(out + 8, 0);
    put32(out + 12, (uint32_t)lay->digits);
    put64(out + 16, (uint64_t)lay->lowest);
    put64(out + 24, (uint64_t)lay->highest);
    put64(out + 32, DOUBLE_ONE_BITS);
    return (size_t)(p - out);
}

/* Reads the counts of a V2 payload into h (emptied, of the right layout). */
static int v2_counts(const uint8_t *p, size_t n, hdr_hist *h)
{
    int32_t idx = 0;
    size_t off = 0;
    while (off < n) {
        int64_t v;
        size_t k = hdr_zz_get(p + off, n - off, &v);
        if (k == 0)
            return err_set("payload byte %zu: an integer cut off by the end of the payload", off);
        if (v < 0) {
            if (v == INT64_MIN || -v > (int64_t)(h->lay.len - idx))
                return err_set("payload byte %zu: a run of %" PRId64
                               " zero counts at index %d goes past the layout's %d counts",
                               off, -v, (int)idx, (int)h->lay.len);
            idx += (int32_t)-v;
        } else {
            if (idx >= h->lay.len)
                return err_set("payload byte %zu: a count at index %d, past the layout's %d", off,
                               (int)idx, (int)h->lay.len);
            if (h->total + (uint64_t)v < h->total)
                return err_set("payload byte %zu: the counts add up past 2^64", off);
            h->counts[idx++] = (uint64_t)v;
            h->total += (uint64_t)v;
        }
        off += k;
    }
    h->hi = idx;
    return 0;
}

int hdr_v2_decode(const uint8_t *p, size_t n, hdr_hist *h)
{
    if (n < HDR_V2_HEADER)
        return err_set("V2 encoding of %zu bytes: shorter than its %d-byte header", n,
                       HDR_V2_HEADER);
    uint32_t cookie = get32(p);
    if ((cookie & ~0xf0u) != HDR_COOKIE_V2)
        return err_set("cookie 0x%08" PRIx32 " is not a V2 histogram encoding's (0x%08x)", cookie,
                       HDR_COOKIE_V2);
    int32_t payload = (int32_t)get32(p + 4);
    if (payload < 0 || (size_t)payload != n - HDR_V2_HEADER)
        return err_set("payload length %" PRId32 ", but %zu bytes follow the header", payload,
                       n - HDR_V2_HEADER);
    hdr_layout lay;
    if (hdr_layout_init(&lay, (int64_t)get64(p + 16), (int64_t)get64(p + 24),
                        (int)(int32_t)get32(p + 12)) != 0)
        return err_push("V2 header");
    if (!h->counts || !hdr_layout_same(&h->lay, &lay)) {
        hdr_hist_free(h);
        if (hdr_hist_init(h, &lay) != 0)
            return -1;
    } else {
        hdr_hist_reset(h);
    }
    return v2_counts(p + HDR_V2_HEADER, (size_t)payload, h);
}

/* ------------------------------------------------------------------------------------------ */
/* Base64                                                                                     */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t hdr_b64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t hdr_b64_encode(const uint8_t *in, size_t n, char *out)
{
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = b64_alphabet[v >> 18];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = b64_alphabet[(v >> 6) & 63];
        *o++ = b64_alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        *o++ = b64_alphabet[v >> 18];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        *o++ = b64_alphabet[v >> 18];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = b64_alphabet[(v >> 6) & 63];
        *o++ = '=';
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* Each base64 character's 6-bit value plus one; 0 for the characters outside the alphabet. */
static const uint8_t b64_plus1[256] = {
    ['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,  ['F'] = 6,  ['G'] = 7,  ['H'] = 8,
    ['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16,
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
    ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
    ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};

int hdr_b64_decode(const char *in, size_t n, uint8_t *out, size_t *out_len)
{
    if (n % 4 != 0)
        return err_set("base64 text of %zu characters: not a multiple of 4 (cut off?)", n);
    size_t pad = 0;
    if (n >= 4 && in[n - 1] == '=')
        pad = in[n - 2] == '=' ? 2 : 1;
    uint8_t *o = out;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = (i + k >= n - pad) ? 1 : b64_plus1[(unsigned char)in[i + k]];
            if (d-- == 0) {
                unsigned char c = (unsigned char)in[i + k];
                if (c == '=')
                    return err_set("base64 character %zu: padding before the end", i + k + 1);
                if (c >= 0x20 && c < 0x7f)
                    return err_set("base64 character %zu: '%c' is not base64", i + k + 1, c);
                return err_set("base64 character %zu: byte 0x%02x is not base64", i + k + 1, c);
            }
            v = v << 6 | (uint32_t)d;
        }
        *o++ = (uint8_t)(v >> 16);
        *o++ = (uint8_t)(v >> 8);
        *o++ = (uint8_t)v;
    }
    *out_len = (size_t)(o - out) - pad;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Compressed form                                                                            */

void hdr_codec_free(hdr_codec *c)
{
    if (c->zdef) {
        deflateEnd(c->zdef);
        free(c->zdef);
    }
    if (c->zinf) {
        inflateEnd(c->zinf);
        free(c->zinf);
    }
    free(c->raw);
    free(c->bin);
    free(c->text);
    memset(c, 0, sizeof(*c));
}

/* The codec's deflate stream, made on first use and reset after. */
static z_stream *deflater(hdr_codec *c)
{
    if (c->zdef) {
        deflateReset(c->zdef);
        return c->zdef;
    }
    z_stream *z = calloc(1, sizeof(*z));
    if (!z || deflateInit(z, Z_BEST_COMPRESSION) != Z_OK) {
        free(z);
        err_set("cannot set up zlib's deflate");
        return NULL;
    }
    c->zdef = z;
    return z;
}

static z_stream *inflater(hdr_codec *c)
{
    if (c->zinf) {
        inflateReset(c->zinf);
        return c->zinf;
    }
    z_stream *z = calloc(1, sizeof(*z));
    if (!z || inflateInit(z) != Z_OK) {
        free(z);
        err_set("cannot set up zlib's inflate");
        return NULL;
    }
    c->zinf = z;
    return z;
}

int hdr_compress(hdr_codec *c, const hdr_layout *lay, const uint64_t *counts, const uint8_t **out,
                 size_t *out_len)
{
    if (grow((void **)&c->raw, &c->raw_cap, hdr_v2_bound(lay)) != 0)
        return -1;
    size_t n = hdr_v2_encode(lay, counts, c->raw);
    z_stream *z = deflater(c);
    if (!z)
        return -1;
    size_t bound = HDR_WRAP_HEADER + deflateBound(z, (uLong)n);
    if (grow((void **)&c->bin, &c->bin_cap, bound) != 0)
        return -1;
    z->next_in = c->raw;
    z->avail_in = (uInt)n;
    z->next_out = c->bin + HDR_WRAP_HEADER;
    z->avail_out = (uInt)(c->bin_cap - HDR_WRAP_HEADER);
    if (deflate(z, Z_FINISH) != Z_STREAM_END)
        return err_set("zlib's deflate failed: %s", z->msg ? z->msg : "no room");
    put32(c->bin, HDR_COOKIE_V2_COMPRESSED | HDR_COOKIE_WORD_NIBBLE);
    put32(c->bin + 4, (uint32_t)z->total_out);
    *out = c->bin;
    *out_len = HDR_WRAP_HEADER + z->total_out;
    return 0;
}

/* Inflates the zlib stream of a compressed form into c->raw; *n is the V2 encoding's size. */
static int inflate_v2(hdr_codec *c, const uint8_t *zs, size_t zn, size_t *n)
{
    z_stream *z = inflater(c);
    if (!z || grow((void **)&c->raw, &c->raw_cap, HDR_V2_HEADER) != 0)
        return -1;
    z->next_in = (Bytef *)zs;
    z->avail_in = (uInt)zn;
    z->next_out = c->raw;
    z->avail_out = HDR_V2_HEADER;
    int rc = inflate(z, Z_SYNC_FLUSH);
    if ((rc != Z_OK && rc != Z_STREAM_END) || z->total_out < HDR_V2_HEADER)
        return err_set("the zlib stream does not inflate to a V2 header (%s)",
                       z->msg ? z->msg : "too short");
    int32_t payload = (int32_t)get32(c->raw + 4);
    if (payload < 0 || (size_t)payload > (size_t)HDR_LEB_MAX * HDR_LEN_MAX)
        return err_set("V2 header: payload length %" PRId32 " out of range", payload);
    size_t want = HDR_V2_HEADER + (size_t)payload;
    if (rc != Z_STREAM_END) {
        if (grow((void **)&c->raw, &c->raw_cap, want + 1) != 0)
            return -1;
        z->next_out = c->raw + HDR_V2_HEADER;
        z->avail_out = (uInt)(payload + 1); /* one more: a longer stream shows itself */
        rc = inflate(z, Z_FINISH);
        if (rc != Z_STREAM_END)
            return err_set("the zlib stream does not end after the %" PRId32 "-byte payload (%s)",
                           payload, z->msg ? z->msg : "cut off or too long");
    }
    if (z->total_out != want)
        return err_set("the zlib stream holds %lu bytes, the V2 header announces %zu",
                       (unsigned long)z->total_out, want);
    if (z->avail_in != 0)
        return err_set("%u bytes after the end of the zlib stream", z->avail_in);
    *n = want;
    return 0;
}

int hdr_decompress(hdr_codec *c, const uint8_t *p, size_t n, hdr_hist *h)
{
    if (n < HDR_WRAP_HEADER)
        return err_set("compressed histogram of %zu bytes: shorter than its 8-byte header", n);
    uint32_t cookie = get32(p);
    if ((cookie & ~0xf0u) != HDR_COOKIE_V2_COMPRESSED)
        return err_set("cookie 0x%08" PRIx32 " is not a V2 compressed histogram's (0x%08x)", cookie,
                       HDR_COOKIE_V2_COMPRESSED);
    int32_t zlen = (int32_t)get32(p + 4);
    if (zlen < 0 || (size_t)zlen != n - HDR_WRAP_HEADER)
        return err_set("the header announces %" PRId32 " compressed bytes, %zu follow", zlen,
                       n - HDR_WRAP_HEADER);
    size_t raw_n = 0;
    if (inflate_v2(c, p + HDR_WRAP_HEADER, (size_t)zlen, &raw_n) != 0)
        return -1;
    return hdr_v2_decode(c->raw, raw_n, h);
}

int hdr_encode_text(hdr_codec *c, const hdr_layout *lay, const uint64_t *counts, const char **text)
{
    const uint8_t *bin;
    size_t n;
    if (hdr_compress(c, lay, counts, &bin, &n) != 0 ||
        grow((void **)&c->text, &c->text_cap, hdr_b64_len(n) + 1) != 0)
        return -1;
    hdr_b64_encode(bin, n, c->text);
    *text = c->text;
    return 0;
}

int hdr_decode_text(hdr_codec *c, const char *text, size_t n, hdr_hist *h)
{
    size_t len;
    if (grow((void **)&c->bin, &c->bin_cap, n / 4 * 3 + 3) != 0 ||
        hdr_b64_decode(text, n, c->bin, &len) != 0)
        return -1;
    return hdr_decompress(c, c->bin, len, h);
}
