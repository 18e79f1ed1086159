/*
 * rx: the event-driven layer (the "reactor") between the transport and the tools.
 *
 * A reactor owns channels and runs one worker thread. The worker does all the I/O of its
 * channels: it connects (and reconnects with back-off), runs the RIPC handshake, reads,
 * writes, flushes, sends pings and watches the ping timeout. The application thread (the one
 * that created the reactor) never touches a socket: it calls rx_dispatch(), which hands each
 * event to a callback of the tool (channel up/ready/down, login, directory, dictionary and
 * item messages), and writes messages into buffers that the worker sends.
 *
 * Between the two threads there are only single-producer single-consumer rings (worker ->
 * application: received messages and channel events; application -> worker: one ring of
 * messages per channel, and a ring of commands), so the hand-over takes no lock and, once a
 * channel is up, allocates nothing. Everything is bounded: a full inbound ring stops the
 * worker reading (TCP pushes back on the peer), a full outbound ring makes rx_get_buffer()
 * return TP_ENOBUFS (the tool counts it as it counts the transport's "out of buffers").
 *
 *     rx_reactor *r;  rx_create(&opts, &r);
 *     rx_connect(r, &conn, &role, tool_ptr, &ch);       // consumer: login, directory... by itself
 *     for (;;) {
 *         rx_wait(r, ns_to_next_tick);                     // sleeps until events or the timeout
 *         while (rx_dispatch(r, 256) > 0) {}               // callbacks run here
 *         ... on a tick: rx_get_buffer / encode / rx_submit, then rx_flush
 *     }
 *     rx_destroy(r);
 *
 * Roles (who the channel is for, and what the layer does on it by itself):
 *   - consumer: sends the login request when the channel comes up, the directory request when
 *     the login is accepted, the dictionary requests (if asked) when the directory names a
 *     service that provides them, and reports RX_CHANNEL_READY when all that is done. On loss
 *     it reconnects with back-off (RX_CHANNEL_DOWN_RECONNECTING, then RX_CHANNEL_UP again) and
 *     runs login and directory again.
 *   - consumer with the watchlist: in addition, the tool's stream ids are its own and the
 *     watchlist puts its own ids on the wire, aggregates identical item requests on one wire
 *     stream, holds requests until their service is up, and after a reconnect (or a service
 *     that went down and came back) requests every open item again: the tool sees an
 *     Open/Suspect status, then the new refresh. RX_CHANNEL_READY comes at once.
 *   - provider (a channel accepted from a tp_server): hands the consumer's login, directory,
 *     dictionary and other messages to the callbacks; the tool answers with rx_submit.
 *   - non-interactive provider: connects, sends the login request, and the directory refresh
 *     it was given once the login is accepted; reconnects like a consumer.
 *
 * Errors: functions return 0 (or a count) on success and a negative TP_E* code (tp.h) or -1 on
 * failure with err_msg() set. Callbacks return 0, or a negative value to stop rx_dispatch(),
 * which then returns that value (the tool's error text stays in err_msg()).
 *
 * Threads: every function here is called from the application thread, except that
 * rx_create()'s caller is the application thread from then on. Different reactors are
 * independent.
 */
#ifndef RWFPERF_RX_H
#define RWFPERF_RX_H

#include "cpu.h"
#include "rjs.h"
#include "rwf_msg.h"
#include "rwf_rdm.h"
#include "tp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rx_reactor rx_reactor;
typedef struct rx_chan rx_chan;
typedef struct rx_tunnel_request rx_tunnel_request; /* rx_tunnel.h */

/* ---- the reactor ------------------------------------------------------------------------ */

typedef struct rx_opts {
    const cpu_entry *worker_cpu; /* where to bind the worker thread (copied); NULL: unbound */
    uint32_t in_ring_bytes;      /* worker -> application ring; 0: 4 MiB (rounded to 2^n) */
    uint32_t max_channels;       /* channels open at once; 0: 1024 */
    const rjs_conv *json;        /* rssl.json.v2 WebSocket channels: the RWF <-> JSON converter
                                  * (shared read-only, must outlive the reactor); NULL: such a
                                  * channel fails when it comes up */
} rx_opts;

/* Fills the defaults. */
void rx_opts_init(rx_opts *o);

/* Creates a reactor and starts its worker (bound as o says). Returns 0 and *out, or -1 with
 * err_msg() set (no memory, the thread could not start or be bound). */
int rx_create(const rx_opts *o, rx_reactor **out);

/* Closes every channel (no events are delivered), stops and joins the worker, frees
 * everything. NULL is allowed. */
void rx_destroy(rx_reactor *r);

/* Waits until the reactor has events to dispatch or timeout_ns passes (< 0: no limit); what
 * the tool submitted is handed to the worker before sleeping. Returns 1 when events are
 * pending, 0 on timeout, -1 when a signal interrupted the wait (errno EINTR). */
int rx_wait(rx_reactor *r, int64_t timeout_ns);

/* Handles up to max pending events, calling the callbacks, and runs the watchlist's timers.
 * Returns the number handled (0: none pending), or the negative value a callback returned,
 * or -1 on an internal failure (err_msg() set). */
int rx_dispatch(rx_reactor *r, unsigned max);

/* rx_wait that also wakes when descriptor fd (>= 0) is readable (a tool's own eventfd, a
 * server socket). Returns a combination of RX_WAIT_EVENTS (events are pending) and RX_WAIT_FD
 * (fd is readable), 0 on timeout, -1 when a signal interrupted the wait (errno EINTR). */
enum { RX_WAIT_EVENTS = 1, RX_WAIT_FD = 2 };
int rx_wait_fd(rx_reactor *r, int64_t timeout_ns, int fd);

/* ---- channels --------------------------------------------------------------------------- */

typedef enum rx_event {
    RX_CHANNEL_UP = 1,            /* the connection is active: rx_info() describes it */
    RX_CHANNEL_READY,             /* item traffic may start */
    RX_CHANNEL_DOWN_RECONNECTING, /* lost or refused (text says why); the layer reconnects */
    RX_CHANNEL_DOWN,              /* lost for good (text); closed after the callback returns */
    RX_CHANNEL_WARNING,           /* something was dropped or refused (text); nothing closed */
} rx_event;

/* Callbacks of a channel's role. m is valid during the call only (a view into the reactor's
 * ring). For a watchlist channel, m->stream_id (and the stream id in m->encoded) is the
 * tool's stream id. Any callback may be NULL: its messages go to on_msg (or are ignored). */
typedef struct rx_callbacks {
    /* Channel events; text is NULL for UP and READY. */
    int (*on_channel)(rx_chan *ch, rx_event ev, const char *text);
    /* Login domain; l is the decoded message, NULL when it could not be decoded (err_msg()). */
    int (*on_login)(rx_chan *ch, const rwf_msg *m, const rwf_login *l);
    /* Source directory; consumer: svc[0..n) are the services of a refresh or update (n = 0 and
     * svc NULL for a status, or when undecodable: err_msg()); provider: svc is NULL. */
    int (*on_directory)(rx_chan *ch, const rwf_msg *m, const rwf_service *svc, unsigned n);
    /* Dictionary domain. */
    int (*on_dictionary)(rx_chan *ch, const rwf_msg *m);
    /* Every other message (items, posts, generic messages, acks...). */
    int (*on_msg)(rx_chan *ch, const rwf_msg *m);
    /* Provider: a consumer's tunnel stream request (a request with QUALIFIED_STREAM); answer
     * it with rx_tunnel_accept or rx_tunnel_reject during the call (rx_tunnel.h). NULL: such
     * requests go to on_msg like any other. */
    int (*on_tunnel_request)(rx_chan *ch, rx_tunnel_request *req);
} rx_callbacks;

/* Connection settings of a consumer or non-interactive provider channel. */
typedef struct rx_conn_opts {
    tp_opts tp;               /* as for tp_connect: socket or WebSocket, in the clear or TLS.
                               * host, port, interface are copied; the TLS strings
                               * (tls_ca_store, tls_ciphers) are read at every connect and
                               * must outlive the channel */
    int reconnect_limit;      /* attempts after a loss or a failed connect: -1 no limit, 0 none */
    int reconnect_min_ms;     /* first delay (1000); doubles per attempt ... */
    int reconnect_max_ms;     /* ... up to this (5000) */
    uint32_t high_water_mark; /* set on the channel when it comes up (0: the transport's) */
    uint32_t out_ring_bytes;  /* application -> worker ring; 0: 2 MiB (rounded to 2^n) */
} rx_conn_opts;

void rx_conn_opts_init(rx_conn_opts *o);

enum { /* rx_role.kind */
       RX_ROLE_CONSUMER = 1,
       RX_ROLE_PROVIDER,
       RX_ROLE_NIPROVIDER,
};

/* What the layer does on a channel by itself. Pointers are read by rx_connect/rx_accept only
 * (what the layer sends is encoded and kept there). */
typedef struct rx_role {
    int kind; /* RX_ROLE_* */
    rx_callbacks cb;
    /* consumer, non-interactive provider: the login request sent when the channel is up */
    const rwf_login *login;
    /* consumer: the directory request (stream 2) once logged in, with this filter */
    bool directory;
    uint32_t directory_filter;
    /* consumer without watchlist: download RWFFld (stream 3) and RWFEnum (stream 4) from the
     * first service that provides them, before RX_CHANNEL_READY */
    bool dictionary_download;
    /* consumer: use the watchlist (the directory request then asks for filter 0x3F) */
    bool watchlist;
    int request_timeout_ms;  /* watchlist: re-request an item without refresh after this (15000;
                              * 0 never) */
    int post_ack_timeout_ms; /* watchlist: a post that asked for an ack gets a NAK after this
                              * (15000; 0 never) */
    /* consumer with watchlist: warm standby (RX_WSB_*; 0 none). Login based: right after the
     * login refresh (before the directory request) the layer sends ConsumerConnectionStatus
     * with the channel's role; service based: after each directory refresh, ConsumerStatus
     * for each service of the directory. wsb_standby: the role at the start (false: active);
     * rx_wsb_set_role changes it. When the connection is lost (reconnecting or for good),
     * right after the RX_CHANNEL_DOWN* event every item request on the wire gets an
     * Open/Suspect status (code none) whose text names the role the server had then
     * ("...the active server was lost." / "...the standby server was lost."): the tool
     * promotes the standby in the event, then counts the items' statuses. */
    int wsb_mode;
    bool wsb_standby;
    /* non-interactive provider: the directory refresh sent once logged in */
    const rwf_directory *directory_refresh;
} rx_role;

enum { /* rx_role.wsb_mode */
       RX_WSB_LOGIN = 1,
       RX_WSB_SERVICE = 2,
};

/* Fills the defaults of a role of the given kind (consumer: directory request filter 0x07,
 * timeouts 15000 ms). */
void rx_role_init(rx_role *role, int kind);

/* Opens a consumer or non-interactive provider channel: the worker connects in the
 * background; the callbacks report what happens. user is the tool's pointer (rx_user()).
 * Returns 0 and *out (valid until RX_CHANNEL_DOWN has been dispatched or rx_close()), or -1
 * (err_msg(): bad options, too many channels, no memory). */
int rx_connect(rx_reactor *r, const rx_conn_opts *o, const rx_role *role, void *user,
               rx_chan **out);

/* Takes over ch, a channel tp_accept() returned (still in its handshake), as a provider
 * channel; high_water_mark and out_ring_bytes as in rx_conn_opts. Returns 0 and *out, or -1
 * (ch is closed then). */
int rx_accept(rx_reactor *r, tp_channel *ch, uint32_t high_water_mark, uint32_t out_ring_bytes,
              const rx_role *role, void *user, rx_chan **out);

/* Closes a channel: the worker sends what was submitted, then closes it. No further event of
 * ch is delivered and ch must not be used after the call. Returns 0. */
int rx_close(rx_chan *ch);

void *rx_user(const rx_chan *ch);

/* The channel's details when it came up (last RX_CHANNEL_UP); NULL before. */
const tp_info *rx_info(const rx_chan *ch);

/* The channel's descriptor when it came up (for the tools' "Channel N active" lines). */
int rx_chan_fd(const rx_chan *ch);

/* Writes to f the lines the ETA tools print for a channel's trouble: on RX_CHANNEL_WARNING
 * "Received warning for Channel fd=<fd>.", then "\tError text: <text>" and a blank line; on
 * RX_CHANNEL_DOWN_RECONNECTING "Connection down, reconnecting.  Channel fd=<fd>", on
 * RX_CHANNEL_DOWN "Connection down: Channel fd=<fd>.", each followed by the error text and a
 * blank line when text is not empty. Other events write nothing; f is not flushed. */
void rx_print_event(FILE *f, const rx_chan *ch, rx_event ev, const char *text);

/* True between RX_CHANNEL_UP and the next RX_CHANNEL_DOWN*. */
bool rx_is_up(const rx_chan *ch);

/* When the worker saw the channel's last RX_CHANNEL_DOWN, RX_CHANNEL_DOWN_RECONNECTING or
 * RX_CHANNEL_WARNING happen (clk_ns(), the same clock on every thread): the moment a loss or
 * a failed connection attempt was detected, not the later moment the event was dispatched.
 * 0 before the first such event. */
int64_t rx_event_ns(const rx_chan *ch);

/* Warm standby: gives the channel's server its role (standby false: active). Sent now when
 * the channel is logged in (login based) or knows services (service based), and after every
 * reconnect. Returns 0, or -1 (err_msg(): not a warm-standby channel, the ring is full). */
int rx_wsb_set_role(rx_chan *ch, bool standby);

/* The role last given by rx_wsb_set_role (or the role's wsb_standby). */
bool rx_wsb_is_standby(const rx_chan *ch);

/* ---- writing ---------------------------------------------------------------------------- */

/* A buffer to encode one message (or, packed, several) into: fill data[0..len) and set len to
 * the bytes used, as with tp_buf. A channel has at most one open buffer at a time, and it
 * must not stay open across rx_dispatch(). */
typedef struct rx_buf {
    uint8_t *data;
    uint32_t len;
    /* private */
    uint8_t *rec;   /* the ring record */
    uint8_t *entry; /* packed: the 2-byte length slot of the current message */
    uint32_t room;  /* bytes reserved after the record header */
    bool packed;
    bool big; /* heap memory (a message larger than the ring takes) */
} rx_buf;

/* Obtains a buffer for a message of up to size bytes (packed: room for several, as
 * tp_get_buffer). Returns 0 and *out; TP_ENOBUFS when the outbound ring has no room now (the
 * worker has not sent what is queued yet: back-pressure); TP_EFAIL when the channel is down
 * (not with the watchlist: requests and closes are kept until it is up again), TP_EINVAL when
 * a buffer is already open or packing is asked with the watchlist. */
int rx_get_buffer(rx_chan *ch, uint32_t size, bool packed, rx_buf **out);

/* Closes the current message of a packed buffer and opens room for the next (b->data and
 * b->len updated; b->len 0 when no room is left). Returns 0 or TP_EINVAL. */
int rx_pack(rx_chan *ch, rx_buf *b);

/* Queues the message(s) in b for the worker (TP_WRITE_* flags as for tp_write). With the
 * watchlist the message is given to it first (requests, closes, posts, generic messages are
 * mapped to wire streams). Returns the bytes queued and not yet handed to the worker (>= 0),
 * TP_ENOBUFS (the watchlist needed more room: b is released), TP_EINVAL (b is released; the
 * message was refused: err_msg() says why), or TP_EFAIL. The worker gets the queue when it
 * reaches the high-water mark, and on rx_flush(), rx_wait() and rx_dispatch(). */
int rx_submit(rx_chan *ch, rx_buf *b, unsigned flags);

/* Gives back an open buffer unsent. Returns 0 or TP_EINVAL. */
int rx_release(rx_chan *ch, rx_buf *b);

/* Encodes m and submits it (a convenience for messages that are not on a hot path). */
int rx_submit_msg(rx_chan *ch, const rwf_msg *m);

/* Hands what was submitted to the worker now. Returns 0. */
int rx_flush(rx_chan *ch);

/* ---- counters --------------------------------------------------------------------------- */

typedef struct rx_stats {
    uint64_t msgs_read;      /* messages the worker read */
    uint64_t msgs_written;   /* messages the worker wrote */
    uint64_t out_dropped;    /* submitted for a connection that was lost before they went out */
    uint64_t connects;       /* times the channel came up */
    uint64_t reconnects;     /* times it was lost and tried again */
    uint64_t unknown_stream; /* watchlist: messages for wire streams it never opened (dropped) */
    uint64_t warnings_lost;  /* warnings not delivered because the inbound ring was full */
    uint64_t req_timeouts;   /* watchlist: requests re-sent after the request timeout */
    uint64_t acks_untracked; /* watchlist: posts that asked for an ack while the table of
                              * pending acks was full (sent, not timed) */
    uint64_t ack_timeouts;   /* watchlist: NAKs made up for posts whose ack never came */
    uint32_t wl_streams;     /* watchlist: wire streams open */
    uint32_t wl_requests;    /* watchlist: the tool's requests open */
    uint32_t wl_pending;     /* watchlist: the tool's requests waiting for their service */
} rx_stats;

void rx_get_stats(const rx_chan *ch, rx_stats *out);

#endif
