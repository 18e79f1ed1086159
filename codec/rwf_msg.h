/*
 * rwf_msg: RWF messages — the header of all eight classes, decode and encode.
 *
 * One flat struct, rwf_msg, holds every header member of every class
 * (docs/wire.md#message-headers); which members are meaningful is said by msg_class and flags
 * (RWF_RQMF_*, RWF_RFMF_*, ...), as listed beside each member. Views point into the decoded buffer
 * (decode) or into the caller's memory (encode).
 *
 * Decoding never allocates: rwf_msg_decode fills the struct from a buffer (one RWF message:
 * a RIPC message payload or one packed element) and leaves payload as a view of the bytes
 * after the header; its type is container_type. It honours headerLength: members it does not
 * know are skipped, and the late optional members (postUserInfo, partNum, postUserRights,
 * reqMsgKey) are read only when bytes remain before the end of the header, like ETA.
 *
 * Encoding uses the rwf_enc iterator (so a message can hold in-place containers and can itself
 * be a payload, e.g. the Update inside a Post):
 *     rwf_enc_msg_begin(e, &m);  [attribute container]  [payload container]  rwf_enc_msg_end(e);
 * A key with RWF_MKF_HAS_ATTRIB, a container attrib_type and an empty attrib view has its
 * attribute encoded in place right after rwf_enc_msg_begin (2-byte length, like ETA's RDM
 * encoders); a non-empty attrib is copied (minimal length). A non-empty payload view is copied
 * by rwf_enc_msg_begin; otherwise, unless container_type is NO_DATA, the payload container is
 * encoded in place. The msgKey length is always the 2-byte form. Like ETA, the encoder
 * drops flags whose member is empty (rwf_msg_flags, the JSON writer's rule too): HAS_PERM_DATA
 * (perm_data empty), key HAS_NAME (name empty) and HAS_NAME_TYPE (no name), Update HAS_CONF_INFO
 * (both 0), Status HAS_GROUP_ID (empty), Ack HAS_NAK_CODE (0) and HAS_TEXT (empty); a Refresh
 * without group_id gets group 0 (02 00 00).
 */
#ifndef RWFPERF_RWF_MSG_H
#define RWFPERF_RWF_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_enc.h"
#include "rwf_prim.h"

typedef struct rwf_key {
    uint8_t flags;       /* RWF_MKF_* */
    uint8_t name_type;   /* with HAS_NAME_TYPE (only together with a name) */
    uint8_t attrib_type; /* with HAS_ATTRIB: container type of the attribute (full id) */
    uint16_t service_id; /* with HAS_SERVICE_ID */
    uint32_t filter;     /* with HAS_FILTER */
    int32_t identifier;  /* with HAS_IDENTIFIER */
    rwf_buf name;        /* with HAS_NAME, at most 255 bytes */
    rwf_buf attrib;      /* with HAS_ATTRIB: the encoded attribute (encode: empty = in place) */
} rwf_key;

typedef struct rwf_msg {
    uint8_t msg_class;      /* RWF_MC_* */
    uint8_t domain;         /* RWF_DMT_* */
    uint8_t container_type; /* payload type, full id (RWF_DT_NO_DATA, RWF_DT_FIELD_LIST...) */
    int32_t stream_id;
    uint16_t flags; /* the class's flags: RWF_RQMF_/RFMF_/STMF_/UPMF_/CLMF_/AKMF_/GNMF_/PSMF_ */

    rwf_key key;        /* Request: always; others: with their HAS_MSG_KEY flag */
    rwf_state state;    /* Refresh: always; Status: HAS_STATE */
    rwf_qos qos;        /* Request, Refresh: HAS_QOS */
    rwf_qos worst_qos;  /* Request: HAS_WORST_QOS */
    rwf_buf group_id;   /* Refresh: always (encode: empty = group 0); Status: HAS_GROUP_ID */
    rwf_buf perm_data;  /* Refresh, Status, Update, Generic, Post: HAS_PERM_DATA */
    rwf_buf ext_header; /* every class: HAS_EXTENDED_HEADER (at most 255 bytes) */
    rwf_buf text;       /* Ack: HAS_TEXT */
    rwf_key req_key;    /* Refresh, Status, Generic: HAS_REQ_MSG_KEY (attribute pre-encoded) */

    uint32_t seq_num;           /* Refresh, Update, Generic, Post, Ack: HAS_SEQ_NUM */
    uint32_t secondary_seq_num; /* Generic: HAS_SECONDARY_SEQ_NUM */
    uint32_t post_user_addr;    /* Post: always; Refresh, Status, Update: HAS_POST_USER_INFO */
    uint32_t post_user_id;      /* (IPv4 as a host-order integer, and the user/process id) */
    uint32_t post_id;           /* Post: HAS_POST_ID */
    uint32_t ack_id;            /* Ack: always */
    uint16_t part_num;          /* Refresh, Generic, Post: HAS_PART_NUM (<= 0x7FFF) */
    uint16_t post_user_rights;  /* Post: HAS_POST_USER_RIGHTS */
    uint16_t priority_count;    /* Request: HAS_PRIORITY */
    uint16_t conf_count;        /* Update: HAS_CONF_INFO */
    uint16_t conf_time;         /* Update: HAS_CONF_INFO */
    uint8_t priority_class;     /* Request: HAS_PRIORITY */
    uint8_t update_type;        /* Update: always */
    uint8_t nak_code;           /* Ack: HAS_NAK_CODE */

    rwf_buf payload; /* decode: the payload bytes; encode: pre-encoded payload, or empty */
    rwf_buf encoded; /* decode: the whole message */
} rwf_msg;

/* Begins a message header by hand: every member of m zero, then the class (RWF_MC_*), the
 * domain (RWF_DMT_*), the stream id and the payload's container type (full id: RWF_DT_NO_DATA,
 * RWF_DT_FIELD_LIST...; RWF_DT_UNKNOWN when it is decided later) as given. The caller then
 * sets the flags and the members they announce. Allocates nothing. */
static inline void rwf_msg_init(rwf_msg *m, uint8_t msg_class, uint8_t domain, int32_t stream_id,
                                uint8_t container_type)
{
    *m = (rwf_msg){.msg_class = msg_class,
                   .domain = domain,
                   .container_type = container_type,
                   .stream_id = stream_id};
}

/* Decodes one message from data into m (every member not present is zero). Returns RWF_OK,
 * or RWF_E_MALFORMED / RWF_E_UNSUPPORTED (unknown message class) with err text naming the
 * class, the member and the offset. */
int rwf_msg_decode(rwf_msg *m, rwf_buf data);

/* Encodes the header of m where the iterator allows a message (at the top level, as a MSG
 * payload, as MSG entry data). m must stay alive until the key attribute, when encoded in
 * place, is complete. */
int rwf_enc_msg_begin(rwf_enc *e, const rwf_msg *m);

/* Ends the message begun last (an in-place payload left empty is an empty payload). */
int rwf_enc_msg_end(rwf_enc *e);

/* Encodes m in one step: header, pre-encoded attribute and payload views copied. */
int rwf_enc_msg(rwf_enc *e, const rwf_msg *m);

/* Encodes m in one step into buf[0..cap); *len receives the length. Returns RWF_OK or the
 * encoder's error. */
int rwf_msg_encode(const rwf_msg *m, void *buf, size_t cap, size_t *len);

/* The class flags of m as the encoder writes them: m->flags less the flag of each optional
 * member that is empty (HAS_PERM_DATA without perm_data; Status HAS_GROUP_ID without
 * group_id; Update HAS_CONF_INFO with conf_count and conf_time both 0; Ack HAS_NAK_CODE with
 * nak_code 0 and HAS_TEXT without text). The one rule for every form of a message: the RWF
 * encoder writes these flags and the JSON writer (rjs) writes the members they announce, so
 * both forms read back as the same message. Pure; allocates nothing. */
uint16_t rwf_msg_flags(const rwf_msg *m);

/* 1 when the class of m carries a msgKey (Request always; others by their flag). */
int rwf_msg_has_key(const rwf_msg *m);

/* Where the fixed members of an encoded message sit: the u16 header length, then the class
 * (low 5 bits of its byte), the domain, the stream id (i32), the flags (u15rb), the container
 * type. */
enum {
    RWF_MSG_AT_CLASS = 2,
    RWF_MSG_AT_DOMAIN = 3,
    RWF_MSG_AT_STREAM = 4,
    RWF_MSG_AT_FLAGS = 8,
};
#define RWF_MSG_CLASS_MASK 0x1F

/* Writes the members every header starts with, after its 2-byte header length: the class, the
 * domain, the stream id, the flags (u15rb, flags <= 0x7FFF) and the payload's container type
 * (full id, >= RWF_DT_CONTAINER_MIN). p has 10 bytes of room; returns the end. The encoder
 * (rwf_enc_msg_begin) and rwf_msg_put_short write these bytes through this one function. */
static inline uint8_t *rwf_msg_put_fixed(uint8_t *p, uint8_t msg_class, uint8_t domain,
                                         int32_t stream_id, uint16_t flags, uint8_t container_type)
{
    p[0] = msg_class;
    p[1] = domain;
    p = rwf_wr_u15rb(rwf_wr32(p + 2, (uint32_t)stream_id), flags);
    *p = (uint8_t)(container_type - RWF_DT_CONTAINER_MIN);
    return p + 1;
}

/* Largest header rwf_msg_put_short writes. */
#define RWF_MSG_SHORT_MAX 11

/*
 * Writes, in one pass and with no checks, the header of a message of class msg_class (Update,
 * Generic, Status or Close) with flags 0 and so none of its optional members; an Update's
 * update type is 0 (unspecified). p has RWF_MSG_SHORT_MAX bytes of room; returns the end, where
 * the payload (of container_type) follows. The bytes are those rwf_enc_msg_begin writes for the
 * same message (rwf_msg_init, nothing else set); the provider's updates and generic messages
 * are written with it.
 */
static inline uint8_t *rwf_msg_put_short(uint8_t *p, uint8_t msg_class, uint8_t domain,
                                         int32_t stream_id, uint8_t container_type)
{
    uint8_t *q = rwf_msg_put_fixed(p + 2, msg_class, domain, stream_id, 0, container_type);
    if (msg_class == RWF_MC_UPDATE)
        *q++ = 0; /* update type */
    rwf_wr16(p, (uint16_t)(q - (p + 2)));
    return q;
}

/* Largest pair of headers rwf_msg_put_post_update writes. */
#define RWF_MSG_POST_UPDATE_MAX 40

/*
 * Writes, in one pass and with no checks, the headers of a Post on stream_id that carries an
 * Update, the form a consumer posts in (docs/wire.md#posts): the Post with flags post_flags,
 * none of which may announce an optional member (RWF_PSMF_POST_COMPLETE, RWF_PSMF_ACK), and its
 * post user info (user_addr, user_id); then the Update on stream 0 with its post user info alone
 * (RWF_UPMF_HAS_POST_USER_INFO) and update type 0. p has RWF_MSG_POST_UPDATE_MAX bytes of room;
 * returns the end, where the Update's payload (of container_type) follows. The bytes are those
 * rwf_enc_msg_begin writes for the two messages (rwf_msg_init, then those members set).
 */
static inline uint8_t *rwf_msg_put_post_update(uint8_t *p, uint8_t domain, int32_t stream_id,
                                               uint16_t post_flags, uint32_t user_addr,
                                               uint32_t user_id, uint8_t container_type)
{
    uint8_t *q = rwf_msg_put_fixed(p + 2, RWF_MC_POST, domain, stream_id, post_flags, RWF_DT_MSG);
    q = rwf_wr32(rwf_wr32(q, user_addr), user_id);
    rwf_wr16(p, (uint16_t)(q - (p + 2)));
    p = q;
    q = rwf_msg_put_fixed(p + 2, RWF_MC_UPDATE, domain, 0, RWF_UPMF_HAS_POST_USER_INFO,
                          container_type);
    *q++ = 0; /* update type */
    q = rwf_wr32(rwf_wr32(q, user_addr), user_id);
    rwf_wr16(p, (uint16_t)(q - (p + 2)));
    return q;
}

/* Changes the stream id of an encoded message in place (msg: at least 8 bytes). */
static inline void rwf_msg_set_stream(uint8_t *msg, int32_t stream_id)
{
    rwf_wr32(msg + RWF_MSG_AT_STREAM, (uint32_t)stream_id);
}

/* The class of an encoded message (byte 2), -1 when data is shorter than 3 bytes: a peek that
 * decodes nothing. */
static inline int rwf_msg_peek_class(rwf_buf data)
{
    return data.len > RWF_MSG_AT_CLASS
               ? ((const uint8_t *)data.data)[RWF_MSG_AT_CLASS] & RWF_MSG_CLASS_MASK
               : -1;
}

/* The stream id of an encoded message (bytes 4..7), 0 when data is shorter than 8 bytes. */
static inline int32_t rwf_msg_peek_stream(rwf_buf data)
{
    return data.len >= RWF_MSG_AT_STREAM + 4
               ? (int32_t)rwf_rd32((const uint8_t *)data.data + RWF_MSG_AT_STREAM)
               : 0;
}

#endif
