/*
 * pv_msg: the provider's messages against the bytes of the ETA encoders (docs/wire.md#examples): a
 * MarketPrice update with and without its TIM_TRK_1 stamp, our scheduled-time TIM_TRK_3 after
 * it, a generic message, the full MsgData.xml refresh, an item reject status; and the
 * MarketByOrder map layout (summary data carrying the stamps, set definitions in their 2-byte
 * length form) decoded back with the codec.
 */
#include "testsupport.h"

#include "pv_msg.h"
#include "rwf.h"

#include <string.h>

static const char REFRESH_FULL[] = "00 19 02 06 00 00 00 05 81 E8 04 09 00 00 02 00 "
                                   "00 22 80 07 03 01 04 52 44 54 30 08 00 49 00 01 "
                                   "02 19 A0 00 02 01 42 0F 0D 04 04 81 94 68 0F 0E "
                                   "04 05 09 94 D0 00 04 01 00 0F 0F 04 05 0F F5 A0 "
                                   "00 06 04 0C 00 9B 87 0F 10 04 08 2D 76 58 0C E1 "
                                   "01 03 00 4D 03 0E 41 CC 0C E2 01 03 00 4E 00 00 "
                                   "4F 04 0F 0B 07 D5 00 0B 03 0C 02 17 00 0C 04 0C "
                                   "00 9B CD 01 25 03 42 4F 53 00 0D 04 0C 00 99 F3 "
                                   "00 0E 01 01 00 0F 02 03 48 01 28 03 42 4F 53 00 "
                                   "10 04 10 0B 07 D5 04 2B 03 15 00 01 00 13 04 0C "
                                   "00 9A E2 03 E8 01 2D 00 15 03 0D 0F 58 01 74 04 "
                                   "0C 00 9B CD 00 16 02 0C 01 01 75 03 0E 00 90 01 "
                                   "76 01 84 01 77 03 15 00 01 00 19 04 0C 0D BB A0 "
                                   "01 78 00 01 79 00 01 7A 01 00 06 AD 02 02 30 01 "
                                   "7B 03 17 1C 22 03 65 01 04 00 64 03 0D 0F 58 04 "
                                   "38 02 08 CE 00 1E 02 0E 01 00 1F 02 0E 01 00 20 "
                                   "05 0E 00 85 0A A8 0C B8 03 0C 01 72 03 FA 01 04 "
                                   "00 B2 03 0E 67 8A 00 27 04 0F 0B 07 D5 00 28 01 "
                                   "00 03 FD 04 0F 01 EE D3 00 2A 02 0E 05 03 FF 04 "
                                   "0E 0E C8 C6 00 2B 04 0E 01 C5 E3 00 72 00 00 2C "
                                   "01 2B 04 01 03 17 23 20 00 73 01 02 00 75 01 00 "
                                   "00 76 01 00 05 63 04 0A 3C B8 D9 01 03 01 71 00 "
                                   "35 01 02 00 38 03 0C 00 88 00 C7 01 05 00 3C 04 "
                                   "0C 00 9B 79 00 83 01 00 00 3D 04 0C 00 9B 82 04 "
                                   "11 00 0D 5E 04 47 4F 4F 47 05 B9 03 0D 0F 58 00 "
                                   "CF 00 00 D0 04 0F 0B 07 D5 0F 3E 00 0F 3F 00 0F "
                                   "40 00 ";
static const char UPDATE1[] = "00 09 04 06 00 00 00 05 00 04 00 08 00 17 00 16 "
                              "06 08 00 A9 C9 93 80 00 19 06 08 00 A9 D9 99 10 "
                              "00 1E 02 0E 01 00 1F 02 0E 01 19 B3 01 52 19 B4 "
                              "01 52 00 72 05 08 00 CB 8D 60 03 E8 01 20 22 E9 "
                              "01 00 00 D3 03 0E 7B D5 00 76 01 00 0C C0 01 00 "
                              "0F 2F 04 0F 3B A9 91 22 E7 01 01 05 DD 01 20 31 "
                              "EF 01 04 0F 0F 04 03 67 C3 E0 04 01 03 0F 34 0C "
                              "00 05 02 0F 34 20 D6 01 20 04 11 01 20 00 CB 06 "
                              "08 00 A9 C9 93 80 37 9E 03 0F 34 0C ";
static const char UPDATE1_STAMP[] = "00 09 04 06 00 00 00 05 00 04 00 08 00 18 00 16 "
                                    "06 08 00 A9 C9 93 80 00 19 06 08 00 A9 D9 99 10 "
                                    "00 1E 02 0E 01 00 1F 02 0E 01 19 B3 01 52 19 B4 "
                                    "01 52 00 72 05 08 00 CB 8D 60 03 E8 01 20 22 E9 "
                                    "01 00 00 D3 03 0E 7B D5 00 76 01 00 0C C0 01 00 "
                                    "0F 2F 04 0F 3B A9 91 22 E7 01 01 05 DD 01 20 31 "
                                    "EF 01 04 0F 0F 04 03 67 C3 E0 04 01 03 0F 34 0C "
                                    "00 05 02 0F 34 20 D6 01 20 04 11 01 20 00 CB 06 "
                                    "08 00 A9 C9 93 80 37 9E 03 0F 34 0C 0F 3E 05 1C "
                                    "BE 99 1A 14 ";
static const char GENERIC[] = "00 08 07 06 00 00 00 05 00 04 08 00 02 00 16 06 "
                              "08 00 C1 A1 17 80 0F 40 05 1C BE 99 1A 14 ";
static const char STATUS[] = "00 2D 03 06 00 00 00 05 20 00 1A 0D 22 49 74 65 "
                             "6D 20 72 65 71 75 65 73 74 20 72 65 6A 65 63 74 "
                             "65 64 20 66 6F 72 20 73 74 72 65 61 6D 2E 00 ";

/* A template made of the field entries of an encoded message whose field list starts at
 * offset fl (its 3-byte header) and whose last `drop` entries bytes are left out. */
static pv_tmpl tmpl_from(const uint8_t *msg, size_t len, size_t fl, size_t drop, uint16_t count)
{
    pv_tmpl t;
    memset(&t, 0, sizeof(t));
    t.domain = RWF_DMT_MARKET_PRICE;
    t.entries = msg + fl + 3;
    t.entries_len = (uint32_t)(len - fl - 3 - drop);
    t.count = count;
    return t;
}

static void test_update(void **state)
{
    (void)state;
    uint8_t want[256], got[512];
    size_t n = ts_hex(UPDATE1, want, sizeof(want));
    assert_int_equal(n, 140);
    pv_tmpl t = tmpl_from(want, n, 11, 0, 0x17);
    assert_true(pv_msg_max_size(&t) >= 140 + 22);
    uint32_t len = pv_msg_update(got, 5, &t, 0, 0);
    ts_assert_bytes_equal(got, len, want, n);

    uint8_t want_stamp[256];
    size_t ns = ts_hex(UPDATE1_STAMP, want_stamp, sizeof(want_stamp));
    len = pv_msg_update(got, 5, &t, 123456789012ULL, 0);
    ts_assert_bytes_equal(got, len, want_stamp, ns);

    /* Our scheduled time follows as TIM_TRK_3, the count covering both. */
    len = pv_msg_update(got, 5, &t, 123456789012ULL, 123456789000ULL);
    assert_int_equal(len, ns + 8);
    assert_memory_equal(got + 14, want_stamp + 14, ns - 14);
    assert_int_equal(got[12], 0x00);
    assert_int_equal(got[13], 0x19);
    static const uint8_t sched[] = {0x0F, 0x40, 0x05, 0x1C, 0xBE, 0x99, 0x1A, 0x08};
    assert_memory_equal(got + ns, sched, sizeof(sched));

    /* The stream id can be patched in place (-preEnc). */
    pv_msg_set_stream(got, 70000);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(m.stream_id, 70000);
    assert_int_equal(m.msg_class, RWF_MC_UPDATE);
}

static void test_generic(void **state)
{
    (void)state;
    uint8_t want[64], got[128];
    size_t n = ts_hex(GENERIC, want, sizeof(want));
    /* The template is the one field before TIM_TRK_3 (8 bytes). */
    pv_tmpl t = tmpl_from(want, n, 10, 8, 1);
    uint32_t len = pv_msg_generic(got, 5, &t, 123456789012ULL, 0);
    ts_assert_bytes_equal(got, len, want, n);
    /* With the scheduled time: TIM_TRK_1 after TIM_TRK_3. */
    len = pv_msg_generic(got, 5, &t, 123456789012ULL, 5);
    assert_int_equal(len, n + 4);
    static const uint8_t sched[] = {0x0F, 0x3E, 0x01, 0x05};
    assert_memory_equal(got + n, sched, sizeof(sched));
    assert_int_equal(got[12], 3);
}

static void test_refresh(void **state)
{
    (void)state;
    uint8_t want[512], got[1024];
    size_t n = ts_hex(REFRESH_FULL, want, sizeof(want));
    assert_int_equal(n, 418);
    /* Entries between the field list header (offset 27) and the three blanks. */
    pv_tmpl t = tmpl_from(want, n, 27, 9, 70);
    pv_item it;
    memset(&it, 0, sizeof(it));
    it.stream_id = 5;
    it.domain = RWF_DMT_MARKET_PRICE;
    it.flags = PV_ITEM_STREAMING | PV_ITEM_SOLICITED;
    pv_key k;
    memset(&k, 0, sizeof(k));
    k.flags = PV_KEY_SERVICE_ID | PV_KEY_NAME;
    k.service_id = 1;
    k.name = (const uint8_t *)"RDT0";
    k.name_len = 4;
    uint32_t cap = pv_msg_refresh_max_size(&t, 4, 0);
    assert_true(cap >= 418 && cap <= sizeof(got));
    uint32_t len = pv_msg_refresh(got, cap, &it, &k, &t);
    ts_assert_bytes_equal(got, len, want, n);

    /* Snapshot: NON_STREAMING; private stream flag; no SOLICITED for a published item. */
    it.flags = PV_ITEM_PRIVATE;
    len = pv_msg_refresh(got, cap, &it, &k, &t);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(m.state.stream_state, RWF_STREAM_NON_STREAMING);
    assert_int_equal(m.flags & (RWF_RFMF_SOLICITED | RWF_RFMF_PRIVATE_STREAM),
                     RWF_RFMF_PRIVATE_STREAM);
    assert_true(rwf_buf_eq(m.key.name, RWF_STR("RDT0")));

    /* Too small a buffer is an error, not an overrun. */
    assert_int_equal(pv_msg_refresh(got, 100, &it, &k, &t), 0);
}

static void test_status(void **state)
{
    (void)state;
    uint8_t want[64], got[128];
    size_t n = ts_hex(STATUS, want, sizeof(want));
    uint32_t len = pv_msg_status(got, sizeof(got), 5, RWF_DMT_MARKET_PRICE,
                                 RWF_STREAM_CLOSED_RECOVER, RWF_DATA_SUSPECT, RWF_SC_TOO_MANY_ITEMS,
                                 "Item request rejected for stream.", true);
    ts_assert_bytes_equal(got, len, want, n);
}

/* MarketByOrder: a map keyed by ORDER_ID (RMTES), set definitions and summary data in the
 * 2-byte length form, the stamps in the summary data. */
static void test_mbo(void **state)
{
    (void)state;
    /* One ADD entry, key "100", field list with one standard field (fid 3427 REAL 1). */
    static const uint8_t entries[] = {0x02, 0x03, '1',  '0',  '0',  0xFE, 0x00, 0x08,
                                      0x08, 0x00, 0x01, 0x0D, 0x63, 0x02, 0x0E, 0x01};
    static const uint8_t set_defs[] = {0x00, 0x01, 0x00, 0x01, 0x0D, 0x63, 0x08};
    pv_tmpl t = {.domain = RWF_DMT_MARKET_BY_ORDER,
                 .entries = entries,
                 .entries_len = sizeof(entries),
                 .count = 1,
                 .set_defs = set_defs,
                 .set_defs_len = sizeof(set_defs)};
    uint8_t got[256];
    uint32_t len = pv_msg_update(got, 7, &t, 1000, 999);
    assert_true(len <= pv_msg_max_size(&t));
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(m.container_type, RWF_DT_MAP);
    assert_int_equal(m.domain, RWF_DMT_MARKET_BY_ORDER);
    rwf_map_dec md;
    assert_int_equal(rwf_map_dec_init(&md, m.payload), RWF_OK);
    assert_int_equal(md.hdr.flags,
                     RWF_MPF_HAS_KEY_FIELD_ID | RWF_MPF_HAS_SET_DEFS | RWF_MPF_HAS_SUMMARY_DATA);
    assert_int_equal(md.hdr.key_fid, RWF_FID_ORDER_ID);
    assert_int_equal(md.hdr.key_type, RWF_DT_RMTES_STRING);
    assert_true(rwf_buf_eq(md.hdr.set_defs, rwf_buf_make(set_defs, sizeof(set_defs))));
    /* The set definitions and summary lengths are in the 2-byte form. */
    assert_int_equal(got[11 + 5], 0x80);
    rwf_fl_dec fd;
    assert_int_equal(rwf_fl_dec_init(&fd, md.hdr.summary, NULL), RWF_OK);
    rwf_field f;
    uint64_t v;
    assert_int_equal(rwf_fl_next(&fd, &f), RWF_OK);
    assert_int_equal(f.fid, RWF_FID_TIM_TRK_1);
    assert_int_equal(rwf_get_uint(f.data, &v), RWF_OK);
    assert_int_equal(v, 1000);
    assert_int_equal(rwf_fl_next(&fd, &f), RWF_OK);
    assert_int_equal(f.fid, RWF_FID_TIM_TRK_3);
    assert_int_equal(rwf_get_uint(f.data, &v), RWF_OK);
    assert_int_equal(v, 999);
    assert_int_equal(rwf_fl_next(&fd, &f), RWF_END);
    rwf_map_entry me;
    assert_int_equal(rwf_map_next(&md, &me), RWF_OK);
    assert_int_equal(me.action, RWF_MPEA_ADD_ENTRY);
    assert_true(rwf_buf_eq(me.key, RWF_STR("100")));
    assert_int_equal(rwf_map_next(&md, &me), RWF_END);

    /* No stamps: no summary data. */
    len = pv_msg_update(got, 7, &t, 0, 0);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(rwf_map_dec_init(&md, m.payload), RWF_OK);
    assert_int_equal(md.hdr.flags & RWF_MPF_HAS_SUMMARY_DATA, 0);

    /* The refresh carries the three blanks in its summary data. */
    pv_item it = {.stream_id = 7, .domain = RWF_DMT_MARKET_BY_ORDER, .flags = PV_ITEM_STREAMING};
    pv_key k = {.flags = PV_KEY_NAME, .name = (const uint8_t *)"MBO1", .name_len = 4};
    len = pv_msg_refresh(got, sizeof(got), &it, &k, &t);
    assert_true(len > 0);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(rwf_map_dec_init(&md, m.payload), RWF_OK);
    assert_int_equal(rwf_fl_dec_init(&fd, md.hdr.summary, NULL), RWF_OK);
    for (int fid = RWF_FID_TIM_TRK_1; fid <= RWF_FID_TIM_TRK_3; fid++) {
        assert_int_equal(rwf_fl_next(&fd, &f), RWF_OK);
        assert_int_equal(f.fid, fid);
        assert_int_equal(f.data.len, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_update),  cmocka_unit_test(test_generic),
        cmocka_unit_test(test_refresh), cmocka_unit_test(test_status),
        cmocka_unit_test(test_mbo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
