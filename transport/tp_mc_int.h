/*
 * tp_mc_int: the seqMCast channel's state, shared by tp_mcast.c (set-up, information) and
 * tp_mc_io.c (the read and write paths). Callers use tp.h and tp_mcast.h.
 */
#ifndef RWFPERF_TP_MC_INT_H
#define RWFPERF_TP_MC_INT_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tp_int.h"
#include "tp_mcast.h"

#define TP_MC_RX_BATCH 32 /* datagrams taken per recvmmsg() */
#define TP_MC_TX_SLOTS 64 /* datagrams queued before a sendmmsg() at the latest */

typedef struct tp_mc_chan {
    /* ---- read path ---- */
    uint8_t *rx_mem; /* TP_MC_RX_BATCH slots */
    struct mmsghdr rx_msg[TP_MC_RX_BATCH];
    struct iovec rx_iov[TP_MC_RX_BATCH];
    struct sockaddr_in rx_src[TP_MC_RX_BATCH];
    unsigned rx_n, rx_i; /* datagrams in the batch, next one to look at */
    const uint8_t *cur;  /* data datagram whose messages are being handed out; NULL = none */
    uint32_t cur_len, cur_off;
    tp_mc_from cur_from; /* its sender and sequence number (tp_mc_last_from) */
    uint32_t cur_seq;
    uint8_t have_last;
    uint32_t loss_thr; /* loss generator: drop when the next random 32 bits are below */
    uint64_t rng;
    uint64_t rng_seed; /* its first state (tp_mc_reset_rx starts it again) */
    tp_seqtrack trk;
    tp_mc_stats st;   /* seq, senders, untracked are filled from trk when asked */
    uint8_t bad_kind; /* the last malformed datagram */
    uint32_t bad_off, bad_len;
    tp_mc_from bad_from;

    /* ---- write path ---- */
    struct sockaddr_in dst;
    uint8_t *tx_mem; /* TP_MC_TX_SLOTS slots */
    struct mmsghdr tx_msg[TP_MC_TX_SLOTS];
    struct iovec tx_iov[TP_MC_TX_SLOTS];
    unsigned tx_sent, tx_n; /* slots [tx_sent, tx_n) are queued */
    size_t tx_bytes;        /* bytes in them */
    int open_slot;          /* slot of the open buffer; -1 = none */
    uint32_t wseq;          /* last sequence number used (0 = none yet) */

    /* ---- settings ---- */
    uint32_t max_msg; /* largest message */
    uint32_t slot;    /* bytes per slot: max_msg + 14 */
    uint16_t instance_id;
    uint16_t local_port;
    char recv_name[160], send_name[160]; /* "group:port" as given, for error texts */
} tp_mc_chan;

/* tp_mcast.c */
int tp_mc_connect(const tp_opts *o, tp_channel **out);
void tp_mc_close(tp_channel *ch);
void tp_mc_info(const tp_channel *ch, tp_info *out);

/* tp_mc_io.c */
void tp_mc_write_hdr(const tp_channel *ch, uint8_t *out, uint8_t flags, uint32_t seq);
int tp_mc_read(tp_channel *ch, tp_msg *msg);
int tp_mc_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out);
int tp_mc_write(tp_channel *ch, tp_buf *b, unsigned flags);
int tp_mc_release(tp_channel *ch, tp_buf *b);
int tp_mc_flush(tp_channel *ch);
int tp_mc_ping(tp_channel *ch);

#endif
