/*
 * rwf_rdm_login: Login messages — request and refresh (key NAME[|NAME_TYPE]|ATTRIB with the
 * attributes as an ElementList, in the ETA encoders' orders), and the decoding of a request,
 * refresh, status or close into an rwf_login.
 */
#include <stddef.h>

#include "err.h"
#include "rwf_rdm_int.h"

/* The login attributes this codec knows: element name, rwf_login flag, UINT (else ASCII
 * string), and the rwf_login member that holds the value. */
enum {
    LA_APP_ID,
    LA_APP_NAME,
    LA_POSITION,
    LA_PASSWORD,
    LA_INSTANCE_ID,
    LA_SINGLE_OPEN,
    LA_ALLOW_SUSPECT,
    LA_ROLE,
    LA_SUPPORT_POST,
    LA_SUPPORT_BATCH,
    LA_SUPPORT_VIEW,
    LA_SUPPORT_DICT_DOWNLOAD,
    LA_SUPPORT_STANDBY,
    LA_SUPPORT_STANDBY_MODE,
    LA_COUNT
};

typedef struct login_attr {
    rwf_buf name;
    uint32_t flag;
    int is_uint;
    size_t off;
} login_attr;

#define ATTR(lit, flag, is_uint, member)                                                           \
    {                                                                                              \
        NAME_INIT(lit), flag, is_uint, offsetof(rwf_login, member)                                 \
    }

static const login_attr attrs[LA_COUNT] = {
    [LA_APP_ID] = ATTR("ApplicationId", RWF_LOGIN_HAS_APP_ID, 0, app_id),
    [LA_APP_NAME] = ATTR("ApplicationName", RWF_LOGIN_HAS_APP_NAME, 0, app_name),
    [LA_POSITION] = ATTR("Position", RWF_LOGIN_HAS_POSITION, 0, position),
    [LA_PASSWORD] = ATTR("Password", RWF_LOGIN_HAS_PASSWORD, 0, password),
    [LA_INSTANCE_ID] = ATTR("InstanceId", RWF_LOGIN_HAS_INSTANCE_ID, 0, instance_id),
    [LA_SINGLE_OPEN] = ATTR("SingleOpen", RWF_LOGIN_HAS_SINGLE_OPEN, 1, single_open),
    [LA_ALLOW_SUSPECT] = ATTR("AllowSuspectData", RWF_LOGIN_HAS_ALLOW_SUSPECT, 1, allow_suspect),
    [LA_ROLE] = ATTR("Role", RWF_LOGIN_HAS_ROLE, 1, role),
    [LA_SUPPORT_POST] = ATTR("SupportOMMPost", RWF_LOGIN_HAS_SUPPORT_POST, 1, support_post),
    [LA_SUPPORT_BATCH] =
        ATTR("SupportBatchRequests", RWF_LOGIN_HAS_SUPPORT_BATCH, 1, support_batch),
    [LA_SUPPORT_VIEW] = ATTR("SupportViewRequests", RWF_LOGIN_HAS_SUPPORT_VIEW, 1, support_view),
    [LA_SUPPORT_DICT_DOWNLOAD] =
        ATTR("SupportProviderDictionaryDownload", RWF_LOGIN_HAS_SUPPORT_DICT_DOWNLOAD, 1,
             support_dict_download),
    [LA_SUPPORT_STANDBY] =
        ATTR("SupportStandby", RWF_LOGIN_HAS_SUPPORT_STANDBY, 1, support_standby),
    [LA_SUPPORT_STANDBY_MODE] =
        ATTR("SupportStandbyMode", RWF_LOGIN_HAS_SUPPORT_STANDBY_MODE, 1, support_standby_mode),
};

/* The orders in which the ETA encoders write the attributes of a request and of a refresh. */
static const uint8_t request_order[] = {LA_APP_ID,
                                        LA_APP_NAME,
                                        LA_POSITION,
                                        LA_PASSWORD,
                                        LA_INSTANCE_ID,
                                        LA_SINGLE_OPEN,
                                        LA_SUPPORT_DICT_DOWNLOAD,
                                        LA_ALLOW_SUSPECT,
                                        LA_ROLE};
static const uint8_t refresh_order[] = {LA_APP_ID,
                                        LA_APP_NAME,
                                        LA_POSITION,
                                        LA_SINGLE_OPEN,
                                        LA_ALLOW_SUSPECT,
                                        LA_SUPPORT_POST,
                                        LA_SUPPORT_BATCH,
                                        LA_SUPPORT_DICT_DOWNLOAD,
                                        LA_SUPPORT_VIEW,
                                        LA_SUPPORT_STANDBY,
                                        LA_SUPPORT_STANDBY_MODE};

/* The key of a login request or refresh: the user name, its type, the attributes in place. */
static void login_key(rwf_msg *m, const rwf_login *l)
{
    m->key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB |
                   ((l->flags & RWF_LOGIN_HAS_NAME_TYPE) ? RWF_MKF_HAS_NAME_TYPE : 0);
    m->key.name = l->user;
    m->key.name_type = l->name_type;
    m->key.attrib_type = RWF_DT_ELEMENT_LIST;
}

/* The attribute ElementList: the attributes of order[0..n) whose flag l has. */
static void put_attrs(rwf_enc *e, const rwf_login *l, const uint8_t *order, size_t n)
{
    rwf_enc_el_begin_std(e);
    for (size_t i = 0; i < n; i++) {
        const login_attr *a = &attrs[order[i]];
        const char *member = (const char *)l + a->off;
        if (!(l->flags & a->flag))
            continue;
        if (a->is_uint)
            rwf_enc_el_uint(e, a->name, *(const uint64_t *)(const void *)member);
        else
            rwf_rdm_put_ascii(e, a->name, *(const rwf_buf *)(const void *)member);
    }
    rwf_enc_el_end(e);
}

int rwf_rdm_login_request(rwf_enc *e, const rwf_login *l)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_LOGIN, l->stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_RQMF_STREAMING;
    login_key(&m, l);
    rwf_enc_msg_begin(e, &m);
    put_attrs(e, l, request_order, sizeof(request_order));
    return rwf_enc_msg_end(e);
}

int rwf_rdm_login_refresh(rwf_enc *e, const rwf_login *l)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REFRESH, RWF_DMT_LOGIN, l->stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE |
              ((l->flags & RWF_LOGIN_SOLICITED) ? RWF_RFMF_SOLICITED : 0) |
              ((l->flags & RWF_LOGIN_CLEAR_CACHE) ? RWF_RFMF_CLEAR_CACHE : 0);
    m.state = l->state;
    login_key(&m, l);
    rwf_enc_msg_begin(e, &m);
    put_attrs(e, l, refresh_order, sizeof(refresh_order));
    return rwf_enc_msg_end(e);
}

/* Reads the attribute ElementList into out (unknown attributes ignored). */
static int get_attrs(rwf_buf attrib, rwf_login *out)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, attrib, NULL);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        for (size_t i = 0; i < LA_COUNT; i++) {
            if (!rwf_buf_eq(el.name, attrs[i].name))
                continue;
            char *dst = (char *)out + attrs[i].off;
            r = attrs[i].is_uint ? rwf_rdm_get_uint(&el, (uint64_t *)(void *)dst)
                                 : rwf_rdm_get_string(&el, (rwf_buf *)(void *)dst);
            if (r < 0)
                return r;
            out->flags |= attrs[i].flag;
            break;
        }
    }
    return r < 0 ? r : RWF_OK;
}

int rwf_rdm_login_decode(const rwf_msg *m, rwf_login *out)
{
    memset(out, 0, sizeof(*out));
    if (m->domain != RWF_DMT_LOGIN) {
        err_set("not a login message (domain %u)", m->domain);
        return RWF_E_INVALID;
    }
    out->stream_id = m->stream_id;
    out->msg_class = m->msg_class;
    if (m->msg_class == RWF_MC_REFRESH) {
        out->state = m->state;
        out->flags |= RWF_LOGIN_HAS_STATE;
        if (m->flags & RWF_RFMF_SOLICITED)
            out->flags |= RWF_LOGIN_SOLICITED;
        if (m->flags & RWF_RFMF_CLEAR_CACHE)
            out->flags |= RWF_LOGIN_CLEAR_CACHE;
    } else if (m->msg_class == RWF_MC_STATUS && (m->flags & RWF_STMF_HAS_STATE)) {
        out->state = m->state;
        out->flags |= RWF_LOGIN_HAS_STATE;
    }
    if (!rwf_msg_has_key(m))
        return RWF_OK;
    out->user = m->key.name;
    if (m->key.flags & RWF_MKF_HAS_NAME_TYPE) {
        out->name_type = m->key.name_type;
        out->flags |= RWF_LOGIN_HAS_NAME_TYPE;
    }
    if (!(m->key.flags & RWF_MKF_HAS_ATTRIB) || m->key.attrib_type != RWF_DT_ELEMENT_LIST)
        return RWF_OK;
    int r = get_attrs(m->key.attrib, out);
    return r < 0 ? err_push("login attributes"), r : RWF_OK;
}
