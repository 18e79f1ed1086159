/*
 * rx_tun_prov: the provider's side of tunnel stream requests (docs/wire.md#tunnel-streams): what
 * the layer refuses by itself (a request without its key members, a class of service it cannot
 * read, an unknown stream version, a request the tool left unanswered; each with the original's
 * texts), and the tool's accept and reject.
 */
#include "rx_tun_int.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

#define TUN_MSG_MAX 1024

/* ---- provider: requests ---------------------------------------------------------------------- */

/* Rejects a request the layer cannot take, telling the tool with a channel warning. */
static int auto_reject(rx_tunnel_request *req, const char *warning, const char *text)
{
    rx_chan *ch = req->ch;
    int rc = 0;
    if (ch->role.cb.on_channel)
        rc = ch->role.cb.on_channel(ch, RX_CHANNEL_WARNING, warning);
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED, .data_state = RWF_DATA_SUSPECT};
    st.text = rwf_buf_cstr(text);
    if (rx_tunnel_reject(req, &st, NULL) != 0)
        return -1;
    return rc;
}

int tun_on_request(rx_chan *ch, const rwf_msg *m)
{
    rx_tunnel_request req;
    memset(&req, 0, sizeof(req));
    req.ch = ch;
    req.stream_id = m->stream_id;
    req.domain = m->domain;
    req.stream_version = RX_TUNNEL_STREAM_VERSION;
    if (!(m->key.flags & RWF_MKF_HAS_FILTER))
        return auto_reject(&req,
                           "Rejected a consumer's tunnel stream due to missing msgKey.filter.",
                           "Request is missing msgKey.filter");
    req.cos_filter = m->key.filter;
    if (!(m->key.flags & RWF_MKF_HAS_SERVICE_ID))
        return auto_reject(&req,
                           "Rejected a consumer's tunnel stream due to missing msgKey.serviceId.",
                           "Request is missing msgKey.serviceId");
    req.service_id = m->key.service_id;
    if (!(m->key.flags & RWF_MKF_HAS_NAME))
        return auto_reject(&req, "Rejected a consumer's tunnel stream due to missing msgKey.name.",
                           "Request is missing msgKey.name");
    snprintf(req.name, sizeof(req.name), "%.*s", (int)m->key.name.len, m->key.name.data);
    if (m->container_type == RWF_DT_FILTER_LIST) {
        rx_cos c;
        unsigned v;
        req.cos = m->payload;
        if (rx_cos_decode(m->payload, &c, &v) != 0)
            return auto_reject(&req,
                               "Rejected a consumer's tunnel stream due to failure to get the "
                               "stream version.",
                               "Failed to decode ClassOfService filter list.");
        if (v > RX_TUNNEL_STREAM_VERSION) /* the original's text, its last character cut */
            return auto_reject(&req,
                               "Rejected a consumer's tunnel stream due to an unrecognized stream "
                               "version.",
                               "Unknown stream version requested");
        req.stream_version = v;
    }
    int rc = ch->role.cb.on_tunnel_request(ch, &req);
    if (rc < 0 || req.answered)
        return rc;
    return auto_reject(&req,
                       "A tunnel stream request was not accepted or rejected within the listener "
                       "callback.",
                       "Provider did not accept or reject this stream.");
}

int rx_tunnel_request_cos(const rx_tunnel_request *req, rx_cos *out)
{
    if (!req->cos.len) {
        rx_cos_init(out);
        return 0;
    }
    return rx_cos_decode(req->cos, out, NULL);
}

int rx_tunnel_reject(rx_tunnel_request *req, const rwf_state *st, const rx_cos *expected)
{
    if (req->answered)
        return err_set("tunnel stream request %d was already answered", (int)req->stream_id);
    if (st->stream_state == RWF_STREAM_OPEN)
        return err_set("an open stream state cannot reject a tunnel stream");
    req->answered = 1;
    uint8_t buf[TUN_MSG_MAX];
    uint32_t len;
    rx_cos c;
    if (expected) {
        c = *expected;
        if (c.flow_control != RX_COS_FC_NONE && c.recv_window < 0)
            c.recv_window = RX_TUNNEL_RECV_WINDOW;
    }
    if (tun_enc_status(req->stream_id, req->domain, st, req->name, req->service_id,
                       expected ? &c : NULL, req->stream_version, buf, sizeof(buf), &len) != 0)
        return -1;
    return rx_out_bytes(req->ch, buf, len) < 0 ? err_push("sending the tunnel stream reject") : 0;
}

int rx_tunnel_accept(rx_tunnel_request *req, const rx_tunnel_opts *o, rx_tunnel **out)
{
    if (req->answered)
        return err_set("tunnel stream request %d was already answered", (int)req->stream_id);
    if (o->cos.data_integrity != RX_COS_DI_RELIABLE)
        return err_set("a tunnel stream is accepted with reliable data integrity only");
    if (o->cos.guarantee != RX_COS_GU_NONE)
        return err_set("persistent-queue tunnel streams are not supported by a provider");
    rx_cos asked;
    if (rx_tunnel_request_cos(req, &asked) != 0)
        return -1;
    rx_tunnel *t = tun_new(req->ch, o, req->stream_id, req->name);
    if (!t)
        return -1;
    req->answered = 1;
    t->flags |= TF_PROVIDER;
    t->domain = req->domain;
    t->service_id = req->service_id;
    t->stream_version = req->stream_version < RX_TUNNEL_STREAM_VERSION ? req->stream_version
                                                                       : RX_TUNNEL_STREAM_VERSION;
    int64_t w = asked.recv_window >= 0 ? asked.recv_window : RX_TUNNEL_RECV_WINDOW;
    t->send_window = w < (int64_t)t->cos.max_fragment_size ? (int64_t)t->cos.max_fragment_size : w;
    if (tun_store_init(t) != 0) {
        tun_mark_dead(t);
        return -1;
    }
    t->state = TS_SEND_REFRESH;
    t->needs_dispatch = true;
    *out = t;
    return 0;
}
