/*
 * libFuzzer target for the WebSocket upgrade parsers: the input is parsed as a request (then
 * judged, and the server's sub-protocol choice and the extension offer evaluated as the
 * server does) and as a response. Views must stay inside the input; nothing may crash.
 */
#include <stdint.h>
#include <string.h>

#include "tp_ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void in_range(tp_ws_str s, const char *b, size_t n)
{
    if (s.p && (s.p < b || s.p + s.len > b + n))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *b = (const char *)data;
    tp_ws_req r;
    int n = tp_ws_req_parse(b, size, &r);
    if (n > 0) {
        if ((size_t)n > size)
            __builtin_trap();
        in_range(r.method, b, size);
        in_range(r.target, b, size);
        in_range(r.key, b, size);
        in_range(r.protocol, b, size);
        in_range(r.extensions, b, size);
        if (tp_ws_req_check(&r) == 0) {
            char acc[29];
            tp_ws_accept(r.key.p, r.key.len, acc);
        }
        const char *name;
        size_t nl;
        tp_ws_pl_select("rssl.rwf, tr_json2, rssl.json.v2", r.protocol.p, r.protocol.len, &name,
                        &nl);
        tp_ws_pmd_params p;
        if (tp_ws_pmd_parse(r.extensions.p, r.extensions.len, &p) == 0 && p.on) {
            char ext[128];
            tp_ws_pmd_format(&p, ext, sizeof(ext));
        }
    }
    tp_ws_resp s;
    n = tp_ws_resp_parse(b, size, &s);
    if (n > 0) {
        in_range(s.accept, b, size);
        in_range(s.protocol, b, size);
        in_range(s.reason, b, size);
    }
    /* the input as a -pl list */
    char list[TP_WS_PL_MAX], pl[256];
    size_t k = size < sizeof(pl) - 1 ? size : sizeof(pl) - 1;
    memcpy(pl, data, k);
    pl[k] = 0;
    tp_ws_pl_rewrite(pl, size & 1, list, sizeof(list));
    return 0;
}
