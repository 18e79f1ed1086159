/*
 * rwf_msg_dec: the message decoder — the header of each of the eight classes, in wire order
 * (docs/wire.md#message-headers), one function per class.
 */
#include "err.h"
#include "rwf_msg_int.h"

int rwf_msg_has_key(const rwf_msg *m)
{
    if (m->msg_class == RWF_MC_REQUEST)
        return 1;
    return (m->flags & rwf_msg_key_flag(m->msg_class)) != 0;
}

/* ---- Header members ---------------------------------------------------------------------- */

typedef struct cursor {
    const uint8_t *p, *end, *start;
    int cls; /* message class, named in error text */
} cursor;

static int hdr_bad(const cursor *c, const char *member)
{
    err_set("%s header: %s does not fit (offset %u, header ends at %u)", rwf_msg_class_name(c->cls),
            member, (unsigned)(c->p - c->start), (unsigned)(c->end - c->start));
    return RWF_E_MALFORMED;
}

static int get_u8(cursor *c, uint8_t *v, const char *member)
{
    if (c->p >= c->end)
        return hdr_bad(c, member);
    *v = *c->p++;
    return RWF_OK;
}

static int get_u16ob(cursor *c, uint16_t *v, const char *member)
{
    const uint8_t *q = rwf_rd_u16ob(c->p, c->end, v);
    if (!q)
        return hdr_bad(c, member);
    c->p = q;
    return RWF_OK;
}

static int get_u15rb(cursor *c, uint16_t *v, const char *member)
{
    const uint8_t *q = rwf_rd_u15rb(c->p, c->end, v);
    if (!q)
        return hdr_bad(c, member);
    c->p = q;
    return RWF_OK;
}

static int get_u32(cursor *c, uint32_t *v, const char *member)
{
    if (c->end - c->p < 4)
        return hdr_bad(c, member);
    *v = rwf_rd32(c->p);
    c->p += 4;
    return RWF_OK;
}

static int get_u16(cursor *c, uint16_t *v, const char *member)
{
    if (c->end - c->p < 2)
        return hdr_bad(c, member);
    *v = rwf_rd16(c->p);
    c->p += 2;
    return RWF_OK;
}

/* buf8 / buf15 / buf16 views. */
static int get_buf(cursor *c, rwf_buf *out, int form, const char *member)
{
    uint16_t n;
    const uint8_t *q;
    if (form == 8) {
        if (c->p >= c->end)
            return hdr_bad(c, member);
        n = *c->p;
        q = c->p + 1;
    } else {
        q = form == 15 ? rwf_rd_u15rb(c->p, c->end, &n) : rwf_rd_u16ob(c->p, c->end, &n);
        if (!q)
            return hdr_bad(c, member);
    }
    if (n > c->end - q)
        return hdr_bad(c, member);
    *out = rwf_buf_make(q, n);
    c->p = q + n;
    return RWF_OK;
}

static int get_qos(cursor *c, rwf_qos *q, const char *member)
{
    uint8_t b;
    if (get_u8(c, &b, member) < 0)
        return RWF_E_MALFORMED;
    rwf_qos_from_byte(q, b);
    if (rwf_qos_has_time_info(q) && get_u16(c, &q->time_info, member) < 0)
        return RWF_E_MALFORMED;
    if (rwf_qos_has_rate_info(q) && get_u16(c, &q->rate_info, member) < 0)
        return RWF_E_MALFORMED;
    return RWF_OK;
}

static int get_state(cursor *c, rwf_state *s)
{
    uint8_t b;
    if (get_u8(c, &b, "state") < 0 || get_u8(c, &s->code, "state code") < 0 ||
        get_buf(c, &s->text, 15, "state text") < 0)
        return RWF_E_MALFORMED;
    rwf_state_from_byte(s, b);
    return RWF_OK;
}

/* A msgKey: u15rb length, then the key in exactly that many bytes. */
static int get_key(cursor *c, rwf_key *k, const char *member)
{
    uint16_t len;
    if (get_u15rb(c, &len, member) < 0)
        return RWF_E_MALFORMED;
    if (len > c->end - c->p)
        return hdr_bad(c, member);
    cursor kc = {c->p, c->p + len, c->start, c->cls};
    uint16_t flags;
    if (get_u15rb(&kc, &flags, "key flags") < 0)
        return RWF_E_MALFORMED;
    k->flags = (uint8_t)flags;
    if ((flags & RWF_MKF_HAS_SERVICE_ID) && get_u16ob(&kc, &k->service_id, "key serviceId") < 0)
        return RWF_E_MALFORMED;
    if (flags & RWF_MKF_HAS_NAME) {
        if (get_buf(&kc, &k->name, 8, "key name") < 0)
            return RWF_E_MALFORMED;
        if ((flags & RWF_MKF_HAS_NAME_TYPE) && get_u8(&kc, &k->name_type, "key nameType") < 0)
            return RWF_E_MALFORMED;
    }
    if ((flags & RWF_MKF_HAS_FILTER) && get_u32(&kc, &k->filter, "key filter") < 0)
        return RWF_E_MALFORMED;
    if ((flags & RWF_MKF_HAS_IDENTIFIER) &&
        get_u32(&kc, (uint32_t *)&k->identifier, "key identifier") < 0)
        return RWF_E_MALFORMED;
    if (flags & RWF_MKF_HAS_ATTRIB) {
        uint8_t t;
        if (get_u8(&kc, &t, "key attribute type") < 0)
            return RWF_E_MALFORMED;
        k->attrib_type = (uint8_t)(t + RWF_DT_CONTAINER_MIN);
        if (k->attrib_type != RWF_DT_NO_DATA && get_buf(&kc, &k->attrib, 15, "key attribute") < 0)
            return RWF_E_MALFORMED;
    }
    c->p += len;
    return RWF_OK;
}

/* Bytes left before the end of the header (late optional members need them). */
static size_t left(const cursor *c)
{
    return (size_t)(c->end - c->p);
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((x) < 0)                                                                               \
            return RWF_E_MALFORMED;                                                                \
    } while (0)

/* ---- Late optional members ------------------------------------------------------------------
 * postUserInfo, partNum, postUserRights and reqMsgKey come last: like ETA, the decoder reads
 * one whose flag is set only when the header has bytes left for it; otherwise the flag is
 * dropped from m->flags. The callers check the flag (flag: the member's flag, set). */

static int late_post_user_info(cursor *c, rwf_msg *m, uint16_t flag)
{
    if (left(c) < 8) {
        m->flags &= (uint16_t)~flag;
        return RWF_OK;
    }
    TRY(get_u32(c, &m->post_user_addr, "postUserAddr"));
    TRY(get_u32(c, &m->post_user_id, "postUserId"));
    return RWF_OK;
}

static int late_u15rb(cursor *c, rwf_msg *m, uint16_t flag, uint16_t *v, const char *member)
{
    if (!left(c)) {
        m->flags &= (uint16_t)~flag;
        return RWF_OK;
    }
    TRY(get_u15rb(c, v, member));
    return RWF_OK;
}

static int late_req_key(cursor *c, rwf_msg *m, uint16_t flag)
{
    if (!left(c)) {
        m->flags &= (uint16_t)~flag;
        return RWF_OK;
    }
    TRY(get_key(c, &m->req_key, "reqMsgKey"));
    return RWF_OK;
}

/* ---- One function per class: the members after the container type ------------------------ */

/* dec_<class> reads the members of its class into m (c at the first of them, m->flags read):
 * RWF_OK, or RWF_E_MALFORMED with err text naming the member that does not fit. */

static int dec_request(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    if (f & RWF_RQMF_HAS_PRIORITY) {
        TRY(get_u8(c, &m->priority_class, "priority class"));
        TRY(get_u16ob(c, &m->priority_count, "priority count"));
    }
    if (f & RWF_RQMF_HAS_QOS)
        TRY(get_qos(c, &m->qos, "qos"));
    if (f & RWF_RQMF_HAS_WORST_QOS)
        TRY(get_qos(c, &m->worst_qos, "worst qos"));
    TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_RQMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    return RWF_OK;
}

static int dec_refresh(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    if (f & RWF_RFMF_HAS_SEQ_NUM)
        TRY(get_u32(c, &m->seq_num, "seqNum"));
    TRY(get_state(c, &m->state));
    TRY(get_buf(c, &m->group_id, 8, "groupId"));
    if (f & RWF_RFMF_HAS_PERM_DATA)
        TRY(get_buf(c, &m->perm_data, 15, "permData"));
    if (f & RWF_RFMF_HAS_QOS)
        TRY(get_qos(c, &m->qos, "qos"));
    if (f & RWF_RFMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_RFMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    if (f & RWF_RFMF_HAS_POST_USER_INFO)
        TRY(late_post_user_info(c, m, RWF_RFMF_HAS_POST_USER_INFO));
    if (f & RWF_RFMF_HAS_PART_NUM)
        TRY(late_u15rb(c, m, RWF_RFMF_HAS_PART_NUM, &m->part_num, "partNum"));
    if (f & RWF_RFMF_HAS_REQ_MSG_KEY)
        TRY(late_req_key(c, m, RWF_RFMF_HAS_REQ_MSG_KEY));
    return RWF_OK;
}

static int dec_status(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    if (f & RWF_STMF_HAS_STATE)
        TRY(get_state(c, &m->state));
    if (f & RWF_STMF_HAS_GROUP_ID)
        TRY(get_buf(c, &m->group_id, 8, "groupId"));
    if (f & RWF_STMF_HAS_PERM_DATA)
        TRY(get_buf(c, &m->perm_data, 15, "permData"));
    if (f & RWF_STMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_STMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    if (f & RWF_STMF_HAS_POST_USER_INFO)
        TRY(late_post_user_info(c, m, RWF_STMF_HAS_POST_USER_INFO));
    if (f & RWF_STMF_HAS_REQ_MSG_KEY)
        TRY(late_req_key(c, m, RWF_STMF_HAS_REQ_MSG_KEY));
    return RWF_OK;
}

static int dec_update(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    TRY(get_u8(c, &m->update_type, "updateType"));
    if (f & RWF_UPMF_HAS_SEQ_NUM)
        TRY(get_u32(c, &m->seq_num, "seqNum"));
    if (f & RWF_UPMF_HAS_CONF_INFO) {
        TRY(get_u15rb(c, &m->conf_count, "conflation count"));
        TRY(get_u16(c, &m->conf_time, "conflation time"));
    }
    if (f & RWF_UPMF_HAS_PERM_DATA)
        TRY(get_buf(c, &m->perm_data, 15, "permData"));
    if (f & RWF_UPMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_UPMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    if (f & RWF_UPMF_HAS_POST_USER_INFO)
        TRY(late_post_user_info(c, m, RWF_UPMF_HAS_POST_USER_INFO));
    return RWF_OK;
}

static int dec_close(cursor *c, rwf_msg *m)
{
    if (m->flags & RWF_CLMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    return RWF_OK;
}

static int dec_ack(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    TRY(get_u32(c, &m->ack_id, "ackId"));
    if (f & RWF_AKMF_HAS_NAK_CODE)
        TRY(get_u8(c, &m->nak_code, "nakCode"));
    if (f & RWF_AKMF_HAS_TEXT)
        TRY(get_buf(c, &m->text, 16, "text"));
    if (f & RWF_AKMF_HAS_SEQ_NUM)
        TRY(get_u32(c, &m->seq_num, "seqNum"));
    if (f & RWF_AKMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_AKMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    return RWF_OK;
}

static int dec_generic(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    if (f & RWF_GNMF_HAS_SEQ_NUM)
        TRY(get_u32(c, &m->seq_num, "seqNum"));
    if (f & RWF_GNMF_HAS_SECONDARY_SEQ_NUM)
        TRY(get_u32(c, &m->secondary_seq_num, "secondary seqNum"));
    if (f & RWF_GNMF_HAS_PERM_DATA)
        TRY(get_buf(c, &m->perm_data, 15, "permData"));
    if (f & RWF_GNMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_GNMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    if (f & RWF_GNMF_HAS_PART_NUM)
        TRY(late_u15rb(c, m, RWF_GNMF_HAS_PART_NUM, &m->part_num, "partNum"));
    if (f & RWF_GNMF_HAS_REQ_MSG_KEY)
        TRY(late_req_key(c, m, RWF_GNMF_HAS_REQ_MSG_KEY));
    return RWF_OK;
}

static int dec_post(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    TRY(get_u32(c, &m->post_user_addr, "postUserAddr"));
    TRY(get_u32(c, &m->post_user_id, "postUserId"));
    if (f & RWF_PSMF_HAS_SEQ_NUM)
        TRY(get_u32(c, &m->seq_num, "seqNum"));
    if (f & RWF_PSMF_HAS_POST_ID)
        TRY(get_u32(c, &m->post_id, "postId"));
    if (f & RWF_PSMF_HAS_PERM_DATA)
        TRY(get_buf(c, &m->perm_data, 15, "permData"));
    if (f & RWF_PSMF_HAS_MSG_KEY)
        TRY(get_key(c, &m->key, "msgKey"));
    if (f & RWF_PSMF_HAS_EXTENDED_HEADER)
        TRY(get_buf(c, &m->ext_header, 8, "extended header"));
    if (f & RWF_PSMF_HAS_PART_NUM)
        TRY(late_u15rb(c, m, RWF_PSMF_HAS_PART_NUM, &m->part_num, "partNum"));
    if (f & RWF_PSMF_HAS_POST_USER_RIGHTS)
        TRY(late_u15rb(c, m, RWF_PSMF_HAS_POST_USER_RIGHTS, &m->post_user_rights,
                       "postUserRights"));
    return RWF_OK;
}

/* The class-specific members of m (class and flags already read). */
static int decode_class(cursor *c, rwf_msg *m)
{
    switch (m->msg_class) {
    case RWF_MC_REQUEST:
        return dec_request(c, m);
    case RWF_MC_REFRESH:
        return dec_refresh(c, m);
    case RWF_MC_STATUS:
        return dec_status(c, m);
    case RWF_MC_UPDATE:
        return dec_update(c, m);
    case RWF_MC_CLOSE:
        return dec_close(c, m);
    case RWF_MC_ACK:
        return dec_ack(c, m);
    case RWF_MC_GENERIC:
        return dec_generic(c, m);
    case RWF_MC_POST:
        return dec_post(c, m);
    default:
        err_set("message class %u is not an RWF message class", m->msg_class);
        return RWF_E_UNSUPPORTED;
    }
}

/* ---- Message ----------------------------------------------------------------------------- */

/* Zeroes m member by member: the compiler turns this into a few vector stores, where a
 * memset of the whole struct becomes a slow "rep stos" (a third of a header decode). */
static inline void clear_msg(rwf_msg *m)
{
    m->msg_class = m->domain = m->container_type = 0;
    m->stream_id = 0;
    m->flags = 0;
    m->key = (rwf_key){0};
    m->req_key = (rwf_key){0};
    m->state = (rwf_state){0};
    m->qos = (rwf_qos){0};
    m->worst_qos = (rwf_qos){0};
    m->group_id = m->perm_data = m->ext_header = m->text = m->payload = (rwf_buf){0};
    m->seq_num = m->secondary_seq_num = m->post_user_addr = m->post_user_id = 0;
    m->post_id = m->ack_id = 0;
    m->part_num = m->post_user_rights = m->priority_count = m->conf_count = m->conf_time = 0;
    m->priority_class = m->update_type = m->nak_code = 0;
}

int rwf_msg_decode(rwf_msg *m, rwf_buf data)
{
    const uint8_t *p = (const uint8_t *)data.data;
    clear_msg(m);
    m->encoded = data;
    if (data.len < 2) {
        err_set("message of %u bytes has no header length", (unsigned)data.len);
        return RWF_E_MALFORMED;
    }
    uint32_t hlen = rwf_rd16(p);
    if (hlen > data.len - 2) {
        err_set("message header length %u exceeds the %u bytes that follow it", hlen,
                (unsigned)data.len - 2);
        return RWF_E_MALFORMED;
    }
    if (hlen < 8) { /* class, domain, stream id, flags, container type */
        err_set("message header length %u is too short", hlen);
        return RWF_E_MALFORMED;
    }
    cursor c = {p + RWF_MSG_AT_FLAGS, p + 2 + hlen, p, 0};
    m->msg_class = p[RWF_MSG_AT_CLASS] & RWF_MSG_CLASS_MASK;
    m->domain = p[RWF_MSG_AT_DOMAIN];
    m->stream_id = (int32_t)rwf_rd32(p + RWF_MSG_AT_STREAM);
    c.cls = m->msg_class;
    uint16_t flags;
    uint8_t ct;
    if (c.end - c.p >= 2 && !(c.p[0] & 0x80)) { /* one-byte flags (the common case) */
        flags = c.p[0];
        ct = c.p[1];
        c.p += 2;
    } else if (get_u15rb(&c, &flags, "flags") < 0 || get_u8(&c, &ct, "container type") < 0) {
        return RWF_E_MALFORMED;
    }
    m->flags = flags;
    m->container_type = (uint8_t)(ct + RWF_DT_CONTAINER_MIN);
    int r = decode_class(&c, m);
    if (r < 0)
        return r;
    m->payload = rwf_buf_make(p + 2 + hlen, data.len - 2 - hlen);
    return RWF_OK;
}
