/* report_scan: walking the result folders, reading every result file found and putting them
 * together into processes (see report.h). */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 8 /* results/<run id>/<host>/<process>/... and some room */

/* True when name ends with suffix. */
static bool ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* The folder part of path into buf ("." when none). */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *s = strrchr(path, '/');
    if (!s)
        snprintf(buf, size, ".");
    else if (s == path)
        snprintf(buf, size, "/");
    else
        snprintf(buf, size, "%.*s", (int)(s - path), path);
}

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON summaries                                                                             */

/* Line number of byte offset off in text. */
static int line_of(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && text[i]; i++)
        line += text[i] == '\n';
    return line;
}

/* Reads path as JSON into *doc. Returns 0, or -1 after rpt_bad_add, -2 out of memory. */
static int json_read(rpt *r, const char *path, json_object **doc)
{
    *doc = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rpt_bad_add(r, path, 0, "cannot open: %s", strerror(errno));
    char *text;
    size_t len;
    int got = merge_slurp(f, &text, &len);
    fclose(f);
    if (got != 0)
        return got == -2 ? -2 : rpt_bad_add(r, path, 0, "read error");
    json_tokener *t = json_tokener_new();
    if (!t) {
        free(text);
        return -2;
    }
    *doc = json_tokener_parse_ex(t, text, (int)len);
    enum json_tokener_error je = json_tokener_get_error(t);
    size_t off = t->char_offset;
    json_tokener_free(t);
    int rc = 0;
    if (!*doc || je != json_tokener_success) {
        rc = rpt_bad_add(
            r, path, line_of(text, off), "not valid JSON (%s%s)",
            json_tokener_error_desc(je == json_tokener_success ? json_tokener_continue : je),
            je == json_tokener_continue || je == json_tokener_success ? ": cut off?" : "");
        json_object_put(*doc);
        *doc = NULL;
    }
    free(text);
    return rc;
}

/* The line of the first occurrence of "\"key\"" in path, 0 when not found. */
static int key_line(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char pat[80], buf[1024];
    snprintf(pat, sizeof(pat), "\"%s\"", key);
    int line = 0, found = 0;
    while (!found && fgets(buf, sizeof(buf), f)) {
        line++;
        if (strstr(buf, pat))
            found = line;
    }
    fclose(f);
    return found;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* Does the host name a (from a summary) match b (from a log, cut to 63 characters)? */
static bool same_host(const char *a, const char *b)
{
    size_t x = strlen(a), y = strlen(b), n = x < y ? x : y;
    return strncmp(a, b, n) == 0 && (x == y || n >= 63);
}

/* The process of (tool, host, pid), made when new. NULL when out of memory. */
static rpt_proc *proc_get(rpt *r, int tool, const char *host, int pid, const char *folder,
                          bool make)
{
    for (int i = 0; i < r->nprocs; i++) {
        rpt_proc *p = &r->procs[i];
        if (p->tool == tool && p->pid == pid && same_host(p->host, host) &&
            (pid != 0 || host[0] || strcmp(p->folder, folder) == 0)) {
            if (strlen(host) > strlen(p->host))
                snprintf(p->host, sizeof(p->host), "%s", host);
            return p;
        }
    }
    if (!make || rpt_grow(&r->procs, &r->proc_cap, r->nprocs, sizeof(*r->procs)) != 0)
        return NULL;
    rpt_proc *p = &r->procs[r->nprocs++];
    memset(p, 0, sizeof(*p));
    p->tool = tool;
    snprintf(p->host, sizeof(p->host), "%s", host);
    p->pid = pid;
    snprintf(p->folder, sizeof(p->folder), "%s", folder);
    p->written = -1;
    p->start = INFINITY;
    p->end = -1;
    return p;
}

/* The TEST INPUTS block of the summary file at path, or NULL. */
static char *inputs_block(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *block = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&block, &len);
    char line[1024];
    bool in = false, any = false;
    while (out && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "--- TEST INPUTS ---", 19) == 0) {
            in = true;
            continue;
        }
        if (in && strncmp(line, "---", 3) == 0)
            break;
        if (in && (any || line[0] != '\n')) {
            fputs(line, out);
            any = true;
        }
    }
    fclose(f);
    if (!out)
        return NULL;
    fclose(out);
    while (len && (block[len - 1] == '\n' || block[len - 1] == ' '))
        block[--len] = '\0';
    if (!any || !len) {
        free(block);
        return NULL;
    }
    return block;
}

/* The TEST INPUTS block of the summary file beside a JSON summary (X.json -> X.out or X), or
 * NULL. */
static char *test_inputs(const char *json_path)
{
    char path[RPT_PATH + 8];
    size_t n = strlen(json_path);
    if (n < 5 || !ends_with(json_path, ".json"))
        return NULL;
    snprintf(path, sizeof(path), "%.*s.out", (int)(n - 5), json_path);
    char *b = inputs_block(path);
    if (b)
        return b;
    snprintf(path, sizeof(path), "%.*s", (int)(n - 5), json_path);
    return inputs_block(path);
}

/* For a process with no JSON summary (the original tools): the TEST INPUTS block of the
 * summary file of its tool's default name in its folder, or NULL. */
static char *default_inputs(const rpt_proc *p)
{
    static const char *const names[RPT_TOOLS] = {"ConsSummary", "TransportSummary", "NIProvSummary",
                                                 "ProvSummary"};
    char path[RPT_PATH + 64];
    if (p->tool == RPT_TRANSPORT)
        snprintf(path, sizeof(path), "%s/%s_%d.out", p->folder, names[p->tool], p->pid);
    else
        snprintf(path, sizeof(path), "%s/%s.out", p->folder, names[p->tool]);
    return inputs_block(path);
}

/* Reads a JSON file: a tool's summary becomes a process; anything else is listed as ignored.
 * Returns 0, -1 after rpt_bad_add, -2 out of memory. */
static int take_json(rpt *r, const char *path, const char *folder)
{
    json_object *doc;
    int rc = json_read(r, path, &doc);
    if (rc != 0)
        return rc;
    const char *tool = json_object_is_type(doc, json_type_object) ? jstr(doc, "tool") : NULL;
    int t = tool ? rpt_tool_of(tool) : -1;
    json_object *hc;
    if (t < 0 && !tool && json_object_is_type(doc, json_type_object) &&
        json_object_object_get_ex(doc, "host_clock", &hc)) {
        /* A host's clock synchronisation: read by the merge that judges the clocks. */
        rpt_list_add(&r->clock_files, &r->nclock_files, "%s", path);
        json_object_put(doc);
        return 0;
    }
    if (t < 0) {
        rpt_list_add(&r->ignored, &r->nignored, "%s: %s", path,
                     tool && strcmp(tool, "rwfperf-merge") == 0
                         ? "rwfperf-merge's report (this page combines the same files itself)"
                     : tool ? "the JSON of another program"
                            : "not a JSON summary of the tools");
        json_object_put(doc);
        return 0;
    }
    json_object *res, *ov, *host, *pid;
    if (!json_object_object_get_ex(doc, "results", &res) ||
        !json_object_object_get_ex(res, "overall", &ov) ||
        !json_object_is_type(ov, json_type_object)) {
        json_object_put(doc);
        return rpt_bad_add(r, path, 0, "a %s JSON summary without results.overall (cut off?)",
                           tool);
    }
    const char *hname = json_object_object_get_ex(doc, "host", &host) ? jstr(host, "name") : NULL;
    int p_id = json_object_object_get_ex(doc, "pid", &pid) ? json_object_get_int(pid) : 0;
    rpt_proc *p = proc_get(r, t, hname ? hname : "", p_id, folder, true);
    if (!p) {
        json_object_put(doc);
        return -2;
    }
    if (p->json) {
        rc = rpt_bad_add(r, path, 0, "a second JSON summary of %s pid %d on %s (the first: %s)",
                         tool, p_id, p->host, p->json_path);
        json_object_put(doc);
        return rc;
    }
    p->json = doc;
    snprintf(p->json_path, sizeof(p->json_path), "%s", path);
    snprintf(p->folder, sizeof(p->folder), "%s", folder);
    const char *w = jstr(doc, "written_utc");
    p->json_line_written = key_line(path, "written_utc");
    if (w && rpt_utc_parse(w, &p->written) != 0)
        return rpt_bad_add(r, path, p->json_line_written, "written_utc \"%s\" is not a UTC time",
                           w);
    p->test_inputs = test_inputs(path);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Walking                                                                                    */

/* Keeps a sweep found at path (a bench.csv), with the environment of one of its runs. Returns
 * 0, 1 when the file is not a bench.sh sweep, -1 after rpt_bad_add, -2 out of memory. */
static int take_sweep(rpt *r, const char *path, const char *folder)
{
    if (rpt_grow(&r->sweeps, &r->sweep_cap, r->nsweeps, sizeof(*r->sweeps)) != 0)
        return -2;
    rpt_sweep *s = &r->sweeps[r->nsweeps];
    int rc = rpt_sweep_read(r, path, s);
    if (rc == 1) {
        free(s->rows);
        rpt_list_add(&r->ignored, &r->nignored, "%s: not a bench.csv of scripts/bench.sh", path);
        return 1;
    }
    r->nsweeps++;
    snprintf(s->folder, sizeof(s->folder), "%s", folder);
    for (int i = 0; rc == 0 && !s->env && i < s->nrows; i++) {
        if (strcmp(s->rows[i].pair, "ours") != 0 || !s->rows[i].run[0])
            continue;
        char jp[RPT_PATH * 2 + 32];
        snprintf(jp, sizeof(jp), "%s/%s/ConsSummary.json", folder, s->rows[i].run);
        json_object *doc = json_object_from_file(jp);
        if (doc && json_object_is_type(doc, json_type_object) && jstr(doc, "tool")) {
            s->env = doc;
            snprintf(s->env_path, sizeof(s->env_path), "%.1000s", jp);
        } else {
            json_object_put(doc);
        }
    }
    return rc;
}

/* Reads one file by its name: *.json, *.hlog, *.csv; others are not results. */
static int take_file(rpt *r, const char *path, const char *folder)
{
    const char *name = base_of(path);
    if (ends_with(name, ".json"))
        return take_json(r, path, folder);
    if (ends_with(name, ".hlog")) {
        if (rpt_grow(&r->logs, &r->log_cap, r->nlogs, sizeof(*r->logs)) != 0)
            return -2;
        int rc = rpt_log_read(r, path, &r->logs[r->nlogs]);
        r->nlogs++; /* kept even when bad, so that rpt_free releases it */
        return rc;
    }
    if (ends_with(name, ".csv") && strcmp(name, "bench.csv") != 0) {
        if (rpt_grow(&r->csvs, &r->csv_cap, r->ncsvs, sizeof(*r->csvs)) != 0)
            return -2;
        rpt_csv *c = &r->csvs[r->ncsvs];
        int rc = rpt_csv_read(r, path, c);
        if (rc == 1) {
            rpt_csv_free(c);
            rpt_list_add(&r->ignored, &r->nignored, "%s: %s", path,
                         strstr(name, "_percentiles")
                             ? "rwfperf-merge's percentile table (this page draws its own)"
                             : "not a statistics file of the tools (a -latencyFile log: the "
                               "histogram logs hold the same latencies)");
            return 0;
        }
        r->ncsvs++;
        return rc;
    }
    return 0;
}

/* scandir order: by name, so that a folder is read the same way every time. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Reads folder and its subfolders. Returns 0, or -1 (bad input recorded), -2. */
static int walk(rpt *r, const char *folder, int depth)
{
    struct dirent **ents;
    int n = scandir(folder, &ents, NULL, by_name);
    if (n < 0)
        return rpt_bad_add(r, folder, 0, "cannot read the folder: %s", strerror(errno));
    int rc = 0;
    char path[RPT_PATH];
    /* A sweep's folder belongs to the sweep: its runs are the sweep's rows. */
    for (int i = 0; i < n; i++)
        if (strcmp(ents[i]->d_name, "bench.csv") == 0) {
            snprintf(path, sizeof(path), "%s/bench.csv", folder);
            rc = take_sweep(r, path, folder);
            if (rc == 1) {
                rc = 0;
                break;
            }
            for (int k = 0; k < n; k++)
                free(ents[k]);
            free(ents);
            return rc;
        }
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        struct stat st;
        if (name[0] == '.' ||
            (size_t)snprintf(path, sizeof(path), "%s/%s", folder, name) >= sizeof(path) ||
            lstat(path, &st) != 0)
            continue;
        int got = 0;
        if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
            got = walk(r, path, depth + 1);
        else if (S_ISREG(st.st_mode))
            got = take_file(r, path, folder);
        if (got == -2) {
            rc = -2;
            break;
        }
        if (got != 0)
            rc = -1;
    }
    for (int i = 0; i < n; i++)
        free(ents[i]);
    free(ents);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Putting files into processes                                                               */

/* Attaches each log to its process (tool, host, pid), made when the log has no summary. */
static int attach_logs(rpt *r)
{
    for (int i = 0; i < r->nlogs; i++) {
        rpt_log *l = &r->logs[i];
        char folder[RPT_PATH];
        dir_of(l->path, folder, sizeof(folder));
        rpt_proc *p = proc_get(r, rpt_tool_of(l->tool), l->host, l->pid, folder, true);
        if (!p)
            return -2;
        int *nl = realloc(p->logs, (size_t)(p->nlog + 1) * sizeof(int));
        if (!nl)
            return -2;
        p->logs = nl;
        p->logs[p->nlog++] = i;
        if (!p->folder[0])
            snprintf(p->folder, sizeof(p->folder), "%s", folder);
    }
    for (int i = 0; i < r->nprocs; i++)
        for (int k = 0; k < r->procs[i].nlog; k++)
            r->logs[r->procs[i].logs[k]].proc = i;
    return 0;
}

/* Does the statistics file c carry the statistics name of summary p (inputs.statsFile)? */
static bool csv_of(const rpt_csv *c, const rpt_proc *p)
{
    json_object *in;
    const char *stats =
        p->json && json_object_object_get_ex(p->json, "inputs", &in) ? jstr(in, "statsFile") : NULL;
    if (!stats)
        return false;
    stats = base_of(stats);
    const char *name = base_of(c->path);
    if (strncmp(name, stats, strlen(stats)) != 0)
        return false;
    return c->tool != RPT_TRANSPORT || c->pid == p->pid;
}

/* Attaches each statistics CSV to the process of its folder's summary, or to one of its own. */
static int attach_csvs(rpt *r)
{
    for (int i = 0; i < r->ncsvs; i++) {
        rpt_csv *c = &r->csvs[i];
        char folder[RPT_PATH];
        dir_of(c->path, folder, sizeof(folder));
        int found = -1, others = -1;
        for (int k = 0; k < r->nprocs; k++) {
            const rpt_proc *p = &r->procs[k];
            if (p->tool != c->tool || !p->json || strcmp(p->folder, folder) != 0)
                continue;
            if (csv_of(c, p))
                found = k;
            else
                others = k;
        }
        if (found < 0 && others >= 0)
            return rpt_bad_add(r, c->path, 1,
                               "a %s statistics file that none of this folder's %s summaries "
                               "names (%s is pid %d): files of two different runs",
                               rpt_tool_name(c->tool), rpt_tool_name(c->tool),
                               base_of(r->procs[others].json_path), r->procs[others].pid);
        if (found < 0) {
            rpt_proc *p = proc_get(r, c->tool, "", c->pid, folder, true);
            if (!p)
                return -2;
            found = (int)(p - r->procs);
        }
        rpt_proc *p = &r->procs[found];
        int *nc = realloc(p->csvs, (size_t)(p->ncsv + 1) * sizeof(int));
        if (!nc)
            return -2;
        p->csvs = nc;
        /* In thread order. */
        int at = p->ncsv;
        while (at > 0 && r->csvs[p->csvs[at - 1]].thread > c->thread) {
            p->csvs[at] = p->csvs[at - 1];
            at--;
        }
        p->csvs[at] = i;
        p->ncsv++;
        c->proc = found;
    }
    return 0;
}

double rpt_proc_interval(const rpt *r, const rpt_proc *p)
{
    json_object *in, *v;
    if (p->json && json_object_object_get_ex(p->json, "inputs", &in) &&
        json_object_object_get_ex(in, "writeStatsInterval", &v) && json_object_get_int(v) > 0)
        return json_object_get_int(v);
    double best = 5;
    int best_count = 0;
    for (int k = 0; k < p->ncsv; k++) {
        const rpt_csv *c = &r->csvs[p->csvs[k]];
        for (int i = 1; i < c->nrows; i++) {
            double d = c->t[i] - c->t[i - 1];
            if (d <= 0)
                continue;
            int count = 0;
            for (int j = 1; j < c->nrows; j++)
                count += c->t[j] - c->t[j - 1] == d;
            if (count > best_count) {
                best_count = count;
                best = d;
            }
        }
    }
    return best;
}

/* The page's order of processes: tool (ConsPerf first), host, folder, pid. */
static int proc_order(const rpt_proc *a, const rpt_proc *b)
{
    if (a->tool != b->tool)
        return a->tool - b->tool;
    int c = strcmp(a->host, b->host);
    if (c)
        return c;
    c = strcmp(a->folder, b->folder);
    if (c)
        return c;
    return a->pid - b->pid;
}

/* Sorts the processes (tool, host, folder, pid) and renumbers the files' references. */
static void sort_procs(rpt *r)
{
    for (int i = 1; i < r->nprocs; i++)
        for (int j = i; j > 0 && proc_order(&r->procs[j - 1], &r->procs[j]) > 0; j--) {
            rpt_proc t = r->procs[j];
            r->procs[j] = r->procs[j - 1];
            r->procs[j - 1] = t;
        }
    for (int i = 0; i < r->nprocs; i++) {
        for (int k = 0; k < r->procs[i].nlog; k++)
            r->logs[r->procs[i].logs[k]].proc = i;
        for (int k = 0; k < r->procs[i].ncsv; k++)
            r->csvs[r->procs[i].csvs[k]].proc = i;
    }
}

/* qsort order of doubles. */
static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The statistics rows of p carry whole seconds (the UTC column); its histogram logs stamp the
 * same intervals' ends to the millisecond. Each row is placed at the end of its interval in the
 * logs when one is found: in the row's second (the row is written just after the interval
 * ends), else in the second before. */
static void place_rows(rpt *r, rpt_proc *p)
{
    /* One log's ends (the first thread's) for every file, so that the threads' rows of one
     * interval stay at one time and add up. */
    const rpt_log *l = NULL;
    for (int k = 0; k < p->nlog; k++)
        if (r->logs[p->logs[k]].nkinds && (!l || r->logs[p->logs[k]].thread < l->thread))
            l = &r->logs[p->logs[k]];
    if (!l || !p->ncsv)
        return;
    int n = l->kinds[0].n;
    double *ends = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!ends)
        return;
    for (int i = 0; i < n; i++)
        ends[i] = l->kinds[0].iv[i].end;
    qsort(ends, (size_t)n, sizeof(double), by_double);
    for (int k = 0; k < p->ncsv; k++) {
        rpt_csv *c = &r->csvs[p->csvs[k]];
        for (int i = 0; i < c->nrows; i++) {
            double t = c->t[i], best = NAN;
            for (int e = 0; e < n; e++) {
                if (ends[e] >= t && ends[e] < t + 1) {
                    best = ends[e];
                    break;
                }
                if (ends[e] >= t - 1 && ends[e] < t)
                    best = ends[e];
            }
            if (!isnan(best) && (i == 0 || best > c->t[i - 1]))
                c->t[i] = best;
        }
    }
    free(ends);
}

/* Hosts, labels and time spans. */
static void finish_procs(rpt *r)
{
    for (int i = 0; i < r->nprocs; i++) {
        const char *h = r->procs[i].host;
        bool seen = !h[0];
        for (int k = 0; k < r->nhosts && !seen; k++)
            seen = strcmp(r->hosts[k], h) == 0;
        if (!seen)
            rpt_list_add(&r->hosts, &r->nhosts, "%s", h);
    }
    r->start = INFINITY;
    r->end = -1;
    for (int i = 0; i < r->nprocs; i++) {
        rpt_proc *p = &r->procs[i];
        if (p->pid && r->nhosts > 1)
            snprintf(p->label, sizeof(p->label), "%.60s %s %d", p->host, rpt_tool_name(p->tool),
                     p->pid);
        else if (p->pid)
            snprintf(p->label, sizeof(p->label), "%s %d", rpt_tool_name(p->tool), p->pid);
        else
            snprintf(p->label, sizeof(p->label), "%s (%.60s)", rpt_tool_name(p->tool),
                     base_of(p->folder));
        double iv = rpt_proc_interval(r, p);
        if (!p->json && !p->test_inputs)
            p->test_inputs = default_inputs(p);
        place_rows(r, p);
        for (int k = 0; k < p->nlog; k++) {
            const rpt_log *l = &r->logs[p->logs[k]];
            if (l->start < p->start)
                p->start = l->start;
            if (l->end > p->end)
                p->end = l->end;
        }
        for (int k = 0; k < p->ncsv; k++) {
            const rpt_csv *c = &r->csvs[p->csvs[k]];
            if (c->nrows && c->t[0] - iv < p->start)
                p->start = c->t[0] - iv;
            if (c->nrows && c->t[c->nrows - 1] > p->end)
                p->end = c->t[c->nrows - 1];
        }
        if (p->written >= 0 && p->written > p->end)
            p->end = p->written;
        if (p->written >= 0 && p->start > p->written)
            p->start = p->written;
        if (p->end >= 0 && p->start < r->start)
            r->start = p->start;
        if (p->end > r->end)
            r->end = p->end;
    }
}

int rpt_scan(rpt *r, const char *const *folders, int nfolders)
{
    r->folders = folders;
    r->nfolders = nfolders;
    int rc = 0;
    for (int i = 0; i < nfolders; i++) {
        struct stat st;
        if (stat(folders[i], &st) != 0) {
            rc = rpt_bad_add(r, folders[i], 0, "%s", strerror(errno));
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc = rpt_bad_add(r, folders[i], 0, "not a folder (give the folder of a run's files)");
            continue;
        }
        int before = r->nprocs + r->ncsvs + r->nlogs + r->nsweeps, got = walk(r, folders[i], 0);
        if (got == -2)
            return -2;
        if (got != 0)
            rc = -1;
        else if (r->nprocs + r->ncsvs + r->nlogs + r->nsweeps == before)
            rc = rpt_bad_add(r, folders[i], 0,
                             "no results here (no JSON summary, statistics CSV, histogram log "
                             "or bench.csv in it or its subfolders)");
    }
    if (rc != 0)
        return rc;
    if (attach_logs(r) != 0 || (rc = attach_csvs(r)) == -2)
        return -2;
    if (rc != 0)
        return rc;
    sort_procs(r);
    finish_procs(r);
    return 0;
}
