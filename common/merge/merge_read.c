/* merge_read: reading histogram logs and JSON summaries into processes (see merge.h). */
#include "merge.h"

#include "err.h"
#include "hdr_log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEG_SUFFIX "-negative"
/* 10000-01-01 00:00:00 UTC: an interval must lie between the epoch and this (seconds). */
#define TIME_END 253402300800.0

static const char *const our_tools[] = {"ConsPerf", "ProvPerf", "NIProvPerf", "TransportPerf"};

static bool is_our_tool(const char *t)
{
    for (size_t i = 0; i < sizeof(our_tools) / sizeof(our_tools[0]); i++)
        if (strcmp(t, our_tools[i]) == 0)
            return true;
    return false;
}

/* Records a bad input. Returns -1. */
static int bad(merge *m, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(merge *m, const char *file, int line, const char *fmt, ...)
{
    if (m->nbad == m->badcap) {
        int cap = m->badcap ? m->badcap * 2 : 8;
        merge_bad *b = realloc(m->bad, (size_t)cap * sizeof(*b));
        if (!b)
            return -1;
        m->bad = b;
        m->badcap = cap;
    }
    merge_bad *b = &m->bad[m->nbad++];
    snprintf(b->file, sizeof(b->file), "%s", file);
    b->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->what, sizeof(b->what), fmt, ap);
    va_end(ap);
    return -1;
}

void merge_warn(merge *m, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char **w = realloc(m->warnings, (size_t)(m->nwarn + 1) * sizeof(*w));
    if (!w)
        return;
    m->warnings = w;
    if ((w[m->nwarn] = strdup(buf)))
        m->nwarn++;
}

merge_kind *merge_kind_get(merge_proc *p, const char *tag)
{
    for (int i = 0; i < p->nkinds; i++)
        if (strcmp(p->kinds[i].tag, tag) == 0)
            return &p->kinds[i];
    if (p->nkinds == MERGE_KINDS)
        return NULL;
    merge_kind *k = &p->kinds[p->nkinds++];
    memset(k, 0, sizeof(*k));
    snprintf(k->tag, sizeof(k->tag), "%s", tag);
    k->max_ns = -1;
    return k;
}

double merge_kind_pct(const merge_kind *k, double p)
{
    return hdr_hist_percentile(&k->hist, p, k->max_ns);
}

static void proc_free(merge_proc *p)
{
    for (int i = 0; i < p->nkinds; i++)
        hdr_hist_free(&p->kinds[i].hist);
    p->nkinds = 0;
}

void merge_free(merge *m)
{
    for (int i = 0; i < m->nprocs; i++)
        proc_free(&m->procs[i]);
    proc_free(&m->combined);
    free(m->procs);
    free(m->bad);
    for (int i = 0; i < m->nwarn; i++)
        free(m->warnings[i]);
    free(m->warnings);
    free(m->hosts);
    hdr_codec_free(&m->codec);
    memset(m, 0, sizeof(*m));
}

/* The process of (tool, host, pid), made when new. A log's host may be a cut form of the
 * summary's (63 characters). NULL when out of memory. */
static merge_proc *proc_get(merge *m, const char *tool, const char *host, int pid)
{
    for (int i = 0; i < m->nprocs; i++) {
        merge_proc *p = &m->procs[i];
        size_t a = strlen(p->host), b = strlen(host), n = a < b ? a : b;
        if (p->pid == pid && strcmp(p->tool, tool) == 0 && strncmp(p->host, host, n) == 0 &&
            (a == b || n >= 63)) {
            if (b > a)
                snprintf(p->host, sizeof(p->host), "%s", host);
            return p;
        }
    }
    if (m->nprocs == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        merge_proc *ps = realloc(m->procs, (size_t)cap * sizeof(*ps));
        if (!ps)
            return NULL;
        m->procs = ps;
        m->cap = cap;
    }
    merge_proc *p = &m->procs[m->nprocs++];
    memset(p, 0, sizeof(*p));
    snprintf(p->tool, sizeof(p->tool), "%s", tool);
    snprintf(p->host, sizeof(p->host), "%s", host);
    p->pid = pid;
    p->start = INFINITY;
    p->end = -1;
    return p;
}

static void add_file(merge_proc *p, const char *path)
{
    size_t n = strlen(p->files);
    snprintf(p->files + n, sizeof(p->files) - n, "%s%s", n ? ", " : "", path);
}

/* Adds what src's logs hold to dst: negative samples, and the histogram (dst's made on first
 * use). Returns 0, or -1 (err_set). */
static int kind_add_log(merge_kind *dst, const merge_kind *src)
{
    dst->negative += src->negative;
    if (!src->has_hist)
        return 0;
    if (!dst->hist.counts && hdr_hist_init(&dst->hist, &src->hist.lay) != 0)
        return -1;
    if (hdr_hist_add(&dst->hist, &src->hist) != 0)
        return -1;
    dst->has_hist = true;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Histogram logs                                                                             */

/* Takes one interval into tmp's kinds; the first is where the header is checked. Returns 0,
 * -1 after bad(), or -2 when out of memory. */
static int take_interval(merge *m, const char *path, const hdr_log_reader *r, merge_proc *tmp,
                         hdr_log_entry *e, bool first)
{
    const hdr_log_info *in = &r->info;
    if (first && !in->rwfperf)
        return bad(m, path, e->line,
                   "a histogram log of another program (no \"#[rwfperf histogram log: ...]\" "
                   "line before the first interval): its units are unknown");
    if (first && strcmp(in->units, HDR_LOG_UNITS) != 0)
        return bad(m, path, in->units[0] ? in->units_line : e->line,
                   "values in %s, where rwfperf logs and the other inputs are in nanoseconds",
                   in->units[0] ? in->units : "an unknown unit (no \"#[Values: ...]\" line)");
    size_t tl = strlen(e->tag), sl = strlen(NEG_SUFFIX);
    bool neg = tl > sl && strcmp(e->tag + tl - sl, NEG_SUFFIX) == 0;
    if (neg)
        e->tag[tl - sl] = '\0';
    merge_kind *k = merge_kind_get(tmp, e->tag[0] ? e->tag : "untagged");
    if (!k)
        return bad(m, path, e->line, "more than %d latency kinds", MERGE_KINDS);
    double base = in->base >= 0 ? in->base : 0;
    double t0 = base + e->start, t1 = t0 + e->length;
    if (!(t0 >= 0 && t1 >= t0 && t1 < TIME_END))
        return bad(m, path, e->line,
                   "an interval from %.6g s to %.6g s after the epoch (BaseTime %.6g): not a "
                   "time between 1970 and 9999",
                   t0, t1, base);
    if (t0 < tmp->start)
        tmp->start = t0;
    if (t1 > tmp->end)
        tmp->end = t1;
    if (neg) {
        k->negative += e->hist.total;
        return 0;
    }
    if (!k->hist.counts && hdr_hist_init(&k->hist, &e->hist.lay) != 0)
        return -2;
    if (hdr_hist_add(&k->hist, &e->hist) != 0)
        return bad(m, path, e->line, "%s", err_msg());
    k->has_hist = true;
    int64_t max = (int64_t)llround(e->max * 1e6);
    if (e->hist.total && max > k->max_ns)
        k->max_ns = max;
    return 0;
}

/* Records the reader's error ("line <n>: <what>") as a bad input; before any interval and any
 * header line, the file is not a log at all. Returns -1. */
static int reader_bad(merge *m, const char *path, const hdr_log_reader *r, bool first)
{
    const char *msg = err_msg();
    int line = r->line, used = 0;
    if (sscanf(msg, "line %d: %n", &line, &used) == 1 && used > 0)
        msg += used;
    if (first && !r->info.rwfperf && r->info.format_major < 0 && r->info.start < 0)
        return bad(m, path, line, "neither a histogram log nor a JSON summary (%s)", msg);
    return bad(m, path, line, "%s", msg);
}

/* Reads every interval of an open log into tmp's kinds. Returns 0, -1 after bad(), or -2. */
static int log_intervals(merge *m, const char *path, hdr_log_reader *r, merge_proc *tmp)
{
    hdr_log_entry e = {0};
    int n = 0, rc;
    for (;;) {
        rc = hdr_log_next(r, &e);
        if (rc == 0)
            break;
        rc = rc < 0 ? reader_bad(m, path, r, n == 0) : take_interval(m, path, r, tmp, &e, n == 0);
        if (rc != 0)
            break;
        n++;
    }
    hdr_hist_free(&e.hist);
    if (rc != 0)
        return rc;
    if (n == 0)
        return bad(m, path, r->line,
                   r->info.rwfperf ? "no interval line after the header (the log was cut off?)"
                                   : "neither a histogram log nor a JSON summary");
    return 0;
}

/* Reads the histogram log f (named path; closed here) into m. */
static int read_log(merge *m, const char *path, FILE *f)
{
    hdr_log_reader r;
    hdr_log_reader_open_stream(&r, path, f);
    merge_proc *tmp = calloc(1, sizeof(*tmp));
    if (!tmp) {
        hdr_log_reader_close(&r);
        return -2;
    }
    tmp->start = INFINITY;
    tmp->end = -1;
    int rc = log_intervals(m, path, &r, tmp);
    if (rc == 0) {
        merge_proc *p = proc_get(m, r.info.tool, r.info.host, r.info.pid);
        if (!p)
            rc = -2;
        for (int i = 0; rc == 0 && i < tmp->nkinds; i++) {
            merge_kind *k = merge_kind_get(p, tmp->kinds[i].tag);
            if (!k)
                rc = bad(m, path, 0, "more than %d latency kinds in one process", MERGE_KINDS);
            else if (kind_add_log(k, &tmp->kinds[i]) != 0)
                rc = bad(m, path, 0, "%s", err_msg());
        }
        if (rc == 0) {
            p->logs++;
            add_file(p, path);
            if (r.info.clock[0] && !p->clock[0])
                snprintf(p->clock, sizeof(p->clock), "%s", r.info.clock);
            if (tmp->start < p->start)
                p->start = tmp->start;
            if (tmp->end > p->end)
                p->end = tmp->end;
        }
    }
    proc_free(tmp);
    free(tmp);
    hdr_log_reader_close(&r);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON summaries                                                                             */

/* The latency objects of a summary's results.overall and their tags, per tool. */
typedef struct json_kind {
    const char *tool; /* NULL: any */
    const char *key;
    const char *tag;
} json_kind;

static const json_kind json_kinds[] = {
    {"ConsPerf", "latency", "update"},        {"ConsPerf", "sched_latency", "sched-update"},
    {"ConsPerf", "posting_latency", "post"},  {"ConsPerf", "sched_posting_latency", "sched-post"},
    {NULL, "genmsg_latency", "genmsg"},       {NULL, "sched_genmsg_latency", "sched-genmsg"},
    {"TransportPerf", "latency", NULL},       /* oneway or rtt */
    {"TransportPerf", "sched_latency", NULL}, /* sched-oneway or sched-rtt */
};

static double num(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

/* Pools n samples of mean, squared deviations m2, min and max (us) into k's JSON side
 * (Chan et al.'s pairwise combination). */
static void pool_stats(merge_kind *k, uint64_t n, double mean, double m2, double min, double max,
                       uint64_t negative)
{
    if (n == 0)
        return;
    if (k->j_count == 0) {
        k->j_mean = mean;
        k->j_m2 = m2;
        k->j_min = min;
        k->j_max = max;
    } else {
        double na = (double)k->j_count, nb = (double)n, nt = na + nb, d = mean - k->j_mean;
        k->j_mean += d * nb / nt;
        k->j_m2 += m2 + d * d * na * nb / nt;
        if (min < k->j_min)
            k->j_min = min;
        if (max > k->j_max)
            k->j_max = max;
    }
    k->j_count += n;
    k->j_negative += negative;
    k->has_json = true;
}

/* Pools a JSON latency object ({"count", "avg", "stddev", "min", "max", "negative"}) into k;
 * its counts were checked by json_lat_check. */
static void pool_json_lat(merge_kind *k, json_object *l)
{
    uint64_t n = (uint64_t)num(l, "count");
    double sd = num(l, "stddev");
    pool_stats(k, n, num(l, "avg"), n > 1 ? sd * sd * (double)(n - 1) : 0, num(l, "min"),
               num(l, "max"), (uint64_t)num(l, "negative"));
}

/* True when key of o is absent (taken as 0) or a whole number from 0 to 2^53: a count that
 * converts to uint64_t exactly. */
static bool count_ok(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return true;
    double d = json_object_get_double(v);
    return d >= 0 && d <= 9007199254740992.0 && d == (double)(uint64_t)d;
}

/* Checks the counts of tool's latency objects in results.overall (ov) before any is pooled.
 * Returns 0, or -1 with the bad input recorded (which object, which member). */
static int json_lat_check(merge *m, const char *path, json_object *ov, const char *tool)
{
    for (size_t i = 0; i < sizeof(json_kinds) / sizeof(json_kinds[0]); i++) {
        const json_kind *jk = &json_kinds[i];
        json_object *l;
        if ((jk->tool && strcmp(jk->tool, tool) != 0) ||
            !json_object_object_get_ex(ov, jk->key, &l) ||
            !json_object_is_type(l, json_type_object))
            continue;
        const char *key = !count_ok(l, "count")      ? "count"
                          : !count_ok(l, "negative") ? "negative"
                                                     : NULL;
        if (key)
            return bad(m, path, 0,
                       "a %s JSON summary whose results.overall.%s.%s is not a whole number "
                       "from 0 to 2^53",
                       tool, jk->key, key);
    }
    return 0;
}

/* A boolean member of o (false when absent or not a boolean). */
static bool flag(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_boolean) &&
           json_object_get_boolean(v);
}

/* Copies a string member of o into buf ("" when absent or not a string). */
static void text(json_object *o, const char *key, char *buf, size_t size)
{
    json_object *v;
    bool s = json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string);
    snprintf(buf, size, "%s", s ? json_object_get_string(v) : "");
}

/* A consumer's results.clock_offset (clksync_json's form) into p. */
static void json_offset(merge_proc *p, json_object *o)
{
    p->has_offset = true;
    p->offset.measured = flag(o, "measured");
    p->offset.offset_usec = num(o, "offset_usec");
    p->offset.bound_usec = num(o, "bound_usec");
    p->offset.larger_than_latency = flag(o, "larger_than_latency");
    text(o, "reason", p->offset.why, sizeof(p->offset.why));
}

/* A host clock file's {"host_clock": {...}} (o) into m. Returns 0, -1 after bad(), -2. */
static int read_host_clock(merge *m, const char *path, json_object *o)
{
    merge_host h;
    memset(&h, 0, sizeof(h));
    text(o, "host", h.host, sizeof(h.host));
    if (!h.host[0])
        return bad(m, path, 0, "a host clock file without \"host\"");
    for (int i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i].host, h.host) == 0)
            return bad(m, path, 0, "a second host clock file of %s (the first: %s)", h.host,
                       m->hosts[i].file);
    text(o, "sync", h.sync, sizeof(h.sync));
    if (!h.sync[0])
        snprintf(h.sync, sizeof(h.sync), "unknown");
    h.synchronised = flag(o, "synchronised");
    json_object *v;
    if (json_object_object_get_ex(o, "offset_ns", &v) &&
        (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
        h.has_offset = true;
        h.offset_ns = json_object_get_double(v);
    }
    text(o, "detail", h.detail, sizeof(h.detail));
    snprintf(h.file, sizeof(h.file), "%s", path);
    merge_host *hs = realloc(m->hosts, (size_t)(m->nhosts + 1) * sizeof(*hs));
    if (!hs)
        return -2;
    m->hosts = hs;
    m->hosts[m->nhosts++] = h;
    return 0;
}

static int json_into_proc(merge *m, const char *path, json_object *doc, const char *tool)
{
    json_object *host = NULL, *name = NULL, *pid = NULL, *res = NULL, *ov = NULL, *in = NULL;
    json_object_object_get_ex(doc, "host", &host);
    if (host)
        json_object_object_get_ex(host, "name", &name);
    json_object_object_get_ex(doc, "pid", &pid);
    if (!json_object_object_get_ex(doc, "results", &res) ||
        !json_object_object_get_ex(res, "overall", &ov) ||
        !json_object_is_type(ov, json_type_object))
        return bad(m, path, 0, "a %s JSON summary without results.overall (cut off?)", tool);
    if (json_lat_check(m, path, ov, tool) < 0)
        return -1;
    merge_proc *p = proc_get(m, tool, name ? json_object_get_string(name) : "",
                             pid ? json_object_get_int(pid) : 0);
    if (!p)
        return -2;
    if (p->has_json)
        return bad(m, path, 0, "a second JSON summary of %s pid %d on %s", tool, p->pid, p->host);
    p->has_json = true;
    add_file(p, path);
    for (int i = 0; i < merge_total_count(); i++) {
        json_object *v;
        if (json_object_object_get_ex(ov, merge_total_key(i), &v) &&
            (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
            p->totals.have[i] = true;
            p->totals.v[i] += json_object_get_double(v);
        }
    }
    json_object *clock, *src, *off;
    if (json_object_object_get_ex(doc, "clock", &clock) &&
        json_object_object_get_ex(clock, "source", &src) &&
        json_object_is_type(src, json_type_string))
        snprintf(p->clock, sizeof(p->clock), "%s", json_object_get_string(src));
    if (json_object_object_get_ex(res, "clock_offset", &off) &&
        json_object_is_type(off, json_type_object))
        json_offset(p, off);
    json_object_object_get_ex(doc, "inputs", &in);
    bool rtt = in && num(in, "msgRate") > 0;
    for (size_t i = 0; i < sizeof(json_kinds) / sizeof(json_kinds[0]); i++) {
        const json_kind *jk = &json_kinds[i];
        json_object *l;
        if ((jk->tool && strcmp(jk->tool, tool) != 0) ||
            !json_object_object_get_ex(ov, jk->key, &l) ||
            !json_object_is_type(l, json_type_object))
            continue;
        const char *tag = jk->tag;
        if (!tag)
            tag = strncmp(jk->key, "sched", 5) == 0 ? (rtt ? "sched-rtt" : "sched-oneway")
                                                    : (rtt ? "rtt" : "oneway");
        merge_kind *k = merge_kind_get(p, tag);
        if (k)
            pool_json_lat(k, l);
    }
    return 0;
}

/* Line number of byte offset off in text. */
static int line_of(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && text[i]; i++)
        line += text[i] == '\n';
    return line;
}

static int read_json(merge *m, const char *path, const char *text, size_t len)
{
    json_tokener *t = json_tokener_new();
    if (!t)
        return -2;
    json_object *doc = json_tokener_parse_ex(t, text, (int)len);
    enum json_tokener_error je = json_tokener_get_error(t);
    size_t off = t->char_offset;
    json_tokener_free(t);
    int rc;
    json_object *tool, *hc;
    if (!doc || je != json_tokener_success)
        rc = bad(m, path, line_of(text, off), "not valid JSON (%s%s)",
                 json_tokener_error_desc(je == json_tokener_success ? json_tokener_continue : je),
                 je == json_tokener_continue || je == json_tokener_success ? ": cut off?" : "");
    else if (json_object_is_type(doc, json_type_object) &&
             json_object_object_get_ex(doc, "host_clock", &hc) &&
             json_object_is_type(hc, json_type_object))
        rc = read_host_clock(m, path, hc);
    else if (!json_object_is_type(doc, json_type_object) ||
             !json_object_object_get_ex(doc, "tool", &tool) ||
             !json_object_is_type(tool, json_type_string))
        rc = bad(m, path, 1, "a JSON document that is not an rwfperf summary (no \"tool\")");
    else if (!is_our_tool(json_object_get_string(tool)))
        rc = bad(m, path, 1, "the JSON summary of another tool (\"%s\")",
                 json_object_get_string(tool));
    else
        rc = json_into_proc(m, path, doc, json_object_get_string(tool));
    json_object_put(doc);
    return rc;
}

int merge_read_file(merge *m, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return bad(m, path, 0, "cannot open: %s", strerror(errno));
    return merge_read_stream(m, path, f);
}

int merge_slurp(FILE *f, char **text, size_t *len)
{
    /* The buffer starts small (a summary is a few KB) and doubles when full: reading a short
     * stream costs no large allocation. */
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 4096;
            char *t = realloc(buf, cap);
            if (!t) {
                free(buf);
                return -2;
            }
            buf = t;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int merge_read_stream(merge *m, const char *path, FILE *f)
{
    /* Sniff: a JSON summary starts with '{'; anything else is read as a histogram log. */
    int c;
    while ((c = fgetc(f)) != EOF && isspace(c))
        ;
    if (c == EOF) {
        fclose(f);
        return bad(m, path, 0, "the file is empty");
    }
    if (c != '{') {
        rewind(f);
        return read_log(m, path, f);
    }
    char *text;
    size_t len;
    rewind(f);
    int got = merge_slurp(f, &text, &len);
    fclose(f);
    if (got != 0)
        return got == -2 ? -2 : bad(m, path, 0, "read error");
    int rc = read_json(m, path, text, len);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Combining                                                                                  */

/* Warns when a process's logs and its summary disagree on a kind's sample count. */
static void check_counts(merge *m, const merge_proc *p, const merge_kind *k)
{
    if (!k->has_hist || !k->has_json)
        return;
    uint64_t logged = k->hist.total + k->negative;
    if (logged != k->j_count)
        merge_warn(m,
                   "%s pid %d on %s: %s: the histogram logs hold %llu samples, the JSON summary "
                   "%llu (a log missing or cut off?)",
                   p->tool, p->pid, p->host, k->tag, (unsigned long long)logged,
                   (unsigned long long)k->j_count);
}

int merge_combine(merge *m)
{
    merge_proc *c = &m->combined;
    proc_free(c);
    memset(c, 0, sizeof(*c));
    c->start = INFINITY;
    c->end = -1;
    for (int i = 0; i < m->nprocs; i++) {
        merge_proc *p = &m->procs[i];
        for (int t = 0; t < MERGE_TOTALS; t++)
            if (p->totals.have[t]) {
                c->totals.have[t] = true;
                c->totals.v[t] += p->totals.v[t];
            }
        if (p->end >= 0 && p->start < c->start)
            c->start = p->start;
        if (p->end > c->end)
            c->end = p->end;
        uint64_t negative = 0;
        for (int k = 0; k < p->nkinds; k++)
            negative += p->kinds[k].negative ? p->kinds[k].negative : p->kinds[k].j_negative;
        if (negative)
            merge_warn(m,
                       "%s pid %d on %s: %llu latency samples below zero: its clock and the "
                       "senders' disagree",
                       p->tool, p->pid, p->host, (unsigned long long)negative);
        for (int k = 0; k < p->nkinds; k++) {
            merge_kind *src = &p->kinds[k], *dst = merge_kind_get(c, src->tag);
            if (!dst)
                return err_set("more than %d latency kinds", MERGE_KINDS);
            check_counts(m, p, src);
            if (kind_add_log(dst, src) != 0)
                return -1;
            if (src->has_hist)
                dst->hist_procs++;
            if (src->has_json) {
                pool_stats(dst, src->j_count, src->j_mean, src->j_m2, src->j_min, src->j_max,
                           src->j_negative);
                dst->json_procs++;
            }
            dst->procs++;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Clocks                                                                                     */

bool merge_kind_one_way(const char *tag)
{
    static const char *const one_way[] = {"update",       "sched-update", "genmsg",
                                          "sched-genmsg", "oneway",       "sched-oneway"};
    for (size_t i = 0; i < sizeof(one_way) / sizeof(one_way[0]); i++)
        if (strcmp(tag, one_way[i]) == 0)
            return true;
    return false;
}

/* Appends host to the list in buf unless it is there ("a, b"). */
static void list_add(char *buf, size_t size, const char *host)
{
    size_t n = strlen(host), len = strlen(buf);
    for (const char *s = buf; (s = strstr(s, host)); s += n)
        if ((s == buf || s[-2] == ',') && (s[n] == '\0' || s[n] == ','))
            return;
    snprintf(buf + len, size - len, "%s%s", len ? ", " : "", host);
}

const merge_host *merge_host_of(const merge *m, const char *host)
{
    for (int i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i].host, host) == 0)
            return &m->hosts[i];
    return NULL;
}

merge_clock_verdict merge_clocks(const merge *m)
{
    merge_clock_verdict v = {0};
    char mono[512] = "", unnamed[512] = "", unsynced[512] = "", unknown[512] = "";
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        int j = 0;
        while (j < i && strcmp(m->procs[j].host, p->host) != 0)
            j++;
        v.hosts += j == i;
        if (!p->clock[0])
            list_add(unnamed, sizeof(unnamed), p->host);
        else if (strcmp(p->clock, "realtime") != 0)
            list_add(mono, sizeof(mono), p->host);
        const merge_host *h = merge_host_of(m, p->host);
        if (!h || strcmp(h->sync, "unknown") == 0)
            list_add(unknown, sizeof(unknown), p->host);
        else if (!h->synchronised)
            list_add(unsynced, sizeof(unsynced), p->host);
    }
    v.one_way_ok = v.hosts <= 1 || !(mono[0] || unnamed[0] || unsynced[0] || unknown[0]);
    if (v.one_way_ok)
        return v;
    size_t n = 0;
    const struct {
        const char *what, *list;
    } parts[] = {{"clock monotonic on ", mono},
                 {"clock not named (monotonic) on ", unnamed},
                 {"synchronisation unknown on ", unknown},
                 {"clock not synchronised on ", unsynced}};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (parts[i].list[0] && n < sizeof(v.why))
            n += (size_t)snprintf(v.why + n, sizeof(v.why) - n, "%s%s%s", n ? "; " : "",
                                  parts[i].what, parts[i].list);
    return v;
}
