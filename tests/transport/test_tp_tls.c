/* Encrypted channels of our own transport on 127.0.0.1: TLS 1.3 by default, TLS 1.2 with the
 * ETA tools' suites and the server's choice among them, every RIPC mode inside TLS (packing,
 * fragments, compression, pings, version fall-back), no allocation per message, writes
 * batched into records, and a reader that never stalls on bytes TLS has already read. */
#include <openssl/crypto.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "tp_tlsutil.h"

/* Allocations made by OpenSSL (counted through CRYPTO_set_mem_functions, set in main before
 * OpenSSL allocates anything). */
static unsigned long ossl_allocs;

static void *count_malloc(size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    __atomic_add_fetch(&ossl_allocs, 1, __ATOMIC_RELAXED);
    return malloc(n);
}

static void *count_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    __atomic_add_fetch(&ossl_allocs, 1, __ATOMIC_RELAXED);
    return realloc(p, n);
}

static void count_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    free(p);
}

/* Sends count messages of size bytes from w to r and checks each one's content and order
 * (as test_tp_loopback's check_stream; packed when pack > 1, that many per buffer). */
static void tt_stream(tp_channel *w, tp_channel *r, int count, uint32_t size, int pack)
{
    uint8_t buf[70000];
    int sent = 0, got = 0;
    uint64_t end = tu_now_ms() + 20000;
    while (got < count) {
        if (tu_now_ms() > end)
            fail_msg("stream of %d x %u bytes: only %d arrived", count, size, got);
        while (sent < count) {
            int k = pack > 1 ? pack : 1;
            if (k > count - sent)
                k = count - sent;
            tp_buf *b;
            int rc = tp_get_buffer(w, k * (size + 2), pack > 1, &b);
            if (rc == TP_ENOBUFS)
                break;
            if (rc < 0)
                fail_msg("get_buffer: %s", err_msg());
            for (int i = 0; i < k; i++) {
                tu_pattern(b->data, size, (uint32_t)(sent + i));
                b->len = size;
                if (pack > 1 && i + 1 < k && tp_pack(w, b) < 0)
                    fail_msg("pack: %s", err_msg());
            }
            rc = tp_write(w, b, 0);
            if (rc == TP_ENOBUFS || rc == TP_ECALLAGAIN) {
                tp_release(w, b);
                break;
            }
            if (rc < 0)
                fail_msg("write %d: %s", sent, err_msg());
            sent += k;
        }
        assert_true(tp_flush(w) >= 0);
        tp_msg m;
        int rc;
        while ((rc = tp_read(r, &m)) > 0) {
            if (rc & TP_READ_MSG) {
                tu_pattern(buf, size, (uint32_t)got);
                ts_assert_bytes_equal(m.data, m.len, buf, size);
                got++;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        if (rc < 0)
            fail_msg("read: %s", err_msg());
        struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
        poll(&f, 1, 1);
    }
}

static void connect_ok(tu_pair *p, tp_opts *so, tp_opts *co)
{
    int rs, rc;
    char se[1024], ce[1024];
    tt_try(p, so, co, &rs, &rc, se, ce, sizeof(se));
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("handshake: server %d (%s), client %d (%s)", rs, se, rc, ce);
}

static void test_tls13_default(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    tp_info ci, si;
    assert_int_equal(tp_get_info(p.c, &ci), 0);
    assert_int_equal(tp_get_info(p.s, &si), 0);
    assert_int_equal(ci.conn_type, TP_CONN_ENCRYPTED);
    assert_int_equal(si.conn_type, TP_CONN_ENCRYPTED);
    assert_int_equal(ci.encrypted_protocol, TP_CONN_SOCKET);
    assert_string_equal(ci.tls_version, "TLSv1.3");
    assert_string_equal(si.tls_version, "TLSv1.3");
    assert_string_equal(ci.tls_cipher, "TLS_AES_128_GCM_SHA256");
    assert_int_equal(ci.ripc_version, 14);
    assert_int_equal(ci.max_fragment_size, 6142);
    tt_stream(p.c, p.s, 5000, 76, 1);
    tt_stream(p.s, p.c, 5000, 76, 1);
    tp_stats st;
    tp_get_stats(p.s, &st);
    assert_int_equal(st.msgs_written, 5000);
    assert_int_equal(st.bytes_written, 5000 * 79);
    tu_close(&p);
}

/* -spTLSv1.2 on the client: TLS 1.2, and the server picks ECDHE with AES-128-GCM among the
 * ETA suites; a client that offers only what the ETA client offers, in its order (DHE
 * first), gets the same; a server limited to one DHE suite (as -cipher can) gets DHE. */
static void test_tls12_suites(void **state)
{
    (void)state;
    static const char *eta_client =
        "DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:"
        "ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-SHA256:DHE-RSA-AES128-SHA256:"
        "ECDHE-RSA-AES256-SHA384:ECDHE-RSA-AES128-SHA256";
    struct {
        const char *server_ciphers, *client_ciphers, *want;
    } cases[] = {
        {NULL, NULL, "ECDHE-RSA-AES128-GCM-SHA256"},
        {NULL, eta_client, "ECDHE-RSA-AES128-GCM-SHA256"},
        {"DHE-RSA-AES256-GCM-SHA384", eta_client, "DHE-RSA-AES256-GCM-SHA384"},
        {"ECDHE-RSA-AES256-GCM-SHA384", NULL, "ECDHE-RSA-AES256-GCM-SHA384"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tp_opts so, co;
        tt_server_opts(&so, &tt.server);
        so.tls_ciphers = cases[i].server_ciphers;
        tt_client_opts(&co, "localhost", tt.ca.cert_path);
        co.tls_protocols = TP_TLS_V1_2;
        co.tls_ciphers = cases[i].client_ciphers;
        tu_pair p;
        connect_ok(&p, &so, &co);
        tp_info ci;
        assert_int_equal(tp_get_info(p.c, &ci), 0);
        assert_string_equal(ci.tls_version, "TLSv1.2");
        assert_string_equal(ci.tls_cipher, cases[i].want);
        tt_stream(p.s, p.c, 500, 200, 1);
        tt_stream(p.c, p.s, 500, 200, 1);
        tu_close(&p);
    }
}

/* Packed buffers, fragmented messages and both compressions behave inside TLS as they do
 * over a plain socket. */
static void test_modes_inside_tls(void **state)
{
    (void)state;
    tp_comp comps[] = {TP_COMP_NONE, TP_COMP_ZLIB, TP_COMP_LZ4};
    for (int c = 0; c < 3; c++) {
        tp_opts so, co;
        tt_server_opts(&so, &tt.server);
        so.compression = comps[c];
        so.compression_level = 6;
        tt_client_opts(&co, "127.0.0.1", tt.ca.cert_path);
        co.compression = comps[c];
        tu_pair p;
        connect_ok(&p, &so, &co);
        tp_info ci;
        assert_int_equal(tp_get_info(p.c, &ci), 0);
        assert_int_equal(ci.compression, comps[c]);
        tt_stream(p.s, p.c, 3000, 76, 10);
        tt_stream(p.c, p.s, 3000, 76, 10);
        tu_transfer(p.s, p.c, 300000, 7, 0);
        tu_transfer(p.c, p.s, 300000, 8, 1);
        tu_transfer(p.s, p.c, 70000, 9, 1);
        tu_close(&p);
    }
}

/* A server that accepts RIPC 12 at most: the client falls back on new connections, each
 * with its own TLS handshake, and settles on 12. */
static void test_version_fallback(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    so.ripc_version = 12;
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    memset(&p, 0, sizeof(p));
    assert_int_equal(tp_bind(&so, &p.srv), 0);
    snprintf(p.port, sizeof(p.port), "%u", tp_server_port(p.srv));
    co.port = p.port;
    assert_int_equal(tp_connect(&co, &p.c), 0);
    int rs, rc;
    tu_handshake(&p, &rs, &rc, 8000);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("fall-back: server %d client %d: %s", rs, rc, err_msg());
    tp_info ci;
    assert_int_equal(tp_get_info(p.c, &ci), 0);
    assert_int_equal(ci.ripc_version, 12);
    assert_string_equal(ci.tls_version, "TLSv1.3");
    tt_stream(p.c, p.s, 100, 100, 1);
    tu_close(&p);
}

/* Pings travel inside TLS. */
static void test_pings(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    assert_true(tp_ping(p.c) >= 0);
    tp_msg m;
    uint64_t end = tu_now_ms() + 3000;
    int rc = 0;
    while (tu_now_ms() < end && !(rc & TP_READ_PING)) {
        rc = tp_read(p.s, &m);
        assert_true(rc >= 0);
        struct pollfd f = {.fd = tp_fd(p.s), .events = POLLIN};
        if (!(rc & TP_READ_MORE))
            poll(&f, 1, 5);
    }
    assert_true(rc & TP_READ_PING);
    tp_stats st;
    tp_get_stats(p.s, &st);
    assert_int_equal(st.pings_read, 1);
    tu_close(&p);
}

/* The queue is written in records of many frames, not one record per frame: 22,000
 * messages take far fewer SSL writes than messages. Once warm, OpenSSL 3.0 allocates a few
 * small blocks per record (its record layer's packet state: four per record written, one per
 * TLS 1.3 record read), never one per message; the transport's own paths allocate nothing. */
static void test_batching_and_no_alloc(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    so.guaranteed_output_buffers = 2000;
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    tt_stream(p.s, p.c, 2000, 76, 1); /* warm both directions */
    tt_stream(p.c, p.s, 2000, 76, 1);
    tp_stats before, after;
    tp_get_stats(p.s, &before);
    unsigned long a0 = __atomic_load_n(&ossl_allocs, __ATOMIC_RELAXED);
    tt_stream(p.s, p.c, 20000, 76, 1);
    tt_stream(p.s, p.c, 2000, 76, 10);
    unsigned long a1 = __atomic_load_n(&ossl_allocs, __ATOMIC_RELAXED);
    tp_get_stats(p.s, &after);
    uint64_t writes = after.send_calls - before.send_calls;
    if (writes * 20 > 22000)
        fail_msg("%llu SSL writes for 22,000 messages: records are not batched",
                 (unsigned long long)writes);
    if (a1 - a0 > 4 * writes)
        fail_msg("%lu OpenSSL allocations for %llu SSL writes (22,000 messages)", a1 - a0,
                 (unsigned long long)writes);
    /* reading: at most one allocation per record */
    const int n = 3000;
    uint8_t buf[76] = {0};
    for (int i = 0; i < n; i++) {
        tu_pattern(buf, sizeof(buf), (uint32_t)i);
        assert_true(tu_write(p.c, buf, sizeof(buf), 0) >= 0);
    }
    uint64_t end = tu_now_ms() + 5000;
    while (tp_flush(p.c) > 0 && tu_now_ms() < end)
        poll(NULL, 0, 1);
    poll(NULL, 0, 50);
    tp_get_stats(p.s, &before);
    a0 = __atomic_load_n(&ossl_allocs, __ATOMIC_RELAXED);
    int got = 0;
    while (got < n && tu_now_ms() < end) {
        tp_msg m;
        int rc = tp_read(p.s, &m);
        assert_true(rc >= 0);
        if (rc & TP_READ_MSG)
            got++;
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(p.s), .events = POLLIN};
            poll(&f, 1, 5);
        }
    }
    a1 = __atomic_load_n(&ossl_allocs, __ATOMIC_RELAXED);
    tp_get_stats(p.s, &after);
    assert_int_equal(got, n);
    uint64_t reads = after.recv_calls - before.recv_calls;
    if (a1 - a0 > reads || reads * 20 > (uint64_t)n)
        fail_msg("%lu OpenSSL allocations, %llu SSL reads for %d messages", a1 - a0,
                 (unsigned long long)reads, n);
    tu_close(&p);
}

/* The next TLS record waiting in the socket of r, peeked without reading it: its content type
 * and length, and every byte the socket holds. */
static void peek_record(tp_channel *r, int *type, int *len, int *avail)
{
    uint8_t h[5] = {0};
    uint64_t end = tu_now_ms() + 5000;
    for (;;) {
        ssize_t n = recv(tp_fd(r), h, sizeof(h), MSG_PEEK | MSG_DONTWAIT);
        if (n == 5)
            break;
        if (tu_now_ms() > end)
            fail_msg("no TLS record header arrived (%zd bytes)", n);
        poll(NULL, 0, 1);
    }
    poll(NULL, 0, 20); /* the rest of what was sent */
    *type = h[0];
    *len = (h[3] << 8) | h[4];
    assert_int_equal(ioctl(tp_fd(r), FIONREAD, avail), 0);
}

/* Reads count 76-byte messages of seeds first.. from r and checks each one. */
static void read_76(tp_channel *r, int first, int count)
{
    uint8_t want[76];
    for (int i = 0; i < count; i++) {
        tp_msg m;
        assert_int_equal(tu_read(r, &m, 5000), 1);
        tu_pattern(want, sizeof(want), (uint32_t)(first + i));
        ts_assert_bytes_equal(m.data, m.len, want, sizeof(want));
    }
}

/* With the default high-water mark an encrypted channel queues messages until a flush fills
 * most of one TLS record (15 KiB): 194 messages of 79 bytes stay queued, the 195th sends all
 * 15,405 bytes as one SSL write, one record of 15,405 bytes of data on the wire (TLS 1.3:
 * plus the content type and the 16-byte tag). A high-water mark asked for is kept (1000:
 * 13 messages, one record of 1,027 bytes). The reader decodes every message. */
static void test_records_fill_hwm(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    uint8_t msg[76];
    tp_stats st0, st;
    tp_get_stats(p.s, &st0);
    for (int i = 1; i <= 194; i++) {
        tu_pattern(msg, sizeof(msg), (uint32_t)(i - 1));
        assert_int_equal(tu_write(p.s, msg, sizeof(msg), 0), 79 * i);
    }
    tp_get_stats(p.s, &st);
    assert_int_equal(st.send_calls, st0.send_calls);
    tu_pattern(msg, sizeof(msg), 194);
    assert_int_equal(tu_write(p.s, msg, sizeof(msg), 0), 0);
    tp_get_stats(p.s, &st);
    assert_int_equal(st.send_calls, st0.send_calls + 1);
    assert_int_equal(st.bytes_sent - st0.bytes_sent, 195 * 79);
    int type, len, avail;
    peek_record(p.c, &type, &len, &avail);
    assert_int_equal(type, 23); /* application data */
    assert_int_equal(len, 195 * 79 + 17);
    assert_int_equal(avail, 5 + len);
    read_76(p.c, 0, 195);

    tp_set_high_water_mark(p.s, 1000);
    for (int i = 1; i <= 12; i++) {
        tu_pattern(msg, sizeof(msg), (uint32_t)(1000 + i - 1));
        assert_int_equal(tu_write(p.s, msg, sizeof(msg), 0), 79 * i);
    }
    tu_pattern(msg, sizeof(msg), 1012);
    assert_int_equal(tu_write(p.s, msg, sizeof(msg), 0), 0);
    peek_record(p.c, &type, &len, &avail);
    assert_int_equal(type, 23);
    assert_int_equal(len, 13 * 79 + 17);
    assert_int_equal(avail, 5 + len);
    read_76(p.c, 1000, 13);
    tu_close(&p);
}

/* Bytes TLS has already taken from the socket never wait unannounced: after writing 5,000
 * messages (more than the reader's input area holds at once) the reader gets all of them by
 * calling tp_read while it says TP_READ_MORE and otherwise only when the descriptor is
 * readable. tp_read_ready agrees with TP_READ_MORE. */
static void test_no_stall(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    so.guaranteed_output_buffers = 5000;
    so.sndbuf = 4 << 20;
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    co.rcvbuf = 4 << 20;
    tu_pair p;
    connect_ok(&p, &so, &co);
    const int count = 5000;
    const uint32_t size = 500;
    uint8_t buf[600];
    for (int i = 0; i < count; i++) {
        tu_pattern(buf, size, (uint32_t)i);
        int rc = tu_write(p.s, buf, size, 0);
        if (rc < 0)
            fail_msg("write %d: %d %s", i, rc, err_msg());
    }
    uint64_t end = tu_now_ms() + 5000;
    while (tp_flush(p.s) > 0 && tu_now_ms() < end) {
        struct pollfd f = {.fd = tp_fd(p.s), .events = POLLOUT};
        poll(&f, 1, 5);
    }
    assert_int_equal(tp_flush(p.s), 0);
    int got = 0;
    for (;;) {
        tp_msg m;
        int rc = tp_read(p.c, &m);
        if (rc < 0)
            fail_msg("read: %s", err_msg());
        if (rc & TP_READ_MSG) {
            tu_pattern(buf, size, (uint32_t)got);
            ts_assert_bytes_equal(m.data, m.len, buf, size);
            got++;
        }
        assert_int_equal(tp_read_ready(p.c), (rc & TP_READ_MORE) != 0);
        if (rc & TP_READ_MORE)
            continue;
        struct pollfd f = {.fd = tp_fd(p.c), .events = POLLIN};
        if (poll(&f, 1, 300) == 0)
            break;
    }
    assert_int_equal(got, count);
    tu_close(&p);
}

/* The peer writes its last messages and closes at once: the reader, which finds them in the
 * socket with the close_notify after them (read ahead together), gets every message first and
 * then the close, "connection closed by peer", not a failure in the middle of a frame. */
static void test_last_messages_before_close(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    const int count = 100;
    const uint32_t size = 60;
    uint8_t buf[100];
    for (int i = 0; i < count; i++) {
        tu_pattern(buf, size, (uint32_t)i);
        if (tu_write(p.s, buf, size, 0) < 0)
            fail_msg("write %d: %s", i, err_msg());
    }
    assert_int_equal(tp_flush(p.s), 0);
    tp_close(p.s);
    p.s = NULL;
    poll(NULL, 0, 50); /* the records, the alert and the FIN all wait in the reader's socket */
    int got = 0, rc = 0;
    uint64_t end = tu_now_ms() + 5000;
    while (tu_now_ms() < end) {
        tp_msg m;
        rc = tp_read(p.c, &m);
        if (rc < 0)
            break;
        if (rc & TP_READ_MSG) {
            tu_pattern(buf, size, (uint32_t)got);
            ts_assert_bytes_equal(m.data, m.len, buf, size);
            got++;
        }
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(p.c), .events = POLLIN};
            poll(&f, 1, 100);
        }
    }
    assert_int_equal(got, count);
    assert_true(rc < 0);
    tt_assert_has(err_msg(), "connection closed by peer");
    assert_null(strstr(err_msg(), "middle"));
    tu_close(&p);
}

/* The peer goes away: writing fails with a message, and no SIGPIPE ends the process (OpenSSL's
 * own socket writer would raise one). */
static void test_peer_gone_no_sigpipe(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_DFL);
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    tu_pair p;
    connect_ok(&p, &so, &co);
    tp_close(p.s);
    p.s = NULL;
    uint8_t buf[1000] = {0};
    int rc = 0;
    uint64_t end = tu_now_ms() + 5000;
    while (rc >= 0 && tu_now_ms() < end) {
        rc = tu_write(p.c, buf, sizeof(buf), 0);
        if (rc >= 0)
            rc = tp_flush(p.c);
        if (rc == TP_ENOBUFS)
            rc = 0;
        poll(NULL, 0, 1);
    }
    assert_int_equal(rc, TP_EFAIL);
    tt_assert_has(err_msg(), "send of ");
    tu_close(&p);
}

int main(void)
{
    /* before OpenSSL allocates anything */
    if (CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free) != 1)
        fprintf(stderr, "note: OpenSSL allocations cannot be counted in this build\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tls13_default),
        cmocka_unit_test(test_tls12_suites),
        cmocka_unit_test(test_modes_inside_tls),
        cmocka_unit_test(test_version_fallback),
        cmocka_unit_test(test_pings),
        cmocka_unit_test(test_batching_and_no_alloc),
        cmocka_unit_test(test_records_fill_hwm),
        cmocka_unit_test(test_no_stall),
        cmocka_unit_test(test_last_messages_before_close),
        cmocka_unit_test(test_peer_gone_no_sigpipe),
    };
    return cmocka_run_group_tests(tests, tt_group_setup, tt_group_teardown);
}
