/* Client and server of our own transport on 127.0.0.1: every negotiated combination of RIPC
 * version and compression, large fragmented messages, packing, high-water mark and flush,
 * a peer that does not read, pings and their timeout, refusal, several open buffers. */
#include "tp_testutil.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* Sends count messages of size bytes from w to r (writing as fast as the output area
 * allows, reading as they come) and checks each one's content and order. */
static void check_stream(tp_channel *w, tp_channel *r, int count, uint32_t size)
{
    uint8_t buf[70000];
    int sent = 0, got = 0;
    uint64_t end = tu_now_ms() + 10000;
    while (got < count) {
        if (tu_now_ms() > end)
            fail_msg("stream of %d x %u bytes: only %d arrived", count, size, got);
        while (sent < count) {
            tu_pattern(buf, size, (uint32_t)sent);
            int rc = tu_write(w, buf, size, 0);
            if (rc == TP_ENOBUFS || rc == TP_ECALLAGAIN)
                break;
            if (rc < 0)
                fail_msg("write %d: %s", sent, err_msg());
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
        if (rc < 0)
            fail_msg("read: %s", err_msg());
        struct pollfd f = {.fd = tp_fd(r), .events = POLLIN};
        poll(&f, 1, 1);
    }
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
    assert_int_equal(ci.max_user_msg_size, 6144);
    assert_int_equal(ci.ping_timeout, 60);
    assert_true(ci.client_to_server_pings && ci.server_to_client_pings);
    assert_int_equal(ci.compression, TP_COMP_NONE);
    assert_int_equal(ci.compression_threshold, 0);
    assert_int_equal(ci.num_input_buffers, 10);
    assert_int_equal(ci.guaranteed_output_buffers, 50);
    assert_true(ci.sys_send_buf_size > 0 && ci.sys_recv_buf_size > 0);
    assert_string_equal(ci.component, si.component);
    assert_non_null(strstr(ci.component, "rwfperf"));
    check_stream(p.c, p.s, 5000, 76);
    check_stream(p.s, p.c, 5000, 76);
    tp_stats st;
    tp_get_stats(p.c, &st);
    assert_int_equal(st.msgs_written, 5000);
    assert_int_equal(st.msgs_read, 5000);
    assert_int_equal(st.bytes_written, 5000 * 79);
    tu_close(&p);
}

/* A server's socket holds at most 128 KiB not yet sent (TCP_NOTSENT_LOWAT); a stream of several
 * MiB from the server still arrives whole and in order. */
static void test_server_unsent_bound(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    tu_pair p;
    tu_connect(&p, &so, &co);
    int lowat = 0;
    socklen_t len = sizeof(lowat);
    assert_int_equal(getsockopt(tp_fd(p.s), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, &len), 0);
    assert_int_equal(lowat, 128 * 1024);
    check_stream(p.s, p.c, 40000, 150);
    tu_close(&p);
}

/* Client starting at generation c, server accepting up to s: the client falls back on new
 * connections until the server takes it; both then speak min(c, s). */
static void test_versions(void **state)
{
    (void)state;
    for (int c = 10; c <= 14; c++) {
        for (int s = 10; s <= 14; s++) {
            tp_opts so, co;
            tu_opts(&so);
            tu_opts(&co);
            so.ripc_version = (uint8_t)s;
            co.ripc_version = (uint8_t)c;
            tu_pair p;
            tu_connect(&p, &so, &co);
            int want = c < s ? c : s;
            tp_info ci, si;
            assert_int_equal(tp_get_info(p.c, &ci), 0);
            assert_int_equal(tp_get_info(p.s, &si), 0);
            if (ci.ripc_version != want || si.ripc_version != want)
                fail_msg("client %d server %d: got %u/%u", c, s, ci.ripc_version, si.ripc_version);
            check_stream(p.c, p.s, 50, 100);
            check_stream(p.s, p.c, 50, 100);
            tu_transfer(p.c, p.s, 20000, 1, 0);
            tu_transfer(p.s, p.c, 20000, 2, 0);
            tu_close(&p);
        }
    }
}

/* Fragment ids wrap at 255 before v13 and 65535 from v13; a small max fragment size makes
 * every message several fragments. */
static void test_fragment_id_wrap(void **state)
{
    (void)state;
    for (int gen = 12; gen <= 13; gen++) {
        tp_opts so, co;
        tu_opts(&so);
        tu_opts(&co);
        so.max_fragment_size = 64;
        co.ripc_version = (uint8_t)gen;
        tu_pair p;
        tu_connect(&p, &so, &co);
        for (int i = 0; i < 300; i++)
            tu_transfer(p.c, p.s, 200, (uint32_t)i, 0);
        tu_close(&p);
    }
}

static tp_comp expect_comp(int gen, tp_comp S, tp_comp req, int force)
{
    int bm = req;
    if (gen >= 13)
        return S ? (force ? S : (bm == (int)S ? S : TP_COMP_NONE)) : TP_COMP_NONE;
    if (gen >= 11) {
        int F = S && force;
        if (!((bm && S) || F))
            return TP_COMP_NONE;
        if (!bm)
            return TP_COMP_ZLIB;
        return bm == (int)S ? S : TP_COMP_NONE;
    }
    return (bm && S) ? (tp_comp)bm : TP_COMP_NONE;
}

/* Every version x server type x client request x force: the negotiated type, and messages
 * of every size class both ways (below the threshold, compressed, fragmented). */
static void test_compression_matrix(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {10, 100, 500, 6000, 6144, 20000};
    for (int gen = 10; gen <= 14; gen++)
        for (int S = 0; S <= 2; S++)
            for (int req = 0; req <= 2; req++)
                for (int force = 0; force <= 1; force++) {
                    tp_opts so, co;
                    tu_opts(&so);
                    tu_opts(&co);
                    so.compression = (tp_comp)S;
                    so.force_compression = force;
                    so.compression_level = 6;
                    co.compression = (tp_comp)req;
                    co.ripc_version = (uint8_t)gen;
                    tu_pair p;
                    tu_connect(&p, &so, &co);
                    tp_comp want = expect_comp(gen, (tp_comp)S, (tp_comp)req, force);
                    tp_info si, ci;
                    assert_int_equal(tp_get_info(p.s, &si), 0);
                    assert_int_equal(tp_get_info(p.c, &ci), 0);
                    if (si.compression != want)
                        fail_msg("v%d S=%d req=%d force=%d: server compresses %d, want %d", gen, S,
                                 req, force, si.compression, want);
                    /* v10 compresses server to client only */
                    assert_int_equal(ci.compression, gen == 10 ? TP_COMP_NONE : want);
                    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
                        tu_transfer(p.c, p.s, sizes[k], (uint32_t)k, 1);
                        tu_transfer(p.s, p.c, sizes[k], (uint32_t)k, 0);
                    }
                    /* compressible text shrinks on the wire when compression is on */
                    tp_stats before, after;
                    tp_get_stats(p.s, &before);
                    tu_transfer(p.s, p.c, 5000, 9, 1);
                    tp_get_stats(p.s, &after);
                    uint64_t wire = after.bytes_written - before.bytes_written;
                    if (want)
                        assert_true(wire < 2500);
                    else
                        assert_int_equal(wire, 5003);
                    tu_close(&p);
                }
}

/* 1 MiB messages both ways, fragmented and reassembled, with and without compression
 * (zlib level 0 expands: every fragment must still fit its frame). */
static void test_one_mib(void **state)
{
    (void)state;
    struct {
        tp_comp c;
        uint8_t level;
    } cfg[] = {{TP_COMP_NONE, 0}, {TP_COMP_ZLIB, 0}, {TP_COMP_ZLIB, 6}, {TP_COMP_LZ4, 0}};
    for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
        tp_opts so, co;
        tu_opts(&so);
        tu_opts(&co);
        so.compression = co.compression = cfg[i].c;
        so.compression_level = cfg[i].level;
        tu_pair p;
        tu_connect(&p, &so, &co);
        tu_transfer(p.c, p.s, 1u << 20, 7, 0);
        tu_transfer(p.s, p.c, 1u << 20, 8, 0);
        tu_transfer(p.c, p.s, 1u << 20, 9, 1);
        tu_transfer(p.s, p.c, 1u << 20, 10, 1);
        /* a normal message still flows after them */
        tu_transfer(p.c, p.s, 76, 11, 0);
        tu_close(&p);
    }
}

/* Packed buffers: each packed message arrives as its own message; a trailing empty slot
 * and zero-length entries are harmless; compressed channels pack too. */
static void test_packing(void **state)
{
    (void)state;
    for (int comp = 0; comp <= 2; comp++) {
        tp_opts so, co;
        tu_opts(&so);
        tu_opts(&co);
        so.compression = co.compression = (tp_comp)comp;
        so.compression_level = 6;
        tu_pair p;
        tu_connect(&p, &so, &co);
        tp_buf *b;
        assert_int_equal(tp_get_buffer(p.c, 50 * 78, true, &b), 0);
        uint8_t msg[76];
        for (int i = 0; i < 50; i++) {
            assert_true(b->len >= 76);
            tu_pattern(msg, 76, (uint32_t)i);
            memcpy(b->data, msg, 76);
            b->len = 76;
            if (i < 49)
                assert_int_equal(tp_pack(p.c, b), 0);
        }
        assert_true(tp_write(p.c, b, 0) >= 0);
        /* packed then written with an empty last slot; and one zero-length entry */
        assert_int_equal(tp_get_buffer(p.c, 200, true, &b), 0);
        memcpy(b->data, "first", 5);
        b->len = 5;
        assert_int_equal(tp_pack(p.c, b), 0);
        b->len = 0;
        assert_int_equal(tp_pack(p.c, b), 0);
        memcpy(b->data, "second", 6);
        b->len = 6;
        assert_int_equal(tp_pack(p.c, b), 0);
        b->len = 0;
        assert_true(tp_write(p.c, b, 0) >= 0);
        assert_true(tp_flush(p.c) >= 0);
        tp_msg m;
        for (int i = 0; i < 50; i++) {
            assert_int_equal(tu_read(p.s, &m, 5000), 1);
            tu_pattern(msg, 76, (uint32_t)i);
            ts_assert_bytes_equal(m.data, m.len, msg, 76);
        }
        assert_int_equal(tu_read(p.s, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, "first", 5);
        assert_int_equal(tu_read(p.s, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, "second", 6);
        /* a packed buffer cannot exceed one frame; a packed message cannot exceed its room */
        assert_int_equal(tp_get_buffer(p.c, 7000, true, &b), TP_EINVAL);
        assert_int_equal(tp_get_buffer(p.c, 100, true, &b), 0);
        b->len = 101;
        assert_int_equal(tp_pack(p.c, b), TP_EINVAL);
        b->len = 100;
        assert_int_equal(tp_pack(p.c, b), 0);
        assert_int_equal(b->len, 0);
        assert_int_equal(tp_release(p.c, b), 0);
        tu_close(&p);
    }
}

/* The high-water mark triggers a flush; a direct write on an empty queue goes out at once;
 * tp_ping sends a ping only when nothing is queued. */
static void test_high_water_mark(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    co.high_water_mark = 1000;
    tu_pair p;
    tu_connect(&p, &so, &co);
    uint8_t msg[76] = {0};
    tp_stats st0, st;
    tp_get_stats(p.c, &st0);
    for (int i = 1; i <= 12; i++) {
        int rc = tu_write(p.c, msg, 76, 0);
        assert_int_equal(rc, 79 * i);
    }
    tp_get_stats(p.c, &st);
    assert_int_equal(st.send_calls, st0.send_calls);
    assert_int_equal(tu_write(p.c, msg, 76, 0), 0); /* 13 * 79 = 1027 >= 1000 */
    tp_get_stats(p.c, &st);
    assert_int_equal(st.send_calls, st0.send_calls + 1);
    assert_int_equal(st.bytes_sent, 13 * 79);
    assert_int_equal(tu_write(p.c, msg, 76, TP_WRITE_DIRECT), 0);
    assert_int_equal(tu_write(p.c, msg, 76, 0), 79);
    assert_int_equal(tu_write(p.c, msg, 76, TP_WRITE_DIRECT), 158); /* queue not empty */
    assert_int_equal(tp_queued(p.c), 158);
    assert_int_equal(tp_ping(p.c), 0); /* flushes instead of pinging */
    tp_get_stats(p.c, &st);
    assert_int_equal(st.pings_sent, 0);
    assert_int_equal(tp_ping(p.c), 0);
    tp_get_stats(p.c, &st);
    assert_int_equal(st.pings_sent, 1);
    tp_msg m;
    for (int i = 0; i < 16; i++)
        assert_int_equal(tu_read(p.s, &m, 5000), 1);
    int rc;
    uint64_t end = tu_now_ms() + 2000;
    while ((rc = tp_read(p.s, &m)) == 0 && tu_now_ms() < end)
        ;
    assert_int_equal(rc & TP_READ_PING, TP_READ_PING);
    tp_set_high_water_mark(p.c, 0); /* back to 6000 */
    assert_int_equal(tu_write(p.c, msg, 76, 0), 79);
    tu_close(&p);
}

/* A peer that does not read: the writer queues, gets TP_ENOBUFS (counted, channel up), and
 * resumes when the peer reads; every message arrives once, in order. */
static void test_peer_not_reading(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.rcvbuf = 4096;
    co.sndbuf = 4096;
    co.guaranteed_output_buffers = 2;
    tu_pair p;
    tu_connect(&p, &so, &co);
    uint8_t msg[76];
    int sent = 0, nobufs = 0;
    while (nobufs < 3) {
        tu_pattern(msg, 76, (uint32_t)sent);
        int rc = tu_write(p.c, msg, 76, 0);
        if (rc == TP_ENOBUFS) {
            nobufs++;
            assert_int_equal(tp_get_state(p.c), TP_STATE_ACTIVE);
            assert_true(tp_flush(p.c) > 0);
            continue;
        }
        assert_true(rc >= 0);
        sent++;
        assert_true(sent < 1000000);
    }
    tp_stats st;
    tp_get_stats(p.c, &st);
    assert_true(st.no_buffers >= 3);
    assert_true(tp_queued(p.c) > 0);
    assert_true(tp_events(p.c) & POLLOUT);
    /* now the peer reads; the writer flushes when it can and keeps writing */
    int got = 0, more = sent + 2000;
    uint64_t end = tu_now_ms() + 10000;
    while (got < more) {
        assert_true(tu_now_ms() < end);
        while (sent < more) {
            tu_pattern(msg, 76, (uint32_t)sent);
            int rc = tu_write(p.c, msg, 76, 0);
            if (rc == TP_ENOBUFS)
                break;
            assert_true(rc >= 0);
            sent++;
        }
        assert_true(tp_flush(p.c) >= 0);
        tp_msg m;
        int rc;
        while ((rc = tp_read(p.s, &m)) > 0) {
            if (rc & TP_READ_MSG) {
                tu_pattern(msg, 76, (uint32_t)got);
                ts_assert_bytes_equal(m.data, m.len, msg, 76);
                got++;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        assert_true(rc >= 0);
    }
    assert_int_equal(got, sent);
    assert_int_equal(tp_flush(p.c), 0);
    tu_close(&p);
}

/* A backlog near the size of the output area that the peer drains slowly: the queued bytes
 * are not moved to the front of the area again for every message written (the bytes moved
 * stay within the bytes queued plus one area), and every message still arrives once, in
 * order. */
static void test_backlog_moves_bounded(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.rcvbuf = 4096;
    co.sndbuf = 4096;
    co.guaranteed_output_buffers = 100;
    tu_pair p;
    tu_connect(&p, &so, &co);
    enum { SIZE = 200, PER_ROUND = 12 };
    uint8_t msg[SIZE];
    int sent = 0, got = 0, rounds = 0;
    tp_stats st;
    tp_get_stats(p.c, &st);
    uint64_t written0 = st.bytes_written, cap = 100u * (6144u + 32u);
    uint64_t end = tu_now_ms() + 20000;
    for (;;) {
        assert_true(tu_now_ms() < end);
        tp_get_stats(p.c, &st);
        int writing = st.bytes_written - written0 < 3 * cap;
        while (writing) {
            tu_pattern(msg, SIZE, (uint32_t)sent);
            tp_buf *b;
            int rc = tp_get_buffer(p.c, SIZE, false, &b);
            if (rc == TP_ENOBUFS)
                break;
            assert_int_equal(rc, 0);
            memcpy(b->data, msg, SIZE);
            b->len = SIZE;
            rc = tp_write(p.c, b, 0);
            assert_true(rc >= 0);
            sent++;
        }
        if (!writing && got == sent)
            break;
        assert_true(tp_flush(p.c) >= 0);
        /* the peer reads a few messages a round while the writer is ahead */
        int n = 0;
        while (n < (writing ? PER_ROUND : 1000)) {
            tp_msg m;
            int rc = tp_read(p.s, &m);
            assert_true(rc >= 0);
            if (rc & TP_READ_MSG) {
                tu_pattern(msg, SIZE, (uint32_t)got);
                ts_assert_bytes_equal(m.data, m.len, msg, SIZE);
                got++;
                n++;
            }
            if (!(rc & TP_READ_MORE))
                break;
        }
        rounds++;
    }
    tp_get_stats(p.c, &st);
    uint64_t written = st.bytes_written - written0;
    if (st.bytes_moved > written + cap)
        fail_msg("%llu bytes moved in the output area for %llu bytes queued (%d rounds)",
                 (unsigned long long)st.bytes_moved, (unsigned long long)written, rounds);
    assert_true(st.no_buffers > 0);
    assert_int_equal(got, sent);
    tu_close(&p);
}

/* Pings every timeout/3 from tp_tick; "Ping timed out." when nothing arrives for the
 * negotiated timeout; arriving data (or pings) keeps the channel up. The clock is the
 * caller's, so no real time passes. */
static void test_pings(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.min_ping_timeout = 1;
    co.ping_timeout = 3;
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_info ci;
    assert_int_equal(tp_get_info(p.c, &ci), 0);
    assert_int_equal(ci.ping_timeout, 3);
    const uint64_t s = 1000000000ull;
    assert_int_equal(tp_tick(p.c, 100 * s), 0);
    assert_int_equal(tp_tick(p.s, 100 * s), 0);
    assert_int_equal(tp_tick(p.c, 100 * s + s / 2), 0); /* not yet 1 s */
    tp_stats st;
    tp_get_stats(p.c, &st);
    assert_int_equal(st.pings_sent, 0);
    assert_int_equal(tp_tick(p.c, 101 * s), 0); /* timeout/3 = 1 s: ping */
    tp_get_stats(p.c, &st);
    assert_int_equal(st.pings_sent, 1);
    tp_msg m;
    int rc;
    uint64_t end = tu_now_ms() + 2000;
    while ((rc = tp_read(p.s, &m)) == 0 && tu_now_ms() < end)
        ;
    assert_true(rc & TP_READ_PING);
    assert_int_equal(tp_tick(p.s, 102 * s), 0); /* the ping counts as traffic */
    assert_int_equal(tp_tick(p.s, 104 * s), 0); /* 2 s of silence < 3 s */
    assert_int_equal(tp_tick(p.s, 105 * s + 1), TP_EFAIL);
    assert_string_equal(err_msg(), "Ping timed out.");
    assert_int_equal(tp_get_state(p.s), TP_STATE_CLOSED);
    /* later calls report the same reason */
    assert_int_equal(tp_read(p.s, &m), TP_EFAIL);
    assert_string_equal(err_msg(), "Ping timed out.");
    /* the client sees the server go away */
    assert_true(tu_read(p.c, &m, 2000) < 0);
    assert_non_null(strstr(err_msg(), "closed by peer"));
    tu_close(&p);
}

/* Protocol type mismatch: the server answers with a ConnectNak, the client reports it. */
static void test_nak(void **state)
{
    (void)state;
    for (int gen = 11; gen <= 14; gen += 3) {
        tp_opts so, co;
        tu_opts(&so);
        tu_opts(&co);
        so.protocol_type = gen == 14 ? 0 : 88;
        co.protocol_type = gen == 14 ? 88 : 0;
        co.ripc_version = (uint8_t)gen;
        tu_pair p;
        memset(&p, 0, sizeof(p));
        assert_int_equal(tp_bind(&so, &p.srv), 0);
        snprintf(p.port, sizeof(p.port), "%u", tp_server_port(p.srv));
        co.port = p.port;
        assert_int_equal(tp_connect(&co, &p.c), 0);
        int rs, rc;
        tu_handshake(&p, &rs, &rc, 5000);
        assert_int_equal(rc, TP_EFAIL);
        assert_non_null(strstr(err_msg(), "ConnectNak"));
        assert_int_equal(tp_get_state(p.c), TP_STATE_CLOSED);
        tu_close(&p);
    }
}

/* A second buffer opened while the direct one is open is staged; written first, it goes
 * on the wire right after the direct one. */
static void test_several_buffers(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_buf *a, *b, *c;
    assert_int_equal(tp_get_buffer(p.c, 10, false, &a), 0);
    assert_int_equal(tp_get_buffer(p.c, 10, false, &b), 0);
    assert_true(a != b);
    memcpy(b->data, "B", 1);
    b->len = 1;
    assert_true(tp_write(p.c, b, 0) >= 0);
    assert_int_equal(tp_write(p.c, b, 0), TP_EINVAL); /* already written */
    memcpy(a->data, "A", 1);
    a->len = 1;
    assert_true(tp_write(p.c, a, 0) >= 0);
    assert_int_equal(tp_get_buffer(p.c, 10, false, &a), 0);
    assert_int_equal(tp_get_buffer(p.c, 10, false, &c), 0);
    memcpy(c->data, "C", 1);
    c->len = 1;
    assert_true(tp_write(p.c, c, 0) >= 0);
    assert_int_equal(tp_release(p.c, a), 0);
    assert_true(tp_flush(p.c) >= 0);
    tp_msg m;
    const char *want[] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tu_read(p.s, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, want[i], 1);
    }
    /* one direct and eight staged buffers at most */
    tp_buf *open[10];
    int n = 0;
    while (n < 10 && tp_get_buffer(p.c, 10, false, &open[n]) == 0)
        n++;
    assert_int_equal(n, 9);
    for (int i = 0; i < n; i++)
        assert_int_equal(tp_release(p.c, open[i]), 0);
    /* a buffer length beyond what was obtained is refused, the channel stays up */
    assert_int_equal(tp_get_buffer(p.c, 10, false, &a), 0);
    a->len = 11;
    assert_int_equal(tp_write(p.c, a, 0), TP_EINVAL);
    a->len = 0; /* nothing to send */
    assert_true(tp_write(p.c, a, 0) >= 0);
    assert_int_equal(tp_get_state(p.c), TP_STATE_ACTIVE);
    tu_close(&p);
}

/* Messages expected in order on one channel. */
typedef struct expect_seq {
    const uint8_t *data[4];
    uint32_t len[4];
    int n, got;
} expect_seq;

/* Reads what r has without waiting; each message must be the next one of *e. */
static void take_available(tp_channel *r, expect_seq *e)
{
    for (;;) {
        tp_msg m;
        int rc = tp_read(r, &m);
        if (rc < 0)
            fail_msg("tp_read: %s", err_msg());
        if (rc == 0)
            return;
        if (rc & TP_READ_MSG) {
            if (e->got >= e->n)
                fail_msg("unexpected message of %u bytes", m.len);
            ts_assert_bytes_equal(m.data, m.len, e->data[e->got], e->len[e->got]);
            e->got++;
        }
    }
}

/* Opens a direct buffer A, then a staged one S too large for the output area, writes S
 * (deferred behind A) then A: A is queued and only part of S fits. */
static void write_direct_then_big(tp_channel *c, const uint8_t *big, uint32_t big_len)
{
    tp_buf *a, *s;
    assert_int_equal(tp_get_buffer(c, 10, false, &a), 0);
    assert_int_equal(tp_get_buffer(c, big_len, false, &s), 0);
    memcpy(s->data, big, big_len);
    s->len = big_len;
    assert_true(tp_write(c, s, 0) >= 0);
    memcpy(a->data, "A", 1);
    a->len = 1;
    assert_true(tp_write(c, a, 0) > 0);
}

/* With the largest maximum fragment size (65535) every frame still fits the 16-bit length
 * field: messages around the limit arrive intact, plain and compressed, both ways. */
static void test_max_fragment_size_65535(void **state)
{
    (void)state;
    for (int comp = TP_COMP_NONE; comp <= TP_COMP_LZ4; comp++) {
        tp_opts so, co;
        tu_opts(&so);
        tu_opts(&co);
        so.max_fragment_size = 65535;
        so.compression = (tp_comp)comp;
        co.compression = (tp_comp)comp;
        tu_pair p;
        tu_connect(&p, &so, &co);
        tp_info info;
        assert_int_equal(tp_get_info(p.c, &info), 0);
        uint32_t sizes[] = {info.max_user_msg_size - 1, info.max_user_msg_size,
                            info.max_user_msg_size + 1, 65535, 140000};
        for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            tu_transfer(p.c, p.s, sizes[i], i, 0);
            tu_transfer(p.s, p.c, sizes[i], i + 1, 1);
        }
        assert_true(info.max_user_msg_size + 3 <= 0xFFFF);
        tu_close(&p);
    }
}

/* A message written after a deferred one that did not fit the output area goes on the wire
 * after it, not ahead of it. */
static void test_deferred_order(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    co.guaranteed_output_buffers = 2;
    co.sndbuf = 4096;
    so.rcvbuf = 4096;
    tu_pair p;
    tu_connect(&p, &so, &co);
    enum { BIG = 200000 };
    uint8_t *big = malloc(BIG);
    assert_non_null(big);
    tu_pattern(big, BIG, 7);
    expect_seq e = {
        .data = {(const uint8_t *)"A", big, (const uint8_t *)"C"}, .len = {1, BIG, 1}, .n = 3};
    write_direct_then_big(p.c, big, BIG);
    tp_buf *c;
    int rc;
    uint64_t end = tu_now_ms() + 10000;
    while ((rc = tp_get_buffer(p.c, 10, false, &c)) == TP_ENOBUFS) {
        assert_true(tu_now_ms() < end);
        assert_true(tp_flush(p.c) >= 0);
        take_available(p.s, &e);
    }
    assert_int_equal(rc, 0);
    memcpy(c->data, "C", 1);
    c->len = 1;
    assert_true(tp_write(p.c, c, 0) >= 0);
    while (e.got < 3) {
        assert_true(tu_now_ms() < end);
        assert_true(tp_flush(p.c) >= 0);
        take_available(p.s, &e);
        poll(&(struct pollfd){.fd = tp_fd(p.s), .events = POLLIN}, 1, 1);
    }
    free(big);
    tu_close(&p);
}

/* The peer closes in the middle of a fragmented message: the reader says so. */
static void test_peer_closes_mid_message(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    co.guaranteed_output_buffers = 2;
    co.sndbuf = 4096;
    so.rcvbuf = 4096;
    tu_pair p;
    tu_connect(&p, &so, &co);
    tp_buf *b;
    assert_int_equal(tp_get_buffer(p.c, 200000, false, &b), 0);
    memset(b->data, 'x', 200000);
    b->len = 200000;
    assert_int_equal(tp_write(p.c, b, 0), TP_ECALLAGAIN); /* part of it is queued */
    tp_msg m;
    for (int i = 0; i < 50 && tp_flush(p.c) > 0; i++)
        tp_read(p.s, &m); /* the reader takes some fragments */
    tp_close(p.c);
    p.c = NULL;
    int rc = tu_read(p.s, &m, 5000);
    assert_int_equal(rc, TP_EFAIL);
    assert_non_null(strstr(err_msg(), "in the middle of a fragmented message"));
    tu_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_both_ways),
        cmocka_unit_test(test_server_unsent_bound),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_fragment_id_wrap),
        cmocka_unit_test(test_compression_matrix),
        cmocka_unit_test(test_one_mib),
        cmocka_unit_test(test_packing),
        cmocka_unit_test(test_high_water_mark),
        cmocka_unit_test(test_backlog_moves_bounded),
        cmocka_unit_test(test_peer_not_reading),
        cmocka_unit_test(test_pings),
        cmocka_unit_test(test_nak),
        cmocka_unit_test(test_several_buffers),
        cmocka_unit_test(test_peer_closes_mid_message),
        cmocka_unit_test(test_deferred_order),
        cmocka_unit_test(test_max_fragment_size_65535),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
