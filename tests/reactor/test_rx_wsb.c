/* Warm standby on a watchlist channel against a scripted provider on loopback: where the layer
 * sends the role messages (login based: ConsumerConnectionStatus right after the login refresh,
 * before the directory request, again after a reconnect; service based: ConsumerStatus per
 * service after the directory refresh, none on the login stream), their bytes (the codec's,
 * checked there against the original's), a role change sent at once, and the refusals (a
 * warm-standby role without the watchlist, a role change on a channel without warm standby). */
#include "wl_fixture.h"

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
        cmocka_unit_test_setup_teardown(test_refused, wl_setup, wl_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
