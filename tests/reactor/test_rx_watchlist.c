/* The watchlist against a scripted provider on loopback: its wire stream ids, requests held until
 * the service is up, aggregation and fan-out, recovery after a lost connection and after a
 * service went down, items closed by the provider, messages for streams it never opened, login
 * reject, snapshots, posts (on and off stream, acks and their timeout), generic messages and the
 * request timeout. */
#include "wl_fixture.h"

/* The original watchlist consumer's directory request (watchlist/decoded.txt, C>S #3). */
static const char *DIR3F_HEX = "00 0f 01 04 00 00 00 02 04 00 80 05 08 00 00 00 3f";
/* Its request for RDT1 on wire stream 4 (C>S #5). */
static const char *RDT1_HEX = "00 12 01 06 00 00 00 04 44 00 22 80 07 03 01 04 52 44 54 31";

/* Accepts the channel and answers login and directory (service up). */
static void serve_admin(wl_fixture *f, bool check_bytes)
{
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    if (check_bytes) {
        uint8_t want[32];
        size_t n = ts_hex(DIR3F_HEX, want, sizeof(want));
        ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
    }
    tx_peer_directory(&f->peer, 2, 0x3F, false, 1, true);
}

/* Submits requests for RDT1.. on the tool's streams first.. (streaming, QoS realtime). */
static void request_items(wl_fixture *f, int32_t first, int n)
{
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        assert_int_equal(tx_request(f->ch, first + i, name, true, true), 0);
    }
    rx_flush(f->ch);
}

/* Reads n item requests and returns their wire ids in ids[]. */
static void read_requests(wl_fixture *f, int32_t *ids, int n)
{
    rwf_msg m;
    for (int i = 0; i < n; i++) {
        if (!tx_peer_read(&f->peer, &m, 3000))
            fail_msg("request %d of %d did not come", i + 1, n);
        assert_int_equal(m.msg_class, RWF_MC_REQUEST);
        ids[i] = m.stream_id;
    }
}

static void refresh_all(wl_fixture *f, const int32_t *ids, int n)
{
    for (int i = 0; i < n; i++)
        tx_peer_item(&f->peer, RWF_MC_REFRESH, ids[i], RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                     RWF_DATA_OK, "");
}

/* Waits for n refreshes from index from; returns the index after the last. */
static int wait_refreshes(wl_fixture *f, int from, int n)
{
    int i = from;
    for (int k = 0; k < n; k++)
        i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_REFRESH, 3000) + 1;
    return i;
}

/* Requests made before the service is known wait; then go out on wire ids 4.. in order, with the
 * bytes of the original; replies come back on the tool's ids. */
static void test_ids_and_pending(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    tx_peer_accept(&f->peer, 5000);
    int ready = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    assert_true(tx_find(&f->log, 0, TX_LOGIN, 0) < 0 || tx_find(&f->log, 0, TX_LOGIN, 0) > ready);
    request_items(f, 5, 5); /* before login and directory */
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_quiet(&f->peer, 100);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    tx_peer_quiet(&f->peer, 100); /* still no service */
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_pending, 5);
    tx_peer_directory(&f->peer, 2, 0x3F, false, 1, true);
    int32_t ids[5];
    read_requests(f, ids, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(ids[i], 4 + i);
    tx_peer_quiet(&f->peer, 100);
}

static void test_wire_bytes(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, true);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 5);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    uint8_t want[32];
    size_t n = ts_hex(RDT1_HEX, want, sizeof(want));
    ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
    int32_t ids[4];
    read_requests(f, ids, 4);
    assert_int_equal(ids[3], 8);
    /* Replies on wire 4..8 reach the tool on 5..9, in the decoded header and the bytes. */
    int32_t all[5] = {4, 5, 6, 7, 8};
    refresh_all(f, all, 5);
    int i = 0;
    for (int k = 0; k < 5; k++) {
        i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_REFRESH, 3000);
        assert_int_equal(f->log.v[i].stream, 5 + k);
        assert_int_equal(f->log.v[i].enc_stream, 5 + k);
        i++;
    }
    tx_peer_item(&f->peer, RWF_MC_UPDATE, 6, RWF_DMT_MARKET_PRICE, false, 0, 0, NULL);
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_UPDATE, 3000);
    assert_int_equal(f->log.v[i].stream, 7);
}

/* Two identical requests share a wire stream; a third joins the open stream and gets a refresh
 * of its own; updates fan out; the wire stream closes with the last request. */
static void test_aggregation(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    assert_int_equal(tx_request(f->ch, 10, "AGG", true, true), 0);
    assert_int_equal(tx_request(f->ch, 11, "AGG", true, true), 0);
    assert_int_equal(tx_request(f->ch, 20, "OTHER", true, true), 0);
    rx_flush(f->ch);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    assert_true(rwf_buf_eq_cstr(m.key.name, "AGG"));
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 5);
    assert_true(rwf_buf_eq_cstr(m.key.name, "OTHER"));
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 4, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    int i = wait_refreshes(f, 0, 2);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_streams, 2);
    assert_int_equal(st.wl_requests, 3);
    /* A third request joins the open stream: a new request on the same wire id. */
    assert_int_equal(tx_request(f->ch, 12, "AGG", true, true), 0);
    rx_flush(f->ch);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    int before = tx_count(&f->log, TX_MSG, RWF_MC_REFRESH);
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 4, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_REFRESH, 3000);
    assert_int_equal(f->log.v[i].stream, 12);
    tx_pump(f->r, 50);
    assert_int_equal(tx_count(&f->log, TX_MSG, RWF_MC_REFRESH), before + 1);
    /* An update goes to all three; an unsolicited refresh too. */
    tx_peer_item(&f->peer, RWF_MC_UPDATE, 4, RWF_DMT_MARKET_PRICE, false, 0, 0, NULL);
    int64_t end = tx_now_ms() + 3000;
    while (f->log.updates < 3 && tx_now_ms() < end)
        tx_pump(f->r, 5);
    assert_int_equal(f->log.updates, 3);
    /* Closing two of three sends nothing; the last closes the wire stream. */
    rwf_msg c;
    rwf_msg_init(&c, RWF_MC_CLOSE, RWF_DMT_MARKET_PRICE, 10, RWF_DT_NO_DATA);
    assert_int_equal(rx_submit_msg(f->ch, &c), 0);
    c.stream_id = 12;
    assert_int_equal(rx_submit_msg(f->ch, &c), 0);
    rx_flush(f->ch);
    tx_peer_quiet(&f->peer, 100);
    c.stream_id = 11;
    assert_int_equal(rx_submit_msg(f->ch, &c), 0);
    rx_flush(f->ch);
    tx_peer_expect(&f->peer, &m, RWF_MC_CLOSE, 4);
    c.stream_id = 11; /* closed already: refused */
    assert_int_equal(rx_submit_msg(f->ch, &c), TP_EINVAL);
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_streams, 1);
    assert_int_equal(st.wl_requests, 1);
}

/* The connection is lost: every item gets Open/Suspect; after the reconnect login and directory
 * run again and the items are requested on new wire ids (9.. after 4..8), and refreshed. */
static void test_recovery(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 5);
    int32_t ids[5];
    read_requests(f, ids, 5);
    refresh_all(f, ids, 5);
    int i = wait_refreshes(f, 0, 5);
    tx_peer_drop(&f->peer);
    int d = tx_wait_for(f->r, &f->log, i, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
    for (int k = 0; k < 5; k++) {
        int s = tx_wait_for(f->r, &f->log, d, TX_MSG, RWF_MC_STATUS, 3000);
        assert_int_equal(f->log.v[s].stream, 5 + k);
        assert_int_equal(f->log.v[s].sstate, RWF_STREAM_OPEN);
        assert_int_equal(f->log.v[s].dstate, RWF_DATA_SUSPECT);
        d = s + 1;
    }
    serve_admin(f, true);
    read_requests(f, ids, 5);
    for (int k = 0; k < 5; k++)
        assert_int_equal(ids[k], 9 + k);
    refresh_all(f, ids, 5);
    int r0 = wait_refreshes(f, d, 5);
    (void)r0;
    for (int k = 0, j = d; k < 5; k++, j++) {
        j = tx_find(&f->log, j, TX_MSG, RWF_MC_REFRESH);
        assert_int_equal(f->log.v[j].stream, 5 + k);
    }
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_streams, 5);
    assert_int_equal(st.wl_pending, 0);
}

/* The service goes down: statuses, the wire streams closed; it comes back: requested again. */
static void test_service_down_up(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 2);
    int32_t ids[2];
    read_requests(f, ids, 2);
    refresh_all(f, ids, 2);
    int i = wait_refreshes(f, 0, 2);
    tx_peer_directory(&f->peer, 2, 0x3F, true, 0, true); /* ServiceState 0 */
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_CLOSE, 4);
    tx_peer_expect(&f->peer, &m, RWF_MC_CLOSE, 5);
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_STATUS, 3000);
    assert_int_equal(f->log.v[i].dstate, RWF_DATA_SUSPECT);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_pending, 2);
    tx_peer_directory(&f->peer, 2, 0x3F, true, 1, true); /* up again */
    read_requests(f, ids, 2);
    assert_int_equal(ids[0], 6);
    assert_int_equal(ids[1], 7);
    refresh_all(f, ids, 2);
    wait_refreshes(f, i, 2);
}

/* The provider closes an item: the tool gets the Closed status and the stream is gone; a later
 * message on that wire id is a message for an unknown stream (dropped, counted, warned). */
static void test_closed_by_provider(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 1);
    int32_t id;
    read_requests(f, &id, 1);
    refresh_all(f, &id, 1);
    int i = wait_refreshes(f, 0, 1);
    tx_peer_item(&f->peer, RWF_MC_STATUS, id, RWF_DMT_MARKET_PRICE, false, RWF_STREAM_CLOSED,
                 RWF_DATA_SUSPECT, "Stream closed");
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_STATUS, 3000);
    assert_int_equal(f->log.v[i].stream, 5);
    assert_int_equal(f->log.v[i].sstate, RWF_STREAM_CLOSED);
    assert_string_equal(f->log.v[i].text, "Stream closed");
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_streams, 0);
    assert_int_equal(st.wl_requests, 0);
    tx_peer_item(&f->peer, RWF_MC_REFRESH, id, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 777, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    int w = tx_wait_for(f->r, &f->log, i, TX_CHANNEL, RX_CHANNEL_WARNING, 3000);
    assert_non_null(strstr(f->log.v[w].text, "did not open"));
    tx_pump(f->r, 50);
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.unknown_stream, 2);
    assert_int_equal(tx_count(&f->log, TX_MSG, RWF_MC_REFRESH), 1);
}

/* A login reject: the tool sees it, waiting requests are closed, no directory request. */
static void test_login_reject(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    tx_peer_accept(&f->peer, 5000);
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    request_items(f, 5, 3);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_CLOSED, "Not allowed");
    int l = tx_wait_for(f->r, &f->log, 0, TX_LOGIN, RWF_MC_REFRESH, 3000);
    assert_int_equal(f->log.v[l].sstate, RWF_STREAM_CLOSED);
    for (int k = 0; k < 3; k++) {
        l = tx_wait_for(f->r, &f->log, l, TX_MSG, RWF_MC_STATUS, 3000);
        assert_int_equal(f->log.v[l].sstate, RWF_STREAM_CLOSED);
        assert_non_null(strstr(f->log.v[l].text, "Not allowed"));
        l++;
    }
    tx_peer_quiet(&f->peer, 150);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_requests, 0);
}

/* A snapshot: one refresh, then the stream is gone. */
static void test_snapshot(void **state)
{
    wl_fixture *f = *state;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    assert_int_equal(tx_request(f->ch, 5, "SNAP", false, true), 0);
    assert_int_equal(tx_request(f->ch, 6, "SNAP", false, true), 0); /* not aggregated */
    rx_flush(f->ch);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    assert_false(m.flags & RWF_RQMF_STREAMING);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 5);
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 4, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_NON_STREAMING,
                 RWF_DATA_OK, "");
    int i = wait_refreshes(f, 0, 1);
    (void)i;
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.wl_streams, 1);
    assert_int_equal(st.wl_requests, 1);
}

static void post(wl_fixture *f, int32_t stream, bool ack, uint32_t post_id)
{
    rwf_msg p;
    rwf_msg_init(&p, RWF_MC_POST, RWF_DMT_MARKET_PRICE, stream, RWF_DT_NO_DATA);
    p.flags = RWF_PSMF_POST_COMPLETE | (ack ? RWF_PSMF_ACK | RWF_PSMF_HAS_POST_ID : 0);
    p.post_id = post_id;
    p.post_user_addr = 0x7F000001;
    p.post_user_id = 42;
    if (stream == 1) {
        p.flags |= RWF_PSMF_HAS_MSG_KEY;
        p.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        p.key.service_id = 1;
        p.key.name = RWF_STR("RDT1");
    }
    assert_int_equal(rx_submit_msg(f->ch, &p), 0);
    rx_flush(f->ch);
}

/* Posts on the item stream (mapped) and off stream (login stream); acks mapped back; a post whose
 * ack never comes gets a NAK after the timeout; generic messages both ways. */
static void test_posts_and_generics(void **state)
{
    wl_fixture *f = *state;
    f->role.post_ack_timeout_ms = 150;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 1);
    int32_t id;
    read_requests(f, &id, 1);
    refresh_all(f, &id, 1);
    int i = wait_refreshes(f, 0, 1);
    rwf_msg m;
    post(f, 5, true, 77);
    tx_peer_expect(&f->peer, &m, RWF_MC_POST, id);
    assert_int_equal(m.post_id, 77);
    rwf_msg a;
    rwf_msg_init(&a, RWF_MC_ACK, RWF_DMT_MARKET_PRICE, id, RWF_DT_NO_DATA);
    a.ack_id = 77;
    tx_peer_send(&f->peer, &a);
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_ACK, 3000);
    assert_int_equal(f->log.v[i].stream, 5);
    assert_int_equal(f->log.v[i].ack_id, 77);
    post(f, 1, false, 0); /* off stream */
    tx_peer_expect(&f->peer, &m, RWF_MC_POST, 1);
    post(f, 5, true, 78); /* never acked */
    tx_peer_expect(&f->peer, &m, RWF_MC_POST, id);
    i = tx_wait_for(f->r, &f->log, i + 1, TX_MSG, RWF_MC_ACK, 3000);
    assert_int_equal(f->log.v[i].stream, 5);
    assert_int_equal(f->log.v[i].ack_id, 78);
    assert_int_not_equal(f->log.v[i].nak, 0);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.ack_timeouts, 1);
    /* Generic messages. */
    rwf_msg g;
    rwf_msg_init(&g, RWF_MC_GENERIC, RWF_DMT_MARKET_PRICE, 5, RWF_DT_NO_DATA);
    assert_int_equal(rx_submit_msg(f->ch, &g), 0);
    rx_flush(f->ch);
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, id);
    g.stream_id = id;
    tx_peer_send(&f->peer, &g);
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_GENERIC, 3000);
    assert_int_equal(f->log.v[i].stream, 5);
    /* A post for a stream the tool never opened is refused. */
    rwf_msg p;
    rwf_msg_init(&p, RWF_MC_POST, RWF_DMT_MARKET_PRICE, 99, RWF_DT_NO_DATA);
    assert_int_equal(rx_submit_msg(f->ch, &p), TP_EINVAL);
}

/* No refresh within the request timeout: closed on the wire, requested again on a new id, and the
 * tool is told. */
static void test_request_timeout(void **state)
{
    wl_fixture *f = *state;
    f->role.request_timeout_ms = 150;
    wl_open_channel(f);
    serve_admin(f, false);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    request_items(f, 5, 1);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 4);
    tx_peer_expect(&f->peer, &m, RWF_MC_CLOSE, 4);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 5);
    int i = tx_wait_for(f->r, &f->log, 0, TX_MSG, RWF_MC_STATUS, 3000);
    assert_int_equal(f->log.v[i].code, RWF_SC_TIMEOUT);
    tx_peer_item(&f->peer, RWF_MC_REFRESH, 5, RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                 RWF_DATA_OK, "");
    wait_refreshes(f, i, 1);
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_int_equal(st.req_timeouts, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ids_and_pending, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_wire_bytes, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_aggregation, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_recovery, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_service_down_up, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_closed_by_provider, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_login_reject, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_snapshot, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_posts_and_generics, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_request_timeout, wl_setup, wl_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
