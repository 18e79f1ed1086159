/* A TransportPerf worker's messages: receiving (sequence and latency checks, reflection) and
 * sending (the bursts of each tick, packed or not). See worker.h. */
#include "worker_int.h"

#include "clk.h"
#include "err.h"
#include "lat.h"
#include "msg.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Receiving                                                                                  */

int worker_on_msg(tperf_worker *w, tperf_session *s, const uint8_t *p, uint32_t len, int64_t now_ns)
{
    if (len < TPERF_MSG_HEAD) {
        if (w->cfg->gap_mode == TPERF_GAPS_COUNT) {
            counter_inc(&w->sq[TPERF_SQ_SHORT]);
            return 0;
        }
        printf("Error: Message was too small to be valid(length %u).\n", len);
        w->seq_gaps++;
        return -1;
    }
    uint64_t seq = tperf_msg_seq(p);
    bool record = true;
    if (w->tracked) {
        /* per sender, and counted instead of failing with -seqGaps count */
        if (tperf_track_msg(w, s, seq, &record) < 0)
            return -1;
    } else {
        if (s->recv_any && seq != s->recv_seq) {
            printf("Error: Received out-of-order sequence number(%" PRIu64 " instead of %" PRIu64
                   ").\n",
                   seq, s->recv_seq);
            w->seq_gaps++;
            w->seq_lost += seq > s->recv_seq ? seq - s->recv_seq : 0;
            return -1;
        }
        if (!s->recv_any && !w->got_first) {
            w->first_seq = seq;
            w->got_first = true;
        }
        s->recv_any = true;
        s->recv_seq = seq + 1;
    }

    uint64_t stamp = tperf_msg_stamp(p);
    if (stamp && record) {
        int64_t now = now_ns ? now_ns : clk_ns();
        lat *rec = latbuf_cur(&w->lat);
        int64_t d = now - (int64_t)stamp;
        lat_record(&rec[TPERF_LAT], d);
        uint64_t sched = tperf_msg_sched(p, len);
        if (sched)
            lat_record(&rec[TPERF_LAT_SCHED], now - (int64_t)sched);
        if (w->ring_on)
            latring_push(&w->ring, 0, (int64_t)stamp, now);
        if (d < 0 && atomic_load_explicit(&w->neg_send, memory_order_relaxed) == 0) {
            atomic_store_explicit(&w->neg_recv, now, memory_order_relaxed);
            atomic_store_explicit(&w->neg_send, (int64_t)stamp, memory_order_release);
        }
    }
    return 0;
}

/* Writes a received message back (-reflectMsgs). Returns 1 when written, 0 when dropped for
 * lack of buffers, -1 when the channel failed. */
static int reflect(tperf_worker *w, tperf_session *s, const tp_msg *in)
{
    tp_msg one = *in;
    if (s->json && one.len >= 2) { /* the transport puts the brackets back */
        one.data++;
        one.len -= 2;
    }
    const tp_msg *m = &one;
    tp_buf *b;
    int rc = tp_get_buffer(s->ch, m->len, false, &b);
    if (rc == TP_ENOBUFS) {
        if (tp_flush(s->ch) < 0)
            return -1;
        rc = tp_get_buffer(s->ch, m->len, false, &b);
    }
    if (rc == TP_ENOBUFS) {
        counter_inc(&w->out_of_bufs);
        return 0;
    }
    if (rc < 0)
        return -1;
    memcpy(b->data, m->data, m->len);
    b->len = m->len;
    rc = run_drv_write(s->dc, b, w->write_flags);
    if (rc == TP_ENOBUFS) {
        tp_release(s->ch, b);
        counter_inc(&w->out_of_bufs);
        return 0;
    }
    return rc < 0 ? -1 : 1;
}

/* A rssl.json.v2 frame: "[" messages "," ... "]", each beginning with its length (4 bytes
 * little-endian, counting itself). Returns the number of messages, or -1 (a message failed,
 * or the frame is not laid out so). */
static int json_frame(tperf_worker *w, tperf_session *s, const uint8_t *p, uint32_t len)
{
    if (len < 2 || p[0] != '[' || p[len - 1] != ']') {
        printf("Error: WebSocket JSON frame of %u bytes is not an array.\n", len);
        return -1;
    }
    uint32_t at = 1, end = len - 1;
    int count = 0;
    while (at < end) {
        if (end - at < TPERF_MSG_JSON_LEN) {
            printf("Error: WebSocket JSON frame ends inside a message length.\n");
            return -1;
        }
        uint32_t n = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 |
                     (uint32_t)p[at + 3] << 24;
        if (n < TPERF_MSG_JSON_LEN || n > end - at) {
            printf("Error: WebSocket JSON message length %u does not fit its frame.\n", n);
            return -1;
        }
        if (worker_on_msg(w, s, p + at + TPERF_MSG_JSON_LEN, n - TPERF_MSG_JSON_LEN, 0) < 0)
            return -1;
        count++;
        at += n;
        if (at < end && p[at++] != ',') {
            printf("Error: WebSocket JSON messages are not separated by commas.\n");
            return -1;
        }
    }
    return count;
}

int worker_on_read(void *arg, run_drv_ch *c, const tp_msg *m)
{
    tperf_worker *w = arg;
    tperf_session *s = c->user;
    int k = 0; /* more messages in it (a JSON frame may hold several) */
    s->batch_n++;
    s->batch_bytes += m->len;
    if (s->mc) {
        uint32_t dseq;
        tp_mc_last_from(s->ch, &s->from, &dseq);
    }
    if (w->cfg->reflect_msgs) {
        int r = reflect(w, s, m);
        if (r < 0)
            return RUN_DRV_CLOSE;
        s->batch_sent += (uint64_t)r;
    } else if (s->json ? (k = json_frame(w, s, m->data, m->len) - 1) < -1
                       : worker_on_msg(w, s, m->data, m->len, 0) < 0) {
        static const char why[] = "Message callback returned failure.";
        err_set("thread %d: %s", w->index + 1, why);
        run_drv_mark(&w->drv, RUN_EXIT_FAILED, NULL);
        return err_set("%s", why), RUN_DRV_CLOSE;
    }
    if (k > 0)
        s->batch_n += (uint64_t)k;
    return 0;
}

/* A wrong message stopped the check of a read: the read's counts up to and including it
 * published with the batch, the test marked failed. Returns RUN_DRV_CLOSE. */
static int reads_failed(tperf_worker *w, tperf_session *s, uint64_t msgs, uint64_t bytes)
{
    s->batch_n += msgs;
    s->batch_bytes += bytes;
    static const char why[] = "Message callback returned failure.";
    err_set("thread %d: %s", w->index + 1, why);
    run_drv_mark(&w->drv, RUN_EXIT_FAILED, NULL);
    return err_set("%s", why), RUN_DRV_CLOSE;
}

int worker_on_reads(void *arg, run_drv_ch *c, const tp_msg *m, int n)
{
    tperf_worker *w = arg;
    tperf_session *s = c->user;
    if (w->cfg->reflect_msgs || s->json || s->mc || w->tracked || !s->recv_any) {
        for (int i = 0; i < n; i++) {
            int r = worker_on_read(arg, c, &m[i]);
            if (r != 0)
                return r;
        }
        return 0;
    }
    /* The usual message: the next number, no time stamp. Anything else (a gap, a stamped or
     * short message) goes through worker_on_msg, which the loop then continues after. */
    uint64_t seq = s->recv_seq, bytes = 0;
    const tp_msg *const end = m + n;
    for (const tp_msg *q = m; q != end; q++) {
        const uint8_t *p = q->data;
        const uint32_t len = q->len;
        bytes += len;
        if (__builtin_expect(
                len >= TPERF_MSG_HEAD && tperf_msg_seq(p) == seq && tperf_msg_stamp(p) == 0, 1)) {
            seq++;
            continue;
        }
        s->recv_seq = seq;
        if (worker_on_msg(w, s, p, len, 0) < 0)
            return reads_failed(w, s, (uint64_t)(q - m) + 1, bytes);
        seq = s->recv_seq;
    }
    s->recv_seq = seq;
    s->batch_n += (uint64_t)n;
    s->batch_bytes += bytes;
    return 0;
}

/* The messages of packed frame f before `upto` (an entry's start) and their bytes, for the
 * counts of a read stopped there. */
static uint64_t packed_before(const tp_frame *f, const uint8_t *upto, uint64_t *bytes)
{
    uint64_t k = 0;
    for (const uint8_t *p = f->data; p < upto; p += 2 + tp_packed_len(p), k++)
        *bytes += tp_packed_len(p);
    return k;
}

int worker_on_frames(void *arg, run_drv_ch *c, const tp_frame *f, int n)
{
    tperf_worker *w = arg;
    tperf_session *s = c->user;
    const tp_frame *const fend = f + n;
    if (w->cfg->reflect_msgs || s->json || s->mc || w->tracked || !s->recv_any) {
        for (const tp_frame *fr = f; fr != fend; fr++) {
            const uint8_t *at = fr->data;
            tp_msg m;
            while (tp_frame_next(fr, &at, &m)) {
                int r = worker_on_read(arg, c, &m);
                if (r != 0)
                    return r;
            }
        }
        return 0;
    }
    /* The usual message: the next number, no time stamp; in a packed frame, one length read
     * and the next entry's place (a frame's bytes are counted once). Anything else (a gap, a
     * stamped or short message) goes through worker_on_msg, which the walk then continues
     * after. */
    uint64_t seq = s->recv_seq, bytes = 0, msgs = (uint64_t)n; /* a packed frame adds the rest */
    for (const tp_frame *fr = f; fr != fend; fr++) {
        if (!fr->packed) {
            const uint8_t *p = fr->data;
            const uint32_t len = fr->len;
            bytes += len;
            if (__builtin_expect(len >= TPERF_MSG_HEAD && tperf_msg_seq(p) == seq &&
                                     tperf_msg_stamp(p) == 0,
                                 1)) {
                seq++;
                continue;
            }
            s->recv_seq = seq;
            if (worker_on_msg(w, s, p, len, 0) < 0)
                return reads_failed(w, s, msgs - (uint64_t)(fend - fr) + 1, bytes);
            seq = s->recv_seq;
            continue;
        }
        const uint8_t *e = fr->data, *const end = e + fr->len;
        do {
            const uint8_t *const at = e;
            const uint32_t len = tp_packed_len(at);
            e = at + 2 + len;
            if (__builtin_expect(len >= TPERF_MSG_HEAD && tperf_msg_seq(at + 2) == seq &&
                                     tperf_msg_stamp(at + 2) == 0,
                                 1)) {
                seq++;
                continue;
            }
            /* the entry read again from `at`: nothing of it kept for this path */
            s->recv_seq = seq;
            if (worker_on_msg(w, s, at + 2, tp_packed_len(at), 0) < 0) {
                msgs -= (uint64_t)(fend - fr); /* the frames before this one */
                msgs += packed_before(fr, e, &bytes);
                return reads_failed(w, s, msgs, bytes);
            }
            seq = s->recv_seq;
        } while (e != end);
        msgs += fr->packed - 1;
        bytes += fr->len - 2 * (uint64_t)fr->packed;
    }
    s->recv_seq = seq;
    s->batch_n += msgs;
    s->batch_bytes += bytes;
    return 0;
}

void worker_on_batch(void *arg, run_drv_ch *c)
{
    tperf_worker *w = arg;
    tperf_session *s = c->user;
    if (!s)
        return;
    counter_add(&w->msgs_recv, s->batch_n);
    counter_add(&w->bytes_recv, s->batch_bytes);
    if (w->tracked || s->mc)
        tperf_track_publish(w, s);
    if (w->cfg->reflect_msgs) {
        tp_stats st;
        tp_get_stats(s->ch, &st);
        counter_add(&w->msgs_sent, s->batch_sent);
        counter_add(&w->bytes_sent, st.bytes_written - s->written_mark);
        s->written_mark = st.bytes_written;
        s->sent += s->batch_sent;
    }
    s->batch_n = s->batch_bytes = s->batch_sent = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Sending                                                                                    */

/* Sends one unpacked message. Returns what tp_write returns (bytes still queued), or a TP_E*
 * code. */
static int send_one(tperf_worker *w, tperf_session *s, uint32_t size, uint64_t stamp,
                    uint64_t sched)
{
    tp_buf *b;
    int rc = tp_get_buffer(s->ch, size, false, &b);
    if (rc < 0)
        return rc;
    if (s->json)
        tperf_msg_fill_json(b->data, size, s->send_seq, stamp, sched);
    else
        tperf_msg_fill(b->data, size, s->send_seq, stamp, sched);
    b->len = size;
    rc = run_drv_write(s->dc, b, w->write_flags);
    if (rc < 0) {
        if (rc != TP_EFAIL)
            tp_release(s->ch, b);
        return rc;
    }
    s->send_seq++;
    return rc;
}

/* Sends messages k.. of a burst of n unpacked messages in runs written in place (tp_run_get,
 * one run per flush of the transport), the one the latency position pick gives stamped as it
 * is written. Advances *k over the messages queued. Returns what the last tp_run_write()
 * returned, or tp_run_get()'s TP_ENOBUFS, TP_EFAIL, or TP_EINVAL when the channel writes no
 * runs (shared memory, multicast, compression, WebSocket, fragments): send them one by one. */
static int send_runs(tperf_worker *w, tperf_session *s, uint32_t size, uint64_t n, int64_t pick,
                     uint64_t sched, uint64_t *k)
{
    int rc = 0;
    while (*k < n) {
        uint64_t left = n - *k;
        tp_run run;
        rc = tp_run_get(s->ch, size, left > UINT32_MAX ? UINT32_MAX : (uint32_t)left,
                        w->write_flags, &run);
        if (rc < 0)
            return rc;
        uint8_t *p = run.data;
        for (uint32_t i = 0; i < run.n; i++, p += run.stride) {
            uint64_t stamp = lra_stamp(pick, *k + i) ? (uint64_t)clk_ns() : 0;
            tperf_msg_fill(p, size, s->send_seq + i, stamp, sched);
        }
        rc = tp_run_write(s->ch, &run, run.n, w->write_flags);
        if (rc < 0)
            return rc;
        s->send_seq += run.n;
        *k += run.n;
    }
    return rc;
}

/* Writes m messages of size bytes (size >= TPERF_MSG_HEAD) without a time stamp at p,
 * p + size + 2, ..., numbered seq, seq + 1, ...: the span zeroed in one memset (the 2 bytes
 * between two messages too, which tp_pack_run() then writes), then each sequence number
 * stored, so that a message costs one store and no call. The bytes are those of
 * tperf_msg_fill() with a zero stamp. */
static void fill_unstamped(uint8_t *p, uint32_t size, uint32_t m, uint64_t seq)
{
    const size_t stride = (size_t)size + 2;
    memset(p, 0, stride * m - 2);
    for (const uint8_t *const end = p + stride * m; p != end; p += stride, seq++)
        memcpy(p + TPERF_MSG_SEQ, &seq, 8);
}

/* Sends messages k.. of a burst of n, packed -pack to a buffer: each buffer's messages written
 * in place at their places in the packed frame (tp_pack_run closes all but the last, which
 * tp_write closes), the one the latency position pick gives (every one with LRA_ALL) stamped
 * just before the buffer is written. Advances *k over the messages written. Returns what the
 * last tp_write() returned, or the failure of tp_get_buffer(), tp_pack_run() or tp_write()
 * (the messages of that buffer did not go). */
static int send_packed(tperf_worker *w, tperf_session *s, uint32_t size, uint64_t n, int64_t pick,
                       uint64_t sched, uint64_t *k)
{
    const uint32_t pack = (uint32_t)w->cfg->pack;
    int rc = 0;
    while (*k < n) {
        tp_buf *b;
        rc = tp_get_buffer(s->ch, (uint32_t)w->pack_bytes, true, &b);
        if (rc < 0)
            return rc;
        const uint32_t m = n - *k < pack ? (uint32_t)(n - *k) : pack;
        if (pick == LRA_ALL) {
            uint8_t *p = b->data;
            for (uint32_t i = 0; i < m; i++, p += size + 2)
                tperf_msg_fill(p, size, s->send_seq + i, (uint64_t)clk_ns(), sched);
        } else {
            fill_unstamped(b->data, size, m, s->send_seq);
            if (pick >= 0 && (uint64_t)pick >= *k && (uint64_t)pick - *k < m) {
                const uint64_t i = (uint64_t)pick - *k;
                tperf_msg_fill(b->data + i * (size + 2), size, s->send_seq + i, (uint64_t)clk_ns(),
                               sched);
            }
        }
        rc = tp_pack_run(s->ch, b, size, m - 1);
        if (rc == 0) {
            b->len = size;
            rc = tp_write(s->ch, b, w->write_flags);
            if (rc < 0 && rc != TP_EFAIL)
                tp_release(s->ch, b); /* refused: still ours */
        } else {
            tp_release(s->ch, b);
        }
        if (rc < 0)
            return rc;
        s->send_seq += m;
        *k += m;
    }
    return rc;
}

/* Sends the current tick's burst on session i: tick_burst() messages, the one the latency
 * random array picks time-stamped, packed -pack at a time (the last buffer of a burst is
 * written even when not full, so no message waits for the next tick), then with s->burst_hwm
 * the queue flushed. Returns 0, or -1 when the session was closed. */
int worker_send_burst(tperf_worker *w, tperf_session *s, const tick *t)
{
    const tperf_config *cfg = w->cfg;
    const uint32_t size = (uint32_t)cfg->msg_size;
    const uint64_t n = tick_burst(t, (uint64_t)cfg->msg_rate);
    const int64_t pick = w->lra ? lra_at(w->lra, t->second, t->index) : LRA_NONE;
    const uint64_t sched = (uint64_t)tick_deadline(t);
    const uint32_t pack = (uint32_t)cfg->pack;
    tp_stats st;
    tp_get_stats(s->ch, &st);
    const uint64_t written0 = st.bytes_written;

    uint64_t k = 0;
    int rc = 0;
    if (pack <= 1) {
        rc = s->json ? TP_EINVAL : send_runs(w, s, size, n, pick, sched, &k);
        if (rc == TP_EINVAL) { /* the channel writes no runs: one message at a time */
            rc = 0;
            for (; k < n; k++) {
                uint64_t stamp = lra_stamp(pick, k) ? (uint64_t)clk_ns() : 0;
                rc = send_one(w, s, size, stamp, sched);
                if (rc < 0)
                    break;
            }
        }
    } else if (!s->json) {
        rc = send_packed(w, s, size, n, pick, sched, &k);
    } else {
        tp_buf *b = NULL;
        uint32_t in_buf = 0;
        for (; k < n; k++) {
            if (!b) {
                rc = tp_get_buffer(s->ch, (uint32_t)w->pack_bytes, true, &b);
                if (rc < 0)
                    break;
                in_buf = 0;
            }
            uint64_t stamp = lra_stamp(pick, k) ? (uint64_t)clk_ns() : 0;
            if (s->json)
                tperf_msg_fill_json(b->data, size, s->send_seq++, stamp, sched);
            else
                tperf_msg_fill(b->data, size, s->send_seq++, stamp, sched);
            b->len = size;
            in_buf++;
            if (in_buf == pack || k + 1 == n) {
                rc = tp_write(s->ch, b, w->write_flags);
                if (rc < 0 && rc != TP_EFAIL)
                    tp_release(s->ch, b); /* refused: still ours */
                b = NULL;
            } else {
                rc = tp_pack(s->ch, b);
                if (rc < 0)
                    tp_release(s->ch, b);
            }
            if (rc < 0) { /* the messages of this buffer did not go */
                s->send_seq -= in_buf;
                k = k + 1 - in_buf;
                break;
            }
        }
    }
    /* With RUN_BURST_HWM the rest of the burst (all of it when under 64 KiB) leaves now, in
     * one send(), not after the loop's next wait has found the socket writable. */
    if (s->burst_hwm && (rc >= 0 || rc == TP_ENOBUFS) && tp_queued(s->ch) > 0) {
        int f = tp_flush(s->ch);
        if (f < 0)
            rc = f;
    }
    tp_get_stats(s->ch, &st);
    counter_add(&w->msgs_sent, k);
    counter_add(&w->bytes_sent, st.bytes_written - written0);
    s->sent += k;
    if (s->mc)
        tperf_track_publish(w, s);
    if (rc == TP_ENOBUFS) {
        counter_add(&w->out_of_bufs, n - k);
        return 0;
    }
    if (rc < 0) {
        printf("Failure while writing message bursts: %s\n", err_msg());
        run_drv_close(&w->drv, s->dc, err_msg());
        return -1;
    }
    return 0;
}
