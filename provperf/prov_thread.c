/* A ProvPerf provider thread: its channels on the session driver (bare mode). */
#include "prov.h"

#include "pv_admin.h"

#include "clk.h"
#include "err.h"
#include "sig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prov_app_fail(prov_app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool first = run_fail_vset(&a->run.fail, RUN_EXIT_FAILED, fmt, ap);
    va_end(ap);
    if (first) {
        printf("%s\n", run_fail_text(&a->run.fail));
        fflush(stdout);
    }
    sig_request_stop();
}

int prov_fail(prov_thread *th, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char text[ERR_MSG_MAX];
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    err_set("%s", text);
    return run_drv_fail(&th->drv, RUN_EXIT_FAILED, NULL);
}

int prov_thread_init(prov_thread *th, prov_app *app, int i)
{
    memset(th, 0, sizeof(*th));
    th->app = app;
    th->hand.evfd = -1;
    size_t ring = app->cfg.pv.opts.latency_file[0] ? 1u << 16 : 0;
    if (pv_thread_init(&th->pv, i, ring) != 0 || run_handoff_init(&th->hand, i) != 0)
        return -1;
    if (app->json) {
        if (run_json_init(&th->json, app->json->conv, PROV_JSON_RWF_MAX) != 0)
            return -1;
        th->json_out = malloc(PROV_JSON_RWF_MAX);
        if (!th->json_out)
            return err_set("provider thread %d: out of memory for JSON conversion", i + 1);
    }
    return 0;
}

void prov_thread_free(prov_thread *th)
{
    run_handoff_free(&th->hand);
    free(th->sess);
    pv_thread_free(&th->pv);
    run_json_free(&th->json);
    free(th->json_out);
}

/* ---- sessions ----------------------------------------------------------------------------- */

void prov_remove_session(prov_thread *th, pv_sess *s)
{
    for (int i = 0; i < th->n_sess; i++)
        if (th->sess[i] == s) {
            th->sess[i] = th->sess[--th->n_sess];
            break;
        }
    free(s);
}

int prov_grow_sessions(prov_thread *th)
{
    if (th->n_sess < th->cap_sess)
        return 0;
    int cap = th->cap_sess ? th->cap_sess * 2 : 8;
    pv_sess **v = realloc(th->sess, (size_t)cap * sizeof(*v));
    if (!v)
        return -1;
    th->sess = v;
    th->cap_sess = cap;
    return 0;
}

/* The channel finished its handshake: print what the ETA provider prints, then start. Returns
 * 0, or -1 (err_msg() says why). */
static int activate(prov_thread *th, pv_sess *s)
{
    prov_app *app = th->app;
    const prov_config *cfg = &app->cfg;
    tp_info info;
    if (tp_get_info(s->ch, &info) != 0)
        return -1;
    run_channel_info(stdout, s->ch);
    if (cfg->pv.max_pack_count > 1 && (uint32_t)cfg->pv.pack_buf_size > info.max_fragment_size) {
        prov_fail(th,
                  "Error(Channel %d): MaxFragmentSize %u is too small for packing buffer size %d",
                  tp_fd(s->ch), info.max_fragment_size, cfg->pv.pack_buf_size);
        return -1;
    }
    pv_content_print_sizes(app->in.content, stdout);
    fflush(stdout);
    run_tls_seen_note(&app->run.tls_seen, s->ch);
    if (pv_items_init(&s->items, 1024) != 0)
        return -1;
    run_out_init_tp(&s->out, s->ch, (uint32_t)cfg->pv.max_pack_count,
                    (uint32_t)cfg->pv.pack_buf_size,
                    cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
    pv_burst_set_hwm(s->ch, cfg->pv.opts.high_water_mark);
    s->json = run_json_channel(s->ch);
    if (s->json)
        run_out_json(&s->out, app->json->conv, th->json_out, PROV_JSON_RWF_MAX);
    s->active_ns = clk_ns();
    return 0;
}

/* run_drv_ops.up: a consumer's channel is up: its session. */
static int on_up(void *arg, run_drv_ch *c)
{
    prov_thread *th = arg;
    pv_sess *s = calloc(1, sizeof(*s));
    if (!s || prov_grow_sessions(th) != 0) {
        free(s);
        return err_set("out of memory adopting a channel"), RUN_DRV_CLOSE;
    }
    s->ch = c->ch;
    s->dc = c;
    th->sess[th->n_sess++] = s;
    c->user = s;
    return activate(th, s) != 0 ? RUN_DRV_CLOSE : 0;
}

/* run_drv_ops.down: the Channel Closed line (why NULL: "Channel Closed."), then the session's
 * publishing time and items. */
static void on_down(void *arg, run_drv_ch *c, const char *why)
{
    prov_thread *th = arg;
    pv_sess *s = c->user;
    run_channel_closed(stdout, why);
    fflush(stdout);
    if (!s)
        return; /* it never came up */
    if (s->active_ns) {
        pv_stats_closed(&th->pv.stats, s->pub_ns, clk_ns());
        pv_items_free(&s->items);
    }
    prov_remove_session(th, s);
    c->user = NULL;
}

/* run_drv_ops.msg: one received message (a JSON frame: each message in it) to prov_handle;
 * the channel closes when a handler gives up on it. */
static int on_msg(void *arg, run_drv_ch *c, const tp_msg *m)
{
    prov_thread *th = arg;
    pv_sess *s = c->user;
    int h;
    if (!s->json) {
        h = prov_handle(th, s, m->data, m->len);
    } else {
        run_json_in in;
        run_json_in_start(&in, &th->json, s->ch, m->data, m->len);
        rwf_buf msg;
        int rc;
        h = 0;
        while (h >= 0 && (rc = run_json_in_next(&in, &msg)) > 0) {
            int r = prov_handle(th, s, (const uint8_t *)msg.data, (uint32_t)msg.len);
            h = r < 0 ? r : h | r;
        }
        if (h >= 0 && rc < 0) {
            err_push("Error in Json Conversion");
            h = -1;
        }
    }
    return h < 0 ? RUN_DRV_CLOSE : 0;
}

/* run_drv_ops.tick: the tick's bursts on every channel. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    prov_thread *th = arg;
    prov_app *app = th->app;
    (void)now;
    for (int i = 0; i < th->n_sess;) {
        pv_sess *s = th->sess[i];
        if (pv_burst_tick(s, &app->in.feed, &app->in.rates, &th->pv.stats, t) == TP_EFAIL) {
            char why[ERR_MSG_MAX + 64];
            snprintf(why, sizeof(why), "Failure while writing message bursts: %s", err_msg());
            run_drv_close(&th->drv, s->dc, why);
            continue; /* slot i now holds another session */
        }
        i++;
    }
    return 0;
}

int prov_drv_init(prov_thread *th, const run_drv_ops *ops, unsigned read_batch)
{
    prov_app *app = th->app;
    char name[32];
    snprintf(name, sizeof(name), "provider thread %d", th->pv.index + 1);
    const run_drv_cfg dc = {.tool = th,
                            .ops = ops,
                            .name = name,
                            .tick_rate = (uint32_t)app->cfg.pv.opts.tick_rate,
                            .tk = &th->pv.t,
                            .lat = &th->pv.stats.lat,
                            .fail = &app->run.fail,
                            .print_fail = true,
                            .hand = &th->hand,
                            .read_batch = read_batch};
    if (run_drv_init(&th->drv, &dc) != 0) {
        prov_app_fail(app, "%s: %s", name, err_msg());
        return -1;
    }
    return 0;
}

/* pv_thread_fns: the thread's channels (bare). */
static void bare_loop(void *arg)
{
    static const run_drv_ops ops = {.tick = on_tick, .up = on_up, .msg = on_msg, .down = on_down};
    prov_thread *th = arg;
    if (prov_drv_init(th, &ops, 16) != 0)
        return;
    run_drv_run(&th->drv);
    run_drv_free(&th->drv);
}

/* pv_thread_fns: the loop with -reactor. */
static void reactor_loop(void *th)
{
    prov_rx_thread(th);
}

/* pv_thread_fns: the binding failed; the first failure's line is printed and ends the run. */
static void bind_failed(void *th, const char *line)
{
    prov_app_fail(((prov_thread *)th)->app, "%s", line);
}

int prov_thread_start(prov_thread *th)
{
    static const pv_thread_fns fns = {reactor_loop, bare_loop, bind_failed};
    return pv_thread_start(&th->pv, th, th->app->cfg.pv.opts.reactor, &fns);
}
