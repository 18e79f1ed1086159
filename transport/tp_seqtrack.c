/* Sequence numbers per sender: gaps, lost, duplicate, late and old numbers, restarts. A
 * sender keeps its newest number and a 64-bit window of which numbers just behind it arrived,
 * so that a late number can be told from a duplicate (and taken back from the lost count). */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "tp_mcast.h"

int tp_seqtrack_init(tp_seqtrack *t, uint32_t max_senders, bool wrap32)
{
    memset(t, 0, sizeof(*t));
    if (max_senders == 0)
        max_senders = TP_SEQ_DEFAULT_SENDERS;
    if (max_senders > (1u << 20))
        max_senders = 1u << 20;
    uint32_t size = 4;
    while (size < 2 * max_senders)
        size <<= 1;
    t->tab = calloc(size, sizeof(*t->tab));
    if (!t->tab)
        return err_set("out of memory for a table of %u senders", max_senders);
    t->mask = size - 1;
    t->max_senders = max_senders;
    t->wrap32 = wrap32;
    return 0;
}

void tp_seqtrack_free(tp_seqtrack *t)
{
    free(t->tab);
    t->tab = NULL;
}

void tp_seqtrack_reset(tp_seqtrack *t)
{
    memset(t->tab, 0, ((size_t)t->mask + 1) * sizeof(*t->tab));
    t->n = 0;
    t->hit = 0;
    memset(&t->total, 0, sizeof(t->total));
    t->untracked = 0;
}

static inline bool same(const tp_mc_from *a, const tp_mc_from *b)
{
    return a->addr == b->addr && a->port == b->port && a->instance_id == b->instance_id;
}

static inline uint32_t slot_of(const tp_seqtrack *t, const tp_mc_from *f)
{
    uint64_t k = (uint64_t)f->addr << 32 | (uint32_t)f->port << 16 | f->instance_id;
    k *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 40) & t->mask;
}

/* The entry of from; with add, a new one when it is absent and the table has room. NULL
 * when absent (and not added). *added tells whether it is new. */
static tp_seq_sender *lookup(tp_seqtrack *t, const tp_mc_from *from, bool add, bool *added)
{
    *added = false;
    tp_seq_sender *e = &t->tab[t->hit];
    if (e->used && same(&e->from, from))
        return e;
    for (uint32_t i = slot_of(t, from);; i = (i + 1) & t->mask) {
        e = &t->tab[i];
        if (e->used && same(&e->from, from)) {
            t->hit = i;
            return e;
        }
        if (!e->used) {
            if (!add || t->n >= t->max_senders)
                return NULL;
            memset(e, 0, sizeof(*e));
            e->used = 1;
            e->from = *from;
            t->n++;
            t->hit = i;
            *added = true;
            return e;
        }
    }
}

const tp_seq_sender *tp_seqtrack_find(const tp_seqtrack *t, const tp_mc_from *from)
{
    if (!t->tab)
        return NULL;
    for (uint32_t i = slot_of(t, from);; i = (i + 1) & t->mask) {
        const tp_seq_sender *e = &t->tab[i];
        if (!e->used)
            return NULL;
        if (same(&e->from, from))
            return e;
    }
}

void tp_seqtrack_each(const tp_seqtrack *t, void (*fn)(const tp_seq_sender *s, void *arg),
                      void *arg)
{
    if (!t->tab)
        return;
    for (uint32_t i = 0; i <= t->mask; i++)
        if (t->tab[i].used)
            fn(&t->tab[i], arg);
}

/* Steps forward from a to b: for 32-bit numbers on the ring 1..2^32-1 (0 is skipped). */
static inline uint64_t fwd(const tp_seqtrack *t, uint64_t a, uint64_t b)
{
    if (!t->wrap32)
        return b - a;
    uint64_t m = 0xFFFFFFFFull; /* ring size */
    uint64_t x = a ? a - 1 : m - 1, y = b ? b - 1 : m - 1;
    return (y + m - x) % m;
}

/* A step count that means "ahead" (below half the ring). */
static inline bool ahead(const tp_seqtrack *t, uint64_t d)
{
    return d != 0 && d < (t->wrap32 ? 0x80000000ull : 0x8000000000000000ull);
}

static inline uint64_t ring_size(const tp_seqtrack *t)
{
    return t->wrap32 ? 0xFFFFFFFFull : 0; /* 0: 2^64, where unsigned negation is exact */
}

/* Moves the newest number d steps forward; the numbers passed are marked not received. */
static inline void advance(tp_seq_sender *e, uint64_t d, uint64_t seq)
{
    e->window = d >= TP_SEQ_WINDOW ? 0 : e->window << d;
    e->last = seq;
}

static void count(tp_seqtrack *t, tp_seq_sender *e, tp_seq_verdict v, uint64_t missing)
{
    switch (v) {
    case TP_SEQ_GAP:
        e->c.gaps++, t->total.gaps++;
        e->c.lost += missing, t->total.lost += missing;
        /* fall through */
    case TP_SEQ_NEXT:
    case TP_SEQ_FIRST:
        e->c.received++, t->total.received++;
        break;
    case TP_SEQ_LATE:
        e->c.late++, t->total.late++;
        e->c.received++, t->total.received++;
        if (e->c.lost) {
            e->c.lost--;
            t->total.lost--;
        }
        break;
    case TP_SEQ_RESET:
        e->c.resets++, t->total.resets++;
        e->c.received++, t->total.received++;
        break;
    case TP_SEQ_DUP:
        e->c.duplicates++, t->total.duplicates++;
        break;
    case TP_SEQ_OLD:
        e->c.old++, t->total.old++;
        break;
    default:
        break;
    }
}

/* A number at or behind the newest: duplicate, late arrival, restart or too old. */
static tp_seq_verdict behind(tp_seqtrack *t, tp_seq_sender *e, uint64_t seq, uint64_t back)
{
    uint64_t start = t->wrap32 ? 1 : 0;
    bool in_window = back < TP_SEQ_WINDOW;
    bool seen = in_window ? (e->window >> back) & 1 : true;
    if (seq == start && (seen || e->first <= start)) {
        e->first = e->last = seq;
        e->window = 1;
        return TP_SEQ_RESET;
    }
    if (!in_window)
        return TP_SEQ_OLD;
    if (seen)
        return TP_SEQ_DUP;
    e->window |= 1ull << back;
    return TP_SEQ_LATE;
}

tp_seq_verdict tp_seqtrack_data(tp_seqtrack *t, const tp_mc_from *from, uint64_t seq,
                                uint64_t *missing)
{
    uint64_t miss = 0;
    bool added;
    tp_seq_verdict v;
    tp_seq_sender *e = lookup(t, from, true, &added);
    if (!e) {
        t->untracked++;
        t->expected = seq;
        v = TP_SEQ_UNTRACKED;
        goto out;
    }
    t->expected = added ? seq : t->wrap32 && e->last == 0xFFFFFFFFull ? 1 : e->last + 1;
    if (added || (t->wrap32 && seq == 0)) {
        /* a new sender; or 0 in a 32-bit header, which a sender never numbers data with */
        v = added ? TP_SEQ_FIRST : TP_SEQ_RESET;
        e->first = e->last = seq;
        e->window = 1;
        e->data = 1;
        count(t, e, v, 0);
        goto out;
    }
    if (!e->data) { /* only pings so far: numbers count from the last one they gave */
        e->data = 1;
        e->first = seq;
    }
    uint64_t d = fwd(t, e->last, seq);
    if (ahead(t, d)) {
        advance(e, d, seq);
        e->window |= 1;
        miss = d - 1;
        v = miss ? TP_SEQ_GAP : TP_SEQ_NEXT;
    } else {
        v = behind(t, e, seq, d ? ring_size(t) - d : 0);
    }
    count(t, e, v, miss);
out:
    if (missing)
        *missing = miss;
    return v;
}

tp_seq_verdict tp_seqtrack_ping(tp_seqtrack *t, const tp_mc_from *from, uint64_t seq,
                                uint64_t *missing)
{
    uint64_t miss = 0;
    bool added;
    tp_seq_verdict v = TP_SEQ_NEXT;
    tp_seq_sender *e = lookup(t, from, true, &added);
    if (!e) {
        t->untracked++;
        v = TP_SEQ_UNTRACKED;
    } else if (added) {
        e->first = e->last = seq;
        e->window = 1; /* what came before is unknown: nothing is counted for it */
        v = TP_SEQ_FIRST;
    } else if (t->wrap32 && seq == 0) {
        v = TP_SEQ_OLD; /* a restarted sender that sent nothing yet: its data will say so */
    } else {
        uint64_t d = fwd(t, e->last, seq);
        if (ahead(t, d)) {
            advance(e, d, seq);
            miss = d;
            e->c.gaps++, t->total.gaps++;
            e->c.lost += d, t->total.lost += d;
            v = TP_SEQ_GAP;
        } else if (d != 0) {
            v = TP_SEQ_OLD;
        }
    }
    if (missing)
        *missing = miss;
    return v;
}
