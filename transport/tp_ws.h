/*
 * tp_ws: the WebSocket pieces of the transport (RFC 6455, RFC 7692) as pure functions over
 * byte buffers, wire-compatible with the ETA tools:
 *
 *   - sub-protocol lists (-pl): rewriting them as the wire carries them, and the server's
 *     choice among what a client offers (the server's order wins);
 *   - the HTTP upgrade: request and response builders, and parsers in the picohttpparser
 *     style (they never allocate; every string they return is a view into the caller's
 *     bytes);
 *   - frames: header encoder and decoder, masking, close payloads, UTF-8 validation, and a
 *     message reader that reassembles fragmented messages in place in the caller's buffer;
 *   - permessage-deflate: the offer/answer parameters and the per-message codec.
 *
 * The channel (tp_wsch.c) drives these; tests and fuzz targets call them directly.
 * Functions that fail set err_msg() to say what and where, and return -1 (or a code as
 * stated).
 */
#ifndef RWFPERF_TP_WS_H
#define RWFPERF_TP_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "tp.h"

/* ---- sub-protocols ------------------------------------------------------------------- */

/* tp_ws_proto (tp.h): TP_WS_PROTO_RWF is rssl.rwf (old alias tr_rwf), RIPC inside binary
 * frames; TP_WS_PROTO_JSON2 is rssl.json.v2, on the wire tr_json2, JSON arrays in text frames. */

/* Room for a rewritten list: every known name at most once. */
#define TP_WS_PL_MAX 64

/* The sub-protocol a name stands for (exact, case-sensitive): rssl.rwf, tr_rwf, rssl.json.v2,
 * tr_json2; TP_WS_PROTO_NONE for anything else. */
tp_ws_proto tp_ws_proto_of(const char *name, size_t len);

/* The name of a sub-protocol as this project prints it ("rssl.rwf", "rssl.json.v2", "none"). */
const char *tp_ws_proto_name(tp_ws_proto p);

/* Rewrites a -pl list as the ETA transport does: tokens split on comma, space and tab; each
 * must be a known name; duplicates dropped; rssl.rwf and tr_rwf become "rssl.rwf";
 * rssl.json.v2 and tr_json2 become "tr_json2" for a client and "tr_json2, rssl.json.v2" for a
 * server (which then accepts either spelling); joined with ", " in the order of first
 * appearance. NULL or an empty list gives "". Writes the NUL-terminated result to out (cap
 * >= TP_WS_PL_MAX) and returns 0, or -1 naming the unknown token. */
int tp_ws_pl_rewrite(const char *pl, bool server, char *out, size_t cap);

/* The server's choice: the first name of its rewritten list that appears as a token in the
 * client's Sec-WebSocket-Protocol value (offer, offer_len bytes). Stores that name (the
 * client's own spelling, a view into server_list) in *name and *name_len and returns its
 * sub-protocol, or TP_WS_PROTO_NONE when there is no common name. */
tp_ws_proto tp_ws_pl_select(const char *server_list, const char *offer, size_t offer_len,
                            const char **name, size_t *name_len);

/* ---- the HTTP upgrade ---------------------------------------------------------------- */

/* Largest upgrade request or response header block accepted (the ETA transport's limit is
 * its input buffer; 8 KiB holds any real one). */
#define TP_WS_HTTP_MAX 8192

typedef struct tp_ws_str {
    const char *p; /* NULL when absent */
    size_t len;
} tp_ws_str;

/* An upgrade request as parsed: views into the caller's bytes. */
typedef struct tp_ws_req {
    tp_ws_str method, target;
    int http_minor; /* HTTP/1.x */
    tp_ws_str host, key, version, protocol, extensions, upgrade, connection, user_agent, origin;
    uint8_t upgrade_ws;     /* Upgrade: has the token "websocket" */
    uint8_t connection_upg; /* Connection: has the token "upgrade" */
    uint8_t protocol_seen;  /* a Sec-WebSocket-Protocol header was present (maybe empty) */
    uint8_t duplicate_key;  /* more than one Sec-WebSocket-Key header */
} tp_ws_req;

/* An upgrade response as parsed: views into the caller's bytes. */
typedef struct tp_ws_resp {
    int status;
    tp_ws_str reason;
    tp_ws_str upgrade, connection, accept, protocol, extensions;
    uint8_t upgrade_ws;
    uint8_t connection_upg;
} tp_ws_resp;

/* Parses an HTTP/1.1 request header block at buf (len bytes). Returns the length of the
 * block (request line, header lines, the empty line) when it is complete; 0 when more bytes
 * are needed; -1 when it is malformed or longer than TP_WS_HTTP_MAX (err_msg() says what and
 * at which byte). Only parses: tp_ws_req_check() judges whether it is a valid upgrade. */
int tp_ws_req_parse(const char *buf, size_t len, tp_ws_req *out);

/* Judges a parsed request as a WebSocket upgrade: GET, target /WebSocket (or anything
 * starting with it, as in ETA), Upgrade: websocket or Connection: upgrade, version >= 13, a
 * key that is base64 of 16 bytes. Returns 0, or -1 saying what is wrong. */
int tp_ws_req_check(const tp_ws_req *r);

/* Parses an HTTP/1.1 response header block; same returns as tp_ws_req_parse(). */
int tp_ws_resp_parse(const char *buf, size_t len, tp_ws_resp *out);

/* Writes the client's upgrade request, verbatim as the ETA tools send it:
 *   GET /WebSocket HTTP/1.1, Upgrade, Connection: keep-alive, Upgrade, Host: <host>:<port>,
 *   Sec-WebSocket-Key, Sec-WebSocket-Version: 13, Sec-WebSocket-Protocol: <protocols>,
 *   [Sec-WebSocket-Extensions: permessage-deflate;server_no_context_takeover,]
 *   User-Agent: Mozilla/5.0, empty line.
 * protocols is the rewritten -pl list (may be ""). Returns the length, or -1 when cap is too
 * small. */
int tp_ws_req_build(char *out, size_t cap, const char *host, const char *port, const char *key,
                    const char *protocols, bool deflate);

/* Writes the server's 101 response: Upgrade, Connection, Sec-WebSocket-Protocol: <name>,
 * [Sec-WebSocket-Extensions: <ext>,] Sec-WebSocket-Accept. ext NULL = none. Returns the
 * length, or -1 when cap is too small. */
int tp_ws_resp_101(char *out, size_t cap, const char *name, size_t name_len, const char *accept,
                   const char *ext);

/* Writes the refusal the ETA server sends (400 Bad Request, Content-Type: text/html;
 * charset=UTF-8, Connection: close, empty line), followed by body when not NULL (one line
 * saying why; the connection closes after it). Returns the length, or -1 when cap is too
 * small. */
int tp_ws_resp_400(char *out, size_t cap, const char *body);

/* The 24-character Sec-WebSocket-Key (plus NUL) for 16 random bytes. */
void tp_ws_key_make(const uint8_t rnd[16], char out[25]);

/* The 28-character Sec-WebSocket-Accept (plus NUL) for a key: base64(SHA-1(key + GUID)). */
void tp_ws_accept(const char *key, size_t key_len, char out[29]);

/* SHA-1 of n bytes (for the accept key; exposed for its test). */
void tp_sha1(const void *data, size_t n, uint8_t out[20]);

/* Base64 (standard alphabet, padded) of n bytes into out (4 * ceil(n / 3) + 1 bytes).
 * Returns the length written (without the NUL). */
size_t tp_base64(const uint8_t *in, size_t n, char *out);

/* Case-insensitive: does the comma-separated list (len bytes) hold token tok? */
bool tp_ws_has_token(const char *list, size_t len, const char *tok);

/* ---- permessage-deflate negotiation -------------------------------------------------- */

typedef struct tp_ws_pmd_params {
    uint8_t on;                /* permessage-deflate offered / agreed */
    uint8_t server_no_ctx;     /* server_no_context_takeover */
    uint8_t client_no_ctx;     /* client_no_context_takeover */
    uint8_t server_max_window; /* server_max_window_bits, 0 = not given (15) */
    uint8_t client_max_window; /* client_max_window_bits, 0 = not given; 255 = given without
                                * a value (the client supports it) */
} tp_ws_pmd_params;

/* Parses a Sec-WebSocket-Extensions value: takes the first permessage-deflate entry (other
 * extensions are skipped). Returns 0 (p->on says whether one was found) or -1 when the value
 * is malformed (a parameter repeated, unknown, or with a bad value). */
int tp_ws_pmd_parse(const char *v, size_t len, tp_ws_pmd_params *p);

/* Writes the extension value for params p ("permessage-deflate;server_no_context_takeover"
 * ...). Returns the length, or -1 when cap is too small. */
int tp_ws_pmd_format(const tp_ws_pmd_params *p, char *out, size_t cap);

/* ---- frames -------------------------------------------------------------------------- */

enum {
    TP_WS_OP_CONT = 0x0,
    TP_WS_OP_TEXT = 0x1,
    TP_WS_OP_BINARY = 0x2,
    TP_WS_OP_CLOSE = 0x8,
    TP_WS_OP_PING = 0x9,
    TP_WS_OP_PONG = 0xA
};

/* Close status codes used here (RFC 6455 7.4.1). */
enum {
    TP_WS_CLOSE_NORMAL = 1000,
    TP_WS_CLOSE_GOING_AWAY = 1001,
    TP_WS_CLOSE_PROTOCOL = 1002,
    TP_WS_CLOSE_UNSUPPORTED = 1003,
    TP_WS_CLOSE_NO_STATUS = 1005,
    TP_WS_CLOSE_INVALID_DATA = 1007,
    TP_WS_CLOSE_POLICY = 1008,
    TP_WS_CLOSE_TOO_BIG = 1009,
    TP_WS_CLOSE_INTERNAL = 1011
};

/* Largest frame header: 2 + 8 (length) + 4 (mask key). */
#define TP_WS_HDR_MAX 14

/* A decoded frame header. */
typedef struct tp_ws_hdr {
    uint8_t fin;
    uint8_t rsv; /* the three RSV bits, RSV1 = 4 */
    uint8_t opcode;
    uint8_t masked;
    uint8_t key[4];
    uint8_t hdr_len; /* 2..14 */
    uint64_t len;    /* payload length */
} tp_ws_hdr;

/* Decodes a frame header from the n bytes at p. Returns its length (2..14) when complete, 0
 * when more bytes are needed, -1 when the 64-bit length has its top bit set. Nothing else is
 * judged here (see tp_ws_rx_next). */
int tp_ws_hdr_parse(const uint8_t *p, size_t n, tp_ws_hdr *h);

/* The header length for a payload of len bytes (shortest length form), masked or not. */
static inline uint32_t tp_ws_hdr_size(uint64_t len, bool masked)
{
    return (len < 126 ? 2u : len <= 0xFFFF ? 4u : 10u) + (masked ? 4u : 0u);
}

/* Writes a frame header (shortest length form; mask key when key is not NULL). rsv1 sets
 * RSV1 (permessage-deflate). Returns its length. */
uint32_t tp_ws_hdr_write(uint8_t *out, bool fin, bool rsv1, uint8_t opcode, uint64_t len,
                         const uint8_t *key);

/* XORs n bytes at p with the mask key, starting at key position phase (0..3) (masking and
 * unmasking are the same). */
void tp_ws_mask(uint8_t *p, size_t n, const uint8_t key[4], uint32_t phase);

/* Writes a close payload (code, then reason) to out (at most 125 bytes; the reason is cut to
 * fit). Returns its length. */
uint32_t tp_ws_close_payload(uint8_t *out, uint16_t code, const char *reason);

/* The RFC text for a close code as ETA prints it ("Normal Closure", "Going Away", ...), or
 * "Unknown". */
const char *tp_ws_close_text(uint16_t code);

/* Incremental UTF-8 validation: start with state 0 (TP_UTF8_OK), feed each fragment; the
 * text is valid when the final state is TP_UTF8_OK. Returns the new state, TP_UTF8_BAD at the
 * first invalid byte. */
#define TP_UTF8_OK 0u
#define TP_UTF8_BAD 12u
uint32_t tp_utf8_step(uint32_t state, const uint8_t *p, size_t n);

/* For tests, which check the same text with both forms of tp_utf8_step: on (non-zero) makes it
 * pass ASCII runs with SSE2 from then on, even on a CPU with AVX2; 0 with the widest form the
 * CPU has (AVX2, chosen once at start). Returns 1 when the AVX2 form is taken after the call,
 * else 0. Not for use while other threads check text. */
int tp_utf8_sse2(int on);

/* ---- the message reader -------------------------------------------------------------- */

/* Reads WebSocket messages from a byte buffer the caller fills, never allocating: payloads
 * are unmasked in place and the fragments of a message are moved together in place, so a
 * message is always a view into the caller's buffer. */
typedef struct tp_ws_rx {
    /* settings (set before the first call) */
    uint8_t server;   /* this end is the server: frames must be masked */
    uint8_t deflate;  /* permessage-deflate agreed: RSV1 allowed on a message's first frame */
    uint8_t utf8;     /* validate TEXT messages (not compressed ones: see tp_utf8_step) */
    uint64_t max_msg; /* largest message (all fragments) accepted; larger closes with 1009 */
    /* state */
    uint8_t in_msg;     /* a fragmented message is being collected */
    uint8_t msg_op;     /* its opcode */
    uint8_t msg_rsv1;   /* its first frame had RSV1 */
    uint8_t msg_frames; /* frames collected (saturates at 255) */
    uint32_t msg_start; /* offset of its collected payload in the buffer */
    uint32_t msg_len;   /* bytes collected */
    uint32_t utf8_state;
    uint16_t close_code; /* after a failure: the code to close with */
} tp_ws_rx;

enum { TP_WS_EV_MSG = 1, TP_WS_EV_PING, TP_WS_EV_PONG, TP_WS_EV_CLOSE };

/* One event: a complete data message or a control frame. */
typedef struct tp_ws_ev {
    int kind;            /* TP_WS_EV_* */
    uint8_t opcode;      /* TEXT or BINARY for a message */
    uint8_t compressed;  /* the message had RSV1 set: inflate it */
    uint8_t frames;      /* frames it came in (1 when not fragmented; saturates at 255) */
    uint16_t close_code; /* CLOSE: the code (1005 when the payload is empty) */
    uint8_t *data;       /* payload (unmasked; for CLOSE the reason) */
    uint32_t len;
} tp_ws_ev;

/* Initialises a reader for the given role. */
void tp_ws_rx_init(tp_ws_rx *rx, bool server, uint64_t max_msg);

/* Decodes buf[*rd, wr). When a complete message or control frame is there, fills *ev,
 * advances *rd past it and returns 1; a message's view stays valid until the caller moves or
 * overwrites those bytes, a control frame's until the next call. Returns 0 when more bytes are
 * needed (*rd may have advanced past fragments that were collected). Returns -1 on a protocol
 * violation, with rx->close_code the status to close with (1002 protocol error, 1007 invalid UTF-8,
 * 1009 too big) and err_msg() saying what. A frame announced larger than max_msg fails as soon as
 * its header is read, before its payload arrives. The caller must keep buf[tp_ws_rx_keep(rx, *rd),
 * wr) when it compacts its buffer, and report a move of k bytes towards the start with
 * tp_ws_rx_moved(rx, k). */
int tp_ws_rx_next(tp_ws_rx *rx, uint8_t *buf, uint32_t *rd, uint32_t wr, tp_ws_ev *ev);

/* The first offset the reader still needs (the start of a message being collected, else
 * rd). */
static inline uint32_t tp_ws_rx_keep(const tp_ws_rx *rx, uint32_t rd)
{
    return rx->in_msg ? rx->msg_start : rd;
}

/* The caller moved its buffer contents k bytes towards the start. */
static inline void tp_ws_rx_moved(tp_ws_rx *rx, uint32_t k)
{
    if (rx->in_msg)
        rx->msg_start -= k;
}

/* ---- permessage-deflate codec -------------------------------------------------------- */

typedef struct tp_ws_pmd {
    z_stream zin, zout;
    uint8_t in_ok, out_ok;
    uint8_t reset_in;  /* the peer compresses each message on its own */
    uint8_t reset_out; /* we compress each message on our own */
} tp_ws_pmd;

/* Sets up the codec for one end of an agreed extension (server = this end is the server):
 * level 0..9 for our deflater. Returns 0 or -1. Allocation happens here only. */
int tp_ws_pmd_init(tp_ws_pmd *z, const tp_ws_pmd_params *p, bool server, int level);

/* Frees the codec. */
void tp_ws_pmd_free(tp_ws_pmd *z);

/* The largest compressed size of n bytes (for sizing the output). */
uint32_t tp_ws_pmd_bound(uint32_t n);

/* Compresses one message (n bytes at src) into dst (cap >= tp_ws_pmd_bound(n)): raw
 * deflate, sync-flushed, the final 00 00 ff ff removed. Returns the compressed length, or -1
 * (the stream is broken). */
int tp_ws_pmd_compress(tp_ws_pmd *z, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap);

/* Inflates one message (n bytes at src) into dst (cap bytes). Returns the inflated length,
 * or -1: corrupt data, or more than cap bytes (err_msg() says which; the caller closes with
 * 1007 or 1009 accordingly: *too_big is set for the latter). */
int tp_ws_pmd_inflate(tp_ws_pmd *z, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap,
                      bool *too_big);

#endif
