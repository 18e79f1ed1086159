/*
 * Golden test of the JSON converter against the original tools' WebSocket JSON captures
 * (tests/data/captures/ws_json, ws_reactor): every TEXT frame the original ConsPerf and ProvPerf
 * sent is converted JSON -> RWF -> JSON by our converter, and the result must be the captured
 * frame byte for byte — login, directory, item requests and refreshes, updates with their
 * latency stamps, posts with the update they carry, generic messages, pings and pongs, packed
 * frames of several messages. ENUM fields come as numbers in some runs and as display texts in
 * others (docs/wire.md#json-values): each frame must match one of the two forms.
 *
 * The frames of the hand-written probing client (probe*.client.txt) convert unless the original
 * provider refused them; the frames of the JSON stub provider (stub_*.server.txt) convert and
 * are stable through a second round, and the original ConsPerf's side of that talk regenerates.
 *
 * The replay loads the project's dictionary (data/): it defines every field those frames carry,
 * under the names and with the types the original converter gives them, so this also checks
 * the dictionary against the original's.
 */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rjs.h"

static rwf_dict *dict;
static rjs_conv *conv_num, *conv_text;

static char out[1 << 20];
static uint8_t rwf[1 << 16];

static int setup(void **state)
{
    (void)state;
    const char *fld = ts_source_path("data/RDMFieldDictionary");
    char fpath[1024];
    snprintf(fpath, sizeof(fpath), "%s", fld);
    const char *enm = ts_source_path("data/enumtype.def");
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, fpath) != RWF_OK ||
        rwf_dict_load_enums(dict, enm) != RWF_OK) {
        fprintf(stderr, "dictionary: %s\n", err_msg());
        return -1;
    }
    rjs_opts text = {.flags = RJS_ENUM_TEXT};
    conv_num = rjs_conv_new(dict, NULL);
    conv_text = rjs_conv_new(dict, &text);
    return conv_num && conv_text ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rjs_conv_free(conv_num);
    rjs_conv_free(conv_text);
    rwf_dict_free(dict);
    return 0;
}

typedef struct counts {
    unsigned frames, msgs, pings, pongs, text_enums;
    unsigned by_class[9];
} counts;

/* JSON -> RWF -> JSON of one frame with converter c; *len: the regenerated frame. Fails the
 * test when a message does not convert. */
static void regenerate(const rjs_conv *c, const char *frame, size_t n, size_t *len, counts *ct,
                       const char *where)
{
    rjs_reader r;
    rjs_batch b;
    size_t rlen;
    int rc;
    rjs_reader_init(&r, frame, n);
    assert_int_equal(rjs_batch_begin(&b, out, sizeof(out)), RWF_OK);
    while ((rc = rjs_reader_next(c, &r, rwf, sizeof(rwf), &rlen)) != RWF_END) {
        if (rc < 0)
            fail_msg("%s: JSON -> RWF: %s", where, err_msg());
        if (rc == RJS_PING) {
            ct->pings++;
            rc = rjs_batch_add_text(&b, RJS_PING_OBJ, strlen(RJS_PING_OBJ));
        } else if (rc == RJS_PONG) {
            ct->pongs++;
            rc = rjs_batch_add_text(&b, RJS_PONG_OBJ, strlen(RJS_PONG_OBJ));
        } else {
            assert_int_equal(rc, RJS_MSG);
            rwf_msg m;
            assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf, rlen)), RWF_OK);
            ct->msgs++;
            ct->by_class[m.msg_class]++;
            rc = rjs_batch_add(c, &b, rwf_buf_make(rwf, rlen));
        }
        if (rc < 0)
            fail_msg("%s: RWF -> JSON: %s", where, err_msg());
    }
    assert_int_equal(rjs_batch_end(&b, len), RWF_OK);
}

/* The first byte where a and b differ, shown with some context. */
static void show_diff(const char *where, const char *want, size_t wn, const char *got, size_t gn)
{
    size_t i = 0;
    while (i < wn && i < gn && want[i] == got[i])
        i++;
    size_t from = i > 60 ? i - 60 : 0;
    fail_msg("%s: frame differs at byte %zu\n  want ...%.*s\n  got  ...%.*s", where, i,
             (int)(wn - from < 140 ? wn - from : 140), want + from,
             (int)(gn - from < 140 ? gn - from : 140), got + from);
}

/* Every TEXT frame of capture file rel regenerates to itself. */
static void check_capture(const char *rel, counts *ct)
{
    uint8_t *text;
    size_t len;
    const char *path = ts_capture(rel);
    if (ts_read_file(path, &text, &len) != 0)
        fail_msg("cannot read %s", path);
    char *line = (char *)text, *next;
    unsigned lineno = 0;
    for (; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        size_t ll = next ? (size_t)(next - line) : strlen(line);
        if (next)
            next++;
        char *bar = memmem(line, ll, " | ", 3);
        if (!memmem(line, ll, " TEXT fin=1 ", 12) || !bar)
            continue;
        const char *frame = bar + 3;
        size_t fn = ll - (size_t)(frame - line);
        char where[256];
        snprintf(where, sizeof(where), "%s:%u", rel, lineno);
        size_t got;
        counts tmp = *ct;
        regenerate(conv_num, frame, fn, &got, ct, where);
        if (got != fn || memcmp(out, frame, fn) != 0) {
            *ct = tmp;
            regenerate(conv_text, frame, fn, &got, ct, where);
            if (got != fn || memcmp(out, frame, fn) != 0)
                show_diff(where, frame, fn, out, got);
            ct->text_enums++;
        }
        ct->frames++;
    }
    free(text);
}

static void test_ws_json(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("ws_json/ws_json.c2s.txt", &ct);
    check_capture("ws_json/ws_json.s2c.txt", &ct);
    /* login, directory, 5 requests; login and directory refreshes, 5 refreshes, 275 updates */
    assert_int_equal(ct.by_class[RWF_MC_REQUEST], 7);
    assert_int_equal(ct.by_class[RWF_MC_REFRESH], 7);
    assert_int_equal(ct.by_class[RWF_MC_UPDATE], 275);
    assert_true(ct.text_enums > 0); /* this run sent display texts */
}

static void test_ws_json_posts_generics(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("ws_json/ws_json_conv.c2s.txt", &ct);
    check_capture("ws_json/ws_json_conv.s2c.txt", &ct);
    check_capture("ws_json/ws_json_post.c2s.txt", &ct);
    check_capture("ws_json/ws_json_post.s2c.txt", &ct);
    assert_int_equal(ct.by_class[RWF_MC_POST], 52);
    assert_true(ct.by_class[RWF_MC_GENERIC] >= 52 + 16);
    assert_true(ct.by_class[RWF_MC_UPDATE] > 52);
}

static void test_ws_json_packed(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("ws_json/ws_json_pack.c2s.txt", &ct);
    check_capture("ws_json/ws_json_pack.s2c.txt", &ct);
    assert_true(ct.msgs > ct.frames); /* several messages in a frame */
}

static void test_ws_json_ping(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("ws_json/ws_json_ping.c2s.txt", &ct);
    check_capture("ws_json/ws_json_ping.s2c.txt", &ct);
    assert_int_equal(ct.pings, 2); /* one each way */
    assert_int_equal(ct.pongs, 2);
}

static void test_ws_json_other_runs(void **state)
{
    (void)state;
    counts ct = {0};
    static const char *const runs[] = {"ws_json_zlib", "ws_srvpref_json", "ws_json_snapshot",
                                       "ws_json_conv_snapshot", "ws_json_alloc512"};
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "ws_json/%s.c2s.txt", runs[i]);
        check_capture(rel, &ct);
        if (strcmp(runs[i], "ws_json_snapshot") != 0) {
            snprintf(rel, sizeof(rel), "ws_json/%s.s2c.txt", runs[i]);
            check_capture(rel, &ct);
        }
    }
    assert_int_equal(ct.frames, 7 + 19 + 7 + 19 + 7 + 7 + 7 + 1 + 1);
}

static void test_ws_reactor(void **state)
{
    (void)state;
    counts ct = {0};
    static const char *const runs[] = {"react_json", "wl_json", "reactprov_json"};
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "ws_reactor/%s.c2s.txt", runs[i]);
        check_capture(rel, &ct);
        snprintf(rel, sizeof(rel), "ws_reactor/%s.s2c.txt", runs[i]);
        check_capture(rel, &ct);
    }
    assert_int_equal(ct.frames, 3 * (7 + 39));
}

/* "DIRECT_FEED" is service 1, as in the original provider's directory. */
static int service_id(void *ctx, rwf_buf name, uint16_t *id)
{
    (void)ctx;
    if (name.len != 11 || memcmp(name.data, "DIRECT_FEED", 11) != 0)
        return -1;
    *id = 1;
    return 0;
}

/* Converts every message of frame with c (JSON -> RWF, and the RWF back to JSON); returns 0, or
 * the first negative code. */
static int convert_all(const rjs_conv *c, const char *frame, size_t n, counts *ct)
{
    rjs_reader r;
    size_t rlen, jlen;
    int rc;
    rjs_reader_init(&r, frame, n);
    while ((rc = rjs_reader_next(c, &r, rwf, sizeof(rwf), &rlen)) != RWF_END) {
        if (rc < 0)
            return rc;
        if (rc == RJS_MSG) {
            rwf_msg m;
            assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf, rlen)), RWF_OK);
            ct->by_class[m.msg_class]++;
            ct->msgs++;
            jlen = 0;
            if (rjs_msg_to_json(c, rwf_buf_make(rwf, rlen), out, sizeof(out), &jlen) != RWF_OK)
                fail_msg("RWF -> JSON: %s", err_msg());
        }
    }
    return 0;
}

/* Lines "<dir> <time> op=1 ... <json>" of a capture file: calls fn for each with the JSON text
 * (prefix: the part of the line before the JSON that must be present, e.g. "  > "). */
static void each_text_frame(const char *rel, const char *prefix, const char *after,
                            void (*fn)(const char *json, size_t n, const char *where, void *arg),
                            void *arg)
{
    uint8_t *text;
    size_t len;
    const char *path = ts_capture(rel);
    if (ts_read_file(path, &text, &len) != 0)
        fail_msg("cannot read %s", path);
    char *line = (char *)text, *next, *end = (char *)text + len; /* the file may hold NULs */
    unsigned lineno = 0;
    size_t pl = strlen(prefix);
    for (; line < end; line = next) {
        lineno++;
        char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
        next = line + ll + 1;
        if (ll < pl || memcmp(line, prefix, pl) != 0 || !memmem(line, ll, " op=1 ", 6))
            continue;
        const char *a = memmem(line, ll, after, strlen(after));
        if (!a)
            continue;
        const char *j = a + strlen(after);
        while (*j != '{' && *j != '[' && j < line + ll)
            j++;
        size_t n = (size_t)(line + ll - j);
        static const char tail[] = " (mask bit 0)";
        if (n >= sizeof(tail) - 1 &&
            memcmp(j + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) == 0)
            n -= sizeof(tail) - 1;
        while (n && (j[n - 1] == ' ' || j[n - 1] == '\r'))
            n--;
        char where[256];
        snprintf(where, sizeof(where), "%s:%u", rel, lineno);
        fn(j, n, where, arg);
    }
    free(text);
}

typedef struct probe_counts {
    counts ct;
    unsigned ok, refused;
    const rjs_conv *c;
} probe_counts;

/* A frame the probing client sent: the original provider refused exactly the top-level
 * "Filter", the unknown key "Foo" and the truncated text; everything else converts. */
static void probe_client_frame(const char *json, size_t n, const char *where, void *arg)
{
    probe_counts *pc = arg;
    int bad = memmem(json, n, "\"Source\",\"Filter\"", 17) || memmem(json, n, "\"Foo\"", 5) ||
              (json[n - 1] != '}' && json[n - 1] != ']');
    int rc = convert_all(pc->c, json, n, &pc->ct);
    if (bad && rc >= 0)
        fail_msg("%s: accepted %.*s", where, (int)n, json);
    if (!bad && rc < 0)
        fail_msg("%s: %s", where, err_msg());
    if (bad)
        pc->refused++;
    else
        pc->ok++;
}

static void test_probe_frames(void **state)
{
    (void)state;
    rjs_opts o = {.service_id = service_id};
    probe_counts pc = {.c = rjs_conv_new(dict, &o)};
    assert_non_null(pc.c);
    each_text_frame("ws_json/probe1.client.txt", "  > ", "mask=", probe_client_frame, &pc);
    each_text_frame("ws_json/probe2.client.txt", "  > ", "mask=", probe_client_frame, &pc);
    assert_int_equal(pc.refused, 3);
    assert_int_equal(pc.ok, 21);
    assert_int_equal(pc.ct.by_class[RWF_MC_POST], 1);
    assert_int_equal(pc.ct.by_class[RWF_MC_GENERIC], 1);
    assert_int_equal(pc.ct.pings, 0); /* pings are not messages */

    /* The request by service name carries service id 1; the batch request names three items. */
    static const char by_name[] =
        "{\"ID\":5,\"Key\":{\"Name\":\"RDT0\",\"Service\":\"DIRECT_FEED\"}}";
    size_t rlen, jlen = 0;
    assert_int_equal(rjs_json_to_msg(pc.c, by_name, strlen(by_name), rwf, sizeof(rwf), &rlen),
                     RJS_MSG);
    assert_int_equal(rjs_msg_to_json(pc.c, rwf_buf_make(rwf, rlen), out, sizeof(out), &jlen),
                     RWF_OK);
    static const char want[] =
        "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"}}";
    assert_int_equal(jlen, strlen(want));
    assert_memory_equal(out, want, jlen);
    rjs_conv_free((rjs_conv *)pc.c);
}

typedef struct stub_counts {
    counts ct;
    unsigned frames;
} stub_counts;

/* A frame of the JSON stub provider (no defaults written: no UpdateType, no Elements): converts
 * to RWF, and the JSON of that RWF converts to the same RWF again. */
static void stub_frame(const char *json, size_t n, const char *where, void *arg)
{
    stub_counts *sc = arg;
    static uint8_t rwf2[1 << 16];
    static char json2[1 << 16];
    rjs_reader r;
    size_t rlen, rlen2, jlen;
    int rc;
    rjs_reader_init(&r, json, n);
    while ((rc = rjs_reader_next(conv_num, &r, rwf, sizeof(rwf), &rlen)) != RWF_END) {
        if (rc < 0)
            fail_msg("%s: %s", where, err_msg());
        if (rc != RJS_MSG) {
            rc == RJS_PING ? sc->ct.pings++ : sc->ct.pongs++;
            continue;
        }
        rwf_msg m;
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf, rlen)), RWF_OK);
        sc->ct.by_class[m.msg_class]++;
        jlen = 0;
        if (rjs_msg_to_json(conv_num, rwf_buf_make(rwf, rlen), json2, sizeof(json2), &jlen) !=
            RWF_OK)
            fail_msg("%s: RWF -> JSON: %s", where, err_msg());
        if (rjs_json_to_msg(conv_num, json2, jlen, rwf2, sizeof(rwf2), &rlen2) != RJS_MSG)
            fail_msg("%s: JSON -> RWF again: %s", where, err_msg());
        ts_assert_bytes_equal(rwf2, rlen2, rwf, rlen);
    }
    sc->frames++;
}

/* A frame of the original ConsPerf talking to the stub: regenerates byte for byte. */
static void stub_consumer_frame(const char *json, size_t n, const char *where, void *arg)
{
    stub_counts *sc = arg;
    size_t got;
    regenerate(conv_num, json, n, &got, &sc->ct, where);
    if (got != n || memcmp(out, json, n) != 0)
        show_diff(where, json, n, out, got);
    sc->frames++;
}

static void test_stub_frames(void **state)
{
    (void)state;
    stub_counts prov = {0}, cons = {0};
    each_text_frame("ws_json/stub_basic.server.txt", "> ", "op=1", stub_frame, &prov);
    each_text_frame("ws_json/stub_packed.server.txt", "> ", "op=1", stub_frame, &prov);
    each_text_frame("ws_json/stub_basic.server.txt", "< ", "op=1", stub_consumer_frame, &cons);
    each_text_frame("ws_json/stub_packed.server.txt", "< ", "op=1", stub_consumer_frame, &cons);
    /* login, directory, 5 items in each run; 290 updates in each run */
    assert_int_equal(prov.ct.by_class[RWF_MC_REFRESH], 2 * 7);
    assert_int_equal(prov.ct.by_class[RWF_MC_UPDATE], 2 * 290);
    assert_int_equal(prov.ct.pings, 2);
    assert_int_equal(cons.ct.by_class[RWF_MC_REQUEST], 2 * 7);
    assert_int_equal(cons.ct.pongs, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ws_json),
        cmocka_unit_test(test_ws_json_posts_generics),
        cmocka_unit_test(test_ws_json_packed),
        cmocka_unit_test(test_ws_json_ping),
        cmocka_unit_test(test_ws_json_other_runs),
        cmocka_unit_test(test_ws_reactor),
        cmocka_unit_test(test_probe_frames),
        cmocka_unit_test(test_stub_frames),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
