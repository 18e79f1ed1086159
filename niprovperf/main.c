/*
 * NIProvPerf: a non-interactive provider for the performance tests (tools.md
 * §2.10).
 *
 * Exit status: 0 when the run ended (run time, SIGINT/SIGTERM), 1 when the test
 * failed (a channel lost after it was up, the login refused, a thread's error),
 * 2 for an invalid command line or input file. The summary and its JSON form
 * are written on every path once the run has started.
 */
#include "clk.h"
#include "err.h"
#include "lat.h"
#include "niprov.h"
#include "out.h"
#include "pv_admin.h"
#include "pv_host.h"
#include "report.h"
#include "res.h"
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_INVALID 2

static niprov_app app;

static bool failed(niprov_app *a)
{
    pthread_mutex_lock(&a->fail_lock);
    bool f = a->failed;
    pthread_mutex_unlock(&a->fail_lock);
    return f;
}

/* Dictionary, content, item list, rates. Returns 0, or -1 (err_msg() set). */
static int load_inputs(niprov_app *a)
{
    const niprov_config *cfg = &a->cfg;
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
    a->n_threads = niprov_config_threads(cfg);
    size_t need =
        items_needed((size_t)cfg->item_count, (size_t)cfg->common_item_count, (size_t)a->n_threads);
    /* With -itemCount 0 only the directory is published: no item file is read. */
    if (need > 0 && items_load(&a->list, cfg->item_file, need) != 0)
        return err_push("Failed to load item file");
    pv_feed *f = &a->feed;
    f->refresh_burst = (uint32_t)cfg->refresh_burst_size;
    f->nano_time = cfg->nano_time;
    f->sched_stamp = cfg->sched_stamp;
    f->measure_encode = cfg->measure_encode;
    f->pre_enc = cfg->pre_enc;
    a->rates.updates = (uint64_t)cfg->update_rate;
    if (cfg->update_rate > 0 && cfg->latency_update_rate != 0) {
        if (cfg->latency_update_rate == OPT_RATE_ALL)
            lra_init_all(&a->upd_lra);
        else if (lra_init(&a->upd_lra, (uint64_t)cfg->update_rate,
                          (uint64_t)cfg->latency_update_rate, (uint32_t)cfg->tick_rate, LRA_SETS,
                          lra_time_seed()) != 0)
            return err_push("Config Error: -latencyUpdateRate");
        a->rates.upd_lat = &a->upd_lra;
    }
    /* NIProvPerf advertises no OpenLimit. */
    pv_admin_service(&a->service, cfg->service_name, (uint16_t)cfg->service_id, &a->feed, 0);
    pv_host_position(a->position, sizeof(a->position));
    pv_host_user(a->user, sizeof(a->user));
    return 0;
}

/* The main thread's statistics. */
typedef struct collect {
    res res;
    out_csv *csv;
    niprov_stats *sum;
    lat *enc; /* each thread's encoding times so far */
    uint64_t refreshes_total;
    int64_t wait_ns;
} collect;

static int collect_init(collect *c, niprov_app *a)
{
    memset(c, 0, sizeof(*c));
    int n = a->n_threads;
    c->csv = calloc((size_t)n, sizeof(*c->csv));
    c->sum = calloc((size_t)n, sizeof(*c->sum));
    c->enc = malloc((size_t)n * sizeof(*c->enc));
    if (!c->csv || !c->sum || !c->enc)
        return err_set("out of memory for the statistics of %d threads", n);
    for (int i = 0; i < n; i++) {
        lat_reset(&c->enc[i]);
        if (niprov_stats_open(&c->csv[i], &a->cfg, i + 1) != 0)
            return -1;
    }
    c->wait_ns = 2 * CLK_NS_PER_SEC / a->cfg.tick_rate + 10 * 1000000LL;
    if (c->wait_ns > CLK_NS_PER_SEC)
        c->wait_ns = CLK_NS_PER_SEC;
    return res_init(&c->res);
}

static void collect_free(collect *c, int n)
{
    for (int i = 0; c->csv && i < n; i++)
        out_csv_close(&c->csv[i]);
    free(c->csv);
    free(c->sum);
    free(c->enc);
}

static void take(collect *c, niprov_app *a, int i, niprov_interval *iv)
{
    pv_stats *st = &a->threads[i].stats;
    niprov_stats *s = &c->sum[i];
    iv->refreshes = counter_change(&st->refreshes);
    iv->updates = counter_change(&st->updates);
    iv->closes = counter_change(&st->closes);
    iv->out_of_bufs = counter_change(&st->out_of_bufs);
    iv->msgs_packed = counter_change(&st->msgs_packed);
    iv->buffers_sent = counter_change(&st->packs);
    c->refreshes_total += iv->refreshes;
    iv->refreshes_total = c->refreshes_total;
    s->refreshes += iv->refreshes;
    s->updates += iv->updates;
    s->closes += iv->closes;
    s->out_of_bufs += iv->out_of_bufs;
    if (a->threads[i].started) {
        const lat *set = latbuf_collect(&st->lat, c->wait_ns);
        if (set) {
            lat_summary(&set[PV_LAT_ENCODE], &iv->encode);
            lat_merge(&c->enc[i], &set[PV_LAT_ENCODE]);
        }
    }
}

static void collect_interval(collect *c, niprov_app *a, unsigned sec, unsigned interval)
{
    double cpu = 0, mem = 0;
    if (res_sample(&c->res) == 0) {
        cpu = c->res.cpu;
        mem = c->res.mem;
    }
    time_t now = time(NULL);
    for (int i = 0; i < a->n_threads; i++) {
        niprov_interval iv;
        memset(&iv, 0, sizeof(iv));
        take(c, a, i, &iv);
        iv.cpu = cpu;
        iv.mem_mb = mem;
        niprov_report_stats_row(&c->csv[i], now, &iv);
        if (a->cfg.display_stats)
            niprov_report_interval(stdout, sec, i + 1, a->n_threads, interval, &iv);
    }
    fflush(stdout);
}

static void collect_final(collect *c, niprov_app *a, niprov_result *out)
{
    memset(out, 0, sizeof(*out));
    lat *all = malloc(sizeof(*all));
    if (all)
        lat_reset(all);
    for (int i = 0; i < a->n_threads; i++) {
        niprov_interval iv;
        memset(&iv, 0, sizeof(iv));
        take(c, a, i, &iv);
        niprov_stats *s = &c->sum[i];
        s->conn_secs = (double)pv_stats_time(&a->threads[i].stats.conn_ns) / 1e9;
        lat_summary(&c->enc[i], &s->encode);
        if (all)
            lat_merge(all, &c->enc[i]);
        out->total.refreshes += s->refreshes;
        out->total.updates += s->updates;
        out->total.closes += s->closes;
        out->total.out_of_bufs += s->out_of_bufs;
        out->total.conn_secs += s->conn_secs;
    }
    if (all) {
        lat_summary(all, &out->total.encode);
        free(all);
    }
    out->thread_count = a->n_threads;
    out->thread = c->sum;
    res_summary(&c->res, &out->res);
    out->failed = failed(a);
}

int main(int argc, char **argv)
{
    int rc = niprov_config_init(&app.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;
    const niprov_config *cfg = &app.cfg;
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
    if (load_inputs(&app) != 0) {
        fprintf(stderr, "%s\n", err_msg());
        return EXIT_INVALID;
    }
    FILE *summary = fopen(cfg->summary_file, "w");
    if (!summary) {
        printf("Error: Failed to open file '%s'.\n", cfg->summary_file);
        return EXIT_INVALID;
    }
    out_report rep;
    out_report_init(&rep, stdout, summary);
    niprov_config_print(cfg, &extra, &rep);
    out_report_flush(&rep);

    cpu_list cpus;
    app.threads = calloc((size_t)app.n_threads, sizeof(*app.threads));
    collect col;
    if (!app.threads || cpu_parse(&cpus, cfg->threads.list) != 0 || collect_init(&col, &app) != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return EXIT_FAILED;
    }
    for (int i = 0; i < app.n_threads; i++) {
        if (niprov_thread_init(&app.threads[i], &app, i) != 0) {
            fprintf(stderr, "Error: %s\n", err_msg());
            return EXIT_FAILED;
        }
        app.threads[i].cpu = cpus.entry[i < cpus.count ? i : 0];
    }
    for (int i = 0; i < app.n_threads; i++)
        if (niprov_thread_start(&app.threads[i]) != 0) {
            printf("%s\n", err_msg());
            niprov_app_fail(&app);
            break;
        }

    int64_t start = clk_ns();
    int64_t end = start + (int64_t)cfg->run_time * CLK_NS_PER_SEC;
    unsigned sec = 0, since = 0;
    while (!sig_stop_requested()) {
        clk_sleep_until(start + (int64_t)(sec + 1) * CLK_NS_PER_SEC);
        if (sig_stop_requested())
            break;
        sec++;
        if (++since == (unsigned)cfg->write_stats_interval) {
            collect_interval(&col, &app, sec, (unsigned)cfg->write_stats_interval);
            since = 0;
        }
        if (clk_ns() >= end) {
            printf("\nRun time of %d seconds has expired.\n\n", cfg->run_time);
            break;
        }
    }
    sig_request_stop();
    for (int i = 0; i < app.n_threads; i++)
        if (app.threads[i].started)
            pthread_join(app.threads[i].tid, NULL);

    niprov_result result;
    collect_final(&col, &app, &result);
    niprov_report_summary(&rep, cfg, &result);
    out_report_flush(&rep);
    fclose(summary);
    char json_path[NIPROV_PATH_LEN + 8];
    if (out_json_path(json_path, sizeof(json_path), cfg->summary_file) == 0) {
        out_host host;
        out_host_get(&host);
        json_object *doc = niprov_report_json(cfg, &result, &host, (int)getpid(), time(NULL));
        if (!doc || out_json_write(json_path, doc) != 0)
            fprintf(stderr, "Error: %s\n", err_msg());
        json_object_put(doc);
    }
    printf("Exiting.\n");

    collect_free(&col, app.n_threads);
    for (int i = 0; i < app.n_threads; i++)
        niprov_thread_free(&app.threads[i]);
    free(app.threads);
    items_free(&app.list);
    pv_content_free(app.content);
    rwf_dict_free(app.dict);
    if (app.rates.upd_lat)
        lra_free(&app.upd_lra);
    return result.failed ? EXIT_FAILED : 0;
}
