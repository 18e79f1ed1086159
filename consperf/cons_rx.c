/*
 * ConsPerf over the reactor layer (-reactor, -watchlist): what the original does in those modes
 * (docs/modes.md#reactor, docs/tools.md#consperf).
 *
 * Each consumer thread creates a reactor (its worker bound by -workerThreads) and one consumer
 * channel: the layer sends the reactor's default login request (user name, ApplicationId "256",
 * ApplicationName "eta", Position; no Role), the directory request (filter 0x07; the watchlist
 * asks 0x3F), and with -reactor the dictionary requests when the files were not found. The
 * thread runs the session driver's loop (common/run/run_drv.h) over the reactor: on each tick
 * the bare mode's sends (requests, posts, generic messages), written through the layer's
 * buffers; in between the driver waits on the reactor and dispatches its events to ConsPerf's
 * handlers. Console lines are the original's: "Connected Channel <fd> active. ...", "Requested
 * service '<name>' not up. Waiting for service to be up..." when the channel is ready before the
 * service, the channel-down lines. As in the original, a connection lost before the service was
 * found is retried (1 s, 2 s, 4 s, then every 5 s); lost after, it ends the test. A failure that
 * trying again cannot heal (a host name that does not resolve, a certificate or sub-protocol
 * refused) is not retried: the test fails at once, the reason on the console.
 *
 * Over WebSocket the layer carries either sub-protocol: rssl.rwf as RIPC, rssl.json.v2 converted
 * to and from RWF in the layer's worker (the run's converter), so the handlers see RWF in both.
 */
#include "payload.h"
#include "worker.h"

#include "err.h"
#include "run_chan.h"
#include "run_drv.h"
#include "run_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Reactor modes' state of a worker (cons_worker.rx). */
struct cons_rx {
    rx_reactor *reactor; /* the thread's reactor (NULL before it is made and after the end) */
    rx_chan *ch;         /* the channel in use (warm standby: the active server's) */
    bool was_up;         /* the channel came up at least once */
};

int cons_rx_init(cons_worker *w)
{
    if (!(w->rx = calloc(1, sizeof(*w->rx))))
        return err_set("out of memory for the reactor's state");
    return 0;
}

void cons_rx_free(cons_worker *w)
{
    free(w->rx);
    w->rx = NULL;
}

rx_reactor *cons_rx_reactor(const cons_worker *w)
{
    return w->rx ? w->rx->reactor : NULL;
}

rx_chan *cons_rx_chan(const cons_worker *w)
{
    return w->rx ? w->rx->ch : NULL;
}

void cons_rx_use(cons_worker *w, rx_chan *ch)
{
    w->rx->ch = ch;
    run_out_init_rx(&w->out, ch, 1, 0, 0);
}

static int on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    cons_worker *w = rx_user(ch);
    const cons_config *cfg = w->cfg;
    if (w->wsb)
        return cons_wsb_channel(w, ch, ev, text);
    rx_print_event(stdout, ch, ev, text);
    switch (ev) {
    case RX_CHANNEL_UP: {
        const tp_info *in = rx_info(ch);
        w->rx->was_up = true;
        printf("Connected ");
        run_channel_info_print(stdout, rx_chan_fd(ch), in);
        snprintf(w->t->tls_version, sizeof(w->t->tls_version), "%s", in->tls_version);
        snprintf(w->t->tls_cipher, sizeof(w->t->tls_cipher), "%s", in->tls_cipher);
        break;
    }
    case RX_CHANNEL_READY:
        cons_print_msg_sizes(w);
        if (!w->have_service)
            printf("Requested service '%s' not up. Waiting for service to be up...",
                   cfg->opts.service_name);
        break;
    case RX_CHANNEL_WARNING:
        break;
    case RX_CHANNEL_DOWN_RECONNECTING:
        fflush(stdout);
        if (!w->have_service)
            return 0; /* not started yet: the layer keeps trying */
        err_set("connection to %s:%s lost: %s", cfg->opts.host, cfg->opts.port, text ? text : "");
        return cons_fail(w, NULL);
    case RX_CHANNEL_DOWN:
        if (!w->rx->was_up) {
            /* Never up, and the layer gave up: a failure that trying again cannot heal (a
             * name that does not resolve, a certificate or sub-protocol refused). */
            snprintf(w->t->conn_error, sizeof(w->t->conn_error), "%s", text ? text : "");
            err_set("connection to %s:%s cannot succeed: %s", cfg->opts.host, cfg->opts.port,
                    text ? text : "");
            printf("Error: %s\n", err_msg());
            fflush(stdout);
            return cons_fail(w, NULL);
        }
        fflush(stdout);
        err_set("connection to %s:%s lost: %s", cfg->opts.host, cfg->opts.port, text ? text : "");
        return cons_fail(w, NULL);
    }
    fflush(stdout);
    return 0;
}

static int on_admin(rx_chan *ch, const rwf_msg *m)
{
    cons_worker *w = rx_user(ch);
    if (w->wsb && ch != w->rx->ch)
        return 0; /* the standby's admin streams are the layer's business */
    return cons_on_admin(w, m) < 0 ? cons_fail(w, NULL) : 0;
}

static int on_login(rx_chan *ch, const rwf_msg *m, const rwf_login *l)
{
    cons_worker *w = rx_user(ch);
    if (w->wsb) {
        int rc = cons_wsb_login(w, ch, m, l);
        if (rc <= 0)
            return rc;
    }
    return on_admin(ch, m);
}

static int on_directory(rx_chan *ch, const rwf_msg *m, const rwf_service *svc, unsigned n)
{
    (void)svc;
    (void)n;
    return on_admin(ch, m);
}

static int on_msg(rx_chan *ch, const rwf_msg *m)
{
    cons_worker *w = rx_user(ch);
    if (w->wsb && !cons_wsb_item(w, ch, m))
        return 0; /* the standby's */
    if (__builtin_expect(!w->dict, 0)) {
        err_set("item message on stream %d before the dictionary", (int)m->stream_id);
        return cons_fail(w, NULL);
    }
    return cons_on_item(w, m);
}

/* What the consumer channel reports to this thread. */
static const rx_callbacks callbacks = {.on_channel = on_channel,
                                       .on_login = on_login,
                                       .on_directory = on_directory,
                                       .on_dictionary = on_admin,
                                       .on_msg = on_msg};

/* Opens the thread's reactor and its consumer channel (with warm standby: the starting
 * server's, then the standby's). Returns 0, or -1 after cons_fail(). */
static int open_channel(cons_worker *w)
{
    const cons_config *cfg = w->cfg;
    struct cons_rx *r = w->rx;
    rx_opts ro;
    rx_opts_init(&ro);
    if (run_conn_websocket(&cfg->opts)) {
        /* rssl.json.v2: the layer converts, naming fields from the dictionary files */
        if (!w->run->json && run_conn_offers(&cfg->opts, TP_WS_PROTO_JSON2)) {
            err_set("-pl offers rssl.json.v2, which needs the dictionary files "
                    "RDMFieldDictionary and enumtype.def in the working folder (to name the "
                    "fields)");
            return cons_fail(w, NULL);
        }
        ro.json = w->run->json ? w->run->json->conv : NULL;
    }
    if (w->t->worker_bound)
        ro.worker_cpu = &w->t->worker_cpu;
    if (rx_create(&ro, &r->reactor) != 0)
        return cons_fail(w, "creating the reactor");
    char user[256], pos[64];
    cons_login_names(cfg, user, pos);
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = CONS_LOGIN_STREAM;
    l.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION;
    l.user = rwf_buf_cstr(user);
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("eta");
    l.position = rwf_buf_cstr(pos);
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    role.cb = callbacks;
    role.login = &l;
    role.watchlist = cfg->watchlist;
    role.dictionary_download = !cfg->watchlist && w->dict_have != CONS_HAVE_BOTH;
    run_link link = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF};
    if (w->wsb)
        cons_wsb_prepare(w, &role, &link);
    rx_conn_opts co;
    run_drv_rx_conn(&cfg->opts, &link, &co);
    if (rx_connect(r->reactor, &co, &role, w, &r->ch) != 0)
        return cons_fail(w, "connecting");
    cons_rx_use(w, r->ch);
    return w->wsb ? cons_wsb_open_standby(w, &co, &role) : 0;
}

/* run_drv_ops.tick: the tick's requests, posts and generic messages. */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    (void)t;
    (void)now;
    return cons_tick_sends(arg);
}

/* run_drv_ops.idle: the ticks have nothing to send. */
static bool on_idle(void *arg)
{
    return cons_idle(arg);
}

/* run_drv_ops.end: before the reactor goes, the tunnel stream is closed and warm standby's
 * figures are taken. */
static void on_end(void *arg)
{
    cons_worker *w = arg;
    cons_tun_close(w);
    if (w->wsb)
        cons_wsb_end(w);
}

const run_drv_ops cons_rx_ops = {.tick = on_tick, .idle = on_idle, .end = on_end};

void cons_rx_run(cons_worker *w)
{
    struct cons_rx *r = w->rx;
    if (open_channel(w) == 0) {
        run_drv_use_reactor(&w->drv, r->reactor);
        run_drv_run(&w->drv); /* until the run stops or the thread fails */
    } else {
        on_end(w);
    }
    rx_destroy(r->reactor);
    r->reactor = NULL;
    r->ch = NULL;
}
