/*
 * pv_inputs: what ProvPerf and NIProvPerf load before their threads start, in one place: the
 * dictionary and the content of the message file, the rates with their latency-stamp
 * schedules, the service of the directory and the login Position. The threads read it only.
 */
#ifndef RWFPERF_PV_INPUTS_H
#define RWFPERF_PV_INPUTS_H

#include "lra.h"
#include "pv_burst.h"
#include "pv_config.h"
#include "pv_feed.h"
#include "rwf_dict.h"
#include "rwf_rdm.h"

#include <stdint.h>

typedef struct pv_inputs {
    rwf_dict *dict;       /* RDMFieldDictionary + enumtype.def: validation, dictionary requests */
    pv_content *content;  /* MsgData.xml content, owner of the feed's templates */
    pv_feed feed;         /* what the threads publish */
    pv_rates rates;       /* per-connection rates and latency arrays */
    lra upd_lra, gen_lra; /* latency positions (when the rates ask for stamps) */
    rwf_service service;  /* the service of the directory */
    char position[64];    /* login Position: "<ip>/net", or "localhost" */
} pv_inputs;

/* The generic messages a provider sends: per second per channel (0: none) and how many of
 * those carry a latency stamp (-genericMsgRate, -genericMsgLatencyRate). */
typedef struct pv_generic_rates {
    int rate;
    int latency_rate;
} pv_generic_rates;

/*
 * Loads in (zeroed by the caller) from the providers' options pv: the content
 * (pv_content_start, which prints the "Data loaded" line); with generic messages asked for, a
 * check that every domain of the content has generic messages; the update rate with its
 * latency stamps (pv_rates_updates) and the generic messages' rate and stamps (their own
 * schedule, drawn from the next seed); the service (pv_admin_service with open_limit, 0 for no
 * OpenLimit) and the Position. Returns 0, or -1 with err_msg() set ("Config Error:
 * -genericMsgLatencyRate", ...); pv_inputs_free() frees what was made either way.
 */
int pv_inputs_load(pv_inputs *in, const pv_config *pv, pv_generic_rates gen, uint64_t open_limit);

/* Frees what pv_inputs_load() made. */
void pv_inputs_free(pv_inputs *in);

#endif
