#include "rjs_tmpl.h"

#include "err.h"
#include "rjs_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The offset of the one place where the digits of d (with its sign) stand in text as a whole
 * number (no digit next to it), or -1 when there is none or more than one. */
static long find_once(const char *text, size_t len, const char *d, size_t dn)
{
    long found = -1;
    for (const char *p = text; (size_t)(p - text) + dn <= len; p++) {
        p = memchr(p, d[0], len - (size_t)(p - text) - dn + 1);
        if (!p)
            break;
        if (memcmp(p, d, dn) != 0)
            continue;
        int before = p > text && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '-');
        int after = (size_t)(p - text) + dn < len && p[dn] >= '0' && p[dn] <= '9';
        if (before || after)
            continue;
        if (found >= 0)
            return -1;
        found = (long)(p - text);
    }
    return found;
}

/* A mark found: its slot and the width of its digits. */
typedef struct cut {
    rjs_tmpl_slot slot;
    uint32_t width;
} cut;

/* Cuts in text order (insertion sort of at most RJS_TMPL_SLOTS). */
static void sort_cuts(cut *c, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && c[j].slot.at < c[j - 1].slot.at; j--) {
            cut x = c[j];
            c[j] = c[j - 1];
            c[j - 1] = x;
        }
}

/* Renders rwf into a buffer of its own (*json, *len), larger until it fits. */
static int render(const rjs_conv *c, rwf_buf rwf, char **json, size_t *len)
{
    size_t cap = rjs_json_size_hint(rwf.len);
    int rc = RWF_E_NOSPACE;
    *json = NULL;
    for (int i = 0; i < 4 && rc == RWF_E_NOSPACE; i++, cap *= 4) {
        free(*json);
        if (!(*json = malloc(cap)))
            return err_set("out of memory for a JSON template"), RWF_E_NOMEM;
        *len = 0;
        rc = rjs_msg_to_json(c, rwf, *json, cap, len);
    }
    if (rc != RWF_OK) {
        free(*json);
        *json = NULL;
    }
    return rc;
}

int rjs_tmpl_build(const rjs_conv *c, rwf_buf rwf, const uint64_t *marks, unsigned n,
                   unsigned sign_mask, rjs_tmpl *t)
{
    memset(t, 0, sizeof(*t));
    if (n > RJS_TMPL_SLOTS)
        return err_set("a JSON template has at most %d values, not %u", RJS_TMPL_SLOTS, n),
               RWF_E_INVALID;
    char *json;
    size_t len;
    int rc = render(c, rwf, &json, &len);
    if (rc != RWF_OK)
        return rc;
    cut cuts[RJS_TMPL_SLOTS];
    uint32_t k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!marks[i])
            continue;
        char d[24];
        unsigned sign = sign_mask >> i & 1;
        char *e = sign ? rjs_fmt_i64(d, (int64_t)marks[i]) : rjs_fmt_u64(d, marks[i]);
        long at = find_once(json, len, d, (size_t)(e - d));
        if (at < 0) {
            free(json);
            err_set("value %u (mark %.*s) does not stand once in the JSON form", i, (int)(e - d),
                    d);
            return RWF_E_NOTFOUND;
        }
        cuts[k].slot =
            (rjs_tmpl_slot){.at = (uint32_t)at, .value = (uint8_t)i, .sign = (uint8_t)sign};
        cuts[k++].width = (uint32_t)(e - d);
    }
    sort_cuts(cuts, k);
    /* The text with the marks' digits taken out, in place. */
    uint32_t removed = 0, from = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t at = cuts[i].slot.at;
        if (at < from) { /* overlapping marks */
            free(json);
            err_set("values overlap in the JSON form");
            return RWF_E_NOTFOUND;
        }
        memmove(json + from - removed, json + from, at - from);
        from = at + cuts[i].width;
        t->slot[i] = cuts[i].slot;
        t->slot[i].at = at - removed;
        removed += cuts[i].width;
    }
    memmove(json + from - removed, json + from, len - from);
    t->text = json;
    t->len = (uint32_t)(len - removed);
    t->n = k;
    return RWF_OK;
}

/* Slot s's value v (an int64_t when the slot is signed) in decimal at p; returns the end. */
static inline char *put_val(char *p, const rjs_tmpl_slot *s, uint64_t v)
{
    if (s->sign && (int64_t)v < 0) {
        *p++ = '-';
        v = (uint64_t)0 - v;
    }
    return rjs_put_u64(p, v);
}

int rjs_tmpl_render(const rjs_tmpl *t, const uint64_t *vals, char *out, size_t cap, size_t *len)
{
    if (cap < rjs_tmpl_max_len(t)) {
        /* the exact length, only when the widest would not fit */
        size_t need = t->len;
        for (uint32_t i = 0; i < t->n; i++) {
            uint64_t v = vals[t->slot[i].value];
            bool neg = t->slot[i].sign && (int64_t)v < 0;
            need += neg + rjs_count_digits(neg ? (uint64_t)0 - v : v);
        }
        if (need > cap)
            return RWF_E_NOSPACE;
    }
    char *p = out;
    uint32_t from = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const rjs_tmpl_slot *s = &t->slot[i];
        uint32_t k = s->at - from;
        /* A short piece (a key before a number) followed by at least 16 bytes of text: 16
         * bytes copied at once, the excess overwritten by what follows and within the output. */
        if (k <= 16 && t->len - from >= 16)
            memcpy(p, t->text + from, 16);
        else
            memcpy(p, t->text + from, k);
        p += k;
        from = s->at;
        p = put_val(p, s, vals[s->value]);
    }
    memcpy(p, t->text + from, t->len - from);
    *len = (size_t)(p - out) + (t->len - from);
    return RWF_OK;
}

void rjs_tmpl_free(rjs_tmpl *t)
{
    free(t->text);
    memset(t, 0, sizeof(*t));
}
