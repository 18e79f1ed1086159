/*
 * rx_tun_wire: the bytes of tunnel streams (docs/wire.md#tunnel-streams): the class of service
 * FilterList, the request, refresh and status on the tunnel stream, the DATA header and the ACK
 * message, and the reading of a received tunnel header.
 *
 * Every RWF member is written by the codec: the request, refresh and status by the message
 * encoder, the DATA and ACK headers (one per message sent in the tunnel) in one pass by
 * rwf_msg_put_fixed, the members every header starts with, followed by the Generic message's
 * optional members in the encoder's order (sequence number, then the extended header with its
 * one-byte length); the extended header's content is the tunnel's own. The bytes are those
 * rwf_msg_encode writes for the same message (tests/reactor/test_rx_tun_wire.c).
 */
#include "rx_tun_int.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

#define EL_MAX_MSG_SIZE RWF_STR(":MaxMsgSize")
#define EL_MAX_FRAG_SIZE RWF_STR(":MaxFragmentSize")
#define EL_SUPPORTS_FRAG RWF_STR(":SupportsFragmentation")
#define EL_PROT_TYPE RWF_STR(":ProtocolType")
#define EL_PROT_MAJOR RWF_STR(":ProtocolMajorVersion")
#define EL_PROT_MINOR RWF_STR(":ProtocolMinorVersion")
#define EL_STREAM_VERSION RWF_STR(":StreamVersion")
#define EL_TYPE RWF_STR(":Type")
#define EL_RECV_WINDOW RWF_STR(":RecvWindowSize")

void rx_cos_init(rx_cos *c)
{
    memset(c, 0, sizeof(*c));
    c->max_msg_size = RX_TUNNEL_MAX_MSG_SIZE;
    c->max_fragment_size = RX_TUNNEL_MAX_FRAGMENT_SIZE;
    c->protocol_major = 14;
    c->protocol_minor = 1;
    c->recv_window = -1;
}

uint32_t rx_cos_filter(const rx_cos *c)
{
    uint32_t f = RX_COS_COMMON;
    if (c->auth_type != RX_COS_AU_NOT_REQUIRED)
        f |= RX_COS_AUTHENTICATION;
    if (c->flow_control != RX_COS_FC_NONE)
        f |= RX_COS_FLOW_CONTROL;
    if (c->data_integrity != RX_COS_DI_BEST_EFFORT)
        f |= RX_COS_DATA_INTEGRITY;
    if (c->guarantee != RX_COS_GU_NONE)
        f |= RX_COS_GUARANTEE;
    return f;
}

/* One filter entry holding an ElementList with the single element :Type. */
static void enc_type_entry(rwf_enc *e, uint8_t id, uint64_t type)
{
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, id, 0, NULL);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, EL_TYPE, type);
    rwf_enc_el_end(e);
}

int rx_cos_encode(rwf_enc *e, const rx_cos *c, uint32_t filter, bool provider,
                  unsigned stream_version)
{
    rwf_filter_hdr fh = {.flags = 0, .ctype = RWF_DT_ELEMENT_LIST};
    rwf_enc_filter_begin(e, &fh);
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RX_COS_COMMON_ID, 0, NULL);
    rwf_enc_el_begin_std(e);
    if (provider) {
        rwf_enc_el_uint(e, EL_MAX_MSG_SIZE,
                        stream_version > 1 ? c->max_msg_size : c->max_fragment_size);
        if (stream_version > 1) {
            rwf_enc_el_uint(e, EL_MAX_FRAG_SIZE, c->max_fragment_size);
            rwf_enc_el_uint(e, EL_SUPPORTS_FRAG, 1);
        }
    }
    rwf_enc_el_uint(e, EL_PROT_TYPE, c->protocol_type);
    rwf_enc_el_uint(e, EL_PROT_MAJOR, c->protocol_major);
    rwf_enc_el_uint(e, EL_PROT_MINOR, c->protocol_minor);
    rwf_enc_el_uint(e, EL_STREAM_VERSION, stream_version);
    rwf_enc_el_end(e);
    enc_type_entry(e, RX_COS_AUTHENTICATION_ID, c->auth_type);
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RX_COS_FLOW_CONTROL_ID, 0, NULL);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, EL_TYPE, c->flow_control);
    if (c->flow_control != RX_COS_FC_NONE && c->recv_window >= 0)
        rwf_enc_el_int(e, EL_RECV_WINDOW, c->recv_window);
    rwf_enc_el_end(e);
    enc_type_entry(e, RX_COS_DATA_INTEGRITY_ID, c->data_integrity);
    if (filter & RX_COS_GUARANTEE)
        enc_type_entry(e, RX_COS_GUARANTEE_ID, c->guarantee);
    return rwf_enc_filter_end(e);
}

/* ---- decoding the class of service -------------------------------------------------------- */

/* A UINT element that must fit in 8 bits (the ETA decoder's range check). */
static int get_u8(const rwf_element *el, const char *what, uint8_t *out)
{
    uint64_t v;
    if (el->type != RWF_DT_UINT || rwf_get_uint(el->data, &v) != RWF_OK)
        return err_set("class of service: %s is not a UINT", what);
    if (v > 255)
        return err_set("class of service: %s %llu is out of range", what, (unsigned long long)v);
    *out = (uint8_t)v;
    return 0;
}

static int get_u64(const rwf_element *el, const char *what, uint64_t *out)
{
    if (el->type != RWF_DT_UINT || rwf_get_uint(el->data, out) != RWF_OK)
        return err_set("class of service: %s is not a UINT", what);
    return 0;
}

static int common_element(const rwf_element *el, rx_cos *c, unsigned *sv, bool *frag_seen)
{
    uint8_t v8;
    if (rwf_buf_eq(el->name, EL_MAX_MSG_SIZE))
        return get_u64(el, ":MaxMsgSize", &c->max_msg_size);
    if (rwf_buf_eq(el->name, EL_MAX_FRAG_SIZE)) {
        *frag_seen = true;
        return get_u64(el, ":MaxFragmentSize", &c->max_fragment_size);
    }
    if (rwf_buf_eq(el->name, EL_SUPPORTS_FRAG))
        return get_u64(el, ":SupportsFragmentation", &c->supports_fragmentation);
    if (rwf_buf_eq(el->name, EL_PROT_TYPE))
        return get_u8(el, ":ProtocolType", &c->protocol_type);
    if (rwf_buf_eq(el->name, EL_PROT_MAJOR))
        return get_u8(el, ":ProtocolMajorVersion", &c->protocol_major);
    if (rwf_buf_eq(el->name, EL_PROT_MINOR))
        return get_u8(el, ":ProtocolMinorVersion", &c->protocol_minor);
    if (rwf_buf_eq(el->name, EL_STREAM_VERSION)) {
        if (get_u8(el, ":StreamVersion", &v8) != 0)
            return -1;
        *sv = v8;
    }
    return 0; /* other elements are ignored */
}

/* The elements of one filter entry. */
static int entry_elements(const rwf_filter_entry *fe, rx_cos *c, unsigned *sv, bool *frag_seen)
{
    if (fe->ctype != RWF_DT_ELEMENT_LIST)
        return err_set("class of service: filter entry %u is not an ElementList", fe->id);
    rwf_el_dec d;
    if (rwf_el_dec_init(&d, fe->data, NULL) != RWF_OK)
        return err_push("class of service: filter entry %u", fe->id);
    rwf_element el;
    int rc;
    while ((rc = rwf_el_next(&d, &el)) == RWF_OK) {
        int r = 0;
        switch (fe->id) {
        case RX_COS_COMMON_ID:
            r = common_element(&el, c, sv, frag_seen);
            break;
        case RX_COS_AUTHENTICATION_ID:
            if (rwf_buf_eq(el.name, EL_TYPE))
                r = get_u8(&el, "authentication :Type", &c->auth_type);
            break;
        case RX_COS_FLOW_CONTROL_ID:
            if (rwf_buf_eq(el.name, EL_TYPE))
                r = get_u8(&el, "flow control :Type", &c->flow_control);
            else if (rwf_buf_eq(el.name, EL_RECV_WINDOW) &&
                     (el.type != RWF_DT_INT || rwf_get_int(el.data, &c->recv_window) != RWF_OK))
                r = err_set("class of service: :RecvWindowSize is not an INT");
            break;
        case RX_COS_DATA_INTEGRITY_ID:
            if (rwf_buf_eq(el.name, EL_TYPE))
                r = get_u8(&el, "data integrity :Type", &c->data_integrity);
            break;
        case RX_COS_GUARANTEE_ID:
            if (rwf_buf_eq(el.name, EL_TYPE))
                r = get_u8(&el, "guarantee :Type", &c->guarantee);
            break;
        default:
            break;
        }
        if (r != 0)
            return -1;
    }
    return rc == RWF_END ? 0 : err_push("class of service: filter entry %u", fe->id);
}

int rx_cos_decode(rwf_buf data, rx_cos *c, unsigned *stream_version)
{
    rx_cos_init(c);
    unsigned sv = RX_TUNNEL_STREAM_VERSION;
    bool frag_seen = false;
    rwf_filter_dec d;
    if (rwf_filter_dec_init(&d, data) != RWF_OK)
        return err_push("class of service: not a FilterList");
    rwf_filter_entry fe;
    int rc;
    while ((rc = rwf_filter_next(&d, &fe)) == RWF_OK) {
        if (fe.action == RWF_FTEA_CLEAR_ENTRY || fe.id < RX_COS_COMMON_ID ||
            fe.id > RX_COS_GUARANTEE_ID)
            continue;
        if (entry_elements(&fe, c, &sv, &frag_seen) != 0)
            return -1;
    }
    if (rc != RWF_END)
        return err_push("class of service: FilterList");
    if (sv < 2 && !frag_seen)
        c->max_fragment_size = c->max_msg_size; /* version 1: one size for both */
    if (stream_version)
        *stream_version = sv;
    return 0;
}

/* ---- messages on the tunnel stream ----------------------------------------------------------- */

/* Encodes m with the CoS c as its FilterList payload. */
static int enc_with_cos(rwf_msg *m, const rx_cos *c, bool provider, unsigned v, uint8_t *buf,
                        uint32_t cap, uint32_t *len)
{
    rwf_enc e;
    rwf_enc_init(&e, buf, cap);
    m->container_type = RWF_DT_FILTER_LIST;
    rwf_enc_msg_begin(&e, m);
    rx_cos_encode(&e, c, m->key.filter, provider, v);
    rwf_enc_msg_end(&e);
    size_t n;
    if (rwf_enc_finish(&e, &n) != RWF_OK)
        return err_push("encoding a tunnel stream %s", rwf_msg_class_name(m->msg_class));
    *len = (uint32_t)n;
    return 0;
}

int tun_enc_request(const rx_tunnel *t, unsigned v, bool watchlist, uint8_t *buf, uint32_t cap,
                    uint32_t *len)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, t->domain, watchlist ? t->app_id : t->wire_id, RWF_DT_UNKNOWN);
    m.flags = RWF_RQMF_STREAMING | RWF_RQMF_PRIVATE_STREAM | RWF_RQMF_QUALIFIED_STREAM;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = t->service_id;
    m.key.name = rwf_buf_make(t->name, t->name_len);
    m.key.filter = rx_cos_filter(&t->cos);
    rx_cos c = t->cos;
    if (c.flow_control != RX_COS_FC_NONE)
        c.recv_window = t->recv_window;
    return enc_with_cos(&m, &c, false, v, buf, cap, len);
}

int tun_enc_refresh(const rx_tunnel *t, uint8_t *buf, uint32_t cap, uint32_t *len)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REFRESH, t->domain, t->wire_id, RWF_DT_UNKNOWN);
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE |
              RWF_RFMF_CLEAR_CACHE | RWF_RFMF_PRIVATE_STREAM | RWF_RFMF_QUALIFIED_STREAM;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = t->service_id;
    m.key.name = rwf_buf_make(t->name, t->name_len);
    m.key.filter = rx_cos_filter(&t->cos);
    rx_cos c = t->cos;
    c.recv_window = t->recv_window;
    return enc_with_cos(&m, &c, true, t->stream_version, buf, cap, len);
}

int tun_enc_status(int32_t stream, uint8_t domain, const rwf_state *st, const char *name,
                   uint16_t service, const rx_cos *cos, unsigned v, uint8_t *buf, uint32_t cap,
                   uint32_t *len)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_STATUS, domain, stream, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_PRIVATE_STREAM | RWF_STMF_QUALIFIED_STREAM | RWF_STMF_CLEAR_CACHE |
              RWF_STMF_HAS_STATE;
    m.state = *st;
    if (!cos) {
        size_t n;
        if (rwf_msg_encode(&m, buf, cap, &n) != RWF_OK)
            return err_push("encoding a tunnel stream status");
        *len = (uint32_t)n;
        return 0;
    }
    m.flags |= RWF_STMF_HAS_MSG_KEY;
    m.key.flags = RWF_MKF_HAS_FILTER | RWF_MKF_HAS_NAME | RWF_MKF_HAS_SERVICE_ID;
    m.key.name = rwf_buf_cstr(name);
    m.key.service_id = service;
    m.key.filter = rx_cos_filter(cos);
    return enc_with_cos(&m, cos, true, v, buf, cap, len);
}

/* ---- the tunnel's own messages -------------------------------------------------------------- */

uint32_t tun_data_header(uint8_t *p, uint8_t domain, int32_t stream, unsigned v, bool frag,
                         bool complete, uint32_t total, uint32_t frag_num, uint16_t msg_id,
                         uint8_t ctype)
{
    uint16_t flags = RWF_GNMF_HAS_EXTENDED_HEADER | RWF_GNMF_HAS_SEQ_NUM |
                     (complete ? RWF_GNMF_MESSAGE_COMPLETE : 0);
    uint8_t *q = rwf_msg_put_fixed(p + 2, RWF_MC_GENERIC, domain, stream, flags,
                                   frag ? RWF_DT_OPAQUE : RWF_DT_MSG);
    q = rwf_wr32(q, 0); /* the sequence number (TUN_AT_SEQ), written when sent */
    uint8_t *ext_len = q++;
    uint8_t *ext = q;
    *q++ = TUN_OP_DATA;
    if (v >= 2) {
        *q++ = frag ? TUN_DF_FRAGMENTED : 0;
        if (frag) {
            q = rwf_wr32(q, total);
            q = rwf_wr32(q, frag_num);
            q = rwf_wr16(q, msg_id);
            *q++ = (uint8_t)(ctype - RWF_DT_CONTAINER_MIN);
        }
    }
    *ext_len = (uint8_t)(q - ext);
    uint32_t n = (uint32_t)(q - p);
    rwf_wr16(p, (uint16_t)(n - 2));
    return n;
}

uint32_t tun_ack_msg(uint8_t *p, uint8_t domain, int32_t stream, uint16_t flags, uint32_t seq,
                     const uint32_t *nak, unsigned nnak, int32_t window)
{
    uint8_t *q =
        rwf_msg_put_fixed(p + 2, RWF_MC_GENERIC, domain, stream,
                          RWF_GNMF_HAS_EXTENDED_HEADER | RWF_GNMF_MESSAGE_COMPLETE, RWF_DT_NO_DATA);
    uint8_t *ext_len = q++;
    uint8_t *ext = q;
    *q++ = TUN_OP_ACK;
    q = rwf_wr_u15rb(q, flags);
    q = rwf_wr32(q, seq);
    *q++ = (uint8_t)nnak;
    for (unsigned i = 0; i < 2 * nnak; i++)
        q = rwf_wr32(q, nak[i]);
    *q++ = 0; /* no selective-ack ranges (the original never sends any) */
    q = rwf_wr32(q, (uint32_t)window);
    *ext_len = (uint8_t)(q - ext);
    uint32_t n = (uint32_t)(q - p);
    rwf_wr16(p, (uint16_t)(n - 2));
    return n;
}

/* Reads count ranges (u32 first, u32 last) into out. */
static const uint8_t *ranges(const uint8_t *q, const uint8_t *end, unsigned *n, uint32_t *out,
                             const char *what)
{
    if (q >= end) {
        err_set("tunnel ACK ends before its %s range count", what);
        return NULL;
    }
    unsigned count = *q++;
    if ((size_t)(end - q) < 8u * count) {
        err_set("tunnel ACK: %u %s ranges run past the header", count, what);
        return NULL;
    }
    if (count > TUN_MAX_RANGES) {
        err_set("tunnel ACK with %u %s ranges (at most %d are taken)", count, what, TUN_MAX_RANGES);
        return NULL;
    }
    for (unsigned i = 0; i < 2 * count; i++, q += 4)
        out[i] = rwf_rd32(q);
    *n = count;
    return q;
}

static int ack_decode(const uint8_t *q, const uint8_t *end, tun_hdr *h)
{
    q = rwf_rd_u15rb(q, end, &h->ack_flags);
    if (!q || end - q < 4)
        return err_set("tunnel ACK too short for its flags and sequence number");
    h->seq = rwf_rd32(q);
    q += 4;
    if (!(q = ranges(q, end, &h->nnak, h->nak, "NAK")) ||
        !(q = ranges(q, end, &h->nsack, h->sack, "selective-ack")))
        return -1;
    if (end - q < 4)
        return err_set("tunnel ACK too short for its receive window");
    h->window = (int32_t)rwf_rd32(q);
    return 0;
}

int tun_hdr_decode(const rwf_msg *m, unsigned v, tun_hdr *h)
{
    memset(h, 0, sizeof(*h));
    if (!(m->flags & RWF_GNMF_HAS_EXTENDED_HEADER) || m->ext_header.len < 1)
        return err_set("generic message on tunnel stream %d without a tunnel header",
                       (int)m->stream_id);
    const uint8_t *q = (const uint8_t *)m->ext_header.data;
    const uint8_t *end = q + m->ext_header.len;
    h->opcode = *q++;
    if (h->opcode == TUN_OP_ACK)
        return ack_decode(q, end, h);
    if (h->opcode != TUN_OP_DATA && h->opcode != TUN_OP_RETRANS)
        return err_set("tunnel message with unknown opcode %u on stream %d", h->opcode,
                       (int)m->stream_id);
    if (v >= 2) {
        if (q >= end)
            return err_set("tunnel DATA header without its flags");
        h->data_flags = *q++;
        if (h->data_flags & TUN_DF_FRAGMENTED) {
            if (end - q < 11)
                return err_set("tunnel DATA fragment header too short (%d bytes)", (int)(end - q));
            h->total = rwf_rd32(q);
            h->frag_num = rwf_rd32(q + 4);
            h->msg_id = rwf_rd16(q + 8);
            h->ctype = (uint8_t)(q[10] + RWF_DT_CONTAINER_MIN);
        }
    }
    if (!(m->flags & RWF_GNMF_HAS_SEQ_NUM))
        return err_set("tunnel DATA message without a sequence number");
    h->seq = m->seq_num;
    return 0;
}

/* ---- text -------------------------------------------------------------------------------------
 */

static const char *stream_state_text(int s)
{
    static const char *const n[] = {"Unspecified",         "Open",   "Non-streaming",
                                    "Closed, Recoverable", "Closed", "Redirected"};
    return s >= 0 && s <= 5 ? n[s] : "Unknown Stream State";
}

static const char *data_state_text(int s)
{
    static const char *const n[] = {"No Change", "Ok", "Suspect"};
    return s >= 0 && s <= 2 ? n[s] : "Unknown Data State";
}

static const char *code_text(int c)
{
    static const char *const n[] = {"None",
                                    "Not found",
                                    "Timeout",
                                    "Not entitled",
                                    "Invalid argument",
                                    "Usage error",
                                    "Preempted",
                                    "JIT conflation started",
                                    "Realtime resumed",
                                    "Failover started",
                                    "Failover completed",
                                    "Gap detected",
                                    "No resources",
                                    "Too many items",
                                    "Already open",
                                    "Source unknown",
                                    "Not open"};
    return c >= 0 && c < (int)(sizeof(n) / sizeof(n[0])) ? n[c] : "Unknown State Code";
}

int rx_state_text(const rwf_state *st, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "State: %s/%s/%s - text: \"%.*s\"",
                     stream_state_text(st->stream_state), data_state_text(st->data_state),
                     code_text(st->code), (int)st->text.len, st->text.data ? st->text.data : "");
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}
