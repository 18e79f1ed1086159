/*
 * libFuzzer target: the input is the text of one WebSocket JSON frame (rssl.json.v2). Every
 * message it holds is converted JSON -> RWF (with ENUM as numbers and unknown names refused,
 * and with ENUM display texts and unknown names skipped). Each RWF message made must decode,
 * must convert back to JSON, and that JSON must read back as the same RWF bytes (ENUM as
 * numbers) and be written again as the same JSON: the reader and the writer agree on every
 * form. Errors are fine; crashes, sanitizer reports and
 * disagreements abort. Uses the project's data/ dictionary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rjs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rwf_dict *dict;
static rjs_conv *conv_num, *conv_text;

static int service_id(void *ctx, rwf_buf name, uint16_t *id)
{
    (void)ctx;
    if (name.len != 11 || memcmp(name.data, "DIRECT_FEED", 11) != 0)
        return -1;
    *id = 1;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, RWFPERF_SOURCE_DIR "/data/RDMFieldDictionary") < 0 ||
        rwf_dict_load_enums(dict, RWFPERF_SOURCE_DIR "/data/enumtype.def") < 0) {
        fprintf(stderr, "fuzz_rjs_json: %s\n", err_msg());
        abort();
    }
    rjs_opts num = {.service_id = service_id};
    rjs_opts text = {.flags = RJS_ENUM_TEXT | RJS_SKIP_UNKNOWN | RJS_DEFAULT_SERVICE,
                     .default_service = 1,
                     .service_id = service_id};
    conv_num = rjs_conv_new(dict, &num);
    conv_text = rjs_conv_new(dict, &text);
    if (!conv_num || !conv_text)
        abort();
    return 0;
}

static uint8_t rwf1[1 << 16], rwf2[1 << 16];
static char json1[1 << 19], json2[1 << 19];

/* RWF message rwf1[0..n) made by c: decodes, converts to JSON, and that JSON reads back as RWF
 * that converts to the same JSON. With ENUM as numbers the RWF is the same bytes too (display
 * texts are not unique in the enum tables: "   " may stand for 0 and for 1). */
static void check_message(const rjs_conv *c, size_t n)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(rwf1, n)) != RWF_OK) {
        fprintf(stderr, "RWF made from JSON does not decode: %s\n", err_msg());
        abort();
    }
    size_t j1 = 0, j2 = 0, n2 = 0;
    int rc = rjs_msg_to_json(c, rwf_buf_make(rwf1, n), json1, sizeof(json1), &j1);
    if (rc != RWF_OK) {
        fprintf(stderr, "RWF made from JSON has no JSON (%d): %s\n", rc, err_msg());
        abort();
    }
    rc = rjs_json_to_msg(c, json1, j1, rwf2, sizeof(rwf2), &n2);
    if (rc != RJS_MSG) {
        fprintf(stderr, "JSON written does not read (%d): %s\n  %.*s\n", rc, err_msg(), (int)j1,
                json1);
        abort();
    }
    if (c == conv_num && (n2 != n || memcmp(rwf1, rwf2, n) != 0)) {
        fprintf(stderr, "JSON -> RWF -> JSON -> RWF differs (%zu / %zu bytes)\n  %.*s\n", n, n2,
                (int)j1, json1);
        abort();
    }
    if (rjs_msg_to_json(c, rwf_buf_make(rwf2, n2), json2, sizeof(json2), &j2) != RWF_OK ||
        j1 != j2 || memcmp(json1, json2, j1) != 0) {
        fprintf(stderr, "JSON written, read and written again differs\n  %.*s\n  %.*s\n", (int)j1,
                json1, (int)j2, json2);
        abort();
    }
}

static void frame(const rjs_conv *c, const char *text, size_t size)
{
    rjs_reader r;
    size_t n;
    int rc;
    rjs_reader_init(&r, text, size);
    for (int i = 0; i < 64; i++) {
        rc = rjs_reader_next(c, &r, rwf1, sizeof(rwf1), &n);
        if (rc == RWF_END)
            break;
        if (rc < 0 && r.done)
            break;
        if (rc == RJS_MSG)
            check_message(c, n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly the input's size, so that a read past the end is seen */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    frame(conv_num, text, size);
    frame(conv_text, text, size);
    free(text);
    return 0;
}
