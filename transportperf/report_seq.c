/* TransportPerf's reports of sequence checks and seqMCast datagrams: the summary lines, the
 * interval lines, the statistics columns and the JSON members. The original prints only the
 * "Multicast:" interval line (-mcastStats); everything else here is ours and comes after the
 * original's lines. */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Senders listed by name in the summary; the rest are summed up in one line. */
#define SENDERS_LISTED 16

bool tperf_tracked(const tperf_config *cfg)
{
    return cfg->opts.conn_type == TP_CONN_SEQ_MCAST || cfg->gap_mode == TPERF_GAPS_COUNT;
}

typedef struct sender_lines {
    out_report *r;
    int listed, more;
} sender_lines;

static void sender_line(const tp_seq_sender *e, void *arg)
{
    sender_lines *sl = arg;
    if (sl->listed >= SENDERS_LISTED) {
        sl->more++;
        return;
    }
    char from[48];
    tp_mc_from_str(&e->from, from, sizeof(from));
    out_printf(sl->r,
               "  Sender %s: msgs %" PRIu64 ", first %" PRIu64 ", last %" PRIu64 ", gaps %" PRIu64
               ", lost %" PRIu64 ", duplicated %" PRIu64 ", out of order %" PRIu64 "\n",
               from, e->c.received, e->first, e->last, e->c.gaps, e->c.lost, e->c.duplicates,
               e->c.late + e->c.old);
    sl->listed++;
}

/* The datagrams of the seqMCast channels. */
static void mcast_lines(out_report *r, const tp_mc_stats *m)
{
    out_printf(r,
               "  Multicast datagrams: sent %" PRIu64 ", received %" PRIu64 ", lost %" PRIu64
               ", duplicated %" PRIu64 ", out of order %" PRIu64 "\n",
               m->pkts_sent, m->pkts_recv, m->seq.lost, m->seq.duplicates,
               m->seq.late + m->seq.old);
    if (m->bad || m->loss_dropped) {
        out_printf(r,
                   "  Multicast datagrams dropped: %" PRIu64 " by the loss generator, %" PRIu64
                   " malformed",
                   m->loss_dropped, m->bad);
        const char *sep = " (";
        for (int k = 0; k < TP_MC_BAD_KINDS; k++)
            if (m->bad_kind[k]) {
                out_printf(r, "%s%s: %" PRIu64, sep, tp_mc_bad_name((tp_mc_bad)k), m->bad_kind[k]);
                sep = ", ";
            }
        out_printf(r, "%s\n", m->bad ? ")" : "");
    }
    if (m->untracked)
        out_printf(r, "  Multicast datagrams of senders not followed: %" PRIu64 "\n", m->untracked);
}

void tperf_report_seq_lines(out_report *r, const tperf_stats *s)
{
    bool any = s->msgs_recv || s->seq_gaps || s->seq_short || s->seq_untracked;
    if (s->mcast && !any) {
        mcast_lines(r, &s->mc); /* a sender that received nothing */
        return;
    }
    out_printf(r,
               "  Sequence gaps: %" PRIu64 "\n"
               "  Msgs lost: %" PRIu64 "\n",
               s->seq_gaps, s->seq_lost);
    if (s->tracked)
        out_printf(r,
                   "  Msgs duplicated: %" PRIu64 "\n"
                   "  Msgs out of order: %" PRIu64 "\n",
                   s->seq_dups, s->seq_ooo);
    if (s->seq_short)
        out_printf(r, "  Msgs too short to check: %" PRIu64 "\n", s->seq_short);
    if (s->seq_untracked)
        out_printf(r, "  Msgs of senders not followed: %" PRIu64 "\n", s->seq_untracked);
    if (!s->mcast)
        return;
    sender_lines sl = {.r = r};
    for (int i = 0; i < s->n_trk; i++)
        tp_seqtrack_each(s->trk[i], sender_line, &sl);
    if (sl.more)
        out_printf(r, "  ... and %d more senders\n", sl.more);
    mcast_lines(r, &s->mc);
}

void tperf_report_interval_mcast(FILE *f, const tperf_interval *iv)
{
    if (iv->mcast && iv->mcast_stats)
        fprintf(f,
                "  Multicast: Pkts Sent: %" PRIu64 ", Pkts Received: %" PRIu64
                ", : Retrans sent: %" PRIu64 ", Retrans received: %" PRIu64 "\n",
                iv->pkts_sent, iv->pkts_recv, iv->retrans_sent, iv->retrans_recv);
}

void tperf_report_interval_seq(FILE *f, const tperf_interval *iv)
{
    if (iv->tracked && (iv->gaps || iv->lost || iv->dups || iv->ooo))
        fprintf(f,
                "  Sequence: gaps %" PRIu64 ", lost %" PRId64 ", duplicated %" PRIu64
                ", out of order %" PRIu64 "\n",
                iv->gaps, iv->lost, iv->dups, iv->ooo);
}

int tperf_seq_header(char *buf, size_t size, const tperf_config *cfg)
{
    const char *seq = tperf_tracked(cfg) ? ", Sequence gaps, Msgs lost, Msgs duplicated, Msgs out "
                                           "of order"
                                         : "";
    const char *mc = cfg->opts.conn_type == TP_CONN_SEQ_MCAST
                         ? ", Multicast pkts sent, Multicast pkts received"
                         : "";
    int w = snprintf(buf, size, "%s%s", seq, mc);
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

void tperf_seq_values(char *buf, size_t size, const tperf_interval *iv)
{
    int w = 0;
    buf[0] = '\0';
    if (iv->tracked)
        w = snprintf(buf, size, ", %" PRIu64 ", %" PRId64 ", %" PRIu64 ", %" PRIu64, iv->gaps,
                     iv->lost, iv->dups, iv->ooo);
    if (iv->mcast && w >= 0 && (size_t)w < size)
        snprintf(buf + w, size - (size_t)w, ", %" PRIu64 ", %" PRIu64, iv->pkts_sent,
                 iv->pkts_recv);
}

typedef struct sender_json {
    json_object *a;
} sender_json;

static void sender_obj(const tp_seq_sender *e, void *arg)
{
    json_object *a = ((sender_json *)arg)->a;
    char from[48];
    uint32_t ad = e->from.addr;
    snprintf(from, sizeof(from), "%u.%u.%u.%u", ad >> 24, (ad >> 16) & 0xFF, (ad >> 8) & 0xFF,
             ad & 0xFF);
    json_object *o = json_object_new_object();
    out_json_add(o, "address", json_object_new_string(from));
    out_json_add(o, "port", json_object_new_int(e->from.port));
    out_json_add(o, "instance_id", json_object_new_int(e->from.instance_id));
    const out_json_count counts[] = {{"msgs", e->c.received},
                                     {"first", e->first},
                                     {"last", e->last},
                                     {"gaps", e->c.gaps},
                                     {"lost", e->c.lost},
                                     {"duplicates", e->c.duplicates},
                                     {"out_of_order", e->c.late + e->c.old}};
    out_json_add_counts(o, counts, OUT_LEN(counts));
    json_object_array_add(a, o);
}

static json_object *mcast_json(const tp_mc_stats *m)
{
    json_object *o = json_object_new_object();
    const out_json_count counts[] = {{"pkts_sent", m->pkts_sent},
                                     {"pkts_received", m->pkts_recv},
                                     {"retrans_sent", m->retrans_sent},
                                     {"retrans_received", m->retrans_recv},
                                     {"pings_sent", m->pings_sent},
                                     {"pings_received", m->pings_recv},
                                     {"gaps", m->seq.gaps},
                                     {"lost", m->seq.lost},
                                     {"duplicates", m->seq.duplicates},
                                     {"out_of_order", m->seq.late + m->seq.old},
                                     {"loss_generator_dropped", m->loss_dropped}};
    out_json_add_counts(o, counts, OUT_LEN(counts));
    json_object *bad = json_object_new_object();
    out_json_add(bad, "total", json_object_new_uint64(m->bad));
    static const char *const keys[TP_MC_BAD_KINDS] = {
        "short",      "version",       "protocol_type", "header_length",
        "length_cut", "length_beyond", "oversize"};
    for (int k = 0; k < TP_MC_BAD_KINDS; k++)
        out_json_add(bad, keys[k], json_object_new_uint64(m->bad_kind[k]));
    out_json_add(o, "malformed", bad);
    out_json_add(o, "senders", json_object_new_int64(m->senders));
    out_json_add(o, "untracked", json_object_new_uint64(m->untracked));
    return o;
}

void tperf_seq_json(json_object *o, const tperf_stats *s)
{
    if (s->tracked) {
        json_object *q = json_object_new_object();
        const out_json_count counts[] = {
            {"gaps", s->seq_gaps},       {"lost", s->seq_lost},
            {"duplicates", s->seq_dups}, {"out_of_order", s->seq_ooo},
            {"too_short", s->seq_short}, {"untracked", s->seq_untracked}};
        out_json_add_counts(q, counts, OUT_LEN(counts));
        if (s->mcast) {
            sender_json sj = {json_object_new_array()};
            for (int i = 0; sj.a && i < s->n_trk; i++)
                tp_seqtrack_each(s->trk[i], sender_obj, &sj);
            out_json_add(q, "senders", sj.a);
        }
        out_json_add(o, "sequence", q);
    }
    if (s->mcast)
        out_json_add(o, "multicast", mcast_json(&s->mc));
}
