/* The seqMCast read and write paths. Reading: a batch of datagrams per recvmmsg(), each one
 * put through the loss generator, checked whole (tp_mc_parse), its sequence number given to
 * the sender tracker, then its messages handed out in place. Writing: the datagram is built
 * in place in a slot (header, length prefixes, messages), numbered when it is written, and
 * the queued slots leave with one sendmmsg(). */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_mc_int.h"

void tp_mc_write_hdr(const tp_channel *ch, uint8_t *out, uint8_t flags, uint32_t seq)
{
    tp_mc_hdr h = {.version = TP_MC_VERSION,
                   .flags = flags,
                   .protocol_type = ch->protocol_type,
                   .hdr_len = TP_MC_HDR_LEN,
                   .instance_id = ch->mc->instance_id,
                   .rwf_major = ch->rwf_major,
                   .rwf_minor = ch->rwf_minor,
                   .seq = seq};
    tp_mc_hdr_encode(&h, out);
}

static int state_err(tp_channel *ch)
{
    if (ch->state == TP_STATE_CLOSED)
        return tp_chan_refail(ch);
    err_set("channel is not active");
    return TP_EINVAL;
}

/* ---- reading ------------------------------------------------------------------------- */

/* xorshift64*: the loss generator's sequence */
static inline uint32_t rand32(tp_mc_chan *mc)
{
    uint64_t x = mc->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    mc->rng = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

static void note_bad(tp_mc_chan *mc, tp_mc_bad kind, uint32_t off, uint32_t len,
                     const tp_mc_from *from)
{
    mc->st.bad++;
    mc->st.bad_kind[kind]++;
    mc->bad_kind = (uint8_t)kind;
    mc->bad_off = off;
    mc->bad_len = len;
    mc->bad_from = *from;
}

/* Looks at datagram i of the batch. Returns 1 when it holds messages (now mc->cur), 2 for a
 * ping, 0 when it was dropped (loss generator, malformed). */
static int take(tp_channel *ch, unsigned i)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(mc->loss_thr) && rand32(mc) < mc->loss_thr) {
        mc->st.loss_dropped++;
        return 0;
    }
    const uint8_t *p = mc->rx_mem + (size_t)i * mc->slot;
    uint32_t len = mc->rx_msg[i].msg_len;
    tp_mc_from from = {.addr = ntohl(mc->rx_src[i].sin_addr.s_addr),
                       .port = ntohs(mc->rx_src[i].sin_port)};
    mc->st.pkts_recv++;
    ch->st.bytes_read += len;
    if (TP_UNLIKELY(mc->rx_msg[i].msg_hdr.msg_flags & MSG_TRUNC)) {
        note_bad(mc, TP_MC_BAD_OVERSIZE, mc->slot, len, &from);
        return 0;
    }
    tp_mc_hdr h;
    uint32_t bad_off = 0;
    int r = tp_mc_parse(p, len, ch->protocol_type, &h, &bad_off);
    if (len >= 6)
        from.instance_id = (uint16_t)tp_get16(p + 4);
    if (TP_UNLIKELY(r < 0)) {
        note_bad(mc, (tp_mc_bad)(-1 - r), bad_off, len, &from);
        return 0;
    }
    ch->rx_seen = 1;
    if (TP_UNLIKELY(h.flags & TP_MC_FLAG_RETRANS))
        mc->st.retrans_recv++;
    if (r == 0) {
        mc->st.pings_recv++;
        ch->st.pings_read++;
        tp_seqtrack_ping(&mc->trk, &from, h.seq, NULL);
        return 2;
    }
    tp_seqtrack_data(&mc->trk, &from, h.seq, NULL);
    mc->cur = p;
    mc->cur_len = len;
    mc->cur_off = h.hdr_len;
    mc->cur_from = from;
    mc->cur_seq = h.seq;
    mc->have_last = 1;
    return 1;
}

/* One recvmmsg() into the batch. Returns the datagrams received (0 = none), or TP_EFAIL. */
static int receive(tp_channel *ch)
{
    tp_mc_chan *mc = ch->mc;
    for (unsigned i = 0; i < TP_MC_RX_BATCH; i++) {
        struct msghdr *h = &mc->rx_msg[i].msg_hdr;
        h->msg_name = &mc->rx_src[i];
        h->msg_namelen = sizeof(mc->rx_src[i]);
        h->msg_iov = &mc->rx_iov[i];
        h->msg_iovlen = 1;
        h->msg_control = NULL;
        h->msg_controllen = 0;
        h->msg_flags = 0;
    }
    for (;;) {
        int n = recvmmsg(ch->fd, mc->rx_msg, TP_MC_RX_BATCH, MSG_DONTWAIT, NULL);
        ch->st.recv_calls++;
        if (n >= 0) {
            mc->rx_n = (unsigned)n;
            mc->rx_i = 0;
            return n;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNREFUSED)
            return 0;
        err_set_errno(errno, "seqMCast receive on %s", mc->recv_name);
        return tp_chan_fail(ch);
    }
}

/* More to hand out without waiting: entries left in the datagram, datagrams left in the
 * batch, or a full batch (the socket probably holds more). */
static inline int more(const tp_mc_chan *mc)
{
    return mc->cur || mc->rx_i < mc->rx_n || mc->rx_n == TP_MC_RX_BATCH ? TP_READ_MORE : 0;
}

int tp_mc_read(tp_channel *ch, tp_msg *msg)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    int did_io = 0;
    for (;;) {
        while (mc->cur) {
            const uint8_t *m;
            uint32_t len;
            if (!tp_mc_next(mc->cur, mc->cur_len, &mc->cur_off, &m, &len)) {
                mc->cur = NULL;
                break;
            }
            if (mc->cur_off >= mc->cur_len)
                mc->cur = NULL;
            if (len == 0)
                continue; /* an empty entry carries nothing */
            msg->data = m;
            msg->len = len;
            ch->st.msgs_read++;
            return TP_READ_MSG | more(mc);
        }
        while (mc->rx_i < mc->rx_n) {
            int r = take(ch, mc->rx_i++);
            if (r == 1)
                break;
            if (r == 2)
                return TP_READ_PING | more(mc);
        }
        if (mc->cur)
            continue;
        if (did_io)
            return more(mc);
        int n = receive(ch);
        if (n <= 0)
            return n;
        did_io = 1;
    }
}

/* ---- writing ------------------------------------------------------------------------- */

/* Sends the queued datagrams with one sendmmsg(). Returns the bytes still queued, or
 * TP_EFAIL. */
int tp_mc_flush(tp_channel *ch)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    while (mc->tx_sent < mc->tx_n) {
        int n = sendmmsg(ch->fd, mc->tx_msg + mc->tx_sent, mc->tx_n - mc->tx_sent, MSG_DONTWAIT);
        ch->st.send_calls++;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
                break;
            int e = errno;
            err_set_errno(e, "seqMCast send to %s%s", mc->send_name,
                          e == ENETUNREACH || e == EINVAL
                              ? " (is there a route for the group? for example: ip route add "
                                "224.0.0.0/4 dev <interface>)"
                              : "");
            return tp_chan_fail(ch);
        }
        for (unsigned i = mc->tx_sent; i < mc->tx_sent + (unsigned)n; i++) {
            mc->tx_bytes -= mc->tx_iov[i].iov_len;
            ch->st.bytes_sent += mc->tx_iov[i].iov_len;
        }
        mc->st.pkts_sent += (uint64_t)n;
        mc->tx_sent += (unsigned)n;
    }
    if (mc->tx_sent == mc->tx_n && mc->open_slot < 0)
        mc->tx_sent = mc->tx_n = 0;
    return mc->tx_bytes > 0x7FFFFFFF ? 0x7FFFFFFF : (int)mc->tx_bytes;
}

int tp_mc_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    if (size > mc->max_msg) {
        err_set("cannot get a buffer of %u bytes: the largest message of this seqMCast channel "
                "is %u bytes",
                size, mc->max_msg);
        return TP_EINVAL;
    }
    if (ch->direct.busy) {
        err_set("a seqMCast channel has one buffer at a time: write or release the open one");
        return TP_EINVAL;
    }
    if (mc->tx_n == TP_MC_TX_SLOTS) {
        if (tp_mc_flush(ch) < 0)
            return TP_EFAIL;
        if (mc->tx_n == TP_MC_TX_SLOTS) {
            ch->st.no_buffers++;
            err_set("seqMCast output full: %u datagrams wait for the socket", TP_MC_TX_SLOTS);
            return TP_ENOBUFS;
        }
    }
    uint8_t *slot = mc->tx_mem + (size_t)mc->tx_n * mc->slot;
    tp_buf *b = &ch->direct;
    b->pay = slot + TP_MC_HDR_LEN; /* the first length prefix */
    b->pay_cap = size + 2;
    b->pack_off = packed ? 2 : 0;
    b->data = slot + TP_MC_HDR_LEN + 2;
    b->len = size;
    b->busy = 1;
    mc->open_slot = (int)mc->tx_n;
    *out = b;
    return 0;
}

int tp_mc_release(tp_channel *ch, tp_buf *b)
{
    if (b != &ch->direct || !b->busy) {
        err_set("tp_release: buffer is not open on this channel");
        return TP_EINVAL;
    }
    b->busy = 0;
    ch->mc->open_slot = -1;
    return 0;
}

/* The bytes of b's entries (length prefixes included), the last message closed. 0 or -1. */
static int entries_len(tp_buf *b, uint32_t *elen)
{
    if (!b->pack_off) {
        if (b->len > b->pay_cap - 2)
            return err_set("buffer length %u exceeds the %u bytes obtained", b->len,
                           b->pay_cap - 2);
        tp_put16(b->pay, b->len);
        *elen = b->len ? b->len + 2 : 0;
        return 0;
    }
    if (b->len == 0) {
        *elen = b->pack_off - 2; /* drop the slot opened for a next message */
        return 0;
    }
    if (b->pack_off > b->pay_cap || b->len > b->pay_cap - b->pack_off)
        return err_set("packed message of %u bytes exceeds the room left in its buffer", b->len);
    tp_put16(b->pay + b->pack_off - 2, b->len);
    *elen = b->pack_off + b->len;
    return 0;
}

int tp_mc_write(tp_channel *ch, tp_buf *b, unsigned flags)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    if (b != &ch->direct || !b->busy || mc->open_slot < 0) {
        err_set("tp_write: buffer is not open on this channel");
        return TP_EINVAL;
    }
    uint32_t elen = 0;
    if (entries_len(b, &elen) < 0)
        return TP_EINVAL;
    if (elen == 0) {
        err_set("tp_write: nothing to send (a message of 0 bytes)");
        return TP_EINVAL;
    }
    unsigned i = (unsigned)mc->open_slot;
    if (++mc->wseq == 0)
        mc->wseq = 1; /* 0 means "nothing sent yet" */
    uint8_t *slot = mc->tx_mem + (size_t)i * mc->slot;
    tp_mc_write_hdr(ch, slot, 0, mc->wseq);
    uint32_t dlen = TP_MC_HDR_LEN + elen;
    mc->tx_iov[i].iov_len = dlen;
    mc->tx_n = i + 1;
    mc->tx_bytes += dlen;
    mc->open_slot = -1;
    b->busy = 0;
    ch->st.bytes_written += dlen;
    ch->st.msgs_written++;
    if (TP_LIKELY(mc->tx_bytes < ch->hwm && mc->tx_n < TP_MC_TX_SLOTS &&
                  !(flags & TP_WRITE_DIRECT)))
        return (int)mc->tx_bytes;
    return tp_mc_flush(ch);
}

int tp_mc_ping(tp_channel *ch)
{
    tp_mc_chan *mc = ch->mc;
    if (TP_UNLIKELY(ch->state != TP_STATE_ACTIVE))
        return state_err(ch);
    if (mc->tx_sent < mc->tx_n)
        return tp_mc_flush(ch); /* the queued datagrams carry the news */
    uint8_t ping[TP_MC_HDR_LEN];
    tp_mc_write_hdr(ch, ping, 0, mc->wseq);
    for (;;) {
        ssize_t n = sendto(ch->fd, ping, sizeof(ping), MSG_DONTWAIT, (struct sockaddr *)&mc->dst,
                           sizeof(mc->dst));
        ch->st.send_calls++;
        if (n == (ssize_t)sizeof(ping)) {
            mc->st.pkts_sent++;
            mc->st.pings_sent++;
            ch->st.pings_sent++;
            ch->st.bytes_sent += sizeof(ping);
            return 0;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
            return 0;
        err_set_errno(n < 0 ? errno : EIO, "seqMCast ping to %s", mc->send_name);
        return tp_chan_fail(ch);
    }
}
