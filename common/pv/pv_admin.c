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
