/*
 * rx_buf: the application's write path. A buffer is a reservation in the channel's outbound
 * ring (or, for a message larger than half the ring, a heap block the worker frees); submitting
 * commits it as a record, and the records are handed to the worker (published) when the queued
 * bytes reach the high-water mark, on rx_flush(), and before the application waits or returns
 * from rx_dispatch().
 */
#include "rx_int.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

#define RX_HWM_DEFAULT 6000

static uint8_t *payload(const rx_buf *b)
{
    return b->rec + RX_REC_HDR;
}

int rx_get_buffer(rx_chan *ch, uint32_t size, bool packed, rx_buf **out)
{
    rx_aside *a = &ch->a;
    if (a->closed_by_app)
        return err_set("the channel is closed"), TP_EFAIL;
    if (a->buf_open)
        return err_set("a buffer of this channel is already open"), TP_EINVAL;
    if (packed && ch->role.watchlist)
        return err_set("packed buffers are not supported with the watchlist"), TP_EINVAL;
    if (a->state != RXA_UP && !ch->role.watchlist)
        return err_set("the channel is down"), TP_EFAIL;
    if (size == 0 || size > (1u << 30))
        return err_set("buffer size %u is not allowed", size), TP_EINVAL;
    rx_buf *b = &a->buf;
    memset(b, 0, sizeof(*b));
    b->packed = packed;
    uint32_t extra = packed ? 2 : 0;
    if ((uint64_t)RX_REC_HDR + size + extra > rx_ring_max_record(&ch->out)) {
        if (packed)
            return err_set("packed buffer of %u bytes is larger than the ring allows", size),
                   TP_EINVAL;
        if (!(b->data = malloc(size)))
            return err_set("out of memory for a message of %u bytes", size), TP_ENOBUFS;
        b->big = true;
        b->room = size;
        b->len = size;
        a->buf_open = true;
        *out = b;
        return 0;
    }
    rx_rec *rec = rx_ring_reserve(&ch->out, RX_REC_HDR + size + extra);
    if (!rec) {
        rx_chan_publish(ch); /* let the worker take what waits, then try again later */
        return err_set("no room in the channel's outbound ring"), TP_ENOBUFS;
    }
    b->rec = (uint8_t *)rec;
    b->room = size + extra;
    b->entry = packed ? payload(b) : NULL;
    b->data = payload(b) + extra;
    b->len = size;
    a->buf_open = true;
    *out = b;
    return 0;
}

int rx_pack(rx_chan *ch, rx_buf *b)
{
    if (!ch->a.buf_open || b != &ch->a.buf || !b->packed)
        return err_set("rx_pack: not an open packed buffer"), TP_EINVAL;
    uint8_t *end = payload(b) + b->room;
    if (b->len > (uint32_t)(end - b->data))
        return err_set("rx_pack: %u bytes exceed the buffer", b->len), TP_EINVAL;
    b->entry[0] = (uint8_t)(b->len >> 8);
    b->entry[1] = (uint8_t)b->len;
    b->entry = b->data + b->len;
    if (end - b->entry <= 2) {
        b->data = b->entry;
        b->len = 0;
        return 0;
    }
    b->data = b->entry + 2;
    b->len = (uint32_t)(end - b->data);
    return 0;
}

int rx_release(rx_chan *ch, rx_buf *b)
{
    if (!ch->a.buf_open || b != &ch->a.buf)
        return err_set("rx_release: not the channel's open buffer"), TP_EINVAL;
    if (b->big)
        free(b->data);
    rx_ring_cancel(&ch->out);
    ch->a.buf_open = false;
    return 0;
}

/* Hands the records to the worker once the queue holds hwm bytes (or at once when asked). */
static void maybe_publish(rx_chan *ch, unsigned flags)
{
    uint32_t hwm = ch->hwm ? ch->hwm : RX_HWM_DEFAULT;
    if ((flags & TP_WRITE_DIRECT) || rx_ring_unpublished(&ch->out) >= hwm)
        rx_chan_publish(ch);
}

/* A heap message: a small record points to it. */
static int commit_big(rx_chan *ch, rx_buf *b, unsigned flags)
{
    rx_rec *rec = rx_ring_reserve(&ch->out, RX_REC_HDR);
    if (!rec) {
        free(b->data);
        ch->a.buf_open = false;
        rx_chan_publish(ch);
        return err_set("no room in the channel's outbound ring"), TP_ENOBUFS;
    }
    rec->ptr = b->data;
    rec->epoch = ch->a.epoch;
    rec->flags = (uint16_t)flags;
    rx_ring_commit_sized(&ch->out, rec, RX_OUT_BIG, b->len, RX_REC_HDR);
    ch->a.buf_open = false;
    rx_chan_publish(ch);
    return 0;
}

int rx_buf_commit(rx_chan *ch, rx_buf *b, unsigned flags)
{
    if (!ch->a.buf_open || b != &ch->a.buf)
        return err_set("rx_submit: not the channel's open buffer"), TP_EINVAL;
    if (b->big) {
        if (b->len > b->room) {
            rx_release(ch, b);
            return err_set("rx_submit: %u bytes exceed the buffer", b->len), TP_EINVAL;
        }
        return commit_big(ch, b, flags);
    }
    uint8_t *start = payload(b);
    uint32_t len = b->len;
    uint16_t type = RX_OUT_MSG;
    if (b->packed) {
        uint8_t *end = start + b->room;
        if (b->len > (uint32_t)(end - b->data)) {
            rx_release(ch, b);
            return err_set("rx_submit: %u bytes exceed the buffer", len), TP_EINVAL;
        }
        if (b->len > 0) {
            b->entry[0] = (uint8_t)(b->len >> 8);
            b->entry[1] = (uint8_t)b->len;
            len = (uint32_t)(b->data + b->len - start);
        } else {
            len = (uint32_t)(b->entry - start);
        }
        type = RX_OUT_PACKED;
    } else if (len > b->room) {
        rx_release(ch, b);
        return err_set("rx_submit: %u bytes exceed the buffer", len), TP_EINVAL;
    }
    if (len == 0) {
        rx_release(ch, b);
        return 0;
    }
    rx_rec *rec = (rx_rec *)b->rec;
    rec->epoch = ch->a.epoch;
    rec->flags = (uint16_t)flags;
    rec->ptr = NULL;
    rx_ring_commit(&ch->out, rec, type, len);
    ch->a.buf_open = false;
    maybe_publish(ch, flags);
    return 0;
}

int rx_submit(rx_chan *ch, rx_buf *b, unsigned flags)
{
    if (ch->a.closed_by_app) {
        if (ch->a.buf_open && b == &ch->a.buf)
            rx_release(ch, b);
        return err_set("the channel is closed"), TP_EFAIL;
    }
    if (ch->role.watchlist)
        return rx_session_submit(ch, b, flags);
    return rx_buf_commit(ch, b, flags);
}

int rx_flush(rx_chan *ch)
{
    rx_chan_publish(ch);
    return 0;
}

int rx_out_bytes(rx_chan *ch, const void *data, uint32_t len)
{
    if (ch->a.buf_open)
        return err_set("a buffer of the channel is open while the layer writes"), TP_EINVAL;
    if (ch->a.state != RXA_UP)
        return err_set("the channel is down"), TP_EFAIL;
    rx_buf *b;
    int rc = rx_get_buffer(ch, len, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, data, len);
    b->len = len;
    return rx_buf_commit(ch, b, 0);
}

int rx_out_msg(rx_chan *ch, const rwf_msg *m)
{
    size_t len;
    if (rwf_msg_encode(m, ch->r->scratch, RX_SCRATCH, &len) != RWF_OK)
        return err_push("encoding a %s on stream %d", rwf_msg_class_name(m->msg_class),
                        (int)m->stream_id),
               TP_EINVAL;
    return rx_out_bytes(ch, ch->r->scratch, (uint32_t)len);
}

int rx_submit_msg(rx_chan *ch, const rwf_msg *m)
{
    size_t len;
    if (rwf_msg_encode(m, ch->r->scratch, RX_SCRATCH, &len) != RWF_OK)
        return err_push("encoding a %s on stream %d", rwf_msg_class_name(m->msg_class),
                        (int)m->stream_id),
               TP_EINVAL;
    rx_buf *b;
    int rc = rx_get_buffer(ch, (uint32_t)len, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, ch->r->scratch, len);
    b->len = (uint32_t)len;
    return rx_submit(ch, b, 0);
}
