/*
 * Shared-memory transport: reading and writing messages over the segment that tp_shm.c set up
 * (tp_shm_int.h). The reader copies slots in batches and reports its position; the writer
 * publishes a slot (or a run of slots) at a time under the segment's spinlock and holds back
 * for a reader that reports (the top of tp_shm.c tells the whole scheme).
 */
#include "tp_shm_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CLOCK_MONOTONIC now, in nanoseconds. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

int tp_shm_read_batch(tp_channel *ch, tp_msg *msgs, int max, bool *more)
{
    struct tp_shm_chan *sc = ch->shm;
    int n = 0;
    if (!ch->shm_rd || sc->b_rd >= sc->b_wr) {
        /* the copied slots are used up: tp_shm_read() refills (or fails) and takes the first */
        int rc = tp_shm_read(ch, &msgs[0]);
        if (rc < 0)
            return rc;
        n = (rc & TP_READ_MSG) ? 1 : 0;
        if (!(rc & TP_READ_MORE)) {
            *more = false;
            return n;
        }
    }
    /* the rest from the copy made by that refill (or an earlier one), which no later slot
     * overwrites until the next refill */
    const uint8_t *const batch = sc->batch;
    uint32_t rd = sc->b_rd;
    const uint32_t wr = sc->b_wr;
    uint64_t bytes = 0;
    uint32_t pings = 0;
    const int n0 = n;
    while (n < max && rd < wr) {
        const uint8_t *r = batch + rd;
        uint16_t len;
        uint32_t flags;
        memcpy(&len, r, 2);
        memcpy(&flags, r + 4, 4);
        rd += SLOT_DATA + ((len + 7u) & ~7u);
        if (TP_UNLIKELY(flags & SLOT_F_PING)) {
            pings++;
            continue;
        }
        msgs[n].data = r + SLOT_DATA;
        msgs[n].len = len;
        bytes += len;
        n++;
    }
    sc->b_rd = rd;
    ch->st.msgs_read += (uint64_t)(n - n0);
    ch->st.bytes_read += bytes;
    ch->st.pings_read += pings;
    *more = rd < wr;
    return n;
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

/* Makes the n slots from woff visible (n >= 1, not past the ring's end): advances seqNumServer
 * and `write` once, under the spinlock. */
static void publish_n(struct tp_shm_chan *sc, uint32_t n)
{
    shm_hdr *h = sc->h;
    sc->woff += (uint64_t)n * sc->slot_size;
    if (sc->woff >= sc->end)
        sc->woff = sc->start;
    sc->wseq += n;
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
        publish_n(sc, 1);
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

/* Opens a run of up to want messages of size bytes in the slots from woff: run->n stops at
 * the ring's end, at the room the reader leaves (flow_check) and at SHM_RUN_MAX, and the
 * stride is the slot's size. Returns 0; TP_ENOBUFS when the reader leaves no room; TP_EINVAL
 * when the channel is not an active writer, a buffer or run is open, or size or want is out
 * of range; what a closed channel failed with. */
int tp_shm_run_get(tp_channel *ch, uint32_t size, uint32_t want, tp_run *run)
{
    struct tp_shm_chan *sc = ch->shm;
    if (TP_UNLIKELY(!ch->shm_wr || ch->direct.busy || size == 0 || size > sc->max_len ||
                    want == 0)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_run_get: no run of %u-byte messages on this shared-memory channel now", size);
        return TP_EINVAL;
    }
    uint32_t n = (uint32_t)((sc->end - sc->woff) / sc->slot_size); /* to the ring's end */
    if (n > SHM_RUN_MAX)
        n = SHM_RUN_MAX;
    if (n > want)
        n = want;
    uint32_t used = (uint32_t)sc->wseq - sc->flow_pos;
    if (TP_UNLIKELY(used + n > sc->flow_limit)) {
        /* the room last seen is short of the run: look at the reader's position again */
        if (flow_check(ch, sc) < 0)
            return TP_ENOBUFS;
        used = (uint32_t)sc->wseq - sc->flow_pos;
        if (n > sc->flow_limit - used)
            n = sc->flow_limit - used;
    }
    ch->direct.busy = 1; /* the slots from woff are the run's until tp_shm_run_write() */
    run->data = (uint8_t *)sc->h + sc->woff + SLOT_DATA;
    run->stride = sc->slot_size;
    run->size = size;
    run->n = n;
    return 0;
}

/* Gives the first k slots of the open run (k <= run->n) their header (length, no flags) and
 * publishes them at once: one seqNumServer update under the spinlock for the k messages;
 * k == 0 gives the run back. Returns 0; TP_EINVAL when run is not the channel's open run;
 * what a closed channel failed with. */
int tp_shm_run_write(tp_channel *ch, tp_run *run, uint32_t k)
{
    struct tp_shm_chan *sc = ch->shm;
    uint8_t *sl = (uint8_t *)sc->h + sc->woff;
    if (TP_UNLIKELY(!ch->shm_wr || !ch->direct.busy || k > run->n || run->data != sl + SLOT_DATA)) {
        if (ch->state == TP_STATE_CLOSED)
            return tp_chan_refail(ch);
        err_set("tp_run_write: not the open run of this channel");
        return TP_EINVAL;
    }
    ch->direct.busy = 0;
    if (k == 0)
        return 0;
    const uint16_t len = (uint16_t)run->size;
    const uint32_t zero = 0;
    for (uint32_t i = 0; i < k; i++, sl += sc->slot_size) {
        memcpy(sl, &len, 2);
        memcpy(sl + 4, &zero, 4); /* slot flags */
    }
    publish_n(sc, k);
    ch->st.msgs_written += k;
    ch->st.bytes_written += (uint64_t)k * len;
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
    publish_n(sc, 1);
    ch->st.pings_sent++;
    return 0;
}
