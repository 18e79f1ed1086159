/* A tool's connection from its options to the transport's settings: see run_conn.h. */
#include "run_conn.h"

#include "err.h"
#include "run_opts.h"
#include "tp_ws.h"

#include <string.h>

/* ---- the table of connection types ------------------------------------------------------- */

/* The words of -connType, per tool, in the order each tool lists them. A connection type the
 * transport gains is added here, to the tools that take it. */
const opt_name run_conn_consperf[] = {
    {"socket", TP_CONN_SOCKET, NULL},
    {"websocket", TP_CONN_WEBSOCKET, NULL},
    {"webSocket", TP_CONN_WEBSOCKET, NULL},
    {"WebSocket", TP_CONN_WEBSOCKET, NULL},
    {"http", 0, OPT_WHY_HTTP},
    {"encrypted", TP_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

const opt_name run_conn_provperf[] = {
    {"socket", TP_CONN_SOCKET, NULL},
    {"encrypted", TP_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

const opt_name run_conn_niprovperf[] = {
    {"socket", TP_CONN_SOCKET, NULL},
    {"reliableMCast", 0, OPT_WHY_RELIABLE_MCAST},
    {"encrypted", TP_CONN_ENCRYPTED, NULL},
    {NULL, 0, NULL},
};

const opt_name run_conn_transportperf[] = {
    {"socket", TP_CONN_SOCKET, NULL},
    {"shmem", TP_CONN_SHMEM, NULL},
    {"seqMCast", TP_CONN_SEQ_MCAST, NULL},
    {"websocket", TP_CONN_WEBSOCKET, NULL},
    {"http", 0, OPT_WHY_HTTP},
    {"encrypted", TP_CONN_ENCRYPTED, NULL},
    {"reliableMCast", 0, OPT_WHY_RELIABLE_MCAST},
    {NULL, 0, NULL},
};

const char *run_conn_name(tp_conn_type type)
{
    switch (type) {
    case TP_CONN_ENCRYPTED:
        return "encrypted";
    case TP_CONN_SHMEM:
        return "shmem";
    case TP_CONN_SEQ_MCAST:
        return "seqMCast";
    case TP_CONN_WEBSOCKET:
        return "websocket";
    case TP_CONN_SOCKET:
        break;
    }
    return "socket";
}

/* ---- questions ---------------------------------------------------------------------------- */

bool run_conn_websocket(const run_opts *o)
{
    return o->conn_type == TP_CONN_WEBSOCKET ||
           (o->conn_type == TP_CONN_ENCRYPTED && o->tls.encrypted_protocol == TP_CONN_WEBSOCKET);
}

bool run_conn_offers(const run_opts *o, tp_ws_proto p)
{
    const char *s = o->ws.pl;
    while (*s) {
        size_t skip = strspn(s, ", \t");
        s += skip;
        size_t len = strcspn(s, ", \t");
        if (len && tp_ws_proto_of(s, len) == p)
            return true;
        s += len;
    }
    return false;
}

int run_conn_check(const run_opts *o, run_side side)
{
    if (run_ws_check(&o->ws) != 0)
        return -1;
    if (o->conn_type != TP_CONN_ENCRYPTED)
        return 0;
    tp_opts t;
    run_link l = {.side = side, .protocol_type = TP_PROTOCOL_RWF};
    run_conn_tp(o, &l, &t);
    if (tp_tls_check(&t, side == RUN_SERVER) < 0)
        return err_push("Config Error");
    return 0;
}

/* ---- the transport's settings ------------------------------------------------------------- */

/* A count option as the transport takes it: 0 (not given) keeps the default. */
static void set_count(uint32_t *field, int v)
{
    if (v > 0)
        *field = (uint32_t)v;
}

void run_conn_tp(const run_opts *o, const run_link *l, tp_opts *out)
{
    tp_opts_init(out);
    out->conn_type = o->conn_type == TP_CONN_SHMEM || o->conn_type == TP_CONN_SEQ_MCAST
                         ? o->conn_type
                         : TP_CONN_SOCKET; /* encrypted and WebSocket: below */
    out->host = l->host ? l->host : o->host;
    out->port = l->port ? l->port : o->port;
    out->interface = o->interface_name[0] ? o->interface_name : NULL;
    out->protocol_type = l->protocol_type;
    if (l->protocol_type == TP_PROTOCOL_TRANSPORTPERF) {
        out->rwf_major = 0;
        out->rwf_minor = 0;
        out->ws_no_utf8_check = true; /* its JSON mode carries binary bytes in text frames */
    }
    set_count(&out->guaranteed_output_buffers, o->output_bufs);
    set_count(&out->max_output_buffers, o->max_output_bufs);
    set_count(&out->num_input_buffers, o->input_bufs);
    set_count(&out->max_fragment_size, o->max_fragment_size);
    set_count(&out->high_water_mark, o->high_water_mark);
    out->tcp_nodelay = o->tcp_nodelay;
    out->sndbuf = o->send_buf_size;
    out->rcvbuf = o->recv_buf_size;
    out->compression = (tp_comp)o->compression_type;
    out->compression_level = (uint8_t)o->compression_level;

    if (o->conn_type == TP_CONN_ENCRYPTED) {
        out->conn_type = TP_CONN_ENCRYPTED;
        out->encrypted_protocol = o->tls.encrypted_protocol;
        out->tls_ca_store = o->tls.castore;
        out->tls_key_file = o->tls.keyfile;
        out->tls_cert_file = o->tls.cert;
        out->tls_ciphers = o->tls.cipher;
        out->tls_protocols = (uint8_t)run_tls_protocol_flags(&o->tls);
        out->tls_records = o->tls.records;
        out->tls_gcm = o->tls.gcm;
    }
    if (o->conn_type == TP_CONN_WEBSOCKET)
        out->conn_type = TP_CONN_WEBSOCKET; /* a server binds a socket that takes both */
    out->ws_protocols = o->ws.pl;
    if (run_conn_websocket(o) && l->side == RUN_CLIENT)
        out->protocol_type = TP_PROTOCOL_RWF; /* what the ETA clients send over WebSocket */

    if (o->conn_type == TP_CONN_SEQ_MCAST) {
        const run_mc *mc = &o->mc;
        /* without -ra/-rp the host and port are the receive group, as in the original */
        out->mc_recv_addr = mc->recv_addr[0] ? mc->recv_addr : out->host;
        out->mc_recv_port = mc->recv_port[0] ? mc->recv_port : out->port;
        out->mc_send_addr = mc->send_addr;
        out->mc_send_port = mc->send_port;
        /* thread n's datagrams carry instance id n - 1 (the original's 0 for the first), so
         * that receivers tell the threads of one process apart */
        out->mc_instance_id = (uint16_t)l->thread;
        out->mc_loss_ppm = (uint32_t)mc->recv_loss_ppm;
        out->mc_loss_seed = mc->recv_loss_seed ? mc->recv_loss_seed + (uint64_t)l->thread : 0;
    }
}

int run_conn_bind(const run_opts *o, const run_link *l, tp_server **out)
{
    run_link sl = *l;
    sl.side = RUN_SERVER;
    tp_opts t;
    run_conn_tp(o, &sl, &t);
    return tp_bind(&t, out);
}
