/*
 * Helpers of the live interop tests with the original ETA tools (RWFPERF_ORIG_BIN): a
 * scratch folder with their data files, starting and ending them, reading what they send,
 * the frames of the consprov_default capture.
 */
#ifndef RWFPERF_TP_ORIGUTIL_H
#define RWFPERF_TP_ORIGUTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp_testutil.h"

static char bin[1024];
static char dir[256];

static inline void need_orig(void)
{
    const char *b = getenv("RWFPERF_ORIG_BIN");
    char p[1100];
    snprintf(p, sizeof(p), "%s/TransportPerf", b ? b : "");
    if (!b || !*b || access(p, X_OK) != 0) {
        printf("SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools\n");
        exit(TS_SKIP);
    }
    snprintf(bin, sizeof(bin), "%s", b);
}

static inline int setup(void **state)
{
    (void)state;
    need_orig();
    snprintf(dir, sizeof(dir), "/tmp/rwfperf_interop_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    const char *files[] = {"RDMFieldDictionary", "enumtype.def", "MsgData.xml"};
    for (int i = 0; i < 3; i++) {
        char rel[64], to[512];
        snprintf(rel, sizeof(rel), "data/%s", files[i]);
        snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
        if (symlink(ts_source_path(rel), to) != 0)
            return -1;
    }
    char items[512];
    snprintf(items, sizeof(items), "%s/items.xml", dir);
    FILE *f = fopen(items, "w");
    fprintf(f, "<itemList>\n<item domain=\"MarketPrice\" name=\"RDT1\" post=\"true\" "
               "generic=\"true\"/>\n");
    for (int i = 2; i <= 5; i++)
        fprintf(f, "<item domain=\"MarketPrice\" name=\"RDT%d\" post=\"true\"/>\n", i);
    fprintf(f, "</itemList>\n");
    fclose(f);
    return 0;
}

static inline int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

/* Starts bin/<tool> with args (a space-separated string) in dir, output to dir/<out>. */
static inline pid_t spawn(const char *tool, const char *args, const char *out)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "exec stdbuf -o0 %s/%s %s > %s 2>&1", bin, tool, args, out);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(127);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    return pid;
}

static pid_t reaped = -1; /* the last child exited() collected */

/* Waits for pid to exit by itself for up to ms; then ends it (SIGINT, then SIGKILL). */
static inline int finish(pid_t pid, int ms)
{
    int st = 0;
    if (pid == reaped)
        return 0;
    for (int i = 0; i < ms / 10; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGINT);
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return st;
}

static inline int exited(pid_t pid)
{
    int st;
    if (pid == reaped)
        return 1;
    if (waitpid(pid, &st, WNOHANG) != pid)
        return 0;
    reaped = pid;
    return 1;
}

/* The component string of an original ETA tool ("eta3.6.5.G1.linux.rrg 64-bit Static" or
 * another release's) arrived whole. */
static inline void assert_orig_component(const char *c)
{
    if (strncmp(c, "eta3.", 5) != 0 || !strstr(c, ".linux.rrg 64-bit Static"))
        fail_msg("component \"%s\" is not an ETA tool's", c);
}

static inline int free_port(void)
{
    tp_opts o;
    tu_opts(&o);
    tp_server *s;
    assert_int_equal(tp_bind(&o, &s), 0);
    int p = tp_server_port(s);
    tp_server_close(s);
    return p;
}

static inline void slurp(const char *name, char *buf, size_t cap)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Connects our client, retrying while the original server starts. */
static inline tp_channel *connect_retry(tp_opts *o)
{
    uint64_t end = tu_now_ms() + 8000;
    while (tu_now_ms() < end) {
        tp_channel *ch;
        if (tp_connect(o, &ch) == 0) {
            if (tp_init_wait(ch, 3000) == TP_ACTIVE)
                return ch;
            tp_close(ch);
        }
        usleep(100000);
    }
    fail_msg("could not connect to the original server: %s", err_msg());
    return NULL;
}

static inline const char *comp_arg(tp_comp c)
{
    return c == TP_COMP_ZLIB ? "zlib" : c == TP_COMP_LZ4 ? "lz4" : "none";
}

static inline void reads_transportperf(tp_channel *ch, uint32_t size, uint64_t want, int ms)
{
    uint64_t got = 0, first = 0;
    uint64_t end = tu_now_ms() + (uint64_t)ms;
    while (got < want && tu_now_ms() < end) {
        tp_msg m;
        int rc = tu_read(ch, &m, 100);
        if (rc < 0)
            fail_msg("after %llu messages: %s", (unsigned long long)got, err_msg());
        if (rc == 1) {
            uint64_t seq;
            assert_int_equal(m.len, size);
            memcpy(&seq, m.data, 8);
            if (got == 0)
                first = seq;
            if (seq != first + got)
                fail_msg("sequence %llu, expected %llu", (unsigned long long)seq,
                         (unsigned long long)(first + got));
            got++;
        }
    }
    if (got < want)
        fail_msg("only %llu of %llu messages arrived", (unsigned long long)got,
                 (unsigned long long)want);
}

/* Frames of the consprov_default capture: c2s login request, directory request, item
 * requests; s2c login refresh and directory refresh. */
typedef struct frames {
    ts_tcp_streams s;
    const uint8_t *c2s[8], *s2c[4];
    uint32_t c2s_len[8], s2c_len[4];
} frames;

static inline void load_frames(frames *f)
{
    const char *p = ts_capture("consprov_default/consprov_default.pcap");
    assert_int_equal(ts_pcap_tcp_streams(p, 14002, &f->s), 0);
    const uint8_t *c = f->s.client_to_server.data;
    size_t off = (size_t)(c[0] << 8 | c[1]) + 12; /* ConnectReq, key */
    for (int i = 0; i < 7; i++) {
        uint32_t l = (uint32_t)(c[off] << 8 | c[off + 1]);
        f->c2s[i] = c + off + 3;
        f->c2s_len[i] = l - 3;
        off += l;
    }
    const uint8_t *s = f->s.server_to_client.data;
    off = (size_t)(s[0] << 8 | s[1]);
    for (int i = 0; i < 2; i++) {
        uint32_t l = (uint32_t)(s[off] << 8 | s[off + 1]);
        f->s2c[i] = s + off + 3;
        f->s2c_len[i] = l - 3;
        off += l;
    }
}

static inline void write_msg(tp_channel *ch, const uint8_t *p, uint32_t n)
{
    tp_buf *b;
    assert_int_equal(tp_get_buffer(ch, n, false, &b), 0);
    memcpy(b->data, p, n);
    b->len = n;
    assert_true(tp_write(ch, b, 0) >= 0);
    assert_true(tp_flush(ch) >= 0);
}

#endif
