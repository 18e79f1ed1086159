/*
 * rwf_dict_load: the dictionary files — RDMFieldDictionary and enumtype.def — read whole into
 * the dictionary's memory and parsed in place; and the text names of the types they use.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "err.h"
#include "rwf_dict_int.h"

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

typedef struct ripples {
    ripple *v;
    size_t n, cap;
} ripples;

/* Remembers that field fid ripples to the field named acronym ("NULL": to none). */
static int keep_ripple(line_reader *r, ripples *rp, int16_t fid, rwf_buf acronym)
{
    if (token_is(acronym.data, acronym.len, "NULL"))
        return RWF_OK;
    if (rp->n == rp->cap) {
        size_t cap = rp->cap ? rp->cap * 2 : 1024;
        ripple *nr = realloc(rp->v, cap * sizeof(*nr));
        if (!nr)
            return line_err(r, RWF_E_NOMEM, "out of memory");
        rp->v = nr;
        rp->cap = cap;
    }
    rp->v[rp->n++] = (ripple){fid, acronym};
    return RWF_OK;
}

/* The enum length "( n )" (also "(n)" or "( n)") whose first token [*t, *t + *n) was read:
 * sets f->enum_length and reads the token after it into *t, *n. */
static int enum_length(line_reader *r, const char **pp, const char **t, size_t *n,
                       rwf_dict_field *f)
{
    int q;
    long v;
    const char *num = *t + 1;
    size_t nn = *n - 1;
    if (nn == 0)
        nn = token(pp, r->le, &num, &q);
    int closed = nn && num[nn - 1] == ')';
    if (closed)
        nn--;
    if (!nn || !token_int(num, nn, 0, 255, &v))
        return line_err(r, RWF_E_MALFORMED,
                        "fid %d: enum length '%.*s' is not an integer "
                        "in 0..255",
                        f->fid, (int)nn, num);
    f->enum_length = (uint8_t)v;
    if (!closed) {
        *n = token(pp, r->le, t, &q);
        if (*n != 1 || (*t)[0] != ')')
            return line_err(r, RWF_E_MALFORMED, "fid %d: no ')' after the enum length", f->fid);
    }
    *n = token(pp, r->le, t, &q);
    return RWF_OK;
}

/* One line of RDMFieldDictionary: ACRONYM "DDE ACRONYM" FID RIPPLES_TO FIELD_TYPE LENGTH
 * [( ENUM_LENGTH )] RWF_TYPE RWF_LEN; a blank line is skipped. */
static int field_line(rwf_dict *d, line_reader *r, ripples *rp)
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
    if (n && t[0] == '(' && enum_length(r, &p, &t, &n, &f) < 0)
        return RWF_E_MALFORMED;
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
    int rc = rwf_dict_add_field_view(d, &f);
    if (rc < 0)
        return err_push("%s:%u", r->name, r->lineno), rc;
    return keep_ripple(r, rp, f.fid, ripple_to);
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
    char *buf = rwf_dict_arena_alloc(d, size + 1, 1);
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

/* A parser of a whole dictionary text (field or enum file) named name for errors. */
typedef int (*text_parser)(rwf_dict *d, const char *name, const char *text, size_t len);

/* Parses a copy of the caller's text kept by the dictionary (its views point into it). Returns
 * RWF_OK or what parse returned; RWF_E_INVALID for a text of 4 GiB or more, RWF_E_NOMEM. */
static int parse_copy(rwf_dict *d, const char *name, const char *text, size_t len,
                      text_parser parse)
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
    return parse(d, name, copy.data ? copy.data : "", len);
}

/* Reads the file at path into the dictionary and parses it; errors name the path. */
static int load_file(rwf_dict *d, const char *path, text_parser parse)
{
    const char *text;
    size_t len;
    int rc = read_file(d, path, &text, &len);
    return rc < 0 ? rc : parse(d, path, text, len);
}

static int parse_fields(rwf_dict *d, const char *name, const char *text, size_t len)
{
    line_reader r = {name, text, text + len, NULL, NULL, 0};
    ripples rp = {NULL, 0, 0};
    int rc = RWF_OK;

    while (next_line(&r)) {
        if (r.lp < r.le && r.lp[0] == '!')
            rc = tag_line(d, &r, 0);
        else
            rc = field_line(d, &r, &rp);
        if (rc < 0)
            break;
    }
    if (rc == RWF_OK && !d->info.field_version.len)
        d->info.field_version = RWF_STR("");
    for (size_t i = 0; rc == RWF_OK && i < rp.n; i++) {
        const rwf_dict_field *to = rwf_dict_field_by_name(d, rp.v[i].acronym);
        if (to)
            d->fields[d->field_at[rwf_dict_slot(rp.v[i].fid)] - 1].ripple_to = to->fid;
    }
    free(rp.v);
    return rc;
}

int rwf_dict_parse_fields(rwf_dict *d, const char *name, const char *text, size_t len)
{
    return parse_copy(d, name, text, len, parse_fields);
}

int rwf_dict_load_fields(rwf_dict *d, const char *path)
{
    return load_file(d, path, parse_fields);
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
    int rc = rwf_dict_add_table_view(d, s->fids, s->acronyms, s->nfids, s->values, s->nvalues);
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
    return parse_copy(d, name, text, len, parse_enums);
}

int rwf_dict_load_enums(rwf_dict *d, const char *path)
{
    return load_file(d, path, parse_enums);
}
