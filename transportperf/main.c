/*
 * TransportPerf: the transport alone, socket or shared memory, one way or round trip
 * (tools.md §1.4, §2.11, §3.8).
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
#include "clk.h"
#include "config.h"
#include "cpu.h"
#include "err.h"
#include "lat.h"
#include "lra.h"
#include "out.h"
#include "report.h"
#include "res.h"
#include "sig.h"
#include "tp.h"
#include "worker.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long the main thread waits for a worker's latency set at the end of an interval. */
#define COLLECT_WAIT_NS (50 * 1000 * 1000)

typedef struct run {
    tperf_config cfg;
    FILE *summary;
    out_report rep;
    out_extra extra;
    int n;      /* threads */
    int n_init; /* workers initialised (to free) */
    tperf_worker *w;
    out_csv *stats;  /* per thread */
    out_csv *latlog; /* per thread; closed when no -latencyFile */
    lat *tot;        /* n * TPERF_LAT_KINDS: each thread's latency over the run */
    lat *all;        /* TPERF_LAT_KINDS: every thread's */
    res res;
    bool res_ok;
    bool neg_warned;
    lra la;
    bool la_on;
    cpu_list cpus;
    tp_server *srv;
    int status;
} run;

static int worst(int a, int b)
{
    /* 2 (invalid input) outranks 1 (failed), which outranks 0. */
    return a > b ? a : b;
}

/* Moves the raw latency samples of worker i into its latency log. */
static void drain_latency_log(run *R, int i)
{
    tperf_worker *w = &R->w[i];
    if (!w->ring_on)
        return;
    latring_sample buf[1024];
    size_t got;
    while ((got = latring_pop(&w->ring, buf, sizeof(buf) / sizeof(buf[0]))) > 0)
        for (size_t k = 0; k < got; k++)
            out_latlog_row(&R->latlog[i], NULL, (uint64_t)buf[k].send, (uint64_t)buf[k].recv);
    if (out_latlog_flush(&R->latlog[i]) != 0) {
        printf("Error: %s\n", err_msg());
        out_csv_close(&R->latlog[i]);
    }
}

/* Collects one interval of every worker: latency samples (into the run totals and the
 * latency logs), counters; with `report` also a CPU/memory sample, the statistics rows and
 * (with display) the console lines for second `sec`. */
static void collect(run *R, bool report, unsigned sec)
{
    const tperf_config *cfg = &R->cfg;
    if (report && R->res_ok && res_sample(&R->res) != 0) {
        printf("Error: %s\n", err_msg());
        R->res_ok = false;
    }
    for (int i = 0; i < R->n; i++) {
        tperf_worker *w = &R->w[i];
        tperf_interval iv;
        memset(&iv, 0, sizeof(iv));

        const lat *set = latbuf_collect(&w->lat, COLLECT_WAIT_NS);
        if (set) {
            lat_summary(&set[TPERF_LAT], &iv.lat);
            lat_summary(&set[TPERF_LAT_SCHED], &iv.lat_sched);
            for (int k = 0; k < TPERF_LAT_KINDS; k++) {
                lat_merge(&R->tot[i * TPERF_LAT_KINDS + k], &set[k]);
                lat_merge(&R->all[k], &set[k]);
            }
        }
        int64_t neg = atomic_load_explicit(&w->neg_send, memory_order_acquire);
        if (neg && !R->neg_warned) {
            R->neg_warned = true;
            tperf_report_negative_latency(&R->rep, (uint64_t)neg,
                                          (uint64_t)atomic_load(&w->neg_recv));
        }
        drain_latency_log(R, i);

        iv.msgs_sent = counter_change(&w->msgs_sent);
        iv.bytes_sent = counter_change(&w->bytes_sent);
        iv.msgs_recv = counter_change(&w->msgs_recv);
        iv.bytes_recv = counter_change(&w->bytes_recv);
        iv.out_of_bufs = counter_change(&w->out_of_bufs);
        if (!report)
            continue;
        iv.cpu = R->res.cpu;
        iv.mem_mb = R->res.mem;
        if (tperf_report_stats_row(&R->stats[i], time(NULL), &iv) != 0) {
            printf("Error: %s\n", err_msg());
            out_csv_close(&R->stats[i]);
        }
        if (cfg->display_stats)
            tperf_report_interval(stdout, sec, i + 1, R->n, (unsigned)cfg->write_stats_interval,
                                  &iv);
    }
    fflush(stdout);
}

/* Accepts what the server has pending and hands each channel to the least-loaded worker. */
static void accept_all(run *R)
{
    for (;;) {
        tp_channel *ch;
        int rc = tp_accept(R->srv, &ch);
        if (rc == 0)
            return;
        if (rc < 0) {
            printf("Accept failed: %s\n", err_msg());
            return;
        }
        int sfd = tp_server_fd(R->srv), cfd = tp_fd(ch);
        printf("Server %d accepting channel %d.\n\n", sfd, cfd);
        tperf_worker *w = worker_least_loaded(R->w, R->n);
        if (worker_give(w, ch) != 0) {
            printf("Error: %s\n", err_msg());
            continue;
        }
        printf("Server %d: New Channel %d passed connection to handler %d\n\n", sfd, cfd, w->index);
        fflush(stdout);
    }
}

/* Waits until deadline (CLOCK_MONOTONIC ns), accepting connections meanwhile on a server.
 * Returns early when a stop is requested. */
static void wait_until(run *R, int64_t deadline)
{
    for (;;) {
        int64_t now = clk_ns();
        if (now >= deadline || sig_stop_requested())
            return;
        int64_t left = deadline - now;
        if (left > 100 * 1000 * 1000)
            left = 100 * 1000 * 1000; /* see a stop request within 0.1 s */
        if (R->srv) {
            struct pollfd p = {.fd = tp_server_fd(R->srv), .events = POLLIN};
            struct timespec ts = clk_timespec(left);
            int rc = ppoll(&p, 1, &ts, NULL);
            if (rc > 0)
                accept_all(R);
            else if (rc < 0 && errno != EINTR) {
                printf("Error: poll on the server: %s\n", strerror(errno));
                clk_sleep_until(now + left);
            }
        } else {
            clk_sleep_until(now + left);
        }
    }
}

/* The summary's figures for thread i (or all threads when i < 0). */
static void thread_stats(run *R, int i, tperf_stats *s)
{
    memset(s, 0, sizeof(*s));
    int from = i < 0 ? 0 : i, to = i < 0 ? R->n : i + 1;
    for (int k = from; k < to; k++) {
        tperf_worker *w = &R->w[k];
        s->msgs_sent += counter_total(&w->msgs_sent);
        s->bytes_sent += counter_total(&w->bytes_sent);
        s->msgs_recv += counter_total(&w->msgs_recv);
        s->bytes_recv += counter_total(&w->bytes_recv);
        s->out_of_bufs += counter_total(&w->out_of_bufs);
        s->seq_gaps += w->seq_gaps;
        s->first_seq += w->first_seq;
        s->conn_secs += w->conn_secs;
        if (w->connect_ns && (!s->connect_ns || (uint64_t)w->connect_ns < s->connect_ns))
            s->connect_ns = (uint64_t)w->connect_ns;
        if ((uint64_t)w->disconnect_ns > s->disconnect_ns)
            s->disconnect_ns = (uint64_t)w->disconnect_ns;
    }
    const lat *l = i < 0 ? R->all : &R->tot[i * TPERF_LAT_KINDS];
    lat_summary(&l[TPERF_LAT], &s->lat);
    lat_summary(&l[TPERF_LAT_SCHED], &s->lat_sched);
}

/* The summary (console and file) and the JSON summary. */
static void write_summary(run *R)
{
    tperf_stats *ts = calloc((size_t)R->n, sizeof(*ts));
    tperf_result result;
    memset(&result, 0, sizeof(result));
    result.thread_count = R->n;
    result.thread = ts;
    result.pid = R->cfg.pid;
    if (ts)
        for (int i = 0; i < R->n; i++)
            thread_stats(R, i, &ts[i]);
    else
        result.thread_count = 1;
    thread_stats(R, -1, &result.total);
    res_summary(&R->res, &result.res);
    tperf_report_summary(&R->rep, &R->cfg, &result);
    if (out_report_flush(&R->rep) != 0) {
        printf("Error: %s\n", err_msg());
        R->status = worst(R->status, TPERF_FAILED);
    }

    char path[TPERF_PATH_LEN + 16];
    json_object *doc = tperf_report_json(&R->cfg, &result, NULL, time(NULL));
    if (out_json_path(path, sizeof(path), R->cfg.summary_file) != 0 || !doc ||
        out_json_write(path, doc) != 0) {
        printf("Error: JSON summary: %s\n", err_msg());
        R->status = worst(R->status, TPERF_FAILED);
    }
    if (doc)
        json_object_put(doc);
    free(ts);
}

/* Everything a run needs before its threads start. Returns 0, or an exit status. */
static int setup(run *R)
{
    tperf_config *cfg = &R->cfg;
    clk_cal cal;
    R->extra = OUT_EXTRA_NONE;
    if (clk_calibrate(&cal) == 0) {
        R->extra.clock_cost_ns = cal.read_ns;
        R->extra.clock_resolution_ns = (double)cal.res_ns;
    }
    R->summary = fopen(cfg->summary_file, "w");
    if (!R->summary) {
        printf("Error: Failed to open file '%s': %s\n", cfg->summary_file, strerror(errno));
        return TPERF_INVALID;
    }
    out_report_init(&R->rep, stdout, R->summary);
    tperf_config_print(cfg, &R->extra, &R->rep);
    out_report_flush(&R->rep);

    if (sig_install() != 0) {
        printf("Error: %s\n", err_msg());
        return TPERF_FAILED;
    }
    if (cpu_parse(&R->cpus, cfg->threads.list) != 0) {
        printf("Config Error: -threads: %s\n", err_msg());
        return TPERF_INVALID;
    }

    int lrate = tperf_config_latency_rate(cfg);
    if (!cfg->reflect_msgs && cfg->msg_rate > 0 && lrate > 0) {
        if (cfg->latency_msg_rate == OPT_RATE_ALL) {
            lra_init_all(&R->la);
        } else if (lra_init(&R->la, (uint64_t)cfg->msg_rate, (uint64_t)lrate,
                            (uint32_t)cfg->tick_rate, LRA_SETS, lra_time_seed()) != 0) {
            printf("Config Error: %s\n", err_msg());
            return TPERF_INVALID;
        }
        R->la_on = true;
    }

    R->n = tperf_config_threads(cfg);
    R->w = calloc((size_t)R->n, sizeof(*R->w));
    R->stats = calloc((size_t)R->n, sizeof(*R->stats));
    R->latlog = calloc((size_t)R->n, sizeof(*R->latlog));
    R->tot = calloc((size_t)R->n * TPERF_LAT_KINDS, sizeof(*R->tot));
    R->all = calloc(TPERF_LAT_KINDS, sizeof(*R->all));
    if (!R->w || !R->stats || !R->latlog || !R->tot || !R->all) {
        printf("Error: out of memory\n");
        return TPERF_FAILED;
    }
    for (int i = 0; i < R->n * TPERF_LAT_KINDS; i++)
        lat_reset(&R->tot[i]);
    for (int k = 0; k < TPERF_LAT_KINDS; k++)
        lat_reset(&R->all[k]);
    for (int i = 0; i < R->n; i++) {
        const cpu_entry *e = R->cpus.given && R->cpus.entry[i].bound ? &R->cpus.entry[i] : NULL;
        if (worker_init(&R->w[i], i, cfg, R->la_on ? &R->la : NULL, e) != 0) {
            printf("Error: %s\n", err_msg());
            return TPERF_FAILED;
        }
        R->n_init = i + 1;
        if (tperf_stats_open(&R->stats[i], cfg, i + 1) != 0 ||
            tperf_latency_open(&R->latlog[i], cfg, i + 1) != 0) {
            printf("Error: %s\n", err_msg());
            return TPERF_INVALID;
        }
    }
    if (res_init(&R->res) == 0)
        R->res_ok = true;
    else
        printf("Error: %s\n", err_msg());
    return TPERF_OK;
}

/* The run itself: threads, server, intervals, run time. Returns the status so far. */
static int run_test(run *R)
{
    const tperf_config *cfg = &R->cfg;
    int status = TPERF_OK;
    for (int i = 0; i < R->n; i++) {
        if (worker_start(&R->w[i]) != 0) {
            printf("Error: %s\n", err_msg());
            sig_request_stop();
            return TPERF_FAILED;
        }
    }
    if (cfg->app_type == TPERF_SERVER) {
        if (tp_bind(&R->w[0].opts, &R->srv) != 0) {
            printf("Bind failed: %s\n", err_msg());
            sig_request_stop();
            return TPERF_FAILED;
        }
        printf("\nServer %d bound on port %u\n", tp_server_fd(R->srv), tp_server_port(R->srv));
        fflush(stdout);
        accept_all(R);
    }

    int64_t start = clk_ns();
    int64_t end = start + (int64_t)cfg->run_time * CLK_NS_PER_SEC;
    unsigned sec = 0, since = 0;
    while (!sig_stop_requested()) {
        int64_t next = start + (int64_t)(sec + 1) * CLK_NS_PER_SEC;
        if (next > end)
            next = end;
        wait_until(R, next);
        if (sig_stop_requested())
            break;
        int64_t now = clk_ns();
        if (now >= start + (int64_t)(sec + 1) * CLK_NS_PER_SEC) {
            sec++;
            if (++since == (unsigned)cfg->write_stats_interval) {
                collect(R, true, sec);
                since = 0;
            }
        }
        if (now >= end) {
            printf("\nRun time of %d seconds has expired.\n\n", cfg->run_time);
            fflush(stdout);
            break;
        }
    }
    sig_request_stop();
    return status;
}

int main(int argc, char **argv)
{
    static run R; /* large (latency recorders): not on the stack */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = tperf_config_init(&R.cfg, argc, argv, stdout, stderr);
    if (rc != OPT_CONTINUE)
        return rc;

    R.status = setup(&R);
    if (R.status == TPERF_OK)
        R.status = run_test(&R);
    sig_request_stop();
    for (int i = 0; i < R.n_init; i++)
        worker_join(&R.w[i]);
    if (R.srv)
        tp_server_close(R.srv);

    if (R.summary) {
        printf("Shutting down.\n\n");
        if (R.n_init == R.n && R.n > 0) {
            collect(&R, false, 0);
            for (int i = 0; i < R.n; i++) {
                R.status = worst(R.status, R.w[i].status);
                if (R.cfg.app_type == TPERF_CLIENT && !R.w[i].ever_active) {
                    printf("Error: thread %d never connected to %s:%s.\n", i + 1, R.cfg.host,
                           R.cfg.port);
                    R.status = worst(R.status, TPERF_FAILED);
                }
            }
            write_summary(&R);
        }
        fclose(R.summary);
    }

    for (int i = 0; i < R.n_init; i++) {
        out_csv_close(&R.stats[i]);
        out_csv_close(&R.latlog[i]);
        worker_free(&R.w[i]);
    }
    free(R.w);
    free(R.stats);
    free(R.latlog);
    free(R.tot);
    free(R.all);
    if (R.la_on)
        lra_free(&R.la);
    fflush(stdout);
    return R.status;
}
