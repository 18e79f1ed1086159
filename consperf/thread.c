/*
 * A consumer thread (docs/tools.md#consperf): connect (retrying every second until the provider is
 * up), log in, find the service, get the dictionary, then on each tick request bursts until
 * every item is requested, post and generic-message bursts once every image is in, and in the
 * time between ticks read and decode whatever arrives.
 *
 * The loop is the session driver's (common/run/run_drv.h, docs/driver.md): this file is the
 * table of callbacks of the bare mode (a connection attempt and its failure, the channel up, a
 * message, a tick, the channel down) and the item handling every mode shares: one item state
 * machine (cons_item_msg) for a message read from RWF (cons_on_item) or from JSON
 * (cons_on_jitem); the Reactor modes' table is in cons_rx.c. The per-message path (on_msg,
 * cons_on_rwf, cons_on_item) allocates nothing, takes no lock and prints nothing.
 */
#include "jdecode.h"
#include "payload.h"
#include "worker.h"

#include "clk.h"
#include "err.h"
#include "run_chan.h"
#include "sig.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cons_fail(cons_worker *w, const char *what)
{
    return run_drv_fail(&w->drv, RUN_EXIT_FAILED, what);
}

/* ---- latency ----------------------------------------------------------------------------- */

/* Whether the run (all threads) has its images: looked at until it has. */
static void check_run_end(cons_worker *w)
{
    int64_t end = 0;
    for (int i = 0; i < w->run->thread_count; i++) {
        cons_thread *o = &w->run->threads[i];
        if (!cons_thread_has_items(o))
            continue;
        int64_t e = (int64_t)atomic_load_explicit(&o->image_end_ns, memory_order_acquire);
        if (!e)
            return;
        if (e > end)
            end = e;
    }
    if (!end)
        return;
    w->run_end_ns = end;
    w->run_steady_ns = end + (int64_t)w->cfg->delay_steady_state_calc * 1000000;
}

/* Records an update latency sample (kind = CONS_LAT_UPD or CONS_LAT_SCH) received at now_ns:
 * in every-sample, and in startup or steady state by the thread's images (and the run's). A
 * sample inside the -delaySteadyStateCalc window counts only in every-sample. */
static void record_update(cons_worker *w, lat *cur, int kind, int64_t now_ns, int64_t ns)
{
    lat_record(&cur[kind], ns);
    if (!w->image_end_ns || now_ns <= w->image_end_ns)
        lat_record(&cur[kind + 1], ns);
    else if (now_ns > w->steady_ns)
        lat_record(&cur[kind + 2], ns);
    if (!w->multi)
        return;
    if (!w->run_end_ns)
        check_run_end(w);
    if (!w->run_end_ns || now_ns <= w->run_end_ns)
        lat_record(&cur[kind + 3], ns);
    else if (now_ns > w->run_steady_ns)
        lat_record(&cur[kind + 4], ns);
}

static inline uint64_t stamp_now(const cons_worker *w, int64_t now_ns)
{
    return w->nano ? (uint64_t)now_ns : (uint64_t)now_ns / 1000;
}

/* Latency of a stamp in ns (negative when the sender's clock is ahead). */
static inline int64_t stamp_lat(const cons_worker *w, uint64_t recv, uint64_t sent)
{
    return (int64_t)(recv - sent) * w->unit_ns;
}

static void push_sample(cons_worker *w, uint32_t type, uint64_t sent, uint64_t recv)
{
    if (w->t->has_ring)
        latring_push(&w->t->ring, type, (int64_t)sent, (int64_t)recv);
}

/* The stamps of an update: TIM_TRK_1 (with TIM_TRK_3 as its scheduled time), and TIM_TRK_2
 * from our own posts (TIM_TRK_3 is then the post's scheduled time); pui says whether the update
 * names its poster (addr, id). */
static void update_latency(cons_worker *w, bool pui, uint32_t addr, uint32_t id,
                           const payload_stamps *st)
{
    int64_t now = clk_ns();
    uint64_t recv = stamp_now(w, now);
    lat *cur = latbuf_cur(&w->t->lat);
    if (st->t[0]) {
        record_update(w, cur, CONS_LAT_UPD, now, stamp_lat(w, recv, st->t[0]));
        if (st->t[2])
            record_update(w, cur, CONS_LAT_SCH, now, stamp_lat(w, recv, st->t[2]));
        push_sample(w, CONS_SAMPLE_UPD, st->t[0], recv);
    }
    if (st->t[1]) {
        /* Only our own posts (or posts that do not say whose they are). */
        if (pui && (addr != w->run->post_user_addr || id != w->run->post_user_id))
            return;
        lat_record(&cur[CONS_LAT_POST], stamp_lat(w, recv, st->t[1]));
        if (st->t[2] && !st->t[0])
            lat_record(&cur[CONS_LAT_POST_SCH], stamp_lat(w, recv, st->t[2]));
        push_sample(w, CONS_SAMPLE_POST, st->t[1], recv);
    }
}

/* A generic message: TIM_TRK_3 is the send time, TIM_TRK_1 the scheduled time. */
static void generic_latency(cons_worker *w, const payload_stamps *st)
{
    uint64_t recv = stamp_now(w, clk_ns());
    lat *cur = latbuf_cur(&w->t->lat);
    lat_record(&cur[CONS_LAT_GEN], stamp_lat(w, recv, st->t[2]));
    if (st->t[0])
        lat_record(&cur[CONS_LAT_GEN_SCH], stamp_lat(w, recv, st->t[0]));
    push_sample(w, CONS_SAMPLE_GEN, st->t[2], recv);
}

/* ---- item messages ----------------------------------------------------------------------- */

static bool final_state(const rwf_state *s)
{
    return s->stream_state == RWF_STREAM_CLOSED || s->stream_state == RWF_STREAM_CLOSED_RECOVER ||
           s->stream_state == RWF_STREAM_REDIRECTED;
}

/* Fails the thread with the error text prefixed by what was being done (may be NULL) and the
 * item: "item RDT4: decoding an update: field 22 (BID): ...". */
static int item_fail(cons_worker *w, const cons_item *it, const char *what)
{
    if (what)
        err_push("%s", what);
    err_push("item %s", it->def->name);
    return cons_fail(w, NULL);
}

/* A complete Open/OK image of a requested item. */
static void image_complete(cons_worker *w, cons_item *it, uint32_t index)
{
    it->state = CONS_ITEM_COMPLETE;
    w->waiting--;
    w->complete++;
    if (it->streaming) {
        if (it->post)
            w->post_ring[w->post_n++] = index;
        if (it->generic)
            w->gen_ring[w->gen_n++] = index;
    }
    if (w->complete == w->item_count) {
        int64_t now = clk_ns();
        w->image_end_ns = now;
        w->steady_ns = now + (int64_t)w->cfg->delay_steady_state_calc * 1000000;
        atomic_store_explicit(&w->t->image_end_ns, (uint64_t)now, memory_order_release);
    }
}

/* An item message as the state machine sees it, whichever wire form it came in (docs/driver.md,
 * section 4): its stream, class and domain, and the message it was made from, a decoded RWF
 * header (cons_on_item) or a JSON message read in place (cons_on_jitem); exactly one of rwf and
 * json is not NULL. The rest (the class's flags that matter, the state, the poster, the stamps)
 * is read through the view_* functions below, where the machine needs it: after the payload is
 * decoded, as the RWF path always read it, so that the view adds no work to an update. */
typedef struct cons_item_view {
    int32_t stream_id;
    uint8_t msg_class;     /* RWF_MC_* */
    uint8_t domain;        /* RWF_DMT_* */
    const rwf_msg *rwf;    /* RWF: the header; the machine decodes its payload */
    const cons_jmsg *json; /* JSON: the message, its stamps read with it */
    int64_t t0;            /* JSON: when reading the message began (-measureDecode; else 0) */
} cons_item_view;

#define VIEW_INLINE static inline __attribute__((always_inline))

/* Refresh: whether it completes the image (RefreshComplete). */
VIEW_INLINE bool view_complete(const cons_item_view *v)
{
    return v->rwf ? (v->rwf->flags & RWF_RFMF_REFRESH_COMPLETE) != 0 : v->json->complete;
}

/* Status: whether it carries a state. */
VIEW_INLINE bool view_has_state(const cons_item_view *v)
{
    return v->rwf ? (v->rwf->flags & RWF_STMF_HAS_STATE) != 0 : v->json->has_state;
}

/* Refresh (always) and Status (with view_has_state): the state. */
VIEW_INLINE const rwf_state *view_state(const cons_item_view *v)
{
    return v->rwf ? &v->rwf->state : &v->json->state;
}

/* Update: whether it names its poster, and then its address and user id in *addr, *id. */
VIEW_INLINE bool view_poster(const cons_item_view *v, uint32_t *addr, uint32_t *id)
{
    if (v->rwf) {
        *addr = v->rwf->post_user_addr;
        *id = v->rwf->post_user_id;
        return (v->rwf->flags & RWF_UPMF_HAS_POST_USER_INFO) != 0;
    }
    *addr = v->json->post_user_addr;
    *id = v->json->post_user_id;
    return v->json->has_post_user;
}

/* The stamps of v for a message of item it: those read with it (JSON), or its RWF payload
 * decoded now into *dec (its sum added to the thread's). Returns them, or NULL after
 * item_fail() with `what` ("decoding an update"). */
VIEW_INLINE const payload_stamps *item_stamps(cons_worker *w, const cons_item *it,
                                              const cons_item_view *v, payload_stamps *dec,
                                              const char *what)
{
    if (!v->rwf)
        return &v->json->st;
    if (__builtin_expect(payload_decode(w->dict, v->rwf, dec) < 0, 0)) {
        item_fail(w, it, what);
        return NULL;
    }
    w->decode_sum += dec->sum;
    return dec;
}

/*
 * The item state machine, one for both wire forms: finds the item of v's stream (a stream
 * outside the thread's items or a domain other than the item's fails the thread), then by
 * class: an update is counted (start-up or steady state), decoded and its latencies recorded;
 * a refresh is counted and decoded, and while images are awaited a final state fails the
 * thread and an Open/OK complete refresh completes the item's image; a status with a final
 * state fails the thread; a generic message is counted, decoded and its latency recorded; any
 * other class fails the thread. Returns 0, or -1 after cons_fail(). Allocates nothing, takes
 * no lock; inlined into cons_on_item and cons_on_jitem, where the view's form is known, so
 * that neither pays for it.
 */
VIEW_INLINE int cons_item_msg(cons_worker *w, const cons_item_view *v)
{
    cons_thread *t = w->t;
    /* A stream below the first item's wraps to an index of at least 2^31 - 5, past any
     * thread's item count (at most the item list's length): one compare rejects both. */
    uint32_t index = (uint32_t)v->stream_id - CONS_ITEM_STREAM_START;
    if (index >= w->item_count) {
        err_set("Received message with unexpected Stream ID: %" PRId32 "  Class: %s(%u) "
                "Domain: %u",
                v->stream_id, rwf_msg_class_name(v->msg_class), v->msg_class, v->domain);
        return cons_fail(w, NULL);
    }
    cons_item *it = &w->items[index];
    if (it->def->domain != v->domain) {
        err_set("Received message with domain type %u vs. expected type %u", v->domain,
                it->def->domain);
        return cons_fail(w, NULL);
    }
    if (v->json) /* the message was read whole, whatever its class */
        w->decode_sum += v->json->st.sum;
    payload_stamps dec;
    const payload_stamps *st;
    switch (v->msg_class) {
    case RWF_MC_UPDATE: {
        counter_inc(w->image_end_ns ? &t->c.steady_updates : &t->c.startup_updates);
        if (__builtin_expect(!atomic_load_explicit(&t->first_update_ns, memory_order_relaxed), 0))
            atomic_store_explicit(&t->first_update_ns, (uint64_t)clk_ns(), memory_order_relaxed);
        int64_t t0 = v->rwf ? (w->cfg->measure_decode ? clk_ns() : 0) : v->t0;
        if (__builtin_expect(!(st = item_stamps(w, it, v, &dec, "decoding an update")), 0))
            return -1;
        if (st->t[0] | st->t[1]) {
            uint32_t addr, id;
            bool pui = view_poster(v, &addr, &id);
            update_latency(w, pui, addr, id, st);
        }
        if (t0)
            lat_record(&latbuf_cur(&t->lat)[CONS_LAT_DECODE], clk_ns() - t0);
        return 0;
    }
    case RWF_MC_REFRESH:
        counter_inc(&t->c.refreshes);
        if (!item_stamps(w, it, v, &dec, "decoding a refresh"))
            return -1;
        if (w->image_end_ns || !w->waiting)
            return 0;
        if (final_state(view_state(v))) {
            err_set("Received unexpected final state %s in refresh",
                    rwf_stream_state_name(view_state(v)->stream_state));
            return item_fail(w, it, NULL);
        }
        if (view_complete(v) && view_state(v)->data_state == RWF_DATA_OK &&
            it->state == CONS_ITEM_WAITING)
            image_complete(w, it, index);
        return 0;
    case RWF_MC_STATUS:
        counter_inc(&t->c.status_msgs);
        if (view_has_state(v) && final_state(view_state(v))) {
            const rwf_state *s = view_state(v);
            err_set("Received unexpected final state %s (%.*s)",
                    rwf_stream_state_name(s->stream_state), (int)s->text.len,
                    s->text.data ? s->text.data : "");
            return item_fail(w, it, NULL);
        }
        return 0;
    case RWF_MC_GENERIC:
        counter_inc(&t->c.genmsgs_recv);
        if (!atomic_load_explicit(&t->first_gen_recv_ns, memory_order_relaxed))
            atomic_store_explicit(&t->first_gen_recv_ns, (uint64_t)clk_ns(), memory_order_relaxed);
        if (!(st = item_stamps(w, it, v, &dec, "decoding a generic message")))
            return -1;
        if (st->t[2])
            generic_latency(w, st);
        return 0;
    default:
        err_set("Received unhandled msg class %s(%u) on stream ID %" PRId32 ".",
                rwf_msg_class_name(v->msg_class), v->msg_class, v->stream_id);
        return cons_fail(w, NULL);
    }
}

int cons_on_item(cons_worker *w, const rwf_msg *m)
{
    const cons_item_view v = {
        .stream_id = m->stream_id, .msg_class = m->msg_class, .domain = m->domain, .rwf = m};
    return cons_item_msg(w, &v);
}

int cons_on_jitem(cons_worker *w, const cons_jmsg *m, int64_t t0)
{
    const cons_item_view v = {.stream_id = m->stream_id,
                              .msg_class = (uint8_t)m->kind,
                              .domain = m->domain,
                              .json = m,
                              .t0 = t0};
    return cons_item_msg(w, &v);
}

/* cons_on_rwf's body; with calc (-calcRWFJSONConversionLatency) an item message is converted
 * to JSON first (cons_json_calc, inside the measured path). Inlined into both forms, so that
 * the plain one does not test for the conversion. */
VIEW_INLINE int on_rwf(cons_worker *w, const uint8_t *data, uint32_t len, bool calc)
{
    rwf_msg m;
    if (__builtin_expect(rwf_msg_decode(&m, rwf_buf_make(data, len)) < 0, 0))
        return cons_fail(w, "decoding a received message");
    switch (m.domain) {
    case RWF_DMT_LOGIN:
    case RWF_DMT_SOURCE:
    case RWF_DMT_DICTIONARY:
        return cons_on_admin(w, &m) < 0 ? cons_fail(w, NULL) : 0;
    default:
        if (__builtin_expect(!w->dict, 0)) {
            err_set("item message on stream %" PRId32 " before the dictionary", m.stream_id);
            return cons_fail(w, NULL);
        }
        if (calc && cons_json_calc(w, rwf_buf_make(data, len)) < 0)
            return cons_fail(w, NULL);
        return cons_on_item(w, &m);
    }
}

int cons_on_rwf(cons_worker *w, const uint8_t *data, uint32_t len)
{
    return on_rwf(w, data, len, false);
}

int cons_on_rwf_calc(cons_worker *w, const uint8_t *data, uint32_t len)
{
    return on_rwf(w, data, len, true);
}

/* ---- ticks ------------------------------------------------------------------------------- */

int cons_tick_sends(cons_worker *w)
{
    cons_thread *t = w->t;
    const cons_config *cfg = w->cfg;
    if (w->have_service && w->dict_have == CONS_HAVE_BOTH && (!w->tun || cons_tun_is_open(w))) {
        if (w->next_request < w->item_count) {
            if (!atomic_load_explicit(&t->image_start_ns, memory_order_relaxed))
                atomic_store_explicit(&t->image_start_ns, (uint64_t)clk_ns(), memory_order_relaxed);
            if (cons_send_requests(w, tick_burst(&w->tk, (uint64_t)cfg->request_rate)) < 0)
                return cons_fail(w, "sending item requests");
        }
        if (w->wsb && cons_wsb_requests(w) < 0)
            return cons_fail(w, NULL);
        if (w->image_end_ns) {
            int64_t sched = tick_deadline(&w->tk);
            if (w->post_n && cfg->posting_rate) {
                int64_t pos = w->run->post_lra_on
                                  ? lra_at(&w->run->post_lra, w->tk.second, w->tk.index)
                                  : LRA_NONE;
                if (cons_send_posts(w, tick_burst(&w->tk, (uint64_t)cfg->posting_rate), pos,
                                    sched) < 0)
                    return cons_fail(w, "sending posts");
            }
            if (w->gen_n && cfg->opts.generic_msg_rate) {
                int64_t pos = w->run->gen_lra_on
                                  ? lra_at(&w->run->gen_lra, w->tk.second, w->tk.index)
                                  : LRA_NONE;
                if (cons_send_generics(w, tick_burst(&w->tk, (uint64_t)cfg->opts.generic_msg_rate),
                                       pos, sched) < 0)
                    return cons_fail(w, "sending generic messages");
            }
        }
    }
    if (run_out_flush(&w->out) < 0)
        return cons_fail(w, "flushing");
    atomic_store_explicit(&t->decode_sum, w->decode_sum, memory_order_relaxed);
    return 0;
}

/* True when the ticks have nothing to send: no item left to request, no posts or generic
 * messages to send. */
bool cons_idle(const cons_worker *w)
{
    if (w->have_service && w->dict_have == CONS_HAVE_BOTH && w->next_request < w->item_count &&
        (!w->tun || cons_tun_is_open(w)))
        return false;
    if (!w->image_end_ns)
        return true;
    return !(w->post_n && w->cfg->posting_rate) && !(w->gen_n && w->cfg->opts.generic_msg_rate);
}

/* ---- the session driver's callbacks (bare mode) ----------------------------------------- */

/* run_drv_ops.connecting: the line before each attempt. */
static void on_connecting(void *arg)
{
    const cons_config *cfg = ((cons_worker *)arg)->cfg;
    printf("\nAttempting to connect to server %s:%s...\n", cfg->opts.host, cfg->opts.port);
    fflush(stdout);
}

/* run_drv_ops.connect_failed: an attempt failed in a way that may heal (refused, reset): the
 * reason is kept for the summary and printed when it differs from the previous attempt's (an
 * unusable certificate is named once, not every second); the driver tries again a second
 * later. */
static void on_connect_failed(void *arg, run_drv_stage stage, const char *why, bool repeat)
{
    cons_worker *w = arg;
    (void)stage;
    snprintf(w->t->conn_error, sizeof(w->t->conn_error), "%s", why);
    if (!repeat)
        printf("Connection failed: %s\n", why);
}

/* run_drv_ops.connect_final: a failure that trying again cannot heal (a host name that does not
 * resolve, a certificate or a sub-protocol refused): said on the console, and the run's failure
 * text; the driver fails the thread at once. */
static void on_connect_final(void *arg, run_drv_stage stage, const char *why)
{
    cons_worker *w = arg;
    const cons_config *cfg = w->cfg;
    (void)stage;
    snprintf(w->t->conn_error, sizeof(w->t->conn_error), "%s", why);
    printf("Error: connection to %s:%s cannot succeed: %s\n", cfg->opts.host, cfg->opts.port,
           w->t->conn_error);
    fflush(stdout);
    err_set("connection to %s:%s cannot succeed: %s", cfg->opts.host, cfg->opts.port,
            w->t->conn_error);
}

/* run_drv_ops.up: the channel is active: its Channel Info, then the login request. */
static int on_up(void *arg, run_drv_ch *c)
{
    cons_worker *w = arg;
    const cons_config *cfg = w->cfg;
    w->ch = c->ch;
    run_out_init_tp(&w->out, w->ch, 1, 0, 0);
    tp_info in;
    if (tp_get_info(w->ch, &in) == 0) {
        snprintf(w->t->tls_version, sizeof(w->t->tls_version), "%s", in.tls_version);
        snprintf(w->t->tls_cipher, sizeof(w->t->tls_cipher), "%s", in.tls_cipher);
    }
    run_channel_info(stdout, w->ch);
    fflush(stdout);
    if (cons_json_start(w) < 0)
        return cons_fail(w, NULL);
    if (cfg->opts.high_water_mark > 0)
        tp_set_high_water_mark(w->ch, (uint32_t)cfg->opts.high_water_mark);
    if (cons_send_login(w) < 0)
        return cons_fail(w, "sending the login request");
    cons_print_msg_sizes(w);
    return 0;
}

/* run_drv_ops.msg: one message off the channel: RWF, or (json.c) a JSON frame or an RWF message
 * to convert to JSON. */
static int on_msg(void *arg, run_drv_ch *c, const tp_msg *m)
{
    cons_worker *w = arg;
    (void)c;
    if (__builtin_expect(w->json != NULL, 0))
        return cons_json_msg(w, m) < 0 ? RUN_DRV_FAILED : 0;
    return cons_on_rwf(w, m->data, m->len) < 0 ? RUN_DRV_FAILED : 0;
}

/* run_drv_ops.tick: a clock offset request when one is due, then the tick's requests, posts
 * and generic messages (the driver then runs the channel's pings). */
static int on_tick(void *arg, const tick *t, int64_t now)
{
    cons_worker *w = arg;
    (void)t;
    if (clksync_due(&w->cs, now) && cons_send_clksync(w) < 0)
        return cons_fail(w, "sending a clock offset request");
    return cons_tick_sends(w);
}

/* run_drv_ops.idle: the ticks have nothing to send. */
static bool on_idle(void *arg)
{
    return cons_idle(arg);
}

/* run_drv_ops.down: the channel is closing. Lost (a read, a flush or the pings failed), it fails
 * the thread with the reason; closed at the end of the run (why NULL), nothing to say. */
static void on_down(void *arg, run_drv_ch *c, const char *why)
{
    cons_worker *w = arg;
    (void)c;
    w->ch = NULL;
    if (!why)
        return;
    err_set("%s", why);
    err_push("connection to %s:%s", w->cfg->opts.host, w->cfg->opts.port);
    cons_fail(w, NULL);
}

/* ---- the thread -------------------------------------------------------------------------- */

/* The Reactor modes (-reactor, -watchlist): cons_rx.c's. */
static bool reactor_mode(const cons_config *cfg)
{
    return cfg->opts.reactor || cfg->watchlist;
}

/* The fields the driver's set-up needs, and the driver: the bare mode's callbacks with the
 * client's connection (the run options, from which the driver makes its settings), or the
 * Reactor modes' (cons_rx.c), which give it their reactor later. Returns 0, or -1 with err_msg()
 * set (no memory). */
static int drv_init(cons_worker *w, cons_thread *t)
{
    static const run_drv_ops bare = {.tick = on_tick,
                                     .up = on_up,
                                     .msg = on_msg,
                                     .down = on_down,
                                     .connecting = on_connecting,
                                     .connect_failed = on_connect_failed,
                                     .connect_final = on_connect_final,
                                     .idle = on_idle};
    w->t = t;
    w->run = t->run;
    w->cfg = t->run->cfg;
    bool reactor = reactor_mode(w->cfg);
    const run_drv_cfg dc = {.tool = w,
                            .ops = reactor ? &cons_rx_ops : &bare,
                            .tick_rate = (uint32_t)w->cfg->opts.tick_rate,
                            .tk = &w->tk,
                            .lat = &t->lat,
                            .fail = &t->fail,
                            .connect = reactor ? NULL : &w->cfg->opts,
                            .link = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF},
                            .idle_wait_ns = CONS_IDLE_WAIT_NS};
    return run_drv_init(&w->drv, &dc);
}

/* The rest of the worker (drv_init set its thread and configuration): the state of each mode
 * in use, the items. Returns 0, or -1 with err_msg() set. */
static int worker_init(cons_worker *w)
{
    cons_thread *t = w->t;
    w->item_out = &w->out;
    if (reactor_mode(w->cfg)) { /* the tunnel and warm standby run over the reactor */
        if (cons_rx_init(w) < 0 || (w->cfg->tunnel && cons_tun_init(w) < 0) ||
            (cons_wsb_mode(w->cfg) != CONS_WSB_NONE && cons_wsb_init(w) < 0))
            return -1;
    }
    w->nano = w->cfg->opts.nano_time;
    w->unit_ns = w->nano ? 1 : 1000;
    w->multi = t->run->thread_count > 1;
    w->dict = t->run->dict;
    clksync_start(&w->cs, w->rx ? CLKSYNC_UNSUPPORTED : CLKSYNC_OFF, 0);
    if (w->dict)
        w->dict_have = CONS_HAVE_BOTH;
    else if (!(w->own_dict = rwf_dict_new()))
        return -1;

    const cons_config *cfg = w->cfg;
    const items *list = t->run->list;
    w->item_count = (uint32_t)t->share.count;
    size_t n = w->item_count ? w->item_count : 1;
    w->items = calloc(n, sizeof(*w->items));
    w->post_ring = calloc(n, sizeof(*w->post_ring));
    w->gen_ring = calloc(n, sizeof(*w->gen_ring));
    if (!w->items || !w->post_ring || !w->gen_ring)
        return err_set("out of memory for %u items", w->item_count);
    for (uint32_t i = 0; i < w->item_count; i++) {
        /* The common items first, then this thread's own range (docs/tools.md#threads-and-items).
         */
        size_t at = i < t->share.common ? i : t->share.first + (i - t->share.common);
        const item_def *d = &list->v[at];
        cons_item *it = &w->items[i];
        it->def = d;
        it->streaming = !cfg->snapshot && !d->snapshot;
        it->post = d->post && cfg->posting_rate > 0;
        it->generic = d->generic && cfg->opts.generic_msg_rate > 0;
    }
    return 0;
}

/* Frees what worker_init made (the driver closed the channel). */
static void worker_free(cons_worker *w)
{
    cons_json_free(w);
    cons_tun_free(w);
    cons_wsb_free(w);
    cons_rx_free(w);
    rwf_dict_free(w->own_dict);
    free(w->items);
    free(w->post_ring);
    free(w->gen_ring);
}

void *cons_thread_main(void *arg)
{
    cons_thread *t = arg;
    cons_worker *w = calloc(1, sizeof(*w));
    if (!w || drv_init(w, t) != 0) {
        if (!w)
            err_set("out of memory for the consumer thread");
        run_fail_stop(&t->fail, NULL);
    } else if (worker_init(w) < 0 || cpu_bind(&t->cpu) < 0) {
        cons_fail(w, NULL);
    } else if (w->rx) {
        cons_rx_run(w);
    } else {
        run_drv_run(&w->drv); /* until the run stops or the thread fails */
    }
    if (w) {
        atomic_store_explicit(&t->decode_sum, w->decode_sum, memory_order_relaxed);
        t->clksync = w->cs;
        run_drv_free(&w->drv);
        worker_free(w);
        free(w);
    }
    latbuf_close(&t->lat);
    atomic_store_explicit(&t->done, 1, memory_order_release);
    return NULL;
}
