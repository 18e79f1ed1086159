/*
 * Containers and messages beyond what the captures carry: set-defined data in field and
 * element lists, maps with set definitions, summary data, key field ids, count hints and
 * per-entry perm data, vectors, series, filter lists with entry container types, fixed-size
 * arrays, nested messages, and every optional header member of all eight message classes.
 * Each is encoded through the API, decoded back to the same values, and re-encoded by a full
 * decode/encode walk to the same bytes.
 */
#include "testsupport.h"

#include <stdio.h>
#include <string.h>

#include "rwf.h"
#include "rwf_walk.h"

static uint8_t buf[8192], again[8192];

static size_t finish(rwf_enc *e)
{
    size_t len = 0;
    if (rwf_enc_finish(e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

/* Decode + re-encode of a container (or message, type RWF_DT_MSG) gives the same bytes. */
static walk_ctx rewalk(int type, size_t len)
{
    rwf_enc e;
    walk_ctx w;
    memset(&w, 0, sizeof(w));
    w.enc = &e;
    rwf_enc_init(&e, again, sizeof(again));
    int r = type == RWF_DT_MSG ? walk_msg(&w, rwf_buf_make(buf, len), 0)
                               : walk_container(&w, type, rwf_buf_make(buf, len), NULL, 0);
    if (r < 0)
        fail_msg("walk: %s", err_msg());
    size_t n = 0;
    if (rwf_enc_finish(&e, &n) != RWF_OK)
        fail_msg("re-encode: %s", err_msg());
    ts_assert_bytes_equal(again, n, buf, len);
    return w;
}

/* MarketByOrder-like set: REAL, REAL_4RB, UINT_2, RMTES_STRING, ENUM, TIME_3, DATE_4 */
static const rwf_set_entry order_set[] = {
    {.fid = 3427, .type = RWF_DT_REAL},   {.fid = 3429, .type = RWF_DT_REAL_4RB},
    {.fid = 3855, .type = RWF_DT_UINT_2}, {.fid = 212, .type = RWF_DT_RMTES_STRING},
    {.fid = 3428, .type = RWF_DT_ENUM},   {.fid = 1025, .type = RWF_DT_TIME_3},
    {.fid = 16, .type = RWF_DT_DATE_4},
};

static void enc_order(rwf_enc *e, const rwf_set_db *db, int n, int with_std)
{
    rwf_fl_hdr h = {.flags = RWF_FLF_HAS_SET_DATA | (with_std ? RWF_FLF_HAS_STANDARD_DATA : 0)};
    rwf_real price = {.value = 36028797018963967LL, .hint = RWF_RH_EXPONENT_2};
    rwf_real size = {.value = 100 + n, .hint = RWF_RH_EXPONENT0};
    rwf_time t = {.hour = 15, .minute = 52, .second = (uint8_t)n};
    rwf_date d = {.day = 16, .month = 11, .year = 2005};
    char mm[16];
    snprintf(mm, sizeof(mm), "MarketMaker%d", n);
    rwf_enc_fl_begin(e, &h, db);
    rwf_enc_fl_real(e, 3427, &price);
    rwf_enc_fl_real(e, 3429, &size);
    rwf_enc_fl_uint(e, 3855, 3855);
    rwf_enc_fl_buf(e, 212, RWF_DT_RMTES_STRING, rwf_buf_cstr(mm));
    rwf_enc_fl_enum(e, 3428, (uint16_t)(n % 2 + 1));
    if (n == 2)
        rwf_enc_fl_blank(e, 1025); /* blank set entry: the TIME_3 blank pattern */
    else
        rwf_enc_fl_time(e, 1025, &t);
    rwf_enc_fl_date(e, 16, &d);
    if (with_std)
        rwf_enc_fl_uint(e, 1, 6560);
    rwf_enc_fl_end(e);
}

static void test_map_with_sets_summary_perm(void **state)
{
    (void)state;
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_FIELD_LIST);
    assert_int_equal(rwf_set_db_add(&db, 0, order_set, 7), RWF_OK);
    /* Refusals say which rule the definition breaks. */
    assert_int_equal(rwf_set_db_add(&db, 0, order_set, 7), RWF_E_INVALID);
    assert_string_equal(err_msg(), "set definition 0: the id is already defined");
    assert_int_equal(rwf_set_db_add(&db, 16, order_set, 7), RWF_E_INVALID);
    assert_string_equal(err_msg(), "set definition 16: the id is out of 0..15");
    assert_int_equal(rwf_set_db_add(&db, 1, order_set, 0), RWF_E_INVALID);
    assert_string_equal(err_msg(), "set definition 1: it has no entries");
    assert_null(rwf_set_db_find(&db, 1));
    rwf_map_hdr mh = {.flags = RWF_MPF_HAS_SET_DEFS | RWF_MPF_HAS_SUMMARY_DATA |
                               RWF_MPF_HAS_KEY_FIELD_ID | RWF_MPF_HAS_TOTAL_COUNT_HINT,
                      .key_type = RWF_DT_RMTES_STRING,
                      .ctype = RWF_DT_FIELD_LIST,
                      .key_fid = 3426,
                      .total_count_hint = 5};
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_map_begin(&e, &mh);
    assert_int_equal(rwf_enc_top(&e)->state, RWF_ES_SETDEFS);
    rwf_enc_set_db(&e, &db);
    assert_int_equal(rwf_enc_top(&e)->state, RWF_ES_SUMMARY);
    rwf_enc_fl_begin_std(&e); /* summary: blank latency fields */
    rwf_enc_fl_blank(&e, 3902);
    rwf_enc_fl_blank(&e, 3903);
    rwf_enc_fl_end(&e);
    for (int i = 0; i < 5; i++) {
        char key[8];
        snprintf(key, sizeof(key), "%d", 100 + i);
        rwf_buf perm = i == 3 ? RWF_STR("\x03\x01\x2C\x56") : rwf_buf_make(NULL, 0);
        rwf_value k = {.type = RWF_DT_RMTES_STRING, .buf = rwf_buf_cstr(key)};
        rwf_enc_map_entry(&e, i == 4 ? RWF_MPEA_DELETE_ENTRY : RWF_MPEA_ADD_ENTRY, &perm, &k);
        if (i != 4)
            enc_order(&e, &db, i, i == 1);
    }
    rwf_enc_map_end(&e);
    size_t len = finish(&e);

    /* decode */
    rwf_map_dec md;
    rwf_map_entry me;
    assert_int_equal(rwf_map_dec_init(&md, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(md.hdr.flags, mh.flags | RWF_MPF_HAS_PER_ENTRY_PERM_DATA); /* set on use */
    assert_int_equal(md.hdr.key_fid, 3426);
    assert_int_equal(md.hdr.total_count_hint, 5);
    assert_int_equal(md.count, 5);
    rwf_set_db ddb;
    rwf_set_entry pool[16];
    assert_int_equal(rwf_set_db_decode(&ddb, RWF_DT_FIELD_LIST, md.hdr.set_defs, pool, 16), RWF_OK);
    assert_int_equal(ddb.defs[0].count, 7);
    assert_int_equal(ddb.defs[0].entries[1].type, RWF_DT_REAL_4RB);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rwf_map_next(&md, &me), RWF_OK);
        assert_int_equal(me.action, i == 4 ? RWF_MPEA_DELETE_ENTRY : RWF_MPEA_ADD_ENTRY);
        assert_int_equal(me.perm.len, i == 3 ? 4 : 0);
        if (i == 4) {
            assert_int_equal(me.data.len, 0);
            continue;
        }
        rwf_fl_dec fd;
        rwf_field f;
        rwf_value v;
        assert_int_equal(rwf_fl_dec_init(&fd, me.data, &ddb), RWF_OK);
        int n = 0;
        while (rwf_fl_next(&fd, &f) == RWF_OK) {
            int r = rwf_get_value(f.type ? f.type : RWF_DT_UINT, f.data, &v);
            if (f.fid == 3429) {
                assert_int_equal(r, RWF_OK);
                assert_true(v.real.value == 100 + i);
            }
            if (f.fid == 1025)
                assert_int_equal(r, i == 2 ? RWF_BLANK : RWF_OK);
            if (f.fid == 3427)
                assert_true(v.real.value == 36028797018963967LL);
            n++;
        }
        assert_int_equal(n, i == 1 ? 8 : 7);
    }
    assert_int_equal(rwf_map_next(&md, &me), RWF_END);
    walk_ctx w = rewalk(RWF_DT_MAP, len);
    assert_int_equal(w.entries, 5);
    assert_int_equal(w.fields, 2 + 7 * 4 + 1);

    /* A field list using set data without its definition: the set is skipped. */
    rwf_fl_dec fd;
    assert_int_equal(rwf_map_dec_init(&md, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(rwf_map_next(&md, &me), RWF_OK);
    assert_int_equal(rwf_fl_dec_init(&fd, me.data, NULL), RWF_SET_SKIPPED);
}

static void test_element_sets_series(void **state)
{
    (void)state;
    /* The shape of a dictionary refresh: a series of set-defined element lists. */
    static const rwf_set_entry fld[] = {
        {.name = {"NAME", 4}, .type = RWF_DT_ASCII_STRING},
        {.name = {"FID", 3}, .type = RWF_DT_INT_2},
        {.name = {"RIPPLETO", 8}, .type = RWF_DT_INT_2},
        {.name = {"TYPE", 4}, .type = RWF_DT_INT_1},
        {.name = {"LENGTH", 6}, .type = RWF_DT_UINT_2},
        {.name = {"RWFTYPE", 7}, .type = RWF_DT_UINT_1},
        {.name = {"RWFLEN", 6}, .type = RWF_DT_UINT_2},
    };
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_ELEMENT_LIST);
    rwf_set_db_add(&db, 0, fld, 7);
    rwf_series_hdr sh = {.flags = RWF_SRF_HAS_SET_DEFS | RWF_SRF_HAS_SUMMARY_DATA |
                                  RWF_SRF_HAS_TOTAL_COUNT_HINT,
                         .ctype = RWF_DT_ELEMENT_LIST,
                         .total_count_hint = 16145};
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_SET_DATA};
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_series_begin(&e, &sh);
    rwf_enc_set_db(&e, &db);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_uint(&e, RWF_STR("Type"), 1);
    rwf_enc_el_int(&e, RWF_STR("DictionaryId"), 1);
    rwf_enc_el_buf(&e, RWF_STR("Version"), RWF_DT_ASCII_STRING, RWF_STR("4.20.51"));
    rwf_enc_el_end(&e);
    for (int i = 0; i < 3; i++) {
        rwf_enc_series_entry(&e);
        rwf_enc_el_begin(&e, &eh, &db);
        rwf_enc_el_buf(&e, RWF_STR("NAME"), RWF_DT_ASCII_STRING, RWF_STR("TRDPRC_1"));
        rwf_enc_el_int(&e, RWF_STR("FID"), 6 + i);
        rwf_enc_el_int(&e, RWF_STR("RIPPLETO"), -7);
        rwf_enc_el_int(&e, RWF_STR("TYPE"), RWF_MF_PRICE);
        rwf_enc_el_uint(&e, RWF_STR("LENGTH"), 17);
        rwf_enc_el_uint(&e, RWF_STR("RWFTYPE"), RWF_DT_REAL);
        rwf_enc_el_uint(&e, RWF_STR("RWFLEN"), 7);
        rwf_enc_el_end(&e);
    }
    rwf_enc_series_end(&e);
    size_t len = finish(&e);

    rwf_series_dec sd;
    rwf_buf entry;
    assert_int_equal(rwf_series_dec_init(&sd, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(sd.hdr.total_count_hint, 16145);
    rwf_set_db ddb;
    rwf_set_entry pool[16];
    assert_int_equal(rwf_set_db_decode(&ddb, RWF_DT_ELEMENT_LIST, sd.hdr.set_defs, pool, 16),
                     RWF_OK);
    assert_true(rwf_buf_eq_cstr(ddb.defs[0].entries[6].name, "RWFLEN"));
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rwf_series_next(&sd, &entry), RWF_OK);
        rwf_el_dec ed;
        rwf_element el;
        rwf_value v;
        assert_int_equal(rwf_el_dec_init(&ed, entry, &ddb), RWF_OK);
        assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
        assert_true(rwf_buf_eq_cstr(el.name, "NAME"));
        assert_true(rwf_buf_eq_cstr(el.data, "TRDPRC_1"));
        assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
        assert_int_equal(el.type, RWF_DT_INT_2);
        assert_int_equal(rwf_get_value(el.type, el.data, &v), RWF_OK);
        assert_int_equal(v.i, 6 + i);
        assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
        assert_int_equal(rwf_get_value(el.type, el.data, &v), RWF_OK);
        assert_int_equal(v.i, -7);
    }
    assert_int_equal(rwf_series_next(&sd, &entry), RWF_END);
    rewalk(RWF_DT_SERIES, len);

    /* set entries must come in the definition's order, with its types */
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_el_begin(&e, &eh, &db);
    assert_int_equal(rwf_enc_el_int(&e, RWF_STR("FID"), 6), RWF_E_INVALID);
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_el_begin(&e, &eh, &db);
    rwf_enc_el_buf(&e, RWF_STR("NAME"), RWF_DT_ASCII_STRING, RWF_STR("X"));
    rwf_enc_el_int(&e, RWF_STR("FID"), 70000); /* does not fit INT_2 */
    assert_int_equal(rwf_enc_status(&e), RWF_E_INVALID);
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_el_begin(&e, &eh, &db);
    rwf_enc_el_buf(&e, RWF_STR("NAME"), RWF_DT_ASCII_STRING, RWF_STR("X"));
    assert_int_equal(rwf_enc_el_end(&e), RWF_E_INVALID); /* set incomplete */
}

static void test_vector_filter_arrays(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_vector_hdr vh = {.flags = RWF_VTF_HAS_SUMMARY_DATA | RWF_VTF_SUPPORTS_SORTING |
                                  RWF_VTF_HAS_TOTAL_COUNT_HINT,
                         .ctype = RWF_DT_FILTER_LIST,
                         .total_count_hint = 0x123456};
    rwf_filter_hdr fh = {
        .flags = RWF_FTF_HAS_TOTAL_COUNT_HINT, .ctype = RWF_DT_ELEMENT_LIST, .total_count_hint = 9};
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_vector_begin(&e, &vh);
    rwf_enc_filter_begin(&e, &fh); /* summary */
    rwf_enc_filter_entry(&e, RWF_FTEA_CLEAR_ENTRY, 1, 0, NULL);
    rwf_enc_filter_end(&e);
    rwf_enc_vector_entry(&e, RWF_VTEA_SET_ENTRY, 0, NULL);
    rwf_enc_filter_begin(&e, &fh);
    rwf_enc_filter_entry(&e, RWF_FTEA_SET_ENTRY, 1, 0, &RWF_STR("PERM"));
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_entry(&e, RWF_STR("ints"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_INT, 2);
    rwf_enc_int(&e, -2);
    rwf_enc_int(&e, 300);
    rwf_enc_array_end(&e);
    rwf_enc_el_entry(&e, RWF_STR("times"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_TIME, 3);
    rwf_enc_time(&e, &(rwf_time){.hour = 1, .minute = 2, .second = 3});
    rwf_enc_blank(&e);
    rwf_enc_array_end(&e);
    rwf_enc_el_entry(&e, RWF_STR("codes"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_ASCII_STRING, 4);
    rwf_enc_buf(&e, RWF_DT_ASCII_STRING, RWF_STR("AB"));
    rwf_enc_encoded(&e, RWF_STR("WXYZ"));
    rwf_enc_array_end(&e);
    rwf_enc_el_entry(&e, RWF_STR("reals"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_REAL, 0);
    rwf_enc_real(&e, &(rwf_real){.value = 5, .hint = RWF_RH_EXPONENT_1});
    rwf_enc_blank(&e);
    rwf_enc_array_end(&e);
    rwf_enc_el_entry(&e, RWF_STR("nothing"), RWF_DT_NO_DATA);
    rwf_enc_el_entry(&e, RWF_STR("state"), RWF_DT_STATE);
    rwf_enc_state(&e, &(rwf_state){.stream_state = 1, .data_state = 1, .text = RWF_STR("ok")});
    rwf_enc_el_entry(&e, RWF_STR("when"), RWF_DT_DATETIME);
    rwf_enc_datetime(&e, &(rwf_datetime){{1, 2, 2003}, {4, 5, 6, 7, 8, 9}});
    rwf_enc_el_entry(&e, RWF_STR("f"), RWF_DT_FLOAT);
    rwf_enc_float(&e, 0.25f);
    rwf_enc_el_entry(&e, RWF_STR("d"), RWF_DT_DOUBLE);
    rwf_enc_double(&e, 1e300);
    rwf_enc_el_end(&e);
    rwf_enc_filter_entry(&e, RWF_FTEA_UPDATE_ENTRY, 7, RWF_DT_FIELD_LIST, NULL);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_int(&e, -5, -5);
    rwf_enc_fl_end(&e);
    rwf_enc_filter_end(&e);
    rwf_enc_vector_entry(&e, RWF_VTEA_DELETE_ENTRY, 70000, NULL);
    rwf_enc_vector_entry(&e, RWF_VTEA_INSERT_ENTRY, 3, &RWF_STR("P"));
    rwf_enc_filter_begin(&e, &(rwf_filter_hdr){.ctype = RWF_DT_NO_DATA});
    rwf_enc_filter_entry(&e, RWF_FTEA_SET_ENTRY, 2, 0, NULL);
    rwf_enc_filter_end(&e);
    rwf_enc_vector_end(&e);
    size_t len = finish(&e);

    rwf_vector_dec vd;
    rwf_vector_entry ve;
    assert_int_equal(rwf_vector_dec_init(&vd, rwf_buf_make(buf, len)), RWF_OK);
    assert_int_equal(vd.hdr.total_count_hint, 0x123456);
    assert_true(vd.hdr.flags & RWF_VTF_HAS_PER_ENTRY_PERM_DATA);
    assert_int_equal(rwf_vector_next(&vd, &ve), RWF_OK);
    rwf_filter_dec fd;
    rwf_filter_entry fe;
    assert_int_equal(rwf_filter_dec_init(&fd, ve.data), RWF_OK);
    assert_int_equal(fd.hdr.total_count_hint, 9);
    assert_true(fd.hdr.flags & RWF_FTF_HAS_PER_ENTRY_PERM_DATA);
    assert_int_equal(rwf_filter_next(&fd, &fe), RWF_OK);
    assert_true(rwf_buf_eq_cstr(fe.perm, "PERM"));
    rwf_el_dec ed;
    rwf_element el;
    rwf_array_dec ad;
    rwf_buf item;
    rwf_value v;
    assert_int_equal(rwf_el_dec_init(&ed, fe.data, NULL), RWF_OK);
    assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
    assert_int_equal(rwf_array_dec_init(&ad, el.data), RWF_OK);
    assert_int_equal(ad.item_len, 2);
    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
    assert_int_equal(rwf_array_item_value(&ad, item, &v), RWF_OK);
    assert_int_equal(v.i, -2);
    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
    assert_int_equal(rwf_array_item_value(&ad, item, &v), RWF_OK);
    assert_int_equal(v.i, 300);
    assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
    assert_int_equal(rwf_array_dec_init(&ad, el.data), RWF_OK);
    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
    assert_int_equal(rwf_array_item_value(&ad, item, &v), RWF_BLANK); /* FF FF FF */
    assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
    assert_int_equal(rwf_array_dec_init(&ad, el.data), RWF_OK);
    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
    assert_int_equal(item.len, 4);
    assert_memory_equal(item.data, "AB\0\0", 4);
    assert_int_equal(rwf_filter_next(&fd, &fe), RWF_OK);
    assert_int_equal(fe.ctype, RWF_DT_FIELD_LIST);
    assert_int_equal(fe.id, 7);
    assert_int_equal(rwf_vector_next(&vd, &ve), RWF_OK);
    assert_int_equal(ve.action, RWF_VTEA_DELETE_ENTRY);
    assert_int_equal(ve.index, 70000);
    assert_int_equal(rwf_vector_next(&vd, &ve), RWF_OK);
    assert_true(rwf_buf_eq_cstr(ve.perm, "P"));
    walk_ctx w = rewalk(RWF_DT_VECTOR, len);
    assert_int_equal(w.entries, 3 + 3 + 1);
}

/* Every message class with every optional member: encode, decode, compare, re-encode. */
static void test_all_message_classes(void **state)
{
    (void)state;
    static const uint16_t all_flags[9] = {
        0,
        0x1FFF & ~(RWF_RQMF_HAS_VIEW | RWF_RQMF_HAS_BATCH), /* request */
        0x7FFF & ~0x0004,                                   /* refresh */
        0x07FB,                                             /* status */
        0x07FB,                                             /* update */
        0x0007,                                             /* close */
        0x007F,                                             /* ack */
        0x40FF,                                             /* generic */
        0x03EF,                                             /* post */
    };
    for (int c = RWF_MC_REQUEST; c <= RWF_MC_POST; c++) {
        rwf_msg m, d;
        memset(&m, 0, sizeof(m));
        m.msg_class = (uint8_t)c;
        m.domain = RWF_DMT_MARKET_BY_ORDER;
        m.stream_id = -6;
        m.flags = all_flags[c];
        m.container_type = RWF_DT_OPAQUE;
        m.payload = RWF_STR("opaque payload");
        m.key.flags = 0x3F;
        m.key.service_id = 300;
        m.key.name = RWF_STR("RDT1");
        m.key.name_type = 1;
        m.key.filter = 0xDEADBEEF;
        m.key.identifier = -9;
        m.key.attrib_type = RWF_DT_OPAQUE;
        m.key.attrib = RWF_STR("attrib");
        m.req_key = m.key;
        m.req_key.name = RWF_STR("REQ");
        m.state = (rwf_state){RWF_STREAM_OPEN, RWF_DATA_SUSPECT, RWF_SC_TIMEOUT, RWF_STR("slow")};
        m.qos = (rwf_qos){RWF_QOS_TIME_DELAYED, RWF_QOS_RATE_TIME_CONFLATED, 1, 3, 4};
        m.worst_qos = (rwf_qos){RWF_QOS_TIME_REALTIME, RWF_QOS_RATE_JIT_CONFLATED, 0, 0, 0};
        m.group_id = RWF_STR("\x00\x01\x00\x02");
        m.perm_data = RWF_STR("\x03\x01\x2C");
        m.ext_header = RWF_STR("ext");
        m.text = RWF_STR("nak text");
        m.seq_num = 100;
        m.secondary_seq_num = 101;
        m.post_user_addr = 0x7F000001;
        m.post_user_id = 4321;
        m.post_id = 55;
        m.ack_id = 66;
        m.part_num = 300;
        m.post_user_rights = 3;
        m.priority_class = 2;
        m.priority_count = 500;
        m.conf_count = 200;
        m.conf_time = 7;
        m.update_type = 3;
        m.nak_code = 1;
        size_t len;
        if (rwf_msg_encode(&m, buf, sizeof(buf), &len) != RWF_OK)
            fail_msg("%s: %s", rwf_msg_class_name(c), err_msg());
        assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(buf, len)), RWF_OK);
        assert_int_equal(d.msg_class, c);
        assert_int_equal(d.stream_id, -6);
        assert_int_equal(d.flags, m.flags);
        assert_true(rwf_buf_eq_cstr(d.payload, "opaque payload"));
        if (c != RWF_MC_CLOSE) {
            assert_int_equal(d.key.flags, 0x3F);
            assert_int_equal(d.key.service_id, 300);
            assert_int_equal(d.key.filter, 0xDEADBEEF);
            assert_int_equal(d.key.identifier, -9);
            assert_true(rwf_buf_eq_cstr(d.key.attrib, "attrib"));
        }
        assert_true(rwf_buf_eq_cstr(d.ext_header, "ext"));
        switch (c) {
        case RWF_MC_REQUEST:
            assert_int_equal(d.priority_count, 500);
            assert_int_equal(d.qos.time_info, 3);
            assert_int_equal(d.worst_qos.rate, RWF_QOS_RATE_JIT_CONFLATED);
            break;
        case RWF_MC_REFRESH:
            assert_int_equal(d.part_num, 300);
            assert_true(rwf_buf_eq_cstr(d.req_key.name, "REQ"));
            assert_int_equal(d.post_user_id, 4321);
            assert_int_equal(d.group_id.len, 4);
            assert_true(rwf_buf_eq_cstr(d.state.text, "slow"));
            break;
        case RWF_MC_STATUS:
            assert_true(rwf_buf_eq_cstr(d.req_key.name, "REQ"));
            assert_int_equal(d.state.code, RWF_SC_TIMEOUT);
            break;
        case RWF_MC_UPDATE:
            assert_int_equal(d.conf_count, 200);
            assert_int_equal(d.conf_time, 7);
            assert_int_equal(d.update_type, 3);
            break;
        case RWF_MC_ACK:
            assert_int_equal(d.ack_id, 66);
            assert_int_equal(d.nak_code, 1);
            assert_true(rwf_buf_eq_cstr(d.text, "nak text"));
            break;
        case RWF_MC_GENERIC:
            assert_int_equal(d.secondary_seq_num, 101);
            assert_int_equal(d.part_num, 300);
            break;
        case RWF_MC_POST:
            assert_int_equal(d.post_id, 55);
            assert_int_equal(d.post_user_rights, 3);
            assert_int_equal(d.post_user_addr, 0x7F000001);
            break;
        }
        rewalk(RWF_DT_MSG, len);

        /* Trailing header bytes this decoder does not know are skipped. */
        uint8_t ext[9000];
        size_t hl = (size_t)buf[0] << 8 | buf[1];
        memcpy(ext, buf, 2 + hl);
        memcpy(ext + 2 + hl, "\x11\x22\x33", 3);
        memcpy(ext + 5 + hl, buf + 2 + hl, len - 2 - hl);
        ext[0] = (uint8_t)((hl + 3) >> 8);
        ext[1] = (uint8_t)(hl + 3);
        assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(ext, len + 3)), RWF_OK);
        assert_true(rwf_buf_eq_cstr(d.payload, "opaque payload"));
        assert_true(rwf_buf_eq_cstr(d.ext_header, "ext"));
    }
}

static void test_late_members_absent(void **state)
{
    (void)state;
    /* A refresh announcing postUserInfo, partNum and reqMsgKey without the bytes (an older
     * peer): decoded with those flags cleared, like ETA. */
    rwf_msg m, d;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 5;
    m.container_type = RWF_DT_NO_DATA;
    m.state.stream_state = RWF_STREAM_OPEN;
    size_t len;
    assert_int_equal(rwf_msg_encode(&m, buf, sizeof(buf), &len), RWF_OK);
    buf[8] = 0x80 | (uint8_t)((RWF_RFMF_HAS_POST_USER_INFO | RWF_RFMF_HAS_PART_NUM |
                               RWF_RFMF_HAS_REQ_MSG_KEY) >>
                              8);
    memmove(buf + 10, buf + 9, len - 9);
    buf[9] = 0;
    buf[1]++;
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(buf, len + 1)), RWF_OK);
    assert_int_equal(d.flags, 0);
}

static void test_nested_message_in_map(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_MSG};
    rwf_msg u;
    memset(&u, 0, sizeof(u));
    u.msg_class = RWF_MC_UPDATE;
    u.domain = RWF_DMT_MARKET_PRICE;
    u.stream_id = 9;
    u.container_type = RWF_DT_FIELD_LIST;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_map_begin(&e, &mh);
    for (int i = 0; i < 3; i++) {
        rwf_enc_map_entry_uint(&e, RWF_MPEA_ADD_ENTRY, (uint64_t)i << 20);
        rwf_enc_msg_begin(&e, &u);
        rwf_enc_fl_begin_std(&e);
        rwf_enc_fl_uint(&e, 3902, (uint64_t)i);
        rwf_enc_fl_end(&e);
        rwf_enc_msg_end(&e);
    }
    rwf_enc_map_end(&e);
    size_t len = finish(&e);
    walk_ctx w = rewalk(RWF_DT_MAP, len);
    assert_int_equal(w.msgs, 3);
    assert_int_equal(w.fields, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_with_sets_summary_perm),
        cmocka_unit_test(test_element_sets_series),
        cmocka_unit_test(test_vector_filter_arrays),
        cmocka_unit_test(test_all_message_classes),
        cmocka_unit_test(test_late_members_absent),
        cmocka_unit_test(test_nested_message_in_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
