/*
 * clk: the clock every measurement in the suite is taken with.
 *
 * Latency stamps and tick deadlines come from CLOCK_MONOTONIC, as in the ETA tools: a
 * microsecond stamp written by one of their providers is directly comparable with one taken
 * here on the same host (both are CLOCK_MONOTONIC seconds * 10^6 + nanoseconds / 1000). On
 * Linux the read goes through the vDSO, so it costs tens of nanoseconds and no system call;
 * clk_calibrate() measures that cost and the clock's resolution at start so that the tools can
 * print them with their inputs.
 *
 * Wall-clock time (CLOCK_REALTIME) appears only in human-readable output: the UTC
 * "YYYY-MM-DD HH:MM:SS" of the stats CSV rows.
 */
#ifndef RWFPERF_CLK_H
#define RWFPERF_CLK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CLK_NS_PER_SEC INT64_C(1000000000)
#define CLK_NS_PER_US INT64_C(1000)

/* Length of "YYYY-MM-DD HH:MM:SS" plus its NUL. */
#define CLK_UTC_LEN 20

/* Monotonic time in nanoseconds since an arbitrary point (boot). Never decreases, never fails
 * on Linux. */
static inline int64_t clk_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * CLK_NS_PER_SEC + ts.tv_nsec;
}

/* Monotonic time in microseconds, truncated exactly as the ETA tools truncate it, so that
 * stamps taken here and by them can be subtracted from each other. */
static inline int64_t clk_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Converts a non-negative duration or a CLOCK_MONOTONIC time in ns to a timespec. */
static inline struct timespec clk_timespec(int64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / CLK_NS_PER_SEC);
    ts.tv_nsec = (long)(ns % CLK_NS_PER_SEC);
    return ts;
}

/* Sleeps until CLOCK_MONOTONIC reaches deadline_ns (returns at once when it has passed).
 * Returns 0, or -1 with errno EINTR when a signal handler ran first, so that the caller's loop
 * can look at its stop flag before sleeping again. */
int clk_sleep_until(int64_t deadline_ns);

/* Writes the UTC calendar time of `t` (seconds since the epoch) as "YYYY-MM-DD HH:MM:SS"
 * into out, which must hold CLK_UTC_LEN bytes. Returns out. */
char *clk_utc_format(time_t t, char out[CLK_UTC_LEN]);

/* Writes the current UTC time as clk_utc_format() does. Returns out. */
char *clk_utc_now(char out[CLK_UTC_LEN]);

/* What clk_calibrate() measured. */
typedef struct clk_cal {
    double read_ns;     /* cost of one clk_ns() call, best of several rounds */
    int64_t res_ns;     /* resolution reported by clock_getres(CLOCK_MONOTONIC) */
    int64_t step_ns;    /* smallest non-zero difference seen between two successive reads */
    const char *source; /* clock name: "CLOCK_MONOTONIC" */
} clk_cal;

/* Measures the cost of a clock read and the clock's resolution. Takes about a millisecond and
 * allocates nothing. Returns 0, or -1 with err_msg() set when the clock cannot be read. */
int clk_calibrate(clk_cal *out);

/* Writes a one-line description of a calibration ("CLOCK_MONOTONIC, 21.4 ns per read,
 * resolution 1 ns, smallest step 30 ns") into buf (cap bytes, always NUL-terminated). Returns
 * what snprintf returns. */
int clk_cal_text(const clk_cal *cal, char *buf, size_t cap);

#endif
