/* The tools' run-time (common/run): failure slot, output files and stamp schedules, the
 * collector of the workers' measurements with its latency log, and the one-second loop. */
#include "testsupport.h"

#include "clk.h"
#include "err.h"
#include "opt.h"
#include "run_col.h"
#include "run_fail.h"
#include "run_loop.h"
#include "run_setup.h"
#include "sig.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A temporary file name in the build's temporary folder. */
static const char *tmp_path(const char *name)
{
    static char path[4][600];
    static int next;
    char *p = path[next++ & 3];
    snprintf(p, sizeof(path[0]), "%s", ts_binary_path(name));
    return p;
}

static char *slurp(const char *path)
{
    uint8_t *d;
    size_t n;
    assert_int_equal(ts_read_file(path, &d, &n), 0);
    return (char *)d;
}

/* ---- run_fail ----------------------------------------------------------------------------- */

/* The first failure's text stays; a later, worse status wins; nothing shows before. */
static void test_fail_first_text_worst_status(void **state)
{
    (void)state;
    run_fail f;
    run_fail_init(&f);
    assert_int_equal(run_fail_status(&f), RUN_EXIT_OK);
    assert_string_equal(run_fail_text(&f), "");
    assert_true(run_fail_set(&f, RUN_EXIT_FAILED, "thread %d: %s", 2, "peer lost"));
    assert_false(run_fail_set(&f, RUN_EXIT_INVALID, "later"));
    assert_int_equal(run_fail_status(&f), RUN_EXIT_INVALID);
    assert_string_equal(run_fail_text(&f), "thread 2: peer lost");
    assert_false(run_fail_set(&f, RUN_EXIT_FAILED, "better"));
    assert_int_equal(run_fail_status(&f), RUN_EXIT_INVALID);
    assert_int_equal(run_worst(RUN_EXIT_FAILED, RUN_EXIT_OK), RUN_EXIT_FAILED);
}

/* run_fail_stop: err_msg() with its context, status 1, and the run asked to stop. */
static void test_fail_stop(void **state)
{
    (void)state;
    run_fail f;
    run_fail_init(&f);
    sig_reset();
    err_set("connection refused");
    assert_int_equal(run_fail_stop(&f, "connecting"), -1);
    assert_true(sig_stop_requested());
    assert_int_equal(run_fail_status(&f), RUN_EXIT_FAILED);
    assert_string_equal(run_fail_text(&f), "connecting: connection refused");
    sig_reset();
}

static run_fail shared_slot;

static void *fail_from_thread(void *arg)
{
    int n = (int)(intptr_t)arg;
    run_fail_set(&shared_slot, n == 3 ? RUN_EXIT_INVALID : RUN_EXIT_FAILED, "worker %d", n);
    return NULL;
}

/* Several threads failing into one slot at once: one text whole, the worst status. */
static void test_fail_threads(void **state)
{
    (void)state;
    run_fail_init(&shared_slot);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, fail_from_thread, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(run_fail_status(&shared_slot), RUN_EXIT_INVALID);
    int n = -1;
    assert_int_equal(sscanf(run_fail_text(&shared_slot), "worker %d", &n), 1);
    assert_true(n >= 0 && n < 4);
}

/* ---- run_setup ---------------------------------------------------------------------------- */

static void test_file_names(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(run_file_name(buf, sizeof(buf), "ConsStats", 2, 0), 0);
    assert_string_equal(buf, "ConsStats2.csv");
    assert_int_equal(run_file_name(buf, sizeof(buf), "tperf_stats", 1, 4242), 0);
    assert_string_equal(buf, "tperf_stats1_4242.csv");
    assert_int_equal(run_file_name(buf, 8, "ConsStats", 1, 0), -1);

    out_csv c;
    assert_int_equal(run_file_latency(&c, "", 1, 0, true), 0);
    assert_null(c.f); /* no -latencyFile: closed, rows ignored */
    const char *base = tmp_path("RunLat");
    assert_int_equal(run_file_latency(&c, base, 3, 0, true), 0);
    assert_true(c.with_type);
    assert_int_equal(out_csv_close(&c), 0);
    char path[700];
    snprintf(path, sizeof(path), "%s3.csv", base);
    char *text = slurp(path);
    assert_string_equal(text, "Message type, Send time, Receive time, Latency (usec)\n");
    free(text);
    unlink(path);
    assert_int_equal(run_file_stats(&c, "/nonexistent/dir/Stats", 1, 0, "h"), -1);
    assert_non_null(strstr(err_msg(), "/nonexistent/dir/Stats1.csv"));
}

static void test_stamps(void **state)
{
    (void)state;
    lra l;
    bool on = true;
    assert_int_equal(run_stamps(&l, &on, 1000, 0, 1000, 1), 0);
    assert_false(on);
    assert_int_equal(run_stamps(&l, &on, 0, 10, 1000, 1), 0);
    assert_false(on);
    assert_int_equal(run_stamps(&l, &on, 1000, OPT_RATE_ALL, 1000, 1), 0);
    assert_true(on);
    assert_int_equal(lra_at(&l, 0, 0), LRA_ALL);
    lra_free(&l);
    assert_int_equal(run_stamps(&l, &on, 1000, 10, 100, 1), 0);
    assert_true(on);
    lra_free(&l);
    assert_int_equal(run_stamps(&l, &on, 1000, 2000, 100, 1), -1);
}

static void test_json_summary(void **state)
{
    (void)state;
    const char *sum = tmp_path("RunSummary.out");
    json_object *doc = json_object_new_object();
    json_object_object_add(doc, "passed", json_object_new_boolean(1));
    assert_int_equal(run_json_summary(sum, doc), 0);
    const char *json = tmp_path("RunSummary.json");
    char *text = slurp(json);
    assert_non_null(strstr(text, "\"passed\": true"));
    free(text);
    unlink(json);
    assert_int_equal(run_json_summary(sum, NULL), -1);
    assert_int_equal(run_json_summary("/nonexistent/dir/S.out", json_object_new_object()), -1);
}

/* ---- run_col ------------------------------------------------------------------------------ */

/* The wait for a latency set: two ticks and 200 ms, never more than a second. */
static void test_col_wait_rule(void **state)
{
    (void)state;
    assert_int_equal(run_col_wait_ns(1000), 202 * 1000000LL);
    assert_int_equal(run_col_wait_ns(10), 400 * 1000000LL);
    assert_int_equal(run_col_wait_ns(1), CLK_NS_PER_SEC);
}

/* An interval's hand-over times out, the worker acknowledges it afterwards, records more and
 * ends: the totals hold the samples of both sets; several workers add up. */
static void test_col_late_handover(void **state)
{
    (void)state;
    static run_col c;
    static latbuf b[2];
    assert_int_equal(run_col_init(&c, 2, 2, 1000), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(latbuf_init(&b[i], 2), 0);
        run_col_watch(&c, i, &b[i], NULL);
    }
    lat_record(&latbuf_cur(&b[0])[1], 100 * 1000);
    assert_null(latbuf_collect(&b[0], 0)); /* the worker is busy: no answer in time */
    assert_true(latbuf_poll(&b[0]));       /* ... it acknowledges later */
    lat_record(&latbuf_cur(&b[0])[1], 300 * 1000);
    latbuf_close(&b[0]);
    lat_record(&latbuf_cur(&b[1])[1], 200 * 1000);
    latbuf_close(&b[1]);
    run_col_final(&c);
    stat_lat s;
    assert_int_equal(run_col_summary(&c, 0, 1, &s), 0);
    assert_int_equal(s.count, 2);
    assert_true(s.avg > 199.9 && s.avg < 200.1);
    assert_int_equal(run_col_summary(&c, -1, 1, &s), 0);
    assert_int_equal(s.count, 3);
    assert_int_equal(run_col_summary(&c, -1, 0, &s), 0);
    assert_int_equal(s.count, 0);
    run_col_free(&c);
    for (int i = 0; i < 2; i++)
        latbuf_free(&b[i]);
}

/* A worker that never answers does not hold the end up for long. */
static void test_col_silent_worker(void **state)
{
    (void)state;
    static run_col c;
    static latbuf b;
    assert_int_equal(run_col_init(&c, 1, 1, 1000), 0);
    assert_int_equal(latbuf_init(&b, 1), 0);
    run_col_watch(&c, 0, &b, NULL);
    int64_t t0 = clk_ns();
    run_col_final(&c);
    assert_true(clk_ns() - t0 < 2 * CLK_NS_PER_SEC);
    run_col_free(&c);
    latbuf_free(&b);
}

/* Samples go to the latency log with their type, TransportPerf's form has none; those the
 * ring refused are counted once each, not lost silently. */
static void test_col_latency_log(void **state)
{
    (void)state;
    static run_col c;
    latring ring[2];
    assert_int_equal(run_col_init(&c, 2, 1, 1000), 0);
    const char *base = tmp_path("RunColLat");
    assert_int_equal(run_file_latency(run_col_latlog(&c, 0), base, 1, 0, true), 0);
    assert_int_equal(run_file_latency(run_col_latlog(&c, 1), base, 2, 0, false), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(latring_init(&ring[i], 4), 0);
        run_col_watch(&c, i, NULL, &ring[i]);
    }
    for (int i = 0; i < 6; i++)
        latring_push(&ring[0], RUN_SAMPLE_UPD, 1000 + i, 1100 + i);
    latring_push(&ring[1], RUN_SAMPLE_GEN, 5000, 5400);
    run_col_drain_all(&c);
    assert_int_equal(c.t[0].dropped, 2);
    latring_push(&ring[0], RUN_SAMPLE_POST, 2000, 2300);
    latring_push(&ring[0], RUN_SAMPLE_GEN, 3000, 3050);
    run_col_drain_all(&c);
    assert_int_equal(c.t[0].dropped, 2);
    assert_null(run_col_take(&c, 0)); /* no hand-over watched */
    run_col_free(&c);
    char path[700];
    snprintf(path, sizeof(path), "%s1.csv", base);
    char *text = slurp(path);
    assert_non_null(strstr(text, "Upd, 1003, 1103, 100\n"));
    assert_non_null(strstr(text, "Pst, 2000, 2300, 300\n"));
    assert_non_null(strstr(text, "Gen, 3000, 3050, 50\n"));
    assert_null(strstr(text, "Upd, 1004,"));
    free(text);
    unlink(path);
    snprintf(path, sizeof(path), "%s2.csv", base);
    text = slurp(path);
    assert_string_equal(text, "Send Time, Receive Time, Latency(nsec)\n5000, 5400, 400\n");
    free(text);
    unlink(path);
    for (int i = 0; i < 2; i++)
        latring_free(&ring[i]);
}

/* A statistics row that cannot be written is reported once and the file closed. */
static void test_col_row_failure(void **state)
{
    (void)state;
    static run_col c;
    assert_int_equal(run_col_init(&c, 1, 1, 1000), 0);
    const char *base = tmp_path("RunColStats");
    assert_int_equal(run_file_stats(run_col_stats(&c, 0), base, 1, 0, "UTC, n"), 0);
    run_col_interval(&c);
    assert_true(c.wall > 0);
    run_col_row_done(&c, 0, out_csv_row(run_col_stats(&c, 0), "x, 1"));
    assert_non_null(run_col_stats(&c, 0)->f);
    err_set("disk full");
    run_col_row_done(&c, 0, -1);
    assert_null(run_col_stats(&c, 0)->f);
    assert_int_equal(out_csv_row(run_col_stats(&c, 0), "y, 2"), 0); /* ignored */
    run_col_free(&c);
    char path[700];
    snprintf(path, sizeof(path), "%s1.csv", base);
    char *text = slurp(path);
    assert_string_equal(text, "UTC, n\nx, 1\n");
    free(text);
    unlink(path);
}

/* ---- run_loop ----------------------------------------------------------------------------- */

/* Seconds on an absolute schedule, an interval every second one, the end after the run time. */
static void test_loop_schedule(void **state)
{
    (void)state;
    sig_reset();
    run_loop l;
    int64_t t0 = clk_ns();
    run_loop_init(&l, 2, 2);
    assert_int_equal(run_loop_next(&l), RUN_LOOP_SECOND);
    assert_int_equal(l.sec, 1);
    assert_int_equal(run_loop_next(&l), RUN_LOOP_INTERVAL);
    assert_int_equal(l.sec, 2);
    int64_t t = clk_ns() - t0;
    assert_true(t >= 2 * CLK_NS_PER_SEC - 1000000 && t < 3 * CLK_NS_PER_SEC);
    assert_int_equal(run_loop_next(&l), RUN_LOOP_END);
    assert_true(clk_ns() - t0 < 3 * CLK_NS_PER_SEC); /* no wait once the end has passed */
}

/* A stop request ends the wait within a step; no run time means none. */
static void test_loop_stop(void **state)
{
    (void)state;
    sig_reset();
    run_loop l;
    run_loop_init(&l, 5, -1);
    assert_false(l.has_end);
    sig_request_stop();
    int64_t t0 = clk_ns();
    assert_int_equal(run_loop_next(&l), RUN_LOOP_STOP);
    assert_true(clk_ns() - t0 < CLK_NS_PER_SEC / 2);
    sig_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_first_text_worst_status),
        cmocka_unit_test(test_fail_stop),
        cmocka_unit_test(test_fail_threads),
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_stamps),
        cmocka_unit_test(test_json_summary),
        cmocka_unit_test(test_col_wait_rule),
        cmocka_unit_test(test_col_late_handover),
        cmocka_unit_test(test_col_silent_worker),
        cmocka_unit_test(test_col_latency_log),
        cmocka_unit_test(test_col_row_failure),
        cmocka_unit_test(test_loop_schedule),
        cmocka_unit_test(test_loop_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
