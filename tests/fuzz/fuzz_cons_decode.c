/*
 * fuzz_cons_decode: the tools' payload decoder (common/io/payload.h) on arbitrary messages. The
 * input is decoded as one RWF message; when that succeeds, its payload goes through
 * payload_decode against the project's dictionary (data/), as ConsPerf does with every
 * refresh, update and generic message it receives. A payload it refuses must say which field
 * or entry and why; nothing may crash or read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "payload.h"
#include "rwf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rwf_dict *dict;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 0;
    char f[4096], e[4096];
    snprintf(f, sizeof(f), "%.*s/../../data/RDMFieldDictionary", dir, __FILE__);
    snprintf(e, sizeof(e), "%.*s/../../data/enumtype.def", dir, __FILE__);
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, f) < 0 || rwf_dict_load_enums(dict, e) < 0) {
        fprintf(stderr, "fuzz_cons_decode: %s\n", err_msg());
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(data, size)) != RWF_OK)
        return 0;
    payload_stamps st;
    err_clear();
    if (payload_decode(dict, &m, &st) < 0 && err_msg()[0] == '\0') {
        fprintf(stderr, "a refused payload without a reason\n");
        abort();
    }
    return 0;
}
