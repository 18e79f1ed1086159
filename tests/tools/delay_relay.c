/*
 * delay_relay: a TCP delay line for the latency truth test (latency_truth.py).
 *
 *     delay_relay [-r <prio>] [-E <us>] [-S <pct>] [-T <file>] -L <delay_us>:<host>:<port>
 *                 [-L ...]
 *
 * Each -L opens a listener on 127.0.0.1, port 0, and prints
 *     "listen <i> port <p> delay <delay_us> to <host>:<port>"
 * (then "ready" once all are open), flushing standard output. Every connection accepted on
 * listener i gets a connection of its own to <host>:<port>; every byte read from either side
 * is written to the other exactly <delay_us> microseconds after it arrived in the relay's
 * socket (the kernel's receive time stamp, SO_TIMESTAMPNS, on CLOCK_MONOTONIC; the time of the
 * read where there is none), both directions, one queue per direction: so a late read does not
 * lengthen the delay; chunks that are due together are written together. Delay 0 forwards at
 * once. When one side closes, what is queued toward the other is still delivered at its time,
 * then that side's write end is shut.
 *
 * The relay measures itself: for every chunk, how late its write came after its due time (the
 * time after the write call returned: the bytes are with the receiver by then), and how long
 * the chunk waited in the socket before it was read. When a connection pair ends, and at exit
 * (SIGTERM, SIGINT), it prints per direction
 *     "pair <n> listen <i> <a->b|b->a>: chunks <c> bytes <b> late_us avg <a> p50 <q> p99 <p>
 *      max <m> read_us p50 <r> p99 <s>" (one line)
 * so that a test can tell a late delay line from a wrong measurement, and at exit what it cost:
 *     "cpu <pct>% (<ms> ms in <s> s), awake before due times <pct>% (<ms> ms), wake-ups <w>
 *      late <l>, early_us <e>" (one line)
 *
 * Waking on time: a sleeping thread wakes some time after its timer (tens of microseconds on a
 * busy machine, up to milliseconds on an idle virtual machine, whose halted virtual CPU the
 * host has to run again first). So the relay sleeps until `early` before a due time and spends
 * the rest awake, polling its sockets (epoll, no wait) and the clock, reading what comes in
 * and writing each chunk at its due time. `early` is learned from its own wake-ups (a high
 * percentile of how late the recent ones came, see early_learn), and the time awake is bounded
 * by a budget (see spin_*): at most SPIN_SHARE of the time plus SPIN_BURST, so that dense due
 * times cannot make it take a whole CPU; past the budget it sleeps until the due time itself.
 *
 * With -r it asks for SCHED_FIFO at that priority (the priority makes its wake-ups punctual on
 * a busy machine) and prints "realtime <prio>" or "realtime refused: <reason>" and goes on
 * without it. -E fixes `early` (microseconds) instead of learning it; -S sets the budget's
 * share in percent (0: never awake before a due time). -T writes one line per chunk written to
 * <file>: "<listener> <0: a->b | 1: b->a> <due ns> <written ns> <bytes>", CLOCK_MONOTONIC, for
 * a closer look at a run.
 *
 * Exit status: 0 after a signal, 2 on a usage error or when a listener cannot be opened.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_LISTEN 16
#define MAX_PAIRS 64
#define RING (8u << 20)     /* bytes queued per direction */
#define CHUNKS (1u << 16)   /* chunks queued per direction */
#define LATE_BUCKETS 100001 /* lateness histogram: 1 us each, 0 .. 100 ms */

typedef struct chunk {
    uint64_t due_ns;
    uint32_t len;
} chunk;

/* One direction: bytes read from `from`, queued, written to `to` when due. */
typedef struct dir {
    int from, to;
    uint8_t *ring;       /* RING bytes */
    uint64_t head, tail; /* byte positions (tail - head = queued) */
    chunk *ch;           /* CHUNKS */
    uint64_t ch_head, ch_tail;
    uint32_t head_sent; /* bytes of the head chunk already written */
    bool eof;           /* `from` has closed */
    bool shut;          /* `to` has been shut for writing */
    bool blocked;       /* the last write found `to` full: wait for EPOLLOUT, not the timer */
    bool readable;      /* epoll said `from` has data (edge-triggered: read until drained) */
    bool watching;      /* EPOLLOUT is asked for on `to` (while blocked) */
    uint64_t chunks, bytes, rchunks; /* chunks written, bytes written, chunks read */
    double late_sum;
    uint64_t late_max;
    uint32_t *late;  /* histogram, LATE_BUCKETS */
    uint32_t *rwait; /* how long chunks waited in the socket before the read: histogram */
    int listen, k;   /* its listener, and 0 (a->b) or 1 (b->a), for the trace */
} dir;

typedef struct pair {
    bool used;
    int n, listen;
    int a, b; /* a: accepted side, b: connected side */
    dir d[2]; /* d[0]: a -> b, d[1]: b -> a */
    bool dead;
} pair;

typedef struct listener {
    int fd;
    uint64_t delay_ns;
    char host[256], port[16];
    struct addrinfo *target;
} listener;

static listener L[MAX_LISTEN];
static int nlisten;
static pair P[MAX_PAIRS];
static int npairs_made;
static int ep, tfd;
static volatile sig_atomic_t stop;
static FILE *trace; /* -T: one line per chunk written */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void on_signal(int s)
{
    (void)s;
    stop = 1;
}

/* Tags of epoll events: listener i, or pair p side s. */
static uint64_t tag(int kind, int idx, int side)
{
    return (uint64_t)kind << 32 | (uint64_t)idx << 1 | (uint64_t)side;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Parses "<delay_us>:<host>:<port>" into listener l. Returns 0 or -1. */
static int parse_listen(listener *l, const char *spec)
{
    char *end;
    unsigned long long us = strtoull(spec, &end, 10);
    if (end == spec || *end != ':')
        return -1;
    const char *host = end + 1, *colon = strrchr(host, ':');
    if (!colon || colon == host || (size_t)(colon - host) >= sizeof(l->host) ||
        strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof(l->port))
        return -1;
    memcpy(l->host, host, (size_t)(colon - host));
    l->host[colon - host] = '\0';
    strcpy(l->port, colon + 1);
    l->delay_ns = us * 1000u;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
    if (getaddrinfo(l->host, l->port, &hints, &l->target) != 0)
        return -1;
    return 0;
}

static int open_listener(listener *l, int i)
{
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof(a);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l->fd, 16) < 0 ||
        getsockname(l->fd, (struct sockaddr *)&a, &al) < 0)
        return -1;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag(1, i, 0)};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev) < 0)
        return -1;
    printf("listen %d port %u delay %llu to %s:%s\n", i, ntohs(a.sin_port),
           (unsigned long long)(l->delay_ns / 1000u), l->host, l->port);
    return 0;
}

static int dir_init(dir *d, int from, int to)
{
    memset(d, 0, sizeof(*d));
    d->from = from;
    d->to = to;
    d->ring = malloc(RING);
    d->ch = malloc(sizeof(chunk) * CHUNKS);
    d->late = calloc(LATE_BUCKETS, sizeof(uint32_t));
    d->rwait = calloc(LATE_BUCKETS, sizeof(uint32_t));
    return d->ring && d->ch && d->late && d->rwait ? 0 : -1;
}

/* The value (us) below which at least `permille`/1000 of the n samples of histogram h (1 us
 * buckets, LATE_BUCKETS) lie: its percentile, 0 when it is empty. */
static uint64_t hist_pct(const uint32_t *h, uint64_t n, unsigned permille)
{
    uint64_t seen = 0, rank = n - n * (1000 - permille) / 1000;
    for (uint32_t i = 0; i < LATE_BUCKETS && n; i++) {
        seen += h[i];
        if (seen >= rank)
            return i;
    }
    return 0;
}

/* Adds a sample of ns nanoseconds to histogram h (1 us buckets, the last one open-ended). */
static void hist_add(uint32_t *h, uint64_t ns)
{
    uint64_t us = ns / 1000u;
    h[us < LATE_BUCKETS ? us : LATE_BUCKETS - 1]++;
}

static void dir_report(const pair *p, int k)
{
    const dir *d = &p->d[k];
    printf("pair %d listen %d %s: chunks %llu bytes %llu late_us avg %.1f p50 %llu p99 %llu "
           "max %.1f read_us p50 %llu p99 %llu\n",
           p->n, p->listen, k ? "b->a" : "a->b", (unsigned long long)d->chunks,
           (unsigned long long)d->bytes, d->chunks ? d->late_sum / (double)d->chunks / 1000.0 : 0,
           (unsigned long long)hist_pct(d->late, d->chunks, 500),
           (unsigned long long)hist_pct(d->late, d->chunks, 990), (double)d->late_max / 1000.0,
           (unsigned long long)hist_pct(d->rwait, d->rchunks, 500),
           (unsigned long long)hist_pct(d->rwait, d->rchunks, 990));
}

static void pair_end(pair *p)
{
    if (p->dead)
        return;
    p->dead = true;
    dir_report(p, 0);
    dir_report(p, 1);
    fflush(stdout);
    close(p->a);
    close(p->b);
    for (int k = 0; k < 2; k++) {
        free(p->d[k].ring);
        free(p->d[k].ch);
        free(p->d[k].late);
        free(p->d[k].rwait);
    }
    p->used = false;
}

static void accept_one(int li)
{
    int a = accept4(L[li].fd, NULL, NULL, SOCK_NONBLOCK);
    if (a < 0)
        return;
    int slot = -1;
    for (int i = 0; i < MAX_PAIRS && slot < 0; i++)
        if (!P[i].used)
            slot = i;
    int b = socket(AF_INET, SOCK_STREAM, 0);
    if (slot < 0 || b < 0 || connect(b, L[li].target->ai_addr, L[li].target->ai_addrlen) < 0 ||
        set_nonblock(b) < 0) {
        fprintf(stderr, "delay_relay: cannot reach %s:%s: %s\n", L[li].host, L[li].port,
                strerror(errno));
        close(a);
        if (b >= 0)
            close(b);
        return;
    }
    int one = 1;
    setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(a, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    setsockopt(b, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    pair *p = &P[slot];
    memset(p, 0, sizeof(*p));
    p->used = true;
    p->n = ++npairs_made;
    p->listen = li;
    p->a = a;
    p->b = b;
    if (dir_init(&p->d[0], a, b) < 0 || dir_init(&p->d[1], b, a) < 0) {
        fprintf(stderr, "delay_relay: out of memory\n");
        exit(1);
    }
    p->d[0].readable = p->d[1].readable = true;
    for (int k = 0; k < 2; k++) {
        p->d[k].listen = li;
        p->d[k].k = k;
    }
    struct epoll_event ea = {.events = EPOLLIN | EPOLLET, .data.u64 = tag(2, slot, 0)};
    struct epoll_event eb = {.events = EPOLLIN | EPOLLET, .data.u64 = tag(2, slot, 1)};
    epoll_ctl(ep, EPOLL_CTL_ADD, a, &ea);
    epoll_ctl(ep, EPOLL_CTL_ADD, b, &eb);
    printf("pair %d listen %d open\n", p->n, li);
    fflush(stdout);
}

/* When the bytes of the read that returned at `now` (CLOCK_MONOTONIC) arrived in the socket:
 * the kernel's receive time stamp of the last of them (CLOCK_REALTIME, in m's control data),
 * brought onto CLOCK_MONOTONIC by the two clocks' difference now; `now` when there is none or
 * it is not plausible (after now, or more than a second before: the wall clock was set). */
static uint64_t arrival_ns(struct msghdr *m, uint64_t now)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        struct timespec st, rt;
        memcpy(&st, CMSG_DATA(c), sizeof(st));
        clock_gettime(CLOCK_REALTIME, &rt);
        uint64_t stamp = (uint64_t)st.tv_sec * 1000000000u + (uint64_t)st.tv_nsec;
        uint64_t wall = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
        if (stamp == 0 || stamp > wall || wall - stamp > 1000000000u || wall - stamp > now)
            return now;
        return now - (wall - stamp);
    }
    return now;
}

/* Reads everything `from` has into the queue, each chunk due `delay` after it arrived in the
 * socket (arrival_ns), and counts how long it waited there. */
static void dir_read(pair *p, dir *d)
{
    uint64_t delay = L[p->listen].delay_ns;
    while (!d->eof && d->readable) {
        uint64_t used = d->tail - d->head;
        if (used == RING || d->ch_tail - d->ch_head == CHUNKS)
            return; /* full: read again once something went out */
        uint32_t pos = (uint32_t)(d->tail % RING);
        size_t room = RING - used;
        if (room > RING - pos)
            room = RING - pos;
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec)) * 2];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {d->ring + pos, room};
        struct msghdr m = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = ctl.buf,
                           .msg_controllen = sizeof(ctl.buf)};
        ssize_t r = recvmsg(d->from, &m, 0);
        if (r == 0) {
            d->eof = true;
            return;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                d->eof = true;
            d->readable = false;
            return;
        }
        uint64_t t = now_ns(), arrived = arrival_ns(&m, t);
        hist_add(d->rwait, t - arrived);
        d->rchunks++;
        d->tail += (uint64_t)r;
        d->ch[d->ch_tail % CHUNKS] = (chunk){arrived + delay, (uint32_t)r};
        d->ch_tail++;
        if ((size_t)r < room) {
            d->readable = false; /* drained: the next data brings a new edge */
            return;
        }
    }
}

/* Writes the chunks that are due (together). Returns -1 when the peer is gone. */
static int dir_write(dir *d)
{
    uint64_t now = now_ns();
    d->blocked = false;
    while (d->ch_head != d->ch_tail) {
        struct iovec iov[64];
        int n = 0;
        uint64_t pos = d->head;
        uint64_t k = d->ch_head;
        uint32_t skip = d->head_sent;
        while (k != d->ch_tail && n < 62 && d->ch[k % CHUNKS].due_ns <= now) {
            uint32_t len = d->ch[k % CHUNKS].len - skip;
            uint32_t at = (uint32_t)((pos + skip) % RING);
            uint32_t first = len < RING - at ? len : RING - at;
            iov[n++] = (struct iovec){d->ring + at, first};
            if (first < len)
                iov[n++] = (struct iovec){d->ring, len - first};
            pos += d->ch[k % CHUNKS].len;
            skip = 0;
            k++;
        }
        if (n == 0)
            return 0;
        ssize_t w = writev(d->to, iov, n);
        if (w < 0) {
            d->blocked = errno == EAGAIN || errno == EWOULDBLOCK;
            return d->blocked || errno == EINTR ? 0 : -1;
        }
        uint64_t done = (uint64_t)w;
        uint64_t t = now_ns();
        while (done > 0) {
            chunk *c = &d->ch[d->ch_head % CHUNKS];
            uint32_t left = c->len - d->head_sent;
            if (done < left) {
                d->head_sent += (uint32_t)done;
                break;
            }
            done -= left;
            uint64_t late = t > c->due_ns ? t - c->due_ns : 0;
            if (trace)
                fprintf(trace, "%d %d %llu %llu %u\n", d->listen, d->k,
                        (unsigned long long)c->due_ns, (unsigned long long)t, c->len);
            d->late_sum += (double)late;
            if (late > d->late_max)
                d->late_max = late;
            hist_add(d->late, late);
            d->chunks++;
            d->bytes += c->len;
            d->head += c->len;
            d->head_sent = 0;
            d->ch_head++;
        }
        if (d->ch_head != k) {
            d->blocked = true; /* partial write: wait for room */
            return 0;
        }
    }
    if (d->eof && !d->shut) {
        shutdown(d->to, SHUT_WR);
        d->shut = true;
    }
    return 0;
}

/* Asks for EPOLLOUT on the side dir k of pair p writes to while that direction is blocked
 * (only then: a socket's EPOLLOUT edge comes with every ACK, a wake-up per write otherwise). */
static void watch_out(pair *p, int k)
{
    dir *d = &p->d[k];
    if (d->blocked == d->watching)
        return;
    d->watching = d->blocked;
    int slot = (int)(p - P), side = 1 - k; /* d[0] writes side b (1), d[1] side a (0) */
    struct epoll_event e = {.events = EPOLLIN | EPOLLET | (d->blocked ? EPOLLOUT : 0u),
                            .data.u64 = tag(2, slot, side)};
    epoll_ctl(ep, EPOLL_CTL_MOD, side ? p->b : p->a, &e);
}

/* Moves every pair forward; returns the earliest due time still queued (UINT64_MAX: none). */
static uint64_t service(void)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < MAX_PAIRS; i++) {
        pair *p = &P[i];
        if (!p->used || p->dead)
            continue;
        for (int k = 0; k < 2; k++) {
            dir *d = &p->d[k];
            dir_read(p, d);
            bool due = d->ch_head != d->ch_tail && d->ch[d->ch_head % CHUNKS].due_ns <= now_ns();
            if ((due && !d->blocked) || (d->eof && !d->shut && d->ch_head == d->ch_tail)) {
                if (dir_write(d) < 0) {
                    pair_end(p);
                    break;
                }
                watch_out(p, k);
            }
        }
        if (p->dead)
            continue;
        if (p->d[0].shut && p->d[1].shut) {
            pair_end(p);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            const dir *d = &p->d[k];
            if (d->ch_head != d->ch_tail && !d->blocked && d->ch[d->ch_head % CHUNKS].due_ns < next)
                next = d->ch[d->ch_head % CHUNKS].due_ns;
        }
    }
    return next;
}

/*
 * Waking on time (see the top of the file), in three parts:
 * - early_learn: `early`, how long before a due time the timer is set, is the EARLY_PERMILLE-th
 *   permille of how late the last WAKES timer wake-ups came after their time (WAKE_BUCKET
 *   buckets), plus EARLY_MARGIN, within EARLY_MIN..EARLY_MAX; EARLY_INIT until EARLY_LEARN
 *   wake-ups have been seen. A wake-up later than `early` makes a late write.
 * - spin_account: the budget of time spent awake waiting for due times, a token bucket that
 *   fills at spin_share percent of the time passing, up to SPIN_BURST, and empties by the time
 *   spent polling. It can fall below zero by the rest of one wait begun within the budget.
 * - next_wait: from the next due time, `early` and the budget: poll (no wait), or sleep with
 *   the timer set `early` before the due time, or less when the budget will not cover it.
 */
#define EARLY_INIT 300000 /* ns */
#define EARLY_MIN 20000
#define EARLY_MAX 2000000
#define EARLY_MARGIN 20000
#define EARLY_PERMILLE 995
#define EARLY_LEARN 64
#define WAKES 1024
#define WAKE_BUCKET 5000 /* ns */
#define WAKE_BUCKETS (EARLY_MAX / WAKE_BUCKET + 1)
#define SPIN_BURST 2000000 /* ns */

static uint64_t early = EARLY_INIT; /* ns before a due time at which the timer is set */
static bool early_fixed;            /* -E: early stays as given */
static unsigned spin_share = 25;    /* -S: percent of the time the relay may poll */
static uint16_t wake_ring[WAKES];   /* the last WAKES wake-ups' buckets */
static uint32_t wake_hist[WAKE_BUCKETS];
static uint64_t wakes, wakes_late;       /* timer wake-ups, those later than `early` */
static int64_t spin_tokens = SPIN_BURST; /* ns of polling the budget allows now */
static uint64_t spin_at, spin_total;     /* when it was last counted; ns spent polling */
static uint64_t armed_due = UINT64_MAX;  /* the due time the timer is set for */
static uint64_t armed_at;                /* the time it is set to fire */
static uint64_t poll_until;              /* a due time the relay woke for: poll up to it */

/* Counts a timer wake-up that came lat ns after its time, and sets `early` from the last
 * WAKES of them (unless -E fixed it). */
static void early_learn(uint64_t lat)
{
    uint64_t b = lat / WAKE_BUCKET < WAKE_BUCKETS ? lat / WAKE_BUCKET : WAKE_BUCKETS - 1;
    wakes_late += lat > early;
    if (wakes >= WAKES)
        wake_hist[wake_ring[wakes % WAKES]]--;
    wake_ring[wakes % WAKES] = (uint16_t)b;
    wake_hist[b]++;
    wakes++;
    if (early_fixed || wakes < EARLY_LEARN)
        return;
    uint64_t n = wakes < WAKES ? wakes : WAKES, above = n - n * EARLY_PERMILLE / 1000, seen = 0;
    uint64_t i = WAKE_BUCKETS;
    while (i > 1 && seen + wake_hist[i - 1] <= above)
        seen += wake_hist[--i];
    uint64_t e = i * WAKE_BUCKET + EARLY_MARGIN; /* the top of the percentile's bucket */
    early = e < EARLY_MIN ? EARLY_MIN : e > EARLY_MAX ? EARLY_MAX : e;
}

/* Brings the budget to `now`: filled at spin_share of the time since it was last counted, and
 * emptied by that time when the relay was polling through it. */
static void spin_account(uint64_t now, bool polling)
{
    uint64_t dt = now - spin_at;
    spin_at = now;
    spin_tokens += (int64_t)(dt * spin_share / 100u);
    if (polling) {
        spin_tokens -= (int64_t)dt;
        spin_total += dt;
    }
    if (spin_tokens > SPIN_BURST)
        spin_tokens = SPIN_BURST;
}

/* Sets the timer to fire at `at` for the due time `due` (UINT64_MAX: disarmed), unless it is
 * set so already. */
static void arm(uint64_t due, uint64_t at)
{
    if (due == armed_due && (due == UINT64_MAX || at == armed_at))
        return;
    armed_due = due;
    armed_at = at;
    struct itimerspec its = {0};
    if (due != UINT64_MAX) {
        at = at ? at : 1;
        its.it_value.tv_sec = (time_t)(at / 1000000000u);
        its.it_value.tv_nsec = (long)(at % 1000000000u);
    }
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The timer fired at `now`: counts how late, and polls from here up to the due time it was
 * set for. */
static void timer_fired(uint64_t now)
{
    uint64_t x;
    (void)!read(tfd, &x, sizeof(x));
    if (armed_due == UINT64_MAX)
        return;
    early_learn(now > armed_at ? now - armed_at : 0);
    poll_until = armed_due;
    armed_due = UINT64_MAX; /* it fired: disarmed */
}

/* How to wait for the next due time `next` (UINT64_MAX: none) at `now`: returns the epoll
 * timeout, 0 to poll (and *polling true) or -1 to sleep until an event or the timer, set
 * `early` (or what the budget allows) before `next`. */
static int next_wait(uint64_t next, uint64_t now, bool *polling)
{
    *polling = false;
    if (next == UINT64_MAX) {
        arm(UINT64_MAX, 0);
        return -1;
    }
    if (next <= now)
        return 0; /* due already: write it */
    uint64_t gap = next - now;
    int64_t allow = spin_tokens + (int64_t)(gap * spin_share / 100u);
    uint64_t w = allow <= 0 ? 0 : (uint64_t)allow < early ? (uint64_t)allow : early;
    if (next <= poll_until || (spin_tokens > 0 && gap <= w && gap <= (uint64_t)spin_tokens)) {
        poll_until = next;
        arm(UINT64_MAX, 0);
        *polling = true;
        return 0;
    }
    arm(next, next - w);
    return -1;
}

/* Prints what the relay cost: CPU time and its share of the time since `start`, the time spent
 * polling before due times, its timer wake-ups (and how many came after `early`), `early`. */
static void cost_report(uint64_t start)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    double wall = (double)(now_ns() - start) / 1e6;
    printf("cpu %.1f%% (%.0f ms in %.1f s), awake before due times %.1f%% (%.0f ms), wake-ups "
           "%llu late %llu, early_us %llu\n",
           wall > 0 ? 100.0 * cpu / wall : 0, cpu, wall / 1e3,
           wall > 0 ? 100.0 * (double)spin_total / 1e6 / wall : 0, (double)spin_total / 1e6,
           (unsigned long long)wakes, (unsigned long long)wakes_late,
           (unsigned long long)(early / 1000u));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int prio = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
            prio = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-E") == 0 && i + 1 < argc) {
            early = strtoull(argv[++i], NULL, 10) * 1000u;
            early_fixed = true;
        } else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc) {
            spin_share = (unsigned)strtoul(argv[++i], NULL, 10);
            if (spin_share > 100)
                spin_share = 100;
        } else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc) {
            trace = fopen(argv[++i], "w");
        } else if (strcmp(argv[i], "-L") == 0 && i + 1 < argc && nlisten < MAX_LISTEN) {
            if (parse_listen(&L[nlisten], argv[++i]) < 0) {
                fprintf(stderr, "delay_relay: bad -L '%s' (<delay_us>:<host>:<port>)\n", argv[i]);
                return 2;
            }
            nlisten++;
        } else {
            fprintf(stderr, "usage: delay_relay [-r <prio>] [-E <us>] [-S <pct>] [-T <file>] "
                            "-L <delay_us>:<host>:<port> ...\n");
            return 2;
        }
    }
    if (nlisten == 0) {
        fprintf(stderr, "usage: delay_relay [-r <prio>] [-E <us>] [-S <pct>] [-T <file>] "
                        "-L <delay_us>:<host>:<port> ...\n");
        return 2;
    }
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (prio > 0) {
        struct sched_param sp = {.sched_priority = prio};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
            printf("realtime %d\n", prio);
        else
            printf("realtime refused: %s\n", strerror(errno));
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    ep = epoll_create1(0);
    tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    struct epoll_event te = {.events = EPOLLIN, .data.u64 = tag(3, 0, 0)};
    if (ep < 0 || tfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &te) < 0) {
        perror("delay_relay");
        return 2;
    }
    for (int i = 0; i < nlisten; i++)
        if (open_listener(&L[i], i) < 0) {
            fprintf(stderr, "delay_relay: cannot listen: %s\n", strerror(errno));
            return 2;
        }
    printf("ready\n");
    fflush(stdout);
    uint64_t start = now_ns();
    spin_at = start;
    bool polling = false;
    int timeout = -1;
    while (!stop) {
        struct epoll_event ev[32];
        int n = epoll_wait(ep, ev, 32, timeout);
        uint64_t now = now_ns();
        spin_account(now, polling);
        for (int i = 0; i < n; i++) {
            int kind = (int)(ev[i].data.u64 >> 32);
            if (kind == 1)
                accept_one((int)((ev[i].data.u64 & 0xffffffffu) >> 1));
            else if (kind == 2) {
                int slot = (int)((ev[i].data.u64 & 0xffffffffu) >> 1),
                    side = (int)(ev[i].data.u64 & 1);
                if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
                    P[slot].d[side].readable = true; /* d[0] reads side a, d[1] side b */
                if (ev[i].events & (EPOLLOUT | EPOLLERR))
                    P[slot].d[1 - side].blocked = false; /* d[0] writes side b, d[1] side a */
            } else if (kind == 3) {
                timer_fired(now);
            }
        }
        uint64_t next = service();
        timeout = next_wait(next, now_ns(), &polling);
    }
    for (int i = 0; i < MAX_PAIRS; i++)
        if (P[i].used)
            pair_end(&P[i]);
    for (int i = 0; i < nlisten; i++)
        freeaddrinfo(L[i].target);
    cost_report(start);
    if (trace)
        fclose(trace);
    return 0;
}
