/* rwfperf-report's library: the statistics and bench.csv readers, latency over time against
 * the union of the samples, bad input named with file and line (cut-off files, files of two
 * runs mixed, a folder with no results), verdicts, and the figures the page carries. */
#include "testsupport.h"

#include "hdr_log.h"
#include "lat.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1700000000.0 /* 2023-11-14 22:13:20 UTC */

static char dir[] = "/tmp/test_report.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

/* "<dir>/<name>" (a few at a time). */
static const char *path_of(const char *name)
{
    static char p[4][512];
    static int n;
    char *s = p[n++ % 4];
    snprintf(s, 512, "%s/%s", dir, name);
    return s;
}

/* A fresh folder <dir>/<name>. */
static const char *folder(const char *name)
{
    const char *p = path_of(name);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", p, p);
    assert_int_equal(system(cmd), 0);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static uint64_t rnd_state = 11;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static lat *new_lat(void)
{
    lat *l = malloc(sizeof(lat));
    assert_non_null(l);
    lat_reset(l);
    return l;
}

/* A ConsPerf log of `intervals` 1-second intervals from start (seconds since the epoch), tags
 * update and sched-update, samples around base ns; interval k's update samples also go to
 * slots[k]. */
static void write_log(const char *path, int pid, double start, int intervals, int64_t base,
                      lat **slots)
{
    hdr_layout l;
    hdr_layout_lat(&l);
    hdr_log_writer w;
    hdr_log_id id = {"ConsPerf", "1.0.0", "0123456789ab", "h1", pid, 1, "monotonic"};
    assert_int_equal(hdr_log_open(&w, path, &id, start), 0);
    lat *iv = new_lat(), *sv = new_lat();
    for (int k = 0; k < intervals; k++) {
        lat_reset(iv);
        lat_reset(sv);
        int n = k == 2 ? 40 : 300 + (int)(rnd() % 300); /* interval 2: too few for a p99 */
        for (int i = 0; i < n; i++) {
            int64_t v = base + (int64_t)(rnd() % 30000);
            if (rnd() % 100 == 0)
                v *= 10;
            lat_record(iv, v);
            lat_record(sv, v + 3000);
            if (slots)
                lat_record(slots[k], v);
        }
        double t = start + k;
        assert_int_equal(hdr_log_write(&w, "update", t, 1.0, iv->max, &l, iv->hist), 0);
        assert_int_equal(hdr_log_write(&w, "sched-update", t, 1.0, sv->max, &l, sv->hist), 0);
    }
    assert_int_equal(hdr_log_close(&w), 0);
    free(iv);
    free(sv);
}

/* A ConsPerf JSON summary written at `written` ("YYYY-MM-DD HH:MM:SS"), with the figures the
 * page shows; `results_extra` is put first in results ("" for none). */
static void write_json(const char *path, int pid, const char *written, const char *results_extra)
{
    char text[4096];
    snprintf(text, sizeof(text),
             "{\n  \"tool\": \"ConsPerf\",\n  \"version\": \"1.0.0\",\n"
             "  \"git_revision\": \"0123456789ab\",\n"
             "  \"host\": {\"name\": \"h1\", \"kernel\": \"Linux 6\", \"cpu_model\": \"cpu\", "
             "\"cores\": 2},\n  \"pid\": %d,\n  \"written_utc\": \"%s\",\n"
             "  \"inputs\": {\"statsFile\": \"ConsStats\", \"writeStatsInterval\": 1, "
             "\"itemCount\": 100},\n"
             "  \"results\": {%s\"overall\": {\"item_count\": 100, \"refreshes_received\": 100, "
             "\"steady_update_rate\": 1234.5678, \"updates_received\": 6000,\n"
             "    \"latency\": {\"count\": 80, \"avg\": 40.5, \"stddev\": 3, \"min\": 20, "
             "\"max\": 300, \"p50\": 41.25, \"p90\": 60.5, \"p99\": 300, \"p99_note\": "
             "\"only 80 samples: this is the maximum\", \"p99_9\": 300, \"p99_99\": 300}},\n"
             "  \"resources\": {\"cpu_avg\": 3.5, \"mem_max_mb\": 10}}\n}\n",
             pid, written, results_extra);
    write_text(path, text);
}

/* Statistics rows from 22:13:21 (the first second after T0) for n seconds. */
static void write_stats(const char *path, int n, const char *tail)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "UTC, Latency updates, Images, Update rate (msg/sec), CPU usage (%%), Memory "
               "(MB), Latency p99 (usec)\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "2023-11-14 22:13:%02d, 10, %d, 1000, 2.5, 10.0, %s\n", 21 + i, i ? 0 : 100,
                i == 1 ? "" : "55.5");
    fputs(tail, f);
    assert_int_equal(fclose(f), 0);
}

/* True when r recorded a bad input whose file ends with file, at line, saying what. */
static bool has_bad(const rpt *r, const char *file, int line, const char *what)
{
    for (int i = 0; i < r->nbad; i++) {
        size_t a = strlen(r->bad[i].file), b = strlen(file);
        if (a >= b && strcmp(r->bad[i].file + a - b, file) == 0 && r->bad[i].line == line &&
            strstr(r->bad[i].what, what))
            return true;
    }
    for (int i = 0; i < r->nbad; i++)
        printf("  bad: %s:%d: %s\n", r->bad[i].file, r->bad[i].line, r->bad[i].what);
    return false;
}

/* Reads one folder as rwfperf-report does up to the verdict. Returns the first failing step's
 * status (0 when all passed). */
static int read_folder(rpt *r, const char **f)
{
    int rc = rpt_scan(r, f, 1);
    if (rc == 0)
        rc = rpt_check(r);
    if (rc == 0)
        rc = rpt_combine(r);
    if (rc == 0 && r->nbad == 0)
        rpt_verdict(r);
    return rc ? rc : r->nbad ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */

static void test_stats_csv(void **state)
{
    (void)state;
    rpt r = {0};
    rpt_csv c;
    write_stats(path_of("ConsStats1.csv"), 3, "");
    assert_int_equal(rpt_csv_read(&r, path_of("ConsStats1.csv"), &c), 0);
    assert_int_equal(c.tool, RPT_CONS);
    assert_int_equal(c.thread, 1);
    assert_int_equal(c.nrows, 3);
    assert_int_equal(c.ncols, 7);
    assert_true(c.t[0] == T0 + 1);
    int p99 = rpt_csv_col(&c, "latency P99 (usec)");
    assert_int_equal(p99, 6);
    assert_true(isnan(c.v[1 * 7 + p99])); /* a blank cell: the tool left the figure out */
    assert_true(c.v[2 * 7 + p99] == 55.5);
    rpt_csv_free(&c);

    /* TransportPerf's names carry the pid. */
    write_text(path_of("TransportStats2_4242.csv"),
               "UTC, Msgs sent, Bytes sent\n2023-11-14 22:13:21, 5, 50\n");
    assert_int_equal(rpt_csv_read(&r, path_of("TransportStats2_4242.csv"), &c), 0);
    assert_int_equal(c.tool, RPT_TRANSPORT);
    assert_int_equal(c.thread, 2);
    assert_int_equal(c.pid, 4242);
    rpt_csv_free(&c);

    /* Another CSV is not a statistics file: nothing recorded. */
    write_text(path_of("lat.csv"), "Message type, Send time, Receive time, Latency (usec)\n");
    assert_int_equal(rpt_csv_read(&r, path_of("lat.csv"), &c), 1);
    rpt_csv_free(&c);
    assert_int_equal(r.nbad, 0);

    /* Bad files, each named with its line. */
    write_stats(path_of("cut.csv"), 2, "2023-11-14 22:13:23, 10, 0, 10");
    assert_int_equal(rpt_csv_read(&r, path_of("cut.csv"), &c), -1);
    rpt_csv_free(&c);
    assert_true(has_bad(&r, "cut.csv", 4, "no line end (the file was cut off?)"));
    write_stats(path_of("short.csv"), 1, "2023-11-14 22:13:23, 10, 0\n");
    assert_int_equal(rpt_csv_read(&r, path_of("short.csv"), &c), -1);
    rpt_csv_free(&c);
    assert_true(has_bad(&r, "short.csv", 3, "3 values, but the header has 7 columns"));
    write_stats(path_of("num.csv"), 1, "2023-11-14 22:13:23, 10, x, 1, 1, 1, 1\n");
    assert_int_equal(rpt_csv_read(&r, path_of("num.csv"), &c), -1);
    rpt_csv_free(&c);
    assert_true(has_bad(&r, "num.csv", 3, "column \"Images\": \"x\" is not a number"));
    write_stats(path_of("time.csv"), 1, "yesterday, 10, 1, 1, 1, 1, 1\n");
    assert_int_equal(rpt_csv_read(&r, path_of("time.csv"), &c), -1);
    rpt_csv_free(&c);
    assert_true(has_bad(&r, "time.csv", 3, "\"yesterday\" is not a UTC time"));
    rpt_free(&r);
}

static void test_bench_csv(void **state)
{
    (void)state;
    const char *hdr = "mode, pair, pack, offered, received, p50_us, p99_us, p99_9_us, "
                      "sched_p99_us, cons_cpu_pct, cons_mem_mb, cons_ns_per_update, "
                      "prov_cpu_pct, prov_mem_mb, prov_ns_per_update, held, load1, run\n";
    char text[2048];
    snprintf(text, sizeof(text),
             "%sbare, ours, no, 100000, 100001, 20.1, 50.2, 90.3, 60.4, 20.00, 12.00, 2000, "
             "30.00, 11.00, 3000, yes, 1.50, runs/001\n"
             "bare, orig, no, 100000, no-images, -, -, -, -, -, -, -, -, -, -, no, 1.60, "
             "runs/002\n",
             hdr);
    write_text(path_of("bench.csv"), text);
    rpt r = {0};
    rpt_sweep s;
    assert_int_equal(rpt_sweep_read(&r, path_of("bench.csv"), &s), 0);
    assert_int_equal(s.nrows, 2);
    assert_string_equal(s.rows[0].pair, "ours");
    assert_true(s.rows[0].received == 100001 && s.rows[0].cons_ns == 2000 && s.rows[0].held);
    assert_true(isnan(s.rows[1].received) && isnan(s.rows[1].p99) && !s.rows[1].held);
    assert_string_equal(s.rows[1].received_text, "no-images");
    assert_string_equal(s.rows[1].run, "runs/002");
    free(s.rows);

    snprintf(text, sizeof(text),
             "%sbare, ours, no, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, maybe, 1, "
             "runs/001\n",
             hdr);
    write_text(path_of("bench.csv"), text);
    assert_int_equal(rpt_sweep_read(&r, path_of("bench.csv"), &s), -1);
    free(s.rows);
    assert_true(has_bad(&r, "bench.csv", 2, "\"held\": \"maybe\" is neither yes nor no"));
    rpt_free(&r);
}

/* Latency over time: two processes whose intervals end 0.3 s apart share each slot, and a
 * slot's p50, p99 and max are those of the union of its samples (as the recorder reads
 * them). */
static void test_slots(void **state)
{
    (void)state;
    const char *f = folder("slots");
    lat *slots[5];
    for (int k = 0; k < 5; k++)
        slots[k] = new_lat();
    char p1[600], p2[600];
    snprintf(p1, sizeof(p1), "%s/a.hlog", f);
    snprintf(p2, sizeof(p2), "%s/b.hlog", f);
    write_log(p1, 100, T0, 5, 20000, slots);
    write_log(p2, 200, T0 + 0.3, 5, 40000, slots);
    rpt r = {0};
    assert_int_equal(read_folder(&r, &f), 0);
    rpt_slot *sl;
    int n;
    assert_int_equal(rpt_slots(&r, RPT_CONS, "update", &sl, &n), 0);
    assert_int_equal(n, 5);
    for (int k = 0; k < 5; k++) {
        assert_true(fabs(sl[k].t - (T0 + k + 1)) < 1e-9);
        assert_int_equal(sl[k].samples, slots[k]->count);
        assert_true(sl[k].p50 == lat_percentile(slots[k], 50) / 1000.0);
        assert_true(sl[k].p99 == lat_percentile(slots[k], 99) / 1000.0);
        assert_true(sl[k].max == (double)slots[k]->max / 1000.0);
        free(slots[k]);
    }
    free(sl);
    const char *tags[8];
    assert_int_equal(rpt_log_kinds(&r, RPT_CONS, tags, 8), 2);
    assert_string_equal(tags[0], "update");
    assert_string_equal(tags[1], "sched-update");
    rpt_free(&r);
}

/* A folder of one run: the page's figures are those of the JSON summary. */
static void test_page_figures(void **state)
{
    (void)state;
    const char *f = folder("run");
    char p[600];
    snprintf(p, sizeof(p), "%s/hist1.hlog", f);
    write_log(p, 4000, T0, 5, 20000, NULL);
    snprintf(p, sizeof(p), "%s/ConsSummary.json", f);
    write_json(p, 4000, "2023-11-14 22:13:25", "");
    snprintf(p, sizeof(p), "%s/ConsStats1.csv", f);
    write_stats(p, 5, "");
    rpt r = {0};
    assert_int_equal(read_folder(&r, &f), 0);
    assert_int_equal(r.nprocs, 1);
    assert_int_equal(r.procs[0].nlog, 1);
    assert_int_equal(r.procs[0].ncsv, 1);
    assert_int_equal(r.status, RPT_PASSED);
    /* The rows are placed at the log's interval ends (whole seconds here). */
    assert_true(r.csvs[0].t[0] == T0 + 1);
    char *html = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&html, &len);
    rpt_charts ch = {0};
    assert_int_equal(rpt_html_write(&r, &ch, out), 0);
    fclose(out);
    assert_non_null(strstr(html, "data-verdict=\"passed\""));
    assert_non_null(strstr(html, "data-figure=\"p50\" data-kind=\"update\" data-tool=\"ConsPerf\" "
                                 "data-value=\"41.25\""));
    assert_non_null(strstr(html, "data-figure=\"p99\" data-kind=\"update\" data-tool=\"ConsPerf\" "
                                 "data-value=\"300\" class=\"thin\""));
    assert_non_null(strstr(html, "data-figure=\"steady_update_rate\" data-tool=\"ConsPerf\" "
                                 "data-value=\"1234.5678\">1,235<"));
    assert_non_null(strstr(html, "data-figure=\"refreshes_received\" data-tool=\"ConsPerf\" "
                                 "data-value=\"100\">100<"));
    /* No script, nothing fetched. */
    assert_null(strstr(html, "<script"));
    assert_non_null(strstr(html, "Content-Security-Policy"));
    free(html);
    rpt_free(&r);
}

/* Verdicts: failed with the summary's reason; interrupted when the summary says so. */
static void test_verdicts(void **state)
{
    (void)state;
    const char *f = folder("failed");
    char p[600];
    snprintf(p, sizeof(p), "%s/ConsSummary.json", f);
    write_json(p, 5000, "2023-11-14 22:13:25",
               "\"passed\": false, \"threads\": [{\"error\": \"Channel closed by peer\"}], ");
    rpt r = {0};
    assert_int_equal(read_folder(&r, &f), 0);
    assert_int_equal(r.status, RPT_FAILED);
    assert_non_null(strstr(r.reason, "ConsPerf 5000: Channel closed by peer"));
    rpt_free(&r);

    f = folder("interrupted");
    snprintf(p, sizeof(p), "%s/ConsSummary.json", f);
    write_json(p, 5001, "2023-11-14 22:13:25", "\"passed\": false, \"interrupted\": true, ");
    memset(&r, 0, sizeof(r));
    assert_int_equal(read_folder(&r, &f), 0);
    assert_int_equal(r.status, RPT_INTERRUPTED);
    rpt_free(&r);
}

/* Bad input: a folder with no results; files of two runs in one folder (a log of another
 * process, statistics far from their summary's time); two folders of different times. */
static void test_bad_input(void **state)
{
    (void)state;
    const char *f = folder("empty");
    write_text(path_of("empty/notes.txt"), "nothing\n");
    rpt r = {0};
    assert_int_equal(read_folder(&r, &f), -1);
    assert_true(has_bad(&r, "/empty", 0, "no results here"));
    rpt_free(&r);

    f = folder("mixed");
    char p[600];
    snprintf(p, sizeof(p), "%s/ConsSummary.json", f);
    write_json(p, 6000, "2023-11-14 22:13:25", "");
    snprintf(p, sizeof(p), "%s/hist1.hlog", f);
    write_log(p, 6001, T0, 5, 20000, NULL);
    snprintf(p, sizeof(p), "%s/ConsStats1.csv", f);
    write_text(p, "UTC, Latency updates, Images\n2023-11-14 21:00:00, 1, 1\n");
    memset(&r, 0, sizeof(r));
    assert_int_equal(read_folder(&r, &f), -1);
    assert_true(has_bad(&r, "mixed/hist1.hlog", 2,
                        "is pid 6000 on h1: files of two different "
                        "runs"));
    assert_true(has_bad(&r, "mixed/ConsStats1.csv", 2, "files of two different runs"));
    rpt_free(&r);

    /* A cut-off log and a cut-off JSON summary. */
    f = folder("cut");
    snprintf(p, sizeof(p), "%s/hist1.hlog", f);
    write_log(p, 7000, T0, 3, 20000, NULL);
    assert_int_equal(truncate(p, 700), 0);
    snprintf(p, sizeof(p), "%s/ConsSummary.json", f);
    write_text(p, "{\"tool\": \"ConsPerf\", \"results\": {\"overall\": {\n");
    memset(&r, 0, sizeof(r));
    assert_int_equal(read_folder(&r, &f), -1);
    bool log_named = false, json_named = false;
    for (int i = 0; i < r.nbad; i++) {
        log_named |= strstr(r.bad[i].file, "hist1.hlog") && r.bad[i].line > 0;
        json_named |= strstr(r.bad[i].file, "ConsSummary.json") && r.bad[i].line == 2 &&
                      strstr(r.bad[i].what, "cut off?");
    }
    assert_true(log_named && json_named);
    rpt_free(&r);

    /* Two runs an hour apart given as one. */
    const char *a = folder("hour/a"), *b = folder("hour/b");
    snprintf(p, sizeof(p), "%s/ConsSummary.json", a);
    write_json(p, 8000, "2023-11-14 22:13:25", "");
    snprintf(p, sizeof(p), "%s/ConsSummary.json", b);
    write_json(p, 8001, "2023-11-14 23:13:25", "");
    const char *both[] = {a, b};
    memset(&r, 0, sizeof(r));
    assert_int_equal(rpt_scan(&r, both, 2), 0);
    assert_int_equal(rpt_check(&r), -1);
    assert_true(has_bad(&r, "hour/b/ConsSummary.json", 7, "does not meet the other files' run"));
    rpt_free(&r);
}

/* Series with the same values are named so in the legend. */
static void test_same_values(void **state)
{
    (void)state;
    rpt_plot p = {0};
    rpt_series *a = rpt_plot_line(&p, "received"), *b = rpt_plot_line(&p, "sent"),
               *c = rpt_plot_line(&p, "other");
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rpt_series_add(a, i, i == 2 ? NAN : 1000 + i), 0);
        assert_int_equal(rpt_series_add(b, i, i == 2 ? NAN : 1000.5 + i), 0);
        assert_int_equal(rpt_series_add(c, i, 2000), 0);
    }
    assert_int_equal(rpt_series_add(c, 5, 2000), 0);
    rpt_series *d = rpt_plot_line(&p, "other, fewer points");
    assert_int_equal(rpt_series_add(d, 1, 2000), 0);
    rpt_plot_same(&p);
    assert_string_equal(p.lines[1].title, "sent (= received)");
    assert_string_equal(p.lines[2].title, "other");
    assert_string_equal(p.lines[3].title, "other, fewer points"); /* not at every x of "other" */
    assert_true(rpt_plot_any(&p));
    rpt_plot_free(&p);
}

/* A sweep folder of scripts/bench.sh with runs of both builds (the figures of a real sweep,
 * ours and the original): the page's verdict, the highest rate held per pair (marked as the
 * highest offered when nothing higher was tried), and each run's figures in the side-by-side
 * table, equal to bench.csv's; its four charts drawn, the run with no steady state marked. */
static void test_sweep_page(void **state)
{
    (void)state;
    static const struct {
        const char *pair;
        double offered;
        const char *received; /* as bench.csv has it */
        double p99, cons_ns, prov_ns;
    } runs[] = {
        {"ours", 50000, "50109", 4669.4, 1199, 1324},  {"ours", 200000, "200073", 5193.7, 462, 414},
        {"ours", 800000, "795034", 11829.2, 222, 211}, {"orig", 50000, "49982", NAN, 2127, 3478},
        {"orig", 200000, "200284", NAN, 830, 1131},    {"orig", 800000, "no-images", NAN, NAN, 422},
    };
    const int n = (int)(sizeof(runs) / sizeof(runs[0]));
    const char *f = folder("sweep");
    char p[600], *html = NULL;
    snprintf(p, sizeof(p), "%s/bench.csv", f);
    FILE *c = fopen(p, "w");
    assert_non_null(c);
    fputs("mode, pair, pack, offered, received, p50_us, p99_us, p99_9_us, sched_p99_us, "
          "cons_cpu_pct, cons_mem_mb, cons_ns_per_update, prov_cpu_pct, prov_mem_mb, "
          "prov_ns_per_update, held, load1, run\n",
          c);
    for (int i = 0; i < n; i++) {
        char p99[32] = "-", cns[32] = "-";
        if (!isnan(runs[i].p99))
            snprintf(p99, sizeof(p99), "%.1f", runs[i].p99);
        if (!isnan(runs[i].cons_ns))
            snprintf(cns, sizeof(cns), "%.0f", runs[i].cons_ns);
        bool held = strcmp(runs[i].received, "no-images") != 0;
        fprintf(c,
                "bare, %s, no, %.0f, %s, -, %s, -, -, 10.00, 10.00, %s, 10.00, 10.00, %.0f, %s, "
                "18.50, runs/%03d\n",
                runs[i].pair, runs[i].offered, runs[i].received, p99, cns, runs[i].prov_ns,
                held ? "yes" : "no", i + 1);
    }
    assert_int_equal(fclose(c), 0);

    rpt r = {0};
    assert_int_equal(read_folder(&r, &f), 0);
    assert_int_equal(r.nsweeps, 1);
    assert_int_equal(r.sweeps[0].nrows, n);
    /* The original's 800,000 without a steady state is above the 200,000 it held: the limit
     * the sweep looks for, not a failure. */
    assert_int_equal(r.status, RPT_PASSED);
    assert_non_null(strstr(r.reason, "5 of 6 runs reached their steady state; the rest were"));
    assert_non_null(strstr(r.reason, "bare orig no at 800000 upd/s (no-images)"));

    rpt_charts ch = {0};
    bool charts = system("gnuplot --version >/dev/null 2>&1") == 0;
    if (charts)
        assert_int_equal(rpt_charts_make(&r, &ch, folder("sweep-tmp")), 0);
    size_t len = 0;
    FILE *out = open_memstream(&html, &len);
    assert_int_equal(rpt_html_write(&r, &ch, out), 0);
    fclose(out);
    assert_non_null(strstr(html, "data-verdict=\"passed\""));
    assert_non_null(strstr(html, "data-figure=\"held\" data-config=\"bare ours no\" "
                                 "data-value=\"800000\">&ge; 800,000<"));
    assert_non_null(strstr(html, "data-figure=\"held\" data-config=\"bare orig no\" "
                                 "data-value=\"200000\">200,000<"));
    assert_non_null(strstr(html, "At each rate, side by side: bare, unpacked"));
    assert_non_null(strstr(html, "data-figure=\"load\" data-value=\"18.50\">Load average (1 "
                                 "minute) at the end of the runs: 18.50"));
    for (int i = 0; i < n; i++) {
        char want[256];
        const char *names[] = {"received", "cons_ns", "prov_ns", "p99"};
        double v[] = {strtod(runs[i].received, NULL), runs[i].cons_ns, runs[i].prov_ns,
                      runs[i].p99};
        if (strcmp(runs[i].received, "no-images") == 0)
            v[0] = NAN;
        for (int k = 0; k < 4; k++) {
            snprintf(want, sizeof(want),
                     "data-figure=\"%s\" data-config=\"bare %s no\" data-rate=\"%.0f\" "
                     "data-value=\"%.17g\"",
                     names[k], runs[i].pair, runs[i].offered, v[k]);
            if (isnan(v[k])) {
                want[strlen(want) - strlen("nan\"")] = '\0'; /* no figure where none */
                assert_null(strstr(html, want));
            } else {
                if (!strstr(html, want))
                    printf("  not on the page: %s\n", want);
                assert_non_null(strstr(html, want));
            }
        }
    }
    assert_non_null(strstr(html, "title=\"not held (below 99% of the offered rate)\">no-images<"));
    if (charts) {
        const char *ids[] = {"sweep1-received", "sweep1-cons-cpu", "sweep1-prov-cpu", "sweep1-p99"};
        for (int k = 0; k < 4; k++) {
            bool found = false;
            for (int i = 0; i < ch.n; i++)
                found |= strcmp(ch.c[i].id, ids[k]) == 0 && ch.c[i].svg;
            assert_true(found);
        }
        assert_non_null(strstr(html, "<text>no steady state</text>"));
    }
    free(html);
    rpt_charts_free(&ch);
    rpt_free(&r);
}

/* A legend title too long for the legend's width is drawn on more lines, each an entry of its
 * own: the coinciding series' "(= ...)" on a line of its own, a long name broken at spaces. */
static void test_legend_wrap(void **state)
{
    (void)state;
    if (system("gnuplot --version >/dev/null 2>&1") != 0) {
        skip(); /* the page says so without gnuplot (test_report_cli) */
    }
    rpt_plot p = {0};
    p.xmode = "linear";
    snprintf(p.ylabel, sizeof(p.ylabel), "generic messages per second");
    rpt_series *a = rpt_plot_line(&p, "ConsPerf 11286 sent"),
               *b = rpt_plot_line(&p, "ConsPerf 11286 received"),
               *c = rpt_plot_line(&p,
                                  "a name of many words that the legend cannot hold on one line");
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rpt_series_add(a, i, 1000), 0);
        assert_int_equal(rpt_series_add(b, i, 1000), 0);
        assert_int_equal(rpt_series_add(c, i, 500), 0);
    }
    rpt_plot_same(&p);
    assert_string_equal(p.lines[1].title, "ConsPerf 11286 received (= ConsPerf 11286 sent)");
    rpt_plot *plots[] = {&p};
    const char *ids[] = {"w"};
    char *svg = NULL, err[512];
    assert_int_equal(rpt_plot_draw(plots, ids, 1, folder("wrap"), &svg, err, sizeof(err)), 0);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<text>ConsPerf 11286 received</text>"));
    assert_non_null(strstr(svg, "<text>(= ConsPerf 11286 sent)</text>"));
    assert_non_null(strstr(svg, "<text>a name of many words that the</text>"));
    assert_non_null(strstr(svg, "<text>legend cannot hold on one line</text>"));
    free(svg);
    rpt_plot_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_csv),   cmocka_unit_test(test_bench_csv),
        cmocka_unit_test(test_slots),       cmocka_unit_test(test_page_figures),
        cmocka_unit_test(test_verdicts),    cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_same_values), cmocka_unit_test(test_legend_wrap),
        cmocka_unit_test(test_sweep_page),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
