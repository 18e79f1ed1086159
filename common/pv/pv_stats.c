#include "pv_stats.h"

#include "err.h"

#include <string.h>

int pv_stats_init(pv_stats *s, size_t ring_size)
{
    memset(s, 0, sizeof(*s));
    counter *all[] = {&s->requests,        &s->refreshes,   &s->updates,      &s->posts,
                      &s->closes,          &s->out_of_bufs, &s->genmsgs_sent, &s->genmsgs_recv,
                      &s->genmsg_lat_sent, &s->msgs_packed, &s->packs};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        counter_init(all[i]);
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

void pv_stats_take(pv_stats *s, pv_counts *out, pv_counts *sum)
{
    out->requests = counter_change(&s->requests);
    out->refreshes = counter_change(&s->refreshes);
    out->updates = counter_change(&s->updates);
    out->posts = counter_change(&s->posts);
    out->closes = counter_change(&s->closes);
    out->out_of_bufs = counter_change(&s->out_of_bufs);
    out->genmsgs_sent = counter_change(&s->genmsgs_sent);
    out->genmsgs_recv = counter_change(&s->genmsgs_recv);
    out->genmsg_lat_sent = counter_change(&s->genmsg_lat_sent);
    out->msgs_packed = counter_change(&s->msgs_packed);
    out->packs = counter_change(&s->packs);
    if (!sum)
        return;
    sum->requests += out->requests;
    sum->refreshes += out->refreshes;
    sum->updates += out->updates;
    sum->posts += out->posts;
    sum->closes += out->closes;
    sum->out_of_bufs += out->out_of_bufs;
    sum->genmsgs_sent += out->genmsgs_sent;
    sum->genmsgs_recv += out->genmsgs_recv;
    sum->genmsg_lat_sent += out->genmsg_lat_sent;
    sum->msgs_packed += out->msgs_packed;
    sum->packs += out->packs;
}
