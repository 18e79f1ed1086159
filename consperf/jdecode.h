/*
 * ConsPerf's native JSON reading (rssl.json.v2 without -addConversionOverhead): the messages of
 * a received text frame read in place, keeping what the consumer acts on — type, stream,
 * domain, state, refresh completion, post user info and the latency stamps TIM_TRK_1..3 from
 * "Fields" (or a MarketByOrder "Map"'s "Summary") — without converting to RWF, as the ETA
 * ConsPerf does in this mode (docs/wire.md#json-latency-stamps): a JSON number is a value, a string
 * too, null marks the message as holding a blank, and once a blank was seen the stamps of the
 * message are ignored; a field whose value is an object, an array or a boolean is an error naming
 * it.
 *
 * Nothing is allocated; the views point into the frame.
 */
#ifndef RWFPERF_CONS_JDECODE_H
#define RWFPERF_CONS_JDECODE_H

#include "payload.h"
#include "rjs_lex.h"
#include "rwf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cons_jmsg.kind besides the RWF message classes */
#define CONS_JMSG_PING 200
#define CONS_JMSG_PONG 201
#define CONS_JMSG_ERROR 202

/* One message of a frame. */
typedef struct cons_jmsg {
    int kind;          /* RWF_MC_* of "Type" (Request when absent), or CONS_JMSG_* */
    int32_t stream_id; /* "ID" (0 when absent) */
    uint8_t domain;    /* "Domain" (MarketPrice when absent) */
    bool has_state;    /* "State" was there */
    rwf_state state;   /* its Stream, Data, Code; Text as a view (escapes not undone) */
    bool complete;     /* refresh "Complete" (true when absent) */
    bool has_post_user;
    uint32_t post_user_addr; /* "PostUserInfo": "Address" (dotted IPv4, host order) */
    uint32_t post_user_id;   /* and "UserID" */
    payload_stamps st;       /* the stamps (0 when absent, or ignored after a blank) */
    const char *text;        /* the message's own JSON text */
    size_t text_len;
} cons_jmsg;

/* Where the scan is: a block of 64 bytes of the frame and its bits (see cons_jreader). */
typedef struct cons_jscan {
    const char *blk;  /* the block: blk[0..64) */
    const char *base; /* the frame */
    const char *end;  /* its end */
    uint64_t stop;    /* the block's bytes that end a plain string: '"', '\\', control bytes (and
                         every byte past the end of the frame) */
} cons_jscan;

/* The reader of a frame. The usual text (item messages without escapes, white space or unusual
 * members) is read by one scan: the frame is looked at in blocks of 64 bytes, each block's
 * quotes, backslashes and control bytes found at once and held as bits, and the walk from
 * string to string jumps from bit to bit; a number is checked from the bits of its 16 bytes.
 * Anything else in a message is read by the full reader (rjs_lex), which says what is wrong when
 * something is. */
typedef struct cons_jreader {
    rjs_lex lx;
    bool array; /* the frame is an array of messages */
    bool done;
    bool full;        /* the full reader alone (set by tests, to compare both) */
    unsigned index;   /* messages read so far */
    unsigned scanned; /* of which read by the scan alone */
    cons_jscan sc;
} cons_jreader;

/* Starts reading the messages of frame text[0..len) (an array of objects, or one object). */
void cons_jreader_init(cons_jreader *r, const char *text, size_t len);

/* Reads the next message into *m. Returns 1, 0 at the end of the frame, or -1 with err_msg()
 * "JSON message <n> at offset <o>: ..." (a frame that is not JSON, a message that is not an
 * object, a value of the wrong kind, a field of an unhandled type naming it). After an error
 * the frame is done. */
int cons_jreader_next(cons_jreader *r, cons_jmsg *m);

/* For tests, which read the same text with both forms of the scan: on (non-zero) makes every
 * reader's scan take its SSE2 forms from then on, even on a CPU with AVX2; 0 the widest forms
 * the CPU has again (the default). Not to be called while another thread reads a frame.
 * Returns 1 when the scan takes its AVX2 forms after the call, else 0. */
int cons_jscan_sse2(int on);

#endif
