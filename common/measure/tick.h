/*
 * tick: the fixed schedule a worker thread paces its bursts by (docs/tools.md#ticks-and-bursts).
 *
 * A second is cut into `rate` ticks. Tick k of the run is due at
 *
 *     origin + (k / rate) * 1 s + ((k % rate) * 1 s) / rate
 *
 * which is computed from k, never from the previous wake-up: deadlines never drift, whatever
 * the rate (3 ticks/s and 7 ticks/s included), and a tick that starts late is made up by the
 * following ones, which are then due at once. Each second begins exactly on a whole second
 * after the origin, so per-second totals are exact.
 *
 * The scheduler does not read the clock itself: every call takes `now`, which keeps it pure
 * arithmetic (a test drives it with a fake clock) and lets a loop read the clock once per
 * iteration. A worker's loop looks like this:
 *
 *     tick_init(&t, cfg.tick_rate, clk_ns());
 *     while (!sig_stop_requested()) {
 *         if (tick_poll(&t, clk_ns())) {
 *             uint64_t n = tick_burst(&t, cfg.update_rate);   // messages due this tick
 *             send_burst(n, tick_deadline(&t));               // scheduled time for the stamps
 *             continue;                                       // more ticks may be due
 *         }
 *         struct timespec ts = tick_wait_timespec(&t, clk_ns());
 *         n = epoll_pwait2(epfd, events, max, &ts, NULL);      // read while waiting
 *         ...
 *     }
 *
 * Waiting: epoll_wait() takes whole milliseconds, too coarse for 1000 ticks/s, so the
 * scheduler hands out a relative timespec for epoll_pwait2() or ppoll() (nanosecond
 * timeouts), or the absolute deadline for a timerfd armed with TFD_TIMER_ABSTIME (then plain
 * epoll_wait() wakes on the timerfd). Linux delays timed wake-ups by the thread's timer slack,
 * 50 us by default; tick_tighten_slack() brings it down to 1 us for the calling thread.
 */
#ifndef RWFPERF_TICK_H
#define RWFPERF_TICK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Highest tick rate accepted: one tick per nanosecond. */
#define TICK_RATE_MAX UINT32_C(1000000000)

typedef struct tick {
    int64_t origin_ns; /* deadline of tick 0 */
    uint32_t rate;     /* ticks per second, 1..TICK_RATE_MAX */

    /* The current tick: the one tick_poll() started last. */
    uint32_t index;      /* 0..rate-1, wraps every second */
    uint64_t second;     /* whole seconds from the origin to its deadline */
    int64_t deadline_ns; /* its scheduled time */
    uint64_t started;    /* ticks started so far, this one included */

    /* The next tick. */
    int64_t next_ns;
    uint32_t next_index;
    uint64_t next_second;

    /* Stall indicator: lateness = start time - deadline. */
    int64_t late_after_ns; /* a tick this late or later counts as late (default 1 interval) */
    uint64_t late;         /* ticks that started late */
    int64_t late_total_ns; /* summed lateness of those ticks */
    int64_t late_max_ns;   /* largest lateness of any tick */
} tick;

/* Sets up a schedule of `rate` ticks per second whose first tick is due at start_ns (a
 * CLOCK_MONOTONIC time, or any time base the caller keeps using). Returns 0, or -1 with
 * err_msg() set when rate is 0 or above TICK_RATE_MAX. */
int tick_init(tick *t, uint32_t rate, int64_t start_ns);

/* Starts the next tick when it is due at `now` and returns true; it then is the current tick
 * (index, deadline, burst sizes). Returns false, changing nothing, when it is not yet due.
 * After a stall, successive calls return true for each overdue tick in turn, so that the
 * missed bursts are sent and the rate over the second stays exact. */
bool tick_poll(tick *t, int64_t now_ns);

/* The scheduled time (deadline) of the current tick: what a sender stamps for the view of
 * latency that does not hide stalls (coordinated omission). */
static inline int64_t tick_deadline(const tick *t)
{
    return t->deadline_ns;
}

/* The index of the current tick within its second, 0..rate-1. */
static inline uint32_t tick_index(const tick *t)
{
    return t->index;
}

/* Messages the current tick sends for a total of `rate` per second: rate / tickRate, plus one
 * on the first (rate % tickRate) ticks of each second, so that each second sends exactly
 * `rate`. */
static inline uint64_t tick_burst(const tick *t, uint64_t rate)
{
    return rate / t->rate + (t->index < rate % t->rate ? 1 : 0);
}

/* Burst size of tick `index` of a second for `rate` messages per second at `tick_rate` ticks
 * per second (tick_rate > 0): the same rule as tick_burst(), for planning ahead. */
static inline uint64_t tick_burst_at(uint32_t tick_rate, uint32_t index, uint64_t rate)
{
    return rate / tick_rate + (index < rate % tick_rate ? 1 : 0);
}

/* Nanoseconds from now until the next tick is due; 0 when it is due already. */
static inline int64_t tick_wait_ns(const tick *t, int64_t now_ns)
{
    return t->next_ns > now_ns ? t->next_ns - now_ns : 0;
}

/* The same wait as a relative timespec, for epoll_pwait2() and ppoll(). */
struct timespec tick_wait_timespec(const tick *t, int64_t now_ns);

/* The same wait in whole milliseconds for epoll_wait()/poll(), rounded up so that the caller
 * never wakes before the deadline (it may wake up to 1 ms after it). Capped at INT32_MAX. */
int tick_wait_ms(const tick *t, int64_t now_ns);

/* The deadline of the next tick (a clk_ns() time) as an absolute timespec of the process's
 * clock (clk.h: the skew taken off), for timerfd_settime(TFD_TIMER_ABSTIME) or
 * clock_nanosleep(TIMER_ABSTIME) on that clock. */
struct timespec tick_next_abs(const tick *t);

/* Changes the lateness from which a tick counts as late (default: one tick interval, i.e. a
 * tick that starts when the following one is already due). */
void tick_set_late_after(tick *t, int64_t ns);

/* The deadline of tick number k (0-based) of this schedule. */
int64_t tick_deadline_of(const tick *t, uint64_t k);

/* Lowers the calling thread's timer slack to 1 us so that timed waits end close to the
 * deadline. Returns 0, or -1 with err_msg() set. */
int tick_tighten_slack(void);

#endif
