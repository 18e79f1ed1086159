/* The bytes our writer puts on the wire, read raw from the other end of a socketpair:
 * frame headers, fragmentation (ETA's chunk sizes and fragment ids), packing, pings,
 * TransportPerf messages, and the zlib stream (one header, sync-flush endings). */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "tp_ripc.h"
#include "tp_testutil.h"

typedef struct wire {
    tp_channel *ch;
    int fd;
} wire;

/* Our client, active after a v<gen> ConnectAck with the given compression and level. */
static wire client(int gen, int comp, int level)
{
    wire w;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    w.fd = sv[1];
    tp_opts o;
    tp_opts_init(&o);
    o.ripc_version = (uint8_t)gen;
    o.compression = (tp_comp)comp;
    o.guaranteed_output_buffers = 100;
    assert_int_equal(tp_adopt(sv[0], false, &o, &w.ch), 0);
    uint8_t req[TP_RIPC_HS_MAX];
    size_t got = 0;
    while (got < 2 || got < ((size_t)req[0] << 8 | req[1])) {
        tp_init(w.ch);
        ssize_t r = recv(w.fd, req + got, sizeof(req) - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
    }
    tp_ripc_ack a = {.gen = (uint8_t)gen,
                     .flags = 1,
                     .max_user = 6144,
                     .session_flags = 3,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .compression = (uint16_t)comp,
                     .zlib_level = (uint8_t)level,
                     .has_key = gen >= 14,
                     .key_type = 1};
    uint8_t ack[128];
    int n = tp_ripc_ack_encode(&a, ack, sizeof(ack));
    assert_int_equal(write(w.fd, ack, (size_t)n), n);
    assert_int_equal(tp_init_wait(w.ch, 5000), TP_ACTIVE);
    if (gen >= 14) { /* our key message: P = 0 in this ack, so the 4-byte form */
        uint8_t key[4];
        assert_int_equal(read(w.fd, key, 4), 4);
        uint8_t want[] = {0x00, 0x04, 0x08, 0x00};
        assert_memory_equal(key, want, 4);
    }
    return w;
}

/* Reads the next frame (header included) from the raw end. */
static size_t frame(wire *w, uint8_t *out, size_t cap)
{
    size_t got = 0, need = 2;
    while (got < need) {
        ssize_t r = read(w->fd, out + got, need - got);
        assert_true(r > 0);
        got += (size_t)r;
        if (got == 2) {
            need = (size_t)out[0] << 8 | out[1];
            assert_true(need >= 3 && need <= cap);
        }
    }
    return got;
}

static void send_msg(wire *w, const uint8_t *p, uint32_t n)
{
    tp_buf *b;
    assert_int_equal(tp_get_buffer(w->ch, n, false, &b), 0);
    memcpy(b->data, p, n);
    b->len = n;
    int rc;
    while ((rc = tp_write(w->ch, b, 0)) == TP_ECALLAGAIN)
        tp_flush(w->ch);
    assert_true(rc >= 0);
    while (tp_flush(w->ch) > 0)
        ;
}

static void done(wire *w)
{
    tp_close(w->ch);
    close(w->fd);
}

/* docs/wire.md#fragmentation: a 13000-byte message at v14 with maxUserMsgSize 6144 is three frames
 * of 6128, 6132 and 740 bytes with 2-byte fragment id 1; at v12 the id is one byte. */
static void test_fragments(void **state)
{
    (void)state;
    static uint8_t msg[13000], f[7000];
    tu_pattern(msg, sizeof(msg), 3);
    for (int gen = 12; gen <= 14; gen += 2) {
        wire w = client(gen, 0, 0);
        for (int id = 1; id <= 2; id++) {
            send_msg(&w, msg, sizeof(msg));
            size_t idb = gen >= 13 ? 2 : 1, off = 0;
            size_t n = frame(&w, f, sizeof(f));
            uint8_t h1[] = {0x03, 0x08, 0x00, 0x00, 0x32, 0xC8};
            assert_int_equal(n, 4 + 4 + idb + 6128);
            assert_memory_equal(f + 2, h1, sizeof(h1));
            assert_int_equal(idb == 2 ? (f[8] << 8 | f[9]) : f[8], id);
            assert_memory_equal(f + 8 + idb, msg, 6128);
            off += 6128;
            n = frame(&w, f, sizeof(f));
            assert_int_equal(n, 4 + idb + 6132);
            assert_true(f[2] == 0x03 && f[3] == 0x04);
            assert_int_equal(idb == 2 ? (f[4] << 8 | f[5]) : f[4], id);
            assert_memory_equal(f + 4 + idb, msg + off, 6132);
            off += 6132;
            n = frame(&w, f, sizeof(f));
            assert_int_equal(n, 4 + idb + 740);
            assert_memory_equal(f + 4 + idb, msg + off, 740);
        }
        done(&w);
    }
}

/* A packed buffer: [len][msg]... with no trailing empty entry; a ping; a TransportPerf
 * message as in §8.1. */
static void test_packed_ping_plain(void **state)
{
    (void)state;
    wire w = client(14, 0, 0);
    tp_buf *b;
    assert_int_equal(tp_get_buffer(w.ch, 100, true, &b), 0);
    static const uint8_t close_msg[10] = {0x00, 0x08, 0x05, 0x06, 0x00,
                                          0x00, 0x00, 0x05, 0x00, 0x00};
    memcpy(b->data, close_msg, 10);
    b->len = 10;
    assert_int_equal(tp_pack(w.ch, b), 0);
    memcpy(b->data, close_msg, 10);
    b->len = 10;
    assert_int_equal(tp_pack(w.ch, b), 0);
    b->len = 0;
    assert_true(tp_write(w.ch, b, TP_WRITE_DIRECT) >= 0);
    uint8_t f[100], want[100];
    size_t n = frame(&w, f, sizeof(f));
    size_t wn = ts_hex("00 1B 12 00 0A 00 08 05 06 00 00 00 05 00 00 00"
                       "0A 00 08 05 06 00 00 00 05 00 00",
                       want, sizeof(want));
    ts_assert_bytes_equal(f, n, want, wn);
    assert_int_equal(tp_ping(w.ch), 0);
    n = frame(&w, f, sizeof(f));
    ts_assert_bytes_equal(f, n, "\x00\x03\x02", 3);
    uint8_t tpm[76] = {0};
    uint64_t seq = 5, ts = 0x0000123456789ABCull;
    memcpy(tpm, &seq, 8);
    memcpy(tpm + 8, &ts, 8);
    send_msg(&w, tpm, 76);
    n = frame(&w, f, sizeof(f));
    wn = ts_hex("00 4F 02 05 00 00 00 00 00 00 00 BC 9A 78 56 34 12 00 00", want, sizeof(want));
    assert_int_equal(n, 79);
    ts_assert_bytes_equal(f, 19, want, wn);
    done(&w);
}

/* zlib: the first compressed frame starts with the zlib header of the level, every
 * compressed frame ends with the sync-flush marker, and a plain inflate stream over the
 * frames' payloads gives the messages back; small messages go uncompressed. */
static void test_zlib_stream(void **state)
{
    (void)state;
    struct {
        int level;
        uint8_t h0, h1;
    } lv[] = {{0, 0x78, 0x01}, {5, 0x78, 0x5E}, {6, 0x78, 0x9C}, {9, 0x78, 0xDA}};
    for (size_t k = 0; k < sizeof(lv) / sizeof(lv[0]); k++) {
        wire w = client(14, TP_COMP_ZLIB, lv[k].level);
        z_stream z;
        memset(&z, 0, sizeof(z));
        assert_int_equal(inflateInit(&z), Z_OK);
        static uint8_t msg[6144], f[7000], out[70000];
        for (int i = 0; i < 5; i++) {
            uint32_t len = i == 0 ? 29 : (i == 1 ? 30 : 1000u * (uint32_t)i);
            for (uint32_t j = 0; j < len; j++)
                msg[j] = (uint8_t)("abcdefgh"[j % 8] + i);
            send_msg(&w, msg, len);
            size_t n = frame(&w, f, sizeof(f));
            if (len < 30) {
                assert_int_equal(f[2], 0x02);
                ts_assert_bytes_equal(f + 3, n - 3, msg, len);
                continue;
            }
            assert_int_equal(f[2], 0x04);
            if (i == 1) {
                assert_int_equal(f[3], lv[k].h0);
                assert_int_equal(f[4], lv[k].h1);
            }
            uint8_t tail[4] = {0x00, 0x00, 0xFF, 0xFF};
            assert_memory_equal(f + n - 4, tail, 4);
            z.next_in = f + 3;
            z.avail_in = (uInt)(n - 3);
            z.next_out = out;
            z.avail_out = sizeof(out);
            assert_int_equal(inflate(&z, Z_SYNC_FLUSH), Z_OK);
            ts_assert_bytes_equal(out, sizeof(out) - z.avail_out, msg, len);
        }
        inflateEnd(&z);
        done(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fragments),
        cmocka_unit_test(test_packed_ping_plain),
        cmocka_unit_test(test_zlib_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
