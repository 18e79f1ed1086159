/*
 * rx_worker: the reactor's worker thread, which does all the I/O of the reactor's channels.
 *
 * One epoll set holds the worker's eventfd (the application's commands) and every channel's
 * socket. Per loop: commands (open, close, "this channel has output"), channel events that
 * could not be handed over before, reading (into the inbound ring, 256 messages per channel per
 * pass at most), writing (the outbound ring into the transport, then one flush), timers (pings
 * and the ping timeout every 100 ms, reconnect delays, handshake deadlines), then one publish of
 * the inbound ring and a wake-up of the application if it sleeps.
 *
 * A channel's connection has a session number (epoch) that grows each time it comes up; the
 * application stamps what it writes with the session it knows, and the worker drops records of
 * an older session (they were meant for a connection that is gone).
 */
#include "rx_int.h"

#include "clk.h"
#include "err.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define RX_READ_BUDGET 256
#define RX_INIT_TIMEOUT_NS (60 * CLK_NS_PER_SEC)
#define RX_CLOSE_WAIT_NS (1 * CLK_NS_PER_SEC)
#define RX_EVENTS 64

static inline void cnt_add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* ---- the inbound ring --------------------------------------------------------------------- */

/* Announces that the worker waits for inbound room, then looks once more (the application
 * wakes it after freeing room only when it sees the flag). */
static void want_in_room(rx_reactor *r)
{
    atomic_store_explicit(&r->in_full, 1, memory_order_seq_cst);
}

/* Pushes one record of type with payload data[0..len) for ch. Returns false when there is no
 * room now (in_full announced). */
static bool push(rx_reactor *r, rx_chan *ch, uint16_t type, const void *data, uint32_t len)
{
    rx_rec *rec = rx_ring_reserve(&r->in, RX_REC_HDR + len);
    if (!rec) {
        want_in_room(r);
        if (!(rec = rx_ring_reserve(&r->in, RX_REC_HDR + len)))
            return false;
    }
    rec->ptr = ch;
    rec->epoch = ch->w.epoch;
    rec->flags = 0;
    if (len)
        memcpy(rec + 1, data, len);
    rx_ring_commit(&r->in, rec, type, len);
    return true;
}

bool rx_push_msg(rx_reactor *r, rx_chan *ch, const tp_msg *m)
{
    if ((uint64_t)RX_REC_HDR + m->len <= rx_ring_max_record(&r->in) / 2)
        return push(r, ch, RX_IN_MSG, m->data, m->len);
    rx_rec *rec = rx_ring_reserve(&r->in, RX_REC_HDR + sizeof(void *));
    if (!rec) {
        want_in_room(r);
        if (!(rec = rx_ring_reserve(&r->in, RX_REC_HDR + sizeof(void *))))
            return false;
    }
    void *heap = malloc(m->len);
    if (!heap) {
        /* Cannot happen short of memory exhaustion; the message is lost, the peer is told by
         * the channel failing instead of silently. */
        return false;
    }
    memcpy(heap, m->data, m->len);
    rec->ptr = ch;
    rec->epoch = ch->w.epoch;
    rec->flags = 0;
    memcpy(rec + 1, &heap, sizeof(heap));
    rx_ring_commit_sized(&r->in, rec, RX_IN_BIG, m->len, rx_align8(RX_REC_HDR + sizeof(void *)));
    return true;
}

/* Publishes the inbound ring and wakes the application if it sleeps. */
static void publish_in(rx_reactor *r)
{
    if (!rx_ring_unpublished(&r->in))
        return;
    rx_ring_publish(&r->in);
    if (atomic_load_explicit(&r->app_sleep, memory_order_seq_cst) &&
        atomic_exchange_explicit(&r->app_sleep, 0, memory_order_seq_cst)) {
        uint64_t one = 1;
        ssize_t n = write(r->app_efd, &one, sizeof(one));
        (void)n;
    }
}

/* Queues a channel event; when the ring is full it waits in the channel (only one can wait:
 * the channel does nothing else until it is handed over). */
static void event(rx_reactor *r, rx_chan *ch, int type, const char *text)
{
    rx_wside *w = &ch->w;
    if (text != w->ev_text) { /* a new event, not one pushed again */
        w->ev_ns = clk_ns();
        snprintf(w->ev_text, sizeof(w->ev_text), "%s", text ? text : "");
    }
    w->ev_pending = type;
    if (type == RX_IN_UP) {
        rx_up up;
        memset(&up, 0, sizeof(up));
        tp_get_info(w->tp, &up.info);
        up.fd = tp_fd(w->tp);
        if (push(r, ch, RX_IN_UP, &up, sizeof(up)))
            w->ev_pending = 0;
        return;
    }
    /* text events: the time they happened, then the text */
    uint8_t rec[sizeof(int64_t) + RX_TEXT_MAX];
    size_t n = strlen(w->ev_text);
    memcpy(rec, &w->ev_ns, sizeof(int64_t));
    memcpy(rec + sizeof(int64_t), w->ev_text, n);
    if (push(r, ch, (uint16_t)type, rec, (uint32_t)(sizeof(int64_t) + n)))
        w->ev_pending = 0;
}

/* ---- epoll interest ------------------------------------------------------------------------ */

static uint32_t wanted_events(const rx_chan *ch)
{
    const rx_wside *w = &ch->w;
    if (w->state == RXW_CONNECTING) {
        short e = tp_events(w->tp);
        return (e & POLLIN ? EPOLLIN : 0) | (e & POLLOUT ? EPOLLOUT : 0);
    }
    uint32_t ev = 0;
    if (!w->in_blocked && !w->ev_pending && !w->closing)
        ev |= EPOLLIN;
    if (w->queued || w->out_wait || w->frag)
        ev |= EPOLLOUT;
    return ev;
}

/* Makes epoll watch the channel's current descriptor for what it needs now. */
static void watch(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    if (!w->tp)
        return;
    int fd = tp_fd(w->tp);
    uint32_t ev = wanted_events(ch);
    struct epoll_event e = {.events = ev, .data.ptr = ch};
    if (w->fd != fd) {
        if (w->fd >= 0)
            epoll_ctl(r->epfd, EPOLL_CTL_DEL, w->fd, NULL);
        if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e) != 0 && errno == EEXIST)
            epoll_ctl(r->epfd, EPOLL_CTL_MOD, fd, &e);
        w->fd = fd;
        w->events = ev;
    } else if (ev != w->events) {
        if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, fd, &e) != 0 && errno == ENOENT)
            epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e);
        w->events = ev;
    }
}

static void unwatch(rx_reactor *r, rx_chan *ch)
{
    if (ch->w.fd >= 0)
        epoll_ctl(r->epfd, EPOLL_CTL_DEL, ch->w.fd, NULL);
    ch->w.fd = -1;
}

/* ---- the channel table -------------------------------------------------------------------- */

static void table_add(rx_reactor *r, rx_chan *ch)
{
    ch->w.slot = (int)r->wn;
    r->wch[r->wn++] = ch;
}

static void table_remove(rx_reactor *r, rx_chan *ch)
{
    int s = ch->w.slot;
    r->wch[s] = r->wch[--r->wn];
    r->wch[s]->w.slot = s;
    ch->w.slot = -1;
}

/* ---- the outbound ring --------------------------------------------------------------------- */

/* Drops every record of ch's ring (a lost or closed connection); heap messages are freed. */
static void drop_out(rx_chan *ch)
{
    rx_rec *rec;
    uint64_t n = 0;
    while ((rec = rx_ring_peek(&ch->out))) {
        if (rec->type == RX_OUT_BIG)
            free(rec->ptr);
        rx_ring_consume(&ch->out, rec);
        n++;
    }
    rx_ring_release(&ch->out);
    if (n)
        cnt_add(&ch->out_dropped, n);
}

/* Copies a packed record's messages into one packed transport buffer. */
static int fill_packed(tp_channel *tp, tp_buf *b, const uint8_t *p, uint32_t len, uint64_t *count)
{
    const uint8_t *end = p + len;
    while (p + 2 <= end) {
        uint32_t l = ((uint32_t)p[0] << 8) | p[1];
        p += 2;
        if (l > (uint32_t)(end - p) || l > b->len)
            return err_set("packed record is inconsistent"), TP_EINVAL;
        memcpy(b->data, p, l);
        b->len = l;
        p += l;
        (*count)++;
        if (p < end && tp_pack(tp, b) != 0)
            return TP_EINVAL;
    }
    return 0;
}

/* Copies one outbound record into a transport buffer (*out), counting its messages. Returns
 * RX_WR_DONE, RX_WR_BLOCKED, RX_WR_REFUSED or RX_WR_FAILED. */
static int fill_rec(rx_chan *ch, const rx_rec *rec, tp_buf **out, uint64_t *count)
{
    tp_channel *tp = ch->w.tp;
    bool packed = rec->type == RX_OUT_PACKED;
    const uint8_t *data = rec->type == RX_OUT_BIG ? rec->ptr : (const uint8_t *)(rec + 1);
    uint32_t size = packed ? rec->len - 2 : rec->len;
    tp_buf *b;
    int rc = tp_get_buffer(tp, size, packed, &b);
    if (rc == TP_ENOBUFS) {
        if (tp_flush(tp) < 0)
            return RX_WR_FAILED;
        rc = tp_get_buffer(tp, size, packed, &b);
    }
    if (rc == TP_ENOBUFS)
        return RX_WR_BLOCKED;
    if (rc == TP_EINVAL)
        return RX_WR_REFUSED; /* the transport cannot carry it: dropped with a warning */
    if (rc < 0)
        return RX_WR_FAILED;
    *count = 1;
    if (packed) {
        *count = 0;
        if (fill_packed(tp, b, data, rec->len, count) != 0) {
            tp_release(tp, b);
            return RX_WR_REFUSED;
        }
    } else {
        memcpy(b->data, data, rec->len);
        b->len = rec->len;
    }
    *out = b;
    return RX_WR_DONE;
}

/* Writes one outbound record into the transport (converted to JSON on a rssl.json.v2
 * channel). */
static int write_rec(rx_reactor *r, rx_chan *ch, const rx_rec *rec)
{
    tp_channel *tp = ch->w.tp;
    tp_buf *b = NULL;
    uint64_t count = 0;
    int rc = ch->w.json ? rx_json_fill(r, ch, rec, &b, &count) : fill_rec(ch, rec, &b, &count);
    if (rc != RX_WR_DONE)
        return rc;
    rc = tp_write(tp, b, rec->flags);
    if (rc == TP_ECALLAGAIN) {
        ch->w.frag = b;
        ch->w.frag_flags = rec->flags;
        ch->w.out_wait = true;
        cnt_add(&ch->msgs_written, count);
        return RX_WR_TAKEN_BLOCKED;
    }
    if (rc == TP_ENOBUFS) {
        tp_release(tp, b);
        return RX_WR_BLOCKED;
    }
    if (rc < 0) {
        if (rc != TP_EFAIL)
            tp_release(tp, b);
        return rc == TP_EFAIL ? RX_WR_FAILED : RX_WR_REFUSED;
    }
    cnt_add(&ch->msgs_written, count);
    return RX_WR_DONE;
}

void rx_push_warning(rx_reactor *r, rx_chan *ch, const char *text)
{
    uint8_t rec[sizeof(int64_t) + RX_TEXT_MAX];
    int64_t now = clk_ns();
    size_t n = strnlen(text, RX_TEXT_MAX);
    memcpy(rec, &now, sizeof(now));
    memcpy(rec + sizeof(now), text, n);
    if (!push(r, ch, RX_IN_WARNING, rec, (uint32_t)(sizeof(now) + n)))
        cnt_add(&ch->warnings_lost, 1);
}

/* Tells the application that a message it submitted was not sent. */
static void warn_refused(rx_reactor *r, rx_chan *ch, const rx_rec *rec)
{
    char text[RX_TEXT_MAX];
    snprintf(text, sizeof(text), "a message of %u bytes was not sent: %s", rec->len, err_msg());
    cnt_add(&ch->out_dropped, 1);
    rx_push_warning(r, ch, text);
}

static void chan_failed(rx_reactor *r, rx_chan *ch);
static void finish_close(rx_reactor *r, rx_chan *ch);

/* Moves ch's outbound records into the transport and flushes once. */
static void drain_out(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    if (w->state != RXW_ACTIVE)
        return drop_out(ch);
    w->out_wait = false;
    if (w->frag) {
        int rc = tp_flush(w->tp);
        if (rc >= 0)
            rc = tp_write(w->tp, w->frag, w->frag_flags);
        if (rc == TP_ECALLAGAIN) {
            w->out_wait = true;
            watch(r, ch);
            return;
        }
        w->frag = NULL;
        if (rc == TP_EFAIL)
            return chan_failed(r, ch);
    }
    rx_rec *rec;
    while ((rec = rx_ring_peek(&ch->out))) {
        int rc = RX_WR_DONE;
        if (rec->epoch == w->epoch)
            rc = write_rec(r, ch, rec);
        else
            cnt_add(&ch->out_dropped, 1);
        if (rc == RX_WR_BLOCKED) {
            w->out_wait = true;
            break;
        }
        if (rc == RX_WR_REFUSED)
            warn_refused(r, ch, rec);
        if (rec->type == RX_OUT_BIG)
            free(rec->ptr);
        rx_ring_consume(&ch->out, rec);
        if (rc == RX_WR_FAILED) {
            rx_ring_release(&ch->out);
            return chan_failed(r, ch);
        }
        if (rc == RX_WR_TAKEN_BLOCKED)
            break;
    }
    rx_ring_release(&ch->out);
    int q = tp_queued(w->tp) ? tp_flush(w->tp) : 0;
    if (q < 0)
        return chan_failed(r, ch);
    w->queued = q > 0;
    if (w->closing && !w->queued && !w->frag && !w->out_wait)
        return finish_close(r, ch);
    watch(r, ch);
}

/* ---- connection life ----------------------------------------------------------------------- */

/* The handshake finished: the session starts. */
static void go_active(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    w->state = RXW_ACTIVE;
    w->epoch++;
    w->attempts = 0;
    w->more_input = true;
    if (rx_json_up(r, ch) != 0)
        return chan_failed(r, ch);
    if (ch->hwm)
        tp_set_high_water_mark(w->tp, ch->hwm);
    cnt_add(&ch->connects, 1);
    event(r, ch, RX_IN_UP, NULL);
    drop_out(ch); /* anything left belongs to an older session */
    watch(r, ch);
}

/* Starts a connection attempt (consumer, non-interactive provider). */
static void start_connect(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    w->state = RXW_CONNECTING;
    w->retry_at = clk_ns() + RX_INIT_TIMEOUT_NS;
    if (tp_connect(&ch->tp, &w->tp) != 0) {
        w->tp = NULL;
        return chan_failed(r, ch);
    }
    w->fd = -1;
    watch(r, ch);
}

/* Ends the channel for good after a close request: CLOSED is the last record about it. */
static void finish_close(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    unwatch(r, ch);
    tp_close(w->tp);
    w->tp = NULL;
    w->frag = NULL;
    drop_out(ch);
    w->state = RXW_DEAD;
    w->finished = true;
    event(r, ch, RX_IN_CLOSED, NULL);
    if (!w->ev_pending)
        table_remove(r, ch);
}

/* The connection failed or was lost (err_msg() says why): tell the application, and reconnect
 * when the role does and trying again can heal it (not after a final failure, err_is_final:
 * a host name that does not resolve, a certificate or a sub-protocol refused). */
static void chan_failed(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    const bool final = err_is_final();
    char text[RX_TEXT_MAX];
    const char *why = err_msg();
    snprintf(text, sizeof(text), "%s", why[0] ? why : "connection lost");
    unwatch(r, ch);
    tp_close(w->tp);
    w->tp = NULL;
    w->frag = NULL;
    w->queued = w->out_wait = w->more_input = w->in_blocked = w->jr_open = false;
    drop_out(ch);
    if (w->closing)
        return finish_close(r, ch);
    w->attempts++;
    bool retry = !final && (ch->reconnect_limit < 0 || w->attempts <= ch->reconnect_limit);
    if (!retry) {
        w->state = RXW_DEAD;
        return event(r, ch, RX_IN_DOWN, text);
    }
    int64_t delay = (int64_t)ch->reconnect_min_ms;
    for (int i = 1; i < w->attempts && delay < ch->reconnect_max_ms; i++)
        delay *= 2;
    if (delay > ch->reconnect_max_ms)
        delay = ch->reconnect_max_ms;
    w->state = RXW_RETRY;
    w->retry_at = clk_ns() + delay * 1000000;
    cnt_add(&ch->reconnects, 1);
    event(r, ch, RX_IN_DOWN_RECONN, text);
}

/* Advances the handshake. */
static void on_handshake(rx_reactor *r, rx_chan *ch)
{
    int rc = tp_init(ch->w.tp);
    if (rc == TP_ACTIVE)
        return go_active(r, ch);
    if (rc < 0)
        return chan_failed(r, ch);
    if (rc == TP_FD_CHANGE)
        ch->w.fd = -1; /* the old descriptor is gone (and epoll forgot it) */
    watch(r, ch);
}

/* Reads the open JSON frame on (rx_json_read), counting its messages in ch's msgs_read when
 * it stops. Returns 1 (frame done), 0 (blocked on the inbound ring) or -1 (channel failed). */
static int json_read(rx_reactor *r, rx_chan *ch, uint64_t *n)
{
    int rc = rx_json_read(r, ch, n);
    if (rc > 0)
        return 1;
    cnt_add(&ch->msgs_read, *n);
    if (rc < 0) {
        chan_failed(r, ch);
        return -1;
    }
    ch->w.more_input = true;
    watch(r, ch);
    return 0;
}

/* Reads what the channel has, up to the budget. */
static void read_chan(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    if (w->in_blocked) {
        if (!rx_push_msg(r, ch, &w->pend))
            return;
        w->in_blocked = false;
        watch(r, ch);
    }
    uint64_t n = 0;
    if (w->jr_open && json_read(r, ch, &n) <= 0)
        return;
    for (int i = 0; i < RX_READ_BUDGET; i++) {
        tp_msg m;
        int rc = tp_read(w->tp, &m);
        if (rc < 0) {
            cnt_add(&ch->msgs_read, n);
            return chan_failed(r, ch);
        }
        if ((rc & TP_READ_MSG) && w->json) {
            rx_json_frame(ch, &m);
            if (json_read(r, ch, &n) <= 0)
                return;
        } else if (rc & TP_READ_MSG) {
            n++;
            if (!rx_push_msg(r, ch, &m)) {
                w->pend = m;
                w->in_blocked = true;
                w->more_input = true;
                cnt_add(&ch->msgs_read, n);
                watch(r, ch);
                return;
            }
        }
        if (!(rc & TP_READ_MORE)) {
            w->more_input = false;
            cnt_add(&ch->msgs_read, n);
            return;
        }
    }
    w->more_input = true;
    cnt_add(&ch->msgs_read, n);
}

/* ---- commands ---------------------------------------------------------------------------- */

static void cmd_open(rx_reactor *r, rx_chan *ch)
{
    table_add(r, ch);
    if (ch->accepted) {
        ch->w.tp = ch->accepted;
        ch->accepted = NULL;
        ch->w.state = RXW_CONNECTING;
        ch->w.retry_at = clk_ns() + RX_INIT_TIMEOUT_NS;
        return on_handshake(r, ch);
    }
    start_connect(r, ch);
}

static void cmd_close(rx_reactor *r, rx_chan *ch)
{
    rx_wside *w = &ch->w;
    w->closing = true;
    if (w->state == RXW_ACTIVE && !w->ev_pending) {
        drain_out(r, ch); /* may finish the close, or fail the channel (which finishes it) */
        if (w->state == RXW_ACTIVE) {
            w->retry_at = clk_ns() + RX_CLOSE_WAIT_NS; /* give the output a moment */
            return;
        }
    }
    if (!w->finished)
        finish_close(r, ch);
}

/* Handles the application's commands. Returns false on STOP. */
static bool commands(rx_reactor *r)
{
    rx_rec *rec;
    bool go = true;
    while (go && (rec = rx_ring_peek(&r->cmd))) {
        rx_chan *ch = rec->ptr;
        switch (rec->type) {
        case RX_CMD_OPEN:
            cmd_open(r, ch);
            break;
        case RX_CMD_CLOSE:
            cmd_close(r, ch);
            break;
        case RX_CMD_WAKE:
            atomic_store_explicit(&ch->flush_req, 0, memory_order_seq_cst);
            if (!ch->w.closing || ch->w.state == RXW_ACTIVE)
                drain_out(r, ch);
            break;
        case RX_CMD_STOP:
            go = false;
            break;
        }
        rx_ring_consume(&r->cmd, rec);
    }
    rx_ring_release(&r->cmd);
    return go;
}

/* ---- timers and pending work ---------------------------------------------------------------- */

/* Handles one channel's time-driven work. */
static void chan_timers(rx_reactor *r, rx_chan *ch, int64_t now, bool tick)
{
    rx_wside *w = &ch->w;
    if (w->ev_pending)
        return;
    if (w->state == RXW_RETRY && now >= w->retry_at) {
        start_connect(r, ch);
    } else if (w->state == RXW_CONNECTING && now >= w->retry_at) {
        err_set("the connection handshake timed out");
        chan_failed(r, ch);
    } else if (w->state == RXW_ACTIVE && w->closing && now >= w->retry_at) {
        finish_close(r, ch);
    } else if (w->state == RXW_ACTIVE && tick) {
        if (tp_tick(w->tp, (uint64_t)now) < 0)
            return chan_failed(r, ch);
        if (tp_queued(w->tp) && !w->queued) {
            int q = tp_flush(w->tp);
            if (q < 0)
                return chan_failed(r, ch);
            w->queued = q > 0;
            watch(r, ch);
        }
    }
}

/* Retries what waited for inbound room, reads buffered input, runs timers. Returns the time
 * the next timer is due. Sets *busy when work is left that needs no waiting. */
static int64_t pending_work(rx_reactor *r, int64_t now, bool *busy)
{
    bool tick = now >= r->next_tick;
    if (tick)
        r->next_tick = now + RX_TICK_NS;
    int64_t due = r->next_tick;
    for (unsigned i = 0; i < r->wn;) {
        rx_chan *ch = r->wch[i];
        rx_wside *w = &ch->w;
        if (w->ev_pending) {
            if (w->ev_pending == RX_IN_CLOSED) {
                event(r, ch, RX_IN_CLOSED, NULL);
                if (!w->ev_pending) {
                    table_remove(r, ch);
                    continue; /* slot i holds another channel now */
                }
            } else {
                event(r, ch, w->ev_pending, w->ev_text);
                if (!w->ev_pending)
                    watch(r, ch);
            }
        }
        chan_timers(r, ch, now, tick);
        if (r->wn > i && r->wch[i] != ch)
            continue;
        if (!w->ev_pending && w->state == RXW_ACTIVE && !w->closing &&
            (w->more_input || w->in_blocked))
            read_chan(r, ch);
        if (w->more_input && !w->in_blocked && w->state == RXW_ACTIVE)
            *busy = true;
        if ((w->state == RXW_RETRY || w->state == RXW_CONNECTING || w->closing) &&
            w->retry_at < due)
            due = w->retry_at;
        i++;
    }
    return due;
}

/* Handles what epoll reported. */
static void on_events(rx_reactor *r, struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        rx_chan *ch = ev[i].data.ptr;
        if (!ch) {
            uint64_t v;
            ssize_t k = read(r->worker_efd, &v, sizeof(v));
            (void)k;
            continue;
        }
        rx_wside *w = &ch->w;
        if (!w->tp || w->fd < 0)
            continue; /* closed earlier in this batch */
        if (w->state == RXW_CONNECTING) {
            on_handshake(r, ch);
            continue;
        }
        if (w->state != RXW_ACTIVE)
            continue;
        if ((ev[i].events & EPOLLOUT) && w->tp)
            drain_out(r, ch);
        if ((ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && w->tp && !w->ev_pending &&
            !w->closing && w->state == RXW_ACTIVE)
            read_chan(r, ch);
    }
}

/* ---- the thread ------------------------------------------------------------------------------ */

/* Closes everything at the end (no events: the application is destroying the reactor). */
static void stop_all(rx_reactor *r)
{
    for (unsigned i = 0; i < r->wn; i++) {
        rx_chan *ch = r->wch[i];
        unwatch(r, ch);
        tp_close(ch->w.tp);
        ch->w.tp = NULL;
        drop_out(ch);
    }
    r->wn = 0;
    /* Channels the worker never opened may still hold the channel they were given. */
    rx_rec *rec;
    while ((rec = rx_ring_peek(&r->cmd))) {
        rx_chan *ch = rec->ptr;
        if (rec->type == RX_CMD_OPEN && ch->accepted) {
            tp_close(ch->accepted);
            ch->accepted = NULL;
        }
        rx_ring_consume(&r->cmd, rec);
    }
    rx_ring_release(&r->cmd);
}

/* Waits up to wait_ns for events on r->epfd: epoll_pwait2 to the nanosecond where the kernel has
 * it, else epoll_wait with the wait rounded up to whole milliseconds (r->no_pwait2 remembers the
 * kernel's ENOSYS). Returns the number of events, 0 on a timeout or an interrupted wait. */
static int wait_epoll(rx_reactor *r, struct epoll_event *ev, int64_t wait_ns)
{
    int n = -1;
    if (!r->no_pwait2) {
        struct timespec ts = clk_timespec(wait_ns);
        n = epoll_pwait2(r->epfd, ev, RX_EVENTS, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n < 0 ? 0 : n;
        r->no_pwait2 = true;
    }
    int64_t ms = (wait_ns + 999999) / 1000000;
    n = epoll_wait(r->epfd, ev, RX_EVENTS, ms > 1000 ? 1000 : (int)ms);
    return n < 0 ? 0 : n;
}

/* Sleeps in epoll until the application or a socket needs the worker, or the next timer. */
static int wait_events(rx_reactor *r, struct epoll_event *ev, int64_t due, bool busy)
{
    int64_t now = clk_ns();
    int64_t wait = busy ? 0 : (due > now ? due - now : 0);
    if (wait > 0) {
        atomic_store_explicit(&r->worker_sleep, 1, memory_order_seq_cst);
        if (rx_ring_pending(&r->cmd))
            wait = 0;
    }
    int n = wait_epoll(r, ev, wait);
    atomic_store_explicit(&r->worker_sleep, 0, memory_order_relaxed);
    return n;
}

void *rx_worker_main(void *arg)
{
    rx_reactor *r = arg;
    if (r->bind && cpu_bind(&r->cpu) != 0) {
        snprintf(r->start_err, sizeof(r->start_err),
                 "Error: Failed to bind the reactor worker thread to %s: %s", r->cpu.text,
                 err_msg());
        atomic_store_explicit(&r->start_state, -1, memory_order_release);
        return NULL;
    }
    atomic_store_explicit(&r->start_state, 1, memory_order_release);
    struct epoll_event ev[RX_EVENTS];
    r->next_tick = clk_ns() + RX_TICK_NS;
    for (;;) {
        if (!commands(r))
            break;
        bool busy = false;
        int64_t due = pending_work(r, clk_ns(), &busy);
        publish_in(r);
        int n = wait_events(r, ev, due, busy);
        on_events(r, ev, n);
        publish_in(r);
    }
    stop_all(r);
    return NULL;
}
