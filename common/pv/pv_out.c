#include "pv_out.h"

#include "err.h"

#include <poll.h>

/* A fragmented message waits this long in total for the socket to drain before it is given
 * up as out of buffers. */
#define PV_OUT_FRAG_WAIT_MS 5000

void pv_out_init(pv_out *o, tp_channel *ch, uint32_t max_pack, uint32_t pack_size,
                 unsigned write_flags)
{
    o->ch = ch;
    o->cur = NULL;
    o->pack = NULL;
    o->pack_count = 0;
    o->max_pack = max_pack > 1 && pack_size > 0 ? max_pack : 1;
    o->pack_size = pack_size;
    o->write_flags = write_flags;
    o->msgs = o->frames = o->packed_msgs = o->packs = 0;
}

/* Writes buffer b; a fragmented message that does not fit the output area is pushed through
 * by flushing and waiting for the socket (the ETA provider loops the same way). Whatever the
 * result, b is no longer the caller's: written, or given back when refused. */
static int write_buf(pv_out *o, tp_buf *b)
{
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
        return (int)tp_queued(o->ch);
    tp_buf *p = o->pack;
    o->pack = NULL;
    /* The slot opened after the last closed message is empty: the transport drops it. */
    p->len = 0;
    int rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    o->pack_count = 0;
    return rc;
}

int pv_out_begin_alone(pv_out *o, uint32_t size, uint8_t **at)
{
    tp_buf *b;
    int rc;
    if (o->pack && (rc = pv_out_close(o)) < 0)
        return rc;
    if ((rc = tp_get_buffer(o->ch, size, false, &b)) < 0)
        return rc;
    o->cur = b;
    *at = b->data;
    return 0;
}

int pv_out_begin(pv_out *o, uint32_t size, uint8_t **at)
{
    tp_buf *b;
    int rc;
    if (o->max_pack == 1 || size > o->pack_size) {
        if (o->pack && (rc = pv_out_close(o)) < 0)
            return rc;
        if ((rc = tp_get_buffer(o->ch, size, false, &b)) < 0)
            return rc;
        o->cur = b;
        *at = b->data;
        return 0;
    }
    if (o->pack && size > o->pack->len && (rc = pv_out_close(o)) < 0)
        return rc;
    if (!o->pack) {
        if ((rc = tp_get_buffer(o->ch, o->pack_size, true, &b)) < 0)
            return rc;
        o->pack = b;
        o->pack_count = 0;
    }
    o->cur = NULL;
    *at = o->pack->data;
    return 0;
}

int pv_out_end(pv_out *o, uint32_t len, bool more)
{
    o->msgs++;
    if (o->cur) {
        tp_buf *b = o->cur;
        o->cur = NULL;
        b->len = len;
        int rc = write_buf(o, b);
        if (rc >= 0 && !more && o->pack)
            rc = pv_out_close(o);
        return rc;
    }
    tp_buf *p = o->pack;
    p->len = len;
    o->packed_msgs++;
    if (++o->pack_count < o->max_pack && more) {
        int rc = tp_pack(o->ch, p);
        if (rc < 0)
            return rc;
        if (p->len > 0) /* room left: the buffer stays open for the next message */
            return (int)tp_queued(o->ch);
        /* full: written below with its (empty) next slot dropped */
    }
    /* Written with p->len = the last message's length (closed by the transport) or 0. */
    o->pack = NULL;
    int rc = write_buf(o, p);
    if (rc >= 0)
        o->packs++;
    o->pack_count = 0;
    return rc;
}

void pv_out_cancel(pv_out *o)
{
    if (o->cur) {
        tp_release(o->ch, o->cur);
        o->cur = NULL;
    }
    /* A message begun in a packed buffer was not closed into it: nothing to undo. */
}

int pv_out_flush(pv_out *o)
{
    return tp_flush(o->ch);
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
