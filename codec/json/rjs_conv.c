/*
 * rjs_conv: the converter object — options, the UTF-8 form of every enum display of the
 * dictionary (RWF->JSON with RJS_ENUM_TEXT), and the reverse index display -> value per enum
 * table (JSON->RWF of ENUM fields given as text). Built once; read-only afterwards. Also the
 * RMTES -> UTF-8 conversion both directions use.
 */
#include <stdlib.h>

#include "rjs_int.h"

/* The upper half of the Reuters Basic Character Set (RMTES's default G1 set): bytes 0xA1..0xFE,
 * where they differ from ISO 8859-1 (every other byte of that range is the Latin-1 character
 * of the same number). */
static const struct {
    uint8_t byte;
    uint16_t code;
} rbcs_diff[] = {
    {0xA4, 0x005F}, {0xA6, 0x005F}, {0xA8, 0x00A4}, {0xAC, 0x215B}, {0xAD, 0x215C}, {0xAE, 0x215D},
    {0xAF, 0x215E}, {0xB4, 0x005F}, {0xB8, 0x2407}, {0xD0, 0x005F}, {0xD7, 0x0152}, {0xDD, 0x0178},
    {0xDE, 0x21E7}, {0xF0, 0x005F}, {0xF7, 0x0153}, {0xFD, 0x00FF}, {0xFE, 0x21E9},
};

/* The code point of RMTES byte b in the default character sets; U+FFFD for bytes outside them
 * (C1 controls, 0xA0, 0xFF); C0 controls and ASCII as they are. */
static uint32_t rmtes_code(uint8_t b)
{
    if (b < 0x80)
        return b;
    if (b < 0xA1 || b == 0xFF)
        return 0xFFFD;
    for (size_t i = 0; i < sizeof(rbcs_diff) / sizeof(rbcs_diff[0]); i++)
        if (rbcs_diff[i].byte == b)
            return rbcs_diff[i].code;
    return b;
}

/* RMTES switches to UTF-8 for the rest of a string with ESC % 0. */
static int utf8_escape(const uint8_t *s, size_t len, size_t i)
{
    return i + 2 < len && s[i] == 0x1B && s[i + 1] == 0x25 && s[i + 2] == 0x30;
}

size_t rjs_rmtes_utf8_len(const uint8_t *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == 0x1B && utf8_escape(s, len, i))
            return n + (len - i - 3);
        uint32_t c = s[i] < 0x80 ? s[i] : rmtes_code(s[i]);
        n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    }
    return n;
}

char *rjs_rmtes_to_utf8(char *out, const uint8_t *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == 0x1B && utf8_escape(s, len, i)) {
            memcpy(out, s + i + 3, len - i - 3);
            return out + (len - i - 3);
        }
        uint32_t c = s[i] < 0x80 ? s[i] : rmtes_code(s[i]);
        if (c < 0x80) {
            *out++ = (char)c;
        } else if (c < 0x800) {
            *out++ = (char)(0xC0 | c >> 6);
            *out++ = (char)(0x80 | (c & 0x3F));
        } else {
            *out++ = (char)(0xE0 | c >> 12);
            *out++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *out++ = (char)(0x80 | (c & 0x3F));
        }
    }
    return out;
}

/* The RBCS byte of code point c, or 0 when the default sets have none. */
static uint8_t rbcs_byte(uint32_t c)
{
    if (c < 0x80)
        return (uint8_t)c;
    for (size_t i = 0; i < sizeof(rbcs_diff) / sizeof(rbcs_diff[0]); i++)
        if (rbcs_diff[i].code == c && c >= 0x80)
            return rbcs_diff[i].byte;
    return c >= 0xA1 && c <= 0xFE && rmtes_code((uint8_t)c) == c ? (uint8_t)c : 0;
}

/* The next code point of UTF-8 text at *p (advanced), or -1 for a bad sequence. */
static int32_t next_utf8(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *q = *p;
    uint32_t c = *q++;
    int more = c < 0x80                ? 0
               : c >= 0xC2 && c < 0xE0 ? 1
               : c >= 0xE0 && c < 0xF0 ? 2
               : c >= 0xF0 && c < 0xF5 ? 3
                                       : -1;
    if (more < 0 || end - q < more)
        return -1;
    c &= more ? 0x3F >> more : 0x7F;
    for (int k = 0; k < more; k++, q++) {
        if ((*q & 0xC0) != 0x80)
            return -1;
        c = c << 6 | (*q & 0x3F);
    }
    *p = q;
    return (int32_t)c;
}

size_t rjs_utf8_to_rmtes(char *out, const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    char *o = out;
    while (p < end) {
        int32_t c = next_utf8(&p, end);
        uint8_t b = c < 0 ? 0 : rbcs_byte((uint32_t)c);
        if (!b && c != 0) { /* not in the default sets: the text as UTF-8 */
            memcpy(out, "\x1B\x25\x30", 3);
            memcpy(out + 3, s, len);
            return len + 3;
        }
        *o++ = (char)b;
    }
    return (size_t)(o - out);
}

static uint32_t hash_text(uint32_t table, const char *s, size_t len)
{
    uint32_t h = 2166136261u ^ table;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* Index position of (table, text) in c->rev: the slot holding it, or the empty slot where it
 * belongs. */
static uint32_t rev_slot(const rjs_conv *c, uint32_t table, const char *s, size_t len)
{
    uint32_t mask = c->rev_cap - 1, h = hash_text(table, s, len) & mask;
    while (c->rev[h].table && !(c->rev[h].table == table && c->rev[h].text.len == len &&
                                (len == 0 || memcmp(c->rev[h].text.data, s, len) == 0)))
        h = (h + 1) & mask;
    return h;
}

/* Builds display[] and rev[] from the dictionary's enum tables. */
static int build_enums(rjs_conv *c)
{
    const rwf_dict *d = c->dict;
    size_t values = 0, bytes = 0;
    for (uint32_t t = 0; t < d->table_count; t++) {
        values += d->tables[t].count;
        for (uint32_t i = 0; i < d->tables[t].count; i++) {
            rwf_buf disp = d->tables[t].values[i].display;
            bytes += rjs_rmtes_utf8_len((const uint8_t *)disp.data, disp.len);
        }
    }
    c->rev_cap = 16;
    while (c->rev_cap < values * 2)
        c->rev_cap *= 2;
    c->display = calloc(d->table_count ? d->table_count : 1, sizeof(*c->display));
    c->rev = calloc(c->rev_cap, sizeof(*c->rev));
    c->arena = malloc(bytes + values * sizeof(rwf_buf) + 1);
    if (!c->display || !c->rev || !c->arena)
        return err_set("JSON converter: out of memory for %zu enum values", values);
    rwf_buf *slots = (rwf_buf *)(void *)c->arena;
    char *text = c->arena + values * sizeof(rwf_buf);
    for (uint32_t t = 0; t < d->table_count; t++) {
        const rwf_enum_table *tab = &d->tables[t];
        c->display[t] = slots;
        for (uint32_t i = 0; i < tab->count; i++) {
            rwf_buf disp = tab->values[i].display;
            char *end = rjs_rmtes_to_utf8(text, (const uint8_t *)disp.data, disp.len);
            slots[i] = rwf_buf_make(text, (size_t)(end - text));
            text = end;
            uint32_t h = rev_slot(c, t + 1, slots[i].data, slots[i].len);
            if (!c->rev[h].table) { /* the first value with a text keeps it */
                c->rev[h].table = t + 1;
                c->rev[h].value = tab->values[i].value;
                c->rev[h].text = slots[i];
            }
        }
        slots += tab->count;
    }
    return 0;
}

rjs_conv *rjs_conv_new(const rwf_dict *dict, const rjs_opts *opts)
{
    rjs_conv *c = calloc(1, sizeof(*c));
    if (!c) {
        err_set("JSON converter: out of memory");
        return NULL;
    }
    c->dict = dict;
    if (opts)
        c->opts = *opts;
    if (build_enums(c) < 0 || rjs_fname_build(c) < 0) {
        rjs_conv_free(c);
        return NULL;
    }
    return c;
}

void rjs_conv_free(rjs_conv *c)
{
    if (!c)
        return;
    free(c->display);
    free(c->rev);
    free(c->arena);
    free(c->fname);
    free(c);
}

const rjs_opts *rjs_conv_opts(const rjs_conv *c)
{
    return &c->opts;
}

const rwf_buf *rjs_enum_text(const rjs_conv *c, int16_t fid, uint16_t v)
{
    const rwf_dict *d = c->dict;
    unsigned ti = d->enum_at[rwf_dict_slot(fid)];
    if (!ti)
        return NULL;
    const rwf_enum_table *t = &d->tables[ti - 1];
    const rwf_enum_value *e = rwf_enum_find(t, v);
    return e ? &c->display[ti - 1][e - t->values] : NULL;
}

int rjs_enum_value(const rjs_conv *c, int16_t fid, const char *s, size_t len, uint16_t *v)
{
    unsigned ti = c->dict->enum_at[rwf_dict_slot(fid)];
    if (!ti)
        return -1;
    uint32_t h = rev_slot(c, ti, s, len);
    if (!c->rev[h].table)
        return -1;
    *v = c->rev[h].value;
    return 0;
}
