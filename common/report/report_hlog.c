/* report_hlog: the histogram logs' intervals, and the latency over time read from them (see
 * report.h). */
#include "report.h"

#include "err.h"
#include "hdr_log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEG_SUFFIX "-negative"
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
/* 10000-01-01 00:00:00 UTC: an interval must lie between the epoch and this (seconds). */
#define TIME_END 253402300800.0

/* The line of the "#[Host: " header line of path, 0 when none is among its first lines. */
static int host_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[256];
    int line = 0, found = 0;
    while (!found && line < 16 && fgets(buf, sizeof(buf), f)) {
        line++;
        if (strncmp(buf, "#[Host: ", 8) == 0)
            found = line;
    }
    fclose(f);
    return found;
}

/* The intervals of tag in l, made when new. NULL when out of memory. */
static rpt_kind_ivs *kind_of(rpt_log *l, const char *tag)
{
    for (int i = 0; i < l->nkinds; i++)
        if (strcmp(l->kinds[i].tag, tag) == 0)
            return &l->kinds[i];
    rpt_kind_ivs *k = realloc(l->kinds, (size_t)(l->nkinds + 1) * sizeof(*k));
    if (!k)
        return NULL;
    l->kinds = k;
    k = &l->kinds[l->nkinds++];
    memset(k, 0, sizeof(*k));
    snprintf(k->tag, sizeof(k->tag), "%s", tag);
    return k;
}

/* Stores the interval e (its histogram converted into the latency layout in scratch) in k.
 * Returns 0, or -1 with err text. */
static int keep_interval(rpt_kind_ivs *k, const hdr_log_entry *e, double start, double end,
                         hdr_hist *scratch)
{
    hdr_hist_reset(scratch);
    if (hdr_hist_add(scratch, &e->hist) != 0)
        return -1;
    if (rpt_grow(&k->iv, &k->cap, k->n, sizeof(*k->iv)) != 0)
        return err_set("out of memory");
    rpt_iv *iv = &k->iv[k->n];
    memset(iv, 0, sizeof(*iv));
    iv->start = start;
    iv->end = end;
    iv->total = scratch->total;
    iv->max_ns = scratch->total ? (int64_t)llround(e->max * 1e6) : -1;
    int32_t nz = 0;
    for (int32_t i = 0; i <= scratch->hi && i < scratch->lay.len; i++)
        nz += scratch->counts[i] != 0;
    iv->idx = malloc((size_t)(nz ? nz : 1) * sizeof(*iv->idx));
    iv->cnt = malloc((size_t)(nz ? nz : 1) * sizeof(*iv->cnt));
    if (!iv->idx || !iv->cnt) {
        free(iv->idx);
        free(iv->cnt);
        return err_set("out of memory");
    }
    for (int32_t i = 0; i <= scratch->hi && i < scratch->lay.len; i++)
        if (scratch->counts[i]) {
            iv->idx[iv->n] = i;
            iv->cnt[iv->n++] = scratch->counts[i];
        }
    k->n++;
    return 0;
}

int rpt_log_read(rpt *r, const char *path, rpt_log *l)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->path, sizeof(l->path), "%s", path);
    l->start = INFINITY;
    l->end = -1;
    l->proc = -1;
    hdr_log_reader rd;
    if (hdr_log_reader_open(&rd, path) != 0)
        return rpt_bad_add(r, path, 0, "%s", err_msg());
    hdr_layout lay;
    hdr_layout_lat(&lay);
    hdr_hist scratch = {0};
    hdr_log_entry e = {0};
    int rc = hdr_hist_init(&scratch, &lay) == 0 ? 0 : -2, n = 0;
    while (rc == 0) {
        int got = hdr_log_next(&rd, &e);
        if (got == 0)
            break;
        if (got < 0) {
            const char *msg = err_msg();
            int line = rd.line, used = 0;
            if (sscanf(msg, "line %d: %n", &line, &used) == 1 && used > 0)
                msg += used;
            rc = rpt_bad_add(r, path, line, "%s", msg);
            break;
        }
        const hdr_log_info *in = &rd.info;
        if (n == 0) {
            if (!in->rwfperf) {
                rc = rpt_bad_add(r, path, e.line,
                                 "a histogram log of another program (no \"#[rwfperf histogram "
                                 "log: ...]\" line before the first interval)");
                break;
            }
            if (strcmp(in->units, HDR_LOG_UNITS) != 0) {
                rc = rpt_bad_add(r, path, in->units[0] ? in->units_line : e.line,
                                 "values in %s, where rwfperf logs are in nanoseconds",
                                 in->units[0] ? in->units : "an unknown unit");
                break;
            }
            l->first_line = e.line;
        }
        n++;
        double base = in->base >= 0 ? in->base : 0;
        double t0 = base + e.start, t1 = t0 + e.length;
        if (!(t0 >= 0 && t1 >= t0 && t1 < TIME_END)) {
            rc = rpt_bad_add(r, path, e.line,
                             "an interval from %.6g s to %.6g s after the epoch: "
                             "not a time between 1970 and 9999",
                             t0, t1);
            break;
        }
        if (t0 < l->start)
            l->start = t0;
        if (t1 > l->end)
            l->end = t1;
        if (e.tag[0] && strspn(e.tag, NAME_CHARS) != strlen(e.tag)) {
            rc = rpt_bad_add(r, path, e.line,
                             "tag \"%s\": a latency kind is named with letters, digits, '-', "
                             "'_' and '.' only",
                             e.tag);
            break;
        }
        size_t tl = strlen(e.tag), sl = strlen(NEG_SUFFIX);
        if (tl > sl && strcmp(e.tag + tl - sl, NEG_SUFFIX) == 0)
            continue; /* samples below zero: counted by the merge, not drawn */
        rpt_kind_ivs *k = kind_of(l, e.tag[0] ? e.tag : "untagged");
        if (!k)
            rc = -2;
        else if (keep_interval(k, &e, t0, t1, &scratch) != 0)
            rc = rpt_bad_add(r, path, e.line, "%s", err_msg());
    }
    if (rc == 0 && n == 0)
        rc = rpt_bad_add(r, path, rd.line,
                         rd.info.rwfperf ? "no interval line after the header (cut off?)"
                                         : "not a histogram log");
    if (rc == 0) {
        snprintf(l->tool, sizeof(l->tool), "%s", rd.info.tool);
        snprintf(l->host, sizeof(l->host), "%s", rd.info.host);
        snprintf(l->version, sizeof(l->version), "%s", rd.info.version);
        snprintf(l->git_rev, sizeof(l->git_rev), "%s", rd.info.git_rev);
        l->pid = rd.info.pid;
        l->thread = rd.info.thread;
        l->host_line = host_line(path);
        if (rpt_tool_of(l->tool) < 0)
            rc = rpt_bad_add(r, path, l->host_line > 1 ? l->host_line - 1 : 1,
                             "a log of \"%s\", which is not one of the tools", l->tool);
    }
    hdr_hist_free(&e.hist);
    hdr_hist_free(&scratch);
    hdr_log_reader_close(&rd);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Latency over time                                                                          */

typedef struct slot_ref {
    long long slot;
    const rpt_iv *iv;
} slot_ref;

/* qsort order of slot references: by slot. */
static int by_slot(const void *a, const void *b)
{
    const slot_ref *x = a, *y = b;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The most common interval length of refs' intervals, to the millisecond; 1 s when none. */
static double common_length(const slot_ref *refs, int n)
{
    double best = 1;
    int best_count = 0;
    /* n is small enough (intervals of a run) for a quadratic count over distinct lengths. */
    for (int i = 0; i < n; i++) {
        long long li = llround((refs[i].iv->end - refs[i].iv->start) * 1000);
        if (li <= 0)
            continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = llround((refs[j].iv->end - refs[j].iv->start) * 1000) == li;
        if (seen)
            continue;
        int count = 0;
        for (int j = i; j < n; j++)
            count += llround((refs[j].iv->end - refs[j].iv->start) * 1000) == li;
        if (count > best_count) {
            best_count = count;
            best = (double)li / 1000;
        }
        if (count > n / 2)
            break;
    }
    return best;
}

int rpt_slots(const rpt *r, int tool, const char *tag, rpt_slot **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int n = 0;
    for (int i = 0; i < r->nlogs; i++)
        if (rpt_tool_of(r->logs[i].tool) == tool)
            for (int k = 0; k < r->logs[i].nkinds; k++)
                if (strcmp(r->logs[i].kinds[k].tag, tag) == 0)
                    n += r->logs[i].kinds[k].n;
    if (n == 0)
        return 0;
    slot_ref *refs = malloc((size_t)n * sizeof(*refs));
    if (!refs)
        return -1;
    n = 0;
    double t0 = INFINITY;
    for (int i = 0; i < r->nlogs; i++)
        if (rpt_tool_of(r->logs[i].tool) == tool)
            for (int k = 0; k < r->logs[i].nkinds; k++)
                if (strcmp(r->logs[i].kinds[k].tag, tag) == 0)
                    for (int j = 0; j < r->logs[i].kinds[k].n; j++) {
                        refs[n++].iv = &r->logs[i].kinds[k].iv[j];
                        if (r->logs[i].kinds[k].iv[j].start < t0)
                            t0 = r->logs[i].kinds[k].iv[j].start;
                    }
    /* Each interval goes to the slot its end is nearest to: the intervals of processes that
     * started apart in time, but log at the same pace, meet in one slot. */
    double len = common_length(refs, n < 2000 ? n : 2000);
    for (int i = 0; i < n; i++)
        refs[i].slot = llround((refs[i].iv->end - t0) / len);
    qsort(refs, (size_t)n, sizeof(*refs), by_slot);
    rpt_slot *slots = malloc((size_t)n * sizeof(*slots));
    hdr_layout lay;
    hdr_layout_lat(&lay);
    hdr_hist h = {0};
    if (!slots || hdr_hist_init(&h, &lay) != 0) {
        free(slots);
        free(refs);
        return -1;
    }
    int ns = 0;
    for (int i = 0; i < n;) {
        int j = i;
        int64_t max = -1;
        hdr_hist_reset(&h);
        for (; j < n && refs[j].slot == refs[i].slot; j++) {
            const rpt_iv *iv = refs[j].iv;
            for (int32_t c = 0; c < iv->n; c++)
                h.counts[iv->idx[c]] += iv->cnt[c];
            h.total += iv->total;
            if (iv->n && iv->idx[iv->n - 1] + 1 > h.hi)
                h.hi = iv->idx[iv->n - 1] + 1;
            if (iv->max_ns > max)
                max = iv->max_ns;
        }
        if (h.total) {
            rpt_slot *s = &slots[ns++];
            s->t = t0 + (double)refs[i].slot * len;
            s->samples = h.total;
            s->p50 = hdr_hist_percentile(&h, 50, max) / 1000.0;
            s->p99 = hdr_hist_percentile(&h, 99, max) / 1000.0;
            s->max = max >= 0 ? (double)max / 1000.0
                              : (double)hdr_index_high(&lay, hdr_hist_max_index(&h)) / 1000.0;
        }
        i = j;
    }
    hdr_hist_free(&h);
    free(refs);
    *out = slots;
    *nout = ns;
    return 0;
}

int rpt_log_kinds(const rpt *r, int tool, const char **tags, int max)
{
    int n = 0;
    for (int i = 0; i < r->nlogs; i++) {
        if (rpt_tool_of(r->logs[i].tool) != tool)
            continue;
        for (int k = 0; k < r->logs[i].nkinds; k++) {
            const char *t = r->logs[i].kinds[k].tag;
            bool seen = false;
            for (int j = 0; j < n && !seen; j++)
                seen = strcmp(tags[j], t) == 0;
            if (!seen && n < max)
                tags[n++] = t;
        }
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = merge_kind_rank(tags[j - 1]), b = merge_kind_rank(tags[j]);
            if (a < b || (a == b && strcmp(tags[j - 1], tags[j]) <= 0))
                break;
            const char *t = tags[j];
            tags[j] = tags[j - 1];
            tags[j - 1] = t;
        }
    return n;
}
