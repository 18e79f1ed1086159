/*
 * Bad input never crashes and never passes unnoticed: every captured message truncated at
 * every offset is an error; oversized lengths and any byte overwritten with length-like values
 * are decoded safely (run under ASan/UBSan in CI); unknown container types are errors; the
 * encoder never writes past its buffer and refuses calls out of order.
 */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwf.h"
#include "rwf_walk.h"
#include "wire_examples.h"

static rwf_dict *dict;

/* The RWF messages of the default capture (server -> client and client -> server). */
typedef struct msgs {
    uint8_t *data[256];
    size_t len[256];
    int n;
} msgs;

static void collect(const ts_bytes *b, int client, msgs *out)
{
    size_t off = (size_t)b->data[0] << 8 | b->data[1];
    if (client)
        off += (size_t)b->data[off] << 8 | b->data[off + 1];
    while (off + 3 <= b->len && out->n < 256) {
        size_t len = (size_t)b->data[off] << 8 | b->data[off + 1];
        if (len > 3 && b->data[off + 2] == 0x02) {
            out->len[out->n] = len - 3;
            out->data[out->n] = malloc(len - 3);
            memcpy(out->data[out->n], b->data + off + 3, len - 3);
            out->n++;
        }
        off += len;
    }
}

static msgs captured;

/* Decodes everything in a heap copy of exactly n bytes (so ASan sees any overread). */
static int walk_copy(const uint8_t *p, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    walk_ctx w;
    memset(&w, 0, sizeof(w));
    w.dict = dict;
    int r = walk_msg(&w, rwf_buf_make(copy, n), 0);
    free(copy);
    return r;
}

static void test_truncated_everywhere(void **state)
{
    (void)state;
    unsigned cases = 0;
    for (int i = 0; i < captured.n; i++) {
        assert_int_equal(walk_copy(captured.data[i], captured.len[i]), RWF_OK);
        /* cut right after the header: a valid message with an empty payload */
        size_t header_end = 2 + ((size_t)captured.data[i][0] << 8 | captured.data[i][1]);
        for (size_t cut = 0; cut < captured.len[i]; cut++, cases++) {
            int r = walk_copy(captured.data[i], cut);
            if (cut == header_end)
                continue;
            if (r >= 0)
                fail_msg("message %d (%zu bytes) cut at %zu decoded without error", i,
                         captured.len[i], cut);
            assert_true(err_msg()[0] != '\0');
        }
    }
    printf("%u truncations, all rejected\n", cases);
}

static void test_every_byte_overwritten(void **state)
{
    (void)state;
    static const uint8_t values[] = {0x00, 0x7F, 0x80, 0xFD, 0xFE, 0xFF};
    unsigned cases = 0, errors = 0;
    for (int i = 0; i < captured.n; i++) {
        uint8_t *m = malloc(captured.len[i]);
        for (size_t at = 0; at < captured.len[i]; at++) {
            for (size_t v = 0; v < sizeof(values); v++, cases++) {
                memcpy(m, captured.data[i], captured.len[i]);
                m[at] = values[v];
                errors += walk_copy(m, captured.len[i]) < 0;
            }
        }
        free(m);
    }
    printf("%u mutations, %u rejected, none crashed\n", cases, errors);
    assert_true(errors > 0);
}

static void test_oversized_lengths(void **state)
{
    (void)state;
    uint8_t m[512];
    size_t n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    /* header length larger than the message */
    m[0] = 0x7F;
    assert_int_equal(walk_copy(m, n), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "header length"));
    n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    /* msgKey length 0x7FFF */
    m[18] = 0xFF;
    m[19] = 0xFF;
    assert_int_equal(walk_copy(m, n), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "msgKey"));
    n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    /* field count larger than the entries */
    m[29] = 0x07;
    assert_int_equal(walk_copy(m, n), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "FieldList"));
    n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    /* first field length FE FF FF */
    uint8_t big[64];
    memcpy(big, m, 32);
    big[32] = 0xFE;
    big[33] = 0xFF;
    big[34] = 0xFF;
    memcpy(big + 35, m + 33, n - 33);
    assert_int_equal(walk_copy(big, n + 2), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "fid 1"));
    /* a u16ob that starts with 0xFF is not a length */
    big[32] = 0xFF;
    assert_int_equal(walk_copy(big, n + 2), RWF_E_MALFORMED);
}

static void test_unknown_container_types(void **state)
{
    (void)state;
    uint8_t m[512];
    size_t n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    m[10] = 0x7E; /* payload type 254 */
    assert_int_equal(walk_copy(m, n), RWF_E_UNSUPPORTED);
    assert_non_null(strstr(err_msg(), "container type 254"));

    n = ts_hex(EX_DIR_REFRESH, m, sizeof(m));
    m[26] = 0x30; /* map entries of type 176 */
    assert_int_equal(walk_copy(m, n), RWF_E_UNSUPPORTED);
    n = ts_hex(EX_DIR_REFRESH, m, sizeof(m));
    m[36] = 0x40; /* filter entries of type 192 */
    assert_int_equal(walk_copy(m, n), RWF_E_UNSUPPORTED);

    n = ts_hex(EX_MP_REFRESH_SHORT, m, sizeof(m));
    m[2] = 0x1F; /* message class 31 */
    assert_int_equal(walk_copy(m, n), RWF_E_UNSUPPORTED);
    assert_non_null(strstr(err_msg(), "class 31"));
}

static void test_primitive_lengths(void **state)
{
    (void)state;
    uint8_t b[16] = {0};
    rwf_value v;
    static const struct {
        int type;
        uint32_t len;
    } bad[] = {
        {RWF_DT_UINT, 9},     {RWF_DT_INT, 9},      {RWF_DT_REAL, 10},  {RWF_DT_TIME, 1},
        {RWF_DT_TIME, 4},     {RWF_DT_TIME, 6},     {RWF_DT_TIME, 9},   {RWF_DT_DATE, 3},
        {RWF_DT_DATETIME, 5}, {RWF_DT_DATETIME, 8}, {RWF_DT_ENUM, 3},   {RWF_DT_FLOAT, 3},
        {RWF_DT_DOUBLE, 7},   {RWF_DT_STATE, 2},    {RWF_DT_UINT_2, 3}, {RWF_DT_TIME_3, 2},
        {RWF_DT_REAL_4RB, 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int r = rwf_get_value(bad[i].type, rwf_buf_make(b, bad[i].len), &v);
        if (r != RWF_E_MALFORMED)
            fail_msg("%s of %u bytes gave %d", rwf_type_name(bad[i].type), bad[i].len, r);
    }
    /* QoS that announces time/rate info it does not carry */
    b[0] = 3 << 5 | 3 << 1;
    assert_int_equal(rwf_get_value(RWF_DT_QOS, rwf_buf_make(b, 3), &v), RWF_E_MALFORMED);
    /* State whose text length overruns */
    b[0] = 0x09;
    b[1] = 0;
    b[2] = 5;
    assert_int_equal(rwf_get_value(RWF_DT_STATE, rwf_buf_make(b, 4), &v), RWF_E_MALFORMED);
    /* Real hint 31 */
    b[0] = 31;
    assert_int_equal(rwf_get_value(RWF_DT_REAL, rwf_buf_make(b, 2), &v), RWF_E_MALFORMED);
    /* Array of a container type / truncated header */
    b[0] = RWF_DT_MAP;
    b[1] = 0;
    b[2] = 0;
    b[3] = 0;
    rwf_array_dec a;
    assert_int_equal(rwf_array_dec_init(&a, rwf_buf_make(b, 4)), RWF_E_MALFORMED);
    b[0] = RWF_DT_UINT;
    assert_int_equal(rwf_array_dec_init(&a, rwf_buf_make(b, 3)), RWF_E_MALFORMED);
    /* Set definitions: truncated, too many, repeated id */
    rwf_set_db db;
    rwf_set_entry pool[8];
    uint8_t sd[] = {0, 1, 0, 2, 0, 1, 4};
    assert_int_equal(rwf_set_db_decode(&db, RWF_DT_FIELD_LIST, rwf_buf_make(sd, 7), pool, 8),
                     RWF_E_MALFORMED);
    uint8_t sd2[] = {0, 17};
    assert_int_equal(rwf_set_db_decode(&db, RWF_DT_FIELD_LIST, rwf_buf_make(sd2, 2), pool, 8),
                     RWF_E_MALFORMED);
    uint8_t sd3[] = {0, 2, 3, 1, 0, 1, 4, 3, 1, 0, 2, 4};
    assert_int_equal(rwf_set_db_decode(&db, RWF_DT_FIELD_LIST, rwf_buf_make(sd3, 12), pool, 8),
                     RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "repeated"));
    uint8_t sd4[] = {0, 1, 0, 9, 0, 1, 4, 0, 2, 4, 0, 3, 4, 0, 4, 4,
                     0, 5, 4, 0, 6, 4, 0, 7, 4, 0, 8, 4, 0, 9, 4};
    assert_int_equal(
        rwf_set_db_decode(&db, RWF_DT_FIELD_LIST, rwf_buf_make(sd4, sizeof(sd4)), pool, 8),
        RWF_E_NOSPACE);
}

/* Encoding into every buffer size smaller than needed fails cleanly and writes nothing past
 * the end (a canary region after the buffer stays intact). */
static void encode_refresh(rwf_enc *e)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 5;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_HAS_QOS;
    m.container_type = RWF_DT_FIELD_LIST;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = RWF_STR("RDT0");
    rwf_real r = {.value = 2848560000LL, .hint = RWF_RH_EXPONENT_6};
    rwf_time t = {.hour = 15, .minute = 52, .second = 12};
    rwf_date d = {.day = 15, .month = 11, .year = 2005};
    rwf_enc_msg_begin(e, &m);
    rwf_enc_fl_begin_std(e);
    for (int i = 0; i < 10; i++) {
        rwf_enc_fl_uint(e, 1, 6560 + (uint64_t)i);
        rwf_enc_fl_real(e, 22, &r);
        rwf_enc_fl_time(e, 1025, &t);
        rwf_enc_fl_date(e, 79, &d);
        rwf_enc_fl_enum(e, 15, 840);
        rwf_enc_fl_buf(e, 3422, RWF_DT_RMTES_STRING, RWF_STR("GOOG"));
        rwf_enc_fl_blank(e, 3902);
    }
    rwf_enc_fl_end(e);
    rwf_enc_msg_end(e);
}

static void test_encoder_out_of_room(void **state)
{
    (void)state;
    uint8_t full[2048];
    rwf_enc e;
    size_t need;
    rwf_enc_init(&e, full, sizeof(full));
    encode_refresh(&e);
    assert_int_equal(rwf_enc_finish(&e, &need), RWF_OK);
    for (size_t cap = 0; cap < need; cap++) {
        uint8_t *buf = malloc(cap + 64);
        memset(buf, 0xA5, cap + 64);
        rwf_enc_init(&e, buf, cap);
        encode_refresh(&e);
        size_t len;
        assert_int_equal(rwf_enc_finish(&e, &len), RWF_E_NOSPACE);
        assert_non_null(strstr(err_msg(), "no room"));
        for (size_t i = cap; i < cap + 64; i++)
            assert_int_equal(buf[i], 0xA5);
        free(buf);
    }
}

/* A msgKey with every member present and a 3-byte service id: the encoder must count the
 * key's largest form (length, flags, service id, name, name type, filter, identifier,
 * attribute type) before writing it, never writing past the buffer. */
static void test_encoder_full_key_out_of_room(void **state)
{
    (void)state;
    rwf_msg m = {.msg_class = RWF_MC_REQUEST,
                 .domain = RWF_DMT_MARKET_PRICE,
                 .container_type = RWF_DT_NO_DATA,
                 .stream_id = 5};
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_NAME_TYPE |
                  RWF_MKF_HAS_FILTER | RWF_MKF_HAS_IDENTIFIER | RWF_MKF_HAS_ATTRIB;
    m.key.service_id = 0xFFFF;
    m.key.name = RWF_STR("TRI.N");
    m.key.name_type = 1;
    m.key.filter = 7;
    m.key.identifier = -1;
    m.key.attrib_type = RWF_DT_NO_DATA;
    uint8_t full[256];
    size_t need, len;
    assert_int_equal(rwf_msg_encode(&m, full, sizeof(full), &need), RWF_OK);
    for (size_t cap = 0; cap < need; cap++) {
        uint8_t *buf = malloc(cap + 16);
        memset(buf, 0xA5, cap + 16);
        assert_int_equal(rwf_msg_encode(&m, buf, cap, &len), RWF_E_NOSPACE);
        for (size_t i = cap; i < cap + 16; i++)
            assert_int_equal(buf[i], 0xA5);
        free(buf);
    }
}

/* The field writers' fast path counts entries like the slow path: the 65536th field of a
 * FieldList is refused, whichever writer adds it, instead of wrapping the count to 0. */
static void test_encoder_field_count_limit(void **state)
{
    (void)state;
    size_t cap = 3 + 65537 * 12;
    uint8_t *buf = malloc(cap);
    rwf_enc e;
    rwf_real r = {.value = 1, .hint = RWF_RH_EXPONENT0};
    rwf_enc_init(&e, buf, cap);
    assert_int_equal(rwf_enc_fl_begin_std(&e), RWF_OK);
    for (unsigned i = 0; i < 65535; i++)
        assert_int_equal(rwf_enc_fl_blank(&e, 1), RWF_OK);
    assert_int_equal(rwf_enc_fl_blank(&e, 2), RWF_E_INVALID);
    assert_non_null(strstr(err_msg(), "more than 65535"));

    rwf_enc_init(&e, buf, cap);
    assert_int_equal(rwf_enc_fl_begin_std(&e), RWF_OK);
    for (unsigned i = 0; i < 65535; i++)
        assert_int_equal(rwf_enc_fl_real(&e, 6, &r), RWF_OK);
    assert_int_equal(rwf_enc_fl_uint(&e, 7, 1), RWF_E_INVALID);
    free(buf);
}

static void test_encoder_misuse(void **state)
{
    (void)state;
    uint8_t buf[256];
    rwf_enc e;
    size_t len;

    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(rwf_enc_fl_uint(&e, 1, 2), RWF_E_INVALID); /* no FieldList open */
    assert_int_equal(rwf_enc_fl_end(&e), RWF_E_INVALID);        /* sticky */
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_E_INVALID);

    rwf_enc_init(&e, buf, sizeof(buf));
    assert_int_equal(rwf_enc_end(&e), RWF_E_INVALID);

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_entry(&e, 5);
    assert_int_equal(rwf_enc_fl_end(&e), RWF_E_INVALID); /* entry without a value */
    assert_non_null(strstr(err_msg(), "entry value"));

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_el_begin_std(&e);
    assert_int_equal(rwf_enc_fl_end(&e), RWF_E_INVALID); /* wrong kind */

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_entry(&e, RWF_STR("x"), RWF_DT_UINT);
    assert_int_equal(rwf_enc_real(&e, &(rwf_real){.value = 1}), RWF_E_INVALID); /* type */

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_FIELD_LIST};
    rwf_enc_map_begin(&e, &mh);
    rwf_enc_map_entry_uint(&e, RWF_MPEA_ADD_ENTRY, 1);
    assert_int_equal(rwf_enc_el_begin_std(&e), RWF_E_INVALID); /* map holds FieldLists */

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_real(&e, 22, &(rwf_real){.value = 1, .hint = 31}); /* invalid hint */
    assert_int_equal(rwf_enc_status(&e), RWF_E_INVALID);

    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_fl_begin_std(&e);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_E_INVALID); /* still open */
    assert_non_null(strstr(err_msg(), "still open"));

    /* nesting deeper than the iterator allows */
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_STANDARD_DATA};
    int r = RWF_OK;
    for (int i = 0; i < RWF_ENC_MAX_DEPTH + 2 && r == RWF_OK; i++) {
        r = rwf_enc_el_begin(&e, &eh, NULL);
        if (r == RWF_OK)
            r = rwf_enc_el_entry(&e, RWF_STR("n"), RWF_DT_ELEMENT_LIST);
    }
    assert_int_equal(r, RWF_E_INVALID);
    assert_non_null(strstr(err_msg(), "deeper"));
}

static int setup(void **state)
{
    (void)state;
    ts_tcp_streams s;
    dict = rwf_dict_new();
    if (rwf_dict_load_fields(dict, ts_source_path("data/RDMFieldDictionary")) != RWF_OK ||
        rwf_dict_load_enums(dict, ts_source_path("data/enumtype.def")) != RWF_OK)
        return -1;
    if (ts_pcap_tcp_streams(ts_capture("consprov_default/consprov_default.pcap"), 14002, &s) != 0)
        return -1;
    collect(&s.client_to_server, 1, &captured);
    collect(&s.server_to_client, 0, &captured);
    ts_tcp_streams_free(&s);
    /* keep the test short: login, directory, one request, one refresh, a few updates */
    return captured.n > 10 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < captured.n; i++)
        free(captured.data[i]);
    rwf_dict_free(dict);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_every_byte_overwritten),
        cmocka_unit_test(test_oversized_lengths),
        cmocka_unit_test(test_unknown_container_types),
        cmocka_unit_test(test_primitive_lengths),
        cmocka_unit_test(test_encoder_out_of_room),
        cmocka_unit_test(test_encoder_misuse),
        cmocka_unit_test(test_encoder_full_key_out_of_room),
        cmocka_unit_test(test_encoder_field_count_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
