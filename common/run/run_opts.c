#include "run_opts.h"

#include "clk.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const opt_name run_clock_names[] = {
    {"monotonic", CLK_SRC_MONOTONIC, NULL},
    {"realtime", CLK_SRC_REALTIME, NULL},
    {NULL, 0, NULL},
};

void run_opts_defaults(run_opts *o, const char *port, const char *summary_file,
                       const char *stats_file)
{
    memset(o, 0, sizeof(*o));
    strcpy(o->host, "localhost");
    snprintf(o->port, sizeof(o->port), "%s", port);
    run_tls_defaults(&o->tls);
    o->threads.count = 1;
    o->output_bufs = 5000;
    o->max_fragment_size = 6144;
    o->tcp_nodelay = true;
    strcpy(o->service_name, "DIRECT_FEED");
    o->tick_rate = 1000;
    o->item_count = 100000;
    o->tunnel_output_bufs = 15000;
    strcpy(o->item_file, "350k.xml");
    strcpy(o->msg_file, "MsgData.xml");
    snprintf(o->summary_file, sizeof(o->summary_file), "%s", summary_file);
    snprintf(o->stats_file, sizeof(o->stats_file), "%s", stats_file);
    o->write_stats_interval = 5;
    o->display_stats = true;
}

/* How a line shows its field. */
typedef enum line_kind {
    LINE_INT,   /* int, "%d" */
    LINE_FLAG,  /* bool, "Yes" or "No" */
    LINE_TEXT,  /* char[], as it is */
    LINE_BYTES, /* int, out_input_bytes: "<n> bytes" or "0(use default)" */
    LINE_NAME,  /* char[], out_input_name: the name or "(use default)" */
    LINE_OWN,   /* a rule of its own (print_own) */
} line_kind;

typedef struct line_def {
    const char *label;
    line_kind kind;
    size_t off; /* offset of the field in run_opts */
} line_def;

#define LINE_(key, label, kind, field) [key] = {label, kind, offsetof(run_opts, field)}
#define LINE_OWN_(key) [key] = {NULL, LINE_OWN, 0}

static const line_def lines[] = {
    LINE_(RUN_IN_HOSTNAME, "Hostname", LINE_TEXT, host),
    LINE_(RUN_IN_PORT, "Port", LINE_TEXT, port),
    LINE_(RUN_IN_SERVICE, "Service", LINE_TEXT, service_name),
    LINE_(RUN_IN_SERVICE_NAME, "Service Name", LINE_TEXT, service_name),
    LINE_OWN_(RUN_IN_THREADS),
    LINE_(RUN_IN_OUTPUT_BUFS, "Output Buffers", LINE_INT, output_bufs),
    LINE_OWN_(RUN_IN_MAX_OUTPUT_BUFS),
    LINE_(RUN_IN_INPUT_BUFS, "Input Buffers", LINE_INT, input_bufs),
    LINE_(RUN_IN_MAX_FRAGMENT, "Max Fragment Size", LINE_INT, max_fragment_size),
    LINE_(RUN_IN_SEND_BUF, "Send Buffer Size", LINE_BYTES, send_buf_size),
    LINE_(RUN_IN_RECV_BUF, "Recv Buffer Size", LINE_BYTES, recv_buf_size),
    LINE_(RUN_IN_HIGH_WATER, "High Water Mark", LINE_BYTES, high_water_mark),
    LINE_(RUN_IN_INTERFACE, "Interface Name", LINE_NAME, interface_name),
    LINE_(RUN_IN_NODELAY, "Tcp_NoDelay", LINE_FLAG, tcp_nodelay),
    LINE_(RUN_IN_DIRECT_WRITE, "Use Direct Writes", LINE_FLAG, direct_write),
    LINE_OWN_(RUN_IN_USERNAME),
    LINE_(RUN_IN_TICK_RATE, "Tick Rate", LINE_INT, tick_rate),
    LINE_(RUN_IN_ITEM_COUNT, "Item Count", LINE_INT, item_count),
    LINE_(RUN_IN_COMMON_ITEM_COUNT, "Common Item Count", LINE_INT, common_item_count),
    LINE_(RUN_IN_GENMSG_RATE, "Generic Msg Rate", LINE_INT, generic_msg_rate),
    LINE_OWN_(RUN_IN_GENMSG_LAT_RATE),
    LINE_(RUN_IN_NANO_TIME, "Nanosecond Time", LINE_FLAG, nano_time),
    LINE_(RUN_IN_ITEM_FILE, "Item File", LINE_TEXT, item_file),
    LINE_(RUN_IN_DATA_FILE, "Data File", LINE_TEXT, msg_file),
    LINE_(RUN_IN_SUMMARY_FILE, "Summary File", LINE_TEXT, summary_file),
    LINE_(RUN_IN_STATS_FILE, "Stats File", LINE_TEXT, stats_file),
    LINE_OWN_(RUN_IN_LATENCY_LOG),
    LINE_(RUN_IN_LATENCY_FILE, "Latency File", LINE_TEXT, latency_file),
    LINE_(RUN_IN_STATS_INTERVAL, "Write Stats Interval", LINE_INT, write_stats_interval),
    LINE_(RUN_IN_DISPLAY_STATS, "Display Stats", LINE_FLAG, display_stats),
    LINE_(RUN_IN_CASTORE, "CA store location", LINE_TEXT, tls.castore),
    LINE_OWN_(RUN_IN_TLS_FLAGS),
    LINE_(RUN_IN_KEY, "Private Key", LINE_TEXT, tls.keyfile),
    LINE_(RUN_IN_CERT, "Server Cert", LINE_TEXT, tls.cert),
    LINE_(RUN_IN_CIPHER, "Cipher", LINE_TEXT, tls.cipher),
    LINE_(RUN_IN_WS_LIST, "WS Protocol List", LINE_TEXT, ws.pl),
    LINE_(RUN_IN_TUNNEL_BUFS, "Output Tunnel Buffers", LINE_INT, tunnel_output_bufs),
    LINE_(RUN_IN_TUNNEL_USAGE, "Print Usage Tunnel Bufs", LINE_FLAG, tunnel_bufs_used),
    LINE_(RUN_IN_COMPRESSION, "Compression type", LINE_INT, compression_type),
    LINE_(RUN_IN_REACTOR, "Use Reactor", LINE_FLAG, reactor),
    LINE_OWN_(RUN_IN_TLS_RECORDS),
    LINE_OWN_(RUN_IN_TLS_AES_GCM),
};

/* The lines that are more than a field: key k's line. */
static void print_own(out_report *r, int w, const run_opts *o, run_in k)
{
    switch (k) {
    case RUN_IN_THREADS:
        out_input_threads(r, w, &o->threads, o->reactor ? &o->worker_threads : NULL);
        break;
    case RUN_IN_MAX_OUTPUT_BUFS:
        out_input(r, w, "Max Output Buffers", "%d",
                  o->max_output_bufs ? o->max_output_bufs : o->output_bufs);
        break;
    case RUN_IN_USERNAME:
        out_input(r, w, "Username", "%s", o->uname[0] ? o->uname : "(use system login name)");
        break;
    case RUN_IN_GENMSG_LAT_RATE:
        out_input(r, w, "Latency Generic Msg Rate", "%d",
                  opt_rate_of(o->generic_msg_latency_rate, o->generic_msg_rate));
        break;
    case RUN_IN_LATENCY_LOG:
        out_input(r, w, "Latency Log File", "%s", o->latency_file[0] ? o->latency_file : "(none)");
        break;
    case RUN_IN_TLS_FLAGS:
        out_input(r, w, "TLS Protocol flags", "%d", run_tls_protocol_flags(&o->tls));
        break;
    case RUN_IN_TLS_RECORDS:
        out_input(r, w, "TLS Records", "%s", run_tls_records_text(&o->tls));
        break;
    case RUN_IN_TLS_AES_GCM:
        out_input(r, w, "TLS AES-GCM", "%s", run_tls_gcm_text(&o->tls));
        break;
    default:
        break;
    }
}

void run_opts_print(out_report *r, int width, const run_opts *o, const run_in *keys)
{
    for (; *keys != RUN_IN_END; keys++) {
        if ((size_t)*keys >= sizeof(lines) / sizeof(lines[0]))
            continue;
        const line_def *d = &lines[*keys];
        const char *field = (const char *)o + d->off;
        switch (d->kind) {
        case LINE_INT:
            out_input(r, width, d->label, "%d", *(const int *)(const void *)field);
            break;
        case LINE_FLAG:
            out_input(r, width, d->label, "%s", out_yes_no(*(const bool *)(const void *)field));
            break;
        case LINE_TEXT:
            out_input(r, width, d->label, "%s", field);
            break;
        case LINE_BYTES:
            out_input_bytes(r, width, d->label, *(const int *)(const void *)field);
            break;
        case LINE_NAME:
            out_input_name(r, width, d->label, field);
            break;
        case LINE_OWN:
            print_own(r, width, o, *keys);
            break;
        }
    }
}
