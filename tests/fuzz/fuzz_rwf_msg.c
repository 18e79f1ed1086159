/*
 * libFuzzer target: decodes the input as one RWF message and walks its whole payload
 * (every container, every primitive; field types from the project's dictionary in data/). When the
 * input decodes, it is re-encoded through the encoder; when that succeeds, the output must decode
 * and re-encode to exactly itself (encoder and decoder agree on every form they write).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec/rwf_walk.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rwf_dict *dict;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 0;
    char path[4096];
    dict = rwf_dict_new();
    snprintf(path, sizeof(path), "%.*s/../../data/RDMFieldDictionary", dir, __FILE__);
    if (!dict || rwf_dict_load_fields(dict, path) != RWF_OK) {
        fprintf(stderr, "fuzz_rwf_msg: %s\n", err_msg());
        abort();
    }
    snprintf(path, sizeof(path), "%.*s/../../data/enumtype.def", dir, __FILE__);
    if (rwf_dict_load_enums(dict, path) != RWF_OK) {
        fprintf(stderr, "fuzz_rwf_msg: %s\n", err_msg());
        abort();
    }
    return 0;
}

/* Walks msg; with out, re-encodes into it. Returns the walk status (and the length). */
static int walk(const uint8_t *msg, size_t n, uint8_t *out, size_t cap, size_t *len)
{
    rwf_enc e;
    walk_ctx w;
    memset(&w, 0, sizeof(w));
    w.dict = dict;
    if (out) {
        rwf_enc_init(&e, out, cap);
        w.enc = &e;
    }
    int r = walk_msg(&w, rwf_buf_make(msg, n), 0);
    if (r < 0 || !out)
        return r;
    return rwf_enc_finish(&e, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (walk(data, size, NULL, 0, NULL) < 0)
        return 0;
    size_t cap = 4 * size + 4096, len1 = 0, len2 = 0;
    uint8_t *out1 = malloc(cap), *out2 = malloc(cap);
    if (walk(data, size, out1, cap, &len1) == RWF_OK) {
        int r = walk(out1, len1, out2, cap, &len2);
        if (r != RWF_OK) {
            fprintf(stderr, "re-encoded message does not re-encode: %s\n", err_msg());
            abort();
        }
        if (len1 != len2 || memcmp(out1, out2, len1) != 0) {
            fprintf(stderr, "re-encoding is not stable (%zu vs %zu bytes)\n", len1, len2);
            abort();
        }
    }
    free(out1);
    free(out2);
    return 0;
}
