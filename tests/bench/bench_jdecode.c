/*
 * bench_jdecode: what ConsPerf's native JSON reading (consperf/jdecode.c) costs per message,
 * on recorded input: every TEXT frame a provider sent in tests/data/captures/ws_json/ws_json
 * (the login and directory refreshes, 5 item refreshes, 275 MarketPrice updates of about 480
 * bytes, some with TIM_TRK_1) and ws_json_pack (the same updates packed in arrays).
 *
 *   bench_jdecode [passes]      (default 2000 passes over the frames per run, 5 runs)
 *
 * Prints, per capture, the thread CPU time per message (best and median of the runs). Every
 * frame is read by cons_jreader_init / cons_jreader_next as ConsPerf reads it, each in its own
 * allocation (as a frame sits alone in the transport's buffer). Under
 * `valgrind --tool=callgrind bench_jdecode 1`, the inclusive count of read_pass() divided by
 * the messages it prints is the instructions per message.
 */
#include "jdecode.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define RUNS 5
#define MAX_FRAMES 4096

typedef struct frames {
    char *text[MAX_FRAMES];
    size_t len[MAX_FRAMES];
    unsigned n;
} frames;

/* Loads the TEXT frames of a capture's dump (the JSON after "| " on each " TEXT " line) into
 * *f. Returns 0, or -1 with a message on stderr. */
static int load(const char *rel, frames *f)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/data/captures/%s", RWFPERF_SOURCE_DIR, rel);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "bench_jdecode: cannot open %s\n", path);
        return -1;
    }
    static char ln[1 << 20];
    f->n = 0;
    while (fgets(ln, sizeof(ln), fp) && f->n < MAX_FRAMES) {
        const char *p = strstr(ln, " | ");
        if (!strstr(ln, " TEXT ") || !p)
            continue;
        p += 3;
        size_t n = strcspn(p, "\r\n");
        if (!(f->text[f->n] = malloc(n ? n : 1))) {
            fclose(fp);
            return -1;
        }
        memcpy(f->text[f->n], p, n);
        f->len[f->n++] = n;
    }
    fclose(fp);
    return f->n ? 0 : -1;
}

static volatile uint64_t sink;

/* One pass over every frame: the messages read, or -1 on an error. */
__attribute__((noinline)) static long read_pass(const frames *f)
{
    long msgs = 0;
    uint64_t acc = 0;
    for (unsigned i = 0; i < f->n; i++) {
        cons_jreader r;
        cons_jmsg m;
        int rc;
        cons_jreader_init(&r, f->text[i], f->len[i]);
        while ((rc = cons_jreader_next(&r, &m)) > 0) {
            msgs++;
            acc += (uint64_t)m.stream_id + m.st.sum + m.st.t[0] + (uint64_t)m.kind;
        }
        if (rc < 0) {
            fprintf(stderr, "bench_jdecode: frame %u: %s\n", i, err_msg());
            return -1;
        }
    }
    sink = acc;
    return msgs;
}

static int bench(const char *rel, long passes)
{
    frames f;
    if (load(rel, &f) < 0)
        return -1;
    long msgs = read_pass(&f);
    if (msgs < 0)
        return -1;
    double ns[RUNS];
    for (int r = 0; r < RUNS && passes > 1; r++) {
        double t0 = bench_thread_ns();
        for (long i = 0; i < passes; i++)
            read_pass(&f);
        ns[r] = (bench_thread_ns() - t0) / ((double)passes * (double)msgs);
    }
    if (passes > 1) {
        qsort(ns, RUNS, sizeof(ns[0]), bench_cmp_double);
        printf("%-28s %5u frames %5ld messages  %7.1f ns/message best, %7.1f median\n", rel, f.n,
               msgs, ns[0], ns[RUNS / 2]);
    } else {
        printf("%-28s %5u frames %5ld messages\n", rel, f.n, msgs);
    }
    for (unsigned i = 0; i < f.n; i++)
        free(f.text[i]);
    return 0;
}

int main(int argc, char **argv)
{
    long passes = argc > 1 ? atol(argv[1]) : 2000;
    if (passes < 1)
        passes = 1;
    if (bench("ws_json/ws_json.s2c.txt", passes) < 0 ||
        bench("ws_json/ws_json_pack.s2c.txt", passes) < 0)
        return 1;
    return 0;
}
