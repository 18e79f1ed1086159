/*
 * NIProvPerf internals: the application shared by its threads and the publishing threads
 * (docs/tools.md#niprovperf, docs/wire.md#niprovperf).
 *
 * Each thread connects to the ADH (retrying every second until it is up), logs in as a
 * provider, publishes the service directory on stream -1 and then its share of the item list
 * on streams -6, -7, ...: refreshes in the spare time of each tick, updates at -updateRate.
 * Once a thread's channel was up, losing it ends the test (exit status 1).
 */
#ifndef RWFPERF_NIPROV_H
#define RWFPERF_NIPROV_H

#include "config.h"
#include "report.h"
#include "cpu.h"
#include "items.h"
#include "lra.h"
#include "pv_burst.h"
#include "pv_collect.h"
#include "pv_feed.h"
#include "pv_inputs.h"
#include "pv_stats.h"
#include "pv_thread.h"
#include "run_col.h"
#include "run_drv.h"
#include "run_fail.h"
#include "run_setup.h"
#include "rwf.h"
#include "rwf_rdm.h"
#include "sig.h"
#include "tick.h"
#include "tp.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct niprov_app niprov_app;

typedef struct niprov_thread {
    niprov_app *app;
    pv_thread pv;      /* number, CPUs, tick schedule, statistics */
    items_share share; /* its items of the list */
    pv_sess sess;      /* its one channel */
    run_drv drv;       /* its loop */
    run_drv_ch *dc;    /* the channel, once up (bare) */
    rx_chan *rch;      /* the channel (-reactor) */
    bool active;       /* the channel came up (losing it now ends the test) */
    char conn_error[256]; /* -reactor: why the last attempt failed, while never up */
    bool publishing;   /* logged in: directory and items published */
} niprov_thread;

struct niprov_app {
    niprov_config cfg;
    pv_inputs in;   /* dictionary, content, rates, service (on stream -1), login Position */
    items list;     /* the item file's items */
    char user[256]; /* login user name */
    niprov_thread *threads;
    int n_threads;

    run_main run;   /* the error that ended the test (any thread), the TLS versions and
                     * ciphers of the encrypted connections, the summary */
    pv_collect col; /* the main thread's side of the statistics */
};

/* Prepares thread i. Returns 0, or -1 with err_msg() set. */
int niprov_thread_init(niprov_thread *th, niprov_app *app, int i);

/* Frees what niprov_thread_init() made (after the join). */
void niprov_thread_free(niprov_thread *th);

/* Starts thread th. Returns 0, or -1 with err_msg() set. */
int niprov_thread_start(niprov_thread *th);

/* At the end of a thread's loop: when its channel never came up (and it did not fail
 * otherwise), the run failed: "Error: never connected to <host>:<port>: <why>" on the console
 * and in the failure slot (exit status 1). why: the last attempt's failure ("" when none). */
void niprov_never_connected(niprov_thread *th, const char *why);

/* The directory refresh every thread publishes on stream -1 (service id, Info/State/Group). */
void niprov_directory(const niprov_app *app, rwf_directory *d);

/* The login request of a provider thread into l, named app_name (ApplicationName): stream 1,
 * the user of -uname or the login name, ApplicationId 256, the Position, Role provider. Its
 * buffers point into app and app_name. */
void niprov_login(const niprov_app *app, rwf_login *l, const char *app_name);

/* Logged in and the directory sent: the thread's items on streams -6, -7, ... ("Created
 * publishing list.") and the first burst of their refreshes. Returns 0 or -1 (err_msg()). */
int niprov_publish_items(niprov_thread *th);

/* ---- niprov_rx.c: the thread with -reactor ---- */

/* Connects through a reactor (NI provider role: login, then the directory refresh), publishes
 * once it is ready, and runs the ticks until the run stops or the channel is lost. */
void niprov_rx_thread(niprov_thread *th);

#endif
