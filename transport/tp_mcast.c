/* The seqMCast channel: one UDP socket bound to the receive group and port and joined to the
 * group, sending to the send group and port. Reads take up to TP_MC_RX_BATCH datagrams per
 * recvmmsg() call and hand out their messages in place; writes build each datagram in place
 * in one of TP_MC_TX_SLOTS slots and send the queued ones with one sendmmsg() call when the
 * high-water mark is reached, the slots are full, on tp_flush, or at once with
 * TP_WRITE_DIRECT. */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tp_int.h"
#include "tp_mc_int.h"

/* ---- setting up ---------------------------------------------------------------------- */

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

/* The interface of o: *addr when it is an address or a host name, else *index when it names
 * an interface; both 0 when there is none. 0 or -1 (err_set). */
static int resolve_iface(const char *iface, struct in_addr *addr, int *index)
{
    addr->s_addr = htonl(INADDR_ANY);
    *index = 0;
    if (!iface)
        return 0;
    struct sockaddr_in a;
    if (inet_pton(AF_INET, iface, &a.sin_addr) == 1) {
        *addr = a.sin_addr;
        return 0;
    }
    unsigned idx = if_nametoindex(iface);
    if (idx) {
        *index = (int)idx;
        return 0;
    }
    if (tp_sock_resolve(iface, "0", &a) == 0) {
        *addr = a.sin_addr;
        return 0;
    }
    return err_set("interface %s is neither an address, a host name nor an interface name", iface);
}

/* Sizes and allocates the read and write slots. 0 or -1. */
static int alloc_slots(tp_mc_chan *mc)
{
    mc->slot = mc->max_msg + TP_MC_HDR_LEN + 2;
    mc->rx_mem = malloc((size_t)mc->slot * TP_MC_RX_BATCH);
    mc->tx_mem = malloc((size_t)mc->slot * TP_MC_TX_SLOTS);
    if (!mc->rx_mem || !mc->tx_mem)
        return err_set("out of memory for %u-byte datagram slots", mc->slot);
    for (unsigned i = 0; i < TP_MC_RX_BATCH; i++) {
        mc->rx_iov[i].iov_base = mc->rx_mem + (size_t)i * mc->slot;
        mc->rx_iov[i].iov_len = mc->slot;
    }
    for (unsigned i = 0; i < TP_MC_TX_SLOTS; i++) {
        struct msghdr *h = &mc->tx_msg[i].msg_hdr;
        memset(h, 0, sizeof(*h));
        h->msg_name = &mc->dst;
        h->msg_namelen = sizeof(mc->dst);
        h->msg_iov = &mc->tx_iov[i];
        h->msg_iovlen = 1;
        mc->tx_iov[i].iov_base = mc->tx_mem + (size_t)i * mc->slot;
    }
    return 0;
}

/* Where the channel receives and sends, from o (with the host and port as the fall-back of
 * the receive side, as in ETA). 0 or -1. */
static int resolve_groups(tp_mc_chan *mc, const tp_opts *o, struct sockaddr_in *recv)
{
    const char *ra = nonempty(o->mc_recv_addr) ? o->mc_recv_addr : nonempty(o->host);
    const char *rp = nonempty(o->mc_recv_port) ? o->mc_recv_port : nonempty(o->port);
    if (!ra || !rp)
        return err_set("seqMCast needs a receive address and port (-ra, -rp)");
    if (tp_sock_resolve(ra, rp, recv) < 0)
        return err_push("seqMCast receive address");
    const char *sa = nonempty(o->mc_send_addr) ? o->mc_send_addr : ra;
    const char *sp = nonempty(o->mc_send_port);
    if (!sp && nonempty(o->mc_send_addr))
        return err_set("seqMCast send address %s has no port (-sp)", sa);
    if (!sp)
        sp = rp;
    if (tp_sock_resolve(sa, sp, &mc->dst) < 0)
        return err_push("seqMCast send address");
    if (mc->dst.sin_port == 0)
        return err_set("seqMCast send port of %s:%s is 0", sa, sp);
    snprintf(mc->send_name, sizeof(mc->send_name), "%s:%s", sa, sp);
    snprintf(mc->recv_name, sizeof(mc->recv_name), "%s:%s", ra, rp);
    return 0;
}

/* Creates, sizes, binds and joins the socket. Returns the descriptor, or -1. */
static int open_socket(tp_mc_chan *mc, const tp_opts *o, const struct sockaddr_in *recv)
{
    struct in_addr ifaddr;
    int ifindex;
    if (resolve_iface(nonempty(o->interface), &ifaddr, &ifindex) < 0)
        return -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
    if (fd < 0)
        return err_set_errno(errno, "seqMCast socket()");
    int one = 1;
    const char *what = NULL;
    if (o->sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(int)) < 0)
        what = "setting SO_SNDBUF";
    else if (o->rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(int)) < 0)
        what = "setting SO_RCVBUF";
    else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
        what = "setting SO_REUSEADDR";
    else if (bind(fd, (const struct sockaddr *)recv, sizeof(*recv)) < 0)
        what = "binding the receive address";
    if (!what && IN_MULTICAST(ntohl(recv->sin_addr.s_addr))) {
        struct ip_mreqn m = {
            .imr_multiaddr = recv->sin_addr, .imr_address = ifaddr, .imr_ifindex = ifindex};
        if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)) < 0)
            what = "joining the receive group";
    }
    if (!what) {
        struct ip_mreqn m = {.imr_address = ifaddr, .imr_ifindex = ifindex};
        if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof(m)) < 0)
            what = "choosing the sending interface";
    }
    if (what) {
        int e = errno;
        close(fd);
        return err_set_errno(e, "seqMCast %s (receive %s, interface %s)", what, mc->recv_name,
                             nonempty(o->interface) ? o->interface : "any");
    }
    struct sockaddr_in local;
    socklen_t len = sizeof(local);
    if (getsockname(fd, (struct sockaddr *)&local, &len) == 0)
        mc->local_port = ntohs(local.sin_port);
    return fd;
}

static uint64_t seed_from_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
}

/* The fields of ch a seqMCast channel has once its socket exists. */
static void activate(tp_channel *ch, const tp_opts *o)
{
    ch->conn_type = TP_CONN_SEQ_MCAST;
    ch->state = TP_STATE_ACTIVE;
    ch->istate = TP_IS_ACTIVE;
    ch->init_deadline_ns = 0;
    ch->protocol_type = o->protocol_type;
    ch->rwf_major = o->rwf_major;
    ch->rwf_minor = o->rwf_minor;
    ch->ping_timeout = ch->o.ping_timeout;
    ch->send_pings = ch->expect_pings = 1;
    ch->max_user = ch->mc->max_msg;
    ch->hwm = ch->o.high_water_mark ? ch->o.high_water_mark : TP_DEFAULT_HWM;
    ch->rd_fast = ch->wr_fast = 0; /* the socket framing's fast paths never apply */
}

int tp_mc_connect(const tp_opts *o, tp_channel **out)
{
    *out = NULL;
    tp_channel *ch = tp_chan_new(o, 0);
    if (!ch || !(ch->mc = calloc(1, sizeof(*ch->mc)))) {
        free(ch);
        return err_set("out of memory for a seqMCast channel");
    }
    tp_mc_chan *mc = ch->mc;
    ch->conn_type = TP_CONN_SEQ_MCAST;
    mc->max_msg = o->max_fragment_size ? o->max_fragment_size : TP_MC_DEFAULT_MAX_MSG;
    if (mc->max_msg > TP_MC_MAX_MSG)
        mc->max_msg = TP_MC_MAX_MSG;
    mc->instance_id = o->mc_instance_id;
    mc->open_slot = -1;
    if (o->mc_loss_ppm) {
        uint64_t ppm = o->mc_loss_ppm > 1000000 ? 1000000 : o->mc_loss_ppm;
        mc->loss_thr = ppm * 0x100000000ull / 1000000u;
        mc->rng = o->mc_loss_seed ? o->mc_loss_seed : seed_from_clock();
        if (!mc->rng)
            mc->rng = 1;
        mc->rng_seed = mc->rng;
    }
    struct sockaddr_in recv;
    if (tp_seqtrack_init(&mc->trk, o->mc_max_senders, true) < 0 || alloc_slots(mc) < 0 ||
        resolve_groups(mc, o, &recv) < 0 || (ch->fd = open_socket(mc, o, &recv)) < 0) {
        tp_close(ch);
        return TP_EFAIL;
    }
    activate(ch, o);
    *out = ch;
    return 0;
}

void tp_mc_close(tp_channel *ch)
{
    tp_mc_chan *mc = ch->mc;
    if (!mc)
        return;
    if (ch->fd >= 0 && mc->tx_sent < mc->tx_n) {
        /* what was written leaves, as each write of the original leaves at once (also after
         * a ping timeout: the sending side still works) */
        int n = sendmmsg(ch->fd, mc->tx_msg + mc->tx_sent, mc->tx_n - mc->tx_sent, MSG_DONTWAIT);
        if (n > 0)
            mc->st.pkts_sent += (uint64_t)n;
    }
    if (ch->fd >= 0 && mc->wseq) {
        /* a last ping, so that receivers learn of datagrams lost at the end of the stream */
        uint8_t ping[TP_MC_HDR_LEN];
        tp_mc_write_hdr(ch, ping, 0, mc->wseq);
        if (sendto(ch->fd, ping, sizeof(ping), MSG_DONTWAIT, (struct sockaddr *)&mc->dst,
                   sizeof(mc->dst)) == (ssize_t)sizeof(ping))
            mc->st.pkts_sent++, mc->st.pings_sent++;
    }
    tp_seqtrack_free(&mc->trk);
    free(mc->rx_mem);
    free(mc->tx_mem);
    free(mc);
    ch->mc = NULL;
}

/* ---- information --------------------------------------------------------------------- */

void tp_mc_info(const tp_channel *ch, tp_info *out)
{
    out->max_fragment_size = ch->mc->max_msg;
    out->max_user_msg_size = ch->mc->max_msg;
    out->max_output_buffers = 1;
    out->guaranteed_output_buffers = 1;
    out->num_input_buffers = 1;
    out->ping_timeout = ch->ping_timeout;
    socklen_t l = sizeof(int);
    getsockopt(ch->fd, SOL_SOCKET, SO_SNDBUF, &out->sys_send_buf_size, &l);
    l = sizeof(int);
    getsockopt(ch->fd, SOL_SOCKET, SO_RCVBUF, &out->sys_recv_buf_size, &l);
    out->protocol_type = ch->protocol_type;
    out->rwf_major = ch->rwf_major;
    out->rwf_minor = ch->rwf_minor;
    out->conn_type = TP_CONN_SEQ_MCAST;
}

int tp_mc_get_stats(const tp_channel *ch, tp_mc_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!ch->mc) {
        err_set("not a seqMCast channel");
        return TP_EINVAL;
    }
    *out = ch->mc->st;
    out->seq = ch->mc->trk.total;
    out->senders = ch->mc->trk.n;
    out->untracked = ch->mc->trk.untracked;
    return 0;
}

int tp_mc_last_from(const tp_channel *ch, tp_mc_from *from, uint32_t *seq)
{
    if (!ch->mc || !ch->mc->have_last) {
        err_set(ch->mc ? "nothing was read yet" : "not a seqMCast channel");
        return TP_EINVAL;
    }
    *from = ch->mc->cur_from;
    *seq = ch->mc->cur_seq;
    return 0;
}

const tp_seqtrack *tp_mc_tracker(const tp_channel *ch)
{
    return ch->mc ? &ch->mc->trk : NULL;
}

int tp_mc_reset_rx(tp_channel *ch)
{
    tp_mc_chan *mc = ch->mc;
    if (!mc) {
        err_set("not a seqMCast channel");
        return TP_EINVAL;
    }
    uint8_t sink[1];
    while (ch->fd >= 0 && recv(ch->fd, sink, sizeof(sink), MSG_DONTWAIT | MSG_TRUNC) >= 0)
        ; /* datagrams queued on the socket */
    mc->rx_n = mc->rx_i = 0;
    mc->cur = NULL;
    mc->cur_len = mc->cur_off = mc->cur_seq = 0;
    memset(&mc->cur_from, 0, sizeof(mc->cur_from));
    mc->have_last = 0;
    mc->rng = mc->rng_seed;
    tp_seqtrack_reset(&mc->trk);
    memset(&mc->st, 0, sizeof(mc->st));
    mc->bad_kind = 0;
    mc->bad_off = mc->bad_len = 0;
    memset(&mc->bad_from, 0, sizeof(mc->bad_from));
    ch->rx_seen = 0;
    return 0;
}

uint16_t tp_mc_local_port(const tp_channel *ch)
{
    return ch->mc ? ch->mc->local_port : 0;
}

const char *tp_mc_last_bad(const tp_channel *ch, char *buf, size_t cap)
{
    buf[0] = 0;
    const tp_mc_chan *mc = ch->mc;
    if (!mc || !mc->st.bad)
        return buf;
    char from[48];
    tp_mc_from_str(&mc->bad_from, from, sizeof(from));
    snprintf(buf, cap, "%s (%u-byte datagram from %s, at offset %u)",
             tp_mc_bad_name((tp_mc_bad)mc->bad_kind), mc->bad_len, from, mc->bad_off);
    return buf;
}
