/*
 * ProvPerf -reactor: a consumer's tunnel stream (docs/modes.md#tunnel-streams,
 * docs/wire.md#tunnel-streams).
 *
 * A tunnel request is checked as the ETA ProvPerf checks it (RWF, major version 14, no or
 * OMM-login authentication, bidirectional flow control, no guarantee; one tunnel per consumer)
 * and accepted with the asked authentication, bidirectional flow control, reliable integrity and
 * the lower of the two minor versions, or rejected (a class of service it cannot serve:
 * Redirected/Suspect with the one it expects). Once open, every item message of the session
 * (refreshes, updates, reflected posts, generic messages) is written inside it, one message per
 * tunnel buffer; the item requests, posts and generic messages the consumer sends inside reach
 * the same handlers as on the channel. With authentication the first message inside must be the
 * consumer's login, answered with "Tunnel login accepted.". The console lines are the original's.
 */
#include "prov.h"

#include "err.h"
#include "rx_tunnel.h"

#include <stdio.h>
#include <string.h>

/* Room for the login refresh sent inside the tunnel. */
#define PROV_TUN_LOGIN_ROOM 1024

/* After each write inside the tunnel: its buffer count (-tunnelStreamBuffersUsed). */
static void sample(void *arg)
{
    pv_sess *s = arg;
    prov_thread *th = s->tool;
    if (!th->app->cfg.pv.opts.tunnel_bufs_used || !s->tun)
        return;
    rx_tunnel_info in;
    rx_tunnel_get_info(s->tun, &in);
    lat_record(&latbuf_cur(&th->pv.stats.lat)[PV_LAT_TUNNEL_BUFS], (int64_t)in.buffers_used * 1000);
}

/* The session's item traffic goes back to the channel. */
static void to_channel(pv_sess *s)
{
    const prov_config *cfg = &((prov_thread *)s->tool)->app->cfg;
    if (s->tun_open)
        run_out_init_rx(&s->out, s->rx, (uint32_t)cfg->pv.max_pack_count,
                        (uint32_t)cfg->pv.pack_buf_size,
                        cfg->pv.opts.direct_write ? TP_WRITE_DIRECT : 0);
    s->tun = NULL;
    s->tun_open = false;
    s->tun_auth_wait = false;
}

void prov_tun_forget(pv_sess *s)
{
    s->tun = NULL;
    s->tun_open = false;
}

static int on_status(rx_tunnel *t, const rwf_state *st, const rwf_login *auth)
{
    pv_sess *s = rx_tunnel_user(t);
    switch (rx_tunnel_status_print(t, st, auth, s->tun_open)) {
    case RX_TUNNEL_OPENED:
        run_out_close(&s->out); /* what the channel's packing holds goes first */
        run_out_init_tunnel(&s->out, t, true, sample, s);
        s->tun_open = true;
        s->tun_auth_wait = rx_tunnel_cos(t)->auth_type != RX_COS_AU_NOT_REQUIRED;
        break;
    case RX_TUNNEL_CLOSED:
        to_channel(s);
        break;
    case RX_TUNNEL_SAME:
        break;
    }
    return 0;
}

/* The consumer's login inside the tunnel: answered with a refresh inside it. */
static int on_login(rx_tunnel *t, pv_sess *s, const rwf_msg *m)
{
    rwf_login in;
    if (rwf_rdm_login_decode(m, &in) != RWF_OK) {
        printf("rsslDecodeRDMLoginMsg() failed: %s\n", err_msg());
        return 0;
    }
    if (m->msg_class == RWF_MC_CLOSE) {
        printf("Received login close on tunnel stream(ID %d) with stream ID %d.\n",
               (int)rx_tunnel_stream_id(t), (int)m->stream_id);
        return 0;
    }
    if (m->msg_class != RWF_MC_REQUEST)
        return 0;
    printf("Received login request on tunnel stream(ID %d) with stream ID %d.\n",
           (int)rx_tunnel_stream_id(t), (int)m->stream_id);
    if (m->flags & RWF_RQMF_NO_REFRESH)
        return 0;
    rwf_login r;
    memset(&r, 0, sizeof(r));
    r.stream_id = m->stream_id;
    r.flags = RWF_LOGIN_SOLICITED | RWF_LOGIN_CLEAR_CACHE | RWF_LOGIN_HAS_APP_ID |
              RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_SINGLE_OPEN |
              (in.flags & RWF_LOGIN_HAS_NAME_TYPE);
    r.user = in.user;
    r.name_type = in.name_type;
    r.app_id = in.app_id;
    r.app_name = in.app_name;
    r.position = in.position;
    r.single_open = 0;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    r.state.text = RWF_STR("Tunnel login accepted.");
    rx_tbuf *b;
    if (rx_tunnel_get_buffer(t, PROV_TUN_LOGIN_ROOM, true, &b) != 0) {
        printf("rsslTunnelStreamGetBuffer failed: %s\n", err_msg());
        return 0;
    }
    rwf_enc e;
    rwf_enc_init(&e, b->data, b->len);
    size_t n;
    if (rwf_rdm_login_refresh(&e, &r) < 0 || rwf_enc_finish(&e, &n) != RWF_OK) {
        printf("rsslEncodeRDMLoginMsg(): Failed <%s>\n", err_msg());
        rx_tunnel_release(t, b);
        return 0;
    }
    b->len = (uint32_t)n;
    if (rx_tunnel_submit(t, b) != 0) {
        printf("rsslTunnelStreamSubmit(): Failed <%s>\n", err_msg());
        return 0;
    }
    printf("Sent response to tunnel login request.\n\n");
    s->tun_auth_wait = false;
    return 0;
}

static int on_msg(rx_tunnel *t, const rwf_msg *m)
{
    pv_sess *s = rx_tunnel_user(t);
    prov_thread *th = s->tool;
    if (m->domain == RWF_DMT_LOGIN)
        return on_login(t, s, m);
    if (s->tun_auth_wait) {
        printf("Received unhandled message in TunnelStream with stream ID %d, class %u(%s) and "
               "domainType %u\n\n",
               (int)m->stream_id, m->msg_class, rwf_msg_class_name(m->msg_class), m->domain);
        return 0;
    }
    if (prov_handle_msg(th, s, m) < 0) {
        run_channel_closed(stdout, err_msg());
        rx_close(s->rx); /* the session goes with its channel's next event */
    }
    return 0;
}

/* ProvPerf's checks of the class of service: NULL, or why it cannot be served. */
static const char *check_cos(const rx_cos *c)
{
    if (c->protocol_type != 0)
        return "This provider doesn't support this protocol type.";
    if (c->protocol_major != 14)
        return "This provider doesn't support this wire format major version.";
    if (c->auth_type != RX_COS_AU_NOT_REQUIRED && c->auth_type != RX_COS_AU_OMM_LOGIN)
        return "This provider doesn't support this type of authentication.";
    if (c->flow_control != RX_COS_FC_BIDIRECTIONAL)
        return "This provider requires bidirectional flow control.";
    if (c->guarantee != RX_COS_GU_NONE)
        return "This provider does not support guaranteed streams.";
    return NULL;
}

static int reject(rx_tunnel_request *req, const char *why, const rx_cos *asked)
{
    rwf_state st = {.stream_state = RWF_STREAM_CLOSED, .data_state = RWF_DATA_SUSPECT};
    st.text = rwf_buf_cstr(why);
    rx_cos expected;
    if (asked) {
        st.stream_state = RWF_STREAM_REDIRECTED;
        rx_cos_init(&expected);
        expected.auth_type = asked->auth_type;
        expected.flow_control = RX_COS_FC_BIDIRECTIONAL;
        expected.data_integrity = RX_COS_DI_RELIABLE;
    }
    if (rx_tunnel_reject(req, &st, asked ? &expected : NULL) != 0)
        printf("rsslReactorRejectTunnelStream() failed: %s\n", err_msg());
    return 0;
}

int prov_tun_request(rx_chan *ch, rx_tunnel_request *req)
{
    pv_sess *s = rx_user(ch);
    prov_thread *th = s->tool;
    printf("Received TunnelStream request on Stream ID %d.\n", (int)req->stream_id);
    fflush(stdout);
    if (s->tun)
        return reject(req, "Consumer already has a tunnel stream open.", NULL);
    rx_cos asked;
    if (rx_tunnel_request_cos(req, &asked) != 0) {
        printf("rsslTunnelStreamRequestGetCos failed: %s\n", err_msg());
        rx_cos_init(&asked);
        return reject(req, "Failed to decode class of service.", &asked);
    }
    const char *why = check_cos(&asked);
    if (why)
        return reject(req, why, &asked);
    rx_tunnel_opts o;
    rx_tunnel_opts_init(&o);
    o.cos.auth_type = asked.auth_type;
    o.cos.flow_control = RX_COS_FC_BIDIRECTIONAL;
    o.cos.data_integrity = RX_COS_DI_RELIABLE;
    if (asked.protocol_minor < o.cos.protocol_minor)
        o.cos.protocol_minor = asked.protocol_minor;
    o.guaranteed_output_buffers = (uint32_t)th->app->cfg.pv.opts.tunnel_output_bufs;
    o.cb.on_status = on_status;
    o.cb.on_msg = on_msg;
    o.user = s;
    if (rx_tunnel_accept(req, &o, &s->tun) != 0) {
        printf("rsslReactorAcceptTunnelStream() failed: %s\n", err_msg());
        s->tun = NULL;
    }
    return 0;
}
