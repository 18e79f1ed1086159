/* rx_ring: allocation of the single-producer single-consumer record ring (rx_ring.h). */
#include "rx_ring.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

int rx_ring_init(rx_ring *r, uint64_t bytes)
{
    memset(r, 0, sizeof(*r));
    uint64_t cap = 4096;
    while (cap < bytes) {
        if (cap >= (UINT64_C(1) << 40))
            return err_set("ring of %llu bytes is too large", (unsigned long long)bytes);
        cap <<= 1;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)cap) != 0)
        return err_set("out of memory for a ring of %llu bytes", (unsigned long long)cap);
    r->buf = p;
    r->cap = cap;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return 0;
}

void rx_ring_free(rx_ring *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}
