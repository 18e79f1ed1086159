/* The raw-sample ring and the per-thread counters, alone and between two threads (label
 * "threads": run under ThreadSanitizer too). */
#include "testsupport.h"

#include "counter.h"
#include "latring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void test_capacity(void **state)
{
    (void)state;
    latring r;
    assert_int_equal(latring_init(&r, 0), 0);
    assert_int_equal(latring_capacity(&r), 2);
    latring_free(&r);
    assert_int_equal(latring_init(&r, 1000), 0);
    assert_int_equal(latring_capacity(&r), 1024);
    latring_free(&r);
    assert_int_equal(latring_init(&r, 1024), 0);
    assert_int_equal(latring_capacity(&r), 1024);
    latring_free(&r);
    assert_int_equal(latring_init(&r, ((size_t)1 << 30) + 1), -1);
}

/* Fill, overflow (counted, not blocking), drain in pieces, wrap around many times. */
static void test_full_and_wrap(void **state)
{
    (void)state;
    latring r;
    assert_int_equal(latring_init(&r, 8), 0);
    latring_sample out[16];
    assert_int_equal(latring_pop(&r, out, 16), 0);
    for (int i = 0; i < 8; i++)
        assert_true(latring_push(&r, 1, i, 100 + i));
    assert_false(latring_push(&r, 1, 8, 108));
    assert_false(latring_push(&r, 1, 9, 109));
    assert_int_equal(latring_dropped(&r), 2);
    assert_int_equal(latring_pop(&r, out, 3), 3);
    assert_int_equal(out[0].send, 0);
    assert_int_equal(out[2].recv, 102);
    assert_true(latring_push(&r, 2, 10, 110));
    assert_int_equal(latring_pop(&r, out, 16), 6);
    assert_int_equal(out[0].send, 3);
    assert_int_equal(out[4].send, 7);
    assert_int_equal(out[5].send, 10);
    assert_int_equal(out[5].type, 2);

    int64_t next_push = 0, next_pop = 0;
    for (int round = 0; round < 1000; round++) {
        int n = 1 + round % 8;
        for (int i = 0; i < n; i++)
            assert_true(latring_push(&r, 3, next_push, next_push * 2)), next_push++;
        size_t got = latring_pop(&r, out, 16);
        assert_int_equal(got, n);
        for (size_t i = 0; i < got; i++) {
            assert_int_equal(out[i].send, next_pop);
            assert_int_equal(out[i].recv, 2 * next_pop);
            next_pop++;
        }
    }
    assert_int_equal(latring_dropped(&r), 2);
    latring_free(&r);
}

enum { RING_SAMPLES = 300000 };

typedef struct pc {
    latring r;
    counter pushed;
    _Atomic int done;
} pc;

static void *producer(void *arg)
{
    pc *p = arg;
    for (int64_t i = 0; i < RING_SAMPLES; i++) {
        latring_push(&p->r, (uint32_t)(i % 3), i, i + 1000);
        counter_inc(&p->pushed);
    }
    atomic_store_explicit(&p->done, 1, memory_order_release);
    return NULL;
}

/* One producer, one consumer: every sample arrives once, in order, intact, or is counted as
 * dropped; received + dropped = pushed. */
static void test_threads_spsc(void **state)
{
    (void)state;
    static pc p;
    memset(&p, 0, sizeof(p));
    assert_int_equal(latring_init(&p.r, 4096), 0);
    counter_init(&p.pushed);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer, &p), 0);

    latring_sample out[512];
    uint64_t got = 0, seen_pushed = 0;
    int64_t last = -1;
    for (;;) {
        int done = atomic_load_explicit(&p.done, memory_order_acquire);
        size_t n;
        while ((n = latring_pop(&p.r, out, 512)) > 0) {
            for (size_t i = 0; i < n; i++) {
                assert_true(out[i].send > last);
                assert_int_equal(out[i].recv, out[i].send + 1000);
                assert_int_equal(out[i].type, (uint32_t)(out[i].send % 3));
                last = out[i].send;
            }
            got += n;
        }
        seen_pushed += counter_change(&p.pushed);
        if (done)
            break;
        struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
    pthread_join(th, NULL);
    seen_pushed += counter_change(&p.pushed);
    uint64_t dropped = latring_dropped(&p.r);
    print_message("received %llu, dropped %llu\n", (unsigned long long)got,
                  (unsigned long long)dropped);
    assert_int_equal(seen_pushed, RING_SAMPLES);
    assert_int_equal(got + dropped, RING_SAMPLES);
    assert_true(got >= 4096);
    latring_free(&p.r);
}

static void test_counter(void **state)
{
    (void)state;
    counter c;
    counter_init(&c);
    assert_int_equal(counter_change(&c), 0);
    counter_inc(&c);
    counter_add(&c, 41);
    assert_int_equal(counter_total(&c), 42);
    assert_int_equal(counter_change(&c), 42);
    assert_int_equal(counter_change(&c), 0);
    counter_add(&c, 8);
    assert_int_equal(counter_change(&c), 8);
    assert_int_equal(counter_total(&c), 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_full_and_wrap),
        cmocka_unit_test(test_threads_spsc),
        cmocka_unit_test(test_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
