/*
 * pv_feed: what a provider publishes, built from MsgData.xml.
 *
 * Loading reads the message file with msgdata (validated against the dictionary) and turns
 * each MarketPrice / MarketByOrder template into a pv_tmpl — the pre-encoded entries that the
 * provider copies into every message — with the largest message size per domain, and, for
 * -preEnc, each update encoded whole once so that a non-latency update is one copy and a
 * stream id. The templates stay owned by the returned pv_content until pv_content_free().
 */
#ifndef RWFPERF_PV_FEED_H
#define RWFPERF_PV_FEED_H

#include "pv_burst.h"
#include "pv_config.h"
#include "rwf_dict.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct pv_content pv_content;

/* Loads the message file at path against dict and fills f->dom[] (the other members of f are
 * left as they are). pre_enc also pre-encodes the updates. Returns the content (owner of what
 * f points to), or NULL with err_msg() saying what is wrong and where ("MsgData.xml:14: ..."). */
pv_content *pv_content_load(const char *path, const rwf_dict *dict, bool pre_enc, pv_feed *f);

/* What both providers load before they start: the dictionary (RDMFieldDictionary and
 * enumtype.def, into *dict, which the caller frees with rwf_dict_free() whatever the result)
 * and then the message file at path (pv_content_load), each from the working folder or else
 * the installed data folder (datafile.h). Returns the content, or NULL with
 * err_msg() set. */
pv_content *pv_content_open(rwf_dict **dict, const char *path, bool pre_enc, pv_feed *f);

/* Sets the publishing options of f from the providers' options (-refreshBurstSize, -nanoTime,
 * -noScheduledStamp, -measureEncode, -preEnc). */
void pv_feed_options(pv_feed *f, int refresh_burst, bool nano_time, bool sched_stamp,
                     bool measure_encode, bool pre_enc);

/* A provider's content from its options: pv_content_open of pv->msg_file (-msgFile; the
 * dictionary into *dict, freed by the caller whatever the result), the "Data loaded" line on
 * stdout, then f's publishing options (pv_feed_options). Returns the content, or NULL with
 * err_msg() set. */
pv_content *pv_content_start(rwf_dict **dict, pv_feed *f, const pv_config *pv);

/* The update rate of pv into rates, with the schedule of the updates that carry a latency stamp
 * in *upd (run_stamps, drawn from seed): rates->upd_lat is upd, or NULL when none does (then
 * *upd is not to be freed). Returns 0, or -1 with "Config Error: -latencyUpdateRate" pushed on
 * err_msg(). */
int pv_rates_updates(pv_rates *rates, lra *upd, const pv_config *pv, uint64_t seed);

/* Renders the JSON form of every update and generic message of c once with conv (the
 * converter of the provider's rssl.json.v2 channels) into f->dom[].json, so that a JSON
 * channel copies the text and writes the stream id and stamps into it (rjs_tmpl) instead of
 * converting each message. A template whose form cannot be cut into slots (its own values
 * hold the marks' digits) keeps being converted. Returns 0, or -1 with err_msg() set (out of
 * memory, a message the converter refuses). */
int pv_content_json(pv_content *c, const rjs_conv *conv, pv_feed *f);

/* Frees the content (f's templates become invalid). NULL is allowed. */
void pv_content_free(pv_content *c);

/* Writes the line the ETA providers print after loading the file ("Data loaded from XML. ..."). */
void pv_content_print_loaded(const pv_content *c, FILE *out);

/* Writes the "Approximate message sizes:" block the ETA providers print for each new channel:
 * estimated and encoded length of the refresh and of each update, per domain present. */
void pv_content_print_sizes(const pv_content *c, FILE *out);

#endif
