/*
 * What the benchmark programs share: their clocks and the order their samples are sorted in.
 */
#ifndef RWFPERF_BENCH_UTIL_H
#define RWFPERF_BENCH_UTIL_H

#include <time.h>

/* The monotonic clock in nanoseconds. */
static inline double bench_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The calling thread's CPU time in nanoseconds. */
static inline double bench_thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* qsort order of doubles (samples, then picked by rank). */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
