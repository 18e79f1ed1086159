/*
 * The provider's ready JSON forms (pv_content_json, rjs_tmpl, run_out_json_form): every update
 * and generic message of data/MsgData.xml, in each form (without stamps, with the send time,
 * the scheduled time, both), rendered with a stream id and stamps, is byte for byte the
 * converter's JSON of the same RWF message (ENUM as numbers and as text), and converts back to
 * RWF with that stream id and those stamps; a form that does not fit its buffer says so; a
 * template whose own values hold a mark's digits has no form and is converted. On a
 * rssl.json.v2 WebSocket channel, bursts of updates (unpacked, and packed several to a text
 * frame) with a latency-stamped update among them arrive as exactly the frames the conversion
 * writes, the stamps read back by the consumer's payload decoder; the same with the forms
 * left out (converted at each send).
 */
#include "testsupport.h"

#include "../transport/tp_testutil.h"
#include "payload.h"
#include "pv_burst.h"
#include "pv_feed.h"
#include "rjs.h"
#include "rjs_tmpl.h"
#include "rwf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rwf_dict *dict;
static rjs_conv *conv, *conv_text;
static char want[1 << 16], got[1 << 16];
static uint8_t rwf[1 << 16], rwf2[1 << 16];

#define NOW 1795728351863123u   /* a send time (microseconds) */
#define SCHED 1795728351000000u /* a scheduled time */

static int setup(void **state)
{
    (void)state;
    char fld[1024];
    snprintf(fld, sizeof(fld), "%s", ts_source_path("data/RDMFieldDictionary"));
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, fld) != RWF_OK ||
        rwf_dict_load_enums(dict, ts_source_path("data/enumtype.def")) != RWF_OK)
        return -1;
    rjs_opts text = {.flags = RJS_ENUM_TEXT};
    conv = rjs_conv_new(dict, NULL);
    conv_text = rjs_conv_new(dict, &text);
    return conv && conv_text ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rjs_conv_free(conv);
    rjs_conv_free(conv_text);
    rwf_dict_free(dict);
    return 0;
}

/* The converter's JSON of the update (or generic message) of template t with these values,
 * into want; returns its length. */
static size_t converted(const rjs_conv *c, const pv_tmpl *t, bool generic, int32_t sid,
                        uint64_t now, uint64_t sched)
{
    uint32_t len =
        generic ? pv_msg_generic(rwf, sid, t, now, sched) : pv_msg_update(rwf, sid, t, now, sched);
    size_t n = 0;
    if (rjs_msg_to_json(c, rwf_buf_make(rwf, len), want, sizeof(want), &n) != RWF_OK)
        fail_msg("RWF -> JSON: %s", err_msg());
    return n;
}

/* JSON -> RWF -> the message's stream id and stamps. */
static void read_back(const rjs_conv *c, const char *text, size_t len, int32_t *sid,
                      payload_stamps *st)
{
    size_t n = 0;
    if (rjs_json_to_msg(c, text, len, rwf2, sizeof(rwf2), &n) != RJS_MSG)
        fail_msg("JSON -> RWF: %s\n  %.*s", err_msg(), (int)len, text);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf2, n)), RWF_OK);
    *sid = m.stream_id;
    if (payload_decode(dict, &m, st) != 0)
        fail_msg("payload: %s", err_msg());
}

/* Every form of template t against the conversion, with stream id sid. */
static void check_forms(const rjs_conv *c, const rjs_tmpl *forms, const pv_tmpl *t, bool generic,
                        int32_t sid)
{
    for (unsigned v = 0; v < PV_JSON_FORMS; v++) {
        uint64_t now = v & 1 ? NOW : 0, sched = v & 2 ? SCHED : 0;
        const rjs_tmpl *f = &forms[pv_json_form(now, sched)];
        assert_non_null(f->text);
        uint64_t vals[PV_JSON_VALS] = {(uint64_t)(int64_t)sid, now, sched};
        size_t n = 0, w = converted(c, t, generic, sid, now, sched);
        assert_int_equal(rjs_tmpl_render(f, vals, got, sizeof(got), &n), RWF_OK);
        if (n != w || memcmp(got, want, n) != 0)
            fail_msg("form %u of stream %d\n  want %.*s\n  got  %.*s", v, sid, (int)w, want, (int)n,
                     got);
        /* exactly its room, and one byte less */
        assert_int_equal(rjs_tmpl_render(f, vals, got, w, &n), RWF_OK);
        assert_int_equal(n, w);
        assert_int_equal(rjs_tmpl_render(f, vals, got, w - 1, &n), RWF_E_NOSPACE);
        int32_t back;
        payload_stamps st;
        read_back(c, want, w, &back, &st);
        assert_int_equal(back, sid);
        /* updates: TIM_TRK_1 = send time, TIM_TRK_3 = scheduled; generic messages the other
         * way round */
        assert_int_equal(st.t[generic ? 2 : 0], now);
        assert_int_equal(st.t[generic ? 0 : 2], sched);
    }
}

/* Every form of every template of the message file at path, with each converter. */
static void check_file(const char *path, int want_domains)
{
    const rjs_conv *convs[] = {conv, conv_text};
    for (int k = 0; k < 2; k++) {
        pv_feed f;
        memset(&f, 0, sizeof(f));
        pv_content *c = pv_content_load(path, dict, false, &f);
        if (!c)
            fail_msg("%s: %s", path, err_msg());
        assert_int_equal(pv_content_json(c, convs[k], &f), 0);
        int domains = 0;
        for (int d = 0; d < PV_DOMS; d++) {
            const pv_dom *dom = &f.dom[d];
            if (!dom->present)
                continue;
            domains++;
            assert_non_null(dom->json);
            for (unsigned i = 0; i < dom->n_updates; i++)
                check_forms(convs[k], &dom->json[i * PV_JSON_FORMS], &dom->updates[i], false,
                            (int32_t)(5 + i));
            for (unsigned i = 0; i < dom->n_generics; i++)
                check_forms(convs[k], &dom->json[(dom->n_updates + i) * PV_JSON_FORMS],
                            &dom->generics[i], true, 2147483647);
        }
        assert_int_equal(domains, want_domains);
        pv_content_free(c);
    }
}

static void test_forms(void **state)
{
    (void)state;
    check_file(ts_source_path("data/MsgData.xml"), 1);
}

/* MarketByOrder: the stamps in the map's summary data, set-defined entries, a delete. */
static void test_forms_mbo(void **state)
{
    (void)state;
    static const char xml[] =
        "<msgFormat>\n<marketByOrderMsgList>\n"
        "<refreshMsg><dataBody><map><fieldSetDefs><fieldSetDef setId=\"0\">"
        "<fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
        "<fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_4\"/>"
        "</fieldSetDef></fieldSetDefs>"
        "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"100\"><fieldList setId=\"0\">"
        "<fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"13.25\"/>"
        "<fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"57132000\"/>"
        "</fieldList></mapEntry></map></dataBody></refreshMsg>\n"
        "<updateMsg><dataBody><map><fieldSetDefs><fieldSetDef setId=\"0\">"
        "<fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
        "<fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_4\"/>"
        "</fieldSetDef></fieldSetDefs>"
        "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"102\"><fieldList setId=\"0\">"
        "<fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"13.5\"/>"
        "<fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"7\"/>"
        "<fieldEntry fieldId=\"212\" dataType=\"RSSL_DT_RMTES_STRING\" data=\"MM1\"/>"
        "</fieldList></mapEntry>"
        "<mapEntry action=\"RSSL_MPEA_UPDATE_ENTRY\" key=\"100\"><fieldList>"
        "<fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"400\"/>"
        "</fieldList></mapEntry>"
        "<mapEntry action=\"RSSL_MPEA_DELETE_ENTRY\" key=\"101\"/>"
        "</map></dataBody></updateMsg>\n"
        "<genMsg><dataBody><map><mapEntry action=\"1\" key=\"100\"><fieldList>"
        "<fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"1\"/>"
        "</fieldList></mapEntry></map></dataBody></genMsg>\n"
        "</marketByOrderMsgList>\n</msgFormat>\n";
    char path[] = "/tmp/test_pv_json_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, xml, sizeof(xml) - 1), (ssize_t)(sizeof(xml) - 1));
    close(fd);
    check_file(path, 1);
    unlink(path);
}

/* A template whose field holds the stream id's mark (PROD_PERM 1999999937): no form. */
static void test_mark_clash(void **state)
{
    (void)state;
    static const uint8_t entries[] = {0x00, 0x01, 0x04, 0x77, 0x35, 0x93, 0xC1};
    pv_tmpl t = {.domain = 6, .entries = entries, .entries_len = sizeof(entries), .count = 1};
    uint32_t len = pv_msg_update(rwf, 1999999937, &t, 0, 0);
    uint64_t marks[3] = {1999999937u, 0, 0};
    rjs_tmpl f;
    assert_int_equal(rjs_tmpl_build(conv, rwf_buf_make(rwf, len), marks, 3, 1u, &f),
                     RWF_E_NOTFOUND);
    assert_null(f.text);
    /* another mark works, and renders the clashing value where it belongs */
    len = pv_msg_update(rwf, 77777, &t, 0, 0);
    marks[0] = 77777;
    assert_int_equal(rjs_tmpl_build(conv, rwf_buf_make(rwf, len), marks, 3, 1u, &f), RWF_OK);
    uint64_t vals[3] = {(uint64_t)(int64_t)-12, 0, 0};
    size_t n = 0;
    assert_int_equal(rjs_tmpl_render(&f, vals, got, sizeof(got), &n), RWF_OK);
    size_t w = converted(conv, &t, false, -12, 0, 0);
    ts_assert_bytes_equal(got, n, want, w);
    assert_non_null(memmem(got, n, "\"ID\":-12,", 9));
    assert_non_null(memmem(got, n, "\"PROD_PERM\":1999999937", 22));
    rjs_tmpl_free(&f);
    assert_null(f.text);
}

typedef struct fixture {
    tu_pair p;
    pv_sess s;
    pv_stats st;
    pv_feed f;
    pv_content *c;
    unsigned visits[16]; /* updates each stream had, by stream id */
} fixture;

static uint8_t scratch[1 << 16];

static void wire_setup(fixture *x, uint32_t max_pack, bool forms)
{
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.ws_protocols = "rssl.json.v2";
    co.conn_type = TP_CONN_WEBSOCKET;
    co.ws_protocols = "rssl.json.v2";
    so.guaranteed_output_buffers = 200;
    tu_connect(&x->p, &so, &co);
    memset(&x->s, 0, sizeof(x->s));
    memset(x->visits, 0, sizeof(x->visits));
    x->s.ch = x->p.s;
    run_out_init_tp(&x->s.out, x->p.s, max_pack, 6000, 0);
    run_out_json(&x->s.out, conv, scratch, sizeof(scratch));
    x->s.json = true;
    assert_int_equal(pv_items_init(&x->s.items, 8), 0);
    assert_int_equal(pv_stats_init(&x->st, 0), 0);
    memset(&x->f, 0, sizeof(x->f));
    x->c = pv_content_load(ts_source_path("data/MsgData.xml"), dict, false, &x->f);
    assert_non_null(x->c);
    x->f.refresh_burst = 10;
    x->f.sched_stamp = true;
    if (forms)
        assert_int_equal(pv_content_json(x->c, conv, &x->f), 0);
    assert_true(forms == (x->f.dom[PV_DOM_MP].json != NULL));
    char name[16];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        pv_key k = {.flags = PV_KEY_NAME | PV_KEY_SERVICE_ID,
                    .service_id = 1,
                    .name = (const uint8_t *)name,
                    .name_len = (uint16_t)strlen(name)};
        uint32_t idx;
        assert_int_equal(
            pv_items_add(&x->s.items, 5 + i, 6, &k, PV_ITEM_STREAMING | PV_ITEM_SOLICITED, &idx),
            0);
    }
}

static void wire_teardown(fixture *x)
{
    pv_items_free(&x->s.items);
    pv_stats_free(&x->st);
    pv_content_free(x->c);
    tu_close(&x->p);
}

/* Reads one text frame (flushing the writer) into got; returns its length. */
static size_t next_frame(fixture *x)
{
    tp_msg tm;
    int rc = 0;
    for (int i = 0; i < 1000 && rc != 1; i++) {
        assert_true(tp_flush(x->p.s) >= 0);
        rc = tu_read(x->p.c, &tm, 2);
    }
    assert_int_equal(rc, 1);
    memcpy(got, tm.data, tm.len);
    return tm.len;
}

#define STAMP_ALL 1000u /* check_updates: every update is stamped */

/* Checks the update frames of a burst of n updates: each frame is the array of the
 * converter's JSON of its messages (the template each stream is at, the stamps read back).
 * per_frame: messages a frame holds (the last may hold fewer); stamped: the index of the one
 * stamped update (none when beyond n), or STAMP_ALL. */
static void check_updates(fixture *x, unsigned n, unsigned per_frame, unsigned stamped)
{
    const pv_dom *d = &x->f.dom[PV_DOM_MP];
    for (unsigned seen = 0; seen < n;) {
        size_t len = next_frame(x), w = 0;
        static char frame[1 << 16];
        frame[w++] = '[';
        rjs_reader r;
        rjs_reader_init(&r, got, len);
        size_t rl = 0;
        unsigned in_frame = 0;
        int rc;
        while ((rc = rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &rl)) == RJS_MSG) {
            rwf_msg m;
            assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf2, rl)), RWF_OK);
            assert_int_equal(m.msg_class, RWF_MC_UPDATE);
            assert_true(m.stream_id >= 5 && m.stream_id < 9);
            payload_stamps st;
            assert_int_equal(payload_decode(dict, &m, &st), 0);
            if (seen + in_frame == stamped || stamped == STAMP_ALL) {
                assert_true(st.t[0] > 0);
                assert_int_equal(st.t[2], 5000000); /* microseconds */
            } else {
                assert_int_equal(st.t[0], 0);
                assert_int_equal(st.t[2], 0);
            }
            const pv_tmpl *t = &d->updates[x->visits[m.stream_id]++ % d->n_updates];
            size_t o = converted(conv, t, false, m.stream_id, st.t[0], st.t[2]);
            if (in_frame++)
                frame[w++] = ',';
            memcpy(frame + w, want, o);
            w += o;
        }
        assert_int_equal(rc, RWF_END);
        frame[w++] = ']';
        ts_assert_bytes_equal(got, len, frame, w);
        assert_int_equal(in_frame, n - seen < per_frame ? n - seen : per_frame);
        seen += in_frame;
    }
}

static void wire(uint32_t max_pack, bool forms)
{
    fixture x;
    wire_setup(&x, max_pack, forms);
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0);
    for (unsigned got_refreshes = 0; got_refreshes < 4;) {
        size_t len = next_frame(&x);
        rjs_reader r;
        rjs_reader_init(&r, got, len);
        size_t rl;
        while (rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &rl) == RJS_MSG)
            got_refreshes++;
    }
    /* 10 updates with the stamp on the 4th, then 7 with none, then 3 all stamped */
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 10, 3, 5000000000LL), 0);
    assert_int_equal(run_out_close(&x.s.out) >= 0, 1);
    check_updates(&x, 10, max_pack, 3);
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 7, LRA_NONE, 5000000000LL), 0);
    assert_int_equal(run_out_close(&x.s.out) >= 0, 1);
    check_updates(&x, 7, max_pack, 99);
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 3, LRA_ALL, 5000000000LL), 0);
    assert_int_equal(run_out_close(&x.s.out) >= 0, 1);
    check_updates(&x, 3, max_pack, STAMP_ALL);
    assert_int_equal(counter_total(&x.st.updates), 20);
    wire_teardown(&x);
}

static void test_wire_unpacked(void **state)
{
    (void)state;
    wire(1, true);
}

static void test_wire_packed(void **state)
{
    (void)state;
    wire(4, true);
}

static void test_wire_converted(void **state)
{
    (void)state;
    wire(1, false);
    wire(4, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),       cmocka_unit_test(test_forms_mbo),
        cmocka_unit_test(test_mark_clash),  cmocka_unit_test(test_wire_unpacked),
        cmocka_unit_test(test_wire_packed), cmocka_unit_test(test_wire_converted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
