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
#include <stdlib.h>
#include <string.h>

/* Room for a request: header, QoS, key with a name of up to 255 bytes. */
#define CONS_REQUEST_ROOM(name_len) (40u + (uint32_t)(name_len))

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
    bool native = cons_json_native(w);
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
        if (it->generic && !native) /* native JSON requests are never private */
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

/* The codec's view of template m: its entries in a FieldList (MarketPrice) or in a Map of
 * FieldLists keyed by ORDER_ID (MarketByOrder, with its set definitions). */
static inline rwf_pre_body body_of(const msgdata_msg *m)
{
    bool map = m->domain != RWF_DMT_MARKET_PRICE;
    return (rwf_pre_body){.ctype = map ? RWF_DT_MAP : RWF_DT_FIELD_LIST,
                          .key_type = RWF_DT_RMTES_STRING,
                          .count = m->count,
                          .key_fid = RWF_FID_ORDER_ID,
                          .entries = m->entries,
                          .entries_len = m->entries_len,
                          .set_defs = m->set_defs,
                          .set_defs_len = m->set_defs_len};
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

/* Writes at `at` a post (a Post carrying an Update with the run's post user info) when post,
 * else a generic message, on stream sid, of template m: its payload is the template's entries
 * and, when stamp is not 0, the send stamp (stamp_fid) and, MarketPrice only, the scheduled
 * stamp (sched_fid) when sched is not 0; a MarketByOrder payload carries the send stamp alone,
 * in its summary data (docs/wire.md#posts). Written by the codec's one-pass writers; at has
 * message_room(m) bytes. Returns the message's length. */
static uint32_t put_item_msg(const cons_worker *w, uint8_t *at, bool post, int32_t sid,
                             const msgdata_msg *m, int16_t stamp_fid, uint64_t stamp,
                             int16_t sched_fid, uint64_t sched)
{
    rwf_pre_body b = body_of(m);
    uint8_t *p =
        post ? rwf_msg_put_post_update(at, m->domain, sid, RWF_PSMF_POST_COMPLETE,
                                       w->run->post_user_addr, w->run->post_user_id, b.ctype)
             : rwf_msg_put_short(at, RWF_MC_GENERIC, m->domain, sid, b.ctype);
    bool both = stamp && sched && b.ctype == RWF_DT_FIELD_LIST;
    uint8_t *mark;
    p = rwf_pre_put_begin(p, &b, (stamp != 0) + both, &mark);
    if (stamp)
        p = rwf_pre_put_uint(p, stamp_fid, stamp);
    if (both)
        p = rwf_pre_put_uint(p, sched_fid, sched);
    return (uint32_t)(rwf_pre_put_end(p, &b, mark) - at);
}

/* Writes that message into the item write path. Returns 1 written, 0 out of buffers, -1
 * failed. */
static int write_item_msg(cons_worker *w, bool post, int32_t sid, const msgdata_msg *m,
                          int16_t stamp_fid, uint64_t stamp, int16_t sched_fid, uint64_t sched)
{
    run_out *o = cons_item_out(w);
    uint8_t *data;
    int rc = run_out_begin(o, message_room(m), &data);
    if (rc < 0)
        return rc == TP_ENOBUFS ? 0 : -1;
    uint32_t len = put_item_msg(w, data, post, sid, m, stamp_fid, stamp, sched_fid, sched);
    rc = run_out_end(o, len, false);
    return rc >= 0 ? 1 : rc == TP_ENOBUFS ? 0 : -1;
}

int cons_send_posts(cons_worker *w, uint64_t n, int64_t latency_pos, int64_t sched_ns)
{
    cons_thread *t = w->t;
    if (cons_json_refuses(w, true))
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t index = w->post_ring[w->post_next];
        w->post_next = w->post_next + 1 == w->post_n ? 0 : w->post_next + 1;
        cons_item *it = &w->items[index];
        const msgdata_msg *m = next_template(w, it, MSGDATA_POST, &it->post_msg);
        uint64_t stamp, sched;
        stamps(w, lra_stamp(latency_pos, i), sched_ns, &stamp, &sched);
        int rc = write_item_msg(w, true, (int32_t)(CONS_ITEM_STREAM_START + index), m,
                                RWF_FID_TIM_TRK_2, stamp, RWF_FID_TIM_TRK_3, sched);
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
    if (cons_json_refuses(w, false))
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t index = w->gen_ring[w->gen_next];
        w->gen_next = w->gen_next + 1 == w->gen_n ? 0 : w->gen_next + 1;
        cons_item *it = &w->items[index];
        const msgdata_msg *m = next_template(w, it, MSGDATA_GENERIC, &it->gen_msg);
        bool latency = lra_stamp(latency_pos, i);
        uint64_t stamp, sched;
        stamps(w, latency, sched_ns, &stamp, &sched);
        /* TIM_TRK_3 is what every tool reads in generic messages; TIM_TRK_1, which the ETA
         * tools ignore there, carries the scheduled time. */
        int rc = write_item_msg(w, false, (int32_t)(CONS_ITEM_STREAM_START + index), m,
                                RWF_FID_TIM_TRK_3, stamp, RWF_FID_TIM_TRK_1, sched);
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
            uint8_t *buf = malloc(message_room(&v[i]));
            if (!buf)
                break;
            uint32_t len = put_item_msg(w, buf, kind == MSGDATA_POST, CONS_ITEM_STREAM_START, &v[i],
                                        0, 0, 0, 0);
            free(buf);
            printf("  %s %s %u: \n"
                   "         estimated length: %u bytes\n"
                   "    approx encoded length: %u bytes\n",
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
