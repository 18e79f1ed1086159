/*
 * The state of one consumer thread's session, private to the thread (thread.c runs it on the
 * session driver, cons_rx.c in the Reactor modes; send.c writes its requests, posts and generic
 * messages, admin.c handles the login, directory and dictionary streams). Only the worker
 * touches it.
 */
#ifndef RWFPERF_CONS_WORKER_H
#define RWFPERF_CONS_WORKER_H

#include "cons.h"
#include "run_drv.h"
#include "run_out.h"
#include "rx.h"
#include "run_json.h"
#include "tick.h"
#include "tp.h"

#include <stdbool.h>
#include <stdint.h>

/* Where an item is in its life (docs/tools.md#consperf). */
enum cons_item_state { CONS_ITEM_IDLE, CONS_ITEM_WAITING, CONS_ITEM_COMPLETE };

typedef struct cons_item {
    const item_def *def;
    uint8_t state;              /* cons_item_state */
    bool streaming;             /* requested with STREAMING (not a snapshot) */
    bool post;                  /* posts go to it once its image is in */
    bool generic;               /* requested as a private stream; generic messages go to it */
    uint16_t post_msg, gen_msg; /* next MsgData template, round robin per item */
} cons_item;

/* Bits of cons_worker.dict_have. */
#define CONS_HAVE_FIELDS 1u
#define CONS_HAVE_ENUMS 2u
#define CONS_HAVE_BOTH (CONS_HAVE_FIELDS | CONS_HAVE_ENUMS)

typedef struct cons_worker {
    cons_thread *t;
    const cons_run *run;
    const cons_config *cfg;
    run_drv drv;    /* the thread's loop: ticks, waiting, reading, failures (docs/driver.md) */
    tp_opts conn;   /* bare mode: the client's connection settings (run_conn_tp) */
    tp_channel *ch; /* the bare channel while it is up; NULL in the reactor modes */

    /* Reactor modes (-reactor, -watchlist): the thread's reactor and its channel. */
    bool reactor, watchlist;
    rx_reactor *rx;
    rx_chan *rch;
    bool rx_was_up; /* the Reactor's channel came up at least once */
    run_out out;    /* the channel's write path (ch or rch; JSON on a rssl.json.v2 channel) */

    /* Tunnel stream (-tunnel): item traffic goes inside it while it is open. */
    bool tunnel_supported; /* the service lists capability 127 */
    struct rx_tunnel *tun; /* opened (NULL: none, or it closed) */
    bool tun_open;         /* open: requests, posts, generic messages go inside */
    run_out tout;          /* the tunnel's write path while it is open (admin messages stay on
                            * the channel's) */

    /* Warm standby (cons_wsb.c): rch is the active server's channel, sby the other one. */
    int wsb;                  /* CONS_WSB_* in force (NONE: one channel) */
    rx_chan *sby;             /* the standby server's channel (NULL: none, or dropped) */
    rx_chan *wsb_start;       /* the starting server's channel (names the servers) */
    uint32_t sby_next;        /* items requested from the standby so far (list order) */
    int64_t wsb_last_ns;      /* when the last update from the active server came */
    int64_t wsb_lost_last_ns; /* at a switch: the lost server's last update */
    bool wsb_wait_first;      /* switched: waiting for the new active server's first update */
    rx_chan *wsb_lost;        /* the last active server lost: its items' statuses count */
    int64_t wsb_loss_ns;      /* when that loss was detected (the layer's worker, clk_ns) */

    /* Session */
    bool logged_in;    /* the first login response came */
    clksync cs;        /* the clock offset exchanges with the provider (bare mode) */
    bool have_service; /* -serviceName is up and accepting requests */
    uint16_t service_id;
    bool has_qos; /* the service advertised a QoS: requests carry the first */
    rwf_qos qos;
    const rwf_dict *dict; /* the run's, or own_dict once downloaded */
    rwf_dict *own_dict;   /* downloaded from the provider (when the files were absent) */
    unsigned dict_have;   /* CONS_HAVE_* */
    int dict_type[2];     /* rwf_rdm_dictionary_apply's part state: fields, enums */

    /* Items: item i is on stream CONS_ITEM_STREAM_START + i. */
    cons_item *items;
    uint32_t item_count;
    uint32_t next_request; /* the next item to request, in list order */
    uint32_t waiting;      /* requested, image not yet complete */
    uint32_t complete;     /* image complete */
    uint32_t *post_ring;   /* items to post to, round robin */
    uint32_t post_n, post_next;
    uint32_t *gen_ring; /* items to send generic messages to, round robin */
    uint32_t gen_n, gen_next;

    /* Time */
    tick tk;               /* the driver's schedule (run_drv_cfg.tk) */
    bool nano;             /* stamps in ns (-nanoTime), else us */
    int64_t unit_ns;       /* ns per stamp unit: 1 or 1000 */
    int64_t image_end_ns;  /* this thread's images all in (0: not yet) */
    int64_t steady_ns;     /* image_end_ns + -delaySteadyStateCalc */
    bool multi;            /* several threads: also classify against the run */
    int64_t run_end_ns;    /* every thread's images in (0: not yet) */
    int64_t run_steady_ns; /* run_end_ns + -delaySteadyStateCalc */
    uint64_t decode_sum;

    /* WebSocket JSON (json.c) */
    bool json;      /* the channel speaks rssl.json.v2 */
    bool native;    /* and its JSON is read and built natively (no -addConversionOverhead) */
    bool calc;      /* -calcRWFJSONConversionLatency on a rssl.rwf channel */
    bool told_post; /* "It is not supported to send JSON ..." printed for posts */
    bool told_gen;  /* ... and for generic messages */
    run_json jin;   /* received JSON converted to RWF */
    uint8_t *jout;  /* JSON channel: a message as RWF before its conversion; rssl.rwf with
                     * -calcRWFJSONConversionLatency: the JSON of a received message */
    uint32_t jout_cap;
} cons_worker;

struct cons_jmsg;

/* ---- thread.c ---------------------------------------------------------------------------- */

/* Records the worker's failure through its driver (run_drv_fail): err_msg() (with `what` as
 * context when not NULL) becomes the thread's error text, the thread is marked failed (its loop
 * ends) and the run is asked to stop. Returns -1 (RUN_DRV_FAILED). */
int cons_fail(cons_worker *w, const char *what);

/* Handles one received item message (stream >= 5) decoded from RWF: its view goes to the item
 * state machine (thread.c), which counts, decodes the payload, measures and follows the image
 * and the stream's state. Returns 0, or -1 after cons_fail(). */
int cons_on_item(cons_worker *w, const rwf_msg *m);

/* Handles one received RWF message (decoded here). Returns 0, or -1 after cons_fail(). */
int cons_on_rwf(cons_worker *w, const uint8_t *data, uint32_t len);

/* Handles an item message read natively from JSON (its stamps read with it): the same item
 * state machine as cons_on_item; t0 is when its reading began (0 unless -measureDecode).
 * Returns 0, or -1 after cons_fail(). */
int cons_on_jitem(cons_worker *w, const struct cons_jmsg *m, int64_t t0);

/* ---- json.c ------------------------------------------------------------------------------ */

/* The channel is active: notes whether it speaks JSON and prepares the conversion buffers.
 * Returns 0 or -1 (err_msg() set). */
int cons_json_start(cons_worker *w);

void cons_json_free(cons_worker *w);

/* A received text frame on a JSON channel. Returns 0, or -1 after cons_fail(). */
int cons_json_frame(cons_worker *w, const tp_msg *tm);

/* -calcRWFJSONConversionLatency: converts the received RWF message to JSON. 0 or -1. */
int cons_json_calc(cons_worker *w, rwf_buf rwf);

/* ---- send.c ------------------------------------------------------------------------------ */

/* Sets up w->out, the write path of the channel in use (w->ch bare, rssl.json.v2 when w->json;
 * else w->rch): called when the bare channel came up, and whenever w->rch is set. */
void cons_send_start(cons_worker *w);

/* The write path of item messages: the tunnel's while it is open, else the channel's. */
static inline run_out *cons_item_out(cons_worker *w)
{
    return w->tun_open ? &w->tout : &w->out;
}

/* Requests up to n more items in list order; stops early, without error, when the output
 * buffers run out. Returns 0 or -1 (err_msg() set). */
int cons_send_requests(cons_worker *w, uint64_t n);

/* Sends n posts round robin over the post items; latency_pos says which one carries
 * TIM_TRK_2 (lra value). Out of buffers: the rest is counted and dropped. Returns 0 or -1. */
int cons_send_posts(cons_worker *w, uint64_t n, int64_t latency_pos, int64_t sched_ns);

/* The same for generic messages (TIM_TRK_3). */
int cons_send_generics(cons_worker *w, uint64_t n, int64_t latency_pos, int64_t sched_ns);

/* Prints the approximate post and generic message sizes, as the ETA tools do. */
void cons_print_msg_sizes(cons_worker *w);

/* ---- admin.c ----------------------------------------------------------------------------- */

/* The login request's user name (-uname, else the login name) into user and its Position
 * ("<ip>/net") into pos. */
void cons_login_names(const cons_config *cfg, char user[256], char pos[64]);

/* Sends the login request (stream 1). Returns 0 or -1 (err_msg() set). */
int cons_send_login(cons_worker *w);

/* Handles a message of the login, directory or dictionary domain (sending the directory and
 * dictionary requests when their time comes; in the reactor modes the layer sends the directory
 * request, and with -reactor the dictionary requests too). Returns 0 or -1 (err_msg() set). */
int cons_on_admin(cons_worker *w, const rwf_msg *m);

/* Sends the next clock offset request (clksync.h), stamped as late as it can be, and flushes
 * it. Returns 0, or -1 (err_msg() set). */
int cons_send_clksync(cons_worker *w);

/* ---- thread.c: the tick's work, common to both modes ------------------------------------- */

/* Requests, posts and generic messages due at this tick, then a flush. Returns 0, or -1 after
 * cons_fail(). */
int cons_tick_sends(cons_worker *w);

/* True when the ticks have nothing to send (the loop may then sleep longer than a tick). */
bool cons_idle(const cons_worker *w);

/* How long the loop may sleep when its ticks have nothing to send: the ticks it slept through
 * then run back to back, which only does housekeeping. Saves a wake-up per tick. */
#define CONS_IDLE_WAIT_NS (10 * 1000000LL)

/* ---- cons_wsb.c --------------------------------------------------------------------------- */

/* Opens the standby server's channel on the thread's reactor (the active one is open), with
 * the same role and settings as the active's: co and role are the active's. Returns 0, or -1
 * after cons_fail(). */
int cons_wsb_open_standby(cons_worker *w, rx_conn_opts *co, rx_role *role);

/* Channel events of either warm-standby channel: the console lines, the promotion of the
 * standby when the active server is lost. Returns 0, or -1 after cons_fail(). */
int cons_wsb_channel(cons_worker *w, rx_chan *ch, rx_event ev, const char *text);

/* A login message of either channel: a refresh must advertise warm standby (SupportStandby 1,
 * SupportStandbyMode overlapping the mode when present); a server that does not is dropped
 * (the active: the thread fails). Returns 1 when the message is for the tool's handlers (the
 * active's), 0 when handled here, -1 after cons_fail(). */
int cons_wsb_login(cons_worker *w, rx_chan *ch, const rwf_msg *m, const rwf_login *l);

/* Requests from the standby the items requested from the active so far (it keeps them
 * across its reconnects). Returns 0, or -1 (err_msg() set). */
int cons_wsb_requests(cons_worker *w);

/* An item message of either channel: 1 when it is the active's (for cons_on_item; an update's
 * arrival is timed for the switch-over and promotion times) or a status of the active server
 * just lost (counted), 0 when the standby's (dropped). */
int cons_wsb_item(cons_worker *w, rx_chan *ch, const rwf_msg *m);

/* At the end: what the thread publishes about the standby (items open on the active). */
void cons_wsb_end(cons_worker *w);

/* ---- cons_tun.c --------------------------------------------------------------------------- */

/* True when a service of the directory offers tunnel streams (capability 127). */
bool cons_tun_capable(const rwf_service *s);

/* Opens the tunnel stream when -tunnel asks for one, the service is up and capable and none
 * is open; prints "Opened Tunnel Stream." (or why it could not be opened). Returns 0. */
int cons_tun_open(cons_worker *w);

/* Closes the tunnel stream at the end of the run ("Tunnel stream has closed."). */
void cons_tun_close(cons_worker *w);

/* After a submit inside the tunnel: samples its buffer count (-tunnelStreamBuffersUsed). */
void cons_tun_sample(cons_worker *w);

/* ---- cons_rx.c ---------------------------------------------------------------------------- */

/* The driver's callbacks in the reactor modes (ticks, idleness, the end). */
extern const run_drv_ops cons_rx_ops;

/* The session in the reactor modes: the reactor and its channel, then the driver's loop over
 * it, until the run stops or the connection is lost after the service was found. Failures go to
 * cons_fail(). */
void cons_rx_run(cons_worker *w);

#endif
