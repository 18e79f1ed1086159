/*
 * rwf_dict: dictionary files — parsing, storage, lookups.
 *
 * Files are read whole into arena memory and parsed in place; fields and enum values keep
 * views into that memory. The arena is a list of chunks freed with the dictionary.
 */
#include "rwf_dict.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "err.h"

/* ---- Arena ------------------------------------------------------------------------------- */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

#define CHUNK_SIZE (64 * 1024)

static void *arena_alloc(rwf_dict *d, size_t n, size_t align)
{
    chunk *c = d->arena;
    size_t off = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || off + n > c->cap) {
        size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;
        chunk *nc = malloc(sizeof(chunk) + cap);
        if (!nc)
            return NULL;
        nc->cap = cap;
        nc->used = 0;
        if (c && n > CHUNK_SIZE) { /* a big block: keep filling the current chunk after it */
            nc->next = c->next;
            c->next = nc;
            nc->used = n;
            return nc->data;
        }
        nc->next = c;
        d->arena = c = nc;
        off = 0;
    }
    c->used = off + n;
    return c->data + off;
}

rwf_buf rwf_dict_strdup(rwf_dict *d, rwf_buf text)
{
    char *p = arena_alloc(d, (size_t)text.len + 1, 1);
    if (!p)
        return rwf_buf_make(NULL, 0);
    if (text.len)
        memcpy(p, text.data, text.len);
    p[text.len] = '\0';
    return rwf_buf_make(p, text.len);
}

rwf_dict *rwf_dict_new(void)
{
    rwf_dict *d = calloc(1, sizeof(*d));
    if (!d) {
        err_set("out of memory for a dictionary");
        return NULL;
    }
    d->min_fid = 32767;
    d->max_fid = -32768;
    return d;
}

void rwf_dict_free(rwf_dict *d)
{
    if (!d)
        return;
    chunk *c = d->arena;
    while (c) {
        chunk *n = c->next;
        free(c);
        c = n;
    }
    free(d->fields);
    free(d->tables);
    free(d->name_hash);
    free(d);
}

/* ---- Names ------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    int type;
} rwf_type_names[] = {
    {"INT32", RWF_DT_INT},
    {"UINT32", RWF_DT_UINT},
    {"INT64", RWF_DT_INT},
    {"UINT64", RWF_DT_UINT},
    {"UINT", RWF_DT_UINT},
    {"INT", RWF_DT_INT},
    {"REAL", RWF_DT_REAL},
    {"FLOAT", RWF_DT_FLOAT},
    {"DOUBLE", RWF_DT_DOUBLE},
    {"REAL32", RWF_DT_REAL},
    {"REAL64", RWF_DT_REAL},
    {"DATE", RWF_DT_DATE},
    {"TIME", RWF_DT_TIME},
    {"DATETIME", RWF_DT_DATETIME},
    {"DATE_TIME", RWF_DT_DATETIME},
    {"QOS", RWF_DT_QOS},
    {"STATE", RWF_DT_STATE},
    {"STATUS", RWF_DT_STATE},
    {"ENUM", RWF_DT_ENUM},
    {"ARRAY", RWF_DT_ARRAY},
    {"BUFFER", RWF_DT_BUFFER},
    {"ASCII_STRING", RWF_DT_ASCII_STRING},
    {"UTF8_STRING", RWF_DT_UTF8_STRING},
    {"RMTES_STRING", RWF_DT_RMTES_STRING},
    {"VECTOR", RWF_DT_VECTOR},
    {"MAP", RWF_DT_MAP},
    {"SERIES", RWF_DT_SERIES},
    {"FIELD_LIST", RWF_DT_FIELD_LIST},
    {"FILTER_LIST", RWF_DT_FILTER_LIST},
    {"ELEMENT_LIST", RWF_DT_ELEMENT_LIST},
    {"ELEM_LIST", RWF_DT_ELEMENT_LIST},
    {"XML", RWF_DT_XML},
    {"ANSI_PAGE", RWF_DT_ANSI_PAGE},
    {"OPAQUE", RWF_DT_OPAQUE},
    {"MSG", RWF_DT_MSG},
    {"JSON", RWF_DT_JSON},
};

static int token_is(const char *p, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(p, s, len) == 0;
}

int rwf_dict_rwf_type_from_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(rwf_type_names) / sizeof(rwf_type_names[0]); i++)
        if (token_is(name, len, rwf_type_names[i].name))
            return rwf_type_names[i].type;
    return -1;
}

const char *rwf_dict_rwf_type_name(int type)
{
    switch (type) {
    case RWF_DT_INT:
        return "INT64";
    case RWF_DT_UINT:
        return "UINT64";
    case RWF_DT_REAL:
        return "REAL64";
    default:
        for (size_t i = 0; i < sizeof(rwf_type_names) / sizeof(rwf_type_names[0]); i++)
            if (rwf_type_names[i].type == type)
                return rwf_type_names[i].name;
        return NULL;
    }
}

static const char *const mf_names[] = {"TIME_SECONDS", "INTEGER",           "NUMERIC",    "DATE",
                                       "PRICE",        "ALPHANUMERIC",      "ENUMERATED", "TIME",
                                       "BINARY",       "LONG_ALPHANUMERIC", "OPAQUE"};

int rwf_dict_mf_type_from_name(const char *name, size_t len)
{
    if (token_is(name, len, "NONE"))
        return RWF_MF_NONE;
    if (token_is(name, len, "ALPHANUM_XTND"))
        return RWF_MF_LONG_ALPHANUMERIC;
    for (int i = 0; i <= RWF_MF_OPAQUE; i++)
        if (token_is(name, len, mf_names[i]))
            return i;
    return -2;
}

const char *rwf_dict_mf_type_name(int mf_type)
{
    if (mf_type == RWF_MF_NONE)
        return "NONE";
    return (mf_type >= 0 && mf_type <= RWF_MF_OPAQUE) ? mf_names[mf_type] : NULL;
}

/* ---- Name index -------------------------------------------------------------------------- */

static uint32_t hash_name(rwf_buf s)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < s.len; i++)
        h = (h ^ (uint8_t)s.data[i]) * 16777619u;
    return h;
}

/* Inserts field index i (first definition of an acronym wins). */
static void name_insert(rwf_dict *d, uint32_t i)
{
    uint32_t mask = d->name_hash_cap - 1, h = hash_name(d->fields[i].acronym) & mask;
    while (d->name_hash[h]) {
        if (rwf_buf_eq(d->fields[d->name_hash[h] - 1].acronym, d->fields[i].acronym))
            return;
        h = (h + 1) & mask;
    }
    d->name_hash[h] = i + 1;
}

/* Keeps the name index at most half full. */
static int name_reserve(rwf_dict *d, uint32_t count)
{
    if (count * 2 < d->name_hash_cap)
        return RWF_OK;
    uint32_t cap = d->name_hash_cap ? d->name_hash_cap : 1024;
    while (count * 2 >= cap)
        cap *= 2;
    uint32_t *h = calloc(cap, sizeof(uint32_t));
    if (!h) {
        err_set("out of memory for the dictionary name index");
        return RWF_E_NOMEM;
    }
    free(d->name_hash);
    d->name_hash = h;
    d->name_hash_cap = cap;
    for (uint32_t i = 0; i < d->field_count; i++)
        name_insert(d, i);
    return RWF_OK;
}

const rwf_dict_field *rwf_dict_field_by_name(const rwf_dict *d, rwf_buf acronym)
{
    if (!d->name_hash_cap)
        return NULL;
    uint32_t mask = d->name_hash_cap - 1, h = hash_name(acronym) & mask;
    while (d->name_hash[h]) {
        const rwf_dict_field *f = &d->fields[d->name_hash[h] - 1];
        if (rwf_buf_eq(f->acronym, acronym))
            return f;
        h = (h + 1) & mask;
    }
    return NULL;
}

/* ---- Adding ------------------------------------------------------------------------------ */

/* The acronym an enum table gives fid, or an empty view. */
static rwf_buf table_acronym(const rwf_enum_table *t, int16_t fid)
{
    for (uint32_t i = 0; i < t->fid_count; i++)
        if (t->fids[i] == fid && t->acronyms)
            return t->acronyms[i];
    return rwf_buf_make(NULL, 0);
}

/* Adds f (views kept as given). */
static int add_field(rwf_dict *d, const rwf_dict_field *f)
{
    unsigned slot = rwf_dict_slot(f->fid);
    if (f->fid == 0) {
        err_set("fid 0 is reserved");
        return RWF_E_INVALID;
    }
    if (f->rwf_type == RWF_DT_UNKNOWN) {
        err_set("fid %d has no RWF type", f->fid);
        return RWF_E_INVALID;
    }
    if (d->field_at[slot]) {
        err_set("fid %d is defined twice (first as %.*s)", f->fid,
                (int)d->fields[d->field_at[slot] - 1].acronym.len,
                d->fields[d->field_at[slot] - 1].acronym.data);
        return RWF_E_INVALID;
    }
    if (d->enum_at[slot]) {
        rwf_buf a = table_acronym(&d->tables[d->enum_at[slot] - 1], f->fid);
        if (a.len && !rwf_buf_eq(a, f->acronym)) {
            err_set("fid %d is %.*s here but %.*s in the enum tables", f->fid, (int)f->acronym.len,
                    f->acronym.data, (int)a.len, a.data);
            return RWF_E_INVALID;
        }
    }
    if (d->field_count == d->field_cap) {
        uint32_t cap = d->field_cap ? d->field_cap * 2 : 4096;
        rwf_dict_field *nf = realloc(d->fields, cap * sizeof(*nf));
        if (!nf) {
            err_set("out of memory for dictionary fields");
            return RWF_E_NOMEM;
        }
        d->fields = nf;
        d->field_cap = cap;
    }
    int r = name_reserve(d, d->field_count + 1);
    if (r < 0)
        return r;
    d->fields[d->field_count] = *f;
    name_insert(d, d->field_count);
    d->field_count++;
    d->field_at[slot] = (uint16_t)d->field_count;
    d->type_of[slot] = f->rwf_type;
    if (f->fid < d->min_fid)
        d->min_fid = f->fid;
    if (f->fid > d->max_fid)
        d->max_fid = f->fid;
    return RWF_OK;
}

int rwf_dict_add_field(rwf_dict *d, const rwf_dict_field *f)
{
    rwf_dict_field c = *f;
    c.acronym = rwf_dict_strdup(d, f->acronym);
    c.dde_acronym = rwf_dict_strdup(d, f->dde_acronym);
    if ((f->acronym.len && !c.acronym.data) || (f->dde_acronym.len && !c.dde_acronym.data)) {
        err_set("out of memory for a dictionary field");
        return RWF_E_NOMEM;
    }
    return add_field(d, &c);
}

static int cmp_enum(const void *a, const void *b)
{
    const rwf_enum_value *x = a, *y = b;
    return (int)x->value - (int)y->value;
}

/* Adds a table; values/fids/acronyms are copied into the arena (strings are not). */
static int add_table(rwf_dict *d, const int16_t *fids, const rwf_buf *acronyms, uint32_t fid_count,
                     const rwf_enum_value *values, uint32_t count)
{
    if (!fid_count) {
        err_set("enum table without referencing fields");
        return RWF_E_INVALID;
    }
    if (d->table_count >= 0xFFFF) {
        err_set("more than 65535 enum tables");
        return RWF_E_INVALID;
    }
    for (uint32_t i = 0; i < fid_count; i++) {
        unsigned slot = rwf_dict_slot(fids[i]);
        if (d->enum_at[slot]) {
            err_set("fid %d refers to two enum tables", fids[i]);
            return RWF_E_INVALID;
        }
        const rwf_dict_field *f = rwf_dict_field_by_fid(d, fids[i]);
        if (f && acronyms && acronyms[i].len && !rwf_buf_eq(f->acronym, acronyms[i])) {
            err_set("fid %d is %.*s in the enum tables but %.*s in the field dictionary", fids[i],
                    (int)acronyms[i].len, acronyms[i].data, (int)f->acronym.len, f->acronym.data);
            return RWF_E_INVALID;
        }
    }
    rwf_enum_value *v = arena_alloc(d, (count ? count : 1) * sizeof(*v), 8);
    int16_t *tf = arena_alloc(d, fid_count * sizeof(*tf), 2);
    rwf_buf *ta = acronyms ? arena_alloc(d, fid_count * sizeof(*ta), 8) : NULL;
    if (!v || !tf || (acronyms && !ta)) {
        err_set("out of memory for an enum table");
        return RWF_E_NOMEM;
    }
    memcpy(v, values, count * sizeof(*v));
    memcpy(tf, fids, fid_count * sizeof(*tf));
    if (ta)
        memcpy(ta, acronyms, fid_count * sizeof(*ta));
    qsort(v, count, sizeof(*v), cmp_enum);
    uint16_t max = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (i && v[i].value == v[i - 1].value) {
            err_set("enum table of fid %d has value %u twice", fids[0], v[i].value);
            return RWF_E_INVALID;
        }
        max = v[i].value;
    }
    uint16_t *direct = NULL;
    /* direct holds index + 1 in 16 bits: a table of 65535 values or more is searched */
    if ((uint32_t)max + 1 <= 4 * count + 256 && count < 0xFFFF) {
        direct = arena_alloc(d, ((size_t)max + 1) * sizeof(uint16_t), 2);
        if (!direct) {
            err_set("out of memory for an enum table");
            return RWF_E_NOMEM;
        }
        memset(direct, 0, ((size_t)max + 1) * sizeof(uint16_t));
        for (uint32_t i = 0; i < count; i++)
            direct[v[i].value] = (uint16_t)(i + 1);
    }
    if (d->table_count == d->table_cap) {
        uint32_t cap = d->table_cap ? d->table_cap * 2 : 256;
        rwf_enum_table *nt = realloc(d->tables, cap * sizeof(*nt));
        if (!nt) {
            err_set("out of memory for enum tables");
            return RWF_E_NOMEM;
        }
        d->tables = nt;
        d->table_cap = cap;
    }
    rwf_enum_table *t = &d->tables[d->table_count++];
    t->values = v;
    t->count = count;
    t->max_value = max;
    t->direct = direct;
    t->fids = tf;
    t->acronyms = ta;
    t->fid_count = fid_count;
    for (uint32_t i = 0; i < fid_count; i++)
        d->enum_at[rwf_dict_slot(fids[i])] = (uint16_t)d->table_count;
    return RWF_OK;
}

int rwf_dict_add_enum_table(rwf_dict *d, const int16_t *fids, const rwf_buf *acronyms,
                            uint32_t fid_count, const rwf_enum_value *values, uint32_t count)
{
    rwf_enum_value *v = malloc((count ? count : 1) * sizeof(*v));
    rwf_buf *a = acronyms ? malloc(fid_count * sizeof(*a)) : NULL;
    int r = RWF_E_NOMEM;
    if (!v || (acronyms && !a)) {
        err_set("out of memory for an enum table");
        goto out;
    }
    for (uint32_t i = 0; i < count; i++) {
        v[i].value = values[i].value;
        v[i].display = rwf_dict_strdup(d, values[i].display);
        v[i].meaning = rwf_dict_strdup(d, values[i].meaning);
    }
    for (uint32_t i = 0; acronyms && i < fid_count; i++)
        a[i] = rwf_dict_strdup(d, acronyms[i]);
    r = add_table(d, fids, a, fid_count, v, count);
out:
    free(v);
    free(a);
    return r;
}

const rwf_enum_value *rwf_enum_find_slow(const rwf_enum_table *t, uint16_t value)
{
    uint32_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (t->values[mid].value < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < t->count && t->values[lo].value == value) ? &t->values[lo] : NULL;
}

/* ---- Parsing ----------------------------------------------------------------------------- */

typedef struct line_reader {
    const char *name;
    const char *p, *end; /* rest of the text */
    const char *lp, *le; /* current line, without \r\n */
    unsigned lineno;
} line_reader;

static int next_line(line_reader *r)
{
    if (r->p >= r->end)
        return 0;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    r->lp = r->p;
    r->le = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    while (r->le > r->lp && (r->le[-1] == '\r'))
        r->le--;
    r->lineno++;
    return 1;
}

static int line_err(const line_reader *r, int code, const char *fmt, ...) ERR_PRINTF(3, 4);

static int line_err(const line_reader *r, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    err_set("%s:%u: %s", r->name, r->lineno, msg);
    return code;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Next whitespace-separated token of [*pp, e) that does not start with a quote. Returns its
 * length (0 = end of line or a quote comes first, *quote set). */
static size_t token(const char **pp, const char *e, const char **tok, int *quote)
{
    const char *p = *pp;
    while (p < e && is_space(*p))
        p++;
    *tok = p;
    *quote = p < e && *p == '"';
    while (p < e && !is_space(*p) && *p != '"')
        p++;
    *pp = p;
    return (size_t)(p - *tok);
}

/* A token delimited by delim ('"' or '#'); returns 1 and the inside, 0 when absent/unclosed. */
static int delimited(const char **pp, const char *e, char delim, rwf_buf *out)
{
    const char *p = *pp;
    while (p < e && is_space(*p))
        p++;
    if (p >= e || *p != delim)
        return 0;
    const char *s = ++p;
    while (p < e && *p != delim)
        p++;
    if (p >= e)
        return 0;
    *out = rwf_buf_make(s, (size_t)(p - s));
    *pp = p + 1;
    return 1;
}

/* A whole-token decimal integer in [lo, hi]. */
static int token_int(const char *t, size_t n, long lo, long hi, long *v)
{
    size_t i = 0;
    int neg = 0;
    long x = 0;
    if (n && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        i = 1;
    }
    if (i == n)
        return 0;
    for (; i < n; i++) {
        if (t[i] < '0' || t[i] > '9' || x > 1000000000L)
            return 0;
        x = x * 10 + (t[i] - '0');
    }
    x = neg ? -x : x;
    if (x < lo || x > hi)
        return 0;
    *v = x;
    return 1;
}

/* The rest of the line after leading and before trailing whitespace. */
static rwf_buf rest_of_line(const char *p, const char *e)
{
    while (p < e && is_space(*p))
        p++;
    while (e > p && is_space(e[-1]))
        e--;
    return rwf_buf_make(p, (size_t)(e - p));
}

/* "!tag Name value" lines; other '!' lines are comments. */
static int tag_line(rwf_dict *d, line_reader *r, int enums)
{
    const char *p = r->lp + 1, *t;
    int q;
    size_t n = token(&p, r->le, &t, &q);
    if (!token_is(t, n, "tag"))
        return RWF_OK;
    n = token(&p, r->le, &t, &q);
    if (!n)
        return RWF_OK;
    rwf_buf v = rest_of_line(p, r->le);
    rwf_dict_info *in = &d->info;
    if (token_is(t, n, "DictionaryId")) {
        long id;
        if (!token_int(v.data, v.len, -32768, 32767, &id))
            return line_err(r, RWF_E_MALFORMED, "DictionaryId '%.*s' is not an integer", (int)v.len,
                            v.data);
        if (id && in->dictionary_id && id != in->dictionary_id)
            return line_err(r, RWF_E_MALFORMED, "DictionaryId %ld differs from %d found before", id,
                            in->dictionary_id);
        if (id)
            in->dictionary_id = (int)id;
    } else if (token_is(t, n, "Type")) {
        long ty;
        if (!token_int(v.data, v.len, 0, 255, &ty) || ty != (enums ? 2 : 1))
            return line_err(r, RWF_E_MALFORMED, "Type '%.*s' says this is not %s", (int)v.len,
                            v.data, enums ? "an enum type file (2)" : "a field dictionary (1)");
    } else if (token_is(t, n, "Filename")) {
        *(enums ? &in->enum_filename : &in->field_filename) = v;
    } else if (token_is(t, n, "Desc")) {
        *(enums ? &in->enum_desc : &in->field_desc) = v;
    } else if (token_is(t, n, "Date")) {
        *(enums ? &in->enum_date : &in->field_date) = v;
    } else if (!enums && token_is(t, n, "Version")) {
        in->field_version = v;
    } else if (!enums && token_is(t, n, "Build")) {
        in->field_build = v;
    } else if (enums && token_is(t, n, "RT_Version")) {
        in->enum_rt_version = v;
    } else if (enums && token_is(t, n, "DT_Version")) {
        in->enum_dt_version = v;
    }
    return RWF_OK;
}

/* Ripple-to acronyms of the fields added by one load, resolved at its end. */
typedef struct ripple {
    int16_t fid;
    rwf_buf acronym;
} ripple;

static int field_line(rwf_dict *d, line_reader *r, ripple **rip, size_t *nrip, size_t *caprip)
{
    const char *p = r->lp, *t;
    int q;
    long v;
    size_t n;
    rwf_dict_field f;
    memset(&f, 0, sizeof(f));

    n = token(&p, r->le, &t, &q);
    if (!n) {
        if (q)
            return line_err(r, RWF_E_MALFORMED, "missing acronym before the DDE acronym");
        return RWF_OK; /* blank line */
    }
    f.acronym = rwf_buf_make(t, n);
    if (!delimited(&p, r->le, '"', &f.dde_acronym))
        return line_err(r, RWF_E_MALFORMED, "%.*s: missing DDE acronym in double quotes",
                        (int)f.acronym.len, f.acronym.data);
    n = token(&p, r->le, &t, &q);
    if (!n)
        return line_err(r, RWF_E_MALFORMED, "%.*s: missing fid", (int)f.acronym.len,
                        f.acronym.data);
    if (!token_int(t, n, -32768, 32767, &v) || v == 0)
        return line_err(r, RWF_E_MALFORMED,
                        "%.*s: fid '%.*s' is not an integer in -32768..32767 "
                        "other than 0",
                        (int)f.acronym.len, f.acronym.data, (int)n, t);
    f.fid = (int16_t)v;
    n = token(&p, r->le, &t, &q);
    if (!n)
        return line_err(r, RWF_E_MALFORMED, "fid %d: missing ripples-to field", f.fid);
    rwf_buf ripple_to = rwf_buf_make(t, n);
    n = token(&p, r->le, &t, &q);
    if (!n)
        return line_err(r, RWF_E_MALFORMED, "fid %d: missing field type", f.fid);
    int mf = rwf_dict_mf_type_from_name(t, n);
    if (mf < RWF_MF_NONE)
        return line_err(r, RWF_E_MALFORMED, "fid %d: unknown field type '%.*s'", f.fid, (int)n, t);
    f.mf_type = (int8_t)mf;
    n = token(&p, r->le, &t, &q);
    if (!n || !token_int(t, n, 0, 65535, &v))
        return line_err(r, RWF_E_MALFORMED, "fid %d: length '%.*s' is not an integer in 0..65535",
                        f.fid, (int)n, t);
    f.length = (uint16_t)v;
    n = token(&p, r->le, &t, &q);
    if (n && t[0] == '(') { /* "( n )", also accepted as "(n)" or "( n)" */
        const char *num = t + 1;
        size_t nn = n - 1;
        if (nn == 0)
            nn = token(&p, r->le, &num, &q);
        int closed = nn && num[nn - 1] == ')';
        if (closed)
            nn--;
        if (!nn || !token_int(num, nn, 0, 255, &v))
            return line_err(r, RWF_E_MALFORMED,
                            "fid %d: enum length '%.*s' is not an integer "
                            "in 0..255",
                            f.fid, (int)nn, num);
        f.enum_length = (uint8_t)v;
        if (!closed) {
            n = token(&p, r->le, &t, &q);
            if (n != 1 || t[0] != ')')
                return line_err(r, RWF_E_MALFORMED, "fid %d: no ')' after the enum length", f.fid);
        }
        n = token(&p, r->le, &t, &q);
    }
    if (!n)
        return line_err(r, RWF_E_MALFORMED, "fid %d: missing RWF type", f.fid);
    int rt = rwf_dict_rwf_type_from_name(t, n);
    if (rt < 0)
        return line_err(r, RWF_E_MALFORMED, "fid %d: unknown RWF type '%.*s'", f.fid, (int)n, t);
    f.rwf_type = (uint8_t)rt;
    n = token(&p, r->le, &t, &q);
    if (!n || !token_int(t, n, 0, 65535, &v))
        return line_err(r, RWF_E_MALFORMED,
                        "fid %d: RWF length '%.*s' is not an integer in 0..65535", f.fid, (int)n,
                        t);
    f.rwf_len = (uint16_t)v;
    n = token(&p, r->le, &t, &q);
    if (n || q)
        return line_err(r, RWF_E_MALFORMED, "fid %d: unexpected '%.*s' after the RWF length", f.fid,
                        (int)(n ? n : 1), t);
    int rc = add_field(d, &f);
    if (rc < 0)
        return err_push("%s:%u", r->name, r->lineno), rc;
    if (!token_is(ripple_to.data, ripple_to.len, "NULL")) {
        if (*nrip == *caprip) {
            size_t cap = *caprip ? *caprip * 2 : 1024;
            ripple *nr = realloc(*rip, cap * sizeof(*nr));
            if (!nr)
                return line_err(r, RWF_E_NOMEM, "out of memory");
            *rip = nr;
            *caprip = cap;
        }
        (*rip)[(*nrip)++] = (ripple){f.fid, ripple_to};
    }
    return RWF_OK;
}

/* Reads path whole into a new arena block (NUL-terminated). */
static int read_file(rwf_dict *d, const char *path, const char **text, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp)
        return err_set_errno(errno, "%s: cannot open", path), RWF_E_IO;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        err_set("%s: not a regular file", path);
        return RWF_E_IO;
    }
    size_t size = (size_t)st.st_size;
    char *buf = arena_alloc(d, size + 1, 1);
    if (!buf) {
        fclose(fp);
        err_set("%s: out of memory for %zu bytes", path, size);
        return RWF_E_NOMEM;
    }
    size_t got = fread(buf, 1, size, fp);
    int rerr = ferror(fp);
    fclose(fp);
    if (got != size || rerr) {
        err_set("%s: read %zu of %zu bytes", path, got, size);
        return RWF_E_IO;
    }
    buf[size] = '\0';
    *text = buf;
    *len = size;
    return RWF_OK;
}

static int parse_fields(rwf_dict *d, const char *name, const char *text, size_t len)
{
    line_reader r = {name, text, text + len, NULL, NULL, 0};
    ripple *rip = NULL;
    size_t nrip = 0, caprip = 0;
    int rc = RWF_OK;

    while (next_line(&r)) {
        if (r.lp < r.le && r.lp[0] == '!')
            rc = tag_line(d, &r, 0);
        else
            rc = field_line(d, &r, &rip, &nrip, &caprip);
        if (rc < 0)
            break;
    }
    if (rc == RWF_OK && !d->info.field_version.len)
        d->info.field_version = RWF_STR("");
    for (size_t i = 0; rc == RWF_OK && i < nrip; i++) {
        const rwf_dict_field *to = rwf_dict_field_by_name(d, rip[i].acronym);
        if (to)
            d->fields[d->field_at[rwf_dict_slot(rip[i].fid)] - 1].ripple_to = to->fid;
    }
    free(rip);
    return rc;
}

int rwf_dict_parse_fields(rwf_dict *d, const char *name, const char *text, size_t len)
{
    if (len >= UINT32_MAX) { /* a view's length is 32 bits: the copy would be cut short */
        err_set("%s: %zu bytes is too large for a dictionary", name, len);
        return RWF_E_INVALID;
    }
    rwf_buf copy = rwf_dict_strdup(d, rwf_buf_make(text, len));
    if (len && !copy.data) {
        err_set("%s: out of memory", name);
        return RWF_E_NOMEM;
    }
    return parse_fields(d, name, copy.data ? copy.data : "", len);
}

int rwf_dict_load_fields(rwf_dict *d, const char *path)
{
    const char *text;
    size_t len;
    int rc = read_file(d, path, &text, &len);
    return rc < 0 ? rc : parse_fields(d, path, text, len);
}

/* Growable scratch arrays used while reading one enum table. */
typedef struct enum_scratch {
    int16_t *fids;
    rwf_buf *acronyms;
    uint32_t nfids, capfids;
    rwf_enum_value *values;
    uint32_t nvalues, capvalues;
    unsigned first_line;
} enum_scratch;

static int grow(void **p, uint32_t *cap, size_t size)
{
    uint32_t ncap = *cap ? *cap * 2 : 64;
    void *np = realloc(*p, ncap * size);
    if (!np)
        return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int finish_table(rwf_dict *d, line_reader *r, enum_scratch *s)
{
    int rc = add_table(d, s->fids, s->acronyms, s->nfids, s->values, s->nvalues);
    if (rc < 0)
        err_push("%s:%u", r->name, s->first_line);
    s->nfids = s->nvalues = 0;
    return rc;
}

static int enum_line(rwf_dict *d, line_reader *r, enum_scratch *s)
{
    const char *p = r->lp, *t;
    int q;
    long v;
    size_t n = token(&p, r->le, &t, &q);
    if (!n) {
        if (q)
            return line_err(r, RWF_E_MALFORMED,
                            "line starts with a quote: missing value or "
                            "acronym");
        return RWF_OK;
    }
    if (!token_int(t, n, LONG_MIN / 2, LONG_MAX / 2, &v)) { /* "ACRONYM FID": a reference */
        if (s->nvalues) {
            int rc = finish_table(d, r, s);
            if (rc < 0)
                return rc;
        }
        rwf_buf acr = rwf_buf_make(t, n);
        n = token(&p, r->le, &t, &q);
        if (!n || !token_int(t, n, -32768, 32767, &v))
            return line_err(r, RWF_E_MALFORMED, "%.*s: fid '%.*s' is missing or not an integer",
                            (int)acr.len, acr.data, (int)n, t);
        if (s->nfids == s->capfids) {
            uint32_t cap = s->capfids ? s->capfids * 2 : 64;
            int16_t *nf = realloc(s->fids, cap * sizeof(*nf));
            if (nf)
                s->fids = nf;
            rwf_buf *na = nf ? realloc(s->acronyms, cap * sizeof(*na)) : NULL;
            if (!na)
                return line_err(r, RWF_E_NOMEM, "out of memory");
            s->acronyms = na;
            s->capfids = cap;
        }
        if (!s->nfids)
            s->first_line = r->lineno;
        s->fids[s->nfids] = (int16_t)v;
        s->acronyms[s->nfids++] = acr;
        return RWF_OK;
    }
    if (!s->nfids)
        return line_err(r, RWF_E_MALFORMED, "enum value %.*s before any referencing field", (int)n,
                        t);
    if (v < 0 || v > 65535)
        return line_err(r, RWF_E_MALFORMED, "enum value %ld out of 0..65535", v);
    rwf_enum_value ev;
    ev.value = (uint16_t)v;
    const char *save = p;
    if (delimited(&p, r->le, '"', &ev.display)) {
        /* quoted text as is */
    } else if (p = save, delimited(&p, r->le, '#', &ev.display)) {
        if (ev.display.len % 2)
            return line_err(r, RWF_E_MALFORMED, "enum value %ld: odd-length hex display", v);
        char *out = (char *)ev.display.data; /* decode in place: the text is ours */
        for (uint32_t i = 0; i < ev.display.len / 2; i++) {
            int hi = hexval(ev.display.data[2 * i]), lo = hexval(ev.display.data[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return line_err(r, RWF_E_MALFORMED, "enum value %ld: invalid hex display", v);
            out[i] = (char)(hi << 4 | lo);
        }
        ev.display.len /= 2;
    } else {
        return line_err(r, RWF_E_MALFORMED, "enum value %ld: missing display (\"text\" or #hex#)",
                        v);
    }
    ev.meaning = rest_of_line(p, r->le);
    if (s->nvalues == s->capvalues &&
        !grow((void **)&s->values, &s->capvalues, sizeof(rwf_enum_value)))
        return line_err(r, RWF_E_NOMEM, "out of memory");
    s->values[s->nvalues++] = ev;
    return RWF_OK;
}

static int parse_enums(rwf_dict *d, const char *name, const char *text, size_t len)
{
    line_reader r = {name, text, text + len, NULL, NULL, 0};
    enum_scratch s;
    int rc = RWF_OK;
    uint32_t tables_before = d->table_count;

    memset(&s, 0, sizeof(s));
    while (next_line(&r)) {
        if (r.lp < r.le && r.lp[0] == '!')
            rc = tag_line(d, &r, 1);
        else
            rc = enum_line(d, &r, &s);
        if (rc < 0)
            break;
    }
    if (rc == RWF_OK) {
        if (s.nvalues)
            rc = finish_table(d, &r, &s);
        else if (s.nfids)
            rc = line_err(&r, RWF_E_MALFORMED, "referencing fields without values at the end");
        else if (d->table_count == tables_before)
            rc = line_err(&r, RWF_E_MALFORMED, "no enum table found");
    }
    free(s.fids);
    free(s.acronyms);
    free(s.values);
    return rc;
}

int rwf_dict_parse_enums(rwf_dict *d, const char *name, const char *text, size_t len)
{
    if (len >= UINT32_MAX) { /* a view's length is 32 bits: the copy would be cut short */
        err_set("%s: %zu bytes is too large for a dictionary", name, len);
        return RWF_E_INVALID;
    }
    rwf_buf copy = rwf_dict_strdup(d, rwf_buf_make(text, len));
    if (len && !copy.data) {
        err_set("%s: out of memory", name);
        return RWF_E_NOMEM;
    }
    return parse_enums(d, name, copy.data ? copy.data : "", len);
}

int rwf_dict_load_enums(rwf_dict *d, const char *path)
{
    const char *text;
    size_t len;
    int rc = read_file(d, path, &text, &len);
    return rc < 0 ? rc : parse_enums(d, path, text, len);
}
