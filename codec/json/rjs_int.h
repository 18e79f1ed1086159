/*
 * rjs_int: what the parts of the JSON converter share — the converter struct (dictionary, the
 * UTF-8 forms of the enum displays and their reverse index), the output writer of the RWF ->
 * JSON direction, and RMTES -> UTF-8. Not for users of the converter (see rjs.h).
 */
#ifndef RWFPERF_RJS_INT_H
#define RWFPERF_RJS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rjs.h"

/* One enum display in the reverse index: (table, UTF-8 text) -> value. */
typedef struct rjs_enum_key {
    uint32_t table; /* index + 1 into dict->tables; 0 = empty slot */
    uint16_t value;
    rwf_buf text;
} rjs_enum_key;

typedef struct rjs_fname_slot {
    uint64_t a, b;  /* the name's first 16 bytes, zero-padded */
    uint32_t hash;  /* 0: empty */
    uint32_t index; /* into dict->fields */
} rjs_fname_slot;

struct rjs_conv {
    const rwf_dict *dict;
    rjs_opts opts;
    rwf_buf **display; /* per enum table: the UTF-8 display of each value, by value index */
    rjs_enum_key *rev; /* open addressing, rev_cap a power of two */
    uint32_t rev_cap;
    char *arena;           /* the UTF-8 texts */
    rjs_fname_slot *fname; /* field names: open addressing, fname_cap a power of two */
    uint32_t fname_cap;
};

/* Builds c->fname from the dictionary's fields. RWF_OK or RWF_E_NOMEM (err text). */
int rjs_fname_build(rjs_conv *c);

/* The field named s[0..len) (the first of the dictionary's fields with that acronym), or NULL.
 * avail: bytes readable at s (at least len), which lets the name be read a word at a time. */
const rwf_dict_field *rjs_field_by_name(const rjs_conv *c, const char *s, size_t len, size_t avail);

/* The UTF-8 display text of enum value v of field fid, or NULL when the field has no table or
 * the table no such value. */
const rwf_buf *rjs_enum_text(const rjs_conv *c, int16_t fid, uint16_t v);

/* The value whose display text (UTF-8) is s[0..len) in the enum table of field fid: 0 and *v,
 * or -1 when none. */
int rjs_enum_value(const rjs_conv *c, int16_t fid, const char *s, size_t len, uint16_t *v);

/* Bytes the UTF-8 form of RMTES text s[0..len) takes, and the conversion into out (which has
 * that room). The default character sets: ASCII and, in the upper half, the Reuters Basic
 * Character Set; after ESC % 0 the rest is UTF-8 already. Other bytes: C0 controls as they are,
 * C1 controls, 0xA0 and 0xFF become U+FFFD (other escape sequences are not interpreted). */
size_t rjs_rmtes_utf8_len(const uint8_t *s, size_t len);
char *rjs_rmtes_to_utf8(char *out, const uint8_t *s, size_t len);

/* The RMTES form of UTF-8 text s[0..len) into out (len + 3 bytes of room): the Reuters Basic
 * Character Set bytes when every character has one, else ESC % 0 and the UTF-8 text. Returns
 * its length. */
size_t rjs_utf8_to_rmtes(char *out, const char *s, size_t len);

/* 1 when every byte of s[0..len) is printable ASCII (0x20..0x7E): the text needs no conversion
 * and no escape. */
static inline int rjs_is_plain(const uint8_t *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((uint8_t)(s[i] - 0x20) > 0x5E || s[i] == '"' || s[i] == '\\')
            return 0;
    return 1;
}

/* ---- Output of the RWF -> JSON direction -------------------------------------------------- */

typedef struct rjs_w {
    char *p, *end;
    const rjs_conv *c;
    int depth; /* nesting of containers/messages being written */
} rjs_w;

/* Error for a full output buffer: sets err text, returns RWF_E_NOSPACE. */
int rjs_w_full(rjs_w *w);

/* 1 when n bytes fit; else sets the error and returns 0. */
static inline int rjs_room(rjs_w *w, size_t n)
{
    return (size_t)(w->end - w->p) >= n ? 1 : (rjs_w_full(w), 0);
}

/* Appends n bytes (room checked by the caller). */
static inline void rjs_put(rjs_w *w, const char *s, size_t n)
{
    memcpy(w->p, s, n);
    w->p += n;
}

#define RJS_PUTS(w, lit) rjs_put((w), (lit), sizeof(lit) - 1)

/* Checked appends: RWF_OK or RWF_E_NOSPACE. */
int rjs_write(rjs_w *w, const char *s, size_t n);
#define RJS_WRITES(w, lit) rjs_write((w), (lit), sizeof(lit) - 1)

/* Writes the literal ",<rest>" with its leading comma when comma is set, without it else. */
#define rjs_write_sep(w, lit, comma) rjs_write_skip((w), (lit), sizeof(lit) - 1, !(comma))
static inline int rjs_write_skip(rjs_w *w, const char *s, size_t n, int skip)
{
    return rjs_write(w, s + skip, n - (size_t)skip);
}

/* "00" to "99": the decimal forms of 0..99, two bytes each. */
extern const char rjs_digits2[];

/* The number of decimal digits of v (1 to 20). */
static inline unsigned rjs_count_digits(uint64_t v)
{
    unsigned n = 1;
    for (; v >= 10000; v /= 10000)
        n += 4;
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Writes v in decimal at p (room checked by the caller: 20 bytes) and returns the end: the
 * digits counted first, then written from the last, two at a time, straight into place. */
static inline char *rjs_put_u64(char *p, uint64_t v)
{
    char *end = p + rjs_count_digits(v), *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, rjs_digits2 + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(q - 2, rjs_digits2 + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return end;
}

/* Decimal forms (room checked by the caller: 20 / 21 bytes). */
char *rjs_fmt_u64(char *p, uint64_t v);
char *rjs_fmt_i64(char *p, int64_t v);

/* Values (checked): numbers, a JSON string of the bytes s[0..len) with JSON escapes (bytes >=
 * 0x80 copied as they are), a key ("name":), and the name of a value of a table (string) or its
 * number when it has none. */
int rjs_w_u64(rjs_w *w, uint64_t v);
int rjs_w_i64(rjs_w *w, int64_t v);
int rjs_w_str(rjs_w *w, const char *s, size_t len);
int rjs_w_key(rjs_w *w, const char *s, size_t len, int comma);

/* Primitive value of type (standard or set-defined) from its value bytes v (RWF->JSON value
 * rules: blanks null). fid: the field the value belongs to (for ENUM display), 0 otherwise. */
int rjs_w_prim(rjs_w *w, int type, rwf_buf v, int16_t fid);

/* A decoded REAL, QoS, state, post user info. */
int rjs_w_real(rjs_w *w, const rwf_real *r);
int rjs_w_qos(rjs_w *w, const rwf_qos *q);
int rjs_w_state(rjs_w *w, const rwf_state *s);
int rjs_w_buf64(rjs_w *w, const void *data, size_t len);

/* A container of type from its bytes: with its key ("Fields":{...}) when tagged, else only the
 * value ({...}); sets: the set definitions its entries refer to (may be NULL). */
int rjs_w_container(rjs_w *w, int type, rwf_buf data, const rwf_set_db *sets, int tagged);

/* A message (nested: with "ID"). */
int rjs_w_msg(rjs_w *w, rwf_buf data);

/* Containers of messages and entries nest at most this deep. */
#define RJS_MAX_DEPTH 24

#endif
