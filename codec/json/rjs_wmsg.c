/*
 * rjs_wmsg: RWF -> JSON for messages: the header of each class with the keys, order and
 * defaults of the original converter (a key is written only when its value differs from the
 * JSON default), the message key, batch and view requests, batch closes; and the public entry
 * points (rjs_msg_to_json, the rjs_batch_* array helpers).
 */
#include "rjs_int.h"
#include "rjs_names.h"

/* ,"Name": then the name of value v in t (or the number). */
static int w_kv_named(rjs_w *w, const char *key, size_t klen, const rjs_names *t, int v)
{
    const rjs_name_ent *e = rjs_name(t, v);
    if (rjs_w_key(w, key, klen, 1) < 0)
        return RWF_E_NOSPACE;
    return e ? rjs_w_str(w, e->name, e->len) : rjs_w_i64(w, v);
}

#define KV_NAMED(w, key, t, v) w_kv_named((w), (key), sizeof(key) - 1, (t), (v))

/* ,"Key":<unsigned number> */
static int w_kv_u(rjs_w *w, const char *lit, size_t n, uint64_t v)
{
    return rjs_write(w, lit, n) < 0 ? RWF_E_NOSPACE : rjs_w_u64(w, v);
}

#define KV_U(w, lit, v) w_kv_u((w), (lit), sizeof(lit) - 1, (v))

static int w_post_user(rjs_w *w, uint32_t addr, uint32_t id)
{
    if (!rjs_room(w, 64))
        return RWF_E_NOSPACE;
    RJS_PUTS(w, "{\"Address\":\"");
    for (int i = 3; i >= 0; i--) {
        w->p = rjs_fmt_u64(w->p, (addr >> (8 * i)) & 0xFF);
        if (i)
            *w->p++ = '.';
    }
    RJS_PUTS(w, "\",\"UserID\":");
    w->p = rjs_fmt_u64(w->p, id);
    *w->p++ = '}';
    return RWF_OK;
}

static int w_key(rjs_w *w, const rwf_key *k, int domain)
{
    int comma = 0, rc;
    uint8_t kf = k->flags; /* an empty name is no name, and takes its type along (encoder) */
    if ((kf & RWF_MKF_HAS_NAME) && !k->name.len)
        kf &= (uint8_t)~RWF_MKF_HAS_NAME;
    if (!(kf & RWF_MKF_HAS_NAME))
        kf &= (uint8_t)~RWF_MKF_HAS_NAME_TYPE;
    if (RJS_WRITES(w, "{") < 0)
        return RWF_E_NOSPACE;
    if (kf & RWF_MKF_HAS_SERVICE_ID) {
        if (KV_U(w, "\"Service\":", k->service_id) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if ((kf & RWF_MKF_HAS_NAME_TYPE) && k->name_type != 1) {
        const rjs_names *t =
            domain == RWF_DMT_LOGIN ? &rjs_login_name_types : &rjs_instrument_name_types;
        const rjs_name_ent *e = rjs_name(t, k->name_type);
        if (rjs_write_sep(w, ",\"NameType\":", comma) < 0 ||
            (e ? rjs_w_str(w, e->name, e->len) : rjs_w_u64(w, k->name_type)) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if ((kf & RWF_MKF_HAS_NAME) && k->name_type != 4 && k->name_type != 5) {
        if (rjs_write_sep(w, ",\"Name\":", comma) < 0)
            return RWF_E_NOSPACE;
        if (k->name.len == 1 && k->name.data[0] == 0) /* the NUL name */
            rc = RJS_WRITES(w, "null");
        else
            rc = rjs_w_str(w, k->name.data, k->name.len);
        if (rc < 0)
            return rc;
        comma = 1;
    }
    if (kf & RWF_MKF_HAS_FILTER) {
        if (rjs_write_sep(w, ",\"Filter\":", comma) < 0 || rjs_w_u64(w, k->filter) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (kf & RWF_MKF_HAS_IDENTIFIER) {
        if (rjs_write_sep(w, ",\"Identifier\":", comma) < 0 || rjs_w_i64(w, k->identifier) < 0)
            return RWF_E_NOSPACE;
        comma = 1;
    }
    if (kf & RWF_MKF_HAS_ATTRIB) {
        if (comma && RJS_WRITES(w, ",") < 0)
            return RWF_E_NOSPACE;
        if ((rc = rjs_w_container(w, k->attrib_type, k->attrib, NULL, 1)) < 0)
            return rc;
    }
    return RJS_WRITES(w, "}");
}

/* ,"ExtHdr":"base64" / ,"PermData":"base64" */
static int w_b64(rjs_w *w, const char *lit, size_t n, rwf_buf b)
{
    return rjs_write(w, lit, n) < 0 ? RWF_E_NOSPACE : rjs_w_buf64(w, b.data, b.len);
}

#define KV_B64(w, lit, b) w_b64((w), (lit), sizeof(lit) - 1, (b))

/* ,"Key":{...} and the like */
static int w_kv_key(rjs_w *w, const char *lit, size_t n, const rwf_key *k, int domain)
{
    return rjs_write(w, lit, n) < 0 ? RWF_E_NOSPACE : w_key(w, k, domain);
}

#define KV_KEY(w, lit, k, d) w_kv_key((w), (lit), sizeof(lit) - 1, (k), (d))

/* Finds the array of element name in an element list payload. */
static int find_array(rwf_buf payload, const char *name, rwf_buf *out)
{
    rwf_el_dec d;
    rwf_element el;
    int rc = rwf_el_dec_init(&d, payload, NULL);
    out->len = 0;
    out->data = NULL;
    while (rc >= 0 && (rc = rwf_el_next(&d, &el)) == RWF_OK)
        if (el.type == RWF_DT_ARRAY && rwf_buf_eq_cstr(el.name, name))
            *out = el.data;
    return rc < 0 ? rc : RWF_OK;
}

/* [item,...] of an array of strings (quoted) or integers. */
static int w_items(rjs_w *w, rwf_buf arr)
{
    rwf_array_dec d;
    rwf_buf item;
    rwf_value v;
    int rc = rwf_array_dec_init(&d, arr);
    if (rc < 0 || RJS_WRITES(w, "[") < 0)
        return rc < 0 ? rc : RWF_E_NOSPACE;
    for (int i = 0; rc >= 0 && (rc = rwf_array_next(&d, &item)) == RWF_OK; i++) {
        if ((i && RJS_WRITES(w, ",") < 0) || (rc = rwf_array_item_value(&d, item, &v)) < 0)
            return rc < 0 ? rc : RWF_E_NOSPACE;
        if (v.type >= RWF_DT_BUFFER && v.type <= RWF_DT_RMTES_STRING)
            rc = rjs_w_str(w, v.buf.data, v.buf.len);
        else if (v.type == RWF_DT_INT)
            rc = rjs_w_i64(w, v.i);
        else if (v.type == RWF_DT_UINT)
            rc = rjs_w_u64(w, v.u);
        else
            rc = RJS_WRITES(w, "null");
    }
    return rc < 0 ? rc : RJS_WRITES(w, "]");
}

/* Request with batch and/or view: "Key":{...,"Name":[names]} and "View":[...]. */
static int w_batch_view(rjs_w *w, const rwf_msg *m)
{
    rwf_buf items, view;
    int rc;
    if (m->container_type != RWF_DT_ELEMENT_LIST) {
        err_set("a batch or view request needs an ElementList payload");
        return RWF_E_MALFORMED;
    }
    if ((rc = find_array(m->payload, ":ItemList", &items)) < 0 ||
        (rc = find_array(m->payload, ":ViewData", &view)) < 0)
        return rc;
    uint64_t view_type = 1;
    rwf_el_dec d;
    rwf_element el;
    rc = rwf_el_dec_init(&d, m->payload, NULL);
    while (rc >= 0 && (rc = rwf_el_next(&d, &el)) == RWF_OK)
        if (rwf_buf_eq_cstr(el.name, ":ViewType") && rwf_get_uint(el.data, &view_type) < 0)
            return RWF_E_MALFORMED;
    if (rc < 0)
        return rc;
    if (RJS_WRITES(w, ",\"Key\":") < 0 || (rc = w_key(w, &m->key, m->domain)) < 0)
        return rc < 0 ? rc : RWF_E_NOSPACE;
    if (m->flags & RWF_RQMF_HAS_BATCH) {
        if (!items.len) {
            err_set("a batch request needs an :ItemList");
            return RWF_E_MALFORMED;
        }
        w->p--; /* reopen the key object */
        if (rjs_write_sep(w, ",\"Name\":", w->p[-1] != '{') < 0 || (rc = w_items(w, items)) < 0 ||
            RJS_WRITES(w, "}") < 0)
            return rc < 0 ? rc : RWF_E_NOSPACE;
    }
    if (!view.len)
        return RWF_OK;
    if (view_type == 2 && RJS_WRITES(w, ",\"ViewType\":\"NameList\"") < 0)
        return RWF_E_NOSPACE;
    if (RJS_WRITES(w, ",\"View\":") < 0)
        return RWF_E_NOSPACE;
    return w_items(w, view);
}

static int w_request(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    int rc;
    if (!(f & RWF_RQMF_STREAMING) && RJS_WRITES(w, ",\"Streaming\":false") < 0)
        return RWF_E_NOSPACE;
    if (f) {
        if ((f & RWF_RQMF_HAS_PRIORITY) &&
            (KV_U(w, ",\"Priority\":{\"Class\":", m->priority_class) < 0 ||
             KV_U(w, ",\"Count\":", m->priority_count) < 0 || RJS_WRITES(w, "}") < 0))
            return RWF_E_NOSPACE;
        if (!(f & RWF_RQMF_MSG_KEY_IN_UPDATES) && RJS_WRITES(w, ",\"KeyInUpdates\":false") < 0)
            return RWF_E_NOSPACE;
        /* for Login and Dictionary the reader's default is false: a true is written */
        if ((f & RWF_RQMF_MSG_KEY_IN_UPDATES) &&
            (m->domain == RWF_DMT_LOGIN || m->domain == RWF_DMT_DICTIONARY) &&
            RJS_WRITES(w, ",\"KeyInUpdates\":true") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_CONF_INFO_IN_UPDATES) && RJS_WRITES(w, ",\"ConfInfoInUpdates\":true") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_NO_REFRESH) && RJS_WRITES(w, ",\"Refresh\":false") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_HAS_QOS) && (RJS_WRITES(w, ",\"Qos\":") < 0 || rjs_w_qos(w, &m->qos) < 0))
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_HAS_WORST_QOS) &&
            (RJS_WRITES(w, ",\"WorstQos\":") < 0 || rjs_w_qos(w, &m->worst_qos) < 0))
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_PRIVATE_STREAM) && RJS_WRITES(w, ",\"Private\":true") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_QUALIFIED_STREAM) && RJS_WRITES(w, ",\"Qualified\":true") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_PAUSE) && RJS_WRITES(w, ",\"Pause\":true") < 0)
            return RWF_E_NOSPACE;
        if ((f & RWF_RQMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
            return RWF_E_NOSPACE;
    }
    if (f & (RWF_RQMF_HAS_BATCH | RWF_RQMF_HAS_VIEW))
        return w_batch_view(w, m);
    if ((rc = KV_KEY(w, ",\"Key\":", &m->key, m->domain)) < 0)
        return rc;
    return 1; /* the payload follows */
}

static int w_refresh(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if ((f & RWF_RFMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if (RJS_WRITES(w, ",\"State\":") < 0 || rjs_w_state(w, &m->state) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_REQ_MSG_KEY) && KV_KEY(w, ",\"ReqKey\":", &m->req_key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    if (!(f & RWF_RFMF_REFRESH_COMPLETE) && RJS_WRITES(w, ",\"Complete\":false") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_QOS) && (RJS_WRITES(w, ",\"Qos\":") < 0 || rjs_w_qos(w, &m->qos) < 0))
        return RWF_E_NOSPACE;
    if (!(f & RWF_RFMF_CLEAR_CACHE) && RJS_WRITES(w, ",\"ClearCache\":false") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_DO_NOT_CACHE) && RJS_WRITES(w, ",\"DoNotCache\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_PRIVATE_STREAM) && RJS_WRITES(w, ",\"Private\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_QUALIFIED_STREAM) && RJS_WRITES(w, ",\"Qualified\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_POST_USER_INFO) &&
        (RJS_WRITES(w, ",\"PostUserInfo\":") < 0 ||
         w_post_user(w, m->post_user_addr, m->post_user_id) < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_PART_NUM) && KV_U(w, ",\"PartNumber\":", m->part_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_PERM_DATA) && KV_B64(w, ",\"PermData\":", m->perm_data) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_RFMF_HAS_SEQ_NUM) && KV_U(w, ",\"SeqNumber\":", m->seq_num) < 0)
        return RWF_E_NOSPACE;
    if (!(f & RWF_RFMF_SOLICITED) && RJS_WRITES(w, ",\"Solicited\":false") < 0)
        return RWF_E_NOSPACE;
    return 1;
}

static int w_status(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if ((f & RWF_STMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_HAS_REQ_MSG_KEY) && KV_KEY(w, ",\"ReqKey\":", &m->req_key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_HAS_STATE) &&
        (RJS_WRITES(w, ",\"State\":") < 0 || rjs_w_state(w, &m->state) < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_CLEAR_CACHE) && RJS_WRITES(w, ",\"ClearCache\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_PRIVATE_STREAM) && RJS_WRITES(w, ",\"Private\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_QUALIFIED_STREAM) && RJS_WRITES(w, ",\"Qualified\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_HAS_POST_USER_INFO) &&
        (RJS_WRITES(w, ",\"PostUserInfo\":") < 0 ||
         w_post_user(w, m->post_user_addr, m->post_user_id) < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_STMF_HAS_PERM_DATA) && KV_B64(w, ",\"PermData\":", m->perm_data) < 0)
        return RWF_E_NOSPACE;
    return 1;
}

static int w_update(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if (KV_NAMED(w, "UpdateType", &rjs_update_types, m->update_type) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_DO_NOT_CONFLATE) && RJS_WRITES(w, ",\"DoNotConflate\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_DO_NOT_RIPPLE) && RJS_WRITES(w, ",\"DoNotRipple\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_DISCARDABLE) && RJS_WRITES(w, ",\"Discardable\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_DO_NOT_CACHE) && RJS_WRITES(w, ",\"DoNotCache\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_POST_USER_INFO) &&
        (RJS_WRITES(w, ",\"PostUserInfo\":") < 0 ||
         w_post_user(w, m->post_user_addr, m->post_user_id) < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_PERM_DATA) && KV_B64(w, ",\"PermData\":", m->perm_data) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_SEQ_NUM) && KV_U(w, ",\"SeqNumber\":", m->seq_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_CONF_INFO) &&
        (KV_U(w, ",\"ConflationInfo\":{\"Count\":", m->conf_count) < 0 ||
         KV_U(w, ",\"Time\":", m->conf_time) < 0 || RJS_WRITES(w, "}") < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_UPMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    return 1;
}

static int w_close_tail(rjs_w *w, const rwf_msg *m)
{
    if ((m->flags & RWF_CLMF_ACK) && RJS_WRITES(w, ",\"Ack\":true") < 0)
        return RWF_E_NOSPACE;
    if ((m->flags & RWF_CLMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    return (m->flags & RWF_CLMF_HAS_BATCH) ? 0 : 1;
}

static int w_ack(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if (KV_U(w, ",\"AckID\":", m->ack_id) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_HAS_NAK_CODE) && KV_NAMED(w, "NakCode", &rjs_nak_codes, m->nak_code) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_HAS_TEXT) &&
        (RJS_WRITES(w, ",\"Text\":") < 0 || rjs_w_str(w, m->text.data, m->text.len) < 0))
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_PRIVATE_STREAM) && RJS_WRITES(w, ",\"Private\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_HAS_SEQ_NUM) && KV_U(w, ",\"SeqNumber\":", m->seq_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_AKMF_QUALIFIED_STREAM) && RJS_WRITES(w, ",\"Qualified\":true") < 0)
        return RWF_E_NOSPACE;
    return 1;
}

static int w_generic(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if ((f & RWF_GNMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_REQ_MSG_KEY) && KV_KEY(w, ",\"ReqKey\":", &m->req_key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_SEQ_NUM) && KV_U(w, ",\"SeqNumber\":", m->seq_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_SECONDARY_SEQ_NUM) &&
        KV_U(w, ",\"SecSeqNumber\":", m->secondary_seq_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_PART_NUM) && KV_U(w, ",\"PartNumber\":", m->part_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_PERM_DATA) && KV_B64(w, ",\"PermData\":", m->perm_data) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_GNMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    if (!(f & RWF_GNMF_MESSAGE_COMPLETE) && RJS_WRITES(w, ",\"Complete\":false") < 0)
        return RWF_E_NOSPACE;
    return 1;
}

static int w_post(rjs_w *w, const rwf_msg *m)
{
    uint16_t f = rwf_msg_flags(m);
    if (RJS_WRITES(w, ",\"PostUserInfo\":") < 0 ||
        w_post_user(w, m->post_user_addr, m->post_user_id) < 0)
        return RWF_E_NOSPACE;
    if (f == RWF_PSMF_POST_COMPLETE)
        return 1;
    if ((f & RWF_PSMF_HAS_POST_ID) && KV_U(w, ",\"PostID\":", m->post_id) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_MSG_KEY) && KV_KEY(w, ",\"Key\":", &m->key, m->domain) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_SEQ_NUM) && KV_U(w, ",\"SeqNumber\":", m->seq_num) < 0)
        return RWF_E_NOSPACE;
    if (!(f & RWF_PSMF_POST_COMPLETE) && RJS_WRITES(w, ",\"Complete\":false") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_ACK) && RJS_WRITES(w, ",\"Ack\":true") < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_PERM_DATA) && KV_B64(w, ",\"PermData\":", m->perm_data) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_PART_NUM) && KV_U(w, ",\"PartNumber\":", m->part_num) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_POST_USER_RIGHTS) &&
        KV_U(w, ",\"PostUserRights\":", m->post_user_rights) < 0)
        return RWF_E_NOSPACE;
    if ((f & RWF_PSMF_HAS_EXTENDED_HEADER) && KV_B64(w, ",\"ExtHdr\":", m->ext_header) < 0)
        return RWF_E_NOSPACE;
    return 1;
}

/* {"ID":<id>  — or for a batch close {"ID":[ids] */
static int w_id(rjs_w *w, const rwf_msg *m)
{
    if (m->msg_class == RWF_MC_CLOSE && (m->flags & RWF_CLMF_HAS_BATCH)) {
        rwf_buf ids;
        int rc;
        if (m->container_type != RWF_DT_ELEMENT_LIST ||
            (rc = find_array(m->payload, ":StreamIdList", &ids)) < 0 || !ids.len) {
            err_set("a batch close needs a :StreamIdList");
            return RWF_E_MALFORMED;
        }
        if (RJS_WRITES(w, "{\"ID\":") < 0)
            return RWF_E_NOSPACE;
        return w_items(w, ids);
    }
    if (!rjs_room(w, 32))
        return RWF_E_NOSPACE;
    RJS_PUTS(w, "{\"ID\":");
    w->p = rjs_fmt_i64(w->p, m->stream_id);
    return RWF_OK;
}

static int w_body(rjs_w *w, const rwf_msg *m)
{
    int rc;
    const rjs_name_ent *cn = rjs_name(&rjs_msg_classes, m->msg_class);
    if ((rc = w_id(w, m)) < 0 || RJS_WRITES(w, ",\"Type\":") < 0 ||
        rjs_w_str(w, cn->name, cn->len) < 0)
        return rc < 0 ? rc : RWF_E_NOSPACE;
    if (m->domain != RWF_DMT_MARKET_PRICE && KV_NAMED(w, "Domain", &rjs_domains, m->domain) < 0)
        return RWF_E_NOSPACE;
    switch (m->msg_class) {
    case RWF_MC_REQUEST:
        rc = w_request(w, m);
        break;
    case RWF_MC_REFRESH:
        rc = w_refresh(w, m);
        break;
    case RWF_MC_STATUS:
        rc = w_status(w, m);
        break;
    case RWF_MC_UPDATE:
        rc = w_update(w, m);
        break;
    case RWF_MC_CLOSE:
        rc = w_close_tail(w, m);
        break;
    case RWF_MC_ACK:
        rc = w_ack(w, m);
        break;
    case RWF_MC_GENERIC:
        rc = w_generic(w, m);
        break;
    default:
        rc = w_post(w, m);
    }
    if (rc < 0)
        return rc;
    if (rc > 0 && m->container_type != RWF_DT_NO_DATA) {
        if (RJS_WRITES(w, ",") < 0)
            return RWF_E_NOSPACE;
        if ((rc = rjs_w_container(w, m->container_type, m->payload, NULL, 1)) < 0)
            return rc;
    }
    return RJS_WRITES(w, "}");
}

int rjs_w_msg(rjs_w *w, rwf_buf data)
{
    rwf_msg m;
    int rc = rwf_msg_decode(&m, data);
    if (rc < 0)
        return rc;
    rc = w_body(w, &m);
    if (rc < 0 && rc != RWF_E_NOSPACE)
        err_push("%s message on stream %d", rwf_msg_class_name(m.msg_class), m.stream_id);
    return rc;
}

int rjs_msg_to_json(const rjs_conv *c, rwf_buf rwf, char *out, size_t cap, size_t *len)
{
    if (*len > cap) {
        err_set("JSON output: length %zu beyond its capacity %zu", *len, cap);
        return RWF_E_INVALID;
    }
    rjs_w w = {out + *len, out + cap, c, 0};
    int rc = rjs_w_msg(&w, rwf);
    if (rc < 0)
        return rc;
    *len = (size_t)(w.p - out);
    return RWF_OK;
}

size_t rjs_json_size_hint(size_t rwf_len)
{
    return rwf_len * 8 + 512;
}

int rjs_batch_begin(rjs_batch *b, char *buf, size_t cap)
{
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    b->count = 0;
    if (cap < 2) {
        err_set("JSON output buffer too small");
        return RWF_E_NOSPACE;
    }
    buf[b->len++] = '[';
    return RWF_OK;
}

int rjs_batch_add(const rjs_conv *c, rjs_batch *b, rwf_buf rwf)
{
    size_t len = b->len + (b->count ? 1 : 0);
    if (len + 1 > b->cap) {
        err_set("JSON output buffer too small");
        return RWF_E_NOSPACE;
    }
    if (b->count)
        b->buf[b->len] = ',';
    int rc = rjs_msg_to_json(c, rwf, b->buf, b->cap - 1, &len);
    if (rc < 0)
        return rc;
    b->len = len;
    b->count++;
    return RWF_OK;
}

int rjs_batch_add_text(rjs_batch *b, const char *obj, size_t n)
{
    size_t need = n + (b->count ? 1 : 0);
    if (b->len + need + 1 > b->cap) {
        err_set("JSON output buffer too small");
        return RWF_E_NOSPACE;
    }
    if (b->count)
        b->buf[b->len++] = ',';
    memcpy(b->buf + b->len, obj, n);
    b->len += n;
    b->count++;
    return RWF_OK;
}

int rjs_batch_end(rjs_batch *b, size_t *len)
{
    if (b->len + 1 > b->cap) {
        err_set("JSON output buffer too small");
        return RWF_E_NOSPACE;
    }
    b->buf[b->len++] = ']';
    if (len)
        *len = b->len;
    return RWF_OK;
}
