/* report_model: the model's small shared pieces: tool names, lists, bad inputs, releasing
 * (see report.h). */
#include "report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const tool_names[RPT_TOOLS] = {"ConsPerf", "TransportPerf", "NIProvPerf",
                                                  "ProvPerf"};

const char *rpt_tool_name(int t)
{
    return t >= 0 && t < RPT_TOOLS ? tool_names[t] : "?";
}

int rpt_tool_of(const char *name)
{
    for (int t = 0; t < RPT_TOOLS; t++)
        if (strcmp(name, tool_names[t]) == 0)
            return t;
    return -1;
}

const char *rpt_status_name(int status)
{
    switch (status) {
    case RPT_PASSED:
        return "passed";
    case RPT_FAILED:
        return "failed";
    case RPT_INTERRUPTED:
        return "interrupted";
    default:
        return "unknown";
    }
}

int rpt_grow(void *p, int *cap, int n, size_t sz)
{
    void **arr = p;
    if (n + 1 <= *cap)
        return 0;
    int c = *cap ? *cap * 2 : 8;
    while (c < n + 1)
        c *= 2;
    void *q = realloc(*arr, (size_t)c * sz);
    if (!q)
        return -1;
    *arr = q;
    *cap = c;
    return 0;
}

int rpt_bad_add(rpt *r, const char *file, int line, const char *fmt, ...)
{
    if (rpt_grow(&r->bad, &r->bad_cap, r->nbad, sizeof(*r->bad)) != 0)
        return -1;
    rpt_bad *b = &r->bad[r->nbad++];
    snprintf(b->file, sizeof(b->file), "%s", file);
    b->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->what, sizeof(b->what), fmt, ap);
    va_end(ap);
    return -1;
}

void rpt_list_add(char ***list, int *n, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char **l = realloc(*list, (size_t)(*n + 1) * sizeof(*l));
    if (!l)
        return;
    *list = l;
    if ((l[*n] = strdup(buf)))
        (*n)++;
}

int rpt_utc_parse(const char *s, double *t)
{
    struct tm tm = {0};
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &used) != 6 ||
        s[used] || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *t = (double)timegm(&tm);
    return 0;
}

void rpt_utc_format(char *buf, size_t size, double t, const char *fmt)
{
    struct tm tm;
    time_t s = (time_t)(t >= 0 && t < 253402300800.0 ? t : 0);
    if (!(t >= 0 && t < 253402300800.0) || !gmtime_r(&s, &tm) || !strftime(buf, size, fmt, &tm))
        snprintf(buf, size, "?");
}

/* Releases a list of n strings. */
static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Releases a merge made by rpt_combine (NULL: nothing). */
static void merge_release(merge *m)
{
    if (m) {
        merge_free(m);
        free(m);
    }
}

void rpt_free(rpt *r)
{
    for (int i = 0; i < r->nprocs; i++) {
        rpt_proc *p = &r->procs[i];
        json_object_put(p->json);
        free(p->test_inputs);
        free(p->csvs);
        free(p->logs);
        free_list(p->warnings, p->nwarn);
    }
    free(r->procs);
    for (int i = 0; i < r->ncsvs; i++)
        rpt_csv_free(&r->csvs[i]);
    free(r->csvs);
    for (int i = 0; i < r->nlogs; i++) {
        rpt_log *l = &r->logs[i];
        for (int k = 0; k < l->nkinds; k++) {
            for (int j = 0; j < l->kinds[k].n; j++) {
                free(l->kinds[k].iv[j].idx);
                free(l->kinds[k].iv[j].cnt);
            }
            free(l->kinds[k].iv);
        }
        free(l->kinds);
    }
    free(r->logs);
    for (int i = 0; i < r->nsweeps; i++) {
        free(r->sweeps[i].rows);
        json_object_put(r->sweeps[i].env);
    }
    free(r->sweeps);
    free_list(r->ignored, r->nignored);
    free_list(r->clock_files, r->nclock_files);
    free_list(r->hosts, r->nhosts);
    free_list(r->warnings, r->nwarn);
    free(r->bad);
    for (int t = 0; t < RPT_TOOLS; t++)
        merge_release(r->by_tool[t]);
    for (int h = 0; r->by_host && h < r->nhosts; h++)
        merge_release(r->by_host[h]);
    free(r->by_host);
    memset(r, 0, sizeof(*r));
}
