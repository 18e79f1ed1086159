/*
 * rx_tun: the life of tunnel streams (docs/modes.md#tunnel-streams, docs/wire.md#tunnel-streams):
 * opening (consumer), requests accepted or rejected (provider), the refresh and its class of
 * service, the version fallback, authentication, the close handshake, timers, and the routing of a
 * channel's messages to its tunnels. The traffic itself is rx_tun_io.c.
 */
#include "rx_tun_int.h"
#include "rx_wl.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TUN_MSG_MAX 1024 /* the tunnel's request, refresh and status messages */

void rx_tunnel_opts_init(rx_tunnel_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->domain = RWF_DMT_SYSTEM;
    rx_cos_init(&o->cos);
    o->guaranteed_output_buffers = 15000;
    o->response_timeout_ms = 60000;
}

static int64_t now_ms(void)
{
    return clk_ns() / 1000000;
}

void tun_timer(rx_tunnel *t, int ms)
{
    t->response_at = now_ms() + ms;
}

void tun_fin_timer(rx_tunnel *t)
{
    int ms = TUN_FIN_TIMEOUT_MS;
    for (int i = 0; i < t->fin_tries; i++)
        ms *= 2;
    t->fin_tries++;
    tun_timer(t, ms);
}

void *rx_tunnel_user(const rx_tunnel *t)
{
    return t->user;
}

rx_chan *rx_tunnel_chan(const rx_tunnel *t)
{
    return t->ch;
}

const char *rx_tunnel_name(const rx_tunnel *t)
{
    return t->name;
}

int32_t rx_tunnel_stream_id(const rx_tunnel *t)
{
    return t->app_id;
}

const rx_cos *rx_tunnel_cos(const rx_tunnel *t)
{
    return &t->cos;
}

bool rx_tunnel_is_open(const rx_tunnel *t)
{
    return t->state == TS_OPEN && (t->flags & TF_ACTIVE);
}

void rx_tunnel_get_info(const rx_tunnel *t, rx_tunnel_info *out)
{
    *out = t->info;
    out->buffers_used = t->chunk_n + (t->big && t->big_app ? 1 : 0);
    out->bytes_waiting_ack = t->bytes_wait_ack;
    out->send_window = t->send_window;
    uint32_t n = 0;
    for (const tun_rec *r = t->head; r && r != t->unsent; r = r->next)
        n += !(r->flags & TR_ACKED);
    out->waiting_ack = n;
}

/* ---- the set of a channel ---------------------------------------------------------------------
 */

static rx_tun_set *set_of(rx_chan *ch)
{
    if (!ch->a.tun && !(ch->a.tun = calloc(1, sizeof(rx_tun_set))))
        err_set("out of memory for tunnel streams");
    return ch->a.tun;
}

static rx_tunnel *find(const rx_chan *ch, int32_t id, uint8_t domain)
{
    if (!ch->a.tun)
        return NULL;
    for (rx_tunnel *t = ch->a.tun->list; t; t = t->next)
        if (t->app_id == id && t->domain == domain)
            return t;
    return NULL;
}

static void tun_free(rx_tunnel *t)
{
    tun_store_free(t);
    free(t->auth_login);
    free(t);
}

void rx_tun_free_all(rx_chan *ch)
{
    if (!ch->a.tun)
        return;
    for (rx_tunnel *t = ch->a.tun->list, *next; t; t = next) {
        next = t->next;
        tun_free(t);
    }
    free(ch->a.tun);
    ch->a.tun = NULL;
}

rx_tunnel *tun_new(rx_chan *ch, const rx_tunnel_opts *o, int32_t id, const char *name)
{
    rx_tun_set *set = set_of(ch);
    if (!set)
        return NULL;
    size_t nl = strlen(name);
    if (nl > 255) {
        err_set("tunnel stream name of %zu bytes (at most 255)", nl);
        return NULL;
    }
    rx_tunnel *t = calloc(1, sizeof(*t));
    if (!t) {
        err_set("out of memory for a tunnel stream");
        return NULL;
    }
    t->ch = ch;
    memcpy(t->name, name, nl + 1);
    t->name_len = (uint8_t)nl;
    t->domain = o->domain;
    t->service_id = o->service_id;
    t->app_id = t->wire_id = id;
    t->cos = o->cos;
    t->flags = TF_ACTIVE;
    t->cb = o->cb;
    t->user = o->user;
    t->limit = o->guaranteed_output_buffers ? o->guaranteed_output_buffers : 15000;
    t->response_timeout_ms = o->response_timeout_ms > 0 ? o->response_timeout_ms : 60000;
    t->stream_version = RX_TUNNEL_STREAM_VERSION;
    t->recv_window = o->cos.recv_window >= 0 ? o->cos.recv_window : RX_TUNNEL_RECV_WINDOW;
    if (t->recv_window < (int64_t)o->cos.max_fragment_size)
        t->recv_window = (int64_t)o->cos.max_fragment_size;
    t->next = set->list;
    set->list = t;
    return t;
}

int tun_status(rx_tunnel *t, const rwf_state *st, const rwf_login *auth)
{
    if (!(t->flags & (TF_ACTIVE | TF_FINAL_STATUS)) || !t->cb.on_status)
        return 0;
    return t->cb.on_status(t, st, auth);
}

/* ---- messages of the tunnel stream itself -------------------------------------------------- */

/* Writes a layer message of the tunnel stream (through the watchlist when it has one: request,
 * close). Returns 0, TUN_BUSY or -1. */
static int stream_msg(rx_tunnel *t, const uint8_t *data, uint32_t len, bool via_watchlist)
{
    rx_chan *ch = t->ch;
    if (!via_watchlist || !ch->role.watchlist)
        return tun_chan_write(t, data, len);
    if (ch->a.buf_open)
        return TUN_BUSY;
    rx_buf *b;
    int rc = rx_get_buffer(ch, len, false, &b);
    if (rc == TP_ENOBUFS)
        return TUN_BUSY;
    if (rc < 0)
        return -1;
    memcpy(b->data, data, len);
    b->len = len;
    rc = rx_submit(ch, b, 0);
    return rc == TP_ENOBUFS ? TUN_BUSY : rc < 0 ? -1 : 0;
}

/* The consumer's close message, or the provider's status st. */
static int send_close(rx_tunnel *t, const rwf_state *st)
{
    if (t->ch->a.state != RXA_UP || t->ch->a.closed_by_app)
        return 0;
    uint8_t buf[TUN_MSG_MAX];
    uint32_t len;
    if (t->flags & TF_PROVIDER) {
        if (tun_enc_status(t->wire_id, t->domain, st, NULL, 0, NULL, 0, buf, sizeof(buf), &len) !=
            0)
            return -1;
        return tun_chan_write(t, buf, len) < 0 ? -1 : 0;
    }
    rwf_msg c;
    rwf_msg_init(&c, RWF_MC_CLOSE, t->domain, t->ch->role.watchlist ? t->app_id : t->wire_id,
                 RWF_DT_NO_DATA);
    size_t n;
    if (rwf_msg_encode(&c, buf, sizeof(buf), &n) != RWF_OK)
        return -1;
    return stream_msg(t, buf, (uint32_t)n, true) < 0 ? -1 : 0;
}

void tun_mark_dead(rx_tunnel *t)
{
    t->state = TS_CLOSED;
    t->flags |= TF_DEAD;
    t->needs_dispatch = true;
    if (!(t->flags & TF_PROVIDER) && t->ch->role.watchlist && t->ch->a.wl)
        rx_wl_forget(t->ch, t->app_id);
}

int tun_end(rx_tunnel *t, const rwf_state *st)
{
    if (t->flags & TF_DEAD)
        return 0;
    tun_mark_dead(t);
    int rc = tun_status(t, st, NULL);
    t->flags &= ~(unsigned)(TF_ACTIVE | TF_FINAL_STATUS);
    return rc;
}

int tun_fail(rx_tunnel *t)
{
    if (t->flags & TF_DEAD)
        return 0;
    char text[RX_TEXT_MAX];
    snprintf(text, sizeof(text), "%s", err_msg());
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED_RECOVER, .data_state = RWF_DATA_SUSPECT};
    st.text = rwf_buf_cstr(text);
    if (t->state > TS_SEND_REQUEST)
        send_close(t, &st);
    return tun_end(t, &st);
}

/* ---- consumer: request, refresh, status, authentication -------------------------------------- */

static int send_request(rx_tunnel *t)
{
    uint8_t buf[TUN_MSG_MAX];
    uint32_t len;
    if (tun_enc_request(t, t->stream_version, t->ch->role.watchlist, buf, sizeof(buf), &len) != 0)
        return -1;
    int rc = stream_msg(t, buf, len, true);
    if (rc != 0) {
        if (rc == TUN_BUSY)
            t->needs_dispatch = true;
        return rc < 0 ? -1 : 0;
    }
    t->state = TS_WAIT_REFRESH;
    tun_timer(t, t->response_timeout_ms);
    return 0;
}

/* The encoded login request sent inside for OMM-login authentication. */
static int auth_prepare(rx_tunnel *t, const rwf_login *l)
{
    rx_chan *ch = t->ch;
    if (l) {
        rwf_enc e;
        rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
        size_t n;
        if (rwf_rdm_login_request(&e, l) < 0 || rwf_enc_finish(&e, &n) != RWF_OK)
            return err_push("encoding the tunnel's login request");
        if (!(t->auth_login = malloc(n)))
            return err_set("out of memory");
        memcpy(t->auth_login, ch->r->scratch, n);
        t->auth_len = (uint32_t)n;
        t->auth_stream = l->stream_id;
        return 0;
    }
    if (!ch->a.login_req)
        return err_set("authentication requested but there is no login request to send");
    if (!(t->auth_login = malloc(ch->a.login_len)))
        return err_set("out of memory");
    memcpy(t->auth_login, ch->a.login_req, ch->a.login_len);
    t->auth_len = ch->a.login_len;
    t->auth_stream = (int32_t)rwf_rd32(t->auth_login + 4);
    return 0;
}

int rx_tunnel_open(rx_chan *ch, const rx_tunnel_opts *o, rx_tunnel **out)
{
    if (ch->role.kind != RX_ROLE_CONSUMER)
        return err_set("tunnel streams are opened by consumers");
    if (!ch->role.watchlist && ch->a.state != RXA_UP)
        return err_set("the channel is down");
    if (o->stream_id <= 0 || (ch->role.watchlist && o->stream_id <= 2))
        return err_set("tunnel stream id %d is not allowed", (int)o->stream_id);
    if (find(ch, o->stream_id, o->domain))
        return err_set("tunnel stream %d is already open", (int)o->stream_id);
    rx_tunnel *t = tun_new(ch, o, o->stream_id, o->name ? o->name : "");
    if (!t)
        return -1;
    if (ch->role.watchlist)
        t->wire_id = 0; /* the watchlist's choice, known with the refresh */
    if (t->cos.auth_type == RX_COS_AU_OMM_LOGIN && auth_prepare(t, o->auth_login) != 0) {
        tun_mark_dead(t);
        t->flags &= ~(unsigned)TF_ACTIVE;
        return -1;
    }
    t->state = TS_SEND_REQUEST;
    if (send_request(t) != 0) {
        tun_mark_dead(t);
        t->flags &= ~(unsigned)TF_ACTIVE;
        return err_push("sending the tunnel stream request");
    }
    *out = t;
    return 0;
}

/* The refresh's class of service checked and taken; the window set. */
static int take_cos(rx_tunnel *t, const rwf_msg *m)
{
    int64_t send_window = RX_TUNNEL_RECV_WINDOW;
    if (m->container_type == RWF_DT_FILTER_LIST) {
        rx_cos c;
        unsigned v;
        if (rx_cos_decode(m->payload, &c, &v) != 0)
            return err_push("tunnel stream refresh");
        if (v > RX_TUNNEL_STREAM_VERSION)
            return err_set("Negotiated tunnel stream version %u is unknown", v);
        if (c.data_integrity == RX_COS_DI_BEST_EFFORT)
            return err_set("Negotiated ClassOfService.dataIntegrity.type of best effort is not "
                           "supported in this version.");
        t->stream_version = v;
        t->cos = c;
        send_window = c.recv_window >= 0 ? c.recv_window : RX_TUNNEL_RECV_WINDOW;
    }
    if (send_window < (int64_t)t->cos.max_fragment_size)
        send_window = (int64_t)t->cos.max_fragment_size;
    t->send_window = send_window;
    if (t->ch->role.watchlist && !(t->wire_id = rx_wl_wire_id(t->ch, t->app_id)))
        return err_set("the watchlist has no wire stream for tunnel stream %d", (int)t->app_id);
    return tun_store_init(t);
}

static int on_refresh(rx_tunnel *t, const rwf_msg *m)
{
    if (m->state.stream_state != RWF_STREAM_OPEN) {
        if (t->state == TS_WAIT_REFRESH)
            return tun_end(t, &m->state);
        return 0;
    }
    if (t->state != TS_WAIT_REFRESH || m->state.data_state != RWF_DATA_OK)
        return 0;
    if (take_cos(t, m) != 0)
        return tun_fail(t);
    if (t->cos.auth_type == RX_COS_AU_OMM_LOGIN) {
        if (!t->auth_login && auth_prepare(t, NULL) != 0)
            return tun_fail(t);
        t->state = TS_SEND_AUTH;
        if (tun_queue_bytes(t, t->auth_login, t->auth_len, true) != 0)
            return tun_fail(t);
        t->state = TS_WAIT_AUTH;
        tun_timer(t, t->response_timeout_ms);
        return tun_transmit(t) < 0 ? tun_fail(t) : 0;
    }
    t->response_at = 0;
    t->state = TS_OPEN;
    return tun_status(t, &m->state, NULL);
}

int tun_on_auth(rx_tunnel *t, const rwf_msg *m)
{
    rwf_login l;
    if (rwf_rdm_login_decode(m, &l) != RWF_OK) {
        err_push("the tunnel's login answer");
        return tun_fail(t);
    }
    if (m->msg_class != RWF_MC_REFRESH && m->msg_class != RWF_MC_STATUS)
        return 0;
    rwf_state st = l.state;
    if (m->msg_class == RWF_MC_STATUS && !(l.flags & RWF_LOGIN_HAS_STATE))
        return 0;
    if (st.stream_state == RWF_STREAM_OPEN && st.data_state == RWF_DATA_OK) {
        if (t->state != TS_WAIT_AUTH)
            return 0;
        t->state = TS_OPEN;
        t->response_at = 0;
        return tun_status(t, &st, &l);
    }
    /* The login was refused or closed: the tunnel closes gracefully. */
    st.stream_state = RWF_STREAM_OPEN;
    st.data_state = RWF_DATA_SUSPECT;
    if (t->state < TS_SEND_FIN) {
        t->state = TS_SEND_FIN;
        t->fin_tries = 0;
        t->flags |= TF_STARTED_CLOSE;
    }
    t->needs_dispatch = true;
    return tun_status(t, &st, &l);
}

static int on_status_msg(rx_tunnel *t, const rwf_msg *m)
{
    if (!(t->flags & TF_PROVIDER) && t->state == TS_WAIT_REFRESH && t->retries < 1 &&
        t->stream_version > 1) {
        /* Retried once with the previous stream version, on a new request. */
        t->retries++;
        t->stream_version--;
        t->state = TS_SEND_REQUEST;
        t->needs_dispatch = true;
        t->response_at = 0;
        return 0;
    }
    if (!(m->flags & RWF_STMF_HAS_STATE) || m->state.stream_state == RWF_STREAM_OPEN)
        return 0;
    return tun_end(t, &m->state);
}

/* ---- routing --------------------------------------------------------------------------------- */

int rx_tun_route(rx_chan *ch, const rwf_msg *m)
{
    rx_tunnel *t = find(ch, m->stream_id, m->domain);
    if (!t) {
        if (ch->role.kind == RX_ROLE_PROVIDER && m->msg_class == RWF_MC_REQUEST &&
            (m->flags & RWF_RQMF_QUALIFIED_STREAM) && ch->role.cb.on_tunnel_request)
            return tun_on_request(ch, m);
        return RX_TUN_PASS;
    }
    if (t->flags & TF_DEAD)
        return 0; /* late messages of an ended tunnel */
    switch (m->msg_class) {
    case RWF_MC_GENERIC:
        return tun_on_generic(t, m);
    case RWF_MC_REFRESH:
        return (t->flags & TF_PROVIDER) ? 0 : on_refresh(t, m);
    case RWF_MC_STATUS:
        return on_status_msg(t, m);
    case RWF_MC_CLOSE: {
        rwf_state st = {.stream_state = RWF_STREAM_CLOSED, .data_state = RWF_DATA_SUSPECT};
        st.text = RWF_STR("Received a close message from the remote end.");
        return tun_end(t, &st);
    }
    default:
        return 0; /* a request again on an open tunnel, an ack...: nothing to do */
    }
}

int rx_tun_down(rx_chan *ch)
{
    if (!ch->a.tun)
        return 0;
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED, .data_state = RWF_DATA_SUSPECT};
    st.text = RWF_STR("Channel was closed.");
    int rc = 0;
    for (rx_tunnel *t = ch->a.tun->list; t && rc >= 0 && !ch->a.closed_by_app; t = t->next)
        if (!(t->flags & TF_DEAD))
            rc = tun_end(t, &st);
    return rc;
}

/* ---- closing ----------------------------------------------------------------------------------
 */

int rx_tunnel_close(rx_tunnel *t, bool final_status)
{
    if (!(t->flags & TF_ACTIVE) || (t->flags & TF_DEAD))
        return 0;
    t->flags &= ~(unsigned)TF_ACTIVE;
    if (final_status)
        t->flags |= TF_FINAL_STATUS;
    switch (t->state) {
    case TS_SEND_REQUEST:
        tun_mark_dead(t);
        break;
    case TS_WAIT_REFRESH:
    case TS_SEND_REFRESH: {
        rwf_state st = {.stream_state = RWF_STREAM_CLOSED, .data_state = RWF_DATA_SUSPECT};
        st.text = RWF_STR("Provider closing stream.");
        send_close(t, &st);
        tun_mark_dead(t);
        break;
    }
    case TS_SEND_AUTH:
    case TS_WAIT_AUTH:
    case TS_OPEN:
        t->state = TS_SEND_FIN;
        t->fin_tries = 0;
        t->flags |= TF_STARTED_CLOSE;
        t->response_at = 0;
        t->needs_dispatch = true;
        break;
    default:
        break; /* already closing */
    }
    return 0;
}

/* The final close message of the handshake, then the end. */
static int final_close(rx_tunnel *t)
{
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED_RECOVER, .data_state = RWF_DATA_OK};
    st.text = RWF_STR("Provider closing stream.");
    if (send_close(t, &st) != 0)
        return tun_fail(t);
    rwf_state ev = {.stream_state =
                        (t->flags & TF_PROVIDER) ? RWF_STREAM_CLOSED : RWF_STREAM_CLOSED_RECOVER,
                    .data_state = RWF_DATA_SUSPECT};
    ev.text = RWF_STR("Sent final closing message for this tunnel stream.");
    return tun_end(t, &ev);
}

/* ---- the pass at the end of dispatch ----------------------------------------------------------
 */

static int on_timeout(rx_tunnel *t)
{
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED_RECOVER,
                    .data_state = RWF_DATA_SUSPECT,
                    .code = RWF_SC_TIMEOUT};
    t->response_at = 0;
    switch (t->state) {
    case TS_WAIT_REFRESH:
        st.text = RWF_STR("Timed out waiting for provider response.");
        send_close(t, &st);
        return tun_end(t, &st);
    case TS_WAIT_AUTH:
        st.text = RWF_STR("Timed out waiting for provider authentication response.");
        send_close(t, &st);
        return tun_end(t, &st);
    case TS_WAIT_FIN:
    case TS_WAIT_ACK_OF_FIN:
        if (t->fin_tries <= TUN_FIN_RETRIES) {
            for (tun_rec *r = t->head; r && r != t->unsent; r = r->next)
                if ((r->flags & TR_FIN) && !(r->flags & (TR_RETX | TR_ACKED))) {
                    r->flags |= TR_RETX;
                    t->retx_pending++;
                }
            tun_fin_timer(t);
        } else {
            t->state = TS_SEND_CLOSE; /* give up and send the close */
        }
        t->needs_dispatch = true;
        return 0;
    case TS_WAIT_CLOSE:
        st.stream_state = RWF_STREAM_CLOSED;
        st.code = RWF_SC_NONE;
        st.text = RWF_STR("Timed out waiting for the final close message.");
        return tun_end(t, &st);
    default:
        return 0;
    }
}

/* The state's work for one pass. */
static int step(rx_tunnel *t)
{
    switch (t->state) {
    case TS_SEND_REQUEST:
        return send_request(t) < 0 ? tun_fail(t) : 0;
    case TS_SEND_REFRESH: {
        uint8_t buf[TUN_MSG_MAX];
        uint32_t len;
        if (tun_enc_refresh(t, buf, sizeof(buf), &len) != 0)
            return tun_fail(t);
        int rc = tun_chan_write(t, buf, len);
        if (rc != 0)
            return rc < 0 ? tun_fail(t) : (t->needs_dispatch = true, 0);
        t->state = TS_OPEN;
        rwf_state st = {.stream_state = RWF_STREAM_OPEN, .data_state = RWF_DATA_OK};
        st.text = RWF_STR("Tunnel stream established.");
        return tun_status(t, &st, NULL);
    }
    case TS_SEND_FIN:
        if (tun_queue_fin(t) != 0)
            return tun_fail(t);
        t->state = TS_WAIT_ACK_OF_FIN;
        tun_fin_timer(t);
        return 0;
    case TS_SEND_ACK_OF_FIN: {
        int rc = tun_send_ack(t, false, 0);
        if (rc < 0)
            return tun_fail(t);
        if (rc) {
            t->needs_dispatch = true;
            return 0;
        }
        t->flags |= TF_SENT_ACK_OF_FIN;
        if (t->flags & TF_STARTED_CLOSE) {
            t->state = TS_SEND_CLOSE;
            return final_close(t);
        }
        t->state = TS_WAIT_CLOSE;
        tun_fin_timer(t);
        return 0;
    }
    case TS_SEND_CLOSE:
        return final_close(t);
    default:
        return 0;
    }
}

/* Acks what was accepted since the last ack (with a NAK range after a gap), then sends. */
static int ack_and_send(rx_tunnel *t)
{
    if (t->state < TS_SEND_AUTH || t->state == TS_SEND_REFRESH || t->state >= TS_CLOSED)
        return 0;
    bool nak = (t->flags & TF_SEND_NAK) && tun_seq_diff(t->in_highest, t->in_accepted) > 0;
    if (tun_seq_diff(t->in_accepted, t->in_acked) > 0 || nak) {
        int rc = tun_send_ack(t, false, 0);
        if (rc < 0)
            return tun_fail(t);
        if (rc == TUN_BUSY) {
            t->needs_dispatch = true;
            return 0;
        }
    }
    return tun_transmit(t) < 0 ? tun_fail(t) : 0;
}

int rx_tun_dispatch(rx_chan *ch, int64_t now)
{
    rx_tun_set *set = ch->a.tun;
    if (!set)
        return 0;
    int64_t ms = now / 1000000;
    int rc = 0;
    for (rx_tunnel *t = set->list; t && rc >= 0 && !ch->a.closed_by_app; t = t->next) {
        if (t->flags & TF_DEAD)
            continue;
        t->needs_dispatch = false;
        if (t->response_at && t->response_at <= ms)
            rc = on_timeout(t);
        if (rc >= 0 && !(t->flags & TF_DEAD))
            rc = step(t);
        if (rc >= 0 && !(t->flags & TF_DEAD))
            rc = ack_and_send(t);
    }
    for (rx_tunnel **pp = &set->list; *pp;) {
        rx_tunnel *t = *pp;
        if (t->flags & TF_DEAD) {
            *pp = t->next;
            tun_free(t);
        } else {
            pp = &t->next;
        }
    }
    return rc;
}

int64_t rx_tun_next_timer(const rx_chan *ch)
{
    if (!ch->a.tun)
        return INT64_MAX;
    int64_t due = INT64_MAX;
    for (const rx_tunnel *t = ch->a.tun->list; t; t = t->next) {
        if (t->needs_dispatch || (t->flags & TF_DEAD))
            return 0;
        if (t->response_at && t->response_at * 1000000 < due)
            due = t->response_at * 1000000;
    }
    return due;
}
