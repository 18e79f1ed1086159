/* Tests of the shared writers: report lines, summary blocks, CSV and latency log files, and the
 * JSON summary. */
#include "testsupport.h"

#include "err.h"
#include "out.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A report whose two streams are memory buffers. */
typedef struct mem_report {
    out_report r;
    FILE *con, *file;
    char *con_text, *file_text;
    size_t con_len, file_len;
} mem_report;

static void mem_open(mem_report *m)
{
    memset(m, 0, sizeof(*m));
    m->con = open_memstream(&m->con_text, &m->con_len);
    m->file = open_memstream(&m->file_text, &m->file_len);
    out_report_init(&m->r, m->con, m->file);
}

static void mem_close(mem_report *m)
{
    fclose(m->con);
    fclose(m->file);
}

static void mem_free(mem_report *m)
{
    free(m->con_text);
    free(m->file_text);
}

static char *tmp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/rwfperf-test-out-%d-%s", P_tmpdir, (int)getpid(), name);
    return path;
}

static char *slurp(const char *path)
{
    uint8_t *data;
    size_t len;
    if (ts_read_file(path, &data, &len) != 0)
        fail_msg("cannot read %s", path);
    return (char *)data;
}

static const stat_lat sample_lat = {
    .count = 46,
    .avg = 184.6,
    .stddev = 48.7,
    .min = 125.0,
    .max = 283.0,
    .p50 = 181.0,
    .p90 = 250.5,
    .p99 = 280.0,
    .p999 = 283.0,
    .p9999 = 283.0,
};

static void test_report_both_streams(void **state)
{
    (void)state;
    mem_report m;
    mem_open(&m);
    out_printf(&m.r, "--- TEST INPUTS ---\n\n");
    out_input(&m.r, 24, "Steady State Time", "%d", 5);
    out_input(&m.r, 24, "Latency Generic Msg Rate", "%d", 0);
    out_input(&m.r, 22, "Run Time", "%u sec", 60u);
    out_input(&m.r, 4, "Longer than width", "x");
    out_console(&m.r, "console only\n");
    assert_int_equal(out_report_flush(&m.r), 0);
    mem_close(&m);
    const char *want = "--- TEST INPUTS ---\n\n"
                       "       Steady State Time: 5\n"
                       "Latency Generic Msg Rate: 0\n"
                       "              Run Time: 60 sec\n"
                       "Longer than width: x\n";
    assert_string_equal(m.file_text, want);
    assert_true(strncmp(m.con_text, want, strlen(want)) == 0);
    assert_string_equal(m.con_text + strlen(want), "console only\n");
    mem_free(&m);

    /* A report with one stream only writes there. */
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    out_report r;
    out_report_init(&r, NULL, f);
    out_printf(&r, "a\n");
    out_console(&r, "b\n");
    fclose(f);
    assert_string_equal(t, "a\n");
    free(t);
}

static void test_extra_inputs(void **state)
{
    (void)state;
    mem_report m;
    mem_open(&m);
    out_extra x = {.clock_cost_ns = 21.34, .clock_resolution_ns = 1.0, .clock = "monotonic"};
    out_extra_inputs(&m.r, 24, &x, "ConsSummary.json");
    out_extra none = OUT_EXTRA_NONE;
    out_extra_inputs(&m.r, 22, &none, NULL);
    out_extra skewed = {-1, -1, "realtime", -2500};
    out_extra_inputs(&m.r, 24, &skewed, NULL);
    mem_close(&m);
    assert_string_equal(m.file_text, "                   Clock: monotonic\n"
                                     "         Clock Cost (ns): 21.3\n"
                                     "   Clock Resolution (ns): 1\n"
                                     "       JSON Summary File: ConsSummary.json\n"
                                     "                   Clock: realtime\n"
                                     "         Clock Skew (ns): -2500 (test only)\n");
    mem_free(&m);
}

static void test_latency_block(void **state)
{
    (void)state;
    mem_report m;
    mem_open(&m);
    out_lat_block(&m.r, "Latency", &sample_lat, 1);
    out_lat_sched_block(&m.r, "latency", NULL, 1);
    stat_lat empty = {0};
    out_lat_sched_block(&m.r, "latency", &empty, 1);
    stat_lat sched = sample_lat;
    sched.avg = 190.25;
    sched.max = 2300.0;
    out_lat_sched_block(&m.r, "posting latency", &sched, 3);
    mem_close(&m);
    assert_string_equal(m.file_text, "  Latency avg (usec): 184.6\n"
                                     "  Latency std dev (usec): 48.7\n"
                                     "  Latency max (usec): 283.0\n"
                                     "  Latency min (usec): 125.0\n"
                                     "  Latency p50 (usec): 181.0\n"
                                     "  Latency p90 (usec): 250.5\n"
                                     "  Latency p99 (usec): 280.0 (only 46 samples: this is "
                                     "the maximum)\n"
                                     "  Latency p99.9 (usec): 283.0 (only 46 samples: this is "
                                     "the maximum)\n"
                                     "  Latency p99.99 (usec): 283.0 (only 46 samples: this is "
                                     "the maximum)\n"
                                     "  Sched posting latency avg (usec): 190.250\n"
                                     "  Sched posting latency std dev (usec): 48.700\n"
                                     "  Sched posting latency max (usec): 2300.000\n"
                                     "  Sched posting latency min (usec): 125.000\n"
                                     "  Sched posting latency p50 (usec): 181.000\n"
                                     "  Sched posting latency p90 (usec): 250.500\n"
                                     "  Sched posting latency p99 (usec): 280.000 (only 46 "
                                     "samples: this is the maximum)\n"
                                     "  Sched posting latency p99.9 (usec): 283.000 (only 46 "
                                     "samples: this is the maximum)\n"
                                     "  Sched posting latency p99.99 (usec): 283.000 (only 46 "
                                     "samples: this is the maximum)\n");
    mem_free(&m);
}

static void test_resource_block(void **state)
{
    (void)state;
    mem_report m;
    mem_open(&m);
    stat_res none = {0};
    out_res_block(&m.r, &none);
    out_res_block(&m.r, NULL);
    stat_res res = {.samples = 2,
                    .cpu_max = 0.65,
                    .cpu_min = 0.15,
                    .cpu_avg = 0.40,
                    .mem_max = 65.73,
                    .mem_min = 64.61,
                    .mem_avg = 65.17};
    out_res_block(&m.r, &res);
    mem_close(&m);
    assert_string_equal(m.file_text, "  CPU/Memory samples: 2\n"
                                     "  CPU Usage max (%): 0.65\n"
                                     "  CPU Usage min (%): 0.15\n"
                                     "  CPU Usage avg (%): 0.40\n"
                                     "  Memory Usage max (MB): 65.73\n"
                                     "  Memory Usage min (MB): 64.61\n"
                                     "  Memory Usage avg (MB): 65.17\n");
    mem_free(&m);
}

static void test_rate_check(void **state)
{
    (void)state;
    mem_report m;
    mem_open(&m);
    assert_false(out_rate_check(&m.r, "update", 0, 5));
    assert_false(out_rate_check(&m.r, "update", 100000, 99000));
    assert_true(out_rate_check(&m.r, "post", 1000, 989.9));
    mem_close(&m);
    assert_string_equal(
        m.file_text, "  Offered update rate: 100000\n"
                     "  Achieved update rate: 99000\n"
                     "  Offered post rate: 1000\n"
                     "  Achieved post rate: 990\n"
                     "  Warning: achieved post rate is 98.99% of the offered rate (below 99%).\n");
    mem_free(&m);

    assert_true(out_rate(10, 0) == 0.0);
    assert_true(out_rate(10, -1) == 0.0);
    assert_true(out_rate(10, 4) == 2.5);
    assert_true(out_secs(0, 5, 9) == 0.0);
    assert_true(out_secs(1000000000, 0, 3500000000) == 2.5);
    assert_true(out_secs(1000000000, 2000000000, 3500000000) == 1.0);
}

static void test_csv(void **state)
{
    (void)state;
    const char *path = tmp_path("stats.csv");
    out_csv c;
    char header[1024] = "UTC, Msgs";
    assert_int_equal(out_csv_lat_header(header, sizeof(header), "Latency"), 0);
    assert_string_equal(header,
                        "UTC, Msgs, Latency p50 (usec), Latency p90 (usec), Latency p99 (usec), "
                        "Latency p99.9 (usec), Latency p99.99 (usec), Sched Latency avg (usec), "
                        "Sched Latency p99 (usec), Sched Latency max (usec)");
    char small[20] = "UTC";
    assert_int_equal(out_csv_lat_header(small, sizeof(small), "Latency"), -1);
    assert_string_equal(small, "UTC");

    assert_int_equal(out_csv_open(&c, path, header), 0);
    char utc[32];
    out_utc(utc, sizeof(utc), (time_t)1353030364); /* 2012-11-16 01:46:04 UTC */
    assert_string_equal(utc, "2012-11-16 01:46:04");
    char row[512] = "";
    stat_lat sched = sample_lat;
    sched.avg = 200.0;
    assert_int_equal(out_csv_lat_values(row, sizeof(row), &sample_lat, &sched, 1), 0);
    assert_int_equal(out_csv_row(&c, "%s, %d%s", utc, 500, row), 0);
    row[0] = '\0';
    assert_int_equal(out_csv_lat_values(row, sizeof(row), NULL, NULL, 3), 0);
    assert_int_equal(out_csv_row(&c, "%s, %d%s", utc, 0, row), 0);
    /* The row is on disk before the file is closed. */
    char *text = slurp(path);
    assert_string_equal(text, "UTC, Msgs, Latency p50 (usec), Latency p90 (usec), Latency p99 "
                              "(usec), Latency p99.9 (usec), Latency p99.99 (usec), Sched "
                              "Latency avg (usec), Sched Latency p99 (usec), Sched Latency max "
                              "(usec)\n"
                              "2012-11-16 01:46:04, 500, 181.0, 250.5, , , , 200.0, , 283.0\n"
                              "2012-11-16 01:46:04, 0, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, "
                              "0.000, 0.000\n");
    free(text);
    assert_int_equal(out_csv_close(&c), 0);
    assert_int_equal(out_csv_close(&c), 0);
    assert_int_equal(out_csv_row(&c, "ignored"), 0);
    unlink(path);

    assert_int_equal(out_csv_open(&c, "/nonexistent-dir/x.csv", "h"), -1);
    assert_non_null(strstr(err_msg(), "cannot create '/nonexistent-dir/x.csv'"));

    /* A write that fails (a full disk) is an error that names the file. */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(out_csv_open(&c, "/dev/full", "h"), -1);
        assert_non_null(strstr(err_msg(), "cannot write '/dev/full'"));
        assert_int_equal(out_csv_open(&c, "/dev/full", NULL), 0);
        assert_int_equal(out_csv_row(&c, "%s", "a row"), -1);
        assert_non_null(strstr(err_msg(), "writing a row to '/dev/full' failed"));
        assert_int_equal(out_csv_close(&c), -1);
        assert_non_null(strstr(err_msg(), "writing '/dev/full' failed"));
        assert_int_equal(out_latlog_open(&c, "/dev/full", true), -1);
        assert_int_equal(out_latlog_open(&c, "/dev/full", false), -1);
    }
}

static void test_latency_logs(void **state)
{
    (void)state;
    const char *path = tmp_path("lat.csv");
    out_csv c;
    assert_int_equal(out_latlog_open(&c, path, true), 0);
    assert_int_equal(out_latlog_row(&c, "Upd", 353725032296ull, 353725032521ull), 0);
    assert_int_equal(out_latlog_row(&c, "Pst", 353724892323ull, 353724894740ull), 0);
    assert_int_equal(out_latlog_row(&c, "Gen", 100, 90), 0);
    assert_int_equal(out_latlog_flush(&c), 0);
    char *text = slurp(path);
    assert_string_equal(text, "Message type, Send time, Receive time, Latency (usec)\n"
                              "Upd, 353725032296, 353725032521, 225\n"
                              "Pst, 353724892323, 353724894740, 2417\n"
                              "Gen, 100, 90, -10\n");
    free(text);
    assert_int_equal(out_csv_close(&c), 0);

    assert_int_equal(out_latlog_open(&c, path, false), 0);
    assert_int_equal(out_latlog_row(&c, NULL, 1000, 15000), 0);
    assert_int_equal(out_csv_close(&c), 0);
    text = slurp(path);
    assert_string_equal(text, "Send Time, Receive Time, Latency(nsec)\n1000, 15000, 14000\n");
    free(text);
    unlink(path);
}

static void test_json_path(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(out_json_path(b, sizeof(b), "ConsSummary.out"), 0);
    assert_string_equal(b, "ConsSummary.json");
    assert_int_equal(out_json_path(b, sizeof(b), "TransportSummary_1234.out"), 0);
    assert_string_equal(b, "TransportSummary_1234.json");
    assert_int_equal(out_json_path(b, sizeof(b), "run.txt"), 0);
    assert_string_equal(b, "run.txt.json");
    assert_int_equal(out_json_path(b, sizeof(b), ".out"), 0);
    assert_string_equal(b, ".json");
    assert_int_equal(out_json_path(b, sizeof(b), "x.output"), 0);
    assert_string_equal(b, "x.output.json");
    char tiny[8];
    assert_int_equal(out_json_path(tiny, sizeof(tiny), "Summary.out"), -1);
}

static void test_host(void **state)
{
    (void)state;
    out_host h;
    out_host_get(&h);
    assert_true(h.name[0] != '\0');
    assert_non_null(strstr(h.kernel, "Linux"));
    assert_true(h.cores >= 1);
}

static void test_json_document(void **state)
{
    (void)state;
    out_host h = {.name = "vm", .kernel = "Linux 6.1", .cpu_model = "Test CPU", .cores = 2};
    json_object *doc = out_json_doc("ConsPerf", &h, 1854, (time_t)1353030364);
    assert_non_null(doc);
    out_json_add(doc, "latency", out_json_lat(&sample_lat));
    stat_res res = {.samples = 1, .cpu_max = 7.94, .mem_max = 57.56};
    out_json_add(doc, "resources", out_json_res(&res));
    out_json_add(doc, "ignored", NULL);

    const char *path = tmp_path("summary.json");
    assert_int_equal(out_json_write(path, doc), 0);
    json_object_put(doc);

    json_object *back = json_object_from_file(path);
    assert_non_null(back);
    json_object *v, *host, *lat;
    assert_true(json_object_object_get_ex(back, "tool", &v));
    assert_string_equal(json_object_get_string(v), "ConsPerf");
    assert_true(json_object_object_get_ex(back, "version", &v));
    assert_string_equal(json_object_get_string(v), RWFPERF_VERSION);
    assert_true(json_object_object_get_ex(back, "git_revision", &v));
    assert_string_equal(json_object_get_string(v), rwfperf_git_rev());
    assert_true(json_object_object_get_ex(back, "pid", &v));
    assert_int_equal(json_object_get_int(v), 1854);
    assert_true(json_object_object_get_ex(back, "written_utc", &v));
    assert_string_equal(json_object_get_string(v), "2012-11-16 01:46:04");
    assert_true(json_object_object_get_ex(back, "host", &host));
    assert_true(json_object_object_get_ex(host, "name", &v));
    assert_string_equal(json_object_get_string(v), "vm");
    assert_true(json_object_object_get_ex(host, "cpu_model", &v));
    assert_string_equal(json_object_get_string(v), "Test CPU");
    assert_true(json_object_object_get_ex(host, "cores", &v));
    assert_int_equal(json_object_get_int(v), 2);
    assert_true(json_object_object_get_ex(back, "latency", &lat));
    assert_true(json_object_object_get_ex(lat, "count", &v));
    assert_int_equal(json_object_get_int(v), 46);
    assert_true(json_object_object_get_ex(lat, "p99_9", &v));
    assert_true(json_object_get_double(v) == 283.0);
    assert_true(json_object_object_get_ex(lat, "avg", &v));
    assert_true(json_object_get_double(v) == 184.6);
    /* No sample below zero: no "negative" member. */
    assert_false(json_object_object_get_ex(lat, "negative", &v));
    assert_true(json_object_object_get_ex(back, "resources", &v));
    assert_false(json_object_object_get_ex(back, "ignored", &v));
    json_object_put(back);

    /* The file ends with a newline, as a text file should. */
    char *text = slurp(path);
    assert_true(text[strlen(text) - 1] == '\n');
    /* Numbers are written readably, not as 184.59999999999999. */
    assert_non_null(strstr(text, "184.6"));
    assert_null(strstr(text, "184.5999"));
    free(text);
    unlink(path);

    /* Samples below zero are counted. */
    stat_lat neg = sample_lat;
    neg.negative = 3;
    json_object *o = out_json_lat(&neg);
    assert_true(json_object_object_get_ex(o, "negative", &v));
    assert_int_equal(json_object_get_int64(v), 3);
    json_object_put(o);

    json_object *nan_value = out_json_double(0.0 / 0.0);
    assert_true(json_object_get_double(nan_value) == 0.0);
    json_object_put(nan_value);

    json_object *d2 = json_object_new_object();
    assert_int_equal(out_json_write("/nonexistent-dir/x.json", d2), -1);
    json_object_put(d2);

    /* Without a host given, this machine is described. */
    json_object *d3 = out_json_doc("TransportPerf", NULL, 1, time(NULL));
    assert_true(json_object_object_get_ex(d3, "host", &host));
    assert_true(json_object_object_get_ex(host, "cores", &v));
    assert_true(json_object_get_int(v) >= 1);
    json_object_put(d3);
}

static void test_console_lines(void **state)
{
    (void)state;
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    out_console_stat(f, "  Latency(usec)", &sample_lat, false, "Msgs");
    out_console_lat_extra(f, "  Latency(usec)", &sample_lat, NULL, false);
    stat_lat tl = {.count = 49,
                   .avg = 113.826,
                   .stddev = 16.511,
                   .max = 175.783,
                   .min = 94.841,
                   .p50 = 110.5,
                   .p90 = 130.25,
                   .p99 = 170.0,
                   .p999 = 175.783,
                   .p9999 = 175.783};
    stat_lat sched = tl;
    sched.avg = 120.0;
    out_console_stat(f, "  Latency (usec)", &tl, true, "Msgs");
    out_console_lat_extra(f, "  Latency (usec)", &tl, &sched, true);
    stat_lat empty = {0};
    out_console_lat_extra(f, "  Latency (usec)", &empty, &empty, true);
    out_console_stat(NULL, "x", &tl, true, "Msgs");
    fclose(f);
    assert_string_equal(
        t, "  Latency(usec): Avg: 184.6 StdDev:  48.7 Max:   283 Min:   125, Msgs: 46\n"
           "  Latency(usec) p50:   181 p90:   250 p99:   280 p99.9:   283 p99.99:   283 (only 46 "
           "samples: p99, p99.9, p99.99 are the maximum)\n"
           "  Latency (usec): Avg: 113.826 StdDev:  16.511 Max: 175.783 Min:  94.841, Msgs: 49\n"
           "  Latency (usec) p50: 110.500 p90: 130.250 p99: 170.000 p99.9: 175.783 p99.99: "
           "175.783 (only 49 samples: p99, p99.9, p99.99 are the maximum)\n"
           "  Sched Latency (usec): Avg: 120.000 StdDev:  16.511 Max: 175.783 Min:  94.841, "
           "Msgs: 49\n");
    free(t);
}

/* The sample counts a percentile needs: ceil(100 / (100 - p)). */
static void test_pct_needs(void **state)
{
    (void)state;
    assert_int_equal(out_pct_needs(50), 2);
    assert_int_equal(out_pct_needs(90), 10);
    assert_int_equal(out_pct_needs(99), 100);
    assert_int_equal(out_pct_needs(99.9), 1000);
    assert_int_equal(out_pct_needs(99.99), 10000);
    assert_int_equal(out_pct_needs(0), 1);
    assert_int_equal(out_pct_needs(100), 1);
    stat_lat l = {.count = 120, .negative = 10};
    assert_int_equal(out_pct_samples(&l), 110);
}

/* The notes: exactly at the thresholds the note goes; one sample below, it says so. */
static void test_pct_notes(void **state)
{
    (void)state;
    char note[96];
    stat_lat l = {.count = 110};
    assert_true(out_pct_note(note, sizeof(note), &l, 99.99));
    assert_string_equal(note, "only 110 samples: this is the maximum");
    assert_true(out_pct_note(note, sizeof(note), &l, 99.9));
    assert_false(out_pct_note(note, sizeof(note), &l, 99));
    assert_string_equal(note, "");
    l.count = 999;
    assert_true(out_pct_note(note, sizeof(note), &l, 99.9));
    assert_string_equal(note, "only 999 samples: this is the maximum");
    l.count = 1000;
    assert_false(out_pct_note(note, sizeof(note), &l, 99.9));
    assert_true(out_pct_note(note, sizeof(note), &l, 99.99));
    l.count = 9999;
    assert_true(out_pct_note(note, sizeof(note), &l, 99.99));
    l.count = 10000;
    assert_false(out_pct_note(note, sizeof(note), &l, 99.99));
    l.count = 99;
    assert_true(out_pct_note(note, sizeof(note), &l, 99));
    l.count = 100;
    assert_false(out_pct_note(note, sizeof(note), &l, 99));
    l.count = 1;
    assert_true(out_pct_note(note, sizeof(note), &l, 50));
    assert_string_equal(note, "only 1 sample: this is the maximum");
    /* Negative samples are not in the percentiles. */
    l = (stat_lat){.count = 1005, .negative = 10};
    assert_true(out_pct_note(note, sizeof(note), &l, 99.9));
    assert_string_equal(note, "only 995 samples: this is the maximum");
    l = (stat_lat){.count = 3, .negative = 3};
    assert_true(out_pct_note(note, sizeof(note), &l, 50));
    assert_string_equal(note, "no samples at or above zero");
    /* No samples at all: nothing to say (the block is not printed). */
    l = (stat_lat){0};
    assert_false(out_pct_note(note, sizeof(note), &l, 99));
}

/* The example of the run scripts/run.sh makes: 110 stamps. */
static void test_pct_summary_110(void **state)
{
    (void)state;
    stat_lat l = {.count = 110,
                  .avg = 151.2,
                  .stddev = 40.1,
                  .min = 106.0,
                  .max = 612.0,
                  .p50 = 151.0,
                  .p90 = 190.0,
                  .p99 = 281.0,
                  .p999 = 612.0,
                  .p9999 = 612.0};
    mem_report m;
    mem_open(&m);
    out_lat_block(&m.r, "Latency", &l, 1);
    mem_close(&m);
    assert_string_equal(m.file_text, "  Latency avg (usec): 151.2\n"
                                     "  Latency std dev (usec): 40.1\n"
                                     "  Latency max (usec): 612.0\n"
                                     "  Latency min (usec): 106.0\n"
                                     "  Latency p50 (usec): 151.0\n"
                                     "  Latency p90 (usec): 190.0\n"
                                     "  Latency p99 (usec): 281.0\n"
                                     "  Latency p99.9 (usec): 612.0 (only 110 samples: this is "
                                     "the maximum)\n"
                                     "  Latency p99.99 (usec): 612.0 (only 110 samples: this is "
                                     "the maximum)\n");
    assert_string_equal(m.con_text, m.file_text);
    mem_free(&m);

    /* JSON: the figure stays a number, the note is beside it. */
    json_object *o = out_json_lat(&l);
    assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                        "{\"count\":110,\"avg\":151.2,\"stddev\":40.1,\"min\":106,"
                        "\"max\":612,\"p50\":151,\"p90\":190,\"p99\":281,\"p99_9\":612,"
                        "\"p99_9_note\":\"only 110 samples: this is the maximum\",\"p99_99\":612,"
                        "\"p99_99_note\":\"only 110 samples: this is the maximum\"}");
    json_object_put(o);

    /* Enough samples: no note anywhere. */
    l.count = 10000;
    o = out_json_lat(&l);
    assert_null(strstr(json_object_to_json_string(o), "note"));
    json_object_put(o);
    char row[256] = "";
    assert_int_equal(out_csv_lat_values(row, sizeof(row), &l, &l, 1), 0);
    assert_string_equal(row, ", 151.0, 190.0, 281.0, 612.0, 612.0, 151.2, 281.0, 612.0");

    /* 110 samples: p99.9 and p99.99 blank in the CSV, the columns kept. */
    l.count = 110;
    row[0] = '\0';
    assert_int_equal(out_csv_lat_values(row, sizeof(row), &l, &l, 1), 0);
    assert_string_equal(row, ", 151.0, 190.0, 281.0, , , 151.2, 281.0, 612.0");
    /* A buffer too small is left as it was. */
    char small[30] = "x";
    assert_int_equal(out_csv_lat_values(small, sizeof(small), &l, &l, 1), -1);
    assert_string_equal(small, "x");

    /* The console: one note for every percentile on too few samples. */
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    out_console_lat_extra(f, "  Latency(usec)", &l, NULL, false);
    l.count = 9999;
    out_console_lat_extra(f, "  Latency(usec)", &l, NULL, false);
    l.count = 10000;
    out_console_lat_extra(f, "  Latency(usec)", &l, NULL, false);
    fclose(f);
    assert_string_equal(t, "  Latency(usec) p50:   151 p90:   190 p99:   281 p99.9:   612 "
                           "p99.99:   612 (only 110 samples: p99.9, p99.99 are the maximum)\n"
                           "  Latency(usec) p50:   151 p90:   190 p99:   281 p99.9:   612 "
                           "p99.99:   612 (only 9999 samples: p99.99 is the maximum)\n"
                           "  Latency(usec) p50:   151 p90:   190 p99:   281 p99.9:   612 "
                           "p99.99:   612\n");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_both_streams),
        cmocka_unit_test(test_pct_needs),
        cmocka_unit_test(test_pct_notes),
        cmocka_unit_test(test_pct_summary_110),
        cmocka_unit_test(test_extra_inputs),
        cmocka_unit_test(test_latency_block),
        cmocka_unit_test(test_resource_block),
        cmocka_unit_test(test_rate_check),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_latency_logs),
        cmocka_unit_test(test_json_path),
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_json_document),
        cmocka_unit_test(test_console_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
