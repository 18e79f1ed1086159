/*
 * tp_mcast: sequenced multicast (seqMCast), the ETA transport's unreliable UDP multicast
 * (docs/wire.md#seqmcast-datagrams, docs/modes.md#seqmcast): the datagram format, a tracker of
 * sequence numbers per sender, and what a seqMCast channel (tp_connect with TP_CONN_SEQ_MCAST)
 * reports beyond tp.h.
 *
 * A datagram (all numbers big-endian):
 *
 *     0  version = 1           4  instance id (u16)      8  sequence number (u32)
 *     1  flags (0x02 retrans.) 6  RWF major             12  entries: [u16 length][message] ...
 *     2  protocol type         7  RWF minor
 *     3  header length = 12
 *
 * Every data datagram holds one or more length-prefixed messages (a packed buffer puts several
 * in one datagram under one sequence number); the 12-byte header alone is a ping, carrying the
 * sender's last sequence number. A sender numbers its data datagrams from 1, skipping 0 on
 * wrap (0 means "nothing sent yet"). Both ends of a seqMCast channel are clients: each binds
 * the receive group and port, joins the group, and sends to the send group and port from the
 * same socket, so that a datagram's source port is the sender's receive port.
 *
 * The channel checks every datagram whole before it hands out any of its messages: one that
 * is malformed (too short, unknown version, another protocol type, a bad header length, a
 * length prefix cut short or running past the end, larger than the receive limit) is dropped
 * and counted by kind, and the channel stays up. It follows each sender (source address,
 * source port, instance id) and counts gaps, lost, duplicate and late datagrams (tp_seqtrack
 * below); it never asks for retransmission or reorders.
 */
#ifndef RWFPERF_TP_MCAST_H
#define RWFPERF_TP_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp.h"

/* ---- the datagram -------------------------------------------------------------------- */

#define TP_MC_VERSION 1
#define TP_MC_HDR_LEN 12 /* the header; a datagram of exactly this length is a ping */
#define TP_MC_FLAG_RETRANS 0x02
#define TP_MC_MAX_MSG 65493        /* largest message: 65507 (largest UDP payload) - 12 - 2 */
#define TP_MC_DEFAULT_MAX_MSG 3000 /* the ETA transport's default maximum message size */

typedef struct tp_mc_hdr {
    uint8_t version;
    uint8_t flags;
    uint8_t protocol_type;
    uint8_t hdr_len;
    uint16_t instance_id;
    uint8_t rwf_major;
    uint8_t rwf_minor;
    uint32_t seq;
} tp_mc_hdr;

/* Writes h as the 12 header bytes at out (hdr_len is written as given). */
void tp_mc_hdr_encode(const tp_mc_hdr *h, uint8_t *out);

/* Why a datagram was dropped (index into tp_mc_stats.bad_kind). */
typedef enum tp_mc_bad {
    TP_MC_BAD_SHORT = 0,  /* shorter than the 12-byte header */
    TP_MC_BAD_VERSION,    /* version other than 1 */
    TP_MC_BAD_PROTOCOL,   /* protocol type other than the channel's */
    TP_MC_BAD_HDR_LEN,    /* header length below 12 or past the end of the datagram */
    TP_MC_BAD_TRUNC_LEN,  /* a length prefix cut short by the end of the datagram */
    TP_MC_BAD_LEN_BEYOND, /* a message length running past the end of the datagram */
    TP_MC_BAD_OVERSIZE,   /* larger than the receive limit (cut by the receive buffer) */
    TP_MC_BAD_KINDS
} tp_mc_bad;

/* Short text of a tp_mc_bad ("bad version", ...). */
const char *tp_mc_bad_name(tp_mc_bad k);

/* Parses and checks the datagram p[0..n) for a channel of the given protocol type: the
 * header into *h, and every length-prefixed entry after it (without copying). Returns 1 for
 * a data datagram (the entries start at h->hdr_len and exactly fill the datagram), 0 for a
 * ping (no entries), or -1 - tp_mc_bad (a negative value) for a malformed one; *bad_off (may
 * be NULL) then gets the offset where the fault lies. Never reads outside p[0..n). */
int tp_mc_parse(const uint8_t *p, size_t n, uint8_t protocol_type, tp_mc_hdr *h, uint32_t *bad_off);

/* The next entry of a datagram that tp_mc_parse() accepted: reads the entry at *off, stores
 * its message in *msg and *len, advances *off. Returns 1, or 0 when *off is at the end. */
static inline int tp_mc_next(const uint8_t *p, uint32_t n, uint32_t *off, const uint8_t **msg,
                             uint32_t *len)
{
    if (*off + 2 > n)
        return 0;
    uint32_t l = (uint32_t)p[*off] << 8 | p[*off + 1];
    *msg = p + *off + 2;
    *len = l;
    *off += 2 + l;
    return 1;
}

/* ---- senders and their sequence numbers ---------------------------------------------- */

/* Who sent a datagram: its source IPv4 address and port (host byte order) and the instance
 * id in its header. */
typedef struct tp_mc_from {
    uint32_t addr;
    uint16_t port;
    uint16_t instance_id;
} tp_mc_from;

/* Formats from as "a.b.c.d:port/instance" into buf (at least 32 bytes). Returns buf. */
const char *tp_mc_from_str(const tp_mc_from *from, char *buf, size_t cap);

/* What the tracker made of one sequence number. */
typedef enum tp_seq_verdict {
    TP_SEQ_NEXT = 0, /* the one expected */
    TP_SEQ_FIRST,    /* first number of a new sender (nothing to compare with) */
    TP_SEQ_GAP,      /* ahead of the expected one: *missing numbers were skipped */
    TP_SEQ_DUP,      /* seen before */
    TP_SEQ_LATE,     /* behind the newest one and not seen before: fills an earlier gap */
    TP_SEQ_OLD,      /* too far behind to tell a duplicate from a late arrival */
    TP_SEQ_RESET,    /* the sender started again: its first number (1, or 0 for 64-bit
                      * numbers) once more, or 0 in a 32-bit data header */
    TP_SEQ_UNTRACKED /* a new sender while the table is full: not followed */
} tp_seq_verdict;

/* Counts over one sender or over all of them. */
typedef struct tp_seq_counts {
    uint64_t received;   /* numbers accepted (every verdict but DUP, OLD and UNTRACKED) */
    uint64_t gaps;       /* GAP verdicts, and pings that showed numbers never received */
    uint64_t lost;       /* numbers skipped by gaps and not arrived since */
    uint64_t duplicates; /* DUP verdicts */
    uint64_t late;       /* LATE verdicts (each one took one back from lost) */
    uint64_t old;        /* OLD verdicts */
    uint64_t resets;     /* RESET verdicts */
} tp_seq_counts;

typedef struct tp_seq_sender {
    tp_mc_from from;
    uint64_t first;  /* first number seen */
    uint64_t last;   /* newest number seen */
    uint64_t window; /* bit i: number last - i was received */
    uint8_t used;
    uint8_t data; /* a data number arrived (not only pings) */
    tp_seq_counts c;
} tp_seq_sender;

/* Sequence numbers of many senders. wrap32: 32-bit numbers that skip 0 on wrap (the
 * datagram header's); otherwise 64-bit numbers from 0 (TransportPerf's message numbers).
 * The table is allocated once; the per-number work allocates nothing and locks nothing. */
typedef struct tp_seqtrack {
    tp_seq_sender *tab;
    uint32_t mask;        /* table size - 1 (a power of two, twice max_senders) */
    uint32_t max_senders; /* senders followed; later ones are counted as untracked */
    uint32_t n;           /* senders followed so far */
    uint32_t hit;         /* index of the sender seen last */
    bool wrap32;
    uint64_t expected;   /* tp_seqtrack_data: the number the sender was expected to send (its
                          * newest one's successor; the number itself for a new sender) */
    tp_seq_counts total; /* sum over the senders */
    uint64_t untracked;  /* numbers (and pings) from senders beyond max_senders */
} tp_seqtrack;

#define TP_SEQ_DEFAULT_SENDERS 256
#define TP_SEQ_WINDOW 64 /* how far behind the newest number a late one is still recognised */

/* Prepares t for up to max_senders senders (0 = TP_SEQ_DEFAULT_SENDERS). Returns 0, or -1
 * with err_msg() set (out of memory). */
int tp_seqtrack_init(tp_seqtrack *t, uint32_t max_senders, bool wrap32);

/* Frees the table. */
void tp_seqtrack_free(tp_seqtrack *t);

/* Forgets every sender and count (the table stays). */
void tp_seqtrack_reset(tp_seqtrack *t);

/* Records data number seq of sender from. Returns the verdict; *missing (may be NULL) gets
 * the numbers skipped for TP_SEQ_GAP, else 0. */
tp_seq_verdict tp_seqtrack_data(tp_seqtrack *t, const tp_mc_from *from, uint64_t seq,
                                uint64_t *missing);

/* Records a ping of sender from carrying its last number seq: numbers up to seq that never
 * arrived are counted lost (a gap at the tail of a burst). A new sender starts from seq.
 * Returns TP_SEQ_NEXT (nothing new), TP_SEQ_GAP (*missing numbers counted lost),
 * TP_SEQ_FIRST, TP_SEQ_OLD (a number behind the newest: ignored) or TP_SEQ_UNTRACKED. */
tp_seq_verdict tp_seqtrack_ping(tp_seqtrack *t, const tp_mc_from *from, uint64_t seq,
                                uint64_t *missing);

/* The sender entry of from, or NULL when it is not followed. */
const tp_seq_sender *tp_seqtrack_find(const tp_seqtrack *t, const tp_mc_from *from);

/* Calls fn for every sender followed, in table order. */
void tp_seqtrack_each(const tp_seqtrack *t, void (*fn)(const tp_seq_sender *s, void *arg),
                      void *arg);

/* ---- a seqMCast channel -------------------------------------------------------------- */

/* Counters of a seqMCast channel since it was connected. */
typedef struct tp_mc_stats {
    uint64_t pkts_sent;    /* datagrams sent, pings included (the ETA "Pkts Sent") */
    uint64_t pkts_recv;    /* datagrams received, pings and malformed ones included (the
                            * ETA "Pkts Received"); not those the loss generator dropped */
    uint64_t retrans_sent; /* always 0: this transport never retransmits */
    uint64_t retrans_recv; /* datagrams received with the retransmission flag */
    uint64_t pings_sent;
    uint64_t pings_recv;
    uint64_t loss_dropped; /* datagrams the loss generator dropped (tp_opts.mc_loss_ppm) */
    uint64_t bad;          /* malformed datagrams dropped */
    uint64_t bad_kind[TP_MC_BAD_KINDS];
    tp_seq_counts seq;  /* data datagrams' sequence numbers, over all senders */
    uint32_t senders;   /* senders followed */
    uint64_t untracked; /* data datagrams of senders beyond the table */
} tp_mc_stats;

/* Fills *out for a seqMCast channel. Returns 0, or TP_EINVAL for another kind of channel. */
int tp_mc_get_stats(const tp_channel *ch, tp_mc_stats *out);

/* The sender and datagram sequence number of the message tp_read() returned last on a
 * seqMCast channel. Returns 0, or TP_EINVAL (another kind of channel, or nothing read). */
int tp_mc_last_from(const tp_channel *ch, tp_mc_from *from, uint32_t *seq);

/* The datagram-level tracker of a seqMCast channel (read-only; senders and their counts),
 * or NULL for another kind of channel. */
const tp_seqtrack *tp_mc_tracker(const tp_channel *ch);

/* Describes the last malformed datagram the channel dropped ("bad version 2 in a 90-byte
 * datagram from 127.0.0.1:30002/0 at offset 0") into buf. Returns buf ("" when none). */
const char *tp_mc_last_bad(const tp_channel *ch, char *buf, size_t cap);

/* Takes a seqMCast channel's read side back to where tp_connect left it: the datagrams
 * queued on its socket are discarded, and the batch, the datagram being read, the senders and
 * their sequence counts, the channel's tp_mc_stats (its sent counts too), the last malformed
 * datagram and the last sender (tp_mc_last_from) are forgotten; the loss generator starts
 * again from its seed. The socket, its slots, the write side's queue and sequence number and
 * tp_get_stats' counters stay. Returns 0, or TP_EINVAL for another kind of channel. */
int tp_mc_reset_rx(tp_channel *ch);

/* The local port the channel's socket is bound to (its receive port; the source port of
 * what it sends). 0 for another kind of channel. */
uint16_t tp_mc_local_port(const tp_channel *ch);

#endif
