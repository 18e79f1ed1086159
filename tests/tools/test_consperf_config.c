/* ConsPerf configuration: every option's default and validation, refused options, usage, and
 * the TEST INPUTS block against the original's output in the vectors. */
#include "tools_test.h"

#include "config.h"
#include "clk.h"
#include "err.h"
#include "version.h"

TT_CONFIG_FIXTURE(cons_config, cons_config_init, "ConsPerf")

static void test_defaults(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_string_equal(r.err.text, "");
    const cons_config *c = &r.cfg;
    assert_string_equal(c->opts.host, "localhost");
    assert_string_equal(c->opts.port, "14002");
    assert_string_equal(c->opts.interface_name, "");
    assert_int_equal(c->opts.conn_type, 0);
    assert_int_equal(c->opts.compression_type, 0);
    assert_int_equal(c->opts.threads.count, 1);
    assert_string_equal(c->opts.threads.list, "");
    assert_int_equal(cons_config_threads(c), 1);
    assert_int_equal(c->opts.output_bufs, 5000);
    assert_int_equal(c->opts.max_output_bufs, 0);
    assert_int_equal(c->opts.input_bufs, 15);
    assert_int_equal(c->opts.send_buf_size, 0);
    assert_int_equal(c->opts.recv_buf_size, 0);
    assert_int_equal(c->opts.high_water_mark, 0);
    assert_true(c->opts.tcp_nodelay);
    assert_string_equal(c->opts.uname, "");
    assert_string_equal(c->opts.service_name, "DIRECT_FEED");
    assert_int_equal(c->steady_state_time, 300);
    assert_int_equal(c->delay_steady_state_calc, 0);
    assert_int_equal(c->opts.tick_rate, 1000);
    assert_int_equal(c->opts.item_count, 100000);
    assert_int_equal(c->opts.common_item_count, 0);
    assert_int_equal(c->request_rate, 500000);
    assert_false(c->snapshot);
    assert_int_equal(c->posting_rate, 0);
    assert_int_equal(c->posting_latency_rate, 0);
    assert_int_equal(c->opts.generic_msg_rate, 0);
    assert_int_equal(c->opts.generic_msg_latency_rate, 0);
    assert_false(c->opts.nano_time);
    assert_false(c->measure_decode);
    assert_string_equal(c->opts.item_file, "350k.xml");
    assert_string_equal(c->opts.msg_file, "MsgData.xml");
    assert_string_equal(c->opts.summary_file, "ConsSummary.out");
    assert_string_equal(c->opts.stats_file, "ConsStats");
    assert_string_equal(c->opts.latency_file, "");
    assert_int_equal(c->opts.write_stats_interval, 5);
    assert_true(c->opts.display_stats);
    run_free(&r);
}

static void test_every_option(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-connType", "socket", "-h", "adshost", "-p", "14010", "-if", "10.0.0.1",
          "-compressionType", "lz4", "-outputBufs", "6000", "-maxOutputBufs", "7000", "-inputBufs",
          "20", "-sendBufSize", "65536", "-recvBufSize", "131072", "-highWaterMark", "1000",
          "-tcpDelay", "-uname", "perf", "-serviceName", "TEST_FEED", "-threads", "0,0",
          "-tickRate", "100", "-itemCount", "1000", "-commonItemCount", "10", "-requestRate",
          "2000", "-postingRate", "500", "-postingLatencyRate", "100", "-genericMsgRate", "300",
          "-genericMsgLatencyRate", "50", "-steadyStateTime", "60", "-delaySteadyStateCalc", "2000",
          "-nanoTime", "-measureDecode", "-itemFile", "items.xml", "-msgFile", "msgs.xml",
          "-summaryFile", "sum.out", "-statsFile", "st", "-latencyFile", "lat",
          "-writeStatsInterval", "2", "-noDisplayStats");
    assert_int_equal(r.status, OPT_CONTINUE);
    const cons_config *c = &r.cfg;
    assert_string_equal(c->opts.host, "adshost");
    assert_string_equal(c->opts.port, "14010");
    assert_string_equal(c->opts.interface_name, "10.0.0.1");
    assert_int_equal(c->opts.compression_type, 2);
    assert_int_equal(c->opts.output_bufs, 6000);
    assert_int_equal(c->opts.max_output_bufs, 7000);
    assert_int_equal(c->opts.input_bufs, 20);
    assert_int_equal(c->opts.send_buf_size, 65536);
    assert_int_equal(c->opts.recv_buf_size, 131072);
    assert_int_equal(c->opts.high_water_mark, 1000);
    assert_false(c->opts.tcp_nodelay);
    assert_string_equal(c->opts.uname, "perf");
    assert_string_equal(c->opts.service_name, "TEST_FEED");
    assert_int_equal(cons_config_threads(c), 2);
    assert_string_equal(c->opts.threads.list, "0,0");
    assert_int_equal(c->opts.tick_rate, 100);
    assert_int_equal(c->opts.item_count, 1000);
    assert_int_equal(c->opts.common_item_count, 10);
    assert_int_equal(c->request_rate, 2000);
    assert_int_equal(c->posting_rate, 500);
    assert_int_equal(c->posting_latency_rate, 100);
    assert_int_equal(c->opts.generic_msg_rate, 300);
    assert_int_equal(c->opts.generic_msg_latency_rate, 50);
    assert_int_equal(c->steady_state_time, 60);
    assert_int_equal(c->delay_steady_state_calc, 2000);
    assert_true(c->opts.nano_time);
    assert_true(c->measure_decode);
    assert_string_equal(c->opts.item_file, "items.xml");
    assert_string_equal(c->opts.msg_file, "msgs.xml");
    assert_string_equal(c->opts.summary_file, "sum.out");
    assert_string_equal(c->opts.stats_file, "st");
    assert_string_equal(c->opts.latency_file, "lat");
    assert_int_equal(c->opts.write_stats_interval, 2);
    assert_false(c->opts.display_stats);
    run_free(&r);

    /* Second spellings. */
    PARSE(&r, "-i", "eth0", "-maxOutputBuffer", "9000");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_string_equal(r.cfg.opts.interface_name, "eth0");
    assert_int_equal(r.cfg.opts.max_output_bufs, 9000);
    run_free(&r);

    /* -compressionType takes the numbers of the original too. */
    PARSE(&r, "-compressionType", "1");
    assert_int_equal(r.cfg.opts.compression_type, 1);
    run_free(&r);
}

/* Each case: arguments that must be refused with exit status 2 and a message containing `msg`. */
typedef struct bad_case {
    const char *args[8];
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {{"-foo"}, "Config Error: Unrecognized option: -foo"},
    {{"-itemcount", "5"}, "Config Error: Unrecognized option: -itemcount"},
    {{"-itemCount"}, "Config error: -itemCount missing argument."},
    {{"-h"}, "Config error: -h missing argument."},
    {{"-itemCount", "five"}, "-itemCount five: value is not an integer."},
    {{"-itemCount", "-1"}, "-itemCount -1: value must be 0 or more."},
    {{"-tickRate", "0"}, "-tickRate 0: value must be from 1 to 1000000000."},
    {{"-tickRate", "1000000001", "-requestRate", "2000000000"},
     "-tickRate 1000000001: value must be from 1 to 1000000000."},
    {{"-requestRate", "0"}, "-requestRate 0: value must be 1 or more."},
    {{"-writeStatsInterval", "0"}, "-writeStatsInterval 0: value must be 1 or more."},
    {{"-delaySteadyStateCalc", "30001"},
     "-delaySteadyStateCalc 30001: value must be from 0 to "
     "30000."},
    {{"-delaySteadyStateCalc", "-1"}, "-delaySteadyStateCalc -1: value must be from 0 to 30000."},
    {{"-outputBufs", "0"}, "-outputBufs 0: value must be 1 or more."},
    {{"-sendBufSize", "-5"}, "-sendBufSize -5: value must be 0 or more."},
    {{"-compressionType", "gzip"}, "-compressionType gzip: unknown value"},
    {{"-compressionType", "3"}, "-compressionType 3: unknown value"},
    {{"-connType", "tcp"}, "-connType tcp: unknown value"},
    {{"-threads", "0,1,2,3,4,5,6,7,8"}, "Too many threads specified (at most 8)."},
    {{"-threads", "zero"}, "Config Error: -threads entry 1 \"zero\": expected -1, a CPU number"},
    {{"-threads", "0,4096"}, "Config Error: -threads entry 2 \"4096\": no logical CPU 4096"},
    {{"-requestRate", "500"}, "-requestRate 500 is less than -tickRate 1000."},
    {{"-postingRate", "999"}, "-postingRate 999 is less than -tickRate 1000"},
    {{"-genericMsgRate", "10"}, "-genericMsgRate 10 is less than -tickRate 1000"},
    {{"-postingRate", "1000", "-postingLatencyRate", "1001"},
     "-postingLatencyRate 1001 is "
     "greater than -postingRate 1000."},
    {{"-postingLatencyRate", "1"}, "-postingLatencyRate 1 is greater than -postingRate 0."},
    {{"-postingRate", "5000", "-postingLatencyRate", "1001"},
     "-postingLatencyRate 1001 is "
     "greater than -tickRate 1000"},
    {{"-genericMsgRate", "1000", "-genericMsgLatencyRate", "2000"},
     "-genericMsgLatencyRate 2000 "
     "is greater than "
     "-genericMsgRate 1000."},
    {{"-genericMsgRate", "5000", "-genericMsgLatencyRate", "1001"}, "is greater than -tickRate"},
    {{"-snapshot", "-postingRate", "1000"}, "-postingRate cannot be used with -snapshot"},
    {{"-snapshot", "-genericMsgRate", "1000"}, "-genericMsgRate cannot be used with -snapshot"},
    {{"-itemCount", "10", "-commonItemCount", "11"},
     "-commonItemCount 11 is greater than the "
     "items per connection"},
    {{"-itemCount", "10", "-threads", "0,0", "-commonItemCount", "6"},
     "(10 items over 2 "
     "connections = 5)"},
    {{"-steadyStateTime", "29", "-delaySteadyStateCalc", "30000"},
     "-delaySteadyStateCalc 30000 "
     "ms is longer than "
     "-steadyStateTime 29 s."},
    {{"-maxOutputBufs", "10"}, "-maxOutputBufs 10 is less than -outputBufs 5000."},
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
    const char *const cases[][12] = {
        {"-requestRate", "1000"},
        {"-postingRate", "1000", "-postingLatencyRate", "1000"},
        {"-genericMsgRate", "1000", "-genericMsgLatencyRate", "1000"},
        {"-tickRate", "10", "-postingRate", "10", "-postingLatencyRate", "10", "-requestRate",
         "10"},
        {"-steadyStateTime", "30", "-delaySteadyStateCalc", "30000"},
        {"-steadyStateTime", "0", "-delaySteadyStateCalc", "999"},
        {"-itemCount", "10", "-threads", "0,0", "-commonItemCount", "5"},
        {"-snapshot", "-steadyStateTime", "0"},
        {"-maxOutputBufs", "5000"},
        {"-threads", "P:0 C:0 T:0, P:0 C:# T:#,-1,0,0,0,0,0"},
        {"-itemCount", "0"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_accepted(i, cases[i]);
}

/* -connType encrypted: the CA store is read at start (exit 2 when it cannot be); -spTLSv1.2 and
 * the system's store are accepted; WebSocket inside TLS is refused with the reason. */
static void test_tls_settings(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-connType", "encrypted", "-castore", "/nonexistent/ca.pem");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(
        strstr(r.err.text, "Config Error: CA store /nonexistent/ca.pem cannot be read"));
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-spTLSv1.2", "-encryptedConnType", "socket");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.conn_type, TP_CONN_ENCRYPTED);
    assert_true(r.cfg.opts.tls.sp_tls12);
    assert_int_equal(run_tls_protocol_flags(&r.cfg.opts.tls), 4);
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-encryptedConnType", "websocket", "-pl", "rssl.json.v2");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(run_conn_websocket(&r.cfg.opts));
    run_free(&r);
    PARSE(&r, "-connType", "websocket", "-pl", "rssl.rwf, json");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config Error: -pl: unknown WebSocket sub-protocol 'json'"));
    run_free(&r);
    /* the original's words for the JSON options without WebSocket */
    PARSE(&r, "-calcRWFJSONConversionLatency");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config error: -calcRWFJSONConversionLatency enables for "
                                       "WebSocket connection only."));
    run_free(&r);
    PARSE(&r, "-addConversionOverhead", "-connType", "encrypted");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config error: -addConversionOverhead enables for "
                                       "WebSocket connection only."));
    run_free(&r);
    PARSE(&r, "-jsonAllocatorSize");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    run_free(&r);
    /* with the reactor: the original's words; WebSocket itself is carried by the reactor */
    PARSE(&r, "-connType", "websocket", "-calcRWFJSONConversionLatency", "-reactor");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text,
                           "Config error: Should not combine "
                           "-calcRWFJSONConversionLatency and -reactor or -watchlist."));
    run_free(&r);
    PARSE(&r, "-connType", "websocket", "-addConversionOverhead", "-watchlist");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config error: Should not combine -addConversionOverhead "
                                       "and -reactor or -watchlist."));
    run_free(&r);
    PARSE(&r, "-connType", "websocket", "-pl", "rssl.rwf", "-reactor");
    assert_int_equal(r.status, OPT_CONTINUE);
    run_free(&r);
    PARSE(&r, "-connType", "encrypted", "-encryptedConnType", "websocket", "-pl", "rssl.json.v2",
          "-watchlist");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(run_conn_websocket(&r.cfg.opts));
    run_free(&r);
    PARSE(&r, "-connType", "websocket", "-jsonAllocatorSize", "512", "-addConversionOverhead");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.json_allocator_size, 512);
    assert_true(r.cfg.add_conversion);
    run_free(&r);
}

static void test_refused(void **state)
{
    (void)state;
    const char *const cases[][3] = {
        {"-connType", "http"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_not_built(i, cases[i]);
}

/* Warm standby: on only with the four host/port options (login based by default), then it
 * needs -watchlist (the original's message) and refuses -tunnel; the mode words; the input
 * lines. */
static void test_warm_standby_options(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-watchlist", "-startingHostName", "a", "-startingPort", "1", "-standbyHostName", "b",
          "-warmStandbyMode", "service");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(cons_wsb_mode(&r.cfg), CONS_WSB_NONE); /* -standbyPort missing */
    run_free(&r);
    PARSE(&r, "-watchlist", "-startingHostName", "a", "-startingPort", "1", "-standbyHostName", "b",
          "-standbyPort", "2");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(cons_wsb_mode(&r.cfg), CONS_WSB_LOGIN);
    assert_string_equal(r.cfg.wsb_start_host, "a");
    assert_string_equal(r.cfg.wsb_standby_port, "2");
    run_free(&r);
    PARSE(&r, "-watchlist", "-startingHostName", "a", "-startingPort", "1", "-standbyHostName", "b",
          "-standbyPort", "2", "-warmStandbyMode", "service");
    assert_int_equal(cons_wsb_mode(&r.cfg), CONS_WSB_SERVICE);
    run_free(&r);
    PARSE(&r, "-startingHostName", "a", "-startingPort", "1", "-standbyHostName", "b",
          "-standbyPort", "2");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(
        r.err.text,
        "Config error: -watchlist must be specified in order to use the warm standby feature."));
    run_free(&r);
    PARSE(&r, "-watchlist", "-tunnel", "-startingHostName", "a", "-startingPort", "1",
          "-standbyHostName", "b", "-standbyPort", "2");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "-tunnel with warm standby is not supported"));
    run_free(&r);
    PARSE(&r, "-watchlist", "-warmStandbyMode", "hot");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "hot"));
    run_free(&r);
}

/* -tunnel needs -reactor or -watchlist (the original's message); the other tunnel options. */
static void test_tunnel_options(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-tunnel");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_string_equal(r.err.text, "Config error: Should add -reactor or -watchlist to create and "
                                    "use special tunnel streams.\nRun 'ConsPerf -?' to see "
                                    "usage.\n\n");
    run_free(&r);
    PARSE(&r, "-watchlist", "-tunnel", "-tunnelAuth", "-tunnelStreamOutputBufs", "10",
          "-tunnelStreamBuffersUsed");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_true(r.cfg.tunnel && r.cfg.tunnel_auth && r.cfg.opts.tunnel_bufs_used);
    assert_int_equal(r.cfg.opts.tunnel_output_bufs, 10);
    run_free(&r);
    PARSE(&r, "-reactor", "-tunnel");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.tunnel_output_bufs, 15000);
    run_free(&r);
    PARSE(&r, "-reactor", "-tunnelStreamOutputBufs", "0");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    run_free(&r);
}

static void test_usage(void **state)
{
    (void)state;
    const char *const forms[] = {"-?", "-help"};
    for (int k = 0; k < 2; k++) {
        run r;
        const char *args[] = {"-itemCount", "5", forms[k], NULL};
        parse_args(&r, args);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err.text, "");
        assert_non_null(strstr(r.out.text, "Usage: ConsPerf [options]"));
        for (const opt_def *d = cons_options; d->name || d->kind == OPT_SECTION; d++)
            if (d->name && !strstr(r.out.text, d->name))
                fail_msg("usage lacks %s", d->name);
        assert_non_null(strstr(r.out.text, "(default: 500000)"));
        assert_non_null(strstr(r.out.text, "(default: DIRECT_FEED)"));
        run_free(&r);
    }
}

/* The TEST INPUTS block of a vector's summary file or console output. */
static char *vector_inputs(const char *rel)
{
    char *text = tt_vector(rel);
    char *block = tt_section(text, "--- TEST INPUTS ---", "          Measure Decode: ");
    char *tail = tt_section(text, "          Measure Decode: ", NULL);
    /* Keep the last input line and the blank line after it. */
    size_t line = strcspn(tail, "\n") + 1;
    size_t n = strlen(block);
    block = realloc(block, n + line + 2);
    memcpy(block + n, tail, line);
    strcpy(block + n + line, "\n");
    free(text);
    free(tail);
    return block;
}

/* The reactor modes' inputs against the original's reactor and watchlist captures (3.7.2, whose
 * "Use JSON Converter" and "JSON Allocator Size" lines belong to a converter this build has
 * not: they are left out of the comparison). */
static void test_inputs_match_reactor_vectors(void **state)
{
    (void)state;
    /* The captures' command lines (tests/data/captures/<dir>/commands.txt) after -h, -p, the file
     * names. */
    static const struct {
        const char *dir, *name;
        const char *args[20];
    } v_[] = {
        {"reactor", "reactor", {"-reactor", "-itemCount", "5", "-steadyStateTime", "5", NULL}},
        {"watchlist", "watchlist", {"-watchlist", "-itemCount", "5", "-steadyStateTime", "5"}},
        {"tunnel",
         "tunnel",
         {"-watchlist", "-tunnel", "-itemCount", "5", "-steadyStateTime", "5", "-tickRate", "10",
          "-postingRate", "10", "-postingLatencyRate", "2", "-genericMsgRate", "10",
          "-genericMsgLatencyRate", "2", "-tunnelStreamBuffersUsed"}},
        {"tunnel",
         "tunnel_auth",
         {"-watchlist", "-tunnel", "-tunnelAuth", "-itemCount", "5", "-steadyStateTime", "5",
          "-tickRate", "10", "-postingRate", "10", "-postingLatencyRate", "2", "-genericMsgRate",
          "10", "-genericMsgLatencyRate", "2", "-tunnelStreamBuffersUsed"}},
        {"tunnel",
         "tunnel_reactor",
         {"-reactor", "-tunnel", "-itemCount", "5", "-steadyStateTime", "5", "-tickRate", "10",
          "-postingRate", "10", "-postingLatencyRate", "2", "-genericMsgRate", "10",
          "-genericMsgLatencyRate", "2"}},
    };
    for (size_t v = 0; v < sizeof(v_) / sizeof(v_[0]); v++) {
        char summary[128], rel[256];
        snprintf(summary, sizeof(summary), "%s.ConsSummary.out", v_[v].name);
        const char *args[40] = {"-h",           "localhost", "-p",         "14202",
                                "-summaryFile", summary,     "-statsFile", "consstats"};
        int n = 8;
        for (int k = 0; v_[v].args[k]; k++)
            args[n++] = v_[v].args[k];
        args[n] = NULL;
        run r;
        parse_args(&r, args);
        assert_int_equal(r.status, OPT_CONTINUE);
        tt_capture got;
        tt_capture_open(&got);
        out_report rep;
        out_report_init(&rep, NULL, got.f);
        out_extra extra = {.clock_cost_ns = 20.5, .clock_resolution_ns = 1};
        cons_config_print(&r.cfg, &extra, &rep);
        tt_capture_close(&got);
        const char *also[] = {"      Max Output Buffers: ", "    Expected Update Rate: ", NULL};
        char *ours = tt_drop_ours(got.text, also);
        snprintf(rel, sizeof(rel), "%s/%s.cons.stdout", v_[v].dir, v_[v].name);
        char *want = vector_inputs(rel);
        const char *json[] = {"      Use JSON Converter: ", "     JSON Allocator Size: ", NULL};
        char *want_ours = tt_drop_ours(want, json);
        tt_assert_lines_equal(ours, want_ours);
        free(want);
        free(want_ours);
        free(ours);
        tt_capture_free(&got);
        run_free(&r);
    }
}

static void test_inputs_match_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *extra[21];
    } vectors[] = {
        {"consprov_default", {"-statsFile", "capstats"}},
        {"consprov_tcpdelay", {"-statsFile", "capstats", "-tcpDelay"}},
        {"consprov_pack", {"-statsFile", "capstats"}},
        {"consprov_zlib", {"-statsFile", "capstats", "-compressionType", "1"}},
        {"consprov_lz4", {"-statsFile", "capstats", "-compressionType", "2"}},
        /* the WebSocket runs (ETA 3.7): their three JSON lines and the -pl line */
        {"ws_json/ws_json",
         {"-h", "localhost", "-p", "14512", "-connType", "websocket", "-pl", "rssl.json.v2",
          "-tickRate", "10"}},
        {"ws_rwf/ws_rwf_calc",
         {"-h", "localhost", "-p", "14519", "-connType", "websocket", "-pl", "rssl.rwf",
          "-calcRWFJSONConversionLatency", "-tickRate", "10"}},
        {"ws_json/ws_json_conv",
         {"-h", "localhost", "-p", "14518", "-connType", "websocket", "-pl", "rssl.json.v2",
          "-addConversionOverhead", "-tickRate", "10", "-postingRate", "10", "-postingLatencyRate",
          "5", "-genericMsgRate", "10", "-genericMsgLatencyRate", "5"}},
    };
    for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
        char summary[128], rel[256], dir[64];
        const char *base = strchr(vectors[v].name, '/');
        base = base ? base + 1 : vectors[v].name;
        snprintf(dir, sizeof(dir), "%.*s", (int)(base - vectors[v].name), vectors[v].name);
        if (!dir[0])
            snprintf(dir, sizeof(dir), "%s/", base);
        snprintf(summary, sizeof(summary), "%s.ConsSummary.out", base);
        /* The capture's command line, plus the file names it was run with. */
        const char *args[32] = {"-itemCount",   "5",    "-steadyStateTime", "5",
                                "-summaryFile", summary};
        int n = 6;
        for (int k = 0; vectors[v].extra[k]; k++)
            args[n++] = vectors[v].extra[k];
        args[n] = NULL;
        run r;
        parse_args(&r, args);
        assert_int_equal(r.status, OPT_CONTINUE);

        tt_capture got;
        tt_capture_open(&got);
        out_report rep;
        out_report_init(&rep, NULL, got.f);
        out_extra extra = {.clock_cost_ns = 20.5, .clock_resolution_ns = 1};
        cons_config_print(&r.cfg, &extra, &rep);
        tt_capture_close(&got);

        const char *also[] = {"      Max Output Buffers: ", "    Expected Update Rate: ", NULL};
        char *ours_dropped = tt_drop_ours(got.text, also);
        snprintf(rel, sizeof(rel), "%s%s.ConsSummary.out", dir, base);
        char *want = vector_inputs(rel);
        tt_assert_lines_equal(ours_dropped, want);
        free(want);
        snprintf(rel, sizeof(rel), "%s%s.cons.stdout", dir, base);
        want = vector_inputs(rel);
        tt_assert_lines_equal(ours_dropped, want);
        free(want);
        free(ours_dropped);

        /* Our lines come after the original's last one, before the closing blank line. */
        const char *tail = strstr(got.text, "          Measure Decode: No\n");
        assert_non_null(tail);
        char expect_tail[512];
        snprintf(expect_tail, sizeof(expect_tail),
                 "          Measure Decode: No\n"
                 "      Max Output Buffers: 5000\n"
                 "    Expected Update Rate: 0\n"
                 "         Clock Cost (ns): 20.5\n"
                 "   Clock Resolution (ns): 1\n"
                 "       JSON Summary File: %s.ConsSummary.json\n\n",
                 base);
        assert_string_equal(tail, expect_tail);
        tt_capture_free(&got);
        run_free(&r);
    }
}

static void test_inputs_values(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-threads", "0, -1", "-sendBufSize", "65536", "-highWaterMark", "1000", "-if", "eth1",
          "-uname", "perf", "-latencyFile", "lat", "-snapshot", "-nanoTime", "-measureDecode",
          "-maxOutputBufs", "8000");
    assert_int_equal(r.status, OPT_CONTINUE);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, got.f, NULL);
    cons_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    const char *want_lines[] = {
        "             Thread List: 0, -1\n",
        "        Send Buffer Size: 65536 bytes\n",
        "        Recv Buffer Size: 0(use default)\n",
        "         High Water Mark: 1000 bytes\n",
        "          Interface Name: eth1\n",
        "                Username: perf\n",
        "       Request Snapshots: Yes\n",
        "        Latency Log File: lat\n",
        "      Nanosecond Latency: Yes\n",
        ("          Measure Decode: Yes\n      Max Output Buffers: 8000\n"
         "    Expected Update Rate: 0\n"
         "       JSON Summary File: ConsSummary.json\n\n"),
    };
    for (size_t i = 0; i < sizeof(want_lines) / sizeof(want_lines[0]); i++)
        if (!strstr(got.text, want_lines[i]))
            fail_msg("TEST INPUTS lack \"%s\":\n%s", want_lines[i], got.text);
    assert_null(strstr(got.text, "Clock Cost"));
    tt_capture_free(&got);
    run_free(&r);
}

static void test_json_inputs(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-itemCount", "5", "-threads", "0,-1", "-tcpDelay", "-compressionType", "zlib");
    json_object *o = cons_config_json(&r.cfg);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "itemCount", &v));
    assert_int_equal(json_object_get_int(v), 5);
    assert_true(json_object_object_get_ex(o, "threadCount", &v));
    assert_int_equal(json_object_get_int(v), 2);
    assert_true(json_object_object_get_ex(o, "threads", &v));
    assert_int_equal(json_object_array_length(v), 2);
    assert_true(json_object_object_get_ex(o, "tcpDelay", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(o, "compressionType", &v));
    assert_string_equal(json_object_get_string(v), "zlib");
    assert_true(json_object_object_get_ex(o, "serviceName", &v));
    assert_string_equal(json_object_get_string(v), "DIRECT_FEED");
    assert_true(json_object_object_get_ex(o, "noDisplayStats", &v));
    assert_false(json_object_get_boolean(v));
    /* Every accepted option is present. */
    tt_json_has_options(o, cons_options, false);
    json_object_put(o);
    run_free(&r);
}

/* -tlsRecords and -tlsAesGcm (ours): their TEST INPUTS lines come after ours, for encrypted
 * connections only, and the JSON inputs carry their words. */
static void test_tls_record_inputs(void **state)
{
    (void)state;
    for (int encrypted = 0; encrypted < 2; encrypted++) {
        run r;
        if (encrypted)
            PARSE(&r, "-connType", "encrypted", "-tlsRecords", "read", "-tlsAesGcm", "openssl");
        else
            PARSE(&r, "-tlsRecords", "read", "-tlsAesGcm", "openssl");
        assert_int_equal(r.status, OPT_CONTINUE);
        tt_capture got;
        tt_capture_open(&got);
        out_report rep;
        out_report_init(&rep, got.f, NULL);
        cons_config_print(&r.cfg, NULL, &rep);
        tt_capture_close(&got);
        const char *lines = strstr(got.text, "    Expected Update Rate: 0\n"
                                             "             TLS Records: read\n"
                                             "             TLS AES-GCM: openssl\n");
        if (encrypted ? !lines : strstr(got.text, "TLS Records") != NULL)
            fail_msg("TEST INPUTS (%s):\n%s", encrypted ? "encrypted" : "socket", got.text);
        tt_capture_free(&got);
        json_object *o = cons_config_json(&r.cfg), *v;
        assert_true(json_object_object_get_ex(o, "tlsRecords", &v));
        assert_string_equal(json_object_get_string(v), "read");
        assert_true(json_object_object_get_ex(o, "tlsAesGcm", &v));
        assert_string_equal(json_object_get_string(v), "openssl");
        json_object_put(o);
        run_free(&r);
    }
}

static void test_random_command_lines(void **state)
{
    (void)state;
    tt_random_command_lines(init_any, cons_options, 3000);
}

/* -clock (ours): monotonic by default, realtime, nothing else; listed among ours. */
static void test_clock(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_int_equal(r.cfg.opts.clock, CLK_SRC_MONOTONIC);
    run_free(&r);
    PARSE(&r, "-clock", "realtime");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.clock, CLK_SRC_REALTIME);
    run_free(&r);
    PARSE(&r, "-clock", "monotonic");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.clock, CLK_SRC_MONOTONIC);
    run_free(&r);
    PARSE(&r, "-clock", "sundial");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "-clock"));
    run_free(&r);
    PARSE(&r, "-?");
    const char *ours = strstr(r.out.text, "  -histogramLog ");
    assert_non_null(ours);
    assert_non_null(strstr(ours, "  -clock <monotonic|realtime>"));
    run_free(&r);
    PARSE(&r, "-version");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out.text, "ConsPerf " RWFPERF_VERSION " "));
    run_free(&r);
}

/* -histogramLog (ours): none by default, a base name, listed after the original's options. */
static void test_histogram_log(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_string_equal(r.cfg.opts.histogram_log, "");
    run_free(&r);
    PARSE(&r, "-histogramLog", "hl");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_string_equal(r.cfg.opts.histogram_log, "hl");
    run_free(&r);
    PARSE(&r, "-?");
    /* After every option of the original's that this build has. */
    const char *ours = strstr(r.out.text, "  -histogramLog ");
    assert_non_null(ours);
    for (const opt_def *d = cons_options; d->name || d->kind == OPT_SECTION; d++) {
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
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_boundaries_accepted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_warm_standby_options),
        cmocka_unit_test(test_tls_settings),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_histogram_log),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_inputs_match_vectors),
        cmocka_unit_test(test_inputs_match_reactor_vectors),
        cmocka_unit_test(test_tunnel_options),
        cmocka_unit_test(test_inputs_values),
        cmocka_unit_test(test_json_inputs),
        cmocka_unit_test(test_tls_record_inputs),
        cmocka_unit_test(test_random_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
