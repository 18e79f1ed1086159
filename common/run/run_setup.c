#include "run_setup.h"

#include "clk.h"
#include "err.h"
#include "opt.h"
#include "run_fail.h"
#include "sig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int run_extra_inputs(int source, out_extra *extra)
{
    *extra = OUT_EXTRA_NONE;
    int64_t skew = 0;
    const char *env = getenv(RUN_CLOCK_SKEW_ENV);
    if (env && env[0]) {
        char *end;
        errno = 0;
        long long v = strtoll(env, &end, 10);
        if (errno || *end || end == env)
            return err_set("%s: \"%s\" is not a whole number of nanoseconds", RUN_CLOCK_SKEW_ENV,
                           env);
        skew = (int64_t)v;
    }
    if (clk_use((clk_source)source, skew) != 0)
        return err_push("-clock");
    extra->clock = clk_source_name(clk_current());
    extra->clock_skew_ns = skew;
    clk_cal cal;
    if (clk_calibrate(&cal) == 0) {
        extra->clock_cost_ns = cal.read_ns;
        extra->clock_resolution_ns = (double)cal.res_ns;
    }
    return 0;
}

int run_stamps(lra *l, bool *on, int rate, int latency_rate, int tick_rate, uint64_t seed)
{
    *on = false;
    if (rate <= 0 || latency_rate == 0)
        return 0;
    if (latency_rate == OPT_RATE_ALL)
        lra_init_all(l);
    else if (lra_init(l, (uint64_t)rate, (uint64_t)latency_rate, (uint32_t)tick_rate, LRA_SETS,
                      seed) != 0)
        return -1;
    *on = true;
    return 0;
}

int run_file_name(char *buf, size_t size, const char *base, int thread, int pid)
{
    int w = pid > 0 ? snprintf(buf, size, "%s%d_%d.csv", base, thread, pid)
                    : snprintf(buf, size, "%s%d.csv", base, thread);
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

int run_file_stats(out_csv *csv, const char *base, int thread, int pid, const char *header)
{
    char path[600]; /* a 512-byte base, the thread number and the process id */
    csv->f = NULL;
    if (run_file_name(path, sizeof(path), base, thread, pid) != 0)
        return err_set("statistics file name too long");
    return out_csv_open(csv, path, header);
}

int run_file_stats_built(out_csv *csv, const char *base, int thread, int pid, const char *columns,
                         const char *const *lat_kinds)
{
    char text[4096];
    csv->f = NULL;
    if (out_csv_header(text, sizeof(text), columns, lat_kinds) != 0)
        return err_set("statistics file header too long");
    return run_file_stats(csv, base, thread, pid, text);
}

int run_file_latency(out_csv *csv, const char *base, int thread, int pid, bool with_type)
{
    char path[600]; /* a 512-byte base, the thread number and the process id */
    csv->f = NULL;
    if (!base[0])
        return 0;
    if (run_file_name(path, sizeof(path), base, thread, pid) != 0)
        return err_set("latency file name too long");
    return out_latlog_open(csv, path, with_type);
}

FILE *run_summary_open(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        printf("Error: Failed to open file '%s': %s\n", path, strerror(errno));
    return f;
}

int run_json_summary(const char *summary_file, json_object *doc)
{
    char path[1024];
    int rc = -1;
    if (!doc)
        err_set("out of memory for the JSON summary");
    else if (out_json_path(path, sizeof(path), summary_file) != 0)
        err_set("JSON summary file name too long");
    else
        rc = out_json_write(path, doc);
    if (rc != 0)
        fprintf(stderr, "Error: JSON summary: %s\n", err_msg());
    json_object_put(doc);
    return rc;
}

int run_start(run_main *m, void *app, run_load_fn load, run_print_fn print,
              const char *summary_file, int clock)
{
    run_fail_init(&m->fail);
    run_tls_seen_init(&m->tls_seen);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sig_install() != 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        return RUN_EXIT_FAILED;
    }
    out_extra extra;
    if (run_extra_inputs(clock, &extra) != 0) {
        fprintf(stderr, "Config Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    /* Inputs first: a bad file is an invalid input, reported before anything runs. */
    if (load(app) != 0) {
        fprintf(stderr, "%s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    m->summary = run_summary_open(summary_file);
    if (!m->summary)
        return RUN_EXIT_INVALID;
    out_report_init(&m->rep, stdout, m->summary);
    print(app, &extra, &m->rep);
    out_report_flush(&m->rep);
    return RUN_EXIT_OK;
}

void run_finish(run_main *m, const char *summary_file, json_object *doc)
{
    out_report_flush(&m->rep);
    fclose(m->summary);
    m->summary = NULL;
    run_tls_seen_to_results(doc, &m->tls_seen);
    run_json_summary(summary_file, doc);
    printf("Exiting.\n");
}
