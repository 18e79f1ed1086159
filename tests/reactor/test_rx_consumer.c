/* The consumer role without the watchlist, against a scripted provider on loopback: the
 * login/directory/dictionary exchange the layer runs by itself (bytes of the original's capture),
 * the order of the events, pass-through of the tool's item traffic, recovery (back-off, new
 * session after a loss, a reconnect storm), back-pressure of a full ring, closing. */
#include "rx_testutil.h"

/* The original reactor consumer's login request (reactor/decoded.txt, C>S #1, user "root"). */
static const char *LOGIN_HEX =
    "00 56 01 01 00 00 00 01 04 00 80 4c 22 04 72 6f 6f 74 05 80 43 08 00 03 0d 41 70 70 6c 69 "
    "63 61 74 69 6f 6e 49 64 11 03 32 35 36 0f 41 70 70 6c 69 63 61 74 69 6f 6e 4e 61 6d 65 11 "
    "03 65 74 61 08 50 6f 73 69 74 69 6f 6e 11 0d 31 32 37 2e 30 2e 30 2e 31 2f 6e 65 74";
/* Its directory request (C>S #3): stream 2, filter INFO|STATE|GROUP. */
static const char *DIR07_HEX = "00 0f 01 04 00 00 00 02 04 00 80 05 08 00 00 00 07";

typedef struct fixture {
    rx_reactor *r;
    tx_log log;
    tx_peer peer;
    rx_chan *ch;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    rx_opts o;
    rx_opts_init(&o);
    if (rx_create(&o, &f->r) != 0)
        fail_msg("rx_create: %s", err_msg());
    tx_peer_listen(&f->peer, f->r);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rx_destroy(f->r);
    tx_peer_free(&f->peer);
    free(f);
    return 0;
}

/* Opens a consumer channel to the peer. */
static void open_consumer(fixture *f, rx_role *role, int min_ms, int max_ms)
{
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_min_ms = min_ms;
    co.reconnect_max_ms = max_ms;
    if (rx_connect(f->r, &co, role, &f->log, &f->ch) != 0)
        fail_msg("rx_connect: %s", err_msg());
}

static void consumer_role(rx_role *role, rwf_login *l)
{
    rx_role_init(role, RX_ROLE_CONSUMER);
    tx_callbacks(&role->cb);
    tx_login(l);
    role->login = l;
}

/* Runs the exchange up to READY and checks the bytes the layer sent. */
static void session(fixture *f)
{
    uint8_t want[128];
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    size_t n = ts_hex(LOGIN_HEX, want, sizeof(want));
    ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    n = ts_hex(DIR07_HEX, want, sizeof(want));
    ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
    tx_peer_directory(&f->peer, 2, 0x07, false, 1, true);
}

static void test_session(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    open_consumer(f, &role, 1000, 5000);
    session(f);
    int ready = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    /* UP, login refresh, directory refresh, READY: in that order. */
    int up = tx_find(&f->log, 0, TX_CHANNEL, RX_CHANNEL_UP);
    int login = tx_find(&f->log, 0, TX_LOGIN, RWF_MC_REFRESH);
    int dir = tx_find(&f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH);
    assert_true(up >= 0 && up < login && login < dir && dir < ready);
    assert_int_equal(f->log.v[dir].nsvc, 1);
    assert_true(rx_is_up(f->ch));
    assert_non_null(rx_info(f->ch));
    assert_int_equal(rx_info(f->ch)->ping_timeout, 60);
    assert_true(rx_chan_fd(f->ch) >= 0);

    /* The tool's item traffic passes unchanged: streams 5.. both ways. */
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        assert_int_equal(tx_request(f->ch, 5 + i, name, true, true), 0);
    }
    rx_flush(f->ch);
    rwf_msg m;
    for (int i = 0; i < 3; i++) {
        tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 5 + i);
        assert_int_equal(m.flags, RWF_RQMF_STREAMING | RWF_RQMF_HAS_QOS);
    }
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 5, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    for (int i = 0; i < 1000; i++)
        tx_peer_item(&f->peer, RWF_MC_UPDATE, 6, RWF_DMT_MARKET_PRICE, false, 0, 0, NULL);
    int rf = tx_wait_for(f->r, &f->log, 0, TX_MSG, RWF_MC_REFRESH, 3000);
    assert_int_equal(f->log.v[rf].stream, 5);
    int64_t end = tx_now_ms() + 3000;
    while (f->log.updates < 1000 && tx_now_ms() < end)
        tx_pump(f->r, 5);
    assert_int_equal(f->log.updates, 1000);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_true(st.msgs_read >= 1003);
    assert_int_equal(st.msgs_written, 5);
    assert_int_equal(st.connects, 1);
}

static void test_dictionary_download(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    role.dictionary_download = true;
    open_consumer(f, &role, 1000, 5000);
    session(f);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 3);
    assert_int_equal(m.domain, RWF_DMT_DICTIONARY);
    assert_true(rwf_buf_eq_cstr(m.key.name, "RWFFld"));
    assert_int_equal(m.key.service_id, 1);
    assert_int_equal(m.key.filter, RWF_DICT_NORMAL);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    assert_true(rwf_buf_eq_cstr(m.key.name, "RWFEnum"));
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 3, RWF_DMT_DICTIONARY, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    tx_pump(f->r, 100);
    assert_int_equal(tx_find(&f->log, 0, TX_CHANNEL, RX_CHANNEL_READY), -1);
    assert_true(tx_find(&f->log, 0, TX_DICTIONARY, RWF_MC_REFRESH) >= 0);
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 4, RWF_DMT_DICTIONARY, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
}

/* A provider that rejects the login: the tool gets the refresh, nothing more is sent. */
static void test_login_reject(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    open_consumer(f, &role, 1000, 5000);
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_CLOSED, "Login denied by the test");
    int i = tx_wait_for(f->r, &f->log, 0, TX_LOGIN, RWF_MC_REFRESH, 3000);
    assert_int_equal(f->log.v[i].sstate, RWF_STREAM_CLOSED);
    assert_string_equal(f->log.v[i].text, "Login denied by the test");
    tx_peer_quiet(&f->peer, 200);
    assert_int_equal(tx_find(&f->log, 0, TX_CHANNEL, RX_CHANNEL_READY), -1);
}

/* The provider goes away: DOWN_RECONNECTING with the reason, then a new session that runs login
 * and directory again. */
static void test_reconnect(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    open_consumer(f, &role, 50, 400);
    session(f);
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    int64_t lost = tx_now_ms();
    tx_peer_drop(&f->peer);
    int d = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
    assert_true(f->log.v[d].text[0] != '\0');
    assert_false(rx_is_up(f->ch));
    /* While down, a write is refused (the tool counts it; nothing is queued for later). */
    rx_buf *b;
    assert_int_equal(rx_get_buffer(f->ch, 100, false, &b), TP_EFAIL);
    session(f);
    int64_t back = tx_now_ms();
    assert_true(back - lost >= 45);
    int up2 = tx_wait_for(f->r, &f->log, d, TX_CHANNEL, RX_CHANNEL_UP, 3000);
    tx_wait_for(f->r, &f->log, up2, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.connects, 2);
    assert_int_equal(st.reconnects, 1);
}

/* Nothing listens: attempts 40, 80, 160, 160 ms apart; with a limit, a final DOWN. */
static void test_backoff(void **state)
{
    fixture *f = *state;
    tp_server_close(f->peer.srv); /* the port now refuses */
    f->peer.srv = NULL;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_min_ms = 40;
    co.reconnect_max_ms = 160;
    co.reconnect_limit = 4;
    int64_t start = tx_now_ms();
    assert_int_equal(rx_connect(f->r, &co, &role, &f->log, &f->ch), 0);
    int64_t t[6];
    int k = 0, from = 0;
    for (; k < 5; k++) {
        from = tx_wait_for(f->r, &f->log, from, TX_CHANNEL,
                           k < 4 ? RX_CHANNEL_DOWN_RECONNECTING : RX_CHANNEL_DOWN, 3000);
        t[k] = tx_now_ms();
        from++;
    }
    /* This thread sees each failure some time after the worker did (more on a loaded machine),
     * so the delays are checked from the start: failure k comes no sooner than the sum of the
     * delays before it, and each gap is not much longer than its delay. */
    int64_t want[] = {40, 80, 160, 160}, sum = 0;
    for (int i = 0; i < 4; i++) {
        sum += want[i];
        int64_t at = t[i + 1] - start, gap = t[i + 1] - t[i];
        if (at < sum - 5 || gap > want[i] + 150)
            fail_msg("attempt %d failed %lld ms after the start, %lld after the previous failure "
                     "(want %lld after the start, gap %lld)",
                     i + 2, (long long)at, (long long)gap, (long long)sum, (long long)want[i]);
    }
    assert_int_equal(tx_count(&f->log, TX_CHANNEL, RX_CHANNEL_UP), 0);
}

/* A provider that accepts and closes at once, 100 times: a clean DOWN_RECONNECTING per failed
 * attempt, no crash, nothing leaked (ASan), the channel still usable afterwards. */
static void test_storm(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    open_consumer(f, &role, 2, 4);
    int closes = 0;
    int64_t end = tx_now_ms() + 60000;
    while (closes < 100 && tx_now_ms() < end) {
        tp_channel *c = NULL;
        if (tp_accept(f->peer.srv, &c) == 1) {
            tp_close(c);
            closes++;
        }
        tx_pump(f->r, 1);
    }
    assert_int_equal(closes, 100);
    tx_pump(f->r, 50);
    /* Each attempt tries RIPC 14 down to 10 (a server that drops the connection may be an
     * older one), so 100 closes are 20 failed attempts. */
    int downs = tx_count(&f->log, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING);
    if (downs < 19)
        fail_msg("%d closes, %d DOWN_RECONNECTING events", closes, downs);
    int d = tx_find(&f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING);
    print_message("storm: %d closes, %d failed attempts, first reason: %s\n", closes, downs,
                  f->log.v[d].text);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.reconnects, (uint64_t)downs);
    assert_int_equal(tx_count(&f->log, TX_CHANNEL, RX_CHANNEL_UP), 0);
    /* Then a real provider: the channel comes up. */
    session(f);
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
}

/* A peer that does not read: the tool's writes fill the transport, then the ring, and
 * rx_get_buffer says TP_ENOBUFS (bounded); once the peer reads, writing works again. */
static void test_backpressure(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    role.directory = false;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.tp.guaranteed_output_buffers = 5;
    co.tp.sndbuf = 8192;
    co.out_ring_bytes = 16384;
    assert_int_equal(rx_connect(f->r, &co, &role, &f->log, &f->ch), 0);
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    int sent = 0, refused = 0;
    for (int i = 0; i < 200000 && !refused; i++) {
        rx_buf *b;
        int rc = rx_get_buffer(f->ch, 1000, false, &b);
        if (rc == TP_ENOBUFS) {
            /* Give the worker a moment: refused for good only when it cannot take more. */
            tx_pump(f->r, 20);
            rc = rx_get_buffer(f->ch, 1000, false, &b);
            if (rc == TP_ENOBUFS) {
                refused = 1;
                break;
            }
        }
        assert_int_equal(rc, 0);
        memset(b->data, 0, 1000);
        b->data[2] = RWF_MC_GENERIC;
        b->len = 1000;
        assert_int_equal(rx_submit(f->ch, b, 0), 0);
        sent++;
    }
    assert_true(refused);
    assert_true(sent > 10);
    /* The peer drains: the tool can write again. */
    int got = 0;
    int64_t end = tx_now_ms() + 5000;
    while (got < sent && tx_now_ms() < end) {
        tp_msg t;
        int rc = tp_read(f->peer.ch, &t);
        assert_true(rc >= 0);
        if (rc & TP_READ_MSG)
            got++;
        else if (!(rc & TP_READ_MORE))
            tx_pump(f->r, 1);
    }
    assert_int_equal(got, sent);
    rx_buf *b;
    assert_int_equal(rx_get_buffer(f->ch, 1000, false, &b), 0);
    rx_release(f->ch, b);
}

/* The tool closes the channel: the peer sees the connection end, no event follows. */
static void test_close(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    open_consumer(f, &role, 1000, 5000);
    session(f);
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    int n = f->log.n;
    assert_int_equal(rx_close(f->ch), 0);
    tx_pump(f->r, 100);
    tp_msg t;
    int rc = 0;
    for (int i = 0; i < 100 && rc >= 0; i++) {
        rc = tp_read(f->peer.ch, &t);
        if (rc >= 0)
            tx_pump(f->r, 2);
    }
    assert_int_equal(rc, TP_EFAIL);
    assert_int_equal(f->log.n, n);
}

/* Connection types: shared memory (in the clear or as TLS's inner type) is refused at
 * rx_connect, with the reason; WebSocket is carried (test_ws_tools runs it). */
static void test_conn_types(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    rx_chan *ch = NULL;
    co.tp.conn_type = TP_CONN_SHMEM;
    assert_int_equal(rx_connect(f->r, &co, &role, &f->log, &ch), -1);
    assert_non_null(strstr(err_msg(), "socket and WebSocket connections"));
    co.tp.conn_type = TP_CONN_ENCRYPTED;
    co.tp.encrypted_protocol = TP_CONN_SHMEM;
    assert_int_equal(rx_connect(f->r, &co, &role, &f->log, &ch), -1);
    assert_non_null(strstr(err_msg(), "socket and WebSocket connections"));
    assert_null(ch);
}

/* A callback that fails stops rx_dispatch with its value. */
static void test_callback_failure(void **state)
{
    fixture *f = *state;
    rx_role role;
    rwf_login l;
    consumer_role(&role, &l);
    f->log.fail_on = 1; /* the first event (UP) fails */
    open_consumer(f, &role, 1000, 5000);
    f->peer.r = NULL; /* the worker completes the handshake alone */
    tx_peer_accept(&f->peer, 5000);
    int64_t end = tx_now_ms() + 3000;
    int rc = 0;
    while (rc >= 0 && tx_now_ms() < end) {
        rx_wait(f->r, 1000000);
        rc = rx_dispatch(f->r, 100);
    }
    assert_int_equal(rc, -1);
    assert_string_equal(err_msg(), "test failure");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_session, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dictionary_download, setup, teardown),
        cmocka_unit_test_setup_teardown(test_login_reject, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_storm, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conn_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callback_failure, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
