/* merge_report: the combined report as text, JSON and a percentile table (see merge.h). */
#include "merge.h"

#include "err.h"
#include "out.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Summed counters of the summaries' results.overall, with the summaries' labels. */
static const struct {
    const char *key;
    const char *label;
} totals[] = {
    {"item_count", "Items"},
    {"requests_sent", "Requests sent"},
    {"refreshes_received", "Refreshes received"},
    {"image_requests_received", "Image requests received"},
    {"images_sent", "Images sent"},
    {"updates_received", "Updates received"},
    {"updates_sent", "Updates sent"},
    {"posts_sent", "Posts sent"},
    {"posts_reflected", "Posts reflected"},
    {"genmsgs_sent", "GenMsgs sent"},
    {"genmsgs_received", "GenMsgs received"},
    {"msgs_sent", "Msgs sent"},
    {"msgs_received", "Msgs received"},
    {"sequence_gaps", "Sequence gaps"},
    {"image_rate", "Avg image rate"},
    {"steady_update_rate", "Steady-state update rate"},
    {"update_rate", "Avg update rate"},
    {"posting_rate", "Avg posting rate"},
    {"genmsg_send_rate", "Avg GenMsg send rate"},
    {"genmsg_receive_rate", "Avg GenMsg receive rate"},
    {"msg_sent_rate", "Msgs sent per sec"},
    {"msg_recv_rate", "Msgs received per sec"},
};
#define NTOTALS ((int)(sizeof(totals) / sizeof(totals[0])))
_Static_assert(NTOTALS <= MERGE_TOTALS, "MERGE_TOTALS too small");

int merge_total_count(void)
{
    return NTOTALS;
}

const char *merge_total_key(int i)
{
    return totals[i].key;
}

const char *merge_total_label(int i)
{
    return totals[i].label;
}

/* Kinds in report order, with the summaries' labels. */
static const struct {
    const char *tag;
    const char *label;
    int decimals;
} kinds[] = {
    {"update", "Latency", 1},
    {"sched-update", "Sched latency", 1},
    {"post", "Posting latency", 1},
    {"sched-post", "Sched posting latency", 1},
    {"genmsg", "GenMsg latency", 1},
    {"sched-genmsg", "Sched GenMsg latency", 1},
    {"oneway", "One-way latency", 3},
    {"sched-oneway", "Sched one-way latency", 3},
    {"rtt", "Round-trip latency", 3},
    {"sched-rtt", "Sched round-trip latency", 3},
    {"decode", "Update decode time", 3},
    {"encode", "Update encode time", 3},
};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

const char *merge_kind_label(const char *tag, int *decimals)
{
    for (int i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i].tag, tag) == 0) {
            *decimals = kinds[i].decimals;
            return kinds[i].label;
        }
    *decimals = 1;
    return tag;
}

int merge_kind_rank(const char *tag)
{
    for (int i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i].tag, tag) == 0)
            return i;
    return NKINDS;
}

/* The kinds of p in report order, into out (p->nkinds entries). */
static void sorted_kinds(const merge_proc *p, const merge_kind **out)
{
    for (int i = 0; i < p->nkinds; i++)
        out[i] = &p->kinds[i];
    for (int i = 1; i < p->nkinds; i++)
        for (int j = i; j > 0; j--) {
            int a = merge_kind_rank(out[j - 1]->tag), b = merge_kind_rank(out[j]->tag);
            if (a < b || (a == b && strcmp(out[j - 1]->tag, out[j]->tag) <= 0))
                break;
            const merge_kind *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
}

/* The figures of one kind, in microseconds. */
typedef struct kind_figures {
    uint64_t samples;
    uint64_t negative;
    bool exact_avg; /* avg, std dev, min, max from the summaries (else from the histogram) */
    double avg, stddev, min, max;
    bool pct;    /* percentiles from histograms */
    double p[5]; /* p50, p90, p99, p99.9, p99.99 */
} kind_figures;

static const double pct_points[5] = {50, 90, 99, 99.9, 99.99};
static const char *const pct_names[5] = {"p50", "p90", "p99", "p99.9", "p99.99"};
static const char *const pct_keys[5] = {"p50", "p90", "p99", "p99_9", "p99_99"};

/* The note of percentile i when it rests on fewer samples than it needs (out.h, "Honest
 * percentiles": the histograms' samples, negative ones are not in them): "only <n> samples:
 * this is the maximum". Returns false (buf "") when it has enough. */
static bool pct_note(char *buf, size_t size, const kind_figures *g, int i)
{
    stat_lat l = {.count = g->samples, .negative = g->negative};
    return out_pct_note(buf, size, &l, pct_points[i]);
}

/* Standard deviation of a histogram's samples taken at their counters' middles. */
static double hist_stddev(const hdr_hist *h, double mean)
{
    if (h->total < 2)
        return 0;
    double s = 0;
    for (int32_t i = 0; i < h->lay.len; i++)
        if (h->counts[i]) {
            double v = ((double)hdr_index_low(&h->lay, i) + (double)hdr_index_high(&h->lay, i)) / 2;
            s += (double)h->counts[i] * (v - mean) * (v - mean);
        }
    return sqrt(s / (double)(h->total - 1));
}

static kind_figures figures(const merge_kind *k)
{
    kind_figures f = {0};
    f.negative = k->has_hist || k->negative ? k->negative : k->j_negative;
    /* Exact figures when every process with this kind had a summary (a process's own kind
     * has procs == 0). */
    f.exact_avg = k->has_json && k->j_count > 0 && (k->procs == 0 || k->json_procs == k->procs);
    if (k->has_hist) {
        f.samples = k->hist.total + k->negative;
        f.pct = k->hist.total > 0;
        for (int i = 0; i < 5 && f.pct; i++)
            f.p[i] = merge_kind_pct(k, pct_points[i]) / 1000.0;
    } else {
        f.samples = k->j_count;
    }
    if (f.exact_avg) {
        f.avg = k->j_mean;
        f.stddev = k->j_count > 1 ? sqrt(k->j_m2 / (double)(k->j_count - 1)) : 0;
        f.min = k->j_min;
        f.max = k->j_max;
    } else if (f.pct) {
        double mean = hdr_hist_mean(&k->hist);
        f.avg = mean / 1000.0;
        f.stddev = hist_stddev(&k->hist, mean) / 1000.0;
        f.min = (double)hdr_index_low(&k->hist.lay, hdr_hist_min_index(&k->hist)) / 1000.0;
        f.max = (double)k->max_ns / 1000.0;
    }
    return f;
}

/* ------------------------------------------------------------------------------------------ */
/* Text                                                                                       */

/* Writes the UTC time t (seconds since the epoch) into buf with fmt; "?" when t is not a time
 * gmtime can give (not finite, or beyond +-1e11 s). */
static void utc(char *buf, size_t size, double t, const char *fmt)
{
    struct tm tm;
    time_t s = (time_t)(t >= -1e11 && t <= 1e11 ? floor(t) : 0);
    if (!(t >= -1e11 && t <= 1e11) || !gmtime_r(&s, &tm) || !strftime(buf, size, fmt, &tm))
        snprintf(buf, size, "?");
}

/* A kind's lines; not_valid: the kind is a one-way measure between hosts that is not valid. */
static void text_kind(FILE *f, const merge_kind *k, bool not_valid)
{
    int dec;
    const char *label = merge_kind_label(k->tag, &dec);
    kind_figures g = figures(k);
    if (g.samples == 0 && g.negative == 0)
        return; /* a kind logged but never measured (no generic messages, ...) */
    fprintf(f, "  %s samples: %llu%s\n", label, (unsigned long long)g.samples,
            not_valid ? " (one-way between hosts: not valid, see CLOCKS)" : "");
    if (g.exact_avg || g.pct) {
        fprintf(f, "  %s avg (usec): %.*f\n", label, dec, g.avg);
        fprintf(f, "  %s std dev (usec): %.*f\n", label, dec, g.stddev);
        fprintf(f, "  %s max (usec): %.*f\n", label, dec, g.max);
        fprintf(f, "  %s min (usec): %.*f\n", label, dec, g.min);
    }
    if (g.pct)
        for (int i = 0; i < 5; i++) {
            char note[96];
            if (pct_note(note, sizeof(note), &g, i))
                fprintf(f, "  %s %s (usec): %.*f (%s)\n", label, pct_names[i], dec, g.p[i], note);
            else
                fprintf(f, "  %s %s (usec): %.*f\n", label, pct_names[i], dec, g.p[i]);
        }
    else if (g.samples)
        fprintf(f, "  %s percentiles: none (no histogram log, -histogramLog, was given)\n", label);
    if (g.negative)
        fprintf(f, "  %s samples below zero: %llu\n", label, (unsigned long long)g.negative);
}

/* "ConsPerf 3, ProvPerf 1" into buf. */
static void tool_counts(const merge *m, char *buf, size_t size)
{
    static const char *const tools[] = {"ConsPerf", "ProvPerf", "NIProvPerf", "TransportPerf"};
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < 4; t++) {
        int c = 0;
        for (int i = 0; i < m->nprocs; i++)
            c += strcmp(m->procs[i].tool, tools[t]) == 0;
        if (c && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s %d", n ? ", " : "", tools[t], c);
    }
}

static void text_input(FILE *f, const merge_proc *p)
{
    fprintf(f, "  %s pid %d on %s:", p->tool, p->pid, p->host[0] ? p->host : "?");
    const char *sep = " ";
    for (int t = 0; t < NTOTALS; t++) {
        static const char *const shown[] = {"item_count", "update_rate", "updates_sent",
                                            "msg_recv_rate", "msg_sent_rate"};
        for (size_t s = 0; s < sizeof(shown) / sizeof(shown[0]); s++)
            if (p->totals.have[t] && strcmp(totals[t].key, shown[s]) == 0) {
                fprintf(f, "%s%s %.0f", sep, totals[t].label, p->totals.v[t]);
                sep = ", ";
            }
    }
    const merge_kind *ks[MERGE_KINDS];
    sorted_kinds(p, ks);
    for (int i = 0; i < p->nkinds; i++) {
        int dec;
        const char *label = merge_kind_label(ks[i]->tag, &dec);
        kind_figures g = figures(ks[i]);
        if (i == 0 && g.pct)
            fprintf(f, "%s%s p50 %.*f, p99 %.*f usec", sep, label, dec, g.p[0], dec, g.p[2]);
        else if (i == 0)
            fprintf(f, "%s%s: %s", sep, label,
                    ks[i]->has_hist || ks[i]->negative ? "no samples" : "no histogram log");
        if (g.negative)
            fprintf(f, ", %s: %llu below zero", ks[i]->tag, (unsigned long long)g.negative);
        sep = ", ";
    }
    fprintf(f, "\n    files: %s\n", p->files);
}

/* There is something to say about clocks: several hosts, a host clock file, or an offset. */
static bool has_clocks(const merge *m, const merge_clock_verdict *v)
{
    bool any = v->hosts > 1 || m->nhosts > 0;
    for (int i = 0; i < m->nprocs && !any; i++)
        any = m->procs[i].has_offset;
    return any;
}

/* The clocks of host's processes, "realtime (ConsPerf, ProvPerf)", into buf. */
static void host_clocks(const merge *m, const char *host, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        const char *want = pass == 0 ? "realtime" : NULL;
        char tools[256] = "";
        for (int i = 0; i < m->nprocs; i++) {
            const merge_proc *p = &m->procs[i];
            bool rt = strcmp(p->clock, "realtime") == 0;
            if (strcmp(p->host, host) != 0 || (want ? !rt : rt) || strstr(tools, p->tool))
                continue;
            size_t t = strlen(tools);
            snprintf(tools + t, sizeof(tools) - t, "%s%s", t ? ", " : "", p->tool);
        }
        if (tools[0] && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s (%s)", n ? ", " : "",
                                  want ? "realtime" : "monotonic", tools);
    }
}

/* The synchronisation of a host as the report says it. */
static void host_sync(const merge_host *h, char *buf, size_t size)
{
    if (!h || strcmp(h->sync, "unknown") == 0) {
        snprintf(buf, size, "synchronisation unknown%s%s%s", h && h->detail[0] ? " (" : "",
                 h && h->detail[0] ? h->detail : "", h && h->detail[0] ? ")" : "");
        return;
    }
    int n = snprintf(buf, size, "%s, %s", h->sync,
                     h->synchronised ? "synchronised" : "not synchronised");
    if (h->has_offset && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, ", offset %+.3f usec", h->offset_ns / 1000.0);
    if (h->detail[0] && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s)", h->detail);
}

static void text_clocks(const merge *m, const merge_clock_verdict *v, FILE *f)
{
    fprintf(f, "\n--- CLOCKS ---\n\n");
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        int j = 0;
        while (j < i && strcmp(m->procs[j].host, p->host) != 0)
            j++;
        if (j < i)
            continue; /* host already listed */
        char clocks[512], sync[512];
        host_clocks(m, p->host, clocks, sizeof(clocks));
        host_sync(merge_host_of(m, p->host), sync, sizeof(sync));
        fprintf(f, "  %s: clock %s; %s\n", p->host[0] ? p->host : "?",
                clocks[0] ? clocks : "not named", sync);
    }
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        if (!p->has_offset)
            continue;
        if (p->offset.measured)
            fprintf(f,
                    "  %s pid %d on %s: clock offset to its provider %+.1f usec (bound %.1f)%s\n",
                    p->tool, p->pid, p->host, p->offset.offset_usec, p->offset.bound_usec,
                    p->offset.larger_than_latency ? ", as large as its latency" : "");
        else
            fprintf(f, "  %s pid %d on %s: clock offset to its provider not measured (%s)\n",
                    p->tool, p->pid, p->host, p->offset.why[0] ? p->offset.why : "no reason given");
    }
    if (v->hosts <= 1)
        fprintf(f, "  One-way latency: valid (one host, one clock).\n");
    else if (v->one_way_ok)
        fprintf(f, "  One-way latency between hosts: valid as far as the hosts' synchronisation "
                   "(realtime clocks, every host synchronised).\n");
    else
        fprintf(f, "  One-way latency between hosts: not valid: %s.\n", v->why);
    fprintf(f, "  Round-trip latency (posting latency, TransportPerf's round trip): valid whatever "
               "the clocks.\n");
}

void merge_write_text(const merge *m, FILE *f)
{
    const merge_proc *c = &m->combined;
    merge_clock_verdict v = merge_clocks(m);
    char tools[256], a[64], b[64];
    tool_counts(m, tools, sizeof(tools));
    fprintf(f, "--- COMBINED SUMMARY ---\n\n");
    fprintf(f, "  Processes: %d (%s)\n", m->nprocs, tools);
    if (c->end >= 0) {
        utc(a, sizeof(a), c->start, "%Y-%m-%d %H:%M:%S");
        utc(b, sizeof(b), c->end, "%Y-%m-%d %H:%M:%S");
        fprintf(f, "  Intervals logged (UTC): %s to %s (%.1f sec)\n", a, b, c->end - c->start);
    }
    for (int t = 0; t < NTOTALS; t++)
        if (c->totals.have[t] && c->totals.v[t] != 0)
            fprintf(f, "  %s: %.0f\n", totals[t].label, c->totals.v[t]);
    const merge_kind *ks[MERGE_KINDS];
    sorted_kinds(c, ks);
    uint64_t negative = 0;
    bool not_valid = false;
    for (int i = 0; i < c->nkinds; i++) {
        bool nv = !v.one_way_ok && merge_kind_one_way(ks[i]->tag);
        text_kind(f, ks[i], nv);
        negative += figures(ks[i]).negative;
        not_valid |= nv;
    }
    if (not_valid)
        fprintf(f, "  Warning: one-way latency between hosts is not valid: %s.\n", v.why);
    if (negative)
        fprintf(f,
                "  Warning: %llu latency samples below zero: the clocks of the hosts disagree "
                "(one-way latency between hosts needs -clock realtime and clocks synchronised "
                "by PTP or chrony).\n",
                (unsigned long long)negative);
    if (has_clocks(m, &v))
        text_clocks(m, &v, f);
    fprintf(f, "\n--- INPUTS ---\n\n");
    for (int i = 0; i < m->nprocs; i++)
        text_input(f, &m->procs[i]);
    if (m->nbad) {
        fprintf(f, "\n--- BAD INPUTS (not merged) ---\n\n");
        for (int i = 0; i < m->nbad; i++) {
            const merge_bad *x = &m->bad[i];
            if (x->line > 0)
                fprintf(f, "  %s:%d: %s\n", x->file, x->line, x->what);
            else
                fprintf(f, "  %s: %s\n", x->file, x->what);
        }
    }
    if (m->nwarn) {
        fprintf(f, "\n--- WARNINGS ---\n\n");
        for (int i = 0; i < m->nwarn; i++)
            fprintf(f, "  %s\n", m->warnings[i]);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

static json_object *dbl(double v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%.15g", isfinite(v) ? v : 0);
    return json_object_new_double_s(isfinite(v) ? v : 0, buf);
}

static json_object *kind_json(const merge_kind *k)
{
    kind_figures g = figures(k);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "count", json_object_new_uint64(g.samples));
    json_object_object_add(o, "negative", json_object_new_uint64(g.negative));
    if (g.exact_avg || g.pct) {
        json_object_object_add(o, "avg", dbl(g.avg));
        json_object_object_add(o, "stddev", dbl(g.stddev));
        json_object_object_add(o, "min", dbl(g.min));
        json_object_object_add(o, "max", dbl(g.max));
        json_object_object_add(o, "avg_from",
                               json_object_new_string(g.exact_avg ? "summaries" : "histograms"));
    }
    for (int i = 0; i < 5 && g.pct; i++) {
        json_object_object_add(o, pct_keys[i], dbl(g.p[i]));
        char note[96], key[32];
        if (pct_note(note, sizeof(note), &g, i)) {
            snprintf(key, sizeof(key), "%s_note", pct_keys[i]);
            json_object_object_add(o, key, json_object_new_string(note));
        }
    }
    json_object_object_add(o, "processes", json_object_new_int(k->procs ? k->procs : 1));
    json_object_object_add(o, "processes_with_histograms",
                           json_object_new_int(k->procs ? k->hist_procs : k->has_hist));
    return o;
}

static json_object *proc_json(const merge_proc *p)
{
    json_object *o = json_object_new_object();
    if (p->pid || p->host[0]) {
        json_object_object_add(o, "tool", json_object_new_string(p->tool));
        json_object_object_add(o, "host", json_object_new_string(p->host));
        json_object_object_add(o, "pid", json_object_new_int(p->pid));
        json_object_object_add(o, "files", json_object_new_string(p->files));
    }
    if (p->end >= 0) {
        json_object_object_add(o, "start_epoch", dbl(p->start));
        json_object_object_add(o, "end_epoch", dbl(p->end));
    }
    json_object *t = json_object_new_object();
    for (int i = 0; i < NTOTALS; i++)
        if (p->totals.have[i])
            json_object_object_add(t, totals[i].key, dbl(p->totals.v[i]));
    json_object_object_add(o, "totals", t);
    json_object *l = json_object_new_object();
    const merge_kind *ks[MERGE_KINDS];
    sorted_kinds(p, ks);
    for (int i = 0; i < p->nkinds; i++)
        json_object_object_add(l, ks[i]->tag, kind_json(ks[i]));
    json_object_object_add(o, "latency_usec", l);
    return o;
}

/* The "clocks" member: the verdict, each host's clocks and synchronisation, the offsets. */
static json_object *clocks_json(const merge *m, const merge_clock_verdict *v)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "hosts_count", json_object_new_int(v->hosts));
    json_object_object_add(o, "one_way_valid", json_object_new_boolean(v->one_way_ok));
    if (!v->one_way_ok)
        json_object_object_add(o, "one_way_not_valid", json_object_new_string(v->why));
    json_object *hosts = json_object_new_array();
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        int j = 0;
        while (j < i && strcmp(m->procs[j].host, p->host) != 0)
            j++;
        if (j < i)
            continue;
        json_object *h = json_object_new_object();
        char clocks[512];
        host_clocks(m, p->host, clocks, sizeof(clocks));
        json_object_object_add(h, "host", json_object_new_string(p->host));
        json_object_object_add(h, "clocks", json_object_new_string(clocks));
        const merge_host *s = merge_host_of(m, p->host);
        json_object_object_add(h, "sync", json_object_new_string(s ? s->sync : "unknown"));
        json_object_object_add(h, "synchronised", json_object_new_boolean(s && s->synchronised));
        if (s && s->has_offset)
            json_object_object_add(h, "sync_offset_ns", dbl(s->offset_ns));
        if (s && s->detail[0])
            json_object_object_add(h, "detail", json_object_new_string(s->detail));
        json_object_array_add(hosts, h);
    }
    json_object_object_add(o, "hosts", hosts);
    json_object *offs = json_object_new_array();
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        if (!p->has_offset)
            continue;
        json_object *x = json_object_new_object();
        json_object_object_add(x, "tool", json_object_new_string(p->tool));
        json_object_object_add(x, "host", json_object_new_string(p->host));
        json_object_object_add(x, "pid", json_object_new_int(p->pid));
        json_object_object_add(x, "measured", json_object_new_boolean(p->offset.measured));
        if (p->offset.measured) {
            json_object_object_add(x, "offset_usec", dbl(p->offset.offset_usec));
            json_object_object_add(x, "bound_usec", dbl(p->offset.bound_usec));
            json_object_object_add(x, "larger_than_latency",
                                   json_object_new_boolean(p->offset.larger_than_latency));
        } else {
            json_object_object_add(x, "reason", json_object_new_string(p->offset.why));
        }
        json_object_array_add(offs, x);
    }
    json_object_object_add(o, "offsets", offs);
    return o;
}

json_object *merge_json(const merge *m)
{
    merge_clock_verdict v = merge_clocks(m);
    json_object *doc = json_object_new_object();
    char now[32];
    utc(now, sizeof(now), (double)time(NULL), "%Y-%m-%d %H:%M:%S");
    json_object_object_add(doc, "tool", json_object_new_string("rwfperf-merge"));
    json_object_object_add(doc, "version", json_object_new_string(RWFPERF_VERSION));
    json_object_object_add(doc, "git_revision", json_object_new_string(rwfperf_git_rev()));
    json_object_object_add(doc, "written_utc", json_object_new_string(now));
    json_object *c = proc_json(&m->combined);
    json_object_object_add(c, "processes", json_object_new_int(m->nprocs));
    json_object *lat;
    if (json_object_object_get_ex(c, "latency_usec", &lat)) {
        json_object_object_foreach(lat, tag, kind)
        {
            if (!merge_kind_one_way(tag))
                continue;
            json_object_object_add(kind, "valid", json_object_new_boolean(v.one_way_ok));
            if (!v.one_way_ok)
                json_object_object_add(kind, "not_valid",
                                       json_object_new_string("one-way between hosts"));
        }
    }
    json_object_object_add(doc, "combined", c);
    json_object_object_add(doc, "clocks", clocks_json(m, &v));
    json_object *in = json_object_new_array();
    for (int i = 0; i < m->nprocs; i++)
        json_object_array_add(in, proc_json(&m->procs[i]));
    json_object_object_add(doc, "inputs", in);
    json_object *bad = json_object_new_array();
    for (int i = 0; i < m->nbad; i++) {
        json_object *b = json_object_new_object();
        json_object_object_add(b, "file", json_object_new_string(m->bad[i].file));
        json_object_object_add(b, "line", json_object_new_int(m->bad[i].line));
        json_object_object_add(b, "error", json_object_new_string(m->bad[i].what));
        json_object_array_add(bad, b);
    }
    json_object_object_add(doc, "bad_inputs", bad);
    json_object *w = json_object_new_array();
    for (int i = 0; i < m->nwarn; i++)
        json_object_array_add(w, json_object_new_string(m->warnings[i]));
    json_object_object_add(doc, "warnings", w);
    return doc;
}

/* ------------------------------------------------------------------------------------------ */
/* Percentile table                                                                           */

/* One series: per non-empty counter, the share of samples below it (percent) and its middle;
 * then the maximum at the share below the last sample, as the plot script draws its curves. */
static void pct_series(FILE *f, const char *name, const merge_kind *k)
{
    const hdr_hist *h = &k->hist;
    if (!k->has_hist || h->total == 0)
        return;
    uint64_t below = 0;
    for (int32_t i = 0; i < h->lay.len; i++) {
        if (!h->counts[i])
            continue;
        double v = ((double)hdr_index_low(&h->lay, i) + (double)hdr_index_high(&h->lay, i)) / 2;
        if (k->max_ns >= 0 && v > (double)k->max_ns)
            v = (double)k->max_ns;
        fprintf(f, "%s, %.10g, %.6g\n", name, 100.0 * (double)below / (double)h->total, v / 1000);
        below += h->counts[i];
    }
    fprintf(f, "%s, %.10g, %.6g\n", name, 100.0 * (double)(h->total - 1) / (double)h->total,
            (double)(k->max_ns >= 0 ? k->max_ns : hdr_index_high(&h->lay, hdr_hist_max_index(h))) /
                1000);
}

int merge_write_percentiles(const merge *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set_errno(errno, "cannot create %s", path);
    fprintf(f, "Series, Percentile, Latency (usec)\n");
    const merge_kind *ks[MERGE_KINDS];
    sorted_kinds(&m->combined, ks);
    char name[400];
    for (int i = 0; i < m->combined.nkinds; i++) {
        snprintf(name, sizeof(name), "combined %s", ks[i]->tag);
        pct_series(f, name, ks[i]);
    }
    /* Each process's main kind: the first of the combined order it has a histogram of. */
    for (int i = 0; i < m->nprocs; i++) {
        const merge_proc *p = &m->procs[i];
        const merge_kind *pk[MERGE_KINDS];
        sorted_kinds(p, pk);
        for (int j = 0; j < p->nkinds; j++)
            if (pk[j]->has_hist && pk[j]->hist.total) {
                snprintf(name, sizeof(name), "%s %s pid %d %s", p->host, p->tool, p->pid,
                         pk[j]->tag);
                for (char *s = name; *s; s++)
                    if (*s == ',')
                        *s = ' ';
                pct_series(f, name, pk[j]);
                break;
            }
    }
    bool err = ferror(f) != 0;
    if (fclose(f) != 0 || err)
        return err_set("cannot write %s", path);
    return 0;
}
