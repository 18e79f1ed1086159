#include "run_loop.h"

#include "clk.h"
#include "run_prog.h"
#include "sig.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/* The longest single wait when no stop request can wake the loop (sig_wake_fd() is -1: no
 * sig_install()): a stop request is then seen within this. */
#define STEP_NS (100 * 1000 * 1000)

void run_loop_init(run_loop *l, int interval_s, int run_time_s)
{
    memset(l, 0, sizeof(*l));
    l->start_ns = clk_ns();
    l->interval = interval_s > 0 ? (unsigned)interval_s : 1;
    l->has_end = run_time_s >= 0;
    l->end_ns = l->start_ns + (int64_t)(run_time_s > 0 ? run_time_s : 0) * CLK_NS_PER_SEC;
}

void run_loop_serve(run_loop *l, tp_server *srv, run_handoff *const *to, int n,
                    const run_accept_text *text)
{
    l->srv = srv;
    l->to = to;
    l->n_to = n;
    l->text = text;
    run_accept_all(srv, to, n, text);
}

/* Waits until deadline, accepting meanwhile; returns early when a stop is requested. The wait
 * is one ppoll() over the server and sig_wake_fd(), which a stop request makes readable, so the
 * thread wakes once a second (and for each connection), not every STEP_NS. */
static void wait_until(run_loop *l, int64_t deadline)
{
    const int wfd = sig_wake_fd();
    for (;;) {
        int64_t now = clk_ns();
        if (now >= deadline || sig_stop_requested())
            return;
        int64_t left = deadline - now;
        if (wfd < 0 && left > STEP_NS)
            left = STEP_NS;
        struct pollfd p[2];
        nfds_t n = 0;
        if (l->srv)
            p[n++] = (struct pollfd){.fd = tp_server_fd(l->srv), .events = POLLIN};
        if (wfd >= 0)
            p[n++] = (struct pollfd){.fd = wfd, .events = POLLIN};
        if (n == 0) {
            clk_sleep_until(now + left);
            continue;
        }
        struct timespec ts = clk_timespec(left);
        int rc = ppoll(p, n, &ts, NULL);
        if (rc > 0 && l->srv && p[0].revents) {
            run_accept_all(l->srv, l->to, l->n_to, l->text);
        } else if (rc < 0 && errno != EINTR) {
            printf("Error: poll on the server: %s\n", strerror(errno));
            clk_sleep_until(now + (left < STEP_NS ? left : STEP_NS));
        }
    }
}

int run_loop_next(run_loop *l)
{
    if (sig_stop_requested())
        return RUN_LOOP_STOP;
    if (l->has_end && clk_ns() >= l->end_ns)
        return RUN_LOOP_END;
    wait_until(l, l->start_ns + (int64_t)(l->sec + 1) * CLK_NS_PER_SEC);
    if (sig_stop_requested())
        return RUN_LOOP_STOP;
    l->sec++;
    if (++l->since < l->interval)
        return RUN_LOOP_SECOND;
    l->since = 0;
    return RUN_LOOP_INTERVAL;
}

void run_loop_prog(const run_loop *l, struct run_prog_text *t, int64_t now)
{
    if (l->has_end)
        run_prog_add(t, "%lld s left",
                     l->end_ns > now
                         ? (long long)((l->end_ns - now + CLK_NS_PER_SEC - 1) / CLK_NS_PER_SEC)
                         : 0LL);
    if (l->srv) {
        int open = 0;
        for (int i = 0; i < l->n_to; i++)
            open += atomic_load_explicit(&l->to[i]->open, memory_order_relaxed);
        run_prog_add(t, "%d channel%s", open, open == 1 ? "" : "s");
    }
}
