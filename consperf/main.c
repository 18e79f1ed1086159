/*
 * ConsPerf: the consumer (tools.md §2.5–2.8).
 *
 * The main thread reads the configuration, the item list, the dictionary (when the files are
 * in the working folder) and the message data, starts one consumer thread per connection, and
 * then wakes once a second: statistics every -writeStatsInterval, the end of the test when the
 * steady-state time has passed (counted from the moment every image was in, or from the start
 * while images are missing), in snapshot mode as soon as every image is in, on SIGINT/SIGTERM,
 * or when a thread fails. It then joins the threads and writes the summary (console and file)
 * and the JSON summary, whatever the reason for ending.
 *
 * Exit status: 0 the test completed, 1 it failed (images not received in time, connection
 * lost, a thread error, interrupted before every image was in), 2 invalid command line or
 * input file.
 */
#include "collect.h"
#include "cons.h"
#include "report.h"

#include "clk.h"
#include "err.h"
#include "msgdata.h"
#include "opt.h"
#include "sig.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define EXIT_PASSED 0
#define EXIT_FAILED 1
#define EXIT_INVALID OPT_EXIT_INVALID

/* Capacity of each thread's raw latency ring (-latencyFile): the main thread empties it every
 * second. */
#define CONS_RING_SAMPLES (1u << 17)

/* The IPv4 address of this host (host order), as the ETA tools take it for PostUserInfo:
 * the address its name resolves to, 127.0.0.1 when it does not resolve. */
static uint32_t host_ipv4(void)
{
    char name[256];
    if (gethostname(name, sizeof(name)) != 0)
        snprintf(name, sizeof(name), "localhost");
    name[sizeof(name) - 1] = '\0';
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    uint32_t addr = INADDR_LOOPBACK;
    if (getaddrinfo(name, NULL, &hints, &ai) == 0 && ai) {
        addr = ntohl(((const struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr);
        freeaddrinfo(ai);
    }
    return addr;
}

/* Loads RDMFieldDictionary and enumtype.def from the working folder, or says that the threads
 * will download them. */
static rwf_dict *load_dictionary(void)
{
    rwf_dict *d = rwf_dict_new();
    if (!d)
        return NULL;
    if (rwf_dict_load_fields(d, "RDMFieldDictionary") < 0) {
        printf("Unable to load field dictionary: %s.\n"
               "Will request dictionaries from provider.\n\n",
               err_msg());
    } else if (rwf_dict_load_enums(d, "enumtype.def") < 0) {
        printf("Unable to load enum type dictionary: %s.\n\n"
               "Will request dictionaries from provider.\n",
               err_msg());
    } else {
        return d;
    }
    rwf_dict_free(d);
    return NULL;
}

/* Reads the item list and checks it against the rates. Returns 0, or -1 after printing. */
static int load_items(const cons_config *cfg, int threads, items *list)
{
    memset(list, 0, sizeof(*list));
    size_t need =
        items_needed((size_t)cfg->item_count, (size_t)cfg->common_item_count, (size_t)threads);
    if (need == 0)
        return 0;
    if (items_load(list, cfg->item_file, need) < 0) {
        printf("Error: Failed to load item list from file '%s': %s\n", cfg->item_file, err_msg());
        return -1;
    }
    if (cfg->posting_rate && list->post_count == 0) {
        printf("Error: Configured for posting but no posting items found in item file.\n");
        return -1;
    }
    if (cfg->generic_msg_rate && list->generic_count == 0) {
        printf("Error: Configured for sending generic messages but no generic message items "
               "found in item file.\n");
        return -1;
    }
    return 0;
}

/* The message data must hold posts (generic messages) for every domain that has items to
 * post to (send generic messages to). Returns 0, or -1 after printing. */
static int check_msgs(const cons_config *cfg, const items *list, const msgdata *md)
{
    static const struct {
        uint8_t domain;
        const char *name;
    } domains[] = {{RWF_DMT_MARKET_PRICE, "MarketPrice"},
                   {RWF_DMT_MARKET_BY_ORDER, "MarketByOrder"}};
    for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
        bool post = false, generic = false;
        for (size_t i = 0; i < list->count; i++)
            if (list->v[i].domain == domains[d].domain) {
                post |= list->v[i].post;
                generic |= list->v[i].generic;
            }
        const msgdata_list *l = msgdata_list_of(md, domains[d].domain);
        if (cfg->posting_rate && post && (!l || l->post_count == 0)) {
            printf("Error: No %s posting data in file: %s\n", domains[d].name, cfg->msg_file);
            return -1;
        }
        if (cfg->generic_msg_rate && generic && (!l || l->generic_count == 0)) {
            printf("Error: No %s generic message data in file: %s\n", domains[d].name,
                   cfg->msg_file);
            return -1;
        }
    }
    return 0;
}

/* Sleeps until deadline_ns unless a stop is requested (signals interrupt the sleep). */
static void sleep_until(int64_t deadline_ns)
{
    while (!sig_stop_requested() && clk_ns() < deadline_ns)
        clk_sleep_until(deadline_ns);
}

/* Why the run ended, as far as the exit status is concerned. */
typedef enum run_end {
    RUN_RUNNING,
    RUN_EXPIRED,
    RUN_SNAPSHOT,
    RUN_IMAGES_LATE,
    RUN_STOPPED
} run_end;

/* The 1-second loop (tools.md §2.6). */
static run_end main_loop(cons_collector *col, cons_run *run)
{
    const cons_config *cfg = run->cfg;
    const int64_t steady_ns = (int64_t)cfg->steady_state_time * CLK_NS_PER_SEC;
    int64_t end_ns = clk_ns() + steady_ns;
    bool rearmed = false;
    unsigned sec = 0, interval = 0;
    int64_t next = clk_ns() + CLK_NS_PER_SEC;
    sleep_until(next);
    for (;;) {
        if (sig_stop_requested())
            return RUN_STOPPED;
        int64_t now = clk_ns();
        ++sec;
        if (++interval == (unsigned)cfg->write_stats_interval) {
            cons_collect_interval(col, sec, cfg->display_stats);
            interval = 0;
        } else {
            cons_collect_samples(col);
        }
        uint64_t images_end = cons_collect_images_end(run);
        if (images_end && cfg->snapshot) {
            printf("Received all images for snapshot test.\n");
            return RUN_SNAPSHOT;
        }
        if (images_end && !rearmed) {
            /* Every image is in: the steady state lasts steadyStateTime from then. */
            end_ns = (int64_t)images_end + steady_ns;
            rearmed = true;
        }
        if (now >= end_ns) {
            if (!images_end) {
                printf("Error: Failed to receive all images within %d seconds.\n",
                       cfg->steady_state_time);
                return RUN_IMAGES_LATE;
            }
            printf("\nSteady state time of %d seconds has expired.\n", cfg->steady_state_time);
            return RUN_EXPIRED;
        }
        fflush(stdout);
        next = now + CLK_NS_PER_SEC;
        sleep_until(next);
    }
}

/* The error text of a thread that lacks images when the run ends for want of them. */
static void note_missing_images(cons_result *r, cons_stats *thread, const char *why)
{
    for (int i = 0; i < r->thread_count; i++) {
        cons_stats *s = &thread[i];
        if (s->error[0] || s->image_end_ns || s->item_count == 0)
            continue;
        snprintf(s->error, sizeof(s->error), "%s (%" PRIu64 " of %d images received).", why,
                 s->refreshes, s->item_count);
    }
    if (r->thread_count == 1)
        memcpy(r->total.error, thread[0].error, sizeof(r->total.error));
}

static int write_summary(cons_collector *col, cons_run *run, FILE *summary, run_end why)
{
    const cons_config *cfg = run->cfg;
    cons_stats *thread = calloc((size_t)run->thread_count, sizeof(*thread));
    cons_result result;
    if (!thread || cons_collect_result(col, &result, thread, (uint64_t)clk_ns()) < 0) {
        fprintf(stderr, "Error: %s\n", err_msg());
        free(thread);
        return EXIT_FAILED;
    }
    bool images = result.total.image_end_ns != 0 || cfg->item_count == 0;
    char why_text[128];
    if (why == RUN_IMAGES_LATE && cfg->item_count == 0) {
        snprintf(thread[0].error, sizeof(thread[0].error),
                 "No items were requested (-itemCount 0): there are no images to wait for and "
                 "no steady state.");
        memcpy(result.total.error, thread[0].error, sizeof(result.total.error));
    } else if (why == RUN_IMAGES_LATE) {
        snprintf(why_text, sizeof(why_text), "Failed to receive all images within %d seconds",
                 cfg->steady_state_time);
        note_missing_images(&result, thread, why_text);
    } else if (why == RUN_STOPPED && !images && sig_caught()) {
        snprintf(why_text, sizeof(why_text), "Stopped by %s before all images were received",
                 sig_caught() == SIGINT ? "SIGINT" : "SIGTERM");
        note_missing_images(&result, thread, why_text);
    }

    out_report rep;
    out_report_init(&rep, stdout, summary);
    bool failed = cons_report_summary(&rep, cfg, &result);
    if (out_report_flush(&rep) < 0)
        fprintf(stderr, "Error: writing the summary: %s\n", err_msg());

    char json_path[CONS_PATH_LEN + 8];
    if (out_json_path(json_path, sizeof(json_path), cfg->summary_file) == 0) {
        out_host host;
        out_host_get(&host);
        json_object *doc = cons_report_json(cfg, &result, &host, (int)getpid(), time(NULL));
        if (!doc || out_json_write(json_path, doc) < 0)
            fprintf(stderr, "Error: writing %s: %s\n", json_path, err_msg());
        json_object_put(doc);
    }
    free(thread);
    if (failed || why == RUN_IMAGES_LATE)
        return EXIT_FAILED;
    return EXIT_PASSED;
}

/* Everything the run owns, released in one place. */
typedef struct cons_app {
    cons_config cfg;
    items list;
    rwf_dict *dict;
    msgdata msgs;
    bool have_msgs;
    cpu_list cpus;
    cons_run run;
    cons_thread *threads;
    cons_collector col;
    FILE *summary;
} cons_app;

static void app_free(cons_app *a)
{
    cons_collect_free(&a->col);
    if (a->threads)
        for (int i = 0; i < a->run.thread_count; i++) {
            latbuf_free(&a->threads[i].lat);
            if (a->threads[i].has_ring)
                latring_free(&a->threads[i].ring);
        }
    free(a->threads);
    lra_free(&a->run.post_lra);
    lra_free(&a->run.gen_lra);
    if (a->have_msgs)
        msgdata_free(&a->msgs);
    rwf_dict_free(a->dict);
    items_free(&a->list);
    if (a->summary)
        fclose(a->summary);
}

/* Everything before the threads start. Returns OPT_CONTINUE, or the exit status. */
static int prepare(cons_app *a)
{
    cons_config *cfg = &a->cfg;
    cons_run *run = &a->run;
    const int n = cons_config_threads(cfg);

    if (cpu_parse(&a->cpus, cfg->threads.list) < 0) {
        printf("Config Error: -threads: %s\n", err_msg());
        return EXIT_INVALID;
    }
    if (load_items(cfg, n, &a->list) < 0)
        return EXIT_INVALID;
    a->dict = load_dictionary();
    if (cfg->posting_rate || cfg->generic_msg_rate) {
        if (!a->dict) {
            printf("Error: %s needs the dictionary files RDMFieldDictionary and enumtype.def in "
                   "the working folder to validate %s.\n",
                   cfg->posting_rate ? "-postingRate" : "-genericMsgRate", cfg->msg_file);
            return EXIT_INVALID;
        }
        if (msgdata_load(&a->msgs, cfg->msg_file, a->dict) < 0) {
            printf("Error: %s\n", err_msg());
            return EXIT_INVALID;
        }
        a->have_msgs = true;
        if (check_msgs(cfg, &a->list, &a->msgs) < 0)
            return EXIT_INVALID;
    }

    run->cfg = cfg;
    run->list = &a->list;
    run->dict = a->dict;
    run->msgs = a->have_msgs ? &a->msgs : NULL;
    run->thread_count = n;
    run->post_user_id = (uint32_t)getpid();
    run->post_user_addr = cfg->posting_rate ? host_ipv4() : 0;
    if (cfg->posting_rate && cfg->posting_latency_rate > 0) {
        if (lra_init(&run->post_lra, (uint64_t)cfg->posting_rate,
                     (uint64_t)cfg->posting_latency_rate, (uint32_t)cfg->tick_rate, LRA_SETS,
                     lra_time_seed()) < 0) {
            printf("Config Error: -postingLatencyRate: %s\n", err_msg());
            return EXIT_INVALID;
        }
        run->post_lra_on = true;
    }
    if (cfg->generic_msg_rate && cfg->generic_msg_latency_rate > 0) {
        if (lra_init(&run->gen_lra, (uint64_t)cfg->generic_msg_rate,
                     (uint64_t)cfg->generic_msg_latency_rate, (uint32_t)cfg->tick_rate, LRA_SETS,
                     lra_time_seed() + 1) < 0) {
            printf("Config Error: -genericMsgLatencyRate: %s\n", err_msg());
            return EXIT_INVALID;
        }
        run->gen_lra_on = true;
    }

    a->threads = calloc((size_t)n, sizeof(*a->threads));
    if (!a->threads) {
        printf("Error: out of memory\n");
        return EXIT_FAILED;
    }
    run->threads = a->threads;
    for (int i = 0; i < n; i++) {
        cons_thread *t = &a->threads[i];
        t->run = run;
        t->index = i;
        if (a->cpus.given)
            t->cpu = a->cpus.entry[i];
        if (items_split((size_t)cfg->item_count, (size_t)cfg->common_item_count, (size_t)n,
                        (size_t)i, &t->share) < 0) {
            printf("Config Error: %s\n", err_msg());
            return EXIT_INVALID;
        }
        counter_init(&t->c.requests);
        counter_init(&t->c.refreshes);
        counter_init(&t->c.startup_updates);
        counter_init(&t->c.steady_updates);
        counter_init(&t->c.status_msgs);
        counter_init(&t->c.posts_sent);
        counter_init(&t->c.post_out_of_bufs);
        counter_init(&t->c.genmsgs_sent);
        counter_init(&t->c.genmsgs_recv);
        counter_init(&t->c.genmsg_lat_sent);
        counter_init(&t->c.genmsg_out_of_bufs);
        if (latbuf_init(&t->lat, CONS_LAT_KINDS) < 0) {
            printf("Error: %s\n", err_msg());
            return EXIT_FAILED;
        }
        if (cfg->latency_file[0]) {
            if (latring_init(&t->ring, CONS_RING_SAMPLES) < 0) {
                printf("Error: %s\n", err_msg());
                return EXIT_FAILED;
            }
            t->has_ring = true;
        }
    }
    if (cons_collect_init(&a->col, run) < 0) {
        printf("Error: %s\n", err_msg());
        return EXIT_INVALID;
    }
    if (!(a->summary = fopen(cfg->summary_file, "w"))) {
        printf("Error: Failed to open file '%s'.\n", cfg->summary_file);
        return EXIT_INVALID;
    }
    return OPT_CONTINUE;
}

int main(int argc, char **argv)
{
    static cons_app app;
    cons_app *a = &app;
    int status = cons_config_init(&a->cfg, argc, argv, stdout, stderr);
    if (status != OPT_CONTINUE)
        return status;
    const cons_config *cfg = &a->cfg;

    clk_cal cal;
    out_extra extra = OUT_EXTRA_NONE;
    if (clk_calibrate(&cal) == 0) {
        extra.clock_cost_ns = cal.read_ns;
        extra.clock_resolution_ns = (double)cal.res_ns;
    }
    out_report console;
    out_report_init(&console, stdout, NULL);
    cons_config_print(cfg, &extra, &console);
    fflush(stdout);

    status = prepare(a);
    if (status != OPT_CONTINUE) {
        fflush(stdout);
        app_free(a);
        return status;
    }
    out_report file;
    out_report_init(&file, NULL, a->summary);
    cons_config_print(cfg, &extra, &file);
    fflush(a->summary);

    if (sig_install() < 0) {
        printf("Error: %s\n", err_msg());
        app_free(a);
        return EXIT_FAILED;
    }
    printf("Starting connections(%d total)...\n\n", a->run.thread_count);
    fflush(stdout);
    for (int i = 0; i < a->run.thread_count; i++) {
        cons_thread *t = &a->threads[i];
        int rc = pthread_create(&t->tid, NULL, cons_thread_main, t);
        if (rc != 0) {
            err_set_errno(rc, "starting consumer thread %d", i + 1);
            snprintf(t->error, sizeof(t->error), "%s", err_msg());
            atomic_store(&t->failed, 1);
            sig_request_stop();
            break;
        }
        t->started = true;
    }

    run_end why = main_loop(&a->col, &a->run);
    printf("\nShutting down.\n\n");
    fflush(stdout);
    sig_request_stop();
    for (int i = 0; i < a->run.thread_count; i++)
        if (a->threads[i].started)
            pthread_join(a->threads[i].tid, NULL);
    cons_collect_final(&a->col);
    status = write_summary(&a->col, &a->run, a->summary, why);
    app_free(a);
    return status;
}
