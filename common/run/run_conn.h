/*
 * run_conn: a tool's connection, from its options to the transport's settings, in one place.
 *
 *  - the -connType words each tool accepts (run_conn_consperf ... run_conn_transportperf, one
 *    table in run_conn.c), parsed straight into a tp_conn_type (run_opts.conn_type);
 *  - seqMCast's own options (run_mc: TransportPerf's -sa/-sp/-ra/-rp/-u, -recvLoss);
 *  - what is asked of a connection: is it WebSocket (directly or inside TLS), does its -pl
 *    offer a sub-protocol, its -connType word, and the checks at start;
 *  - run_conn_tp(), the one function that turns the options into a tp_opts: what a tool knows
 *    that is not an option (its side, its protocol, the address of a warm-standby server, its
 *    thread's number) is a run_link. The tools never see a tp_opts: a client hands its options
 *    and link to the session driver (run_drv_cfg.connect, .link), a server binds with
 *    run_conn_bind(), the Reactor modes take run_drv_rx_conn()'s settings.
 *
 * A new connection type is the transport's; here it is a word in the tables and, when it has
 * settings of its own, their mapping in run_conn_tp(). See docs/driver.md.
 */
#ifndef RWFPERF_RUN_CONN_H
#define RWFPERF_RUN_CONN_H

#include "opt.h"
#include "tp.h"

#include <stdbool.h>
#include <stdint.h>

struct run_opts;

/* -connType words, per tool, each in the order the tool lists them (refused words included). */
extern const opt_name run_conn_consperf[];
extern const opt_name run_conn_provperf[];
extern const opt_name run_conn_niprovperf[];
extern const opt_name run_conn_transportperf[];

/* seqMCast's options (TransportPerf). */
typedef struct run_mc {
    char send_addr[128];     /* -sa, "" = not given (then the receive group) */
    char send_port[32];      /* -sp */
    char recv_addr[128];     /* -ra, "" = not given (then -h) */
    char recv_port[32];      /* -rp (then -p) */
    char unicast_port[32];   /* -u: printed, as the original does; seqMCast does not use it */
    int recv_loss_ppm;       /* -recvLoss <percent>, as parts per million: 0 = off */
    uint64_t recv_loss_seed; /* -recvLossSeed: 0 = from the clock */
} run_mc;

/* Which end of a connection a tool is. */
typedef enum run_side {
    RUN_CLIENT = 0, /* connects (ConsPerf, NIProvPerf, a TransportPerf client) */
    RUN_SERVER = 1, /* binds and accepts (ProvPerf, a TransportPerf server) */
} run_side;

/* What a tool knows about a connection that is not an option. */
typedef struct run_link {
    run_side side;
    uint8_t protocol_type; /* TP_PROTOCOL_RWF; TransportPerf: TP_PROTOCOL_TRANSPORTPERF */
    const char *host;      /* NULL: -h */
    const char *port;      /* NULL: -p */
    int thread;            /* the worker's 0-based number (seqMCast: instance id, loss seed) */
} run_link;

/* The -connType word of a connection type ("socket", "encrypted", "shmem", "seqMCast",
 * "websocket"). */
const char *run_conn_name(tp_conn_type type);

/* True when the connection is WebSocket: -connType websocket, or encrypted with
 * -encryptedConnType websocket. */
bool run_conn_websocket(const struct run_opts *o);

/* True when the WebSocket sub-protocol list (-pl) names sub-protocol p (any of its names). */
bool run_conn_offers(const struct run_opts *o, tp_ws_proto p);

/*
 * The checks at start of the connection options for a tool on `side`: the -pl list, then for
 * an encrypted connection its files and cipher list, loaded as the transport will load them.
 * Returns 0, or -1 with err_msg() holding the message ("Config Error: ...").
 */
int run_conn_check(const struct run_opts *o, run_side side);

/*
 * The one place run options become transport settings: fills *out (tp_opts_init first) from o
 * and l: connection type, address (l's host and port when given), interface, buffers, socket
 * sizes, Nagle, compression, high-water mark, TLS, WebSocket sub-protocols, seqMCast groups.
 * Options a tool does not have are 0 in o and keep the transport's defaults. A WebSocket client
 * says protocol RWF in its handshake whatever l's protocol (the ETA clients do); protocol
 * TP_PROTOCOL_TRANSPORTPERF goes with RWF version 0.0 and text frames that need not be UTF-8.
 * The strings of *out point into o and l, which must outlive its use (tp_connect and tp_bind
 * copy them).
 */
void run_conn_tp(const struct run_opts *o, const run_link *l, tp_opts *out);

/*
 * Binds a server with the settings run_conn_tp() makes from o and l, l's side taken as
 * RUN_SERVER whatever it says. The bind copies what it keeps: o and l need not outlive the
 * server. Returns 0 with *out the server, or tp_bind()'s status (< 0, *out NULL) with err_msg()
 * saying why (the caller adds what it was binding for).
 */
int run_conn_bind(const struct run_opts *o, const run_link *l, tp_server **out);

#endif
