/*
 * What a consumer thread writes on its item streams: requests (docs/wire.md#items), posts
 * (#posts) and generic messages (#generic-messages). Each message is encoded straight into a
 * transport buffer, header first; running out of output buffers is back-pressure, not an error:
 * requests wait for the next tick, posts and generic messages are counted as not sent.
 */
#include "payload.h"
#include "worker.h"

#include "clk.h"
#include "err.h"
#include "msgdata.h"
#include "rx_tunnel.h"

#include <stdio.h>
#include <string.h>

/* Room for a request: header, QoS, key with a name of up to 255 bytes. */
#define CONS_REQUEST_ROOM(name_len) (40u + (uint32_t)(name_len))

/* ---- the write path ---------------------------------------------------------------------- */

void cons_send_start(cons_worker *w)
{
    if (w->rch) {
        run_out_init_rx(&w->out, w->rch, 1, 0, 0);
        return;
    }
    run_out_init_tp(&w->out, w->ch, 1, 0, 0);
    if (w->json) /* encoded as RWF into the scratch, converted into the transport's buffer */
        run_out_json(&w->out, w->run->json->conv, w->jout, w->jout_cap);
}

/* Encodes m into room bytes of o and writes it. Returns 1 when written, 0 when the output
 * buffers are exhausted (nothing written: back-pressure; with the watchlist, a stream waiting
 * for its service), -1 on failure (err_msg() set). */
static int write_msg(run_out *o, const rwf_msg *m, uint32_t room)
{
    uint8_t *data;
    int rc = run_out_begin(o, room, &data);
    if (rc < 0)
        return rc == TP_ENOBUFS ? 0 : -1;
    size_t len;
    if (rwf_msg_encode(m, data, room, &len) != RWF_OK) {
        run_out_cancel(o);
        return err_push("encoding a %s on stream %d", rwf_msg_class_name(m->msg_class),
                        (int)m->stream_id);
    }
    rc = run_out_end(o, (uint32_t)len, false);
    return rc >= 0 ? 1 : rc == TP_ENOBUFS ? 0 : -1;
}

int cons_send_requests(cons_worker *w, uint64_t n)
{
    for (; n > 0 && w->next_request < w->item_count; n--) {
        cons_item *it = &w->items[w->next_request];
        rwf_msg m;
        rwf_msg_init(&m, RWF_MC_REQUEST, it->def->domain,
                     (int32_t)(CONS_ITEM_STREAM_START + w->next_request), RWF_DT_NO_DATA);
        if (it->streaming)
            m.flags |= RWF_RQMF_STREAMING;
        if (w->has_qos) {
            m.flags |= RWF_RQMF_HAS_QOS;
            m.qos = w->qos;
        }
        if (it->generic && !w->native) /* native JSON requests are never private */
            m.flags |= RWF_RQMF_PRIVATE_STREAM;
        m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        m.key.service_id = w->service_id;
        m.key.name = rwf_buf_make(it->def->name, it->def->name_len);
        int rc = write_msg(cons_item_out(w), &m, CONS_REQUEST_ROOM(it->def->name_len));
        if (rc <= 0)
            return rc;
        it->state = CONS_ITEM_WAITING;
        w->waiting++;
        w->next_request++;
        counter_inc(&w->t->c.requests);
    }
    return 0;
}

/* ---- posts and generic messages ---------------------------------------------------------- */

/* The next MsgData template of kind for an item (round robin per item, as the ETA tools). */
static const msgdata_msg *next_template(const cons_worker *w, const cons_item *it, int kind,
                                        uint16_t *next)
{
    const msgdata_list *l = msgdata_list_of(w->run->msgs, it->def->domain);
    const msgdata_msg *v = kind == MSGDATA_POST ? l->posts : l->generics;
    uint32_t n = kind == MSGDATA_POST ? l->post_count : l->generic_count;
    const msgdata_msg *m = &v[*next % n];
    *next = (uint16_t)((*next + 1) % n);
    return m;
}

/* The payload of a post's update or of a generic message: the template's entries, then the
 * send stamp and the scheduled stamp (MarketPrice). A MarketByOrder payload carries the send
 * stamp only, in its summary data. */
static int encode_payload(rwf_enc *e, const msgdata_msg *m, int kind, int16_t stamp_fid,
                          uint64_t stamp, int16_t sched_fid, uint64_t sched)
{
    if (m->domain != RWF_DMT_MARKET_PRICE)
        return msgdata_encode(e, m, kind, stamp ? &stamp : NULL);
    rwf_enc_fl_begin_std(e);
    rwf_enc_fl_append(e, rwf_buf_make(m->entries, m->entries_len), m->count);
    if (stamp) {
        rwf_enc_fl_uint(e, stamp_fid, stamp);
        if (sched)
            rwf_enc_fl_uint(e, sched_fid, sched);
    }
    return rwf_enc_fl_end(e);
}

/* Room for a post or generic message of template m: headers, post user info, two stamps. */
static uint32_t message_room(const msgdata_msg *m)
{
    return 96 + m->entries_len + m->set_defs_len + 32;
}

/* The stamps of a message chosen for latency (0, 0 otherwise). */
static void stamps(const cons_worker *w, bool latency, int64_t sched_ns, uint64_t *stamp,
                   uint64_t *sched)
{
    if (!latency) {
        *stamp = *sched = 0;
        return;
    }
    int64_t now = clk_ns();
    *stamp = w->nano ? (uint64_t)now : (uint64_t)now / 1000;
    *sched = w->nano ? (uint64_t)sched_ns : (uint64_t)sched_ns / 1000;
}

/* Encodes the message of header h (for a post, h is the Post and inner the Update it
 * carries) with its payload from template m. Returns the encoder's sticky status. */
static int encode_item_msg(rwf_enc *e, const rwf_msg *h, const rwf_msg *inner, const msgdata_msg *m,
                           int kind, int16_t stamp_fid, uint64_t stamp, int16_t sched_fid,
                           uint64_t sched)
{
    rwf_enc_msg_begin(e, h);
    if (inner)
        rwf_enc_msg_begin(e, inner);
    encode_payload(e, m, kind, stamp_fid, stamp, sched_fid, sched);
    if (inner)
        rwf_enc_msg_end(e);
    return rwf_enc_msg_end(e);
}

/* Encodes that message into a new buffer and writes it. Returns 1 written, 0 out of buffers,
 * -1 failed. */
static int write_item_msg(cons_worker *w, const rwf_msg *h, const rwf_msg *inner,
                          const msgdata_msg *m, int kind, int16_t stamp_fid, uint64_t stamp,
                          int16_t sched_fid, uint64_t sched)
{
    run_out *o = cons_item_out(w);
    uint32_t room = message_room(m);
    uint8_t *data;
    int rc = run_out_begin(o, room, &data);
    if (rc < 0)
        return rc == TP_ENOBUFS ? 0 : -1;
    rwf_enc e;
    rwf_enc_init(&e, data, room);
    encode_item_msg(&e, h, inner, m, kind, stamp_fid, stamp, sched_fid, sched);
    size_t len;
    if (rwf_enc_finish(&e, &len) != RWF_OK) {
        run_out_cancel(o);
        return err_push("encoding a %s on stream %d", rwf_msg_class_name(h->msg_class),
                        (int)h->stream_id);
    }
    rc = run_out_end(o, (uint32_t)len, false);
    return rc >= 0 ? 1 : rc == TP_ENOBUFS ? 0 : -1;
}

/* Native JSON mode sends no posts or generic messages: the ETA ConsPerf says so once each, in
 * words its two paths have swapped (docs/wire.md#json-posts-and-generic-messages). True when the
 * caller must not send. */
static bool native_refuses(cons_worker *w, bool *told, const char *what)
{
    if (!w->native)
        return false;
    if (!*told) {
        printf("It is not supported to send JSON %s messages.\n", what);
        fflush(stdout);
        *told = true;
    }
    return true;
}

static uint8_t payload_type(const msgdata_msg *m)
{
    return m->domain == RWF_DMT_MARKET_PRICE ? RWF_DT_FIELD_LIST : RWF_DT_MAP;
}

/* The Post of a post message and the Update it carries. */
static void post_headers(const cons_worker *w, const cons_item *it, int32_t stream,
                         const msgdata_msg *m, rwf_msg *post, rwf_msg *upd)
{
    rwf_msg_init(post, RWF_MC_POST, it->def->domain, stream, RWF_DT_MSG);
    post->flags = RWF_PSMF_POST_COMPLETE;
    post->post_user_addr = w->run->post_user_addr;
    post->post_user_id = w->run->post_user_id;
    rwf_msg_init(upd, RWF_MC_UPDATE, it->def->domain, 0, payload_type(m));
    upd->flags = RWF_UPMF_HAS_POST_USER_INFO;
    upd->post_user_addr = post->post_user_addr;
    upd->post_user_id = post->post_user_id;
}

static void generic_header(const cons_item *it, int32_t stream, const msgdata_msg *m, rwf_msg *g)
{
    rwf_msg_init(g, RWF_MC_GENERIC, it->def->domain, stream, payload_type(m));
}

int cons_send_posts(cons_worker *w, uint64_t n, int64_t latency_pos, int64_t sched_ns)
{
    cons_thread *t = w->t;
    if (native_refuses(w, &w->told_post, "generic"))
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t index = w->post_ring[w->post_next];
        w->post_next = w->post_next + 1 == w->post_n ? 0 : w->post_next + 1;
        cons_item *it = &w->items[index];
        const msgdata_msg *m = next_template(w, it, MSGDATA_POST, &it->post_msg);
        uint64_t stamp, sched;
        stamps(w, lra_stamp(latency_pos, i), sched_ns, &stamp, &sched);
        rwf_msg post, upd;
        post_headers(w, it, (int32_t)(CONS_ITEM_STREAM_START + index), m, &post, &upd);
        int rc = write_item_msg(w, &post, &upd, m, MSGDATA_POST, RWF_FID_TIM_TRK_2, stamp,
                                RWF_FID_TIM_TRK_3, sched);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            counter_add(&t->c.post_out_of_bufs, n - i);
            return 0;
        }
        counter_inc(&t->c.posts_sent);
    }
    return 0;
}

int cons_send_generics(cons_worker *w, uint64_t n, int64_t latency_pos, int64_t sched_ns)
{
    cons_thread *t = w->t;
    if (native_refuses(w, &w->told_gen, "post"))
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t index = w->gen_ring[w->gen_next];
        w->gen_next = w->gen_next + 1 == w->gen_n ? 0 : w->gen_next + 1;
        cons_item *it = &w->items[index];
        const msgdata_msg *m = next_template(w, it, MSGDATA_GENERIC, &it->gen_msg);
        bool latency = lra_stamp(latency_pos, i);
        uint64_t stamp, sched;
        stamps(w, latency, sched_ns, &stamp, &sched);
        rwf_msg g;
        generic_header(it, (int32_t)(CONS_ITEM_STREAM_START + index), m, &g);
        /* TIM_TRK_3 is what every tool reads in generic messages; TIM_TRK_1, which the ETA
         * tools ignore there, carries the scheduled time. */
        int rc = write_item_msg(w, &g, NULL, m, MSGDATA_GENERIC, RWF_FID_TIM_TRK_3, stamp,
                                RWF_FID_TIM_TRK_1, sched);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            counter_add(&t->c.genmsg_out_of_bufs, n - i);
            return 0;
        }
        counter_inc(&t->c.genmsgs_sent);
        if (latency)
            counter_inc(&t->c.genmsg_lat_sent);
        if (!atomic_load_explicit(&t->first_gen_sent_ns, memory_order_relaxed))
            atomic_store_explicit(&t->first_gen_sent_ns, (uint64_t)clk_ns(), memory_order_relaxed);
    }
    return 0;
}

/* The ETA tools' "Approximate message sizes" block for one kind of message. */
static void print_sizes(cons_worker *w, int kind, const char *what)
{
    static const struct {
        uint8_t domain;
        const char *name;
    } domains[] = {{RWF_DMT_MARKET_PRICE, "MarketPrice"},
                   {RWF_DMT_MARKET_BY_ORDER, "MarketByOrder"}};
    printf("Approximate message sizes:\n");
    for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
        const msgdata_list *l = msgdata_list_of(w->run->msgs, domains[d].domain);
        if (!l)
            continue;
        const msgdata_msg *v = kind == MSGDATA_POST ? l->posts : l->generics;
        uint32_t n = kind == MSGDATA_POST ? l->post_count : l->generic_count;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t buf[8192];
            rwf_enc e;
            rwf_enc_init(&e, buf, sizeof(buf));
            cons_item it = {.def = &(item_def){.domain = domains[d].domain}};
            rwf_msg h, inner;
            if (kind == MSGDATA_POST) {
                post_headers(w, &it, CONS_ITEM_STREAM_START, &v[i], &h, &inner);
                encode_item_msg(&e, &h, &inner, &v[i], kind, 0, 0, 0, 0);
            } else {
                generic_header(&it, CONS_ITEM_STREAM_START, &v[i], &h);
                encode_item_msg(&e, &h, NULL, &v[i], kind, 0, 0, 0, 0);
            }
            size_t len = 0;
            rwf_enc_finish(&e, &len);
            printf("  %s %s %u: \n"
                   "         estimated length: %u bytes\n"
                   "    approx encoded length: %zu bytes\n",
                   domains[d].name, what, i + 1, msgdata_estimated_len(&v[i], kind, 0), len);
        }
    }
    printf("\n");
}

void cons_print_msg_sizes(cons_worker *w)
{
    /* Each block ends with a blank line, printed even when the block is empty (the original
     * prints its two blocks' ends in every run). */
    if (w->run->msgs && w->cfg->posting_rate)
        print_sizes(w, MSGDATA_POST, "PostMsg");
    else
        printf("\n");
    if (w->run->msgs && w->cfg->opts.generic_msg_rate)
        print_sizes(w, MSGDATA_GENERIC, "GenMsg");
    else
        printf("\n");
    fflush(stdout);
}
