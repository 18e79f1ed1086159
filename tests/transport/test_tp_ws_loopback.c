/* WebSocket channels on loopback: a server that takes RIPC and WebSocket clients on one port,
 * clients of both sub-protocols (rssl.rwf: RIPC in binary frames, with RIPC compression,
 * fragmentation and packing; rssl.json.v2: arrays in text frames, packing, WebSocket
 * fragmentation, permessage-deflate), the server's choice, refusals, pings and closes. */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_tlsutil.h"
#include "tp_ws.h"

static void ws_client(tp_opts *o, const char *pl)
{
    tu_opts(o);
    o->conn_type = TP_CONN_WEBSOCKET;
    o->ws_protocols = pl;
}

static void ws_server(tp_opts *o, const char *pl)
{
    tu_opts(o);
    o->ws_protocols = pl;
}

/* Moves one message from w to r; JSON channels add the array brackets. */
static void xfer(tp_channel *w, tp_channel *r, uint32_t len, uint32_t seed, bool json)
{
    uint8_t *src = malloc(len + 2);
    for (uint32_t i = 0; i < len; i++)
        src[i] = (uint8_t)("{\"market data\":\"repetitive\"} "[(i + seed) % 29]);
    if (!json)
        tu_pattern(src, len, seed);
    tp_buf *b;
    int rc = tp_get_buffer(w, len, false, &b);
    if (rc != 0)
        fail_msg("tp_get_buffer(%u): %d %s", len, rc, err_msg());
    memcpy(b->data, src, len);
    b->len = len;
    int written = 0, got = 0;
    uint64_t end = tu_now_ms() + 20000;
    while (!got) {
        if (tu_now_ms() > end)
            fail_msg("transfer of %u bytes timed out", len);
        if (!written) {
            rc = tp_write(w, b, 0);
            if (rc >= 0)
                written = 1;
            else if (rc != TP_ECALLAGAIN)
                fail_msg("tp_write: %d %s", rc, err_msg());
        }
        if (tp_flush(w) < 0)
            fail_msg("tp_flush: %s", err_msg());
        tp_msg m;
        for (;;) {
            rc = tp_read(r, &m);
            if (rc < 0)
                fail_msg("tp_read: %s", err_msg());
            if (rc & TP_READ_MSG) {
                if (json) {
                    assert_true(m.len == len + 2 && m.data[0] == '[' && m.data[len + 1] == ']');
                    ts_assert_bytes_equal(m.data + 1, len, src, len);
                } else {
                    ts_assert_bytes_equal(m.data, m.len, src, len);
                }
                got = 1;
                break;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        if (!got) {
            struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
            poll(&f, 1, 1);
        }
    }
    free(src);
}

static void both_ways(tu_pair *p, bool json)
{
    static const uint32_t sizes[] = {1, 2, 76, 122, 123, 124, 125, 126, 500, 6000, 6200, 70000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        xfer(p->c, p->s, sizes[i], (uint32_t)i, json);
        xfer(p->s, p->c, sizes[i], (uint32_t)i + 100, json);
    }
}

/* An active channel with nothing queued waits for input only: a write the socket once refused
 * (the peer not reading) leaves no wish to write behind once its bytes are out, or the
 * caller's poll would return at once forever. Fills w's socket until tp_write queues, drains
 * it from r, and checks both channels' events with nothing left to send. */
static void idle_events(tp_channel *w, tp_channel *r)
{
    uint8_t msg[4000];
    memset(msg, 'x', sizeof(msg));
    int queued = 0;
    for (int n = 0; n < 100000 && !queued; n++) {
        tp_buf *b;
        if (tp_get_buffer(w, sizeof(msg), false, &b) != 0)
            break;
        memcpy(b->data, msg, sizeof(msg));
        b->len = sizeof(msg);
        int rc = tp_write(w, b, 0);
        assert_true(rc >= 0 || rc == TP_ECALLAGAIN);
        queued = tp_queued(w) > 0 && tp_flush(w) > 0;
    }
    assert_true(queued);
    uint64_t end = tu_now_ms() + 20000;
    while (tp_queued(w) > 0) {
        assert_true(tu_now_ms() < end);
        assert_true(tp_flush(w) >= 0);
        tp_msg m;
        int rc;
        do
            rc = tp_read(r, &m);
        while (rc > 0 && (rc & (TP_READ_MSG | TP_READ_MORE)));
        assert_true(rc >= 0);
    }
    for (;;) { /* what is still in the socket */
        tp_msg m;
        int rc = tp_read(r, &m);
        assert_true(rc >= 0);
        if (!(rc & (TP_READ_MSG | TP_READ_MORE))) {
            struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
            if (poll(&f, 1, 50) == 0)
                break;
        }
    }
    assert_int_equal(tp_queued(w), 0);
    assert_int_equal(tp_events(w), POLLIN);
    assert_int_equal(tp_events(r), POLLIN);
}

static void check_info(tu_pair *p, tp_ws_proto want)
{
    tp_info i;
    assert_int_equal(tp_get_info(p->c, &i), 0);
    assert_int_equal(i.ws_protocol, want);
    assert_int_equal(i.conn_type, TP_CONN_WEBSOCKET);
    assert_int_equal(tp_get_info(p->s, &i), 0);
    assert_int_equal(i.ws_protocol, want);
    assert_int_equal(i.conn_type, TP_CONN_WEBSOCKET);
    if (want == TP_WS_PROTO_JSON2)
        assert_int_equal(i.max_fragment_size, 6153);
    else
        assert_int_equal(i.max_fragment_size, 6142);
}

static void test_rwf(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.rwf, rssl.json.v2");
    ws_client(&co, "rssl.rwf");
    tu_pair p;
    tu_connect(&p, &so, &co);
    check_info(&p, TP_WS_PROTO_RWF);
    assert_int_equal(tp_events(p.s), POLLIN);
    assert_int_equal(tp_events(p.c), POLLIN);
    both_ways(&p, false);
    idle_events(p.s, p.c);
    idle_events(p.c, p.s);
    tu_close(&p);
}

static void test_rwf_zlib(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.rwf, rssl.json.v2");
    so.compression = TP_COMP_ZLIB;
    so.compression_level = 6;
    ws_client(&co, "rssl.rwf");
    co.compression = TP_COMP_ZLIB;
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_info i;
    tp_get_info(p.c, &i);
    assert_int_equal(i.compression, TP_COMP_ZLIB);
    both_ways(&p, false);
    tu_close(&p);
}

static void test_json(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.rwf, rssl.json.v2");
    ws_client(&co, "rssl.json.v2");
    tu_pair p;
    tu_connect(&p, &so, &co);
    check_info(&p, TP_WS_PROTO_JSON2);
    assert_int_equal(tp_events(p.s), POLLIN);
    assert_int_equal(tp_events(p.c), POLLIN);
    both_ways(&p, true);
    idle_events(p.s, p.c);
    idle_events(p.c, p.s);
    tu_close(&p);
}

static void test_json_deflate(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.json.v2");
    so.compression = TP_COMP_ZLIB;
    ws_client(&co, "rssl.json.v2");
    co.compression = TP_COMP_ZLIB;
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_info i;
    tp_get_info(p.s, &i);
    assert_int_equal(i.compression, TP_COMP_ZLIB);
    both_ways(&p, true);
    tu_close(&p);
}

/* Packed JSON messages share one array; packed RIPC messages one frame. */
static void test_packed(void **st)
{
    (void)st;
    for (int json = 0; json < 2; json++) {
        tp_opts so, co;
        ws_server(&so, "rssl.rwf, rssl.json.v2");
        ws_client(&co, json ? "rssl.json.v2" : "rssl.rwf");
        tu_pair p;
        tu_connect(&p, &so, &co);
        tp_buf *b;
        assert_int_equal(tp_get_buffer(p.s, 200, true, &b), 0);
        const char *objs[] = {"{\"ID\":5}", "{\"ID\":6}", "{\"ID\":7}"};
        for (int k = 0; k < 3; k++) {
            memcpy(b->data, objs[k], 8);
            b->len = 8;
            if (k < 2)
                assert_int_equal(tp_pack(p.s, b), 0);
        }
        assert_true(tp_write(p.s, b, 0) >= 0);
        assert_true(tp_flush(p.s) >= 0);
        tp_msg m;
        if (json) {
            assert_int_equal(tu_read(p.c, &m, 2000), 1);
            ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":5},{\"ID\":6},{\"ID\":7}]", 28);
        } else {
            for (int k = 0; k < 3; k++) {
                assert_int_equal(tu_read(p.c, &m, 2000), 1);
                ts_assert_bytes_equal(m.data, m.len, objs[k], 8);
            }
        }
        /* a packed buffer whose last slot stays empty */
        assert_int_equal(tp_get_buffer(p.c, 100, true, &b), 0);
        memcpy(b->data, objs[0], 8);
        b->len = 8;
        assert_int_equal(tp_pack(p.c, b), 0);
        b->len = 0;
        assert_true(tp_write(p.c, b, TP_WRITE_DIRECT) >= 0);
        assert_int_equal(tu_read(p.s, &m, 2000), 1);
        if (json)
            ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":5}]", 10);
        else
            ts_assert_bytes_equal(m.data, m.len, objs[0], 8);
        tu_close(&p);
    }
}

/* The server's order wins; the client's spelling is echoed; RIPC clients share the port. */
static void test_choice_and_ripc(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.json.v2, rssl.rwf");
    ws_client(&co, "rssl.rwf, rssl.json.v2");
    tu_pair p;
    tu_connect(&p, &so, &co);
    check_info(&p, TP_WS_PROTO_JSON2);
    xfer(p.c, p.s, 50, 1, true);
    /* a RIPC client on the same server */
    tp_opts ro;
    tu_opts(&ro);
    ro.port = p.port;
    tu_pair q = {.srv = p.srv};
    assert_int_equal(tp_connect(&ro, &q.c), 0);
    int rs, rc;
    tu_handshake(&q, &rs, &rc, 5000);
    assert_int_equal(rs, TP_ACTIVE);
    assert_int_equal(rc, TP_ACTIVE);
    tp_info i;
    tp_get_info(q.s, &i);
    assert_int_equal(i.conn_type, TP_CONN_SOCKET);
    assert_int_equal(i.ws_protocol, TP_WS_PROTO_NONE);
    xfer(q.c, q.s, 300, 2, false);
    xfer(p.s, p.c, 300, 3, true);
    tp_close(q.c);
    tp_close(q.s);
    tu_close(&p);
}

/* A TransportPerf server (protocol type 88) takes a rssl.rwf client of protocol type 0, as
 * the ETA one does (its own client sends 0 over WebSocket); a RIPC client of type 0 is still
 * refused. */
static void test_protocol_type(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.rwf");
    so.protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    so.rwf_major = so.rwf_minor = 0;
    ws_client(&co, "rssl.rwf");
    co.rwf_major = co.rwf_minor = 0;
    tu_pair p;
    tu_connect(&p, &so, &co);
    xfer(p.s, p.c, 76, 5, false);
    tp_opts ro;
    tu_opts(&ro);
    ro.port = p.port;
    tu_pair q = {.srv = p.srv};
    assert_int_equal(tp_connect(&ro, &q.c), 0);
    int rs, rc;
    tu_handshake(&q, &rs, &rc, 5000);
    assert_true(rc < 0);
    tp_close(q.c);
    tp_close(q.s);
    tu_close(&p);
}

/* Refusals: the client's tp_init fails saying why, the server channel too. */
static void refused(const char *srv_pl, const char *cli_pl, const char *cli_why,
                    const char *srv_why)
{
    tp_opts so, co;
    ws_server(&so, srv_pl);
    ws_client(&co, cli_pl);
    tu_pair p;
    memset(&p, 0, sizeof(p));
    assert_int_equal(tp_bind(&so, &p.srv), 0);
    snprintf(p.port, sizeof(p.port), "%u", tp_server_port(p.srv));
    co.port = p.port;
    assert_int_equal(tp_connect(&co, &p.c), 0);
    int rs, rc;
    tu_handshake(&p, &rs, &rc, 5000);
    assert_true(rc < 0);
    char cerr[ERR_MSG_MAX];
    snprintf(cerr, sizeof(cerr), "%s", err_msg());
    if (!strstr(cerr, cli_why))
        fail_msg("client error '%s' lacks '%s'", cerr, cli_why);
    if (p.s) {
        tp_msg m;
        assert_true(tp_init(p.s) < 0);
        (void)m;
        if (!strstr(err_msg(), srv_why))
            fail_msg("server error '%s' lacks '%s'", err_msg(), srv_why);
    }
    tu_close(&p);
}

static void test_refusals(void **st)
{
    (void)st;
    refused(NULL, "rssl.rwf", "status code 400", "no -pl");
    refused("rssl.rwf", "rssl.json.v2",
            "status code 400 Bad Request: WebSocket upgrade refused: no common sub-protocol: "
            "the client offered 'tr_json2'; this server supports 'rssl.rwf'",
            "this server supports 'rssl.rwf'");
    refused("rssl.rwf", "", "status code 400", "the client offered ''");
    tp_opts co;
    ws_client(&co, "rssl.rwf, bogus");
    co.port = "1";
    tp_channel *c;
    assert_true(tp_connect(&co, &c) < 0);
    assert_non_null(strstr(err_msg(), "'bogus'"));
    tp_opts so;
    ws_server(&so, "json");
    tp_server *s;
    assert_true(tp_bind(&so, &s) < 0);
    assert_non_null(strstr(err_msg(), "'json'"));
}

/* JSON pings are answered with JSON pongs; both count as pings; a client close reaches the
 * server as WS Code 1000 and the server answers 1001. */
static void test_json_ping_close(void **st)
{
    (void)st;
    tp_opts so, co;
    ws_server(&so, "rssl.json.v2");
    ws_client(&co, "rssl.json.v2");
    tu_pair p;
    tu_connect(&p, &so, &co);
    assert_true(tp_ping(p.c) >= 0);
    tp_msg m;
    uint64_t end = tu_now_ms() + 2000;
    int got = 0;
    while (!got && tu_now_ms() < end) {
        int rc = tp_read(p.s, &m);
        assert_true(rc >= 0);
        got = (rc & TP_READ_PING) != 0;
        if (!got)
            poll(&(struct pollfd){.fd = tp_fd(p.s), .events = POLLIN}, 1, 2);
    }
    assert_true(got);
    tp_stats s1;
    tp_get_stats(p.c, &s1);
    got = 0;
    while (!got && tu_now_ms() < end) {
        tp_flush(p.s);
        int rc = tp_read(p.c, &m);
        assert_true(rc >= 0);
        got = (rc & TP_READ_PING) != 0;
        if (!got)
            poll(&(struct pollfd){.fd = tp_fd(p.c), .events = POLLIN}, 1, 2);
    }
    assert_true(got);
    tp_close(p.c);
    p.c = NULL;
    assert_int_equal(tu_read(p.s, &m, 2000), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "WS Code 1000 Normal Closure"));
    tu_close(&p);
}

/* Encrypted WebSocket (-connType encrypted -encryptedConnType websocket), both
 * sub-protocols, with permessage-deflate / RIPC zlib; the server also takes plain TLS RIPC. */
static void test_tls(void **st)
{
    (void)st;
    tt_pki_make();
    for (int json = 0; json < 2; json++) {
        tp_opts so, co;
        tt_server_opts(&so, &tt.server);
        so.ws_protocols = "rssl.rwf, rssl.json.v2";
        so.compression = TP_COMP_ZLIB;
        tt_client_opts(&co, "localhost", tt.ca.cert_path);
        co.encrypted_protocol = TP_CONN_WEBSOCKET;
        co.ws_protocols = json ? "rssl.json.v2" : "rssl.rwf";
        co.compression = TP_COMP_ZLIB;
        tu_pair p;
        tu_connect(&p, &so, &co);
        tp_info i;
        assert_int_equal(tp_get_info(p.c, &i), 0);
        assert_int_equal(i.conn_type, TP_CONN_ENCRYPTED);
        assert_int_equal(i.encrypted_protocol, TP_CONN_WEBSOCKET);
        assert_int_equal(i.ws_protocol, json ? TP_WS_PROTO_JSON2 : TP_WS_PROTO_RWF);
        assert_int_equal(i.compression, TP_COMP_ZLIB);
        assert_true(i.tls_version[0] != 0);
        assert_int_equal(tp_get_info(p.s, &i), 0);
        assert_int_equal(i.encrypted_protocol, TP_CONN_WEBSOCKET);
        both_ways(&p, json);
        idle_events(p.s, p.c);
        idle_events(p.c, p.s);
        /* a TLS RIPC client on the same server */
        if (json) {
            tp_opts ro;
            tt_client_opts(&ro, "localhost", tt.ca.cert_path);
            ro.port = p.port;
            tu_pair q = {.srv = p.srv};
            assert_int_equal(tp_connect(&ro, &q.c), 0);
            int rs, rc;
            tu_handshake(&q, &rs, &rc, 5000);
            assert_int_equal(rs, TP_ACTIVE);
            assert_int_equal(rc, TP_ACTIVE);
            xfer(q.c, q.s, 300, 2, false);
            tp_close(q.c);
            tp_close(q.s);
        }
        tu_close(&p);
    }
    tt_pki_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rwf),           cmocka_unit_test(test_rwf_zlib),
        cmocka_unit_test(test_json),          cmocka_unit_test(test_json_deflate),
        cmocka_unit_test(test_packed),        cmocka_unit_test(test_choice_and_ripc),
        cmocka_unit_test(test_refusals),      cmocka_unit_test(test_json_ping_close),
        cmocka_unit_test(test_protocol_type), cmocka_unit_test(test_tls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
