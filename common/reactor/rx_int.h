/*
 * rx internals: the reactor and channel structures shared by the layer's files.
 *
 * Who writes what (see rx.h for the model):
 *   - rx_reactor.in: the worker produces (received messages, channel events), the
 *     application consumes (rx_dispatch);
 *   - rx_reactor.cmd: the application produces (open, close, "channel has output"), the
 *     worker consumes;
 *   - rx_chan.out: the application produces (messages to send), the worker consumes;
 *   - rx_chan.w: the worker only; rx_chan.a, rx_reactor's application fields: the application
 *     only; the few fields both read are atomics (sleep flags, flush request, counters).
 * A channel's memory is freed by the application only after the worker said it is done with
 * it (the RX_IN_CLOSED record, the last the worker ever writes about the channel).
 */
#ifndef RWFPERF_RX_INT_H
#define RWFPERF_RX_INT_H

#include "rjs.h"
#include "rx.h"
#include "rx_ring.h"

#include <pthread.h>
#include <stdatomic.h>

/* Inbound record types (worker -> application). */
enum {
    RX_IN_MSG = 1,     /* payload: one RWF message */
    RX_IN_BIG,         /* ptr: heap copy of a message too large for the ring (len bytes) */
    RX_IN_UP,          /* payload: rx_up */
    RX_IN_DOWN,        /* payload: the reason (text) */
    RX_IN_DOWN_RECONN, /* payload: the reason (text) */
    RX_IN_WARNING,     /* payload: text */
    RX_IN_CLOSED,      /* the worker is done with the channel */
};

/* Outbound record types (application -> worker). */
enum {
    RX_OUT_MSG = 1, /* payload: one message */
    RX_OUT_PACKED,  /* payload: [u16 length][message]... */
    RX_OUT_BIG,     /* ptr: heap buffer of len bytes holding one message (freed by the worker) */
};

/* Command record types (application -> worker); ptr is the channel. */
enum {
    RX_CMD_OPEN = 1, /* start connecting, or adopt the accepted channel */
    RX_CMD_CLOSE,    /* send what is queued, close, answer RX_IN_CLOSED */
    RX_CMD_WAKE,     /* the channel's outbound ring has records */
    RX_CMD_STOP,     /* close everything and end the thread */
};

typedef struct rx_up {
    tp_info info;
    int fd;
} rx_up;

/* Worker-side channel states. */
enum { RXW_NEW, RXW_CONNECTING, RXW_ACTIVE, RXW_RETRY, RXW_DEAD };

/* Application-side channel states. */
enum { RXA_NEW, RXA_UP, RXA_DOWN, RXA_CLOSING };

/* Consumer session steps (application side). */
enum { RXS_NONE, RXS_LOGIN, RXS_DIRECTORY, RXS_DICTIONARY, RXS_READY };

#define RX_TEXT_MAX 256

typedef struct rx_wside {
    tp_channel *tp;
    int state; /* RXW_* */
    int fd;    /* registered with epoll, -1 when none */
    uint32_t events;
    uint32_t epoch;   /* session number, + 1 at each UP */
    int attempts;     /* failed attempts since the last UP */
    int64_t retry_at; /* RXW_RETRY: when to connect again */
    bool in_blocked;  /* pend waits for inbound-ring room */
    tp_msg pend;
    bool more_input; /* the transport holds complete input not read yet */
    bool out_wait;   /* the transport's output is full: waiting for POLLOUT */
    bool queued;     /* bytes queued in the transport */
    tp_buf *frag;    /* a fragmented message the transport took in part (TP_ECALLAGAIN) */
    unsigned frag_flags;
    bool closing;   /* RX_CMD_CLOSE received: finish output, then close */
    bool finished;  /* closed for good; RX_IN_CLOSED sent or waiting to be */
    int ev_pending; /* RX_IN_* event that could not be pushed yet (0: none) */
    char ev_text[RX_TEXT_MAX];
    int64_t ev_ns; /* when the event in ev_text happened (clk_ns) */
    int slot;      /* index in the worker's channel table */
    /* rssl.json.v2 (rx_json.c) */
    bool json;     /* this session's sub-protocol is rssl.json.v2: converted at the edge */
    bool jr_open;  /* a received frame is being read (jr) */
    rjs_reader jr; /* the frame's messages */
    uint8_t *jrwf; /* one received message as RWF (pend may point here) */
    uint32_t jrwf_cap;
} rx_wside;

typedef struct rx_wl rx_wl;
typedef struct rx_tun_set rx_tun_set;

typedef struct rx_aside {
    int state; /* RXA_* */
    uint32_t epoch;
    rx_up up;
    bool have_info;
    rx_buf buf;
    bool buf_open;
    bool closed_by_app; /* rx_close() called: drop the channel's records */
    int sess;           /* RXS_* */
    unsigned dict_have; /* 1 fields, 2 enums (consumer download) */
    uint16_t dict_service;
    uint8_t *login_req; /* encoded login request (consumer, NI provider) */
    uint32_t login_len;
    uint8_t *dir_refresh; /* encoded directory refresh (NI provider) */
    uint32_t dir_refresh_len;
    rwf_service *svc; /* directory decode scratch (consumer) */
    rx_wl *wl;
    rx_tun_set *tun; /* the channel's tunnel streams (rx_tun_int.h), NULL when none */
    uint64_t unknown_stream, req_timeouts, acks_untracked, ack_timeouts;
    bool wsb_standby;      /* warm standby: the role given to the server (rx_wsb.c) */
    int64_t ev_ns;         /* when the worker saw the last channel event with a text (clk_ns) */
    bool wsb_lost_standby; /* warm standby: the role of the server when its connection was
                            * lost (before the tool's channel callback may change it) */
} rx_aside;

struct rx_chan {
    rx_reactor *r;
    rx_role role; /* pointers cleared after rx_connect/rx_accept */
    void *user;
    rx_ring out;
    _Atomic int flush_req; /* a RX_CMD_WAKE is on its way or being handled */
    /* connection settings (the worker reads them) */
    tp_opts tp;
    char host[256], port[64], iface[256];
    int reconnect_limit, reconnect_min_ms, reconnect_max_ms;
    uint32_t hwm;
    tp_channel *accepted; /* provider: taken over by the worker at RX_CMD_OPEN */
    /* The two threads' parts on cache lines of their own (no false sharing per message). */
    _Alignas(64) rx_wside w;
    _Alignas(64) rx_aside a;
    /* counters the worker writes (relaxed) */
    _Alignas(64) _Atomic uint64_t msgs_read, msgs_written, out_dropped, connects, reconnects,
        warnings_lost;
    rx_chan *next, *prev; /* the application's list of the reactor's channels */
};

struct rx_reactor {
    rx_ring in;
    rx_ring cmd;
    int app_efd, worker_efd, epfd;
    _Alignas(64) _Atomic int app_sleep;    /* the application blocks (or is about to) on app_efd */
    _Alignas(64) _Atomic int worker_sleep; /* the worker blocks (or is about to) in epoll_wait */
    _Alignas(64) _Atomic int in_full;      /* the worker waits for inbound-ring room */
    pthread_t tid;
    bool started;
    cpu_entry cpu;
    bool bind;
    _Atomic int start_state; /* 0 starting, 1 running, -1 failed (start_err) */
    char start_err[256];
    uint32_t max_channels;
    /* application side */
    _Alignas(64) rx_chan *chans;
    unsigned nchans;
    uint8_t *scratch; /* encode scratch (RX_SCRATCH bytes) */
    bool in_dispatch;
    bool stopped; /* the worker has ended: the application may empty the outbound rings */
    /* worker side */
    _Alignas(64) rx_chan **wch; /* max_channels slots */
    const rjs_conv *json;       /* rssl.json.v2 channels' converter (rx_opts.json) */
    unsigned wn;
    int64_t next_tick;
    bool no_pwait2; /* the kernel lacks epoll_pwait2 (before 5.11): wait in whole milliseconds */
};

#define RX_SCRATCH 65536
#define RX_TICK_NS (100 * 1000000LL)

/* ---- rx_core.c: shared helpers --------------------------------------------------------- */

/* Application: wakes the worker if it sleeps. */
void rx_wake_worker(rx_reactor *r);

/* Application: hands the channel's committed records to the worker (publish + wake). */
void rx_chan_publish(rx_chan *ch);

/* Application: pushes a command; returns 0, or -1 when the command ring is full (err_msg()). */
int rx_cmd(rx_reactor *r, int op, rx_chan *ch);

/* Application: writes an already encoded message of len bytes to the channel's ring (layer
 * messages: login, directory, re-requests). Returns 0, TP_ENOBUFS or TP_EINVAL. */
int rx_out_bytes(rx_chan *ch, const void *data, uint32_t len);

/* Application: encodes m with the scratch and writes it like rx_out_bytes. */
int rx_out_msg(rx_chan *ch, const rwf_msg *m);

/* Application: delivers a made-up channel event or message to the tool (used by the
 * watchlist). */
int rx_deliver_msg(rx_chan *ch, const rwf_msg *m);

/* ---- rx_worker.c ---------------------------------------------------------------------- */

void *rx_worker_main(void *arg);

/* Worker: pushes a received RWF message to the inbound ring (one too large travels as a heap
 * copy). Returns false when the ring has no room now (the worker is told when it has). */
bool rx_push_msg(rx_reactor *r, rx_chan *ch, const tp_msg *m);

/* Worker: pushes a warning about ch (counted as lost when the ring is full). */
void rx_push_warning(rx_reactor *r, rx_chan *ch, const char *text);

/* What writing one outbound record into the transport came to. */
enum { RX_WR_DONE, RX_WR_BLOCKED, RX_WR_TAKEN_BLOCKED, RX_WR_FAILED, RX_WR_REFUSED };

/* ---- rx_json.c: rssl.json.v2 channels (worker) ------------------------------------------ */

/* A session starts: notes whether it speaks rssl.json.v2 and makes the channel's scratch the
 * first time. Returns 0, or -1 (no converter, no memory: err_msg()). */
int rx_json_up(rx_reactor *r, rx_chan *ch);

/* Frees the channel's JSON scratch. */
void rx_json_free(rx_chan *ch);

/* Starts reading the messages of a received text frame (valid until the next tp_read). */
void rx_json_frame(rx_chan *ch, const tp_msg *frame);

/* Converts and pushes the open frame's remaining messages, adding them to *n. Returns 1 when
 * the frame is done, 0 when the inbound ring is full (pend and in_blocked set, the frame stays
 * open), -1 when the channel failed (err_msg()). */
int rx_json_read(rx_reactor *r, rx_chan *ch, uint64_t *n);

/* Converts an outbound record to JSON in a transport buffer (*out), counting its messages in
 * *count. Returns RX_WR_DONE, RX_WR_BLOCKED (no buffer now), RX_WR_REFUSED (no JSON form:
 * err_msg()) or RX_WR_FAILED. */
int rx_json_fill(rx_reactor *r, rx_chan *ch, const rx_rec *rec, tp_buf **out, uint64_t *count);

/* ---- rx_session.c: what the layer does by itself per role ------------------------------ */

/* Encodes what the role sends by itself (login, directory refresh). Returns 0 or -1. */
int rx_session_prepare(rx_chan *ch, const rx_role *role);
void rx_session_free(rx_chan *ch);

/* The channel came up (record dispatched): starts the role's exchange. */
int rx_session_up(rx_chan *ch);

/* The channel went down (reconnecting or for good). */
int rx_session_down(rx_chan *ch, bool reconnecting, const char *why);

/* One received message (decoded) for the role. */
int rx_session_msg(rx_chan *ch, rwf_msg *m);

/* Runs the role's timers (watchlist). now in ns. */
int rx_session_timers(rx_chan *ch, int64_t now);

/* The earliest time a role timer is due (INT64_MAX: none). */
int64_t rx_session_next_timer(rx_chan *ch);

/* The tool submits the message in b (watchlist mapping). Returns as rx_submit. */
int rx_session_submit(rx_chan *ch, rx_buf *b, unsigned flags);

/* Adds the watchlist's counts to *s. */
void rx_wl_stats(const rx_chan *ch, rx_stats *s);

/* ---- rx_buf.c ------------------------------------------------------------------------------ */

/* Commits the message in the open buffer b as it is (no watchlist processing): len bytes at
 * b's start (unpacked). Returns as rx_submit. */
int rx_buf_commit(rx_chan *ch, rx_buf *b, unsigned flags);

#endif
