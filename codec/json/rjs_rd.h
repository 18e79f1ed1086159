/*
 * rjs_rd: the JSON -> RWF side of the converter: the state of one conversion and what its
 * parts share. Internal.
 *
 * The RWF is written through an rwf_enc straight into the caller's output. Text that must be
 * transformed before it is encoded (strings with escapes, base64) is decoded into the unused
 * tail of the output: rjs_tail() lowers the encoder's end by n bytes and returns that room, so
 * the encoder can never write over it; rjs_tail_release() gives it back once the bytes were
 * copied into the message. No other memory is used.
 */
#ifndef RWFPERF_RJS_RD_H
#define RWFPERF_RJS_RD_H

#include "rjs_int.h"
#include "rjs_lex.h"

#define RJS_RESTART (-100) /* internal: read the message again in two passes */

typedef struct rjs_rd {
    const rjs_conv *c;
    rwf_enc e;
    int deferred; /* read the members of messages in two passes (any member order) */
    int depth;    /* containers and messages open */
} rjs_rd;

/* Room for n bytes in the tail of the output, or NULL with err text (RWF_E_NOSPACE). */
static inline char *rjs_tail(rjs_rd *rd, size_t n)
{
    if ((size_t)(rd->e.end - rd->e.pos) < n + 16) {
        err_set("RWF output buffer too small");
        return NULL;
    }
    rd->e.end -= n;
    return (char *)rd->e.end;
}

static inline uint8_t *rjs_tail_mark(const rjs_rd *rd)
{
    return rd->e.end;
}

static inline void rjs_tail_release(rjs_rd *rd, uint8_t *mark)
{
    rd->e.end = mark;
}

/* ---- Values (rjs_rprim.c) ------------------------------------------------------------------
 * Each reads one JSON value at lx. Returns RWF_OK, RWF_BLANK (null: the value is blank) or a
 * negative error with err text naming what was expected and where. */

/* A primitive of RWF type type (standard or set-defined; not ARRAY) into *v (string views may
 * point into the tail). fid: the field, for ENUM display texts (0 = none). */
int rjs_r_prim(rjs_rd *rd, rjs_lex *lx, int type, int16_t fid, rwf_value *v);

/* An Array value ({"Type":..,"Data":[..],"Length":n}) encoded where e expects a value. */
int rjs_r_array(rjs_rd *rd, rjs_lex *lx);

/* A string as bytes (escapes decoded into the tail when there are any). */
int rjs_r_string(rjs_rd *rd, rjs_lex *lx, rwf_buf *out);

/* A base64 string, decoded into the tail. */
int rjs_r_base64(rjs_rd *rd, rjs_lex *lx, rwf_buf *out);

/* Numbers: an unsigned / signed integer in [min, max]; a boolean (true/false or 1/0). */
int rjs_r_uint(rjs_lex *lx, uint64_t max, uint64_t *out);
int rjs_r_int(rjs_lex *lx, int64_t min, int64_t max, int64_t *out);
int rjs_r_bool(rjs_lex *lx, int *out);

/* A value named in table t (a string of t, or its number in [0, max]). */
struct rjs_names;
int rjs_r_named(rjs_lex *lx, const struct rjs_names *t, int max, int *out);

/* QoS, state and post user info objects. */
int rjs_r_qos(rjs_lex *lx, rwf_qos *q);
int rjs_r_state(rjs_rd *rd, rjs_lex *lx, rwf_state *s);
int rjs_r_post_user(rjs_lex *lx, uint32_t *addr, uint32_t *id);

/* ---- Containers (rjs_rcont.c) --------------------------------------------------------------- */

/* A container of type encoded where e expects one (its JSON value at lx). */
int rjs_r_container(rjs_rd *rd, rjs_lex *lx, int type);

/* The container type named by the first key of the object at lx that is a container key
 * ("Fields" ...), for entries and summaries; -1 when it has none. lx is not moved. */
int rjs_r_peek_container(const rjs_lex *lx);

/* ---- Messages (rjs_rmsg.c) ------------------------------------------------------------------ */

/* A message object at lx encoded where e expects one; nested: inside a Post's "Message".
 * *kind: RJS_MSG, RJS_PING, RJS_PONG, RJS_ERROR. RJS_RESTART when a member came after the
 * payload in single-pass mode. */
int rjs_r_msg(rjs_rd *rd, rjs_lex *lx, int nested, int *kind, rwf_buf *text);

/* Error helpers: "<what>: expected <exp>, found <kind>" at the current position. */
int rjs_r_expected(rjs_lex *lx, const char *exp);

#endif
