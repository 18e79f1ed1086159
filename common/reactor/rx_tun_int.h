/*
 * rx_tun internals: the tunnel object, its send store and the wire helpers shared by
 * rx_tun.c (life and states), rx_tun_io.c (sending, acks, receiving) and rx_tun_wire.c (bytes).
 *
 * Send store: every message the tool submits becomes a record (header + payload, the bytes that
 * go on the wire) in a FIFO: records [head .. unsent) were sent and wait for their ack (or were
 * acked out of order and wait to reach the head), [unsent .. tail] wait for the window. A
 * cumulative ack frees from the head; a NAK marks records for retransmission (sent again first,
 * opcode RETRANS). Records come from per-size free lists of the tunnel, so once the store has
 * grown to the traffic's backlog nothing is allocated.
 *
 * The application's buffers are also counted as the original counts them: in chunks of
 * max fragment size + 128 bytes, each holding consecutive buffers of (size + 128) bytes until
 * full; a chunk is released when its last buffer is (acknowledged); buffers_used is the number
 * of chunks held, and the chunk count is the tunnel's buffer limit.
 */
#ifndef RWFPERF_RX_TUN_INT_H
#define RWFPERF_RX_TUN_INT_H

#include "rx_int.h"
#include "rx_tunnel.h"

/* Tunnel opcodes (the first byte of the extended header). */
enum { TUN_OP_DATA = 1, TUN_OP_ACK = 2, TUN_OP_RETRANS = 3 };

/* DATA flags and ACK flags. */
enum { TUN_DF_FRAGMENTED = 0x01, TUN_ACKF_FIN = 0x01 };

#define TUN_HDR_MAX 32      /* the largest DATA header (fragment, version 2): 28 */
#define TUN_CHUNK_EXTRA 128 /* what the original reserves per buffer beyond its size */
#define TUN_MAX_RANGES 16   /* NAK / selective-ack ranges read from one ACK */
#define TUN_FIN_TIMEOUT_MS 150
#define TUN_FIN_RETRIES 4
#define TUN_NCLASS 3

/* Tunnel states (in this order: comparisons are used). */
enum {
    TS_SEND_REQUEST = 1, /* consumer: the request goes out at the next dispatch pass */
    TS_WAIT_REFRESH,
    TS_SEND_REFRESH, /* provider: accepted, the refresh goes out at the next pass */
    TS_SEND_AUTH,    /* consumer: the login goes inside */
    TS_WAIT_AUTH,
    TS_OPEN,
    TS_SEND_FIN,
    TS_WAIT_ACK_OF_FIN,
    TS_WAIT_FIN,
    TS_SEND_ACK_OF_FIN,
    TS_WAIT_CLOSE,
    TS_SEND_CLOSE,
    TS_CLOSED,
};

/* Flags of a tunnel. */
enum {
    TF_ACTIVE = 0x01,          /* the tool has not closed it */
    TF_FINAL_STATUS = 0x02,    /* closed by the tool, which wants the final status */
    TF_STARTED_CLOSE = 0x04,   /* this end sent the first FIN */
    TF_FIN_RECEIVED = 0x08,    /* the peer's FIN was accepted */
    TF_SENT_ACK_OF_FIN = 0x10, /* our ack of the peer's FIN went out */
    TF_GOT_ACK_OF_FIN = 0x20,  /* the peer acked our FIN */
    TF_SEND_NAK = 0x40,        /* a gap was seen: the next ack carries a NAK range */
    TF_PROVIDER = 0x80,
    TF_DEAD = 0x100, /* to be freed at the end of the dispatch pass */
};

/* Flags of a record. */
enum {
    TR_SENT = 0x01,
    TR_ACKED = 0x02, /* acked by a selective range, waiting to reach the head */
    TR_RETX = 0x04,  /* NAKed: to be sent again */
    TR_FIN = 0x08,   /* the FIN (no bytes: an ACK-opcode message is written) */
    TR_NOFC = 0x10,  /* goes out whatever the window (the authentication login) */
    TR_APP = 0x20,   /* an application buffer (counted in chunks) */
};

typedef struct tun_rec {
    struct tun_rec *next;
    uint32_t len;   /* wire bytes in data[] (header + payload) */
    uint32_t cap;   /* bytes of data[] */
    uint32_t seq;   /* assigned when first sent */
    uint32_t chunk; /* TR_APP: the chunk id */
    uint16_t hdr;   /* header bytes */
    uint8_t flags;  /* TR_* */
    uint8_t cls;    /* size class (TUN_NCLASS: a one-off heap block) */
    uint8_t data[];
} tun_rec;

struct rx_tunnel {
    rx_chan *ch;
    struct rx_tunnel *next; /* the channel's tunnels */
    int state;              /* TS_* */
    unsigned flags;         /* TF_* */
    char name[256];
    uint8_t name_len, domain;
    uint16_t service_id;
    int32_t app_id;  /* the tool's stream id (the wire's for a provider and without watchlist) */
    int32_t wire_id; /* the stream id on the wire (0 until known, with the watchlist) */
    rx_cos cos;      /* requested (consumer) / answered (provider); negotiated once open */
    int64_t recv_window, send_window;
    unsigned stream_version;
    int retries; /* consumer: requests sent again with a lower version */
    rx_tunnel_callbacks cb;
    void *user;
    uint8_t *auth_login; /* consumer: the encoded login request sent inside */
    uint32_t auth_len;
    int32_t auth_stream;
    int response_timeout_ms;
    int64_t response_at; /* response / FIN retransmission deadline (0: none) */
    int fin_tries;
    bool needs_dispatch;
    /* sending */
    tun_rec *head, *unsent, *tail;
    tun_rec *free[TUN_NCLASS];
    uint32_t class_size[TUN_NCLASS];
    uint32_t nrec, limit;
    uint32_t last_out;      /* the last sequence number used */
    int64_t bytes_wait_ack; /* sent, unacked payload bytes (without the tunnel header) */
    uint32_t retx_pending;
    tun_rec *open_rec; /* the tool's open buffer */
    uint8_t *big;      /* an open buffer above the fragment size */
    uint32_t big_cap;
    bool big_app;
    rx_tbuf tbuf;
    uint16_t frag_msg_id;
    /* application chunks (the original's buffer count) */
    uint32_t *chunk_ref;
    uint32_t chunk_cap, chunk_n, chunk_front_id, chunk_head;
    uint32_t chunk_used; /* bytes used in the newest chunk */
    /* receiving */
    uint32_t in_accepted; /* last in-order sequence number accepted */
    uint32_t in_highest;  /* highest sequence number seen */
    uint32_t in_acked;    /* last sequence number acknowledged */
    int64_t in_unacked_bytes;
    uint8_t *reasm; /* fragments being put together */
    uint32_t reasm_cap, reasm_len, reasm_total, reasm_next;
    uint16_t reasm_id;
    uint8_t reasm_ctype;
    bool reasm_on;
    rx_tunnel_info info;
};

/* The channel's tunnels. */
typedef struct rx_tun_set {
    rx_tunnel *list;
    int32_t last_provider_id; /* ids of requests being handled */
} rx_tun_set;

/* ---- rx_tun.c --------------------------------------------------------------------------- */

/* The message m (delivered to the tool with its stream id) belongs to a tunnel or is a tunnel
 * request: handles it and returns its result (>= 0, or a callback's negative value); returns
 * RX_TUN_PASS when it is none of the tunnels' business. */
#define RX_TUN_PASS 1000
int rx_tun_route(rx_chan *ch, const rwf_msg *m);

/* The channel went down: every tunnel gets Closed/Suspect "Channel was closed." and ends. */
int rx_tun_down(rx_chan *ch);

/* End of a dispatch pass: acks, queued messages, requests, closes, timers; frees ended tunnels. */
int rx_tun_dispatch(rx_chan *ch, int64_t now);

/* The earliest time a tunnel of ch needs the dispatch pass (0: now; INT64_MAX: none). */
int64_t rx_tun_next_timer(const rx_chan *ch);

/* Frees every tunnel of the channel (no callbacks). */
void rx_tun_free_all(rx_chan *ch);

/* Ends t with state st (callback, then freed at the end of the pass). Returns the callback's
 * result. */
int tun_end(rx_tunnel *t, const rwf_state *st);

/* Ends t after a protocol error: Closed-recover/Suspect with err_msg() as text; the peer is
 * told with the close message of the role. */
int tun_fail(rx_tunnel *t);

/* A new tunnel of the channel (state to be set by the caller), or NULL (err_msg()). */
rx_tunnel *tun_new(rx_chan *ch, const rx_tunnel_opts *o, int32_t id, const char *name);

/* Marks t ended (freed at the end of the pass) and forgets its watchlist stream. */
void tun_mark_dead(rx_tunnel *t);

/* rx_tun_prov.c: a consumer's tunnel request reaching a provider channel (m a Request with
 * QUALIFIED_STREAM on a stream no tunnel has). Returns >= 0 or a callback's negative value. */
int tun_on_request(rx_chan *ch, const rwf_msg *m);

/* Calls the status callback (if the tool still wants events). */
int tun_status(rx_tunnel *t, const rwf_state *st, const rwf_login *auth);

/* Consumer: the login answer inside the tunnel (authentication). */
int tun_on_auth(rx_tunnel *t, const rwf_msg *m);

/* Sets the response timer to now + ms (FIN retransmission: 150 ms doubled per try). */
void tun_timer(rx_tunnel *t, int ms);
void tun_fin_timer(rx_tunnel *t);

/* Results of the sending helpers besides 0 and -1. */
enum { TUN_BUSY = 1, TUN_WINDOW = 2 };

/* ---- rx_tun_io.c ------------------------------------------------------------------------- */

/* Sets up the send store for the negotiated CoS (size classes, chunk table). Returns 0 or -1. */
int tun_store_init(rx_tunnel *t);
void tun_store_free(rx_tunnel *t);

/* Sends what is queued (retransmissions first) while the window and the channel allow.
 * Returns 0 or -1 (err_msg()). */
int tun_transmit(rx_tunnel *t);

/* Queues the FIN (sent regardless of the window). Returns 0 or -1. */
int tun_queue_fin(rx_tunnel *t);

/* Queues an internal message (the authentication login) outside the window. */
int tun_queue_bytes(rx_tunnel *t, const uint8_t *msg, uint32_t len, bool nofc);

/* Sends an ACK now (cumulative, NAK range when a gap was seen; fin: the FIN flag and seq).
 * Returns 0, TUN_BUSY when the channel had no room (try again later), or -1. */
int tun_send_ack(rx_tunnel *t, bool fin, uint32_t fin_seq);

/* A GenericMsg of the tunnel (DATA, RETRANS or ACK) from the peer. Returns >= 0 or a callback's
 * negative value. */
int tun_on_generic(rx_tunnel *t, const rwf_msg *m);

/* Writes len bytes to the channel as a layer message (the watchlist bypassed). Returns 0,
 * TUN_BUSY when the channel's ring is full or the tool holds its buffer, or -1. */
int tun_chan_write(rx_tunnel *t, const uint8_t *data, uint32_t len);

/* ---- rx_tun_wire.c ------------------------------------------------------------------------ */

/* The tunnel request (consumer) of t with stream version v, encoded into buf. */
int tun_enc_request(const rx_tunnel *t, unsigned v, bool watchlist, uint8_t *buf, uint32_t cap,
                    uint32_t *len);
/* The accepting refresh (provider). */
int tun_enc_refresh(const rx_tunnel *t, uint8_t *buf, uint32_t cap, uint32_t *len);
/* A status on a tunnel stream (reject or the provider's final close), with the CoS when cos. */
int tun_enc_status(int32_t stream, uint8_t domain, const rwf_state *st, const char *name,
                   uint16_t service, const rx_cos *cos, unsigned v, uint8_t *buf, uint32_t cap,
                   uint32_t *len);
/* Where members of a DATA header sit: its flags (below 0x80) take one byte, so the sequence
 * number follows the container type, then the extended header's length and its opcode. */
enum { TUN_AT_SEQ = RWF_MSG_AT_FLAGS + 2, TUN_AT_OPCODE = TUN_AT_SEQ + 5 };

/* Writes at p (TUN_HDR_MAX bytes of room) the header of a DATA message of stream version v: a
 * Generic message with an extended header and a sequence number (0, set at TUN_AT_SEQ when it
 * is sent), MESSAGE_COMPLETE when complete, a payload of type MSG, or OPAQUE for a fragment
 * (frag: version 2 adds the fragment fields total, frag_num, msg_id and ctype, the type of the
 * whole message). The payload follows. Returns the header's size. */
uint32_t tun_data_header(uint8_t *p, uint8_t domain, int32_t stream, unsigned v, bool frag,
                         bool complete, uint32_t total, uint32_t frag_num, uint16_t msg_id,
                         uint8_t ctype);
/* Writes at p (room for TUN_HDR_MAX + 8 * nnak bytes) an ACK message: a Generic message with
 * no payload whose extended header holds the ACK flags, seq, the nnak NAK ranges at nak (first,
 * last pairs) and the receive window. Returns its size. */
uint32_t tun_ack_msg(uint8_t *p, uint8_t domain, int32_t stream, uint16_t flags, uint32_t seq,
                     const uint32_t *nak, unsigned nnak, int32_t window);

/* The tunnel header of a received GenericMsg. */
typedef struct tun_hdr {
    uint8_t opcode;
    uint8_t data_flags;
    uint32_t total, frag_num;
    uint16_t msg_id;
    uint8_t ctype;
    uint16_t ack_flags;
    uint32_t seq;
    int32_t window;
    unsigned nnak, nsack;
    uint32_t nak[2 * TUN_MAX_RANGES], sack[2 * TUN_MAX_RANGES];
} tun_hdr;

/* Reads the extended header of m (stream version v). Returns 0, or -1 with err_msg(). */
int tun_hdr_decode(const rwf_msg *m, unsigned v, tun_hdr *h);

/* a - b for sequence numbers (wrapping). */
static inline int32_t tun_seq_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b);
}

#endif
