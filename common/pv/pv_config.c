#include "pv_config.h"

#include "err.h"

#include <inttypes.h>
#include <string.h>

void pv_config_defaults(pv_config *c, const char *port, const char *summary_file,
                        const char *stats_file)
{
    *c = (pv_config){
        .update_rate = 100000,
        .latency_update_rate = 10,
        .refresh_burst_size = 10,
        .max_pack_count = 1,
        .pack_buf_size = 6000,
        .service_id = 1,
        .sched_stamp = true,
    };
    run_opts_defaults(&c->opts, port, summary_file, stats_file);
    c->opts.run_time = 360;
}

int pv_config_threads(const pv_config *c)
{
    return opt_threads_with_workers(&c->opts.threads, &c->opts.worker_threads);
}

int pv_config_latency_update_rate(const pv_config *c)
{
    return opt_rate_of(c->latency_update_rate, c->update_rate);
}

int pv_config_check_workers(const pv_config *c)
{
    return opt_check_workers(&c->opts.threads, &c->opts.worker_threads, "worker");
}

int pv_config_check_feed(const pv_config *c)
{
    if (opt_check_latency_rate("-latencyUpdateRate", c->latency_update_rate, "-updateRate",
                               c->update_rate, c->opts.tick_rate) != 0)
        return -1;
    if (c->pre_enc && c->latency_update_rate == OPT_RATE_ALL)
        return err_set("Config Error: -preEnc cannot be used with -latencyUpdateRate all (every "
                       "update is then encoded with its stamp).");
    if (c->measure_encode && c->latency_update_rate == 0)
        return err_set("Config Error: -measureEncode needs a -latencyUpdateRate above 0 (only "
                       "latency updates are timed).");
    if (opt_check_total_rate("-updateRate", c->update_rate, c->opts.tick_rate) != 0)
        return -1;
    if (c->max_pack_count > 1 && c->pack_buf_size == 0)
        return err_set("Config Error: -maxPackCount %d needs a -packBufSize above 0.",
                       c->max_pack_count);
    return 0;
}

void pv_config_print_rates(out_report *r, int w, const pv_config *c)
{
    out_input(r, w, "Update Rate", "%d", c->update_rate);
    out_input(r, w, "Latency Update Rate", "%d", pv_config_latency_update_rate(c));
}

void pv_config_print_service(out_report *r, int w, const pv_config *c)
{
    out_input_packing(r, w, c->max_pack_count, c->pack_buf_size);
    out_input(r, w, "Service ID", "%" PRIu64, c->service_id);
    RUN_OPTS_PRINT(r, w, &c->opts, RUN_IN_SERVICE_NAME);
}

void pv_config_print_encode(out_report *r, int w, const pv_config *c)
{
    out_input(r, w, "Pre-Encoded Updates", "%s", out_yes_no(c->pre_enc));
    RUN_OPTS_PRINT(r, w, &c->opts, RUN_IN_NANO_TIME);
    out_input(r, w, "Measure Encode", "%s", out_yes_no(c->measure_encode));
}
