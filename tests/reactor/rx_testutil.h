/*
 * Helpers of the reactor tests: a scripted peer (a tp server or client driven from the test
 * thread, which plays the provider or the consumer), a log of everything the reactor's callbacks
 * saw, and pumps that run the reactor's application side while waiting for something.
 */
#ifndef RWFPERF_RX_TESTUTIL_H
#define RWFPERF_RX_TESTUTIL_H

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "rwf.h"
#include "rx.h"
#include "testsupport.h"
#include "tp.h"

static inline int64_t tx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- what the callbacks saw ------------------------------------------------------------------ */

enum { TX_CHANNEL = 1, TX_LOGIN, TX_DIRECTORY, TX_DICTIONARY, TX_MSG };

typedef struct tx_ev {
    int kind;  /* TX_* */
    int event; /* rx_event for TX_CHANNEL */
    int32_t stream;
    uint8_t cls, domain, sstate, dstate, code;
    uint16_t flags;
    uint32_t nsvc;
    uint32_t ack_id;
    uint8_t nak;
    int32_t enc_stream; /* the stream id in the encoded bytes */
    int64_t ns;         /* channel events with a text: rx_event_ns() (when the worker saw it) */
    char text[160];
} tx_ev;

#define TX_MAX_EV 20000

typedef struct tx_log {
    tx_ev v[TX_MAX_EV];
    int n;
    uint64_t updates; /* counted, not logged */
    rx_chan *ch;      /* the channel of the last UP */
    int fail_on;      /* a callback returns -1 when it would log event index fail_on (0: never) */
} tx_log;

static inline tx_ev *tx_add(tx_log *l, int kind)
{
    if (l->n >= TX_MAX_EV)
        fail_msg("event log full");
    tx_ev *e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    return e;
}

static inline void tx_fill(tx_ev *e, const rwf_msg *m)
{
    e->stream = m->stream_id;
    e->cls = m->msg_class;
    e->domain = m->domain;
    e->flags = m->flags;
    e->ack_id = m->ack_id;
    e->nak = m->nak_code;
    if (m->encoded.len >= 8)
        e->enc_stream = (int32_t)rwf_rd32((const uint8_t *)m->encoded.data + 4);
    const rwf_state *st = NULL;
    if (m->msg_class == RWF_MC_REFRESH ||
        (m->msg_class == RWF_MC_STATUS && (m->flags & RWF_STMF_HAS_STATE)))
        st = &m->state;
    if (st) {
        e->sstate = st->stream_state;
        e->dstate = st->data_state;
        e->code = st->code;
        snprintf(e->text, sizeof(e->text), "%.*s", (int)st->text.len,
                 st->text.data ? st->text.data : "");
    }
    if (m->msg_class == RWF_MC_ACK && m->text.len)
        snprintf(e->text, sizeof(e->text), "%.*s", (int)m->text.len, m->text.data);
}

static inline int tx_on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    tx_log *l = rx_user(ch);
    tx_ev *e = tx_add(l, TX_CHANNEL);
    e->event = ev;
    if (text)
        e->ns = rx_event_ns(ch);
    snprintf(e->text, sizeof(e->text), "%s", text ? text : "");
    if (ev == RX_CHANNEL_UP)
        l->ch = ch;
    return l->fail_on && l->n == l->fail_on ? (err_set("test failure"), -1) : 0;
}

static inline int tx_on_login(rx_chan *ch, const rwf_msg *m, const rwf_login *lg)
{
    tx_log *l = rx_user(ch);
    tx_ev *e = tx_add(l, TX_LOGIN);
    tx_fill(e, m);
    (void)lg;
    return 0;
}

static inline int tx_on_directory(rx_chan *ch, const rwf_msg *m, const rwf_service *s, unsigned n)
{
    tx_log *l = rx_user(ch);
    tx_ev *e = tx_add(l, TX_DIRECTORY);
    tx_fill(e, m);
    e->nsvc = s ? n : 0;
    return 0;
}

static inline int tx_on_dictionary(rx_chan *ch, const rwf_msg *m)
{
    tx_log *l = rx_user(ch);
    tx_fill(tx_add(l, TX_DICTIONARY), m);
    return 0;
}

static inline int tx_on_msg(rx_chan *ch, const rwf_msg *m)
{
    tx_log *l = rx_user(ch);
    if (m->msg_class == RWF_MC_UPDATE) {
        l->updates++;
        if (l->updates > 64)
            return 0; /* the first ones are logged, the rest counted */
    }
    tx_fill(tx_add(l, TX_MSG), m);
    return 0;
}

static inline void tx_callbacks(rx_callbacks *cb)
{
    cb->on_channel = tx_on_channel;
    cb->on_login = tx_on_login;
    cb->on_directory = tx_on_directory;
    cb->on_dictionary = tx_on_dictionary;
    cb->on_msg = tx_on_msg;
}

/* Index of the first event at or after `from` matching kind (and, for channel events, event;
 * for messages, class when cls != 0), or -1. */
static inline int tx_find(const tx_log *l, int from, int kind, int event_or_cls)
{
    for (int i = from; i < l->n; i++) {
        const tx_ev *e = &l->v[i];
        if (e->kind != kind)
            continue;
        if (kind == TX_CHANNEL && e->event != event_or_cls)
            continue;
        if (kind != TX_CHANNEL && event_or_cls && e->cls != event_or_cls)
            continue;
        return i;
    }
    return -1;
}

static inline int tx_count(const tx_log *l, int kind, int event_or_cls)
{
    int n = 0;
    for (int i = 0; (i = tx_find(l, i, kind, event_or_cls)) >= 0; i++)
        n++;
    return n;
}

/* ---- running the reactor ------------------------------------------------------------------------
 */

static inline void tx_pump(rx_reactor *r, int ms)
{
    int64_t end = tx_now_ms() + ms;
    do {
        rx_wait(r, 1000000);
        int rc = rx_dispatch(r, 10000);
        if (rc < 0)
            fail_msg("rx_dispatch: %d: %s", rc, err_msg());
    } while (tx_now_ms() < end);
}

/* Pumps until the log holds an event of kind/event_or_cls from index `from` (returns its index)
 * or ms pass (fails the test). */
static inline int tx_wait_for(rx_reactor *r, tx_log *l, int from, int kind, int event_or_cls,
                              int ms)
{
    int64_t end = tx_now_ms() + ms;
    for (;;) {
        int i = tx_find(l, from, kind, event_or_cls);
        if (i >= 0)
            return i;
        if (tx_now_ms() > end)
            fail_msg("no event kind %d/%d after index %d within %d ms", kind, event_or_cls, from,
                     ms);
        rx_wait(r, 2000000);
        int rc = rx_dispatch(r, 10000);
        if (rc < 0)
            fail_msg("rx_dispatch: %d: %s", rc, err_msg());
    }
}

/* ---- the peer ----------------------------------------------------------------------------------
 */

typedef struct tx_peer {
    tp_server *srv;
    tp_channel *ch;
    char port[16];
    uint8_t buf[1 << 20];
    uint32_t len;
    rx_reactor *r; /* pumped while the peer waits */
} tx_peer;

static inline void tx_peer_listen(tx_peer *p, rx_reactor *r)
{
    memset(p, 0, sizeof(*p));
    p->r = r;
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = "0";
    if (tp_bind(&o, &p->srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    snprintf(p->port, sizeof(p->port), "%u", tp_server_port(p->srv));
}

static inline void tx_peer_pump(tx_peer *p)
{
    if (!p->r)
        return;
    rx_wait(p->r, 500000);
    int rc = rx_dispatch(p->r, 10000);
    if (rc < 0)
        fail_msg("rx_dispatch: %d: %s", rc, err_msg());
}

/* Accepts one connection and completes its handshake (pumping the reactor meanwhile). */
static inline void tx_peer_accept(tx_peer *p, int ms)
{
    int64_t end = tx_now_ms() + ms;
    while (!p->ch) {
        if (tp_accept(p->srv, &p->ch) < 0)
            fail_msg("tp_accept: %s", err_msg());
        if (tx_now_ms() > end)
            fail_msg("no connection within %d ms", ms);
        tx_peer_pump(p);
    }
    for (;;) {
        int rc = tp_init(p->ch);
        if (rc == TP_ACTIVE)
            return;
        if (rc < 0)
            fail_msg("peer handshake: %s", err_msg());
        if (tx_now_ms() > end)
            fail_msg("peer handshake timed out");
        tx_peer_pump(p);
    }
}

/* Drops the connection (the reactor sees end of file). */
static inline void tx_peer_drop(tx_peer *p)
{
    tp_close(p->ch);
    p->ch = NULL;
}

static inline void tx_peer_free(tx_peer *p)
{
    tp_close(p->ch);
    tp_server_close(p->srv);
    p->ch = NULL;
    p->srv = NULL;
}

/* Reads the next message into p->buf and decodes it into *m. Returns 1, or 0 when none came
 * within ms. */
static inline int tx_peer_read(tx_peer *p, rwf_msg *m, int ms)
{
    int64_t end = tx_now_ms() + ms;
    for (;;) {
        tp_msg t;
        int rc = tp_read(p->ch, &t);
        if (rc < 0)
            fail_msg("peer read: %s", err_msg());
        if (rc & TP_READ_MSG) {
            if (t.len > sizeof(p->buf))
                fail_msg("message of %u bytes", t.len);
            memcpy(p->buf, t.data, t.len);
            p->len = t.len;
            if (rwf_msg_decode(m, rwf_buf_make(p->buf, p->len)) != RWF_OK)
                fail_msg("peer decode: %s", err_msg());
            return 1;
        }
        if (rc & TP_READ_MORE)
            continue;
        if (tx_now_ms() > end)
            return 0;
        tx_peer_pump(p);
    }
}

/* Reads a message and checks its class and stream id. */
static inline void tx_peer_expect(tx_peer *p, rwf_msg *m, int cls, int32_t stream)
{
    if (!tx_peer_read(p, m, 3000))
        fail_msg("expected a %s on stream %d, got nothing", rwf_msg_class_name(cls), (int)stream);
    if (m->msg_class != cls || m->stream_id != stream)
        fail_msg("expected a %s on stream %d, got a %s on stream %d", rwf_msg_class_name(cls),
                 (int)stream, rwf_msg_class_name(m->msg_class), (int)m->stream_id);
}

/* Asserts that nothing arrives within ms. */
static inline void tx_peer_quiet(tx_peer *p, int ms)
{
    rwf_msg m;
    if (tx_peer_read(p, &m, ms))
        fail_msg("unexpected %s on stream %d", rwf_msg_class_name(m.msg_class), (int)m.stream_id);
}

static inline void tx_peer_send_bytes(tx_peer *p, const void *data, uint32_t len)
{
    tp_buf *b;
    if (tp_get_buffer(p->ch, len, false, &b) != 0)
        fail_msg("peer buffer: %s", err_msg());
    memcpy(b->data, data, len);
    b->len = len;
    if (tp_write(p->ch, b, 0) < 0)
        fail_msg("peer write: %s", err_msg());
    while (tp_flush(p->ch) > 0)
        tx_peer_pump(p);
}

static inline void tx_peer_send(tx_peer *p, const rwf_msg *m)
{
    static uint8_t tmp[65536];
    size_t len;
    if (rwf_msg_encode(m, tmp, sizeof(tmp), &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    tx_peer_send_bytes(p, tmp, (uint32_t)len);
}

/* The provider's login refresh (stream 1), Open/Ok or as state says. */
static inline void tx_peer_login_refresh(tx_peer *p, uint8_t sstate, const char *text)
{
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("root");
    l.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION |
              RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_HAS_SUPPORT_POST | RWF_LOGIN_SOLICITED;
    l.state.stream_state = sstate;
    l.state.data_state = sstate == RWF_STREAM_OPEN ? RWF_DATA_OK : RWF_DATA_SUSPECT;
    l.state.text = rwf_buf_cstr(text);
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ProvPerf");
    l.position = RWF_STR("127.0.0.1/net");
    l.support_post = 1;
    static uint8_t tmp[1024];
    rwf_enc e;
    rwf_enc_init(&e, tmp, sizeof(tmp));
    size_t len;
    if (rwf_rdm_login_refresh(&e, &l) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("login refresh: %s", err_msg());
    tx_peer_send_bytes(p, tmp, (uint32_t)len);
}

/* A directory refresh (or update) with service 1 "DIRECT_FEED", up or down (state), QoS
 * realtime tick-by-tick. */
static inline void tx_peer_directory(tx_peer *p, int32_t stream, uint32_t filter, bool update,
                                     int state, bool with_service)
{
    static rwf_service s;
    memset(&s, 0, sizeof(s));
    s.id = 1;
    s.action = update ? RWF_MPEA_UPDATE_ENTRY : RWF_MPEA_ADD_ENTRY;
    s.flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE | RWF_SVC_HAS_QOS | RWF_SVC_HAS_ACCEPTING_REQS |
              RWF_SVC_HAS_DICTS_PROVIDED;
    s.name = RWF_STR("DIRECT_FEED");
    s.capabilities[0] = 6;
    s.capability_count = 1;
    s.dicts_provided[0] = RWF_STR("RWFFld");
    s.dicts_provided[1] = RWF_STR("RWFEnum");
    s.dicts_provided_count = 2;
    s.qos[0].timeliness = 1;
    s.qos[0].rate = 1;
    s.qos_count = 1;
    s.service_state = (uint64_t)state;
    s.accepting_requests = 1;
    rwf_directory d;
    memset(&d, 0, sizeof(d));
    d.stream_id = stream;
    d.filter = filter;
    d.solicited = !update;
    d.clear_cache = !update;
    d.state.stream_state = RWF_STREAM_OPEN;
    d.state.data_state = RWF_DATA_OK;
    d.services = with_service ? &s : NULL;
    d.service_count = with_service ? 1 : 0;
    static uint8_t tmp[4096];
    rwf_enc e;
    rwf_enc_init(&e, tmp, sizeof(tmp));
    size_t len;
    if (rwf_rdm_directory_refresh(&e, &d) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("directory: %s", err_msg());
    if (!update) {
        tx_peer_send_bytes(p, tmp, (uint32_t)len);
        return;
    }
    /* An update carries the same map: re-encode the refresh's payload in an Update. */
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(tmp, len)) != RWF_OK)
        fail_msg("directory decode: %s", err_msg());
    rwf_msg u;
    rwf_msg_init(&u, RWF_MC_UPDATE, RWF_DMT_SOURCE, stream, RWF_DT_MAP);
    u.payload = m.payload;
    tx_peer_send(p, &u);
}

/* An item refresh (or update / status) on a stream. */
static inline void tx_peer_item(tx_peer *p, int cls, int32_t stream, uint8_t domain, bool solicited,
                                uint8_t sstate, uint8_t dstate, const char *text)
{
    rwf_msg m;
    rwf_msg_init(&m, (uint8_t)cls, domain, stream, RWF_DT_NO_DATA);
    if (cls == RWF_MC_REFRESH) {
        m.flags = RWF_RFMF_REFRESH_COMPLETE | (solicited ? RWF_RFMF_SOLICITED : 0);
        m.state.stream_state = sstate;
        m.state.data_state = dstate;
        m.state.text = rwf_buf_cstr(text);
    } else if (cls == RWF_MC_STATUS) {
        m.flags = RWF_STMF_HAS_STATE;
        m.state.stream_state = sstate;
        m.state.data_state = dstate;
        m.state.text = rwf_buf_cstr(text);
    }
    tx_peer_send(p, &m);
}

/* ---- the reactor's side
 * -------------------------------------------------------------------------- */

/* A login request as the ETA reactor's default: user "root", "256", "eta", "127.0.0.1/net". */
static inline void tx_login(rwf_login *l)
{
    memset(l, 0, sizeof(*l));
    l->stream_id = 1;
    l->flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION;
    l->user = RWF_STR("root");
    l->app_id = RWF_STR("256");
    l->app_name = RWF_STR("eta");
    l->position = RWF_STR("127.0.0.1/net");
}

/* Submits an item request of the tool: stream, name, service 1, streaming (or snapshot), QoS
 * realtime when qos. Returns rx_submit's result. */
static inline int tx_request(rx_chan *ch, int32_t stream, const char *name, bool streaming,
                             bool qos)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, stream, RWF_DT_NO_DATA);
    m.flags = (streaming ? RWF_RQMF_STREAMING : 0) | (qos ? RWF_RQMF_HAS_QOS : 0);
    m.qos.timeliness = 1;
    m.qos.rate = 1;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = rwf_buf_cstr(name);
    return rx_submit_msg(ch, &m);
}

#endif
