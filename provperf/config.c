#include "config.h"

#include "err.h"
#include "run_version.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#define C prov_config

const opt_def prov_options[] = {
    OPT_SECTION_("Server:"),
    RUN_OPT_PORT(C, pv.opts, "Port (number or service name) to listen on"),
    RUN_OPT_CONN_TYPE(C, pv.opts, run_conn_provperf),
    RUN_OPT_INTERFACE(C, pv.opts, "Network interface (host name or address) to listen on"),
    RUN_OPT_OUTPUT_BUFS(C, pv.opts, "Guaranteed output buffers per connection"),
    OPT_INT_("-maxOutputBufs", C, pv.opts.max_output_bufs, 1, INT_MAX, "<count>",
             "Maximum output buffers per connection"),
    RUN_OPT_MAX_FRAGMENT(C, pv.opts, "Largest message sent without fragmenting"),
    PV_SOCKET_OPTIONS(C),
    RUN_OPT_COMPRESSION(C, pv.opts, "Compression to offer: none, zlib, lz4 (or 0, 1, 2)"),
    RUN_OPT_COMPRESSION_LEVEL(C, pv.opts),
    RUN_OPT_THREADS(C, pv.opts, PV_MAX_THREADS,
                    "Provider threads, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    RUN_OPT_RUN_TICK(C, pv.opts),
    PV_UPDATE_RATE_OPTIONS(C),
    OPT_INT_("-genericMsgRate", C, pv.opts.generic_msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Generic messages per second per connection"),
    OPT_RATE_("-genericMsgLatencyRate", C, pv.opts.generic_msg_latency_rate, "<msgs/sec|all>",
              "Generic messages per second that carry a latency stamp (all: every one)"),
    PV_PACK_OPTIONS(C),
    RUN_OPT_SERVICE_NAME(C, pv.opts, "Name of the service provided"),
    OPT_U64_("-serviceId", C, pv.service_id, 0, 65535, "<id>", "ID of the service provided"),
    OPT_U64_("-openLimit", C, open_limit, 0, UINT32_MAX, "<count>",
             "Items each consumer may open (advertised in the directory)"),
    PV_ENCODE_OPTIONS(C),
    OPT_FLAG_OFF_("-noScheduledStamp", C, pv.sched_stamp,
                  "Do not add the scheduled send time (TIM_TRK_3 in updates, TIM_TRK_1 in "
                  "generic messages) to latency messages"),

    OPT_SECTION_("Files and output:"),
    PV_FILE_OPTIONS(C),
    RUN_OPT_LATENCY_FILE(C, pv.opts, "Log every generic-message latency to <base><thread>.csv"),
    RUN_OPT_STATS_OUTPUT(C, pv.opts),

    OPT_SECTION_("Reactor:"),
    RUN_OPT_REACTOR(C, pv.opts, "Run the channels over the reactor layer"),
    RUN_OPT_WORKERS(C, pv.opts, PV_MAX_THREADS,
                    "Binding of each provider thread's reactor worker (as -threads)"),
    OPT_INT_("-maxEventsInPool", C, max_events_in_pool, -1, INT_MAX, "<count>",
             "Reactor event pool size (accepted; the reactor layer needs none)"),
    RUN_OPT_TUNNEL_BUFS(C, pv.opts,
                        "Output buffers of each tunnel stream a consumer opens (-reactor)",
                        "Print the tunnel streams' buffer usage at each statistics interval"),

    OPT_SECTION_("WebSocket:"),
    RUN_WS_OPTION(C, pv.opts.ws),

    OPT_SECTION_("Encrypted connections (-connType encrypted):"),
    RUN_TLS_SERVER_OPTIONS(C, pv.opts.tls),
    RUN_TLS_CIPHER_OPTION(C, pv.opts.tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    RUN_OPT_HISTOGRAM_LOG(
        C, pv.opts, "HdrHistogram interval log of every latency kind (ours): <base><thread>.hlog"),
    RUN_OPT_CLOCK(C, pv.opts),
    RUN_OPT_NO_PROGRESS(C, pv.opts),
    OPT_FLAG_("-supportStandby", C, support_standby,
              "Advertise warm standby in the login refresh (SupportStandby 1, SupportStandbyMode "
              "3: login and service based), so that warm-standby consumers accept this server "
              "(ours)"),
    OPT_FLAG_("-standbyIgnoreRole", C, standby_ignore_role,
              "Keep sending updates when a warm-standby consumer makes this server its standby, "
              "as a provider that ignores its role does: shows whether the consumer takes data "
              "from its active server only (ours)"),
    RUN_TLS_RECORD_OPTIONS(C, pv.opts.tls),
    OPT_END_,
};

void prov_config_defaults(prov_config *cfg)
{
    *cfg = (prov_config){.max_events_in_pool = -1, .open_limit = 1000000};
    pv_config_defaults(&cfg->pv, "14002", "ProvSummary.out", "ProvStats");
    cfg->pv.opts.max_output_bufs = 5000;
}

int prov_config_latency_genmsg_rate(const prov_config *cfg)
{
    return opt_rate_of(cfg->pv.opts.generic_msg_latency_rate, cfg->pv.opts.generic_msg_rate);
}

int prov_config_check(const prov_config *c)
{
    const run_opts *o = &c->pv.opts;
    if (run_conn_check(o, RUN_SERVER) != 0)
        return -1;
    if (opt_check_latency_rate("-genericMsgLatencyRate", o->generic_msg_latency_rate,
                               "-genericMsgRate", o->generic_msg_rate, o->tick_rate) != 0)
        return -1;
    if (c->pv.pre_enc && o->generic_msg_latency_rate == OPT_RATE_ALL)
        return err_set("Config Error: -preEnc cannot be used with -genericMsgLatencyRate all "
                       "(every generic message is then encoded with its stamp).");
    if (opt_check_total_rate("-genericMsgRate", o->generic_msg_rate, o->tick_rate) != 0)
        return -1;
    if (pv_config_check_workers(&c->pv) != 0)
        return -1;
    return pv_config_check_feed(&c->pv);
}

OPT_DEFINE_TOOL_INIT(prov_config_init, prov_config, "ProvPerf", prov_options, prov_config_defaults,
                     prov_config_check, true, run_version_print)

void prov_config_print(const prov_config *c, const out_extra *extra, out_report *r)
{
    const int w = PROV_LABEL_WIDTH;
    const run_opts *o = &c->pv.opts;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Run Time", "%d", o->run_time);
    /* ProvPerf indents this line with two tabs and prints the connection type's number. */
    out_printf(r, "\t\t  Connection Type: %d\n", (int)o->conn_type);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_PORT, RUN_IN_THREADS, RUN_IN_OUTPUT_BUFS, RUN_IN_MAX_OUTPUT_BUFS,
                   RUN_IN_MAX_FRAGMENT, RUN_IN_SEND_BUF, RUN_IN_RECV_BUF, RUN_IN_INTERFACE,
                   RUN_IN_NODELAY, RUN_IN_TICK_RATE, RUN_IN_DIRECT_WRITE, RUN_IN_HIGH_WATER,
                   RUN_IN_SUMMARY_FILE, RUN_IN_STATS_FILE, RUN_IN_LATENCY_FILE,
                   RUN_IN_STATS_INTERVAL, RUN_IN_DISPLAY_STATS, RUN_IN_KEY, RUN_IN_CERT,
                   RUN_IN_CIPHER, RUN_IN_WS_LIST, RUN_IN_TUNNEL_BUFS, RUN_IN_TUNNEL_USAGE,
                   RUN_IN_COMPRESSION);
    out_input(r, w, "Compression level", "%d", o->compression_level);
    pv_config_print_rates(r, w, &c->pv);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_GENMSG_RATE, RUN_IN_GENMSG_LAT_RATE);
    out_input(r, w, "Refresh Burst Size", "%d", c->pv.refresh_burst_size);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_DATA_FILE);
    pv_config_print_service(r, w, &c->pv);
    out_input(r, w, "OpenLimit", "%" PRIu64, c->open_limit);
    pv_config_print_encode(r, w, &c->pv);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_REACTOR);

    /* Ours, after the original's lines. */
    out_input(r, w, "Scheduled Stamp", "%s", out_yes_no(c->pv.sched_stamp));
    if (o->conn_type == TP_CONN_ENCRYPTED)
        RUN_OPTS_PRINT(r, w, o, RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM);
    out_inputs_end(r, w, extra, o->summary_file);
}

json_object *prov_config_json(const prov_config *cfg)
{
    return opt_inputs_json(prov_options, cfg, pv_config_threads(&cfg->pv));
}
