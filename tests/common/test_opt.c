/* Tests of the option-table parser: every kind of option, its errors, the usage text and the
 * JSON form of the inputs. */
#include "testsupport.h"

#include "err.h"
#include "cpu.h"
#include "opt.h"

#include <stdlib.h>
#include <string.h>

typedef struct demo_config {
    bool flag;
    bool nodelay;
    int count;
    uint64_t limit;
    int rate;
    char name[8];
    int comp;
    int conn;
    opt_threads threads;
    int custom;
} demo_config;

static const opt_name conn_names[] = {
    {"socket", 0, NULL},
    {"websocket", 1, "WebSocket transport"},
    {NULL, 0, NULL},
};

static int parse_even(void *cfg, const opt_def *def, const char *arg)
{
    int v = atoi(arg);
    if (v % 2)
        return err_set("Config Error: %s %s: must be even.", def->name, arg);
    ((demo_config *)cfg)->custom = v;
    return 0;
}

static const opt_def demo_defs[] = {
    OPT_SECTION_("Demo options:"),
    OPT_FLAG_("-flag", demo_config, flag, "A flag"),
    OPT_FLAG_OFF_("-tcpDelay", demo_config, nodelay, "Turns nodelay off"),
    OPT_INT_("-count", demo_config, count, 1, 100, "<n>", "A count"),
    OPT_U64_("-limit", demo_config, limit, 0, UINT32_MAX, "<n>", "A limit"),
    OPT_RATE_("-rate", demo_config, rate, "<msgs/sec>", "A rate"),
    OPT_STR_("-name", demo_config, name, "<text>", "A name"),
    OPT_ENUM_("-compressionType", demo_config, comp, opt_compression_names, "<type>",
              "Compression"),
    OPT_ENUM_("-connType", demo_config, conn, conn_names, NULL, "Connection type"),
    OPT_THREADS_("-threads", demo_config, threads, 3, "<list>", "Threads"),
    {.name = "-even",
     .kind = OPT_CUSTOM,
     .parse = parse_even,
     .has_arg = true,
     .arg = "<n>",
     .help = "An even number"},
    OPT_REFUSED_("-reactor", false, "VA Reactor"),
    OPT_REFUSED_("-pl", true, "WebSocket transport"),
    OPT_END_,
};

static demo_config defaults(void)
{
    demo_config c = {.nodelay = true, .count = 5, .limit = 7, .rate = 10};
    strcpy(c.name, "abc");
    c.threads.count = 1;
    return c;
}

/* Parses a NULL-terminated list of arguments after a program name. */
static int parse(demo_config *c, const char *first, ...)
{
    char *argv[32] = {(char *)"Demo"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    err_clear();
    return opt_parse(demo_defs, argc, argv, c);
}

static void test_defaults_untouched(void **state)
{
    (void)state;
    demo_config c = defaults();
    assert_int_equal(parse(&c, NULL), 0);
    demo_config d = defaults();
    assert_memory_equal(&c, &d, sizeof(c));
}

static void test_every_kind(void **state)
{
    (void)state;
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-flag", "-tcpDelay", "-count", "100", "-limit", "4294967295",
                           "-rate", "all", "-name", "xyz1234", "-compressionType", "lz4",
                           "-connType", "socket", "-threads", "0, P:0 C:# T:0,,-1", "-even", "4",
                           NULL),
                     0);
    assert_true(c.flag);
    assert_false(c.nodelay);
    assert_int_equal(c.count, 100);
    assert_true(c.limit == UINT32_MAX);
    assert_int_equal(c.rate, OPT_RATE_ALL);
    assert_string_equal(c.name, "xyz1234");
    assert_int_equal(c.comp, 2);
    assert_int_equal(c.conn, 0);
    assert_int_equal(c.threads.count, 3);
    assert_string_equal(c.threads.list, "0, P:0 C:# T:0,-1");
    assert_int_equal(c.custom, 4);

    char e[64];
    assert_int_equal(opt_threads_entry(&c.threads, 1, e, sizeof(e)), 0);
    assert_string_equal(e, "P:0 C:# T:0");
    assert_int_equal(opt_threads_entry(&c.threads, 2, e, sizeof(e)), 0);
    assert_string_equal(e, "-1");
    assert_int_equal(opt_threads_entry(&c.threads, 3, e, sizeof(e)), -1);
    assert_string_equal(opt_threads_text(&c.threads, "(non)"), "0, P:0 C:# T:0,-1");

    demo_config d = defaults();
    assert_string_equal(opt_threads_text(&d.threads, "(non)"), "(non)");
    assert_int_equal(opt_threads_entry(&d.threads, 0, e, sizeof(e)), 0);
    assert_string_equal(e, "-1");
}

static void test_last_occurrence_wins(void **state)
{
    (void)state;
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-count", "3", "-count", "9", NULL), 0);
    assert_int_equal(c.count, 9);
}

static void test_compression_words_and_numbers(void **state)
{
    (void)state;
    const char *words[] = {"none", "zlib", "lz4", "0", "1", "2"};
    const int values[] = {0, 1, 2, 0, 1, 2};
    for (int i = 0; i < 6; i++) {
        demo_config c = defaults();
        c.comp = 9;
        assert_int_equal(parse(&c, "-compressionType", words[i], NULL), 0);
        assert_int_equal(c.comp, values[i]);
    }
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-compressionType", "gzip", NULL), -1);
    assert_string_equal(err_msg(), "Config Error: -compressionType gzip: unknown value (expected "
                                   "one of: none, zlib, lz4, 0, 1, 2).");
    assert_int_equal(parse(&c, "-compressionType", "3", NULL), -1);
    assert_string_equal(opt_compression_name(1), "zlib");
    assert_string_equal(opt_compression_name(7), "unknown");
}

static void test_errors(void **state)
{
    (void)state;
    struct {
        const char *a, *b;
        const char *msg;
    } cases[] = {
        {"-foo", NULL, "Config Error: Unrecognized option: -foo"},
        {"-count", NULL, "Config error: -count missing argument."},
        {"-count", "abc", "Config Error: -count abc: value is not an integer."},
        {"-count", "12x", "Config Error: -count 12x: value is not an integer."},
        {"-count", "", "Config Error: -count : value is not an integer."},
        {"-count", "0", "Config Error: -count 0: value must be from 1 to 100."},
        {"-count", "101", "Config Error: -count 101: value must be from 1 to 100."},
        {"-count", "99999999999999999999",
         "Config Error: -count 99999999999999999999: value is "
         "not an integer."},
        {"-limit", "-1", "Config Error: -limit -1: value is not a non-negative integer."},
        {"-limit", "4294967296",
         "Config Error: -limit 4294967296: value must be from 0 to "
         "4294967295."},
        {"-rate", "-5", "Config Error: -rate -5: value must be 0 or more."},
        {"-rate", "some",
         "Config Error: -rate some: value is not a rate (an integer, or "
         "\"all\")."},
        {"-name", "12345678", "Config Error: -name: value is longer than 7 characters."},
        {"-connType", "websocket",
         "Config Error: -connType websocket is not available in this "
         "build (WebSocket transport)."},
        {"-connType", "tcp",
         "Config Error: -connType tcp: unknown value (expected one of: "
         "socket, websocket)."},
        {"-reactor", NULL, "Config Error: -reactor is not available in this build (VA Reactor)."},
        {"-pl", NULL, "Config Error: -pl is not available in this build (WebSocket transport)."},
        {"-pl", "rssl.rwf",
         "Config Error: -pl is not available in this build (WebSocket "
         "transport)."},
        {"-threads", "0,1,2,3", "Config Error: Too many threads specified (at most 3)."},
        {"-threads", "x",
         "Config Error: -threads entry 1 \"x\": expected -1, a CPU number, or "
         "\"P:X C:Y T:Z\""},
        {"-threads", "0,9999",
         "Config Error: -threads entry 2 \"9999\": no logical CPU 9999 on "
         "this machine"},
        {"-threads", "P:99", "Config Error: -threads entry 1 \"P:99\": no package P:99"},
        {"-threads", ",,", "Config Error: -threads ',,': no thread entries."},
        {"-threads", " , ", "Config Error: -threads ' , ': no thread entries."},
        {"-even", "3", "Config Error: -even 3: must be even."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        demo_config c = defaults();
        assert_int_equal(parse(&c, cases[i].a, cases[i].b, NULL), -1);
        if (strncmp(err_msg(), cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err_msg(), cases[i].msg);
    }
}

static void test_accepted_thread_forms(void **state)
{
    (void)state;
    /* Entries every machine has (one package with one core at least). */
    const char *ok[] = {"-1",         "0",           "P:0",
                        "P:0 C:0",    "P:0 C:0 T:0", "P:# C:# T:#",
                        " P:0  T:0 ", "0,-1",        "P:0 C:0 T:0, P:0 C:# T:#"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        demo_config c = defaults();
        if (parse(&c, "-threads", ok[i], NULL) != 0)
            fail_msg("'%s' refused: %s", ok[i], err_msg());
    }
    /* An entry of spaces is an empty entry: dropped from the count and the list, as the CPU
     * binding (cpu_parse) drops it, so that both agree on the number of threads. */
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-threads", "0, ,-1", NULL), 0);
    assert_int_equal(c.threads.count, 2);
    assert_string_equal(c.threads.list, "0,-1");
    cpu_list cpus;
    assert_int_equal(cpu_parse(&cpus, c.threads.list), 0);
    assert_int_equal(cpus.count, c.threads.count);
}

static void test_help_stops_parsing(void **state)
{
    (void)state;
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-count", "3", "-?", "-foo", NULL), OPT_HELP);
    assert_int_equal(parse(&c, "-help", NULL), OPT_HELP);
}

static void test_fail_trailer(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    err_set("Config Error: Unrecognized option: -x");
    assert_int_equal(opt_fail(f, "ConsPerf"), OPT_EXIT_INVALID);
    fclose(f);
    assert_string_equal(text, "Config Error: Unrecognized option: -x\n"
                              "Run 'ConsPerf -?' to see usage.\n\n");
    free(text);
}

static void test_usage(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    demo_config d = defaults();
    opt_usage(f, "Demo", demo_defs, &d);
    fclose(f);
    assert_non_null(strstr(text, "Usage: Demo [options]\n"));
    assert_non_null(strstr(text, "\nDemo options:\n"));
    assert_non_null(strstr(text, "  -?, -help  "));
    assert_non_null(strstr(text, "  -count <n>  "));
    assert_non_null(strstr(text, "A count (default: 5)\n"));
    assert_non_null(strstr(text, "A rate (default: 10)\n"));
    assert_non_null(strstr(text, "A name (default: abc)\n"));
    assert_non_null(strstr(text, "Compression (default: none)\n"));
    assert_non_null(strstr(text, "-connType <socket>"));
    assert_non_null(strstr(text, "-tcpDelay "));
    /* Refused options come last, under their own heading, with the missing feature. */
    char *refused = strstr(text, "Recognised but not available in this build");
    assert_non_null(refused);
    assert_non_null(strstr(refused, "-reactor"));
    assert_non_null(strstr(refused, "VA Reactor"));
    assert_true(strstr(text, "-reactor") > refused);
    /* Every accepted option appears. */
    for (const opt_def *o = demo_defs; o->name || o->kind == OPT_SECTION; o++)
        if (o->name)
            assert_non_null(strstr(text, o->name));
    free(text);
}

/* A table with latency-stamp rates gets the paragraph on percentiles and samples, naming them;
 * one without (demo_defs) does not. */
static const opt_def lat_defs[] = {
    OPT_RATE_("-latencyUpdateRate", demo_config, rate, "<updates/sec|all>", "Stamped updates"),
    OPT_INT_("-genericMsgLatencyRate", demo_config, count, 0, 100, "<msgs/sec>", "Stamped"),
    OPT_INT_("-genericMsgRate", demo_config, custom, 0, 100, "<msgs/sec>", "Not stamped"),
    OPT_END_,
};

static void test_usage_samples_note(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    demo_config d = defaults();
    opt_usage(f, "Demo", lat_defs, &d);
    fclose(f);
    const char *note = strstr(text, "\nLatency percentiles and samples:\n");
    assert_non_null(note);
    assert_string_equal(
        note,
        "\nLatency percentiles and samples:\n"
        "  The p-th percentile needs 100 / (100 - p) latency samples: p99 100, p99.9 1,000,\n"
        "  p99.99 10,000. On fewer it is simply the largest sample, and the summary, console\n"
        "  and JSON say so (\"only 110 samples: this is the maximum\"; the CSV leaves it\n"
        "  blank). Samples are the latency-stamped messages: stamps per second x seconds x\n"
        "  connections. For more of them, run longer or raise\n"
        "    -latencyUpdateRate, -genericMsgLatencyRate\n"
        "  e.g. 1,000 stamps per second for 10 s give the 10,000 that p99.99 needs.\n\n");
    free(text);

    /* a consumer's table (posts stamped, no updates of its own) names the provider's option */
    static const opt_def cons_defs[] = {
        OPT_INT_("-postingLatencyRate", demo_config, count, 0, 100, "<posts/sec>", "Stamped"),
        OPT_END_,
    };
    f = open_memstream(&text, &len);
    opt_usage(f, "Demo", cons_defs, &d);
    fclose(f);
    assert_non_null(strstr(text, "    -postingLatencyRate\n"
                                 "    and for update latency the provider's -latencyUpdateRate "
                                 "(10/s by default)\n"));
    free(text);

    f = open_memstream(&text, &len);
    opt_usage(f, "Demo", lat_defs, &d);
    fclose(f);
    assert_null(strstr(text, "provider's"));
    free(text);

    f = open_memstream(&text, &len);
    opt_usage(f, "Demo", demo_defs, &d);
    fclose(f);
    assert_null(strstr(text, "Latency percentiles"));
    free(text);
}

static void test_json(void **state)
{
    (void)state;
    demo_config c = defaults();
    assert_int_equal(parse(&c, "-rate", "all", "-tcpDelay", "-threads", "0,P:0 C:0", "-even", "2",
                           "-compressionType", "1", NULL),
                     0);
    json_object *o = opt_to_json(demo_defs, &c);
    assert_non_null(o);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "count", &v));
    assert_int_equal(json_object_get_int(v), 5);
    assert_true(json_object_object_get_ex(o, "rate", &v));
    assert_string_equal(json_object_get_string(v), "all");
    assert_true(json_object_object_get_ex(o, "tcpDelay", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(o, "flag", &v));
    assert_false(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(o, "compressionType", &v));
    assert_string_equal(json_object_get_string(v), "zlib");
    assert_true(json_object_object_get_ex(o, "name", &v));
    assert_string_equal(json_object_get_string(v), "abc");
    assert_true(json_object_object_get_ex(o, "limit", &v));
    assert_int_equal(json_object_get_uint64(v), 7);
    assert_true(json_object_object_get_ex(o, "threads", &v));
    assert_int_equal(json_object_array_length(v), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)), "P:0 C:0");
    assert_false(json_object_object_get_ex(o, "reactor", &v));
    assert_false(json_object_object_get_ex(o, "even", &v));
    json_object_put(o);
}

static void test_rate_rules(void **state)
{
    (void)state;
    assert_int_equal(opt_check_total_rate("-updateRate", 0, 1000), 0);
    assert_int_equal(opt_check_total_rate("-updateRate", 1000, 1000), 0);
    assert_int_equal(opt_check_total_rate("-updateRate", 999, 1000), -1);
    assert_string_equal(err_msg(), "Config Error: -updateRate 999 is less than -tickRate 1000 (it "
                                   "must be 0, or at least the tick rate).");
    assert_int_equal(opt_check_latency_rate("-latencyUpdateRate", 10, "-updateRate", 10, 10), 0);
    assert_int_equal(
        opt_check_latency_rate("-latencyUpdateRate", OPT_RATE_ALL, "-updateRate", 0, 10), 0);
    assert_int_equal(opt_check_latency_rate("-latencyUpdateRate", 11, "-updateRate", 10, 100), -1);
    assert_string_equal(err_msg(), "Config Error: -latencyUpdateRate 11 is greater than "
                                   "-updateRate 10.");
    assert_int_equal(opt_check_latency_rate("-latencyUpdateRate", 11, "-updateRate", 100, 10), -1);
    assert_string_equal(err_msg(), "Config Error: -latencyUpdateRate 11 is greater than -tickRate "
                                   "10 (at most one latency message is sent per tick).");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_untouched),
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_last_occurrence_wins),
        cmocka_unit_test(test_compression_words_and_numbers),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_accepted_thread_forms),
        cmocka_unit_test(test_help_stops_parsing),
        cmocka_unit_test(test_fail_trailer),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_usage_samples_note),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_rate_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
