#include "report.h"

#include "err.h"
#include "run_setup.h"

#include <inttypes.h>
#include <signal.h>
#include <string.h>

const char *cons_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* Durations and rates of one block, derived from its times and counts as ConsPerf does. */
typedef struct cons_derived {
    double startup_secs; /* first request .. last image (or now) */
    double steady_secs;  /* last image .. now; 0 when not all images came */
    double overall_secs; /* first request .. now */
    double startup_rate; /* startup updates / (first update .. last image or now) */
    double steady_rate;  /* steady updates / (last image .. now) */
    double image_secs;   /* image retrieval time; 0 when not all images came */
    double image_rate;   /* images / image_secs */
    double update_rate;  /* all updates / (first update .. now) */
    double post_rate;    /* posts / (last image .. now) */
    out_genmsg genmsg;   /* generic messages */
} cons_derived;

static cons_derived derive(const cons_stats *s, uint64_t now, double images)
{
    cons_derived d;
    uint64_t startup_end = s->image_end_ns ? s->image_end_ns : now;
    d.startup_secs = out_secs(s->image_start_ns, startup_end, now);
    d.steady_secs = s->image_end_ns ? out_secs(s->image_end_ns, now, now) : 0.0;
    d.overall_secs = out_secs(s->image_start_ns, now, now);
    d.startup_rate =
        out_rate((double)s->startup_updates, out_secs(s->first_update_ns, startup_end, now));
    d.steady_rate = out_rate((double)s->steady_updates, d.steady_secs);
    d.image_secs = s->image_end_ns ? out_secs(s->image_start_ns, s->image_end_ns, now) : 0.0;
    d.image_rate = out_rate(images, d.image_secs);
    d.update_rate = out_rate((double)(s->startup_updates + s->steady_updates),
                             out_secs(s->first_update_ns, now, now));
    d.post_rate = out_rate((double)s->posts_sent, out_secs(s->image_end_ns, now, now));
    d.genmsg =
        out_genmsg_of(s->genmsgs_sent, s->genmsgs_recv, s->genmsg_lat_sent, s->genmsg_lat.count,
                      s->first_genmsg_sent_ns, s->first_genmsg_recv_ns, now);
    return d;
}

/* The lines of "Test Statistics" that depend on the configuration, shared by the CLIENT and
 * OVERALL blocks; `overall` selects the two places where ConsPerf's blocks differ. */
/* Warm standby (ours: the original reports none of it): switches, the switch-over time (the
 * lost server's last update to the new active server's first), the promotion time (the loss
 * detected to the standby made active) and the loss detected to the new active server's first
 * update, items open at the end, and the item status messages of the run (a lost server's
 * items get one each, counted even when the run then ends). */
static void wsb_lines(out_report *r, const cons_config *cfg, const cons_stats *s)
{
    if (cons_wsb_mode(cfg) == CONS_WSB_NONE)
        return;
    out_printf(r, "  Warm standby switch-overs: %" PRIu32 "\n", s->wsb_switches);
    if (s->wsb_switches && s->wsb_switch_ns >= 0)
        out_printf(r, "  Warm standby switch-over time (msec): %.3f\n",
                   (double)s->wsb_switch_ns / 1e6);
    else if (s->wsb_switches)
        out_printf(r, "  Warm standby switch-over time (msec): no update after the switch\n");
    if (s->wsb_switches)
        out_printf(r, "  Warm standby promotion time (msec): %.3f\n",
                   (double)s->wsb_promote_ns / 1e6);
    if (s->wsb_switches && s->wsb_first_ns >= 0)
        out_printf(r, "  Warm standby loss to first update (msec): %.3f\n",
                   (double)s->wsb_first_ns / 1e6);
    out_printf(r, "  Items open on the active server: %" PRIu32 "\n", s->wsb_items_open);
    out_printf(r, "  Item status messages received: %" PRIu64 "\n", s->status_msgs);
}

static void test_statistics(out_report *r, const cons_config *cfg, const cons_stats *s,
                            const cons_derived *d, int conns, bool overall)
{
    out_printf(r,
               "\nTest Statistics:\n"
               "  Requests sent: %" PRIu64 "\n"
               "  Refreshes received: %" PRIu64 "\n"
               "  Updates received: %" PRIu64 "\n",
               s->requests, s->refreshes, s->startup_updates + s->steady_updates);
    wsb_lines(r, cfg, s);
    if (cfg->posting_rate)
        out_printf(r, "  Posts sent: %" PRIu64 "\n", s->posts_sent);
    out_genmsg_counts(r, &d->genmsg, cfg->opts.generic_msg_rate != 0,
                      cfg->opts.generic_msg_latency_rate != 0);
    if (s->image_end_ns)
        out_printf(r,
                   "  Image retrieval time (sec): %.3f\n"
                   "  Avg image rate: %.0f\n",
                   d->image_secs, d->image_rate);
    out_printf(r, "  Avg update rate: %.0f\n", d->update_rate);
    /* The per-connection block tests the option, the overall block the count. */
    if (overall ? s->posts_sent != 0 : cfg->posting_rate != 0)
        out_printf(r, "  Avg posting rate: %.0f\n", d->post_rate);
    out_genmsg_rates(r, &d->genmsg, cfg->opts.generic_msg_rate != 0,
                     cfg->opts.generic_msg_latency_rate != 0);

    /* Ours: what was asked for against what was achieved, per connection. */
    out_rate_check(r, "update", cfg->expected_update_rate, d->steady_rate / conns);
    out_rate_check(r, "post", cfg->posting_rate, d->post_rate / conns);
    out_rate_check(r, "GenMsg", cfg->opts.generic_msg_rate, d->genmsg.send_rate / conns);
}

static void steady_block(out_report *r, const cons_config *cfg, const cons_stats *s,
                         const cons_derived *d)
{
    out_printf(r, "  Sampling duration (sec): %.3f\n", d->steady_secs);
    out_lat_blocks(r, "Latency", "latency", &s->steady_lat, &s->steady_sched, 1,
                   "  No latency information was received during steady-state time.\n");
    if (cfg->posting_latency_rate)
        out_lat_blocks(r, "Posting latency", "posting latency", &s->post_lat, &s->post_sched, 1,
                       "  No posting latency information was received during steady-state time.\n");
    out_printf(r, "  Avg update rate: %.0f\n", d->steady_rate);
}

static void client_block(out_report *r, const cons_config *cfg, const cons_stats *s, int n,
                         uint64_t now)
{
    cons_derived d = derive(s, now, (double)s->refreshes);
    out_printf(r, "\n--- CLIENT %d SUMMARY ---\n\n", n);
    out_printf(r, "Startup State Statistics:\n");
    out_printf(r, "  Sampling duration (sec): %.3f\n", d.startup_secs);
    out_lat_blocks(r, "Latency", "latency", &s->startup_lat, &s->startup_sched, 1,
                   "  No latency information received during startup time.\n\n");
    out_printf(r, "  Avg update rate: %.0f\n", d.startup_rate);

    out_printf(r, "\nSteady State Statistics:\n");
    if (s->image_end_ns)
        steady_block(r, cfg, s, &d);
    else
        out_printf(r, "  Steady state was not reached during this test.\n\n");

    out_printf(r, "\nOverall Statistics: \n");
    out_printf(r, "  Sampling duration (sec): %.3f\n", d.overall_secs);
    out_lat_blocks(r, "Latency", "latency", &s->overall_lat, &s->overall_sched, 1,
                   "  No latency information was received.\n");
    out_lat_blocks(r, "GenMsg latency", "GenMsg latency", &s->genmsg_lat, &s->genmsg_sched, 1,
                   "  No GenMsg latency information was received.\n");
    test_statistics(r, cfg, s, &d, 1, false);
}

bool cons_report_summary(out_report *r, const cons_config *cfg, const cons_result *res)
{
    const uint64_t now = res->now_ns;
    const int conns = res->thread_count > 0 ? res->thread_count : 1;
    if (res->thread_count > 1)
        for (int i = 0; i < res->thread_count; i++)
            client_block(r, cfg, &res->thread[i], i + 1, now);

    const cons_stats *s = &res->total;
    cons_derived d = derive(s, now, (double)cfg->opts.item_count);
    out_printf(r, "\n--- OVERALL SUMMARY ---\n\n");
    out_printf(r, "Startup State Statistics:\n");
    out_printf(r, "  Sampling duration (sec): %.3f\n", d.startup_secs);
    out_lat_blocks(r, "Latency", "latency", &s->startup_lat, &s->startup_sched, 1,
                   "  No latency information received during startup time.\n\n");
    out_printf(r, "  Avg update rate: %.0f\n\n", d.startup_rate);

    out_printf(r, "Steady State Statistics:\n");
    if (s->image_end_ns) {
        steady_block(r, cfg, s, &d);
        out_printf(r, "\n");
    } else {
        out_printf(r, "  Steady state was not reached during this test.\n\n");
    }

    out_printf(r, "Overall Statistics: \n");
    out_printf(r, "  Sampling duration (sec): %.3f\n", d.overall_secs);
    out_lat_blocks(r, "Latency", "latency", &s->overall_lat, &s->overall_sched, 1,
                   "  No latency information was received.\n");
    out_lat_blocks(r, "GenMsg latency", "GenMsg latency", &s->genmsg_lat, &s->genmsg_sched, 1,
                   "  No GenMsg latency information was received.\n");
    out_res_block(r, &res->res);
    test_statistics(r, cfg, s, &d, conns, true);
    out_printf(r, "\n");

    bool failed = res->interrupted != 0;
    if (res->interrupted) {
        /* Ours: the figures above cover the time measured, not the run asked for. */
        if (s->image_end_ns)
            out_printf(r,
                       "Test interrupted by %s: %.3f of the %d seconds of steady state "
                       "measured.\n\n",
                       cons_signal_name(res->interrupted), d.steady_secs, res->steady_state_time);
        else
            out_printf(r, "Test interrupted by %s before the steady state began.\n\n",
                       cons_signal_name(res->interrupted));
    }
    for (int i = 0; i < res->thread_count; i++) {
        const cons_stats *t = res->thread_count > 1 ? &res->thread[i] : s;
        if (!t->error[0])
            continue;
        failed = true;
        out_printf(r, "ERROR: TEST FAILED due to error from Consumer Thread %d:\n  %s\n\n", i + 1,
                   t->error);
    }
    return failed;
}

/* ------------------------------------------------------------------------------------------ */
/* Interval outputs                                                                           */

void cons_report_interval(FILE *f, unsigned sec, int thread, int threads, unsigned interval_secs,
                          const cons_interval *iv)
{
    if (threads <= 1)
        fprintf(f, "%03u: ", sec);
    else
        fprintf(f, "%03u: Client %d:\n  ", sec, thread);
    fprintf(f,
            "Images: %6" PRIu64 ", Posts: %6" PRIu64 ", UpdRate: %8" PRIu64
            ", CPU: %6.2f%%, Mem: %6.2fMB\n",
            iv->refreshes, iv->posts_sent, interval_secs ? iv->updates / interval_secs : 0, iv->cpu,
            iv->mem_mb);
    out_console_lat(f, "  Latency(usec)", &iv->lat, &iv->lat_sched, false);
    if (iv->post_out_of_bufs)
        fprintf(f, "  - %" PRIu64 " posts not sent due to lack of output buffers.\n",
                iv->post_out_of_bufs);
    out_console_lat(f, "  PostLat(usec)", &iv->post_lat, &iv->post_sched, false);
    out_console_genmsgs(f, iv->genmsgs_sent, iv->genmsgs_recv, iv->genmsg_lat_sent,
                        iv->genmsg_out_of_bufs, &iv->genmsg_lat, &iv->genmsg_sched);
    if (iv->decode.count)
        out_console_stat(f, "  Update decode time (usec)", &iv->decode, true, "Msgs");
    if (iv->tunnel_bufs.count)
        out_console_stat(f, "  TunnelStreamBufferUsed", &iv->tunnel_bufs, false, "Samples");
    if (iv->status_msgs)
        fprintf(f, "  - Received %" PRIu64 " status messages.\n", iv->status_msgs);
    if (iv->image_items > 0) {
        double secs = (double)iv->image_ns / 1e9;
        fprintf(f, "  - Image retrieval time for %d images: %.3fs (%.0f images/s)\n",
                iv->image_items, secs, out_rate(iv->image_items, secs));
    }
}

void cons_report_overall_images(FILE *f, int items, uint64_t ns)
{
    double secs = (double)ns / 1e9;
    fprintf(f, "\nOverall image retrieval time for %d images: %.3fs (%.0f Images/s).\n\n", items,
            secs, out_rate(items, secs));
}

/* The statistics file's columns: the original's 23, then ours for each latency kind. */
static const char stats_columns[] =
    "UTC, Latency updates, Latency avg (usec), Latency std dev (usec), Latency max (usec), "
    "Latency min (usec), Images, Update rate (msg/sec), Posting Latency updates, Posting "
    "Latency avg (usec), Posting Latency std dev (usec), Posting Latency max (usec), Posting "
    "Latency min (usec), GenMsgs sent, GenMsgs received, GenMsg Latencies sent, GenMsg "
    "latencies received, GenMsg Latency avg (usec), GenMsg Latency std dev (usec), GenMsg "
    "Latency max (usec), GenMsg Latency min (usec), CPU usage (%), Memory (MB)";
static const char *const stats_lat_kinds[] = {"Latency", "Posting Latency", "GenMsg Latency", NULL};

int cons_report_stats_row(out_csv *csv, time_t t, unsigned interval_secs, const cons_interval *iv)
{
    char utc[32], extra[1024] = "";
    out_utc(utc, sizeof(utc), t);
    out_csv_lat_values(extra, sizeof(extra), &iv->lat, &iv->lat_sched, 1);
    out_csv_lat_values(extra, sizeof(extra), &iv->post_lat, &iv->post_sched, 1);
    out_csv_lat_values(extra, sizeof(extra), &iv->genmsg_lat, &iv->genmsg_sched, 1);
    const stat_lat *l = &iv->lat, *p = &iv->post_lat, *g = &iv->genmsg_lat;
    return out_csv_row(
        csv,
        "%s, %" PRIu64 ", %.1f, %.1f, %.1f, %.1f, %" PRIu64 ", %" PRIu64 ", %" PRIu64
        ", %.1f, %.1f, %.1f, %.1f, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
        ", %.1f, %.1f, %.1f, %.1f, %.2f, %.2f%s",
        utc, l->count, l->avg, l->stddev, l->count ? l->max : 0.0, l->count ? l->min : 0.0,
        iv->refreshes, interval_secs ? iv->updates / interval_secs : 0, p->count, p->avg, p->stddev,
        p->count ? p->max : 0.0, p->count ? p->min : 0.0, iv->genmsgs_sent, iv->genmsgs_recv,
        iv->genmsg_lat_sent, g->count, g->avg, g->stddev, g->count ? g->max : 0.0,
        g->count ? g->min : 0.0, iv->cpu, iv->mem_mb, extra);
}

int cons_stats_open(out_csv *csv, const cons_config *cfg, int thread)
{
    return run_file_stats_built(csv, cfg->opts.stats_file, thread, 0, stats_columns,
                                stats_lat_kinds);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

static json_object *stats_json(const cons_config *cfg, const cons_stats *s, uint64_t now,
                               double images, int conns)
{
    cons_derived d = derive(s, now, images);
    json_object *o = json_object_new_object();
    out_json_add(o, "item_count", json_object_new_int(s->item_count));
    out_json_add(o, "requests_sent", json_object_new_uint64(s->requests));
    out_json_add(o, "refreshes_received", json_object_new_uint64(s->refreshes));
    out_json_add(o, "updates_received",
                 json_object_new_uint64(s->startup_updates + s->steady_updates));
    out_json_add(o, "startup_updates", json_object_new_uint64(s->startup_updates));
    out_json_add(o, "steady_updates", json_object_new_uint64(s->steady_updates));
    out_json_add(o, "posts_sent", json_object_new_uint64(s->posts_sent));
    out_json_add(o, "genmsgs_sent", json_object_new_uint64(s->genmsgs_sent));
    out_json_add(o, "genmsgs_received", json_object_new_uint64(s->genmsgs_recv));
    out_json_add(o, "genmsg_latencies_sent", json_object_new_uint64(s->genmsg_lat_sent));
    out_json_add(o, "steady_state_reached", json_object_new_boolean(s->image_end_ns != 0));
    if (cons_wsb_mode(cfg) != CONS_WSB_NONE) {
        out_json_add(o, "wsb_switches", json_object_new_int64(s->wsb_switches));
        out_json_add(o, "wsb_switch_over_ms",
                     s->wsb_switches && s->wsb_switch_ns >= 0
                         ? out_json_double((double)s->wsb_switch_ns / 1e6)
                         : NULL);
        out_json_add(o, "wsb_promotion_ms",
                     s->wsb_switches ? out_json_double((double)s->wsb_promote_ns / 1e6) : NULL);
        out_json_add(o, "wsb_loss_to_first_update_ms",
                     s->wsb_switches && s->wsb_first_ns >= 0
                         ? out_json_double((double)s->wsb_first_ns / 1e6)
                         : NULL);
        out_json_add(o, "wsb_items_open", json_object_new_int64(s->wsb_items_open));
        out_json_add(o, "status_msgs_received", json_object_new_uint64(s->status_msgs));
    }
    out_json_add(o, "startup_secs", out_json_double(d.startup_secs));
    out_json_add(o, "steady_secs", out_json_double(d.steady_secs));
    out_json_add(o, "overall_secs", out_json_double(d.overall_secs));
    if (s->image_end_ns) {
        out_json_add(o, "image_retrieval_secs", out_json_double(d.image_secs));
        out_json_add(o, "image_rate", out_json_double(d.image_rate));
    }
    out_json_add(o, "startup_update_rate", out_json_double(d.startup_rate));
    out_json_add(o, "steady_update_rate", out_json_double(d.steady_rate));
    out_json_add(o, "update_rate", out_json_double(d.update_rate));
    out_json_add(o, "posting_rate", out_json_double(d.post_rate));
    out_json_add(o, "genmsg_send_rate", out_json_double(d.genmsg.send_rate));
    out_json_add(o, "genmsg_receive_rate", out_json_double(d.genmsg.recv_rate));
    if (cfg->expected_update_rate) {
        out_json_add(o, "expected_update_rate", json_object_new_int(cfg->expected_update_rate));
        out_json_add(o, "achieved_update_rate", out_json_double(d.steady_rate / conns));
    }
    if (cfg->posting_rate)
        out_json_add_rates(o, "posting", cfg->posting_rate, d.post_rate / conns);
    if (cfg->opts.generic_msg_rate)
        out_json_add_rates(o, "genmsg", cfg->opts.generic_msg_rate, d.genmsg.send_rate / conns);
    out_json_add_lat(o, "startup_latency", &s->startup_lat);
    out_json_add_lat(o, "steady_latency", &s->steady_lat);
    out_json_add_lat(o, "latency", &s->overall_lat);
    out_json_add_lat(o, "posting_latency", &s->post_lat);
    out_json_add_lat(o, "genmsg_latency", &s->genmsg_lat);
    out_json_add_lat(o, "sched_startup_latency", &s->startup_sched);
    out_json_add_lat(o, "sched_steady_latency", &s->steady_sched);
    out_json_add_lat(o, "sched_latency", &s->overall_sched);
    out_json_add_lat(o, "sched_posting_latency", &s->post_sched);
    out_json_add_lat(o, "sched_genmsg_latency", &s->genmsg_sched);
    if (s->error[0])
        out_json_add(o, "error", json_object_new_string(s->error));
    return o;
}

json_object *cons_report_json(const cons_config *cfg, const cons_result *res, const out_host *host,
                              int pid, time_t now)
{
    json_object *doc = out_json_doc("ConsPerf", host, pid, now);
    if (!doc)
        return NULL;
    out_json_add(doc, "inputs", cons_config_json(cfg));
    const int conns = res->thread_count > 0 ? res->thread_count : 1;
    json_object *results = json_object_new_object();
    out_json_add(results, "overall",
                 stats_json(cfg, &res->total, res->now_ns, (double)cfg->opts.item_count, conns));
    json_object *threads = json_object_new_array();
    bool failed = res->total.error[0] != '\0';
    for (int i = 0; threads && i < res->thread_count; i++) {
        const cons_stats *t = res->thread_count > 1 ? &res->thread[i] : &res->total;
        if (t->error[0])
            failed = true;
        json_object_array_add(threads, stats_json(cfg, t, res->now_ns, (double)t->refreshes, 1));
    }
    out_json_add(results, "threads", threads);
    out_json_add(results, "resources", out_json_res(&res->res));
    out_json_add(results, "interrupted", json_object_new_boolean(res->interrupted != 0));
    if (res->interrupted) {
        failed = true;
        out_json_add(results, "signal", json_object_new_string(cons_signal_name(res->interrupted)));
    }
    out_json_add(results, "passed", json_object_new_boolean(!failed));
    out_json_add(doc, "results", results);
    return doc;
}
