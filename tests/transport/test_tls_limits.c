/* The limits the TLS record layer keeps (tp_tls_tx, tp_tls_rx, tp_tls_keys), tested through
 * their test-only entry points (keys set up without a handshake, sequence numbers started
 * near a limit):
 *
 *  - a nonce never repeats under one key: over many records and key updates (asked for by the
 *    peer, or made because the key reached its limit) every record's (key, sequence number)
 *    is new, the sequence number starts again at 0 only with a new key, and a peer opening the
 *    records with its own count agrees with each;
 *  - the AES-GCM usage limit of one key (RFC 8446 section 5.5: 2^24.5 full-size records): a
 *    TLS 1.3 sealer started just below it updates its keys (its KeyUpdate the key's last
 *    record) and goes on; a TLS 1.2 sealer fails the write that would pass it, saying why, and
 *    seals nothing more (not even its close_notify);
 *  - a reader refuses a record that would take its sequence number past 2^64 - 1;
 *  - GCM's 32-bit block counter cannot wrap inside a record: checked at compile time in
 *    tp_tls_keys.h, and here with the largest record there is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "testsupport.h"
#include "tp_tls_rx.h"
#include "tp_tls_tx.h"
#include "ts_tlsrec.h"

static const uint8_t secret32[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
static const uint8_t key12[20] = {9, 8, 7, 6, 5, 4, 3,   2,   1,   0,
                                  1, 2, 3, 4, 5, 6, 0xa, 0xb, 0xc, 0xd};

static const tp_tls_gcm gcms[] = {TP_TLS_GCM_AUTO, TP_TLS_GCM_OPENSSL, TP_TLS_GCM_VAES};
#define N_GCMS (tp_tls_vaes_available() ? 3 : 2)

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int i = 0; i < 2; i++)
        fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK);
}

/* One record seen by the peer: its key generation and sequence number. */
typedef struct seen_rec {
    uint32_t gen;
    uint64_t seq;
} seen_rec;

/* The peer: opens everything readable on fd with its keys k (following key updates),
 * appending each record's (generation, sequence number) to recs and its data to data. */
typedef struct peer {
    tp_tls_keys k;
    uint8_t buf[1 << 17];
    size_t have;
    seen_rec recs[4096];
    size_t nrec;
    uint8_t data[1 << 17];
    size_t ndata;
    unsigned updates, alerts;
} peer;

static void peer_read(peer *p, int fd)
{
    ssize_t r;
    while ((r = recv(fd, p->buf + p->have, sizeof(p->buf) - p->have, 0)) > 0)
        p->have += (size_t)r;
    size_t off = 0;
    for (;;) {
        uint8_t type = 0, *content = NULL;
        size_t n = 0;
        seen_rec s = {p->k.generation, p->k.seq};
        if (!p->k.v13) /* TLS 1.2: the explicit nonce is the sequence number */
            for (int i = 0; i < 8 && p->have - off >= TP_TLS_REC_HDR + 8; i++)
                assert_int_equal(p->buf[off + TP_TLS_REC_HDR + i],
                                 (uint8_t)(s.seq >> (56 - 8 * i)));
        long len = ts_tlsrec_open(&p->k, p->buf + off, p->have - off, &type, &content, &n);
        if (len == 0)
            break;
        if (len < 0)
            fail_msg("record %zu (key %u, sequence %llu) does not open", p->nrec, s.gen,
                     (unsigned long long)s.seq);
        assert_true(p->nrec < sizeof(p->recs) / sizeof(p->recs[0]));
        p->recs[p->nrec++] = s;
        if (type == TP_TLS_CT_HANDSHAKE) {
            assert_int_equal(n, 5);
            assert_int_equal(content[0], 24); /* KeyUpdate, update_not_requested */
            assert_int_equal(content[4], 0);
            assert_int_equal(tp_tls_keys_update(&p->k), 0);
            p->updates++;
        } else if (type == TP_TLS_CT_ALERT) {
            p->alerts++;
        } else {
            assert_int_equal(type, TP_TLS_CT_DATA);
            assert_true(p->ndata + n <= sizeof(p->data));
            memcpy(p->data + p->ndata, content, n);
            p->ndata += n;
        }
        off += (size_t)len;
    }
    memmove(p->buf, p->buf + off, p->have - off);
    p->have -= off;
}

/* No two records share a key generation and sequence number, and within a generation the
 * sequence numbers follow each other. */
static void check_unique(const peer *p)
{
    for (size_t i = 1; i < p->nrec; i++) {
        const seen_rec *a = &p->recs[i - 1], *b = &p->recs[i];
        if (b->gen == a->gen)
            assert_true(b->seq == a->seq + 1);
        else
            assert_true(b->gen == a->gen + 1 && b->seq == 0);
    }
    for (size_t i = 0; i < p->nrec; i++)
        for (size_t j = i + 1; j < p->nrec && p->recs[j].gen == p->recs[i].gen; j++)
            assert_true(p->recs[j].seq != p->recs[i].seq);
}

/* A sealer and its peer with the same keys, the first record's sequence number seq. */
static void make_pair(int v13, size_t key_len, uint64_t seq, tp_tls_gcm gcm, tp_tls_tx **tx,
                      peer *p)
{
    const uint8_t *secret = v13 ? secret32 : key12;
    size_t slen = v13 ? 32 : key_len + 4;
    uint8_t s12[36];
    if (!v13) {
        memset(s12, 0x5c, sizeof(s12));
        memcpy(s12, key12, key_len < 16 ? key_len : 16);
        secret = s12;
    }
    tp_tls_keys k;
    assert_int_equal(tp_tls_keys_init_test(&k, 1, v13, key_len, secret, slen, seq, gcm), 0);
    assert_int_equal(tp_tls_tx_new_test(&k, tx), 0);
    memset(p, 0, sizeof(*p));
    assert_int_equal(
        tp_tls_keys_init_test(&p->k, 0, v13, key_len, secret, slen, seq, TP_TLS_GCM_OPENSSL), 0);
}

/* Writes n bytes of pattern through tx (all of them, the peer draining as it goes). */
static void write_all(tp_tls_tx *tx, int fd, int peer_fd, peer *p, size_t n, uint8_t seed)
{
    static uint8_t msg[1 << 16];
    assert_true(n <= sizeof(msg));
    for (size_t i = 0; i < n; i++)
        msg[i] = (uint8_t)(seed + i * 7);
    size_t off = 0;
    while (off < n) {
        long r = tp_tls_tx_write(tx, fd, msg + off, n - off);
        if (r < 0)
            fail_msg("write: %s", err_msg());
        off += (size_t)r;
        peer_read(p, peer_fd);
    }
    peer_read(p, peer_fd);
}

/* Many records of many sizes, key updates asked for now and then: nothing repeats. */
static void test_no_nonce_repeats(void **state)
{
    (void)state;
    for (int g = 0; g < N_GCMS; g++) {
        for (int v13 = 0; v13 < 2; v13++) {
            tp_tls_tx *tx;
            peer *p = malloc(sizeof(*p));
            make_pair(v13, v13 ? 32 : 16, 0, gcms[g], &tx, p);
            int sv[2];
            pair(sv);
            size_t total = 0;
            for (int i = 0; i < 300; i++) {
                if (v13 && i % 13 == 5)
                    tp_tls_tx_key_update_asked(tx);
                size_t n = 1 + (size_t)(i * 997) % 20000;
                write_all(tx, sv[0], sv[1], p, n, (uint8_t)i);
                total += n;
                assert_int_equal(p->ndata, n);
                p->ndata = 0;
            }
            check_unique(p);
            assert_int_equal(p->updates, v13 ? 23 : 0);
            assert_int_equal(tp_tls_tx_keys(tx)->generation, p->updates);
            assert_int_equal(tp_tls_tx_keys(tx)->seq, p->k.seq);
            tp_tls_tx_free(tx);
            tp_tls_keys_clear(&p->k);
            free(p);
            close(sv[0]);
            close(sv[1]);
        }
    }
}

/* TLS 1.3 started 3 records below the limit: two data records, then the KeyUpdate as the
 * key's last record (sequence number limit - 1), then the new key from 0; no key ever seals
 * a record numbered past limit - 1. */
static void test_tls13_updates_at_limit(void **state)
{
    (void)state;
    for (int g = 0; g < N_GCMS; g++) {
        tp_tls_tx *tx;
        peer *p = malloc(sizeof(*p));
        make_pair(1, 16, TP_TLS_GCM_RECORD_LIMIT - 3, gcms[g], &tx, p);
        int sv[2];
        pair(sv);
        for (int i = 0; i < 5; i++)
            write_all(tx, sv[0], sv[1], p, 100, (uint8_t)i);
        assert_int_equal(p->ndata, 500);
        assert_int_equal(p->updates, 1);
        assert_int_equal(p->nrec, 6);
        static const seen_rec want[] = {{0, TP_TLS_GCM_RECORD_LIMIT - 3},
                                        {0, TP_TLS_GCM_RECORD_LIMIT - 2},
                                        {0, TP_TLS_GCM_RECORD_LIMIT - 1}, /* the KeyUpdate */
                                        {1, 0},
                                        {1, 1},
                                        {1, 2}};
        for (int i = 0; i < 6; i++) {
            assert_int_equal(p->recs[i].gen, want[i].gen);
            assert_int_equal(p->recs[i].seq, want[i].seq);
        }
        check_unique(p);
        tp_tls_tx_close(tx, sv[0]);
        peer_read(p, sv[1]);
        assert_int_equal(p->alerts, 1);
        tp_tls_tx_free(tx);
        tp_tls_keys_clear(&p->k);
        free(p);
        close(sv[0]);
        close(sv[1]);
    }
}

/* TLS 1.2 started 2 records below the limit: two records go, the third write fails saying
 * why, nothing more is sent, and the close sends no close_notify under the spent key. */
static void test_tls12_stops_at_limit(void **state)
{
    (void)state;
    for (int g = 0; g < N_GCMS; g++) {
        for (size_t key_len = 16; key_len <= 32; key_len += 16) {
            tp_tls_tx *tx;
            peer *p = malloc(sizeof(*p));
            make_pair(0, key_len, TP_TLS_GCM_RECORD_LIMIT - 2, gcms[g], &tx, p);
            int sv[2];
            pair(sv);
            write_all(tx, sv[0], sv[1], p, 100, 1);
            write_all(tx, sv[0], sv[1], p, 100, 2);
            static const uint8_t more[10];
            assert_int_equal(tp_tls_tx_write(tx, sv[0], more, sizeof(more)), TP_EFAIL);
            const char *e = err_msg();
            if (!strstr(e, "TLS 1.2: 23726566 records sealed under one key, the AES-GCM limit "
                           "(RFC 8446 section 5.5)") ||
                !strstr(e, "the channel closes"))
                fail_msg("message: %s", e);
            assert_int_equal(tp_tls_tx_write(tx, sv[0], more, sizeof(more)), TP_EFAIL);
            tp_tls_tx_close(tx, sv[0]);
            peer_read(p, sv[1]);
            assert_int_equal(p->nrec, 2);
            assert_int_equal(p->recs[1].seq, TP_TLS_GCM_RECORD_LIMIT - 1);
            assert_int_equal(p->alerts, 0);
            assert_int_equal(p->have, 0);
            tp_tls_tx_free(tx);
            tp_tls_keys_clear(&p->k);
            free(p);
            close(sv[0]);
            close(sv[1]);
        }
    }
}

/* A reader at sequence number 2^64 - 2: that record opens, the next (which would be numbered
 * 2^64 - 1 and be followed by 0) is refused. */
static void test_reader_sequence_end(void **state)
{
    (void)state;
    for (int v13 = 0; v13 < 2; v13++) {
        uint8_t s12[20];
        memcpy(s12, key12, 20);
        const uint8_t *secret = v13 ? secret32 : s12;
        size_t slen = v13 ? 32 : 20;
        tp_tls_keys sk, rk;
        assert_int_equal(tp_tls_keys_init_test(&sk, 1, v13, 16, secret, slen, UINT64_MAX - 2,
                                               TP_TLS_GCM_OPENSSL),
                         0);
        assert_int_equal(
            tp_tls_keys_init_test(&rk, 0, v13, 16, secret, slen, UINT64_MAX - 2, TP_TLS_GCM_AUTO),
            0);
        tp_tls_rx *rx;
        assert_int_equal(tp_tls_rx_new_test(&rk, &rx), 0);
        int sv[2];
        pair(sv);
        tp_channel *ch = ts_tlsrec_channel(sv[0], 6144);
        uint8_t rec[200], frame[10] = {0, 10, 2, 1, 2, 3, 4, 5, 6, 7};
        for (int i = 0; i < 3; i++) {
            size_t n = ts_tlsrec_seal(&sk, TP_TLS_CT_DATA, frame, sizeof(frame), 0, rec);
            assert_int_equal(send(sv[1], rec, n, 0), (ssize_t)n);
        }
        assert_int_equal(tp_tls_rx_fill(ch, rx), 1); /* record 2^64 - 2 */
        assert_int_equal(ch->in_wr - ch->in_rd, 10);
        ch->in_rd = ch->in_wr;
        int rc = tp_tls_rx_fill(ch, rx);
        assert_true(rc == 1 || rc == TP_EFAIL);
        if (rc == 1) { /* record 2^64 - 1 */
            ch->in_rd = ch->in_wr;
            rc = tp_tls_rx_fill(ch, rx);
        }
        assert_int_equal(rc, TP_EFAIL);
        assert_non_null(strstr(err_msg(), "past sequence number 2^64 - 1 under one key"));
        assert_int_equal(tp_tls_rx_keys(rx)->seq, UINT64_MAX);
        tp_tls_rx_free(rx);
        tp_tls_keys_clear(&sk);
        ts_tlsrec_channel_free(ch);
        close(sv[1]);
    }
}

/* The block counter: a record body holds at most TP_TLS_REC_BODY_MAX bytes, so a record uses
 * counters 2 .. 2 + 1152 of the 2^32 a 96-bit nonce allows (tp_tls_keys.h asserts it at
 * compile time); the largest records the layer reads and writes (TLS 1.2, 16 KiB of data)
 * seal and open through every code. */
static void test_block_counter(void **state)
{
    (void)state;
    assert_true(TP_TLS_REC_BODY_MAX / 16 + 2 < ((uint64_t)1 << 32));
    assert_int_equal(TP_TLS_REC_BODY_MAX, 18432);
    for (int g = 0; g < N_GCMS; g++) {
        tp_tls_tx *tx;
        peer *p = malloc(sizeof(*p));
        make_pair(0, 32, 0, gcms[g], &tx, p);
        int sv[2];
        pair(sv);
        write_all(tx, sv[0], sv[1], p, 3 * 16384, 9);
        assert_int_equal(p->ndata, 3 * 16384);
        assert_int_equal(p->nrec, 3);
        tp_tls_tx_free(tx);
        tp_tls_keys_clear(&p->k);
        free(p);
        close(sv[0]);
        close(sv[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_nonce_repeats),     cmocka_unit_test(test_tls13_updates_at_limit),
        cmocka_unit_test(test_tls12_stops_at_limit), cmocka_unit_test(test_reader_sequence_end),
        cmocka_unit_test(test_block_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
