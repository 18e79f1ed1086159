/* Tunnel streams against a scripted peer that misbehaves or tests the protocol's corners: a
 * window overrun, an ack for a sequence number never sent, a retransmission asked for messages
 * no longer held, an unknown opcode, no answer to the request (timeout), a gap (NAKed, then
 * filled by retransmissions), duplicates, our retransmissions after a NAK, the peer's FIN and
 * close, and, on the provider side, requests the layer refuses by itself (unknown stream
 * version, missing key members, left unanswered by the tool). Each yields a clear status and
 * nothing leaks (the ASan build runs these too). */
#include "tun_testutil.h"

typedef struct fx {
    tx_log log; /* first: the channel's user */
    tt_log tl;
    rx_reactor *r;
    rx_chan *ch;
    tx_peer peer;
    int answer; /* provider: 1 answer with tt_answer, 0 leave unanswered */
} fx;

static int teardown(void **state)
{
    fx *f = *state;
    rx_destroy(f->r);
    tx_peer_free(&f->peer);
    free(f);
    return 0;
}

/* Our consumer (no watchlist) logged in to the scripted provider, the tunnel requested (the peer
 * read the request) and, when open, accepted. */
static fx *consumer(int timeout_ms, bool open)
{
    fx *f = calloc(1, sizeof(*f));
    if (rx_create(NULL, &f->r) != 0)
        fail_msg("rx_create: %s", err_msg());
    tx_peer_listen(&f->peer, f->r);
    static rwf_login l;
    tx_login(&l);
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    tx_callbacks(&role.cb);
    role.login = &l;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = f->peer.port;
    if (rx_connect(f->r, &co, &role, f, &f->ch) != 0)
        fail_msg("rx_connect: %s", err_msg());
    tx_peer_accept(&f->peer, 5000);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1);
    tx_peer_login_refresh(&f->peer, RWF_STREAM_OPEN, "");
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 2);
    tx_peer_directory(&f->peer, 2, 0x07, false, 1, true);
    tx_wait_for(f->r, &f->log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    rx_tunnel_opts o;
    tt_opts(&o, &f->tl);
    if (timeout_ms)
        o.response_timeout_ms = timeout_ms;
    if (rx_tunnel_open(f->ch, &o, &f->tl.t) != 0)
        fail_msg("rx_tunnel_open: %s", err_msg());
    tx_peer_expect(&f->peer, &m, RWF_MC_REQUEST, 1000);
    assert_int_equal(m.flags,
                     RWF_RQMF_STREAMING | RWF_RQMF_PRIVATE_STREAM | RWF_RQMF_QUALIFIED_STREAM);
    if (open) {
        tt_peer_refresh(&f->peer, 1000, RX_COS_AU_NOT_REQUIRED);
        tt_wait_status(f->r, &f->tl, 1, 3000);
        assert_int_equal(f->tl.st[0].sstate, RWF_STREAM_OPEN);
    }
    return f;
}

/* Lets the worker read what the peer sent, then dispatches it all in one pass. */
static void settle(fx *f)
{
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    tx_pump(f->r, 5);
}

/* The tunnel ended with Closed-recover/Suspect and a text holding what; the peer got the close. */
static void expect_failed(fx *f, const char *what)
{
    tt_wait_status(f->r, &f->tl, 2, 3000);
    tt_status *s = &f->tl.st[1];
    assert_int_equal(s->sstate, RWF_STREAM_CLOSED_RECOVER);
    assert_int_equal(s->dstate, RWF_DATA_SUSPECT);
    if (!strstr(s->text, what))
        fail_msg("status text \"%s\" does not say \"%s\"", s->text, what);
    rwf_msg m;
    for (;;) {
        if (!tx_peer_read(&f->peer, &m, 2000))
            fail_msg("no close message from the consumer");
        if (m.msg_class == RWF_MC_CLOSE) {
            assert_int_equal(m.stream_id, 1000);
            break;
        }
    }
    print_message("status: %s\n", s->text);
}

static void submit(fx *f, uint32_t tag)
{
    static uint8_t msg[2048];
    uint32_t n = tt_inner(msg, sizeof(msg), RWF_MC_GENERIC, 5, 200, tag);
    rx_tbuf *b;
    if (rx_tunnel_get_buffer(f->tl.t, n, false, &b) != 0)
        fail_msg("get_buffer: %s", err_msg());
    memcpy(b->data, msg, n);
    b->len = n;
    if (rx_tunnel_submit(f->tl.t, b) != 0)
        fail_msg("submit: %s", err_msg());
    rx_flush(f->ch);
}

static void test_window_overrun(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    static uint8_t msg[2048];
    for (uint32_t s = 1; s <= 20; s++) {
        uint32_t n = tt_inner(msg, sizeof(msg), RWF_MC_UPDATE, 5, 1000, s);
        tt_peer_data(&f->peer, 1000, s, msg, n, TUN_OP_DATA);
    }
    settle(f);
    expect_failed(f, "exceeded the flow-control window");
    assert_true(f->tl.msgs >= 12 && f->tl.msgs < 20);
}

static void test_ack_unknown_seq(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    submit(f, 1);
    submit(f, 2);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
    tt_peer_ack(&f->peer, 1000, 50, NULL, 0, 0);
    settle(f);
    expect_failed(f, "acknowledged sequence number 50, which was never sent (last sent: 2)");
}

static void test_nak_not_held(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    for (uint32_t k = 1; k <= 3; k++)
        submit(f, k);
    rwf_msg m;
    for (int k = 0; k < 3; k++)
        tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
    tt_peer_ack(&f->peer, 1000, 3, NULL, 0, 0);
    uint32_t nak[2] = {1, 2};
    tt_peer_ack(&f->peer, 1000, 3, nak, 1, 0);
    settle(f);
    expect_failed(f, "retransmission of messages 1 to 2, which are not held");
}

static void test_bad_opcode(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    uint8_t msg[64];
    uint32_t n = tt_inner(msg, sizeof(msg), RWF_MC_UPDATE, 5, 50, 1);
    tt_peer_data(&f->peer, 1000, 1, msg, n, 9);
    settle(f);
    expect_failed(f, "unknown opcode 9");
}

static void test_timeout(void **state)
{
    fx *f = consumer(300, false);
    *state = f;
    tt_wait_status(f->r, &f->tl, 1, 3000);
    assert_int_equal(f->tl.st[0].sstate, RWF_STREAM_CLOSED_RECOVER);
    assert_int_equal(f->tl.st[0].code, RWF_SC_TIMEOUT);
    assert_string_equal(f->tl.st[0].text, "Timed out waiting for provider response.");
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_CLOSE, 1000);
}

/* A gap: the consumer acks what it has with a NAK range; the retransmissions fill it. */
static void test_gap_nak(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    static uint8_t m1[256], m2[256], m3[256];
    uint32_t n1 = tt_inner(m1, sizeof(m1), RWF_MC_UPDATE, 5, 100, 1);
    uint32_t n2 = tt_inner(m2, sizeof(m2), RWF_MC_UPDATE, 6, 100, 2);
    uint32_t n3 = tt_inner(m3, sizeof(m3), RWF_MC_UPDATE, 7, 100, 3);
    tt_peer_data(&f->peer, 1000, 1, m1, n1, TUN_OP_DATA);
    tt_peer_data(&f->peer, 1000, 3, m3, n3, TUN_OP_DATA);
    tt_peer_data(&f->peer, 1000, 1, m1, n1, TUN_OP_DATA); /* a duplicate */
    settle(f);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
    /* ACK seq 1, one NAK range 2..3 */
    const uint8_t *p = f->peer.buf;
    assert_int_equal(f->peer.len, 31);
    assert_int_equal(p[11], TUN_OP_ACK);
    assert_int_equal(rwf_rd32(p + 13), 1);
    assert_int_equal(p[17], 1);
    assert_int_equal(rwf_rd32(p + 18), 2);
    assert_int_equal(rwf_rd32(p + 22), 3);
    assert_int_equal(p[26], 0);
    tt_peer_data(&f->peer, 1000, 2, m2, n2, TUN_OP_RETRANS);
    tt_peer_data(&f->peer, 1000, 3, m3, n3, TUN_OP_RETRANS);
    settle(f);
    tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
    assert_int_equal(f->peer.len, 23);
    assert_int_equal(rwf_rd32(f->peer.buf + 13), 3);
    assert_int_equal(f->tl.msgs, 3);
    for (int k = 0; k < 3; k++)
        assert_int_equal(f->tl.streams[k], 5 + k); /* in order */
    rx_tunnel_info in;
    rx_tunnel_get_info(f->tl.t, &in);
    assert_int_equal(in.duplicates, 1);
    assert_int_equal(in.naks_sent, 1);
}

/* A NAK from the peer: the messages are sent again, opcode RETRANS, same sequence numbers. */
static void test_retransmit(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    static uint8_t sent[3][512];
    uint32_t len[3];
    rwf_msg m;
    for (uint32_t k = 0; k < 3; k++) {
        submit(f, k);
        tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
        memcpy(sent[k], f->peer.buf, f->peer.len);
        len[k] = f->peer.len;
        assert_int_equal(rwf_rd32(sent[k] + 10), k + 1);
    }
    uint32_t nak[2] = {2, 3};
    tt_peer_ack(&f->peer, 1000, 1, nak, 1, 0);
    settle(f);
    for (int k = 1; k < 3; k++) {
        tx_peer_expect(&f->peer, &m, RWF_MC_GENERIC, 1000);
        assert_int_equal(f->peer.buf[15], TUN_OP_RETRANS);
        f->peer.buf[15] = TUN_OP_DATA;
        ts_assert_bytes_equal(f->peer.buf, f->peer.len, sent[k], len[k]);
    }
    rx_tunnel_info in;
    rx_tunnel_get_info(f->tl.t, &in);
    assert_int_equal(in.retransmitted, 2);
    assert_int_equal(in.waiting_ack, 2);
    tt_peer_ack(&f->peer, 1000, 3, NULL, 0, 0);
    settle(f);
    rx_tunnel_get_info(f->tl.t, &in);
    assert_int_equal(in.waiting_ack, 0);
    assert_int_equal(in.bytes_waiting_ack, 0);
}

/* The provider closes: its FIN (in sequence), our ack and FIN, its ack, its final status. */
static void test_peer_closes(void **state)
{
    fx *f = consumer(0, true);
    *state = f;
    tt_peer_ack(&f->peer, 1000, 1, NULL, 0, TUN_ACKF_FIN);
    settle(f);
    assert_int_equal(f->tl.nst, 2);
    assert_int_equal(f->tl.st[1].sstate, RWF_STREAM_OPEN);
    assert_int_equal(f->tl.st[1].dstate, RWF_DATA_SUSPECT);
    assert_string_equal(f->tl.st[1].text, "Received final message for stream, closing it.");
    rwf_msg m;
    bool acked = false, fin = false;
    while (!(acked && fin) && tx_peer_read(&f->peer, &m, 2000)) {
        const uint8_t *p = f->peer.buf;
        assert_int_equal(p[11], TUN_OP_ACK);
        if (p[12] & TUN_ACKF_FIN) {
            assert_int_equal(rwf_rd32(p + 13), 1); /* our FIN takes our first number */
            fin = true;
        } else {
            assert_int_equal(rwf_rd32(p + 13), 1); /* acks the peer's FIN */
            acked = true;
        }
    }
    assert_true(acked && fin);
    tt_peer_ack(&f->peer, 1000, 1, NULL, 0, 0);
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED_RECOVER, .data_state = RWF_DATA_OK};
    uint8_t buf[256];
    uint32_t n;
    st.text = RWF_STR("Provider closing stream.");
    assert_int_equal(
        tun_enc_status(1000, RWF_DMT_SYSTEM, &st, NULL, 0, NULL, 0, buf, sizeof(buf), &n), 0);
    tx_peer_send_bytes(&f->peer, buf, n);
    tt_wait_status(f->r, &f->tl, 3, 3000);
    assert_int_equal(f->tl.st[2].sstate, RWF_STREAM_CLOSED_RECOVER);
    assert_string_equal(f->tl.st[2].text, "Provider closing stream.");
}

/* ---- provider side --------------------------------------------------------------------------- */

static int on_request(rx_chan *ch, rx_tunnel_request *req)
{
    fx *f = rx_user(ch);
    f->tl.requests++;
    return f->answer ? tt_answer(&f->tl, req) : 0;
}

static fx *provider(int answer)
{
    fx *f = calloc(1, sizeof(*f));
    f->answer = answer;
    if (rx_create(NULL, &f->r) != 0)
        fail_msg("rx_create: %s", err_msg());
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    tx_callbacks(&role.cb);
    role.cb.on_tunnel_request = on_request;
    tx_peer_connect_provider(&f->peer, f->r, &role, f, &f->ch);
    tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_READY, 3000);
    return f;
}

/* A consumer's tunnel request with the given key members and stream version. */
static void request(fx *f, uint8_t key_flags, unsigned version)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_SYSTEM, 1000, RWF_DT_FILTER_LIST);
    m.flags = RWF_RQMF_STREAMING | RWF_RQMF_PRIVATE_STREAM | RWF_RQMF_QUALIFIED_STREAM;
    m.key.flags = key_flags;
    m.key.service_id = 1;
    m.key.name = RWF_STR("ConsPerf");
    m.key.filter = 0x0D;
    rx_cos c;
    rx_cos_init(&c);
    c.flow_control = RX_COS_FC_BIDIRECTIONAL;
    c.data_integrity = RX_COS_DI_RELIABLE;
    c.recv_window = 12288;
    static uint8_t buf[1024];
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rx_cos_encode(&e, &c, 0x0D, false, version);
    rwf_enc_msg_end(&e);
    size_t n;
    assert_int_equal(rwf_enc_finish(&e, &n), 0);
    tx_peer_send_bytes(&f->peer, buf, (uint32_t)n);
}

/* The peer reads the reject: Closed/Suspect with text; the tool was warned. */
static void expect_reject(fx *f, const char *text, const char *warning)
{
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_STATUS, 1000);
    assert_int_equal(m.flags, RWF_STMF_PRIVATE_STREAM | RWF_STMF_QUALIFIED_STREAM |
                                  RWF_STMF_CLEAR_CACHE | RWF_STMF_HAS_STATE);
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED);
    assert_int_equal(m.state.data_state, RWF_DATA_SUSPECT);
    char got[256];
    snprintf(got, sizeof(got), "%.*s", (int)m.state.text.len, m.state.text.data);
    assert_string_equal(got, text);
    int w = tx_wait_for(f->r, &f->log, 0, TX_CHANNEL, RX_CHANNEL_WARNING, 3000);
    assert_string_equal(f->log.v[w].text, warning);
}

static void test_unknown_version(void **state)
{
    fx *f = provider(1);
    *state = f;
    request(f, RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER, 3);
    expect_reject(f, "Unknown stream version requested",
                  "Rejected a consumer's tunnel stream due to an unrecognized stream version.");
    assert_int_equal(f->tl.requests, 0); /* the tool never saw it */
}

static void test_missing_filter(void **state)
{
    fx *f = provider(1);
    *state = f;
    request(f, RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME, 2);
    expect_reject(f, "Request is missing msgKey.filter",
                  "Rejected a consumer's tunnel stream due to missing msgKey.filter.");
}

static void test_unanswered(void **state)
{
    fx *f = provider(0);
    *state = f;
    request(f, RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER, 2);
    expect_reject(f, "Provider did not accept or reject this stream.",
                  "A tunnel stream request was not accepted or rejected within the listener "
                  "callback.");
    assert_int_equal(f->tl.requests, 1);
}

/* The consumer overruns the provider's window: the provider ends the tunnel and says why. */
static void test_provider_overrun(void **state)
{
    fx *f = provider(1);
    *state = f;
    request(f, RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER, 2);
    rwf_msg m;
    tx_peer_expect(&f->peer, &m, RWF_MC_REFRESH, 1000);
    static uint8_t msg[2048];
    for (uint32_t s = 1; s <= 20; s++) {
        uint32_t n = tt_inner(msg, sizeof(msg), RWF_MC_POST, 5, 1000, s);
        tt_peer_data(&f->peer, 1000, s, msg, n, TUN_OP_DATA);
    }
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    tx_pump(f->r, 5);
    tt_wait_status(f->r, &f->tl, 2, 3000);
    assert_int_equal(f->tl.st[1].sstate, RWF_STREAM_CLOSED_RECOVER);
    assert_non_null(strstr(f->tl.st[1].text, "exceeded the flow-control window"));
    for (;;) { /* the provider's status tells the consumer */
        if (!tx_peer_read(&f->peer, &m, 2000))
            fail_msg("no status from the provider");
        if (m.msg_class == RWF_MC_STATUS)
            break;
    }
    assert_int_equal(m.state.stream_state, RWF_STREAM_CLOSED_RECOVER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_window_overrun, teardown),
        cmocka_unit_test_teardown(test_ack_unknown_seq, teardown),
        cmocka_unit_test_teardown(test_nak_not_held, teardown),
        cmocka_unit_test_teardown(test_bad_opcode, teardown),
        cmocka_unit_test_teardown(test_timeout, teardown),
        cmocka_unit_test_teardown(test_gap_nak, teardown),
        cmocka_unit_test_teardown(test_retransmit, teardown),
        cmocka_unit_test_teardown(test_peer_closes, teardown),
        cmocka_unit_test_teardown(test_unknown_version, teardown),
        cmocka_unit_test_teardown(test_missing_filter, teardown),
        cmocka_unit_test_teardown(test_unanswered, teardown),
        cmocka_unit_test_teardown(test_provider_overrun, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
