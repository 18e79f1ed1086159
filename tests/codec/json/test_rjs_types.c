/*
 * RWF <-> JSON of every data type and container: a field list holding each primitive type
 * (values, extremes and blanks) and container fields, ENUM as numbers and as display texts
 * (RMTES displays as UTF-8), an element list of every type in both JSON forms (plain and
 * {"Type","Data"}), maps with several key types, filter lists, vectors, series, MarketByOrder
 * (a map with set definitions and summary data, from data/MsgData.xml) and the dictionary
 * refresh (a series of set-defined element lists) — each converted RWF -> JSON (checked
 * against the expected text) -> RWF (checked byte for byte where the JSON form keeps
 * everything) -> JSON again.
 */
#include "rjs_test.h"

#include "msgdata.h"

enum {
    F_INT = 30001,
    F_ASCII,
    F_BUF,
    F_ARRAY,
    F_FLOAT,
    F_DOUBLE,
    F_DATETIME,
    F_QOS,
    F_STATE,
    F_UTF8,
    F_ELEMENTS,
    F_VECTOR,
};

static int add_field(const char *name, int16_t fid, int type)
{
    rwf_dict_field f;
    memset(&f, 0, sizeof(f));
    f.acronym = rwf_buf_cstr(name);
    f.dde_acronym = rwf_buf_cstr(name);
    f.fid = fid;
    f.mf_type = RWF_MF_NONE;
    f.rwf_type = (uint8_t)type;
    return rwf_dict_add_field(dict, &f);
}

static int setup(void **state)
{
    (void)state;
    if (!(dict = load_dict()))
        return -1;
    if (add_field("T_INT", F_INT, RWF_DT_INT) ||
        add_field("T_ASCII", F_ASCII, RWF_DT_ASCII_STRING) ||
        add_field("T_BUF", F_BUF, RWF_DT_BUFFER) || add_field("T_ARRAY", F_ARRAY, RWF_DT_ARRAY) ||
        add_field("T_FLOAT", F_FLOAT, RWF_DT_FLOAT) ||
        add_field("T_DOUBLE", F_DOUBLE, RWF_DT_DOUBLE) ||
        add_field("T_DATETIME", F_DATETIME, RWF_DT_DATETIME) ||
        add_field("T_QOS", F_QOS, RWF_DT_QOS) || add_field("T_STATE", F_STATE, RWF_DT_STATE) ||
        add_field("T_UTF8", F_UTF8, RWF_DT_UTF8_STRING) ||
        add_field("T_ELEMENTS", F_ELEMENTS, RWF_DT_ELEMENT_LIST) ||
        add_field("T_VECTOR", F_VECTOR, RWF_DT_VECTOR)) {
        fprintf(stderr, "add field: %s\n", err_msg());
        return -1;
    }
    return make_convs();
}

static int teardown(void **state)
{
    (void)state;
    free_all();
    return 0;
}

/* An update on stream 5 whose FieldList is written by fill. */
static size_t update_with(void (*fill)(rwf_enc *e))
{
    rwf_msg m;
    rwf_enc e;
    size_t len = 0;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_UPDATE;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 5;
    m.container_type = RWF_DT_FIELD_LIST;
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_fl_begin_std(&e);
    fill(&e);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static void fill_values(rwf_enc *e)
{
    rwf_real bid = {1250, RWF_RH_EXPONENT_2, 0}, neg = {-5, RWF_RH_EXPONENT_4, 0};
    rwf_real big = {126675, RWF_RH_EXPONENT1, 0}, inf = {0, RWF_RH_NEG_INFINITY, 0};
    rwf_date d = {16, 11, 2005};
    rwf_time t = {15, 52, 12, 200, 0, 0};
    rwf_datetime dt = {{16, 11, 2005}, {15, 52, 12, 123, 456, 789}};
    rwf_qos q = {RWF_QOS_TIME_DELAYED, RWF_QOS_RATE_TIME_CONFLATED, 1, 500, 1000};
    rwf_state s = {RWF_STREAM_CLOSED_RECOVER, RWF_DATA_SUSPECT, RWF_SC_NOT_FOUND, RWF_STR("gone")};
    static const uint8_t bytes[] = {0, 1, 2, 0xFF};
    rwf_enc_fl_real(e, 22, &bid);                               /* BID */
    rwf_enc_fl_real(e, 25, &neg);                               /* ASK */
    rwf_enc_fl_real(e, 32, &big);                               /* ACVOL_1 */
    rwf_enc_fl_real(e, 11, &inf);                               /* NETCHNG_1 */
    rwf_enc_fl_uint(e, 1, UINT64_MAX);                          /* PROD_PERM */
    rwf_enc_fl_enum(e, 15, 840);                                /* CURRENCY */
    rwf_enc_fl_enum(e, 14, 1);                                  /* PRCTCK_1: #DE# */
    rwf_enc_fl_date(e, 16, &d);                                 /* TRADE_DATE */
    rwf_enc_fl_time(e, 1025, &t);                               /* QUOTIM */
    rwf_enc_fl_buf(e, 6579, RWF_DT_RMTES_STRING, RWF_STR("R")); /* BID_COND_N */
    rwf_enc_fl_int(e, F_INT, INT64_MIN);
    rwf_enc_fl_buf(e, F_ASCII, RWF_DT_ASCII_STRING, RWF_STR("a\"b\\c\n\x01"));
    rwf_enc_fl_buf(e, F_BUF, RWF_DT_BUFFER, rwf_buf_make(bytes, sizeof(bytes)));
    rwf_enc_fl_entry(e, F_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_UINT, 0);
    rwf_enc_uint(e, 1);
    rwf_enc_uint(e, 300);
    rwf_enc_array_end(e);
    rwf_enc_fl_entry(e, F_FLOAT);
    rwf_enc_float(e, 1.5f);
    rwf_enc_fl_entry(e, F_DOUBLE);
    rwf_enc_double(e, 0.1);
    rwf_enc_fl_entry(e, F_DATETIME);
    rwf_enc_datetime(e, &dt);
    rwf_enc_fl_entry(e, F_QOS);
    rwf_enc_qos(e, &q);
    rwf_enc_fl_entry(e, F_STATE);
    rwf_enc_state(e, &s);
    rwf_enc_fl_buf(e, F_UTF8, RWF_DT_UTF8_STRING, RWF_STR("\xC3\xA9t\xC3\xA9"));
}

static void test_field_values(void **state)
{
    (void)state;
    size_t n = update_with(fill_values);
    roundtrip(
        conv, rwf1, n,
        "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{"
        "\"BID\":12.50,\"ASK\":-0.0005,\"ACVOL_1\":1266750,\"NETCHNG_1\":\"-Inf\","
        "\"PROD_PERM\":18446744073709551615,\"CURRENCY\":840,\"PRCTCK_1\":1,"
        "\"TRADE_DATE\":\"2005-11-16\",\"QUOTIM\":\"15:52:12.2\",\"BID_COND_N\":\"R\","
        "\"T_INT\":-9223372036854775808,\"T_ASCII\":\"a\\\"b\\\\c\\n\\u0001\","
        "\"T_BUF\":\"AAEC/w==\",\"T_ARRAY\":{\"Type\":\"UInt\",\"Data\":[1,300]},"
        "\"T_FLOAT\":1.5,\"T_DOUBLE\":0.1,"
        "\"T_DATETIME\":\"2005-11-16T15:52:12.123456789\","
        "\"T_QOS\":{\"Timeliness\":\"Delayed\",\"Rate\":\"TimeConflated\",\"Dynamic\":true,"
        "\"TimeInfo\":500,\"RateInfo\":1000},"
        "\"T_STATE\":{\"Stream\":\"ClosedRecover\",\"Data\":\"Suspect\",\"Code\":\"NotFound\","
        "\"Text\":\"gone\"},\"T_UTF8\":\"\xC3\xA9t\xC3\xA9\"}}",
        1);
    /* Enum display texts, RMTES displays as UTF-8 (0xDE is U+21E7), and back to the values. */
    roundtrip(conv_text, rwf1, n, NULL, 1);
    assert_non_null(strstr(json, "\"CURRENCY\":\"USD\",\"PRCTCK_1\":\"\xE2\x87\xA7\""));
}

static void fill_blanks(rwf_enc *e)
{
    static const int16_t fids[] = {22,         1,       15,      16,      1025,    6579,
                                   F_INT,      F_ASCII, F_BUF,   F_ARRAY, F_FLOAT, F_DOUBLE,
                                   F_DATETIME, F_QOS,   F_STATE, F_UTF8};
    for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++)
        rwf_enc_fl_blank(e, fids[i]);
}

static void test_field_blanks(void **state)
{
    (void)state;
    size_t n = update_with(fill_blanks);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{"
              "\"BID\":null,\"PROD_PERM\":null,\"CURRENCY\":null,\"TRADE_DATE\":null,"
              "\"QUOTIM\":null,\"BID_COND_N\":null,\"T_INT\":null,\"T_ASCII\":null,"
              "\"T_BUF\":null,\"T_ARRAY\":null,\"T_FLOAT\":null,\"T_DOUBLE\":null,"
              "\"T_DATETIME\":null,\"T_QOS\":null,\"T_STATE\":null,\"T_UTF8\":null}}",
              1);
}

/* Times and dates in every form the ISO text has: parts blank (255) end the text; sub-seconds
 * keep their significant digits. */
static void fill_times(rwf_enc *e)
{
    rwf_time t[] = {
        {15, 52, 0, 0, 0, 0},    {15, 52, 12, 0, 0, 0}, {15, 52, 12, 0, 0, 20},
        {15, 52, 0, 3, 7, 1},    {15, 52, 0, 0, 20, 0}, {15, 52, 255, 0, 0, 0},
        {15, 255, 255, 0, 0, 0}, {9, 5, 7, 10, 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        rwf_enc_fl_time(e, 1025, &t[i]);
    rwf_date d[] = {{15, 11, 2005}, {0, 11, 2005}, {15, 11, 0}};
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
        rwf_enc_fl_date(e, 16, &d[i]);
}

static void test_times_dates(void **state)
{
    (void)state;
    size_t n = update_with(fill_times);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{"
              "\"QUOTIM\":\"15:52:00\",\"QUOTIM\":\"15:52:12\",\"QUOTIM\":\"15:52:12.00000002\","
              "\"QUOTIM\":\"15:52:00.003007001\",\"QUOTIM\":\"15:52:00.00002\","
              "\"QUOTIM\":\"15:52\",\"QUOTIM\":\"15\",\"QUOTIM\":\"09:05:07.01\","
              "\"TRADE_DATE\":\"2005-11-15\",\"TRADE_DATE\":\"2005-11\","
              "\"TRADE_DATE\":\"--11-15\"}}",
              1);
}

/* Container fields (an element list and a vector inside a field list). */
static void fill_nested(rwf_enc *e)
{
    rwf_enc_fl_entry(e, F_ELEMENTS);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, RWF_STR("Count"), 3);
    rwf_enc_el_end(e);
    rwf_vector_hdr v;
    memset(&v, 0, sizeof(v));
    v.ctype = RWF_DT_FIELD_LIST;
    rwf_enc_fl_entry(e, F_VECTOR);
    rwf_enc_vector_begin(e, &v);
    rwf_enc_vector_entry(e, RWF_VTEA_SET_ENTRY, 7, NULL);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_uint(e, 1, 5);
    rwf_enc_fl_end(e);
    rwf_enc_vector_end(e);
}

static void test_container_fields(void **state)
{
    (void)state;
    size_t n = update_with(fill_nested);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{"
              "\"T_ELEMENTS\":{\"Count\":3},\"T_VECTOR\":{\"Entries\":[{\"Index\":7,"
              "\"Action\":\"Set\",\"Fields\":{\"PROD_PERM\":5}}]}}}",
              1);
}

/* A generic message on stream 9 whose ElementList is written by fill. */
static size_t generic_with(void (*fill)(rwf_enc *e))
{
    rwf_msg m;
    rwf_enc e;
    size_t len = 0;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_GENERIC;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.stream_id = 9;
    m.flags = RWF_GNMF_MESSAGE_COMPLETE;
    m.container_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_el_begin_std(&e);
    fill(&e);
    rwf_enc_el_end(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static void fill_elements(rwf_enc *e)
{
    rwf_value v;
    rwf_enc_el_buf(e, RWF_STR("Name"), RWF_DT_ASCII_STRING, RWF_STR("DIRECT_FEED"));
    rwf_enc_el_uint(e, RWF_STR("Open"), 1);
    rwf_enc_el_int(e, RWF_STR("Neg"), -5);
    rwf_enc_el_entry(e, RWF_STR("Empty"), RWF_DT_ASCII_STRING);
    rwf_enc_blank(e);
    rwf_enc_el_entry(e, RWF_STR("Zero"), RWF_DT_UINT);
    rwf_enc_blank(e);
    memset(&v, 0, sizeof(v));
    v.type = RWF_DT_REAL;
    v.real = (rwf_real){25, RWF_RH_EXPONENT_1, 0};
    rwf_enc_el_value(e, RWF_STR("Price"), &v);
    v.type = RWF_DT_ENUM;
    v.enm = 3;
    rwf_enc_el_value(e, RWF_STR("Enum"), &v);
    rwf_enc_el_buf(e, RWF_STR("Rmtes"), RWF_DT_RMTES_STRING, RWF_STR("x\xDEy"));
    rwf_enc_el_buf(e, RWF_STR("Utf8"), RWF_DT_UTF8_STRING, RWF_STR("\xE2\x82\xAC"));
    rwf_enc_el_buf(e, RWF_STR("Buf"), RWF_DT_BUFFER, RWF_STR("abcd"));
    rwf_enc_el_entry(e, RWF_STR("Names"), RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_ASCII_STRING, 0);
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, RWF_STR("RWFFld"));
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, RWF_STR("RWFEnum"));
    rwf_enc_array_end(e);
    rwf_enc_el_entry(e, RWF_STR("Fixed"), RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_INT, 2);
    rwf_enc_int(e, -2);
    rwf_enc_int(e, 300);
    rwf_enc_array_end(e);
    rwf_enc_el_entry(e, RWF_STR("None"), RWF_DT_NO_DATA);
    rwf_enc_el_entry(e, RWF_STR("Inner"), RWF_DT_ELEMENT_LIST);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_buf(e, RWF_STR("k\"ey"), RWF_DT_ASCII_STRING, RWF_STR("v"));
    rwf_enc_el_end(e);
}

static void test_element_types(void **state)
{
    (void)state;
    size_t n = generic_with(fill_elements);
    /* Not byte for byte: a fixed-length array comes back variable-length (JSON has no
     * "Length" from the writer), and RMTES text comes back as its UTF-8 bytes. */
    roundtrip(conv, rwf1, n,
              "{\"ID\":9,\"Type\":\"Generic\",\"Elements\":{\"Name\":\"DIRECT_FEED\",\"Open\":1,"
              "\"Neg\":{\"Type\":\"Int\",\"Data\":-5},"
              "\"Empty\":{\"Type\":\"AsciiString\",\"Data\":null},"
              "\"Zero\":{\"Type\":\"UInt\",\"Data\":null},"
              "\"Price\":{\"Type\":\"Real\",\"Data\":2.5},\"Enum\":{\"Type\":\"Enum\",\"Data\":3},"
              "\"Rmtes\":{\"Type\":\"RmtesString\",\"Data\":\"x\xE2\x87\xA7y\"},"
              "\"Utf8\":{\"Type\":\"Utf8String\",\"Data\":\"\xE2\x82\xAC\"},"
              "\"Buf\":{\"Type\":\"Buffer\",\"Data\":\"YWJjZA==\"},"
              "\"Names\":{\"Type\":\"Array\",\"Data\":{\"Type\":\"AsciiString\","
              "\"Data\":[\"RWFFld\",\"RWFEnum\"]}},"
              "\"Fixed\":{\"Type\":\"Array\",\"Data\":{\"Type\":\"Int\",\"Data\":[-2,300]}},"
              "\"None\":{\"Type\":\"NoData\",\"Data\":null},"
              "\"Inner\":{\"Type\":\"ElementList\",\"Data\":{\"k\\\"ey\":\"v\"}}}}",
              0);
}

/* A refresh on stream 5 of domain whose payload (type ctype) is written by fill. */
static size_t refresh_with(int domain, int ctype, void (*fill)(rwf_enc *e))
{
    rwf_msg m;
    rwf_enc e;
    size_t len = 0;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = (uint8_t)domain;
    m.stream_id = 5;
    m.flags = RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_CLEAR_CACHE;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.container_type = (uint8_t)ctype;
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    rwf_enc_msg_begin(&e, &m);
    fill(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static void fill_map(rwf_enc *e)
{
    rwf_map_hdr h;
    memset(&h, 0, sizeof(h));
    h.flags = RWF_MPF_HAS_SUMMARY_DATA | RWF_MPF_HAS_TOTAL_COUNT_HINT | RWF_MPF_HAS_KEY_FIELD_ID;
    h.key_type = RWF_DT_ASCII_STRING;
    h.ctype = RWF_DT_FIELD_LIST;
    h.key_fid = 3426;
    h.total_count_hint = 2;
    rwf_enc_map_begin(e, &h);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_enum(e, 15, 840);
    rwf_enc_fl_end(e);
    rwf_buf perm = RWF_STR("\x03\x01");
    rwf_value key = {.type = RWF_DT_ASCII_STRING};
    key.buf = RWF_STR("A1");
    rwf_enc_map_entry(e, RWF_MPEA_ADD_ENTRY, &perm, &key);
    rwf_enc_fl_begin_std(e);
    rwf_real p = {1325, RWF_RH_EXPONENT_2, 0};
    rwf_enc_fl_real(e, 3427, &p);
    rwf_enc_fl_end(e);
    key.buf = RWF_STR("B2");
    rwf_enc_map_entry(e, RWF_MPEA_UPDATE_ENTRY, NULL, &key);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_end(e);
    key.buf = RWF_STR("C3");
    rwf_enc_map_entry(e, RWF_MPEA_DELETE_ENTRY, NULL, &key);
    rwf_enc_map_end(e);
}

static void test_map(void **state)
{
    (void)state;
    size_t n = refresh_with(RWF_DMT_MARKET_BY_ORDER, RWF_DT_MAP, fill_map);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Refresh\",\"Domain\":\"MarketByOrder\",\"State\":{\"Stream\":"
              "\"Open\",\"Data\":\"Ok\"},\"Map\":{\"KeyType\":\"AsciiString\",\"Summary\":{"
              "\"Fields\":{\"CURRENCY\":840}},\"CountHint\":2,\"KeyFieldID\":3426,\"Entries\":["
              "{\"Action\":\"Add\",\"Key\":\"A1\",\"PermData\":\"AwE=\",\"Fields\":{"
              "\"ORDER_PRC\":13.25}},{\"Action\":\"Update\",\"Key\":\"B2\",\"Fields\":{}},"
              "{\"Action\":\"Delete\",\"Key\":\"C3\"}]}}",
              1);
}

static void fill_int_map(rwf_enc *e)
{
    rwf_map_hdr h;
    memset(&h, 0, sizeof(h));
    h.key_type = RWF_DT_INT;
    h.ctype = RWF_DT_ELEMENT_LIST;
    rwf_enc_map_begin(e, &h);
    rwf_value key = {.type = RWF_DT_INT, .i = -7};
    rwf_enc_map_entry(e, RWF_MPEA_ADD_ENTRY, NULL, &key);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, RWF_STR("x"), 1);
    rwf_enc_el_end(e);
    key.i = 0;
    rwf_enc_map_entry(e, RWF_MPEA_ADD_ENTRY, NULL, &key);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_end(e);
    rwf_enc_map_end(e);
}

static void test_map_int_keys(void **state)
{
    (void)state;
    size_t n = refresh_with(RWF_DMT_SYMBOL_LIST, RWF_DT_MAP, fill_int_map);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Refresh\",\"Domain\":\"SymbolList\",\"State\":{\"Stream\":"
              "\"Open\",\"Data\":\"Ok\"},\"Map\":{\"KeyType\":\"Int\",\"Entries\":[{\"Action\":"
              "\"Add\",\"Key\":-7,\"Elements\":{\"x\":1}},{\"Action\":\"Add\",\"Key\":0,"
              "\"Elements\":{}}]}}",
              1);
}

static void fill_series_vector(rwf_enc *e)
{
    rwf_series_hdr s;
    memset(&s, 0, sizeof(s));
    s.flags = RWF_SRF_HAS_SUMMARY_DATA | RWF_SRF_HAS_TOTAL_COUNT_HINT;
    s.ctype = RWF_DT_ELEMENT_LIST;
    s.total_count_hint = 9;
    rwf_enc_series_begin(e, &s);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, RWF_STR("Type"), 1);
    rwf_enc_el_end(e);
    for (int i = 0; i < 2; i++) {
        rwf_enc_series_entry(e);
        rwf_enc_el_begin_std(e);
        rwf_enc_el_buf(e, RWF_STR("NAME"), RWF_DT_ASCII_STRING,
                       i ? RWF_STR("ASK") : RWF_STR("BID"));
        rwf_enc_el_end(e);
    }
    rwf_enc_series_end(e);
}

static void test_series(void **state)
{
    (void)state;
    size_t n = refresh_with(RWF_DMT_DICTIONARY, RWF_DT_SERIES, fill_series_vector);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Refresh\",\"Domain\":\"Dictionary\",\"State\":{\"Stream\":"
              "\"Open\",\"Data\":\"Ok\"},\"Series\":{\"Summary\":{\"Elements\":{\"Type\":1}},"
              "\"CountHint\":9,\"Entries\":[{\"Elements\":{\"NAME\":\"BID\"}},{\"Elements\":{"
              "\"NAME\":\"ASK\"}}]}}",
              1);
}

static void fill_vector(rwf_enc *e)
{
    rwf_vector_hdr v;
    memset(&v, 0, sizeof(v));
    v.flags = RWF_VTF_HAS_SUMMARY_DATA | RWF_VTF_HAS_TOTAL_COUNT_HINT | RWF_VTF_SUPPORTS_SORTING |
              RWF_VTF_HAS_PER_ENTRY_PERM_DATA;
    v.ctype = RWF_DT_FIELD_LIST;
    v.total_count_hint = 3;
    rwf_enc_vector_begin(e, &v);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_uint(e, 1, 1);
    rwf_enc_fl_end(e);
    rwf_buf perm = RWF_STR("P");
    rwf_enc_vector_entry(e, RWF_VTEA_INSERT_ENTRY, 1, &perm);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_uint(e, 1, 2);
    rwf_enc_fl_end(e);
    rwf_enc_vector_entry(e, RWF_VTEA_DELETE_ENTRY, 2, NULL);
    rwf_enc_vector_end(e);
}

static void test_vector(void **state)
{
    (void)state;
    size_t n = refresh_with(RWF_DMT_MARKET_PRICE, RWF_DT_VECTOR, fill_vector);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Refresh\",\"State\":{\"Stream\":\"Open\",\"Data\":\"Ok\"},"
              "\"Vector\":{\"Summary\":{\"Fields\":{\"PROD_PERM\":1}},\"CountHint\":3,"
              "\"SupportSorting\":true,\"Entries\":[{\"Index\":1,\"Action\":\"Insert\","
              "\"PermData\":\"UA==\",\"Fields\":{\"PROD_PERM\":2}},{\"Index\":2,\"Action\":"
              "\"Delete\"}]}}",
              0);
}

static void fill_filter(rwf_enc *e)
{
    rwf_filter_hdr h = {RWF_FTF_HAS_TOTAL_COUNT_HINT, RWF_DT_ELEMENT_LIST, 3};
    rwf_enc_filter_begin(e, &h);
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, 1, 0, NULL);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, RWF_STR("ServiceState"), 1);
    rwf_enc_el_end(e);
    rwf_enc_filter_entry(e, RWF_FTEA_UPDATE_ENTRY, 3, RWF_DT_FIELD_LIST, NULL);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_uint(e, 1, 2);
    rwf_enc_fl_end(e);
    rwf_enc_filter_entry(e, RWF_FTEA_CLEAR_ENTRY, 4, 0, NULL);
    rwf_enc_filter_end(e);
}

static void test_filter_list(void **state)
{
    (void)state;
    size_t n = refresh_with(RWF_DMT_SOURCE, RWF_DT_FILTER_LIST, fill_filter);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Refresh\",\"Domain\":\"Source\",\"State\":{\"Stream\":\"Open\","
              "\"Data\":\"Ok\"},\"FilterList\":{\"CountHint\":3,\"Entries\":[{\"ID\":1,\"Action\":"
              "\"Set\",\"Elements\":{\"ServiceState\":1}},{\"ID\":3,\"Action\":\"Update\","
              "\"Fields\":{\"PROD_PERM\":2}},{\"ID\":4,\"Action\":\"Clear\",\"Elements\":{}}]}}",
              1);
}

/* MarketByOrder as the tools send it (the example of data/MsgData.xml): a map keyed by
 * ORDER_ID (RMTES) with set definitions, set data and summary data holding the stamps. */
static const char MBO_XML[] =
    "<?xml version=\"1.0\"?><msgFormat><marketByOrderMsgList><refreshMsg><dataBody><map>"
    "<fieldSetDefs><fieldSetDef setId=\"0\">"
    "<fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
    "<fieldSetDefEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\"/>"
    "<fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_4\"/>"
    "</fieldSetDef></fieldSetDefs>"
    "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"100\"><fieldList setId=\"0\">"
    "<fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"13.25\"/>"
    "<fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"500\"/>"
    "<fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"57132000\"/>"
    "<fieldEntry fieldId=\"212\" dataType=\"RSSL_DT_RMTES_STRING\" data=\"MM1\"/>"
    "<fieldEntry fieldId=\"3428\" dataType=\"RSSL_DT_ENUM\" data=\"1\"/>"
    "</fieldList></mapEntry></map></dataBody></refreshMsg>"
    "<updateMsg><dataBody><map><mapEntry action=\"RSSL_MPEA_UPDATE_ENTRY\" key=\"100\">"
    "<fieldList><fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"400\"/>"
    "</fieldList></mapEntry></map></dataBody></updateMsg>"
    "</marketByOrderMsgList></msgFormat>";

static void test_market_by_order(void **state)
{
    (void)state;
    msgdata md;
    if (msgdata_parse(&md, "mbo.xml", MBO_XML, strlen(MBO_XML), dict) != 0)
        fail_msg("MsgData: %s", err_msg());
    assert_true(md.mbo.present);
    const msgdata_msg *msgs[] = {&md.mbo.refresh, &md.mbo.updates[0]};
    int kinds[] = {MSGDATA_REFRESH, MSGDATA_UPDATE};
    static const char *const want[] = {
        "{\"ID\":5,\"Type\":\"Refresh\",\"Domain\":\"MarketByOrder\",\"State\":{\"Stream\":"
        "\"Open\",\"Data\":\"Ok\"},\"Map\":{\"KeyType\":\"RmtesString\",\"Summary\":{"
        "\"Fields\":{\"TIM_TRK_1\":null,\"TIM_TRK_2\":null,\"TIM_TRK_3\":null}},"
        "\"KeyFieldID\":3426,\"Entries\":[{\"Action\":\"Add\",\"Key\":\"100\",\"Fields\":{"
        "\"ORDER_PRC\":13.25,\"ORDER_SIZE\":500,\"QUOTIM_MS\":57132000,\"MKT_MKR_ID\":"
        "\"MM1\",\"ORDER_SIDE\":1}}]}}",
        "{\"ID\":5,\"Type\":\"Update\",\"Domain\":\"MarketByOrder\",\"UpdateType\":"
        "\"Unspecified\",\"Map\":{\"KeyType\":\"RmtesString\",\"Summary\":{\"Fields\":{"
        "\"TIM_TRK_1\":123456}},\"KeyFieldID\":3426,\"Entries\":[{\"Action\":\"Update\","
        "\"Key\":\"100\",\"Fields\":{\"ORDER_SIZE\":400}}]}}",
    };
    for (int i = 0; i < 2; i++) {
        rwf_msg m;
        rwf_enc e;
        size_t len = 0;
        uint64_t stamp = 123456;
        memset(&m, 0, sizeof(m));
        m.msg_class = i ? RWF_MC_UPDATE : RWF_MC_REFRESH;
        m.domain = RWF_DMT_MARKET_BY_ORDER;
        m.stream_id = 5;
        m.container_type = RWF_DT_MAP;
        m.flags = i ? 0 : RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_SOLICITED | RWF_RFMF_CLEAR_CACHE;
        m.state.stream_state = RWF_STREAM_OPEN;
        m.state.data_state = RWF_DATA_OK;
        rwf_enc_init(&e, rwf1, sizeof(rwf1));
        rwf_enc_msg_begin(&e, &m);
        msgdata_encode(&e, msgs[i], kinds[i], i ? &stamp : NULL);
        rwf_enc_msg_end(&e);
        assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
        /* not byte for byte: set data comes back as standard data */
        roundtrip(conv, rwf1, len, want[i], i == 1);
    }
    msgdata_free(&md);
}

/* Set definitions that give a field another type than the dictionary's (ORDER_PRC, a REAL, as
 * UInt4): no JSON form, since the JSON reader takes the dictionary's type; the error names the
 * field. */
static void fill_set_mismatch(rwf_enc *e)
{
    static const rwf_set_entry ents[] = {{{NULL, 0}, 3427, RWF_DT_UINT_4}};
    static rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_FIELD_LIST);
    assert_int_equal(rwf_set_db_add(&db, 0, ents, 1), RWF_OK);
    rwf_map_hdr h;
    memset(&h, 0, sizeof(h));
    h.flags = RWF_MPF_HAS_SET_DEFS;
    h.key_type = RWF_DT_UINT;
    h.ctype = RWF_DT_FIELD_LIST;
    rwf_fl_hdr fh;
    memset(&fh, 0, sizeof(fh));
    fh.flags = RWF_FLF_HAS_SET_DATA;
    rwf_enc_map_begin(e, &h);
    rwf_enc_set_db(e, &db);
    rwf_enc_map_entry_uint(e, RWF_MPEA_ADD_ENTRY, 100);
    rwf_enc_fl_begin(e, &fh, &db);
    rwf_enc_fl_uint(e, 3427, 13);
    rwf_enc_fl_end(e);
    rwf_enc_map_end(e);
}

static void test_set_type_against_dictionary(void **state)
{
    (void)state;
    rwf_msg m;
    rwf_enc e;
    size_t len = 0, jl = 0;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_UPDATE;
    m.domain = RWF_DMT_MARKET_BY_ORDER;
    m.stream_id = 5;
    m.container_type = RWF_DT_MAP;
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    rwf_enc_msg_begin(&e, &m);
    fill_set_mismatch(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    assert_int_equal(rjs_msg_to_json(conv, rwf_buf_make(rwf1, len), json, sizeof(json), &jl),
                     RWF_E_UNSUPPORTED);
    assert_non_null(strstr(err_msg(), "ORDER_PRC (3427): set-defined type"));
    assert_int_equal(jl, 0);
}

static int enc_dict_part(rwf_enc *e, const rwf_dict_refresh *r, int32_t *next)
{
    return rwf_rdm_dictionary_refresh(e, r, dict, next);
}

/* The dictionary refresh (a series of set-defined element lists) through JSON rebuilds the
 * same dictionary. */
static void test_dictionary_refresh(void **state)
{
    (void)state;
    static const char *const names[] = {"RWFFld", "RWFEnum"};
    for (int d = 0; d < 2; d++) {
        rwf_dict *copy = rwf_dict_new();
        rwf_dict_refresh r = {3 + d,
                              rwf_buf_cstr(names[d]),
                              RWF_DICT_NORMAL,
                              1,
                              1,
                              d ? RWF_DICT_ENUM_TABLES : RWF_DICT_FIELD_DEFINITIONS};
        int32_t next = 0;
        int type = 0, rc;
        do {
            rwf_enc e;
            size_t len;
            rwf_enc_init(&e, rwf1, 6000);
            rc = enc_dict_part(&e, &r, &next);
            assert_true(rc == RWF_OK || rc == RWF_PART_MORE);
            assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
            size_t n = to_json(conv, rwf1, len);
            size_t m = to_rwf(conv, json, n, rwf2, sizeof(rwf2));
            rwf_msg msg;
            assert_int_equal(rwf_msg_decode(&msg, rwf_buf_make(rwf2, m)), RWF_OK);
            if (rwf_rdm_dictionary_apply(copy, &msg, &type) != RWF_OK)
                fail_msg("apply: %s", err_msg());
        } while (rc == RWF_PART_MORE);
        if (d == 0) {
            assert_int_equal(copy->field_count, dict->field_count);
        } else {
            assert_int_equal(copy->table_count, dict->table_count);
        }
        rwf_dict_free(copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_values),
        cmocka_unit_test(test_field_blanks),
        cmocka_unit_test(test_times_dates),
        cmocka_unit_test(test_container_fields),
        cmocka_unit_test(test_element_types),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_map_int_keys),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_filter_list),
        cmocka_unit_test(test_market_by_order),
        cmocka_unit_test(test_set_type_against_dictionary),
        cmocka_unit_test(test_dictionary_refresh),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
