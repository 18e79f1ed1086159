/*
 * RWF <-> JSON of every message class with the header members the JSON form carries: requests
 * (streaming or not, priority, QoS range, private, paused, view, batch), refreshes (every
 * flag, state with code and text, request key, post user info), status messages (login and
 * item closes, rejects with their NUL), updates (every flag, conflation info), closes (single
 * and batch), acks and NAKs, generic messages with keys and sequence numbers, posts on and off
 * stream. Then the JSON side: defaults of the format (no "Type" is a Request, MarketPrice the
 * domain...), members in any order, service names, pings, pongs and error messages, frames of
 * several messages, and the batch array helpers. Last, the one flags rule: an empty optional
 * member drops its flag alike in the RWF and the JSON form.
 */
#include "rjs_test.h"

static int svc_id(void *ctx, rwf_buf name, uint16_t *id)
{
    (void)ctx;
    if (!rwf_buf_eq(name, RWF_STR("DIRECT_FEED")))
        return -1;
    *id = 1;
    return 0;
}

static rjs_conv *conv_svc;

static int setup(void **state)
{
    (void)state;
    if (!(dict = load_dict()) || make_convs() < 0)
        return -1;
    rjs_opts o = {.service_id = svc_id};
    conv_svc = rjs_conv_new(dict, &o);
    return conv_svc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rjs_conv_free(conv_svc);
    free_all();
    return 0;
}

/* Encodes m (payload from fill when not NULL) into rwf1; returns the length. */
static size_t encode(const rwf_msg *m, void (*fill)(rwf_enc *))
{
    rwf_enc e;
    size_t len = 0;
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    rwf_enc_msg_begin(&e, m);
    if (fill)
        fill(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static rwf_msg msg(int cls, int domain, int32_t sid)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = (uint8_t)cls;
    m.domain = (uint8_t)domain;
    m.stream_id = sid;
    m.container_type = RWF_DT_NO_DATA;
    return m;
}

static void ric_key(rwf_key *k, const char *name)
{
    k->flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_NAME_TYPE;
    k->service_id = 1;
    k->name_type = 1;
    k->name = rwf_buf_cstr(name);
}

static void fill_fields(rwf_enc *e)
{
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_uint(e, 1, 7);
    rwf_enc_fl_end(e);
}

static void test_requests(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, 5);
    ric_key(&m.key, "RDT0");
    m.flags = RWF_RQMF_STREAMING | RWF_RQMF_MSG_KEY_IN_UPDATES;
    roundtrip(conv, rwf1, encode(&m, NULL),
              "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"}}", 1);

    m.flags = RWF_RQMF_HAS_PRIORITY | RWF_RQMF_CONF_INFO_IN_UPDATES | RWF_RQMF_NO_REFRESH |
              RWF_RQMF_HAS_QOS | RWF_RQMF_HAS_WORST_QOS | RWF_RQMF_PRIVATE_STREAM |
              RWF_RQMF_QUALIFIED_STREAM | RWF_RQMF_PAUSE | RWF_RQMF_HAS_EXTENDED_HEADER;
    m.priority_class = 2;
    m.priority_count = 3;
    m.qos = (rwf_qos){RWF_QOS_TIME_REALTIME, RWF_QOS_RATE_TICK_BY_TICK, 1, 0, 0};
    m.worst_qos = (rwf_qos){RWF_QOS_TIME_DELAYED_UNKNOWN, RWF_QOS_RATE_JIT_CONFLATED, 0, 0, 0};
    m.ext_header = RWF_STR("hdr");
    m.domain = RWF_DMT_MARKET_BY_ORDER;
    m.key.name_type = 2;
    roundtrip(conv, rwf1, encode(&m, NULL),
              "{\"ID\":5,\"Type\":\"Request\",\"Domain\":\"MarketByOrder\",\"Streaming\":false,"
              "\"Priority\":{\"Class\":2,\"Count\":3},\"KeyInUpdates\":false,"
              "\"ConfInfoInUpdates\":true,\"Refresh\":false,\"Qos\":{\"Timeliness\":\"Realtime\","
              "\"Rate\":\"TickByTick\",\"Dynamic\":true},\"WorstQos\":{\"Timeliness\":"
              "\"DelayedUnknown\",\"Rate\":\"JitConflated\"},\"Private\":true,\"Qualified\":true,"
              "\"Pause\":true,\"ExtHdr\":\"aGRy\",\"Key\":{\"Service\":1,\"NameType\":"
              "\"Contributor\",\"Name\":\"RDT0\"}}",
              1);
}

static void fill_view_batch(rwf_enc *e)
{
    rwf_enc_el_begin_std(e);
    rwf_enc_el_entry(e, RWF_STR(":ItemList"), RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_ASCII_STRING, 0);
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, RWF_STR("RDT0"));
    rwf_enc_buf(e, RWF_DT_ASCII_STRING, RWF_STR("RDT1"));
    rwf_enc_array_end(e);
    rwf_enc_el_uint(e, RWF_STR(":ViewType"), 1);
    rwf_enc_el_entry(e, RWF_STR(":ViewData"), RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_INT, 0);
    rwf_enc_int(e, 22);
    rwf_enc_int(e, 25);
    rwf_enc_array_end(e);
    rwf_enc_el_end(e);
}

static void test_batch_view(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, 5);
    m.key.flags = RWF_MKF_HAS_SERVICE_ID;
    m.key.service_id = 1;
    m.flags =
        RWF_RQMF_STREAMING | RWF_RQMF_MSG_KEY_IN_UPDATES | RWF_RQMF_HAS_BATCH | RWF_RQMF_HAS_VIEW;
    m.container_type = RWF_DT_ELEMENT_LIST;
    roundtrip(conv, rwf1, encode(&m, fill_view_batch),
              "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Service\":1,\"Name\":[\"RDT0\",\"RDT1\"]},"
              "\"View\":[22,25]}",
              0);
    /* The view by field names, as JSON users write it, gives the same field ids. */
    const char *text = "{\"ID\":5,\"Key\":{\"Name\":\"RDT0\"},\"View\":[\"BID\",\"ASK\"]}";
    size_t n = to_rwf(conv, text, strlen(text), rwf2, sizeof(rwf2));
    to_json(conv, rwf2, n);
    assert_string_equal(json, "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Name\":\"RDT0\"},"
                              "\"View\":[22,25]}");
}

static void test_refreshes(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_REFRESH, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_HAS_REQ_MSG_KEY | RWF_RFMF_HAS_EXTENDED_HEADER |
              RWF_RFMF_HAS_QOS | RWF_RFMF_DO_NOT_CACHE | RWF_RFMF_PRIVATE_STREAM |
              RWF_RFMF_QUALIFIED_STREAM | RWF_RFMF_HAS_POST_USER_INFO | RWF_RFMF_HAS_PART_NUM |
              RWF_RFMF_HAS_PERM_DATA | RWF_RFMF_HAS_SEQ_NUM;
    ric_key(&m.key, "RDT0");
    ric_key(&m.req_key, "RDT0");
    m.state =
        (rwf_state){RWF_STREAM_OPEN, RWF_DATA_SUSPECT, RWF_SC_GAP_DETECTED, RWF_STR("a \"gap\"")};
    m.qos = (rwf_qos){RWF_QOS_TIME_DELAYED, RWF_QOS_RATE_TIME_CONFLATED, 0, 300, 1000};
    m.ext_header = RWF_STR("x");
    m.perm_data = RWF_STR("\x03\x01\x2C\x56");
    m.post_user_addr = 0x0A000102;
    m.post_user_id = 77;
    m.part_num = 3;
    m.seq_num = 99;
    m.container_type = RWF_DT_FIELD_LIST;
    roundtrip(conv, rwf1, encode(&m, fill_fields),
              "{\"ID\":5,\"Type\":\"Refresh\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"},"
              "\"State\":{\"Stream\":\"Open\",\"Data\":\"Suspect\",\"Code\":\"GapDetected\","
              "\"Text\":\"a \\\"gap\\\"\"},\"ReqKey\":{\"Service\":1,\"Name\":\"RDT0\"},"
              "\"ExtHdr\":\"eA==\",\"Complete\":false,\"Qos\":{\"Timeliness\":\"Delayed\","
              "\"Rate\":\"TimeConflated\",\"TimeInfo\":300,\"RateInfo\":1000},"
              "\"ClearCache\":false,\"DoNotCache\":true,\"Private\":true,\"Qualified\":true,"
              "\"PostUserInfo\":{\"Address\":\"10.0.1.2\",\"UserID\":77},\"PartNumber\":3,"
              "\"PermData\":\"AwEsVg==\",\"SeqNumber\":99,\"Solicited\":false,"
              "\"Fields\":{\"PROD_PERM\":7}}",
              1);
}

static void test_status_close(void **state)
{
    (void)state;
    rwf_enc e;
    size_t n;
    /* ProvPerf's reject: the text goes with its trailing NUL. */
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    assert_int_equal(rwf_rdm_item_reject(&e, 5, RWF_DMT_MARKET_PRICE, RWF_REJECT_SERVICE_ID),
                     RWF_OK);
    assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
    roundtrip(conv, rwf1, n,
              "{\"ID\":5,\"Type\":\"Status\",\"State\":{\"Stream\":\"Closed\",\"Data\":\"Suspect\","
              "\"Code\":\"UsageError\",\"Text\":\"Item request rejected for stream id 5 - service "
              "id invalid\\u0000\"}}",
              1);
    rwf_enc_init(&e, rwf1, sizeof(rwf1));
    assert_int_equal(rwf_rdm_item_close_status(&e, 6, RWF_DMT_MARKET_BY_ORDER), RWF_OK);
    assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
    roundtrip(conv, rwf1, n, NULL, 1);

    /* A login status, a login close, an item close with Ack, a batch close. */
    rwf_msg m = msg(RWF_MC_STATUS, RWF_DMT_LOGIN, 1);
    m.flags = RWF_STMF_HAS_STATE | RWF_STMF_CLEAR_CACHE | RWF_STMF_PRIVATE_STREAM;
    m.state = (rwf_state){RWF_STREAM_CLOSED_RECOVER, RWF_DATA_SUSPECT, 0, RWF_STR("")};
    roundtrip(conv, rwf1, encode(&m, NULL),
              "{\"ID\":1,\"Type\":\"Status\",\"Domain\":\"Login\",\"State\":{\"Stream\":"
              "\"ClosedRecover\",\"Data\":\"Suspect\"},\"ClearCache\":true,\"Private\":true}",
              1);
    m = msg(RWF_MC_CLOSE, RWF_DMT_LOGIN, 1);
    roundtrip(conv, rwf1, encode(&m, NULL), "{\"ID\":1,\"Type\":\"Close\",\"Domain\":\"Login\"}",
              1);
    m = msg(RWF_MC_CLOSE, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_CLMF_ACK;
    roundtrip(conv, rwf1, encode(&m, NULL), "{\"ID\":5,\"Type\":\"Close\",\"Ack\":true}", 1);
    const char *batch = "{\"ID\":[5,6,7],\"Type\":\"Close\"}";
    n = to_rwf(conv, batch, strlen(batch), rwf2, sizeof(rwf2));
    rwf_msg d;
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(rwf2, n)), RWF_OK);
    assert_int_equal(d.stream_id, 5);
    assert_true(d.flags & RWF_CLMF_HAS_BATCH);
    roundtrip(conv, rwf2, n, batch, 1);
}

static void test_updates(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 5);
    m.update_type = 2;
    m.flags = RWF_UPMF_DO_NOT_CONFLATE | RWF_UPMF_DO_NOT_RIPPLE | RWF_UPMF_DISCARDABLE |
              RWF_UPMF_DO_NOT_CACHE | RWF_UPMF_HAS_MSG_KEY | RWF_UPMF_HAS_POST_USER_INFO |
              RWF_UPMF_HAS_PERM_DATA | RWF_UPMF_HAS_SEQ_NUM | RWF_UPMF_HAS_CONF_INFO |
              RWF_UPMF_HAS_EXTENDED_HEADER;
    ric_key(&m.key, "RDT0");
    m.post_user_addr = 0x7F000001;
    m.post_user_id = 1;
    m.perm_data = RWF_STR("p");
    m.seq_num = 12;
    m.conf_count = 4;
    m.conf_time = 100;
    m.ext_header = RWF_STR("ee");
    m.container_type = RWF_DT_FIELD_LIST;
    roundtrip(conv, rwf1, encode(&m, fill_fields),
              "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Trade\",\"DoNotConflate\":true,"
              "\"DoNotRipple\":true,\"Discardable\":true,\"DoNotCache\":true,\"Key\":{"
              "\"Service\":1,\"Name\":\"RDT0\"},\"PostUserInfo\":{\"Address\":\"127.0.0.1\","
              "\"UserID\":1},\"PermData\":\"cA==\",\"SeqNumber\":12,\"ConflationInfo\":{"
              "\"Count\":4,\"Time\":100},\"ExtHdr\":\"ZWU=\",\"Fields\":{\"PROD_PERM\":7}}",
              1);
}

static void test_acks_generics_posts(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_ACK, RWF_DMT_MARKET_PRICE, 5);
    m.ack_id = 7;
    m.flags = RWF_AKMF_HAS_NAK_CODE | RWF_AKMF_HAS_TEXT | RWF_AKMF_HAS_SEQ_NUM;
    m.nak_code = 10;
    m.text = RWF_STR("no such item");
    m.seq_num = 3;
    roundtrip(conv, rwf1, encode(&m, NULL),
              "{\"ID\":5,\"Type\":\"Ack\",\"AckID\":7,\"NakCode\":\"SymbolUnknown\",\"Text\":"
              "\"no such item\",\"SeqNumber\":3}",
              1);

    m = msg(RWF_MC_GENERIC, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_GNMF_MESSAGE_COMPLETE | RWF_GNMF_HAS_MSG_KEY | RWF_GNMF_HAS_SEQ_NUM |
              RWF_GNMF_HAS_SECONDARY_SEQ_NUM | RWF_GNMF_HAS_PART_NUM;
    ric_key(&m.key, "RDT0");
    m.seq_num = 1;
    m.secondary_seq_num = 2;
    m.part_num = 0;
    m.container_type = RWF_DT_FIELD_LIST;
    roundtrip(conv, rwf1, encode(&m, fill_fields),
              "{\"ID\":5,\"Type\":\"Generic\",\"Key\":{\"Service\":1,\"Name\":\"RDT0\"},"
              "\"SeqNumber\":1,\"SecSeqNumber\":2,\"PartNumber\":0,\"Fields\":{\"PROD_PERM\":7}}",
              1);

    /* Off-stream post: on the login stream, the item named in its key; Ack asked for. */
    m = msg(RWF_MC_POST, RWF_DMT_MARKET_PRICE, 1);
    m.flags = RWF_PSMF_HAS_MSG_KEY | RWF_PSMF_POST_COMPLETE | RWF_PSMF_ACK | RWF_PSMF_HAS_POST_ID |
              RWF_PSMF_HAS_POST_USER_RIGHTS;
    ric_key(&m.key, "RDT3");
    m.post_user_addr = 0x7F000001;
    m.post_user_id = 4321;
    m.post_id = 9;
    m.post_user_rights = 1;
    m.container_type = RWF_DT_FIELD_LIST;
    roundtrip(conv, rwf1, encode(&m, fill_fields),
              "{\"ID\":1,\"Type\":\"Post\",\"PostUserInfo\":{\"Address\":\"127.0.0.1\",\"UserID\":"
              "4321},\"PostID\":9,\"Key\":{\"Service\":1,\"Name\":\"RDT3\"},\"Ack\":true,"
              "\"PostUserRights\":1,\"Fields\":{\"PROD_PERM\":7}}",
              1);
}

/* The flags of m after RWF (decoded from the encoder's bytes) and after RWF -> JSON -> RWF
 * are both rwf_msg_flags(m), which is want. */
static void flags_agree(const rwf_msg *m, uint16_t want)
{
    assert_int_equal(rwf_msg_flags(m), want);
    size_t len = encode(m, NULL);
    rwf_msg d;
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(rwf1, len)), RWF_OK);
    assert_int_equal(d.flags, want);
    size_t n = to_json(conv, rwf1, len);
    size_t len2 = to_rwf(conv, json, n, rwf2, sizeof(rwf2));
    assert_int_equal(rwf_msg_decode(&d, rwf_buf_make(rwf2, len2)), RWF_OK);
    assert_int_equal(d.flags, want);
}

/* One flags rule for both forms: a flag whose member is empty is dropped by the RWF encoder
 * and by the JSON writer alike; with the member present, both keep it. */
static void test_flags_agree(void **state)
{
    (void)state;
    rwf_msg m = msg(RWF_MC_REFRESH, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_RFMF_HAS_PERM_DATA | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_CLEAR_CACHE |
              RWF_RFMF_SOLICITED;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    flags_agree(&m, (uint16_t)(m.flags & ~RWF_RFMF_HAS_PERM_DATA));
    m.perm_data = RWF_STR("p");
    flags_agree(&m, m.flags);

    m = msg(RWF_MC_STATUS, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_STMF_HAS_STATE | RWF_STMF_HAS_PERM_DATA | RWF_STMF_HAS_GROUP_ID;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_SUSPECT;
    flags_agree(&m, RWF_STMF_HAS_STATE);
    m.perm_data = RWF_STR("p");
    flags_agree(&m, RWF_STMF_HAS_STATE | RWF_STMF_HAS_PERM_DATA);

    m = msg(RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_UPMF_HAS_PERM_DATA | RWF_UPMF_HAS_CONF_INFO;
    flags_agree(&m, 0);
    m.conf_time = 100;
    flags_agree(&m, RWF_UPMF_HAS_CONF_INFO);

    m = msg(RWF_MC_GENERIC, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_GNMF_HAS_PERM_DATA | RWF_GNMF_MESSAGE_COMPLETE;
    flags_agree(&m, RWF_GNMF_MESSAGE_COMPLETE);

    m = msg(RWF_MC_POST, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_PSMF_HAS_PERM_DATA | RWF_PSMF_POST_COMPLETE;
    m.post_user_addr = 0x7F000001;
    m.post_user_id = 1;
    flags_agree(&m, RWF_PSMF_POST_COMPLETE);

    m = msg(RWF_MC_ACK, RWF_DMT_MARKET_PRICE, 5);
    m.flags = RWF_AKMF_HAS_NAK_CODE | RWF_AKMF_HAS_TEXT;
    m.ack_id = 7;
    flags_agree(&m, 0);
    m.nak_code = 10;
    flags_agree(&m, RWF_AKMF_HAS_NAK_CODE);
}

/* What JSON users leave out: the format's defaults. */
static void test_json_defaults(void **state)
{
    (void)state;
    static const char *const in[][2] = {
        {"{\"ID\":1,\"Domain\":\"Login\",\"Key\":{\"Name\":\"probe\"}}",
         "{\"ID\":1,\"Type\":\"Request\",\"Domain\":\"Login\",\"KeyInUpdates\":false,"
         "\"Key\":{\"Name\":\"probe\"}}"},
        {"{\"ID\":5,\"Key\":{\"Name\":\"RDT0\"}}",
         "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Name\":\"RDT0\"}}"},
        {"{\"ID\":5,\"Type\":\"Refresh\"}",
         "{\"ID\":5,\"Type\":\"Refresh\",\"State\":{\"Stream\":\"Open\",\"Data\":\"Ok\"}}"},
        {"{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"BID\":2.5,\"TIM_TRK_1\":1}}",
         "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"BID\":2.5,"
         "\"TIM_TRK_1\":1}}"},
        /* any member order; white space anywhere */
        {" {\"Fields\" : {\"BID\":1.5} , \"Type\":\"Generic\",\"ID\":6 } ",
         "{\"ID\":6,\"Type\":\"Generic\",\"Fields\":{\"BID\":1.5}}"},
        {"{\"ID\":5,\"Type\":\"Post\",\"Ack\":true,\"PostID\":7,\"PostUserInfo\":{\"Address\":"
         "\"127.0.0.1\",\"UserID\":42},\"Message\":{\"ID\":0,\"Type\":\"Update\",\"Fields\":{"
         "\"BID\":1.5,\"TIM_TRK_2\":1}}}",
         "{\"ID\":5,\"Type\":\"Post\",\"PostUserInfo\":{\"Address\":\"127.0.0.1\",\"UserID\":42},"
         "\"PostID\":7,\"Ack\":true,\"Message\":{\"ID\":0,\"Type\":\"Update\",\"UpdateType\":"
         "\"Unspecified\",\"Fields\":{\"BID\":1.5,\"TIM_TRK_2\":1}}}"},
        /* numbers for names; escapes in keys and strings */
        {"{\"ID\":5,\"Type\":4,\"Domain\":6,\"UpdateType\":1,\"Fields\":{\"\\u0042ID\":1}}",
         "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Quote\",\"Fields\":{\"BID\":1}}"},
        {"{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"PROV_SYMB\":\"a\\/b\\u00e9\\ud83d\\ude00\"}}",
         "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"PROV_SYMB\":"
         "\"a/b\xC3\xA9\xF0\x9F\x98\x80\"}}"},
        {"{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"BID\":1.5e2,\"ASK\":-2E-1,\"CURRENCY\":"
         "\"USD\","
         "\"PRCTCK_1\":\"\xE2\x87\xA7\",\"TRDTIM_MS\":0}}",
         "{\"ID\":5,\"Type\":\"Update\",\"UpdateType\":\"Unspecified\",\"Fields\":{\"BID\":150,"
         "\"ASK\":-0.2,\"CURRENCY\":840,\"PRCTCK_1\":1,\"TRDTIM_MS\":0}}"},
    };
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        size_t n = to_rwf(conv, in[i][0], strlen(in[i][0]), rwf2, sizeof(rwf2));
        to_json(conv, rwf2, n);
        if (strcmp(json, in[i][1]) != 0)
            fail_msg("%s\n  want %s\n  got  %s", in[i][0], in[i][1], json);
    }
    /* Service names through the converter's callback; unknown names are refused. */
    const char *req = "{\"ID\":5,\"Key\":{\"Name\":\"RDT0\",\"Service\":\"DIRECT_FEED\"}}";
    size_t n = to_rwf(conv_svc, req, strlen(req), rwf2, sizeof(rwf2));
    to_json(conv, rwf2, n);
    assert_string_equal(json, "{\"ID\":5,\"Type\":\"Request\",\"Key\":{\"Service\":1,\"Name\":"
                              "\"RDT0\"}}");
    const char *bad = "{\"ID\":5,\"Key\":{\"Name\":\"RDT0\",\"Service\":\"OTHER\"}}";
    assert_true(rjs_json_to_msg(conv_svc, bad, strlen(bad), rwf2, sizeof(rwf2), &n) < 0);
    assert_non_null(strstr(err_msg(), "service \"OTHER\" is not known"));
}

/* Frames: arrays of messages, pings, pongs, errors. */
static void test_frames(void **state)
{
    (void)state;
    const char *frame =
        "[{\"Type\":\"Ping\"},{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"BID\":1}},"
        "{\"Type\":\"Pong\"},{\"Type\":\"Error\",\"Text\":\"JSON parser error\","
        "\"Debug\":{\"File\":\"x\",\"Line\":1}},\n{\"ID\":6,\"Type\":\"Close\"}]";
    rjs_reader r;
    size_t n;
    int want[] = {RJS_PING, RJS_MSG, RJS_PONG, RJS_ERROR, RJS_MSG, RWF_END, RWF_END};
    rjs_reader_init(&r, frame, strlen(frame));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int rc = rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &n);
        if (rc != want[i])
            fail_msg("message %zu: %d (%s)", i, rc, err_msg());
        if (rc == RJS_ERROR)
            assert_true(rwf_buf_eq(r.text_view, RWF_STR("JSON parser error")));
        assert_true(rc == RJS_MSG ? n > 0 : n == 0);
    }
    /* One object, not in an array; an empty array. */
    rjs_reader_init(&r, RJS_PING_OBJ, strlen(RJS_PING_OBJ));
    assert_int_equal(rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &n), RJS_PING);
    assert_int_equal(rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &n), RWF_END);
    rjs_reader_init(&r, " [ ] ", 5);
    assert_int_equal(rjs_reader_next(conv, &r, rwf2, sizeof(rwf2), &n), RWF_END);

    /* The batch helpers build what the original packs: [{...},{...}]. */
    static char out[4096];
    rjs_batch b;
    rwf_msg m = msg(RWF_MC_CLOSE, RWF_DMT_MARKET_PRICE, 5);
    size_t len = encode(&m, NULL);
    assert_int_equal(rjs_batch_begin(&b, out, sizeof(out)), RWF_OK);
    assert_int_equal(rjs_batch_add(conv, &b, rwf_buf_make(rwf1, len)), RWF_OK);
    assert_int_equal(rjs_batch_add_text(&b, RJS_PONG_OBJ, strlen(RJS_PONG_OBJ)), RWF_OK);
    assert_int_equal(rjs_batch_add(conv, &b, rwf_buf_make(rwf1, len)), RWF_OK);
    assert_int_equal(rjs_batch_end(&b, &n), RWF_OK);
    assert_int_equal(b.count, 3);
    const char *want_text = "[{\"ID\":5,\"Type\":\"Close\"},{\"Type\":\"Pong\"},"
                            "{\"ID\":5,\"Type\":\"Close\"}]";
    assert_int_equal(n, strlen(want_text));
    assert_memory_equal(out, want_text, n);
    assert_string_equal(RJS_PING_FRAME, "[{\"Type\":\"Ping\"}]");
    assert_string_equal(RJS_PONG_FRAME, "[{\"Type\":\"Pong\"}]");

    /* A batch that runs out of room stays as it was: the caller sends it and starts another. */
    rjs_batch small;
    assert_int_equal(rjs_batch_begin(&small, out, 40), RWF_OK);
    assert_int_equal(rjs_batch_add(conv, &small, rwf_buf_make(rwf1, len)), RWF_OK);
    assert_int_equal(rjs_batch_add(conv, &small, rwf_buf_make(rwf1, len)), RWF_E_NOSPACE);
    assert_int_equal(rjs_batch_end(&small, &n), RWF_OK);
    assert_int_equal(n, strlen("[{\"ID\":5,\"Type\":\"Close\"}]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests),      cmocka_unit_test(test_batch_view),
        cmocka_unit_test(test_refreshes),     cmocka_unit_test(test_status_close),
        cmocka_unit_test(test_updates),       cmocka_unit_test(test_acks_generics_posts),
        cmocka_unit_test(test_json_defaults), cmocka_unit_test(test_frames),
        cmocka_unit_test(test_flags_agree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
