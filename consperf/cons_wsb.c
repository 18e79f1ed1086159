/*
 * ConsPerf -watchlist with warm standby (-startingHostName, -startingPort, -standbyHostName,
 * -standbyPort, -warmStandbyMode login|service; docs/modes.md#warm-standby).
 *
 * The thread opens two watchlist channels on its reactor: the starting server's, active, and
 * the standby server's. The layer tells each server its role (ConsumerConnectionStatus on the
 * login stream, or ConsumerStatus per service on the directory stream: rx_wsb_set_role). Each
 * server's login refresh must advertise warm standby (SupportStandby 1, and SupportStandbyMode
 * overlapping the mode when present), else that server is dropped with the original's text.
 * Items are requested from both (the watchlist keeps them across reconnects); only the active
 * server's messages reach the tool; posts and generic messages go to the active one. When the
 * active server is lost and the standby is up, the standby is made active at once (its items
 * are open already: nothing is requested again) and the lost one becomes the standby: the
 * layer reconnects it (1 s, 2 s, 4 s apart, then every 5 s), tells it "standby" and requests
 * the items again. The switch-over time is the lost server's last update to the new active
 * server's first; the promotion time runs from the moment the layer detected the loss to the
 * standby made active, and on to the new active server's first update. Right after the loss
 * event the layer gives each of the lost server's items an Open/Suspect status: those of the
 * server that was active count as status messages ("- Received N status messages."), those
 * of a lost standby do not (they never reach the tool in the original either). Both servers
 * lost ends the test, after the items' statuses are counted.
 */
#include "worker.h"

#include "clk.h"
#include "err.h"
#include "run_chan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warm standby's state of a worker (cons_worker.wsb). */
struct cons_wsb {
    int mode;             /* CONS_WSB_LOGIN or CONS_WSB_SERVICE */
    rx_chan *active;      /* the active server's channel: the Reactor's channel in use */
    rx_chan *sby;         /* the standby server's channel (NULL: none, or dropped) */
    rx_chan *start;       /* the starting server's channel (names the servers) */
    uint32_t sby_next;    /* items requested from the standby so far (list order) */
    int64_t last_ns;      /* when the last update from the active server came */
    int64_t lost_last_ns; /* at a switch: the lost server's last update */
    bool wait_first;      /* switched: waiting for the new active server's first update */
    rx_chan *lost;        /* the last active server lost: its items' statuses count */
    int64_t loss_ns;      /* when that loss was detected (the layer's worker, clk_ns) */
};

int cons_wsb_init(cons_worker *w)
{
    if (!(w->wsb = calloc(1, sizeof(*w->wsb))))
        return err_set("out of memory for the warm standby state");
    w->wsb->mode = cons_wsb_mode(w->cfg);
    return 0;
}

void cons_wsb_free(cons_worker *w)
{
    free(w->wsb);
    w->wsb = NULL;
}

/* The server a channel talks to, as "host:port". */
static const char *server(const cons_worker *w, const rx_chan *ch, char *buf, size_t cap)
{
    const cons_config *c = w->cfg;
    if (ch == w->wsb->start)
        snprintf(buf, cap, "%s:%s", c->wsb_start_host, c->wsb_start_port);
    else
        snprintf(buf, cap, "%s:%s", c->wsb_standby_host, c->wsb_standby_port);
    return buf;
}

void cons_wsb_prepare(cons_worker *w, rx_role *role, run_link *link)
{
    role->wsb_mode = w->wsb->mode == CONS_WSB_LOGIN ? RX_WSB_LOGIN : RX_WSB_SERVICE;
    link->host = w->cfg->wsb_start_host;
    link->port = w->cfg->wsb_start_port;
}

int cons_wsb_open_standby(cons_worker *w, rx_conn_opts *co, rx_role *role)
{
    struct cons_wsb *s = w->wsb;
    s->start = s->active = cons_rx_chan(w);
    co->tp.host = w->cfg->wsb_standby_host;
    co->tp.port = w->cfg->wsb_standby_port;
    role->wsb_standby = true;
    if (rx_connect(cons_rx_reactor(w), co, role, w, &s->sby) != 0)
        return cons_fail(w, "connecting to the standby server");
    return 0;
}

/* Makes the standby active after the active server was lost. Returns 0, or -1 when the
 * roles could not be sent. With no standby up the thread's failure is recorded (the test
 * ends) and 0 returned, so that the lost server's items still get their statuses counted. */
static int promote(cons_worker *w, const char *text)
{
    struct cons_wsb *s = w->wsb;
    char lost[320], now[320];
    server(w, s->active, lost, sizeof(lost));
    s->lost = s->active;
    s->loss_ns = rx_event_ns(s->active);
    if (!s->sby || !rx_is_up(s->sby)) {
        err_set("connection to %s lost (%s) and the standby server is not up", lost,
                text ? text : "");
        cons_fail(w, NULL);
        return 0;
    }
    rx_chan *old = s->active;
    s->active = s->sby;
    s->sby = old;
    cons_rx_use(w, s->active);
    s->sby_next = w->next_request; /* its watchlist keeps every request made to it */
    if (rx_wsb_set_role(s->active, false) != 0 || rx_wsb_set_role(old, true) != 0)
        return cons_fail(w, "telling the servers their roles");
    rx_flush(s->active);
    int64_t promoted = clk_ns();
    int64_t took = s->loss_ns && promoted > s->loss_ns ? promoted - s->loss_ns : 0;
    s->lost_last_ns = s->last_ns;
    s->wait_first = true;
    atomic_fetch_add(&w->t->wsb_switches, 1);
    atomic_store(&w->t->wsb_switch_ns, -1);
    atomic_store(&w->t->wsb_promote_ns, took);
    atomic_store(&w->t->wsb_first_ns, -1);
    printf("Warm standby: connection to %s lost; %s is the active server now.\n", lost,
           server(w, s->active, now, sizeof(now)));
    printf("Warm standby: promoted %.3f ms after the loss was detected.\n", (double)took / 1e6);
    fflush(stdout);
    return 0;
}

int cons_wsb_channel(cons_worker *w, rx_chan *ch, rx_event ev, const char *text)
{
    struct cons_wsb *s = w->wsb;
    bool active = ch == s->active;
    rx_print_event(stdout, ch, ev, text);
    switch (ev) {
    case RX_CHANNEL_UP:
        if (ch == s->lost)
            s->lost = NULL; /* back as the standby: its statuses were counted */
        printf("Connected ");
        run_channel_info_print(stdout, rx_chan_fd(ch), rx_info(ch));
        break;
    case RX_CHANNEL_READY:
        if (active)
            cons_print_msg_sizes(w);
        break;
    case RX_CHANNEL_WARNING:
        break;
    case RX_CHANNEL_DOWN_RECONNECTING:
        fflush(stdout);
        if (active && w->have_service)
            return promote(w, text) < 0 ? -1 : 0;
        break; /* the standby, or before the start: the layer keeps trying */
    case RX_CHANNEL_DOWN:
        fflush(stdout);
        if (!active) {
            s->sby = NULL;
            break;
        }
        if (promote(w, text) < 0)
            return -1;
        s->sby = NULL; /* the lost one is closed for good */
        break;
    }
    fflush(stdout);
    return 0;
}

int cons_wsb_login(cons_worker *w, rx_chan *ch, const rwf_msg *m, const rwf_login *l)
{
    struct cons_wsb *s = w->wsb;
    bool active = ch == s->active;
    if (!l || m->msg_class != RWF_MC_REFRESH || m->state.stream_state != RWF_STREAM_OPEN)
        return active ? 1 : 0;
    unsigned want = s->mode == CONS_WSB_LOGIN ? 1u : 2u;
    const char *why = NULL;
    if (!(l->flags & RWF_LOGIN_HAS_SUPPORT_STANDBY) || l->support_standby != 1)
        why = "The login response doesn't support warm standby functionality.";
    else if ((l->flags & RWF_LOGIN_HAS_SUPPORT_STANDBY_MODE) && !(l->support_standby_mode & want))
        why = "The warm standby mode of the login response doesn't match the configured mode.";
    if (!why)
        return active ? 1 : 0;
    printf("Connection down: Channel fd=%d.\n\tError text: %s\n\n", rx_chan_fd(ch), why);
    fflush(stdout);
    if (active) {
        char name[320];
        err_set("%s: %s", server(w, ch, name, sizeof(name)), why);
        return cons_fail(w, NULL);
    }
    rx_close(ch); /* the run goes on without a standby */
    s->sby = NULL;
    return 0;
}

int cons_wsb_requests(cons_worker *w)
{
    struct cons_wsb *s = w->wsb;
    while (s->sby && s->sby_next < w->next_request) {
        uint32_t i = s->sby_next;
        const cons_item *it = &w->items[i];
        rwf_msg m;
        rwf_msg_init(&m, RWF_MC_REQUEST, it->def->domain, (int32_t)(CONS_ITEM_STREAM_START + i),
                     RWF_DT_NO_DATA);
        m.flags =
            (it->streaming ? RWF_RQMF_STREAMING : 0) | (it->generic ? RWF_RQMF_PRIVATE_STREAM : 0);
        if (w->has_qos) {
            m.flags |= RWF_RQMF_HAS_QOS;
            m.qos = w->qos;
        }
        m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        m.key.service_id = w->service_id;
        m.key.name = rwf_buf_make(it->def->name, it->def->name_len);
        int rc = rx_submit_msg(s->sby, &m);
        if (rc == TP_ENOBUFS)
            return 0; /* the rest at the next tick */
        if (rc < 0)
            return err_push("requesting item %u from the standby server", i);
        s->sby_next++;
    }
    return 0;
}

int cons_wsb_item(cons_worker *w, rx_chan *ch, const rwf_msg *m)
{
    struct cons_wsb *s = w->wsb;
    if (ch != s->active) /* the standby's, except the statuses of the active server just lost */
        return ch == s->lost && m->msg_class == RWF_MC_STATUS;
    if (m->msg_class == RWF_MC_UPDATE) {
        int64_t now = clk_ns();
        if (__builtin_expect(s->wait_first, 0)) {
            s->wait_first = false;
            atomic_store(&w->t->wsb_switch_ns, s->lost_last_ns ? now - s->lost_last_ns : 0);
            int64_t first = s->loss_ns && now > s->loss_ns ? now - s->loss_ns : 0;
            atomic_store(&w->t->wsb_first_ns, first);
            printf("Warm standby: first update from the new active server %.3f ms after the "
                   "loss was detected.\n",
                   (double)first / 1e6);
            fflush(stdout);
        }
        s->last_ns = now;
    }
    return 1;
}

void cons_wsb_end(cons_worker *w)
{
    rx_stats st;
    if (!w->wsb->active)
        return;
    rx_get_stats(w->wsb->active, &st);
    w->t->wsb_items_open = st.wl_requests;
}
