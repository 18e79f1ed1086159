/* rx_map: insert, replace, delete with colliding keys (backward shift), growth, and a random
 * sequence of operations checked against a plain array. */
#include "testsupport.h"

#include "rx_map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_basic(void **state)
{
    (void)state;
    rx_map m;
    assert_int_equal(rx_map_init(&m, 4), 0);
    int a = 1, b = 2, c = 3;
    assert_int_equal(rx_map_put(&m, 5, &a), 0);
    assert_int_equal(rx_map_put(&m, -7, &b), 0);
    assert_ptr_equal(rx_map_get(&m, 5), &a);
    assert_ptr_equal(rx_map_get(&m, -7), &b);
    assert_null(rx_map_get(&m, 6));
    assert_int_equal(rx_map_put(&m, 5, &c), 0); /* replace */
    assert_ptr_equal(rx_map_get(&m, 5), &c);
    assert_int_equal(m.n, 2);
    assert_ptr_equal(rx_map_del(&m, 5), &c);
    assert_null(rx_map_get(&m, 5));
    assert_null(rx_map_del(&m, 5));
    assert_int_equal(m.n, 1);
    rx_map_free(&m);
}

/* Keys that land in the same home slot: deleting the first must keep the others reachable. */
static void test_collisions(void **state)
{
    (void)state;
    rx_map m;
    assert_int_equal(rx_map_init(&m, 8), 0);
    uint32_t mask = m.cap - 1;
    int32_t keys[6];
    int nk = 0;
    uint32_t home = rx_map_hash(1) & mask;
    for (int32_t k = 1; nk < 6 && k < 1000000; k++)
        if ((rx_map_hash(k) & mask) == home)
            keys[nk++] = k;
    assert_int_equal(nk, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(rx_map_put(&m, keys[i], (void *)(intptr_t)(i + 1)), 0);
    /* The map grew meanwhile; delete in an order that exercises the shift. */
    for (int i = 0; i < 6; i += 2)
        assert_int_equal((intptr_t)rx_map_del(&m, keys[i]), i + 1);
    for (int i = 1; i < 6; i += 2)
        assert_int_equal((intptr_t)rx_map_get(&m, keys[i]), i + 1);
    rx_map_free(&m);
}

/* Dense ids (the watchlist's wire ids, the tools' ids): each at its home slot (no collision),
 * runs of 64 in consecutive slots; deleting all of them in order stays cheap (short clusters). */
static void test_dense(void **state)
{
    (void)state;
    enum { N = 100000 };
    rx_map m;
    assert_int_equal(rx_map_init(&m, N), 0);
    for (int32_t k = 3; k < N + 3; k++)
        assert_int_equal(rx_map_put(&m, k, (void *)(intptr_t)k), 0);
    uint32_t mask = m.cap - 1;
    for (int32_t k = 3; k < N + 3; k++) {
        uint32_t home = rx_map_hash(k) & mask;
        assert_int_equal(m.v[home].key, k);
        if ((k & 63) != 63)
            assert_int_equal((rx_map_hash(k + 1) & mask), home + 1);
    }
    for (int32_t k = 3; k < N + 3; k++)
        assert_int_equal((intptr_t)rx_map_del(&m, k), k);
    assert_int_equal(m.n, 0);
    rx_map_free(&m);
}

static void test_random(void **state)
{
    (void)state;
    enum { K = 5000 };
    static intptr_t ref[K];
    memset(ref, 0, sizeof(ref));
    rx_map m;
    assert_int_equal(rx_map_init(&m, 16), 0);
    srand(42);
    for (int op = 0; op < 400000; op++) {
        int k = rand() % K;
        int what = rand() % 3;
        if (what == 0) {
            intptr_t v = rand() + 1;
            assert_int_equal(rx_map_put(&m, k * 7 - 3000, (void *)v), 0);
            ref[k] = v;
        } else if (what == 1) {
            assert_int_equal((intptr_t)rx_map_del(&m, k * 7 - 3000), ref[k]);
            ref[k] = 0;
        } else {
            assert_int_equal((intptr_t)rx_map_get(&m, k * 7 - 3000), ref[k]);
        }
    }
    uint32_t live = 0;
    for (int k = 0; k < K; k++)
        live += ref[k] != 0;
    assert_int_equal(m.n, live);
    rx_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
