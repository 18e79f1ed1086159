/*
 * pv_msg: the messages a provider sends for its items, written in one pass straight into the
 * output buffer by the codec's encoders.
 *
 * The content comes from pre-encoded templates (MsgData.xml, see pv_tmpl): a MarketPrice
 * template is a run of field entries, a MarketByOrder template a run of map entries (and the
 * field-list set definitions they use). An update or generic message is the codec's short
 * header (rwf_msg_put_short) and a payload of the template's entries with the stamp fields
 * added (rwf_pre_put, codec/rwf_pre.h): no encoder state, no dictionary, no allocation. The
 * bytes are those of the ETA provider (docs/wire.md#items, #examples): header members and
 * lengths in its forms, the 2-byte length form for map set definitions and summary data.
 *
 * Stamps (UINT fields, value 0 = not carried):
 *   update:  TIM_TRK_1 (3902) = the send time, as the ETA provider stamps it; then our
 *            TIM_TRK_3 (3904) = the scheduled send time (ETA consumers ignore TIM_TRK_3 in
 *            updates, so the message stays compatible).
 *   generic: TIM_TRK_3 = the send time (what ETA tools read in generic messages); then our
 *            TIM_TRK_1 = the scheduled time (ETA tools ignore TIM_TRK_1 in generic messages).
 * In MarketByOrder messages the stamps travel in the map's summary data.
 * Refreshes carry TIM_TRK_1, TIM_TRK_2 and TIM_TRK_3 blank, so that caches learn the fields.
 *
 * Refreshes and status messages go through the RWF message encoder (rwf_msg_encode: they carry
 * a message key and are sent once per item request); a refresh's payload is written by
 * rwf_pre_put right after the header, in the output buffer.
 */
#ifndef RWFPERF_PV_MSG_H
#define RWFPERF_PV_MSG_H

#include "pv_items.h"

#include <stdbool.h>
#include <stddef.h>
#include "rwf_fids.h"

#include <stdint.h>

/* The content of one message: pre-encoded entries of the domain's container. */
typedef struct pv_tmpl {
    uint8_t domain;          /* 6 MarketPrice (field list), 7 MarketByOrder (map) */
    const uint8_t *entries;  /* field entries (MarketPrice) or map entries (MarketByOrder) */
    uint32_t entries_len;    /* bytes at entries */
    uint16_t count;          /* entries */
    const uint8_t *set_defs; /* MarketByOrder: encoded field-list set definitions, or NULL */
    uint32_t set_defs_len;   /* bytes at set_defs */
} pv_tmpl;

/* Largest update or generic message for template t, stamps included. */
uint32_t pv_msg_max_size(const pv_tmpl *t);

/* Largest refresh for template t and a key with name_len name bytes and attrib_len attribute
 * bytes. */
uint32_t pv_msg_refresh_max_size(const pv_tmpl *t, uint32_t name_len, uint32_t attrib_len);

/*
 * Writes an update of item stream sid with template t at `at` (pv_msg_max_size(t) bytes of
 * room) and returns its length. stamp: TIM_TRK_1, sched: TIM_TRK_3; 0 leaves a field out.
 */
uint32_t pv_msg_update(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched);

/* The same for a generic message: stamp in TIM_TRK_3, sched in TIM_TRK_1. */
uint32_t pv_msg_generic(uint8_t *at, int32_t sid, const pv_tmpl *t, uint64_t stamp, uint64_t sched);

/* Changes the stream id of an encoded message in place (the -preEnc path). */
void pv_msg_set_stream(uint8_t *msg, int32_t sid);

/*
 * Encodes the refresh of item `it` (key k) with template t into at[0..cap): flags HAS_MSG_KEY,
 * REFRESH_COMPLETE, HAS_QOS, CLEAR_CACHE, plus SOLICITED and PRIVATE_STREAM as the item says;
 * state OPEN (NON_STREAMING for a snapshot) / OK / NONE; QoS realtime tick-by-tick; the key
 * as given. at needs room for the header and rwf_pre_max_size of the payload with its three
 * blank stamps (pv_msg_refresh_max_size is enough). Returns the length, or 0 with err_msg() set
 * when it does not fit.
 */
uint32_t pv_msg_refresh(uint8_t *at, uint32_t cap, const pv_item *it, const pv_key *k,
                        const pv_tmpl *t);

/*
 * Encodes a Status message on sid (domain) carrying a state with its text (sent with its
 * trailing NUL, as the ETA provider sends reject texts when nul is true). Returns the length,
 * or 0 with err_msg() set when it does not fit.
 */
uint32_t pv_msg_status(uint8_t *at, uint32_t cap, int32_t sid, uint8_t domain, uint8_t stream_state,
                       uint8_t data_state, uint8_t code, const char *text, bool nul);

#endif
