/*
 * bench_json: what the RWF <-> JSON converter (codec/json, rssl.json.v2) costs per message.
 *
 *   bench_json [iterations]     (default 200000 per run; 5 runs per case, best and median)
 *
 * Messages: the MarketPrice update (23 fields), the latency update (+ TIM_TRK_1) and the
 * refresh (86 fields) as the original ProvPerf sent them in JSON (captures in
 * tests/data/captures/ws_json, copied in tests/codec/json/rjs_golden.h), and their RWF form.
 * Cases:
 *   RWF -> JSON   rjs_msg_to_json, ENUM fields as numbers and as display texts
 *   ready form    rjs_tmpl_render: the message's JSON rendered once (rjs_tmpl_build), its
 *                 stream id written into the copy at each call, as ProvPerf sends updates
 *   JSON -> RWF   rjs_json_to_msg (tokenize, look field names up, encode RWF)
 *   tokenize only rjs_json_check: the tokenizer walking the text, no conversion
 *   json-c parse  json_tokener_parse_ex + json_object_put: the general parser building its
 *                 object tree, no conversion (the baseline the tokenizer was chosen against)
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other work on the
 * machine does not count. The program also counts the calls to malloc/calloc/realloc made
 * during the converter's timed loops (it interposes them): the hot path must make none.
 *
 * Uses the project's data/ dictionary.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rjs.h"
#include "rjs_lex.h"
#include "rjs_tmpl.h"
#include "../codec/json/rjs_golden.h"
#include "bench_util.h"

#define RUNS 5

/* ---- Allocation counter (glibc lets a program replace malloc and friends) ------------------ */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
static unsigned long allocs;

void *malloc(size_t n)
{
    allocs++;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    allocs++;
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    allocs++;
    return __libc_realloc(p, n);
}

/* ---- Timing ------------------------------------------------------------------------------- */

/* The CPU time this thread has run: on a shared machine, time spent waiting for a core does
 * not count. */
enum { TO_JSON, FORM, TO_RWF, CHECK, JSONC };

typedef struct bench_msg {
    const char *json;
    size_t json_len;
    uint8_t rwf[4096];
    size_t rwf_len;
    rjs_tmpl form; /* the ready JSON form, stream id as its one value */
} bench_msg;

static char out_json[1 << 16];
static uint8_t out_rwf[1 << 16];
static volatile size_t sink;

/* One conversion of case c; 0 or -1. */
static int once(int c, const rjs_conv *conv, const bench_msg *m, json_tokener *tok)
{
    size_t len = 0;
    switch (c) {
    case TO_JSON:
        if (rjs_msg_to_json(conv, rwf_buf_make(m->rwf, m->rwf_len), out_json, sizeof(out_json),
                            &len) != RWF_OK)
            return -1;
        break;
    case FORM: {
        uint64_t sid = 6;
        if (rjs_tmpl_render(&m->form, &sid, out_json, sizeof(out_json), &len) != RWF_OK)
            return -1;
        break;
    }
    case TO_RWF:
        if (rjs_json_to_msg(conv, m->json, m->json_len, out_rwf, sizeof(out_rwf), &len) != RJS_MSG)
            return -1;
        break;
    case CHECK:
        if (rjs_json_check(m->json, m->json_len) != RWF_OK)
            return -1;
        len = m->json_len;
        break;
    default: {
        json_tokener_reset(tok);
        json_object *o = json_tokener_parse_ex(tok, m->json, (int)m->json_len);
        if (!o)
            return -1;
        len = (size_t)json_object_object_length(o);
        json_object_put(o);
        break;
    }
    }
    sink += len;
    return 0;
}

static void run(const char *what, int c, const rjs_conv *conv, const bench_msg *m, long iters,
                json_tokener *tok)
{
    double ns[RUNS];
    unsigned long before = allocs;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_thread_ns();
        for (long i = 0; i < iters; i++) {
            if (once(c, conv, m, tok) < 0) {
                fprintf(stderr, "bench_json: %s failed: %s\n", what, err_msg());
                exit(1);
            }
        }
        ns[r] = (bench_thread_ns() - t0) / (double)iters;
    }
    unsigned long n = allocs - before;
    qsort(ns, RUNS, sizeof(ns[0]), bench_cmp_double);
    printf("  %-34s %7.1f ns/msg  (best of %d; median %.1f; %.2f M msg/s)", what, ns[0], RUNS,
           ns[RUNS / 2], 1e3 / ns[0]);
    if (c == JSONC)
        printf("  %.1f allocations/msg\n", (double)n / ((double)iters * RUNS));
    else
        printf("  allocations: %lu\n", n);
}

static void bench(const char *title, const char *json, const rjs_conv *num, const rjs_conv *text,
                  long iters, json_tokener *tok)
{
    static bench_msg m;
    m.json = json;
    m.json_len = strlen(json);
    if (rjs_json_to_msg(num, json, m.json_len, m.rwf, sizeof(m.rwf), &m.rwf_len) != RJS_MSG) {
        fprintf(stderr, "bench_json: %s: %s\n", title, err_msg());
        exit(1);
    }
    /* The form: the message with a mark for its stream id (bytes 4..7 of the header). */
    static uint8_t marked[4096];
    memcpy(marked, m.rwf, m.rwf_len);
    const uint64_t mark = 1999999937u;
    marked[4] = (uint8_t)(mark >> 24);
    marked[5] = (uint8_t)(mark >> 16);
    marked[6] = (uint8_t)(mark >> 8);
    marked[7] = (uint8_t)mark;
    rjs_tmpl_free(&m.form);
    if (rjs_tmpl_build(num, rwf_buf_make(marked, m.rwf_len), &mark, 1, 1u, &m.form) != RWF_OK) {
        fprintf(stderr, "bench_json: %s: the ready form: %s\n", title, err_msg());
        exit(1);
    }
    printf("%s (%zu bytes of JSON, %zu bytes of RWF):\n", title, m.json_len, m.rwf_len);
    run("RWF -> JSON (enums as numbers)", TO_JSON, num, &m, iters, tok);
    run("RWF -> JSON (enums as texts)", TO_JSON, text, &m, iters, tok);
    run("ready form (copy, stream id)", FORM, num, &m, iters, tok);
    run("JSON -> RWF", TO_RWF, num, &m, iters, tok);
    run("tokenize only (rjs_json_check)", CHECK, num, &m, iters, tok);
    run("json-c parse (tree, no conversion)", JSONC, num, &m, iters, tok);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    if (iters <= 0) {
        fprintf(stderr, "usage: bench_json [iterations]\n");
        return 2;
    }
    rwf_dict *d = rwf_dict_new();
    if (!d || rwf_dict_load_fields(d, RWFPERF_SOURCE_DIR "/data/RDMFieldDictionary") < 0 ||
        rwf_dict_load_enums(d, RWFPERF_SOURCE_DIR "/data/enumtype.def") < 0) {
        fprintf(stderr, "bench_json: %s\n", err_msg());
        return 1;
    }
    rjs_opts o = {.flags = RJS_ENUM_TEXT};
    rjs_conv *num = rjs_conv_new(d, NULL), *text = rjs_conv_new(d, &o);
    json_tokener *tok = json_tokener_new();
    if (!num || !text || !tok) {
        fprintf(stderr, "bench_json: out of memory\n");
        return 1;
    }
    printf("bench_json: %ld messages per run, %d runs per case\n", iters, RUNS);
    bench("MarketPrice update (23 fields)", GOLDEN_UPDATE, num, text, iters, tok);
    bench("MarketPrice latency update (24 fields)", GOLDEN_UPDATE_STAMPED, num, text, iters, tok);
    bench("MarketPrice refresh (86 fields)", GOLDEN_REFRESH, num, text, iters / 3, tok);
    json_tokener_free(tok);
    rjs_conv_free(num);
    rjs_conv_free(text);
    rwf_dict_free(d);
    return 0;
}
