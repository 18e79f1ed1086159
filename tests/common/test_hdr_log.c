/* hdr_log: the interval log's text (header lines, interval lines) as HdrHistogram's format
 * describes it, the reader on our logs and on malformed ones (each error names its line). */
#include "testsupport.h"

#include "err.h"
#include "hdr_log.h"
#include "lat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/test_hdr_log.XXXXXX";

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
    static char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return p;
}

static char *slurp(const char *path)
{
    uint8_t *b;
    size_t n;
    assert_int_equal(ts_read_file(path, &b, &n), 0);
    return (char *)b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const hdr_log_id test_id = {"ConsPerf", "1.0.0", "0123456789ab", "apphost1",
                                   4242,       2,       "realtime"};

static void test_write_text(void **state)
{
    (void)state;
    hdr_layout l;
    hdr_layout_lat(&l);
    uint64_t *counts = calloc(LAT_BUCKETS, sizeof(uint64_t));
    counts[5] = 3;
    counts[278] = 1;
    counts[506] = 2;
    hdr_log_writer w;
    const char *p = path_of("a.hlog");
    assert_int_equal(hdr_log_open(&w, p, &test_id, 1764188769.25), 0);
    assert_int_equal(hdr_log_write(&w, "update", 1764188769.25, 5.0, 1003, &l, counts), 0);
    assert_int_equal(hdr_log_write(&w, "sched-update", 1764188774.25, 5.0, -1, &l, counts), 0);
    assert_int_equal(hdr_log_write(&w, "bad tag", 1764188774.25, 5.0, 1, &l, counts), -1);
    assert_non_null(strstr(err_msg(), "comma, space"));
    assert_int_equal(hdr_log_close(&w), 0);

    char *text = slurp(p);
    const char *want_head =
        "#[rwfperf histogram log: ConsPerf 1.0.0 0123456789ab]\n"
        "#[Host: apphost1, pid 4242, thread 2]\n"
        "#[Clock: realtime]\n"
        "#[Values: nanoseconds, Interval_Max in milliseconds]\n"
        "#[Histogram log format version 1.3]\n"
        "#[StartTime: 1764188769.250 (seconds since epoch), Wed Nov 26 20:26:09 UTC 2025]\n"
        "#[BaseTime: 1764188769.250 (seconds since epoch)]\n"
        "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_"
        "Histogram\"\n"
        "Tag=update,0.000,5.000,0.001003,HISTFAAAA";
    if (strncmp(text, want_head, strlen(want_head)) != 0)
        fail_msg("log text:\n%s\nwanted it to start:\n%s", text, want_head);
    assert_non_null(strstr(text, "\nTag=sched-update,5.000,5.000,0.000000,HISTFAAAA"));
    /* Every comment line fits HdrHistogram's C reader's 128-byte header buffer. */
    for (char *s = text; *s == '#';) {
        char *e = strchr(s, '\n');
        assert_true(e - s < 127);
        s = e + 1;
    }
    free(text);
    free(counts);
}

static void test_read_back(void **state)
{
    (void)state;
    hdr_layout l;
    hdr_layout_lat(&l);
    uint64_t *counts = calloc(LAT_BUCKETS, sizeof(uint64_t));
    hdr_log_writer w;
    const char *p = path_of("b.hlog");
    /* A host name longer than a header line allows is cut. */
    hdr_log_id id = test_id;
    char host[300];
    memset(host, 'h', sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    id.host = host;
    assert_int_equal(hdr_log_open(&w, p, &id, 1000.5), 0);
    for (int i = 0; i < 10; i++) {
        counts[100 + i] += (uint64_t)i + 1;
        assert_int_equal(
            hdr_log_write(&w, i % 2 ? "post" : "update", 1000.5 + i, 1.0, 100 + i, &l, counts), 0);
    }
    assert_int_equal(hdr_log_close(&w), 0);

    hdr_log_reader r;
    hdr_log_entry e = {0};
    assert_int_equal(hdr_log_reader_open(&r, p), 0);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(hdr_log_next(&r, &e), 1);
        assert_string_equal(e.tag, i % 2 ? "post" : "update");
        assert_true(e.start == (double)i);
        assert_true(e.length == 1.0);
        assert_true(e.max * 1e6 > 100 + i - 0.5 && e.max * 1e6 < 100 + i + 0.5);
        assert_int_equal(e.line, 9 + i);
        assert_int_equal(e.hist.total, (uint64_t)(i + 1) * (i + 2) / 2);
        assert_int_equal(e.hist.counts[100 + i], i + 1);
    }
    assert_int_equal(hdr_log_next(&r, &e), 0);
    assert_true(r.info.rwfperf);
    assert_string_equal(r.info.tool, "ConsPerf");
    assert_string_equal(r.info.version, "1.0.0");
    assert_string_equal(r.info.clock, "realtime");
    assert_string_equal(r.info.git_rev, "0123456789ab");
    assert_int_equal(strlen(r.info.host), 63);
    assert_int_equal(r.info.pid, 4242);
    assert_int_equal(r.info.thread, 2);
    assert_string_equal(r.info.units, "nanoseconds");
    assert_int_equal(r.info.units_line, 4);
    assert_true(r.info.start == 1000.5 && r.info.base == 1000.5);
    assert_int_equal(r.info.format_major, 1);
    assert_int_equal(r.info.format_minor, 3);
    hdr_log_reader_close(&r);
    hdr_hist_free(&e.hist);
    free(counts);
}

/* A log written by another program: untagged lines, no rwfperf header, CRLF line ends. */
static void test_read_foreign(void **state)
{
    (void)state;
    const char *p = path_of("c.hlog");
    write_file(p, "#[Logged with jHiccup version 2.0.7]\r\n"
                  "#[Histogram log format version 1.2]\r\n"
                  "#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 08:24:39 PDT "
                  "2015]\r\n"
                  "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_"
                  "Compressed_Histogram\"\r\n"
                  "0.127,1.007,2.769,HISTFAAAADt4AQEwAM//HISTEwAAAAgAAAAAAAAAAgAAAAAAAAABAAAD/"
                  "/////8/8AAAAAAAAAkGnwQCxQMEtJQI/w==\r\n");
    hdr_log_reader r;
    hdr_log_entry e = {0};
    assert_int_equal(hdr_log_reader_open(&r, p), 0);
    assert_int_equal(hdr_log_next(&r, &e), 1);
    assert_string_equal(e.tag, "");
    assert_true(e.start == 0.127 && e.length == 1.007 && e.max == 2.769);
    assert_int_equal(e.hist.total, 6);
    assert_int_equal(hdr_log_next(&r, &e), 0);
    assert_false(r.info.rwfperf);
    assert_string_equal(r.info.units, "");
    assert_int_equal(r.info.format_minor, 2);
    assert_true(r.info.start == 1441812279.474);
    hdr_log_reader_close(&r);
    hdr_hist_free(&e.hist);
}

/* Reads path up to its first error; checks the text names the line and the fault. */
static void expect_error(const char *body, const char *what)
{
    const char *p = path_of("bad.hlog");
    write_file(p, body);
    hdr_log_reader r;
    hdr_log_entry e = {0};
    assert_int_equal(hdr_log_reader_open(&r, p), 0);
    int rc;
    while ((rc = hdr_log_next(&r, &e)) == 1)
        ;
    assert_int_equal(rc, -1);
    if (!strstr(err_msg(), what))
        fail_msg("error \"%s\" does not mention \"%s\"", err_msg(), what);
    hdr_log_reader_close(&r);
    hdr_hist_free(&e.hist);
}

#define GOOD                                                                                       \
    "HISTFAAAADt4AQEwAM//HISTEwAAAAgAAAAAAAAAAgAAAAAAAAABAAAD//////8/8AAAAAAAAAkGnwQCxQMEtJQI/w=="

static void test_read_errors(void **state)
{
    (void)state;
    expect_error("#[x]\nTag=update,0.000,5.000,0.1,"
                 "HISTFAAAADt4AQEwAM//HISTEwAAAAgAAAAAAAAAAgAAAAAA",
                 "line 2: no line end");
    expect_error("Tag=update,0.000,5.000,0.1," GOOD "\nTag=update,0.000,5.000," GOOD "\n",
                 "line 2: 3 fields");
    expect_error("Tag=update,0.000,x5,0.1," GOOD "\n", "line 1: interval length \"x5\"");
    expect_error("Tag=update,0.000,5,0.1," GOOD ",7\n", "line 1: more than 4 fields");
    expect_error("#\n#\nTag=update,0.000,5,0.1,HISTFAAAADt4AQEwAM//HI$TEw==\n",
                 "line 3: histogram: base64 character 23: '$'");
    expect_error("Tag=update,0.000,5,0.1,HISTFAAAADt4AQEwAM//HISTEwAAAAgAAAAAAAAAAg==\n",
                 "line 1: histogram: ");
    expect_error("Tag=,0,5,0.1," GOOD "\n", "line 1: a tag of 0 characters");
    expect_error("Tag=update\n", "line 1: a tag with nothing after it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_text),
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_read_foreign),
        cmocka_unit_test(test_read_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
