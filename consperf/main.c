/*
 * ConsPerf: the consumer (docs/tools.md#consperf).
 *
 * The main thread reads the configuration, the item list, the dictionary (when the files are
 * in the working folder) and the message data, starts one consumer thread per connection, and
 * then wakes once a second: the progress line on a terminal (run_prog.h), statistics every
 * -writeStatsInterval, the end of the test when the steady-state time has passed (counted from
 * the moment every image was in, or from the start while images are missing), in snapshot mode
 * as soon as every image is in, on SIGINT/SIGTERM, or when a thread fails. It then joins the
 * threads and writes the summary (console and file) and the JSON summary, whatever the reason
 * for ending.
 *
 * Exit status: 0 the test completed, 1 it failed (images not received in time, connection
 * lost or never made, a thread error), 2 invalid command line or input file, 130 or 143
 * (128 + the signal, as a shell gives) when SIGINT or SIGTERM ended the run before its steady
 * state completed: the summary and the JSON say "interrupted" and the run has not passed.
 */
#include "app.h"
#include "report.h"

#include "clk.h"
#include "err.h"
#include "opt.h"
#include "run_loop.h"
#include "run_prog.h"
#include "run_setup.h"
#include "sig.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whole seconds from now to end_ns, rounded up (0 once it has passed). */
static long long secs_left(int64_t end_ns, int64_t now)
{
    return end_ns > now ? (long long)((end_ns - now + CLK_NS_PER_SEC - 1) / CLK_NS_PER_SEC) : 0;
}

/* The progress line of the second (run_prog.h), every thread together: while images are
 * missing the time left to get them, then the steady state's time gone and left; the update
 * rate of the second, the update latency p99 so far, images received of those asked for. */
static void progress(cons_collector *col, cons_run *run, const run_loop *loop, run_prog_rate *r,
                     uint64_t images_end, int64_t end_ns)
{
    if (!run_prog_on())
        return;
    const cons_config *cfg = run->cfg;
    int64_t now = clk_ns();
    uint64_t updates = 0, images = 0, asked = 0;
    for (int i = 0; i < run->thread_count; i++) {
        cons_thread *t = &run->threads[i];
        updates += counter_total(&t->c.startup_updates) + counter_total(&t->c.steady_updates);
        images += counter_total(&t->c.refreshes);
        asked += t->share.count;
    }
    char a[32], b[32], c[32];
    uint64_t n;
    double p99 = run_col_percentile(&col->col, CONS_LAT_UPD, 99.0, &n);
    run_prog_text t;
    run_prog_start(&t, "ConsPerf", now - loop->start_ns);
    if (images_end && !cfg->snapshot)
        run_prog_add(&t, "steady state %lld/%d s, %lld s left",
                     (long long)((now - (int64_t)images_end) / CLK_NS_PER_SEC),
                     cfg->steady_state_time, secs_left(end_ns, now));
    else
        run_prog_add(&t, "waiting for images, %lld s left", secs_left(end_ns, now));
    run_prog_add(&t, "%s upd/s",
                 run_prog_count(a, sizeof(a), (uint64_t)run_prog_rate_next(r, updates, now)));
    run_prog_add(&t, "p99 %s", run_prog_latency(b, sizeof(b), p99, n));
    run_prog_add(&t, "images %s/%s", run_prog_count(c, sizeof(c), images),
                 run_prog_count(a, sizeof(a), asked));
    run_prog_draw(&t);
}

/* The 1-second loop (docs/tools.md#steady-state). */
static cons_end main_loop(cons_collector *col, cons_run *run)
{
    const cons_config *cfg = run->cfg;
    const int64_t steady_ns = (int64_t)cfg->steady_state_time * CLK_NS_PER_SEC;
    int64_t end_ns = clk_ns() + steady_ns;
    bool rearmed = false;
    run_loop loop;
    run_loop_init(&loop, cfg->opts.write_stats_interval, -1);
    run_prog_rate rate = {.ns = loop.start_ns};
    int ev;
    while ((ev = run_loop_next(&loop)) > 0) {
        int64_t now = clk_ns();
        if (ev == RUN_LOOP_INTERVAL)
            cons_collect_interval(col, loop.sec, cfg->opts.display_stats);
        else
            cons_collect_samples(col);
        uint64_t images_end = cons_collect_images_end(run);
        if (images_end && cfg->snapshot) {
            printf("Received all images for snapshot test.\n");
            return CONS_END_SNAPSHOT;
        }
        if (images_end && !rearmed) {
            /* Every image is in: the steady state lasts steadyStateTime from then. */
            end_ns = (int64_t)images_end + steady_ns;
            rearmed = true;
        }
        if (now >= end_ns) {
            if (!images_end) {
                printf("Error: Failed to receive all images within %d seconds.\n",
                       cfg->steady_state_time);
                return CONS_END_IMAGES_LATE;
            }
            printf("\nSteady state time of %d seconds has expired.\n", cfg->steady_state_time);
            return CONS_END_EXPIRED;
        }
        fflush(stdout);
        progress(col, run, &loop, &rate, images_end, end_ns);
    }
    return CONS_END_STOPPED;
}

int main(int argc, char **argv)
{
    static cons_app app;
    cons_app *a = &app;
    run_prog_init();
    int status = cons_config_init(&a->cfg, argc, argv, stdout, stderr);
    if (status != OPT_CONTINUE)
        return status;
    const cons_config *cfg = &a->cfg;
    if (cfg->opts.no_progress)
        run_prog_off();

    out_extra extra;
    if (run_extra_inputs(cfg->opts.clock, &extra) != 0) {
        fprintf(stderr, "Config Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    out_report console;
    out_report_init(&console, stdout, NULL);
    cons_config_print(cfg, &extra, &console);
    fflush(stdout);

    status = cons_app_prepare(a);
    if (status != OPT_CONTINUE) {
        fflush(stdout);
        cons_app_free(a);
        return status;
    }
    out_report file;
    out_report_init(&file, NULL, a->summary);
    cons_config_print(cfg, &extra, &file);
    fflush(a->summary);

    if (sig_install() < 0) {
        printf("Error: %s\n", err_msg());
        cons_app_free(a);
        return RUN_EXIT_FAILED;
    }
    printf("Starting connections(%d total)...\n\n", a->run.thread_count);
    fflush(stdout);
    for (int i = 0; i < a->run.thread_count; i++) {
        cons_thread *t = &a->threads[i];
        if (sig_thread_start(&t->thread, cons_thread_main, t, "consumer thread", i + 1) != 0) {
            run_fail_stop(&t->fail, NULL);
            break;
        }
    }

    cons_end why = main_loop(&a->col, &a->run);
    run_prog_end();
    printf("\nShutting down.\n\n");
    fflush(stdout);
    sig_request_stop();
    for (int i = 0; i < a->run.thread_count; i++)
        sig_thread_join(&a->threads[i].thread);
    cons_collect_final(&a->col);
    status = cons_app_summary(a, why);
    cons_app_free(a);
    return status;
}
