/*
 * tp: the transport. Channels that carry opaque messages between two processes, either
 * RIPC over TCP (compatible with the ETA tools, RIPC versions 10 to 14), the same RIPC stream
 * inside TLS (-connType encrypted), or the ETA unidirectional shared-memory transport (server
 * writes, client reads; the client sees what is written from its first tp_read() on).
 *
 * The model is a long-lived channel, short-lived buffers and an explicit loop that the
 * caller owns:
 *
 *     tp_opts o;  tp_opts_init(&o);  o.host = "localhost"; o.port = "14002";
 *     tp_channel *ch;
 *     if (tp_connect(&o, &ch) < 0) die(err_msg());
 *     while ((rc = tp_init(ch)) == TP_PENDING) poll(tp_fd(ch), tp_events(ch));
 *     ...
 *     for (;;) {                                 // reader
 *         tp_msg m;
 *         int rc = tp_read(ch, &m);
 *         if (rc < 0) break;                     // channel failed; err_msg() says why
 *         if (rc & TP_READ_MSG) use(m.data, m.len);
 *         if (!(rc & TP_READ_MORE)) poll(...);   // nothing more buffered: wait for the fd
 *     }
 *     tp_buf *b;                                 // writer
 *     if (tp_get_buffer(ch, 76, 0, &b) == 0) { fill(b->data); b->len = 76; tp_write(ch, b, 0); }
 *
 * Every channel is driven by one thread at a time; different channels may be used from
 * different threads (there is no global state). Nothing is allocated, locked or copied on
 * the steady-state read and write paths beyond the one copy of message bytes that the socket
 * or the shared-memory ring needs: an unpacked, uncompressed buffer is a view straight into
 * the channel's output area, and a received message is a view into its input area.
 *
 * Return codes: 0 or a positive value means success (what it counts is given per function);
 * a negative value is one of the TP_E* codes below. TP_EFAIL means the channel is closed and
 * err_msg() holds the reason (the channel keeps that reason: later calls fail the same way).
 * The other codes leave the channel usable.
 */
#ifndef RWFPERF_TP_H
#define RWFPERF_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- return codes -------------------------------------------------------------------- */

#define TP_EFAIL (-1) /* the channel (or server) failed and is closed; see err_msg() */

/*
 * The failure text of a channel whose peer ended the connection in order, at a message
 * boundary: TP_PEER_CLOSED alone (the end of the stream; a TLS close_notify), or followed by
 * " (<how>)": a WebSocket close 1000 or 1001 ("(WS Code 1000 Normal Closure)"), or data refused
 * after the peer had ended its side ("(send after its end: Broken pipe)"). Callers
 * may prefix context ("channel 7: ..."). The end of a stream in the middle of a message, or
 * before the handshake completed, is worded otherwise ("... in the middle of a frame",
 * "... while waiting for ..."): it is a failure. tp_closed_by_peer() tells the two apart.
 */
#define TP_PEER_CLOSED "connection closed by peer"

/* True when a failure text (err_msg() after TP_EFAIL) says that the peer ended the connection
 * in order (TP_PEER_CLOSED, alone or with " (<how>)"). NULL is not such a text. */
bool tp_closed_by_peer(const char *why);
#define TP_ENOBUFS (-2) /* no output space: flush (or wait for the fd to be writable) */
#define TP_ECALLAGAIN                                                                              \
    (-3)               /* part of a fragmented message is queued: flush, then tp_write again       \
                        */
#define TP_EINVAL (-4) /* the call was wrong (bad size, foreign buffer); nothing changed */

/* tp_init() results */
#define TP_PENDING 0   /* handshake in progress: wait for tp_events() on tp_fd() */
#define TP_ACTIVE 1    /* the channel is up */
#define TP_FD_CHANGE 2 /* still in progress, and tp_fd() changed (version fall-back) */

/* tp_read() result bits; 0 means nothing complete is buffered (wait for the fd) */
#define TP_READ_MSG 1  /* *msg holds a message */
#define TP_READ_PING 2 /* a ping (or an empty frame) arrived; nothing to deliver */
#define TP_READ_MORE 4 /* more is already buffered: call tp_read again before polling */

/* tp_write() flags (the values are those of the ETA write flags) */
#define TP_WRITE_NO_COMPRESS 0x01 /* send this message uncompressed */
#define TP_WRITE_DIRECT 0x02      /* if nothing is queued, send now instead of queueing */

/* ---- options ------------------------------------------------------------------------- */

/* The values are those of the ETA connection types. TP_CONN_ENCRYPTED is TLS over TCP with
 * tp_opts.encrypted_protocol (TP_CONN_SOCKET or TP_CONN_WEBSOCKET) inside it;
 * TP_CONN_WEBSOCKET is a WebSocket client (tp_opts.ws_protocols); a server of either socket
 * kind accepts RIPC and WebSocket clients alike. TP_CONN_SEQ_MCAST is the
 * sequenced UDP multicast of tp_mcast.h: tp_connect only (both ends are clients). */
typedef enum tp_conn_type {
    TP_CONN_SOCKET = 0,
    TP_CONN_ENCRYPTED = 1,
    TP_CONN_SHMEM = 3,
    TP_CONN_SEQ_MCAST = 6,
    TP_CONN_WEBSOCKET = 7
} tp_conn_type;

/* WebSocket sub-protocols: RIPC inside binary frames (rssl.rwf), or the JSON message format
 * of the Real-Time WebSocket API in text frames (rssl.json.v2, sent as tr_json2). */
typedef enum tp_ws_proto {
    TP_WS_PROTO_NONE = 0,
    TP_WS_PROTO_RWF = 1,
    TP_WS_PROTO_JSON2 = 2
} tp_ws_proto;

/* tp_opts.tls_protocols bits (the ETA encryption protocol flags) */
#define TP_TLS_V1_2 0x04
#define TP_TLS_V1_3 0x08

/* tp_opts.tls_records: which records of an encrypted connection (AES-GCM suites, TLS 1.2 and
 * 1.3) the transport protects itself once OpenSSL's handshake is done; OpenSSL protects the
 * rest (and the records of every other suite). */
typedef enum tp_tls_records {
    TP_TLS_RECORDS_TRANSPORT = 0, /* both: a client reads its records in place (tp_tls_rx.h), a
                                   * server seals the records it writes (tp_tls_tx.h) */
    TP_TLS_RECORDS_READ = 1,      /* only the clients' reading */
    TP_TLS_RECORDS_WRITE = 2,     /* only the servers' writing */
    TP_TLS_RECORDS_OPENSSL = 3,   /* none: OpenSSL reads and writes every record */
} tp_tls_records;

/* tp_opts.tls_gcm: the AES-GCM code of the records the transport protects itself. */
typedef enum tp_tls_gcm {
    TP_TLS_GCM_AUTO = 0,    /* tp_gcm_vaes (VAES, VPCLMULQDQ) where the CPU has it, else OpenSSL */
    TP_TLS_GCM_VAES = 1,    /* tp_gcm_vaes; refused (TP_EINVAL) where the CPU lacks it */
    TP_TLS_GCM_OPENSSL = 2, /* OpenSSL's EVP AES-GCM */
} tp_tls_gcm;

/* Whether this CPU (and OS) can run tp_gcm_vaes: what TP_TLS_GCM_AUTO chooses. */
bool tp_tls_vaes_available(void);

typedef enum tp_comp { TP_COMP_NONE = 0, TP_COMP_ZLIB = 1, TP_COMP_LZ4 = 2 } tp_comp;

#define TP_PROTOCOL_RWF 0
#define TP_PROTOCOL_TRANSPORTPERF 88

/* Settings of a channel or a server. tp_opts_init() fills the defaults (those of the ETA
 * transport); the caller then changes what it needs. Strings are copied by tp_connect() and
 * tp_bind(): the caller's memory is not referenced afterwards. Fields marked (server) are
 * read by tp_bind() and apply to every channel it accepts; (client) by tp_connect(). */
typedef struct tp_opts {
    tp_conn_type conn_type;
    const char *host;      /* (client) host to connect to; NULL or "" = "localhost" */
    const char *port;      /* port number or service name; "0" binds an ephemeral port */
    const char *interface; /* address or host name of the local interface to bind (-if); NULL
                            * = any. For shmem it prefixes the segment key, as in ETA. */
    uint8_t protocol_type; /* 0 RWF, 88 TransportPerf; the server refuses a different one */
    uint8_t rwf_major;     /* 14 */
    uint8_t rwf_minor;     /* 1 */
    const char *component; /* component version string sent in the handshake (<= 253 bytes);
                            * NULL = this product's name and version */

    uint32_t guaranteed_output_buffers; /* 50; with max_output_buffers sizes the output area */
    uint32_t max_output_buffers;        /* 0 = same as guaranteed_output_buffers */
    uint32_t num_input_buffers;         /* 10; sizes the input area */
    uint32_t max_fragment_size;         /* (server) largest frame payload offered: 6144;
                                         * (seqMCast) largest message in a datagram */
    uint32_t high_water_mark;           /* queued bytes that trigger a flush; 0 = 6000 */
    uint32_t max_reassembly;            /* largest fragmented message accepted: 64 MiB */
    bool tcp_nodelay;                   /* true */
    int sndbuf;                         /* SO_SNDBUF to set; 0 = system default */
    int rcvbuf;                         /* SO_RCVBUF to set; 0 = system default */

    uint8_t ping_timeout;        /* seconds requested (client) / maximum (server): 60 */
    uint8_t min_ping_timeout;    /* (server) 20 */
    bool server_to_client_pings; /* (server) true */
    bool client_to_server_pings; /* (server) true */
    tp_comp compression;         /* client: requested; server: the type it offers */
    uint8_t compression_level;   /* zlib level 0..9 (server; the client uses the ack's): 0 */
    bool force_compression;      /* (server) compress even if the client did not ask */

    uint8_t ripc_version;     /* client: first generation tried (14 falls back to 10);
                               * server: newest generation accepted. 10..14, default 14 */
    bool zero_key;            /* (server) answer the v14 key exchange with P = G = K = 0 */
    uint32_t shm_max_lag;     /* (shmem client) lag in messages that makes the reader give up;
                               * 0 = 3/4 of the ring, as in ETA */
    uint32_t shm_flow_ms;     /* (shmem server) how long the writer waits for a reader that
                               * reports its position before overrunning it: 1000 ms; 0 = never
                               * wait (the ETA writer's behaviour) */
    uint32_t init_timeout_ms; /* the handshake (TCP connect, TLS, RIPC) must be complete this
                               * long after tp_connect/tp_accept, else tp_init (and tp_tick)
                               * fail the channel: 60000; 0 = no limit */

    /* TLS, for TP_CONN_ENCRYPTED. The strings are read by tp_connect and tp_bind (which load
     * the files then) and are not kept. */
    tp_conn_type encrypted_protocol; /* what runs inside TLS: TP_CONN_SOCKET (RIPC; the
                                      * default) or TP_CONN_WEBSOCKET */
    const char *tls_ca_store;        /* (client) PEM file (or folder) of the trusted CAs; NULL or ""
                                      * = the system's default store */
    const char *tls_key_file;        /* (server) PEM private key */
    const char *tls_cert_file;       /* (server) PEM certificate chain, the server's first */
    const char *tls_ciphers;         /* TLS 1.2 cipher list in OpenSSL syntax; NULL or "" = the
                                      * DHE/ECDHE-RSA AES-GCM and SHA-2 suites of the ETA tools */
    uint8_t tls_protocols;           /* TP_TLS_V1_2 | TP_TLS_V1_3; 0 = both. The server prefers
                                      * the newest; -spTLSv1.2 is TP_TLS_V1_2 alone */
    tp_tls_records tls_records;      /* records the transport protects itself: TRANSPORT */
    tp_tls_gcm tls_gcm;              /* their AES-GCM code: AUTO. tp_connect, tp_bind and
                                      * tp_tls_check refuse values out of range, and VAES on a
                                      * CPU without it */

    /* WebSocket, for TP_CONN_WEBSOCKET (or encrypted_protocol TP_CONN_WEBSOCKET): the client
     * sends an HTTP upgrade, then speaks the sub-protocol the server chose. Every socket or
     * encrypted server recognises an upgrade as the first bytes of a connection (RIPC clients
     * keep working on the same port) and answers it from ws_protocols. */
    const char *ws_protocols; /* the -pl list (rssl.rwf, rssl.json.v2, tr_json2, tr_rwf; comma
                               * or space separated). Client: offered in this order of
                               * preference; server: accepted, the server's order winning.
                               * NULL or "": the client offers none and is refused; the server
                               * refuses every upgrade with 400, as the ETA server without -pl.
                               * Checked (an unknown name fails) and copied by tp_connect and
                               * tp_bind. */
    uint32_t ws_max_msg;      /* largest message accepted on a WebSocket channel (all
                               * fragments, inflated); larger closes the channel with 1009.
                               * 0 = 1 MiB */
    bool ws_no_utf8_check;    /* accept text frames that are not UTF-8 (the original
                               * TransportPerf sends binary bytes in them); else they close the
                               * channel with 1007 */

    /* seqMCast (TP_CONN_SEQ_MCAST, tp_mcast.h). The strings are read by tp_connect, not kept.
     * The largest message a datagram carries is max_fragment_size (capped at 65493); the
     * interface (an address, a host name or an interface name such as "lo") chooses where
     * the group is joined and where datagrams leave; sndbuf/rcvbuf size the socket. */
    const char *mc_recv_addr; /* group to receive on (an address that is not multicast is
                               * bound without joining); NULL or "" = host */
    const char *mc_recv_port; /* NULL or "" = port */
    const char *mc_send_addr; /* group to send to; NULL or "" = the receive group */
    const char *mc_send_port; /* NULL or "" = the receive port */
    uint16_t mc_instance_id;  /* written in every datagram header: 0 */
    uint32_t mc_max_senders;  /* senders whose sequence numbers are followed: 0 = 256 */
    uint32_t mc_loss_ppm;     /* loss generator: drop this many of every million datagrams
                               * received, before they are looked at: 0 = none */
    uint64_t mc_loss_seed;    /* its pseudo-random sequence; 0 = a seed from the clock */
} tp_opts;

/* Fills *o with the defaults listed above. */
void tp_opts_init(tp_opts *o);

/* ---- servers ------------------------------------------------------------------------- */

typedef struct tp_server tp_server;
typedef struct tp_channel tp_channel;

/* Binds a listening server (socket or encrypted), or creates the shared-memory segment
 * (shmem), as *o says; an encrypted server loads its key, certificate and cipher list first.
 * On success stores the new server in *out and returns 0; the caller owns it and frees it
 * with tp_server_close(). Returns TP_EINVAL when the TLS settings are unusable (a key or
 * certificate file missing or unreadable, a key that does not match the certificate, a
 * cipher list that names no cipher), TP_EFAIL on other failures; err_msg() says which. */
int tp_bind(const tp_opts *o, tp_server **out);

/* Checks the TLS settings of *o for the side given (server: key, certificate and their
 * match, cipher list; client: the CA store and the cipher list) by loading them as
 * tp_bind/tp_connect would, so that a tool can refuse them at start. Returns 0, or
 * TP_EINVAL with err_msg() saying what is wrong and where. */
int tp_tls_check(const tp_opts *o, bool server);

/* The descriptor to poll for readability: it is readable when tp_accept() has something. */
int tp_server_fd(const tp_server *s);

/* The local port the server listens on (the real one when "0" was bound); 0 for shmem. */
uint16_t tp_server_port(const tp_server *s);

/* Accepts one pending connection. Returns 1 and stores a new channel (state initializing,
 * owned by the caller, freed with tp_close()) in *out; 0 when none is pending; TP_EFAIL on a
 * failure of the listening socket. A shmem server accepts exactly one channel, at once. */
int tp_accept(tp_server *s, tp_channel **out);

/* Closes the server (a shmem server also marks its segment shut down and removes it).
 * Channels already accepted stay open. NULL is allowed. */
void tp_server_close(tp_server *s);

/* ---- channels: connect, handshake, close --------------------------------------------- */

/* Starts a non-blocking connection as *o says and stores the new channel, in state
 * initializing, in *out; the caller owns it and frees it with tp_close(). Returns 0, or
 * TP_EFAIL with err_msg() set (name resolution, socket creation; a shmem segment that does
 * not exist; an unreadable CA store). Connection refusal, and for an encrypted channel a
 * failed TLS handshake or certificate check, are reported later by tp_init(). A host or
 * service name the resolver says does not exist is a final failure (err_is_final(): trying
 * again cannot heal it). */
int tp_connect(const tp_opts *o, tp_channel **out);

/* Wraps an already connected stream socket (a socketpair in tests and fuzzers) in a channel
 * that runs the RIPC handshake in the given role (client: sends the ConnectReq first), inside
 * TLS when o->conn_type is TP_CONN_ENCRYPTED (a server then loads o's key and certificate).
 * Takes ownership of fd, also on failure. Returns 0 and *out, or TP_EFAIL. */
int tp_adopt(int fd, bool server, const tp_opts *o, tp_channel **out);

/* Advances the handshake without blocking: for an encrypted channel the TLS handshake
 * (with the certificate check of a client) and then the RIPC one inside it. Returns
 * TP_ACTIVE when the channel is up (also when it already was), TP_PENDING or TP_FD_CHANGE
 * while in progress (wait for tp_events() on tp_fd(), which TP_FD_CHANGE says has changed),
 * or TP_EFAIL (refused, dropped, bad peer, TLS failure, or init_timeout_ms passed; err_msg()
 * says which). Final failures (err_is_final(): trying again cannot heal them): the server's
 * certificate refused by the check, a WebSocket upgrade refused with 400 (no sub-protocol in
 * common) or answered with a sub-protocol not offered. A channel whose handshake stalls makes no
 * descriptor event: call tp_init or tp_tick now and then so that the timeout is noticed.
 *
 * When it returns TP_ACTIVE, messages may already wait inside the channel (a TLS record
 * that arrived with the end of the handshake): call tp_read before waiting for the
 * descriptor, or ask tp_read_ready(). */
int tp_init(tp_channel *ch);

/* Blocking helper for tests and simple tools: calls tp_init() and poll() until the channel
 * is active, fails, or timeout_ms passes (then TP_EFAIL, "handshake timed out"). */
int tp_init_wait(tp_channel *ch, int timeout_ms);

/* The descriptor to poll. For shmem it is a pipe that is always ready, as in ETA. */
int tp_fd(const tp_channel *ch);

/* The poll events (POLLIN and/or POLLOUT) the channel waits for: during the handshake what
 * the handshake needs; when active POLLIN, plus POLLOUT while output is queued. */
short tp_events(const tp_channel *ch);

typedef enum tp_state {
    TP_STATE_CLOSED = -1,
    TP_STATE_INACTIVE = 0,
    TP_STATE_INITIALIZING = 1,
    TP_STATE_ACTIVE = 2
} tp_state;

tp_state tp_get_state(const tp_channel *ch);

/* Closes the descriptor and frees everything the channel owns, including buffers the caller
 * still holds (they become invalid). Queued output that was not flushed is discarded, as in
 * ETA (RIPC has no close message; the peer sees end of file); a seqMCast channel instead sends
 * the datagrams it queued (each write of the ETA transport leaves at once) and a last ping
 * with its last sequence number. NULL is allowed. */
void tp_close(tp_channel *ch);

/* ---- reading ------------------------------------------------------------------------- */

/* A received message: a view into the channel, valid until the next tp_read() or
 * tp_close() on that channel. */
typedef struct tp_msg {
    const uint8_t *data;
    uint32_t len;
} tp_msg;

/* Returns the next message. Packed frames are split into their messages, fragments are
 * reassembled (only the complete message is returned), compression is undone, pings are
 * consumed. At most one read() system call is made per call, and only when nothing complete
 * is buffered. Returns a combination of TP_READ_MSG / TP_READ_PING / TP_READ_MORE, 0 when
 * nothing complete is available (wait for POLLIN), or TP_EFAIL: peer closed, protocol
 * violation (bad length, unknown flags, oversized frame, unknown fragment, corrupt or
 * oversized compressed data), shmem reader too slow or server gone. */
int tp_read(tp_channel *ch, tp_msg *msg);

/* Returns up to max messages at once (max >= 1) into msgs[0..n), as tp_read() would one
 * after the other, and sets *more as TP_READ_MORE would be set after the last of them (call
 * again before polling). Every view stays valid until the next tp_read(), tp_read_batch() or
 * tp_close() on the channel: the input area is not moved or refilled while a batch is taken,
 * at most one read() system call is made, before the first message is taken, and only the
 * first message of a batch may have been reassembled or decompressed (shared memory: the slots
 * one copy from the ring holds, the ring copied again only before the first message). Pings
 * are consumed and counted as by tp_read(). Returns n (0: nothing complete is available, or
 * only pings were), or TP_EFAIL as tp_read() does; messages taken before a malformed frame are
 * returned first and the failure comes with the next call. */
int tp_read_batch(tp_channel *ch, tp_msg *msgs, int max, bool *more);

/* What tp_read_frames() returns: one message, or the messages of one packed frame still in
 * their wire form (docs/wire.md#packing), for a caller that walks them itself instead of
 * having each one's view stored for it. */
typedef struct tp_frame {
    const uint8_t *data;
    uint32_t len;
    uint32_t packed; /* 0: data[0..len) is one message. Else: data[0..len) is `packed`
                      * entries, each a 2-byte length (tp_packed_len(), never 0) and that
                      * many bytes (a message), the next one right after, the last one ending
                      * exactly at data + len; every length has been checked to fit. The
                      * messages' bytes are len - 2 * packed */
} tp_frame;

/* The length of the packed entry at p (within a tp_frame with packed != 0); its message
 * starts at p + 2, the next entry at p + 2 + the length. */
static inline uint32_t tp_packed_len(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

/* The next message of frame f, walking from *at (f->data at first; advanced past what it
 * returns): returns true with *m its view, false when f holds no more. A frame with packed 0
 * is its one message. */
static inline bool tp_frame_next(const tp_frame *f, const uint8_t **at, tp_msg *m)
{
    const uint8_t *p = *at, *const end = f->data + f->len;
    if (p == end)
        return false;
    if (!f->packed) {
        m->data = p;
        m->len = f->len;
    } else {
        m->len = tp_packed_len(p);
        m->data = p + 2;
    }
    *at = m->data + m->len;
    return true;
}

/*
 * tp_read_batch() by frames: up to max (>= 1) frames into f[0..n), each one message or a run
 * of a packed frame's messages (tp_frame), in the order tp_read() would return them. A packed
 * frame costs its reader one check of its lengths here and no view per message; the count of
 * messages comes with it; an empty entry is left out (a frame ends before it, the next begins
 * after it), and a packed frame may be cut between two frames when f is full. *more, the
 * views' validity, the one read() system call, pings, statistics and failures are as for
 * tp_read_batch(); a packed frame whose lengths are malformed yields its well-formed leading
 * entries as a frame and its failure with the next call. Frames of any other kind (fragments,
 * compressed, WebSocket, multicast, shared memory) come one message each. Returns n (0:
 * nothing complete is available, or only pings were) or TP_EFAIL.
 */
int tp_read_frames(tp_channel *ch, tp_frame *f, int max, bool *more);

/* True when tp_read can return something without the descriptor becoming readable: a
 * complete frame is buffered, a stream layer (TLS) holds bytes it has already read, or the
 * last read() filled the input area (the socket most likely holds more). */
bool tp_read_ready(const tp_channel *ch);

/* ---- writing ------------------------------------------------------------------------- */

/* A buffer to write one message (or a packed series) into. The caller fills data[0..len)
 * and sets len to the number of bytes used before tp_write(); the members after len are the
 * channel's. A buffer belongs to the channel that returned it and stays valid until it is
 * written (completely) or released. */
typedef struct tp_buf {
    uint8_t *data; /* where to write */
    uint32_t len;  /* in: bytes available at data; out (set by the caller): bytes used */
    /* private */
    uint8_t *pay;       /* start of the frame payload */
    uint32_t pay_cap;   /* payload capacity */
    uint32_t pack_off;  /* packed: offset of the current message in the payload; else 0 */
    uint32_t wr_off;    /* fragmented write: payload bytes already queued */
    uint16_t frag_id;   /* fragmented write: its fragment id */
    uint8_t kind;       /* direct, staged */
    uint8_t busy;       /* obtained and not yet written or released */
    uint8_t deferred;   /* staged buffer written while the direct one was open */
    uint8_t slot;       /* staged: index in the channel's staging slots */
    uint8_t *stage;     /* staged: owned memory */
    uint32_t stage_cap; /* staged: its size */
    uint8_t room;       /* WebSocket: frame header bytes reserved before the payload */
    uint8_t packed;     /* obtained as a packed buffer */
    uint32_t deferred_flags;
} tp_buf;

/* Obtains a buffer for a message of up to size bytes (packed = true: a packed buffer whose
 * messages share one frame, size being the room for all of them and their 2-byte lengths
 * excluding the first). Messages larger than the negotiated maximum are fragmented by
 * tp_write (not when packed). Returns 0 and *out; TP_ENOBUFS when the output area is full
 * even after a flush (countable back-pressure, the channel stays up); TP_EINVAL for a size
 * the channel cannot carry; TP_EFAIL if the channel failed. */
int tp_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out);

/* Closes the current message of a packed buffer (b->len bytes at b->data) and opens room for
 * the next: afterwards b->data points after it and b->len is the room left (0 when none).
 * Returns 0, or TP_EINVAL when b is not packed or b->len exceeds the room. */
int tp_pack(tp_channel *ch, tp_buf *b);

/* What k calls of tp_pack() do for k messages of size bytes each that the caller wrote one
 * after the other from b->data, each size + 2 bytes after the previous one (the 2 bytes between
 * them are the transport's): the k messages are closed and b->data and b->len are as after
 * them. The layout is that of RIPC packing (plain, TLS and rssl.rwf channels, seqMCast
 * datagrams); rssl.json.v2 channels pack otherwise and refuse it. Returns 0, or TP_EINVAL
 * (nothing changed) when b is not a packed buffer of such a channel or the k messages exceed
 * its room. */
int tp_pack_run(tp_channel *ch, tp_buf *b, uint32_t size, uint32_t k);

/* Queues the message in b (for a packed buffer: the messages packed so far plus b->len
 * bytes at b->data, if b->len > 0) as one frame, or as several fragments, compressing it if
 * the channel compresses and the message is large enough. When the queued bytes reach the
 * high-water mark the queue is flushed (one send()). On success b is released and the
 * return is the number of bytes still queued (> 0: call tp_flush when the fd is writable).
 * TP_ECALLAGAIN: a fragmented message was partly queued and the output area is full; b
 * stays the caller's: flush, then call tp_write(ch, b, flags) again. TP_ENOBUFS: no room
 * (b stays the caller's). TP_EINVAL: b->len larger than the buffer. TP_EFAIL: failed. */
int tp_write(tp_channel *ch, tp_buf *b, unsigned flags);

/* One rssl.json.v2 message written in place, as tp_get_buffer(ch, size, false, &b) and
 * tp_write(ch, b, flags) would write it (one text frame holding "[", the message, "]"), with
 * fewer steps: tp_json_get() hands out *at, where the caller writes the message (at most size
 * bytes), and tp_json_write() queues its len bytes and closes it. Between the two calls the
 * tail of the output area is the message's, as for an open direct buffer.
 * tp_json_get() returns 0; or TP_EINVAL, nothing opened, when the channel does not write that
 * way now (not an active rssl.json.v2 server channel without compression, a buffer open or a
 * message waiting, or the size needs a frame of another form or fragments): use
 * tp_get_buffer(); or TP_ENOBUFS when the output area has no room even after a flush; or
 * TP_EFAIL. */
int tp_json_get(tp_channel *ch, uint32_t size, uint8_t **at);

/* Queues the len bytes (len <= the size asked for) written at the *at of the last
 * tp_json_get() and closes the message. Returns what tp_write() returns: the bytes still
 * queued (after a send() at the high-water mark, or at once with TP_WRITE_DIRECT on an empty
 * queue), or TP_EFAIL; TP_EINVAL when no such message is open or len exceeds its size (the
 * message is given back unsent). */
int tp_json_write(tp_channel *ch, uint32_t len, unsigned flags);

/* A run of unpacked messages of one size written in place, as many tp_get_buffer() and
 * tp_write() pairs would write them, with one call to open the run and one to queue it:
 * message i (0 <= i < n) is written at data + i * stride, size bytes. The caller may write
 * anywhere in [data, data + (n - 1) * stride + size): the bytes between the messages are the
 * framing's and tp_run_write() writes them. */
typedef struct tp_run {
    uint8_t *data;
    uint32_t stride;
    uint32_t size;
    uint32_t n; /* room for this many messages, >= 1 */
} tp_run;

/* Opens a run of up to want (>= 1) messages of size bytes (1 <= size <= the maximum message
 * size) to be written with flags: run->n is at most want and stops at the message after
 * which a single tp_write() would flush (the high-water mark, or every message with
 * TP_WRITE_DIRECT), so that the frames leave as single writes would send them. A buffer
 * written while the run is open is queued after it, as after an open direct buffer.
 * Returns 0; TP_ENOBUFS when the output area has no room for one message even after a
 * flush; TP_EINVAL when the channel writes no runs (not an active RIPC channel over a socket
 * or TLS or an active shared-memory writer, compression, WebSocket, a buffer open, or a size
 * that needs fragments): use tp_get_buffer(); TP_EFAIL if the channel failed. On a
 * shared-memory writer the run is consecutive slots (stride: the slot's size), at most 64,
 * up to the ring's end and the room a reader that reports its position leaves (TP_ENOBUFS:
 * none), made visible together by tp_run_write(): one update of the ring's header for the run
 * instead of one per message. */
int tp_run_get(tp_channel *ch, uint32_t size, uint32_t want, unsigned flags, tp_run *run);

/* Queues the first k messages of run (k <= run->n; 0 gives the run back unwritten) and
 * closes the run. Returns what the last of k tp_write() calls would have returned: the
 * bytes still queued, or TP_EFAIL. */
int tp_run_write(tp_channel *ch, tp_run *run, uint32_t k, unsigned flags);

/* Gives back a buffer that will not be written. Returns 0 or TP_EINVAL. */
int tp_release(tp_channel *ch, tp_buf *b);

/* Sends queued bytes with one send() call. Returns the bytes still queued (0: all sent),
 * or TP_EFAIL. */
int tp_flush(tp_channel *ch);

/* Keep-alive: sends a ping if nothing is queued, otherwise flushes. Returns the bytes still
 * queued, or TP_EFAIL. */
int tp_ping(tp_channel *ch);

/* Once-per-tick housekeeping, given the caller's monotonic clock in nanoseconds: sends a ping
 * every ping_timeout/3 when this side is expected to ping, and fails the channel with
 * "Ping timed out." when the peer is expected to ping and nothing at all arrived for
 * ping_timeout seconds. On a channel still in its handshake it fails the channel when
 * init_timeout_ms has passed. Returns 0 or TP_EFAIL. */
int tp_tick(tp_channel *ch, uint64_t now_ns);

/* Changes the high-water mark of an active channel (0 = default). Returns 0. */
int tp_set_high_water_mark(tp_channel *ch, uint32_t bytes);

/* ---- information --------------------------------------------------------------------- */

/* What the ETA tools print in their "Channel Info" block, and a little more. */
typedef struct tp_info {
    uint32_t max_fragment_size; /* largest packable message: max_user_msg_size - 2 */
    uint32_t max_user_msg_size; /* negotiated frame payload limit */
    uint32_t max_output_buffers;
    uint32_t guaranteed_output_buffers;
    uint32_t num_input_buffers;
    uint8_t ping_timeout; /* negotiated, seconds */
    bool client_to_server_pings;
    bool server_to_client_pings;
    int sys_send_buf_size;          /* SO_SNDBUF as the system reports it */
    int sys_recv_buf_size;          /* SO_RCVBUF as the system reports it */
    tp_comp compression;            /* negotiated */
    uint32_t compression_threshold; /* smallest message compressed (0 when none) */
    char component[256];            /* the peer's component version string ("" if none) */
    uint8_t ripc_version;           /* negotiated generation 10..14 (0 for shmem) */
    uint8_t protocol_type;
    uint8_t rwf_major;
    uint8_t rwf_minor;
    tp_conn_type conn_type;
    tp_conn_type encrypted_protocol; /* what runs inside TLS (TP_CONN_ENCRYPTED only) */
    char tls_version[16];            /* negotiated ("TLSv1.2", "TLSv1.3"); "" without TLS */
    char tls_cipher[64];             /* negotiated suite, OpenSSL's name; "" without TLS */
    uint8_t tls_in_place;            /* the transport protects this side's records itself (a
                                      * client reads them in place, a server seals them) */
    uint8_t tls_vaes;                /* ... with tp_gcm_vaes (0: OpenSSL's AES-GCM) */
    tp_ws_proto ws_protocol;         /* the WebSocket sub-protocol; NONE when not WebSocket */
} tp_info;

/* Fills *out for an active channel. Returns 0, or TP_EINVAL if the channel is not active. */
int tp_get_info(tp_channel *ch, tp_info *out);

/* The WebSocket sub-protocol of a channel (cheap; NONE when it is not a WebSocket channel or
 * its upgrade is not done). */
tp_ws_proto tp_ws_protocol(const tp_channel *ch);

/* Checks a WebSocket sub-protocol list (tp_opts.ws_protocols) as tp_connect and tp_bind will:
 * returns 0, or TP_EINVAL with err_msg() naming the unknown name. */
int tp_ws_protocols_check(const char *pl);

/* Running totals of a channel (cheap to read at any time). */
typedef struct tp_stats {
    uint64_t bytes_written; /* frame bytes queued, headers included (what ETA reports as
                             * bytesWritten) */
    uint64_t bytes_sent;    /* bytes the socket accepted */
    uint64_t bytes_read;    /* bytes received from the socket */
    uint64_t msgs_written;  /* tp_write calls that queued a message */
    uint64_t msgs_read;     /* messages returned by tp_read */
    uint64_t pings_sent;
    uint64_t pings_read;
    uint64_t no_buffers;  /* times TP_ENOBUFS or TP_ECALLAGAIN was returned */
    uint64_t send_calls;  /* send() system calls */
    uint64_t recv_calls;  /* recv() system calls */
    uint64_t bytes_moved; /* queued bytes moved to the front of the output area for room */
} tp_stats;

void tp_get_stats(const tp_channel *ch, tp_stats *out);

/* Bytes queued and not yet sent. */
size_t tp_queued(const tp_channel *ch);

/* Name of a compression type: "none", "zlib", "lz4". */
const char *tp_comp_name(tp_comp c);

#endif
