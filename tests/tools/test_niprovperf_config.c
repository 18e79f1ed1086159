/* NIProvPerf configuration: every option's default and validation, refused options, usage, and
 * the TEST INPUTS block as NIProvPerf 3.6.5 prints it (no capture exists: the expected text
 * follows the original's format strings, value by value). */
#include "tools_test.h"

#include "config.h"
#include "err.h"

TT_CONFIG_FIXTURE(niprov_config, niprov_config_init, "NIProvPerf")

static void test_defaults(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_int_equal(r.status, OPT_CONTINUE);
    const niprov_config *c = &r.cfg;
    assert_string_equal(c->pv.opts.host, "localhost");
    assert_string_equal(c->pv.opts.port, "14003");
    assert_string_equal(c->pv.opts.interface_name, "");
    assert_int_equal(c->pv.opts.conn_type, 0);
    assert_int_equal(c->pv.opts.compression_type, 0);
    assert_int_equal(pv_config_threads(&c->pv), 1);
    assert_int_equal(c->pv.opts.output_bufs, 5000);
    assert_int_equal(c->pv.opts.send_buf_size, 0);
    assert_int_equal(c->pv.opts.recv_buf_size, 0);
    assert_int_equal(c->pv.opts.high_water_mark, 0);
    assert_true(c->pv.opts.tcp_nodelay);
    assert_false(c->pv.opts.direct_write);
    assert_string_equal(c->pv.opts.uname, "");
    assert_int_equal(c->pv.opts.run_time, 360);
    assert_int_equal(c->pv.opts.tick_rate, 1000);
    assert_int_equal(c->pv.opts.item_count, 100000);
    assert_int_equal(c->pv.opts.common_item_count, 0);
    assert_int_equal(c->pv.update_rate, 100000);
    assert_int_equal(c->pv.latency_update_rate, 10);
    assert_int_equal(c->pv.refresh_burst_size, 10);
    assert_int_equal(c->pv.max_pack_count, 1);
    assert_int_equal(c->pv.pack_buf_size, 6000);
    assert_true(c->pv.service_id == 1);
    assert_string_equal(c->pv.opts.service_name, "DIRECT_FEED");
    assert_false(c->pv.pre_enc);
    assert_false(c->pv.opts.nano_time);
    assert_false(c->pv.measure_encode);
    assert_string_equal(c->pv.opts.item_file, "350k.xml");
    assert_string_equal(c->pv.opts.msg_file, "MsgData.xml");
    assert_string_equal(c->pv.opts.summary_file, "NIProvSummary.out");
    assert_string_equal(c->pv.opts.stats_file, "NIProvStats");
    assert_int_equal(c->pv.opts.write_stats_interval, 5);
    assert_true(c->pv.opts.display_stats);
    run_free(&r);
}

static void test_every_option(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-connType", "socket", "-h", "adhhost", "-p", "14010", "-if", "eth0",
          "-compressionType", "lz4", "-outputBufs", "6000", "-sendBufSize", "1000", "-recvBufSize",
          "2000", "-highWaterMark", "3000", "-tcpDelay", "-directWrite", "-uname", "pub",
          "-threads", "0,0", "-runTime", "60", "-tickRate", "100", "-itemCount", "1000",
          "-commonItemCount", "100", "-updateRate", "2000", "-latencyUpdateRate", "all",
          "-refreshBurstSize", "20", "-maxPackCount", "5", "-packBufSize", "3000", "-serviceName",
          "NI_PUB", "-serviceId", "3", "-nanoTime", "-itemFile", "i.xml", "-msgFile", "m.xml",
          "-summaryFile", "s.out", "-statsFile", "st", "-writeStatsInterval", "2",
          "-noDisplayStats");
    if (r.status != OPT_CONTINUE)
        fail_msg("refused: %s", r.err.text);
    const niprov_config *c = &r.cfg;
    assert_string_equal(c->pv.opts.host, "adhhost");
    assert_string_equal(c->pv.opts.port, "14010");
    assert_string_equal(c->pv.opts.interface_name, "eth0");
    assert_int_equal(c->pv.opts.compression_type, 2);
    assert_int_equal(c->pv.opts.output_bufs, 6000);
    assert_int_equal(c->pv.opts.send_buf_size, 1000);
    assert_int_equal(c->pv.opts.recv_buf_size, 2000);
    assert_int_equal(c->pv.opts.high_water_mark, 3000);
    assert_false(c->pv.opts.tcp_nodelay);
    assert_true(c->pv.opts.direct_write);
    assert_string_equal(c->pv.opts.uname, "pub");
    assert_int_equal(pv_config_threads(&c->pv), 2);
    assert_int_equal(c->pv.opts.run_time, 60);
    assert_int_equal(c->pv.opts.tick_rate, 100);
    assert_int_equal(c->pv.opts.item_count, 1000);
    assert_int_equal(c->pv.opts.common_item_count, 100);
    assert_int_equal(c->pv.update_rate, 2000);
    assert_int_equal(c->pv.latency_update_rate, OPT_RATE_ALL);
    assert_int_equal(pv_config_latency_update_rate(&c->pv), 2000);
    assert_int_equal(c->pv.refresh_burst_size, 20);
    assert_int_equal(c->pv.max_pack_count, 5);
    assert_int_equal(c->pv.pack_buf_size, 3000);
    assert_string_equal(c->pv.opts.service_name, "NI_PUB");
    assert_true(c->pv.service_id == 3);
    assert_true(c->pv.opts.nano_time);
    assert_string_equal(c->pv.opts.item_file, "i.xml");
    assert_string_equal(c->pv.opts.msg_file, "m.xml");
    assert_string_equal(c->pv.opts.summary_file, "s.out");
    assert_string_equal(c->pv.opts.stats_file, "st");
    assert_int_equal(c->pv.opts.write_stats_interval, 2);
    assert_false(c->pv.opts.display_stats);
    run_free(&r);

    /* -preEnc and -measureEncode with the default latency rate. (The original refuses
     * -measureEncode whenever its generic-message latency rate, which NIProvPerf cannot set,
     * is 0: that is, always.) */
    PARSE(&r, "-preEnc", "-measureEncode");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.pv.pre_enc);
    assert_true(r.cfg.pv.measure_encode);
    run_free(&r);
}

typedef struct bad_case {
    const char *args[8];
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {{"-genericMsgRate", "10"}, "Config Error: Unrecognized option: -genericMsgRate"},
    {{"-latencyFile", "x"}, "Config Error: Unrecognized option: -latencyFile"},
    {{"-h"}, "Config error: -h missing argument."},
    {{"-connType", "tcp"},
     "-connType tcp: unknown value (expected one of: socket, "
     "reliableMCast, encrypted)."},
    {{"-tickRate", "0"}, "-tickRate 0: value must be 1 or more."},
    {{"-itemCount", "x"}, "-itemCount x: value is not an integer."},
    {{"-writeStatsInterval", "0"}, "-writeStatsInterval 0: value must be 1 or more."},
    {{"-itemCount", "10", "-commonItemCount", "11"},
     "-commonItemCount 11 is greater than the "
     "items per connection"},
    {{"-itemCount", "10", "-threads", "0,0,0", "-commonItemCount", "4"},
     "(10 items over 3 "
     "connections = 3)"},
    {{"-updateRate", "0"}, "-latencyUpdateRate 10 is greater than -updateRate 0."},
    {{"-updateRate", "500", "-latencyUpdateRate", "0"},
     "-updateRate 500 is less than -tickRate "
     "1000"},
    {{"-latencyUpdateRate", "2000"}, "-latencyUpdateRate 2000 is greater than -tickRate 1000"},
    {{"-preEnc", "-latencyUpdateRate", "all"},
     "-preEnc cannot be used with -latencyUpdateRate "
     "all"},
    {{"-measureEncode", "-latencyUpdateRate", "0"},
     "-measureEncode needs a -latencyUpdateRate "
     "above 0"},
    {{"-maxPackCount", "0"}, "-maxPackCount 0: value must be 1 or more."},
    {{"-maxPackCount", "2", "-packBufSize", "0"}, "-maxPackCount 2 needs a -packBufSize above 0."},
};

static void test_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        expect_invalid(i, bad_cases[i].args, bad_cases[i].msg);
}

static void test_accepted(void **state)
{
    (void)state;
    const char *const cases[][8] = {
        /* The guide's post-only NIProvPerf run. */
        {"-updateRate", "0", "-latencyUpdateRate", "0"},
        {"-tickRate", "10", "-updateRate", "10", "-latencyUpdateRate", "10"},
        {"-itemCount", "10", "-threads", "0,0", "-commonItemCount", "5"},
        {"-updateRate", "0", "-latencyUpdateRate", "all"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_accepted(i, cases[i]);
}

/* -connType encrypted: the CA store is read at start (exit 2 when it cannot be). */
static void test_tls_settings(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-connType", "encrypted", "-castore", "/nonexistent/ca.pem");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(
        strstr(r.err.text, "Config Error: CA store /nonexistent/ca.pem cannot be read"));
    run_free(&r);
    PARSE(&r, "-connType", "encrypted");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.pv.opts.conn_type, TP_CONN_ENCRYPTED);
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-encryptedConnType", "websocket");
    assert_int_equal(r.status, OPT_CONTINUE);
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-encryptedConnType", "websocket", "-reactor");
    assert_int_equal(r.status, OPT_CONTINUE);
    run_free(&r);
}

static void test_refused(void **state)
{
    (void)state;
    const char *const cases[][3] = {
        {"-sa", "235.1.1.3"}, {"-sp", "15001"},
        {"-ra", "235.1.1.4"}, {"-rp", "15002"},
        {"-u", "12345"},      {"-mcastStats"},
        {"-takeMCastStats"},  {"-connType", "reliableMCast"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_not_built(i, cases[i]);
}

/* -reactor and -workerThreads: the worker list in braces after the thread list, "Use Reactor";
 * -workerThreads alone gives the number of connections; the two lists must agree. */
static void test_reactor_options(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-reactor", "-threads", "0,1", "-workerThreads", "-1,1");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.pv.opts.reactor);
    assert_int_equal(pv_config_threads(&r.cfg.pv), 2);
    assert_int_equal(niprov_config_check(&r.cfg), 0);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, got.f, NULL);
    niprov_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    assert_non_null(strstr(got.text, "           Thread List: 0,1 {-1,1}\n"));
    assert_non_null(strstr(got.text, "           Use Reactor: Yes\n"));
    tt_capture_free(&got);
    run_free(&r);

    PARSE(&r, "-reactor", "-workerThreads", "0,1,-1");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(pv_config_threads(&r.cfg.pv), 3);
    tt_capture_open(&got);
    out_report_init(&rep, got.f, NULL);
    niprov_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    assert_non_null(strstr(got.text, "           Thread List: (non) {0,1,-1}\n"));
    tt_capture_free(&got);
    run_free(&r);

    PARSE(&r, "-reactor", "-threads", "0", "-workerThreads", "0,1");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "worker thread count (2 in -workerThreads) not equal"));
    run_free(&r);
}

static void test_usage(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-help");
    assert_int_equal(r.status, 0);
    for (const opt_def *d = niprov_options; d->name || d->kind == OPT_SECTION; d++)
        if (d->name && !strstr(r.out.text, d->name))
            fail_msg("usage lacks %s", d->name);
    assert_non_null(strstr(r.out.text, "(default: 14003)"));
    run_free(&r);
}

static void test_inputs_block(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-h", "adhhost", "-p", "14003", "-serviceName", "NI_PUB", "-runTime", "60",
          "-outputBufs", "6000", "-if", "192.168.3.190", "-maxPackCount", "10");
    assert_int_equal(r.status, OPT_CONTINUE);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, NULL, got.f);
    out_extra extra = {.clock_cost_ns = 19.0, .clock_resolution_ns = 1};
    niprov_config_print(&r.cfg, &extra, &rep);
    tt_capture_close(&got);
    char *mine = tt_drop_ours(got.text, (const char *const[]){"     Compression type: ", NULL});
    tt_assert_lines_equal(mine, "--- TEST INPUTS ---\n\n"
                                "              Run Time: 60 sec\n"
                                "       Connection Type: socket\n"
                                "              Hostname: adhhost\n"
                                "                  Port: 14003\n"
                                "           Thread List: (non)\n"
                                "        Output Buffers: 6000\n"
                                "      Send Buffer Size: 0(use default)\n"
                                "      Recv Buffer Size: 0(use default)\n"
                                "       High Water Mark: 0(use default)\n"
                                "        Interface Name: 192.168.3.190\n"
                                "              Username: (use system login name)\n"
                                "           Tcp_NoDelay: Yes\n"
                                "            Item Count: 100000\n"
                                "     Common Item Count: 0\n"
                                "             Tick Rate: 1000\n"
                                "     Use Direct Writes: No\n"
                                "          Summary File: NIProvSummary.out\n"
                                "            Stats File: NIProvStats\n"
                                "  Write Stats Interval: 5\n"
                                "         Display Stats: Yes\n"
                                "           Update Rate: 100000\n"
                                "   Latency Update Rate: 10\n"
                                "    Refresh Burst Size: 10\n"
                                "             Item File: 350k.xml\n"
                                "             Data File: MsgData.xml\n"
                                "               Packing: Yes(max 10 per pack, 6000 buffer size)\n"
                                "            Service ID: 1\n"
                                "          Service Name: NI_PUB\n"
                                "           Use Reactor: No\n"
                                "\n"
                                "  Pre-Encoded Updates: No\n"
                                "      Nanosecond Time: No\n"
                                "       Measure Encode: No\n"
                                "      Multicast Stats: No\n"
                                "\n");
    free(mine);
    assert_non_null(strstr(got.text, "      Multicast Stats: No\n"
                                     "     Compression type: 0\n"
                                     "      Scheduled Stamp: Yes\n"
                                     "      Clock Cost (ns): 19.0\n"
                                     "Clock Resolution (ns): 1\n"
                                     "    JSON Summary File: NIProvSummary.json\n\n"));
    tt_capture_free(&got);
    run_free(&r);

    PARSE(&r, "-threads", "0,-1", "-uname", "me", "-tcpDelay", "-directWrite", "-latencyUpdateRate",
          "all", "-updateRate", "5000", "-sendBufSize", "100", "-highWaterMark", "9", "-preEnc",
          "-latencyUpdateRate", "7", "-noDisplayStats");
    assert_int_equal(r.status, OPT_CONTINUE);
    tt_capture_open(&got);
    out_report_init(&rep, got.f, NULL);
    niprov_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    const char *lines[] = {
        "           Thread List: 0,-1\n",    "      Send Buffer Size: 100 bytes\n",
        "       High Water Mark: 9 bytes\n", "              Username: me\n",
        "           Tcp_NoDelay: No\n",      "     Use Direct Writes: Yes\n",
        "         Display Stats: No\n",      "   Latency Update Rate: 7\n",
        "  Pre-Encoded Updates: Yes\n",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        if (!strstr(got.text, lines[i]))
            fail_msg("TEST INPUTS lack \"%s\"", lines[i]);
    tt_capture_free(&got);
    run_free(&r);
}

static void test_json_inputs(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-serviceName", "NI_PUB");
    json_object *o = niprov_config_json(&r.cfg);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "serviceName", &v));
    assert_string_equal(json_object_get_string(v), "NI_PUB");
    assert_true(json_object_object_get_ex(o, "p", &v));
    assert_string_equal(json_object_get_string(v), "14003");
    tt_json_has_options(o, niprov_options, false);
    json_object_put(o);
    run_free(&r);
}

static void test_random_command_lines(void **state)
{
    (void)state;
    tt_random_command_lines(init_any, niprov_options, 3000);
}

/* -histogramLog (ours): none by default, a base name, listed after the original's options. */
static void test_histogram_log(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_string_equal(r.cfg.pv.opts.histogram_log, "");
    run_free(&r);
    PARSE(&r, "-histogramLog", "hl");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_string_equal(r.cfg.pv.opts.histogram_log, "hl");
    run_free(&r);
    PARSE(&r, "-?");
    /* After every option of the original's that this build has. */
    const char *ours = strstr(r.out.text, "  -histogramLog ");
    assert_non_null(ours);
    for (const opt_def *d = niprov_options; d->name || d->kind == OPT_SECTION; d++) {
        if (d->name && strcmp(d->name, "-histogramLog") == 0)
            break; /* ours from here on */
        if (!d->name || d->kind == OPT_REFUSED)
            continue;
        if (!tt_listed_before(r.out.text, d->name, ours))
            fail_msg("%s is not listed before -histogramLog", d->name);
    }
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_invalid),         cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),         cmocka_unit_test(test_tls_settings),
        cmocka_unit_test(test_reactor_options), cmocka_unit_test(test_usage),
        cmocka_unit_test(test_histogram_log),   cmocka_unit_test(test_inputs_block),
        cmocka_unit_test(test_json_inputs),     cmocka_unit_test(test_random_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
