/*
 * ConsPerf configuration: every option of the ETA ConsPerf with its default and validation
 * (docs/tools.md#options), parsed from the command line, and the TEST INPUTS block exactly as
 * ConsPerf 3.6.5 prints it.
 *
 * -reactor runs each connection over the reactor layer (common/reactor), -watchlist over its
 * watchlist too, -workerThreads binds the reactor's worker thread of each connection; -tunnel
 * (with -reactor or -watchlist) carries the item traffic inside a tunnel stream. Options of
 * warm standby and WebSocket/JSON are recognised and refused (exit status 2) with a message
 * saying they are not available in this build. Their TEST INPUTS lines are still printed, with
 * the values the original prints when they are off, so that parsers of the original's summary
 * find every line.
 */
#ifndef RWFPERF_CONS_CONFIG_H
#define RWFPERF_CONS_CONFIG_H

#include "opt.h"
#include "out.h"
#include "run_opts.h"

#include <stdbool.h>
#include <stdio.h>

/* ConsPerf opens at most this many connections (one per -threads entry). */
#define CONS_MAX_THREADS 8

/* Labels of ConsPerf's TEST INPUTS block are right-justified to this width. */
#define CONS_LABEL_WIDTH 24

enum { CONS_WSB_NONE = 0, CONS_WSB_LOGIN = 1, CONS_WSB_SERVICE = 2 }; /* cons_config.wsb_mode */

typedef struct cons_config {
    run_opts opts; /* what every tool has: -h, -p ("14002"), -if (alias -i), -connType (0 socket,
                    * 1 encrypted, 7 websocket), -threads (a connection per entry),
                    * -maxOutputBufs (also -maxOutputBuffer; 0 = outputBufs), -inputBufs (15),
                    * -summaryFile ("ConsSummary.out"), -statsFile ("ConsStats"), ... */

    /* Connection */
    bool watchlist;   /* -watchlist: over the reactor and its watchlist */
    bool tunnel;      /* -tunnel: items, posts, generics inside a tunnel */
    bool tunnel_auth; /* -tunnelAuth: OMM-login authentication inside it */
    /* Warm standby: on when the four host/port options are all given (then -watchlist is
     * needed); -h/-p are not used then. */
    char wsb_start_host[RUN_OPTS_NAME_LEN];   /* -startingHostName */
    char wsb_start_port[64];                  /* -startingPort */
    char wsb_standby_host[RUN_OPTS_NAME_LEN]; /* -standbyHostName */
    char wsb_standby_port[64];                /* -standbyPort */
    int wsb_mode; /* -warmStandbyMode login|service (CONS_WSB_*, login by default): as
                   * given; cons_wsb_mode() is the mode in force */

    /* Test */
    int steady_state_time;       /* -steadyStateTime, s, 300; also the image timeout */
    int delay_steady_state_calc; /* -delaySteadyStateCalc, ms, 0..30000 */
    int request_rate;            /* -requestRate, items/s, 500000 */
    bool snapshot;               /* -snapshot */
    int posting_rate;            /* -postingRate, posts/s per connection, 0 */
    int posting_latency_rate;    /* -postingLatencyRate, 0 */
    bool measure_decode;         /* -measureDecode */
    int expected_update_rate;    /* -expectedUpdateRate (ours), updates/s per connection, 0 */

    /* WebSocket JSON (docs/modes.md#json-options) */
    bool calc_json_latency;  /* -calcRWFJSONConversionLatency: every received item message on a
                              * WebSocket RWF channel is also converted to JSON, inside the
                              * measured decode */
    bool add_conversion;     /* -addConversionOverhead: on a JSON channel, RWF is encoded and
                              * converted to JSON to send, and received JSON converted back to
                              * RWF to decode (else the JSON is read natively) */
    int json_allocator_size; /* -jsonAllocatorSize, 65536: printed; see the option's help */
} cons_config;

/* Fills cfg with ConsPerf's defaults. */
void cons_config_defaults(cons_config *cfg);

/* cons_config_init, _check (rates against the tick rate, snapshot, common items, steady-state
 * delay, output buffers), _print (as ConsPerf 3.6.5 prints it), _json, cons_options. */
RUN_OPTS_DECLARE_TOOL(cons_config, cons_config, cons_options);

/* Number of connections (consumer threads): the -threads entries, 1 by default. */
int cons_config_threads(const cons_config *cfg);

/* The warm-standby mode in force: -warmStandbyMode when the four host/port options are all
 * given (the original's rule), else CONS_WSB_NONE. */
static inline int cons_wsb_mode(const cons_config *c)
{
    if (!c->wsb_start_host[0] || !c->wsb_start_port[0] || !c->wsb_standby_host[0] ||
        !c->wsb_standby_port[0])
        return CONS_WSB_NONE;
    return c->wsb_mode;
}

#endif
