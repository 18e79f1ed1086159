/*
 * TransportPerf's message layout and the receiving side of a worker: bytes of a message,
 * sequence checking, latency samples from the stamp and the scheduled time, the raw samples
 * for the latency log, the first negative latency. The sending side's high-water mark: which
 * sessions send at RUN_BURST_HWM, and a tick's burst leaving in one send(); a packed burst's
 * messages byte for byte, the picked one stamped.
 */
#include "testsupport.h"

#include "clk.h"
#include "config.h"
#include "lat.h"
#include "latbuf.h"
#include "msg.h"
#include "worker_int.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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

/* seqMCast: the worker's connection (its link, and the settings the driver makes from it and
 * the options), and each sender followed on its own; the
 * default still fails at the first wrong number, with the original's line. */
static void test_mcast_per_sender(void **state)
{
    fixture *f = *state;
    assert_int_equal(f->w.link.side, RUN_CLIENT);
    assert_int_equal(f->w.link.protocol_type, TP_PROTOCOL_TRANSPORTPERF);
    tp_opts t;
    run_conn_tp(&f->cfg.opts, &f->w.link, &t);
    assert_int_equal(t.conn_type, TP_CONN_SEQ_MCAST);
    assert_int_equal(t.mc_instance_id, 1); /* thread 2 */
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

/* Packed entries at p: n messages of 76 bytes numbered from first, the one numbered
 * `stamped` time-stamped stamp (a number not among them: none). Returns the frame. */
static tp_frame packed_of(uint8_t *p, uint64_t first, uint32_t n, uint64_t stamped, uint64_t stamp)
{
    tp_frame fr = {.data = p, .len = n * 78, .packed = n};
    for (uint32_t i = 0; i < n; i++, p += 78) {
        p[0] = 0;
        p[1] = 76;
        tperf_msg_fill(p + 2, 76, first + i, first + i == stamped ? stamp : 0, 0);
    }
    return fr;
}

/* worker_on_frames: a packed frame's messages walked in place (the first frame through the
 * per-message check, which sets the expectation), plain and packed frames mixed, a stamped
 * message among them recorded; a gap inside a packed frame closes the channel and marks the
 * test failed, the counts taking the messages up to the wrong one. */
static void test_frames(void **state)
{
    fixture *f = *state;
    f->w.drv.cfg.fail = &f->w.fail;
    run_drv_ch c = {.user = &f->s};
    static uint8_t area[4096];
    tp_frame fr[3];
    fr[0] = packed_of(area, 0, 10, 99, 0);
    assert_int_equal(worker_on_frames(&f->w, &c, fr, 1), 0);
    assert_int_equal(f->s.recv_seq, 10);
    assert_int_equal(f->s.batch_n, 10);
    assert_int_equal(f->s.batch_bytes, 760);

    uint8_t *one = area + 1000;
    tperf_msg_fill(one, 76, 10, 0, 0);
    fr[0] = (tp_frame){.data = one, .len = 76, .packed = 0};
    fr[1] = packed_of(area, 11, 10, 15, (uint64_t)clk_ns() - 1000);
    assert_int_equal(worker_on_frames(&f->w, &c, fr, 2), 0);
    assert_int_equal(f->s.recv_seq, 21);
    assert_int_equal(f->s.batch_n, 21);
    assert_int_equal(f->s.batch_bytes, 21 * 76);
    assert_int_equal(latbuf_cur(&f->w.lat)[TPERF_LAT].count, 1);
    assert_int_equal(f->w.seq_gaps, 0);

    fr[0] = packed_of(area, 21, 2, 99, 0);
    fr[1] = packed_of(area + 2000, 24, 3, 99, 0); /* 23 missing */
    assert_int_equal(worker_on_frames(&f->w, &c, fr, 2), RUN_DRV_CLOSE);
    assert_int_equal(f->w.seq_gaps, 1);
    assert_int_equal(f->w.seq_lost, 1);
    assert_int_equal(f->s.batch_n, 24);
    assert_int_equal(f->s.batch_bytes, 24 * 76);
    assert_int_equal(run_fail_status(&f->w.fail), RUN_EXIT_FAILED);
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

/* RUN_BURST_HWM goes to a sending side's plain socket when -highWaterMark is not given; a
 * given mark, a reflecting or receiving side and every other kind of channel keep theirs. */
static void test_burst_hwm_choice(void **state)
{
    (void)state;
    tperf_config cfg;
    tperf_config_defaults(&cfg, 4242);
    tp_info in;
    memset(&in, 0, sizeof(in));
    in.conn_type = TP_CONN_SOCKET;
    assert_true(tperf_burst_hwm(&cfg, &in)); /* the server's defaults: 100,000 msgs/s */
    cfg.app_type = TPERF_CLIENT;
    assert_true(tperf_burst_hwm(&cfg, &in)); /* a client that sends */
    const tp_conn_type others[] = {TP_CONN_ENCRYPTED, TP_CONN_SHMEM, TP_CONN_SEQ_MCAST,
                                   TP_CONN_WEBSOCKET};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        in.conn_type = others[i];
        assert_false(tperf_burst_hwm(&cfg, &in));
    }
    in.conn_type = TP_CONN_SOCKET;
    cfg.opts.high_water_mark = 6000; /* -highWaterMark 6000: kept, even when it is the default */
    assert_false(tperf_burst_hwm(&cfg, &in));
    cfg.opts.high_water_mark = 0;
    cfg.msg_rate = 0; /* a client that only receives */
    assert_false(tperf_burst_hwm(&cfg, &in));
    cfg.msg_rate = 100000;
    cfg.reflect_msgs = true;
    assert_false(tperf_burst_hwm(&cfg, &in));
}

/* Both ends of a socketpair as RIPC channels, the handshake done. */
static void chan_pair(tp_channel **srv, tp_channel **cli)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    assert_int_equal(tp_adopt(sv[0], true, &o, srv), 0);
    assert_int_equal(tp_adopt(sv[1], false, &o, cli), 0);
    int a = TP_PENDING, b = TP_PENDING;
    for (int i = 0; i < 5000 && (a != TP_ACTIVE || b != TP_ACTIVE); i++) {
        struct pollfd p[2] = {{.fd = tp_fd(*srv), .events = (short)tp_events(*srv)},
                              {.fd = tp_fd(*cli), .events = (short)tp_events(*cli)}};
        if (a != TP_ACTIVE)
            assert_true((a = tp_init(*srv)) >= 0);
        if (b != TP_ACTIVE)
            assert_true((b = tp_init(*cli)) >= 0);
        poll(p, 2, 1);
    }
    assert_int_equal(a, TP_ACTIVE);
    assert_int_equal(b, TP_ACTIVE);
}

/* One tick's burst of 200 76-byte messages (15,800 bytes: two of the transport's 6,000-byte
 * marks) on a session with burst_hwm leaves in one send(), nothing left queued; the reader
 * gets the 200 messages, numbered from 0. Without burst_hwm the same burst is sent at every
 * 6,000 bytes and the rest waits in the queue for the loop to flush it. */
static void test_burst_one_send(void **state)
{
    (void)state;
    for (int hwm = 1; hwm >= 0; hwm--) {
        static fixture f;
        memset(&f, 0, sizeof(f));
        tperf_config_defaults(&f.cfg, 4242);
        f.cfg.msg_rate = 200000;
        assert_int_equal(worker_init(&f.w, 0, &f.cfg, NULL, NULL), 0);
        tp_channel *srv, *cli;
        chan_pair(&srv, &cli);
        f.s.ch = srv;
        f.s.active = true;
        f.s.burst_hwm = hwm;
        if (hwm)
            tp_set_high_water_mark(srv, RUN_BURST_HWM);
        tick t;
        assert_int_equal(tick_init(&t, 1000, clk_ns()), 0);
        assert_int_equal(tick_burst(&t, 200000), 200);

        tp_stats st0, st;
        tp_get_stats(srv, &st0);
        assert_int_equal(worker_send_burst(&f.w, &f.s, &t), 0);
        tp_get_stats(srv, &st);
        assert_int_equal(counter_total(&f.w.msgs_sent), 200);
        assert_int_equal(st.msgs_written - st0.msgs_written, 200);
        if (hwm) {
            assert_int_equal(st.send_calls - st0.send_calls, 1);
            assert_int_equal(tp_queued(srv), 0);
        } else {
            assert_int_equal(st.send_calls - st0.send_calls, 2); /* at 6,000 and 12,000 bytes */
            assert_int_equal(tp_queued(srv), 15800 - 2 * 6004);
            assert_true(tp_flush(srv) == 0);
        }

        uint64_t next = 0;
        for (int i = 0; i < 1000 && next < 200; i++) {
            tp_msg m;
            int rc = tp_read(cli, &m);
            assert_true(rc >= 0);
            if (rc & TP_READ_MSG) {
                assert_int_equal(m.len, 76);
                assert_int_equal(tperf_msg_seq(m.data), next);
                next++;
            } else if (!(rc & TP_READ_MORE)) {
                struct pollfd p = {.fd = tp_fd(cli), .events = POLLIN};
                poll(&p, 1, 10);
            }
        }
        assert_int_equal(next, 200);
        tp_close(cli);
        tp_close(srv);
        worker_free(&f.w);
    }
}

/* A packed burst of 120 76-byte messages (-pack 50: buffers of 50, 50 and 20) reads back as
 * the messages of tperf_msg_fill() numbered from 0: without a stamp, byte for byte; the one
 * the latency array picks (in the first buffer, in the last, none, or every one with "all")
 * with a stamp and the tick's deadline as its scheduled time, then zeros. */
static void test_burst_packed(void **state)
{
    (void)state;
    static int64_t slots[1000];
    const int64_t picks[] = {37, 110, LRA_NONE, LRA_ALL};
    for (size_t c = 0; c < sizeof(picks) / sizeof(picks[0]); c++) {
        static fixture f;
        memset(&f, 0, sizeof(f));
        tperf_config_defaults(&f.cfg, 4242);
        f.cfg.msg_rate = 120000;
        f.cfg.pack = 50;
        lra a = {.slots = slots, .ticks = 1000, .sets = 1, .len = 1000};
        if (picks[c] == LRA_ALL)
            lra_init_all(&a);
        for (int i = 0; i < 1000; i++)
            slots[i] = picks[c];
        assert_int_equal(worker_init(&f.w, 0, &f.cfg, &a, NULL), 0);
        tp_channel *srv, *cli;
        chan_pair(&srv, &cli);
        f.s.ch = srv;
        f.s.active = true;
        f.s.burst_hwm = 1;
        tp_set_high_water_mark(srv, RUN_BURST_HWM);
        tick t;
        assert_int_equal(tick_init(&t, 1000, clk_ns()), 0);
        assert_true(tick_poll(&t, clk_ns()));
        assert_int_equal(tick_burst(&t, 120000), 120);
        tp_buf *junk; /* the output area the burst is written into holds no zeros */
        assert_int_equal(tp_get_buffer(srv, 6000, false, &junk), 0);
        memset(junk->data, 0xAA, 6000);
        tp_release(srv, junk);
        assert_int_equal(worker_send_burst(&f.w, &f.s, &t), 0);
        assert_int_equal(counter_total(&f.w.msgs_sent), 120);
        assert_int_equal(tp_queued(srv), 0);

        uint64_t next = 0, stamped = 0;
        for (int i = 0; i < 1000 && next < 120; i++) {
            tp_msg m;
            int rc = tp_read(cli, &m);
            assert_true(rc >= 0);
            if (rc & TP_READ_MSG) {
                assert_int_equal(m.len, 76);
                uint8_t want[76];
                bool stamp = picks[c] == LRA_ALL || (uint64_t)picks[c] == next;
                if (stamp) {
                    assert_true(tperf_msg_stamp(m.data) != 0);
                    tperf_msg_fill(want, 76, next, tperf_msg_stamp(m.data),
                                   (uint64_t)tick_deadline(&t));
                    stamped++;
                } else {
                    tperf_msg_fill(want, 76, next, 0, 0);
                }
                ts_assert_bytes_equal(m.data, m.len, want, sizeof(want));
                next++;
            } else if (!(rc & TP_READ_MORE)) {
                struct pollfd p = {.fd = tp_fd(cli), .events = POLLIN};
                poll(&p, 1, 10);
            }
        }
        assert_int_equal(next, 120);
        assert_int_equal(stamped, picks[c] == LRA_ALL ? 120 : picks[c] >= 0 ? 1 : 0);
        tp_close(cli);
        tp_close(srv);
        worker_free(&f.w);
    }
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
        cmocka_unit_test_setup_teardown(test_frames, setup_worker, teardown_worker),
        cmocka_unit_test_setup_teardown(test_mcast_per_sender, setup_mcast_fail, teardown_worker),
        cmocka_unit_test_setup_teardown(test_mcast_count, setup_mcast_count, teardown_worker),
        cmocka_unit_test(test_burst_hwm_choice),
        cmocka_unit_test(test_burst_one_send),
        cmocka_unit_test(test_burst_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
