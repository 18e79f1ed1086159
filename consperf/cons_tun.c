/*
 * ConsPerf -tunnel (with -reactor or -watchlist): the item traffic inside a tunnel stream
 * (docs/modes.md#tunnel-streams).
 *
 * Once the directory shows the service up with capability 127 (SYSTEM), the thread opens one
 * tunnel stream to it: name "ConsPerf", domain SYSTEM, stream id 1000, reliable data integrity,
 * bidirectional flow control, OMM-login authentication with -tunnelAuth (the channel's login
 * request sent inside), -tunnelStreamOutputBufs buffers. While it is open, item requests, posts
 * and generic messages are written inside it, and what the provider sends inside reaches the
 * item handler as on the channel. Item requests wait for the tunnel. With
 * -tunnelStreamBuffersUsed the tunnel's buffer count is sampled after each submit. The console
 * lines are the original's ("Opened Tunnel Stream.", the status events, "Client was
 * authenticated.", "Tunnel stream has closed.").
 */
#include "worker.h"

#include "err.h"
#include "rx_tunnel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONS_TUNNEL_STREAM 1000
#define CONS_TUNNEL_CAPABILITY 127 /* the tunnel's domain: SYSTEM */

/* The tunnel stream's state of a worker (cons_worker.tun). */
struct cons_tun {
    rx_tunnel *tunnel; /* opened (NULL: none, or it closed) */
    bool open;         /* open: requests, posts, generic messages go inside */
    run_out out;       /* the tunnel's write path while it is open (cons_worker.item_out then;
                        * admin messages stay on the channel's) */
};

int cons_tun_init(cons_worker *w)
{
    if (!(w->tun = calloc(1, sizeof(*w->tun))))
        return err_set("out of memory for the tunnel stream's state");
    return 0;
}

void cons_tun_free(cons_worker *w)
{
    free(w->tun);
    w->tun = NULL;
}

bool cons_tun_is_open(const cons_worker *w)
{
    return w->tun && w->tun->open;
}

/* The tunnel is open, or closed: item messages go inside it, or to the channel. */
static void set_open(cons_worker *w, bool open)
{
    w->tun->open = open;
    w->item_out = open ? &w->tun->out : &w->out;
}

/* run_out's after_write inside the tunnel (arg: the worker): -tunnelStreamBuffersUsed's
 * sample of the tunnel's buffer count, recorded as "microseconds" so that the recorder's
 * summary reads as the count. */
static void sample(void *arg)
{
    cons_worker *w = arg;
    struct cons_tun *u = w->tun;
    if (!w->cfg->opts.tunnel_bufs_used || !u->open)
        return;
    rx_tunnel_info in;
    rx_tunnel_get_info(u->tunnel, &in);
    lat_record(&latbuf_cur(&w->t->lat)[CONS_LAT_TUNNEL_BUFS], (int64_t)in.buffers_used * 1000);
}

static int on_status(rx_tunnel *t, const rwf_state *st, const rwf_login *auth)
{
    cons_worker *w = rx_tunnel_user(t);
    struct cons_tun *u = w->tun;
    switch (rx_tunnel_status_print(t, st, auth, u->open)) {
    case RX_TUNNEL_OPENED:
        run_out_init_tunnel(&u->out, t, false, sample, w);
        set_open(w, true);
        break;
    case RX_TUNNEL_CLOSED:
        u->tunnel = NULL;
        set_open(w, false);
        break;
    case RX_TUNNEL_SAME:
        break;
    }
    return 0;
}

static int on_msg(rx_tunnel *t, const rwf_msg *m)
{
    cons_worker *w = rx_tunnel_user(t);
    if (__builtin_expect(!w->dict, 0)) {
        err_set("item message on stream %d before the dictionary", (int)m->stream_id);
        return cons_fail(w, NULL);
    }
    return cons_on_item(w, m);
}

bool cons_tun_capable(const rwf_service *s)
{
    if (!(s->flags & RWF_SVC_HAS_INFO))
        return false;
    for (unsigned i = 0; i < s->capability_count; i++)
        if (s->capabilities[i] == CONS_TUNNEL_CAPABILITY)
            return true;
    return false;
}

int cons_tun_open(cons_worker *w, bool capable)
{
    struct cons_tun *u = w->tun;
    rx_chan *ch = cons_rx_chan(w);
    if (!u || u->tunnel || !w->have_service || !capable || !ch)
        return 0;
    rx_tunnel_opts o;
    rx_tunnel_opts_init(&o);
    o.name = "ConsPerf";
    o.domain = RWF_DMT_SYSTEM;
    o.service_id = w->service_id;
    o.stream_id = CONS_TUNNEL_STREAM;
    o.cos.data_integrity = RX_COS_DI_RELIABLE;
    o.cos.flow_control = RX_COS_FC_BIDIRECTIONAL;
    if (w->cfg->tunnel_auth)
        o.cos.auth_type = RX_COS_AU_OMM_LOGIN;
    o.guaranteed_output_buffers = (uint32_t)w->cfg->opts.tunnel_output_bufs;
    o.cb.on_status = on_status;
    o.cb.on_msg = on_msg;
    o.user = w;
    if (rx_tunnel_open(ch, &o, &u->tunnel) != 0) {
        printf("Opening the tunnel stream failed: %s\n", err_msg());
        u->tunnel = NULL;
        return 0;
    }
    printf("Opened Tunnel Stream.\n");
    return 0;
}

void cons_tun_close(cons_worker *w)
{
    struct cons_tun *u = w->tun;
    if (!u || !u->tunnel)
        return;
    rx_tunnel_close(u->tunnel, false);
    u->tunnel = NULL;
    set_open(w, false);
    printf("Tunnel stream has closed.\n");
    fflush(stdout);
}
