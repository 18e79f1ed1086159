/*
 * Helpers of ConsPerf's integration programs (they start the real executables on loopback):
 * a fresh working folder holding the project's dictionary files (data/) and an item list,
 * starting a tool there with its console captured, waiting for it with a time limit, and
 * reading numbers out of the files it wrote. Each program exits 0 (passed), 1 (failed, with a
 * message) or 77 (skipped: the original tools or a capture are absent).
 */
#ifndef RWFPERF_CONS_ITEST_H
#define RWFPERF_CONS_ITEST_H

#include "testsupport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline long long ci_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Prints the message and ends the program with status 1. */
__attribute__((noreturn, format(printf, 1, 2))) static inline void ci_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static inline void ci_copy(const char *from, const char *to)
{
    uint8_t *data = NULL;
    size_t len;
    if (ts_read_file(from, &data, &len) != 0)
        ci_fail("cannot read %s", from);
    FILE *f = fopen(to, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        ci_fail("cannot write %s", to);
    free(data);
}

/* Writes an item list of n MarketPrice items RDT1..RDTn to path, flagged as the project's
 * data/gen_items.sh flags them: RDT1 post and generic, RDT2..RDT7 post. */
static inline void ci_items(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        ci_fail("cannot write %s", path);
    fprintf(f, "<itemList>\n");
    for (int i = 1; i <= n; i++)
        fprintf(f, "    <item domain=\"MarketPrice\" name=\"RDT%d\"%s/>\n", i,
                i == 1   ? " post=\"true\" generic=\"true\""
                : i <= 7 ? " post=\"true\""
                         : "");
    fprintf(f, "</itemList>\n");
    fclose(f);
}

/* A new, empty working folder for test `name` (under the build folder), holding the project's
 * RDMFieldDictionary and enumtype.def (data/) and items.xml with `items` items. Outside ctest (no
 * RWFPERF_BINARY_DIR) it goes under the temporary folder. Returns its path (static storage). */
static inline const char *ci_workdir(const char *name, int items)
{
    static char dir[1024];
    const char *base = getenv("RWFPERF_BINARY_DIR");
    if (base && *base)
        snprintf(dir, sizeof(dir), "%s/tests/tools/work-%s", base, name);
    else /* run by hand: never inside the source tree */
        snprintf(dir, sizeof(dir), "%s/rwfperf-cons-%d-%s", P_tmpdir, (int)getpid(), name);
    char cmd[2200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        ci_fail("cannot create %s", dir);
    char from[1024], to[1200];
    snprintf(from, sizeof(from), "%s", ts_source_path("data/RDMFieldDictionary"));
    snprintf(to, sizeof(to), "%s/RDMFieldDictionary", dir);
    ci_copy(from, to);
    snprintf(from, sizeof(from), "%s", ts_source_path("data/enumtype.def"));
    snprintf(to, sizeof(to), "%s/enumtype.def", dir);
    ci_copy(from, to);
    snprintf(to, sizeof(to), "%s/items.xml", dir);
    ci_items(to, items);
    return dir;
}

/* The path of a file in dir (static storage, two alternating buffers). */
static inline const char *ci_path(const char *dir, const char *file)
{
    static char buf[2][1200];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, file);
    return buf[k];
}

/* Starts exe with argv (argv[0] included, NULL-terminated) in dir, its stdout and stderr
 * going to <dir>/<log>. Returns the process id. */
static inline pid_t ci_spawn(const char *dir, const char *log, const char *exe, char *const argv[])
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        ci_fail("fork: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(exe, argv);
        _exit(127);
    }
    return pid;
}

/* Waits up to timeout_ms for pid; kills it (SIGKILL) when it takes longer. Returns its exit
 * status, or -signal when a signal ended it. */
static inline int ci_wait(pid_t pid, int timeout_ms)
{
    long long end = ci_now_ms() + timeout_ms;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (r < 0)
            ci_fail("waitpid: %s", strerror(errno));
        if (ci_now_ms() >= end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fprintf(stderr, "process %d killed after %d ms\n", (int)pid, timeout_ms);
            break;
        }
        poll(NULL, 0, 10);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

/* The text of <dir>/<file> (caller frees); fails the test when it cannot be read. */
__attribute__((noinline, unused)) static char *ci_text(const char *dir, const char *file)
{
    uint8_t *data = NULL;
    size_t len;
    if (ts_read_file(ci_path(dir, file), &data, &len) != 0)
        ci_fail("cannot read %s", ci_path(dir, file));
    return (char *)data;
}

/* The number after the first occurrence of label in text; fails when absent. */
static inline double ci_num(const char *text, const char *label)
{
    const char *p = strstr(text, label);
    if (!p)
        ci_fail("'%s' not found", label);
    return strtod(p + strlen(label), NULL);
}

/* The number after `label` inside the section of text that starts at `section`. */
static inline double ci_num_in(const char *text, const char *section, const char *label)
{
    const char *s = strstr(text, section);
    if (!s)
        ci_fail("section '%s' not found", section);
    return ci_num(s, label);
}

/* The same inside the section `sub` that follows `section`. */
static inline double ci_num_in2(const char *text, const char *section, const char *sub,
                                const char *label)
{
    const char *s = strstr(text, section);
    if (!s)
        ci_fail("section '%s' not found", section);
    return ci_num_in(s, sub, label);
}

/* Shows a file of the working folder on stderr (for failures). */
/* True when a socket listens on the IPv4 loopback/any port (from /proc/net/tcp: the original
 * tools' stdout, written to a file, is not flushed until they end, and a probing connection
 * would disturb the original ProvPerf -reactor). */
static inline bool ci_listening(const char *port)
{
    FILE *f = fopen("/proc/net/tcp", "r");
    if (!f)
        return false;
    char line[512];
    unsigned want = (unsigned)atoi(port);
    bool yes = false;
    while (!yes && fgets(line, sizeof(line), f)) {
        unsigned addr, lport, st;
        if (sscanf(line, " %*u: %x:%x %*x:%*x %x", &addr, &lport, &st) == 3)
            yes = lport == want && st == 0x0A;
    }
    fclose(f);
    return yes;
}

/* The number of threads of a process (0 when it is gone). */
static inline int ci_threads(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    int n = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

/* Waits until the original ProvPerf -reactor can take a connection: one that comes before its
 * provider threads have made their reactors hangs it for good (its main thread spins on a
 * value it never reads again). Ready when the main thread, each provider thread and each
 * reactor's worker are there, plus a little time for the reactor's set-up after that. */
static inline bool ci_orig_reactor_ready(pid_t pid, int prov_threads, int timeout_ms)
{
    long long end = ci_now_ms() + timeout_ms;
    while (ci_threads(pid) < 1 + 2 * prov_threads) {
        if (ci_now_ms() > end)
            return false;
        poll(NULL, 0, 20);
    }
    poll(NULL, 0, 500);
    return true;
}

static inline void ci_show(const char *dir, const char *file)
{
    uint8_t *data = NULL;
    size_t len;
    if (ts_read_file(ci_path(dir, file), &data, &len) == 0) {
        fprintf(stderr, "----- %s -----\n%s\n", file, (char *)data);
        free(data);
    }
}

#endif
