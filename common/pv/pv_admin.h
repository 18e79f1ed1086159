/*
 * pv_admin: what both provider tools say about themselves: the one service of their source
 * directory (wire.md §5.3; ProvPerf advertises its OpenLimit, NIProvPerf none), the
 * "Channel N active. Channel Info:" block the ETA tools print when a channel comes up, and the
 * "Channel Closed" line they print when it goes.
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

/* Writes the Channel Info block of an active channel. Returns 0, or -1 (err_msg() set) when the
 * channel is not active. */
int pv_admin_print_channel(tp_channel *ch, FILE *out);

/* Writes the line of a channel that closed, worded as the ETA providers word it: "Channel
 * Closed." for an orderly close of ours (why NULL), else "Channel Closed:
 * RSSL_RET_FAILURE(<why>)". */
void pv_admin_print_closed(const char *why, FILE *out);

#endif
