/* Warm standby on a watchlist channel against a scripted provider on loopback: where the layer
 * sends the role messages (login based: ConsumerConnectionStatus right after the login refresh,
 * before the directory request, again after a reconnect; service based: ConsumerStatus per
 * service after the directory refresh, none on the login stream), their bytes (the codec's,
 * checked there against the original's), a role change sent at once, the items' Open/Suspect
 * statuses when a server is lost (decoded from the bytes the tool is handed), the spacing of
 * the reconnection attempts, and the refusals (a warm-standby role without the watchlist, a
 * role change on a channel without warm standby). */
#include "wl_fixture.h"

#include "clk.h"

/* The message the peer just read must be the login-based role message with this mode. */
static void assert_conn_status(wl_fixture *f, uint64_t mode)
{
    uint8_t want[128];
    rwf_enc e;
    size_t n;
    rwf_enc_init(&e, want, sizeof(want));
    assert_true(rwf_rdm_wsb_conn_status(&e, 1, mode) >= 0);
    assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
    ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
}

static void assert_consumer_status(wl_fixture *f, uint16_t service, uint64_t mode)
{
    uint8_t want[128];
    rwf_enc e;
    size_t n;
    rwf_enc_init(&e, want, sizeof(want));
    assert_true(rwf_rdm_wsb_consumer_status(&e, 2, service, mode) >= 0);
    assert_int_equal(rwf_enc_finish(&e, &n), RWF_OK);
    ts_assert_bytes_equal(f->peer.buf, f->peer.len, want, n);
}

/* Login based, starting as standby: login refresh -> ConsumerConnectionStatus 1 -> directory
 * request; promoted: ConsumerConnectionStatus 0 at once; after a lost connection the new
 * session tells the server its current role (0) at the same place. */
static void test_login_based(void **state)
{
    wl_fixture *f = *state;
    rwf_msg m;
    f->role.wsb_mode = RX_WSB_LOGIN;
    f->role.wsb_standby = true;
    wl_open_channel(f);
    assert_true(rx_wsb_is_standby(f->ch));
    for (int session = 0; session < 2; session++) {
        tx_peer_accept(&f->peer, 5000);
        tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
        tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
        tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1);
        assert_conn_status(f, session == 0 ? RWF_WSB_STANDBY : RWF_WSB_ACTIVE);
        tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
        tx_peer_directory(&f->peer, 2, 0x3F, false, 1, true);
        tx_pump(f->r, 20);
        if (session == 0) {
            assert_int_equal(rx_wsb_set_role(f->ch, false), 0);
            rx_flush(f->ch);
            tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1);
            assert_conn_status(f, RWF_WSB_ACTIVE);
            assert_false(rx_wsb_is_standby(f->ch));
            tx_peer_quiet(&f->peer, 50); /* nothing on the directory stream in this mode */
            tx_peer_drop(&f->peer);
            tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
        }
    }
}

/* Service based, starting active: no role message on the login stream; after the directory
 * refresh one ConsumerStatus for its service (1) with mode 0; made standby: mode 1 at once. */
static void test_service_based(void **state)
{
    wl_fixture *f = *state;
    rwf_msg m;
    f->role.wsb_mode = RX_WSB_SERVICE;
    wl_open_channel(f);
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    tx_peer_directory(&f->peer, 2, 0x3F, false, 1, true);
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 2);
    assert_consumer_status(f, 1, RWF_WSB_ACTIVE);
    assert_int_equal(rx_wsb_set_role(f->ch, true), 0);
    rx_flush(f->ch);
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 2);
    assert_consumer_status(f, 1, RWF_WSB_STANDBY);
    tx_peer_quiet(&f->peer, 50);
}

/* ---- the items' statuses when a server is lost ------------------------------------------- */

/* The tool's callback for item messages: decodes the bytes the layer hands over (not the
 * layer's decoded view) and logs what they say. */
static int decode_on_msg(rx_chan *ch, const rwf_msg *m)
{
    rwf_msg d;
    if (rwf_msg_decode(&d, m->encoded) != RWF_OK)
        fail_msg("the message handed to the tool does not decode: %s", err_msg());
    tx_fill(tx_add(rx_user(ch), TX_MSG), &d);
    return 0;
}

/* Promotes as a warm-standby tool does when its active server is lost: the lost channel is
 * made the standby during the loss event. */
static int promoting_on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    int rc = tx_on_channel(ch, ev, text);
    if (ev == RX_CHANNEL_DOWN_RECONNECTING || ev == RX_CHANNEL_DOWN)
        assert_int_equal(rx_wsb_set_role(ch, true), 0);
    return rc;
}

#define WSB_ITEMS 3

/* Login based session with WSB_ITEMS items open (tool streams 10..), refreshed. */
static void open_items(wl_fixture *f, bool standby)
{
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1);
    assert_conn_status(f, standby ? RWF_WSB_STANDBY : RWF_WSB_ACTIVE);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    tx_peer_directory(&f->peer, 2, 0x3F, false, 1, true);
    for (int i = 0; i < WSB_ITEMS; i++) {
        char name[16];
        snprintf(name, sizeof(name), "WSB%d", i);
        assert_int_equal(tx_request(f->ch, 10 + i, name, true, true), 0);
    }
    rx_flush(f->ch);
    int32_t wire[WSB_ITEMS];
    for (int i = 0; i < WSB_ITEMS; i++) {
        if (!tx_peer_read(&f->peer, &m, 3000) || m.msg_class != RWF_MC_REQUEST)
            fail_msg("item request %d of %d did not come", i + 1, WSB_ITEMS);
        wire[i] = m.stream_id;
    }
    for (int i = 0; i < WSB_ITEMS; i++)
        tx_peer_item(&f->peer, RWF_MC_REFRESH, wire[i], RWF_DMT_MARKET_PRICE, true, RWF_STREAM_OPEN,
                     RWF_DATA_OK, "");
    int at = 0;
    for (int i = 0; i < WSB_ITEMS; i++)
        at = tx_wait_for(f->r, &f->log, at, TX_MSG, RWF_MC_REFRESH, 3000) + 1;
}

/* After the loss event at index `down`: one Open/Suspect status per item, on the tool's
 * streams (in the bytes too), no data, the text naming the lost server's role. */
static void assert_loss_statuses(wl_fixture *f, int down, const char *role)
{
    bool seen[WSB_ITEMS] = {false};
    int at = down + 1;
    for (int i = 0; i < WSB_ITEMS; i++) {
        at = tx_wait_for(f->r, &f->log, at, TX_MSG, RWF_MC_STATUS, 3000);
        const tx_ev *e = &f->log.v[at++];
        assert_true(e->stream >= 10 && e->stream < 10 + WSB_ITEMS);
        assert_int_equal(e->enc_stream, e->stream);
        assert_int_equal(e->domain, RWF_DMT_MARKET_PRICE);
        assert_true(e->flags & RWF_STMF_HAS_STATE);
        assert_int_equal(e->sstate, RWF_STREAM_OPEN);
        assert_int_equal(e->dstate, RWF_DATA_SUSPECT);
        assert_int_equal(e->code, RWF_SC_NONE);
        assert_non_null(strstr(e->text, role));
        assert_false(seen[e->stream - 10]);
        seen[e->stream - 10] = true;
    }
    tx_pump(f->r, 50);
    assert_int_equal(tx_count(&f->log, TX_MSG, RWF_MC_STATUS), WSB_ITEMS);
}

/* The active server lost, the tool promoting the standby in the loss event: every item gets
 * its status after the event, naming the server's role at the loss (active), not the role the
 * tool gave it in the event; the event carries when the worker saw the loss. */
static void test_active_lost_statuses(void **state)
{
    wl_fixture *f = *state;
    f->role.wsb_mode = RX_WSB_LOGIN;
    f->role.cb.on_msg = decode_on_msg;
    f->role.cb.on_channel = promoting_on_channel;
    wl_open_channel(f);
    open_items(f, false);
    int64_t before = clk_ns();
    tx_peer_drop(&f->peer);
    int down = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
    int64_t after = clk_ns();
    assert_true(f->log.v[down].ns >= before && f->log.v[down].ns <= after);
    assert_loss_statuses(f, down, "the active server was lost");
    assert_true(rx_wsb_is_standby(f->ch));
}

/* The standby server lost: the statuses name the standby. */
static void test_standby_lost_statuses(void **state)
{
    wl_fixture *f = *state;
    f->role.wsb_mode = RX_WSB_LOGIN;
    f->role.wsb_standby = true;
    f->role.cb.on_msg = decode_on_msg;
    wl_open_channel(f);
    open_items(f, true);
    tx_peer_drop(&f->peer);
    int down = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
    assert_loss_statuses(f, down, "the standby server was lost");
}

/* Lost for good (no reconnection): the items still get their statuses after RX_CHANNEL_DOWN
 * (the items go on at the other server), and nothing is delivered after them. */
static void test_lost_for_good_statuses(void **state)
{
    wl_fixture *f = *state;
    f->role.wsb_mode = RX_WSB_LOGIN;
    f->role.cb.on_msg = decode_on_msg;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_limit = 0;
    assert_int_equal(rx_connect(f->r, &co, &f->role, &f->log, &f->ch), 0);
    open_items(f, false);
    tx_peer_drop(&f->peer);
    int down = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN, 3000);
    assert_int_equal(tx_find(&f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING), -1);
    assert_loss_statuses(f, down, "the active server was lost");
}

/* ---- reconnection spacing ------------------------------------------------------------------ */

/* The lost server's address refuses connections: the attempts come one after another, each a
 * RX_CHANNEL_DOWN_RECONNECTING, and the waits between them grow as configured: the first the
 * minimum delay after the loss, then doubling up to the maximum, then the maximum. Only lower
 * bounds are asserted, on the worker's own times (rx_event_ns): a loaded machine can only make
 * the waits longer, never shorter. */
static void test_reconnect_spacing(void **state)
{
    wl_fixture *f = *state;
    enum { MIN_MS = 100, MAX_MS = 400, ATTEMPTS = 5 };
    f->role.wsb_mode = RX_WSB_LOGIN;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_min_ms = MIN_MS;
    co.reconnect_max_ms = MAX_MS;
    assert_int_equal(rx_connect(f->r, &co, &f->role, &f->log, &f->ch), 0);
    rwf_msg m;
    tx_peer_accept(&f->peer, 5000);
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_free(&f->peer); /* the connection and the listening socket: refused from now on */
    int at[ATTEMPTS + 1];
    at[0] = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
    for (int i = 1; i <= ATTEMPTS; i++)
        at[i] = tx_wait_for(f->r, &f->log, at[i - 1] + 1, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING,
                            10 * MAX_MS);
    /* in order: nothing came up in between */
    assert_int_equal(tx_find(&f->log, at[0], TX_CHANNEL, RX_CHANNEL_UP), -1);
    int64_t want = MIN_MS;
    for (int i = 1; i <= ATTEMPTS; i++) {
        int64_t gap_ms = (f->log.v[at[i]].ns - f->log.v[at[i - 1]].ns) / 1000000;
        print_message("attempt %d: %lld ms after the previous event (at least %lld): %s\n", i,
                      (long long)gap_ms, (long long)want, f->log.v[at[i]].text);
        assert_true(f->log.v[at[i]].ns > f->log.v[at[i - 1]].ns);
        assert_true(gap_ms >= want - 1);
        want = want * 2 > MAX_MS ? MAX_MS : want * 2;
    }
    rx_stats st;
    rx_get_stats(f->ch, &st);
    assert_true(st.reconnects >= ATTEMPTS + 1);
}

/* Refusals: warm standby without the watchlist; a role change on a plain channel. */
static void test_refused(void **state)
{
    wl_fixture *f = *state;
    f->role.watchlist = false;
    f->role.wsb_mode = RX_WSB_LOGIN;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    rx_chan *ch = NULL;
    assert_int_not_equal(rx_connect(f->r, &co, &f->role, &f->log, &ch), 0);
    assert_non_null(strstr(err_msg(), "warm standby needs a consumer channel with the watchlist"));
    f->role.watchlist = true;
    f->role.wsb_mode = 0;
    wl_open_channel(f);
    assert_int_equal(rx_wsb_set_role(f->ch, true), -1);
    assert_non_null(strstr(err_msg(), "not a warm-standby channel"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_login_based, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_service_based, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_active_lost_statuses, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_standby_lost_statuses, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_lost_for_good_statuses, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_spacing, wl_setup, wl_teardown),
        cmocka_unit_test_setup_teardown(test_refused, wl_setup, wl_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
