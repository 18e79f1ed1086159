/*
 * fuzz_rjs_rwf: RWF -> JSON (the rssl.json.v2 writer) on arbitrary RWF messages. The first
 * input byte chooses the converter (fuzz_rjs.h), the rest is one encoded RWF message. A
 * message that converts must give JSON that reads back and is a fixed point (fuzz_rjs.h); one
 * that does not must say why; the JSON written must be well formed (rjs_json_check); the
 * writer must never write past its buffer (a small one is tried too, where RWF_E_NOSPACE is
 * the only acceptable failure beyond those of the large).
 */
#include "fuzz_rjs.h"
#include "rjs_lex.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_rjs_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const rjs_conv *c = fz_conv[data[0] % FUZZ_RJS_CONVS];
    rwf_buf in = rwf_buf_make(data + 1, size - 1);
    size_t jl = 0;
    err_clear();
    int rc = rjs_msg_to_json(c, in, fz_json1, sizeof(fz_json1), &jl);
    if (rc == RWF_OK) {
        if (jl > sizeof(fz_json1))
            abort();
        if (rjs_json_check(fz_json1, jl) != RWF_OK) {
            fprintf(stderr, "JSON written is not well formed: %s\n  %.*s\n", err_msg(), (int)jl,
                    fz_json1);
            abort();
        }
        /* The same into a buffer just too small: it must say so and stay inside it. */
        if (jl > 0) {
            char *small = malloc(jl - 1 ? jl - 1 : 1);
            size_t sl = 0;
            if (small && rjs_msg_to_json(c, in, small, jl - 1, &sl) != RWF_E_NOSPACE) {
                fprintf(stderr, "%zu bytes of JSON fit in %zu\n", jl, jl - 1);
                abort();
            }
            free(small);
        }
        fz_rjs_fixed_point(c, fz_json1, jl);
    } else if (rc != RWF_E_NOSPACE && err_msg()[0] == '\0') {
        fprintf(stderr, "conversion failed (%d) without a reason\n", rc);
        abort();
    }
    return 0;
}
