/*
 * The admin domains as ProvPerf answers them (docs/wire.md#login, #directory, #dictionary): a login
 * refresh that advertises post support, the directory of the one service, and the field and enum
 * dictionaries from the files it loaded; unknown dictionary names get a status. On the login
 * stream it also answers our consumers' clock offset requests (clksync.h), which only a consumer
 * of ours sends.
 */
#include "prov.h"

#include "clk.h"
#include "clksync.h"
#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int enc_login(rwf_enc *e, const void *arg)
{
    return rwf_rdm_login_refresh(e, (const rwf_login *)arg);
}

/* A warm-standby consumer's role message (ConsumerConnectionStatus on the login stream, or
 * ConsumerStatus for our service on the directory stream): as standby, the channel's items
 * get no updates until it is made active (unless -standbyIgnoreRole). Other generic messages
 * are ignored. */
static int wsb_role(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    rwf_wsb w;
    if (rwf_rdm_wsb_decode(m, &w) != RWF_OK) {
        printf("Received a malformed warm standby message: %s\n", err_msg());
        fflush(stdout);
        return 0;
    }
    if (!w.kind || !w.has_mode)
        return 0;
    if (w.kind == RWF_WSB_CONSUMER_STATUS && w.service_id != th->app->in.service.id)
        return 0;
    bool standby = w.mode == RWF_WSB_STANDBY;
    s->standby = standby && !th->app->cfg.standby_ignore_role;
    printf("Received %s: this server is the %s (WarmStandbyMode %" PRIu64 ")%s.\n",
           w.kind == RWF_WSB_CONN_STATUS ? "ConsumerConnectionStatus" : "ConsumerStatus",
           standby ? "standby" : "active", w.mode,
           standby && !s->standby ? "; updates go on (-standbyIgnoreRole)" : "");
    fflush(stdout);
    return 0;
}

/* The answer to a clock offset request (clksync.h): the request's receive stamp t2, and the
 * send stamp t3 read as the answer is encoded. */
typedef struct clksync_reply {
    const clksync_msg *req;
    int32_t stream_id;
    int64_t t2;
} clksync_reply;

static int enc_clksync(rwf_enc *e, const void *arg)
{
    const clksync_reply *r = arg;
    return clksync_encode_answer(e, r->stream_id, r->req, r->t2, clk_ns(),
                                 clk_source_name(clk_current()));
}

int prov_admin_login(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    if (m->msg_class == RWF_MC_GENERIC) {
        int64_t t2 = clk_ns();
        clksync_msg q;
        int rc = clksync_decode(m, &q);
        if (rc == 0)
            return wsb_role(th, s, m);
        if (rc < 0 || q.answer) {
            printf("Received a malformed clock offset request: %s\n",
                   rc < 0 ? err_msg() : "an answer");
            fflush(stdout);
            return 0;
        }
        /* Sent at once: time spent queued would widen the consumer's bound. */
        clksync_reply r = {&q, m->stream_id, t2};
        rc = prov_send(s, CLKSYNC_MSG_MAX, enc_clksync, &r, false);
        if (rc >= 0 && run_out_flush(&s->out) < 0)
            return err_push("flushing a clock offset answer"), -1;
        return rc;
    }
    rwf_login req;
    if (rwf_rdm_login_decode(m, &req) != RWF_OK) {
        printf("rsslDecodeRDMLoginMsg() failed: %s\n", err_msg());
        return 0;
    }
    switch (req.msg_class) {
    case RWF_MC_REQUEST: {
        printf("Received login request.\n  Username: %.*s\n", (int)req.user.len, req.user.data);
        if (req.flags & RWF_LOGIN_HAS_APP_NAME)
            printf("  ApplicationName: %.*s\n", (int)req.app_name.len, req.app_name.data);
        printf("\n");
        if ((req.flags & RWF_LOGIN_HAS_ROLE) && req.role != 0)
            printf("Warning: Connected client did not identify itself as a consumer.\n");
        fflush(stdout);
        rwf_login r;
        memset(&r, 0, sizeof(r));
        r.stream_id = req.stream_id;
        r.user = req.user;
        r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION |
                  RWF_LOGIN_HAS_SINGLE_OPEN | RWF_LOGIN_HAS_SUPPORT_POST | RWF_LOGIN_SOLICITED;
        if (th->app->cfg.support_standby) {
            /* Beyond the original (-supportStandby): warm standby, login and service based. */
            r.flags |= RWF_LOGIN_HAS_SUPPORT_STANDBY | RWF_LOGIN_HAS_SUPPORT_STANDBY_MODE;
            r.support_standby = 1;
            r.support_standby_mode = 3;
        }
        r.state.stream_state = RWF_STREAM_OPEN;
        r.state.data_state = RWF_DATA_OK;
        r.state.code = RWF_SC_NONE;
        r.app_id = RWF_STR("256");
        r.app_name = RWF_STR("ProvPerf");
        r.position = rwf_buf_cstr(th->app->in.position);
        r.single_open = 0;
        r.support_post = 1;
        return prov_send(s, 512 + req.user.len, enc_login, &r, false);
    }
    case RWF_MC_CLOSE:
        printf("\nReceived Login Close for StreamId %d\n", m->stream_id);
        return 0;
    default:
        printf("\nReceived Unhandled Login Msg Class: %u\n", m->msg_class);
        return 0;
    }
}

static int enc_directory(rwf_enc *e, const void *arg)
{
    return rwf_rdm_directory_refresh(e, (const rwf_directory *)arg);
}

int prov_admin_directory(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    switch (m->msg_class) {
    case RWF_MC_GENERIC:
        return wsb_role(th, s, m);
    case RWF_MC_REQUEST: {
        printf("Received Directory Request.\n\n");
        fflush(stdout);
        const rwf_service *svc = &th->app->in.service;
        rwf_directory d;
        memset(&d, 0, sizeof(d));
        d.stream_id = m->stream_id;
        d.filter = m->key.filter;
        d.solicited = 1;
        d.clear_cache = 1;
        d.state.stream_state = RWF_STREAM_OPEN;
        d.state.data_state = RWF_DATA_OK;
        d.state.code = RWF_SC_NONE;
        if (m->key.flags & RWF_MKF_HAS_SERVICE_ID) {
            /* A request for one service: answered for that id, empty unless it is ours. */
            d.has_service_id = 1;
            d.service_id = m->key.service_id;
            if (m->key.service_id == svc->id) {
                d.services = svc;
                d.service_count = 1;
            }
        } else {
            d.services = svc;
            d.service_count = 1;
        }
        return prov_send(s, 1024 + svc->name.len, enc_directory, &d, false);
    }
    case RWF_MC_CLOSE:
        printf("\nReceived Source Directory Close for StreamId %d\n", m->stream_id);
        return 0;
    default:
        printf("\nReceived Unhandled Source Directory Msg Class: %u\n", m->msg_class);
        return 0;
    }
}

typedef struct dict_part {
    const rwf_dict_refresh *r;
    const rwf_dict *d;
    int32_t *next;
    int status; /* RWF_OK (last part) or RWF_PART_MORE */
} dict_part;

static int enc_dict_part(rwf_enc *e, const void *arg)
{
    dict_part *p = (dict_part *)arg;
    p->status = rwf_rdm_dictionary_refresh(e, p->r, p->d, p->next);
    return p->status < 0 ? p->status : 0;
}

static int enc_dict_reject(rwf_enc *e, const void *arg)
{
    return rwf_rdm_dictionary_reject(e, *(const int32_t *)arg);
}

/* Sends the dictionary of `type` in parts of part_size bytes, as many as it takes. */
static int send_dictionary(prov_thread *th, pv_sess *s, const rwf_dict_request *q, int type,
                           uint32_t part_size)
{
    rwf_dict_refresh r;
    memset(&r, 0, sizeof(r));
    r.stream_id = q->stream_id;
    r.name = q->name;
    r.verbosity = q->verbosity;
    r.service_id = 0; /* as the ETA provider: the request's service id is not copied */
    r.solicited = 1;
    r.type = type;
    int32_t next = 0;
    dict_part p = {&r, th->app->in.dict, &next, RWF_PART_MORE};
    int any = 0;
    while (p.status == RWF_PART_MORE) {
        int32_t before = next;
        int rc = prov_send(s, part_size, enc_dict_part, &p, false);
        if (rc < 0)
            return rc;
        any |= rc;
        if (p.status < 0 || (p.status == RWF_PART_MORE && next == before)) {
            printf("Failed to encode the %.*s dictionary: %s\n", (int)q->name.len, q->name.data,
                   err_msg());
            return any;
        }
    }
    return any;
}

int prov_admin_dictionary(prov_thread *th, pv_sess *s, const rwf_msg *m)
{
    switch (m->msg_class) {
    case RWF_MC_REQUEST: {
        rwf_dict_request q;
        if (rwf_rdm_dictionary_request_decode(m, &q) != RWF_OK) {
            printf("rsslDecodeRDMDictionaryMsg() failed: %s\n", err_msg());
            return 0;
        }
        printf("\nReceived Dictionary Request for DictionaryName: %.*s\n", (int)q.name.len,
               q.name.data);
        fflush(stdout);
        if (rwf_buf_eq_cstr(q.name, "RWFFld")) {
            tp_info info;
            if (s->rx)
                info = *rx_info(s->rx);
            else if (tp_get_info(s->ch, &info) != 0)
                return -1;
            return send_dictionary(th, s, &q, RWF_DICT_FIELD_DEFINITIONS, info.max_fragment_size);
        }
        if (rwf_buf_eq_cstr(q.name, "RWFEnum"))
            return send_dictionary(th, s, &q, RWF_DICT_ENUM_TABLES, 128000);
        return prov_send(s, 512, enc_dict_reject, &q.stream_id, false);
    }
    case RWF_MC_CLOSE:
        printf("\nReceived Dictionary Close for StreamId %d\n", m->stream_id);
        return 0;
    default:
        printf("\nReceived Unhandled Dictionary MsgClass: %u\n", m->msg_class);
        return 0;
    }
}
