#include "tick.h"

#include "clk.h"
#include "err.h"

#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>

/* Offset of tick `index` from the start of its second. index < rate <= 10^9, so the product
 * stays below 10^18 and fits. */
static int64_t offset_in_second(uint32_t rate, uint32_t index)
{
    return (int64_t)(((uint64_t)index * (uint64_t)CLK_NS_PER_SEC) / rate);
}

int tick_init(tick *t, uint32_t rate, int64_t start_ns)
{
    if (rate == 0 || rate > TICK_RATE_MAX)
        return err_set("tick rate %u is out of range (1 to %u ticks per second)", rate,
                       TICK_RATE_MAX);
    *t = (tick){0};
    t->origin_ns = start_ns;
    t->rate = rate;
    t->deadline_ns = start_ns;
    t->next_ns = start_ns;
    t->late_after_ns = CLK_NS_PER_SEC / rate;
    return 0;
}

bool tick_poll(tick *t, int64_t now_ns)
{
    if (now_ns < t->next_ns)
        return false;

    t->index = t->next_index;
    t->second = t->next_second;
    t->deadline_ns = t->next_ns;
    t->started++;

    int64_t late = now_ns - t->deadline_ns;
    if (late > t->late_max_ns)
        t->late_max_ns = late;
    if (late >= t->late_after_ns) {
        t->late++;
        t->late_total_ns += late;
    }

    if (++t->next_index == t->rate) {
        t->next_index = 0;
        t->next_second++;
    }
    t->next_ns = t->origin_ns + (int64_t)t->next_second * CLK_NS_PER_SEC +
                 offset_in_second(t->rate, t->next_index);
    return true;
}

struct timespec tick_wait_timespec(const tick *t, int64_t now_ns)
{
    return clk_timespec(tick_wait_ns(t, now_ns));
}

int tick_wait_ms(const tick *t, int64_t now_ns)
{
    int64_t ns = tick_wait_ns(t, now_ns);
    int64_t ms = (ns + 999999) / 1000000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

struct timespec tick_next_abs(const tick *t)
{
    int64_t at = t->next_ns - clk_skew_ns();
    return clk_timespec(at > 0 ? at : 0);
}

void tick_set_late_after(tick *t, int64_t ns)
{
    t->late_after_ns = ns;
}

int64_t tick_deadline_of(const tick *t, uint64_t k)
{
    return t->origin_ns + (int64_t)(k / t->rate) * CLK_NS_PER_SEC +
           offset_in_second(t->rate, (uint32_t)(k % t->rate));
}

int tick_tighten_slack(void)
{
    if (prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL) != 0)
        return err_set_errno(errno, "prctl(PR_SET_TIMERSLACK)");
    return 0;
}
