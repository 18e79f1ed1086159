/*
 * bench_prov: the cost of a provider's update path, without the tick loop.
 *
 *   1. encode: ns to write one MarketPrice update from the MsgData.xml templates (header,
 *      template copy, and the two stamps when stamped);
 *   2. burst: ns of the sending thread's CPU (user + system, RUSAGE_THREAD) per update when
 *      bursts of updates go round 10,000 items through the transport to a loopback reader
 *      that drains them on another thread — the whole per-update path of ProvPerf: item ring,
 *      template, encode, buffer, frame, send() at the high-water mark — unpacked and packed.
 *
 *   bench_prov [seconds per run] [data folder] [encodes]   defaults: 3, the project's data/,
 *                                                          20,000,000
 *
 * Under callgrind (instructions per update, repeatable on a loaded machine), a small count
 * and a short run: valgrind --tool=callgrind bench_prov 0.01 "" 100000, then the inclusive
 * cost of pv_msg_update divided by its calls.
 *
 * Prints one line per case. Numbers vary with the machine's load: repeat and keep the best.
 */
#include "clk.h"
#include "err.h"
#include "pv_burst.h"
#include "pv_feed.h"
#include "rwf.h"
#include "tp.h"

#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double thread_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
}

/* Encodes n updates plain, then n stamped, and prints the ns per update of each. */
static void bench_encode(const pv_feed *f, int n)
{
    const pv_dom *d = &f->dom[PV_DOM_MP];
    static uint8_t buf[4096];
    for (int stamped = 0; stamped < 2; stamped++) {
        int64_t t0 = clk_ns();
        uint64_t sum = 0;
        for (int i = 0; i < n; i++) {
            const pv_tmpl *t = &d->updates[i & 1];
            uint64_t s = stamped ? (uint64_t)i + 1 : 0;
            sum += pv_msg_update(buf, 5 + (i & 1023), t, s, s);
        }
        int64_t t1 = clk_ns();
        printf("encode %-9s %6.1f ns/update (%" PRIu64 " bytes)\n", stamped ? "stamped" : "plain",
               (double)(t1 - t0) / n, sum / (uint64_t)n);
    }
}

typedef struct reader {
    tp_channel *ch;
    _Atomic int stop;
    uint64_t msgs;
} reader;

static void *drain(void *arg)
{
    reader *r = arg;
    while (!atomic_load(&r->stop)) {
        tp_msg m;
        int rc = tp_read(r->ch, &m);
        if (rc < 0)
            break;
        if (rc & TP_READ_MSG)
            r->msgs++;
        if (!(rc & TP_READ_MORE)) {
            struct pollfd p = {.fd = tp_fd(r->ch), .events = POLLIN};
            poll(&p, 1, 10);
        }
    }
    return NULL;
}

static int connect_pair(tp_server **srv, tp_channel **s, tp_channel **c)
{
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.host = "127.0.0.1";
    o.port = "0";
    o.guaranteed_output_buffers = 5000;
    o.num_input_buffers = 100;
    if (tp_bind(&o, srv) != 0)
        return -1;
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(*srv));
    o.port = port;
    if (tp_connect(&o, c) != 0)
        return -1;
    *s = NULL;
    int rs = TP_PENDING, rc = TP_PENDING;
    for (int i = 0; i < 5000 && (rs != TP_ACTIVE || rc != TP_ACTIVE); i++) {
        if (!*s && tp_accept(*srv, s) < 0)
            return -1;
        if (*s && rs != TP_ACTIVE && (rs = tp_init(*s)) < 0)
            return -1;
        if (rc != TP_ACTIVE && (rc = tp_init(*c)) < 0)
            return -1;
        struct pollfd p = {.fd = tp_fd(*c), .events = POLLIN};
        poll(&p, 1, 1);
    }
    return rs == TP_ACTIVE && rc == TP_ACTIVE ? 0 : -1;
}

static void bench_burst(const pv_feed *f, uint32_t max_pack, double secs)
{
    tp_server *srv;
    tp_channel *sch, *cch;
    if (connect_pair(&srv, &sch, &cch) != 0) {
        fprintf(stderr, "connect: %s\n", err_msg());
        return;
    }
    reader r = {.ch = cch};
    pthread_t tid;
    pthread_create(&tid, NULL, drain, &r);

    pv_sess s;
    memset(&s, 0, sizeof(s));
    s.ch = sch;
    run_out_init_tp(&s.out, sch, max_pack, 6000, 0);
    pv_items_init(&s.items, 10000);
    char name[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        pv_key k = {.flags = PV_KEY_NAME | PV_KEY_SERVICE_ID,
                    .service_id = 1,
                    .name = (const uint8_t *)name,
                    .name_len = (uint16_t)strlen(name)};
        uint32_t idx;
        pv_items_add(&s.items, 5 + i, 6, &k, PV_ITEM_STREAMING, &idx);
        pv_items_to_update(&s.items, idx);
    }
    pv_stats st;
    pv_stats_init(&st, 0);
    /* Bursts of 3400 (3.4 M/s at 1000 ticks/s), one stamped, flushed at each burst's end. */
    uint64_t sent = 0, dropped = 0;
    double c0 = thread_cpu_ns();
    int64_t t0 = clk_ns(), end = t0 + (int64_t)(secs * 1e9);
    while (clk_ns() < end) {
        int rc = pv_burst_updates(&s, f, &st, 3400, 1700, clk_ns());
        int q = run_out_close(&s.out);
        if (q > 0)
            q = run_out_flush(&s.out);
        if (rc == TP_EFAIL || q < 0) {
            fprintf(stderr, "burst: %s\n", err_msg());
            break;
        }
        if (rc == TP_ENOBUFS || q > 0) {
            struct pollfd p = {.fd = tp_fd(sch), .events = POLLOUT};
            poll(&p, 1, 1);
        }
    }
    double c1 = thread_cpu_ns();
    int64_t t1 = clk_ns();
    sent = counter_total(&st.updates);
    dropped = counter_total(&st.out_of_bufs);
    while (run_out_flush(&s.out) > 0) {
        struct pollfd p = {.fd = tp_fd(sch), .events = POLLOUT};
        poll(&p, 1, 10);
    }
    atomic_store(&r.stop, 1);
    pthread_join(tid, NULL);
    tp_stats ts;
    tp_get_stats(sch, &ts);
    printf("burst %-8s %6.1f ns CPU/update, %5.2f M updates/s through the channel (%" PRIu64
           " dropped for lack of buffers), %.0f updates per send()\n",
           max_pack > 1 ? "packed" : "unpacked", (c1 - c0) / (double)sent,
           (double)sent / ((double)(t1 - t0) / 1e9) / 1e6, dropped,
           ts.send_calls ? (double)sent / (double)ts.send_calls : 0.0);
    pv_items_free(&s.items);
    pv_stats_free(&st);
    tp_close(sch);
    tp_close(cch);
    tp_server_close(srv);
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 3.0;
    const char *dir = argc > 2 && argv[2][0] ? argv[2] : RWFPERF_SOURCE_DIR "/data";
    int encodes = argc > 3 ? atoi(argv[3]) : 20000000;
    char fld[1024], enm[1024], msg[1024];
    snprintf(fld, sizeof(fld), "%s/RDMFieldDictionary", dir);
    snprintf(enm, sizeof(enm), "%s/enumtype.def", dir);
    snprintf(msg, sizeof(msg), "%s/MsgData.xml", dir);
    rwf_dict *d = rwf_dict_new();
    pv_feed f;
    memset(&f, 0, sizeof(f));
    pv_content *c = NULL;
    if (!d || rwf_dict_load_fields(d, fld) != RWF_OK || rwf_dict_load_enums(d, enm) != RWF_OK ||
        !(c = pv_content_load(msg, d, false, &f))) {
        fprintf(stderr, "bench_prov: %s\n", err_msg());
        return 1;
    }
    f.refresh_burst = 10;
    f.sched_stamp = true;
    bench_encode(&f, encodes > 0 ? encodes : 1);
    bench_burst(&f, 1, secs);
    bench_burst(&f, 10, secs);
    pv_content_free(c);
    rwf_dict_free(d);
    return 0;
}
