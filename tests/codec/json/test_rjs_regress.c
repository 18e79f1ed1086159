/*
 * Inputs the fuzz targets (tests/fuzz/fuzz_rjs_json.c, fuzz_rjs_rwf.c) found, kept with the
 * property they broke: every message a JSON frame holds converts to RWF that decodes, converts
 * back to JSON, reads back as the same RWF (ENUM as numbers) and is written again as the same
 * JSON; RWF that converts to JSON gives well-formed JSON that, when it reads back, is written
 * the same again.
 */
#include "rjs_test.h"

#include <stdlib.h>

#include "rjs_lex.h"

static rjs_conv *conv_skip;

static int svc(void *ctx, rwf_buf name, uint16_t *id)
{
    (void)ctx;
    if (!rwf_buf_eq(name, RWF_STR("DIRECT_FEED")))
        return -1;
    *id = 1;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    if (!(dict = load_dict()) || make_convs() < 0)
        return -1;
    rjs_opts o = {.flags = RJS_ENUM_TEXT | RJS_SKIP_UNKNOWN | RJS_DEFAULT_SERVICE,
                  .default_service = 1,
                  .service_id = svc};
    conv_skip = rjs_conv_new(dict, &o);
    return conv_skip ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rjs_conv_free(conv_skip);
    free_all();
    return 0;
}

static char json2[1 << 17];

/* The JSON -> RWF property for one frame with converter c; returns the messages made. */
static int json_frame(const rjs_conv *c, const char *text, size_t size)
{
    char *p = malloc(size ? size : 1);
    assert_non_null(p);
    memcpy(p, text, size);
    rjs_reader r;
    size_t n, n2, j1, j2;
    int rc, made = 0;
    rjs_reader_init(&r, p, size);
    while ((rc = rjs_reader_next(c, &r, rwf1, sizeof(rwf1), &n)) != RWF_END) {
        if (rc < 0 && r.done)
            break;
        if (rc != RJS_MSG)
            continue;
        made++;
        rwf_msg m;
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(rwf1, n)), RWF_OK);
        j1 = 0;
        if (rjs_msg_to_json(c, rwf_buf_make(rwf1, n), json, sizeof(json), &j1) != RWF_OK)
            fail_msg("no JSON: %s", err_msg());
        if (rjs_json_to_msg(c, json, j1, rwf2, sizeof(rwf2), &n2) != RJS_MSG)
            fail_msg("JSON written does not read: %s\n  %.*s", err_msg(), (int)j1, json);
        if (c == conv)
            ts_assert_bytes_equal(rwf2, n2, rwf1, n);
        j2 = 0;
        assert_int_equal(rjs_msg_to_json(c, rwf_buf_make(rwf2, n2), json2, sizeof(json2), &j2),
                         RWF_OK);
        if (j1 != j2 || memcmp(json, json2, j1) != 0)
            fail_msg("written again differs\n  %.*s\n  %.*s", (int)j1, json, (int)j2, json2);
    }
    free(p);
    return made;
}

typedef struct found {
    const char *json;
    int msgs; /* messages the frame makes with ENUM as numbers */
} found;

static const found json_found[] = {
    /* a Series whose entries hold nothing (their only key unknown, skipped): the Series has
     * container type NO_DATA and is written with empty entries */
    {"{\"ID\":8,\"Type\":\"Generic\",\"Key\":{\"Name\":\"g\"},\"Series\":{\"Entries\":[{\"Elemen/"
     "s\""
     ":{\"U\":{\"Type\":\"UInt\",\"Data\":1}}}]}}",
     0},
    {"{\"ID\":8,\"Type\":\"Generic\",\"Key\":{\"Name\":\"g\"},\"Series\":{\"Entries\":[{},{}]}}",
     1},
    /* zero with an exponent: hint 0, as the "0" the writer makes of it reads */
    {"{\"ID\":7,\"Type\":\"Update\",\"Fields\":{\"NUM_MOVES\":0e3,\"BID\":0.0e5,\"ASK\":-0e9}}", 1},
    /* an exponent that leaves trailing zeros: folded like an integer's */
    {"{\"ID\":7,\"Type\":\"Update\",\"Fields\":{\"NUM_MOVES\":1.0e3,\"BID\":1.50e4,\"ASK\":2e10}}",
     1},
};

static void test_json_found(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(json_found) / sizeof(json_found[0]); i++) {
        const char *t = json_found[i].json;
        assert_int_equal(json_frame(conv, t, strlen(t)), json_found[i].msgs);
        json_frame(conv_skip, t, strlen(t));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_found),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
