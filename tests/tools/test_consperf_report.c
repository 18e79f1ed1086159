/* ConsPerf reports: the summary rebuilt from the numbers of the vectors equals the original's
 * file line by line; console lines, statistics rows, the latency log and the JSON summary. */
#include "tools_test.h"

#include "run_setup.h"

#include "config.h"
#include "err.h"
#include "report.h"

#define SEC 1000000000ull
#define MS 1000000ull
#define US 1000ull

TT_CONFIG_FROM(cons_config, cons_config_init, "ConsPerf")

static stat_lat lat(uint64_t count, double avg, double sd, double max, double min)
{
    stat_lat l = {.count = count, .avg = avg, .stddev = sd, .max = max, .min = min};
    l.p50 = avg;
    l.p90 = (avg + max) / 2;
    l.p99 = l.p999 = l.p9999 = max;
    return l;
}

/* The numbers one vector's ConsSummary.out shows, and the times that produce its durations. */
typedef struct cons_vector {
    const char *name;
    const char *extra[3];
    uint64_t image_us;  /* image retrieval time */
    uint64_t steady_us; /* last image .. summary */
    uint64_t updates;
    double avg, sd, max, min;
    double cpu, mem;
} cons_vector;

static const cons_vector vectors[] = {
    {"consprov_default", {NULL}, 59700, 5696200, 56, 184.6, 48.7, 283.0, 125.0, 7.94, 57.56},
    {"consprov_lz4",
     {"-compressionType", "2"},
     65800,
     5719300,
     57,
     166.3,
     43.2,
     309.0,
     120.0,
     7.50,
     57.71},
    {"consprov_pack", {NULL}, 63200, 5727900, 570, 184.6, 62.1, 344.0, 119.0, 7.65, 57.68},
    {"consprov_tcpdelay",
     {"-tcpDelay"},
     61000,
     5702100,
     57,
     153.8,
     15.5,
     205.0,
     130.0,
     8.18,
     57.75},
    {"consprov_zlib",
     {"-compressionType", "1"},
     64400,
     5700300,
     57,
     156.8,
     16.0,
     197.0,
     128.0,
     7.95,
     57.83},
};

static void build_result(const cons_vector *v, cons_stats *s, cons_result *res)
{
    memset(s, 0, sizeof(*s));
    memset(res, 0, sizeof(*res));
    const uint64_t start = 1000 * SEC;
    s->item_count = 5;
    s->image_start_ns = start;
    s->image_end_ns = start + v->image_us * US;
    s->first_update_ns = start + 150 * MS;
    s->requests = 5;
    s->refreshes = 5;
    s->steady_updates = v->updates;
    s->steady_lat = lat(46, v->avg, v->sd, v->max, v->min);
    s->overall_lat = s->steady_lat;
    res->thread_count = 1;
    res->thread = s;
    res->total = *s;
    res->res = (stat_res){.samples = 1,
                          .cpu_max = v->cpu,
                          .cpu_min = v->cpu,
                          .cpu_avg = v->cpu,
                          .mem_max = v->mem,
                          .mem_min = v->mem,
                          .mem_avg = v->mem};
    res->now_ns = s->image_end_ns + v->steady_us * US;
}

static void test_summary_files_match_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        const cons_vector *v = &vectors[i];
        char summary[128], rel[256];
        snprintf(summary, sizeof(summary), "%s.ConsSummary.out", v->name);
        const char *args[12] = {"-itemCount",   "5",     "-steadyStateTime", "5",
                                "-summaryFile", summary, "-statsFile",       "capstats"};
        int n = 8;
        for (int k = 0; v->extra[k]; k++)
            args[n++] = v->extra[k];
        args[n] = NULL;
        cons_config cfg;
        config_from(&cfg, args);

        cons_stats s;
        cons_result res;
        build_result(v, &s, &res);

        tt_capture con, file;
        tt_capture_open(&con);
        tt_capture_open(&file);
        out_report rep;
        out_report_init(&rep, con.f, file.f);
        cons_config_print(&cfg, NULL, &rep);
        bool failed = cons_report_summary(&rep, &cfg, &res);
        tt_capture_close(&con);
        tt_capture_close(&file);
        assert_false(failed);
        assert_string_equal(con.text, file.text);

        const char *also[] = {"      Max Output Buffers: ", "    Expected Update Rate: ", NULL};
        char *got = tt_drop_ours(file.text, also);
        snprintf(rel, sizeof(rel), "%s/%s.ConsSummary.out", v->name, v->name);
        char *want = tt_vector(rel);
        tt_assert_lines_equal(got, want);
        free(got);
        free(want);

        /* The console shows the same OVERALL SUMMARY after "Shutting down." */
        snprintf(rel, sizeof(rel), "%s/%s.cons.stdout", v->name, v->name);
        char *stdout_text = tt_vector(rel);
        char *want_tail = tt_section(stdout_text, "\n--- OVERALL SUMMARY ---", NULL);
        char *got_all = tt_drop_ours(con.text, also);
        char *got_tail = tt_section(got_all, "\n--- OVERALL SUMMARY ---", NULL);
        tt_assert_lines_equal(got_tail, want_tail);
        free(stdout_text);
        free(want_tail);
        free(got_all);
        free(got_tail);
        tt_capture_free(&con);
        tt_capture_free(&file);
    }
}

static void test_percentiles_follow_each_block(void **state)
{
    (void)state;
    cons_config cfg;
    config_from(&cfg, (const char *const[]){"-itemCount", "5", NULL});
    cons_stats s;
    cons_result res;
    build_result(&vectors[0], &s, &res);
    res.total.steady_sched = lat(46, 190.0, 50.0, 2300.0, 126.0);
    tt_capture file;
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, NULL, file.f);
    cons_report_summary(&rep, &cfg, &res);
    tt_capture_close(&file);
    const char *steady = strstr(file.text, "Steady State Statistics:\n");
    assert_non_null(steady);
    const char *want = "Steady State Statistics:\n"
                       "  Sampling duration (sec): 5.696\n"
                       "  Latency avg (usec): 184.6\n"
                       "  Latency std dev (usec): 48.7\n"
                       "  Latency max (usec): 283.0\n"
                       "  Latency min (usec): 125.0\n"
                       "  Latency p50 (usec): 184.6\n"
                       "  Latency p90 (usec): 233.8\n"
                       "  Latency p99 (usec): 283.0 (only 46 samples: this is the maximum)\n"
                       "  Latency p99.9 (usec): 283.0 (only 46 samples: this is the maximum)\n"
                       "  Latency p99.99 (usec): 283.0 (only 46 samples: this is the maximum)\n"
                       "  Sched latency avg (usec): 190.0\n"
                       "  Sched latency std dev (usec): 50.0\n"
                       "  Sched latency max (usec): 2300.0\n"
                       "  Sched latency min (usec): 126.0\n"
                       "  Sched latency p50 (usec): 190.0\n"
                       "  Sched latency p90 (usec): 1245.0\n"
                       "  Sched latency p99 (usec): 2300.0 (only 46 samples: this is the maximum)\n"
                       "  Sched latency p99.9 (usec): 2300.0 (only 46 samples: this is the "
                       "maximum)\n"
                       "  Sched latency p99.99 (usec): 2300.0 (only 46 samples: this is the "
                       "maximum)\n"
                       "  Avg update rate: 10\n\n"
                       "Overall Statistics: \n";
    assert_true(strncmp(steady, want, strlen(want)) == 0);
    /* The overall view has no sched lines since none were measured there. */
    assert_null(strstr(strstr(steady, "Overall Statistics"), "Sched"));
    tt_capture_free(&file);
}

static void test_two_clients_posting_genmsgs_failure(void **state)
{
    (void)state;
    cons_config cfg;
    config_from(&cfg, (const char *const[]){"-itemCount", "10", "-threads", "0,0", "-tickRate",
                                            "10", "-requestRate", "10", "-postingRate", "100",
                                            "-postingLatencyRate", "10", "-genericMsgRate", "20",
                                            "-genericMsgLatencyRate", "5", NULL});
    cons_stats t[2];
    memset(t, 0, sizeof(t));
    const uint64_t start = 50 * SEC;
    for (int i = 0; i < 2; i++) {
        t[i].item_count = 5;
        t[i].image_start_ns = start;
        t[i].first_update_ns = start + SEC;
        t[i].requests = 5;
        t[i].refreshes = 5;
        t[i].startup_updates = 10;
        t[i].steady_updates = 100;
        t[i].startup_lat = lat(3, 100, 10, 120, 90);
        t[i].overall_lat = lat(13, 100, 10, 120, 90);
        t[i].steady_lat = lat(10, 100, 10, 120, 90);
        t[i].post_lat = lat(10, 300, 30, 400, 250);
        t[i].genmsg_lat = lat(5, 50, 5, 60, 40);
        t[i].first_genmsg_sent_ns = start + 2 * SEC;
        t[i].first_genmsg_recv_ns = start + 2 * SEC;
        t[i].genmsgs_sent = 200;
        t[i].genmsgs_recv = 180;
        t[i].genmsg_lat_sent = 50;
    }
    /* Client 1 got its images at 2 s and posted at the offered rate for 10 s; client 2 never
     * got all its images. */
    t[0].image_end_ns = start + 2 * SEC;
    t[0].posts_sent = 1000;
    t[1].posts_sent = 0;
    t[1].steady_updates = 0;
    t[1].steady_lat = (stat_lat){0};
    snprintf(t[1].error, sizeof(t[1].error), "Failed to receive all images within 5 seconds.");

    cons_result res = {.thread_count = 2, .thread = t, .now_ns = start + 12 * SEC};
    res.total = t[0];
    res.total.item_count = 10;
    res.total.image_end_ns = 0;
    res.total.requests = 10;
    res.total.refreshes = 9;
    res.total.posts_sent = 1000;
    res.total.genmsgs_sent = 400;
    res.total.genmsgs_recv = 360;
    res.total.genmsg_lat_sent = 100;
    res.total.genmsg_lat = lat(10, 50, 5, 60, 40);

    tt_capture file;
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, NULL, file.f);
    assert_true(cons_report_summary(&rep, &cfg, &res));
    tt_capture_close(&file);
    char *got = tt_drop_ours(file.text, NULL);
    const char *want = "\n--- CLIENT 1 SUMMARY ---\n\n"
                       "Startup State Statistics:\n"
                       "  Sampling duration (sec): 2.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  Avg update rate: 10\n"
                       "\nSteady State Statistics:\n"
                       "  Sampling duration (sec): 10.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  Posting latency avg (usec): 300.0\n"
                       "  Posting latency std dev (usec): 30.0\n"
                       "  Posting latency max (usec): 400.0\n"
                       "  Posting latency min (usec): 250.0\n"
                       "  Avg update rate: 10\n"
                       "\nOverall Statistics: \n"
                       "  Sampling duration (sec): 12.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  GenMsg latency avg (usec): 50.0\n"
                       "  GenMsg latency std dev (usec): 5.0\n"
                       "  GenMsg latency max (usec): 60.0\n"
                       "  GenMsg latency min (usec): 40.0\n"
                       "\nTest Statistics:\n"
                       "  Requests sent: 5\n"
                       "  Refreshes received: 5\n"
                       "  Updates received: 110\n"
                       "  Posts sent: 1000\n"
                       "  GenMsgs sent: 200\n"
                       "  GenMsgs received: 180\n"
                       "  GenMsg latencies sent: 50\n"
                       "  GenMsg latencies received: 5\n"
                       "  Image retrieval time (sec): 2.000\n"
                       "  Avg image rate: 2\n"
                       "  Avg update rate: 10\n"
                       "  Avg posting rate: 100\n"
                       "  Avg GenMsg send rate: 20\n"
                       "  Avg GenMsg receive rate: 18\n"
                       "  Avg GenMsg latency send rate: 5\n"
                       "  Avg GenMsg latency receive rate: 0\n"
                       "\n--- CLIENT 2 SUMMARY ---\n\n"
                       "Startup State Statistics:\n"
                       "  Sampling duration (sec): 12.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  Avg update rate: 1\n"
                       "\nSteady State Statistics:\n"
                       "  Steady state was not reached during this test.\n\n"
                       "\nOverall Statistics: \n"
                       "  Sampling duration (sec): 12.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  GenMsg latency avg (usec): 50.0\n"
                       "  GenMsg latency std dev (usec): 5.0\n"
                       "  GenMsg latency max (usec): 60.0\n"
                       "  GenMsg latency min (usec): 40.0\n"
                       "\nTest Statistics:\n"
                       "  Requests sent: 5\n"
                       "  Refreshes received: 5\n"
                       "  Updates received: 10\n"
                       "  Posts sent: 0\n"
                       "  GenMsgs sent: 200\n"
                       "  GenMsgs received: 180\n"
                       "  GenMsg latencies sent: 50\n"
                       "  GenMsg latencies received: 5\n"
                       "  Avg update rate: 1\n"
                       "  Avg posting rate: 0\n"
                       "  Avg GenMsg send rate: 20\n"
                       "  Avg GenMsg receive rate: 18\n"
                       "  Avg GenMsg latency send rate: 5\n"
                       "  Avg GenMsg latency receive rate: 0\n"
                       "\n--- OVERALL SUMMARY ---\n\n"
                       "Startup State Statistics:\n"
                       "  Sampling duration (sec): 12.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  Avg update rate: 1\n\n"
                       "Steady State Statistics:\n"
                       "  Steady state was not reached during this test.\n\n"
                       "Overall Statistics: \n"
                       "  Sampling duration (sec): 12.000\n"
                       "  Latency avg (usec): 100.0\n"
                       "  Latency std dev (usec): 10.0\n"
                       "  Latency max (usec): 120.0\n"
                       "  Latency min (usec): 90.0\n"
                       "  GenMsg latency avg (usec): 50.0\n"
                       "  GenMsg latency std dev (usec): 5.0\n"
                       "  GenMsg latency max (usec): 60.0\n"
                       "  GenMsg latency min (usec): 40.0\n"
                       "\nTest Statistics:\n"
                       "  Requests sent: 10\n"
                       "  Refreshes received: 9\n"
                       "  Updates received: 110\n"
                       "  Posts sent: 1000\n"
                       "  GenMsgs sent: 400\n"
                       "  GenMsgs received: 360\n"
                       "  GenMsg latencies sent: 100\n"
                       "  GenMsg latencies received: 10\n"
                       "  Avg update rate: 10\n"
                       "  Avg posting rate: 0\n"
                       "  Avg GenMsg send rate: 40\n"
                       "  Avg GenMsg receive rate: 36\n"
                       "  Avg GenMsg latency send rate: 10\n"
                       "  Avg GenMsg latency receive rate: 1\n"
                       "\n"
                       "ERROR: TEST FAILED due to error from Consumer Thread 2:\n"
                       "  Failed to receive all images within 5 seconds.\n\n";
    tt_assert_lines_equal(got, want);
    free(got);

    /* Ours: offered against achieved, per connection, with a warning when short. */
    assert_non_null(strstr(file.text, "  Avg GenMsg latency receive rate: 0\n"
                                      "  Offered post rate: 100\n"
                                      "  Achieved post rate: 100\n"
                                      "  Offered GenMsg rate: 20\n"
                                      "  Achieved GenMsg rate: 20\n"
                                      "\n--- CLIENT 2"));
    assert_non_null(strstr(file.text, "  Offered post rate: 100\n"
                                      "  Achieved post rate: 0\n"
                                      "  Warning: achieved post rate is 0.00% of the offered "
                                      "rate (below 99%).\n"));
    tt_capture_free(&file);
}

static void test_no_requests_no_nan(void **state)
{
    (void)state;
    cons_config cfg;
    config_from(&cfg, (const char *const[]){NULL});
    cons_stats s = {0};
    cons_result res = {.thread_count = 1, .thread = &s, .now_ns = 5 * SEC};
    tt_capture file;
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, NULL, file.f);
    cons_report_summary(&rep, &cfg, &res);
    tt_capture_close(&file);
    const char *want = "\n--- OVERALL SUMMARY ---\n\n"
                       "Startup State Statistics:\n"
                       "  Sampling duration (sec): 0.000\n"
                       "  No latency information received during startup time.\n\n"
                       "  Avg update rate: 0\n\n"
                       "Steady State Statistics:\n"
                       "  Steady state was not reached during this test.\n\n"
                       "Overall Statistics: \n"
                       "  Sampling duration (sec): 0.000\n"
                       "  No latency information was received.\n"
                       "  No GenMsg latency information was received.\n"
                       "\nTest Statistics:\n"
                       "  Requests sent: 0\n"
                       "  Refreshes received: 0\n"
                       "  Updates received: 0\n"
                       "  Avg update rate: 0\n\n";
    tt_assert_lines_equal(file.text, want);
    tt_capture_free(&file);
}

static void test_console_matches_vector(void **state)
{
    (void)state;
    cons_interval iv = {0};
    iv.refreshes = 5;
    iv.updates = 46;
    iv.lat = lat(46, 184.6, 48.7, 283.0, 125.0);
    iv.cpu = 7.94;
    iv.mem_mb = 57.56;
    iv.image_items = 5;
    iv.image_ns = 59700 * US;
    tt_capture con;
    tt_capture_open(&con);
    cons_report_interval(con.f, 5, 1, 1, 5, &iv);
    tt_capture_close(&con);
    char *got = tt_drop_ours(con.text, NULL);
    char *text = tt_vector("consprov_default/consprov_default.cons.stdout");
    char *want = tt_section(text, "005: Images:", "\nSteady state time");
    tt_assert_lines_equal(got, want);
    /* Ours: the percentiles after the latency line. */
    assert_non_null(strstr(con.text, "Msgs: 46\n  Latency(usec) p50:   185 p90:   234 p99:   283 "
                                     "p99.9:   283 p99.99:   283 (only 46 samples: p99, p99.9, "
                                     "p99.99 are the maximum)\n"));
    free(got);
    free(text);
    free(want);
    tt_capture_free(&con);
}

static void test_console_optional_lines(void **state)
{
    (void)state;
    cons_interval iv = {0};
    iv.posts_sent = 50;
    iv.updates = 1001;
    iv.post_out_of_bufs = 3;
    iv.post_lat = lat(10, 300.0, 30.0, 400.0, 250.0);
    iv.post_sched = lat(10, 320.0, 30.0, 900.0, 250.0);
    iv.genmsgs_sent = 20;
    iv.genmsgs_recv = 18;
    iv.genmsg_lat_sent = 5;
    iv.genmsg_lat = lat(4, 50.0, 5.0, 60.0, 40.0);
    iv.genmsg_out_of_bufs = 2;
    iv.decode = lat(1000, 1.5, 0.25, 3.125, 1.0);
    iv.status_msgs = 7;
    iv.cpu = 101.5;
    iv.mem_mb = 1234.5;
    tt_capture con;
    tt_capture_open(&con);
    cons_report_interval(con.f, 120, 2, 2, 5, &iv);
    cons_report_overall_images(con.f, 100000, 3826 * MS);
    tt_capture_close(&con);
    char *got = tt_drop_ours(con.text, NULL);
    tt_assert_lines_equal(
        got, "120: Client 2:\n"
             "  Images:      0, Posts:     50, UpdRate:      200, CPU: 101.50%, Mem: 1234.50MB\n"
             "  - 3 posts not sent due to lack of output buffers.\n"
             "  PostLat(usec): Avg: 300.0 StdDev:  30.0 Max:   400 Min:   250, Msgs: 10\n"
             "  GenMsgs: sent 20, received 18, latencies sent 5, latencies received 4\n"
             "  - 2 gen msgs not sent due to lack of output buffers.\n"
             "  GenMsgLat(usec): Avg:  50.0 StdDev:   5.0 Max:    60 Min:    40, Msgs: 4\n"
             "  Update decode time (usec): Avg:   1.500 StdDev:   0.250 Max:   3.125 Min:   "
             "1.000, Msgs: 1000\n"
             "  - Received 7 status messages.\n"
             "\nOverall image retrieval time for 100000 images: 3.826s (26137 Images/s).\n\n");
    assert_non_null(strstr(con.text, "  Sched PostLat(usec): Avg: 320.0 StdDev:  30.0 Max:   900 "
                                     "Min:   250, Msgs: 10\n"));
    free(got);
    tt_capture_free(&con);
}

static void test_stats_file(void **state)
{
    (void)state;
    cons_config cfg;
    const char *base = tt_tmp("ConsStats");
    config_from(&cfg, (const char *const[]){"-statsFile", base, NULL});
    out_csv csv;
    assert_int_equal(cons_stats_open(&csv, &cfg, 1), 0);
    cons_interval iv = {0};
    iv.lat = lat(189, 81.5, 35.6, 230.0, 51.0);
    iv.refreshes = 100000;
    iv.updates = 18889;
    iv.cpu = 97.49;
    iv.mem_mb = 338.21;
    assert_int_equal(cons_report_stats_row(&csv, (time_t)1622639247, 5, &iv), 0);
    cons_interval empty = {0};
    assert_int_equal(cons_report_stats_row(&csv, (time_t)1622639252, 5, &empty), 0);
    assert_int_equal(out_csv_close(&csv), 0);

    char path[600];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.stats_file, 1, 0), 0);
    char want_path[600];
    snprintf(want_path, sizeof(want_path), "%s1.csv", base);
    assert_string_equal(path, want_path);
    char *text = tt_file(path);
    const char *original_header =
        "UTC, Latency updates, Latency avg (usec), Latency std dev (usec), Latency max (usec), "
        "Latency min (usec), Images, Update rate (msg/sec), Posting Latency updates, Posting "
        "Latency avg (usec), Posting Latency std dev (usec), Posting Latency max (usec), Posting "
        "Latency min (usec), GenMsgs sent, GenMsgs received, GenMsg Latencies sent, GenMsg "
        "latencies received, GenMsg Latency avg (usec), GenMsg Latency std dev (usec), GenMsg "
        "Latency max (usec), GenMsg Latency min (usec), CPU usage (%), Memory (MB)";
    /* The original's columns first, in its order; ours after. */
    const char *ours = ", Latency p50 (usec), Latency p90 (usec), Latency p99 (usec), Latency "
                       "p99.9 (usec), Latency p99.99 (usec), Sched Latency avg (usec), Sched "
                       "Latency p99 (usec), Sched Latency max (usec), Posting Latency p50 (usec)";
    char expect[2048];
    snprintf(expect, sizeof(expect), "%s%s", original_header, ours);
    assert_true(strstr(text, expect) == text);
    assert_non_null(strstr(text, ", Sched GenMsg Latency max (usec)\n"));
    /* The sample row of the guide, then our columns. */
    assert_non_null(strstr(text, "\n2021-06-02 13:07:27, 189, 81.5, 35.6, 230.0, 51.0, 100000, "
                                 "3777, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, "
                                 "97.49, 338.21, 81.5, 155.8, 230.0, , , 0.0, 0.0, 0.0, "
                                 "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, "
                                 "0.0, 0.0, 0.0, 0.0\n"));
    /* Column counts agree on every line. */
    int cols[3] = {0}, line = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ',')
            cols[line]++;
        if (*p == '\n')
            line++;
    }
    assert_int_equal(line, 3);
    assert_int_equal(cols[0], 22 + 24);
    assert_int_equal(cols[1], cols[0]);
    assert_int_equal(cols[2], cols[0]);
    free(text);
    unlink(path);
}

static void test_latency_log(void **state)
{
    (void)state;
    cons_config cfg;
    config_from(&cfg, (const char *const[]){NULL});
    out_csv csv;
    assert_int_equal(run_file_latency(&csv, cfg.opts.latency_file, 1, 0, true), 0);
    assert_null(csv.f);
    assert_int_equal(out_latlog_row(&csv, "Upd", 1, 2), 0);

    const char *base = tt_tmp("latencyLog");
    config_from(&cfg, (const char *const[]){"-latencyFile", base, NULL});
    assert_int_equal(run_file_latency(&csv, cfg.opts.latency_file, 2, 0, true), 0);
    assert_int_equal(out_latlog_row(&csv, "Upd", 353725032296ull, 353725032521ull), 0);
    assert_int_equal(out_latlog_row(&csv, "Pst", 353724892323ull, 353724894740ull), 0);
    assert_int_equal(out_csv_close(&csv), 0);
    char path[600];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.latency_file, 2, 0), 0);
    char *text = tt_file(path);
    assert_string_equal(text, "Message type, Send time, Receive time, Latency (usec)\n"
                              "Upd, 353725032296, 353725032521, 225\n"
                              "Pst, 353724892323, 353724894740, 2417\n");
    free(text);
    unlink(path);
}

static void test_json_summary(void **state)
{
    (void)state;
    cons_config cfg;
    config_from(&cfg, (const char *const[]){"-itemCount", "5", "-postingRate", "1000", NULL});
    cons_stats s;
    cons_result res;
    build_result(&vectors[0], &s, &res);
    res.total.posts_sent = 5000;
    res.total.overall_sched = lat(46, 200, 40, 2300, 130);
    out_host h = {.name = "vm", .kernel = "Linux", .cpu_model = "cpu", .cores = 2};
    json_object *doc = cons_report_json(&cfg, &res, &h, 1234, (time_t)1622639247);
    const char *path = tt_tmp("ConsSummary.json");
    assert_int_equal(out_json_write(path, doc), 0);
    json_object_put(doc);

    json_object *back = json_object_from_file(path);
    assert_non_null(back);
    json_object *v, *results, *overall, *l, *inputs, *threads;
    assert_true(json_object_object_get_ex(back, "tool", &v));
    assert_string_equal(json_object_get_string(v), "ConsPerf");
    assert_true(json_object_object_get_ex(back, "inputs", &inputs));
    assert_true(json_object_object_get_ex(inputs, "itemCount", &v));
    assert_int_equal(json_object_get_int(v), 5);
    assert_true(json_object_object_get_ex(back, "results", &results));
    assert_true(json_object_object_get_ex(results, "passed", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(results, "threads", &threads));
    assert_int_equal(json_object_array_length(threads), 1);
    assert_true(json_object_object_get_ex(results, "resources", &v));
    assert_true(json_object_object_get_ex(results, "overall", &overall));
    assert_true(json_object_object_get_ex(overall, "updates_received", &v));
    assert_int_equal(json_object_get_int(v), 56);
    assert_true(json_object_object_get_ex(overall, "image_rate", &v));
    assert_int_equal((int)(json_object_get_double(v) + 0.5), 84);
    assert_true(json_object_object_get_ex(overall, "steady_latency", &l));
    assert_true(json_object_object_get_ex(l, "avg", &v));
    assert_true(json_object_get_double(v) == 184.6);
    assert_true(json_object_object_get_ex(l, "p99_99", &v));
    assert_true(json_object_object_get_ex(overall, "sched_latency", &l));
    assert_true(json_object_object_get_ex(l, "max", &v));
    assert_true(json_object_get_double(v) == 2300.0);
    assert_false(json_object_object_get_ex(overall, "startup_latency", &l));
    assert_true(json_object_object_get_ex(overall, "offered_posting_rate", &v));
    assert_int_equal(json_object_get_int(v), 1000);
    assert_true(json_object_object_get_ex(overall, "achieved_posting_rate", &v));
    assert_int_equal((int)(json_object_get_double(v) + 0.5), 878);
    json_object_put(back);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_files_match_vectors),
        cmocka_unit_test(test_percentiles_follow_each_block),
        cmocka_unit_test(test_two_clients_posting_genmsgs_failure),
        cmocka_unit_test(test_no_requests_no_nan),
        cmocka_unit_test(test_console_matches_vector),
        cmocka_unit_test(test_console_optional_lines),
        cmocka_unit_test(test_stats_file),
        cmocka_unit_test(test_latency_log),
        cmocka_unit_test(test_json_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
