#include "pv_out.h"

#include "err.h"

#include <poll.h>

/* A fragmented message waits this long in total for the socket to drain before it is given
 * up as out of buffers. */
#define PV_OUT_FRAG_WAIT_MS 5000

static void init(pv_out *o, tp_channel *ch, rx_chan *rx, uint32_t max_pack, uint32_t pack_size,
                 unsigned write_flags)
{
    o->ch = ch;
    o->rx = rx;
    o->tun = NULL;
    o->after_write = NULL;
    o->after_arg = NULL;
    o->cur = NULL;
    o->pack = NULL;
    o->pack_count = 0;
    o->max_pack = max_pack > 1 && pack_size > 0 ? max_pack : 1;
    o->pack_size = pack_size;
    o->write_flags = write_flags;
    o->msgs = o->frames = o->packed_msgs = o->packs = 0;
    o->json = NULL;
    o->rwf = NULL;
    o->rwf_cap = 0;
    o->alone = false;
    o->form = NULL;
    o->form_vals = NULL;
}

void pv_out_json(pv_out *o, const rjs_conv *conv, uint8_t *scratch, uint32_t cap)
{
    o->json = conv;
    o->rwf = scratch;
    o->rwf_cap = cap;
}

void pv_out_init(pv_out *o, tp_channel *ch, uint32_t max_pack, uint32_t pack_size,
                 unsigned write_flags)
{
    init(o, ch, NULL, max_pack, pack_size, write_flags);
}

void pv_out_init_rx(pv_out *o, rx_chan *rx, uint32_t max_pack, uint32_t pack_size,
                    unsigned write_flags)
{
    init(o, NULL, rx, max_pack, pack_size, write_flags);
}

void pv_out_init_tunnel(pv_out *o, rx_tunnel *t, void (*after_write)(void *arg), void *arg)
{
    init(o, NULL, NULL, 1, 0, 0);
    o->tun = t;
    o->after_write = after_write;
    o->after_arg = arg;
}

/* ---- the back ends: a buffer is a tp_buf (bare), an rx_buf (reactor) or an rx_tbuf (tunnel) -- */

static uint8_t *buf_data(const pv_out *o, void *b)
{
    if (o->tun)
        return ((rx_tbuf *)b)->data;
    return o->rx ? ((rx_buf *)b)->data : ((tp_buf *)b)->data;
}

static uint32_t *buf_len(const pv_out *o, void *b)
{
    if (o->tun)
        return &((rx_tbuf *)b)->len;
    return o->rx ? &((rx_buf *)b)->len : &((tp_buf *)b)->len;
}

static int buf_get(pv_out *o, uint32_t size, bool packed, void **out)
{
    if (o->tun) {
        rx_tbuf *b;
        int rc = rx_tunnel_get_buffer(o->tun, size, true, &b);
        *out = b;
        return rc;
    }
    if (o->rx) {
        rx_buf *b;
        int rc = rx_get_buffer(o->rx, size, packed, &b);
        *out = b;
        return rc;
    }
    tp_buf *b;
    int rc = tp_get_buffer(o->ch, size, packed, &b);
    *out = b;
    return rc;
}

static int buf_pack(pv_out *o, void *b)
{
    return o->rx ? rx_pack(o->rx, b) : tp_pack(o->ch, b);
}

static void buf_release(pv_out *o, void *b)
{
    if (o->tun)
        rx_tunnel_release(o->tun, b);
    else if (o->rx)
        rx_release(o->rx, b);
    else
        tp_release(o->ch, b);
}

static int queued(const pv_out *o)
{
    return o->rx || o->tun ? 0 : (int)tp_queued(o->ch);
}

/* Writes buffer b; a fragmented message that does not fit the output area is pushed through
 * by flushing and waiting for the socket (the ETA provider loops the same way; the reactor's
 * worker does it by itself). Whatever the result, b is no longer the caller's: written, or
 * given back when refused. */
static int write_buf(pv_out *o, void *b)
{
    if (o->tun) {
        int rc = rx_tunnel_submit(o->tun, b);
        if (rc >= 0)
            o->frames++;
        if (o->after_write)
            o->after_write(o->after_arg);
        return rc;
    }
    if (o->rx) {
        int rc = rx_submit(o->rx, b, o->write_flags);
        if (rc >= 0)
            o->frames++;
        return rc; /* refused: the layer gave the buffer back */
    }
    int rc = tp_write(o->ch, b, o->write_flags);
    int waited = 0;
    while (rc == TP_ECALLAGAIN) {
        int q = tp_flush(o->ch);
        if (q < 0)
            return q;
        if (q > 0) {
            if (waited >= PV_OUT_FRAG_WAIT_MS) {
                tp_release(o->ch, b);
                err_set("a fragmented message could not be queued within %d ms",
                        PV_OUT_FRAG_WAIT_MS);
                return TP_ENOBUFS;
            }
            struct pollfd p = {.fd = tp_fd(o->ch), .events = POLLOUT};
            poll(&p, 1, 100);
            waited += 100;
        }
        rc = tp_write(o->ch, b, o->write_flags);
    }
    if (rc >= 0)
        o->frames++;
    else if (rc != TP_EFAIL)
        tp_release(o->ch, b); /* refused (no room, bad length): b is still ours; drop it */
    return rc;
}

int pv_out_close(pv_out *o)
{
    if (!o->pack)
        return queued(o);
    void *p = o->pack;
    o->pack = NULL;
    /* The slot opened after the last closed message is empty: the transport drops it. */
    *buf_len(o, p) = 0;
    int rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    o->pack_count = 0;
    return rc;
}

/* JSON: the message is encoded into the scratch; the transport's buffer comes at the end. */
static int json_begin(pv_out *o, uint32_t size, uint8_t **at, bool alone)
{
    if (size > o->rwf_cap) {
        err_set("message of %u bytes exceeds the %u-byte JSON conversion buffer", size, o->rwf_cap);
        return TP_EINVAL;
    }
    o->alone = alone;
    *at = o->rwf;
    return 0;
}

int pv_out_begin_alone(pv_out *o, uint32_t size, uint8_t **at)
{
    void *b;
    int rc;
    if (o->json)
        return json_begin(o, size, at, true);
    if (o->pack && (rc = pv_out_close(o)) < 0)
        return rc;
    if ((rc = buf_get(o, size, false, &b)) < 0)
        return rc;
    o->cur = b;
    *at = buf_data(o, b);
    return 0;
}

int pv_out_begin(pv_out *o, uint32_t size, uint8_t **at)
{
    void *b;
    int rc;
    if (o->json)
        return json_begin(o, size, at, o->max_pack == 1);
    if (o->max_pack == 1 || size > o->pack_size)
        return pv_out_begin_alone(o, size, at);
    if (o->pack && size > *buf_len(o, o->pack) && (rc = pv_out_close(o)) < 0)
        return rc;
    if (!o->pack) {
        if ((rc = buf_get(o, o->pack_size, true, &b)) < 0)
            return rc;
        o->pack = b;
        o->pack_count = 0;
    }
    o->cur = NULL;
    *at = buf_data(o, o->pack);
    return 0;
}

/* The JSON object of the message being queued into out[0..cap): its ready form, or the
 * conversion of the len bytes of RWF in the scratch. RWF_OK, RWF_E_NOSPACE or an error. */
static int json_render(const pv_out *o, uint32_t len, char *out, size_t cap, size_t *jl)
{
    if (o->form)
        return rjs_tmpl_render(o->form, o->form_vals, out, cap, jl);
    return rjs_msg_to_json(o->json, rwf_buf_make(o->rwf, len), out, cap, jl);
}

/* JSON, unpacked: a buffer of the message's own, retried larger when the JSON needs more
 * room than the usual estimate. */
static int json_alone(pv_out *o, uint32_t len)
{
    size_t room = o->form ? rjs_tmpl_max_len(o->form) : rjs_json_size_hint(len);
    for (int i = 0; i < 3; i++, room *= 4) {
        void *b;
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
static int json_end(pv_out *o, uint32_t len, bool more)
{
    o->msgs++;
    int rc;
    if (o->alone) {
        if (o->pack && (rc = pv_out_close(o)) < 0)
            return rc;
        return json_alone(o, len);
    }
    for (int tries = 0;; tries++) {
        if (!o->pack) {
            void *b;
            if ((rc = buf_get(o, o->pack_size, true, &b)) < 0)
                return rc;
            o->pack = b;
            o->pack_count = 0;
        }
        void *p = o->pack;
        size_t jl = 0;
        rc = json_render(o, len, (char *)buf_data(o, p), *buf_len(o, p), &jl);
        if (rc == RWF_OK) {
            *buf_len(o, p) = (uint32_t)jl;
            break;
        }
        if (rc != RWF_E_NOSPACE) {
            err_push("converting a message to JSON");
            return TP_EINVAL;
        }
        bool was_empty = o->pack_count == 0;
        if ((rc = pv_out_close(o)) < 0)
            return rc;
        if (was_empty || tries > 0) /* larger than a packed buffer */
            return json_alone(o, len);
    }
    void *p = o->pack;
    o->packed_msgs++;
    if (++o->pack_count < o->max_pack && more) {
        rc = buf_pack(o, p);
        if (rc < 0)
            return rc;
        if (*buf_len(o, p) > 0)
            return queued(o);
    }
    o->pack = NULL;
    rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    o->pack_count = 0;
    return rc;
}

int pv_out_end(pv_out *o, uint32_t len, bool more)
{
    if (o->json)
        return json_end(o, len, more);
    o->msgs++;
    if (o->cur) {
        void *b = o->cur;
        o->cur = NULL;
        *buf_len(o, b) = len;
        int rc = write_buf(o, b);
        if (rc >= 0 && !more && o->pack)
            rc = pv_out_close(o);
        return rc;
    }
    void *p = o->pack;
    *buf_len(o, p) = len;
    o->packed_msgs++;
    if (++o->pack_count < o->max_pack && more) {
        int rc = buf_pack(o, p);
        if (rc < 0)
            return rc;
        if (*buf_len(o, p) > 0) /* room left: the buffer stays open for the next message */
            return queued(o);
        /* full: written below with its (empty) next slot dropped */
    }
    /* Written with len = the last message's length (closed by the transport) or 0. */
    o->pack = NULL;
    int rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    o->pack_count = 0;
    return rc;
}

int pv_out_json_form(pv_out *o, const rjs_tmpl *form, const uint64_t *vals, bool more)
{
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

void pv_out_cancel(pv_out *o)
{
    if (o->json)
        return; /* only the scratch was used */
    if (o->cur) {
        buf_release(o, o->cur);
        o->cur = NULL;
    }
    /* A message begun in a packed buffer was not closed into it: nothing to undo. */
}

int pv_out_flush(pv_out *o)
{
    if (o->tun)
        return rx_flush(rx_tunnel_chan(o->tun));
    return o->rx ? rx_flush(o->rx) : tp_flush(o->ch);
}

int pv_out_send(pv_out *o, uint32_t cap, pv_enc_fn enc, const void *arg, bool packable)
{
    uint8_t *at;
    int rc = packable ? pv_out_begin(o, cap, &at) : pv_out_begin_alone(o, cap, &at);
    if (rc < 0)
        return rc;
    rwf_enc e;
    rwf_enc_init(&e, at, cap);
    size_t len = 0;
    if (enc(&e, arg) < 0 || rwf_enc_finish(&e, &len) != 0) {
        pv_out_cancel(o);
        return TP_EINVAL;
    }
    return pv_out_end(o, (uint32_t)len, false);
}
