/*
 * run_out: frames as the ETA provider makes them — one per message unpacked; with packing, a
 * buffer written at -maxPackCount messages, when the next message does not fit, and at the end
 * of a burst; a message larger than the packing buffer alone. The frames are counted from the
 * bytes the transport queued (3 header bytes per frame, 2 length bytes per packed message), and
 * the reader must get every message intact and in order. Out of buffers leaves the channel up.
 */
#include "testsupport.h"

#include "../transport/tp_testutil.h"
#include "run_out.h"

#include <stdio.h>
#include <string.h>

static void fill(uint8_t *p, uint32_t len, uint32_t n)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(n * 31 + i);
}

/* Writes count messages of the given sizes as one burst. */
static void burst(run_out *o, const uint32_t *sizes, uint32_t count, uint32_t first)
{
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *at;
        assert_int_equal(run_out_begin(o, sizes[i], &at), 0);
        fill(at, sizes[i], first + i);
        assert_true(run_out_end(o, sizes[i], i + 1 < count) >= 0);
    }
}

/* Flushes w while reading r until `count` messages arrived; checks each. */
static void drain(tp_channel *w, tp_channel *r, const uint32_t *sizes, uint32_t count,
                  uint32_t first)
{
    for (uint32_t i = 0; i < count; i++) {
        tp_msg m;
        int got = 0;
        for (int tries = 0; tries < 2000 && got != 1; tries++) {
            assert_true(tp_flush(w) >= 0);
            got = tu_read(r, &m, 2);
            assert_true(got >= 0);
        }
        assert_int_equal(got, 1);
        assert_int_equal(m.len, sizes[i]);
        uint8_t *want = malloc(sizes[i]);
        fill(want, sizes[i], first + i);
        assert_memory_equal(m.data, want, sizes[i]);
        free(want);
    }
}

static uint64_t written(tp_channel *ch)
{
    tp_stats st;
    tp_get_stats(ch, &st);
    return st.bytes_written;
}

static void connect_pair(tu_pair *p, uint32_t out_bufs)
{
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.guaranteed_output_buffers = out_bufs;
    tu_connect(p, &so, &co);
}

static void test_unpacked(void **state)
{
    (void)state;
    tu_pair p;
    connect_pair(&p, 50);
    run_out o;
    run_out_init_tp(&o, p.s, 1, 6000, 0);
    uint32_t sizes[25];
    for (int i = 0; i < 25; i++)
        sizes[i] = 100;
    uint64_t before = written(p.s);
    burst(&o, sizes, 25, 0);
    assert_int_equal(o.frames, 25);
    assert_int_equal(o.msgs, 25);
    assert_int_equal(written(p.s) - before, 25 * 103);
    drain(p.s, p.c, sizes, 25, 0);
    tu_close(&p);
}

static void test_packed(void **state)
{
    (void)state;
    tu_pair p;
    connect_pair(&p, 50);
    run_out o;
    run_out_init_tp(&o, p.s, 10, 6000, 0);
    uint32_t sizes[25];
    for (int i = 0; i < 25; i++)
        sizes[i] = 100;
    /* 25 messages: 10 + 10 + 5. */
    uint64_t before = written(p.s);
    burst(&o, sizes, 25, 0);
    assert_int_equal(o.frames, 3);
    assert_int_equal(o.packs, 3);
    assert_int_equal(o.packed_msgs, 25);
    assert_int_equal(written(p.s) - before, 3 * 3 + 25 * 102);
    drain(p.s, p.c, sizes, 25, 0);

    /* A 500-byte buffer holds four 100-byte messages (102 bytes each with its length). */
    run_out_init_tp(&o, p.s, 10, 500, 0);
    before = written(p.s);
    burst(&o, sizes, 9, 100);
    assert_int_equal(o.frames, 3); /* 4 + 4 + 1 */
    assert_int_equal(written(p.s) - before, 3 * 3 + 9 * 102);
    drain(p.s, p.c, sizes, 9, 100);

    /* A message larger than the packing buffer goes alone, unpacked. */
    uint32_t mixed[5] = {100, 100, 700, 100, 100};
    run_out_init_tp(&o, p.s, 10, 500, 0);
    before = written(p.s);
    burst(&o, mixed, 5, 200);
    assert_int_equal(o.frames, 3); /* [100 100] [700] [100 100] */
    assert_int_equal(o.packs, 2);
    assert_int_equal(written(p.s) - before, 3 + 2 * 102 + 3 + 700 + 3 + 2 * 102);
    drain(p.s, p.c, mixed, 5, 200);

    /* A burst cut short leaves a buffer open: run_out_close writes it. */
    run_out_init_tp(&o, p.s, 10, 6000, 0);
    for (int i = 0; i < 3; i++) {
        uint8_t *at;
        assert_int_equal(run_out_begin(&o, 100, &at), 0);
        fill(at, 100, 300 + (uint32_t)i);
        assert_true(run_out_end(&o, 100, true) >= 0);
    }
    assert_int_equal(o.frames, 0);
    assert_true(run_out_close(&o) >= 0);
    assert_int_equal(o.frames, 1);
    drain(p.s, p.c, sizes, 3, 300);

    /* A cancelled message is not sent. */
    uint8_t *at;
    assert_int_equal(run_out_begin(&o, 100, &at), 0);
    run_out_cancel(&o);
    assert_true(run_out_close(&o) >= 0);
    run_out_init_tp(&o, p.s, 1, 0, 0);
    assert_int_equal(run_out_begin(&o, 100, &at), 0);
    run_out_cancel(&o);
    burst(&o, sizes, 1, 400);
    drain(p.s, p.c, sizes, 1, 400);
    tu_close(&p);
}

/* A reader that does not read: the writer runs out of output buffers, and the channel stays
 * usable once the reader catches up. */
static void test_out_of_buffers(void **state)
{
    (void)state;
    tu_pair p;
    connect_pair(&p, 4);
    run_out o;
    run_out_init_tp(&o, p.s, 1, 0, 0);
    int rc = 0;
    uint32_t sent = 0;
    uint8_t *at;
    for (int i = 0; i < 1000000 && rc == 0; i++) {
        rc = run_out_begin(&o, 1000, &at);
        if (rc == 0) {
            fill(at, 1000, sent);
            assert_true(run_out_end(&o, 1000, true) >= 0);
            sent++;
        }
    }
    assert_int_equal(rc, TP_ENOBUFS);
    assert_int_equal(tp_get_state(p.s), TP_STATE_ACTIVE);
    uint32_t *sizes = malloc(sent * sizeof(*sizes));
    for (uint32_t i = 0; i < sent; i++)
        sizes[i] = 1000;
    drain(p.s, p.c, sizes, sent, 0);
    free(sizes);
    assert_int_equal(run_out_begin(&o, 1000, &at), 0);
    run_out_cancel(&o);
    tu_close(&p);
}

/* A message larger than a frame is fragmented by the transport and still arrives whole. */
static void test_fragmented(void **state)
{
    (void)state;
    tu_pair p;
    connect_pair(&p, 50);
    run_out o;
    run_out_init_tp(&o, p.s, 10, 6000, 0);
    uint32_t sizes[1] = {50000};
    burst(&o, sizes, 1, 9);
    drain(p.s, p.c, sizes, 1, 9);
    tu_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unpacked),
        cmocka_unit_test(test_packed),
        cmocka_unit_test(test_out_of_buffers),
        cmocka_unit_test(test_fragmented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
