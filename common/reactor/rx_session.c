/*
 * rx_session: what the layer does by itself on a channel, per role, in the application thread.
 *
 *   consumer      UP -> login request (stream 1) -> login refresh Open -> directory request
 *                 (stream 2, the role's filter) -> directory refresh -> [RWFFld on stream 3 and
 *                 RWFEnum on stream 4 to the first service that provides both, verbosity
 *                 NORMAL -> both complete] -> READY. After a reconnect the same again.
 *   watchlist     rx_wl.c (READY at once; login and directory as above with filter 0x3F).
 *   NI provider   UP -> login request -> login refresh Open -> the directory refresh -> READY.
 *   provider      UP -> READY; messages are routed to the callbacks by domain.
 * Messages of the admin domains go to on_login / on_directory / on_dictionary (decoded),
 * everything else to on_msg.
 */
#include "rx_int.h"
#include "rx_tun_int.h"
#include "rx_wl.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RX_MAX_SERVICES 64
#define RX_LOGIN_STREAM 1
#define RX_DIRECTORY_STREAM 2
#define RX_FIELD_DICT_STREAM 3
#define RX_ENUM_DICT_STREAM 4

/* ---- preparing ------------------------------------------------------------------------------ */

typedef int (*enc_fn)(rwf_enc *e, const void *arg);

static int enc_login(rwf_enc *e, const void *arg)
{
    return rwf_rdm_login_request(e, arg);
}

static int enc_dir_refresh(rwf_enc *e, const void *arg)
{
    return rwf_rdm_directory_refresh(e, arg);
}

/* Encodes with fn into a new heap block (*out, *len). */
static int encode_copy(rx_chan *ch, enc_fn fn, const void *arg, uint8_t **out, uint32_t *len)
{
    rwf_enc e;
    rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
    size_t n;
    if (fn(&e, arg) < 0 || rwf_enc_finish(&e, &n) != RWF_OK)
        return -1;
    if (!(*out = malloc(n)))
        return err_set("out of memory");
    memcpy(*out, ch->r->scratch, n);
    *len = (uint32_t)n;
    return 0;
}

int rx_session_prepare(rx_chan *ch, const rx_role *role)
{
    rx_aside *a = &ch->a;
    if (role->login && encode_copy(ch, enc_login, role->login, &a->login_req, &a->login_len) != 0)
        return err_push("encoding the login request");
    if (role->kind == RX_ROLE_NIPROVIDER && role->directory_refresh &&
        encode_copy(ch, enc_dir_refresh, role->directory_refresh, &a->dir_refresh,
                    &a->dir_refresh_len) != 0)
        return err_push("encoding the directory refresh");
    if (role->kind == RX_ROLE_CONSUMER && !(a->svc = calloc(RX_MAX_SERVICES, sizeof(*a->svc))))
        return err_set("out of memory for the directory");
    if (role->wsb_mode && (role->kind != RX_ROLE_CONSUMER || !role->watchlist))
        return err_set("warm standby needs a consumer channel with the watchlist");
    ch->a.wsb_standby = role->wsb_standby;
    if (role->kind == RX_ROLE_CONSUMER && role->watchlist && rx_wl_new(ch) != 0)
        return -1;
    return 0;
}

void rx_session_free(rx_chan *ch)
{
    rx_tun_free_all(ch);
    rx_wl_free(ch);
    free(ch->a.login_req);
    free(ch->a.dir_refresh);
    free(ch->a.svc);
    ch->a.login_req = ch->a.dir_refresh = NULL;
    ch->a.svc = NULL;
}

/* ---- helpers --------------------------------------------------------------------------------- */

static int ready(rx_chan *ch)
{
    ch->a.sess = RXS_READY;
    if (!ch->role.cb.on_channel)
        return 0;
    return ch->role.cb.on_channel(ch, RX_CHANNEL_READY, NULL);
}

/* Sends a message the layer must send; a full ring is an error of the layer's sizing (the
 * ring is empty at this point of a session unless the tool flooded it). */
static int send_bytes(rx_chan *ch, const uint8_t *data, uint32_t len, const char *what)
{
    int rc = rx_out_bytes(ch, data, len);
    if (rc < 0)
        return err_push("sending the %s", what);
    rx_chan_publish(ch);
    return 0;
}

int rx_deliver_msg(rx_chan *ch, const rwf_msg *m)
{
    const rx_callbacks *cb = &ch->role.cb;
    if (__builtin_expect(ch->a.tun != NULL, 0) ||
        (cb->on_tunnel_request && m->msg_class == RWF_MC_REQUEST)) {
        int rc = rx_tun_route(ch, m);
        if (rc != RX_TUN_PASS)
            return rc;
    }
    switch (m->domain) {
    case RWF_DMT_LOGIN:
        if (cb->on_login) {
            rwf_login l;
            bool ok = rwf_rdm_login_decode(m, &l) == RWF_OK;
            return cb->on_login(ch, m, ok ? &l : NULL);
        }
        break;
    case RWF_DMT_SOURCE:
        if (cb->on_directory) {
            unsigned n = 0;
            const rwf_service *svc = NULL;
            if (ch->a.svc && (m->msg_class == RWF_MC_REFRESH || m->msg_class == RWF_MC_UPDATE) &&
                rwf_rdm_directory_decode(m, ch->a.svc, RX_MAX_SERVICES, &n) == RWF_OK)
                svc = ch->a.svc;
            return cb->on_directory(ch, m, svc, svc ? n : 0);
        }
        break;
    case RWF_DMT_DICTIONARY:
        if (cb->on_dictionary)
            return cb->on_dictionary(ch, m);
        break;
    default:
        break;
    }
    return cb->on_msg ? cb->on_msg(ch, m) : 0;
}

/* ---- consumer without watchlist ------------------------------------------------------------- */

static int send_directory_request(rx_chan *ch, uint32_t filter)
{
    rwf_enc e;
    rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
    size_t n;
    if (rwf_rdm_directory_request(&e, RX_DIRECTORY_STREAM, filter, 0, 0) < 0 ||
        rwf_enc_finish(&e, &n) != RWF_OK)
        return err_push("encoding the directory request");
    ch->a.sess = RXS_DIRECTORY;
    return send_bytes(ch, ch->r->scratch, (uint32_t)n, "directory request");
}

static int send_dict_request(rx_chan *ch, int32_t stream, uint16_t service, const char *name)
{
    rwf_enc e;
    rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
    size_t n;
    if (rwf_rdm_dictionary_request(&e, stream, service, rwf_buf_cstr(name), RWF_DICT_NORMAL) < 0 ||
        rwf_enc_finish(&e, &n) != RWF_OK)
        return err_push("encoding the dictionary request");
    return send_bytes(ch, ch->r->scratch, (uint32_t)n, "dictionary request");
}

/* True when the service lists dictionary `name` among those it provides. */
static bool provides(const rwf_service *s, const char *name)
{
    for (unsigned i = 0; i < s->dicts_provided_count; i++)
        if (rwf_buf_eq_cstr(s->dicts_provided[i], name))
            return true;
    return false;
}

/* After a directory message: the dictionary requests, or READY. */
static int after_directory(rx_chan *ch, const rwf_msg *m)
{
    if (m->msg_class != RWF_MC_REFRESH && m->msg_class != RWF_MC_UPDATE)
        return 0;
    if (!ch->role.dictionary_download || ch->a.dict_have == 3)
        return ready(ch);
    unsigned n = 0;
    if (rwf_rdm_directory_decode(m, ch->a.svc, RX_MAX_SERVICES, &n) != RWF_OK)
        return 0; /* the tool was told (on_directory got no services) */
    for (unsigned i = 0; i < n; i++) {
        const rwf_service *s = &ch->a.svc[i];
        if (!provides(s, "RWFFld") || !provides(s, "RWFEnum"))
            continue;
        ch->a.sess = RXS_DICTIONARY;
        ch->a.dict_service = s->id;
        if (send_dict_request(ch, RX_FIELD_DICT_STREAM, s->id, "RWFFld") != 0 ||
            send_dict_request(ch, RX_ENUM_DICT_STREAM, s->id, "RWFEnum") != 0)
            return -1;
        return 0;
    }
    return 0; /* no service provides them yet: wait for a directory update */
}

static int consumer_msg(rx_chan *ch, const rwf_msg *m)
{
    int rc = rx_deliver_msg(ch, m);
    if (rc < 0 || ch->a.closed_by_app || ch->a.state != RXA_UP)
        return rc;
    rx_aside *a = &ch->a;
    if (m->domain == RWF_DMT_LOGIN && a->sess == RXS_LOGIN && m->msg_class == RWF_MC_REFRESH &&
        m->state.stream_state == RWF_STREAM_OPEN) {
        if (!ch->role.directory)
            return ready(ch);
        return send_directory_request(ch, ch->role.directory_filter);
    }
    if (m->domain == RWF_DMT_SOURCE && a->sess == RXS_DIRECTORY &&
        m->stream_id == RX_DIRECTORY_STREAM)
        return after_directory(ch, m);
    if (m->domain == RWF_DMT_DICTIONARY && a->sess == RXS_DICTIONARY &&
        m->msg_class == RWF_MC_REFRESH && (m->flags & RWF_RFMF_REFRESH_COMPLETE)) {
        if (m->stream_id == RX_FIELD_DICT_STREAM)
            a->dict_have |= 1;
        else if (m->stream_id == RX_ENUM_DICT_STREAM)
            a->dict_have |= 2;
        if (a->dict_have == 3)
            return ready(ch);
    }
    return 0;
}

/* ---- non-interactive provider -----------------------------------------------------------------
 */

static int niprov_msg(rx_chan *ch, const rwf_msg *m)
{
    int rc = rx_deliver_msg(ch, m);
    if (rc < 0 || ch->a.closed_by_app || ch->a.state != RXA_UP)
        return rc;
    if (m->domain != RWF_DMT_LOGIN || ch->a.sess != RXS_LOGIN || m->msg_class != RWF_MC_REFRESH ||
        m->state.stream_state != RWF_STREAM_OPEN)
        return 0;
    if (ch->a.dir_refresh &&
        send_bytes(ch, ch->a.dir_refresh, ch->a.dir_refresh_len, "directory refresh") != 0)
        return -1;
    return ready(ch);
}

/* ---- entry points ------------------------------------------------------------------------------
 */

int rx_session_up(rx_chan *ch)
{
    rx_aside *a = &ch->a;
    a->dict_have = 0;
    if (ch->role.kind == RX_ROLE_PROVIDER)
        return ready(ch);
    if (ch->role.watchlist)
        return rx_wl_up(ch);
    if (!a->login_req)
        return ready(ch);
    a->sess = RXS_LOGIN;
    return send_bytes(ch, a->login_req, a->login_len, "login request");
}

int rx_session_down(rx_chan *ch, bool reconnecting, const char *why)
{
    ch->a.sess = RXS_NONE;
    if (ch->role.watchlist)
        return rx_wl_down(ch, reconnecting, why);
    return 0;
}

int rx_session_msg(rx_chan *ch, rwf_msg *m)
{
    switch (ch->role.kind) {
    case RX_ROLE_PROVIDER:
        return rx_deliver_msg(ch, m);
    case RX_ROLE_NIPROVIDER:
        return niprov_msg(ch, m);
    default:
        return ch->role.watchlist ? rx_wl_msg(ch, m) : consumer_msg(ch, m);
    }
}

int rx_session_timers(rx_chan *ch, int64_t now)
{
    int rc = ch->role.watchlist ? rx_wl_timers(ch, now) : 0;
    if (rc >= 0 && ch->a.tun && !ch->a.closed_by_app)
        rc = rx_tun_dispatch(ch, now);
    return rc;
}

int64_t rx_session_next_timer(rx_chan *ch)
{
    int64_t t = ch->role.watchlist ? rx_wl_next_timer(ch) : INT64_MAX;
    if (ch->a.tun) {
        int64_t u = rx_tun_next_timer(ch);
        if (u < t)
            t = u;
    }
    return t;
}

int rx_session_submit(rx_chan *ch, rx_buf *b, unsigned flags)
{
    return rx_wl_submit(ch, b, flags);
}
