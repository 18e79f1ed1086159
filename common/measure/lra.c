#include "lra.h"

#include "err.h"
#include "tick.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* xoshiro256** seeded through splitmix64: small, fast, and good enough that the choice of
 * ticks and positions shows no pattern. */
typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, bound), bound > 0, without modulo bias. */
static uint64_t rng_below(rng *r, uint64_t bound)
{
    uint64_t threshold = (0 - bound) % bound; /* 2^64 mod bound */
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold)
            return x % bound;
    }
}

int lra_init(lra *a, uint64_t total_rate, uint64_t latency_rate, uint32_t tick_rate, uint32_t sets,
             uint64_t seed)
{
    *a = (lra){0};
    if (total_rate == 0)
        return err_set("latency random array: the total message rate is zero");
    if (latency_rate == 0)
        return err_set("latency random array: the latency message rate is zero");
    if (latency_rate > total_rate)
        return err_set("latency random array: the latency message rate (%llu) is greater than "
                       "the total message rate (%llu)",
                       (unsigned long long)latency_rate, (unsigned long long)total_rate);
    if (tick_rate == 0)
        return err_set("latency random array: the tick rate is zero");
    if (sets == 0)
        return err_set("latency random array: the set count is zero");

    /* Ticks that send at least one message: all of them when total_rate >= tick_rate, else
     * the first (total_rate % tick_rate) ticks, which get the remainder. */
    uint64_t busy = total_rate >= tick_rate ? tick_rate : total_rate;
    if (latency_rate > busy)
        return err_set("latency random array: the latency message rate (%llu) is greater than "
                       "the number of ticks per second that send messages (%llu); at most one "
                       "latency message goes in each tick",
                       (unsigned long long)latency_rate, (unsigned long long)busy);

    size_t len = (size_t)tick_rate * sets;
    int64_t *slots = malloc(len * sizeof(*slots));
    uint32_t *order = malloc((size_t)busy * sizeof(*order));
    if (!slots || !order) {
        free(slots);
        free(order);
        return err_set("latency random array: out of memory for %zu values", len);
    }

    rng r;
    rng_seed(&r, seed);
    for (uint32_t set = 0; set < sets; set++) {
        int64_t *s = slots + (size_t)set * tick_rate;
        for (uint32_t i = 0; i < tick_rate; i++)
            s[i] = LRA_NONE;
        /* Choose latency_rate distinct busy ticks: the first latency_rate steps of a
         * Fisher-Yates shuffle of the busy ticks. The busy ticks are 0..busy-1. */
        for (uint32_t i = 0; i < busy; i++)
            order[i] = i;
        for (uint64_t i = 0; i < latency_rate; i++) {
            uint64_t j = i + rng_below(&r, busy - i);
            uint32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
            uint32_t idx = order[i];
            uint64_t burst = tick_burst_at(tick_rate, idx, total_rate);
            s[idx] = (int64_t)rng_below(&r, burst);
        }
    }
    free(order);

    a->slots = slots;
    a->ticks = tick_rate;
    a->sets = sets;
    a->len = len;
    return 0;
}

void lra_init_all(lra *a)
{
    *a = (lra){0};
    a->ticks = 1;
    a->sets = 1;
    a->len = 1;
}

void lra_free(lra *a)
{
    free(a->slots);
    *a = (lra){0};
}

uint64_t lra_time_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)getpid() << 32;
    return splitmix64(&x);
}
