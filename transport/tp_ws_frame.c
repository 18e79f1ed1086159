/* WebSocket frames (RFC 6455 section 5): header codec, masking, close payloads, UTF-8
 * validation and the in-place message reader; the permessage-deflate codec (RFC 7692). */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "err.h"
#include "tp_ws.h"

/* ---- headers ------------------------------------------------------------------------- */

int tp_ws_hdr_parse(const uint8_t *p, size_t n, tp_ws_hdr *h)
{
    if (n < 2)
        return 0;
    h->fin = p[0] >> 7;
    h->rsv = (p[0] >> 4) & 7;
    h->opcode = p[0] & 0x0F;
    h->masked = p[1] >> 7;
    uint32_t hl = 2;
    uint64_t len = p[1] & 0x7F;
    if (len == 126) {
        if (n < 4)
            return 0;
        len = (uint64_t)p[2] << 8 | p[3];
        hl = 4;
    } else if (len == 127) {
        if (n < 10)
            return 0;
        len = 0;
        for (int i = 0; i < 8; i++)
            len = len << 8 | p[2 + i];
        if (len >> 63)
            return err_set("frame length field has its most significant bit set");
        hl = 10;
    }
    if (h->masked) {
        if (n < hl + 4)
            return 0;
        memcpy(h->key, p + hl, 4);
        hl += 4;
    } else {
        memset(h->key, 0, 4);
    }
    h->len = len;
    h->hdr_len = (uint8_t)hl;
    return (int)hl;
}

uint32_t tp_ws_hdr_write(uint8_t *out, bool fin, bool rsv1, uint8_t opcode, uint64_t len,
                         const uint8_t *key)
{
    out[0] = (uint8_t)((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | (opcode & 0x0F));
    uint8_t m = key ? 0x80 : 0;
    uint32_t hl;
    if (len < 126) {
        out[1] = (uint8_t)(m | len);
        hl = 2;
    } else if (len <= 0xFFFF) {
        out[1] = m | 126;
        out[2] = (uint8_t)(len >> 8);
        out[3] = (uint8_t)len;
        hl = 4;
    } else {
        out[1] = m | 127;
        for (int i = 0; i < 8; i++)
            out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
        hl = 10;
    }
    if (key) {
        memcpy(out + hl, key, 4);
        hl += 4;
    }
    return hl;
}

void tp_ws_mask(uint8_t *p, size_t n, const uint8_t key[4], uint32_t phase)
{
    size_t i = 0;
    phase &= 3;
    /* align to the key, then eight bytes at a time */
    while (i < n && phase != 0) {
        p[i++] ^= key[phase];
        phase = (phase + 1) & 3;
    }
    uint8_t k8[8] = {key[0], key[1], key[2], key[3], key[0], key[1], key[2], key[3]};
    uint64_t k;
    memcpy(&k, k8, 8);
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        v ^= k;
        memcpy(p + i, &v, 8);
    }
    for (uint32_t j = 0; i < n; i++, j++)
        p[i] ^= key[j & 3];
}

/* ---- close --------------------------------------------------------------------------- */

uint32_t tp_ws_close_payload(uint8_t *out, uint16_t code, const char *reason)
{
    out[0] = (uint8_t)(code >> 8);
    out[1] = (uint8_t)code;
    size_t rl = reason ? strlen(reason) : 0;
    if (rl > 123)
        rl = 123;
    if (rl)
        memcpy(out + 2, reason, rl);
    return (uint32_t)(2 + rl);
}

const char *tp_ws_close_text(uint16_t code)
{
    switch (code) {
    case 1000:
        return "Normal Closure";
    case 1001:
        return "Going Away";
    case 1002:
        return "Protocol Error";
    case 1003:
        return "Unsupported Data";
    case 1005:
        return "No Status Received";
    case 1006:
        return "Abnormal Closure";
    case 1007:
        return "Invalid Frame Payload Data";
    case 1008:
        return "Policy Violation";
    case 1009:
        return "Message Too Big";
    case 1010:
        return "Mandatory Extension";
    case 1011:
        return "Internal Server Error";
    case 1015:
        return "TLS Handshake";
    default:
        return "Unknown";
    }
}

/* Codes a peer may send in a close frame (RFC 6455 7.4). */
static bool close_code_ok(uint16_t c)
{
    if (c >= 3000 && c <= 4999)
        return true;
    return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1011);
}

/* ---- UTF-8 --------------------------------------------------------------------------- */

#ifdef __SSE2__
/* 1 when the 64 bytes at p are all ASCII. */
static inline bool ascii64(const uint8_t *p)
{
    const __m128i *v = (const __m128i *)(const void *)p;
    __m128i o = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                             _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
    return _mm_movemask_epi8(o) == 0;
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_UTF8 1
/* 1 when the 128 bytes at p are all ASCII (the CPU must have AVX2). */
__attribute__((target("avx2"))) static inline bool ascii128_avx2(const uint8_t *p)
{
    const __m256i *v = (const __m256i *)(const void *)p;
    __m256i o =
        _mm256_or_si256(_mm256_or_si256(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1)),
                        _mm256_or_si256(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3)));
    return _mm256_movemask_epi8(o) == 0;
}

/* 1 when the 32 bytes at p are all ASCII (the CPU must have AVX2). */
__attribute__((target("avx2"))) static inline bool ascii32_avx2(const uint8_t *p)
{
    return _mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p)) == 0;
}
#endif

/* 1 when tp_utf8_step passes ASCII runs with AVX2 (utf8_step_avx2): chosen once at start
 * (utf8_choose), or by tests (tp_utf8_sse2). */
static bool utf8_wide;

/* Sets utf8_wide to 1 when the CPU has AVX2, else 0. Runs before main (and before any thread
 * reads), and again for tp_utf8_sse2. */
__attribute__((constructor)) static void utf8_choose(void)
{
#ifdef HAVE_AVX2_UTF8
    __builtin_cpu_init();
    utf8_wide = __builtin_cpu_supports("avx2");
#else
    utf8_wide = false;
#endif
}

int tp_utf8_sse2(int on)
{
    utf8_choose();
    if (on)
        utf8_wide = false;
    return utf8_wide;
}

/* States: 0 accept; 1..3 continuation bytes still needed (80..BF); 4 after E0 (next A0..BF,
 * then 1); 5 after ED (next 80..9F, then 1); 6 after F0 (next 90..BF, then 2); 7 after F4
 * (next 80..8F, then 2); 12 rejected. tp_utf8_step's work, ASCII runs passed with AVX2 when
 * avx2 (128 bytes, then 32, at a time; the CPU must have it), with SSE2 otherwise (64 bytes at
 * a time), then eight bytes at a time; an ASCII tail is seen by the text's last 128 or 32
 * bytes (AVX2), 64 or 16 (SSE2) at once, those before it being ASCII already. */
static inline __attribute__((always_inline)) uint32_t utf8_step_by(uint32_t s, const uint8_t *p,
                                                                   size_t n, bool avx2)
{
    size_t i = 0;
    (void)avx2;
    while (i < n) {
        if (s == 0) {
#ifdef HAVE_AVX2_UTF8
            if (avx2) {
                while (i + 128 <= n && ascii128_avx2(p + i))
                    i += 128;
                if (n >= 128 && n - i < 128 && ascii128_avx2(p + n - 128))
                    break;
                while (i + 32 <= n && ascii32_avx2(p + i))
                    i += 32;
                if (n >= 32 && n - i < 32 && ascii32_avx2(p + n - 32))
                    break;
            } else
#endif
            {
#ifdef __SSE2__
                while (i + 64 <= n) {
                    if (!ascii64(p + i))
                        break;
                    i += 64;
                }
                if (n >= 64 && n - i < 64 && ascii64(p + n - 64))
                    break;
                if (n >= 16 && n - i <= 16 &&
                    !_mm_movemask_epi8(
                        _mm_loadu_si128((const __m128i *)(const void *)(p + n - 16))))
                    break;
#endif
                while (i + 32 <= n) {
                    uint64_t v[4];
                    memcpy(v, p + i, 32);
                    if ((v[0] | v[1] | v[2] | v[3]) & 0x8080808080808080ull)
                        break;
                    i += 32;
                }
            }
            while (i + 8 <= n) {
                uint64_t v;
                memcpy(&v, p + i, 8);
                if (v & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            if (i >= n)
                break;
        }
        uint8_t c = p[i++];
        switch (s) {
        case 0:
            if (c < 0x80)
                s = 0;
            else if (c >= 0xC2 && c <= 0xDF)
                s = 1;
            else if (c == 0xE0)
                s = 4;
            else if (c == 0xED)
                s = 5;
            else if (c >= 0xE1 && c <= 0xEF)
                s = 2;
            else if (c == 0xF0)
                s = 6;
            else if (c >= 0xF1 && c <= 0xF3)
                s = 3;
            else if (c == 0xF4)
                s = 7;
            else
                return TP_UTF8_BAD;
            break;
        case 1:
        case 2:
        case 3:
            if (c < 0x80 || c > 0xBF)
                return TP_UTF8_BAD;
            s--;
            break;
        case 4:
            if (c < 0xA0 || c > 0xBF)
                return TP_UTF8_BAD;
            s = 1;
            break;
        case 5:
            if (c < 0x80 || c > 0x9F)
                return TP_UTF8_BAD;
            s = 1;
            break;
        case 6:
            if (c < 0x90 || c > 0xBF)
                return TP_UTF8_BAD;
            s = 2;
            break;
        case 7:
            if (c < 0x80 || c > 0x8F)
                return TP_UTF8_BAD;
            s = 2;
            break;
        default:
            return TP_UTF8_BAD;
        }
    }
    return s;
}

#ifdef HAVE_AVX2_UTF8
/* utf8_step_by with AVX2 (the CPU must have it). */
__attribute__((target("avx2"), noinline)) static uint32_t utf8_step_avx2(uint32_t s,
                                                                         const uint8_t *p, size_t n)
{
    return utf8_step_by(s, p, n, true);
}
#endif

uint32_t tp_utf8_step(uint32_t s, const uint8_t *p, size_t n)
{
#ifdef HAVE_AVX2_UTF8
    if (utf8_wide)
        return utf8_step_avx2(s, p, n);
#endif
    return utf8_step_by(s, p, n, false);
}

/* ---- the message reader -------------------------------------------------------------- */

void tp_ws_rx_init(tp_ws_rx *rx, bool server, uint64_t max_msg)
{
    memset(rx, 0, sizeof(*rx));
    rx->server = server;
    rx->utf8 = 1;
    rx->max_msg = max_msg;
}

static int rx_fail(tp_ws_rx *rx, uint16_t code)
{
    rx->close_code = code;
    return -1;
}

/* Judges a complete header against the reader's state. Returns 0 or -1. */
static int rx_check(tp_ws_rx *rx, const tp_ws_hdr *h)
{
    const char *who = rx->server ? "client" : "server";
    uint8_t allowed = rx->deflate ? 4 : 0;
    if (h->rsv & ~allowed)
        return err_set("%s frame has RSV bits 0x%x set that no extension negotiated", who, h->rsv),
               rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    if (h->opcode >= 8) {
        if (h->opcode > TP_WS_OP_PONG)
            return err_set("%s frame has unknown control opcode 0x%x", who, h->opcode),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (!h->fin)
            return err_set("%s control frame (opcode 0x%x) is fragmented", who, h->opcode),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (h->len > 125)
            return err_set("%s control frame (opcode 0x%x) carries %llu bytes, more than 125", who,
                           h->opcode, (unsigned long long)h->len),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (h->rsv)
            return err_set("%s control frame has RSV bits set", who),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    } else {
        if (h->opcode > TP_WS_OP_BINARY)
            return err_set("%s frame has unknown data opcode 0x%x", who, h->opcode),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (h->opcode == TP_WS_OP_CONT && !rx->in_msg)
            return err_set("%s continuation frame without a fragmented message to continue", who),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (h->opcode != TP_WS_OP_CONT && rx->in_msg)
            return err_set("%s started a new message (opcode 0x%x) while a fragmented message "
                           "(%u bytes so far) was incomplete",
                           who, h->opcode, rx->msg_len),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (h->opcode == TP_WS_OP_CONT && h->rsv)
            return err_set("%s continuation frame has RSV1 set", who),
                   rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        uint64_t total = (rx->in_msg ? rx->msg_len : 0) + h->len;
        if (total > rx->max_msg)
            return err_set("%s message of %llu bytes or more exceeds the limit of %llu bytes", who,
                           (unsigned long long)total, (unsigned long long)rx->max_msg),
                   rx_fail(rx, TP_WS_CLOSE_TOO_BIG);
    }
    if (rx->server && !h->masked)
        return err_set("Unmasked client frame (opcode 0x%x)", h->opcode),
               rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    if (!rx->server && h->masked)
        return err_set("masked server frame (opcode 0x%x)", h->opcode),
               rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    return 0;
}

/* A complete control frame (payload unmasked at pay). */
static int rx_control(tp_ws_rx *rx, const tp_ws_hdr *h, uint8_t *pay, tp_ws_ev *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->data = pay;
    ev->len = (uint32_t)h->len;
    ev->frames = 1;
    if (h->opcode == TP_WS_OP_PING) {
        ev->kind = TP_WS_EV_PING;
        return 1;
    }
    if (h->opcode == TP_WS_OP_PONG) {
        ev->kind = TP_WS_EV_PONG;
        return 1;
    }
    ev->kind = TP_WS_EV_CLOSE;
    if (h->len == 0) {
        ev->close_code = TP_WS_CLOSE_NO_STATUS;
        return 1;
    }
    if (h->len == 1)
        return err_set("close frame with a 1-byte payload"), rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    ev->close_code = (uint16_t)(pay[0] << 8 | pay[1]);
    if (!close_code_ok(ev->close_code))
        return err_set("close frame with invalid status code %u", ev->close_code),
               rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
    ev->data = pay + 2;
    ev->len = (uint32_t)h->len - 2;
    if (tp_utf8_step(0, ev->data, ev->len) != TP_UTF8_OK)
        return err_set("close frame (code %u) has a reason that is not UTF-8", ev->close_code),
               rx_fail(rx, TP_WS_CLOSE_INVALID_DATA);
    return 1;
}

static int bad_text(tp_ws_rx *rx, uint32_t at)
{
    err_set("text message is not valid UTF-8 (at or before byte %u)", at);
    return rx_fail(rx, TP_WS_CLOSE_INVALID_DATA);
}

int tp_ws_rx_next(tp_ws_rx *rx, uint8_t *buf, uint32_t *rd, uint32_t wr, tp_ws_ev *ev)
{
    for (;;) {
        uint32_t pos = *rd;
        tp_ws_hdr h;
        int n = tp_ws_hdr_parse(buf + pos, wr - pos, &h);
        if (n < 0)
            return rx_fail(rx, TP_WS_CLOSE_PROTOCOL);
        if (n == 0)
            return 0;
        if (rx_check(rx, &h) < 0)
            return -1;
        if ((uint64_t)(wr - pos - (uint32_t)n) < h.len)
            return 0;
        uint8_t *pay = buf + pos + n;
        uint32_t plen = (uint32_t)h.len;
        if (h.masked)
            tp_ws_mask(pay, plen, h.key, 0);
        *rd = pos + (uint32_t)n + plen;
        if (h.opcode >= 8)
            return rx_control(rx, &h, pay, ev);
        bool check =
            rx->utf8 && (h.opcode == TP_WS_OP_TEXT || (rx->in_msg && rx->msg_op == TP_WS_OP_TEXT));
        if (!rx->in_msg && h.fin) {
            if (check && !(h.rsv & 4) && tp_utf8_step(0, pay, plen) != TP_UTF8_OK)
                return bad_text(rx, plen);
            memset(ev, 0, sizeof(*ev));
            ev->kind = TP_WS_EV_MSG;
            ev->opcode = h.opcode;
            ev->compressed = (h.rsv & 4) != 0;
            ev->frames = 1;
            ev->data = pay;
            ev->len = plen;
            return 1;
        }
        if (!rx->in_msg) {
            rx->in_msg = 1;
            rx->msg_op = h.opcode;
            rx->msg_rsv1 = (h.rsv & 4) != 0;
            rx->msg_start = pos + (uint32_t)n;
            rx->msg_len = 0;
            rx->utf8_state = TP_UTF8_OK;
            rx->msg_frames = 0;
        } else if (rx->msg_start + rx->msg_len != pos + (uint32_t)n) {
            memmove(buf + rx->msg_start + rx->msg_len, pay, plen);
        }
        uint8_t *got = buf + rx->msg_start + rx->msg_len;
        rx->msg_len += plen;
        if (rx->msg_frames < 255)
            rx->msg_frames++;
        if (check && !rx->msg_rsv1) {
            rx->utf8_state = tp_utf8_step(rx->utf8_state, got, plen);
            if (rx->utf8_state == TP_UTF8_BAD)
                return bad_text(rx, rx->msg_len);
        }
        if (!h.fin)
            continue;
        rx->in_msg = 0;
        if (check && !rx->msg_rsv1 && rx->utf8_state != TP_UTF8_OK)
            return err_set("text message ends inside a UTF-8 sequence"),
                   rx_fail(rx, TP_WS_CLOSE_INVALID_DATA);
        memset(ev, 0, sizeof(*ev));
        ev->kind = TP_WS_EV_MSG;
        ev->opcode = rx->msg_op;
        ev->compressed = rx->msg_rsv1;
        ev->frames = rx->msg_frames;
        ev->data = buf + rx->msg_start;
        ev->len = rx->msg_len;
        return 1;
    }
}

/* ---- permessage-deflate codec -------------------------------------------------------- */

int tp_ws_pmd_init(tp_ws_pmd *z, const tp_ws_pmd_params *p, bool server, int level)
{
    memset(z, 0, sizeof(*z));
    int wbits = server ? p->server_max_window : p->client_max_window;
    if (wbits == 0 || wbits == 255)
        wbits = 15;
    if (wbits < 9)
        wbits = 9; /* zlib's raw deflate has no 8-bit window */
    if (level < 0 || level > 9)
        level = Z_DEFAULT_COMPRESSION;
    if (deflateInit2(&z->zout, level, Z_DEFLATED, -wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return err_set("permessage-deflate: deflateInit2 failed");
    z->out_ok = 1;
    if (inflateInit2(&z->zin, -15) != Z_OK) {
        tp_ws_pmd_free(z);
        return err_set("permessage-deflate: inflateInit2 failed");
    }
    z->in_ok = 1;
    z->reset_out = server ? p->server_no_ctx : p->client_no_ctx;
    z->reset_in = server ? p->client_no_ctx : p->server_no_ctx;
    return 0;
}

void tp_ws_pmd_free(tp_ws_pmd *z)
{
    if (z->out_ok)
        deflateEnd(&z->zout);
    if (z->in_ok)
        inflateEnd(&z->zin);
    z->out_ok = z->in_ok = 0;
}

uint32_t tp_ws_pmd_bound(uint32_t n)
{
    return n + (n >> 8) + (n >> 12) * 5 + 64;
}

int tp_ws_pmd_compress(tp_ws_pmd *z, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap)
{
    z->zout.next_in = (Bytef *)(uintptr_t)src;
    z->zout.avail_in = n;
    z->zout.next_out = dst;
    z->zout.avail_out = cap;
    int rc = deflate(&z->zout, Z_SYNC_FLUSH);
    if ((rc != Z_OK && rc != Z_BUF_ERROR) || z->zout.avail_in != 0 || z->zout.avail_out == 0)
        return err_set("permessage-deflate: compressing %u bytes failed (zlib %d)", n, rc);
    uint32_t len = cap - z->zout.avail_out;
    if (len >= 4 && memcmp(dst + len - 4, "\x00\x00\xff\xff", 4) == 0)
        len -= 4;
    if (z->reset_out && deflateReset(&z->zout) != Z_OK)
        return err_set("permessage-deflate: deflateReset failed");
    return (int)len;
}

/* Feeds n bytes to the inflater. Returns 0, or -1 (corrupt / too big). */
static int inflate_part(tp_ws_pmd *z, const uint8_t *src, uint32_t n, bool *too_big)
{
    z->zin.next_in = (Bytef *)(uintptr_t)src;
    z->zin.avail_in = n;
    while (z->zin.avail_in > 0) {
        /* with the output full, one spare byte tells whether more output would follow (the
         * final 00 00 ff ff produces none) */
        uint8_t spare, *keep = NULL;
        if (z->zin.avail_out == 0) {
            keep = z->zin.next_out;
            z->zin.next_out = &spare;
            z->zin.avail_out = 1;
        }
        uInt in_before = z->zin.avail_in;
        int rc = inflate(&z->zin, Z_SYNC_FLUSH);
        if (keep) {
            if (z->zin.avail_out == 0) {
                *too_big = true;
                return err_set("permessage-deflate: message inflates beyond the limit of %lu "
                               "bytes",
                               (unsigned long)(z->zin.total_out - 1));
            }
            z->zin.next_out = keep;
            z->zin.avail_out = 0;
        }
        if (rc == Z_STREAM_END)
            return err_set("permessage-deflate: message holds a final deflate block");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return err_set("permessage-deflate: corrupt compressed data (zlib %d%s%s)", rc,
                           z->zin.msg ? ": " : "", z->zin.msg ? z->zin.msg : "");
        if (rc == Z_BUF_ERROR && z->zin.avail_in == in_before)
            return err_set("permessage-deflate: inflate made no progress");
    }
    return 0;
}

int tp_ws_pmd_inflate(tp_ws_pmd *z, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap,
                      bool *too_big)
{
    static const uint8_t tail[4] = {0x00, 0x00, 0xff, 0xff};
    *too_big = false;
    z->zin.next_out = dst;
    z->zin.avail_out = cap;
    uLong before = z->zin.total_out;
    if (inflate_part(z, src, n, too_big) < 0 || inflate_part(z, tail, 4, too_big) < 0)
        return -1;
    uint32_t len = (uint32_t)(z->zin.total_out - before);
    if (z->reset_in && inflateReset(&z->zin) != Z_OK)
        return err_set("permessage-deflate: inflateReset failed");
    return (int)len;
}
