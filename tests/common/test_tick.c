/* The tick scheduler driven by a fake clock: `now` is whatever the test says it is. */
#include "testsupport.h"

#include "clk.h"
#include "err.h"
#include "tick.h"

#include <string.h>

#define SEC CLK_NS_PER_SEC
#define MS INT64_C(1000000)

/* The exact deadline of tick k, computed independently of the scheduler. */
static int64_t want_deadline(int64_t origin, uint32_t rate, uint64_t k)
{
    return origin + (int64_t)(k / rate) * SEC + (int64_t)((k % rate) * (uint64_t)SEC / rate);
}

static void test_init_errors(void **state)
{
    (void)state;
    tick t;
    assert_int_equal(tick_init(&t, 0, 0), -1);
    assert_non_null(strstr(err_msg(), "tick rate 0"));
    assert_int_equal(tick_init(&t, TICK_RATE_MAX + 1, 0), -1);
    assert_int_equal(tick_init(&t, TICK_RATE_MAX, 0), 0);
    assert_int_equal(tick_init(&t, 1, 0), 0);
}

static void test_first_tick_due_at_start(void **state)
{
    (void)state;
    tick t;
    int64_t start = 5 * SEC + 123;
    assert_int_equal(tick_init(&t, 1000, start), 0);
    assert_false(tick_poll(&t, start - 1));
    assert_int_equal(tick_wait_ns(&t, start - 1), 1);
    assert_true(tick_poll(&t, start));
    assert_int_equal(tick_index(&t), 0);
    assert_int_equal(tick_deadline(&t), start);
    assert_int_equal(t.started, 1);
    /* The next one is 1 ms later, not before. */
    assert_false(tick_poll(&t, start + MS - 1));
    assert_true(tick_poll(&t, start + MS));
    assert_int_equal(tick_index(&t), 1);
    assert_int_equal(tick_deadline(&t), start + MS);
}

/* Wakes exactly on each deadline: the deadlines are the exact formula at every tick, for
 * rates that do not divide a second evenly as well as those that do. */
static void test_deadlines_exact(void **state)
{
    (void)state;
    const uint32_t rates[] = {1, 3, 7, 10, 999, 1000, 1001, 65537};
    for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
        uint32_t rate = rates[r];
        int64_t origin = 1000 * SEC + 17;
        tick t;
        assert_int_equal(tick_init(&t, rate, origin), 0);
        uint64_t ticks = (uint64_t)rate * 20 + 5; /* twenty seconds and a bit */
        int64_t now = origin;
        for (uint64_t k = 0; k < ticks; k++) {
            assert_true(tick_poll(&t, now));
            assert_int_equal(tick_deadline(&t), want_deadline(origin, rate, k));
            assert_int_equal(tick_deadline_of(&t, k), want_deadline(origin, rate, k));
            assert_int_equal(tick_index(&t), (uint32_t)(k % rate));
            assert_int_equal(t.second, k / rate);
            assert_false(tick_poll(&t, now)); /* one tick per deadline */
            now += tick_wait_ns(&t, now);
        }
        /* Every second starts on a whole second: no drift however long the run. */
        assert_int_equal(tick_deadline_of(&t, (uint64_t)rate * 3600 * 24),
                         origin + 3600 * 24 * SEC);
        assert_int_equal(t.late, 0);
    }
}

/* Wake-ups come late by varying amounts (as they do on a loaded machine): the deadlines stay
 * on the fixed schedule, since each is computed from the tick number, not from the wake-up. */
static void test_no_drift_with_jitter(void **state)
{
    (void)state;
    tick t;
    int64_t origin = 0;
    uint32_t rate = 1000;
    assert_int_equal(tick_init(&t, rate, origin), 0);
    uint64_t seed = 12345;
    int64_t now = 0;
    uint64_t k = 0;
    while (k < 100000) {
        if (tick_poll(&t, now)) {
            assert_int_equal(tick_deadline(&t), want_deadline(origin, rate, k));
            k++;
            continue;
        }
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t jitter = (int64_t)((seed >> 33) % 400000); /* up to 0.4 ms late */
        now += tick_wait_ns(&t, now) + jitter;
    }
    assert_int_equal(tick_deadline(&t), 99 * SEC + 999 * MS);
    assert_int_equal(t.late, 0); /* never a whole interval late */
    assert_true(t.late_max_ns < 400000);
}

/* A 50 ms stall at 1000 ticks/s: the 51 ticks due by then all start at once, in order, with
 * their own deadlines; 50 of them count as late; then the schedule is back on time. */
static void test_late_ticks_made_up(void **state)
{
    (void)state;
    tick t;
    assert_int_equal(tick_init(&t, 1000, 0), 0);
    int64_t now = 0;
    for (int k = 0; k < 10; k++) {
        assert_true(tick_poll(&t, now));
        now = t.next_ns;
    }
    /* Tick 10 is due at 10 ms; the thread wakes at 60 ms. */
    now = 60 * MS;
    uint64_t burst_total = 0;
    for (int k = 10; k <= 60; k++) {
        assert_true(tick_poll(&t, now));
        assert_int_equal(tick_deadline(&t), k * MS);
        burst_total += tick_burst(&t, 100000);
    }
    assert_false(tick_poll(&t, now));
    assert_int_equal(burst_total, 51 * 100); /* the missed bursts are all sent */
    assert_int_equal(t.late, 50);            /* 50 ms .. 1 ms late; the 60 ms tick is on time */
    assert_int_equal(t.late_max_ns, 50 * MS);
    int64_t total = 0;
    for (int d = 1; d <= 50; d++)
        total += d * MS;
    assert_int_equal(t.late_total_ns, total);
    assert_int_equal(tick_wait_ns(&t, now), MS);

    /* A lower threshold counts smaller delays. */
    tick_set_late_after(&t, 100 * 1000);
    assert_true(tick_poll(&t, 61 * MS + 200 * 1000));
    assert_int_equal(t.late, 51);
}

/* For every pair, the bursts of each second add up to the rate exactly, differ by at most one,
 * and the larger ones come first. */
static void test_burst_totals(void **state)
{
    (void)state;
    const struct {
        uint64_t rate;
        uint32_t ticks;
    } pairs[] = {
        {1001, 1000},    {999, 1000},    {1, 1000},   {7, 3}, {100000, 7},
        {12345678, 999}, {100000, 100},  {0, 1000},   {5, 5}, {3, 1},
        {1000000, 1000}, {999999, 1000}, {17, 65537}, {1, 1}, {4294967311ULL, 7},
    };
    for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
        uint64_t rate = pairs[p].rate;
        uint32_t ticks = pairs[p].ticks;
        tick t;
        assert_int_equal(tick_init(&t, ticks, 0), 0);
        int64_t now = 0;
        for (int second = 0; second < 3; second++) {
            uint64_t sum = 0, lo = UINT64_MAX, hi = 0, prev = UINT64_MAX;
            for (uint32_t i = 0; i < ticks; i++) {
                assert_true(tick_poll(&t, now));
                now = t.next_ns;
                uint64_t b = tick_burst(&t, rate);
                assert_int_equal(b, tick_burst_at(ticks, i, rate));
                assert_true(b <= prev);
                prev = b;
                sum += b;
                lo = b < lo ? b : lo;
                hi = b > hi ? b : hi;
            }
            assert_int_equal(sum, rate);
            assert_true(hi - lo <= 1);
        }
    }
}

static void test_wait_forms(void **state)
{
    (void)state;
    tick t;
    assert_int_equal(tick_init(&t, 1000, 10 * SEC), 0);
    assert_true(tick_poll(&t, 10 * SEC));
    int64_t next = 10 * SEC + MS;

    int64_t now = next - 1;
    assert_int_equal(tick_wait_ns(&t, now), 1);
    assert_int_equal(tick_wait_ms(&t, now), 1); /* rounded up, never early */
    now = next - MS;
    assert_int_equal(tick_wait_ms(&t, now), 1);
    now = next - MS - 1;
    assert_int_equal(tick_wait_ms(&t, now), 2);
    assert_int_equal(tick_wait_ms(&t, next), 0);
    assert_int_equal(tick_wait_ns(&t, next + 5), 0);

    struct timespec ts = tick_wait_timespec(&t, next - 1500000000LL);
    assert_int_equal(ts.tv_sec, 1);
    assert_int_equal(ts.tv_nsec, 500000000);
    ts = tick_wait_timespec(&t, next + 1);
    assert_int_equal(ts.tv_sec, 0);
    assert_int_equal(ts.tv_nsec, 0);

    ts = tick_next_abs(&t);
    assert_int_equal(ts.tv_sec, 10);
    assert_int_equal(ts.tv_nsec, 1000000);

    assert_int_equal(tick_tighten_slack(), 0);
}

/* With the real clock: a 200 ticks/s loop waiting in clock_nanosleep for 0.25 s starts the
 * expected number of ticks (the timing is not asserted beyond that). */
static void test_real_clock(void **state)
{
    (void)state;
    tick t;
    int64_t start = clk_ns();
    assert_int_equal(tick_init(&t, 200, start), 0);
    int64_t end = start + 250 * MS;
    uint64_t n = 0;
    for (;;) {
        int64_t now = clk_ns();
        if (tick_poll(&t, now)) {
            if (tick_deadline(&t) >= end)
                break;
            n++;
            continue;
        }
        struct timespec ts = tick_next_abs(&t);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    assert_int_equal(n, 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_errors),        cmocka_unit_test(test_first_tick_due_at_start),
        cmocka_unit_test(test_deadlines_exact),    cmocka_unit_test(test_no_drift_with_jitter),
        cmocka_unit_test(test_late_ticks_made_up), cmocka_unit_test(test_burst_totals),
        cmocka_unit_test(test_wait_forms),         cmocka_unit_test(test_real_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
