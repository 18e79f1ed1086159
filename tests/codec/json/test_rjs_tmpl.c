/* rjs_tmpl_render on forms made by hand: each slot's number written in decimal as printf
 * writes it (unsigned, and signed with its '-'), at every width from 1 to 20 digits, after
 * pieces of text short and long, at the start and at the end of the text; the output fits its
 * exact length and not one byte less, and nothing is written past the room given. */
#include <inttypes.h>
#include <stdio.h>

#include "rjs_tmpl.h"
#include "testsupport.h"

#define CANARY 0xA5

/* The text of t with vals in its slots, as printf writes them, into want; returns its length. */
static size_t expected(const rjs_tmpl *t, const uint64_t *vals, char *want, size_t cap)
{
    size_t n = 0;
    uint32_t from = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const rjs_tmpl_slot *s = &t->slot[i];
        memcpy(want + n, t->text + from, s->at - from);
        n += s->at - from;
        from = s->at;
        uint64_t v = vals[s->value];
        n += (size_t)(s->sign ? snprintf(want + n, cap - n, "%" PRId64, (int64_t)v)
                              : snprintf(want + n, cap - n, "%" PRIu64, v));
    }
    memcpy(want + n, t->text + from, t->len - from);
    return n + t->len - from;
}

/* Renders t with vals into room of its widest, of its exact length and of one byte less,
 * checking the bytes and that nothing past the room changed. */
static void check(const rjs_tmpl *t, const uint64_t *vals)
{
    char want[512], got[512 + 64];
    size_t w = expected(t, vals, want, sizeof(want));
    size_t rooms[] = {rjs_tmpl_max_len(t), w, w - 1};
    for (int r = 0; r < 3; r++) {
        memset(got, CANARY, sizeof(got));
        size_t n = 0;
        int rc = rjs_tmpl_render(t, vals, got, rooms[r], &n);
        if (r == 2) {
            assert_int_equal(rc, RWF_E_NOSPACE);
        } else {
            assert_int_equal(rc, RWF_OK);
            ts_assert_bytes_equal(got, n, want, w);
        }
        for (size_t k = rooms[r]; k < sizeof(got); k++)
            if ((uint8_t)got[k] != CANARY)
                fail_msg("byte %zu written past a room of %zu", k, rooms[r]);
    }
}

/* The values of every width, both signs. */
static uint64_t value(int digits, int kind)
{
    uint64_t v = 1;
    for (int i = 1; i < digits; i++)
        v *= 10;
    switch (kind) {
    case 0: /* 10...0 */
        return digits == 1 ? 0 : v;
    case 1: /* 99...9 */
        return digits == 20 ? UINT64_MAX : v * 10 - 1;
    default: /* mixed digits */
        return v + (v / 7) * 3 + 1;
    }
}

static void test_widths(void **st)
{
    (void)st;
    /* a short key before the first slot, a long piece between, the last slot at the end */
    char text[] = "{\"ID\":,\"Fields\":{\"BID\":1.5,\"ASK\":2.25,\"TIM_TRK_1\":,\"X\":}}";
    rjs_tmpl t = {.text = text, .len = (uint32_t)strlen(text), .n = 3};
    t.slot[0] = (rjs_tmpl_slot){.at = 6, .value = 0, .sign = 1};
    t.slot[1] = (rjs_tmpl_slot){.at = (uint32_t)(strstr(text, "_1\":") - text) + 4, .value = 1};
    t.slot[2] = (rjs_tmpl_slot){.at = t.len - 2, .value = 2};
    for (int d = 1; d <= 20; d++)
        for (int k = 0; k < 3; k++) {
            uint64_t v = value(d, k);
            uint64_t vals[3] = {v, v, v};
            if (d <= 19)
                check(&t, vals);
            vals[0] = (uint64_t) - (int64_t)(v > INT64_MAX ? INT64_MAX : v);
            check(&t, vals);
        }
    uint64_t lows[3] = {(uint64_t)INT64_MIN, 0, 1};
    check(&t, lows);
}

/* Slots at the very start and end, next to each other, and a text shorter than 16 bytes. */
static void test_edges(void **st)
{
    (void)st;
    char a[] = ",";
    rjs_tmpl t = {.text = a, .len = 1, .n = 2};
    t.slot[0] = (rjs_tmpl_slot){.at = 0, .value = 0};
    t.slot[1] = (rjs_tmpl_slot){.at = 1, .value = 1, .sign = 1};
    uint64_t vals[2] = {12345, (uint64_t)-7};
    check(&t, vals);
    char b[] = "{\"ID\":}";
    rjs_tmpl u = {.text = b, .len = 7, .n = 1};
    u.slot[0] = (rjs_tmpl_slot){.at = 6, .value = 0, .sign = 1};
    for (int d = 1; d <= 19; d++) {
        uint64_t v = value(d, 2);
        check(&u, &v);
    }
    char c[] = "{\"A\":1,\"ID\":,\"Type\":\"Update\",\"Domain\":\"MarketPrice\"}";
    rjs_tmpl w = {.text = c, .len = (uint32_t)strlen(c), .n = 2};
    w.slot[0] = (rjs_tmpl_slot){.at = 12, .value = 0, .sign = 1};
    w.slot[1] = (rjs_tmpl_slot){.at = 12, .value = 1};
    uint64_t v2[2] = {42, 0};
    check(&w, v2);
    rjs_tmpl none = {.text = c, .len = (uint32_t)strlen(c), .n = 0};
    check(&none, v2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
