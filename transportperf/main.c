/*
 * TransportPerf: the transport alone, socket or shared memory, one way or round trip
 * (docs/tools.md#options, #transportperf, #outputs).
 *
 * The main thread parses and prints the inputs, starts the workers (worker.h), and then, on a
 * server, accepts connections and hands each to the least-loaded worker; every second it
 * checks the run time, and every -writeStatsInterval seconds it collects each worker's
 * interval (counters, latency recorders, raw latency samples) and writes the console lines,
 * the statistics files and the latency logs. When the run ends (run time, SIGINT/SIGTERM, a
 * client's connection lost) it stops the workers, collects what is left, and writes the
 * summary to the console and the summary file and the JSON summary beside it.
 *
 * Exit status: 0 when the run completed, 1 when it failed (wrong data on a connection, a
 * shared-memory reader too slow to keep up, a client that never connected, the server could
 * not bind), 2 for invalid input (options, an unwritable output file, -pack too large for the
 * negotiated fragment size).
 */
#include "app.h"
#include "clk.h"
#include "err.h"
#include "run_loop.h"
#include "run_prog.h"
#include "run_setup.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What TransportPerf prints around an accepted connection. */
static const run_accept_text accept_text = {.failed = "Accept failed: %s\n", .passed = true};

/* Everything a run needs before its threads start. Returns 0, or an exit status. */
static int setup(tperf_app *R)
{
    tperf_config *cfg = &R->cfg;
    out_extra extra;
    if (run_extra_inputs(cfg->opts.clock, &extra) != 0) {
        printf("Config Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (!(R->summary = run_summary_open(cfg->opts.summary_file)))
        return RUN_EXIT_INVALID;
    out_report_init(&R->rep, stdout, R->summary);
    tperf_config_print(cfg, &extra, &R->rep);
    out_report_flush(&R->rep);
    cpu_list cpus;
    if (sig_install() != 0) {
        printf("Error: %s\n", err_msg());
        return RUN_EXIT_FAILED;
    }
    if (run_stamps(&R->la, &R->la_on, cfg->reflect_msgs ? 0 : cfg->msg_rate, cfg->latency_msg_rate,
                   cfg->opts.tick_rate, lra_time_seed()) != 0) {
        printf("Config Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (cpu_parse(&cpus, cfg->opts.threads.list) != 0) {
        printf("Config Error: -threads: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    R->n = tperf_config_threads(cfg);
    R->w = calloc((size_t)R->n, sizeof(*R->w));
    R->to = calloc((size_t)R->n, sizeof(*R->to));
    if (!R->w || !R->to || run_col_init(&R->col, R->n, TPERF_LAT_KINDS, cfg->opts.tick_rate) != 0) {
        printf("Error: out of memory\n");
        return RUN_EXIT_FAILED;
    }
    for (int i = 0; i < R->n; i++) {
        const cpu_entry *e = cpus.given && cpus.entry[i].bound ? &cpus.entry[i] : NULL;
        if (worker_init(&R->w[i], i, cfg, R->la_on ? &R->la : NULL, e) != 0) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_FAILED;
        }
        R->n_init = i + 1;
        R->to[i] = &R->w[i].hand;
        if (tperf_stats_open(run_col_stats(&R->col, i), cfg, i + 1) != 0 ||
            run_file_latency(run_col_latlog(&R->col, i), cfg->opts.latency_file, i + 1, cfg->pid,
                             false) != 0) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_INVALID;
        }
    }
    /* The latency measured here is a round trip when this side sends and does not reflect:
     * what comes back is its own messages. */
    static const char *const oneway[TPERF_LAT_KINDS] = {
        [TPERF_LAT] = "oneway", [TPERF_LAT_SCHED] = "sched-oneway"};
    static const char *const rtt[TPERF_LAT_KINDS] = {
        [TPERF_LAT] = "rtt", [TPERF_LAT_SCHED] = "sched-rtt"};
    bool round_trip = !cfg->reflect_msgs && cfg->msg_rate > 0;
    if (cfg->opts.histogram_log[0] &&
        run_col_hlog(&R->col, cfg->opts.histogram_log, cfg->pid, "TransportPerf",
                     round_trip ? rtt : oneway) != 0) {
        printf("Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    return RUN_EXIT_OK;
}

/* The progress line of the second (run_prog.h), every thread together: the run time gone and
 * left, the channels open (a server), the messages sent and received per second in the second,
 * and the latency p99 so far where this side measures one. */
static void progress(tperf_app *R, const run_loop *loop, run_prog_rate *sent, run_prog_rate *recv)
{
    if (!run_prog_on())
        return;
    int64_t now = clk_ns();
    uint64_t s = 0, r = 0, n;
    for (int i = 0; i < R->n; i++) {
        s += counter_total(&R->w[i].msgs_sent);
        r += counter_total(&R->w[i].msgs_recv);
    }
    char a[32];
    run_prog_text t;
    run_prog_start(&t, "TransportPerf", now - loop->start_ns);
    run_loop_prog(loop, &t, now);
    run_prog_add(&t, "sent %s msgs/s",
                 run_prog_count(a, sizeof(a), (uint64_t)run_prog_rate_next(sent, s, now)));
    run_prog_add(&t, "received %s msgs/s",
                 run_prog_count(a, sizeof(a), (uint64_t)run_prog_rate_next(recv, r, now)));
    double p99 = run_col_percentile(&R->col, TPERF_LAT, 99.0, &n);
    if (n)
        run_prog_add(&t, "%s p99 %s",
                     !R->cfg.reflect_msgs && R->cfg.msg_rate > 0 ? "rtt" : "latency",
                     run_prog_latency(a, sizeof(a), p99, n));
    run_prog_draw(&t);
}

/* The run itself: threads, server, intervals, run time. Returns the status so far. */
static int run_test(tperf_app *R)
{
    const tperf_config *cfg = &R->cfg;
    for (int i = 0; i < R->n; i++) {
        if (worker_start(&R->w[i]) != 0) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_FAILED;
        }
        run_col_watch(&R->col, i, &R->w[i].lat, R->w[i].ring_on ? &R->w[i].ring : NULL);
    }
    run_loop loop;
    run_loop_init(&loop, cfg->opts.write_stats_interval, cfg->opts.run_time);
    if (cfg->app_type == TPERF_SERVER) {
        if (run_conn_bind(&cfg->opts, &R->w[0].link, &R->srv) != 0) {
            printf("Bind failed: %s\n", err_msg());
            return RUN_EXIT_FAILED;
        }
        printf("\nServer %d bound on port %u\n", tp_server_fd(R->srv), tp_server_port(R->srv));
        fflush(stdout);
        run_loop_serve(&loop, R->srv, R->to, R->n, &accept_text);
    }
    run_prog_rate sent = {.ns = loop.start_ns}, recv = {.ns = loop.start_ns};
    int ev;
    while ((ev = run_loop_next(&loop)) > 0) {
        if (ev == RUN_LOOP_INTERVAL)
            tperf_collect(R, loop.sec);
        else
            run_col_drain_all(&R->col);
        progress(R, &loop, &sent, &recv);
    }
    run_prog_end();
    if (ev == RUN_LOOP_END) {
        printf("\nRun time of %d seconds has expired.\n\n", cfg->opts.run_time);
        fflush(stdout);
    }
    return RUN_EXIT_OK;
}

/* After the workers ended: what they left, their statuses, the summary. */
static void finish(tperf_app *R)
{
    printf("Shutting down.\n\n");
    if (R->n_init == R->n && R->n > 0) {
        for (int i = 0; i < R->n; i++)
            tperf_check_negative(R, &R->w[i]);
        run_col_final(&R->col);
        for (int i = 0; i < R->n; i++) {
            R->status = run_worst(R->status, run_fail_status(&R->w[i].fail));
            /* (a thread that failed at its attempt has said why already) */
            if (R->cfg.app_type == TPERF_CLIENT && !R->w[i].ever_active &&
                run_fail_status(&R->w[i].fail) == RUN_EXIT_OK) {
                const char *why = R->w[i].drv.errs.last;
                printf("Error: thread %d never connected to %s:%s%s%s.\n", i + 1, R->cfg.opts.host,
                       R->cfg.opts.port, why[0] ? ": " : "", why);
                R->status = run_worst(R->status, RUN_EXIT_FAILED);
            }
        }
        tperf_write_summary(R);
    }
    fclose(R->summary);
}

int main(int argc, char **argv)
{
    static tperf_app R; /* large (latency recorders): not on the stack */
    run_prog_init();
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = tperf_config_init(&R.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;
    if (R.cfg.opts.no_progress)
        run_prog_off();
    R.status = setup(&R);
    if (R.status == RUN_EXIT_OK)
        R.status = run_test(&R);
    sig_request_stop();
    for (int i = 0; i < R.n_init; i++)
        sig_thread_join(&R.w[i].thread);
    if (R.srv)
        tp_server_close(R.srv);
    if (R.summary)
        finish(&R);
    run_col_free(&R.col);
    for (int i = 0; i < R.n_init; i++)
        worker_free(&R.w[i]);
    free(R.w);
    free(R.to);
    if (R.la_on)
        lra_free(&R.la);
    fflush(stdout);
    return R.status;
}
