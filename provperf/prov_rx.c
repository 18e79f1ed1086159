/*
 * ProvPerf -reactor: a provider thread over the reactor layer (docs/modes.md#reactor-provider).
 *
 * The thread creates a reactor (its worker bound by -workerThreads) and gives it, as provider
 * channels, the connections the main thread accepted and handed over; the worker runs their
 * handshakes, reads, writes and pings. The callbacks run the bare mode's handlers (login,
 * directory, dictionary, items, posts, generic messages), whose replies and the tick's bursts
 * go through the layer's buffers (run_out over the reactor channel). On the wire the two modes
 * are the same; the console says "Channel <fd> active. Channel Info:" when a channel is up,
 * "Approximate message sizes:" when it is ready, "Channel Closed." when it goes.
 */
#include "prov.h"

#include "pv_admin.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Removes session s (its channel is closed or being closed by the layer) and frees it; without
 * a channel left the thread has no ticks to keep. */
static void drop_session(prov_thread *th, pv_sess *s)
{
    prov_tun_forget(s);
    if (s->active_ns)
        pv_stats_closed(&th->pv.stats, s->pub_ns, clk_ns());
    if (s->active_ns)
        pv_items_free(&s->items);
    prov_remove_session(th, s);
    run_handoff_closed(&th->hand);
    if (!th->n_sess)
        run_drv_ticking(&th->drv, false);
}

/* The channel is up: what the ETA provider prints, the packing check, then the session. */
static int on_up(prov_thread *th, pv_sess *s)
{
    prov_app *app = th->app;
    const prov_config *cfg = &app->cfg;
    const tp_info *info = rx_info(s->rx);
    run_channel_info_print(stdout, rx_chan_fd(s->rx), info);
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info->max_fragment_size) {
        prov_fail(th,
                  "Error(Channel %d): MaxFragmentSize %u is too small for packing buffer size %d",
                  rx_chan_fd(s->rx), info->max_fragment_size, cfg->pv.pack_buf_size);
        return -1;
    }
    run_tls_seen_add(&app->run.tls_seen, info->tls_version, info->tls_cipher);
    if (pv_items_init(&s->items, 1024) != 0)
        return -1;
    run_out_init_rx(&s->out, s->rx, (uint32_t)cfg->pv.max_pack_count,
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

/* run_drv_ops.adopt: a channel the main thread handed over goes to the reactor as a
 * provider channel; the first of the thread's channels starts its ticks. */
static void adopt(void *arg, tp_channel *ch)
{
    prov_thread *th = arg;
    const prov_config *cfg = &th->app->cfg;
    rx_role role;
    rx_role_init(&role, RX_ROLE_PROVIDER);
    role.cb = callbacks;
    pv_sess *s = calloc(1, sizeof(*s));
    if (!s || prov_grow_sessions(th) != 0) {
        free(s);
        tp_close(ch);
        run_handoff_closed(&th->hand);
        run_channel_closed(stdout, "out of memory adopting a channel");
        return;
    }
    s->tool = th;
    uint32_t hwm = cfg->pv.opts.high_water_mark > 0 ? (uint32_t)cfg->pv.opts.high_water_mark : 0;
    if (rx_accept(th->rx, ch, hwm, 0, &role, s, &s->rx) != 0) {
        run_channel_closed(stdout, err_msg());
        free(s);
        run_handoff_closed(&th->hand);
        return;
    }
    th->sess[th->n_sess++] = s;
    run_drv_ticking(&th->drv, true);
}

/* run_drv_ops.tick: the tick's bursts on every active channel. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    prov_thread *th = arg;
    prov_app *app = th->app;
    (void)now;
    for (int i = 0; i < th->n_sess;) {
        pv_sess *s = th->sess[i];
        if (!s->active_ns || !rx_is_up(s->rx)) {
            i++;
            continue;
        }
        if (pv_burst_tick(s, &app->in.feed, &app->in.rates, &th->pv.stats, t) == TP_EFAIL) {
            char why[ERR_MSG_MAX + 64];
            snprintf(why, sizeof(why), "Failure while writing message bursts: %s", err_msg());
            run_channel_closed(stdout, why);
            rx_close(s->rx);
            drop_session(th, s);
            continue; /* slot i now holds another session */
        }
        i++;
    }
    return 0;
}

void prov_rx_thread(prov_thread *th)
{
    static const run_drv_ops ops = {.tick = on_tick, .adopt = adopt};
    prov_app *app = th->app;
    if (prov_drv_init(th, &ops, 0) != 0)
        return;
    rx_opts ro;
    rx_opts_init(&ro);
    if (th->pv.worker_bound)
        ro.worker_cpu = &th->pv.worker_cpu;
    ro.json = app->json ? app->json->conv : NULL; /* -pl: rssl.json.v2 clients, converted */
    if (rx_create(&ro, &th->rx) != 0) {
        prov_fail(th, "Reactor creation failed: %s", err_msg());
        run_drv_free(&th->drv);
        return;
    }
    run_drv_use_reactor(&th->drv, th->rx);
    run_drv_ticking(&th->drv, false); /* without a channel there is nothing to send */
    run_drv_run(&th->drv);
    run_drv_free(&th->drv);
    rx_destroy(th->rx); /* closes every channel */
    th->rx = NULL;
    while (th->n_sess)
        drop_session(th, th->sess[0]);
}
