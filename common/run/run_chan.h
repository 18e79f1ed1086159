/*
 * run_chan: what the tools do with channels outside their workers' loops, once for all:
 *
 *  - the "Channel <fd> active. Channel Info:" block and the "Channel Closed" line the ETA tools
 *    print, word for word (the block labels the receive buffer size "sysSendBufSize" too, as
 *    every original tool does);
 *  - the hand-over of accepted channels from the main thread to a worker (run_handoff: a
 *    queue under a lock, not on a hot path, with an eventfd that a worker may poll), and the
 *    server side that accepts what is pending and gives each channel to the worker with the
 *    fewest open channels (run_accept_all).
 */
#ifndef RWFPERF_RUN_CHAN_H
#define RWFPERF_RUN_CHAN_H

#include "tp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

/* The high-water mark of a writer's bare channel when -highWaterMark is not given (ProvPerf
 * and NIProvPerf: pv_burst_set_hwm; TransportPerf: a sending session on a plain socket): the
 * transport sends once this many bytes are queued, so that a tick's burst up to this size
 * leaves in one send() at the end of the tick instead of one send() per default mark (6,000
 * bytes) filled, and a larger burst in sends of this size while it is written. Each send() on
 * loopback also carries the receiver's TCP work and its wake-up, which made most of the
 * writer's CPU and much of the reader's (docs/performance.md). 64 KiB is the largest segment
 * loopback TCP carries. */
#define RUN_BURST_HWM (64u * 1024u)

/* Writes the Channel Info block of the channel whose descriptor is fd, from its info; on an
 * encrypted channel, then (ours) the negotiated protocol and cipher suite, "TLS: TLSv1.3,
 * TLS_AES_256_GCM_SHA384", and a blank line. */
void run_channel_info_print(FILE *f, int fd, const tp_info *in);

/* Writes the Channel Info block of an active channel. Returns 0, or -1 (err_msg() set) when
 * the channel is not active. */
int run_channel_info(FILE *f, tp_channel *ch);

/* True when a transport failure text says that a shared-memory reader fell behind its writer
 * (the transport words it as the original does: "... lags writer ..."). */
bool run_channel_slow_reader(const char *why);

/* Writes the line of a channel that closed, worded as the ETA tools word it: "Channel
 * Closed." for an orderly close of ours (why NULL), "Channel Closed:
 * RSSL_RET_SLOW_READER(<why>)" for a reader that fell behind, else "Channel Closed:
 * RSSL_RET_FAILURE(<why>)"; but the peer's orderly end (tp_closed_by_peer(why), which the
 * original reports as a failure) in words: "Channel Closed: the peer closed the connection
 * normally." or "... normally (WS Code 1000 Normal Closure)." */
void run_channel_closed(FILE *f, const char *why);

/* Channels handed from the main thread to one worker. */
typedef struct run_handoff {
    pthread_mutex_t lock;
    tp_channel **q; /* under lock: handed over, not yet taken */
    int n, cap;
    atomic_int pending; /* n, readable without the lock */
    atomic_int open;    /* channels given (or connected) and not yet closed */
    int evfd;           /* eventfd, readable while channels wait (for a worker's epoll) */
    int index;          /* the worker's 0-based index, for texts */
} run_handoff;

/* Prepares an empty hand-over for worker `index`. Returns 0, or -1 with err_msg() set. */
int run_handoff_init(run_handoff *h, int index);

/* Closes the channels never taken and frees the queue (after the worker was joined). */
void run_handoff_free(run_handoff *h);

/* Main thread: gives ch (an accepted channel, still in its handshake) to the worker, which owns
 * it from then on, counts it as open and wakes the worker's eventfd. Returns 0, or -1 with
 * err_msg() set (the channel is then closed). */
int run_handoff_give(run_handoff *h, tp_channel *ch);

/* Worker: takes up to max channels handed over, oldest first, into out; returns how many (0
 * at once, without the lock, when none wait). Empties the eventfd once none are left. */
int run_handoff_take(run_handoff *h, tp_channel **out, int max);

/* Worker: counts one more open channel of its own (a client's connection). */
static inline void run_handoff_opened(run_handoff *h)
{
    atomic_fetch_add_explicit(&h->open, 1, memory_order_relaxed);
}

/* Worker: one of its channels closed. */
static inline void run_handoff_closed(run_handoff *h)
{
    atomic_fetch_sub_explicit(&h->open, 1, memory_order_relaxed);
}

/* The hand-over of the worker with the fewest open channels (the first of equals). */
run_handoff *run_handoff_least(run_handoff *const *to, int n);

/* What a server prints around a hand-over: the originals differ. */
typedef struct run_accept_text {
    const char *failed;    /* printf format of a failed accept, with the error text */
    const char *accepting; /* the line of an accepted connection when not NULL (ProvPerf
                            * -reactor: "Accepting new Reactor connection...\n"), else
                            * "Server <fd> accepting channel <fd>.\n\n" */
    bool passed;           /* also print "Server <fd>: New Channel <fd> passed connection to
                              handler <index>" (TransportPerf) */
} run_accept_text;

/*
 * Main thread: accepts every connection srv has pending, prints "Server <fd> accepting channel
 * <fd>." for each, and gives it to the least loaded of the n workers' hand-overs (the fewest
 * open channels, the first of equals). Never blocks.
 */
void run_accept_all(tp_server *srv, run_handoff *const *to, int n, const run_accept_text *text);

#endif
