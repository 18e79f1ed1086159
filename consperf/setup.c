/* ConsPerf before its threads start: inputs, stamp schedules, threads, statistics files. */
#include "app.h"

#include "datafile.h"
#include "err.h"
#include "opt.h"
#include "run_host.h"
#include "run_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Capacity of each thread's raw latency ring (-latencyFile): the main thread empties it every
 * second. */
#define CONS_RING_SAMPLES (1u << 17)

/* Loads RDMFieldDictionary and enumtype.def (the working folder's, else the data folder's:
 * datafile.h), or says why not and that the threads will download them. */
static rwf_dict *load_dictionary(void)
{
    rwf_dict *d = rwf_dict_new();
    if (!d)
        return NULL;
    char path[1024];
    const char *file = data_locate("RDMFieldDictionary", path, sizeof(path));
    if (!file || rwf_dict_load_fields(d, file) < 0) {
        printf("Unable to load field dictionary: %s.\n"
               "Will request dictionaries from provider.\n\n",
               err_msg());
    } else if (!(file = data_locate("enumtype.def", path, sizeof(path))) ||
               rwf_dict_load_enums(d, file) < 0) {
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
    size_t need = items_needed((size_t)cfg->opts.item_count, (size_t)cfg->opts.common_item_count,
                               (size_t)threads);
    if (need == 0)
        return 0;
    char path[1024];
    const char *file = data_locate(cfg->opts.item_file, path, sizeof(path));
    if (!file || items_load(list, file, need) < 0) {
        printf("Error: Failed to load item list from file '%s': %s\n", cfg->opts.item_file,
               err_msg());
        return -1;
    }
    if (cfg->posting_rate && list->post_count == 0) {
        printf("Error: Configured for posting but no posting items found in item file.\n");
        return -1;
    }
    if (cfg->opts.generic_msg_rate && list->generic_count == 0) {
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
            printf("Error: No %s posting data in file: %s\n", domains[d].name, cfg->opts.msg_file);
            return -1;
        }
        if (cfg->opts.generic_msg_rate && generic && (!l || l->generic_count == 0)) {
            printf("Error: No %s generic message data in file: %s\n", domains[d].name,
                   cfg->opts.msg_file);
            return -1;
        }
    }
    return 0;
}

void cons_app_free(cons_app *a)
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
    run_ws_converter_free(a->json);
    rwf_dict_free(a->dict);
    items_free(&a->list);
    if (a->summary)
        fclose(a->summary);
}

/* Prepares consumer thread i of a->run (not started): its CPUs, its share of the items, its
 * counters and latency sets (and sample ring with -latencyFile). Returns OPT_CONTINUE, or the
 * exit status after printing why. */
static int prepare_thread(cons_app *a, int i)
{
    const cons_config *cfg = &a->cfg;
    const int n = a->run.thread_count;
    cons_thread *t = &a->threads[i];
    t->run = &a->run;
    t->index = i;
    run_fail_init(&t->fail);
    if (a->cpus.given)
        t->cpu = a->cpus.entry[i];
    if (a->worker_cpus.given && i < a->worker_cpus.count) {
        t->worker_cpu = a->worker_cpus.entry[i];
        t->worker_bound = true;
    }
    if (items_split((size_t)cfg->opts.item_count, (size_t)cfg->opts.common_item_count, (size_t)n,
                    (size_t)i, &t->share) < 0) {
        printf("Config Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
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
        return RUN_EXIT_FAILED;
    }
    if (cfg->opts.latency_file[0]) {
        if (latring_init(&t->ring, CONS_RING_SAMPLES) < 0) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_FAILED;
        }
        t->has_ring = true;
    }
    return OPT_CONTINUE;
}

int cons_app_prepare(cons_app *a)
{
    cons_config *cfg = &a->cfg;
    cons_run *run = &a->run;
    const int n = cons_config_threads(cfg);

    if (cpu_parse(&a->cpus, cfg->opts.threads.list) < 0) {
        printf("Config Error: -threads: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (cpu_parse(&a->worker_cpus, cfg->opts.worker_threads.list) < 0) {
        printf("Config Error: -workerThreads: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (load_items(cfg, n, &a->list) < 0)
        return RUN_EXIT_INVALID;
    a->dict = load_dictionary();
    if (cfg->posting_rate || cfg->opts.generic_msg_rate) {
        if (!a->dict) {
            printf("Error: %s needs the dictionary files RDMFieldDictionary and enumtype.def in "
                   "the working folder to validate %s.\n",
                   cfg->posting_rate ? "-postingRate" : "-genericMsgRate", cfg->opts.msg_file);
            return RUN_EXIT_INVALID;
        }
        char path[1024];
        const char *file = data_locate(cfg->opts.msg_file, path, sizeof(path));
        if (!file || msgdata_load(&a->msgs, file, a->dict) < 0) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_INVALID;
        }
        a->have_msgs = true;
        if (check_msgs(cfg, &a->list, &a->msgs) < 0)
            return RUN_EXIT_INVALID;
    }

    if (run_conn_websocket(&cfg->opts) && a->dict) {
        /* rssl.json.v2 names fields; -calcRWFJSONConversionLatency converts too */
        if (!(a->json = run_ws_converter(a->dict, cfg->opts.service_name, 1))) {
            printf("Error: %s\n", err_msg());
            return RUN_EXIT_FAILED;
        }
    } else if (run_conn_websocket(&cfg->opts) && cfg->calc_json_latency) {
        printf("Error: -calcRWFJSONConversionLatency needs the dictionary files "
               "RDMFieldDictionary and enumtype.def (in the working folder or the data folder).\n");
        return RUN_EXIT_INVALID;
    }
    run->cfg = cfg;
    run->list = &a->list;
    run->dict = a->dict;
    run->json = a->json;
    run->msgs = a->have_msgs ? &a->msgs : NULL;
    run->thread_count = n;
    run->post_user_id = (uint32_t)getpid();
    run->post_user_addr = 0;
    if (cfg->posting_rate)
        run_host_ipv4(&run->post_user_addr);
    if (run_stamps(&run->post_lra, &run->post_lra_on, cfg->posting_rate, cfg->posting_latency_rate,
                   cfg->opts.tick_rate, lra_time_seed()) < 0) {
        printf("Config Error: -postingLatencyRate: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (run_stamps(&run->gen_lra, &run->gen_lra_on, cfg->opts.generic_msg_rate,
                   cfg->opts.generic_msg_latency_rate, cfg->opts.tick_rate,
                   lra_time_seed() + 1) < 0) {
        printf("Config Error: -genericMsgLatencyRate: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }

    a->threads = calloc((size_t)n, sizeof(*a->threads));
    if (!a->threads) {
        printf("Error: out of memory\n");
        return RUN_EXIT_FAILED;
    }
    run->threads = a->threads;
    for (int i = 0; i < n; i++) {
        int rc = prepare_thread(a, i);
        if (rc != OPT_CONTINUE)
            return rc;
    }
    if (cons_collect_init(&a->col, run) < 0) {
        printf("Error: %s\n", err_msg());
        return RUN_EXIT_INVALID;
    }
    if (!(a->summary = run_summary_open(cfg->opts.summary_file)))
        return RUN_EXIT_INVALID;
    return OPT_CONTINUE;
}
