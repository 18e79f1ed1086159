/*
 * tp_ripc: the RIPC handshake messages (ConnectReq, ConnectAck, ConnectNak, the v14 client
 * key message) and the server's negotiation rules, as pure functions over byte buffers.
 *
 * Encoders write one complete message into the caller's buffer and return its length.
 * Parsers never allocate: string members of the parsed structures are views into the
 * caller's bytes. Parsers check every length against the bytes they were given and fail with
 * err_set() on anything malformed; they never read past n bytes.
 */
#ifndef RWFPERF_TP_RIPC_H
#define RWFPERF_TP_RIPC_H

#include <stddef.h>
#include <stdint.h>

#include "tp.h"

/* Largest handshake message we build or accept. A ConnectReq is at most
 * 2+1+4+1+1+1+1+5 + 1+255 + 1+255 + 2+253 = 783 bytes. */
#define TP_RIPC_HS_MAX 1024

#define TP_RIPC_KEY_EXCHANGE 0x08 /* ConnectReq flag, and first byte of the key leg */

/* RIPC frame flags */
#define TP_F_EXT 0x01
#define TP_F_DATA 0x02
#define TP_F_COMP 0x04
#define TP_F_COMP_FRAG 0x08
#define TP_F_PACKED 0x10
#define TP_F_COMP_FORCE 0x80 /* ConnectAck only */
/* extended flags */
#define TP_X_CONNACK 0x01
#define TP_X_CONNNAK 0x02
#define TP_X_FRAG 0x04
#define TP_X_FRAG_HEADER 0x08

/* Session (ping) flags */
#define TP_PING_CLIENT_TO_SERVER 0x01
#define TP_PING_SERVER_TO_CLIENT 0x02

/* connVersion on the wire for generation g (10..14): 0x13 .. 0x17 */
static inline uint32_t tp_ripc_conn_version(int g)
{
    return 0x13u + (uint32_t)(g - 10);
}
/* ripcVersion in the ConnectAck for generation g: 5 .. 9 */
static inline uint32_t tp_ripc_ack_version(int g)
{
    return (uint32_t)(g - 5);
}

/* A text of a given length inside a message (not NUL-terminated). */
typedef struct tp_str {
    const char *p;
    uint8_t len;
} tp_str;

typedef struct tp_ripc_req {
    uint8_t gen;         /* 10..14 */
    uint8_t flags;       /* TP_RIPC_KEY_EXCHANGE or 0 */
    uint8_t comp_bitmap; /* 0 = no bitmap sent; else 0x01 zlib / 0x02 lz4 */
    uint8_t ping_timeout;
    uint8_t session_flags;
    uint8_t protocol_type; /* v12+; parsers report 0 for v10/v11 */
    uint8_t rwf_major;
    uint8_t rwf_minor;
    tp_str host;
    tp_str ip;
    tp_str component; /* v13+ */
} tp_ripc_req;

typedef struct tp_ripc_ack {
    uint8_t gen;       /* 10..14 */
    uint8_t flags;     /* TP_F_EXT, | TP_F_COMP_FORCE when forced */
    uint16_t max_user; /* maxUserMsgSize */
    uint8_t session_flags;
    uint8_t ping_timeout;
    uint8_t rwf_major;
    uint8_t rwf_minor;
    uint16_t compression; /* 0 none, 1 zlib, 2 lz4 */
    uint8_t zlib_level;   /* v11+ */
    uint8_t has_key;      /* v14 key block present */
    uint8_t key_type;     /* 1 = TR_SL_1 */
    uint64_t key_p, key_g, key_k;
    tp_str component; /* v13+ */
} tp_ripc_ack;

/* Encodes a ConnectReq into out (cap bytes). Strings longer than the wire allows are cut
 * (host and ip at 255, component at 253). Returns the length, or -1 if cap is too small. */
int tp_ripc_req_encode(const tp_ripc_req *r, uint8_t *out, size_t cap);

/* Parses a complete ConnectReq of n bytes (n = its length field). Returns 0, or -1 with
 * err_set(): unknown connection version, lengths that do not add up, truncation. */
int tp_ripc_req_parse(const uint8_t *p, size_t n, tp_ripc_req *r);

/* Encodes a ConnectAck (the C server's layout: component block length 2 + S). Returns the
 * length or -1. */
int tp_ripc_ack_encode(const tp_ripc_ack *a, uint8_t *out, size_t cap);

/* Parses a complete ConnectAck of n bytes; expect_key says whether the request carried the
 * key-exchange flag (only then is a v14 key block expected). Accepts a component block
 * length of 1 + S or 2 + S. Returns 0 or -1 with err_set(). */
int tp_ripc_ack_parse(const uint8_t *p, size_t n, int expect_key, tp_ripc_ack *a);

/* Encodes a ConnectNak carrying text (a NUL is appended on the wire, as ETA does). */
int tp_ripc_nak_encode(const char *text, uint8_t *out, size_t cap);

/* Tells whether the n bytes at p are a ConnectNak (flags 0x01, ext 0x02) and if so copies
 * its text (NUL-terminated, cut to cap - 1) into text. Returns 1 (NAK), 0 (not a NAK). */
int tp_ripc_is_nak(const uint8_t *p, size_t n, char *text, size_t cap);

/* Encodes the v14 client key message: key_len 8 with key, or 0 (4 bytes). */
int tp_ripc_key_encode(int with_key, uint64_t key, uint8_t *out, size_t cap);

/* Parses the client key message of n bytes (n = its length field). Returns 0 or -1. */
int tp_ripc_key_parse(const uint8_t *p, size_t n, uint64_t *key, int *has_key);

/* Server-side negotiation (docs/wire.md#ripc-handshake): fills *ack from the server's options and
 * the request. Sets *nak (protocol type mismatch). max_user is the server's max fragment size. */
void tp_ripc_negotiate(const tp_opts *srv, const tp_ripc_req *req, tp_ripc_ack *ack, int *nak);

/* (g ^ e) mod m over 64-bit numbers without overflow; 0 when m is 0. */
uint64_t tp_ripc_modpow(uint64_t g, uint64_t e, uint64_t m);

#endif
