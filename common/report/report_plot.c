/* report_plot: charts as series of points, drawn by gnuplot with the chart template into SVG
 * for the page (see report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Size of every chart (pixels; the page scales it to its width). */
#define CHART_W 960
#define CHART_H 340

/* A new, empty series titled title at the end of *arr. NULL when out of memory. */
static rpt_series *series_new(rpt_series **arr, int *n, int *cap, const char *title)
{
    if (rpt_grow(arr, cap, *n, sizeof(**arr)) != 0)
        return NULL;
    rpt_series *s = &(*arr)[(*n)++];
    memset(s, 0, sizeof(*s));
    snprintf(s->title, sizeof(s->title), "%s", title);
    return s;
}

rpt_series *rpt_plot_line(rpt_plot *p, const char *title)
{
    return series_new(&p->lines, &p->nlines, &p->lines_cap, title);
}

rpt_series *rpt_plot_mark(rpt_plot *p, const char *title, const char *colour, int marker)
{
    rpt_series *s = series_new(&p->marks, &p->nmarks, &p->marks_cap, title);
    if (s) {
        snprintf(s->colour, sizeof(s->colour), "%s", colour);
        s->marker = marker;
    }
    return s;
}

int rpt_series_add(rpt_series *s, double x, double y)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        double *x2 = realloc(s->x, (size_t)cap * sizeof(double));
        if (!x2)
            return -1;
        s->x = x2;
        double *y2 = realloc(s->y, (size_t)cap * sizeof(double));
        if (!y2)
            return -1;
        s->y = y2;
        s->cap = cap;
    }
    s->x[s->n] = x;
    s->y[s->n++] = y;
    return 0;
}

/* True when a and b have values at the same x, and equal ones (within 0.5%). */
static bool same_values(const rpt_series *a, const rpt_series *b)
{
    int na = 0, common = 0;
    for (int j = 0; j < a->n; j++)
        na += !isnan(a->y[j]);
    for (int i = 0; i < b->n; i++) {
        if (isnan(b->y[i]))
            continue;
        bool found = false;
        for (int j = 0; j < a->n && !found; j++)
            if (a->x[j] == b->x[i] && !isnan(a->y[j])) {
                double m = fmax(fabs(a->y[j]), fabs(b->y[i]));
                if (fabs(a->y[j] - b->y[i]) > 0.005 * m)
                    return false;
                found = true;
            }
        if (!found)
            return false;
        common++;
    }
    return common > 0 && common == na;
}

void rpt_plot_same(rpt_plot *p)
{
    for (int i = 1; i < p->nlines; i++)
        for (int k = 0; k < i; k++)
            if (same_values(&p->lines[k], &p->lines[i])) {
                size_t n = strlen(p->lines[i].title);
                snprintf(p->lines[i].title + n, sizeof(p->lines[i].title) - n, " (= %s)",
                         p->lines[k].title);
                break;
            }
}

bool rpt_plot_any(const rpt_plot *p)
{
    for (int i = 0; i < p->nlines; i++)
        for (int k = 0; k < p->lines[i].n; k++)
            if (!isnan(p->lines[i].y[k]))
                return true;
    return false;
}

/* Releases n series and their array. */
static void series_free(rpt_series *s, int n)
{
    for (int i = 0; i < n; i++) {
        free(s[i].x);
        free(s[i].y);
    }
    free(s);
}

void rpt_plot_free(rpt_plot *p)
{
    series_free(p->lines, p->nlines);
    series_free(p->marks, p->nmarks);
    memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------------------------------ */
/* gnuplot                                                                                    */

/* Writes s as a gnuplot double-quoted string; line breaks become "\n". */
static void gq(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* Writes a series' points ("x y", "nan" for a gap). Returns the points with a value. */
static int write_points(const char *path, const rpt_series *s, bool logy)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        double y = s->y[i];
        if (isnan(y) || (logy && !(y > 0))) {
            fprintf(f, "%.17g nan\n", s->x[i]);
            continue;
        }
        fprintf(f, "%.17g %.17g\n", s->x[i], y);
        n++;
    }
    return fclose(f) == 0 ? n : -1;
}

/* Writes the driver's block of plot i (its series' data files next to it). Returns 1 when
 * there is something to draw, 0 when not, -1 on a write error. */
static int write_block(FILE *g, const rpt_plot *p, int i, const char *tmpdir)
{
    char path[RPT_PATH + 64];
    int *lines = calloc((size_t)p->nlines + 1, sizeof(int)),
        *marks = calloc((size_t)p->nmarks + 1, sizeof(int));
    int nl = 0, nm = 0, rc = 0;
    if (!lines || !marks)
        rc = -1;
    for (int k = 0; rc == 0 && k < p->nlines; k++) {
        snprintf(path, sizeof(path), "%s/p%d_l%d.dat", tmpdir, i, k);
        int got = write_points(path, &p->lines[k], p->logy);
        if (got < 0)
            rc = -1;
        else if (got > 0)
            lines[nl++] = k;
    }
    for (int k = 0; rc == 0 && k < p->nmarks; k++) {
        snprintf(path, sizeof(path), "%s/p%d_m%d.dat", tmpdir, i, k);
        int got = write_points(path, &p->marks[k], p->logy);
        if (got < 0)
            rc = -1;
        else if (got > 0)
            marks[nm++] = k;
    }
    if (rc == 0 && nl > 0) {
        /* The page heads each chart with its title: none inside the image. */
        fprintf(g, "set output \"%s/p%d.svg\"\nTITLE = \"\"\nXLABEL = ", tmpdir, i);
        gq(g, p->xlabel);
        fputs("\nYLABEL = ", g);
        gq(g, p->ylabel);
        fputs("\nNOTE = ", g);
        gq(g, p->note);
        if (p->xmax > p->xmin)
            fprintf(g, "\nXMIN = %.17g\nXMAX = %.17g", p->xmin, p->xmax);
        else
            fputs("\nundefine XMIN XMAX", g);
        fprintf(g, "\nXMODE = \"%s\"\nLOGY = %d\nDIAG = %d\nSTYLE = \"%s\"\n", p->xmode, p->logy,
                p->diag, p->steps ? "steps" : "linespoints");
        fprintf(g, "N = %d\narray F[%d]\narray T[%d]\narray C[%d]\narray D[%d]\narray P[%d]\n", nl,
                nl, nl, nl, nl, nl);
        for (int k = 0; k < nl; k++) {
            const rpt_series *s = &p->lines[lines[k]];
            fprintf(g, "F[%d] = \"%s/p%d_l%d.dat\"\nT[%d] = ", k + 1, tmpdir, i, lines[k], k + 1);
            gq(g, s->title);
            fprintf(g, "\nC[%d] = ", k + 1);
            gq(g, s->colour);
            fprintf(g, "\nD[%d] = %d\nP[%d] = %d\n", k + 1, s->dash, k + 1, s->marker);
        }
        int am = nm ? nm : 1;
        fprintf(g, "NM = %d\narray MF[%d]\narray MT[%d]\narray MC[%d]\narray MP[%d]\n", nm, am, am,
                am, am);
        for (int k = 0; k < nm; k++) {
            const rpt_series *s = &p->marks[marks[k]];
            fprintf(g, "MF[%d] = \"%s/p%d_m%d.dat\"\nMT[%d] = ", k + 1, tmpdir, i, marks[k], k + 1);
            gq(g, s->title);
            fprintf(g, "\nMC[%d] = ", k + 1);
            gq(g, s->colour[0] ? s->colour : "#333333");
            fprintf(g, "\nMP[%d] = %d\n", k + 1, s->marker);
        }
        fprintf(g, "load \"%s/chart.gp\"\nunset output\n", tmpdir);
        rc = 1;
    }
    free(lines);
    free(marks);
    return rc;
}

/* Runs gnuplot on script, its error text into errfile. Returns 0, or -1 with why in errbuf. */
static int run_gnuplot(const char *script, const char *errfile, char *errbuf, size_t errsize)
{
    char *argv[] = {"gnuplot", (char *)script, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT) {
        snprintf(errbuf, errsize,
                 "gnuplot is not installed (scripts/setup.sh installs gnuplot-nox): the page has "
                 "no charts");
        return -1;
    }
    if (rc != 0) {
        snprintf(errbuf, errsize, "cannot start gnuplot: %s", strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(errbuf, errsize, "waiting for gnuplot: %s", strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    /* The first line of what gnuplot said. */
    char said[400] = "";
    FILE *f = fopen(errfile, "r");
    if (f) {
        size_t n = fread(said, 1, sizeof(said) - 1, f);
        said[n] = '\0';
        fclose(f);
        for (char *s = said; *s; s++)
            if (*s == '\n')
                *s = ' ';
    }
    snprintf(errbuf, errsize, "gnuplot failed (status %d): %s",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, said);
    return -1;
}

/* Appends n bytes of s to the growing string (*buf, *len, *cap). Returns 0 or -1. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* The SVG gnuplot wrote, for inlining: from "<svg" on, every id and reference to one given
 * prefix, gnuplot's own title and description left out. NULL when out of memory or not an
 * SVG. */
static char *svg_inline(const char *text, const char *prefix)
{
    const char *p = strstr(text, "<svg");
    if (!p)
        return NULL;
    char *out = NULL;
    size_t len = 0, cap = 0;
    size_t pl = strlen(prefix);
    while (*p) {
        const char *next = NULL;
        size_t skip = 0;
        /* The nearest of: id='...' (an attribute), href='#...', url(#...), <title>...</title>,
         * <desc>...</desc>. */
        static const char *const keys[] = {" id='", " id=\"",  "href='#", "href=\"#",
                                           "url(#", "<title>", "<desc>"};
        int which = -1;
        for (int k = 0; k < 7; k++) {
            const char *q = strstr(p, keys[k]);
            if (q && (!next || q < next)) {
                next = q;
                which = k;
            }
        }
        if (!next) {
            if (put(&out, &len, &cap, p, strlen(p)) != 0)
                goto oom;
            break;
        }
        if (which >= 5) {
            const char *end = strstr(next, which == 5 ? "</title>" : "</desc>");
            if (!end)
                end = next + strlen(next);
            else
                end += which == 5 ? 8 : 7;
            if (put(&out, &len, &cap, p, (size_t)(next - p)) != 0)
                goto oom;
            p = end;
            continue;
        }
        skip = strlen(keys[which]);
        if (put(&out, &len, &cap, p, (size_t)(next - p) + skip) != 0 ||
            put(&out, &len, &cap, prefix, pl) != 0 || put(&out, &len, &cap, "-", 1) != 0)
            goto oom;
        p = next + skip;
    }
    return out;
oom:
    free(out);
    return NULL;
}

/* The whole file at path as a string (malloc'ed), NULL when it cannot be read. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (put(&buf, &len, &cap, chunk, n) != 0) {
            free(buf);
            fclose(f);
            return NULL;
        }
    fclose(f);
    return buf;
}

int rpt_plot_draw(rpt_plot *const *plots, const char *const *id_prefix, int n, const char *tmpdir,
                  char **svgs, char *errbuf, size_t errsize)
{
    char path[RPT_PATH + 64], script[RPT_PATH + 64], errfile[RPT_PATH + 64];
    for (int i = 0; i < n; i++)
        svgs[i] = NULL;
    snprintf(path, sizeof(path), "%s/chart.gp", tmpdir);
    FILE *t = fopen(path, "w");
    if (!t || fputs(rpt_chart_gp, t) < 0 || fclose(t) != 0) {
        snprintf(errbuf, errsize, "cannot write %s", path);
        return -1;
    }
    snprintf(script, sizeof(script), "%s/charts.gp", tmpdir);
    FILE *g = fopen(script, "w");
    if (!g) {
        snprintf(errbuf, errsize, "cannot write %s", script);
        return -1;
    }
    fprintf(g, "set terminal svg size %d,%d font \"sans-serif,12\" background \"#ffffff\"\n",
            CHART_W, CHART_H);
    bool *drawn = calloc((size_t)n + 1, sizeof(bool));
    int rc = drawn ? 0 : -2, any = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        int got = write_block(g, plots[i], i, tmpdir);
        if (got < 0) {
            snprintf(errbuf, errsize, "cannot write the charts' data in %s", tmpdir);
            rc = -1;
        }
        drawn[i] = got > 0;
        any += got > 0;
    }
    if (fclose(g) != 0 && rc == 0) {
        snprintf(errbuf, errsize, "cannot write %s", script);
        rc = -1;
    }
    snprintf(errfile, sizeof(errfile), "%s/gnuplot.err", tmpdir);
    if (rc == 0 && any)
        rc = run_gnuplot(script, errfile, errbuf, errsize);
    for (int i = 0; rc == 0 && i < n; i++) {
        if (!drawn[i])
            continue;
        snprintf(path, sizeof(path), "%s/p%d.svg", tmpdir, i);
        char *text = read_all(path);
        if (!text) {
            snprintf(errbuf, errsize, "gnuplot wrote no %s", path);
            rc = -1;
            break;
        }
        svgs[i] = svg_inline(text, id_prefix[i]);
        free(text);
        if (!svgs[i]) {
            snprintf(errbuf, errsize, "%s is not an SVG image", path);
            rc = -1;
        }
    }
    free(drawn);
    if (rc != 0)
        for (int i = 0; i < n; i++) {
            free(svgs[i]);
            svgs[i] = NULL;
        }
    return rc;
}
