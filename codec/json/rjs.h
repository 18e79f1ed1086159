/*
 * rjs: RWF <-> JSON, the message format of the WebSocket sub-protocol rssl.json.v2 (sent on the
 * wire as "tr_json2"): one JSON object per message, several messages of one WebSocket text
 * frame in one JSON array ("[{...},{...}]"), field names from the field dictionary.
 *
 * RWF -> JSON: rjs_msg_to_json() decodes one encoded RWF message (what rwf_msg_decode accepts)
 * and appends one JSON object to a caller buffer, written in one pass with no intermediate
 * form: keys in the order and with the defaults the original converter uses (docs/wire.md#json),
 * REAL with exactly its hint's decimals, TIME/DATE in ISO form, blanks as null, RMTES as UTF-8,
 * ENUM as a number or (RJS_ENUM_TEXT) as its display text, BUFFER as base64. rjs_batch_* build the
 * "[...]" array of several messages; RJS_PING_OBJ / RJS_PONG_OBJ are the JSON ping and pong
 * objects.
 *
 * JSON -> RWF: rjs_reader walks the messages of one text frame (an array of objects, or one
 * object) and encodes each into a caller buffer as RWF, one call per message; JSON pings, pongs
 * and error messages are recognised and reported as such. The tokenizer is written for this
 * format: it reads the caller's text in place (views, no copies, no token array), and the RWF
 * is written straight into the output through the rwf_enc encoder. ENUM fields are accepted as
 * numbers or as display texts (looked up in the enum tables), REAL from numbers (decimals kept
 * as the hint), "Inf"/"-Inf"/"NaN", TIME/DATE from their text forms, null as blank.
 *
 * Bad input never crashes and never allocates: the call returns a negative RWF_E_* code and
 * err_msg() says which message, which key or field, and at which byte offset of the frame
 * (JSON that is not an object, unknown keys, unknown field names, values of the wrong type,
 * numbers out of range, truncated text). The hot path (updates both ways) allocates nothing.
 *
 * A converter (rjs_conv) is built once from a dictionary and is then read-only: threads share
 * it without locks. The dictionary must outlive it.
 */
#ifndef RWFPERF_RJS_H
#define RWFPERF_RJS_H

#include <stddef.h>
#include <stdint.h>

#include "rwf.h"

/* ---- The converter -------------------------------------------------------------------- */

enum {
    RJS_ENUM_TEXT = 0x01,      /* RWF->JSON: ENUM fields as display text (else as numbers) */
    RJS_SKIP_UNKNOWN = 0x02,   /* JSON->RWF: skip unknown keys and field names (else an error) */
    RJS_DEFAULT_SERVICE = 0x04 /* JSON->RWF: item keys without "Service" get default_service */
};

typedef struct rjs_opts {
    unsigned flags;           /* RJS_ENUM_TEXT | RJS_SKIP_UNKNOWN | RJS_DEFAULT_SERVICE */
    uint16_t default_service; /* with RJS_DEFAULT_SERVICE */
    /* "Key":{"Service":"NAME"} -> service id: returns 0 and sets *id, or -1 when the name is
     * not known (the message is then refused). NULL: service names are refused. */
    int (*service_id)(void *ctx, rwf_buf name, uint16_t *id);
    void *ctx;
} rjs_opts;

typedef struct rjs_conv rjs_conv;

/* A converter for dict (which it keeps a pointer to) with opts (NULL = defaults: ENUM as
 * numbers, unknown keys refused). Builds the display-text index of the enum tables. Returns
 * NULL with err text when out of memory. */
rjs_conv *rjs_conv_new(const rwf_dict *dict, const rjs_opts *opts);

/* Frees c. NULL is fine. */
void rjs_conv_free(rjs_conv *c);

/* The options c was made with. */
const rjs_opts *rjs_conv_opts(const rjs_conv *c);

/* ---- RWF -> JSON ------------------------------------------------------------------------ */

/* Appends the JSON object of the RWF message rwf at out[*len], at most cap bytes in all, and
 * advances *len. Returns RWF_OK; RWF_E_NOSPACE when the object does not fit (*len unchanged,
 * the bytes after it are scratch); RWF_E_MALFORMED / RWF_E_UNSUPPORTED / RWF_E_INVALID when
 * the message cannot be decoded or has no JSON form (err text names the part and offset).
 * A caller that gets RWF_E_NOSPACE may retry with more room (see rjs_json_size_hint). */
int rjs_msg_to_json(const rjs_conv *c, rwf_buf rwf, char *out, size_t cap, size_t *len);

/* Room for the JSON of an RWF message of rwf_len bytes that suffices for the messages the tools
 * exchange (rwf_len * 8 + 512; the original estimates rwf_len * 6 + 300). Field names, blank
 * values and escaped strings can need more: RWF_E_NOSPACE then says so. */
size_t rjs_json_size_hint(size_t rwf_len);

/* A JSON array of messages being built in a caller buffer: "[", objects separated by ",", "]". */
typedef struct rjs_batch {
    char *buf;
    size_t cap, len;
    unsigned count; /* objects added */
} rjs_batch;

/* Starts an array in buf[0..cap) (writes "["). Returns RWF_OK or RWF_E_NOSPACE (cap < 2). */
int rjs_batch_begin(rjs_batch *b, char *buf, size_t cap);

/* Adds the object of RWF message rwf; keeps one byte for the closing "]". On an error the batch
 * is as before. Returns as rjs_msg_to_json. */
int rjs_batch_add(const rjs_conv *c, rjs_batch *b, rwf_buf rwf);

/* Adds a ready JSON object text (RJS_PING_OBJ, RJS_PONG_OBJ...). RWF_OK or RWF_E_NOSPACE. */
int rjs_batch_add_text(rjs_batch *b, const char *obj, size_t len);

/* Closes the array ("]"); *len receives its length. RWF_OK (room was kept by the adds). */
int rjs_batch_end(rjs_batch *b, size_t *len);

/* The JSON ping and pong objects ({"Type":"Ping"} / {"Type":"Pong"}) and the frames the
 * original sends for them ([{"Type":"Ping"}] / [{"Type":"Pong"}]). */
#define RJS_PING_OBJ "{\"Type\":\"Ping\"}"
#define RJS_PONG_OBJ "{\"Type\":\"Pong\"}"
#define RJS_PING_FRAME "[" RJS_PING_OBJ "]"
#define RJS_PONG_FRAME "[" RJS_PONG_OBJ "]"

/* ---- JSON -> RWF ------------------------------------------------------------------------ */

/* What rjs_reader_next found (besides RWF_END and the negative errors). */
enum {
    RJS_MSG = 0,    /* an RWF message was written */
    RJS_PING = 20,  /* {"Type":"Ping"}: answer with RJS_PONG_OBJ */
    RJS_PONG = 21,  /* {"Type":"Pong"} */
    RJS_ERROR = 22, /* {"Type":"Error",...} from the peer: its "Text" in reader.text */
};

typedef struct rjs_reader {
    const char *text; /* the frame's JSON text (not NUL-terminated) */
    size_t len;
    size_t pos;        /* where the next message starts */
    uint8_t array;     /* the frame is an array of messages */
    uint8_t done;      /* no more messages (end, or an error that stops the frame) */
    unsigned index;    /* messages returned so far (1-based number of the last one) */
    rwf_buf text_view; /* RJS_ERROR: the peer's "Text" (raw JSON string contents) */
} rjs_reader;

/* Starts reading the messages of frame text[0..len) (a JSON array of objects, or one object,
 * surrounded by optional white space). Nothing is read yet: errors come from rjs_reader_next. */
void rjs_reader_init(rjs_reader *r, const char *text, size_t len);

/* Converts the next message of the frame into out[0..cap) and sets *len to its RWF length.
 * Returns RJS_MSG (an RWF message), RJS_PING, RJS_PONG, RJS_ERROR (*len = 0 for these three),
 * RWF_END when the frame has no more messages, or a negative RWF_E_* code with err text
 * "JSON message <n> at offset <o>: <key/field>: <what>". After an error in one message whose
 * JSON is well formed, the next call continues with the following message; after a syntax
 * error (or a frame that is not an object or array) r->done is set. RWF_E_NOSPACE when out is
 * too small. Allocates nothing. */
int rjs_reader_next(const rjs_conv *c, rjs_reader *r, void *out, size_t cap, size_t *len);

/* The same for a frame that holds exactly one message (object or one-element array): converts
 * it and checks that nothing follows. */
int rjs_json_to_msg(const rjs_conv *c, const char *text, size_t len, void *out, size_t cap,
                    size_t *out_len);

#endif
