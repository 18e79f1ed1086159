/*
 * rwf_msg: message headers of the eight classes, in wire order (wire.md §4.3).
 */
#include "rwf_msg.h"

#include <stdarg.h>
#include <stdio.h>

#include "rwf_enc_int.h"

/* The class flag that says a msgKey is present (Request: always). */
static uint16_t key_flag(int msg_class)
{
    switch (msg_class) {
    case RWF_MC_REFRESH:
        return RWF_RFMF_HAS_MSG_KEY;
    case RWF_MC_STATUS:
        return RWF_STMF_HAS_MSG_KEY;
    case RWF_MC_UPDATE:
        return RWF_UPMF_HAS_MSG_KEY;
    case RWF_MC_GENERIC:
        return RWF_GNMF_HAS_MSG_KEY;
    case RWF_MC_POST:
        return RWF_PSMF_HAS_MSG_KEY;
    case RWF_MC_ACK:
        return RWF_AKMF_HAS_MSG_KEY;
    default:
        return 0;
    }
}

static uint16_t ext_flag(int msg_class)
{
    return msg_class == RWF_MC_REQUEST || msg_class == RWF_MC_REFRESH ||
                   msg_class == RWF_MC_STATUS || msg_class == RWF_MC_UPDATE ||
                   msg_class == RWF_MC_CLOSE || msg_class == RWF_MC_ACK ||
                   msg_class == RWF_MC_GENERIC || msg_class == RWF_MC_POST
               ? 0x0001
               : 0;
}

int rwf_msg_has_key(const rwf_msg *m)
{
    if (m->msg_class == RWF_MC_REQUEST)
        return 1;
    return (m->flags & key_flag(m->msg_class)) != 0;
}

/* ---- Decode ------------------------------------------------------------------------------ */

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
    q->timeliness = b >> 5;
    q->rate = (b >> 1) & 0x0F;
    q->dynamic = b & 1;
    if (q->timeliness > RWF_QOS_TIME_DELAYED_UNKNOWN && get_u16(c, &q->time_info, member) < 0)
        return RWF_E_MALFORMED;
    if (q->rate > RWF_QOS_RATE_JIT_CONFLATED && get_u16(c, &q->rate_info, member) < 0)
        return RWF_E_MALFORMED;
    return RWF_OK;
}

static int get_state(cursor *c, rwf_state *s)
{
    uint8_t b;
    if (get_u8(c, &b, "state") < 0 || get_u8(c, &s->code, "state code") < 0 ||
        get_buf(c, &s->text, 15, "state text") < 0)
        return RWF_E_MALFORMED;
    s->stream_state = b >> 3;
    s->data_state = b & 7;
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

static int decode_class(cursor *c, rwf_msg *m)
{
    uint16_t f = m->flags;
    switch (m->msg_class) {
    case RWF_MC_REQUEST:
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
    case RWF_MC_REFRESH:
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
        if (f & RWF_RFMF_HAS_POST_USER_INFO) {
            if (left(c) >= 8) {
                TRY(get_u32(c, &m->post_user_addr, "postUserAddr"));
                TRY(get_u32(c, &m->post_user_id, "postUserId"));
            } else {
                m->flags &= (uint16_t)~RWF_RFMF_HAS_POST_USER_INFO;
            }
        }
        if (f & RWF_RFMF_HAS_PART_NUM) {
            if (left(c))
                TRY(get_u15rb(c, &m->part_num, "partNum"));
            else
                m->flags &= (uint16_t)~RWF_RFMF_HAS_PART_NUM;
        }
        if (f & RWF_RFMF_HAS_REQ_MSG_KEY) {
            if (left(c))
                TRY(get_key(c, &m->req_key, "reqMsgKey"));
            else
                m->flags &= (uint16_t)~RWF_RFMF_HAS_REQ_MSG_KEY;
        }
        return RWF_OK;
    case RWF_MC_STATUS:
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
        if (f & RWF_STMF_HAS_POST_USER_INFO) {
            if (left(c) >= 8) {
                TRY(get_u32(c, &m->post_user_addr, "postUserAddr"));
                TRY(get_u32(c, &m->post_user_id, "postUserId"));
            } else {
                m->flags &= (uint16_t)~RWF_STMF_HAS_POST_USER_INFO;
            }
        }
        if (f & RWF_STMF_HAS_REQ_MSG_KEY) {
            if (left(c))
                TRY(get_key(c, &m->req_key, "reqMsgKey"));
            else
                m->flags &= (uint16_t)~RWF_STMF_HAS_REQ_MSG_KEY;
        }
        return RWF_OK;
    case RWF_MC_UPDATE:
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
        if (f & RWF_UPMF_HAS_POST_USER_INFO) {
            if (left(c) >= 8) {
                TRY(get_u32(c, &m->post_user_addr, "postUserAddr"));
                TRY(get_u32(c, &m->post_user_id, "postUserId"));
            } else {
                m->flags &= (uint16_t)~RWF_UPMF_HAS_POST_USER_INFO;
            }
        }
        return RWF_OK;
    case RWF_MC_CLOSE:
        if (f & RWF_CLMF_HAS_EXTENDED_HEADER)
            TRY(get_buf(c, &m->ext_header, 8, "extended header"));
        return RWF_OK;
    case RWF_MC_ACK:
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
    case RWF_MC_GENERIC:
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
        if (f & RWF_GNMF_HAS_PART_NUM) {
            if (left(c))
                TRY(get_u15rb(c, &m->part_num, "partNum"));
            else
                m->flags &= (uint16_t)~RWF_GNMF_HAS_PART_NUM;
        }
        if (f & RWF_GNMF_HAS_REQ_MSG_KEY) {
            if (left(c))
                TRY(get_key(c, &m->req_key, "reqMsgKey"));
            else
                m->flags &= (uint16_t)~RWF_GNMF_HAS_REQ_MSG_KEY;
        }
        return RWF_OK;
    case RWF_MC_POST:
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
        if (f & RWF_PSMF_HAS_PART_NUM) {
            if (left(c))
                TRY(get_u15rb(c, &m->part_num, "partNum"));
            else
                m->flags &= (uint16_t)~RWF_PSMF_HAS_PART_NUM;
        }
        if (f & RWF_PSMF_HAS_POST_USER_RIGHTS) {
            if (left(c))
                TRY(get_u15rb(c, &m->post_user_rights, "postUserRights"));
            else
                m->flags &= (uint16_t)~RWF_PSMF_HAS_POST_USER_RIGHTS;
        }
        return RWF_OK;
    default:
        err_set("message class %u is not an RWF message class", m->msg_class);
        return RWF_E_UNSUPPORTED;
    }
}

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
    cursor c = {p + 2, p + 2 + hlen, p, 0};
    m->msg_class = c.p[0] & 0x1F;
    m->domain = c.p[1];
    m->stream_id = (int32_t)rwf_rd32(c.p + 2);
    c.p += 6;
    c.cls = m->msg_class;
    uint16_t flags;
    uint8_t ct;
    if (get_u15rb(&c, &flags, "flags") < 0 || get_u8(&c, &ct, "container type") < 0)
        return RWF_E_MALFORMED;
    m->flags = flags;
    m->container_type = (uint8_t)(ct + RWF_DT_CONTAINER_MIN);
    int r = decode_class(&c, m);
    if (r < 0)
        return r;
    m->payload = rwf_buf_make(p + 2 + hlen, data.len - 2 - hlen);
    return RWF_OK;
}

/* ---- Encode ------------------------------------------------------------------------------ */

/* The class flags as they will be written: members that are empty drop their flag. */
static uint16_t effective_flags(const rwf_msg *m)
{
    uint16_t f = m->flags;
    switch (m->msg_class) {
    case RWF_MC_REFRESH:
        if (!m->perm_data.len)
            f &= (uint16_t)~RWF_RFMF_HAS_PERM_DATA;
        break;
    case RWF_MC_STATUS:
        if (!m->perm_data.len)
            f &= (uint16_t)~RWF_STMF_HAS_PERM_DATA;
        if (!m->group_id.len)
            f &= (uint16_t)~RWF_STMF_HAS_GROUP_ID;
        break;
    case RWF_MC_UPDATE:
        if (!m->perm_data.len)
            f &= (uint16_t)~RWF_UPMF_HAS_PERM_DATA;
        if (!m->conf_count && !m->conf_time)
            f &= (uint16_t)~RWF_UPMF_HAS_CONF_INFO;
        break;
    case RWF_MC_GENERIC:
        if (!m->perm_data.len)
            f &= (uint16_t)~RWF_GNMF_HAS_PERM_DATA;
        break;
    case RWF_MC_POST:
        if (!m->perm_data.len)
            f &= (uint16_t)~RWF_PSMF_HAS_PERM_DATA;
        break;
    case RWF_MC_ACK:
        if (!m->nak_code)
            f &= (uint16_t)~RWF_AKMF_HAS_NAK_CODE;
        if (!m->text.len)
            f &= (uint16_t)~RWF_AKMF_HAS_TEXT;
        break;
    }
    return f;
}

static int room(rwf_enc *e, size_t n)
{
    return rwf_enc_room(e, n, "a message header");
}

static int put_buf(rwf_enc *e, rwf_buf b, int form, const char *member)
{
    size_t max = form == 8 ? 0xFF : form == 15 ? 0x7FFF : 0xFFFF;
    if (b.len > max)
        return rwf_enc_err(e, RWF_E_INVALID, "%s of %u bytes is too long (at most %zu)", member,
                           (unsigned)b.len, max);
    if (!room(e, 3 + (size_t)b.len))
        return e->err;
    if (form == 8)
        *e->pos++ = (uint8_t)b.len;
    else if (form == 15)
        e->pos = rwf_wr_u15rb(e->pos, (uint16_t)b.len);
    else
        e->pos = rwf_wr_u16ob(e->pos, (uint16_t)b.len);
    if (b.len)
        memcpy(e->pos, b.data, b.len);
    e->pos += b.len;
    return RWF_OK;
}

static int put_qos(rwf_enc *e, const rwf_qos *q)
{
    if (!rwf_qos_valid(q))
        return rwf_enc_err(e, RWF_E_INVALID, "QoS with unspecified timeliness or rate");
    if (!room(e, 5))
        return e->err;
    e->pos = rwf_put_qos_body(e->pos, q);
    return RWF_OK;
}

static int put_state(rwf_enc *e, const rwf_state *s)
{
    if (!room(e, 2))
        return e->err;
    *e->pos++ = (uint8_t)(s->stream_state << 3 | (s->data_state & 7));
    *e->pos++ = s->code;
    return put_buf(e, s->text, 15, "state text");
}

static int put_u32(rwf_enc *e, uint32_t v)
{
    if (!room(e, 4))
        return e->err;
    e->pos = rwf_wr32(e->pos, v);
    return RWF_OK;
}

static int put_u15rb(rwf_enc *e, uint16_t v, const char *member)
{
    if (v > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "%s %u exceeds 32767", member, v);
    if (!room(e, 2))
        return e->err;
    e->pos = rwf_wr_u15rb(e->pos, v);
    return RWF_OK;
}

/* Writes a msgKey. With an attribute to encode in place (allowed for the message key only),
 * stops after the attribute type with *len_at set and returns 1; else back-fills the key
 * length and returns 0. */
static int put_key(rwf_enc *e, const rwf_key *k, int in_place_ok, uint8_t **len_at)
{
    uint8_t flags = k->flags;
    if ((flags & RWF_MKF_HAS_NAME) && !k->name.len)
        flags &= (uint8_t)~RWF_MKF_HAS_NAME;
    if (!(flags & RWF_MKF_HAS_NAME))
        flags &= (uint8_t)~RWF_MKF_HAS_NAME_TYPE;
    if (k->name.len > 0xFF)
        return rwf_enc_err(e, RWF_E_INVALID, "key name of %u bytes is too long (at most 255)",
                           (unsigned)k->name.len);
    /* length 2, flags 2, serviceId 3, name 1 + len, nameType 1, filter 4, identifier 4,
     * attribute type 1 */
    if (!room(e, 18 + (size_t)k->name.len))
        return e->err;
    *len_at = e->pos;
    e->pos += 2;
    e->pos = rwf_wr_u15rb(e->pos, flags);
    if (flags & RWF_MKF_HAS_SERVICE_ID)
        e->pos = rwf_wr_u16ob(e->pos, k->service_id);
    if (flags & RWF_MKF_HAS_NAME) {
        *e->pos++ = (uint8_t)k->name.len;
        memcpy(e->pos, k->name.data, k->name.len);
        e->pos += k->name.len;
        if (flags & RWF_MKF_HAS_NAME_TYPE)
            *e->pos++ = k->name_type;
    }
    if (flags & RWF_MKF_HAS_FILTER)
        e->pos = rwf_wr32(e->pos, k->filter);
    if (flags & RWF_MKF_HAS_IDENTIFIER)
        e->pos = rwf_wr32(e->pos, (uint32_t)k->identifier);
    if (flags & RWF_MKF_HAS_ATTRIB) {
        if (k->attrib_type < RWF_DT_CONTAINER_MIN)
            return rwf_enc_err(e, RWF_E_INVALID, "key attribute type %u is not a container",
                               k->attrib_type);
        *e->pos++ = (uint8_t)(k->attrib_type - RWF_DT_CONTAINER_MIN);
        if (k->attrib_type != RWF_DT_NO_DATA) {
            if (!k->attrib.len) {
                if (!in_place_ok)
                    return rwf_enc_err(e, RWF_E_INVALID, "reqMsgKey attribute must be pre-encoded");
                return 1;
            }
            if (put_buf(e, k->attrib, 15, "key attribute") < 0)
                return e->err;
        }
    }
    size_t len = (size_t)(e->pos - *len_at - 2);
    if (len > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "msgKey of %zu bytes is too long", len);
    rwf_wr_u15rb2(*len_at, (uint16_t)len);
    return 0;
}

/* The header members that follow the key, the header length, and the payload set-up. */
static int put_after_key(rwf_enc *e, rwf_enc_frame *f, const rwf_msg *m)
{
    uint16_t fl = f->msg_flags;
    uint8_t *unused;
    int r;

    if ((fl & ext_flag(m->msg_class)) && put_buf(e, m->ext_header, 8, "extended header") < 0)
        return e->err;
    switch (m->msg_class) {
    case RWF_MC_REFRESH:
    case RWF_MC_STATUS:
    case RWF_MC_UPDATE: {
        uint16_t pui = m->msg_class == RWF_MC_REFRESH  ? RWF_RFMF_HAS_POST_USER_INFO
                       : m->msg_class == RWF_MC_STATUS ? RWF_STMF_HAS_POST_USER_INFO
                                                       : RWF_UPMF_HAS_POST_USER_INFO;
        if (fl & pui) {
            if (put_u32(e, m->post_user_addr) < 0 || put_u32(e, m->post_user_id) < 0)
                return e->err;
        }
        if (m->msg_class == RWF_MC_REFRESH && (fl & RWF_RFMF_HAS_PART_NUM) &&
            put_u15rb(e, m->part_num, "partNum") < 0)
            return e->err;
        uint16_t rk = m->msg_class == RWF_MC_REFRESH  ? RWF_RFMF_HAS_REQ_MSG_KEY
                      : m->msg_class == RWF_MC_STATUS ? RWF_STMF_HAS_REQ_MSG_KEY
                                                      : 0;
        if ((fl & rk) && (r = put_key(e, &m->req_key, 0, &unused)) < 0)
            return r;
        break;
    }
    case RWF_MC_GENERIC:
        if ((fl & RWF_GNMF_HAS_PART_NUM) && put_u15rb(e, m->part_num, "partNum") < 0)
            return e->err;
        if ((fl & RWF_GNMF_HAS_REQ_MSG_KEY) && (r = put_key(e, &m->req_key, 0, &unused)) < 0)
            return r;
        break;
    case RWF_MC_POST:
        if ((fl & RWF_PSMF_HAS_PART_NUM) && put_u15rb(e, m->part_num, "partNum") < 0)
            return e->err;
        if ((fl & RWF_PSMF_HAS_POST_USER_RIGHTS) &&
            put_u15rb(e, m->post_user_rights, "postUserRights") < 0)
            return e->err;
        break;
    }
    size_t hlen = (size_t)(e->pos - f->count_at - 2);
    if (hlen > 0xFFFF)
        return rwf_enc_err(e, RWF_E_INVALID, "message header of %zu bytes is too long", hlen);
    rwf_wr16(f->count_at, (uint16_t)hlen);
    f->msg = NULL;

    if (m->container_type == RWF_DT_NO_DATA) {
        f->state = RWF_ES_DONE;
    } else if (m->payload.len) {
        if (!rwf_enc_room(e, m->payload.len, "a message payload"))
            return e->err;
        memcpy(e->pos, m->payload.data, m->payload.len);
        e->pos += m->payload.len;
        f->state = RWF_ES_DONE;
    } else {
        f->state = RWF_ES_PAYLOAD;
        f->value_type = m->container_type;
    }
    return RWF_OK;
}

int rwf_msg_enc_attrib_done(rwf_enc *e, rwf_enc_frame *f)
{
    size_t len = (size_t)(e->pos - f->mark - 2);
    if (len > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "msgKey of %zu bytes is too long", len);
    rwf_wr_u15rb2(f->mark, (uint16_t)len);
    f->mark = NULL;
    return put_after_key(e, f, (const rwf_msg *)f->msg);
}

int rwf_enc_msg_begin(rwf_enc *e, const rwf_msg *m)
{
    rwf_enc_frame *f;
    int r;

    if (e->err)
        return e->err;
    if (m->msg_class < RWF_MC_REQUEST || m->msg_class > RWF_MC_POST)
        return rwf_enc_err(e, RWF_E_INVALID, "message class %u is not an RWF class", m->msg_class);
    if (m->container_type < RWF_DT_CONTAINER_MIN)
        return rwf_enc_err(e, RWF_E_INVALID, "payload type %u is not a container type",
                           m->container_type);
    if ((r = rwf_enc_push(e, RWF_DT_MSG, &f)) < 0)
        return r;
    uint16_t fl = effective_flags(m);
    if (fl > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "message flags 0x%x exceed 15 bits", fl);
    f->msg_flags = fl;
    f->msg = m;
    if (!room(e, 11))
        return e->err;
    f->count_at = e->pos; /* header length */
    e->pos += 2;
    *e->pos++ = m->msg_class;
    *e->pos++ = m->domain;
    e->pos = rwf_wr32(e->pos, (uint32_t)m->stream_id);
    e->pos = rwf_wr_u15rb(e->pos, fl);
    *e->pos++ = (uint8_t)(m->container_type - RWF_DT_CONTAINER_MIN);

    switch (m->msg_class) {
    case RWF_MC_REQUEST:
        if (fl & RWF_RQMF_HAS_PRIORITY) {
            if (!room(e, 4))
                return e->err;
            *e->pos++ = m->priority_class;
            e->pos = rwf_wr_u16ob(e->pos, m->priority_count);
        }
        if ((fl & RWF_RQMF_HAS_QOS) && put_qos(e, &m->qos) < 0)
            return e->err;
        if ((fl & RWF_RQMF_HAS_WORST_QOS) && put_qos(e, &m->worst_qos) < 0)
            return e->err;
        break;
    case RWF_MC_REFRESH:
        if ((fl & RWF_RFMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
            return e->err;
        if (put_state(e, &m->state) < 0)
            return e->err;
        if (m->group_id.len) {
            if (put_buf(e, m->group_id, 8, "groupId") < 0)
                return e->err;
        } else {
            if (!room(e, 3))
                return e->err;
            e->pos = rwf_wr16(rwf_wr_u16ob(e->pos, 2), 0);
        }
        if ((fl & RWF_RFMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
            return e->err;
        if ((fl & RWF_RFMF_HAS_QOS) && put_qos(e, &m->qos) < 0)
            return e->err;
        break;
    case RWF_MC_STATUS:
        if ((fl & RWF_STMF_HAS_STATE) && put_state(e, &m->state) < 0)
            return e->err;
        if ((fl & RWF_STMF_HAS_GROUP_ID) && put_buf(e, m->group_id, 8, "groupId") < 0)
            return e->err;
        if ((fl & RWF_STMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
            return e->err;
        break;
    case RWF_MC_UPDATE:
        if (!room(e, 1))
            return e->err;
        *e->pos++ = m->update_type;
        if ((fl & RWF_UPMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
            return e->err;
        if (fl & RWF_UPMF_HAS_CONF_INFO) {
            if (put_u15rb(e, m->conf_count, "conflation count") < 0 || !room(e, 2))
                return e->err;
            e->pos = rwf_wr16(e->pos, m->conf_time);
        }
        if ((fl & RWF_UPMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
            return e->err;
        break;
    case RWF_MC_CLOSE:
        break;
    case RWF_MC_ACK:
        if (put_u32(e, m->ack_id) < 0)
            return e->err;
        if (fl & RWF_AKMF_HAS_NAK_CODE) {
            if (!room(e, 1))
                return e->err;
            *e->pos++ = m->nak_code;
        }
        if ((fl & RWF_AKMF_HAS_TEXT) && put_buf(e, m->text, 16, "text") < 0)
            return e->err;
        if ((fl & RWF_AKMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
            return e->err;
        break;
    case RWF_MC_GENERIC:
        if ((fl & RWF_GNMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
            return e->err;
        if ((fl & RWF_GNMF_HAS_SECONDARY_SEQ_NUM) && put_u32(e, m->secondary_seq_num) < 0)
            return e->err;
        if ((fl & RWF_GNMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
            return e->err;
        break;
    case RWF_MC_POST:
        if (put_u32(e, m->post_user_addr) < 0 || put_u32(e, m->post_user_id) < 0)
            return e->err;
        if ((fl & RWF_PSMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
            return e->err;
        if ((fl & RWF_PSMF_HAS_POST_ID) && put_u32(e, m->post_id) < 0)
            return e->err;
        if ((fl & RWF_PSMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
            return e->err;
        break;
    }

    if (m->msg_class == RWF_MC_REQUEST || (fl & key_flag(m->msg_class))) {
        r = put_key(e, &m->key, 1, &f->mark);
        if (r < 0)
            return r;
        if (r == 1) { /* attribute in place: the header continues at rwf_msg_enc_attrib_done */
            f->state = RWF_ES_ATTRIB;
            f->value_type = m->key.attrib_type;
            return RWF_OK;
        }
        f->mark = NULL;
    }
    return put_after_key(e, f, m);
}

int rwf_enc_msg_end(rwf_enc *e)
{
    if (e->err)
        return e->err;
    if (rwf_enc_top(e)->kind != RWF_DT_MSG)
        return rwf_enc_err(e, RWF_E_INVALID,
                           "message end, but the open container is not a "
                           "message");
    return rwf_enc_end(e);
}

int rwf_enc_msg(rwf_enc *e, const rwf_msg *m)
{
    int r = rwf_enc_msg_begin(e, m);
    if (r < 0)
        return r;
    if (rwf_enc_top(e)->state == RWF_ES_ATTRIB)
        return rwf_enc_err(e, RWF_E_INVALID, "one-step encode needs a pre-encoded attribute");
    return rwf_enc_msg_end(e);
}

int rwf_msg_encode(const rwf_msg *m, void *buf, size_t cap, size_t *len)
{
    rwf_enc e;
    rwf_enc_init(&e, buf, cap);
    rwf_enc_msg(&e, m);
    return rwf_enc_finish(&e, len);
}
