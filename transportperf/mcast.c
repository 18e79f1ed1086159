/* TransportPerf's sequenced multicast (-connType seqMCast) and its tracker of message numbers
 * per sender (seqMCast, or any channel with -seqGaps count): the check of each message's number,
 * and the counts published to the main thread. (Its connection settings are run_conn's.) */
#include "worker.h"

#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int tperf_mc_init(tperf_worker *w)
{
    const tperf_config *cfg = w->cfg;
    for (int k = 0; k < TPERF_SQ_KINDS; k++)
        counter_init(&w->sq[k]);
    if (cfg->opts.conn_type == TP_CONN_SEQ_MCAST || cfg->gap_mode == TPERF_GAPS_COUNT) {
        if (tp_seqtrack_init(&w->trk, 0, false) != 0)
            return err_push("thread %d", w->index + 1);
        w->tracked = true;
    }
    return 0;
}

void tperf_track_free(tperf_worker *w)
{
    if (w->tracked)
        tp_seqtrack_free(&w->trk);
    w->tracked = false;
}

void tperf_mc_connect_line(const tperf_worker *w)
{
    const tperf_config *c = w->cfg;
    if (c->opts.conn_type == TP_CONN_SEQ_MCAST &&
        (c->opts.mc.send_addr[0] || c->opts.mc.recv_addr[0]))
        printf("\nAttempting segmented connect to server (send %s:%s,  recv %s:%s) unicastPort "
               "%s...\n",
               c->opts.mc.send_addr, c->opts.mc.send_port, c->opts.mc.recv_addr,
               c->opts.mc.recv_port, c->opts.mc.unicast_port);
    else
        printf("\nAttempting to connect to server %s:%s...\n", c->opts.host, c->opts.port);
}

int tperf_track_msg(tperf_worker *w, tperf_session *s, uint64_t seq, bool *record)
{
    tp_seq_verdict v = tp_seqtrack_data(&w->trk, &s->from, seq, NULL);
    if (record)
        *record = v != TP_SEQ_DUP && v != TP_SEQ_OLD;
    if (v == TP_SEQ_NEXT || v == TP_SEQ_UNTRACKED)
        return 0;
    if (v == TP_SEQ_FIRST) {
        if (!w->got_first) {
            w->first_seq = seq;
            w->got_first = true;
        }
        return 0;
    }
    if (w->cfg->gap_mode == TPERF_GAPS_COUNT)
        return 0;
    printf("Error: Received out-of-order sequence number(%" PRIu64 " instead of %" PRIu64 ").\n",
           seq, w->trk.expected);
    return -1;
}

/* dst += src, counter by counter (senders: the larger). */
static void mc_add(tp_mc_stats *dst, const tp_mc_stats *src)
{
    dst->pkts_sent += src->pkts_sent;
    dst->pkts_recv += src->pkts_recv;
    dst->retrans_sent += src->retrans_sent;
    dst->retrans_recv += src->retrans_recv;
    dst->pings_sent += src->pings_sent;
    dst->pings_recv += src->pings_recv;
    dst->loss_dropped += src->loss_dropped;
    dst->bad += src->bad;
    for (int k = 0; k < TP_MC_BAD_KINDS; k++)
        dst->bad_kind[k] += src->bad_kind[k];
    dst->seq.received += src->seq.received;
    dst->seq.gaps += src->seq.gaps;
    dst->seq.lost += src->seq.lost;
    dst->seq.duplicates += src->seq.duplicates;
    dst->seq.late += src->seq.late;
    dst->seq.old += src->seq.old;
    dst->seq.resets += src->seq.resets;
    if (src->senders > dst->senders)
        dst->senders = src->senders;
    dst->untracked += src->untracked;
}

void tperf_track_publish(tperf_worker *w, tperf_session *s)
{
    if (w->tracked) {
        const tp_seq_counts *t = &w->trk.total, *p = &w->trk_pub;
        counter_add(&w->sq[TPERF_SQ_GAPS], t->gaps - p->gaps);
        counter_add(&w->sq[TPERF_SQ_LOST], t->lost - p->lost); /* modulo 2^64: may go down */
        counter_add(&w->sq[TPERF_SQ_DUPS], t->duplicates - p->duplicates);
        counter_add(&w->sq[TPERF_SQ_OOO], (t->late + t->old) - (p->late + p->old));
        w->trk_pub = *t;
    }
    if (s && s->mc) {
        tp_mc_stats st;
        if (tp_mc_get_stats(s->ch, &st) != 0)
            return;
        counter_add(&w->sq[TPERF_MC_SENT], st.pkts_sent - s->mc_pub.pkts_sent);
        counter_add(&w->sq[TPERF_MC_RECV], st.pkts_recv - s->mc_pub.pkts_recv);
        counter_add(&w->sq[TPERF_MC_RSENT], st.retrans_sent - s->mc_pub.retrans_sent);
        counter_add(&w->sq[TPERF_MC_RRECV], st.retrans_recv - s->mc_pub.retrans_recv);
        s->mc_pub = st;
    }
}

void tperf_track_closing(tperf_worker *w, tperf_session *s)
{
    tperf_track_publish(w, s);
    if (s->mc)
        mc_add(&w->mc_done, &s->mc_pub);
}
