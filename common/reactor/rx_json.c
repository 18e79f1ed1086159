/*
 * rx_json: rssl.json.v2 WebSocket channels in the reactor's worker (see rx_int.h).
 *
 * The application side of the layer (sessions, watchlist, the tool) only ever sees RWF. On a
 * channel whose WebSocket sub-protocol is rssl.json.v2 the worker converts at the edge, with
 * the reactor's converter (rx_opts.json, shared read-only):
 *  - reading: each message of a received text frame is converted into the channel's scratch
 *    and pushed to the inbound ring like a RIPC message; when the ring is full the frame's
 *    reader stays open (the frame stays in the transport's input until the next tp_read) and
 *    the converted message waits in pend, as a RIPC message does. JSON pings inside a frame are
 *    answered with a pong; a message that cannot be converted is dropped with a warning to the
 *    application (the rest of the frame is read), the peer's Error message likewise;
 *  - writing: an outbound record (one RWF message, or a packed record) is converted straight
 *    into the transport's buffer (packed: the messages share one JSON array).
 * Nothing is allocated once the channel's scratch exists (made at its first session).
 */
#include "rx_int.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for one received message as RWF, and the largest JSON form tried for one record. */
#define RX_JSON_RWF_MAX (256u * 1024u)
#define RX_JSON_TEXT_MAX (64u * 1024u * 1024u)

int rx_json_up(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    w->json = tp_ws_protocol(w->tp) == TP_WS_PROTO_JSON2;
    w->jr_open = false;
    if (!w->json)
        return 0;
    if (!r->json)
        return err_set("the channel speaks rssl.json.v2 but the reactor has no JSON converter "
                       "(the dictionary that names the fields)");
    if (!w->jrwf) {
        if (!(w->jrwf = malloc(RX_JSON_RWF_MAX)))
            return err_set("out of memory for a JSON channel's conversion buffer");
        w->jrwf_cap = RX_JSON_RWF_MAX;
    }
    return 0;
}

void rx_json_free(rx_chan *ch)
{
    free(ch->w.jrwf);
    ch->w.jrwf = NULL;
}

/* Writes a JSON pong on the channel (a ping inside a frame of several messages; a frame that
 * is only a ping is answered by the transport). Returns 0, or -1 when the channel failed. */
static int pong(tp_channel *tp)
{
    static const char text[] = RJS_PONG_OBJ;
    tp_buf *b;
    int rc = tp_get_buffer(tp, sizeof(text) - 1, false, &b);
    if (rc == TP_ENOBUFS)
        return 0; /* no buffer now: the peer's next ping gets one */
    if (rc < 0)
        return -1;
    memcpy(b->data, text, sizeof(text) - 1);
    b->len = sizeof(text) - 1;
    rc = tp_write(tp, b, TP_WRITE_DIRECT);
    if (rc == TP_ENOBUFS || rc == TP_EINVAL)
        tp_release(tp, b);
    return rc == TP_EFAIL ? -1 : 0;
}

int rx_json_read(rx_reactor *r, rx_chan *ch, uint64_t *n)
{
    rx_wside *w = &ch->w;
    while (w->jr_open) {
        size_t len = 0;
        int rc = rjs_reader_next(r->json, &w->jr, w->jrwf, w->jrwf_cap, &len);
        switch (rc) {
        case RJS_MSG: {
            tp_msg m = {.data = w->jrwf, .len = (uint32_t)len};
            (*n)++;
            if (!rx_push_msg(r, ch, &m)) {
                w->pend = m;
                w->in_blocked = true;
                return 0;
            }
            break;
        }
        case RJS_PING:
            if (pong(w->tp) < 0)
                return -1;
            break;
        case RJS_PONG:
            break;
        case RJS_ERROR: {
            char text[RX_TEXT_MAX];
            snprintf(text, sizeof(text), "the peer sent a JSON Error message: %.*s",
                     (int)w->jr.text_view.len,
                     w->jr.text_view.data ? (const char *)w->jr.text_view.data : "");
            rx_push_warning(r, ch, text);
            break;
        }
        case RWF_END:
            w->jr_open = false;
            break;
        default: {
            char text[RX_TEXT_MAX];
            snprintf(text, sizeof(text), "a received JSON message was dropped: %s", err_msg());
            rx_push_warning(r, ch, text);
            if (w->jr.done)
                w->jr_open = false;
            break;
        }
        }
    }
    return 1;
}

void rx_json_frame(rx_chan *ch, const tp_msg *frame)
{
    rjs_reader_init(&ch->w.jr, (const char *)frame->data, frame->len);
    ch->w.jr_open = true;
}

/* Converts the messages of a packed record (u16 length, message)... into b, one JSON array. */
static int fill_packed(const rjs_conv *conv, tp_channel *tp, tp_buf *b, const uint8_t *p,
                       uint32_t len, uint64_t *count)
{
    const uint8_t *end = p + len;
    while (p + 2 <= end) {
        uint32_t l = ((uint32_t)p[0] << 8) | p[1];
        p += 2;
        if (l > (uint32_t)(end - p))
            return err_set("packed record is inconsistent"), RWF_E_INVALID;
        size_t jl = 0;
        int rc = rjs_msg_to_json(conv, rwf_buf_make(p, l), (char *)b->data, b->len, &jl);
        if (rc != RWF_OK)
            return rc;
        b->len = (uint32_t)jl;
        p += l;
        (*count)++;
        if (p < end && tp_pack(tp, b) != 0)
            return RWF_E_NOSPACE;
    }
    return RWF_OK;
}

int rx_json_fill(rx_reactor *r, rx_chan *ch, const rx_rec *rec, tp_buf **out, uint64_t *count)
{
    tp_channel *tp = ch->w.tp;
    bool packed = rec->type == RX_OUT_PACKED;
    const uint8_t *data = rec->type == RX_OUT_BIG ? rec->ptr : (const uint8_t *)(rec + 1);
    size_t room = rjs_json_size_hint(rec->len);
    for (; room <= RX_JSON_TEXT_MAX; room *= 4) {
        tp_buf *b;
        int rc = tp_get_buffer(tp, (uint32_t)room, packed, &b);
        if (rc == TP_ENOBUFS) {
            if (tp_flush(tp) < 0)
                return RX_WR_FAILED;
            rc = tp_get_buffer(tp, (uint32_t)room, packed, &b);
        }
        if (rc == TP_ENOBUFS)
            return RX_WR_BLOCKED;
        if (rc == TP_EINVAL)
            return RX_WR_REFUSED;
        if (rc < 0)
            return RX_WR_FAILED;
        *count = 0;
        size_t jl = 0;
        if (packed) {
            rc = fill_packed(r->json, tp, b, data, rec->len, count);
        } else {
            rc = rjs_msg_to_json(r->json, rwf_buf_make(data, rec->len), (char *)b->data, b->len,
                                 &jl);
            b->len = (uint32_t)jl;
            *count = 1;
        }
        if (rc == RWF_OK) {
            *out = b;
            return RX_WR_DONE;
        }
        tp_release(tp, b);
        if (rc != RWF_E_NOSPACE) {
            err_push("converting a message to JSON");
            return RX_WR_REFUSED;
        }
    }
    err_set("the JSON form of a %u-byte record needs more than %u bytes", rec->len,
            RX_JSON_TEXT_MAX);
    return RX_WR_REFUSED;
}
