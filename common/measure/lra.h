/*
 * lra: the latency random array (docs/tools.md#latency-random-array), which says which message of
 * which burst carries a send timestamp.
 *
 * For a total rate of T messages per second sent in `ticks` bursts per second and a latency
 * rate of L stamped messages per second, the array holds `sets` one-second sets of one value
 * per tick. In each set exactly L ticks, chosen uniformly at random among the ticks whose
 * burst is not empty, hold the position of the stamped message inside that tick's burst
 * (drawn uniformly from [0, burst size)); every other tick holds LRA_NONE. Over any one-second
 * set, exactly L stamped messages go out, in distinct ticks, at random places in their bursts.
 *
 * The array is built once per tool and message kind and then only read; each thread walks
 * it with its own lra_iter, one value per burst, wrapping after the last set. A latency rate
 * of "all" needs no array: lra_init_all() makes one whose every value is LRA_ALL.
 *
 * The generator is seeded by the caller: tests pass fixed seeds to get repeatable arrays,
 * the tools pass lra_time_seed().
 */
#ifndef RWFPERF_LRA_H
#define RWFPERF_LRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No stamped message in this burst. */
#define LRA_NONE INT64_C(-1)
/* Every message of this burst is stamped (latency rate "all"). */
#define LRA_ALL INT64_C(-2)

/* One-second sets in the tools' arrays. */
#define LRA_SETS 20

typedef struct lra {
    int64_t *slots; /* ticks * sets values; NULL for "all" */
    uint32_t ticks; /* ticks per second */
    uint32_t sets;
    size_t len; /* ticks * sets */
} lra;

typedef struct lra_iter {
    const lra *a;
    size_t pos;
} lra_iter;

/* Builds the array for total_rate messages per second, latency_rate stamped ones, tick_rate
 * ticks per second, `sets` one-second sets (LRA_SETS in the tools), drawing from a generator
 * seeded with `seed`. Returns 0, or -1 with err_msg() set when: total_rate is 0, latency_rate
 * is 0, latency_rate > total_rate, tick_rate is 0, sets is 0, or latency_rate exceeds the
 * number of ticks per second that send anything (at most one stamp per tick). */
int lra_init(lra *a, uint64_t total_rate, uint64_t latency_rate, uint32_t tick_rate, uint32_t sets,
             uint64_t seed);

/* Makes the "all" array: lra_next() always returns LRA_ALL. Never fails. */
void lra_init_all(lra *a);

/* Frees the array. */
void lra_free(lra *a);

/* Positions a thread's iterator at the start of the array. */
static inline void lra_iter_init(lra_iter *it, const lra *a)
{
    it->a = a;
    it->pos = 0;
}

/* The value for the next burst: LRA_NONE, LRA_ALL, or the 0-based position of the stamped
 * message within the burst (below that tick's burst size). */
static inline int64_t lra_next(lra_iter *it)
{
    const lra *a = it->a;
    if (!a->slots)
        return LRA_ALL;
    int64_t v = a->slots[it->pos];
    if (++it->pos == a->len)
        it->pos = 0;
    return v;
}

/* The value for tick `index` (0..ticks-1) of second `second` of a tick schedule running at
 * the array's tick rate: the same values as an iterator stepped once per tick from tick 0,
 * but tied to the schedule, so that a position drawn for a tick with one extra message (the
 * remainder of the rate) is always used on such a tick. */
static inline int64_t lra_at(const lra *a, uint64_t second, uint32_t index)
{
    if (!a->slots)
        return LRA_ALL;
    return a->slots[(size_t)(second % a->sets) * a->ticks + index];
}

/* True when message i (0-based) of a burst gets a timestamp, given the burst's lra_next()
 * value. */
static inline bool lra_stamp(int64_t v, uint64_t i)
{
    return v == LRA_ALL || (v >= 0 && (uint64_t)v == i);
}

/* A seed that differs from run to run (time and process id). */
uint64_t lra_time_seed(void);

#endif
