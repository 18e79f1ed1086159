/*
 * rwf_rdm: Login, Source Directory and Dictionary messages, item status messages.
 */
#include "rwf_rdm.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "rwf_enc_int.h"

#define NAME(lit) RWF_STR(lit)

/* ---- Login ------------------------------------------------------------------------------- */

static void el_ascii(rwf_enc *e, rwf_buf name, rwf_buf v)
{
    rwf_enc_el_buf(e, name, RWF_DT_ASCII_STRING, v);
}

int rwf_rdm_login_request(rwf_enc *e, const rwf_login *l)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_LOGIN;
    m.stream_id = l->stream_id;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB |
                  ((l->flags & RWF_LOGIN_HAS_NAME_TYPE) ? RWF_MKF_HAS_NAME_TYPE : 0);
    m.key.name = l->user;
    m.key.name_type = l->name_type;
    m.key.attrib_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_msg_begin(e, &m);
    rwf_enc_el_begin_std(e);
    if (l->flags & RWF_LOGIN_HAS_APP_ID)
        el_ascii(e, NAME("ApplicationId"), l->app_id);
    if (l->flags & RWF_LOGIN_HAS_APP_NAME)
        el_ascii(e, NAME("ApplicationName"), l->app_name);
    if (l->flags & RWF_LOGIN_HAS_POSITION)
        el_ascii(e, NAME("Position"), l->position);
    if (l->flags & RWF_LOGIN_HAS_PASSWORD)
        el_ascii(e, NAME("Password"), l->password);
    if (l->flags & RWF_LOGIN_HAS_INSTANCE_ID)
        el_ascii(e, NAME("InstanceId"), l->instance_id);
    if (l->flags & RWF_LOGIN_HAS_SINGLE_OPEN)
        rwf_enc_el_uint(e, NAME("SingleOpen"), l->single_open);
    if (l->flags & RWF_LOGIN_HAS_SUPPORT_DICT_DOWNLOAD)
        rwf_enc_el_uint(e, NAME("SupportProviderDictionaryDownload"), l->support_dict_download);
    if (l->flags & RWF_LOGIN_HAS_ALLOW_SUSPECT)
        rwf_enc_el_uint(e, NAME("AllowSuspectData"), l->allow_suspect);
    if (l->flags & RWF_LOGIN_HAS_ROLE)
        rwf_enc_el_uint(e, NAME("Role"), l->role);
    rwf_enc_el_end(e);
    return rwf_enc_msg_end(e);
}

int rwf_rdm_login_refresh(rwf_enc *e, const rwf_login *l)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_LOGIN;
    m.stream_id = l->stream_id;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE |
              ((l->flags & RWF_LOGIN_SOLICITED) ? RWF_RFMF_SOLICITED : 0);
    m.container_type = RWF_DT_NO_DATA;
    m.state = l->state;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB |
                  ((l->flags & RWF_LOGIN_HAS_NAME_TYPE) ? RWF_MKF_HAS_NAME_TYPE : 0);
    m.key.name = l->user;
    m.key.name_type = l->name_type;
    m.key.attrib_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_msg_begin(e, &m);
    rwf_enc_el_begin_std(e);
    if (l->flags & RWF_LOGIN_HAS_APP_ID)
        el_ascii(e, NAME("ApplicationId"), l->app_id);
    if (l->flags & RWF_LOGIN_HAS_APP_NAME)
        el_ascii(e, NAME("ApplicationName"), l->app_name);
    if (l->flags & RWF_LOGIN_HAS_POSITION)
        el_ascii(e, NAME("Position"), l->position);
    if (l->flags & RWF_LOGIN_HAS_SINGLE_OPEN)
        rwf_enc_el_uint(e, NAME("SingleOpen"), l->single_open);
    if (l->flags & RWF_LOGIN_HAS_ALLOW_SUSPECT)
        rwf_enc_el_uint(e, NAME("AllowSuspectData"), l->allow_suspect);
    if (l->flags & RWF_LOGIN_HAS_SUPPORT_POST)
        rwf_enc_el_uint(e, NAME("SupportOMMPost"), l->support_post);
    if (l->flags & RWF_LOGIN_HAS_SUPPORT_BATCH)
        rwf_enc_el_uint(e, NAME("SupportBatchRequests"), l->support_batch);
    if (l->flags & RWF_LOGIN_HAS_SUPPORT_DICT_DOWNLOAD)
        rwf_enc_el_uint(e, NAME("SupportProviderDictionaryDownload"), l->support_dict_download);
    if (l->flags & RWF_LOGIN_HAS_SUPPORT_VIEW)
        rwf_enc_el_uint(e, NAME("SupportViewRequests"), l->support_view);
    rwf_enc_el_end(e);
    return rwf_enc_msg_end(e);
}

/* Reads a UINT element (other types of the same name are a decode error). */
static int el_uint(const rwf_element *el, uint64_t *v)
{
    if (el->type != RWF_DT_UINT && el->type != RWF_DT_INT) {
        err_set("element %.*s is a %s, expected UINT", (int)el->name.len, el->name.data,
                rwf_type_name(el->type) ? rwf_type_name(el->type) : "?");
        return RWF_E_MALFORMED;
    }
    int r =
        el->type == RWF_DT_UINT ? rwf_get_uint(el->data, v) : rwf_get_int(el->data, (int64_t *)v);
    return r < 0 ? err_push("element %.*s", (int)el->name.len, el->name.data), r : RWF_OK;
}

static int el_string(const rwf_element *el, rwf_buf *v)
{
    if (el->type < RWF_DT_BUFFER || el->type > RWF_DT_RMTES_STRING) {
        err_set("element %.*s is a %s, expected a string", (int)el->name.len, el->name.data,
                rwf_type_name(el->type) ? rwf_type_name(el->type) : "?");
        return RWF_E_MALFORMED;
    }
    *v = el->data;
    return RWF_OK;
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
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, m->key.attrib, NULL);
    if (r < 0)
        return err_push("login attributes"), r;
    static const struct {
        const char *name;
        uint32_t flag;
        int is_uint;
        size_t off;
    } known[] = {
        {"ApplicationId", RWF_LOGIN_HAS_APP_ID, 0, offsetof(rwf_login, app_id)},
        {"ApplicationName", RWF_LOGIN_HAS_APP_NAME, 0, offsetof(rwf_login, app_name)},
        {"Position", RWF_LOGIN_HAS_POSITION, 0, offsetof(rwf_login, position)},
        {"Password", RWF_LOGIN_HAS_PASSWORD, 0, offsetof(rwf_login, password)},
        {"InstanceId", RWF_LOGIN_HAS_INSTANCE_ID, 0, offsetof(rwf_login, instance_id)},
        {"SingleOpen", RWF_LOGIN_HAS_SINGLE_OPEN, 1, offsetof(rwf_login, single_open)},
        {"AllowSuspectData", RWF_LOGIN_HAS_ALLOW_SUSPECT, 1, offsetof(rwf_login, allow_suspect)},
        {"Role", RWF_LOGIN_HAS_ROLE, 1, offsetof(rwf_login, role)},
        {"SupportOMMPost", RWF_LOGIN_HAS_SUPPORT_POST, 1, offsetof(rwf_login, support_post)},
        {"SupportBatchRequests", RWF_LOGIN_HAS_SUPPORT_BATCH, 1,
         offsetof(rwf_login, support_batch)},
        {"SupportViewRequests", RWF_LOGIN_HAS_SUPPORT_VIEW, 1, offsetof(rwf_login, support_view)},
        {"SupportProviderDictionaryDownload", RWF_LOGIN_HAS_SUPPORT_DICT_DOWNLOAD, 1,
         offsetof(rwf_login, support_dict_download)},
    };
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
            if (!rwf_buf_eq_cstr(el.name, known[i].name))
                continue;
            char *dst = (char *)out + known[i].off;
            r = known[i].is_uint ? el_uint(&el, (uint64_t *)(void *)dst)
                                 : el_string(&el, (rwf_buf *)(void *)dst);
            if (r < 0)
                return err_push("login attributes"), r;
            out->flags |= known[i].flag;
            break;
        }
    }
    return r < 0 ? err_push("login attributes"), r : RWF_OK;
}

/* ---- Source Directory -------------------------------------------------------------------- */

int rwf_rdm_directory_request(rwf_enc *e, int32_t stream_id, uint32_t filter, int has_service_id,
                              uint16_t service_id)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_SOURCE;
    m.stream_id = stream_id;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_FILTER | (has_service_id ? RWF_MKF_HAS_SERVICE_ID : 0);
    m.key.filter = filter;
    m.key.service_id = service_id;
    return rwf_enc_msg(e, &m);
}

static void el_uint_array(rwf_enc *e, rwf_buf name, const uint64_t *v, unsigned n)
{
    rwf_enc_el_entry(e, name, RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_UINT, 0);
    for (unsigned i = 0; i < n; i++)
        rwf_enc_uint(e, v[i]);
    rwf_enc_array_end(e);
}

/* n is cut at RWF_SVC_MAX_LIST, the size of the service's lists. */
static void el_ascii_array(rwf_enc *e, rwf_buf name, const rwf_buf *v, unsigned n)
{
    if (n > RWF_SVC_MAX_LIST)
        n = RWF_SVC_MAX_LIST;
    rwf_enc_el_entry(e, name, RWF_DT_ARRAY);
    rwf_enc_array_begin(e, RWF_DT_ASCII_STRING, 0);
    for (unsigned i = 0; i < n; i++)
        rwf_enc_buf(e, RWF_DT_ASCII_STRING, v[i]);
    rwf_enc_array_end(e);
}

static void enc_service(rwf_enc *e, const rwf_service *s)
{
    rwf_filter_hdr fh = {.ctype = RWF_DT_ELEMENT_LIST};
    rwf_value key = {.type = RWF_DT_UINT, .u = s->id};
    int action = s->action ? s->action : RWF_MPEA_ADD_ENTRY;

    rwf_enc_map_entry(e, action, NULL, &key);
    if (action == RWF_MPEA_DELETE_ENTRY)
        return;
    rwf_enc_filter_begin(e, &fh);
    if (s->flags & RWF_SVC_HAS_INFO) {
        rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_INFO_ID, 0, NULL);
        rwf_enc_el_begin_std(e);
        el_ascii(e, NAME("Name"), s->name);
        if (s->flags & RWF_SVC_HAS_VENDOR)
            el_ascii(e, NAME("Vendor"), s->vendor);
        if (s->flags & RWF_SVC_HAS_IS_SOURCE)
            rwf_enc_el_uint(e, NAME("IsSource"), s->is_source);
        el_uint_array(e, NAME("Capabilities"), s->capabilities,
                      s->capability_count < RWF_SVC_MAX_LIST ? s->capability_count
                                                             : RWF_SVC_MAX_LIST);
        if (s->flags & RWF_SVC_HAS_DICTS_PROVIDED)
            el_ascii_array(e, NAME("DictionariesProvided"), s->dicts_provided,
                           s->dicts_provided_count);
        if (s->flags & RWF_SVC_HAS_DICTS_USED)
            el_ascii_array(e, NAME("DictionariesUsed"), s->dicts_used, s->dicts_used_count);
        if (s->flags & RWF_SVC_HAS_QOS) {
            rwf_enc_el_entry(e, NAME("QoS"), RWF_DT_ARRAY);
            rwf_enc_array_begin(e, RWF_DT_QOS, 0);
            for (unsigned i = 0; i < s->qos_count && i < RWF_SVC_MAX_LIST; i++)
                rwf_enc_qos(e, &s->qos[i]);
            rwf_enc_array_end(e);
        }
        if (s->flags & RWF_SVC_HAS_SUPPORT_QOS_RANGE)
            rwf_enc_el_uint(e, NAME("SupportsQoSRange"), s->supports_qos_range);
        if (s->flags & RWF_SVC_HAS_ITEM_LIST)
            el_ascii(e, NAME("ItemList"), s->item_list);
        if (s->flags & RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS)
            rwf_enc_el_uint(e, NAME("SupportsOutOfBandSnapshots"), s->supports_oob_snapshots);
        if (s->flags & RWF_SVC_HAS_ACCEPTING_CONS_STATUS)
            rwf_enc_el_uint(e, NAME("AcceptingConsumerStatus"), s->accepting_consumer_status);
        rwf_enc_el_end(e);
    }
    if (s->flags & RWF_SVC_HAS_STATE) {
        rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_STATE_ID, 0, NULL);
        rwf_enc_el_begin_std(e);
        rwf_enc_el_uint(e, NAME("ServiceState"), s->service_state);
        if (s->flags & RWF_SVC_HAS_ACCEPTING_REQS)
            rwf_enc_el_uint(e, NAME("AcceptingRequests"), s->accepting_requests);
        if (s->flags & RWF_SVC_HAS_STATUS) {
            rwf_enc_el_entry(e, NAME("Status"), RWF_DT_STATE);
            rwf_enc_state(e, &s->status);
        }
        rwf_enc_el_end(e);
    }
    if (s->flags & RWF_SVC_HAS_LOAD) {
        rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_LOAD_ID, 0, NULL);
        rwf_enc_el_begin_std(e);
        if (s->flags & RWF_SVC_HAS_OPEN_LIMIT)
            rwf_enc_el_uint(e, NAME("OpenLimit"), s->open_limit);
        if (s->flags & RWF_SVC_HAS_OPEN_WINDOW)
            rwf_enc_el_uint(e, NAME("OpenWindow"), s->open_window);
        if (s->flags & RWF_SVC_HAS_LOAD_FACTOR)
            rwf_enc_el_uint(e, NAME("LoadFactor"), s->load_factor);
        rwf_enc_el_end(e);
    }
    rwf_enc_filter_end(e);
}

int rwf_rdm_directory_refresh(rwf_enc *e, const rwf_directory *d)
{
    rwf_msg m;
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_FILTER_LIST};
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_SOURCE;
    m.stream_id = d->stream_id;
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE |
              (d->solicited ? RWF_RFMF_SOLICITED : 0) | (d->clear_cache ? RWF_RFMF_CLEAR_CACHE : 0);
    m.container_type = RWF_DT_MAP;
    m.state = d->state;
    m.key.flags = RWF_MKF_HAS_FILTER | (d->has_service_id ? RWF_MKF_HAS_SERVICE_ID : 0);
    m.key.filter = d->filter;
    m.key.service_id = d->service_id;
    rwf_enc_msg_begin(e, &m);
    rwf_enc_map_begin(e, &mh);
    for (unsigned i = 0; i < d->service_count; i++)
        enc_service(e, &d->services[i]);
    rwf_enc_map_end(e);
    return rwf_enc_msg_end(e);
}

/* Reads an array element into up to RWF_SVC_MAX_LIST values of the given kind. */
static int el_array(const rwf_element *el, int want, void *out, unsigned *count)
{
    rwf_array_dec a;
    rwf_buf item;
    rwf_value v;
    int r;
    *count = 0;
    if (el->type != RWF_DT_ARRAY) {
        err_set("element %.*s is not an array", (int)el->name.len, el->name.data);
        return RWF_E_MALFORMED;
    }
    if ((r = rwf_array_dec_init(&a, el->data)) < 0)
        return err_push("element %.*s", (int)el->name.len, el->name.data), r;
    while ((r = rwf_array_next(&a, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&a, item, &v)) < 0)
            return err_push("element %.*s", (int)el->name.len, el->name.data), r;
        if (*count >= RWF_SVC_MAX_LIST)
            continue;
        if (want == RWF_DT_UINT && (v.type == RWF_DT_UINT || v.type == RWF_DT_INT))
            ((uint64_t *)out)[(*count)++] = v.u;
        else if (want == RWF_DT_QOS && v.type == RWF_DT_QOS)
            ((rwf_qos *)out)[(*count)++] = v.qos;
        else if (want == RWF_DT_ASCII_STRING && v.type >= RWF_DT_BUFFER &&
                 v.type <= RWF_DT_RMTES_STRING)
            ((rwf_buf *)out)[(*count)++] = v.buf;
    }
    return r < 0 ? err_push("element %.*s", (int)el->name.len, el->name.data), r : RWF_OK;
}

static int dec_info(rwf_buf data, rwf_service *s)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, data, NULL);
    if (r < 0)
        return r;
    s->flags |= RWF_SVC_HAS_INFO;
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        if (rwf_buf_eq_cstr(el.name, "Name")) {
            r = el_string(&el, &s->name);
            s->flags |= RWF_SVC_HAS_NAME;
        } else if (rwf_buf_eq_cstr(el.name, "Vendor")) {
            r = el_string(&el, &s->vendor);
            s->flags |= RWF_SVC_HAS_VENDOR;
        } else if (rwf_buf_eq_cstr(el.name, "IsSource")) {
            r = el_uint(&el, &s->is_source);
            s->flags |= RWF_SVC_HAS_IS_SOURCE;
        } else if (rwf_buf_eq_cstr(el.name, "Capabilities")) {
            r = el_array(&el, RWF_DT_UINT, s->capabilities, &s->capability_count);
        } else if (rwf_buf_eq_cstr(el.name, "DictionariesProvided")) {
            r = el_array(&el, RWF_DT_ASCII_STRING, s->dicts_provided, &s->dicts_provided_count);
            s->flags |= RWF_SVC_HAS_DICTS_PROVIDED;
        } else if (rwf_buf_eq_cstr(el.name, "DictionariesUsed")) {
            r = el_array(&el, RWF_DT_ASCII_STRING, s->dicts_used, &s->dicts_used_count);
            s->flags |= RWF_SVC_HAS_DICTS_USED;
        } else if (rwf_buf_eq_cstr(el.name, "QoS")) {
            r = el_array(&el, RWF_DT_QOS, s->qos, &s->qos_count);
            s->flags |= RWF_SVC_HAS_QOS;
        } else if (rwf_buf_eq_cstr(el.name, "SupportsQoSRange")) {
            r = el_uint(&el, &s->supports_qos_range);
            s->flags |= RWF_SVC_HAS_SUPPORT_QOS_RANGE;
        } else if (rwf_buf_eq_cstr(el.name, "ItemList")) {
            r = el_string(&el, &s->item_list);
            s->flags |= RWF_SVC_HAS_ITEM_LIST;
        } else if (rwf_buf_eq_cstr(el.name, "SupportsOutOfBandSnapshots")) {
            r = el_uint(&el, &s->supports_oob_snapshots);
            s->flags |= RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS;
        } else if (rwf_buf_eq_cstr(el.name, "AcceptingConsumerStatus")) {
            r = el_uint(&el, &s->accepting_consumer_status);
            s->flags |= RWF_SVC_HAS_ACCEPTING_CONS_STATUS;
        }
        if (r < 0)
            return r;
    }
    return r < 0 ? r : RWF_OK;
}

static int dec_state(rwf_buf data, rwf_service *s)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, data, NULL);
    if (r < 0)
        return r;
    s->flags |= RWF_SVC_HAS_STATE;
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        if (rwf_buf_eq_cstr(el.name, "ServiceState")) {
            r = el_uint(&el, &s->service_state);
        } else if (rwf_buf_eq_cstr(el.name, "AcceptingRequests")) {
            r = el_uint(&el, &s->accepting_requests);
            s->flags |= RWF_SVC_HAS_ACCEPTING_REQS;
        } else if (rwf_buf_eq_cstr(el.name, "Status") && el.type == RWF_DT_STATE) {
            r = rwf_get_state(el.data, &s->status);
            s->flags |= RWF_SVC_HAS_STATUS;
        }
        if (r < 0)
            return r;
    }
    return r < 0 ? r : RWF_OK;
}

static int dec_load(rwf_buf data, rwf_service *s)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, data, NULL);
    if (r < 0)
        return r;
    s->flags |= RWF_SVC_HAS_LOAD;
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        if (rwf_buf_eq_cstr(el.name, "OpenLimit")) {
            r = el_uint(&el, &s->open_limit);
            s->flags |= RWF_SVC_HAS_OPEN_LIMIT;
        } else if (rwf_buf_eq_cstr(el.name, "OpenWindow")) {
            r = el_uint(&el, &s->open_window);
            s->flags |= RWF_SVC_HAS_OPEN_WINDOW;
        } else if (rwf_buf_eq_cstr(el.name, "LoadFactor")) {
            r = el_uint(&el, &s->load_factor);
            s->flags |= RWF_SVC_HAS_LOAD_FACTOR;
        }
        if (r < 0)
            return r;
    }
    return r < 0 ? r : RWF_OK;
}

int rwf_rdm_directory_decode(const rwf_msg *m, rwf_service *services, unsigned max, unsigned *count)
{
    rwf_map_dec md;
    rwf_map_entry me;
    int r;
    *count = 0;
    if (m->domain != RWF_DMT_SOURCE ||
        (m->msg_class != RWF_MC_REFRESH && m->msg_class != RWF_MC_UPDATE)) {
        err_set("not a directory refresh or update (class %s, domain %u)",
                rwf_msg_class_name(m->msg_class), m->domain);
        return RWF_E_INVALID;
    }
    if (m->container_type != RWF_DT_MAP)
        return RWF_OK; /* no services */
    if ((r = rwf_map_dec_init(&md, m->payload)) < 0)
        return err_push("directory"), r;
    if (m->payload.len && (md.hdr.key_type != RWF_DT_UINT || md.hdr.ctype != RWF_DT_FILTER_LIST)) {
        err_set("directory: a Map of %s keys and %s entries, expected UINT and FilterList",
                rwf_type_name(md.hdr.key_type), rwf_type_name(md.hdr.ctype));
        return RWF_E_MALFORMED;
    }
    while ((r = rwf_map_next(&md, &me)) == RWF_OK) {
        uint64_t id;
        if ((r = rwf_get_uint(me.key, &id)) != RWF_OK || id > 0xFFFF) {
            err_set("directory: service id of %u bytes is not a 16-bit UINT", (unsigned)me.key.len);
            return RWF_E_MALFORMED;
        }
        if (*count >= max)
            continue;
        rwf_service *s = &services[(*count)++];
        memset(s, 0, sizeof(*s));
        s->id = (uint16_t)id;
        s->action = me.action;
        if (me.action == RWF_MPEA_DELETE_ENTRY)
            continue;
        rwf_filter_dec fd;
        rwf_filter_entry fe;
        if ((r = rwf_filter_dec_init(&fd, me.data)) < 0)
            return err_push("directory service %u", s->id), r;
        while ((r = rwf_filter_next(&fd, &fe)) == RWF_OK) {
            if (fe.action == RWF_FTEA_CLEAR_ENTRY || fe.ctype != RWF_DT_ELEMENT_LIST)
                continue;
            if (fe.id == RWF_DIR_INFO_ID)
                r = dec_info(fe.data, s);
            else if (fe.id == RWF_DIR_STATE_ID)
                r = dec_state(fe.data, s);
            else if (fe.id == RWF_DIR_LOAD_ID)
                r = dec_load(fe.data, s);
            if (r < 0)
                return err_push("directory service %u filter %u", s->id, fe.id), r;
        }
        if (r < 0)
            return err_push("directory service %u", s->id), r;
    }
    return r < 0 ? err_push("directory"), r : RWF_OK;
}

/* ---- Dictionary -------------------------------------------------------------------------- */

int rwf_rdm_dictionary_request(rwf_enc *e, int32_t stream_id, uint16_t service_id, rwf_buf name,
                               uint32_t verbosity)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_DICTIONARY;
    m.stream_id = stream_id;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER;
    m.key.service_id = service_id;
    m.key.name = name;
    m.key.filter = verbosity;
    return rwf_enc_msg(e, &m);
}

int rwf_rdm_dictionary_request_decode(const rwf_msg *m, rwf_dict_request *out)
{
    memset(out, 0, sizeof(*out));
    if (m->domain != RWF_DMT_DICTIONARY || m->msg_class != RWF_MC_REQUEST) {
        err_set("not a dictionary request (class %s, domain %u)", rwf_msg_class_name(m->msg_class),
                m->domain);
        return RWF_E_INVALID;
    }
    if (!(m->key.flags & RWF_MKF_HAS_NAME)) {
        err_set("dictionary request without a dictionary name");
        return RWF_E_MALFORMED;
    }
    out->stream_id = m->stream_id;
    out->service_id = m->key.service_id;
    out->name = m->key.name;
    out->verbosity = (m->key.flags & RWF_MKF_HAS_FILTER) ? m->key.filter : RWF_DICT_NORMAL;
    out->streaming = (m->flags & RWF_RQMF_STREAMING) != 0;
    return RWF_OK;
}

/* Element set definition 0 of field dictionary entries (7 entries at MINIMAL, 9 from NORMAL)
 * and of enum tables (FIDS, VALUE, DISPLAY), as the ETA dictionary encoders define them. */
static const rwf_set_entry field_set[9] = {
    {.name = {"NAME", 4}, .type = RWF_DT_ASCII_STRING},
    {.name = {"FID", 3}, .type = RWF_DT_INT_2},
    {.name = {"RIPPLETO", 8}, .type = RWF_DT_INT_2},
    {.name = {"TYPE", 4}, .type = RWF_DT_INT_1},
    {.name = {"LENGTH", 6}, .type = RWF_DT_UINT_2},
    {.name = {"RWFTYPE", 7}, .type = RWF_DT_UINT_1},
    {.name = {"RWFLEN", 6}, .type = RWF_DT_UINT_2},
    {.name = {"ENUMLENGTH", 10}, .type = RWF_DT_UINT_1},
    {.name = {"LONGNAME", 8}, .type = RWF_DT_ASCII_STRING},
};

static const rwf_set_entry enum_set[3] = {
    {.name = {"FIDS", 4}, .type = RWF_DT_ARRAY},
    {.name = {"VALUE", 5}, .type = RWF_DT_ARRAY},
    {.name = {"DISPLAY", 7}, .type = RWF_DT_ARRAY},
};

/* Sets the REFRESH_COMPLETE flag of the refresh message that starts at msg. */
static void set_refresh_complete(uint8_t *msg)
{
    /* flags at offset 8: u15rb; 0x40 sits in the last byte of either form */
    if (msg[8] & 0x80)
        msg[9] |= (uint8_t)RWF_RFMF_REFRESH_COMPLETE;
    else
        msg[8] |= (uint8_t)RWF_RFMF_REFRESH_COMPLETE;
}

static void dict_summary(rwf_enc *e, const rwf_dict *d, int type)
{
    rwf_enc_el_begin_std(e);
    rwf_enc_el_int(e, NAME("Type"), type);
    rwf_enc_el_int(e, NAME("DictionaryId"), d->info.dictionary_id);
    if (type == RWF_DICT_FIELD_DEFINITIONS) {
        el_ascii(e, NAME("Version"), d->info.field_version);
    } else {
        el_ascii(e, NAME("RT_Version"), d->info.enum_rt_version);
        el_ascii(e, NAME("DT_Version"), d->info.enum_dt_version);
        el_ascii(e, NAME("Version"), d->info.enum_dt_version);
    }
    rwf_enc_el_end(e);
}

static int field_part(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d, int32_t *next)
{
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_ELEMENT_LIST);
    rwf_set_db_add(&db, 0, field_set, r->verbosity >= RWF_DICT_NORMAL ? 9 : 7);
    int first = *next == 0; /* else *next is the fid to continue from, plus 65536 */
    int32_t fid = first ? d->min_fid : *next - 65536, from = fid;
    rwf_series_hdr sh = {.ctype = RWF_DT_ELEMENT_LIST};
    if (r->verbosity > RWF_DICT_INFO)
        sh.flags |= RWF_SRF_HAS_SET_DEFS;
    if (first) {
        if (d->field_count) {
            sh.flags |= RWF_SRF_HAS_TOTAL_COUNT_HINT;
            sh.total_count_hint = d->field_count;
        }
        sh.flags |= RWF_SRF_HAS_SUMMARY_DATA;
    }
    rwf_enc_series_begin(e, &sh);
    if (r->verbosity > RWF_DICT_INFO)
        rwf_enc_set_db(e, &db);
    if (first)
        dict_summary(e, d, RWF_DICT_FIELD_DEFINITIONS);
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_SET_DATA};
    for (; fid <= d->max_fid && !rwf_enc_status(e); fid++) {
        if (r->verbosity <= RWF_DICT_INFO)
            continue;
        const rwf_dict_field *f = rwf_dict_field_by_fid(d, (int16_t)fid);
        if (!f)
            continue;
        size_t need = (size_t)f->acronym.len + f->dde_acronym.len + 14;
        if ((size_t)(e->end - e->pos) < need + 3) { /* the rest goes in the next part */
            if (fid == from && !first)
                return rwf_enc_err(e, RWF_E_NOSPACE,
                                   "field %d (%zu bytes) does not fit an empty part", fid, need);
            break;
        }
        rwf_enc_series_entry(e);
        rwf_enc_size_hint(e, (uint16_t)(need > 0xFFFF ? 0xFFFF : need));
        rwf_enc_el_begin(e, &eh, &db);
        el_ascii(e, NAME("NAME"), f->acronym);
        rwf_enc_el_int(e, NAME("FID"), f->fid);
        rwf_enc_el_int(e, NAME("RIPPLETO"), f->ripple_to);
        rwf_enc_el_int(e, NAME("TYPE"), f->mf_type);
        rwf_enc_el_uint(e, NAME("LENGTH"), f->length);
        rwf_enc_el_uint(e, NAME("RWFTYPE"), f->rwf_type);
        rwf_enc_el_uint(e, NAME("RWFLEN"), f->rwf_len);
        if (r->verbosity >= RWF_DICT_NORMAL) {
            rwf_enc_el_uint(e, NAME("ENUMLENGTH"), f->enum_length);
            el_ascii(e, NAME("LONGNAME"), f->dde_acronym);
        }
        rwf_enc_el_end(e);
    }
    rwf_enc_series_end(e);
    *next = fid + 65536;
    return fid > d->max_fid ? RWF_OK : RWF_PART_MORE;
}

/* The string type ETA gives a table's displays: ASCII, UTF8 when valid multi-byte UTF-8
 * appears, RMTES when any display is not valid UTF-8. */
static int display_type(const rwf_enum_table *t)
{
    int type = RWF_DT_ASCII_STRING;
    for (uint32_t v = 0; v < t->count; v++) {
        const uint8_t *p = (const uint8_t *)t->values[v].display.data;
        uint32_t n = t->values[v].display.len, i = 0;
        while (i < n) {
            unsigned more = p[i] < 0x80             ? 0
                            : (p[i] & 0xE0) == 0xC0 ? 1
                            : (p[i] & 0xF0) == 0xE0 ? 2
                            : (p[i] & 0xF8) == 0xF0 ? 3
                                                    : 4;
            if (more == 4 || (more && i + more >= n))
                return RWF_DT_RMTES_STRING;
            for (unsigned k = 1; k <= more; k++)
                if ((p[i + k] & 0xC0) != 0x80)
                    return RWF_DT_RMTES_STRING;
            if (more)
                type = RWF_DT_UTF8_STRING;
            i += 1 + more;
        }
    }
    return type;
}

/* Bytes the series entry of table t takes (to decide whether it fits this part). */
static size_t table_size(const rwf_enum_table *t)
{
    size_t n = 3 + 2;                      /* entry length, list flags, set id */
    n += 3 + 4 + 2 * (size_t)t->fid_count; /* FIDS */
    n += 3 + 4;                            /* VALUE */
    for (uint32_t i = 0; i < t->count; i++)
        n += t->values[i].value > 0xFF ? 3 : 2;
    n += 3 + 4; /* DISPLAY */
    for (uint32_t i = 0; i < t->count; i++)
        n += (t->values[i].display.len < 0xFE ? 1 : 3) + t->values[i].display.len;
    return n;
}

static int enum_part(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d, int32_t *next)
{
    rwf_set_db db;
    rwf_set_db_init(&db, RWF_DT_ELEMENT_LIST);
    rwf_set_db_add(&db, 0, enum_set, 3);
    uint32_t t = *next < 0 ? 0 : (uint32_t)*next, start = t;
    rwf_series_hdr sh = {.ctype = RWF_DT_ELEMENT_LIST};
    if (t == 0)
        sh.flags |= RWF_SRF_HAS_SUMMARY_DATA;
    if (r->verbosity > RWF_DICT_INFO)
        sh.flags |= RWF_SRF_HAS_SET_DEFS;
    rwf_enc_series_begin(e, &sh);
    if (r->verbosity > RWF_DICT_INFO)
        rwf_enc_set_db(e, &db);
    if (t == 0)
        dict_summary(e, d, RWF_DICT_ENUM_TABLES);
    if (r->verbosity <= RWF_DICT_INFO)
        t = d->table_count;
    rwf_el_hdr eh = {.flags = RWF_ELF_HAS_SET_DATA | RWF_ELF_HAS_SET_ID, .set_id = 0};
    for (; t < d->table_count && !rwf_enc_status(e); t++) {
        const rwf_enum_table *tb = &d->tables[t];
        if ((size_t)(e->end - e->pos) < table_size(tb)) {
            if (t == start)
                return rwf_enc_err(e, RWF_E_NOSPACE,
                                   "enum table %u (%zu bytes) does not fit an empty part", t,
                                   table_size(tb));
            break;
        }
        uint8_t *before = e->pos;
        rwf_enc_series_entry(e);
        rwf_enc_el_begin(e, &eh, &db);
        rwf_enc_el_entry(e, NAME("FIDS"), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, RWF_DT_INT, 2);
        for (uint32_t i = 0; i < tb->fid_count; i++)
            rwf_enc_int(e, tb->fids[i]);
        rwf_enc_array_end(e);
        rwf_enc_el_entry(e, NAME("VALUE"), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, RWF_DT_ENUM, 0);
        for (uint32_t i = 0; i < tb->count; i++)
            rwf_enc_enum(e, tb->values[i].value);
        rwf_enc_array_end(e);
        int dt = display_type(tb);
        rwf_enc_el_entry(e, NAME("DISPLAY"), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, dt, 0);
        for (uint32_t i = 0; i < tb->count; i++)
            rwf_enc_buf(e, dt, tb->values[i].display);
        rwf_enc_array_end(e);
        rwf_enc_el_end(e);
        assert(rwf_enc_status(e) || (size_t)(e->pos - before) == table_size(tb));
        (void)before;
    }
    rwf_enc_series_end(e);
    *next = (int32_t)t;
    return t >= d->table_count ? RWF_OK : RWF_PART_MORE;
}

int rwf_rdm_dictionary_refresh(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d,
                               int32_t *next)
{
    rwf_msg m;
    if (r->type != RWF_DICT_FIELD_DEFINITIONS && r->type != RWF_DICT_ENUM_TABLES)
        return rwf_enc_err(e, RWF_E_INVALID, "dictionary type %d is neither fields nor enums",
                           r->type);
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REFRESH;
    m.domain = RWF_DMT_DICTIONARY;
    m.stream_id = r->stream_id;
    m.flags = RWF_RFMF_HAS_MSG_KEY | (r->solicited ? RWF_RFMF_SOLICITED : 0);
    m.container_type = RWF_DT_SERIES;
    m.state.stream_state = RWF_STREAM_OPEN;
    m.state.data_state = RWF_DATA_OK;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_FILTER | RWF_MKF_HAS_SERVICE_ID;
    m.key.name = r->name;
    m.key.filter = r->verbosity;
    m.key.service_id = r->service_id;
    uint8_t *start = e->pos;
    int depth = e->depth;
    rwf_enc_msg_begin(e, &m);
    int more = r->type == RWF_DICT_FIELD_DEFINITIONS ? field_part(e, r, d, next)
                                                     : enum_part(e, r, d, next);
    rwf_enc_msg_end(e);
    if (rwf_enc_status(e))
        return rwf_enc_status(e);
    if (more == RWF_OK && e->depth == depth)
        set_refresh_complete(start);
    return more;
}

int rwf_rdm_dictionary_reject(rwf_enc *e, int32_t stream_id)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_STATUS;
    m.domain = RWF_DMT_DICTIONARY;
    m.stream_id = stream_id;
    m.flags = RWF_STMF_HAS_STATE;
    m.container_type = RWF_DT_NO_DATA;
    m.state.stream_state = RWF_STREAM_CLOSED;
    m.state.data_state = RWF_DATA_SUSPECT;
    m.state.code = RWF_SC_INVALID_ARGUMENT;
    m.state.text = NAME("Unknown dictionary name.");
    return rwf_enc_msg(e, &m);
}

/* ---- Dictionary decode ------------------------------------------------------------------- */

static int summary_info(rwf_dict *d, rwf_buf data, int *type)
{
    rwf_el_dec ed;
    rwf_element el;
    int r = rwf_el_dec_init(&ed, data, NULL);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        uint64_t v;
        rwf_buf s;
        if (rwf_buf_eq_cstr(el.name, "Type")) {
            if ((r = el_uint(&el, &v)) < 0)
                return r;
            if (v != RWF_DICT_FIELD_DEFINITIONS && v != RWF_DICT_ENUM_TABLES) {
                err_set("dictionary Type %llu is neither fields (1) nor enums (2)",
                        (unsigned long long)v);
                return RWF_E_MALFORMED;
            }
            *type = (int)v;
        } else if (rwf_buf_eq_cstr(el.name, "DictionaryId")) {
            if ((r = el_uint(&el, &v)) < 0)
                return r;
            d->info.dictionary_id = (int)(int64_t)v;
        } else if (el.type >= RWF_DT_BUFFER && el.type <= RWF_DT_RMTES_STRING) {
            s = rwf_dict_strdup(d, el.data);
            if (rwf_buf_eq_cstr(el.name, "RT_Version"))
                d->info.enum_rt_version = s;
            else if (rwf_buf_eq_cstr(el.name, "DT_Version"))
                d->info.enum_dt_version = s;
            else if (rwf_buf_eq_cstr(el.name, "Version") && *type != RWF_DICT_ENUM_TABLES)
                d->info.field_version = s;
        }
    }
    return r < 0 ? r : RWF_OK;
}

static int apply_field(rwf_dict *d, rwf_buf data, const rwf_set_db *db)
{
    rwf_el_dec ed;
    rwf_element el;
    rwf_dict_field f;
    rwf_value v;
    int r = rwf_el_dec_init(&ed, data, db);
    if (r < 0)
        return r;
    memset(&f, 0, sizeof(f));
    int have_fid = 0;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        if (el.type == RWF_DT_NO_DATA)
            continue;
        if ((r = rwf_get_value(el.type, el.data, &v)) < 0)
            return err_push("element %.*s", (int)el.name.len, el.name.data), r;
        if (rwf_buf_eq_cstr(el.name, "NAME"))
            f.acronym = v.buf;
        else if (rwf_buf_eq_cstr(el.name, "LONGNAME"))
            f.dde_acronym = v.buf;
        else if (rwf_buf_eq_cstr(el.name, "FID"))
            f.fid = (int16_t)v.i, have_fid = 1;
        else if (rwf_buf_eq_cstr(el.name, "RIPPLETO"))
            f.ripple_to = (int16_t)v.i;
        else if (rwf_buf_eq_cstr(el.name, "TYPE"))
            f.mf_type = (int8_t)v.i;
        else if (rwf_buf_eq_cstr(el.name, "LENGTH"))
            f.length = (uint16_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, "RWFTYPE"))
            f.rwf_type = (uint8_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, "RWFLEN"))
            f.rwf_len = (uint16_t)v.u;
        else if (rwf_buf_eq_cstr(el.name, "ENUMLENGTH"))
            f.enum_length = (uint8_t)v.u;
    }
    if (r < 0)
        return r;
    if (!have_fid || !f.acronym.len) {
        err_set("field definition without NAME or FID");
        return RWF_E_MALFORMED;
    }
    return rwf_dict_add_field(d, &f);
}

static int apply_table(rwf_dict *d, rwf_buf data, const rwf_set_db *db)
{
    rwf_el_dec ed;
    rwf_element el;
    rwf_buf fids_el = {0}, values_el = {0}, displays_el = {0};
    int r = rwf_el_dec_init(&ed, data, db);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&ed, &el)) == RWF_OK) {
        if (el.type != RWF_DT_ARRAY)
            continue;
        if (rwf_buf_eq_cstr(el.name, "FIDS"))
            fids_el = el.data;
        else if (rwf_buf_eq_cstr(el.name, "VALUE"))
            values_el = el.data;
        else if (rwf_buf_eq_cstr(el.name, "DISPLAY"))
            displays_el = el.data;
    }
    if (r < 0)
        return r;
    rwf_array_dec fa, va, da;
    if ((r = rwf_array_dec_init(&fa, fids_el)) < 0 ||
        (r = rwf_array_dec_init(&va, values_el)) < 0 ||
        (r = rwf_array_dec_init(&da, displays_el)) < 0)
        return r;
    if (!fa.count || va.count != da.count) {
        err_set("enum table with %u fids, %u values and %u displays", fa.count, va.count, da.count);
        return RWF_E_MALFORMED;
    }
    int16_t *fids = malloc(fa.count * sizeof(int16_t));
    rwf_enum_value *vals = malloc((va.count ? va.count : 1) * sizeof(rwf_enum_value));
    if (!fids || !vals) {
        free(fids);
        free(vals);
        err_set("out of memory for an enum table");
        return RWF_E_NOMEM;
    }
    rwf_buf item;
    rwf_value v;
    uint32_t n = 0;
    while (r >= 0 && (r = rwf_array_next(&fa, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&fa, item, &v)) >= 0)
            fids[n++] = (int16_t)(v.type == RWF_DT_UINT ? (int64_t)v.u : v.i);
    }
    n = 0;
    while (r >= 0 && (r = rwf_array_next(&va, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&va, item, &v)) >= 0) {
            vals[n].value = v.type == RWF_DT_ENUM ? v.enm : (uint16_t)v.u;
            vals[n].meaning = rwf_buf_make(NULL, 0);
            n++;
        }
    }
    n = 0;
    while (r >= 0 && (r = rwf_array_next(&da, &item)) == RWF_OK) {
        if ((r = rwf_array_item_value(&da, item, &v)) >= 0)
            vals[n++].display = v.buf;
    }
    if (r >= 0)
        r = rwf_dict_add_enum_table(d, fids, NULL, fa.count, vals, va.count);
    free(fids);
    free(vals);
    return r < 0 ? r : RWF_OK;
}

int rwf_rdm_dictionary_apply(rwf_dict *d, const rwf_msg *m, int *type)
{
    rwf_series_dec sd;
    rwf_buf entry;
    rwf_set_db db, *sets = NULL;
    rwf_set_entry pool[32];
    int r;

    if (m->domain != RWF_DMT_DICTIONARY || m->msg_class != RWF_MC_REFRESH) {
        err_set("not a dictionary refresh (class %s, domain %u)", rwf_msg_class_name(m->msg_class),
                m->domain);
        return RWF_E_INVALID;
    }
    if (m->container_type != RWF_DT_SERIES) {
        err_set("dictionary refresh payload is a %s, not a Series",
                rwf_type_name(m->container_type));
        return RWF_E_MALFORMED;
    }
    if ((r = rwf_series_dec_init(&sd, m->payload)) < 0)
        return err_push("dictionary refresh"), r;
    if (sd.hdr.flags & RWF_SRF_HAS_SET_DEFS) {
        if ((r = rwf_set_db_decode(&db, RWF_DT_ELEMENT_LIST, sd.hdr.set_defs, pool, 32)) < 0)
            return err_push("dictionary refresh set definitions"), r;
        sets = &db;
    }
    if ((sd.hdr.flags & RWF_SRF_HAS_SUMMARY_DATA) &&
        (r = summary_info(d, sd.hdr.summary, type)) < 0)
        return err_push("dictionary refresh summary"), r;
    if (*type != RWF_DICT_FIELD_DEFINITIONS && *type != RWF_DICT_ENUM_TABLES) {
        err_set("dictionary refresh: type unknown (no summary data seen yet)");
        return RWF_E_MALFORMED;
    }
    while ((r = rwf_series_next(&sd, &entry)) == RWF_OK) {
        r = *type == RWF_DICT_FIELD_DEFINITIONS ? apply_field(d, entry, sets)
                                                : apply_table(d, entry, sets);
        if (r < 0)
            return err_push("dictionary refresh entry %u", sd.index - 1), r;
    }
    return r < 0 ? err_push("dictionary refresh"), r : RWF_OK;
}

/* ---- Item status ------------------------------------------------------------------------- */

int rwf_rdm_item_reject_text(int32_t stream_id, uint8_t domain, int reason, char *buf, size_t cap)
{
    static const char *const why[] = {
        "",
        "item count reached for this channel",
        "service id invalid",
        "QoS not supported",
        "item already open with exact same key on another stream",
        "stream already in use with a different key",
        "this provider does not support domain",
    };
    const char *w = (reason >= 1 && reason <= RWF_REJECT_DOMAIN) ? why[reason] : "unknown reason";
    int n = reason == RWF_REJECT_DOMAIN
                ? snprintf(buf, cap, "Item request rejected for stream id %d - %s %u", stream_id, w,
                           domain)
                : snprintf(buf, cap, "Item request rejected for stream id %d - %s", stream_id, w);
    return n < 0 ? 0 : (size_t)n >= cap ? (int)cap - 1 : n;
}

int rwf_rdm_item_reject(rwf_enc *e, int32_t stream_id, uint8_t domain, int reason)
{
    char text[160];
    rwf_msg m;
    int n = rwf_rdm_item_reject_text(stream_id, domain, reason, text, sizeof(text));
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_STATUS;
    m.domain = domain;
    m.stream_id = stream_id;
    m.flags = RWF_STMF_HAS_STATE;
    m.container_type = RWF_DT_NO_DATA;
    m.state.data_state = RWF_DATA_SUSPECT;
    switch (reason) {
    case RWF_REJECT_ITEM_COUNT:
        m.state.stream_state = RWF_STREAM_CLOSED_RECOVER;
        m.state.code = RWF_SC_TOO_MANY_ITEMS;
        break;
    case RWF_REJECT_ALREADY_OPEN:
        m.state.stream_state = RWF_STREAM_CLOSED_RECOVER;
        m.state.code = RWF_SC_ALREADY_OPEN;
        break;
    case RWF_REJECT_STREAM_IN_USE:
        m.state.stream_state = RWF_STREAM_CLOSED_RECOVER;
        m.state.code = RWF_SC_USAGE_ERROR;
        break;
    case RWF_REJECT_SERVICE_ID:
    case RWF_REJECT_QOS:
    case RWF_REJECT_DOMAIN:
        m.state.stream_state = RWF_STREAM_CLOSED;
        m.state.code = RWF_SC_USAGE_ERROR;
        break;
    default:
        return rwf_enc_err(e, RWF_E_INVALID, "item reject reason %d unknown", reason);
    }
    m.state.text = rwf_buf_make(text, (size_t)n + 1); /* the NUL is sent, as ProvPerf does */
    return rwf_enc_msg(e, &m);
}

int rwf_rdm_item_close_status(rwf_enc *e, int32_t stream_id, uint8_t domain)
{
    rwf_msg m;
    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_STATUS;
    m.domain = domain;
    m.stream_id = stream_id;
    m.flags = RWF_STMF_HAS_STATE;
    m.container_type = RWF_DT_NO_DATA;
    m.state.stream_state = RWF_STREAM_CLOSED;
    m.state.data_state = RWF_DATA_SUSPECT;
    m.state.code = RWF_SC_NONE;
    m.state.text = NAME("Stream closed");
    return rwf_enc_msg(e, &m);
}
