/* Hostile and unusual input for every parser state: the client after a valid ConnectAck
 * (frame header, extended flags, fragments, packing, compression, splits, end of file) and
 * the server during the handshake (ConnectReq, key message). Each bad input fails that
 * channel with a message saying what was wrong; the process and other channels go on.
 * Unusual but valid input (split compressed frames, empty fragments, replaced fragment ids)
 * is delivered correctly. */
#include <fcntl.h>
#include <lz4.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "tp_rawpeer.h"

static void feed_hex(peer *p, const char *hex)
{
    uint8_t b[512];
    size_t n = ts_hex(hex, b, sizeof(b));
    feed(p, b, n);
}

/* Reads until the channel fails; checks the reason. Messages before that are allowed. */
static void expect_fail(peer *p, const char *why)
{
    tp_msg m;
    uint64_t end = tu_now_ms() + 5000;
    for (;;) {
        assert_true(tu_now_ms() < end);
        int rc = tp_read(p->ch, &m);
        if (rc < 0) {
            if (!strstr(err_msg(), why))
                fail_msg("expected \"%s\", got \"%s\"", why, err_msg());
            assert_int_equal(rc, TP_EFAIL);
            assert_int_equal(tp_get_state(p->ch), TP_STATE_CLOSED);
            /* the reason stays */
            assert_int_equal(tp_read(p->ch, &m), TP_EFAIL);
            assert_non_null(strstr(err_msg(), why));
            tp_buf *b;
            assert_int_equal(tp_get_buffer(p->ch, 10, false, &b), TP_EFAIL);
            return;
        }
        if (rc == 0)
            poll(&(struct pollfd){.fd = tp_fd(p->ch), .events = POLLIN}, 1, 1);
    }
}

static void expect_msg(peer *p, const void *want, size_t n)
{
    tp_msg m;
    int rc = tu_read(p->ch, &m, 5000);
    if (rc != 1)
        fail_msg("expected a message, got %d: %s", rc, err_msg());
    ts_assert_bytes_equal(m.data, m.len, want, n);
}

static void bad_case(int gen, int comp, const char *hex, int eof, const char *why)
{
    peer p = client_after_ack(gen, comp);
    feed_hex(&p, hex);
    if (eof)
        shutdown(p.fd, SHUT_WR);
    expect_fail(&p, why);
    done(&p);
}

static void test_frame_header(void **state)
{
    (void)state;
    bad_case(14, 0, "00 00 02", 0, "shorter than its 3-byte header");
    bad_case(14, 0, "00 02 02 00", 0, "shorter than its 3-byte header");
    bad_case(14, 0, "FF FF 02", 0, "exceeds the maximum of 6161");
    bad_case(14, 0, "18 12 02", 0, "exceeds the maximum"); /* 6162 */
    bad_case(14, 0, "00 04 22 41", 0, "unknown flags 0x22");
    bad_case(14, 0, "00 04 80 41", 0, "unknown flags 0x80");
    bad_case(14, 0, "00 04 00 41", 0, "neither data nor compressed");
    bad_case(14, 0, "00 04 0A 41", 0, "split flag without compression");
    bad_case(14, 0, "00 05 04 41 42", 0, "negotiated no compression");
    bad_case(14, 0, "00 10 02 41 42", 1, "in the middle of a frame (5 bytes");
    bad_case(14, 0, "00 04 02 41", 1, "connection closed by peer");
}

static void test_extended_and_fragments(void **state)
{
    (void)state;
    bad_case(14, 0, "00 03 03", 0, "lacks its extended flags");
    bad_case(14, 0, "00 05 03 01 41", 0, "invalid extended flags 0x01");
    bad_case(14, 0, "00 05 03 0C 41", 0, "invalid extended flags 0x0c");
    bad_case(14, 0, "00 05 03 10 41", 0, "invalid extended flags 0x10");
    bad_case(14, 0, "00 07 03 08 00 00 00", 0, "shorter than its header");
    bad_case(14, 0, "00 05 03 04 00", 0, "shorter than its header");
    bad_case(14, 0, "00 0B 03 08 00 00 00 00 00 01 41", 0, "total length of 0");
    bad_case(14, 0, "00 0B 03 08 7F FF FF FF 00 01 41", 0, "exceeds the 1048576-byte limit");
    bad_case(14, 0, "00 0D 03 08 00 00 00 02 00 01 41 42 43", 0, "carries 3 bytes of a 2-byte");
    bad_case(14, 0, "00 07 03 04 00 05 41", 0, "unknown fragment id 5");
    bad_case(14, 0, "00 0C 03 08 00 00 00 04 00 01 41 42  00 09 03 04 00 01 43 44 45", 0,
             "more than the announced 4");
    bad_case(14, 0, "00 0B 13 08 00 00 00 02 00 01 41", 0, "both packed and fragmented");
    /* v12: one-byte fragment ids */
    bad_case(12, 0, "00 06 03 04 07 41", 0, "unknown fragment id 7");
    /* nine messages in reassembly at once */
    char hex[512] = "";
    for (int i = 1; i <= 9; i++) {
        char f[64];
        snprintf(f, sizeof(f), "00 0B 03 08 00 00 00 0A 00 %02X 41 ", i);
        strcat(hex, f);
    }
    bad_case(14, 0, hex, 0, "more than 8 fragmented messages");
    /* a fragmented message cut by the end of the connection */
    bad_case(14, 0, "00 0C 03 08 00 00 00 04 00 01 41 42", 1,
             "middle of a fragmented message (2 of 4 bytes");
}

static void test_packing(void **state)
{
    (void)state;
    bad_case(14, 0, "00 08 12 00 05 41 42 43", 0, "packed message of 5 bytes exceeds the 3");
    bad_case(14, 0, "00 07 12 00 01 41 42", 0, "ends with 1 stray byte");
    /* valid: zero-length entries are skipped; an empty packed frame is a ping */
    peer p = client_after_ack(14, 0);
    feed_hex(&p, "00 0D 12 00 00 00 01 41 00 00 00 01 42  00 03 12  00 04 02 43");
    expect_msg(&p, "A", 1);
    expect_msg(&p, "B", 1);
    tp_msg m;
    int rc = tp_read(p.ch, &m);
    assert_true(rc & TP_READ_PING);
    expect_msg(&p, "C", 1);
    done(&p);
}

static void test_unusual_but_valid(void **state)
{
    (void)state;
    peer p = client_after_ack(14, 0);
    /* extended flags 0 = plain data with a 4-byte header (ETA accepts it) */
    feed_hex(&p, "00 05 03 00 41");
    expect_msg(&p, "A", 1);
    /* a zero-length subsequent fragment is ignored; a new first fragment with an id in
     * progress replaces the stale message */
    feed_hex(&p, "00 0C 03 08 00 00 00 04 00 01 41 42"
                 "00 06 03 04 00 01"
                 "00 0C 03 08 00 00 00 03 00 01 58 59"
                 "00 07 03 04 00 01 5A");
    expect_msg(&p, "XYZ", 3);
    /* a first fragment that holds the whole message */
    feed_hex(&p, "00 0D 03 08 00 00 00 03 00 02 41 42 43");
    expect_msg(&p, "ABC", 3);
    /* interleaved fragments of two messages */
    feed_hex(&p, "00 0B 03 08 00 00 00 02 00 03 31"
                 "00 0B 03 08 00 00 00 02 00 04 61"
                 "00 07 03 04 00 04 62"
                 "00 07 03 04 00 03 32");
    expect_msg(&p, "ab", 2);
    expect_msg(&p, "12", 2);
    done(&p);
}

/* zlib: one persistent stream; a compressed message split over a 0x0C frame and a bare
 * 0x04 frame; a first fragment split likewise; and the failures. */
static void test_zlib(void **state)
{
    (void)state;
    peer p = client_after_ack(14, TP_COMP_ZLIB);
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit(&z, 6), Z_OK);
    uint8_t msg[3000], comp[4000], f[8000];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i * 7 % 251);
    for (int round = 0; round < 3; round++) {
        z.next_in = msg;
        z.avail_in = sizeof(msg);
        z.next_out = comp;
        z.avail_out = sizeof(comp);
        assert_int_equal(deflate(&z, Z_SYNC_FLUSH), Z_OK);
        size_t cl = sizeof(comp) - z.avail_out, k = cl / 3;
        size_t n = 0;
        if (round == 0) { /* whole, flags 0x04 */
            f[n++] = (uint8_t)((cl + 3) >> 8), f[n++] = (uint8_t)(cl + 3), f[n++] = 0x04;
            memcpy(f + n, comp, cl), n += cl;
        } else if (round == 1) { /* split: 0x0C then 0x04 */
            f[n++] = (uint8_t)((k + 3) >> 8), f[n++] = (uint8_t)(k + 3), f[n++] = 0x0C;
            memcpy(f + n, comp, k), n += k;
            f[n++] = (uint8_t)((cl - k + 3) >> 8), f[n++] = (uint8_t)(cl - k + 3), f[n++] = 0x04;
            memcpy(f + n, comp + k, cl - k), n += cl - k;
        } else { /* split first fragment 0x0D/0x08 (the whole message), then 0x04 */
            size_t h = 10;
            f[n++] = (uint8_t)((k + h) >> 8), f[n++] = (uint8_t)(k + h), f[n++] = 0x0D;
            f[n++] = 0x08, f[n++] = 0, f[n++] = 0, f[n++] = (uint8_t)(sizeof(msg) >> 8);
            f[n++] = (uint8_t)sizeof(msg), f[n++] = 0, f[n++] = 9;
            memcpy(f + n, comp, k), n += k;
            f[n++] = (uint8_t)((cl - k + 3) >> 8), f[n++] = (uint8_t)(cl - k + 3), f[n++] = 0x04;
            memcpy(f + n, comp + k, cl - k), n += cl - k;
        }
        feed(&p, f, n);
        expect_msg(&p, msg, sizeof(msg));
    }
    /* uncompressed frames are allowed at any time */
    feed_hex(&p, "00 04 02 41");
    expect_msg(&p, "A", 1);
    /* a split must be followed by its second part */
    feed_hex(&p, "00 05 0C 00 00  00 04 02 41");
    expect_fail(&p, "expected the rest of a split compressed frame, got flags 0x02");
    done(&p);
    deflateEnd(&z);

    bad_case(14, TP_COMP_ZLIB, "00 08 04 DE AD BE EF 00", 0, "zlib inflate failed");
    bad_case(14, TP_COMP_ZLIB, "00 03 04", 0, "no compressed bytes");
    /* a decompression bomb: 1 MB of zeros compresses into one small frame */
    peer q = client_after_ack(14, TP_COMP_ZLIB);
    uint8_t *zeros = calloc(1, 1 << 20);
    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit(&z, 9), Z_OK);
    z.next_in = zeros;
    z.avail_in = 1 << 20;
    z.next_out = f + 3;
    z.avail_out = sizeof(f) - 3;
    assert_int_equal(deflate(&z, Z_SYNC_FLUSH), Z_OK);
    size_t cl = sizeof(f) - 3 - z.avail_out;
    assert_true(cl < 6000);
    f[0] = (uint8_t)((cl + 3) >> 8), f[1] = (uint8_t)(cl + 3), f[2] = 0x04;
    feed(&q, f, cl + 3);
    expect_fail(&q, "decompressed frame exceeds 6144 bytes");
    done(&q);
    deflateEnd(&z);
    free(zeros);
}

static void test_lz4(void **state)
{
    (void)state;
    peer p = client_after_ack(14, TP_COMP_LZ4);
    uint8_t msg[2000], comp[LZ4_COMPRESSBOUND(2000)], f[6000];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i % 13);
    int cl = LZ4_compress_default((const char *)msg, (char *)comp, sizeof(msg), sizeof(comp));
    assert_true(cl > 0);
    size_t n = 0;
    f[n++] = (uint8_t)((cl + 3) >> 8), f[n++] = (uint8_t)(cl + 3), f[n++] = 0x04;
    memcpy(f + n, comp, (size_t)cl), n += (size_t)cl;
    int k = cl / 2; /* split: the parts are joined before decompressing */
    f[n++] = (uint8_t)((k + 3) >> 8), f[n++] = (uint8_t)(k + 3), f[n++] = 0x0C;
    memcpy(f + n, comp, (size_t)k), n += (size_t)k;
    f[n++] = (uint8_t)((cl - k + 3) >> 8), f[n++] = (uint8_t)(cl - k + 3), f[n++] = 0x04;
    memcpy(f + n, comp + k, (size_t)(cl - k)), n += (size_t)(cl - k);
    feed(&p, f, n);
    expect_msg(&p, msg, sizeof(msg));
    expect_msg(&p, msg, sizeof(msg));
    done(&p);
    bad_case(14, TP_COMP_LZ4, "00 06 04 FF FF FF", 0, "corrupt lz4 block");
    /* a block that would decompress past the maximum message size */
    static uint8_t zeros[20000];
    uint8_t big[LZ4_COMPRESSBOUND(20000)];
    cl = LZ4_compress_default((const char *)zeros, (char *)big, sizeof(zeros), sizeof(big));
    peer q = client_after_ack(14, TP_COMP_LZ4);
    f[0] = (uint8_t)((cl + 3) >> 8), f[1] = (uint8_t)(cl + 3), f[2] = 0x04;
    memcpy(f + 3, big, (size_t)cl);
    feed(&q, f, (size_t)cl + 3);
    expect_fail(&q, "corrupt lz4 block");
    done(&q);
}

/* A server that acked the largest maximum (65535) may send compressed messages of that
 * size, although ours writes at most 65532 per frame: they are accepted. */
static void test_lz4_largest_message(void **state)
{
    (void)state;
    peer p = client_after_ack_mu(14, TP_COMP_LZ4, 65535);
    static uint8_t msg[65535];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i % 7);
    static uint8_t f[3 + LZ4_COMPRESSBOUND(65535)];
    int cl = LZ4_compress_default((const char *)msg, (char *)f + 3, sizeof(msg),
                                  LZ4_COMPRESSBOUND(65535));
    assert_true(cl > 0 && cl + 3 <= 0xFFFF);
    f[0] = (uint8_t)((cl + 3) >> 8), f[1] = (uint8_t)(cl + 3), f[2] = 0x04;
    feed(&p, f, (size_t)cl + 3);
    expect_msg(&p, msg, sizeof(msg));
    done(&p);
}

/* Server side: our server adopting one end of a socketpair, fed by the test. */
static void bad_server(const uint8_t *b, size_t n, int eof, const char *why)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *ch;
    assert_int_equal(tp_adopt(sv[0], true, &o, &ch), 0);
    assert_int_equal(write(sv[1], b, n), (ssize_t)n);
    if (eof)
        shutdown(sv[1], SHUT_WR);
    int rc = tp_init_wait(ch, 5000);
    if (rc != TP_EFAIL || !strstr(err_msg(), why))
        fail_msg("expected failure \"%s\", got %d \"%s\"", why, rc, err_msg());
    tp_close(ch);
    close(sv[1]);
}

static void test_server_handshake(void **state)
{
    (void)state;
    /* an HTTP request is taken for a WebSocket upgrade, and this one is not */
    const char *http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    bad_server((const uint8_t *)http, strlen(http), 0,
               "bad WebSocket upgrade request: request target '/' is not /WebSocket");
    const char *post = "POST /WebSocket HTTP/1.1\r\n\r\n";
    bad_server((const uint8_t *)post, strlen(post), 0, "ConnectReq length 20559 is outside");
    uint8_t b[TP_RIPC_HS_MAX];
    size_t n = ts_hex("00 05 00 00 00", b, sizeof(b));
    bad_server(b, n, 0, "ConnectReq length 5 is outside 14..1024");
    n = ts_hex("00 40 00 00 00 00 17", b, sizeof(b));
    bad_server(b, n, 1, "connection closed by peer while waiting for the ConnectReq");
    tp_ripc_req r = {.gen = 14,
                     .flags = 8,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .host = {"h", 1},
                     .ip = {"1.2.3.4", 7},
                     .component = {"c", 1}};
    int len = tp_ripc_req_encode(&r, b, sizeof(b));
    b[6] = 0x12; /* connVersion 0x12 */
    bad_server(b, (size_t)len, 0, "unknown RIPC connection version 0x12");
    len = tp_ripc_req_encode(&r, b, sizeof(b));
    b[8] += 2; /* header length */
    bad_server(b, (size_t)len, 0, "header length");
    len = tp_ripc_req_encode(&r, b, sizeof(b));
    b[len - 2] = 9; /* component string length past the block */
    bad_server(b, (size_t)len, 0, "component");
    /* bad key messages after a good request */
    len = tp_ripc_req_encode(&r, b, sizeof(b));
    n = (size_t)len + ts_hex("00 05 07 00 00", b + len, sizeof(b) - (size_t)len);
    bad_server(b, n, 0, "opcode 0x07");
    n = (size_t)len + ts_hex("00 30", b + len, sizeof(b) - (size_t)len);
    bad_server(b, n, 0, "v14 client key length 48 is outside 4..22");
    n = (size_t)len + ts_hex("00 07 08 08 00 00 00", b + len, sizeof(b) - (size_t)len);
    bad_server(b, n, 0, "does not fill");
    /* the original client's zero-length key (P = 0) is fine */
    n = (size_t)len + ts_hex("00 04 08 00", b + len, sizeof(b) - (size_t)len);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    o.zero_key = true;
    tp_channel *ch;
    assert_int_equal(tp_adopt(sv[0], true, &o, &ch), 0);
    assert_int_equal(write(sv[1], b, n), (ssize_t)n);
    assert_int_equal(tp_init_wait(ch, 5000), TP_ACTIVE);
    tp_close(ch);
    close(sv[1]);
}

/* A bad client does not disturb the server or its other channels. */
static void test_server_survives(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    tu_pair good;
    tu_connect(&good, &so, &co);
    /* a garbage client on the same server */
    tp_channel *bad = NULL, *cbad;
    tp_opts go = co;
    go.protocol_type = 88; /* refused */
    assert_int_equal(tp_connect(&go, &cbad), 0);
    uint64_t end = tu_now_ms() + 5000;
    int rb = TP_PENDING, rc = TP_PENDING;
    while ((rb >= 0 || rc >= 0) && tu_now_ms() < end) {
        if (!bad)
            tp_accept(good.srv, &bad);
        if (bad && rb >= 0 && rb != TP_ACTIVE)
            rb = tp_init(bad);
        if (rc >= 0 && rc != TP_ACTIVE)
            rc = tp_init(cbad);
        poll(NULL, 0, 1);
    }
    assert_true(rb < 0 && rc < 0);
    tp_close(bad);
    tp_close(cbad);
    tu_transfer(good.c, good.s, 1000, 1, 0);
    tu_transfer(good.s, good.c, 1000, 2, 0);
    tu_close(&good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_header),
        cmocka_unit_test(test_extended_and_fragments),
        cmocka_unit_test(test_packing),
        cmocka_unit_test(test_unusual_but_valid),
        cmocka_unit_test(test_zlib),
        cmocka_unit_test(test_lz4),
        cmocka_unit_test(test_lz4_largest_message),
        cmocka_unit_test(test_server_handshake),
        cmocka_unit_test(test_server_survives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
