/*
 * Golden test of the JSON converter against the original tools' WebSocket JSON captures
 * (../shared/vectors/ws_json, ws_reactor): every TEXT frame the original ConsPerf and ProvPerf
 * sent is converted JSON -> RWF -> JSON by our converter, and the result must be the captured
 * frame byte for byte — login, directory, item requests and refreshes, updates with their
 * latency stamps, posts with the update they carry, generic messages, pings and pongs, packed
 * frames of several messages. ENUM fields come as numbers in some runs and as display texts in
 * others (modes.md §3.7): each frame must match one of the two forms.
 *
 * The original ran with the data files of ../shared/data, so this replay loads those.
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
    const char *fld = ts_shared_path_or_skip("data/RDMFieldDictionary");
    char fpath[1024];
    snprintf(fpath, sizeof(fpath), "%s", fld);
    const char *enm = ts_shared_path_or_skip("data/enumtype.def");
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
    const char *path = ts_shared_path_or_skip(rel);
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
    check_capture("vectors/ws_json/ws_json.c2s.txt", &ct);
    check_capture("vectors/ws_json/ws_json.s2c.txt", &ct);
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
    check_capture("vectors/ws_json/ws_json_conv.c2s.txt", &ct);
    check_capture("vectors/ws_json/ws_json_conv.s2c.txt", &ct);
    check_capture("vectors/ws_json/ws_json_post.c2s.txt", &ct);
    check_capture("vectors/ws_json/ws_json_post.s2c.txt", &ct);
    assert_int_equal(ct.by_class[RWF_MC_POST], 52);
    assert_true(ct.by_class[RWF_MC_GENERIC] >= 52 + 16);
    assert_true(ct.by_class[RWF_MC_UPDATE] > 52);
}

static void test_ws_json_packed(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("vectors/ws_json/ws_json_pack.c2s.txt", &ct);
    check_capture("vectors/ws_json/ws_json_pack.s2c.txt", &ct);
    assert_true(ct.msgs > ct.frames); /* several messages in a frame */
}

static void test_ws_json_ping(void **state)
{
    (void)state;
    counts ct = {0};
    check_capture("vectors/ws_json/ws_json_ping.c2s.txt", &ct);
    check_capture("vectors/ws_json/ws_json_ping.s2c.txt", &ct);
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
        snprintf(rel, sizeof(rel), "vectors/ws_json/%s.c2s.txt", runs[i]);
        check_capture(rel, &ct);
        if (strcmp(runs[i], "ws_json_snapshot") != 0) {
            snprintf(rel, sizeof(rel), "vectors/ws_json/%s.s2c.txt", runs[i]);
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
        snprintf(rel, sizeof(rel), "vectors/ws_reactor/%s.c2s.txt", runs[i]);
        check_capture(rel, &ct);
        snprintf(rel, sizeof(rel), "vectors/ws_reactor/%s.s2c.txt", runs[i]);
        check_capture(rel, &ct);
    }
    assert_int_equal(ct.frames, 3 * (7 + 39));
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
