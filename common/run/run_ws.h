/*
 * run_ws: WebSocket connections as the tools offer them, once:
 *
 *  - the -pl option (the sub-protocol list: a client offers it in this order, a server accepts
 *    it with its own order winning; a server without it refuses every WebSocket upgrade, as the
 *    ETA providers do) and its check at start;
 *  - the RWF <-> JSON converter of a run (rssl.json.v2 channels), which names fields from the
 *    run's dictionary and knows its service by name.
 *
 * -connType websocket is TP_CONN_WEBSOCKET; inside TLS it is -encryptedConnType websocket
 * (run_tls); run_conn maps them to the transport's settings.
 */
#ifndef RWFPERF_RUN_WS_H
#define RWFPERF_RUN_WS_H

#include "opt.h"
#include "rjs.h"
#include "tp.h"

typedef struct run_ws {
    char pl[256]; /* -pl as given */
} run_ws;

#define RUN_WS_OPTION(T, f)                                                                        \
    OPT_STR_("-pl", T, f.pl, "<list>",                                                             \
             "WebSocket sub-protocols (rssl.rwf, rssl.json.v2, tr_json2), comma or space "         \
             "separated: a client offers them in this order, a server accepts them (its order "    \
             "wins); a server without -pl refuses WebSocket clients")

/* Checks -pl. Returns 0, or -1 with err_msg() "Config Error: -pl: ...". */
int run_ws_check(const run_ws *w);

/* The run's RWF <-> JSON converter, with the service it resolves names to. */
typedef struct run_ws_conv {
    rjs_conv *conv;
    char service_name[256];
    uint16_t service_id;
} run_ws_conv;

/*
 * A converter for the run's rssl.json.v2 channels: field names from dict (which must outlive
 * it), ENUM values as numbers, unknown keys refused, an item key's "Service" given by name
 * resolved to service_id when the name is service_name, keys without one given service_id.
 * Returns NULL with err_msg() set; free it with run_ws_converter_free().
 */
run_ws_conv *run_ws_converter(const rwf_dict *dict, const char *service_name, uint16_t service_id);

void run_ws_converter_free(run_ws_conv *c);

#endif
