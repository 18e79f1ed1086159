/*
 * fuzz_rjs_json: JSON -> RWF (the rssl.json.v2 reader) on arbitrary frames. The first input
 * byte chooses the converter (fuzz_rjs.h: enum numbers, enum texts, lax), the rest is one
 * WebSocket text frame. Every message the reader takes must come out as RWF that decodes and
 * converts back to JSON, and that JSON must be a fixed point (fuzz_rjs.h); with enum values as
 * numbers the RWF read back from that JSON must be the same bytes too (display texts are not
 * unique in the enum tables). Errors must say where ("JSON message <n> ..." or "JSON frame:
 * offset <o> ..."); nothing may crash, overrun or loop.
 */
#include "fuzz_rjs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_rjs_init();
    return 0;
}

/* RWF fz_rwf1[0..len) read by converter c with enum values as numbers: its JSON must read
 * back as the same bytes (when the reader takes it at all). */
static void same_bytes(const rjs_conv *c, size_t len, const char *json, size_t jl)
{
    size_t n2 = 0;
    if (rjs_json_to_msg(c, json, jl, fz_rwf2, sizeof(fz_rwf2), &n2) != RJS_MSG)
        return;
    if (n2 != len || memcmp(fz_rwf1, fz_rwf2, len) != 0) {
        fprintf(stderr, "JSON -> RWF -> JSON -> RWF differs (%zu / %zu bytes)\n  %.*s\n", len, n2,
                (int)jl, json);
        abort();
    }
}

/* One message the reader took into fz_rwf1[0..len): it decodes, converts, and round trips. */
static void check_message(const rjs_conv *c, size_t len)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(fz_rwf1, len)) != RWF_OK) {
        fprintf(stderr, "RWF the reader wrote does not decode: %s\n", err_msg());
        abort();
    }
    size_t jl = 0;
    int rc = rjs_msg_to_json(c, rwf_buf_make(fz_rwf1, len), fz_json1, sizeof(fz_json1), &jl);
    if (rc == RWF_OK) {
        if (c == fz_conv[0])
            same_bytes(c, len, fz_json1, jl);
        fz_rjs_fixed_point(c, fz_json1, jl);
    } else if (rc != RWF_E_NOSPACE && rc != RWF_E_UNSUPPORTED) {
        fprintf(stderr, "RWF the reader wrote has no JSON form (%d): %s\n", rc, err_msg());
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const rjs_conv *c = fz_conv[data[0] % FUZZ_RJS_CONVS];
    /* a copy of exactly the frame's size, so that a read past the end is seen */
    char *text = malloc(size - 1 ? size - 1 : 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    rjs_reader r;
    rjs_reader_init(&r, text, size - 1);
    for (unsigned n = 0; n < 100000; n++) {
        size_t len = 0;
        int rc = rjs_reader_next(c, &r, fz_rwf1, sizeof(fz_rwf1), &len);
        if (rc == RWF_END)
            break;
        if (rc < 0) {
            if (strncmp(err_msg(), "JSON message", 12) != 0 &&
                strncmp(err_msg(), "JSON frame", 10) != 0 && rc != RWF_E_NOSPACE) {
                fprintf(stderr, "error without the message: %s\n", err_msg());
                abort();
            }
            if (r.done)
                break;
            continue;
        }
        if (rc == RJS_MSG)
            check_message(c, len);
    }
    free(text);
    return 0;
}
