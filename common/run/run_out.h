/*
 * run_out: the one write path of every tool's worker (docs/driver.md, "One output path"), over a
 * bare transport channel, a Reactor channel or a tunnel stream, each in its RWF or its
 * rssl.json.v2 form.
 *
 * Messages are written one at a time: run_out_begin() hands out room for a message of at most
 * `size` bytes, the caller encodes the message there, and run_out_end() queues it (or
 * run_out_cancel() gives the room back). With packing (max_pack > 1) messages go into a packed
 * buffer of pack_size bytes that stays open while the caller says more messages of the same
 * burst follow, and is written when it holds max_pack messages, when the next message does not
 * fit, or at the end of the burst, so no message waits for a later tick, and a burst of N
 * messages on an idle channel becomes ceil(N / max_pack) frames, as with the ETA provider
 * (docs/wire.md#packing). A message larger than the packing buffer closes the open one and goes
 * alone, unpacked (and fragmented by the transport when it exceeds the frame size).
 *
 * Out of output buffers: run_out_begin() (or run_out_end()) returns TP_ENOBUFS and the channel
 * stays up; the caller drops the rest of its burst, counts it, and the bytes still queued go out
 * when the socket drains (run_out_flush()). TP_EFAIL means the channel is closed, with err_msg()
 * saying why.
 *
 * The kind of the path (bare, Reactor, tunnel) is fixed by its init and tags every buffer the
 * path holds (run_out_buf), so each call is one switch. On a Reactor channel the buffers are the
 * layer's and flushing hands the queue to its worker thread; in a tunnel stream each message
 * has a buffer of its own, never packed, as the ETA tools write into a tunnel.
 *
 * JSON (run_out_json()): the caller still encodes RWF, into a scratch buffer run_out_begin()
 * hands out, and run_out_end() converts the message to JSON straight into the transport's
 * buffer: the one copy of the write path is the conversion itself. A message known by its ready
 * JSON form (rjs_tmpl) skips the RWF: run_out_json_form() writes the form with its slots' values.
 * Packing works the same way: the JSON messages of a packed buffer share one array (one text
 * frame).
 *
 * Nothing here allocates or locks; the per-message cost is a few stores besides the transport's
 * own frame handling (and, for JSON, the conversion). One thread owns a run_out.
 */
#ifndef RWFPERF_RUN_OUT_H
#define RWFPERF_RUN_OUT_H

#include "rjs.h"
#include "rjs_tmpl.h"
#include "rwf_enc.h"
#include "rx.h"
#include "rx_tunnel.h"
#include "tp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a write path writes through; the tag of its target and of the buffers it holds. */
typedef enum run_out_kind {
    RUN_OUT_TP,     /* a bare transport channel: tp_buf */
    RUN_OUT_RX,     /* a Reactor channel: rx_buf */
    RUN_OUT_TUNNEL, /* a tunnel stream on a Reactor channel: rx_tbuf */
} run_out_kind;

/* A buffer of the path, of its kind: the member named by run_out.kind; NULL when none. */
typedef union run_out_buf {
    tp_buf *tp;
    rx_buf *rx;
    rx_tbuf *tun;
} run_out_buf;

typedef struct run_out {
    run_out_kind kind; /* fixed by the init: which member of `to`, `cur` and `pack` is live */
    union {
        tp_channel *tp;
        rx_chan *rx;
        rx_tunnel *tun;
    } to;
    run_out_buf cur;  /* the message begun last, unpacked; held while cur_open */
    run_out_buf pack; /* the open packed buffer; held while pack_open */
    bool cur_open, pack_open;
    bool tun_app;                   /* tunnel: buffers counted as the application's */
    void (*after_write)(void *arg); /* tunnel: called after each message (buffer sampling) */
    void *after_arg;
    uint32_t pack_count;  /* messages closed into the packed buffer */
    uint32_t max_pack;    /* messages per packed buffer; 1 = no packing */
    uint32_t pack_size;   /* bytes of a packed buffer */
    unsigned write_flags; /* TP_WRITE_* for every write */
    uint64_t msgs;        /* messages queued */
    uint64_t frames;      /* buffers written (a packed buffer counts once) */
    uint64_t packed_msgs; /* messages that went in packed buffers */
    uint64_t packs;       /* packed buffers written */
    /* rssl.json.v2 (run_out_json) */
    const rjs_conv *json; /* the converter; NULL: RWF goes out as it is */
    uint8_t *rwf;         /* where messages are encoded (the thread's scratch) */
    uint32_t rwf_cap;
    bool alone;   /* the message begun goes in a buffer of its own */
    bool json_tp; /* bare and unpacked: JSON forms are written in place (tp_json_get) */
    /* run_out_json_form: the message being queued is this form with these values (else NULL:
     * the RWF in the scratch is converted) */
    const rjs_tmpl *form;
    const uint64_t *form_vals;
} run_out;

/* Sets up the write path of bare channel ch: max_pack messages per packed buffer of pack_size
 * bytes (1, or pack_size 0: no packing), write_flags (TP_WRITE_*) for every write. */
void run_out_init_tp(run_out *o, tp_channel *ch, uint32_t max_pack, uint32_t pack_size,
                     unsigned write_flags);

/* The same over Reactor channel rx (its TP_E* codes are the transport's). */
void run_out_init_rx(run_out *o, rx_chan *rx, uint32_t max_pack, uint32_t pack_size,
                     unsigned write_flags);

/* The same over tunnel stream t, unpacked: app says whether its buffers count as the
 * application's (a provider's, bounded by the tunnel's buffer chunks) or are bounded by the
 * tunnel's message limit (a consumer's); after each message, after_write(arg) when not NULL. */
void run_out_init_tunnel(run_out *o, rx_tunnel *t, bool app, void (*after_write)(void *arg),
                         void *arg);

/* Makes o a rssl.json.v2 write path (after its init): messages are encoded as RWF into scratch
 * (cap bytes, which the run_outs of one thread may share, as each uses it one message at a time)
 * and converted with conv. A message larger than cap is refused with TP_EINVAL. */
void run_out_json(run_out *o, const rjs_conv *conv, uint8_t *scratch, uint32_t cap);

/* True when o converts its messages to JSON. */
static inline bool run_out_is_json(const run_out *o)
{
    return o->json != NULL;
}

/*
 * Room for a message of at most size bytes: *at receives where to write it. Returns 0; or
 * TP_ENOBUFS when the output area is full (nothing is open then: the caller stops its burst);
 * TP_EINVAL when the path cannot carry such a message; TP_EFAIL when the channel failed.
 * Every successful begin is followed by run_out_end() or run_out_cancel() before the next begin.
 */
int run_out_begin(run_out *o, uint32_t size, uint8_t **at);

/* The same, but the message goes alone in a buffer of its own (unpacked) whatever the packing:
 * the open packed buffer, if any, is written first. For replies that the ETA provider sends
 * outside its packing (login, directory, dictionary). */
int run_out_begin_alone(run_out *o, uint32_t size, uint8_t **at);

/*
 * Queues the message begun last, len bytes at the place run_out_begin() gave. `more` says that
 * further messages of the same burst follow, so that a packed buffer with room may stay open
 * for them; when it is false every open buffer is written. Returns the bytes still queued in
 * the channel (>= 0; > 0: run_out_flush() later; always 0 over the Reactor, whose worker
 * sends), or TP_ENOBUFS (the message could not be queued: a fragmented one found no room, the
 * watchlist had none, a JSON path no buffer; it is dropped, the channel stays up), TP_EINVAL
 * (refused: err_msg() says why; dropped) or TP_EFAIL.
 */
int run_out_end(run_out *o, uint32_t len, bool more);

/* A JSON path's message given by its ready JSON form and the values of its slots instead of
 * RWF: written straight into the transport's buffer, packed as run_out_end() packs, with no
 * run_out_begin() before it (unpacked on a bare channel that writes in place, tp_json_get():
 * straight into the output area). Returns as run_out_end(); TP_EINVAL on a path that is not
 * JSON. */
int run_out_json_form(run_out *o, const rjs_tmpl *form, const uint64_t *vals, bool more);

/* Gives back the room of the message begun last without sending it (an encoding failure). */
void run_out_cancel(run_out *o);

/* Writes the open packed buffer, if any (the end of a burst cut short). Returns the bytes still
 * queued (as run_out_end()), or a TP_E* code as run_out_end(). */
int run_out_close(run_out *o);

/* Sends what is queued: bare, one tp_flush() (one send() at most); Reactor and tunnel, the
 * queue handed to the layer's worker. Returns the bytes still queued (>= 0), or TP_EFAIL. */
int run_out_flush(run_out *o);

/* Encodes one message of at most cap bytes by calling enc with an rwf_enc over the room, and
 * queues it: in the packed buffer when `packable` (and the path packs), else alone; every open
 * buffer is written after it. Returns as run_out_end(); TP_EINVAL when the encoding failed
 * (err_msg() says why, nothing was sent); TP_ENOBUFS when no buffer was free. */
typedef int (*run_out_enc_fn)(rwf_enc *e, const void *arg);
int run_out_send(run_out *o, uint32_t cap, run_out_enc_fn enc, const void *arg, bool packable);

/* Bytes queued in the channel and not yet sent (0 over the Reactor: its worker sends them). */
static inline size_t run_out_queued(const run_out *o)
{
    return o->kind == RUN_OUT_TP ? tp_queued(o->to.tp) : 0;
}

#endif
