/*
 * RDM admin messages: login, directory and dictionary requests and refreshes are the bytes of
 * docs/wire.md#examples; decoders give the consumer what it needs; a dictionary served as refresh
 * parts (fields in maxFragmentSize parts, enums in one big message) and read back is the same
 * dictionary; item rejects carry ProvPerf's states and texts.
 */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwf.h"
#include "rwf_walk.h"
#include "wire_examples.h"

static uint8_t want[4096], got[131072];

static size_t finish(rwf_enc *e)
{
    size_t len = 0;
    if (rwf_enc_finish(e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static rwf_msg decode_got(size_t len)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(got, len)) != RWF_OK)
        fail_msg("decode: %s", err_msg());
    return m;
}

static rwf_login consperf_login(void)
{
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("user");
    l.flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ConsPerf");
    l.position = RWF_STR("127.0.0.1/net");
    l.role = 0;
    return l;
}

static void test_login(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_login l = consperf_login(), d;

    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_login_request(&e, &l);
    size_t n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_LOGIN_REQ, want, sizeof(want)));
    assert_int_equal(rwf_rdm_login_decode(&(rwf_msg){0}, &d), RWF_E_INVALID);
    rwf_msg m = decode_got(n);
    assert_int_equal(rwf_rdm_login_decode(&m, &d), RWF_OK);
    assert_int_equal(d.msg_class, RWF_MC_REQUEST);
    assert_true(rwf_buf_eq_cstr(d.user, "user"));
    assert_true(rwf_buf_eq_cstr(d.app_name, "ConsPerf"));
    assert_true(d.flags & RWF_LOGIN_HAS_ROLE);
    assert_int_equal(d.role, 0);

    l.app_name = RWF_STR("NIProvPerf");
    l.role = 1;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_login_request(&e, &l);
    n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_NIPROV_LOGIN_REQ, want, sizeof(want)));

    /* ProvPerf's refresh */
    rwf_login r;
    memset(&r, 0, sizeof(r));
    r.stream_id = 1;
    r.user = RWF_STR("user");
    r.state = (rwf_state){.stream_state = RWF_STREAM_OPEN, .data_state = RWF_DATA_OK};
    r.flags = RWF_LOGIN_SOLICITED | RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME |
              RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_HAS_SUPPORT_POST;
    r.app_id = RWF_STR("256");
    r.app_name = RWF_STR("ProvPerf");
    r.position = RWF_STR("127.0.0.1/net");
    r.single_open = 0;
    r.support_post = 1;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_login_refresh(&e, &r);
    n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_LOGIN_REFRESH, want, sizeof(want)));
    m = decode_got(n);
    assert_int_equal(rwf_rdm_login_decode(&m, &d), RWF_OK);
    assert_int_equal(d.msg_class, RWF_MC_REFRESH);
    assert_true(d.flags & RWF_LOGIN_HAS_STATE);
    assert_int_equal(d.state.stream_state, RWF_STREAM_OPEN);
    assert_true(d.flags & RWF_LOGIN_HAS_SUPPORT_POST);
    assert_int_equal(d.support_post, 1);
    assert_true(d.flags & RWF_LOGIN_SOLICITED);
    assert_true(rwf_buf_eq_cstr(d.app_name, "ProvPerf"));
    assert_false(d.flags & RWF_LOGIN_HAS_ROLE);
}

static rwf_service provperf_service(void)
{
    rwf_service s;
    memset(&s, 0, sizeof(s));
    s.id = 1;
    s.action = RWF_MPEA_ADD_ENTRY;
    s.flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE | RWF_SVC_HAS_LOAD | RWF_SVC_HAS_VENDOR |
              RWF_SVC_HAS_IS_SOURCE | RWF_SVC_HAS_DICTS_PROVIDED | RWF_SVC_HAS_DICTS_USED |
              RWF_SVC_HAS_QOS | RWF_SVC_HAS_SUPPORT_QOS_RANGE | RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS |
              RWF_SVC_HAS_ACCEPTING_CONS_STATUS | RWF_SVC_HAS_ACCEPTING_REQS |
              RWF_SVC_HAS_OPEN_LIMIT;
    s.name = RWF_STR("DIRECT_FEED");
    s.vendor = RWF_STR("Refinitiv");
    s.is_source = 1;
    s.capabilities[0] = RWF_DMT_DICTIONARY;
    s.capabilities[1] = RWF_DMT_MARKET_PRICE;
    s.capabilities[2] = RWF_DMT_SYSTEM;
    s.capability_count = 3;
    s.dicts_provided[0] = s.dicts_used[0] = RWF_STR("RWFFld");
    s.dicts_provided[1] = s.dicts_used[1] = RWF_STR("RWFEnum");
    s.dicts_provided_count = s.dicts_used_count = 2;
    s.qos[0] = (rwf_qos){.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};
    s.qos_count = 1;
    s.service_state = 1;
    s.accepting_requests = 1;
    s.open_limit = 1000000;
    return s;
}

static void test_directory(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_directory_request(&e, 2, RWF_DIR_INFO | RWF_DIR_STATE | RWF_DIR_GROUP, 0, 0);
    size_t n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_DIR_REQ, want, sizeof(want)));

    rwf_service svc = provperf_service();
    rwf_directory dir = {.stream_id = 2,
                         .filter = 7,
                         .solicited = 1,
                         .clear_cache = 1,
                         .state = {.stream_state = RWF_STREAM_OPEN, .data_state = RWF_DATA_OK},
                         .services = &svc,
                         .service_count = 1};
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_directory_refresh(&e, &dir);
    n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_DIR_REFRESH, want, sizeof(want)));

    rwf_msg m = decode_got(n);
    rwf_service out[4];
    unsigned count;
    assert_int_equal(rwf_rdm_directory_decode(&m, out, 4, &count), RWF_OK);
    assert_int_equal(count, 1);
    assert_int_equal(out[0].id, 1);
    assert_true(rwf_buf_eq_cstr(out[0].name, "DIRECT_FEED"));
    assert_true(out[0].flags & RWF_SVC_HAS_NAME);
    assert_int_equal(out[0].service_state, 1);
    assert_true(out[0].flags & RWF_SVC_HAS_ACCEPTING_REQS);
    assert_int_equal(out[0].accepting_requests, 1);
    assert_int_equal(out[0].qos_count, 1);
    assert_int_equal(out[0].qos[0].timeliness, RWF_QOS_TIME_REALTIME);
    assert_int_equal(out[0].capability_count, 3);
    assert_int_equal(out[0].capabilities[2], RWF_DMT_SYSTEM);
    assert_true(rwf_buf_eq_cstr(out[0].dicts_provided[1], "RWFEnum"));
    assert_int_equal(out[0].open_limit, 1000000);

    /* NIProvPerf: unsolicited, stream -1, key FILTER|SERVICE_ID, and a Load entry without
     * elements when it has no open limit (the service flags say what is written). */
    svc.flags &= ~(uint32_t)RWF_SVC_HAS_OPEN_LIMIT;
    dir.stream_id = -1;
    dir.solicited = 0;
    dir.has_service_id = 1;
    dir.service_id = 1;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_directory_refresh(&e, &dir);
    n = finish(&e);
    m = decode_got(n);
    assert_int_equal(m.stream_id, -1);
    assert_int_equal(m.flags,
                     RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_CLEAR_CACHE);
    assert_int_equal(got[8], 0x81); /* flags 0x148 in two bytes */
    assert_int_equal(got[9], 0x48);
    assert_int_equal(m.key.flags, RWF_MKF_HAS_FILTER | RWF_MKF_HAS_SERVICE_ID);
    assert_int_equal(rwf_rdm_directory_decode(&m, out, 4, &count), RWF_OK);
    assert_true(out[0].flags & RWF_SVC_HAS_LOAD);
    assert_false(out[0].flags & RWF_SVC_HAS_OPEN_LIMIT);
    walk_ctx w;
    memset(&w, 0, sizeof(w));
    assert_int_equal(walk_msg(&w, rwf_buf_make(got, n), 0), RWF_OK);

    /* an update carrying only a State change, and a deleted service */
    rwf_service two[2];
    memset(two, 0, sizeof(two));
    two[0].id = 1;
    two[0].action = RWF_MPEA_UPDATE_ENTRY;
    two[0].flags = RWF_SVC_HAS_STATE;
    two[0].service_state = 0;
    two[1].id = 7;
    two[1].action = RWF_MPEA_DELETE_ENTRY;
    dir.services = two;
    dir.service_count = 2;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_directory_refresh(&e, &dir);
    n = finish(&e);
    m = decode_got(n);
    assert_int_equal(rwf_rdm_directory_decode(&m, out, 4, &count), RWF_OK);
    assert_int_equal(count, 2);
    assert_false(out[0].flags & RWF_SVC_HAS_INFO);
    assert_true(out[0].flags & RWF_SVC_HAS_STATE);
    assert_int_equal(out[0].service_state, 0);
    assert_int_equal(out[1].action, RWF_MPEA_DELETE_ENTRY);
    assert_int_equal(rwf_rdm_directory_decode(&m, out, 1, &count), RWF_OK);
    assert_int_equal(count, 1); /* at most max */
}

/* Dictionary lists are cut at RWF_SVC_MAX_LIST items like the other service lists: a count
 * past the array encodes the same bytes as a full array, never reading beyond it. */
static void test_directory_list_limits(void **state)
{
    (void)state;
    static const char *const names[RWF_SVC_MAX_LIST] = {"D0",  "D1",  "D2",  "D3", "D4",  "D5",
                                                        "D6",  "D7",  "D8",  "D9", "D10", "D11",
                                                        "D12", "D13", "D14", "D15"};
    rwf_service *svc = calloc(1, sizeof(*svc));
    svc->id = 1;
    svc->flags =
        RWF_SVC_HAS_INFO | RWF_SVC_HAS_NAME | RWF_SVC_HAS_DICTS_PROVIDED | RWF_SVC_HAS_DICTS_USED;
    svc->name = RWF_STR("FEED");
    for (unsigned i = 0; i < RWF_SVC_MAX_LIST; i++)
        svc->dicts_provided[i] = svc->dicts_used[i] = rwf_buf_cstr(names[i]);
    svc->dicts_provided_count = svc->dicts_used_count = RWF_SVC_MAX_LIST;
    rwf_directory dir = {.stream_id = 2, .filter = 7, .services = svc, .service_count = 1};
    rwf_enc e;
    rwf_enc_init(&e, want, sizeof(want));
    rwf_rdm_directory_refresh(&e, &dir);
    size_t full = finish(&e);

    svc->dicts_provided_count = svc->dicts_used_count = 1000;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_directory_refresh(&e, &dir);
    ts_assert_bytes_equal(got, finish(&e), want, full);

    rwf_msg m = decode_got(full);
    rwf_service out[1];
    unsigned count;
    assert_int_equal(rwf_rdm_directory_decode(&m, out, 1, &count), RWF_OK);
    assert_int_equal(out[0].dicts_used_count, RWF_SVC_MAX_LIST);
    assert_true(rwf_buf_eq_cstr(out[0].dicts_used[15], "D15"));
    free(svc);
}

static void test_dictionary_request_and_reject(void **state)
{
    (void)state;
    rwf_enc e;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_dictionary_request(&e, 3, 1, RWF_STR("RWFFld"), RWF_DICT_NORMAL);
    size_t n = finish(&e);
    ts_assert_bytes_equal(got, n, want, ts_hex(EX_DICT_REQ, want, sizeof(want)));
    rwf_msg m = decode_got(n);
    rwf_dict_request dr;
    assert_int_equal(rwf_rdm_dictionary_request_decode(&m, &dr), RWF_OK);
    assert_int_equal(dr.stream_id, 3);
    assert_int_equal(dr.service_id, 1);
    assert_true(rwf_buf_eq_cstr(dr.name, "RWFFld"));
    assert_int_equal(dr.verbosity, RWF_DICT_NORMAL);
    assert_true(dr.streaming);

    rwf_enc_init(&e, got, sizeof(got));
    rwf_rdm_dictionary_reject(&e, 3);
    n = finish(&e);
    m = decode_got(n);
    assert_int_equal(m.msg_class, RWF_MC_STATUS);
    assert_int_equal(m.domain, RWF_DMT_DICTIONARY);
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    assert_int_equal(m.state.data_state, RWF_DATA_SUSPECT);
    assert_int_equal(m.state.code, RWF_SC_INVALID_ARGUMENT);
    assert_true(rwf_buf_eq_cstr(m.state.text, "Unknown dictionary name."));
}

/* The project's dictionary (data/), plus a field that ripples (the file has no ripple chains). */
/* Part sizes for the project's small dictionary: several parts of fields, one of tables. */
enum { FLD_PART = 1000, ENUM_PART = 4000 };

static rwf_dict *load_project(void)
{
    rwf_dict *d = rwf_dict_new();
    if (rwf_dict_load_fields(d, ts_source_path("data/RDMFieldDictionary")) != RWF_OK ||
        rwf_dict_load_enums(d, ts_source_path("data/enumtype.def")) != RWF_OK)
        fail_msg("%s", err_msg());
    rwf_dict_field f = {.acronym = RWF_STR("TRDPRC_0"),
                        .dde_acronym = RWF_STR("LAST 0"),
                        .fid = -6,
                        .ripple_to = 6,
                        .mf_type = RWF_MF_PRICE,
                        .rwf_type = RWF_DT_REAL,
                        .length = 17,
                        .rwf_len = 7};
    assert_int_equal(rwf_dict_add_field(d, &f), RWF_OK);
    return d;
}

/* Serves dictionary type from src in parts of part_size bytes, applies each to dst; returns
 * the number of parts. Every part is checked: size, flags, stream, key. */
static int serve(const rwf_dict *src, rwf_dict *dst, int type, uint32_t verbosity, size_t part_size)
{
    int32_t next = 0;
    int parts = 0, r, dtype = 0;
    rwf_dict_refresh rr = {.stream_id = type == RWF_DICT_FIELD_DEFINITIONS ? 3 : 4,
                           .name = type == RWF_DICT_FIELD_DEFINITIONS ? RWF_STR("RWFFld")
                                                                      : RWF_STR("RWFEnum"),
                           .verbosity = verbosity,
                           .solicited = 1,
                           .type = type};
    do {
        rwf_enc e;
        rwf_msg m;
        rwf_enc_init(&e, got, part_size);
        r = rwf_rdm_dictionary_refresh(&e, &rr, src, &next);
        if (r < 0)
            fail_msg("part %d: %s", parts, err_msg());
        size_t n = finish(&e);
        assert_true(n <= part_size);
        m = decode_got(n);
        assert_int_equal(m.stream_id, rr.stream_id);
        assert_int_equal(m.container_type, RWF_DT_SERIES);
        assert_int_equal(m.flags, RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED |
                                      (r == RWF_OK ? RWF_RFMF_REFRESH_COMPLETE : 0));
        assert_int_equal(m.key.filter, verbosity);
        assert_true(rwf_buf_eq(m.key.name, rr.name));
        if (rwf_rdm_dictionary_apply(dst, &m, &dtype) != RWF_OK)
            fail_msg("apply part %d: %s", parts, err_msg());
        assert_int_equal(dtype, type);
        parts++;
    } while (r == RWF_PART_MORE);
    return parts;
}

static void test_dictionary_round_trip(void **state)
{
    (void)state;
    rwf_dict *src = load_project(), *dst = rwf_dict_new();
    int fparts = serve(src, dst, RWF_DICT_FIELD_DEFINITIONS, RWF_DICT_NORMAL, FLD_PART);
    int eparts = serve(src, dst, RWF_DICT_ENUM_TABLES, RWF_DICT_NORMAL, ENUM_PART);
    printf("field dictionary: %u fields in %d parts of <= %d bytes; enum tables: %u in %d "
           "parts of <= %d bytes\n",
           src->field_count, fparts, FLD_PART, src->table_count, eparts, ENUM_PART);
    assert_true(fparts > 3);
    assert_int_equal(dst->field_count, src->field_count);
    assert_int_equal(dst->table_count, src->table_count);
    assert_int_equal(dst->info.dictionary_id, 1);
    assert_true(rwf_buf_eq_cstr(dst->info.field_version, "4.20.51"));
    assert_true(rwf_buf_eq_cstr(dst->info.enum_dt_version, "22.21"));
    assert_true(rwf_buf_eq_cstr(dst->info.enum_rt_version, "4.20.51"));
    for (uint32_t i = 0; i < src->field_count; i++) {
        const rwf_dict_field *a = &src->fields[i], *b = rwf_dict_field_by_fid(dst, a->fid);
        assert_non_null(b);
        if (!rwf_buf_eq(a->acronym, b->acronym) || !rwf_buf_eq(a->dde_acronym, b->dde_acronym) ||
            a->ripple_to != b->ripple_to || a->mf_type != b->mf_type ||
            a->rwf_type != b->rwf_type || a->length != b->length || a->rwf_len != b->rwf_len ||
            a->enum_length != b->enum_length)
            fail_msg("fid %d differs after the round trip", a->fid);
    }
    for (uint32_t t = 0; t < src->table_count; t++) {
        const rwf_enum_table *a = &src->tables[t], *b = rwf_dict_enum_table(dst, a->fids[0]);
        assert_non_null(b);
        assert_int_equal(a->fid_count, b->fid_count);
        assert_int_equal(a->count, b->count);
        for (uint32_t i = 0; i < a->fid_count; i++)
            assert_int_equal(a->fids[i], b->fids[i]);
        for (uint32_t i = 0; i < a->count; i++) {
            assert_int_equal(a->values[i].value, b->values[i].value);
            assert_true(rwf_buf_eq(a->values[i].display, b->values[i].display));
        }
    }
    assert_int_equal(rwf_dict_enum(dst, 14, 1)->display.data[0], (char)0xDE);

    /* MINIMAL: 7 set entries, no ENUMLENGTH/LONGNAME; a small part size gives more parts */
    rwf_dict *min = rwf_dict_new();
    int mparts = serve(src, min, RWF_DICT_FIELD_DEFINITIONS, RWF_DICT_MINIMAL, 300);
    assert_true(mparts > fparts);
    assert_int_equal(min->field_count, src->field_count);
    assert_int_equal(rwf_dict_field_by_fid(min, 6)->dde_acronym.len, 0);
    /* enums in parts too */
    rwf_dict *small = rwf_dict_new();
    assert_true(serve(src, small, RWF_DICT_ENUM_TABLES, RWF_DICT_NORMAL, 400) > eparts);
    assert_int_equal(small->table_count, src->table_count);
    /* a table larger than the part size cannot be served */
    int32_t next = 0;
    int r;
    rwf_dict_refresh big = {
        .stream_id = 4, .name = RWF_STR("RWFEnum"), .verbosity = 7, .type = RWF_DICT_ENUM_TABLES};
    do {
        rwf_enc e;
        rwf_enc_init(&e, got, 180);
        r = rwf_rdm_dictionary_refresh(&e, &big, src, &next);
    } while (r == RWF_PART_MORE);
    assert_int_equal(r, RWF_E_NOSPACE);
    assert_non_null(strstr(err_msg(), "does not fit an empty part"));
    /* Every part size from the smallest that holds a table on: the whole dictionary, whatever
     * falls at the end of a part. */
    for (size_t size = 200; size <= 1200; size++) {
        rwf_dict *f = rwf_dict_new(), *en = rwf_dict_new();
        serve(src, f, RWF_DICT_FIELD_DEFINITIONS, RWF_DICT_NORMAL, size);
        serve(src, en, RWF_DICT_ENUM_TABLES, RWF_DICT_NORMAL, size);
        assert_int_equal(f->field_count, src->field_count);
        assert_int_equal(en->table_count, src->table_count);
        rwf_dict_free(f);
        rwf_dict_free(en);
    }
    rwf_dict_free(min);
    rwf_dict_free(small);
    rwf_dict_free(src);
    rwf_dict_free(dst);
}

/* Byte layout of the first field part, as the ETA encoder writes it. */
static void test_field_part_layout(void **state)
{
    (void)state;
    rwf_dict *d = rwf_dict_new();
    const char *text = "PROD_PERM  \"PERMISSION\"  1  NULL  INTEGER  5  UINT64  2\n"
                       "TRDPRC_1   \"LAST\"  6  NULL  PRICE  17  REAL64  7\n";
    assert_int_equal(rwf_dict_parse_fields(d, "F", text, strlen(text)), RWF_OK);
    d->info.dictionary_id = 1;
    d->info.field_version = RWF_STR("4.20.51");
    rwf_dict_refresh rr = {.stream_id = 3,
                           .name = RWF_STR("RWFFld"),
                           .verbosity = 7,
                           .solicited = 1,
                           .type = RWF_DICT_FIELD_DEFINITIONS};
    int32_t next = 0;
    rwf_enc e;
    rwf_enc_init(&e, got, 6142);
    assert_int_equal(rwf_rdm_dictionary_refresh(&e, &rr, d, &next), RWF_OK);
    size_t n = finish(&e);
    static const char hdr[] =
        /* refresh: MSGKEY|SOLICITED|COMPLETE, SERIES, OPEN/OK, group 0, key NAME|FILTER|SVC */
        "02 05 00 00 00 03 68 0A 09 00 00 02 00 00 80 0D 0B 00 06 52 57 46 46 6C 64 00 00 00 07"
        /* series: SET_DEFS|SUMMARY|COUNT_HINT, ELEMENT_LIST, set defs (2-byte length) */
        "07 05 80 4E 00 01 00 09 04 4E 41 4D 45 11 03 46 49 44 42 08 52 49 50 50 4C 45 54 4F 42"
        "04 54 59 50 45 40 06 4C 45 4E 47 54 48 43 07 52 57 46 54 59 50 45 41 06 52 57 46 4C 45"
        "4E 43 0A 45 4E 55 4D 4C 45 4E 47 54 48 41 08 4C 4F 4E 47 4E 41 4D 45 11"
        /* summary ElementList: Type INT 1, DictionaryId INT 1, Version "4.20.51" */
        "80 2C 08 00 03 04 54 79 70 65 03 01 01 0C 44 69 63 74 69 6F 6E 61 72 79 49 64 03 01 01"
        "07 56 65 72 73 69 6F 6E 11 07 34 2E 32 30 2E 35 31"
        /* count hint 2, 2 entries; entry 1: 1-byte length, set data */
        "02 00 02 21 02 09 50 52 4F 44 5F 50 45 52 4D 00 01 00 00 01 00 05 04 00 02 00 0A 50 45"
        "52 4D 49 53 53 49 4F 4E";
    size_t hn = ts_hex(hdr, want, sizeof(want));
    ts_assert_bytes_equal(got + 2, hn, want, hn);
    (void)n;
    rwf_dict_free(d);
}

static void test_item_status(void **state)
{
    (void)state;
    static const struct {
        int reason;
        int stream_state, code;
        const char *text;
    } c[] = {
        {RWF_REJECT_ITEM_COUNT, RWF_STREAM_CLOSED_RECOVER, RWF_SC_TOO_MANY_ITEMS,
         "Item request rejected for stream id 5 - item count reached for this channel"},
        {RWF_REJECT_SERVICE_ID, RWF_STREAM_CLOSED, RWF_SC_USAGE_ERROR,
         "Item request rejected for stream id 5 - service id invalid"},
        {RWF_REJECT_QOS, RWF_STREAM_CLOSED, RWF_SC_USAGE_ERROR,
         "Item request rejected for stream id 5 - QoS not supported"},
        {RWF_REJECT_ALREADY_OPEN, RWF_STREAM_CLOSED_RECOVER, RWF_SC_ALREADY_OPEN,
         "Item request rejected for stream id 5 - item already open with exact same key on "
         "another stream"},
        {RWF_REJECT_STREAM_IN_USE, RWF_STREAM_CLOSED_RECOVER, RWF_SC_USAGE_ERROR,
         "Item request rejected for stream id 5 - stream already in use with a different key"},
        {RWF_REJECT_DOMAIN, RWF_STREAM_CLOSED, RWF_SC_USAGE_ERROR,
         "Item request rejected for stream id 5 - this provider does not support domain 6"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        rwf_enc e;
        rwf_enc_init(&e, got, 256);
        rwf_rdm_item_reject(&e, 5, RWF_DMT_MARKET_PRICE, c[i].reason);
        size_t n = finish(&e);
        rwf_msg m = decode_got(n);
        assert_int_equal(m.msg_class, RWF_MC_STATUS);
        assert_int_equal(m.flags, RWF_STMF_HAS_STATE);
        assert_int_equal(m.container_type, RWF_DT_NO_DATA);
        assert_int_equal(m.state.stream_state, c[i].stream_state);
        assert_int_equal(m.state.data_state, RWF_DATA_SUSPECT);
        assert_int_equal(m.state.code, c[i].code);
        assert_int_equal(m.state.text.len, strlen(c[i].text) + 1);
        assert_memory_equal(m.state.text.data, c[i].text, strlen(c[i].text) + 1);
    }
    rwf_enc e;
    rwf_enc_init(&e, got, 256);
    rwf_rdm_item_close_status(&e, 9, RWF_DMT_MARKET_PRICE);
    rwf_msg m = decode_got(finish(&e));
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    assert_int_equal(m.state.code, RWF_SC_NONE);
    assert_true(rwf_buf_eq_cstr(m.state.text, "Stream closed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_login),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_directory_list_limits),
        cmocka_unit_test(test_dictionary_request_and_reject),
        cmocka_unit_test(test_dictionary_round_trip),
        cmocka_unit_test(test_field_part_layout),
        cmocka_unit_test(test_item_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
