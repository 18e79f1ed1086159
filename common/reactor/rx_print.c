/* The console lines of a channel's trouble and of a tunnel stream's status, as the ETA tools
 * print them. */
#include "rx.h"
#include "rx_tunnel.h"

#include <stdio.h>

void rx_print_event(FILE *f, const rx_chan *ch, rx_event ev, const char *text)
{
    switch (ev) {
    case RX_CHANNEL_WARNING:
        fprintf(f, "Received warning for Channel fd=%d.\n\tError text: %s\n\n", rx_chan_fd(ch),
                text);
        return;
    case RX_CHANNEL_DOWN_RECONNECTING:
        fprintf(f, "Connection down, reconnecting.  Channel fd=%d\n", rx_chan_fd(ch));
        break;
    case RX_CHANNEL_DOWN:
        fprintf(f, "Connection down: Channel fd=%d.\n", rx_chan_fd(ch));
        break;
    case RX_CHANNEL_UP:
    case RX_CHANNEL_READY:
        return;
    }
    if (text && text[0])
        fprintf(f, "\tError text: %s\n\n", text);
}

rx_tunnel_change rx_tunnel_status_print(const rx_tunnel *t, const rwf_state *st,
                                        const rwf_login *auth, bool was_open)
{
    char text[512];
    rx_state_text(st, text, sizeof(text));
    printf("Received RsslTunnelStreamStatusEvent for stream \"%s\", with Stream ID %d and %s\n",
           rx_tunnel_name(t), (int)rx_tunnel_stream_id(t), text);
    rx_tunnel_change change = RX_TUNNEL_SAME;
    if (st->stream_state == RWF_STREAM_OPEN) {
        if (st->data_state == RWF_DATA_OK && !was_open) {
            if (auth)
                printf("  Client was authenticated.\n");
            change = RX_TUNNEL_OPENED;
        }
    } else {
        if (auth)
            printf("  Client's authentication failed.\n");
        printf("Tunnel stream has closed.\n");
        change = RX_TUNNEL_CLOSED;
    }
    printf("\n");
    fflush(stdout);
    return change;
}
