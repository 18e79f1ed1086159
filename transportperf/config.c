#include "config.h"

#include "err.h"
#include "msg.h"
#include "run_version.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C tperf_config

static const opt_name app_types[] = {
    {"server", TPERF_SERVER, NULL},
    {"client", TPERF_CLIENT, NULL},
    {NULL, 0, NULL},
};

static const opt_name gap_modes[] = {
    {"fail", TPERF_GAPS_FAIL, NULL},
    {"count", TPERF_GAPS_COUNT, NULL},
    {NULL, 0, NULL},
};

/* Writes "<arg><suffix>" (suffix formatted with the pid) into the field at def->off. */
static int set_name(void *cfg, const opt_def *d, const char *arg, bool with_pid, const char *ext)
{
    tperf_config *c = cfg;
    char *field = (char *)cfg + d->off;
    int w = with_pid ? snprintf(field, RUN_OPTS_PATH_LEN, "%s_%d%s", arg, c->pid, ext)
                     : snprintf(field, RUN_OPTS_PATH_LEN, "%s%s", arg, ext);
    if (w < 0 || w >= RUN_OPTS_PATH_LEN)
        return err_set("Config Error: %s: file name is too long.", d->name);
    return 0;
}

static int parse_summary(void *cfg, const opt_def *d, const char *arg)
{
    return set_name(cfg, d, arg, true, ".out");
}

static int parse_summary_static(void *cfg, const opt_def *d, const char *arg)
{
    return set_name(cfg, d, arg, false, ".out");
}

static int parse_stats(void *cfg, const opt_def *d, const char *arg)
{
    return set_name(cfg, d, arg, true, "");
}

static int parse_stats_static(void *cfg, const opt_def *d, const char *arg)
{
    return set_name(cfg, d, arg, false, "");
}

/* -recvLoss <percent>: a decimal number from 0 to 100, kept as parts per million. */
static int parse_loss(void *cfg, const opt_def *d, const char *arg)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v >= 0 && v <= 100))
        return err_set("Config Error: %s %s: value must be a percentage from 0 to 100.", d->name,
                       arg);
    *(int *)((char *)cfg + d->off) = (int)llround(v * 10000.0);
    return 0;
}

#define FILE_OPT_(nm, f, fn, h)                                                                    \
    {                                                                                              \
        .name = (nm), .kind = OPT_CUSTOM, .off = OPT_FIELD_(C, f, char *), .parse = (fn),          \
        .has_arg = true, .arg = "<name>", .help = (h)                                              \
    }

const opt_def tperf_options[] = {
    OPT_SECTION_("Connection:"),
    OPT_ENUM_("-appType", C, app_type, app_types, NULL,
              "Server (accepts connections) or client (opens one per thread)"),
    RUN_OPT_CONN_TYPE(C, opts, run_conn_transportperf),
    RUN_OPT_HOST(C, opts, "Host to connect to (client)"),
    /* Checked with -connType (tperf_config_check): shared memory takes any key. */
    OPT_STR_("-p", C, opts.port, "<port>",
             "Port (number or service name); with -connType shmem, a part of the segment's name"),
    RUN_OPT_INTERFACE(C, opts, "Network interface (host name or address) to use"),
    RUN_OPT_OUTPUT_BUFS(C, opts, "Guaranteed output buffers"),
    RUN_OPT_INPUT_BUFS(C, opts),
    RUN_OPT_MAX_FRAGMENT(C, opts, "Size of the transport's buffers"),
    RUN_OPT_SOCKET_SIZES(C, opts),
    RUN_OPT_COMPRESSION(C, opts, "Compression: none, zlib, lz4 (or 0, 1, 2)"),
    RUN_OPT_COMPRESSION_LEVEL(C, opts),
    RUN_OPT_TCP_DELAY(C, opts),
    RUN_OPT_DIRECT_WRITE(C, opts),
    OPT_FLAG_("-busyRead", C, busy_read, "Read continuously instead of waiting for data"),
    RUN_OPT_THREADS(C, opts, TPERF_MAX_THREADS,
                    "Threads, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    RUN_OPT_RUN_TICK(C, opts),
    OPT_INT_("-msgRate", C, msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Messages per second per connection, latency messages included"),
    OPT_RATE_("-latencyMsgRate", C, latency_msg_rate, "<msgs/sec|all>",
              "Messages per second that carry a time stamp (all: every message)"),
    OPT_INT_("-msgSize", C, msg_size, TPERF_MIN_MSG_SIZE, INT_MAX, "<bytes>", "Size of a message"),
    OPT_INT_("-pack", C, pack, 1, INT_MAX, "<count>", "Messages packed per buffer (1: none)"),
    OPT_FLAG_("-reflectMsgs", C, reflect_msgs, "Write every received message back"),

    OPT_SECTION_("Files and output:"),
    FILE_OPT_("-summaryFile", opts.summary_file, parse_summary,
              "Summary file: <name>_<pid>.out (default: TransportSummary_<pid>.out)"),
    FILE_OPT_("-summaryFileStatic", opts.summary_file, parse_summary_static,
              "Summary file: <name>.out"),
    FILE_OPT_("-statsFile", opts.stats_file, parse_stats,
              "Statistics files: <name>_<pid><thread>_<pid>.csv"),
    FILE_OPT_("-statsFileStatic", opts.stats_file, parse_stats_static,
              "Statistics files: <name><thread>_<pid>.csv (default name: TransportStats)"),
    RUN_OPT_LATENCY_FILE(C, opts, "Log every latency sample to <base><thread>_<pid>.csv"),
    RUN_OPT_STATS_OUTPUT(C, opts),

    OPT_SECTION_("Sequenced multicast (-connType seqMCast; both ends are clients):"),
    OPT_STR_("-sa", C, opts.mc.send_addr, "<address>", "Send group (default: the receive group)"),
    OPT_PORT_("-sp", C, opts.mc.send_port, "Send port"),
    OPT_STR_("-ra", C, opts.mc.recv_addr, "<address>", "Receive group (default: -h)"),
    OPT_PORT_("-rp", C, opts.mc.recv_port, "Receive port (default: -p)"),
    OPT_PORT_("-u", C, opts.mc.unicast_port, "Unicast port (reliable multicast only; unused)"),
    OPT_FLAG_("-mcastStats", C, mcast_stats,
              "Print the datagrams sent and received in every statistics interval"),

    OPT_SECTION_("WebSocket (-connType websocket):"),
    RUN_WS_OPTION(C, opts.ws),
    OPT_SECTION_("Encrypted connections (-connType encrypted):"),
    RUN_TLS_CLIENT_OPTIONS(C, opts.tls),
    RUN_TLS_SERVER_OPTIONS(C, opts.tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    RUN_OPT_HISTOGRAM_LOG(
        C, opts, "HdrHistogram interval log of the latencies (ours): <base><thread>_<pid>.hlog"),
    RUN_OPT_CLOCK(C, opts),
    RUN_OPT_NO_PROGRESS(C, opts),
    RUN_TLS_RECORD_OPTIONS(C, opts.tls),
    OPT_ENUM_("-seqGaps", C, gap_mode, gap_modes, "<fail|count>",
              "On a missing, repeated or out-of-order sequence number: fail (end the run at the "
              "first, as the ETA tool) or count (keep going; gaps, lost and duplicate messages "
              "in the summary, statistics and JSON)"),
    {.name = "-recvLoss",
     .kind = OPT_CUSTOM,
     .off = OPT_FIELD_(C, opts.mc.recv_loss_ppm, int),
     .parse = parse_loss,
     .has_arg = true,
     .arg = "<percent>",
     .help = "seqMCast loss generator for tests: drop this share of the datagrams received, "
             "before they are looked at (0: off)"},
    OPT_U64_("-recvLossSeed", C, opts.mc.recv_loss_seed, 0, UINT64_MAX, "<n>",
             "Seed of the loss generator (0: from the clock)"),
    OPT_END_,
};

void tperf_config_defaults(tperf_config *cfg, int pid)
{
    char summary[64];
    snprintf(summary, sizeof(summary), "TransportSummary_%d.out", pid);
    memset(cfg, 0, sizeof(*cfg));
    run_opts_defaults(&cfg->opts, "14002", summary, "TransportStats");
    cfg->opts.input_bufs = 50;
    cfg->opts.compression_level = 5;
    cfg->opts.run_time = 300;
    cfg->pid = pid;
    cfg->app_type = TPERF_SERVER;
    cfg->msg_rate = 100000;
    cfg->latency_msg_rate = 10;
    cfg->msg_size = 76;
    cfg->pack = 1;
}

int tperf_config_threads(const tperf_config *cfg)
{
    return opt_threads_count(&cfg->opts.threads);
}

int tperf_config_latency_rate(const tperf_config *cfg)
{
    return opt_rate_of(cfg->latency_msg_rate, cfg->msg_rate);
}

int tperf_config_pack_bytes(const tperf_config *cfg)
{
    long long n = ((long long)cfg->msg_size + 8) * cfg->pack;
    return n > INT_MAX ? INT_MAX : (int)n;
}

int tperf_config_check(const tperf_config *c)
{
    const run_opts *o = &c->opts;
    if (run_conn_check(o, c->app_type == TPERF_SERVER ? RUN_SERVER : RUN_CLIENT) != 0)
        return -1;
    if (run_conn_websocket(&c->opts) && c->msg_size < TPERF_MSG_JSON_LEN + TPERF_MSG_HEAD &&
        run_conn_offers(o, TP_WS_PROTO_JSON2))
        return err_set("Config Error: -msgSize %d is too small for rssl.json.v2, whose messages "
                       "begin with their 4-byte length (at least %d).",
                       c->msg_size, TPERF_MSG_JSON_LEN + TPERF_MSG_HEAD);
    if (o->conn_type != TP_CONN_SHMEM && opt_check_port("-p", o->port) != 0)
        return -1;
    if (o->conn_type == TP_CONN_SHMEM && c->app_type == TPERF_CLIENT && c->msg_rate != 0)
        return err_set("Config Error: a shared-memory client only reads: -msgRate must be 0 "
                       "(it is %d).",
                       c->msg_rate);
    if (o->conn_type == TP_CONN_SHMEM && c->reflect_msgs)
        return err_set("Config Error: -reflectMsgs cannot be used with -connType shmem (shared "
                       "memory goes one way).");
    if (o->conn_type == TP_CONN_SHMEM && c->pack > 1)
        return err_set("Config Error: -pack %d cannot be used with -connType shmem (shared "
                       "memory carries one message per buffer).",
                       c->pack);
    if (o->conn_type == TP_CONN_SEQ_MCAST && c->app_type == TPERF_SERVER)
        return err_set("Config Error: appType for Multicast connections must be client (a "
                       "seqMCast channel has no server: both ends connect to the groups).");
    if (c->opts.mc.recv_loss_ppm && o->conn_type != TP_CONN_SEQ_MCAST)
        return err_set("Config Error: -recvLoss drops multicast datagrams: it needs -connType "
                       "seqMCast.");
    if (c->reflect_msgs && c->pack > 1)
        return err_set("Config Error: -reflectMsgs cannot be used with -pack %d (reflected "
                       "messages are not packed).",
                       c->pack);
    if (opt_check_latency_rate("-latencyMsgRate", c->latency_msg_rate, "-msgRate", c->msg_rate,
                               o->tick_rate) != 0 ||
        opt_check_total_rate("-msgRate", c->msg_rate, o->tick_rate) != 0)
        return -1;
    return 0;
}

/* The defaults of this process (the file names carry its id). */
static void defaults_now(tperf_config *cfg)
{
    tperf_config_defaults(cfg, (int)getpid());
}

OPT_DEFINE_TOOL_INIT(tperf_config_init, tperf_config, "TransportPerf", tperf_options, defaults_now,
                     tperf_config_check, false, run_version_print)

/* The thread list as TransportPerf prints it: entries joined by ',' without the spaces around
 * them, "-1" when -threads was not given. */
static void thread_text(const tperf_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < tperf_config_threads(c); i++) {
        char e[OPT_THREADS_LEN];
        if (opt_threads_entry(&c->opts.threads, i, e, sizeof(e)) != 0)
            break;
        int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "", e);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

/* The lines of the connection, from "Connection Type" to "WebSocket protocols". */
static void print_connection(const tperf_config *c, int w, out_report *r)
{
    const run_opts *o = &c->opts;
    out_input(r, w, "Connection Type", "%s", run_conn_name(o->conn_type));
    if (o->conn_type == TP_CONN_ENCRYPTED && c->app_type == TPERF_CLIENT) {
        out_input(r, w, "Encrypted Connection Type", "%s",
                  o->tls.encrypted_protocol == TP_CONN_WEBSOCKET ? "websocket" : "socket");
        out_printf(r, "\t\t\t  CA Store: %s\n", o->tls.castore);
    } else if (o->conn_type == TP_CONN_ENCRYPTED) {
        out_printf(r, "\tServer Private Key: %s\n", o->tls.keyfile);
        out_printf(r, "\tServer Certificate: %s\n", o->tls.cert);
    }
    if (o->conn_type == TP_CONN_SEQ_MCAST && c->opts.mc.send_addr[0])
        out_input(r, w, "Multicast Conn", "(send %s:%s, recv %s:%s)", c->opts.mc.send_addr,
                  c->opts.mc.send_port, c->opts.mc.recv_addr, c->opts.mc.recv_port);
    else
        RUN_OPTS_PRINT(r, w, o, RUN_IN_HOSTNAME, RUN_IN_PORT);
    if (run_conn_websocket(&c->opts))
        out_input(r, w, "WebSocket protocols", "%s", o->ws.pl);
}

void tperf_config_print(const tperf_config *c, const out_extra *extra, out_report *r)
{
    const int w = TPERF_LABEL_WIDTH;
    const run_opts *o = &c->opts;
    char threads[OPT_THREADS_LEN];
    thread_text(c, threads, sizeof(threads));
    out_printf(r, "\n--- TEST INPUTS ---\n\n");
    out_input(r, w, "Runtime", "%d sec", o->run_time);
    print_connection(c, w, r);
    out_input(r, w, "App Type", "%s", c->app_type == TPERF_CLIENT ? "client" : "server");
    out_input(r, w, "Thread List", "%s", threads);
    out_input(r, w, "Busy Read", "%s", out_yes_no(c->busy_read));
    out_input(r, w, "Msg Size", "%d", c->msg_size);
    if (c->reflect_msgs) {
        out_input(r, w, "Msg Rate", "0(reflecting)");
        out_input(r, w, "Latency Msg Rate", "0(reflecting)");
    } else {
        out_input(r, w, "Msg Rate", "%d", c->msg_rate);
        out_input(r, w, "Latency Msg Rate", "%d", tperf_config_latency_rate(c));
    }
    RUN_OPTS_PRINT(r, w, o, RUN_IN_OUTPUT_BUFS, RUN_IN_MAX_FRAGMENT, RUN_IN_SEND_BUF,
                   RUN_IN_RECV_BUF, RUN_IN_HIGH_WATER);
    out_input(r, w, "Compression Type", "%s(%d)", opt_compression_name(o->compression_type),
              o->compression_type);
    out_input(r, w, "Compression Level", "%d", o->compression_level);
    RUN_OPTS_PRINT(r, w, o, RUN_IN_INTERFACE, RUN_IN_NODELAY, RUN_IN_TICK_RATE, RUN_IN_DIRECT_WRITE,
                   RUN_IN_LATENCY_LOG, RUN_IN_SUMMARY_FILE, RUN_IN_STATS_FILE,
                   RUN_IN_STATS_INTERVAL, RUN_IN_DISPLAY_STATS);
    if (c->pack > 1)
        out_input(r, w, "Packing", "Yes(%d per pack)", c->pack);
    else
        out_input(r, w, "Packing", "No");

    /* Ours, after the original's lines. */
    RUN_OPTS_PRINT(r, w, o, RUN_IN_INPUT_BUFS);
    if (o->conn_type == TP_CONN_SEQ_MCAST || c->gap_mode == TPERF_GAPS_COUNT)
        out_input(r, w, "Sequence Gaps", "%s",
                  c->gap_mode == TPERF_GAPS_COUNT ? "count" : "fail at the first");
    if (c->opts.mc.recv_loss_ppm)
        out_input(r, w, "Receive Loss", "%.4f%% of datagrams dropped (seed %llu)",
                  c->opts.mc.recv_loss_ppm / 10000.0,
                  (unsigned long long)c->opts.mc.recv_loss_seed);
    if (o->conn_type == TP_CONN_ENCRYPTED)
        RUN_OPTS_PRINT(r, w, o, RUN_IN_TLS_RECORDS, RUN_IN_TLS_AES_GCM);
    out_inputs_end(r, w, extra, o->summary_file);
}

json_object *tperf_config_json(const tperf_config *cfg)
{
    json_object *o = opt_to_json(tperf_options, cfg);
    out_json_add(o, "summaryFile", json_object_new_string(cfg->opts.summary_file));
    out_json_add(o, "statsFile", json_object_new_string(cfg->opts.stats_file));
    out_json_add(o, "threadCount", json_object_new_int(tperf_config_threads(cfg)));
    out_json_add(o, "recvLossPercent",
                 json_object_new_double(cfg->opts.mc.recv_loss_ppm / 10000.0));
    return o;
}
