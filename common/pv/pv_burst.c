#include "pv_burst.h"

#include "clk.h"
#include "err.h"
#include "lat.h"
#include "lra.h"

#include <string.h>

uint64_t pv_feed_now(const pv_feed *f)
{
    return f->nano_time ? (uint64_t)clk_ns() : (uint64_t)clk_us();
}

/* Which templates a burst uses, and how it counts. */
typedef enum { KIND_UPDATE, KIND_GENERIC } burst_kind;

/* Sends a message on a JSON channel from its ready forms (forms: the PV_JSON_FORMS of its
 * template), stamped with the send time (read now) and sched when stamp. Returns 1 when sent,
 * 0 when the form needed is not built (the caller converts the message), or the error of
 * run_out_json_form. */
static inline int send_form(pv_sess *s, const pv_feed *f, const rjs_tmpl *forms, int32_t sid,
                            uint64_t sched, bool stamp, bool more)
{
    uint64_t now = stamp ? pv_feed_now(f) : 0;
    const rjs_tmpl *form = &forms[pv_json_form(now, sched)];
    if (!form->text)
        return 0;
    uint64_t vals[PV_JSON_VALS] = {(uint64_t)(int64_t)sid, now, sched};
    int rc = run_out_json_form(&s->out, form, vals, more);
    return rc < 0 ? rc : 1;
}

static inline int send_burst(pv_sess *s, const pv_feed *f, pv_stats *st, uint64_t n,
                             int64_t lat_pos, int64_t sched_ns, burst_kind kind)
{
    pv_items *items = &s->items;
    if (!items->update.count || !n)
        return 0;
    uint64_t sched = f->sched_stamp ? pv_feed_unit(f, sched_ns) : 0;
    uint64_t sent = 0, stamped = 0;
    lat *enc = f->measure_encode ? &latbuf_cur(&st->lat)[PV_LAT_ENCODE] : NULL;
    bool json = s->out.json && !enc; /* JSON forms, unless encoding is measured */
    int rc = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t idx = pv_items_next_update(items);
        pv_item *it = pv_items_at(items, idx);
        const pv_dom *d = &f->dom[pv_dom_index(it->domain)];
        const pv_tmpl *t;
        uint16_t ti;
        if (kind == KIND_UPDATE) {
            ti = it->upd_tmpl;
            it->upd_tmpl = (uint16_t)(ti + 1 == d->n_updates ? 0 : ti + 1);
            t = &d->updates[ti];
        } else {
            if (!d->n_generics)
                continue; /* the domain has no generic content (checked at start) */
            ti = it->gen_tmpl;
            it->gen_tmpl = (uint16_t)(ti + 1 == d->n_generics ? 0 : ti + 1);
            t = &d->generics[ti];
        }
        bool stamp = lra_stamp(lat_pos, i);
        /* A JSON channel: the message's ready JSON form, unless encoding is measured. */
        if (json && d->json) {
            rc = send_form(s, f,
                           &d->json[(kind == KIND_UPDATE ? ti : d->n_updates + ti) * PV_JSON_FORMS],
                           it->stream_id, stamp ? sched : 0, stamp, i + 1 < n);
            if (rc < 0)
                break;
            if (rc > 0) {
                sent++;
                stamped += stamp;
                continue;
            }
        }
        uint8_t *at;
        rc = run_out_begin(&s->out, d->max_size, &at);
        if (rc < 0)
            break;
        uint32_t len;
        if (stamp) {
            /* The send time is read as the encoding starts, as the ETA providers read it. */
            int64_t t0 = enc ? clk_ns() : 0;
            uint64_t now = pv_feed_now(f);
            len = kind == KIND_UPDATE ? pv_msg_update(at, it->stream_id, t, now, sched)
                                      : pv_msg_generic(at, it->stream_id, t, now, sched);
            if (enc)
                lat_record(enc, clk_ns() - t0);
        } else if (kind == KIND_UPDATE && d->pre) {
            len = d->pre_len[ti];
            memcpy(at, d->pre[ti], len);
            pv_msg_set_stream(at, it->stream_id);
        } else {
            len = kind == KIND_UPDATE ? pv_msg_update(at, it->stream_id, t, 0, 0)
                                      : pv_msg_generic(at, it->stream_id, t, 0, 0);
        }
        rc = run_out_end(&s->out, len, i + 1 < n);
        if (rc < 0)
            break;
        sent++;
        stamped += stamp;
    }
    if (sent) {
        if (kind == KIND_UPDATE) {
            counter_add(&st->updates, sent);
        } else {
            counter_add(&st->genmsgs_sent, sent);
            counter_add(&st->genmsg_lat_sent, stamped);
            if (!pv_stats_time(&st->first_genmsg_sent_ns))
                pv_stats_first(&st->first_genmsg_sent_ns, clk_ns());
        }
    }
    if (rc == TP_ENOBUFS)
        counter_add(&st->out_of_bufs, n - sent);
    return rc < 0 ? rc : 0;
}

int pv_burst_updates(pv_sess *s, const pv_feed *f, pv_stats *st, uint64_t n, int64_t lat_pos,
                     int64_t sched_ns)
{
    if (s->standby)
        return 0; /* a warm-standby consumer's standby: nothing until it is made active */
    return send_burst(s, f, st, n, lat_pos, sched_ns, KIND_UPDATE);
}

int pv_burst_generics(pv_sess *s, const pv_feed *f, pv_stats *st, uint64_t n, int64_t lat_pos,
                      int64_t sched_ns)
{
    if (s->standby)
        return 0;
    return send_burst(s, f, st, n, lat_pos, sched_ns, KIND_GENERIC);
}

int pv_burst_refreshes(pv_sess *s, const pv_feed *f, pv_stats *st)
{
    pv_items *items = &s->items;
    uint32_t n = items->refresh.count < f->refresh_burst ? items->refresh.count : f->refresh_burst;
    uint32_t sent = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = pv_items_refresh_head(items);
        pv_item *it = pv_items_at(items, idx);
        const pv_key *k = pv_items_key(items, idx);
        const pv_tmpl *t = &f->dom[pv_dom_index(it->domain)].refresh;
        uint32_t cap = pv_msg_refresh_max_size(t, k->name_len, k->attrib_len);
        uint8_t *at;
        rc = run_out_begin(&s->out, cap, &at);
        if (rc < 0)
            break;
        uint32_t len = pv_msg_refresh(at, cap, it, k, t);
        if (!len) {
            run_out_cancel(&s->out);
            rc = TP_EFAIL;
            break;
        }
        rc = run_out_end(&s->out, len, i + 1 < n);
        if (rc < 0)
            break;
        sent++;
        if (it->flags & PV_ITEM_STREAMING)
            pv_items_to_update(items, idx);
        else
            pv_items_remove(items, idx); /* a snapshot is done with its refresh */
    }
    if (sent)
        counter_add(&st->refreshes, sent);
    return rc < 0 ? rc : 0;
}

void pv_burst_set_hwm(tp_channel *ch, int opt_hwm)
{
    if (opt_hwm <= 0)
        tp_set_high_water_mark(ch, PV_BURST_HWM);
}

int pv_burst_tick(pv_sess *s, const pv_feed *f, const pv_rates *r, pv_stats *st, const tick *t)
{
    if (tick_deadline(t) < s->active_ns)
        return 0;
    int rc = 0;
    pv_items *items = &s->items;
    /* Publishing starts with the first update or generic-message burst. */
    if (!s->pub_ns && (r->updates || r->generics) && items->update.count)
        s->pub_ns = clk_ns();
    if (r->updates && items->update.count) {
        int64_t pos = r->upd_lat ? lra_at(r->upd_lat, t->second, t->index) : LRA_NONE;
        rc = pv_burst_updates(s, f, st, tick_burst(t, r->updates), pos, tick_deadline(t));
    }
    if (rc == 0 && r->generics && items->update.count) {
        int64_t pos = r->gen_lat ? lra_at(r->gen_lat, t->second, t->index) : LRA_NONE;
        rc = pv_burst_generics(s, f, st, tick_burst(t, r->generics), pos, tick_deadline(t));
    }
    while (rc == 0 && items->refresh.count && clk_ns() < t->next_ns)
        rc = pv_burst_refreshes(s, f, st);
    if (rc == TP_EFAIL)
        return rc;
    int q = run_out_close(&s->out);
    if (q == TP_ENOBUFS) { /* the open packed buffer was refused and dropped: keep the channel */
        rc = TP_ENOBUFS;
        q = (int)run_out_queued(&s->out);
    }
    if (q > 0)
        q = run_out_flush(&s->out);
    if (q < 0)
        return TP_EFAIL;
    counter_add(&st->msgs_packed, s->out.packed_msgs - s->packed_seen);
    counter_add(&st->packs, s->out.packs - s->packs_seen);
    s->packed_seen = s->out.packed_msgs;
    s->packs_seen = s->out.packs;
    return rc;
}
