/*
 * tp_ws_int: the WebSocket layer of a channel, shared by tp_ws_chan.c (the stream in the
 * stack: upgrade handshake, framing of the RIPC handshake, activation, server detection) and
 * tp_ws_io.c (the steady-state read and write paths).
 *
 * Design. During the handshake the WebSocket layer is a tp_stream on top of the stack (TLS or
 * the socket below it): its handshake op runs the HTTP upgrade, and for rssl.rwf its read
 * and write ops carry the RIPC handshake messages in binary frames (copies through a small
 * buffer are fine there). Once the channel is active the stream becomes a pass-through (its
 * ops read and write raw bytes of the stream below) and the channel frames in place:
 *
 *   reading   raw bytes land in the channel's input area; frames are parsed where they lie
 *             (tp_ws_rx_next), masked payloads unmasked in place. rssl.rwf: a frame's payload
 *             is RIPC bytes; when no RIPC bytes are pending the RIPC region simply starts at
 *             the payload (no copy), so the RIPC code (packing, fragments, compression) reads
 *             [in_rd, in_wr) as on TCP. rssl.json.v2: a message is returned as it lies.
 *   writing   the buffer handed out is a view into the output area just past room reserved
 *             for the frame header (and, rssl.rwf, the RIPC header; rssl.json.v2, the '['); on
 *             write the header is filled in and the payload masked (client) in place.
 *
 * So the steady state has no allocation, no lock and no copy beyond the socket's.
 */
#ifndef RWFPERF_TP_WS_INT_H
#define RWFPERF_TP_WS_INT_H

#include "tp_stream.h"
#include "tp_ws.h"

#include <string.h>

/* Handshake states of the stream. */
enum {
    WS_HS_SEND = 1, /* writing hs_out (request, response or refusal) */
    WS_HS_READ,     /* reading the request (server) or the response (client) */
    WS_HS_REFUSED,  /* server: the 400 is sent; fail with the reason kept in why */
    WS_HS_DONE
};

typedef struct tp_ws {
    tp_stream base; /* first: the stream in the channel's stack */
    uint8_t server;
    uint8_t proto;   /* tp_ws_proto agreed */
    uint8_t json;    /* proto == rssl.json.v2 */
    uint8_t hs;      /* WS_HS_* */
    uint8_t raw;     /* active: the stream passes raw bytes, the channel frames */
    uint8_t deflate; /* permessage-deflate agreed */
    uint8_t close_sent;
    uint8_t pong_due;    /* a WebSocket PONG waits for the tail of the output area */
    uint8_t jpong_due;   /* a JSON Pong waits likewise */
    uint8_t utf8;        /* check text messages */
    uint16_t close_code; /* close to send when the open direct buffer is done (0: none) */

    /* handshake: the HTTP block, then (rssl.rwf) the frames of the RIPC handshake */
    char key[25]; /* client: the key sent */
    char list[TP_WS_PL_MAX];
    tp_ws_pmd_params pmd_params;
    uint8_t buf[TP_WS_HTTP_MAX + 1024];
    uint32_t len;               /* bytes in buf */
    uint32_t rd;                /* frames parsed up to here */
    uint32_t out_len, out_sent; /* WS_HS_SEND: what is written from buf2 */
    uint8_t buf2[1536];         /* outgoing handshake bytes (HTTP block or one frame) */
    const uint8_t *pl;          /* payload of the frame being read (pre-activation) */
    uint32_t pl_left;
    uint32_t wr_pending;   /* pre-activation write: bytes of the caller framed in buf2 */
    char why[ERR_MSG_MAX]; /* server refusal: the reason */

    /* the channel's read side (active) */
    tp_ws_rx rx;
    uint32_t raw_rd, raw_wr; /* raw frames in ch->in: [raw_rd, raw_wr), after [in_rd, in_wr) */
    uint64_t max_msg;

    /* masking (client) */
    uint64_t prng;

    /* permessage-deflate (rssl.json.v2) */
    tp_ws_pmd pmd;
    uint8_t pmd_ok;
    uint8_t *dec; /* inflated message */
    uint32_t dec_cap;
    uint8_t *ztmp; /* compressed message before fragmentation */
    uint32_t ztmp_cap;
} tp_ws;

/* ---- tp_ws_chan.c -------------------------------------------------------------------- */

/* Client: pushes the WebSocket stream on ch's stack (its options say websocket). Checks and
 * rewrites the -pl list. 0 or TP_EFAIL. */
int tp_ws_client_push(tp_channel *ch);

/* Server channel before its first bytes are known: reads up to three bytes; "GET" pushes a
 * server WebSocket stream with them. Returns 1 when the channel speaks RIPC (the bytes read
 * are in ch->hs), 2 when a WebSocket stream was pushed (run the stack's handshakes), 0 when
 * more bytes are needed, TP_EFAIL. */
int tp_ws_detect(tp_channel *ch);

/* After the stack's handshakes: for rssl.json.v2 activates the channel (no RIPC). Returns 1
 * (activated), 0 (rssl.rwf or not WebSocket: the RIPC handshake follows), TP_EFAIL. */
int tp_ws_after_handshake(tp_channel *ch);

/* Called by tp_chan_activate for a rssl.rwf channel: takes over the bytes the stream holds
 * and switches to in-place framing. 0 or TP_EFAIL. */
int tp_ws_activated(tp_channel *ch);

/* A fresh mask key (client frames): xorshift64*, seeded from getrandom(), unpredictable
 * enough for masking, which only keeps intermediaries from reading the payload as their own
 * protocol. */
static inline void tp_ws_next_key(tp_ws *w, uint8_t key[4])
{
    uint64_t x = w->prng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    w->prng = x;
    uint32_t k = (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
    memcpy(key, &k, 4);
}

/* ---- tp_ws_io.c ---------------------------------------------------------------------- */

/* tp_read for an active WebSocket channel. */
int tp_ws_read(tp_channel *ch, tp_msg *msg);

/* TP_READ_MORE when a message, a RIPC frame or a WebSocket frame is complete in the input
 * area, else 0. */
int tp_ws_more(const tp_channel *ch);

/* Writes the header of a final frame (opcode) for the len payload bytes that lie room bytes
 * after start (the room reserved for the header), moving the payload down when the header
 * is shorter, and masks the payload (client). Returns the bytes from start to the frame's
 * end. */
static inline uint32_t tp_ws_wrap(tp_channel *ch, uint8_t *start, uint32_t room, uint32_t len,
                                  uint8_t opcode)
{
    bool masked = !ch->server;
    uint32_t h = tp_ws_hdr_size(len, masked);
    if (TP_UNLIKELY(h < room))
        memmove(start + h, start + room, len); /* reserved for more than was written */
    start[0] = (uint8_t)(0x80 | opcode);
    if (len < 126) {
        start[1] = (uint8_t)len;
    } else if (len <= 0xFFFF) {
        start[1] = 126;
        start[2] = (uint8_t)(len >> 8);
        start[3] = (uint8_t)len;
    } else {
        start[1] = 127;
        for (int i = 0; i < 8; i++)
            start[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
    }
    if (masked) {
        start[1] |= 0x80;
        uint8_t *key = start + h - 4;
        tp_ws_next_key(ch->ws, key);
        tp_ws_mask(start + h, len, key, 0);
    }
    return h + len;
}

/* The room to reserve before a RIPC frame of up to flen bytes. */
static inline uint32_t tp_ws_room(const tp_channel *ch, uint32_t flen)
{
    return tp_ws_hdr_size(flen, !ch->server);
}

/* rssl.json.v2 buffers: tp_pack (closes the current message with ","), the final payload
 * length (closes the array with "]"; 0 when nothing was written), a staged buffer's frames
 * (compressed, fragmented) into the output area (0, TP_ENOBUFS, TP_ECALLAGAIN, TP_EFAIL; on 0
 * the buffer is released), and tp_ping ([{"Type":"Ping"}]). */
int tp_ws_json_pack(tp_channel *ch, tp_buf *b);
int tp_ws_json_final(tp_buf *b, uint32_t *plen);
int tp_ws_json_emit(tp_channel *ch, tp_buf *b, uint32_t plen, unsigned wflags);
int tp_ws_json_ping(tp_channel *ch);

/* Queues control frames that waited for the open direct buffer. 0 or TP_EFAIL. */
int tp_ws_flush_controls(tp_channel *ch);

/* Best effort, never blocking: the close frame of an orderly end (rssl.json.v2). */
void tp_ws_send_close(tp_channel *ch, uint16_t code, const char *reason);

#endif
