/*
 * rwf_msg_enc: the message encoder — the header of each of the eight classes, in wire order
 * (docs/wire.md#message-headers), one function per class for the members before the key and one for
 * the late members after it. A key attribute encoded in place suspends the header between the two.
 */
#include "rwf_enc_int.h"
#include "rwf_msg_int.h"

static uint16_t ext_flag(int msg_class)
{
    return msg_class == RWF_MC_REQUEST || msg_class == RWF_MC_REFRESH ||
                   msg_class == RWF_MC_STATUS || msg_class == RWF_MC_UPDATE ||
                   msg_class == RWF_MC_CLOSE || msg_class == RWF_MC_ACK ||
                   msg_class == RWF_MC_GENERIC || msg_class == RWF_MC_POST
               ? 0x0001
               : 0;
}

/* ---- Header members ---------------------------------------------------------------------- */

uint16_t rwf_msg_flags(const rwf_msg *m)
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
    size_t max = form == 8 ? 0xFF : form == 15 ? RWF_U15RB_MAX : RWF_U16OB_MAX;
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
    *e->pos++ = rwf_state_byte(s);
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
    if (v > RWF_U15RB_MAX)
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
    if (len > RWF_U15RB_MAX)
        return rwf_enc_err(e, RWF_E_INVALID, "msgKey of %zu bytes is too long", len);
    rwf_wr_u15rb2(*len_at, (uint16_t)len);
    return 0;
}

/* ---- One function per class: the members before the key ---------------------------------- */

/* put_<class> writes the members of its class that come before the key (fl: the flags as they
 * are written): RWF_OK or the sticky error. */

static int put_request(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
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
    return RWF_OK;
}

static int put_refresh(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_RFMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
        return e->err;
    if (put_state(e, &m->state) < 0)
        return e->err;
    if (m->group_id.len) {
        if (put_buf(e, m->group_id, 8, "groupId") < 0)
            return e->err;
    } else { /* group 0: two zero bytes */
        if (!room(e, 3))
            return e->err;
        e->pos = rwf_wr16(rwf_wr_u16ob(e->pos, 2), 0);
    }
    if ((fl & RWF_RFMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
        return e->err;
    if ((fl & RWF_RFMF_HAS_QOS) && put_qos(e, &m->qos) < 0)
        return e->err;
    return RWF_OK;
}

static int put_status(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_STMF_HAS_STATE) && put_state(e, &m->state) < 0)
        return e->err;
    if ((fl & RWF_STMF_HAS_GROUP_ID) && put_buf(e, m->group_id, 8, "groupId") < 0)
        return e->err;
    if ((fl & RWF_STMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
        return e->err;
    return RWF_OK;
}

static int put_update(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
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
    return RWF_OK;
}

static int put_ack(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
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
    return RWF_OK;
}

static int put_generic(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_GNMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
        return e->err;
    if ((fl & RWF_GNMF_HAS_SECONDARY_SEQ_NUM) && put_u32(e, m->secondary_seq_num) < 0)
        return e->err;
    if ((fl & RWF_GNMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
        return e->err;
    return RWF_OK;
}

static int put_post(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if (put_u32(e, m->post_user_addr) < 0 || put_u32(e, m->post_user_id) < 0)
        return e->err;
    if ((fl & RWF_PSMF_HAS_SEQ_NUM) && put_u32(e, m->seq_num) < 0)
        return e->err;
    if ((fl & RWF_PSMF_HAS_POST_ID) && put_u32(e, m->post_id) < 0)
        return e->err;
    if ((fl & RWF_PSMF_HAS_PERM_DATA) && put_buf(e, m->perm_data, 15, "permData") < 0)
        return e->err;
    return RWF_OK;
}

/* The class-specific members that precede the key (fl: the flags as written). */
static int put_class(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    switch (m->msg_class) {
    case RWF_MC_REQUEST:
        return put_request(e, m, fl);
    case RWF_MC_REFRESH:
        return put_refresh(e, m, fl);
    case RWF_MC_STATUS:
        return put_status(e, m, fl);
    case RWF_MC_UPDATE:
        return put_update(e, m, fl);
    case RWF_MC_ACK:
        return put_ack(e, m, fl);
    case RWF_MC_GENERIC:
        return put_generic(e, m, fl);
    case RWF_MC_POST:
        return put_post(e, m, fl);
    default: /* Close: nothing */
        return RWF_OK;
    }
}

/* ---- One function per class: the late members, after the extended header ----------------- */

/* put_<class>_late writes the members of its class that follow the key and the extended
 * header (fl: the flags as written): RWF_OK or the sticky error. */

/* postUserInfo: address and user id. */
static int put_post_user_info(rwf_enc *e, const rwf_msg *m)
{
    if (put_u32(e, m->post_user_addr) < 0 || put_u32(e, m->post_user_id) < 0)
        return e->err;
    return RWF_OK;
}

/* reqMsgKey: its attribute must be pre-encoded. */
static int put_req_key(rwf_enc *e, const rwf_msg *m)
{
    uint8_t *unused;
    int r = put_key(e, &m->req_key, 0, &unused);
    return r < 0 ? r : RWF_OK;
}

static int put_refresh_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_RFMF_HAS_POST_USER_INFO) && put_post_user_info(e, m) < 0)
        return e->err;
    if ((fl & RWF_RFMF_HAS_PART_NUM) && put_u15rb(e, m->part_num, "partNum") < 0)
        return e->err;
    if (fl & RWF_RFMF_HAS_REQ_MSG_KEY)
        return put_req_key(e, m);
    return RWF_OK;
}

static int put_status_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_STMF_HAS_POST_USER_INFO) && put_post_user_info(e, m) < 0)
        return e->err;
    if (fl & RWF_STMF_HAS_REQ_MSG_KEY)
        return put_req_key(e, m);
    return RWF_OK;
}

static int put_update_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_UPMF_HAS_POST_USER_INFO) && put_post_user_info(e, m) < 0)
        return e->err;
    return RWF_OK;
}

static int put_generic_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_GNMF_HAS_PART_NUM) && put_u15rb(e, m->part_num, "partNum") < 0)
        return e->err;
    if (fl & RWF_GNMF_HAS_REQ_MSG_KEY)
        return put_req_key(e, m);
    return RWF_OK;
}

static int put_post_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    if ((fl & RWF_PSMF_HAS_PART_NUM) && put_u15rb(e, m->part_num, "partNum") < 0)
        return e->err;
    if ((fl & RWF_PSMF_HAS_POST_USER_RIGHTS) &&
        put_u15rb(e, m->post_user_rights, "postUserRights") < 0)
        return e->err;
    return RWF_OK;
}

/* The class-specific members that follow the key and the extended header. */
static int put_class_late(rwf_enc *e, const rwf_msg *m, uint16_t fl)
{
    switch (m->msg_class) {
    case RWF_MC_REFRESH:
        return put_refresh_late(e, m, fl);
    case RWF_MC_STATUS:
        return put_status_late(e, m, fl);
    case RWF_MC_UPDATE:
        return put_update_late(e, m, fl);
    case RWF_MC_GENERIC:
        return put_generic_late(e, m, fl);
    case RWF_MC_POST:
        return put_post_late(e, m, fl);
    default: /* Request, Close, Ack: nothing */
        return RWF_OK;
    }
}

/* ---- Message ----------------------------------------------------------------------------- */

/* The header members that follow the key, the header length, and the payload set-up. */
static int put_after_key(rwf_enc *e, rwf_enc_frame *f, const rwf_msg *m)
{
    uint16_t fl = f->msg_flags;
    int r;

    if ((fl & ext_flag(m->msg_class)) && put_buf(e, m->ext_header, 8, "extended header") < 0)
        return e->err;
    if ((r = put_class_late(e, m, fl)) < 0)
        return r;
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
    if (len > RWF_U15RB_MAX)
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
    uint16_t fl = rwf_msg_flags(m);
    if (fl > RWF_U15RB_MAX)
        return rwf_enc_err(e, RWF_E_INVALID, "message flags 0x%x exceed 15 bits", fl);
    f->msg_flags = fl;
    f->msg = m;
    if (!room(e, 11))
        return e->err;
    f->count_at = e->pos; /* header length */
    e->pos += 2;
    e->pos =
        rwf_msg_put_fixed(e->pos, m->msg_class, m->domain, m->stream_id, fl, m->container_type);
    if (put_class(e, m, fl) < 0)
        return e->err;

    if (m->msg_class == RWF_MC_REQUEST || (fl & rwf_msg_key_flag(m->msg_class))) {
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
