/*
 * bench_lat: what the measuring machinery itself costs.
 *
 *   bench_lat [rounds]      (default 5; the best round of each is printed)
 *
 * Prints ns per: clock read (clk_ns, clk_us), lat_record (varied values, so that different
 * buckets are touched), tick_poll + tick_burst (a schedule whose tick is always due),
 * lra_next, latring push + pop, counter_add; and µs per lat_summary / lat_merge / lat_reset
 * of a full recorder. The machine may be shared: run it more than once and keep the best.
 */
#include "clk.h"
#include "counter.h"
#include "lat.h"
#include "latring.h"
#include "lra.h"
#include "tick.h"

#include <stdio.h>
#include <stdlib.h>

static volatile int64_t sink;

typedef double (*bench_fn)(void);

static double best_of(bench_fn fn, int rounds)
{
    double best = 1e300;
    for (int i = 0; i < rounds; i++) {
        double v = fn();
        if (v < best)
            best = v;
    }
    return best;
}

enum { READS = 2000000, RECORDS = 20000000, VALUES = 4096 };

static double bench_clk_ns(void)
{
    int64_t acc = 0;
    int64_t t0 = clk_ns();
    for (int i = 0; i < READS; i++)
        acc += clk_ns();
    int64_t t1 = clk_ns();
    sink = acc;
    return (double)(t1 - t0) / READS;
}

static double bench_clk_us(void)
{
    int64_t acc = 0;
    int64_t t0 = clk_ns();
    for (int i = 0; i < READS; i++)
        acc += clk_us();
    int64_t t1 = clk_ns();
    sink = acc;
    return (double)(t1 - t0) / READS;
}

static int64_t values[VALUES];
static lat *rec;

static double bench_record(void)
{
    lat_reset(rec);
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS; i++)
        lat_record(rec, values[i & (VALUES - 1)]);
    int64_t t1 = clk_ns();
    sink = (int64_t)rec->count;
    return (double)(t1 - t0) / RECORDS;
}

static double bench_tick(void)
{
    tick t;
    tick_init(&t, 1000, 0);
    uint64_t acc = 0;
    int64_t now = INT64_C(1) << 60; /* every tick is due */
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS; i++) {
        if (tick_poll(&t, now))
            acc += tick_burst(&t, 100001) + (uint64_t)tick_deadline(&t);
    }
    int64_t t1 = clk_ns();
    sink = (int64_t)acc;
    return (double)(t1 - t0) / RECORDS;
}

static double bench_tick_idle(void)
{
    tick t;
    tick_init(&t, 1000, INT64_C(1) << 60); /* never due: the loop's "not yet" path */
    uint64_t acc = 0;
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS; i++)
        acc += tick_poll(&t, i) ? 1 : (uint64_t)tick_wait_ns(&t, i);
    int64_t t1 = clk_ns();
    sink = (int64_t)acc;
    return (double)(t1 - t0) / RECORDS;
}

static lra array;

static double bench_lra(void)
{
    lra_iter it;
    lra_iter_init(&it, &array);
    int64_t acc = 0;
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS; i++)
        acc += lra_next(&it);
    int64_t t1 = clk_ns();
    sink = acc;
    return (double)(t1 - t0) / RECORDS;
}

static latring ring;

static double bench_ring(void)
{
    latring_sample out[64];
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS / 64; i++) {
        for (int j = 0; j < 64; j++)
            latring_push(&ring, 1, i, j);
        latring_pop(&ring, out, 64);
    }
    int64_t t1 = clk_ns();
    sink = out[63].recv;
    return (double)(t1 - t0) / (RECORDS / 64 * 64);
}

static counter ctr;

static double bench_counter(void)
{
    int64_t t0 = clk_ns();
    for (int i = 0; i < RECORDS; i++)
        counter_add(&ctr, (uint64_t)i);
    int64_t t1 = clk_ns();
    sink = (int64_t)counter_total(&ctr);
    return (double)(t1 - t0) / RECORDS;
}

static double bench_summary(void)
{
    stat_lat s;
    int64_t t0 = clk_ns();
    for (int i = 0; i < 100; i++)
        lat_summary(rec, &s);
    int64_t t1 = clk_ns();
    sink = (int64_t)s.p99;
    return (double)(t1 - t0) / 100 / 1000;
}

static lat *other;

static double bench_merge(void)
{
    int64_t t0 = clk_ns();
    for (int i = 0; i < 100; i++)
        lat_merge(other, rec);
    int64_t t1 = clk_ns();
    sink = (int64_t)other->count;
    return (double)(t1 - t0) / 100 / 1000;
}

static double bench_reset(void)
{
    int64_t t0 = clk_ns();
    for (int i = 0; i < 100; i++)
        lat_reset(other);
    int64_t t1 = clk_ns();
    sink = (int64_t)other->count;
    return (double)(t1 - t0) / 100 / 1000;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1)
        rounds = 1;

    /* Latencies as a loaded link gives them: mostly tens of us, a tail to tens of ms. */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < VALUES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        values[i] = 5000 + (int64_t)(x % 50000) + (i % 100 == 0 ? (int64_t)(x % 20000000) : 0);
    }
    rec = malloc(sizeof(lat));
    other = malloc(sizeof(lat));
    lat_reset(rec);
    lat_reset(other);
    lra_init(&array, 100000, 10, 1000, LRA_SETS, 1);
    latring_init(&ring, 1024);
    counter_init(&ctr);

    clk_cal cal;
    clk_calibrate(&cal);
    char text[200];
    clk_cal_text(&cal, text, sizeof(text));
    printf("clock calibration: %s\n", text);
    printf("best of %d rounds:\n", rounds);
    printf("  clk_ns                 %7.2f ns/call\n", best_of(bench_clk_ns, rounds));
    printf("  clk_us                 %7.2f ns/call\n", best_of(bench_clk_us, rounds));
    printf("  lat_record             %7.2f ns/record\n", best_of(bench_record, rounds));
    printf("  tick_poll+burst (due)  %7.2f ns/call\n", best_of(bench_tick, rounds));
    printf("  tick_poll+wait (idle)  %7.2f ns/call\n", best_of(bench_tick_idle, rounds));
    printf("  lra_next               %7.2f ns/call\n", best_of(bench_lra, rounds));
    printf("  latring push+pop       %7.2f ns/sample\n", best_of(bench_ring, rounds));
    printf("  counter_add            %7.2f ns/call\n", best_of(bench_counter, rounds));
    printf("  lat_summary            %7.2f us/call\n", best_of(bench_summary, rounds));
    printf("  lat_merge              %7.2f us/call\n", best_of(bench_merge, rounds));
    printf("  lat_reset              %7.2f us/call\n", best_of(bench_reset, rounds));

    lra_free(&array);
    latring_free(&ring);
    free(rec);
    free(other);
    return 0;
}
