/*
 * bench_merge_gen: writes histogram logs as a long ConsPerf run would, for measuring
 * rwfperf-merge (scripts/bench_merge.sh).
 *
 *   bench_merge_gen <folder> <logs> <seconds> <interval> <samples per second>
 *
 * Writes <folder>/hist<i>.hlog for i = 1..logs: each a process of its own (pid i) with an
 * "update" and a "sched-update" series, one interval every <interval> seconds over <seconds>,
 * each holding <interval> * <samples per second> latencies drawn from a log-normal body around
 * 60 us with a tail to a few milliseconds (shifted per log). Prints the bytes written and the
 * samples per log, and, on its last line, the exact union's sample count and p50/p99/max in ns,
 * for checking the merge.
 */
#include "err.h"
#include "hdr_log.h"
#include "lat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rnd_state = 12345;

/* splitmix64 */
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double unit(void)
{
    return ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
}

/* A latency in ns: log-normal body (median ~60 us), 1% tail up to ~5 ms. */
static int64_t sample(double shift)
{
    double z = sqrt(-2 * log(unit())) * cos(6.283185307179586 * unit());
    double v = 60000.0 * shift * exp(0.35 * z);
    if (rnd() % 100 == 0)
        v *= 1 + 80 * unit();
    return (int64_t)v;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s <folder> <logs> <seconds> <interval> <samples per second>\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int logs = atoi(argv[2]), secs = atoi(argv[3]), iv = atoi(argv[4]), rate = atoi(argv[5]);
    if (logs < 1 || secs < 1 || iv < 1 || rate < 1) {
        fprintf(stderr, "%s: every number must be positive\n", argv[0]);
        return 2;
    }
    mkdir(dir, 0777);
    hdr_layout lay;
    hdr_layout_lat(&lay);
    lat *u = malloc(sizeof(lat)), *s = malloc(sizeof(lat)), *all = malloc(sizeof(lat));
    if (!u || !s || !all)
        return 1;
    lat_reset(all);
    double start = 1700000000.0;
    long long bytes = 0;
    for (int i = 1; i <= logs; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/hist%d.hlog", dir, i);
        hdr_log_writer w;
        hdr_log_id id = {"ConsPerf", "1.0.0", "bench", "benchhost", i, 1, NULL};
        if (hdr_log_open(&w, path, &id, start) != 0) {
            fprintf(stderr, "%s\n", err_msg());
            return 1;
        }
        double shift = 0.8 + 0.4 * (double)(i % 7) / 6;
        for (int t = 0; t < secs; t += iv) {
            lat_reset(u);
            lat_reset(s);
            for (long k = 0; k < (long)iv * rate; k++) {
                int64_t v = sample(shift);
                lat_record(u, v);
                lat_record(all, v);
                lat_record(s, v + (int64_t)(rnd() % 20000));
            }
            if (hdr_log_write(&w, "update", start + t, iv, u->max, &lay, u->hist) != 0 ||
                hdr_log_write(&w, "sched-update", start + t, iv, s->max, &lay, s->hist) != 0) {
                fprintf(stderr, "%s\n", err_msg());
                return 1;
            }
        }
        if (hdr_log_close(&w) != 0) {
            fprintf(stderr, "%s\n", err_msg());
            return 1;
        }
        struct stat st;
        if (stat(path, &st) == 0)
            bytes += st.st_size;
    }
    printf("logs %d, %d s each, %d s intervals, %lld samples per log, %.1f MB in all\n", logs, secs,
           iv, (long long)secs / iv * iv * rate, (double)bytes / 1e6);
    printf("union: count %llu p50 %.1f p99 %.1f max %lld\n", (unsigned long long)all->count,
           lat_percentile(all, 50), lat_percentile(all, 99), (long long)all->max);
    free(u);
    free(s);
    free(all);
    return 0;
}
