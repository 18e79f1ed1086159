#include "config.h"

#include "err.h"
#include "msg.h"

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

static const opt_name conn_types[] = {
    {"socket", TPERF_SOCKET, NULL},
    {"shmem", TPERF_SHMEM, NULL},
    {"seqMCast", TPERF_SEQ_MCAST, NULL},
    {"websocket", TPERF_WEBSOCKET, NULL},
    {"http", 0, OPT_WHY_HTTP},
    {"encrypted", TPERF_ENCRYPTED, NULL},
    {"reliableMCast", 0, OPT_WHY_RELIABLE_MCAST},
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
    int w = with_pid ? snprintf(field, TPERF_PATH_LEN, "%s_%d%s", arg, c->pid, ext)
                     : snprintf(field, TPERF_PATH_LEN, "%s%s", arg, ext);
    if (w < 0 || w >= TPERF_PATH_LEN)
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
    OPT_ENUM_("-connType", C, conn_type, conn_types, NULL, "Type of connection"),
    OPT_STR_("-h", C, host, "<hostname>", "Host to connect to (client)"),
    OPT_STR_("-p", C, port, "<port>", "Port (number or service name)"),
    OPT_STR_("-if", C, interface_name, "<interface>",
             "Network interface (host name or address) to use"),
    OPT_INT_("-outputBufs", C, output_bufs, 1, INT_MAX, "<count>", "Guaranteed output buffers"),
    OPT_INT_("-inputBufs", C, input_bufs, 1, INT_MAX, "<count>", "Input buffers"),
    OPT_INT_("-maxFragmentSize", C, max_fragment_size, 1, 65535, "<bytes>",
             "Size of the transport's buffers"),
    OPT_SOCKET_SIZES_(C, send_buf_size, recv_buf_size, high_water_mark),
    OPT_ENUM_("-compressionType", C, compression_type, opt_compression_names, "<type>",
              "Compression: none, zlib, lz4 (or 0, 1, 2)"),
    OPT_INT_("-compressionLevel", C, compression_level, 0, 9, "<0-9>", "Compression level"),
    OPT_FLAG_OFF_("-tcpDelay", C, tcp_nodelay, "Leave Nagle's algorithm on (no TCP_NODELAY)"),
    OPT_FLAG_("-directWrite", C, direct_write,
              "Write to the socket at once when nothing is queued"),
    OPT_FLAG_("-busyRead", C, busy_read, "Read continuously instead of waiting for data"),
    OPT_THREADS_("-threads", C, threads, TPERF_MAX_THREADS, "<list>",
                 "Threads, bound to: -1 (none), a CPU, or P:<n> C:<n> T:<n>"),

    OPT_SECTION_("Test:"),
    OPT_RUN_TICK_(C, run_time, tick_rate),
    OPT_INT_("-msgRate", C, msg_rate, 0, INT_MAX, "<msgs/sec>",
             "Messages per second per connection, latency messages included"),
    OPT_RATE_("-latencyMsgRate", C, latency_msg_rate, "<msgs/sec|all>",
              "Messages per second that carry a time stamp (all: every message)"),
    OPT_INT_("-msgSize", C, msg_size, TPERF_MIN_MSG_SIZE, INT_MAX, "<bytes>", "Size of a message"),
    OPT_INT_("-pack", C, pack, 1, INT_MAX, "<count>", "Messages packed per buffer (1: none)"),
    OPT_FLAG_("-reflectMsgs", C, reflect_msgs, "Write every received message back"),

    OPT_SECTION_("Files and output:"),
    FILE_OPT_("-summaryFile", summary_file, parse_summary,
              "Summary file: <name>_<pid>.out (default: TransportSummary_<pid>.out)"),
    FILE_OPT_("-summaryFileStatic", summary_file, parse_summary_static, "Summary file: <name>.out"),
    FILE_OPT_("-statsFile", stats_file, parse_stats,
              "Statistics files: <name>_<pid><thread>_<pid>.csv"),
    FILE_OPT_("-statsFileStatic", stats_file, parse_stats_static,
              "Statistics files: <name><thread>_<pid>.csv (default name: TransportStats)"),
    OPT_STR_("-latencyFile", C, latency_file, "<base>",
             "Log every latency sample to <base><thread>_<pid>.csv"),
    OPT_STATS_OUTPUT_(C, write_stats_interval, display_stats),

    OPT_SECTION_("Sequenced multicast (-connType seqMCast; both ends are clients):"),
    OPT_STR_("-sa", C, send_addr, "<address>", "Send group (default: the receive group)"),
    OPT_STR_("-sp", C, send_port, "<port>", "Send port"),
    OPT_STR_("-ra", C, recv_addr, "<address>", "Receive group (default: -h)"),
    OPT_STR_("-rp", C, recv_port, "<port>", "Receive port (default: -p)"),
    OPT_STR_("-u", C, unicast_port, "<port>", "Unicast port (reliable multicast only; unused)"),
    OPT_FLAG_("-mcastStats", C, mcast_stats,
              "Print the datagrams sent and received in every statistics interval"),

    RUN_WS_OPTION(C, ws),
    OPT_SECTION_("Encrypted connections (-connType encrypted):"),
    RUN_TLS_CLIENT_OPTIONS(C, tls),
    RUN_TLS_SERVER_OPTIONS(C, tls),

    OPT_SECTION_("Ours, beyond the ETA tools' options:"),
    OPT_STR_("-histogramLog", C, histogram_log, "<base>",
             "HdrHistogram interval log of the latencies (ours): <base><thread>_<pid>.hlog"),
    OPT_ENUM_("-seqGaps", C, gap_mode, gap_modes, "<fail|count>",
              "On a missing, repeated or out-of-order sequence number: fail (end the run at the "
              "first, as the ETA tool) or count (keep going; gaps, lost and duplicate messages "
              "in the summary, statistics and JSON)"),
    {.name = "-recvLoss",
     .kind = OPT_CUSTOM,
     .off = OPT_FIELD_(C, recv_loss_ppm, int),
     .parse = parse_loss,
     .has_arg = true,
     .arg = "<percent>",
     .help = "seqMCast loss generator for tests: drop this share of the datagrams received, "
             "before they are looked at (0: off)"},
    OPT_U64_("-recvLossSeed", C, recv_loss_seed, 0, UINT64_MAX, "<n>",
             "Seed of the loss generator (0: from the clock)"),
    OPT_END_,
};

void tperf_config_defaults(tperf_config *cfg, int pid)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->pid = pid;
    cfg->app_type = TPERF_SERVER;
    cfg->conn_type = TPERF_SOCKET;
    strcpy(cfg->host, "localhost");
    strcpy(cfg->port, "14002");
    cfg->threads.count = 1;
    cfg->output_bufs = 5000;
    cfg->input_bufs = 50;
    cfg->max_fragment_size = 6144;
    cfg->compression_level = 5;
    cfg->tcp_nodelay = true;
    run_tls_defaults(&cfg->tls);
    cfg->run_time = 300;
    cfg->tick_rate = 1000;
    cfg->msg_rate = 100000;
    cfg->latency_msg_rate = 10;
    cfg->msg_size = 76;
    cfg->pack = 1;
    snprintf(cfg->summary_file, sizeof(cfg->summary_file), "TransportSummary_%d.out", pid);
    strcpy(cfg->stats_file, "TransportStats");
    cfg->write_stats_interval = 5;
    cfg->display_stats = true;
}

int tperf_config_threads(const tperf_config *cfg)
{
    return opt_threads_count(&cfg->threads);
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
    if (run_ws_check(&c->ws) != 0)
        return -1;
    if (tperf_config_websocket(c) && c->msg_size < TPERF_MSG_JSON_LEN + TPERF_MSG_HEAD &&
        strstr(c->ws.pl, "json"))
        return err_set("Config Error: -msgSize %d is too small for rssl.json.v2, whose messages "
                       "begin with their 4-byte length (at least %d).",
                       c->msg_size, TPERF_MSG_JSON_LEN + TPERF_MSG_HEAD);
    if (run_tls_check(&c->tls, c->conn_type == TPERF_ENCRYPTED ? RUN_CONN_ENCRYPTED : 0,
                      c->app_type == TPERF_SERVER) < 0)
        return -1;
    if (c->conn_type == TPERF_SHMEM && c->app_type == TPERF_CLIENT && c->msg_rate != 0)
        return err_set("Config Error: a shared-memory client only reads: -msgRate must be 0 "
                       "(it is %d).",
                       c->msg_rate);
    if (c->conn_type == TPERF_SHMEM && c->reflect_msgs)
        return err_set("Config Error: -reflectMsgs cannot be used with -connType shmem (shared "
                       "memory goes one way).");
    if (c->conn_type == TPERF_SHMEM && c->pack > 1)
        return err_set("Config Error: -pack %d cannot be used with -connType shmem (shared "
                       "memory carries one message per buffer).",
                       c->pack);
    if (c->conn_type == TPERF_SEQ_MCAST && c->app_type == TPERF_SERVER)
        return err_set("Config Error: appType for Multicast connections must be client (a "
                       "seqMCast channel has no server: both ends connect to the groups).");
    if (c->recv_loss_ppm && c->conn_type != TPERF_SEQ_MCAST)
        return err_set("Config Error: -recvLoss drops multicast datagrams: it needs -connType "
                       "seqMCast.");
    if (c->reflect_msgs && c->pack > 1)
        return err_set("Config Error: -reflectMsgs cannot be used with -pack %d (reflected "
                       "messages are not packed).",
                       c->pack);
    if (opt_check_latency_rate("-latencyMsgRate", c->latency_msg_rate, "-msgRate", c->msg_rate,
                               c->tick_rate) != 0 ||
        opt_check_total_rate("-msgRate", c->msg_rate, c->tick_rate) != 0)
        return -1;
    return 0;
}

/* The defaults of this process (the file names carry its id). */
static void defaults_now(tperf_config *cfg)
{
    tperf_config_defaults(cfg, (int)getpid());
}

OPT_DEFINE_TOOL_INIT(tperf_config_init, tperf_config, "TransportPerf", tperf_options, defaults_now,
                     tperf_config_check, false)

const char *tperf_conn_name(int conn_type)
{
    return conn_type == TPERF_SHMEM       ? "shmem"
           : conn_type == TPERF_SEQ_MCAST ? "seqMCast"
           : conn_type == TPERF_ENCRYPTED ? "encrypted"
           : conn_type == TPERF_WEBSOCKET ? "websocket"
                                          : "socket";
}

/* The thread list as TransportPerf prints it: entries joined by ',' without the spaces around
 * them, "-1" when -threads was not given. */
static void thread_text(const tperf_config *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < tperf_config_threads(c); i++) {
        char e[OPT_THREADS_LEN];
        if (opt_threads_entry(&c->threads, i, e, sizeof(e)) != 0)
            break;
        int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "", e);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

void tperf_config_print(const tperf_config *c, const out_extra *extra, out_report *r)
{
    const int w = TPERF_LABEL_WIDTH;
    char threads[OPT_THREADS_LEN];
    thread_text(c, threads, sizeof(threads));
    out_printf(r, "\n--- TEST INPUTS ---\n\n");
    out_input(r, w, "Runtime", "%d sec", c->run_time);
    out_input(r, w, "Connection Type", "%s", tperf_conn_name(c->conn_type));
    if (c->conn_type == TPERF_ENCRYPTED && c->app_type == TPERF_CLIENT) {
        out_input(r, w, "Encrypted Connection Type", "%s",
                  c->tls.encrypted_protocol == TP_CONN_WEBSOCKET ? "websocket" : "socket");
        out_printf(r, "\t\t\t  CA Store: %s\n", c->tls.castore);
    } else if (c->conn_type == TPERF_ENCRYPTED) {
        out_printf(r, "\tServer Private Key: %s\n", c->tls.keyfile);
        out_printf(r, "\tServer Certificate: %s\n", c->tls.cert);
    }
    if (c->conn_type == TPERF_SEQ_MCAST && c->send_addr[0]) {
        out_input(r, w, "Multicast Conn", "(send %s:%s, recv %s:%s)", c->send_addr, c->send_port,
                  c->recv_addr, c->recv_port);
    } else {
        out_input(r, w, "Hostname", "%s", c->host);
        out_input(r, w, "Port", "%s", c->port);
    }
    if (tperf_config_websocket(c))
        out_input(r, w, "WebSocket protocols", "%s", c->ws.pl);
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
    out_input(r, w, "Output Buffers", "%d", c->output_bufs);
    out_input(r, w, "Max Fragment Size", "%d", c->max_fragment_size);
    out_input_bytes(r, w, "Send Buffer Size", c->send_buf_size);
    out_input_bytes(r, w, "Recv Buffer Size", c->recv_buf_size);
    out_input_bytes(r, w, "High Water Mark", c->high_water_mark);
    out_input(r, w, "Compression Type", "%s(%d)", opt_compression_name(c->compression_type),
              c->compression_type);
    out_input(r, w, "Compression Level", "%d", c->compression_level);
    out_input_name(r, w, "Interface Name", c->interface_name);
    out_input(r, w, "Tcp_NoDelay", "%s", out_yes_no(c->tcp_nodelay));
    out_input(r, w, "Tick Rate", "%d", c->tick_rate);
    out_input(r, w, "Use Direct Writes", "%s", out_yes_no(c->direct_write));
    out_input(r, w, "Latency Log File", "%s", c->latency_file[0] ? c->latency_file : "(none)");
    out_input(r, w, "Summary File", "%s", c->summary_file);
    out_input(r, w, "Stats File", "%s", c->stats_file);
    out_input(r, w, "Write Stats Interval", "%d", c->write_stats_interval);
    out_input(r, w, "Display Stats", "%s", out_yes_no(c->display_stats));
    if (c->pack > 1)
        out_input(r, w, "Packing", "Yes(%d per pack)", c->pack);
    else
        out_input(r, w, "Packing", "No");

    /* Ours, after the original's lines. */
    out_input(r, w, "Input Buffers", "%d", c->input_bufs);
    if (c->conn_type == TPERF_SEQ_MCAST || c->gap_mode == TPERF_GAPS_COUNT)
        out_input(r, w, "Sequence Gaps", "%s",
                  c->gap_mode == TPERF_GAPS_COUNT ? "count" : "fail at the first");
    if (c->recv_loss_ppm)
        out_input(r, w, "Receive Loss", "%.4f%% of datagrams dropped (seed %llu)",
                  c->recv_loss_ppm / 10000.0, (unsigned long long)c->recv_loss_seed);
    out_inputs_end(r, w, extra, c->summary_file);
}

json_object *tperf_config_json(const tperf_config *cfg)
{
    json_object *o = opt_to_json(tperf_options, cfg);
    out_json_add(o, "summaryFile", json_object_new_string(cfg->summary_file));
    out_json_add(o, "statsFile", json_object_new_string(cfg->stats_file));
    out_json_add(o, "threadCount", json_object_new_int(tperf_config_threads(cfg)));
    out_json_add(o, "recvLossPercent", json_object_new_double(cfg->recv_loss_ppm / 10000.0));
    return o;
}
