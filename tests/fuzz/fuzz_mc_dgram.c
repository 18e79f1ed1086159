/*
 * libFuzzer target for the seqMCast datagram reader. The first input byte sets the channel:
 * bits 0-1 choose its largest message (6144, 64, 16, 1), bit 2 switches the loss generator
 * on (50 %), bit 3 gives it a table of only 2 senders. The rest is a series of datagrams,
 * each [u16 length][bytes], handed to the channel's socket, which must read them
 * (delivering messages, pings, or dropping and counting malformed ones), never crash, leak
 * or loop. The channel is made as for 127.0.0.1 (unicast, an ephemeral port), inside a
 * private network namespace when the process may create one; then its socket is replaced
 * (dup2 on the same descriptor) by one end of a datagram socketpair, the fuzzer writing
 * into the other: the channel reads with the same recvmmsg() calls and code, and each
 * datagram costs a copy instead of a trip through the UDP/IP stack (which took most of the
 * time of an input of hundreds of datagrams). Every datagram comes from the same sender
 * address, as from the one UDP socket before; the instance ids vary with the input.
 *
 * The 16 channels (one per setting) are made once and reused: before each input the
 * channel's read side is taken back to where tp_connect left it (tp_mc_reset_rx: socket
 * drained, senders, counts and loss generator as new), so that every input meets a channel
 * as a new one, without a socket, a 1 MB receive buffer and 600 KB of slots per input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp.h"
#include "tp_mcast.h"
#include "ts_netns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ready;
static tp_channel *chans[16];
static int senders[16]; /* the other end of each channel's socketpair */

static void setup_once(void)
{
    char why[256];
    if (ready)
        return;
    (void)ts_netns_enter(why, sizeof(why)); /* else the host's loopback, unicast only */
    ready = 1;
}

/* Puts one end of a datagram socketpair in place of ch's socket; returns the other end (the
 * sender), or -1. */
static int replace_socket(tp_channel *ch)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    int big = 4 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    if (dup2(sv[1], tp_fd(ch)) < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    close(sv[1]);
    return sv[0];
}

/* The channel of setting mode (made on first use), its read side as tp_connect left it;
 * NULL when it cannot be made. */
static tp_channel *channel(uint8_t mode)
{
    static const uint32_t max_msg[4] = {6144, 64, 16, 1};
    tp_channel **ch = &chans[mode & 15];
    int *snd = &senders[mode & 15];
    if (*ch && tp_get_state(*ch) != TP_STATE_ACTIVE) {
        tp_close(*ch); /* failed on the last input: made anew, as a new run would */
        close(*snd);
        *ch = NULL;
    }
    if (*ch) {
        if (tp_mc_reset_rx(*ch) < 0)
            abort();
        return *ch;
    }
    tp_opts o;
    tp_opts_init(&o);
    o.conn_type = TP_CONN_SEQ_MCAST;
    o.mc_recv_addr = "127.0.0.1";
    o.mc_recv_port = "0";
    o.mc_send_addr = "127.0.0.1";
    o.mc_send_port = "9";
    o.protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o.max_fragment_size = max_msg[mode & 3];
    o.mc_loss_ppm = (mode & 4) ? 500000 : 0;
    o.mc_loss_seed = 1;
    o.mc_max_senders = (mode & 8) ? 2 : 0;
    o.rcvbuf = 1 << 20;
    if (tp_connect(&o, ch) < 0) {
        *ch = NULL;
        return NULL;
    }
    if ((*snd = replace_socket(*ch)) < 0) {
        tp_close(*ch);
        *ch = NULL;
    }
    return *ch;
}

static void consume(tp_channel *ch)
{
    for (int i = 0; i < 100000; i++) {
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            return;
        if (rc & TP_READ_MSG) {
            volatile uint8_t sum = 0; /* touch every byte of the view */
            for (uint32_t k = 0; k < m.len; k++)
                sum ^= m.data[k];
            (void)sum;
            tp_mc_from from;
            uint32_t seq;
            tp_mc_last_from(ch, &from, &seq);
        }
        if (!(rc & TP_READ_MORE) && rc == 0)
            return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    setup_once();
    tp_channel *ch = channel(data[0]);
    if (!ch)
        return 0;
    int snd = senders[data[0] & 15];
    data++;
    size--;
    size_t off = 0;
    int n = 0;
    while (off + 2 <= size) {
        size_t len = (size_t)data[off] << 8 | data[off + 1];
        off += 2;
        if (len > size - off)
            len = size - off;
        if (send(snd, data + off, len, 0) < 0 && errno == EAGAIN) {
            consume(ch); /* the pair's queue is full: the channel reads, then it fits */
            (void)send(snd, data + off, len, 0);
        }
        off += len;
        if (++n % 64 == 0)
            consume(ch);
    }
    consume(ch);
    tp_mc_stats st;
    tp_mc_get_stats(ch, &st);
    char why[256];
    tp_mc_last_bad(ch, why, sizeof(why));
    return 0;
}
