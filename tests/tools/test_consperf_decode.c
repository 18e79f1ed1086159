/* ConsPerf's payload decoder: the docs/wire.md#examples refresh, updates and generic message decode
 * against the original dictionary with their stamps found; every item message the original
 * ProvPerf sent in the uncompressed captures decodes; MarketByOrder maps with set definitions
 * and summary data; every failure names the field and what is wrong. */
#include "tools_test.h"

#include "payload.h"
#include "err.h"

static rwf_dict *dict;

static int setup(void **state)
{
    (void)state;
    char fields[1024], enums[1024];
    snprintf(fields, sizeof(fields), "%s", ts_source_path("data/RDMFieldDictionary"));
    snprintf(enums, sizeof(enums), "%s", ts_source_path("data/enumtype.def"));
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, fields) < 0 || rwf_dict_load_enums(dict, enums) < 0) {
        fprintf(stderr, "dictionary: %s\n", err_msg());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rwf_dict_free(dict);
    return 0;
}

/* Decodes the message in hex and its payload; returns the decoder's status. */
static int decode_hex(const char *hex, rwf_msg *m, payload_stamps *st)
{
    static uint8_t buf[4096];
    size_t n = ts_hex(hex, buf, sizeof(buf));
    assert_int_equal(rwf_msg_decode(m, rwf_buf_make(buf, n)), RWF_OK);
    err_clear();
    return payload_decode(dict, m, st);
}

/* docs/wire.md#examples: the full MsgData.xml refresh (70 fields + blank TIM_TRK_1..3). */
static const char full_refresh[] =
    "00 19 02 06 00 00 00 05 81 E8 04 09 00 00 02 00 00 22 80 07 03 01 04 52 44 54 30 08 00 49 00 "
    "01 02 19 A0 00 02 01 42 0F 0D 04 04 81 94 68 0F 0E 04 05 09 94 D0 00 04 01 00 0F 0F 04 05 0F "
    "F5 A0 00 06 04 0C 00 9B 87 0F 10 04 08 2D 76 58 0C E1 01 03 00 4D 03 0E 41 CC 0C E2 01 03 00 "
    "4E 00 00 4F 04 0F 0B 07 D5 00 0B 03 0C 02 17 00 0C 04 0C 00 9B CD 01 25 03 42 4F 53 00 0D 04 "
    "0C 00 99 F3 00 0E 01 01 00 0F 02 03 48 01 28 03 42 4F 53 00 10 04 10 0B 07 D5 04 2B 03 15 00 "
    "01 00 13 04 0C 00 9A E2 03 E8 01 2D 00 15 03 0D 0F 58 01 74 04 0C 00 9B CD 00 16 02 0C 01 01 "
    "75 03 0E 00 90 01 76 01 84 01 77 03 15 00 01 00 19 04 0C 0D BB A0 01 78 00 01 79 00 01 7A 01 "
    "00 06 AD 02 02 30 01 7B 03 17 1C 22 03 65 01 04 00 64 03 0D 0F 58 04 38 02 08 CE 00 1E 02 0E "
    "01 00 1F 02 0E 01 00 20 05 0E 00 85 0A A8 0C B8 03 0C 01 72 03 FA 01 04 00 B2 03 0E 67 8A 00 "
    "27 04 0F 0B 07 D5 00 28 01 00 03 FD 04 0F 01 EE D3 00 2A 02 0E 05 03 FF 04 0E 0E C8 C6 00 2B "
    "04 0E 01 C5 E3 00 72 00 00 2C 01 2B 04 01 03 17 23 20 00 73 01 02 00 75 01 00 00 76 01 00 05 "
    "63 04 0A 3C B8 D9 01 03 01 71 00 35 01 02 00 38 03 0C 00 88 00 C7 01 05 00 3C 04 0C 00 9B 79 "
    "00 83 01 00 00 3D 04 0C 00 9B 82 04 11 00 0D 5E 04 47 4F 4F 47 05 B9 03 0D 0F 58 00 CF 00 00 "
    "D0 04 0F 0B 07 D5 0F 3E 00 0F 3F 00 0F 40 00";

/* docs/wire.md#examples: update #1 + TIM_TRK_1 = 123456789012. */
static const char update_stamped[] =
    "00 09 04 06 00 00 00 05 00 04 00 08 00 18 00 16 06 08 00 A9 C9 93 80 00 19 06 08 00 A9 D9 99 "
    "10 00 1E 02 0E 01 00 1F 02 0E 01 19 B3 01 52 19 B4 01 52 00 72 05 08 00 CB 8D 60 03 E8 01 20 "
    "22 E9 01 00 00 D3 03 0E 7B D5 00 76 01 00 0C C0 01 00 0F 2F 04 0F 3B A9 91 22 E7 01 01 05 DD "
    "01 20 31 EF 01 04 0F 0F 04 03 67 C3 E0 04 01 03 0F 34 0C 00 05 02 0F 34 20 D6 01 20 04 11 01 "
    "20 00 CB 06 08 00 A9 C9 93 80 37 9E 03 0F 34 0C 0F 3E 05 1C BE 99 1A 14";

static void test_refresh_and_update(void **state)
{
    (void)state;
    rwf_msg m;
    payload_stamps st;
    assert_int_equal(decode_hex(full_refresh, &m, &st), 0);
    assert_int_equal(m.msg_class, RWF_MC_REFRESH);
    /* The refresh's stamps are blank: none found. */
    assert_true(st.t[0] == 0 && st.t[1] == 0 && st.t[2] == 0);
    assert_true(st.sum != 0);

    assert_int_equal(decode_hex(update_stamped, &m, &st), 0);
    assert_int_equal(m.msg_class, RWF_MC_UPDATE);
    assert_true(st.t[0] == UINT64_C(123456789012));
    assert_true(st.t[1] == 0 && st.t[2] == 0);
}

/* An update with our scheduled stamp after TIM_TRK_1, a reflected post, a generic message. */
static void test_stamps_by_field(void **state)
{
    (void)state;
    uint8_t buf[256];
    rwf_enc e;
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 6, RWF_DT_FIELD_LIST);
    m.flags = RWF_UPMF_HAS_POST_USER_INFO;
    m.post_user_addr = 0x7F000001;
    m.post_user_id = 4321;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_fl_begin_std(&e);
    rwf_real bid = {.value = 2848560000, .hint = RWF_RH_EXPONENT_6};
    rwf_enc_fl_real(&e, 22, &bid);
    rwf_enc_fl_uint(&e, RWF_FID_TIM_TRK_2, 1000);
    rwf_enc_fl_uint(&e, RWF_FID_TIM_TRK_3, 990);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    size_t len;
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);

    rwf_msg d;
    payload_stamps st;
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(payload_decode(dict, &d, &st), 0);
    assert_true(st.t[0] == 0 && st.t[1] == 1000 && st.t[2] == 990);
    assert_true(d.post_user_addr == 0x7F000001 && d.post_user_id == 4321);

    /* docs/wire.md#examples generic message: TIM_TRK_3 = 123456789012. */
    assert_int_equal(decode_hex("00 08 07 06 00 00 00 05 00 04 08 00 02 00 16 06 08 00 C1 A1 17 "
                                "80 0F 40 05 1C BE 99 1A 14",
                                &m, &st),
                     0);
    assert_int_equal(m.msg_class, RWF_MC_GENERIC);
    assert_true(st.t[2] == UINT64_C(123456789012) && st.t[0] == 0);

    /* A blank stamp is no stamp. */
    assert_int_equal(decode_hex("00 09 04 06 00 00 00 05 00 04 00 08 00 01 0F 3E 00", &m, &st), 0);
    assert_true(st.t[0] == 0);
}

static void expect_error(const char *hex, const char *text)
{
    rwf_msg m;
    payload_stamps st;
    assert_int_equal(decode_hex(hex, &m, &st), -1);
    if (!strstr(err_msg(), text))
        fail_msg("error \"%s\" lacks \"%s\"", err_msg(), text);
}

static void test_errors_name_the_field(void **state)
{
    (void)state;
    /* fid -32000 is in no dictionary. */
    expect_error("00 09 04 06 00 00 00 05 00 04 00 08 00 01 83 00 01 05",
                 "field -32000 is not in the dictionary");
    /* TIM_TRK_1 (UINT) with 9 bytes. */
    expect_error("00 09 04 06 00 00 00 05 00 04 00 08 00 01 0F 3E 09 01 02 03 04 05 06 07 08 09",
                 "field 3902 (TIM_TRK_1)");
    /* BID (REAL) with an invalid hint (31). */
    expect_error("00 09 04 06 00 00 00 05 00 04 00 08 00 01 00 16 02 1F 01", "field 22 (BID)");
    /* An entry that runs past the end of the list. */
    expect_error("00 09 04 06 00 00 00 05 00 04 00 08 00 01 00 16 06 08 00", "FieldList");
    /* Element lists are not a MarketPrice payload. */
    expect_error("00 09 04 06 00 00 00 05 00 05 00 08 00 00", "does not decode");
}

/* A MarketByOrder update: map keyed by order id, set definitions, summary data carrying the
 * stamp, entries of set data and standard data. */
static void test_market_by_order(void **state)
{
    (void)state;
    static const rwf_set_entry set0[] = {
        {.fid = 3427, .type = RWF_DT_REAL_8RB}, /* ORDER_PRC */
        {.fid = 3429, .type = RWF_DT_REAL_8RB}, /* ORDER_SIZE */
    };
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_FIELD_LIST);
    assert_int_equal(rwf_set_db_add(&db, 0, set0, 2), RWF_OK);

    uint8_t buf[1024];
    rwf_enc e;
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_UPDATE, RWF_DMT_MARKET_BY_ORDER, 5, RWF_DT_MAP);
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rwf_map_hdr mh = {.flags = RWF_MPF_HAS_SET_DEFS | RWF_MPF_HAS_SUMMARY_DATA |
                               RWF_MPF_HAS_KEY_FIELD_ID,
                      .key_type = RWF_DT_RMTES_STRING,
                      .ctype = RWF_DT_FIELD_LIST,
                      .key_fid = 3426};
    rwf_enc_map_begin(&e, &mh);
    rwf_enc_set_db(&e, &db);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_uint(&e, RWF_FID_TIM_TRK_1, 777);
    rwf_enc_fl_end(&e);
    rwf_enc_map_entry_buf(&e, RWF_MPEA_ADD_ENTRY, RWF_STR("100"));
    rwf_fl_hdr fh = {.flags = RWF_FLF_HAS_SET_DATA | RWF_FLF_HAS_STANDARD_DATA};
    rwf_enc_fl_begin(&e, &fh, &db);
    rwf_value price = {.type = RWF_DT_REAL, .real = {.value = 1234, .hint = RWF_RH_EXPONENT_2}};
    rwf_value size = {.type = RWF_DT_REAL, .real = {.value = 500, .hint = RWF_RH_EXPONENT0}};
    rwf_enc_fl_slow(&e, 3427, &price);
    rwf_enc_fl_slow(&e, 3429, &size);
    rwf_enc_fl_enum(&e, 3428, 1); /* ORDER_SIDE */
    rwf_enc_fl_end(&e);
    rwf_enc_map_entry_buf(&e, RWF_MPEA_DELETE_ENTRY, RWF_STR("101"));
    rwf_enc_map_end(&e);
    rwf_enc_msg_end(&e);
    size_t len;
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());

    rwf_msg d;
    payload_stamps st;
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(buf, len)), RWF_OK);
    if (payload_decode(dict, &d, &st) != 0)
        fail_msg("decode: %s", err_msg());
    assert_true(st.t[0] == 777);

    /* The same map whose set definition says INT_8 for ORDER_SIZE (a REAL field). */
    static const rwf_set_entry bad0[] = {{.fid = 3429, .type = RWF_DT_INT_8}};
    rwf_set_db bad;
    rwf_set_db_init(&bad, RWF_DT_FIELD_LIST);
    rwf_set_db_add(&bad, 0, bad0, 1);
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rwf_map_hdr mh2 = {
        .flags = RWF_MPF_HAS_SET_DEFS, .key_type = RWF_DT_UINT, .ctype = RWF_DT_FIELD_LIST};
    rwf_enc_map_begin(&e, &mh2);
    rwf_enc_set_db(&e, &bad);
    rwf_enc_map_entry_uint(&e, RWF_MPEA_ADD_ENTRY, 1);
    rwf_fl_hdr fh2 = {.flags = RWF_FLF_HAS_SET_DATA};
    rwf_enc_fl_begin(&e, &fh2, &bad);
    rwf_value i8 = {.type = RWF_DT_INT, .i = 5};
    rwf_enc_fl_slow(&e, 3429, &i8);
    rwf_enc_fl_end(&e);
    rwf_enc_map_end(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(payload_decode(dict, &d, &st), -1);
    if (!strstr(err_msg(), "field 3429") || !strstr(err_msg(), "disagrees"))
        fail_msg("unexpected error: %s", err_msg());
}

/* Calls fn for every RWF message in a server-to-client stream of uncompressed RIPC frames
 * (the handshake frame skipped, packed frames split). Returns the number of messages. */
static size_t each_message(const ts_bytes *s, void (*fn)(const uint8_t *, size_t, void *),
                           void *arg)
{
    size_t off = 0, n = 0;
    bool first = true;
    while (off + 3 <= s->len) {
        size_t flen = (size_t)s->data[off] << 8 | s->data[off + 1];
        uint8_t flags = s->data[off + 2];
        assert_true(flen >= 3 && off + flen <= s->len);
        if (first) {
            first = false; /* the ConnectAck */
        } else if (flags == 0x02 && flen > 3) {
            fn(s->data + off + 3, flen - 3, arg);
            n++;
        } else if (flags == 0x12) {
            size_t p = off + 3, end = off + flen;
            while (p + 2 <= end) {
                size_t ml = (size_t)s->data[p] << 8 | s->data[p + 1];
                p += 2;
                assert_true(p + ml <= end);
                if (ml) {
                    fn(s->data + p, ml, arg);
                    n++;
                }
                p += ml;
            }
        } else {
            assert_true(flags == 0x02 && flen == 3); /* a ping */
        }
        off += flen;
    }
    return n;
}

typedef struct counts {
    unsigned refreshes, updates, stamped;
} counts;

static void decode_one(const uint8_t *p, size_t len, void *arg)
{
    counts *c = arg;
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(p, len)), RWF_OK);
    if (m.stream_id < 5)
        return;
    payload_stamps st;
    if (payload_decode(dict, &m, &st) != 0)
        fail_msg("stream %d: %s", (int)m.stream_id, err_msg());
    c->refreshes += m.msg_class == RWF_MC_REFRESH;
    c->updates += m.msg_class == RWF_MC_UPDATE;
    c->stamped += st.t[0] != 0;
}

static void test_captures(void **state)
{
    (void)state;
    const char *names[] = {"consprov_default", "consprov_pack", "consprov_tcpdelay"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "%s/%s.pcap", names[i], names[i]);
        ts_tcp_streams s;
        assert_int_equal(ts_pcap_tcp_streams(ts_capture(rel), 14002, &s), 0);
        counts c = {0};
        size_t n = each_message(&s.server_to_client, decode_one, &c);
        assert_true(n > 0);
        assert_int_equal(c.refreshes, 5);
        assert_true(c.updates > 0 && c.stamped > 0);
        ts_tcp_streams_free(&s);
    }
}

/* Fids of the dictionary with the given type (up to max), from fid 1 up. */
static unsigned fids_of_type(int type, int16_t *out, unsigned max)
{
    unsigned n = 0;
    for (int fid = 1; fid < 32768 && n < max; fid++)
        if (rwf_dict_type(dict, (int16_t)fid) == type)
            out[n++] = (int16_t)fid;
    return n;
}

/* Random FieldList updates (fids of every type the fast path knows and some it does not, a
 * fid no dictionary has, the stamps; values of every length 0..10, random bytes, blank and
 * special hints, now and then a long length form, a wrong entry count or a cut-off list):
 * payload_decode gives exactly what payload_decode_reference gives, error text included. */
static void test_fast_path_matches_reference(void **state)
{
    (void)state;
    static const int types[] = {RWF_DT_REAL,         RWF_DT_ENUM,         RWF_DT_UINT,
                                RWF_DT_INT,          RWF_DT_TIME,         RWF_DT_DATE,
                                RWF_DT_RMTES_STRING, RWF_DT_ASCII_STRING, RWF_DT_BUFFER};
    int16_t pool[128];
    unsigned npool = 0;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        npool += fids_of_type(types[i], pool + npool, 8);
    pool[npool++] = RWF_FID_TIM_TRK_1;
    pool[npool++] = RWF_FID_TIM_TRK_2;
    pool[npool++] = RWF_FID_TIM_TRK_3;
    pool[npool++] = -32000;
    uint32_t seed = 12345;
    unsigned ok = 0, failed = 0;
    for (int round = 0; round < 20000; round++) {
        uint8_t buf[1024];
        static const uint8_t hdr[] = {0x00, 0x09, 0x04, 0x06, 0x00, 0x00,
                                      0x00, 0x05, 0x00, 0x04, 0x00};
        size_t n = sizeof(hdr);
        memcpy(buf, hdr, n);
        seed = seed * 1103515245u + 12345u;
        unsigned count = 1 + (seed >> 16) % 24;
        buf[n++] = RWF_FLF_HAS_STANDARD_DATA;
        buf[n++] = 0;
        buf[n++] = (uint8_t)count;
        for (unsigned k = 0; k < count; k++) {
            seed = seed * 1103515245u + 12345u;
            int16_t fid = pool[(seed >> 8) % npool];
            unsigned len = (seed >> 20) % 11;
            buf[n++] = (uint8_t)((uint16_t)fid >> 8);
            buf[n++] = (uint8_t)fid;
            if ((seed >> 28) == 0) { /* the long length form */
                buf[n++] = 0xFE;
                buf[n++] = 0;
            }
            buf[n++] = (uint8_t)len;
            for (unsigned b = 0; b < len; b++) {
                seed = seed * 1103515245u + 12345u;
                unsigned r = seed >> 24;
                /* small values and hints most of the time: known enum values, valid reals */
                buf[n++] = (uint8_t)(b == 0 && r < 200 ? r % 16 : r);
            }
        }
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 24) < 8)
            buf[13]++; /* one entry more than the list holds */
        else if ((seed >> 24) < 16)
            n -= 1 + (seed >> 8) % 3; /* cut off */
        rwf_msg m;
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, n)), RWF_OK);
        payload_stamps fast, ref;
        err_clear();
        int rf = payload_decode(dict, &m, &fast);
        char text[1024];
        snprintf(text, sizeof(text), "%s", rf < 0 ? err_msg() : "");
        err_clear();
        int rr = payload_decode_reference(dict, &m, &ref);
        assert_int_equal(rf, rr);
        if (rf == 0) {
            assert_true(fast.sum == ref.sum);
            assert_memory_equal(fast.t, ref.t, sizeof(fast.t));
            ok++;
        } else {
            assert_string_equal(text, err_msg());
            failed++;
        }
    }
    /* both outcomes were exercised many times */
    assert_true(ok > 1000 && failed > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refresh_and_update),
        cmocka_unit_test(test_stamps_by_field),
        cmocka_unit_test(test_errors_name_the_field),
        cmocka_unit_test(test_market_by_order),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_fast_path_matches_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
