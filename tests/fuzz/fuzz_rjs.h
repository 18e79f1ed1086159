/*
 * Shared set-up of the JSON converter's fuzz targets (fuzz_rjs_json, fuzz_rjs_rwf): the
 * project's dictionary (data/, found from this file's place in the source tree) and three
 * converters: enum values as numbers, as display texts, and one that skips unknown names and
 * gives item keys without a service a default one (and knows the service name DIRECT_FEED).
 * Then the check both targets end with: JSON the converter wrote must read back (or be
 * refused with a reason), and after one more round trip JSON -> RWF -> JSON the text must not
 * change any more.
 */
#ifndef RWFPERF_FUZZ_RJS_H
#define RWFPERF_FUZZ_RJS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "rjs.h"

#define FUZZ_RJS_CONVS 3

static rwf_dict *fz_dict;
static rjs_conv *fz_conv[FUZZ_RJS_CONVS];
#define FZ_UNUSED __attribute__((unused))
static FZ_UNUSED char fz_json1[1 << 18], fz_json2[1 << 18];
static FZ_UNUSED uint8_t fz_rwf1[1 << 17], fz_rwf2[1 << 17];

static int fz_service(void *ctx, rwf_buf name, uint16_t *id)
{
    (void)ctx;
    if (name.len == 11 && memcmp(name.data, "DIRECT_FEED", 11) == 0) {
        *id = 1;
        return 0;
    }
    return -1;
}

/* Loads the dictionary and makes the converters; aborts when the tree's data is missing. */
static void fz_rjs_init(void)
{
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 0;
    char f[4096], e[4096];
    snprintf(f, sizeof(f), "%.*s/../../data/RDMFieldDictionary", dir, __FILE__);
    snprintf(e, sizeof(e), "%.*s/../../data/enumtype.def", dir, __FILE__);
    fz_dict = rwf_dict_new();
    if (!fz_dict || rwf_dict_load_fields(fz_dict, f) < 0 || rwf_dict_load_enums(fz_dict, e) < 0) {
        fprintf(stderr, "fuzz: dictionary: %s\n", err_msg());
        abort();
    }
    rjs_opts text = {.flags = RJS_ENUM_TEXT};
    rjs_opts lax = {.flags = RJS_SKIP_UNKNOWN | RJS_DEFAULT_SERVICE,
                    .default_service = 1,
                    .service_id = fz_service};
    fz_conv[0] = rjs_conv_new(fz_dict, NULL);
    fz_conv[1] = rjs_conv_new(fz_dict, &text);
    fz_conv[2] = rjs_conv_new(fz_dict, &lax);
    for (int i = 0; i < FUZZ_RJS_CONVS; i++)
        if (!fz_conv[i])
            abort();
}

/* JSON -> RWF -> JSON with converter c, into fz_rwf2 and out. Returns the JSON length, or -1
 * when a buffer was too small or the reader refused the JSON with a reason (the writer passes
 * values through as the RWF held them, the reader checks them). Aborts when the reader fails
 * without a reason, or its RWF does not convert back. */
static long fz_rjs_again(const rjs_conv *c, const char *json, size_t len, char *out, size_t cap)
{
    size_t rl = 0, jl = 0;
    err_clear();
    int rc = rjs_json_to_msg(c, json, len, fz_rwf2, sizeof(fz_rwf2), &rl);
    if (rc == RWF_E_NOSPACE)
        return -1;
    if (rc < 0 && err_msg()[0] != '\0')
        return -1; /* values the writer passes through as the RWF held them (a time of
                      21:63:01) that the reader refuses: a refusal with a reason is fine */
    if (rc != RJS_MSG) {
        fprintf(stderr, "JSON we wrote does not read back (%d): %s\n  %.*s\n", rc, err_msg(),
                (int)len, json);
        abort();
    }
    rc = rjs_msg_to_json(c, rwf_buf_make(fz_rwf2, rl), out, cap, &jl);
    if (rc == RWF_E_NOSPACE)
        return -1;
    if (rc != RWF_OK) {
        fprintf(stderr, "RWF read from our JSON does not convert (%d): %s\n  %.*s\n", rc, err_msg(),
                (int)len, json);
        abort();
    }
    return (long)jl;
}

/* json[0..len) was written by converter c: it must read back, and after one more round trip
 * the text must be a fixed point. (The first round may normalise: a set-defined INT_2 is
 * written as "Int2" and read back as a plain INT, for example.) */
static void fz_rjs_fixed_point(const rjs_conv *c, const char *json, size_t len)
{
    static char again[1 << 18];
    long l2 = fz_rjs_again(c, json, len, fz_json2, sizeof(fz_json2));
    if (l2 < 0)
        return;
    long l3 = fz_rjs_again(c, fz_json2, (size_t)l2, again, sizeof(again));
    if (l3 < 0)
        return;
    if (l2 != l3 || memcmp(fz_json2, again, (size_t)l2) != 0) {
        fprintf(stderr, "JSON -> RWF -> JSON is not a fixed point:\n  %.*s\n  %.*s\n", (int)l2,
                fz_json2, (int)l3, again);
        abort();
    }
}

#endif
