/*
 * rx_wl: the watchlist's state and what it does with received messages (rx_wl.h). The tool's
 * stream ids replace the wire ids in every message it receives (in the decoded header and in the
 * encoded bytes, which are the reactor's own copy).
 */
#include "rx_wl.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rx_wl_new(rx_chan *ch)
{
    rx_wl *wl = calloc(1, sizeof(*wl));
    if (!wl)
        return err_set("out of memory for the watchlist");
    ch->a.wl = wl;
    wl->next_id = 3;
    wl->nbucket = 1024;
    wl->ids_cap = 16;
    if (rx_map_init(&wl->app, 1024) != 0 || rx_map_init(&wl->wire, 1024) != 0 ||
        !(wl->bucket = calloc(wl->nbucket, sizeof(*wl->bucket))) ||
        !(wl->acks = calloc(RX_WL_MAX_ACKS, sizeof(*wl->acks))) ||
        !(wl->ids = malloc(wl->ids_cap * sizeof(*wl->ids))))
        return err_set("out of memory for the watchlist");
    return 0;
}

void rx_wl_free(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    if (!wl)
        return;
    while (wl->all)
        wl_stream_free(wl, wl->all);
    rx_map_free(&wl->app);
    rx_map_free(&wl->wire);
    free(wl->bucket);
    free(wl->acks);
    free(wl->ids);
    free(wl);
    ch->a.wl = NULL;
}

void rx_wl_stats(const rx_chan *ch, rx_stats *s)
{
    const rx_wl *wl = ch->a.wl;
    if (!wl)
        return;
    s->wl_streams = wl->nstreams;
    s->wl_requests = wl->app.n;
    uint32_t waiting = 0;
    for (const wl_stream *p = wl->pending; p; p = p->pnext)
        waiting += p->nreqs;
    s->wl_pending = waiting;
}

int32_t wl_next_id(rx_wl *wl)
{
    for (;;) {
        wl->next_id = wl->next_id >= 0x7FFFFFFF ? 4 : wl->next_id + 1;
        if (!rx_map_get(&wl->wire, wl->next_id))
            return wl->next_id;
    }
}

wl_service *wl_service_find(rx_wl *wl, uint16_t id)
{
    for (int i = 0; i < RX_WL_MAX_SERVICES; i++)
        if (wl->svc[i].present && wl->svc[i].id == id)
            return &wl->svc[i];
    return NULL;
}

bool wl_can_go(rx_chan *ch, const wl_stream *s)
{
    rx_wl *wl = ch->a.wl;
    if (ch->a.state != RXA_UP || !wl->logged_in)
        return false;
    if (!(s->key.flags & RWF_MKF_HAS_SERVICE_ID))
        return true;
    const wl_service *svc = wl_service_find(wl, s->key.service_id);
    return svc && svc->up;
}

/* ---- streams ----------------------------------------------------------------------------------
 */

static void hash_remove(rx_wl *wl, wl_stream *s)
{
    wl_stream **pp = &wl->bucket[s->hash & (wl->nbucket - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if (*pp == s) {
            *pp = s->hnext;
            wl->nagg--;
            return;
        }
}

void wl_stream_free(rx_wl *wl, wl_stream *s)
{
    if (s->wire_id)
        rx_map_del(&wl->wire, s->wire_id);
    wl_pending_remove(wl, s);
    wl_timer_remove(wl, s);
    if (s->aggregatable)
        hash_remove(wl, s);
    for (wl_req *r = s->reqs, *next; r; r = next) {
        next = r->next;
        rx_map_del(&wl->app, r->app_id);
        free(r);
    }
    WL_UNLINK(s, wl->all, wl->atail, aprev, anext);
    wl->nstreams--;
    free(s);
}

void wl_stream_unwire(rx_wl *wl, wl_stream *s)
{
    if (s->wire_id) {
        rx_map_del(&wl->wire, s->wire_id);
        s->wire_id = 0;
    }
    wl_timer_remove(wl, s);
    s->refresh_pending = false;
    for (wl_req *r = s->reqs; r; r = r->next)
        r->want_refresh = true;
    wl_pending_add(wl, s);
}

/* Copies the tool ids of s's requests that match (all, or only those waiting for a refresh /
 * having one) into wl->ids. Returns the count. */
enum { WL_ALL, WL_WAITING, WL_HAVE };
static uint32_t collect(rx_wl *wl, const wl_stream *s, int which)
{
    uint32_t n = 0;
    for (const wl_req *r = s->reqs; r && n < wl->ids_cap; r = r->next) {
        if (which == WL_WAITING && !r->want_refresh)
            continue;
        if (which == WL_HAVE && r->want_refresh && s->ever_refreshed)
            continue;
        wl->ids[n++] = r->app_id;
    }
    return n;
}

/* Delivers m to the tool once per id in wl->ids[0..n) whose request is still on s, with the
 * tool's stream id. complete: the refresh completes their image. */
static int deliver_ids(rx_chan *ch, wl_stream *s, rwf_msg *m, uint32_t n, bool complete)
{
    rx_wl *wl = ch->a.wl;
    int32_t wire = s->wire_id;
    uint8_t *enc = (uint8_t *)m->encoded.data;
    for (uint32_t i = 0; i < n; i++) {
        wl_req *r = rx_map_get(&wl->app, wl->ids[i]);
        if (!r || r->s != s || s->wire_id != wire)
            continue; /* closed by the tool meanwhile */
        if (complete)
            r->want_refresh = false;
        m->stream_id = r->app_id;
        if (enc && m->encoded.len >= 8)
            rwf_wr32(enc + 4, (uint32_t)r->app_id);
        int rc = rx_deliver_msg(ch, m);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    return 0;
}

int wl_status_all(rx_chan *ch, wl_stream *s, uint8_t stream_state, uint8_t data_state, uint8_t code,
                  const char *text)
{
    rx_wl *wl = ch->a.wl;
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_STATUS, s->domain, 0, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_HAS_STATE | (s->private_stream ? RWF_STMF_PRIVATE_STREAM : 0);
    m.state.stream_state = stream_state;
    m.state.data_state = data_state;
    m.state.code = code;
    m.state.text = rwf_buf_cstr(text);
    uint32_t n = collect(wl, s, WL_ALL);
    int32_t wire = s->wire_id;
    for (uint32_t i = 0; i < n; i++) {
        wl_req *r = rx_map_get(&wl->app, wl->ids[i]);
        if (!r || r->s != s || s->wire_id != wire)
            continue;
        m.stream_id = r->app_id;
        size_t len = 0;
        if (rwf_msg_encode(&m, ch->r->scratch, RX_SCRATCH, &len) == RWF_OK)
            m.encoded = rwf_buf_make(ch->r->scratch, len);
        int rc = rx_deliver_msg(ch, &m);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    return 0;
}

/* Every stream (pending ones too), oldest first, in a new array (*n entries). */
static wl_stream **snapshot(rx_wl *wl, uint32_t *n)
{
    *n = 0;
    wl_stream **v = malloc(((size_t)wl->nstreams + 1) * sizeof(*v));
    if (!v)
        return NULL;
    for (wl_stream *s = wl->all; s; s = s->anext)
        v[(*n)++] = s;
    return v;
}

/* True when s is still one of the streams (a callback may have closed it). */
static bool alive(rx_wl *wl, const wl_stream *s)
{
    for (const wl_stream *p = wl->all; p; p = p->anext)
        if (p == s)
            return true;
    return false;
}

/* Closes every request of every stream with a status (the login stream was closed). */
static int close_all(rx_chan *ch, const char *text)
{
    rx_wl *wl = ch->a.wl;
    uint32_t n;
    wl_stream **v = snapshot(wl, &n);
    if (!v)
        return err_set("out of memory");
    int rc = 0;
    for (uint32_t i = 0; i < n && rc >= 0 && !ch->a.closed_by_app; i++) {
        if (!alive(wl, v[i]))
            continue;
        rc = wl_status_all(ch, v[i], RWF_STREAM_CLOSED, RWF_DATA_SUSPECT, RWF_SC_NONE, text);
        if (alive(wl, v[i]))
            wl_stream_free(wl, v[i]);
    }
    free(v);
    return rc;
}

/* Gives every request of every stream on the wire that `which` selects an Open/Suspect status
 * (text), taking the stream off the wire first when unwire (it is requested again later). */
static int status_wired(rx_chan *ch, const char *text, bool (*which)(rx_chan *, wl_stream *),
                        bool unwire)
{
    rx_wl *wl = ch->a.wl;
    uint32_t n;
    wl_stream **v = snapshot(wl, &n);
    if (!v)
        return err_set("out of memory");
    int rc = 0;
    for (uint32_t i = 0; i < n && rc >= 0 && !ch->a.closed_by_app; i++) {
        wl_stream *s = v[i];
        if (!alive(wl, s) || !s->wire_id || !which(ch, s))
            continue;
        if (unwire)
            wl_stream_unwire(wl, s);
        rc = wl_status_all(ch, s, RWF_STREAM_OPEN, RWF_DATA_SUSPECT, RWF_SC_NONE, text);
    }
    free(v);
    return rc;
}

/* ---- channel life --------------------------------------------------------------------------- */

int rx_wl_up(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    wl->logged_in = false;
    wl->dir_sent = false;
    memset(wl->svc, 0, sizeof(wl->svc));
    if (ch->a.login_req) {
        ch->a.sess = RXS_LOGIN;
        if (rx_out_bytes(ch, ch->a.login_req, ch->a.login_len) < 0)
            return err_push("sending the login request");
        rx_chan_publish(ch);
    } else {
        wl->logged_in = true;
    }
    ch->a.sess = RXS_READY;
    if (ch->role.cb.on_channel) {
        int rc = ch->role.cb.on_channel(ch, RX_CHANNEL_READY, NULL);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    return wl->logged_in ? wl_send_pending(ch) : 0;
}

static bool every_stream(rx_chan *ch, wl_stream *s)
{
    (void)ch;
    (void)s;
    return true;
}

/* The per-item status of a warm-standby channel's loss, by the role its server had then. */
static const char *wsb_loss_text(const rx_chan *ch)
{
    return ch->a.wsb_lost_standby ? "Warm standby: the connection to the standby server was lost."
                                  : "Warm standby: the connection to the active server was lost.";
}

int rx_wl_down(rx_chan *ch, bool reconnecting, const char *why)
{
    rx_wl *wl = ch->a.wl;
    (void)why;
    wl->logged_in = false;
    wl->dir_sent = false;
    memset(wl->svc, 0, sizeof(wl->svc));
    if (!reconnecting) /* warm standby: the items go on at the other server */
        return ch->role.wsb_mode ? status_wired(ch, wsb_loss_text(ch), every_stream, false) : 0;
    int rc = wl_acks_fail(ch, "Channel is down.");
    if (rc < 0)
        return rc;
    return status_wired(ch,
                        ch->role.wsb_mode ? wsb_loss_text(ch)
                                          : "Channel is down; the item will be requested again.",
                        every_stream, true);
}

/* ---- login and directory -----------------------------------------------------------------------
 */

static bool final_state(uint8_t st)
{
    return st == RWF_STREAM_CLOSED || st == RWF_STREAM_CLOSED_RECOVER ||
           st == RWF_STREAM_REDIRECTED;
}

static int send_directory_request(rx_chan *ch)
{
    rwf_enc e;
    rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
    size_t n;
    if (rwf_rdm_directory_request(&e, RX_WL_DIRECTORY_STREAM, RX_WL_DIRECTORY_FILTER, 0, 0) < 0 ||
        rwf_enc_finish(&e, &n) != RWF_OK)
        return err_push("encoding the directory request");
    if (rx_out_bytes(ch, ch->r->scratch, (uint32_t)n) < 0)
        return err_push("sending the directory request");
    rx_chan_publish(ch);
    return 0;
}

static int login_msg(rx_chan *ch, rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    if (m->msg_class == RWF_MC_ACK)
        wl_ack_take(wl, m->stream_id, m->ack_id);
    bool open = false, closed = false;
    if (m->domain == RWF_DMT_LOGIN && m->msg_class == RWF_MC_REFRESH) {
        open = m->state.stream_state == RWF_STREAM_OPEN;
        closed = final_state(m->state.stream_state);
    } else if (m->domain == RWF_DMT_LOGIN && m->msg_class == RWF_MC_STATUS &&
               (m->flags & RWF_STMF_HAS_STATE)) {
        closed = final_state(m->state.stream_state);
    }
    int rc = rx_deliver_msg(ch, m);
    if (rc < 0 || ch->a.closed_by_app || ch->a.state != RXA_UP)
        return rc;
    if (open && !wl->logged_in) {
        wl->logged_in = true;
        if (rx_wsb_after_login(ch) != 0)
            return -1;
        if (!wl->dir_sent) {
            wl->dir_sent = true;
            if (send_directory_request(ch) != 0)
                return -1;
        }
        return wl_send_pending(ch);
    }
    if (closed) {
        wl->logged_in = false;
        char text[RX_TEXT_MAX];
        snprintf(text, sizeof(text), "Login stream was closed: %.*s", (int)m->state.text.len,
                 m->state.text.data ? m->state.text.data : "");
        return close_all(ch, text);
    }
    return 0;
}

/* Applies one service of a directory message to the cache. */
static void apply_service(rx_wl *wl, const rwf_service *in)
{
    wl_service *s = wl_service_find(wl, in->id);
    if (in->action == RWF_MPEA_DELETE_ENTRY) {
        if (s)
            s->present = false;
        return;
    }
    if (!s) {
        for (int i = 0; i < RX_WL_MAX_SERVICES && !s; i++)
            if (!wl->svc[i].present)
                s = &wl->svc[i];
        if (!s)
            return; /* more services than the cache holds: the rest stay unknown */
        memset(s, 0, sizeof(*s));
        s->present = true;
        s->id = in->id;
    }
    if ((in->flags & RWF_SVC_HAS_INFO) && (in->flags & RWF_SVC_HAS_QOS) && in->qos_count) {
        s->has_qos = true;
        s->qos = in->qos[0];
    }
    if (in->flags & RWF_SVC_HAS_STATE)
        s->up = in->service_state &&
                (!(in->flags & RWF_SVC_HAS_ACCEPTING_REQS) || in->accepting_requests);
}

static bool service_gone(rx_chan *ch, wl_stream *s)
{
    if (!(s->key.flags & RWF_MKF_HAS_SERVICE_ID))
        return false;
    const wl_service *svc = wl_service_find(ch->a.wl, s->key.service_id);
    return !svc || !svc->up;
}

/* Closes on the wire the streams whose service went away, then suspends them. */
static int services_changed(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    for (wl_stream *s = wl->all; s; s = s->anext) {
        if (!s->wire_id || !service_gone(ch, s))
            continue;
        /* best effort: a full ring only leaves the provider's stream open */
        wl_close_wire(ch, s->domain, s->wire_id);
    }
    int rc =
        status_wired(ch, "Service is down; the item will be requested again.", service_gone, true);
    if (rc < 0 || ch->a.closed_by_app)
        return rc;
    return wl_send_pending(ch);
}

static int directory_msg(rx_chan *ch, rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    if (m->msg_class == RWF_MC_REFRESH || m->msg_class == RWF_MC_UPDATE) {
        unsigned n = 0;
        if (rwf_rdm_directory_decode(m, ch->a.svc, RX_WL_MAX_SERVICES, &n) == RWF_OK) {
            if (m->msg_class == RWF_MC_REFRESH)
                for (int i = 0; i < RX_WL_MAX_SERVICES; i++)
                    wl->svc[i].present = false;
            for (unsigned i = 0; i < n; i++)
                apply_service(wl, &ch->a.svc[i]);
        }
    } else if (m->msg_class == RWF_MC_STATUS && (m->flags & RWF_STMF_HAS_STATE) &&
               final_state(m->state.stream_state)) {
        memset(wl->svc, 0, sizeof(wl->svc));
    }
    int rc = rx_deliver_msg(ch, m);
    if (rc < 0 || ch->a.closed_by_app || ch->a.state != RXA_UP)
        return rc;
    if (rx_wsb_after_directory(ch, m) != 0)
        return -1;
    return services_changed(ch);
}

/* ---- item streams ------------------------------------------------------------------------------
 */

static int on_refresh(rx_chan *ch, wl_stream *s, rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    bool complete = m->flags & RWF_RFMF_REFRESH_COMPLETE;
    uint32_t n = collect(wl, s, (m->flags & RWF_RFMF_SOLICITED) ? WL_WAITING : WL_ALL);
    int32_t wire = s->wire_id;
    int rc = deliver_ids(ch, s, m, n, complete);
    if (rc < 0 || ch->a.closed_by_app || rx_map_get(&wl->wire, wire) != s)
        return rc;
    if (complete) {
        s->ever_refreshed = true;
        bool waiting = false;
        for (wl_req *r = s->reqs; r; r = r->next)
            waiting |= r->want_refresh;
        if (!waiting) {
            s->refresh_pending = false;
            wl_timer_remove(wl, s);
        }
    }
    uint8_t st = m->state.stream_state;
    if ((st == RWF_STREAM_NON_STREAMING && complete) || final_state(st))
        wl_stream_free(wl, s);
    return 0;
}

static int on_status(rx_chan *ch, wl_stream *s, rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    bool has_state = m->flags & RWF_STMF_HAS_STATE;
    uint8_t st = m->state.stream_state;
    /* A private stream is not recovered: its provider closed it for good. */
    bool recover =
        has_state && st == RWF_STREAM_CLOSED_RECOVER && s->streaming && !s->private_stream;
    if (recover) {
        /* The provider closed it but it may be requested again: the tool sees it suspect. */
        m->state.stream_state = RWF_STREAM_OPEN;
        m->state.data_state = RWF_DATA_SUSPECT;
    }
    int32_t wire = s->wire_id;
    int rc = deliver_ids(ch, s, m, collect(wl, s, WL_ALL), false);
    if (rc < 0 || ch->a.closed_by_app || rx_map_get(&wl->wire, wire) != s)
        return rc;
    if (recover) {
        wl_stream_unwire(wl, s);
        return wl_send_pending(ch);
    }
    if (has_state && final_state(st))
        wl_stream_free(wl, s);
    return 0;
}

/* A message for a wire stream the watchlist does not have. */
static int unknown(rx_chan *ch, const rwf_msg *m)
{
    ch->a.unknown_stream++;
    uint64_t k = ch->a.unknown_stream;
    if (k != 1 && k != 10 && k != 100 && k != 1000 && k % 10000 != 0)
        return 0; /* reported on a log scale: the count is in the stats */
    char text[RX_TEXT_MAX];
    snprintf(text, sizeof(text),
             "the watchlist dropped a %s for stream %d, which it did not open (%llu so far)",
             rwf_msg_class_name(m->msg_class), (int)m->stream_id, (unsigned long long)k);
    return ch->role.cb.on_channel ? ch->role.cb.on_channel(ch, RX_CHANNEL_WARNING, text) : 0;
}

int rx_wl_msg(rx_chan *ch, rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    if (m->stream_id == RX_WL_LOGIN_STREAM)
        return login_msg(ch, m);
    if (m->stream_id == RX_WL_DIRECTORY_STREAM && m->domain == RWF_DMT_SOURCE)
        return directory_msg(ch, m);
    wl_stream *s = rx_map_get(&wl->wire, m->stream_id);
    if (!s)
        return unknown(ch, m);
    switch (m->msg_class) {
    case RWF_MC_REFRESH:
        return on_refresh(ch, s, m);
    case RWF_MC_STATUS:
        return on_status(ch, s, m);
    case RWF_MC_ACK: {
        int32_t app = wl_ack_take(wl, s->wire_id, m->ack_id);
        if (app && rx_map_get(&wl->app, app)) {
            wl->ids[0] = app;
            return deliver_ids(ch, s, m, 1, false);
        }
        return deliver_ids(ch, s, m, collect(wl, s, WL_ALL), false);
    }
    default: {
        /* The usual case, one request on the stream that has its image: straight to it. */
        wl_req *r = s->reqs;
        if (s->nreqs == 1 && !(r->want_refresh && s->ever_refreshed)) {
            m->stream_id = r->app_id;
            if (m->encoded.data && m->encoded.len >= 8)
                rwf_wr32((uint8_t *)m->encoded.data + 4, (uint32_t)r->app_id);
            return rx_deliver_msg(ch, m);
        }
        return deliver_ids(ch, s, m, collect(wl, s, WL_HAVE), false);
    }
    }
}
