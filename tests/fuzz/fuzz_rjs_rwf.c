/*
 * libFuzzer target: the input is one RWF message, converted to JSON (rssl.json.v2) with ENUM
 * as numbers and as display texts. When it converts, the JSON must be well formed, and when
 * that JSON reads back as RWF (values the RWF decoder takes but a sender must not use, such as
 * dates out of range, are refused there), the RWF must convert to the same JSON again. Errors
 * are fine; crashes, sanitizer reports and disagreements abort. Uses the project's data/
 * dictionary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rjs.h"
#include "rjs_lex.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rwf_dict *dict;
static rjs_conv *conv_num, *conv_text;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, RWFPERF_SOURCE_DIR "/data/RDMFieldDictionary") < 0 ||
        rwf_dict_load_enums(dict, RWFPERF_SOURCE_DIR "/data/enumtype.def") < 0) {
        fprintf(stderr, "fuzz_rjs_rwf: %s\n", err_msg());
        abort();
    }
    rjs_opts text = {.flags = RJS_ENUM_TEXT};
    conv_num = rjs_conv_new(dict, NULL);
    conv_text = rjs_conv_new(dict, &text);
    if (!conv_num || !conv_text)
        abort();
    return 0;
}

static char json1[1 << 20], json2[1 << 20];
static uint8_t rwf[1 << 17];

static void convert(const rjs_conv *c, const uint8_t *data, size_t size)
{
    size_t j1 = 0, j2 = 0, n;
    if (rjs_msg_to_json(c, rwf_buf_make(data, size), json1, sizeof(json1), &j1) != RWF_OK)
        return;
    if (rjs_json_check(json1, j1) != RWF_OK) {
        fprintf(stderr, "JSON written is not well formed: %s\n  %.*s\n", err_msg(), (int)j1, json1);
        abort();
    }
    if (rjs_json_to_msg(c, json1, j1, rwf, sizeof(rwf), &n) != RJS_MSG)
        return;
    if (rjs_msg_to_json(c, rwf_buf_make(rwf, n), json2, sizeof(json2), &j2) != RWF_OK) {
        fprintf(stderr, "RWF read from the JSON has no JSON: %s\n  %.*s\n", err_msg(), (int)j1,
                json1);
        abort();
    }
    if (j1 != j2 || memcmp(json1, json2, j1) != 0) {
        fprintf(stderr, "RWF -> JSON -> RWF -> JSON differs\n  %.*s\n  %.*s\n", (int)j1, json1,
                (int)j2, json2);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* exactly the input: reads past it are seen */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    convert(conv_num, copy, size);
    convert(conv_text, copy, size);
    free(copy);
    return 0;
}
