/*
 * worker_int: what the two halves of a TransportPerf worker share: worker.c (set-up, sessions,
 * the driver's callbacks) and worker_io.c (receiving and sending messages). Worker thread only.
 */
#ifndef RWFPERF_TPERF_WORKER_INT_H
#define RWFPERF_TPERF_WORKER_INT_H

#include "worker.h"

/* run_drv_ops.msg: one message read from channel c (a JSON frame: each message in it): the
 * checks of worker_on_msg, or with -reflectMsgs the message written back. Returns 0,
 * RUN_DRV_CLOSE (err_msg() says why; a wrong message also marks the test failed). */
int worker_on_read(void *w, run_drv_ch *c, const tp_msg *m);

/* run_drv_ops.msgs: the messages m[0..n) read from channel c, what worker_on_read does for
 * each, the usual one (the next number, no time stamp) checked in a few instructions. Returns
 * as worker_on_read does, for the first message that fails (the rest are not looked at). */
int worker_on_reads(void *w, run_drv_ch *c, const tp_msg *m, int n);

/* run_drv_ops.frames: the frames f[0..n) read from channel c, what worker_on_reads does for
 * their messages, a packed frame's walked in place (its lengths checked by the transport).
 * Returns as worker_on_reads does. */
int worker_on_frames(void *w, run_drv_ch *c, const tp_frame *f, int n);

/* run_drv_ops.batch: the counts of the read batch of c published. */
void worker_on_batch(void *w, run_drv_ch *c);

/* Sends the current tick's burst on session s: tick_burst() messages, the one the latency
 * random array picks time-stamped, packed -pack at a time; with s->burst_hwm what is queued
 * is then flushed. Returns 0, or -1 when the session was closed. */
int worker_send_burst(tperf_worker *w, tperf_session *s, const tick *t);

#endif
