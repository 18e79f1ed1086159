/*
 * run_out: the write path over a bare channel, a Reactor channel or a tunnel stream, in RWF or
 * JSON (run_out.h). The back ends are the small functions below, each one switch on the kind
 * the init fixed.
 */
#include "run_out.h"

#include "err.h"

#include <poll.h>

/* A fragmented message waits this long in total for the socket to drain before it is given
 * up as out of buffers. */
#define RUN_OUT_FRAG_WAIT_MS 5000

static void init(run_out *o, run_out_kind kind, uint32_t max_pack, uint32_t pack_size,
                 unsigned write_flags)
{
    *o = (run_out){.kind = kind, .write_flags = write_flags, .pack_size = pack_size};
    o->max_pack = max_pack > 1 && pack_size > 0 ? max_pack : 1;
}

void run_out_init_tp(run_out *o, tp_channel *ch, uint32_t max_pack, uint32_t pack_size,
                     unsigned write_flags)
{
    init(o, RUN_OUT_TP, max_pack, pack_size, write_flags);
    o->to.tp = ch;
}

void run_out_init_rx(run_out *o, rx_chan *rx, uint32_t max_pack, uint32_t pack_size,
                     unsigned write_flags)
{
    init(o, RUN_OUT_RX, max_pack, pack_size, write_flags);
    o->to.rx = rx;
}

void run_out_init_tunnel(run_out *o, rx_tunnel *t, bool app, void (*after_write)(void *arg),
                         void *arg)
{
    init(o, RUN_OUT_TUNNEL, 1, 0, 0);
    o->to.tun = t;
    o->tun_app = app;
    o->after_write = after_write;
    o->after_arg = arg;
}

void run_out_json(run_out *o, const rjs_conv *conv, uint8_t *scratch, uint32_t cap)
{
    o->json = conv;
    o->rwf = scratch;
    o->rwf_cap = cap;
    o->json_tp = conv && o->kind == RUN_OUT_TP && o->max_pack == 1;
}

/* ---- the back ends: one switch on the kind each ---------------------------------------------- */

/* Where buffer b's room starts. */
static inline uint8_t *buf_data(const run_out *o, run_out_buf b)
{
    switch (o->kind) {
    case RUN_OUT_RX:
        return b.rx->data;
    case RUN_OUT_TUNNEL:
        return b.tun->data;
    case RUN_OUT_TP:
    default:
        return b.tp->data;
    }
}

/* Buffer b's length: its room when obtained, the bytes used once the caller set them. */
static inline uint32_t *buf_len(const run_out *o, run_out_buf b)
{
    switch (o->kind) {
    case RUN_OUT_RX:
        return &b.rx->len;
    case RUN_OUT_TUNNEL:
        return &b.tun->len;
    case RUN_OUT_TP:
    default:
        return &b.tp->len;
    }
}

/* A buffer of size bytes (packed: room for several messages) into *out. 0 or a TP_E* code. */
static int buf_get(run_out *o, uint32_t size, bool packed, run_out_buf *out)
{
    switch (o->kind) {
    case RUN_OUT_RX:
        return rx_get_buffer(o->to.rx, size, packed, &out->rx);
    case RUN_OUT_TUNNEL:
        return rx_tunnel_get_buffer(o->to.tun, size, o->tun_app, &out->tun);
    case RUN_OUT_TP:
    default:
        return tp_get_buffer(o->to.tp, size, packed, &out->tp);
    }
}

/* Closes the message written into packed buffer b and opens the next slot (its room in
 * b's length; 0: full). 0 or a TP_E* code. Never called on a tunnel (never packed). */
static int buf_pack(run_out *o, run_out_buf b)
{
    return o->kind == RUN_OUT_RX ? rx_pack(o->to.rx, b.rx) : tp_pack(o->to.tp, b.tp);
}

/* Gives buffer b back unsent. */
static void buf_release(run_out *o, run_out_buf b)
{
    switch (o->kind) {
    case RUN_OUT_RX:
        rx_release(o->to.rx, b.rx);
        break;
    case RUN_OUT_TUNNEL:
        rx_tunnel_release(o->to.tun, b.tun);
        break;
    case RUN_OUT_TP:
    default:
        tp_release(o->to.tp, b.tp);
        break;
    }
}

/* The bytes queued in the channel, as the return of a write that succeeded. */
static inline int queued(const run_out *o)
{
    return (int)run_out_queued(o);
}

/* Writes a bare channel's buffer b; a fragmented message that does not fit the output area is
 * pushed through by flushing and waiting for the socket (the ETA provider loops the same way;
 * the reactor's worker does it by itself). */
static int write_tp(run_out *o, tp_buf *b)
{
    tp_channel *ch = o->to.tp;
    int rc = tp_write(ch, b, o->write_flags);
    int waited = 0;
    while (rc == TP_ECALLAGAIN) {
        int q = tp_flush(ch);
        if (q < 0)
            return q;
        if (q > 0) {
            if (waited >= RUN_OUT_FRAG_WAIT_MS) {
                tp_release(ch, b);
                err_set("a fragmented message could not be queued within %d ms",
                        RUN_OUT_FRAG_WAIT_MS);
                return TP_ENOBUFS;
            }
            struct pollfd p = {.fd = tp_fd(ch), .events = POLLOUT};
            poll(&p, 1, 100);
            waited += 100;
        }
        rc = tp_write(ch, b, o->write_flags);
    }
    if (rc < 0 && rc != TP_EFAIL)
        tp_release(ch, b); /* refused (no room, bad length): b is still ours; drop it */
    return rc;
}

/* Writes buffer b. Whatever the result, b is no longer the caller's: written, or given back
 * when refused. Returns the bytes still queued or a TP_E* code. */
static int write_buf(run_out *o, run_out_buf b)
{
    int rc;
    switch (o->kind) {
    case RUN_OUT_RX:
        rc = rx_submit(o->to.rx, b.rx, o->write_flags); /* refused: the layer gave b back */
        break;
    case RUN_OUT_TUNNEL:
        rc = rx_tunnel_submit(o->to.tun, b.tun);
        if (o->after_write)
            o->after_write(o->after_arg);
        break;
    case RUN_OUT_TP:
    default:
        rc = write_tp(o, b.tp);
        break;
    }
    if (rc >= 0)
        o->frames++;
    return rc;
}

/* Writes the open packed buffer p (its length the last message's, closed by the transport,
 * or 0: the empty slot after the last closed message, which the transport drops). */
static int write_pack(run_out *o)
{
    run_out_buf p = o->pack;
    o->pack_open = false;
    o->pack_count = 0;
    int rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    return rc;
}

int run_out_close(run_out *o)
{
    if (!o->pack_open)
        return queued(o);
    *buf_len(o, o->pack) = 0;
    return write_pack(o);
}

/* Opens a packed buffer when none is. 0 or a TP_E* code. */
static int pack_get(run_out *o)
{
    if (o->pack_open)
        return 0;
    int rc = buf_get(o, o->pack_size, true, &o->pack);
    if (rc < 0)
        return rc;
    o->pack_open = true;
    o->pack_count = 0;
    return 0;
}

/* ---- RWF ------------------------------------------------------------------------------------- */

/* JSON: the message is encoded into the scratch; the transport's buffer comes at the end. */
static int json_begin(run_out *o, uint32_t size, uint8_t **at, bool alone)
{
    if (size > o->rwf_cap) {
        err_set("message of %u bytes exceeds the %u-byte JSON conversion buffer", size, o->rwf_cap);
        return TP_EINVAL;
    }
    o->alone = alone;
    *at = o->rwf;
    return 0;
}

int run_out_begin_alone(run_out *o, uint32_t size, uint8_t **at)
{
    int rc;
    if (o->json)
        return json_begin(o, size, at, true);
    if (o->pack_open && (rc = run_out_close(o)) < 0)
        return rc;
    if ((rc = buf_get(o, size, false, &o->cur)) < 0)
        return rc;
    o->cur_open = true;
    *at = buf_data(o, o->cur);
    return 0;
}

int run_out_begin(run_out *o, uint32_t size, uint8_t **at)
{
    int rc;
    if (o->json)
        return json_begin(o, size, at, o->max_pack == 1);
    if (o->max_pack == 1 || size > o->pack_size)
        return run_out_begin_alone(o, size, at);
    if (o->pack_open && size > *buf_len(o, o->pack) && (rc = run_out_close(o)) < 0)
        return rc;
    if ((rc = pack_get(o)) < 0)
        return rc;
    *at = buf_data(o, o->pack);
    return 0;
}

/* The message of len bytes closed into the open packed buffer: the buffer stays open while more
 * messages of the burst follow and it has room, else it is written. */
static int pack_end(run_out *o, bool more)
{
    o->packed_msgs++;
    if (++o->pack_count < o->max_pack && more) {
        int rc = buf_pack(o, o->pack);
        if (rc < 0)
            return rc;
        if (*buf_len(o, o->pack) > 0) /* room left: open for the next message */
            return queued(o);
        /* full: written below with its (empty) next slot dropped */
    }
    return write_pack(o);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* The JSON object of the message being queued into out[0..cap): its ready form, or the
 * conversion of the len bytes of RWF in the scratch. RWF_OK, RWF_E_NOSPACE or an error. */
static int json_render(const run_out *o, uint32_t len, char *out, size_t cap, size_t *jl)
{
    if (o->form)
        return rjs_tmpl_render(o->form, o->form_vals, out, cap, jl);
    return rjs_msg_to_json(o->json, rwf_buf_make(o->rwf, len), out, cap, jl);
}

/* JSON, unpacked: a buffer of the message's own, retried larger when the JSON needs more
 * room than the usual estimate. */
static int json_alone(run_out *o, uint32_t len)
{
    size_t room = o->form ? rjs_tmpl_max_len(o->form) : rjs_json_size_hint(len);
    for (int i = 0; i < 3; i++, room *= 4) {
        run_out_buf b;
        int rc = buf_get(o, (uint32_t)room, false, &b);
        if (rc < 0)
            return rc;
        size_t jl = 0;
        rc = json_render(o, len, (char *)buf_data(o, b), *buf_len(o, b), &jl);
        if (rc == RWF_OK) {
            *buf_len(o, b) = (uint32_t)jl;
            return write_buf(o, b);
        }
        buf_release(o, b);
        if (rc != RWF_E_NOSPACE) {
            err_push("converting a message to JSON");
            return TP_EINVAL;
        }
    }
    err_set("the JSON form of a %u-byte message needs more than %zu bytes", len, room / 4);
    return TP_EINVAL;
}

/* JSON, packed: the message joins the open packed buffer's array (a new one when it does not
 * fit), or goes alone when it does not fit an empty one either. */
static int json_end(run_out *o, uint32_t len, bool more)
{
    o->msgs++;
    int rc;
    if (o->alone) {
        if (o->pack_open && (rc = run_out_close(o)) < 0)
            return rc;
        return json_alone(o, len);
    }
    for (int tries = 0;; tries++) {
        if ((rc = pack_get(o)) < 0)
            return rc;
        size_t jl = 0;
        rc = json_render(o, len, (char *)buf_data(o, o->pack), *buf_len(o, o->pack), &jl);
        if (rc == RWF_OK) {
            *buf_len(o, o->pack) = (uint32_t)jl;
            break;
        }
        if (rc != RWF_E_NOSPACE) {
            err_push("converting a message to JSON");
            return TP_EINVAL;
        }
        bool was_empty = o->pack_count == 0;
        if ((rc = run_out_close(o)) < 0)
            return rc;
        if (was_empty || tries > 0) /* larger than a packed buffer */
            return json_alone(o, len);
    }
    return pack_end(o, more);
}

/* ---- the calls ------------------------------------------------------------------------------- */

int run_out_end(run_out *o, uint32_t len, bool more)
{
    if (o->json)
        return json_end(o, len, more);
    o->msgs++;
    if (o->cur_open) {
        o->cur_open = false;
        *buf_len(o, o->cur) = len;
        int rc = write_buf(o, o->cur);
        if (rc >= 0 && !more && o->pack_open)
            rc = run_out_close(o);
        return rc;
    }
    *buf_len(o, o->pack) = len;
    return pack_end(o, more);
}

/* json_form_tp(): the message goes the general way. */
#define RUN_OUT_SLOW 1

/* An unpacked JSON form on a bare channel written in place (tp_json_get, tp_json_write):
 * the room asked for is the form's widest rendering, so that it always fits. Returns what
 * tp_json_write() returns, tp_json_get()'s TP_ENOBUFS or TP_EFAIL, or RUN_OUT_SLOW when the
 * channel does not write that way (nothing counted). */
static int json_form_tp(run_out *o, const rjs_tmpl *form, const uint64_t *vals)
{
    tp_channel *ch = o->to.tp;
    uint32_t cap = (uint32_t)rjs_tmpl_max_len(form);
    uint8_t *at;
    int rc = tp_json_get(ch, cap, &at);
    if (rc == TP_EINVAL)
        return RUN_OUT_SLOW;
    o->msgs++;
    if (rc < 0)
        return rc;
    size_t jl = 0;
    if (rjs_tmpl_render(form, vals, (char *)at, cap, &jl) != RWF_OK) {
        tp_json_write(ch, 0, 0); /* gives the room back */
        err_set("a JSON form does not fit the room of its widest rendering");
        return TP_EINVAL;
    }
    rc = tp_json_write(ch, (uint32_t)jl, o->write_flags);
    if (rc >= 0)
        o->frames++;
    return rc;
}

int run_out_json_form(run_out *o, const rjs_tmpl *form, const uint64_t *vals, bool more)
{
    if (o->json_tp) {
        int rc = json_form_tp(o, form, vals);
        if (rc != RUN_OUT_SLOW)
            return rc;
    }
    if (!o->json) {
        err_set("a JSON form written on a channel that does not speak JSON");
        return TP_EINVAL;
    }
    o->alone = o->max_pack == 1;
    o->form = form;
    o->form_vals = vals;
    int rc = json_end(o, 0, more);
    o->form = NULL;
    return rc;
}

void run_out_cancel(run_out *o)
{
    if (o->json)
        return; /* only the scratch was used */
    if (o->cur_open) {
        buf_release(o, o->cur);
        o->cur_open = false;
    }
    /* A message begun in a packed buffer was not closed into it: nothing to undo. */
}

int run_out_flush(run_out *o)
{
    switch (o->kind) {
    case RUN_OUT_RX:
        return rx_flush(o->to.rx);
    case RUN_OUT_TUNNEL:
        return rx_flush(rx_tunnel_chan(o->to.tun));
    case RUN_OUT_TP:
    default:
        return tp_flush(o->to.tp);
    }
}

int run_out_send(run_out *o, uint32_t cap, run_out_enc_fn enc, const void *arg, bool packable)
{
    uint8_t *at;
    int rc = packable ? run_out_begin(o, cap, &at) : run_out_begin_alone(o, cap, &at);
    if (rc < 0)
        return rc;
    rwf_enc e;
    rwf_enc_init(&e, at, cap);
    size_t len = 0;
    if (enc(&e, arg) < 0 || rwf_enc_finish(&e, &len) != 0) {
        run_out_cancel(o);
        return TP_EINVAL;
    }
    return run_out_end(o, (uint32_t)len, false);
}
