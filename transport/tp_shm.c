/*
 * Shared-memory transport, layout-compatible with the ETA unidirectional shmem transport on
 * x86-64 Linux with glibc (wire.md §2): the server creates the segment /tr.seg.<key> and the
 * control semaphore /tr.mtx.<key>.0 and is the only writer; a client attaches and reads,
 * starting at the writer's position at the time it attached.
 *
 * Writer, per message: fill the slot at `write`, then under the segment's spinlock advance
 * seqNumServer and `write`. Reader: lag = seqNumServer - its own count; too large a lag
 * means the reader was too slow and it gives up, as ETA's does. The reader starts at the
 * writer's position at its first tp_read() (ETA's at attach; see refill()).
 *
 * What we do better while keeping the layout:
 *  - our reader copies a batch of slots into its own memory and checks once afterwards that
 *    the writer did not overrun them, so it touches the writer's cache line once per batch
 *    instead of twice per message;
 *  - our reader reports its position in the segment's `byteWritten` word (unused by ETA in
 *    its pipe-notifier build: ETA writers zero it and never read it, ETA readers never
 *    touch it), as 0x80000000 | (count & 0x7FFFFFFF). Our writer, seeing such a reader,
 *    does not run more than 3/4 of the ring ahead of it: a burst that would overrun a
 *    reader that keeps up on average returns TP_ENOBUFS (back-pressure, like a full
 *    socket) instead of getting that reader disconnected. A reader whose position has not
 *    moved for shm_flow_ms is treated as gone and no longer waited for. With an ETA reader
 *    (which never reports) our writer behaves exactly like ETA's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tp_int.h"

/* ---- the segment --------------------------------------------------------------------- */

#define SHM_MAGIC 0x12FE68BAul
#define SHM_VERSION 1
#define SHM_F_PING 0x01     /* server pings enabled */
#define SHM_F_SHUTDOWN 0x02 /* the server shut down */
#define SHM_F_INIT 0x04     /* the server's channel is initialised */
#define SLOT_F_PACKED 0x01
#define SLOT_F_PING 0x02
#define SLOT_HDR 12 /* sizeof the ETA slot header struct on x86-64 */
#define SLOT_DATA 8 /* offset of the payload in a slot */
#define READER_MARK 0x80000000u

typedef struct shm_hdr {
    uint64_t magic;          /* 0 */
    uint16_t creator_pid;    /* 8 */
    uint16_t header_len;     /* 10: 40 */
    uint32_t pad0;           /* 12 */
    uint64_t total_len;      /* 16 */
    uint64_t free_offset;    /* 24 */
    uint64_t name_ptr;       /* 32: the creator's private pointer */
    uint16_t version;        /* 40 */
    uint16_t flags;          /* 42 */
    uint32_t ping_timeout;   /* 44 */
    uint32_t byte_written;   /* 48: our readers' position (see above) */
    uint32_t protocol_type;  /* 52 */
    uint32_t major;          /* 56 */
    uint32_t minor;          /* 60 */
    uint8_t comp_len;        /* 64 */
    char comp[255];          /* 65 */
    pthread_spinlock_t lock; /* 320 */
    uint32_t pad1;           /* 324 */
    uint64_t seq;            /* 328: seqNumServer */
    uint64_t cb_start;       /* 336: circular buffer, offsets from the segment base */
    uint64_t cb_end;         /* 344 */
    uint64_t cb_write;       /* 352 */
    uint64_t cb_read;        /* 360 */
    uint32_t slot_size;      /* 368: maxBufSize */
    uint32_t num_slots;      /* 372: numBuffers */
} shm_hdr;                   /* slots follow at 376 */

_Static_assert(sizeof(pthread_spinlock_t) == 4, "glibc spinlock word");
_Static_assert(offsetof(shm_hdr, version) == 40, "layout");
_Static_assert(offsetof(shm_hdr, byte_written) == 48, "layout");
_Static_assert(offsetof(shm_hdr, comp) == 65, "layout");
_Static_assert(offsetof(shm_hdr, lock) == 320, "layout");
_Static_assert(offsetof(shm_hdr, seq) == 328, "layout");
_Static_assert(offsetof(shm_hdr, cb_start) == 336, "layout");
_Static_assert(offsetof(shm_hdr, num_slots) == 372, "layout");
_Static_assert(sizeof(shm_hdr) == 376, "layout");

/* A mapping, shared by a server and the channel it accepted (either may be closed first). */
typedef struct tp_shm_seg {
    atomic_int refs;
    uint8_t *base;
    size_t len;
    sem_t *mtx;
    int owner; /* created the names: removes them when the server closes */
    char seg_name[300];
    char mtx_name[300];
} tp_shm_seg;

struct tp_shm_srv {
    tp_shm_seg *seg;
    int pipe_w; /* the server fd (read end) holds one byte until the one accept */
    int accepted;
};

struct tp_shm_chan {
    tp_shm_seg *seg;
    shm_hdr *h;
    int writer;
    int pipe_w; /* write end of the always-readable pipe behind ch->fd */
    uint64_t start, end;
    uint32_t slot_size, nslots, max_len;
    /* writer */
    uint64_t wseq, woff;
    uint32_t flow_limit, flow_pos, flow_word, flow_stuck;
    uint64_t flow_since_ns;
    /* reader */
    int started; /* position taken (at the first read) */
    uint64_t rseq, roff, max_lag;
    uint32_t last_mark;
    uint8_t *batch;
    uint32_t batch_cap, b_rd, b_wr;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void seg_release(tp_shm_seg *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    if (s->base)
        munmap(s->base, s->len);
    if (s->mtx)
        sem_close(s->mtx);
    free(s);
}

static int make_key(const tp_opts *o, char *key, size_t cap)
{
    int n =
        snprintf(key, cap, "%s%s", o->interface ? o->interface : "", o->port ? o->port : "14002");
    if (n <= 0 || (size_t)n >= cap || strchr(key, '/'))
        return err_set("bad shared-memory key \"%s%s\" (interface + port)",
                       o->interface ? o->interface : "", o->port ? o->port : "");
    return 0;
}

static void names(tp_shm_seg *s, const char *key)
{
    snprintf(s->seg_name, sizeof(s->seg_name), "/tr.seg.%s", key);
    snprintf(s->mtx_name, sizeof(s->mtx_name), "/tr.mtx.%s.0", key);
}

/* Waits for the control semaphore for at most 5 s (a crashed holder must not hang us). */
static int mtx_wait(tp_shm_seg *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    while (sem_timedwait(s->mtx, &ts) < 0) {
        if (errno == EINTR)
            continue;
        return err_set_errno(errno, "waiting for %s", s->mtx_name);
    }
    return 0;
}

/* A pipe holding one byte: its read end is always readable, as ETA's shmem descriptors. */
static int ready_pipe(int *rd, int *wr)
{
    int p[2];
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
        return err_set_errno(errno, "pipe");
    if (write(p[1], "1", 1) != 1) {
        close(p[0]);
        close(p[1]);
        return err_set("pipe write failed");
    }
    *rd = p[0];
    *wr = p[1];
    return 0;
}

/* ---- server (writer) ----------------------------------------------------------------- */

int tp_shm_bind(tp_server *s)
{
    char key[256];
    if (make_key(&s->o, key, sizeof(key)) < 0)
        return -1;
    uint32_t nslots = s->o.max_output_buffers > s->o.guaranteed_output_buffers
                          ? s->o.max_output_buffers
                          : s->o.guaranteed_output_buffers;
    if (nslots > 0xFFFF)
        nslots = 0xFFFF; /* ETA keeps the count in 16 bits */
    if (nslots < 2)
        return err_set("a shared-memory ring needs at least 2 buffers, not %u", nslots);
    uint32_t slot = (SLOT_HDR + s->o.max_fragment_size + 7u) & ~7u;
    size_t len = sizeof(shm_hdr) + (size_t)nslots * slot;

    tp_shm_seg *g = calloc(1, sizeof(*g));
    struct tp_shm_srv *ss = calloc(1, sizeof(*ss));
    if (!g || !ss) {
        free(g);
        free(ss);
        return err_set("out of memory");
    }
    ss->pipe_w = -1;
    atomic_init(&g->refs, 1);
    names(g, key);
    g->mtx = sem_open(g->mtx_name, O_CREAT | O_EXCL | O_RDWR, 0666, 1);
    if (g->mtx == SEM_FAILED) {
        int e = errno;
        g->mtx = NULL;
        if (e == EEXIST)
            err_set("shared memory for key %s already exists (/dev/shm/sem%s): another "
                    "server uses it, or one died; if none runs, remove /dev/shm%s and "
                    "/dev/shm/sem%s",
                    key, g->mtx_name, g->seg_name, g->mtx_name);
        else
            err_set_errno(e, "sem_open %s", g->mtx_name);
        seg_release(g);
        free(ss);
        return -1;
    }
    g->owner = 1;
    if (mtx_wait(g) < 0)
        goto fail_sem;
    int fd = shm_open(g->seg_name, O_CREAT | O_EXCL | O_RDWR, 0666);
    if (fd < 0) {
        err_set_errno(errno, "shm_open %s", g->seg_name);
        goto fail_post;
    }
    if (ftruncate(fd, (off_t)len) < 0) {
        err_set_errno(errno, "sizing %s to %zu bytes", g->seg_name, len);
        close(fd);
        goto fail_unlink;
    }
    g->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (g->base == MAP_FAILED) {
        g->base = NULL;
        err_set_errno(errno, "mmap of %zu bytes of %s", len, g->seg_name);
        goto fail_unlink;
    }
    g->len = len;
    /* ETA fails when it cannot lock the segment in memory; we only try */
    (void)mlock(g->base, len);
    memset(g->base, 0, len);
    shm_hdr *h = (shm_hdr *)g->base;
    h->magic = SHM_MAGIC;
    h->creator_pid = (uint16_t)getpid();
    h->header_len = 40;
    h->total_len = len;
    h->free_offset = len;
    h->version = SHM_VERSION;
    h->flags = s->o.server_to_client_pings ? SHM_F_PING : 0;
    h->ping_timeout = s->o.ping_timeout;
    h->protocol_type = s->o.protocol_type;
    h->major = s->o.rwf_major;
    h->minor = s->o.rwf_minor;
    h->cb_start = h->cb_write = h->cb_read = sizeof(shm_hdr);
    h->cb_end = sizeof(shm_hdr) + (uint64_t)nslots * slot;
    h->slot_size = slot;
    h->num_slots = nslots;
    for (uint32_t i = 0; i < nslots; i++) {
        uint8_t *sl = g->base + sizeof(shm_hdr) + (size_t)i * slot;
        uint16_t maxlen = (uint16_t)(slot - SLOT_HDR);
        memcpy(sl + 2, &maxlen, 2);
    }
    pthread_spin_init(&h->lock, PTHREAD_PROCESS_SHARED);
    sem_post(g->mtx);
    if (ready_pipe(&s->fd, &ss->pipe_w) < 0) {
        s->fd = -1;
        goto fail_unlink;
    }
    ss->seg = g;
    s->shm = ss;
    s->port = 0;
    return 0;
fail_post:
    sem_post(g->mtx);
fail_unlink:
    shm_unlink(g->seg_name);
fail_sem:
    sem_unlink(g->mtx_name);
    seg_release(g);
    free(ss);
    return -1;
}

int tp_shm_accept(tp_server *s, tp_channel **out)
{
    *out = NULL;
    struct tp_shm_srv *ss = s->shm;
    if (ss->accepted)
        return 0;
    char c;
    if (read(s->fd, &c, 1) != 1)
        return 0;
    tp_channel *ch = tp_chan_new(&s->o, 1);
    struct tp_shm_chan *sc = calloc(1, sizeof(*sc));
    if (!ch || !sc) {
        free(ch);
        free(sc);
        return err_set("out of memory for a channel");
    }
    sc->pipe_w = -1;
    if (ready_pipe(&ch->fd, &sc->pipe_w) < 0) {
        free(sc);
        ch->fd = -1;
        tp_close(ch);
        return TP_EFAIL;
    }
    ss->accepted = 1;
    atomic_fetch_add(&ss->seg->refs, 1);
    sc->seg = ss->seg;
    sc->h = (shm_hdr *)ss->seg->base;
    sc->writer = 1;
    sc->start = sc->h->cb_start;
    sc->end = sc->h->cb_end;
    sc->slot_size = sc->h->slot_size;
    sc->nslots = sc->h->num_slots;
    sc->max_len = sc->slot_size - SLOT_HDR;
    sc->wseq = sc->h->seq;
    sc->woff = sc->h->cb_write;
    sc->flow_limit = sc->nslots * 3 / 4;
    sc->flow_pos = (uint32_t)sc->wseq;
    ch->shm = sc;
    ch->istate = TP_IS_SHM_WAIT;
    *out = ch;
    return 1;
}

void tp_shm_server_close(tp_server *s)
{
    struct tp_shm_srv *ss = s->shm;
    if (!ss)
        return;
    tp_shm_seg *g = ss->seg;
    int locked = mtx_wait(g) == 0;
    shm_hdr *h = (shm_hdr *)g->base;
    __atomic_or_fetch(&h->flags, SHM_F_SHUTDOWN, __ATOMIC_RELEASE);
    shm_unlink(g->seg_name);
    if (locked)
        sem_post(g->mtx);
    sem_unlink(g->mtx_name);
    if (ss->pipe_w >= 0)
        close(ss->pipe_w);
    seg_release(g);
    free(ss);
    s->shm = NULL;
}

/* ---- client (reader) ----------------------------------------------------------------- */

/* Checks everything the reader will rely on, so that a damaged or hostile segment cannot
 * make it read outside the mapping. */
static int check_segment(const shm_hdr *h, size_t len, const char *name)
{
    if (len < sizeof(shm_hdr))
        return err_set("%s is %zu bytes, too small for a shared-memory segment", name, len);
    if (h->magic != SHM_MAGIC)
        return err_set("%s has magic 0x%llx, not a shared-memory transport segment", name,
                       (unsigned long long)h->magic);
    if (h->version != SHM_VERSION)
        return err_set("%s has shmem version %u; this reader knows version 1", name, h->version);
    uint64_t slot = h->slot_size, n = h->num_slots;
    if (slot < SLOT_HDR + 1 || slot > 65536 + 16 || n < 2 || h->cb_start < sizeof(shm_hdr) ||
        h->cb_end > len || h->cb_start > h->cb_end || h->cb_end - h->cb_start != slot * n ||
        h->cb_write < h->cb_start || h->cb_write >= h->cb_end ||
        (h->cb_write - h->cb_start) % slot != 0)
        return err_set("%s has an inconsistent ring (start %llu, end %llu, write %llu, %llu "
                       "slots of %llu bytes, %zu-byte segment)",
                       name, (unsigned long long)h->cb_start, (unsigned long long)h->cb_end,
                       (unsigned long long)h->cb_write, (unsigned long long)n,
                       (unsigned long long)slot, len);
    return 0;
}

int tp_shm_connect(tp_channel *ch)
{
    char key[256];
    if (make_key(&ch->o, key, sizeof(key)) < 0)
        return -1;
    tp_shm_seg *g = calloc(1, sizeof(*g));
    struct tp_shm_chan *sc = calloc(1, sizeof(*sc));
    if (!g || !sc) {
        free(g);
        free(sc);
        return err_set("out of memory");
    }
    atomic_init(&g->refs, 1);
    names(g, key);
    sc->pipe_w = -1;
    sc->seg = g;
    ch->shm = sc;
    g->mtx = sem_open(g->mtx_name, O_RDWR);
    if (g->mtx == SEM_FAILED) {
        g->mtx = NULL;
        return err_set_errno(errno, "no shared-memory server for key %s (%s)", key, g->mtx_name);
    }
    if (mtx_wait(g) < 0)
        return -1;
    int rc = -1;
    int fd = shm_open(g->seg_name, O_RDWR, 0666);
    struct stat st;
    if (fd < 0) {
        err_set_errno(errno, "no shared-memory segment for key %s (%s)", key, g->seg_name);
        goto out;
    }
    if (fstat(fd, &st) < 0) {
        err_set_errno(errno, "fstat %s", g->seg_name);
        close(fd);
        goto out;
    }
    g->base =
        mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (g->base == MAP_FAILED) {
        g->base = NULL;
        err_set_errno(errno, "mmap %s", g->seg_name);
        goto out;
    }
    g->len = (size_t)st.st_size;
    shm_hdr *h = (shm_hdr *)g->base;
    if (check_segment(h, g->len, g->seg_name) < 0)
        goto out;
    if (h->protocol_type != ch->o.protocol_type) {
        err_set("client protocol type %u is incompatible with the server's %u", ch->o.protocol_type,
                h->protocol_type);
        goto out;
    }
    if (h->major != ch->o.rwf_major) {
        err_set("client RWF major version %u is incompatible with the server's %u", ch->o.rwf_major,
                h->major);
        goto out;
    }
    sc->h = h;
    sc->start = h->cb_start;
    sc->end = h->cb_end;
    sc->slot_size = h->slot_size;
    sc->nslots = h->num_slots;
    sc->max_len = sc->slot_size - SLOT_HDR;
    sc->max_lag = ch->o.shm_max_lag ? ch->o.shm_max_lag : (uint64_t)sc->nslots * 3 / 4;
    if (sc->max_lag > sc->nslots) {
        err_set("maximum reader lag %llu exceeds the %u buffers of the ring",
                (unsigned long long)sc->max_lag, sc->nslots);
        goto out;
    }
    sc->batch_cap = 65536 > 4 * sc->slot_size ? 65536 : 4 * sc->slot_size;
    sc->batch = malloc(sc->batch_cap);
    if (!sc->batch) {
        err_set("out of memory");
        goto out;
    }
    rc = 0;
out:
    sem_post(g->mtx);
    if (rc < 0)
        return -1;
    if (ready_pipe(&ch->fd, &sc->pipe_w) < 0)
        return -1;
    ch->istate = TP_IS_SHM_WAIT;
    return 0;
}

int tp_shm_init(tp_channel *ch)
{
    struct tp_shm_chan *sc = ch->shm;
    shm_hdr *h = sc->h;
    uint16_t flags = __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
    if (sc->writer) {
        uint8_t cl = (uint8_t)strlen(ch->component);
        memcpy(h->comp, ch->component, cl);
        h->comp_len = cl;
        __atomic_or_fetch(&h->flags, SHM_F_INIT, __ATOMIC_RELEASE);
        ch->send_pings = (flags & SHM_F_PING) != 0;
    } else {
        if (flags & SHM_F_SHUTDOWN) {
            err_set("shared-memory server has shut down");
            return tp_chan_fail(ch);
        }
        if (!(flags & SHM_F_INIT))
            return TP_PENDING;
        uint8_t cl = h->comp_len;
        snprintf(ch->peer_component, sizeof(ch->peer_component), "%.*s", cl, h->comp);
        ch->expect_pings = (flags & SHM_F_PING) != 0;
    }
    ch->ping_timeout = (uint8_t)(h->ping_timeout > 255 ? 255 : h->ping_timeout);
    if (ch->ping_timeout == 0)
        ch->ping_timeout = 1;
    ch->protocol_type = (uint8_t)h->protocol_type;
    ch->rwf_major = (uint8_t)h->major;
    ch->rwf_minor = (uint8_t)h->minor;
    ch->max_user = sc->max_len;
    ch->istate = TP_IS_ACTIVE;
    ch->state = TP_STATE_ACTIVE;
    ch->shm_wr = (uint8_t)sc->writer;
    ch->shm_rd = (uint8_t)!sc->writer;
    return TP_ACTIVE;
}

/* ---- reading ------------------------------------------------------------------------- */

/* Copies up to a batch of slots into the reader's own memory, then checks that the writer
 * did not overrun any of them while they were copied. Returns the number copied (0 when
 * nothing is new) or TP_EFAIL. */
static int refill(tp_channel *ch, struct tp_shm_chan *sc)
{
    shm_hdr *h = sc->h;
    if (TP_UNLIKELY(!sc->started)) {
        /* the reader starts at the writer's position at its first read: what was written
         * before is not seen, and the time between attaching and reading (the caller's own
         * start-up) cannot count against the reader's allowed lag */
        pthread_spin_lock(&h->lock);
        sc->rseq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
        sc->roff = h->cb_write;
        pthread_spin_unlock(&h->lock);
        if (sc->roff < sc->start || sc->roff >= sc->end ||
            (sc->roff - sc->start) % sc->slot_size != 0) {
            err_set("shared-memory write offset %llu is outside the ring",
                    (unsigned long long)sc->roff);
            return tp_chan_fail(ch);
        }
        sc->started = 1;
        sc->last_mark = READER_MARK | ((uint32_t)sc->rseq & 0x7FFFFFFF);
        __atomic_store_n(&h->byte_written, sc->last_mark, __ATOMIC_RELEASE);
    }
    uint64_t lag = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) - sc->rseq;
    if (lag == 0) {
        if (__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & SHM_F_SHUTDOWN) {
            err_set("disconnected from shared memory because the provider terminated");
            return tp_chan_fail(ch);
        }
        return 0;
    }
    if (lag > sc->max_lag) {
        err_set("disconnected from shared memory because reader lags writer by %llu messages "
                "(more than %llu): the reader is too slow",
                (unsigned long long)lag, (unsigned long long)sc->max_lag);
        return tp_chan_fail(ch);
    }
    /* each record in the batch is the slot's 8 header bytes (length, maxLength, flags) and
     * its payload, padded to 8 bytes: one copy per slot */
    uint32_t n = 0, w = 0, bad_len = 0;
    uint64_t off = sc->roff;
    while (n < lag && n < 4096) {
        const uint8_t *sl = (const uint8_t *)h + off;
        uint16_t len;
        memcpy(&len, sl, 2);
        if (len > sc->max_len) {
            bad_len = len;
            break;
        }
        uint32_t rec = SLOT_DATA + ((len + 7u) & ~7u);
        if (w + rec > sc->batch_cap)
            break;
        memcpy(sc->batch + w, sl, SLOT_DATA + (size_t)len);
        memcpy(sc->batch + w, &len, 2); /* the length as checked, whatever the slot says now */
        w += rec;
        n++;
        off += sc->slot_size;
        if (off >= sc->end)
            off = sc->start;
    }
    /* the slot reads above must be done before seqNumServer is read again: x86-64 keeps
     * loads in order, so there only the compiler must not move them (ThreadSanitizer builds
     * refuse fences); elsewhere an acquire fence */
#if defined(__x86_64__)
    __asm__ __volatile__("" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
    uint64_t lag2 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) - sc->rseq;
    if (lag2 > sc->nslots - 1u) {
        err_set("disconnected from shared memory because reader lags writer by %llu messages "
                "(the writer overran the buffers being read)",
                (unsigned long long)lag2);
        return tp_chan_fail(ch);
    }
    if (bad_len && n == 0) {
        err_set("corrupt shared-memory slot: length %u exceeds the %u-byte maximum", bad_len,
                sc->max_len);
        return tp_chan_fail(ch);
    }
    sc->rseq += n;
    sc->roff = off;
    sc->b_rd = 0;
    sc->b_wr = w;
    /* tell our writer how far we got (see the top of this file) */
    sc->last_mark = READER_MARK | ((uint32_t)sc->rseq & 0x7FFFFFFF);
    __atomic_store_n(&h->byte_written, sc->last_mark, __ATOMIC_RELEASE);
    ch->rx_seen = 1;
    return (int)n;
}

static int __attribute__((noinline)) read_slow(tp_channel *ch, tp_msg *msg)
{
    struct tp_shm_chan *sc = ch->shm;
    if (ch->state != TP_STATE_ACTIVE || sc->writer) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set(sc->writer ? "a shared-memory server only writes" : "channel is not active yet");
        return TP_EINVAL;
    }
    int n = refill(ch, sc);
    if (n <= 0)
        return n;
    return tp_shm_read(ch, msg);
}

int tp_shm_read(tp_channel *ch, tp_msg *msg)
{
    struct tp_shm_chan *sc = ch->shm;
    if (TP_LIKELY(ch->shm_rd && sc->b_rd < sc->b_wr)) {
        const uint8_t *r = sc->batch + sc->b_rd;
        uint16_t len;
        uint32_t flags;
        memcpy(&len, r, 2);
        memcpy(&flags, r + 4, 4);
        sc->b_rd += SLOT_DATA + ((len + 7u) & ~7u);
        int more = sc->b_rd < sc->b_wr ? TP_READ_MORE : 0;
        if (TP_UNLIKELY(flags & SLOT_F_PING)) {
            ch->st.pings_read++;
            return TP_READ_PING | more;
        }
        msg->data = r + SLOT_DATA;
        msg->len = len;
        ch->st.msgs_read++;
        ch->st.bytes_read += len;
        return TP_READ_MSG | more;
    }
    return read_slow(ch, msg);
}

/* ---- writing ------------------------------------------------------------------------- */

/* Back-pressure for a reader that reports its position (see the top of this file).
 * Returns 0 when one more message may be written, TP_ENOBUFS when it would run too far
 * ahead of the reader. */
static int flow_check(tp_channel *ch, struct tp_shm_chan *sc)
{
    uint32_t w = __atomic_load_n(&sc->h->byte_written, __ATOMIC_ACQUIRE);
    uint32_t seq = (uint32_t)sc->wseq;
    if (!(w & READER_MARK) || ch->o.shm_flow_ms == 0 || w == sc->flow_stuck) {
        sc->flow_pos = seq; /* no reader to wait for: look again a ring later */
        return 0;
    }
    uint32_t inflight = (seq - (w & 0x7FFFFFFF)) & 0x7FFFFFFF;
    if (inflight < sc->flow_limit) {
        sc->flow_pos = seq - inflight;
        return 0;
    }
    uint64_t now = mono_ns();
    if (w != sc->flow_word) {
        sc->flow_word = w;
        sc->flow_since_ns = now;
    } else if (now - sc->flow_since_ns > (uint64_t)ch->o.shm_flow_ms * 1000000ull) {
        sc->flow_stuck = w; /* the reader stopped moving: stop waiting for it */
        sc->flow_pos = seq;
        return 0;
    }
    ch->st.no_buffers++;
    err_set("shared-memory ring full: the reader is %u messages behind", inflight);
    return TP_ENOBUFS;
}

static int __attribute__((noinline))
get_slow(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    struct tp_shm_chan *sc = ch->shm;
    if (ch->state != TP_STATE_ACTIVE || !sc->writer) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set(sc->writer ? "channel is not active yet" : "a shared-memory client only reads");
        return TP_EINVAL;
    }
    if (packed) {
        err_set("packed messages are not supported on shared memory");
        return TP_EINVAL;
    }
    if (size > sc->max_len) {
        err_set("buffer of %u bytes exceeds the %u-byte shared-memory slot (no fragmentation "
                "on shared memory)",
                size, sc->max_len);
        return TP_EINVAL;
    }
    if (ch->direct.busy) {
        ch->st.no_buffers++;
        err_set("only one buffer at a time can be open on a shared-memory channel");
        return TP_ENOBUFS;
    }
    if (flow_check(ch, sc) < 0)
        return TP_ENOBUFS;
    return tp_shm_get_buffer(ch, size, packed, out);
}

int tp_shm_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    struct tp_shm_chan *sc = ch->shm;
    tp_buf *b = &ch->direct;
    if (TP_LIKELY(ch->shm_wr && !packed && size <= sc->max_len && !b->busy &&
                  (uint32_t)sc->wseq - sc->flow_pos < sc->flow_limit)) {
        uint8_t *sl = (uint8_t *)sc->h + sc->woff;
        uint32_t zero = 0;
        memcpy(sl + 4, &zero, 4); /* slot flags */
        b->pay = sl + SLOT_DATA;
        b->pay_cap = sc->max_len;
        b->pack_off = 0;
        b->data = b->pay;
        b->len = size;
        b->busy = 1;
        *out = b;
        return 0;
    }
    return get_slow(ch, size, packed, out);
}

/* Makes the slot at woff visible: advance seqNumServer and `write` under the spinlock. */
static void publish(struct tp_shm_chan *sc)
{
    shm_hdr *h = sc->h;
    sc->woff += sc->slot_size;
    if (sc->woff >= sc->end)
        sc->woff = sc->start;
    sc->wseq++;
    pthread_spin_lock(&h->lock);
    __atomic_store_n(&h->seq, sc->wseq, __ATOMIC_RELEASE);
    h->cb_write = sc->woff;
    pthread_spin_unlock(&h->lock);
}

int tp_shm_write(tp_channel *ch, tp_buf *b, unsigned flags)
{
    (void)flags;
    struct tp_shm_chan *sc = ch->shm;
    if (TP_LIKELY(b == &ch->direct && b->busy && ch->shm_wr && b->len - 1u < sc->max_len)) {
        uint16_t len = (uint16_t)b->len;
        memcpy(b->pay - SLOT_DATA, &len, 2);
        b->busy = 0;
        publish(sc);
        ch->st.msgs_written++;
        ch->st.bytes_written += len;
        return 0;
    }
    if (b != &ch->direct || !b->busy) {
        err_set("tp_write: buffer is not open on this channel");
        return TP_EINVAL;
    }
    if (ch->state != TP_STATE_ACTIVE)
        return tp_chan_refail(ch);
    if (b->len > sc->max_len) {
        err_set("buffer length %u exceeds the %u-byte shared-memory slot", b->len, sc->max_len);
        return TP_EINVAL;
    }
    b->busy = 0; /* zero length: nothing to send */
    return 0;
}

int tp_shm_release(tp_channel *ch, tp_buf *b)
{
    if (b != &ch->direct || !b->busy) {
        err_set("tp_release: buffer is not open on this channel");
        return TP_EINVAL;
    }
    b->busy = 0;
    return 0;
}

int tp_shm_flush(tp_channel *ch)
{
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    return 0; /* the ring needs no flushing: written slots are visible at once */
}

int tp_shm_ping(tp_channel *ch)
{
    struct tp_shm_chan *sc = ch->shm;
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    if (!sc->writer || ch->state != TP_STATE_ACTIVE || ch->direct.busy)
        return 0;
    if ((uint32_t)sc->wseq - sc->flow_pos >= sc->flow_limit && flow_check(ch, sc) < 0)
        return 0; /* the reader has plenty to read */
    uint8_t *sl = (uint8_t *)sc->h + sc->woff;
    uint16_t zero = 0;
    uint32_t f = SLOT_F_PING;
    memcpy(sl, &zero, 2);
    memcpy(sl + 4, &f, 4);
    publish(sc);
    ch->st.pings_sent++;
    return 0;
}

void tp_shm_close(tp_channel *ch)
{
    struct tp_shm_chan *sc = ch->shm;
    if (!sc)
        return;
    if (!sc->writer && sc->h && sc->started) {
        /* withdraw our position, unless another reader has written its own since */
        uint32_t mine = sc->last_mark;
        __atomic_compare_exchange_n(&sc->h->byte_written, &mine, 0, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
    }
    if (sc->pipe_w >= 0)
        close(sc->pipe_w);
    free(sc->batch);
    seg_release(sc->seg);
    free(sc);
    ch->shm = NULL;
}

void tp_shm_info(const tp_channel *ch, tp_info *out)
{
    const struct tp_shm_chan *sc = ch->shm;
    out->max_fragment_size = sc->max_len;
    out->max_user_msg_size = sc->max_len;
    out->guaranteed_output_buffers = sc->nslots;
    out->max_output_buffers = sc->nslots;
    out->num_input_buffers = sc->nslots;
    out->ping_timeout = ch->ping_timeout;
    out->server_to_client_pings = sc->writer ? ch->send_pings : ch->expect_pings;
    out->client_to_server_pings = false;
    int total =
        (int)((uint64_t)sc->nslots * sc->max_len > 0x7FFFFFFF ? 0x7FFFFFFF
                                                              : (uint64_t)sc->nslots * sc->max_len);
    out->sys_send_buf_size = sc->writer ? total : 0;
    out->sys_recv_buf_size = sc->writer ? 0 : total;
    out->compression = TP_COMP_NONE;
    snprintf(out->component, sizeof(out->component), "%s", ch->peer_component);
    out->protocol_type = ch->protocol_type;
    out->rwf_major = ch->rwf_major;
    out->rwf_minor = ch->rwf_minor;
}
