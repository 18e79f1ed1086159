/* JSON channels for the tools: see run_json.h. */
#include "run_json.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

int run_json_init(run_json *j, const rjs_conv *conv, uint32_t cap)
{
    memset(j, 0, sizeof(*j));
    j->conv = conv;
    j->rwf = malloc(cap);
    if (!j->rwf)
        return err_set("out of memory for a %u-byte JSON conversion buffer", cap);
    j->rwf_cap = cap;
    return 0;
}

void run_json_free(run_json *j)
{
    free(j->rwf);
    j->rwf = NULL;
}

bool run_json_channel(tp_channel *ch)
{
    return ch && tp_ws_protocol(ch) == TP_WS_PROTO_JSON2;
}

int run_json_pong(tp_channel *ch)
{
    static const char pong[] = RJS_PONG_OBJ;
    tp_buf *b;
    int rc = tp_get_buffer(ch, sizeof(pong) - 1, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, pong, sizeof(pong) - 1);
    b->len = sizeof(pong) - 1;
    rc = tp_write(ch, b, TP_WRITE_DIRECT);
    if (rc == TP_ENOBUFS || rc == TP_EINVAL)
        tp_release(ch, b);
    return rc;
}

void run_json_in_start(run_json_in *in, run_json *j, tp_channel *ch, const uint8_t *text,
                       uint32_t len)
{
    rjs_reader_init(&in->r, (const char *)text, len);
    in->j = j;
    in->ch = ch;
}

int run_json_in_next(run_json_in *in, rwf_buf *out)
{
    for (;;) {
        size_t len = 0;
        int rc = rjs_reader_next(in->j->conv, &in->r, in->j->rwf, in->j->rwf_cap, &len);
        switch (rc) {
        case RJS_MSG:
            *out = rwf_buf_make(in->j->rwf, len);
            return 1;
        case RJS_PING:
            in->j->pongs++;
            if (run_json_pong(in->ch) < 0 && tp_get_state(in->ch) == TP_STATE_CLOSED)
                return -1;
            continue;
        case RJS_PONG:
            continue;
        case RJS_ERROR:
            err_set("the peer sent a JSON Error message: %.*s", (int)in->r.text_view.len,
                    in->r.text_view.data ? (const char *)in->r.text_view.data : "");
            return -1;
        case RWF_END:
            return 0;
        default:
            return -1;
        }
    }
}
