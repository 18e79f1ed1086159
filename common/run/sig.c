#include "sig.h"

#include "err.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Lock-free atomics, so the handler may touch them (async-signal-safe). */
static atomic_int stop_flag;
static atomic_int caught;
/* Readable once a stop was requested (sig_wake_fd); -1 before sig_install(). */
static int wake_fd = -1;

/* Makes wake_fd readable; async-signal-safe (one write). */
static void wake(void)
{
    if (wake_fd >= 0) {
        uint64_t one = 1;
        ssize_t n = write(wake_fd, &one, sizeof(one));
        (void)n; /* EAGAIN: the counter is already non-zero */
    }
}

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be lock-free for signal handlers");

static void on_signal(int signo)
{
    int saved = errno;
    if (atomic_exchange(&stop_flag, 1) && atomic_load(&caught) != 0) {
        /* Asked twice: stop now, the way the signal normally does. */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(signo, &sa, NULL);
        raise(signo);
    }
    int none = 0;
    atomic_compare_exchange_strong(&caught, &none, signo);
    wake();
    errno = saved;
}

int sig_install(void)
{
    if (wake_fd < 0 && (wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        return err_set_errno(errno, "eventfd for the stop request");
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: blocking waits return EINTR */
    if (sigaction(SIGINT, &sa, NULL) != 0)
        return err_set_errno(errno, "sigaction(SIGINT)");
    if (sigaction(SIGTERM, &sa, NULL) != 0)
        return err_set_errno(errno, "sigaction(SIGTERM)");

    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGPIPE, &ign, NULL) != 0)
        return err_set_errno(errno, "sigaction(SIGPIPE)");
    return 0;
}

bool sig_stop_requested(void)
{
    return atomic_load_explicit(&stop_flag, memory_order_relaxed) != 0;
}

void sig_request_stop(void)
{
    atomic_store(&stop_flag, 1);
    wake();
}

int sig_wake_fd(void)
{
    return wake_fd;
}

int sig_caught(void)
{
    return atomic_load(&caught);
}

void sig_reset(void)
{
    atomic_store(&caught, 0);
    atomic_store(&stop_flag, 0);
    if (wake_fd >= 0) {
        uint64_t v;
        ssize_t n = read(wake_fd, &v, sizeof(v));
        (void)n; /* EAGAIN: nothing was requested */
    }
}

int sig_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    int rc = pthread_create(tid, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int sig_thread_start(sig_thread *t, void *(*fn)(void *), void *arg, const char *what, int number)
{
    int rc = sig_thread_create(&t->tid, fn, arg);
    if (rc != 0)
        return err_set_errno(rc, "starting %s %d", what, number);
    t->started = true;
    return 0;
}

void sig_thread_join(sig_thread *t)
{
    if (t->started)
        pthread_join(t->tid, NULL);
    t->started = false;
}
