/* ProvPerf reports: the summary rebuilt from the numbers of the vectors equals the original's
 * file and console output; THREAD blocks, generic messages, posts, console lines, statistics
 * rows, latency log and JSON summary. */
#include "tools_test.h"

#include "run_setup.h"

#include "config.h"
#include "err.h"
#include "report.h"

#define SEC 1000000000ull

TT_CONFIG_FROM(prov_config, prov_config_init, "ProvPerf")

static stat_lat lat(uint64_t count, double avg, double sd, double max, double min)
{
    stat_lat l = {.count = count, .avg = avg, .stddev = sd, .max = max, .min = min};
    l.p50 = avg;
    l.p90 = l.p99 = l.p999 = l.p9999 = max;
    return l;
}

/* The resource block of a summary text, read back from its lines. */
static stat_res res_from(const char *text)
{
    stat_res r;
    r.samples = (uint64_t)tt_num(text, "  CPU/Memory samples: ");
    r.cpu_max = tt_num(text, "  CPU Usage max (%): ");
    r.cpu_min = tt_num(text, "  CPU Usage min (%): ");
    r.cpu_avg = tt_num(text, "  CPU Usage avg (%): ");
    r.mem_max = tt_num(text, "  Memory Usage max (MB): ");
    r.mem_min = tt_num(text, "  Memory Usage min (MB): ");
    r.mem_avg = tt_num(text, "  Memory Usage avg (MB): ");
    return r;
}

static void test_summaries_match_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *extra[7];
    } vectors[] = {
        {"consprov_default", {"-updateRate", "10"}},
        {"consprov_tcpdelay", {"-updateRate", "10", "-tcpDelay"}},
        {"consprov_pack", {"-updateRate", "100", "-maxPackCount", "10", "-packBufSize", "6000"}},
        {"consprov_zlib", {"-updateRate", "10", "-compressionType", "1"}},
        {"consprov_lz4", {"-updateRate", "10", "-compressionType", "2"}},
    };
    for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
        char summary[128], rel[256];
        snprintf(summary, sizeof(summary), "%s.ProvSummary.out", vectors[v].name);
        const char *args[20] = {"-runTime",     "12",    "-tickRate",  "10",
                                "-summaryFile", summary, "-statsFile", "capstats"};
        int n = 8;
        for (int k = 0; vectors[v].extra[k]; k++)
            args[n++] = vectors[v].extra[k];
        args[n] = NULL;
        prov_config cfg;
        config_from(&cfg, args);

        snprintf(rel, sizeof(rel), "%s/%s.ProvSummary.out", vectors[v].name, vectors[v].name);
        char *want = tt_vector(rel);
        char *overall = tt_section(want, "--- OVERALL SUMMARY ---", NULL);
        pv_totals s = {0};
        s.requests = (uint64_t)tt_num(overall, "  Image requests received: ");
        s.refreshes = s.requests;
        s.updates = (uint64_t)tt_num(overall, "  Updates sent: ");
        pv_result res = {.thread_count = 1, .thread = &s, .total = s, .now_ns = 20 * SEC};
        res.res = res_from(overall);

        tt_capture con, file;
        tt_capture_open(&con);
        tt_capture_open(&file);
        out_report rep;
        out_report_init(&rep, con.f, file.f);
        prov_config_print(&cfg, NULL, &rep);
        prov_report_summary(&rep, &cfg, &res);
        tt_capture_close(&con);
        tt_capture_close(&file);
        char *got = tt_drop_ours(file.text, NULL);
        tt_assert_lines_equal(got, want);
        free(got);

        /* The console ends the same way, with ProvPerf's two blank lines before "Exiting.". */
        snprintf(rel, sizeof(rel), "%s/%s.prov.stdout", vectors[v].name, vectors[v].name);
        char *console = tt_vector(rel);
        char *want_tail = tt_section(console, "\n--- OVERALL SUMMARY ---", "Exiting.\n");
        char *got_all = tt_drop_ours(con.text, NULL);
        char *got_tail = tt_section(got_all, "\n--- OVERALL SUMMARY ---", NULL);
        tt_assert_lines_equal(got_tail, want_tail);
        free(console);
        free(want_tail);
        free(got_all);
        free(got_tail);
        free(overall);
        free(want);
        tt_capture_free(&con);
        tt_capture_free(&file);
    }
}

static void test_threads_genmsgs_posts(void **state)
{
    (void)state;
    prov_config cfg;
    config_from(&cfg, (const char *const[]){"-threads", "0,0", "-tickRate", "10", "-updateRate",
                                            "100", "-genericMsgRate", "20",
                                            "-genericMsgLatencyRate", "all", NULL});
    pv_totals t[2];
    memset(t, 0, sizeof(t));
    for (int i = 0; i < 2; i++) {
        t[i].requests = 5;
        t[i].refreshes = 5;
        t[i].updates = 1000;
        t[i].genmsgs_sent = 200;
        t[i].genmsgs_recv = 100;
        t[i].genmsg_lat_sent = 200;
        t[i].first_genmsg_sent_ns = 10 * SEC;
        t[i].first_genmsg_recv_ns = 10 * SEC;
        t[i].genmsg_lat = lat(100, 80.0, 8.0, 120.0, 60.0);
        t[i].conn_secs = 10.0;
    }
    t[0].posts = 30;
    t[1].inactive_ns = 15 * SEC; /* its connection closed 5 s after the first generic message */
    t[1].out_of_bufs = 12;
    t[1].updates = 500;
    pv_result res = {.thread_count = 2, .thread = t, .now_ns = 20 * SEC};
    res.total = t[0];
    res.total.requests = 10;
    res.total.refreshes = 10;
    res.total.updates = 1500;
    res.total.genmsgs_sent = 400;
    res.total.genmsgs_recv = 200;
    res.total.genmsg_lat_sent = 400;
    res.total.genmsg_lat = lat(200, 80.0, 8.0, 120.0, 60.0);
    res.total.out_of_bufs = 12;
    res.total.conn_secs = 20.0;

    tt_capture con, file;
    tt_capture_open(&con);
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, con.f, file.f);
    prov_report_summary(&rep, &cfg, &res);
    tt_capture_close(&con);
    tt_capture_close(&file);
    char *got = tt_drop_ours(file.text, NULL);
    const char *genmsg = "  GenMsg latency avg (usec): 80.0\n"
                         "  GenMsg latency std dev (usec): 8.0\n"
                         "  GenMsg latency max (usec): 120.0\n"
                         "  GenMsg latency min (usec): 60.0\n";
    char want[4096];
    snprintf(want, sizeof(want),
             "\n--- THREAD 1 SUMMARY ---\n\n"
             "Overall Statistics: \n%s"
             "  GenMsgs sent: 200\n"
             "  GenMsgs received: 100\n"
             "  GenMsg latencies sent: 200\n"
             "  GenMsg latencies received: 100\n"
             "  Avg GenMsg send rate: 20\n"
             "  Avg GenMsg receive rate: 10\n"
             "  Avg GenMsg latency send rate: 20\n"
             "  Avg GenMsg latency receive rate: 10\n"
             "  Image requests received: 5\n"
             "  Updates sent: 1000\n"
             "  Posts received: 30\n"
             "  Posts reflected: 30\n"
             "\n--- THREAD 2 SUMMARY ---\n\n"
             "Overall Statistics: \n%s"
             "  GenMsgs sent: 200\n"
             "  GenMsgs received: 100\n"
             "  GenMsg latencies sent: 200\n"
             "  GenMsg latencies received: 100\n"
             "  Avg GenMsg send rate: 40\n"
             "  Avg GenMsg receive rate: 20\n"
             "  Avg GenMsg latency send rate: 40\n"
             "  Avg GenMsg latency receive rate: 20\n"
             "  Image requests received: 5\n"
             "  Updates sent: 500\n"
             "\n--- OVERALL SUMMARY ---\n\n"
             "Overall Statistics: \n%s"
             "  GenMsgs sent: 400\n"
             "  GenMsgs received: 200\n"
             "  GenMsg latencies sent: 400\n"
             "  GenMsg latencies received: 200\n"
             "  Avg GenMsg send rate: 40\n"
             "  Avg GenMsg receive rate: 20\n"
             "  Avg GenMsg latency send rate: 40\n"
             "  Avg GenMsg latency receive rate: 20\n"
             "  Image requests received: 10\n"
             "  Updates sent: 1500\n"
             "  Posts received: 30\n"
             "  Posts reflected: 30\n",
             genmsg, genmsg, genmsg);
    tt_assert_lines_equal(got, want);
    free(got);
    /* Ours: out-of-buffer count and achieved rates per connection after each block. */
    assert_non_null(strstr(file.text, "  Posts reflected: 30\n"
                                      "  Offered update rate: 100\n"
                                      "  Achieved update rate: 100\n"
                                      "  Offered GenMsg rate: 20\n"
                                      "  Achieved GenMsg rate: 20\n"
                                      "\n--- THREAD 2"));
    assert_non_null(strstr(file.text, "  Updates sent: 500\n"
                                      "  Updates stopped for lack of output buffers: 12\n"
                                      "  Offered update rate: 100\n"
                                      "  Achieved update rate: 50\n"
                                      "  Warning: achieved update rate is 50.00% of the offered "
                                      "rate (below 99%).\n"));
    assert_non_null(strstr(file.text, "  Achieved update rate: 75\n"));
    /* The file ends with the last block line; the console has two blank lines more. */
    assert_true(strlen(con.text) == strlen(file.text) + 2);
    assert_string_equal(con.text + strlen(file.text), "\n\n");
    tt_capture_free(&con);
    tt_capture_free(&file);
}

static void test_console_matches_vector(void **state)
{
    (void)state;
    pv_interval a = {0}, b = {0};
    a.updates = 34;
    a.requests = a.refreshes = 5;
    a.requests_total = a.refreshes_total = 5;
    a.cpu = 0.65;
    a.mem_mb = 65.73;
    b.updates = 22;
    b.requests_total = b.refreshes_total = 5;
    b.cpu = 0.15;
    b.mem_mb = 64.61;
    tt_capture con;
    tt_capture_open(&con);
    prov_report_interval(con.f, 5, 1, 1, 5, &a);
    prov_report_interval(con.f, 10, 1, 1, 5, &b);
    tt_capture_close(&con);
    char *text = tt_vector("consprov_default/consprov_default.prov.stdout");
    char *first = tt_section(text, "005: UpdRate:", "Channel Closed:");
    char *second = tt_section(text, "010: UpdRate:", "\nRun time");
    char want[512];
    snprintf(want, sizeof(want), "%s%s", first, second);
    tt_assert_lines_equal(con.text, want);
    free(first);
    free(second);
    free(text);
    tt_capture_free(&con);
}

static void test_console_optional_lines(void **state)
{
    (void)state;
    pv_interval iv = {0};
    iv.updates = 500000;
    iv.posts = 7;
    iv.genmsgs_sent = 10;
    iv.genmsgs_recv = 9;
    iv.genmsg_lat_sent = 2;
    iv.genmsg_lat = lat(3, 80.0, 8.0, 120.0, 60.0);
    iv.closes = 4;
    iv.out_of_bufs = 11;
    iv.encode = lat(10, 2.5, 0.5, 4.0, 2.0);
    iv.msgs_packed = 1000;
    iv.buffers_sent = 101;
    iv.cpu = 12.5;
    iv.mem_mb = 100.0;
    tt_capture con;
    tt_capture_open(&con);
    prov_report_interval(con.f, 15, 3, 4, 5, &iv);
    tt_capture_close(&con);
    char *got = tt_drop_ours(con.text, NULL);
    tt_assert_lines_equal(
        got, "015: Thread 3:\n"
             "  UpdRate:   100000, CPU:  12.50%, Mem: 100.00MB\n"
             "  Posting: received 7, reflected 7\n"
             "  GenMsgs: sent 10, received 9, latencies sent 2, latencies received 3\n"
             "  GenMsgLat(usec): Avg:  80.0 StdDev:   8.0 Max:   120 Min:    60, Msgs: 3\n"
             "  - Received 4 closes.\n"
             "  - Stopped 11 updates due to lack of output buffers.\n"
             "Update Encode Time (usec): Avg:   2.500 StdDev:   0.500 Max:   4.000 Min:   "
             "2.000, Msgs: 10\n"
             "  - Approx. avg msgs per pack: 10\n");
    free(got);
    tt_capture_free(&con);
}

static void test_stats_and_latency_files(void **state)
{
    (void)state;
    prov_config cfg;
    const char *base = tt_tmp("ProvStats");
    char lbase[600];
    snprintf(lbase, sizeof(lbase), "%s-lat", base);
    config_from(&cfg, (const char *const[]){"-statsFile", base, "-latencyFile", lbase, NULL});
    out_csv csv, log;
    assert_int_equal(prov_stats_open(&csv, &cfg.pv, 2), 0);
    assert_int_equal(run_file_latency(&log, cfg.pv.opts.latency_file, 2, 0, true), 0);
    pv_interval iv = {0};
    iv.requests = 49664;
    iv.refreshes = 49664;
    iv.updates = 185670;
    iv.cpu = 2.20;
    iv.mem_mb = 24.76;
    assert_int_equal(prov_report_stats_row(&csv, (time_t)1352770485, &iv), 0);
    assert_int_equal(out_latlog_row(&log, "Gen", 1000, 1080), 0);
    assert_int_equal(out_csv_close(&csv), 0);
    assert_int_equal(out_csv_close(&log), 0);

    char path[700];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.pv.opts.stats_file, 2, 0), 0);
    char *text = tt_file(path);
    const char *want =
        "UTC, Requests received, Images sent, Updates sent, Posts reflected, GenMsgs sent, "
        "GenMsgs received, GenMSg Latencies sent, GenMsg Latencies received, GenMsg Latency avg "
        "(usec), GenMsg Latency std dev (usec), GenMsg Latency max (usec), GenMsg Latency min "
        "(usec), CPU usage (%), Memory (MB), GenMsg Latency p50 (usec), GenMsg Latency p90 "
        "(usec), GenMsg Latency p99 (usec), GenMsg Latency p99.9 (usec), GenMsg Latency p99.99 "
        "(usec), Sched GenMsg Latency avg (usec), Sched GenMsg Latency p99 (usec), Sched GenMsg "
        "Latency max (usec)\n"
        "2012-11-13 01:34:45, 49664, 49664, 185670, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 2.20, "
        "24.76, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0\n";
    assert_string_equal(text, want);
    free(text);
    unlink(path);
    assert_int_equal(run_file_name(path, sizeof(path), cfg.pv.opts.latency_file, 2, 0), 0);
    text = tt_file(path);
    assert_string_equal(text, "Message type, Send time, Receive time, Latency (usec)\n"
                              "Gen, 1000, 1080, 80\n");
    free(text);
    unlink(path);

    config_from(&cfg, (const char *const[]){NULL});
    assert_int_equal(run_file_latency(&log, cfg.pv.opts.latency_file, 1, 0, true), 0);
    assert_null(log.f);
    assert_int_equal(run_file_name(path, sizeof(path), cfg.pv.opts.stats_file, 1, 0), 0);
    assert_string_equal(path, "ProvStats1.csv");
}

static void test_json_summary(void **state)
{
    (void)state;
    prov_config cfg;
    config_from(&cfg, (const char *const[]){"-updateRate", "10000", NULL});
    pv_totals s = {.requests = 5, .refreshes = 5, .updates = 99000, .conn_secs = 10.0};
    s.genmsg_lat = lat(4, 80, 8, 120, 60);
    pv_result res = {.thread_count = 1, .thread = &s, .total = s, .now_ns = 20 * SEC};
    res.res.samples = 2;
    out_host h = {.name = "vm", .cores = 2};
    json_object *doc = prov_report_json(&cfg, &res, &h, 42, (time_t)1352770485);
    const char *path = tt_tmp("ProvSummary.json");
    assert_int_equal(out_json_write(path, doc), 0);
    json_object_put(doc);
    json_object *back = json_object_from_file(path);
    assert_non_null(back);
    json_object *v, *results, *overall, *inputs;
    assert_true(json_object_object_get_ex(back, "tool", &v));
    assert_string_equal(json_object_get_string(v), "ProvPerf");
    assert_true(json_object_object_get_ex(back, "inputs", &inputs));
    assert_true(json_object_object_get_ex(inputs, "updateRate", &v));
    assert_int_equal(json_object_get_int(v), 10000);
    assert_true(json_object_object_get_ex(back, "results", &results));
    assert_true(json_object_object_get_ex(results, "overall", &overall));
    assert_true(json_object_object_get_ex(overall, "updates_sent", &v));
    assert_int_equal(json_object_get_int(v), 99000);
    assert_true(json_object_object_get_ex(overall, "achieved_update_rate", &v));
    assert_true(json_object_get_double(v) == 9900.0);
    assert_true(json_object_object_get_ex(overall, "genmsg_latency", &v));
    assert_true(json_object_object_get_ex(results, "threads", &v));
    assert_int_equal(json_object_array_length(v), 1);
    assert_true(json_object_object_get_ex(results, "resources", &v));
    json_object_put(back);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summaries_match_vectors),
        cmocka_unit_test(test_threads_genmsgs_posts),
        cmocka_unit_test(test_console_matches_vector),
        cmocka_unit_test(test_console_optional_lines),
        cmocka_unit_test(test_stats_and_latency_files),
        cmocka_unit_test(test_json_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
