/*
 * The state of one consumer thread's session, private to the thread: the core every mode has
 * (the thread, its configuration, the connection and its write path, the session, the items,
 * time), and a pointer to each mode's own state, which only that mode's file reads or writes
 * (docs/driver.md, section 5): the Reactor's (cons_rx.c), the tunnel stream's (cons_tun.c),
 * warm standby's (cons_wsb.c), JSON's (json.c). thread.c runs the core on the session driver
 * (the bare mode's callbacks, and the item state machine every mode shares); send.c writes its
 * requests, posts and generic messages; admin.c handles the login, directory and dictionary
 * streams. Only the worker touches it.
 */
#ifndef RWFPERF_CONS_WORKER_H
#define RWFPERF_CONS_WORKER_H

#include "cons.h"
#include "run_drv.h"
#include "run_out.h"
#include "rx.h"
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

/* Each mode's state, defined in its mode's file (see cons_worker). */
struct cons_rx;
struct cons_tun;
struct cons_wsb;
struct cons_json;

typedef struct cons_worker {
    cons_thread *t;
    const cons_run *run;
    const cons_config *cfg;
    run_drv drv;       /* the thread's loop: ticks, waiting, reading, failures (docs/driver.md) */
    tp_channel *ch;    /* the bare channel while it is up; NULL in the Reactor modes */
    run_out out;       /* the channel's write path (the bare channel, or the Reactor's channel
                        * in use: cons_rx_use(); JSON on a rssl.json.v2 channel) */
    run_out *item_out; /* where item messages go: &out, or the tunnel stream's path while it
                        * is open (cons_tun.c); admin messages always go to out */

    /* Each mode's state, NULL when the mode is not in use; nothing but its own file reads
     * or writes it. Made when the thread is set up (JSON's when the channel comes up and
     * speaks rssl.json.v2, or with -calcRWFJSONConversionLatency), freed at its end; never on
     * the per-message path. */
    struct cons_rx *rx;     /* cons_rx.c: -reactor, -watchlist */
    struct cons_tun *tun;   /* cons_tun.c: -tunnel */
    struct cons_wsb *wsb;   /* cons_wsb.c: warm standby (two channels) */
    struct cons_json *json; /* json.c: rssl.json.v2, -calcRWFJSONConversionLatency */

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

/* The same, with -calcRWFJSONConversionLatency: an item message is converted to JSON
 * (cons_json_calc) before it is handled, so that the conversion counts in its latency. */
int cons_on_rwf_calc(cons_worker *w, const uint8_t *data, uint32_t len);

/* Handles an item message read natively from JSON (its stamps read with it): the same item
 * state machine as cons_on_item; t0 is when its reading began (0 unless -measureDecode).
 * Returns 0, or -1 after cons_fail(). */
int cons_on_jitem(cons_worker *w, const struct cons_jmsg *m, int64_t t0);

/* ---- json.c: a rssl.json.v2 channel, -calcRWFJSONConversionLatency ----------------------- */

/* The bare channel is active (its write path set up): when it speaks rssl.json.v2, or with
 * -calcRWFJSONConversionLatency, makes w->json and its conversion buffers, and on a JSON
 * channel makes the write path convert (run_out_json). Returns 0 or -1 (err_msg() set). */
int cons_json_start(cons_worker *w);

/* Frees w->json (NULL: nothing to do). */
void cons_json_free(cons_worker *w);

/* A message read off the bare channel when w->json is set: a text frame of a JSON channel, or
 * an RWF message with -calcRWFJSONConversionLatency. Returns 0, or -1 after cons_fail(). */
int cons_json_msg(cons_worker *w, const tp_msg *tm);

/* -calcRWFJSONConversionLatency: converts the received RWF message to JSON. 0 or -1. */
int cons_json_calc(cons_worker *w, rwf_buf rwf);

/* True when the channel's JSON is read and written natively (no -addConversionOverhead):
 * requests are then never private. */
bool cons_json_native(const cons_worker *w);

/* Native JSON sends no posts (post true) or generic messages: says so once each, in the
 * original's words. True when the caller must not send. */
bool cons_json_refuses(cons_worker *w, bool post);

/* ---- send.c ------------------------------------------------------------------------------ */

/* The write path of item messages: the tunnel's while it is open, else the channel's. */
static inline run_out *cons_item_out(cons_worker *w)
{
    return w->item_out;
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

/* ---- thread.c: the tick's work, common to every mode ------------------------------------- */

/* Requests, posts and generic messages due at this tick, then a flush. Returns 0, or -1 after
 * cons_fail(). */
int cons_tick_sends(cons_worker *w);

/* True when the ticks have nothing to send (the loop may then sleep longer than a tick). */
bool cons_idle(const cons_worker *w);

/* How long the loop may sleep when its ticks have nothing to send: the ticks it slept through
 * then run back to back, which only does housekeeping. Saves a wake-up per tick. */
#define CONS_IDLE_WAIT_NS (10 * 1000000LL)

/* ---- cons_rx.c: -reactor, -watchlist ----------------------------------------------------- */

/* Makes w->rx (the Reactor modes). Returns 0, or -1 (err_msg() set). */
int cons_rx_init(cons_worker *w);

/* Frees w->rx (NULL: nothing to do). */
void cons_rx_free(cons_worker *w);

/* The thread's reactor, or NULL (not made yet, or destroyed). */
rx_reactor *cons_rx_reactor(const cons_worker *w);

/* The channel in use (with warm standby: the active server's), or NULL. */
rx_chan *cons_rx_chan(const cons_worker *w);

/* Makes ch the channel in use and w->out its write path (warm standby: a promotion). */
void cons_rx_use(cons_worker *w, rx_chan *ch);

/* The driver's callbacks in the reactor modes (ticks, idleness, the end). */
extern const run_drv_ops cons_rx_ops;

/* The session in the reactor modes: the reactor and its channel, then the driver's loop over
 * it, until the run stops or the connection is lost after the service was found. Failures go to
 * cons_fail(). */
void cons_rx_run(cons_worker *w);

/* ---- cons_wsb.c: warm standby ------------------------------------------------------------ */

/* Makes w->wsb (cons_wsb_mode() is not CONS_WSB_NONE). Returns 0, or -1 (err_msg() set). */
int cons_wsb_init(cons_worker *w);

/* Frees w->wsb (NULL: nothing to do). */
void cons_wsb_free(cons_worker *w);

/* Before the first channel opens: the role's warm-standby mode, and the starting server as
 * the link's host and port. */
void cons_wsb_prepare(cons_worker *w, rx_role *role, run_link *link);

/* The starting server's channel is open (the channel in use): opens the standby server's on
 * the thread's reactor, with the same role and settings (co and role are the starting
 * server's). Returns 0, or -1 after cons_fail(). */
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

/* ---- cons_tun.c: -tunnel ------------------------------------------------------------------ */

/* Makes w->tun (-tunnel). Returns 0, or -1 (err_msg() set). */
int cons_tun_init(cons_worker *w);

/* Frees w->tun (NULL: nothing to do). */
void cons_tun_free(cons_worker *w);

/* True when a service of the directory offers tunnel streams (capability 127). */
bool cons_tun_capable(const rwf_service *s);

/* The service is up (capable: cons_tun_capable() of it): opens the tunnel stream when -tunnel
 * asks for one and none is open; prints "Opened Tunnel Stream." (or why it could not be
 * opened). Returns 0. */
int cons_tun_open(cons_worker *w, bool capable);

/* True when the tunnel stream is open: item traffic goes inside it (cons_item_out). */
bool cons_tun_is_open(const cons_worker *w);

/* Closes the tunnel stream at the end of the run ("Tunnel stream has closed."). */
void cons_tun_close(cons_worker *w);

#endif
