/*
 * Bad input to the JSON converter, both ways: every case returns a negative code with err text
 * naming the message, the key or field and the byte offset, never crashes, never writes past
 * the caller's buffer. JSON that is not an object, unknown keys and fields, values of the wrong
 * type, numbers out of range, invalid dates and times, malformed syntax, every truncation and
 * many byte mutations of the captured frames, nesting too deep, output buffers of every size
 * too small; on the RWF side every truncation and byte mutations of a refresh. Inputs are
 * copied to heap blocks of their exact size, so that a read past the end shows under ASan.
 */
#include "rjs_test.h"

#include <stdlib.h>

#include "rjs_golden.h"

static int setup(void **state)
{
    (void)state;
    return (dict = load_dict()) && make_convs() == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free_all();
    return 0;
}

/* A heap copy of text[0..n) with nothing after it (freed by the caller). */
static char *exact(const char *text, size_t n)
{
    char *p = malloc(n ? n : 1);
    assert_non_null(p);
    memcpy(p, text, n);
    return p;
}

/* JSON -> RWF of one message with c; returns the code (err text when negative). */
static int convert(const rjs_conv *c, const char *text, size_t n, size_t *len)
{
    char *p = exact(text, n);
    size_t l = 0;
    int rc = rjs_json_to_msg(c, p, n, rwf1, sizeof(rwf1), &l);
    free(p);
    if (len)
        *len = l;
    return rc;
}

typedef struct bad_case {
    const char *json;
    const char *want[3]; /* substrings of the error text */
} bad_case;

static const bad_case bad_cases[] = {
    /* not a message */
    {"5", {"JSON frame", "offset 0", "found a number"}},
    {"\"abc\"", {"offset 0", "found a string"}},
    {"", {"offset 0"}},
    {"   ", {"offset 3"}},
    {"null", {"found null"}},
    {"[1]", {"JSON message 1", "offset 1", "expected a message (an object), found a number"}},
    {"[[{\"ID\":5}]]", {"found an array"}},
    {"{\"ID\":5,\"Key\":{\"Name\":\"A\"}} x", {"offset 28", "text after the end"}},
    {"[{\"ID\":5,\"Key\":{\"Name\":\"A\"}},{\"ID\":6,\"Key\":{\"Name\":\"B\"}}]",
     {"more than one message"}},
    {"[]", {"without a message"}},
    /* unknown keys (what the original provider refused) */
    {"{\"ID\":2,\"Domain\":\"Source\",\"Filter\":7}", {"offset 26", "unknown key \"Filter\""}},
    {"{\"ID\":5,\"Foo\":1,\"Key\":{\"Name\":\"RDT0\",\"Service\":1}}",
     {"offset 8", "unknown key \"Foo\""}},
    {"{\"ID\":5,\"Key\":{\"Name\":\"RDT0\",\"Foo\":2}}", {"\"Key\"", "offset 29", "\"Foo\""}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Qos\":{\"Timeliness\":\"Realtime\","
     "\"Rate\":\"TickByTick\",\"Foo\":1}}",
     {"\"Qos\"", "unknown key \"Foo\" in a Qos"}},
    {"{\"ID\":5,\"Type\":\"Status\",\"State\":{\"Stream\":\"Open\",\"Bar\":1}}",
     {"\"State\"", "\"Bar\""}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Map\":{\"KeyType\":\"AsciiString\","
     "\"Entries\":[{\"Action\":\"Add\",\"Key\":\"x\",\"Fields\":{\"BID\":1},\"Zz\":1}]}}",
     {"\"Map\"", "entry 0", "unknown key \"Zz\""}},
    /* unknown names, types and values */
    {"{\"ID\":5,\"Type\":\"Bogus\"}", {"offset 15", "\"Bogus\" is not a message type"}},
    {"{\"ID\":5,\"Domain\":\"NoSuch\",\"Key\":{\"Name\":\"A\"}}", {"\"NoSuch\" is not a domain"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"NOPE\":1}}",
     {"\"Fields\"", "offset 54", "field \"NOPE\" is not in the dictionary"}},
    {"{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Name\":\"A\"},\"View\":[\"BID\",\"NOPE\"]}",
     {"offset 58", "\"NOPE\" is not in the dictionary"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"RDN_EXCHID\":\"NOPE\"}"
     "}",
     {"field \"RDN_EXCHID\"", "offset 67", "not a display text"}},
    {"{\"ID\":5,\"Type\":\"Status\",\"State\":{\"Stream\":\"Nope\"}}",
     {"\"State\"", "\"Nope\" is not a stream state"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Qos\":{\"Timeliness\":\"Realtime\","
     "\"Rate\":\"Nope\"}}",
     {"\"Nope\" is not a QoS rate"}},
    {"{\"ID\":5,\"Type\":\"Ack\",\"AckID\":1,\"NakCode\":\"Foo\"}",
     {"\"NakCode\"", "\"Foo\" is not a NAK code"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Map\":{\"KeyType\":\"Ascii\","
     "\"Entries\":[]}}",
     {"\"Ascii\" is not a data type"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Map\":{\"KeyType\":\"AsciiString\","
     "\"Entries\":[{\"Action\":\"Zap\",\"Key\":\"x\"}]}}",
     {"entry 0", "\"Zap\" is not a map entry action"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":{\"X\":{\"Type\":"
     "\"Nope\",\"Data\":1}}}",
     {"element \"X\"", "\"Nope\" is not a data type"}},
    {"{\"ID\":5,\"Key\":{\"Name\":\"RDT0\",\"Service\":\"DIRECT_FEED\"}}",
     {"service \"DIRECT_FEED\" is not known"}},
    /* values of the wrong type */
    {"{\"ID\":\"5\",\"Key\":{\"Name\":\"A\"}}",
     {"offset 6", "expected an integer, found a string"}},
    {"{\"ID\":5,\"Key\":{\"Name\":1}}", {"\"Key\"", "expected a string, found a number"}},
    {"{\"ID\":[1],\"Type\":\"Refresh\"}", {"found an array"}},
    {"{\"ID\":[1,\"x\"],\"Type\":\"Close\"}", {"offset 9", "found a string"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":\"x\"}}",
     {"field \"BID\"", "offset 60", "\"x\" is not a number (REAL)"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":[1]}}",
     {"field \"BID\"", "found an array"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":{\"a\":1}}}",
     {"field \"BID\"", "found an object"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":[1]}",
     {"\"Fields\"", "expected an object, found an array"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"PROD_PERM\":true}}",
     {"field \"PROD_PERM\"", "found true"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"RDNDISPLAY\":\"NOPE\"}"
     "}",
     {"field \"RDNDISPLAY\"", "expected an unsigned integer"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":{\"X\":{\"Type\":"
     "\"Array\",\"Data\":{\"Type\":\"UInt\",\"Data\":[1,\"a\"]}}}}",
     {"element \"X\"", "found a string"}},
    {"{\"ID\":5,\"Type\":\"Generic\",\"Key\":{\"Name\":\"x\"},\"Xml\":5}",
     {"\"Xml\"", "expected a string"}},
    {"{\"ID\":5,\"Type\":\"Generic\",\"Key\":{\"Name\":\"x\"},\"Opaque\":\"!!!\"}",
     {"\"Opaque\"", "not base64"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Map\":{\"KeyType\":\"AsciiString\","
     "\"Entries\":{}}}",
     {"\"Map\"", "expected an array, found an object"}},
    /* numbers out of range */
    {"{\"ID\":5000000000,\"Key\":{\"Name\":\"A\"}}",
     {"offset 6", "5000000000 is not an integer in -2147483648..2147483647"}},
    {"{\"ID\":5,\"Domain\":300,\"Key\":{\"Name\":\"A\"}}", {"300 is not an integer in 0..255"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":1},\"SeqNumber\":"
     "-1}",
     {"\"SeqNumber\"", "-1 is not an integer in 0..4294967295"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":1e999}}",
     {"field \"BID\"", "too large for a REAL"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":"
     "123456789012345678901234}}",
     {"field \"BID\"", "too many digits"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":"
     "-0.000000000000000000001}}",
     {"field \"BID\"", "decimals"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"PROD_PERM\":-3}}",
     {"field \"PROD_PERM\"", "-3 is not an integer"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"PROD_PERM\":1.5}}",
     {"1.5 is not an integer"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":{\"X\":{\"Type\":"
     "\"Int\",\"Data\":99999999999999999999}}}",
     {"element \"X\"", "is not an integer in -9223372036854775808..9223372036854775807"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Vector\":{\"Entries\":[{\"Index\""
     ":-1,\"Action\":\"Set\"}]}}",
     {"\"Vector\"", "-1 is not an integer in 0..1073741823"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"FilterList\":{\"Entries\":[{\"ID\":"
     "300,\"Action\":\"Set\"}]}}",
     {"\"FilterList\"", "300 is not an integer in 0..255"}},
    /* dates and times */
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"SALTIM\":\"25:00:00\"}"
     "}",
     {"field \"SALTIM\"", "offset 63", "\"25:00:00\" is not a time"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"SALTIM\":\"12:61\"}}",
     {"is not a time"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"TRADE_DATE\":"
     "\"2020-02-30\"}}",
     {"field \"TRADE_DATE\"", "\"2020-02-30\" is not a date"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"TRADE_DATE\":"
     "\"2005-13\"}}",
     {"is not a date"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"TRADE_DATE\":5}}",
     {"field \"TRADE_DATE\"", "expected a date (string)"}},
    /* members missing, misplaced or doubled */
    {"{\"Domain\":\"MarketPrice\",\"Key\":{\"Name\":\"A\"}}", {"needs an \"ID\""}},
    {"{\"ID\":5,\"Type\":\"Request\"}", {"a Request needs a \"Key\""}},
    {"{\"ID\":[],\"Type\":\"Close\"}", {"a batch close without IDs"}},
    {"{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Name\":[ ]}}", {"a batch request without names"}},
    {"{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"BID\":1},\"Qos\":{\"Timeliness\":\"Realtime\"}}",
     {"offset 49", "\"Qos\" is not valid in an Update message"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":1},\"Elements\":{"
     "}}",
     {"offset 63", "a second payload \"Elements\""}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Map\":{\"KeyType\":\"AsciiString\","
     "\"Entries\":[{\"Action\":\"Add\",\"Fields\":{\"BID\":1}}]}}",
     {"needs \"Action\" and \"Key\""}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Series\":{\"Entries\":[{\"Fields\":"
     "{\"BID\":1}},{\"Elements\":{\"X\":1}}]}}",
     {"\"Series\"", "entry 1", "the others FieldList"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":{\"X\":{\"Type\":"
     "\"UInt\""
     "}}}",
     {"element \"X\"", "needs \"Type\" and \"Data\""}},
    /* syntax */
    {"{\"ID\":5,\"Key\":{\"Name\":\"RDT0\"", {"offset 28", "expected ',' or '}'"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":-}}",
     {"offset 60", "'-' without digits"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":01}}",
     {"offset 61"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":1.5.5}}",
     {"offset 63"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"BID\":tru}}",
     {"offset 60", "expected true"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"OFFCL_CODE\":\"\\x\"}}",
     {"offset 68", "bad escape"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"OFFCL_CODE\":\"\\u12\"}"
     "}",
     {"bad \\u escape"}},
    {"{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Fields\":{\"OFFCL_CODE\":\"ab",
     {"not terminated"}},
    {"{\"ID\":5,\"Type\":\"Generic\",\"Key\":{\"Name\":\"x\"},\"Json\":{\"a\":[1,{\"b\":nul}]}}",
     {"offset 64", "expected null"}},
    {"{\"ID\":5,,\"Key\":{\"Name\":\"A\"}}", {"offset 8", "expected a key"}},
    {"{\"ID\" 5}", {"offset 6", "':'"}},
};

/* Each bad case fails with its error text. */
static void test_bad_messages(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const bad_case *b = &bad_cases[i];
        int rc = convert(conv, b->json, strlen(b->json), NULL);
        if (rc >= 0)
            fail_msg("accepted (%d): %s", rc, b->json);
        const char *e = err_msg();
        for (int k = 0; k < 3 && b->want[k]; k++)
            if (!strstr(e, b->want[k]))
                fail_msg("%s\n  error \"%s\"\n  lacks \"%s\"", b->json, e, b->want[k]);
    }
}

/* In a frame of several messages, a bad message that is well-formed JSON is reported and the
 * next one is read; a syntax error ends the frame. */
static void test_frame_goes_on(void **state)
{
    (void)state;
    static const char frame[] = "[{\"ID\":5,\"Key\":{\"Name\":\"A\"}},{\"ID\":6,\"Bad\":1},"
                                "{\"ID\":7,\"Key\":{\"Name\":\"B\"}},{\"ID\":8 x},"
                                "{\"ID\":9,\"Key\":{\"Name\":\"C\"}}]";
    char *p = exact(frame, strlen(frame));
    rjs_reader r;
    size_t n;
    rjs_reader_init(&r, p, strlen(frame));
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RJS_MSG);
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "JSON message 2 (starts at offset 29)"));
    assert_non_null(strstr(err_msg(), "unknown key \"Bad\""));
    assert_false(r.done);
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RJS_MSG);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf1, n)), RWF_OK);
    assert_int_equal(m.stream_id, 7);
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "JSON message 4"));
    assert_true(r.done);
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RWF_END);
    free(p);

    /* not an array nor an object: nothing more to read */
    rjs_reader_init(&r, "42", 2);
    assert_true(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n) < 0);
    assert_true(r.done);
    assert_int_equal(rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &n), RWF_END);
}

/* Unknown keys and field names are skipped with RJS_SKIP_UNKNOWN, and only those. */
static void test_skip_unknown(void **state)
{
    (void)state;
    rjs_opts o = {.flags = RJS_SKIP_UNKNOWN};
    rjs_conv *c = rjs_conv_new(dict, &o);
    assert_non_null(c);
    static const char in[] = "{\"ID\":5,\"Foo\":{\"a\":[1,2]},\"Type\":\"Update\",\"Fields\":"
                             "{\"NOPE\":1,\"BID\":1.5,\"ZZZ\":{\"x\":null}}}";
    size_t n;
    assert_int_equal(convert(c, in, strlen(in), &n), RJS_MSG);
    size_t j = to_json(c, rwf1, n);
    assert_string_equal(json, "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\","
                              "\"Fields\":{\"BID\":1.5}}");
    (void)j;
    static const char bad[] = "{\"ID\":5,\"Foo\":1,\"Type\":\"Update\",\"Fields\":{\"BID\":\"x\"}}";
    assert_true(convert(c, bad, strlen(bad), NULL) < 0);
    assert_non_null(strstr(err_msg(), "field \"BID\""));
    rjs_conv_free(c);
}

/* Every proper prefix of a frame is refused with an offset, never a crash. */
static void truncations(const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        int rc = convert(conv, text, i, NULL);
        if (rc >= 0)
            fail_msg("prefix of %zu bytes accepted: %.*s", i, (int)i, text);
        if (!strstr(err_msg(), "offset "))
            fail_msg("prefix of %zu bytes: error without an offset: %s", i, err_msg());
    }
    assert_int_equal(convert(conv, text, n, NULL), RJS_MSG);
}

static void test_truncated(void **state)
{
    (void)state;
    truncations(GOLDEN_REFRESH);
    truncations(GOLDEN_UPDATE);
    truncations(GOLDEN_DIRECTORY_REFRESH);
    truncations(GOLDEN_LOGIN_REQUEST);
    truncations(GOLDEN_POST);
}

/* Bytes of a frame replaced one at a time: whatever converts is valid RWF that converts back;
 * the rest fails cleanly. */
static void mutations(const char *text, unsigned *accepted, unsigned *refused)
{
    static const char subst[] = {'"', '}',  ']', '{',  '[',    ',',        ':', '0', '9', '-',
                                 'x', '\\', ' ', '\0', '\x7f', (char)0xff, 'e', '.', 'n'};
    size_t n = strlen(text);
    char *p = exact(text, n);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof(subst); k++) {
            if (text[i] == subst[k])
                continue;
            p[i] = subst[k];
            rjs_reader r;
            size_t len;
            int rc;
            rjs_reader_init(&r, p, n);
            while ((rc = rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &len)) != RWF_END) {
                if (rc < 0) {
                    ++*refused;
                    if (r.done)
                        break;
                    continue;
                }
                if (rc != RJS_MSG)
                    continue;
                ++*accepted;
                rwf_msg m;
                if (rwf_msg_decode(&m, rwf_buf_make(rwf1, len)) != RWF_OK)
                    fail_msg("byte %zu = 0x%02x: RWF does not decode: %s", i,
                             (unsigned char)subst[k], err_msg());
                size_t jn = 0;
                rc = rjs_msg_to_json(conv, rwf_buf_make(rwf1, len), json, sizeof(json), &jn);
                if (rc != RWF_OK)
                    fail_msg("byte %zu = 0x%02x: RWF -> JSON: %s", i, (unsigned char)subst[k],
                             err_msg());
            }
        }
        p[i] = text[i];
    }
    free(p);
}

static void test_mutated(void **state)
{
    (void)state;
    unsigned acc = 0, ref = 0;
    mutations(GOLDEN_UPDATE, &acc, &ref);
    mutations(GOLDEN_DIRECTORY_REFRESH, &acc, &ref);
    mutations(GOLDEN_POST, &acc, &ref);
    mutations(GOLDEN_LOGIN_REFRESH, &acc, &ref);
    assert_true(acc > 0 && ref > 0);
}

/* Nesting deeper than the limit is refused without deep recursion. */
static void test_deep_nesting(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    static const char head[] = "{\"ID\":5,\"Type\":\"Generic\",\"Key\":{\"Name\":\"x\"},\"Json\":";
    size_t hn = strlen(head), n = hn + 2 * DEPTH + 1;
    char *p = malloc(n);
    assert_non_null(p);
    memcpy(p, head, hn);
    memset(p + hn, '[', DEPTH);
    memset(p + hn + DEPTH, ']', DEPTH);
    p[n - 1] = '}';
    size_t len;
    assert_true(rjs_json_to_msg(conv, p, n, rwf1, sizeof(rwf1), &len) < 0);
    assert_non_null(strstr(err_msg(), "deep"));
    free(p);

    /* containers in containers: elements holding elements */
    char buf[4096];
    size_t k = 0;
    k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                          "{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":");
    for (int d = 0; d < 60; d++)
        k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                              "{\"E\":{\"Type\":\"ElementList\",\"Data\":");
    k += (size_t)snprintf(buf + k, sizeof(buf) - k, "{}");
    for (int d = 0; d < 60; d++)
        k += (size_t)snprintf(buf + k, sizeof(buf) - k, "}}");
    k += (size_t)snprintf(buf + k, sizeof(buf) - k, "}");
    assert_true(convert(conv, buf, k, NULL) < 0);
    assert_non_null(strstr(err_msg(), "deep"));
}

/* JSON -> RWF into every output size too small: RWF_E_NOSPACE, nothing written past the size;
 * RWF -> JSON likewise, with *len unchanged. */
static void test_output_too_small(void **state)
{
    (void)state;
    static const char *const texts[] = {GOLDEN_REFRESH, GOLDEN_UPDATE, GOLDEN_DIRECTORY_REFRESH,
                                        GOLDEN_POST};
    static uint8_t out[1 << 16];
    static char jout[1 << 17];
    for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        size_t n = strlen(texts[t]), need, len;
        char *p = exact(texts[t], n);
        assert_int_equal(rjs_json_to_msg(conv, p, n, rwf1, sizeof(rwf1), &need), RJS_MSG);
        /* The encoder wants room for a value's largest form before it writes it, so the
         * output may need a few bytes more than the message takes. */
        size_t cap = 0;
        for (;; cap++) {
            memset(out, 0xA5, cap + 64);
            int rc = rjs_json_to_msg(conv, p, n, out, cap, &len);
            if (rc == RJS_MSG)
                break;
            if (rc != RWF_E_NOSPACE)
                fail_msg("text %zu, room %zu of %zu: %d %s", t, cap, need, rc, err_msg());
            for (size_t i = cap; i < cap + 64; i++)
                if (out[i] != 0xA5)
                    fail_msg("text %zu, room %zu: byte %zu written", t, cap, i);
        }
        assert_true(cap >= need && cap <= need + 16);
        ts_assert_bytes_equal(out, len, rwf1, need);

        size_t jneed = 0;
        assert_int_equal(
            rjs_msg_to_json(conv, rwf_buf_make(rwf1, need), jout, sizeof(jout), &jneed), RWF_OK);
        /* The writer, too, wants room for a value's largest form before writing it. */
        size_t jcap = 5;
        for (;; jcap++) {
            size_t jl = 5;
            memset(jout, 0x5A, jcap + 64);
            int rc = rjs_msg_to_json(conv, rwf_buf_make(rwf1, need), jout, jcap, &jl);
            if (rc == RWF_OK) {
                assert_int_equal(jl, 5 + jneed);
                break;
            }
            assert_int_equal(rc, RWF_E_NOSPACE);
            assert_int_equal(jl, 5);
            for (size_t i = jcap; i < jcap + 64; i++)
                if ((unsigned char)jout[i] != 0x5A)
                    fail_msg("text %zu, JSON room %zu: byte %zu written", t, jcap, i);
        }
        assert_true(jcap >= 5 + jneed && jcap <= 5 + jneed + 80);
        free(p);
    }
}

/* RWF -> JSON of every truncation of a refresh and of byte mutations: errors, no crash. */
static void test_bad_rwf(void **state)
{
    (void)state;
    size_t n;
    assert_int_equal(convert(conv, GOLDEN_REFRESH, strlen(GOLDEN_REFRESH), &n), RJS_MSG);
    uint8_t *msg = malloc(n);
    assert_non_null(msg);
    memcpy(msg, rwf1, n);
    size_t jl;
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = malloc(i ? i : 1);
        assert_non_null(p);
        memcpy(p, msg, i);
        jl = 0;
        int rc = rjs_msg_to_json(conv, rwf_buf_make(p, i), json, sizeof(json), &jl);
        free(p);
        if (rc == RWF_OK)
            continue; /* a prefix can be a whole message with fewer fields */
        assert_true(rc < 0);
        assert_int_equal(jl, 0);
        assert_true(strlen(err_msg()) > 0);
    }
    unsigned ok = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
        for (size_t k = 0; k < sizeof(vals); k++) {
            uint8_t save = msg[i];
            msg[i] = vals[k];
            jl = 0;
            int rc = rjs_msg_to_json(conv, rwf_buf_make(msg, n), json, sizeof(json), &jl);
            rc == RWF_OK ? ok++ : bad++;
            if (rc == RWF_OK) { /* what converts is JSON that reads back */
                size_t l2;
                if (rjs_json_to_msg(conv_text, json, jl, rwf2, sizeof(rwf2), &l2) < 0 &&
                    !strstr(err_msg(), "not in the dictionary") &&
                    !strstr(err_msg(), "unspecified") && !strstr(err_msg(), "is not a date") &&
                    !strstr(err_msg(), "is not a time")) /* decodes, but is not to be sent */
                    fail_msg("byte %zu = 0x%02x: %s\n  %.*s", i, vals[k], err_msg(), (int)jl, json);
            }
            msg[i] = save;
        }
    }
    assert_true(ok > 0 && bad > 0);
    free(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_messages),     cmocka_unit_test(test_frame_goes_on),
        cmocka_unit_test(test_skip_unknown),     cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_mutated),          cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_output_too_small), cmocka_unit_test(test_bad_rwf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
