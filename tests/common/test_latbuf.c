/* The worker-to-main hand-off of latency recorders. The threaded tests are meant to run
 * under ThreadSanitizer (label "threads"): any unordered access between the worker's records
 * and the main thread's reads is reported there as a race. */
#include "testsupport.h"

#include "clk.h"
#include "counter.h"
#include "latbuf.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* Both sides in one thread, step by step: who holds which set when. */
static void test_sequence(void **state)
{
    (void)state;
    latbuf b;
    assert_int_equal(latbuf_init(&b, 2), 0);
    assert_null(latbuf_take(&b)); /* nothing asked yet */

    lat *cur = latbuf_cur(&b);
    lat_record(&cur[0], 100);
    lat_record(&cur[1], 200);

    latbuf_request(&b);
    assert_null(latbuf_take(&b)); /* the worker has not polled */
    latbuf_request(&b);           /* still pending: no second request */
    assert_true(latbuf_poll(&b));
    assert_false(latbuf_poll(&b));

    const lat *iv = latbuf_take(&b);
    assert_non_null(iv);
    assert_int_equal(iv[0].count, 1);
    assert_int_equal(iv[0].max, 100);
    assert_int_equal(iv[1].count, 1);
    assert_int_equal(iv[1].max, 200);
    assert_ptr_equal(latbuf_take(&b), iv); /* stays until the next request */

    cur = latbuf_cur(&b); /* the other set, empty */
    assert_ptr_not_equal(cur, iv);
    assert_int_equal(cur[0].count, 0);
    lat_record(&cur[0], 300);

    latbuf_request(&b); /* empties iv, which the worker gets next */
    assert_int_equal(iv[0].count, 0);
    assert_true(latbuf_poll(&b));
    const lat *iv2 = latbuf_take(&b);
    assert_ptr_equal(iv2, cur);
    assert_int_equal(iv2[0].count, 1);
    assert_int_equal(iv2[0].max, 300);
    assert_ptr_equal(latbuf_cur(&b), iv);

    /* The worker records more and leaves without polling again. */
    lat_record(&latbuf_cur(&b)[1], 400);
    latbuf_close(&b);
    assert_false(latbuf_done(&b));
    const lat *last = latbuf_collect(&b, 1000000);
    assert_non_null(last);
    assert_true(latbuf_done(&b));
    assert_int_equal(last[1].count, 1);
    assert_int_equal(last[1].max, 400);
    assert_int_equal(last[0].count, 0);

    /* After that, intervals are empty. */
    const lat *empty = latbuf_collect(&b, 1000000);
    assert_non_null(empty);
    assert_int_equal(empty[0].count + empty[1].count, 0);
    latbuf_free(&b);
}

/* The worker closes after acknowledging a request: its last set still arrives. */
static void test_close_after_ack(void **state)
{
    (void)state;
    latbuf b;
    assert_int_equal(latbuf_init(&b, 1), 0);
    lat_record(&latbuf_cur(&b)[0], 1);
    latbuf_request(&b);
    latbuf_poll(&b);
    assert_int_equal(latbuf_take(&b)[0].count, 1);
    lat_record(&latbuf_cur(&b)[0], 2);
    lat_record(&latbuf_cur(&b)[0], 3);
    latbuf_close(&b);
    const lat *last = latbuf_collect(&b, 1000000);
    assert_non_null(last);
    assert_int_equal(last[0].count, 2);
    assert_int_equal(last[0].min, 2);
    latbuf_free(&b);
}

enum { KINDS = 2, WORKER_SAMPLES = 400000 };

typedef struct worker {
    latbuf b;
    counter sent;
    _Atomic int go;
    _Atomic int hold;      /* test_timeout: the worker stops polling while set */
    _Atomic int collected; /* test_handoff: the main thread has taken an interval */
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    while (!atomic_load(&w->go))
        ;
    for (int i = 1; i <= WORKER_SAMPLES; i++) {
        lat *cur = latbuf_cur(&w->b);
        lat_record(&cur[0], i);
        lat_record(&cur[1], 2 * (int64_t)i);
        counter_inc(&w->sent);
        if (i % 64 == 0) /* a "tick boundary" */
            latbuf_poll(&w->b);
        /* Halfway, the worker keeps polling until the main thread has taken an interval, so
         * that at least two hand-overs happen however the threads are scheduled. */
        while (i == WORKER_SAMPLES / 2 && !atomic_load(&w->collected))
            latbuf_poll(&w->b);
    }
    latbuf_close(&w->b);
    return NULL;
}

/* A worker records continuously while the main thread takes intervals as fast as it can: the
 * intervals add up to exactly what was recorded, and nothing is read while being written. */
static void test_threads_handoff(void **state)
{
    (void)state;
    static worker w;
    memset(&w, 0, sizeof(w));
    assert_int_equal(latbuf_init(&w.b, KINDS), 0);
    counter_init(&w.sent);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker_main, &w), 0);
    atomic_store(&w.go, 1);

    static lat total[KINDS];
    for (int k = 0; k < KINDS; k++)
        lat_reset(&total[k]);
    int intervals = 0, timeouts = 0;
    uint64_t sent = 0;
    while (!latbuf_done(&w.b)) {
        const lat *iv = latbuf_collect(&w.b, 5 * 1000000);
        if (!iv) {
            timeouts++;
            continue;
        }
        for (int k = 0; k < KINDS; k++)
            lat_merge(&total[k], &iv[k]);
        sent += counter_change(&w.sent);
        intervals++;
        atomic_store(&w.collected, 1);
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    pthread_join(th, NULL);
    sent += counter_change(&w.sent);

    print_message("%d intervals, %d timeouts\n", intervals, timeouts);
    assert_true(intervals >= 2);
    assert_int_equal(sent, WORKER_SAMPLES);
    for (int k = 0; k < KINDS; k++) {
        int64_t mult = k + 1;
        assert_int_equal(total[k].count, WORKER_SAMPLES);
        assert_int_equal(total[k].min, mult);
        assert_int_equal(total[k].max, mult * WORKER_SAMPLES);
        double want_mean = mult * (WORKER_SAMPLES + 1) / 2.0;
        assert_true(fabs(total[k].mean - want_mean) < 1e-6 * want_mean);
        uint64_t in_hist = 0;
        for (uint32_t i = 0; i < LAT_BUCKETS; i++)
            in_hist += total[k].hist[i];
        assert_int_equal(in_hist, WORKER_SAMPLES);
    }
    latbuf_free(&w.b);
}

static void *slow_worker_main(void *arg)
{
    worker *w = arg;
    lat_record(&latbuf_cur(&w->b)[0], 7);
    atomic_store(&w->go, 1);
    while (atomic_load(&w->hold)) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    while (!latbuf_poll(&w->b)) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    lat_record(&latbuf_cur(&w->b)[0], 8);
    latbuf_close(&w->b);
    return NULL;
}

/* A worker that does not poll: the main thread's collect times out and returns NULL; the
 * request stands, and the samples arrive at the next collect. */
static void test_threads_timeout(void **state)
{
    (void)state;
    static worker w;
    memset(&w, 0, sizeof(w));
    assert_int_equal(latbuf_init(&w.b, 1), 0);
    atomic_store(&w.hold, 1);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, slow_worker_main, &w), 0);
    while (!atomic_load(&w.go))
        ;
    assert_null(latbuf_collect(&w.b, 2 * 1000000));
    atomic_store(&w.hold, 0);
    const lat *iv = latbuf_collect(&w.b, 10 * CLK_NS_PER_SEC);
    assert_non_null(iv);
    assert_int_equal(iv[0].count, 1);
    assert_int_equal(iv[0].max, 7);
    pthread_join(th, NULL);
    iv = latbuf_collect(&w.b, CLK_NS_PER_SEC);
    assert_non_null(iv);
    assert_int_equal(iv[0].count, 1);
    assert_int_equal(iv[0].max, 8);
    latbuf_free(&w.b);
}

static void *ack_then_close_main(void *arg)
{
    worker *w = arg;
    lat_record(&latbuf_cur(&w->b)[0], 42);
    atomic_store(&w->go, 1);
    while (!latbuf_poll(&w->b))
        sched_yield();
    latbuf_close(&w->b);
    return NULL;
}

/* A worker that acknowledges a request and closes at once, while the main thread is inside
 * latbuf_take: whatever the interleaving, the set it handed over (holding its one sample) is
 * the one the main thread gets, and the next interval is empty. Many rounds, so that the
 * acknowledgement and the close land between the main thread's loads in some of them. */
static void test_threads_ack_then_close(void **state)
{
    (void)state;
    static worker w;
    for (int round = 0; round < 200; round++) {
        memset(&w, 0, sizeof(w));
        assert_int_equal(latbuf_init(&w.b, 1), 0);
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, ack_then_close_main, &w), 0);
        while (!atomic_load(&w.go))
            sched_yield();
        latbuf_request(&w.b);
        const lat *iv;
        while (!(iv = latbuf_take(&w.b)))
            ;
        if (iv[0].count != 1 || iv[0].max != 42)
            fail_msg("round %d: the interval holds %llu samples, expected the worker's one", round,
                     (unsigned long long)iv[0].count);
        pthread_join(th, NULL);
        iv = latbuf_collect(&w.b, CLK_NS_PER_SEC);
        assert_non_null(iv);
        assert_int_equal(iv[0].count, 0);
        assert_true(latbuf_done(&w.b));
        latbuf_free(&w.b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence),
        cmocka_unit_test(test_close_after_ack),
        cmocka_unit_test(test_threads_handoff),
        cmocka_unit_test(test_threads_timeout),
        cmocka_unit_test(test_threads_ack_then_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
