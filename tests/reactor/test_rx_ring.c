/* rx_ring: records, padding at the wrap, the full ring, and two threads moving a million
 * records of varying sizes through a small ring (every byte checked, order kept). */
#include "testsupport.h"

#include "rx_ring.h"

#include <pthread.h>
#include <string.h>

static void test_basic(void **state)
{
    (void)state;
    rx_ring r;
    assert_int_equal(rx_ring_init(&r, 1000), 0);
    assert_int_equal(r.cap, 4096);
    assert_null(rx_ring_peek(&r));
    rx_rec *rec = rx_ring_reserve(&r, RX_REC_HDR + 5);
    if (!rec) {
        fail_msg("no room");
        return;
    }
    memcpy(rx_rec_data(rec), "hello", 5);
    rec->ptr = &r;
    rec->epoch = 7;
    rx_ring_commit(&r, rec, 3, 5);
    assert_null(rx_ring_peek(&r)); /* committed, not published */
    assert_int_equal(rx_ring_unpublished(&r), 32);
    rx_ring_publish(&r);
    rx_rec *got = rx_ring_peek(&r);
    assert_non_null(got);
    assert_int_equal(got->type, 3);
    assert_int_equal(got->len, 5);
    assert_int_equal(got->size, 32);
    assert_int_equal(got->epoch, 7);
    assert_ptr_equal(got->ptr, &r);
    assert_memory_equal(rx_rec_data(got), "hello", 5);
    assert_true(rx_ring_pending(&r));
    rx_ring_consume(&r, got);
    assert_false(rx_ring_pending(&r));
    rx_ring_release(&r);
    assert_null(rx_ring_peek(&r));
    rx_ring_free(&r);
}

static void test_full_and_wrap(void **state)
{
    (void)state;
    rx_ring r;
    assert_int_equal(rx_ring_init(&r, 4096), 0);
    /* Larger than half the ring: refused. */
    assert_null(rx_ring_reserve(&r, 2049));
    /* Fill with 1000-byte records: 4 fit (4 x 1000 rounded to 1000 = 4000 <= 4096). */
    int n = 0;
    rx_rec *rec;
    while ((rec = rx_ring_reserve(&r, 1000))) {
        memset(rx_rec_data(rec), n, 1000 - RX_REC_HDR);
        rx_ring_commit(&r, rec, 1, 1000 - RX_REC_HDR);
        n++;
    }
    assert_int_equal(n, 4);
    rx_ring_publish(&r);
    /* Free two: the next record needs 1000 contiguous bytes; 96 are left at the end, so a pad
     * fills them and the record starts at offset 0. */
    for (int i = 0; i < 2; i++) {
        rx_rec *g = rx_ring_peek(&r);
        assert_int_equal(((uint8_t *)rx_rec_data(g))[0], i);
        rx_ring_consume(&r, g);
    }
    rx_ring_release(&r);
    rec = rx_ring_reserve(&r, 1000);
    if (!rec) {
        fail_msg("no room");
        return;
    }
    assert_ptr_equal((void *)rec, (void *)r.buf);
    memset(rx_rec_data(rec), 9, 1000 - RX_REC_HDR);
    rx_ring_commit(&r, rec, 1, 1000 - RX_REC_HDR);
    rx_ring_publish(&r);
    int want[] = {2, 3, 9};
    for (int i = 0; i < 3; i++) {
        rx_rec *g = rx_ring_peek(&r);
        assert_non_null(g);
        assert_int_equal(g->type, 1);
        assert_int_equal(((uint8_t *)rx_rec_data(g))[0], want[i]);
        rx_ring_consume(&r, g);
    }
    assert_null(rx_ring_peek(&r));
    rx_ring_free(&r);
}

/* Records through an 8 KiB ring (some 50 at a time): a million wrap it some 20,000 times. Under
 * a sanitizer, which slows both spinning threads ten to fifty times (two minutes under TSan on
 * a loaded 2-core machine), 100,000 still wrap it some 2,000 times. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define STRESS_N 100000
#else
#define STRESS_N 1000000
#endif

static void *producer(void *arg)
{
    rx_ring *r = arg;
    uint32_t seed = 1;
    for (uint32_t i = 0; i < STRESS_N;) {
        uint32_t next = seed * 1103515245u + 12345u;
        uint32_t len = 4 + (next >> 16) % 300;
        rx_rec *rec = rx_ring_reserve(r, RX_REC_HDR + len);
        if (!rec) {
            rx_ring_publish(r);
            continue; /* the consumer frees room */
        }
        seed = next;
        uint8_t *p = (uint8_t *)(rx_rec_data(rec));
        memcpy(p, &i, 4);
        for (uint32_t k = 4; k < len; k++)
            p[k] = (uint8_t)(i + k);
        rx_ring_commit(r, rec, 2, len);
        if (++i % 16 == 0)
            rx_ring_publish(r);
    }
    rx_ring_publish(r);
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    rx_ring r;
    assert_int_equal(rx_ring_init(&r, 8192), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, producer, &r), 0);
    uint32_t seed = 1;
    for (uint32_t i = 0; i < STRESS_N;) {
        rx_rec *rec = rx_ring_peek(&r);
        if (!rec)
            continue;
        seed = seed * 1103515245u + 12345u;
        uint32_t len = 4 + (seed >> 16) % 300;
        assert_int_equal(rec->type, 2);
        assert_int_equal(rec->len, len);
        const uint8_t *p = (const uint8_t *)(rx_rec_data(rec));
        uint32_t seq;
        memcpy(&seq, p, 4);
        assert_int_equal(seq, i);
        for (uint32_t k = 4; k < len; k++)
            if (p[k] != (uint8_t)(i + k))
                fail_msg("record %u byte %u", i, k);
        rx_ring_consume(&r, rec);
        if (++i % 8 == 0)
            rx_ring_release(&r);
    }
    rx_ring_release(&r);
    pthread_join(t, NULL);
    assert_null(rx_ring_peek(&r));
    rx_ring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_full_and_wrap),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
