#include "config.h"

#include "err.h"
#include "items.h"
#include "pv_feed.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#define C niprov_config

static const opt_name conn_types[] = {
    {"socket", 0, NULL},
    {"reliableMCast", 0, OPT_WHY_RELIABLE_MCAST},
    {"encrypted", RUN_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

const opt_def niprov_options[] = {
    OPT_SECTION_("Connection:"),
    OPT_ENUM_("-connType", C, conn_type, conn_types, NULL, "Type of connection"),
    OPT_STR_("-h", C, host, "<hostname>", "Host of the ADH to publish to"),
    OPT_STR_("-p", C, port, "<port>", "Port (number or service name) of the ADH"),
    OPT_STR_("-if", C, interface_name, "<interface>",
             "Network interface (host name or address) to connect from"),
    OPT_ENUM_("-compressionType", C, compression_type, opt_compression_names, "<type>",
              "Compression to ask for: none, zlib, lz4 (or 0, 1, 2)"),
    OPT_INT_("-outputBufs", C, output_bufs, 1, INT_MAX, "<count>", "Guaranteed output buffers"),
    OPT_INT_("-sendBufSize", C, send_buf_size, 0, INT_MAX, "<bytes>",
             "Socket send buffer size (0: system default)"),
    OPT_INT_("-recvBufSize", C, recv_buf_size, 0, INT_MAX, "<bytes>",
             "Socket receive buffer size (0: system default)"),
    OPT_INT_("-highWaterMark", C, high_water_mark, 0, INT_MAX, "<bytes>",
             "Queued bytes at which output is flushed (0: transport default)"),
    OPT_FLAG_OFF_("-tcpDelay", C, tcp_nodelay, "Leave Nagle's algorithm on (no TCP_NODELAY)"),
    OPT_FLAG_("-directWrite", C, direct_write,
              "Write to the socket at once when nothing is queued"),
    OPT_STR_("-uname", C, uname, "<name>", "User name in the login request (default: login name)"),
    OPT_THREADS_("-threads", C, threads, NIPROV_MAX_THREADS, "<list>",
                 "One connection per entry, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_INT_("-runTime", C, run_time, 0, INT_MAX, "<sec>", "Run time"),
    OPT_INT_("-tickRate", C, tick_rate, 1, INT_MAX, "<ticks/sec>", "Ticks per second"),
    OPT_INT_("-itemCount", C, item_count, 0, INT_MAX, "<count>", "Items to publish in all"),
    OPT_INT_("-commonItemCount", C, common_item_count, 0, INT_MAX, "<count>",
             "Items published on every connection when there are several"),
    OPT_INT_("-updateRate", C, update_rate, 0, INT_MAX, "<updates/sec>",
             "Updates per second per connection"),
    OPT_RATE_("-latencyUpdateRate", C, latency_update_rate, "<updates/sec|all>",
              "Updates per second that carry a latency stamp (all: every update)"),
    OPT_INT_("-refreshBurstSize", C, refresh_burst_size, 1, INT_MAX, "<count>",
             "Refreshes sent between two looks at the clock"),
    OPT_INT_("-maxPackCount", C, max_pack_count, 1, INT_MAX, "<count>",
             "Messages packed into one buffer (1: no packing)"),
    OPT_INT_("-packBufSize", C, pack_buf_size, 0, INT_MAX, "<bytes>", "Size of a packed buffer"),
    OPT_STR_("-serviceName", C, service_name, "<name>", "Name of the service published"),
    OPT_U64_("-serviceId", C, service_id, 0, 65535, "<id>", "ID of the service published"),
    OPT_FLAG_("-preEnc", C, pre_enc, "Send pre-encoded updates (latency updates still encoded)"),
    OPT_FLAG_("-nanoTime", C, nano_time, "Latency stamps in nanoseconds instead of microseconds"),
    OPT_FLAG_("-measureEncode", C, measure_encode, "Measure the time spent encoding updates"),
    OPT_FLAG_OFF_("-noScheduledStamp", C, sched_stamp,
                  "Do not add the scheduled send time (TIM_TRK_3) to latency updates"),

    OPT_SECTION_("Files and output:"),
    OPT_STR_("-itemFile", C, item_file, "<file>", "Items to publish"),
    OPT_STR_("-msgFile", C, msg_file, "<file>", "Message content"),
    OPT_STR_("-summaryFile", C, summary_file, "<file>", "Summary file"),
    OPT_STR_("-statsFile", C, stats_file, "<base>",
             "Statistics file base name (<base><thread>.csv)"),
    OPT_INT_("-writeStatsInterval", C, write_stats_interval, 1, INT_MAX, "<sec>",
             "Seconds between statistics lines"),
    OPT_FLAG_OFF_("-noDisplayStats", C, display_stats, "Do not print statistics on the console"),

    OPT_REFUSED_("-sa", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-sp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-ra", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-rp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-u", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-mcastStats", false, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-takeMCastStats", false, OPT_WHY_RELIABLE_MCAST),
    RUN_TLS_CLIENT_OPTIONS(C, tls),
    OPT_FLAG_("-reactor", C, reactor, "Connect over the reactor layer"),
    OPT_THREADS_("-workerThreads", C, worker_threads, NIPROV_MAX_THREADS, "<list>",
                 "Binding of each connection's reactor worker thread (as -threads)"),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    OPT_STR_("-histogramLog", C, histogram_log, "<base>",
             "HdrHistogram interval log of the update encoding time (-measureEncode; ours): "
             "<base><thread>.hlog"),
    OPT_END_,
};

void niprov_config_defaults(niprov_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    strcpy(cfg->host, "localhost");
    strcpy(cfg->port, "14003");
    cfg->threads.count = 1;
    cfg->output_bufs = 5000;
    cfg->tcp_nodelay = true;
    run_tls_defaults(&cfg->tls);
    cfg->sched_stamp = true;
    cfg->run_time = 360;
    cfg->tick_rate = 1000;
    cfg->item_count = 100000;
    cfg->update_rate = 100000;
    cfg->latency_update_rate = 10;
    cfg->refresh_burst_size = 10;
    cfg->max_pack_count = 1;
    cfg->pack_buf_size = 6000;
    cfg->service_id = 1;
    strcpy(cfg->service_name, "DIRECT_FEED");
    strcpy(cfg->item_file, "350k.xml");
    strcpy(cfg->msg_file, "MsgData.xml");
    strcpy(cfg->summary_file, "NIProvSummary.out");
    strcpy(cfg->stats_file, "NIProvStats");
    cfg->write_stats_interval = 5;
    cfg->display_stats = true;
}

int niprov_config_threads(const niprov_config *cfg)
{
    /* As the original: -workerThreads alone also gives the number of connections. */
    if (!cfg->threads.list[0] && cfg->worker_threads.list[0])
        return cfg->worker_threads.count;
    return opt_threads_count(&cfg->threads);
}

int niprov_config_latency_update_rate(const niprov_config *cfg)
{
    return opt_rate_of(cfg->latency_update_rate, cfg->update_rate);
}

int niprov_config_check(const niprov_config *c)
{
    if (run_tls_check(&c->tls, c->conn_type, false) < 0)
        return -1;
    if (c->conn_type == RUN_CONN_ENCRYPTED && c->tls.encrypted_protocol == TP_CONN_WEBSOCKET &&
        c->reactor)
        return err_set("Config Error: -encryptedConnType websocket with -reactor is not available "
                       "in this build (its reactor layer carries RIPC connections only).");
    if (c->worker_threads.list[0] && c->threads.list[0] &&
        c->worker_threads.count != c->threads.count)
        return err_set("Config Error: worker thread count (%d in -workerThreads) not equal to "
                       "thread count (%d in -threads).",
                       c->worker_threads.count, c->threads.count);
    if (items_check_common(c->item_count, c->common_item_count, niprov_config_threads(c)) != 0)
        return -1;
    return pv_check_options(c->pre_enc, c->latency_update_rate, c->measure_encode, c->update_rate,
                            c->tick_rate, c->max_pack_count, c->pack_buf_size);
}

OPT_DEFINE_TOOL_INIT(niprov_config_init, niprov_config, "NIProvPerf", niprov_options,
                     niprov_config_defaults, niprov_config_check, true)

void niprov_config_print(const niprov_config *c, const out_extra *extra, out_report *r)
{
    const int w = NIPROV_LABEL_WIDTH;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Run Time", "%d sec", c->run_time);
    out_input(r, w, "Connection Type", "%s",
              c->conn_type == RUN_CONN_ENCRYPTED ? "encrypted" : "socket");
    out_input(r, w, "Hostname", "%s", c->host);
    out_input(r, w, "Port", "%s", c->port);
    char threads[2 * OPT_THREADS_LEN + 16];
    out_input(r, w, "Thread List", "%s",
              opt_threads_reactor_text(&c->threads, c->reactor ? &c->worker_threads : NULL, threads,
                                       sizeof(threads)));
    out_input(r, w, "Output Buffers", "%d", c->output_bufs);
    out_input_bytes(r, w, "Send Buffer Size", c->send_buf_size);
    out_input_bytes(r, w, "Recv Buffer Size", c->recv_buf_size);
    out_input_bytes(r, w, "High Water Mark", c->high_water_mark);
    out_input_name(r, w, "Interface Name", c->interface_name);
    out_input(r, w, "Username", "%s", c->uname[0] ? c->uname : "(use system login name)");
    out_input(r, w, "Tcp_NoDelay", "%s", out_yes_no(c->tcp_nodelay));
    out_input(r, w, "Item Count", "%d", c->item_count);
    out_input(r, w, "Common Item Count", "%d", c->common_item_count);
    out_input(r, w, "Tick Rate", "%d", c->tick_rate);
    out_input(r, w, "Use Direct Writes", "%s", out_yes_no(c->direct_write));
    out_input(r, w, "Summary File", "%s", c->summary_file);
    out_input(r, w, "Stats File", "%s", c->stats_file);
    out_input(r, w, "Write Stats Interval", "%d", c->write_stats_interval);
    out_input(r, w, "Display Stats", "%s", out_yes_no(c->display_stats));
    out_input(r, w, "Update Rate", "%d", c->update_rate);
    out_input(r, w, "Latency Update Rate", "%d", niprov_config_latency_update_rate(c));
    out_input(r, w, "Refresh Burst Size", "%d", c->refresh_burst_size);
    out_input(r, w, "Item File", "%s", c->item_file);
    out_input(r, w, "Data File", "%s", c->msg_file);
    if (c->max_pack_count > 1)
        out_input(r, w, "Packing", "Yes(max %d per pack, %d buffer size)", c->max_pack_count,
                  c->pack_buf_size);
    else
        out_input(r, w, "Packing", "No");
    out_input(r, w, "Service ID", "%" PRIu64, c->service_id);
    out_input(r, w, "Service Name", "%s", c->service_name);
    out_input(r, w, "Use Reactor", "%s", c->reactor ? "Yes" : "No");
    out_printf(r, "\n");

    /* NIProvPerf prints these after a blank line, one column to the left. */
    const int t = NIPROV_LABEL_WIDTH_TAIL;
    out_input(r, t, "Pre-Encoded Updates", "%s", out_yes_no(c->pre_enc));
    out_input(r, t, "Nanosecond Time", "%s", out_yes_no(c->nano_time));
    out_input(r, t, "Measure Encode", "%s", out_yes_no(c->measure_encode));
    out_input(r, t, "Multicast Stats", "No");

    /* Ours, after the original's lines. */
    out_input(r, t, "Compression type", "%d", c->compression_type);
    out_input(r, t, "Scheduled Stamp", "%s", out_yes_no(c->sched_stamp));
    char json[NIPROV_PATH_LEN + 8];
    out_extra_inputs(r, t, extra,
                     out_json_path(json, sizeof(json), c->summary_file) == 0 ? json : NULL);
    out_printf(r, "\n");
}

json_object *niprov_config_json(const niprov_config *cfg)
{
    json_object *o = opt_to_json(niprov_options, cfg);
    out_json_add(o, "threadCount", json_object_new_int(niprov_config_threads(cfg)));
    return o;
}
