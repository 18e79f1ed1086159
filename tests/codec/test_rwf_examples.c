/*
 * Every RWF example of docs/wire.md#examples (bytes produced by the ETA encoders): our encoder
 * writes the same bytes through the API the tools use, our decoder gives back the values, and a
 * full decode + re-encode walk reproduces the bytes.
 */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwf.h"
#include "rwf_walk.h"
#include "wire_examples.h"

static uint8_t want[4096], got[4096];

static size_t hex(const char *h)
{
    return ts_hex(h, want, sizeof(want));
}

/* Finishes e and compares its bytes with want[0..n). */
static void check_enc(rwf_enc *e, size_t n)
{
    size_t len = 0;
    int r = rwf_enc_finish(e, &len);
    if (r != RWF_OK)
        fail_msg("encode failed (%d): %s", r, err_msg());
    ts_assert_bytes_equal(got, len, want, n);
}

/* The project's dictionary (data/): it defines every field the examples carry. */
static rwf_dict *project_dict(void)
{
    static rwf_dict *d;
    char path[4096];
    if (!d) {
        d = rwf_dict_new();
        snprintf(path, sizeof(path), "%s", ts_source_path("data/RDMFieldDictionary"));
        if (rwf_dict_load_fields(d, path) != RWF_OK)
            fail_msg("%s", err_msg());
        if (rwf_dict_load_enums(d, ts_source_path("data/enumtype.def")) != RWF_OK)
            fail_msg("%s", err_msg());
    }
    return d;
}

/* Decode + re-encode of a whole message reproduces it; returns the walk counters. */
static walk_ctx roundtrip(const char *hexstr, const rwf_dict *dict)
{
    size_t n = hex(hexstr);
    rwf_enc e;
    walk_ctx w;
    memset(&w, 0, sizeof(w));
    w.dict = dict;
    w.enc = &e;
    rwf_enc_init(&e, got, sizeof(got));
    if (walk_msg(&w, rwf_buf_make(want, n), 0) < 0 || rwf_enc_status(&e))
        fail_msg("walk failed: %s", err_msg());
    check_enc(&e, n);
    return w;
}

static rwf_msg decode(size_t n)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(want, n)) != RWF_OK)
        fail_msg("decode failed: %s", err_msg());
    return m;
}

/* ---- Login ------------------------------------------------------------------------------- */

static void enc_login_request(rwf_enc *e, const char *app, uint64_t role)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_LOGIN;
    m.stream_id = 1;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB;
    m.key.name = RWF_STR("user");
    m.key.attrib_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_msg_begin(e, &m);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_buf(e, RWF_STR("ApplicationId"), RWF_DT_ASCII_STRING, RWF_STR("256"));
    rwf_enc_el_buf(e, RWF_STR("ApplicationName"), RWF_DT_ASCII_STRING, rwf_buf_cstr(app));
    rwf_enc_el_buf(e, RWF_STR("Position"), RWF_DT_ASCII_STRING, RWF_STR("127.0.0.1/net"));
    rwf_enc_el_uint(e, RWF_STR("Role"), role);
    rwf_enc_el_end(e);
    rwf_enc_msg_end(e);
}

static void test_login_request(void **state)
{
    (void)state;
    rwf_enc e;
    size_t n = hex(EX_LOGIN_REQ);
    rwf_enc_init(&e, got, sizeof(got));
    enc_login_request(&e, "ConsPerf", 0);
    check_enc(&e, n);

    rwf_msg m = decode(n);
    assert_int_equal(m.msg_class, RWF_MC_REQUEST);
    assert_int_equal(m.domain, RWF_DMT_LOGIN);
    assert_int_equal(m.stream_id, 1);
    assert_int_equal(m.flags, RWF_RQMF_STREAMING);
    assert_true(rwf_buf_eq_cstr(m.key.name, "user"));
    assert_int_equal(m.key.attrib_type, RWF_DT_ELEMENT_LIST);
    rwf_el_dec d;
    rwf_element el;
    assert_int_equal(rwf_el_dec_init(&d, m.key.attrib, NULL), RWF_OK);
    const char *names[] = {"ApplicationId", "ApplicationName", "Position", "Role"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rwf_el_next(&d, &el), RWF_OK);
        assert_true(rwf_buf_eq_cstr(el.name, names[i]));
    }
    uint64_t role = 9;
    assert_int_equal(rwf_get_uint(el.data, &role), RWF_OK);
    assert_int_equal(role, 0);
    assert_int_equal(rwf_el_next(&d, &el), RWF_END);
    roundtrip(EX_LOGIN_REQ, NULL);
}

static void test_niprov_login_request(void **state)
{
    (void)state;
    rwf_enc e;
    size_t n = hex(EX_NIPROV_LOGIN_REQ);
    rwf_enc_init(&e, got, sizeof(got));
    enc_login_request(&e, "NIProvPerf", 1);
    check_enc(&e, n);
    roundtrip(EX_NIPROV_LOGIN_REQ, NULL);
}

static void test_login_refresh(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg m;
    size_t n = hex(EX_LOGIN_REFRESH);
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_LOGIN;
    m.stream_id = 1;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE;
    m.container_type = RWF_DT_NO_DATA;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB;
    m.key.name = RWF_STR("user");
    m.key.attrib_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_buf(&e, RWF_STR("ApplicationId"), RWF_DT_ASCII_STRING, RWF_STR("256"));
    rwf_enc_el_buf(&e, RWF_STR("ApplicationName"), RWF_DT_ASCII_STRING, RWF_STR("ProvPerf"));
    rwf_enc_el_buf(&e, RWF_STR("Position"), RWF_DT_ASCII_STRING, RWF_STR("127.0.0.1/net"));
    rwf_enc_el_uint(&e, RWF_STR("SingleOpen"), 0);
    rwf_enc_el_uint(&e, RWF_STR("SupportOMMPost"), 1);
    rwf_enc_el_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, n);

    m = decode(n);
    assert_int_equal(m.msg_class, RWF_MC_REFRESH);
    assert_int_equal(m.state.stream_state, RWF_STREAM_OPEN);
    assert_int_equal(m.state.data_state, RWF_DATA_OK);
    assert_int_equal(m.state.code, RWF_SC_NONE);
    assert_int_equal(m.state.text.len, 0);
    assert_int_equal(m.group_id.len, 2);
    roundtrip(EX_LOGIN_REFRESH, NULL);
}

/* ---- Directory --------------------------------------------------------------------------- */

static void test_directory_request(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg m;
    size_t n = hex(EX_DIR_REQ);
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_SOURCE;
    m.stream_id = 2;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_FILTER;
    m.key.filter = 7;
    assert_int_equal(rwf_msg_encode(&m, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_DIR_REQ));
    m = decode(n);
    assert_int_equal(m.key.flags, RWF_MKF_HAS_FILTER);
    assert_int_equal(m.key.filter, 7);
    (void)e;
}

static void el_ascii_array(rwf_enc *e, const char *name, const char *a, const char *b)
{
    rwf_enc_el_entry(e, rwf_buf_cstr(name), RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_ASCII_STRING, 0);
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, rwf_buf_cstr(a));
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, rwf_buf_cstr(b));
    rwf_enc_array_end(e);
}

static void test_directory_refresh(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg m;
    size_t n = hex(EX_DIR_REFRESH);
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_SOURCE;
    m.stream_id = 2;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE |
              RWF_RFMF_CLEAR_CACHE;
    m.container_type = RWF_DT_MAP;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.key.flags = RWF_MKF_HAS_FILTER;
    m.key.filter = 7;
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_FILTER_LIST};
    rwf_filter_hdr fh = {.ctype = RWF_DT_ELEMENT_LIST};
    rwf_qos rt = {.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};

    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_map_begin(&e, &mh);
    rwf_enc_map_entry_uint(&e, RWF_MPEA_ADD_ENTRY, 1);
    rwf_enc_filter_begin(&e, &fh);
    rwf_enc_filter_entry(&e, RWF_FTEA_SET_ENTRY, 1, 0, NULL);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_buf(&e, RWF_STR("Name"), RWF_DT_ASCII_STRING, RWF_STR("DIRECT_FEED"));
    rwf_enc_el_buf(&e, RWF_STR("Vendor"), RWF_DT_ASCII_STRING, RWF_STR("Refinitiv"));
    rwf_enc_el_uint(&e, RWF_STR("IsSource"), 1);
    rwf_enc_el_entry(&e, RWF_STR("Capabilities"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_UINT, 0);
    rwf_enc_uint(&e, 5);
    rwf_enc_uint(&e, 6);
    rwf_enc_uint(&e, 127);
    rwf_enc_array_end(&e);
    el_ascii_array(&e, "DictionariesProvided", "RWFFld", "RWFEnum");
    el_ascii_array(&e, "DictionariesUsed", "RWFFld", "RWFEnum");
    rwf_enc_el_entry(&e, RWF_STR("QoS"), RWF_DT_ARRAY);
    rwf_enc_array_begin(&e, RWF_DT_QOS, 0);
    rwf_enc_qos(&e, &rt);
    rwf_enc_array_end(&e);
    rwf_enc_el_uint(&e, RWF_STR("SupportsQoSRange"), 0);
    rwf_enc_el_uint(&e, RWF_STR("SupportsOutOfBandSnapshots"), 0);
    rwf_enc_el_uint(&e, RWF_STR("AcceptingConsumerStatus"), 0);
    rwf_enc_el_end(&e);
    rwf_enc_filter_entry(&e, RWF_FTEA_SET_ENTRY, 2, 0, NULL);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_uint(&e, RWF_STR("ServiceState"), 1);
    rwf_enc_el_uint(&e, RWF_STR("AcceptingRequests"), 1);
    rwf_enc_el_end(&e);
    rwf_enc_filter_entry(&e, RWF_FTEA_SET_ENTRY, 4, 0, NULL);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_uint(&e, RWF_STR("OpenLimit"), 1000000);
    rwf_enc_el_end(&e);
    rwf_enc_filter_end(&e);
    rwf_enc_map_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, n);

    /* Decoded: the map entry, the three filter entries, the values a consumer needs. */
    m = decode(n);
    rwf_map_dec md;
    rwf_map_entry me;
    assert_int_equal(rwf_map_dec_init(&md, m.payload), RWF_OK);
    assert_int_equal(md.hdr.key_type, RWF_DT_UINT);
    assert_int_equal(md.hdr.ctype, RWF_DT_FILTER_LIST);
    assert_int_equal(rwf_map_next(&md, &me), RWF_OK);
    assert_int_equal(me.action, RWF_MPEA_ADD_ENTRY);
    uint64_t sid = 0;
    assert_int_equal(rwf_get_uint(me.key, &sid), RWF_OK);
    assert_int_equal(sid, 1);
    rwf_filter_dec fd;
    rwf_filter_entry fe;
    assert_int_equal(rwf_filter_dec_init(&fd, me.data), RWF_OK);
    int ids[3] = {0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rwf_filter_next(&fd, &fe), RWF_OK);
        assert_int_equal(fe.action, RWF_FTEA_SET_ENTRY);
        assert_int_equal(fe.ctype, RWF_DT_ELEMENT_LIST);
        ids[i] = fe.id;
        if (fe.id == 1) {
            rwf_el_dec ed;
            rwf_element el;
            assert_int_equal(rwf_el_dec_init(&ed, fe.data, NULL), RWF_OK);
            assert_int_equal(rwf_el_next(&ed, &el), RWF_OK);
            assert_true(rwf_buf_eq_cstr(el.data, "DIRECT_FEED"));
            while (rwf_el_next(&ed, &el) == RWF_OK) {
                if (rwf_buf_eq_cstr(el.name, "QoS")) {
                    rwf_array_dec ad;
                    rwf_buf item;
                    rwf_value v;
                    assert_int_equal(rwf_array_dec_init(&ad, el.data), RWF_OK);
                    assert_int_equal(rwf_array_next(&ad, &item), RWF_OK);
                    assert_int_equal(rwf_array_item_value(&ad, item, &v), RWF_OK);
                    assert_int_equal(v.qos.timeliness, RWF_QOS_TIME_REALTIME);
                    assert_int_equal(v.qos.rate, RWF_QOS_RATE_TICK_BY_TICK);
                }
            }
        }
    }
    assert_int_equal(rwf_filter_next(&fd, &fe), RWF_END);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 2);
    assert_int_equal(ids[2], 4);
    walk_ctx w = roundtrip(EX_DIR_REFRESH, NULL);
    assert_int_equal(w.elements, 13);
    assert_int_equal(w.items, 8);
}

/* ---- Dictionary and item requests -------------------------------------------------------- */

static void test_dictionary_request(void **state)
{
    (void)state;
    rwf_msg m;
    size_t n;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_DICTIONARY;
    m.stream_id = 3;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = 1;
    m.key.name = RWF_STR("RWFFld");
    m.key.filter = 7;
    assert_int_equal(rwf_msg_encode(&m, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_DICT_REQ));
}

static void test_item_request(void **state)
{
    (void)state;
    rwf_msg m;
    size_t n;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 5;
    m.flags = RWF_RQMF_STREAMING | RWF_RQMF_HAS_QOS;
    m.container_type = RWF_DT_NO_DATA;
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = RWF_STR("RDT0");
    assert_int_equal(rwf_msg_encode(&m, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_ITEM_REQ));
    m = decode(n);
    assert_int_equal(m.qos.timeliness, RWF_QOS_TIME_REALTIME);
    assert_int_equal(m.qos.rate, RWF_QOS_RATE_TICK_BY_TICK);
    assert_int_equal(m.key.service_id, 1);
    assert_true(rwf_buf_eq_cstr(m.key.name, "RDT0"));
}

/* ---- MarketPrice ------------------------------------------------------------------------- */

static rwf_msg mp_refresh_header(void)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 5;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE |
              RWF_RFMF_HAS_QOS | RWF_RFMF_CLEAR_CACHE;
    m.container_type = RWF_DT_FIELD_LIST;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = RWF_STR("RDT0");
    return m;
}

static void test_mp_refresh_short(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg m = mp_refresh_header();
    size_t n = hex(EX_MP_REFRESH_SHORT);
    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_uint(&e, 1, 6560);
    rwf_enc_fl_uint(&e, 2, 66);
    rwf_enc_fl_uint(&e, 3853, 75601000);
    rwf_enc_fl_blank(&e, 3902);
    rwf_enc_fl_blank(&e, 3903);
    rwf_enc_fl_blank(&e, 3904);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, n);

    m = decode(n);
    rwf_fl_dec d;
    rwf_field f;
    uint64_t u;
    assert_int_equal(rwf_fl_dec_init(&d, m.payload, NULL), RWF_OK);
    assert_int_equal(d.count, 6);
    assert_int_equal(rwf_fl_next(&d, &f), RWF_OK);
    assert_int_equal(f.fid, 1);
    assert_int_equal(rwf_get_uint(f.data, &u), RWF_OK);
    assert_int_equal(u, 6560);
    assert_int_equal(rwf_fl_next(&d, &f), RWF_OK);
    assert_int_equal(rwf_fl_next(&d, &f), RWF_OK);
    assert_int_equal(rwf_get_uint(f.data, &u), RWF_OK);
    assert_int_equal(u, 75601000);
    for (int fid = 3902; fid <= 3904; fid++) {
        assert_int_equal(rwf_fl_next(&d, &f), RWF_OK);
        assert_int_equal(f.fid, fid);
        assert_int_equal(rwf_get_uint(f.data, &u), RWF_BLANK);
    }
    assert_int_equal(rwf_fl_next(&d, &f), RWF_END);
}

/* Finds fid in a FieldList and decodes it as type. */
static int field_value(rwf_buf fl, int16_t fid, int type, rwf_value *v)
{
    rwf_fl_dec d;
    rwf_field f;
    assert_int_equal(rwf_fl_dec_init(&d, fl, NULL), RWF_OK);
    while (rwf_fl_next(&d, &f) == RWF_OK)
        if (f.fid == fid)
            return rwf_get_value(type, f.data, v);
    fail_msg("fid %d not found", fid);
    return -1;
}

static void test_mp_refresh_full(void **state)
{
    (void)state;
    rwf_dict *dict = project_dict();
    walk_ctx w = roundtrip(EX_MP_REFRESH_FULL, dict);
    assert_int_equal(w.fields, 73);
    assert_int_equal(w.unknown_fids, 0);

    rwf_msg m = decode(hex(EX_MP_REFRESH_FULL));
    rwf_value v;
    assert_int_equal(field_value(m.payload, 22, RWF_DT_REAL, &v), RWF_OK); /* "0.01" */
    assert_int_equal(v.real.value, 1);
    assert_int_equal(v.real.hint, RWF_RH_EXPONENT_2);
    assert_int_equal(field_value(m.payload, 25, RWF_DT_REAL, &v), RWF_OK); /* "9000.00" */
    assert_int_equal(v.real.value, 900000);
    assert_int_equal(v.real.hint, RWF_RH_EXPONENT_2);
    assert_int_equal(field_value(m.payload, 1021, RWF_DT_REAL, &v), RWF_OK); /* "1266750" */
    assert_int_equal(v.real.value, 126675);
    assert_int_equal(v.real.hint, RWF_RH_EXPONENT1);
    assert_int_equal(field_value(m.payload, 376, RWF_DT_REAL, &v), RWF_BLANK);
    assert_int_equal(field_value(m.payload, 79, RWF_DT_DATE, &v), RWF_OK); /* 11/15/2005 */
    assert_int_equal(v.date.day, 15);
    assert_int_equal(v.date.month, 11);
    assert_int_equal(v.date.year, 2005);
    assert_int_equal(field_value(m.payload, 1067, RWF_DT_TIME, &v), RWF_OK); /* 21:00:01 */
    assert_int_equal(v.time.hour, 21);
    assert_int_equal(v.time.second, 1);
    assert_int_equal(field_value(m.payload, 15, RWF_DT_ENUM, &v), RWF_OK);
    assert_int_equal(v.enm, 840);
    const rwf_enum_value *ev = rwf_dict_enum(dict, 15, 840);
    assert_non_null(ev);
    assert_true(rwf_buf_eq_cstr(ev->display, "USD"));
    assert_int_equal(field_value(m.payload, 3422, RWF_DT_RMTES_STRING, &v), RWF_OK);
    assert_true(rwf_buf_eq_cstr(v.buf, "GOOG"));
}

static void test_mp_update(void **state)
{
    (void)state;
    rwf_dict *dict = project_dict();
    walk_ctx w = roundtrip(EX_MP_UPDATE1, dict);
    assert_int_equal(w.fields, 23);
    assert_int_equal(w.unknown_fids, 0);
    w = roundtrip(EX_MP_UPDATE1_TS, dict);
    assert_int_equal(w.fields, 24);

    /* The ProvPerf hot path: header, a copy of the pre-encoded entries, the latency field. */
    size_t n = hex(EX_MP_UPDATE1);
    rwf_msg m = decode(n);
    rwf_fl_dec d;
    assert_int_equal(rwf_fl_dec_init(&d, m.payload, NULL), RWF_OK);
    rwf_buf entries = rwf_buf_make(d.pos, (size_t)(d.end - d.pos));
    uint16_t count = d.count;

    rwf_value v;
    assert_int_equal(field_value(m.payload, 22, RWF_DT_REAL, &v), RWF_OK); /* "2848.560000" */
    assert_int_equal(v.real.value, 2848560000LL);
    assert_int_equal(v.real.hint, RWF_RH_EXPONENT_6);
    assert_int_equal(field_value(m.payload, 3887, RWF_DT_REAL, &v), RWF_OK); /* "39100330" */
    assert_int_equal(v.real.value, 3910033);
    assert_int_equal(v.real.hint, RWF_RH_EXPONENT1);
    assert_int_equal(field_value(m.payload, 1025, RWF_DT_TIME, &v), RWF_OK); /* 15:52:12 */
    assert_int_equal(v.time.hour, 15);
    assert_int_equal(v.time.minute, 52);
    assert_int_equal(v.time.second, 12);

    uint8_t body[512];
    memcpy(body, entries.data, entries.len);
    rwf_msg u;
    memset(&u, 0, sizeof(u));
    u.msg_class = RWF_MC_UPDATE;
    u.domain = RWF_DMT_MARKET_PRICE;
    u.stream_id = 5;
    u.container_type = RWF_DT_FIELD_LIST;
    rwf_enc e;
    hex(EX_MP_UPDATE1_TS);
    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &u);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_append(&e, rwf_buf_make(body, entries.len), count);
    rwf_enc_fl_uint(&e, 3902, 123456789012ULL);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, 148);
}

/* ---- Post, generic, status, close -------------------------------------------------------- */

static void test_post(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg p, u;
    size_t n = hex(EX_POST);
    memset(&p, 0, sizeof(p));
    p.msg_class = RWF_MC_POST;
    p.domain = RWF_DMT_MARKET_PRICE;
    p.stream_id = 5;
    p.flags = RWF_PSMF_POST_COMPLETE;
    p.container_type = RWF_DT_MSG;
    p.post_user_addr = 0x7F000001;
    p.post_user_id = 4321;
    u = p;
    u.msg_class = RWF_MC_UPDATE;
    u.stream_id = 0;
    u.flags = RWF_UPMF_HAS_POST_USER_INFO;
    u.container_type = RWF_DT_FIELD_LIST;
    rwf_real r1 = {.value = 3048560000LL, .hint = RWF_RH_EXPONENT_6};
    rwf_real r2 = {.value = 1, .hint = RWF_RH_EXPONENT0};

    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &p);
    rwf_enc_msg_begin(&e, &u);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_real(&e, 22, &r1);
    rwf_enc_fl_real(&e, 30, &r2);
    rwf_enc_fl_uint(&e, 3903, 123456789012ULL);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, n);

    rwf_msg d = decode(n), inner;
    assert_int_equal(d.msg_class, RWF_MC_POST);
    assert_int_equal(d.post_user_addr, 0x7F000001);
    assert_int_equal(d.post_user_id, 4321);
    assert_int_equal(d.container_type, RWF_DT_MSG);
    assert_int_equal(rwf_msg_decode(&inner, d.payload), RWF_OK);
    assert_int_equal(inner.msg_class, RWF_MC_UPDATE);
    assert_int_equal(inner.flags, RWF_UPMF_HAS_POST_USER_INFO);
    assert_int_equal(inner.post_user_addr, 0x7F000001);
    assert_int_equal(inner.post_user_id, 4321);
    roundtrip(EX_POST, NULL);
}

static void test_generic(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_msg g;
    size_t n = hex(EX_GENERIC);
    memset(&g, 0, sizeof(g));
    g.msg_class = RWF_MC_GENERIC;
    g.domain = RWF_DMT_MARKET_PRICE;
    g.stream_id = 5;
    g.container_type = RWF_DT_FIELD_LIST;
    rwf_real r = {.value = 3248560000LL, .hint = RWF_RH_EXPONENT_6};
    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, &g);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_real(&e, 22, &r);
    rwf_enc_fl_uint(&e, 3904, 123456789012ULL);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    check_enc(&e, n);
    roundtrip(EX_GENERIC, NULL);
}

static void test_status_and_close(void **state)
{
    (void)state;
    rwf_msg s;
    size_t n;
    static const char text[] = "Item request rejected for stream.";
    memset(&s, 0, sizeof(s));
    s.msg_class = RWF_MC_STATUS;
    s.domain = RWF_DMT_MARKET_PRICE;
    s.stream_id = 5;
    s.flags = RWF_STMF_HAS_STATE;
    s.container_type = RWF_DT_NO_DATA;
    s.state.stream_state = RWF_STREAM_CLOSED_RECOVER;
    s.state.data_state = RWF_DATA_SUSPECT;
    s.state.code = RWF_SC_TOO_MANY_ITEMS;
    s.state.text = rwf_buf_make(text, sizeof(text)); /* with the NUL, as ProvPerf sends it */
    assert_int_equal(rwf_msg_encode(&s, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_STATUS));
    s = decode(n);
    assert_int_equal(s.state.stream_state, RWF_STREAM_CLOSED_RECOVER);
    assert_int_equal(s.state.data_state, RWF_DATA_SUSPECT);
    assert_int_equal(s.state.code, RWF_SC_TOO_MANY_ITEMS);
    assert_int_equal(s.state.text.len, sizeof(text));

    rwf_msg c;
    memset(&c, 0, sizeof(c));
    c.msg_class = RWF_MC_CLOSE;
    c.domain = RWF_DMT_MARKET_PRICE;
    c.stream_id = 5;
    c.container_type = RWF_DT_NO_DATA;
    assert_int_equal(rwf_msg_encode(&c, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_CLOSE));
    roundtrip(EX_STATUS, NULL);
    roundtrip(EX_CLOSE, NULL);
}

/* rwf_msg_init over a struct that held something else: the four members given, every other
 * member zero, and the example's Close bytes. */
static void test_msg_init(void **state)
{
    rwf_msg c;
    size_t n;
    memset(&c, 0xA5, sizeof(c));
    rwf_msg_init(&c, RWF_MC_CLOSE, RWF_DMT_MARKET_PRICE, 5, RWF_DT_NO_DATA);
    assert_int_equal(c.msg_class, RWF_MC_CLOSE);
    assert_int_equal(c.domain, RWF_DMT_MARKET_PRICE);
    assert_int_equal(c.stream_id, 5);
    assert_int_equal(c.container_type, RWF_DT_NO_DATA);
    assert_int_equal(c.flags, 0);
    assert_int_equal(c.key.flags, 0);
    assert_int_equal(c.state.text.len, 0);
    assert_int_equal(c.ext_header.len, 0);
    assert_int_equal(c.seq_num, 0);
    assert_int_equal(c.nak_code, 0);
    assert_null(c.payload.data);
    assert_int_equal(c.payload.len, 0);
    assert_int_equal(rwf_msg_encode(&c, got, sizeof(got), &n), RWF_OK);
    ts_assert_bytes_equal(got, n, want, hex(EX_CLOSE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_login_request),
        cmocka_unit_test(test_niprov_login_request),
        cmocka_unit_test(test_login_refresh),
        cmocka_unit_test(test_directory_request),
        cmocka_unit_test(test_directory_refresh),
        cmocka_unit_test(test_dictionary_request),
        cmocka_unit_test(test_item_request),
        cmocka_unit_test(test_mp_refresh_short),
        cmocka_unit_test(test_mp_refresh_full),
        cmocka_unit_test(test_mp_update),
        cmocka_unit_test(test_post),
        cmocka_unit_test(test_generic),
        cmocka_unit_test(test_status_and_close),
        cmocka_unit_test(test_msg_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
