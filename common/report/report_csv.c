/* report_csv: reading the tools' statistics CSV files and scripts/bench.sh's bench.csv (see
 * report.h). */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."

/* The first columns after UTC that tell each tool's statistics file. */
static const struct {
    int tool;
    const char *first;
} csv_tools[] = {
    {RPT_CONS, "Latency updates"},
    {RPT_PROV, "Requests received"},
    {RPT_NIPROV, "Images sent"},
    {RPT_TRANSPORT, "Msgs sent"},
};

/* The columns of bench.csv, in order (bench.sh writes them). */
static const char *const sweep_cols[] = {
    "mode",         "pair",        "pack",
    "offered",      "received",    "p50_us",
    "p99_us",       "p99_9_us",    "sched_p99_us",
    "cons_cpu_pct", "cons_mem_mb", "cons_ns_per_update",
    "prov_cpu_pct", "prov_mem_mb", "prov_ns_per_update",
    "held",         "load1",       "run",
};
#define SWEEP_COLS ((int)(sizeof(sweep_cols) / sizeof(sweep_cols[0])))

/* A whole file read into memory, with its lines cut in place. */
typedef struct text {
    char *buf;
    char **lines;
    int n;
    bool cut; /* the last line has no line end */
} text;

/* Releases t; it is then empty. */
static void text_free(text *t)
{
    free(t->buf);
    free(t->lines);
    memset(t, 0, sizeof(*t));
}

/* Reads path into t. Returns 0, or -1 after rpt_bad_add (cannot read), -2 out of memory. */
static int text_read(rpt *r, const char *path, text *t)
{
    memset(t, 0, sizeof(*t));
    FILE *f = fopen(path, "rb");
    if (!f)
        return rpt_bad_add(r, path, 0, "cannot open: %s", strerror(errno));
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *b = realloc(t->buf, cap);
            if (!b) {
                fclose(f);
                text_free(t);
                return -2;
            }
            t->buf = b;
        }
        size_t got = fread(t->buf + len, 1, 65536, f);
        len += got;
        if (got == 0)
            break;
    }
    bool err = ferror(f) != 0;
    fclose(f);
    if (err) {
        text_free(t);
        return rpt_bad_add(r, path, 0, "read error");
    }
    t->buf[len] = '\0';
    if (strlen(t->buf) != len) {
        text_free(t);
        return rpt_bad_add(r, path, 0, "a NUL byte in a text file (not a CSV file, or damaged)");
    }
    int cap_lines = 0;
    char *p = t->buf;
    while (*p) {
        if (rpt_grow(&t->lines, &cap_lines, t->n, sizeof(char *)) != 0) {
            text_free(t);
            return -2;
        }
        t->lines[t->n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) {
            t->cut = true;
            break;
        }
        *nl = '\0';
        if (nl > p && nl[-1] == '\r')
            nl[-1] = '\0';
        p = nl + 1;
    }
    return 0;
}

/* Trims spaces around s in place; returns its start. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Splits line in place at commas into at most max trimmed fields. Returns the count (which may
 * exceed max: the rest is not stored). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; n++) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (n < max)
            f[n] = trim(p);
        if (!c)
            return n + 1;
        p = c + 1;
    }
}

/* A number cell: blank, "nan" and "-" are NAN. Returns 0, or -1 when it is not a number. */
static int cell(const char *s, double *v)
{
    if (!*s || strcmp(s, "-") == 0 || strcasecmp(s, "nan") == 0 || strcasecmp(s, "-nan") == 0) {
        *v = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end || errno == ERANGE)
        return -1;
    *v = isfinite(d) ? d : NAN;
    return 0;
}

int rpt_csv_col(const rpt_csv *c, const char *name)
{
    for (int i = 1; i < c->ncols; i++)
        if (strcasecmp(c->cols[i], name) == 0)
            return i;
    return -1;
}

/* The thread and pid in a statistics file's name: <base><thread>.csv or
 * <base><thread>_<pid>.csv. */
static void csv_name(rpt_csv *c)
{
    const char *b = strrchr(c->path, '/');
    b = b ? b + 1 : c->path;
    size_t n = strlen(b);
    if (n < 5 || strcasecmp(b + n - 4, ".csv") != 0)
        return;
    const char *e = b + n - 4, *p = e;
    while (p > b && isdigit((unsigned char)p[-1]))
        p--;
    if (p > b && p < e && p[-1] == '_') {
        c->pid = atoi(p);
        e = p - 1;
        p = e;
        while (p > b && isdigit((unsigned char)p[-1]))
            p--;
    }
    if (p < e)
        c->thread = atoi(p);
}

int rpt_csv_read(rpt *r, const char *path, rpt_csv *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->path, sizeof(c->path), "%s", path);
    c->tool = -1;
    c->proc = -1;
    text t;
    int rc = text_read(r, path, &t);
    if (rc != 0)
        return rc;
    if (t.n == 0 || strncmp(t.lines[0], "UTC,", 4) != 0) {
        text_free(&t);
        return 1;
    }
    /* The header. */
    int max = 1;
    for (const char *p = t.lines[0]; *p; p++)
        max += *p == ',';
    c->cols = calloc((size_t)max, sizeof(char *));
    char *hdr = strdup(t.lines[0]);
    if (!c->cols || !hdr) {
        free(hdr);
        text_free(&t);
        return -2;
    }
    char **f = calloc((size_t)max, sizeof(char *));
    if (!f) {
        free(hdr);
        text_free(&t);
        return -2;
    }
    c->ncols = split(hdr, f, max);
    for (int i = 0; i < c->ncols; i++)
        c->cols[i] = strdup(f[i]);
    free(hdr);
    for (size_t k = 0; c->ncols > 1 && k < sizeof(csv_tools) / sizeof(csv_tools[0]); k++)
        if (strcasecmp(c->cols[1], csv_tools[k].first) == 0)
            c->tool = csv_tools[k].tool;
    if (c->tool < 0) {
        free(f);
        text_free(&t);
        return 1;
    }
    csv_name(c);
    /* The rows. */
    rc = 0;
    int rows = 0;
    for (int i = 1; i < t.n; i++)
        rows += *trim(t.lines[i]) != '\0';
    c->t = calloc((size_t)rows + 1, sizeof(double));
    c->v = calloc(((size_t)rows + 1) * (size_t)c->ncols, sizeof(double));
    c->line = calloc((size_t)rows + 1, sizeof(int));
    if (!c->t || !c->v || !c->line)
        rc = -2;
    for (int i = 1; rc == 0 && i < t.n; i++) {
        int line = i + 1;
        if (t.cut && i == t.n - 1) {
            rc =
                rpt_bad_add(r, path, line, "the last line has no line end (the file was cut off?)");
            break;
        }
        char *row = trim(t.lines[i]);
        if (!*row)
            continue;
        int n = split(row, f, max);
        if (n != c->ncols) {
            rc = rpt_bad_add(r, path, line, "%d values, but the header has %d columns (cut off?)",
                             n, c->ncols);
            break;
        }
        double when;
        if (rpt_utc_parse(f[0], &when) != 0) {
            rc = rpt_bad_add(r, path, line, "\"%s\" is not a UTC time (YYYY-MM-DD HH:MM:SS)", f[0]);
            break;
        }
        double *v = c->v + (size_t)c->nrows * (size_t)c->ncols;
        for (int k = 1; k < n; k++)
            if (cell(f[k], &v[k]) != 0) {
                rc = rpt_bad_add(r, path, line, "column \"%s\": \"%s\" is not a number", c->cols[k],
                                 f[k]);
                break;
            }
        if (rc != 0)
            break;
        if (c->nrows > 0 && when < c->t[c->nrows - 1]) {
            rc = rpt_bad_add(r, path, line,
                             "a row earlier than the one before it (two runs' rows in one file?)");
            break;
        }
        c->t[c->nrows] = when;
        c->line[c->nrows] = line;
        c->nrows++;
    }
    if (rc == 0 && t.cut && t.n == 1)
        rc = rpt_bad_add(r, path, 1, "the header line has no line end (the file was cut off?)");
    free(f);
    text_free(&t);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* bench.csv                                                                                  */

int rpt_sweep_read(rpt *r, const char *path, rpt_sweep *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->path, sizeof(s->path), "%s", path);
    text t;
    int rc = text_read(r, path, &t);
    if (rc != 0)
        return rc;
    char *f[SWEEP_COLS + 1];
    char *hdr = t.n ? strdup(t.lines[0]) : NULL;
    if (t.n && !hdr) {
        text_free(&t);
        return -2;
    }
    int n = hdr ? split(hdr, f, SWEEP_COLS + 1) : 0;
    bool ours = n >= 4;
    for (int k = 0; ours && k < 4; k++)
        ours = strcmp(f[k], sweep_cols[k]) == 0;
    if (!ours) {
        free(hdr);
        text_free(&t);
        return 1;
    }
    if (n != SWEEP_COLS) {
        free(hdr);
        text_free(&t);
        return rpt_bad_add(r, path, 1, "%d columns, where bench.sh writes %d", n, SWEEP_COLS);
    }
    for (int k = 0; k < SWEEP_COLS; k++)
        if (strcmp(f[k], sweep_cols[k]) != 0) {
            rc = rpt_bad_add(r, path, 1, "column %d is \"%s\", where bench.sh writes \"%s\"", k + 1,
                             f[k], sweep_cols[k]);
            free(hdr);
            text_free(&t);
            return rc;
        }
    free(hdr);
    for (int i = 1; rc == 0 && i < t.n; i++) {
        int line = i + 1;
        if (t.cut && i == t.n - 1) {
            rc =
                rpt_bad_add(r, path, line, "the last line has no line end (the file was cut off?)");
            break;
        }
        char *row = trim(t.lines[i]);
        if (!*row)
            continue;
        n = split(row, f, SWEEP_COLS + 1);
        if (n != SWEEP_COLS) {
            rc = rpt_bad_add(r, path, line, "%d values, but the header has %d columns (cut off?)",
                             n, SWEEP_COLS);
            break;
        }
        if (rpt_grow(&s->rows, &s->cap, s->nrows, sizeof(*s->rows)) != 0) {
            rc = -2;
            break;
        }
        static const size_t longest[3] = {15, 7, 7}; /* mode, pair, pack */
        for (int k = 0; k < 3; k++)
            if (!*f[k] || strspn(f[k], NAME_CHARS) != strlen(f[k]) || strlen(f[k]) > longest[k]) {
                rc = rpt_bad_add(r, path, line,
                                 "column \"%s\": \"%s\" is not a short name (letters, digits, "
                                 "'-', '_', '.')",
                                 sweep_cols[k], f[k]);
                break;
            }
        if (rc != 0)
            break;
        rpt_sweep_row *w = &s->rows[s->nrows];
        memset(w, 0, sizeof(*w));
        w->line = line;
        snprintf(w->mode, sizeof(w->mode), "%s", f[0]);
        snprintf(w->pair, sizeof(w->pair), "%s", f[1]);
        snprintf(w->pack, sizeof(w->pack), "%s", f[2]);
        snprintf(w->received_text, sizeof(w->received_text), "%s", f[4]);
        snprintf(w->run, sizeof(w->run), "%s", f[17]);
        double *num[] = {&w->offered, NULL,          &w->p50,      &w->p99,
                         &w->p999,    &w->sched_p99, &w->cons_cpu, &w->cons_mem,
                         &w->cons_ns, &w->prov_cpu,  &w->prov_mem, &w->prov_ns};
        for (int k = 0; k < 12; k++) {
            if (!num[k])
                continue;
            if (cell(f[k + 3], num[k]) != 0) {
                rc = rpt_bad_add(r, path, line, "column \"%s\": \"%s\" is not a number",
                                 sweep_cols[k + 3], f[k + 3]);
                break;
            }
        }
        if (rc != 0)
            break;
        if (!(w->offered > 0)) {
            rc = rpt_bad_add(r, path, line, "offered rate \"%s\" is not a positive number", f[3]);
            break;
        }
        if (cell(f[4], &w->received) != 0)
            w->received = NAN; /* "no-images" and the like: said as written */
        if (cell(f[16], &w->load) != 0)
            w->load = NAN;
        if (strcmp(f[15], "yes") != 0 && strcmp(f[15], "no") != 0) {
            rc = rpt_bad_add(r, path, line, "column \"held\": \"%s\" is neither yes nor no", f[15]);
            break;
        }
        w->held = strcmp(f[15], "yes") == 0;
        s->nrows++;
    }
    text_free(&t);
    return rc;
}

void rpt_csv_free(rpt_csv *c)
{
    for (int i = 0; c->cols && i < c->ncols; i++)
        free(c->cols[i]);
    free(c->cols);
    free(c->t);
    free(c->v);
    free(c->line);
    memset(c, 0, sizeof(*c));
}
