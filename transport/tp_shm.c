/*
 * Shared-memory transport, layout-compatible with the ETA unidirectional shmem transport on
 * x86-64 Linux with glibc (docs/wire.md#shared-memory): the server creates the segment
 * /tr.seg.<key> and the control semaphore /tr.mtx.<key>.0 and is the only writer; a client attaches
 * and reads, starting at the writer's position at the time it attached.
 *
 * Writer, per message: fill the slot at `write`, then under the segment's spinlock advance
 * seqNumServer and `write` (a run, tp_shm_run_get(): fill up to SHM_RUN_MAX slots, then
 * advance both past all of them under one lock). Reader: lag = seqNumServer - its own
 * count; too large a lag means the reader was too slow and it gives up, as ETA's does. The
 * reader starts at the writer's position at its first tp_read() (ETA's at attach; see
 * refill()).
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

#include "tp_shm_int.h"

/* ---- the segment --------------------------------------------------------------------- */

/* Drops one reference to the mapping s (NULL allowed); the last one unmaps it. */
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

/* The segment's key into key: the interface name then the port (default "14002"). Returns 0,
 * or -1 (err_set) when it does not fit or holds a '/'. */
static int make_key(const tp_opts *o, char *key, size_t cap)
{
    int n =
        snprintf(key, cap, "%s%s", o->interface ? o->interface : "", o->port ? o->port : "14002");
    if (n <= 0 || (size_t)n >= cap || strchr(key, '/'))
        return err_set("bad shared-memory key \"%s%s\" (interface + port)",
                       o->interface ? o->interface : "", o->port ? o->port : "");
    return 0;
}

/* The names of the segment and of its control semaphore for key, as ETA names them. */
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

/* Writes a new segment of len bytes at base as an ETA server does: zeroed, the header (from the
 * server's options o), nslots empty slots of slot bytes each with its room noted, and the
 * spinlock. */
static void init_segment(uint8_t *base, size_t len, const tp_opts *o, uint32_t nslots,
                         uint32_t slot)
{
    memset(base, 0, len);
    shm_hdr *h = (shm_hdr *)base;
    h->magic = SHM_MAGIC;
    h->creator_pid = (uint16_t)getpid();
    h->header_len = 40;
    h->total_len = len;
    h->free_offset = len;
    h->version = SHM_VERSION;
    h->flags = o->server_to_client_pings ? SHM_F_PING : 0;
    h->ping_timeout = o->ping_timeout;
    h->protocol_type = o->protocol_type;
    h->major = o->rwf_major;
    h->minor = o->rwf_minor;
    h->cb_start = h->cb_write = h->cb_read = sizeof(shm_hdr);
    h->cb_end = sizeof(shm_hdr) + (uint64_t)nslots * slot;
    h->slot_size = slot;
    h->num_slots = nslots;
    for (uint32_t i = 0; i < nslots; i++) {
        uint8_t *sl = base + sizeof(shm_hdr) + (size_t)i * slot;
        uint16_t maxlen = (uint16_t)(slot - SLOT_HDR);
        memcpy(sl + 2, &maxlen, 2);
    }
    pthread_spin_init(&h->lock, PTHREAD_PROCESS_SHARED);
}

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
    init_segment(g->base, len, &s->o, nslots, slot);
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
