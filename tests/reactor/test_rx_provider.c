/* The provider and non-interactive provider roles: an accepted channel handed to the reactor
 * (consumer messages routed by domain to the callbacks, replies submitted, packed buffers, a
 * consumer that goes away), and an NI provider that logs in and publishes its directory. */
#include "rx_testutil.h"

#include <sys/socket.h>
#include <unistd.h>

typedef struct fixture {
    rx_reactor *r;
    tx_log log;
    tx_peer peer;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (rx_create(NULL, &f->r) != 0)
        fail_msg("rx_create: %s", err_msg());
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

/* A consumer (the peer, client side) connected to a server whose accepted channel the reactor
 * runs as a provider. */
static rx_chan *provider_pair(fixture *f)
{
    tp_opts so;
    tp_opts_init(&so);
    so.interface = "127.0.0.1";
    so.port = "0";
    tp_server *srv;
    if (tp_bind(&so, &srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(srv));
    tp_opts co;
    tp_opts_init(&co);
    co.host = "127.0.0.1";
    co.port = port;
    memset(&f->peer, 0, sizeof(f->peer));
    f->peer.r = f->r;
    if (tp_connect(&co, &f->peer.ch) != 0)
        fail_msg("tp_connect: %s", err_msg());
    tp_channel *acc = NULL;
    int64_t end = tx_now_ms() + 3000;
    while (tp_accept(srv, &acc) == 0 && tx_now_ms() < end) {
        tp_init(f->peer.ch);
        struct pollfd p = {.fd = tp_server_fd(srv), .events = POLLIN};
        poll(&p, 1, 5);
    }
    if (!acc)
        fail_msg("nothing accepted");
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    tx_callbacks(&role.cb);
    rx_chan *ch;
    if (rx_accept(f->r, acc, 0, 0, &role, &f->log, &ch) != 0)
        fail_msg("rx_accept: %s", err_msg());
    tp_server_close(srv);
    /* The peer's handshake completes while the worker answers it. */
    end = tx_now_ms() + 3000;
    int rc;
    while ((rc = tp_init(f->peer.ch)) != TP_ACTIVE) {
        if (rc < 0 || tx_now_ms() > end)
            fail_msg("client handshake: %s", err_msg());
        tx_pump(f->r, 2);
    }
    return ch;
}

static void test_provider(void **state)
{
    fixture *f = *state;
    rx_chan *ch = provider_pair(f);
    int up = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_UP, 3000);
    int ready = tx_wait_for(f->r, &f->log, up, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    assert_true(ready > up);
    /* The consumer's login request reaches on_login, decoded. */
    rwf_login l;
    tx_login(&l);
    static uint8_t tmp[1024];
    rwf_enc e;
    rwf_enc_init(&e, tmp, sizeof(tmp));
    size_t len;
    assert_int_equal(rwf_rdm_login_request(&e, &l), 0);
    assert_int_equal(rwf_enc_finish(&e, &len), 0);
    tx_peer_send_bytes(&f->peer, tmp, (uint32_t)len);
    int i = tx_wait_for(f->r, &f->log, ready, TX_LOGIN, RWF_MC_REQUEST, 3000);
    assert_int_equal(f->log.v[i].stream, 1);
    /* Directory and item requests route by domain. */
    rwf_enc_init(&e, tmp, sizeof(tmp));
    assert_int_equal(rwf_rdm_directory_request(&e, 2, 0x07, 0, 0), 0);
    assert_int_equal(rwf_enc_finish(&e, &len), 0);
    tx_peer_send_bytes(&f->peer, tmp, (uint32_t)len);
    tx_wait_for(f->r, &f->log, i, TX_DIRECTORY, RWF_MC_REQUEST, 3000);
    tx_peer_item(&f->peer, RWF_MC_REQUEST, 5, RWF_DMT_MARKET_PRICE, false, 0, 0, NULL);
    i = tx_wait_for(f->r, &f->log, i, TX_MSG, RWF_MC_REQUEST, 3000);
    assert_int_equal(f->log.v[i].stream, 5);
    /* Replies: one message, then a packed buffer of three. */
    rwf_msg r;
    rwf_msg_init(&r, RWF_MC_REFRESH, RWF_DMT_MARKET_PRICE, 5, RWF_DT_NO_DATA);
    r.flags = RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_SOLICITED;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    assert_int_equal(rx_submit_msg(ch, &r), 0);
    rx_buf *b;
    assert_int_equal(rx_get_buffer(ch, 600, true, &b), 0);
    rwf_msg u;
    rwf_msg_init(&u, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 5, RWF_DT_NO_DATA);
    for (int k = 0; k < 3; k++) {
        size_t n;
        u.update_type = (uint8_t)k;
        assert_int_equal(rwf_msg_encode(&u, b->data, b->len, &n), 0);
        b->len = (uint32_t)n;
        if (k < 2)
            assert_int_equal(rx_pack(ch, b), 0);
    }
    assert_int_equal(rx_submit(ch, b, 0), 0);
    rx_flush(ch);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REFRESH, 5);
    for (int k = 0; k < 3; k++) {
        tx_peer_expect(&f->peer, &m, RWF_MC_UPDATE, 5);
        assert_int_equal(m.update_type, k);
    }
    rx_stats st;
    rx_get_stats(ch, &st);
    assert_int_equal(st.msgs_written, 4);
    /* The consumer goes away: a final DOWN (providers do not reconnect). */
    tx_peer_drop(&f->peer);
    int d = tx_wait_for(f->r, &f->log, i, TX_CHANNEL, RX_CHANNEL_DOWN, 3000);
    assert_true(f->log.v[d].text[0] != '\0');
    tx_pump(f->r, 50);
    assert_int_equal(tx_count(&f->log, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING), 0);
}

/* A connection that fails its handshake (the peer closes at once) is a DOWN without UP. */
static void test_provider_bad_handshake(void **state)
{
    fixture *f = *state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *acc;
    assert_int_equal(tp_adopt(sv[0], true, &o, &acc), 0);
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    tx_callbacks(&role.cb);
    rx_chan *ch;
    assert_int_equal(rx_accept(f->r, acc, 0, 0, &role, &f->log, &ch), 0);
    assert_int_equal(write(sv[1], "garbage!", 8), 8);
    close(sv[1]);
    int d = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_DOWN, 3000);
    assert_true(f->log.v[d].text[0] != '\0');
    assert_int_equal(tx_count(&f->log, TX_CHANNEL, RX_CHANNEL_UP), 0);
}

/* The NI provider: login request (as given) when up, the directory refresh once logged in, READY;
 * after a reconnect both again. */
static void test_niprovider(void **state)
{
    fixture *f = *state;
    tx_peer_listen(&f->peer, f->r);
    rwf_login l;
    tx_login(&l);
    l.flags |= RWF_LOGIN_HAS_ROLE;
    l.role = 1;
    l.app_name = RWF_STR("NIProvPerf");
    rwf_service s;
    memset(&s, 0, sizeof(s));
    s.id = 1;
    s.action = RWF_MPEA_ADD_ENTRY;
    s.flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE;
    s.name = RWF_STR("NI_PUB");
    s.service_state = 1;
    rwf_directory d;
    memset(&d, 0, sizeof(d));
    d.stream_id = -1;
    d.filter = 0x07;
    d.has_service_id = 1;
    d.service_id = 1;
    d.clear_cache = 1;
    d.state.stream_state = RWF_STREAM_OPEN;
    d.state.data_state = RWF_DATA_OK;
    d.services = &s;
    d.service_count = 1;
    rx_role role;
    rx_role_init(&role, RX_ROLE_NIPROVIDER);
    tx_callbacks(&role.cb);
    role.login = &l;
    role.directory_refresh = &d;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    co.reconnect_min_ms = 20;
    rx_chan *ch;
    assert_int_equal(rx_connect(f->r, &co, &role, &f->log, &ch), 0);
    for (int round = 0; round < 2; round++) {
        int from = f->log.n;
        rwf_msg m;
        tx_peer_accept(&f->peer, 5000);
        tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
        rwf_login got;
        assert_int_equal(rwf_rdm_login_decode(&m, &got), 0);
        assert_int_equal(got.role, 1);
        tx_peer_quiet(&f->peer, 50);
        tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
        tx_peer_expect(&f->peer, &m, RWF_MC_REFRESH, -1);
        assert_int_equal(m.domain, RWF_DMT_SOURCE);
        tx_wait_for(f->r, &f->log, from, TX_CHANNEL, RX_CHANNEL_READY, 3000);
        if (round == 0) {
            tx_peer_drop(&f->peer);
            tx_wait_for(f->r, &f->log, from, TX_CHANNEL, RX_CHANNEL_DOWN_RECONNECTING, 3000);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_provider, setup, teardown),
        cmocka_unit_test_setup_teardown(test_provider_bad_handshake, setup, teardown),
        cmocka_unit_test_setup_teardown(test_niprovider, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
