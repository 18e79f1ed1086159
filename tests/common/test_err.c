#include "testsupport.h"

#include "err.h"

#include <errno.h>
#include <string.h>

static void test_set_and_push(void **state)
{
    (void)state;
    err_clear();
    assert_string_equal(err_msg(), "");
    assert_int_equal(err_set("truncated REAL at offset %d", 12), -1);
    assert_int_equal(err_push("field %d", 22), -1);
    assert_int_equal(err_push("RDT5 refresh"), -1);
    assert_string_equal(err_msg(), "RDT5 refresh: field 22: truncated REAL at offset 12");
}

static void test_errno(void **state)
{
    (void)state;
    err_set_errno(ENOENT, "open %s", "x.xml");
    assert_string_equal(err_msg(), "open x.xml: No such file or directory");
}

static void test_truncation_keeps_front(void **state)
{
    (void)state;
    char big[2 * ERR_MSG_MAX];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    err_set("%s", "inner");
    err_push("%s", big);
    assert_int_equal(strlen(err_msg()), ERR_MSG_MAX - 1);
    assert_int_equal(err_msg()[0], 'a');
}

/* A final failure's mark travels up with its text (err_push) and goes with the next text. */
static void test_final(void **state)
{
    (void)state;
    err_set("cannot resolve nosuch:1");
    assert_false(err_is_final());
    assert_int_equal(err_final(), -1);
    assert_true(err_is_final());
    err_push("channel 7");
    assert_true(err_is_final());
    assert_string_equal(err_msg(), "channel 7: cannot resolve nosuch:1");
    err_set("connection refused");
    assert_false(err_is_final());
    err_final();
    err_set_errno(5, "recv");
    assert_false(err_is_final());
    err_final();
    err_clear();
    assert_false(err_is_final());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_push),
        cmocka_unit_test(test_errno),
        cmocka_unit_test(test_truncation_keeps_front),
        cmocka_unit_test(test_final),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
