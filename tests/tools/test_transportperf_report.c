/* TransportPerf reports: the console interval lines and the OVERALL SUMMARY of every
 * transportperf vector (server and client) rebuilt from their numbers; THREAD blocks, our
 * lines, statistics rows, latency log and JSON summary. */
#include "tools_test.h"

#include "run_setup.h"

#include "config.h"
#include "err.h"
#include "report.h"

#define SEC 1000000000ull
#define MB 1048576.0

TT_CONFIG_FROM(tperf_config, tperf_config_init, "TransportPerf")

static const char *const vectors[] = {
    "transportperf_socket",  "transportperf_socket_pack", "transportperf_zlib",
    "transportperf_lz4",     "transportperf_zlib_msg512", "transportperf_lz4_msg512",
    "transportperf_reflect",
};

static stat_lat lat_from(const char *text, const char *avg, const char *sd, const char *max,
                         const char *min, uint64_t count)
{
    stat_lat l = {.count = count};
    l.avg = tt_num(text, avg);
    l.stddev = tt_num(text, sd);
    l.max = tt_num(text, max);
    l.min = tt_num(text, min);
    l.p50 = l.p90 = l.p99 = l.p999 = l.p9999 = l.max;
    return l;
}

static uint64_t bytes_of(double mb)
{
    return (uint64_t)(mb * MB + 0.5);
}

/* The summary prints its duration rounded to 10 ms; the rates were computed from the exact
 * one. Returns a duration (ns) within the printed one's rounding that gives the printed rates. */
static uint64_t duration_for(const char *overall, const tperf_stats *s)
{
    double printed = tt_num(overall, "  Sampling duration(sec): ");
    for (int k = 0; k < 1000; k++) {
        double t = printed - 0.005 + (k + 0.5) * 0.00001;
        char a[64], b[64], want_a[64], want_b[64];
        snprintf(a, sizeof(a), "%.0f", out_rate((double)s->msgs_sent, t));
        snprintf(b, sizeof(b), "%.0f", out_rate((double)s->msgs_recv, t));
        snprintf(want_a, sizeof(want_a), "%.0f", tt_num(overall, "  Avg. Msg Sent Rate: "));
        snprintf(want_b, sizeof(want_b), "%.0f", tt_num(overall, "  Avg. Msg Recv Rate: "));
        if (strcmp(a, want_a) == 0 && strcmp(b, want_b) == 0)
            return (uint64_t)(t * 1e9);
    }
    fail_msg("no duration gives the printed rates");
    return 0;
}

static void test_console_and_summary_match_vectors(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
        for (int side = 0; side < 2; side++) {
            char rel[256];
            snprintf(rel, sizeof(rel), "%s/%s.%s.stdout", vectors[v], vectors[v],
                     side ? "client" : "server");
            char *text = tt_vector(rel);
            tperf_config cfg;
            bool reflecting = strstr(vectors[v], "reflect") && !side;
            config_from(&cfg, (const char *const[]){"-appType", side ? "client" : "server",
                                                    reflecting ? "-reflectMsgs" : NULL, NULL});

            /* The interval, from the numbers of its console lines. */
            char *interval = tt_section(text, "005:\n", "  CPU: ");
            tperf_interval iv = {0};
            iv.msgs_sent = (uint64_t)tt_num(interval, "  Sent: MsgRate: ") * 5;
            iv.bytes_sent = bytes_of(tt_num(strstr(interval, "  Sent:"), "DataRate:") * 5);
            iv.msgs_recv = (uint64_t)tt_num(interval, "  Recv: MsgRate: ") * 5;
            iv.bytes_recv = bytes_of(tt_num(strstr(interval, "  Recv:"), "DataRate:") * 5);
            if (strstr(interval, "Latency (usec)"))
                iv.lat = lat_from(interval, "Avg:", "StdDev:", "Max:", "Min:",
                                  (uint64_t)tt_num(interval, "Msgs: "));
            char *cpu_line = tt_section(text, "  CPU: ", "\n");
            iv.cpu = tt_num(cpu_line, "  CPU: ");
            iv.mem_mb = tt_num(cpu_line, "Mem: ");
            tt_capture con;
            tt_capture_open(&con);
            tperf_report_interval(con.f, 5, 1, 1, 5, &iv);
            tt_capture_close(&con);
            char *got = tt_drop_ours(con.text, NULL);
            char want[1024];
            snprintf(want, sizeof(want), "%s%s\n", interval, cpu_line);
            tt_assert_lines_equal(got, want);
            free(got);
            free(cpu_line);
            free(interval);
            tt_capture_free(&con);

            /* The OVERALL SUMMARY, from the numbers of its lines. */
            char *overall = tt_section(text, "--- OVERALL SUMMARY ---", NULL);
            tperf_stats s = {0};
            s.msgs_sent = (uint64_t)tt_num(overall, "  Msgs Sent: ");
            s.msgs_recv = (uint64_t)tt_num(overall, "  Msgs Received: ");
            s.bytes_sent = bytes_of(tt_num(overall, "  Data Sent (MB): "));
            s.bytes_recv = bytes_of(tt_num(overall, "  Data Received (MB): "));
            s.connect_ns = 100 * SEC;
            s.disconnect_ns = s.connect_ns + duration_for(overall, &s);
            if (strstr(overall, "  Latency avg (usec): "))
                s.lat = lat_from(overall, "  Latency avg (usec): ", "  Latency std dev (usec): ",
                                 "  Latency max (usec): ", "  Latency min (usec): ", 49);
            tperf_result res = {.thread_count = 1, .thread = &s, .total = s};
            res.pid = (int)tt_num(overall, "  Process ID: ");
            res.res.samples = (uint64_t)tt_num(overall, "  CPU/Memory samples: ");
            res.res.cpu_max = tt_num(overall, "  CPU Usage max (%): ");
            res.res.cpu_min = tt_num(overall, "  CPU Usage min (%): ");
            res.res.cpu_avg = tt_num(overall, "  CPU Usage avg (%): ");
            res.res.mem_max = tt_num(overall, "  Memory Usage max (MB): ");
            res.res.mem_min = tt_num(overall, "  Memory Usage min (MB): ");
            res.res.mem_avg = tt_num(overall, "  Memory Usage avg (MB): ");
            tt_capture sum;
            tt_capture_open(&sum);
            out_report rep;
            out_report_init(&rep, sum.f, NULL);
            tperf_report_summary(&rep, &cfg, &res);
            tt_capture_close(&sum);
            got = tt_drop_ours(sum.text, NULL);
            tt_assert_lines_equal(got, overall);
            free(got);
            free(overall);
            tt_capture_free(&sum);
            free(text);
        }
    }
}

/* Our lines of a seqMCast run, left out when comparing with the original's output. */
static const char *const mcast_ours[] = {
    "  Sequence gaps: ", "  Msgs lost: ",         "  Msgs duplicated: ",  "  Msgs out of order: ",
    "  Sender ",         "  Multicast datagrams", "  Latency (usec) p50", NULL};

/* The seqMCast captures: the console interval with its "Multicast:" line (-mcastStats) and the
 * OVERALL SUMMARY, rebuilt from their numbers, line for line. */
static void test_seqmcast_vectors(void **state)
{
    (void)state;
    static const char *const files[] = {"seqmcast.receiver", "seqmcast.sender",
                                        "seqmcast_pack.receiver", "seqmcast_pack.sender"};
    for (size_t v = 0; v < sizeof(files) / sizeof(files[0]); v++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "seqmcast/%s.stdout", files[v]);
        char *text = tt_vector(rel);
        tperf_config cfg;
        config_from(&cfg, (const char *const[]){"-appType", "client", "-connType", "seqMCast",
                                                "-mcastStats", NULL});
        char *interval = tt_section(text, "005:\n", "  CPU: ");
        tperf_interval iv = {0};
        iv.msgs_sent = (uint64_t)tt_num(interval, "  Sent: MsgRate: ") * 5;
        iv.bytes_sent = bytes_of(tt_num(strstr(interval, "  Sent:"), "DataRate:") * 5);
        iv.msgs_recv = (uint64_t)tt_num(interval, "  Recv: MsgRate: ") * 5;
        iv.bytes_recv = bytes_of(tt_num(strstr(interval, "  Recv:"), "DataRate:") * 5);
        if (strstr(interval, "Latency (usec)"))
            iv.lat = lat_from(
                interval, "Avg:", "StdDev:", "Max:", "Min:", (uint64_t)tt_num(interval, "Msgs: "));
        iv.mcast = iv.mcast_stats = iv.tracked = true;
        iv.pkts_sent = (uint64_t)tt_num(interval, "Pkts Sent: ");
        iv.pkts_recv = (uint64_t)tt_num(interval, "Pkts Received: ");
        char *cpu_line = tt_section(text, "  CPU: ", "\n");
        iv.cpu = tt_num(cpu_line, "  CPU: ");
        iv.mem_mb = tt_num(cpu_line, "Mem: ");
        tt_capture con;
        tt_capture_open(&con);
        tperf_report_interval(con.f, 5, 1, 1, 5, &iv);
        tt_capture_close(&con);
        char *got = tt_drop_ours(con.text, mcast_ours);
        char want[1024];
        snprintf(want, sizeof(want), "%s%s\n", interval, cpu_line);
        tt_assert_lines_equal(got, want);
        free(got);
        free(cpu_line);
        free(interval);
        tt_capture_free(&con);

        char *overall = tt_section(text, "--- OVERALL SUMMARY ---", NULL);
        tperf_stats s = {.tracked = true, .mcast = true};
        s.msgs_sent = (uint64_t)tt_num(overall, "  Msgs Sent: ");
        s.msgs_recv = (uint64_t)tt_num(overall, "  Msgs Received: ");
        s.bytes_sent = bytes_of(tt_num(overall, "  Data Sent (MB): "));
        s.bytes_recv = bytes_of(tt_num(overall, "  Data Received (MB): "));
        s.connect_ns = 100 * SEC;
        s.disconnect_ns = s.connect_ns + duration_for(overall, &s);
        if (strstr(overall, "  Latency avg (usec): "))
            s.lat = lat_from(overall, "  Latency avg (usec): ", "  Latency std dev (usec): ",
                             "  Latency max (usec): ", "  Latency min (usec): ", 49);
        tperf_result res = {.thread_count = 1, .thread = &s, .total = s};
        res.pid = (int)tt_num(overall, "  Process ID: ");
        res.res.samples = (uint64_t)tt_num(overall, "  CPU/Memory samples: ");
        res.res.cpu_max = tt_num(overall, "  CPU Usage max (%): ");
        res.res.cpu_min = tt_num(overall, "  CPU Usage min (%): ");
        res.res.cpu_avg = tt_num(overall, "  CPU Usage avg (%): ");
        res.res.mem_max = tt_num(overall, "  Memory Usage max (MB): ");
        res.res.mem_min = tt_num(overall, "  Memory Usage min (MB): ");
        res.res.mem_avg = tt_num(overall, "  Memory Usage avg (MB): ");
        tt_capture sum;
        tt_capture_open(&sum);
        out_report rep;
        out_report_init(&rep, sum.f, NULL);
        tperf_report_summary(&rep, &cfg, &res);
        tt_capture_close(&sum);
        got = tt_drop_ours(sum.text, mcast_ours);
        tt_assert_lines_equal(got, overall);
        free(got);
        free(overall);
        tt_capture_free(&sum);
        free(text);
    }
}

/* Our seqMCast lines: sequence counts, senders, datagrams (summary), the interval's
 * "Sequence:" line, the statistics columns and the JSON members. */
static void test_mcast_ours(void **state)
{
    (void)state;
    tperf_config cfg;
    config_from(&cfg,
                (const char *const[]){"-appType", "client", "-connType", "seqMCast", "-seqGaps",
                                      "count", "-statsFileStatic", tt_tmp("McStats"), NULL});
    tp_seqtrack trk;
    assert_int_equal(tp_seqtrack_init(&trk, 0, false), 0);
    tp_mc_from a = {0x7F000001, 30002, 0};
    tp_seqtrack_data(&trk, &a, 0, NULL);
    tp_seqtrack_data(&trk, &a, 1, NULL);
    tp_seqtrack_data(&trk, &a, 5, NULL);
    tp_seqtrack_data(&trk, &a, 5, NULL);
    const tp_seqtrack *trks[1] = {&trk};
    tperf_stats s = {.msgs_recv = 4,
                     .bytes_recv = 304,
                     .connect_ns = SEC,
                     .disconnect_ns = 2 * SEC,
                     .tracked = true,
                     .seq_gaps = 1,
                     .seq_lost = 3,
                     .seq_dups = 1,
                     .mcast = true,
                     .trk = trks,
                     .n_trk = 1};
    s.mc.pkts_recv = 6;
    s.mc.loss_dropped = 3;
    s.mc.bad = 2;
    s.mc.bad_kind[TP_MC_BAD_VERSION] = 1;
    s.mc.bad_kind[TP_MC_BAD_LEN_BEYOND] = 1;
    s.mc.seq.lost = 3;
    tperf_result res = {.thread_count = 1, .thread = &s, .total = s, .pid = 77};
    tt_capture sum;
    tt_capture_open(&sum);
    out_report rep;
    out_report_init(&rep, sum.f, NULL);
    tperf_report_summary(&rep, &cfg, &res);
    tt_capture_close(&sum);
    assert_non_null(
        strstr(sum.text,
               "  Process ID: 77\n"
               "  Sequence gaps: 1\n"
               "  Msgs lost: 3\n"
               "  Msgs duplicated: 1\n"
               "  Msgs out of order: 0\n"
               "  Sender 127.0.0.1:30002/0: msgs 3, first 0, last 5, gaps 1, lost 3, "
               "duplicated 1, out of order 0\n"
               "  Multicast datagrams: sent 0, received 6, lost 3, duplicated 0, out of order 0\n"
               "  Multicast datagrams dropped: 3 by the loss generator, 2 malformed (unknown "
               "header version: 1, message length past the end of the datagram: 1)\n"));
    tt_capture_free(&sum);

    tperf_interval iv = {.msgs_recv = 4, .tracked = true, .gaps = 1, .lost = -2, .mcast = true};
    iv.pkts_recv = 6;
    tt_capture con;
    tt_capture_open(&con);
    tperf_report_interval(con.f, 5, 1, 1, 5, &iv);
    tt_capture_close(&con);
    assert_null(strstr(con.text, "Multicast:")); /* without -mcastStats */
    assert_non_null(strstr(con.text,
                           "  CPU:   0.00% Mem:     0.00MB\n"
                           "  Sequence: gaps 1, lost -2, duplicated 0, out of order 0\n"));
    tt_capture_free(&con);

    out_csv csv;
    assert_int_equal(tperf_stats_open(&csv, &cfg, 1), 0);
    assert_int_equal(tperf_report_stats_row(&csv, (time_t)1352874964, &iv), 0);
    assert_int_equal(out_csv_close(&csv), 0);
    char path[800];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.stats_file, 1, cfg.pid), 0);
    char *text = tt_file(path);
    assert_non_null(strstr(text, "Sched Latency max (usec), Sequence gaps, Msgs lost, Msgs "
                                 "duplicated, Msgs out of order, Multicast pkts sent, Multicast "
                                 "pkts received\n"));
    assert_non_null(strstr(text, "0.000, 0.000, 0.000, 1, -2, 0, 0, 0, 6\n"));
    free(text);
    unlink(path);

    json_object *doc = tperf_report_json(&cfg, &res, NULL, time(NULL));
    json_object *results, *overall, *q, *m, *v, *senders;
    assert_true(json_object_object_get_ex(doc, "results", &results));
    assert_true(json_object_object_get_ex(results, "overall", &overall));
    assert_true(json_object_object_get_ex(overall, "sequence", &q));
    assert_true(json_object_object_get_ex(q, "lost", &v));
    assert_int_equal(json_object_get_int64(v), 3);
    assert_true(json_object_object_get_ex(q, "duplicates", &v));
    assert_int_equal(json_object_get_int64(v), 1);
    assert_true(json_object_object_get_ex(q, "senders", &senders));
    assert_int_equal(json_object_array_length(senders), 1);
    assert_true(json_object_object_get_ex(json_object_array_get_idx(senders, 0), "port", &v));
    assert_int_equal(json_object_get_int(v), 30002);
    assert_true(json_object_object_get_ex(overall, "multicast", &m));
    assert_true(json_object_object_get_ex(m, "loss_generator_dropped", &v));
    assert_int_equal(json_object_get_int64(v), 3);
    assert_true(json_object_object_get_ex(m, "malformed", &q));
    assert_true(json_object_object_get_ex(q, "version", &v));
    assert_int_equal(json_object_get_int64(v), 1);
    json_object_put(doc);
    tp_seqtrack_free(&trk);
}

static stat_lat lat(uint64_t count, double avg, double sd, double max, double min)
{
    stat_lat l = {.count = count, .avg = avg, .stddev = sd, .max = max, .min = min};
    l.p50 = avg;
    l.p90 = l.p99 = l.p999 = l.p9999 = max;
    return l;
}

static void test_threads_and_our_lines(void **state)
{
    (void)state;
    tperf_config cfg;
    config_from(&cfg, (const char *const[]){"-threads", "0,0", "-msgRate", "1000", NULL});
    tperf_stats t[2] = {0};
    t[0] = (tperf_stats){.msgs_sent = 10000,
                         .bytes_sent = 790000,
                         .connect_ns = 10 * SEC,
                         .disconnect_ns = 20 * SEC,
                         .conn_secs = 10.0};
    t[1] = (tperf_stats){.msgs_recv = 5000,
                         .bytes_recv = 380000,
                         .seq_gaps = 2,
                         .out_of_bufs = 7,
                         .msgs_sent = 4000,
                         .bytes_sent = 316000,
                         .connect_ns = 12 * SEC,
                         .disconnect_ns = 22 * SEC,
                         .conn_secs = 10.0};
    t[1].lat = lat(500, 14.107, 2.554, 19.491, 9.227);
    t[1].lat_sched = lat(500, 15.0, 3.0, 400.0, 9.5);
    tperf_result res = {.thread_count = 2, .thread = t, .pid = 24806};
    res.total = (tperf_stats){.msgs_sent = 14000,
                              .bytes_sent = 1106000,
                              .msgs_recv = 5000,
                              .bytes_recv = 380000,
                              .seq_gaps = 2,
                              .out_of_bufs = 7,
                              .connect_ns = 10 * SEC,
                              .disconnect_ns = 22 * SEC,
                              .conn_secs = 20.0};
    res.total.lat = t[1].lat;
    res.total.lat_sched = t[1].lat_sched;
    tt_capture con, file;
    tt_capture_open(&con);
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, con.f, file.f);
    tperf_report_summary(&rep, &cfg, &res);
    tt_capture_close(&con);
    tt_capture_close(&file);
    char *got = tt_drop_ours(file.text, NULL);
    const char *lat_lines = "  Latency avg (usec): 14.107\n"
                            "  Latency std dev (usec): 2.554\n"
                            "  Latency max (usec): 19.491\n"
                            "  Latency min (usec): 9.227\n";
    char want[4096];
    snprintf(want, sizeof(want),
             "--- THREAD 1 SUMMARY ---\n\n"
             "Statistics: \n"
             "  No latency information was received.\n\n"
             "  Sampling duration(sec): 10.00\n"
             "  Msgs Sent: 10000\n"
             "  Msgs Received: 0\n"
             "  Data Sent (MB): 0.75\n"
             "  Data Received (MB): 0.00\n"
             "  Avg. Msg Sent Rate: 1000\n"
             "  Avg. Msg Recv Rate: 0\n"
             "  Avg. Data Sent Rate (MB): 0.08\n"
             "  Avg. Data Recv Rate (MB): 0.00\n\n"
             "--- THREAD 2 SUMMARY ---\n\n"
             "Statistics: \n%s"
             "  Sampling duration(sec): 10.00\n"
             "  Msgs Sent: 4000\n"
             "  Msgs Received: 5000\n"
             "  Data Sent (MB): 0.30\n"
             "  Data Received (MB): 0.36\n"
             "  Avg. Msg Sent Rate: 400\n"
             "  Avg. Msg Recv Rate: 500\n"
             "  Avg. Data Sent Rate (MB): 0.03\n"
             "  Avg. Data Recv Rate (MB): 0.04\n\n"
             "--- OVERALL SUMMARY ---\n\n"
             "Statistics: \n%s"
             "  Sampling duration(sec): 12.00\n"
             "  Msgs Sent: 14000\n"
             "  Msgs Received: 5000\n"
             "  Data Sent (MB): 1.05\n"
             "  Data Received (MB): 0.36\n"
             "  Avg. Msg Sent Rate: 1167\n"
             "  Avg. Msg Recv Rate: 417\n"
             "  Avg. Data Sent Rate (MB): 0.09\n"
             "  Avg. Data Recv Rate (MB): 0.03\n"
             "  Process ID: 24806\n",
             lat_lines, lat_lines);
    tt_assert_lines_equal(got, want);
    free(got);
    /* Without CPU samples, the console alone says so. */
    assert_non_null(strstr(con.text, "No CPU/Mem statistics taken.\n\n  Process ID: 24806\n"));
    assert_null(strstr(file.text, "No CPU/Mem"));
    /* Ours. */
    assert_non_null(strstr(file.text, "  Latency min (usec): 9.227\n"
                                      "  Latency p50 (usec): 14.107\n"
                                      "  Latency p90 (usec): 19.491\n"
                                      "  Latency p99 (usec): 19.491\n"
                                      "  Latency p99.9 (usec): 19.491 (only 500 samples: this is "
                                      "the maximum)\n"
                                      "  Latency p99.99 (usec): 19.491 (only 500 samples: this is "
                                      "the maximum)\n"
                                      "  Sched latency avg (usec): 15.000\n"));
    assert_non_null(strstr(file.text, "  Avg. Data Recv Rate (MB): 0.04\n"
                                      "  Sequence gaps: 2\n"
                                      "  Msgs not sent for lack of output buffers: 7\n"
                                      "  Offered msg rate: 1000\n"
                                      "  Achieved msg rate: 400\n"
                                      "  Warning: achieved msg rate is 40.00% of the offered rate "
                                      "(below 99%).\n\n"));
    assert_non_null(strstr(file.text, "  Process ID: 24806\n"
                                      "  Sequence gaps: 2\n"
                                      "  Msgs not sent for lack of output buffers: 7\n"
                                      "  Offered msg rate: 1000\n"
                                      "  Achieved msg rate: 700\n"));
    tt_capture_free(&con);
    tt_capture_free(&file);
}

static void test_negative_latency_warning(void **state)
{
    (void)state;
    tt_capture con, file;
    tt_capture_open(&con);
    tt_capture_open(&file);
    out_report rep;
    out_report_init(&rep, con.f, file.f);
    tperf_report_negative_latency(&rep, 2000, 1500);
    tt_capture_close(&con);
    tt_capture_close(&file);
    const char *want = "Warning: negative latency calculated. The clocks do not appear to be "
                       "synchronized. (start=2000, end=1500)\n";
    assert_string_equal(con.text, want);
    assert_string_equal(file.text, want);
    tt_capture_free(&con);
    tt_capture_free(&file);
}

static void test_console_threads(void **state)
{
    (void)state;
    tperf_interval iv = {.msgs_sent = 500000,
                         .bytes_sent = 39500000,
                         .msgs_recv = 500000,
                         .bytes_recv = 38000000,
                         .out_of_bufs = 12,
                         .cpu = 0.0,
                         .mem_mb = 21.99};
    iv.lat = lat(50, 14.133, 2.401, 19.122, 9.683);
    iv.lat_sched = lat(50, 15.0, 2.0, 300.0, 9.7);
    tt_capture con;
    tt_capture_open(&con);
    tperf_report_interval(con.f, 30, 2, 2, 5, &iv);
    tt_capture_close(&con);
    tt_assert_lines_equal(
        con.text, "030: Thread 2:\n"
                  "  Sent: MsgRate:   100000, DataRate:   7.534MBps\n"
                  "  Recv: MsgRate:   100000, DataRate:   7.248MBps\n"
                  "  12 messages not sent due to lack of output buffers.\n"
                  "  Latency (usec): Avg:  14.133 StdDev:   2.401 Max:  19.122 Min:   9.683, "
                  "Msgs: 50\n"
                  "  Latency (usec) p50:  14.133 p90:  19.122 p99:  19.122 p99.9:  19.122 "
                  "p99.99:  19.122 (only 50 samples: p99, p99.9, p99.99 are the maximum)\n"
                  "  Sched Latency (usec): Avg:  15.000 StdDev:   2.000 Max: 300.000 Min:   "
                  "9.700, Msgs: 50\n"
                  "  CPU:   0.00% Mem:    21.99MB\n");
    tt_capture_free(&con);
}

static void test_stats_and_latency_files(void **state)
{
    (void)state;
    tperf_config cfg;
    char lat_base[600];
    snprintf(lat_base, sizeof(lat_base), "%s", tt_tmp("tlat"));
    config_from(&cfg, (const char *const[]){"-statsFileStatic", tt_tmp("TransportStats"),
                                            "-latencyFile", lat_base, NULL});
    out_csv csv, log;
    assert_int_equal(tperf_stats_open(&csv, &cfg, 1), 0);
    assert_int_equal(run_file_latency(&log, cfg.opts.latency_file, 1, cfg.pid, false), 0);
    tperf_interval iv = {.msgs_sent = 500000,
                         .bytes_sent = 39500000,
                         .msgs_recv = 500000,
                         .bytes_recv = 38000000,
                         .cpu = 0.0,
                         .mem_mb = 21.99};
    iv.lat = lat(50, 14.107, 2.554, 19.491, 9.227);
    assert_int_equal(tperf_report_stats_row(&csv, (time_t)1352874964, &iv), 0);
    assert_int_equal(out_latlog_row(&log, NULL, 100000, 114107), 0);
    assert_int_equal(out_csv_close(&csv), 0);
    assert_int_equal(out_csv_close(&log), 0);

    char path[800], want_path[800];
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.stats_file, 1, cfg.pid), 0);
    snprintf(want_path, sizeof(want_path), "%s1_%d.csv", cfg.opts.stats_file, (int)getpid());
    assert_string_equal(path, want_path);
    char *text = tt_file(path);
    assert_string_equal(
        text, "UTC, Msgs sent, Bytes sent, Msgs received, Bytes received, Latency msgs received, "
              "Latency avg (usec), Latency std dev (usec), Latency max (usec), Latency min "
              "(usec), CPU usage (%), Memory (MB), Latency p50 (usec), Latency p90 (usec), "
              "Latency p99 (usec), Latency p99.9 (usec), Latency p99.99 (usec), Sched Latency avg "
              "(usec), Sched Latency p99 (usec), Sched Latency max (usec)\n"
              "2012-11-14 06:36:04, 500000, 39500000, 500000, 38000000, 50, 14.107, 2.554, "
              "19.491, 9.227, 0.00, 21.99, 14.107, 19.491, , , , 0.000, 0.000, 0.000\n");
    free(text);
    unlink(path);
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.latency_file, 1, cfg.pid), 0);
    snprintf(want_path, sizeof(want_path), "%s1_%d.csv", lat_base, (int)getpid());
    assert_string_equal(path, want_path);
    text = tt_file(path);
    assert_string_equal(text, "Send Time, Receive Time, Latency(nsec)\n100000, 114107, 14107\n");
    free(text);
    unlink(path);

    /* -statsFile X: the original's name, with the process id twice. */
    config_from(&cfg, (const char *const[]){"-statsFile", "TS", NULL});
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.stats_file, 2, cfg.pid), 0);
    snprintf(want_path, sizeof(want_path), "TS_%d2_%d.csv", (int)getpid(), (int)getpid());
    assert_string_equal(path, want_path);
    config_from(&cfg, (const char *const[]){NULL});
    assert_int_equal(run_file_name(path, sizeof(path), cfg.opts.stats_file, 1, cfg.pid), 0);
    snprintf(want_path, sizeof(want_path), "TransportStats1_%d.csv", (int)getpid());
    assert_string_equal(path, want_path);
    assert_int_equal(run_file_latency(&log, cfg.opts.latency_file, 1, cfg.pid, false), 0);
    assert_null(log.f);
}

static void test_json(void **state)
{
    (void)state;
    tperf_config cfg;
    config_from(&cfg, (const char *const[]){"-appType", "client", NULL});
    tperf_stats s = {.msgs_sent = 1000000,
                     .msgs_recv = 990000,
                     .connect_ns = SEC,
                     .disconnect_ns = 11 * SEC,
                     .conn_secs = 10.0};
    s.lat = lat(100, 20.0, 2.0, 40.0, 10.0);
    tperf_result res = {.thread_count = 1, .thread = &s, .total = s, .pid = 4242};
    json_object *doc = tperf_report_json(&cfg, &res, NULL, time(NULL));
    char path[600];
    assert_int_equal(out_json_path(path, sizeof(path), tt_tmp("TransportSummary_4242.out")), 0);
    assert_int_equal(out_json_write(path, doc), 0);
    json_object_put(doc);
    json_object *back = json_object_from_file(path);
    json_object *v, *results, *overall, *l;
    assert_true(json_object_object_get_ex(back, "tool", &v));
    assert_string_equal(json_object_get_string(v), "TransportPerf");
    assert_true(json_object_object_get_ex(back, "pid", &v));
    assert_int_equal(json_object_get_int(v), 4242);
    assert_true(json_object_object_get_ex(back, "inputs", &v));
    assert_true(json_object_object_get_ex(back, "results", &results));
    assert_true(json_object_object_get_ex(results, "overall", &overall));
    assert_true(json_object_object_get_ex(overall, "msg_sent_rate", &v));
    assert_true(json_object_get_double(v) == 100000.0);
    assert_true(json_object_object_get_ex(overall, "achieved_msg_rate", &v));
    assert_true(json_object_get_double(v) == 100000.0);
    assert_true(json_object_object_get_ex(overall, "latency", &l));
    assert_true(json_object_object_get_ex(l, "avg", &v));
    assert_true(json_object_get_double(v) == 20.0);
    json_object_put(back);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_console_and_summary_match_vectors),
        cmocka_unit_test(test_threads_and_our_lines),
        cmocka_unit_test(test_negative_latency_warning),
        cmocka_unit_test(test_console_threads),
        cmocka_unit_test(test_stats_and_latency_files),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_seqmcast_vectors),
        cmocka_unit_test(test_mcast_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
