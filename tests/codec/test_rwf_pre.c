/*
 * The one-pass writers of the tools' hot messages (rwf_msg_put_short, rwf_msg_put_post_update,
 * rwf_pre_put) against the rwf_enc iterator: Updates and Generic messages with a FieldList of
 * pre-encoded entries and zero, one or two UINT fields added, blank fields (a refresh's
 * payload), a Map of pre-encoded entries with set definitions and the added fields in its
 * summary data, and a consumer's Post carrying an Update of either. For each, both encoders
 * write the same bytes, and the writers stay inside their maximum sizes.
 */
#include "testsupport.h"

#include <string.h>

#include "rwf.h"
#include "rwf_fids.h"

static uint8_t want[4096], got[4096];

/* Two field entries: fid 22 REAL (hint 2, 1234) and fid 25 REAL (hint 2, 1235). */
static const uint8_t fields[] = {0x00, 0x16, 0x03, 0x0E, 0x04, 0xD2,
                                 0x00, 0x19, 0x03, 0x0E, 0x04, 0xD3};

/* Two map entries keyed by an RMTES string, each an ADD of a FieldList of standard data with
 * one field. */
static const uint8_t map_entries[] = {
    0x02, 0x02, 'O', '1', 0x07, 0x08, 0x00, 0x01, 0x00, 0x16, 0x01, 0x05,
    0x02, 0x02, 'O', '2', 0x07, 0x08, 0x00, 0x01, 0x00, 0x16, 0x01, 0x06,
};

static size_t finish(rwf_enc *e)
{
    size_t len = 0;
    if (rwf_enc_finish(e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

/* Writes a message of cls with a FieldList of `fields` and the n fields of f, once with the
 * iterator (into want) and once with the writers (into got), and compares. */
static void same_fl(uint8_t cls, const rwf_pre_field *f, unsigned n)
{
    rwf_enc e;
    rwf_msg m;
    rwf_msg_init(&m, cls, RWF_DMT_MARKET_PRICE, 70000, RWF_DT_FIELD_LIST);
    rwf_enc_init(&e, want, sizeof(want));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_append(&e, rwf_buf_make(fields, sizeof(fields)), 2);
    for (unsigned i = 0; i < n; i++) {
        if (f[i].blank)
            rwf_enc_fl_blank(&e, f[i].fid);
        else
            rwf_enc_fl_uint(&e, f[i].fid, f[i].value);
    }
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    size_t len = finish(&e);

    rwf_pre_body b = {
        .ctype = RWF_DT_FIELD_LIST, .count = 2, .entries = fields, .entries_len = sizeof(fields)};
    uint8_t *p = rwf_msg_put_short(got, cls, RWF_DMT_MARKET_PRICE, 70000, RWF_DT_FIELD_LIST);
    uint8_t *end = rwf_pre_put(p, &b, f, n);
    assert_int_equal(end - got, len);
    assert_memory_equal(got, want, len);
    assert_true((size_t)(end - p) <= rwf_pre_max_size(&b, n));
    assert_true((size_t)(p - got) <= RWF_MSG_SHORT_MAX);
}

static void test_field_list(void **state)
{
    (void)state;
    rwf_pre_field f[3] = {{.fid = 3902, .value = 1767225600123456ull}, {.fid = 3904, .value = 5}};
    for (unsigned n = 0; n <= 2; n++) {
        same_fl(RWF_MC_UPDATE, f, n);
        same_fl(RWF_MC_GENERIC, f, n);
    }
    f[1].value = UINT64_MAX; /* the largest value */
    same_fl(RWF_MC_UPDATE, f, 2);
    rwf_pre_field blanks[3] = {
        {.fid = 3902, .blank = 1}, {.fid = 3903, .blank = 1}, {.fid = 3904, .blank = 1}};
    same_fl(RWF_MC_UPDATE, blanks, 3);
}

/* A Map of map_entries keyed by ORDER_ID, set definitions when sets, the n fields of f in its
 * summary data: the iterator's bytes (set definitions and summary written in place) and
 * rwf_pre_put's. */
static void same_map(const rwf_set_db *sets, const rwf_pre_field *f, unsigned n)
{
    uint8_t defs[256];
    size_t defs_len = sets ? (size_t)(rwf_set_db_put(defs, sets) - defs) : 0;

    rwf_enc e;
    rwf_enc_init(&e, want, sizeof(want));
    rwf_map_hdr h = {.flags = RWF_MPF_HAS_KEY_FIELD_ID,
                     .key_type = RWF_DT_RMTES_STRING,
                     .ctype = RWF_DT_FIELD_LIST,
                     .key_fid = RWF_FID_ORDER_ID};
    if (sets)
        h.flags |= RWF_MPF_HAS_SET_DEFS;
    if (n)
        h.flags |= RWF_MPF_HAS_SUMMARY_DATA;
    rwf_enc_map_begin(&e, &h);
    if (sets)
        rwf_enc_set_db(&e, sets);
    if (n) {
        rwf_enc_fl_begin_std(&e);
        for (unsigned i = 0; i < n; i++)
            rwf_enc_fl_uint(&e, f[i].fid, f[i].value);
        rwf_enc_fl_end(&e);
    }
    rwf_enc_append(&e, rwf_buf_make(map_entries, sizeof(map_entries)), 2);
    rwf_enc_map_end(&e);
    size_t len = finish(&e);

    rwf_pre_body b = {.ctype = RWF_DT_MAP,
                      .key_type = RWF_DT_RMTES_STRING,
                      .count = 2,
                      .key_fid = RWF_FID_ORDER_ID,
                      .entries = map_entries,
                      .entries_len = sizeof(map_entries),
                      .set_defs = sets ? defs : NULL,
                      .set_defs_len = (uint32_t)defs_len};
    uint8_t *end = rwf_pre_put(got, &b, f, n);
    assert_int_equal(end - got, len);
    assert_memory_equal(got, want, len);
    assert_true((size_t)(end - got) <= rwf_pre_max_size(&b, n));
}

static void test_map(void **state)
{
    (void)state;
    static const rwf_set_entry set0[] = {{.fid = 3427, .type = RWF_DT_REAL_4RB},
                                         {.fid = 3429, .type = RWF_DT_UINT_4}};
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_FIELD_LIST);
    assert_int_equal(rwf_set_db_add(&db, 0, set0, 2), RWF_OK);
    rwf_pre_field f[2] = {{.fid = 3902, .value = 1767225600123456ull}, {.fid = 3904, .value = 9}};
    for (unsigned n = 0; n <= 2; n++) {
        same_map(NULL, f, n);
        same_map(&db, f, n);
    }
}

/* A consumer's post: a Post (POST_COMPLETE, post user info) carrying an Update with post user
 * info, whose payload is a FieldList of `fields` with n stamps or the Map of map_entries with
 * them in its summary data, by the iterator and by rwf_msg_put_post_update and rwf_pre_put. */
static void same_post(bool map, const rwf_pre_field *f, unsigned n)
{
    uint8_t ctype = map ? RWF_DT_MAP : RWF_DT_FIELD_LIST;
    uint8_t domain = map ? RWF_DMT_MARKET_BY_ORDER : RWF_DMT_MARKET_PRICE;
    rwf_msg post, upd;
    rwf_msg_init(&post, RWF_MC_POST, domain, 70000, RWF_DT_MSG);
    post.flags = RWF_PSMF_POST_COMPLETE;
    post.post_user_addr = 0x7F000001;
    post.post_user_id = 4242;
    rwf_msg_init(&upd, RWF_MC_UPDATE, domain, 0, ctype);
    upd.flags = RWF_UPMF_HAS_POST_USER_INFO;
    upd.post_user_addr = post.post_user_addr;
    upd.post_user_id = post.post_user_id;
    rwf_enc e;
    rwf_enc_init(&e, want, sizeof(want));
    rwf_enc_msg_begin(&e, &post);
    rwf_enc_msg_begin(&e, &upd);
    rwf_pre_body b = {.ctype = ctype, .count = 2, .entries = fields, .entries_len = sizeof(fields)};
    if (map) {
        rwf_map_hdr h = {.flags = RWF_MPF_HAS_KEY_FIELD_ID | (n ? RWF_MPF_HAS_SUMMARY_DATA : 0),
                         .key_type = RWF_DT_RMTES_STRING,
                         .ctype = RWF_DT_FIELD_LIST,
                         .key_fid = RWF_FID_ORDER_ID};
        rwf_enc_map_begin(&e, &h);
        if (n) {
            rwf_enc_fl_begin_std(&e);
            for (unsigned i = 0; i < n; i++)
                rwf_enc_fl_uint(&e, f[i].fid, f[i].value);
            rwf_enc_fl_end(&e);
        }
        rwf_enc_append(&e, rwf_buf_make(map_entries, sizeof(map_entries)), 2);
        rwf_enc_map_end(&e);
        b = (rwf_pre_body){.ctype = RWF_DT_MAP,
                           .key_type = RWF_DT_RMTES_STRING,
                           .count = 2,
                           .key_fid = RWF_FID_ORDER_ID,
                           .entries = map_entries,
                           .entries_len = sizeof(map_entries)};
    } else {
        rwf_enc_fl_begin_std(&e);
        rwf_enc_fl_append(&e, rwf_buf_make(fields, sizeof(fields)), 2);
        for (unsigned i = 0; i < n; i++)
            rwf_enc_fl_uint(&e, f[i].fid, f[i].value);
        rwf_enc_fl_end(&e);
    }
    rwf_enc_msg_end(&e);
    rwf_enc_msg_end(&e);
    size_t len = finish(&e);

    uint8_t *p = rwf_msg_put_post_update(got, domain, 70000, RWF_PSMF_POST_COMPLETE,
                                         post.post_user_addr, post.post_user_id, ctype);
    assert_true((size_t)(p - got) <= RWF_MSG_POST_UPDATE_MAX);
    uint8_t *end = rwf_pre_put(p, &b, f, n);
    assert_int_equal(end - got, len);
    assert_memory_equal(got, want, len);
}

static void test_post_update(void **state)
{
    (void)state;
    rwf_pre_field f[2] = {{.fid = 3903, .value = 1767225600123456ull}, {.fid = 3904, .value = 7}};
    for (unsigned n = 0; n <= 2; n++) {
        same_post(false, f, n);
        same_post(true, f, n);
    }
}

/* rwf_msg_set_stream changes the stream id and nothing else. */
static void test_set_stream(void **state)
{
    (void)state;
    uint8_t *p = rwf_msg_put_short(got, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 5, RWF_DT_NO_DATA);
    size_t len = (size_t)(p - got);
    rwf_msg_put_short(want, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, -3, RWF_DT_NO_DATA);
    rwf_msg_set_stream(got, -3);
    assert_memory_equal(got, want, len);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(m.stream_id, -3);
    assert_int_equal(m.msg_class, RWF_MC_UPDATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_list),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_post_update),
        cmocka_unit_test(test_set_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
