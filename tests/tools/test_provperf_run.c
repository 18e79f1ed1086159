/*
 * ProvPerf on loopback, driven by a small test consumer built on our transport and codec:
 *
 *   - the consumer requests captured from the original ConsPerf
 *     (tests/data/captures/consprov_*) get the captured answers byte for byte (login refresh
 *     with this host's Position put in, the directory, the five refreshes, the updates up to
 *     their latency stamp), also over zlib,
 *     lz4 and with Nagle on; with packing, refreshes and updates come in packed frames as in
 *     the capture;
 *   - updates at the configured rate (within a tick or two) with the stamps at the latency
 *     rate, our scheduled time in TIM_TRK_3 after TIM_TRK_1;
 *   - rejects (open limit, service id, QoS, same key on another stream, stream reused, domain)
 *     with the ETA provider's status messages;
 *   - a post reflected as the ETA provider reflects it;
 *   - generic messages both ways, with latency in the summary;
 *   - the dictionary served from the files it loaded, decoded back equal;
 *   - a consumer that leaves does not end the run; SIGINT ends it with the summary, the JSON
 *     summary and the statistics file written, exit status 0; bad input gives status 2.
 */
#include "pvt.h"

#include "clk.h"
#include "run_host.h"
#include "tools_test.h"

#include <inttypes.h>

/* ProvPerf in a fresh folder with -p 0 and the given arguments; returns its port. */
static int start_prov(pvt_proc *p, const char *name, const char *const *extra)
{
    const char *dir = pvt_workdir(name, 0);
    const char *args[40] = {"-p", "0", "-runTime", "60", "-statsFile", "stats"};
    int n = 6;
    for (int i = 0; extra && extra[i] && n < 38; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    pvt_start(p, dir, "ProvPerf", args);
    return pvt_port(p, 10000);
}

static void end_prov(pvt_proc *p, int want_status)
{
    int st = pvt_stop(p, SIGINT, 10000);
    if (st != want_status) {
        char *out = pvt_output(p);
        fprintf(stderr, "%s\n", out);
        free(out);
        fail_msg("ProvPerf ended with %d, not %d", st, want_status);
    }
}

/* ---- captured requests and answers ---------------------------------------------------------- */

static void replay(const char *vector, const char *const *prov_args, int comp)
{
    ts_tcp_streams st;
    static pvt_msgs req, ans;
    pvt_capture("consprov_default", &st, &req, &ans);
    (void)vector;
    assert_int_equal(req.n, 7); /* login, directory, 5 items */

    pvt_proc p;
    int port = start_prov(&p, vector, prov_args);
    tp_opts o;
    tp_opts_init(&o);
    o.compression = (tp_comp)comp;
    tp_channel *ch = pvt_connect(port, &o);
    tp_info info;
    assert_int_equal(tp_get_info(ch, &info), 0);
    assert_int_equal(info.compression, comp);

    for (int i = 0; i < req.n; i++)
        pvt_send(ch, req.m[i], req.len[i]);

    static uint8_t got[8192], want[8192];
    /* Login refresh: the captured one with this host's Position. */
    int n = pvt_recv(ch, got, sizeof(got), 5000);
    assert_true(n > 0);
    char pos[64];
    run_host_position(pos, sizeof(pos), "localhost");
    memcpy(want, ans.m[0], ans.len[0]);
    uint32_t wl = pvt_set_position(want, ans.len[0], sizeof(want), pos);
    ts_assert_bytes_equal(got, (size_t)n, want, wl);
    /* The directory, the refreshes and ten updates. */
    for (int i = 1; i < 17; i++) {
        n = pvt_recv(ch, got, sizeof(got), 5000);
        assert_true(n > 0);
        uint32_t gl = pvt_unstamped_len(got, (uint32_t)n);
        uint32_t al = pvt_unstamped_len(ans.m[i], ans.len[i]);
        if (gl != (uint32_t)n || al != ans.len[i])
            assert_int_equal(gl, al); /* both stamped, or neither */
        ts_assert_bytes_equal(got, gl, ans.m[i], al);
    }
    tp_close(ch);
    ts_tcp_streams_free(&st);
    char *out = pvt_wait_for(&p, "Channel Closed", 5000);
    assert_non_null(strstr(out, "Received login request.\n  Username: root\n"));
    assert_non_null(strstr(out, "  ApplicationName: ConsPerf\n"));
    assert_non_null(strstr(out, "Received Directory Request.\n"));
    free(out);
    end_prov(&p, 0);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "  Image requests received: 5\n"));
    assert_true(tt_num(sum, "  Updates sent: ") >= 10);
    free(sum);
    pvt_remove(&p);
}

static const char *const capture_args[] = {"-tickRate",         "10", "-updateRate", "10",
                                           "-noScheduledStamp", NULL};

static void test_capture_default(void **state)
{
    (void)state;
    replay("default", capture_args, TP_COMP_NONE);
}

static void test_capture_zlib(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",        "10",   "-updateRate", "10", "-noScheduledStamp",
                             "-compressionType", "zlib", NULL};
    replay("zlib", a, TP_COMP_ZLIB);
}

static void test_capture_lz4(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",        "10",  "-updateRate", "10", "-noScheduledStamp",
                             "-compressionType", "lz4", NULL};
    replay("lz4", a, TP_COMP_LZ4);
}

static void test_capture_tcpdelay(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",         "10",        "-updateRate", "10",
                             "-noScheduledStamp", "-tcpDelay", NULL};
    replay("tcpdelay", a, TP_COMP_NONE);
}

/* consprov_pack: refreshes and updates in packed frames, as captured. */
/* -reactor (its worker bound by -workerThreads): the same answers, byte for byte. */
static void test_capture_reactor(void **state)
{
    (void)state;
    const char *const a[] = {
        "-tickRate",      "10", "-updateRate", "10", "-noScheduledStamp", "-reactor",
        "-workerThreads", "-1", NULL};
    replay("reactor", a, 0);
}

static void test_capture_pack(void **state)
{
    (void)state;
    ts_tcp_streams st;
    static pvt_msgs req, ans;
    pvt_capture("consprov_pack", &st, &req, &ans);
    const char *const a[] = {"-tickRate",         "10", "-updateRate",  "100",
                             "-maxPackCount",     "10", "-packBufSize", "6000",
                             "-noScheduledStamp", NULL};
    pvt_proc p;
    int port = start_prov(&p, "pack", a);
    tp_channel *ch = pvt_connect(port, NULL);
    static pvt_raw raw;
    raw.fd = tp_fd(ch);
    raw.len = 0;
    for (int i = 0; i < req.n; i++)
        pvt_send(ch, req.m[i], req.len[i]);
    static uint8_t frame[65536];
    uint8_t fl;
    /* Login refresh and directory: single frames. */
    int n = pvt_raw_frame(&raw, &fl, frame, sizeof(frame), 5000);
    assert_true(n > 0);
    assert_int_equal(fl, 0x02);
    n = pvt_raw_frame(&raw, &fl, frame, sizeof(frame), 5000);
    assert_int_equal(fl, 0x02);
    ts_assert_bytes_equal(frame, (size_t)n, ans.m[1], ans.len[1]);
    /* Then packed frames: the five refreshes in one, then updates ten per frame. */
    int k = 2, frames = 0;
    while (k < 2 + 5 + 30) {
        n = pvt_raw_frame(&raw, &fl, frame, sizeof(frame), 5000);
        assert_true(n > 0);
        assert_int_equal(fl, 0x12);
        int in_frame = 0;
        for (int off = 0; off + 2 <= n;) {
            uint32_t ml = (uint32_t)(frame[off] << 8 | frame[off + 1]);
            const uint8_t *m = frame + off + 2;
            assert_true(ans.packed[k]);
            /* The stamp goes to a random update of each burst: compare without stamps. */
            static uint8_t g[8192], w[8192];
            uint32_t gl = pvt_strip_stamps(m, ml, g),
                     al = pvt_strip_stamps(ans.m[k], ans.len[k], w);
            ts_assert_bytes_equal(g, gl, w, al);
            off += 2 + (int)ml;
            k++;
            in_frame++;
        }
        assert_int_equal(in_frame, frames == 0 ? 5 : 10);
        frames++;
    }
    tp_close(ch);
    ts_tcp_streams_free(&st);
    char *out = pvt_wait_for(&p, "Channel Closed", 5000);
    free(out);
    end_prov(&p, 0);
    pvt_remove(&p);
}

/* ---- a consumer of our own --------------------------------------------------------------------
 */

static void login_and_directory(tp_channel *ch)
{
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("tester");
    l.flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ConsPerf");
    l.position = RWF_STR("127.0.0.1/net");
    PVT_SEND_ENC(ch, rwf_rdm_login_request(&e, &l));
    static uint8_t buf[8192];
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 1, 5000, NULL);
    PVT_SEND_ENC(ch, rwf_rdm_directory_request(&e, 2, 7, 0, 0));
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 2, 5000, NULL);
}

/* An item request: stream sid, name, service id, flags (STREAMING, PRIVATE...), QoS. */
static int enc_request(rwf_enc *e, int32_t sid, const char *name, uint16_t service, uint16_t flags,
                       const rwf_qos *qos, uint8_t domain)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, domain, sid, RWF_DT_NO_DATA);
    m.flags = flags;
    if (qos) {
        m.flags |= RWF_RQMF_HAS_QOS;
        m.qos = *qos;
    }
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = service;
    m.key.name = rwf_buf_cstr(name);
    return rwf_enc_msg(e, &m);
}

static void request(tp_channel *ch, int32_t sid, const char *name, uint16_t flags)
{
    const rwf_qos q = {.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};
    PVT_SEND_ENC(ch, enc_request(&e, sid, name, 1, flags, &q, RWF_DMT_MARKET_PRICE));
}

/* Updates at the rate, stamps at the latency rate, the scheduled time after the send time. */
static void test_rates(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",          "100", "-updateRate", "1000",
                             "-latencyUpdateRate", "20",  NULL};
    pvt_proc p;
    int port = start_prov(&p, "rates", a);
    tp_channel *ch = pvt_connect(port, NULL);
    login_and_directory(ch);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        request(ch, 5 + i, name, RWF_RQMF_STREAMING);
    }
    static uint8_t buf[8192];
    for (int i = 0; i < 3; i++)
        pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5 + i, 5000, NULL);
    /* Count over four seconds of reception, once the updates flow. The scheduled times of the
     * stamped updates say in which tick each was sent: between two of them, the number of
     * updates is 10 per tick of schedule, give or take one tick (their places in their
     * bursts), whatever the delays of delivery on a busy machine. */
    int64_t t0 = pvt_ms() + 500, t1 = t0 + 4000;
    uint64_t updates = 0, stamped = 0, first_sched = 0, last_sched = 0;
    uint64_t first_at = 0, last_at = 0;
    int64_t now;
    while ((now = pvt_ms()) < t1) {
        int n = pvt_recv(ch, buf, sizeof(buf), (int)(t1 - now));
        assert_true(n >= 0);
        if (n == 0 || buf[2] != RWF_MC_UPDATE || now < t0)
            continue;
        updates++;
        uint64_t t[3];
        assert_int_equal(pvt_stamps(buf, n, t), 0);
        if (t[0]) {
            stamped++;
            /* TIM_TRK_3: the scheduled time, not after the send time, and recent. */
            assert_true(t[2] > 0);
            assert_true(t[2] <= t[0]);
            assert_true(t[0] - t[2] < 1000000);
            assert_true((uint64_t)clk_us() - t[0] < 5000000);
            if (!first_sched) {
                first_sched = t[2];
                first_at = updates;
            }
            last_sched = t[2];
            last_at = updates;
        } else {
            assert_int_equal(t[2], 0);
        }
    }
    assert_true(stamped >= 2);
    int64_t ticks = (int64_t)(last_sched - first_sched) / 10000; /* 10 ms ticks */
    int64_t between = (int64_t)(last_at - first_at);
    if (between < 10 * ticks - 10 || between > 10 * ticks + 10)
        fail_msg("%" PRId64 " updates in %" PRId64 " ticks of 10 at 1000/s", between, ticks);
    /* Exactly 20 stamps go out in each second of the provider's schedule, in random ticks: a
     * window not aligned with its seconds sees 80 give or take the stamps of two partial
     * seconds. */
    if (stamped < 70 || stamped > 90)
        fail_msg("%" PRIu64 " stamped updates in 4 s at 20/s", stamped);
    tp_close(ch);
    end_prov(&p, 0);
    pvt_remove(&p);
}

/* ---- rejects -------------------------------------------------------------------------------- */

static void expect_reject(tp_channel *ch, int32_t sid, uint8_t domain, int reason)
{
    static uint8_t got[1024], want[1024];
    int n = pvt_expect(ch, got, sizeof(got), RWF_MC_STATUS, sid, 5000, NULL);
    rwf_enc e;
    rwf_enc_init(&e, want, sizeof(want));
    assert_int_equal(rwf_rdm_item_reject(&e, sid, domain, reason), RWF_OK);
    size_t wl;
    assert_int_equal(rwf_enc_finish(&e, &wl), RWF_OK);
    ts_assert_bytes_equal(got, (size_t)n, want, wl);
}

static void test_rejects(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate", "10",         "-updateRate", "0", "-latencyUpdateRate",
                             "0",         "-openLimit", "2",           NULL};
    pvt_proc p;
    int port = start_prov(&p, "rejects", a);
    tp_channel *ch = pvt_connect(port, NULL);
    login_and_directory(ch);
    static uint8_t buf[8192];
    const rwf_qos rt = {.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};
    const rwf_qos delayed = {.timeliness = RWF_QOS_TIME_DELAYED_UNKNOWN,
                             .rate = RWF_QOS_RATE_TICK_BY_TICK};

    /* Wrong service id (checked before anything but the open limit). */
    PVT_SEND_ENC(ch, enc_request(&e, 5, "RDT1", 2, RWF_RQMF_STREAMING, &rt, 6));
    expect_reject(ch, 5, 6, RWF_REJECT_SERVICE_ID);
    /* The status bytes of docs/wire.md#rejects: CLOSED / SUSPECT / USAGE_ERROR, text with its NUL.
     */
    rwf_msg m;
    rwf_enc e0;
    uint8_t w[256];
    rwf_enc_init(&e0, w, sizeof(w));
    rwf_rdm_item_reject(&e0, 5, 6, RWF_REJECT_SERVICE_ID);
    size_t wl;
    rwf_enc_finish(&e0, &wl);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(w, wl)), RWF_OK);
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    assert_int_equal(m.state.data_state, RWF_DATA_SUSPECT);
    assert_int_equal(m.state.code, RWF_SC_USAGE_ERROR);
    assert_true(rwf_buf_eq(m.state.text, RWF_STR("Item request rejected for stream id 5 - service "
                                                 "id invalid\0")));
    /* QoS other than realtime tick-by-tick. */
    PVT_SEND_ENC(ch, enc_request(&e, 5, "RDT1", 1, RWF_RQMF_STREAMING, &delayed, 6));
    expect_reject(ch, 5, 6, RWF_REJECT_QOS);
    /* Two items open; the same key on another stream; a stream reused with another key. */
    PVT_SEND_ENC(ch, enc_request(&e, 5, "RDT1", 1, RWF_RQMF_STREAMING, &rt, 6));
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    /* A reissue on the same stream is no reject: a new refresh. */
    PVT_SEND_ENC(ch, enc_request(&e, 5, "RDT1", 1, RWF_RQMF_STREAMING, &rt, 6));
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    PVT_SEND_ENC(ch, enc_request(&e, 6, "RDT1", 1, RWF_RQMF_STREAMING, &rt, 6));
    expect_reject(ch, 6, 6, RWF_REJECT_ALREADY_OPEN);
    PVT_SEND_ENC(ch, enc_request(&e, 5, "RDT2", 1, RWF_RQMF_STREAMING, &rt, 6));
    expect_reject(ch, 5, 6, RWF_REJECT_STREAM_IN_USE);
    PVT_SEND_ENC(ch, enc_request(&e, 6, "RDT2", 1, RWF_RQMF_STREAMING, &rt, 6));
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 6, 5000, NULL);
    /* The open limit (checked first, as by the ETA provider: a reissue would get it too). */
    PVT_SEND_ENC(ch, enc_request(&e, 7, "RDT3", 1, RWF_RQMF_STREAMING, &rt, 6));
    expect_reject(ch, 7, 6, RWF_REJECT_ITEM_COUNT);
    /* A domain without content. */
    PVT_SEND_ENC(ch, enc_request(&e, 8, "RDT4", 1, RWF_RQMF_STREAMING, &rt, 8));
    expect_reject(ch, 8, 8, RWF_REJECT_DOMAIN);
    /* A close frees a place. */
    rwf_msg c;
    rwf_msg_init(&c, RWF_MC_CLOSE, 6, 5, RWF_DT_NO_DATA);
    PVT_SEND_ENC(ch, rwf_enc_msg(&e, &c));
    /* A snapshot (no STREAMING) gets a NON_STREAMING refresh and is closed after it, so that
     * the place is still free for the next request. */
    PVT_SEND_ENC(ch, enc_request(&e, 9, "RDT9", 1, 0, &rt, 6));
    int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 9, 5000, NULL);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.state.stream_state, RWF_STREAM_NON_STREAMING);
    PVT_SEND_ENC(ch, enc_request(&e, 7, "RDT3", 1, RWF_RQMF_STREAMING, &rt, 6));
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 7, 5000, NULL);
    PVT_SEND_ENC(ch, enc_request(&e, 10, "RDT10", 1, RWF_RQMF_STREAMING, &rt, 6));
    expect_reject(ch, 10, 6, RWF_REJECT_ITEM_COUNT);
    tp_close(ch);
    char *out = pvt_wait_for(&p, "Channel Closed", 5000);
    assert_non_null(strstr(out, "Rejecting Item Request with streamId=5 and domain "
                                "RSSL_DMT_MARKET_PRICE.  Reason: INVALID_SERVICE_ID"));
    free(out);
    end_prov(&p, 0);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "  Image requests received: 11\n"));
    free(sum);
    pvt_remove(&p);
}

/* ---- posts and generic messages ------------------------------------------------------------- */

static void test_post_reflection(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",          "10", "-updateRate", "0",
                             "-latencyUpdateRate", "0",  NULL};
    pvt_proc p;
    int port = start_prov(&p, "post", a);
    tp_channel *ch = pvt_connect(port, NULL);
    login_and_directory(ch);
    request(ch, 5, "RDT1", RWF_RQMF_STREAMING);
    static uint8_t buf[8192];
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    /* The post of docs/wire.md#examples: an update (stream 0, post user info) inside a Post on
     * stream 5. */
    static const char post_hex[] = "00 10 08 06 00 00 00 05 20 0D 7F 00 00 01 00 00 10 E1 00 12 "
                                   "04 06 00 00 00 00 82 00 04 00 7F 00 00 01 00 00 10 E1 08 00 "
                                   "03 00 16 06 08 00 B5 B5 55 80 00 1E 02 0E 01 0F 3F 05 1C BE "
                                   "99 1A 14";
    uint8_t post[128];
    size_t n = ts_hex(post_hex, post, sizeof(post));
    pvt_send(ch, post, n);
    /* The reflection: the nested update on the post's stream, nothing else changed. */
    int got = pvt_expect(ch, buf, sizeof(buf), RWF_MC_UPDATE, 5, 5000, NULL);
    uint8_t want[128];
    memcpy(want, post + 18, n - 18);
    want[7] = 5;
    ts_assert_bytes_equal(buf, (size_t)got, want, n - 18);
    tp_close(ch);
    free(pvt_wait_for(&p, "Channel Closed", 5000));
    end_prov(&p, 0);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "  Posts received: 1\n  Posts reflected: 1\n"));
    free(sum);
    pvt_remove(&p);
}

static void test_generic_messages(void **state)
{
    (void)state;
    /* Generic messages alone (no updates): the connection time still counts. */
    const char *const a[] = {"-tickRate",
                             "10",
                             "-updateRate",
                             "0",
                             "-latencyUpdateRate",
                             "0",
                             "-genericMsgRate",
                             "10",
                             "-genericMsgLatencyRate",
                             "10",
                             "-latencyFile",
                             "genlat",
                             NULL};
    pvt_proc p;
    int port = start_prov(&p, "generic", a);
    tp_channel *ch = pvt_connect(port, NULL);
    login_and_directory(ch);
    request(ch, 5, "RDT1", RWF_RQMF_STREAMING | RWF_RQMF_PRIVATE_STREAM);
    static uint8_t buf[8192];
    int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_true(m.flags & RWF_RFMF_PRIVATE_STREAM);
    /* The provider's generic messages: TIM_TRK_3 = send time, TIM_TRK_1 = scheduled time. */
    for (int i = 0; i < 3; i++) {
        n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_GENERIC, 5, 5000, NULL);
        uint64_t t[3];
        assert_int_equal(pvt_stamps(buf, n, t), 0);
        assert_true(t[2] > 0);
        assert_true(t[0] > 0 && t[0] <= t[2]);
    }
    /* Ours to the provider: five generic messages with TIM_TRK_3 (and a scheduled time). */
    for (int i = 0; i < 5; i++) {
        uint8_t g[64];
        rwf_enc e;
        rwf_enc_init(&e, g, sizeof(g));
        rwf_msg gm;
        rwf_msg_init(&gm, RWF_MC_GENERIC, 6, 5, RWF_DT_FIELD_LIST);
        uint64_t now = (uint64_t)clk_us();
        rwf_enc_msg_begin(&e, &gm);
        rwf_enc_fl_begin_std(&e);
        rwf_real r = {.value = 1, .hint = 14};
        rwf_enc_fl_real(&e, 22, &r);
        rwf_enc_fl_uint(&e, 3904, now);
        rwf_enc_fl_uint(&e, 3902, now - 100);
        rwf_enc_fl_end(&e);
        rwf_enc_msg_end(&e);
        size_t gl;
        assert_int_equal(rwf_enc_finish(&e, &gl), RWF_OK);
        pvt_send(ch, g, gl);
    }
    usleep(300000);
    tp_close(ch);
    free(pvt_wait_for(&p, "Channel Closed", 5000));
    end_prov(&p, 0);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "  GenMsgs received: 5\n"));
    assert_non_null(strstr(sum, "  GenMsg latencies received: 5\n"));
    assert_non_null(strstr(sum, "  GenMsg latency avg (usec): "));
    assert_non_null(strstr(sum, "  Sched GenMsg latency avg (usec): "));
    assert_true(tt_num(sum, "  GenMsgs sent: ") >= 3);
    assert_true(tt_num(sum, "  GenMsg latencies sent: ") >= 3);
    assert_null(strstr(sum, "  Updates sent: "));
    assert_non_null(strstr(sum, "  Offered GenMsg rate: 10\n"));
    assert_true(tt_num(sum, "  Achieved GenMsg rate: ") > 0);
    free(sum);
    char *log = pvt_file(&p, "genlat1.csv");
    assert_non_null(strstr(log, "Message type, Send time, Receive time, Latency (usec)\n"));
    int rows = 0;
    for (const char *q = strstr(log, "\nGen, "); q; q = strstr(q + 1, "\nGen, "))
        rows++;
    assert_int_equal(rows, 5);
    free(log);
    pvt_remove(&p);
}

/* ---- dictionary download ----------------------------------------------------------------------
 */

static void download(tp_channel *ch, int32_t sid, const char *name, rwf_dict *into)
{
    PVT_SEND_ENC(ch, rwf_rdm_dictionary_request(&e, sid, 1, rwf_buf_cstr(name), RWF_DICT_NORMAL));
    static uint8_t buf[200000];
    int type = 0;
    for (int parts = 0;; parts++) {
        int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, sid, 10000, NULL);
        rwf_msg m;
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
        if (rwf_rdm_dictionary_apply(into, &m, &type) != RWF_OK)
            fail_msg("%s part %d: %s", name, parts, err_msg());
        if (m.flags & RWF_RFMF_REFRESH_COMPLETE)
            break;
    }
}

static void test_dictionary(void **state)
{
    (void)state;
    const char *const a[] = {"-tickRate",          "10", "-updateRate", "0",
                             "-latencyUpdateRate", "0",  NULL};
    pvt_proc p;
    int port = start_prov(&p, "dict", a);
    tp_channel *ch = pvt_connect(port, NULL);
    login_and_directory(ch);
    rwf_dict *got = rwf_dict_new(), *want = rwf_dict_new();
    download(ch, 3, "RWFFld", got);
    download(ch, 4, "RWFEnum", got);
    char path[1200];
    snprintf(path, sizeof(path), "%s/RDMFieldDictionary", p.dir);
    assert_int_equal(rwf_dict_load_fields(want, path), RWF_OK);
    snprintf(path, sizeof(path), "%s/enumtype.def", p.dir);
    assert_int_equal(rwf_dict_load_enums(want, path), RWF_OK);
    assert_int_equal(got->field_count, want->field_count);
    for (uint32_t i = 0; i < want->field_count; i++) {
        const rwf_dict_field *w = &want->fields[i];
        const rwf_dict_field *g = rwf_dict_field_by_fid(got, w->fid);
        assert_non_null(g);
        assert_true(rwf_buf_eq(g->acronym, w->acronym));
        assert_int_equal(g->rwf_type, w->rwf_type);
        assert_int_equal(g->rwf_len, w->rwf_len);
        const rwf_enum_table *wt = rwf_dict_enum_table(want, w->fid);
        const rwf_enum_table *gt = rwf_dict_enum_table(got, w->fid);
        assert_int_equal(wt == NULL, gt == NULL);
        if (wt) {
            assert_int_equal(gt->count, wt->count);
            for (uint32_t k = 0; k < wt->count; k++) {
                const rwf_enum_value *gv = rwf_enum_find(gt, wt->values[k].value);
                assert_non_null(gv);
                assert_true(rwf_buf_eq(gv->display, wt->values[k].display));
            }
        }
    }
    /* An unknown name gets a closed status. */
    PVT_SEND_ENC(ch, rwf_rdm_dictionary_request(&e, 9, 1, RWF_STR("Nope"), RWF_DICT_NORMAL));
    static uint8_t buf[1024];
    int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_STATUS, 9, 5000, NULL);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    rwf_dict_free(got);
    rwf_dict_free(want);
    tp_close(ch);
    free(pvt_wait_for(&p, "Channel Closed", 5000));
    end_prov(&p, 0);
    pvt_remove(&p);
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

/* A consumer leaves, another comes: the provider goes on; SIGINT ends the run with every
 * output written. */
static void disconnect_and_sigint(bool reactor)
{
    const char *const a[] = {"-tickRate",
                             "100",
                             "-updateRate",
                             "500",
                             "-writeStatsInterval",
                             "1",
                             reactor ? "-reactor" : NULL,
                             NULL};
    pvt_proc p;
    int port = start_prov(&p, reactor ? "rxlifecycle" : "lifecycle", a);
    static uint8_t buf[8192];
    for (int round = 0; round < 2; round++) {
        tp_channel *ch = pvt_connect(port, NULL);
        login_and_directory(ch);
        request(ch, 5, "RDT1", RWF_RQMF_STREAMING);
        request(ch, 6, "RDT2", RWF_RQMF_STREAMING);
        pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
        pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 6, 5000, NULL);
        pvt_expect(ch, buf, sizeof(buf), RWF_MC_UPDATE, 5, 5000, NULL);
        tp_close(ch);
        usleep(1200000);
        assert_false(pvt_ended(&p));
    }
    end_prov(&p, 0);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "Shutting down."));
    assert_non_null(strstr(out, "--- OVERALL SUMMARY ---"));
    assert_non_null(strstr(out, "Exiting."));
    assert_non_null(strstr(out, "UpdRate: "));
    /* A consumer that left is reported in the ETA provider's words (reactor mode), or as
     * the normal close it was (where the original reports a failure). */
    if (reactor) {
        assert_non_null(strstr(out, "Accepting new Reactor connection...\n"));
        assert_non_null(strstr(out, "Channel Closed.\n"));
    } else {
        assert_non_null(strstr(out, "Channel Closed: the peer closed the connection normally"));
        assert_null(strstr(out, "RSSL_RET_FAILURE"));
    }
    free(out);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "--- TEST INPUTS ---"));
    assert_non_null(strstr(sum, "  Image requests received: 4\n"));
    assert_true(tt_num(sum, "  Updates sent: ") > 0);
    assert_non_null(strstr(sum, "  CPU/Memory samples: "));
    free(sum);
    char *json = pvt_file(&p, "ProvSummary.json");
    assert_non_null(strstr(json, "\"image_requests_received\": 4"));
    free(json);
    char *csv = pvt_file(&p, "stats1.csv");
    assert_non_null(strstr(csv, "UTC, Requests received, Images sent, Updates sent"));
    assert_non_null(strchr(strchr(csv, '\n') + 1, '\n')); /* at least one row */
    free(csv);
    pvt_remove(&p);
}

static void test_disconnect_and_sigint(void **state)
{
    (void)state;
    disconnect_and_sigint(false);
}

static void test_reactor_disconnect_and_sigint(void **state)
{
    (void)state;
    disconnect_and_sigint(true);
}

/* Two provider threads: two consumers go to different threads (the one with fewer channels),
 * both served; the summary has a block per thread. */
static void two_threads(bool reactor)
{
    const char *const a[] = {"-tickRate",
                             "100",
                             "-updateRate",
                             "1000",
                             "-threads",
                             "-1,-1",
                             "-writeStatsInterval",
                             "1",
                             reactor ? "-reactor" : NULL,
                             "-workerThreads",
                             "-1,-1",
                             NULL};
    pvt_proc p;
    int port = start_prov(&p, reactor ? "rxthreads" : "threads", a);
    static uint8_t buf[8192];
    tp_channel *ch[2];
    for (int c = 0; c < 2; c++) {
        ch[c] = pvt_connect(port, NULL);
        login_and_directory(ch[c]);
        request(ch[c], 5, "RDT1", RWF_RQMF_STREAMING);
        pvt_expect(ch[c], buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    }
    for (int k = 0; k < 50; k++)
        for (int c = 0; c < 2; c++)
            pvt_expect(ch[c], buf, sizeof(buf), RWF_MC_UPDATE, 5, 5000, NULL);
    usleep(1100000);
    for (int c = 0; c < 2; c++)
        tp_close(ch[c]);
    end_prov(&p, 0);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, ": Thread 1:\n"));
    assert_non_null(strstr(out, ": Thread 2:\n"));
    free(out);
    char *sum = pvt_file(&p, "ProvSummary.out");
    const char *t1 = strstr(sum, "--- THREAD 1 SUMMARY ---");
    const char *t2 = strstr(sum, "--- THREAD 2 SUMMARY ---");
    const char *all = strstr(sum, "--- OVERALL SUMMARY ---");
    assert_true(t1 && t2 && all && t1 < t2 && t2 < all);
    /* One request per thread: each consumer went to its own thread. */
    assert_int_equal((int)tt_num(t1, "  Image requests received: "), 1);
    assert_int_equal((int)tt_num(t2, "  Image requests received: "), 1);
    assert_int_equal((int)tt_num(all, "  Image requests received: "), 2);
    free(sum);
    char *csv = pvt_file(&p, "stats2.csv");
    free(csv);
    pvt_remove(&p);
}

static void test_two_threads(void **state)
{
    (void)state;
    two_threads(false);
}

static void test_reactor_two_threads(void **state)
{
    (void)state;
    two_threads(true);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("badinput", 0);
    pvt_proc p;
    const char *const a[] = {"-p", "0", "-msgFile", "nope.xml", "-runTime", "5", NULL};
    pvt_start(&p, dir, "ProvPerf", a);
    assert_int_equal(pvt_wait(&p, 10000), 2);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "nope.xml"));
    free(out);
    const char *const b[] = {"-p", "0", "-tickRate", "0", NULL};
    pvt_start(&p, dir, "ProvPerf", b);
    assert_int_equal(pvt_wait(&p, 10000), 2);
    pvt_remove(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_default),
        cmocka_unit_test(test_capture_zlib),
        cmocka_unit_test(test_capture_lz4),
        cmocka_unit_test(test_capture_tcpdelay),
        cmocka_unit_test(test_capture_pack),
        cmocka_unit_test(test_capture_reactor),
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_post_reflection),
        cmocka_unit_test(test_generic_messages),
        cmocka_unit_test(test_dictionary),
        cmocka_unit_test(test_disconnect_and_sigint),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_reactor_disconnect_and_sigint),
        cmocka_unit_test(test_reactor_two_threads),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
