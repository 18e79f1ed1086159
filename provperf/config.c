#include "config.h"

#include "err.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#define C prov_config

static const opt_name conn_types[] = {
    {"socket", 0, NULL},
    {"encrypted", RUN_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

const opt_def prov_options[] = {
    OPT_SECTION_("Server:"),
    OPT_STR_("-p", C, pv.port, "<port>", "Port (number or service name) to listen on"),
    OPT_ENUM_("-connType", C, pv.conn_type, conn_types, NULL, "Type of connection"),
    OPT_STR_("-if", C, pv.interface_name, "<interface>",
             "Network interface (host name or address) to listen on"),
    OPT_INT_("-outputBufs", C, pv.output_bufs, 1, INT_MAX, "<count>",
             "Guaranteed output buffers per connection"),
    OPT_INT_("-maxOutputBufs", C, max_output_bufs, 1, INT_MAX, "<count>",
             "Maximum output buffers per connection"),
    OPT_INT_("-maxFragmentSize", C, max_fragment_size, 1, 65535, "<bytes>",
             "Largest message sent without fragmenting"),
    PV_SOCKET_OPTIONS(C),
    OPT_ENUM_("-compressionType", C, pv.compression_type, opt_compression_names, "<type>",
              "Compression to offer: none, zlib, lz4 (or 0, 1, 2)"),
    OPT_INT_("-compressionLevel", C, compression_level, 0, 9, "<0-9>", "Compression level"),
    OPT_THREADS_("-threads", C, pv.threads, PV_MAX_THREADS, "<list>",
                 "Provider threads, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_RUN_TICK_(C, pv.run_time, pv.tick_rate),
    PV_UPDATE_RATE_OPTIONS(C),
    OPT_INT_("-genericMsgRate", C, generic_msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second per connection"),
    OPT_RATE_("-genericMsgLatencyRate", C, generic_msg_latency_rate, "<msgs/sec|all>",
              "Generic messages per second that carry a latency stamp (all: every one)"),
    PV_PACK_OPTIONS(C),
    OPT_STR_("-serviceName", C, pv.service_name, "<name>", "Name of the service provided"),
    OPT_U64_("-serviceId", C, pv.service_id, 0, 65535, "<id>", "ID of the service provided"),
    OPT_U64_("-openLimit", C, open_limit, 0, UINT32_MAX, "<count>",
             "Items each consumer may open (advertised in the directory)"),
    PV_ENCODE_OPTIONS(C),
    OPT_FLAG_OFF_("-noScheduledStamp", C, pv.sched_stamp,
                  "Do not add the scheduled send time (TIM_TRK_3 in updates, TIM_TRK_1 in "
                  "generic messages) to latency messages"),

    OPT_SECTION_("Files and output:"),
    PV_FILE_OPTIONS(C),
    OPT_STR_("-latencyFile", C, latency_file, "<base>",
             "Log every generic-message latency to <base><thread>.csv"),
    OPT_STATS_OUTPUT_(C, pv.write_stats_interval, pv.display_stats),

    OPT_FLAG_("-reactor", C, pv.reactor, "Run the channels over the reactor layer"),
    OPT_THREADS_("-workerThreads", C, pv.worker_threads, PV_MAX_THREADS, "<list>",
                 "Binding of each provider thread's reactor worker (as -threads)"),
    OPT_INT_("-maxEventsInPool", C, max_events_in_pool, -1, INT_MAX, "<count>",
             "Reactor event pool size (accepted; the reactor layer needs none)"),
    OPT_INT_("-tunnelStreamOutputBufs", C, tunnel_output_bufs, 1, INT_MAX, "<count>",
             "Output buffers of each tunnel stream a consumer opens (-reactor)"),
    OPT_FLAG_("-tunnelStreamBuffersUsed", C, tunnel_bufs_used,
              "Print the tunnel streams' buffer usage at each statistics interval"),
    RUN_WS_OPTION(C, ws),
    RUN_TLS_SERVER_OPTIONS(C, pv.tls),
    RUN_TLS_CIPHER_OPTION(C, pv.tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    OPT_STR_("-histogramLog", C, pv.histogram_log, "<base>",
             "HdrHistogram interval log of every latency kind (ours): <base><thread>.hlog"),
    OPT_FLAG_("-supportStandby", C, support_standby,
              "Advertise warm standby in the login refresh (SupportStandby 1, SupportStandbyMode "
              "3: login and service based), so that warm-standby consumers accept this server "
              "(ours)"),
    OPT_FLAG_("-standbyIgnoreRole", C, standby_ignore_role,
              "Keep sending updates when a warm-standby consumer makes this server its standby, "
              "as a provider that ignores its role does: shows whether the consumer takes data "
              "from its active server only (ours)"),
    OPT_END_,
};

void prov_config_defaults(prov_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    pv_config_defaults(&cfg->pv, "14002", "ProvSummary.out", "ProvStats");
    cfg->max_events_in_pool = -1;
    cfg->max_output_bufs = 5000;
    cfg->max_fragment_size = 6144;
    cfg->open_limit = 1000000;
    cfg->tunnel_output_bufs = 15000;
}

int prov_config_latency_genmsg_rate(const prov_config *cfg)
{
    return opt_rate_of(cfg->generic_msg_latency_rate, cfg->generic_msg_rate);
}

int prov_config_check(const prov_config *c)
{
    if (run_ws_check(&c->ws) != 0)
        return -1;
    if (run_tls_check(&c->pv.tls, c->pv.conn_type, true) < 0)
        return -1;
    if (opt_check_latency_rate("-genericMsgLatencyRate", c->generic_msg_latency_rate,
                               "-genericMsgRate", c->generic_msg_rate, c->pv.tick_rate) != 0)
        return -1;
    if (c->pv.pre_enc && c->generic_msg_latency_rate == OPT_RATE_ALL)
        return err_set("Config Error: -preEnc cannot be used with -genericMsgLatencyRate all "
                       "(every generic message is then encoded with its stamp).");
    if (opt_check_total_rate("-genericMsgRate", c->generic_msg_rate, c->pv.tick_rate) != 0)
        return -1;
    if (pv_config_check_workers(&c->pv) != 0)
        return -1;
    return pv_config_check_feed(&c->pv);
}

OPT_DEFINE_TOOL_INIT(prov_config_init, prov_config, "ProvPerf", prov_options, prov_config_defaults,
                     prov_config_check, true)

void prov_config_print(const prov_config *c, const out_extra *extra, out_report *r)
{
    const int w = PROV_LABEL_WIDTH;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Run Time", "%d", c->pv.run_time);
    /* ProvPerf indents this line with two tabs and prints the connection type's number. */
    out_printf(r, "\t\t  Connection Type: %d\n", c->pv.conn_type);
    out_input(r, w, "Port", "%s", c->pv.port);
    out_input_threads(r, w, &c->pv.threads, c->pv.reactor ? &c->pv.worker_threads : NULL);
    out_input(r, w, "Output Buffers", "%d", c->pv.output_bufs);
    out_input(r, w, "Max Output Buffers", "%d", c->max_output_bufs);
    out_input(r, w, "Max Fragment Size", "%d", c->max_fragment_size);
    out_input_bytes(r, w, "Send Buffer Size", c->pv.send_buf_size);
    out_input_bytes(r, w, "Recv Buffer Size", c->pv.recv_buf_size);
    out_input_name(r, w, "Interface Name", c->pv.interface_name);
    out_input(r, w, "Tcp_NoDelay", "%s", out_yes_no(c->pv.tcp_nodelay));
    out_input(r, w, "Tick Rate", "%d", c->pv.tick_rate);
    out_input(r, w, "Use Direct Writes", "%s", out_yes_no(c->pv.direct_write));
    out_input_bytes(r, w, "High Water Mark", c->pv.high_water_mark);
    out_input(r, w, "Summary File", "%s", c->pv.summary_file);
    out_input(r, w, "Stats File", "%s", c->pv.stats_file);
    out_input(r, w, "Latency File", "%s", c->latency_file);
    out_input(r, w, "Write Stats Interval", "%d", c->pv.write_stats_interval);
    out_input(r, w, "Display Stats", "%s", out_yes_no(c->pv.display_stats));
    /* WebSocket is not built: the original's "off" value. */
    out_input(r, w, "Private Key", "%s", c->pv.tls.keyfile);
    out_input(r, w, "Server Cert", "%s", c->pv.tls.cert);
    out_input(r, w, "Cipher", "%s", c->pv.tls.cipher);
    out_input(r, w, "WS Protocol List", "%s", c->ws.pl);
    out_input(r, w, "Output Tunnel Buffers", "%d", c->tunnel_output_bufs);
    out_input(r, w, "Print Usage Tunnel Bufs", "%s", out_yes_no(c->tunnel_bufs_used));
    out_input(r, w, "Compression type", "%d", c->pv.compression_type);
    out_input(r, w, "Compression level", "%d", c->compression_level);
    out_input(r, w, "Update Rate", "%d", c->pv.update_rate);
    out_input(r, w, "Latency Update Rate", "%d", pv_config_latency_update_rate(&c->pv));
    out_input(r, w, "Generic Msg Rate", "%d", c->generic_msg_rate);
    out_input(r, w, "Latency Generic Msg Rate", "%d", prov_config_latency_genmsg_rate(c));
    out_input(r, w, "Refresh Burst Size", "%d", c->pv.refresh_burst_size);
    out_input(r, w, "Data File", "%s", c->pv.msg_file);
    out_input_packing(r, w, c->pv.max_pack_count, c->pv.pack_buf_size);
    out_input(r, w, "Service ID", "%" PRIu64, c->pv.service_id);
    out_input(r, w, "Service Name", "%s", c->pv.service_name);
    out_input(r, w, "OpenLimit", "%" PRIu64, c->open_limit);
    out_input(r, w, "Pre-Encoded Updates", "%s", out_yes_no(c->pv.pre_enc));
    out_input(r, w, "Nanosecond Time", "%s", out_yes_no(c->pv.nano_time));
    out_input(r, w, "Measure Encode", "%s", out_yes_no(c->pv.measure_encode));
    out_input(r, w, "Use Reactor", "%s", out_yes_no(c->pv.reactor));

    /* Ours, after the original's lines. */
    out_input(r, w, "Scheduled Stamp", "%s", out_yes_no(c->pv.sched_stamp));
    out_inputs_end(r, w, extra, c->pv.summary_file);
}

json_object *prov_config_json(const prov_config *cfg)
{
    return opt_inputs_json(prov_options, cfg, pv_config_threads(&cfg->pv));
}
