/*
 * Replays the original TransportPerf's seqMCast captures (tests/data/captures/seqmcast) through
 * the datagram reader and the sequence tracker: every datagram parses, the header bytes are
 * what our encoder writes for the same fields, the messages and their TransportPerf numbers
 * are all there and in order, and the tracker sees no gap; the pings carry the sender's last
 * number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsupport.h"
#include "tp_mcast.h"

typedef struct replay {
    tp_seqtrack dgrams; /* datagram numbers per sender */
    tp_seqtrack msgs;   /* TransportPerf message numbers per sender */
    int data, pings, msg_count, bad;
    uint32_t data_len; /* length of every data datagram (0 = not all the same) */
    uint16_t src_port; /* source port of the data datagrams */
    uint64_t ping_seq[8];
    uint16_t ping_port[8];
} replay;

static void on_dgram(const ts_udp_dgram *d, void *arg)
{
    replay *r = arg;
    tp_mc_hdr h;
    int rc = tp_mc_parse(d->data, d->len, 88, &h, NULL);
    if (rc < 0) {
        r->bad++;
        return;
    }
    uint8_t again[TP_MC_HDR_LEN];
    tp_mc_hdr_encode(&h, again);
    ts_assert_bytes_equal(again, sizeof(again), d->data, TP_MC_HDR_LEN);
    assert_int_equal(h.instance_id, 0);
    assert_int_equal(h.flags, 0);
    tp_mc_from from = {d->src, d->sport, h.instance_id};
    if (rc == 0) {
        if (r->pings < 8) {
            r->ping_seq[r->pings] = h.seq;
            r->ping_port[r->pings] = d->sport;
        }
        r->pings++;
        return;
    }
    assert_int_equal(tp_seqtrack_data(&r->dgrams, &from, h.seq, NULL),
                     r->data ? TP_SEQ_NEXT : TP_SEQ_FIRST);
    if (r->data == 0)
        r->data_len = (uint32_t)d->len;
    else if (r->data_len != d->len)
        r->data_len = 0;
    r->src_port = d->sport;
    r->data++;
    uint32_t off = h.hdr_len, len;
    const uint8_t *m;
    while (tp_mc_next(d->data, (uint32_t)d->len, &off, &m, &len)) {
        assert_int_equal(len, 76);
        uint64_t seq;
        memcpy(&seq, m, 8);
        assert_int_equal(seq, (uint64_t)r->msg_count);
        tp_seqtrack_data(&r->msgs, &from, seq, NULL);
        r->msg_count++;
    }
}

static void run(const char *name, replay *r)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "seqmcast/%s", name);
    const char *path = ts_capture(rel);
    memset(r, 0, sizeof(*r));
    assert_int_equal(tp_seqtrack_init(&r->dgrams, 0, true), 0);
    assert_int_equal(tp_seqtrack_init(&r->msgs, 0, false), 0);
    assert_true(ts_pcap_udp(path, on_dgram, r) > 0);
    assert_int_equal(r->bad, 0);
    assert_int_equal(r->dgrams.total.gaps, 0);
    assert_int_equal(r->msgs.total.gaps, 0);
    assert_int_equal(r->msgs.total.duplicates, 0);
}

static void done(replay *r)
{
    tp_seqtrack_free(&r->dgrams);
    tp_seqtrack_free(&r->msgs);
}

static void test_unpacked(void **state)
{
    (void)state;
    replay r;
    run("seqmcast.pcap", &r);
    assert_int_equal(r.data, 510);
    assert_int_equal(r.msg_count, 510);
    assert_int_equal(r.data_len, 90);
    assert_int_equal(r.src_port, 30002); /* the sender's own receive port */
    assert_int_equal(r.dgrams.total.received, 510);
    done(&r);
}

static void test_packed(void **state)
{
    (void)state;
    replay r;
    run("seqmcast_pack.pcap", &r);
    assert_int_equal(r.data, 102);
    assert_int_equal(r.msg_count, 510);
    assert_int_equal(r.data_len, 402);
    done(&r);
}

static void test_pings(void **state)
{
    (void)state;
    replay r;
    run("seqmcast_ping.pcap", &r);
    assert_int_equal(r.data, 0);
    assert_int_equal(r.pings, 5);
    /* the idle receiver (port 30001) pings with 0, the sender with its last number */
    assert_int_equal(r.ping_port[0], 30001);
    assert_int_equal(r.ping_seq[0], 0);
    assert_int_equal(r.ping_port[1], 30002);
    assert_int_equal(r.ping_seq[1], 200);
    assert_int_equal(r.ping_seq[3], 410);
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unpacked),
        cmocka_unit_test(test_packed),
        cmocka_unit_test(test_pings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
