#include "latbuf.h"

#include "clk.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int latbuf_init(latbuf *b, size_t n)
{
    memset(b, 0, sizeof(*b));
    if (n == 0)
        return err_set("latbuf: no recorders asked for");
    lat *all = malloc(2 * n * sizeof(lat));
    if (!all)
        return err_set("latbuf: out of memory for %zu latency recorders", 2 * n);
    for (size_t i = 0; i < 2 * n; i++)
        lat_reset(&all[i]);
    b->set[0] = all;
    b->set[1] = all + n;
    b->n = n;
    b->cur = b->set[0];
    atomic_init(&b->req, 0);
    atomic_init(&b->ack, 0);
    atomic_init(&b->closed, 0);
    return 0;
}

void latbuf_free(latbuf *b)
{
    free(b->set[0]);
    memset(b, 0, sizeof(*b));
}

void latbuf_close(latbuf *b)
{
    atomic_store_explicit(&b->closed, 1, memory_order_release);
}

static void reset_set(lat *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lat_reset(&set[i]);
}

/* Main-side state: `asked` requests were raised; the set in `owned` answers request number
 * `got`. While got != asked a request is pending. */

void latbuf_request(latbuf *b)
{
    if (b->final) {
        /* The worker is gone and its last set was taken: later intervals are empty. */
        reset_set(b->owned, b->n);
        return;
    }
    if (b->got != b->asked)
        return;
    /* The worker is on the other set, so this one is the main thread's to empty. */
    if (b->owned)
        reset_set(b->owned, b->n);
    b->asked++;
    atomic_store_explicit(&b->req, b->asked, memory_order_release);
}

const lat *latbuf_take(latbuf *b)
{
    if (b->final || b->got == b->asked)
        return b->owned;
    /* `closed` is read before `ack`: the worker stores its last acknowledgement before it
     * closes, so once closed is seen the acknowledgement read after it is the last one. (Read
     * the other way round, a worker that acknowledged and closed between the two loads would
     * look as if it had left without acting, and the set it handed over would be lost.) */
    int closed = atomic_load_explicit(&b->closed, memory_order_acquire);
    uint64_t a = atomic_load_explicit(&b->ack, memory_order_acquire);
    if (a == b->asked) {
        b->got = b->asked;
        b->owned = b->set[(b->asked - 1) & 1];
        return b->owned;
    }
    if (closed) {
        /* The worker left without acting on the request: its active set is the one its last
         * acknowledgement pointed it to. */
        b->owned = b->set[a & 1];
        b->got = b->asked;
        b->final = true;
        return b->owned;
    }
    return NULL;
}

const lat *latbuf_collect(latbuf *b, int64_t timeout_ns)
{
    latbuf_request(b);
    int64_t deadline = clk_ns() + timeout_ns;
    for (;;) {
        const lat *set = latbuf_take(b);
        if (set)
            return set;
        if (clk_ns() >= deadline)
            return NULL;
        struct timespec nap = {0, 20000}; /* 20 us: a worker polls at least once per tick */
        nanosleep(&nap, NULL);
    }
}
