/* rwfperf-merge: the merged histograms of several processes against the union of their samples,
 * summaries pooled exactly, each kind of bad input named with its file and line while the others
 * are merged, and the executable's outputs and exit status. */
#include "testsupport.h"

#include "err.h"
#include "hdr_log.h"
#include "lat.h"
#include "merge.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/test_merge.XXXXXX";

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

static const char *path_of(const char *name)
{
    static char p[4][256];
    static int n;
    char *s = p[n++ % 4];
    snprintf(s, 256, "%s/%s", dir, name);
    return s;
}

static uint64_t rnd_state = 7;
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

/*
 * Writes a log of `intervals` intervals for (pid, thread) with samples around base ns, every
 * sample also recorded into all (the union). Negative samples go to an "update-negative"
 * series, as the tools write them.
 */
static void write_log(const char *name, int pid, int thread, int64_t base, int intervals, lat *all,
                      lat *sched_all)
{
    hdr_layout l;
    hdr_layout_lat(&l);
    hdr_log_writer w;
    hdr_log_id id = {"ConsPerf", "1.0.0", "0123456789ab", "apphost", pid, thread, NULL};
    assert_int_equal(hdr_log_open(&w, path_of(name), &id, 1700000000.0), 0);
    lat *iv = new_lat(), *sv = new_lat();
    lat *neg = new_lat();
    for (int k = 0; k < intervals; k++) {
        lat_reset(iv);
        lat_reset(sv);
        lat_reset(neg);
        int n = 2000 + (int)(rnd() % 2000);
        for (int i = 0; i < n; i++) {
            int64_t v = base + (int64_t)(rnd() % 40000);
            if (rnd() % 200 == 0)
                v *= 20;
            if (pid == 3 && rnd() % 500 == 0)
                v = -v;
            lat_record(iv, v);
            lat_record(all, v);
            lat_record(sv, v + 5000);
            lat_record(sched_all, v + 5000);
            if (v < 0)
                lat_record(neg, -v);
        }
        double t = 1700000000.0 + 5.0 * k;
        assert_int_equal(hdr_log_write(&w, "update", t, 5.0, iv->max, &l, iv->hist), 0);
        assert_int_equal(hdr_log_write(&w, "sched-update", t, 5.0, sv->max, &l, sv->hist), 0);
        if (neg->count)
            assert_int_equal(hdr_log_write(&w, "update-negative", t, 5.0, neg->max, &l, neg->hist),
                             0);
    }
    assert_int_equal(hdr_log_close(&w), 0);
    free(iv);
    free(sv);
    free(neg);
}

/* Reading the logs of three processes (one with two threads) gives the union's histogram. */
static void test_union_exact(void **state)
{
    (void)state;
    lat *all = new_lat(), *sched_all = new_lat();
    write_log("p1.hlog", 1, 1, 20000, 12, all, sched_all);
    write_log("p2_t1.hlog", 2, 1, 50000, 7, all, sched_all);
    write_log("p2_t2.hlog", 2, 2, 52000, 7, all, sched_all);
    write_log("p3.hlog", 3, 1, 90000, 3, all, sched_all);
    merge m = {0};
    const char *files[] = {"p1.hlog", "p2_t1.hlog", "p2_t2.hlog", "p3.hlog"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(merge_read_file(&m, path_of(files[i])), 0);
    assert_int_equal(m.nbad, 0);
    assert_int_equal(m.nprocs, 3);
    assert_int_equal(m.procs[1].logs, 2);
    assert_int_equal(merge_combine(&m), 0);
    merge_kind *u = merge_kind_get(&m.combined, "update");
    merge_kind *s = merge_kind_get(&m.combined, "sched-update");
    assert_int_equal(u->hist.total + u->negative, all->count);
    assert_int_equal(u->negative, all->negative);
    assert_true(all->negative > 0);
    assert_int_equal(u->max_ns, all->max);
    assert_int_equal(s->hist.total, sched_all->count - sched_all->negative);
    const double ps[] = {50, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        assert_true(merge_kind_pct(u, ps[i]) == lat_percentile(all, ps[i]));
        assert_true(merge_kind_pct(s, ps[i]) == lat_percentile(sched_all, ps[i]));
    }
    assert_int_equal(u->hist_procs, 3);
    /* One warning: process 3's samples below zero. */
    assert_int_equal(m.nwarn, 1);
    assert_non_null(strstr(m.warnings[0], "ConsPerf pid 3 on apphost"));
    assert_non_null(strstr(m.warnings[0], "below zero"));
    merge_free(&m);
    free(all);
    free(sched_all);
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A ConsPerf summary with the given latency figures (us). */
static void write_summary(const char *name, int pid, const char *host, uint64_t count, double avg,
                          double sd, double min, double max, double rate)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"tool\": \"ConsPerf\", \"version\": \"1.0.0\", \"host\": {\"name\": \"%s\"},\n"
             " \"pid\": %d, \"inputs\": {\"itemCount\": 1000},\n"
             " \"results\": {\"overall\": {\"item_count\": 1000, \"refreshes_received\": 1000,\n"
             "   \"updates_received\": 500000, \"image_rate\": 20000.5, \"update_rate\": %.1f,\n"
             "   \"latency\": {\"count\": %llu, \"avg\": %.10g, \"stddev\": %.10g, \"min\": %g,"
             " \"max\": %g, \"p50\": 1, \"p99\": 2}}}}\n",
             host, pid, rate, (unsigned long long)count, avg, sd, min, max);
    write_text(name, text);
}

/* Summaries pool exactly: counts and totals add, means and deviations combine. */
static void test_summaries_pooled(void **state)
{
    (void)state;
    /* Two sets: {10, 20, 30} (mean 20, sd 10) and {40, 60} (mean 50, sd 14.142...). The union
     * {10, 20, 30, 40, 60}: mean 32, sample sd sqrt(1480 / 4) = 19.2353... */
    write_summary("s1.json", 11, "hostA", 3, 20, 10, 10, 30, 100000);
    write_summary("s2.json", 12, "hostB", 2, 50, sqrt(200), 40, 60, 200000);
    merge m = {0};
    assert_int_equal(merge_read_file(&m, path_of("s1.json")), 0);
    assert_int_equal(merge_read_file(&m, path_of("s2.json")), 0);
    assert_int_equal(merge_combine(&m), 0);
    merge_kind *u = merge_kind_get(&m.combined, "update");
    assert_int_equal(u->j_count, 5);
    assert_true(fabs(u->j_mean - 32) < 1e-9);
    assert_true(fabs(sqrt(u->j_m2 / 4) - sqrt(370.0)) < 1e-9);
    assert_true(u->j_min == 10 && u->j_max == 60);
    assert_false(u->has_hist);
    int rate = -1;
    for (int i = 0; i < merge_total_count(); i++)
        if (strcmp(merge_total_key(i), "update_rate") == 0)
            rate = i;
    assert_true(m.combined.totals.v[rate] == 300000);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    merge_write_text(&m, f);
    fclose(f);
    assert_non_null(strstr(text, "  Processes: 2 (ConsPerf 2)\n"));
    assert_non_null(strstr(text, "  Refreshes received: 2000\n"));
    assert_non_null(strstr(text, "  Avg update rate: 300000\n"));
    /* Two hosts whose clocks nothing names: one-way latency between them is not valid. */
    assert_non_null(
        strstr(text, "  Latency samples: 5 (one-way between hosts: not valid, see CLOCKS)\n"));
    assert_non_null(strstr(text, "  Warning: one-way latency between hosts is not valid: clock "
                                 "not named (monotonic) on hostA, hostB; synchronisation unknown "
                                 "on hostA, hostB.\n"));
    assert_non_null(strstr(text, "  Latency avg (usec): 32.0\n"));
    assert_non_null(strstr(text, "  Latency std dev (usec): 19.2\n"));
    /* Percentiles are never averaged: without histograms there are none. */
    assert_null(strstr(text, "Latency p50"));
    assert_non_null(strstr(text, "Latency percentiles: none"));
    free(text);
    merge_free(&m);

    /* A summary's samples below zero are counted and warned about. */
    write_text("neg.json",
               "{\"tool\": \"ConsPerf\", \"host\": {\"name\": \"hostC\"}, \"pid\": 13,\n"
               " \"results\": {\"overall\": {\"latency\": {\"count\": 10, \"avg\": 5,"
               " \"stddev\": 1, \"min\": -3, \"max\": 9, \"negative\": 4}}}}\n");
    assert_int_equal(merge_read_file(&m, path_of("neg.json")), 0);
    assert_int_equal(merge_combine(&m), 0);
    assert_int_equal(merge_kind_get(&m.combined, "update")->j_negative, 4);
    assert_int_equal(m.nwarn, 1);
    assert_non_null(
        strstr(m.warnings[0], "ConsPerf pid 13 on hostC: 4 latency samples below zero"));
    merge_free(&m);
}

/* Reads one bad file; checks the entry names the line and says what. */
static void expect_bad(const char *name, int line, const char *what)
{
    merge m = {0};
    assert_int_equal(merge_read_file(&m, path_of(name)), -1);
    assert_int_equal(m.nbad, 1);
    assert_string_equal(m.bad[0].file, path_of(name));
    if (m.bad[0].line != line || !strstr(m.bad[0].what, what))
        fail_msg("%s: got line %d \"%s\", wanted line %d \"%s\"", name, m.bad[0].line,
                 m.bad[0].what, line, what);
    assert_int_equal(m.nprocs, 0);
    merge_free(&m);
}

/* Copies the first `lines` lines of src into dst, then `cut` characters of the next one. */
static void copy_cut(const char *src, const char *dst, int lines, int cut)
{
    uint8_t *b;
    size_t n;
    assert_int_equal(ts_read_file(path_of(src), &b, &n), 0);
    size_t end = 0;
    for (int l = 0; l < lines; l++)
        end = (size_t)(strchr((char *)b + end, '\n') - (char *)b) + 1;
    FILE *f = fopen(path_of(dst), "w");
    fwrite(b, 1, end + (size_t)cut, f);
    fclose(f);
    free(b);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    lat *all = new_lat(), *sched = new_lat();
    write_log("good.hlog", 5, 1, 30000, 4, all, sched);
    /* Cut in the middle of the 3rd interval line (line 10). */
    copy_cut("good.hlog", "cut.hlog", 9, 30);
    expect_bad("cut.hlog", 10, "no line end (the file was cut off)");
    /* Cut right after the header. */
    copy_cut("good.hlog", "header_only.hlog", 7, 0);
    expect_bad("header_only.hlog", 7, "no interval line after the header");
    /* Another program's log: a valid interval log without our lines. */
    copy_cut("good.hlog", "tmp.hlog", 12, 0);
    uint8_t *b;
    size_t n;
    assert_int_equal(ts_read_file(path_of("tmp.hlog"), &b, &n), 0);
    char *body = strstr((char *)b, "#[Histogram log format");
    char other[8192];
    snprintf(other, sizeof(other), "#[Logged with jHiccup version 2.0.7]\n%s", body);
    write_text("other.hlog", other);
    expect_bad("other.hlog", 6, "a histogram log of another program");
    /* Mismatched units (line 3 of our header). */
    char *units = strstr((char *)b, "nanoseconds");
    memcpy(units, "microsecond", 11);
    write_text("units.hlog", (char *)b);
    expect_bad("units.hlog", 3, "values in microsecond");
    memcpy(units, "nanoseconds", 11);
    /* A corrupt base64 character on line 9. */
    char *l9 = (char *)b;
    for (int i = 0; i < 8; i++)
        l9 = strchr(l9, '\n') + 1;
    char *h = strstr(l9, "HISTFAAAA") + 12;
    *h = '%';
    write_text("corrupt.hlog", (char *)b);
    char want[64];
    snprintf(want, sizeof(want), "base64 character %d: '%%' is not base64",
             (int)(h - strstr(l9, "HISTFAAAA")) + 1);
    expect_bad("corrupt.hlog", 9, want);
    *h = 'A';
    /* A BaseTime (line 6) far beyond any date: the first interval (line 8) is refused. */
    char *num = strstr((char *)b, "#[BaseTime: ");
    assert_non_null(num);
    num += 12;
    char timed[8192];
    snprintf(timed, sizeof(timed), "%.*s17933333333333357321.805%s", (int)(num - (char *)b),
             (char *)b, strchr(num, ' '));
    write_text("time.hlog", timed);
    expect_bad("time.hlog", 8, "not a time between 1970 and 9999");
    free(b);
    /* Files that are neither. */
    write_text("stats.csv", "UTC, Latency updates\n2024-03-01 10:00:01, 5\n");
    expect_bad("stats.csv", 1, "neither a histogram log nor a JSON summary");
    write_text("broken.json", "{\"tool\": \"ConsPerf\",\n \"results\": {\n");
    expect_bad("broken.json", 3, "not valid JSON");
    write_text("foreign.json", "{\"tool\": \"wrk2\", \"results\": {}}\n");
    expect_bad("foreign.json", 1, "the JSON summary of another tool (\"wrk2\")");
    /* Latency counts that are not whole numbers >= 0 (a negative one was once cast to
     * uint64_t). */
    write_text("negcount.json",
               "{\"tool\": \"ConsPerf\", \"results\": {\"overall\": {\"sched_latency\":"
               " {\"count\": -5997}}}}\n");
    expect_bad("negcount.json", 0,
               "a ConsPerf JSON summary whose results.overall.sched_latency.count is not a whole "
               "number from 0 to 2^53");
    write_text("hugeneg.json", "{\"tool\": \"ProvPerf\", \"results\": {\"overall\": "
                               "{\"genmsg_latency\": {\"count\": 3, \"negative\": 1e300}}}}\n");
    expect_bad("hugeneg.json", 0, "results.overall.genmsg_latency.negative is not a whole number");
    write_text("halfcount.json", "{\"tool\": \"TransportPerf\", \"results\": {\"overall\": "
                                 "{\"latency\": {\"count\": 2.5}}}}\n");
    expect_bad("halfcount.json", 0, "results.overall.latency.count is not a whole number");
    write_text("empty.hlog", "");
    expect_bad("empty.hlog", 0, "the file is empty");
    expect_bad("missing.hlog", 0, "cannot open");
    free(all);
    free(sched);
}

/* Runs the executable in the test folder; returns its exit status, stdout and stderr. */
static int run_merge(const char *args, char **out, char **err)
{
    const char *bin = getenv("RWFPERF_BIN");
    assert_non_null(bin);
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "cd %s && %s/rwfperf-merge %s >stdout.txt 2>stderr.txt", dir, bin,
             args);
    int st = system(cmd);
    size_t n;
    assert_int_equal(ts_read_file(path_of("stdout.txt"), (uint8_t **)out, &n), 0);
    assert_int_equal(ts_read_file(path_of("stderr.txt"), (uint8_t **)err, &n), 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A combined kind on too few samples for its high percentiles says so, in the text and the
 * JSON, as the tools' summaries do. */
/* A summary of tool on host with its clock and, for a consumer, its measured offset. */
static void write_clocked(const char *name, const char *tool, int pid, const char *host,
                          const char *clock, const char *offset)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"tool\": \"%s\", \"host\": {\"name\": \"%s\"}, \"pid\": %d,\n"
             " \"clock\": {\"source\": \"%s\", \"clock_id\": \"x\"},\n"
             " \"results\": {%s%s\"overall\": {\"updates_received\": 10,\n"
             "   \"latency\": {\"count\": 4, \"avg\": 50, \"stddev\": 1, \"min\": 49,"
             " \"max\": 52}, \"posting_latency\": {\"count\": 2, \"avg\": 90, \"stddev\": 1,"
             " \"min\": 89, \"max\": 91}}}}\n",
             tool, host, pid, clock, offset ? "\"clock_offset\": " : "", offset ? offset : "");
    write_text(name, text);
}

/* Writes the merge's text report of the files named (NULL-terminated) into a new string. */
static char *merged_text(merge *m, const char *const *names)
{
    for (; *names; names++)
        assert_int_equal(merge_read_file(m, path_of(*names)), 0);
    assert_int_equal(merge_combine(m), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    merge_write_text(m, f);
    fclose(f);
    return text;
}

/* Clocks: one-way latency between hosts is valid only with realtime clocks on every process
 * and every host synchronised; the hosts' clocks and the consumers' offsets are reported. */
static void test_clocks(void **state)
{
    (void)state;
    write_clocked("p.json", "ProvPerf", 1, "hp", "realtime", NULL);
    write_clocked("c1.json", "ConsPerf", 2, "hc1", "realtime",
                  "{\"state\": \"on\", \"measured\": true, \"offset_usec\": -2000.5, "
                  "\"bound_usec\": 30.25, \"larger_than_latency\": true},");
    write_clocked("c2.json", "ConsPerf", 3, "hc2", "monotonic",
                  "{\"state\": \"not ours\", \"measured\": false, \"reason\": \"the "
                  "provider is not an rwfperf tool\"},");
    write_text("hp.clock.json", "{\"host_clock\": {\"host\": \"hp\", \"sync\": \"chrony\", "
                                "\"synchronised\": true, \"offset_ns\": 12345, \"detail\": "
                                "\"leap status Normal\"}}\n");
    write_text("hc1.clock.json", "{\"host_clock\": {\"host\": \"hc1\", \"sync\": \"ptp4l\", "
                                 "\"synchronised\": true, \"offset_ns\": -40}}\n");
    write_text("hc2.clock.json", "{\"host_clock\": {\"host\": \"hc2\", \"sync\": \"unknown\", "
                                 "\"synchronised\": false, \"detail\": \"neither\"}}\n");

    merge m = {0};
    char *t = merged_text(&m, (const char *const[]){"p.json", "c1.json", "c2.json", "hp.clock.json",
                                                    "hc1.clock.json", "hc2.clock.json", NULL});
    merge_clock_verdict v = merge_clocks(&m);
    assert_int_equal(v.hosts, 3);
    assert_false(v.one_way_ok);
    assert_string_equal(v.why, "clock monotonic on hc2; synchronisation unknown on hc2");
    assert_non_null(strstr(t, "  Latency samples: 8 (one-way between hosts: not valid, see "
                              "CLOCKS)\n"));
    /* Posting latency is a round trip: valid. */
    assert_non_null(strstr(t, "  Posting latency samples: 4\n"));
    assert_non_null(strstr(t, "\n--- CLOCKS ---\n\n"
                              "  hp: clock realtime (ProvPerf); chrony, synchronised, offset "
                              "+12.345 usec (leap status Normal)\n"
                              "  hc1: clock realtime (ConsPerf); ptp4l, synchronised, offset "
                              "-0.040 usec\n"
                              "  hc2: clock monotonic (ConsPerf); synchronisation unknown "
                              "(neither)\n"
                              "  ConsPerf pid 2 on hc1: clock offset to its provider -2000.5 usec "
                              "(bound 30.2), as large as its latency\n"
                              "  ConsPerf pid 3 on hc2: clock offset to its provider not measured "
                              "(the provider is not an rwfperf tool)\n"
                              "  One-way latency between hosts: not valid: clock monotonic on hc2; "
                              "synchronisation unknown on hc2.\n"));
    /* Before the inputs: the combined result stays first. */
    assert_true(strstr(t, "--- COMBINED SUMMARY ---") < strstr(t, "--- CLOCKS ---"));
    assert_true(strstr(t, "--- CLOCKS ---") < strstr(t, "--- INPUTS ---"));
    json_object *doc = merge_json(&m), *o, *x;
    assert_true(json_object_object_get_ex(doc, "clocks", &o));
    assert_true(json_object_object_get_ex(o, "one_way_valid", &x));
    assert_false(json_object_get_boolean(x));
    assert_true(json_object_object_get_ex(o, "offsets", &x));
    assert_int_equal(json_object_array_length(x), 2);
    assert_true(json_object_object_get_ex(doc, "combined", &o));
    assert_true(json_object_object_get_ex(o, "latency_usec", &o));
    assert_true(json_object_object_get_ex(o, "update", &x));
    assert_true(json_object_object_get_ex(x, "valid", &x));
    assert_false(json_object_get_boolean(x));
    assert_true(json_object_object_get_ex(o, "post", &x));
    assert_false(json_object_object_get_ex(x, "valid", &x));
    json_object_put(doc);
    free(t);
    merge_free(&m);

    /* Realtime everywhere, every host synchronised: valid. */
    write_clocked("c2.json", "ConsPerf", 3, "hc2", "realtime", NULL);
    write_text("hc2.clock.json", "{\"host_clock\": {\"host\": \"hc2\", \"sync\": \"chrony\", "
                                 "\"synchronised\": true}}\n");
    t = merged_text(&m, (const char *const[]){"p.json", "c1.json", "c2.json", "hp.clock.json",
                                              "hc1.clock.json", "hc2.clock.json", NULL});
    assert_true(merge_clocks(&m).one_way_ok);
    assert_non_null(strstr(t, "  Latency samples: 8\n"));
    assert_non_null(strstr(t, "  One-way latency between hosts: valid as far as the hosts' "
                              "synchronisation"));
    free(t);
    merge_free(&m);

    /* One host: valid whatever the clock; no CLOCKS section without anything to say. */
    write_clocked("c3.json", "ConsPerf", 4, "hp", "monotonic", NULL);
    write_clocked("p3.json", "ProvPerf", 5, "hp", "monotonic", NULL);
    t = merged_text(&m, (const char *const[]){"c3.json", "p3.json", NULL});
    assert_true(merge_clocks(&m).one_way_ok);
    assert_null(strstr(t, "CLOCKS"));
    assert_null(strstr(t, "not valid"));
    free(t);
    merge_free(&m);

    /* A host clock file without a host, and a second one of a host, are bad inputs. */
    write_text("nohost.json", "{\"host_clock\": {\"sync\": \"chrony\"}}\n");
    assert_int_equal(merge_read_file(&m, path_of("nohost.json")), -1);
    assert_non_null(strstr(m.bad[0].what, "a host clock file without \"host\""));
    assert_int_equal(merge_read_file(&m, path_of("hp.clock.json")), 0);
    assert_int_equal(merge_read_file(&m, path_of("hp.clock.json")), -1);
    assert_non_null(strstr(m.bad[1].what, "a second host clock file of hp"));
    merge_free(&m);
}

static void test_thin_percentiles(void **state)
{
    (void)state;
    lat *all = new_lat(), *sched = new_lat();
    write_log("thin.hlog", 41, 1, 30000, 1, all, sched); /* one interval: 2,000 to 3,999 */
    char *out, *err;
    assert_int_equal(run_merge("-o thin thin.hlog", &out, &err), 0);
    char want[160];
    snprintf(want, sizeof(want),
             "  Latency p99.99 (usec): %.1f (only %llu samples: this is the maximum)\n",
             (double)all->max / 1000, (unsigned long long)all->count);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof(want), "  Latency p99.9 (usec): %.1f\n",
             lat_percentile(all, 99.9) / 1000);
    assert_non_null(strstr(out, want));
    json_object *doc = json_object_from_file(path_of("thin.json"));
    json_object *c, *lat_o, *u, *v;
    assert_true(json_object_object_get_ex(doc, "combined", &c));
    assert_true(json_object_object_get_ex(c, "latency_usec", &lat_o));
    assert_true(json_object_object_get_ex(lat_o, "update", &u));
    assert_true(json_object_object_get_ex(u, "p99_99_note", &v));
    snprintf(want, sizeof(want), "only %llu samples: this is the maximum",
             (unsigned long long)all->count);
    assert_string_equal(json_object_get_string(v), want);
    assert_false(json_object_object_get_ex(u, "p99_9_note", &v));
    json_object_put(doc);
    free(out);
    free(err);
    free(all);
    free(sched);
}

static void test_cli(void **state)
{
    (void)state;
    lat *all = new_lat(), *sched = new_lat();
    write_log("c1.hlog", 21, 1, 30000, 3, all, sched);
    write_log("c2.hlog", 22, 1, 60000, 3, all, sched);
    write_summary("c1.json", 21, "apphost", 5, 1, 1, 1, 1, 1000);
    char *out, *err;
    /* Good and bad inputs: the good ones merged, the bad one named, exit status 2. */
    int st = run_merge("-o rep c1.hlog c2.hlog c1.json corrupt.hlog", &out, &err);
    assert_int_equal(st, 2);
    assert_non_null(strstr(err, "corrupt.hlog:9: histogram: base64 character"));
    char want[128];
    snprintf(want, sizeof(want), "  Latency samples: %llu\n", (unsigned long long)all->count);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof(want), "  Latency p99 (usec): %.1f\n", lat_percentile(all, 99) / 1000);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "--- BAD INPUTS (not merged) ---\n\n  corrupt.hlog:9: "));
    assert_non_null(strstr(out, "  ConsPerf pid 21 on apphost: Items 1000, Avg update rate 1000"));
    /* The summary's 5 samples disagree with the log's: a warning. */
    assert_non_null(strstr(err, "warning: ConsPerf pid 21 on apphost: update: the histogram logs"));
    uint8_t *txt;
    size_t n;
    assert_int_equal(ts_read_file(path_of("rep.txt"), &txt, &n), 0);
    assert_string_equal((char *)txt, out);
    free(txt);
    json_object *doc = json_object_from_file(path_of("rep.json"));
    assert_non_null(doc);
    json_object *c, *lat_o, *u, *v;
    assert_true(json_object_object_get_ex(doc, "combined", &c));
    assert_true(json_object_object_get_ex(c, "latency_usec", &lat_o));
    assert_true(json_object_object_get_ex(lat_o, "update", &u));
    assert_true(json_object_object_get_ex(u, "count", &v));
    assert_int_equal(json_object_get_int64(v), all->count);
    assert_true(json_object_object_get_ex(u, "p99_99", &v));
    assert_true(fabs(json_object_get_double(v) - lat_percentile(all, 99.99) / 1000) < 1e-9);
    assert_true(json_object_object_get_ex(doc, "bad_inputs", &v));
    assert_int_equal(json_object_array_length(v), 1);
    json_object_put(doc);
    assert_int_equal(access(path_of("rep_percentiles.csv"), R_OK), 0);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0)
        assert_int_equal(access(path_of("rep.png"), R_OK), 0);
    else
        print_message("gnuplot missing: the PNG is not checked\n");
    free(out);
    free(err);

    /* All good: exit 0. */
    assert_int_equal(run_merge("-o rep2 c1.hlog c2.hlog", &out, &err), 0);
    free(out);
    free(err);
    /* Usage errors and nothing to merge. */
    assert_int_equal(run_merge("-o", &out, &err), 2);
    assert_non_null(strstr(err, "-o: needs a prefix"));
    free(out);
    free(err);
    assert_int_equal(run_merge("-x c1.hlog", &out, &err), 2);
    assert_non_null(strstr(err, "-x: unknown option"));
    free(out);
    free(err);
    assert_int_equal(run_merge("", &out, &err), 2);
    assert_non_null(strstr(err, "no input file"));
    free(out);
    free(err);
    assert_int_equal(run_merge("stats.csv", &out, &err), 2);
    assert_non_null(strstr(err, "nothing to merge"));
    free(out);
    free(err);
    assert_int_equal(run_merge("-?", &out, &err), 0);
    assert_non_null(strstr(out, "Usage: rwfperf-merge [-o <prefix>] <file>..."));
    free(out);
    free(err);
    free(all);
    free(sched);
}

/* merge_slurp reads a stream whole whatever its size: lengths around its buffer's first size
 * and its doublings, each byte in place, the text ended by a NUL. */
static void test_slurp_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 4094, 4095, 4096, 4097, 8191, 8192, 65536, 300001};
    char *data = malloc(300001);
    assert_non_null(data);
    for (size_t i = 0; i < 300001; i++)
        data[i] = (char)('a' + i * 7 % 23);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        static char empty[1];
        FILE *f = fmemopen(sizes[s] ? data : empty, sizes[s], "rb");
        assert_non_null(f);
        char *text = NULL;
        size_t len = 1;
        assert_int_equal(merge_slurp(f, &text, &len), 0);
        fclose(f);
        assert_int_equal(len, sizes[s]);
        if (len)
            assert_memory_equal(text, data, len);
        assert_int_equal(text[len], '\0');
        free(text);
    }
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_union_exact),      cmocka_unit_test(test_summaries_pooled),
        cmocka_unit_test(test_bad_inputs),       cmocka_unit_test(test_cli),
        cmocka_unit_test(test_thin_percentiles), cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_slurp_sizes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
