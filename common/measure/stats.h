/*
 * stats: plain value types that carry measured results from the measuring modules (latency
 * recorder, resource sampler) to the writers (summary, CSV, console, JSON).
 *
 * They hold numbers only, so writers can be tested with hand-made values and measurers
 * without any writer.
 */
#ifndef RWFPERF_STATS_H
#define RWFPERF_STATS_H

#include <stdint.h>

/* A summary of a set of latency samples, in microseconds. count == 0 means "no samples", and
 * then every other member is 0. avg/stddev/min/max are exact (stddev is the sample form,
 * n - 1, and 0 when count < 2); the percentiles come from a histogram whose relative error is
 * at most 1%. */
typedef struct stat_lat {
    uint64_t count;
    double avg;
    double stddev;
    double min;
    double max;
    double p50;
    double p90;
    double p99;
    double p999;       /* 99.9th percentile */
    double p9999;      /* 99.99th percentile */
    uint64_t negative; /* samples below zero (counted in count, not in the percentiles) */
} stat_lat;

/* A summary of process CPU and memory samples. samples == 0 means none were taken. CPU is in
 * percent of one core (user + system over wall time, may exceed 100); memory is the resident
 * set size in MB (bytes / 1,048,576). */
typedef struct stat_res {
    uint64_t samples;
    double cpu_max;
    double cpu_min;
    double cpu_avg;
    double mem_max;
    double mem_min;
    double mem_avg;
} stat_res;

#endif
