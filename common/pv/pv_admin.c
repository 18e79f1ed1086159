#include "pv_admin.h"

#include <string.h>

void pv_admin_service(rwf_service *s, const char *name, uint16_t id, const pv_feed *f,
                      uint64_t open_limit)
{
    memset(s, 0, sizeof(*s));
    s->id = id;
    s->action = RWF_MPEA_ADD_ENTRY;
    s->flags = RWF_SVC_HAS_INFO | RWF_SVC_HAS_STATE | RWF_SVC_HAS_VENDOR | RWF_SVC_HAS_IS_SOURCE |
               RWF_SVC_HAS_DICTS_PROVIDED | RWF_SVC_HAS_DICTS_USED | RWF_SVC_HAS_QOS |
               RWF_SVC_HAS_SUPPORT_QOS_RANGE | RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS |
               RWF_SVC_HAS_ACCEPTING_CONS_STATUS | RWF_SVC_HAS_ACCEPTING_REQS;
    s->name = rwf_buf_cstr(name);
    s->vendor = RWF_STR("Refinitiv");
    s->is_source = 1;
    s->capabilities[s->capability_count++] = RWF_DMT_DICTIONARY;
    if (f->dom[PV_DOM_MP].present)
        s->capabilities[s->capability_count++] = RWF_DMT_MARKET_PRICE;
    if (f->dom[PV_DOM_MBO].present)
        s->capabilities[s->capability_count++] = RWF_DMT_MARKET_BY_ORDER;
    s->capabilities[s->capability_count++] = RWF_DMT_SYSTEM;
    s->dicts_provided[0] = s->dicts_used[0] = RWF_STR("RWFFld");
    s->dicts_provided[1] = s->dicts_used[1] = RWF_STR("RWFEnum");
    s->dicts_provided_count = s->dicts_used_count = 2;
    s->qos[0].timeliness = RWF_QOS_TIME_REALTIME;
    s->qos[0].rate = RWF_QOS_RATE_TICK_BY_TICK;
    s->qos_count = 1;
    s->service_state = 1;
    s->accepting_requests = 1;
    if (open_limit > 0) {
        s->flags |= RWF_SVC_HAS_LOAD | RWF_SVC_HAS_OPEN_LIMIT;
        s->open_limit = open_limit;
    }
}

int pv_admin_print_channel(tp_channel *ch, FILE *out)
{
    tp_info info;
    if (tp_get_info(ch, &info) != 0)
        return -1;
    /* The ETA tools label the receive buffer "sysSendBufSize" too. */
    fprintf(out,
            "Channel %d active. Channel Info:\n"
            "  maxFragmentSize: %u\n"
            "  maxOutputBuffers: %u\n"
            "  guaranteedOutputBuffers: %u\n"
            "  numInputBuffers: %u\n"
            "  pingTimeout: %u\n"
            "  clientToServerPings: %s\n"
            "  serverToClientPings: %s\n"
            "  sysSendBufSize: %d\n"
            "  sysSendBufSize: %d\n"
            "  compressionType: %s\n"
            "  compressionThreshold: %u\n"
            "  ComponentInfo: %s\n\n",
            tp_fd(ch), info.max_fragment_size, info.max_output_buffers,
            info.guaranteed_output_buffers, info.num_input_buffers, info.ping_timeout,
            info.client_to_server_pings ? "true" : "false",
            info.server_to_client_pings ? "true" : "false", info.sys_send_buf_size,
            info.sys_recv_buf_size, tp_comp_name(info.compression), info.compression_threshold,
            info.component[0] ? info.component : "(No component info)");
    return 0;
}

void pv_admin_print_closed(const char *why, FILE *out)
{
    if (why)
        fprintf(out, "Channel Closed: RSSL_RET_FAILURE(%s)\n", why);
    else
        fprintf(out, "Channel Closed.\n");
}
