/* The console lines of a channel's trouble, as the ETA tools print them. */
#include "rx.h"

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
