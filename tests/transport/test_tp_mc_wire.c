/*
 * The seqMCast datagram codec and the per-sender sequence tracker, as pure functions: header
 * bytes as the original writes them (docs/wire.md#seqmcast-datagrams), every kind of malformed
 * datagram with the offset of its fault, every prefix of a packed datagram read without going past
 * its end, and the tracker's verdicts and counts (gaps, lost, duplicates, late, old, restarts,
 * 32-bit wrap that skips 0, pings showing a lost tail, a table full of forged senders).
 */
#include <stdlib.h>
#include <string.h>

#include "testsupport.h"
#include "tp_mcast.h"

static const tp_mc_from A = {0x7F000001, 30002, 0};
static const tp_mc_from B = {0x7F000001, 30003, 0};

/* A datagram of protocol 88, sequence seq, with n messages of len bytes (byte value i+1). */
static size_t build(uint8_t *out, uint32_t seq, int n, uint32_t len)
{
    tp_mc_hdr h = {TP_MC_VERSION, 0, 88, TP_MC_HDR_LEN, 0, 0, 0, seq};
    tp_mc_hdr_encode(&h, out);
    size_t off = TP_MC_HDR_LEN;
    for (int i = 0; i < n; i++) {
        out[off] = (uint8_t)(len >> 8);
        out[off + 1] = (uint8_t)len;
        memset(out + off + 2, i + 1, len);
        off += 2 + len;
    }
    return off;
}

static void test_header_bytes(void **state)
{
    (void)state;
    /* the first datagram of the capture seqmcast.pcap: TransportPerf, instance 0, RWF 0.0 */
    uint8_t got[TP_MC_HDR_LEN];
    tp_mc_hdr h = {1, 0, 88, 12, 0, 0, 0, 1};
    tp_mc_hdr_encode(&h, got);
    uint8_t want[TP_MC_HDR_LEN];
    ts_hex("01 00 58 0c 0000 00 00 00000001", want, sizeof(want));
    ts_assert_bytes_equal(got, sizeof(got), want, sizeof(want));
    tp_mc_hdr r = {2, 0x02, 0, 12, 0xBEEF, 14, 1, 0xFFFFFFFFu};
    tp_mc_hdr_encode(&r, got);
    ts_hex("02 02 00 0c beef 0e 01 ffffffff", want, sizeof(want));
    ts_assert_bytes_equal(got, sizeof(got), want, sizeof(want));
}

static void test_parse_data_and_ping(void **state)
{
    (void)state;
    uint8_t d[600];
    tp_mc_hdr h;
    size_t n = build(d, 7, 1, 76);
    assert_int_equal(n, 90); /* 12 + 2 + 76, as captured */
    assert_int_equal(tp_mc_parse(d, n, 88, &h, NULL), 1);
    assert_int_equal(h.seq, 7);
    assert_int_equal(h.protocol_type, 88);
    uint32_t off = h.hdr_len, len;
    const uint8_t *m;
    assert_int_equal(tp_mc_next(d, (uint32_t)n, &off, &m, &len), 1);
    assert_int_equal(len, 76);
    assert_ptr_equal(m, d + 14);
    assert_int_equal(tp_mc_next(d, (uint32_t)n, &off, &m, &len), 0);

    n = build(d, 8, 5, 76);
    assert_int_equal(n, 402); /* -pack 5: 12 + 5 x 78, as captured */
    assert_int_equal(tp_mc_parse(d, n, 88, &h, NULL), 1);
    off = h.hdr_len;
    int k = 0;
    while (tp_mc_next(d, (uint32_t)n, &off, &m, &len)) {
        assert_int_equal(len, 76);
        assert_int_equal(m[0], k + 1);
        k++;
    }
    assert_int_equal(k, 5);

    n = build(d, 510, 0, 0); /* the header alone: a ping with the last number */
    assert_int_equal(n, 12);
    assert_int_equal(tp_mc_parse(d, n, 88, &h, NULL), 0);
    assert_int_equal(h.seq, 510);
}

static void expect_bad(const uint8_t *d, size_t n, tp_mc_bad kind, uint32_t at)
{
    uint8_t *copy = malloc(n ? n : 1); /* exact size: a read past the end is caught by ASan */
    memcpy(copy, d, n);
    tp_mc_hdr h;
    uint32_t off = 12345;
    assert_int_equal(tp_mc_parse(copy, n, 88, &h, &off), -1 - (int)kind);
    assert_int_equal(off, at);
    free(copy);
}

static void test_malformed(void **state)
{
    (void)state;
    uint8_t d[600];
    size_t n = build(d, 1, 2, 10);
    expect_bad(d, 11, TP_MC_BAD_SHORT, 0);
    expect_bad(d, 0, TP_MC_BAD_SHORT, 0);
    d[0] = 2;
    expect_bad(d, n, TP_MC_BAD_VERSION, 0);
    d[0] = 1;
    d[2] = 0; /* RWF datagram on a TransportPerf channel */
    expect_bad(d, n, TP_MC_BAD_PROTOCOL, 2);
    d[2] = 88;
    d[3] = 11;
    expect_bad(d, n, TP_MC_BAD_HDR_LEN, 3);
    d[3] = 200;
    expect_bad(d, n, TP_MC_BAD_HDR_LEN, 3);
    d[3] = 12;
    /* the second entry's length says 300 bytes: past the end */
    d[12 + 12] = 0x01;
    d[12 + 13] = 0x2C;
    expect_bad(d, n, TP_MC_BAD_LEN_BEYOND, 24);
    n = build(d, 1, 2, 10);
    /* one stray byte after the last entry: a length prefix cut short */
    d[n] = 0;
    expect_bad(d, n + 1, TP_MC_BAD_TRUNC_LEN, (uint32_t)n);
    /* the first entry's length runs one byte past */
    expect_bad(d, n - 1, TP_MC_BAD_LEN_BEYOND, 24);
    assert_string_equal(tp_mc_bad_name(TP_MC_BAD_VERSION), "unknown header version");
    assert_string_equal(tp_mc_bad_name((tp_mc_bad)99), "unknown fault");
}

static void test_every_prefix(void **state)
{
    (void)state;
    uint8_t d[600];
    size_t n = build(d, 3, 5, 76);
    int ok = 0, ping = 0, bad = 0;
    for (size_t len = 0; len <= n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, d, len);
        tp_mc_hdr h;
        int r = tp_mc_parse(copy, len, 88, &h, NULL);
        if (r == 1) {
            ok++;
            uint32_t off = h.hdr_len, l;
            const uint8_t *m;
            while (tp_mc_next(copy, (uint32_t)len, &off, &m, &l))
                assert_true(m + l <= copy + len);
        } else if (r == 0) {
            ping++;
        } else {
            bad++;
        }
        free(copy);
    }
    /* only the whole datagram and the ones ending right after an entry are complete */
    assert_int_equal(ok, 5);
    assert_int_equal(ping, 1);
    assert_int_equal(bad, (int)n + 1 - 6);
}

static void test_track_basic(void **state)
{
    (void)state;
    tp_seqtrack t;
    assert_int_equal(tp_seqtrack_init(&t, 0, true), 0);
    uint64_t miss;
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &A, 2, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_data(&t, &A, 6, &miss), TP_SEQ_GAP);
    assert_int_equal(miss, 3);
    assert_int_equal(t.expected, 3);
    assert_int_equal(tp_seqtrack_data(&t, &A, 4, &miss), TP_SEQ_LATE);
    assert_int_equal(t.expected, 7);
    assert_int_equal(tp_seqtrack_data(&t, &A, 4, &miss), TP_SEQ_DUP);
    assert_int_equal(tp_seqtrack_data(&t, &A, 6, &miss), TP_SEQ_DUP);
    assert_int_equal(tp_seqtrack_data(&t, &A, 7, &miss), TP_SEQ_NEXT);
    /* another sender is followed on its own */
    assert_int_equal(tp_seqtrack_data(&t, &B, 100, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &B, 101, &miss), TP_SEQ_NEXT);
    const tp_seq_sender *a = tp_seqtrack_find(&t, &A);
    assert_non_null(a);
    assert_int_equal(a->c.received, 5);
    assert_int_equal(a->c.gaps, 1);
    assert_int_equal(a->c.lost, 2); /* 3 and 5 */
    assert_int_equal(a->c.late, 1);
    assert_int_equal(a->c.duplicates, 2);
    assert_int_equal(a->first, 1);
    assert_int_equal(a->last, 7);
    assert_int_equal(t.total.received, 7);
    assert_int_equal(t.n, 2);
    /* far behind the window: cannot tell; then the sender starts again from 1 */
    for (uint64_t s = 8; s < 200; s++)
        assert_int_equal(tp_seqtrack_data(&t, &A, s, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_data(&t, &A, 50, &miss), TP_SEQ_OLD);
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_RESET);
    assert_int_equal(tp_seqtrack_data(&t, &A, 2, &miss), TP_SEQ_NEXT);
    assert_int_equal(t.total.old, 1);
    assert_int_equal(t.total.resets, 1);
    tp_seqtrack_free(&t);
}

static void test_track_wrap_and_64(void **state)
{
    (void)state;
    tp_seqtrack t;
    assert_int_equal(tp_seqtrack_init(&t, 4, true), 0);
    uint64_t miss;
    assert_int_equal(tp_seqtrack_data(&t, &A, 0xFFFFFFFEu, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &A, 0xFFFFFFFFu, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_NEXT); /* 0 is skipped */
    assert_int_equal(t.expected, 1);
    assert_int_equal(tp_seqtrack_data(&t, &A, 3, &miss), TP_SEQ_GAP);
    assert_int_equal(miss, 1);
    assert_int_equal(tp_seqtrack_data(&t, &A, 0xFFFFFFFFu, &miss), TP_SEQ_DUP);
    assert_int_equal(tp_seqtrack_data(&t, &A, 0, &miss), TP_SEQ_RESET); /* 0 in a data header */
    tp_seqtrack_free(&t);

    /* 64-bit numbers from 0 (TransportPerf's messages) */
    assert_int_equal(tp_seqtrack_init(&t, 4, false), 0);
    assert_int_equal(tp_seqtrack_data(&t, &A, 0, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_data(&t, &A, 1000000, &miss), TP_SEQ_GAP);
    assert_int_equal(miss, 999998);
    assert_int_equal(tp_seqtrack_data(&t, &A, 999999, &miss), TP_SEQ_LATE);
    assert_int_equal(t.total.lost, 999997);
    assert_int_equal(tp_seqtrack_data(&t, &A, 0, &miss), TP_SEQ_RESET);
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_NEXT);
    tp_seqtrack_free(&t);
}

static void test_track_pings(void **state)
{
    (void)state;
    tp_seqtrack t;
    assert_int_equal(tp_seqtrack_init(&t, 0, true), 0);
    uint64_t miss;
    /* a sender that sent nothing yet pings with 0: its first datagram is then known */
    assert_int_equal(tp_seqtrack_ping(&t, &A, 0, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &A, 3, &miss), TP_SEQ_GAP);
    assert_int_equal(miss, 2);
    assert_int_equal(tp_seqtrack_ping(&t, &A, 3, &miss), TP_SEQ_NEXT);
    /* the tail of a burst was lost: the ping tells */
    assert_int_equal(tp_seqtrack_ping(&t, &A, 6, &miss), TP_SEQ_GAP);
    assert_int_equal(miss, 3);
    assert_int_equal(t.total.lost, 5);
    /* one of them arrives after all */
    assert_int_equal(tp_seqtrack_data(&t, &A, 5, &miss), TP_SEQ_LATE);
    assert_int_equal(t.total.lost, 4);
    assert_int_equal(tp_seqtrack_data(&t, &A, 7, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_ping(&t, &A, 2, &miss), TP_SEQ_OLD);
    /* a receiver that joins late starts from what the first ping says */
    assert_int_equal(tp_seqtrack_ping(&t, &B, 200, &miss), TP_SEQ_FIRST);
    assert_int_equal(tp_seqtrack_data(&t, &B, 201, &miss), TP_SEQ_NEXT);
    assert_int_equal(tp_seqtrack_find(&t, &B)->c.lost, 0);
    assert_int_equal(tp_seqtrack_find(&t, &B)->first, 201);
    tp_seqtrack_free(&t);
}

static void count_sender(const tp_seq_sender *s, void *arg)
{
    (void)s;
    ++*(int *)arg;
}

static void test_track_forged_flood(void **state)
{
    (void)state;
    tp_seqtrack t;
    assert_int_equal(tp_seqtrack_init(&t, 8, true), 0);
    uint64_t miss;
    assert_int_equal(tp_seqtrack_data(&t, &A, 1, &miss), TP_SEQ_FIRST);
    /* 60000 datagrams, each from another forged instance id of the same address */
    for (uint32_t i = 0; i < 60000; i++) {
        tp_mc_from f = {0x0A000001, 9999, (uint16_t)(i + 1)};
        tp_seqtrack_data(&t, &f, i + 1, &miss);
    }
    assert_int_equal(t.n, 8);
    assert_int_equal(t.untracked, 60000 - 7);
    /* the real sender is still followed */
    assert_int_equal(tp_seqtrack_data(&t, &A, 2, &miss), TP_SEQ_NEXT);
    /* one forging the real sender's identity shows up as gaps and duplicates */
    assert_int_equal(tp_seqtrack_data(&t, &A, 5000, &miss), TP_SEQ_GAP);
    assert_int_equal(tp_seqtrack_data(&t, &A, 3, &miss), TP_SEQ_OLD);
    int seen = 0;
    tp_seqtrack_each(&t, count_sender, &seen);
    assert_int_equal(seen, 8);
    tp_seqtrack_reset(&t);
    assert_int_equal(t.n, 0);
    assert_null(tp_seqtrack_find(&t, &A));
    tp_seqtrack_free(&t);
}

static void test_from_str(void **state)
{
    (void)state;
    char buf[48];
    tp_mc_from f = {0xEF010203, 30001, 7};
    assert_string_equal(tp_mc_from_str(&f, buf, sizeof(buf)), "239.1.2.3:30001/7");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_bytes), cmocka_unit_test(test_parse_data_and_ping),
        cmocka_unit_test(test_malformed),    cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_track_basic),  cmocka_unit_test(test_track_wrap_and_64),
        cmocka_unit_test(test_track_pings),  cmocka_unit_test(test_track_forged_flood),
        cmocka_unit_test(test_from_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
