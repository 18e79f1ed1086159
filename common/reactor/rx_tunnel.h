/*
 * rx_tunnel: tunnel streams on reactor channels (docs/modes.md#tunnel-streams,
 * docs/wire.md#tunnel-streams).
 *
 * A tunnel stream is a private, qualified stream (domain SYSTEM for the perf tools) that a
 * consumer opens to a provider's service with a request carrying its class of service (CoS) as a
 * FilterList. Once the provider accepts it with a refresh, ordinary RWF messages (item requests,
 * refreshes, updates, posts, generic messages, a login for authentication) travel *inside* it,
 * each wrapped in a GenericMsg on the tunnel stream whose extended header is the tunnel's own
 * header: DATA messages carry the tunnel's sequence numbers (per direction, from 1), ACK messages
 * acknowledge them cumulatively (with NAK ranges for gaps, which the sender answers by
 * retransmitting, and selective-ack ranges), and a flow-control window bounds the bytes a sender
 * may have unacknowledged (the peer's RecvWindowSize, refreshed by every ACK). Messages above
 * the fragment size are split into fragments and reassembled. Closing is a FIN handshake
 * followed by a CloseMsg (consumer) or a StatusMsg (provider). The bytes are the ETA reactor's.
 *
 * Consumer:   rx_tunnel_open(ch, &opts, &t) once the service is up; the status callback says
 *             when the tunnel is open (after the refresh, or after the login refresh inside it
 *             with OMM-login authentication) or closed; then rx_tunnel_get_buffer / encode /
 *             rx_tunnel_submit, or rx_tunnel_submit_msg; inner messages reach cb.on_msg.
 * Provider:   the role's on_tunnel_request callback gets each new tunnel request; inside the
 *             callback it calls rx_tunnel_accept (the refresh goes out) or rx_tunnel_reject (a
 *             status); a request left unanswered is rejected by the layer.
 * Both:       rx_tunnel_close starts the close handshake; after a status callback with a state
 *             other than Open the tunnel is closed and freed once the dispatch pass ends (the
 *             handle must not be used after that callback returns, except rx_tunnel_close,
 *             which is then a no-op).
 *
 * With the watchlist, the tunnel's request and close go through it (it chooses the wire stream
 * id and adds the service's QoS); the tunnel's own traffic is written with the wire id.
 *
 * Acks go out once per dispatch pass in which new data was accepted (rx_dispatch's end), as the
 * original does; queued messages are sent as soon as the window allows (at submit, and when an
 * ack opens the window). The default window (12,288 bytes) is smaller than one tick's burst of
 * a provider at 100,000 updates/s, so each tick waits for an ack's round trip, which crosses the
 * application and worker threads of both sides: its tail is those threads' wake-ups on a busy
 * machine. An extra ack at half the window in the middle of a pass, handed to the worker at once,
 * measured no better (posting p99 through the tunnel within the run-to-run spread). Submitting
 * and receiving allocate nothing once the tunnel's store has grown to the traffic's backlog.
 *
 * Errors: functions return 0 or a negative TP_E* code with err_msg() set: TP_ENOBUFS (the
 * tunnel's buffer limit is reached), TP_EINVAL (misuse, bad message), TP_EFAIL (not open).
 * Protocol errors of the peer (a window overrun, an ack for a sequence number never sent, a
 * retransmission asked for a message no longer held, undecodable tunnel messages) close the
 * tunnel with a Closed-recover/Suspect status whose text says what happened.
 *
 * Threads: the application thread of the channel's reactor only.
 */
#ifndef RWFPERF_RX_TUNNEL_H
#define RWFPERF_RX_TUNNEL_H

#include "rx.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- class of service ------------------------------------------------------------------ */

enum { /* filter ids of the CoS FilterList and their msgKey filter bits */
       RX_COS_COMMON_ID = 1,
       RX_COS_AUTHENTICATION_ID = 2,
       RX_COS_FLOW_CONTROL_ID = 3,
       RX_COS_DATA_INTEGRITY_ID = 4,
       RX_COS_GUARANTEE_ID = 5,
       RX_COS_COMMON = 0x01,
       RX_COS_AUTHENTICATION = 0x02,
       RX_COS_FLOW_CONTROL = 0x04,
       RX_COS_DATA_INTEGRITY = 0x08,
       RX_COS_GUARANTEE = 0x10,
};

enum { RX_COS_AU_NOT_REQUIRED = 0, RX_COS_AU_OMM_LOGIN = 1 };
enum { RX_COS_FC_NONE = 0, RX_COS_FC_BIDIRECTIONAL = 1 };
enum { RX_COS_DI_BEST_EFFORT = 0, RX_COS_DI_RELIABLE = 1 };
enum { RX_COS_GU_NONE = 0, RX_COS_GU_PERSISTENT_QUEUE = 1 };

#define RX_TUNNEL_STREAM_VERSION 2       /* the tunnel protocol version spoken */
#define RX_TUNNEL_MAX_MSG_SIZE 614400    /* default :MaxMsgSize */
#define RX_TUNNEL_MAX_FRAGMENT_SIZE 6144 /* default :MaxFragmentSize */
#define RX_TUNNEL_RECV_WINDOW 12288      /* default receive window (2 fragments) */

typedef struct rx_cos {
    uint64_t max_msg_size;      /* :MaxMsgSize (provider sends it) */
    uint64_t max_fragment_size; /* :MaxFragmentSize (provider, version 2) */
    uint64_t supports_fragmentation;
    uint8_t protocol_type; /* :ProtocolType, 0 = RWF */
    uint8_t protocol_major, protocol_minor;
    uint8_t auth_type;      /* RX_COS_AU_* */
    uint8_t flow_control;   /* RX_COS_FC_* */
    int64_t recv_window;    /* :RecvWindowSize; -1 = the default */
    uint8_t data_integrity; /* RX_COS_DI_* */
    uint8_t guarantee;      /* RX_COS_GU_* */
} rx_cos;

/* The defaults of a CoS (what a missing element means): 614400, 6144, RWF 14.1, no
 * authentication, no flow control (window -1), best effort, no guarantee. */
void rx_cos_init(rx_cos *c);

/* The msgKey filter of a CoS: COMMON always, and the bit of each entry that differs from its
 * default. */
uint32_t rx_cos_filter(const rx_cos *c);

/* Encodes c as the CoS FilterList (entries 1-4 always, 5 when filter has GUARANTEE; provider:
 * the max sizes first; stream_version 1: one :MaxMsgSize carrying the fragment size). */
int rx_cos_encode(rwf_enc *e, const rx_cos *c, uint32_t filter, bool provider,
                  unsigned stream_version);

/* Decodes a CoS FilterList (elements missing keep their defaults). *stream_version (may be
 * NULL) gets :StreamVersion, 2 when absent. Returns 0, or -1 with err_msg() saying which entry
 * or element is wrong. */
int rx_cos_decode(rwf_buf data, rx_cos *c, unsigned *stream_version);

/* ---- tunnels --------------------------------------------------------------------------- */

typedef struct rx_tunnel rx_tunnel;

typedef struct rx_tunnel_callbacks {
    /* The tunnel's state changed: Open/Ok when it opened (text "" or the provider's, and auth
     * the login refresh decoded from inside the tunnel when OMM-login authentication was
     * used, else NULL), or any state other than Open when it closed (the tunnel is gone when
     * the callback returns). */
    int (*on_status)(rx_tunnel *t, const rwf_state *state, const rwf_login *auth);
    /* A message received inside the tunnel (m->encoded holds its bytes). */
    int (*on_msg)(rx_tunnel *t, const rwf_msg *m);
} rx_tunnel_callbacks;

typedef struct rx_tunnel_opts {
    const char *name;                   /* the tunnel's name (msgKey name), at most 255 bytes */
    uint8_t domain;                     /* RWF_DMT_SYSTEM for the perf tools */
    uint16_t service_id;                /* consumer: the provider's service */
    int32_t stream_id;                  /* consumer: the tool's stream id (the wire's without the
                                         * watchlist) */
    rx_cos cos;                         /* consumer: requested; provider: answered */
    uint32_t guaranteed_output_buffers; /* the tunnel's buffer limit (15000) */
    const rwf_login *auth_login;        /* consumer, OMM-login authentication: the login sent
                                         * inside (NULL: the channel role's login) */
    int response_timeout_ms;            /* refresh and authentication answers (60000) */
    rx_tunnel_callbacks cb;
    void *user;
} rx_tunnel_opts;

/* Defaults: domain SYSTEM, CoS defaults, 15000 buffers, 60 s. */
void rx_tunnel_opts_init(rx_tunnel_opts *o);

/* Consumer: opens a tunnel on a consumer channel that is up (the request goes out now; with the
 * watchlist, when the service is up). Returns 0 and *out, or -1 (err_msg()). */
int rx_tunnel_open(rx_chan *ch, const rx_tunnel_opts *o, rx_tunnel **out);

/* Provider: a consumer's tunnel request, valid during the on_tunnel_request callback. */
struct rx_tunnel_request {
    rx_chan *ch;
    int32_t stream_id;
    uint8_t domain;
    uint16_t service_id;
    uint32_t cos_filter;     /* the request's msgKey filter */
    unsigned stream_version; /* :StreamVersion asked (2 when absent) */
    char name[256];
    rwf_buf cos; /* the request's CoS FilterList */
    /* private */
    int answered;
};

/* The CoS the consumer asked for. Returns 0, or -1 when it cannot be decoded (err_msg()). */
int rx_tunnel_request_cos(const rx_tunnel_request *req, rx_cos *out);

/* Accepts the request with o->cos (the provider's: auth, flow control, integrity, minor
 * version), o->cb, o->user, o->guaranteed_output_buffers; the refresh goes out. Returns 0 and
 * *out, or -1. */
int rx_tunnel_accept(rx_tunnel_request *req, const rx_tunnel_opts *o, rx_tunnel **out);

/* Rejects the request with a status of state st (not Open); with expected, the status also
 * carries the key and the CoS the provider expects (a CoS mismatch, state Redirected). Returns
 * 0 or -1. */
int rx_tunnel_reject(rx_tunnel_request *req, const rwf_state *st, const rx_cos *expected);

/* A buffer for one message inside the tunnel: encode into data[0..len) and set len. app: the
 * buffer counts in buffers_used as the application's (the original's rsslTunnelStreamGetBuffer;
 * false: the layer's own, as for rsslTunnelStreamSubmitMsg). One buffer open at a time; it must
 * not stay open across rx_dispatch(). */
typedef struct rx_tbuf {
    uint8_t *data;
    uint32_t len;
} rx_tbuf;

/* Gets a buffer of up to size bytes (size <= the CoS max message size; above the fragment size
 * the message is fragmented when submitted). Returns 0 and *out, TP_ENOBUFS (the buffer limit is
 * reached; err_msg()), TP_EFAIL (not open), TP_EINVAL. */
int rx_tunnel_get_buffer(rx_tunnel *t, uint32_t size, bool app, rx_tbuf **out);

/* Queues the message in b (an RWF message) and sends what the window allows. Returns 0, or
 * TP_EINVAL (b released), TP_EFAIL. */
int rx_tunnel_submit(rx_tunnel *t, rx_tbuf *b);

/* Gives back an open buffer unsent. */
int rx_tunnel_release(rx_tunnel *t, rx_tbuf *b);

/* Encodes m into a layer buffer and submits it. */
int rx_tunnel_submit_msg(rx_tunnel *t, const rwf_msg *m);

/* Starts closing (FIN handshake, then the close message); the status callback reports the end
 * when final_status is set (else nothing more is delivered). A tunnel still waiting for its
 * refresh is closed at once. Returns 0 (also for a tunnel already closing or closed). */
int rx_tunnel_close(rx_tunnel *t, bool final_status);

typedef struct rx_tunnel_info {
    uint32_t buffers_used;     /* the application's buffer chunks held (the original's count) */
    uint32_t queued;           /* messages waiting for the window */
    uint32_t waiting_ack;      /* messages sent and not acknowledged */
    int64_t bytes_waiting_ack; /* what the window counts */
    int64_t send_window;       /* the peer's receive window */
    uint64_t msgs_sent, msgs_received;
    uint64_t retransmitted; /* messages sent again after a NAK */
    uint64_t naks_sent;     /* ACKs that asked for a retransmission */
    uint64_t duplicates;    /* received messages older than expected (dropped) */
} rx_tunnel_info;

void rx_tunnel_get_info(const rx_tunnel *t, rx_tunnel_info *out);

void *rx_tunnel_user(const rx_tunnel *t);
rx_chan *rx_tunnel_chan(const rx_tunnel *t);
const char *rx_tunnel_name(const rx_tunnel *t);
int32_t rx_tunnel_stream_id(const rx_tunnel *t); /* the tool's id (the wire's for a provider) */
const rx_cos *rx_tunnel_cos(const rx_tunnel *t); /* negotiated once open */
bool rx_tunnel_is_open(const rx_tunnel *t);

/* "State: Open/Ok/None - text: \"...\"", as the ETA tools print a state. */
int rx_state_text(const rwf_state *st, char *buf, size_t cap);

/* What a tunnel stream's status event changes for the tool that has the tunnel. */
typedef enum rx_tunnel_change {
    RX_TUNNEL_SAME = 0,   /* nothing: still open, or open but not yet Ok */
    RX_TUNNEL_OPENED = 1, /* now open with data Ok (it was not before) */
    RX_TUNNEL_CLOSED = 2  /* closed (any stream state but Open) */
} rx_tunnel_change;

/* The console lines the ETA tools print (on stdout, flushed) for status event st of tunnel t,
 * and what it changes (the tunnel was open with data Ok when was_open):
 *     Received RsslTunnelStreamStatusEvent for stream "<name>", with Stream ID <id> and <state>
 * then, when it opens, "  Client was authenticated." (auth: the authentication's login, NULL
 * without); when it closes, "  Client's authentication failed." (with auth) and "Tunnel
 * stream has closed."; then an empty line. */
rx_tunnel_change rx_tunnel_status_print(const rx_tunnel *t, const rwf_state *st,
                                        const rwf_login *auth, bool was_open);

#endif
