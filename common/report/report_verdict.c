/* report_verdict: passed, failed or interrupted, and why, for each process and for the whole
 * input, from the JSON summaries (see report.h). */
#include "report.h"

#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Member key of object o, or NULL (o may be NULL). */
static json_object *member(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Is member key of o the boolean true? */
static bool is_true(json_object *o, const char *key)
{
    json_object *v = member(o, key);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* Is member key of o the boolean false (absent is neither)? */
static bool is_false(json_object *o, const char *key)
{
    json_object *v = member(o, key);
    return v && json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v);
}

/* Is v a JSON number? */
static bool is_number(json_object *v)
{
    return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

/* The error text of the overall results or of the first thread that has one, or NULL. */
static const char *error_of(json_object *res)
{
    json_object *e = member(member(res, "overall"), "error");
    if (e && json_object_is_type(e, json_type_string))
        return json_object_get_string(e);
    json_object *th = member(res, "threads");
    for (size_t i = 0;
         th && json_object_is_type(th, json_type_array) && i < json_object_array_length(th); i++) {
        e = member(json_object_array_get_idx(th, i), "error");
        if (e && json_object_is_type(e, json_type_string))
            return json_object_get_string(e);
    }
    return NULL;
}

/* The offered-against-achieved warnings of the summary, written by the tools' own rule
 * (out_rate_check) from the JSON's rates. */
static void rate_warnings(rpt_proc *p, json_object *ov)
{
    static const struct {
        const char *offered, *achieved, *what;
    } pairs[] = {
        {"offered_update_rate", "achieved_update_rate", "update"},
        {"expected_update_rate", "achieved_update_rate", "update"},
        {"offered_posting_rate", "achieved_posting_rate", "post"},
        {"offered_genmsg_rate", "achieved_genmsg_rate", "GenMsg"},
        {"offered_msg_rate", "achieved_msg_rate", "msg"},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        json_object *o = member(ov, pairs[i].offered), *a = member(ov, pairs[i].achieved);
        if (!is_number(o) || !is_number(a))
            continue;
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
            continue;
        out_report rep;
        out_report_init(&rep, NULL, f);
        bool warned = out_rate_check(&rep, pairs[i].what, json_object_get_double(o),
                                     json_object_get_double(a));
        fclose(f);
        char *w = warned ? strstr(text, "Warning: ") : NULL;
        if (w) {
            w += strlen("Warning: ");
            w[strcspn(w, "\n")] = '\0';
            rpt_list_add(&p->warnings, &p->nwarn, "%s", w);
        }
        free(text);
    }
}

/* Sets p's status, reason and rate warnings from its JSON summary (UNKNOWN without one). */
static void proc_verdict(rpt_proc *p)
{
    if (!p->json) {
        p->status = RPT_UNKNOWN;
        snprintf(p->reason, sizeof(p->reason), "no JSON summary (only %s)",
                 p->ncsv ? "statistics files" : "histogram logs");
        return;
    }
    json_object *res = member(p->json, "results"), *ov = member(res, "overall");
    const char *err = error_of(res);
    json_object *st = member(res, "status");
    if (is_true(res, "interrupted") || is_true(ov, "interrupted") ||
        (st && json_object_is_type(st, json_type_string) &&
         strcmp(json_object_get_string(st), "interrupted") == 0)) {
        p->status = RPT_INTERRUPTED;
        snprintf(p->reason, sizeof(p->reason), "stopped before the end of its run%s%s",
                 err ? ": " : "", err ? err : "");
    } else if (is_false(res, "passed") || err || is_false(ov, "steady_state_reached")) {
        p->status = RPT_FAILED;
        snprintf(p->reason, sizeof(p->reason), "%s",
                 err                                    ? err
                 : is_false(ov, "steady_state_reached") ? "steady state not reached (images "
                                                          "missing)"
                                                        : "the summary says it did not pass");
    } else {
        p->status = RPT_PASSED;
        snprintf(p->reason, sizeof(p->reason), "%s",
                 member(res, "passed") ? "passed" : "completed (no error in its summary)");
    }
    rate_warnings(p, ov);
}

/* Did row i of a sweep miss its steady state (the consumer never had every image) at a rate
 * above one its configuration held? That is where the configuration's limit lies, what the
 * sweep looks for: not a failure. */
bool rpt_sweep_beyond(const rpt_sweep *s, int i)
{
    const rpt_sweep_row *w = &s->rows[i];
    if (!isnan(w->received) || strcmp(w->received_text, "no-images") != 0)
        return false;
    for (int k = 0; k < s->nrows; k++) {
        const rpt_sweep_row *x = &s->rows[k];
        if (x->held && x->offered < w->offered && strcmp(x->mode, w->mode) == 0 &&
            strcmp(x->pair, w->pair) == 0 && strcmp(x->pack, w->pack) == 0)
            return true;
    }
    return false;
}

/* A sweep: every run reached its steady state, or which did not; those above a rate their
 * configuration held (beyond its limit) listed apart, as the sweep's finding. */
static void sweep_verdict(const rpt_sweep *s, int *failed, int *beyond, int *runs, char *list,
                          size_t size, char *blist, size_t bsize)
{
    for (int i = 0; i < s->nrows; i++) {
        (*runs)++;
        if (!isnan(s->rows[i].received))
            continue;
        bool b = rpt_sweep_beyond(s, i);
        int *count = b ? beyond : failed;
        char *l = b ? blist : list;
        size_t n = strlen(l), ls = b ? bsize : size;
        if (*count < 4)
            snprintf(l + n, ls - n, "%s%s %s %s at %.0f upd/s (%s)", *count ? "; " : "",
                     s->rows[i].mode, s->rows[i].pair, s->rows[i].pack, s->rows[i].offered,
                     s->rows[i].received_text);
        (*count)++;
    }
}

void rpt_verdict(rpt *r)
{
    int count[4] = {0}, tools[RPT_TOOLS] = {0};
    for (int i = 0; i < r->nprocs; i++) {
        proc_verdict(&r->procs[i]);
        count[r->procs[i].status]++;
        tools[r->procs[i].tool]++;
    }
    char what[256] = "";
    size_t n = 0;
    for (int t = 0; t < RPT_TOOLS; t++)
        if (tools[t] && n < sizeof(what))
            n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%d %s", n ? ", " : "", tools[t],
                                  rpt_tool_name(t));
    int bad = count[RPT_INTERRUPTED] ? RPT_INTERRUPTED : count[RPT_FAILED] ? RPT_FAILED : 0;
    if (bad) {
        r->status = bad;
        n = 0;
        for (int i = 0; i < r->nprocs && n < sizeof(r->reason); i++)
            if (r->procs[i].status == bad)
                n += (size_t)snprintf(r->reason + n, sizeof(r->reason) - n, "%s%s: %s",
                                      n ? "; " : "", r->procs[i].label, r->procs[i].reason);
    } else if (count[RPT_PASSED]) {
        r->status = RPT_PASSED;
        snprintf(r->reason, sizeof(r->reason), "%s: every process with a JSON summary passed%s",
                 what, count[RPT_UNKNOWN] ? " (some have none)" : "");
    } else if (r->nprocs) {
        r->status = RPT_UNKNOWN;
        snprintf(r->reason, sizeof(r->reason),
                 "%s: no JSON summary, so nothing says whether the run passed", what);
    }
    if (r->nsweeps) {
        int failed = 0, beyond = 0, runs = 0;
        char list[512] = "", blist[512] = "";
        for (int i = 0; i < r->nsweeps; i++)
            sweep_verdict(&r->sweeps[i], &failed, &beyond, &runs, list, sizeof(list), blist,
                          sizeof(blist));
        if (failed) {
            r->status = RPT_FAILED;
            snprintf(r->reason, sizeof(r->reason),
                     "rate sweep: %d of %d runs did not reach their steady state: %s%s", failed,
                     runs, list, failed > 4 ? "; ..." : "");
        } else if (!r->nprocs && beyond) {
            r->status = RPT_PASSED;
            snprintf(r->reason, sizeof(r->reason),
                     "rate sweep: %d of %d runs reached their steady state; the rest were "
                     "offered more than their pair held (its limit): %s%s",
                     runs - beyond, runs, blist, beyond > 4 ? "; ..." : "");
        } else if (!r->nprocs) {
            r->status = RPT_PASSED;
            snprintf(r->reason, sizeof(r->reason),
                     "rate sweep: all %d runs reached their steady state", runs);
        }
    }
}
