/* Tunnel streams between our own consumer and provider layers (two reactors on loopback): the
 * tunnel opens (with and without the watchlist, with OMM-login authentication), thousands of
 * messages go through in order within the flow-control window both ways, a message above the
 * fragment size is fragmented and put together again, the tool's buffers are counted as the
 * original counts them, the close handshake ends both sides with the original's statuses, and a
 * class of service the provider does not support is refused with its reason (after one retry
 * with the previous stream version, as the original consumer does). */
#include "tun_testutil.h"

typedef struct side {
    tx_log log; /* first: the channel's user is read as a tx_log by the tx callbacks */
    tt_log tl;
    bool answer_login; /* provider: answers a login inside the tunnel */
} side;

typedef struct pair {
    rx_reactor *cr, *pr;
    rx_chan *cch, *pch;
    side c, p;
    tp_server *srv;
} pair;

static void pump2(pair *x, int ms)
{
    int64_t end = tx_now_ms() + ms;
    do {
        rx_wait(x->cr, 200000);
        if (rx_dispatch(x->cr, 10000) < 0)
            fail_msg("consumer dispatch: %s", err_msg());
        rx_wait(x->pr, 200000);
        if (rx_dispatch(x->pr, 10000) < 0)
            fail_msg("provider dispatch: %s", err_msg());
    } while (tx_now_ms() < end);
}

/* Pumps both until cond(x) holds (fails after ms). */
static void pump_until(pair *x, bool (*cond)(pair *), int ms, const char *what)
{
    int64_t end = tx_now_ms() + ms;
    while (!cond(x)) {
        if (tx_now_ms() > end)
            fail_msg("timed out waiting for %s", what);
        pump2(x, 1);
    }
}

/* ---- the provider's answers --------------------------------------------------------------- */

static int submit_encoded(rx_chan *ch, const uint8_t *p, size_t n)
{
    rx_buf *b;
    if (rx_get_buffer(ch, (uint32_t)n, false, &b) != 0)
        return -1;
    memcpy(b->data, p, n);
    b->len = (uint32_t)n;
    return rx_submit(ch, b, 0) < 0 ? -1 : 0;
}

static int prov_login(rx_chan *ch, const rwf_msg *m, const rwf_login *l)
{
    if (m->msg_class != RWF_MC_REQUEST || !l)
        return 0;
    rwf_login r = *l;
    r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION |
              RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_HAS_SUPPORT_POST | RWF_LOGIN_SOLICITED;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    r.app_name = RWF_STR("ProvPerf");
    r.support_post = 1;
    uint8_t tmp[1024];
    rwf_enc e;
    rwf_enc_init(&e, tmp, sizeof(tmp));
    size_t n;
    if (rwf_rdm_login_refresh(&e, &r) < 0 || rwf_enc_finish(&e, &n) != RWF_OK)
        return -1;
    return submit_encoded(ch, tmp, n);
}

static int prov_directory(rx_chan *ch, const rwf_msg *m, const rwf_service *svc, unsigned n)
{
    (void)svc;
    (void)n;
    if (m->msg_class != RWF_MC_REQUEST)
        return 0;
    static rwf_service s;
    memset(&s, 0, sizeof(s));
    s.id = 1;
    s.action = RWF_MPEA_ADD_ENTRY;
    s.flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE | RWF_SVC_HAS_QOS | RWF_SVC_HAS_ACCEPTING_REQS;
    s.name = RWF_STR("DIRECT_FEED");
    s.capabilities[0] = 6;
    s.capabilities[1] = 127;
    s.capability_count = 2;
    s.qos[0].timeliness = 1;
    s.qos[0].rate = 1;
    s.qos_count = 1;
    s.service_state = 1;
    s.accepting_requests = 1;
    rwf_directory d;
    memset(&d, 0, sizeof(d));
    d.stream_id = m->stream_id;
    d.filter = m->key.filter;
    d.solicited = 1;
    d.clear_cache = 1;
    d.state.stream_state = RWF_STREAM_OPEN;
    d.state.data_state = RWF_DATA_OK;
    d.services = &s;
    d.service_count = 1;
    static uint8_t tmp[4096];
    rwf_enc e;
    rwf_enc_init(&e, tmp, sizeof(tmp));
    size_t len;
    if (rwf_rdm_directory_refresh(&e, &d) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        return -1;
    return submit_encoded(ch, tmp, len);
}

static int prov_tunnel_msg(rx_tunnel *t, const rwf_msg *m)
{
    tt_log *l = rx_tunnel_user(t);
    side *sd = (side *)((char *)l - offsetof(side, tl));
    if (sd->answer_login && m->domain == RWF_DMT_LOGIN && m->msg_class == RWF_MC_REQUEST) {
        rwf_login in, r;
        if (rwf_rdm_login_decode(m, &in) != RWF_OK)
            return -1;
        r = in;
        r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION |
                  RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_SOLICITED;
        r.state.stream_state = RWF_STREAM_OPEN;
        r.state.data_state = RWF_DATA_OK;
        r.state.text = RWF_STR("Tunnel login accepted.");
        rx_tbuf *b;
        if (rx_tunnel_get_buffer(t, 1024, true, &b) != 0)
            return -1;
        rwf_enc e;
        rwf_enc_init(&e, b->data, b->len);
        size_t n;
        if (rwf_rdm_login_refresh(&e, &r) < 0 || rwf_enc_finish(&e, &n) != RWF_OK)
            return -1;
        b->len = (uint32_t)n;
        return rx_tunnel_submit(t, b);
    }
    return tt_on_msg(t, m);
}

static int prov_request(rx_chan *ch, rx_tunnel_request *req)
{
    side *sd = rx_user(ch);
    int rc = tt_answer(&sd->tl, req);
    if (sd->tl.t) {
        /* the tool's message callback (it answers the login inside) */
        sd->tl.t->cb.on_msg = prov_tunnel_msg;
    }
    return rc;
}

/* ---- setting up --------------------------------------------------------------------------- */

static bool accepted(pair *x)
{
    tp_channel *acc = NULL;
    if (tp_accept(x->srv, &acc) < 0)
        fail_msg("tp_accept: %s", err_msg());
    if (!acc)
        return false;
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    tx_callbacks(&role.cb);
    role.cb.on_login = prov_login;
    role.cb.on_directory = prov_directory;
    role.cb.on_tunnel_request = prov_request;
    if (rx_accept(x->pr, acc, 0, 0, &role, &x->p, &x->pch) != 0)
        fail_msg("rx_accept: %s", err_msg());
    return true;
}

static bool consumer_ready(pair *x)
{
    return tx_find(&x->c.log, 0, TX_DIRECTORY, RWF_MC_REFRESH) >= 0;
}

static pair *pair_new(bool watchlist)
{
    pair *x = calloc(1, sizeof(*x));
    if (rx_create(NULL, &x->cr) != 0 || rx_create(NULL, &x->pr) != 0)
        fail_msg("rx_create: %s", err_msg());
    tp_opts so;
    tp_opts_init(&so);
    so.interface = "127.0.0.1";
    so.port = "0";
    if (tp_bind(&so, &x->srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(x->srv));
    static rwf_login l;
    tx_login(&l);
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    tx_callbacks(&role.cb);
    role.login = &l;
    role.watchlist = watchlist;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = port;
    if (rx_connect(x->cr, &co, &role, &x->c, &x->cch) != 0)
        fail_msg("rx_connect: %s", err_msg());
    pump_until(x, accepted, 5000, "the connection");
    pump_until(x, consumer_ready, 5000, "the directory");
    return x;
}

static void pair_free(pair *x)
{
    rx_destroy(x->cr);
    rx_destroy(x->pr);
    tp_server_close(x->srv);
    free(x);
}

static bool consumer_open(pair *x)
{
    return x->c.tl.nst > 0;
}

static rx_tunnel *open_tunnel(pair *x, uint8_t auth, uint8_t fc)
{
    rx_tunnel_opts o;
    tt_opts(&o, &x->c.tl);
    o.cos.auth_type = auth;
    o.cos.flow_control = fc;
    if (rx_tunnel_open(x->cch, &o, &x->c.tl.t) != 0)
        fail_msg("rx_tunnel_open: %s", err_msg());
    pump_until(x, consumer_open, 5000, "the tunnel's status");
    return x->c.tl.t;
}

/* ---- traffic ------------------------------------------------------------------------------- */

static void dump(pair *x)
{
    side *sides[2] = {&x->c, &x->p};
    for (int i = 0; i < 2; i++) {
        tt_log *l = &sides[i]->tl;
        for (int k = 0; k < l->nst; k++)
            print_message("%s status %d: %u/%u/%u \"%s\"\n", i ? "provider" : "consumer", k,
                          l->st[k].sstate, l->st[k].dstate, l->st[k].code, l->st[k].text);
        if (l->t) {
            rx_tunnel_info in;
            rx_tunnel_get_info(l->t, &in);
            print_message("%s: sent %llu received %llu queued %u waiting %u (%lld bytes, window "
                          "%lld) used %u retx %llu naks %llu dup %llu msgs %llu\n",
                          i ? "provider" : "consumer", (unsigned long long)in.msgs_sent,
                          (unsigned long long)in.msgs_received, in.queued, in.waiting_ack,
                          (long long)in.bytes_waiting_ack, (long long)in.send_window,
                          in.buffers_used, (unsigned long long)in.retransmitted,
                          (unsigned long long)in.naks_sent, (unsigned long long)in.duplicates,
                          (unsigned long long)l->msgs);
        }
    }
}

static uint64_t want_msgs;
static bool echoed(pair *x)
{
    return x->c.tl.msgs >= want_msgs;
}

/* n generic messages of len bytes from the consumer, echoed by the provider. */
static void exchange(pair *x, int n, uint32_t len)
{
    rx_tunnel *t = x->c.tl.t;
    x->p.tl.echo = 1;
    want_msgs = x->c.tl.msgs + (uint64_t)n;
    static uint8_t msg[70000];
    int sent = 0;
    int64_t end = tx_now_ms() + 20000;
    while (sent < n) {
        /* generic messages: the provider echoes them */
        uint32_t k = tt_inner(msg, sizeof(msg), RWF_MC_GENERIC, 5, len, (uint32_t)sent);
        rx_tbuf *b;
        int rc = rx_tunnel_get_buffer(t, k, false, &b);
        if (rc == TP_ENOBUFS) {
            pump2(x, 1);
            if (tx_now_ms() > end) {
                dump(x);
                fail_msg("no tunnel buffers for 20 s");
            }
            continue;
        }
        if (rc != 0)
            fail_msg("get_buffer: %s", err_msg());
        memcpy(b->data, msg, k);
        b->len = k;
        if (rx_tunnel_submit(t, b) != 0)
            fail_msg("submit: %s", err_msg());
        if (++sent % 64 == 0)
            pump2(x, 0);
    }
    pump_until(x, echoed, 20000, "the echoed messages");
}

static void test_loopback(void **state)
{
    (void)state;
    pair *x = pair_new(false);
    rx_tunnel *t = open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_BIDIRECTIONAL);
    assert_int_equal(x->c.tl.st[0].sstate, RWF_STREAM_OPEN);
    assert_int_equal(x->p.tl.requests, 1);
    assert_string_equal(x->p.tl.st[0].text, "Tunnel stream established.");
    int64_t t0 = tx_now_ms();
    exchange(x, 20000, 180);
    int64_t took = tx_now_ms() - t0;
    rx_tunnel_info ci, pi;
    rx_tunnel_get_info(t, &ci);
    rx_tunnel_get_info(x->p.tl.t, &pi);
    assert_int_equal(ci.msgs_sent, 20000);
    assert_int_equal(ci.msgs_received, 20000);
    assert_int_equal(pi.msgs_received, 20000);
    assert_int_equal(ci.retransmitted + ci.duplicates + pi.retransmitted, 0);
    assert_true(ci.bytes_waiting_ack <= RX_TUNNEL_RECV_WINDOW);
    /* The last echoed message is the last one sent. */
    assert_int_equal(rwf_rd32(x->c.tl.last + x->c.tl.last_len - (180 - 40)), 19999);
    /* All acknowledged: the provider holds no application buffer any more. */
    pump2(x, 20);
    rx_tunnel_get_info(x->p.tl.t, &pi);
    assert_int_equal(pi.buffers_used, 0);
    assert_int_equal(pi.waiting_ack, 0);
    print_message("20000 messages of 180 bytes sent and echoed through the tunnel in %lld ms\n",
                  (long long)took);
    /* Closing: FIN handshake, then the consumer's close. */
    int pn = x->p.tl.nst;
    assert_int_equal(rx_tunnel_close(t, true), 0);
    pump2(x, 100);
    assert_int_equal(x->c.tl.nst, 2);
    assert_int_equal(x->c.tl.st[1].sstate, RWF_STREAM_CLOSED_RECOVER);
    assert_string_equal(x->c.tl.st[1].text, "Sent final closing message for this tunnel stream.");
    assert_int_equal(x->p.tl.nst, pn + 2);
    assert_int_equal(x->p.tl.st[pn].sstate, RWF_STREAM_OPEN);
    assert_int_equal(x->p.tl.st[pn].dstate, RWF_DATA_SUSPECT);
    assert_string_equal(x->p.tl.st[pn].text, "Received final message for stream, closing it.");
    assert_int_equal(x->p.tl.st[pn + 1].sstate, RWF_STREAM_CLOSED);
    assert_string_equal(x->p.tl.st[pn + 1].text, "Received a close message from the remote end.");
    pair_free(x);
}

static void test_watchlist_auth_fragments(void **state)
{
    (void)state;
    pair *x = pair_new(true);
    x->p.answer_login = true;
    open_tunnel(x, RX_COS_AU_OMM_LOGIN, RX_COS_FC_BIDIRECTIONAL);
    assert_int_equal(x->c.tl.st[0].sstate, RWF_STREAM_OPEN);
    assert_true(x->c.tl.st[0].auth);
    assert_string_equal(x->c.tl.st[0].text, "Tunnel login accepted.");
    assert_int_equal(x->p.tl.req.cos_filter, 0x0F);
    exchange(x, 2000, 300);
    /* 20000 bytes: four fragments each way, the same bytes at the end. */
    static uint8_t big[20000];
    uint32_t n = tt_inner(big, sizeof(big), RWF_MC_GENERIC, 5, 20000, 77);
    rx_tbuf *b;
    assert_int_equal(rx_tunnel_get_buffer(x->c.tl.t, n, true, &b), 0);
    memcpy(b->data, big, n);
    b->len = n;
    assert_int_equal(rx_tunnel_submit(x->c.tl.t, b), 0);
    want_msgs = x->c.tl.msgs + 1;
    pump_until(x, echoed, 5000, "the fragmented message");
    ts_assert_bytes_equal(x->c.tl.last, x->c.tl.last_len, big, n);
    pair_free(x);
}

/* The original's application buffer count: after a submit, the chunk of 6144 + 128 bytes holds
 * it until it is acknowledged; small buffers share a chunk. */
static void test_buffers_used(void **state)
{
    (void)state;
    pair *x = pair_new(false);
    rx_tunnel *t = open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_BIDIRECTIONAL);
    rx_tunnel_info i;
    static uint8_t msg[8000];
    for (int k = 0; k < 3; k++) {
        uint32_t n = tt_inner(msg, sizeof(msg), RWF_MC_UPDATE, 5, 200, (uint32_t)k);
        rx_tbuf *b;
        assert_int_equal(rx_tunnel_get_buffer(t, n, true, &b), 0);
        memcpy(b->data, msg, n);
        b->len = n;
        assert_int_equal(rx_tunnel_submit(t, b), 0);
        rx_tunnel_get_info(t, &i);
        assert_int_equal(i.buffers_used, 1);
    }
    uint32_t n =
        tt_inner(msg, sizeof(msg), RWF_MC_UPDATE, 5, 6000, 9); /* needs a chunk of its own */
    rx_tbuf *b;
    assert_int_equal(rx_tunnel_get_buffer(t, n, true, &b), 0);
    rx_tunnel_get_info(t, &i);
    assert_int_equal(i.buffers_used, 2);
    assert_int_equal(rx_tunnel_release(t, b), 0);
    rx_tunnel_get_info(t, &i);
    assert_int_equal(i.buffers_used, 1);
    /* Layer buffers (as for rsslTunnelStreamSubmitMsg) are not counted. */
    assert_int_equal(rx_tunnel_get_buffer(t, 100, false, &b), 0);
    rx_tunnel_get_info(t, &i);
    assert_int_equal(i.buffers_used, 1);
    rx_tunnel_release(t, b);
    pump2(x, 30);
    rx_tunnel_get_info(t, &i);
    assert_int_equal(i.buffers_used, 0);
    pair_free(x);
}

/* The flow-control window counts the payload of the messages sent and not yet acknowledged, as
 * the receiver does, not the tunnel's own header: with no ack coming back (the provider is not
 * pumped), exactly window / payload messages go out and the rest wait in the queue. */
static void test_window_counts_payload(void **state)
{
    (void)state;
    pair *x = pair_new(false);
    rx_tunnel *t = open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_BIDIRECTIONAL);
    static uint8_t msg[1000];
    uint32_t k = 0;
    for (int i = 0; i < 200; i++) {
        k = tt_inner(msg, sizeof(msg), RWF_MC_GENERIC, 5, 180, (uint32_t)i);
        rx_tbuf *b;
        assert_int_equal(rx_tunnel_get_buffer(t, k, false, &b), 0);
        memcpy(b->data, msg, k);
        b->len = k;
        assert_int_equal(rx_tunnel_submit(t, b), 0);
    }
    rx_tunnel_info in;
    rx_tunnel_get_info(t, &in);
    assert_int_equal(in.send_window, RX_TUNNEL_RECV_WINDOW);
    assert_int_equal(in.waiting_ack, RX_TUNNEL_RECV_WINDOW / k);
    assert_int_equal(in.bytes_waiting_ack, (int64_t)in.waiting_ack * k);
    assert_int_equal(in.queued, 200 - in.waiting_ack);
    /* The provider's acks reopen the window until every message is through. */
    pump2(x, 50);
    rx_tunnel_get_info(t, &in);
    assert_int_equal(in.msgs_sent, 200);
    assert_int_equal(in.waiting_ack, 0);
    assert_int_equal(in.bytes_waiting_ack, 0);
    rx_tunnel_get_info(x->p.tl.t, &in);
    assert_int_equal(in.msgs_received, 200);
    pair_free(x);
}

/* A class of service the provider does not support: refused with the reason (Redirected, with
 * the CoS it expects), after the one retry with stream version 1. */
static void test_unsupported_cos(void **state)
{
    (void)state;
    pair *x = pair_new(true);
    open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_NONE);
    assert_int_equal(x->p.tl.requests, 2);
    assert_int_equal(x->p.tl.req.stream_version, 1);
    assert_int_equal(x->c.tl.nst, 1);
    assert_int_equal(x->c.tl.st[0].sstate, RWF_STREAM_REDIRECTED);
    assert_int_equal(x->c.tl.st[0].dstate, RWF_DATA_SUSPECT);
    assert_string_equal(x->c.tl.st[0].text, "This provider requires bidirectional flow control.");
    char text[256];
    rwf_state st = {.stream_state = RWF_STREAM_REDIRECTED, .data_state = RWF_DATA_SUSPECT};
    st.text = RWF_STR("This provider requires bidirectional flow control.");
    rx_state_text(&st, text, sizeof(text));
    assert_string_equal(text, "State: Redirected/Suspect/None - text: \"This provider requires "
                              "bidirectional flow control.\"");
    /* The watchlist forgot the refused stream, and the channel still works. */
    rx_stats s;
    rx_get_stats(x->cch, &s);
    assert_int_equal(s.wl_requests, 0);
    x->c.tl.nst = 0;
    open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_BIDIRECTIONAL);
    assert_int_equal(x->c.tl.st[0].sstate, RWF_STREAM_OPEN);
    pair_free(x);
}

/* The channel goes down: both tunnels end with "Channel was closed.". */
static void test_channel_closed(void **state)
{
    (void)state;
    pair *x = pair_new(false);
    open_tunnel(x, RX_COS_AU_NOT_REQUIRED, RX_COS_FC_BIDIRECTIONAL);
    int pn = x->p.tl.nst;
    rx_close(x->pch);
    pump2(x, 200);
    assert_int_equal(x->c.tl.nst, 2);
    assert_int_equal(x->c.tl.st[1].sstate, RWF_STREAM_CLOSED);
    assert_string_equal(x->c.tl.st[1].text, "Channel was closed.");
    assert_int_equal(x->p.tl.nst, pn); /* closed by the tool: no more events there */
    pair_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback),       cmocka_unit_test(test_watchlist_auth_fragments),
        cmocka_unit_test(test_buffers_used),   cmocka_unit_test(test_unsupported_cos),
        cmocka_unit_test(test_channel_closed), cmocka_unit_test(test_window_counts_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
