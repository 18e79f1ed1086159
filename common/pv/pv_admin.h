/*
 * pv_admin: what both provider tools say about themselves: the one service of their source
 * directory (docs/wire.md#directory; ProvPerf advertises its OpenLimit, NIProvPerf none).
 */
#ifndef RWFPERF_PV_ADMIN_H
#define RWFPERF_PV_ADMIN_H

#include "pv_burst.h"
#include "rwf_rdm.h"
#include "tp.h"

#include <stdint.h>
#include <stdio.h>

/* Fills s with the service `name` / id: Info (vendor, capabilities: dictionary, the domains the
 * feed has content for, system), State (up, accepting requests), and Load with OpenLimit when
 * open_limit > 0. s->name points to name, which must outlive s. */
void pv_admin_service(rwf_service *s, const char *name, uint16_t id, const pv_feed *f,
                      uint64_t open_limit);

#endif
