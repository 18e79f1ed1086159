/* clksync: the offset arithmetic, the two messages, a consumer's exchanges, its report. */
#include "testsupport.h"

#include "clksync.h"
#include "err.h"
#include "rwf_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS INT64_C(1000000)
#define US INT64_C(1000)

/* Symmetric paths give the offset exactly; asymmetric ones stay within the bound. */
static void test_compute(void **state)
{
    (void)state;
    /* Provider 5 ms ahead, 100 us each way, 20 us in the provider. */
    int64_t off = 5 * MS, t1 = 1000 * MS;
    int64_t t2 = t1 + 100 * US + off, t3 = t2 + 20 * US, t4 = t3 - off + 100 * US;
    clksync_sample s = clksync_compute(t1, t2, t3, t4);
    assert_int_equal(s.offset_ns, off);
    assert_int_equal(s.delay_ns, 200 * US);
    /* The same clocks with 10 us out and 390 us back: wrong by 190 us, within the 200 us bound. */
    t2 = t1 + 10 * US + off;
    t3 = t2 + 20 * US;
    t4 = t3 - off + 390 * US;
    s = clksync_compute(t1, t2, t3, t4);
    assert_int_equal(s.delay_ns, 400 * US);
    assert_true(llabs(s.offset_ns - off) <= s.delay_ns / 2);
    assert_int_equal(s.offset_ns, off - 190 * US);
    /* A provider behind, odd nanoseconds: rounded toward zero from exact halves. */
    s = clksync_compute(0, -3, -2, 1);
    assert_int_equal(s.offset_ns, -3);
    assert_int_equal(s.delay_ns, 0);
    /* A monotonic consumer (hours since boot) against a realtime provider (2026): no overflow. */
    int64_t mono = INT64_C(3600) * 1000 * MS, real = INT64_C(1790000000) * 1000 * MS;
    s = clksync_compute(mono, real + 50 * US, real + 60 * US, mono + 110 * US);
    assert_int_equal(s.offset_ns, real - mono);
    assert_int_equal(s.delay_ns, 100 * US);
}

/* Encodes into buf and decodes it back as a message. */
static void roundtrip(uint8_t *buf, size_t cap, rwf_enc *e, rwf_msg *m)
{
    size_t len;
    assert_int_equal(rwf_enc_finish(e, &len), RWF_OK);
    assert_true(len <= CLKSYNC_MSG_MAX);
    assert_true(len <= cap);
    assert_int_equal(rwf_msg_decode(m, (rwf_buf){(const char *)buf, (uint32_t)len}), RWF_OK);
}

static void test_messages(void **state)
{
    (void)state;
    uint8_t buf[256];
    rwf_enc e;
    rwf_msg m;
    clksync_msg req, ans;
    int64_t big = INT64_C(1790000000123456789);
    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(clksync_encode_request(&e, 1, 42, big, "realtime"), RWF_OK);
    roundtrip(buf, sizeof(buf), &e, &m);
    assert_int_equal(m.msg_class, RWF_MC_GENERIC);
    assert_int_equal(m.domain, RWF_DMT_LOGIN);
    assert_int_equal(m.stream_id, 1);
    assert_int_equal(clksync_decode(&m, &req), 1);
    assert_false(req.answer);
    assert_int_equal(req.seq, 42);
    assert_int_equal(req.t1, big);
    assert_string_equal(req.clock, "realtime");

    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(clksync_encode_answer(&e, 1, &req, big + 7, big + 9, "monotonic"), RWF_OK);
    roundtrip(buf, sizeof(buf), &e, &m);
    assert_int_equal(clksync_decode(&m, &ans), 1);
    assert_true(ans.answer);
    assert_int_equal(ans.seq, 42);
    assert_int_equal(ans.t1, big);
    assert_int_equal(ans.t2, big + 7);
    assert_int_equal(ans.t3, big + 9);
    assert_string_equal(ans.clock, "monotonic");

    /* Negative stamps (a skewed monotonic clock) survive. */
    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(clksync_encode_request(&e, 1, 1, -5, NULL), RWF_OK);
    roundtrip(buf, sizeof(buf), &e, &m);
    assert_int_equal(clksync_decode(&m, &req), 1);
    assert_int_equal(req.t1, -5);
    assert_string_equal(req.clock, "");
}

/* Encodes a Generic LOGIN message named name whose ElementList holds the given elements:
 * "U:<name>=<v>" UINT, "I:<name>=<v>" INT, "A:<name>=<text>" ASCII; NULL ends the list. */
static void generic(uint8_t *buf, size_t cap, rwf_msg *m, uint8_t domain, const char *name,
                    const char *const *els)
{
    rwf_enc e;
    rwf_enc_init(&e, buf, cap);
    rwf_msg h;
    rwf_msg_init(&h, RWF_MC_GENERIC, domain, 1, RWF_DT_ELEMENT_LIST);
    h.flags = RWF_GNMF_HAS_MSG_KEY;
    h.key.flags = RWF_MKF_HAS_NAME;
    h.key.name = rwf_buf_cstr(name);
    rwf_enc_msg_begin(&e, &h);
    rwf_enc_el_begin_std(&e);
    for (; els && *els; els++) {
        char nm[32];
        const char *eq = strchr(*els, '=');
        snprintf(nm, sizeof(nm), "%.*s", (int)(eq - *els - 2), *els + 2);
        if ((*els)[0] == 'U')
            rwf_enc_el_uint(&e, rwf_buf_cstr(nm), strtoull(eq + 1, NULL, 10));
        else if ((*els)[0] == 'I')
            rwf_enc_el_int(&e, rwf_buf_cstr(nm), strtoll(eq + 1, NULL, 10));
        else
            rwf_enc_el_buf(&e, rwf_buf_cstr(nm), RWF_DT_ASCII_STRING, rwf_buf_cstr(eq + 1));
    }
    rwf_enc_el_end(&e);
    rwf_enc_msg_end(&e);
    roundtrip(buf, cap, &e, m);
}

static void test_decode_others_and_bad(void **state)
{
    (void)state;
    uint8_t buf[256];
    rwf_msg m;
    clksync_msg out;
    memset(&out, 0x5A, sizeof(out));
    /* Not ours: another name, another domain (untouched output). */
    generic(buf, sizeof(buf), &m, RWF_DMT_LOGIN, "ConsumerConnectionStatus",
            (const char *const[]){"U:Seq=1", NULL});
    assert_int_equal(clksync_decode(&m, &out), 0);
    generic(buf, sizeof(buf), &m, RWF_DMT_SOURCE, CLKSYNC_NAME,
            (const char *const[]){"U:Seq=1", "I:T1=2", NULL});
    assert_int_equal(clksync_decode(&m, &out), 0);
    assert_int_equal(out.seq, 0x5A5A5A5A5A5A5A5AULL);

    /* Ours but malformed: each named. */
    static const struct {
        const char *els[5];
        const char *says;
    } bad[] = {
        {{"I:T1=2", NULL}, "element Seq is missing"},
        {{"U:Seq=1", NULL}, "element T1 is missing"},
        {{"U:Seq=1", "I:T1=2", "I:T2=3", NULL}, "element T3 is missing"},
        {{"U:Seq=1", "I:T1=2", "I:T3=3", NULL}, "element T2 is missing"},
        {{"I:Seq=1", "I:T1=2", NULL}, "element Seq is not a non-blank UINT"},
        {{"U:Seq=1", "U:T1=2", NULL}, "element T1 is not a non-blank INT"},
        {{"U:Seq=1", "I:T1=2", "I:Clock=3", NULL}, "element Clock is not an ASCII string"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        generic(buf, sizeof(buf), &m, RWF_DMT_LOGIN, CLKSYNC_NAME, bad[i].els);
        assert_int_equal(clksync_decode(&m, &out), -1);
        if (!strstr(err_msg(), bad[i].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err_msg(), bad[i].says);
        assert_non_null(strstr(err_msg(), CLKSYNC_NAME));
    }
    /* Unknown elements are skipped; a long clock name is cut. */
    generic(buf, sizeof(buf), &m, RWF_DMT_LOGIN, CLKSYNC_NAME,
            (const char *const[]){"U:Seq=1", "A:Extra=x", "I:T1=2",
                                  "A:Clock=a-very-long-clock-name", NULL});
    assert_int_equal(clksync_decode(&m, &out), 1);
    assert_string_equal(out.clock, "a-very-long-clo");
    /* A payload that is not an ElementList. */
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_msg h;
    rwf_msg_init(&h, RWF_MC_GENERIC, RWF_DMT_LOGIN, 1, RWF_DT_NO_DATA);
    h.flags = RWF_GNMF_HAS_MSG_KEY;
    h.key.flags = RWF_MKF_HAS_NAME;
    h.key.name = RWF_STR(CLKSYNC_NAME);
    rwf_enc_msg(&e, &h);
    roundtrip(buf, sizeof(buf), &e, &m);
    assert_int_equal(clksync_decode(&m, &out), -1);
    assert_non_null(strstr(err_msg(), "not an ElementList"));
}

static void test_peer(void **state)
{
    (void)state;
    assert_true(clksync_peer_is_ours("rwfperf1.0.0.linux 64-bit"));
    assert_false(clksync_peer_is_ours("eta3.6.5.G1.linux.rrg 64-bit Static"));
    assert_false(clksync_peer_is_ours(""));
    assert_false(clksync_peer_is_ours(NULL));
}

/* An answer as our provider would give it, with the provider off by off and d each way. */
static clksync_msg answer_to(uint64_t seq, int64_t t1, int64_t off, int64_t out, int64_t back,
                             int64_t *t4)
{
    clksync_msg a = {.answer = true, .seq = seq, .t1 = t1};
    a.t2 = t1 + out + off;
    a.t3 = a.t2 + 5 * US;
    snprintf(a.clock, sizeof(a.clock), "realtime");
    *t4 = a.t3 - off + back;
    return a;
}

static void test_exchanges(void **state)
{
    (void)state;
    clksync c;
    uint8_t buf[256];
    rwf_enc e;
    int64_t now = 100 * MS, t4;
    clksync_start(&c, CLKSYNC_NOT_OURS, now);
    assert_false(clksync_due(&c, now));
    clksync_start(&c, CLKSYNC_ON, now);
    assert_true(clksync_due(&c, now));

    /* First exchange: 300 us each way. */
    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(clksync_request(&c, &e, 1, now, "realtime"), RWF_OK);
    assert_false(clksync_due(&c, now + 1 * MS)); /* outstanding */
    clksync_msg a = answer_to(c.seq, now, 2 * MS, 300 * US, 300 * US, &t4);
    /* A stale answer (another seq) and a request are ignored. */
    clksync_msg stale = a;
    stale.seq++;
    assert_int_equal(clksync_answer(&c, &stale, t4), 0);
    clksync_msg asreq = a;
    asreq.answer = false;
    assert_int_equal(clksync_answer(&c, &asreq, t4), 0);
    assert_int_equal(clksync_answer(&c, &a, t4), 1);
    assert_int_equal(c.ignored, 2);
    assert_true(c.have);
    assert_int_equal(c.best.offset_ns, 2 * MS);
    assert_int_equal(c.best.delay_ns, 600 * US);
    /* The same answer twice: the second is ignored. */
    assert_int_equal(clksync_answer(&c, &a, t4), 0);
    /* The next is due CLKSYNC_FAST_GAP_NS later. */
    assert_false(clksync_due(&c, t4 + CLKSYNC_FAST_GAP_NS - 1));
    now = t4 + CLKSYNC_FAST_GAP_NS;
    assert_true(clksync_due(&c, now));

    /* A faster, asymmetric exchange replaces it; a slower one does not. */
    rwf_enc_init(&e, buf, sizeof(buf));
    clksync_request(&c, &e, 1, now, "realtime");
    a = answer_to(c.seq, now, 2 * MS, 10 * US, 90 * US, &t4);
    assert_int_equal(clksync_answer(&c, &a, t4), 1);
    assert_int_equal(c.best.delay_ns, 100 * US);
    assert_int_equal(c.best.offset_ns, 2 * MS - 40 * US);
    now = t4 + CLKSYNC_FAST_GAP_NS;
    rwf_enc_init(&e, buf, sizeof(buf));
    clksync_request(&c, &e, 1, now, "realtime");
    a = answer_to(c.seq, now, 2 * MS, 500 * US, 500 * US, &t4);
    assert_int_equal(clksync_answer(&c, &a, t4), 1);
    assert_int_equal(c.best.delay_ns, 100 * US);
    assert_int_equal(c.exchanges, 3);

    /* A negative round trip (a provider's time longer than the exchange) is not taken. */
    now = t4 + CLKSYNC_FAST_GAP_NS;
    rwf_enc_init(&e, buf, sizeof(buf));
    clksync_request(&c, &e, 1, now, "realtime");
    a = answer_to(c.seq, now, 0, 10 * US, 10 * US, &t4);
    a.t3 += 50 * US;
    assert_int_equal(clksync_answer(&c, &a, t4), 0);
    assert_int_equal(c.exchanges, 3);

    /* A lost request: due again after CLKSYNC_LOST_NS; its late answer is then stale. */
    now = t4 + CLKSYNC_FAST_GAP_NS;
    rwf_enc_init(&e, buf, sizeof(buf));
    clksync_request(&c, &e, 1, now, "realtime");
    clksync_msg late = answer_to(c.seq, now, 0, 10 * US, 10 * US, &t4);
    assert_false(clksync_due(&c, now + CLKSYNC_LOST_NS - 1));
    assert_true(clksync_due(&c, now + CLKSYNC_LOST_NS));
    rwf_enc_init(&e, buf, sizeof(buf));
    clksync_request(&c, &e, 1, now + CLKSYNC_LOST_NS, "realtime");
    assert_int_equal(clksync_answer(&c, &late, t4), 0);

    /* After CLKSYNC_FAST exchanges, one a second; none after CLKSYNC_MAX. */
    clksync_start(&c, CLKSYNC_ON, 0);
    now = 0;
    for (int i = 0; i < CLKSYNC_FAST; i++) {
        rwf_enc_init(&e, buf, sizeof(buf));
        clksync_request(&c, &e, 1, now, "monotonic");
        a = answer_to(c.seq, now, 0, 10 * US, 10 * US, &t4);
        assert_int_equal(clksync_answer(&c, &a, t4), 1);
        now = t4 + CLKSYNC_FAST_GAP_NS;
    }
    assert_false(clksync_due(&c, now));
    assert_true(clksync_due(&c, t4 + CLKSYNC_GAP_NS));
    c.exchanges = CLKSYNC_MAX;
    assert_false(clksync_due(&c, t4 + 100 * CLKSYNC_GAP_NS));
}

static void test_fold_and_exceeds(void **state)
{
    (void)state;
    clksync a, b, all;
    clksync_start(&all, CLKSYNC_OFF, 0);
    clksync_start(&a, CLKSYNC_ON, 0);
    clksync_start(&b, CLKSYNC_NOT_OURS, 0);
    a.have = true;
    a.exchanges = 5;
    a.best = (clksync_sample){-3 * MS, 60 * US};
    snprintf(a.peer_clock, sizeof(a.peer_clock), "realtime");
    clksync_fold(&all, &b);
    assert_int_equal(all.state, CLKSYNC_NOT_OURS);
    assert_false(all.have);
    assert_true(clksync_exceeds(&all, 1e9));
    clksync_fold(&all, &a);
    assert_int_equal(all.state, CLKSYNC_ON);
    assert_true(all.have);
    b.state = CLKSYNC_ON;
    b.have = true;
    b.exchanges = 2;
    b.best = (clksync_sample){-2 * MS, 40 * US};
    snprintf(b.peer_clock, sizeof(b.peer_clock), "monotonic");
    clksync_fold(&all, &b);
    assert_int_equal(all.exchanges, 7);
    assert_int_equal(all.best.offset_ns, -2 * MS);
    assert_string_equal(all.peer_clock, "monotonic");
    /* |offset| 2000 us + bound 20 us against the latency corrected by the offset (-2000 us):
     * measured 4021 us is 2021 us; measured 4019 us is 2019 us; the consumer's clock behind by
     * 2 ms makes a true 50 us latency measure 2050 us (50 once corrected). */
    assert_true(clksync_corrected(&all, 4021.0) == 2021.0);
    assert_false(clksync_exceeds(&all, 4021.0));
    assert_true(clksync_exceeds(&all, 4019.0));
    assert_true(clksync_exceeds(&all, 2050.0));
    assert_true(clksync_exceeds(&all, 1000.0));
}

static char *report_text(const clksync *c, bool has_lat, double lat)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    out_report r;
    out_report_init(&r, NULL, f);
    clksync_report(&r, c, has_lat, lat);
    fclose(f);
    return text;
}

static void test_report_and_json(void **state)
{
    (void)state;
    clksync c;
    clksync_start(&c, CLKSYNC_NOT_OURS, 0);
    char *t = report_text(&c, true, 50);
    assert_string_equal(t, "  Clock offset to provider: not measured (the provider is not an "
                           "rwfperf tool)\n");
    free(t);
    json_object *j = clksync_json(&c, true, 50);
    assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
                        "{\"state\":\"not ours\",\"measured\":false,\"reason\":\"the provider is "
                        "not an rwfperf tool\"}");
    json_object_put(j);

    c.state = CLKSYNC_ON;
    c.have = true;
    c.exchanges = 17;
    c.best = (clksync_sample){12345, 9000};
    snprintf(c.peer_clock, sizeof(c.peer_clock), "realtime");
    t = report_text(&c, true, 150.0);
    assert_string_equal(t, "  Clock offset to provider (usec): +12.3 (bound 4.5, best of 17 "
                           "exchanges; provider clock realtime)\n");
    free(t);
    t = report_text(&c, true, -2.0);
    assert_non_null(strstr(t, "  Warning: the clock offset to the provider (12.3 usec, bound "
                              "4.5) is as large as the latency (avg -2.0 usec measured, 10.3 usec "
                              "corrected by the offset): one-way latency from it is not valid.\n"));
    free(t);
    t = report_text(&c, false, 0);
    assert_null(strstr(t, "Warning"));
    free(t);
    j = clksync_json(&c, true, -2.0);
    json_object *v;
    assert_true(json_object_object_get_ex(j, "offset_usec", &v));
    assert_true(json_object_get_double(v) > 12.344 && json_object_get_double(v) < 12.346);
    assert_true(json_object_object_get_ex(j, "bound_usec", &v));
    assert_true(json_object_get_double(v) == 4.5);
    assert_true(json_object_object_get_ex(j, "larger_than_latency", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(j, "provider_clock", &v));
    assert_string_equal(json_object_get_string(v), "realtime");
    json_object_put(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_decode_others_and_bad),
        cmocka_unit_test(test_peer),
        cmocka_unit_test(test_exchanges),
        cmocka_unit_test(test_fold_and_exceeds),
        cmocka_unit_test(test_report_and_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
