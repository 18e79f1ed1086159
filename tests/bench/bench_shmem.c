/*
 * bench_shmem: messages per second through the shared-memory transport, and CPU per message.
 *
 * A writer thread (pinned to one core) owns the server side of a segment, a reader thread
 * (pinned to the other) the client side. Two kinds of run:
 *   -rate 0   the writer writes as fast as the reader lets it (back-pressure from the
 *             reader's reported position): the transport's maximum;
 *   -rate R   the writer sends R messages per second in bursts at -ticks per second, as
 *             TransportPerf does; it reports whether the reader received everything or was
 *             disconnected as too slow. -noflow makes the writer behave as the ETA writer
 *             (no back-pressure at all).
 *
 *   bench_shmem [-t s] [-size n] [-rate R] [-ticks n] [-bufs n] [-maxfrag n] [-noflow]
 *               [-reps n]
 *   bench_shmem -writer KEY [-t s] [-rate R] ...   only the writer, for another program's
 *                                                  reader (e.g. the original TransportPerf)
 *   bench_shmem -reader KEY [-t s]                 only the reader, of another program's
 *                                                  writer (sequence numbers checked)
 *
 * Defaults follow the shared-memory scenario of docs/modes.md#shared-memory: 9000 buffers of 256
 * bytes, 76-byte messages, 1000 ticks per second, 3 s, best of 3.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "tp.h"

typedef struct cfg {
    double secs;
    uint32_t size, bufs, maxfrag, ticks;
    uint64_t rate;
    int noflow;
} cfg;

typedef struct side {
    tp_channel *ch;
    const cfg *c;
    int cpu;
    uint64_t msgs, nobufs;
    double cpu_s, wall_s;
    char err[200];
} side;

static atomic_int stop_flag, reader_ready;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int write_one(side *s, uint64_t seq)
{
    tp_buf *b;
    int rc = tp_get_buffer(s->ch, s->c->size, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, &seq, 8);
    memset(b->data + 8, 0, s->c->size - 8);
    b->len = s->c->size;
    return tp_write(s->ch, b, 0);
}

static void *writer(void *arg)
{
    side *s = arg;
    const cfg *c = s->c;
    pin(s->cpu);
    while (!atomic_load(&reader_ready))
        ;
    double c0 = thread_cpu_s(), t0 = now_s(), end = t0 + c->secs;
    uint64_t seq = 0;
    if (c->rate == 0) {
        while (!atomic_load(&stop_flag)) {
            if ((seq & 4095) == 0 && now_s() >= end)
                break;
            int rc = write_one(s, seq);
            if (rc == TP_ENOBUFS) {
                s->nobufs++;
                sched_yield();
                continue;
            }
            if (rc < 0)
                goto fail;
            seq++;
        }
    } else {
        double tick = 1.0 / c->ticks, next = t0;
        uint64_t per_tick = c->rate / c->ticks, rem = c->rate % c->ticks, n = 0;
        while (!atomic_load(&stop_flag) && next < end) {
            while (now_s() < next)
                ;
            uint64_t burst = per_tick + (n++ % c->ticks < rem ? 1 : 0);
            for (uint64_t k = 0; k < burst && !atomic_load(&stop_flag);) {
                int rc = write_one(s, seq);
                if (rc == TP_ENOBUFS) {
                    s->nobufs++;
                    continue;
                }
                if (rc < 0)
                    goto fail;
                seq++;
                k++;
            }
            next += tick;
        }
    }
    s->wall_s = now_s() - t0;
    s->cpu_s = thread_cpu_s() - c0;
    s->msgs = seq;
    atomic_store(&stop_flag, 1);
    return NULL;
fail:
    snprintf(s->err, sizeof(s->err), "writer: %s", err_msg());
    s->msgs = seq;
    atomic_store(&stop_flag, 1);
    return NULL;
}

static void *reader(void *arg)
{
    side *s = arg;
    pin(s->cpu);
    tp_msg first;
    tp_read(s->ch, &first); /* takes the starting position before the writer starts */
    atomic_store(&reader_ready, 1);
    double c0 = thread_cpu_s(), t0 = now_s();
    uint64_t expect = 0;
    int idle = 0;
    for (;;) {
        tp_msg m;
        int rc = tp_read(s->ch, &m);
        if (rc < 0) {
            snprintf(s->err, sizeof(s->err), "reader: %s", err_msg());
            atomic_store(&stop_flag, 1);
            break;
        }
        if (rc & TP_READ_MSG) {
            uint64_t seq;
            memcpy(&seq, m.data, 8);
            if (seq != expect) {
                snprintf(s->err, sizeof(s->err), "reader: sequence %llu, expected %llu",
                         (unsigned long long)seq, (unsigned long long)expect);
                atomic_store(&stop_flag, 1);
                break;
            }
            expect++;
            idle = 0;
        } else if (rc == 0) {
            if (atomic_load(&stop_flag) && ++idle > 1000)
                break;
            /* nothing new: give the writer's cache line a moment before looking again */
            for (int k = 0; k < 32; k++)
                __builtin_ia32_pause();
        }
    }
    s->wall_s = now_s() - t0;
    s->cpu_s = thread_cpu_s() - c0;
    s->msgs = expect;
    return NULL;
}

static int run(const cfg *c, double *rate, double *wns, double *rns, char *why, size_t whylen)
{
    static int n;
    char key[64];
    snprintf(key, sizeof(key), "benchshm%d_%d", (int)getpid(), ++n);
    tp_opts o;
    tp_opts_init(&o);
    o.conn_type = TP_CONN_SHMEM;
    o.port = key;
    o.protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o.rwf_major = o.rwf_minor = 0;
    o.guaranteed_output_buffers = c->bufs;
    o.max_fragment_size = c->maxfrag;
    o.shm_flow_ms = c->noflow ? 0 : 5000;
    tp_server *srv;
    tp_channel *w, *r;
    if (tp_bind(&o, &srv) < 0 || tp_accept(srv, &w) != 1 || tp_init(w) != TP_ACTIVE ||
        tp_connect(&o, &r) < 0 || tp_init_wait(r, 5000) != TP_ACTIVE) {
        snprintf(why, whylen, "setup: %s", err_msg());
        return -1;
    }
    atomic_store(&stop_flag, 0);
    atomic_store(&reader_ready, 0);
    side ws = {.ch = w, .c = c, .cpu = 0}, rs = {.ch = r, .c = c, .cpu = 1};
    pthread_t tw, tr;
    pthread_create(&tr, NULL, reader, &rs);
    pthread_create(&tw, NULL, writer, &ws);
    pthread_join(tw, NULL);
    pthread_join(tr, NULL);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
    *rate = (double)rs.msgs / ws.wall_s;
    *wns = ws.cpu_s * 1e9 / (double)(ws.msgs ? ws.msgs : 1);
    *rns = rs.cpu_s * 1e9 / (double)(rs.msgs ? rs.msgs : 1);
    fprintf(stderr,
            "  run: %.2f M msgs/s received, %llu sent, %llu received, %llu times ring "
            "full, writer %.1f ns/msg, reader %.1f ns/msg %s%s\n",
            *rate / 1e6, (unsigned long long)ws.msgs, (unsigned long long)rs.msgs,
            (unsigned long long)ws.nobufs, *wns, *rns, ws.err, rs.err);
    if (ws.err[0] || rs.err[0] || rs.msgs != ws.msgs) {
        snprintf(why, whylen, "%s%s%s", ws.err, rs.err,
                 rs.msgs != ws.msgs ? " (not every message arrived)" : "");
        return -1;
    }
    return 0;
}

/* One side only, against a peer in another process (the key is the -p of TransportPerf). */
static int single(const cfg *c, const char *role, const char *key)
{
    tp_opts o;
    tp_opts_init(&o);
    o.conn_type = TP_CONN_SHMEM;
    o.port = key;
    o.protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o.rwf_major = o.rwf_minor = 0;
    o.guaranteed_output_buffers = c->bufs;
    o.max_fragment_size = c->maxfrag;
    o.shm_flow_ms = c->noflow ? 0 : 5000;
    side sd = {.c = c, .cpu = 0};
    tp_server *srv = NULL;
    if (!strcmp(role, "writer")) {
        if (tp_bind(&o, &srv) < 0 || tp_accept(srv, &sd.ch) != 1 || tp_init(sd.ch) != TP_ACTIVE) {
            fprintf(stderr, "writer setup: %s\n", err_msg());
            return 1;
        }
        printf("writer ready on key %s; start the reader\n", key);
        fflush(stdout);
        sleep(2);
        atomic_store(&reader_ready, 1);
        writer(&sd);
        printf("writer: %llu messages in %.2f s (%.2f M/s), %llu times ring full, %.1f ns CPU "
               "per message %s\n",
               (unsigned long long)sd.msgs, sd.wall_s, (double)sd.msgs / sd.wall_s / 1e6,
               (unsigned long long)sd.nobufs, sd.cpu_s * 1e9 / (double)(sd.msgs ? sd.msgs : 1),
               sd.err);
        sleep(1);
        tp_close(sd.ch);
        tp_server_close(srv);
        return sd.err[0] ? 1 : 0;
    }
    double end = now_s() + 10;
    while (tp_connect(&o, &sd.ch) < 0 || tp_init_wait(sd.ch, 5000) != TP_ACTIVE) {
        if (sd.ch)
            tp_close(sd.ch);
        sd.ch = NULL;
        if (now_s() > end) {
            fprintf(stderr, "reader: %s\n", err_msg());
            return 1;
        }
        usleep(100000);
    }
    /* the reader counts from the first sequence number it sees */
    double c0 = thread_cpu_s(), t0 = now_s(), first_t = 0;
    uint64_t got = 0, expect = 0;
    int started = 0;
    pin(1);
    while (now_s() - t0 < c->secs + 5) {
        tp_msg m;
        int rc = tp_read(sd.ch, &m);
        if (rc < 0) {
            snprintf(sd.err, sizeof(sd.err), "%s", err_msg());
            break;
        }
        if (rc & TP_READ_MSG) {
            uint64_t seq;
            memcpy(&seq, m.data, 8);
            if (started && seq != expect) {
                snprintf(sd.err, sizeof(sd.err), "sequence %llu, expected %llu",
                         (unsigned long long)seq, (unsigned long long)expect);
                break;
            }
            if (!started)
                started = 1, first_t = now_s();
            expect = seq + 1;
            got++;
        }
    }
    double wall = now_s() - (first_t ? first_t : t0);
    printf("reader: %llu messages in %.2f s (%.2f M/s), %.1f ns CPU per message; ended by: %s\n",
           (unsigned long long)got, wall, (double)got / wall / 1e6,
           (thread_cpu_s() - c0) * 1e9 / (double)(got ? got : 1), sd.err[0] ? sd.err : "time");
    tp_close(sd.ch);
    return 0;
}

int main(int argc, char **argv)
{
    const char *role = NULL, *key = NULL;
    cfg c = {.secs = 3, .size = 76, .bufs = 9000, .maxfrag = 256, .ticks = 1000, .rate = 0};
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-t") && v)
            c.secs = atof(v), i++;
        else if (!strcmp(a, "-size") && v)
            c.size = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-rate") && v)
            c.rate = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "-ticks") && v)
            c.ticks = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-bufs") && v)
            c.bufs = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-maxfrag") && v)
            c.maxfrag = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-reps") && v)
            reps = atoi(v), i++;
        else if (!strcmp(a, "-noflow"))
            c.noflow = 1;
        else if ((!strcmp(a, "-writer") || !strcmp(a, "-reader")) && v)
            role = a + 1, key = v, i++;
        else {
            fprintf(stderr,
                    "usage: %s [-t s] [-size n] [-rate R] [-ticks n] [-bufs n] "
                    "[-maxfrag n] [-noflow] [-reps n]\n",
                    argv[0]);
            return 2;
        }
    }
    if (c.size < 8 || c.size > c.maxfrag || c.ticks == 0) {
        fprintf(stderr, "need 8 <= -size <= -maxfrag and -ticks > 0\n");
        return 2;
    }
    if (role)
        return single(&c, role, key);
    double best = 0, bw = 0, br = 0;
    int ok = 0;
    char why[512] = "";
    for (int i = 0; i < reps; i++) {
        double rate, wns, rns;
        if (run(&c, &rate, &wns, &rns, why, sizeof(why)) == 0) {
            ok++;
            if (rate > best)
                best = rate, bw = wns, br = rns;
        }
    }
    char what[96];
    if (c.rate)
        snprintf(what, sizeof(what), "%.2f M/s offered", (double)c.rate / 1e6);
    else
        snprintf(what, sizeof(what), "max");
    printf("shmem %uB %s, %u bufs%s: %d/%d runs received everything; best %.2f M msgs/s, "
           "CPU/msg: writer %.1f ns, reader %.1f ns%s%s\n",
           c.size, what, c.bufs, c.noflow ? ", no back-pressure" : "", ok, reps, best / 1e6, bw, br,
           ok < reps ? "; failure: " : "", ok < reps ? why : "");
    return ok == reps ? 0 : 1;
}
