/*
 * Warm standby: the generic messages a warm-standby consumer sends to tell each server its role
 * (docs/wire.md#warm-standby-messages), and their decoding by a provider.
 *
 *   login based    Generic LOGIN on the login stream, key NAME "ConsumerConnectionStatus",
 *                  Map of ASCII keys: ADD "WarmStandbyInfo" -> ElementList { WarmStandbyMode }
 *   service based  Generic SOURCE on the directory stream, key NAME "ConsumerStatus",
 *                  Map of UINT keys: ADD <service id> -> ElementList { WarmStandbyMode }
 * WarmStandbyMode is a UINT: 0 active, 1 standby.
 */
#include "rwf_rdm_int.h"

#include "err.h"

#include <string.h>

#define WSB_CONN_STATUS "ConsumerConnectionStatus"
#define WSB_CONSUMER_STATUS "ConsumerStatus"
#define WSB_INFO "WarmStandbyInfo"
#define WSB_MODE "WarmStandbyMode"

/* The message head shared by both: Generic, HAS_MSG_KEY, key NAME only, payload a Map. */
static void wsb_begin(rwf_enc *e, uint8_t domain, int32_t stream_id, const char *name)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_GENERIC, domain, stream_id, RWF_DT_MAP);
    m.flags = RWF_GNMF_HAS_MSG_KEY;
    m.key.flags = RWF_MKF_HAS_NAME;
    m.key.name = rwf_buf_cstr(name);
    rwf_enc_msg_begin(e, &m);
}

/* The entry's ElementList and the end of the map and the message. */
static int wsb_end(rwf_enc *e, uint64_t mode)
{
    rwf_enc_el_begin_std(e);
    rwf_enc_el_uint(e, NAME(WSB_MODE), mode);
    rwf_enc_el_end(e);
    rwf_enc_map_end(e);
    return rwf_enc_msg_end(e);
}

int rwf_rdm_wsb_conn_status(rwf_enc *e, int32_t stream_id, uint64_t mode)
{
    rwf_map_hdr mh = {.key_type = RWF_DT_ASCII_STRING, .ctype = RWF_DT_ELEMENT_LIST};
    wsb_begin(e, RWF_DMT_LOGIN, stream_id, WSB_CONN_STATUS);
    rwf_enc_map_begin(e, &mh);
    rwf_enc_map_entry_buf(e, RWF_MPEA_ADD_ENTRY, NAME(WSB_INFO));
    return wsb_end(e, mode);
}

int rwf_rdm_wsb_consumer_status(rwf_enc *e, int32_t stream_id, uint16_t service_id, uint64_t mode)
{
    rwf_map_hdr mh = {.key_type = RWF_DT_UINT, .ctype = RWF_DT_ELEMENT_LIST};
    wsb_begin(e, RWF_DMT_SOURCE, stream_id, WSB_CONSUMER_STATUS);
    rwf_enc_map_begin(e, &mh);
    rwf_enc_map_entry_uint(e, RWF_MPEA_ADD_ENTRY, service_id);
    return wsb_end(e, mode);
}

/* Reads WarmStandbyMode from an entry's ElementList (absent: *has false). */
static int entry_mode(rwf_buf data, bool *has, uint64_t *mode)
{
    rwf_el_dec d;
    rwf_element el;
    int r = rwf_el_dec_init(&d, data, NULL);
    if (r < 0)
        return r;
    while ((r = rwf_el_next(&d, &el)) == RWF_OK) {
        if (!rwf_buf_eq(el.name, NAME(WSB_MODE)))
            continue;
        if ((r = rwf_rdm_get_uint(&el, mode)) < 0)
            return r;
        *has = true;
        return RWF_OK;
    }
    return r < 0 ? r : RWF_OK;
}

int rwf_rdm_wsb_decode(const rwf_msg *m, rwf_wsb *out)
{
    memset(out, 0, sizeof(*out));
    if (m->msg_class != RWF_MC_GENERIC || !(m->flags & RWF_GNMF_HAS_MSG_KEY) ||
        !(m->key.flags & RWF_MKF_HAS_NAME))
        return RWF_OK;
    int kind = 0;
    if (m->domain == RWF_DMT_LOGIN && rwf_buf_eq(m->key.name, NAME(WSB_CONN_STATUS)))
        kind = RWF_WSB_CONN_STATUS;
    else if (m->domain == RWF_DMT_SOURCE && rwf_buf_eq(m->key.name, NAME(WSB_CONSUMER_STATUS)))
        kind = RWF_WSB_CONSUMER_STATUS;
    if (!kind)
        return RWF_OK;
    out->kind = kind;
    if (m->container_type != RWF_DT_MAP) {
        err_set("%.*s: payload is a %s, expected a Map", (int)m->key.name.len, m->key.name.data,
                rwf_type_name(m->container_type) ? rwf_type_name(m->container_type) : "?");
        return RWF_E_MALFORMED;
    }
    rwf_map_dec md;
    rwf_map_entry me;
    int r = rwf_map_dec_init(&md, m->payload);
    if (r < 0)
        return err_push("%.*s", (int)m->key.name.len, m->key.name.data), r;
    while ((r = rwf_map_next(&md, &me)) == RWF_OK) {
        if (me.action == RWF_MPEA_DELETE_ENTRY || md.hdr.ctype != RWF_DT_ELEMENT_LIST)
            continue;
        uint64_t id = 0;
        if (kind == RWF_WSB_CONSUMER_STATUS &&
            (rwf_get_uint(me.key, &id) != RWF_OK || id > 0xFFFF)) {
            err_set("ConsumerStatus: service id of %u bytes is not a 16-bit UINT",
                    (unsigned)me.key.len);
            return RWF_E_MALFORMED;
        }
        if ((r = entry_mode(me.data, &out->has_mode, &out->mode)) < 0)
            return err_push("%.*s", (int)m->key.name.len, m->key.name.data), r;
        if (out->has_mode) {
            out->service_id = (uint16_t)id;
            return RWF_OK;
        }
    }
    return r < 0 ? err_push("%.*s", (int)m->key.name.len, m->key.name.data), r : RWF_OK;
}
