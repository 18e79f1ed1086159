/* WebSocket frames: header codec, masking, UTF-8, the in-place message reader (fragments,
 * interleaved control frames, every protocol violation with its close code, the size limit
 * that fails before the payload arrives), and the permessage-deflate codec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "testsupport.h"
#include "tp_ws.h"

static void test_header_roundtrip(void **st)
{
    (void)st;
    static const uint64_t lens[] = {0, 1, 125, 126, 127, 65535, 65536, 1ull << 40};
    static const uint8_t key[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (int m = 0; m < 2; m++) {
            uint8_t b[TP_WS_HDR_MAX];
            uint32_t n = tp_ws_hdr_write(b, i & 1, m, TP_WS_OP_TEXT, lens[i], m ? key : NULL);
            assert_int_equal(n, tp_ws_hdr_size(lens[i], m));
            tp_ws_hdr h;
            for (uint32_t k = 0; k < n; k++)
                assert_int_equal(tp_ws_hdr_parse(b, k, &h), 0);
            assert_int_equal(tp_ws_hdr_parse(b, n, &h), (int)n);
            assert_int_equal(h.len, lens[i]);
            assert_int_equal(h.fin, i & 1);
            assert_int_equal(h.rsv, m ? 4 : 0);
            assert_int_equal(h.masked, m);
            assert_int_equal(h.opcode, TP_WS_OP_TEXT);
            if (m)
                assert_memory_equal(h.key, key, 4);
        }
    /* headers seen in the captures of the original tools */
    uint8_t b[16];
    tp_ws_hdr h;
    size_t n = ts_hex("82c1539f6c3e", b, sizeof(b));
    assert_int_equal(tp_ws_hdr_parse(b, n, &h), 6);
    assert_true(h.fin && h.opcode == TP_WS_OP_BINARY && h.masked && h.len == 65);
    n = ts_hex("827e01f2", b, sizeof(b));
    assert_int_equal(tp_ws_hdr_parse(b, n, &h), 4);
    assert_true(!h.masked && h.len == 498);
    n = ts_hex("c17e00fe", b, sizeof(b));
    assert_int_equal(tp_ws_hdr_parse(b, n, &h), 4);
    assert_true(h.rsv == 4 && h.opcode == TP_WS_OP_TEXT && h.len == 254);
    uint8_t w[TP_WS_HDR_MAX];
    assert_int_equal(tp_ws_hdr_write(w, true, false, TP_WS_OP_BINARY, 498, NULL), 4);
    assert_memory_equal(w, "\x82\x7e\x01\xf2", 4);
    /* a 64-bit length with its top bit set */
    n = ts_hex("827f8000000000000001", b, sizeof(b));
    assert_int_equal(tp_ws_hdr_parse(b, n, &h), -1);
}

static void test_mask(void **st)
{
    (void)st;
    /* RFC 6455 section 5.7 */
    uint8_t p[] = "Hello";
    static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
    tp_ws_mask(p, 5, key, 0);
    assert_memory_equal(p, "\x7f\x9f\x4d\x51\x58", 5);
    tp_ws_mask(p, 5, key, 0);
    assert_memory_equal(p, "Hello", 5);
    /* in pieces with phases equals in one go, for every split and length */
    uint8_t a[100], b[100];
    for (int i = 0; i < 100; i++)
        a[i] = b[i] = (uint8_t)(i * 7 + 3);
    tp_ws_mask(a, 100, key, 0);
    for (uint32_t s = 0; s <= 100; s++) {
        uint8_t c[100];
        memcpy(c, b, 100);
        tp_ws_mask(c, s, key, 0);
        tp_ws_mask(c + s, 100 - s, key, s);
        assert_memory_equal(c, a, 100);
    }
}

/* The UTF-8 check in the form chosen last (tp_utf8_sse2): see test_utf8. */
static void utf8_form(void)
{
    typedef struct u {
        const char *s;
        int ok;
    } u;
    static const u cases[] = {
        {"plain ascii text longer than eight bytes", 1},
        {"\xc2\xa9 \xe2\x87\xa7 \xf0\x9f\x98\x80", 1}, /* 2, 3, 4 bytes */
        {"\xed\x9f\xbf", 1},                           /* U+D7FF */
        {"\xf4\x8f\xbf\xbf", 1},                       /* U+10FFFF */
        {"\xc0\x80", 0},                               /* overlong */
        {"\xe0\x80\xaf", 0},                           /* overlong */
        {"\xed\xa0\x80", 0},                           /* surrogate */
        {"\xf4\x90\x80\x80", 0},                       /* beyond U+10FFFF */
        {"\xf5\x80\x80\x80", 0},
        {"\xff", 0},
        {"abc\x80", 0},
        {"\xe2\x87", 0}, /* truncated */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const uint8_t *p = (const uint8_t *)cases[i].s;
        size_t n = strlen(cases[i].s);
        uint32_t s = tp_utf8_step(0, p, n);
        assert_int_equal(s == TP_UTF8_OK, cases[i].ok);
        /* byte by byte gives the same verdict */
        uint32_t t = 0;
        for (size_t k = 0; k < n && t != TP_UTF8_BAD; k++)
            t = tp_utf8_step(t, p + k, 1);
        assert_int_equal(t == TP_UTF8_OK, cases[i].ok);
    }
    /* long text, read 128, 64, 32, 16 and 8 bytes at a time: each sequence (valid: 2, 3, 4
     * bytes; bad: a lone continuation byte, an overlong form, a surrogate, a truncated sequence)
     * at every place of ASCII text of every length up to 70 bytes, around 128 and 256 bytes
     * and of every seventh length up to 300 bytes gives the verdict of the byte by byte reading,
     * and so does the text split in two at every place */
    static const u seqs[] = {
        {"\xc2\xa9", 1}, {"\xe2\x87\xa7", 1}, {"\xf0\x9f\x98\x80", 1}, {"\x80", 0},
        {"\xc0\xaf", 0}, {"\xed\xa0\x80", 0}, {"\xe2\x87", 0},
    };
    uint8_t text[310];
    for (size_t q = 0; q < sizeof(seqs) / sizeof(seqs[0]); q++) {
        size_t k = strlen(seqs[q].s);
        for (size_t n = k; n <= 300;
             n += n < 70 || (n >= 120 && n < 136) || (n >= 248 && n < 264) ? 1 : 7) {
            for (size_t at = 0; at + k <= n; at++) {
                memset(text, 'a', n);
                memcpy(text + at, seqs[q].s, k);
                uint32_t t = 0;
                for (size_t j = 0; j < n && t != TP_UTF8_BAD; j++)
                    t = tp_utf8_step(t, text + j, 1);
                int want = t == TP_UTF8_OK;
                assert_int_equal(want, seqs[q].ok);
                if ((tp_utf8_step(0, text, n) == TP_UTF8_OK) != want)
                    fail_msg("sequence %zu at %zu of %zu bytes", q, at, n);
                size_t cut = (at * 7 + n) % (n + 1);
                uint32_t h = tp_utf8_step(0, text, cut);
                if (h != TP_UTF8_BAD)
                    h = tp_utf8_step(h, text + cut, n - cut);
                if ((h == TP_UTF8_OK) != want)
                    fail_msg("sequence %zu at %zu of %zu bytes, cut at %zu", q, at, n, cut);
            }
        }
        memset(text, 'a', sizeof(text)); /* all ASCII: valid at every length */
        for (size_t n = 0; n <= 300; n++)
            assert_int_equal(tp_utf8_step(0, text, n), TP_UTF8_OK);
    }
}

/* tp_utf8_step in both its forms (AVX2 where the CPU has it, and SSE2): the verdicts on valid
 * and invalid sequences, whole, byte by byte and cut in two, at every place of the blocks. */
static void test_utf8(void **st)
{
    (void)st;
    assert_int_equal(tp_utf8_sse2(1), 0);
    utf8_form();
    int wide = tp_utf8_sse2(0);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    assert_int_equal(wide, !!__builtin_cpu_supports("avx2"));
#else
    assert_int_equal(wide, 0);
#endif
    utf8_form();
}

/* ---- the reader ---------------------------------------------------------------------- */

typedef struct stream {
    uint8_t b[300000];
    uint32_t n;
} stream;

static void put_frame(stream *s, bool fin, int rsv, uint8_t op, const void *pay, uint32_t len,
                      bool masked)
{
    static const uint8_t key[4] = {0xa1, 0xb2, 0xc3, 0xd4};
    uint32_t h = tp_ws_hdr_write(s->b + s->n, fin, false, op, len, masked ? key : NULL);
    s->b[s->n] |= (uint8_t)(rsv << 4);
    s->n += h;
    if (len)
        memcpy(s->b + s->n, pay, len);
    if (masked)
        tp_ws_mask(s->b + s->n, len, key, 0);
    s->n += len;
}

typedef struct got {
    int kind, opcode, compressed, frames;
    uint16_t code;
    char data[70000];
    uint32_t len;
} got;

/* Feeds the stream in chunks of step bytes (0 = all at once), compacting the buffer the way
 * a channel does, and collects up to max events. Returns the number of events, or -1 - n
 * when the reader failed after n events. */
static int run(stream *s, bool server, uint64_t max_msg, uint32_t step, got *ev, int max,
               tp_ws_rx *rxo)
{
    static uint8_t buf[300000];
    tp_ws_rx rx;
    tp_ws_rx_init(&rx, server, max_msg);
    uint32_t rd = 0, wr = 0, fed = 0;
    int n = 0;
    while (n < max) {
        tp_ws_ev e;
        int rc = tp_ws_rx_next(&rx, buf, &rd, wr, &e);
        if (rc < 0) {
            if (rxo)
                *rxo = rx;
            return -1 - n;
        }
        if (rc == 1) {
            ev[n].kind = e.kind;
            ev[n].opcode = e.opcode;
            ev[n].compressed = e.compressed;
            ev[n].frames = e.frames;
            ev[n].code = e.close_code;
            ev[n].len = e.len;
            memcpy(ev[n].data, e.data, e.len);
            n++;
            continue;
        }
        if (fed == s->n)
            break;
        /* compact: keep what the reader still needs */
        uint32_t keep = tp_ws_rx_keep(&rx, rd);
        memmove(buf, buf + keep, wr - keep);
        wr -= keep;
        rd -= keep;
        tp_ws_rx_moved(&rx, keep);
        uint32_t k = step ? step : s->n;
        if (k > s->n - fed)
            k = s->n - fed;
        memcpy(buf + wr, s->b + fed, k);
        wr += k;
        fed += k;
    }
    if (rxo)
        *rxo = rx;
    return n;
}

static got ev[8];

static void test_rfc_examples(void **st)
{
    (void)st;
    stream *s = calloc(1, sizeof(*s));
    /* unmasked text "Hello" to a client; masked to a server (RFC 6455 5.7) */
    memcpy(s->b, "\x81\x05Hello", 7);
    s->n = 7;
    assert_int_equal(run(s, false, 1000, 0, ev, 8, NULL), 1);
    assert_int_equal(ev[0].kind, TP_WS_EV_MSG);
    assert_int_equal(ev[0].opcode, TP_WS_OP_TEXT);
    assert_int_equal(ev[0].len, 5);
    assert_memory_equal(ev[0].data, "Hello", 5);
    memcpy(s->b, "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11);
    s->n = 11;
    assert_int_equal(run(s, true, 1000, 0, ev, 8, NULL), 1);
    assert_memory_equal(ev[0].data, "Hello", 5);
    /* fragmented "Hel" + "lo" with a ping between the fragments */
    memcpy(s->b, "\x01\x03Hel\x89\x05Hello\x80\x02lo", 16);
    s->n = 16;
    for (uint32_t step = 0; step < 17; step++) {
        assert_int_equal(run(s, false, 1000, step, ev, 8, NULL), 2);
        assert_int_equal(ev[0].kind, TP_WS_EV_PING);
        assert_int_equal(ev[0].len, 5);
        assert_int_equal(ev[1].kind, TP_WS_EV_MSG);
        assert_int_equal(ev[1].frames, 2);
        assert_int_equal(ev[1].len, 5);
        assert_memory_equal(ev[1].data, "Hello", 5);
    }
    free(s);
}

static void test_fragments_masked(void **st)
{
    (void)st;
    stream *s = calloc(1, sizeof(*s));
    static uint8_t big[65536 + 7];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)('a' + i % 26);
    /* a text message in three frames of 6155, 30000 and the rest, a pong and a binary */
    put_frame(s, false, 0, TP_WS_OP_TEXT, big, 6155, true);
    put_frame(s, true, 0, TP_WS_OP_PONG, "", 0, true);
    put_frame(s, false, 0, TP_WS_OP_CONT, big + 6155, 30000, true);
    put_frame(s, true, 0, TP_WS_OP_CONT, big + 36155, sizeof(big) - 36155, true);
    put_frame(s, true, 0, TP_WS_OP_BINARY, "\x00\x03\x02", 3, true);
    put_frame(s, true, 0, TP_WS_OP_CLOSE, "\x03\xe8Normal Closure", 16, true);
    static const uint32_t steps[] = {0, 1, 7, 1000, 6000};
    for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
        static got e[4];
        assert_int_equal(run(s, true, 1 << 20, steps[k], e, 4, NULL), 4);
        assert_int_equal(e[0].kind, TP_WS_EV_PONG);
        assert_int_equal(e[1].kind, TP_WS_EV_MSG);
        assert_int_equal(e[1].frames, 3);
        assert_int_equal(e[1].len, sizeof(big));
        assert_memory_equal(e[1].data, big, sizeof(big));
        assert_int_equal(e[2].opcode, TP_WS_OP_BINARY);
        assert_memory_equal(e[2].data, "\x00\x03\x02", 3);
        assert_int_equal(e[3].kind, TP_WS_EV_CLOSE);
        assert_int_equal(e[3].code, 1000);
        assert_int_equal(e[3].len, 14);
        assert_memory_equal(e[3].data, "Normal Closure", 14);
    }
    /* text split inside a UTF-8 sequence across fragments is fine */
    s->n = 0;
    put_frame(s, false, 0, TP_WS_OP_TEXT, "\xe2\x87", 2, false);
    put_frame(s, true, 0, TP_WS_OP_CONT, "\xa7", 1, false);
    assert_int_equal(run(s, false, 100, 0, ev, 8, NULL), 1);
    assert_memory_equal(ev[0].data, "\xe2\x87\xa7", 3);
    /* an empty close gives 1005 */
    s->n = 0;
    put_frame(s, true, 0, TP_WS_OP_CLOSE, "", 0, false);
    assert_int_equal(run(s, false, 100, 0, ev, 8, NULL), 1);
    assert_int_equal(ev[0].code, TP_WS_CLOSE_NO_STATUS);
    free(s);
}

typedef struct viol {
    const char *name;
    bool server;
    const char *hex; /* the frames (unmasked payload bytes where a mask is given) */
    uint16_t code;
    const char *why;
    int before; /* events delivered before the failure */
} viol;

static void test_violations(void **st)
{
    (void)st;
    static const viol cases[] = {
        {"unmasked client frame", true, "8103616263", 1002, "Unmasked client frame", 0},
        {"masked server frame", false, "818300000000616263", 1002, "masked server frame", 0},
        {"RSV2 set", false, "a100", 1002, "RSV bits", 0},
        {"RSV1 without deflate", false, "c100", 1002, "RSV bits", 0},
        {"opcode 3", false, "8300", 1002, "unknown data opcode", 0},
        {"opcode 0xB", false, "8b00", 1002, "unknown control opcode", 0},
        {"fragmented ping", false, "0900", 1002, "fragmented", 0},
        {"ping of 126 bytes", false, "897e007e", 1002, "more than 125", 0},
        {"continuation first", false, "8000", 1002, "without a fragmented message", 0},
        {"new message mid-fragment", false, "0101418101", 1002, "while a fragmented", 0},
        {"close of 1 byte", false, "880103", 1002, "1-byte payload", 0},
        {"close code 999", false, "880203e7", 1002, "invalid status code 999", 0},
        {"close code 1005", false, "880203ed", 1002, "invalid status code 1005", 0},
        {"close reason not UTF-8", false, "880403e8c0af", 1007, "not UTF-8", 0},
        {"text not UTF-8", false, "8102c0af", 1007, "not valid UTF-8", 0},
        {"text ends mid-sequence", false, "0101418101e2", 1002, "while a fragmented", 0},
        {"text fragments end mid-sequence", false, "01014180 01e2", 1007, "inside a UTF-8", 0},
        {"64-bit length top bit", false, "827f8000000000000000", 1002, "most significant", 0},
        {"ping then unmasked", true, "898000000000 8100", 1002, "Unmasked", 1},
    };
    stream *s = calloc(1, sizeof(*s));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        s->n = (uint32_t)ts_hex(cases[i].hex, s->b, sizeof(s->b));
        tp_ws_rx rx;
        int rc = run(s, cases[i].server, 1000, 0, ev, 8, &rx);
        if (rc != -1 - cases[i].before)
            fail_msg("%s: run returned %d", cases[i].name, rc);
        if (rx.close_code != cases[i].code)
            fail_msg("%s: close code %u, expected %u", cases[i].name, rx.close_code, cases[i].code);
        if (!strstr(err_msg(), cases[i].why))
            fail_msg("%s: '%s' lacks '%s'", cases[i].name, err_msg(), cases[i].why);
    }
    free(s);
}

/* A frame announcing a huge payload fails with 1009 as soon as its header is read: the
 * reader never waits for (or allocates) that size. */
static void test_too_big(void **st)
{
    (void)st;
    uint8_t b[64];
    uint32_t n = tp_ws_hdr_write(b, true, false, TP_WS_OP_BINARY, 1ull << 40, NULL);
    tp_ws_rx rx;
    tp_ws_rx_init(&rx, false, 65536);
    uint32_t rd = 0;
    tp_ws_ev e;
    assert_int_equal(tp_ws_rx_next(&rx, b, &rd, n, &e), -1);
    assert_int_equal(rx.close_code, TP_WS_CLOSE_TOO_BIG);
    assert_non_null(strstr(err_msg(), "exceeds the limit of 65536"));
    /* fragments that add up past the limit */
    stream *s = calloc(1, sizeof(*s));
    static uint8_t p[40000];
    memset(p, 'x', sizeof(p));
    put_frame(s, false, 0, TP_WS_OP_TEXT, p, 40000, false);
    put_frame(s, true, 0, TP_WS_OP_CONT, p, 30000, false);
    assert_int_equal(run(s, false, 65536, 0, ev, 8, &rx), -1);
    assert_int_equal(rx.close_code, TP_WS_CLOSE_TOO_BIG);
    /* exactly at the limit is fine */
    s->n = 0;
    put_frame(s, false, 0, TP_WS_OP_TEXT, p, 40000, false);
    put_frame(s, true, 0, TP_WS_OP_CONT, p, 25536, false);
    assert_int_equal(run(s, false, 65536, 0, ev, 8, &rx), 1);
    assert_int_equal(ev[0].len, 65536);
    free(s);
}

/* A close frame in the middle of a fragmented message is delivered; the reader reports the
 * unfinished message so the channel can say so. */
static void test_close_mid_message(void **st)
{
    (void)st;
    stream *s = calloc(1, sizeof(*s));
    put_frame(s, false, 0, TP_WS_OP_TEXT, "[{\"ID\":1", 8, true);
    put_frame(s, true, 0, TP_WS_OP_CLOSE, "\x03\xe8", 2, true);
    tp_ws_rx rx;
    assert_int_equal(run(s, true, 1000, 0, ev, 8, &rx), 1);
    assert_int_equal(ev[0].kind, TP_WS_EV_CLOSE);
    assert_int_equal(ev[0].code, 1000);
    assert_true(rx.in_msg);
    assert_int_equal(rx.msg_len, 8);
    free(s);
}

/* ---- permessage-deflate -------------------------------------------------------------- */

static void test_pmd_rfc7692(void **st)
{
    (void)st;
    tp_ws_pmd_params pp = {.on = 1};
    tp_ws_pmd z;
    assert_int_equal(tp_ws_pmd_init(&z, &pp, false, 6), 0);
    uint8_t out[64];
    bool big;
    /* RFC 7692 7.2.3.1 and 7.2.3.2: "Hello" twice, the second using the context */
    assert_int_equal(tp_ws_pmd_inflate(&z, (const uint8_t *)"\xf2\x48\xcd\xc9\xc9\x07\x00", 7, out,
                                       sizeof(out), &big),
                     5);
    assert_memory_equal(out, "Hello", 5);
    assert_int_equal(
        tp_ws_pmd_inflate(&z, (const uint8_t *)"\xf2\x00\x11\x00\x00", 5, out, sizeof(out), &big),
        5);
    assert_memory_equal(out, "Hello", 5);
    /* 7.2.3.3: no compression (a stored block) */
    assert_int_equal(tp_ws_pmd_inflate(&z, (const uint8_t *)"\x00\x05\x00\xfa\xffHello\x00", 11,
                                       out, sizeof(out), &big),
                     5);
    assert_memory_equal(out, "Hello", 5);
    /* exactly the room, then one byte short */
    assert_int_equal(
        tp_ws_pmd_inflate(&z, (const uint8_t *)"\xf2\x00\x11\x00\x00", 5, out, 5, &big), 5);
    assert_int_equal(
        tp_ws_pmd_inflate(&z, (const uint8_t *)"\xf2\x00\x11\x00\x00", 5, out, 4, &big), -1);
    assert_true(big);
    tp_ws_pmd_free(&z);
    assert_int_equal(tp_ws_pmd_init(&z, &pp, false, 6), 0);
    assert_int_equal(
        tp_ws_pmd_inflate(&z, (const uint8_t *)"\xff\xff\xff\xff", 4, out, sizeof(out), &big), -1);
    assert_false(big);
    assert_non_null(strstr(err_msg(), "corrupt"));
    tp_ws_pmd_free(&z);
}

static void test_pmd_roundtrip(void **st)
{
    (void)st;
    static uint8_t msg[3][2000], comp[4000], back[2000];
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < 2000; i++)
            msg[m][i] = (uint8_t)("[{\"ID\":5,\"Type\":\"Update\"}]"[i % 26] + (i / 500 == m));
    for (int mode = 0; mode < 4; mode++) {
        tp_ws_pmd_params pp = {.on = 1, .server_no_ctx = mode & 1, .client_no_ctx = mode >> 1};
        tp_ws_pmd srv, cli;
        assert_int_equal(tp_ws_pmd_init(&srv, &pp, true, mode ? 0 : 6), 0);
        assert_int_equal(tp_ws_pmd_init(&cli, &pp, false, 9), 0);
        int first = 0;
        for (int rep = 0; rep < 6; rep++) {
            const uint8_t *src = msg[rep % 3];
            /* server to client and back */
            int c = tp_ws_pmd_compress(&srv, src, 2000, comp, sizeof(comp));
            assert_true(c > 0);
            bool big;
            assert_int_equal(tp_ws_pmd_inflate(&cli, comp, (uint32_t)c, back, 2000, &big), 2000);
            assert_memory_equal(back, src, 2000);
            c = tp_ws_pmd_compress(&cli, src, 2000, comp, sizeof(comp));
            assert_true(c > 0);
            if (rep == 0)
                first = c;
            else if (rep == 3 && !(mode >> 1))
                assert_true(c < first); /* the context makes the repeat smaller */
            assert_int_equal(tp_ws_pmd_inflate(&srv, comp, (uint32_t)c, back, 2000, &big), 2000);
            assert_memory_equal(back, src, 2000);
        }
        tp_ws_pmd_free(&srv);
        tp_ws_pmd_free(&cli);
    }
    assert_true(tp_ws_pmd_bound(2000) >= 2000 + 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_roundtrip),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_rfc_examples),
        cmocka_unit_test(test_fragments_masked),
        cmocka_unit_test(test_violations),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_close_mid_message),
        cmocka_unit_test(test_pmd_rfc7692),
        cmocka_unit_test(test_pmd_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
