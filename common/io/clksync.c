/* clksync: clock offset between consumer and provider from round trips (see clksync.h). */
#include "clksync.h"

#include "err.h"
#include "rwf_dec.h"
#include "rwf_prim.h"
#include "rwf_types.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EL_SEQ "Seq"
#define EL_T1 "T1"
#define EL_T2 "T2"
#define EL_T3 "T3"
#define EL_CLOCK "Clock"

clksync_sample clksync_compute(int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    /* Each difference is between two stamps of one exchange; halves taken before the sum so
     * that two clocks far apart (monotonic against realtime) cannot overflow it. */
    int64_t a = t2 - t1, b = t3 - t4;
    clksync_sample s;
    s.offset_ns = a / 2 + b / 2 + (a % 2 + b % 2) / 2;
    s.delay_ns = (t4 - t1) - (t3 - t2);
    return s;
}

bool clksync_peer_is_ours(const char *component)
{
    return component && strncmp(component, "rwfperf", 7) == 0;
}

/* ---- Messages ---------------------------------------------------------------------------- */

/* The head of both messages: Generic LOGIN on stream_id, key name CLKSYNC_NAME, payload an
 * ElementList begun in place. */
static void begin(rwf_enc *e, int32_t stream_id)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_GENERIC, RWF_DMT_LOGIN, stream_id, RWF_DT_ELEMENT_LIST);
    m.flags = RWF_GNMF_HAS_MSG_KEY;
    m.key.flags = RWF_MKF_HAS_NAME;
    m.key.name = RWF_STR(CLKSYNC_NAME);
    rwf_enc_msg_begin(e, &m);
    rwf_enc_el_begin_std(e);
}

static int end(rwf_enc *e, const char *clock)
{
    rwf_enc_el_buf(e, RWF_STR(EL_CLOCK), RWF_DT_ASCII_STRING, rwf_buf_cstr(clock ? clock : ""));
    rwf_enc_el_end(e);
    return rwf_enc_msg_end(e);
}

int clksync_encode_request(rwf_enc *e, int32_t stream_id, uint64_t seq, int64_t t1,
                           const char *clock)
{
    begin(e, stream_id);
    rwf_enc_el_uint(e, RWF_STR(EL_SEQ), seq);
    rwf_enc_el_int(e, RWF_STR(EL_T1), t1);
    return end(e, clock);
}

int clksync_encode_answer(rwf_enc *e, int32_t stream_id, const clksync_msg *req, int64_t t2,
                          int64_t t3, const char *clock)
{
    begin(e, stream_id);
    rwf_enc_el_uint(e, RWF_STR(EL_SEQ), req->seq);
    rwf_enc_el_int(e, RWF_STR(EL_T1), req->t1);
    rwf_enc_el_int(e, RWF_STR(EL_T2), t2);
    rwf_enc_el_int(e, RWF_STR(EL_T3), t3);
    return end(e, clock);
}

/* Reads element el as an INT into *v; err_set naming it when it is not one. */
static int get_int(const rwf_element *el, int64_t *v)
{
    if (el->type != RWF_DT_INT || rwf_get_int(el->data, v) != RWF_OK)
        return err_set(CLKSYNC_NAME ": element %.*s is not a non-blank INT", (int)el->name.len,
                       (const char *)el->name.data);
    return 0;
}

int clksync_decode(const rwf_msg *m, clksync_msg *out)
{
    if (m->msg_class != RWF_MC_GENERIC || m->domain != RWF_DMT_LOGIN ||
        !(m->flags & RWF_GNMF_HAS_MSG_KEY) || !(m->key.flags & RWF_MKF_HAS_NAME) ||
        !rwf_buf_eq(m->key.name, RWF_STR(CLKSYNC_NAME)))
        return 0;
    if (m->container_type != RWF_DT_ELEMENT_LIST)
        return err_set(CLKSYNC_NAME ": payload is not an ElementList");
    clksync_msg r;
    memset(&r, 0, sizeof(r));
    bool seq = false, t1 = false, t2 = false, t3 = false;
    rwf_el_dec d;
    rwf_element el;
    int rc = rwf_el_dec_init(&d, m->payload, NULL);
    if (rc < 0)
        return err_push(CLKSYNC_NAME), -1;
    while ((rc = rwf_el_next(&d, &el)) == RWF_OK) {
        if (rwf_buf_eq(el.name, RWF_STR(EL_SEQ))) {
            if (el.type != RWF_DT_UINT || rwf_get_uint(el.data, &r.seq) != RWF_OK)
                return err_set(CLKSYNC_NAME ": element Seq is not a non-blank UINT");
            seq = true;
        } else if (rwf_buf_eq(el.name, RWF_STR(EL_T1))) {
            if (get_int(&el, &r.t1) < 0)
                return -1;
            t1 = true;
        } else if (rwf_buf_eq(el.name, RWF_STR(EL_T2))) {
            if (get_int(&el, &r.t2) < 0)
                return -1;
            t2 = true;
        } else if (rwf_buf_eq(el.name, RWF_STR(EL_T3))) {
            if (get_int(&el, &r.t3) < 0)
                return -1;
            t3 = true;
        } else if (rwf_buf_eq(el.name, RWF_STR(EL_CLOCK))) {
            if (el.type != RWF_DT_ASCII_STRING)
                return err_set(CLKSYNC_NAME ": element Clock is not an ASCII string");
            size_t n = el.data.len < sizeof(r.clock) - 1 ? el.data.len : sizeof(r.clock) - 1;
            memcpy(r.clock, el.data.data, n);
            r.clock[n] = '\0';
        }
    }
    if (rc < 0)
        return err_push(CLKSYNC_NAME), -1;
    if (!seq || !t1)
        return err_set(CLKSYNC_NAME ": element %s is missing", seq ? EL_T1 : EL_SEQ);
    if (t2 != t3)
        return err_set(CLKSYNC_NAME ": element %s is missing", t2 ? EL_T3 : EL_T2);
    r.answer = t2;
    *out = r;
    return 1;
}

/* ---- A consumer's exchanges -------------------------------------------------------------- */

void clksync_start(clksync *c, clksync_state state, int64_t now_ns)
{
    memset(c, 0, sizeof(*c));
    c->state = state;
    c->next_ns = now_ns;
}

int clksync_request(clksync *c, rwf_enc *e, int32_t stream_id, int64_t t1, const char *clock)
{
    c->seq++;
    c->sent_ns = t1;
    c->outstanding = true;
    return clksync_encode_request(e, stream_id, c->seq, t1, clock);
}

int clksync_answer(clksync *c, const clksync_msg *a, int64_t t4)
{
    if (!a->answer || !c->outstanding || a->seq != c->seq || a->t1 != c->sent_ns) {
        c->ignored++;
        return 0;
    }
    clksync_sample s = clksync_compute(a->t1, a->t2, a->t3, t4);
    c->outstanding = false;
    if (s.delay_ns < 0) {
        c->ignored++; /* a provider's time longer than the round trip: not a real exchange */
        return 0;
    }
    c->exchanges++;
    c->next_ns = t4 + (c->exchanges < CLKSYNC_FAST ? CLKSYNC_FAST_GAP_NS : CLKSYNC_GAP_NS);
    if (!c->have || s.delay_ns < c->best.delay_ns) {
        c->best = s;
        c->have = true;
    }
    memcpy(c->peer_clock, a->clock, sizeof(c->peer_clock));
    return 1;
}

void clksync_fold(clksync *dst, const clksync *src)
{
    if (src->state > dst->state)
        dst->state = src->state;
    dst->exchanges += src->exchanges;
    dst->ignored += src->ignored;
    if (src->have && (!dst->have || src->best.delay_ns < dst->best.delay_ns)) {
        dst->best = src->best;
        dst->have = true;
        memcpy(dst->peer_clock, src->peer_clock, sizeof(dst->peer_clock));
    }
}

double clksync_corrected(const clksync *c, double latency_usec)
{
    /* measured = receive (consumer's clock) - stamp (provider's) = true - offset */
    return c->have ? latency_usec + (double)c->best.offset_ns / 1000.0 : latency_usec;
}

bool clksync_exceeds(const clksync *c, double latency_usec)
{
    if (!c->have)
        return true;
    double off = fabs((double)c->best.offset_ns) / 1000.0;
    double bound = (double)c->best.delay_ns / 2000.0;
    return off + bound >= fabs(clksync_corrected(c, latency_usec));
}

const char *clksync_state_name(clksync_state s)
{
    switch (s) {
    case CLKSYNC_OFF:
        return "off";
    case CLKSYNC_NOT_OURS:
        return "not ours";
    case CLKSYNC_UNSUPPORTED:
        return "unsupported";
    case CLKSYNC_ON:
        return "on";
    }
    return "?";
}

/* Why there is no estimate, as the summary says it. */
static const char *missing_text(const clksync *c)
{
    switch (c->state) {
    case CLKSYNC_NOT_OURS:
        return "the provider is not an rwfperf tool";
    case CLKSYNC_UNSUPPORTED:
        return "not measured in this mode";
    case CLKSYNC_ON:
        return "no answer from the provider";
    default:
        return "no connection";
    }
}

void clksync_report(out_report *r, const clksync *c, bool has_latency, double latency_usec)
{
    if (!c->have) {
        out_printf(r, "  Clock offset to provider: not measured (%s)\n", missing_text(c));
        return;
    }
    double off = (double)c->best.offset_ns / 1000.0, bound = (double)c->best.delay_ns / 2000.0;
    out_printf(r,
               "  Clock offset to provider (usec): %+.1f (bound %.1f, best of %" PRIu32
               " exchanges; provider clock %s)\n",
               off, bound, c->exchanges, c->peer_clock[0] ? c->peer_clock : "unknown");
    if (has_latency && clksync_exceeds(c, latency_usec))
        out_printf(r,
                   "  Warning: the clock offset to the provider (%.1f usec, bound %.1f) is as "
                   "large as the latency (avg %.1f usec measured, %.1f usec corrected by the "
                   "offset): one-way latency from it is not valid.\n",
                   fabs(off), bound, latency_usec, clksync_corrected(c, latency_usec));
}

json_object *clksync_json(const clksync *c, bool has_latency, double latency_usec)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    out_json_add(o, "state", json_object_new_string(clksync_state_name(c->state)));
    out_json_add(o, "measured", json_object_new_boolean(c->have));
    if (!c->have) {
        out_json_add(o, "reason", json_object_new_string(missing_text(c)));
        return o;
    }
    out_json_add(o, "offset_usec", out_json_double((double)c->best.offset_ns / 1000.0));
    out_json_add(o, "bound_usec", out_json_double((double)c->best.delay_ns / 2000.0));
    out_json_add(o, "round_trip_usec", out_json_double((double)c->best.delay_ns / 1000.0));
    out_json_add(o, "exchanges", json_object_new_int64(c->exchanges));
    out_json_add(o, "ignored", json_object_new_int64(c->ignored));
    out_json_add(o, "provider_clock",
                 json_object_new_string(c->peer_clock[0] ? c->peer_clock : "unknown"));
    if (has_latency) {
        out_json_add(o, "corrected_latency_usec",
                     out_json_double(clksync_corrected(c, latency_usec)));
        out_json_add(o, "larger_than_latency",
                     json_object_new_boolean(clksync_exceeds(c, latency_usec)));
    }
    return o;
}
