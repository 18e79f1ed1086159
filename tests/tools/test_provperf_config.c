/* ProvPerf configuration: every option's default and validation, refused options, usage, and
 * the TEST INPUTS block against the original's output in the vectors. */
#include "tools_test.h"

#include "config.h"
#include "err.h"

TT_CONFIG_FIXTURE(prov_config, prov_config_init, "ProvPerf")

static void test_defaults(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_int_equal(r.status, OPT_CONTINUE);
    const prov_config *c = &r.cfg;
    assert_string_equal(c->pv.opts.port, "14002");
    assert_string_equal(c->pv.opts.interface_name, "");
    assert_int_equal(c->pv.opts.conn_type, 0);
    assert_int_equal(pv_config_threads(&c->pv), 1);
    assert_string_equal(c->pv.opts.threads.list, "");
    assert_int_equal(c->pv.opts.output_bufs, 5000);
    assert_int_equal(c->pv.opts.max_output_bufs, 5000);
    assert_int_equal(c->pv.opts.max_fragment_size, 6144);
    assert_int_equal(c->pv.opts.send_buf_size, 0);
    assert_int_equal(c->pv.opts.recv_buf_size, 0);
    assert_int_equal(c->pv.opts.high_water_mark, 0);
    assert_true(c->pv.opts.tcp_nodelay);
    assert_false(c->pv.opts.direct_write);
    assert_int_equal(c->pv.opts.compression_type, 0);
    assert_int_equal(c->pv.opts.compression_level, 0);
    assert_int_equal(c->pv.opts.run_time, 360);
    assert_int_equal(c->pv.opts.tick_rate, 1000);
    assert_int_equal(c->pv.update_rate, 100000);
    assert_int_equal(c->pv.latency_update_rate, 10);
    assert_int_equal(c->pv.opts.generic_msg_rate, 0);
    assert_int_equal(c->pv.opts.generic_msg_latency_rate, 0);
    assert_int_equal(c->pv.refresh_burst_size, 10);
    assert_int_equal(c->pv.max_pack_count, 1);
    assert_int_equal(c->pv.pack_buf_size, 6000);
    assert_true(c->pv.service_id == 1);
    assert_string_equal(c->pv.opts.service_name, "DIRECT_FEED");
    assert_true(c->open_limit == 1000000);
    assert_false(c->pv.pre_enc);
    assert_false(c->pv.opts.nano_time);
    assert_false(c->pv.measure_encode);
    assert_string_equal(c->pv.opts.msg_file, "MsgData.xml");
    assert_string_equal(c->pv.opts.summary_file, "ProvSummary.out");
    assert_string_equal(c->pv.opts.stats_file, "ProvStats");
    assert_string_equal(c->pv.opts.latency_file, "");
    assert_int_equal(c->pv.opts.write_stats_interval, 5);
    assert_true(c->pv.opts.display_stats);
    run_free(&r);
}

static void test_every_option(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-p", "14010", "-connType", "socket", "-if", "eth0", "-outputBufs", "6000",
          "-maxOutputBufs", "7000", "-maxFragmentSize", "12000", "-sendBufSize", "1000",
          "-recvBufSize", "2000", "-highWaterMark", "3000", "-tcpDelay", "-directWrite",
          "-compressionType", "zlib", "-compressionLevel", "9", "-threads", "0,0,-1", "-runTime",
          "60", "-tickRate", "100", "-updateRate", "5000", "-latencyUpdateRate", "all",
          "-genericMsgRate", "200", "-genericMsgLatencyRate", "20", "-refreshBurstSize", "50",
          "-maxPackCount", "10", "-packBufSize", "8000", "-serviceName", "TEST_FEED", "-serviceId",
          "7", "-openLimit", "200000", "-nanoTime", "-msgFile", "m.xml", "-summaryFile", "s.out",
          "-statsFile", "st", "-latencyFile", "lat", "-writeStatsInterval", "3", "-noDisplayStats");
    if (r.status != OPT_CONTINUE)
        fail_msg("refused: %s", r.err.text);
    const prov_config *c = &r.cfg;
    assert_string_equal(c->pv.opts.port, "14010");
    assert_string_equal(c->pv.opts.interface_name, "eth0");
    assert_int_equal(c->pv.opts.output_bufs, 6000);
    assert_int_equal(c->pv.opts.max_output_bufs, 7000);
    assert_int_equal(c->pv.opts.max_fragment_size, 12000);
    assert_int_equal(c->pv.opts.send_buf_size, 1000);
    assert_int_equal(c->pv.opts.recv_buf_size, 2000);
    assert_int_equal(c->pv.opts.high_water_mark, 3000);
    assert_false(c->pv.opts.tcp_nodelay);
    assert_true(c->pv.opts.direct_write);
    assert_int_equal(c->pv.opts.compression_type, 1);
    assert_int_equal(c->pv.opts.compression_level, 9);
    assert_int_equal(pv_config_threads(&c->pv), 3);
    assert_int_equal(c->pv.opts.run_time, 60);
    assert_int_equal(c->pv.opts.tick_rate, 100);
    assert_int_equal(c->pv.update_rate, 5000);
    assert_int_equal(c->pv.latency_update_rate, OPT_RATE_ALL);
    assert_int_equal(pv_config_latency_update_rate(&c->pv), 5000);
    assert_int_equal(c->pv.opts.generic_msg_rate, 200);
    assert_int_equal(c->pv.opts.generic_msg_latency_rate, 20);
    assert_int_equal(prov_config_latency_genmsg_rate(c), 20);
    assert_int_equal(c->pv.refresh_burst_size, 50);
    assert_int_equal(c->pv.max_pack_count, 10);
    assert_int_equal(c->pv.pack_buf_size, 8000);
    assert_string_equal(c->pv.opts.service_name, "TEST_FEED");
    assert_true(c->pv.service_id == 7);
    assert_true(c->open_limit == 200000);
    assert_true(c->pv.opts.nano_time);
    assert_string_equal(c->pv.opts.msg_file, "m.xml");
    assert_string_equal(c->pv.opts.summary_file, "s.out");
    assert_string_equal(c->pv.opts.stats_file, "st");
    assert_string_equal(c->pv.opts.latency_file, "lat");
    assert_int_equal(c->pv.opts.write_stats_interval, 3);
    assert_false(c->pv.opts.display_stats);
    run_free(&r);

    PARSE(&r, "-preEnc", "-measureEncode", "-genericMsgRate", "1000", "-genericMsgLatencyRate",
          "all", "-compressionType", "2");
    assert_int_equal(r.status, OPT_EXIT_INVALID); /* -preEnc with genmsg latency "all" */
    run_free(&r);
    PARSE(&r, "-preEnc", "-measureEncode", "-compressionType", "2");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.pv.pre_enc);
    assert_true(r.cfg.pv.measure_encode);
    assert_int_equal(r.cfg.pv.opts.compression_type, 2);
    run_free(&r);
}

typedef struct bad_case {
    const char *args[8];
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {{"-bogus"}, "Config Error: Unrecognized option: -bogus"},
    {{"-runTime"}, "Config error: -runTime missing argument."},
    {{"-runTime", "ten"}, "-runTime ten: value is not an integer."},
    {{"-tickRate", "0"}, "-tickRate 0: value must be 1 or more."},
    {{"-writeStatsInterval", "0"}, "-writeStatsInterval 0: value must be 1 or more."},
    {{"-maxPackCount", "0"}, "-maxPackCount 0: value must be 1 or more."},
    {{"-refreshBurstSize", "0"}, "-refreshBurstSize 0: value must be 1 or more."},
    {{"-maxFragmentSize", "70000"}, "-maxFragmentSize 70000: value must be from 1 to 65535."},
    {{"-serviceId", "65536"}, "-serviceId 65536: value must be from 0 to 65535."},
    {{"-openLimit", "-1"}, "-openLimit -1: value is not a non-negative integer."},
    {{"-compressionLevel", "10"}, "-compressionLevel 10: value must be from 0 to 9."},
    {{"-compressionType", "snappy"}, "-compressionType snappy: unknown value"},
    {{"-latencyUpdateRate", "most"}, "-latencyUpdateRate most: value is not a rate"},
    {{"-threads", ""}, "-threads '': no thread entries."},
    /* The original's rate rules: -updateRate below the tick rate is refused. */
    {{"-updateRate", "999"}, "-updateRate 999 is less than -tickRate 1000"},
    {{"-tickRate", "10", "-updateRate", "5", "-latencyUpdateRate", "0"},
     "-updateRate 5 is less "
     "than -tickRate 10"},
    {{"-genericMsgRate", "10"}, "-genericMsgRate 10 is less than -tickRate 1000"},
    /* With no updates, the default latency rate of 10 is more than the update rate. */
    {{"-updateRate", "0"}, "-latencyUpdateRate 10 is greater than -updateRate 0."},
    {{"-updateRate", "1000", "-latencyUpdateRate", "1001"},
     "-latencyUpdateRate 1001 is greater "
     "than -updateRate 1000."},
    {{"-latencyUpdateRate", "1001"}, "-latencyUpdateRate 1001 is greater than -tickRate 1000"},
    {{"-genericMsgRate", "1000", "-genericMsgLatencyRate", "1001"},
     "-genericMsgLatencyRate "
     "1001 is greater than "
     "-genericMsgRate 1000."},
    {{"-preEnc", "-latencyUpdateRate", "all"},
     "-preEnc cannot be used with -latencyUpdateRate "
     "all"},
    {{"-measureEncode", "-latencyUpdateRate", "0"},
     "-measureEncode needs a -latencyUpdateRate "
     "above 0"},
    {{"-maxPackCount", "5", "-packBufSize", "0"}, "-maxPackCount 5 needs a -packBufSize above 0."},
};

static void test_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        expect_invalid(i, bad_cases[i].args, bad_cases[i].msg);
}

static void test_boundaries_accepted(void **state)
{
    (void)state;
    const char *const cases[][8] = {
        {"-updateRate", "0", "-latencyUpdateRate", "0"},
        {"-updateRate", "1000", "-latencyUpdateRate", "1000"},
        {"-updateRate", "0", "-latencyUpdateRate", "all"},
        {"-tickRate", "10", "-updateRate", "10"},
        {"-genericMsgRate", "1000", "-genericMsgLatencyRate", "all"},
        {"-maxPackCount", "1", "-packBufSize", "0"},
        {"-measureEncode"},
        {"-serviceId", "65535", "-openLimit", "0"},
        {"-runTime", "0"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_accepted(i, cases[i]);
}

/* -connType encrypted needs a readable key and certificate (exit 2 at start otherwise). */
static void test_tls_settings(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-connType", "encrypted");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config Error: an encrypted server needs a certificate"));
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-keyfile", "/nonexistent/k.pem", "-cert",
          "/nonexistent/c.pem", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "/nonexistent/c.pem cannot be read"));
    run_free(&r);
}

/* -pl with -reactor: WebSocket clients over the reactor layer. */
static void test_pl_reactor(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-pl", "rssl.rwf", "-reactor");
    assert_int_equal(r.status, OPT_CONTINUE);
    run_free(&r);
    PARSE(&r, "-pl", "rssl.json.v2,rssl.rwf");
    assert_int_equal(r.status, OPT_CONTINUE);
    run_free(&r);
}

/* The tunnel options: accepted (with or without -reactor, as the original), their values. */
static void test_tunnel_options(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-reactor", "-tunnelStreamOutputBufs", "20", "-tunnelStreamBuffersUsed");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.pv.opts.tunnel_output_bufs, 20);
    assert_true(r.cfg.pv.opts.tunnel_bufs_used);
    run_free(&r);
    PARSE(&r, "-tunnelStreamOutputBufs", "0");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    run_free(&r);
    PARSE(&r, "-updateRate", "10");
    assert_int_equal(r.cfg.pv.opts.tunnel_output_bufs, 15000);
    assert_false(r.cfg.pv.opts.tunnel_bufs_used);
    run_free(&r);
}

static void test_usage(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-?");
    assert_int_equal(r.status, 0);
    for (const opt_def *d = prov_options; d->name || d->kind == OPT_SECTION; d++)
        if (d->name && !strstr(r.out.text, d->name))
            fail_msg("usage lacks %s", d->name);
    assert_non_null(strstr(r.out.text, "(default: 100000)"));
    run_free(&r);
}

/* The TEST INPUTS block of a vector's file: from its heading to the blank line after
 * "Use Reactor" (No, or Yes for the reactor captures). */
static char *vector_inputs(const char *rel)
{
    char *text = tt_vector(rel);
    char *block = tt_section(text, "--- TEST INPUTS ---", "             Use Reactor: ");
    const char *use = strstr(text, "             Use Reactor: Yes\n\n")
                          ? "             Use Reactor: Yes\n\n"
                          : "             Use Reactor: No\n\n";
    size_t n = strlen(block);
    block = realloc(block, n + 64);
    strcpy(block + n, use);
    assert_non_null(strstr(text, use));
    free(text);
    return block;
}

static void test_inputs_match_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *extra[7];
        const char *stats;
        const char *dir; /* the vector's folder when not its name */
    } vectors[] = {
        {"consprov_default", {"-updateRate", "10"}, "capstats", NULL},
        {"consprov_tcpdelay", {"-updateRate", "10", "-tcpDelay"}, "capstats", NULL},
        {"consprov_pack", {"-updateRate", "100", "-maxPackCount", "10"}, "capstats", NULL},
        {"consprov_zlib", {"-updateRate", "10", "-compressionType", "1"}, "capstats", NULL},
        {"consprov_lz4", {"-updateRate", "10", "-compressionType", "2"}, "capstats", NULL},
        {"reactor", {"-p", "14202", "-reactor", "-updateRate", "10"}, "provstats", NULL},
        {"tunnel", {"-p", "14202", "-reactor", "-updateRate", "10"}, "provstats", "tunnel"},
        {"tunnel_auth",
         {"-p", "14202", "-reactor", "-updateRate", "10", "-tunnelStreamBuffersUsed"},
         "provstats",
         "tunnel"},
    };
    for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
        char summary[128], rel[256];
        snprintf(summary, sizeof(summary), "%s.ProvSummary.out", vectors[v].name);
        const char *args[20] = {"-runTime",     "12",    "-tickRate",  "10",
                                "-summaryFile", summary, "-statsFile", vectors[v].stats};
        int n = 8;
        for (int k = 0; vectors[v].extra[k]; k++)
            args[n++] = vectors[v].extra[k];
        if (strcmp(vectors[v].name, "consprov_pack") == 0) {
            args[n++] = "-packBufSize";
            args[n++] = "6000";
        }
        args[n] = NULL;
        run r;
        parse_args(&r, args);
        if (r.status != OPT_CONTINUE)
            fail_msg("%s refused: %s", vectors[v].name, r.err.text);

        tt_capture got;
        tt_capture_open(&got);
        out_report rep;
        out_report_init(&rep, NULL, got.f);
        out_extra extra = {.clock_cost_ns = 20.0, .clock_resolution_ns = 1};
        prov_config_print(&r.cfg, &extra, &rep);
        tt_capture_close(&got);
        char *mine = tt_drop_ours(got.text, NULL);
        const char *dir = vectors[v].dir ? vectors[v].dir : vectors[v].name;
        snprintf(rel, sizeof(rel), "%s/%s.ProvSummary.out", dir, vectors[v].name);
        char *want = vector_inputs(rel);
        tt_assert_lines_equal(mine, want);
        free(want);
        snprintf(rel, sizeof(rel), "%s/%s.prov.stdout", dir, vectors[v].name);
        want = vector_inputs(rel);
        tt_assert_lines_equal(mine, want);
        free(want);
        free(mine);
        char tail[256];
        snprintf(tail, sizeof(tail),
                 "             Use Reactor: %s\n"
                 "         Scheduled Stamp: Yes\n"
                 "         Clock Cost (ns): 20.0\n"
                 "   Clock Resolution (ns): 1\n"
                 "       JSON Summary File: %s.ProvSummary.json\n\n",
                 strstr(vectors[v].extra[2] ? vectors[v].extra[2] : "", "-reactor") ? "Yes" : "No",
                 vectors[v].name);
        assert_string_equal(strstr(got.text, "             Use Reactor: "), tail);
        tt_capture_free(&got);
        run_free(&r);
    }
}

static void test_inputs_values(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-threads", "0,0", "-latencyUpdateRate", "all", "-updateRate", "2000",
          "-genericMsgRate", "1000", "-genericMsgLatencyRate", "all", "-latencyFile", "lat",
          "-highWaterMark", "1000", "-directWrite", "-if", "eth0", "-noDisplayStats");
    assert_int_equal(r.status, OPT_CONTINUE);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, got.f, NULL);
    prov_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    const char *want_lines[] = {
        "\t\t  Connection Type: 0\n",
        "             Thread List: 0,0\n",
        "          Interface Name: eth0\n",
        "       Use Direct Writes: Yes\n",
        "         High Water Mark: 1000 bytes\n",
        "            Latency File: lat\n",
        "           Display Stats: No\n",
        /* "all" is printed as the total rate. */
        "     Latency Update Rate: 2000\n",
        "Latency Generic Msg Rate: 1000\n",
    };
    for (size_t i = 0; i < sizeof(want_lines) / sizeof(want_lines[0]); i++)
        if (!strstr(got.text, want_lines[i]))
            fail_msg("TEST INPUTS lack \"%s\":\n%s", want_lines[i], got.text);
    tt_capture_free(&got);
    run_free(&r);
}

static void test_json_inputs(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-latencyUpdateRate", "all", "-serviceId", "9");
    json_object *o = prov_config_json(&r.cfg);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "latencyUpdateRate", &v));
    assert_string_equal(json_object_get_string(v), "all");
    assert_true(json_object_object_get_ex(o, "serviceId", &v));
    assert_int_equal(json_object_get_int(v), 9);
    assert_true(json_object_object_get_ex(o, "threadCount", &v));
    assert_int_equal(json_object_get_int(v), 1);
    tt_json_has_options(o, prov_options, false);
    json_object_put(o);
    run_free(&r);
}

static void test_random_command_lines(void **state)
{
    (void)state;
    tt_random_command_lines(init_any, prov_options, 3000);
}

/* -histogramLog (ours): none by default, a base name, listed after the original's options;
 * -supportStandby and -standbyIgnoreRole (ours, off by default) after it. */
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
    for (const opt_def *d = prov_options; d->name || d->kind == OPT_SECTION; d++) {
        if (d->name && strcmp(d->name, "-histogramLog") == 0)
            break; /* ours from here on */
        if (!d->name || d->kind == OPT_REFUSED)
            continue;
        if (!tt_listed_before(r.out.text, d->name, ours))
            fail_msg("%s is not listed before -histogramLog", d->name);
    }
    assert_true(strstr(r.out.text, "  -supportStandby ") > ours);
    run_free(&r);
    parse_args(&r, NULL);
    assert_false(r.cfg.support_standby);
    run_free(&r);
    PARSE(&r, "-supportStandby");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.support_standby);
    assert_false(r.cfg.standby_ignore_role);
    run_free(&r);
    PARSE(&r, "-standbyIgnoreRole");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.standby_ignore_role);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_boundaries_accepted),
        cmocka_unit_test(test_pl_reactor),
        cmocka_unit_test(test_tls_settings),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_histogram_log),
        cmocka_unit_test(test_tunnel_options),
        cmocka_unit_test(test_inputs_match_vectors),
        cmocka_unit_test(test_inputs_values),
        cmocka_unit_test(test_json_inputs),
        cmocka_unit_test(test_random_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
