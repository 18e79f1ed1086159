/* ConsPerf's native JSON reading: every text frame the original ProvPerf sent in the captures
 * (login and directory refreshes, item refreshes, updates with and without TIM_TRK_1, packed
 * arrays, generic messages with TIM_TRK_3, reflected posts with TIM_TRK_2 and PostUserInfo) is
 * read message by message and checked against the text; the blank rule of the original's
 * reader; and the errors (not JSON, not an object, a field of an unhandled type). Every text is
 * read with both forms of the scan (AVX2 where the CPU has it, and SSE2), which must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jdecode.h"
#include "ts_jmsg.h"
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
    unsigned scanned; /* messages the scan read alone */
} totals;

/* cons_jreader_next with the SSE2 forms of the scan (cons_jscan_sse2), the widest forms the
 * CPU has again after it. Returns what cons_jreader_next returns. */
static int next_sse2(cons_jreader *r, cons_jmsg *m)
{
    cons_jscan_sse2(1);
    int rc = cons_jreader_next(r, m);
    cons_jscan_sse2(0);
    return rc;
}

/* Reads text[0..len) with the scan in the widest forms the CPU has, with the scan in its SSE2
 * forms, and with the full reader alone, and fails unless all three give the same messages and
 * the same end (the end of the frame, or the same error text), and both forms of the scan read
 * the same messages alone and stop at the same place. Adds the messages the scan read alone to
 * *scanned. Returns the number of messages. */
static unsigned same_frame_n(const char *text, size_t len, unsigned *scanned)
{
    cons_jreader a, b, c;
    cons_jreader_init(&a, text, len);
    cons_jreader_init(&b, text, len);
    cons_jreader_init(&c, text, len);
    b.full = true;
    unsigned n = 0;
    for (;; n++) {
        cons_jmsg ma, mb, mc;
        memset(&ma, 0, sizeof(ma));
        memset(&mb, 0, sizeof(mb));
        memset(&mc, 0, sizeof(mc));
        int ra = cons_jreader_next(&a, &ma);
        char ea[ERR_MSG_MAX], ec[ERR_MSG_MAX];
        snprintf(ea, sizeof(ea), "%s", ra < 0 ? err_msg() : "");
        int rc = next_sse2(&c, &mc);
        snprintf(ec, sizeof(ec), "%s", rc < 0 ? err_msg() : "");
        int rb = cons_jreader_next(&b, &mb);
        if (ra != rb || (ra < 0 && strcmp(ea, err_msg()) != 0) ||
            (ra > 0 && !ts_jmsg_same(&ma, &mb)))
            fail_msg("message %u of '%.*s': scan %d '%s', full reader %d '%s'", n + 1,
                     (int)(len > 300 ? 300 : len), text, ra, ea, rb, rb < 0 ? err_msg() : "");
        if (ra != rc || strcmp(ea, ec) != 0 || (ra > 0 && !ts_jmsg_same(&ma, &mc)) ||
            a.scanned != c.scanned || a.lx.p != c.lx.p)
            fail_msg("message %u of '%.*s': scan %d '%s' (%u scanned), its SSE2 forms %d '%s' "
                     "(%u scanned)",
                     n + 1, (int)(len > 300 ? 300 : len), text, ra, ea, a.scanned, rc, ec,
                     c.scanned);
        if (ra <= 0)
            break;
    }
    assert_int_equal(b.scanned, 0);
    if (scanned)
        *scanned += a.scanned;
    return n;
}

static void same_frame(const char *text, size_t len, unsigned *scanned)
{
    (void)same_frame_n(text, len, scanned);
}

static void check_frame(const char *text, size_t len, totals *t)
{
    same_frame(text, len, &t->scanned);
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
    assert_true(t.scanned >= t.updates); /* every update read by the scan alone */
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
    same_frame(text, strlen(text), NULL);
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
    /* frames shorter than 20 bytes, whole and cut after each byte (in buffers of their size) */
    static const char *const shorts[] = {"{\"Fields\":{\"A\":1}}", "{\"Fields\":{\"B\":\"\"}}"};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(shorts[i]);
        assert_true(n < 20);
        one(shorts[i], &m, 1);
        assert_int_equal(m.st.sum, 1 - i);
        for (size_t cut = 1; cut <= n; cut++) {
            char *own = malloc(cut);
            assert_non_null(own);
            memcpy(own, shorts[i], cut);
            same_frame(own, cut, NULL);
            free(own);
        }
    }
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
    for (size_t i = 0; i < 2 * sizeof(bad) / sizeof(bad[0]); i++) { /* both forms of the scan */
        const char *text = bad[i / 2][0], *why = bad[i / 2][1];
        cons_jreader r;
        cons_jreader_init(&r, text, strlen(text));
        int rc = i % 2 ? next_sse2(&r, &m) : cons_jreader_next(&r, &m);
        if (rc != -1 || !strstr(err_msg(), why))
            fail_msg("case %zu%s: '%s' lacks '%s'", i / 2, i % 2 ? " (SSE2)" : "", err_msg(), why);
    }
}

/* The scan against the full reader on the text of updates and of messages made to reach every
 * rule: strings with escapes, UTF-8 of 2 to 4 bytes, numbers at the limits (18 and 19 digits
 * of "ID", a stamp above 2^64, a leading zero, '-', fractions, exponents), blank fields, empty
 * keys and strings, nested objects, keys and strings longer than a block, a packed array. Each
 * text is read as it is, after 0 to 63 spaces (so that its bytes fall at every place of the
 * blocks), in an array after another message, cut after each of its bytes in a buffer of the
 * cut's size (so that ASan sees any read past the frame's end), and with every byte replaced by
 * each of the bytes that matter to the grammar, deleted, or followed by a space or a digit: both
 * readers must give the same messages and the same errors, and the texts as they are are read
 * by the scan alone where nothing needs the full reader. */
static void test_scan_vs_full(void **st)
{
    (void)st;
    static const char *const texts[] = {
        "{\"ID\":88,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"BID\":2948."
        "560000,"
        "\"ASK\":2949.610000,\"BIDSIZE\":1,\"ASKSIZE\":1,\"BID_COND_N\":\"R\",\"ASK_COND_N\":\"R\","
        "\"BID_NET_CH\":14.340000,\"GV1_TEXT\":\" \",\"LIMIT_INDQ\":0,\"NUM_BIDS\":32701,"
        "\"PRC_QL_CD\":0,\"PRC_QL3\":0,\"SEQNUM_QT\":39100331,\"RETAIL_INT\":1,\"STOCK_TYPE\":\" "
        "\","
        "\"NBBO_IND\":4,\"QUOTIM_MS\":57132001,\"QUOTIM\":\"15:52:12.000000001\","
        "\"TIMACT\":\"15:52:00.000001\",\"QTE_ORIGIN\":\" \",\"GV1_FLAG\":\" \","
        "\"BID_HIGH_1\":2948.560001,\"ORDRECV_MS\":\"15:52:12.001\",\"TIM_TRK_1\":1764691200123456}"
        "}",
        "{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"TIM_TRK_2\":7,\"A\":\"caf\xc3\xa9 "
        "\xe2\x82\xac "
        "\xf0\x9f\x98\x80\",\"B\":\"a\\\"b\\\\c\\u00e9\\n\",\"C\":\"\",\"\":1,\"D\":null,"
        "\"TIM_TRK_3\":9}}",
        "{\"ID\":123456789012345678,\"Type\":\"Update\",\"Domain\":\"MarketPrice\",\"Fields\":{"
        "\"TIM_TRK_1\":123456789012345678901234,\"A\":0,\"B\":-0,\"C\":0.0,\"D\":-1.5e-3,"
        "\"E\":1E+5,\"F\":10.25,\"G\":9007199254740993,\"TIM_TRK_2\":18446744073709551615}}",
        "{\"ID\":1234567890123456789,\"Type\":\"Refresh\",\"State\":{\"Stream\":\"Open\",\"Data\":"
        "\"Ok\",\"Text\":\"All is "
        "well\"},\"Key\":{\"Name\":\"RIC\",\"Service\":1},\"Complete\":true,"
        "\"Fields\":{\"A\":1,\"B\":{\"C\":1}}}", /* an error: an object in "Fields" */
        "{\"ID\":9,\"Type\":\"Update\",\"Domain\":\"MarketByOrder\",\"Map\":{\"KeyType\":"
        "\"Buffer\","
        "\"Summary\":{\"Fields\":{\"TIM_TRK_1\":123,\"X\":null}},\"Entries\":[{\"Action\":\"Add\","
        "\"Key\":\"k\",\"Fields\":{\"P\":1.5}}]}}",
        "{\"ID\":7,\"Type\":\"Generic\",\"Complete\":false,\"PostUserInfo\":{\"Address\":"
        "\"127.0.0.1\",\"UserID\":42},\"Fields\":{\"A_KEY_NAME_LONGER_THAN_ONE_BLOCK_OF_SIXTY_FOUR_"
        "BYTES_OF_THE_FRAME_TEXT\":\"and a value longer than a block too, sixty-four bytes and "
        "more than that, on and on\",\"TIM_TRK_3\":5}}",
        "{\"ID\":3,\"Type\":\"Update\",\"X\":true,\"Y\":[1,{\"Z\":null}],\"Fields\":{}}",
        "{\"Type\":\"Ping\"}",
        "[{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"A\":1.25,\"B\":\"x\"}},{\"ID\":6,\"Type\":"
        "\"Update\",\"Fields\":{\"TIM_TRK_1\":99}}]", /* packed */
    };
    const char grammar[] = "\"\\\t \n,:{}[]01.eE-+nx\x01\x80";
    char *buf = malloc(4096);
    assert_non_null(buf);
    unsigned scanned = 0, frames = 0;
    assert_int_equal(sizeof(texts) / sizeof(texts[0]), 9);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        const char *t = texts[i];
        size_t n = strlen(t);
        for (size_t pad = 0; pad < 64; pad++) {
            memset(buf, ' ', pad);
            memcpy(buf + pad, t, n);
            unsigned before = scanned;
            unsigned want = i == 3 ? 0 : i == 8 ? 2 : 1;
            assert_int_equal(same_frame_n(buf, pad + n, &scanned), want);
            if (i == 0 || i == 2 || i == 8) /* no escape, no member the full reader must read */
                assert_int_equal(scanned, before + want);
        }
        /* after another message in an array (an array in an array is not a message) */
        size_t f = (i + 1) % 9;
        int k = snprintf(buf, 4096, "[%s,%s]", texts[f], t);
        assert_int_equal(same_frame_n(buf, (size_t)k, NULL), f == 3 || f == 8   ? 0
                                                             : i == 3 || i == 8 ? 1
                                                                                : 2);
        for (size_t cut = 1; cut <= n; cut++) {
            char *own = malloc(cut);
            assert_non_null(own);
            memcpy(own, t, cut);
            same_frame(own, cut, NULL);
            free(own);
        }
        for (size_t at = 0; at < n; at++) {
            size_t pad = (at * 13) % 64;
            memset(buf, ' ', pad);
            for (size_t g = 0; g < sizeof(grammar) + 2; g++) {
                char *q = buf + pad;
                size_t len;
                memcpy(q, t, at);
                if (g < sizeof(grammar) - 1) { /* replaced */
                    q[at] = grammar[g];
                    memcpy(q + at + 1, t + at + 1, n - at - 1);
                    len = n;
                } else if (g == sizeof(grammar) - 1) { /* deleted */
                    memcpy(q + at, t + at + 1, n - at - 1);
                    len = n - 1;
                } else { /* followed by a space or a digit */
                    q[at] = t[at];
                    q[at + 1] = g == sizeof(grammar) ? ' ' : '7';
                    memcpy(q + at + 2, t + at + 1, n - at - 1);
                    len = n + 1;
                }
                same_frame(buf, pad + len, NULL);
                frames++;
            }
        }
    }
    assert_true(frames > 30000);
    free(buf);
}

/* The usual head of an update, "ID":N,"Type":"Update","UpdateType":"NAME","Fields":{, read as
 * one piece: names of 0 to 15 bytes (read so), of 16 bytes, with an escape or a control byte
 * (read member by member, or by the full reader), IDs at their limits, other members in between,
 * white space, and fewer than 64 bytes after the ID. Each text at 0 to 63 spaces (its bytes at
 * every place of the blocks) and in an array after an update: the scan, its SSE2 forms and the
 * full reader give the same messages and errors, and the ID and class are the text's. */
static void test_update_head(void **st)
{
    (void)st;
    static const struct {
        const char *id, *head, *fields;
        unsigned msgs;    /* messages read (0: an error) */
        unsigned scanned; /* of which read by the scan alone */
    } cases[] = {
        {"5", ",\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",", "", 1, 1},
        {"6", ",\"Type\":\"Update\",\"UpdateType\":\"Quote\",", "", 1, 1},
        {"7", ",\"Type\":\"Update\",\"UpdateType\":\"\",", "", 1, 1},
        {"8", ",\"Type\":\"Update\",\"UpdateType\":\"ABCDEFGHIJKLMNO\",", "", 1, 1},
        {"9", ",\"Type\":\"Update\",\"UpdateType\":\"ABCDEFGHIJKLMNOP\",", "", 1, 1},
        {"10", ",\"Type\":\"Update\",\"UpdateType\":\"ABCDEFGHIJKLMNOPQRSTUVWXYZ\",", "", 1, 1},
        {"11", ",\"Type\":\"Update\",\"UpdateType\":\"A\\\"B\",", "", 1, 0},
        {"12", ",\"Type\":\"Update\",\"UpdateType\":\"A\\u0041\",", "", 1, 0},
        {"13", ",\"Type\":\"Update\",\"UpdateType\":\"A\tB\",", "", 0, 0},
        {"-14", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 1, 1},
        {"0", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 1, 1},
        {"012", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 0, 0},
        {"123456789012345678", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 1, 1},
        {"1234567890123456789", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 1, 0},
        {"15.5", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 0, 0},
        {"16", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",\"Domain\":\"MarketPrice\",", "", 1,
         1},
        {"17", ",\"Type\":\"Refresh\",\"UpdateType\":\"Trade\",", "", 1, 1},
        {"18", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\" ,", "", 1, 1},
        {"19", ", \"Type\":\"Update\",\"UpdateType\":\"Trade\",", "", 1, 1},
        {"20", ",\"Type\":\"Update\",\"UpdateType\":7,", "", 1, 1},
        {"21", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "\"Fields\":{\"A\":1}}", 1, 1},
        {"22", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "\"Fields\":{\"A\":[1]}}", 0, 0},
        {"23", ",\"Type\":\"Update\",\"UpdateType\":\"Trade\",", "\"Fields\":[1]}", 1, 0},
    };
    /* the usual "Fields", 80 bytes and more, with a stamp */
    const char *fields = "\"Fields\":{\"BID\":2848.56,\"ASK\":2849.61,\"BIDSIZE\":1,\"BID_COND_N\":"
                         "\"R\",\"NUM_BIDS\":31701,\"TIM_TRK_1\":1764691200123}}";
    char *buf = malloc(4096);
    assert_non_null(buf);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512];
        const char *f = *cases[i].fields ? cases[i].fields : fields;
        int n = snprintf(text, sizeof(text), "{\"ID\":%s%s%s", cases[i].id, cases[i].head, f);
        assert_true(n > 0 && (size_t)n < sizeof(text));
        unsigned want = cases[i].msgs;
        for (size_t pad = 0; pad < 64; pad++) {
            memset(buf, ' ', pad);
            memcpy(buf + pad, text, (size_t)n);
            unsigned scanned = 0;
            if (same_frame_n(buf, pad + (size_t)n, &scanned) != want || scanned != cases[i].scanned)
                fail_msg("case %zu at %zu: %u scanned", i, pad, scanned);
        }
        int k = snprintf(buf, 4096, "[%s,%s]", text, text); /* packed, the second after ",{" */
        unsigned scanned = 0;
        assert_int_equal(same_frame_n(buf, (size_t)k, &scanned), 2 * want);
        assert_int_equal(scanned, 2 * cases[i].scanned);
        for (size_t cut = 1; cut < (size_t)n; cut++) { /* cut short: fewer bytes after the ID */
            char *own = malloc(cut);
            assert_non_null(own);
            memcpy(own, text, cut);
            same_frame(own, cut, NULL);
            free(own);
        }
        if (want) {
            cons_jreader r;
            cons_jmsg m;
            cons_jreader_init(&r, text, (size_t)n);
            assert_int_equal(cons_jreader_next(&r, &m), 1);
            assert_int_equal(m.stream_id, (int32_t)strtoll(cases[i].id, NULL, 10));
            assert_int_equal(m.kind, i == 16 ? RWF_MC_REFRESH : RWF_MC_UPDATE);
            assert_int_equal(m.st.t[0], *cases[i].fields ? 0 : 1764691200123ull);
            assert_int_equal(m.text_len, (size_t)n);
        }
    }
    free(buf);
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
    for (size_t i = 0; i < 2 * sizeof(cases) / sizeof(cases[0]); i++) { /* both forms */
        const bad *c = &cases[i / 2];
        cons_jreader r;
        cons_jreader_init(&r, c->text, strlen(c->text));
        cons_jmsg m;
        int rc;
        while ((rc = i % 2 ? next_sse2(&r, &m) : cons_jreader_next(&r, &m)) == 1)
            ;
        if (rc != -1 || !strstr(err_msg(), c->why))
            fail_msg("case %zu%s: rc %d, '%s' lacks '%s'", i / 2, i % 2 ? " (SSE2)" : "", rc,
                     err_msg(), c->why);
    }
}

/* The choice of the scan's forms: the SSE2 ones when a test asks, the AVX2 ones again after
 * it where the CPU has AVX2 and BMI (so that the tests above read every text with both). */
static void test_scan_forms(void **st)
{
    (void)st;
    assert_int_equal(cons_jscan_sse2(1), 0);
    int wide = cons_jscan_sse2(0);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    assert_int_equal(wide, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi"));
#else
    assert_int_equal(wide, 0);
#endif
    print_message("the scan's widest forms here: %s\n", wide ? "AVX2" : "SSE2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captures),     cmocka_unit_test(test_rules),
        cmocka_unit_test(test_fields_paths), cmocka_unit_test(test_scan_vs_full),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_scan_forms),
        cmocka_unit_test(test_update_head),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
