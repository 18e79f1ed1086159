#include "config.h"

#include "err.h"
#include "items.h"

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
    OPT_ENUM_("-connType", C, pv.conn_type, conn_types, NULL, "Type of connection"),
    OPT_STR_("-h", C, host, "<hostname>", "Host of the ADH to publish to"),
    OPT_STR_("-p", C, pv.port, "<port>", "Port (number or service name) of the ADH"),
    OPT_STR_("-if", C, pv.interface_name, "<interface>",
             "Network interface (host name or address) to connect from"),
    OPT_ENUM_("-compressionType", C, pv.compression_type, opt_compression_names, "<type>",
              "Compression to ask for: none, zlib, lz4 (or 0, 1, 2)"),
    OPT_INT_("-outputBufs", C, pv.output_bufs, 1, INT_MAX, "<count>", "Guaranteed output buffers"),
    PV_SOCKET_OPTIONS(C),
    OPT_STR_("-uname", C, uname, "<name>", "User name in the login request (default: login name)"),
    OPT_THREADS_("-threads", C, pv.threads, PV_MAX_THREADS, "<list>",
                 "One connection per entry, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_RUN_TICK_(C, pv.run_time, pv.tick_rate),
    OPT_INT_("-itemCount", C, item_count, 0, INT_MAX, "<count>", "Items to publish in all"),
    OPT_INT_("-commonItemCount", C, common_item_count, 0, INT_MAX, "<count>",
             "Items published on every connection when there are several"),
    PV_UPDATE_RATE_OPTIONS(C),
    PV_PACK_OPTIONS(C),
    OPT_STR_("-serviceName", C, pv.service_name, "<name>", "Name of the service published"),
    OPT_U64_("-serviceId", C, pv.service_id, 0, 65535, "<id>", "ID of the service published"),
    PV_ENCODE_OPTIONS(C),
    OPT_FLAG_OFF_("-noScheduledStamp", C, pv.sched_stamp,
                  "Do not add the scheduled send time (TIM_TRK_3) to latency updates"),

    OPT_SECTION_("Files and output:"),
    OPT_STR_("-itemFile", C, item_file, "<file>", "Items to publish"),
    PV_FILE_OPTIONS(C),
    OPT_STATS_OUTPUT_(C, pv.write_stats_interval, pv.display_stats),

    OPT_REFUSED_("-sa", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-sp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-ra", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-rp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-u", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-mcastStats", false, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-takeMCastStats", false, OPT_WHY_RELIABLE_MCAST),
    RUN_TLS_CLIENT_OPTIONS(C, pv.tls),
    OPT_FLAG_("-reactor", C, pv.reactor, "Connect over the reactor layer"),
    OPT_THREADS_("-workerThreads", C, pv.worker_threads, PV_MAX_THREADS, "<list>",
                 "Binding of each connection's reactor worker thread (as -threads)"),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    OPT_STR_("-histogramLog", C, pv.histogram_log, "<base>",
             "HdrHistogram interval log of the update encoding time (-measureEncode; ours): "
             "<base><thread>.hlog"),
    OPT_END_,
};

void niprov_config_defaults(niprov_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    pv_config_defaults(&cfg->pv, "14003", "NIProvSummary.out", "NIProvStats");
    strcpy(cfg->host, "localhost");
    cfg->item_count = 100000;
    strcpy(cfg->item_file, "350k.xml");
}

int niprov_config_check(const niprov_config *c)
{
    if (run_tls_check(&c->pv.tls, c->pv.conn_type, false) < 0)
        return -1;
    if (pv_config_check_workers(&c->pv) != 0)
        return -1;
    if (items_check_common(c->item_count, c->common_item_count, pv_config_threads(&c->pv)) != 0)
        return -1;
    return pv_config_check_feed(&c->pv);
}

OPT_DEFINE_TOOL_INIT(niprov_config_init, niprov_config, "NIProvPerf", niprov_options,
                     niprov_config_defaults, niprov_config_check, true)

void niprov_config_print(const niprov_config *c, const out_extra *extra, out_report *r)
{
    const int w = NIPROV_LABEL_WIDTH;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Run Time", "%d sec", c->pv.run_time);
    out_input(r, w, "Connection Type", "%s",
              c->pv.conn_type == RUN_CONN_ENCRYPTED ? "encrypted" : "socket");
    out_input(r, w, "Hostname", "%s", c->host);
    out_input(r, w, "Port", "%s", c->pv.port);
    out_input_threads(r, w, &c->pv.threads, c->pv.reactor ? &c->pv.worker_threads : NULL);
    out_input(r, w, "Output Buffers", "%d", c->pv.output_bufs);
    out_input_bytes(r, w, "Send Buffer Size", c->pv.send_buf_size);
    out_input_bytes(r, w, "Recv Buffer Size", c->pv.recv_buf_size);
    out_input_bytes(r, w, "High Water Mark", c->pv.high_water_mark);
    out_input_name(r, w, "Interface Name", c->pv.interface_name);
    out_input(r, w, "Username", "%s", c->uname[0] ? c->uname : "(use system login name)");
    out_input(r, w, "Tcp_NoDelay", "%s", out_yes_no(c->pv.tcp_nodelay));
    out_input(r, w, "Item Count", "%d", c->item_count);
    out_input(r, w, "Common Item Count", "%d", c->common_item_count);
    out_input(r, w, "Tick Rate", "%d", c->pv.tick_rate);
    out_input(r, w, "Use Direct Writes", "%s", out_yes_no(c->pv.direct_write));
    out_input(r, w, "Summary File", "%s", c->pv.summary_file);
    out_input(r, w, "Stats File", "%s", c->pv.stats_file);
    out_input(r, w, "Write Stats Interval", "%d", c->pv.write_stats_interval);
    out_input(r, w, "Display Stats", "%s", out_yes_no(c->pv.display_stats));
    out_input(r, w, "Update Rate", "%d", c->pv.update_rate);
    out_input(r, w, "Latency Update Rate", "%d", pv_config_latency_update_rate(&c->pv));
    out_input(r, w, "Refresh Burst Size", "%d", c->pv.refresh_burst_size);
    out_input(r, w, "Item File", "%s", c->item_file);
    out_input(r, w, "Data File", "%s", c->pv.msg_file);
    out_input_packing(r, w, c->pv.max_pack_count, c->pv.pack_buf_size);
    out_input(r, w, "Service ID", "%" PRIu64, c->pv.service_id);
    out_input(r, w, "Service Name", "%s", c->pv.service_name);
    out_input(r, w, "Use Reactor", "%s", c->pv.reactor ? "Yes" : "No");
    out_printf(r, "\n");

    /* NIProvPerf prints these after a blank line, one column to the left. */
    const int t = NIPROV_LABEL_WIDTH_TAIL;
    out_input(r, t, "Pre-Encoded Updates", "%s", out_yes_no(c->pv.pre_enc));
    out_input(r, t, "Nanosecond Time", "%s", out_yes_no(c->pv.nano_time));
    out_input(r, t, "Measure Encode", "%s", out_yes_no(c->pv.measure_encode));
    out_input(r, t, "Multicast Stats", "No");

    /* Ours, after the original's lines. */
    out_input(r, t, "Compression type", "%d", c->pv.compression_type);
    out_input(r, t, "Scheduled Stamp", "%s", out_yes_no(c->pv.sched_stamp));
    out_inputs_end(r, t, extra, c->pv.summary_file);
}

json_object *niprov_config_json(const niprov_config *cfg)
{
    return opt_inputs_json(niprov_options, cfg, pv_config_threads(&cfg->pv));
}
