/*
 * Helpers of the JSON converter's tests: the project's dictionary, converters, and round trips
 * RWF -> JSON -> RWF with the checks the tests share.
 */
#ifndef RJS_TEST_H
#define RJS_TEST_H

#include "testsupport.h"

#include <stdio.h>
#include <string.h>

#include "rjs.h"

#define RJS_UNUSED __attribute__((unused))

static RJS_UNUSED rwf_dict *dict;
static RJS_UNUSED rjs_conv *conv, *conv_text;
static RJS_UNUSED char json[1 << 17];
static RJS_UNUSED uint8_t rwf1[1 << 16], rwf2[1 << 16];

/* Loads data/ (field dictionary, enum tables), plus the extra fields the caller adds. */
static inline rwf_dict *load_dict(void)
{
    char fld[1024];
    snprintf(fld, sizeof(fld), "%s", ts_source_path("data/RDMFieldDictionary"));
    rwf_dict *d = rwf_dict_new();
    if (!d || rwf_dict_load_fields(d, fld) != RWF_OK ||
        rwf_dict_load_enums(d, ts_source_path("data/enumtype.def")) != RWF_OK) {
        fprintf(stderr, "dictionary: %s\n", err_msg());
        return NULL;
    }
    return d;
}

static inline int make_convs(void)
{
    rjs_opts text = {.flags = RJS_ENUM_TEXT};
    conv = rjs_conv_new(dict, NULL);
    conv_text = rjs_conv_new(dict, &text);
    return conv && conv_text ? 0 : -1;
}

static inline void free_all(void)
{
    rjs_conv_free(conv);
    rjs_conv_free(conv_text);
    rwf_dict_free(dict);
}

/* RWF -> JSON (fails the test on an error); returns the length, json NUL-terminated. */
static inline size_t to_json(const rjs_conv *c, const void *msg, size_t len)
{
    size_t n = 0;
    if (rjs_msg_to_json(c, rwf_buf_make(msg, len), json, sizeof(json) - 1, &n) != RWF_OK)
        fail_msg("RWF -> JSON: %s", err_msg());
    json[n] = '\0';
    return n;
}

/* JSON -> RWF into out; returns the length. */
static inline size_t to_rwf(const rjs_conv *c, const char *text, size_t len, uint8_t *out,
                            size_t cap)
{
    size_t n = 0;
    int rc = rjs_json_to_msg(c, text, len, out, cap, &n);
    if (rc != RJS_MSG)
        fail_msg("JSON -> RWF (%d): %s\n  JSON: %.*s", rc, err_msg(), (int)len, text);
    return n;
}

/* The message converts to want (when not NULL) and back to RWF with the same bytes (exact) or
 * to RWF that converts to the same JSON again. */
static inline void roundtrip(const rjs_conv *c, const void *msg, size_t len, const char *want,
                             int exact)
{
    size_t n = to_json(c, msg, len);
    if (want && (n != strlen(want) || memcmp(json, want, n) != 0))
        fail_msg("JSON\n  want %s\n  got  %s", want, json);
    static char first[1 << 17];
    memcpy(first, json, n + 1);
    size_t m = to_rwf(c, first, n, rwf2, sizeof(rwf2));
    if (exact)
        ts_assert_bytes_equal(rwf2, m, msg, len);
    size_t n2 = to_json(c, rwf2, m);
    if (n2 != n || memcmp(json, first, n) != 0)
        fail_msg("second JSON differs\n  first  %s\n  second %s", first, json);
}

#endif
