/*
 * TransportPerf's message layout and the receiving side of a worker: bytes of a message,
 * sequence checking, latency samples from the stamp and the scheduled time, the raw samples
 * for the latency log, the first negative latency.
 */
#include "testsupport.h"

#include "config.h"
#include "lat.h"
#include "latbuf.h"
#include "msg.h"
#include "worker.h"

#include <stdio.h>
#include <string.h>

static void put_u64_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A stamped 76-byte message: sequence number, stamp and scheduled time in host (little-endian
 * on the machines the tools run on) order, then zeros. */
static void test_fill_stamped(void **state)
{
    (void)state;
    uint8_t got[76], want[76];
    memset(got, 0xAA, sizeof(got));
    memset(want, 0, sizeof(want));
    put_u64_le(want + 0, 0x0102030405060708ull);
    put_u64_le(want + 8, 1111111111111ull);
    put_u64_le(want + 16, 1111111000000ull);
    tperf_msg_fill(got, 76, 0x0102030405060708ull, 1111111111111ull, 1111111000000ull);
    ts_assert_bytes_equal(got, sizeof(got), want, sizeof(want));
    assert_int_equal(tperf_msg_seq(got), 0x0102030405060708ull);
    assert_int_equal(tperf_msg_stamp(got), 1111111111111ull);
    assert_int_equal(tperf_msg_sched(got, 76), 1111111000000ull);
}

/* Without a stamp the message is the original's: sequence number and zeros only. */
static void test_fill_plain(void **state)
{
    (void)state;
    uint8_t got[76], want[76];
    memset(got, 0xAA, sizeof(got));
    memset(want, 0, sizeof(want));
    want[0] = 0x4f; /* as the 80th message of a capture */
    tperf_msg_fill(got, 76, 0x4f, 0, 123456789);
    ts_assert_bytes_equal(got, sizeof(got), want, sizeof(want));
    assert_int_equal(tperf_msg_sched(got, 76), 0);
}

/* Messages too short for the scheduled time carry the original's two fields only. */
static void test_fill_short(void **state)
{
    (void)state;
    uint8_t got[23];
    memset(got, 0xAA, sizeof(got));
    tperf_msg_fill(got, 23, 7, 99, 98);
    assert_int_equal(tperf_msg_seq(got), 7);
    assert_int_equal(tperf_msg_stamp(got), 99);
    for (int i = 16; i < 23; i++)
        assert_int_equal(got[i], 0);
    assert_int_equal(tperf_msg_sched(got, 23), 0);
    uint8_t min[16];
    tperf_msg_fill(min, 16, 1, 2, 3);
    assert_int_equal(tperf_msg_seq(min), 1);
    assert_int_equal(tperf_msg_stamp(min), 2);
}

typedef struct fixture {
    tperf_config cfg;
    tperf_worker w;
    tperf_session s;
} fixture;

static int setup_worker(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof(f));
    tperf_config_defaults(&f.cfg, 4242);
    f.cfg.app_type = TPERF_CLIENT;
    strcpy(f.cfg.opts.latency_file, "lat");
    if (worker_init(&f.w, 0, &f.cfg, NULL, NULL) != 0)
        return -1;
    *state = &f;
    return 0;
}

/* A worker of a seqMCast receiver (-seqGaps as given): numbers followed per sender. */
static int setup_mcast(void **state, int gap_mode)
{
    static fixture f;
    memset(&f, 0, sizeof(f));
    tperf_config_defaults(&f.cfg, 4242);
    f.cfg.app_type = TPERF_CLIENT;
    f.cfg.opts.conn_type = TP_CONN_SEQ_MCAST;
    f.cfg.gap_mode = gap_mode;
    if (worker_init(&f.w, 1, &f.cfg, NULL, NULL) != 0)
        return -1;
    f.s.mc = true;
    *state = &f;
    return 0;
}

static int setup_mcast_fail(void **state)
{
    return setup_mcast(state, TPERF_GAPS_FAIL);
}

static int setup_mcast_count(void **state)
{
    return setup_mcast(state, TPERF_GAPS_COUNT);
}

static int teardown_worker(void **state)
{
    fixture *f = *state;
    worker_free(&f->w);
    return 0;
}

static int msg(uint8_t *buf, uint32_t size, uint64_t seq, uint64_t stamp, uint64_t sched)
{
    tperf_msg_fill(buf, size, seq, stamp, sched);
    return (int)size;
}

/* The first sequence number sets the expectation; consecutive ones pass; a gap fails the
 * connection, counted as one gap and the missing numbers as lost. */
static void test_sequence(void **state)
{
    fixture *f = *state;
    uint8_t b[76];
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 500, 0, 0), 0), 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 501, 0, 0), 0), 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 502, 0, 0), 0), 0);
    assert_int_equal(f->w.seq_gaps, 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 505, 0, 0), 0), -1);
    assert_int_equal(f->w.seq_gaps, 1);
    assert_int_equal(f->w.seq_lost, 2);
    /* A repeated number counts once, and nothing is lost. */
    tperf_session s2;
    memset(&s2, 0, sizeof(s2));
    assert_int_equal(worker_on_msg(&f->w, &s2, b, msg(b, 76, 9, 0, 0), 0), 0);
    assert_int_equal(worker_on_msg(&f->w, &s2, b, msg(b, 76, 9, 0, 0), 0), -1);
    assert_int_equal(f->w.seq_gaps, 2);
    assert_int_equal(f->w.seq_lost, 2);
    assert_false(f->w.tracked); /* a socket run without -seqGaps count: the original's check */
    /* No latency from unstamped messages. */
    assert_int_equal(latbuf_cur(&f->w.lat)[TPERF_LAT].count, 0);
}

static void test_too_short(void **state)
{
    fixture *f = *state;
    uint8_t b[16] = {0};
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 15, 0), -1);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 16, 0), 0);
}

/* seqMCast: the worker's connection settings, and each sender followed on its own; the
 * default still fails at the first wrong number, with the original's line. */
static void test_mcast_per_sender(void **state)
{
    fixture *f = *state;
    assert_int_equal(f->w.opts.conn_type, TP_CONN_SEQ_MCAST);
    assert_int_equal(f->w.opts.mc_instance_id, 1); /* thread 2 */
    assert_true(f->w.tracked);
    uint8_t b[76];
    tp_mc_from a = {0x7F000001, 30002, 0}, c = {0x7F000001, 30003, 0};
    f->s.from = a;
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 0, 0, 0), 0), 0);
    assert_int_equal(f->w.first_seq, 0);
    f->s.from = c; /* another sender starts at its own numbers */
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 700, 0, 0), 0), 0);
    f->s.from = a;
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 1, 0, 0), 0), 0);
    f->s.from = c;
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 701, 0, 0), 0), 0);
    f->s.from = a;
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 5, 0, 0), 0), -1);
    assert_int_equal(f->w.trk.total.gaps, 1);
    assert_int_equal(f->w.trk.total.lost, 3);
}

/* -seqGaps count: gaps, lost, duplicate and late numbers are counted and the run goes on; a
 * duplicate gives no latency sample; published to the main thread's counters. */
static void test_mcast_count(void **state)
{
    fixture *f = *state;
    uint8_t b[76];
    f->s.from = (tp_mc_from){0x7F000001, 30002, 0};
    const int64_t now = 5000000000;
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 10, 0, 0), 0), 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 14, 0, 0), 0), 0); /* gap */
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 12, 0, 0), 0), 0); /* late */
    msg(b, 76, 12, (uint64_t)(now - 1000), 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 76, now), 0); /* duplicate */
    assert_int_equal(latbuf_cur(&f->w.lat)[TPERF_LAT].count, 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 10, 0), 0); /* too short: counted */
    tperf_track_publish(&f->w, NULL);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_GAPS]), 1);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_LOST]), 2);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_DUPS]), 1);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_OOO]), 1);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_SHORT]), 1);
    /* 13 arrives late too: lost goes down, and its counter with it (modulo 2^64) */
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, msg(b, 76, 13, 0, 0), 0), 0);
    tperf_track_publish(&f->w, NULL);
    assert_int_equal(counter_total(&f->w.sq[TPERF_SQ_LOST]), 1);
    assert_int_equal(f->w.trk.total.received, 4);
}

/* A stamped message gives one sample from the stamp and one from the scheduled time, and a
 * raw sample for the latency log. */
static void test_latency(void **state)
{
    fixture *f = *state;
    uint8_t b[76];
    const int64_t now = 5000000000;
    msg(b, 76, 0, (uint64_t)(now - 40000), (uint64_t)(now - 90000));
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 76, now), 0);
    lat *rec = latbuf_cur(&f->w.lat);
    assert_int_equal(rec[TPERF_LAT].count, 1);
    assert_int_equal(rec[TPERF_LAT].min, 40000);
    assert_int_equal(rec[TPERF_LAT_SCHED].count, 1);
    assert_int_equal(rec[TPERF_LAT_SCHED].min, 90000);

    /* The original's message: no scheduled time. */
    msg(b, 76, 1, (uint64_t)(now - 10000), 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 76, now), 0);
    assert_int_equal(rec[TPERF_LAT].count, 2);
    assert_int_equal(rec[TPERF_LAT_SCHED].count, 1);

    latring_sample out[4];
    assert_int_equal(latring_pop(&f->w.ring, out, 4), 2);
    assert_int_equal(out[0].send, now - 40000);
    assert_int_equal(out[0].recv, now);
    assert_int_equal(out[1].send, now - 10000);
    assert_int_equal(atomic_load(&f->w.neg_send), 0);
}

/* A stamp later than the receive time (two hosts' clocks) is kept, and the first one is
 * remembered for the warning. */
static void test_negative(void **state)
{
    fixture *f = *state;
    uint8_t b[76];
    msg(b, 76, 0, 2000, 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 76, 1500), 0);
    msg(b, 76, 1, 9000, 0);
    assert_int_equal(worker_on_msg(&f->w, &f->s, b, 76, 1000), 0);
    assert_int_equal(atomic_load(&f->w.neg_send), 2000);
    assert_int_equal(atomic_load(&f->w.neg_recv), 1500);
    lat *rec = latbuf_cur(&f->w.lat);
    assert_int_equal(rec[TPERF_LAT].negative, 2);
    assert_int_equal(rec[TPERF_LAT].min, -8000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_stamped),
        cmocka_unit_test(test_fill_plain),
        cmocka_unit_test(test_fill_short),
        cmocka_unit_test_setup_teardown(test_sequence, setup_worker, teardown_worker),
        cmocka_unit_test_setup_teardown(test_too_short, setup_worker, teardown_worker),
        cmocka_unit_test_setup_teardown(test_latency, setup_worker, teardown_worker),
        cmocka_unit_test_setup_teardown(test_negative, setup_worker, teardown_worker),
        cmocka_unit_test_setup_teardown(test_mcast_per_sender, setup_mcast_fail, teardown_worker),
        cmocka_unit_test_setup_teardown(test_mcast_count, setup_mcast_count, teardown_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
