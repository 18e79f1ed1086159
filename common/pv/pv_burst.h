/*
 * pv_burst: the bursts a provider sends on a channel each tick (docs/tools.md#ticks-and-bursts,
 * #latency-random-array, #provperf).
 *
 *   - updates: n = tick_burst(rate) messages, round robin over the items of the update ring,
 *     each item taking its MsgData updates in turn; the message at the burst position the
 *     latency random array gives (lra.h) carries the send time, and our scheduled time;
 *   - generic messages: the same over the same items, with the generic templates;
 *   - refreshes: up to -refreshBurstSize items from the refresh queue; each goes to the update
 *     ring after its refresh, or is closed if it was a snapshot request.
 *
 * A session (pv_sess) is one channel with its items and its write path. The content (pv_feed)
 * is shared by every thread and only read. Counters and latencies go to the thread's pv_stats.
 *
 * Out of output buffers: the rest of the burst is dropped and counted as out of buffers (for
 * updates and generic messages; refreshes stay queued for a later burst), and TP_ENOBUFS is
 * returned; the channel stays up. TP_EFAIL means the channel failed (err_msg() says why).
 *
 * The per-message path allocates nothing, takes no lock and makes no system call of its own:
 * the transport sends when its high-water mark is reached.
 */
#ifndef RWFPERF_PV_BURST_H
#define RWFPERF_PV_BURST_H

#include "pv_items.h"
#include "pv_msg.h"
#include "run_chan.h"
#include "run_out.h"
#include "pv_stats.h"
#include "rjs_tmpl.h"
#include "lra.h"
#include "tick.h"

#include <stdbool.h>
#include <stdint.h>

/* Content domains: index of a domain in pv_feed.dom. */
enum { PV_DOM_MP = 0, PV_DOM_MBO = 1, PV_DOMS = 2 };

/* The index of an RDM domain in pv_feed.dom, or -1 when it is not one a provider publishes. */
static inline int pv_dom_index(uint8_t domain)
{
    return domain == 6 ? PV_DOM_MP : domain == 7 ? PV_DOM_MBO : -1;
}

/* What a provider publishes for one domain. */
typedef struct pv_dom {
    bool present;           /* MsgData.xml has content for the domain */
    pv_tmpl refresh;        /* the image */
    const pv_tmpl *updates; /* n_updates templates */
    uint16_t n_updates;
    const pv_tmpl *generics; /* n_generics templates (0: no generic messages) */
    uint16_t n_generics;
    uint32_t max_size;         /* largest update or generic message, stamps included */
    const uint8_t *const *pre; /* -preEnc: each update encoded whole (stream id 0), or NULL */
    const uint32_t *pre_len;
    /* rssl.json.v2: the JSON form of each update then each generic message, PV_JSON_FORMS per
     * template (pv_json_form), or NULL (converted at each send). A form that is not built
     * (text NULL) is converted too. */
    const rjs_tmpl *json;
} pv_dom;

/* The JSON forms of a template: with or without each latency stamp (the send time, value 1,
 * and the scheduled time, value 2, of pv_json_vals); value 0 is the stream id. */
enum { PV_JSON_FORMS = 4, PV_JSON_VALS = 3 };

/* The index of the form for a message with the stamps now and sched (0 = none). */
static inline unsigned pv_json_form(uint64_t now, uint64_t sched)
{
    return (now != 0) | (unsigned)(sched != 0) << 1;
}

/* What every provider thread publishes, and how (read-only while threads run). */
typedef struct pv_feed {
    pv_dom dom[PV_DOMS];
    uint32_t refresh_burst; /* -refreshBurstSize */
    bool nano_time;         /* -nanoTime: stamps in nanoseconds, else microseconds */
    bool sched_stamp;       /* append the scheduled send time (off with -noScheduledStamp) */
    bool measure_encode;    /* -measureEncode */
    bool pre_enc;           /* -preEnc */
} pv_feed;

/* A provider's session: one channel, its items and its write path. */
typedef struct pv_sess {
    tp_channel *ch; /* the bare channel, or NULL (reactor modes) */
    rx_chan *rx;    /* the reactor channel, or NULL (bare mode) */
    run_out out;
    pv_items items;
    int64_t active_ns;     /* when the channel became active; bursts of earlier ticks skip it */
    int64_t pub_ns;        /* when its first update or generic burst went out; 0 = none yet */
    struct run_drv_ch *dc; /* the session driver's channel (bare mode), or NULL */
    bool json;             /* the channel speaks rssl.json.v2 (messages converted both ways) */
    uint64_t packed_seen, packs_seen; /* packing counts already added to the statistics */
    void *tool;                       /* the tool's own per-channel data */
    rx_tunnel *tun;                   /* a consumer's tunnel stream on the channel, or NULL */
    bool tun_open;                    /* open: the item traffic goes inside (out writes to it) */
    bool tun_auth_wait;               /* its login (authentication) is not answered yet */
    bool standby; /* a warm-standby consumer made this server its standby: items are opened
                   * and refreshed, but no updates or generic messages go out until it is
                   * made active again */
} pv_sess;

/* A send stamp now, in the feed's unit. */
uint64_t pv_feed_now(const pv_feed *f);

/* A time in CLOCK_MONOTONIC nanoseconds in the feed's unit. */
static inline uint64_t pv_feed_unit(const pv_feed *f, int64_t ns)
{
    return f->nano_time ? (uint64_t)ns : (uint64_t)(ns / 1000);
}

/*
 * Sends n updates on session s. lat_pos is the burst's latency position (lra_next()/lra_at(), or
 * LRA_NONE), sched_ns the scheduled time of the burst (the tick deadline). Returns 0,
 * TP_ENOBUFS (the rest of the burst was dropped and counted) or TP_EFAIL. Does nothing when the
 * update ring is empty, or when s is a warm-standby consumer's standby (s->standby).
 */
int pv_burst_updates(pv_sess *s, const pv_feed *f, pv_stats *st, uint64_t n, int64_t lat_pos,
                     int64_t sched_ns);

/* Sends n generic messages the same way (TIM_TRK_3 stamp). */
int pv_burst_generics(pv_sess *s, const pv_feed *f, pv_stats *st, uint64_t n, int64_t lat_pos,
                      int64_t sched_ns);

/* Sends one burst of up to f->refresh_burst refreshes from the refresh queue. Returns 0,
 * TP_ENOBUFS (the remaining items stay queued) or TP_EFAIL. */
int pv_burst_refreshes(pv_sess *s, const pv_feed *f, pv_stats *st);

/* The per-connection rates of a provider, and where their latency stamps go. */
typedef struct pv_rates {
    uint64_t updates;   /* updates per second per channel (0: none) */
    uint64_t generics;  /* generic messages per second per channel (0: none) */
    const lra *upd_lat; /* latency positions of updates; NULL: no stamps */
    const lra *gen_lat; /* of generic messages; NULL: no stamps */
} pv_rates;

/* The high-water mark of a provider's bare channel when -highWaterMark is not given:
 * RUN_BURST_HWM (common/run/run_chan.h), so that a tick's burst leaves in the one send() at
 * the end of the tick (pv_burst_tick) instead of one send() per 6,000 bytes
 * (docs/performance.md#provperf-cpu). */
#define PV_BURST_HWM RUN_BURST_HWM

/* Gives bare channel ch the high-water mark PV_BURST_HWM, unless -highWaterMark was given
 * (opt_hwm > 0: the transport keeps it). */
void pv_burst_set_hwm(tp_channel *ch, int opt_hwm);

/*
 * Everything session s sends in the current tick of t: skipped when the channel became active
 * after the tick was due (a new channel does not inherit catch-up bursts); else the update
 * burst, the generic-message burst, then refresh bursts while the clock is before the next
 * tick's deadline; the open packed buffer is written and the queue flushed (one send(); what
 * remains leaves when the socket drains). Returns 0, TP_ENOBUFS
 * (counted; the channel is kept) or TP_EFAIL (close the channel; err_msg() says why).
 */
int pv_burst_tick(pv_sess *s, const pv_feed *f, const pv_rates *r, pv_stats *st, const tick *t);

#endif
