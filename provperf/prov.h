/*
 * ProvPerf internals: the application shared by its threads, the provider threads, and the
 * handlers of what consumers send.
 *
 * The main thread loads the configuration and the content, binds the server, starts the
 * provider threads, accepts connections and hands each to the thread with the fewest channels,
 * collects statistics every -writeStatsInterval and writes the summary at the end. Each
 * provider thread runs its own tick schedule over its channels: handshake, bursts, reading
 * (requests, posts, generic messages), pings, closing.
 */
#ifndef RWFPERF_PROV_H
#define RWFPERF_PROV_H

#include "config.h"
#include "cpu.h"
#include "lra.h"
#include "pv_burst.h"
#include "pv_feed.h"
#include "pv_inputs.h"
#include "pv_stats.h"
#include "pv_thread.h"
#include "run_chan.h"
#include "run_drv.h"
#include "run_fail.h"
#include "run_setup.h"
#include "run_json.h"
#include "run_ws.h"
#include "rwf.h"
#include "rwf_rdm.h"
#include "sig.h"
#include "tick.h"
#include "tp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct prov_app prov_app;

/* One provider thread. */
typedef struct prov_thread {
    prov_app *app;
    pv_thread pv; /* number, CPUs, tick schedule, statistics */

    /* Accepted channels handed over by the main thread (and the count of those still open). */
    run_handoff hand;

    /* Worker state. */
    run_drv drv;    /* its loop */
    rx_reactor *rx; /* -reactor: its reactor */
    pv_sess **sess; /* the thread's channels that are up (bare), or handed to the reactor */
    int n_sess, cap_sess;

    /* rssl.json.v2 channels: received messages converted to RWF (json.rwf), messages to send
     * encoded as RWF before their conversion (json_out) */
    run_json json;
    uint8_t *json_out;
} prov_thread;

struct prov_app {
    prov_config cfg;
    pv_inputs in;      /* dictionary, content, rates, service, login refresh Position */
    run_ws_conv *json; /* the RWF <-> JSON converter (with -pl), NULL otherwise */
    tp_server *srv;
    prov_thread *threads;
    int n_threads;
    bool sched_stamp; /* -noScheduledStamp not given */

    /* The run: an error that ends it (a thread's: exit status 1), the TLS versions and ciphers
     * of the encrypted channels, the summary. */
    run_main run;
};

/* Room for one message as RWF on a JSON channel (either way). */
#define PROV_JSON_RWF_MAX (256u * 1024u)

/* Starts thread th. Returns 0, or -1 with err_msg() set. */
int prov_thread_start(prov_thread *th);

/* Prepares thread th of app (index i): statistics, hand-off. Returns 0 or -1. */
int prov_thread_init(prov_thread *th, prov_app *app, int i);

/* Frees what prov_thread_init() made (after the thread was joined). */
void prov_thread_free(prov_thread *th);

/* Sets up th->drv, the session driver of the thread's loop, with its callbacks ops and read_batch
 * messages read between tick checks (0: the driver's default). Returns 0, or -1 after the
 * failure was reported to the run (prov_app_fail). */
int prov_drv_init(prov_thread *th, const run_drv_ops *ops, unsigned read_batch);

/* The main thread's failure (binding the server, starting a thread): records the first one (for
 * the summary's line), prints it and asks every thread to stop. */
void prov_app_fail(prov_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A provider thread's failure, through its driver (run_drv_fail): the formatted text, printed
 * when it is the run's first, and the run stops. Returns RUN_DRV_FAILED. */
int prov_fail(prov_thread *th, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Handles one message a consumer sent on session s of thread th: login, directory and
 * dictionary requests (prov_admin.c), item requests, closes, posts and generic messages
 * (prov_item.c). Returns 0; > 0 when a reply is queued; -1 when the channel must be closed
 * (err_msg() says why).
 */
int prov_handle(prov_thread *th, pv_sess *s, const uint8_t *data, uint32_t len);

/* The same for a message already decoded (the reactor's). */
int prov_handle_msg(prov_thread *th, pv_sess *s, const rwf_msg *m);

/* Takes the closed session s out of th->sess and frees it. */
void prov_remove_session(prov_thread *th, pv_sess *s);

/* Makes room in th->sess for one more session. Returns 0, or -1 (no memory). */
int prov_grow_sessions(prov_thread *th);

/* The descriptor a session's channel had when it came up (for the console lines). */
int prov_sess_fd(const pv_sess *s);

/* The stream id of a -reactor consumer's tunnel (the bare provider's hint when rejecting it). */
#define PROV_TUNNEL_STREAM_HINT 1000

/* ---- prov_tun.c ---------------------------------------------------------------------------- */

/* The reactor role's tunnel request callback: ProvPerf's checks of the class of service, then
 * accept (one tunnel per consumer) or reject, with the original's console lines. */
int prov_tun_request(rx_chan *ch, rx_tunnel_request *req);

/* The session's channel is going: its tunnel is gone with it. */
void prov_tun_forget(pv_sess *s);

/* ---- prov_rx.c ---------------------------------------------------------------------------- */

/* The thread's loop with -reactor: its reactor takes the channels handed over, the callbacks
 * run the same handlers, the ticks the same bursts. Returns when the run stops. */
void prov_rx_thread(prov_thread *th);

/* The admin domains (prov_admin.c). Same returns. */
int prov_admin_login(prov_thread *th, pv_sess *s, const rwf_msg *m);
int prov_admin_directory(prov_thread *th, pv_sess *s, const rwf_msg *m);
int prov_admin_dictionary(prov_thread *th, pv_sess *s, const rwf_msg *m);

/* Item domains (prov_item.c). Same returns. */
int prov_item_msg(prov_thread *th, pv_sess *s, const rwf_msg *m);

/* Sends an item request reject (docs/wire.md#rejects) on s. Returns as prov_handle. */
int prov_item_reject(prov_thread *th, pv_sess *s, int32_t sid, uint8_t domain, int reason);

/* Sends one message of at most cap bytes that `enc` encodes through an rwf_enc over the
 * channel's output buffer: in a packed buffer of its own when packing and `packable` (rejects
 * and reflected posts, as the ETA provider sends them), else alone (admin replies). Returns as
 * prov_handle: an encoding failure or a lack of buffers is printed and the channel kept. */
typedef run_out_enc_fn prov_enc_fn;
int prov_send(pv_sess *s, uint32_t cap, prov_enc_fn enc, const void *arg, bool packable);

#endif
