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
    /* the NUL name ("Name":null) of any name type */
    {"[{\"ID\":5,\"Key\":{\"Name\":null}},{\"ID\":6,\"Key\":{\"Name\":null,\"NameType\":"
     "\"Ric\"}}]",
     2},
    /* a REAL of more than 19 digits whose last ones are zeros, as the writer writes 1e23 */
    {"{\"ID\":7,\"Type\":\"Update\",\"Fields\":{\"NUM_MOVES\":1e23,\"BID\":-1.0e25}}", 1},
    /* KeyInUpdates true on a Login or Dictionary request (false is the default there) */
    {"[{\"ID\":2,\"Domain\":\"Dictionary\",\"Key\":{\"Identifier\":1},\"KeyInUpdates\":true},"
     "{\"ID\":1,\"Domain\":\"Login\",\"Key\":{\"Name\":\"u\"},\"KeyInUpdates\":true}]",
     2},
    /* an empty date or time text: blank, as null (not the blank pattern as a value) */
    {"{\"ID\":7,\"Type\":\"Update\",\"Fields\":{\"SALTIM\":\"\",\"TRADE_DATE\":\"\"}}", 1},
    {"{\"ID\":8,\"Type\":\"Refresh\",\"Key\":{\"Name\":\"A\"},\"Elements\":{\"T\":{\"Type\":"
     "\"Time\",\"Data\":\"\"},\"D\":{\"Type\":\"DateTime\",\"Data\":\"\"}}}",
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

/* The RWF -> JSON property for one message with converter c: 1 when it converts. */
static int rwf_message(const rjs_conv *c, const uint8_t *msg, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    assert_non_null(p);
    memcpy(p, msg, size);
    size_t j1 = 0, j2 = 0, n;
    int rc = rjs_msg_to_json(c, rwf_buf_make(p, size), json, sizeof(json), &j1);
    free(p);
    if (rc != RWF_OK)
        return 0;
    if (rjs_json_check(json, j1) != RWF_OK)
        fail_msg("not well formed: %s\n  %.*s", err_msg(), (int)j1, json);
    if (rjs_json_to_msg(c, json, j1, rwf2, sizeof(rwf2), &n) == RJS_MSG) {
        assert_int_equal(rjs_msg_to_json(c, rwf_buf_make(rwf2, n), json2, sizeof(json2), &j2),
                         RWF_OK);
        if (j1 != j2 || memcmp(json, json2, j1) != 0)
            fail_msg("written again differs\n  %.*s\n  %.*s", (int)j1, json, (int)j2, json2);
    }
    return 1;
}

typedef struct found_rwf {
    const char *what;
    uint8_t bytes[128];
    size_t len;
    const char *error; /* the message has no JSON form: the error says this */
} found_rwf;

static const found_rwf rwf_found[] = {
    /* an Ack that flags a NAK code of 0 and an empty text: both left out, as the encoder does */
    {"ack nak 0",
     {0x00, 0x0f, 0x06, 0x06, 0x00, 0x00, 0x00, 0x05, 0x22, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00,
      0x01, 0x01, 0x6e},
     18,
     NULL},
    /* a request key with an empty name and a name type: no name, as the encoder writes it */
    {"key with an empty name",
     {0x00, 0x13, 0x01, 0x06, 0x00, 0x00, 0x00, 0x05, 0x40, 0x00, 0x22, 0x80, 0x08, 0x07, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x52, 0x44, 0x54, 0x30, 0x01},
     43,
     NULL},
    /* a FilterList entry without data: it reads back as an entry without data (NO_DATA), not
     * as an empty ElementList */
    {"filter entry without data",
     {0x00, 0x09, 0x04, 0x06, 0x07, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x08,
      0x00, 0x01, 0x02, 0x00, 0x01, 0x00, 0x00, 0x4d, 0x02, 0x11, 0x01},
     23,
     NULL},
    /* a Vector entry flagged with empty permission data: left out, as the encoder does */
    {"vector entry with empty perm data",
     {0x00, 0x0f, 0x01, 0x05, 0x00, 0x00, 0x00, 0x02, 0x04, 0x08, 0x06, 0x10, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0xbe, 0xf0, 0xf2, 0xf8, 0x04, 0x81,
      0x94, 0x68, 0x0f, 0x0e, 0x04, 0x05, 0x09, 0x94, 0xd0, 0x00, 0x04, 0x0c, 0x00, 0x9b,
      0x87, 0x0f, 0x10, 0x00, 0x99, 0xf3, 0x00, 0x0e, 0x01, 0x01, 0x00, 0x11, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0x04, 0x0c, 0x0d, 0xbb, 0xa0, 0x01, 0x78,
      0x00, 0x01, 0x79, 0x00, 0x01, 0x7a, 0x01, 0x00, 0x06, 0xad, 0x00, 0x01, 0x11, 0x07},
     84,
     NULL},
    /* a FilterList whose Clear entry has no data: it reads back as an entry of type NO_DATA,
     * not one of the list's type (which is written with an empty container) */
    {"filter clear entry",
     {0x00, 0x15, 0x02, 0x06, 0x00, 0x00, 0x00, 0x09, 0x81, 0x68, 0x08, 0x09, 0x00, 0x00, 0x02,
      0x00, 0x00, 0x80, 0x04, 0x06, 0x01, 0x76, 0x01, 0x10, 0x07, 0x00, 0x01, 0x02, 0x03, 0xfe,
      0x00, 0x2b, 0x0b, 0x00, 0x02, 0x02, 0x01, 0x01, 0x03, 0x00, 0x00, 0x00, 0x60, 0x70, 0x00,
      0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b,
      0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b,
      0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b,
      0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b,
      0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b, 0x8b,
      0x8b, 0x13, 0x2d, 0xc4, 0x01, 0x02, 0x03, 0x02},
     128,
     NULL},
    /* an element of a set-defined type ("UInt1") in a standard ElementList: written by its
     * base type (a plain number), as its value reads back */
    {"element of a set type",
     {0x00, 0x19, 0x07, 0x06, 0x00, 0x00, 0x00, 0x18, 0x14, 0x0a, 0x80, 0x0f, 0x26,
      0x01, 0x67, 0x01, 0x05, 0x80, 0x08, 0x08, 0x00, 0x01, 0x01, 0x04, 0x41, 0x01,
      0x01, 0x84, 0x00, 0x05, 0x00, 0xfe, 0x01, 0xfe, 0x00, 0x05, 0x01, 0x55, 0xee,
      0x04, 0x7e, 0x01, 0x01, 0xb5, 0x53, 0x00, 0x00, 0x01, 0x41, 0x42, 0x43},
     51,
     NULL},
    /* Map entries (Add, Update) whose data is empty: written with an empty container, as they
     * read back (not without one) */
    {"map entries with empty data",
     {0x00, 0x19, 0x02, 0x07, 0x00, 0x00, 0x00, 0x06, 0x81, 0x68, 0x09, 0x09, 0x00, 0x00, 0x02,
      0x00, 0x00, 0x80, 0x08, 0x07, 0x01, 0x04, 0x52, 0x44, 0x54, 0x31, 0x01, 0x0a, 0x11, 0x04,
      0x80, 0x0c, 0x08, 0x00, 0x02, 0x00, 0x0f, 0x02, 0x03, 0x40, 0x00, 0x01, 0x01, 0x0a, 0x02,
      0x00, 0x02, 0x02, 0x03, 0x30, 0x39, 0xb9, 0xfe, 0x00, 0x00, 0x01, 0x02, 0x03, 0xfe, 0x00,
      0x01, 0x02, 0x15, 0x08, 0x00, 0x04, 0x0d, 0x63, 0x02, 0x0c, 0x7d, 0x0d, 0x64, 0x01, 0x01,
      0x0d, 0x65, 0x02, 0x0f, 0x01, 0x0f, 0x0f, 0x01, 0x01, 0xc3, 0x03, 0x03, 0x31, 0x63, 0x02},
     90,
     NULL},
    /* a date with month 200: written as it is (not as "00", which reads back as a blank
     * month), and refused when read */
    {"date with month 200",
     {0x00, 0x09, 0x04, 0x06, 0x00, 0x00, 0x00, 0x07, 0x00, 0x04, 0x01, 0x08, 0x00, 0x08, 0x00,
      0x16, 0x01, 0x21, 0x00, 0x19, 0x02, 0x08, 0xff, 0x00, 0x10, 0x04, 0x0a, 0xc8, 0x15, 0x00,
      0x4e, 0x0a, 0x24, 0x5c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x69, 0x73, 0x03,
      0x03, 0x30, 0x35, 0x98, 0x80, 0x01, 0x04, 0x00, 0x00, 0x02, 0x01, 0x00, 0x21, 0x4d, 0x02,
      0x00, 0x10, 0x04, 0x0a, 0xc8, 0x15, 0x00, 0x4e, 0x0a, 0x24, 0x5c, 0x01, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x69, 0x73, 0x03, 0x03, 0x30, 0x35, 0x11, 0x01},
     87,
     NULL},
};

static void test_rwf_found(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rwf_found) / sizeof(rwf_found[0]); i++) {
        const found_rwf *f = &rwf_found[i];
        if (f->error) {
            size_t jl = 0;
            assert_true(
                rjs_msg_to_json(conv, rwf_buf_make(f->bytes, f->len), json, sizeof(json), &jl) < 0);
            if (!strstr(err_msg(), f->error))
                fail_msg("%s: error \"%s\" lacks \"%s\"", f->what, err_msg(), f->error);
            continue;
        }
        if (!rwf_message(conv, f->bytes, f->len) || !rwf_message(conv_text, f->bytes, f->len))
            fail_msg("%s: no JSON: %s", f->what, err_msg());
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_found),
        cmocka_unit_test(test_rwf_found),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
