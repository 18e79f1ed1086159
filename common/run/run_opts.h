/*
 * run_opts: the inputs the four tools have in common, embedded as `opts` in each tool's
 * configuration (in pv_config for ProvPerf and NIProvPerf): the connection (host, port,
 * interface, connection type, TLS and WebSocket options, compression, buffers, socket sizes),
 * the threads and their CPU binding, the tick rate and run time, the item and message rates
 * several tools take, and the output files. Each tool keeps only its own fields.
 *
 * Written here once for those fields: the defaults (run_opts_defaults), the option table
 * entries (RUN_OPT_*; a tool's table names them in its own order, with its own help text where
 * the tools word an option differently), and the TEST INPUTS lines (run_opts_print, which prints
 * the lines named by a list of RUN_IN_* keys in the order given, so that each tool prints its
 * original's order).
 */
#ifndef RWFPERF_RUN_OPTS_H
#define RWFPERF_RUN_OPTS_H

#include "opt.h"
#include "out.h"
#include "run_conn.h"
#include "run_tls.h"
#include "run_ws.h"

#include <limits.h>
#include <stdbool.h>

#define RUN_OPTS_NAME_LEN 256
#define RUN_OPTS_PATH_LEN 512

typedef struct run_opts {
    /* Connection */
    char host[RUN_OPTS_NAME_LEN];           /* -h, "localhost" */
    char port[64];                          /* -p, the tool's default */
    char interface_name[RUN_OPTS_NAME_LEN]; /* -if, "" = any */
    tp_conn_type conn_type;                 /* -connType (the words: run_conn.h), socket */
    run_tls tls;                            /* the encrypted connection's options */
    run_ws ws;                              /* -pl: WebSocket sub-protocols */
    run_mc mc;                              /* seqMCast's groups and loss generator */
    int compression_type;                   /* -compressionType: 0 none, 1 zlib, 2 lz4 */
    int compression_level;                  /* -compressionLevel, 0..9, the tool's default */
    opt_threads threads;                    /* -threads, with the CPU binding of each */
    bool reactor;                           /* -reactor: over the reactor layer */
    opt_threads worker_threads;             /* -workerThreads: each reactor worker's binding */
    int output_bufs;                        /* -outputBufs, guaranteed output buffers, 5000 */
    int max_output_bufs;                    /* -maxOutputBufs, the tool's default */
    int input_bufs;                         /* -inputBufs, the tool's default */
    int max_fragment_size;                  /* -maxFragmentSize, 6144 */
    int send_buf_size;                      /* -sendBufSize, 0 = system default */
    int recv_buf_size;                      /* -recvBufSize, 0 = system default */
    int high_water_mark;                    /* -highWaterMark, 0 = transport default */
    bool tcp_nodelay;                       /* true unless -tcpDelay */
    bool direct_write;                      /* -directWrite */
    char uname[RUN_OPTS_NAME_LEN];          /* -uname, "" = the login name */
    char service_name[RUN_OPTS_NAME_LEN];   /* -serviceName, "DIRECT_FEED" */

    /* Test */
    int run_time;                 /* -runTime, s, the tool's default */
    int tick_rate;                /* -tickRate, 1000 */
    int item_count;               /* -itemCount, 100000 */
    int common_item_count;        /* -commonItemCount, 0 */
    int generic_msg_rate;         /* -genericMsgRate, per connection, 0 */
    int generic_msg_latency_rate; /* -genericMsgLatencyRate, 0 (OPT_RATE_ALL where allowed) */
    bool nano_time;               /* -nanoTime: latency stamps in ns */
    int tunnel_output_bufs;       /* -tunnelStreamOutputBufs, 15000 */
    bool tunnel_bufs_used;        /* -tunnelStreamBuffersUsed: print the buffer usage */

    /* Files and output */
    char item_file[RUN_OPTS_PATH_LEN];     /* -itemFile, "350k.xml" */
    char msg_file[RUN_OPTS_PATH_LEN];      /* -msgFile, "MsgData.xml" */
    char summary_file[RUN_OPTS_PATH_LEN];  /* -summaryFile, the tool's default */
    char stats_file[RUN_OPTS_PATH_LEN];    /* -statsFile, base name, the tool's default */
    char latency_file[RUN_OPTS_PATH_LEN];  /* -latencyFile, base name, "" = no latency log */
    char histogram_log[RUN_OPTS_PATH_LEN]; /* -histogramLog, base name, "" = none (ours) */
    int clock;                             /* -clock, a clk_source: monotonic (ours) */
    int write_stats_interval;              /* -writeStatsInterval, s, 5 */
    bool display_stats;                    /* false with -noDisplayStats */
    bool no_progress;                      /* -noProgress: no progress line (ours) */
} run_opts;

/* Fills o with the defaults the tools share (above), port, summary_file and stats_file being
 * the tool's; run_time, compression_level, max_output_bufs and input_bufs are left 0 for the
 * tool to set. */
void run_opts_defaults(run_opts *o, const char *port, const char *summary_file,
                       const char *stats_file);

/*
 * Option table entries, for a configuration type T whose run_opts is the member (path) m:
 * `opts`, or `pv.opts` in the providers. Those taking h have the tool's own help text.
 */
#define RUN_OPT_CONN_TYPE(T, m, names)                                                             \
    OPT_ENUM_T_("-connType", T, m.conn_type, tp_conn_type, names, NULL, "Type of connection")
#define RUN_OPT_HOST(T, m, h) OPT_STR_("-h", T, m.host, "<hostname>", h)
#define RUN_OPT_PORT(T, m, h) OPT_PORT_("-p", T, m.port, h)
#define RUN_OPT_INTERFACE(T, m, h) OPT_STR_("-if", T, m.interface_name, "<interface>", h)
#define RUN_OPT_COMPRESSION(T, m, h)                                                               \
    OPT_ENUM_("-compressionType", T, m.compression_type, opt_compression_names, "<type>", h)
#define RUN_OPT_COMPRESSION_LEVEL(T, m)                                                            \
    OPT_INT_("-compressionLevel", T, m.compression_level, 0, 9, "<0-9>", "Compression level")
#define RUN_OPT_OUTPUT_BUFS(T, m, h)                                                               \
    OPT_INT_("-outputBufs", T, m.output_bufs, 1, INT_MAX, "<count>", h)
#define RUN_OPT_INPUT_BUFS(T, m)                                                                   \
    OPT_INT_("-inputBufs", T, m.input_bufs, 1, INT_MAX, "<count>", "Input buffers")
#define RUN_OPT_MAX_FRAGMENT(T, m, h)                                                              \
    OPT_INT_("-maxFragmentSize", T, m.max_fragment_size, 1, 65535, "<bytes>", h)
#define RUN_OPT_SOCKET_SIZES(T, m)                                                                 \
    OPT_SOCKET_SIZES_(T, m.send_buf_size, m.recv_buf_size, m.high_water_mark)
#define RUN_OPT_TCP_DELAY(T, m)                                                                    \
    OPT_FLAG_OFF_("-tcpDelay", T, m.tcp_nodelay, "Leave Nagle's algorithm on (no TCP_NODELAY)")
#define RUN_OPT_DIRECT_WRITE(T, m)                                                                 \
    OPT_FLAG_("-directWrite", T, m.direct_write,                                                   \
              "Write to the socket at once when nothing is queued")
#define RUN_OPT_UNAME(T, m)                                                                        \
    OPT_STR_("-uname", T, m.uname, "<name>", "User name in the login request (default: login name)")
#define RUN_OPT_SERVICE_NAME(T, m, h) OPT_STR_("-serviceName", T, m.service_name, "<name>", h)
#define RUN_OPT_THREADS(T, m, most, h) OPT_THREADS_("-threads", T, m.threads, most, "<list>", h)
#define RUN_OPT_REACTOR(T, m, h) OPT_FLAG_("-reactor", T, m.reactor, h)
#define RUN_OPT_WORKERS(T, m, most, h)                                                             \
    OPT_THREADS_("-workerThreads", T, m.worker_threads, most, "<list>", h)
#define RUN_OPT_RUN_TICK(T, m) OPT_RUN_TICK_(T, m.run_time, m.tick_rate)
#define RUN_OPT_ITEM_COUNTS(T, m, h_items, h_common)                                               \
    OPT_INT_("-itemCount", T, m.item_count, 0, INT_MAX, "<count>", h_items),                       \
        OPT_INT_("-commonItemCount", T, m.common_item_count, 0, INT_MAX, "<count>", h_common)
#define RUN_OPT_NANO_TIME(T, m)                                                                    \
    OPT_FLAG_("-nanoTime", T, m.nano_time, "Latency stamps in nanoseconds instead of microseconds")
#define RUN_OPT_TUNNEL_BUFS(T, m, h_bufs, h_used)                                                  \
    OPT_INT_("-tunnelStreamOutputBufs", T, m.tunnel_output_bufs, 1, INT_MAX, "<count>", h_bufs),   \
        OPT_FLAG_("-tunnelStreamBuffersUsed", T, m.tunnel_bufs_used, h_used)
#define RUN_OPT_ITEM_FILE(T, m, h) OPT_STR_("-itemFile", T, m.item_file, "<file>", h)
#define RUN_OPT_MSG_FILE(T, m, h) OPT_STR_("-msgFile", T, m.msg_file, "<file>", h)
#define RUN_OPT_SUMMARY_STATS(T, m)                                                                \
    OPT_STR_("-summaryFile", T, m.summary_file, "<file>", "Summary file"),                         \
        OPT_STR_("-statsFile", T, m.stats_file, "<base>",                                          \
                 "Statistics file base name (<base><thread>.csv)")
#define RUN_OPT_LATENCY_FILE(T, m, h) OPT_STR_("-latencyFile", T, m.latency_file, "<base>", h)
#define RUN_OPT_STATS_OUTPUT(T, m) OPT_STATS_OUTPUT_(T, m.write_stats_interval, m.display_stats)
#define RUN_OPT_HISTOGRAM_LOG(T, m, h) OPT_STR_("-histogramLog", T, m.histogram_log, "<base>", h)
#define RUN_OPT_CLOCK(T, m)                                                                        \
    OPT_ENUM_("-clock", T, m.clock, run_clock_names, NULL,                                         \
              "Clock of the latency stamps and the ticks (ours): monotonic, as the original, or "  \
              "realtime, for one-way latency between hosts whose clocks are synchronised")

#define RUN_OPT_NO_PROGRESS(T, m)                                                                  \
    OPT_FLAG_("-noProgress", T, m.no_progress,                                                     \
              "No live progress line on stderr when it is a terminal (ours; also "                 \
              "RWFPERF_NO_PROGRESS=1)")

/* The values of -clock: "monotonic" (CLK_SRC_MONOTONIC), "realtime" (CLK_SRC_REALTIME). */
extern const opt_name run_clock_names[];

/* The TEST INPUTS lines of the shared fields, each as the originals print it (label: value). */
typedef enum run_in {
    RUN_IN_END = 0,           /* ends a list */
    RUN_IN_HOSTNAME,          /* Hostname */
    RUN_IN_PORT,              /* Port */
    RUN_IN_SERVICE,           /* Service (ConsPerf's label) */
    RUN_IN_SERVICE_NAME,      /* Service Name (the providers' label) */
    RUN_IN_THREADS,           /* Thread List, with the workers' binding under -reactor */
    RUN_IN_OUTPUT_BUFS,       /* Output Buffers */
    RUN_IN_MAX_OUTPUT_BUFS,   /* Max Output Buffers (0: as Output Buffers) */
    RUN_IN_INPUT_BUFS,        /* Input Buffers */
    RUN_IN_MAX_FRAGMENT,      /* Max Fragment Size */
    RUN_IN_SEND_BUF,          /* Send Buffer Size */
    RUN_IN_RECV_BUF,          /* Recv Buffer Size */
    RUN_IN_HIGH_WATER,        /* High Water Mark */
    RUN_IN_INTERFACE,         /* Interface Name */
    RUN_IN_NODELAY,           /* Tcp_NoDelay */
    RUN_IN_DIRECT_WRITE,      /* Use Direct Writes */
    RUN_IN_USERNAME,          /* Username */
    RUN_IN_TICK_RATE,         /* Tick Rate */
    RUN_IN_ITEM_COUNT,        /* Item Count */
    RUN_IN_COMMON_ITEM_COUNT, /* Common Item Count */
    RUN_IN_GENMSG_RATE,       /* Generic Msg Rate */
    RUN_IN_GENMSG_LAT_RATE,   /* Latency Generic Msg Rate ("all": the generic message rate) */
    RUN_IN_NANO_TIME,         /* Nanosecond Time (the providers' label) */
    RUN_IN_ITEM_FILE,         /* Item File */
    RUN_IN_DATA_FILE,         /* Data File (-msgFile) */
    RUN_IN_SUMMARY_FILE,      /* Summary File */
    RUN_IN_STATS_FILE,        /* Stats File */
    RUN_IN_LATENCY_LOG,       /* Latency Log File ("(none)" when not given) */
    RUN_IN_LATENCY_FILE,      /* Latency File (ProvPerf's: the name as given) */
    RUN_IN_STATS_INTERVAL,    /* Write Stats Interval */
    RUN_IN_DISPLAY_STATS,     /* Display Stats */
    RUN_IN_CASTORE,           /* CA store location */
    RUN_IN_TLS_FLAGS,         /* TLS Protocol flags */
    RUN_IN_KEY,               /* Private Key */
    RUN_IN_CERT,              /* Server Cert */
    RUN_IN_CIPHER,            /* Cipher */
    RUN_IN_WS_LIST,           /* WS Protocol List */
    RUN_IN_TUNNEL_BUFS,       /* Output Tunnel Buffers */
    RUN_IN_TUNNEL_USAGE,      /* Print Usage Tunnel Bufs */
    RUN_IN_COMPRESSION,       /* Compression type (the number) */
    RUN_IN_REACTOR,           /* Use Reactor */
    RUN_IN_TLS_RECORDS,       /* TLS Records (ours: -tlsRecords) */
    RUN_IN_TLS_AES_GCM,       /* TLS AES-GCM (ours: -tlsAesGcm, with what auto chooses) */
} run_in;

/* Writes the TEST INPUTS lines of o named by keys, in that order up to RUN_IN_END, labels
 * right-justified to width. */
void run_opts_print(out_report *r, int width, const run_opts *o, const run_in *keys);

/* run_opts_print with the keys listed: RUN_OPTS_PRINT(r, w, o, RUN_IN_PORT, RUN_IN_THREADS). */
#define RUN_OPTS_PRINT(r, width, o, ...)                                                           \
    run_opts_print(r, width, o, (const run_in[]){__VA_ARGS__, RUN_IN_END})

/*
 * Declares a tool's configuration entry points for its configuration type `type`, named with
 * prefix p (the defaults, whose arguments differ per tool, are declared by the tool):
 *   int p_init(type *cfg, int argc, char **argv, FILE *out, FILE *err): the command line
 *       (opt_tool_init: defaults, argv, checks; -? prints the usage to out, errors go to err);
 *       returns OPT_CONTINUE to run, else the exit status (0 after -?, OPT_EXIT_INVALID).
 *   int p_check(const type *cfg): the cross-option rules; 0, or -1 after err_set().
 *   void p_print(const type *cfg, const out_extra *extra, out_report *r): the TEST INPUTS
 *       block as the original prints it, then ours (extra may be NULL) and its blank line.
 *   json_object *p_json(const type *cfg): the inputs as a new JSON object (every accepted
 *       option, "threadCount"); the caller owns it.
 * and the option table `options` (for the usage and the tests).
 */
#define RUN_OPTS_DECLARE_TOOL(p, type, options)                                                    \
    int p##_init(type *cfg, int argc, char **argv, FILE *out, FILE *err);                          \
    int p##_check(const type *cfg);                                                                \
    void p##_print(const type *cfg, const out_extra *extra, out_report *r);                        \
    json_object *p##_json(const type *cfg);                                                        \
    extern const opt_def options[]

#endif
