/*
 * pv_out: a provider's write path on one channel.
 *
 * Messages are written one at a time: pv_out_begin() hands out room for a message of at most
 * `size` bytes (a view into the channel's output area), the caller encodes the message there,
 * and pv_out_end() queues it. With packing (-maxPackCount > 1) messages go into a packed
 * buffer of -packBufSize bytes that stays open while the caller says more messages of the same
 * burst follow, and is written when it holds -maxPackCount messages, when the next message
 * does not fit, or at the end of the burst — so no message waits for a later tick, and a burst
 * of N messages on an idle channel becomes ceil(N / maxPackCount) frames, as with the ETA
 * provider. A message larger than the packing buffer closes the open one and goes alone,
 * unpacked (and fragmented by the transport when it exceeds the frame size).
 *
 * Out of output buffers: pv_out_begin() returns TP_ENOBUFS and the channel stays up; the
 * caller drops the rest of its burst, counts it, and the bytes still queued go out when the
 * socket drains (pv_out_flush()). Any other failure (TP_EFAIL) means the channel is closed,
 * with err_msg() saying why.
 *
 * The write path is a bare channel (pv_out_init), a reactor channel (pv_out_init_rx: the
 * buffers are the layer's, and flushing hands the queue to its worker thread), or a tunnel stream
 * on a reactor channel (pv_out_init_tunnel: each message in a tunnel buffer of its own, never
 * packed, as the ETA provider writes into a tunnel); the rules above are the same for all.
 *
 * On a rssl.json.v2 WebSocket channel (pv_out_json()) the caller still encodes RWF: pv_out_begin()
 * hands out a scratch buffer, and pv_out_end() converts the message to JSON straight into the
 * transport's buffer — the one copy of the write path is the conversion itself. Updates and
 * generic messages skip the RWF: pv_out_json_form() writes their JSON form, rendered once per
 * template (pv_content_json), with the stream id and stamps written into the copy. Packing
 * works the same way: the JSON messages of a packed buffer share one array (one text frame).
 *
 * Nothing here allocates or locks; the per-message cost is a few stores besides the transport's
 * own frame handling (and, for JSON, the conversion). One thread owns a pv_out.
 */
#ifndef RWFPERF_PV_OUT_H
#define RWFPERF_PV_OUT_H

#include "rjs.h"
#include "rjs_tmpl.h"
#include "rwf_enc.h"
#include "rx.h"
#include "rx_tunnel.h"
#include "tp.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pv_out {
    tp_channel *ch;                 /* the bare channel, or NULL */
    rx_chan *rx;                    /* the reactor channel, or NULL */
    rx_tunnel *tun;                 /* the tunnel stream written into, or NULL */
    void (*after_write)(void *arg); /* tunnel: called after each message (buffer sampling) */
    void *after_arg;
    void *cur;            /* buffer of the message begun last (unpacked), NULL when none:
                           * a tp_buf (ch) or an rx_buf (rx) */
    void *pack;           /* open packed buffer, NULL when none (the same kinds) */
    uint32_t pack_count;  /* messages closed into it */
    uint32_t max_pack;    /* messages per packed buffer; 1 = no packing */
    uint32_t pack_size;   /* bytes of a packed buffer */
    unsigned write_flags; /* TP_WRITE_* for every write (TP_WRITE_DIRECT with -directWrite) */
    uint64_t msgs;        /* messages queued */
    uint64_t frames;      /* buffers written (a packed buffer counts once) */
    uint64_t packed_msgs; /* messages that went in packed buffers */
    uint64_t packs;       /* packed buffers written */
    /* rssl.json.v2 (pv_out_json) */
    const rjs_conv *json; /* the converter; NULL: RWF goes out as it is */
    uint8_t *rwf;         /* where messages are encoded (the thread's scratch) */
    uint32_t rwf_cap;
    bool alone; /* the message begun goes in a buffer of its own */
    /* pv_out_json_form: the message being queued is this form with these values (else NULL:
     * the RWF in the scratch is converted) */
    const rjs_tmpl *form;
    const uint64_t *form_vals;
} pv_out;

/* Sets up the write path of ch: max_pack messages per packed buffer of pack_size bytes (1 and
 * anything: no packing), write_flags for every write. */
void pv_out_init(pv_out *o, tp_channel *ch, uint32_t max_pack, uint32_t pack_size,
                 unsigned write_flags);

/* The same over a reactor channel (its TP_E* codes are the transport's). */
void pv_out_init_rx(pv_out *o, rx_chan *rx, uint32_t max_pack, uint32_t pack_size,
                    unsigned write_flags);

/* The same over tunnel stream t (on a reactor channel): after each message, after_write(arg)
 * when not NULL. */
void pv_out_init_tunnel(pv_out *o, rx_tunnel *t, void (*after_write)(void *arg), void *arg);

/* Makes o a JSON channel's write path: messages are encoded as RWF into scratch (cap bytes,
 * shared by the pv_outs of one thread, which use it one message at a time) and converted with
 * conv. A message larger than cap is refused with TP_EINVAL. */
void pv_out_json(pv_out *o, const rjs_conv *conv, uint8_t *scratch, uint32_t cap);

/*
 * Room for a message of at most size bytes: *at receives where to write it. Returns 0; or
 * TP_ENOBUFS when the output area is full (nothing is open then: the caller stops its burst);
 * TP_EINVAL when the transport cannot carry such a message; TP_EFAIL when the channel failed.
 * Every successful begin is followed by pv_out_end() or pv_out_cancel() before the next begin.
 */
int pv_out_begin(pv_out *o, uint32_t size, uint8_t **at);

/* The same, but the message goes alone in a buffer of its own (unpacked) whatever the packing:
 * the open packed buffer, if any, is written first. For replies that the ETA provider sends
 * outside its packing (login, directory, dictionary). */
int pv_out_begin_alone(pv_out *o, uint32_t size, uint8_t **at);

/*
 * Queues the message begun last, len bytes at the place pv_out_begin() gave. `more` says that
 * further messages of the same burst follow, so that a packed buffer with room may stay open
 * for them; when it is false every open buffer is written. Returns the bytes still queued in
 * the channel (>= 0, > 0: pv_out_flush() later), or TP_ENOBUFS (a fragmented message could not
 * be queued whole; it is dropped) or TP_EFAIL.
 */
int pv_out_end(pv_out *o, uint32_t len, bool more);

/* A JSON channel's message given by its ready JSON form (rjs_tmpl) and the values of its slots
 * instead of RWF: written straight into the transport's buffer, packed as pv_out_end() packs,
 * with no pv_out_begin() before it. Returns as pv_out_end(); TP_EINVAL on a channel that is not
 * JSON. */
int pv_out_json_form(pv_out *o, const rjs_tmpl *form, const uint64_t *vals, bool more);

/* Gives back the room of the message begun last without sending it (an encoding failure). */
void pv_out_cancel(pv_out *o);

/* Writes the open packed buffer, if any (end of a burst cut short). Returns the bytes still
 * queued, or TP_EFAIL. */
int pv_out_close(pv_out *o);

/* Sends what is queued (one send() at most). Returns the bytes still queued, or TP_EFAIL. */
int pv_out_flush(pv_out *o);

/* Encodes one message of at most cap bytes by calling enc with an rwf_enc over the buffer,
 * and queues it: in a packed buffer of its own when packing and `packable`, else alone.
 * Returns as pv_out_end(); TP_EINVAL when the encoding failed (err_msg() says why, nothing was
 * sent); TP_ENOBUFS when no buffer was free. */
typedef int (*pv_enc_fn)(rwf_enc *e, const void *arg);
int pv_out_send(pv_out *o, uint32_t cap, pv_enc_fn enc, const void *arg, bool packable);

/* Bytes queued and not yet sent. */
static inline size_t pv_out_queued(const pv_out *o)
{
    return o->rx || o->tun ? 0 : tp_queued(o->ch); /* the reactor's worker sends it */
}

#endif
