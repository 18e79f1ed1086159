/*
 * ProvPerf: an interactive provider for the performance tests (tools.md §2.9).
 *
 * Exit status: 0 when the run ended (run time, SIGINT/SIGTERM), 1 when an error
 * ended it (bind failure, a thread's failure), 2 for an invalid command line or
 * input file. The summary and its JSON form are written on every path once the
 * run has started.
 */
#include "clk.h"
#include "cpu.h"
#include "err.h"
#include "out.h"
#include "prov.h"
#include "prov_collect.h"
#include "pv_admin.h"
#include "pv_feed.h"
#include "pv_host.h"
#include "report.h"
#include "sig.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_INVALID 2

static prov_app app;

/* Content, dictionary, rates and latency arrays. Returns 0, or -1 (err_msg()
 * set). */
static int load_inputs(prov_app *a)
{
    const prov_config *cfg = &a->cfg;
    a->dict = rwf_dict_new();
    if (!a->dict)
        return -1;
    if (rwf_dict_load_fields(a->dict, "RDMFieldDictionary") != RWF_OK ||
        rwf_dict_load_enums(a->dict, "enumtype.def") != RWF_OK)
        return err_push("Unable to load the dictionary");
    a->content = pv_content_load(cfg->msg_file, a->dict, cfg->pre_enc, &a->feed);
    if (!a->content)
        return -1;
    pv_content_print_loaded(a->content, stdout);
    pv_feed *f = &a->feed;
    f->refresh_burst = (uint32_t)cfg->refresh_burst_size;
    f->nano_time = cfg->nano_time;
    f->sched_stamp = cfg->sched_stamp;
    f->measure_encode = cfg->measure_encode;
    f->pre_enc = cfg->pre_enc;
    if (cfg->generic_msg_rate > 0)
        for (int d = 0; d < PV_DOMS; d++)
            if (f->dom[d].present && !f->dom[d].n_generics)
                return err_set("%s: -genericMsgRate needs generic messages (genMsg) for %s",
                               cfg->msg_file, d == PV_DOM_MP ? "MarketPrice" : "MarketByOrder");

    pv_rates *r = &a->rates;
    r->updates = (uint64_t)cfg->update_rate;
    r->generics = (uint64_t)cfg->generic_msg_rate;
    uint64_t seed = lra_time_seed();
    if (cfg->update_rate > 0 && cfg->latency_update_rate != 0) {
        if (cfg->latency_update_rate == OPT_RATE_ALL)
            lra_init_all(&a->upd_lra);
        else if (lra_init(&a->upd_lra, (uint64_t)cfg->update_rate,
                          (uint64_t)cfg->latency_update_rate, (uint32_t)cfg->tick_rate, LRA_SETS,
                          seed) != 0)
            return err_push("Config Error: -latencyUpdateRate");
        r->upd_lat = &a->upd_lra;
    }
    if (cfg->generic_msg_rate > 0 && cfg->generic_msg_latency_rate != 0) {
        if (cfg->generic_msg_latency_rate == OPT_RATE_ALL)
            lra_init_all(&a->gen_lra);
        else if (lra_init(&a->gen_lra, (uint64_t)cfg->generic_msg_rate,
                          (uint64_t)cfg->generic_msg_latency_rate, (uint32_t)cfg->tick_rate,
                          LRA_SETS, seed + 1) != 0)
            return err_push("Config Error: -genericMsgLatencyRate");
        r->gen_lat = &a->gen_lra;
    }
    pv_admin_service(&a->service, cfg->service_name, (uint16_t)cfg->service_id, &a->feed,
                     cfg->open_limit);
    pv_host_position(a->position, sizeof(a->position));
    return 0;
}

static int bind_server(prov_app *a)
{
    const prov_config *cfg = &a->cfg;
    tp_opts o;
    tp_opts_init(&o);
    o.port = cfg->port;
    o.interface = cfg->interface_name[0] ? cfg->interface_name : NULL;
    o.protocol_type = TP_PROTOCOL_RWF;
    o.guaranteed_output_buffers = (uint32_t)cfg->output_bufs;
    o.max_output_buffers = (uint32_t)cfg->max_output_bufs;
    o.max_fragment_size = (uint32_t)cfg->max_fragment_size;
    o.tcp_nodelay = cfg->tcp_nodelay;
    o.sndbuf = cfg->send_buf_size;
    o.rcvbuf = cfg->recv_buf_size;
    o.compression = (tp_comp)cfg->compression_type;
    o.compression_level = (uint8_t)cfg->compression_level;
    if (tp_bind(&o, &a->srv) != 0)
        return err_push("rsslBind() failed");
    printf("Server %d bound to port %u.\n\n", tp_server_fd(a->srv), tp_server_port(a->srv));
    fflush(stdout);
    return 0;
}

static int start_threads(prov_app *a)
{
    cpu_list cpus;
    if (cpu_parse(&cpus, a->cfg.threads.list) != 0)
        return err_push("Config Error: -threads");
    a->n_threads = prov_config_threads(&a->cfg);
    a->threads = calloc((size_t)a->n_threads, sizeof(*a->threads));
    if (!a->threads)
        return err_set("out of memory for %d threads", a->n_threads);
    for (int i = 0; i < a->n_threads; i++) {
        if (prov_thread_init(&a->threads[i], a, i) != 0)
            return -1;
        a->threads[i].cpu = cpus.entry[i < cpus.count ? i : 0];
    }
    return 0;
}

/* Hands a newly accepted channel to the thread with the fewest. */
static void accept_pending(prov_app *a)
{
    for (;;) {
        tp_channel *ch;
        int rc = tp_accept(a->srv, &ch);
        if (rc == 0)
            return;
        if (rc < 0) {
            printf("rsslAccept: failed <%s>\n", err_msg());
            return;
        }
        printf("Server %d accepting channel %d.\n\n", tp_server_fd(a->srv), tp_fd(ch));
        fflush(stdout);
        prov_thread *best = &a->threads[0];
        for (int i = 1; i < a->n_threads; i++)
            if (atomic_load(&a->threads[i].conn_count) < atomic_load(&best->conn_count))
                best = &a->threads[i];
        if (prov_thread_hand(best, ch) != 0)
            printf("%s\n", err_msg());
    }
}

/* Runs until the run time, a signal or a thread's failure; statistics every
 * interval. */
static void main_loop(prov_app *a, prov_collect *c)
{
    const prov_config *cfg = &a->cfg;
    int64_t start = clk_ns();
    int64_t end = start + (int64_t)cfg->run_time * CLK_NS_PER_SEC;
    int64_t interval = (int64_t)cfg->write_stats_interval * CLK_NS_PER_SEC;
    int64_t next_stats = start + interval;
    unsigned sec = 0;
    while (!sig_stop_requested()) {
        int64_t now = clk_ns();
        if (now >= next_stats) {
            sec += (unsigned)cfg->write_stats_interval;
            prov_collect_interval(c, sec, (unsigned)cfg->write_stats_interval);
            next_stats += interval;
            continue;
        }
        if (now >= end) {
            printf("\nRun time of %d seconds has expired.\n", cfg->run_time);
            break;
        }
        int64_t wake = next_stats < end ? next_stats : end;
        int ms = (int)((wake - now + 999999) / 1000000);
        struct pollfd p = {.fd = tp_server_fd(a->srv), .events = POLLIN};
        int n = poll(&p, 1, ms);
        if (n > 0)
            accept_pending(a);
        else if (n < 0 && errno != EINTR)
            prov_app_fail(a, "poll: %s", strerror(errno));
    }
    sig_request_stop();
}

static void write_summary(prov_app *a, prov_collect *c, out_report *rep, FILE *summary)
{
    prov_result result;
    prov_collect_final(c, &result);
    prov_report_summary(rep, &a->cfg, &result);
    if (a->failed) {
        out_printf(rep, "ERROR: TEST FAILED: %s\n", a->failure);
    }
    out_report_flush(rep);
    if (summary)
        fclose(summary);
    char json_path[PROV_PATH_LEN + 8];
    if (out_json_path(json_path, sizeof(json_path), a->cfg.summary_file) == 0) {
        out_host host;
        out_host_get(&host);
        json_object *doc = prov_report_json(&a->cfg, &result, &host, (int)getpid(), time(NULL));
        if (!doc || out_json_write(json_path, doc) != 0)
            fprintf(stderr, "Error: %s\n", err_msg());
        json_object_put(doc);
    }
}

int main(int argc, char **argv)
{
    int rc = prov_config_init(&app.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;
    pthread_mutex_init(&app.fail_lock, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sig_install() != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return EXIT_FAILED;
    }
    clk_cal cal;
    out_extra extra = OUT_EXTRA_NONE;
    if (clk_calibrate(&cal) == 0) {
        extra.clock_cost_ns = cal.read_ns;
        extra.clock_resolution_ns = (double)cal.res_ns;
    }

    /* Inputs first: a bad file is an invalid input, reported before anything
     * runs. */
    if (load_inputs(&app) != 0) {
        fprintf(stderr, "%s\n", err_msg());
        return EXIT_INVALID;
    }
    FILE *summary = fopen(app.cfg.summary_file, "w");
    if (!summary) {
        printf("Error: Failed to open file '%s'.\n", app.cfg.summary_file);
        return EXIT_INVALID;
    }
    out_report rep;
    out_report_init(&rep, stdout, summary);
    prov_config_print(&app.cfg, &extra, &rep);
    out_report_flush(&rep);

    prov_collect col;
    if (start_threads(&app) != 0 || prov_collect_init(&col, &app) != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return EXIT_FAILED;
    }
    bool bound = bind_server(&app) == 0;
    if (!bound)
        prov_app_fail(&app, "%s", err_msg());
    for (int i = 0; bound && i < app.n_threads; i++)
        if (prov_thread_start(&app.threads[i]) != 0)
            prov_app_fail(&app, "%s", err_msg());
    /* A failure so far (bind, a thread's start) has requested the stop: the loop does not run.
     * app.failed is not read here: a started thread may be writing it. */
    main_loop(&app, &col);

    printf("\nShutting down.\n\n");
    for (int i = 0; i < app.n_threads; i++)
        if (app.threads[i].started)
            pthread_join(app.threads[i].tid, NULL);
    write_summary(&app, &col, &rep, summary);
    printf("Exiting.\n");

    prov_collect_free(&col);
    for (int i = 0; i < app.n_threads; i++)
        prov_thread_free(&app.threads[i]);
    free(app.threads);
    tp_server_close(app.srv);
    pv_content_free(app.content);
    rwf_dict_free(app.dict);
    if (app.rates.upd_lat)
        lra_free(&app.upd_lra);
    if (app.rates.gen_lat)
        lra_free(&app.gen_lra);
    return app.failed ? EXIT_FAILED : 0;
}
