#include "run_prog.h"

#include "clk.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The line's state: whether it is drawn at all, whether it is on the screen now, and whether
 * the last byte written to the terminal ended a line (no line is drawn behind a part of one).
 * shown and line_start are read and written under lock only. */
static atomic_bool on;
static bool shown;
static bool line_start = true;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char erase[] = "\r\033[K";

/* Writes all n bytes to fd (a terminal); false on an error. */
static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Under lock: erases the line when it is on the screen. */
static void erase_locked(void)
{
    if (shown)
        write_all(STDERR_FILENO, erase, sizeof(erase) - 1);
    shown = false;
}

/* The writer in front of a terminal's stdout or stderr (fopencookie): erases the line, then
 * writes the tool's bytes as they are. */
static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    pthread_mutex_lock(&lock);
    erase_locked();
    bool ok = write_all(fd, buf, n);
    if (n > 0)
        line_start = buf[n - 1] == '\n';
    pthread_mutex_unlock(&lock);
    return ok ? (ssize_t)n : -1;
}

/* A stream over fd that writes through term_write, or NULL. */
static FILE *term_stream(int fd, int mode)
{
    cookie_io_functions_t io = {.write = term_write};
    FILE *f = fopencookie((void *)(intptr_t)fd, "w", io);
    if (f && setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
}

void run_prog_init(void)
{
    const char *no = getenv("RWFPERF_NO_PROGRESS");
    if ((no && no[0] && strcmp(no, "0") != 0) || !isatty(STDERR_FILENO))
        return;
    if (isatty(STDOUT_FILENO)) {
        FILE *f = term_stream(STDOUT_FILENO, _IOLBF);
        if (!f)
            return;
        stdout = f;
    }
    FILE *e = term_stream(STDERR_FILENO, _IONBF);
    if (e)
        stderr = e;
    atomic_store(&on, true);
}

void run_prog_off(void)
{
    run_prog_end();
}

bool run_prog_on(void)
{
    return atomic_load_explicit(&on, memory_order_relaxed);
}

void run_prog_start(run_prog_text *t, const char *tool, int64_t elapsed_ns)
{
    t->len = 0;
    t->s[0] = '\0';
    run_prog_add(t, "%s %lld s", tool, (long long)(elapsed_ns / CLK_NS_PER_SEC));
}

void run_prog_add(run_prog_text *t, const char *fmt, ...)
{
    if (t->len > 0 && t->len + 3 < sizeof(t->s)) {
        memcpy(t->s + t->len, " | ", 4);
        t->len += 3;
    }
    if (t->len + 1 >= sizeof(t->s))
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->len, sizeof(t->s) - t->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->len += (size_t)w < sizeof(t->s) - t->len ? (size_t)w : sizeof(t->s) - t->len - 1;
}

void run_prog_draw(const run_prog_text *t)
{
    if (!run_prog_on())
        return;
    /* Cut to one column less than the terminal's width, so that it never wraps: "\r" goes
     * back to the start of one screen line only. */
    size_t n = t->len;
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && n > (size_t)ws.ws_col - 1)
        n = (size_t)ws.ws_col - 1;
    char line[sizeof(t->s) + 8];
    line[0] = '\r';
    memcpy(line + 1, t->s, n);
    memcpy(line + 1 + n, "\033[K", 3);
    pthread_mutex_lock(&lock);
    if (run_prog_on() && line_start)
        shown = write_all(STDERR_FILENO, line, n + 4);
    pthread_mutex_unlock(&lock);
}

void run_prog_end(void)
{
    pthread_mutex_lock(&lock);
    atomic_store(&on, false);
    erase_locked();
    pthread_mutex_unlock(&lock);
}

const char *run_prog_count(char *buf, size_t n, uint64_t v)
{
    char d[32];
    int k = snprintf(d, sizeof(d), "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < k && o + 1 < n; i++) {
        if (i > 0 && (k - i) % 3 == 0 && o + 2 < n)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    if (n)
        buf[o < n ? o : n - 1] = '\0';
    return buf;
}

const char *run_prog_latency(char *buf, size_t n, double ns, uint64_t count)
{
    double us = ns / 1000.0;
    if (!count)
        snprintf(buf, n, "-");
    else if (us < 10000.0)
        snprintf(buf, n, "%.0f us", us);
    else
        snprintf(buf, n, "%.1f ms", us / 1000.0);
    return buf;
}

double run_prog_rate_next(run_prog_rate *r, uint64_t total, int64_t now_ns)
{
    double rate = 0.0;
    if (r->ns && now_ns > r->ns && total >= r->total)
        rate = (double)(total - r->total) * 1e9 / (double)(now_ns - r->ns);
    r->ns = now_ns;
    r->total = total;
    return rate;
}
