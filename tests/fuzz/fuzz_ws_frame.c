/*
 * libFuzzer target for the WebSocket message reader. The first input byte chooses:
 *   bit 0: the role (1 = server: frames must be masked);
 *   bit 1: permessage-deflate agreed (compressed messages are inflated, as a channel does);
 *   bits 2..4: the read size (1, 2, 3, 7, 64, 1000, 6000 bytes, or all at once);
 *   bit 5: a small message limit (300 bytes) instead of 64 KiB.
 * The rest is fed to the reader in chunks into a fixed buffer that is compacted the way a
 * channel compacts its input area. The reader must return views inside the buffer, fail
 * with a close code, or ask for more; never crash, overrun or loop. Each message's UTF-8 check
 * in both forms of tp_utf8_step (SSE2 and AVX2) gives the same state.
 */
#include <stdint.h>
#include <string.h>

#include "tp_ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buf[70000], dec[70000];

/* tp_utf8_step on p[0..n) in its SSE2 form and in its widest one (AVX2 where the CPU has it):
 * the same state, else a trap. */
static void same_utf8(const uint8_t *p, size_t n)
{
    tp_utf8_sse2(1);
    uint32_t a = tp_utf8_step(0, p, n);
    tp_utf8_sse2(0);
    if (tp_utf8_step(0, p, n) != a)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t steps[8] = {1, 2, 3, 7, 64, 1000, 6000, 1u << 30};
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    bool server = mode & 1;
    uint64_t max = (mode & 0x20) ? 300 : 65536;
    uint32_t step = steps[(mode >> 2) & 7];
    tp_ws_rx rx;
    tp_ws_rx_init(&rx, server, max);
    tp_ws_pmd z;
    tp_ws_pmd_params pp = {.on = 1, .client_no_ctx = (mode >> 6) & 1};
    rx.deflate = (mode >> 1) & 1;
    if (rx.deflate && tp_ws_pmd_init(&z, &pp, server, 6) < 0)
        return 0;
    uint32_t rd = 0, wr = 0;
    size_t fed = 0;
    for (;;) {
        tp_ws_ev e;
        int rc = tp_ws_rx_next(&rx, buf, &rd, wr, &e);
        if (rc < 0) {
            if (rx.close_code < 1000 || rx.close_code > 1011)
                __builtin_trap();
            break;
        }
        if (rc == 1) {
            if (e.data < buf || e.data + e.len > buf + wr || rd > wr)
                __builtin_trap();
            volatile uint8_t sum = 0;
            for (uint32_t k = 0; k < e.len; k++)
                sum ^= e.data[k];
            (void)sum;
            if (e.kind == TP_WS_EV_MSG && !e.compressed)
                same_utf8(e.data, e.len);
            if (e.kind == TP_WS_EV_MSG && e.compressed) {
                bool big;
                int n = tp_ws_pmd_inflate(&z, e.data, e.len, dec, sizeof(dec), &big);
                if (n >= 0 && e.opcode == TP_WS_OP_TEXT)
                    same_utf8(dec, (size_t)n);
                if (n < 0)
                    break;
            }
            continue;
        }
        if (fed == size)
            break;
        uint32_t keep = tp_ws_rx_keep(&rx, rd);
        memmove(buf, buf + keep, wr - keep);
        wr -= keep;
        rd -= keep;
        tp_ws_rx_moved(&rx, keep);
        size_t k = size - fed;
        if (k > step)
            k = step;
        if (k > sizeof(buf) - wr)
            k = sizeof(buf) - wr;
        if (k == 0)
            break; /* the reader's limit is below the buffer: cannot happen */
        memcpy(buf + wr, data + fed, k);
        wr += (uint32_t)k;
        fed += k;
    }
    if (rx.deflate)
        tp_ws_pmd_free(&z);
    return 0;
}
