/* TransportPerf configuration: every option's default and validation, refused options, file
 * names with the process id, usage, and the TEST INPUTS block against the original's console
 * output for the command lines of every transportperf vector. */
#include "tools_test.h"

#include "config.h"
#include "err.h"

TT_CONFIG_FIXTURE(tperf_config, tperf_config_init, "TransportPerf")

static void test_defaults(void **state)
{
    (void)state;
    run r;
    parse_args(&r, NULL);
    assert_int_equal(r.status, OPT_CONTINUE);
    const tperf_config *c = &r.cfg;
    char want[64];
    assert_int_equal(c->pid, (int)getpid());
    assert_int_equal(c->app_type, TPERF_SERVER);
    assert_int_equal(c->opts.conn_type, TP_CONN_SOCKET);
    assert_string_equal(c->opts.host, "localhost");
    assert_string_equal(c->opts.port, "14002");
    assert_string_equal(c->opts.interface_name, "");
    assert_int_equal(tperf_config_threads(c), 1);
    assert_int_equal(c->opts.output_bufs, 5000);
    assert_int_equal(c->opts.input_bufs, 50);
    assert_int_equal(c->opts.max_fragment_size, 6144);
    assert_int_equal(c->opts.send_buf_size, 0);
    assert_int_equal(c->opts.recv_buf_size, 0);
    assert_int_equal(c->opts.high_water_mark, 0);
    assert_int_equal(c->opts.compression_type, 0);
    assert_int_equal(c->opts.compression_level, 5);
    assert_true(c->opts.tcp_nodelay);
    assert_false(c->opts.direct_write);
    assert_false(c->busy_read);
    assert_int_equal(c->opts.run_time, 300);
    assert_int_equal(c->opts.tick_rate, 1000);
    assert_int_equal(c->msg_rate, 100000);
    assert_int_equal(c->latency_msg_rate, 10);
    assert_int_equal(c->msg_size, 76);
    assert_int_equal(c->pack, 1);
    assert_false(c->reflect_msgs);
    snprintf(want, sizeof(want), "TransportSummary_%d.out", (int)getpid());
    assert_string_equal(c->opts.summary_file, want);
    assert_string_equal(c->opts.stats_file, "TransportStats");
    assert_string_equal(c->opts.latency_file, "");
    assert_int_equal(c->opts.write_stats_interval, 5);
    assert_true(c->opts.display_stats);
    assert_int_equal(tperf_config_pack_bytes(c), 84);
    run_free(&r);
}

static void test_every_option(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-appType", "client", "-connType", "socket", "-h", "apphost1", "-p", "15000", "-if",
          "eth0", "-outputBufs", "9000", "-inputBufs", "60", "-maxFragmentSize", "256",
          "-sendBufSize", "100", "-recvBufSize", "200", "-highWaterMark", "300", "-compressionType",
          "zlib", "-compressionLevel", "9", "-tcpDelay", "-directWrite", "-busyRead", "-threads",
          "0,-1", "-runTime", "60", "-tickRate", "100", "-msgRate", "1000", "-latencyMsgRate",
          "all", "-msgSize", "16", "-pack", "5", "-summaryFile", "sum", "-statsFile", "st",
          "-latencyFile", "lat", "-writeStatsInterval", "1", "-noDisplayStats");
    if (r.status != OPT_CONTINUE)
        fail_msg("refused: %s", r.err.text);
    const tperf_config *c = &r.cfg;
    int pid = (int)getpid();
    char want[128];
    assert_int_equal(c->app_type, TPERF_CLIENT);
    assert_string_equal(c->opts.host, "apphost1");
    assert_string_equal(c->opts.port, "15000");
    assert_string_equal(c->opts.interface_name, "eth0");
    assert_int_equal(c->opts.output_bufs, 9000);
    assert_int_equal(c->opts.input_bufs, 60);
    assert_int_equal(c->opts.max_fragment_size, 256);
    assert_int_equal(c->opts.send_buf_size, 100);
    assert_int_equal(c->opts.recv_buf_size, 200);
    assert_int_equal(c->opts.high_water_mark, 300);
    assert_int_equal(c->opts.compression_type, 1);
    assert_int_equal(c->opts.compression_level, 9);
    assert_false(c->opts.tcp_nodelay);
    assert_true(c->opts.direct_write);
    assert_true(c->busy_read);
    assert_int_equal(tperf_config_threads(c), 2);
    assert_int_equal(c->opts.run_time, 60);
    assert_int_equal(c->opts.tick_rate, 100);
    assert_int_equal(c->msg_rate, 1000);
    assert_int_equal(c->latency_msg_rate, OPT_RATE_ALL);
    assert_int_equal(tperf_config_latency_rate(c), 1000);
    assert_int_equal(c->msg_size, 16);
    assert_int_equal(c->pack, 5);
    assert_int_equal(tperf_config_pack_bytes(c), 120);
    snprintf(want, sizeof(want), "sum_%d.out", pid);
    assert_string_equal(c->opts.summary_file, want);
    snprintf(want, sizeof(want), "st_%d", pid);
    assert_string_equal(c->opts.stats_file, want);
    assert_string_equal(c->opts.latency_file, "lat");
    assert_int_equal(c->opts.write_stats_interval, 1);
    assert_false(c->opts.display_stats);
    run_free(&r);

    PARSE(&r, "-summaryFileStatic", "run1", "-statsFileStatic", "stats", "-reflectMsgs",
          "-connType", "shmem", "-reflectMsgs");
    assert_int_equal(r.status, OPT_EXIT_INVALID); /* shmem cannot reflect */
    run_free(&r);
    PARSE(&r, "-summaryFileStatic", "run1", "-statsFileStatic", "stats", "-reflectMsgs");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_string_equal(r.cfg.opts.summary_file, "run1.out");
    assert_string_equal(r.cfg.opts.stats_file, "stats");
    assert_true(r.cfg.reflect_msgs);
    run_free(&r);

    /* Sequenced multicast: the capture's receiver, and our options */
    PARSE(&r, "-appType", "client", "-connType", "seqMCast", "-sa", "239.1.2.3", "-sp", "30001",
          "-ra", "239.1.2.4", "-rp", "30002", "-u", "40000", "-if", "127.0.0.1", "-mcastStats",
          "-seqGaps", "count", "-recvLoss", "0.25", "-recvLossSeed", "7");
    if (r.status != OPT_CONTINUE)
        fail_msg("refused: %s", r.err.text);
    assert_int_equal(r.cfg.opts.conn_type, TP_CONN_SEQ_MCAST);
    assert_string_equal(r.cfg.opts.mc.send_addr, "239.1.2.3");
    assert_string_equal(r.cfg.opts.mc.send_port, "30001");
    assert_string_equal(r.cfg.opts.mc.recv_addr, "239.1.2.4");
    assert_string_equal(r.cfg.opts.mc.recv_port, "30002");
    assert_string_equal(r.cfg.opts.mc.unicast_port, "40000");
    assert_true(r.cfg.mcast_stats);
    assert_int_equal(r.cfg.gap_mode, TPERF_GAPS_COUNT);
    assert_int_equal(r.cfg.opts.mc.recv_loss_ppm, 2500);
    assert_int_equal(r.cfg.opts.mc.recv_loss_seed, 7);
    run_free(&r);
    PARSE(&r, "-appType", "client");
    assert_int_equal(r.cfg.gap_mode, TPERF_GAPS_FAIL);
    assert_false(r.cfg.mcast_stats);
    assert_int_equal(r.cfg.opts.mc.recv_loss_ppm, 0);
    run_free(&r);

    /* The guide's shared-memory scenario. */
    PARSE(&r, "-p", "15000", "-connType", "shmem", "-runTime", "60", "-latencyMsgRate", "0",
          "-msgRate", "0", "-tickRate", "1000", "-appType", "client", "-threads", "0");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.conn_type, TP_CONN_SHMEM);
    run_free(&r);
}

typedef struct bad_case {
    const char *args[10];
    const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {{"-xyz"}, "Config Error: Unrecognized option: -xyz"},
    {{"-msgSize"}, "Config error: -msgSize missing argument."},
    {{"-appType", "peer"}, "-appType peer: unknown value (expected one of: server, client)."},
    {{"-connType", "tcp"}, "-connType tcp: unknown value"},
    {{"-compressionType", "gzip"}, "-compressionType gzip: unknown value"},
    {{"-compressionType", "7"}, "-compressionType 7: unknown value"},
    {{"-compressionLevel", "10"}, "-compressionLevel 10: value must be from 0 to 9."},
    {{"-msgSize", "15"}, "-msgSize 15: value must be 16 or more."},
    {{"-pack", "0"}, "-pack 0: value must be 1 or more."},
    {{"-tickRate", "0"}, "-tickRate 0: value must be 1 or more."},
    {{"-writeStatsInterval", "0"}, "-writeStatsInterval 0: value must be 1 or more."},
    {{"-msgRate", "999"}, "-msgRate 999 is less than -tickRate 1000"},
    {{"-msgRate", "0"}, "-latencyMsgRate 10 is greater than -msgRate 0."},
    {{"-latencyMsgRate", "1001"}, "-latencyMsgRate 1001 is greater than -tickRate 1000"},
    {{"-appType", "client", "-connType", "shmem"},
     "a shared-memory client only reads: -msgRate "
     "must be 0 (it is 100000)."},
    {{"-connType", "shmem", "-reflectMsgs"}, "-reflectMsgs cannot be used with -connType shmem"},
    {{"-reflectMsgs", "-pack", "2"}, "-reflectMsgs cannot be used with -pack 2"},
    {{"-connType", "shmem", "-pack", "5"}, "-pack 5 cannot be used with -connType shmem"},
    {{"-threads", "0,zero"}, "Config Error: -threads entry 2 \"zero\""},
    {{"-connType", "seqMCast"},
     "Config Error: appType for Multicast connections must be client (a seqMCast channel has no "
     "server"},
    {{"-appType", "client", "-connType", "seqMCast", "-recvLoss", "101"},
     "-recvLoss 101: value must be a percentage from 0 to 100."},
    {{"-appType", "client", "-connType", "seqMCast", "-recvLoss", "1x"},
     "-recvLoss 1x: value must be a percentage"},
    {{"-appType", "client", "-recvLoss", "1"}, "-recvLoss drops multicast datagrams: it needs"},
    {{"-seqGaps", "skip"}, "-seqGaps skip: unknown value (expected one of: fail, count)."},
    {{"-connType", "reliableMCast"},
     "Config Error: -connType reliableMCast is not available in this build (reliable multicast: "
     "a closed-source protocol of the original SDK with no public description)."},
    {{"-connType", "http"},
     "Config Error: -connType http is not available in this build (HTTP tunnelling: Windows "
     "only in the original)."},
};

static void test_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        expect_invalid(i, bad_cases[i].args, bad_cases[i].msg);
}

/* -connType encrypted: a server needs its key and certificate, a client a readable CA store
 * (exit 2 at start otherwise). */
static void test_tls_settings(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-appType", "server", "-connType", "encrypted", "-cert", "/nonexistent/c.pem");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "Config Error: an encrypted server needs a private key"));
    run_free(&r);
    PARSE(&r, "-appType", "client", "-connType", "encrypted", "-castore", "/nonexistent/ca");
    assert_int_equal(r.status, OPT_EXIT_INVALID);
    assert_non_null(strstr(r.err.text, "CA store /nonexistent/ca cannot be read"));
    run_free(&r);
    PARSE(&r, "-appType", "client", "-connType", "encrypted", "-encryptedConnType", "socket");
    assert_int_equal(r.status, OPT_CONTINUE);
    assert_int_equal(r.cfg.opts.conn_type, TP_CONN_ENCRYPTED);
    run_free(&r);
}

static void test_refused(void **state)
{
    (void)state;
    const char *const cases[][3] = {
        {"-connType", "http"},
        {"-connType", "reliableMCast"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_not_built(i, cases[i]);
}

static void test_usage(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-?");
    assert_int_equal(r.status, 0);
    for (const opt_def *d = tperf_options; d->name || d->kind == OPT_SECTION; d++)
        if (d->name && !strstr(r.out.text, d->name))
            fail_msg("usage lacks %s", d->name);
    assert_non_null(strstr(r.out.text, "<server|client>"));
    run_free(&r);
}

/* Splits line `which` (0 = server, 1 = client) of a vector's commands.txt into words, leaving
 * out the program name, and adds the file-name options the capture was run with. */
static int vector_args(const char *vector, int which, const char *side, char *store, size_t cap,
                       const char **args)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/commands.txt", vector);
    char *text = tt_vector(rel);
    char *line = text;
    for (int i = 0; i < which; i++)
        line = strchr(line, '\n') + 1;
    line[strcspn(line, "\n")] = '\0';
    snprintf(store, cap, "%s -summaryFileStatic %s.%s_summary -statsFileStatic capstats", line,
             vector, side);
    free(text);
    int n = 0;
    for (char *w = strtok(store, " "); w; w = strtok(NULL, " "))
        if (strcmp(w, "TransportPerf") != 0)
            args[n++] = w;
    args[n] = NULL;
    return n;
}

static const char *const tperf_vectors[] = {
    "transportperf_socket",  "transportperf_socket_pack", "transportperf_zlib",
    "transportperf_lz4",     "transportperf_zlib_msg512", "transportperf_lz4_msg512",
    "transportperf_reflect",
};

static void test_inputs_match_vectors(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof(tperf_vectors) / sizeof(tperf_vectors[0]); v++) {
        for (int side = 0; side < 2; side++) {
            const char *name = side ? "client" : "server";
            char store[1024], rel[256];
            const char *args[64];
            vector_args(tperf_vectors[v], side, name, store, sizeof(store), args);
            run r;
            parse_args(&r, args);
            if (r.status != OPT_CONTINUE)
                fail_msg("%s %s refused: %s", tperf_vectors[v], name, r.err.text);

            tt_capture got;
            tt_capture_open(&got);
            out_report rep;
            out_report_init(&rep, got.f, NULL);
            out_extra extra = {.clock_cost_ns = 20.0, .clock_resolution_ns = 1};
            tperf_config_print(&r.cfg, &extra, &rep);
            tt_capture_close(&got);
            char *mine = tt_drop_ours(got.text, (const char *const[]){"  Input Buffers: ", NULL});
            snprintf(rel, sizeof(rel), "%s/%s.%s.stdout", tperf_vectors[v], tperf_vectors[v], name);
            char *text = tt_vector(rel);
            char *want = tt_section(text, NULL, side ? "\n\nAttempting to connect" : "\n\nServer ");
            /* The block ends with "Packing: ...\n" and the blank line after it. */
            size_t n = strlen(want);
            want = realloc(want, n + 2);
            strcpy(want + n, "\n");
            tt_assert_lines_equal(mine, want);
            free(text);
            free(want);
            free(mine);
            char tail[256];
            snprintf(tail, sizeof(tail),
                     "         Input Buffers: 50\n"
                     "       Clock Cost (ns): 20.0\n"
                     " Clock Resolution (ns): 1\n"
                     "     JSON Summary File: %s.%s_summary.json\n\n",
                     tperf_vectors[v], name);
            assert_non_null(strstr(got.text, tail));
            tt_capture_free(&got);
            run_free(&r);
        }
    }
}

/* The receiver of the capture seqmcast: its TEST INPUTS block, line for line (the process id
 * in the file names is ours). */
static void test_inputs_match_seqmcast(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-appType", "client", "-connType", "seqMCast", "-sa", "239.1.2.3", "-sp", "30001",
          "-ra", "239.1.2.3", "-rp", "30001", "-if", "127.0.0.1", "-msgRate", "0",
          "-latencyMsgRate", "0", "-recvBufSize", "8000000", "-runTime", "9", "-mcastStats",
          "-summaryFile", "seqmcast.recv.summary.out", "-statsFile", "recvstats");
    if (r.status != OPT_CONTINUE)
        fail_msg("refused: %s", r.err.text);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, got.f, NULL);
    tperf_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    char *mine = tt_drop_ours(
        got.text, (const char *const[]){"  Input Buffers: ", "  Sequence Gaps: ", NULL});
    char *text = tt_vector("seqmcast/seqmcast.receiver.stdout");
    char *want = tt_section(text, NULL, "\n\nAttempting segmented connect");
    size_t n = strlen(want);
    want = realloc(want, n + 2);
    strcpy(want + n, "\n");
    /* the original's process id was 366 */
    char pid[16], *at;
    snprintf(pid, sizeof(pid), "_%d", (int)getpid());
    while ((at = strstr(want, "_366")) != NULL) {
        char *fixed = malloc(strlen(want) + strlen(pid) + 1);
        snprintf(fixed, strlen(want) + strlen(pid) + 1, "%.*s%s%s", (int)(at - want), want, pid,
                 at + 4);
        free(want);
        want = fixed;
    }
    tt_assert_lines_equal(mine, want);
    assert_non_null(strstr(got.text, "         Sequence Gaps: fail at the first\n"));
    free(text);
    free(want);
    free(mine);
    tt_capture_free(&got);
    run_free(&r);
}

static void test_inputs_values(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-threads", " 0 , -1", "-latencyMsgRate", "all", "-msgRate", "2000", "-latencyFile",
          "lat", "-connType", "shmem", "-highWaterMark", "6000", "-busyRead");
    assert_int_equal(r.status, OPT_CONTINUE);
    tt_capture got;
    tt_capture_open(&got);
    out_report rep;
    out_report_init(&rep, NULL, got.f);
    tperf_config_print(&r.cfg, NULL, &rep);
    tt_capture_close(&got);
    char summary[128];
    snprintf(summary, sizeof(summary), "          Summary File: TransportSummary_%d.out\n",
             (int)getpid());
    const char *lines[] = {
        "           Thread List: 0,-1\n",
        "       Connection Type: shmem\n",
        "             Busy Read: Yes\n",
        "      Latency Msg Rate: 2000\n",
        "       High Water Mark: 6000 bytes\n",
        "      Latency Log File: lat\n",
        summary,
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        if (!strstr(got.text, lines[i]))
            fail_msg("TEST INPUTS lack \"%s\":\n%s", lines[i], got.text);
    tt_capture_free(&got);
    run_free(&r);
}

static void test_json_inputs(void **state)
{
    (void)state;
    run r;
    PARSE(&r, "-appType", "client", "-statsFileStatic", "x");
    json_object *o = tperf_config_json(&r.cfg);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "appType", &v));
    assert_string_equal(json_object_get_string(v), "client");
    assert_true(json_object_object_get_ex(o, "statsFile", &v));
    assert_string_equal(json_object_get_string(v), "x");
    assert_true(json_object_object_get_ex(o, "summaryFile", &v));
    tt_json_has_options(o, tperf_options, true);
    json_object_put(o);
    run_free(&r);
}

static void test_random_command_lines(void **state)
{
    (void)state;
    tt_random_command_lines(init_any, tperf_options, 3000);
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
    /* Ours after every option of the original's that this build has. */
    static const char *const mine[] = {"-histogramLog", "-clock",    "-noProgress",
                                       "-seqGaps",      "-recvLoss", "-recvLossSeed",
                                       "-tlsRecords",   "-tlsAesGcm"};
    const char *ours = strstr(r.out.text, "  -histogramLog ");
    assert_non_null(ours);
    for (const opt_def *d = tperf_options; d->name || d->kind == OPT_SECTION; d++) {
        bool is_mine = false;
        for (size_t k = 0; d->name && k < sizeof(mine) / sizeof(mine[0]); k++)
            is_mine |= strcmp(d->name, mine[k]) == 0;
        if (!d->name || d->kind == OPT_REFUSED || is_mine)
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
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_tls_settings),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_histogram_log),
        cmocka_unit_test(test_inputs_match_vectors),
        cmocka_unit_test(test_inputs_match_seqmcast),
        cmocka_unit_test(test_inputs_values),
        cmocka_unit_test(test_json_inputs),
        cmocka_unit_test(test_random_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
