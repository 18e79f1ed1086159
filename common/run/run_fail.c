#include "run_fail.h"

#include "err.h"
#include "sig.h"

#include <stdio.h>

void run_fail_init(run_fail *f)
{
    atomic_init(&f->claimed, 0);
    atomic_init(&f->published, 0);
    atomic_init(&f->worst, RUN_EXIT_OK);
    f->text[0] = '\0';
}

bool run_fail_set(run_fail *f, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool first = run_fail_vset(f, status, fmt, ap);
    va_end(ap);
    return first;
}

int run_fail_stop(run_fail *f, const char *what)
{
    if (what)
        err_push("%s", what);
    run_fail_set(f, RUN_EXIT_FAILED, "%s", err_msg());
    sig_request_stop();
    return -1;
}

bool run_fail_vset(run_fail *f, int status, const char *fmt, va_list ap)
{
    int cur = atomic_load_explicit(&f->worst, memory_order_relaxed);
    while (cur < status && !atomic_compare_exchange_weak_explicit(
                               &f->worst, &cur, status, memory_order_release, memory_order_relaxed))
        ;
    int none = 0;
    if (!atomic_compare_exchange_strong(&f->claimed, &none, 1))
        return false;
    vsnprintf(f->text, sizeof(f->text), fmt, ap);
    if (!f->text[0])
        snprintf(f->text, sizeof(f->text), "unknown error");
    atomic_store_explicit(&f->published, 1, memory_order_release);
    return true;
}

int run_fail_status(const run_fail *f)
{
    run_fail *m = (run_fail *)f; /* atomic loads of a const object */
    if (!atomic_load_explicit(&m->published, memory_order_acquire))
        return RUN_EXIT_OK;
    return atomic_load_explicit(&m->worst, memory_order_acquire);
}

const char *run_fail_text(const run_fail *f)
{
    return run_fail_status(f) != RUN_EXIT_OK ? f->text : "";
}
