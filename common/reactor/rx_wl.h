/*
 * rx_wl: the consumer watchlist (internal to the layer; the tool sees it through rx.h).
 *
 * Streams: the tool's requests (wl_req, keyed by the tool's stream id) hang on wire streams
 * (wl_stream, keyed by the wire stream id the watchlist chose). Identical streaming requests
 * (same domain, service, key, QoS; not private) share one wire stream: a request that joins an
 * open stream makes the watchlist ask the provider for a new refresh on that stream, which only
 * the requests waiting for one receive; updates go to every request that has its refresh.
 *
 * Wire stream ids: a counter that starts at 3 and is incremented before use, so the first stream
 * is 4; ids in use are skipped and the counter wraps to 3 after 0x7FFFFFFF (login is 1, the
 * directory 2). A stream requested again after a reconnect, a service that came back or a
 * request timeout gets a new id.
 *
 * A stream is "pending" while it cannot be on the wire (no login yet, its service unknown, down,
 * or not accepting requests); it is requested as soon as it can be. When the channel is lost,
 * or the service goes down, every request gets an Open/Suspect status and its stream becomes
 * pending again; the new refresh follows when it is requested again.
 */
#ifndef RWFPERF_RX_WL_H
#define RWFPERF_RX_WL_H

#include "rx_int.h"
#include "rx_map.h"

#define RX_WL_MAX_SERVICES 64
#define RX_WL_MAX_ACKS 16384
#define RX_WL_LOGIN_STREAM 1
#define RX_WL_DIRECTORY_STREAM 2
#define RX_WL_DIRECTORY_FILTER 0x3F

typedef struct wl_stream wl_stream;

typedef struct wl_req {
    int32_t app_id;
    wl_stream *s;
    struct wl_req *next; /* the stream's requests */
    bool want_refresh;   /* waits for a (solicited) refresh */
} wl_req;

struct wl_stream {
    int32_t wire_id; /* 0 while pending */
    uint32_t nreqs;  /* (first: what an update needs is on one cache line) */
    wl_req *reqs;
    uint8_t domain;
    bool streaming, private_stream, aggregatable;
    bool refresh_pending; /* a solicited refresh is expected */
    bool ever_refreshed;
    bool has_qos, has_worst_qos, has_priority;
    rwf_qos qos, worst_qos;
    uint8_t priority_class;
    uint16_t priority_count;
    uint16_t req_flags; /* the request's flags as the tool gave them (no NO_REFRESH, PAUSE) */
    uint8_t container_type;
    rwf_key key;      /* name, attrib point into data[] */
    rwf_buf ext, pay; /* extended header and payload of the request, in data[] */
    uint32_t hash;
    wl_stream *hnext;         /* key hash chain */
    int64_t deadline;         /* request timeout */
    wl_stream *tprev, *tnext; /* the timeout list */
    wl_stream *pprev, *pnext; /* the pending list */
    wl_stream *aprev, *anext; /* every stream, oldest first */
    bool in_timers, in_pending;
    uint8_t data[]; /* name, attrib, ext, pay */
};

typedef struct wl_service {
    bool present;
    uint16_t id;
    bool up; /* ServiceState 1 and AcceptingRequests absent or 1 */
    bool has_qos;
    rwf_qos qos;
} wl_service;

typedef struct wl_ack {
    int32_t wire_id, app_id;
    uint32_t post_id;
    uint8_t domain;
    bool live;
    int64_t deadline;
} wl_ack;

struct rx_wl {
    rx_map app;  /* tool stream id -> wl_req */
    rx_map wire; /* wire stream id -> wl_stream */
    wl_stream **bucket;
    uint32_t nbucket, nagg;
    int32_t next_id;
    bool logged_in; /* the login stream is open in this session */
    bool dir_sent;
    wl_service svc[RX_WL_MAX_SERVICES];
    wl_stream *thead, *ttail;   /* streams waiting for their refresh, oldest first */
    wl_stream *pending, *ptail; /* streams that cannot be requested now, oldest first */
    wl_stream *all, *atail;     /* every stream, oldest first */
    int32_t *ids;               /* delivery scratch: the tool ids of one stream */
    uint32_t ids_cap;
    bool resend; /* pending streams could go but the ring was full */
    uint32_t nstreams, npending;
    wl_ack *acks; /* FIFO of posts that asked for an ack */
    uint32_t ack_head, ack_tail;
    uint64_t unknown_seen;
};

/* ---- rx_wl.c: state and inbound ------------------------------------------------------------- */

int rx_wl_new(rx_chan *ch);
void rx_wl_free(rx_chan *ch);
int rx_wl_up(rx_chan *ch);
int rx_wl_down(rx_chan *ch, bool reconnecting, const char *why);
int rx_wl_msg(rx_chan *ch, rwf_msg *m);

/* The next wire stream id (3 pre-incremented, ids in use skipped, wrap after 0x7FFFFFFF). */
int32_t wl_next_id(rx_wl *wl);

/* True when s can be requested now: channel up, logged in, its service up. */
bool wl_can_go(rx_chan *ch, const wl_stream *s);

/* Removes s from every list and map and frees it with its requests. */
void wl_stream_free(rx_wl *wl, wl_stream *s);

/* Takes s off the wire (its id forgotten) and makes it pending; its requests wait for a new
 * refresh. */
void wl_stream_unwire(rx_wl *wl, wl_stream *s);

/* Delivers a made-up status (stream state, data state, code, text) to every request of s. */
int wl_status_all(rx_chan *ch, wl_stream *s, uint8_t stream_state, uint8_t data_state, uint8_t code,
                  const char *text);

/* The service of id, or NULL when unknown. */
wl_service *wl_service_find(rx_wl *wl, uint16_t id);

/* ---- rx_wsb.c: warm standby --------------------------------------------------------------- */

/* After the login refresh opened the session: ConsumerConnectionStatus (login based). Returns 0
 * or -1. */
int rx_wsb_after_login(rx_chan *ch);

/* After a directory message was applied: ConsumerStatus per service (service based, refresh).
 * Returns 0 or -1. */
int rx_wsb_after_directory(rx_chan *ch, const rwf_msg *m);

/* ---- rx_wl_out.c: submitting, requesting, timers ------------------------------------------ */

int rx_wl_submit(rx_chan *ch, rx_buf *b, unsigned flags);
int rx_wl_timers(rx_chan *ch, int64_t now);
int64_t rx_wl_next_timer(rx_chan *ch);

/* Sends every pending stream that can go now. Returns 0 or a callback's negative value. */
int wl_send_pending(rx_chan *ch);

/* Requests stream s on a new wire id now (the caller checked it can go). Returns 0, 1 when the
 * ring had no room (s stays pending), or -1. */
int wl_request(rx_chan *ch, wl_stream *s, bool no_refresh);

/* Sends a close of the wire stream wire_id in domain. Returns rx_out_msg's status. */
int wl_close_wire(rx_chan *ch, uint8_t domain, int32_t wire_id);

/* Unlinks s from the doubly-linked list whose ends are head and tail, through its link fields
 * prev and next (the all-streams, pending and timer lists). */
#define WL_UNLINK(s, head, tail, prev, next)                                                       \
    do {                                                                                           \
        if ((s)->prev)                                                                             \
            (s)->prev->next = (s)->next;                                                           \
        else                                                                                       \
            (head) = (s)->next;                                                                    \
        if ((s)->next)                                                                             \
            (s)->next->prev = (s)->prev;                                                           \
        else                                                                                       \
            (tail) = (s)->prev;                                                                    \
    } while (0)

/* Pending list and timers. */
void wl_pending_add(rx_wl *wl, wl_stream *s);
void wl_pending_remove(rx_wl *wl, wl_stream *s);
void wl_timer_remove(rx_wl *wl, wl_stream *s);

/* NAKs every post waiting for an ack (the connection was lost). */
int wl_acks_fail(rx_chan *ch, const char *text);

/* The wire stream id of the tool's stream app_id (0: none yet). */
int32_t rx_wl_wire_id(rx_chan *ch, int32_t app_id);

/* Forgets the tool's request app_id without a close on the wire (the stream is gone there:
 * a tunnel stream that ended). */
void rx_wl_forget(rx_chan *ch, int32_t app_id);

/* Finds (and forgets) the post of an ack: returns the tool's stream id, or 0. */
int32_t wl_ack_take(rx_wl *wl, int32_t wire_id, uint32_t post_id);

#endif
