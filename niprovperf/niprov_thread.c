/* An NIProvPerf publishing thread: connect, log in, publish, tick. */
#include "niprov.h"

#include "clk.h"
#include "err.h"
#include "pv_admin.h"
#include "run_chan.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int niprov_thread_init(niprov_thread *th, niprov_app *app, int i)
{
    memset(th, 0, sizeof(*th));
    th->app = app;
    const niprov_config *cfg = &app->cfg;
    if (items_split((size_t)cfg->pv.opts.item_count, (size_t)cfg->pv.opts.common_item_count,
                    (size_t)app->n_threads, (size_t)i, &th->share) != 0)
        return -1;
    return pv_thread_init(&th->pv, i, 0);
}

void niprov_thread_free(niprov_thread *th)
{
    pv_thread_free(&th->pv);
}

static int enc_login(rwf_enc *e, const void *arg)
{
    return rwf_rdm_login_request(e, (const rwf_login *)arg);
}

static int enc_directory(rwf_enc *e, const void *arg)
{
    return rwf_rdm_directory_refresh(e, (const rwf_directory *)arg);
}

/* The channel is up: print it, then log in. */
static int activate(niprov_thread *th)
{
    niprov_app *app = th->app;
    const niprov_config *cfg = &app->cfg;
    pv_sess *s = &th->sess;
    tp_info info;
    if (run_channel_info(stdout, s->ch) != 0 || tp_get_info(s->ch, &info) != 0)
        return -1;
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info.max_fragment_size)
        return err_set("Error(Channel %d): MaxFragmentSize %u is too small for packing buffer "
                       "size %d",
                       tp_fd(s->ch), info.max_fragment_size, cfg->pv.pack_buf_size);
    pv_content_print_sizes(app->in.content, stdout);
    fflush(stdout);
    if (pv_items_init(&s->items, (uint32_t)th->share.count + 1) != 0)
        return -1;
    run_out_init_tp(&s->out, s->ch, (uint32_t)cfg->pv.max_pack_count,
                    (uint32_t)cfg->pv.pack_buf_size,
                    cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
    pv_burst_set_hwm(s->ch, cfg->pv.opts.high_water_mark);
    s->active_ns = clk_ns();
    th->active = true;

    rwf_login l;
    niprov_login(app, &l, "NIProvPerf");
    if (run_out_send(&s->out, 512 + l.user.len, enc_login, &l, false) < 0)
        return err_push("sending the login request");
    return 0;
}

void niprov_directory(const niprov_app *app, rwf_directory *d)
{
    memset(d, 0, sizeof(*d));
    d->stream_id = -1;
    d->filter = RWF_DIR_INFO | RWF_DIR_STATE | RWF_DIR_GROUP;
    d->has_service_id = 1;
    d->service_id = app->in.service.id;
    d->clear_cache = 1;
    d->state.stream_state = RWF_STREAM_OPEN;
    d->state.data_state = RWF_DATA_OK;
    d->state.code = RWF_SC_NONE;
    d->services = &app->in.service;
    d->service_count = 1;
}

/* Logged in: the directory on stream -1, then the items. */
static int publish(niprov_thread *th)
{
    niprov_app *app = th->app;
    pv_sess *s = &th->sess;
    rwf_directory d;
    niprov_directory(app, &d);
    int rc = run_out_send(&s->out, 1024 + app->in.service.name.len, enc_directory, &d, false);
    if (rc < 0)
        return err_push("publishing the directory");
    return niprov_publish_items(th);
}

int niprov_publish_items(niprov_thread *th)
{
    niprov_app *app = th->app;
    const niprov_config *cfg = &app->cfg;
    pv_sess *s = &th->sess;
    int rc;
    for (size_t j = 0; j < th->share.count; j++) {
        size_t li = j < th->share.common ? j : th->share.first + (j - th->share.common);
        const item_def *it = &app->list.v[li];
        int dom = pv_dom_index(it->domain);
        if (dom < 0 || !app->in.feed.dom[dom].present)
            return err_set("createItemInfo: No %s data present in message data file.",
                           it->domain == ITEMS_DOMAIN_MARKET_BY_ORDER ? "MarketByOrder"
                                                                      : "MarketPrice");
        pv_key k;
        memset(&k, 0, sizeof(k));
        k.flags = PV_KEY_NAME_TYPE | PV_KEY_NAME | PV_KEY_SERVICE_ID;
        k.name_type = 1; /* RIC */
        k.service_id = (uint16_t)cfg->pv.service_id;
        k.name = (const uint8_t *)it->name;
        k.name_len = it->name_len;
        uint32_t idx;
        if (pv_items_add(&s->items, -(int32_t)j - 6, it->domain, &k, PV_ITEM_STREAMING, &idx) != 0)
            return -1;
    }
    printf("Created publishing list.\n");
    fflush(stdout);
    th->publishing = true;
    if (s->items.refresh.count &&
        (rc = pv_burst_refreshes(s, &app->in.feed, &th->pv.stats)) == TP_EFAIL)
        return -1;
    return run_out_close(&s->out) < 0 ? -1 : 0;
}

/* One message from the ADH. Returns 0, or -1 when the test must end (err_msg() set). */
static int handle(niprov_thread *th, const uint8_t *data, uint32_t len)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(data, len)) != RWF_OK)
        return err_push("rsslDecodeMsg(): message of %u bytes", len);
    if (m.domain != RWF_DMT_LOGIN) {
        printf("Received message with unhandled domain: %u\n", m.domain);
        return 0;
    }
    rwf_login l;
    if (rwf_rdm_login_decode(&m, &l) != RWF_OK)
        return err_push("rsslDecodeRDMLoginMsg() failed");
    const rwf_state *state = NULL;
    if (l.msg_class == RWF_MC_REFRESH) {
        printf("Received login refresh.\n");
        if (l.flags & RWF_LOGIN_HAS_APP_NAME)
            printf("  ApplicationName: %.*s\n", (int)l.app_name.len, l.app_name.data);
        printf("\n");
        state = &l.state;
    } else if (l.msg_class == RWF_MC_STATUS) {
        printf("Received login status message.\n");
        if (l.flags & RWF_LOGIN_HAS_STATE)
            state = &l.state;
    } else {
        printf("Received unhandled login message class: %u.\n", l.msg_class);
    }
    fflush(stdout);
    if (!state)
        return 0;
    if (state->stream_state != RWF_STREAM_OPEN)
        return err_set("Login stream closed.");
    if (th->publishing)
        return 0;
    return publish(th);
}

/* run_drv_ops.connecting: the original's line before each attempt. */
static void on_connecting(void *arg)
{
    const niprov_config *cfg = &((niprov_thread *)arg)->app->cfg;
    printf("\nAttempting unified connect to server %s:%s...\n", cfg->pv.opts.host,
           cfg->pv.opts.port);
    fflush(stdout);
}

/* run_drv_ops.connect_failed: tp_connect's failures every time, a handshake's once. */
static void on_connect_failed(void *arg, run_drv_stage stage, const char *why, bool repeat)
{
    (void)arg;
    if (stage == RUN_DRV_AT_CONNECT)
        printf("rsslConnect() failed: %s\n", why);
    else if (!repeat)
        run_channel_closed(stdout, why);
}

/* run_drv_ops.up: the thread's one channel is up: printed, then the login. */
static int on_up(void *arg, run_drv_ch *c)
{
    niprov_thread *th = arg;
    th->dc = c;
    th->sess.ch = c->ch;
    run_tls_seen_note(&th->app->run.tls_seen, c->ch);
    return activate(th) != 0 ? RUN_DRV_CLOSE : 0;
}

/* run_drv_ops.msg: one message from the ADH. */
static int on_msg(void *arg, run_drv_ch *c, const tp_msg *m)
{
    (void)c;
    return handle(arg, m->data, m->len) != 0 ? RUN_DRV_CLOSE : 0;
}

/* run_drv_ops.tick: the bursts once publishing. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    niprov_thread *th = arg;
    niprov_app *app = th->app;
    (void)now;
    if (th->publishing &&
        pv_burst_tick(&th->sess, &app->in.feed, &app->in.rates, &th->pv.stats, t) == TP_EFAIL)
        run_drv_close(&th->drv, th->dc, err_msg());
    return 0;
}

/* run_drv_ops.down: the channel is gone: lost (or the ADH ended the login), which ends the
 * test, or closed at the end of the run. */
static void on_down(void *arg, run_drv_ch *c, const char *why)
{
    niprov_thread *th = arg;
    pv_sess *s = &th->sess;
    if (c != th->dc)
        return; /* an attempt that never came up */
    if (why && !sig_stop_requested()) {
        run_channel_closed(stdout, why);
        err_set("%s", why);
        run_drv_fail(&th->drv, RUN_EXIT_FAILED, NULL);
    }
    pv_stats_closed(&th->pv.stats, s->pub_ns, clk_ns());
    if (s->active_ns)
        pv_items_free(&s->items);
    s->ch = NULL;
    th->dc = NULL;
    fflush(stdout);
}

/* pv_thread_fns: the thread's one channel (bare): connected, logged in, publishing until the
 * run stops or the channel is lost. */
static void bare_loop(void *arg)
{
    static const run_drv_ops ops = {.tick = on_tick,
                                    .up = on_up,
                                    .msg = on_msg,
                                    .down = on_down,
                                    .connecting = on_connecting,
                                    .connect_failed = on_connect_failed};
    niprov_thread *th = arg;
    niprov_app *app = th->app;
    const run_drv_cfg dc = {.tool = th,
                            .ops = &ops,
                            .tick_rate = (uint32_t)app->cfg.pv.opts.tick_rate,
                            .tk = &th->pv.t,
                            .lat = &th->pv.stats.lat,
                            .fail = &app->run.fail,
                            .connect = &app->cfg.pv.opts,
                            .link = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF},
                            .read_batch = 16};
    if (run_drv_init(&th->drv, &dc) != 0) {
        run_fail_stop(&app->run.fail, NULL);
        return;
    }
    run_drv_run(&th->drv);
    niprov_never_connected(th, th->drv.errs.last);
    run_drv_free(&th->drv);
}

void niprov_never_connected(niprov_thread *th, const char *why)
{
    const niprov_config *cfg = &th->app->cfg;
    if (th->active || th->drv.failed)
        return;
    printf("Error: never connected to %s:%s%s%s.\n", cfg->pv.opts.host, cfg->pv.opts.port,
           why[0] ? ": " : "", why);
    fflush(stdout);
    run_fail_set(&th->app->run.fail, RUN_EXIT_FAILED, "never connected to %s:%s%s%s",
                 cfg->pv.opts.host, cfg->pv.opts.port, why[0] ? ": " : "", why);
}

/* pv_thread_fns: the loop with -reactor. */
static void reactor_loop(void *th)
{
    niprov_rx_thread(th);
}

/* pv_thread_fns: the binding failed: its line, and the test ends. */
static void bind_failed(void *th, const char *line)
{
    printf("%s\n", line);
    run_fail_stop(&((niprov_thread *)th)->app->run.fail, "binding the thread");
}

int niprov_thread_start(niprov_thread *th)
{
    static const pv_thread_fns fns = {reactor_loop, bare_loop, bind_failed};
    return pv_thread_start(&th->pv, th, th->app->cfg.pv.opts.reactor, &fns);
}

void niprov_login(const niprov_app *app, rwf_login *l, const char *app_name)
{
    const niprov_config *cfg = &app->cfg;
    memset(l, 0, sizeof(*l));
    l->stream_id = 1;
    l->user = rwf_buf_cstr(cfg->pv.opts.uname[0] ? cfg->pv.opts.uname : app->user);
    l->flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l->app_id = RWF_STR("256");
    l->app_name = rwf_buf_cstr(app_name);
    l->position = rwf_buf_cstr(app->in.position);
    l->role = 1; /* provider */
}
