/*
 * NIProvPerf: a non-interactive provider for the performance tests (docs/tools.md#niprovperf).
 *
 * Exit status: 0 when the run ended (run time, SIGINT/SIGTERM), 1 when the test
 * failed (a channel lost after it was up, the login refused, a thread's error, a channel that
 * never came up, a connection that cannot succeed), 2 for an invalid command line or input
 * file. The summary and its JSON form
 * are written on every path once the run has started.
 */
#include "datafile.h"
#include "err.h"
#include "niprov.h"
#include "out.h"
#include "run_host.h"
#include "report.h"
#include "run_loop.h"
#include "run_prog.h"
#include "run_setup.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static niprov_app app;

/* Histogram logs (-histogramLog): a non-interactive provider measures no message latency, only
 * the encoding time of its updates (-measureEncode). */
static const char *const hlog_tags[PV_LAT_KINDS] = {[PV_LAT_ENCODE] = "encode"};

/* NIProvPerf's statistics: its files and lines; no latency log. */
static const pv_collect_spec collect_spec = {.tool = "NIProvPerf",
                                             .hlog_tags = hlog_tags,
                                             .stats_open = niprov_stats_open,
                                             .stats_row = niprov_report_stats_row,
                                             .console = niprov_report_interval};

/* The providers' inputs (dictionary, content, rates, service; no generic messages), the item
 * list and the login user. Returns 0, or -1 (err_msg() set). */
static int load_inputs(void *p)
{
    niprov_app *a = p;
    const niprov_config *cfg = &a->cfg;
    /* NIProvPerf sends no generic messages and advertises no OpenLimit. */
    if (pv_inputs_load(&a->in, &cfg->pv, (pv_generic_rates){0, 0}, 0) != 0)
        return -1;
    a->n_threads = pv_config_threads(&cfg->pv);
    size_t need = items_needed((size_t)cfg->pv.opts.item_count,
                               (size_t)cfg->pv.opts.common_item_count, (size_t)a->n_threads);
    /* With -itemCount 0 only the directory is published: no item file is read. */
    char path[1024];
    if (need > 0) {
        const char *file = data_locate(cfg->pv.opts.item_file, path, sizeof(path));
        if (!file || items_load(&a->list, file, need) != 0)
            return err_push("Failed to load item file");
    }
    run_host_user(a->user, sizeof(a->user));
    return 0;
}

/* run_print_fn: the TEST INPUTS block. */
static void print_inputs(const void *a, const out_extra *extra, out_report *r)
{
    niprov_config_print(&((const niprov_app *)a)->cfg, extra, r);
}

/* The threads and the statistics, then the threads' start. Returns 0, or -1 (err_msg()). */
static int start_threads(niprov_app *a)
{
    cpu_list cpus, workers;
    a->threads = calloc((size_t)a->n_threads, sizeof(*a->threads));
    if (!a->threads || cpu_parse(&cpus, a->cfg.pv.opts.threads.list) != 0 ||
        cpu_parse(&workers, a->cfg.pv.opts.worker_threads.list) != 0 ||
        pv_collect_init(&a->col, &collect_spec, &a->cfg.pv, a->n_threads) != 0)
        return -1;
    for (int i = 0; i < a->n_threads; i++) {
        if (niprov_thread_init(&a->threads[i], a, i) != 0)
            return -1;
        pv_collect_thread(&a->col, i, &a->threads[i].pv.stats);
        pv_thread_cpus(&a->threads[i].pv, &cpus, &workers);
    }
    for (int i = 0; i < a->n_threads; i++) {
        if (niprov_thread_start(&a->threads[i]) != 0) {
            printf("%s\n", err_msg());
            run_fail_stop(&a->run.fail, NULL);
            break;
        }
        pv_collect_watch(&a->col, i);
    }
    return 0;
}

int main(int argc, char **argv)
{
    run_prog_init();
    int rc = niprov_config_init(&app.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;
    if (app.cfg.pv.opts.no_progress)
        run_prog_off();
    const niprov_config *cfg = &app.cfg;
    rc = run_start(&app.run, &app, load_inputs, print_inputs, cfg->pv.opts.summary_file,
                   cfg->pv.opts.clock);
    if (rc != RUN_EXIT_OK)
        return rc;
    if (start_threads(&app) != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return RUN_EXIT_FAILED;
    }

    run_loop loop;
    run_loop_init(&loop, cfg->pv.opts.write_stats_interval, cfg->pv.opts.run_time);
    if (pv_collect_run(&app.col, &loop, &cfg->pv) == RUN_LOOP_END)
        printf("\nRun time of %d seconds has expired.\n\n", cfg->pv.opts.run_time);
    sig_request_stop();
    for (int i = 0; i < app.n_threads; i++)
        sig_thread_join(&app.threads[i].pv.thread);

    pv_result result;
    pv_collect_final(&app.col, &result);
    result.failed = run_fail_status(&app.run.fail) != RUN_EXIT_OK;
    niprov_report_summary(&app.run.rep, cfg, &result);
    run_finish(&app.run, cfg->pv.opts.summary_file,
               niprov_report_json(cfg, &result, NULL, (int)getpid(), time(NULL)));

    pv_collect_free(&app.col);
    for (int i = 0; i < app.n_threads; i++)
        niprov_thread_free(&app.threads[i]);
    free(app.threads);
    items_free(&app.list);
    pv_inputs_free(&app.in);
    return run_fail_status(&app.run.fail);
}
