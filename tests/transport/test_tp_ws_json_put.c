/* rssl.json.v2 messages written in place (tp_json_get, tp_json_write): the bytes queued are
 * those tp_get_buffer() and tp_write() queue for the same message (its text frame, "[" and
 * "]" around it), with either header length, in room larger than the message; the counters
 * agree; a buffer written while such a message is open goes after it; the calls that do not
 * apply are refused and leave nothing open. */
#include <sys/socket.h>
#include <unistd.h>

#include "tp_int.h"
#include "tp_testutil.h"

static void json_pair(tu_pair *p, bool deflate)
{
    tp_opts so, co;
    tu_opts(&so);
    so.ws_protocols = "rssl.json.v2";
    tu_opts(&co);
    co.conn_type = TP_CONN_WEBSOCKET;
    co.ws_protocols = "rssl.json.v2";
    if (deflate)
        so.compression = co.compression = TP_COMP_ZLIB;
    tu_connect(p, &so, &co);
}

/* The bytes ch has queued, into out (cap bytes); returns their number. */
static size_t queued_bytes(const tp_channel *ch, uint8_t *out, size_t cap)
{
    size_t n = ch->out_tail - ch->out_head;
    assert_true(n <= cap);
    memcpy(out, ch->out + ch->out_head, n);
    return n;
}

/* Sends what s queued and checks that c reads msg (len bytes) in its array. */
static void deliver(tu_pair *p, const uint8_t *msg, uint32_t len)
{
    assert_int_equal(tp_flush(p->s), 0);
    tp_msg m;
    assert_int_equal(tu_read(p->c, &m, 5000), 1);
    assert_int_equal(m.len, len + 2);
    assert_int_equal(m.data[0], '[');
    assert_int_equal(m.data[len + 1], ']');
    ts_assert_bytes_equal(m.data + 1, len, msg, len);
}

static void test_same_bytes(void **st)
{
    (void)st;
    tu_pair p;
    json_pair(&p, false);
    static const uint32_t lens[] = {1, 2, 50, 122, 123, 124, 125, 126, 484, 6000};
    static uint8_t msg[8192], a[8192], b[8192];
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (uint32_t slack = 0; slack <= 63; slack += 63) {
            uint32_t len = lens[i];
            for (uint32_t k = 0; k < len; k++)
                msg[k] = (uint8_t)('a' + (k * 7 + i) % 26);
            /* the usual way */
            tp_stats s0, s1, s2;
            tp_get_stats(p.s, &s0);
            tp_buf *buf;
            assert_int_equal(tp_get_buffer(p.s, len + slack, false, &buf), 0);
            memcpy(buf->data, msg, len);
            buf->len = len;
            assert_true(tp_write(p.s, buf, 0) >= 0);
            size_t na = queued_bytes(p.s, a, sizeof(a));
            tp_get_stats(p.s, &s1);
            deliver(&p, msg, len);
            /* in place */
            uint8_t *at = NULL;
            assert_int_equal(tp_json_get(p.s, len + slack, &at), 0);
            memcpy(at, msg, len);
            assert_true(tp_json_write(p.s, len, 0) >= 0);
            size_t nb = queued_bytes(p.s, b, sizeof(b));
            tp_get_stats(p.s, &s2);
            ts_assert_bytes_equal(b, nb, a, na);
            assert_int_equal(s2.bytes_written - s1.bytes_written,
                             s1.bytes_written - s0.bytes_written);
            assert_int_equal(s2.msgs_written - s1.msgs_written, 1);
            assert_int_equal(s1.msgs_written - s0.msgs_written, 1);
            deliver(&p, msg, len);
        }
    }
    tu_close(&p);
}

/* TP_WRITE_DIRECT on an empty queue sends at once, as tp_write() does. */
static void test_direct(void **st)
{
    (void)st;
    tu_pair p;
    json_pair(&p, false);
    uint8_t *at;
    assert_int_equal(tp_json_get(p.s, 300, &at), 0);
    memcpy(at, "{\"ID\":5}", 8);
    assert_int_equal(tp_json_write(p.s, 8, TP_WRITE_DIRECT), 0);
    tp_msg m;
    assert_int_equal(tu_read(p.c, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":5}]", 10);
    tu_close(&p);
}

/* A buffer written while the message is open waits for it and follows it. */
static void test_deferred_after(void **st)
{
    (void)st;
    tu_pair p;
    json_pair(&p, false);
    uint8_t *at;
    assert_int_equal(tp_json_get(p.s, 300, &at), 0);
    tp_buf *b;
    assert_int_equal(tp_get_buffer(p.s, 100, false, &b), 0); /* staged: the tail is taken */
    memcpy(b->data, "{\"ID\":6}", 8);
    b->len = 8;
    assert_true(tp_write(p.s, b, 0) >= 0);
    memcpy(at, "{\"ID\":5}", 8);
    assert_true(tp_json_write(p.s, 8, 0) >= 0);
    assert_int_equal(tp_flush(p.s), 0);
    tp_msg m;
    assert_int_equal(tu_read(p.c, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":5}]", 10);
    assert_int_equal(tu_read(p.c, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":6}]", 10);
    tu_close(&p);
}

/* Refusals: nothing is opened (or the open message is closed), and the usual calls work. */
static void test_refused(void **st)
{
    (void)st;
    tu_pair p;
    json_pair(&p, false);
    uint8_t *at;
    /* a client's frames are masked; a frame over 65,535 bytes or the maximum message size */
    assert_int_equal(tp_json_get(p.c, 100, &at), TP_EINVAL);
    assert_int_equal(tp_json_get(p.s, 65534, &at), TP_EINVAL);
    assert_int_equal(tp_json_get(p.s, UINT32_MAX, &at), TP_EINVAL);
    /* nothing open */
    assert_int_equal(tp_json_write(p.s, 8, 0), TP_EINVAL);
    /* a buffer open */
    tp_buf *b;
    assert_int_equal(tp_get_buffer(p.s, 100, false, &b), 0);
    assert_int_equal(tp_json_get(p.s, 100, &at), TP_EINVAL);
    tp_release(p.s, b);
    /* longer than the room asked for: refused and closed */
    assert_int_equal(tp_json_get(p.s, 100, &at), 0);
    assert_int_equal(tp_json_write(p.s, 101, 0), TP_EINVAL);
    assert_int_equal(tp_json_write(p.s, 100, 0), TP_EINVAL);
    /* empty: nothing sent, closed */
    assert_int_equal(tp_json_get(p.s, 100, &at), 0);
    assert_int_equal(tp_json_write(p.s, 0, 0), 0);
    assert_true(tu_write(p.s, "{\"ID\":9}", 8, 0) >= 0);
    assert_int_equal(tp_flush(p.s), 0);
    tp_msg m;
    assert_int_equal(tu_read(p.c, &m, 5000), 1);
    ts_assert_bytes_equal(m.data, m.len, "[{\"ID\":9}]", 10);
    tu_close(&p);
    /* permessage-deflate: the usual way only */
    json_pair(&p, true);
    assert_int_equal(tp_json_get(p.s, 100, &at), TP_EINVAL);
    tu_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_direct),
        cmocka_unit_test(test_deferred_after),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
