#include "testsupport.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ts_bytes_append(ts_bytes *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            fprintf(stderr, "out of memory\n");
            abort();
        }
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

void ts_bytes_free(ts_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *ts_capture(const char *rel)
{
    static char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/tests/data/captures/%s", RWFPERF_SOURCE_DIR, rel);
    if (stat(path, &st) != 0)
        fail_msg("capture file %s not found", path);
    return path;
}

const char *ts_source_path(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", RWFPERF_SOURCE_DIR, rel);
    return path;
}

const char *ts_binary_path(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", RWFPERF_BINARY_DIR, rel);
    return path;
}

int ts_read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    ts_bytes b = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_bytes_append(&b, chunk, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        ts_bytes_free(&b);
        errno = EIO;
        return -1;
    }
    uint8_t nul = 0;
    ts_bytes_append(&b, &nul, 1);
    *out = b.data;
    *len = b.len - 1;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

size_t ts_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (const char *p = hex; *p; p++) {
        if (isspace((unsigned char)*p))
            continue;
        int v = hexval((unsigned char)*p);
        if (v < 0)
            fail_msg("bad hex character '%c'", *p);
        if (hi < 0) {
            hi = v;
        } else {
            if (n >= cap)
                fail_msg("hex string longer than %zu bytes", cap);
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0)
        fail_msg("odd number of hex digits");
    return n;
}

static void dump_around(const char *label, const uint8_t *p, size_t len, size_t at)
{
    size_t from = at > 16 ? (at - 16) & ~(size_t)15 : 0;
    size_t to = from + 48 < len ? from + 48 : len;
    fprintf(stderr, "%s (%zu bytes), from offset %zu:\n  ", label, len, from);
    for (size_t i = from; i < to; i++)
        fprintf(stderr, i == at ? "[%02x]" : "%02x ", p[i]);
    fprintf(stderr, "\n");
}

void ts_assert_bytes_equal(const void *got, size_t got_len, const void *want, size_t want_len)
{
    const uint8_t *g = got, *w = want;
    size_t i = 0;
    while (i < got_len && i < want_len && g[i] == w[i])
        i++;
    if (i == got_len && i == want_len)
        return;
    dump_around("got ", g, got_len, i);
    dump_around("want", w, want_len, i);
    fail_msg("byte strings differ at offset %zu (lengths %zu and %zu)", i, got_len, want_len);
}
