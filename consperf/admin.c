/*
 * The admin streams of a consumer thread (docs/wire.md#admin-domains): the login (stream 1), the
 * source directory (stream 2) and, when the dictionary files were not in the working folder, the
 * field and enum dictionaries (streams 3 and 4). The console lines are the ETA ConsPerf's.
 */
#include "worker.h"

#include "run_host.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONS_MAX_SERVICES 64

/* Room for any admin request: user names and positions are short. */
#define CONS_ADMIN_ROOM 1024

/* Starts an admin message: *e writes into room of the channel's write path (never inside the
 * tunnel). Returns 0, or -1 (err_msg() set); after 0, admin_send ends it. */
static int admin_begin(cons_worker *w, rwf_enc *e)
{
    uint8_t *data;
    int rc = run_out_begin(&w->out, CONS_ADMIN_ROOM, &data);
    if (rc == TP_ENOBUFS)
        return err_set("no room to write an admin request");
    if (rc < 0)
        return err_push("no output buffer");
    rwf_enc_init(e, data, CONS_ADMIN_ROOM);
    return 0;
}

/* Ends the admin message admin_begin started: enc_rc is its encoding's status; when that is
 * not an error, the message is written, else its room is given back. Returns 0 or -1. */
static int admin_send(cons_worker *w, rwf_enc *e, int enc_rc)
{
    size_t len;
    if (enc_rc < 0 || rwf_enc_finish(e, &len) != RWF_OK) {
        run_out_cancel(&w->out);
        return -1;
    }
    int rc = run_out_end(&w->out, (uint32_t)len, false);
    if (rc == TP_ENOBUFS)
        return err_set("no room to write an admin request");
    return rc < 0 ? -1 : 0;
}

/* ---- login ------------------------------------------------------------------------------- */

void cons_login_names(const cons_config *cfg, char user[256], char pos[64])
{
    if (cfg->opts.uname[0])
        snprintf(user, 256, "%s", cfg->opts.uname);
    else
        run_host_user(user, 256);
    run_host_position(pos, 64, "localhost/net");
}

int cons_send_login(cons_worker *w)
{
    char user[256], pos[64];
    cons_login_names(w->cfg, user, pos);
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = CONS_LOGIN_STREAM;
    l.flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l.user = rwf_buf_cstr(user);
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ConsPerf");
    l.position = rwf_buf_cstr(pos);
    l.role = 0; /* consumer */
    rwf_enc e;
    if (admin_begin(w, &e) < 0)
        return -1;
    return admin_send(w, &e, rwf_rdm_login_request(&e, &l));
}

/* The source directory request (stream 2) for every service's info, state and group. */
static int send_directory_request(cons_worker *w)
{
    const uint32_t filter = RWF_DIR_INFO | RWF_DIR_STATE | RWF_DIR_GROUP;
    rwf_enc e;
    if (admin_begin(w, &e) < 0)
        return -1;
    return admin_send(w, &e, rwf_rdm_directory_request(&e, CONS_DIRECTORY_STREAM, filter, 0, 0));
}

/* ---- clock offset (clksync.h) ------------------------------------------------------------ */

/* Once the login is accepted, in the bare mode: the exchanges start when the RIPC handshake
 * named the provider one of ours; the original's provider and an ADS never see them. */
static void clksync_begin(cons_worker *w)
{
    tp_info info;
    bool ours = w->ch && tp_get_info(w->ch, &info) == 0 && clksync_peer_is_ours(info.component);
    clksync_start(&w->cs, ours ? CLKSYNC_ON : CLKSYNC_NOT_OURS, clk_ns());
}

int cons_send_clksync(cons_worker *w)
{
    rwf_enc e;
    if (admin_begin(w, &e) < 0)
        return -1;
    int64_t t1 = clk_ns();
    int rc = clksync_request(&w->cs, &e, CONS_LOGIN_STREAM, t1, clk_source_name(clk_current()));
    if (admin_send(w, &e, rc) < 0)
        return -1;
    return run_out_flush(&w->out) < 0 ? -1 : 0;
}

/* A Generic message on the login stream: the answer to a clock offset request, read at t4. */
static int on_login_generic(cons_worker *w, const rwf_msg *m, int64_t t4)
{
    clksync_msg a;
    int rc = clksync_decode(m, &a);
    if (rc < 0)
        return err_push("clock offset answer");
    if (rc == 0)
        return err_set("Received unhandled login message class %s",
                       rwf_msg_class_name(m->msg_class));
    clksync_answer(&w->cs, &a, t4);
    return 0;
}

static int on_login(cons_worker *w, const rwf_msg *m)
{
    if (m->msg_class == RWF_MC_GENERIC)
        return on_login_generic(w, m, clk_ns());
    rwf_login l;
    if (rwf_rdm_login_decode(m, &l) != RWF_OK)
        return err_push("login response");
    switch (l.msg_class) {
    case RWF_MC_REFRESH:
        printf("Received login refresh.\n");
        if (l.flags & RWF_LOGIN_HAS_APP_NAME)
            printf("  ApplicationName: %.*s\n", (int)l.app_name.len, l.app_name.data);
        printf("\n");
        fflush(stdout);
        if (l.state.stream_state != RWF_STREAM_OPEN)
            return err_set("Login failed: stream state %s: %.*s",
                           rwf_stream_state_name(l.state.stream_state), (int)l.state.text.len,
                           l.state.text.data ? l.state.text.data : "");
        if (w->cfg->posting_rate && (!(l.flags & RWF_LOGIN_HAS_SUPPORT_POST) || !l.support_post))
            return err_set("Provider for this connection does not support posting.");
        break;
    case RWF_MC_STATUS:
        if ((l.flags & RWF_LOGIN_HAS_STATE) && (l.state.stream_state == RWF_STREAM_CLOSED ||
                                                l.state.stream_state == RWF_STREAM_CLOSED_RECOVER))
            return err_set("Login closed by the provider: %.*s", (int)l.state.text.len,
                           l.state.text.data ? l.state.text.data : "");
        break;
    default:
        return err_set("Received unhandled login message class %s",
                       rwf_msg_class_name(l.msg_class));
    }
    if (!w->logged_in) {
        w->logged_in = true;
        if (!w->rx)
            clksync_begin(w);
        if (!w->rx && send_directory_request(w) < 0)
            return err_push("sending the directory request");
    }
    return 0;
}

/* ---- directory --------------------------------------------------------------------------- */

/* The dictionary request named name on stream id, to the service found. */
static int send_dictionary_request(cons_worker *w, int32_t id, const char *name)
{
    rwf_enc e;
    if (admin_begin(w, &e) < 0)
        return -1;
    return admin_send(
        w, &e,
        rwf_rdm_dictionary_request(&e, id, w->service_id, rwf_buf_cstr(name), RWF_DICT_NORMAL));
}

static int send_dictionary_requests(cons_worker *w)
{
    if (send_dictionary_request(w, CONS_FIELD_DICT_STREAM, "RWFFld") < 0 ||
        send_dictionary_request(w, CONS_ENUM_DICT_STREAM, "RWFEnum") < 0)
        return err_push("sending the dictionary requests");
    return 0;
}

static int on_directory(cons_worker *w, const rwf_msg *m)
{
    const char *want = w->cfg->opts.service_name;
    if (!w->rx) /* the original prints it in its bare read loop only */
        printf("Received source directory response.\n\n");
    if (w->have_service) /* found already: later directory messages do not matter */
        return 0;
    if (m->msg_class == RWF_MC_STATUS)
        return 0;
    if (m->msg_class != RWF_MC_REFRESH && m->msg_class != RWF_MC_UPDATE)
        return err_set("Received unhandled directory message class %s",
                       rwf_msg_class_name(m->msg_class));
    rwf_service *list = malloc(CONS_MAX_SERVICES * sizeof(*list));
    if (!list)
        return err_set("out of memory decoding the directory");
    unsigned count = 0;
    if (rwf_rdm_directory_decode(m, list, CONS_MAX_SERVICES, &count) != RWF_OK) {
        free(list);
        return err_push("directory response");
    }
    bool found = false, tunnel = false;
    for (unsigned i = 0; i < count; i++) {
        const rwf_service *s = &list[i];
        if (!(s->flags & RWF_SVC_HAS_INFO) || !(s->flags & RWF_SVC_HAS_NAME) ||
            !rwf_buf_eq_cstr(s->name, want))
            continue;
        found = true;
        if ((s->flags & RWF_SVC_HAS_STATE) && s->service_state &&
            (!(s->flags & RWF_SVC_HAS_ACCEPTING_REQS) || s->accepting_requests)) {
            w->have_service = true;
            w->service_id = s->id;
            w->has_qos = (s->flags & RWF_SVC_HAS_QOS) && s->qos_count > 0;
            if (w->has_qos)
                w->qos = s->qos[0];
            tunnel = cons_tun_capable(s);
            break;
        }
    }
    free(list);
    if (w->have_service)
        cons_tun_open(w, tunnel); /* -tunnel: printed before the service line, as the original */
    if (w->have_service)
        printf("Service %s is up.\n\n", want);
    else if (found)
        printf("Service %s is currently down.\n\n", want);
    else
        printf("Service %s not found in message.\n\n", want);
    fflush(stdout);
    /* With -reactor the layer downloads the dictionary itself; with -watchlist the requests go
     * through the watchlist (which puts them on its own wire streams). */
    if (w->have_service && w->dict_have != CONS_HAVE_BOTH && (!w->rx || w->cfg->watchlist))
        return send_dictionary_requests(w);
    return 0;
}

/* ---- dictionary -------------------------------------------------------------------------- */

static int on_dictionary(cons_worker *w, const rwf_msg *m)
{
    if (!w->own_dict) /* loaded from files: nothing was asked for */
        return 0;
    unsigned bit;
    int *type;
    if (m->stream_id == CONS_FIELD_DICT_STREAM) {
        bit = CONS_HAVE_FIELDS;
        type = &w->dict_type[0];
    } else if (m->stream_id == CONS_ENUM_DICT_STREAM) {
        bit = CONS_HAVE_ENUMS;
        type = &w->dict_type[1];
    } else {
        return err_set("dictionary message on unexpected stream %d", (int)m->stream_id);
    }
    if (m->msg_class == RWF_MC_STATUS) {
        if ((m->flags & RWF_STMF_HAS_STATE) && (m->state.stream_state == RWF_STREAM_CLOSED ||
                                                m->state.stream_state == RWF_STREAM_CLOSED_RECOVER))
            return err_set("dictionary request on stream %d refused: %.*s", (int)m->stream_id,
                           (int)m->state.text.len, m->state.text.data ? m->state.text.data : "");
        return 0;
    }
    if (m->msg_class != RWF_MC_REFRESH)
        return err_set("Received unhandled dictionary message class %s",
                       rwf_msg_class_name(m->msg_class));
    if (w->dict_have & bit)
        return 0; /* a refresh of a dictionary we have in full */
    if (rwf_rdm_dictionary_apply(w->own_dict, m, type) != RWF_OK)
        return err_push("loading the %s dictionary from the provider",
                        bit == CONS_HAVE_FIELDS ? "field" : "enum type");
    if (m->flags & RWF_RFMF_REFRESH_COMPLETE) {
        printf(bit == CONS_HAVE_FIELDS ? "Field dictionary downloaded.\n\n"
                                       : "Enumerated Types downloaded.\n\n");
        w->dict_have |= bit;
        if (w->dict_have == CONS_HAVE_BOTH) {
            printf("Dictionary download complete.\n");
            w->dict = w->own_dict;
        }
        fflush(stdout);
    }
    return 0;
}

int cons_on_admin(cons_worker *w, const rwf_msg *m)
{
    switch (m->domain) {
    case RWF_DMT_LOGIN:
        return on_login(w, m);
    case RWF_DMT_SOURCE:
        return on_directory(w, m);
    default:
        return on_dictionary(w, m);
    }
}
