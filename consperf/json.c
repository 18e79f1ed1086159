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
 *
 * The state of both (struct cons_json, cons_worker.json) is made when the bare channel comes up
 * and speaks rssl.json.v2, or with -calcRWFJSONConversionLatency; a plain rssl.rwf channel has
 * none, and its messages do not come here. In the Reactor modes the layer converts.
 */
#include "payload.h"
#include "jdecode.h"
#include "worker.h"

#include "clk.h"
#include "err.h"
#include "run_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a message converted either way, and for -calcRWFJSONConversionLatency's JSON. */
#define CONS_JSON_RWF_MAX (256u * 1024u)
#define CONS_JSON_TEXT_MAX (2u * 1024u * 1024u)

/* JSON's state of a worker (cons_worker.json): a rssl.json.v2 channel, or
 * -calcRWFJSONConversionLatency on a rssl.rwf one. */
struct cons_json {
    bool calc;      /* -calcRWFJSONConversionLatency (the channel speaks rssl.rwf); else the
                     * channel speaks rssl.json.v2 */
    bool native;    /* JSON channel read and built natively (no -addConversionOverhead) */
    bool told_post; /* "It is not supported to send JSON ..." printed for posts */
    bool told_gen;  /* ... and for generic messages */
    run_json jin;   /* received JSON converted to RWF */
    uint8_t *jout;  /* JSON channel: a message as RWF before its conversion; rssl.rwf with
                     * -calcRWFJSONConversionLatency: the JSON of a received message */
    uint32_t jout_cap;
};

int cons_json_start(cons_worker *w)
{
    const cons_config *cfg = w->cfg;
    bool json = run_json_channel(w->ch);
    bool calc = cfg->calc_json_latency && !json;
    if (!json && !calc)
        return 0;
    if (!w->run->json)
        return err_set("a rssl.json.v2 channel (or -calcRWFJSONConversionLatency) needs the "
                       "dictionary files RDMFieldDictionary and enumtype.def (in the working "
                       "folder or the data folder), to name the fields");
    if (!w->json && !(w->json = calloc(1, sizeof(*w->json))))
        return err_set("out of memory for JSON conversion");
    struct cons_json *j = w->json;
    j->calc = calc;
    j->native = json && !cfg->add_conversion;
    if (!j->jin.rwf && run_json_init(&j->jin, w->run->json->conv, CONS_JSON_RWF_MAX) < 0)
        return -1;
    if (!j->jout && !(j->jout = malloc(calc ? CONS_JSON_TEXT_MAX : CONS_JSON_RWF_MAX)))
        return err_set("out of memory for JSON conversion");
    j->jout_cap = calc ? CONS_JSON_TEXT_MAX : CONS_JSON_RWF_MAX;
    if (j->native) /* the ETA ConsPerf's native mode requests streaming, never private */
        for (uint32_t i = 0; i < w->item_count; i++)
            w->items[i].streaming = true;
    if (json) /* encoded as RWF into the scratch, converted into the transport's buffer */
        run_out_json(&w->out, w->run->json->conv, j->jout, j->jout_cap);
    return 0;
}

void cons_json_free(cons_worker *w)
{
    struct cons_json *j = w->json;
    if (!j)
        return;
    run_json_free(&j->jin);
    free(j->jout);
    free(j);
    w->json = NULL;
}

bool cons_json_native(const cons_worker *w)
{
    return w->json && w->json->native;
}

bool cons_json_refuses(cons_worker *w, bool post)
{
    struct cons_json *j = w->json;
    if (!j || !j->native)
        return false;
    bool *told = post ? &j->told_post : &j->told_gen;
    if (!*told) {
        /* the ETA ConsPerf's two paths have the words swapped
         * (docs/wire.md#json-posts-and-generic-messages) */
        printf("It is not supported to send JSON %s messages.\n", post ? "generic" : "post");
        fflush(stdout);
        *told = true;
    }
    return true;
}

/* ---- reading ----------------------------------------------------------------------------- */

int cons_json_calc(cons_worker *w, rwf_buf rwf)
{
    struct cons_json *j = w->json;
    size_t len = 0;
    if (rjs_msg_to_json(w->run->json->conv, rwf, (char *)j->jout, j->jout_cap, &len) != RWF_OK)
        return err_push("-calcRWFJSONConversionLatency: converting a received message to JSON");
    w->decode_sum += len;
    return 0;
}

/* An admin message of a natively read frame: converted to RWF and handled as on RIPC. */
static int native_admin(cons_worker *w, const cons_jmsg *m)
{
    struct cons_json *j = w->json;
    size_t len = 0;
    if (rjs_json_to_msg(w->run->json->conv, m->text, m->text_len, j->jin.rwf, j->jin.rwf_cap,
                        &len) < 0)
        return err_push("converting a JSON %s message", m->domain == RWF_DMT_LOGIN    ? "login"
                                                        : m->domain == RWF_DMT_SOURCE ? "directory"
                                                                                      : "admin");
    return cons_on_rwf(w, j->jin.rwf, (uint32_t)len);
}

/* A frame of a JSON channel read natively: item messages to cons_on_jitem() as read in place,
 * admin messages through native_admin(), pings answered, pongs skipped, an Error message
 * fails the thread. Returns 0, or -1 after cons_fail(). */
static int native_frame(cons_worker *w, const tp_msg *tm)
{
    cons_jreader r;
    cons_jreader_init(&r, (const char *)tm->data, tm->len);
    cons_jmsg m;
    int rc;
    const bool measure = w->cfg->measure_decode; /* read once a frame, not once a message */
    for (;;) {
        int64_t t0 = measure ? clk_ns() : 0;
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

/* A frame of a JSON channel with -addConversionOverhead: each message converted to RWF and
 * handled as on RIPC (run_json_in answers the pings). Returns 0, or -1 after cons_fail(). */
static int converted_frame(cons_worker *w, const tp_msg *tm)
{
    run_json_in in;
    run_json_in_start(&in, &w->json->jin, w->ch, tm->data, tm->len);
    rwf_buf rwf;
    int rc;
    while ((rc = run_json_in_next(&in, &rwf)) > 0)
        if (cons_on_rwf(w, (const uint8_t *)rwf.data, (uint32_t)rwf.len) < 0)
            return -1;
    if (rc < 0)
        return cons_fail(w, "converting a JSON frame");
    return 0;
}

int cons_json_msg(cons_worker *w, const tp_msg *tm)
{
    const struct cons_json *j = w->json;
    if (__builtin_expect(j->native, 1)) /* the JSON channel's usual way: one test a frame */
        return native_frame(w, tm);
    return j->calc ? cons_on_rwf_calc(w, tm->data, tm->len) : converted_frame(w, tm);
}
