/*
 * bench_consperf: what ConsPerf's receive path costs per update, and how many updates per
 * second one core can take off a socket and decode.
 *
 *   bench_consperf [seconds]     (default 3 per stream case; 0: the decode case alone)
 *
 * Messages: the two MsgData.xml MarketPrice updates of data/ (the project's files), encoded as
 * ProvPerf sends them (header + template fields), every tenth with TIM_TRK_1 and TIM_TRK_3.
 * Cases:
 *   decode   - rwf_msg_decode + payload_decode (every field with its dictionary type, enum
 *              values looked up, stamps picked up): ns per update, best of 5 runs
 *   stream   - a writer thread sends RIPC frames of those updates into a socketpair as fast as
 *              it can (one frame per update, or packed 10 per frame); the reader, a transport
 *              channel, runs tp_read + decode until the writer stops. Prints updates/s and the
 *              reader thread's CPU time per update (what ConsPerf's consumer thread does,
 *              without the bookkeeping).
 */
#include "payload.h"

#include "clk.h"
#include "err.h"
#include "msgdata.h"
#include "rwf.h"
#include "tp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

#define RUNS 5
#define MSGS 16 /* distinct encoded updates, cycled */

static rwf_dict *dict;
static uint8_t msgs[MSGS][512];
static size_t msg_len[MSGS];

static int load(void)
{
    const char *src = RWFPERF_SOURCE_DIR;
    char f[1024], e[1024], m[1024];
    snprintf(f, sizeof(f), "%s/data/RDMFieldDictionary", src);
    snprintf(e, sizeof(e), "%s/data/enumtype.def", src);
    snprintf(m, sizeof(m), "%s/data/MsgData.xml", src);
    dict = rwf_dict_new();
    static msgdata md;
    if (!dict || rwf_dict_load_fields(dict, f) < 0 || rwf_dict_load_enums(dict, e) < 0 ||
        msgdata_load(&md, m, dict) < 0)
        return -1;
    const msgdata_list *l = msgdata_list_of(&md, RWF_DMT_MARKET_PRICE);
    if (!l || !l->update_count)
        return err_set("no MarketPrice updates in %s", m);
    for (int i = 0; i < MSGS; i++) {
        rwf_msg u;
        rwf_msg_init(&u, RWF_MC_UPDATE, RWF_DMT_MARKET_PRICE, 5 + i, RWF_DT_FIELD_LIST);
        const msgdata_msg *t = &l->updates[i % l->update_count];
        rwf_enc enc;
        rwf_enc_init(&enc, msgs[i], sizeof(msgs[i]));
        rwf_enc_msg_begin(&enc, &u);
        rwf_enc_fl_begin_std(&enc);
        rwf_enc_fl_append(&enc, rwf_buf_make(t->entries, t->entries_len), t->count);
        if (i % 10 == 0) {
            rwf_enc_fl_uint(&enc, RWF_FID_TIM_TRK_1, 123456789);
            rwf_enc_fl_uint(&enc, RWF_FID_TIM_TRK_3, 123456700);
        }
        rwf_enc_fl_end(&enc);
        rwf_enc_msg_end(&enc);
        if (rwf_enc_finish(&enc, &msg_len[i]) != RWF_OK)
            return -1;
    }
    return 0;
}

static uint64_t sink;

static int decode_one(const uint8_t *p, size_t n)
{
    rwf_msg m;
    payload_stamps st;
    if (rwf_msg_decode(&m, rwf_buf_make(p, n)) != RWF_OK || payload_decode(dict, &m, &st) < 0)
        return -1;
    sink += st.sum + st.t[0];
    return 0;
}

static double thread_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* Decode runs: many short ones, so that the best of them is a run nothing else on a shared
 * machine disturbed. */
#define DECODE_RUNS 40

static void bench_decode(void)
{
    const int iters = 250000;
    double ns[DECODE_RUNS], cpu[DECODE_RUNS];
    for (int r = 0; r < DECODE_RUNS; r++) {
        int64_t t0 = clk_ns();
        double c0 = thread_cpu_ns();
        for (int i = 0; i < iters; i++)
            if (decode_one(msgs[i % MSGS], msg_len[i % MSGS]) < 0) {
                fprintf(stderr, "decode: %s\n", err_msg());
                exit(1);
            }
        ns[r] = (double)(clk_ns() - t0) / iters;
        cpu[r] = (thread_cpu_ns() - c0) / iters;
    }
    qsort(ns, DECODE_RUNS, sizeof(ns[0]), bench_cmp_double);
    qsort(cpu, DECODE_RUNS, sizeof(cpu[0]), bench_cmp_double);
    printf("decode  MarketPrice update (%zu-%zu bytes): best %.1f ns, median %.1f ns per update "
           "(thread CPU: best %.1f ns)\n",
           msg_len[1], msg_len[0], ns[0], ns[DECODE_RUNS / 2], cpu[0]);
}

/* ---- stream ----------------------------------------------------------------------------- */

typedef struct writer {
    int fd;
    int pack;
    _Atomic int stop;
    uint64_t frames;
} writer;

/* A block of frames to write again and again. */
static uint8_t block[1 << 16];
static size_t block_len, block_msgs;

static void build_block(int pack)
{
    block_len = block_msgs = 0;
    for (int i = 0;; i++) {
        size_t need = 3;
        for (int k = 0; k < pack; k++)
            need += msg_len[(i * pack + k) % MSGS] + (pack > 1 ? 2 : 0);
        if (block_len + need > sizeof(block))
            break;
        uint8_t *f = block + block_len;
        size_t off = 3;
        for (int k = 0; k < pack; k++) {
            int m = (i * pack + k) % MSGS;
            if (pack > 1) {
                f[off] = (uint8_t)(msg_len[m] >> 8);
                f[off + 1] = (uint8_t)msg_len[m];
                off += 2;
            }
            memcpy(f + off, msgs[m], msg_len[m]);
            off += msg_len[m];
        }
        f[0] = (uint8_t)(off >> 8);
        f[1] = (uint8_t)off;
        f[2] = pack > 1 ? 0x12 : 0x02;
        block_len += off;
        block_msgs += (size_t)pack;
    }
}

static void *write_loop(void *arg)
{
    writer *w = arg;
    size_t at = 0;
    while (!atomic_load(&w->stop)) {
        ssize_t n = write(w->fd, block + at, block_len - at);
        if (n < 0) {
            if (errno == EAGAIN) {
                struct pollfd p = {.fd = w->fd, .events = POLLOUT};
                poll(&p, 1, 10);
                continue;
            }
            break;
        }
        at += (size_t)n;
        if (at == block_len)
            at = 0;
    }
    return NULL;
}

static int bench_stream(int pack, double secs)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return err_set_errno(errno, "socketpair");
    /* Our channel: the RIPC handshake against a server channel on the other end, then the
     * server's descriptor is written raw. */
    tp_opts o;
    tp_opts_init(&o);
    o.num_input_buffers = 15;
    tp_channel *c, *s;
    if (tp_adopt(sv[0], false, &o, &c) != 0 || tp_adopt(sv[1], true, &o, &s) != 0)
        return -1;
    for (int i = 0;
         i < 1000 && (tp_get_state(c) != TP_STATE_ACTIVE || tp_get_state(s) != TP_STATE_ACTIVE);
         i++) {
        if (tp_init(c) < 0 || tp_init(s) < 0)
            return -1;
        poll(NULL, 0, 1);
    }
    build_block(pack);
    writer w = {.fd = tp_fd(s), .pack = pack};
    pthread_t tid;
    pthread_create(&tid, NULL, write_loop, &w);
    uint64_t n = 0;
    double cpu0 = thread_cpu_ns();
    int64_t t0 = clk_ns(), end = t0 + (int64_t)(secs * 1e9);
    for (;;) {
        tp_msg m;
        int rc = tp_read(c, &m);
        if (rc < 0) {
            err_push("tp_read");
            return -1;
        }
        if (rc & TP_READ_MSG) {
            if (decode_one(m.data, m.len) < 0)
                return -1;
            if ((++n & 4095) == 0 && clk_ns() >= end)
                break;
        } else if (rc == 0) {
            struct pollfd p = {.fd = tp_fd(c), .events = POLLIN};
            poll(&p, 1, 10);
        }
    }
    double elapsed = (double)(clk_ns() - t0), cpu = thread_cpu_ns() - cpu0;
    atomic_store(&w.stop, 1);
    pthread_join(tid, NULL);
    tp_close(c);
    tp_close(s);
    printf("stream  %s: %.2f M updates/s, reader CPU %.1f ns per update (%.0f%% of a core)\n",
           pack > 1 ? "packed 10 per frame" : "one update per frame", n / elapsed * 1e3,
           cpu / (double)n, cpu / elapsed * 100);
    return 0;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 3;
    if (load() < 0) {
        fprintf(stderr, "bench_consperf: %s\n", err_msg());
        return 1;
    }
    bench_decode();
    if (secs <= 0) /* "0": the decode case alone */
        return 0;
    if (bench_stream(1, secs) < 0 || bench_stream(10, secs) < 0) {
        fprintf(stderr, "bench_consperf: %s\n", err_msg());
        return 1;
    }
    return sink == 42 ? 2 : 0;
}
