#include "pv_msg.h"

#include "err.h"
#include "rwf.h"

#include <string.h>

/* A UINT field entry: fid, length, value (minimal bytes; 8 bytes of room for the store). */
#define STAMP_MAX (2 + RWF_PUT_MAX_UINT)

/* Fixed part of an update header after headerLength: class, domain, stream id, flags,
 * container type, update type. A generic message has no update type. */
#define UPDATE_HDR 11
#define GENERIC_HDR 10

/* Map header before the set definitions: flags, key type, container type, key field id. */
#define MAP_HDR 5

uint32_t pv_msg_max_size(const pv_tmpl *t)
{
    uint32_t n = UPDATE_HDR + 2 * STAMP_MAX + t->entries_len;
    if (t->domain == RWF_DMT_MARKET_BY_ORDER)
        n += MAP_HDR + 2 + t->set_defs_len + 2 + 3 + 2; /* set defs, summary, count */
    else
        n += 3; /* field list header */
    return n;
}

uint32_t pv_msg_refresh_max_size(const pv_tmpl *t, uint32_t name_len, uint32_t attrib_len)
{
    /* Header: class .. flags (8), container type, state with no text (3), group id (3), QoS,
     * key length (2), key: flags, service id (2), name (1 + n), name type, filter (4),
     * identifier (4), attrib type + length (3) + bytes; then the body with three blanks. */
    return 2 + 8 + 1 + 3 + 3 + 1 + 2 + 1 + 2 + 1 + name_len + 1 + 4 + 4 + 3 + attrib_len +
           pv_msg_max_size(t) + 3 * 3;
}

static inline uint8_t *put_stamp(uint8_t *p, uint16_t fid, uint64_t v)
{
    return rwf_put_uint(rwf_wr16(p, fid), v);
}

/* Writes the payload (field list, or map with the stamps in its summary data) after a header
 * that ends at p. Returns the end. */
static inline uint8_t *put_body(uint8_t *p, const pv_tmpl *t, uint16_t fid1, uint64_t v1,
                                uint16_t fid2, uint64_t v2)
{
    uint16_t stamps = (uint16_t)((v1 != 0) + (v2 != 0));
    if (t->domain != RWF_DMT_MARKET_BY_ORDER) {
        *p = RWF_FLF_HAS_STANDARD_DATA;
        p = rwf_wr16(p + 1, (uint16_t)(t->count + stamps));
        memcpy(p, t->entries, t->entries_len);
        p += t->entries_len;
        if (v1)
            p = put_stamp(p, fid1, v1);
        if (v2)
            p = put_stamp(p, fid2, v2);
        return p;
    }
    uint8_t flags = RWF_MPF_HAS_KEY_FIELD_ID;
    if (t->set_defs_len)
        flags |= RWF_MPF_HAS_SET_DEFS;
    if (stamps)
        flags |= RWF_MPF_HAS_SUMMARY_DATA;
    p[0] = flags;
    p[1] = RWF_DT_RMTES_STRING;
    p[2] = RWF_DT_FIELD_LIST - RWF_DT_CONTAINER_MIN;
    p = rwf_wr16(p + 3, RWF_FID_ORDER_ID);
    if (t->set_defs_len) {
        p = rwf_wr_u15rb2(p, (uint16_t)t->set_defs_len);
        memcpy(p, t->set_defs, t->set_defs_len);
        p += t->set_defs_len;
    }
    if (stamps) {
        uint8_t *len_at = p;
        uint8_t *s = p + 2;
        *s = RWF_FLF_HAS_STANDARD_DATA;
        s = rwf_wr16(s + 1, stamps);
        if (v1)
            s = put_stamp(s, fid1, v1);
        if (v2)
            s = put_stamp(s, fid2, v2);
        rwf_wr_u15rb2(len_at, (uint16_t)(s - (len_at + 2)));
        p = s;
    }
    p = rwf_wr16(p, t->count);
    memcpy(p, t->entries, t->entries_len);
    return p + t->entries_len;
}

static inline uint8_t ctype_of(const pv_tmpl *t)
{
    return (uint8_t)((t->domain == RWF_DMT_MARKET_BY_ORDER ? RWF_DT_MAP : RWF_DT_FIELD_LIST) -
                     RWF_DT_CONTAINER_MIN);
}

uint32_t pv_msg_update(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched)
{
    uint8_t *p = rwf_wr16(at, UPDATE_HDR - 2);
    p[0] = RWF_MC_UPDATE;
    p[1] = t->domain;
    p = rwf_wr32(p + 2, (uint32_t)sid);
    p[0] = 0; /* flags */
    p[1] = ctype_of(t);
    p[2] = 0; /* update type */
    p = put_body(p + 3, t, RWF_FID_TIM_TRK_1, stamp, RWF_FID_TIM_TRK_3, sched);
    return (uint32_t)(p - at);
}

uint32_t pv_msg_generic(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched)
{
    uint8_t *p = rwf_wr16(at, GENERIC_HDR - 2);
    p[0] = RWF_MC_GENERIC;
    p[1] = t->domain;
    p = rwf_wr32(p + 2, (uint32_t)sid);
    p[0] = 0; /* flags */
    p[1] = ctype_of(t);
    p = put_body(p + 2, t, RWF_FID_TIM_TRK_3, stamp, RWF_FID_TIM_TRK_1, sched);
    return (uint32_t)(p - at);
}

void pv_msg_set_stream(uint8_t *msg, int32_t sid)
{
    rwf_wr32(msg + 4, (uint32_t)sid);
}

/* The body of a refresh: the template with TIM_TRK_1..3 blank (in a MarketByOrder refresh
 * they make the summary data). */
static uint8_t *put_refresh_body(uint8_t *p, const pv_tmpl *t)
{
    static const uint8_t blanks[] = {0x0F, 0x3E, 0x00, 0x0F, 0x3F, 0x00, 0x0F, 0x40, 0x00};
    if (t->domain != RWF_DMT_MARKET_BY_ORDER) {
        *p = RWF_FLF_HAS_STANDARD_DATA;
        p = rwf_wr16(p + 1, (uint16_t)(t->count + 3));
        memcpy(p, t->entries, t->entries_len);
        p += t->entries_len;
        memcpy(p, blanks, sizeof(blanks));
        return p + sizeof(blanks);
    }
    p[0] = RWF_MPF_HAS_KEY_FIELD_ID | RWF_MPF_HAS_SUMMARY_DATA |
           (t->set_defs_len ? RWF_MPF_HAS_SET_DEFS : 0);
    p[1] = RWF_DT_RMTES_STRING;
    p[2] = RWF_DT_FIELD_LIST - RWF_DT_CONTAINER_MIN;
    p = rwf_wr16(p + 3, RWF_FID_ORDER_ID);
    if (t->set_defs_len) {
        p = rwf_wr_u15rb2(p, (uint16_t)t->set_defs_len);
        memcpy(p, t->set_defs, t->set_defs_len);
        p += t->set_defs_len;
    }
    p = rwf_wr_u15rb2(p, 3 + sizeof(blanks));
    *p = RWF_FLF_HAS_STANDARD_DATA;
    p = rwf_wr16(p + 1, 3);
    memcpy(p, blanks, sizeof(blanks));
    p = rwf_wr16(p + sizeof(blanks), t->count);
    memcpy(p, t->entries, t->entries_len);
    return p + t->entries_len;
}

uint32_t pv_msg_refresh(uint8_t *at, uint32_t cap, const pv_item *it, const pv_key *k,
                        const pv_tmpl *t)
{
    /* The body is built first, in this thread's scratch area, then copied after the header
     * by the message encoder. */
    static _Thread_local uint8_t body[65536];
    if (pv_msg_max_size(t) + 9 > sizeof(body)) {
        err_set("refresh body of %u bytes exceeds %zu", pv_msg_max_size(t), sizeof(body));
        return 0;
    }
    uint32_t body_len = (uint32_t)(put_refresh_body(body, t) - body);

    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REFRESH, it->domain, it->stream_id,
                 t->domain == RWF_DMT_MARKET_BY_ORDER ? RWF_DT_MAP : RWF_DT_FIELD_LIST);
    m.flags =
        RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_REFRESH_COMPLETE | RWF_RFMF_HAS_QOS | RWF_RFMF_CLEAR_CACHE;
    if (it->flags & PV_ITEM_SOLICITED)
        m.flags |= RWF_RFMF_SOLICITED;
    if (it->flags & PV_ITEM_PRIVATE)
        m.flags |= RWF_RFMF_PRIVATE_STREAM;
    m.state.stream_state =
        (it->flags & PV_ITEM_STREAMING) ? RWF_STREAM_OPEN : RWF_STREAM_NON_STREAMING;
    m.state.data_state = RWF_DATA_OK;
    m.state.code = RWF_SC_NONE;
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = k->flags;
    m.key.name_type = k->name_type;
    m.key.service_id = k->service_id;
    m.key.filter = k->filter;
    m.key.identifier = k->identifier;
    m.key.name = rwf_buf_make(k->name, k->name_len);
    m.key.attrib_type = k->attrib_type;
    m.key.attrib = rwf_buf_make(k->attrib, k->attrib_len);
    m.payload = rwf_buf_make(body, body_len);

    size_t len = 0;
    if (rwf_msg_encode(&m, at, cap, &len) != RWF_OK) {
        err_push("refresh of stream %d", it->stream_id);
        return 0;
    }
    return (uint32_t)len;
}

uint32_t pv_msg_status(uint8_t *at, uint32_t cap, int32_t sid, uint8_t domain, uint8_t stream_state,
                       uint8_t data_state, uint8_t code, const char *text, bool nul)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_STATUS, domain, sid, RWF_DT_NO_DATA);
    m.flags = RWF_STMF_HAS_STATE;
    m.state.stream_state = stream_state;
    m.state.data_state = data_state;
    m.state.code = code;
    m.state.text = rwf_buf_make(text, text ? strlen(text) + (nul ? 1 : 0) : 0);
    size_t len = 0;
    if (rwf_msg_encode(&m, at, cap, &len) != RWF_OK) {
        err_push("status on stream %d", sid);
        return 0;
    }
    return (uint32_t)len;
}
