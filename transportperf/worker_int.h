/*
 * worker_int: what the two halves of a TransportPerf worker share: worker.c (set-up, sessions,
 * the loop) and worker_io.c (receiving and sending messages). Worker thread only.
 */
#ifndef RWFPERF_TPERF_WORKER_INT_H
#define RWFPERF_TPERF_WORKER_INT_H

#include "worker.h"

/* Closes session i: prints why (NULL: an orderly close of ours), accounts its time, frees it.
 * A client that loses a connection that was active ends the test (docs/tools.md#transportperf). */
void worker_session_close(tperf_worker *w, int i, const char *why);

/* Closes session i after a transport failure, with the transport's reason (err_msg()). A
 * reader that was too slow lost messages: the test failed. */
void worker_session_fail(tperf_worker *w, int i);

/* Reads what session i has, until nothing is buffered or the deadline passes (checked before
 * each read system call); with -reflectMsgs writes each message back. Returns 0, or -1 when
 * the session was closed. */
int worker_session_read(tperf_worker *w, int i, int64_t deadline);

/* Sends the current tick's burst on session i: tick_burst() messages, the one the latency
 * random array picks time-stamped, packed -pack at a time. Returns 0, or -1 when the session
 * was closed. */
int worker_send_burst(tperf_worker *w, int i, const tick *t);

#endif
