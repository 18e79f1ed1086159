/*
 * rx_tun_io: a tunnel's traffic (docs/wire.md#tunnel-streams): the send store and the tool's
 * buffers, sending within the flow-control window, acknowledgements (cumulative, selective, NAK
 * ranges and retransmission), and receiving DATA in sequence (gaps NAKed, duplicates dropped, the
 * window checked, fragments reassembled).
 */
#include "rx_tun_int.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the store ------------------------------------------------------------------------------ */

int tun_store_init(rx_tunnel *t)
{
    uint32_t frag = (uint32_t)t->cos.max_fragment_size;
    t->class_size[0] = 256;
    t->class_size[1] = 1024;
    t->class_size[2] = frag + TUN_HDR_MAX > 1024 ? frag + TUN_HDR_MAX : 1024;
    t->chunk_cap = 64;
    if (!(t->chunk_ref = calloc(t->chunk_cap, sizeof(*t->chunk_ref))))
        return err_set("out of memory for a tunnel stream");
    return 0;
}

static void rec_list_free(tun_rec *r)
{
    while (r) {
        tun_rec *next = r->next;
        free(r);
        r = next;
    }
}

void tun_store_free(rx_tunnel *t)
{
    rec_list_free(t->head);
    if (t->open_rec)
        free(t->open_rec);
    for (int i = 0; i < TUN_NCLASS; i++)
        rec_list_free(t->free[i]);
    t->head = t->unsent = t->tail = t->open_rec = NULL;
    memset(t->free, 0, sizeof(t->free));
    free(t->chunk_ref);
    free(t->big);
    free(t->reasm);
    t->chunk_ref = NULL;
    t->big = t->reasm = NULL;
}

/* A record with room for need bytes, from the free lists (or the heap). */
static tun_rec *rec_get(rx_tunnel *t, uint32_t need)
{
    int cls = 0;
    while (cls < TUN_NCLASS && t->class_size[cls] < need)
        cls++;
    tun_rec *r;
    if (cls < TUN_NCLASS && t->free[cls]) {
        r = t->free[cls];
        t->free[cls] = r->next;
    } else {
        uint32_t cap = cls < TUN_NCLASS ? t->class_size[cls] : need;
        if (!(r = malloc(sizeof(*r) + cap))) {
            err_set("out of memory for a tunnel stream message of %u bytes", need);
            return NULL;
        }
        r->cap = cap;
    }
    r->cls = (uint8_t)cls;
    r->next = NULL;
    r->len = r->seq = r->chunk = 0;
    r->hdr = 0;
    r->flags = 0;
    t->nrec++;
    return r;
}

/* ---- application chunks (the original's buffer count) ------------------------------------- */

static uint32_t chunk_size(const rx_tunnel *t)
{
    return (uint32_t)t->cos.max_fragment_size + TUN_CHUNK_EXTRA;
}

static uint32_t *chunk_at(rx_tunnel *t, uint32_t id)
{
    return &t->chunk_ref[(t->chunk_head + (id - t->chunk_front_id)) % t->chunk_cap];
}

/* Takes need bytes of the newest chunk (or a new one). Returns the chunk id, or 0 when the
 * tunnel's buffer limit is reached. */
static uint32_t chunk_take(rx_tunnel *t, uint32_t need)
{
    if (t->chunk_n && chunk_size(t) - t->chunk_used >= need) {
        uint32_t id = t->chunk_front_id + t->chunk_n - 1;
        (*chunk_at(t, id))++;
        t->chunk_used += need;
        return id;
    }
    if (t->chunk_n >= t->limit) {
        err_set("No buffers are available from the buffer pool (%u in use).", t->chunk_n);
        return 0;
    }
    if (t->chunk_n == t->chunk_cap) {
        uint32_t cap = t->chunk_cap * 2;
        uint32_t *v = calloc(cap, sizeof(*v));
        if (!v) {
            err_set("out of memory for a tunnel stream");
            return 0;
        }
        for (uint32_t i = 0; i < t->chunk_n; i++)
            v[i] = t->chunk_ref[(t->chunk_head + i) % t->chunk_cap];
        free(t->chunk_ref);
        t->chunk_ref = v;
        t->chunk_cap = cap;
        t->chunk_head = 0;
    }
    if (!t->chunk_n)
        t->chunk_front_id = t->chunk_front_id ? t->chunk_front_id : 1;
    uint32_t id = t->chunk_front_id + t->chunk_n;
    t->chunk_n++;
    *chunk_at(t, id) = 1;
    t->chunk_used = need;
    return id;
}

/* A buffer of chunk id is given back: the chunk goes when it holds none. */
static void chunk_put(rx_tunnel *t, uint32_t id)
{
    if (!t->chunk_n || id < t->chunk_front_id || id - t->chunk_front_id >= t->chunk_n)
        return;
    uint32_t *ref = chunk_at(t, id);
    if (*ref)
        (*ref)--;
    while (t->chunk_n && t->chunk_ref[t->chunk_head] == 0) {
        t->chunk_head = (t->chunk_head + 1) % t->chunk_cap;
        t->chunk_front_id++;
        t->chunk_n--;
    }
    while (t->chunk_n && *chunk_at(t, t->chunk_front_id + t->chunk_n - 1) == 0)
        t->chunk_n--;
}

static void rec_put(rx_tunnel *t, tun_rec *r)
{
    if (r->flags & TR_APP)
        chunk_put(t, r->chunk);
    t->nrec--;
    if (r->cls < TUN_NCLASS) {
        r->next = t->free[r->cls];
        t->free[r->cls] = r;
    } else {
        free(r);
    }
}

/* Appends r to the queue of messages to send. */
static void enqueue(rx_tunnel *t, tun_rec *r)
{
    r->next = NULL;
    if (t->tail)
        t->tail->next = r;
    else
        t->head = r;
    t->tail = r;
    if (!t->unsent)
        t->unsent = r;
    t->info.queued++;
}

/* ---- the tool's buffers ---------------------------------------------------------------------- */

int rx_tunnel_get_buffer(rx_tunnel *t, uint32_t size, bool app, rx_tbuf **out)
{
    if (t->state != TS_OPEN || !(t->flags & TF_ACTIVE))
        return err_set("tunnel stream %d is not open", (int)t->app_id), TP_EFAIL;
    if (t->open_rec || t->big)
        return err_set("a buffer of tunnel stream %d is already open", (int)t->app_id), TP_EINVAL;
    if (size == 0 || size > t->cos.max_msg_size)
        return err_set("a tunnel buffer of %u bytes (the maximum message size is %llu)", size,
                       (unsigned long long)t->cos.max_msg_size),
               TP_EINVAL;
    if (t->nrec >= t->limit && !app)
        return err_set("tunnel stream %d holds %u messages (its limit)", (int)t->app_id, t->nrec),
               TP_ENOBUFS;
    if (size > t->cos.max_fragment_size) {
        if (!(t->big = malloc(size)))
            return err_set("out of memory for a tunnel message of %u bytes", size), TP_ENOBUFS;
        t->big_cap = size;
        t->big_app = app;
        t->tbuf.data = t->big;
        t->tbuf.len = size;
        *out = &t->tbuf;
        return 0;
    }
    uint32_t chunk = 0;
    if (app && !(chunk = chunk_take(t, size + TUN_CHUNK_EXTRA)))
        return TP_ENOBUFS;
    tun_rec *r = rec_get(t, size + TUN_HDR_MAX);
    if (!r) {
        if (chunk)
            chunk_put(t, chunk);
        return TP_ENOBUFS;
    }
    r->chunk = chunk;
    r->flags = app ? TR_APP : 0;
    r->hdr = (uint16_t)tun_data_header(r->data, t->domain, t->wire_id, t->stream_version, false,
                                       true, 0, 0, 0, 0);
    t->open_rec = r;
    t->tbuf.data = r->data + r->hdr;
    t->tbuf.len = size;
    *out = &t->tbuf;
    return 0;
}

int rx_tunnel_release(rx_tunnel *t, rx_tbuf *b)
{
    if (b != &t->tbuf || (!t->open_rec && !t->big))
        return err_set("not the open buffer of tunnel stream %d", (int)t->app_id), TP_EINVAL;
    if (t->big) {
        free(t->big);
        t->big = NULL;
        return 0;
    }
    rec_put(t, t->open_rec);
    t->open_rec = NULL;
    return 0;
}

/* Splits the open big buffer into fragments (records). */
static int fragment(rx_tunnel *t, uint32_t len)
{
    uint32_t frag = (uint32_t)t->cos.max_fragment_size;
    uint16_t id = ++t->frag_msg_id ? t->frag_msg_id : ++t->frag_msg_id;
    uint32_t off = 0, num = 1;
    int rc = 0;
    while (off < len && rc == 0) {
        uint32_t n = len - off < frag ? len - off : frag;
        uint32_t chunk = 0;
        tun_rec *r = NULL;
        if (t->big_app && !(chunk = chunk_take(t, n + TUN_CHUNK_EXTRA)))
            rc = TP_ENOBUFS;
        else if (!(r = rec_get(t, n + TUN_HDR_MAX)))
            rc = TP_ENOBUFS;
        if (rc) {
            if (chunk)
                chunk_put(t, chunk);
            break;
        }
        r->chunk = chunk;
        r->flags = t->big_app ? TR_APP : 0;
        r->hdr = (uint16_t)tun_data_header(r->data, t->domain, t->wire_id, t->stream_version, true,
                                           off + n == len, len, num++, id, RWF_DT_MSG);
        memcpy(r->data + r->hdr, t->big + off, n);
        r->len = r->hdr + n;
        enqueue(t, r);
        off += n;
    }
    free(t->big);
    t->big = NULL;
    return rc;
}

int rx_tunnel_submit(rx_tunnel *t, rx_tbuf *b)
{
    if (b != &t->tbuf || (!t->open_rec && !t->big))
        return err_set("not the open buffer of tunnel stream %d", (int)t->app_id), TP_EINVAL;
    if (b->len == 0 ||
        (t->big ? b->len > t->big_cap : b->len + t->open_rec->hdr > t->open_rec->cap)) {
        rx_tunnel_release(t, b);
        return err_set("a tunnel message of %u bytes does not fit its buffer", b->len), TP_EINVAL;
    }
    if (!(t->flags & TF_ACTIVE) || t->state != TS_OPEN) {
        rx_tunnel_release(t, b);
        return err_set("tunnel stream %d is not open", (int)t->app_id), TP_EFAIL;
    }
    if (t->big) {
        if (fragment(t, b->len) != 0)
            return TP_ENOBUFS;
    } else {
        tun_rec *r = t->open_rec;
        t->open_rec = NULL;
        r->len = r->hdr + b->len;
        if ((r->flags & TR_APP) && t->chunk_n && r->chunk == t->chunk_front_id + t->chunk_n - 1)
            t->chunk_used -= (b->len + TUN_CHUNK_EXTRA) - r->len; /* trimmed to what is used */
        enqueue(t, r);
    }
    return tun_transmit(t) < 0 ? TP_EFAIL : 0;
}

int rx_tunnel_submit_msg(rx_tunnel *t, const rwf_msg *m)
{
    uint8_t *scratch = t->ch->r->scratch;
    size_t len;
    if (rwf_msg_encode(m, scratch, RX_SCRATCH, &len) != RWF_OK)
        return err_push("encoding a %s for tunnel stream %d", rwf_msg_class_name(m->msg_class),
                        (int)t->app_id),
               TP_EINVAL;
    rx_tbuf *b;
    int rc = rx_tunnel_get_buffer(t, (uint32_t)len, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, scratch, len);
    b->len = (uint32_t)len;
    return rx_tunnel_submit(t, b);
}

int tun_queue_bytes(rx_tunnel *t, const uint8_t *msg, uint32_t len, bool nofc)
{
    tun_rec *r = rec_get(t, len + TUN_HDR_MAX);
    if (!r)
        return -1;
    r->hdr = (uint16_t)tun_data_header(r->data, t->domain, t->wire_id, t->stream_version, false,
                                       true, 0, 0, 0, 0);
    memcpy(r->data + r->hdr, msg, len);
    r->len = r->hdr + len;
    r->flags = nofc ? TR_NOFC : 0;
    enqueue(t, r);
    return 0;
}

int tun_queue_fin(rx_tunnel *t)
{
    tun_rec *r = rec_get(t, 1);
    if (!r)
        return -1;
    r->flags = TR_FIN | TR_NOFC;
    enqueue(t, r);
    return 0;
}

/* ---- sending --------------------------------------------------------------------------------- */

int tun_chan_write(rx_tunnel *t, const uint8_t *data, uint32_t len)
{
    rx_chan *ch = t->ch;
    if (ch->a.state != RXA_UP || ch->a.closed_by_app)
        return err_set("the channel of tunnel stream %d is down", (int)t->app_id);
    if (ch->a.buf_open)
        return TUN_BUSY; /* the tool is writing: the pass at the end of dispatch sends it */
    rx_buf *b;
    int rc = rx_get_buffer(ch, len, false, &b);
    if (rc == TP_ENOBUFS)
        return TUN_BUSY;
    if (rc < 0)
        return -1;
    memcpy(b->data, data, len);
    b->len = len;
    rc = rx_buf_commit(ch, b, 0);
    return rc == TP_ENOBUFS ? TUN_BUSY : rc < 0 ? -1 : 0;
}

static bool window_allows(const rx_tunnel *t, const tun_rec *r)
{
    if (t->cos.flow_control == RX_COS_FC_NONE || (r->flags & TR_NOFC))
        return true;
    return (int64_t)(r->len - r->hdr) + t->bytes_wait_ack <= t->send_window;
}

/* Sends one record (first time or again). Returns 0, TUN_WINDOW, TUN_BUSY or -1. */
static int send_rec(rx_tunnel *t, tun_rec *r, bool again)
{
    if (!window_allows(t, r))
        return TUN_WINDOW;
    if (r->flags & TR_FIN) {
        if (!again && !(r->flags & TR_SENT))
            r->seq = ++t->last_out;
        int rc = tun_send_ack(t, true, r->seq);
        if (rc == 0)
            r->flags |= TR_SENT;
        return rc;
    }
    if (!(r->flags & TR_SENT)) {
        r->seq = t->last_out + 1;
        rwf_wr32(r->data + TUN_AT_SEQ, r->seq);
    }
    if (again)
        r->data[TUN_AT_OPCODE] = TUN_OP_RETRANS;
    int rc = tun_chan_write(t, r->data, r->len);
    if (rc != 0)
        return rc;
    if (!(r->flags & TR_SENT)) {
        t->last_out = r->seq;
        r->flags |= TR_SENT;
        t->info.msgs_sent++;
    } else {
        t->info.retransmitted++;
    }
    t->bytes_wait_ack += r->len - r->hdr;
    return 0;
}

int tun_transmit(rx_tunnel *t)
{
    for (tun_rec *r = t->head; t->retx_pending && r && r != t->unsent; r = r->next) {
        if (!(r->flags & TR_RETX))
            continue;
        int rc = send_rec(t, r, true);
        if (rc != 0) {
            /* window full: the next ack sends it; channel busy: the next pass */
            if (rc == TUN_BUSY)
                t->needs_dispatch = true;
            return rc < 0 ? -1 : 0;
        }
        r->flags &= (uint8_t)~TR_RETX;
        t->retx_pending--;
    }
    while (t->unsent) {
        int rc = send_rec(t, t->unsent, false);
        if (rc != 0) {
            if (rc == TUN_BUSY)
                t->needs_dispatch = true;
            return rc < 0 ? -1 : 0;
        }
        t->unsent = t->unsent->next;
        t->info.queued--;
    }
    return 0;
}

int tun_send_ack(rx_tunnel *t, bool fin, uint32_t fin_seq)
{
    uint8_t buf[TUN_HDR_MAX + 16];
    uint32_t nak[2] = {0, 0};
    unsigned nnak = 0;
    uint32_t seq = fin ? fin_seq : t->in_accepted;
    if (!fin && (t->flags & TF_SEND_NAK) && tun_seq_diff(t->in_highest, t->in_accepted) > 0) {
        nak[0] = t->in_accepted + 1;
        nak[1] = t->in_highest;
        nnak = 1;
    }
    uint32_t n = tun_ack_msg(buf, t->domain, t->wire_id, fin ? TUN_ACKF_FIN : 0, seq, nak, nnak,
                             (int32_t)t->recv_window);
    int rc = tun_chan_write(t, buf, n);
    if (rc != 0)
        return rc;
    if (!fin) {
        if (nnak)
            t->info.naks_sent++;
        if (t->flags & TF_FIN_RECEIVED)
            t->flags |= TF_SENT_ACK_OF_FIN;
        t->flags &= ~(unsigned)TF_SEND_NAK;
        t->in_acked = t->in_accepted;
        t->in_unacked_bytes = 0;
    }
    return 0;
}

/* ---- acknowledgements received ------------------------------------------------------------------
 */

/* Frees the records at the head that are acknowledged. */
static void free_acked(rx_tunnel *t, uint32_t cum)
{
    while (t->head && t->head != t->unsent) {
        tun_rec *r = t->head;
        bool acked = (r->flags & TR_ACKED) || tun_seq_diff(r->seq, cum) <= 0;
        if (!acked)
            break;
        if (!(r->flags & (TR_ACKED | TR_RETX)) && !(r->flags & TR_FIN))
            t->bytes_wait_ack -= r->len - r->hdr;
        if (r->flags & TR_RETX)
            t->retx_pending--;
        if (r->flags & TR_FIN)
            t->flags |= TF_GOT_ACK_OF_FIN;
        t->head = r->next;
        if (!t->head)
            t->tail = NULL;
        rec_put(t, r);
    }
}

/* Marks the records of the selective-ack ranges. */
static void selective(rx_tunnel *t, const tun_hdr *h)
{
    for (unsigned i = 0; i < h->nsack; i++)
        for (tun_rec *r = t->head; r && r != t->unsent; r = r->next) {
            if (tun_seq_diff(r->seq, h->sack[2 * i]) < 0 ||
                tun_seq_diff(r->seq, h->sack[2 * i + 1]) > 0 || (r->flags & TR_ACKED))
                continue;
            if (!(r->flags & (TR_RETX | TR_FIN)))
                t->bytes_wait_ack -= r->len - r->hdr;
            if (r->flags & TR_RETX) {
                r->flags &= (uint8_t)~TR_RETX;
                t->retx_pending--;
            }
            r->flags |= TR_ACKED;
        }
}

/* Marks the records of the NAK ranges for retransmission. Returns 0, or -1 when one is no
 * longer held. */
static int naks(rx_tunnel *t, const tun_hdr *h)
{
    for (unsigned i = 0; i < h->nnak; i++) {
        uint32_t first = h->nak[2 * i], last = h->nak[2 * i + 1];
        if (tun_seq_diff(last, first) < 0 || tun_seq_diff(last, t->last_out) > 0 ||
            (t->head && tun_seq_diff(first, t->head->seq) < 0) || !t->head)
            return err_set("the peer asked for the retransmission of messages %u to %u, which "
                           "are not held (last sent %u, %s %u)",
                           first, last, t->last_out, t->head ? "oldest held" : "none held since",
                           t->head ? t->head->seq : t->last_out);
        for (tun_rec *r = t->head; r && r != t->unsent; r = r->next) {
            if (tun_seq_diff(r->seq, first) < 0 || tun_seq_diff(r->seq, last) > 0 ||
                (r->flags & (TR_RETX | TR_ACKED)))
                continue;
            if (!(r->flags & TR_FIN))
                t->bytes_wait_ack -= r->len - r->hdr;
            r->flags |= TR_RETX;
            t->retx_pending++;
        }
    }
    return 0;
}

/* The close handshake after an ACK (our FIN may now be acknowledged). */
static void after_ack_closing(rx_tunnel *t)
{
    if (t->state <= TS_SEND_FIN || t->state >= TS_CLOSED)
        return;
    if (!(t->flags & TF_GOT_ACK_OF_FIN))
        return;
    if (!(t->flags & TF_FIN_RECEIVED)) {
        if (t->state != TS_WAIT_FIN)
            tun_fin_timer(t); /* waiting for the peer's FIN */
        t->state = TS_WAIT_FIN;
    } else if (!(t->flags & TF_SENT_ACK_OF_FIN)) {
        t->state = TS_SEND_ACK_OF_FIN;
        t->needs_dispatch = true;
    } else if (t->flags & TF_STARTED_CLOSE) {
        t->state = TS_SEND_CLOSE;
        t->needs_dispatch = true;
    } else {
        t->state = TS_WAIT_CLOSE;
    }
}

static int on_ack(rx_tunnel *t, const tun_hdr *h)
{
    if (t->state < TS_SEND_AUTH || t->state == TS_SEND_REFRESH)
        return 0; /* an old message: ignored, as the original does */
    if (h->ack_flags & TUN_ACKF_FIN)
        return 1; /* a FIN: counted with the data (the caller) */
    if (tun_seq_diff(h->seq, t->last_out) > 0) {
        err_set("the peer acknowledged sequence number %u, which was never sent (last sent: %u)",
                h->seq, t->last_out);
        return tun_fail(t);
    }
    t->send_window = h->window;
    selective(t, h);
    if (naks(t, h) != 0)
        return tun_fail(t);
    free_acked(t, h->seq);
    if (t->state != TS_WAIT_AUTH && t->state < TS_SEND_FIN)
        t->response_at = 0;
    after_ack_closing(t);
    if (tun_transmit(t) != 0)
        return tun_fail(t);
    return 0;
}

/* ---- receiving ----------------------------------------------------------------------------------
 */

/* A FIN from the peer, in sequence. */
static int on_fin(rx_tunnel *t, uint32_t seq)
{
    int32_t diff = tun_seq_diff(seq, t->in_accepted);
    if (diff < 1) {
        if (t->in_acked == t->in_accepted)
            t->in_acked = t->in_accepted - 1; /* ack it again */
        t->needs_dispatch = true;
        return 0;
    }
    if (diff > 1) {
        if (tun_seq_diff(seq, t->in_highest) > 0)
            t->in_highest = seq;
        t->flags |= TF_SEND_NAK;
        t->needs_dispatch = true;
        return 0;
    }
    t->in_accepted++;
    if (tun_seq_diff(t->in_accepted, t->in_highest) > 0)
        t->in_highest = t->in_accepted;
    t->flags |= TF_FIN_RECEIVED;
    t->response_at = 0;
    t->needs_dispatch = true;
    if (t->state <= TS_OPEN) {
        t->state = TS_SEND_FIN;
        t->fin_tries = 0;
        rwf_state st = {.stream_state = RWF_STREAM_OPEN, .data_state = RWF_DATA_SUSPECT};
        st.text = RWF_STR("Received final message for stream, closing it.");
        return tun_status(t, &st, NULL);
    }
    if (t->state == TS_WAIT_FIN)
        t->state = TS_SEND_ACK_OF_FIN;
    return 0;
}

/* Delivers one complete inner message (bytes data[0..len)) of container ctype. */
static int deliver(rx_tunnel *t, const uint8_t *data, uint32_t len, uint8_t ctype)
{
    if (!(t->flags & (TF_ACTIVE | TF_FINAL_STATUS)))
        return 0;
    if (ctype != RWF_DT_MSG)
        return 0; /* opaque data: the perf tools send none */
    rwf_msg in;
    if (rwf_msg_decode(&in, rwf_buf_make(data, len)) != RWF_OK) {
        err_push("undecodable message inside tunnel stream %d", (int)t->app_id);
        return tun_fail(t);
    }
    t->info.msgs_received++;
    if (in.domain == RWF_DMT_LOGIN && !(t->flags & TF_PROVIDER) && t->state >= TS_WAIT_AUTH &&
        t->cos.auth_type == RX_COS_AU_OMM_LOGIN && in.stream_id == t->auth_stream) {
        return tun_on_auth(t, &in);
    }
    if (t->state < TS_OPEN && in.domain != RWF_DMT_LOGIN)
        return 0; /* not open yet (authentication): ignored, as the original does */
    return t->cb.on_msg ? t->cb.on_msg(t, &in) : 0;
}

/* A fragment in sequence: kept until the message is complete. */
static int on_fragment(rx_tunnel *t, const tun_hdr *h, rwf_buf part)
{
    if (h->frag_num == 1) {
        if (h->total > t->cos.max_msg_size || h->total < part.len) {
            err_set("fragmented tunnel message of %u bytes (the maximum is %llu)", h->total,
                    (unsigned long long)t->cos.max_msg_size);
            return tun_fail(t);
        }
        if (t->reasm_cap < h->total) {
            uint8_t *p = realloc(t->reasm, h->total);
            if (!p) {
                err_set("out of memory for a fragmented tunnel message of %u bytes", h->total);
                return tun_fail(t);
            }
            t->reasm = p;
            t->reasm_cap = h->total;
        }
        t->reasm_on = true;
        t->reasm_id = h->msg_id;
        t->reasm_total = h->total;
        t->reasm_len = 0;
        t->reasm_next = 1;
        t->reasm_ctype = h->ctype;
    }
    if (!t->reasm_on || h->msg_id != t->reasm_id || h->frag_num != t->reasm_next ||
        part.len > t->reasm_total - t->reasm_len) {
        err_set("tunnel fragment %u of message %u out of order (expected fragment %u of "
                "message %u)",
                h->frag_num, h->msg_id, t->reasm_next, t->reasm_id);
        return tun_fail(t);
    }
    memcpy(t->reasm + t->reasm_len, part.data, part.len);
    t->reasm_len += part.len;
    t->reasm_next++;
    if (t->reasm_len < t->reasm_total)
        return 0;
    t->reasm_on = false;
    return deliver(t, t->reasm, t->reasm_len, t->reasm_ctype);
}

/* DATA or RETRANS. */
static int on_data(rx_tunnel *t, const tun_hdr *h, const rwf_msg *m)
{
    if (t->state <= TS_WAIT_REFRESH || t->state == TS_SEND_REFRESH) {
        err_set("tunnel stream %d received a data message before it was open", (int)t->app_id);
        return tun_fail(t);
    }
    int32_t diff = tun_seq_diff(h->seq, t->in_accepted);
    if (diff < 1) {
        t->info.duplicates++;
        return 0;
    }
    if (diff > 1) {
        if (tun_seq_diff(h->seq, t->in_highest) > 0)
            t->in_highest = h->seq;
        t->flags |= TF_SEND_NAK;
        t->needs_dispatch = true;
        return 0;
    }
    t->in_accepted++;
    if (tun_seq_diff(t->in_accepted, t->in_highest) > 0)
        t->in_highest = t->in_accepted;
    t->needs_dispatch = true;
    bool login = m->payload.len > 3 && ((const uint8_t *)m->payload.data)[3] == RWF_DMT_LOGIN;
    if (!login && t->cos.flow_control != RX_COS_FC_NONE) {
        t->in_unacked_bytes += m->payload.len;
        if (t->in_unacked_bytes > t->recv_window) {
            err_set("the peer exceeded the flow-control window of tunnel stream %d: %lld bytes "
                    "unacknowledged, window %lld",
                    (int)t->app_id, (long long)t->in_unacked_bytes, (long long)t->recv_window);
            return tun_fail(t);
        }
    }
    if (h->data_flags & TUN_DF_FRAGMENTED)
        return on_fragment(t, h, m->payload);
    return deliver(t, (const uint8_t *)m->payload.data, m->payload.len, m->container_type);
}

int tun_on_generic(rx_tunnel *t, const rwf_msg *m)
{
    tun_hdr h;
    if (tun_hdr_decode(m, t->stream_version, &h) != 0)
        return tun_fail(t);
    if (h.opcode == TUN_OP_ACK) {
        int rc = on_ack(t, &h);
        return rc == 1 ? on_fin(t, h.seq) : rc;
    }
    return on_data(t, &h, m);
}
