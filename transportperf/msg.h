/*
 * msg: the payload of a TransportPerf message (docs/tools.md#transportperf,
 * docs/wire.md#transportperf-payload).
 *
 *     bytes  0..7    sequence number, u64 in host byte order, from 0 on each connection
 *     bytes  8..15   send time stamp, CLOCK_MONOTONIC ns, host order; 0 = no latency sample
 *     bytes 16..23   (ours, messages of 24 bytes or more) the time the message was due by the
 *                    sender's tick schedule, same clock; 0 = not given
 *     the rest       zeros
 *
 * The ETA receiver reads only bytes 0..15, and its sender leaves bytes 16.. zero, so the
 * scheduled time is invisible to it and absent (0) in what it sends: a receiver of ours then
 * reports only the original latency view. The scheduled time is written only in messages
 * that carry a time stamp; the others keep the original's layout byte for byte.
 *
 * Host byte order is the wire format here, as in the original: both ends run on the same
 * kind of machine when latency means anything. memcpy() keeps the accesses legal at any
 * alignment (packed messages sit at odd offsets) and compiles to single loads and stores.
 */
#ifndef RWFPERF_TPERF_MSG_H
#define RWFPERF_TPERF_MSG_H

#include <stdint.h>
#include <string.h>

#define TPERF_MSG_SEQ 0
#define TPERF_MSG_STAMP 8
#define TPERF_MSG_SCHED 16
#define TPERF_MSG_HEAD 16       /* sequence number and time stamp: the least a message holds */
#define TPERF_MSG_SCHED_SIZE 24 /* smallest message that carries the scheduled time */

/* Writes a whole message of `size` bytes (size >= TPERF_MSG_HEAD) at p: the sequence number,
 * the stamp (0 for a message without latency), the scheduled time (only when stamp != 0 and
 * size >= TPERF_MSG_SCHED_SIZE), and zeros. */
static inline void tperf_msg_fill(uint8_t *p, uint32_t size, uint64_t seq, uint64_t stamp,
                                  uint64_t sched)
{
    uint32_t zero_from = TPERF_MSG_HEAD;
    memcpy(p + TPERF_MSG_SEQ, &seq, 8);
    memcpy(p + TPERF_MSG_STAMP, &stamp, 8);
    if (stamp && size >= TPERF_MSG_SCHED_SIZE) {
        memcpy(p + TPERF_MSG_SCHED, &sched, 8);
        zero_from = TPERF_MSG_SCHED_SIZE;
    }
    memset(p + zero_from, 0, size - zero_from);
}

/* Over WebSocket rssl.json.v2 a message starts with its own length, 4 bytes little-endian,
 * then the layout above (the ETA TransportPerf's JSON mode: "[" + length + sequence number +
 * stamp + zeros + "]" on the wire, the brackets being the transport's). */
#define TPERF_MSG_JSON_LEN 4

/* Writes a JSON-mode message of size bytes (size >= TPERF_MSG_JSON_LEN + TPERF_MSG_HEAD). */
static inline void tperf_msg_fill_json(uint8_t *p, uint32_t size, uint64_t seq, uint64_t stamp,
                                       uint64_t sched)
{
    p[0] = (uint8_t)size;
    p[1] = (uint8_t)(size >> 8);
    p[2] = (uint8_t)(size >> 16);
    p[3] = (uint8_t)(size >> 24);
    tperf_msg_fill(p + TPERF_MSG_JSON_LEN, size - TPERF_MSG_JSON_LEN, seq, stamp, sched);
}

/* The fields of a received message of len bytes (len >= TPERF_MSG_HEAD). */
static inline uint64_t tperf_msg_seq(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p + TPERF_MSG_SEQ, 8);
    return v;
}

static inline uint64_t tperf_msg_stamp(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p + TPERF_MSG_STAMP, 8);
    return v;
}

/* The scheduled time, or 0 when the message is too short to carry one. */
static inline uint64_t tperf_msg_sched(const uint8_t *p, uint32_t len)
{
    uint64_t v = 0;
    if (len >= TPERF_MSG_SCHED_SIZE)
        memcpy(&v, p + TPERF_MSG_SCHED, 8);
    return v;
}

#endif
