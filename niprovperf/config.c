#include "config.h"

#include "run_version.h"

#include "items.h"

#include <limits.h>
#include <string.h>

#define C niprov_config

const opt_def niprov_options[] = {
    OPT_SECTION_("Connection:"),
    RUN_OPT_CONN_TYPE(C, pv.opts, run_conn_niprovperf),
    RUN_OPT_HOST(C, pv.opts, "Host of the ADH to publish to"),
    RUN_OPT_PORT(C, pv.opts, "Port (number or service name) of the ADH"),
    RUN_OPT_INTERFACE(C, pv.opts, "Network interface (host name or address) to connect from"),
    RUN_OPT_COMPRESSION(C, pv.opts, "Compression to ask for: none, zlib, lz4 (or 0, 1, 2)"),
    RUN_OPT_OUTPUT_BUFS(C, pv.opts, "Guaranteed output buffers"),
    PV_SOCKET_OPTIONS(C),
    RUN_OPT_UNAME(C, pv.opts),
    RUN_OPT_THREADS(C, pv.opts, PV_MAX_THREADS,
                    "One connection per entry, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    RUN_OPT_RUN_TICK(C, pv.opts),
    RUN_OPT_ITEM_COUNTS(C, pv.opts, "Items to publish in all",
                        "Items published on every connection when there are several"),
    PV_UPDATE_RATE_OPTIONS(C),
    PV_PACK_OPTIONS(C),
    RUN_OPT_SERVICE_NAME(C, pv.opts, "Name of the service published"),
    OPT_U64_("-serviceId", C, pv.service_id, 0, 65535, "<id>", "ID of the service published"),
    PV_ENCODE_OPTIONS(C),
    OPT_FLAG_OFF_("-noScheduledStamp", C, pv.sched_stamp,
                  "Do not add the scheduled send time (TIM_TRK_3) to latency updates"),

    OPT_SECTION_("Files and output:"),
    RUN_OPT_ITEM_FILE(C, pv.opts, "Items to publish"),
    PV_FILE_OPTIONS(C),
    RUN_OPT_STATS_OUTPUT(C, pv.opts),

    OPT_REFUSED_("-sa", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-sp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-ra", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-rp", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-u", true, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-mcastStats", false, OPT_WHY_RELIABLE_MCAST),
    OPT_REFUSED_("-takeMCastStats", false, OPT_WHY_RELIABLE_MCAST),

    OPT_SECTION_("Encrypted connections (-connType encrypted):"),
    RUN_TLS_CLIENT_OPTIONS(C, pv.opts.tls),

    OPT_SECTION_("Reactor:"),
    RUN_OPT_REACTOR(C, pv.opts, "Connect over the reactor layer"),
    RUN_OPT_WORKERS(C, pv.opts, PV_MAX_THREADS,
                    "Binding of each connection's reactor worker thread (as -threads)"),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    RUN_OPT_HISTOGRAM_LOG(C, pv.opts,
                          "HdrHistogram interval log of the update encoding time (-measureEncode; "
                          "ours): <base><thread>.hlog"),
    RUN_OPT_CLOCK(C, pv.opts),
    RUN_OPT_NO_PROGRESS(C, pv.opts),
    RUN_TLS_RECORD_OPTIONS(C, pv.opts.tls),
    OPT_END_,
};

void niprov_config_defaults(niprov_config *cfg)
{
    pv_config_defaults(&cfg->pv, "14003", "NIProvSummary.out", "NIProvStats");
    /* It has no -pl: inside an encrypted WebSocket connection it speaks RWF, as the ETA
     * NIProvPerf does. */
    strcpy(cfg->pv.opts.ws.pl, "rssl.rwf");
}

int niprov_config_check(const niprov_config *c)
{
    const run_opts *o = &c->pv.opts;
    if (run_conn_check(o, RUN_CLIENT) != 0)
        return -1;
    if (pv_config_check_workers(&c->pv) != 0)
        return -1;
    if (items_check_common(o->item_count, o->common_item_count, pv_config_threads(&c->pv)) != 0)
        return -1;
    return pv_config_check_feed(&c->pv);
}

OPT_DEFINE_TOOL_INIT(niprov_config_init, niprov_config, "NIProvPerf", niprov_options,
                     niprov_config_defaults, niprov_config_check, true, run_version_print)

void niprov_config_print(const niprov_config *c, const out_extra *extra, out_report *r)
{
    const int w = NIPROV_LABEL_WIDTH;
    const run_opts *o = &c->pv.opts;
    out_printf(r, "--- TEST INPUTS ---\n\n");
    out_input(r, w, "Run Time", "%d sec", o->run_time);
    out_input(r, w, "Connection Type", "%s", run_conn_name(o->conn_type));
    RUN_OPTS_PRINT(r, w, o, RUN_IN_HOSTNAME, RUN_IN_PORT, RUN_IN_THREADS, RUN_IN_OUTPUT_BUFS,
                   RUN_IN_SEND_BUF, RUN_IN_RECV_BUF, RUN_IN_HIGH_WATER, RUN_IN_INTERFACE,
                   RUN_IN_USERNAME, RUN_IN_NODELAY, RUN_IN_ITEM_COUNT, RUN_IN_COMMON_ITEM_COUNT,
                   RUN_IN_TICK_RATE, RUN_IN_DIRECT_WRITE, RUN_IN_SUMMARY_FILE, RUN_IN_STATS_FILE,
                   RUN_IN_STATS_INTERVAL, RUN_IN_DISPLAY_STATS);
    pv_config_print_rates(r, w, &c->pv);
    out_input(r, w, "Refresh Burst Size", "%d", c->pv.refresh_burst_size);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_ITEM_FILE, RUN_IN_DATA_FILE);
    pv_config_print_service(r, w, &c->pv);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_REACTOR);
    out_printf(r, "\n");

    /* NIProvPerf prints these after a blank line, one column to the left. */
    const int t = NIPROV_LABEL_WIDTH_TAIL;
    pv_config_print_encode(r, t, &c->pv);
    out_input(r, t, "Multicast Stats", "No");

    /* Ours, after the original's lines. */
    RUN_OPTS_PRINT(r, t, o, RUN_IN_COMPRESSION);
    out_input(r, t, "Scheduled Stamp", "%s", out_yes_no(c->pv.sched_stamp));
    if (o->conn_type == TP_CONN_ENCRYPTED)
        RUN_OPTS_PRINT(r, t, o, RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM);
    out_inputs_end(r, t, extra, o->summary_file);
}

json_object *niprov_config_json(const niprov_config *cfg)
{
    return opt_inputs_json(niprov_options, cfg, pv_config_threads(&cfg->pv));
}
