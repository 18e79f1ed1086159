/*
 * pv_items: lookups by stream and key (with the ETA key comparison rules), the refresh queue,
 * the update ring's order (the ETA provider's), removal anywhere, growth, and a randomised run
 * checked against a plain model.
 */
#include "testsupport.h"

#include "pv_items.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pv_key name_key(const char *name, uint16_t service)
{
    pv_key k;
    memset(&k, 0, sizeof(k));
    k.flags = PV_KEY_NAME | PV_KEY_SERVICE_ID;
    k.name = (const uint8_t *)name;
    k.name_len = (uint16_t)strlen(name);
    k.service_id = service;
    return k;
}

static uint32_t add(pv_items *t, int32_t sid, const char *name)
{
    pv_key k = name_key(name, 1);
    uint32_t i;
    assert_int_equal(pv_items_add(t, sid, 6, &k, PV_ITEM_STREAMING, &i), 0);
    return i;
}

static void test_lookup(void **state)
{
    (void)state;
    pv_items t;
    assert_int_equal(pv_items_init(&t, 4), 0);
    uint32_t a = add(&t, 5, "RDT1"), b = add(&t, 6, "RDT2");
    assert_int_equal(t.count, 2);
    assert_int_equal(pv_items_find_stream(&t, 5), a);
    assert_int_equal(pv_items_find_stream(&t, 6), b);
    assert_int_equal(pv_items_find_stream(&t, 7), PV_NONE);

    pv_key k = name_key("RDT2", 1);
    assert_int_equal(pv_items_find_key(&t, 6, &k), b);
    assert_int_equal(pv_items_find_key(&t, 7, &k), PV_NONE); /* other domain */
    k.service_id = 2;
    assert_int_equal(pv_items_find_key(&t, 6, &k), PV_NONE);
    /* Name type 1 equals an absent name type; another name type does not. */
    k = name_key("RDT2", 1);
    k.flags |= PV_KEY_NAME_TYPE;
    k.name_type = 1;
    assert_int_equal(pv_items_find_key(&t, 6, &k), b);
    k.name_type = 2;
    assert_int_equal(pv_items_find_key(&t, 6, &k), PV_NONE);
    /* A key without the service id flag differs. */
    k = name_key("RDT2", 1);
    k.flags &= (uint8_t)~PV_KEY_SERVICE_ID;
    assert_int_equal(pv_items_find_key(&t, 6, &k), PV_NONE);

    /* The stored key is a copy. */
    char name[] = "RDT9";
    k = name_key(name, 1);
    uint32_t c;
    assert_int_equal(pv_items_add(&t, 9, 6, &k, 0, &c), 0);
    name[3] = '8';
    const pv_key *kc = pv_items_key(&t, c);
    assert_int_equal(kc->name_len, 4);
    assert_memory_equal(kc->name, "RDT9", 4);
    pv_items_free(&t);
}

static void test_attrib_key(void **state)
{
    (void)state;
    pv_items t;
    assert_int_equal(pv_items_init(&t, 4), 0);
    static const uint8_t attrib[] = {0x08, 0x00, 0x00};
    pv_key k = name_key("X", 1);
    k.flags |= PV_KEY_ATTRIB | PV_KEY_FILTER | PV_KEY_IDENTIFIER;
    k.attrib = attrib;
    k.attrib_len = sizeof(attrib);
    k.attrib_type = 133;
    k.filter = 7;
    k.identifier = -3;
    uint32_t i;
    assert_int_equal(pv_items_add(&t, 5, 6, &k, 0, &i), 0);
    assert_int_equal(pv_items_find_key(&t, 6, &k), i);
    pv_key k2 = k;
    k2.attrib_type = 132;
    assert_int_equal(pv_items_find_key(&t, 6, &k2), PV_NONE);
    k2 = k;
    k2.filter = 3;
    assert_int_equal(pv_items_find_key(&t, 6, &k2), PV_NONE);
    k2 = k;
    k2.identifier = 3;
    assert_int_equal(pv_items_find_key(&t, 6, &k2), PV_NONE);
    assert_memory_equal(pv_items_key(&t, i)->attrib, attrib, sizeof(attrib));
    pv_items_free(&t);
}

/* Items 1..5 refreshed in order get their updates as the ETA provider sends them: 2, 3, 4, 5,
 * 1, 2, ... (the order seen in the consprov_default capture: streams 6, 7, 8, 9, 5). */
static void test_update_order(void **state)
{
    (void)state;
    pv_items t;
    assert_int_equal(pv_items_init(&t, 4), 0);
    uint32_t idx[5];
    char name[8];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        idx[i] = add(&t, 5 + i, name);
    }
    assert_int_equal(t.refresh.count, 5);
    assert_int_equal(pv_items_next_update(&t), PV_NONE);
    for (int i = 0; i < 5; i++) {
        uint32_t h = pv_items_refresh_head(&t);
        assert_int_equal(h, idx[i]);
        pv_items_to_update(&t, h);
    }
    assert_int_equal(pv_items_refresh_head(&t), PV_NONE);
    const int32_t want[] = {6, 7, 8, 9, 5, 6, 7, 8, 9, 5, 6};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, want[i]);
    /* The cursor is on stream 6 now; removing it makes 7 the next. */
    pv_items_remove(&t, idx[1]);
    assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, 7);
    /* A reissue goes back to the refresh queue and leaves the ring. */
    pv_items_to_refresh(&t, idx[2]);
    assert_int_equal(t.update.count, 3);
    assert_int_equal(pv_items_refresh_head(&t), idx[2]);
    assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, 8);
    assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, 9);
    assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, 5);
    assert_int_equal(pv_items_at(&t, pv_items_next_update(&t))->stream_id, 8);
    /* Remove everything: the ring ends empty. */
    pv_items_remove(&t, idx[0]);
    pv_items_remove(&t, idx[3]);
    pv_items_remove(&t, idx[4]);
    assert_int_equal(pv_items_next_update(&t), PV_NONE);
    assert_int_equal(t.count, 1);
    /* Removed slots are reused. */
    uint32_t r = add(&t, 50, "again");
    assert_true(r == idx[0] || r == idx[1] || r == idx[3] || r == idx[4]);
    pv_items_free(&t);
}

/* Random adds, removes and list moves against a plain model; the table grows from 16 slots. */
static void test_random(void **state)
{
    (void)state;
    enum { N = 3000 };
    static bool open[N];
    static uint32_t where[N];
    memset(open, 0, sizeof(open));
    pv_items t;
    assert_int_equal(pv_items_init(&t, 1), 0);
    unsigned seed = 7;
    uint32_t count = 0;
    char name[16];
    for (int round = 0; round < 200000; round++) {
        int s = (int)(rand_r(&seed) % N);
        int op = (int)(rand_r(&seed) % 4);
        snprintf(name, sizeof(name), "I%d", s);
        pv_key k = name_key(name, 1);
        if (!open[s]) {
            assert_int_equal(pv_items_find_stream(&t, s + 5), PV_NONE);
            assert_int_equal(pv_items_find_key(&t, 6, &k), PV_NONE);
            assert_int_equal(pv_items_add(&t, s + 5, 6, &k, 0, &where[s]), 0);
            open[s] = true;
            count++;
        } else if (op == 0) {
            assert_int_equal(pv_items_find_stream(&t, s + 5), where[s]);
            assert_int_equal(pv_items_find_key(&t, 6, &k), where[s]);
            pv_items_remove(&t, where[s]);
            open[s] = false;
            count--;
        } else if (op == 1) {
            pv_items_to_update(&t, where[s]);
        } else if (op == 2) {
            pv_items_to_refresh(&t, where[s]);
        } else {
            uint32_t i = pv_items_next_update(&t);
            if (t.update.count)
                assert_int_equal(pv_items_at(&t, i)->list, PV_LIST_UPDATE);
            else
                assert_int_equal(i, PV_NONE);
        }
        assert_int_equal(t.count, count);
        assert_int_equal(t.refresh.count + t.update.count, count);
    }
    /* Every open item is found; the update ring is a cycle of update.count items. */
    for (int s = 0; s < N; s++)
        if (open[s])
            assert_int_equal(pv_items_find_stream(&t, s + 5), where[s]);
    uint32_t first = pv_items_next_update(&t), n = 1;
    if (first != PV_NONE) {
        while (pv_items_next_update(&t) != first)
            n++;
        assert_int_equal(n, t.update.count);
    }
    pv_items_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_attrib_key),
        cmocka_unit_test(test_update_order),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
