/* report_figs: which charts the page shows, and their series, from the model (see report.h):
 * rates over time, latency over time, latency by percentile, CPU and memory, and a sweep's
 * rates, CPU per update and p99. Drawn by report_plot.c. */
#include "report.h"

#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHARTS 64
#define MAX_PROC_SERIES 8 /* per-process lines in one chart; beyond, the totals only */

/* Colours: one per role of a series in a chart. */
#define BLUE "#0072b2"
#define ORANGE "#e69f00"
#define VERMILLION "#d55e00"
#define GREEN "#009e73"
#define GREY "#666666"
#define PINK "#cc79a7"

typedef struct figs {
    rpt_plot *plot[MAX_CHARTS];
    char id[MAX_CHARTS][128];
    char caption[MAX_CHARTS][640];
    int n;
    double xmin, xmax; /* the run's span: every time chart's x range */
} figs;

/* A new chart; NULL when the table or memory is full. */
static rpt_plot *fig_new(figs *f, const char *id, const char *title, const char *xmode,
                         const char *xlabel, const char *ylabel, const char *caption)
{
    if (f->n == MAX_CHARTS)
        return NULL;
    rpt_plot *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    snprintf(p->title, sizeof(p->title), "%s", title);
    snprintf(p->xlabel, sizeof(p->xlabel), "%s", xlabel);
    snprintf(p->ylabel, sizeof(p->ylabel), "%s", ylabel);
    p->xmode = xmode;
    if (strcmp(xmode, "time") == 0 && f->xmax > f->xmin) {
        p->xmin = f->xmin;
        p->xmax = f->xmax;
    }
    snprintf(f->id[f->n], sizeof(f->id[f->n]), "%s", id);
    snprintf(f->caption[f->n], sizeof(f->caption[f->n]), "%s", caption);
    f->plot[f->n++] = p;
    return p;
}

/* Drops the last chart when it has nothing to draw. */
static void fig_keep(figs *f)
{
    if (f->n && !rpt_plot_any(f->plot[f->n - 1])) {
        rpt_plot_free(f->plot[f->n - 1]);
        free(f->plot[f->n - 1]);
        f->n--;
    }
}

#define UTC_LABEL "UTC (end of each interval)"

/* ------------------------------------------------------------------------------------------ */
/* Rates over time, from the statistics files                                                 */

enum { P_UPD, P_IMG, P_POST, P_GEN, P_MSG, P_DATA, P_COUNT };

static const struct {
    const char *id, *title, *unit;
} panels[P_COUNT] = {
    {"rates-updates", "Updates per second", "updates per second"},
    {"rates-images", "Images (refreshes) per second", "images per second"},
    {"rates-posts", "Posts per second", "posts per second"},
    {"rates-genmsgs", "Generic messages per second", "generic messages per second"},
    {"rates-msgs", "Messages per second", "messages per second"},
    {"rates-data", "Data per second", "MB per second (10^6 bytes)"},
};

/* The statistics columns drawn as rates: a per-second rate as it is, or a count per interval
 * divided by the interval (times scale). */
static const struct {
    int tool;
    const char *col;
    int panel;
    const char *role;
    bool rate;
    double scale;
} rate_cols[] = {
    {RPT_CONS, "Update rate (msg/sec)", P_UPD, "received", true, 1},
    {RPT_CONS, "Images", P_IMG, "received", false, 1},
    {RPT_CONS, "GenMsgs sent", P_GEN, "sent", false, 1},
    {RPT_CONS, "GenMsgs received", P_GEN, "received", false, 1},
    {RPT_PROV, "Updates sent", P_UPD, "sent", false, 1},
    {RPT_PROV, "Images sent", P_IMG, "sent", false, 1},
    {RPT_PROV, "Posts reflected", P_POST, "reflected", false, 1},
    {RPT_PROV, "GenMsgs sent", P_GEN, "sent", false, 1},
    {RPT_PROV, "GenMsgs received", P_GEN, "received", false, 1},
    {RPT_NIPROV, "Updates sent", P_UPD, "sent", false, 1},
    {RPT_NIPROV, "Images sent", P_IMG, "sent", false, 1},
    {RPT_TRANSPORT, "Msgs sent", P_MSG, "sent", false, 1},
    {RPT_TRANSPORT, "Msgs received", P_MSG, "received", false, 1},
    {RPT_TRANSPORT, "Bytes sent", P_DATA, "sent", false, 1e-6},
    {RPT_TRANSPORT, "Bytes received", P_DATA, "received", false, 1e-6},
};
#define NRATE_COLS ((int)(sizeof(rate_cols) / sizeof(rate_cols[0])))

/* A process's series of one column: at each row time, the sum over its threads' files. */
typedef struct pseries {
    int proc;
    int def;
    double iv;
    double *t, *v;
    int n;
    bool nonzero;
} pseries;

/* Releases s's points. */
static void pseries_free(pseries *s)
{
    free(s->t);
    free(s->v);
}

/* Fills s with column def of process p. Returns 0, or -1 when out of memory. */
static int pseries_make(const rpt *r, int p, int def, pseries *s)
{
    memset(s, 0, sizeof(*s));
    s->proc = p;
    s->def = def;
    const rpt_proc *pr = &r->procs[p];
    s->iv = rpt_proc_interval(r, pr);
    int cap = 0;
    for (int k = 0; k < pr->ncsv; k++)
        cap += r->csvs[pr->csvs[k]].nrows;
    s->t = malloc((size_t)(cap ? cap : 1) * sizeof(double));
    s->v = malloc((size_t)(cap ? cap : 1) * sizeof(double));
    if (!s->t || !s->v)
        return -1;
    for (int k = 0; k < pr->ncsv; k++) {
        const rpt_csv *c = &r->csvs[pr->csvs[k]];
        int col = rpt_csv_col(c, rate_cols[def].col);
        if (col < 0)
            continue;
        for (int i = 0; i < c->nrows; i++) {
            double v = c->v[(size_t)i * (size_t)c->ncols + (size_t)col];
            if (isnan(v))
                continue;
            if (!rate_cols[def].rate)
                v = v / s->iv;
            v *= rate_cols[def].scale;
            int at = 0;
            while (at < s->n && s->t[at] < c->t[i])
                at++;
            if (at < s->n && s->t[at] == c->t[i]) {
                s->v[at] += v;
            } else {
                memmove(s->t + at + 1, s->t + at, (size_t)(s->n - at) * sizeof(double));
                memmove(s->v + at + 1, s->v + at, (size_t)(s->n - at) * sizeof(double));
                s->t[at] = c->t[i];
                s->v[at] = v;
                s->n++;
            }
            s->nonzero |= v != 0;
        }
    }
    return 0;
}

/* qsort order of doubles (pairs sort by their first). */
static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Adds the total of the series ps[0..n) as one line. The processes' intervals end at their
 * own times: as for the latency over time, each value goes to the slot (of the shortest
 * interval among them, from the earliest end) its interval's end is nearest to, and a slot's
 * total is the sum of what fell in it. */
static int add_total(rpt_plot *pl, const pseries *ps, int n, const char *title)
{
    rpt_series *tot = rpt_plot_line(pl, title);
    if (!tot)
        return -1;
    snprintf(tot->colour, sizeof(tot->colour), "%s", "#222222");
    tot->dash = 1;
    double t0 = INFINITY, len = INFINITY;
    int cap = 0;
    for (int i = 0; i < n; i++) {
        cap += ps[i].n;
        len = fmin(len, ps[i].iv);
        for (int k = 0; k < ps[i].n; k++)
            t0 = fmin(t0, ps[i].t[k]);
    }
    if (cap == 0 || !(len > 0))
        return 0;
    /* (slot, value) pairs sorted by slot, then summed. */
    double *pairs = malloc((size_t)cap * 2 * sizeof(double));
    if (!pairs)
        return -1;
    int m = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ps[i].n; k++) {
            pairs[2 * m] = (double)llround((ps[i].t[k] - t0) / len);
            pairs[2 * m + 1] = ps[i].v[k];
            m++;
        }
    qsort(pairs, (size_t)m, 2 * sizeof(double), by_double);
    int rc = 0;
    for (int i = 0; rc == 0 && i < m;) {
        double sum = 0;
        int j = i;
        for (; j < m && pairs[2 * j] == pairs[2 * i]; j++)
            sum += pairs[2 * j + 1];
        rc = rpt_series_add(tot, t0 + pairs[2 * i] * len, sum);
        i = j;
    }
    free(pairs);
    return rc;
}

/* The rates over time: one chart per quantity that some process has. Returns 0, or -1 when
 * out of memory. */
static int rate_charts(const rpt *r, figs *f)
{
    for (int pan = 0; pan < P_COUNT; pan++) {
        pseries *ps = calloc((size_t)r->nprocs * NRATE_COLS + 1, sizeof(*ps));
        if (!ps)
            return -1;
        int n = 0, rc = 0;
        for (int p = 0; rc == 0 && p < r->nprocs; p++)
            for (int d = 0; rc == 0 && d < NRATE_COLS; d++)
                if (rate_cols[d].panel == pan && rate_cols[d].tool == r->procs[p].tool &&
                    r->procs[p].ncsv) {
                    rc = pseries_make(r, p, d, &ps[n]);
                    if (rc == 0 && ps[n].nonzero)
                        n++;
                    else
                        pseries_free(&ps[n]);
                }
        rpt_plot *pl = NULL;
        if (rc == 0 && n) {
            char caption[640];
            snprintf(caption, sizeof(caption), "%s",
                     n > MAX_PROC_SERIES ? "More processes than a chart can tell apart: the "
                                           "totals per tool only; each process is in the table "
                                           "below."
                                         : "");
            pl = fig_new(f, panels[pan].id, panels[pan].title, "time", UTC_LABEL, panels[pan].unit,
                         caption);
            if (!pl)
                rc = -1;
        }
        for (int i = 0; rc == 0 && pl && n <= MAX_PROC_SERIES && i < n; i++) {
            char title[96];
            snprintf(title, sizeof(title), "%.70s %s", r->procs[ps[i].proc].label,
                     rate_cols[ps[i].def].role);
            rpt_series *s = rpt_plot_line(pl, title);
            for (int k = 0; s && rc == 0 && k < ps[i].n; k++)
                rc = rpt_series_add(s, ps[i].t[k], ps[i].v[k]);
            if (!s)
                rc = -1;
        }
        /* Totals per tool and role, when several processes make them. */
        for (int i = 0; rc == 0 && pl && i < n; i++) {
            bool first = true;
            for (int k = 0; k < i && first; k++)
                first = !(r->procs[ps[k].proc].tool == r->procs[ps[i].proc].tool &&
                          strcmp(rate_cols[ps[k].def].role, rate_cols[ps[i].def].role) == 0);
            if (!first)
                continue;
            pseries *group = calloc((size_t)n, sizeof(*group));
            if (!group) {
                rc = -1;
                break;
            }
            int g = 0;
            for (int k = i; k < n; k++)
                if (r->procs[ps[k].proc].tool == r->procs[ps[i].proc].tool &&
                    strcmp(rate_cols[ps[k].def].role, rate_cols[ps[i].def].role) == 0)
                    group[g++] = ps[k];
            if (g > 1) {
                char title[96];
                snprintf(title, sizeof(title), "all %d %s %s", g,
                         rpt_tool_name(r->procs[ps[i].proc].tool), rate_cols[ps[i].def].role);
                rc = add_total(pl, group, g, title);
            }
            free(group);
        }
        for (int i = 0; i < n; i++)
            pseries_free(&ps[i]);
        free(ps);
        if (rc != 0)
            return rc;
        if (pl) {
            rpt_plot_same(pl);
            fig_keep(f);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* CPU and memory                                                                             */

static int resource_charts(const rpt *r, figs *f)
{
    static const struct {
        const char *id, *title, *col, *unit, *caption;
    } res[] = {
        {"cpu", "CPU per process", "CPU usage (%)", "CPU (% of one core)",
         "CPU time the whole process used in each statistics interval, in percent of one core "
         "(two busy threads make 200%)."},
        {"memory", "Memory per process", "Memory (MB)", "resident memory (MiB)",
         "Resident memory of each process at the end of each statistics interval."},
    };
    for (int k = 0; k < 2; k++) {
        rpt_plot *pl =
            fig_new(f, res[k].id, res[k].title, "time", UTC_LABEL, res[k].unit, res[k].caption);
        if (!pl)
            return -1;
        int drawn = 0;
        for (int p = 0; p < r->nprocs && drawn < 2 * MAX_PROC_SERIES; p++) {
            const rpt_proc *pr = &r->procs[p];
            if (!pr->ncsv)
                continue;
            /* Every thread's file holds the process's figure: the first file's is drawn. */
            const rpt_csv *c = &r->csvs[pr->csvs[0]];
            int col = rpt_csv_col(c, res[k].col);
            if (col < 0 || !c->nrows)
                continue;
            rpt_series *s = rpt_plot_line(pl, pr->label);
            if (!s)
                return -1;
            for (int i = 0; i < c->nrows; i++)
                if (rpt_series_add(s, c->t[i], c->v[(size_t)i * (size_t)c->ncols + (size_t)col]) !=
                    0)
                    return -1;
            drawn++;
        }
        rpt_plot_same(pl);
        fig_keep(f);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Latency over time, from the histogram logs                                                 */

static int tool_procs(const rpt *r, int tool)
{
    int n = 0;
    for (int i = 0; i < r->nprocs; i++)
        n += r->procs[i].tool == tool;
    return n;
}

/* Adds slot figure `which` (0 p50, 1 p99, 2 max) as a line; p99 left out (NAN) in slots with
 * fewer samples than it needs, those slots' maxima then going to thin (hollow marks). */
static int slot_line(rpt_plot *pl, const rpt_slot *sl, int n, int which, const char *title,
                     const char *colour, int dash, int marker, rpt_series *thin)
{
    rpt_series *s = rpt_plot_line(pl, title);
    if (!s)
        return -1;
    snprintf(s->colour, sizeof(s->colour), "%s", colour);
    s->dash = dash;
    s->marker = marker;
    for (int i = 0; i < n; i++) {
        double y = which == 0 ? sl[i].p50 : which == 1 ? sl[i].p99 : sl[i].max;
        if (which == 1 && sl[i].samples < out_pct_needs(99)) {
            y = NAN;
            if (thin && rpt_series_add(thin, sl[i].t, sl[i].max) != 0)
                return -1;
        }
        if (rpt_series_add(s, sl[i].t, y) != 0)
            return -1;
    }
    return 0;
}

/* Latency over time: a chart per tool and measured kind (its scheduled view in it). Returns 0,
 * or -1 when out of memory. */
static int latency_time_charts(const rpt *r, figs *f)
{
    for (int t = 0; t < RPT_TOOLS; t++) {
        const char *tags[MERGE_KINDS];
        int nk = rpt_log_kinds(r, t, tags, MERGE_KINDS);
        for (int k = 0; k < nk; k++) {
            if (strncmp(tags[k], "sched-", 6) == 0)
                continue;
            rpt_slot *sl = NULL, *ss = NULL;
            int n = 0, ns = 0;
            char sched[80];
            snprintf(sched, sizeof(sched), "sched-%s", tags[k]);
            if (rpt_slots(r, t, tags[k], &sl, &n) != 0 || rpt_slots(r, t, sched, &ss, &ns) != 0) {
                free(sl);
                return -1;
            }
            int dec, procs = tool_procs(r, t);
            const char *label = merge_kind_label(tags[k], &dec);
            char id[128], title[160];
            snprintf(id, sizeof(id), "latency-time-%s-%s", rpt_tool_name(t), tags[k]);
            snprintf(title, sizeof(title), "%s over time (%s%s%s)", label, rpt_tool_name(t),
                     procs > 1 ? ", all processes" : "", procs > 1 ? "" : "");
            rpt_plot *pl =
                n ? fig_new(f, id, title, "time", UTC_LABEL, "latency (usec, log scale)", "")
                  : NULL;
            int rc = 0;
            if (pl) {
                pl->logy = true;
                rpt_series *thin = rpt_plot_mark(pl, "max where p99 is thin", VERMILLION, 6);
                rc = !thin || slot_line(pl, sl, n, 2, "max", GREY, 3, -1, NULL) != 0 ||
                     slot_line(pl, sl, n, 1, "p99", VERMILLION, 1, 7, thin) != 0 ||
                     slot_line(pl, sl, n, 0, "p50", BLUE, 1, 5, NULL) != 0 ||
                     (ns && slot_line(pl, ss, ns, 1, "scheduled p99", ORANGE, 2, 9, NULL) != 0);
                if (rc == 0 && thin->n)
                    snprintf(pl->note, sizeof(pl->note),
                             "hollow: interval with fewer than\n100 samples (its max; no p99)");
                if (rc == 0)
                    fig_keep(f);
            }
            free(sl);
            free(ss);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Latency by percentile, from the histograms                                                 */

static const double marks_at[] = {50, 90, 99, 99.9, 99.99, 99.999};

/* n with thousands separators ("3,998") into buf. */
static const char *thousands(char *buf, size_t size, uint64_t n)
{
    char raw[32];
    int len = snprintf(raw, sizeof(raw), "%llu", (unsigned long long)n), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
        buf[o++] = raw[i];
        if ((len - i - 1) % 3 == 0 && i + 1 < len)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

/* Adds kind k's curve: the percentile p at x = 1 / (1 - p) read with hdr_hist_percentile (the
 * merge's reading), about 40 points per decade up to the last sample (x = samples); and its
 * marks at p50 ... p99.999 (filled, or hollow where the samples are too few). */
static int pct_curve(rpt_plot *pl, const merge_kind *k, const char *title, const char *colour,
                     int dash, rpt_series *filled, rpt_series *hollow)
{
    const hdr_hist *h = &k->hist;
    if (!k->has_hist || h->total == 0)
        return 0;
    char t[96], count[32];
    snprintf(t, sizeof(t), "%s, %s samples", title, thousands(count, sizeof(count), h->total));
    rpt_series *s = rpt_plot_line(pl, t);
    if (!s)
        return -1;
    snprintf(s->colour, sizeof(s->colour), "%s", colour);
    s->dash = dash;
    s->marker = -1;
    double last = (double)h->total;
    for (double x = 1;; x *= 1.06) {
        if (x > last)
            x = last;
        double p = 100.0 * (1.0 - 1.0 / x);
        if (rpt_series_add(s, x, merge_kind_pct(k, p) / 1000.0) != 0)
            return -1;
        if (x >= last)
            break;
    }
    for (size_t i = 0; i < sizeof(marks_at) / sizeof(marks_at[0]); i++) {
        double x = 1.0 / (1.0 - marks_at[i] / 100.0);
        bool thin = h->total < out_pct_needs(marks_at[i]);
        rpt_series *m = thin ? hollow : filled;
        if (m && rpt_series_add(m, x, merge_kind_pct(k, marks_at[i]) / 1000.0) != 0)
            return -1;
    }
    return 0;
}

static const merge_kind *kind_in(const merge_proc *p, const char *tag)
{
    for (int i = 0; i < p->nkinds; i++)
        if (strcmp(p->kinds[i].tag, tag) == 0)
            return &p->kinds[i];
    return NULL;
}

/* Latency by percentile: a chart per tool and measured kind with its scheduled view, and each
 * process's curve when there are 2 to 8. Returns 0, or -1 when out of memory. */
static int percentile_charts(const rpt *r, figs *f)
{
    for (int t = 0; t < RPT_TOOLS; t++) {
        const merge *m = r->by_tool[t];
        if (!m)
            continue;
        const merge_proc *c = &m->combined;
        for (int k = 0; k < c->nkinds; k++) {
            const char *tag = c->kinds[k].tag;
            if (strncmp(tag, "sched-", 6) == 0 || !c->kinds[k].has_hist || !c->kinds[k].hist.total)
                continue;
            int dec;
            const char *label = merge_kind_label(tag, &dec);
            char id[128], title[160], sched[80];
            snprintf(id, sizeof(id), "percentiles-%s-%s", rpt_tool_name(t), tag);
            snprintf(title, sizeof(title), "%s by percentile (%s%s)", label, rpt_tool_name(t),
                     m->nprocs > 1 ? ", all processes" : "");
            snprintf(sched, sizeof(sched), "sched-%s", tag);
            rpt_plot *pl =
                fig_new(f, id, title, "percentile", "percentile (log scale of 1 / (1 - p))",
                        "latency (usec, log scale)", "");
            if (!pl)
                return -1;
            pl->logy = true;
            snprintf(pl->note, sizeof(pl->note),
                     "filled: p50 p90 p99 p99.9 p99.99 p99.999\nhollow: too few samples for it\n"
                     "(the value is the maximum)");
            /* Marks in the colour of their curve. */
            rpt_series *filled = rpt_plot_mark(pl, "", BLUE, 7);
            rpt_series *hollow = rpt_plot_mark(pl, "", BLUE, 6);
            rpt_series *sfilled = rpt_plot_mark(pl, "", ORANGE, 9);
            rpt_series *shollow = rpt_plot_mark(pl, "", ORANGE, 8);
            if (!filled || !hollow || !sfilled || !shollow)
                return -1;
            if (pct_curve(pl, &c->kinds[k], tag, BLUE, 1, filled, hollow) != 0)
                return -1;
            const merge_kind *sk = kind_in(c, sched);
            if (sk && pct_curve(pl, sk, sched, ORANGE, 2, sfilled, shollow) != 0)
                return -1;
            /* Each process's curve when several (and not too many) have this kind. */
            static const char *const pcol[] = {GREEN, PINK,       "#56b4e9", "#999933",
                                               GREY,  VERMILLION, "#882255", "#44aa99"};
            int drawn = 0;
            for (int i = 0; m->nprocs > 1 && m->nprocs <= MAX_PROC_SERIES && i < m->nprocs; i++) {
                const merge_kind *pk = kind_in(&m->procs[i], tag);
                if (!pk)
                    continue;
                char pt[96];
                snprintf(pt, sizeof(pt), "%s pid %d", rpt_tool_name(t), m->procs[i].pid);
                for (int q = 0; q < r->nprocs; q++)
                    if (r->procs[q].tool == t && r->procs[q].pid == m->procs[i].pid &&
                        strncmp(r->procs[q].host, m->procs[i].host, 63) == 0)
                        snprintf(pt, sizeof(pt), "%.90s", r->procs[q].label);
                if (pct_curve(pl, pk, pt, pcol[drawn % 8], 4, NULL, NULL) != 0)
                    return -1;
                drawn++;
            }
            fig_keep(f);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Sweeps                                                                                     */

/* Index of a row's configuration (mode, pair, pack) among the first n rows', or -1. */
static int config_of(const rpt_sweep *s, int row, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s->rows[i].mode, s->rows[row].mode) == 0 &&
            strcmp(s->rows[i].pair, s->rows[row].pair) == 0 &&
            strcmp(s->rows[i].pack, s->rows[row].pack) == 0)
            return i;
    return -1;
}

/* One chart of a sweep: y(row) against the offered rate, a line per configuration, ours in
 * blue and the original's in vermillion, dash patterns per mode and packing. */
static int sweep_chart(const rpt_sweep *s, figs *f, int si, const char *what, const char *title,
                       const char *ylabel, bool logy, bool diag, int field, const char *caption)
{
    char id[128];
    snprintf(id, sizeof(id), "sweep%d-%s", si + 1, what);
    rpt_plot *pl = fig_new(f, id, title, "linear", "offered update rate (updates per second)",
                           ylabel, caption);
    if (!pl)
        return -1;
    pl->logy = logy;
    pl->diag = diag;
    int ours = 0, orig = 0;
    for (int i = 0; i < s->nrows; i++) {
        if (config_of(s, i, i) >= 0)
            continue;
        const rpt_sweep_row *w = &s->rows[i];
        char t[96];
        snprintf(t, sizeof(t), "%s %s, %s", w->pair, w->mode,
                 strcmp(w->pack, "no") == 0 ? "unpacked" : "packed");
        if (strcmp(w->pack, "no") != 0)
            snprintf(t + strlen(t), sizeof(t) - strlen(t), " %s", w->pack);
        rpt_series *ls = rpt_plot_line(pl, t);
        if (!ls)
            return -1;
        bool is_orig = strcmp(w->pair, "orig") == 0;
        int idx = is_orig ? orig++ : ours++;
        snprintf(ls->colour, sizeof(ls->colour), "%s",
                 is_orig ? (idx % 2 ? ORANGE : VERMILLION) : (idx % 2 ? "#56b4e9" : BLUE));
        ls->dash = 1 + idx % 6;
        ls->marker = is_orig ? 9 + 2 * (idx % 3) : 7 - 2 * (idx % 3);
        for (int k = i; k < s->nrows; k++) {
            if (config_of(s, k, k + 1) != i)
                continue;
            const rpt_sweep_row *x = &s->rows[k];
            double y = field == 0   ? x->received
                       : field == 1 ? x->cons_ns
                       : field == 2 ? x->prov_ns
                                    : x->p99;
            if (rpt_series_add(ls, x->offered, y) != 0)
                return -1;
        }
        /* Received: a run without a steady state has no rate; a hollow mark of its line's
         * colour on the axis shows where it was offered. */
        rpt_series *ms = NULL;
        for (int k = i; field == 0 && k < s->nrows; k++) {
            if (config_of(s, k, k + 1) != i || !isnan(s->rows[k].received))
                continue;
            if (!ms) {
                char mt[96];
                snprintf(mt, sizeof(mt), "%.70s:\nno steady state", t);
                ms = rpt_plot_mark(pl, mt, ls->colour, ls->marker - 1);
                if (!ms)
                    return -1;
            }
            if (rpt_series_add(ms, s->rows[k].offered, 0) != 0)
                return -1;
        }
    }
    fig_keep(f);
    return 0;
}

/* A sweep's four charts against the offered rate. Returns 0, or -1 when out of memory. */
static int sweep_charts(const rpt *r, figs *f)
{
    for (int i = 0; i < r->nsweeps; i++) {
        const rpt_sweep *s = &r->sweeps[i];
        if (sweep_chart(s, f, i, "received", "Received against offered update rate",
                        "received (updates per second)", false, true, 0,
                        "What the consumer received in its steady state at each offered rate: a "
                        "configuration holds a rate while its line stays on the dashed "
                        "received = offered line (bench.sh counts 99% as held). A hollow mark "
                        "on the axis: a run that reached no steady state (its consumer did not "
                        "get every image), which has no rate.") != 0 ||
            sweep_chart(s, f, i, "cons-cpu", "Consumer CPU per update", "CPU per update (ns)",
                        false, false, 1,
                        "ConsPerf's CPU time (all its threads) per update received, in "
                        "nanoseconds, as bench.sh measured it.") != 0 ||
            sweep_chart(s, f, i, "prov-cpu", "Provider CPU per update", "CPU per update (ns)",
                        false, false, 2,
                        "ProvPerf's CPU time per update sent, in nanoseconds.") != 0 ||
            sweep_chart(s, f, i, "p99", "Latency p99 against offered rate",
                        "latency p99 (usec, log scale)", true, false, 3,
                        "The consumer's steady-state latency p99 at each offered rate (the "
                        "original tools write "
                        "no percentiles: their runs have no line here).") != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

int rpt_charts_make(const rpt *r, rpt_charts *out, const char *tmpdir)
{
    memset(out, 0, sizeof(*out));
    figs *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    if (r->end > r->start) {
        f->xmin = r->start;
        f->xmax = r->end;
    }
    int rc = rate_charts(r, f) != 0 || latency_time_charts(r, f) != 0 ||
                     percentile_charts(r, f) != 0 || resource_charts(r, f) != 0 ||
                     sweep_charts(r, f) != 0
                 ? -1
                 : 0;
    char *svgs[MAX_CHARTS] = {0};
    const char *prefix[MAX_CHARTS];
    char pre[MAX_CHARTS][16];
    for (int i = 0; i < f->n; i++) {
        snprintf(pre[i], sizeof(pre[i]), "c%d", i + 1);
        prefix[i] = pre[i];
    }
    if (rc == 0 && f->n) {
        int got = rpt_plot_draw(f->plot, prefix, f->n, tmpdir, svgs, out->gnuplot_error,
                                sizeof(out->gnuplot_error));
        if (got == -2)
            rc = -1;
    }
    if (rc == 0 && f->n) {
        out->c = calloc((size_t)f->n, sizeof(*out->c));
        if (!out->c)
            rc = -1;
    }
    for (int i = 0; i < f->n; i++) {
        if (rc == 0) {
            rpt_chart *c = &out->c[out->n++];
            snprintf(c->id, sizeof(c->id), "%s", f->id[i]);
            snprintf(c->title, sizeof(c->title), "%s", f->plot[i]->title);
            c->svg = svgs[i];
            c->caption = strdup(f->caption[i]);
        } else {
            free(svgs[i]);
        }
        rpt_plot_free(f->plot[i]);
        free(f->plot[i]);
    }
    free(f);
    return rc;
}

void rpt_charts_free(rpt_charts *c)
{
    for (int i = 0; i < c->n; i++) {
        free(c->c[i].svg);
        free(c->c[i].caption);
    }
    free(c->c);
    memset(c, 0, sizeof(*c));
}
