/*
 * rjs_rhdr: JSON -> RWF for the header members of each message class ("Key", "State", "Qos",
 * the boolean flags and numbers), with the defaults of the JSON format: Streaming and
 * KeyInUpdates (not for Login and Dictionary) in requests; Solicited, Complete, ClearCache and
 * state Open/Ok in refreshes; Complete in generic messages and posts; a key's name type 1.
 */
#include "rjs_names.h"
#include "rjs_rmsg.h"

#define K(id, s)                                                                                   \
    {                                                                                              \
        (id), (s), (uint8_t)(sizeof(s) - 1)                                                        \
    }
static const rjs_name_ent keys[] = {
    K(K_ID, "ID"),
    K(K_TYPE, "Type"),
    K(K_DOMAIN, "Domain"),
    K(K_KEY, "Key"),
    K(K_REQKEY, "ReqKey"),
    K(K_STATE, "State"),
    K(K_QOS, "Qos"),
    K(K_WORSTQOS, "WorstQos"),
    K(K_STREAMING, "Streaming"),
    K(K_KEYINUPDATES, "KeyInUpdates"),
    K(K_CONFINFOINUPDATES, "ConfInfoInUpdates"),
    K(K_REFRESH, "Refresh"),
    K(K_PRIVATE, "Private"),
    K(K_QUALIFIED, "Qualified"),
    K(K_PAUSE, "Pause"),
    K(K_PRIORITY, "Priority"),
    K(K_VIEW, "View"),
    K(K_VIEWTYPE, "ViewType"),
    K(K_EXTHDR, "ExtHdr"),
    K(K_COMPLETE, "Complete"),
    K(K_CLEARCACHE, "ClearCache"),
    K(K_DONOTCACHE, "DoNotCache"),
    K(K_POSTUSERINFO, "PostUserInfo"),
    K(K_PARTNUMBER, "PartNumber"),
    K(K_PERMDATA, "PermData"),
    K(K_SEQNUMBER, "SeqNumber"),
    K(K_SOLICITED, "Solicited"),
    K(K_UPDATETYPE, "UpdateType"),
    K(K_DONOTCONFLATE, "DoNotConflate"),
    K(K_DONOTRIPPLE, "DoNotRipple"),
    K(K_DISCARDABLE, "Discardable"),
    K(K_CONFLATIONINFO, "ConflationInfo"),
    K(K_ACK, "Ack"),
    K(K_ACKID, "AckID"),
    K(K_NAKCODE, "NakCode"),
    K(K_TEXT, "Text"),
    K(K_SECSEQNUMBER, "SecSeqNumber"),
    K(K_POSTID, "PostID"),
    K(K_POSTUSERRIGHTS, "PostUserRights"),
    K(K_DEBUG, "Debug"),
};

#define B(k) ((uint64_t)1 << (k))
#define COMMON (B(K_ID) | B(K_TYPE) | B(K_DOMAIN) | B(K_EXTHDR))

/* The members each class accepts (by its RWF number; 0 unused). */
static const uint64_t allowed[9] = {
    0,
    /* Request */
    COMMON | B(K_KEY) | B(K_QOS) | B(K_WORSTQOS) | B(K_STREAMING) | B(K_KEYINUPDATES) |
        B(K_CONFINFOINUPDATES) | B(K_REFRESH) | B(K_PRIVATE) | B(K_QUALIFIED) | B(K_PAUSE) |
        B(K_PRIORITY) | B(K_VIEW) | B(K_VIEWTYPE),
    /* Refresh */
    COMMON | B(K_KEY) | B(K_REQKEY) | B(K_STATE) | B(K_QOS) | B(K_COMPLETE) | B(K_CLEARCACHE) |
        B(K_DONOTCACHE) | B(K_PRIVATE) | B(K_QUALIFIED) | B(K_POSTUSERINFO) | B(K_PARTNUMBER) |
        B(K_PERMDATA) | B(K_SEQNUMBER) | B(K_SOLICITED),
    /* Status */
    COMMON | B(K_KEY) | B(K_REQKEY) | B(K_STATE) | B(K_CLEARCACHE) | B(K_PRIVATE) | B(K_QUALIFIED) |
        B(K_POSTUSERINFO) | B(K_PERMDATA),
    /* Update */
    COMMON | B(K_UPDATETYPE) | B(K_DONOTCONFLATE) | B(K_DONOTRIPPLE) | B(K_DISCARDABLE) |
        B(K_DONOTCACHE) | B(K_KEY) | B(K_POSTUSERINFO) | B(K_PERMDATA) | B(K_SEQNUMBER) |
        B(K_CONFLATIONINFO),
    /* Close */
    COMMON | B(K_ACK),
    /* Ack */
    COMMON | B(K_ACKID) | B(K_NAKCODE) | B(K_TEXT) | B(K_PRIVATE) | B(K_SEQNUMBER) | B(K_KEY) |
        B(K_QUALIFIED),
    /* Generic */
    COMMON | B(K_KEY) | B(K_REQKEY) | B(K_SEQNUMBER) | B(K_SECSEQNUMBER) | B(K_PARTNUMBER) |
        B(K_PERMDATA) | B(K_COMPLETE),
    /* Post */
    COMMON | B(K_POSTUSERINFO) | B(K_POSTID) | B(K_KEY) | B(K_SEQNUMBER) | B(K_COMPLETE) |
        B(K_ACK) | B(K_PERMDATA) | B(K_PARTNUMBER) | B(K_POSTUSERRIGHTS),
};

int rjs_key_id(const rjs_str *k)
{
    if (k->esc || !k->len)
        return -1;
    for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (keys[i].len == k->len && keys[i].name[0] == k->s[0] &&
            memcmp(keys[i].name, k->s, k->len) == 0)
            return keys[i].value;
    return -1;
}

const char *rjs_key_name(int k)
{
    return keys[k].name;
}

uint64_t rjs_keys_allowed(int cls)
{
    return cls >= RWF_MC_REQUEST && cls <= RWF_MC_POST ? allowed[cls] : 0;
}

/* A reader at member k's value. */
static rjs_lex at_key(const msg_in *in, int k)
{
    rjs_lex l = {in->lx->base, in->at[k], in->lx->end};
    return l;
}

/* Adds the member's name to a failure (not to a full output). */
static int fail_key(int rc, int k)
{
    if (rc < 0 && rc != RWF_E_NOSPACE)
        err_push("\"%s\"", keys[k].name);
    return rc;
}

/* Boolean member k into flag f of *flags: set when true, cleared when false. */
static int flag_of(const msg_in *in, int k, uint16_t *flags, uint16_t f)
{
    if (!in->at[k])
        return RWF_OK;
    rjs_lex l = at_key(in, k);
    int v, rc = rjs_r_bool(&l, &v);
    if (rc < 0)
        return fail_key(rc, k);
    *flags = (uint16_t)(v ? (*flags | f) : (*flags & ~f));
    return RWF_OK;
}

/* Unsigned member k in [0, max] into *out; sets flag f in *flags when present. */
static int uint_of(const msg_in *in, int k, uint64_t max, uint64_t *out, uint16_t *flags,
                   uint16_t f)
{
    if (!in->at[k])
        return RWF_OK;
    rjs_lex l = at_key(in, k);
    int rc = rjs_r_uint(&l, max, out);
    if (rc < 0)
        return fail_key(rc, k);
    if (flags)
        *flags |= f;
    return RWF_OK;
}

/* Base64 member k into *out (tail); sets flag f. */
static int b64_of(rjs_rd *rd, const msg_in *in, int k, rwf_buf *out, uint16_t *flags, uint16_t f)
{
    if (!in->at[k])
        return RWF_OK;
    rjs_lex l = at_key(in, k);
    int rc = rjs_r_base64(rd, &l, out);
    if (rc < 0)
        return fail_key(rc, k);
    *flags |= f;
    return RWF_OK;
}

static int qos_of(const msg_in *in, int k, rwf_qos *q, uint16_t *flags, uint16_t f)
{
    if (!in->at[k])
        return RWF_OK;
    rjs_lex l = at_key(in, k);
    int rc = rjs_r_qos(&l, q);
    if (rc < 0)
        return fail_key(rc, k);
    *flags |= f;
    return RWF_OK;
}

static int state_of(rjs_rd *rd, const msg_in *in, rwf_state *s, uint16_t *flags, uint16_t f)
{
    if (!in->at[K_STATE])
        return RWF_OK;
    rjs_lex l = at_key(in, K_STATE);
    int rc = rjs_r_state(rd, &l, s);
    if (rc < 0)
        return fail_key(rc, K_STATE);
    *flags |= f;
    return RWF_OK;
}

static int post_user_of(const msg_in *in, rwf_msg *m, uint16_t f)
{
    if (!in->at[K_POSTUSERINFO])
        return RWF_OK;
    rjs_lex l = at_key(in, K_POSTUSERINFO);
    int rc = rjs_r_post_user(&l, &m->post_user_addr, &m->post_user_id);
    if (rc < 0)
        return fail_key(rc, K_POSTUSERINFO);
    m->flags |= f;
    return RWF_OK;
}

static int key_service(rjs_rd *rd, rjs_lex *lx, rwf_key *k)
{
    uint64_t v;
    int rc;
    const char *at = (rjs_ws(lx), lx->p);
    if (rjs_kind(lx) == RJS_V_STR) {
        rwf_buf name;
        uint16_t id = 0;
        if ((rc = rjs_r_string(rd, lx, &name)) < 0)
            return rc;
        if (!rd->c->opts.service_id || rd->c->opts.service_id(rd->c->opts.ctx, name, &id) < 0 ||
            id == 0)
            return rjs_lex_err(lx, at, "service \"%.*s\" is not known", (int)name.len, name.data);
        k->service_id = id;
    } else if ((rc = rjs_r_uint(lx, 65535, &v)) < 0) {
        return rc;
    } else {
        k->service_id = (uint16_t)v;
    }
    k->flags |= RWF_MKF_HAS_SERVICE_ID;
    return RWF_OK;
}

static int key_member(rjs_rd *rd, rjs_lex *lx, const rjs_str *n, int domain, rwf_key *k,
                      key_extra *x)
{
    uint64_t u;
    int v, rc;
    if (RJS_STR_IS(n, "Service"))
        return key_service(rd, lx, k);
    if (RJS_STR_IS(n, "Name")) {
        int kind = rjs_kind(lx);
        if (kind == RJS_V_ARR && x) {
            const char *q = x->names = lx->p;
            if ((rc = rjs_skip(lx)) < 0)
                return rc;
            while (*++q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                ;
            return *q == ']' ? rjs_lex_err(lx, x->names, "a batch request without names") : rc;
        }
        if (kind == RJS_V_NULL) { /* the NUL name, as the writer writes it */
            k->name = rwf_buf_make("", 1);
            k->flags |= RWF_MKF_HAS_NAME;
            return rjs_literal(lx, kind);
        }
        if ((rc = rjs_r_string(rd, lx, &k->name)) >= 0 && k->name.len > 255)
            return rjs_lex_err(lx, lx->p, "key name of %u bytes is too long", k->name.len);
        k->flags |= RWF_MKF_HAS_NAME;
        return rc;
    }
    if (RJS_STR_IS(n, "NameType")) {
        const rjs_names *t =
            domain == RWF_DMT_LOGIN ? &rjs_login_name_types : &rjs_instrument_name_types;
        rc = rjs_r_named(lx, t, 255, &v);
        k->name_type = (uint8_t)v;
        return rc;
    }
    if (RJS_STR_IS(n, "Filter")) {
        rc = rjs_r_uint(lx, UINT32_MAX, &u);
        k->filter = (uint32_t)u;
        k->flags |= RWF_MKF_HAS_FILTER;
        return rc;
    }
    if (RJS_STR_IS(n, "Identifier")) {
        int64_t i;
        rc = rjs_r_int(lx, INT32_MIN, UINT32_MAX, &i);
        k->identifier = (int32_t)(uint32_t)i;
        k->flags |= RWF_MKF_HAS_IDENTIFIER;
        return rc;
    }
    if (RJS_STR_IS(n, "Elements") && x) {
        x->attrib = (rjs_ws(lx), lx->p);
        k->flags |= RWF_MKF_HAS_ATTRIB;
        k->attrib_type = RWF_DT_ELEMENT_LIST;
        return rjs_kind(lx) == RJS_V_OBJ ? rjs_skip(lx) : rjs_r_expected(lx, "an object");
    }
    if (rd->c->opts.flags & RJS_SKIP_UNKNOWN)
        return rjs_skip(lx);
    return rjs_lex_err(lx, n->s - 1, "unknown key \"%.*s\" in a Key", (int)n->len, n->s);
}

/* Reads member k (a Key object) into *key; x (NULL for ReqKey) receives what is encoded after
 * the header. */
static int key_of(rjs_rd *rd, const msg_in *in, int k, int domain, rwf_key *key, key_extra *x)
{
    rjs_lex l = at_key(in, k);
    rjs_str n;
    int rc;
    memset(key, 0, sizeof(*key));
    key->flags = RWF_MKF_HAS_NAME_TYPE;
    key->name_type = 1;
    for (rc = rjs_obj_begin(&l); rc > 0; rc = rjs_obj_next(&l))
        if ((rc = rjs_obj_key(&l, &n)) < 0 || (rc = key_member(rd, &l, &n, domain, key, x)) < 0)
            break;
    if (rc < 0)
        return fail_key(rc, k);
    if ((key->name_type == 4 || key->name_type == 5) && !(key->flags & RWF_MKF_HAS_NAME)) {
        key->name = rwf_buf_make("", 1); /* the NUL name of cookie logins */
        key->flags |= RWF_MKF_HAS_NAME;
    }
    const rjs_opts *o = &rd->c->opts;
    if (!(key->flags & RWF_MKF_HAS_SERVICE_ID) && (o->flags & RJS_DEFAULT_SERVICE) &&
        domain != RWF_DMT_SOURCE && domain != RWF_DMT_LOGIN && o->default_service) {
        key->service_id = o->default_service;
        key->flags |= RWF_MKF_HAS_SERVICE_ID;
    }
    return RWF_OK;
}

static int h_priority(const msg_in *in, rwf_msg *m)
{
    rjs_lex l = at_key(in, K_PRIORITY);
    rjs_str k;
    uint64_t v;
    int have = 0, rc;
    for (rc = rjs_obj_begin(&l); rc > 0; rc = rjs_obj_next(&l)) {
        if ((rc = rjs_obj_key(&l, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Class") && (rc = rjs_r_uint(&l, 255, &v)) >= 0) {
            m->priority_class = (uint8_t)v;
            have |= 1;
        } else if (RJS_STR_IS(&k, "Count") && (rc = rjs_r_uint(&l, 65535, &v)) >= 0) {
            m->priority_count = (uint16_t)v;
            have |= 2;
        } else if (rc >= 0) {
            return rjs_lex_err(&l, k.s - 1, "unknown key \"%.*s\"", (int)k.len, k.s);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (have != 3)
        return rjs_lex_err(&l, in->at[K_PRIORITY], "a Priority needs \"Class\" and \"Count\"");
    m->flags |= RWF_RQMF_HAS_PRIORITY;
    return RWF_OK;
}

static int h_view(const msg_in *in, msg_out *o)
{
    o->view_type = 1;
    if (in->at[K_VIEWTYPE]) {
        rjs_lex l = at_key(in, K_VIEWTYPE);
        rjs_str s;
        uint64_t v;
        const char *at = (rjs_ws(&l), l.p);
        int rc = rjs_kind(&l) == RJS_V_STR ? rjs_string(&l, &s) : rjs_r_uint(&l, 2, &v);
        if (rc < 0)
            return fail_key(rc, K_VIEWTYPE);
        if (*at != '"')
            o->view_type = v == 2 ? 2 : 1;
        else if (RJS_STR_IS(&s, "NameList") || RJS_STR_IS(&s, "ElementNameList"))
            o->view_type = 2;
        else if (!RJS_STR_IS(&s, "FidList") && !RJS_STR_IS(&s, "FieldIDList"))
            return fail_key(rjs_lex_err(&l, at, "view type \"%.*s\" is not known", (int)s.len, s.s),
                            K_VIEWTYPE);
    }
    if (in->at[K_VIEW]) {
        rjs_lex l = at_key(in, K_VIEW);
        if (rjs_kind(&l) != RJS_V_ARR)
            return fail_key(rjs_r_expected(&l, "an array"), K_VIEW);
        o->view = in->at[K_VIEW];
        o->m.flags |= RWF_RQMF_HAS_VIEW;
    }
    return RWF_OK;
}

static int h_request(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    int rc;
    m->flags = RWF_RQMF_STREAMING;
    if (m->domain != RWF_DMT_LOGIN && m->domain != RWF_DMT_DICTIONARY)
        m->flags |= RWF_RQMF_MSG_KEY_IN_UPDATES;
    if (!in->at[K_KEY])
        return rjs_lex_err(in->lx, in->start, "a Request needs a \"Key\"");
    uint16_t no_refresh = RWF_RQMF_NO_REFRESH;
    if ((rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0 ||
        (rc = flag_of(in, K_STREAMING, &m->flags, RWF_RQMF_STREAMING)) < 0 ||
        (rc = flag_of(in, K_KEYINUPDATES, &m->flags, RWF_RQMF_MSG_KEY_IN_UPDATES)) < 0 ||
        (rc = flag_of(in, K_CONFINFOINUPDATES, &m->flags, RWF_RQMF_CONF_INFO_IN_UPDATES)) < 0 ||
        (rc = flag_of(in, K_REFRESH, &no_refresh, RWF_RQMF_NO_REFRESH)) < 0 ||
        (rc = flag_of(in, K_PRIVATE, &m->flags, RWF_RQMF_PRIVATE_STREAM)) < 0 ||
        (rc = flag_of(in, K_QUALIFIED, &m->flags, RWF_RQMF_QUALIFIED_STREAM)) < 0 ||
        (rc = flag_of(in, K_PAUSE, &m->flags, RWF_RQMF_PAUSE)) < 0 ||
        (rc = qos_of(in, K_QOS, &m->qos, &m->flags, RWF_RQMF_HAS_QOS)) < 0 ||
        (rc = qos_of(in, K_WORSTQOS, &m->worst_qos, &m->flags, RWF_RQMF_HAS_WORST_QOS)) < 0 ||
        (rc = h_view(in, o)) < 0)
        return rc;
    if (!no_refresh) /* "Refresh":false */
        m->flags |= RWF_RQMF_NO_REFRESH;
    if (in->at[K_PRIORITY] && (rc = h_priority(in, m)) < 0)
        return fail_key(rc, K_PRIORITY);
    if (o->kx.names)
        m->flags |= RWF_RQMF_HAS_BATCH;
    return RWF_OK;
}

static int h_refresh(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    uint64_t u = 0;
    int rc;
    m->flags = RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_CLEAR_CACHE;
    m->state.stream_state = RWF_STREAM_OPEN;
    m->state.data_state = RWF_DATA_OK;
    uint16_t dummy = 0;
    if ((in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (in->at[K_REQKEY] && (rc = key_of(rd, in, K_REQKEY, m->domain, &m->req_key, NULL)) < 0) ||
        (rc = state_of(rd, in, &m->state, &dummy, 0)) < 0 ||
        (rc = qos_of(in, K_QOS, &m->qos, &m->flags, RWF_RFMF_HAS_QOS)) < 0 ||
        (rc = flag_of(in, K_COMPLETE, &m->flags, RWF_RFMF_REFRESH_COMPLETE)) < 0 ||
        (rc = flag_of(in, K_CLEARCACHE, &m->flags, RWF_RFMF_CLEAR_CACHE)) < 0 ||
        (rc = flag_of(in, K_DONOTCACHE, &m->flags, RWF_RFMF_DO_NOT_CACHE)) < 0 ||
        (rc = flag_of(in, K_PRIVATE, &m->flags, RWF_RFMF_PRIVATE_STREAM)) < 0 ||
        (rc = flag_of(in, K_QUALIFIED, &m->flags, RWF_RFMF_QUALIFIED_STREAM)) < 0 ||
        (rc = flag_of(in, K_SOLICITED, &m->flags, RWF_RFMF_SOLICITED)) < 0 ||
        (rc = post_user_of(in, m, RWF_RFMF_HAS_POST_USER_INFO)) < 0 ||
        (rc = uint_of(in, K_PARTNUMBER, RWF_U15RB_MAX, &u, &m->flags, RWF_RFMF_HAS_PART_NUM)) < 0 ||
        (rc = b64_of(rd, in, K_PERMDATA, &m->perm_data, &m->flags, RWF_RFMF_HAS_PERM_DATA)) < 0)
        return rc;
    m->part_num = (uint16_t)u;
    if (in->at[K_KEY])
        m->flags |= RWF_RFMF_HAS_MSG_KEY;
    if (in->at[K_REQKEY])
        m->flags |= RWF_RFMF_HAS_REQ_MSG_KEY;
    u = 0;
    if ((rc = uint_of(in, K_SEQNUMBER, UINT32_MAX, &u, &m->flags, RWF_RFMF_HAS_SEQ_NUM)) < 0)
        return rc;
    m->seq_num = (uint32_t)u;
    return RWF_OK;
}

static int h_status(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    int rc;
    if ((in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (in->at[K_REQKEY] && (rc = key_of(rd, in, K_REQKEY, m->domain, &m->req_key, NULL)) < 0) ||
        (rc = state_of(rd, in, &m->state, &m->flags, RWF_STMF_HAS_STATE)) < 0 ||
        (rc = flag_of(in, K_CLEARCACHE, &m->flags, RWF_STMF_CLEAR_CACHE)) < 0 ||
        (rc = flag_of(in, K_PRIVATE, &m->flags, RWF_STMF_PRIVATE_STREAM)) < 0 ||
        (rc = flag_of(in, K_QUALIFIED, &m->flags, RWF_STMF_QUALIFIED_STREAM)) < 0 ||
        (rc = post_user_of(in, m, RWF_STMF_HAS_POST_USER_INFO)) < 0 ||
        (rc = b64_of(rd, in, K_PERMDATA, &m->perm_data, &m->flags, RWF_STMF_HAS_PERM_DATA)) < 0)
        return rc;
    if (in->at[K_KEY])
        m->flags |= RWF_STMF_HAS_MSG_KEY;
    if (in->at[K_REQKEY])
        m->flags |= RWF_STMF_HAS_REQ_MSG_KEY;
    return RWF_OK;
}

static int h_conf_info(const msg_in *in, rwf_msg *m)
{
    rjs_lex l = at_key(in, K_CONFLATIONINFO);
    rjs_str k;
    uint64_t v;
    int rc;
    for (rc = rjs_obj_begin(&l); rc > 0; rc = rjs_obj_next(&l)) {
        if ((rc = rjs_obj_key(&l, &k)) < 0)
            return rc;
        if (RJS_STR_IS(&k, "Count") && (rc = rjs_r_uint(&l, RWF_U15RB_MAX, &v)) >= 0)
            m->conf_count = (uint16_t)v;
        else if (RJS_STR_IS(&k, "Time") && (rc = rjs_r_uint(&l, 65535, &v)) >= 0)
            m->conf_time = (uint16_t)v;
        else if (rc >= 0)
            return rjs_lex_err(&l, k.s - 1, "unknown key \"%.*s\"", (int)k.len, k.s);
        if (rc < 0)
            return rc;
    }
    if (rc >= 0)
        m->flags |= RWF_UPMF_HAS_CONF_INFO;
    return rc < 0 ? rc : RWF_OK;
}

static int h_update(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    uint64_t u = 0;
    int rc, v = 0;
    if (in->at[K_UPDATETYPE]) {
        rjs_lex l = at_key(in, K_UPDATETYPE);
        if ((rc = rjs_r_named(&l, &rjs_update_types, 255, &v)) < 0)
            return fail_key(rc, K_UPDATETYPE);
        m->update_type = (uint8_t)v;
    }
    if ((in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (rc = flag_of(in, K_DONOTCONFLATE, &m->flags, RWF_UPMF_DO_NOT_CONFLATE)) < 0 ||
        (rc = flag_of(in, K_DONOTRIPPLE, &m->flags, RWF_UPMF_DO_NOT_RIPPLE)) < 0 ||
        (rc = flag_of(in, K_DISCARDABLE, &m->flags, RWF_UPMF_DISCARDABLE)) < 0 ||
        (rc = flag_of(in, K_DONOTCACHE, &m->flags, RWF_UPMF_DO_NOT_CACHE)) < 0 ||
        (rc = post_user_of(in, m, RWF_UPMF_HAS_POST_USER_INFO)) < 0 ||
        (rc = b64_of(rd, in, K_PERMDATA, &m->perm_data, &m->flags, RWF_UPMF_HAS_PERM_DATA)) < 0 ||
        (rc = uint_of(in, K_SEQNUMBER, UINT32_MAX, &u, &m->flags, RWF_UPMF_HAS_SEQ_NUM)) < 0)
        return rc;
    m->seq_num = (uint32_t)u;
    if (in->at[K_KEY])
        m->flags |= RWF_UPMF_HAS_MSG_KEY;
    if (in->at[K_CONFLATIONINFO] && (rc = h_conf_info(in, m)) < 0)
        return fail_key(rc, K_CONFLATIONINFO);
    return RWF_OK;
}

static int h_ack(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    uint64_t id = 0, seq = 0;
    int rc, v;
    if ((rc = uint_of(in, K_ACKID, UINT32_MAX, &id, NULL, 0)) < 0 ||
        (in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (rc = flag_of(in, K_PRIVATE, &m->flags, RWF_AKMF_PRIVATE_STREAM)) < 0 ||
        (rc = flag_of(in, K_QUALIFIED, &m->flags, RWF_AKMF_QUALIFIED_STREAM)) < 0 ||
        (rc = uint_of(in, K_SEQNUMBER, UINT32_MAX, &seq, &m->flags, RWF_AKMF_HAS_SEQ_NUM)) < 0)
        return rc;
    m->ack_id = (uint32_t)id;
    m->seq_num = (uint32_t)seq;
    if (in->at[K_KEY])
        m->flags |= RWF_AKMF_HAS_MSG_KEY;
    if (in->at[K_NAKCODE]) {
        rjs_lex l = at_key(in, K_NAKCODE);
        if ((rc = rjs_r_named(&l, &rjs_nak_codes, 255, &v)) < 0)
            return fail_key(rc, K_NAKCODE);
        m->nak_code = (uint8_t)v;
        m->flags |= RWF_AKMF_HAS_NAK_CODE;
    }
    if (in->at[K_TEXT]) {
        rjs_lex l = at_key(in, K_TEXT);
        if ((rc = rjs_r_string(rd, &l, &m->text)) < 0)
            return fail_key(rc, K_TEXT);
        m->flags |= RWF_AKMF_HAS_TEXT;
    }
    return RWF_OK;
}

static int h_generic(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    uint64_t seq = 0, sec = 0, part = 0;
    int rc;
    m->flags = RWF_GNMF_MESSAGE_COMPLETE;
    if ((in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (in->at[K_REQKEY] && (rc = key_of(rd, in, K_REQKEY, m->domain, &m->req_key, NULL)) < 0) ||
        (rc = uint_of(in, K_SEQNUMBER, UINT32_MAX, &seq, &m->flags, RWF_GNMF_HAS_SEQ_NUM)) < 0 ||
        (rc = uint_of(in, K_SECSEQNUMBER, UINT32_MAX, &sec, &m->flags,
                      RWF_GNMF_HAS_SECONDARY_SEQ_NUM)) < 0 ||
        (rc = uint_of(in, K_PARTNUMBER, RWF_U15RB_MAX, &part, &m->flags, RWF_GNMF_HAS_PART_NUM)) <
            0 ||
        (rc = b64_of(rd, in, K_PERMDATA, &m->perm_data, &m->flags, RWF_GNMF_HAS_PERM_DATA)) < 0 ||
        (rc = flag_of(in, K_COMPLETE, &m->flags, RWF_GNMF_MESSAGE_COMPLETE)) < 0)
        return rc;
    m->seq_num = (uint32_t)seq;
    m->secondary_seq_num = (uint32_t)sec;
    m->part_num = (uint16_t)part;
    if (in->at[K_KEY])
        m->flags |= RWF_GNMF_HAS_MSG_KEY;
    if (in->at[K_REQKEY])
        m->flags |= RWF_GNMF_HAS_REQ_MSG_KEY;
    return RWF_OK;
}

static int h_post(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    rwf_msg *m = &o->m;
    uint64_t id = 0, seq = 0, part = 0, rights = 0;
    int rc;
    m->flags = RWF_PSMF_POST_COMPLETE;
    if ((rc = post_user_of(in, m, 0)) < 0 ||
        (in->at[K_KEY] && (rc = key_of(rd, in, K_KEY, m->domain, &m->key, &o->kx)) < 0) ||
        (rc = uint_of(in, K_POSTID, UINT32_MAX, &id, &m->flags, RWF_PSMF_HAS_POST_ID)) < 0 ||
        (rc = uint_of(in, K_SEQNUMBER, UINT32_MAX, &seq, &m->flags, RWF_PSMF_HAS_SEQ_NUM)) < 0 ||
        (rc = flag_of(in, K_COMPLETE, &m->flags, RWF_PSMF_POST_COMPLETE)) < 0 ||
        (rc = flag_of(in, K_ACK, &m->flags, RWF_PSMF_ACK)) < 0 ||
        (rc = b64_of(rd, in, K_PERMDATA, &m->perm_data, &m->flags, RWF_PSMF_HAS_PERM_DATA)) < 0 ||
        (rc = uint_of(in, K_PARTNUMBER, RWF_U15RB_MAX, &part, &m->flags, RWF_PSMF_HAS_PART_NUM)) <
            0 ||
        (rc = uint_of(in, K_POSTUSERRIGHTS, 65535, &rights, &m->flags,
                      RWF_PSMF_HAS_POST_USER_RIGHTS)) < 0)
        return rc;
    m->post_id = (uint32_t)id;
    m->seq_num = (uint32_t)seq;
    m->part_num = (uint16_t)part;
    m->post_user_rights = (uint16_t)rights;
    if (in->at[K_KEY])
        m->flags |= RWF_PSMF_HAS_MSG_KEY;
    return RWF_OK;
}

static int h_close(const msg_in *in, msg_out *o)
{
    return flag_of(in, K_ACK, &o->m.flags, RWF_CLMF_ACK);
}

int rjs_h_class(rjs_rd *rd, const msg_in *in, msg_out *o)
{
    int rc;
    switch (o->m.msg_class) {
    case RWF_MC_REQUEST:
        rc = h_request(rd, in, o);
        break;
    case RWF_MC_REFRESH:
        rc = h_refresh(rd, in, o);
        break;
    case RWF_MC_STATUS:
        rc = h_status(rd, in, o);
        break;
    case RWF_MC_UPDATE:
        rc = h_update(rd, in, o);
        break;
    case RWF_MC_CLOSE:
        rc = h_close(in, o);
        break;
    case RWF_MC_ACK:
        rc = h_ack(rd, in, o);
        break;
    case RWF_MC_GENERIC:
        rc = h_generic(rd, in, o);
        break;
    default:
        rc = h_post(rd, in, o);
    }
    if (rc < 0)
        return rc;
    /* ExtHdr: the same flag (0x01) in every class */
    uint16_t f = o->m.flags;
    if ((rc = b64_of(rd, in, K_EXTHDR, &o->m.ext_header, &f, 0x0001)) < 0)
        return rc;
    if (o->m.ext_header.len > 255) {
        rjs_lex l = at_key(in, K_EXTHDR);
        return fail_key(
            rjs_lex_err(&l, l.p, "extended header of %u bytes is too long", o->m.ext_header.len),
            K_EXTHDR);
    }
    o->m.flags = f;
    return RWF_OK;
}
