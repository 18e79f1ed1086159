#include "pv_msg.h"

#include "err.h"
#include "rwf.h"

#include <string.h>

/* The codec's view of template t: its entries in a FieldList (MarketPrice) or in a Map of
 * FieldLists keyed by ORDER_ID (MarketByOrder, with its set definitions). */
static inline rwf_pre_body body_of(const pv_tmpl *t)
{
    bool map = t->domain == RWF_DMT_MARKET_BY_ORDER;
    return (rwf_pre_body){.ctype = map ? RWF_DT_MAP : RWF_DT_FIELD_LIST,
                          .key_type = RWF_DT_RMTES_STRING,
                          .count = t->count,
                          .key_fid = RWF_FID_ORDER_ID,
                          .entries = t->entries,
                          .entries_len = t->entries_len,
                          .set_defs = t->set_defs,
                          .set_defs_len = t->set_defs_len};
}

uint32_t pv_msg_max_size(const pv_tmpl *t)
{
    rwf_pre_body b = body_of(t);
    return RWF_MSG_SHORT_MAX + rwf_pre_max_size(&b, 2);
}

/* The three TIM_TRK fields of a refresh, blank. */
static const rwf_pre_field refresh_blanks[] = {
    {.fid = RWF_FID_TIM_TRK_1, .blank = 1},
    {.fid = RWF_FID_TIM_TRK_2, .blank = 1},
    {.fid = RWF_FID_TIM_TRK_3, .blank = 1},
};
#define N_BLANKS (sizeof(refresh_blanks) / sizeof(refresh_blanks[0]))

uint32_t pv_msg_refresh_max_size(const pv_tmpl *t, uint32_t name_len, uint32_t attrib_len)
{
    /* Header: class .. flags (8), container type, state with no text (3), group id (3), QoS,
     * key length (2), key: flags, service id (2), name (1 + n), name type, filter (4),
     * identifier (4), attrib type + length (3) + bytes; then the body with three blanks
     * (counted as an update's, with room to spare, plus 3 bytes each). */
    return 2 + 8 + 1 + 3 + 3 + 1 + 2 + 1 + 2 + 1 + name_len + 1 + 4 + 4 + 3 + attrib_len +
           pv_msg_max_size(t) + 3 * 3;
}

/* Writes a message of class cls (Update or Generic) on sid with template t at `at`: the short
 * header, then the payload with the stamps that are not 0 (fid1 = v1 first, then fid2 = v2).
 * Returns its length. Inlined into each caller, where cls is a constant. */
static inline __attribute__((always_inline)) uint32_t put_msg(uint8_t *at, uint8_t cls, int32_t sid,
                                                              const pv_tmpl *t, int16_t fid1,
                                                              uint64_t v1, int16_t fid2,
                                                              uint64_t v2)
{
    rwf_pre_body b = body_of(t);
    uint8_t *mark;
    uint8_t *p = rwf_msg_put_short(at, cls, t->domain, sid, b.ctype);
    p = rwf_pre_put_begin(p, &b, (v1 != 0) + (v2 != 0), &mark);
    if (v1)
        p = rwf_pre_put_uint(p, fid1, v1);
    if (v2)
        p = rwf_pre_put_uint(p, fid2, v2);
    return (uint32_t)(rwf_pre_put_end(p, &b, mark) - at);
}

uint32_t pv_msg_update(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched)
{
    return put_msg(at, RWF_MC_UPDATE, sid, t, RWF_FID_TIM_TRK_1, stamp, RWF_FID_TIM_TRK_3, sched);
}

uint32_t pv_msg_generic(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched)
{
    return put_msg(at, RWF_MC_GENERIC, sid, t, RWF_FID_TIM_TRK_3, stamp, RWF_FID_TIM_TRK_1, sched);
}

void pv_msg_set_stream(uint8_t *msg, int32_t sid)
{
    rwf_msg_set_stream(msg, sid);
}

uint32_t pv_msg_refresh(uint8_t *at, uint32_t cap, const pv_item *it, const pv_key *k,
                        const pv_tmpl *t)
{
    rwf_pre_body b = body_of(t);
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REFRESH, it->domain, it->stream_id, b.ctype);
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

    /* The header holds no payload length, so the encoder writes it alone (the payload left
     * empty) and the payload follows it in place: one pass, nothing copied. */
    size_t hlen = 0;
    if (rwf_msg_encode(&m, at, cap, &hlen) != RWF_OK) {
        err_push("refresh of stream %d", it->stream_id);
        return 0;
    }
    uint32_t room = rwf_pre_max_size(&b, N_BLANKS);
    if (cap - hlen < room) {
        err_set("refresh of stream %d: %u bytes of room after its %zu-byte header, its payload "
                "needs up to %u",
                it->stream_id, cap - (uint32_t)hlen, hlen, room);
        return 0;
    }
    return (uint32_t)(rwf_pre_put(at + hlen, &b, refresh_blanks, N_BLANKS) - at);
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
