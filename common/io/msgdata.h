/*
 * msgdata: the message data file (MsgData.xml, docs/tools.md#message-data) turned into pre-encoded
 * bodies.
 *
 *     <msgFormat>
 *       <marketPriceMsgList>
 *         <refreshMsg><dataBody><fieldList> <fieldEntry fieldId= dataType= data=/>…
 *         <updateMsg>…  <postMsg><updateMsg>…</updateMsg></postMsg>  <genMsg>…
 *       </marketPriceMsgList>
 *       <marketByOrderMsgList>
 *         <refreshMsg><dataBody><map> <fieldSetDefs>… <mapEntry action= key=><fieldList>…
 *       </marketByOrderMsgList>
 *     </msgFormat>
 *
 * Loading validates every entry against the dictionary the tool loaded, the way the ETA tools
 * do (the field must exist and its dataType must be the dictionary's type; TIM_TRK_1..3 are
 * reserved for the tools' latency stamps; exactly one refreshMsg per list; a postMsg wraps an
 * updateMsg; every value must parse), and stops at the first problem with an error
 * "<file>:<line>: <what>".
 *
 * Each message becomes a template: the encoded entries of its container, ready to copy.
 *   MarketPrice:   the field entries of the FieldList (flags 0x08), without the list header;
 *   MarketByOrder: the map entries (key = ORDER_ID, RMTES; each a FieldList, in set data when
 *                  the entry's fieldList has a setId and the map has set definitions), plus
 *                  the map's field-list set definitions.
 * A tool's hot path is then "write the message header, begin the container, copy the
 * entries, append the latency field(s), end" — msgdata_encode() does exactly that through an
 * rwf_enc, and tools that write headers by hand copy `entries` themselves.
 *
 * The bodies are those the ETA tools encode from the same file (docs/wire.md#items, #examples).
 * Where their parser and ours differ, ours is the stricter or the correct one (see msgdata.c).
 *
 * A loaded msgdata is read-only: threads may share it without locks.
 */
#ifndef RWFPERF_MSGDATA_H
#define RWFPERF_MSGDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rwf_dict.h"
#include "rwf_fids.h"
#include "rwf_enc.h"
#include "rwf_set.h"

/* The latency fields the tools add (RWF_FID_TIM_TRK_*, rwf_fids.h) may not be in the file. */

/* What a template is used for. */
enum msgdata_kind {
    MSGDATA_REFRESH,
    MSGDATA_UPDATE,
    MSGDATA_POST,
    MSGDATA_GENERIC,
};

/* One message of the file. */
typedef struct msgdata_msg {
    uint8_t domain;          /* RWF_DMT_MARKET_PRICE (6) or RWF_DMT_MARKET_BY_ORDER (7) */
    uint16_t count;          /* entries in `entries` */
    const uint8_t *entries;  /* field entries (MarketPrice) or map entries (MarketByOrder) */
    uint32_t entries_len;    /* bytes at entries */
    const rwf_set_db *sets;  /* MarketByOrder: the map's set definitions, NULL when none */
    const uint8_t *set_defs; /* their encoded form (u8 flags, u8 count, definitions) or NULL */
    uint32_t set_defs_len;   /* bytes at set_defs */
    uint32_t estimated_len;  /* payload size estimate as the ETA tools compute it (for the
                                "estimated length" they print; see msgdata_estimated_len) */
    int line;                /* where the message starts in the file */
} msgdata_msg;

/* The messages of one domain (marketPriceMsgList / marketByOrderMsgList). */
typedef struct msgdata_list {
    bool present; /* the file has this list */
    uint8_t domain;
    msgdata_msg refresh;
    msgdata_msg *updates;
    msgdata_msg *posts;
    msgdata_msg *generics;
    uint32_t update_count, post_count, generic_count;
    /* What the ETA tools print for this list in "Data loaded from XML. Market Price Memory:
     * %u bytes, Market By Order Memory: %u bytes": the unused part of the block their parser
     * allocated (6000 bytes, doubled until the file fits). 0 when the list is absent. */
    uint32_t eta_memory;
} msgdata_list;

typedef struct msgdata {
    msgdata_list mp;  /* MarketPrice */
    msgdata_list mbo; /* MarketByOrder */
    void *mem;        /* everything the templates point into */
} msgdata;

/* Loads the file at path, validated against dict (which must hold every field the file uses;
 * it is not kept). Returns 0 and fills md (free it with msgdata_free), or -1 with err_msg()
 * saying what and where ("MsgData.xml:23: field 3902 is reserved ...") and md empty. */
int msgdata_load(msgdata *md, const char *path, const rwf_dict *dict);

/* The same from len bytes at buf; name stands for the file in error text. */
int msgdata_parse(msgdata *md, const char *name, const char *buf, size_t len, const rwf_dict *dict);

/* Frees what a load gave md and empties it. Fine on an empty md. */
void msgdata_free(msgdata *md);

/* The list of a domain (RWF_DMT_MARKET_PRICE / RWF_DMT_MARKET_BY_ORDER), NULL for any other
 * domain or when the file has no such list. */
const msgdata_list *msgdata_list_of(const msgdata *md, int domain);

/* The latency field of a kind: TIM_TRK_1 (update), TIM_TRK_2 (post), TIM_TRK_3 (generic);
 * 0 for a refresh. */
int16_t msgdata_latency_fid(int kind);

/*
 * Writes the payload of a message of this kind from template m where e expects a container
 * (typically right after rwf_enc_msg_begin of a message whose container type is FIELD_LIST
 * for MarketPrice or MAP for MarketByOrder):
 *   MarketPrice:   FieldList 0x08 = the template's fields, then for a refresh blank
 *                  TIM_TRK_1, TIM_TRK_2, TIM_TRK_3, else the latency field (UINT *stamp) when
 *                  stamp is not NULL;
 *   MarketByOrder: Map (key field ORDER_ID, RMTES keys, FieldList entries) with the set
 *                  definitions (2-byte length, written in place), summary data — a FieldList
 *                  with the three blank TIM_TRK fields in a refresh, the latency field when
 *                  stamped, none otherwise — and the template's entries.
 * Returns RWF_OK or the encoder's (sticky) error. Allocates nothing.
 */
int msgdata_encode(rwf_enc *e, const msgdata_msg *m, int kind, const uint64_t *stamp);

/* The message size estimate the ETA tools print as "estimated length": 64 + the key's name
 * and attribute bytes (refreshes only) + m->estimated_len, doubled for generic messages (as
 * theirs are). */
uint32_t msgdata_estimated_len(const msgdata_msg *m, int kind, uint32_t key_len);

#endif
