/*
 * fuzz_cons_decode: the tools' payload decoder (common/io/payload.h) on arbitrary messages. The
 * input is decoded as one RWF message; when that succeeds, its payload goes through
 * payload_decode against the project's dictionary (data/), as ConsPerf does with every
 * refresh, update and generic message it receives. A payload it refuses must say which field
 * or entry and why; nothing may crash or read out of bounds. The result (sums, stamps, status,
 * error text) must be that of payload_decode_reference, the entry-by-entry decode.
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
    payload_stamps st, ref;
    err_clear();
    int r = payload_decode(dict, &m, &st);
    if (r < 0 && err_msg()[0] == '\0') {
        fprintf(stderr, "a refused payload without a reason\n");
        abort();
    }
    /* the fast path gives what the entry-by-entry decode gives, error text included */
    static char text[4096];
    snprintf(text, sizeof(text), "%s", r < 0 ? err_msg() : "");
    err_clear();
    int rr = payload_decode_reference(dict, &m, &ref);
    if (rr != r || (r == 0 && memcmp(&st, &ref, sizeof(st)) != 0) ||
        (r < 0 && strcmp(text, err_msg()) != 0)) {
        fprintf(stderr, "fast and reference decode differ: %d/%d, sum %llu/%llu, \"%s\" / \"%s\"\n",
                r, rr, (unsigned long long)st.sum, (unsigned long long)ref.sum, text,
                rr < 0 ? err_msg() : "");
        abort();
    }
    return 0;
}
