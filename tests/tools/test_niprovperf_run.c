/*
 * NIProvPerf on loopback against a small test "ADH" (a transport server that answers the
 * login and counts what arrives):
 *
 *   - the login request is the NIProvPerf example of docs/wire.md#examples (Role 1,
 *     ApplicationName NIProvPerf), this host's Position put in;
 *   - the directory refresh comes on stream -1 (not solicited, key FILTER|SERVICE_ID, filter 7,
 *     no Load filter), then one refresh per item on -6, -7, ... (key NAME_TYPE|NAME|
 *     SERVICE_ID), then updates at the configured rate;
 *   - it retries every second until the ADH listens; losing the ADH afterwards ends the test
 *     with status 1 and "TEST FAILED"; SIGINT ends a good run with status 0 and the summary.
 */
#include "pvt.h"

#include "run_host.h"
#include "tools_test.h"

#include <inttypes.h>
#include <netinet/in.h>

/* A listening test ADH on an ephemeral port. */
static tp_server *adh_bind(const char *port, int *bound)
{
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = port;
    tp_server *srv;
    if (tp_bind(&o, &srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    *bound = tp_server_port(srv);
    return srv;
}

static tp_channel *adh_accept(tp_server *srv, int timeout_ms)
{
    int64_t end = pvt_ms() + timeout_ms;
    tp_channel *ch = NULL;
    while (!ch && pvt_ms() < end) {
        struct pollfd f = {.fd = tp_server_fd(srv), .events = POLLIN};
        poll(&f, 1, 50);
        if (tp_accept(srv, &ch) < 0)
            fail_msg("tp_accept: %s", err_msg());
    }
    if (!ch)
        fail_msg("NIProvPerf did not connect within %d ms", timeout_ms);
    if (tp_init_wait(ch, 5000) != TP_ACTIVE)
        fail_msg("handshake: %s", err_msg());
    return ch;
}

static const char login_hex[] =
    "00 65 01 01 00 00 00 01 04 00 80 5B 22 04 75 73 65 72 05 80 52 08 00 04 0D 41 70 70 6C 69 "
    "63 61 74 69 6F 6E 49 64 11 03 32 35 36 0F 41 70 70 6C 69 63 61 74 69 6F 6E 4E 61 6D 65 11 "
    "0A 4E 49 50 72 6F 76 50 65 72 66 08 50 6F 73 69 74 69 6F 6E 11 0D 31 32 37 2E 30 2E 30 2E "
    "31 2F 6E 65 74 04 52 6F 6C 65 04 01 01";

static void answer_login(tp_channel *ch)
{
    rwf_login r;
    memset(&r, 0, sizeof(r));
    r.stream_id = 1;
    r.user = RWF_STR("user");
    r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_SOLICITED;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    r.app_id = RWF_STR("256");
    r.app_name = RWF_STR("TestADH");
    PVT_SEND_ENC(ch, rwf_rdm_login_refresh(&e, &r));
}

static void test_publish(void **state)
{
    (void)state;
    int port;
    tp_server *srv = adh_bind("0", &port);
    const char *dir = pvt_workdir("publish", 20);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    const char *const args[] = {"-h",        "127.0.0.1",  "-p",
                                ps,          "-itemCount", "5",
                                "-tickRate", "10",         "-updateRate",
                                "50",        "-uname",     "user",
                                "-runTime",  "60",         "-latencyUpdateRate",
                                "10",        NULL};
    pvt_proc p;
    pvt_start(&p, dir, "NIProvPerf", args);
    tp_channel *ch = adh_accept(srv, 10000);

    static uint8_t buf[8192];
    uint8_t want[256];
    int n = pvt_recv(ch, buf, sizeof(buf), 5000);
    assert_true(n > 0);
    size_t wl = ts_hex(login_hex, want, sizeof(want));
    char pos[64];
    run_host_position(pos, sizeof(pos), "localhost");
    wl = pvt_set_position(want, (uint32_t)wl, sizeof(want), pos);
    ts_assert_bytes_equal(buf, (size_t)n, want, wl);

    answer_login(ch);
    /* The directory on stream -1. */
    n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, -1, 5000, NULL);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.domain, RWF_DMT_SOURCE);
    assert_int_equal(m.flags & RWF_RFMF_SOLICITED, 0);
    assert_true(m.flags & RWF_RFMF_CLEAR_CACHE);
    assert_int_equal(m.key.flags, RWF_MKF_HAS_FILTER | RWF_MKF_HAS_SERVICE_ID);
    assert_int_equal(m.key.filter, 7);
    assert_int_equal(m.key.service_id, 1);
    rwf_service svc[2];
    unsigned count;
    assert_int_equal(rwf_rdm_directory_decode(&m, svc, 2, &count), RWF_OK);
    assert_int_equal(count, 1);
    assert_true(rwf_buf_eq(svc[0].name, RWF_STR("DIRECT_FEED")));
    assert_int_equal(svc[0].flags & RWF_SVC_HAS_LOAD, 0);
    assert_int_equal(svc[0].service_state, 1);

    /* One refresh per item on -6 .. -10, names RDT1 .. RDT5. */
    for (int i = 0; i < 5; i++) {
        n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, -6 - i, 5000, NULL);
        assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
        assert_int_equal(m.domain, RWF_DMT_MARKET_PRICE);
        assert_int_equal(m.flags & RWF_RFMF_SOLICITED, 0);
        assert_int_equal(m.key.flags,
                         RWF_MKF_HAS_NAME_TYPE | RWF_MKF_HAS_NAME | RWF_MKF_HAS_SERVICE_ID);
        assert_int_equal(m.key.name_type, 1);
        char name[16];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        assert_true(rwf_buf_eq(m.key.name, rwf_buf_cstr(name)));
        assert_int_equal(m.state.stream_state, RWF_STREAM_OPEN);
    }
    /* Updates at 50/s over two seconds (within two ticks), on the item streams. */
    int64_t t0 = pvt_ms() + 300, t1 = t0 + 2000;
    int updates = 0;
    int64_t now;
    while ((now = pvt_ms()) < t1) {
        n = pvt_recv(ch, buf, sizeof(buf), (int)(t1 - now));
        assert_true(n >= 0);
        if (n == 0 || now < t0)
            continue;
        assert_int_equal(buf[2], RWF_MC_UPDATE);
        int32_t sid = rwf_msg_peek_stream(rwf_buf_make(buf, (size_t)n));
        assert_true(sid <= -6 && sid >= -10);
        updates++;
    }
    if (updates < 90 || updates > 110)
        fail_msg("%d updates in 2 s at 50/s", updates);
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    char *sum = pvt_file(&p, "NIProvSummary.out");
    assert_non_null(strstr(sum, "  Images sent: 5\n"));
    assert_true(tt_num(sum, "  Updates sent: ") >= 100);
    assert_null(strstr(sum, "TEST FAILED"));
    free(sum);
    char *json = pvt_file(&p, "NIProvSummary.json");
    assert_non_null(strstr(json, "\"passed\": true"));
    free(json);
    tp_close(ch);
    tp_server_close(srv);
    pvt_remove(&p);
}

/* A free port: bound, read back and released (the tool connects to it later). */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof(a);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &l) != 0)
        fail_msg("free port: %s", strerror(errno));
    close(s);
    return ntohs(a.sin_port);
}

static void test_retry_then_loss(void **state)
{
    (void)state;
    int port = free_port();
    const char *dir = pvt_workdir("retry", 10);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    const char *const args[] = {"-h",        "127.0.0.1", "-p",          ps,   "-itemCount", "2",
                                "-tickRate", "10",        "-updateRate", "10", "-runTime",   "60",
                                NULL};
    pvt_proc p;
    pvt_start(&p, dir, "NIProvPerf", args);
    /* Two attempts fail (nobody listens), about a second apart. */
    int64_t t0 = pvt_ms();
    for (;;) {
        char *out = pvt_output(&p);
        int attempts = 0;
        for (const char *q = strstr(out, "Attempting unified connect"); q;
             q = strstr(q + 1, "Attempting unified connect"))
            attempts++;
        free(out);
        if (attempts >= 2)
            break;
        if (pvt_ms() - t0 > 10000)
            fail_msg("no retry");
        usleep(50000);
    }
    assert_true(pvt_ms() - t0 >= 900);
    int bound;
    tp_server *srv = adh_bind(ps, &bound);
    tp_channel *ch = adh_accept(srv, 10000);
    static uint8_t buf[8192];
    assert_true(pvt_recv(ch, buf, sizeof(buf), 5000) > 0); /* login request */
    answer_login(ch);
    pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, -7, 5000, NULL);
    /* The ADH goes away (an orderly close, said so): the test has failed. */
    tp_close(ch);
    tp_server_close(srv);
    assert_int_equal(pvt_wait(&p, 10000), 1);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "Channel Closed: the peer closed the connection normally"));
    assert_non_null(strstr(out, "TEST FAILED. An error occurred during this test.\n"));
    assert_non_null(strstr(out, "Exiting."));
    free(out);
    char *sum = pvt_file(&p, "NIProvSummary.out");
    assert_non_null(strstr(sum, "  Images sent: 2\n"));
    assert_non_null(strstr(sum, "TEST FAILED"));
    free(sum);
    pvt_remove(&p);
}

/* Two threads, two connections: each publishes the common item and its own ones. */
static void test_two_threads(void **state)
{
    (void)state;
    int port;
    tp_server *srv = adh_bind("0", &port);
    const char *dir = pvt_workdir("nithreads", 20);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    const char *const args[] = {
        "-h",       "127.0.0.1", "-p",        ps,   "-itemCount",  "5",  "-commonItemCount", "1",
        "-threads", "-1,-1",     "-tickRate", "10", "-updateRate", "10", "-runTime",         "60",
        NULL};
    pvt_proc p;
    pvt_start(&p, dir, "NIProvPerf", args);
    tp_channel *ch[2];
    static uint8_t buf[8192];
    int names[2][8], counts[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        ch[c] = adh_accept(srv, 10000);
        assert_true(pvt_recv(ch[c], buf, sizeof(buf), 5000) > 0);
        answer_login(ch[c]);
    }
    /* 5 items over 2 threads with 1 common: 3 and 2 items, RDT1 in both. */
    for (int c = 0; c < 2; c++) {
        pvt_expect(ch[c], buf, sizeof(buf), RWF_MC_REFRESH, -1, 5000, NULL);
        for (int i = 0; i < 3; i++) {
            int n = pvt_recv(ch[c], buf, sizeof(buf), 1000);
            if (n <= 0 || buf[2] != RWF_MC_REFRESH)
                break;
            rwf_msg m;
            assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
            assert_int_equal(m.stream_id, -6 - i);
            names[c][counts[c]++] = atoi(m.key.name.data + 3);
        }
    }
    int total = counts[0] + counts[1];
    assert_int_equal(total, 5);
    assert_int_equal(names[0][0], 1);
    assert_int_equal(names[1][0], 1);
    /* The unique items: 2, 3 on one connection and 4 on the other (or the other way round). */
    int seen[6] = {0};
    for (int c = 0; c < 2; c++)
        for (int i = 1; i < counts[c]; i++)
            seen[names[c][i]]++;
    assert_int_equal(seen[2] + seen[3] + seen[4], 3);
    assert_int_equal(pvt_stop(&p, SIGINT, 10000), 0);
    char *sum = pvt_file(&p, "NIProvSummary.out");
    assert_non_null(strstr(sum, "--- THREAD 1 SUMMARY ---"));
    assert_non_null(strstr(sum, "--- THREAD 2 SUMMARY ---"));
    assert_non_null(strstr(sum, "  Images sent: 5\n"));
    free(sum);
    for (int c = 0; c < 2; c++)
        tp_close(ch[c]);
    tp_server_close(srv);
    pvt_remove(&p);
}

/* -reactor -workerThreads: the reactor's login (ApplicationName "eta", Role 1), the directory on
 * -1, the items and the updates as without it; losing the ADH afterwards fails the test. */
static void test_reactor(void **state)
{
    (void)state;
    int port;
    tp_server *srv = adh_bind("0", &port);
    const char *dir = pvt_workdir("nireactor", 20);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    const char *const args[] = {
        "-h",       "127.0.0.1",      "-p", ps,       "-itemCount", "3",        "-tickRate",
        "10",       "-updateRate",    "50", "-uname", "user",       "-runTime", "60",
        "-reactor", "-workerThreads", "-1", NULL};
    pvt_proc p;
    pvt_start(&p, dir, "NIProvPerf", args);
    tp_channel *ch = adh_accept(srv, 10000);
    static uint8_t buf[8192];
    int n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REQUEST, 1, 5000, NULL);
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    rwf_login l;
    assert_int_equal(rwf_rdm_login_decode(&m, &l), RWF_OK);
    assert_true(rwf_buf_eq(l.user, RWF_STR("user")));
    assert_true(l.flags & RWF_LOGIN_HAS_ROLE);
    assert_int_equal(l.role, 1);
    assert_true(rwf_buf_eq(l.app_name, RWF_STR("eta")));
    assert_true(rwf_buf_eq(l.app_id, RWF_STR("256")));
    answer_login(ch);
    n = pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, -1, 5000, NULL);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(buf, (size_t)n)), RWF_OK);
    assert_int_equal(m.domain, RWF_DMT_SOURCE);
    assert_int_equal(m.key.filter, 7);
    for (int i = 0; i < 3; i++)
        pvt_expect(ch, buf, sizeof(buf), RWF_MC_REFRESH, -6 - i, 5000, NULL);
    int updates = 0;
    int64_t end = pvt_ms() + 1500;
    while (pvt_ms() < end) {
        n = pvt_recv(ch, buf, sizeof(buf), 200);
        assert_true(n >= 0);
        if (n > 0 && buf[2] == RWF_MC_UPDATE)
            updates++;
    }
    if (updates < 40)
        fail_msg("%d updates in 1.5 s at 50/s", updates);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "Use Reactor: Yes\n"));
    assert_non_null(strstr(out, "Thread List: (non) {-1}\n"));
    assert_non_null(strstr(out, "Attempting unified connect to server 127.0.0.1:"));
    assert_non_null(strstr(out, "active. Channel Info:\n"));
    assert_non_null(strstr(out, "Received login refresh.\n  ApplicationName: TestADH\n"));
    assert_non_null(strstr(out, "Created publishing list.\n"));
    free(out);
    /* The ADH goes away after the channel was up: the test has failed. */
    tp_close(ch);
    tp_server_close(srv);
    assert_int_equal(pvt_wait(&p, 15000), 1);
    out = pvt_output(&p);
    assert_non_null(strstr(out, "Connection down, reconnecting.  Channel fd="));
    assert_non_null(strstr(out, "TEST FAILED"));
    free(out);
    char *sum = pvt_file(&p, "NIProvSummary.out");
    assert_non_null(strstr(sum, "  Images sent: 3\n"));
    free(sum);
    pvt_remove(&p);
}

static void test_bad_item_file(void **state)
{
    (void)state;
    const char *dir = pvt_workdir("baditems", 3);
    const char *const args[] = {"-p", "1", "-itemCount", "5", "-runTime", "5", NULL};
    pvt_proc p;
    pvt_start(&p, dir, "NIProvPerf", args);
    assert_int_equal(pvt_wait(&p, 10000), 2);
    char *out = pvt_output(&p);
    assert_non_null(strstr(out, "350k.xml"));
    free(out);
    pvt_remove(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish),       cmocka_unit_test(test_retry_then_loss),
        cmocka_unit_test(test_two_threads),   cmocka_unit_test(test_reactor),
        cmocka_unit_test(test_bad_item_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
