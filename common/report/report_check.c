/* report_check: are the files of one run? And the combined figures, read with the merge
 * library (see report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SLACK 2.0 /* seconds: clocks read a moment apart, UTC stamps cut to the second */

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The folder part of path into buf ("." when none). */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *s = strrchr(path, '/');
    snprintf(buf, size, "%.*s", s ? (int)(s - path) : 1, s ? path : ".");
}

/* A log in a folder whose summaries of its tool are other processes' is another run's. */
static int check_logs(rpt *r)
{
    int rc = 0;
    for (int i = 0; i < r->nlogs; i++) {
        const rpt_log *l = &r->logs[i];
        const rpt_proc *own = &r->procs[l->proc];
        char folder[RPT_PATH];
        dir_of(l->path, folder, sizeof(folder));
        if (own->json && strcmp(own->folder, folder) == 0)
            continue;
        for (int k = 0; k < r->nprocs; k++) {
            const rpt_proc *p = &r->procs[k];
            if (k != l->proc && p->json && p->tool == own->tool && strcmp(p->folder, folder) == 0) {
                rc = rpt_bad_add(r, l->path, l->host_line,
                                 "a log of %s pid %d on %s, but this folder's %s summary (%s) is "
                                 "pid %d on %s: files of two different runs",
                                 l->tool, l->pid, l->host, l->tool, base_of(p->json_path), p->pid,
                                 p->host);
                break;
            }
        }
    }
    return rc;
}

/* A statistics file's last row comes at the end of its run, just before the summary is
 * written: one far from that time is another run's. */
static int check_csvs(rpt *r)
{
    int rc = 0;
    for (int i = 0; i < r->ncsvs; i++) {
        const rpt_csv *c = &r->csvs[i];
        const rpt_proc *p = &r->procs[c->proc];
        if (!p->json || p->written < 0 || c->nrows == 0)
            continue;
        double iv = rpt_proc_interval(r, p), last = c->t[c->nrows - 1];
        char a[32], b[32];
        rpt_utc_format(a, sizeof(a), last, "%Y-%m-%d %H:%M:%S");
        rpt_utc_format(b, sizeof(b), p->written, "%Y-%m-%d %H:%M:%S");
        if (last > p->written + SLACK)
            rc = rpt_bad_add(r, c->path, c->line[c->nrows - 1],
                             "a row of %s UTC, after its summary %s was written (%s UTC): files "
                             "of two different runs",
                             a, base_of(p->json_path), b);
        else if (last < p->written - 2 * iv - 3 * SLACK)
            rc = rpt_bad_add(r, c->path, c->line[c->nrows - 1],
                             "the last row is of %s UTC, but its summary %s was written at %s UTC "
                             "(rows come every %g s to the end of a run): files of two different "
                             "runs",
                             a, base_of(p->json_path), b, iv);
    }
    return rc;
}

/* Union-find over the processes, joined when their spans meet. */
static int find(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* The first timed file of process p and its line, for a message. */
static void first_file(const rpt *r, const rpt_proc *p, const char **file, int *line)
{
    if (p->nlog) {
        *file = r->logs[p->logs[0]].path;
        *line = r->logs[p->logs[0]].first_line;
    } else if (p->ncsv && r->csvs[p->csvs[0]].nrows) {
        *file = r->csvs[p->csvs[0]].path;
        *line = r->csvs[p->csvs[0]].line[0];
    } else {
        *file = p->json_path;
        *line = p->json_line_written;
    }
}

/* The processes of one run overlap in time: groups that do not meet are different runs. */
static int check_times(rpt *r)
{
    int *up = malloc((size_t)(r->nprocs ? r->nprocs : 1) * sizeof(int));
    if (!up)
        return -2;
    for (int i = 0; i < r->nprocs; i++)
        up[i] = i;
    for (int i = 0; i < r->nprocs; i++)
        for (int k = i + 1; k < r->nprocs; k++) {
            const rpt_proc *a = &r->procs[i], *b = &r->procs[k];
            if (a->end < 0 || b->end < 0)
                continue;
            if (a->start <= b->end + SLACK && b->start <= a->end + SLACK)
                up[find(up, i)] = find(up, k);
        }
    /* The largest group is the run; each process outside it is reported. */
    int best = -1, best_n = 0;
    for (int i = 0; i < r->nprocs; i++) {
        if (r->procs[i].end < 0)
            continue;
        int n = 0;
        for (int k = 0; k < r->nprocs; k++)
            n += r->procs[k].end >= 0 && find(up, k) == find(up, i);
        if (n > best_n) {
            best_n = n;
            best = find(up, i);
        }
    }
    int rc = 0;
    for (int i = 0; i < r->nprocs && best >= 0; i++) {
        const rpt_proc *p = &r->procs[i];
        if (p->end < 0 || find(up, i) == best)
            continue;
        double s = INFINITY, e = -1;
        for (int k = 0; k < r->nprocs; k++)
            if (r->procs[k].end >= 0 && find(up, k) == best) {
                s = fmin(s, r->procs[k].start);
                e = fmax(e, r->procs[k].end);
            }
        char a[32], b[32], c[32], d[32];
        rpt_utc_format(a, sizeof(a), p->start, "%Y-%m-%d %H:%M:%S");
        rpt_utc_format(b, sizeof(b), p->end, "%H:%M:%S");
        rpt_utc_format(c, sizeof(c), s, "%Y-%m-%d %H:%M:%S");
        rpt_utc_format(d, sizeof(d), e, "%H:%M:%S");
        const char *file;
        int line;
        first_file(r, p, &file, &line);
        rc = rpt_bad_add(r, file, line,
                         "%s ran from %s to %s UTC, which does not meet the other files' run (%s "
                         "to %s UTC): files of two different runs",
                         p->label, a, b, c, d);
    }
    free(up);
    return rc;
}

/* Versions that differ between processes: a warning, not an error (a run of ours against an
 * older build is a choice). */
static void check_versions(rpt *r)
{
    const char *first = NULL, *first_label = NULL;
    for (int i = 0; i < r->nprocs; i++) {
        json_object *v;
        if (!r->procs[i].json || !json_object_object_get_ex(r->procs[i].json, "git_revision", &v))
            continue;
        const char *rev = json_object_get_string(v);
        if (!first) {
            first = rev;
            first_label = r->procs[i].label;
        } else if (strcmp(first, rev) != 0) {
            rpt_list_add(&r->warnings, &r->nwarn, "builds differ: %s is git revision %s, %s is %s",
                         first_label, first, r->procs[i].label, rev);
            return;
        }
    }
}

int rpt_check(rpt *r)
{
    int a = check_logs(r), b = check_csvs(r), c = check_times(r);
    if (c == -2)
        return -2;
    check_versions(r);
    return a || b || c ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Combined figures                                                                           */

static bool of_tool(const rpt *r, const rpt_proc *p, int tool)
{
    return p->tool == tool;
}

/* Reads the files of the processes for which want(p) holds into a new merge. */
static int merge_of(rpt *r, merge **out, bool (*want)(const rpt *, const rpt_proc *, int), int arg)
{
    merge *m = calloc(1, sizeof(*m));
    if (!m)
        return -2;
    int rc = 0;
    for (int i = 0; rc == 0 && i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        if (!want(r, p, arg))
            continue;
        if (p->json && merge_read_file(m, p->json_path) == -2)
            rc = -2;
        for (int k = 0; rc == 0 && k < p->nlog; k++)
            if (merge_read_file(m, r->logs[p->logs[k]].path) == -2)
                rc = -2;
    }
    for (int b = 0; rc == 0 && b < m->nbad; b++)
        rc = rpt_bad_add(r, m->bad[b].file, m->bad[b].line, "%s", m->bad[b].what);
    if (rc == 0 && m->nprocs && merge_combine(m) != 0)
        rc = -2;
    /* The merge's warnings (samples below zero, logs that disagree with their summary), once:
     * from the merges per tool. */
    for (int w = 0; rc == 0 && want == of_tool && w < m->nwarn; w++)
        rpt_list_add(&r->warnings, &r->nwarn, "%s", m->warnings[w]);
    if (rc != 0 || m->nprocs == 0) {
        merge_free(m);
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

/* Is p on host number `host` of r->hosts? */
static bool of_host(const rpt *r, const rpt_proc *p, int host)
{
    return strcmp(p->host, r->hosts[host]) == 0;
}

/* Every process with a JSON summary. */
static bool of_any(const rpt *r, const rpt_proc *p, int arg)
{
    (void)r;
    (void)arg;
    return p->json != NULL;
}

/* The clocks of processes on several hosts, judged by the merge (docs/clocks.md): a warning
 * when one-way latency between the hosts is not valid, and one for each consumer whose measured
 * offset to its provider is as large as its latency. The summaries and the host clock files
 * only. Returns 0 or -2. */
static int clock_warnings(rpt *r)
{
    merge m = {0};
    int rc = 0;
    bool one_way = false;
    for (int i = 0; rc == 0 && i < r->nprocs; i++) {
        const rpt_proc *p = &r->procs[i];
        if (of_any(r, p, 0) && merge_read_file(&m, p->json_path) == -2)
            rc = -2;
        for (int k = 0; k < p->nlog; k++)
            for (int j = 0; j < r->logs[p->logs[k]].nkinds; j++)
                one_way = one_way || merge_kind_one_way(r->logs[p->logs[k]].kinds[j].tag);
    }
    for (int i = 0; i < m.nprocs; i++)
        for (int k = 0; k < m.procs[i].nkinds; k++)
            one_way = one_way || merge_kind_one_way(m.procs[i].kinds[k].tag);
    /* A summary's bad input is the per-tool merge's to report; a clock file's is this one's. */
    int summaries_bad = m.nbad;
    for (int i = 0; rc == 0 && i < r->nclock_files; i++)
        if (merge_read_file(&m, r->clock_files[i]) == -2)
            rc = -2;
    for (int b = summaries_bad; rc == 0 && b < m.nbad; b++)
        rc = rpt_bad_add(r, m.bad[b].file, m.bad[b].line, "%s", m.bad[b].what);
    if (rc == 0) {
        merge_clock_verdict v = merge_clocks(&m);
        if (!v.one_way_ok && one_way)
            rpt_list_add(&r->warnings, &r->nwarn,
                         "one-way latency between hosts (update, generic message, one way) is "
                         "not valid: %s; round trips (posting latency, TransportPerf's round "
                         "trip) are",
                         v.why);
        for (int i = 0; i < m.nprocs; i++) {
            const merge_proc *p = &m.procs[i];
            if (p->has_offset && p->offset.measured && p->offset.larger_than_latency)
                rpt_list_add(&r->warnings, &r->nwarn,
                             "%s pid %d on %s: its clock offset to its provider (%.1f +- %.1f "
                             "usec) is as large as its update latency",
                             p->tool, p->pid, p->host, p->offset.offset_usec, p->offset.bound_usec);
        }
    }
    merge_free(&m);
    return rc;
}

int rpt_combine(rpt *r)
{
    for (int t = 0; t < RPT_TOOLS; t++) {
        int rc = merge_of(r, &r->by_tool[t], of_tool, t);
        if (rc != 0)
            return rc;
    }
    if (r->nhosts > 1) {
        int rc = clock_warnings(r);
        if (rc != 0)
            return rc;
    }
    if (r->nhosts > 1) {
        r->by_host = calloc((size_t)r->nhosts, sizeof(*r->by_host));
        if (!r->by_host)
            return -2;
        for (int h = 0; h < r->nhosts; h++) {
            int rc = merge_of(r, &r->by_host[h], of_host, h);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}
