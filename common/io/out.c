#include "out.h"

#include "clk.h"
#include "err.h"
#include "version.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Report                                                                                     */

void out_report_init(out_report *r, FILE *console, FILE *file)
{
    r->console = console;
    r->file = file;
}

static void vput(FILE *f, const char *fmt, va_list ap)
{
    if (f)
        vfprintf(f, fmt, ap);
}

void out_printf(out_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(r->console, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vput(r->file, fmt, ap);
    va_end(ap);
}

void out_console(out_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(r->console, fmt, ap);
    va_end(ap);
}

void out_input(out_report *r, int width, const char *label, const char *fmt, ...)
{
    char value[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    out_printf(r, "%*s: %s\n", width, label, value);
}

const char *out_yes_no(bool b)
{
    return b ? "Yes" : "No";
}

void out_input_bytes(out_report *r, int width, const char *label, int bytes)
{
    out_input(r, width, label, "%d%s", bytes, bytes > 0 ? " bytes" : "(use default)");
}

void out_input_name(out_report *r, int width, const char *label, const char *name)
{
    out_input(r, width, label, "%s", name[0] ? name : "(use default)");
}

int out_report_flush(out_report *r)
{
    FILE *s[2] = {r->console, r->file};
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        if (!s[i])
            continue;
        if (fflush(s[i]) != 0 || ferror(s[i]))
            bad = 1;
    }
    return bad ? err_set("writing the summary failed") : 0;
}

void out_extra_inputs(out_report *r, int width, const out_extra *extra, const char *json_file)
{
    if (extra && extra->clock)
        out_input(r, width, "Clock", "%s", extra->clock);
    if (extra && extra->clock_skew_ns)
        out_input(r, width, "Clock Skew (ns)", "%+lld (test only)",
                  (long long)extra->clock_skew_ns);
    if (extra && extra->clock_cost_ns >= 0)
        out_input(r, width, "Clock Cost (ns)", "%.1f", extra->clock_cost_ns);
    if (extra && extra->clock_resolution_ns >= 0)
        out_input(r, width, "Clock Resolution (ns)", "%.0f", extra->clock_resolution_ns);
    if (json_file)
        out_input(r, width, "JSON Summary File", "%s", json_file);
}

void out_inputs_end(out_report *r, int width, const out_extra *extra, const char *summary_file)
{
    char json[4096 + 8]; /* any summary file name the tools accept */
    out_extra_inputs(r, width, extra,
                     out_json_path(json, sizeof(json), summary_file) == 0 ? json : NULL);
    out_printf(r, "\n");
}

void out_input_threads(out_report *r, int width, const opt_threads *threads,
                       const opt_threads *workers)
{
    char text[2 * OPT_THREADS_LEN + 16];
    out_input(r, width, "Thread List", "%s",
              opt_threads_reactor_text(threads, workers, text, sizeof(text)));
}

void out_input_packing(out_report *r, int width, int max_pack_count, int pack_buf_size)
{
    if (max_pack_count > 1)
        out_input(r, width, "Packing", "Yes(max %d per pack, %d buffer size)", max_pack_count,
                  pack_buf_size);
    else
        out_input(r, width, "Packing", "No");
}

/* ------------------------------------------------------------------------------------------ */
/* Summary blocks                                                                             */

/* The percentiles every latency summary has: its label in the text, its JSON key, where
 * stat_lat holds it. */
typedef struct out_pct {
    double p;
    const char *label;
    const char *key;
    size_t off;
} out_pct;

static const out_pct pcts[] = {
    {50, "p50", "p50", offsetof(stat_lat, p50)},
    {90, "p90", "p90", offsetof(stat_lat, p90)},
    {99, "p99", "p99", offsetof(stat_lat, p99)},
    {99.9, "p99.9", "p99_9", offsetof(stat_lat, p999)},
    {99.99, "p99.99", "p99_99", offsetof(stat_lat, p9999)},
};
#define OUT_PCTS (sizeof(pcts) / sizeof(pcts[0]))

static double pct_value(const stat_lat *l, const out_pct *p)
{
    return *(const double *)((const char *)l + p->off);
}

uint64_t out_pct_needs(double p)
{
    if (!(p > 0) || !(p < 100))
        return 1;
    /* 100 / (100 - p), rounded up; the small shrink keeps 99.9 at 1,000, not 1,001. */
    return (uint64_t)ceil(100.0 / (100.0 - p) * (1.0 - 1e-12));
}

uint64_t out_pct_samples(const stat_lat *l)
{
    return l->count >= l->negative ? l->count - l->negative : 0;
}

bool out_pct_note(char *buf, size_t size, const stat_lat *l, double p)
{
    uint64_t n = out_pct_samples(l);
    buf[0] = '\0';
    if (l->count == 0 || n >= out_pct_needs(p))
        return false;
    if (n == 0)
        snprintf(buf, size, "no samples at or above zero");
    else
        snprintf(buf, size, "only %" PRIu64 " sample%s: this is the maximum", n, n == 1 ? "" : "s");
    return true;
}

static void percentile_lines(out_report *r, const char *name, const stat_lat *l, int decimals)
{
    for (size_t i = 0; i < OUT_PCTS; i++) {
        char note[96];
        if (out_pct_note(note, sizeof(note), l, pcts[i].p))
            out_printf(r, "  %s %s (usec): %.*f (%s)\n", name, pcts[i].label, decimals,
                       pct_value(l, &pcts[i]), note);
        else
            out_printf(r, "  %s %s (usec): %.*f\n", name, pcts[i].label, decimals,
                       pct_value(l, &pcts[i]));
    }
}

void out_lat_block(out_report *r, const char *name, const stat_lat *l, int decimals)
{
    out_printf(r,
               "  %s avg (usec): %.*f\n"
               "  %s std dev (usec): %.*f\n"
               "  %s max (usec): %.*f\n"
               "  %s min (usec): %.*f\n",
               name, decimals, l->avg, name, decimals, l->stddev, name, decimals, l->max, name,
               decimals, l->min);
    percentile_lines(r, name, l, decimals);
}

void out_lat_sched_block(out_report *r, const char *name, const stat_lat *sched, int decimals)
{
    if (!sched || sched->count == 0)
        return;
    char full[128];
    snprintf(full, sizeof(full), "Sched %s", name);
    out_lat_block(r, full, sched, decimals);
}

void out_lat_blocks(out_report *r, const char *name, const char *sched_name, const stat_lat *l,
                    const stat_lat *sched, int decimals, const char *none)
{
    if (l->count) {
        out_lat_block(r, name, l, decimals);
        out_lat_sched_block(r, sched_name, sched, decimals);
    } else {
        out_printf(r, "%s", none);
    }
}

void out_res_block(out_report *r, const stat_res *res)
{
    if (!res || res->samples == 0)
        return;
    out_printf(r,
               "  CPU/Memory samples: %" PRIu64 "\n"
               "  CPU Usage max (%%): %.2f\n"
               "  CPU Usage min (%%): %.2f\n"
               "  CPU Usage avg (%%): %.2f\n"
               "  Memory Usage max (MB): %.2f\n"
               "  Memory Usage min (MB): %.2f\n"
               "  Memory Usage avg (MB): %.2f\n",
               res->samples, res->cpu_max, res->cpu_min, res->cpu_avg, res->mem_max, res->mem_min,
               res->mem_avg);
}

bool out_rate_check(out_report *r, const char *what, double offered, double achieved)
{
    if (!(offered > 0))
        return false;
    out_printf(r, "  Offered %s rate: %.0f\n", what, offered);
    out_printf(r, "  Achieved %s rate: %.0f\n", what, achieved);
    if (achieved < 0.99 * offered) {
        out_printf(r, "  Warning: achieved %s rate is %.2f%% of the offered rate (below 99%%).\n",
                   what, 100.0 * achieved / offered);
        return true;
    }
    return false;
}

double out_rate(double count, double secs)
{
    return secs > 0 ? count / secs : 0.0;
}

double out_secs(uint64_t start_ns, uint64_t end_ns, uint64_t now_ns)
{
    if (start_ns == 0)
        return 0.0;
    uint64_t end = end_ns ? end_ns : now_ns;
    return ((double)end - (double)start_ns) / 1e9;
}

out_genmsg out_genmsg_of(uint64_t sent, uint64_t recv, uint64_t lat_sent, uint64_t lat_recv,
                         uint64_t first_sent_ns, uint64_t first_recv_ns, uint64_t end_ns)
{
    double sent_secs = out_secs(first_sent_ns, end_ns, end_ns);
    double recv_secs = out_secs(first_recv_ns, end_ns, end_ns);
    out_genmsg g = {sent, recv, lat_sent, lat_recv, 0, 0, 0, 0};
    g.send_rate = out_rate((double)sent, sent_secs);
    g.recv_rate = out_rate((double)recv, recv_secs);
    g.lat_send_rate = out_rate((double)lat_sent, sent_secs);
    g.lat_recv_rate = out_rate((double)lat_recv, recv_secs);
    return g;
}

void out_genmsg_counts(out_report *r, const out_genmsg *g, bool rate_on, bool lat_rate_on)
{
    if (rate_on)
        out_printf(r, "  GenMsgs sent: %" PRIu64 "\n", g->sent);
    if (g->recv)
        out_printf(r, "  GenMsgs received: %" PRIu64 "\n", g->recv);
    if (lat_rate_on)
        out_printf(r, "  GenMsg latencies sent: %" PRIu64 "\n", g->lat_sent);
    if (g->lat_recv)
        out_printf(r, "  GenMsg latencies received: %" PRIu64 "\n", g->lat_recv);
}

void out_genmsg_rates(out_report *r, const out_genmsg *g, bool rate_on, bool lat_rate_on)
{
    if (rate_on)
        out_printf(r, "  Avg GenMsg send rate: %.0f\n", g->send_rate);
    if (g->recv)
        out_printf(r, "  Avg GenMsg receive rate: %.0f\n", g->recv_rate);
    if (lat_rate_on)
        out_printf(r, "  Avg GenMsg latency send rate: %.0f\n", g->lat_send_rate);
    if (g->lat_recv)
        out_printf(r, "  Avg GenMsg latency receive rate: %.0f\n", g->lat_recv_rate);
}

/* ------------------------------------------------------------------------------------------ */
/* Console                                                                                    */

void out_console_stat(FILE *f, const char *label, const stat_lat *l, bool thousandths,
                      const char *unit)
{
    if (!f)
        return;
    if (thousandths)
        fprintf(f, "%s: Avg:%8.3f StdDev:%8.3f Max:%8.3f Min:%8.3f, %s: %" PRIu64 "\n", label,
                l->avg, l->stddev, l->max, l->min, unit, l->count);
    else
        fprintf(f, "%s: Avg:%6.1f StdDev:%6.1f Max:%6.0f Min:%6.0f, %s: %" PRIu64 "\n", label,
                l->avg, l->stddev, l->max, l->min, unit, l->count);
}

void out_console_lat_extra(FILE *f, const char *label, const stat_lat *l, const stat_lat *sched,
                           bool thousandths)
{
    if (!f)
        return;
    if (l && l->count) {
        if (thousandths)
            fprintf(f, "%s p50:%8.3f p90:%8.3f p99:%8.3f p99.9:%8.3f p99.99:%8.3f", label, l->p50,
                    l->p90, l->p99, l->p999, l->p9999);
        else
            fprintf(f, "%s p50:%6.0f p90:%6.0f p99:%6.0f p99.9:%6.0f p99.99:%6.0f", label, l->p50,
                    l->p90, l->p99, l->p999, l->p9999);
        char thin[64] = "";
        size_t k = 0;
        for (size_t i = 0; i < OUT_PCTS; i++)
            if (out_pct_samples(l) < out_pct_needs(pcts[i].p)) {
                snprintf(thin + strlen(thin), sizeof(thin) - strlen(thin), "%s%s", k ? ", " : "",
                         pcts[i].label);
                k++;
            }
        uint64_t n = out_pct_samples(l);
        if (k && n)
            fprintf(f, " (only %" PRIu64 " sample%s: %s %s the maximum)\n", n, n == 1 ? "" : "s",
                    thin, k == 1 ? "is" : "are");
        else if (k)
            fprintf(f, " (no samples at or above zero)\n");
        else
            fputc('\n', f);
    }
    if (sched && sched->count) {
        const char *bare = label;
        while (*bare == ' ')
            bare++;
        char sl[128];
        snprintf(sl, sizeof(sl), "%.*sSched %s", (int)(bare - label), label, bare);
        out_console_stat(f, sl, sched, thousandths, "Msgs");
    }
}

void out_console_lat(FILE *f, const char *label, const stat_lat *l, const stat_lat *sched,
                     bool thousandths)
{
    if (!l->count)
        return;
    out_console_stat(f, label, l, thousandths, "Msgs");
    out_console_lat_extra(f, label, l, sched, thousandths);
}

void out_console_genmsgs(FILE *f, uint64_t sent, uint64_t recv, uint64_t lat_sent,
                         uint64_t out_of_bufs, const stat_lat *lat, const stat_lat *sched)
{
    if (sent || recv)
        fprintf(f,
                "  GenMsgs: sent %" PRIu64 ", received %" PRIu64 ", latencies sent %" PRIu64
                ", latencies received %" PRIu64 "\n",
                sent, recv, lat_sent, lat->count);
    if (out_of_bufs)
        fprintf(f, "  - %" PRIu64 " gen msgs not sent due to lack of output buffers.\n",
                out_of_bufs);
    out_console_lat(f, "  GenMsgLat(usec)", lat, sched, false);
}

/* ------------------------------------------------------------------------------------------ */
/* CSV                                                                                        */

int out_csv_open(out_csv *c, const char *path, const char *header)
{
    snprintf(c->path, sizeof(c->path), "%s", path);
    c->with_type = false;
    c->f = fopen(path, "w");
    if (!c->f)
        return err_set_errno(errno, "cannot create '%s'", path);
    if (header) {
        fputs(header, c->f);
        fputc('\n', c->f);
    }
    if (fflush(c->f) != 0 || ferror(c->f)) {
        int e = errno;
        fclose(c->f);
        c->f = NULL;
        return err_set_errno(e, "cannot write '%s'", path);
    }
    return 0;
}

int out_csv_row(out_csv *c, const char *fmt, ...)
{
    if (!c->f)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->f, fmt, ap);
    va_end(ap);
    fputc('\n', c->f);
    if (fflush(c->f) != 0 || ferror(c->f))
        return err_set_errno(errno, "writing a row to '%s' failed", c->path);
    return 0;
}

int out_csv_close(out_csv *c)
{
    if (!c->f)
        return 0;
    int bad = ferror(c->f);
    if (fclose(c->f) != 0)
        bad = 1;
    c->f = NULL;
    return bad ? err_set("writing '%s' failed", c->path) : 0;
}

void out_utc(char *buf, size_t size, time_t t)
{
    char utc[CLK_UTC_LEN];
    snprintf(buf, size, "%s", clk_utc_format(t, utc));
}

/* Appends formatted text to the NUL-terminated buf; on overflow restores buf and returns -1. */
static int append(char *buf, size_t size, const char *fmt, ...) OUT_PRINTF(3, 4);
static int append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= size - used) {
        buf[used] = '\0';
        return -1;
    }
    return 0;
}

int out_csv_lat_header(char *buf, size_t size, const char *name)
{
    size_t used = strlen(buf);
    if (append(buf, size,
               ", %s p50 (usec), %s p90 (usec), %s p99 (usec), %s p99.9 (usec), %s p99.99 (usec)"
               ", Sched %s avg (usec), Sched %s p99 (usec), Sched %s max (usec)",
               name, name, name, name, name, name, name, name) != 0) {
        buf[used] = '\0';
        return -1;
    }
    return 0;
}

int out_csv_header(char *buf, size_t size, const char *columns, const char *const *lat_kinds)
{
    int w = snprintf(buf, size, "%s", columns);
    if (w < 0 || (size_t)w >= size)
        return -1;
    for (; lat_kinds && *lat_kinds; lat_kinds++)
        if (out_csv_lat_header(buf, size, *lat_kinds) != 0)
            return -1;
    return 0;
}

/* Appends ", <value>" to buf, or ", " alone when the percentile p of l rests on too few
 * samples (out_pct_note); an empty l gives 0. */
static int append_pct(char *buf, size_t size, const stat_lat *l, double p, double v, int decimals)
{
    if (l->count && out_pct_samples(l) < out_pct_needs(p))
        return append(buf, size, ", ");
    return append(buf, size, ", %.*f", decimals, v);
}

int out_csv_lat_values(char *buf, size_t size, const stat_lat *l, const stat_lat *sched,
                       int decimals)
{
    static const stat_lat none;
    const stat_lat *a = l && l->count ? l : &none;
    const stat_lat *s = sched && sched->count ? sched : &none;
    size_t used = strlen(buf);
    int rc = 0;
    for (size_t i = 0; i < OUT_PCTS && rc == 0; i++)
        rc = append_pct(buf, size, a, pcts[i].p, pct_value(a, &pcts[i]), decimals);
    if (rc == 0)
        rc = append(buf, size, ", %.*f", decimals, s->avg);
    if (rc == 0)
        rc = append_pct(buf, size, s, 99, s->p99, decimals);
    if (rc == 0)
        rc = append(buf, size, ", %.*f", decimals, s->max);
    if (rc != 0)
        buf[used] = '\0';
    return rc;
}

int out_latlog_open(out_csv *c, const char *path, bool with_type)
{
    int rc = out_csv_open(c, path,
                          with_type ? "Message type, Send time, Receive time, Latency (usec)"
                                    : "Send Time, Receive Time, Latency(nsec)");
    c->with_type = with_type;
    return rc;
}

int out_latlog_row(out_csv *c, const char *type, uint64_t send, uint64_t recv)
{
    if (!c->f)
        return 0;
    int64_t lat = (int64_t)(recv - send);
    if (type)
        fprintf(c->f, "%s, %" PRIu64 ", %" PRIu64 ", %" PRId64 "\n", type, send, recv, lat);
    else
        fprintf(c->f, "%" PRIu64 ", %" PRIu64 ", %" PRId64 "\n", send, recv, lat);
    return ferror(c->f) ? err_set("writing a row to the latency log '%s' failed", c->path) : 0;
}

int out_latlog_flush(out_csv *c)
{
    if (!c->f)
        return 0;
    if (fflush(c->f) != 0 || ferror(c->f))
        return err_set_errno(errno, "writing the latency log '%s' failed", c->path);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

static void cpu_model(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, size, "%s", colon);
        break;
    }
    fclose(f);
}

void out_host_get(out_host *h)
{
    memset(h, 0, sizeof(*h));
    if (gethostname(h->name, sizeof(h->name) - 1) != 0)
        h->name[0] = '\0';
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof(h->kernel), "%s %s %s %s", u.sysname, u.release, u.version,
                 u.machine);
    cpu_model(h->cpu_model, sizeof(h->cpu_model));
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = n > 0 ? (int)n : 0;
}

int out_json_path(char *buf, size_t size, const char *summary_file)
{
    size_t len = strlen(summary_file);
    if (len >= 4 && strcmp(summary_file + len - 4, ".out") == 0)
        len -= 4;
    int w = snprintf(buf, size, "%.*s.json", (int)len, summary_file);
    if (w < 0 || (size_t)w >= size)
        return err_set("JSON summary file name too long for '%s'", summary_file);
    return 0;
}

json_object *out_json_double(double v)
{
    char text[64];
    if (!isfinite(v))
        v = 0.0;
    snprintf(text, sizeof(text), "%.15g", v);
    return json_object_new_double_s(v, text);
}

void out_json_add(json_object *obj, const char *key, json_object *value)
{
    if (obj && value)
        json_object_object_add(obj, key, value);
}

void out_json_add_counts(json_object *obj, const out_json_count *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out_json_add(obj, m[i].key, json_object_new_uint64(m[i].value));
}

void out_json_add_figures(json_object *obj, const out_json_figure *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out_json_add(obj, m[i].key, out_json_double(m[i].value));
}

void out_json_add_lat(json_object *obj, const char *key, const stat_lat *l)
{
    if (l->count)
        out_json_add(obj, key, out_json_lat(l));
}

void out_json_add_rates(json_object *obj, const char *what, int offered, double achieved)
{
    char key[64];
    snprintf(key, sizeof(key), "offered_%s_rate", what);
    out_json_add(obj, key, json_object_new_int(offered));
    snprintf(key, sizeof(key), "achieved_%s_rate", what);
    out_json_add(obj, key, out_json_double(achieved));
}

json_object *out_json_summary(const char *tool, const out_host *host, int pid, time_t now,
                              json_object *inputs, int thread_count, out_json_stats_fn stats,
                              const void *ctx, const stat_res *res, json_object **results)
{
    json_object *doc = out_json_doc(tool, host, pid, now);
    if (!doc) {
        json_object_put(inputs);
        return NULL;
    }
    out_json_add(doc, "inputs", inputs);
    json_object *o = json_object_new_object();
    out_json_add(o, "overall", stats(ctx, -1));
    json_object *threads = json_object_new_array();
    for (int i = 0; threads && i < thread_count; i++)
        json_object_array_add(threads, stats(ctx, i));
    out_json_add(o, "threads", threads);
    out_json_add(o, "resources", out_json_res(res));
    out_json_add(doc, "results", o);
    if (results)
        *results = o;
    return doc;
}

json_object *out_json_doc(const char *tool, const out_host *host, int pid, time_t now)
{
    out_host local;
    if (!host) {
        out_host_get(&local);
        host = &local;
    }
    json_object *doc = json_object_new_object();
    if (!doc)
        return NULL;
    char utc[32];
    out_utc(utc, sizeof(utc), now);
    out_json_add(doc, "tool", json_object_new_string(tool));
    out_json_add(doc, "version", json_object_new_string(RWFPERF_VERSION));
    out_json_add(doc, "git_revision", json_object_new_string(rwfperf_git_rev()));
    json_object *h = json_object_new_object();
    out_json_add(h, "name", json_object_new_string(host->name));
    out_json_add(h, "kernel", json_object_new_string(host->kernel));
    out_json_add(h, "cpu_model", json_object_new_string(host->cpu_model));
    out_json_add(h, "cores", json_object_new_int(host->cores));
    out_json_add(doc, "host", h);
    out_json_add(doc, "pid", json_object_new_int(pid));
    out_json_add(doc, "written_utc", json_object_new_string(utc));
    json_object *c = json_object_new_object();
    out_json_add(c, "source", json_object_new_string(clk_source_name(clk_current())));
    out_json_add(c, "clock_id", json_object_new_string(clk_source_id_name(clk_current())));
    if (clk_skew_ns())
        out_json_add(c, "test_skew_ns", json_object_new_int64(clk_skew_ns()));
    out_json_add(doc, "clock", c);
    return doc;
}

json_object *out_json_lat(const stat_lat *l)
{
    json_object *o = json_object_new_object();
    out_json_add(o, "count", json_object_new_uint64(l->count));
    const out_json_figure figures[] = {
        {"avg", l->avg}, {"stddev", l->stddev}, {"min", l->min}, {"max", l->max}};
    out_json_add_figures(o, figures, OUT_LEN(figures));
    for (size_t i = 0; i < OUT_PCTS; i++) {
        out_json_add(o, pcts[i].key, out_json_double(pct_value(l, &pcts[i])));
        char note[96], key[32];
        if (out_pct_note(note, sizeof(note), l, pcts[i].p)) {
            snprintf(key, sizeof(key), "%s_note", pcts[i].key);
            out_json_add(o, key, json_object_new_string(note));
        }
    }
    if (l->negative) /* clocks that disagree: rwfperf-merge counts them */
        out_json_add(o, "negative", json_object_new_uint64(l->negative));
    return o;
}

json_object *out_json_res(const stat_res *r)
{
    json_object *o = json_object_new_object();
    out_json_add(o, "samples", json_object_new_uint64(r->samples));
    const out_json_figure figures[] = {{"cpu_max", r->cpu_max},    {"cpu_min", r->cpu_min},
                                       {"cpu_avg", r->cpu_avg},    {"mem_max_mb", r->mem_max},
                                       {"mem_min_mb", r->mem_min}, {"mem_avg_mb", r->mem_avg}};
    out_json_add_figures(o, figures, OUT_LEN(figures));
    return o;
}

int out_json_write(const char *path, json_object *doc)
{
    const char *text =
        json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
    if (!text)
        return err_set("cannot format the JSON summary");
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set_errno(errno, "cannot create '%s'", path);
    fputs(text, f);
    fputc('\n', f);
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    return bad ? err_set("writing '%s' failed", path) : 0;
}
