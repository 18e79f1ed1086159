/*
 * What consumers send on item streams: requests (checked in the ETA provider's order, rejected
 * with its status messages), closes, posts (reflected) and generic messages (latency measured).
 */
#include "prov.h"

#include "payload.h"

#include "clk.h"
#include "err.h"
#include "lat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- sending replies ---------------------------------------------------------------------- */

int prov_send(pv_sess *s, uint32_t cap, prov_enc_fn enc, const void *arg, bool packable)
{
    int rc = run_out_send(&s->out, cap, enc, arg, packable);
    if (rc == TP_ENOBUFS) {
        printf("No output buffer for a reply: %s\n", err_msg());
        return 1; /* the channel is kept; what is queued goes out when it drains */
    }
    if (rc == TP_EINVAL) {
        printf("Failed to encode a reply: %s\n", err_msg());
        return 0;
    }
    return rc < 0 ? -1 : rc > 0;
}

/* ---- rejects ------------------------------------------------------------------------------ */

typedef struct reject_arg {
    int32_t sid;
    uint8_t domain;
    int reason;
} reject_arg;

static int enc_reject(rwf_enc *e, const void *arg)
{
    const reject_arg *r = arg;
    return rwf_rdm_item_reject(e, r->sid, r->domain, r->reason);
}

static const char *reason_name(int reason)
{
    switch (reason) {
    case RWF_REJECT_ITEM_COUNT:
        return "ITEM_COUNT_REACHED";
    case RWF_REJECT_SERVICE_ID:
        return "INVALID_SERVICE_ID";
    case RWF_REJECT_ALREADY_OPEN:
        return "ITEM_ALREADY_OPENED";
    case RWF_REJECT_STREAM_IN_USE:
        return "STREAM_ALREADY_IN_USE";
    case RWF_REJECT_QOS:
        return "QOS_NOT_SUPPORTED";
    case RWF_REJECT_DOMAIN:
        return "DOMAIN_NOT_SUPPORTED";
    default:
        return "Unknown reason";
    }
}

static const char *domain_name(uint8_t domain, char *buf, size_t cap)
{
    static const char *const names[] = {
        [RWF_DMT_LOGIN] = "RSSL_DMT_LOGIN",
        [RWF_DMT_SOURCE] = "RSSL_DMT_SOURCE",
        [RWF_DMT_DICTIONARY] = "RSSL_DMT_DICTIONARY",
        [RWF_DMT_MARKET_PRICE] = "RSSL_DMT_MARKET_PRICE",
        [RWF_DMT_MARKET_BY_ORDER] = "RSSL_DMT_MARKET_BY_ORDER",
        [RWF_DMT_MARKET_BY_PRICE] = "RSSL_DMT_MARKET_BY_PRICE",
        [RWF_DMT_MARKET_MAKER] = "RSSL_DMT_MARKET_MAKER",
        [RWF_DMT_SYMBOL_LIST] = "RSSL_DMT_SYMBOL_LIST",
    };
    if (domain < sizeof(names) / sizeof(names[0]) && names[domain])
        return names[domain];
    if (domain == RWF_DMT_SYSTEM)
        return "RSSL_DMT_SYSTEM";
    snprintf(buf, cap, "%u", domain);
    return buf;
}

int prov_item_reject(prov_thread *th, pv_sess *s, int32_t sid, uint8_t domain, int reason)
{
    char dbuf[16];
    printf("\nRejecting Item Request with streamId=%d and domain %s.  Reason: %s\n", sid,
           domain_name(domain, dbuf, sizeof(dbuf)), reason_name(reason));
    if (sid == PROV_TUNNEL_STREAM_HINT && domain == RWF_DMT_SYSTEM && !th->app->cfg.pv.opts.reactor)
        printf("The Item Request for TunnelStream. It requires to use -reactor in command line.\n");
    reject_arg a = {sid, domain, reason};
    /* Text of at most ~110 bytes, header and state: 256 is room enough. */
    return prov_send(s, 256, enc_reject, &a, true);
}

/* ---- requests ----------------------------------------------------------------------------- */

static bool qos_equal(const rwf_qos *a, const rwf_qos *b)
{
    return a->rate == b->rate && a->timeliness == b->timeliness && a->rate_info == b->rate_info &&
           a->time_info == b->time_info;
}

static int32_t adjust_rate(const rwf_qos *q, int32_t unspecified)
{
    if (q->rate == RWF_QOS_RATE_TICK_BY_TICK)
        return 0;
    if (q->rate == RWF_QOS_RATE_JIT_CONFLATED)
        return 65535 * 2;
    if (q->rate == RWF_QOS_RATE_TIME_CONFLATED)
        return q->rate_info == 65535 ? 65535 * 2 + 1 : q->rate_info * 2 - 1;
    return unspecified;
}

static int32_t adjust_time(const rwf_qos *q, int32_t unspecified)
{
    if (q->timeliness == RWF_QOS_TIME_REALTIME)
        return 0;
    if (q->timeliness == RWF_QOS_TIME_DELAYED_UNKNOWN)
        return 65536;
    if (q->timeliness == RWF_QOS_TIME_DELAYED)
        return q->time_info;
    return unspecified;
}

/* True when q lies in [best, worst], as the ETA codec's range check says. */
static bool qos_in_range(const rwf_qos *best, const rwf_qos *worst, const rwf_qos *q)
{
    if (best->rate == RWF_QOS_RATE_UNSPECIFIED && best->timeliness == RWF_QOS_TIME_UNSPECIFIED &&
        worst->rate == RWF_QOS_RATE_UNSPECIFIED && worst->timeliness == RWF_QOS_TIME_UNSPECIFIED)
        return true;
    if (qos_equal(best, worst))
        return qos_equal(best, q);
    if (q->rate == RWF_QOS_RATE_UNSPECIFIED &&
        (best->rate != RWF_QOS_RATE_UNSPECIFIED || worst->rate != RWF_QOS_RATE_UNSPECIFIED))
        return false;
    if (q->timeliness == RWF_QOS_TIME_UNSPECIFIED &&
        (best->timeliness != RWF_QOS_TIME_UNSPECIFIED ||
         worst->timeliness != RWF_QOS_TIME_UNSPECIFIED))
        return false;
    int32_t qr = adjust_rate(q, -1), qt = adjust_time(q, -1);
    return adjust_rate(best, -1) <= qr && adjust_rate(worst, 65535 * 2 + 3) >= qr &&
           adjust_time(best, -1) <= qt && adjust_time(worst, 65535 * 2 + 3) >= qt;
}

/* The request's key as the item table keeps it (pointing into the request). */
static pv_key key_of(const rwf_key *k)
{
    return (pv_key){.flags = k->flags,
                    .name_type = k->name_type,
                    .attrib_type = k->attrib_type,
                    .service_id = k->service_id,
                    .name_len = (uint16_t)k->name.len,
                    .filter = k->filter,
                    .identifier = k->identifier,
                    .attrib_len = k->attrib.len,
                    .name = (const uint8_t *)k->name.data,
                    .attrib = (const uint8_t *)k->attrib.data};
}

static int on_request(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    const prov_config *cfg = &th->app->cfg;
    pv_items *items = &s->items;
    counter_inc(&th->pv.stats.requests);

    if (items->count >= cfg->open_limit)
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_ITEM_COUNT);
    /* The key's service id is compared whether or not the key says it has one. */
    if (m->key.service_id != cfg->pv.service_id)
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_SERVICE_ID);
    const rwf_qos mine = {.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};
    if ((m->flags & RWF_RQMF_HAS_WORST_QOS) && (m->flags & RWF_RQMF_HAS_QOS)) {
        if (!qos_in_range(&m->qos, &m->worst_qos, &mine))
            return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_QOS);
    } else if ((m->flags & RWF_RQMF_HAS_QOS) && !qos_equal(&m->qos, &mine)) {
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_QOS);
    }

    pv_key key = key_of(&m->key);
    uint32_t found = pv_items_find_key(items, m->domain, &key);
    if (found != PV_NONE && pv_items_at(items, found)->stream_id != m->stream_id)
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_ALREADY_OPEN);
    uint32_t on_stream = pv_items_find_stream(items, m->stream_id);
    if (on_stream != PV_NONE && on_stream != found)
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_STREAM_IN_USE);

    uint8_t flags = 0;
    if (m->flags & RWF_RQMF_STREAMING)
        flags |= PV_ITEM_STREAMING;
    if (m->flags & RWF_RQMF_PRIVATE_STREAM)
        flags |= PV_ITEM_PRIVATE;
    if (found == PV_NONE) {
        uint32_t idx;
        if (pv_items_add(items, m->stream_id, m->domain, &key, flags | PV_ITEM_SOLICITED, &idx) !=
            0) {
            printf("Failed to get storage for item: %s\n", err_msg());
            return 0;
        }
        return 0;
    }
    /* A reissue on the same stream: a new refresh unless it asks for none. */
    pv_item *it = pv_items_at(items, found);
    it->flags |= flags;
    if (!(m->flags & RWF_RQMF_NO_REFRESH))
        pv_items_to_refresh(items, found);
    return 0;
}

static int on_close(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    counter_inc(&th->pv.stats.closes);
    uint32_t idx = pv_items_find_stream(&s->items, m->stream_id);
    if (idx != PV_NONE)
        pv_items_remove(&s->items, idx);
    else
        printf("Received unexpected close on stream %d (this may just be an extra close from the "
               "platform).\n",
               m->stream_id);
    return 0;
}

/* ---- posts -------------------------------------------------------------------------------- */

static int enc_msg(rwf_enc *e, const void *arg)
{
    return rwf_enc_msg(e, (const rwf_msg *)arg);
}

/* Reflects a post: its nested message (or its payload wrapped in an update) goes back on the
 * post's stream with the post's user info, as the ETA provider does. */
static int on_post(prov_thread *th, pv_sess *s, const rwf_msg *post)
{
    counter_inc(&th->pv.stats.posts);
    rwf_msg r;
    if (post->container_type == RWF_DT_MSG) {
        if (rwf_msg_decode(&r, post->payload) != RWF_OK) {
            printf("Failed to process request from domain %u: post on stream %d: %s\n",
                   post->domain, post->stream_id, err_msg());
            return 0;
        }
    } else { /* a payload alone goes back in an update */
        rwf_msg_init(&r, RWF_MC_UPDATE, post->domain, post->stream_id, post->container_type);
        r.payload = post->payload;
    }
    r.stream_id = post->stream_id;
    r.post_user_addr = post->post_user_addr;
    r.post_user_id = post->post_user_id;
    switch (r.msg_class) {
    case RWF_MC_REFRESH:
        r.flags = (uint16_t)((r.flags | RWF_RFMF_HAS_POST_USER_INFO) & ~RWF_RFMF_SOLICITED);
        break;
    case RWF_MC_UPDATE:
        r.flags |= RWF_UPMF_HAS_POST_USER_INFO;
        break;
    case RWF_MC_STATUS:
        r.flags |= RWF_STMF_HAS_POST_USER_INFO;
        break;
    default:
        printf("Error: Unhandled message class in post: %u\n", r.msg_class);
        return 0;
    }
    /* The reflection is the nested message plus a stream id and the user info. */
    return prov_send(s, post->payload.len + 64, enc_msg, &r, true);
}

/* ---- generic messages --------------------------------------------------------------------- */

static int on_generic(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    (void)s;
    prov_app *app = th->app;
    pv_stats *st = &th->pv.stats;
    counter_inc(&st->genmsgs_recv);
    if (!pv_stats_time(&st->first_genmsg_recv_ns))
        pv_stats_first(&st->first_genmsg_recv_ns, clk_ns());
    payload_stamps stamps = {{0, 0, 0}, 0};
    int rc;
    if (m->container_type == RWF_DT_FIELD_LIST || m->container_type == RWF_DT_MAP)
        rc = payload_decode(app->in.dict, m, &stamps);
    else
        rc = err_set("decodePayload(): Unhandled container type %u", m->container_type);
    const uint64_t trk1 = stamps.t[0], trk3 = stamps.t[2];
    if (rc < 0) {
        /* The ETA provider ends the run on a generic message it cannot decode. */
        prov_fail(th, "Error: generic message on stream %d: %s", m->stream_id, err_msg());
        err_set("undecodable generic message");
        return -1;
    }
    if (trk3 || trk1) {
        bool ns = app->cfg.pv.opts.nano_time;
        uint64_t now = ns ? (uint64_t)clk_ns() : (uint64_t)clk_us();
        int64_t unit = ns ? 1 : 1000;
        lat *cur = latbuf_cur(&st->lat);
        if (trk3) {
            lat_record(&cur[PV_LAT_GENMSG], ((int64_t)now - (int64_t)trk3) * unit);
            if (st->ring_on)
                latring_push(&st->ring, PV_RING_GENMSG, (int64_t)trk3, (int64_t)now);
        }
        if (trk1)
            lat_record(&cur[PV_LAT_GENMSG_SCHED], ((int64_t)now - (int64_t)trk1) * unit);
    }
    return 0;
}

int prov_item_msg(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    switch (m->msg_class) {
    case RWF_MC_REQUEST:
        return on_request(th, s, m);
    case RWF_MC_CLOSE:
        return on_close(th, s, m);
    case RWF_MC_POST:
        return on_post(th, s, m);
    case RWF_MC_GENERIC:
        return on_generic(th, s, m);
    default:
        printf("\nReceived Unhandled Item Msg Class: %u\n", m->msg_class);
        return 0;
    }
}

int prov_sess_fd(const pv_sess *s)
{
    return s->rx ? rx_chan_fd(s->rx) : tp_fd(s->ch);
}

int prov_handle_msg(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    switch (m->domain) {
    case RWF_DMT_LOGIN:
        return prov_admin_login(th, s, m);
    case RWF_DMT_SOURCE:
        return prov_admin_directory(th, s, m);
    case RWF_DMT_DICTIONARY:
        return prov_admin_dictionary(th, s, m);
    default: {
        int d = pv_dom_index(m->domain);
        if (d >= 0 && th->app->in.feed.dom[d].present)
            return prov_item_msg(th, s, m);
        return prov_item_reject(th, s, m->stream_id, m->domain, RWF_REJECT_DOMAIN);
    }
    }
}

int prov_handle(prov_thread *th, pv_sess *s, const uint8_t *data, uint32_t len)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(data, len)) != RWF_OK) {
        prov_fail(th, "rsslDecodeMsg(): message of %u bytes on channel %d: %s", len,
                  prov_sess_fd(s), err_msg());
        err_set("undecodable message");
        return -1;
    }
    return prov_handle_msg(th, s, &m);
}
