/*
 * Helpers of the tunnel stream tests: a log of what a tunnel's callbacks saw, the messages of a
 * captured connection in time order (both directions), and a peer's raw tunnel messages.
 */
#ifndef RWFPERF_TUN_TESTUTIL_H
#define RWFPERF_TUN_TESTUTIL_H

#include "rx_testutil.h"
#include "rx_tun_int.h"
#include "rx_tunnel.h"

/* A consumer (the peer, client side) connected to a server whose accepted channel the reactor
 * runs as a provider with role and user. */
static inline void tx_peer_connect_provider(tx_peer *p, rx_reactor *r, const rx_role *role,
                                            void *user, rx_chan **out)
{
    tp_opts so;
    tp_opts_init(&so);
    so.interface = "127.0.0.1";
    so.port = "0";
    tp_server *srv;
    if (tp_bind(&so, &srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(srv));
    tp_opts co;
    tp_opts_init(&co);
    co.host = "127.0.0.1";
    co.port = port;
    memset(p, 0, sizeof(*p));
    p->r = r;
    if (tp_connect(&co, &p->ch) != 0)
        fail_msg("tp_connect: %s", err_msg());
    tp_channel *acc = NULL;
    int64_t end = tx_now_ms() + 3000;
    while (tp_accept(srv, &acc) == 0 && tx_now_ms() < end) {
        tp_init(p->ch);
        struct pollfd pf = {.fd = tp_server_fd(srv), .events = POLLIN};
        poll(&pf, 1, 5);
    }
    if (!acc)
        fail_msg("nothing accepted");
    if (rx_accept(r, acc, 0, 0, role, user, out) != 0)
        fail_msg("rx_accept: %s", err_msg());
    tp_server_close(srv);
    end = tx_now_ms() + 3000;
    int rc;
    while ((rc = tp_init(p->ch)) != TP_ACTIVE) {
        if (rc < 0 || tx_now_ms() > end)
            fail_msg("client handshake: %s", err_msg());
        tx_pump(r, 2);
    }
}

/* ---- what a tunnel's callbacks saw ------------------------------------------------------------
 */

typedef struct tt_status {
    uint8_t sstate, dstate, code;
    bool auth;
    char text[200];
} tt_status;

typedef struct tt_log {
    tt_status st[64];
    int nst;
    uint64_t msgs;        /* inner messages delivered */
    uint64_t by_class[9]; /* per message class */
    int32_t streams[64];  /* the inner stream ids of the first messages */
    uint32_t lens[64];    /* and their lengths */
    uint8_t last[70000];  /* the last inner message's bytes */
    uint32_t last_len;
    rx_tunnel *t;          /* the tunnel (cleared when it ends) */
    rx_tunnel_request req; /* provider: the last request seen (copied) */
    int requests;
    int (*on_request)(rx_chan *ch, rx_tunnel_request *req); /* provider: the answer */
    int echo; /* provider: inner posts/generics sent back (count) */
} tt_log;

static inline int tt_on_status(rx_tunnel *t, const rwf_state *st, const rwf_login *auth)
{
    tt_log *l = rx_tunnel_user(t);
    if (l->nst < 64) {
        tt_status *s = &l->st[l->nst++];
        s->sstate = st->stream_state;
        s->dstate = st->data_state;
        s->code = st->code;
        s->auth = auth != NULL;
        snprintf(s->text, sizeof(s->text), "%.*s", (int)st->text.len,
                 st->text.data ? st->text.data : "");
    }
    if (st->stream_state != RWF_STREAM_OPEN)
        l->t = NULL;
    return 0;
}

static inline int tt_on_msg(rx_tunnel *t, const rwf_msg *m)
{
    tt_log *l = rx_tunnel_user(t);
    if (l->msgs < 64) {
        l->streams[l->msgs] = m->stream_id;
        l->lens[l->msgs] = m->encoded.len;
    }
    l->msgs++;
    if (m->msg_class < 9)
        l->by_class[m->msg_class]++;
    if (m->encoded.len <= sizeof(l->last)) {
        memcpy(l->last, m->encoded.data, m->encoded.len);
        l->last_len = m->encoded.len;
    }
    if (l->echo && (m->msg_class == RWF_MC_POST || m->msg_class == RWF_MC_GENERIC)) {
        rx_tbuf *b;
        if (rx_tunnel_get_buffer(t, m->encoded.len, true, &b) == 0) {
            memcpy(b->data, m->encoded.data, m->encoded.len);
            b->len = m->encoded.len;
            if (rx_tunnel_submit(t, b) != 0)
                fail_msg("echo: %s", err_msg());
        }
    }
    return 0;
}

static inline void tt_opts(rx_tunnel_opts *o, tt_log *l)
{
    rx_tunnel_opts_init(o);
    o->name = "ConsPerf";
    o->service_id = 1;
    o->stream_id = 1000;
    o->cos.data_integrity = RX_COS_DI_RELIABLE;
    o->cos.flow_control = RX_COS_FC_BIDIRECTIONAL;
    o->cb.on_status = tt_on_status;
    o->cb.on_msg = tt_on_msg;
    o->user = l;
}

/* Pumps until the tunnel log has n status events (fails after ms). */
static inline void tt_wait_status(rx_reactor *r, tt_log *l, int n, int ms)
{
    int64_t end = tx_now_ms() + ms;
    while (l->nst < n) {
        if (tx_now_ms() > end)
            fail_msg("%d tunnel status events expected, %d seen", n, l->nst);
        tx_pump(r, 2);
    }
}

/* A provider's answer as ProvPerf's: its checks of the requested CoS, then accept (auth as
 * asked, bidirectional, reliable, the lower minor version) or reject (Redirected with the CoS
 * it expects). The tunnel's log is the request's channel's tt_log (rx_user is a tx_log whose
 * address is the tt_log's first member: see tt_pair). */
static inline const char *tt_cos_check(const rx_cos *c)
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

static inline int tt_answer(tt_log *l, rx_tunnel_request *req)
{
    l->req = *req;
    l->requests++;
    rx_cos asked;
    const char *why = "Failed to decode class of service.";
    if (rx_tunnel_request_cos(req, &asked) == 0)
        why = tt_cos_check(&asked);
    if (why) {
        rwf_state st = {.stream_state = RWF_STREAM_REDIRECTED, .data_state = RWF_DATA_SUSPECT};
        st.text = rwf_buf_cstr(why);
        rx_cos exp;
        rx_cos_init(&exp);
        exp.auth_type = asked.auth_type;
        exp.flow_control = RX_COS_FC_BIDIRECTIONAL;
        exp.data_integrity = RX_COS_DI_RELIABLE;
        return rx_tunnel_reject(req, &st, &exp);
    }
    rx_tunnel_opts o;
    rx_tunnel_opts_init(&o);
    o.cos.auth_type = asked.auth_type;
    o.cos.flow_control = RX_COS_FC_BIDIRECTIONAL;
    o.cos.data_integrity = RX_COS_DI_RELIABLE;
    if (asked.protocol_minor < o.cos.protocol_minor)
        o.cos.protocol_minor = asked.protocol_minor;
    o.cb.on_status = tt_on_status;
    o.cb.on_msg = tt_on_msg;
    o.user = l;
    return rx_tunnel_accept(req, &o, &l->t);
}

/* ---- a capture, both directions in time order ---------------------------------------------------
 */

typedef struct tt_cap {
    ts_bytes data;
    uint32_t off[4096], len[4096];
    char dir[4096]; /* 'C' consumer to server, 'S' server to consumer */
    int n;
} tt_cap;

/* Splits one direction's RIPC data frames (handshake frames skipped) into messages. */
static inline int tt_split(const ts_bytes *s, bool client, ts_bytes *out, uint32_t *off,
                           uint32_t *len, int max)
{
    size_t pos = 0;
    int n = 0;
    bool first = true;
    while (pos + 3 <= s->len && n < max) {
        size_t fl = (size_t)s->data[pos] << 8 | s->data[pos + 1];
        if (fl < 3 || pos + fl > s->len)
            break;
        uint8_t flags = s->data[pos + 2];
        bool handshake = first;
        first = false;
        if (!handshake && !(client && (flags & 0x08)) && fl > 3) {
            if (flags != 0x02)
                fail_msg("frame flags 0x%02x: packing or compression not expected", flags);
            off[n] = (uint32_t)out->len;
            len[n] = (uint32_t)(fl - 3);
            ts_bytes_append(out, s->data + pos + 3, fl - 3);
            n++;
        }
        pos += fl;
    }
    return n;
}

/* Loads tunnel/<name>.pcap and the direction of each message from decoded_<name>.txt. */
static inline void tt_cap_load(const char *name, tt_cap *c)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "tunnel/%s.pcap", name);
    const char *pcap = ts_capture(rel);
    ts_tcp_streams st;
    if (ts_pcap_tcp_streams(pcap, 14202, &st) != 0)
        fail_msg("cannot read %s", pcap);
    static ts_bytes cs, sc;
    static uint32_t coff[4096], clen[4096], soff[4096], slen[4096];
    memset(&cs, 0, sizeof(cs));
    memset(&sc, 0, sizeof(sc));
    int nc = tt_split(&st.client_to_server, true, &cs, coff, clen, 4096);
    int ns = tt_split(&st.server_to_client, false, &sc, soff, slen, 4096);
    snprintf(rel, sizeof(rel), "tunnel/decoded_%s.txt", name);
    uint8_t *txt;
    size_t tl;
    if (ts_read_file(ts_capture(rel), &txt, &tl) != 0)
        fail_msg("cannot read %s", rel);
    memset(c, 0, sizeof(*c));
    int ic = 0, is = 0;
    for (char *p = (char *)txt; (p = strstr(p, "] ")) != NULL; p += 2) {
        bool cdir = strncmp(p + 2, "C>S #", 5) == 0, sdir = strncmp(p + 2, "S>C #", 5) == 0;
        if (!cdir && !sdir)
            continue;
        if ((cdir && ic >= nc) || (sdir && is >= ns) || c->n >= 4096)
            fail_msg("%s: more messages decoded than captured", name);
        const uint8_t *src = cdir ? cs.data + coff[ic] : sc.data + soff[is];
        uint32_t l = cdir ? clen[ic++] : slen[is++];
        c->off[c->n] = (uint32_t)c->data.len;
        c->len[c->n] = l;
        c->dir[c->n] = cdir ? 'C' : 'S';
        ts_bytes_append(&c->data, src, l);
        c->n++;
    }
    if (ic != nc || is != ns)
        fail_msg("%s: %d/%d and %d/%d messages matched", name, ic, nc, is, ns);
    free(txt);
    ts_bytes_free(&cs);
    ts_bytes_free(&sc);
    ts_tcp_streams_free(&st);
}

static inline const uint8_t *tt_at(const tt_cap *c, int i)
{
    return c->data.data + c->off[i];
}

/* The tunnel opcode of an encoded message (0: not a tunnel GenericMsg with a header). */
static inline int tt_opcode(const uint8_t *p, uint32_t len)
{
    if (len < 12 || (p[2] & 0x1F) != RWF_MC_GENERIC || p[3] != RWF_DMT_SYSTEM || p[8] >= 0x80 ||
        !(p[8] & RWF_GNMF_HAS_EXTENDED_HEADER))
        return 0;
    unsigned at = (p[8] & RWF_GNMF_HAS_SEQ_NUM) ? 15 : 11; /* after the length byte */
    return at < len ? p[at] : 0;
}

/* ---- raw tunnel messages from a scripted peer
 * ----------------------------------------------------- */

/* A DATA message (stream version 2) carrying msg, with sequence number seq. */
static inline void tt_peer_data(tx_peer *p, int32_t stream, uint32_t seq, const uint8_t *msg,
                                uint32_t len, uint8_t opcode)
{
    static uint8_t buf[70000];
    uint32_t h = tun_data_header(buf, RWF_DMT_SYSTEM, stream, 2, false, true, 0, 0, 0, 0);
    rwf_wr32(buf + TUN_AT_SEQ, seq);
    buf[TUN_AT_OPCODE] = opcode;
    memcpy(buf + h, msg, len);
    tx_peer_send_bytes(p, buf, h + len);
}

static inline void tt_peer_ack(tx_peer *p, int32_t stream, uint32_t seq, const uint32_t *nak,
                               unsigned nnak, uint16_t flags)
{
    uint8_t buf[256];
    uint32_t n = tun_ack_msg(buf, RWF_DMT_SYSTEM, stream, flags, seq, nak, nnak, 12288);
    tx_peer_send_bytes(p, buf, n);
}

/* The provider's accepting refresh for a tunnel request on stream (our CoS: bidirectional,
 * reliable, window 12288, version 2). */
static inline void tt_peer_refresh(tx_peer *p, int32_t stream, uint8_t auth)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REFRESH, RWF_DMT_SYSTEM, stream, RWF_DT_FILTER_LIST);
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE |
              RWF_RFMF_CLEAR_CACHE | RWF_RFMF_PRIVATE_STREAM | RWF_RFMF_QUALIFIED_STREAM;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    rx_cos c;
    rx_cos_init(&c);
    c.auth_type = auth;
    c.flow_control = RX_COS_FC_BIDIRECTIONAL;
    c.data_integrity = RX_COS_DI_RELIABLE;
    c.recv_window = 12288;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = 1;
    m.key.name = RWF_STR("ConsPerf");
    m.key.filter = rx_cos_filter(&c);
    static uint8_t buf[2048];
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rx_cos_encode(&e, &c, m.key.filter, true, 2);
    rwf_enc_msg_end(&e);
    size_t n;
    if (rwf_enc_finish(&e, &n) != RWF_OK)
        fail_msg("refresh: %s", err_msg());
    tx_peer_send_bytes(p, buf, (uint32_t)n);
}

/* An inner message of class cls and about len bytes (an opaque payload of len - 40 bytes whose
 * first four bytes are tag) on stream. Returns its length. */
static inline uint32_t tt_inner(uint8_t *buf, uint32_t cap, uint8_t cls, int32_t stream,
                                uint32_t len, uint32_t tag)
{
    rwf_msg m;
    rwf_msg_init(&m, cls, RWF_DMT_MARKET_PRICE, stream, RWF_DT_OPAQUE);
    static uint8_t pad[70000];
    for (uint32_t i = 0; i < sizeof(pad); i++)
        pad[i] = (uint8_t)(i * 7 + tag);
    rwf_wr32(pad, tag);
    m.payload = rwf_buf_make(pad, len > 40 ? len - 40 : 4);
    size_t n;
    if (rwf_msg_encode(&m, buf, cap, &n) != RWF_OK)
        fail_msg("update: %s", err_msg());
    return (uint32_t)n;
}

#endif
