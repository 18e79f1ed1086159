/* hdr: HdrHistogram layouts and histograms (see hdr.h); the encodings are in hdr_codec.c. */
#include "hdr.h"

#include "err.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int hdr_layout_init(hdr_layout *lay, int64_t lowest, int64_t highest, int digits)
{
    if (lowest < 1)
        return err_set("lowest discernible value %" PRId64 ": must be at least 1", lowest);
    if (digits < 1 || digits > 5)
        return err_set("significant digits %d: must be 1 to 5", digits);
    if (highest / 2 < lowest)
        return err_set("highest trackable value %" PRId64
                       ": must be at least twice the lowest discernible value %" PRId64,
                       highest, lowest);
    /* S: the smallest power of two that counts every value up to 2 * 10^d in single units. */
    int64_t single = 2;
    for (int d = 0; d < digits; d++)
        single *= 10;
    int sub_mag = 0;
    while ((INT64_C(1) << sub_mag) < single)
        sub_mag++;
    int unit = 63 - __builtin_clzll((uint64_t)lowest);
    if (sub_mag + unit > 62)
        return err_set("lowest discernible value %" PRId64 " with %d digits: out of range", lowest,
                       digits);
    /* Buckets needed so that the last one reaches the highest trackable value. */
    int64_t untrackable = INT64_C(1) << (sub_mag + unit);
    int buckets = 1;
    while (untrackable <= highest) {
        if (untrackable > INT64_MAX / 2) {
            buckets++;
            break;
        }
        untrackable <<= 1;
        buckets++;
    }
    int64_t len = (int64_t)(buckets + 1) << (sub_mag - 1);
    if (len > HDR_LEN_MAX)
        return err_set("a layout of %" PRId64 " counts (highest %" PRId64
                       ", %d digits): more than the %d we accept",
                       len, highest, digits, HDR_LEN_MAX);
    lay->lowest = lowest;
    lay->highest = highest;
    lay->digits = digits;
    lay->unit_mag = unit;
    lay->sub_mag = sub_mag;
    lay->half_mag = sub_mag - 1;
    lay->sub_mask = (int64_t)((((uint64_t)1 << sub_mag) - 1) << unit);
    lay->len = (int32_t)len;
    return 0;
}

void hdr_layout_lat(hdr_layout *lay)
{
    int rc = hdr_layout_init(lay, 1, (INT64_C(1) << 42) - 1, 2);
    (void)rc; /* constant, valid arguments */
}

void hdr_layout_lat_neg(hdr_layout *lay)
{
    int rc = hdr_layout_init(lay, 1, (INT64_C(1) << 42) - 1, 1);
    (void)rc; /* constant, valid arguments */
}

bool hdr_layout_same(const hdr_layout *a, const hdr_layout *b)
{
    return a->lowest == b->lowest && a->highest == b->highest && a->digits == b->digits;
}

/* Bucket and sub-bucket of index i, bucket 0's lower half folded in. */
static void index_split(const hdr_layout *lay, int32_t i, int *bucket, int64_t *sub)
{
    int32_t half = (int32_t)1 << lay->half_mag;
    int b = (i >> lay->half_mag) - 1;
    int64_t s = (i & (half - 1)) + half;
    if (b < 0) {
        s -= half;
        b = 0;
    }
    *bucket = b;
    *sub = s;
}

int64_t hdr_index_low(const hdr_layout *lay, int32_t i)
{
    int b;
    int64_t s;
    index_split(lay, i, &b, &s);
    return (int64_t)((uint64_t)s << (b + lay->unit_mag));
}

int64_t hdr_index_high(const hdr_layout *lay, int32_t i)
{
    int b;
    int64_t s;
    index_split(lay, i, &b, &s);
    uint64_t low = (uint64_t)s << (b + lay->unit_mag);
    uint64_t high = low + ((uint64_t)1 << (b + lay->unit_mag)) - 1;
    return high > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)high;
}

int hdr_hist_init(hdr_hist *h, const hdr_layout *lay)
{
    h->lay = *lay;
    h->total = 0;
    h->hi = 0;
    h->counts = calloc((size_t)lay->len, sizeof(uint64_t));
    if (!h->counts)
        return err_set("out of memory for a histogram of %d counts", (int)lay->len);
    return 0;
}

void hdr_hist_free(hdr_hist *h)
{
    free(h->counts);
    h->counts = NULL;
    h->total = 0;
    h->hi = 0;
}

void hdr_hist_reset(hdr_hist *h)
{
    if (h->counts)
        memset(h->counts, 0, (size_t)h->hi * sizeof(uint64_t));
    h->total = 0;
    h->hi = 0;
}

int hdr_hist_record(hdr_hist *h, int64_t v, uint64_t n)
{
    if (v < 0)
        return err_set("value %" PRId64 ": a histogram holds no negative value", v);
    int32_t i = hdr_index(&h->lay, v);
    if (i >= h->lay.len)
        return err_set("value %" PRId64 ": above the highest trackable value %" PRId64, v,
                       h->lay.highest);
    h->counts[i] += n;
    h->total += n;
    if (i >= h->hi)
        h->hi = i + 1;
    return 0;
}

/* Adds counts[0, hi) of layout src_lay to dst. */
static int add_range(hdr_hist *dst, const hdr_layout *src_lay, const uint64_t *counts, int32_t hi)
{
    if (hdr_layout_same(&dst->lay, src_lay)) {
        uint64_t total = 0;
        int32_t top = 0;
        for (int32_t i = 0; i < hi; i++) {
            dst->counts[i] += counts[i];
            total += counts[i];
            if (counts[i])
                top = i + 1;
        }
        dst->total += total;
        if (top > dst->hi)
            dst->hi = top;
        return 0;
    }
    for (int32_t i = 0; i < hi; i++)
        if (counts[i] && hdr_hist_record(dst, hdr_index_low(src_lay, i), counts[i]) != 0)
            return -1;
    return 0;
}

int hdr_hist_add_counts(hdr_hist *dst, const hdr_layout *src_lay, const uint64_t *counts)
{
    return add_range(dst, src_lay, counts, src_lay->len);
}

int hdr_hist_add(hdr_hist *dst, const hdr_hist *src)
{
    return add_range(dst, &src->lay, src->counts, src->hi);
}

int32_t hdr_hist_max_index(const hdr_hist *h)
{
    if (h->total == 0)
        return -1;
    for (int32_t i = h->hi - 1; i >= 0; i--)
        if (h->counts[i])
            return i;
    return -1;
}

int32_t hdr_hist_min_index(const hdr_hist *h)
{
    if (h->total == 0)
        return -1;
    for (int32_t i = 0; i < h->lay.len; i++)
        if (h->counts[i])
            return i;
    return -1;
}

double hdr_hist_percentile(const hdr_hist *h, double p, int64_t max_exact)
{
    uint64_t n = h->total;
    if (n == 0)
        return 0;
    if (p <= 0)
        return (double)hdr_index_low(&h->lay, hdr_hist_min_index(h));
    /* Nearest rank, as lat_percentile computes it (the shrink keeps 99.9% of 1000 at 999). */
    double r = ceil(p / 100.0 * (double)n * (1.0 - 1e-12));
    uint64_t rank = r < 1 ? 1 : r >= (double)n ? n : (uint64_t)r;
    uint64_t seen = 0;
    int32_t i = 0;
    for (; i < h->lay.len - 1; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            break;
    }
    if (rank == n)
        return max_exact >= 0 ? (double)max_exact : (double)hdr_index_high(&h->lay, i);
    double v = ((double)hdr_index_low(&h->lay, i) + (double)hdr_index_high(&h->lay, i)) / 2;
    if (max_exact >= 0 && v > (double)max_exact)
        v = (double)max_exact;
    return v;
}

double hdr_hist_mean(const hdr_hist *h)
{
    if (h->total == 0)
        return 0;
    double sum = 0;
    for (int32_t i = 0; i < h->lay.len; i++)
        if (h->counts[i])
            sum += (double)h->counts[i] *
                   (((double)hdr_index_low(&h->lay, i) + (double)hdr_index_high(&h->lay, i)) / 2);
    return sum / (double)h->total;
}
