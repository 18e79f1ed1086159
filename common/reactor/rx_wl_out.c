/*
 * rx_wl_out: what the tool submits through the watchlist, what the watchlist requests on the
 * wire, and its timers (request timeout, post-ack timeout).
 *
 * Requests and closes are decoded and re-encoded on their wire stream (the tool's buffer is
 * given back first: the wire message takes its place in the ring); posts, generic messages and
 * the rest keep the tool's bytes with the wire stream id written over the tool's.
 */
#include "rx_wl.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WL_NAK_NO_RESPONSE 6

/* ---- lists ------------------------------------------------------------------------------------
 */

void wl_pending_add(rx_wl *wl, wl_stream *s)
{
    if (s->in_pending)
        return;
    s->in_pending = true;
    s->pnext = NULL;
    s->pprev = wl->ptail;
    if (wl->ptail)
        wl->ptail->pnext = s;
    else
        wl->pending = s;
    wl->ptail = s;
    wl->npending++;
}

int wl_close_wire(rx_chan *ch, uint8_t domain, int32_t wire_id)
{
    rwf_msg c;
    rwf_msg_init(&c, RWF_MC_CLOSE, domain, wire_id, RWF_DT_NO_DATA);
    return rx_out_msg(ch, &c);
}

void wl_pending_remove(rx_wl *wl, wl_stream *s)
{
    if (!s->in_pending)
        return;
    WL_UNLINK(s, wl->pending, wl->ptail, pprev, pnext);
    s->in_pending = false;
    s->pprev = s->pnext = NULL;
    wl->npending--;
}

static void timer_add(rx_chan *ch, wl_stream *s)
{
    rx_wl *wl = ch->a.wl;
    if (ch->role.request_timeout_ms <= 0 || s->in_timers)
        return;
    s->deadline = clk_ns() + (int64_t)ch->role.request_timeout_ms * 1000000;
    s->in_timers = true;
    s->tnext = NULL;
    s->tprev = wl->ttail;
    if (wl->ttail)
        wl->ttail->tnext = s;
    else
        wl->thead = s;
    wl->ttail = s;
}

void wl_timer_remove(rx_wl *wl, wl_stream *s)
{
    if (!s->in_timers)
        return;
    WL_UNLINK(s, wl->thead, wl->ttail, tprev, tnext);
    s->in_timers = false;
    s->tprev = s->tnext = NULL;
}

/* ---- the key ----------------------------------------------------------------------------------
 */

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static uint32_t key_hash(const wl_stream *s)
{
    uint32_t h = 2166136261u;
    uint8_t fixed[16] = {s->domain,
                         s->key.flags,
                         s->key.name_type,
                         (uint8_t)(s->key.service_id >> 8),
                         (uint8_t)s->key.service_id,
                         s->has_qos,
                         s->qos.timeliness,
                         s->qos.rate,
                         s->qos.dynamic,
                         (uint8_t)(s->key.filter >> 24),
                         (uint8_t)(s->key.filter >> 16),
                         (uint8_t)(s->key.filter >> 8),
                         (uint8_t)s->key.filter,
                         (uint8_t)(s->key.identifier >> 8),
                         (uint8_t)s->key.identifier,
                         s->key.attrib_type};
    h = fnv(h, fixed, sizeof(fixed));
    h = fnv(h, s->key.name.data, s->key.name.len);
    return fnv(h, s->key.attrib.data, s->key.attrib.len);
}

static bool same_key(const wl_stream *a, const wl_stream *b)
{
    return a->domain == b->domain && a->key.flags == b->key.flags &&
           a->key.name_type == b->key.name_type && a->key.service_id == b->key.service_id &&
           a->key.filter == b->key.filter && a->key.identifier == b->key.identifier &&
           a->key.attrib_type == b->key.attrib_type && rwf_buf_eq(a->key.name, b->key.name) &&
           rwf_buf_eq(a->key.attrib, b->key.attrib) && a->has_qos == b->has_qos &&
           (!a->has_qos || (a->qos.timeliness == b->qos.timeliness && a->qos.rate == b->qos.rate &&
                            a->qos.dynamic == b->qos.dynamic));
}

static void hash_add(rx_wl *wl, wl_stream *s)
{
    if (wl->nagg + 1 > wl->nbucket * 2) {
        uint32_t nb = wl->nbucket * 2;
        wl_stream **v = calloc(nb, sizeof(*v));
        if (v) {
            for (uint32_t i = 0; i < wl->nbucket; i++)
                for (wl_stream *p = wl->bucket[i], *next; p; p = next) {
                    next = p->hnext;
                    p->hnext = v[p->hash & (nb - 1)];
                    v[p->hash & (nb - 1)] = p;
                }
            free(wl->bucket);
            wl->bucket = v;
            wl->nbucket = nb;
        }
    }
    wl_stream **b = &wl->bucket[s->hash & (wl->nbucket - 1)];
    s->hnext = *b;
    *b = s;
    wl->nagg++;
}

static wl_stream *hash_find(rx_wl *wl, const wl_stream *probe)
{
    for (wl_stream *p = wl->bucket[probe->hash & (wl->nbucket - 1)]; p; p = p->hnext)
        if (p->hash == probe->hash && same_key(p, probe))
            return p;
    return NULL;
}

/* ---- streams and requests ----------------------------------------------------------------------
 */

static void fill_from(wl_stream *s, const rwf_msg *m)
{
    s->domain = m->domain;
    s->streaming = m->flags & RWF_RQMF_STREAMING;
    s->private_stream = m->flags & (RWF_RQMF_PRIVATE_STREAM | RWF_RQMF_QUALIFIED_STREAM);
    s->aggregatable = s->streaming && !s->private_stream;
    s->has_qos = m->flags & RWF_RQMF_HAS_QOS;
    s->qos = m->qos;
    s->has_worst_qos = m->flags & RWF_RQMF_HAS_WORST_QOS;
    s->worst_qos = m->worst_qos;
    s->has_priority = m->flags & RWF_RQMF_HAS_PRIORITY;
    s->priority_class = m->priority_class;
    s->priority_count = m->priority_count;
    s->req_flags = m->flags & (uint16_t) ~(RWF_RQMF_NO_REFRESH | RWF_RQMF_PAUSE);
    s->container_type = m->container_type;
    s->key = m->key;
}

/* A new stream for request m (its key, extended header and payload copied). */
static wl_stream *stream_new(rx_wl *wl, const rwf_msg *m)
{
    size_t extra = (size_t)m->key.name.len + m->key.attrib.len + m->ext_header.len + m->payload.len;
    wl_stream *s = calloc(1, sizeof(*s) + extra);
    if (!s) {
        err_set("out of memory for a watchlist stream");
        return NULL;
    }
    fill_from(s, m);
    uint8_t *p = s->data;
    rwf_buf *dst[4] = {&s->key.name, &s->key.attrib, &s->ext, &s->pay};
    const rwf_buf src[4] = {m->key.name, m->key.attrib, m->ext_header, m->payload};
    for (int i = 0; i < 4; i++) {
        if (src[i].len)
            memcpy(p, src[i].data, src[i].len);
        *dst[i] = rwf_buf_make(p, src[i].len);
        p += src[i].len;
    }
    s->hash = key_hash(s);
    s->aprev = wl->atail;
    if (wl->atail)
        wl->atail->anext = s;
    else
        wl->all = s;
    wl->atail = s;
    wl->nstreams++;
    if (s->aggregatable)
        hash_add(wl, s);
    return s;
}

/* Hangs a new request of the tool's id on s. */
static wl_req *attach(rx_wl *wl, wl_stream *s, int32_t app_id)
{
    if (s->nreqs + 1 > wl->ids_cap) {
        int32_t *v = realloc(wl->ids, (size_t)wl->ids_cap * 2 * sizeof(*v));
        if (!v) {
            err_set("out of memory");
            return NULL;
        }
        wl->ids = v;
        wl->ids_cap *= 2;
    }
    wl_req *r = calloc(1, sizeof(*r));
    if (!r || rx_map_put(&wl->app, app_id, r) != 0) {
        free(r);
        err_set("out of memory for a watchlist request");
        return NULL;
    }
    r->app_id = app_id;
    r->s = s;
    r->want_refresh = true;
    r->next = s->reqs;
    s->reqs = r;
    s->nreqs++;
    return r;
}

static void detach(rx_wl *wl, wl_req *r)
{
    wl_stream *s = r->s;
    for (wl_req **pp = &s->reqs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    s->nreqs--;
    rx_map_del(&wl->app, r->app_id);
    free(r);
}

/* The wire request of s on stream id, with or without NO_REFRESH. */
static int send_request(rx_chan *ch, wl_stream *s, int32_t id, bool no_refresh)
{
    rwf_msg q;
    rwf_msg_init(&q, RWF_MC_REQUEST, s->domain, id, s->container_type);
    q.flags = s->req_flags | (no_refresh ? RWF_RQMF_NO_REFRESH : 0);
    q.key = s->key;
    q.qos = s->qos;
    q.worst_qos = s->worst_qos;
    q.priority_class = s->priority_class;
    q.priority_count = s->priority_count;
    q.ext_header = s->ext;
    q.payload = s->pay;
    if (!s->has_qos && (s->key.flags & RWF_MKF_HAS_SERVICE_ID)) {
        /* No QoS asked: the service's best, as the ETA watchlist adds it. */
        const wl_service *svc = wl_service_find(ch->a.wl, s->key.service_id);
        if (svc && svc->has_qos) {
            q.flags |= RWF_RQMF_HAS_QOS;
            q.qos = svc->qos;
        }
    }
    return rx_out_msg(ch, &q);
}

int wl_request(rx_chan *ch, wl_stream *s, bool no_refresh)
{
    rx_wl *wl = ch->a.wl;
    int32_t id = wl_next_id(wl);
    int rc = send_request(ch, s, id, no_refresh);
    if (rc == TP_ENOBUFS)
        return 1;
    if (rc < 0)
        return -1;
    if (rx_map_put(&wl->wire, id, s) != 0)
        return -1;
    s->wire_id = id;
    wl_pending_remove(wl, s);
    if (!no_refresh) {
        s->refresh_pending = true;
        for (wl_req *r = s->reqs; r; r = r->next)
            r->want_refresh = true;
        timer_add(ch, s);
    }
    return 0;
}

int wl_send_pending(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    for (wl_stream *s = wl->pending, *next; s; s = next) {
        next = s->pnext;
        if (!wl_can_go(ch, s))
            continue;
        int rc = wl_request(ch, s, false);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            wl->resend = true; /* the ring is full: the timers try again */
            break;
        }
    }
    rx_chan_publish(ch);
    return 0;
}

/* ---- submitting -------------------------------------------------------------------------------
 */

/* A new request of the tool (id not known yet). b is already given back. */
static int new_request(rx_chan *ch, const rwf_msg *m)
{
    rx_wl *wl = ch->a.wl;
    wl_stream probe;
    memset(&probe, 0, sizeof(probe));
    fill_from(&probe, m);
    probe.hash = key_hash(&probe);
    wl_stream *s = probe.aggregatable ? hash_find(wl, &probe) : NULL;
    if (s) {
        wl_req *r = attach(wl, s, m->stream_id);
        if (!r)
            return -1;
        if (s->wire_id && !s->refresh_pending && wl_can_go(ch, s)) {
            /* Joins an open stream: ask for a refresh on it for the newcomer. */
            int rc = send_request(ch, s, s->wire_id, false);
            if (rc < 0) {
                detach(wl, r);
                return rc;
            }
            s->refresh_pending = true;
            timer_add(ch, s);
        }
        return 0;
    }
    if (!(s = stream_new(wl, m)))
        return -1;
    if (!attach(wl, s, m->stream_id)) {
        wl_stream_free(wl, s);
        return -1;
    }
    if (!wl_can_go(ch, s)) {
        wl_pending_add(wl, s);
        return 0;
    }
    int rc = wl_request(ch, s, false);
    if (rc != 0)
        wl_stream_free(wl, s);
    return rc > 0 ? (err_set("no room in the channel's outbound ring"), TP_ENOBUFS) : rc;
}

/* The tool requests again on one of its open streams. */
static int reissue(rx_chan *ch, wl_req *r, const rwf_msg *m)
{
    wl_stream *s = r->s;
    if (m->flags & RWF_RQMF_NO_REFRESH)
        return 0;
    r->want_refresh = true;
    if (!s->wire_id || !wl_can_go(ch, s) || s->refresh_pending)
        return 0; /* the refresh it waits for comes when the stream is requested */
    int rc = send_request(ch, s, s->wire_id, false);
    if (rc < 0)
        return rc;
    s->refresh_pending = true;
    timer_add(ch, s);
    return 0;
}

static int submit_request(rx_chan *ch, rx_buf *b)
{
    rx_wl *wl = ch->a.wl;
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(b->data, b->len)) != RWF_OK) {
        rx_release(ch, b);
        return err_push("the watchlist cannot read the request"), TP_EINVAL;
    }
    if (m.domain == RWF_DMT_LOGIN || m.domain == RWF_DMT_SOURCE) {
        /* The login and the directory are the watchlist's own streams. */
        rx_release(ch, b);
        return err_set("the watchlist sends the login and directory requests itself"), TP_EINVAL;
    }
    if (m.flags & RWF_RQMF_HAS_BATCH) {
        rx_release(ch, b);
        return err_set("batch requests are not supported by the watchlist"), TP_EINVAL;
    }
    /* The views in m point into b, which the ring needs back before anything is written:
     * copy what is needed first (stream_new copies; a reissue only reads flags). */
    uint8_t *copy = malloc(b->len);
    if (!copy) {
        rx_release(ch, b);
        return err_set("out of memory"), TP_ENOBUFS;
    }
    memcpy(copy, b->data, b->len);
    uint32_t len = b->len;
    rx_release(ch, b);
    rwf_msg_decode(&m, rwf_buf_make(copy, len));
    wl_req *r = rx_map_get(&wl->app, m.stream_id);
    int rc = r ? reissue(ch, r, &m) : new_request(ch, &m);
    free(copy);
    return rc;
}

static int submit_close(rx_chan *ch, rx_buf *b)
{
    rx_wl *wl = ch->a.wl;
    int32_t id = (int32_t)rwf_rd32(b->data + 4);
    uint8_t domain = b->data[3];
    rx_release(ch, b);
    wl_req *r = rx_map_get(&wl->app, id);
    if (!r)
        return err_set("close for stream %d, which the watchlist does not have", (int)id),
               TP_EINVAL;
    wl_stream *s = r->s;
    if (s->nreqs == 1 && s->wire_id && ch->a.state == RXA_UP) {
        int rc = wl_close_wire(ch, domain, s->wire_id);
        if (rc < 0)
            return rc; /* nothing changed: the tool may close again */
    }
    detach(wl, r);
    if (!s->nreqs)
        wl_stream_free(wl, s);
    return 0;
}

int32_t rx_wl_wire_id(rx_chan *ch, int32_t app_id)
{
    const wl_req *r = rx_map_get(&ch->a.wl->app, app_id);
    return r ? r->s->wire_id : 0;
}

void rx_wl_forget(rx_chan *ch, int32_t app_id)
{
    rx_wl *wl = ch->a.wl;
    wl_req *r = rx_map_get(&wl->app, app_id);
    if (!r)
        return;
    wl_stream *s = r->s;
    detach(wl, r);
    if (!s->nreqs)
        wl_stream_free(wl, s);
}

/* The class-specific flags of an encoded message (byte 8: u15rb). */
static uint16_t peek_flags(const uint8_t *p, uint32_t len)
{
    if (len < 10)
        return 0;
    return p[8] & 0x80 ? (uint16_t)(((p[8] & 0x7F) << 8) | p[9]) : p[8];
}

/* Remembers a post that asked for an ack (bounded: counted when the table is full). */
static void ack_track(rx_chan *ch, const uint8_t *p, uint32_t len, int32_t wire, int32_t app)
{
    rx_wl *wl = ch->a.wl;
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(p, len)) != RWF_OK || !(m.flags & RWF_PSMF_HAS_POST_ID))
        return;
    if (wl->ack_head - wl->ack_tail >= RX_WL_MAX_ACKS || ch->role.post_ack_timeout_ms <= 0) {
        if (ch->role.post_ack_timeout_ms > 0)
            ch->a.acks_untracked++;
        return;
    }
    wl_ack *a = &wl->acks[wl->ack_head++ % RX_WL_MAX_ACKS];
    a->wire_id = wire;
    a->app_id = app;
    a->post_id = m.post_id;
    a->domain = m.domain;
    a->live = true;
    a->deadline = clk_ns() + (int64_t)ch->role.post_ack_timeout_ms * 1000000;
}

/* Posts, generic messages and the rest: the tool's bytes with the wire stream id. */
static int submit_other(rx_chan *ch, rx_buf *b, unsigned flags)
{
    rx_wl *wl = ch->a.wl;
    int32_t id = (int32_t)rwf_rd32(b->data + 4);
    int32_t wire = id;
    if (id != RX_WL_LOGIN_STREAM && id != RX_WL_DIRECTORY_STREAM) {
        wl_req *r = rx_map_get(&wl->app, id);
        if (!r) {
            rx_release(ch, b);
            return err_set("stream %d is not open in the watchlist", (int)id), TP_EINVAL;
        }
        wire = r->s->wire_id;
    }
    if (!wire || ch->a.state != RXA_UP) {
        rx_release(ch, b);
        return err_set("stream %d waits for its connection or service", (int)id), TP_ENOBUFS;
    }
    rwf_wr32(b->data + 4, (uint32_t)wire);
    if ((b->data[2] & 0x1F) == RWF_MC_POST && (peek_flags(b->data, b->len) & RWF_PSMF_ACK))
        ack_track(ch, b->data, b->len, wire, id);
    return rx_buf_commit(ch, b, flags);
}

int rx_wl_submit(rx_chan *ch, rx_buf *b, unsigned flags)
{
    if (!ch->a.buf_open || b != &ch->a.buf)
        return err_set("rx_submit: not the channel's open buffer"), TP_EINVAL;
    if (b->len < 10) {
        rx_release(ch, b);
        return err_set("rx_submit: a message of %u bytes is too short", b->len), TP_EINVAL;
    }
    switch (b->data[2] & 0x1F) {
    case RWF_MC_REQUEST:
        return submit_request(ch, b);
    case RWF_MC_CLOSE:
        return submit_close(ch, b);
    default:
        return submit_other(ch, b, flags);
    }
}

/* ---- acks -------------------------------------------------------------------------------------
 */

int32_t wl_ack_take(rx_wl *wl, int32_t wire_id, uint32_t post_id)
{
    int32_t app = 0;
    for (uint32_t i = wl->ack_tail; i != wl->ack_head; i++) {
        wl_ack *a = &wl->acks[i % RX_WL_MAX_ACKS];
        if (a->live && a->wire_id == wire_id && a->post_id == post_id) {
            a->live = false;
            app = a->app_id;
            break;
        }
    }
    while (wl->ack_tail != wl->ack_head && !wl->acks[wl->ack_tail % RX_WL_MAX_ACKS].live)
        wl->ack_tail++;
    return app;
}

/* Gives the tool a NAK for the post of a (its ack did not come). */
static int nak(rx_chan *ch, const wl_ack *a, const char *text)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_ACK, a->domain, a->app_id, RWF_DT_NO_DATA);
    m.flags = RWF_AKMF_HAS_NAK_CODE | RWF_AKMF_HAS_TEXT;
    m.ack_id = a->post_id;
    m.nak_code = WL_NAK_NO_RESPONSE;
    m.text = rwf_buf_cstr(text);
    size_t len = 0;
    if (rwf_msg_encode(&m, ch->r->scratch, RX_SCRATCH, &len) == RWF_OK)
        m.encoded = rwf_buf_make(ch->r->scratch, len);
    return rx_deliver_msg(ch, &m);
}

int wl_acks_fail(rx_chan *ch, const char *text)
{
    rx_wl *wl = ch->a.wl;
    while (wl->ack_tail != wl->ack_head) {
        wl_ack a = wl->acks[wl->ack_tail++ % RX_WL_MAX_ACKS];
        if (!a.live)
            continue;
        int rc = nak(ch, &a, text);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    return 0;
}

/* ---- timers ------------------------------------------------------------------------------------
 */

int64_t rx_wl_next_timer(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    int64_t t = INT64_MAX;
    if (wl->resend)
        t = 0;
    if (wl->thead && wl->thead->deadline < t)
        t = wl->thead->deadline;
    if (wl->ack_tail != wl->ack_head) {
        const wl_ack *a = &wl->acks[wl->ack_tail % RX_WL_MAX_ACKS];
        if (a->deadline < t)
            t = a->deadline;
    }
    return t;
}

/* A stream whose refresh did not come in time: closed on the wire and requested again. */
static int timed_out(rx_chan *ch, wl_stream *s)
{
    rx_wl *wl = ch->a.wl;
    ch->a.req_timeouts++;
    if (s->wire_id && ch->a.state == RXA_UP) {
        wl_close_wire(ch, s->domain, s->wire_id); /* best effort */
    }
    wl_stream_unwire(wl, s);
    return wl_status_all(ch, s, RWF_STREAM_OPEN, RWF_DATA_SUSPECT, RWF_SC_TIMEOUT,
                         "Request timed out; the item is requested again.");
}

int rx_wl_timers(rx_chan *ch, int64_t now)
{
    rx_wl *wl = ch->a.wl;
    wl->resend = false;
    while (wl->thead && wl->thead->deadline <= now) {
        int rc = timed_out(ch, wl->thead);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    while (wl->ack_tail != wl->ack_head) {
        wl_ack *a = &wl->acks[wl->ack_tail % RX_WL_MAX_ACKS];
        if (a->live && a->deadline > now)
            break;
        wl->ack_tail++;
        if (!a->live)
            continue;
        a->live = false;
        ch->a.ack_timeouts++;
        char text[96];
        snprintf(text, sizeof(text), "No ack received for the post with id %u.", a->post_id);
        int rc = nak(ch, a, text);
        if (rc < 0 || ch->a.closed_by_app)
            return rc;
    }
    return wl_send_pending(ch);
}
