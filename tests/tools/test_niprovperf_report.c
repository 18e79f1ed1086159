/* NIProvPerf reports: summary (single and several threads, failure line), console lines,
 * statistics rows and the JSON summary, following the original's format strings. */
#include "tools_test.h"

#include "run_setup.h"

#include "config.h"
#include "err.h"
#include "report.h"

TT_CONFIG_FROM(niprov_config, niprov_config_init, "NIProvPerf")

static void test_summary_one_thread(void **state)
{
    (void)state;
    niprov_config cfg;
    config_from(&cfg, (const char *const[]){NULL});
    pv_totals s = {.refreshes = 100000, .updates = 6100000};
    pv_result res = {.thread_count = 1, .thread = &s, .total = s};
    res.res = (stat_res){.samples = 12,
                         .cpu_max = 12.94,
                         .cpu_min = 0.0,
                         .cpu_avg = 1.08,
                         .mem_max = 69.46,
                         .mem_min = 69.44,
                         .mem_avg = 69.46};
    tt_capture con, file;
    tt_capture_open(&con);
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, con.f, file.f);
    niprov_report_summary(&rep, &cfg, &res);
    tt_capture_close(&con);
    tt_capture_close(&file);
    const char *want = "\n--- OVERALL SUMMARY ---\n\n"
                       "Overall Statistics: \n"
                       "  Images sent: 100000\n"
                       "  Updates sent: 6100000\n"
                       "  CPU/Memory samples: 12\n"
                       "  CPU Usage max (%): 12.94\n"
                       "  CPU Usage min (%): 0.00\n"
                       "  CPU Usage avg (%): 1.08\n"
                       "  Memory Usage max (MB): 69.46\n"
                       "  Memory Usage min (MB): 69.44\n"
                       "  Memory Usage avg (MB): 69.46\n";
    tt_assert_lines_equal(file.text, want);
    char con_want[1024];
    snprintf(con_want, sizeof(con_want), "%s\n\n", want);
    tt_assert_lines_equal(con.text, con_want);
    tt_capture_free(&con);
    tt_capture_free(&file);
}

static void test_summary_threads_failed(void **state)
{
    (void)state;
    niprov_config cfg;
    config_from(&cfg, (const char *const[]){"-threads", "0,0", "-updateRate", "1000", NULL});
    pv_totals t[2] = {{.refreshes = 50, .updates = 10000, .conn_secs = 10.0},
                      {.refreshes = 50, .updates = 5000, .conn_secs = 10.0, .out_of_bufs = 3}};
    pv_result res = {.thread_count = 2, .thread = t, .failed = true};
    res.total =
        (pv_totals){.refreshes = 100, .updates = 15000, .conn_secs = 20.0, .out_of_bufs = 3};
    tt_capture con, file;
    tt_capture_open(&con);
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, con.f, file.f);
    niprov_report_summary(&rep, &cfg, &res);
    tt_capture_close(&con);
    tt_capture_close(&file);
    char *got = tt_drop_ours(file.text, NULL);
    tt_assert_lines_equal(got, "\n--- THREAD 1 SUMMARY ---\n\n"
                               "Overall Statistics: \n"
                               "  Images sent: 50\n"
                               "  Updates sent: 10000\n\n"
                               "\n--- THREAD 2 SUMMARY ---\n\n"
                               "Overall Statistics: \n"
                               "  Images sent: 50\n"
                               "  Updates sent: 5000\n\n"
                               "\n--- OVERALL SUMMARY ---\n\n"
                               "Overall Statistics: \n"
                               "  Images sent: 100\n"
                               "  Updates sent: 15000\n"
                               "TEST FAILED. An error occurred during this test.\n");
    free(got);
    /* Ours: per-connection achieved rate, and the warning when short of the offered one. */
    assert_non_null(strstr(file.text, "  Updates sent: 10000\n"
                                      "  Offered update rate: 1000\n"
                                      "  Achieved update rate: 1000\n\n"));
    assert_non_null(strstr(file.text, "  Updates sent: 5000\n"
                                      "  Updates stopped for lack of output buffers: 3\n"
                                      "  Offered update rate: 1000\n"
                                      "  Achieved update rate: 500\n"
                                      "  Warning: achieved update rate is 50.00% of the offered "
                                      "rate (below 99%).\n\n"));
    /* On the console, the two blank lines come before the failure line. */
    assert_non_null(strstr(con.text, "(below 99%).\n\n\nTEST FAILED. An error occurred during "
                                     "this test.\n"));
    tt_capture_free(&con);
    tt_capture_free(&file);
}

static void test_console(void **state)
{
    (void)state;
    pv_interval a = {.refreshes = 100000,
                     .refreshes_total = 100000,
                     .updates = 500000,
                     .cpu = 12.94,
                     .mem_mb = 69.46};
    pv_interval b = {.updates = 500000,
                     .closes = 2,
                     .out_of_bufs = 5,
                     .msgs_packed = 300,
                     .buffers_sent = 100,
                     .cpu = 0.5,
                     .mem_mb = 69.44};
    b.encode = (stat_lat){.count = 5, .avg = 1.25, .stddev = 0.5, .max = 2.0, .min = 1.0};
    tt_capture con;
    tt_capture_open(&con);
    niprov_report_interval(con.f, 5, 1, 1, 5, &a);
    niprov_report_interval(con.f, 10, 2, 2, 5, &b);
    tt_capture_close(&con);
    tt_assert_lines_equal(con.text, "005: UpdRate:   100000, CPU:  12.94%, Mem:  69.46MB\n"
                                    "  - Sent 100000 images (total: 100000)\n"
                                    "010: Thread 2:\n"
                                    "  UpdRate:   100000, CPU:   0.50%, Mem:  69.44MB\n"
                                    "  - Received 2 closes.\n"
                                    "  - Stopped 5 updates due to lack of output buffers.\n"
                                    "Update Encode Time (usec): Avg:   1.250 StdDev:   0.500 "
                                    "Max:   2.000 Min:   1.000, Msgs: 5\n"
                                    "  - Approx. avg msgs per pack: 3\n");
    tt_capture_free(&con);
}

static void test_stats_file(void **state)
{
    (void)state;
    niprov_config cfg;
    const char *base = tt_tmp("NIProvStats");
    config_from(&cfg, (const char *const[]){"-statsFile", base, NULL});
    out_csv csv;
    assert_int_equal(niprov_stats_open(&csv, &cfg.pv, 1), 0);
    pv_interval iv = {.refreshes = 100000, .updates = 500000, .cpu = 12.94, .mem_mb = 69.46};
    assert_int_equal(niprov_report_stats_row(&csv, (time_t)1352770485, &iv), 0);
    assert_int_equal(out_csv_close(&csv), 0);
    char path[600];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.pv.opts.stats_file, 1, 0), 0);
    char *text = tt_file(path);
    assert_string_equal(text, "UTC, Images sent, Updates sent, CPU usage (%), Memory (MB)\n"
                              "2012-11-13 01:34:45, 100000, 500000, 12.94, 69.46\n");
    free(text);
    unlink(path);
}

static void test_json(void **state)
{
    (void)state;
    niprov_config cfg;
    config_from(&cfg, (const char *const[]){NULL});
    pv_totals s = {.refreshes = 5, .updates = 900000, .conn_secs = 10.0};
    pv_result res = {.thread_count = 1, .thread = &s, .total = s, .failed = true};
    json_object *doc = niprov_report_json(&cfg, &res, NULL, 7, time(NULL));
    const char *path = tt_tmp("NIProvSummary.json");
    assert_int_equal(out_json_write(path, doc), 0);
    json_object_put(doc);
    json_object *back = json_object_from_file(path);
    json_object *v, *results, *overall;
    assert_true(json_object_object_get_ex(back, "tool", &v));
    assert_string_equal(json_object_get_string(v), "NIProvPerf");
    assert_true(json_object_object_get_ex(back, "inputs", &v));
    assert_true(json_object_object_get_ex(back, "results", &results));
    assert_true(json_object_object_get_ex(results, "passed", &v));
    assert_false(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(results, "overall", &overall));
    assert_true(json_object_object_get_ex(overall, "achieved_update_rate", &v));
    assert_true(json_object_get_double(v) == 90000.0);
    assert_true(json_object_object_get_ex(overall, "images_sent", &v));
    assert_int_equal(json_object_get_int(v), 5);
    json_object_put(back);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_one_thread),
        cmocka_unit_test(test_summary_threads_failed),
        cmocka_unit_test(test_console),
        cmocka_unit_test(test_stats_file),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
