/* The session driver over the Reactor layer: see run_drv.h. */
#include "run_drv.h"

void run_drv_rx_conn(const run_opts *o, const run_link *l, rx_conn_opts *co)
{
    rx_conn_opts_init(co);
    run_conn_tp(o, l, &co->tp);
    co->high_water_mark = o->high_water_mark > 0 ? (uint32_t)o->high_water_mark : 0;
}
