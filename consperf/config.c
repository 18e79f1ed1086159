#include "config.h"

#include "err.h"
#include "run_version.h"
#include "items.h"
#include "tick.h"

#include <limits.h>
#include <string.h>

#define C cons_config

static const opt_name wsb_modes[] = {
    {"login", CONS_WSB_LOGIN, NULL},
    {"service", CONS_WSB_SERVICE, NULL},
    {NULL, 0, NULL},
};

const opt_def cons_options[] = {
    OPT_SECTION_("Connection:"),
    RUN_OPT_CONN_TYPE(C, opts, run_conn_consperf),
    RUN_OPT_HOST(C, opts, "Host of the provider or ADS to connect to"),
    RUN_OPT_PORT(C, opts, "Port (number or service name) to connect to"),
    {.name = "-if",
     .alias = "-i",
     .kind = OPT_STR,
     .off = OPT_FIELD_(C, opts.interface_name, char *),
     .size = sizeof(((C *)0)->opts.interface_name),
     .arg = "<interface>",
     .help = "Network interface (host name or address) to connect from",
     .json = "if"},
    RUN_OPT_COMPRESSION(C, opts, "Compression to ask for: none, zlib, lz4 (or 0, 1, 2)"),
    RUN_OPT_OUTPUT_BUFS(C, opts, "Guaranteed output buffers"),
    {.name = "-maxOutputBufs",
     .alias = "-maxOutputBuffer",
     .kind = OPT_INT,
     .off = OPT_FIELD_(C, opts.max_output_bufs, int),
     .min = 0,
     .max = INT_MAX,
     .arg = "<count>",
     .help = "Maximum output buffers, at least -outputBufs (0: same as -outputBufs)"},
    RUN_OPT_INPUT_BUFS(C, opts),
    RUN_OPT_SOCKET_SIZES(C, opts),
    RUN_OPT_TCP_DELAY(C, opts),
    RUN_OPT_UNAME(C, opts),
    RUN_OPT_SERVICE_NAME(C, opts, "Service to request items from"),
    RUN_OPT_THREADS(C, opts, CONS_MAX_THREADS,
                    "One connection per entry, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_INT_("-tickRate", C, opts.tick_rate, 1, TICK_RATE_MAX, "<ticks/sec>", "Ticks per second"),
    RUN_OPT_ITEM_COUNTS(C, opts, "Items to request in all",
                        "Items requested by every connection when there are several"),
    OPT_INT_("-requestRate", C, request_rate, 1, INT_MAX, "<items/sec>", "Item request rate"),
    OPT_FLAG_("-snapshot", C, snapshot, "Request snapshots only, and end when all images are in"),
    OPT_INT_("-postingRate", C, posting_rate, 0, INT_MAX, "<posts/sec>",
             "Posts per second per connection (0: none)"),
    OPT_INT_("-postingLatencyRate", C, posting_latency_rate, 0, INT_MAX, "<posts/sec>",
             "Posts per second that carry a latency stamp"),
    OPT_INT_("-genericMsgRate", C, opts.generic_msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second per connection (0: none)"),
    OPT_INT_("-genericMsgLatencyRate", C, opts.generic_msg_latency_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second that carry a latency stamp"),
    OPT_INT_("-steadyStateTime", C, steady_state_time, 0, INT_MAX, "<sec>",
             "Length of the steady state; also the time allowed to receive all images"),
    OPT_INT_("-delaySteadyStateCalc", C, delay_steady_state_calc, 0, 30000, "<msec>",
             "Wait after the last image before steady-state latency counts"),
    RUN_OPT_NANO_TIME(C, opts),
    OPT_FLAG_("-measureDecode", C, measure_decode, "Measure the time spent decoding updates"),
    OPT_INT_("-expectedUpdateRate", C, expected_update_rate, 0, INT_MAX, "<updates/sec>",
             "Update rate the provider offers per connection: warn when steady state falls "
             "below 99% of it (0: no check)"),

    OPT_SECTION_("Files and output:"),
    RUN_OPT_ITEM_FILE(C, opts, "Item list"),
    RUN_OPT_MSG_FILE(C, opts, "Message content for posts and generic messages"),
    RUN_OPT_SUMMARY_STATS(C, opts),
    RUN_OPT_LATENCY_FILE(C, opts, "Log every latency sample to <base><thread>.csv"),
    RUN_OPT_STATS_OUTPUT(C, opts),

    OPT_SECTION_("Reactor:"),
    RUN_OPT_REACTOR(C, opts, "Run each connection over the reactor layer"),
    OPT_FLAG_("-watchlist", C, watchlist, "Run each connection over the reactor's watchlist"),
    RUN_OPT_WORKERS(C, opts, CONS_MAX_THREADS,
                    "Binding of each connection's reactor worker thread (as -threads)"),

    OPT_SECTION_("Tunnel streams (-reactor or -watchlist):"),
    OPT_FLAG_("-tunnel", C, tunnel,
              "Open a tunnel stream that carries the item traffic (needs -reactor or -watchlist)"),
    OPT_FLAG_("-tunnelAuth", C, tunnel_auth, "Authenticate the tunnel stream (login inside it)"),
    RUN_OPT_TUNNEL_BUFS(C, opts, "Output buffers of the tunnel stream",
                        "Print the tunnel stream's buffer usage at each statistics interval"),

    OPT_SECTION_("Warm standby (-watchlist):"),
    OPT_STR_("-startingHostName", C, wsb_start_host, "<host>",
             "Warm standby: the starting (first active) server's host"),
    OPT_PORT_("-startingPort", C, wsb_start_port, "Warm standby: its port"),
    OPT_STR_("-standbyHostName", C, wsb_standby_host, "<host>",
             "Warm standby: the standby server's host"),
    OPT_PORT_("-standbyPort", C, wsb_standby_port, "Warm standby: its port"),
    OPT_ENUM_("-warmStandbyMode", C, wsb_mode, wsb_modes, "<login|service>",
              "Warm standby mode: login or service based (needs -watchlist and the four options "
              "above)"),

    OPT_SECTION_("WebSocket:"),
    RUN_WS_OPTION(C, opts.ws),
    OPT_FLAG_("-calcRWFJSONConversionLatency", C, calc_json_latency,
              "WebSocket rssl.rwf: convert every received item message to JSON too, inside the "
              "measured decode (the cost of a conversion, as latency)"),
    OPT_FLAG_("-addConversionOverhead", C, add_conversion,
              "WebSocket rssl.json.v2: send RWF converted to JSON and convert what arrives back "
              "to RWF (else JSON is built and read natively; posts and generic messages need "
              "this)"),
    OPT_INT_("-jsonAllocatorSize", C, json_allocator_size, 0, INT_MAX, "<bytes>",
             "Size of the original's per-thread JSON allocator; accepted and printed, without "
             "effect here: this ConsPerf reads and writes JSON in place, with no allocator to "
             "size"),

    OPT_SECTION_("Encrypted connections (-connType encrypted):"),
    RUN_TLS_CLIENT_OPTIONS(C, opts.tls),
    RUN_TLS_SP12_OPTION(C, opts.tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    RUN_OPT_HISTOGRAM_LOG(
        C, opts, "HdrHistogram interval log of every latency kind (ours): <base><thread>.hlog"),
    RUN_OPT_CLOCK(C, opts),
    RUN_OPT_NO_PROGRESS(C, opts),
    RUN_TLS_RECORD_OPTIONS(C, opts.tls),
    OPT_END_,
};

void cons_config_defaults(cons_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    run_opts_defaults(&cfg->opts, "14002", "ConsSummary.out", "ConsStats");
    cfg->opts.input_bufs = 15;
    cfg->steady_state_time = 300;
    cfg->request_rate = 500000;
    cfg->json_allocator_size = 64 * 1024;
    cfg->wsb_mode = CONS_WSB_LOGIN;
}

int cons_config_threads(const cons_config *cfg)
{
    return opt_threads_with_workers(&cfg->opts.threads, &cfg->opts.worker_threads);
}

/* The checks of the WebSocket and JSON options (the ETA ConsPerf's words). */
static int check_json(const cons_config *c)
{
    if (c->calc_json_latency && (c->opts.reactor || c->watchlist))
        return err_set("Config error: Should not combine -calcRWFJSONConversionLatency and "
                       "-reactor or -watchlist.");
    if (c->add_conversion && (c->opts.reactor || c->watchlist))
        return err_set("Config error: Should not combine -addConversionOverhead and -reactor or "
                       "-watchlist.");
    if (c->calc_json_latency && !run_conn_websocket(&c->opts))
        return err_set("Config error: -calcRWFJSONConversionLatency enables for WebSocket "
                       "connection only.");
    if (c->add_conversion && !run_conn_websocket(&c->opts))
        return err_set("Config error: -addConversionOverhead enables for WebSocket connection "
                       "only.");
    /* Without the converter a bare connection writes JSON natively, which sends no posts and
     * no generic messages (the original's behaviour, found out only at the end as a rate of
     * 0%): refused here instead, naming the option that sends them. */
    bool bare = !c->opts.reactor && !c->watchlist;
    if (bare && run_conn_websocket(&c->opts) && !c->add_conversion &&
        run_conn_offers(&c->opts, TP_WS_PROTO_JSON2) &&
        (c->posting_rate || c->opts.generic_msg_rate))
        return err_set("Config Error: %s %d over WebSocket rssl.json.v2 needs "
                       "-addConversionOverhead: without it ConsPerf writes JSON natively and "
                       "sends no %s.",
                       c->posting_rate ? "-postingRate" : "-genericMsgRate",
                       c->posting_rate ? c->posting_rate : c->opts.generic_msg_rate,
                       c->posting_rate ? "posts" : "generic messages");
    return 0;
}

int cons_config_check(const cons_config *c)
{
    const run_opts *o = &c->opts;
    if (run_conn_check(o, RUN_CLIENT) != 0 || check_json(c) != 0)
        return -1;
    if (c->request_rate < o->tick_rate)
        return err_set("Config Error: -requestRate %d is less than -tickRate %d.", c->request_rate,
                       o->tick_rate);
    if (opt_check_total_rate("-postingRate", c->posting_rate, o->tick_rate) != 0 ||
        opt_check_total_rate("-genericMsgRate", o->generic_msg_rate, o->tick_rate) != 0 ||
        opt_check_latency_rate("-postingLatencyRate", c->posting_latency_rate, "-postingRate",
                               c->posting_rate, o->tick_rate) != 0 ||
        opt_check_latency_rate("-genericMsgLatencyRate", o->generic_msg_latency_rate,
                               "-genericMsgRate", o->generic_msg_rate, o->tick_rate) != 0)
        return -1;
    if (c->snapshot && c->posting_rate)
        return err_set("Config Error: -postingRate cannot be used with -snapshot (posts need "
                       "streaming items).");
    if (c->snapshot && o->generic_msg_rate)
        return err_set("Config Error: -genericMsgRate cannot be used with -snapshot (generic "
                       "messages need streaming items).");
    if (items_check_common(o->item_count, o->common_item_count, cons_config_threads(c)) != 0)
        return -1;
    if (c->delay_steady_state_calc / 1000 > c->steady_state_time)
        return err_set("Config Error: -delaySteadyStateCalc %d ms is longer than "
                       "-steadyStateTime %d s.",
                       c->delay_steady_state_calc, c->steady_state_time);
    if (opt_check_workers(&o->threads, &o->worker_threads, "reactor") != 0)
        return -1;
    if (c->tunnel && !o->reactor && !c->watchlist)
        return err_set("Config error: Should add -reactor or -watchlist to create and use special "
                       "tunnel streams.");
    if (cons_wsb_mode(c) != CONS_WSB_NONE && !c->watchlist)
        return err_set("Config error: -watchlist must be specified in order to use the warm "
                       "standby feature.");
    if (cons_wsb_mode(c) != CONS_WSB_NONE && c->tunnel)
        return err_set("Config error: -tunnel with warm standby is not supported: the tunnel "
                       "stream would not follow the switch to the standby server.");
    if (o->max_output_bufs != 0 && o->max_output_bufs < o->output_bufs)
        return err_set("Config Error: -maxOutputBufs %d is less than -outputBufs %d.",
                       o->max_output_bufs, o->output_bufs);
    return 0;
}

OPT_DEFINE_TOOL_INIT(cons_config_init, cons_config, "ConsPerf", cons_options, cons_config_defaults,
                     cons_config_check, true, run_version_print)

/* The warm standby lines of the TEST INPUTS block. */
static void print_wsb(const cons_config *c, int w, out_report *r)
{
    int wsb = cons_wsb_mode(c);
    out_input(r, w, "Enable warm standby", "%s", out_yes_no(wsb != CONS_WSB_NONE));
    out_input(r, w, "Warm standby mode", "%s",
              wsb == CONS_WSB_LOGIN     ? "Login"
              : wsb == CONS_WSB_SERVICE ? "Service"
                                        : "None");
    out_input(r, w, "Starting server HostName", "%s", c->wsb_start_host);
    out_input(r, w, "Starting server Port", "%s", c->wsb_start_port);
    out_input(r, w, "Standby server HostName", "%s", c->wsb_standby_host);
    out_input(r, w, "Standby server Port", "%s", c->wsb_standby_port);
}

void cons_config_print(const cons_config *c, const out_extra *extra, out_report *r)
{
    const int w = CONS_LABEL_WIDTH;
    const run_opts *o = &c->opts;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Steady State Time", "%d", c->steady_state_time);
    out_input(r, w, "Delay Steady State Time", "%d", c->delay_steady_state_calc);
    out_input(r, w, "Connection Type", "%s", run_conn_name(o->conn_type));
    RUN_OPTS_PRINT(r, w, o, RUN_IN_HOSTNAME, RUN_IN_PORT);
    print_wsb(c, w, r);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_SERVICE);
    out_input_threads(r, w, &o->threads, o->reactor || c->watchlist ? &o->worker_threads : NULL);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_OUTPUT_BUFS, RUN_IN_INPUT_BUFS, RUN_IN_SEND_BUF, RUN_IN_RECV_BUF,
                   RUN_IN_HIGH_WATER, RUN_IN_INTERFACE, RUN_IN_NODELAY, RUN_IN_USERNAME,
                   RUN_IN_ITEM_COUNT, RUN_IN_COMMON_ITEM_COUNT);
    out_input(r, w, "Request Rate", "%d", c->request_rate);
    out_input(r, w, "Request Snapshots", "%s", out_yes_no(c->snapshot));
    out_input(r, w, "Posting Rate", "%d", c->posting_rate);
    out_input(r, w, "Latency Posting Rate", "%d", c->posting_latency_rate);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_GENMSG_RATE, RUN_IN_GENMSG_LAT_RATE, RUN_IN_ITEM_FILE,
                   RUN_IN_DATA_FILE, RUN_IN_SUMMARY_FILE, RUN_IN_STATS_FILE, RUN_IN_LATENCY_LOG);
    out_input(r, w, "Latency Show JSON Conv", "%s", out_yes_no(c->calc_json_latency));
    /* The ETA 3.7 ConsPerf prints these two always, the 3.6 one never: printed here with
     * WebSocket, where they matter (the captures of both agree with that). */
    if (run_conn_websocket(o)) {
        out_input(r, w, "Use JSON Converter", "%s", out_yes_no(c->add_conversion));
        out_input(r, w, "JSON Allocator Size", "%d", c->json_allocator_size);
    }
    RUN_OPTS_PRINT(r, w, o, RUN_IN_TICK_RATE);
    out_input(r, w, "Reactor/Watchlist Usage", "%s",
              c->watchlist ? "Reactor and Watchlist"
              : o->reactor ? "Reactor"
                           : "None");
    RUN_OPTS_PRINT(r, w, o, RUN_IN_CASTORE, RUN_IN_TLS_FLAGS, RUN_IN_WS_LIST);
    out_input(r, w, "Tunnel Enabled", "%s", out_yes_no(c->tunnel));
    out_input(r, w, "Tunnel Authentication", "%s", out_yes_no(c->tunnel_auth));
    RUN_OPTS_PRINT(r, w, o, RUN_IN_TUNNEL_BUFS, RUN_IN_TUNNEL_USAGE, RUN_IN_COMPRESSION);
    out_input(r, w, "Nanosecond Latency", "%s", out_yes_no(o->nano_time));
    out_input(r, w, "Measure Decode", "%s", out_yes_no(c->measure_decode));

    /* Ours, after the original's lines. */
    RUN_OPTS_PRINT(r, w, o, RUN_IN_MAX_OUTPUT_BUFS);
    out_input(r, w, "Expected Update Rate", "%d", c->expected_update_rate);
    if (o->conn_type == TP_CONN_ENCRYPTED)
        RUN_OPTS_PRINT(r, w, o, RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM);
    out_inputs_end(r, w, extra, o->summary_file);
}

json_object *cons_config_json(const cons_config *cfg)
{
    return opt_inputs_json(cons_options, cfg, cons_config_threads(cfg));
}
