/*
 * rjs_fname: the converter's index of field names (dictionary acronyms) for JSON -> RWF, where
 * every field of every message is looked up by name. The hash reads a name as two 8-byte words
 * (zero-padded) when it can, instead of byte by byte, and the slots keep the hash, so that a
 * miss costs no string compare.
 */
#include <stdlib.h>

#include "rjs_int.h"

/* The first 16 bytes of s[0..len) as two little-endian words, zero-padded: with avail >= 16
 * readable bytes at s, by two loads and masks; else byte by byte (the same values). */
static void name_words(const char *s, size_t len, size_t avail, uint64_t *a, uint64_t *b)
{
    size_t n = len < 16 ? len : 16;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (avail >= 16) {
        memcpy(a, s, 8);
        memcpy(b, s + 8, 8);
        if (n < 8) {
            *a &= n ? ~(uint64_t)0 >> (64 - 8 * n) : 0;
            *b = 0;
        } else if (n < 16) {
            *b &= n > 8 ? ~(uint64_t)0 >> (128 - 8 * n) : 0;
        }
        return;
    }
#endif
    (void)avail;
    *a = *b = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t byte = (uint64_t)(uint8_t)s[i];
        if (i < 8)
            *a |= byte << (8 * i);
        else
            *b |= byte << (8 * (i - 8));
    }
}

static uint32_t name_hash(const char *s, size_t len, uint64_t a, uint64_t b)
{
    uint64_t h = (a * 0x9E3779B97F4A7C15u) ^ (b * 0xC2B2AE3D27D4EB4Fu) ^ len;
    for (size_t i = 16; i < len; i++) /* long names: the rest byte by byte */
        h = (h ^ (uint8_t)s[i]) * 0x100000001B3u;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 32;
    return (uint32_t)h | 1; /* never 0: 0 marks an empty slot */
}

int rjs_fname_build(rjs_conv *c)
{
    const rwf_dict *d = c->dict;
    uint32_t cap = 64;
    while (cap < 2 * d->field_count)
        cap *= 2;
    c->fname = calloc(cap, sizeof(*c->fname));
    if (!c->fname) {
        err_set("JSON converter: out of memory");
        return RWF_E_NOMEM;
    }
    c->fname_cap = cap;
    for (uint32_t i = 0; i < d->field_count; i++) {
        rwf_buf n = d->fields[i].acronym;
        uint64_t a, b;
        name_words((const char *)n.data, n.len, 0, &a, &b);
        uint32_t h = name_hash((const char *)n.data, n.len, a, b), at = h & (cap - 1);
        for (;; at = (at + 1) & (cap - 1)) {
            rjs_fname_slot *s = &c->fname[at];
            if (!s->hash) {
                *s = (rjs_fname_slot){a, b, h, i};
                break;
            }
            if (s->hash == h && rwf_buf_eq(d->fields[s->index].acronym, n))
                break; /* the first definition of an acronym wins */
        }
    }
    return RWF_OK;
}

const rwf_dict_field *rjs_field_by_name(const rjs_conv *c, const char *s, size_t len, size_t avail)
{
    uint64_t a, b;
    name_words(s, len, avail, &a, &b);
    uint32_t h = name_hash(s, len, a, b), mask = c->fname_cap - 1;
    for (uint32_t at = h & mask;; at = (at + 1) & mask) {
        const rjs_fname_slot *slot = &c->fname[at];
        if (!slot->hash)
            return NULL;
        if (slot->hash != h || slot->a != a || slot->b != b)
            continue;
        /* the first 16 bytes agree: a name of up to 16 bytes is found when the length is the
         * same (a shorter name is zero-padded, and names hold no NUL) */
        const rwf_dict_field *f = &c->dict->fields[slot->index];
        if (f->acronym.len == len &&
            (len <= 16 || memcmp(f->acronym.data + 16, s + 16, len - 16) == 0))
            return f;
    }
}
