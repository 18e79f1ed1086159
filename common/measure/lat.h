/*
 * lat: a latency recorder. One per thread and per kind of latency; recording allocates
 * nothing, takes no lock and costs a few nanoseconds.
 *
 * Samples are signed nanoseconds. Each one updates
 *   - count, mean and the sum of squared deviations by Welford's method, which stays accurate
 *     where the ETA tools' sum / sum-of-squares form cancels (large means, long runs): the
 *     standard deviation is the sample form (n - 1), as theirs;
 *   - exact min and max;
 *   - a log-linear histogram in the manner of HdrHistogram: values below 256 ns get a bucket
 *     each, and every power of two above is cut into 128 equal buckets, so a bucket is at
 *     most 1/128 of its value wide. A percentile is read as the middle of its bucket (clamped
 *     to the exact min and max), which is within 0.4% of the exact nearest-rank percentile
 *     from 1 ns up to 2^42 ns (73 minutes); the highest rank reads as the exact max, and the
 *     lowest as the exact min. Larger values fall into the last bucket and are counted in
 *     `over`; a percentile that lands on them reads as the max.
 * A negative sample (stamps from two hosts' clocks) counts in count, mean, deviation and min
 * (as the ETA tools count it) and in `negative`, but not in the histogram: percentiles are
 * those of the non-negative samples. Its magnitude goes to a coarse histogram of its own
 * (`neg`: 16 buckets per power of two, within 6.25%), which tells by how much the clocks
 * disagree.
 *
 * Both histograms are HdrHistogram layouts (hdr.h): `hist` is lowest discernible value 1 ns,
 * highest trackable 2^42 - 1 ns, 2 significant digits; `neg` the same with 1 digit. They are
 * written to HdrHistogram logs as they are.
 *
 * Recorders of the same kind add up with lat_merge() (threads, intervals into totals), which
 * gives exactly what recording all the samples into one would give, up to rounding in the
 * mean and deviation.
 *
 * A recorder is a plain struct of about 42 KB; embed it or allocate it, then lat_reset() it.
 * It is not thread-safe: one thread records into it. See latbuf.h for handing a worker's
 * recorders to the main thread.
 */
#ifndef RWFPERF_LAT_H
#define RWFPERF_LAT_H

#include "stats.h"

#include <stdint.h>

#define LAT_SUB_BITS 7                        /* 2^7 = 128 buckets per power of two */
#define LAT_SUB_HALF (1u << LAT_SUB_BITS)     /* 128 */
#define LAT_LINEAR (1u << (LAT_SUB_BITS + 1)) /* 256: values below get a bucket each */
#define LAT_RANGE_BITS 42                     /* histogram covers [0, 2^42) ns */
#define LAT_RANGE_LIMIT (INT64_C(1) << LAT_RANGE_BITS)
#define LAT_BUCKETS ((LAT_RANGE_BITS - LAT_SUB_BITS + 1) * LAT_SUB_HALF) /* 4608 */
#define LAT_NEG_SUB_BITS 4 /* negative samples: 2^4 = 16 buckets per power of two */
#define LAT_NEG_BUCKETS                                                                            \
    ((LAT_RANGE_BITS - LAT_NEG_SUB_BITS + 1) * (1u << LAT_NEG_SUB_BITS)) /* 624 */

typedef struct lat {
    uint64_t count;    /* samples recorded, negative ones included */
    uint64_t negative; /* samples below 0 (not in the histogram) */
    uint64_t over;     /* samples at or above LAT_RANGE_LIMIT (in the last bucket) */
    double mean;       /* ns */
    double m2;         /* sum of squared deviations from the mean, ns^2 */
    int64_t min;       /* ns; INT64_MAX while empty */
    int64_t max;       /* ns; INT64_MIN while empty */
    uint64_t hist[LAT_BUCKETS];
    uint64_t neg[LAT_NEG_BUCKETS]; /* magnitudes of the negative samples */
} lat;

/* The histogram bucket of a non-negative value. */
static inline uint32_t lat_bucket(int64_t ns)
{
    uint64_t v = ns < LAT_RANGE_LIMIT ? (uint64_t)ns : (uint64_t)(LAT_RANGE_LIMIT - 1);
    /* Power-of-two band: 0 below 256, then one more per doubling. */
    uint32_t band = (uint32_t)(63 - __builtin_clzll(v | (LAT_LINEAR - 1))) - LAT_SUB_BITS;
    return (band << LAT_SUB_BITS) + (uint32_t)(v >> band);
}

/* The bucket of the negative-sample histogram for a magnitude m > 0. */
static inline uint32_t lat_neg_bucket(uint64_t m)
{
    uint64_t v = m < (uint64_t)LAT_RANGE_LIMIT ? m : (uint64_t)LAT_RANGE_LIMIT - 1;
    uint32_t band =
        (uint32_t)(63 - __builtin_clzll(v | ((2u << LAT_NEG_SUB_BITS) - 1))) - LAT_NEG_SUB_BITS;
    return (band << LAT_NEG_SUB_BITS) + (uint32_t)(v >> band);
}

/* Records one sample of `ns` nanoseconds. */
static inline void lat_record(lat *l, int64_t ns)
{
    double x = (double)ns;
    uint64_t n = ++l->count;
    /* 1/n does not depend on the previous sample, so the division runs beside the chain of
     * dependent updates of the mean instead of inside it. */
    double inv = 1.0 / (double)n;
    double d = x - l->mean;
    l->mean += d * inv;
    l->m2 += d * (x - l->mean);
    if (ns < l->min)
        l->min = ns;
    if (ns > l->max)
        l->max = ns;
    if (ns < 0) {
        l->negative++;
        l->neg[lat_neg_bucket(-(uint64_t)ns)]++;
        return;
    }
    if (ns >= LAT_RANGE_LIMIT)
        l->over++;
    l->hist[lat_bucket(ns)]++;
}

/* Empties a recorder (also how a new one is made ready). */
void lat_reset(lat *l);

/* Adds everything recorded in src to dst. src is unchanged; dst == src is allowed. */
void lat_merge(lat *dst, const lat *src);

/* The lowest and highest value that fall into bucket b. */
int64_t lat_bucket_low(uint32_t b);
int64_t lat_bucket_high(uint32_t b);

/* The p-th percentile (0 < p <= 100) of the non-negative samples, in ns: the value of the
 * nearest-rank sample (rank ceil(p/100 * n)) read from the histogram, within 1/256 of it.
 * Returns 0 when there are no non-negative samples. p <= 0 gives the lowest sample, p >= 100
 * the highest (the exact max). */
double lat_percentile(const lat *l, double p);

/* Mean in ns (0 when empty). */
double lat_mean(const lat *l);

/* Sample standard deviation in ns (n - 1 form; 0 when fewer than 2 samples). */
double lat_stddev(const lat *l);

/* Fills out in microseconds: count, avg, stddev, min, max exactly; p50, p90, p99, p99.9,
 * p99.99 from the histogram. An empty recorder gives all zeros. */
void lat_summary(const lat *l, stat_lat *out);

#endif
