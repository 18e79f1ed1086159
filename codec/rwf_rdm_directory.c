/*
 * rwf_rdm_directory: Source Directory messages — request, refresh (a Map of services, each a
 * FilterList of Info, State and Load element lists, in the ETA encoder's order), and the
 * decoding of a refresh or update into rwf_service structs.
 */
#include "err.h"
#include "rwf_rdm_int.h"

/* Element names of the Info (1), State (2) and Load (4) filter entries. */
#define DIR_NAME "Name"
#define DIR_VENDOR "Vendor"
#define DIR_IS_SOURCE "IsSource"
#define DIR_CAPABILITIES "Capabilities"
#define DIR_DICTIONARIES_PROVIDED "DictionariesProvided"
#define DIR_DICTIONARIES_USED "DictionariesUsed"
#define DIR_QOS "QoS"
#define DIR_SUPPORTS_QOS_RANGE "SupportsQoSRange"
#define DIR_ITEM_LIST "ItemList"
#define DIR_SUPPORTS_OUT_OF_BAND_SNAPSHOTS "SupportsOutOfBandSnapshots"
#define DIR_ACCEPTING_CONSUMER_STATUS "AcceptingConsumerStatus"
#define DIR_SERVICE_STATE "ServiceState"
#define DIR_ACCEPTING_REQUESTS "AcceptingRequests"
#define DIR_STATUS "Status"
#define DIR_OPEN_LIMIT "OpenLimit"
#define DIR_OPEN_WINDOW "OpenWindow"
#define DIR_LOAD_FACTOR "LoadFactor"

/* ---- Encode ------------------------------------------------------------------------------ */

int rwf_rdm_directory_request(rwf_enc *e, int32_t stream_id, uint32_t filter, int has_service_id,
                              uint16_t service_id)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_SOURCE, stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_RQMF_STREAMING;
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

/* The Info filter entry of service s, elements in the ETA encoder's order. */
static void enc_info(rwf_enc *e, const rwf_service *s)
{
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_INFO_ID, 0, NULL);
    rwf_enc_el_begin_std(e);
    rwf_rdm_put_ascii(e, NAME(DIR_NAME), s->name);
    if (s->flags & RWF_SVC_HAS_VENDOR)
        rwf_rdm_put_ascii(e, NAME(DIR_VENDOR), s->vendor);
    if (s->flags & RWF_SVC_HAS_IS_SOURCE)
        rwf_enc_el_uint(e, NAME(DIR_IS_SOURCE), s->is_source);
    el_uint_array(e, NAME(DIR_CAPABILITIES), s->capabilities,
                  s->capability_count < RWF_SVC_MAX_LIST ? s->capability_count : RWF_SVC_MAX_LIST);
    if (s->flags & RWF_SVC_HAS_DICTS_PROVIDED)
        el_ascii_array(e, NAME(DIR_DICTIONARIES_PROVIDED), s->dicts_provided,
                       s->dicts_provided_count);
    if (s->flags & RWF_SVC_HAS_DICTS_USED)
        el_ascii_array(e, NAME(DIR_DICTIONARIES_USED), s->dicts_used, s->dicts_used_count);
    if (s->flags & RWF_SVC_HAS_QOS) {
        rwf_enc_el_entry(e, NAME(DIR_QOS), RWF_DT_ARRAY);
        rwf_enc_array_begin(e, RWF_DT_QOS, 0);
        for (unsigned i = 0; i < s->qos_count && i < RWF_SVC_MAX_LIST; i++)
            rwf_enc_qos(e, &s->qos[i]);
        rwf_enc_array_end(e);
    }
    if (s->flags & RWF_SVC_HAS_SUPPORT_QOS_RANGE)
        rwf_enc_el_uint(e, NAME(DIR_SUPPORTS_QOS_RANGE), s->supports_qos_range);
    if (s->flags & RWF_SVC_HAS_ITEM_LIST)
        rwf_rdm_put_ascii(e, NAME(DIR_ITEM_LIST), s->item_list);
    if (s->flags & RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS)
        rwf_enc_el_uint(e, NAME(DIR_SUPPORTS_OUT_OF_BAND_SNAPSHOTS), s->supports_oob_snapshots);
    if (s->flags & RWF_SVC_HAS_ACCEPTING_CONS_STATUS)
        rwf_enc_el_uint(e, NAME(DIR_ACCEPTING_CONSUMER_STATUS), s->accepting_consumer_status);
    rwf_enc_el_end(e);
}

/* The State filter entry of service s. */
static void enc_state(rwf_enc *e, const rwf_service *s)
{
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_STATE_ID, 0, NULL);
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, NAME(DIR_SERVICE_STATE), s->service_state);
    if (s->flags & RWF_SVC_HAS_ACCEPTING_REQS)
        rwf_enc_el_uint(e, NAME(DIR_ACCEPTING_REQUESTS), s->accepting_requests);
    if (s->flags & RWF_SVC_HAS_STATUS) {
        rwf_enc_el_entry(e, NAME(DIR_STATUS), RWF_DT_STATE);
        rwf_enc_state(e, &s->status);
    }
    rwf_enc_el_end(e);
}

/* The Load filter entry of service s. */
static void enc_load(rwf_enc *e, const rwf_service *s)
{
    rwf_enc_filter_entry(e, RWF_FTEA_SET_ENTRY, RWF_DIR_LOAD_ID, 0, NULL);
    rwf_enc_el_begin_std(e);
    if (s->flags & RWF_SVC_HAS_OPEN_LIMIT)
        rwf_enc_el_uint(e, NAME(DIR_OPEN_LIMIT), s->open_limit);
    if (s->flags & RWF_SVC_HAS_OPEN_WINDOW)
        rwf_enc_el_uint(e, NAME(DIR_OPEN_WINDOW), s->open_window);
    if (s->flags & RWF_SVC_HAS_LOAD_FACTOR)
        rwf_enc_el_uint(e, NAME(DIR_LOAD_FACTOR), s->load_factor);
    rwf_enc_el_end(e);
}

/* The map entry of service s: a FilterList of the entries its flags name (none for DELETE). */
static void enc_service(rwf_enc *e, const rwf_service *s)
{
    rwf_filter_hdr fh = {.ctype = RWF_DT_ELEMENT_LIST};
    rwf_value key = {.type = RWF_DT_UINT, .u = s->id};
    int action = s->action ? s->action : RWF_MPEA_ADD_ENTRY;

    rwf_enc_map_entry(e, action, NULL, &key);
    if (action == RWF_MPEA_DELETE_ENTRY)
        return;
    rwf_enc_filter_begin(e, &fh);
    if (s->flags & RWF_SVC_HAS_INFO)
        enc_info(e, s);
    if (s->flags & RWF_SVC_HAS_STATE)
        enc_state(e, s);
    if (s->flags & RWF_SVC_HAS_LOAD)
        enc_load(e, s);
    rwf_enc_filter_end(e);
}

int rwf_rdm_directory_refresh(rwf_enc *e, const rwf_directory *d)
{
    rwf_msg m;
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_FILTER_LIST};
    rwf_msg_init(&m, RWF_MC_REFRESH, RWF_DMT_SOURCE, d->stream_id, RWF_DT_MAP);
    m.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE |
              (d->solicited ? RWF_RFMF_SOLICITED : 0) | (d->clear_cache ? RWF_RFMF_CLEAR_CACHE : 0);
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

/* ---- Decode ------------------------------------------------------------------------------ */

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
        else if (want == RWF_DT_ASCII_STRING && rwf_is_buf_type(v.type))
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
        if (rwf_buf_eq_cstr(el.name, DIR_NAME)) {
            r = rwf_rdm_get_string(&el, &s->name);
            s->flags |= RWF_SVC_HAS_NAME;
        } else if (rwf_buf_eq_cstr(el.name, DIR_VENDOR)) {
            r = rwf_rdm_get_string(&el, &s->vendor);
            s->flags |= RWF_SVC_HAS_VENDOR;
        } else if (rwf_buf_eq_cstr(el.name, DIR_IS_SOURCE)) {
            r = rwf_rdm_get_uint(&el, &s->is_source);
            s->flags |= RWF_SVC_HAS_IS_SOURCE;
        } else if (rwf_buf_eq_cstr(el.name, DIR_CAPABILITIES)) {
            r = el_array(&el, RWF_DT_UINT, s->capabilities, &s->capability_count);
        } else if (rwf_buf_eq_cstr(el.name, DIR_DICTIONARIES_PROVIDED)) {
            r = el_array(&el, RWF_DT_ASCII_STRING, s->dicts_provided, &s->dicts_provided_count);
            s->flags |= RWF_SVC_HAS_DICTS_PROVIDED;
        } else if (rwf_buf_eq_cstr(el.name, DIR_DICTIONARIES_USED)) {
            r = el_array(&el, RWF_DT_ASCII_STRING, s->dicts_used, &s->dicts_used_count);
            s->flags |= RWF_SVC_HAS_DICTS_USED;
        } else if (rwf_buf_eq_cstr(el.name, DIR_QOS)) {
            r = el_array(&el, RWF_DT_QOS, s->qos, &s->qos_count);
            s->flags |= RWF_SVC_HAS_QOS;
        } else if (rwf_buf_eq_cstr(el.name, DIR_SUPPORTS_QOS_RANGE)) {
            r = rwf_rdm_get_uint(&el, &s->supports_qos_range);
            s->flags |= RWF_SVC_HAS_SUPPORT_QOS_RANGE;
        } else if (rwf_buf_eq_cstr(el.name, DIR_ITEM_LIST)) {
            r = rwf_rdm_get_string(&el, &s->item_list);
            s->flags |= RWF_SVC_HAS_ITEM_LIST;
        } else if (rwf_buf_eq_cstr(el.name, DIR_SUPPORTS_OUT_OF_BAND_SNAPSHOTS)) {
            r = rwf_rdm_get_uint(&el, &s->supports_oob_snapshots);
            s->flags |= RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS;
        } else if (rwf_buf_eq_cstr(el.name, DIR_ACCEPTING_CONSUMER_STATUS)) {
            r = rwf_rdm_get_uint(&el, &s->accepting_consumer_status);
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
        if (rwf_buf_eq_cstr(el.name, DIR_SERVICE_STATE)) {
            r = rwf_rdm_get_uint(&el, &s->service_state);
        } else if (rwf_buf_eq_cstr(el.name, DIR_ACCEPTING_REQUESTS)) {
            r = rwf_rdm_get_uint(&el, &s->accepting_requests);
            s->flags |= RWF_SVC_HAS_ACCEPTING_REQS;
        } else if (rwf_buf_eq_cstr(el.name, DIR_STATUS) && el.type == RWF_DT_STATE) {
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
        if (rwf_buf_eq_cstr(el.name, DIR_OPEN_LIMIT)) {
            r = rwf_rdm_get_uint(&el, &s->open_limit);
            s->flags |= RWF_SVC_HAS_OPEN_LIMIT;
        } else if (rwf_buf_eq_cstr(el.name, DIR_OPEN_WINDOW)) {
            r = rwf_rdm_get_uint(&el, &s->open_window);
            s->flags |= RWF_SVC_HAS_OPEN_WINDOW;
        } else if (rwf_buf_eq_cstr(el.name, DIR_LOAD_FACTOR)) {
            r = rwf_rdm_get_uint(&el, &s->load_factor);
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
