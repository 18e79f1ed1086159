/*
 * clksync: the offset between a consumer's clock and its provider's, measured from round trips
 * as NTP does, and the two messages that carry the stamps.
 *
 * The consumer sends a request stamped t1 (its clock); the provider stamps t2 when it reads it
 * and t3 when it writes its answer (its clock); the consumer stamps t4 when it reads the answer:
 *
 *     offset = ((t2 - t1) + (t3 - t4)) / 2    the provider's clock minus the consumer's
 *     delay  = (t4 - t1) - (t3 - t2)          the round trip, the provider's own time left out
 *     bound  = delay / 2                      |true offset - offset| <= bound
 *
 * The bound holds whatever the paths' asymmetry, since each way took between 0 and the whole
 * delay. Of several exchanges the one with the smallest delay is kept: its bound is the
 * tightest (a request or answer that waited behind a burst of updates only widens its own).
 * A one-way latency the consumer measures from the provider's stamps is the true latency
 * minus the offset; it means something only when the offset (and its bound) is small beside it.
 *
 * The messages (RWF): a Generic message on the login stream, domain LOGIN, msgKey with the name
 * "RwfperfClockSync", payload an ElementList:
 *
 *     request:  Seq UINT, T1 INT (ns), Clock ASCII (the consumer's clock: "monotonic", ...)
 *     answer:   Seq UINT, T1 INT, T2 INT, T3 INT (ns), Clock ASCII (the provider's clock)
 *
 * A consumer sends requests only to a peer known to be one of ours (clksync_peer_is_ours: the
 * component version string of the RIPC handshake), so that an original ETA provider or an ADS
 * never sees one; our provider answers each request it gets, and ignores an answer.
 *
 * Nothing here allocates or locks: a consumer thread keeps its own clksync, a provider thread
 * answers from the request it decoded.
 */
#ifndef RWFPERF_CLKSYNC_H
#define RWFPERF_CLKSYNC_H

#include "out.h"
#include "rwf_enc.h"
#include "rwf_msg.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLKSYNC_NAME "RwfperfClockSync"       /* the msgKey name of both messages */
#define CLKSYNC_FAST 8                        /* exchanges made back to back at the start */
#define CLKSYNC_FAST_GAP_NS INT64_C(10000000) /* between those: 10 ms */
#define CLKSYNC_GAP_NS INT64_C(1000000000)    /* then one a second */
#define CLKSYNC_LOST_NS INT64_C(2000000000)   /* a request unanswered this long is lost */
#define CLKSYNC_MAX 3600                      /* exchanges at most */
#define CLKSYNC_MSG_MAX 160                   /* encoded length of either message, at most */

/* One exchange's result. */
typedef struct clksync_sample {
    int64_t offset_ns; /* the provider's clock minus the consumer's */
    int64_t delay_ns;  /* the round trip less the provider's time; the bound is half of it */
} clksync_sample;

/* The offset and round trip of the exchange (t1, t2, t3, t4), as above. The halves are
 * rounded toward zero; differences of stamps as large as a realtime clock's do not overflow. */
clksync_sample clksync_compute(int64_t t1, int64_t t2, int64_t t3, int64_t t4);

/* A decoded request or answer. */
typedef struct clksync_msg {
    bool answer;        /* T2 and T3 present */
    uint64_t seq;       /* Seq */
    int64_t t1, t2, t3; /* ns; t2 and t3 0 in a request */
    char clock[16];     /* Clock ("" when absent) */
} clksync_msg;

/*
 * Whether m is one of ours (a Generic message of domain LOGIN named CLKSYNC_NAME): 0 when it is
 * not (out untouched), 1 with out filled, or -1 (err_set naming the element) when it is ours but
 * malformed (no Seq or T1, an answer with T2 without T3, a value of the wrong type).
 */
int clksync_decode(const rwf_msg *m, clksync_msg *out);

/* Encodes a request (stream_id: the login stream; clock: the consumer's clock name) into e.
 * Returns what rwf_enc_msg_end() returns. */
int clksync_encode_request(rwf_enc *e, int32_t stream_id, uint64_t seq, int64_t t1,
                           const char *clock);

/* Encodes the answer to req (its Seq and T1 echoed, t2 and t3 the provider's stamps, clock its
 * clock name) into e, on stream_id. Returns what rwf_enc_msg_end() returns. */
int clksync_encode_answer(rwf_enc *e, int32_t stream_id, const clksync_msg *req, int64_t t2,
                          int64_t t3, const char *clock);

/* The component version string of a peer's RIPC handshake names one of our tools ("rwfperf"
 * followed by the version). NULL or "" (no handshake string: WebSocket, an old server) is
 * not ours. */
bool clksync_peer_is_ours(const char *component);

/* Why a consumer's estimate is missing (clksync.state). */
typedef enum clksync_state {
    CLKSYNC_OFF = 0,     /* not started: the connection never came up */
    CLKSYNC_NOT_OURS,    /* the peer is not one of our tools (or not over RIPC) */
    CLKSYNC_UNSUPPORTED, /* this mode of the consumer does not measure it (-reactor ...) */
    CLKSYNC_ON,          /* exchanging */
} clksync_state;

/* A consumer connection's exchanges and its best estimate so far. */
typedef struct clksync {
    clksync_state state;
    uint64_t seq;        /* the last request's Seq */
    bool outstanding;    /* it has not been answered yet */
    int64_t sent_ns;     /* its T1 */
    int64_t next_ns;     /* when the next request is due */
    uint32_t exchanges;  /* answers taken */
    uint32_t ignored;    /* answers not taken (stale, or a negative round trip) */
    bool have;           /* best holds an estimate */
    clksync_sample best; /* the exchange with the smallest round trip */
    char peer_clock[16]; /* the provider's clock, from its answers */
} clksync;

/* Starts c in state (CLKSYNC_ON: the first request is due at now_ns). */
void clksync_start(clksync *c, clksync_state state, int64_t now_ns);

/* A request should be sent now: c is on, has made fewer than CLKSYNC_MAX exchanges, and none is
 * outstanding (or the outstanding one is lost) and the next is due. */
static inline bool clksync_due(const clksync *c, int64_t now_ns)
{
    return c->state == CLKSYNC_ON && c->exchanges < CLKSYNC_MAX &&
           (!c->outstanding ? now_ns >= c->next_ns : now_ns - c->sent_ns >= CLKSYNC_LOST_NS);
}

/* Encodes c's next request into e, stamped t1 (read just before, on the consumer's clock named
 * clock), and counts it as outstanding. Returns what clksync_encode_request() returns. */
int clksync_request(clksync *c, rwf_enc *e, int32_t stream_id, int64_t t1, const char *clock);

/* Takes the answer a, read at t4: returns 1 when it answered the outstanding request and its
 * round trip is not negative (the estimate is kept when it is the best so far, and the next
 * request is scheduled), else 0 (counted in ignored). Not an error either way. */
int clksync_answer(clksync *c, const clksync_msg *a, int64_t t4);

/* Folds src into dst (the consumer's connections into one figure): the exchanges and ignored
 * answers summed, the best estimate of both kept, dst's state the most advanced of both. */
void clksync_fold(clksync *dst, const clksync *src);

/* The latency the consumer measured (usec: its receive time minus the provider's stamp)
 * corrected by the offset: the latency the clocks would have given had they agreed. */
double clksync_corrected(const clksync *c, double latency_usec);

/* One-way latency from the provider is not valid: there is no estimate, or the offset's
 * magnitude plus its bound reaches the latency once corrected by the offset
 * (clksync_corrected; latency_usec: the update latency's average as measured). */
bool clksync_exceeds(const clksync *c, double latency_usec);

/*
 * Writes our summary lines for c, after the original's lines, indented as the summaries are
 * ("  Clock offset to provider (usec): +12.3 (bound 4.5, best of 17 exchanges; provider clock
 * realtime)" or why it is missing); with has_latency, the warning line when the offset is as
 * large as the latency (clksync_exceeds; latency_usec: the update latency's average).
 */
void clksync_report(out_report *r, const clksync *c, bool has_latency, double latency_usec);

/* The JSON form: {"state", "measured", and when measured "offset_usec", "bound_usec",
 * "round_trip_usec", "exchanges", "ignored", "provider_clock", and with has_latency
 * "corrected_latency_usec" and "larger_than_latency" (clksync_exceeds)}. NULL when out of
 * memory. */
json_object *clksync_json(const clksync *c, bool has_latency, double latency_usec);

/* "off", "not ours", "unsupported", "on". */
const char *clksync_state_name(clksync_state s);

#endif
