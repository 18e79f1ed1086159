/*
 * ConsPerf on WebSocket channels (docs/wire.md#json, docs/modes.md#json-options):
 *
 *  - writing: every message is encoded as RWF; on a rssl.json.v2 channel it is encoded into a
 *    scratch buffer and converted to JSON into the transport's buffer (the login, directory
 *    and item requests are then the ETA ConsPerf's JSON text);
 *  - reading a JSON frame natively (the default): item messages are read in place
 *    (jdecode.c) and handled without RWF; admin messages (login, directory) are converted to
 *    RWF and handled as on RIPC; JSON pings in a frame are answered;
 *  - reading with -addConversionOverhead: every message of the frame is converted to RWF and
 *    handled as on RIPC;
 *  - -calcRWFJSONConversionLatency on a rssl.rwf channel: each item message is converted to
 *    JSON before it is decoded, so the conversion counts in the measured latency.
 */
#include "payload.h"
#include "jdecode.h"
#include "worker.h"

#include "clk.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a message converted either way, and for -calcRWFJSONConversionLatency's JSON. */
#define CONS_JSON_RWF_MAX (256u * 1024u)
#define CONS_JSON_TEXT_MAX (2u * 1024u * 1024u)

int cons_json_start(cons_worker *w)
{
    const cons_config *cfg = w->cfg;
    w->json = run_json_channel(w->ch);
    w->native = w->json && !cfg->add_conversion;
    bool calc = cfg->calc_json_latency && !w->json;
    if (!w->json && !calc)
        return 0;
    if (!w->run->json)
        return err_set("a rssl.json.v2 channel (or -calcRWFJSONConversionLatency) needs the "
                       "dictionary files RDMFieldDictionary and enumtype.def (in the working "
                       "folder or the data folder), to name the fields");
    if (!w->jin.rwf && run_json_init(&w->jin, w->run->json->conv, CONS_JSON_RWF_MAX) < 0)
        return -1;
    if (!w->jout && !(w->jout = malloc(calc ? CONS_JSON_TEXT_MAX : CONS_JSON_RWF_MAX)))
        return err_set("out of memory for JSON conversion");
    w->jout_cap = calc ? CONS_JSON_TEXT_MAX : CONS_JSON_RWF_MAX;
    w->calc = calc;
    if (w->native) /* the ETA ConsPerf's native mode requests streaming, never private */
        for (uint32_t i = 0; i < w->item_count; i++)
            w->items[i].streaming = true;
    return 0;
}

void cons_json_free(cons_worker *w)
{
    run_json_free(&w->jin);
    free(w->jout);
    w->jout = NULL;
}

/* ---- reading ----------------------------------------------------------------------------- */

int cons_json_calc(cons_worker *w, rwf_buf rwf)
{
    size_t len = 0;
    if (rjs_msg_to_json(w->run->json->conv, rwf, (char *)w->jout, w->jout_cap, &len) != RWF_OK)
        return err_push("-calcRWFJSONConversionLatency: converting a received message to JSON");
    w->decode_sum += len;
    return 0;
}

/* An admin message of a natively read frame: converted to RWF and handled as on RIPC. */
static int native_admin(cons_worker *w, const cons_jmsg *m)
{
    size_t len = 0;
    if (rjs_json_to_msg(w->run->json->conv, m->text, m->text_len, w->jin.rwf, w->jin.rwf_cap,
                        &len) < 0)
        return err_push("converting a JSON %s message", m->domain == RWF_DMT_LOGIN    ? "login"
                                                        : m->domain == RWF_DMT_SOURCE ? "directory"
                                                                                      : "admin");
    return cons_on_rwf(w, w->jin.rwf, (uint32_t)len);
}

static int native_frame(cons_worker *w, const tp_msg *tm)
{
    cons_jreader r;
    cons_jreader_init(&r, (const char *)tm->data, tm->len);
    cons_jmsg m;
    int rc;
    for (;;) {
        int64_t t0 = w->cfg->measure_decode ? clk_ns() : 0;
        if ((rc = cons_jreader_next(&r, &m)) <= 0)
            break;
        if (m.kind == CONS_JMSG_PING) {
            if (run_json_pong(w->ch) < 0 && tp_get_state(w->ch) == TP_STATE_CLOSED)
                return cons_fail(w, "answering a JSON ping");
            continue;
        }
        if (m.kind == CONS_JMSG_PONG)
            continue;
        if (m.kind == CONS_JMSG_ERROR) {
            err_set("the provider sent a JSON Error message: %.*s", (int)m.text_len, m.text);
            return cons_fail(w, NULL);
        }
        if (m.stream_id >= CONS_ITEM_STREAM_START) {
            if (cons_on_jitem(w, &m, t0) < 0)
                return -1;
        } else if (native_admin(w, &m) < 0) {
            return cons_fail(w, NULL);
        }
    }
    if (rc < 0)
        return cons_fail(w, "reading a JSON frame");
    return 0;
}

static int converted_frame(cons_worker *w, const tp_msg *tm)
{
    run_json_in in;
    run_json_in_start(&in, &w->jin, w->ch, tm->data, tm->len);
    rwf_buf rwf;
    int rc;
    while ((rc = run_json_in_next(&in, &rwf)) > 0)
        if (cons_on_rwf(w, (const uint8_t *)rwf.data, (uint32_t)rwf.len) < 0)
            return -1;
    if (rc < 0)
        return cons_fail(w, "converting a JSON frame");
    return 0;
}

int cons_json_frame(cons_worker *w, const tp_msg *tm)
{
    return w->native ? native_frame(w, tm) : converted_frame(w, tm);
}
