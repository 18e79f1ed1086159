/*
 * worker: one TransportPerf thread (docs/tools.md#transportperf, #threads-and-items) and the
 * connections it drives.
 *
 * A worker owns its channels. On a server, the main thread accepts connections and hands
 * each one to the worker with the fewest open channels (run_accept_all); on a client, each
 * worker connects its own channel and retries every second until it is up. Every worker then
 * runs the same loop, paced by a fixed tick schedule (common/tick.h):
 *
 *   - on each tick, a burst of msgRate / tickRate messages (plus one on the first
 *     msgRate % tickRate ticks of each second) on every active channel that was up when the
 *     tick was due, one of them time-stamped when the latency random array says so; packed
 *     -pack at a time when packing; the channel keep-alive;
 *   - between ticks, reading: every message is checked against the sequence number expected
 *     on its connection (on a seqMCast channel, from its sender: source address, port and
 *     instance id), and a time-stamped one gives a latency sample (and a second one from
 *     the scheduled send time it carries); with -reflectMsgs every message is instead written
 *     back unchanged. A number that is not the next one ends the connection, as in the
 *     original, or with -seqGaps count is counted (gaps, lost, duplicate, out of order) and
 *     the run goes on;
 *   - when the run ends, queued output is flushed (bounded in time) before the channels are
 *     closed, so that a peer can count everything that was sent.
 *
 * The per-message path allocates nothing, takes no lock, makes no system call of its own and
 * prints nothing: writes are batched by the transport's high-water mark, reads return
 * messages out of large socket reads, and the counters the main thread reads are single-
 * writer atomics updated once per burst or per read batch.
 *
 * What the main thread reads while the worker runs: the counters (counter_change), the
 * latency recorders (latbuf), the raw latency samples (latring, with -latencyFile) and the
 * first negative latency. Everything else (totals per connection, times, failure) it reads
 * after pthread_join().
 */
#ifndef RWFPERF_TPERF_WORKER_H
#define RWFPERF_TPERF_WORKER_H

#include "config.h"
#include "counter.h"
#include "cpu.h"
#include "latbuf.h"
#include "latring.h"
#include "lra.h"
#include "run_chan.h"
#include "run_drv.h"
#include "run_fail.h"
#include "sig.h"
#include "tick.h"
#include "tp.h"
#include "tp_mcast.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Latency recorders of a worker (latbuf sets of TPERF_LAT_KINDS). */
enum { TPERF_LAT = 0, TPERF_LAT_SCHED = 1, TPERF_LAT_KINDS = 2 };

/* One connection of a worker (a channel of its driver, from the moment it came up). */
typedef struct tperf_session {
    tp_channel *ch;
    run_drv_ch *dc; /* the driver's channel */
    int fd;         /* the descriptor, as the console names the channel */
    bool active;    /* up, and sending (until the end of the run) */
    bool recv_any;  /* a message arrived, so recv_seq holds the next expected number */
    bool json;      /* rssl.json.v2: messages begin with their length, frames are arrays */
    bool burst_hwm; /* a sending session on a plain socket without -highWaterMark: the channel
                     * has RUN_BURST_HWM and each tick's burst is flushed as it ends */
    int64_t active_ns;
    uint64_t send_seq; /* sequence number of the next message sent */
    uint64_t recv_seq; /* sequence number expected next */
    uint64_t sent;     /* messages this connection sent */
    /* the read batch under way: messages and bytes received, messages reflected, and the
     * channel's bytes written when the batch began (reflection) */
    uint64_t batch_n, batch_bytes, batch_sent, written_mark;
    bool mc;            /* a seqMCast channel */
    tp_mc_from from;    /* who sent the message being checked (seqMCast: its sender; other
                         * channels with -seqGaps count: the session's own number) */
    tp_mc_stats mc_pub; /* seqMCast: the channel's counters as last published */
} tperf_session;

/* Counts of the message-number checks (the tracker's, published per interval) and of
 * seqMCast datagrams. */
enum {
    TPERF_SQ_GAPS = 0, /* gaps: numbers ahead of the expected one */
    TPERF_SQ_LOST,     /* numbers skipped and not arrived since (may go down: modulo 2^64) */
    TPERF_SQ_DUPS,     /* numbers seen before */
    TPERF_SQ_OOO,      /* out of order: late numbers, and ones too old to tell */
    TPERF_SQ_SHORT,    /* messages too short to carry a number (-seqGaps count) */
    TPERF_MC_SENT,     /* seqMCast datagrams sent (pings included) */
    TPERF_MC_RECV,     /* ... received */
    TPERF_MC_RSENT,    /* ... retransmissions sent (always 0) */
    TPERF_MC_RRECV,    /* ... received with the retransmission flag */
    TPERF_SQ_KINDS
};

typedef struct tperf_worker {
    /* ---- fixed before the thread starts ---- */
    int index; /* 0-based; the console and the file names use index + 1 */
    const tperf_config *cfg;
    const lra *lra;       /* where stamped messages go; NULL when none are sent */
    const cpu_entry *cpu; /* binding, NULL = none */
    run_link link;        /* the connection besides the options: side, protocol 88, thread */
    uint32_t write_flags; /* TP_WRITE_DIRECT with -directWrite */
    sig_thread thread;

    /* ---- main thread -> worker: accepted channels waiting to be taken, and the count of
     * open channels (the least-loaded choice) ---- */
    run_handoff hand;
    char pad0[64];

    /* ---- worker -> main thread while running ---- */
    counter msgs_sent, bytes_sent, msgs_recv, bytes_recv, out_of_bufs;
    counter sq[TPERF_SQ_KINDS]; /* TPERF_SQ_* and TPERF_MC_* */
    latbuf lat;                 /* TPERF_LAT_KINDS recorders per set */
    latring ring;               /* raw samples for the latency log; only with -latencyFile */
    bool ring_on;               /* fixed */
    _Atomic int64_t neg_send;   /* first negative latency: its stamps (neg_recv is written */
    _Atomic int64_t neg_recv;   /* first, neg_send published last); 0 = none yet */
    char pad1[64];

    /* ---- worker only; the main thread reads them after join ---- */
    run_drv drv;          /* its loop: ticks, waiting, reading, connecting */
    tperf_session **sess; /* its connections that are up */
    int n_sess, cap_sess;
    int64_t connect_ns;    /* first activation */
    int64_t disconnect_ns; /* last close */
    double conn_secs;      /* seconds of sending, summed over connections */
    uint64_t seq_gaps;     /* gaps in the sequence numbers (without a tracker) */
    uint64_t seq_lost;     /* numbers they skipped (without a tracker) */
    uint64_t first_seq;    /* sequence number of the first message received */
    bool tracked;          /* trk in use: seqMCast, or -seqGaps count */
    tp_seqtrack trk;       /* message numbers per sender (64-bit, from 0) */
    tp_seq_counts trk_pub; /* trk.total as last published to sq[] */
    uint32_t n_serial;     /* sessions numbered so far (their tracker identity) */
    tp_mc_stats mc_done;   /* seqMCast: counters of the channels already closed */
    bool mc_any;           /* a seqMCast channel was opened */
    bool got_first;        /* first_seq is set */
    run_fail fail;         /* RUN_EXIT_FAILED: wrong data, a reader too slow; RUN_EXIT_INVALID:
                              the options do not fit the channel (-pack larger than a fragment) */
    bool ever_active;      /* a connection became active */
    run_tls_seen tls_seen; /* TLS versions and ciphers of its encrypted channels */
    int64_t pack_bytes;    /* size of a packed buffer */
    tick sched;            /* the tick schedule */
} tperf_worker;

/* Prepares worker `index` (0-based) for cfg: counters, latency recorders, the latency sample
 * ring when cfg asks for a latency log, its run_link. la (may be NULL) and cpu (may be
 * NULL) must outlive the worker. Returns 0, or -1 with err_msg() set. */
int worker_init(tperf_worker *w, int index, const tperf_config *cfg, const lra *la,
                const cpu_entry *cpu);

/* Starts the thread. Returns 0, or -1 with err_msg() set. */
int worker_start(tperf_worker *w);

/* Frees what worker_init() allocated; channels still held are closed. */
void worker_free(tperf_worker *w);

/*
 * The receiving side of one message, for the loop and for tests: checks the length and the
 * sequence number against what s expects, records the latency samples of a stamped message
 * into the worker's current recorders (TPERF_LAT from the stamp, TPERF_LAT_SCHED from the
 * scheduled time) as of now_ns (pass 0 to have the clock read, only for stamped messages),
 * and pushes the raw sample to the ring when w->ring_on. Returns 0, or -1 after printing the
 * original's error line ("Error: Received out-of-order sequence number(X instead of Y)." / "Error:
 * Message was too small to be valid(length N).") and counting the gap.
 */
int worker_on_msg(tperf_worker *w, tperf_session *s, const uint8_t *p, uint32_t len,
                  int64_t now_ns);

/* Whether a session on a channel described by in sends at RUN_BURST_HWM queued and flushes
 * each tick's burst as it ends (tperf_session.burst_hwm): a sending side (not -reflectMsgs,
 * -msgRate above 0) on a plain socket (RIPC over TCP: not encrypted, WebSocket, shared memory
 * or seqMCast) when -highWaterMark was not given (docs/differences.md#transportperf). */
bool tperf_burst_hwm(const tperf_config *cfg, const tp_info *in);

/* ---- mcast.c: seqMCast and the tracker of message numbers ---- */

/* Prepares the counters of seqMCast and of the message-number checks, and the tracker
 * (seqMCast or -seqGaps count). Returns 0, or -1 with err_msg() set. */
int tperf_mc_init(tperf_worker *w);

/* The client's "Attempting ..." line for its connection. */
void tperf_mc_connect_line(const tperf_worker *w);

/* Checks message number seq of s's current sender with the tracker. Returns 0 to go on (the
 * next number, a first one, or anything counted with -seqGaps count), or -1 after printing
 * the original's error line. *record (may be NULL) tells whether the message gives a latency
 * sample (not a duplicate or one too old to tell). */
int tperf_track_msg(tperf_worker *w, tperf_session *s, uint64_t seq, bool *record);

/* Publishes the tracker's and (seqMCast) the channel's counts since the last call. */
void tperf_track_publish(tperf_worker *w, tperf_session *s);

/* Before s's channel is closed: the last publication, and its seqMCast counters kept. */
void tperf_track_closing(tperf_worker *w, tperf_session *s);

/* Frees the tracker. */
void tperf_track_free(tperf_worker *w);

#endif
