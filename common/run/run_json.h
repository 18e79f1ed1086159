/*
 * run_json: what a tool reads on a rssl.json.v2 WebSocket channel, once for all tools: the
 * messages of a received text frame come in as RWF, one by one, with the JSON pings among them
 * answered by pongs. (What a tool writes goes out as JSON through its write path, run_out.h,
 * which converts each RWF message straight into the transport's buffer.) The converter (codec/json)
 * is shared read-only; each thread has its own run_json (its scratch), so nothing is locked and,
 * once made, nothing is allocated.
 */
#ifndef RWFPERF_RUN_JSON_H
#define RWFPERF_RUN_JSON_H

#include "rjs.h"
#include "tp.h"

#include <stdint.h>

/* A thread's JSON state for its channels. */
typedef struct run_json {
    const rjs_conv *conv; /* the run's converter */
    uint8_t *rwf;         /* one message as RWF (received messages are converted here) */
    uint32_t rwf_cap;
    uint64_t pongs; /* JSON pings answered */
} run_json;

/* Prepares j for conv with room for RWF messages of up to cap bytes. Returns 0, or -1 (out of
 * memory, err_msg() set). */
int run_json_init(run_json *j, const rjs_conv *conv, uint32_t cap);

void run_json_free(run_json *j);

/* The channel speaks rssl.json.v2 (an active WebSocket channel whose sub-protocol is JSON). */
bool run_json_channel(tp_channel *ch);

/* Writes a JSON Pong on ch. Returns what tp_write() returns (>= 0: bytes queued), TP_ENOBUFS
 * when no buffer is free (nothing written), TP_EINVAL, TP_EFAIL. */
int run_json_pong(tp_channel *ch);

/* The messages of one received text frame. */
typedef struct run_json_in {
    rjs_reader r;
    run_json *j;
    tp_channel *ch;
} run_json_in;

/* Starts reading the frame text[0..len) received on ch (it stays valid until the next
 * tp_read() on ch). */
void run_json_in_start(run_json_in *in, run_json *j, tp_channel *ch, const uint8_t *text,
                       uint32_t len);

/*
 * The next message of the frame as RWF: returns 1 and *out (a view into j's scratch, valid
 * until the next call), 0 at the end of the frame, or -1 with err_msg() naming the message,
 * the key or field and the offset ("JSON message 2 at offset 57: Fields: field \"BIDX\" is not
 * in the dictionary"), or the peer's own Error message. Pings are answered (a Pong written on
 * ch) and pongs skipped.
 */
int run_json_in_next(run_json_in *in, rwf_buf *out);

#endif
