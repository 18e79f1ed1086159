/* ConsPerf's native JSON reading: every text frame the original ProvPerf sent in the captures
 * (login and directory refreshes, item refreshes, updates with and without TIM_TRK_1, packed
 * arrays, generic messages with TIM_TRK_3, reflected posts with TIM_TRK_2 and PostUserInfo) is
 * read message by message and checked against the text; the blank rule of the original's
 * reader; and the errors (not JSON, not an object, a field of an unhandled type). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jdecode.h"
#include "testsupport.h"

/* The number after "key": in s[0..n), or 0. */
static uint64_t num_after(const char *s, size_t n, const char *key)
{
    const char *p = memmem(s, n, key, strlen(key));
    if (!p)
        return 0;
    p += strlen(key);
    uint64_t v = 0;
    while (p < s + n && *p >= '0' && *p <= '9')
        v = v * 10 + (uint64_t)(*p++ - '0');
    return v;
}

typedef struct totals {
    unsigned frames, msgs, refreshes, updates, generics, stamped[3], login, source, post_users;
} totals;

static void check_frame(const char *text, size_t len, totals *t)
{
    cons_jreader r;
    cons_jreader_init(&r, text, len);
    cons_jmsg m;
    int rc;
    unsigned n = 0;
    while ((rc = cons_jreader_next(&r, &m)) == 1) {
        n++;
        assert_true(m.text_len > 2 && m.text[0] == '{' && m.text[m.text_len - 1] == '}');
        assert_int_equal(m.stream_id, (int32_t)num_after(m.text, m.text_len, "\"ID\":"));
        /* stamps: the text's, unless a blank came first (refreshes: all blank) */
        const char *null = memmem(m.text, m.text_len, "null", 4);
        for (int i = 0; i < 3; i++) {
            char key[16];
            snprintf(key, sizeof(key), "\"TIM_TRK_%d\":", i + 1);
            const char *at = memmem(m.text, m.text_len, key, strlen(key));
            uint64_t want = at && (!null || null > at) ? num_after(m.text, m.text_len, key) : 0;
            assert_int_equal(m.st.t[i], want);
            if (want)
                t->stamped[i]++;
        }
        switch (m.kind) {
        case RWF_MC_REFRESH:
            t->refreshes++;
            assert_true(m.has_state);
            assert_int_equal(m.state.stream_state, RWF_STREAM_OPEN);
            assert_int_equal(m.state.data_state, RWF_DATA_OK);
            assert_true(m.complete);
            if (m.domain == RWF_DMT_LOGIN)
                t->login++;
            if (m.domain == RWF_DMT_SOURCE)
                t->source++;
            break;
        case RWF_MC_UPDATE:
            t->updates++;
            assert_int_equal(m.domain, RWF_DMT_MARKET_PRICE);
            break;
        case RWF_MC_GENERIC:
            t->generics++;
            assert_false(m.complete); /* "Complete":false in the captures */
            break;
        default:
            break;
        }
        if (m.has_post_user) {
            t->post_users++;
            assert_int_equal(m.post_user_addr, 0x7f000001);
            assert_int_equal(m.post_user_id, num_after(m.text, m.text_len, "\"UserID\":"));
        }
    }
    if (rc < 0)
        fail_msg("frame %u: %s", t->frames, err_msg());
    assert_true(n > 0);
    t->msgs += n;
    t->frames++;
}

/* Every TEXT frame of a dump (the JSON after "| "). */
static void check_dump(const char *rel, totals *t)
{
    uint8_t *f;
    size_t n;
    const char *path = ts_capture(rel);
    assert_int_equal(ts_read_file(path, &f, &n), 0);
    for (char *ln = (char *)f; ln && *ln;) {
        char *nl = strchr(ln, '\n');
        if (nl)
            *nl = 0;
        if (strstr(ln, " TEXT ")) {
            const char *p = strstr(ln, " | ");
            assert_non_null(p);
            check_frame(p + 3, strlen(p + 3), t);
        }
        ln = nl ? nl + 1 : NULL;
    }
    free(f);
}

static void test_captures(void **st)
{
    (void)st;
    totals t;
    memset(&t, 0, sizeof(t));
    check_dump("ws_json/ws_json.s2c.txt", &t);
    assert_int_equal(t.login, 1);
    assert_int_equal(t.source, 1);
    assert_int_equal(t.refreshes, 7);
    assert_int_equal(t.updates, 275);
    assert_true(t.stamped[0] > 40);
    memset(&t, 0, sizeof(t));
    check_dump("ws_json/ws_json_pack.s2c.txt", &t);
    assert_true(t.msgs > t.frames); /* packed arrays */
    memset(&t, 0, sizeof(t));
    check_dump("ws_json/ws_json_post.s2c.txt", &t);
    assert_true(t.generics > 0 && t.stamped[2] > 0);
    memset(&t, 0, sizeof(t));
    check_dump("ws_json/ws_json_conv.s2c.txt", &t);
    assert_true(t.post_users > 0 && t.stamped[1] > 0);
    memset(&t, 0, sizeof(t));
    check_dump("ws_json/ws_json.c2s.txt", &t); /* requests, a close frame */
    assert_int_equal(t.msgs, 7);
}

static void one(const char *text, cons_jmsg *m, int want)
{
    cons_jreader r;
    cons_jreader_init(&r, text, strlen(text));
    int rc = cons_jreader_next(&r, m);
    assert_int_equal(rc, want);
}

static void test_rules(void **st)
{
    (void)st;
    cons_jmsg m;
    /* a blank before the stamp hides it; after it, not */
    one("{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"A\":null,\"TIM_TRK_1\":7}}", &m, 1);
    assert_int_equal(m.st.t[0], 0);
    one("{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"TIM_TRK_1\":7,\"A\":null}}", &m, 1);
    assert_int_equal(m.st.t[0], 7);
    /* the defaults: Request, MarketPrice, complete */
    one("{\"ID\":6}", &m, 1);
    assert_int_equal(m.kind, RWF_MC_REQUEST);
    assert_int_equal(m.domain, RWF_DMT_MARKET_PRICE);
    assert_true(m.complete);
    /* pings, a bare object, a MarketByOrder summary's stamp */
    one("[{\"Type\":\"Ping\"}]", &m, 1);
    assert_int_equal(m.kind, CONS_JMSG_PING);
    one(" {\"Type\":\"Pong\"} ", &m, 1);
    assert_int_equal(m.kind, CONS_JMSG_PONG);
    one("{\"ID\":9,\"Type\":\"Update\",\"Domain\":\"MarketByOrder\",\"Map\":{\"KeyType\":"
        "\"Buffer\",\"Summary\":{\"Fields\":{\"TIM_TRK_1\":123}},\"Entries\":[]}}",
        &m, 1);
    assert_int_equal(m.domain, RWF_DMT_MARKET_BY_ORDER);
    assert_int_equal(m.st.t[0], 123);
    /* an empty array is an empty frame */
    one("[]", &m, 0);
}

/* Messages and "Fields" objects read on the fast path (the usual text) and on the full one
 * (escapes, numbers that are not plain integers, unusual members, which the fast path leaves to
 * it) give the same values: stream, type, domain, stamps, blank rule, the sum of the values'
 * text lengths; and the same errors. */
static void test_fields_paths(void **st)
{
    (void)st;
    cons_jmsg m;
    /* white space everywhere, an exponent, a string with a space, an empty object */
    one("{ \"ID\" : 5 , \"Type\" : \"Update\" , \"Fields\" : { \"A\" : 1.5e3 ,"
        " \"B\" : \"x y\" ,\n\t\"TIM_TRK_1\" : 42 , \"C\" : -0.25 } }",
        &m, 1);
    assert_int_equal(m.stream_id, 5);
    assert_int_equal(m.st.t[0], 42);
    assert_int_equal(m.st.sum, 5 + 3 + 2 + 5);
    one("{\"ID\":6,\"Fields\":{}}", &m, 1);
    assert_int_equal(m.st.sum, 0);
    /* escapes in a key and a value: read by the full path, same rules */
    one("{\"ID\":5,\"Fields\":{\"A\\\"B\":\"a\\nb\",\"TIM_TRK_2\":7,\"TIM_TRK_3\":8}}", &m, 1);
    assert_int_equal(m.st.t[1], 7);
    assert_int_equal(m.st.t[2], 8);
    assert_int_equal(m.st.sum, 4 + 1 + 1);
    /* an escaped stamp name is not a stamp; the blank rule on both paths */
    one("{\"ID\":5,\"Fields\":{\"TIM\\u005fTRK_1\":9,\"TIM_TRK_2\":3}}", &m, 1);
    assert_int_equal(m.st.t[0], 0);
    assert_int_equal(m.st.t[1], 3);
    one("{\"ID\":5,\"Fields\":{\"TIM_TRK_2\":3,\"A\":null,\"B\":\"\\t\",\"TIM_TRK_1\":9}}", &m, 1);
    assert_int_equal(m.st.t[0], 0);
    assert_int_equal(m.st.t[1], 3);
    /* long text, read 32 bytes at a time: a key longer than that, a value across the 32
     * bytes, then the same with an escape (the full path) */
    one("{\"ID\":5,\"Fields\":{\"LONG_KEY_NAME_THAT_IS_MORE_THAN_32_BYTES\":1,\"B\":\"a b\","
        "\"C\":\"0123456789012345678901234567890123456789\",\"TIM_TRK_1\":77,\"D\":\"x\","
        "\"E\":2.5,\"F\":null,\"TIM_TRK_2\":5,\"G\":\"padding padding padding padding\"}}",
        &m, 1);
    assert_int_equal(m.st.t[0], 77);
    assert_int_equal(m.st.t[1], 0);
    assert_int_equal(m.st.sum, 1 + 3 + 40 + 2 + 1 + 3 + 1 + 31);
    one("{\"ID\":5,\"Fields\":{\"LONG_KEY_NAME_THAT_IS_MORE_THAN_32_BYTES\":1,\"B\":\"a\\nb\","
        "\"C\":\"0123456789012345678901234567890123456789\",\"TIM_TRK_1\":77,\"D\":\"x\","
        "\"E\":2.5,\"F\":null,\"TIM_TRK_2\":5,\"G\":\"padding padding padding padding\"}}",
        &m, 1);
    assert_int_equal(m.st.t[0], 77);
    assert_int_equal(m.st.t[1], 0);
    assert_int_equal(m.st.sum, 1 + 4 + 40 + 2 + 1 + 3 + 1 + 31);
    one("{\"ID\":5,\"Fields\":{\"K\\u0041\":\"v\",\"G\":\"padding padding padding padding\"}}", &m,
        1);
    assert_int_equal(m.st.sum, 1 + 31);
    /* message members: skipped ones of every kind, an escaped key, a domain by number */
    one("{\"ID\":-7,\"Type\":\"Update\",\"U\\u0070dateType\":\"Quote\",\"Domain\":6,\"X\":true,"
        "\"Y\":false,\"Z\":null,"
        "\"W\":[1,{}],\"V\":1.5,\"Fields\":{\"TIM_TRK_1\":3}}",
        &m, 1);
    assert_int_equal(m.stream_id, -7);
    assert_int_equal(m.kind, RWF_MC_UPDATE);
    assert_int_equal(m.domain, RWF_DMT_MARKET_PRICE);
    assert_int_equal(m.st.t[0], 3);
    one("{\"ID\":123456789012345678,\"Type\":\"Refresh\",\"Domain\":\"MarketByOrder\","
        "\"UpdateType\":\"Quote\",\"Fields\":{\"A\":1}}",
        &m, 1);
    assert_int_equal(m.stream_id, (int32_t)123456789012345678LL);
    assert_int_equal(m.kind, RWF_MC_REFRESH);
    assert_int_equal(m.domain, RWF_DMT_MARKET_BY_ORDER);
    assert_int_equal(m.st.sum, 1);
    one("{\"ID\":1234567890123456789,\"Fields\":5}", &m, 1);
    assert_int_equal(m.stream_id, (int32_t)1234567890123456789LL);
    /* what the fast path does not take, the full path refuses with its message */
    static const char *const bad[][2] = {
        {"{\"ID\":05}", "offset"},
        {"{\"ID\":5.5}", "\"ID\" is not an integer"},
        {"{\"ID\":12345678901234567890}", "not an integer of 63 bits"},
        {"{\"ID\":5,\"Type\":\"Nope\"}", "unknown message type \"Nope\""},
        {"{\"ID\":5,\"X\":tru}", "expected true"},
        {"{\"ID\":5,\"Fields\":{\"A\":nul}}", "expected null"},
        {"{\"ID\":5,\"Fields\":{\"A\":1.}}", "number without digits after its '.'"},
        {"{\"ID\":5,\"Fields\":{\"A\":-}}", "'-' without digits"},
        {"{\"ID\":5,\"Fields\":{\"A\":1e}}", "number without digits in its exponent"},
        {"{\"ID\":5,\"Fields\":{\"A\":01}}", "offset"},
        {"{\"ID\":5,\"Fields\":{\"A\" 1}}", "expected ':' after a key"},
        {"{\"ID\":5,\"Fields\":{\"A\":1,}}", "offset"},
        {"{\"ID\":5,\"Fields\":{\"A\":\"x}}", "offset"},
        {"{\"ID\":5,\"Fields\":{\"A\":{}}}", "in JSON field A"},
        {"{\"ID\":5,\"Fields\":{\"A\":\"a\tb\",\"B\":\"padding padding padding padding\"}}",
         "control byte 0x09 inside a string"},
        {"{\"ID\":5,\"Fields\":{\"A\tB\":1,\"B\":\"padding padding padding padding\"}}",
         "control byte 0x09 inside a string"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cons_jreader r;
        cons_jreader_init(&r, bad[i][0], strlen(bad[i][0]));
        if (cons_jreader_next(&r, &m) != -1 || !strstr(err_msg(), bad[i][1]))
            fail_msg("case %zu: '%s' lacks '%s'", i, err_msg(), bad[i][1]);
    }
}

typedef struct bad {
    const char *text;
    const char *why;
} bad;

static void test_errors(void **st)
{
    (void)st;
    static const bad cases[] = {
        {"[1]", "JSON message 1: offset 1: the message is a number, not an object"},
        {"\"x\"", "not an object"},
        {"[{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"BID\":[1]}}]",
         "Unhandled JSON data type (an array) in JSON field BID"},
        {"[{\"ID\":5,\"Fields\":{\"ASK\":true}}]", "in JSON field ASK"},
        {"[{\"ID\":5,\"Type\":\"Updat\"}]", "unknown message type \"Updat\""},
        {"[{\"ID\":\"5\"}]", "\"ID\" is a string, not a number"},
        {"[{\"ID\":5", "offset"},
        {"[{\"ID\":5}] x", "text after the end"},
        {"[{\"ID\":5,\"Domain\":\"Nowhere\"}]", "unknown domain \"Nowhere\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cons_jreader r;
        cons_jreader_init(&r, cases[i].text, strlen(cases[i].text));
        cons_jmsg m;
        int rc;
        while ((rc = cons_jreader_next(&r, &m)) == 1)
            ;
        if (rc != -1 || !strstr(err_msg(), cases[i].why))
            fail_msg("case %zu: rc %d, '%s' lacks '%s'", i, rc, err_msg(), cases[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_fields_paths),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
