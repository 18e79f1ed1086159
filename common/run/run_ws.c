/* WebSocket options and the run's JSON converter: see run_ws.h. */
#include "run_ws.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_ws_check(const run_ws *w)
{
    if (tp_ws_protocols_check(w->pl) < 0)
        return err_push("Config Error: -pl");
    return 0;
}

static int service_id(void *ctx, rwf_buf name, uint16_t *id)
{
    const run_ws_conv *c = ctx;
    if (name.len != strlen(c->service_name) || memcmp(name.data, c->service_name, name.len) != 0)
        return -1;
    *id = c->service_id;
    return 0;
}

run_ws_conv *run_ws_converter(const rwf_dict *dict, const char *service_name, uint16_t id)
{
    run_ws_conv *c = calloc(1, sizeof(*c));
    if (!c) {
        err_set("out of memory for the JSON converter");
        return NULL;
    }
    snprintf(c->service_name, sizeof(c->service_name), "%s", service_name ? service_name : "");
    c->service_id = id;
    rjs_opts o;
    memset(&o, 0, sizeof(o));
    o.flags = RJS_DEFAULT_SERVICE;
    o.default_service = id;
    o.service_id = service_id;
    o.ctx = c;
    c->conv = rjs_conv_new(dict, &o);
    if (!c->conv) {
        free(c);
        err_push("the JSON converter");
        return NULL;
    }
    return c;
}

void run_ws_converter_free(run_ws_conv *c)
{
    if (!c)
        return;
    rjs_conv_free(c->conv);
    free(c);
}
