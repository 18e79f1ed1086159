/*
 * ConsPerf integration scenarios: the real ConsPerf against a real provider on loopback, one
 * scenario per run, checked through the files and the exit status ConsPerf leaves.
 *
 *     consperf_itest <scenario> <ConsPerf> <provider>
 *
 * The provider is cons_test_prov (our minimal provider) started on an ephemeral port in a
 * fresh working folder. Scenarios: basic, snapshot, threads, late, killed, closed, generic,
 * retry, sigint, invalid. The orig_* scenarios run the original ETA ProvPerf instead, from
 * the folder $RWFPERF_ORIG_BIN (skipped when it is not set): orig_default, orig_pack,
 * orig_zlib, orig_lz4, orig_dictionary. Exit status 0 when the scenario holds, 1 (with the
 * reason) when it does not, 77 when the original tools are absent. The message data is the
 * project's own data/MsgData.xml.
 */
#include "cons_itest.h"

#include <json-c/json.h>
#include <netinet/in.h>
#include <sys/socket.h>

typedef struct run {
    const char *dir;
    const char *cons, *prov;
    pid_t prov_pid;
    char port[16];
} run;

/* Starts the provider with its extra arguments and waits for its port. */
static void start_provider(run *r, const char *const *extra)
{
    char *argv[32] = {(char *)r->prov, (char *)"port.txt"};
    int n = 2;
    for (; extra && *extra && n < 30; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    unlink(ci_path(r->dir, "port.txt"));
    r->prov_pid = ci_spawn(r->dir, "prov.out", r->prov, argv);
    long long end = ci_now_ms() + 10000;
    for (;;) {
        FILE *f = fopen(ci_path(r->dir, "port.txt"), "r");
        if (f) {
            bool ok = fgets(r->port, sizeof(r->port), f) != NULL;
            fclose(f);
            if (ok) {
                r->port[strcspn(r->port, "\n")] = '\0';
                return;
            }
        }
        if (ci_now_ms() > end)
            ci_fail("the provider did not start");
        poll(NULL, 0, 10);
    }
}

static void stop_provider(run *r)
{
    if (r->prov_pid > 0) {
        kill(r->prov_pid, SIGINT); /* the original ProvPerf ends cleanly on SIGINT */
        ci_wait(r->prov_pid, 5000);
        r->prov_pid = 0;
    }
}

/* Starts ConsPerf against the provider with the common arguments and extra ones. */
static pid_t start_consumer(run *r, const char *const *extra)
{
    char *argv[64] = {(char *)r->cons, "-h",        "127.0.0.1",           "-p", r->port,
                      "-itemFile",     "items.xml", "-writeStatsInterval", "1"};
    int n = 9;
    for (; extra && *extra && n < 62; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    return ci_spawn(r->dir, "ConsPerf.out", r->cons, argv);
}

static int run_consumer(run *r, const char *const *extra, int timeout_ms)
{
    return ci_wait(start_consumer(r, extra), timeout_ms);
}

static void expect_status(run *r, int got, int want)
{
    if (got != want) {
        ci_show(r->dir, "ConsPerf.out");
        ci_show(r->dir, "prov.out");
        ci_fail("ConsPerf exited with %d, expected %d", got, want);
    }
}

static void expect_text(run *r, const char *file, const char *text, bool present)
{
    char *t = ci_text(r->dir, file);
    bool has = strstr(t, text) != NULL;
    free(t);
    if (has != present) {
        ci_show(r->dir, file);
        ci_fail("%s %s \"%s\"", file, present ? "lacks" : "has", text);
    }
}

static double summary_num(run *r, const char *section, const char *label)
{
    char *t = ci_text(r->dir, "ConsSummary.out");
    double v = section ? ci_num_in(t, section, label) : ci_num(t, label);
    free(t);
    return v;
}

static void expect_near(const char *what, double got, double want, double tolerance)
{
    if (got < want * (1 - tolerance) || got > want * (1 + tolerance))
        ci_fail("%s is %.0f, expected %.0f (within %.0f%%)", what, got, want, tolerance * 100);
}

static int count_lines(run *r, const char *file, const char *prefix)
{
    char *t = ci_text(r->dir, file);
    int n = 0;
    for (char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix)))
            n++;
    free(t);
    return n;
}

/* Waits until text shows in a file of the working folder (ConsPerf's console: it prints
 * "Image retrieval time" at the first statistics line after its images are in). */
static void wait_for_text(run *r, const char *file, const char *text, int timeout_ms)
{
    long long end = ci_now_ms() + timeout_ms;
    for (;;) {
        uint8_t *data = NULL;
        size_t len;
        bool found = false;
        if (ts_read_file(ci_path(r->dir, file), &data, &len) == 0) {
            found = strstr((char *)data, text) != NULL;
            free(data);
        }
        if (found)
            return;
        if (ci_now_ms() > end) {
            ci_show(r->dir, file);
            ci_fail("\"%s\" did not show in %s", text, file);
        }
        poll(NULL, 0, 50);
    }
}

/* 20 items, 2000 updates/s, every update stamped: counts, rates, latencies, files. */
static void basic(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "2000", NULL});
    int st = run_consumer(
        r,
        (const char *[]){"-itemCount", "20", "-steadyStateTime", "3", "-latencyFile", "lat", NULL},
        20000);
    expect_status(r, st, 0);
    expect_text(r, "ConsPerf.out", "Steady state time of 3 seconds has expired.", true);
    /* The Channel Info block as the original prints it: the receive buffer size is labelled
     * sysSendBufSize too (tests/data/captures/consprov_default/consprov_default.cons.stdout). */
    expect_text(r, "ConsPerf.out", "  serverToClientPings: true\n  sysSendBufSize: ", true);
    expect_text(r, "ConsPerf.out", "\n  compressionType: none\n  compressionThreshold: ", true);
    expect_text(r, "ConsPerf.out", "sysRecvBufSize", false);
    if (count_lines(r, "ConsPerf.out", "  sysSendBufSize: ") != 2)
        ci_fail("ConsPerf.out does not have two sysSendBufSize lines");
    if (summary_num(r, "Test Statistics:", "  Requests sent: ") != 20 ||
        summary_num(r, "Test Statistics:", "  Refreshes received: ") != 20)
        ci_fail("requests/refreshes are not 20");
    expect_near("steady-state update rate",
                summary_num(r, "Steady State Statistics:", "  Avg update rate: "), 2000, 0.1);
    double updates = summary_num(r, "Test Statistics:", "  Updates received: ");
    double secs = summary_num(r, "Overall Statistics:", "  Sampling duration (sec): ");
    expect_near("updates received", updates, 2000 * secs, 0.15);
    if (summary_num(r, "Steady State Statistics:", "  Latency avg (usec): ") <= 0)
        ci_fail("no steady-state latency");
    expect_text(r, "ConsSummary.out", "  Sched latency avg (usec): ", true);
    expect_text(r, "ConsSummary.out", "  Latency p99 (usec): ", true);
    expect_text(r, "ConsSummary.out", "ERROR", false);
    if (count_lines(r, "ConsStats1.csv", "20") < 3)
        ci_fail("ConsStats1.csv has fewer than 3 rows");
    expect_text(r, "ConsStats1.csv", "UTC, Latency updates, Latency avg (usec)", true);
    if (count_lines(r, "lat1.csv", "Upd, ") < 1000)
        ci_fail("lat1.csv has too few rows");
    expect_text(r, "ConsSummary.json", "\"passed\": true", true);
    expect_text(r, "ConsSummary.json", "\"tool\": \"ConsPerf\"", true);
}

static void snapshot(run *r)
{
    start_provider(r, NULL);
    long long t0 = ci_now_ms();
    int st = run_consumer(r, (const char *[]){"-itemCount", "20", "-snapshot", NULL}, 20000);
    expect_status(r, st, 0);
    if (ci_now_ms() - t0 > 10000)
        ci_fail("the snapshot run did not end when its images were in");
    expect_text(r, "ConsPerf.out", "Received all images for snapshot test.", true);
    if (summary_num(r, "Test Statistics:", "  Refreshes received: ") != 20)
        ci_fail("refreshes are not 20");
    if (summary_num(r, "Test Statistics:", "  Updates received: ") != 0)
        ci_fail("snapshot items received updates");
}

/* Two connections, 4 common items: 12 requests each, 20 distinct items. */
static void threads(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "500", NULL});
    int st = run_consumer(r,
                          (const char *[]){"-itemCount", "24", "-commonItemCount", "4", "-threads",
                                           "-1,-1", "-steadyStateTime", "2", NULL},
                          20000);
    expect_status(r, st, 0);
    for (int c = 1; c <= 2; c++) {
        char section[64];
        snprintf(section, sizeof(section), "--- CLIENT %d SUMMARY ---", c);
        char *t = ci_text(r->dir, "ConsSummary.out");
        if (ci_num_in(t, section, "  Requests sent: ") != 12 ||
            ci_num_in(t, section, "  Refreshes received: ") != 12)
            ci_fail("client %d did not request and receive 12 items", c);
        free(t);
    }
    if (summary_num(r, "--- OVERALL SUMMARY ---", "  Refreshes received: ") != 24)
        ci_fail("the run did not receive 24 images");
    expect_text(r, "ConsPerf.out", "Overall image retrieval time for 24 images", true);
    expect_text(r, "ConsPerf.out", "Client 2:", true);
    if (count_lines(r, "ConsStats2.csv", "20") < 2)
        ci_fail("ConsStats2.csv has too few rows");
    /* Both connections got their updates. */
    char *t = ci_text(r->dir, "ConsSummary.out");
    expect_near("client 2 update rate",
                ci_num_in2(t, "--- CLIENT 2 SUMMARY ---",
                           "Steady State Statistics:", "  Avg update rate: "),
                500, 0.2);
    free(t);
}

/* A number at a path of the JSON summary ("results", "overall", "steady_latency", "count");
 * -1 when the path does not exist. */
static double json_num(run *r, const char *const *path)
{
    json_object *doc = json_object_from_file(ci_path(r->dir, "ConsSummary.json"));
    if (!doc)
        ci_fail("ConsSummary.json does not parse");
    json_object *o = doc;
    for (; *path; path++)
        if (!json_object_object_get_ex(o, *path, &o)) {
            json_object_put(doc);
            return -1;
        }
    double v = json_object_get_double(o);
    json_object_put(doc);
    return v;
}

/* Pings both ways keep an idle connection up past the ping timeout. */
static void pings(run *r)
{
    start_provider(r, (const char *[]){"-pingTimeout", "3", "-updateRate", "0", NULL});
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "7", NULL}, 20000);
    expect_status(r, st, 0);
    expect_text(r, "ConsPerf.out", "  pingTimeout: 3\n", true);
}

/* A provider that goes silent (no data, no pings) is dropped after the ping timeout. */
static void silent(run *r)
{
    start_provider(r, (const char *[]){"-pingTimeout", "3", "-silentAfter", "1", NULL});
    long long t0 = ci_now_ms();
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "30", NULL}, 20000);
    expect_status(r, st, 1);
    if (ci_now_ms() - t0 > 10000)
        ci_fail("the silent provider was dropped after %lld ms", ci_now_ms() - t0);
    expect_text(r, "ConsSummary.out", "Ping timed out.", true);
}

/* The connection and measurement options: interface, Nagle, high-water mark, buffers, user
 * name, nanosecond stamps, decode time, the steady-state delay, the expected update rate. */
static void options(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "2000", "-nanoTime", NULL});
    int st = run_consumer(r,
                          (const char *[]){"-itemCount",
                                           "20",
                                           "-steadyStateTime",
                                           "3",
                                           "-if",
                                           "127.0.0.1",
                                           "-tcpDelay",
                                           "-highWaterMark",
                                           "1000",
                                           "-sendBufSize",
                                           "65536",
                                           "-recvBufSize",
                                           "65536",
                                           "-outputBufs",
                                           "100",
                                           "-maxOutputBufs",
                                           "200",
                                           "-inputBufs",
                                           "4",
                                           "-uname",
                                           "perfuser",
                                           "-nanoTime",
                                           "-measureDecode",
                                           "-delaySteadyStateCalc",
                                           "1000",
                                           "-expectedUpdateRate",
                                           "4000",
                                           NULL},
                          20000);
    expect_status(r, st, 0);
    expect_text(r, "ConsSummary.out", "             Tcp_NoDelay: No\n", true);
    expect_text(r, "ConsSummary.out", "         High Water Mark: 1000 bytes\n", true);
    expect_text(r, "ConsSummary.out", "                Username: perfuser\n", true);
    expect_text(r, "ConsPerf.out", "  Update decode time (usec): Avg:", true);
    expect_text(r, "ConsPerf.out", "  numInputBuffers: 4\n", true);
    expect_text(r, "ConsSummary.out", "  Offered update rate: 4000\n", true);
    expect_text(r, "ConsSummary.out", "  Warning: achieved update rate is ", true);
    /* Stamps in ns on both sides: latencies are microseconds again. */
    double avg = summary_num(r, "Steady State Statistics:", "  Latency avg (usec): ");
    if (avg <= 0 || avg > 100000)
        ci_fail("nanosecond latency average %.1f us is not plausible", avg);
    /* The second after the last image counts only in the overall figures. */
    double all = json_num(r, (const char *[]){"results", "overall", "latency", "count", NULL});
    double steady =
        json_num(r, (const char *[]){"results", "overall", "steady_latency", "count", NULL});
    double startup =
        json_num(r, (const char *[]){"results", "overall", "startup_latency", "count", NULL});
    if (steady <= 0 || all - steady - (startup > 0 ? startup : 0) < 1000)
        ci_fail("latency samples: %.0f in all, %.0f steady, %.0f startup: the delay window is "
                "not left out",
                all, steady, startup);
}

/* Images never come: the steady-state time is also the image timeout. */
static void late(run *r)
{
    start_provider(r, (const char *[]){"-noRefresh", NULL});
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "10", "-steadyStateTime", "2", NULL}, 20000);
    expect_status(r, st, 1);
    expect_text(r, "ConsPerf.out", "Error: Failed to receive all images within 2 seconds.", true);
    expect_text(r, "ConsSummary.out", "  Steady state was not reached during this test.", true);
    expect_text(r, "ConsSummary.out",
                "ERROR: TEST FAILED due to error from Consumer Thread 1:", true);
    expect_text(r, "ConsSummary.out", "Failed to receive all images within 2 seconds (0 of 10",
                true);
    expect_text(r, "ConsSummary.json", "\"passed\": false", true);
}

/* The provider dies (SIGKILL) during the steady state: the test ends at once, with what it
 * measured written and the failure said. */
static void killed(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "1000", NULL});
    pid_t c =
        start_consumer(r, (const char *[]){"-itemCount", "10", "-steadyStateTime", "30", NULL});
    wait_for_text(r, "ConsPerf.out", "Image retrieval time", 20000);
    poll(NULL, 0, 1000);
    kill(r->prov_pid, SIGKILL);
    ci_wait(r->prov_pid, 5000);
    r->prov_pid = 0;
    long long t0 = ci_now_ms();
    int st = ci_wait(c, 15000);
    expect_status(r, st, 1);
    if (ci_now_ms() - t0 > 5000)
        ci_fail("ConsPerf took %lld ms to notice", ci_now_ms() - t0);
    expect_text(r, "ConsSummary.out",
                "ERROR: TEST FAILED due to error from Consumer Thread 1:", true);
    expect_text(r, "ConsSummary.out", "connection to 127.0.0.1:", true);
    if (summary_num(r, "Test Statistics:", "  Updates received: ") < 100)
        ci_fail("the updates received before the provider died are not in the summary");
    expect_text(r, "ConsSummary.json", "\"passed\": false", true);
}

/* A CLOSED status on an item is fatal. */
static void closed(run *r)
{
    start_provider(r, (const char *[]){"-closeAfter", "3", NULL});
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "5", NULL}, 20000);
    expect_status(r, st, 1);
    expect_text(r, "ConsSummary.out", "Received unexpected final state CLOSED", true);
    expect_text(r, "ConsSummary.out", "  item RDT4: Received unexpected final state CLOSED", true);
}

/* Generic messages from the provider, with latency and scheduled latency. */
static void generic(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "200", "-genericRate", "100", NULL});
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "2", NULL}, 20000);
    expect_status(r, st, 0);
    double secs = summary_num(r, "Overall Statistics:", "  Sampling duration (sec): ");
    expect_near("generic messages received",
                summary_num(r, "Test Statistics:", "  GenMsgs received: "), 100 * secs, 0.2);
    expect_text(r, "ConsSummary.out", "  GenMsg latency avg (usec): ", true);
    expect_text(r, "ConsSummary.out", "  Sched GenMsg latency avg (usec): ", true);
    expect_text(r, "ConsPerf.out", "  GenMsgs: sent 0, received ", true);
}

/* Posts (reflected by the provider, with round-trip latency and its scheduled view) and
 * generic messages to the provider, at their rates. */
static void post(run *r)
{
    ci_copy(ts_source_path("data/MsgData.xml"), ci_path(r->dir, "MsgData.xml"));
    start_provider(r, (const char *[]){"-updateRate", "500", "-runTime", "6", NULL});
    int st = run_consumer(r,
                          (const char *[]){"-itemCount", "10", "-steadyStateTime", "3", "-tickRate",
                                           "50", "-postingRate", "100", "-postingLatencyRate", "20",
                                           "-genericMsgRate", "50", "-genericMsgLatencyRate", "10",
                                           "-latencyFile", "lat", NULL},
                          20000);
    expect_status(r, st, 0);
    int pst = ci_wait(r->prov_pid, 15000);
    r->prov_pid = 0;
    if (pst != 0)
        ci_fail("the provider exited with %d", pst);
    double secs = summary_num(r, "Steady State Statistics:", "  Sampling duration (sec): ");
    double posts = summary_num(r, "Test Statistics:", "  Posts sent: ");
    double gens = summary_num(r, "Test Statistics:", "  GenMsgs sent: ");
    /* The steady-state duration runs until the summary is computed, after the threads have
     * stopped posting; a ThreadSanitizer build or a loaded machine takes a while over that
     * (1.4 s seen of 4.4): 20% of slack. */
    expect_near("posts sent", posts, 100 * secs, 0.2);
    expect_near("generic messages sent", gens, 50 * secs, 0.25);
    char *p = ci_text(r->dir, "prov.out");
    double reflected = ci_num(p, "posts reflected "), received = ci_num(p, "generic received ");
    free(p);
    if (reflected != posts || received != gens)
        ci_fail("the provider reflected %.0f posts and received %.0f generic messages of %.0f and "
                "%.0f",
                reflected, received, posts, gens);
    if (summary_num(r, "Steady State Statistics:", "  Posting latency avg (usec): ") <= 0)
        ci_fail("no posting latency");
    expect_text(r, "ConsSummary.out", "  Sched posting latency avg (usec): ", true);
    expect_near("generic latencies sent",
                summary_num(r, "Test Statistics:", "  GenMsg latencies sent: "), 10 * secs, 0.25);
    expect_text(r, "ConsPerf.out", "  PostLat(usec): Avg:", true);
    expect_text(r, "ConsPerf.out", "Approximate message sizes:", true);
    if (count_lines(r, "lat1.csv", "Pst, ") < 20)
        ci_fail("lat1.csv has too few post rows");
}

/* ConsPerf starts first and retries every second until the provider is up. */
static void retry(run *r)
{
    /* A free port: the provider binds an ephemeral one, reports it and leaves. */
    start_provider(r, NULL);
    stop_provider(r);
    char port[16];
    snprintf(port, sizeof(port), "%s", r->port);
    pid_t c = start_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "8", NULL});
    wait_for_text(r, "ConsPerf.out", "Connection failed", 20000);
    /* The provider comes back on the port the consumer keeps trying. */
    start_provider(r, (const char *[]){"-port", port, NULL});
    int st = ci_wait(c, 20000);
    expect_status(r, st, 0);
    if (count_lines(r, "ConsPerf.out", "Attempting to connect to server") < 2)
        ci_fail("ConsPerf did not retry");
}

/* SIGINT during the steady state: an orderly end with the summary of what was measured, the
 * run said to be interrupted, status 130 (128 + SIGINT, as a shell gives). */
static void sigint(run *r)
{
    start_provider(r, (const char *[]){"-updateRate", "500", NULL});
    pid_t c =
        start_consumer(r, (const char *[]){"-itemCount", "5", "-steadyStateTime", "60", NULL});
    wait_for_text(r, "ConsPerf.out", "Image retrieval time", 20000);
    poll(NULL, 0, 1000);
    kill(c, SIGINT);
    int st = ci_wait(c, 10000);
    expect_status(r, st, 128 + SIGINT);
    expect_text(r, "ConsSummary.out", "--- OVERALL SUMMARY ---", true);
    expect_text(r, "ConsSummary.out", "Test interrupted by SIGINT: ", true);
    expect_text(r, "ConsSummary.out", "ERROR", false);
    if (summary_num(r, "Test Statistics:", "  Updates received: ") < 100)
        ci_fail("too few updates");
}

/* Invalid command lines and input files end with status 2 before connecting. */
static void invalid(run *r)
{
    snprintf(r->port, sizeof(r->port), "1");
    const char *const cases[][4] = {
        {"-tickRate", "0", NULL},
        {"-noSuchOption", NULL},
        {"-itemCount", "10", "-itemFile", "missing.xml"},
        {"-postingRate", "1000", "-snapshot", NULL},
        {"-itemCount", "abc", NULL},
        {"-reactor", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *args[8] = {0};
        for (int k = 0; k < 4 && cases[i][k]; k++)
            args[k] = cases[i][k];
        int st = run_consumer(r, args, 10000);
        if (st != 2) {
            ci_show(r->dir, "ConsPerf.out");
            ci_fail("case %zu (%s): status %d, expected 2", i, cases[i][0], st);
        }
    }
}

/* ---- the original ProvPerf ---------------------------------------------------------------- */

/* A loopback port that is free now (bind port 0, read it back, release it). */
static void free_port(char *buf, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        ci_fail("cannot find a free port: %s", strerror(errno));
    snprintf(buf, cap, "%u", ntohs(a.sin_port));
    close(fd);
}

/* The ETA-compatible ProvPerf the orig_* and ours_* scenarios run: the original's (from
 * $RWFPERF_ORIG_BIN) or ours (the program's fourth argument). */
static bool use_ours;
static const char *our_provperf;

/* Starts that ProvPerf with the extra arguments on a free port (skips the test when it is not
 * available), and waits until it accepts connections. */
static void start_orig_provider(run *r, const char *const *extra)
{
    static char exe[1024];
    if (use_ours) {
        if (!our_provperf || access(our_provperf, X_OK) != 0) {
            printf("SKIP: our ProvPerf is not built\n");
            exit(TS_SKIP);
        }
        snprintf(exe, sizeof(exe), "%s", our_provperf);
    } else {
        const char *bin = getenv("RWFPERF_ORIG_BIN");
        if (!bin || !*bin) {
            printf("SKIP: RWFPERF_ORIG_BIN is not set\n");
            exit(TS_SKIP);
        }
        snprintf(exe, sizeof(exe), "%s/ProvPerf", bin);
        if (access(exe, X_OK) != 0) {
            printf("SKIP: %s is not there\n", exe);
            exit(TS_SKIP);
        }
    }
    ci_copy(ts_source_path("data/MsgData.xml"), ci_path(r->dir, "MsgData.xml"));
    free_port(r->port, sizeof(r->port));
    char *argv[40] = {exe,        "-p",           r->port,           "-runTime",
                      "60",       "-summaryFile", "ProvSummary.out", "-statsFile",
                      "ProvStats"};
    int n = 9;
    for (; extra && *extra && n < 38; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    r->prov_pid = ci_spawn(r->dir, "prov.out", exe, argv);
    /* Wait until it listens (seen from /proc/net/tcp: a probing connection would hang the
     * original ProvPerf -reactor, which also needs its provider thread's reactor made). */
    bool reactor = false;
    for (int i = 9; i < n; i++)
        reactor |= !strcmp(argv[i], "-reactor");
    long long end = ci_now_ms() + 10000;
    while (!ci_listening(r->port)) {
        if (ci_now_ms() > end) {
            ci_show(r->dir, "prov.out");
            ci_fail("the ProvPerf does not listen");
        }
        poll(NULL, 0, 20);
    }
    if (reactor && !use_ours && !ci_orig_reactor_ready(r->prov_pid, 1, 10000)) {
        ci_show(r->dir, "prov.out");
        ci_fail("the original ProvPerf -reactor did not make its reactor");
    }
}

/* Our ConsPerf against the original ProvPerf (or ours): every image, the update rate, latency
 * from its TIM_TRK_1, and the scheduled-time view only from ours (the original does not send
 * the stamp). */
static void orig_check(run *r, const char *const *prov, const char *const *cons, double rate)
{
    start_orig_provider(r, prov);
    const char *args[24] = {"-itemCount", "100", "-steadyStateTime", "3"};
    int n = 4;
    for (; cons && *cons && n < 22; cons++)
        args[n++] = *cons;
    args[n] = NULL;
    int st = run_consumer(r, args, 30000);
    expect_status(r, st, 0);
    if (summary_num(r, "Test Statistics:", "  Refreshes received: ") != 100)
        ci_fail("not every image came");
    expect_near("steady-state update rate",
                summary_num(r, "Steady State Statistics:", "  Avg update rate: "), rate, 0.1);
    if (summary_num(r, "Steady State Statistics:", "  Latency avg (usec): ") <= 0)
        ci_fail("no latency from the original's TIM_TRK_1");
    expect_text(r, "ConsSummary.out", "Sched latency", use_ours);
    expect_text(r, "ConsPerf.out", "  ApplicationName: ProvPerf", true);
}

static void orig_default(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "10000", NULL}, NULL, 10000);
}

static void orig_pack(run *r)
{
    orig_check(r,
               (const char *[]){"-updateRate", "20000", "-maxPackCount", "10", "-packBufSize",
                                "6000", NULL},
               NULL, 20000);
}

static void orig_zlib(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "5000", "-compressionType", "1", NULL},
               (const char *[]){"-compressionType", "1", NULL}, 5000);
    expect_text(r, "ConsPerf.out", "  compressionType: zlib", true);
}

static void orig_lz4(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "5000", "-compressionType", "2", NULL},
               (const char *[]){"-compressionType", "2", NULL}, 5000);
    expect_text(r, "ConsPerf.out", "  compressionType: lz4", true);
}

/* Posts and generic messages with the original: it reflects every post and measures our
 * generic messages' latency. */
static void orig_postgen(run *r)
{
    start_orig_provider(r, (const char *[]){"-tickRate", "100", "-updateRate", "1000",
                                            "-genericMsgRate", "100", "-genericMsgLatencyRate",
                                            "10", NULL});
    int st = run_consumer(r,
                          (const char *[]){"-itemCount", "10", "-steadyStateTime", "3", "-tickRate",
                                           "100", "-postingRate", "100", "-postingLatencyRate",
                                           "10", "-genericMsgRate", "100", "-genericMsgLatencyRate",
                                           "10", NULL},
                          30000);
    expect_status(r, st, 0);
    stop_provider(r);
    double posts = summary_num(r, "Test Statistics:", "  Posts sent: ");
    double gens = summary_num(r, "Test Statistics:", "  GenMsgs sent: ");
    char *p = ci_text(r->dir, "ProvSummary.out");
    double reflected = ci_num(p, "  Posts reflected: ");
    double received = ci_num(p, "  GenMsgs received: ");
    double lat = ci_num(p, "  GenMsg latency avg (usec): ");
    free(p);
    if (posts < 250 || reflected != posts || received != gens || lat <= 0)
        ci_fail("posts %.0f reflected %.0f, generic messages %.0f received %.0f, latency %.1f",
                posts, reflected, gens, received, lat);
    if (summary_num(r, "Steady State Statistics:", "  Posting latency avg (usec): ") <= 0)
        ci_fail("no posting latency");
    if (summary_num(r, "Overall Statistics:", "  GenMsg latency avg (usec): ") <= 0)
        ci_fail("no generic message latency");
}

/* Without the dictionary files, ConsPerf downloads both dictionaries from the provider. */
static void orig_dictionary(run *r)
{
    start_orig_provider(r, (const char *[]){"-updateRate", "1000", NULL});
    /* The provider has read its files: take them away from the consumer. */
    poll(NULL, 0, 500);
    unlink(ci_path(r->dir, "RDMFieldDictionary"));
    unlink(ci_path(r->dir, "enumtype.def"));
    /* Nor a data folder to read them from (the build tree has one). */
    setenv("RWFPERF_DATA_DIR", ci_path(r->dir, "no-data-folder"), 1);
    int st =
        run_consumer(r, (const char *[]){"-itemCount", "20", "-steadyStateTime", "2", NULL}, 30000);
    unsetenv("RWFPERF_DATA_DIR");
    expect_status(r, st, 0);
    expect_text(r, "ConsPerf.out", "Will request dictionaries from provider.", true);
    expect_text(r, "ConsPerf.out", "Field dictionary downloaded.", true);
    expect_text(r, "ConsPerf.out", "Enumerated Types downloaded.", true);
    expect_text(r, "ConsPerf.out", "Dictionary download complete.", true);
    if (summary_num(r, "Test Statistics:", "  Refreshes received: ") != 20)
        ci_fail("not every image came after the dictionary download");
    if (summary_num(r, "Test Statistics:", "  Updates received: ") < 1000)
        ci_fail("too few updates");
}

/* Reactor modes: ConsPerf -reactor and -watchlist (their worker bound by -workerThreads)
 * against ProvPerf -reactor, and the watchlist against the bare ProvPerf. */
static void orig_reactor(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "10000", "-reactor", NULL},
               (const char *[]){"-reactor", "-workerThreads", "-1", NULL}, 10000);
    expect_text(r, "ConsPerf.out", "Reactor/Watchlist Usage: Reactor\n", true);
    expect_text(r, "ConsPerf.out", "Thread List: (non) {-1}\n", true);
}

static void orig_watchlist(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "10000", "-reactor", NULL},
               (const char *[]){"-watchlist", NULL}, 10000);
    expect_text(r, "ConsPerf.out", "Reactor/Watchlist Usage: Reactor and Watchlist\n", true);
}

static void orig_watchlist_bare(run *r)
{
    orig_check(r, (const char *[]){"-updateRate", "10000", NULL},
               (const char *[]){"-watchlist", NULL}, 10000);
}

/* Posts (on the item streams, through the watchlist) and generic messages in the reactor
 * modes: every post reflected, the generic messages counted. */
static void orig_watchlist_postgen(run *r)
{
    start_orig_provider(r, (const char *[]){"-tickRate", "100", "-updateRate", "1000",
                                            "-genericMsgRate", "100", "-genericMsgLatencyRate",
                                            "10", "-reactor", NULL});
    int st = run_consumer(r,
                          (const char *[]){"-itemCount", "10", "-steadyStateTime", "3", "-tickRate",
                                           "100", "-postingRate", "100", "-postingLatencyRate",
                                           "10", "-genericMsgRate", "100", "-genericMsgLatencyRate",
                                           "10", "-watchlist", NULL},
                          30000);
    expect_status(r, st, 0);
    stop_provider(r);
    double posts = summary_num(r, "Test Statistics:", "  Posts sent: ");
    double gens = summary_num(r, "Test Statistics:", "  GenMsgs sent: ");
    char *p = ci_text(r->dir, "ProvSummary.out");
    double reflected = ci_num(p, "  Posts reflected: ");
    double received = ci_num(p, "  GenMsgs received: ");
    free(p);
    if (posts < 250 || reflected != posts || received != gens)
        ci_fail("posts %.0f reflected %.0f, generic messages %.0f received %.0f", posts, reflected,
                gens, received);
    if (summary_num(r, "Steady State Statistics:", "  Posting latency avg (usec): ") <= 0)
        ci_fail("no posting latency");
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s <scenario> <ConsPerf> <test provider> [ProvPerf]\n", argv[0]);
        return 2;
    }
    our_provperf = argc == 5 ? argv[4] : NULL;
    const char *scenario = argv[1];
    if (!strncmp(scenario, "ours_", 5)) {
        /* The orig_* scenarios against our ProvPerf. */
        static char name[64];
        snprintf(name, sizeof(name), "orig_%s", scenario + 5);
        use_ours = true;
        argv[1] = name;
    }
    static const struct {
        const char *name;
        void (*fn)(run *);
    } scenarios[] = {
        {"basic", basic},
        {"snapshot", snapshot},
        {"threads", threads},
        {"late", late},
        {"killed", killed},
        {"closed", closed},
        {"generic", generic},
        {"retry", retry},
        {"sigint", sigint},
        {"invalid", invalid},
        {"orig_default", orig_default},
        {"orig_pack", orig_pack},
        {"orig_zlib", orig_zlib},
        {"orig_lz4", orig_lz4},
        {"orig_dictionary", orig_dictionary},
        {"post", post},
        {"pings", pings},
        {"silent", silent},
        {"options", options},
        {"orig_postgen", orig_postgen},
        {"orig_reactor", orig_reactor},
        {"orig_watchlist", orig_watchlist},
        {"orig_watchlist_bare", orig_watchlist_bare},
        {"orig_watchlist_postgen", orig_watchlist_postgen},
    };
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        if (strcmp(argv[1], scenarios[i].name))
            continue;
        char name[64];
        snprintf(name, sizeof(name), "itest-%s", scenario);
        run r = {.dir = ci_workdir(name, 100), .cons = argv[2], .prov = argv[3]};
        scenarios[i].fn(&r);
        stop_provider(&r);
        printf("%s: passed\n", scenario);
        return 0;
    }
    fprintf(stderr, "unknown scenario %s\n", argv[1]);
    return 2;
}
