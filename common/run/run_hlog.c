/* run_hlog: the workers' latency sets written to HdrHistogram interval logs (see run_hlog.h). */
#include "run_hlog.h"

#include "clk.h"
#include "err.h"
#include "out.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NEG_SUFFIX "-negative"

/* Wall-clock time in seconds since the epoch. */
static double now_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int run_hlog_name(char *buf, size_t size, const char *base, int thread, int pid)
{
    int w = pid > 0 ? snprintf(buf, size, "%s%d_%d.hlog", base, thread, pid)
                    : snprintf(buf, size, "%s%d.hlog", base, thread);
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

run_hlog *run_hlog_open(const char *base, int thread, int pid, const char *tool, size_t kinds)
{
    char path[1024];
    if (run_hlog_name(path, sizeof(path), base, thread, pid) != 0) {
        err_set("histogram log name too long: %s", base);
        return NULL;
    }
    run_hlog *h = calloc(1, sizeof(*h));
    bool *started = calloc(kinds ? kinds : 1, sizeof(bool));
    if (!h || !started) {
        free(h);
        free(started);
        err_set("out of memory for the histogram log %s", path);
        return NULL;
    }
    h->started = started;
    out_host host;
    out_host_get(&host);
    hdr_log_id id = {tool,
                     RWFPERF_VERSION,
                     rwfperf_git_rev(),
                     host.name,
                     (int)getpid(),
                     thread,
                     clk_source_name(clk_current())};
    h->from = now_epoch();
    if (hdr_log_open(&h->w, path, &id, h->from) != 0) {
        hdr_log_close(&h->w);
        free(h->started);
        free(h);
        return NULL;
    }
    return h;
}

/* One kind's lines: its histogram, and its negative samples when there are any. */
static int write_kind(run_hlog *h, const char *tag, double from, double len, const lat *l)
{
    hdr_layout lay, neg_lay;
    hdr_layout_lat(&lay);
    hdr_layout_lat_neg(&neg_lay);
    int64_t max = l->count > l->negative ? l->max : -1;
    if (hdr_log_write(&h->w, tag, from, len, max, &lay, l->hist) != 0)
        return -1;
    if (!l->negative)
        return 0;
    char neg_tag[HDR_LOG_TAG_MAX];
    snprintf(neg_tag, sizeof(neg_tag), "%s" NEG_SUFFIX, tag);
    /* The largest magnitude is that of the minimum. */
    int64_t most = l->min > INT64_MIN ? -l->min : INT64_MAX;
    return hdr_log_write(&h->w, neg_tag, from, len, most, &neg_lay, l->neg);
}

void run_hlog_write(run_hlog *h, const char *const *tags, size_t kinds, const lat *set)
{
    if (!h || h->failed)
        return;
    double to = now_epoch(), from = h->from;
    h->from = to;
    bool first = true;
    for (size_t k = 0; k < kinds; k++) {
        if (!tags[k])
            continue;
        bool write = first || h->started[k] || set[k].count > 0;
        first = false;
        if (!write)
            continue;
        h->started[k] = true;
        if (write_kind(h, tags[k], from, to - from, &set[k]) != 0) {
            printf("Error: %s\n", err_msg());
            h->failed = true;
            return;
        }
    }
    if (hdr_log_flush(&h->w) != 0) {
        printf("Error: %s\n", err_msg());
        h->failed = true;
    }
}

void run_hlog_close(run_hlog *h)
{
    if (!h)
        return;
    if (hdr_log_close(&h->w) != 0 && !h->failed)
        printf("Error: %s\n", err_msg());
    free(h->started);
    free(h);
}
