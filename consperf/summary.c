/* ConsPerf's end of the run: the summary (console and file) and the JSON summary, with the
 * error texts that say why the run failed. */
#include "app.h"
#include "report.h"

#include "clk.h"
#include "err.h"
#include "run_setup.h"
#include "sig.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The error text of a thread that lacks images when the run ends for want of them, with the
 * reason its last connection attempt failed (a certificate the check refused, ...). */
static void note_missing_images(cons_result *r, cons_stats *thread, const cons_run *run,
                                const char *why)
{
    for (int i = 0; i < r->thread_count; i++) {
        cons_stats *s = &thread[i];
        if (s->error[0] || s->image_end_ns || s->item_count == 0)
            continue;
        const char *conn = i < run->thread_count ? run->threads[i].conn_error : "";
        snprintf(s->error, sizeof(s->error), "%.128s (%" PRIu64 " of %d images received)%s%.300s%s",
                 why, s->refreshes, s->item_count, conn[0] ? ": " : ".", conn, conn[0] ? "." : "");
    }
    if (r->thread_count == 1)
        memcpy(r->total.error, thread[0].error, sizeof(r->total.error));
}

int cons_app_summary(cons_app *a, cons_end why)
{
    cons_collector *col = &a->col;
    const cons_run *run = &a->run;
    const cons_config *cfg = run->cfg;
    cons_stats *thread = calloc((size_t)run->thread_count, sizeof(*thread));
    cons_result result;
    if (!thread || cons_collect_result(col, &result, thread, (uint64_t)clk_ns()) < 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        free(thread);
        return RUN_EXIT_FAILED;
    }
    /* A signal that ended the run before its steady state completed: the run was interrupted. */
    result.interrupted = why == CONS_END_STOPPED ? sig_caught() : 0;
    result.steady_state_time = cfg->steady_state_time;
    bool images = result.total.image_end_ns != 0 || cfg->opts.item_count == 0;
    char why_text[128];
    if (why == CONS_END_IMAGES_LATE && cfg->opts.item_count == 0) {
        snprintf(thread[0].error, sizeof(thread[0].error),
                 "No items were requested (-itemCount 0): there are no images to wait for and "
                 "no steady state.");
        memcpy(result.total.error, thread[0].error, sizeof(result.total.error));
    } else if (why == CONS_END_IMAGES_LATE) {
        snprintf(why_text, sizeof(why_text), "Failed to receive all images within %d seconds",
                 cfg->steady_state_time);
        note_missing_images(&result, thread, run, why_text);
    } else if (result.interrupted && !images) {
        snprintf(why_text, sizeof(why_text), "Stopped by %s before all images were received",
                 cons_signal_name(result.interrupted));
        note_missing_images(&result, thread, run, why_text);
    }

    out_report rep;
    out_report_init(&rep, stdout, a->summary);
    bool failed = cons_report_summary(&rep, cfg, &result);
    /* Ours, after the original's lines: the clock offset to the provider, the best of every
     * connection's exchanges, against the update latency. */
    clksync cs;
    clksync_start(&cs, CLKSYNC_OFF, 0);
    for (int i = 0; i < run->thread_count; i++)
        clksync_fold(&cs, &run->threads[i].clksync);
    const stat_lat *upd = &result.total.overall_lat;
    clksync_report(&rep, &cs, upd->count > 0, upd->avg);
    if (out_report_flush(&rep) < 0)
        fprintf(stderr, "Error: writing the summary: %s\n", err_msg());

    json_object *doc = cons_report_json(cfg, &result, NULL, (int)getpid(), time(NULL));
    run_tls_seen seen;
    run_tls_seen_init(&seen);
    for (int i = 0; i < run->thread_count; i++)
        run_tls_seen_add(&seen, run->threads[i].tls_version, run->threads[i].tls_cipher);
    run_tls_seen_to_results(doc, &seen);
    json_object *results;
    if (doc && json_object_object_get_ex(doc, "results", &results))
        out_json_add(results, "clock_offset", clksync_json(&cs, upd->count > 0, upd->avg));
    pthread_mutex_destroy(&seen.lock);
    run_json_summary(cfg->opts.summary_file, doc);
    free(thread);
    /* Interrupted: the status a shell gives a process that a signal ended (130, 143). */
    if (result.interrupted)
        return 128 + result.interrupted;
    return failed || why == CONS_END_IMAGES_LATE ? RUN_EXIT_FAILED : RUN_EXIT_OK;
}
