/*
 * libFuzzer target for the transport's parsers. The first input byte chooses the role:
 *   bit 7 = 0: our client, after a valid ConnectAck (RIPC generation 10 + (b & 7) % 5,
 *              compression (b >> 3) % 3, maximum message size 64 when bit 5 is set), reads
 *              the rest of the input as the server's byte stream;
 *   bit 7 = 1: our server reads the rest of the input as a client's byte stream from the
 *              first byte of the handshake on (ConnectReq, key message, then data).
 * The bytes reach the channel through a socketpair, as from a real peer; the channel must
 * fail cleanly or deliver messages, never crash, leak or loop. Its output area is the
 * smallest there is (4 buffers): it carries only our handshake and pings.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp.h"
#include "tp_ripc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void push(int fd, const uint8_t *p, size_t n, size_t *off)
{
    while (*off < n) {
        ssize_t w = write(fd, p + *off, n - *off);
        if (w <= 0)
            return;
        *off += (size_t)w;
    }
}

static void drain(int fd)
{
    uint8_t sink[4096];
    while (read(fd, sink, sizeof(sink)) > 0)
        ;
}

static void run(tp_channel *ch, int peer, const uint8_t *p, size_t n)
{
    size_t off = 0;
    int eof = 0;
    for (int i = 0; i < 100000; i++) {
        if (!eof) {
            push(peer, p, n, &off);
            if (off == n) {
                shutdown(peer, SHUT_WR);
                eof = 1;
            }
        }
        if ((i & 63) == 0)
            drain(peer); /* what our channel sends (handshake, pings) */
        if (tp_get_state(ch) != TP_STATE_ACTIVE) {
            int rc = tp_init(ch);
            if (rc < 0)
                return;
            continue;
        }
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            return;
        if (rc & TP_READ_MSG) {
            volatile uint8_t sum = 0; /* touch every byte of the view */
            for (uint32_t k = 0; k < m.len; k++)
                sum ^= m.data[k];
            (void)sum;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    tp_opts o;
    tp_opts_init(&o);
    o.max_reassembly = 1 << 20;
    /* the smallest output area (4 buffers): ours only carries the handshake and pings, and
     * the default 50 buffers (300 KB) allocated per input cost more than the input's reading */
    o.guaranteed_output_buffers = 4;
    tp_channel *ch;
    if (mode & 0x80) {
        o.compression = (tp_comp)((mode >> 3) % 3);
        o.compression_level = 6;
        if (tp_adopt(sv[0], true, &o, &ch) < 0) {
            close(sv[1]);
            return 0;
        }
        run(ch, sv[1], data, size);
    } else {
        int gen = 10 + (mode & 7) % 5;
        int comp = (mode >> 3) % 3;
        o.ripc_version = (uint8_t)gen;
        o.compression = (tp_comp)comp;
        if (tp_adopt(sv[0], false, &o, &ch) < 0) {
            close(sv[1]);
            return 0;
        }
        for (int i = 0; i < 4; i++) { /* sends the ConnectReq */
            tp_init(ch);
            drain(sv[1]);
        }
        tp_ripc_ack a;
        memset(&a, 0, sizeof(a));
        a.gen = (uint8_t)gen;
        a.flags = 1;
        a.max_user = (mode & 0x20) ? 64 : 6144;
        a.session_flags = 3;
        a.ping_timeout = 60;
        a.rwf_major = 14;
        a.rwf_minor = 1;
        a.compression = (uint16_t)comp;
        a.zlib_level = 6;
        a.has_key = gen >= 14;
        a.key_type = 1;
        uint8_t ack[128];
        int n = tp_ripc_ack_encode(&a, ack, sizeof(ack));
        size_t off = 0;
        push(sv[1], ack, (size_t)n, &off);
        run(ch, sv[1], data, size);
    }
    tp_close(ch);
    close(sv[1]);
    return 0;
}
