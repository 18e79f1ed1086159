/*
 * The RWF messages our tools build, converted to JSON, are the JSON the original tools put on
 * the wire (rjs_golden.h, frames copied from the captures): ConsPerf's login, directory and
 * item requests (streaming, private, snapshot), its posts and generic messages; ProvPerf's
 * login and directory refreshes, item refreshes, updates with and without latency stamps,
 * reflected posts and generic messages. Stamps and the post user id are the captured values.
 * And the other way: the captured JSON of an update, refresh, post and generic message
 * converts to RWF whose payload is byte for byte the payload our provider and consumer encode.
 *
 * Uses the project's data/ (dictionary and MsgData.xml); enums as numbers.
 */
#include "testsupport.h"

#include <stdio.h>
#include <string.h>

#include "msgdata.h"
#include "pv_admin.h"
#include "pv_msg.h"
#include "rjs.h"
#include "rjs_golden.h"

static rwf_dict *dict;
static rjs_conv *conv;
static msgdata md;

static char json[1 << 16];
static uint8_t buf[1 << 16], buf2[1 << 16];

#define POST_ADDR 0x7F000001u /* 127.0.0.1 */
#define POST_USER 19014u

static int setup(void **state)
{
    (void)state;
    char fld[1024];
    snprintf(fld, sizeof(fld), "%s", ts_source_path("data/RDMFieldDictionary"));
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, fld) != RWF_OK ||
        rwf_dict_load_enums(dict, ts_source_path("data/enumtype.def")) != RWF_OK ||
        msgdata_load(&md, ts_source_path("data/MsgData.xml"), dict) != 0) {
        fprintf(stderr, "data: %s\n", err_msg());
        return -1;
    }
    conv = rjs_conv_new(dict, NULL);
    return conv ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rjs_conv_free(conv);
    msgdata_free(&md);
    rwf_dict_free(dict);
    return 0;
}

/* RWF msg[0..len) converts to exactly golden. */
static void expect_json(const uint8_t *msg, size_t len, const char *golden)
{
    size_t n = 0;
    if (rjs_msg_to_json(conv, rwf_buf_make(msg, len), json, sizeof(json), &n) != RWF_OK)
        fail_msg("RWF -> JSON: %s", err_msg());
    size_t gn = strlen(golden), i = 0;
    while (i < n && i < gn && json[i] == golden[i])
        i++;
    if (n != gn || i != n)
        fail_msg("JSON differs at byte %zu\n  want %.*s\n  got  %.*s", i, (int)(gn - i), golden + i,
                 (int)(n - i), json + i);
}

/* The captured refreshes come from a run whose MsgData.xml refresh had 13 more fields (those of
 * the updates, "BID_COND_N" ... "ORDRECV_MS", between HSTCLBDDAT and the stamps) than the 70 of
 * data/MsgData.xml (and of the original's own MsgData.xml): golden with those fields cut out. */
static const char *trimmed_refresh(const char *golden)
{
    static char out[4096];
    const char *a = strstr(golden, ",\"BID_COND_N\":"), *b = strstr(golden, ",\"TIM_TRK_1\":");
    assert_non_null(a);
    assert_non_null(b);
    snprintf(out, sizeof(out), "%.*s%s", (int)(a - golden), golden, b);
    return out;
}

static pv_tmpl tmpl_of(const msgdata_msg *m)
{
    pv_tmpl t = {m->domain, m->entries, m->entries_len, m->count, m->set_defs, m->set_defs_len};
    return t;
}

static size_t encode_with(int (*fn)(rwf_enc *, const void *), const void *arg)
{
    rwf_enc e;
    size_t len = 0;
    rwf_enc_init(&e, buf, sizeof(buf));
    if (fn(&e, arg) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static int enc_login_req(rwf_enc *e, const void *arg)
{
    return rwf_rdm_login_request(e, arg);
}

static int enc_login_refresh(rwf_enc *e, const void *arg)
{
    return rwf_rdm_login_refresh(e, arg);
}

static int enc_dir_refresh(rwf_enc *e, const void *arg)
{
    return rwf_rdm_directory_refresh(e, arg);
}

static int enc_dir_req(rwf_enc *e, const void *arg)
{
    (void)arg;
    return rwf_rdm_directory_request(e, 2, RWF_DIR_INFO | RWF_DIR_STATE | RWF_DIR_GROUP, 0, 0);
}

static void test_consumer_admin(void **state)
{
    (void)state;
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l.user = RWF_STR("root");
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ConsPerf");
    l.position = RWF_STR("127.0.0.1/net");
    size_t n = encode_with(enc_login_req, &l);
    expect_json(buf, n, GOLDEN_LOGIN_REQUEST);
    n = encode_with(enc_dir_req, NULL);
    expect_json(buf, n, GOLDEN_DIRECTORY_REQUEST);
}

/* An item request as ConsPerf builds it. */
static size_t item_request(int streaming, int private_stream)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_MARKET_PRICE;
    m.container_type = RWF_DT_NO_DATA;
    m.stream_id = 5;
    m.flags = RWF_RQMF_HAS_QOS | (streaming ? RWF_RQMF_STREAMING : 0) |
              (private_stream ? RWF_RQMF_PRIVATE_STREAM : 0);
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = RWF_STR("RDT0");
    size_t len = 0;
    assert_int_equal(rwf_msg_encode(&m, buf, sizeof(buf), &len), RWF_OK);
    return len;
}

static void test_item_requests(void **state)
{
    (void)state;
    size_t n = item_request(1, 0);
    expect_json(buf, n, GOLDEN_ITEM_REQUEST);
    n = item_request(1, 1);
    expect_json(buf, n, GOLDEN_ITEM_REQUEST_PRIVATE);
    n = item_request(0, 0);
    expect_json(buf, n, GOLDEN_ITEM_REQUEST_SNAPSHOT);
}

static void test_provider_admin(void **state)
{
    (void)state;
    rwf_login r;
    memset(&r, 0, sizeof(r));
    r.stream_id = 1;
    r.user = RWF_STR("root");
    r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION |
              RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_HAS_SUPPORT_POST | RWF_LOGIN_SOLICITED;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    r.app_id = RWF_STR("256");
    r.app_name = RWF_STR("ProvPerf");
    r.position = RWF_STR("127.0.0.1/net");
    r.support_post = 1;
    size_t n = encode_with(enc_login_refresh, &r);
    expect_json(buf, n, GOLDEN_LOGIN_REFRESH);

    pv_feed feed;
    memset(&feed, 0, sizeof(feed));
    feed.dom[PV_DOM_MP].present = true;
    rwf_service svc;
    pv_admin_service(&svc, "DIRECT_FEED", 1, &feed, 1000000);
    rwf_directory d;
    memset(&d, 0, sizeof(d));
    d.stream_id = 2;
    d.filter = 7;
    d.solicited = 1;
    d.clear_cache = 1;
    d.state.stream_state = RWF_STREAM_OPEN;
    d.state.data_state = RWF_DATA_OK;
    d.services = &svc;
    d.service_count = 1;
    n = encode_with(enc_dir_refresh, &d);
    expect_json(buf, n, GOLDEN_DIRECTORY_REFRESH);
}

static void test_refreshes(void **state)
{
    (void)state;
    pv_tmpl t = tmpl_of(&md.mp.refresh);
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
    uint32_t n = pv_msg_refresh(buf, sizeof(buf), &it, &k, &t);
    assert_true(n > 0);
    expect_json(buf, n, trimmed_refresh(GOLDEN_REFRESH));
    it.flags |= PV_ITEM_PRIVATE;
    n = pv_msg_refresh(buf, sizeof(buf), &it, &k, &t);
    expect_json(buf, n, trimmed_refresh(GOLDEN_REFRESH_PRIVATE));
}

static void test_updates_generics(void **state)
{
    (void)state;
    pv_tmpl t = tmpl_of(&md.mp.updates[0]);
    uint32_t n = pv_msg_update(buf, 7, &t, 0, 0);
    expect_json(buf, n, GOLDEN_UPDATE);
    n = pv_msg_update(buf, 6, &t, 770132498, 0);
    expect_json(buf, n, GOLDEN_UPDATE_STAMPED);

    /* ProvPerf's generic message: its template rotates; the captured one is the fourth. */
    int found = 0;
    for (unsigned i = 0; i < md.mp.generic_count; i++) {
        pv_tmpl g = tmpl_of(&md.mp.generics[i]);
        n = pv_msg_generic(buf, 6, &g, 770132568, 0);
        size_t len = 0;
        assert_int_equal(rjs_msg_to_json(conv, rwf_buf_make(buf, n), json, sizeof(json), &len),
                         RWF_OK);
        if (len == strlen(GOLDEN_PROV_GENERIC) && memcmp(json, GOLDEN_PROV_GENERIC, len) == 0)
            found = 1;
    }
    assert_true(found);
}

/* A post as ConsPerf sends it: Post (user info) carrying an Update (same user info). */
static size_t post_msg(const msgdata_msg *m, uint64_t stamp)
{
    rwf_msg post, upd;
    memset(&post, 0, sizeof(post));
    memset(&upd, 0, sizeof(upd));
    post.msg_class = RWF_MC_POST;
    post.domain = RWF_DMT_MARKET_PRICE;
    post.stream_id = 6;
    post.flags = RWF_PSMF_POST_COMPLETE;
    post.container_type = RWF_DT_MSG;
    post.post_user_addr = POST_ADDR;
    post.post_user_id = POST_USER;
    upd.msg_class = RWF_MC_UPDATE;
    upd.domain = RWF_DMT_MARKET_PRICE;
    upd.flags = RWF_UPMF_HAS_POST_USER_INFO;
    upd.container_type = RWF_DT_FIELD_LIST;
    upd.post_user_addr = POST_ADDR;
    upd.post_user_id = POST_USER;
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &post);
    rwf_enc_msg_begin(&e, &upd);
    msgdata_encode(&e, m, MSGDATA_POST, &stamp);
    rwf_enc_msg_end(&e);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("post: %s", err_msg());
    return len;
}

static void test_consumer_posts_generics(void **state)
{
    (void)state;
    size_t n = post_msg(&md.mp.posts[0], 770184342);
    expect_json(buf, n, GOLDEN_POST);

    /* The generic message ConsPerf sends: the second template, TIM_TRK_3 stamped. */
    rwf_msg g;
    memset(&g, 0, sizeof(g));
    g.msg_class = RWF_MC_GENERIC;
    g.domain = RWF_DMT_MARKET_PRICE;
    g.stream_id = 6;
    g.container_type = RWF_DT_FIELD_LIST;
    int found = 0;
    for (unsigned i = 0; i < md.mp.generic_count; i++) {
        rwf_enc e;
        uint64_t stamp = 770184464;
        rwf_enc_init(&e, buf, sizeof(buf));
        rwf_enc_msg_begin(&e, &g);
        msgdata_encode(&e, &md.mp.generics[i], MSGDATA_GENERIC, &stamp);
        rwf_enc_msg_end(&e);
        assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
        size_t len = 0;
        assert_int_equal(rjs_msg_to_json(conv, rwf_buf_make(buf, n), json, sizeof(json), &len),
                         RWF_OK);
        found |= len == strlen(GOLDEN_CONS_GENERIC) && !memcmp(json, GOLDEN_CONS_GENERIC, len);
    }
    assert_true(found);

    /* ProvPerf reflects the post as an update carrying the post's user info and stamp. */
    rwf_msg u;
    memset(&u, 0, sizeof(u));
    u.msg_class = RWF_MC_UPDATE;
    u.domain = RWF_DMT_MARKET_PRICE;
    u.stream_id = 6;
    u.flags = RWF_UPMF_HAS_POST_USER_INFO;
    u.container_type = RWF_DT_FIELD_LIST;
    u.post_user_addr = POST_ADDR;
    u.post_user_id = POST_USER;
    rwf_enc e;
    uint64_t stamp = 770184342;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &u);
    msgdata_encode(&e, &md.mp.posts[0], MSGDATA_POST, &stamp);
    rwf_enc_msg_end(&e);
    assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
    expect_json(buf, n, GOLDEN_POST_REFLECTED);
}

/* The payload bytes of an encoded message. */
static rwf_buf payload_of(const uint8_t *msg, size_t len, rwf_msg *m)
{
    assert_int_equal(rwf_msg_decode(m, rwf_buf_make(msg, len)), RWF_OK);
    return m->payload;
}

/* Captured JSON -> RWF: the payload is the bytes our tools encode. */
static void test_json_to_tools_rwf(void **state)
{
    (void)state;
    size_t n;
    rwf_msg a, b;
    assert_int_equal(rjs_json_to_msg(conv, GOLDEN_UPDATE_STAMPED, strlen(GOLDEN_UPDATE_STAMPED),
                                     buf2, sizeof(buf2), &n),
                     RJS_MSG);
    pv_tmpl t = tmpl_of(&md.mp.updates[0]);
    uint32_t m = pv_msg_update(buf, 6, &t, 770132498, 0);
    ts_assert_bytes_equal(buf2, n, buf, m); /* the whole message: header too */

    const char *refresh = trimmed_refresh(GOLDEN_REFRESH);
    assert_int_equal(rjs_json_to_msg(conv, refresh, strlen(refresh), buf2, sizeof(buf2), &n),
                     RJS_MSG);
    rwf_buf got = payload_of(buf2, n, &a);
    pv_tmpl r = tmpl_of(&md.mp.refresh);
    pv_item it = {.stream_id = 5, .domain = 6, .flags = PV_ITEM_STREAMING | PV_ITEM_SOLICITED};
    pv_key k = {.flags = PV_KEY_SERVICE_ID | PV_KEY_NAME,
                .service_id = 1,
                .name = (const uint8_t *)"RDT0",
                .name_len = 4};
    m = pv_msg_refresh(buf, sizeof(buf), &it, &k, &r);
    rwf_buf want = payload_of(buf, m, &b);
    ts_assert_bytes_equal(got.data, got.len, want.data, want.len);
    assert_int_equal(a.flags & ~0u, b.flags);
    assert_int_equal(a.key.service_id, 1);
    assert_true(rwf_buf_eq(a.key.name, RWF_STR("RDT0")));

    /* The post: the nested update's payload is the consumer's. */
    assert_int_equal(
        rjs_json_to_msg(conv, GOLDEN_POST, strlen(GOLDEN_POST), buf2, sizeof(buf2), &n), RJS_MSG);
    size_t pn = post_msg(&md.mp.posts[0], 770184342);
    ts_assert_bytes_equal(buf2, n, buf, pn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consumer_admin),    cmocka_unit_test(test_item_requests),
        cmocka_unit_test(test_provider_admin),    cmocka_unit_test(test_refreshes),
        cmocka_unit_test(test_updates_generics),  cmocka_unit_test(test_consumer_posts_generics),
        cmocka_unit_test(test_json_to_tools_rwf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
