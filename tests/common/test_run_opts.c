/* run_opts: the shared defaults, the option table entries over an embedded run_opts, and the
 * TEST INPUTS lines printed in the order each caller lists them. */
#include "testsupport.h"

#include "err.h"
#include "run_conn.h"
#include "run_opts.h"

#include <stdlib.h>
#include <string.h>

/* A tool's configuration as the tools have it: run_opts embedded, one field of its own. */
typedef struct tool_cfg {
    int own;
    run_opts opts;
} tool_cfg;

static const opt_name conn_types[] = {
    {"socket", 0, NULL},
    {"encrypted", TP_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

static const opt_def options[] = {
    RUN_OPT_CONN_TYPE(tool_cfg, opts, conn_types),
    RUN_OPT_HOST(tool_cfg, opts, "Host"),
    RUN_OPT_PORT(tool_cfg, opts, "Port"),
    RUN_OPT_SOCKET_SIZES(tool_cfg, opts),
    RUN_OPT_TCP_DELAY(tool_cfg, opts),
    RUN_OPT_THREADS(tool_cfg, opts, 4, "Threads"),
    RUN_OPT_RUN_TICK(tool_cfg, opts),
    RUN_OPT_ITEM_COUNTS(tool_cfg, opts, "Items", "Common items"),
    RUN_OPT_SUMMARY_STATS(tool_cfg, opts),
    RUN_OPT_STATS_OUTPUT(tool_cfg, opts),
    OPT_INT_("-own", tool_cfg, own, 0, 10, "<n>", "The tool's own"),
    RUN_TLS_RECORD_OPTIONS(tool_cfg, opts.tls),
    OPT_END_,
};

/* The text run_opts_print writes for keys, width w; the caller frees it. */
static char *print_text(const run_opts *o, int w, const run_in *keys)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    out_report r;
    out_report_init(&r, NULL, f);
    run_opts_print(&r, w, o, keys);
    fclose(f);
    return text;
}

static void test_defaults(void **state)
{
    (void)state;
    run_opts o;
    memset(&o, 0x5a, sizeof(o));
    run_opts_defaults(&o, "14003", "XSummary.out", "XStats");
    assert_string_equal(o.host, "localhost");
    assert_string_equal(o.port, "14003");
    assert_string_equal(o.interface_name, "");
    assert_int_equal(o.conn_type, 0);
    assert_int_equal(o.threads.count, 1);
    assert_string_equal(o.threads.list, "");
    assert_false(o.reactor);
    assert_int_equal(o.output_bufs, 5000);
    assert_int_equal(o.max_fragment_size, 6144);
    assert_true(o.tcp_nodelay);
    assert_false(o.direct_write);
    assert_string_equal(o.service_name, "DIRECT_FEED");
    assert_int_equal(o.tick_rate, 1000);
    assert_int_equal(o.item_count, 100000);
    assert_int_equal(o.common_item_count, 0);
    assert_int_equal(o.tunnel_output_bufs, 15000);
    assert_string_equal(o.item_file, "350k.xml");
    assert_string_equal(o.msg_file, "MsgData.xml");
    assert_string_equal(o.summary_file, "XSummary.out");
    assert_string_equal(o.stats_file, "XStats");
    assert_string_equal(o.latency_file, "");
    assert_string_equal(o.histogram_log, "");
    assert_int_equal(o.write_stats_interval, 5);
    assert_true(o.display_stats);
    /* the tool's to set */
    assert_int_equal(o.run_time, 0);
    assert_int_equal(o.compression_level, 0);
    assert_int_equal(o.max_output_bufs, 0);
    assert_int_equal(o.input_bufs, 0);
}

static void test_options(void **state)
{
    (void)state;
    tool_cfg c = {0};
    run_opts_defaults(&c.opts, "14002", "S.out", "St");
    char *argv[] = {"tool",         "-connType", "encrypted",       "-h",   "adh",        "-p",
                    "15000",        "-tcpDelay", "-sendBufSize",    "100",  "-threads",   "0,1",
                    "-runTime",     "9",         "-tickRate",       "50",   "-itemCount", "7",
                    "-summaryFile", "My.out",    "-noDisplayStats", "-own", "3"};
    int argc = (int)(sizeof(argv) / sizeof(argv[0]));
    assert_int_equal(opt_parse(options, argc, argv, &c), 0);
    assert_int_equal(c.opts.conn_type, TP_CONN_ENCRYPTED);
    assert_string_equal(c.opts.host, "adh");
    assert_string_equal(c.opts.port, "15000");
    assert_false(c.opts.tcp_nodelay);
    assert_int_equal(c.opts.send_buf_size, 100);
    assert_int_equal(c.opts.threads.count, 2);
    assert_int_equal(c.opts.run_time, 9);
    assert_int_equal(c.opts.tick_rate, 50);
    assert_int_equal(c.opts.item_count, 7);
    assert_string_equal(c.opts.summary_file, "My.out");
    assert_string_equal(c.opts.stats_file, "St");
    assert_false(c.opts.display_stats);
    assert_int_equal(c.own, 3);

    char *bad[] = {"tool", "-tickRate", "0"};
    assert_int_equal(opt_parse(options, 3, bad, &c), -1);
    assert_non_null(strstr(err_msg(), "-tickRate"));
}

/* The lines come in the order the keys are listed, each as the original tools print it. */
static void test_print_order(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "S.out", "St");
    o.send_buf_size = 65536;
    char *a = print_text(&o, 24,
                         (const run_in[]){RUN_IN_PORT, RUN_IN_SEND_BUF, RUN_IN_RECV_BUF,
                                          RUN_IN_INTERFACE, RUN_IN_NODELAY, RUN_IN_END});
    assert_string_equal(a, "                    Port: 14002\n"
                           "        Send Buffer Size: 65536 bytes\n"
                           "        Recv Buffer Size: 0(use default)\n"
                           "          Interface Name: (use default)\n"
                           "             Tcp_NoDelay: Yes\n");
    free(a);
    char *b = print_text(&o, 22,
                         (const run_in[]){RUN_IN_NODELAY, RUN_IN_INTERFACE, RUN_IN_RECV_BUF,
                                          RUN_IN_SEND_BUF, RUN_IN_PORT, RUN_IN_END});
    assert_string_equal(b, "           Tcp_NoDelay: Yes\n"
                           "        Interface Name: (use default)\n"
                           "      Recv Buffer Size: 0(use default)\n"
                           "      Send Buffer Size: 65536 bytes\n"
                           "                  Port: 14002\n");
    free(b);
}

/* The lines that are more than their field. */
static void test_print_rules(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "S.out", "St");
    o.generic_msg_rate = 2000;
    o.generic_msg_latency_rate = OPT_RATE_ALL;
    char *a = print_text(&o, 24,
                         (const run_in[]){RUN_IN_MAX_OUTPUT_BUFS, RUN_IN_USERNAME,
                                          RUN_IN_GENMSG_LAT_RATE, RUN_IN_LATENCY_LOG,
                                          RUN_IN_LATENCY_FILE, RUN_IN_THREADS, RUN_IN_END});
    assert_string_equal(a, "      Max Output Buffers: 5000\n"
                           "                Username: (use system login name)\n"
                           "Latency Generic Msg Rate: 2000\n"
                           "        Latency Log File: (none)\n"
                           "            Latency File: \n"
                           "             Thread List: (non)\n");
    free(a);
    o.max_output_bufs = 7000;
    strcpy(o.uname, "perf");
    strcpy(o.latency_file, "lat");
    strcpy(o.threads.list, "0,1");
    o.threads.count = 2;
    strcpy(o.worker_threads.list, "2,3");
    o.worker_threads.count = 2;
    o.reactor = true;
    char *b =
        print_text(&o, 24,
                   (const run_in[]){RUN_IN_MAX_OUTPUT_BUFS, RUN_IN_USERNAME, RUN_IN_LATENCY_LOG,
                                    RUN_IN_THREADS, RUN_IN_REACTOR, RUN_IN_END});
    assert_string_equal(b, "      Max Output Buffers: 7000\n"
                           "                Username: perf\n"
                           "        Latency Log File: lat\n"
                           "             Thread List: 0,1 {2,3}\n"
                           "             Use Reactor: Yes\n");
    free(b);
}

/* Every key prints one line with a label. */
static void test_print_every_key(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "S.out", "St");
    for (int k = RUN_IN_HOSTNAME; k <= RUN_IN_TLS_AES_GCM; k++) {
        char *t = print_text(&o, 24, (const run_in[]){(run_in)k, RUN_IN_END});
        const char *nl = strchr(t, '\n');
        assert_non_null(nl);
        assert_null(strchr(nl + 1, '\n'));
        const char *colon = strstr(t, ": ");
        assert_non_null(colon);
        assert_true(colon - t == 24);
        assert_true(t[23] != ' ');
        free(t);
    }
}

/* -tlsRecords and -tlsAesGcm (ours): transport and auto by default, their words parsed into
 * tp_opts by run_conn_tp (for encrypted connections), others refused; their TEST INPUTS
 * lines, auto with what it chooses on this CPU. */
static void test_tls_record_options(void **state)
{
    (void)state;
    tool_cfg c = {0};
    run_opts_defaults(&c.opts, "14002", "S.out", "St");
    assert_int_equal(c.opts.tls.records, TP_TLS_RECORDS_TRANSPORT);
    assert_int_equal(c.opts.tls.gcm, TP_TLS_GCM_AUTO);
    tp_opts o;
    const run_link link = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF};
    tp_opts_init(&o);
    assert_int_equal(o.tls_records, TP_TLS_RECORDS_TRANSPORT);
    assert_int_equal(o.tls_gcm, TP_TLS_GCM_AUTO);
    char *t = print_text(&c.opts, 24,
                         (const run_in[]){RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM, RUN_IN_END});
    assert_string_equal(t, tp_tls_vaes_available() ? "             TLS Records: transport\n"
                                                     "             TLS AES-GCM: auto (vaes)\n"
                                                   : "             TLS Records: transport\n"
                                                     "             TLS AES-GCM: auto (openssl)\n");
    free(t);

    static const struct {
        const char *records, *gcm;
        tp_tls_records r;
        tp_tls_gcm g;
    } words[] = {
        {"read", "openssl", TP_TLS_RECORDS_READ, TP_TLS_GCM_OPENSSL},
        {"write", "vaes", TP_TLS_RECORDS_WRITE, TP_TLS_GCM_VAES},
        {"openssl", "auto", TP_TLS_RECORDS_OPENSSL, TP_TLS_GCM_AUTO},
        {"transport", "openssl", TP_TLS_RECORDS_TRANSPORT, TP_TLS_GCM_OPENSSL},
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        char *argv[] = {"tool", "-tlsRecords", (char *)words[i].records, "-tlsAesGcm",
                        (char *)words[i].gcm};
        assert_int_equal(opt_parse(options, 5, argv, &c), 0);
        c.opts.conn_type = TP_CONN_ENCRYPTED;
        run_conn_tp(&c.opts, &link, &o);
        assert_int_equal(o.tls_records, words[i].r);
        assert_int_equal(o.tls_gcm, words[i].g);
        char want[200];
        snprintf(want, sizeof(want),
                 "             TLS Records: %s\n"
                 "             TLS AES-GCM: %s\n",
                 words[i].records,
                 words[i].g == TP_TLS_GCM_AUTO
                     ? (tp_tls_vaes_available() ? "auto (vaes)" : "auto (openssl)")
                     : words[i].gcm);
        t = print_text(&c.opts, 24,
                       (const run_in[]){RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM, RUN_IN_END});
        assert_string_equal(t, want);
        free(t);
    }
    /* a connection that is not encrypted takes nothing of them */
    c.opts.conn_type = TP_CONN_SOCKET;
    run_conn_tp(&c.opts, &link, &o);
    assert_int_equal(o.tls_records, TP_TLS_RECORDS_TRANSPORT);
    assert_int_equal(o.tls_gcm, TP_TLS_GCM_AUTO);

    char *bad[] = {"tool", "-tlsRecords", "both"};
    assert_int_equal(opt_parse(options, 3, bad, &c), -1);
    assert_non_null(strstr(err_msg(), "-tlsRecords"));
    char *bad2[] = {"tool", "-tlsAesGcm", "aesni"};
    assert_int_equal(opt_parse(options, 3, bad2, &c), -1);
    assert_non_null(strstr(err_msg(), "-tlsAesGcm"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_options),
        cmocka_unit_test(test_print_order),     cmocka_unit_test(test_print_rules),
        cmocka_unit_test(test_print_every_key), cmocka_unit_test(test_tls_record_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
