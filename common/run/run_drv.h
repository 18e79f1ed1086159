/*
 * run_drv: the session driver, the one loop of every tool's worker threads (docs/driver.md).
 *
 * A worker thread fills a run_drv_cfg (its tick rate, latency hand-over, failure slot, and
 * where its channels come from: a server's hand-over, a client's connection settings, or a
 * Reactor) and a table of callbacks, then runs the loop:
 *
 *     run_drv d;
 *     if (run_drv_init(&d, &cfg) != 0) ...err_msg()...;
 *     int why = run_drv_run(&d);      // until the run stops or this thread fails
 *     run_drv_free(&d);
 *
 * A client gives the driver its run options and a run_link; the driver makes the transport's
 * settings from them (run_conn_tp) and connects: no tool holds a tp_opts.
 *
 * Each pass of the loop, in every mode: the stop request is looked at; the latency sets are
 * handed over; channels handed over by the main thread are taken; a client connects (or tries
 * again a second after a failure); every tick that is due runs (ops->tick, then the channels'
 * pings and handshake time limits); then the loop waits until the next tick for its channels
 * (ppoll on their descriptors) or its Reactor (rx_wait), reads what arrived (tp_read until
 * nothing complete is left, ops->msg for each message or ops->msgs for each batch of them,
 * back to the ticks every read_batch
 * messages when one is due) or dispatches the Reactor's events, and flushes what is queued.
 *
 * The schedule of ticks starts when the first channel comes up (bare mode) and again when one
 * comes up after none was: an idle thread does not catch up on the ticks it had no channel
 * for. In the Reactor modes it runs from the start unless the tool says otherwise
 * (run_drv_ticking).
 *
 * The per-message path (tp_read, ops->msg) allocates nothing and takes no lock. One thread
 * owns a driver and everything it holds.
 */
#ifndef RWFPERF_RUN_DRV_H
#define RWFPERF_RUN_DRV_H

#include "latbuf.h"
#include "run_chan.h"
#include "run_conn.h"
#include "run_fail.h"
#include "run_opts.h"
#include "run_tls.h"
#include "rx.h"
#include "tick.h"
#include "tp.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct run_drv run_drv;

/* The most messages run_drv_ops.msgs (frames: run_drv_ops.frames) is given at once. */
#define RUN_DRV_VEC 64

/* A channel the driver owns (bare mode). The tool hangs its session on it (user). */
typedef struct run_drv_ch {
    tp_channel *ch;
    void *user;    /* the tool's; NULL until it sets one */
    int fd;        /* the descriptor, as the console names the channel (when it came up) */
    bool up;       /* the handshake is done and ops->up kept it */
    bool closed;   /* closed during this pass; freed at its end */
    bool more;     /* complete input may wait in the channel: read before waiting */
    bool shm;      /* shared memory: its descriptor is always ready, never polled */
    bool client;   /* this thread's own connection (not handed over) */
    int64_t up_ns; /* when it came up */
} run_drv_ch;

/* What the callbacks return besides 0. */
enum {
    RUN_DRV_FAILED = -1, /* the thread failed (run_drv_fail() was called): the loop ends */
    RUN_DRV_CLOSE = 1,   /* close this channel, err_msg() being the reason */
};

/* Where a client's connection attempt failed. */
typedef enum run_drv_stage {
    RUN_DRV_AT_CONNECT, /* tp_connect: name resolution, socket, a segment that is not there */
    RUN_DRV_AT_INIT,    /* the handshake: refused, reset, TLS, WebSocket upgrade */
} run_drv_stage;

/* The tool's side of the loop. tool is run_drv_cfg.tool. Every callback but tick may be NULL. */
typedef struct run_drv_ops {
    /* A tick is due: t is the current tick (its index, second, deadline), now the clock it was
     * polled with. The tool sends its bursts. Returns 0 or RUN_DRV_FAILED. */
    int (*tick)(void *tool, const tick *t, int64_t now);
    /* Bare: c finished its handshake. Returns 0 to keep it, RUN_DRV_CLOSE to close it (err_msg()
     * says why; ops->down then runs), RUN_DRV_FAILED. */
    int (*up)(void *tool, run_drv_ch *c);
    /* Bare: one message arrived on c (valid until the next read of c). Returns 0,
     * RUN_DRV_CLOSE or RUN_DRV_FAILED. */
    int (*msg)(void *tool, run_drv_ch *c, const tp_msg *m);
    /* Bare, in place of msg when set: the messages m[0..n) (1 <= n <= RUN_DRV_VEC) that arrived
     * on c, in order, taken by one tp_read_batch() (views valid until the next read of c).
     * Returns 0, RUN_DRV_CLOSE or RUN_DRV_FAILED as msg does; after anything but 0 no more of c
     * is read in this pass. Saves a call and the read's bookkeeping per message. */
    int (*msgs)(void *tool, run_drv_ch *c, const tp_msg *m, int n);
    /* Bare, in place of msgs and msg when set (but for a shared-memory channel when msgs is
     * set too): the frames f[0..n) (1 <= n <= RUN_DRV_VEC) that arrived on c, in order, taken
     * by one tp_read_frames(): each one message, or a packed frame's messages in their wire
     * form, whose lengths the transport has checked, for the tool to walk (tp_packed_len(),
     * tp_frame_next()). Views valid until the next read of c. Returns as msgs does. Saves
     * storing and loading a view per packed message. */
    int (*frames)(void *tool, run_drv_ch *c, const tp_frame *f, int n);
    /* Bare: a read batch of c ended (for counters published once per batch). */
    void (*batch)(void *tool, run_drv_ch *c);
    /* Bare: c is closing: why is the reason, NULL for an orderly close of ours (the end of the
     * run). c->up says whether it came up; c->user is still the tool's. The tool prints its line,
     * frees its session, and decides whether the loss fails the run. */
    void (*down)(void *tool, run_drv_ch *c, const char *why);
    /* Client: before each connection attempt (the "Attempting to connect" line). */
    void (*connecting)(void *tool);
    /* Client: an attempt failed at stage; repeat says the text is the previous failure's. */
    void (*connect_failed)(void *tool, run_drv_stage stage, const char *why, bool repeat);
    /* Client: an attempt failed at stage in a way trying again cannot heal (run_drv_heals()
     * false). The tool says so on the console and leaves in err_msg() the text the thread fails
     * with; the driver then fails the thread (run_drv_fail, exit status 1). NULL: the driver's
     * line, "Error: <why> (trying again cannot succeed).", and why as the text. */
    void (*connect_final)(void *tool, run_drv_stage stage, const char *why);
    /* True when the ticks have nothing to send: the loop may then wait up to idle_wait_ns. */
    bool (*idle)(void *tool);
    /* Reactor mode: a channel the main thread handed over (the tool gives it to its Reactor,
     * which owns it from then on). */
    void (*adopt)(void *tool, tp_channel *ch);
    /* The run is ending, before the channels are closed (the tool may run run_drv_io passes
     * to let its output leave). */
    void (*end)(void *tool);
} run_drv_ops;

typedef struct run_drv_cfg {
    void *tool;
    const run_drv_ops *ops;
    const char *name;        /* context of the driver's own failures (waiting, the schedule, the
                              * Reactor): "provider thread 2"; NULL: none */
    uint32_t tick_rate;      /* ticks per second */
    tick *tk;                /* the schedule (the tool reads it too); NULL: the driver's own */
    latbuf *lat;             /* handed over at every pass (latbuf_poll); NULL: none */
    run_fail *fail;          /* where failures go: the thread's slot or the run's */
    bool print_fail;         /* print the first failure's text on stdout (ProvPerf) */
    run_handoff *hand;       /* server: the channels the main thread accepts for this thread */
    const run_opts *connect; /* client: connect with these options (NULL: not a client); the
                              * driver makes its settings from them and link (run_conn_tp) */
    run_link link;           /* client: what is not an option (protocol, address of a warm
                              * standby server, thread); its side is taken as RUN_CLIENT */
    rx_reactor *rx;          /* the Reactor modes: wait for it and dispatch its events */
    unsigned read_batch;     /* messages (ops->frames: frames) read before a due tick is
                              * looked at: 64 (0: 64) */
    unsigned dispatch_batch; /* Reactor events per rx_dispatch: 256 (0: 256) */
    int64_t idle_wait_ns;    /* longest wait when ops->idle() says so: 10 ms (0: 10 ms) */
    bool read_on;            /* after a batch that emptied the input, read again until the next
                              * tick is due (TransportPerf: saves a wait when data keeps coming) */
    bool busy_read;          /* never wait: every channel is read and flushed each pass */
} run_drv_cfg;

/* How run_drv_run() ended. */
enum {
    RUN_DRV_STOPPED = 0,       /* a stop was requested: the end of the run, or another thread */
    RUN_DRV_INTERRUPTED = 1,   /* by SIGINT or SIGTERM (sig_caught()) */
    RUN_DRV_THREAD_FAILED = 2, /* this thread failed: its slot says why */
};

struct run_drv {
    run_drv_cfg cfg;
    tick own_tk;
    bool ticking;     /* the schedule runs */
    bool failed;      /* this thread failed */
    run_drv_ch **chs; /* the channels, in no order */
    int n_chs, cap_chs;
    struct pollfd *pfds;  /* a pass's poll set: the channels and the hand-over */
    run_drv_ch **pch;     /* the channel of each pfds entry (NULL: the hand-over) */
    int n_up;             /* channels up */
    bool ever_up;         /* client: its channel came up once (no more attempts) */
    int64_t connect_ns;   /* client: the next attempt (0: none due) */
    run_conn_errors errs; /* client: the last failure printed */
    int64_t shm_nap;      /* a shared-memory reader's pause when it found nothing */
    int64_t hs_check_ns;  /* next check of handshake time limits */
    tp_opts conn;         /* client: its settings, from cfg.connect and cfg.link; the strings
                           * point into those, which outlive the driver */
};

/* Sets d up from cfg (copied); a client's connection settings are made here (run_conn_tp of
 * cfg->connect and cfg->link), so *cfg->connect and the strings cfg->link names must outlive the
 * driver. Returns 0, or -1 with err_msg() set (no memory). */
int run_drv_init(run_drv *d, const run_drv_cfg *cfg);

/* Runs the loop until a stop is requested or this thread fails, then calls ops->end and closes
 * every channel (ops->down with why NULL). Returns RUN_DRV_STOPPED, RUN_DRV_INTERRUPTED or
 * RUN_DRV_THREAD_FAILED. */
int run_drv_run(run_drv *d);

/* Frees what run_drv_init made; channels still open are closed without callbacks. */
void run_drv_free(run_drv *d);

/*
 * The one way a failure reaches main: records err_msg() (prefixed with "<what>: " when what is
 * not NULL; the driver's own failures also with the configuration's name) with exit status `status`
 * in the driver's failure slot (the first text wins, the worst status wins), prints it when the
 * configuration says so, asks the run to stop, and marks this thread failed. Returns
 * RUN_DRV_FAILED, for `return run_drv_fail(...)`.
 */
int run_drv_fail(run_drv *d, int status, const char *what);

/* The same record without stopping the run: the thread goes on, the exit status will say that
 * the test failed (TransportPerf's server after a wrong message on one connection). */
void run_drv_mark(run_drv *d, int status, const char *what);

/*
 * Whether a failed connection attempt can heal (stage, the failure's text, and whether the
 * transport marked it final: err_is_final() read where it failed): while it can (a connection
 * refused or reset), a client tries again every second, as the original does; when it cannot (a
 * host name that does not resolve, a certificate or a sub-protocol refused), the driver says so
 * on the console (ops->connect_final, or its own "Error: <why> (trying again cannot succeed).")
 * and fails the thread at once (run_drv_fail, exit status 1). The Reactor layer does not retry
 * such a failure either: the tool hears RX_CHANNEL_DOWN.
 */
bool run_drv_heals(run_drv_stage stage, const char *why, bool final);

/* Closes c now (bare mode): ops->down(c, why), the channel closed; c is freed at the end of the
 * pass. Nothing when it is closed already. */
void run_drv_close(run_drv *d, run_drv_ch *c, const char *why);

/* tp_write of a whole message on c: a message larger than one fragment may need the socket to
 * take some of the queue first (TP_ECALLAGAIN), so this flushes and waits for the descriptor,
 * 10 ms at a time, until it is queued. Returns what tp_write finally returns. */
int run_drv_write(run_drv_ch *c, tp_buf *b, unsigned flags);

/* One pass without ticks until `until` (clk_ns() time) at the latest: wait, read, flush, take
 * hand-overs. For ops->end, to let output leave before the channels close. */
void run_drv_io(run_drv *d, int64_t until);

/* Makes the driver's loop the Reactor rx's (before run_drv_run; a tool creates its Reactor
 * once the driver can take its failures). */
void run_drv_use_reactor(run_drv *d, rx_reactor *rx);

/* Reactor mode: starts the tick schedule afresh (on) or stops it (off: no ticks until on
 * again). */
void run_drv_ticking(run_drv *d, bool on);

/* The schedule (the tool's or the driver's own). */
static inline const tick *run_drv_tick(const run_drv *d)
{
    return d->cfg.tk;
}

/* Fills *co (rx_conn_opts_init first) for a channel the Reactor connects: its tp settings from
 * run_conn_tp(o, l) and the high-water mark set when it comes up. The strings of *co point
 * into o and l, which must outlive the channel. */
void run_drv_rx_conn(const run_opts *o, const run_link *l, rx_conn_opts *co);

#endif
