/*
 * ProvPerf: an interactive provider for the performance tests (docs/tools.md#provperf).
 *
 * Exit status: 0 when the run ended (run time, SIGINT/SIGTERM), 1 when an error
 * ended it (bind failure, a thread's failure), 2 for an invalid command line or
 * input file. The summary and its JSON form are written on every path once the
 * run has started.
 */
#include "err.h"
#include "out.h"
#include "prov.h"
#include "pv_collect.h"
#include "report.h"
#include "run_loop.h"
#include "run_prog.h"
#include "run_setup.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static prov_app app;

/* Histogram logs (-histogramLog): generic-message latency first, the encoding time with
 * -measureEncode. */
static const char *const hlog_tags[PV_LAT_KINDS] = {
    [PV_LAT_GENMSG] = "genmsg", [PV_LAT_GENMSG_SCHED] = "sched-genmsg", [PV_LAT_ENCODE] = "encode"};

/* ProvPerf's statistics: its files and lines, and the generic messages' latency log. */
static const pv_collect_spec collect_spec = {.tool = "ProvPerf",
                                             .hlog_tags = hlog_tags,
                                             .latency_file = app.cfg.pv.opts.latency_file,
                                             .stats_open = prov_stats_open,
                                             .stats_row = prov_report_stats_row,
                                             .console = prov_report_interval};

/* What ProvPerf prints around an accepted connection, bare and with -reactor. */
static const run_accept_text accept_text = {.failed = "rsslAccept: failed <%s>\n"};
static const run_accept_text accept_text_rx = {
    .failed = "rsslAccept: failed <%s>\n", .accepting = "Accepting new Reactor connection...\n"};

/* The providers' inputs (dictionary, content, rates and latency arrays, service) and the JSON
 * converter with -pl. Returns 0, or -1 (err_msg() set). */
static int load_inputs(void *p)
{
    prov_app *a = p;
    const prov_config *cfg = &a->cfg;
    pv_generic_rates gen = {cfg->pv.opts.generic_msg_rate, cfg->pv.opts.generic_msg_latency_rate};
    if (pv_inputs_load(&a->in, &cfg->pv, gen, cfg->open_limit) != 0)
        return -1;
    if (cfg->pv.opts.ws.pl[0]) { /* WebSocket clients may speak JSON */
        a->json =
            run_ws_converter(a->in.dict, cfg->pv.opts.service_name, (uint16_t)cfg->pv.service_id);
        if (!a->json || pv_content_json(a->in.content, a->json->conv, &a->in.feed) != 0)
            return -1;
    }
    return 0;
}

/* run_print_fn: the TEST INPUTS block. */
static void print_inputs(const void *a, const out_extra *extra, out_report *r)
{
    prov_config_print(&((const prov_app *)a)->cfg, extra, r);
}

/* Binds the server socket with the options of the command line and prints its port. Returns 0,
 * or -1 (err_msg()). */
static int bind_server(prov_app *a)
{
    const prov_config *cfg = &a->cfg;
    const run_link link = {.side = RUN_SERVER, .protocol_type = TP_PROTOCOL_RWF};
    if (run_conn_bind(&cfg->pv.opts, &link, &a->srv) != 0)
        return err_push("rsslBind() failed");
    printf("Server %d bound to port %u.\n\n", tp_server_fd(a->srv), tp_server_port(a->srv));
    fflush(stdout);
    return 0;
}

/* The threads (not started yet), their hand-over queues in *to and their statistics in col.
 * Returns 0, or -1 (err_msg()). */
static int init_threads(prov_app *a, run_handoff ***to, pv_collect *col)
{
    cpu_list cpus, workers;
    if (cpu_parse(&cpus, a->cfg.pv.opts.threads.list) != 0)
        return err_push("Config Error: -threads");
    if (cpu_parse(&workers, a->cfg.pv.opts.worker_threads.list) != 0)
        return err_push("Config Error: -workerThreads");
    a->n_threads = pv_config_threads(&a->cfg.pv);
    a->threads = calloc((size_t)a->n_threads, sizeof(*a->threads));
    *to = calloc((size_t)a->n_threads, sizeof(**to));
    if (!a->threads || !*to)
        return err_set("out of memory for %d threads", a->n_threads);
    if (pv_collect_init(col, &collect_spec, &a->cfg.pv, a->n_threads) != 0)
        return -1;
    for (int i = 0; i < a->n_threads; i++) {
        if (prov_thread_init(&a->threads[i], a, i) != 0)
            return -1;
        pv_collect_thread(col, i, &a->threads[i].pv.stats);
        pv_thread_cpus(&a->threads[i].pv, &cpus, &workers);
        (*to)[i] = &a->threads[i].hand;
    }
    return 0;
}

int main(int argc, char **argv)
{
    run_prog_init();
    int rc = prov_config_init(&app.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;
    if (app.cfg.pv.opts.no_progress)
        run_prog_off();
    rc = run_start(&app.run, &app, load_inputs, print_inputs, app.cfg.pv.opts.summary_file,
                   app.cfg.pv.opts.clock);
    if (rc != RUN_EXIT_OK)
        return rc;

    pv_collect col;
    run_handoff **to = NULL;
    if (init_threads(&app, &to, &col) != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return RUN_EXIT_FAILED;
    }
    bool bound = bind_server(&app) == 0;
    if (!bound)
        prov_app_fail(&app, "%s", err_msg());
    for (int i = 0; bound && i < app.n_threads; i++) {
        if (prov_thread_start(&app.threads[i]) != 0)
            prov_app_fail(&app, "%s", err_msg());
        else
            pv_collect_watch(&col, i);
    }
    /* A failure so far (bind, a thread's start) has requested the stop: the loop does not run. */
    run_loop loop;
    run_loop_init(&loop, app.cfg.pv.opts.write_stats_interval, app.cfg.pv.opts.run_time);
    if (bound)
        run_loop_serve(&loop, app.srv, to, app.n_threads,
                       app.cfg.pv.opts.reactor ? &accept_text_rx : &accept_text);
    if (pv_collect_run(&col, &loop, &app.cfg.pv) == RUN_LOOP_END)
        printf("\nRun time of %d seconds has expired.\n", app.cfg.pv.opts.run_time);
    sig_request_stop();

    printf("\nShutting down.\n\n");
    for (int i = 0; i < app.n_threads; i++)
        sig_thread_join(&app.threads[i].pv.thread);
    pv_result result;
    pv_collect_final(&col, &result);
    prov_report_summary(&app.run.rep, &app.cfg, &result);
    if (run_fail_status(&app.run.fail))
        out_printf(&app.run.rep, "ERROR: TEST FAILED: %s\n", run_fail_text(&app.run.fail));
    run_finish(&app.run, app.cfg.pv.opts.summary_file,
               prov_report_json(&app.cfg, &result, NULL, (int)getpid(), time(NULL)));

    pv_collect_free(&col);
    for (int i = 0; i < app.n_threads; i++)
        prov_thread_free(&app.threads[i]);
    free(app.threads);
    free(to);
    tp_server_close(app.srv);
    run_ws_converter_free(app.json);
    pv_inputs_free(&app.in);
    return run_fail_status(&app.run.fail);
}
