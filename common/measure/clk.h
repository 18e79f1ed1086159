/*
 * clk: the clock every measurement in the suite is taken with.
 *
 * Latency stamps and tick deadlines come from one clock per process, chosen once at start
 * (clk_use, the tools' -clock option): CLOCK_MONOTONIC by default, as in the ETA tools, so that
 * a microsecond stamp written by one of their providers is directly comparable with one taken
 * here on the same host (both are CLOCK_MONOTONIC seconds * 10^6 + nanoseconds / 1000). No two
 * hosts share a monotonic clock: one-way latency between hosts needs CLOCK_REALTIME on both,
 * synchronised (PTP or chrony), and is then only as good as that synchronisation.
 *
 * On Linux the read goes through the vDSO, so it costs tens of nanoseconds and no system call;
 * the choice of clock is the argument clock_gettime() dispatches on anyway, so reading the
 * selected clock costs no more than reading a fixed one. clk_calibrate() measures that cost and
 * the clock's resolution at start so that the tools can print them with their inputs.
 *
 * A fixed offset (the test-only skew, clk_use's skew_ns) is added to every read: the tools take
 * it from the environment so that a test can pretend two processes' clocks disagree by a known
 * amount. The offset is 0 in any real run.
 *
 * Wall-clock time for people (the UTC "YYYY-MM-DD HH:MM:SS" of the stats CSV rows, the start
 * of a histogram log) is read from CLOCK_REALTIME directly, never through this setting.
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

/* The clocks a tool can stamp with (-clock). */
typedef enum clk_source {
    CLK_SRC_MONOTONIC = 0, /* CLOCK_MONOTONIC: the default, as in the ETA tools */
    CLK_SRC_REALTIME = 1,  /* CLOCK_REALTIME: comparable between synchronised hosts */
} clk_source;

/* The process's clock: written by clk_use() before any thread starts, read-only afterwards
 * (the threads started later see it through thread creation). Read it through the functions
 * below. */
typedef struct clk_setting {
    clockid_t id;      /* what clock_gettime() reads */
    int64_t skew_ns;   /* added to every clk_ns() (test only; 0 otherwise) */
    int64_t skew_us;   /* skew_ns / 1000, added to every clk_us() */
    clk_source source; /* what id is */
} clk_setting;
extern clk_setting clk_setting_;

/* Time of the process's clock in nanoseconds (CLOCK_MONOTONIC: since an arbitrary point, boot;
 * CLOCK_REALTIME: since the epoch), plus the skew. Never fails on Linux. Allocates nothing and
 * takes no lock. */
static inline int64_t clk_ns(void)
{
    struct timespec ts;
    clock_gettime(clk_setting_.id, &ts);
    return (int64_t)ts.tv_sec * CLK_NS_PER_SEC + ts.tv_nsec + clk_setting_.skew_ns;
}

/* The same clock in microseconds, truncated exactly as the ETA tools truncate it (plus the
 * skew in whole microseconds), so that stamps taken here and by them can be subtracted from
 * each other. */
static inline int64_t clk_us(void)
{
    struct timespec ts;
    clock_gettime(clk_setting_.id, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + clk_setting_.skew_us;
}

/* Selects the clock of every later clk_ns(), clk_us() and clk_sleep_until(), and the skew
 * added to their times. Call it once, before any thread starts. Returns 0, or -1 (err_set) when
 * source is not a clk_source or the clock cannot be read. */
int clk_use(clk_source source, int64_t skew_ns);

/* The selected clock and skew. */
clk_source clk_current(void);
int64_t clk_skew_ns(void);

/* "monotonic" or "realtime" (the option's value), and "CLOCK_MONOTONIC" or "CLOCK_REALTIME";
 * "?" for anything else. */
const char *clk_source_name(clk_source source);
const char *clk_source_id_name(clk_source source);

/* Converts a non-negative duration or a clk_ns() time (less the skew) to a timespec. */
static inline struct timespec clk_timespec(int64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / CLK_NS_PER_SEC);
    ts.tv_nsec = (long)(ns % CLK_NS_PER_SEC);
    return ts;
}

/* Sleeps until clk_ns() reaches deadline_ns (returns at once when it has passed).
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
    int64_t res_ns;     /* resolution reported by clock_getres() of the selected clock */
    int64_t step_ns;    /* smallest non-zero difference seen between two successive reads */
    const char *source; /* clock name: "CLOCK_MONOTONIC" or "CLOCK_REALTIME" */
} clk_cal;

/* Measures the cost of a read of the selected clock and its resolution. Takes about a millisecond
 * and allocates nothing. Returns 0, or -1 with err_msg() set when the clock cannot be read. */
int clk_calibrate(clk_cal *out);

/* Writes a one-line description of a calibration ("CLOCK_MONOTONIC, 21.4 ns per read,
 * resolution 1 ns, smallest step 30 ns") into buf (cap bytes, always NUL-terminated). Returns
 * what snprintf returns. */
int clk_cal_text(const clk_cal *cal, char *buf, size_t cap);

#endif
