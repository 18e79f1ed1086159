#include "testsupport.h"

#include "clk.h"
#include "err.h"

#include <string.h>

static void test_monotonic_and_units(void **state)
{
    (void)state;
    int64_t prev = clk_ns();
    for (int i = 0; i < 10000; i++) {
        int64_t now = clk_ns();
        assert_true(now >= prev);
        prev = now;
    }
    /* clk_us is the same clock truncated to microseconds, as the ETA tools compute it. */
    int64_t a = clk_ns();
    int64_t us = clk_us();
    int64_t b = clk_ns();
    assert_true(us >= a / 1000);
    assert_true(us <= b / 1000);

    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t want = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    int64_t got = clk_us();
    assert_true(got >= want && got - want < 1000000);
}

static void test_timespec(void **state)
{
    (void)state;
    struct timespec ts = clk_timespec(INT64_C(3) * CLK_NS_PER_SEC + 999999999);
    assert_int_equal(ts.tv_sec, 3);
    assert_int_equal(ts.tv_nsec, 999999999);
    ts = clk_timespec(0);
    assert_int_equal(ts.tv_sec, 0);
    assert_int_equal(ts.tv_nsec, 0);
}

static void test_utc_format(void **state)
{
    (void)state;
    char buf[CLK_UTC_LEN];
    assert_string_equal(clk_utc_format(0, buf), "1970-01-01 00:00:00");
    assert_string_equal(clk_utc_format(1700000000, buf), "2023-11-14 22:13:20");
    assert_string_equal(clk_utc_format(951782400, buf), "2000-02-29 00:00:00"); /* leap day */
    clk_utc_now(buf);
    assert_int_equal(strlen(buf), CLK_UTC_LEN - 1);
    assert_true(buf[4] == '-' && buf[7] == '-' && buf[10] == ' ' && buf[13] == ':');
}

static void test_calibrate(void **state)
{
    (void)state;
    clk_cal cal;
    assert_int_equal(clk_calibrate(&cal), 0);
    assert_true(cal.read_ns > 0 && cal.read_ns < 100000);
    assert_true(cal.res_ns >= 1 && cal.res_ns <= 1000000);
    assert_true(cal.step_ns >= 1 && cal.step_ns < 10000000);
    char text[200];
    clk_cal_text(&cal, text, sizeof(text));
    assert_non_null(strstr(text, "CLOCK_MONOTONIC"));
    assert_non_null(strstr(text, "ns per read"));
    print_message("clock: %s\n", text);
}

static void test_sleep_until(void **state)
{
    (void)state;
    int64_t start = clk_ns();
    int64_t deadline = start + 2 * 1000 * 1000;
    assert_int_equal(clk_sleep_until(deadline), 0);
    assert_true(clk_ns() >= deadline);
    /* A deadline in the past returns at once. */
    assert_int_equal(clk_sleep_until(start - CLK_NS_PER_SEC), 0);
}

/* Reads CLOCK_* directly in ns. */
static int64_t raw_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * CLK_NS_PER_SEC + ts.tv_nsec;
}

/* clk_use: the realtime clock and a skew move every read and sleep; back to the default. */
static void test_use(void **state)
{
    (void)state;
    assert_int_equal(clk_current(), CLK_SRC_MONOTONIC);
    assert_int_equal(clk_skew_ns(), 0);
    assert_string_equal(clk_source_name(CLK_SRC_MONOTONIC), "monotonic");
    assert_string_equal(clk_source_id_name(CLK_SRC_REALTIME), "CLOCK_REALTIME");
    assert_string_equal(clk_source_name((clk_source)7), "?");
    assert_int_equal(clk_use((clk_source)7, 0), -1);
    assert_non_null(strstr(err_msg(), "unknown clock"));
    assert_int_equal(clk_current(), CLK_SRC_MONOTONIC);

    const int64_t skew = 5 * CLK_NS_PER_SEC + 123456;
    assert_int_equal(clk_use(CLK_SRC_REALTIME, skew), 0);
    assert_int_equal(clk_current(), CLK_SRC_REALTIME);
    assert_int_equal(clk_skew_ns(), skew);
    int64_t a = raw_ns(CLOCK_REALTIME), ns = clk_ns(), us = clk_us(), b = raw_ns(CLOCK_REALTIME);
    assert_true(ns >= a + skew && ns <= b + skew);
    assert_true(us >= (a + skew) / 1000 - 1 && us <= (b + skew) / 1000 + 1);
    /* A sleep is on the same skewed clock: it ends 2 ms later, not 5 s. */
    int64_t start = clk_ns();
    assert_int_equal(clk_sleep_until(start + 2000000), 0);
    int64_t end = clk_ns();
    assert_true(end >= start + 2000000 && end < start + CLK_NS_PER_SEC);
    clk_cal cal;
    assert_int_equal(clk_calibrate(&cal), 0);
    assert_string_equal(cal.source, "CLOCK_REALTIME");

    /* A negative skew on the monotonic clock, then the default again. */
    assert_int_equal(clk_use(CLK_SRC_MONOTONIC, -7000), 0);
    a = raw_ns(CLOCK_MONOTONIC);
    ns = clk_ns();
    b = raw_ns(CLOCK_MONOTONIC);
    assert_true(ns >= a - 7000 && ns <= b - 7000);
    assert_int_equal(clk_use(CLK_SRC_MONOTONIC, 0), 0);
    assert_int_equal(clk_skew_ns(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotonic_and_units), cmocka_unit_test(test_timespec),
        cmocka_unit_test(test_utc_format),          cmocka_unit_test(test_calibrate),
        cmocka_unit_test(test_sleep_until),         cmocka_unit_test(test_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
