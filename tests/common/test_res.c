/* The resource sampler and the stop flag. */
#include "testsupport.h"

#include "clk.h"
#include "res.h"
#include "sig.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double burn_sink;

static int64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Spins until the process has used ns more of CPU time (whatever the machine's load gives it,
 * within 20 s of wall time). */
static void burn(int64_t ns)
{
    int64_t end = cpu_ns() + ns, give_up = clk_ns() + 20 * 1000000000LL;
    double x = 1.0;
    while (cpu_ns() < end && clk_ns() < give_up)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    burn_sink = x;
}

static void test_cpu_and_memory(void **state)
{
    (void)state;
    res r;
    stat_res s;
    assert_int_equal(res_init(&r), 0);
    res_summary(&r, &s);
    assert_int_equal(s.samples, 0);
    assert_true(s.cpu_max == 0 && s.mem_max == 0);

    int64_t w0 = clk_ns();
    burn(150 * 1000000);
    assert_int_equal(res_sample(&r), 0);
    double busy = r.cpu, wall_s = (double)(clk_ns() - w0) / 1e9;
    /* 150 ms of CPU used in wall_s seconds: the share the sampler must see, whatever the load
     * (others may hold the cores for most of that time), to within getrusage's tick
     * granularity: at least half of it; and a single thread cannot use much more than one
     * core. */
    double used = 100.0 * 0.150 / wall_s;
    print_message("busy sample: %.1f%% CPU (150 ms of CPU in %.3f s: %.1f%%), %.2f MB\n", r.cpu,
                  wall_s, used, r.mem);
    assert_true(busy > used / 2);
    assert_true(busy < 130.0);
    assert_true(r.mem > 0.5 && r.mem < 4096);
    double mem_before = r.mem;

    /* 64 MB touched: resident memory grows by about that much. */
    size_t big = 64u << 20;
    char *p = malloc(big);
    assert_non_null(p);
    memset(p, 1, big);
    assert_int_equal(res_sample(&r), 0);
    double touched = r.cpu;
    print_message("after touching 64 MB: %.1f%% CPU, %.2f MB\n", r.cpu, r.mem);
    assert_true(r.mem >= mem_before + 60);
    double mem_with = r.mem;
    free(p);

    /* Asleep: next to nothing. */
    struct timespec nap = {0, 200 * 1000000};
    nanosleep(&nap, NULL);
    assert_int_equal(res_sample(&r), 0);
    print_message("idle sample: %.1f%% CPU, %.2f MB\n", r.cpu, r.mem);
    assert_true(r.cpu < 10.0);

    res_summary(&r, &s);
    assert_int_equal(s.samples, 3);
    double hi = fmax(busy, fmax(touched, r.cpu)), lo = fmin(busy, fmin(touched, r.cpu));
    assert_true(s.cpu_max == hi);
    assert_true(s.cpu_min == lo);
    assert_true(fabs(s.cpu_avg - (busy + touched + r.cpu) / 3) < 1e-9);
    assert_true(s.mem_max >= mem_with);
    assert_true(s.mem_min <= mem_before);
    assert_true(s.mem_avg > s.mem_min && s.mem_avg < s.mem_max);

    /* The figure the summary uses is bytes / 1,048,576 of /proc/self/statm's second field. */
    int64_t rss = res_rss_bytes();
    assert_true(rss > 0);
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, pages;
    assert_int_equal(fscanf(f, "%llu %llu", &size, &pages), 2);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    double diff = (double)rss - (double)pages * (double)page;
    assert_true(diff > -(1 << 20) && diff < (1 << 20));
}

static void test_stop_flag(void **state)
{
    (void)state;
    sig_reset();
    assert_int_equal(sig_install(), 0);
    assert_false(sig_stop_requested());
    assert_int_equal(sig_caught(), 0);

    /* SIGPIPE is ignored: raising it does not end the process. */
    raise(SIGPIPE);

    raise(SIGTERM);
    assert_true(sig_stop_requested());
    assert_int_equal(sig_caught(), SIGTERM);

    sig_reset();
    sig_request_stop();
    assert_true(sig_stop_requested());
    assert_int_equal(sig_caught(), 0);
    /* A signal after an internal stop is still the first signal: recorded, not fatal. */
    raise(SIGINT);
    assert_int_equal(sig_caught(), SIGINT);
    sig_reset();
}

/* A second signal while the first is being honoured ends the process with that signal. */
static void test_second_signal_kills(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sig_reset();
        if (sig_install() != 0)
            _exit(3);
        raise(SIGINT);
        if (!sig_stop_requested())
            _exit(4);
        raise(SIGINT);
        _exit(5); /* not reached */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_and_memory),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_second_signal_kills),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
