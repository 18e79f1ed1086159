/*
 * res: the process's CPU and memory use (docs/tools.md#cpu-and-memory), sampled by the main thread
 * once per stats interval.
 *
 * CPU % of a sample = 100 * (user + system time used since the previous sample) / (wall time
 * since the previous sample), for the whole process: several busy threads give more than
 * 100%. Memory = the resident set size, the second field of /proc/self/statm times the page
 * size, in MB of 1,048,576 bytes. res_init() takes the baseline; each res_sample() gives one
 * sample and feeds the running min / max / average that end up in the summary.
 */
#ifndef RWFPERF_RES_H
#define RWFPERF_RES_H

#include "stats.h"

#include <stdint.h>

typedef struct res {
    int64_t prev_wall_ns; /* CLOCK_MONOTONIC at the previous sample (or baseline) */
    int64_t prev_cpu_us;  /* user + system time then */

    double cpu; /* last sample: % of one core */
    double mem; /* last sample: MB resident */

    uint64_t samples;
    double cpu_min, cpu_max, cpu_sum;
    double mem_min, mem_max, mem_sum;
} res;

/* Takes the baseline: the next sample covers the time from now. Returns 0, or -1 with
 * err_msg() set when the process's usage cannot be read. */
int res_init(res *r);

/* Takes a sample: CPU % since the previous sample, resident memory now. The figures are left
 * in r->cpu and r->mem and added to the running statistics. Returns 0, or -1 with err_msg()
 * set (nothing is recorded then). */
int res_sample(res *r);

/* Fills out with the number of samples and the min / max / average of each figure; all zeros
 * when no sample was taken. */
void res_summary(const res *r, stat_res *out);

/* Resident set size of this process in bytes, or -1 with err_msg() set. */
int64_t res_rss_bytes(void);

#endif
