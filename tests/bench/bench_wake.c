/*
 * bench_wake: what a tick costs on this machine before any tool's own work, the floor under
 * ProvPerf's CPU at low rates.
 *
 *   bench_wake [-cpu E] [-peer E] [-ticks K] [-bytes B] [-rounds R]
 *
 * -cpu and -peer take one entry of the tools' -threads list (a CPU number, "P:0 C:1 T:0", or
 * -1 for unbound). A thread bound as -cpu says (default 0) keeps a schedule of one tick a
 * millisecond (absolute deadlines, as ProvPerf's ticks are) for K ticks (default 2000) in three
 * ways:
 *
 *   sleep          it sleeps until each tick and does nothing else;
 *   send, asleep   at each tick it sends B bytes (default 14,700: the default scenario's burst,
 *                  100 updates) on loopback TCP to a reader bound as -peer says (default 1)
 *                  that waits in poll() and reads what came;
 *   send, spinning the same, the reader spinning on non-blocking reads instead of waiting.
 *
 * and prints, for each, the ticking thread's CPU time per tick (its own clock, so what the
 * kernel and the hypervisor charge it, wake-ups included) and how late it woke (p50, p99).
 * "send, asleep" less "sleep" is what one send costs with the reader's wake-up inside it;
 * "send, asleep" less "send, spinning" is the reader's wake-up alone. R rounds (default 3) of
 * each, taken in turn; the median is printed. Exit status 0, or 2 for bad options, 1 when the
 * machine refuses something (a socket, a binding), with what and why on stderr.
 */
#include "bench_util.h"
#include "cpu.h"
#include "err.h"
#include "tick.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MODE_SLEEP, MODE_ASLEEP, MODE_SPIN, N_MODES };

static const char *const mode_name[N_MODES] = {"sleep", "send, reader asleep",
                                               "send, reader spinning"};

typedef struct {
    cpu_list cpu, peer; /* one entry each */
    int ticks, bytes, rounds;
} options;

typedef struct {
    int fd;
    const cpu_entry *cpu;
    bool spin;
    atomic_bool stop;
    char failed[ERR_MSG_MAX]; /* why the reader gave up ("" while it has not) */
} reader;

typedef struct {
    double cpu_us; /* the ticking thread's CPU time per tick */
    double late_p50_us, late_p99_us;
} result;

/* The reader: bound to its core, drains the socket until told to stop (waiting in poll() or
 * spinning), so that every byte sent is taken as soon as the reader runs. */
static void *reader_main(void *arg)
{
    reader *r = arg;
    static char sink[1 << 16];
    if (cpu_bind(r->cpu) != 0) {
        snprintf(r->failed, sizeof(r->failed), "the reader: %s", err_msg());
        return NULL;
    }
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        if (!r->spin && poll(&p, 1, 50) < 0 && errno != EINTR) {
            snprintf(r->failed, sizeof(r->failed), "the reader's poll: %s", strerror(errno));
            return NULL;
        }
        ssize_t n;
        while ((n = recv(r->fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
            ;
        if (n == 0)
            break;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(r->failed, sizeof(r->failed), "the reader's recv: %s", strerror(errno));
            return NULL;
        }
    }
    return NULL;
}

/* Makes a connected pair of loopback TCP sockets (Nagle off on the sender, as the tools set
 * it); returns 0 with fds[0] the sender's and fds[1] the reader's, or -1 with errno. */
static int tcp_pair(int fds[2])
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int one = 1;
    fds[0] = fds[1] = -1;
    if (bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &len) != 0)
        goto fail;
    if ((fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(fds[0], (struct sockaddr *)&a, sizeof(a)) != 0 ||
        (fds[1] = accept4(ls, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
        setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        goto fail;
    close(ls);
    return 0;
fail:;
    int e = errno;
    close(ls);
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    errno = e;
    return -1;
}

/* Sends all of `n` bytes of `buf` on the blocking socket `fd`; returns 0 or -1 with errno. */
static int send_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

/* One round of `mode` on the calling thread (already bound): fills `out`; returns 0, or -1
 * with err_msg() saying what failed. `late` has room for o->ticks samples. */
static int run_round(const options *o, int mode, char *payload, double *late, result *out)
{
    int fds[2] = {-1, -1};
    reader r = {.fd = -1, .cpu = &o->peer.entry[0], .spin = mode == MODE_SPIN};
    pthread_t th;
    bool started = false;
    if (mode != MODE_SLEEP) {
        if (tcp_pair(fds) != 0)
            return err_set_errno(errno, "a loopback TCP connection");
        r.fd = fds[1];
        atomic_init(&r.stop, false);
        int e = pthread_create(&th, NULL, reader_main, &r);
        if (e != 0) {
            err_set_errno(e, "starting the reader");
            goto fail;
        }
        started = true;
        /* Let the reader reach its wait before the first tick. */
        struct timespec settle = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
        nanosleep(&settle, NULL);
    }

    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    double cpu0 = bench_thread_ns();
    for (int i = 0; i < o->ticks; i++) {
        next.tv_nsec += 1000 * 1000;
        if (next.tv_nsec >= 1000 * 1000 * 1000) {
            next.tv_nsec -= 1000 * 1000 * 1000;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        double now = bench_mono_ns();
        late[i] = now - (next.tv_sec * 1e9 + next.tv_nsec);
        if (mode != MODE_SLEEP && send_all(fds[0], payload, (size_t)o->bytes) != 0) {
            err_set_errno(errno, "send");
            goto fail;
        }
    }
    double cpu1 = bench_thread_ns();

    if (started) {
        atomic_store(&r.stop, true);
        shutdown(fds[0], SHUT_WR);
        pthread_join(th, NULL);
        started = false;
        if (r.failed[0]) {
            err_set("%s", r.failed);
            goto fail;
        }
        close(fds[0]);
        close(fds[1]);
    }
    qsort(late, (size_t)o->ticks, sizeof(double), bench_cmp_double);
    out->cpu_us = (cpu1 - cpu0) / o->ticks / 1e3;
    out->late_p50_us = late[o->ticks / 2] / 1e3;
    out->late_p99_us = late[(size_t)o->ticks * 99 / 100] / 1e3;
    return 0;
fail:
    if (started) {
        atomic_store(&r.stop, true);
        shutdown(fds[0], SHUT_RDWR);
        pthread_join(th, NULL);
    }
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    return -1;
}

static int cmp_result(const void *a, const void *b)
{
    double x = ((const result *)a)->cpu_us, y = ((const result *)b)->cpu_us;
    return x < y ? -1 : x > y;
}

/* Reads the -threads entry `s` of option `name` into *l; returns false (and says why on
 * stderr) when it is not exactly one valid entry. */
static bool opt_cpu(const char *name, const char *s, cpu_list *l)
{
    if (!s || cpu_parse(l, s) != 0) {
        fprintf(stderr, "bench_wake: %s: %s\n", name, s ? err_msg() : "wants a value");
        return false;
    }
    if (l->count != 1) {
        fprintf(stderr, "bench_wake: %s wants one entry, not %d ('%s')\n", name, l->count, s);
        return false;
    }
    return true;
}

/* Reads the integer option value `s` of `name` into *v within [lo, hi]; returns false (and says
 * why on stderr) when it is not one. */
static bool opt_int(const char *name, const char *s, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || x < lo || x > hi) {
        fprintf(stderr, "bench_wake: %s wants a whole number from %d to %d, not '%s'\n", name, lo,
                hi, s ? s : "");
        return false;
    }
    *v = (int)x;
    return true;
}

int main(int argc, char **argv)
{
    static options o = {.ticks = 2000, .bytes = 14700, .rounds = 3};
    if (cpu_parse(&o.cpu, "0") != 0 || cpu_parse(&o.peer, "1") != 0) {
        fprintf(stderr, "bench_wake: the default cores 0 and 1: %s (give -cpu and -peer)\n",
                err_msg());
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok;
        if (!strcmp(argv[i], "-cpu"))
            ok = opt_cpu("-cpu", v, &o.cpu);
        else if (!strcmp(argv[i], "-peer"))
            ok = opt_cpu("-peer", v, &o.peer);
        else if (!strcmp(argv[i], "-ticks"))
            ok = opt_int("-ticks", v, 10, 1000000, &o.ticks);
        else if (!strcmp(argv[i], "-bytes"))
            ok = opt_int("-bytes", v, 1, 1 << 20, &o.bytes);
        else if (!strcmp(argv[i], "-rounds"))
            ok = opt_int("-rounds", v, 1, 99, &o.rounds);
        else {
            fprintf(stderr,
                    "bench_wake: unknown option '%s'\n"
                    "usage: bench_wake [-cpu E] [-peer E] [-ticks K] [-bytes B] [-rounds R]\n",
                    argv[i]);
            return 2;
        }
        if (!ok)
            return 2;
        i++;
    }

    char *payload = calloc((size_t)o.bytes, 1);
    double *late = malloc(sizeof(double) * (size_t)o.ticks);
    result *res = malloc(sizeof(result) * (size_t)o.rounds * N_MODES);
    if (!payload || !late || !res) {
        fprintf(stderr, "bench_wake: out of memory\n");
        return 1;
    }
    if (cpu_bind(&o.cpu.entry[0]) != 0) {
        fprintf(stderr, "bench_wake: -cpu %s: %s\n", o.cpu.entry[0].text, err_msg());
        return 1;
    }
    /* The tools' own timer slack, so that lateness is the machine's, not the default 50 us. */
    if (tick_tighten_slack() != 0) {
        fprintf(stderr, "bench_wake: %s\n", err_msg());
        return 1;
    }

    for (int r = 0; r < o.rounds; r++) {
        for (int m = 0; m < N_MODES; m++) {
            if (run_round(&o, m, payload, late, &res[m * o.rounds + r]) != 0) {
                fprintf(stderr, "bench_wake: %s, round %d: %s\n", mode_name[m], r + 1, err_msg());
                return 1;
            }
        }
    }

    char on[64], peer_on[64];
    cpu_entry_cpus(&o.cpu.entry[0], on, sizeof(on));
    cpu_entry_cpus(&o.peer.entry[0], peer_on, sizeof(peer_on));
    printf("cpu %s, reader on cpu %s, %d ticks of 1 ms, %d bytes a send, median of %d "
           "round(s)\n",
           on, peer_on, o.ticks, o.bytes, o.rounds);
    printf("%-22s %12s %12s %12s\n", "", "cpu us/tick", "late p50 us", "late p99 us");
    double med[N_MODES];
    for (int m = 0; m < N_MODES; m++) {
        result *rs = &res[m * o.rounds];
        qsort(rs, (size_t)o.rounds, sizeof(result), cmp_result);
        const result *mid = &rs[o.rounds / 2];
        med[m] = mid->cpu_us;
        printf("%-22s %12.1f %12.1f %12.1f\n", mode_name[m], mid->cpu_us, mid->late_p50_us,
               mid->late_p99_us);
    }
    printf("a send with the reader's wake-up: %.1f us; the wake-up alone: %.1f us\n",
           med[MODE_ASLEEP] - med[MODE_SLEEP], med[MODE_ASLEEP] - med[MODE_SPIN]);
    free(payload);
    free(late);
    free(res);
    return 0;
}
