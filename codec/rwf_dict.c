/*
 * rwf_dict: the in-memory dictionary — storage, the name index, adding fields and enum
 * tables, lookups. Loading the dictionary files is rwf_dict_load.c.
 *
 * Fields and enum values keep views into memory the dictionary owns: an arena, a list of
 * chunks freed with the dictionary.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "err.h"
#include "rwf_dict_int.h"

/* ---- Arena ------------------------------------------------------------------------------- */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

#define CHUNK_SIZE (64 * 1024)

void *rwf_dict_arena_alloc(rwf_dict *d, size_t n, size_t align)
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
    char *p = rwf_dict_arena_alloc(d, (size_t)text.len + 1, 1);
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
    free(d->enum_len);
    free(d->name_hash);
    free(d);
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
int rwf_dict_add_field_view(rwf_dict *d, const rwf_dict_field *f)
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
    d->entry[slot].type = f->rwf_type;
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
    return rwf_dict_add_field_view(d, &c);
}

/* The decoder entries of the fids of table t (the table's index + 1 in ti): RWF_DICT_ENUM_DENSE
 * with the display length of each value appended to d->enum_len when the table has a direct
 * index and every display is shorter than RWF_DICT_ENUM_NO_VALUE, else _SPARSE. Returns
 * RWF_OK or RWF_E_NOMEM. */
static int set_enum_entries(rwf_dict *d, const rwf_enum_table *t)
{
    int rc = RWF_OK;
    uint32_t at = d->enum_len_count, n = (uint32_t)t->max_value + 1;
    bool dense = t->direct != NULL;
    for (uint32_t i = 0; dense && i < t->count; i++)
        dense = t->values[i].display.len < RWF_DICT_ENUM_NO_VALUE;
    if (dense && d->enum_len_cap - at < n) {
        uint32_t cap = d->enum_len_cap ? d->enum_len_cap : 4096;
        while (cap - at < n)
            cap *= 2;
        uint16_t *nl = realloc(d->enum_len, (size_t)cap * sizeof(*nl));
        if (nl) {
            d->enum_len = nl;
            d->enum_len_cap = cap;
        } else { /* the fields stay correct through the search */
            err_set("out of memory for enum display lengths");
            rc = RWF_E_NOMEM;
            dense = false;
        }
    }
    if (dense) {
        for (uint32_t v = 0; v < n; v++)
            d->enum_len[at + v] = RWF_DICT_ENUM_NO_VALUE;
        for (uint32_t i = 0; i < t->count; i++)
            d->enum_len[at + t->values[i].value] = (uint16_t)t->values[i].display.len;
        d->enum_len_count = at + n;
    }
    for (uint32_t i = 0; i < t->fid_count; i++) {
        rwf_dict_entry *e = &d->entry[rwf_dict_slot(t->fids[i])];
        e->enum_kind = dense ? RWF_DICT_ENUM_DENSE : RWF_DICT_ENUM_SPARSE;
        e->enum_max = dense ? t->max_value : 0;
        e->enum_at = dense ? at : 0;
    }
    return rc;
}

static int cmp_enum(const void *a, const void *b)
{
    const rwf_enum_value *x = a, *y = b;
    return (int)x->value - (int)y->value;
}

/* Adds a table; values/fids/acronyms are copied into the arena (strings are not). */
int rwf_dict_add_table_view(rwf_dict *d, const int16_t *fids, const rwf_buf *acronyms,
                            uint32_t fid_count, const rwf_enum_value *values, uint32_t count)
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
    rwf_enum_value *v = rwf_dict_arena_alloc(d, (count ? count : 1) * sizeof(*v), 8);
    int16_t *tf = rwf_dict_arena_alloc(d, fid_count * sizeof(*tf), 2);
    rwf_buf *ta = acronyms ? rwf_dict_arena_alloc(d, fid_count * sizeof(*ta), 8) : NULL;
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
        direct = rwf_dict_arena_alloc(d, ((size_t)max + 1) * sizeof(uint16_t), 2);
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
    return set_enum_entries(d, t);
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
    r = rwf_dict_add_table_view(d, fids, a, fid_count, v, count);
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
