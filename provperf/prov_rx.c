/*
 * ProvPerf -reactor: a provider thread over the reactor layer (docs/modes.md#reactor-provider).
 *
 * The thread creates a reactor (its worker bound by -workerThreads) and gives it, as provider
 * channels, the connections the main thread accepted and handed over; the worker runs their
 * handshakes, reads, writes and pings. The callbacks run the bare mode's handlers (login,
 * directory, dictionary, items, posts, generic messages), whose replies and the tick's bursts
 * go through the layer's buffers (pv_out over the reactor channel). On the wire the two modes
 * are the same; the console says "Channel <fd> active. Channel Info:" when a channel is up,
 * "Approximate message sizes:" when it is ready, "Channel Closed." when it goes.
 */
#include "prov.h"

#include "pv_admin.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events handled per rx_dispatch call before the loop looks at its ticks again. */
#define PROV_RX_DISPATCH 256

/* Removes session s (its channel is closed or being closed by the layer) and frees it. */
static void drop_session(prov_thread *th, pv_sess *s)
{
    prov_tun_forget(s);
    if (s->active_ns)
        pv_stats_closed(&th->pv.stats, s->pub_ns, clk_ns());
    if (s->active_ns)
        pv_items_free(&s->items);
    prov_remove_session(th, s);
}

/* The channel is up: what the ETA provider prints, the packing check, then the session. */
static int on_up(prov_thread *th, pv_sess *s)
{
    prov_app *app = th->app;
    const prov_config *cfg = &app->cfg;
    const tp_info *info = rx_info(s->rx);
    run_channel_info_print(stdout, rx_chan_fd(s->rx), info);
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info->max_fragment_size) {
        prov_app_fail(app,
                      "Error(Channel %d): MaxFragmentSize %u is too small for packing "
                      "buffer size %d",
                      rx_chan_fd(s->rx), info->max_fragment_size, cfg->pv.pack_buf_size);
        return -1;
    }
    run_tls_seen_add(&app->run.tls_seen, info->tls_version, info->tls_cipher);
    if (pv_items_init(&s->items, 1024) != 0)
        return -1;
    pv_out_init_rx(&s->out, s->rx, (uint32_t)cfg->pv.max_pack_count,
                   (uint32_t)cfg->pv.pack_buf_size,
                   cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
    s->active_ns = clk_ns();
    return 0;
}

static int on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    pv_sess *s = rx_user(ch);
    prov_thread *th = s->tool;
    switch (ev) {
    case RX_CHANNEL_UP:
        if (on_up(th, s) != 0) {
            rx_close(ch);
            drop_session(th, s);
        }
        break;
    case RX_CHANNEL_READY:
        pv_content_print_sizes(th->app->in.content, stdout);
        break;
    case RX_CHANNEL_WARNING:
        printf("Received warning for Channel fd=%d.\n\tError text: %s\n", rx_chan_fd(ch), text);
        break;
    case RX_CHANNEL_DOWN:
    case RX_CHANNEL_DOWN_RECONNECTING:
        run_channel_closed(stdout, NULL); /* the original's reactor mode: "Channel Closed." */
        drop_session(th, s);              /* the layer closes the channel after this */
        break;
    }
    fflush(stdout);
    return 0;
}

/* A message for session s: the bare mode's handlers; a channel they give up on is closed. */
static int on_message(rx_chan *ch, const rwf_msg *m)
{
    pv_sess *s = rx_user(ch);
    prov_thread *th = s->tool;
    if (!s->active_ns)
        return 0;
    if (prov_handle_msg(th, s, m) < 0) {
        run_channel_closed(stdout, err_msg());
        rx_close(ch);
        drop_session(th, s);
    }
    return 0;
}

static int on_login(rx_chan *ch, const rwf_msg *m, const rwf_login *l)
{
    (void)l;
    return on_message(ch, m);
}

static int on_directory(rx_chan *ch, const rwf_msg *m, const rwf_service *svc, unsigned n)
{
    (void)svc;
    (void)n;
    return on_message(ch, m);
}

/* What the consumers' channels report to this thread: every message goes to prov_handle_msg,
 * tunnel stream requests to prov_tun_request. */
static const rx_callbacks callbacks = {.on_channel = on_channel,
                                       .on_login = on_login,
                                       .on_directory = on_directory,
                                       .on_dictionary = on_message,
                                       .on_msg = on_message,
                                       .on_tunnel_request = prov_tun_request};

/* Gives the channels the main thread handed over to the reactor. */
static void adopt_handed(prov_thread *th, rx_reactor *r)
{
    const prov_config *cfg = &th->app->cfg;
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    role.cb = callbacks;
    tp_channel *ch[16];
    int n;
    while ((n = run_handoff_take(&th->hand, ch, 16)) > 0) {
        for (int i = 0; i < n; i++) {
            pv_sess *s = calloc(1, sizeof(*s));
            if (!s || prov_grow_sessions(th) != 0) {
                free(s);
                tp_close(ch[i]);
                run_handoff_closed(&th->hand);
                run_channel_closed(stdout, "out of memory adopting a channel");
                continue;
            }
            s->tool = th;
            uint32_t hwm =
                cfg->pv.opts.high_water_mark > 0 ? (uint32_t)cfg->pv.opts.high_water_mark : 0;
            if (rx_accept(r, ch[i], hwm, 0, &role, s, &s->rx) != 0) {
                run_channel_closed(stdout, err_msg());
                free(s);
                run_handoff_closed(&th->hand);
                continue;
            }
            th->sess[th->n_sess++] = s;
        }
    }
}

/* The tick's bursts on every active channel. */
static void bursts(prov_thread *th)
{
    prov_app *app = th->app;
    for (int i = 0; i < th->n_sess;) {
        pv_sess *s = th->sess[i];
        if (!s->active_ns || !rx_is_up(s->rx)) {
            i++;
            continue;
        }
        if (pv_burst_tick(s, &app->in.feed, &app->in.rates, &th->pv.stats, &th->pv.t) == TP_EFAIL) {
            char why[ERR_MSG_MAX + 64];
            snprintf(why, sizeof(why), "Failure while writing message bursts: %s", err_msg());
            run_channel_closed(stdout, why);
            rx_close(s->rx);
            drop_session(th, s);
            continue; /* slot i now holds another session */
        }
        i++;
    }
    latbuf_poll(&th->pv.stats.lat);
}

void prov_rx_thread(prov_thread *th)
{
    prov_app *app = th->app;
    rx_opts ro;
    rx_opts_init(&ro);
    if (th->pv.worker_bound)
        ro.worker_cpu = &th->pv.worker_cpu;
    ro.json = app->json ? app->json->conv : NULL; /* -pl: rssl.json.v2 clients, converted */
    rx_reactor *r;
    if (rx_create(&ro, &r) != 0) {
        prov_app_fail(app, "Reactor creation failed: %s", err_msg());
        return;
    }
    tick_tighten_slack();
    const uint32_t rate = (uint32_t)app->cfg.pv.opts.tick_rate;
    const int64_t interval = CLK_NS_PER_SEC / rate;
    tick_init(&th->pv.t, rate, clk_ns() + interval);
    while (!sig_stop_requested()) {
        int64_t now = clk_ns();
        if (th->n_sess && tick_poll(&th->pv.t, now)) {
            bursts(th);
            continue;
        }
        /* Without a channel there is nothing to send: no ticks to keep until one comes. */
        int64_t wait = th->n_sess ? tick_wait_ns(&th->pv.t, now) : 100 * 1000000LL;
        int w = rx_wait_fd(r, wait, th->hand.evfd);
        if (w < 0 && errno != EINTR) {
            prov_app_fail(app, "provider thread %d: waiting: %s", th->pv.index + 1,
                          strerror(errno));
            break;
        }
        if (w > 0 && (w & RX_WAIT_FD)) {
            bool had = th->n_sess > 0;
            adopt_handed(th, r);
            if (!had && th->n_sess)
                tick_init(&th->pv.t, rate, clk_ns() + interval);
        }
        int n;
        do {
            n = rx_dispatch(r, PROV_RX_DISPATCH);
        } while (n == PROV_RX_DISPATCH && clk_ns() < th->pv.t.next_ns);
        if (n < 0) {
            prov_app_fail(app, "provider thread %d: %s", th->pv.index + 1, err_msg());
            break;
        }
        latbuf_poll(&th->pv.stats.lat); /* also when no channel ticks */
    }
    rx_destroy(r); /* closes every channel */
    while (th->n_sess)
        drop_session(th, th->sess[0]);
}
