/*
 * rjs_tmpl: the JSON form of a message rendered once by the converter, with the few numbers
 * that change from one send to the next (a stream id, latency stamps) cut out as slots. A send
 * copies the text and writes the slots' numbers in place: the bytes are those rjs_msg_to_json
 * writes for the same message with the same numbers, at the cost of a copy.
 *
 * A template is made from the message encoded with a distinct mark value in each varying place
 * (rjs_tmpl_build): the converter renders it, and each mark's decimal form is looked up in the
 * text, where it must stand exactly once as a whole number. Rendering allocates nothing and
 * locks nothing; a template is read-only once built and shared by threads.
 */
#ifndef RWFPERF_RJS_TMPL_H
#define RWFPERF_RJS_TMPL_H

#include <stddef.h>
#include <stdint.h>

#include "rjs.h"

#define RJS_TMPL_SLOTS 4 /* varying numbers per template */

typedef struct rjs_tmpl_slot {
    uint32_t at;   /* offset in text where the number goes */
    uint8_t value; /* index into the values given to rjs_tmpl_render */
    uint8_t sign;  /* the value is an int64_t (else a uint64_t) */
} rjs_tmpl_slot;

typedef struct rjs_tmpl {
    char *text;   /* the JSON object without the slots' numbers; NULL: not built */
    uint32_t len; /* its bytes */
    uint32_t n;   /* slots, in text order */
    rjs_tmpl_slot slot[RJS_TMPL_SLOTS];
} rjs_tmpl;

/* Builds *t from the RWF message rwf, encoded with marks[i] in the place of value i (n values,
 * at most RJS_TMPL_SLOTS; a value whose mark is 0 is not in this message and has no slot; bit
 * i of sign_mask: value i is signed, its mark an int64_t stored as uint64_t). Returns RWF_OK;
 * RWF_E_NOTFOUND when a mark does not stand exactly once as a whole number in the JSON
 * (a value of the message itself holds the same digits: use other marks, or convert);
 * RWF_E_NOMEM; or the converter's error. On failure *t is left unbuilt (text NULL). */
int rjs_tmpl_build(const rjs_conv *c, rwf_buf rwf, const uint64_t *marks, unsigned n,
                   unsigned sign_mask, rjs_tmpl *t);

/* The largest rendering of t (every slot at its widest, 20 digits and a sign). */
static inline size_t rjs_tmpl_max_len(const rjs_tmpl *t)
{
    return t->len + 21 * (size_t)t->n;
}

/* Writes t's JSON object with vals[] in its slots into out[0..cap); *len receives its length.
 * RWF_OK, or RWF_E_NOSPACE when it does not fit (nothing meaningful written; no error text is
 * set, the caller retries elsewhere or says why). */
int rjs_tmpl_render(const rjs_tmpl *t, const uint64_t *vals, char *out, size_t cap, size_t *len);

/* Frees what rjs_tmpl_build allocated (t becomes unbuilt). An unbuilt t is fine. */
void rjs_tmpl_free(rjs_tmpl *t);

#endif
