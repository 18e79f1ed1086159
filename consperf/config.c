#include "config.h"

#include "err.h"
#include "items.h"
#include "tick.h"

#include <limits.h>
#include <string.h>

#define C cons_config

static const opt_name conn_types[] = {
    {"socket", 0, NULL},
    {"websocket", RUN_CONN_WEBSOCKET, NULL},
    {"webSocket", RUN_CONN_WEBSOCKET, NULL},
    {"WebSocket", RUN_CONN_WEBSOCKET, NULL},
    {"http", 0, OPT_WHY_HTTP},
    {"encrypted", RUN_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

static const opt_name wsb_modes[] = {
    {"login", CONS_WSB_LOGIN, NULL},
    {"service", CONS_WSB_SERVICE, NULL},
    {NULL, 0, NULL},
};

const opt_def cons_options[] = {
    OPT_SECTION_("Connection:"),
    OPT_ENUM_("-connType", C, conn_type, conn_types, NULL, "Type of connection"),
    OPT_STR_("-h", C, host, "<hostname>", "Host of the provider or ADS to connect to"),
    OPT_STR_("-p", C, port, "<port>", "Port (number or service name) to connect to"),
    {.name = "-if",
     .alias = "-i",
     .kind = OPT_STR,
     .off = OPT_FIELD_(C, interface_name, char *),
     .size = sizeof(((C *)0)->interface_name),
     .arg = "<interface>",
     .help = "Network interface (host name or address) to connect from",
     .json = "if"},
    OPT_ENUM_("-compressionType", C, compression_type, opt_compression_names, "<type>",
              "Compression to ask for: none, zlib, lz4 (or 0, 1, 2)"),
    OPT_INT_("-outputBufs", C, output_bufs, 1, INT_MAX, "<count>", "Guaranteed output buffers"),
    {.name = "-maxOutputBufs",
     .alias = "-maxOutputBuffer",
     .kind = OPT_INT,
     .off = OPT_FIELD_(C, max_output_bufs, int),
     .min = 0,
     .max = INT_MAX,
     .arg = "<count>",
     .help = "Maximum output buffers, at least -outputBufs (0: same as -outputBufs)"},
    OPT_INT_("-inputBufs", C, input_bufs, 1, INT_MAX, "<count>", "Input buffers"),
    OPT_SOCKET_SIZES_(C, send_buf_size, recv_buf_size, high_water_mark),
    OPT_FLAG_OFF_("-tcpDelay", C, tcp_nodelay, "Leave Nagle's algorithm on (no TCP_NODELAY)"),
    OPT_STR_("-uname", C, uname, "<name>", "User name in the login request (default: login name)"),
    OPT_STR_("-serviceName", C, service_name, "<name>", "Service to request items from"),
    OPT_THREADS_("-threads", C, threads, CONS_MAX_THREADS, "<list>",
                 "One connection per entry, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_INT_("-tickRate", C, tick_rate, 1, TICK_RATE_MAX, "<ticks/sec>", "Ticks per second"),
    OPT_INT_("-itemCount", C, item_count, 0, INT_MAX, "<count>", "Items to request in all"),
    OPT_INT_("-commonItemCount", C, common_item_count, 0, INT_MAX, "<count>",
             "Items requested by every connection when there are several"),
    OPT_INT_("-requestRate", C, request_rate, 1, INT_MAX, "<items/sec>", "Item request rate"),
    OPT_FLAG_("-snapshot", C, snapshot, "Request snapshots only, and end when all images are in"),
    OPT_INT_("-postingRate", C, posting_rate, 0, INT_MAX, "<posts/sec>",
             "Posts per second per connection (0: none)"),
    OPT_INT_("-postingLatencyRate", C, posting_latency_rate, 0, INT_MAX, "<posts/sec>",
             "Posts per second that carry a latency stamp"),
    OPT_INT_("-genericMsgRate", C, generic_msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second per connection (0: none)"),
    OPT_INT_("-genericMsgLatencyRate", C, generic_msg_latency_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second that carry a latency stamp"),
    OPT_INT_("-steadyStateTime", C, steady_state_time, 0, INT_MAX, "<sec>",
             "Length of the steady state; also the time allowed to receive all images"),
    OPT_INT_("-delaySteadyStateCalc", C, delay_steady_state_calc, 0, 30000, "<msec>",
             "Wait after the last image before steady-state latency counts"),
    OPT_FLAG_("-nanoTime", C, nano_time, "Latency stamps in nanoseconds instead of microseconds"),
    OPT_FLAG_("-measureDecode", C, measure_decode, "Measure the time spent decoding updates"),
    OPT_INT_("-expectedUpdateRate", C, expected_update_rate, 0, INT_MAX, "<updates/sec>",
             "Update rate the provider offers per connection: warn when steady state falls "
             "below 99% of it (0: no check)"),

    OPT_SECTION_("Files and output:"),
    OPT_STR_("-itemFile", C, item_file, "<file>", "Item list"),
    OPT_STR_("-msgFile", C, msg_file, "<file>", "Message content for posts and generic messages"),
    OPT_STR_("-summaryFile", C, summary_file, "<file>", "Summary file"),
    OPT_STR_("-statsFile", C, stats_file, "<base>",
             "Statistics file base name (<base><thread>.csv)"),
    OPT_STR_("-latencyFile", C, latency_file, "<base>",
             "Log every latency sample to <base><thread>.csv"),
    OPT_STATS_OUTPUT_(C, write_stats_interval, display_stats),

    OPT_SECTION_("Reactor:"),
    OPT_FLAG_("-reactor", C, reactor, "Run each connection over the reactor layer"),
    OPT_FLAG_("-watchlist", C, watchlist, "Run each connection over the reactor's watchlist"),
    OPT_THREADS_("-workerThreads", C, worker_threads, CONS_MAX_THREADS, "<list>",
                 "Binding of each connection's reactor worker thread (as -threads)"),

    OPT_FLAG_("-tunnel", C, tunnel,
              "Open a tunnel stream that carries the item traffic (needs -reactor or -watchlist)"),
    OPT_FLAG_("-tunnelAuth", C, tunnel_auth, "Authenticate the tunnel stream (login inside it)"),
    OPT_INT_("-tunnelStreamOutputBufs", C, tunnel_output_bufs, 1, INT_MAX, "<count>",
             "Output buffers of the tunnel stream"),
    OPT_FLAG_("-tunnelStreamBuffersUsed", C, tunnel_bufs_used,
              "Print the tunnel stream's buffer usage at each statistics interval"),
    OPT_STR_("-startingHostName", C, wsb_start_host, "<host>",
             "Warm standby: the starting (first active) server's host"),
    OPT_STR_("-startingPort", C, wsb_start_port, "<port>", "Warm standby: its port"),
    OPT_STR_("-standbyHostName", C, wsb_standby_host, "<host>",
             "Warm standby: the standby server's host"),
    OPT_STR_("-standbyPort", C, wsb_standby_port, "<port>", "Warm standby: its port"),
    OPT_ENUM_("-warmStandbyMode", C, wsb_mode, wsb_modes, "<login|service>",
              "Warm standby mode (default login based; needs -watchlist and the four options)"),

    OPT_SECTION_("WebSocket:"),
    RUN_WS_OPTION(C, ws),
    OPT_FLAG_("-calcRWFJSONConversionLatency", C, calc_json_latency,
              "WebSocket rssl.rwf: convert every received item message to JSON too, inside the "
              "measured decode (the cost of a conversion, as latency)"),
    OPT_FLAG_("-addConversionOverhead", C, add_conversion,
              "WebSocket rssl.json.v2: send RWF converted to JSON and convert what arrives back "
              "to RWF (else JSON is built and read natively; posts and generic messages need "
              "this)"),
    OPT_INT_("-jsonAllocatorSize", C, json_allocator_size, 0, INT_MAX, "<bytes>",
             "Size of the original's per-thread JSON allocator (65536); accepted and printed, "
             "without effect here: this ConsPerf reads and writes JSON in place, with no "
             "allocator to size"),
    RUN_TLS_CLIENT_OPTIONS(C, tls),
    RUN_TLS_SP12_OPTION(C, tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    OPT_STR_("-histogramLog", C, histogram_log, "<base>",
             "HdrHistogram interval log of every latency kind (ours): <base><thread>.hlog"),
    OPT_END_,
};

void cons_config_defaults(cons_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    strcpy(cfg->host, "localhost");
    strcpy(cfg->port, "14002");
    cfg->threads.count = 1;
    cfg->output_bufs = 5000;
    cfg->input_bufs = 15;
    cfg->tcp_nodelay = true;
    run_tls_defaults(&cfg->tls);
    strcpy(cfg->service_name, "DIRECT_FEED");
    cfg->steady_state_time = 300;
    cfg->tick_rate = 1000;
    cfg->item_count = 100000;
    cfg->request_rate = 500000;
    strcpy(cfg->item_file, "350k.xml");
    strcpy(cfg->msg_file, "MsgData.xml");
    strcpy(cfg->summary_file, "ConsSummary.out");
    strcpy(cfg->stats_file, "ConsStats");
    cfg->write_stats_interval = 5;
    cfg->display_stats = true;
    cfg->tunnel_output_bufs = 15000;
    cfg->json_allocator_size = 64 * 1024;
    cfg->wsb_mode = CONS_WSB_LOGIN;
}

int cons_config_threads(const cons_config *cfg)
{
    return opt_threads_with_workers(&cfg->threads, &cfg->worker_threads);
}

int cons_config_check(const cons_config *c)
{
    if (run_ws_check(&c->ws) != 0)
        return -1;
    /* the ETA ConsPerf's words */
    if (c->calc_json_latency && (c->reactor || c->watchlist))
        return err_set("Config error: Should not combine -calcRWFJSONConversionLatency and "
                       "-reactor or -watchlist.");
    if (c->add_conversion && (c->reactor || c->watchlist))
        return err_set("Config error: Should not combine -addConversionOverhead and -reactor or "
                       "-watchlist.");
    if (c->calc_json_latency && !cons_config_websocket(c))
        return err_set("Config error: -calcRWFJSONConversionLatency enables for WebSocket "
                       "connection only.");
    if (c->add_conversion && !cons_config_websocket(c))
        return err_set("Config error: -addConversionOverhead enables for WebSocket connection "
                       "only.");
    if (run_tls_check(&c->tls, c->conn_type, false) < 0)
        return -1;
    if (c->request_rate < c->tick_rate)
        return err_set("Config Error: -requestRate %d is less than -tickRate %d.", c->request_rate,
                       c->tick_rate);
    if (opt_check_total_rate("-postingRate", c->posting_rate, c->tick_rate) != 0 ||
        opt_check_total_rate("-genericMsgRate", c->generic_msg_rate, c->tick_rate) != 0 ||
        opt_check_latency_rate("-postingLatencyRate", c->posting_latency_rate, "-postingRate",
                               c->posting_rate, c->tick_rate) != 0 ||
        opt_check_latency_rate("-genericMsgLatencyRate", c->generic_msg_latency_rate,
                               "-genericMsgRate", c->generic_msg_rate, c->tick_rate) != 0)
        return -1;
    if (c->snapshot && c->posting_rate)
        return err_set("Config Error: -postingRate cannot be used with -snapshot (posts need "
                       "streaming items).");
    if (c->snapshot && c->generic_msg_rate)
        return err_set("Config Error: -genericMsgRate cannot be used with -snapshot (generic "
                       "messages need streaming items).");
    if (items_check_common(c->item_count, c->common_item_count, cons_config_threads(c)) != 0)
        return -1;
    if (c->delay_steady_state_calc / 1000 > c->steady_state_time)
        return err_set("Config Error: -delaySteadyStateCalc %d ms is longer than "
                       "-steadyStateTime %d s.",
                       c->delay_steady_state_calc, c->steady_state_time);
    if (opt_check_workers(&c->threads, &c->worker_threads, "reactor") != 0)
        return -1;
    if (c->tunnel && !c->reactor && !c->watchlist)
        return err_set("Config error: Should add -reactor or -watchlist to create and use special "
                       "tunnel streams.");
    if (cons_wsb_mode(c) != CONS_WSB_NONE && !c->watchlist)
        return err_set("Config error: -watchlist must be specified in order to use the warm "
                       "standby feature.");
    if (cons_wsb_mode(c) != CONS_WSB_NONE && c->tunnel)
        return err_set("Config error: -tunnel with warm standby is not supported: the tunnel "
                       "stream would not follow the switch to the standby server.");
    if (c->max_output_bufs != 0 && c->max_output_bufs < c->output_bufs)
        return err_set("Config Error: -maxOutputBufs %d is less than -outputBufs %d.",
                       c->max_output_bufs, c->output_bufs);
    return 0;
}

OPT_DEFINE_TOOL_INIT(cons_config_init, cons_config, "ConsPerf", cons_options, cons_config_defaults,
                     cons_config_check, true)

void cons_config_print(const cons_config *c, const out_extra *extra, out_report *r)
{
    const int w = CONS_LABEL_WIDTH;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Steady State Time", "%d", c->steady_state_time);
    out_input(r, w, "Delay Steady State Time", "%d", c->delay_steady_state_calc);
    out_input(r, w, "Connection Type", "%s",
              c->conn_type == RUN_CONN_ENCRYPTED   ? "encrypted"
              : c->conn_type == RUN_CONN_WEBSOCKET ? "websocket"
                                                   : "socket");
    out_input(r, w, "Hostname", "%s", c->host);
    out_input(r, w, "Port", "%s", c->port);
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
    out_input(r, w, "Service", "%s", c->service_name);
    out_input_threads(r, w, &c->threads, c->reactor || c->watchlist ? &c->worker_threads : NULL);
    out_input(r, w, "Output Buffers", "%d", c->output_bufs);
    out_input(r, w, "Input Buffers", "%d", c->input_bufs);
    out_input_bytes(r, w, "Send Buffer Size", c->send_buf_size);
    out_input_bytes(r, w, "Recv Buffer Size", c->recv_buf_size);
    out_input_bytes(r, w, "High Water Mark", c->high_water_mark);
    out_input_name(r, w, "Interface Name", c->interface_name);
    out_input(r, w, "Tcp_NoDelay", "%s", out_yes_no(c->tcp_nodelay));
    out_input(r, w, "Username", "%s", c->uname[0] ? c->uname : "(use system login name)");
    out_input(r, w, "Item Count", "%d", c->item_count);
    out_input(r, w, "Common Item Count", "%d", c->common_item_count);
    out_input(r, w, "Request Rate", "%d", c->request_rate);
    out_input(r, w, "Request Snapshots", "%s", out_yes_no(c->snapshot));
    out_input(r, w, "Posting Rate", "%d", c->posting_rate);
    out_input(r, w, "Latency Posting Rate", "%d", c->posting_latency_rate);
    out_input(r, w, "Generic Msg Rate", "%d", c->generic_msg_rate);
    out_input(r, w, "Latency Generic Msg Rate", "%d", c->generic_msg_latency_rate);
    out_input(r, w, "Item File", "%s", c->item_file);
    out_input(r, w, "Data File", "%s", c->msg_file);
    out_input(r, w, "Summary File", "%s", c->summary_file);
    out_input(r, w, "Stats File", "%s", c->stats_file);
    out_input(r, w, "Latency Log File", "%s", c->latency_file[0] ? c->latency_file : "(none)");
    out_input(r, w, "Latency Show JSON Conv", "%s", out_yes_no(c->calc_json_latency));
    /* The ETA 3.7 ConsPerf prints these two always, the 3.6 one never: printed here with
     * WebSocket, where they matter (the captures of both agree with that). */
    if (cons_config_websocket(c)) {
        out_input(r, w, "Use JSON Converter", "%s", out_yes_no(c->add_conversion));
        out_input(r, w, "JSON Allocator Size", "%d", c->json_allocator_size);
    }
    out_input(r, w, "Tick Rate", "%d", c->tick_rate);
    out_input(r, w, "Reactor/Watchlist Usage", "%s",
              c->watchlist ? "Reactor and Watchlist"
              : c->reactor ? "Reactor"
                           : "None");
    out_input(r, w, "CA store location", "%s", c->tls.castore);
    out_input(r, w, "TLS Protocol flags", "%d", run_tls_protocol_flags(&c->tls));
    out_input(r, w, "WS Protocol List", "%s", c->ws.pl);
    out_input(r, w, "Tunnel Enabled", "%s", out_yes_no(c->tunnel));
    out_input(r, w, "Tunnel Authentication", "%s", out_yes_no(c->tunnel_auth));
    out_input(r, w, "Output Tunnel Buffers", "%d", c->tunnel_output_bufs);
    out_input(r, w, "Print Usage Tunnel Bufs", "%s", out_yes_no(c->tunnel_bufs_used));
    out_input(r, w, "Compression type", "%d", c->compression_type);
    out_input(r, w, "Nanosecond Latency", "%s", out_yes_no(c->nano_time));
    out_input(r, w, "Measure Decode", "%s", out_yes_no(c->measure_decode));

    /* Ours, after the original's lines. */
    out_input(r, w, "Max Output Buffers", "%d",
              c->max_output_bufs ? c->max_output_bufs : c->output_bufs);
    out_input(r, w, "Expected Update Rate", "%d", c->expected_update_rate);
    out_inputs_end(r, w, extra, c->summary_file);
}

json_object *cons_config_json(const cons_config *cfg)
{
    return opt_inputs_json(cons_options, cfg, cons_config_threads(cfg));
}
