/* Encrypted channels that must not come up, and what each side says: a certificate from an
 * unknown CA, a host name or IP address the certificate does not name, an expired
 * certificate, a plain client or garbage on the TLS port, a TLS client on a plain port, a
 * peer that closes in the middle of the handshake, one that never finishes it; unusable
 * server and client settings; a WebSocket sub-protocol list with an unknown name. A server
 * keeps serving after each bad connection. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_tlsutil.h"

#define ERRCAP 1024

/* Connects a client (host, trusting ca) to a server with the certificate cert; both must
 * fail. Returns the two errors in se/ce. */
static void both_fail(const ts_cert *cert, const char *host, const char *ca, char *se, char *ce)
{
    tp_opts so, co;
    tt_server_opts(&so, cert);
    tt_client_opts(&co, host, ca);
    tu_pair p;
    int rs, rc;
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    if (rc != TP_EFAIL || rs != TP_EFAIL)
        fail_msg("expected both sides to fail: server %d (%s), client %d (%s)", rs, se, rc, ce);
    tu_close(&p);
}

/* After a bad connection the same server still takes a good client. */
static void server_still_serves(tu_pair *p)
{
    tp_channel *bad = p->s;
    tp_close(p->c);
    p->c = NULL;
    p->s = NULL;
    tp_opts co;
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    co.port = p->port;
    assert_int_equal(tp_connect(&co, &p->c), 0);
    int rs, rc;
    char se[ERRCAP], ce[ERRCAP];
    tt_drive(p, &rs, &rc, se, ce, ERRCAP, 8000);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("the server no longer serves: server %d (%s), client %d (%s)", rs, se, rc, ce);
    tu_transfer(p->s, p->c, 1000, 3, 0);
    tp_close(bad);
}

static void test_unknown_ca(void **state)
{
    (void)state;
    char se[ERRCAP], ce[ERRCAP];
    both_fail(&tt.server, "localhost", tt.other.cert_path, se, ce);
    tt_assert_has(ce, "TLS certificate check of localhost:");
    tt_assert_has(ce, "unable to get local issuer certificate");
    tt_assert_has(ce, "unknown CA: /O=rwfperf tests/CN=localhost is not signed by a CA in the "
                      "CA store ");
    tt_assert_has(ce, tt.other.cert_path);
    tt_assert_has(se, "TLS handshake with client 127.0.0.1:");
    tt_assert_has(se, "alert unknown ca");
    /* a self-signed server certificate the client does not hold: OpenSSL's own words */
    ts_cert self;
    ts_cert_make(&self, "self", "localhost", NULL, -60, 3600, false, NULL);
    both_fail(&self, "localhost", tt.ca.cert_path, se, ce);
    tt_assert_has(ce, "failed: self-signed certificate (unknown CA:");
    ts_cert_free(&self);
}

static void test_name_mismatch(void **state)
{
    (void)state;
    char se[ERRCAP], ce[ERRCAP];
    /* a DNS name the certificate's subjectAltNames do not list */
    ts_cert other_name;
    ts_cert_make(&other_name, "elsewhere", "localhost", "DNS:elsewhere.example", -60, 3600, false,
                 &tt.ca);
    both_fail(&other_name, "localhost", tt.ca.cert_path, se, ce);
    tt_assert_has(ce, "failed: hostname mismatch (name mismatch: /O=rwfperf tests/CN=localhost "
                      "is not issued to localhost)");
    tt_assert_has(se, "alert");
    /* an IP address against a certificate with no IP entry (its CN does not count) */
    both_fail(&other_name, "127.0.0.1", tt.ca.cert_path, se, ce);
    tt_assert_has(ce, "failed: IP address mismatch (name mismatch: /O=rwfperf tests/"
                      "CN=localhost has no IP address entry 127.0.0.1)");
    ts_cert_free(&other_name);

    /* without subjectAltNames the CN is the name: localhost matches, 127.0.0.1 does not */
    ts_cert cn_only;
    ts_cert_make(&cn_only, "cnonly", "localhost", NULL, -60, 3600, false, &tt.ca);
    tp_opts so, co;
    tt_server_opts(&so, &cn_only);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    int rs, rc;
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("CN=localhost: server %d (%s), client %d (%s)", rs, se, rc, ce);
    tu_close(&p);
    both_fail(&cn_only, "127.0.0.1", tt.ca.cert_path, se, ce);
    tt_assert_has(ce, "IP address mismatch");
    ts_cert_free(&cn_only);

    /* the IP subjectAltName of the test server's certificate matches */
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "127.0.0.1", tt.ca.cert_path);
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("IP:127.0.0.1: server %d (%s), client %d (%s)", rs, se, rc, ce);
    tu_close(&p);
}

static void test_expired(void **state)
{
    (void)state;
    char se[ERRCAP], ce[ERRCAP];
    ts_cert old;
    ts_cert_make(&old, "expired", "localhost", "DNS:localhost", -7200, -3600, false, &tt.ca);
    both_fail(&old, "localhost", tt.ca.cert_path, se, ce);
    tt_assert_has(ce, "failed: certificate has expired (expired: /O=rwfperf tests/CN=localhost "
                      "was valid until ");
    tt_assert_has(ce, " GMT)");
    tt_assert_has(se, "alert certificate expired");
    ts_cert_free(&old);
}

/* A plain RIPC client on the TLS port: the server closes that connection saying the client
 * does not speak TLS (the client, dropped, falls back through its RIPC versions and fails);
 * the server then serves a TLS client. */
static void test_plain_client_to_tls_server(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tu_opts(&co);
    tu_pair p;
    memset(&p, 0, sizeof(p));
    assert_int_equal(tp_bind(&so, &p.srv), 0);
    snprintf(p.port, sizeof(p.port), "%u", tp_server_port(p.srv));
    co.port = p.port;
    assert_int_equal(tp_connect(&co, &p.c), 0);
    char se[ERRCAP] = "", ce[ERRCAP] = "";
    int rc = TP_PENDING, refused = 0;
    uint64_t end = tu_now_ms() + 8000;
    while (rc != TP_EFAIL && tu_now_ms() < end) {
        tp_channel *s = NULL;
        if (tp_accept(p.srv, &s) == 1) {
            int r;
            while ((r = tp_init(s)) == TP_PENDING && tu_now_ms() < end) {
                if (rc == TP_PENDING || rc == TP_FD_CHANGE)
                    rc = tp_init(p.c);
                poll(NULL, 0, 2);
            }
            assert_int_equal(r, TP_EFAIL);
            snprintf(se, sizeof(se), "%s", err_msg());
            refused++;
            tp_close(s);
        }
        if (rc == TP_PENDING || rc == TP_FD_CHANGE) {
            rc = tp_init(p.c);
            if (rc < 0)
                snprintf(ce, sizeof(ce), "%s", err_msg());
        }
        poll(NULL, 0, 2);
    }
    assert_int_equal(rc, TP_EFAIL);
    assert_true(refused >= 1);
    tt_assert_has(se, "wrong version number (the client is not speaking TLS: a plain "
                      "connection, or other bytes)");
    tt_assert_has(ce, "no ConnectAck");
    tp_close(p.c);
    p.c = NULL;
    server_still_serves(&p);
    tu_close(&p);
}

static int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* Drives the server side of a raw connection until it fails (returns its error). */
static void server_fails(tu_pair *p, char *se, int timeout_ms)
{
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    while (!p->s && tu_now_ms() < end) {
        assert_true(tp_accept(p->srv, &p->s) >= 0);
        poll(NULL, 0, 2);
    }
    assert_non_null(p->s);
    int r = TP_PENDING;
    while (r == TP_PENDING && tu_now_ms() < end) {
        struct pollfd f = {.fd = tp_fd(p->s), .events = tp_events(p->s)};
        poll(&f, 1, 20);
        r = tp_init(p->s);
        if (r == TP_PENDING && tp_tick(p->s, 0) < 0)
            r = TP_EFAIL;
    }
    assert_int_equal(r, TP_EFAIL);
    snprintf(se, ERRCAP, "%s", err_msg());
}

static void bind_tls(tu_pair *p, uint32_t init_timeout_ms)
{
    tp_opts so;
    tt_server_opts(&so, &tt.server);
    so.init_timeout_ms = init_timeout_ms;
    memset(p, 0, sizeof(*p));
    assert_int_equal(tp_bind(&so, &p->srv), 0);
    snprintf(p->port, sizeof(p->port), "%u", tp_server_port(p->srv));
}

static void test_garbage_and_mid_handshake_close(void **state)
{
    (void)state;
    char se[ERRCAP];
    tu_pair p;
    bind_tls(&p, 60000);
    /* an HTTP request */
    int fd = raw_connect(tp_server_port(p.srv));
    const char *get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_true(write(fd, get, strlen(get)) > 0);
    server_fails(&p, se, 5000);
    tt_assert_has(se, "the client is not speaking TLS");
    close(fd);
    tp_close(p.s);
    p.s = NULL;
    /* the start of a ClientHello record, then the end of the connection */
    fd = raw_connect(tp_server_port(p.srv));
    const uint8_t part[] = {0x16, 0x03, 0x01, 0x00, 0xa0, 0x01, 0x00};
    assert_true(write(fd, part, sizeof(part)) > 0);
    close(fd);
    server_fails(&p, se, 5000);
    tt_assert_has(se, "TLS handshake with client 127.0.0.1:");
    tt_assert_has(se, "failed: the client closed the connection");
    tp_close(p.s);
    p.s = NULL;
    server_still_serves(&p);
    tu_close(&p);
}

/* A raw server that reads what the client sends and closes (mid-handshake), or accepts and
 * never answers (a handshake that never completes). */
static void test_client_side_handshake_failures(void **state)
{
    (void)state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(lfd, 4), 0);
    socklen_t al = sizeof(a);
    getsockname(lfd, (struct sockaddr *)&a, &al);
    char port[16];
    snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
    for (int mode = 0; mode < 2; mode++) {
        tp_opts co;
        tt_client_opts(&co, "localhost", tt.ca.cert_path);
        co.port = port;
        co.init_timeout_ms = 600;
        tp_channel *c;
        assert_int_equal(tp_connect(&co, &c), 0);
        int sfd = -1, rc = TP_PENDING;
        uint64_t t0 = tu_now_ms(), end = t0 + 5000;
        while ((rc == TP_PENDING || rc == TP_FD_CHANGE) && tu_now_ms() < end) {
            if (sfd < 0)
                sfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
            if (sfd >= 0 && mode == 0) {
                uint8_t b[4096];
                if (read(sfd, b, sizeof(b)) > 0) { /* the ClientHello: drop the connection */
                    close(sfd);
                    sfd = -2;
                }
            }
            struct pollfd f = {.fd = tp_fd(c), .events = tp_events(c)};
            poll(&f, 1, 20);
            rc = tp_init(c);
        }
        assert_int_equal(rc, TP_EFAIL);
        if (mode == 0) {
            tt_assert_has(err_msg(), "TLS handshake with localhost:");
            tt_assert_has(err_msg(), "failed: the server closed the connection (does the server "
                                     "accept encrypted connections?");
        } else {
            tt_assert_has(err_msg(), "handshake timed out: the TLS handshake with localhost:");
            tt_assert_has(err_msg(), "did not complete within 0.6 s");
            assert_true(tu_now_ms() - t0 >= 550);
        }
        tp_close(c);
        if (sfd >= 0)
            close(sfd);
    }
    close(lfd);
}

/* A client that connects to the TLS port and sends nothing: the server's channel times out
 * (tp_tick notices it without any descriptor event). */
static void test_server_side_timeout(void **state)
{
    (void)state;
    char se[ERRCAP];
    tu_pair p;
    bind_tls(&p, 400);
    int fd = raw_connect(tp_server_port(p.srv));
    uint64_t t0 = tu_now_ms();
    server_fails(&p, se, 5000);
    assert_true(tu_now_ms() - t0 >= 350);
    tt_assert_has(se, "handshake timed out: the client did not complete the TLS handshake "
                      "within 0.4 s");
    close(fd);
    tu_close(&p);
}

/* Our TLS client on a plain port: the client is told the server dropped it and may not be
 * encrypted; the plain server says the client speaks TLS. */
static void test_tls_client_to_plain_server(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    int rs, rc;
    char se[ERRCAP], ce[ERRCAP];
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    assert_int_equal(rs, TP_EFAIL);
    assert_int_equal(rc, TP_EFAIL);
    tt_assert_has(se, "the client speaks TLS (its first bytes are a TLS handshake record), and "
                      "this server is not encrypted");
    tt_assert_has(ce, "failed: the server closed the connection (does the server accept "
                      "encrypted connections?");
    tu_close(&p);
}

/* Unusable settings: each is TP_EINVAL from tp_tls_check and tp_bind, with a message naming
 * the file or the list. */
static void test_bad_settings(void **state)
{
    (void)state;
    struct {
        const char *key, *cert, *ciphers, *want;
    } srv[] = {
        {NULL, tt.server.cert_path, NULL, "needs a private key (-keyfile"},
        {tt.server.key_path, NULL, NULL, "needs a certificate (-cert"},
        {"/nonexistent/key.pem", tt.server.cert_path, NULL,
         "key file /nonexistent/key.pem cannot be read: No such file or directory"},
        {tt.server.key_path, "/nonexistent/cert.pem", NULL,
         "certificate file /nonexistent/cert.pem cannot be read"},
        {tt.server.key_path, tt.server.key_path, NULL, "holds no usable PEM certificate"},
        {tt.server.cert_path, tt.server.cert_path, NULL, "holds no usable PEM private key"},
        {tt.other.key_path, tt.server.cert_path, NULL, "does not match the certificate in"},
        {tt.server.key_path, tt.server.cert_path, "NO-SUCH-CIPHER",
         "TLS cipher list \"NO-SUCH-CIPHER\" names no cipher this build can use"},
    };
    for (size_t i = 0; i < sizeof(srv) / sizeof(srv[0]); i++) {
        tp_opts o;
        tu_opts(&o);
        o.conn_type = TP_CONN_ENCRYPTED;
        o.tls_key_file = srv[i].key;
        o.tls_cert_file = srv[i].cert;
        o.tls_ciphers = srv[i].ciphers;
        if (tt.other.key_path == srv[i].key)
            assert_string_not_equal(tt.other.key_path, tt.server.key_path);
        assert_int_equal(tp_tls_check(&o, true), TP_EINVAL);
        tt_assert_has(err_msg(), srv[i].want);
        tp_server *s = NULL;
        assert_int_equal(tp_bind(&o, &s), TP_EINVAL);
        tt_assert_has(err_msg(), srv[i].want);
        assert_null(s);
    }
    tp_opts o;
    tt_client_opts(&o, "localhost", "/nonexistent/ca.pem");
    assert_int_equal(tp_tls_check(&o, false), TP_EINVAL);
    tt_assert_has(err_msg(), "CA store /nonexistent/ca.pem cannot be read");
    tp_channel *c = NULL;
    assert_int_equal(tp_connect(&o, &c), TP_EFAIL);
    assert_null(c);
    tt_client_opts(&o, "localhost", tt.server.key_path);
    assert_int_equal(tp_tls_check(&o, false), TP_EINVAL);
    tt_assert_has(err_msg(), "holds no usable PEM certificate");
    tt_client_opts(&o, "localhost", tt.ca.cert_path);
    assert_int_equal(tp_tls_check(&o, false), 0);
    o.tls_protocols = 0x01;
    assert_int_equal(tp_tls_check(&o, false), TP_EINVAL);
    tt_assert_has(err_msg(), "name neither TLS 1.2");
    /* WebSocket inside TLS with a sub-protocol list naming an unknown one */
    tt_client_opts(&o, "localhost", tt.ca.cert_path);
    o.encrypted_protocol = TP_CONN_WEBSOCKET;
    o.ws_protocols = "rssl.rwf, rssl.json";
    o.port = "1";
    assert_int_equal(tp_connect(&o, &c), TP_EFAIL);
    tt_assert_has(err_msg(), "unknown WebSocket sub-protocol 'rssl.json'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_ca),
        cmocka_unit_test(test_name_mismatch),
        cmocka_unit_test(test_expired),
        cmocka_unit_test(test_plain_client_to_tls_server),
        cmocka_unit_test(test_garbage_and_mid_handshake_close),
        cmocka_unit_test(test_client_side_handshake_failures),
        cmocka_unit_test(test_server_side_timeout),
        cmocka_unit_test(test_tls_client_to_plain_server),
        cmocka_unit_test(test_bad_settings),
    };
    return cmocka_run_group_tests(tests, tt_group_setup, tt_group_teardown);
}
