/* report_html: the page, one self-contained HTML file (inline CSS and SVG, no script, nothing
 * fetched: its Content-Security-Policy forbids it) (see report.h).
 *
 * The figures a test or a script may want to read carry data attributes: the verdict
 * (data-verdict on #verdict), each headline figure (data-figure="<merge total key>" or
 * "p50", "p99" ... with data-kind="<tag>", data-tool="<tool>", data-value="<exact value>"),
 * and each chart (data-chart="<id>" on its figure, holding the SVG).
 */
#include "report.h"

#include "out.h"
#include "version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ */
/* Writing helpers                                                                            */

/* Writes s HTML-escaped. */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
}

/* v with `dec` decimals and thousands separators ("20,087", "42.9") into buf. */
static const char *num(char *buf, size_t size, double v, int dec)
{
    if (isnan(v)) {
        snprintf(buf, size, "-");
        return buf;
    }
    char raw[64];
    snprintf(raw, sizeof(raw), "%.*f", dec, fabs(v));
    char *dot = strchr(raw, '.');
    size_t ilen = dot ? (size_t)(dot - raw) : strlen(raw), o = 0;
    if (v < 0 && o + 1 < size)
        buf[o++] = '-';
    for (size_t i = 0; i < ilen && o + 2 < size; i++) {
        buf[o++] = raw[i];
        if ((ilen - i - 1) % 3 == 0 && i + 1 < ilen)
            buf[o++] = ',';
    }
    for (const char *d = dot; d && *d && o + 1 < size; d++)
        buf[o++] = *d;
    buf[o] = '\0';
    return buf;
}

/* The exact value for a data-value attribute. */
static const char *exact(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.15g", v);
    return buf;
}

/* Member key of object o, or NULL (o may be NULL). */
static json_object *member(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Member key of o as a number, NAN when absent or not a number. */
static double dmember(json_object *o, const char *key)
{
    json_object *v = member(o, key);
    return v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
               ? json_object_get_double(v)
               : NAN;
}

/* Member key of o as a string, NULL when absent or not a string. */
static const char *smember(json_object *o, const char *key)
{
    json_object *v = member(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The file name part of path. */
static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* How many processes of tool r has. */
static int tool_count(const rpt *r, int tool)
{
    int n = 0;
    for (int i = 0; i < r->nprocs; i++)
        n += r->procs[i].tool == tool;
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Head                                                                                       */

static const char css[] =
    "*{box-sizing:border-box}"
    "body{margin:0;background:#f4f5f7;color:#1f2328;font:15px/1.45 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}"
    "main{max-width:1140px;margin:0 auto;padding:12px 20px 40px}"
    "header h1{font-size:22px;margin:10px 0 2px}header p{margin:0;color:#57606a}"
    "nav{margin:10px 0;font-size:14px}nav a{margin-right:14px;color:#0969da;text-decoration:none}"
    "section{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:14px 20px;"
    "margin:14px 0}"
    "h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:14px 0 6px}"
    ".verdict{border-left:10px solid #6e7781}.verdict.passed{border-left-color:#1a7f37}"
    ".verdict.failed{border-left-color:#cf222e}.verdict.interrupted{border-left-color:#bf8700}"
    ".badge{display:inline-block;font-weight:700;font-size:20px;letter-spacing:.04em;"
    "padding:2px 12px;border-radius:6px;color:#fff;background:#6e7781;margin-right:12px}"
    ".passed .badge{background:#1a7f37}.failed .badge{background:#cf222e}"
    ".interrupted .badge{background:#bf8700}"
    ".verdict p{display:inline;font-size:16px}.verdict ul{margin:8px 0 0;padding-left:20px}"
    ".warn{color:#9a6700}"
    ".big{display:flex;flex-wrap:wrap;gap:10px 34px;margin:6px 0 12px}"
    ".big div{min-width:150px}.big .v{display:block;font-size:26px;font-weight:650;"
    "font-variant-numeric:tabular-nums}.big .l{color:#57606a;font-size:13px}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0 8px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:right;"
    "vertical-align:top}th{font-weight:600;background:#f6f8fa}"
    "th:first-child,td:first-child,td.t,th.t{text-align:left}td.nw{white-space:nowrap}"
    ".thin{color:#9a6700}.note{color:#57606a;font-size:13px}"
    "th.grp,td.grp{border-left:1px solid #d8dee4}th.pg{text-align:center}.note.warn{color:#9a6700}"
    ".cols{display:flex;flex-wrap:wrap;gap:0 40px;align-items:flex-start}"
    ".scroll{overflow-x:auto}"
    "figure{margin:10px 0 22px}figure svg{display:block;width:100%;height:auto;"
    "border:1px solid #eaeef2;border-radius:4px}"
    "figcaption h3{margin:0 0 2px}figcaption p{margin:0 0 6px;color:#57606a;font-size:13px}"
    "pre{background:#f6f8fa;padding:10px;overflow:auto;font-size:12px;line-height:1.35}"
    "pre.inputs{columns:2 480px;column-gap:24px}"
    "details{margin:6px 0}summary{cursor:pointer}"
    "footer{color:#57606a;font-size:12px;margin-top:20px}"
    "@media print{body{background:#fff}section{break-inside:avoid}}";

/* "1 ConsPerf, 1 ProvPerf" into buf. */
static void tool_list(const rpt *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < RPT_TOOLS; t++) {
        int c = tool_count(r, t);
        if (c && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%d %s", n ? ", " : "", c, rpt_tool_name(t));
    }
}

/* The document head (title, policy, style) and the page's header line. */
static void head(const rpt *r, FILE *f)
{
    char tools[256], span[128] = "", a[32], b[32];
    tool_list(r, tools, sizeof(tools));
    if (r->end >= 0) {
        rpt_utc_format(a, sizeof(a), r->start, "%Y-%m-%d %H:%M:%S");
        rpt_utc_format(b, sizeof(b), r->end, "%H:%M:%S");
        snprintf(span, sizeof(span), "%s to %s UTC (%.0f s)", a, b, r->end - r->start);
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    fprintf(f, "rwfperf report: %s", rpt_status_name(r->status));
    if (r->nprocs) {
        fputs(", ", f);
        esc(f, tools);
    }
    if (r->nsweeps && !r->nprocs)
        fputs(", rate sweep", f);
    if (span[0]) {
        fputs(", ", f);
        esc(f, span);
    }
    fprintf(f,
            "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header><h1>rwfperf report"
            "</h1><p>",
            css);
    if (r->nprocs)
        esc(f, tools);
    if (r->nsweeps)
        fprintf(f, "%s%d rate sweep%s", r->nprocs ? "; " : "", r->nsweeps,
                r->nsweeps > 1 ? "s" : "");
    if (r->nhosts) {
        fputs(" on ", f);
        for (int h = 0; h < r->nhosts && h < 6; h++) {
            fputs(h ? ", " : "", f);
            esc(f, r->hosts[h]);
        }
        if (r->nhosts > 6)
            fprintf(f, " and %d more hosts", r->nhosts - 6);
    }
    if (span[0]) {
        fputs(" &middot; ", f);
        esc(f, span);
    }
    fputs("</p></header>\n", f);
}

/* Links to the sections the page has. */
static void nav(const rpt *r, const rpt_charts *ch, FILE *f)
{
    bool has[5] = {false};
    static const char *const pre[] = {"rates-", "latency-time-", "percentiles-", "cpu", "memory"};
    for (int i = 0; i < ch->n; i++)
        for (int k = 0; k < 5; k++)
            has[k] |= strncmp(ch->c[i].id, pre[k], strlen(pre[k])) == 0;
    fputs("<nav><a href=\"#verdict\">Verdict</a><a href=\"#figures\">Figures</a>"
          "<a href=\"#environment\">Environment</a>",
          f);
    if (r->nprocs)
        fputs("<a href=\"#inputs\">Inputs</a>", f);
    if (has[0])
        fputs("<a href=\"#rates\">Rates</a>", f);
    if (has[1])
        fputs("<a href=\"#latency-time\">Latency over time</a>", f);
    if (has[2])
        fputs("<a href=\"#percentiles\">Latency distribution</a>", f);
    if (has[3] || has[4])
        fputs("<a href=\"#resources\">CPU and memory</a>", f);
    if (r->nsweeps)
        fputs("<a href=\"#sweep\">Rate sweep</a>", f);
    if (r->nprocs > 1)
        fputs("<a href=\"#processes\">Processes</a>", f);
    fputs("<a href=\"#files\">Files</a></nav>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Verdict                                                                                    */

static void verdict(const rpt *r, FILE *f)
{
    const char *st = rpt_status_name(r->status);
    fprintf(f,
            "<section id=\"verdict\" class=\"verdict %s\" data-verdict=\"%s\"><h2>Verdict</h2>"
            "<span class=\"badge\">%s</span><p>",
            st, st,
            r->status == RPT_PASSED        ? "PASSED"
            : r->status == RPT_FAILED      ? "FAILED"
            : r->status == RPT_INTERRUPTED ? "INTERRUPTED"
                                           : "UNKNOWN");
    esc(f, r->reason);
    fputs("</p>\n<ul>\n", f);
    for (int i = 0; i < r->nprocs && r->nprocs <= 24; i++) {
        const rpt_proc *p = &r->procs[i];
        fputs("<li>", f);
        esc(f, p->label);
        fprintf(f, ": <b>%s</b>", rpt_status_name(p->status));
        if (p->status != RPT_PASSED || strcmp(p->reason, "passed") != 0) {
            fputs(" &mdash; ", f);
            esc(f, p->reason);
        }
        fputs("</li>\n", f);
    }
    for (int i = 0; i < r->nprocs; i++)
        for (int w = 0; w < r->procs[i].nwarn; w++) {
            fputs("<li class=\"warn\">", f);
            esc(f, r->procs[i].label);
            fputs(": ", f);
            esc(f, r->procs[i].warnings[w]);
            fputs("</li>\n", f);
        }
    for (int w = 0; w < r->nwarn; w++) {
        fputs("<li class=\"warn\">", f);
        esc(f, r->warnings[w]);
        fputs("</li>\n", f);
    }
    fputs("</ul></section>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Figures                                                                                    */

/* The JSON latency object of tag in a single process's summary, or NULL. */
static json_object *summary_lat(const rpt_proc *p, const char *tag)
{
    bool sched = strncmp(tag, "sched-", 6) == 0;
    const char *base = sched ? tag + 6 : tag;
    const char *key =
        strcmp(base, "update") == 0 || strcmp(base, "oneway") == 0 || strcmp(base, "rtt") == 0
            ? "latency"
        : strcmp(base, "post") == 0   ? "posting_latency"
        : strcmp(base, "genmsg") == 0 ? "genmsg_latency"
        : strcmp(base, "encode") == 0 ? "update_encode_time"
                                      : NULL;
    if (!key || (sched && strcmp(base, "encode") == 0))
        return NULL;
    char k[64];
    snprintf(k, sizeof(k), "%s%s", sched ? "sched_" : "", key);
    json_object *l = member(member(member(p->json, "results"), "overall"), k);
    return l && json_object_is_type(l, json_type_object) ? l : NULL;
}

/* The one process of tool t, when it is alone and has a summary: its figures are the
 * summary's own. */
static const rpt_proc *single(const rpt *r, int t)
{
    const rpt_proc *one = NULL;
    for (int i = 0; i < r->nprocs; i++)
        if (r->procs[i].tool == t) {
            if (one)
                return NULL;
            one = &r->procs[i];
        }
    return one && one->json ? one : NULL;
}

/* One latency figure cell. */
static void lat_cell(FILE *f, json_object *l, const char *key, const char *tag, const char *tool,
                     int dec)
{
    char buf[64], ex[40], note_key[48];
    double v = dmember(l, key);
    snprintf(note_key, sizeof(note_key), "%s_note", key);
    const char *note = smember(l, note_key);
    if (isnan(v)) {
        fputs("<td>-</td>", f);
        return;
    }
    fprintf(f, "<td data-figure=\"%s\" data-kind=\"%s\" data-tool=\"%s\" data-value=\"%s\"",
            strcmp(key, "p99_9") == 0    ? "p99.9"
            : strcmp(key, "p99_99") == 0 ? "p99.99"
                                         : key,
            tag, tool, exact(ex, sizeof(ex), v));
    if (note) {
        fputs(" class=\"thin\" title=\"", f);
        esc(f, note);
        fputs("\"", f);
    }
    fprintf(f, ">%s%s</td>", num(buf, sizeof(buf), v, dec), note ? "*" : "");
}

/* The latency table of tool t: per kind, from the summary (one process) or the merge. */
static void lat_table(const rpt *r, int t, FILE *f)
{
    const merge *m = r->by_tool[t];
    if (!m)
        return;
    const rpt_proc *one = single(r, t);
    json_object *merged = one ? NULL : merge_json(m);
    json_object *comb = member(member(merged, "combined"), "latency_usec");
    const merge_kind *ks[MERGE_KINDS];
    int n = 0;
    for (int i = 0; i < m->combined.nkinds; i++)
        ks[n++] = &m->combined.kinds[i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && merge_kind_rank(ks[j - 1]->tag) > merge_kind_rank(ks[j]->tag);
             j--) {
            const merge_kind *x = ks[j];
            ks[j] = ks[j - 1];
            ks[j - 1] = x;
        }
    bool any_thin = false, header = false;
    for (int i = 0; i < n; i++) {
        const char *tag = ks[i]->tag;
        json_object *l = one ? summary_lat(one, tag) : NULL;
        const char *from = "summary";
        if (!l) {
            if (!merged)
                merged = merge_json(m), comb = member(member(merged, "combined"), "latency_usec");
            l = member(comb, tag);
            from = "histogram logs";
        }
        if (!l || !(dmember(l, "count") > 0))
            continue;
        if (!header) {
            fputs("<table class=\"latency\"><tr><th>latency (usec)</th><th>samples</th>"
                  "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>p99.99</th><th>max</th>"
                  "<th>avg</th><th class=\"t\">from</th></tr>\n",
                  f);
            header = true;
        }
        int dec;
        const char *label = merge_kind_label(tag, &dec);
        char buf[64];
        fputs("<tr><td>", f);
        esc(f, label);
        fprintf(f,
                " <span class=\"note\">(%s)</span></td><td data-figure=\"samples\" "
                "data-kind=\"%s\" data-tool=\"%s\" data-value=\"%.0f\">%s</td>",
                tag, tag, rpt_tool_name(t), dmember(l, "count"),
                num(buf, sizeof(buf), dmember(l, "count"), 0));
        static const char *const keys[] = {"p50", "p90", "p99", "p99_9", "p99_99", "max", "avg"};
        for (int k = 0; k < 7; k++) {
            lat_cell(f, l, keys[k], tag, rpt_tool_name(t), dec);
            char nk[32];
            snprintf(nk, sizeof(nk), "%s_note", keys[k]);
            any_thin |= smember(l, nk) != NULL;
        }
        fprintf(f, "<td class=\"t note nw\">%s</td></tr>\n",
                one && strcmp(from, "summary") == 0 ? base_of(one->json_path)
                : one                               ? "histogram logs"
                                                    : "merged histograms");
    }
    if (header)
        fprintf(f, "</table>\n%s",
                any_thin ? "<p class=\"note thin\">* fewer samples than the "
                           "percentile needs (p99 needs 100, p99.9 1,000, p99.99 "
                           "10,000): the value is simply the maximum.</p>\n"
                         : "");
    json_object_put(merged);
}

/* The big numbers of tool t: images, rate, p50/p99 of its main kind. */
static void big_numbers(const rpt *r, int t, FILE *f)
{
    const merge *m = r->by_tool[t];
    if (!m)
        return;
    const merge_totals *tot = &m->combined.totals;
    char buf[64], ex[40];
    fputs("<div class=\"big\">", f);
    for (int i = 0; i < merge_total_count(); i++) {
        const char *key = merge_total_key(i);
        static const char *const shown[] = {"refreshes_received", "images_sent",
                                            "steady_update_rate", "msg_recv_rate",
                                            "updates_sent",       "msg_sent_rate"};
        bool show = false;
        for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
            show |= strcmp(key, shown[k]) == 0;
        if (!show || !tot->have[i])
            continue;
        if (strcmp(key, "updates_sent") == 0 && t == RPT_CONS)
            continue;
        fprintf(f,
                "<div><span class=\"v\" data-figure=\"%s\" data-tool=\"%s\" "
                "data-value=\"%s\">%s</span><span class=\"l\">",
                key, rpt_tool_name(t), exact(ex, sizeof(ex), tot->v[i]),
                num(buf, sizeof(buf), tot->v[i], 0));
        esc(f, merge_total_label(i));
        if (strcmp(key, "refreshes_received") == 0) {
            for (int k = 0; k < merge_total_count(); k++)
                if (strcmp(merge_total_key(k), "item_count") == 0 && tot->have[k])
                    fprintf(f, " of %s items", num(buf, sizeof(buf), tot->v[k], 0));
        }
        fputs("</span></div>", f);
    }
    fputs("</div>\n", f);
}

/* The totals the merge sums (counts and rates), as rwfperf-merge's combined block. */
static void totals_table(const rpt *r, int t, FILE *f)
{
    const merge *m = r->by_tool[t];
    if (!m)
        return;
    const merge_totals *tot = &m->combined.totals;
    char buf[64], ex[40];
    bool any = false;
    for (int i = 0; i < merge_total_count(); i++)
        any |= tot->have[i] && tot->v[i] != 0;
    if (!any)
        return;
    fputs("<details><summary>Counts and rates", f);
    if (m->nprocs > 1)
        fprintf(f, " (summed over the %d processes, as rwfperf-merge sums them)", m->nprocs);
    fputs("</summary><table class=\"totals\">\n", f);
    for (int i = 0; i < merge_total_count(); i++) {
        if (!tot->have[i] || tot->v[i] == 0)
            continue;
        fputs("<tr><td>", f);
        esc(f, merge_total_label(i));
        fprintf(f, "</td><td data-figure=\"%s\" data-tool=\"%s\" data-value=\"%s\">%s</td></tr>\n",
                merge_total_key(i), rpt_tool_name(t), exact(ex, sizeof(ex), tot->v[i]),
                num(buf, sizeof(buf), tot->v[i], 0));
    }
    fputs("</table></details>\n", f);
}

/* The clock of a process: its summary's "clock" (a name, or an object: its "source" and
 * "clock_id" first, then its other members as "key value"), top level or among the inputs;
 * else the tools' default. */
static void clock_text(const rpt_proc *p, char *buf, size_t size)
{
    json_object *c = member(p->json, "clock");
    if (!c)
        c = member(member(p->json, "inputs"), "clock");
    if (c && json_object_is_type(c, json_type_string)) {
        snprintf(buf, size, "%s", json_object_get_string(c));
        return;
    }
    if (!c || !json_object_is_type(c, json_type_object)) {
        snprintf(buf, size, "monotonic (the default: the summary names none)");
        return;
    }
    const char *src = smember(c, "source"), *id = smember(c, "clock_id");
    size_t n = (size_t)snprintf(buf, size, "%s", src ? src : "?");
    if (id && n < size)
        n += (size_t)snprintf(buf + n, size - n, " (%s)", id);
    json_object_object_foreach(c, key, val)
    {
        if (strcmp(key, "source") == 0 || strcmp(key, "clock_id") == 0 || n >= size)
            continue;
        n += (size_t)snprintf(buf + n, size - n, ", %s %s", key,
                              json_object_is_type(val, json_type_string)
                                  ? json_object_get_string(val)
                                  : json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
    }
}

/* A per-host table, for a fleet. */
static void host_table(const rpt *r, FILE *f)
{
    fputs("<div><h3>Per host</h3><table class=\"hosts\"><tr><th>host</th><th class=\"t\">"
          "processes</th><th>images</th><th>update rate</th><th>p50 (usec)</th>"
          "<th>p99 (usec)</th><th class=\"t\">clock</th><th class=\"t\">verdict</th></tr>\n",
          f);
    for (int h = 0; h < r->nhosts; h++) {
        const merge *m = r->by_host ? r->by_host[h] : NULL;
        int tools[RPT_TOOLS] = {0}, worst = RPT_PASSED;
        char clock[160] = "";
        for (int i = 0; i < r->nprocs; i++) {
            const rpt_proc *p = &r->procs[i];
            if (strcmp(p->host, r->hosts[h]) != 0)
                continue;
            tools[p->tool]++;
            if (p->status == RPT_INTERRUPTED ||
                (p->status == RPT_FAILED && worst != RPT_INTERRUPTED) ||
                (p->status == RPT_UNKNOWN && worst == RPT_PASSED))
                worst = p->status;
            if (!clock[0] && p->json)
                clock_text(p, clock, sizeof(clock));
        }
        char procs[160] = "", buf[64], buf2[64];
        size_t n = 0;
        for (int t = 0; t < RPT_TOOLS; t++)
            if (tools[t] && n < sizeof(procs))
                n += (size_t)snprintf(procs + n, sizeof(procs) - n, "%s%d %s", n ? ", " : "",
                                      tools[t], rpt_tool_name(t));
        double images = NAN, rate = NAN;
        for (int i = 0; m && i < merge_total_count(); i++) {
            if (strcmp(merge_total_key(i), "refreshes_received") == 0 && m->combined.totals.have[i])
                images = m->combined.totals.v[i];
            if (strcmp(merge_total_key(i), "steady_update_rate") == 0 && m->combined.totals.have[i])
                rate = m->combined.totals.v[i];
        }
        json_object *mj = m ? merge_json(m) : NULL;
        json_object *lat = member(member(mj, "combined"), "latency_usec"), *first = NULL;
        const char *first_tag = NULL;
        int best = 1 << 30;
        if (lat) {
            json_object_object_foreach(lat, tag, obj)
            {
                if (merge_kind_rank(tag) < best && dmember(obj, "p50") >= 0) {
                    best = merge_kind_rank(tag);
                    first = obj;
                    first_tag = tag;
                }
            }
        }
        fputs("<tr><td>", f);
        esc(f, r->hosts[h]);
        fputs("</td><td class=\"t\">", f);
        esc(f, procs);
        fprintf(f, "</td><td data-figure=\"refreshes_received\" data-host=\"");
        esc(f, r->hosts[h]);
        fprintf(f, "\">%s</td><td>%s</td>", num(buf, sizeof(buf), images, 0),
                num(buf2, sizeof(buf2), rate, 0));
        int dec = 1;
        if (first_tag)
            merge_kind_label(first_tag, &dec);
        fprintf(f, "<td>%s</td><td>%s</td><td class=\"t\">",
                num(buf, sizeof(buf), dmember(first, "p50"), dec),
                num(buf2, sizeof(buf2), dmember(first, "p99"), dec));
        esc(f, clock);
        fprintf(f, "</td><td class=\"t\">%s</td></tr>\n", rpt_status_name(worst));
        json_object_put(mj);
    }
    fputs("</table><p class=\"note\">Latency: the first kind each host measured (update for "
          "consumers), its processes' histograms merged.</p></div>\n",
          f);
}

/* The figures section: per tool its numbers and tables, and the per-host table of a fleet. */
static void figures(const rpt *r, FILE *f)
{
    fputs("<section id=\"figures\"><h2>Figures</h2><div class=\"cols\"><div>\n", f);
    bool any = false;
    for (int t = 0; t < RPT_TOOLS; t++) {
        int c = tool_count(r, t);
        if (!c)
            continue;
        any = true;
        fprintf(f, "<div data-tool=\"%s\"><h3>%s: %d process%s%s</h3>\n", rpt_tool_name(t),
                rpt_tool_name(t), c, c > 1 ? "es" : "",
                c > 1          ? " combined"
                : single(r, t) ? " (its JSON summary)"
                               : "");
        big_numbers(r, t, f);
        lat_table(r, t, f);
        totals_table(r, t, f);
        if (!r->by_tool[t])
            fputs("<p class=\"note\">No JSON summary or histogram log: only the statistics "
                  "files' charts below.</p>\n",
                  f);
        fputs("</div>\n", f);
    }
    if (!any && r->nsweeps)
        fputs("<p>A rate sweep: its figures are in the <a href=\"#sweep\">rate sweep</a> "
              "section.</p>\n",
              f);
    fputs("</div>\n", f);
    if (r->nhosts > 1)
        host_table(r, f);
    fputs("</div></section>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Environment and inputs                                                                     */

static void env_row(FILE *f, const char *name, const char *value)
{
    fputs("<tr><td>", f);
    esc(f, name);
    fputs("</td><td class=\"t\">", f);
    esc(f, value);
    fputs("</td></tr>\n", f);
}

/* The value after "label: " in a TEST INPUTS block, into buf ("" when absent). */
static void input_line(const char *block, const char *label, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const char *p = block; p && (p = strstr(p, label)); p++) {
        const char *v = p + strlen(label);
        if (*v != ':')
            continue;
        v++;
        while (*v == ' ')
            v++;
        size_t n = strcspn(v, "\n");
        snprintf(buf, size, "%.*s", (int)n, v);
        return;
    }
}

/* The environment section: hosts, builds, clocks, the run's span, the folders. */
static void environment(const rpt *r, FILE *f)
{
    fputs("<section id=\"environment\"><h2>Environment</h2><table class=\"env\">\n", f);
    char buf[512], a[64], b[64];
    /* One line per distinct host, from the first summary of each. */
    for (int h = 0; h < r->nhosts; h++)
        for (int i = 0; i < r->nprocs; i++) {
            const rpt_proc *p = &r->procs[i];
            json_object *host = member(p->json, "host");
            if (strcmp(p->host, r->hosts[h]) != 0 || !host)
                continue;
            snprintf(buf, sizeof(buf), "%s: %s, %d cores; %s", r->hosts[h],
                     smember(host, "cpu_model") ? smember(host, "cpu_model") : "?",
                     (int)dmember(host, "cores"),
                     smember(host, "kernel") ? smember(host, "kernel") : "?");
            env_row(f, r->nhosts > 1 ? "host" : "host, CPU, kernel", buf);
            break;
        }
    /* Builds: each distinct version and git revision, with the processes that ran it. */
    for (int i = 0; i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        const char *rev = smember(p->json, "git_revision"), *ver = smember(p->json, "version");
        if (!rev)
            continue;
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = smember(r->procs[k].json, "git_revision") &&
                   strcmp(smember(r->procs[k].json, "git_revision"), rev) == 0;
        if (seen)
            continue;
        int users = 0;
        for (int k = 0; k < r->nprocs; k++)
            users += smember(r->procs[k].json, "git_revision") &&
                     strcmp(smember(r->procs[k].json, "git_revision"), rev) == 0;
        snprintf(buf, sizeof(buf), "rwfperf %s, git revision %s (%d of %d processes)",
                 ver ? ver : "?", rev, users, r->nprocs);
        env_row(f, "build", buf);
    }
    for (int i = 0; i < r->nsweeps; i++)
        if (r->sweeps[i].env) {
            json_object *e = r->sweeps[i].env, *host = member(e, "host");
            snprintf(buf, sizeof(buf), "%s: %s, %d cores; %s",
                     smember(host, "name") ? smember(host, "name") : "?",
                     smember(host, "cpu_model") ? smember(host, "cpu_model") : "?",
                     (int)dmember(host, "cores"),
                     smember(host, "kernel") ? smember(host, "kernel") : "?");
            env_row(f, "sweep host, CPU, kernel", buf);
            snprintf(buf, sizeof(buf), "ours: %.30s, git revision %.40s (from %.400s)",
                     smember(e, "version") ? smember(e, "version") : "?",
                     smember(e, "git_revision") ? smember(e, "git_revision") : "?",
                     r->sweeps[i].env_path);
            env_row(f, "sweep build", buf);
        }
    /* Clock: each one the summaries name, with the processes using it and the resolution and
     * read cost they measured (TEST INPUTS). */
    for (int i = 0; i < r->nprocs; i++) {
        char clock[256], other[256];
        if (!r->procs[i].json)
            continue;
        clock_text(&r->procs[i], clock, sizeof(clock));
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) {
            if (!r->procs[k].json)
                continue;
            clock_text(&r->procs[k], other, sizeof(other));
            seen = strcmp(clock, other) == 0;
        }
        if (seen)
            continue;
        double cost_lo = INFINITY, cost_hi = -INFINITY, res_lo = INFINITY, res_hi = -INFINITY;
        int users = 0;
        for (int k = i; k < r->nprocs; k++) {
            if (!r->procs[k].json)
                continue;
            clock_text(&r->procs[k], other, sizeof(other));
            if (strcmp(clock, other) != 0)
                continue;
            users++;
            char cost[32], resol[32];
            input_line(r->procs[k].test_inputs, "Clock Cost (ns)", cost, sizeof(cost));
            input_line(r->procs[k].test_inputs, "Clock Resolution (ns)", resol, sizeof(resol));
            if (cost[0]) {
                cost_lo = fmin(cost_lo, atof(cost));
                cost_hi = fmax(cost_hi, atof(cost));
            }
            if (resol[0]) {
                res_lo = fmin(res_lo, atof(resol));
                res_hi = fmax(res_hi, atof(resol));
            }
        }
        size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", clock);
        if (users < r->nprocs)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, " (%d of %d processes)", users,
                                  r->nprocs);
        if (res_lo <= res_hi && n < sizeof(buf))
            n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                                  res_lo < res_hi ? "; resolution %g to %g ns"
                                                  : "; resolution %g ns",
                                  res_lo, res_hi);
        if (cost_lo <= cost_hi && n < sizeof(buf))
            snprintf(buf + n, sizeof(buf) - n,
                     cost_lo < cost_hi ? "; a read costs %g to %g ns" : "; a read costs %g ns",
                     cost_lo, cost_hi);
        env_row(f, "clock", buf);
    }
    if (r->end >= 0) {
        rpt_utc_format(a, sizeof(a), r->start, "%Y-%m-%d %H:%M:%S");
        rpt_utc_format(b, sizeof(b), r->end, "%Y-%m-%d %H:%M:%S");
        snprintf(buf, sizeof(buf), "%s to %s UTC (%.1f s)", a, b, r->end - r->start);
        env_row(f, "run (UTC)", buf);
    }
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->nfolders && n < sizeof(buf); i++) {
        char *real = realpath(r->folders[i], NULL);
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
                              real ? real : r->folders[i]);
        free(real);
    }
    env_row(f, r->nfolders > 1 ? "folders" : "folder", buf);
    rpt_utc_format(a, sizeof(a), (double)time(NULL), "%Y-%m-%d %H:%M:%S UTC");
    snprintf(buf, sizeof(buf), "%s by rwfperf-report %s (git revision %s)", a, RWFPERF_VERSION,
             rwfperf_git_rev());
    env_row(f, "report written", buf);
    fputs("</table></section>\n", f);
}

/* The inputs section: each process's TEST INPUTS (or JSON inputs), the same ones once. */
static void inputs(const rpt *r, FILE *f)
{
    if (!r->nprocs)
        return;
    fputs("<section id=\"inputs\"><h2>Inputs</h2>\n", f);
    for (int i = 0; i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        /* Processes with the same TEST INPUTS are shown once. */
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = p->test_inputs && r->procs[k].test_inputs &&
                   strcmp(p->test_inputs, r->procs[k].test_inputs) == 0;
        if (seen)
            continue;
        fprintf(f, "<details%s><summary>", i == 0 ? " open" : "");
        esc(f, p->label);
        int same = 0;
        for (int k = i + 1; k < r->nprocs; k++)
            same += p->test_inputs && r->procs[k].test_inputs &&
                    strcmp(p->test_inputs, r->procs[k].test_inputs) == 0;
        if (same)
            fprintf(f, " and %d other%s with the same inputs", same, same > 1 ? "s" : "");
        if (p->test_inputs) {
            fputs(": TEST INPUTS</summary><pre class=\"inputs\">", f);
            esc(f, p->test_inputs);
            fputs("</pre></details>\n", f);
            continue;
        }
        json_object *in = member(p->json, "inputs");
        if (!in) {
            fputs(": no summary, inputs unknown</summary></details>\n", f);
            continue;
        }
        fputs(": inputs from its JSON summary</summary><table>\n", f);
        json_object_object_foreach(in, key, val)
        {
            fputs("<tr><td>-", f);
            esc(f, key);
            fputs("</td><td class=\"t\">", f);
            esc(f, json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
            fputs("</td></tr>\n", f);
        }
        fputs("</table></details>\n", f);
    }
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Charts                                                                                     */

static void chart(const rpt_charts *ch, const rpt_chart *c, FILE *f)
{
    fprintf(f, "<figure id=\"chart-%s\" data-chart=\"%s\"><figcaption><h3>", c->id, c->id);
    esc(f, c->title);
    fputs("</h3>", f);
    if (c->caption && c->caption[0]) {
        fputs("<p>", f);
        esc(f, c->caption);
        fputs("</p>", f);
    }
    fputs("</figcaption>\n", f);
    if (c->svg) {
        fputs(c->svg, f);
    } else {
        fputs("<p class=\"warn\">Chart not drawn: ", f);
        esc(f, ch->gnuplot_error[0] ? ch->gnuplot_error : "nothing to draw");
        fputs("</p>", f);
    }
    fputs("</figure>\n", f);
}

/* The charts whose id starts with one of the prefixes, under a heading. */
static void chart_section(const rpt_charts *ch, FILE *f, const char *id, const char *title,
                          const char *intro, const char *p1, const char *p2)
{
    int n = 0;
    for (int i = 0; i < ch->n; i++)
        n += strncmp(ch->c[i].id, p1, strlen(p1)) == 0 ||
             (p2 && strncmp(ch->c[i].id, p2, strlen(p2)) == 0);
    if (!n)
        return;
    fprintf(f, "<section id=\"%s\"><h2>%s</h2><p class=\"note\">%s</p>\n", id, title, intro);
    for (int i = 0; i < ch->n; i++)
        if (strncmp(ch->c[i].id, p1, strlen(p1)) == 0 ||
            (p2 && strncmp(ch->c[i].id, p2, strlen(p2)) == 0))
            chart(ch, &ch->c[i], f);
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Sweeps                                                                                     */

static bool same_config(const rpt_sweep_row *a, const rpt_sweep_row *b)
{
    return strcmp(a->mode, b->mode) == 0 && strcmp(a->pair, b->pair) == 0 &&
           strcmp(a->pack, b->pack) == 0;
}

/* The pairs of tools of a sweep (ours, orig), in the order of the file: their count. */
static int sweep_pairs(const rpt_sweep *sw, const char *pairs[8])
{
    int n = 0;
    for (int i = 0; i < sw->nrows; i++) {
        int k = 0;
        while (k < n && strcmp(pairs[k], sw->rows[i].pair) != 0)
            k++;
        if (k == n && n < 8)
            pairs[n++] = sw->rows[i].pair;
    }
    return n;
}

/* When a sweep ran more than one pair of tools: per mode and packing, a table of each offered
 * rate with every pair's figures side by side (received, CPU per update of each tool, p99). */
static void side_by_side(const rpt_sweep *sw, FILE *f)
{
    const char *pairs[8];
    int np = sweep_pairs(sw, pairs);
    if (np < 2)
        return;
    char buf[64];
    for (int i = 0; i < sw->nrows; i++) {
        const rpt_sweep_row *w = &sw->rows[i];
        bool first = true; /* the first row of its mode and packing */
        for (int k = 0; k < i && first; k++)
            first =
                !(strcmp(sw->rows[k].mode, w->mode) == 0 && strcmp(sw->rows[k].pack, w->pack) == 0);
        if (!first)
            continue;
        fprintf(f,
                "<h3>At each rate, side by side: %s, %s</h3>\n<div class=\"scroll\">"
                "<table class=\"side\"><tr><th rowspan=\"2\">offered</th>",
                w->mode, strcmp(w->pack, "no") == 0 ? "unpacked" : "packed");
        for (int p = 0; p < np; p++)
            fprintf(f, "<th colspan=\"4\" class=\"grp pg\">%s</th>", pairs[p]);
        fputs("</tr><tr>", f);
        for (int p = 0; p < np; p++)
            fputs("<th class=\"grp\">received</th><th>cons ns/upd</th><th>prov ns/upd</th>"
                  "<th>p99 us</th>",
                  f);
        fputs("</tr>\n", f);
        /* The offered rates of this mode and packing, ascending, each once. */
        double last = -1;
        for (;;) {
            double rate = INFINITY;
            for (int k = i; k < sw->nrows; k++) {
                const rpt_sweep_row *x = &sw->rows[k];
                if (strcmp(x->mode, w->mode) == 0 && strcmp(x->pack, w->pack) == 0 &&
                    x->offered > last && x->offered < rate)
                    rate = x->offered;
            }
            if (isinf(rate))
                break;
            last = rate;
            fprintf(f, "<tr><td>%s</td>", num(buf, sizeof(buf), rate, 0));
            for (int p = 0; p < np; p++) {
                const rpt_sweep_row *x = NULL;
                for (int k = i; k < sw->nrows && !x; k++)
                    if (strcmp(sw->rows[k].mode, w->mode) == 0 &&
                        strcmp(sw->rows[k].pack, w->pack) == 0 &&
                        strcmp(sw->rows[k].pair, pairs[p]) == 0 && sw->rows[k].offered == rate)
                        x = &sw->rows[k];
                if (!x) {
                    fputs("<td class=\"grp\"></td><td></td><td></td><td></td>", f);
                    continue;
                }
                const char *cfg_fmt = " data-config=\"%s %s %s\" data-rate=\"%.0f\"";
                fputs("<td class=\"grp", f);
                if (!x->held)
                    fputs(" warn", f);
                fputs("\"", f);
                if (!isnan(x->received)) {
                    fputs(" data-figure=\"received\"", f);
                    fprintf(f, cfg_fmt, x->mode, x->pair, x->pack, rate);
                    fprintf(f, " data-value=\"%.17g\"", x->received);
                }
                if (!x->held)
                    fputs(" title=\"not held (below 99% of the offered rate)\"", f);
                fputs(">", f);
                if (isnan(x->received))
                    esc(f, x->received_text);
                else
                    fputs(num(buf, sizeof(buf), x->received, 0), f);
                fputs("</td>", f);
                const char *names[] = {"cons_ns", "prov_ns", "p99"};
                const double v[] = {x->cons_ns, x->prov_ns, x->p99};
                for (int k = 0; k < 3; k++) {
                    if (isnan(v[k])) {
                        fputs("<td>-</td>", f);
                        continue;
                    }
                    fprintf(f, "<td data-figure=\"%s\"", names[k]);
                    fprintf(f, cfg_fmt, x->mode, x->pair, x->pack, rate);
                    fprintf(f, " data-value=\"%.17g\">%s</td>", v[k],
                            num(buf, sizeof(buf), v[k], k == 2 ? 1 : 0));
                }
            }
            fputs("</tr>\n", f);
        }
        fputs("</table></div>\n", f);
    }
    fputs("<p class=\"note\">In orange: a rate not held (received below 99% of the offered "
          "rate), or no steady state (no-images). p99 \"-\": the original tools write no "
          "percentiles.</p>\n",
          f);
}

static void sweep(const rpt *r, const rpt_charts *ch, FILE *f)
{
    if (!r->nsweeps)
        return;
    fputs("<section id=\"sweep\"><h2>Rate sweep (scripts/bench.sh)</h2>\n", f);
    char buf[64];
    for (int s = 0; s < r->nsweeps; s++) {
        const rpt_sweep *sw = &r->sweeps[s];
        fputs("<p class=\"note\">", f);
        esc(f, sw->path);
        fprintf(f,
                ": %d runs. A rate is held when the consumer's steady-state rate is at least "
                "99%% of the offered one.</p>\n",
                sw->nrows);
        /* The machine's load while the runs ran: figures of a busy machine are not its own. */
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < sw->nrows; i++)
            if (!isnan(sw->rows[i].load)) {
                lo = fmin(lo, sw->rows[i].load);
                hi = fmax(hi, sw->rows[i].load);
            }
        if (hi >= lo) {
            double cores = dmember(member(sw->env, "host"), "cores");
            bool busy = cores > 0 && hi > cores + 1; /* more than the two tools make */
            fprintf(f, "<p class=\"note%s\" data-figure=\"load\" data-value=\"%.2f\">",
                    busy ? " warn" : "", hi);
            fprintf(f, "Load average (1 minute) at the end of the runs: %s",
                    num(buf, sizeof(buf), lo, 2));
            if (hi > lo)
                fprintf(f, " to %s", num(buf, sizeof(buf), hi, 2));
            if (cores > 0)
                fprintf(f, ", on %.0f cores", cores);
            fputs(busy ? ": the machine was busy with more than the runs, so their figures are "
                         "worse (rates held lower, CPU per update higher, latency longer) than "
                         "on an idle one.</p>\n"
                       : ".</p>\n",
                  f);
        }
        /* Highest rate held per configuration. */
        fputs("<h3>Highest update rate held</h3><table class=\"held\"><tr><th>mode</th>"
              "<th class=\"t\">pair</th><th class=\"t\">packing</th><th>rate held</th><th>consumer "
              "ns/update</th>"
              "<th>provider ns/update</th></tr>\n",
              f);
        int top_held = 0;
        for (int i = 0; i < sw->nrows; i++) {
            const rpt_sweep_row *w = &sw->rows[i];
            bool first = true;
            for (int k = 0; k < i && first; k++)
                first = !(strcmp(sw->rows[k].mode, w->mode) == 0 &&
                          strcmp(sw->rows[k].pair, w->pair) == 0 &&
                          strcmp(sw->rows[k].pack, w->pack) == 0);
            if (!first)
                continue;
            const rpt_sweep_row *best = NULL;
            for (int k = i; k < sw->nrows; k++) {
                const rpt_sweep_row *x = &sw->rows[k];
                if (strcmp(x->mode, w->mode) == 0 && strcmp(x->pair, w->pair) == 0 &&
                    strcmp(x->pack, w->pack) == 0 && x->held &&
                    (!best || x->offered > best->offered))
                    best = x;
            }
            fprintf(f, "<tr><td>%s</td><td class=\"t\">%s</td><td class=\"t\">%s</td>", w->mode,
                    w->pair, w->pack);
            if (best) {
                /* The highest rate offered: the limit was not found, it lies above. */
                bool top = true;
                for (int k = i; k < sw->nrows && top; k++)
                    top = !(same_config(&sw->rows[k], w) && sw->rows[k].offered > best->offered);
                top_held += top;
                fprintf(f, "<td data-figure=\"held\" data-config=\"%s %s %s\" data-value=\"%.0f\">",
                        w->mode, w->pair, w->pack, best->offered);
                fprintf(f, "%s%s</td>", top ? "&ge; " : "",
                        num(buf, sizeof(buf), best->offered, 0));
                fprintf(f, "<td>%s</td>", num(buf, sizeof(buf), best->cons_ns, 0));
                fprintf(f, "<td>%s</td></tr>\n", num(buf, sizeof(buf), best->prov_ns, 0));
            } else {
                fputs("<td>none</td><td>-</td><td>-</td></tr>\n", f);
            }
        }
        fputs("</table>\n", f);
        if (top_held)
            fputs("<p class=\"note\">&ge;: the highest rate offered to that configuration, which "
                  "held it: its limit lies above. The CPU per update is that at the rate held, "
                  "which differs between configurations (it falls as the rate rises): compare "
                  "configurations at the same rate below.</p>\n",
                  f);
        side_by_side(sw, f);
        fputs("<details><summary>Every run (bench.csv)</summary><div class=\"scroll\">"
              "<table class=\"rows\"><tr><th>mode</th><th>pair</th><th>pack</th><th>offered</th>"
              "<th>received</th><th>p50 us</th><th>p99 us</th><th>p99.9 us</th>"
              "<th>sched p99</th><th>cons %</th><th>cons MB</th><th>cons ns</th><th>prov %</th>"
              "<th>prov MB</th><th>prov ns</th><th>held</th><th>load</th><th class=\"t\">files"
              "</th></tr>\n",
              f);
        for (int i = 0; i < sw->nrows; i++) {
            const rpt_sweep_row *w = &sw->rows[i];
            fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>", w->mode, w->pair,
                    w->pack, num(buf, sizeof(buf), w->offered, 0));
            fputs("<td>", f);
            if (isnan(w->received))
                esc(f, w->received_text);
            else
                fputs(num(buf, sizeof(buf), w->received, 0), f);
            fputs("</td>", f);
            const double v[] = {w->p50,      w->p99,     w->p999,     w->sched_p99, w->cons_cpu,
                                w->cons_mem, w->cons_ns, w->prov_cpu, w->prov_mem,  w->prov_ns};
            const int dec[] = {1, 1, 1, 1, 2, 2, 0, 2, 2, 0};
            for (int k = 0; k < 10; k++)
                fprintf(f, "<td>%s</td>", num(buf, sizeof(buf), v[k], dec[k]));
            fprintf(f, "<td>%s</td><td>%s</td><td class=\"t\">", w->held ? "yes" : "no",
                    num(buf, sizeof(buf), w->load, 2));
            esc(f, w->run);
            fputs("</td></tr>\n", f);
        }
        fputs("</table></div></details>\n", f);
        char pre[32];
        snprintf(pre, sizeof(pre), "sweep%d-", s + 1);
        for (int i = 0; i < ch->n; i++)
            if (strncmp(ch->c[i].id, pre, strlen(pre)) == 0)
                chart(ch, &ch->c[i], f);
    }
    fputs("</section>\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Processes and files                                                                        */

static void processes(const rpt *r, FILE *f)
{
    if (r->nprocs < 2)
        return;
    fputs(
        "<section id=\"processes\"><h2>Processes</h2><div class=\"scroll\"><table class=\"procs\">"
        "<tr><th>process</th><th class=\"t\">host</th><th class=\"t\">folder</th>"
        "<th class=\"t\">verdict</th><th>rate</th><th>p50 (usec)</th><th>p99 (usec)</th>"
        "<th>CPU avg %</th><th>memory max MiB</th></tr>\n",
        f);
    char buf[64];
    for (int i = 0; i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        json_object *ov = member(member(p->json, "results"), "overall"),
                    *res = member(member(p->json, "results"), "resources");
        double rate = p->tool == RPT_CONS        ? dmember(ov, "steady_update_rate")
                      : p->tool == RPT_TRANSPORT ? dmember(ov, "msg_recv_rate") > 0
                                                       ? dmember(ov, "msg_recv_rate")
                                                       : dmember(ov, "msg_sent_rate")
                                                 : dmember(ov, "achieved_update_rate");
        json_object *lat = NULL;
        static const char *const main_tags[] = {"update", "oneway", "rtt", "genmsg", "encode"};
        int dec = p->tool == RPT_TRANSPORT ? 3 : 1;
        for (size_t k = 0; !lat && k < sizeof(main_tags) / sizeof(main_tags[0]); k++) {
            lat = summary_lat(p, main_tags[k]);
            if (lat && !(dmember(lat, "count") > 0))
                lat = NULL;
        }
        fputs("<tr><td>", f);
        esc(f, p->label);
        fputs("</td><td class=\"t\">", f);
        esc(f, p->host[0] ? p->host : "?");
        fputs("</td><td class=\"t\">", f);
        esc(f, p->folder);
        fprintf(f, "</td><td class=\"t\">%s</td>", rpt_status_name(p->status));
        fprintf(f, "<td>%s</td>", num(buf, sizeof(buf), rate, 0));
        fprintf(f, "<td>%s</td>", num(buf, sizeof(buf), dmember(lat, "p50"), dec));
        fprintf(f, "<td>%s%s</td>", num(buf, sizeof(buf), dmember(lat, "p99"), dec),
                smember(lat, "p99_note") ? "*" : "");
        fprintf(f, "<td>%s</td>", num(buf, sizeof(buf), dmember(res, "cpu_avg"), 2));
        fprintf(f, "<td>%s</td></tr>\n", num(buf, sizeof(buf), dmember(res, "mem_max_mb"), 2));
    }
    fputs("</table></div><p class=\"note\">Each process's own figures, from its JSON summary "
          "(rate: steady-state updates received for ConsPerf, messages for TransportPerf, "
          "updates sent per connection for the providers; latency: its main kind).</p>"
          "</section>\n",
          f);
}

/* The files section: what was read for each process, and what was left out. */
static void files(const rpt *r, FILE *f)
{
    fputs("<section id=\"files\"><h2>Files</h2><details><summary>", f);
    int n = r->ncsvs + r->nlogs + r->nsweeps + r->nclock_files;
    for (int i = 0; i < r->nprocs; i++)
        n += r->procs[i].json != NULL;
    fprintf(f, "%d file%s read%s", n, n == 1 ? "" : "s",
            r->nignored ? "; some left out (see the list)" : "");
    fputs("</summary><ul>\n", f);
    for (int i = 0; i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        fputs("<li>", f);
        esc(f, p->label);
        fputs(": ", f);
        bool first = true;
        if (p->json) {
            esc(f, p->json_path);
            first = false;
        }
        for (int k = 0; k < p->nlog; k++) {
            fputs(first ? "" : ", ", f);
            esc(f, r->logs[p->logs[k]].path);
            first = false;
        }
        for (int k = 0; k < p->ncsv; k++) {
            fputs(first ? "" : ", ", f);
            esc(f, r->csvs[p->csvs[k]].path);
            first = false;
        }
        fputs("</li>\n", f);
    }
    for (int i = 0; i < r->nsweeps; i++) {
        fputs("<li>sweep: ", f);
        esc(f, r->sweeps[i].path);
        fputs("</li>\n", f);
    }
    for (int i = 0; i < r->nclock_files; i++) {
        fputs("<li>host clock: ", f);
        esc(f, r->clock_files[i]);
        fputs("</li>\n", f);
    }
    for (int i = 0; i < r->nignored; i++) {
        fputs("<li class=\"note\">left out: ", f);
        esc(f, r->ignored[i]);
        fputs("</li>\n", f);
    }
    fputs("</ul></details></section>\n", f);
}

int rpt_html_write(const rpt *r, const rpt_charts *ch, FILE *f)
{
    head(r, f);
    nav(r, ch, f);
    verdict(r, f);
    figures(r, f);
    environment(r, f);
    inputs(r, f);
    chart_section(ch, f, "rates", "Rates over time",
                  "Each process's rate in each statistics interval (its threads summed) and, "
                  "with several processes, their total; one quantity per chart. Every chart of "
                  "this page has the same UTC time axis, for every file and host: a point is "
                  "drawn at the end of its interval (the statistics files stamp whole seconds; "
                  "where a histogram log stamps the same interval to the millisecond, that time "
                  "is used).",
                  "rates-", NULL);
    chart_section(ch, f, "latency-time", "Latency over time",
                  "p50, p99 and maximum of each interval, read from the histogram logs (the "
                  "interval histograms of every process at the same time summed, as "
                  "rwfperf-merge sums them), and the p99 of the scheduled view (measured from "
                  "the time each message was due). A p99 needs 100 samples: where an interval "
                  "has fewer, it is left out and a hollow mark shows that interval's maximum.",
                  "latency-time-", NULL);
    chart_section(ch, f, "percentiles", "Latency distribution",
                  "Latency by percentile over the whole run, in HdrHistogram's style: x is "
                  "1 / (1 - p) on a log scale, so 90%, 99%, 99.9% ... are evenly spaced, from 0% "
                  "to 99.999%. Values are read from the summed histogram logs as rwfperf-merge "
                  "reads them. A curve ends at its last sample (n samples reach p = 1 - 1/n). "
                  "Filled marks: p50, p90, p99, p99.9, p99.99, p99.999; a hollow mark is a "
                  "percentile the samples are too few for (p99.9 needs 1,000): its value is "
                  "simply the maximum.",
                  "percentiles-", NULL);
    chart_section(ch, f, "resources", "CPU and memory", "Per process, from the statistics files.",
                  "cpu", "memory");
    sweep(r, ch, f);
    processes(r, f);
    files(r, f);
    fprintf(f,
            "<footer>rwfperf-report %s &middot; a self-contained page: no script, nothing "
            "fetched.</footer>\n</main>\n</body>\n</html>\n",
            RWFPERF_VERSION);
    return ferror(f) ? -1 : 0;
}
