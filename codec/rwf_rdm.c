/*
 * rwf_rdm: what the RDM messages share — reading UINT and string elements — and the item
 * status messages a provider sends (rejects, closes). Login, Source Directory and Dictionary
 * messages are in rwf_rdm_login.c, rwf_rdm_directory.c and rwf_rdm_dictionary.c.
 */
#include <stdio.h>

#include "err.h"
#include "rwf_enc_int.h"
#include "rwf_rdm_int.h"

/* ---- Elements ---------------------------------------------------------------------------- */

int rwf_rdm_get_uint(const rwf_element *el, uint64_t *v)
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

int rwf_rdm_get_string(const rwf_element *el, rwf_buf *v)
{
    if (!rwf_is_buf_type(el->type)) {
        err_set("element %.*s is a %s, expected a string", (int)el->name.len, el->name.data,
                rwf_type_name(el->type) ? rwf_type_name(el->type) : "?");
        return RWF_E_MALFORMED;
    }
    *v = el->data;
    return RWF_OK;
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
    rwf_msg_init(&m, RWF_MC_STATUS, domain, stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_HAS_STATE;
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
    rwf_msg_init(&m, RWF_MC_STATUS, domain, stream_id, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_HAS_STATE;
    m.state.stream_state = RWF_STREAM_CLOSED;
    m.state.data_state = RWF_DATA_SUSPECT;
    m.state.code = RWF_SC_NONE;
    m.state.text = NAME("Stream closed");
    return rwf_enc_msg(e, &m);
}
