#include <stdio.h>
#include <string.h>

#include "tp_int.h"
#include "version.h"

void tp_opts_init(tp_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->conn_type = TP_CONN_SOCKET;
    o->port = "14002";
    o->protocol_type = TP_PROTOCOL_RWF;
    o->rwf_major = 14;
    o->rwf_minor = 1;
    o->guaranteed_output_buffers = 50;
    o->num_input_buffers = 10;
    o->max_fragment_size = 6144;
    o->max_reassembly = 64u << 20;
    o->tcp_nodelay = true;
    o->ping_timeout = 60;
    o->min_ping_timeout = 20;
    o->server_to_client_pings = true;
    o->client_to_server_pings = true;
    o->compression = TP_COMP_NONE;
    o->ripc_version = 14;
    o->shm_flow_ms = 1000;
    o->init_timeout_ms = 60000;
    o->encrypted_protocol = TP_CONN_SOCKET;
}

static void copy_str(const char **dst, const char *src, char *buf, size_t cap)
{
    if (!src) {
        *dst = NULL;
        return;
    }
    snprintf(buf, cap, "%s", src);
    *dst = buf;
}

void tp_opts_copy(tp_opts *dst, const tp_opts *o, char *host, char *port, char *iface,
                  char *component)
{
    *dst = *o;
    copy_str(&dst->host, o->host, host, 256);
    copy_str(&dst->port, o->port ? o->port : "14002", port, 64);
    copy_str(&dst->interface, o->interface && *o->interface ? o->interface : NULL, iface, 256);
    copy_str(&dst->component, o->component ? o->component : tp_default_component(), component, 254);
    if (dst->ripc_version < 10 || dst->ripc_version > 14)
        dst->ripc_version = 14;
    if (dst->max_output_buffers < dst->guaranteed_output_buffers)
        dst->max_output_buffers = dst->guaranteed_output_buffers;
    if (dst->ping_timeout == 0)
        dst->ping_timeout = 1;
    /* TLS files are loaded by tp_connect/tp_bind from the caller's options, not kept */
    dst->tls_ca_store = dst->tls_key_file = dst->tls_cert_file = dst->tls_ciphers = NULL;
    dst->mc_recv_addr = dst->mc_recv_port = dst->mc_send_addr = dst->mc_send_port = NULL;
}

const char *tp_default_component(void)
{
    return "rwfperf" RWFPERF_VERSION ".linux 64-bit";
}

const char *tp_comp_name(tp_comp c)
{
    switch (c) {
    case TP_COMP_ZLIB:
        return "zlib";
    case TP_COMP_LZ4:
        return "lz4";
    default:
        return "none";
    }
}
