/*
 * sig: orderly shutdown on SIGINT and SIGTERM.
 *
 * The first SIGINT or SIGTERM sets a process-wide stop flag that every loop checks
 * (sig_stop_requested()); the tool then ends its threads and still writes its summary. A
 * second one, while the first is being honoured, ends the process at once with the signal's
 * default action, for a tool that does not stop. The handlers are installed without
 * SA_RESTART, so a blocking wait (epoll_wait, ppoll, nanosleep) in the thread that receives
 * the signal returns EINTR and its loop sees the flag at once; other threads see it at their
 * next wake-up (within one tick).
 *
 * A worker that fails sets the same flag with sig_request_stop(), so there is one notion of
 * "the run is ending". SIGPIPE is ignored: a peer that closes shows as an EPIPE write error.
 */
#ifndef RWFPERF_SIG_H
#define RWFPERF_SIG_H

#include <pthread.h>
#include <stdbool.h>

/* Installs the handlers (SIGINT, SIGTERM) and ignores SIGPIPE. Returns 0, or -1 with
 * err_msg() set. */
int sig_install(void);

/* True once a stop was requested, by a signal or by sig_request_stop(). Cheap: one load. */
bool sig_stop_requested(void);

/* Requests a stop from inside the program (a failed worker, the end of the run). */
void sig_request_stop(void);

/* A descriptor that becomes readable (POLLIN) when a stop is requested, by a signal or by
 * sig_request_stop(), so that a thread waiting for long (the main thread's one-second loop)
 * wakes at once; -1 before sig_install(). Only to wait on: sig_reset() empties it. */
int sig_wake_fd(void);

/* The signal that requested the stop (SIGINT, SIGTERM), or 0 when none did. */
int sig_caught(void);

/* Starts a thread with SIGINT and SIGTERM blocked, so that they reach the main thread, whose
 * wait they interrupt at once (the new thread sees the stop flag within a tick). Returns
 * pthread_create()'s result: 0, or an errno value. */
int sig_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);

/* One of a tool's threads: its id, and whether it runs (started and not joined yet). */
typedef struct sig_thread {
    pthread_t tid;
    bool started;
} sig_thread;

/* Starts fn(arg) in t as sig_thread_create() does and marks it started. Returns 0, or -1 with
 * err_msg() set to "starting <what> <number>: <reason>". */
int sig_thread_start(sig_thread *t, void *(*fn)(void *), void *arg, const char *what, int number);

/* Joins t when it was started, and marks it joined. */
void sig_thread_join(sig_thread *t);

/* Clears the flag and the caught signal (tests; a tool never needs it). */
void sig_reset(void);

#endif
