/* The latency random array: exact counts per second, positions inside their bursts,
 * repeatable with a seed, errors for impossible combinations. */
#include "testsupport.h"

#include "err.h"
#include "lra.h"
#include "tick.h"

#include <string.h>

static void expect_error(uint64_t total, uint64_t latency, uint32_t ticks, uint32_t sets,
                         const char *text)
{
    lra a;
    assert_int_equal(lra_init(&a, total, latency, ticks, sets, 1), -1);
    if (!strstr(err_msg(), text)) {
        print_error("error '%s' lacks '%s'\n", err_msg(), text);
        fail();
    }
    assert_null(a.slots);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(0, 10, 1000, 20, "total message rate is zero");
    expect_error(100000, 0, 1000, 20, "latency message rate is zero");
    expect_error(10, 11, 1000, 20, "greater than the total message rate");
    expect_error(100000, 10, 0, 20, "tick rate is zero");
    expect_error(100000, 10, 1000, 0, "set count is zero");
    expect_error(100000, 1001, 1000, 20, "at most one latency message goes in each tick");
    /* 500 messages/s at 1000 ticks/s: only 500 ticks send anything. */
    expect_error(500, 501, 1000, 20, "greater than the total message rate");
    expect_error(1500, 1001, 1000, 20, "number of ticks per second that send messages (1000)");
}

/* For each combination: every one-second set holds exactly `latency` stamps, each in a tick
 * whose burst is not empty, at a position inside that burst. */
static void check_array(uint64_t total, uint64_t latency, uint32_t ticks, uint64_t seed)
{
    lra a;
    assert_int_equal(lra_init(&a, total, latency, ticks, LRA_SETS, seed), 0);
    assert_int_equal(a.len, (size_t)ticks * LRA_SETS);
    for (uint32_t set = 0; set < LRA_SETS; set++) {
        uint64_t stamps = 0;
        for (uint32_t i = 0; i < ticks; i++) {
            int64_t v = a.slots[(size_t)set * ticks + i];
            if (v == LRA_NONE)
                continue;
            assert_true(v >= 0);
            uint64_t burst = tick_burst_at(ticks, i, total);
            assert_true((uint64_t)v < burst);
            stamps++;
        }
        assert_int_equal(stamps, latency);
    }
    /* An iterator walks the sets in order and wraps; lra_at agrees with it. */
    lra_iter it;
    lra_iter_init(&it, &a);
    for (size_t k = 0; k < 2 * a.len + 3; k++) {
        int64_t v = lra_next(&it);
        size_t pos = k % a.len;
        assert_int_equal(v, a.slots[pos]);
        assert_int_equal(lra_at(&a, k / ticks, (uint32_t)(k % ticks)), v);
    }
    lra_free(&a);
}

static void test_counts_and_positions(void **state)
{
    (void)state;
    check_array(100000, 10, 1000, 1);   /* the ConsPerf defaults */
    check_array(100000, 1000, 1000, 2); /* a stamp in every tick */
    check_array(1500, 700, 1000, 3);    /* bursts of 2 then 1 */
    check_array(999, 999, 1000, 4);     /* one message in 999 of 1000 ticks, all stamped */
    check_array(7, 2, 3, 5);
    check_array(10, 10, 10, 6); /* the vectors' tick rate 10 */
    check_array(12345678, 1, 999, 7);
    check_array(1, 1, 1, 8);
}

/* Positions cover the whole burst, the extra position of a remainder tick appears only on
 * remainder ticks, and every tick gets chosen. */
static void test_spread(void **state)
{
    (void)state;
    uint64_t total = 1550; /* 15 per tick, 16 on ticks 0..49 */
    uint32_t ticks = 100;
    lra a;
    assert_int_equal(lra_init(&a, total, 10, ticks, 2000, 99), 0);
    uint64_t pos_seen[16] = {0}, tick_seen[100] = {0};
    for (size_t k = 0; k < a.len; k++) {
        int64_t v = a.slots[k];
        if (v < 0)
            continue;
        uint32_t idx = (uint32_t)(k % ticks);
        tick_seen[idx]++;
        pos_seen[v]++;
        if (v == 15)
            assert_true(idx < 50);
    }
    for (int p = 0; p < 16; p++)
        assert_true(pos_seen[p] > 0);
    /* 20000 stamps over 100 ticks: about 200 each. */
    for (int t = 0; t < 100; t++)
        assert_true(tick_seen[t] > 100 && tick_seen[t] < 300);
    lra_free(&a);
}

static void test_seed(void **state)
{
    (void)state;
    lra a, b, c;
    assert_int_equal(lra_init(&a, 100000, 10, 1000, LRA_SETS, 42), 0);
    assert_int_equal(lra_init(&b, 100000, 10, 1000, LRA_SETS, 42), 0);
    assert_int_equal(lra_init(&c, 100000, 10, 1000, LRA_SETS, 43), 0);
    assert_memory_equal(a.slots, b.slots, a.len * sizeof(a.slots[0]));
    assert_true(memcmp(a.slots, c.slots, a.len * sizeof(a.slots[0])) != 0);
    lra_free(&a);
    lra_free(&b);
    lra_free(&c);
    assert_true(lra_time_seed() != lra_time_seed());
}

static void test_all(void **state)
{
    (void)state;
    lra a;
    lra_init_all(&a);
    lra_iter it;
    lra_iter_init(&it, &a);
    for (int i = 0; i < 5; i++)
        assert_int_equal(lra_next(&it), LRA_ALL);
    assert_int_equal(lra_at(&a, 7, 0), LRA_ALL);
    assert_true(lra_stamp(LRA_ALL, 0) && lra_stamp(LRA_ALL, 12345));
    assert_false(lra_stamp(LRA_NONE, 0));
    assert_true(lra_stamp(3, 3));
    assert_false(lra_stamp(3, 2));
    lra_free(&a);
}

/* A worker's view: one value per tick over 20 s of ticks: exactly `latency` stamped messages
 * are sent in each second. */
static void test_with_ticks(void **state)
{
    (void)state;
    uint64_t total = 100001, latency = 37;
    uint32_t rate = 1000;
    lra a;
    assert_int_equal(lra_init(&a, total, latency, rate, LRA_SETS, 5), 0);
    tick t;
    assert_int_equal(tick_init(&t, rate, 0), 0);
    lra_iter it;
    lra_iter_init(&it, &a);
    int64_t now = 0;
    uint64_t stamped = 0, sent = 0;
    for (uint64_t k = 0; k < (uint64_t)rate * 40; k++) {
        assert_true(tick_poll(&t, now));
        now = t.next_ns;
        int64_t v = lra_next(&it);
        assert_int_equal(v, lra_at(&a, t.second, tick_index(&t)));
        uint64_t n = tick_burst(&t, total);
        for (uint64_t i = 0; i < n; i++)
            stamped += lra_stamp(v, i);
        sent += n;
        if (tick_index(&t) == rate - 1) {
            assert_int_equal(stamped, latency);
            assert_int_equal(sent, total);
            stamped = sent = 0;
        }
    }
    lra_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors), cmocka_unit_test(test_counts_and_positions),
        cmocka_unit_test(test_spread), cmocka_unit_test(test_seed),
        cmocka_unit_test(test_all),    cmocka_unit_test(test_with_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
