/* The watchlist consumer fixture of the reactor tests: a reactor, a scripted provider listening
 * on loopback (tx_peer) and a watchlist consumer role whose callbacks log into tx_log. */
#ifndef WL_FIXTURE_H
#define WL_FIXTURE_H

#include "rx_testutil.h"

typedef struct wl_fixture {
    rx_reactor *r;
    tx_log log;
    tx_peer peer;
    rx_chan *ch;
    rwf_login login;
    rx_role role;
} wl_fixture;

/* CMocka set-up: a reactor, the peer listening, a watchlist consumer role; fails the test on
 * error. */
static inline int wl_setup(void **state)
{
    wl_fixture *f = calloc(1, sizeof(*f));
    if (rx_create(NULL, &f->r) != 0)
        fail_msg("rx_create: %s", err_msg());
    tx_peer_listen(&f->peer, f->r);
    rx_role_init(&f->role, RX_ROLE_CONSUMER);
    tx_callbacks(&f->role.cb);
    tx_login(&f->login);
    f->role.login = &f->login;
    f->role.watchlist = true;
    *state = f;
    return 0;
}

/* CMocka tear-down of wl_setup. */
static inline int wl_teardown(void **state)
{
    wl_fixture *f = *state;
    rx_destroy(f->r);
    tx_peer_free(&f->peer);
    free(f);
    return 0;
}

/* Connects the consumer to the peer (reconnecting 20-100 ms apart); fails the test on error. */
static inline void wl_open_channel(wl_fixture *f)
{
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_min_ms = 20;
    co.reconnect_max_ms = 100;
    if (rx_connect(f->r, &co, &f->role, &f->log, &f->ch) != 0)
        fail_msg("rx_connect: %s", err_msg());
}

#endif
