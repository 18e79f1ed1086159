/*
 * The converter's hot path allocates nothing: the program replaces malloc, calloc and realloc
 * (glibc lets a program do so) with counting versions, and converts the captured MarketPrice
 * updates and refresh both ways, a frame of several messages, a ping, and bad input (errors
 * too are reported without allocating). Under a sanitizer, which owns malloc, the test skips.
 */
#include "rjs_test.h"

#include <stdlib.h>

#include "rjs_golden.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RJS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RJS_SANITIZED 1
#endif
#endif

static unsigned long allocs;

#ifndef RJS_SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
    allocs++;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    allocs++;
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    allocs++;
    return __libc_realloc(p, n);
}
#endif

static int setup(void **state)
{
    (void)state;
    return (dict = load_dict()) && make_convs() == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free_all();
    return 0;
}

/* Both ways for text, 100 times, with converter c; returns the allocations made. */
static RJS_UNUSED unsigned long both_ways(const rjs_conv *c, const char *text)
{
    size_t n = strlen(text), len = 0, jl;
    assert_int_equal(rjs_json_to_msg(c, text, n, rwf1, sizeof(rwf1), &len), RJS_MSG);
    unsigned long before = allocs;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(rjs_json_to_msg(c, text, n, rwf1, sizeof(rwf1), &len), RJS_MSG);
        jl = 0;
        assert_int_equal(rjs_msg_to_json(c, rwf_buf_make(rwf1, len), json, sizeof(json), &jl),
                         RWF_OK);
    }
    return allocs - before;
}

static void test_no_allocation(void **state)
{
    (void)state;
#ifndef RJS_SANITIZED
    /* the counter works */
    unsigned long before = allocs;
    void *volatile p = malloc(16); /* volatile: the pair is not optimised away */
    free(p);
    assert_int_equal(allocs - before, 1);

    assert_int_equal(both_ways(conv, GOLDEN_UPDATE), 0);
    assert_int_equal(both_ways(conv_text, GOLDEN_UPDATE_STAMPED), 0);
    assert_int_equal(both_ways(conv, GOLDEN_REFRESH), 0);
    assert_int_equal(both_ways(conv_text, GOLDEN_DIRECTORY_REFRESH), 0);
    assert_int_equal(both_ways(conv, GOLDEN_POST), 0);

    /* a frame of several messages with a ping, through the reader and the batch helpers */
    static char frame[8192];
    size_t fn = (size_t)snprintf(frame, sizeof(frame), "[%s,%s,%s]", GOLDEN_UPDATE, RJS_PING_OBJ,
                                 GOLDEN_UPDATE_STAMPED);
    before = allocs;
    rjs_reader r;
    rjs_batch b;
    size_t len;
    int rc, msgs = 0;
    rjs_reader_init(&r, frame, fn);
    assert_int_equal(rjs_batch_begin(&b, json, sizeof(json)), RWF_OK);
    while ((rc = rjs_reader_next(conv, &r, rwf1, sizeof(rwf1), &len)) != RWF_END) {
        if (rc == RJS_MSG) {
            assert_int_equal(rjs_batch_add(conv, &b, rwf_buf_make(rwf1, len)), RWF_OK);
            msgs++;
        } else {
            assert_int_equal(rc, RJS_PING);
        }
    }
    assert_int_equal(rjs_batch_end(&b, &len), RWF_OK);
    assert_int_equal(msgs, 2);

    /* errors */
    static const char bad[] = "{\"ID\":5,\"Type\":\"Update\",\"Fields\":{\"NOPE\":1}}";
    assert_true(rjs_json_to_msg(conv, bad, strlen(bad), rwf1, sizeof(rwf1), &len) < 0);
    size_t jl = 0;
    assert_true(rjs_msg_to_json(conv, rwf_buf_make(rwf1, 3), json, sizeof(json), &jl) < 0);
    assert_int_equal(allocs - before, 0);
#endif
}

int main(void)
{
#ifdef RJS_SANITIZED
    fprintf(stderr, "SKIP: a sanitizer owns malloc, whose calls this test counts\n");
    return 77;
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_allocation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
