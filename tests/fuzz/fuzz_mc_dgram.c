/*
 * libFuzzer target for the seqMCast datagram reader. The first input byte sets the channel:
 * bits 0-1 choose its largest message (6144, 64, 16, 1), bit 2 switches the loss generator
 * on (50 %), bit 3 gives it a table of only 2 senders. The rest is a series of datagrams,
 * each [u16 length][bytes], sent from a plain UDP socket to the channel, which must read
 * them (delivering messages, pings, or dropping and counting malformed ones), never crash,
 * leak or loop. The channel receives on 127.0.0.1 (unicast, an ephemeral port), inside a
 * private network namespace when the process may create one.
 *
 * The 16 channels (one per setting) are made once and reused: before each input the
 * channel's read side is taken back to where tp_connect left it (tp_mc_reset_rx: socket
 * drained, senders, counts and loss generator as new), so that every input meets a channel
 * as a new one, without a socket, a 1 MB receive buffer and 600 KB of slots per input.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp.h"
#include "tp_mcast.h"
#include "ts_netns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sender = -1;
static tp_channel *chans[16];

static void setup_once(void)
{
    char why[256];
    if (sender >= 0)
        return;
    (void)ts_netns_enter(why, sizeof(why)); /* else the host's loopback, unicast only */
    sender = socket(AF_INET, SOCK_DGRAM, 0);
}

/* The channel of setting mode (made on first use), its read side as tp_connect left it;
 * NULL when it cannot be made. */
static tp_channel *channel(uint8_t mode)
{
    static const uint32_t max_msg[4] = {6144, 64, 16, 1};
    tp_channel **ch = &chans[mode & 15];
    if (*ch && tp_get_state(*ch) != TP_STATE_ACTIVE) {
        tp_close(*ch); /* failed on the last input: made anew, as a new run would */
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
    if (tp_connect(&o, ch) < 0)
        *ch = NULL;
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
    if (sender < 0)
        return 0;
    tp_channel *ch = channel(data[0]);
    if (!ch)
        return 0;
    data++;
    size--;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(tp_mc_local_port(ch))};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    size_t off = 0;
    int n = 0;
    while (off + 2 <= size) {
        size_t len = (size_t)data[off] << 8 | data[off + 1];
        off += 2;
        if (len > size - off)
            len = size - off;
        sendto(sender, data + off, len, 0, (struct sockaddr *)&to, sizeof(to));
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
