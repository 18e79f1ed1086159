/* Live interop over TLS with the original ETA tools (runs only when RWFPERF_ORIG_BIN names a
 * folder holding a build whose encrypted connections work, ETA 3.7 or later; skipped
 * otherwise). Throw-away certificates (a CA and a server certificate for localhost) are made
 * in a temporary folder.
 *   - original TransportPerf -connType encrypted server -> our encrypted client: every
 *     message in order, plain, zlib, packed and fragmented; TLS 1.2 (the original's only
 *     version) with the suite our client prefers, or with -spTLSv1.2 and the original
 *     client's own offer, the suite the original pair settles on;
 *   - our encrypted server -> original TransportPerf client -encryptedConnType socket
 *     -castore: it receives with no sequence error; our server picked ECDHE-RSA-AES128-GCM;
 *   - original ProvPerf -connType encrypted -> our client: the captured login and directory
 *     requests get the captured refreshes back; with the wrong CA our client refuses it;
 *   - original ConsPerf -connType encrypted -castore -> our server: it logs in and requests
 *     its items; with the wrong CA it drops the connection after the handshake. */
#include "tp_origutil.h"
#include "ts_tls.h"

static ts_cert ca, server_cert, other_ca;

/* The original's encrypted server starts (3.6 on OpenSSL 3 cannot load its TLS libraries). */
static void need_orig_tls(void)
{
    int port = free_port();
    char args[2048];
    snprintf(args, sizeof(args),
             "-appType server -connType encrypted -keyfile %s -cert %s -p %d -runTime 1 "
             "-msgRate 0 -latencyMsgRate 0",
             server_cert.key_path, server_cert.cert_path, port);
    pid_t pid = spawn("TransportPerf", args, "probe.stdout");
    finish(pid, 3000);
    char out[8192];
    slurp("probe.stdout", out, sizeof(out));
    if (strstr(out, "Unable to load openSSL") || !strstr(out, "bound on port")) {
        printf("SKIP: the original tools in %s cannot serve TLS here:\n%s\n", bin, out);
        exit(TS_SKIP);
    }
}

static int tls_setup(void **state)
{
    if (setup(state) != 0)
        return -1;
    ts_cert_make(&ca, "ca", "rwfperf interop CA", NULL, -60, 86400, true, NULL);
    ts_cert_make(&server_cert, "server", "localhost", "DNS:localhost,IP:127.0.0.1", -60, 86400,
                 false, &ca);
    ts_cert_make(&other_ca, "other", "another CA", NULL, -60, 86400, true, NULL);
    need_orig_tls();
    return 0;
}

static int tls_teardown(void **state)
{
    ts_cert_free(&ca);
    ts_cert_free(&server_cert);
    ts_cert_free(&other_ca);
    ts_tls_cleanup();
    return teardown(state);
}

static void client_opts(tp_opts *o, const char *port, const char *castore)
{
    tu_opts(o);
    o->host = "localhost";
    o->port = port;
    o->conn_type = TP_CONN_ENCRYPTED;
    o->tls_ca_store = castore;
}

static void server_opts(tp_opts *o)
{
    tu_opts(o);
    o->conn_type = TP_CONN_ENCRYPTED;
    o->tls_key_file = server_cert.key_path;
    o->tls_cert_file = server_cert.cert_path;
}

/* Accepts one channel on srv and brings it up. */
static tp_channel *accept_active(tp_server *srv)
{
    tp_channel *ch = NULL;
    uint64_t end = tu_now_ms() + 8000;
    while (!ch && tu_now_ms() < end)
        if (tp_accept(srv, &ch) == 0)
            usleep(10000);
    assert_non_null(ch);
    if (tp_init_wait(ch, 5000) != TP_ACTIVE)
        fail_msg("handshake with the original client: %s", err_msg());
    return ch;
}

/* Original TransportPerf encrypted server -> our client. */
static void test_their_server_our_client(void **state)
{
    (void)state;
    static const char *eta_offer =
        "DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:"
        "ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-SHA256:DHE-RSA-AES128-SHA256:"
        "ECDHE-RSA-AES256-SHA384:ECDHE-RSA-AES128-SHA256";
    struct {
        tp_comp comp;
        const char *extra;
        uint32_t size;
        int eta_like; /* -spTLSv1.2 and the original client's offer */
    } cases[] = {{TP_COMP_NONE, "", 76, 0},
                 {TP_COMP_ZLIB, "", 76, 0},
                 {TP_COMP_NONE, "-pack 5", 76, 0},
                 {TP_COMP_NONE, "-msgSize 20000", 20000, 0},
                 {TP_COMP_LZ4, "-msgSize 512", 512, 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int port = free_port();
        char args[2048], ps[16];
        snprintf(args, sizeof(args),
                 "-appType server -connType encrypted -keyfile %s -cert %s -p %d -runTime 3 "
                 "-tickRate 100 -msgRate 2000 -latencyMsgRate 10 -compressionType %s %s",
                 server_cert.key_path, server_cert.cert_path, port, comp_arg(cases[i].comp),
                 cases[i].extra);
        pid_t pid = spawn("TransportPerf", args, "server.stdout");
        snprintf(ps, sizeof(ps), "%d", port);
        tp_opts o;
        client_opts(&o, ps, ca.cert_path);
        o.protocol_type = 88;
        o.rwf_major = o.rwf_minor = 0;
        o.compression = cases[i].comp;
        if (cases[i].eta_like) {
            o.tls_protocols = TP_TLS_V1_2;
            o.tls_ciphers = eta_offer;
        }
        tp_channel *ch = connect_retry(&o);
        tp_info info;
        assert_int_equal(tp_get_info(ch, &info), 0);
        assert_int_equal(info.compression, cases[i].comp);
        assert_orig_component(info.component);
        assert_string_equal(info.tls_version, "TLSv1.2");
        assert_string_equal(info.tls_cipher, cases[i].eta_like ? "DHE-RSA-AES256-GCM-SHA384"
                                                               : "ECDHE-RSA-AES128-GCM-SHA256");
        reads_transportperf(ch, cases[i].size, 500, 2500);
        tp_close(ch);
        finish(pid, 100);
    }
}

/* Our encrypted server -> original TransportPerf client. */
static void test_our_server_their_client(void **state)
{
    (void)state;
    struct {
        tp_comp comp;
        uint32_t size;
        int pack;
    } cases[] = {{TP_COMP_NONE, 76, 1},
                 {TP_COMP_LZ4, 76, 1},
                 {TP_COMP_NONE, 76, 5},
                 {TP_COMP_ZLIB, 20000, 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tp_opts o;
        server_opts(&o);
        o.protocol_type = 88;
        o.rwf_major = o.rwf_minor = 0;
        o.compression = cases[i].comp;
        o.compression_level = 5;
        o.guaranteed_output_buffers = 5000;
        tp_server *srv;
        assert_int_equal(tp_bind(&o, &srv), 0);
        char args[2048];
        snprintf(args, sizeof(args),
                 "-appType client -connType encrypted -encryptedConnType socket -castore %s "
                 "-h localhost -p %u -runTime 2 -msgRate 0 -latencyMsgRate 0 "
                 "-compressionType %s",
                 ca.cert_path, tp_server_port(srv), comp_arg(cases[i].comp));
        pid_t pid = spawn("TransportPerf", args, "client.stdout");
        tp_channel *ch = accept_active(srv);
        tp_info info;
        assert_int_equal(tp_get_info(ch, &info), 0);
        assert_string_equal(info.tls_version, "TLSv1.2");
        assert_string_equal(info.tls_cipher, "ECDHE-RSA-AES128-GCM-SHA256");
        uint64_t seq = 0, stop = tu_now_ms() + 2000;
        uint8_t *msg = calloc(1, cases[i].size);
        while (!exited(pid) && tp_get_state(ch) == TP_STATE_ACTIVE && tu_now_ms() < stop) {
            for (int k = 0; k < 20; k++) {
                tp_buf *b;
                int rc = tp_get_buffer(ch, cases[i].size * (uint32_t)cases[i].pack + 16,
                                       cases[i].pack > 1, &b);
                if (rc < 0)
                    break;
                for (int j = 0; j < cases[i].pack; j++) {
                    memcpy(msg, &seq, 8);
                    memcpy(b->data, msg, cases[i].size);
                    b->len = cases[i].size;
                    seq++;
                    if (j + 1 < cases[i].pack)
                        tp_pack(ch, b);
                }
                if (tp_write(ch, b, 0) < 0)
                    break;
            }
            tp_flush(ch);
            tp_msg m;
            while (tp_read(ch, &m) > 0)
                ;
            usleep(10000);
        }
        free(msg);
        tp_close(ch);
        finish(pid, 5000);
        char out[65536];
        slurp("client.stdout", out, sizeof(out));
        const char *r = strstr(out, "Msgs Received: ");
        if (!r || strstr(out, "out-of-order") || atol(r + 15) < 300)
            fail_msg("case %zu: original client output:\n%s", i, out);
        tp_server_close(srv);
    }
}

/* Reads one message from ch; on failure shows what the original tool (console in file out)
 * printed. */
static void read_one(tp_channel *ch, tp_msg *m, const char *what, const char *out_file)
{
    int rc = tu_read(ch, m, 5000);
    if (rc == 1)
        return;

    char out[65536];
    slurp(out_file, out, sizeof(out));
    fail_msg("no %s (%d: %s); the original tool printed:\n%s", what, rc, rc < 0 ? err_msg() : "",
             out);
}

/* Original ProvPerf -connType encrypted -> our client; with the wrong CA ours refuses it. */
static void test_their_provperf(void **state)
{
    (void)state;
    frames f;
    load_frames(&f);
    int port = free_port();
    char args[2048], ps[16];
    snprintf(args, sizeof(args),
             "-p %d -connType encrypted -keyfile %s -cert %s -runTime 8 -tickRate 10 "
             "-updateRate 10",
             port, server_cert.key_path, server_cert.cert_path);
    pid_t pid = spawn("ProvPerf", args, "prov.stdout");
    snprintf(ps, sizeof(ps), "%d", port);
    tp_opts o;
    client_opts(&o, ps, ca.cert_path);
    tp_channel *ch = connect_retry(&o);
    write_msg(ch, f.c2s[0], f.c2s_len[0]); /* login request */
    tp_msg m;
    read_one(ch, &m, "login refresh", "prov.stdout");
    ts_assert_bytes_equal(m.data, m.len, f.s2c[0], f.s2c_len[0]);
    write_msg(ch, f.c2s[1], f.c2s_len[1]); /* directory request */
    read_one(ch, &m, "directory refresh", "prov.stdout");
    ts_assert_bytes_equal(m.data, m.len, f.s2c[1], f.s2c_len[1]);
    tp_close(ch);
    /* the wrong CA */
    client_opts(&o, ps, other_ca.cert_path);
    assert_int_equal(tp_connect(&o, &ch), 0);
    assert_int_equal(tp_init_wait(ch, 5000), TP_EFAIL);
    if (!strstr(err_msg(), "unknown CA") || !strstr(err_msg(), other_ca.cert_path))
        fail_msg("wrong CA: %s", err_msg());
    tp_close(ch);
    /* the original provider still serves */
    client_opts(&o, ps, ca.cert_path);
    ch = connect_retry(&o);
    write_msg(ch, f.c2s[0], f.c2s_len[0]);
    read_one(ch, &m, "login refresh after the refused connection", "prov.stdout");
    ts_assert_bytes_equal(m.data, m.len, f.s2c[0], f.s2c_len[0]);
    tp_close(ch);
    finish(pid, 100);
    ts_tcp_streams_free(&f.s);
}

/* Original ConsPerf -connType encrypted -castore -> our server. */
static void test_their_consperf(void **state)
{
    (void)state;
    frames f;
    load_frames(&f);
    tp_opts o;
    server_opts(&o);
    tp_server *srv;
    assert_int_equal(tp_bind(&o, &srv), 0);
    char args[2048];
    snprintf(args, sizeof(args),
             "-h localhost -p %u -connType encrypted -encryptedConnType socket -castore %s "
             "-itemCount 5 -steadyStateTime 2 -itemFile items.xml",
             tp_server_port(srv), ca.cert_path);
    pid_t pid = spawn("ConsPerf", args, "cons.stdout");
    tp_channel *ch = accept_active(srv);
    tp_msg m;
    assert_int_equal(tu_read(ch, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, f.c2s[0], f.c2s_len[0]); /* its login request */
    write_msg(ch, f.s2c[0], f.s2c_len[0]);
    assert_int_equal(tu_read(ch, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, f.c2s[1], f.c2s_len[1]); /* directory request */
    write_msg(ch, f.s2c[1], f.s2c_len[1]);
    for (int i = 2; i < 7; i++) { /* item requests RDT1..RDT5 */
        assert_int_equal(tu_read(ch, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, f.c2s[i], f.c2s_len[i]);
    }
    finish(pid, 100);
    tp_close(ch);
    /* the wrong CA: the original completes the TLS handshake, then drops the connection */
    snprintf(args, sizeof(args),
             "-h localhost -p %u -connType encrypted -castore %s -itemCount 5 "
             "-steadyStateTime 2 -itemFile items.xml",
             tp_server_port(srv), other_ca.cert_path);
    pid = spawn("ConsPerf", args, "cons.stdout");
    ch = NULL;
    uint64_t end = tu_now_ms() + 8000;
    while (!ch && tu_now_ms() < end)
        if (tp_accept(srv, &ch) == 0)
            usleep(10000);
    assert_non_null(ch);
    assert_int_equal(tp_init_wait(ch, 5000), TP_EFAIL);
    if (!strstr(err_msg(), "closed by peer"))
        fail_msg("wrong CA at the original client: our server says %s", err_msg());
    tp_close(ch);
    finish(pid, 6000);
    char out[65536];
    slurp("cons.stdout", out, sizeof(out));
    if (!strstr(out, "OpenSSL Return code: "))
        fail_msg("original ConsPerf with the wrong CA:\n%s", out);
    tp_server_close(srv);
    ts_tcp_streams_free(&f.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_their_server_our_client),
        cmocka_unit_test(test_our_server_their_client),
        cmocka_unit_test(test_their_provperf),
        cmocka_unit_test(test_their_consperf),
    };
    return cmocka_run_group_tests(tests, tls_setup, tls_teardown);
}
