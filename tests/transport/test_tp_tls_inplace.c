/* A TLS client reading its records in place (tp_tls_rx) and a server sealing its own
 * (tp_tls_tx): used for TLS 1.2 and 1.3 as tls_records says, with the AES-GCM code tls_gcm
 * says, and the choices checked; every message of many sizes (packed, fragmented, across record
 * boundaries) arrives intact; the server's post-handshake traffic (TLS 1.3 tickets, key updates,
 * asked for or not, answered) is followed; and bytes that are not a good record (tampered, not TLS,
 * too long, cut short by the close) fail the channel saying what was wrong. */
#include <openssl/ssl.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "tp_tls.h"
#include "tp_tlsutil.h"

/* The AES-GCM code and the records the transport protects, of the channels connect_pair
 * makes next. */
static tp_tls_gcm gcm_choice = TP_TLS_GCM_AUTO;
static tp_tls_records records_choice = TP_TLS_RECORDS_TRANSPORT;

/* Connects a client (TLS 1.2 alone when v12) to a new server; both active. */
static void connect_pair(tu_pair *p, int v12)
{
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    so.tls_gcm = co.tls_gcm = gcm_choice;
    so.tls_records = co.tls_records = records_choice;
    if (v12)
        co.tls_protocols = TP_TLS_V1_2;
    int rs, rc;
    char se[1024], ce[1024];
    tt_try(p, &so, &co, &rs, &rc, se, ce, sizeof(se));
    if (rs != TP_ACTIVE || rc != TP_ACTIVE)
        fail_msg("handshake: server %d (%s), client %d (%s)", rs, se, rc, ce);
}

/* Sends count messages from w to r, message i of 1 + (i * 37) % max bytes, flushed every
 * flush_every messages (so that records of many sizes carry them), and checks each one. */
static void stream(tp_channel *w, tp_channel *r, int count, uint32_t max, int flush_every)
{
    static uint8_t buf[70000];
    int sent = 0, got = 0;
    uint64_t end = tu_now_ms() + 20000;
    while (got < count) {
        if (tu_now_ms() > end)
            fail_msg("stream of %d messages: only %d arrived", count, got);
        while (sent < count) {
            uint32_t len = 1 + ((uint32_t)sent * 37u) % max;
            tu_pattern(buf, len, (uint32_t)sent);
            int rc = tu_write(w, buf, len, 0);
            if (rc == TP_ENOBUFS || rc == TP_ECALLAGAIN)
                break;
            if (rc < 0)
                fail_msg("write %d: %s", sent, err_msg());
            if (++sent % flush_every == 0 && tp_flush(w) < 0)
                fail_msg("flush: %s", err_msg());
        }
        assert_true(tp_flush(w) >= 0);
        tp_msg m;
        int rc;
        while ((rc = tp_read(r, &m)) > 0) {
            if (rc & TP_READ_MSG) {
                uint32_t len = 1 + ((uint32_t)got * 37u) % max;
                tu_pattern(buf, len, (uint32_t)got);
                ts_assert_bytes_equal(m.data, m.len, buf, len);
                got++;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        if (rc < 0)
            fail_msg("read after %d messages: %s", got, err_msg());
        struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
        poll(&f, 1, 1);
    }
}

/* Reads r until it fails (returns its error text) or 5 s pass (fails the test). */
static const char *read_until_failure(tp_channel *r)
{
    uint64_t end = tu_now_ms() + 5000;
    while (tu_now_ms() < end) {
        tp_msg m;
        int rc = tp_read(r, &m);
        if (rc < 0)
            return err_msg();
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
            poll(&f, 1, 20);
        }
    }
    fail_msg("the client did not fail");
    return "";
}

/* Every test below runs twice: records opened and sealed by tp_gcm_vaes where the CPU can
 * (tls_gcm auto), and by OpenSSL's AES-GCM (tls_gcm openssl). */
static void both_openers(void (*body)(void))
{
    gcm_choice = TP_TLS_GCM_AUTO;
    body();
    gcm_choice = TP_TLS_GCM_OPENSSL;
    body();
    gcm_choice = TP_TLS_GCM_AUTO;
}

static void used_and_intact(void)
{
    static const char *const versions[] = {"TLSv1.3", "TLSv1.2"};
    for (int v = 0; v < 2; v++) {
        tu_pair p;
        connect_pair(&p, v);
        tp_info ci, si;
        assert_int_equal(tp_get_info(p.c, &ci), 0);
        assert_int_equal(tp_get_info(p.s, &si), 0);
        assert_string_equal(ci.tls_version, versions[v]);
        assert_int_equal(ci.tls_in_place, 1);
        assert_int_equal(si.tls_in_place, 1); /* the server seals its records */
        int vaes = gcm_choice == TP_TLS_GCM_AUTO && tp_tls_vaes_available();
        assert_int_equal(ci.tls_vaes, vaes);
        assert_int_equal(si.tls_vaes, vaes);
        stream(p.s, p.c, 20000, 300, 7);
        stream(p.s, p.c, 3000, 6000, 1);
        tu_transfer(p.s, p.c, 300000, 3, 0); /* fragmented, over many records */
        tu_transfer(p.s, p.c, 70000, 4, 0);
        stream(p.c, p.s, 2000, 300, 5); /* the client still writes through OpenSSL */
        tp_stats st;
        tp_get_stats(p.c, &st);
        assert_int_equal(st.msgs_read, 23000 + 2);
        tu_close(&p);
    }
}

static void test_used_and_intact(void **state)
{
    (void)state;
    both_openers(used_and_intact);
}

/* tls_records openssl: neither side protects records itself; read: only the client; write:
 * only the server. Messages arrive intact in each case. */
static void test_turned_off(void **state)
{
    (void)state;
    static const struct {
        tp_tls_records r;
        int client, server;
    } cases[] = {
        {TP_TLS_RECORDS_OPENSSL, 0, 0}, {TP_TLS_RECORDS_READ, 1, 0}, {TP_TLS_RECORDS_WRITE, 0, 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        records_choice = cases[i].r;
        tu_pair p;
        connect_pair(&p, 0);
        records_choice = TP_TLS_RECORDS_TRANSPORT;
        tp_info ci, si;
        assert_int_equal(tp_get_info(p.c, &ci), 0);
        assert_int_equal(tp_get_info(p.s, &si), 0);
        assert_int_equal(ci.tls_in_place, cases[i].client);
        assert_int_equal(si.tls_in_place, cases[i].server);
        stream(p.s, p.c, 5000, 300, 7);
        stream(p.c, p.s, 500, 300, 7);
        tu_close(&p);
    }
}

/* Choices out of range are refused by the check at start and by tp_connect/tp_bind; VAES is
 * refused only on a CPU without it. */
static void test_choices_checked(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.ca.cert_path);
    so.tls_records = (tp_tls_records)4;
    assert_int_equal(tp_tls_check(&so, true), TP_EINVAL);
    tt_assert_has(err_msg(), "TLS record choice 4 is none of");
    so.tls_records = TP_TLS_RECORDS_TRANSPORT;
    co.tls_gcm = (tp_tls_gcm)3;
    assert_int_equal(tp_tls_check(&co, false), TP_EINVAL);
    tt_assert_has(err_msg(), "TLS AES-GCM code choice 3 is none of");
    tp_channel *ch = NULL;
    assert_true(tp_connect(&co, &ch) < 0);
    assert_null(ch);
    co.tls_gcm = TP_TLS_GCM_VAES;
    so.tls_gcm = TP_TLS_GCM_VAES;
    if (tp_tls_vaes_available()) {
        assert_int_equal(tp_tls_check(&co, false), 0);
        assert_int_equal(tp_tls_check(&so, true), 0);
    } else {
        assert_int_equal(tp_tls_check(&so, true), TP_EINVAL);
        tt_assert_has(err_msg(), "lacks AES-NI, PCLMULQDQ, AVX2, VAES or VPCLMULQDQ");
    }
}

static int key_updates_seen;

static void count_key_updates(int write_p, int version, int content_type, const void *buf,
                              size_t len, SSL *ssl, void *arg)
{
    (void)version;
    (void)ssl;
    (void)arg;
    if (!write_p && content_type == SSL3_RT_HANDSHAKE && len >= 1 &&
        ((const uint8_t *)buf)[0] == 24)
        key_updates_seen++;
}

/* TLS 1.3: the server sends tickets (skipped) and updates its keys three times, twice asking
 * the client to update too: data keeps arriving intact, and the client answers each request
 * (the server reads the client's key updates). */
static void tickets_and_key_updates(void)
{
    tu_pair p;
    records_choice = TP_TLS_RECORDS_READ; /* the server writes through OpenSSL */
    connect_pair(&p, 0);
    records_choice = TP_TLS_RECORDS_TRANSPORT;
    tp_info si;
    assert_int_equal(tp_get_info(p.s, &si), 0);
    assert_int_equal(si.tls_in_place, 0);
    SSL *s = tp_tls_ssl(p.s);
    assert_non_null(s);
    SSL_set_msg_callback(s, count_key_updates);
    key_updates_seen = 0;
    assert_int_equal(SSL_new_session_ticket(s), 1);
    assert_int_equal(SSL_new_session_ticket(s), 1);
    stream(p.s, p.c, 2000, 300, 9);
    int asked[] = {SSL_KEY_UPDATE_REQUESTED, SSL_KEY_UPDATE_NOT_REQUESTED,
                   SSL_KEY_UPDATE_REQUESTED};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(SSL_key_update(s, asked[i]), 1);
        stream(p.s, p.c, 2000, 300, 9);
        stream(p.c, p.s, 200, 300, 9); /* carries the client's answer, when asked */
    }
    assert_int_equal(key_updates_seen, 2);
    tu_close(&p);
}

static void test_tickets_and_key_updates(void **state)
{
    (void)state;
    both_openers(tickets_and_key_updates);
}

/* TLS 1.3, the server sealing its records: the client asks for key updates (through its
 * OpenSSL, which writes); the server answers each before its next record and updates its keys,
 * which the client, reading in place, follows. */
static void key_updates_asked_of_server(void)
{
    tu_pair p;
    connect_pair(&p, 0);
    SSL *c = tp_tls_ssl(p.c);
    assert_non_null(c);
    stream(p.s, p.c, 1000, 300, 9);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(SSL_key_update(c, SSL_KEY_UPDATE_REQUESTED), 1);
        stream(p.c, p.s, 50, 100, 9); /* carries the request */
        stream(p.s, p.c, 2000, 300, 9);
    }
    tu_close(&p);
}

static void test_key_updates_asked_of_server(void **state)
{
    (void)state;
    both_openers(key_updates_asked_of_server);
}

/* Raw bytes written on the server's socket after the handshake (behind OpenSSL's back): the
 * client fails saying what was wrong with them. */
static void bad_bytes(int v12, const uint8_t *bytes, size_t n, int close_after, const char *want)
{
    tu_pair p;
    connect_pair(&p, v12);
    stream(p.s, p.c, 100, 100, 3);
    assert_true(tp_flush(p.s) == 0);
    assert_int_equal(send(tp_fd(p.s), bytes, n, MSG_NOSIGNAL), (ssize_t)n);
    if (close_after)
        shutdown(tp_fd(p.s), SHUT_WR);
    const char *e = read_until_failure(p.c);
    tt_assert_has(e, want);
    tu_close(&p);
}

static void bad_records(void)
{
    uint8_t rec[5 + 64];
    memset(rec, 0xA5, sizeof(rec));
    rec[0] = 23;
    rec[1] = 3;
    rec[2] = 3;
    rec[3] = 0;
    rec[4] = 64;
    for (int v12 = 0; v12 < 2; v12++) {
        bad_bytes(v12, rec, sizeof(rec), 0, "failed its integrity check (bad_record_mac)");
        bad_bytes(v12, (const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18, 0,
                  "bytes that are not a TLS record");
        static const uint8_t huge[] = {23, 3, 3, 0xFF, 0xFF, 0, 0, 0};
        bad_bytes(v12, huge, sizeof(huge), 0, "exceeds the maximum of 18432");
        bad_bytes(v12, rec, 30, 1, "in the middle of a TLS record (30 bytes of it received)");
    }
    static const uint8_t tiny[] = {23, 3, 3, 0, 3, 1, 2, 3};
    bad_bytes(0, tiny, sizeof(tiny), 0, "shorter than its tag");
    bad_bytes(1, tiny, sizeof(tiny), 0, "shorter than its nonce and tag");
}

static void test_bad_records(void **state)
{
    (void)state;
    both_openers(bad_records);
}

/* The server closes with close_notify after its last messages: every message, then the close
 * (not a failure in a frame); TLS 1.2 and 1.3. */
static void test_close_after_messages(void **state)
{
    (void)state;
    for (int v12 = 0; v12 < 2; v12++) {
        tu_pair p;
        connect_pair(&p, v12);
        uint8_t buf[200];
        for (int i = 0; i < 500; i++) {
            tu_pattern(buf, 150, (uint32_t)i);
            assert_true(tu_write(p.s, buf, 150, 0) >= 0);
        }
        assert_int_equal(tp_flush(p.s), 0);
        tp_close(p.s);
        p.s = NULL;
        int got = 0;
        tp_msg m;
        int rc;
        while ((rc = tu_read(p.c, &m, 3000)) == 1) {
            tu_pattern(buf, 150, (uint32_t)got);
            ts_assert_bytes_equal(m.data, m.len, buf, 150);
            got++;
        }
        assert_int_equal(got, 500);
        assert_int_equal(rc, TP_EFAIL);
        tt_assert_has(err_msg(), "connection closed by peer");
        assert_null(strstr(err_msg(), "middle"));
        tu_close(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_used_and_intact),
        cmocka_unit_test(test_turned_off),
        cmocka_unit_test(test_choices_checked),
        cmocka_unit_test(test_tickets_and_key_updates),
        cmocka_unit_test(test_key_updates_asked_of_server),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_close_after_messages),
    };
    return cmocka_run_group_tests(tests, tt_group_setup, tt_group_teardown);
}
