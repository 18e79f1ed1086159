/*
 * ProvPerf on loopback, the less common paths:
 *
 *   - pings: the provider pings a quiet consumer every third of the ping timeout, and drops a
 *     consumer that sends nothing at all for the timeout ("Ping timed out."), then goes on;
 *   - every way a run ends writes the summary and its JSON form: the run time (exit 0),
 *     SIGTERM (exit 0), a port already in use (exit 1, the failure in the summary);
 *   - -preEnc, -nanoTime, -measureEncode, -directWrite, -highWaterMark, -outputBufs: updates
 *     still decode, stamps are nanoseconds, the encoding time is reported;
 *   - MarketByOrder content: refreshes and updates are maps keyed by ORDER_ID with the stamps
 *     in their summary data; a MarketPrice request is rejected as an unsupported domain.
 */
#include "pvt.h"

#include "clk.h"
#include "tools_test.h"

#include <inttypes.h>

static int start_in(pvt_proc *p, const char *dir, const char *const *extra)
{
    const char *args[40] = {"-p", "0", "-runTime", "60"};
    int n = 4;
    for (int i = 0; extra && extra[i] && n < 38; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    pvt_start(p, dir, "ProvPerf", args);
    return pvt_port(p, 10000);
}

static void login_as(tp_channel *ch, uint64_t role)
{
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.role = role;
    l.stream_id = 1;
    l.user = RWF_STR("tester");
    l.flags = RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_ROLE;
    l.app_name = RWF_STR("ConsPerf");
    PVT_SEND_ENC(ch, rwf_rdm_login_request(&e, &l));
    static uint8_t buf[4096];
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 1, 5000, NULL);
}

static void login(tp_channel *ch)
{
    login_as(ch, 0);
}

static void request(tp_channel *ch, int32_t sid, const char *name, uint8_t domain)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, domain, sid, RWF_DT_NO_DATA);
    m.flags = RWF_RQMF_STREAMING;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = rwf_buf_cstr(name);
    PVT_SEND_ENC(ch, rwf_enc_msg(&e, &m));
}

/* ---- pings ---------------------------------------------------------------------------------- */

static void test_pings(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("pings", 0);
    const char *const a[] = {"-updateRate", "0", "-latencyUpdateRate", "0", NULL};
    pvt_proc p;
    int port = start_in(&p, dir, a);
    /* The shortest timeout the server accepts (20 s); this side never pings. */
    tp_opts o;
    tp_opts_init(&o);
    o.ping_timeout = 1;
    tp_channel *ch = pvt_connect(port, &o);
    tp_info info;
    assert_int_equal(tp_get_info(ch, &info), 0);
    int timeout = info.ping_timeout;
    assert_true(timeout >= 1 && timeout <= 20);
    login(ch);
    int64_t t0 = pvt_ms();
    int pings = 0;
    bool closed = false;
    while (!closed && pvt_ms() - t0 < (int64_t)timeout * 1000 + 8000) {
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0) {
            closed = true;
            break;
        }
        if (rc & TP_READ_PING)
            pings++;
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
            poll(&f, 1, 100);
        }
    }
    int64_t after = pvt_ms() - t0;
    assert_true(closed);
    /* Dropped after the timeout, not before; pinged about every third of it meanwhile. */
    assert_true(after >= (int64_t)timeout * 1000 - 1000);
    assert_true(pings >= 2);
    tp_close(ch);
    char *out = pvt_wait_for(&p, "Ping timed out.", 5000);
    free(out);
    /* The provider goes on: a new consumer is served (one that says it is a provider gets a
     * warning, and its login refresh all the same). */
    ch = pvt_connect(port, NULL);
    login_as(ch, 1);
    tp_close(ch);
    free(
        pvt_wait_for(&p, "Warning: Connected client did not identify itself as a consumer.", 5000));
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    pvt_remove(&p);
}

/* ---- how runs end ---------------------------------------------------------------------------- */

static void assert_summaries(pvt_proc *p)
{
    char *sum = pvt_file(p, "ProvSummary.out");
    assert_non_null(strstr(sum, "--- TEST INPUTS ---"));
    assert_non_null(strstr(sum, "--- OVERALL SUMMARY ---"));
    free(sum);
    char *json = pvt_file(p, "ProvSummary.json");
    assert_non_null(strstr(json, "\"tool\": \"ProvPerf\""));
    free(json);
}

static void test_exit_paths(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("exits", 0);
    pvt_proc p;
    /* The run time. */
    const char *const a[] = {"-p", "0", "-runTime", "2", NULL};
    pvt_start(&p, dir, "ProvPerf", a);
    assert_int_equal(pvt_wait(&p, 15000), 0);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "\nRun time of 2 seconds has expired.\n"));
    assert_non_null(strstr(out, "Exiting.\n"));
    free(out);
    assert_summaries(&p);
    /* SIGTERM. */
    const char *const b[] = {"-p", "0", "-runTime", "60", NULL};
    pvt_start(&p, dir, "ProvPerf", b);
    pvt_port(&p, 10000);
    assert_int_equal(pvt_stop(&p, SIGTERM, 10000), 0);
    assert_summaries(&p);
    /* A port in use: the second ProvPerf fails (status 1) and still writes its summary. */
    pvt_proc first;
    const char *const c[] = {"-p", "0", "-runTime", "60", "-summaryFile", "first.out", NULL};
    pvt_start(&first, dir, "ProvPerf", c);
    int port = pvt_port(&first, 10000);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    const char *const d[] = {"-p", ps, "-runTime", "60", NULL};
    pvt_start(&p, dir, "ProvPerf", d);
    assert_int_equal(pvt_wait(&p, 15000), 1);
    assert_summaries(&p);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "ERROR: TEST FAILED: "));
    free(sum);
    assert_int_equal(pvt_stop(&first, SIGINT, 10000), 0);
    pvt_remove(&p);
}

/* ---- options --------------------------------------------------------------------------------- */

static void test_options(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("options", 0);
    const char *const a[] = {"-tickRate",
                             "100",
                             "-updateRate",
                             "1000",
                             "-latencyUpdateRate",
                             "50",
                             "-preEnc",
                             "-nanoTime",
                             "-measureEncode",
                             "-directWrite",
                             "-highWaterMark",
                             "1000",
                             "-outputBufs",
                             "100",
                             "-writeStatsInterval",
                             "1",
                             NULL};
    pvt_proc p;
    int port = start_in(&p, dir, a);
    tp_channel *ch = pvt_connect(port, NULL);
    login(ch);
    request(ch, 5, "RDT1", RWF_DMT_MARKET_PRICE);
    request(ch, 6, "RDT2", RWF_DMT_MARKET_PRICE);
    static uint8_t buf[8192];
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    int plain = 0, stamped = 0;
    int64_t end = pvt_ms() + 2000;
    while (pvt_ms() < end) {
        int n = pvt_recv(ch, buf, sizeof(buf), 200);
        if (n <= 0 || buf[2] != RWF_MC_UPDATE)
            continue;
        int32_t sid = rwf_msg_peek_stream(rwf_buf_make(buf, (size_t)n));
        assert_true(sid == 5 || sid == 6);
        uint64_t t[3];
        assert_int_equal(pvt_stamps(buf, n, t), 0);
        if (t[0]) {
            /* Nanoseconds of the same clock, and the scheduled time in the same unit. */
            uint64_t now = (uint64_t)clk_ns();
            assert_true(t[0] <= now && now - t[0] < 5000000000ULL);
            assert_true(t[2] <= t[0] && t[0] - t[2] < 1000000000ULL);
            stamped++;
        } else {
            plain++;
        }
    }
    assert_true(plain > 500);
    assert_true(stamped > 20);
    tp_close(ch);
    char *out = pvt_wait_for(&p, "Update Encode Time (usec): ", 5000);
    free(out);
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    pvt_remove(&p);
}

/* ---- MarketByOrder ----------------------------------------------------------------------------
 */

static const char MBO_XML[] =
    "<msgFormat>\n"
    "<marketByOrderMsgList>\n"
    "  <refreshMsg><dataBody><map>\n"
    "    <fieldSetDefs>\n"
    "      <fieldSetDef setId=\"0\">\n"
    "        <fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>\n"
    "        <fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_4\"/>\n"
    "      </fieldSetDef>\n"
    "    </fieldSetDefs>\n"
    "    <mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"100\">\n"
    "      <fieldList setId=\"0\">\n"
    "        <fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"13.25\"/>\n"
    "        <fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"57132000\"/>\n"
    "      </fieldList>\n"
    "    </mapEntry>\n"
    "  </map></dataBody></refreshMsg>\n"
    "  <updateMsg><dataBody><map>\n"
    "    <mapEntry action=\"RSSL_MPEA_UPDATE_ENTRY\" key=\"100\">\n"
    "      <fieldList><fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"400\"/>"
    "</fieldList>\n"
    "    </mapEntry>\n"
    "  </map></dataBody></updateMsg>\n"
    "</marketByOrderMsgList>\n"
    "</msgFormat>\n";

/* The TIM_TRK fields of a map's summary data: count present, stamps into t. */
static int summary_stamps(const rwf_msg *m, uint64_t t[3], int *blank)
{
    rwf_map_dec md;
    assert_int_equal(rwf_map_dec_init(&md, m->payload), RWF_OK);
    assert_int_equal(md.hdr.key_fid, 3426);
    assert_int_equal(md.hdr.key_type, RWF_DT_RMTES_STRING);
    t[0] = t[1] = t[2] = 0;
    *blank = 0;
    if (!(md.hdr.flags & RWF_MPF_HAS_SUMMARY_DATA))
        return 0;
    rwf_fl_dec d;
    rwf_field f;
    int n = 0;
    assert_int_equal(rwf_fl_dec_init(&d, md.hdr.summary, NULL), RWF_OK);
    while (rwf_fl_next(&d, &f) == RWF_OK) {
        n++;
        if (!f.data.len)
            (*blank)++;
        else if (f.fid >= 3902 && f.fid <= 3904)
            assert_int_equal(rwf_get_uint(f.data, &t[f.fid - 3902]), RWF_OK);
    }
    rwf_map_entry e;
    assert_int_equal(rwf_map_next(&md, &e), RWF_OK);
    assert_true(rwf_buf_eq(e.key, RWF_STR("100")));
    return n;
}

static void test_market_by_order(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("mbo", 0);
    char path[1024];
    snprintf(path, sizeof(path), "%s/mbo.xml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(MBO_XML, f);
    fclose(f);
    const char *const a[] = {"-msgFile",    "mbo.xml", "-tickRate",          "100",
                             "-updateRate", "500",     "-latencyUpdateRate", "all",
                             NULL};
    pvt_proc p;
    int port = start_in(&p, dir, a);
    tp_channel *ch = pvt_connect(port, NULL);
    login(ch);
    /* The directory lists MarketByOrder, not MarketPrice. */
    PVT_SEND_ENC(ch, rwf_rdm_directory_request(&e, 2, 7, 0, 0));
    static uint8_t buf[8192];
    int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 2, 5000, NULL);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    rwf_service svc[2];
    unsigned count;
    assert_int_equal(rwf_rdm_directory_decode(&m, svc, 2, &count), RWF_OK);
    bool mbo = false, mp = false;
    for (unsigned i = 0; i < svc[0].capability_count; i++) {
        mbo |= svc[0].capabilities[i] == RWF_DMT_MARKET_BY_ORDER;
        mp |= svc[0].capabilities[i] == RWF_DMT_MARKET_PRICE;
    }
    assert_true(mbo && !mp);

    request(ch, 5, "MBO1", RWF_DMT_MARKET_BY_ORDER);
    n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, 5, 5000, NULL);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.domain, RWF_DMT_MARKET_BY_ORDER);
    assert_int_equal(m.container_type, RWF_DT_MAP);
    uint64_t t[3];
    int blank;
    assert_int_equal(summary_stamps(&m, t, &blank), 3);
    assert_int_equal(blank, 3);
    /* Every update stamped (latency rate "all"): TIM_TRK_1 then TIM_TRK_3 in the summary. */
    for (int i = 0; i < 5; i++) {
        n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_UPDATE, 5, 5000, NULL);
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
        assert_int_equal(m.container_type, RWF_DT_MAP);
        assert_int_equal(summary_stamps(&m, t, &blank), 2);
        assert_true(t[0] > 0 && t[2] > 0 && t[2] <= t[0]);
    }
    /* MarketPrice has no content here. */
    request(ch, 6, "RDT1", RWF_DMT_MARKET_PRICE);
    n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_STATUS, 6, 5000, NULL);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    tp_close(ch);
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    pvt_remove(&p);
}

/* ---- out of output buffers -------------------------------------------------------------------
 */

/* A consumer that stops reading: the provider runs out of output buffers, counts the updates
 * it could not send, keeps the channel, and goes on once the consumer reads again. */
static void test_out_of_buffers(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("outofbufs", 0);
    const char *const a[] = {"-tickRate",
                             "100",
                             "-updateRate",
                             "200000",
                             "-outputBufs",
                             "4",
                             "-maxOutputBufs",
                             "4",
                             "-sendBufSize",
                             "8192",
                             "-writeStatsInterval",
                             "1",
                             NULL};
    pvt_proc p;
    int port = start_in(&p, dir, a);
    tp_opts o;
    tp_opts_init(&o);
    o.rcvbuf = 8192;
    tp_channel *ch = pvt_connect(port, &o);
    login(ch);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        request(ch, 5 + i, name, RWF_DMT_MARKET_PRICE);
    }
    static uint8_t buf[8192];
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_UPDATE, 14, 5000, NULL);
    /* Stop reading until the provider says it dropped updates. */
    char *out = pvt_wait_for(&p, "updates due to lack of output buffers.", 10000);
    assert_null(strstr(out, "Channel Closed"));
    free(out);
    /* Read again: updates flow on the same channel. */
    int updates = 0;
    int64_t end = pvt_ms() + 3000;
    while (pvt_ms() < end && updates < 1000) {
        int n = pvt_recv(ch, buf, sizeof(buf), 200);
        assert_true(n >= 0);
        if (n > 0 && buf[2] == RWF_MC_UPDATE)
            updates++;
    }
    assert_int_equal(updates, 1000);
    out = pvt_output(&p);
    assert_null(strstr(out, "Channel Closed"));
    free(out);
    tp_close(ch);
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    char *sum = pvt_file(&p, "ProvSummary.out");
    assert_non_null(strstr(sum, "  Updates stopped for lack of output buffers: "));
    free(sum);
    pvt_remove(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pings),          cmocka_unit_test(test_exit_paths),
        cmocka_unit_test(test_options),        cmocka_unit_test(test_market_by_order),
        cmocka_unit_test(test_out_of_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
