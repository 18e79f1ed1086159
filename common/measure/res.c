#include "res.h"

#include "clk.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int cpu_time_us(int64_t *out)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return err_set_errno(errno, "getrusage");
    *out = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
           (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
    return 0;
}

int64_t res_rss_bytes(void)
{
    char buf[256];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set_errno(errno, "open /proc/self/statm");
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    int saved = errno;
    close(fd);
    if (n <= 0)
        return err_set_errno(n < 0 ? saved : EIO, "read /proc/self/statm");
    buf[n] = '\0';
    /* "size resident shared text lib data dt", in pages. */
    char *p = buf, *end;
    strtoull(p, &end, 10);
    if (end == p)
        return err_set("/proc/self/statm: unexpected content");
    p = end;
    errno = 0;
    unsigned long long pages = strtoull(p, &end, 10);
    if (end == p || errno)
        return err_set("/proc/self/statm: unexpected content");
    long page = sysconf(_SC_PAGESIZE);
    return (int64_t)pages * (page > 0 ? page : 4096);
}

int res_init(res *r)
{
    memset(r, 0, sizeof(*r));
    r->prev_wall_ns = clk_ns();
    if (cpu_time_us(&r->prev_cpu_us) != 0)
        return err_push("resource usage");
    return 0;
}

int res_sample(res *r)
{
    int64_t cpu_us;
    if (cpu_time_us(&cpu_us) != 0)
        return err_push("resource usage");
    int64_t wall_ns = clk_ns();
    int64_t rss = res_rss_bytes();
    if (rss < 0)
        return err_push("resource usage");

    int64_t wall = wall_ns - r->prev_wall_ns;
    r->cpu = wall > 0 ? 100.0 * (double)(cpu_us - r->prev_cpu_us) * 1000.0 / (double)wall : 0;
    r->mem = (double)rss / 1048576.0;
    r->prev_wall_ns = wall_ns;
    r->prev_cpu_us = cpu_us;

    if (r->samples == 0) {
        r->cpu_min = r->cpu_max = r->cpu;
        r->mem_min = r->mem_max = r->mem;
    } else {
        if (r->cpu < r->cpu_min)
            r->cpu_min = r->cpu;
        if (r->cpu > r->cpu_max)
            r->cpu_max = r->cpu;
        if (r->mem < r->mem_min)
            r->mem_min = r->mem;
        if (r->mem > r->mem_max)
            r->mem_max = r->mem;
    }
    r->cpu_sum += r->cpu;
    r->mem_sum += r->mem;
    r->samples++;
    return 0;
}

void res_summary(const res *r, stat_res *out)
{
    memset(out, 0, sizeof(*out));
    if (r->samples == 0)
        return;
    out->samples = r->samples;
    out->cpu_min = r->cpu_min;
    out->cpu_max = r->cpu_max;
    out->cpu_avg = r->cpu_sum / (double)r->samples;
    out->mem_min = r->mem_min;
    out->mem_max = r->mem_max;
    out->mem_avg = r->mem_sum / (double)r->samples;
}
