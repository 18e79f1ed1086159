/* Each captured server-to-client byte stream of the original tools, replayed into our client
 * through a socketpair, yields the messages the stream carries: checked against a plain
 * reference walk of the framing (with zlib/lz4 undone independently), and against what the
 * messages must contain (TransportPerf sequence numbers, the login refresh). */
#include <fcntl.h>
#include <lz4.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "tp_testutil.h"

typedef struct vec {
    const char *dir;
    uint16_t port;
    uint32_t tp_size; /* TransportPerf message size, 0 for ConsPerf/ProvPerf */
} vec;

static const vec vecs[] = {
    {"consprov_default", 14002, 0},
    {"consprov_tcpdelay", 14002, 0},
    {"consprov_pack", 14002, 0},
    {"consprov_zlib", 14002, 0},
    {"consprov_lz4", 14002, 0},
    {"transportperf_socket", 15000, 76},
    {"transportperf_socket_pack", 15000, 76},
    {"transportperf_zlib", 15000, 76},
    {"transportperf_lz4", 15000, 76},
    {"transportperf_zlib_msg512", 15000, 512},
    {"transportperf_lz4_msg512", 15000, 512},
    {"transportperf_reflect", 15000, 76},
};

typedef struct msgs {
    ts_bytes data;
    uint32_t *len;
    size_t n, cap;
} msgs;

static void msgs_add(msgs *m, const uint8_t *p, uint32_t len)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->len = realloc(m->len, m->cap * sizeof(uint32_t));
        assert_non_null(m->len);
    }
    m->len[m->n++] = len;
    ts_bytes_append(&m->data, p, len);
}

static void msgs_free(msgs *m)
{
    ts_bytes_free(&m->data);
    free(m->len);
    memset(m, 0, sizeof(*m));
}

/* Reference: walks the frames after the ConnectAck and collects the messages, undoing
 * compression with its own inflate stream / lz4 calls. Counts frame kinds. */
static void reference(const uint8_t *s, size_t n, int comp, msgs *out, int *pings, int *compressed)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(inflateInit(&z), Z_OK);
    static uint8_t dec[70000];
    size_t off = (size_t)s[0] << 8 | s[1]; /* skip the ack */
    while (off + 3 <= n) {
        size_t fl = (size_t)s[off] << 8 | s[off + 1];
        if (off + fl > n)
            break; /* capture ends inside a frame */
        uint8_t flags = s[off + 2];
        const uint8_t *pay = s + off + 3;
        size_t plen = fl - 3;
        if (flags & 0x04) {
            (*compressed)++;
            if (comp == 1) {
                z.next_in = (Bytef *)(uintptr_t)pay;
                z.avail_in = (uInt)plen;
                z.next_out = dec;
                z.avail_out = sizeof(dec);
                assert_int_equal(inflate(&z, Z_SYNC_FLUSH), Z_OK);
                plen = sizeof(dec) - z.avail_out;
            } else {
                int r = LZ4_decompress_safe((const char *)pay, (char *)dec, (int)plen,
                                            (int)sizeof(dec));
                assert_true(r >= 0);
                plen = (size_t)r;
            }
            pay = dec;
        }
        if (plen == 0) {
            (*pings)++;
        } else if (flags & 0x10) {
            size_t p = 0;
            while (p + 2 <= plen) {
                size_t l = (size_t)pay[p] << 8 | pay[p + 1];
                if (l)
                    msgs_add(out, pay + p + 2, (uint32_t)l);
                p += 2 + l;
            }
            assert_int_equal(p, plen);
        } else {
            msgs_add(out, pay, (uint32_t)plen);
        }
        off += fl;
    }
    inflateEnd(&z);
}

/* Replays the stream into our client and collects what tp_read returns. */
static void replay(const uint8_t *s, size_t n, msgs *out, int *pings)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *ch;
    assert_int_equal(tp_adopt(sv[0], false, &o, &ch), 0);
    size_t sent = 0;
    uint8_t sink[4096];
    uint64_t end = tu_now_ms() + 10000;
    int active = 0;
    for (;;) {
        assert_true(tu_now_ms() < end);
        if (sent < n) {
            ssize_t w = write(sv[1], s + sent, n - sent);
            if (w > 0)
                sent += (size_t)w;
            if (sent == n)
                shutdown(sv[1], SHUT_WR);
        }
        while (read(sv[1], sink, sizeof(sink)) > 0) /* our ConnectReq and key message */
            ;
        if (!active) {
            int rc = tp_init(ch);
            assert_true(rc >= 0);
            active = rc == TP_ACTIVE;
            continue;
        }
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0) {
            /* the capture ends: end of file after the last complete frame (or inside one) */
            assert_non_null(strstr(err_msg(), "connection closed by peer"));
            break;
        }
        if (rc & TP_READ_MSG)
            msgs_add(out, m.data, m.len);
        if (rc & TP_READ_PING)
            (*pings)++;
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = sv[0], .events = POLLIN};
            poll(&f, 1, 1);
        }
    }
    tp_close(ch);
    close(sv[1]);
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void first_message(const char *dir, msgs *m)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", dir, dir);
    ts_tcp_streams s;
    assert_int_equal(ts_pcap_tcp_streams(ts_capture(rel), 14002, &s), 0);
    int pings = 0;
    replay(s.server_to_client.data, s.server_to_client.len, m, &pings);
    ts_tcp_streams_free(&s);
}

static void test_replay_all(void **state)
{
    (void)state;
    msgs login = {0};
    first_message("consprov_default", &login);
    assert_true(login.n > 2);
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        const vec *v = &vecs[i];
        char rel[256];
        snprintf(rel, sizeof(rel), "%s/%s.pcap", v->dir, v->dir);
        ts_tcp_streams s;
        assert_int_equal(ts_pcap_tcp_streams(ts_capture(rel), v->port, &s), 0);
        const uint8_t *st = s.server_to_client.data;
        int comp = st[0x11];
        msgs want = {0}, got = {0};
        int rpings = 0, gpings = 0, ncomp = 0;
        reference(st, s.server_to_client.len, comp, &want, &rpings, &ncomp);
        replay(st, s.server_to_client.len, &got, &gpings);
        printf("%-28s comp %d: %zu messages (%d compressed frames, %d pings)\n", v->dir, comp,
               got.n, ncomp, gpings);
        assert_true(want.n > 10);
        assert_int_equal(got.n, want.n);
        assert_int_equal(gpings, rpings);
        ts_assert_bytes_equal(got.data.data, got.data.len, want.data.data, want.data.len);
        for (size_t k = 0; k < got.n; k++)
            assert_int_equal(got.len[k], want.len[k]);
        if (comp)
            assert_true(ncomp > 0 || (strstr(v->dir, "lz4") && v->tp_size < 300));
        if (v->tp_size) {
            /* TransportPerf: every message msgSize bytes, consecutive sequence numbers */
            size_t off = 0;
            uint64_t first = le64(got.data.data);
            for (size_t k = 0; k < got.n; k++) {
                assert_int_equal(got.len[k], v->tp_size);
                assert_true(le64(got.data.data + off) == first + k);
                for (uint32_t b = 16; b < v->tp_size; b++)
                    assert_int_equal(got.data.data[off + b], 0);
                off += got.len[k];
            }
        } else {
            /* the login refresh and the directory refresh do not vary between runs */
            for (size_t k = 0; k < 2; k++)
                assert_int_equal(got.len[k], login.len[k]);
            ts_assert_bytes_equal(got.data.data, got.len[0] + got.len[1], login.data.data,
                                  login.len[0] + login.len[1]);
        }
        msgs_free(&want);
        msgs_free(&got);
        ts_tcp_streams_free(&s);
    }
    msgs_free(&login);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
