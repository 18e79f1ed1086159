/*
 * payload: the tools' payload decoder (ConsPerf for every refresh, update and generic message,
 * ProvPerf for the generic messages it receives): every field decoded with the type its
 * dictionary gives it (docs/wire.md#latency-stamps, #items), and the latency stamps picked out.
 *
 * A MarketPrice payload is a FieldList; a MarketByOrder payload is a Map whose summary data
 * and entries are FieldLists (set-defined entries included, with the map's set definitions).
 * For each field the decoder looks the fid up in the dictionary (one byte load), decodes the
 * value as that type, looks ENUM values up in their table, and walks ARRAY items. A fid the
 * dictionary does not define, a value whose bytes do not fit its type, or a set-defined entry
 * whose type disagrees with the dictionary, is an error naming the field: the ETA tools end the
 * test on the same conditions.
 *
 * Along the way the three latency stamps are picked up: TIM_TRK_1..3 (fids 3902..3904) when
 * they are UINT fields that are not blank. Which stamp means what depends on the message class
 * and is decided by the caller (see payload_stamps).
 *
 * Nothing is allocated and no lock is taken: this is the loop ConsPerf runs for each of
 * millions of updates per second.
 */
#ifndef RWFPERF_PAYLOAD_H
#define RWFPERF_PAYLOAD_H

#include "rwf.h"
#include "rwf_fids.h"

#include <stdint.h>

/* The stamps of one message: t[0..2] are TIM_TRK_1..3, 0 when absent or blank. sum mixes
 * every decoded value, so that the work is observable (the caller keeps a running sum). */
typedef struct payload_stamps {
    uint64_t t[3];
    uint64_t sum;
} payload_stamps;

/*
 * Decodes the payload of m, an item message (refresh, update, generic, or the payload of any
 * class) whose domain is MarketPrice or MarketByOrder, against dict. st is cleared first and
 * receives the stamps. A payload of type NO_DATA is fine (nothing to decode). Returns 0, or
 * -1 with err_msg() saying which field or entry is wrong and why ("field 22: REAL value of 12
 * bytes is malformed", "field 9999 is not in the dictionary").
 */
int payload_decode(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st);

/* payload_decode entry by entry through the general decoders, without the fast path that
 * payload_decode takes for the common fields: the same results (sum, stamps, return, error
 * text) by another route, which the tests and the fuzz target compare it against. */
int payload_decode_reference(const rwf_dict *dict, const rwf_msg *m, payload_stamps *st);

/* Decodes one FieldList (the bytes of the container) against dict, with the set definitions
 * sets (may be NULL), adding its stamps and values to st (not cleared). Returns 0 or -1. */
int payload_decode_field_list(const rwf_dict *dict, rwf_buf data, const rwf_set_db *sets,
                              payload_stamps *st);

#endif
