/* TransportPerf's statistics on the main thread: each interval, and the summary. */
#include "app.h"

#include "err.h"
#include "run_setup.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sequence and seqMCast counts of worker w, added to s. */
static void worker_seq(tperf_worker *w, tperf_stats *s)
{
    if (!w->tracked) {
        s->seq_gaps += w->seq_gaps;
        s->seq_lost += w->seq_lost;
        return;
    }
    const tp_seq_counts *c = &w->trk.total;
    s->tracked = true;
    s->seq_gaps += c->gaps;
    s->seq_lost += c->lost;
    s->seq_dups += c->duplicates;
    s->seq_ooo += c->late + c->old;
    s->seq_short += counter_total(&w->sq[TPERF_SQ_SHORT]);
    s->seq_untracked += w->trk.untracked;
    if (!w->mc_any)
        return;
    const tp_mc_stats *m = &w->mc_done;
    s->mcast = true;
    s->mc.pkts_sent += m->pkts_sent;
    s->mc.pkts_recv += m->pkts_recv;
    s->mc.retrans_sent += m->retrans_sent;
    s->mc.retrans_recv += m->retrans_recv;
    s->mc.pings_sent += m->pings_sent;
    s->mc.pings_recv += m->pings_recv;
    s->mc.loss_dropped += m->loss_dropped;
    s->mc.bad += m->bad;
    for (int k = 0; k < TP_MC_BAD_KINDS; k++)
        s->mc.bad_kind[k] += m->bad_kind[k];
    s->mc.seq.gaps += m->seq.gaps;
    s->mc.seq.lost += m->seq.lost;
    s->mc.seq.duplicates += m->seq.duplicates;
    s->mc.seq.late += m->seq.late;
    s->mc.seq.old += m->seq.old;
    s->mc.senders += m->senders;
    s->mc.untracked += m->untracked;
}

/* The counts of workers [from, to) over the run, into s (latencies are left to the caller);
 * trk (room for to - from) receives their trackers. */
static void worker_stats(tperf_worker *ws, int from, int to, tperf_stats *s,
                         const tp_seqtrack **trk)
{
    memset(s, 0, sizeof(*s));
    s->trk = trk;
    for (int k = from; k < to; k++) {
        tperf_worker *w = &ws[k];
        s->msgs_sent += counter_total(&w->msgs_sent);
        s->bytes_sent += counter_total(&w->bytes_sent);
        s->msgs_recv += counter_total(&w->msgs_recv);
        s->bytes_recv += counter_total(&w->bytes_recv);
        s->out_of_bufs += counter_total(&w->out_of_bufs);
        worker_seq(w, s);
        if (w->tracked && trk)
            trk[s->n_trk++] = &w->trk;
        s->first_seq += w->first_seq;
        s->conn_secs += w->conn_secs;
        if (w->connect_ns && (!s->connect_ns || (uint64_t)w->connect_ns < s->connect_ns))
            s->connect_ns = (uint64_t)w->connect_ns;
        if ((uint64_t)w->disconnect_ns > s->disconnect_ns)
            s->disconnect_ns = (uint64_t)w->disconnect_ns;
    }
}

/* Says once that a worker measured a negative latency (unsynchronised clocks). */
void tperf_check_negative(tperf_app *R, tperf_worker *w)
{
    int64_t neg = atomic_load_explicit(&w->neg_send, memory_order_acquire);
    if (neg && !R->neg_warned) {
        R->neg_warned = true;
        tperf_report_negative_latency(&R->rep, (uint64_t)neg, (uint64_t)atomic_load(&w->neg_recv));
    }
}

/* Collects one interval of every worker and writes its console lines (second `sec`) and
 * statistics rows. */
void tperf_collect(tperf_app *R, unsigned sec)
{
    run_col_interval(&R->col);
    for (int i = 0; i < R->n; i++) {
        tperf_worker *w = &R->w[i];
        tperf_interval iv;
        memset(&iv, 0, sizeof(iv));
        const lat *set = run_col_take(&R->col, i);
        if (set) {
            lat_summary(&set[TPERF_LAT], &iv.lat);
            lat_summary(&set[TPERF_LAT_SCHED], &iv.lat_sched);
        }
        tperf_check_negative(R, w);
        iv.msgs_sent = counter_change(&w->msgs_sent);
        iv.bytes_sent = counter_change(&w->bytes_sent);
        iv.msgs_recv = counter_change(&w->msgs_recv);
        iv.bytes_recv = counter_change(&w->bytes_recv);
        iv.out_of_bufs = counter_change(&w->out_of_bufs);
        iv.tracked = w->tracked;
        iv.gaps = counter_change(&w->sq[TPERF_SQ_GAPS]);
        iv.lost = (int64_t)counter_change(&w->sq[TPERF_SQ_LOST]);
        iv.dups = counter_change(&w->sq[TPERF_SQ_DUPS]);
        iv.ooo = counter_change(&w->sq[TPERF_SQ_OOO]);
        iv.mcast = R->cfg.opts.conn_type == TP_CONN_SEQ_MCAST;
        iv.mcast_stats = R->cfg.mcast_stats;
        iv.pkts_sent = counter_change(&w->sq[TPERF_MC_SENT]);
        iv.pkts_recv = counter_change(&w->sq[TPERF_MC_RECV]);
        iv.retrans_sent = counter_change(&w->sq[TPERF_MC_RSENT]);
        iv.retrans_recv = counter_change(&w->sq[TPERF_MC_RRECV]);
        iv.cpu = R->col.cpu;
        iv.mem_mb = R->col.mem_mb;
        run_col_row_done(&R->col, i,
                         tperf_report_stats_row(run_col_stats(&R->col, i), R->col.wall, &iv));
        if (R->cfg.opts.display_stats)
            tperf_report_interval(stdout, sec, i + 1, R->n,
                                  (unsigned)R->cfg.opts.write_stats_interval, &iv);
    }
    fflush(stdout);
}

/* The summary (console and file) and the JSON summary. */
void tperf_write_summary(tperf_app *R)
{
    tperf_stats *ts = calloc((size_t)R->n, sizeof(*ts));
    const tp_seqtrack **trk = calloc((size_t)R->n + 1, sizeof(*trk));
    tperf_result result;
    memset(&result, 0, sizeof(result));
    result.thread_count = ts ? R->n : 1;
    result.thread = ts;
    result.pid = R->cfg.pid;
    for (int i = 0; ts && i < R->n; i++)
        worker_stats(R->w, i, i + 1, &ts[i], trk ? trk + i : NULL);
    worker_stats(R->w, 0, R->n, &result.total, trk);
    for (int i = -1; i < R->n; i++) {
        tperf_stats *s = i < 0 ? &result.total : ts ? &ts[i] : NULL;
        if (s) {
            run_col_summary(&R->col, i, TPERF_LAT, &s->lat);
            run_col_summary(&R->col, i, TPERF_LAT_SCHED, &s->lat_sched);
        }
    }
    run_col_res(&R->col, &result.res);
    tperf_report_summary(&R->rep, &R->cfg, &result);
    if (out_report_flush(&R->rep) != 0) {
        printf("Error: %s\n", err_msg());
        R->status = run_worst(R->status, RUN_EXIT_FAILED);
    }
    json_object *doc = tperf_report_json(&R->cfg, &result, NULL, time(NULL));
    json_object *results = NULL;
    if (doc && json_object_object_get_ex(doc, "results", &results)) {
        run_tls_seen all;
        run_tls_seen_init(&all);
        for (int i = 0; i < R->n; i++)
            for (int k = 0; k < R->w[i].tls_seen.n; k++)
                for (unsigned c = 0; c < R->w[i].tls_seen.v[k].connections; c++)
                    run_tls_seen_add(&all, R->w[i].tls_seen.v[k].version,
                                     R->w[i].tls_seen.v[k].cipher);
        json_object *tls = run_tls_seen_json(&all);
        if (tls)
            out_json_add(results, "tls", tls);
        pthread_mutex_destroy(&all.lock);
    }
    if (run_json_summary(R->cfg.opts.summary_file, doc) != 0)
        R->status = run_worst(R->status, RUN_EXIT_FAILED);
    free(ts);
    free(trk);
}
