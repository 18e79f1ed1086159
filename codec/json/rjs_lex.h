/*
 * rjs_lex: the JSON tokenizer of the converter — a pull reader over the caller's text, for the
 * subset of JSON (RFC 8259) that rssl.json.v2 uses (which is all of it). Internal.
 *
 * A reader is a position in the text: each call reads one token or value there and moves past
 * it. Strings come back as views of their raw contents (between the quotes) with a flag saying
 * whether they hold escapes (rjs_unescape() writes their decoded bytes); numbers as views of
 * their text. Objects and arrays are read member by member (rjs_obj_* / rjs_arr_*) or skipped
 * whole (rjs_skip), which checks their syntax. Nothing is copied, nothing allocated.
 *
 * Every failure returns RWF_E_MALFORMED with err text "offset <n>: <what>" (the offset counts
 * from lx->base, the start of the frame).
 */
#ifndef RWFPERF_RJS_LEX_H
#define RWFPERF_RJS_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "rwf_types.h"

#define RJS_LEX_MAX_DEPTH 64 /* nesting a skipped value may have */

typedef struct rjs_lex {
    const char *base; /* start of the frame (error offsets) */
    const char *p;    /* next byte */
    const char *end;
} rjs_lex;

typedef struct rjs_str {
    const char *s; /* contents, without the quotes */
    uint32_t len;
    uint8_t esc; /* holds backslash escapes */
} rjs_str;

enum { /* value kinds (the first byte of a value) */
       RJS_V_BAD = 0,
       RJS_V_STR,
       RJS_V_NUM,
       RJS_V_OBJ,
       RJS_V_ARR,
       RJS_V_TRUE,
       RJS_V_FALSE,
       RJS_V_NULL,
};

/* Error at position at: sets err text and returns RWF_E_MALFORMED. */
int rjs_lex_err(const rjs_lex *lx, const char *at, const char *fmt, ...) ERR_PRINTF(3, 4);

static inline void rjs_ws(rjs_lex *lx)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    lx->p = p;
}

/* The end of the run of bytes at p that need no attention inside a string (not '"', not '\\',
 * not a control byte): eight bytes at a time while there are eight (the usual bit tricks for
 * "a byte equal to" and "a byte below"). */
static inline const char *rjs_plain_run(const char *p, const char *end)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
        /* a byte is flagged when it is zero in q or b, or below 0x20 in x */
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x);
        if ((hit &= highs) != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* the lowest flagged byte is a true one (a false flag only follows a true one) */
            return p + (__builtin_ctzll(hit) >> 3);
#else
            break;
#endif
        }
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\' && (uint8_t)*p >= 0x20)
        p++;
    return p;
}

/* Offset of the current position in the frame. */
static inline size_t rjs_off(const rjs_lex *lx)
{
    return (size_t)(lx->p - lx->base);
}

/* The kind of the value at the current position (after white space), RJS_V_BAD at the end of
 * the text or before a byte that starts no value. */
int rjs_kind(rjs_lex *lx);

/* The name of a kind, for error text ("a string", "an object" ...). */
const char *rjs_kind_name(int kind);

/* Reads a string value. */
int rjs_string(rjs_lex *lx, rjs_str *out);

/* Reads a number value; *s, *len: its text. */
int rjs_number(rjs_lex *lx, const char **s, size_t *len);

/* Reads true/false/null (the kind given by rjs_kind). */
int rjs_literal(rjs_lex *lx, int kind);

/* Skips one value of any kind, checking its syntax. */
int rjs_skip(rjs_lex *lx);

/* Objects: rjs_obj_begin reads '{' and returns 1 when a member follows, 0 for "{}";
 * rjs_obj_key reads a member's key and the ':' after it; rjs_obj_next, after the member's
 * value, reads ',' (returns 1) or '}' (returns 0). Negative on errors. Arrays alike. */
int rjs_obj_begin(rjs_lex *lx);
int rjs_obj_key(rjs_lex *lx, rjs_str *key);
int rjs_obj_next(rjs_lex *lx);
int rjs_arr_begin(rjs_lex *lx);
int rjs_arr_next(rjs_lex *lx);

/* Decoded length of a string's contents (escapes resolved, \u as UTF-8), and the decoding into
 * out (which has that room). The contents were checked by rjs_string. */
size_t rjs_unescaped_len(const rjs_str *s);
char *rjs_unescape(const rjs_str *s, char *out);

/* 1 when the string's contents are exactly lit[0..n) (a string with escapes never is). */
static inline int rjs_str_is(const rjs_str *s, const char *lit, size_t n)
{
    return !s->esc && s->len == n && memcmp(s->s, lit, n) == 0;
}

#define RJS_STR_IS(s, lit) rjs_str_is((s), (lit), sizeof(lit) - 1)

/* Checks that text[0..len) is one JSON value (for JSON payloads carried as they are). */
int rjs_json_check(const char *text, size_t len);

#endif
