/*
 * Helpers shared by the tools' configuration and report tests: capturing a FILE's output,
 * reading the vectors' console and summary files, cutting a section out of a text, dropping
 * the lines we add to the original formats, and comparing texts line by line.
 */
#ifndef RWFPERF_TOOLS_TEST_H
#define RWFPERF_TOOLS_TEST_H

#include "testsupport.h"

#include "opt.h"

#include <json-c/json.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A FILE whose text ends up in a malloc'ed string. */
typedef struct tt_capture {
    FILE *f;
    char *text;
    size_t len;
} tt_capture;

static inline void tt_capture_open(tt_capture *c)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    if (!c->f)
        fail_msg("open_memstream failed");
}

/* Closes the stream; the text stays in c->text until tt_capture_free. */
static inline const char *tt_capture_close(tt_capture *c)
{
    fclose(c->f);
    c->f = NULL;
    return c->text;
}

static inline void tt_capture_free(tt_capture *c)
{
    free(c->text);
    c->text = NULL;
}

/* Reads a file of tests/data/captures (failing the test when absent). Caller frees. */
static inline char *tt_vector(const char *rel)
{
    const char *path = ts_capture(rel);
    uint8_t *data = NULL;
    size_t len = 0;
    if (ts_read_file(path, &data, &len) != 0) {
        fail_msg("cannot read %s", path);
        return NULL;
    }
    char *text = (char *)data;
    return text;
}

/* Reads a whole file (failing the test when it cannot). Caller frees. */
static inline char *tt_file(const char *path)
{
    uint8_t *data = NULL;
    size_t len = 0;
    if (ts_read_file(path, &data, &len) != 0) {
        fail_msg("cannot read %s", path);
        return NULL;
    }
    char *text = (char *)data;
    return text;
}

/* A copy of text from the first `from` (included; NULL = the start) to the following `to`
 * (excluded; NULL = the end). Fails the test when a marker is missing. Caller frees. */
static inline char *tt_section(const char *text, const char *from, const char *to)
{
    const char *a = from ? strstr(text, from) : text;
    if (!a)
        fail_msg("marker %s not found", from ? from : "(start)");
    const char *b = to ? strstr(a + (from ? strlen(from) : 0), to) : a + strlen(a);
    if (!b)
        fail_msg("marker '%s' not found", to);
    char *out = malloc((size_t)(b - a) + 1);
    memcpy(out, a, (size_t)(b - a));
    out[b - a] = '\0';
    return out;
}

/* Replaces every occurrence of `what` in text by `with` (a new string; text is freed). */
static inline char *tt_replace(char *text, const char *what, const char *with)
{
    size_t wl = strlen(what), nl = strlen(with), n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + wl, what))
        n++;
    char *out = malloc(strlen(text) + n * (nl > wl ? nl - wl : 0) + 1);
    char *o = out;
    const char *p = text;
    for (const char *q = strstr(p, what); q; q = strstr(p, what)) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, with, nl);
        o += nl;
        p = q + wl;
    }
    strcpy(o, p);
    free(text);
    return out;
}

/* The markers of the lines we add to the original formats (summary, console). */
static const char *const tt_our_markers[] = {
    " p50 (usec): ",        " p90 (usec): ",
    " p99 (usec): ",        " p99.9 (usec): ",
    " p99.99 (usec): ",     "  Sched ",
    "  Offered ",           "  Achieved ",
    "  Warning: achieved ", "(usec) p50:",
    "Clock Cost (ns): ",    "Clock Resolution (ns): ",
    "JSON Summary File: ",  "  Updates stopped for lack of output buffers: ",
    "  Sequence gaps: ",    "  Msgs not sent for lack of output buffers: ",
    "Scheduled Stamp: ",
};

/* A copy of text without the lines we add (tt_our_markers, plus the lines containing any of
 * the NULL-terminated `also` markers, which may be NULL). Caller frees. */
static inline char *tt_drop_ours(const char *text, const char *const *also)
{
    char *out = malloc(strlen(text) + 1);
    char *o = out;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        char line[4096];
        size_t ll = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
        memcpy(line, p, ll);
        line[ll] = '\0';
        bool ours = false;
        for (size_t i = 0; i < sizeof(tt_our_markers) / sizeof(tt_our_markers[0]); i++)
            if (strstr(line, tt_our_markers[i]))
                ours = true;
        for (const char *const *a = also; a && *a; a++)
            if (strstr(line, *a))
                ours = true;
        if (!ours) {
            memcpy(o, p, len);
            o += len;
        }
        p += len;
    }
    *o = '\0';
    return out;
}

/* Fails with both lines shown (tabs and line ends made visible) at the first line where got
 * and want differ. */
static inline void tt_assert_lines_equal(const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g || *w) {
        const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
        size_t gl = ge ? (size_t)(ge - g) + 1 : strlen(g);
        size_t wl = we ? (size_t)(we - w) + 1 : strlen(w);
        if (gl != wl || memcmp(g, w, gl) != 0) {
            fprintf(stderr, "line %d differs\n  got : ", line);
            for (size_t i = 0; i < gl; i++)
                fputs(g[i] == '\t' ? "^I" : g[i] == '\n' ? "$" : (char[2]){g[i], 0}, stderr);
            fprintf(stderr, "%s\n  want: ", gl ? "" : "<end of text>");
            for (size_t i = 0; i < wl; i++)
                fputs(w[i] == '\t' ? "^I" : w[i] == '\n' ? "$" : (char[2]){w[i], 0}, stderr);
            fprintf(stderr, "%s\n", wl ? "" : "<end of text>");
            fail_msg("texts differ at line %d", line);
        }
        g += gl;
        w += wl;
        line++;
    }
}

/* The number after the first occurrence of label in text (failing the test when absent). */
static inline double tt_num(const char *text, const char *label)
{
    const char *p = strstr(text, label);
    if (!p)
        fail_msg("'%s' not found", label);
    return strtod(p + strlen(label), NULL);
}

/* Builds an argv (argv[0] = prog) from a NULL-terminated list. Returns argc. */
static inline int tt_argv(char **argv, int cap, const char *prog, const char *const *args)
{
    int argc = 0;
    argv[argc++] = (char *)prog;
    for (const char *const *a = args; a && *a && argc < cap - 1; a++)
        argv[argc++] = (char *)*a;
    argv[argc] = NULL;
    return argc;
}

/* Runs `init` (a tool's *_config_init wrapped to hide its config type) on `rounds` random
 * command lines made of the tool's option names and awkward values (deterministic: a fixed
 * seed). Every run must end with OPT_CONTINUE, 0 or OPT_EXIT_INVALID, and never crash (the
 * sanitizer builds check the memory accesses). */
typedef int (*tt_init_fn)(int argc, char **argv, FILE *out, FILE *err);

static inline void tt_random_command_lines(tt_init_fn init, const opt_def *defs, int rounds)
{
    static char long_value[700];
    memset(long_value, 'x', sizeof(long_value) - 1);
    const char *values[] = {"0",           "-1",
                            "1",           "10",
                            "1000",        "all",
                            "abc",         "",
                            "2147483648",  "99999999999999999999",
                            "0,0",         "P:0",
                            "P:0 C:# T:#", "lz4",
                            "zlib",        "socket",
                            "shmem",       "client",
                            "server",      "-",
                            "-?",          long_value};
    const char *names[256];
    int n = 0;
    for (const opt_def *d = defs; (d->name || d->kind == OPT_SECTION) && n < 256; d++)
        if (d->name)
            names[n++] = d->name;
    unsigned seed = 12345;
    for (int round = 0; round < rounds; round++) {
        char *argv[24] = {(char *)"Tool"};
        int argc = 1 + (int)(rand_r(&seed) % 20);
        for (int i = 1; i < argc; i++) {
            unsigned r = (unsigned)rand_r(&seed);
            argv[i] = (char *)(r % 3 ? names[r % (unsigned)n]
                                     : values[r % (sizeof(values) / sizeof(values[0]))]);
        }
        argv[argc] = NULL;
        tt_capture out, err;
        tt_capture_open(&out);
        tt_capture_open(&err);
        int status = init(argc, argv, out.f, err.f);
        tt_capture_close(&out);
        tt_capture_close(&err);
        if (status != OPT_CONTINUE && status != 0 && status != OPT_EXIT_INVALID)
            fail_msg("round %d: status %d", round, status);
        if (status == OPT_EXIT_INVALID && !strstr(err.text, "Config "))
            fail_msg("round %d: exit 2 without a message", round);
        tt_capture_free(&out);
        tt_capture_free(&err);
    }
}

/* A path in the temporary folder unique to this process. Static storage. */
static inline const char *tt_tmp(const char *name)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/rwfperf-tools-%d-%s", P_tmpdir, (int)getpid(), name);
    return path;
}

/*
 * The fixture of a tool's configuration test, for its configuration type CFG filled by INIT
 * (CFG *, argc, argv, out, err) as the program NAME: the type `run` (INIT's status, the
 * configuration and what INIT printed), parse_args(r, args) that runs INIT on the
 * NULL-terminated args, run_free(r) that frees the captured text, init_any (INIT on a
 * configuration of its own, for tt_random_command_lines), and the checks of one command line:
 * expect_accepted, expect_invalid, expect_not_built. PARSE(r, ...) lists the arguments.
 */
#define TT_CONFIG_FIXTURE(CFG, INIT, NAME)                                                         \
    typedef struct run {                                                                           \
        int status;                                                                                \
        CFG cfg;                                                                                   \
        tt_capture out, err;                                                                       \
    } run;                                                                                         \
                                                                                                   \
    static void parse_args(run *r, const char *const *args)                                        \
    {                                                                                              \
        char *argv[128];                                                                           \
        int argc = tt_argv(argv, 128, NAME, args);                                                 \
        tt_capture_open(&r->out);                                                                  \
        tt_capture_open(&r->err);                                                                  \
        r->status = INIT(&r->cfg, argc, argv, r->out.f, r->err.f);                                 \
        tt_capture_close(&r->out);                                                                 \
        tt_capture_close(&r->err);                                                                 \
    }                                                                                              \
                                                                                                   \
    static void run_free(run *r)                                                                   \
    {                                                                                              \
        tt_capture_free(&r->out);                                                                  \
        tt_capture_free(&r->err);                                                                  \
    }                                                                                              \
                                                                                                   \
    static int init_any(int argc, char **argv, FILE *out, FILE *err)                               \
    {                                                                                              \
        CFG cfg;                                                                                   \
        return INIT(&cfg, argc, argv, out, err);                                                   \
    }                                                                                              \
                                                                                                   \
    /* Fails unless case i, args, is accepted. */                                                  \
    __attribute__((unused)) static void expect_accepted(size_t i, const char *const *args)         \
    {                                                                                              \
        run r;                                                                                     \
        parse_args(&r, args);                                                                      \
        if (r.status != OPT_CONTINUE)                                                              \
            fail_msg("case %zu refused: %s", i, r.err.text);                                       \
        run_free(&r);                                                                              \
    }                                                                                              \
                                                                                                   \
    /* Fails unless case i, args, ends with exit status 2, msg and the usage hint on stderr and    \
     * nothing on stdout. */                                                                       \
    __attribute__((unused)) static void expect_invalid(size_t i, const char *const *args,          \
                                                       const char *msg)                            \
    {                                                                                              \
        run r;                                                                                     \
        parse_args(&r, args);                                                                      \
        if (r.status != OPT_EXIT_INVALID)                                                          \
            fail_msg("case %zu (%s): status %d", i, args[0], r.status);                            \
        if (!strstr(r.err.text, msg))                                                              \
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, r.err.text, msg);                 \
        if (!strstr(r.err.text, "\nRun '" NAME " -?' to see usage.\n"))                            \
            fail_msg("case %zu: no usage hint in \"%s\"", i, r.err.text);                          \
        assert_string_equal(r.out.text, "");                                                       \
        run_free(&r);                                                                              \
    }                                                                                              \
                                                                                                   \
    /* Fails unless case i, args, is refused (exit status 2) as a feature this build lacks. */     \
    __attribute__((unused)) static void expect_not_built(size_t i, const char *const *args)        \
    {                                                                                              \
        run r;                                                                                     \
        parse_args(&r, args);                                                                      \
        if (r.status != OPT_EXIT_INVALID || !strstr(r.err.text, "is not available in this build")) \
            fail_msg("case %zu (%s): status %d, \"%s\"", i, args[0], r.status, r.err.text);        \
        run_free(&r);                                                                              \
    }

#define PARSE(r, ...) parse_args((r), (const char *const[]){__VA_ARGS__, NULL})

/* Defines config_from(cfg, args) for a tool's report test: fills *cfg (of type CFG) by INIT as
 * the program NAME from the NULL-terminated args, failing the test when INIT refuses them. */
#define TT_CONFIG_FROM(CFG, INIT, NAME)                                                            \
    static void config_from(CFG *cfg, const char *const *args)                                     \
    {                                                                                              \
        char *argv[64];                                                                            \
        int argc = tt_argv(argv, 64, NAME, args);                                                  \
        tt_capture out, err;                                                                       \
        tt_capture_open(&out);                                                                     \
        tt_capture_open(&err);                                                                     \
        int status = INIT(cfg, argc, argv, out.f, err.f);                                          \
        tt_capture_close(&out);                                                                    \
        tt_capture_close(&err);                                                                    \
        if (status != OPT_CONTINUE)                                                                \
            fail_msg("config refused: %s", err.text);                                              \
        tt_capture_free(&out);                                                                     \
        tt_capture_free(&err);                                                                     \
    }

/* True when the usage text lists option `name` ("  -name <arg>" or "  -name, -alias") before
 * the place `ours` in it. */
static inline bool tt_listed_before(const char *usage, const char *name, const char *ours)
{
    char line[64];
    snprintf(line, sizeof(line), "  %s", name);
    const char *at = usage;
    size_t n = strlen(line);
    while ((at = strstr(at, line)) && at[n] != ' ' && at[n] != ',')
        at += n;
    return at && at <= ours;
}

/* Fails unless the JSON inputs o have a member for every option of defs that is accepted (not
 * OPT_REFUSED; nor OPT_CUSTOM with skip_custom), named as the option without its '-'. */
static inline void tt_json_has_options(json_object *o, const opt_def *defs, bool skip_custom)
{
    json_object *v;
    for (const opt_def *d = defs; d->name || d->kind == OPT_SECTION; d++)
        if (d->name && d->kind != OPT_REFUSED && !(skip_custom && d->kind == OPT_CUSTOM) &&
            !json_object_object_get_ex(o, d->name + 1, &v))
            fail_msg("JSON inputs lack %s", d->name);
}

#endif
