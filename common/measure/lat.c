#include "lat.h"

#include <math.h>
#include <string.h>

void lat_reset(lat *l)
{
    l->count = 0;
    l->negative = 0;
    l->over = 0;
    l->mean = 0;
    l->m2 = 0;
    l->min = INT64_MAX;
    l->max = INT64_MIN;
    memset(l->hist, 0, sizeof(l->hist));
    memset(l->neg, 0, sizeof(l->neg));
}

void lat_merge(lat *dst, const lat *src)
{
    if (src->count == 0)
        return;
    if (dst == src) {
        /* Twice the same samples: the mean stays, the deviations double. */
        dst->count *= 2;
        dst->negative *= 2;
        dst->over *= 2;
        dst->m2 *= 2;
        for (uint32_t b = 0; b < LAT_BUCKETS; b++)
            dst->hist[b] *= 2;
        for (uint32_t b = 0; b < LAT_NEG_BUCKETS; b++)
            dst->neg[b] *= 2;
        return;
    }
    /* Chan, Golub and LeVeque's pairwise combination of two Welford accumulators. */
    double na = (double)dst->count, nb = (double)src->count, n = na + nb;
    double d = src->mean - dst->mean;
    dst->mean += d * (nb / n);
    dst->m2 += src->m2 + d * d * (na * nb / n);
    dst->count += src->count;
    dst->negative += src->negative;
    dst->over += src->over;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (uint32_t b = 0; b < LAT_BUCKETS; b++)
        dst->hist[b] += src->hist[b];
    if (src->negative)
        for (uint32_t b = 0; b < LAT_NEG_BUCKETS; b++)
            dst->neg[b] += src->neg[b];
}

int64_t lat_bucket_low(uint32_t b)
{
    if (b < LAT_LINEAR)
        return b;
    uint32_t band = (b >> LAT_SUB_BITS) - 1;
    uint64_t sub = b - ((uint64_t)band << LAT_SUB_BITS);
    return (int64_t)(sub << band);
}

int64_t lat_bucket_high(uint32_t b)
{
    if (b < LAT_LINEAR)
        return b;
    uint32_t band = (b >> LAT_SUB_BITS) - 1;
    return lat_bucket_low(b) + (INT64_C(1) << band) - 1;
}

double lat_percentile(const lat *l, double p)
{
    uint64_t n = l->count - l->negative;
    if (n == 0)
        return 0;
    /* Nearest rank, ceil(p/100 * n). The small shrink keeps 99.9 (stored as 99.900000000000006)
     * of 1000 samples at rank 999 instead of 1000. */
    double r = ceil(p / 100.0 * (double)n * (1.0 - 1e-12));
    uint64_t rank = r < 1 ? 1 : r >= (double)n ? n : (uint64_t)r;

    /* The extremes are known exactly. */
    if (rank == n)
        return (double)l->max;
    if (rank == 1 && l->min >= 0)
        return (double)l->min;

    uint64_t seen = 0;
    uint32_t b = 0;
    for (; b < LAT_BUCKETS; b++) {
        seen += l->hist[b];
        if (seen >= rank)
            break;
    }
    if (b == LAT_BUCKETS)
        b = LAT_BUCKETS - 1; /* not reached: the counts add up to n */
    /* Samples beyond the range sit at the top of the last bucket; the only value known for
     * them is the maximum. */
    if (b == LAT_BUCKETS - 1 && rank > seen - l->over)
        return (double)l->max;

    double v = ((double)lat_bucket_low(b) + (double)lat_bucket_high(b)) / 2;
    /* The exact extremes are known: a percentile never lies outside them. The lowest
     * non-negative sample is not kept, but it lies in the first non-empty bucket, and the
     * middle of a bucket never lies below its own low end. */
    if (v > (double)l->max)
        v = (double)l->max;
    if (l->min >= 0 && v < (double)l->min)
        v = (double)l->min;
    return v;
}

double lat_mean(const lat *l)
{
    return l->count ? l->mean : 0;
}

double lat_stddev(const lat *l)
{
    if (l->count < 2)
        return 0;
    double var = l->m2 / (double)(l->count - 1);
    return var > 0 ? sqrt(var) : 0;
}

void lat_summary(const lat *l, stat_lat *out)
{
    memset(out, 0, sizeof(*out));
    if (l->count == 0)
        return;
    out->count = l->count;
    out->negative = l->negative;
    out->avg = l->mean / 1000.0;
    out->stddev = lat_stddev(l) / 1000.0;
    out->min = (double)l->min / 1000.0;
    out->max = (double)l->max / 1000.0;
    out->p50 = lat_percentile(l, 50) / 1000.0;
    out->p90 = lat_percentile(l, 90) / 1000.0;
    out->p99 = lat_percentile(l, 99) / 1000.0;
    out->p999 = lat_percentile(l, 99.9) / 1000.0;
    out->p9999 = lat_percentile(l, 99.99) / 1000.0;
}
