#include "pv_config.h"

#include "err.h"

#include <string.h>

void pv_config_defaults(pv_config *c, const char *port, const char *summary_file,
                        const char *stats_file)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->port, sizeof(c->port), "%s", port);
    run_tls_defaults(&c->tls);
    c->threads.count = 1;
    c->output_bufs = 5000;
    c->tcp_nodelay = true;
    c->run_time = 360;
    c->tick_rate = 1000;
    c->update_rate = 100000;
    c->latency_update_rate = 10;
    c->refresh_burst_size = 10;
    c->max_pack_count = 1;
    c->pack_buf_size = 6000;
    c->service_id = 1;
    strcpy(c->service_name, "DIRECT_FEED");
    c->sched_stamp = true;
    strcpy(c->msg_file, "MsgData.xml");
    snprintf(c->summary_file, sizeof(c->summary_file), "%s", summary_file);
    snprintf(c->stats_file, sizeof(c->stats_file), "%s", stats_file);
    c->write_stats_interval = 5;
    c->display_stats = true;
}

int pv_config_threads(const pv_config *c)
{
    return opt_threads_with_workers(&c->threads, &c->worker_threads);
}

int pv_config_latency_update_rate(const pv_config *c)
{
    return opt_rate_of(c->latency_update_rate, c->update_rate);
}

int pv_config_check_workers(const pv_config *c)
{
    return opt_check_workers(&c->threads, &c->worker_threads, "worker");
}

int pv_config_check_feed(const pv_config *c)
{
    if (opt_check_latency_rate("-latencyUpdateRate", c->latency_update_rate, "-updateRate",
                               c->update_rate, c->tick_rate) != 0)
        return -1;
    if (c->pre_enc && c->latency_update_rate == OPT_RATE_ALL)
        return err_set("Config Error: -preEnc cannot be used with -latencyUpdateRate all (every "
                       "update is then encoded with its stamp).");
    if (c->measure_encode && c->latency_update_rate == 0)
        return err_set("Config Error: -measureEncode needs a -latencyUpdateRate above 0 (only "
                       "latency updates are timed).");
    if (opt_check_total_rate("-updateRate", c->update_rate, c->tick_rate) != 0)
        return -1;
    if (c->max_pack_count > 1 && c->pack_buf_size == 0)
        return err_set("Config Error: -maxPackCount %d needs a -packBufSize above 0.",
                       c->max_pack_count);
    return 0;
}
