#include "run_col.h"

#include "clk.h"
#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Samples moved out of a ring per batch. */
#define SAMPLE_BATCH 4096

static const char *const sample_name[RUN_SAMPLE_TYPES] = {"Upd", "Pst", "Gen"};

int64_t run_col_wait_ns(int tick_rate)
{
    int64_t tick = tick_rate > 0 ? CLK_NS_PER_SEC / tick_rate : CLK_NS_PER_SEC;
    int64_t w = 2 * tick + 200 * 1000000LL;
    return w < CLK_NS_PER_SEC ? w : CLK_NS_PER_SEC;
}

int run_col_init(run_col *c, int n, size_t kinds, int tick_rate)
{
    memset(c, 0, sizeof(*c));
    c->n = n;
    c->kinds = kinds;
    c->wait_ns = run_col_wait_ns(tick_rate);
    c->t = calloc((size_t)n, sizeof(*c->t));
    c->samples_cap = SAMPLE_BATCH;
    c->samples = calloc(c->samples_cap, sizeof(*c->samples));
    if (!c->t || !c->samples)
        return err_set("out of memory for the statistics of %d threads", n);
    for (int i = 0; i < n; i++) {
        c->t[i].tot = malloc(kinds * sizeof(lat));
        if (!c->t[i].tot)
            return err_set("out of memory for the statistics of %d threads", n);
        for (size_t k = 0; k < kinds; k++)
            lat_reset(&c->t[i].tot[k]);
    }
    c->res_ok = res_init(&c->res) == 0;
    if (!c->res_ok)
        printf("Error: %s\n", err_msg());
    return 0;
}

void run_col_free(run_col *c)
{
    for (int i = 0; c->t && i < c->n; i++) {
        out_csv_close(&c->t[i].stats);
        out_csv_close(&c->t[i].latlog);
        run_hlog_close(c->t[i].hlog);
        free(c->t[i].tot);
    }
    free(c->t);
    free(c->samples);
    free(c->scratch);
    memset(c, 0, sizeof(*c));
}

int run_col_hlog(run_col *c, const char *base, int pid, const char *tool, const char *const *tags)
{
    c->hlog_tags = tags;
    for (int i = 0; i < c->n; i++)
        if (!c->t[i].hlog && !(c->t[i].hlog = run_hlog_open(base, i + 1, pid, tool, c->kinds)))
            return -1;
    return 0;
}

void run_col_watch(run_col *c, int i, latbuf *hand, latring *ring)
{
    c->t[i].lat = hand;
    c->t[i].ring = ring;
}

void run_col_row_done(run_col *c, int i, int rc)
{
    if (rc == 0)
        return;
    printf("Error: %s\n", err_msg());
    out_csv_close(&c->t[i].stats);
}

void run_col_drain(run_col *c, int i)
{
    run_col_thread *t = &c->t[i];
    if (!t->ring)
        return;
    size_t n;
    while ((n = latring_pop(t->ring, c->samples, c->samples_cap)) > 0)
        for (size_t k = 0; k < n; k++) {
            const latring_sample *s = &c->samples[k];
            const char *type = NULL;
            if (t->latlog.with_type)
                type = sample_name[s->type < RUN_SAMPLE_TYPES ? s->type : 0];
            out_latlog_row(&t->latlog, type, (uint64_t)s->send, (uint64_t)s->recv);
        }
    if (out_latlog_flush(&t->latlog) != 0) {
        printf("Error: %s\n", err_msg());
        out_csv_close(&t->latlog);
    }
    uint64_t dropped = latring_dropped(t->ring);
    if (dropped != t->dropped) {
        fprintf(stderr,
                "Warning: %" PRIu64 " latency samples of thread %d were not written to %s "
                "(more than %zu samples between two writes).\n",
                dropped - t->dropped, i + 1, t->latlog.path, latring_capacity(t->ring));
        t->dropped = dropped;
    }
}

void run_col_drain_all(run_col *c)
{
    for (int i = 0; i < c->n; i++)
        run_col_drain(c, i);
}

void run_col_interval(run_col *c)
{
    if (c->res_ok && res_sample(&c->res) != 0) {
        printf("Error: %s\n", err_msg());
        c->res_ok = false;
    }
    c->cpu = c->res_ok ? c->res.cpu : 0;
    c->mem_mb = c->res_ok ? c->res.mem : 0;
    c->wall = time(NULL);
}

/* Adds a handed-over set to worker i's totals. */
static void add_set(run_col *c, int i, const lat *set)
{
    for (size_t k = 0; k < c->kinds; k++)
        if (set[k].count)
            lat_merge(&c->t[i].tot[k], &set[k]);
}

const lat *run_col_take(run_col *c, int i)
{
    run_col_thread *t = &c->t[i];
    const lat *set = t->lat ? latbuf_collect(t->lat, c->wait_ns) : NULL;
    run_col_drain(c, i);
    if (set) {
        add_set(c, i, set);
        run_hlog_write(t->hlog, c->hlog_tags, c->kinds, set);
    }
    return set;
}

void run_col_final(run_col *c)
{
    /* One take is not always enough: when an interval's hand-over timed out and the worker
     * acknowledged it afterwards, the first take returns the set it left then, and only the
     * next one its last active set. A joined worker has closed its recorders, so this ends
     * within two takes; one that never answers is left after a timeout. */
    for (int i = 0; i < c->n; i++) {
        run_col_thread *t = &c->t[i];
        while (t->lat && !latbuf_done(t->lat) && run_col_take(c, i))
            ;
        run_col_drain(c, i);
    }
}

int run_col_summary(const run_col *c, int i, size_t kind, stat_lat *out)
{
    if (i >= 0) {
        lat_summary(&c->t[i].tot[kind], out);
        return 0;
    }
    lat *sum = malloc(sizeof(*sum));
    if (!sum) {
        memset(out, 0, sizeof(*out));
        return err_set("out of memory for the summary");
    }
    lat_reset(sum);
    for (int k = 0; k < c->n; k++)
        lat_merge(sum, &c->t[k].tot[kind]);
    lat_summary(sum, out);
    free(sum);
    return 0;
}

double run_col_percentile(run_col *c, size_t kind, double p, uint64_t *count)
{
    const lat *l = c->n == 1 ? &c->t[0].tot[kind] : NULL;
    if (!l && (c->scratch || (c->scratch = malloc(sizeof(*c->scratch))))) {
        lat_reset(c->scratch);
        for (int k = 0; k < c->n; k++)
            lat_merge(c->scratch, &c->t[k].tot[kind]);
        l = c->scratch;
    }
    *count = l ? l->count - l->negative : 0;
    return l ? lat_percentile(l, p) : 0.0;
}

void run_col_res(const run_col *c, stat_res *out)
{
    res_summary(&c->res, out);
}
