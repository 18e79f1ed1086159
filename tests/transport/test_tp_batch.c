/* tp_read_batch() and tp_read_frames(): the same messages in the same order as tp_read() for
 * every kind of frame (plain, extended-header, packed with empty entries, fragments
 * interleaved with other frames, pings, compressed with zlib and lz4, split compressed frames,
 * compressed packed frames), whatever pieces the bytes arrive in and whatever the batch size;
 * every view of a batch still holds its message when the batch is complete; TP_READ_MORE /
 * *more never leave a complete message behind; a recv() that fills the input area is followed
 * by another read without waiting for the descriptor; messages before a malformed frame come
 * first; by frames, a packed frame's messages come in runs between its empty entries. */
#include <lz4.h>
#include <zlib.h>

#include "tp_rawpeer.h"

#define MAX_USER 6144
#define FRAG_ID 2 /* RIPC 14: two-byte fragment ids */

/* The server's byte stream as the test makes it, and the messages it must deliver, in the
 * order they complete: exp[i] is exp[i].size bytes of tu_pattern(exp[i].seed). */
typedef struct want {
    uint32_t size, seed;
} want;

typedef struct gen {
    uint8_t *buf;
    size_t len, cap;
    want *exp;
    size_t n, ncap;
    uint32_t seed; /* of the next message made */
    uint32_t rng;
    int comp;
    z_stream z;
    uint16_t next_id;
} gen;

static uint32_t rnd(gen *g, uint32_t n)
{
    g->rng = g->rng * 1103515245u + 12345u;
    return (g->rng >> 8) % n;
}

static void put(gen *g, const void *p, size_t n)
{
    if (g->len + n > g->cap) {
        g->cap = (g->len + n) * 2;
        g->buf = realloc(g->buf, g->cap);
        assert_non_null(g->buf);
    }
    memcpy(g->buf + g->len, p, n);
    g->len += n;
}

static void put16(gen *g, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(g, b, 2);
}

/* A new message of n bytes written to out; returns its seed. */
static uint32_t make(gen *g, uint8_t *out, uint32_t n)
{
    uint32_t seed = g->seed++;
    tu_pattern(out, n, seed);
    return seed;
}

/* The message (n bytes, seed) is the next one to be delivered. */
static void expect(gen *g, uint32_t n, uint32_t seed)
{
    if (g->n == g->ncap) {
        g->ncap = g->ncap ? 2 * g->ncap : 1024;
        g->exp = realloc(g->exp, g->ncap * sizeof(*g->exp));
        assert_non_null(g->exp);
    }
    g->exp[g->n++] = (want){n, seed};
}

/* Payload sizes: mostly small, some up to the maximum. */
static uint32_t size_of(gen *g, uint32_t max)
{
    uint32_t n;
    switch (rnd(g, 8)) {
    case 0:
        n = 1 + rnd(g, MAX_USER);
        break;
    case 1:
        n = 16 + rnd(g, 16);
        break;
    default:
        n = 1 + rnd(g, 200);
    }
    return n > max ? max : n;
}

static void frame(gen *g, uint8_t flags, const uint8_t *pay, uint32_t n)
{
    put16(g, n + 3);
    put(g, &flags, 1);
    put(g, pay, n);
}

/* Compresses n bytes at src into dst. Returns the compressed length. */
static uint32_t squeeze(gen *g, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap)
{
    if (g->comp == TP_COMP_LZ4) {
        int cl = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        assert_true(cl > 0);
        return (uint32_t)cl;
    }
    g->z.next_in = (uint8_t *)src;
    g->z.avail_in = n;
    g->z.next_out = dst;
    g->z.avail_out = cap;
    assert_int_equal(deflate(&g->z, Z_SYNC_FLUSH), Z_OK);
    assert_int_equal(g->z.avail_in, 0);
    return cap - g->z.avail_out;
}

/* A compressed frame of n payload bytes (flags 0x04, or 0x14 for a packed series), whole or
 * split in two frames (0x0C / 0x1C, then 0x04) when it does not fit one frame or by chance. */
static void comp_frame(gen *g, uint8_t extra, const uint8_t *pay, uint32_t n)
{
    static uint8_t c[2 * MAX_USER + 1024];
    uint32_t cl = squeeze(g, pay, n, c, sizeof(c));
    if (cl + 3 <= MAX_USER + 17 && rnd(g, 3)) {
        frame(g, (uint8_t)(0x04 | extra), c, cl);
        return;
    }
    uint32_t k = cl / 2;
    frame(g, (uint8_t)(0x0C | extra), c, k);
    frame(g, 0x04, c + k, cl - k);
}

/* A packed series of up to 12 messages (some empty, which are skipped) in pay; returns its
 * length. The messages are expected in order. */
static uint32_t packed(gen *g, uint8_t *pay)
{
    uint32_t n = 0, k = 1 + rnd(g, 12);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t m = rnd(g, 5) == 0 ? 0 : 1 + rnd(g, 120);
        if (n + 2 + m > MAX_USER)
            break;
        pay[n] = (uint8_t)(m >> 8);
        pay[n + 1] = (uint8_t)m;
        if (m)
            expect(g, m, make(g, pay + n + 2, m));
        n += 2 + m;
    }
    return n;
}

/* One message sent in fragments, with plain frames of other messages between them; it is
 * delivered when its last fragment arrives. */
static void fragmented(gen *g)
{
    static uint8_t m[40000];
    uint16_t id = g->next_id;
    g->next_id = (uint16_t)(g->next_id == 0xFFFF ? 1 : g->next_id + 1);
    uint32_t total = 7000 + rnd(g, sizeof(m) - 7000);
    uint32_t seed = make(g, m, total);
    for (uint32_t off = 0; off < total;) {
        bool first = off == 0;
        uint32_t chunk = 1 + rnd(g, MAX_USER - 12);
        if (chunk > total - off)
            chunk = total - off;
        uint8_t h[10];
        uint32_t hn = 0;
        h[hn++] = 0x03;
        h[hn++] = first ? 0x08 : 0x04;
        if (first) {
            h[hn++] = (uint8_t)(total >> 24), h[hn++] = (uint8_t)(total >> 16);
            h[hn++] = (uint8_t)(total >> 8), h[hn++] = (uint8_t)total;
        }
        h[hn++] = (uint8_t)(id >> 8), h[hn++] = (uint8_t)id;
        put16(g, 2 + hn + chunk);
        put(g, h, hn);
        put(g, m + off, chunk);
        off += chunk;
        if (off < total && rnd(g, 2)) {
            uint8_t p[100];
            uint32_t n = 1 + rnd(g, sizeof(p));
            expect(g, n, make(g, p, n));
            frame(g, 0x02, p, n);
        }
    }
    expect(g, total, seed);
}

/* Appends frames until the stream holds at least bytes. */
static void gen_frames(gen *g, size_t bytes)
{
    static uint8_t p[MAX_USER];
    while (g->len < bytes) {
        uint32_t kind = rnd(g, 20), n;
        switch (kind) {
        case 0: /* ping, and an empty packed frame (also a ping) */
            frame(g, 0x02, p, 0);
            frame(g, 0x12, p, 0);
            break;
        case 1: /* extended flags 0: plain data with a 4-byte header */
            n = size_of(g, MAX_USER - 1);
            expect(g, n, make(g, p + 1, n));
            p[0] = 0x00;
            frame(g, 0x03, p, n + 1);
            break;
        case 2:
        case 3:
            n = packed(g, p);
            frame(g, 0x12, p, n);
            break;
        case 4:
            fragmented(g);
            break;
        case 5:
        case 6:
        case 7:
            if (g->comp) {
                if (kind == 7) {
                    n = packed(g, p);
                    comp_frame(g, 0x10, p, n);
                } else {
                    n = size_of(g, MAX_USER);
                    expect(g, n, make(g, p, n));
                    comp_frame(g, 0, p, n);
                }
                break;
            }
            /* fall through */
        default:
            n = size_of(g, MAX_USER);
            expect(g, n, make(g, p, n));
            frame(g, 0x02, p, n);
        }
    }
}

static void gen_init(gen *g, int comp, uint32_t seed)
{
    memset(g, 0, sizeof(*g));
    g->rng = seed;
    g->comp = comp;
    g->next_id = 1;
    if (comp == TP_COMP_ZLIB)
        assert_int_equal(deflateInit(&g->z, 6), Z_OK);
}

static void gen_free(gen *g)
{
    if (g->comp == TP_COMP_ZLIB)
        deflateEnd(&g->z);
    free(g->buf);
    free(g->exp);
}

/* m is expected message i of g. */
static void check(const gen *g, size_t i, const tp_msg *m)
{
    static uint8_t want_buf[40000];
    if (i >= g->n)
        fail_msg("message %zu delivered, only %zu were sent", i, g->n);
    const want *w = &g->exp[i];
    if (m->len != w->size)
        fail_msg("message %zu: %u bytes, %u expected", i, m->len, w->size);
    tu_pattern(want_buf, w->size, w->seed);
    if (memcmp(m->data, want_buf, w->size) != 0)
        fail_msg("message %zu (%u bytes): wrong content", i, w->size);
}

static bool readable(int fd)
{
    struct pollfd f = {.fd = fd, .events = POLLIN};
    return poll(&f, 1, 0) > 0 && (f.revents & POLLIN);
}

/* Everything ch holds and its socket has, one message per tp_read() until it returns 0. */
static void read_single(peer *p, const gen *g, size_t *at)
{
    for (;;) {
        tp_msg m;
        int rc = tp_read(p->ch, &m);
        if (rc < 0)
            fail_msg("tp_read: %s", err_msg());
        if (rc & TP_READ_MSG)
            check(g, (*at)++, &m);
        if (rc == 0)
            return;
    }
}

/* Everything ch holds and its socket has, in batches of up to max, until *more is false:
 * then nothing complete may be left in the channel, nor anything in the socket (the test
 * wrote it all before reading). The views of a batch are checked once it is complete. */
static void read_batches(peer *p, const gen *g, size_t *at, int max)
{
    tp_msg ms[64];
    assert_true(max >= 1 && max <= 64);
    for (;;) {
        bool more = true;
        int n = tp_read_batch(p->ch, ms, max, &more);
        if (n < 0)
            fail_msg("tp_read_batch: %s", err_msg());
        assert_true(n <= max);
        for (int i = 0; i < n; i++)
            check(g, (*at)++, &ms[i]);
        if (!more) {
            assert_false(tp_read_ready(p->ch));
            assert_false(readable(tp_fd(p->ch)));
            return;
        }
    }
}

/* read_batches() by tp_read_frames(): every message of every frame (walked with
 * tp_frame_next()) checked once the frames are complete; a packed frame holds `packed`
 * messages, at least one, its bytes being theirs and two a length. */
static void read_frames(peer *p, const gen *g, size_t *at, int max)
{
    tp_frame fs[64];
    assert_true(max >= 1 && max <= 64);
    for (;;) {
        bool more = true;
        int n = tp_read_frames(p->ch, fs, max, &more);
        if (n < 0)
            fail_msg("tp_read_frames: %s", err_msg());
        assert_true(n <= max);
        for (int i = 0; i < n; i++) {
            const uint8_t *pos = fs[i].data;
            tp_msg m;
            uint32_t k = 0, bytes = 0;
            while (tp_frame_next(&fs[i], &pos, &m)) {
                assert_true(m.len > 0);
                check(g, (*at)++, &m);
                k++;
                bytes += m.len;
            }
            assert_int_equal(k, fs[i].packed ? fs[i].packed : 1);
            if (fs[i].packed)
                assert_int_equal(fs[i].len, bytes + 2 * k);
        }
        if (!more) {
            assert_false(tp_read_ready(p->ch));
            assert_false(readable(tp_fd(p->ch)));
            return;
        }
    }
}

/* The stream of g fed in pieces (some of a few bytes, so that frames and their headers are
 * cut everywhere; some larger than the input area) to a channel read with tp_read(), to one
 * read with tp_read_batch() and to one read with tp_read_frames() of changing sizes: all
 * deliver every message, in order, and count alike. */
static void same_messages(int comp, uint32_t seed)
{
    gen g;
    gen_init(&g, comp, seed);
    gen_frames(&g, 1500000);
    peer a = client_after_ack(14, comp), b = client_after_ack(14, comp),
         c = client_after_ack(14, comp);
    size_t at_a = 0, at_b = 0, at_c = 0;
    for (size_t off = 0; off < g.len;) {
        size_t piece;
        switch (rnd(&g, 6)) {
        case 0:
            piece = 1 + rnd(&g, 8);
            break;
        case 1:
            piece = 131072 + rnd(&g, 40000); /* more than the input area */
            break;
        default:
            piece = 1 + rnd(&g, 40000);
        }
        if (piece > g.len - off)
            piece = g.len - off;
        feed(&a, g.buf + off, piece);
        feed(&b, g.buf + off, piece);
        feed(&c, g.buf + off, piece);
        off += piece;
        read_single(&a, &g, &at_a);
        read_batches(&b, &g, &at_b, 1 + (int)rnd(&g, rnd(&g, 4) ? 64 : 3));
        read_frames(&c, &g, &at_c, 1 + (int)rnd(&g, rnd(&g, 4) ? 64 : 3));
    }
    assert_int_equal(at_a, g.n);
    assert_int_equal(at_b, g.n);
    assert_int_equal(at_c, g.n);
    tp_stats sa, sb, sc;
    tp_get_stats(a.ch, &sa);
    tp_get_stats(b.ch, &sb);
    tp_get_stats(c.ch, &sc);
    assert_int_equal(sa.msgs_read, g.n);
    assert_int_equal(sb.msgs_read, g.n);
    assert_int_equal(sc.msgs_read, g.n);
    assert_int_equal(sa.pings_read, sb.pings_read);
    assert_int_equal(sa.pings_read, sc.pings_read);
    assert_int_equal(sa.bytes_read, sb.bytes_read);
    assert_int_equal(sa.bytes_read, sc.bytes_read);
    done(&a);
    done(&b);
    done(&c);
    gen_free(&g);
}

static void test_same_messages(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 4; seed++)
        same_messages(TP_COMP_NONE, seed);
}

static void test_same_messages_lz4(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        same_messages(TP_COMP_LZ4, seed);
}

static void test_same_messages_zlib(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        same_messages(TP_COMP_ZLIB, seed);
}

/* More than the input area waits in the socket: the recv() that fills the area is followed
 * by another, without the descriptor being asked, until the socket is empty. */
static void test_full_input_area(void **state)
{
    (void)state;
    gen g;
    gen_init(&g, TP_COMP_NONE, 7);
    static uint8_t p[100];
    while (g.len < 140000) {
        expect(&g, sizeof(p), make(&g, p, sizeof(p)));
        frame(&g, 0x02, p, sizeof(p));
    }
    for (int batch = 0; batch < 2; batch++) {
        peer a = client_after_ack(14, TP_COMP_NONE);
        feed(&a, g.buf, g.len);
        size_t at = 0;
        if (batch) {
            read_batches(&a, &g, &at, 64);
        } else { /* tp_read: TP_READ_MORE until the socket is empty */
            for (;;) {
                tp_msg m;
                int rc = tp_read(a.ch, &m);
                assert_true(rc >= 0);
                if (rc & TP_READ_MSG)
                    check(&g, at++, &m);
                if (!(rc & TP_READ_MORE))
                    break;
            }
        }
        assert_int_equal(at, g.n);
        assert_false(readable(tp_fd(a.ch)));
        tp_stats st;
        tp_get_stats(a.ch, &st);
        assert_int_equal(st.bytes_read, g.len);
        done(&a);
    }
    gen_free(&g);
}

/* Messages before a malformed frame are delivered; the failure comes with the next call. */
static void test_malformed_after_good(void **state)
{
    (void)state;
    peer p = client_after_ack(14, TP_COMP_NONE);
    uint8_t b[64];
    size_t n = ts_hex("00 04 02 41  00 06 12 00 01 42  00 04 02 43  00 04 22 44", b, sizeof(b));
    feed(&p, b, n);
    tp_msg ms[8];
    bool more = false;
    uint64_t end = tu_now_ms() + 5000;
    int got;
    while ((got = tp_read_batch(p.ch, ms, 8, &more)) == 0 && !more) {
        assert_true(tu_now_ms() < end);
        poll(&(struct pollfd){.fd = tp_fd(p.ch), .events = POLLIN}, 1, 10);
    }
    assert_int_equal(got, 3);
    assert_true(more);
    ts_assert_bytes_equal(ms[0].data, ms[0].len, "A", 1);
    ts_assert_bytes_equal(ms[1].data, ms[1].len, "B", 1);
    ts_assert_bytes_equal(ms[2].data, ms[2].len, "C", 1);
    assert_int_equal(tp_read_batch(p.ch, ms, 8, &more), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "unknown flags 0x22"));
    assert_int_equal(tp_read_batch(p.ch, ms, 8, &more), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "unknown flags 0x22"));
    done(&p);
}

/* By frames: the well-formed entries of a packed frame before an empty one, then those after
 * it, as two frames; before a length that does not fit, one frame, the failure (the
 * transport's text) with the next call. */
static void test_frames_malformed(void **state)
{
    (void)state;
    peer p = client_after_ack(14, TP_COMP_NONE);
    uint8_t b[64];
    size_t n = ts_hex("00 04 02 41  00 0f 12 00 01 42 00 02 43 44 00 00 00 01 45  "
                      "00 0d 12 00 01 46 00 02 47 48 00 09 49",
                      b, sizeof(b));
    feed(&p, b, n);
    tp_frame fs[8];
    bool more = false;
    uint64_t end = tu_now_ms() + 5000;
    int got;
    while ((got = tp_read_frames(p.ch, fs, 8, &more)) == 0 && !more) {
        assert_true(tu_now_ms() < end);
        poll(&(struct pollfd){.fd = tp_fd(p.ch), .events = POLLIN}, 1, 10);
    }
    assert_int_equal(got, 4);
    assert_true(more);
    assert_int_equal(fs[0].packed, 0);
    ts_assert_bytes_equal(fs[0].data, fs[0].len, "A", 1);
    assert_int_equal(fs[1].packed, 2);
    ts_assert_bytes_equal(fs[1].data, fs[1].len, "\x00\x01\x42\x00\x02\x43\x44", 7);
    assert_int_equal(fs[2].packed, 1);
    ts_assert_bytes_equal(fs[2].data, fs[2].len, "\x00\x01\x45", 3);
    assert_int_equal(fs[3].packed, 2);
    ts_assert_bytes_equal(fs[3].data, fs[3].len, "\x00\x01\x46\x00\x02\x47\x48", 7);
    assert_int_equal(tp_read_frames(p.ch, fs, 8, &more), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "exceeds the 1 bytes left in its frame"));
    tp_stats st;
    tp_get_stats(p.ch, &st);
    assert_int_equal(st.msgs_read, 6);
    done(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_messages),        cmocka_unit_test(test_same_messages_lz4),
        cmocka_unit_test(test_same_messages_zlib),   cmocka_unit_test(test_full_input_area),
        cmocka_unit_test(test_malformed_after_good), cmocka_unit_test(test_frames_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
