/*
 * tp_int: what the transport's source files share and the callers never see: the channel
 * and server structures and the helpers one file offers another.
 */
#ifndef RWFPERF_TP_INT_H
#define RWFPERF_TP_INT_H

#include <limits.h>
#include <netinet/in.h>
#include <zlib.h>

#include "err.h"
#include "tp.h"
#include "tp_ripc.h"
#include "tp_ws.h"

#if defined(__GNUC__)
#define TP_LIKELY(x) __builtin_expect(!!(x), 1)
#define TP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TP_LIKELY(x) (x)
#define TP_UNLIKELY(x) (x)
#endif

#define TP_STAGE_SLOTS 8 /* buffers that may be open besides the direct one */
#define TP_FRAG_SLOTS 8  /* fragmented messages that may be in reassembly at once */
#define TP_DEFAULT_HWM 6000
/* The default on encrypted channels: the queue is flushed when it nears the 16 KiB that one
 * TLS record carries (less room for the message that crosses the mark), so that a flush is
 * one full record and one send() rather than several small ones. */
#define TP_TLS_DEFAULT_HWM (15u * 1024u)
/* Bytes a server's socket may hold not yet sent before a write waits (TCP_NOTSENT_LOWAT).
 * When the peer falls behind and its window closes, what the sender has queued in the kernel
 * is pushed out by the peer's own acknowledgements, in the peer's system calls and on the
 * peer's core; a short unsent queue keeps that work with the sender, which is woken to write
 * more when the queue runs low. */
#define TP_NOTSENT_LOWAT (128 * 1024)
#define TP_STREAM_MAX 3 /* streams a channel may stack (TLS, WebSocket, one spare) */

/* handshake / internal state */
enum tp_istate {
    TP_IS_NONE = 0,
    TP_IS_CONNECTING, /* client: connect() issued, waiting for writability */
    TP_IS_SENDING,    /* either: a handshake message is partly sent (hs_out) */
    TP_IS_WAIT_ACK,   /* client: reading the ConnectAck / ConnectNak */
    TP_IS_WAIT_REQ,   /* server: reading the ConnectReq */
    TP_IS_WAIT_KEY,   /* server: reading the v14 client key message */
    TP_IS_SHM_WAIT,   /* shmem client: waiting for the segment to be initialised */
    TP_IS_STREAM,     /* either: the handshakes of the stream stack (TLS) */
    TP_IS_ACTIVE,
};

/* buffer kinds */
enum { TP_BUF_DIRECT = 1, TP_BUF_STAGED = 2 };

/* One fragmented message being reassembled. */
typedef struct tp_frag {
    uint8_t *buf;
    uint32_t cap;
    uint32_t total;
    uint32_t got;
    uint16_t id;
    uint8_t used;
} tp_frag;

struct tp_shm_chan; /* tp_shm_int.h */
struct tp_mc_chan;  /* tp_mc_int.h */
struct tp_shm_srv;
struct tp_stream;  /* tp_stream.h */
struct tp_ws;      /* tp_ws_int.h */
struct ssl_ctx_st; /* OpenSSL's SSL_CTX */

struct tp_channel {
    /* ---- read path (hot) ---- */
    int fd;
    int8_t state; /* tp_state */
    uint8_t conn_type;
    uint8_t server;
    uint8_t istate;
    uint8_t rx_seen;        /* bytes arrived since the last tp_tick() */
    uint8_t rd_fast;        /* active socket, no packed frame or split in progress: tp_read may
                             * take its fast path */
    uint8_t wr_fast;        /* active socket without output compression: direct buffers */
    uint8_t shm_rd;         /* active shared-memory reader */
    uint8_t shm_wr;         /* active shared-memory writer */
    uint8_t rx_pend;        /* read again before waiting: the stream stack holds read bytes the
                             * descriptor will not announce, or (plain socket) the last recv()
                             * filled the input area's room */
    uint8_t rx_eof;         /* the stream ended after the bytes still in the input area */
    uint8_t rx_inplace;     /* the top stream fills the input area itself (ops->fill) */
    struct tp_stream *strm; /* top of the stream stack; NULL: the plain socket */
    struct tp_ws *ws;       /* the WebSocket layer (in the stack); NULL when not WebSocket */
    uint8_t ws_json;        /* active rssl.json.v2 channel: JSON frames instead of RIPC */
    uint8_t ws_fast;        /* active WebSocket channel without compression: its fast paths */
    uint8_t *in;
    uint32_t in_cap, in_rd, in_wr;
    uint32_t max_in_frame;
    const uint8_t *pk_cur, *pk_end; /* packed frame being split */

    /* ---- write path (hot) ---- */
    uint8_t *out;
    size_t out_cap, out_head, out_tail;
    size_t hwm;
    size_t blocked_at;  /* queued bytes when send() last could not take everything; 0 = not */
    uint32_t max_user;  /* negotiated maxUserMsgSize */
    tp_buf direct;      /* the in-place buffer */
    uint32_t json_open; /* tp_json_get()'s size + 1 while its message is open (direct busy) */
    tp_stats st;

    /* ---- negotiated ---- */
    uint8_t gen;           /* RIPC generation 10..14 */
    uint8_t frag_id_bytes; /* 1 (<= v12) or 2 */
    uint8_t ping_timeout;
    uint8_t session_flags;
    uint8_t send_pings, expect_pings;
    uint8_t rwf_major, rwf_minor, protocol_type;
    uint8_t comp_in, comp_out; /* tp_comp of each direction */
    uint8_t zlevel;
    uint32_t comp_threshold;
    uint32_t comp_max[3];          /* largest payload compressed into one frame: [0] plain header,
                                    * [1] first fragment, [2] subsequent fragment */
    uint32_t frag_first, frag_sub; /* payload bytes per fragment */
    uint16_t next_frag_id, frag_id_max;

    /* ---- compression state ---- */
    z_stream zin, zout;
    uint8_t zin_ok, zout_ok;
    uint8_t *dec; /* decompressed frame payload */
    uint32_t dec_cap, dec_len;
    uint8_t *lz_tmp; /* lz4: first part of a split frame */
    uint32_t lz_len, lz_cap;
    uint8_t split; /* the first part of a split compressed frame was read */
    uint8_t split_flags, split_ext;
    uint32_t split_total;
    uint16_t split_id;

    tp_frag frags[TP_FRAG_SLOTS];

    /* ---- staged buffers ---- */
    tp_buf stage[TP_STAGE_SLOTS];
    uint8_t deferred[TP_STAGE_SLOTS]; /* staged slots written while direct was open */
    uint8_t n_deferred;

    /* ---- keep-alive ---- */
    uint8_t tick_started;
    uint64_t last_rx_ns, next_ping_ns;

    /* ---- handshake ---- */
    uint8_t hs[TP_RIPC_HS_MAX]; /* message being received */
    uint32_t hs_len;
    uint8_t hs_out[TP_RIPC_HS_MAX]; /* message being sent */
    uint32_t hs_out_len, hs_out_sent;
    uint8_t hs_next;   /* istate after hs_out is sent */
    uint8_t req_flags; /* flags of our ConnectReq (client) / the client's (server) */
    uint8_t ack_key;   /* client: ack carried a usable key */
    uint64_t key_p, key_g, key_mine, key_theirs, key_shared;
    struct sockaddr_in addr; /* client: where to (re)connect */
    int addr_ok;

    /* ---- settings (copies) ---- */
    tp_opts o;
    char host[256], port[64], iface[256], component[256];
    char peer_component[256];
    char tls_ca[256];         /* encrypted client: the CA store's name, for error texts */
    char ws_pl[TP_WS_PL_MAX]; /* the rewritten WebSocket sub-protocol list (o.ws_protocols) */
    char fail[ERR_MSG_MAX];   /* why the channel failed */
    bool fail_final;          /* and that failure was final (err_final) */

    struct tp_shm_chan *shm;
    struct tp_mc_chan *mc; /* seqMCast */

    /* ---- stream stack (tp_stream.c) ---- */
    struct tp_stream *stack[TP_STREAM_MAX]; /* bottom first */
    uint8_t n_strm;
    uint8_t strm_hs;            /* index of the stream whose handshake runs */
    struct ssl_ctx_st *tls_ctx; /* encrypted: the TLS settings (a reference) */
    uint64_t init_deadline_ns;  /* CLOCK_MONOTONIC; 0 = no handshake time limit */
};

struct tp_server {
    int fd;
    uint8_t conn_type;
    uint16_t port;
    tp_opts o;
    char host[256], port_s[64], iface[256], component[256];
    struct tp_shm_srv *shm;
    struct ssl_ctx_st *tls_ctx; /* encrypted: key, certificate, ciphers */
    char ws_pl[TP_WS_PL_MAX];   /* the rewritten WebSocket sub-protocol list (o.ws_protocols) */
};

/* Copies o into dst with its strings into the given arrays (cut to fit). */
void tp_opts_copy(tp_opts *dst, const tp_opts *o, char *host, char *port, char *iface,
                  char *component);

/* The default component version string. */
const char *tp_default_component(void);

/* Records the current err_msg() (and whether it is final, err_is_final) as the channel's
 * failure, closes it (state CLOSED) and returns TP_EFAIL. */
int tp_chan_fail(tp_channel *ch);

/* Sets err_msg() for a send() on the channel's socket that failed with errno e, `what` naming
 * the call ("send", "send of 12 queued bytes"). EPIPE as a connection's first error means that
 * the peer had ended its side in order and then refused what followed: worded as an orderly
 * close (TP_PEER_CLOSED " (<what> after its end: Broken pipe)"). Any other error:
 * "<what>: <strerror(e)>". Leaves errno at e. */
void tp_send_failed(int e, const char *what);

/* For calls on a channel that already failed: sets err_msg() to the stored reason (final when
 * it was) and returns TP_EFAIL. */
int tp_chan_refail(tp_channel *ch);

/* Allocates and fills a channel in state initializing (socket kind). */
tp_channel *tp_chan_new(const tp_opts *o, int server);

/* The TCP connection of ch exists (connected or accepted): pushes the streams its options ask
 * for and starts their handshake, or (plain socket) the RIPC one. 0 or TP_EFAIL. */
int tp_chan_start_streams(tp_channel *ch);

/* After the handshake: sizes the areas, starts compression, goes active. 0 or TP_EFAIL. */
int tp_chan_activate(tp_channel *ch);

/* tp_write.c: flushes once; used by ping and reserve. */
int tp_out_flush(tp_channel *ch);

/* tp_write.c: makes need contiguous bytes available at the output tail (flushing once and
 * reclaiming sent space). 0, TP_ENOBUFS or TP_EFAIL. */
int tp_out_reserve(tp_channel *ch, size_t need);

/* tp_write.c: after a frame was queued (before = bytes queued before it): flushes when asked
 * or at the high-water mark. Returns the bytes still queued or TP_EFAIL. */
int tp_out_commit(tp_channel *ch, size_t before, unsigned flags);

/* tp_read.c: the RIPC frame of flen bytes at p (complete in the input area, p == in + in_rd)
 * and the next message of a packed frame being split; the tp_read() results. */
int tp_ripc_frame_in(tp_channel *ch, const uint8_t *p, uint32_t flen, tp_msg *msg);
int tp_ripc_pack_next(tp_channel *ch, tp_msg *msg);

/* Checks and copies the WebSocket sub-protocol list of o into dst (rewritten for the role);
 * points dst_opts->ws_protocols at it. 0, or TP_EINVAL naming the unknown name. */
int tp_ws_pl_setup(tp_opts *dst_opts, const tp_opts *o, bool server, char *dst);

/* tp_comp.c */
int tp_comp_start(tp_channel *ch);
void tp_comp_stop(tp_channel *ch);
/* Compresses n bytes at src into dst (cap bytes). Returns the compressed length; 0 when the
 * output does not fit (lz4 only; nothing was consumed); -1 on error (zlib state broken).
 * For zlib, cap must be at least tp_comp_bound(n): the stream cannot be rewound. */
int tp_compress(tp_channel *ch, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap);
/* Worst-case compressed size of n bytes for the channel's output compression. */
uint32_t tp_comp_bound(const tp_channel *ch, uint32_t n);
/* Inflates n bytes (zlib, continuing the stream) into ch->dec at ch->dec_len. 0 or -1. */
int tp_inflate(tp_channel *ch, const uint8_t *src, uint32_t n);
/* Decompresses one lz4 block into ch->dec at ch->dec_len. 0 or -1. */
int tp_lz4_decompress(tp_channel *ch, const uint8_t *src, uint32_t n);

/* The CLOCK_MONOTONIC time in nanoseconds. */
uint64_t tp_now_ns(void);

/* Fails ch with "handshake timed out" when its init deadline has passed; 0 otherwise. */
int tp_chan_check_deadline(tp_channel *ch);

/* tp_tls.c (see tp_tls.h for the TLS stream itself) */
int tp_tls_ctx_new(const tp_opts *o, int server, struct ssl_ctx_st **out);
void tp_tls_ctx_free(struct ssl_ctx_st *ctx);
int tp_tls_ctx_ref(struct ssl_ctx_st *ctx);

/* tp_sock.c */
int tp_sock_resolve(const char *host, const char *port, struct sockaddr_in *out);
int tp_sock_options(int fd, const tp_opts *o, int strict);
/* Limits the bytes fd (a TCP socket) holds not yet sent to TP_NOTSENT_LOWAT (see there). */
void tp_sock_notsent_lowat(int fd);
int tp_sock_connect(tp_channel *ch);
int tp_sock_bind(tp_server *s);
int tp_sock_local_ip(int fd, char *ip, size_t cap);
/* The peer's address as text and its port. 0, or -1 (ip "?"). */
int tp_sock_peer(int fd, char *ip, size_t cap, uint16_t *port);

/* tp_shm.c (the segment, server and client) and tp_shm_io.c (reading and writing) */
int tp_shm_bind(tp_server *s);
int tp_shm_accept(tp_server *s, tp_channel **out);
void tp_shm_server_close(tp_server *s);
int tp_shm_connect(tp_channel *ch);
int tp_shm_init(tp_channel *ch);
int tp_shm_read(tp_channel *ch, tp_msg *msg);
/* tp_read_batch() of a shared-memory channel: the messages of the slots copied by one refill
 * (a refill only when the last copy is used up, before the first message), pings skipped and
 * counted. Returns n or what tp_shm_read() fails with. */
int tp_shm_read_batch(tp_channel *ch, tp_msg *msgs, int max, bool *more);
int tp_shm_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out);
int tp_shm_write(tp_channel *ch, tp_buf *b, unsigned flags);
/* tp_run_get() and tp_run_write() on a shared-memory channel (see tp.h and tp_shm_io.c). */
int tp_shm_run_get(tp_channel *ch, uint32_t size, uint32_t want, tp_run *run);
int tp_shm_run_write(tp_channel *ch, tp_run *run, uint32_t k);
int tp_shm_release(tp_channel *ch, tp_buf *b);
int tp_shm_flush(tp_channel *ch);
int tp_shm_ping(tp_channel *ch);
void tp_shm_close(tp_channel *ch);
void tp_shm_info(const tp_channel *ch, tp_info *out);

/* The high-water mark of ch: the one asked for (bytes, 0 = the default of its connection
 * type: TP_TLS_DEFAULT_HWM when encrypted, else TP_DEFAULT_HWM), at most INT_MAX. */
static inline size_t tp_hwm_for(const tp_channel *ch, uint32_t bytes)
{
    if (bytes == 0)
        return ch->o.conn_type == TP_CONN_ENCRYPTED ? TP_TLS_DEFAULT_HWM : TP_DEFAULT_HWM;
    return bytes > INT_MAX ? INT_MAX : bytes;
}

static inline uint32_t tp_get16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t tp_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void tp_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void tp_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#endif
