/* Replays of the original tools' tunnel captures (tests/data/captures/tunnel): our layer plays one
 * side, driven like the original tool, and a scripted peer plays the other with the captured bytes.
 *
 * Consumer side (ConsPerf -watchlist -tunnel, -reactor -tunnel, with -tunnelAuth, and against
 * the bare ProvPerf that refuses): the login, directory and tunnel requests, the authentication
 * login, and every DATA message (item requests, posts, generic messages, as the tool submits
 * their inner bytes) must equal the original consumer's byte for byte, in order; the acks are
 * cumulative, carry the window 12288, and end on the provider's last sequence number; every
 * message the provider sent inside reaches the tool.
 * Provider side (ProvPerf -reactor): the refresh accepting the captured request, and every DATA
 * message (the refreshes, updates and reflected posts the tool submits) must equal the
 * original provider's; the acks likewise. */
#include "tun_testutil.h"

typedef struct replay {
    tx_log log; /* first: the channel's user is the replay, read as a tx_log */
    rx_reactor *r;
    tt_log tl;
    tx_peer peer;
    rx_chan *ch;
    bool provider, watchlist, auth;
    /* what our side sent, ACKs apart */
    ts_bytes got;
    uint32_t got_off[4096], got_len[4096];
    int ngot;
    uint32_t acks, last_ack;
} replay;

static int on_request(rx_chan *ch, rx_tunnel_request *req)
{
    replay *rp = (replay *)rx_user(ch); /* the log is the first member */
    return tt_answer(&rp->tl, req);
}

/* Reads whatever our side has sent: ACKs checked and counted, the rest kept in order. */
static void drain(replay *rp, int ms)
{
    rwf_msg m;
    while (tx_peer_read(&rp->peer, &m, ms)) {
        const uint8_t *p = rp->peer.buf;
        if (tt_opcode(p, rp->peer.len) == TUN_OP_ACK) {
            assert_int_equal(rp->peer.len, 23); /* no NAK, no selective-ack range */
            uint32_t seq = rwf_rd32(p + 13);
            assert_int_equal(p[12], 0); /* flags: not a FIN */
            assert_true(seq >= rp->last_ack);
            assert_int_equal(rwf_rd32(p + 19), 12288);
            rp->last_ack = seq;
            rp->acks++;
        } else {
            if (rp->ngot >= 4096)
                fail_msg("too many messages");
            rp->got_off[rp->ngot] = (uint32_t)rp->got.len;
            rp->got_len[rp->ngot++] = rp->peer.len;
            ts_bytes_append(&rp->got, p, rp->peer.len);
        }
        ms = 0;
    }
}

static void pump_settle(replay *rp)
{
    struct timespec ts = {0, 3000000};
    nanosleep(&ts, NULL);
    tx_pump(rp->r, 1);
    drain(rp, 0);
}

static void open_tunnel(replay *rp)
{
    rx_tunnel_opts o;
    tt_opts(&o, &rp->tl);
    if (rp->auth)
        o.cos.auth_type = RX_COS_AU_OMM_LOGIN;
    if (rx_tunnel_open(rp->ch, &o, &rp->tl.t) != 0)
        fail_msg("rx_tunnel_open: %s", err_msg());
}

/* A message of our side's tool: done now (after what was received so far is dispatched). */
static void tool_action(replay *rp, const uint8_t *p, uint32_t len)
{
    pump_settle(rp);
    int op = tt_opcode(p, len);
    /* The tool acts once what it waits for has arrived: on a loaded machine, more than 3 ms. */
    int64_t end = tx_now_ms() + 3000;
    while (tx_now_ms() < end && (op == TUN_OP_DATA ? !rp->tl.t || !rx_tunnel_is_open(rp->tl.t)
                                                   : rp->provider && !rx_is_up(rp->ch)))
        pump_settle(rp);
    if (op == TUN_OP_DATA) {
        if (!rp->tl.t || !rx_tunnel_is_open(rp->tl.t))
            fail_msg("the tunnel is not open when the tool submits");
        rx_tbuf *b;
        if (rx_tunnel_get_buffer(rp->tl.t, len - 17, rp->provider, &b) != 0)
            fail_msg("rx_tunnel_get_buffer: %s", err_msg());
        memcpy(b->data, p + 17, len - 17);
        b->len = len - 17;
        if (rx_tunnel_submit(rp->tl.t, b) != 0)
            fail_msg("rx_tunnel_submit: %s", err_msg());
    } else if (rp->provider) {
        rx_buf *b; /* the provider's login and directory refreshes */
        if (rx_get_buffer(rp->ch, len, false, &b) != 0)
            fail_msg("rx_get_buffer: %s", err_msg());
        memcpy(b->data, p, len);
        b->len = len;
        if (rx_submit(rp->ch, b, 0) < 0)
            fail_msg("rx_submit: %s", err_msg());
    }
    rx_flush(rp->ch);
}

/* True when our side sends this message of the capture by itself (not the tool). */
static bool automatic(const replay *rp, const uint8_t *p, uint32_t len)
{
    int op = tt_opcode(p, len);
    if (op == TUN_OP_ACK)
        return true;
    uint8_t cls = p[2] & 0x1F, domain = p[3];
    if (!rp->provider) {
        if (op == TUN_OP_DATA) /* the authentication login inside */
            return len > 21 && p[17 + 3] == RWF_DMT_LOGIN;
        return true; /* login, directory, tunnel requests */
    }
    return domain == RWF_DMT_SYSTEM && cls == RWF_MC_REFRESH; /* the tunnel's refresh */
}

static void setup_side(replay *rp)
{
    if (rx_create(NULL, &rp->r) != 0)
        fail_msg("rx_create: %s", err_msg());
    rx_role role;
    rx_role_init(&role, rp->provider ? RX_ROLE_PROVIDER : RX_ROLE_CONSUMER);
    tx_callbacks(&role.cb);
    static rwf_login l;
    tx_login(&l);
    if (rp->provider) {
        role.cb.on_tunnel_request = on_request;
        tx_peer_connect_provider(&rp->peer, rp->r, &role, rp, &rp->ch);
        return;
    }
    role.login = &l;
    role.watchlist = rp->watchlist;
    tx_peer_listen(&rp->peer, rp->r);
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = rp->peer.port;
    if (rx_connect(rp->r, &co, &role, rp, &rp->ch) != 0)
        fail_msg("rx_connect: %s", err_msg());
    tx_peer_accept(&rp->peer, 5000);
}

static replay *run(const char *name, bool provider, bool watchlist, bool auth)
{
    static tt_cap cap;
    tt_cap_load(name, &cap);
    replay *rp = calloc(1, sizeof(*rp));
    rp->provider = provider;
    rp->watchlist = watchlist;
    rp->auth = auth;
    setup_side(rp);
    ts_bytes want = {0};
    uint32_t woff[4096], wlen[4096];
    int nwant = 0, peer_data = 0;
    bool opened = false;
    for (int i = 0; i < cap.n; i++) {
        const uint8_t *p = tt_at(&cap, i);
        uint32_t len = cap.len[i];
        bool ours = (cap.dir[i] == 'C') != provider;
        if (!ours) {
            if (tt_opcode(p, len) == TUN_OP_DATA)
                peer_data++;
            /* The peer answered what our side had sent before: wait for it (on a loaded
             * machine our side may not have sent it yet; sent early, the peer's message would
             * reach a tunnel still being opened, which no real peer can do). */
            int64_t end = tx_now_ms() + 2000;
            while (rp->ngot < nwant && tx_now_ms() < end) {
                tx_pump(rp->r, 1);
                drain(rp, 0);
            }
            tx_peer_send_bytes(&rp->peer, p, len);
            continue;
        }
        bool tunnel_request =
            !provider && (p[2] & 0x1F) == RWF_MC_REQUEST && p[3] == RWF_DMT_SYSTEM;
        if (tunnel_request && !opened) {
            pump_settle(rp);
            open_tunnel(rp);
            opened = true;
        }
        if (!automatic(rp, p, len))
            tool_action(rp, p, len);
        if (tt_opcode(p, len) != TUN_OP_ACK) {
            woff[nwant] = (uint32_t)want.len;
            wlen[nwant++] = len;
            ts_bytes_append(&want, p, len);
        }
        drain(rp, 0);
    }
    int64_t end = tx_now_ms() + 3000;
    while ((rp->ngot < nwant || rp->tl.msgs < (uint64_t)peer_data - (auth && !provider)) &&
           tx_now_ms() < end) {
        tx_pump(rp->r, 2);
        drain(rp, 0);
    }
    pump_settle(rp);
    for (int k = 0; k < rp->tl.nst; k++)
        print_message("  tunnel status %d: %u/%u/%u \"%s\"%s\n", k, rp->tl.st[k].sstate,
                      rp->tl.st[k].dstate, rp->tl.st[k].code, rp->tl.st[k].text,
                      rp->tl.st[k].auth ? " (authenticated)" : "");
    assert_int_equal(rp->ngot, nwant);
    for (int k = 0; k < nwant; k++)
        ts_assert_bytes_equal(rp->got.data + rp->got_off[k], rp->got_len[k], want.data + woff[k],
                              wlen[k]);
    if (peer_data) /* the last ack covers every DATA message of the peer */
        assert_int_equal(rp->last_ack, (uint32_t)peer_data);
    print_message("%s (%s): %d messages equal to the original's, %u acks up to %u, %llu inner "
                  "messages delivered\n",
                  name, provider ? "provider" : "consumer", nwant, rp->acks, rp->last_ack,
                  (unsigned long long)rp->tl.msgs);
    ts_bytes_free(&want);
    ts_bytes_free(&cap.data);
    return rp;
}

static void done(replay *rp)
{
    rx_destroy(rp->r);
    tx_peer_free(&rp->peer);
    ts_bytes_free(&rp->got);
    free(rp);
}

static void test_consumer_watchlist(void **state)
{
    (void)state;
    replay *rp = run("tunnel", false, true, false);
    assert_true(rp->tl.nst >= 1);
    assert_int_equal(rp->tl.st[0].sstate, RWF_STREAM_OPEN);
    assert_string_equal(rp->tl.st[0].text, "");
    assert_int_equal(rp->tl.by_class[RWF_MC_REFRESH], 5);
    for (int k = 0; k < 5; k++)
        assert_int_equal(rp->tl.streams[k], 5 + k); /* inner ids are the tool's */
    done(rp);
}

static void test_consumer_reactor(void **state)
{
    (void)state;
    replay *rp = run("tunnel_reactor", false, false, false);
    assert_int_equal(rp->tl.st[0].sstate, RWF_STREAM_OPEN);
    assert_int_equal(rp->tl.by_class[RWF_MC_REFRESH], 5);
    done(rp);
}

static void test_consumer_auth(void **state)
{
    (void)state;
    replay *rp = run("tunnel_auth", false, true, true);
    assert_int_equal(rp->tl.st[0].sstate, RWF_STREAM_OPEN);
    assert_true(rp->tl.st[0].auth);
    assert_string_equal(rp->tl.st[0].text, "Tunnel login accepted.");
    done(rp);
}

/* Against the bare ProvPerf: the request refused, sent again once with stream version 1 on a
 * new watchlist stream (5), refused again: the tunnel ends with the provider's state. */
static void test_consumer_bare_provider(void **state)
{
    (void)state;
    replay *rp = run("tunnel_bareprov", false, true, false);
    assert_int_equal(rp->tl.nst, 1);
    assert_int_equal(rp->tl.st[0].sstate, RWF_STREAM_CLOSED);
    assert_int_equal(rp->tl.st[0].dstate, RWF_DATA_SUSPECT);
    assert_int_equal(rp->tl.st[0].code, RWF_SC_USAGE_ERROR);
    assert_string_equal(rp->tl.st[0].text,
                        "Item request rejected for stream id 5 - this provider does not support "
                        "domain 127");
    char text[256];
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED,
                    .data_state = RWF_DATA_SUSPECT,
                    .code = RWF_SC_USAGE_ERROR};
    st.text = RWF_STR("x");
    assert_int_equal(rx_state_text(&st, text, sizeof(text)), 0);
    assert_string_equal(text, "State: Closed/Suspect/Usage error - text: \"x\"");
    done(rp);
}

static void test_provider(void **state)
{
    (void)state;
    replay *rp = run("tunnel", true, false, false);
    assert_int_equal(rp->tl.requests, 1);
    assert_string_equal(rp->tl.req.name, "ConsPerf");
    assert_int_equal(rp->tl.req.cos_filter, 0x0D);
    assert_string_equal(rp->tl.st[0].text, "Tunnel stream established.");
    assert_int_equal(rp->tl.by_class[RWF_MC_REQUEST], 5);
    assert_true(rp->tl.by_class[RWF_MC_POST] > 50);
    assert_true(rp->tl.by_class[RWF_MC_GENERIC] > 50);
    done(rp);
}

static void test_provider_auth(void **state)
{
    (void)state;
    replay *rp = run("tunnel_auth", true, false, false);
    assert_int_equal(rp->tl.req.cos_filter, 0x0F);
    assert_int_equal(rp->tl.by_class[RWF_MC_REQUEST], 6); /* the login and five items */
    done(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consumer_watchlist), cmocka_unit_test(test_consumer_reactor),
        cmocka_unit_test(test_consumer_auth),      cmocka_unit_test(test_consumer_bare_provider),
        cmocka_unit_test(test_provider),           cmocka_unit_test(test_provider_auth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
