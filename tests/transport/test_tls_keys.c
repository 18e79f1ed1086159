/* The TLS record keys against published known answers and against OpenSSL:
 *
 *  - TLS 1.3 (RFC 8446 section 7.3): the traffic secrets of RFC 8448 section 3 ("Simple 1-RTT
 *    Handshake") give its record keys and IVs (tp_tls13_traffic_keys, and tp_tls_keys set up
 *    from them); with those keys the transport's sealer writes, byte for byte, the records of
 *    that trace (the server's and the client's application data and close_notify) and its
 *    reader opens the server's (a NewSessionTicket skipped, the data, the close_notify);
 *  - TLS 1.2 (RFC 5246 section 6.3): the key block of the NIST CAVS TLS 1.2 KDF test vector
 *    (SHA-256), as OpenSSL's test suite carries it (test/recipes/30-test_evp_data/
 *    evpkdf_tls12_prf.txt, "key expansion");
 *  - against OpenSSL, in memory (no socket): tp_tls_keys_init on a finished OpenSSL connection
 *    (TLS 1.2 and 1.3, AES-128 and AES-256) opens what OpenSSL's server wrote; TLS 1.3 key
 *    updates (RFC 8446 section 7.2, no published vector): our reader follows the ones
 *    OpenSSL's server makes, and OpenSSL's client follows the ones our sealer makes.
 * Each run with the AES-GCM code auto, openssl and (where the CPU has it) vaes. */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "testsupport.h"
#include "tp_stream.h"
#include "tp_tls_rx.h"
#include "tp_tls_tx.h"
#include "ts_tls.h"
#include "ts_tlsrec.h"

/* ---- RFC 8448 section 3 --------------------------------------------------------------- */

/* {server} derive secret "tls13 s ap traffic" and its write traffic keys */
#define S_AP_SECRET "a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643"
#define S_AP_KEY "9f02283b6c9c07efc26bb9f2ac92e356"
#define S_AP_IV "cf782b88dd83549aadf1e984"
/* {server} derive secret "tls13 c ap traffic" and the client's write traffic keys */
#define C_AP_SECRET "9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5"
#define C_AP_KEY "17422dda596ed5d9acd890e3c63f5051"
#define C_AP_IV "5b78923dee08579033e523d9"
/* the handshake traffic secrets and their keys (the same derivation) */
#define S_HS_SECRET "b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38"
#define S_HS_KEY "3fce516009c21727d0f2e4e86ee403bc"
#define S_HS_IV "5d313eb2671276ee13000b30"
#define C_HS_SECRET "b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21"
#define C_HS_KEY "dbfaa693d1762c5b666af5d950258d01"
#define C_HS_IV "5bd3c71b836e0b76bb73265f"

/* {server} send handshake record: the NewSessionTicket (record 0 under the server's
 * application keys) */
static const char nst_rec[] =
    "170303 00de 3a6b8f90414a97d6959c3487680de5134a2b240e6cffac116e95d41d6af8f6b580dcf3d11d63c758"
    "db289a015940252f55713e061dc13e078891a38efbcf5753ad8ef170ad3c7353d16d9da773b9ca7f2b9fa1b6c0d4"
    "a3d03f75e09c30ba1e62972ac46f75f7b981be63439b2999ce13064615139891d5e4c5b406f16e3fc181a77ca475"
    "840025db2f0a77f81b5ab05b94c01346755f69232c86519d86cbeeac87aac347d143f9605d64f650db4d023e70e9"
    "52ca49fe5137121c74bc2697687e248746d6df353005f3bce18696129c8153556b3b6c6779b37bf15985684f";
/* {server} send application_data record (record 1): the 50 bytes 00 01 .. 31 */
static const char s_app_rec[] =
    "170303 0043 2e937e11ef4ac740e538ad36005fc4a46932fc3225d05f82aa1b36e30efaf97d90e6dffc602dcb50"
    "1a59a8fcc49c4bf2e5f0a21c0047c2abf332540dd032e167c2955d";
/* {client} send application_data record (record 0 under the client's application keys) */
static const char c_app_rec[] =
    "170303 0043 a23f7054b62c94d0affafe8228ba55cbefacea42f914aa66bcab3f2b9819a8a5b46b395bd54a9a20"
    "441e2b62974e1f5a6292a2977014bd1e3deae63aeebb21694915e4";
/* {server} send alert record (record 2): close_notify */
static const char s_alert_rec[] = "170303 0013 b58fd67166ebf599d24720cfbe7efa7a8864a9";
/* {client} send alert record (record 1): close_notify */
static const char c_alert_rec[] = "170303 0013 c98727606556 66b74d7ff1153efd6db6d0b0e3";

/* The AES-GCM codes each test runs with: auto and openssl always, vaes where the CPU has it. */
static const tp_tls_gcm gcms[] = {TP_TLS_GCM_AUTO, TP_TLS_GCM_OPENSSL, TP_TLS_GCM_VAES};
#define N_GCMS (tp_tls_vaes_available() ? 3 : 2)

static void check_traffic_keys(const char *secret_hex, const char *key_hex, const char *iv_hex)
{
    uint8_t secret[32], key[16], iv[12], want_key[16], want_iv[12];
    assert_int_equal(ts_hex(secret_hex, secret, sizeof(secret)), 32);
    ts_hex(key_hex, want_key, sizeof(want_key));
    ts_hex(iv_hex, want_iv, sizeof(want_iv));
    assert_int_equal(tp_tls13_traffic_keys(EVP_sha256(), secret, 32, key, 16, iv), 0);
    ts_assert_bytes_equal(key, 16, want_key, 16);
    ts_assert_bytes_equal(iv, 12, want_iv, 12);
    for (int g = 0; g < N_GCMS; g++) { /* the record keys set up from the secret */
        tp_tls_keys k;
        assert_int_equal(tp_tls_keys_init_test(&k, 1, 1, 16, secret, 32, 0, gcms[g]), 0);
        ts_assert_bytes_equal(k.iv, 12, want_iv, 12);
        assert_int_equal(k.seq, 0);
        tp_tls_keys_clear(&k);
    }
}

static void test_rfc8448_traffic_keys(void **state)
{
    (void)state;
    check_traffic_keys(S_AP_SECRET, S_AP_KEY, S_AP_IV);
    check_traffic_keys(C_AP_SECRET, C_AP_KEY, C_AP_IV);
    check_traffic_keys(S_HS_SECRET, S_HS_KEY, S_HS_IV);
    check_traffic_keys(C_HS_SECRET, C_HS_KEY, C_HS_IV);
}

/* Everything readable on fd now (it is non-blocking), at most cap bytes. */
static size_t drain(int fd, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n < cap && (r = recv(fd, buf + n, cap - n, MSG_DONTWAIT)) > 0)
        n += (size_t)r;
    return n;
}

/* A socketpair, both ends non-blocking. */
static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int i = 0; i < 2; i++)
        fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK);
}

/* Our sealer with the keys of secret_hex from record seq on: writes the 50 bytes of the trace,
 * then closes; the bytes on the wire are the trace's records app_hex and alert_hex. */
static void seal_like_trace(const char *secret_hex, uint64_t seq, const char *app_hex,
                            const char *alert_hex, tp_tls_gcm gcm)
{
    uint8_t secret[32], payload[50], want[200], got[400];
    ts_hex(secret_hex, secret, sizeof(secret));
    for (int i = 0; i < 50; i++)
        payload[i] = (uint8_t)i;
    tp_tls_keys k;
    assert_int_equal(tp_tls_keys_init_test(&k, 1, 1, 16, secret, 32, seq, gcm), 0);
    tp_tls_tx *tx;
    assert_int_equal(tp_tls_tx_new_test(&k, &tx), 0);
    int sv[2];
    pair(sv);
    assert_int_equal(tp_tls_tx_write(tx, sv[0], payload, sizeof(payload)), 50);
    size_t wl = ts_hex(app_hex, want, sizeof(want));
    size_t n = drain(sv[1], got, sizeof(got));
    ts_assert_bytes_equal(got, n, want, wl);
    tp_tls_tx_close(tx, sv[0]);
    wl = ts_hex(alert_hex, want, sizeof(want));
    n = drain(sv[1], got, sizeof(got));
    ts_assert_bytes_equal(got, n, want, wl);
    tp_tls_tx_free(tx);
    close(sv[0]);
    close(sv[1]);
}

/* Our reader with the server's application keys: the trace's NewSessionTicket (skipped), data
 * record and close_notify, sent in pieces of every size from 1 to 40 bytes. */
static void read_trace(tp_tls_gcm gcm, size_t piece)
{
    uint8_t secret[32], wire[512];
    ts_hex(S_AP_SECRET, secret, sizeof(secret));
    size_t n = ts_hex(nst_rec, wire, sizeof(wire));
    n += ts_hex(s_app_rec, wire + n, sizeof(wire) - n);
    n += ts_hex(s_alert_rec, wire + n, sizeof(wire) - n);
    tp_tls_keys k;
    assert_int_equal(tp_tls_keys_init_test(&k, 0, 1, 16, secret, 32, 0, gcm), 0);
    tp_tls_rx *rx;
    assert_int_equal(tp_tls_rx_new_test(&k, &rx), 0);
    int sv[2];
    pair(sv);
    tp_channel *ch = ts_tlsrec_channel(sv[0], 6144);
    assert_non_null(ch);
    uint8_t got[64];
    size_t have = 0;
    int rc = 0;
    for (size_t off = 0; off < n && rc >= 0; off += piece) {
        size_t m = n - off < piece ? n - off : piece;
        assert_int_equal(send(sv[1], wire + off, m, 0), (ssize_t)m);
        do { /* until it has taken every complete record */
            rc = tp_tls_rx_fill(ch, rx);
            uint32_t avail = ch->in_wr - ch->in_rd;
            assert_true(have + avail <= sizeof(got));
            memcpy(got + have, ch->in + ch->in_rd, avail); /* the frames' bytes, taken */
            have += avail;
            ch->in_rd = ch->in_wr;
        } while (rc >= 0 && ch->rx_pend);
    }
    assert_int_equal(rc, TP_IO_EOF);
    assert_non_null(strstr(err_msg(), "close_notify"));
    uint8_t want[50];
    for (int i = 0; i < 50; i++)
        want[i] = (uint8_t)i;
    ts_assert_bytes_equal(got, have, want, sizeof(want));
    assert_int_equal(tp_tls_rx_keys(rx)->seq, 3);
    tp_tls_rx_free(rx);
    ts_tlsrec_channel_free(ch);
    close(sv[1]);
}

static void test_rfc8448_records(void **state)
{
    (void)state;
    for (int g = 0; g < N_GCMS; g++) {
        /* the server's records 1 (data) and 2 (close_notify): record 0 was the ticket */
        seal_like_trace(S_AP_SECRET, 1, s_app_rec, s_alert_rec, gcms[g]);
        /* the client's records 0 and 1: a sealer does not care which side it is */
        seal_like_trace(C_AP_SECRET, 0, c_app_rec, c_alert_rec, gcms[g]);
        for (size_t piece = 1; piece <= 40; piece++)
            read_trace(gcms[g], piece);
        read_trace(gcms[g], 400);
    }
}

/* ---- TLS 1.2 ---------------------------------------------------------------------------- */

/* NIST CAVS TLS 1.2 KDF (SHA-256), key expansion, as in OpenSSL's
 * test/recipes/30-test_evp_data/evpkdf_tls12_prf.txt. */
#define NIST_MS                                                                                    \
    "202c88c00f84a17a20027079604787461176455539e705be730890602c289a5001e34eeb3a043e5d52a65e661251" \
    "8"                                                                                            \
    "8bf"
#define NIST_SR "ae6c806f8ad4d80784549dff28a4b58fd837681a51d928c3e30ee5ff14f39868"
#define NIST_CR "62e1fd91f23f558a605f28478c58cf72637b89784d959df7e946d3f07bd1b616"
#define NIST_BLOCK                                                                                 \
    "d06139889fffac1e3a71865f504aa5d0d2a2e89506c6f2279b670c3e1b74f531016a2530c51a3a0f7e1d6590d0f0" \
    "5"                                                                                            \
    "66b2f387f8d11fd4f731cdd572d2eae927f6f2f81410b25e6960be68985add6c38445ad9f8c64bf8068bf9a66794" \
    "8"                                                                                            \
    "5d966f1ad6f68b43495b10a683755ea2b858d70ccac7ec8b053c6bd41ca299d4e51928"

static void test_tls12_key_block(void **state)
{
    (void)state;
    uint8_t ms[48], sr[32], cr[32], want[128], got[128];
    assert_int_equal(ts_hex(NIST_MS, ms, sizeof(ms)), 48);
    ts_hex(NIST_SR, sr, sizeof(sr));
    ts_hex(NIST_CR, cr, sizeof(cr));
    assert_int_equal(ts_hex(NIST_BLOCK, want, sizeof(want)), 128);
    assert_int_equal(tp_tls12_key_block(EVP_sha256(), ms, 48, sr, cr, got, 128), 0);
    ts_assert_bytes_equal(got, 128, want, 128);
    /* a shorter block is the start of the longer one (an AES-128-GCM suite takes 40 bytes) */
    assert_int_equal(tp_tls12_key_block(EVP_sha256(), ms, 48, sr, cr, got, 40), 0);
    ts_assert_bytes_equal(got, 40, want, 40);
    /* the randoms are not interchangeable */
    assert_int_equal(tp_tls12_key_block(EVP_sha256(), ms, 48, cr, sr, got, 40), 0);
    assert_true(memcmp(got, want, 40) != 0);
}

/* ---- against OpenSSL, in memory --------------------------------------------------------- */

static ts_cert cert;

/* The client's key-log lines: the server's TLS 1.3 application traffic secret. */
static uint8_t logged_secret[64];
static size_t logged_len;

static void keylog(const SSL *ssl, const char *line)
{
    (void)ssl;
    static const char tag[] = "SERVER_TRAFFIC_SECRET_0 ";
    if (strncmp(line, tag, sizeof(tag) - 1) != 0)
        return;
    const char *hex = strchr(line + sizeof(tag) - 1, ' ') + 1;
    logged_len = ts_hex(hex, logged_secret, sizeof(logged_secret));
}

/* An OpenSSL client and server connected by memory BIOs, the handshake done. */
typedef struct mem_pair {
    SSL_CTX *sctx, *cctx;
    SSL *s, *c;
    BIO *s_out, *c_in; /* what the server writes; what the client reads */
} mem_pair;

/* Moves the bytes one side wrote to the other. */
static void shuttle(mem_pair *p)
{
    char buf[16384];
    int n;
    while ((n = BIO_read(SSL_get_wbio(p->c), buf, sizeof(buf))) > 0)
        BIO_write(SSL_get_rbio(p->s), buf, n);
    while ((n = BIO_read(SSL_get_wbio(p->s), buf, sizeof(buf))) > 0)
        BIO_write(SSL_get_rbio(p->c), buf, n);
}

static void mem_pair_open(mem_pair *p, int version, const char *suite)
{
    memset(p, 0, sizeof(*p));
    p->sctx = SSL_CTX_new(TLS_server_method());
    p->cctx = SSL_CTX_new(TLS_client_method());
    assert_non_null(p->sctx);
    assert_non_null(p->cctx);
    for (int i = 0; i < 2; i++) {
        SSL_CTX *x = i ? p->cctx : p->sctx;
        SSL_CTX_set_min_proto_version(x, version);
        SSL_CTX_set_max_proto_version(x, version);
        if (version == TLS1_3_VERSION)
            assert_int_equal(SSL_CTX_set_ciphersuites(x, suite), 1);
        else
            assert_int_equal(SSL_CTX_set_cipher_list(x, suite), 1);
    }
    assert_int_equal(SSL_CTX_use_certificate(p->sctx, cert.x509), 1);
    assert_int_equal(SSL_CTX_use_PrivateKey(p->sctx, cert.key), 1);
    SSL_CTX_set_num_tickets(p->sctx, 0);
    SSL_CTX_set_keylog_callback(p->cctx, keylog);
    p->s = SSL_new(p->sctx);
    p->c = SSL_new(p->cctx);
    SSL_set_bio(p->s, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
    SSL_set_bio(p->c, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
    SSL_set_accept_state(p->s);
    SSL_set_connect_state(p->c);
    logged_len = 0;
    for (int i = 0; i < 20 && !(SSL_is_init_finished(p->s) && SSL_is_init_finished(p->c)); i++) {
        SSL_do_handshake(p->c);
        shuttle(p);
        SSL_do_handshake(p->s);
        shuttle(p);
    }
    assert_true(SSL_is_init_finished(p->s) && SSL_is_init_finished(p->c));
    ERR_clear_error();
}

static void mem_pair_close(mem_pair *p)
{
    SSL_free(p->s);
    SSL_free(p->c);
    SSL_CTX_free(p->sctx);
    SSL_CTX_free(p->cctx);
}

/* Opens every record of wire (n bytes) with k: returns the data, each message of its own in
 * texts[] (TLS 1.3 key updates followed: *updates counts them). */
static void open_all(tp_tls_keys *k, uint8_t *wire, size_t n, char texts[][32], int *ntexts,
                     int *updates)
{
    size_t off = 0;
    *ntexts = *updates = 0;
    while (off < n) {
        uint8_t type = 0, *content = NULL;
        size_t len = 0;
        long r = ts_tlsrec_open(k, wire + off, n - off, &type, &content, &len);
        if (r <= 0)
            fail_msg("record at %zu of %zu does not open (%ld)", off, n, r);
        if (type == TP_TLS_CT_HANDSHAKE && len == 5 && content[0] == 24) {
            assert_int_equal(tp_tls_keys_update(k), 0);
            (*updates)++;
        } else {
            assert_int_equal(type, TP_TLS_CT_DATA);
            assert_true(len < 32);
            memcpy(texts[*ntexts], content, len);
            texts[(*ntexts)++][len] = 0;
        }
        off += (size_t)r;
    }
}

/* tp_tls_keys_init on OpenSSL's finished client connection opens the server's records: the
 * TLS 1.2 key block (master secret, randoms) and the TLS 1.3 secret as the transport takes
 * them; for TLS 1.3, OpenSSL's server updates its keys twice on the way. */
static void test_openssl_server_records(void **state)
{
    (void)state;
    static const struct {
        int version;
        const char *suite;
    } cases[] = {
        {TLS1_2_VERSION, "ECDHE-RSA-AES128-GCM-SHA256"},
        {TLS1_2_VERSION, "ECDHE-RSA-AES256-GCM-SHA384"},
        {TLS1_3_VERSION, "TLS_AES_128_GCM_SHA256"},
        {TLS1_3_VERSION, "TLS_AES_256_GCM_SHA384"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (int g = 0; g < N_GCMS; g++) {
            mem_pair p;
            mem_pair_open(&p, cases[i].version, cases[i].suite);
            int v13 = cases[i].version == TLS1_3_VERSION;
            assert_int_equal(SSL_write(p.s, "before", 6), 6);
            if (v13) {
                assert_int_equal(SSL_key_update(p.s, SSL_KEY_UPDATE_NOT_REQUESTED), 1);
                assert_int_equal(SSL_write(p.s, "after one", 9), 9);
                assert_int_equal(SSL_key_update(p.s, SSL_KEY_UPDATE_NOT_REQUESTED), 1);
            }
            assert_int_equal(SSL_write(p.s, "last", 4), 4);
            uint8_t wire[4096];
            int n = BIO_read(SSL_get_wbio(p.s), wire, sizeof(wire));
            assert_true(n > 0);
            tp_tls_keys k;
            assert_int_equal(tp_tls_keys_init(&k, p.c, 0, logged_secret, logged_len, 0, gcms[g]),
                             0);
            char texts[4][32];
            int nt, updates;
            open_all(&k, wire, (size_t)n, texts, &nt, &updates);
            assert_int_equal(updates, v13 ? 2 : 0);
            assert_int_equal(nt, v13 ? 3 : 2);
            assert_string_equal(texts[0], "before");
            if (v13)
                assert_string_equal(texts[1], "after one");
            assert_string_equal(texts[nt - 1], "last");
            assert_int_equal(k.generation, (uint32_t)updates);
            tp_tls_keys_clear(&k);
            mem_pair_close(&p);
        }
    }
}

/* Our sealer, with the server's TLS 1.3 keys, writes records that OpenSSL's client reads,
 * updating its keys three times on the way (asked for by the peer, as tp_tls does when the
 * client asks): OpenSSL follows each update. */
static void test_openssl_client_follows(void **state)
{
    (void)state;
    static const char *const suites[] = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"};
    for (int s = 0; s < 2; s++) {
        for (int g = 0; g < N_GCMS; g++) {
            mem_pair p;
            mem_pair_open(&p, TLS1_3_VERSION, suites[s]);
            tp_tls_tx *tx;
            assert_int_equal(tp_tls_tx_new(p.s, logged_secret, logged_len, 0, gcms[g], &tx), 0);
            int sv[2];
            pair(sv);
            char msg[32];
            for (int i = 0; i < 8; i++) {
                if (i % 2 == 1)
                    tp_tls_tx_key_update_asked(tx);
                int len = snprintf(msg, sizeof(msg), "message %d", i);
                assert_int_equal(tp_tls_tx_write(tx, sv[0], (const uint8_t *)msg, (size_t)len),
                                 len);
                uint8_t wire[256];
                size_t n = drain(sv[1], wire, sizeof(wire));
                BIO_write(SSL_get_rbio(p.c), wire, (int)n);
                char got[64];
                int r = SSL_read(p.c, got, sizeof(got));
                if (r != len || memcmp(got, msg, (size_t)len) != 0)
                    fail_msg("OpenSSL read %d bytes for \"%s\" (%s)", r, msg,
                             ERR_error_string(ERR_get_error(), NULL));
            }
            assert_int_equal(tp_tls_tx_keys(tx)->generation, 4);
            tp_tls_tx_free(tx);
            close(sv[0]);
            close(sv[1]);
            mem_pair_close(&p);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    ts_cert_make(&cert, "server", "localhost", "DNS:localhost", -60, 86400, false, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_cert_free(&cert);
    ts_tls_cleanup();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8448_traffic_keys),
        cmocka_unit_test(test_rfc8448_records),
        cmocka_unit_test(test_tls12_key_block),
        cmocka_unit_test(test_openssl_server_records),
        cmocka_unit_test(test_openssl_client_follows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
