/* tp_run_get() / tp_run_write(): a run writes the bytes that single tp_get_buffer() /
 * tp_write() pairs write, and flushes where they flush (the high-water mark, one more mark
 * after the socket was found full, every message on an empty queue with TP_WRITE_DIRECT), so
 * that the send() calls and what is left queued are the same after every run; a run given
 * back writes nothing; a buffer written while a run is open follows the run; the channels
 * and sizes that take no runs say so. tp_pack_run() packs as tp_pack() does. */
#include "tp_rawpeer.h"

/* Message number i of a series: size bytes, from its number. */
static void body(uint8_t *p, uint32_t size, uint32_t i)
{
    tu_pattern(p, size, i);
}

typedef struct side {
    peer p;
    uint32_t next; /* number of the next message */
} side;

static void same_state(side *a, side *b)
{
    tp_stats sa, sb;
    tp_get_stats(a->p.ch, &sa);
    tp_get_stats(b->p.ch, &sb);
    assert_int_equal(sa.send_calls, sb.send_calls);
    assert_int_equal(sa.bytes_sent, sb.bytes_sent);
    assert_int_equal(sa.bytes_written, sb.bytes_written);
    assert_int_equal(sa.msgs_written, sb.msgs_written);
    assert_int_equal(tp_queued(a->p.ch), tp_queued(b->p.ch));
}

/* k single writes on a; returns what the last tp_write() returned. */
static int singles(side *a, uint32_t size, uint32_t k, unsigned flags)
{
    int rc = 0;
    for (uint32_t i = 0; i < k; i++) {
        tp_buf *bf;
        assert_int_equal(tp_get_buffer(a->p.ch, size, false, &bf), 0);
        body(bf->data, size, a->next++);
        bf->len = size;
        rc = tp_write(a->p.ch, bf, flags);
        assert_true(rc >= 0);
    }
    return rc;
}

/* Up to want messages on b as runs; returns how many were written, *last what the last
 * tp_run_write() returned. */
static uint32_t runs(side *b, uint32_t size, uint32_t want, unsigned flags, uint32_t *rng,
                     int *last)
{
    uint32_t done_n = 0;
    while (done_n < want) {
        tp_run r;
        assert_int_equal(tp_run_get(b->p.ch, size, want - done_n, flags, &r), 0);
        assert_true(r.n >= 1 && r.n <= want - done_n);
        assert_int_equal(r.size, size);
        /* sometimes fewer than offered */
        *rng = *rng * 1103515245u + 12345u;
        uint32_t k = (*rng >> 16) % 4 == 0 ? 1 + (*rng >> 8) % r.n : r.n;
        memset(r.data, 0xEE, (size_t)(r.n - 1) * r.stride + size); /* the caller's to write */
        for (uint32_t i = 0; i < k; i++)
            body(r.data + (size_t)i * r.stride, size, b->next++);
        *last = tp_run_write(b->p.ch, &r, k, flags);
        assert_true(*last >= 0);
        done_n += k;
    }
    return done_n;
}

/* Everything both peers received so far is the same. */
static void same_bytes(side *a, side *b, uint64_t *total)
{
    static uint8_t x[1 << 18], y[1 << 18];
    for (;;) {
        ssize_t n = read(a->p.fd, x, sizeof(x));
        if (n <= 0) {
            assert_true(read(b->p.fd, y, 1) <= 0);
            return;
        }
        size_t got = 0;
        uint64_t end = tu_now_ms() + 2000;
        while (got < (size_t)n) {
            ssize_t m = read(b->p.fd, y + got, (size_t)n - got);
            if (m > 0)
                got += (size_t)m;
            else
                assert_true(tu_now_ms() < end);
        }
        assert_memory_equal(x, y, (size_t)n);
        *total += (uint64_t)n;
    }
}

/* The same series of messages written one by one on a and in runs on b, with the peers
 * reading (or, for a while, not reading, so that the sockets fill and sends fall short). */
static void compare(uint32_t size, uint32_t hwm, unsigned flags, uint32_t seed)
{
    side a = {client_after_ack_with(14, 0, 6144, 1000), 0};
    side b = {client_after_ack_with(14, 0, 6144, 1000), 0};
    if (hwm) {
        assert_int_equal(tp_set_high_water_mark(a.p.ch, hwm), 0);
        assert_int_equal(tp_set_high_water_mark(b.p.ch, hwm), 0);
    }
    uint32_t rng = seed;
    uint64_t total = 0;
    for (int step = 0; step < 300; step++) {
        rng = rng * 1103515245u + 12345u;
        uint32_t most = 40000 / (size + 3); /* bytes a step may add while nobody reads */
        uint32_t want = 1 + (rng >> 8) % (most < 400 ? most + 1 : 400);
        int last_b = 0;
        uint32_t k = runs(&b, size, want, flags, &rng, &last_b);
        int last_a = singles(&a, size, k, flags);
        assert_int_equal(last_a, last_b);
        same_state(&a, &b);
        if (step % 50 < 40) { /* the peers read; then for a while they do not */
            same_bytes(&a, &b, &total);
            if (step % 7 == 0) {
                int qa = tp_flush(a.p.ch), qb = tp_flush(b.p.ch);
                assert_int_equal(qa, qb);
                same_state(&a, &b);
            }
        }
    }
    while (tp_queued(a.p.ch) || tp_queued(b.p.ch)) {
        same_bytes(&a, &b, &total);
        assert_int_equal(tp_flush(a.p.ch), tp_flush(b.p.ch));
    }
    same_bytes(&a, &b, &total);
    assert_true(total > 0);
    done(&a.p);
    done(&b.p);
}

static void test_same_as_single_writes(void **state)
{
    (void)state;
    compare(76, 0, 0, 1);
    compare(1, 0, 0, 2);
    compare(500, 0, 0, 3);
    compare(6144, 0, 0, 4); /* the largest message that needs no fragments */
    compare(76, 100, 0, 5);
    compare(76, 100000, 0, 6);
    compare(76, 0, TP_WRITE_DIRECT, 7);
}

static void test_give_back_and_buffers_inside(void **state)
{
    (void)state;
    peer p = client_after_ack(14, 0);
    tp_run r;
    assert_int_equal(tp_run_get(p.ch, 10, 5, 0, &r), 0);
    /* a run open: no second run, a buffer is staged and goes after the run */
    tp_run r2;
    assert_int_equal(tp_run_get(p.ch, 10, 5, 0, &r2), TP_EINVAL);
    tp_buf *bf;
    assert_int_equal(tp_get_buffer(p.ch, 3, false, &bf), 0);
    memcpy(bf->data, "xyz", 3);
    bf->len = 3;
    assert_true(tp_write(p.ch, bf, 0) >= 0);
    for (uint32_t i = 0; i < 2; i++)
        memset(r.data + i * r.stride, 'a' + (int)i, 10);
    assert_int_equal(tp_run_write(p.ch, &r, 2, 0), 13 * 2 + 6);
    /* given back: nothing more */
    assert_int_equal(tp_run_get(p.ch, 10, 5, 0, &r), 0);
    assert_int_equal(tp_run_write(p.ch, &r, 0, 0), 13 * 2 + 6);
    assert_int_equal(tp_run_write(p.ch, &r, 0, 0), TP_EINVAL); /* not open any more */
    assert_int_equal(tp_flush(p.ch), 0);
    uint8_t got[64];
    size_t n = 0;
    uint64_t end = tu_now_ms() + 2000;
    while (n < 32 && tu_now_ms() < end) {
        ssize_t m = read(p.fd, got + n, sizeof(got) - n);
        if (m > 0)
            n += (size_t)m;
    }
    uint8_t want[32];
    size_t w = ts_hex("00 0D 02 61 61 61 61 61 61 61 61 61 61"
                      "00 0D 02 62 62 62 62 62 62 62 62 62 62"
                      "00 06 02 78 79 7A",
                      want, sizeof(want));
    ts_assert_bytes_equal(got, n, want, w);
    done(&p);
}

static void test_refused(void **state)
{
    (void)state;
    tp_run r;
    peer p = client_after_ack(14, 0);
    assert_int_equal(tp_run_get(p.ch, 0, 1, 0, &r), TP_EINVAL);
    assert_int_equal(tp_run_get(p.ch, 6145, 1, 0, &r), TP_EINVAL); /* needs fragments */
    assert_int_equal(tp_run_get(p.ch, 10, 0, 0, &r), TP_EINVAL);
    tp_buf *bf;
    assert_int_equal(tp_get_buffer(p.ch, 10, false, &bf), 0);
    assert_int_equal(tp_run_get(p.ch, 10, 1, 0, &r), TP_EINVAL); /* a buffer is open */
    assert_int_equal(tp_release(p.ch, bf), 0);
    done(&p);
    /* compression: the frames are the compressor's */
    peer z = client_after_ack(14, TP_COMP_LZ4);
    assert_int_equal(tp_run_get(z.ch, 10, 1, 0, &r), TP_EINVAL);
    done(&z);
    /* a failed channel says why */
    peer f = client_after_ack(14, 0);
    uint8_t bad[3] = {0, 2, 2};
    feed(&f, bad, sizeof(bad));
    tp_msg m;
    uint64_t end = tu_now_ms() + 2000;
    while (tp_read(f.ch, &m) >= 0)
        assert_true(tu_now_ms() < end);
    assert_int_equal(tp_run_get(f.ch, 10, 1, 0, &r), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "shorter than its 3-byte header"));
    done(&f);
}

/* tp_pack_run(): k messages written in place and closed at once make the bytes k tp_pack()
 * calls make; the room is checked exactly; a buffer that is not packed is refused. */
static void test_pack_run(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 16, 76, 500};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        const uint32_t size = sizes[si];
        side a = {client_after_ack(14, 0), 0}, b = {client_after_ack(14, 0), 0};
        uint64_t total = 0;
        for (uint32_t per = 1; per <= 12; per++) {
            const uint32_t room = per * (size + 2); /* as TransportPerf asks: more than needed */
            tp_buf *ba, *bb;
            assert_int_equal(tp_get_buffer(a.p.ch, room, true, &ba), 0);
            assert_int_equal(tp_get_buffer(b.p.ch, room, true, &bb), 0);
            for (uint32_t i = 0; i + 1 < per; i++) {
                body(ba->data, size, a.next++);
                ba->len = size;
                assert_int_equal(tp_pack(a.p.ch, ba), 0);
            }
            const uint32_t left = ba->len; /* the room for the last one */
            body(ba->data, size, a.next++);
            ba->len = size;
            uint8_t *q = bb->data;
            for (uint32_t i = 0; i < per; i++, q += size + 2)
                body(q, size, b.next++);
            assert_int_equal(tp_pack_run(b.p.ch, bb, size, per - 1), 0);
            assert_ptr_equal(bb->data, ba->data - (uintptr_t)ba->pay + (uintptr_t)bb->pay);
            assert_int_equal(bb->len, left);
            bb->len = size;
            assert_true(tp_write(a.p.ch, ba, 0) >= 0);
            assert_true(tp_write(b.p.ch, bb, 0) >= 0);
            assert_int_equal(tp_flush(a.p.ch), 0);
            assert_int_equal(tp_flush(b.p.ch), 0);
            same_bytes(&a, &b, &total);
        }
        assert_true(total > 0);
        done(&a.p);
        done(&b.p);
    }

    peer p = client_after_ack(14, 0);
    tp_buf *bf;
    assert_int_equal(tp_get_buffer(p.ch, 100, true, &bf), 0);
    const uint32_t cap = bf->len;
    /* exactly the room: k messages of 8 bytes and their lengths, the last one's inside */
    const uint32_t k = (cap + 2) / 10;
    assert_int_equal(tp_pack_run(p.ch, bf, 8, k + 1), TP_EINVAL);
    assert_int_equal(bf->len, cap); /* nothing changed */
    assert_int_equal(tp_pack_run(p.ch, bf, 8, k), 0);
    assert_int_equal(bf->len, cap >= 10 * k ? cap - 10 * k : 0); /* as after k tp_pack() */
    assert_int_equal(tp_pack_run(p.ch, bf, 8, 0), 0);
    assert_int_equal(tp_release(p.ch, bf), 0);
    assert_int_equal(tp_get_buffer(p.ch, 100, false, &bf), 0);
    assert_int_equal(tp_pack_run(p.ch, bf, 8, 1), TP_EINVAL); /* not packed */
    assert_int_equal(tp_release(p.ch, bf), 0);
    done(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_single_writes),
        cmocka_unit_test(test_give_back_and_buffers_inside),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_pack_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
