/* Replays of the original tools' reactor and watchlist captures: our consumer layer, driven like
 * ConsPerf -reactor / -watchlist (-itemCount 5), talks to a peer that answers with the
 * original ProvPerf's captured messages, and every message our layer sends must equal the
 * original consumer's, byte for byte: the 88-byte login request, the directory request (filter
 * 0x07 / 0x3F), the five item requests (streams 5..9 / watchlist ids 4..8). The replies come back
 * to the tool on its own stream ids. */
#include "rx_testutil.h"

typedef struct msgs {
    ts_bytes data;
    uint32_t off[4096], len[4096];
    int n;
} msgs;

/* The RWF messages of one direction of a captured RIPC connection: data frames only (the
 * handshake's ConnectReq/ConnectAck and the key exchange are skipped); no packing or
 * compression occurs in these captures. */
static void split(const ts_bytes *s, bool client, msgs *out)
{
    memset(out, 0, sizeof(*out));
    size_t off = 0;
    bool first = true;
    while (off + 3 <= s->len && out->n < 4096) {
        size_t fl = (size_t)s->data[off] << 8 | s->data[off + 1];
        if (fl < 3 || off + fl > s->len)
            break;
        uint8_t flags = s->data[off + 2];
        bool handshake = first; /* ConnectReq (client) / ConnectAck (server) */
        first = false;
        if (!handshake && !(client && (flags & 0x08)) && fl > 3) {
            if (flags != 0x02)
                fail_msg("frame flags 0x%02x at %zu: packing or compression not expected", flags,
                         off);
            out->off[out->n] = (uint32_t)out->data.len;
            out->len[out->n] = (uint32_t)(fl - 3);
            ts_bytes_append(&out->data, s->data + off + 3, fl - 3);
            out->n++;
        }
        off += fl;
    }
}

static const uint8_t *msg_at(const msgs *m, int i)
{
    return m->data.data + m->off[i];
}

static void replay(const char *vector, bool watchlist)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", vector, vector);
    const char *path = ts_capture(rel);
    ts_tcp_streams st;
    if (ts_pcap_tcp_streams(path, 14202, &st) != 0)
        fail_msg("cannot read %s", path);
    msgs cs, sc;
    split(&st.client_to_server, true, &cs);
    split(&st.server_to_client, false, &sc);
    assert_int_equal(cs.n, 7); /* login, directory, five item requests: all the consumer sent */

    rx_reactor *r;
    assert_int_equal(rx_create(NULL, &r), 0);
    static tx_log log;
    memset(&log, 0, sizeof(log));
    static tx_peer peer;
    tx_peer_listen(&peer, r);
    rwf_login l;
    tx_login(&l);
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    tx_callbacks(&role.cb);
    role.login = &l;
    role.watchlist = watchlist;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = peer.port;
    rx_chan *ch;
    assert_int_equal(rx_connect(r, &co, &role, &log, &ch), 0);

    rwf_msg m;
    tx_peer_accept(&peer, 5000);
    tx_peer_expect(&peer, &m, RWF_MC_REQUEST, 1);
    ts_assert_bytes_equal(peer.buf, peer.len, msg_at(&cs, 0), cs.len[0]);
    tx_peer_send_bytes(&peer, msg_at(&sc, 0), sc.len[0]); /* login refresh */
    tx_peer_expect(&peer, &m, RWF_MC_REQUEST, 2);
    ts_assert_bytes_equal(peer.buf, peer.len, msg_at(&cs, 1), cs.len[1]);
    tx_peer_send_bytes(&peer, msg_at(&sc, 1), sc.len[1]); /* directory refresh */
    int d = tx_wait_for(r, &log, 0, TX_DIRECTORY, RWF_MC_REFRESH, 3000);
    assert_int_equal(log.v[d].nsvc, 1);
    /* As ConsPerf: the five items once the service is up, QoS of the service. */
    for (int i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        assert_int_equal(tx_request(ch, 5 + i, name, true, true), 0);
    }
    rx_flush(ch);
    for (int i = 0; i < 5; i++) {
        if (!tx_peer_read(&peer, &m, 3000))
            fail_msg("item request %d missing", i + 1);
        ts_assert_bytes_equal(peer.buf, peer.len, msg_at(&cs, 2 + i), cs.len[2 + i]);
    }
    /* The captured refreshes and updates come back on the tool's streams 5..9. */
    int upd = 0;
    for (int i = 2; i < sc.n; i++) {
        tx_peer_send_bytes(&peer, msg_at(&sc, i), sc.len[i]);
        upd += (msg_at(&sc, i)[2] & 0x1F) == RWF_MC_UPDATE;
    }
    int i = 0;
    for (int k = 0; k < 5; k++) {
        i = tx_wait_for(r, &log, i, TX_MSG, RWF_MC_REFRESH, 3000);
        assert_int_equal(log.v[i].stream, 5 + k);
        i++;
    }
    int64_t end = tx_now_ms() + 3000;
    while (log.updates < (uint64_t)upd && tx_now_ms() < end)
        tx_pump(r, 5);
    assert_int_equal(log.updates, upd);
    for (int k = 0; k < log.n; k++)
        if (log.v[k].kind == TX_MSG)
            assert_true(log.v[k].stream >= 5 && log.v[k].stream <= 9);
    print_message("%s: %d consumer messages equal to the original's, %d replies delivered\n",
                  vector, cs.n, sc.n);
    rx_destroy(r);
    tx_peer_free(&peer);
    ts_bytes_free(&cs.data);
    ts_bytes_free(&sc.data);
    ts_tcp_streams_free(&st);
}

static void test_reactor_capture(void **state)
{
    (void)state;
    replay("reactor", false);
}

static void test_watchlist_capture(void **state)
{
    (void)state;
    replay("watchlist", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reactor_capture),
        cmocka_unit_test(test_watchlist_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
