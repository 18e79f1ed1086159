/*
 * NIProvPerf -reactor: a publishing thread over the reactor layer.
 *
 * The thread's reactor (its worker bound by -workerThreads) connects with the non-interactive
 * provider role: when the channel is up the layer sends the login request (the reactor's default
 * request: user, ApplicationId "256", ApplicationName "eta", Position, Role 1 = provider), and
 * once the login is accepted the directory refresh on stream -1; then the channel is ready and
 * the thread publishes its items and runs the bursts, written through the layer's buffers.
 * Console lines are the original's: "Attempting unified connect to server <h>:<p>..." once,
 * "Channel <fd> active. Channel Info:" when up, the message sizes and "Created publishing
 * list." when ready, the channel-down lines. Losing the channel after it was up ends the test.
 */
#include "niprov.h"

#include "clk.h"
#include "err.h"
#include "pv_admin.h"
#include "run_chan.h"
#include "run_drv.h"
#include "sig.h"

#include <stdio.h>
#include <string.h>

/* The channel is up: the Channel Info block, the packing check, the session. */
static int on_up(niprov_thread *th, rx_chan *ch)
{
    niprov_app *app = th->app;
    const niprov_config *cfg = &app->cfg;
    pv_sess *s = &th->sess;
    const tp_info *info = rx_info(ch);
    run_channel_info_print(stdout, rx_chan_fd(ch), info);
    run_tls_seen_add(&app->run.tls_seen, info->tls_version, info->tls_cipher);
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info->max_fragment_size)
        return err_set("Error(Channel %d): MaxFragmentSize %u is too small for packing buffer "
                       "size %d",
                       rx_chan_fd(ch), info->max_fragment_size, cfg->pv.pack_buf_size);
    if (!s->active_ns) {
        if (pv_items_init(&s->items, (uint32_t)th->share.count + 1) != 0)
            return -1;
        run_out_init_rx(&s->out, ch, (uint32_t)cfg->pv.max_pack_count,
                        (uint32_t)cfg->pv.pack_buf_size,
                        cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
        s->active_ns = clk_ns();
    }
    th->active = true;
    return 0;
}

/* Ends the test: the text of what went wrong is in err_msg(). */
static int fail(niprov_thread *th)
{
    return run_drv_fail(&th->drv, RUN_EXIT_FAILED, NULL);
}

static int on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    niprov_thread *th = rx_user(ch);
    int rc = 0;
    rx_print_event(stdout, ch, ev, text);
    switch (ev) {
    case RX_CHANNEL_UP:
        if (on_up(th, ch) != 0) {
            run_channel_closed(stdout, err_msg());
            rc = fail(th);
        }
        break;
    case RX_CHANNEL_READY:
        pv_content_print_sizes(th->app->in.content, stdout);
        if (!th->publishing && niprov_publish_items(th) != 0) {
            run_channel_closed(stdout, err_msg());
            rc = fail(th);
        }
        break;
    case RX_CHANNEL_WARNING:
        break;
    case RX_CHANNEL_DOWN_RECONNECTING:
        if (th->active) { /* only one connection, as the original */
            err_set("connection lost: %s", text ? text : "");
            rc = fail(th);
        } else {
            snprintf(th->conn_error, sizeof(th->conn_error), "%s", text ? text : "");
        }
        break;
    case RX_CHANNEL_DOWN:
        if (!th->active) {
            /* Never up, and the layer does not try again: a failure that cannot heal (a name
             * that does not resolve, a certificate or sub-protocol refused). */
            printf("Error: %s (trying again cannot succeed).\n", text ? text : "");
            err_set("connection to %s:%s: %s", th->app->cfg.pv.opts.host, th->app->cfg.pv.opts.port,
                    text ? text : "");
        } else {
            err_set("connection lost: %s", text ? text : "");
        }
        rc = fail(th);
        break;
    }
    fflush(stdout);
    return rc;
}

static int on_login(rx_chan *ch, const rwf_msg *m, const rwf_login *l)
{
    niprov_thread *th = rx_user(ch);
    if (!l)
        return err_push("rsslDecodeRDMLoginMsg() failed"), fail(th);
    const rwf_state *state = NULL;
    if (l->msg_class == RWF_MC_REFRESH) {
        printf("Received login refresh.\n");
        if (l->flags & RWF_LOGIN_HAS_APP_NAME)
            printf("  ApplicationName: %.*s\n", (int)l->app_name.len, l->app_name.data);
        printf("\n");
        state = &l->state;
    } else if (l->msg_class == RWF_MC_STATUS) {
        printf("Received login status message.\n");
        if (l->flags & RWF_LOGIN_HAS_STATE)
            state = &l->state;
    } else {
        printf("Received unhandled login message class: %u.\n", m->msg_class);
    }
    fflush(stdout);
    if (state && state->stream_state != RWF_STREAM_OPEN) {
        printf("Login stream closed.\n");
        err_set("Login stream closed.");
        return fail(th);
    }
    return 0;
}

static int on_msg(rx_chan *ch, const rwf_msg *m)
{
    (void)ch;
    printf("Received message with unhandled domain: %u\n", m->domain);
    return 0;
}

/* What the channel to the ADH reports to this thread. */
static const rx_callbacks callbacks = {
    .on_channel = on_channel, .on_login = on_login, .on_msg = on_msg};

/* Opens the reactor and the channel. Returns 0, or -1 after fail(). */
static int open_channel(niprov_thread *th, rx_reactor **r, rx_chan **ch)
{
    niprov_app *app = th->app;
    const niprov_config *cfg = &app->cfg;
    rx_opts ro;
    rx_opts_init(&ro);
    if (th->pv.worker_bound)
        ro.worker_cpu = &th->pv.worker_cpu;
    if (rx_create(&ro, r) != 0)
        return err_push("creating the reactor"), fail(th);
    rwf_login l;
    niprov_login(app, &l, "eta");
    rwf_directory d;
    niprov_directory(app, &d);
    rx_role role;
    rx_role_init(&role, RX_ROLE_NIPROVIDER);
    role.cb = callbacks;
    role.login = &l;
    role.directory_refresh = &d;
    rx_conn_opts co;
    const run_link link = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF};
    run_drv_rx_conn(&cfg->pv.opts, &link, &co);
    printf("\nAttempting unified connect to server %s:%s...\n", cfg->pv.opts.host,
           cfg->pv.opts.port);
    fflush(stdout);
    if (rx_connect(*r, &co, &role, th, ch) != 0)
        return err_push("connecting"), fail(th);
    return 0;
}

/* run_drv_ops.tick: the bursts once publishing and up; a failed write ends the test. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    niprov_thread *th = arg;
    niprov_app *app = th->app;
    (void)now;
    if (th->publishing && rx_is_up(th->rch) &&
        pv_burst_tick(&th->sess, &app->in.feed, &app->in.rates, &th->pv.stats, t) == TP_EFAIL) {
        run_channel_closed(stdout, err_msg());
        return fail(th);
    }
    return 0;
}

void niprov_rx_thread(niprov_thread *th)
{
    static const run_drv_ops ops = {.tick = on_tick};
    niprov_app *app = th->app;
    pv_sess *s = &th->sess;
    rx_reactor *r = NULL;
    rx_chan *ch = NULL;
    const run_drv_cfg dc = {.tool = th,
                            .ops = &ops,
                            .tick_rate = (uint32_t)app->cfg.pv.opts.tick_rate,
                            .tk = &th->pv.t,
                            .lat = &th->pv.stats.lat,
                            .fail = &app->run.fail};
    if (run_drv_init(&th->drv, &dc) != 0) {
        run_fail_stop(&app->run.fail, NULL);
        return;
    }
    if (open_channel(th, &r, &ch) == 0) {
        th->rch = ch;
        run_drv_use_reactor(&th->drv, r);
        run_drv_run(&th->drv);
        niprov_never_connected(th, th->conn_error);
    }
    run_drv_free(&th->drv);
    pv_stats_closed(&th->pv.stats, s->pub_ns, clk_ns());
    rx_destroy(r);
    if (s->active_ns)
        pv_items_free(&s->items);
    fflush(stdout);
}
