#include "pv_stats.h"

#include "err.h"

#include <string.h>

/* The counters of a pv_stats in the order of pv_counts. */
typedef struct pv_counters {
    counter *c[PV_COUNTS];
} pv_counters;

static pv_counters counters_of(pv_stats *s)
{
    return (pv_counters){{&s->requests, &s->refreshes, &s->updates, &s->posts, &s->closes,
                          &s->out_of_bufs, &s->genmsgs_sent, &s->genmsgs_recv, &s->genmsg_lat_sent,
                          &s->msgs_packed, &s->packs}};
}

int pv_stats_init(pv_stats *s, size_t ring_size)
{
    memset(s, 0, sizeof(*s));
    pv_counters all = counters_of(s);
    for (size_t i = 0; i < PV_COUNTS; i++)
        counter_init(all.c[i]);
    atomic_init(&s->first_genmsg_sent_ns, 0);
    atomic_init(&s->first_genmsg_recv_ns, 0);
    atomic_init(&s->inactive_ns, 0);
    atomic_init(&s->conn_ns, 0);
    if (latbuf_init(&s->lat, PV_LAT_KINDS) != 0)
        return err_push("provider statistics");
    if (ring_size) {
        if (latring_init(&s->ring, ring_size) != 0) {
            latbuf_free(&s->lat);
            return err_push("provider latency log");
        }
        s->ring_on = true;
    }
    return 0;
}

void pv_stats_free(pv_stats *s)
{
    latbuf_free(&s->lat);
    if (s->ring_on)
        latring_free(&s->ring);
    s->ring_on = false;
}

void pv_counts_add(pv_counts *sum, const pv_counts *d)
{
    for (size_t i = 0; i < PV_COUNTS; i++)
        sum->all[i] += d->all[i];
}

void pv_stats_take(pv_stats *s, pv_counts *out, pv_counts *sum)
{
    pv_counters all = counters_of(s);
    for (size_t i = 0; i < PV_COUNTS; i++)
        out->all[i] = counter_change(all.c[i]);
    if (sum)
        pv_counts_add(sum, out);
}
