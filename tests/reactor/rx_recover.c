/*
 * Recovery with the real provider: a watchlist consumer (the layer, in this program) requests
 * every item of a ProvPerf, the ProvPerf is killed mid-run and started again on the same port,
 * and the consumer must get every item back (Open/Suspect status for each when the connection
 * goes, then a new refresh for each after the reconnect) with updates flowing again.
 *
 *     rx_recover <ProvPerf> <items> [ProvPerf options...]
 *
 * <ProvPerf> "orig" runs the original ProvPerf from $RWFPERF_ORIG_BIN (skipped when unset).
 * Prints what it saw (times, counts). Exit 0 when every item came back, 1 otherwise, 77 when the
 * original is asked for and RWFPERF_ORIG_BIN is not set.
 */
#include "../tools/cons_itest.h"

#include "err.h"
#include "rwf.h"
#include "rx.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

typedef struct item {
    int refreshes, statuses, updates;
    bool have; /* its latest refresh came after its latest status */
} item;

typedef struct client {
    item *items;
    int n;
    int ok;      /* items whose image is in */
    int suspect; /* items that had a status since */
    int ups, downs;
    bool service_up;
    uint64_t updates;
    char down_text[256];
} client;

static int on_channel(rx_chan *ch, rx_event ev, const char *text)
{
    client *c = rx_user(ch);
    if (getenv("RX_RECOVER_DEBUG"))
        printf("%lld channel event %d %s\n", ci_now_ms(), (int)ev, text ? text : "");
    if (ev == RX_CHANNEL_UP)
        c->ups++;
    if (ev == RX_CHANNEL_WARNING)
        printf("warning: %s\n", text);
    if (ev == RX_CHANNEL_DOWN_RECONNECTING || ev == RX_CHANNEL_DOWN) {
        if (c->ups == 0)
            printf("connection failed: %s\n", text);
        c->downs++;
        c->service_up = false;
        snprintf(c->down_text, sizeof(c->down_text), "%s", text ? text : "");
    }
    return 0;
}

static int on_directory(rx_chan *ch, const rwf_msg *m, const rwf_service *svc, unsigned n)
{
    client *c = rx_user(ch);
    if (getenv("RX_RECOVER_DEBUG"))
        printf("directory %s: %u services\n", rwf_msg_class_name(m->msg_class), n);
    for (unsigned i = 0; i < n; i++)
        if (svc[i].id == 1 && (svc[i].flags & RWF_SVC_HAS_STATE))
            c->service_up = svc[i].service_state == 1;
    return 0;
}

static int on_msg(rx_chan *ch, const rwf_msg *m)
{
    client *c = rx_user(ch);
    if (m->domain == RWF_DMT_LOGIN || m->domain == RWF_DMT_DICTIONARY)
        return 0;
    int i = m->stream_id - 5;
    if (i < 0 || i >= c->n)
        ci_fail("message for stream %d, not one of ours", (int)m->stream_id);
    item *it = &c->items[i];
    switch (m->msg_class) {
    case RWF_MC_REFRESH:
        it->refreshes++;
        if ((m->flags & RWF_RFMF_REFRESH_COMPLETE) && !it->have) {
            it->have = true;
            c->ok++;
        }
        break;
    case RWF_MC_STATUS:
        it->statuses++;
        if (m->state.stream_state != RWF_STREAM_OPEN)
            ci_fail("item %d closed: %.*s", i, (int)m->state.text.len, m->state.text.data);
        if (it->have) {
            it->have = false;
            c->ok--;
            c->suspect++;
        }
        break;
    case RWF_MC_UPDATE:
        it->updates++;
        c->updates++;
        break;
    default:
        break;
    }
    return 0;
}

static void pump(rx_reactor *r, int ms)
{
    long long end = ci_now_ms() + ms;
    do {
        rx_wait(r, 2000000);
        if (rx_dispatch(r, 100000) < 0)
            ci_fail("dispatch: %s", err_msg());
    } while (ci_now_ms() < end);
}

/* Pumps until cond holds (returns the ms it took) or ms pass (fails with what). */
static long long pump_until(rx_reactor *r, bool (*cond)(const client *), const client *c, int ms,
                            const char *what)
{
    long long t0 = ci_now_ms();
    while (!cond(c)) {
        if (ci_now_ms() - t0 > ms)
            ci_fail("%s within %d ms", what, ms);
        pump(r, 5);
    }
    return ci_now_ms() - t0;
}

static bool all_in(const client *c)
{
    return c->ok == c->n;
}

static bool all_suspect(const client *c)
{
    return c->ok == 0 && c->downs > 0;
}

static bool second_down(const client *c)
{
    return c->downs >= 2;
}

static bool service(const client *c)
{
    return c->service_up;
}

/* The provider running now: killed when the program ends early (a failure). */
static pid_t running;

static void kill_running(void)
{
    if (running > 0) {
        kill(running, SIGKILL);
        waitpid(running, NULL, 0);
        running = 0;
    }
}

/* A port no one listens on now (the kernel's choice for a socket bound to port 0). */
static void free_port(char *out, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        ci_fail("no free port: %s", strerror(errno));
    snprintf(out, cap, "%u", ntohs(a.sin_port));
    close(fd);
}

/* Starts ProvPerf on port (NULL: a free one; the original refuses -p 0) and returns the port it
 * bound. */
static pid_t start_prov(const char *dir, const char *exe, const char *port, char **extra, int nx,
                        char *bound, size_t cap)
{
    char chosen[16];
    if (!port) {
        free_port(chosen, sizeof(chosen));
        port = chosen;
    }
    char *argv[64] = {(char *)exe, "-p", (char *)port, "-runTime", "120", NULL};
    int k = 5;
    for (int i = 0; i < nx && k < 62; i++)
        argv[k++] = extra[i];
    argv[k] = NULL;
    pid_t pid = ci_spawn(dir, "prov.out", exe, argv);
    running = pid;
    long long end = ci_now_ms() + 10000;
    while (ci_now_ms() < end) {
        if (ci_listening(port)) {
            bool reactor = false;
            for (int i = 0; i < nx; i++)
                reactor |= !strcmp(extra[i], "-reactor");
            if (reactor && !ci_orig_reactor_ready(pid, 1, 10000)) {
                ci_show(dir, "prov.out");
                ci_fail("ProvPerf -reactor did not make its reactor");
            }
            snprintf(bound, cap, "%s", port);
            return pid;
        }
        poll(NULL, 0, 20);
    }
    ci_show(dir, "prov.out");
    ci_fail("ProvPerf did not start");
}

/* The watchlist consumer of this program, connected to port. */
static rx_chan *open_client(rx_reactor *r, client *c, const char *port)
{
    static rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION;
    l.user = RWF_STR("rx_recover");
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("eta");
    l.position = RWF_STR("127.0.0.1/net");
    rx_role role;
    rx_role_init(&role, RX_ROLE_CONSUMER);
    role.cb.on_channel = on_channel;
    role.cb.on_directory = on_directory;
    role.cb.on_msg = on_msg;
    role.login = &l;
    role.watchlist = true;
    rx_conn_opts co;
    rx_conn_opts_init(&co);
    co.tp.host = "127.0.0.1";
    co.tp.port = port;
    rx_chan *ch;
    if (rx_connect(r, &co, &role, c, &ch) != 0)
        ci_fail("rx_connect: %s", err_msg());
    return ch;
}

/* Requests RDT1..RDTn on the tool's streams 5.. (streaming, no QoS: the watchlist adds the
 * service's). */
static void request_all(rx_reactor *r, rx_chan *ch, int n)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        rwf_msg q;
        rwf_msg_init(&q, RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, 5 + i, RWF_DT_NO_DATA);
        q.flags = RWF_RQMF_STREAMING;
        q.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        q.key.service_id = 1;
        q.key.name = rwf_buf_cstr(name);
        while (rx_submit_msg(ch, &q) == TP_ENOBUFS)
            pump(r, 1);
    }
    rx_flush(ch);
}

/* The provider from the command line: its path, or "orig" for $RWFPERF_ORIG_BIN's (the
 * program exits 77 when that is not set). */
static const char *provider_path(const char *arg)
{
    static char orig[1024];
    if (strcmp(arg, "orig"))
        return arg;
    const char *bin = getenv("RWFPERF_ORIG_BIN");
    if (!bin || !*bin) {
        printf("SKIP: RWFPERF_ORIG_BIN is not set (the original tools' folder)\n");
        exit(TS_SKIP);
    }
    snprintf(orig, sizeof(orig), "%s/ProvPerf", bin);
    return orig;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        ci_fail("usage: rx_recover <ProvPerf> <items> [ProvPerf options...]");
    const char *exe = provider_path(argv[1]);
    int n = atoi(argv[2]);
    atexit(kill_running);
    /* a folder per variant: ctest runs them at the same time */
    bool reactor = false;
    for (int i = 3; i < argc; i++)
        reactor |= strcmp(argv[i], "-reactor") == 0;
    char name[64];
    snprintf(name, sizeof(name), "rx_recover%s%s", strcmp(argv[1], "orig") == 0 ? "_orig" : "",
             reactor ? "_reactor" : "");
    const char *dir = ci_workdir(name, 1);
    ci_copy(ts_source_path("data/MsgData.xml"), ci_path(dir, "MsgData.xml"));
    char port[16];
    pid_t prov = start_prov(dir, exe, NULL, argv + 3, argc - 3, port, sizeof(port));

    client c;
    memset(&c, 0, sizeof(c));
    c.n = n;
    c.items = calloc((size_t)n, sizeof(*c.items));
    rx_reactor *r;
    if (rx_create(NULL, &r) != 0)
        ci_fail("rx_create: %s", err_msg());
    rx_chan *ch = open_client(r, &c, port);
    pump_until(r, service, &c, 10000, "service up");
    long long t0 = ci_now_ms();
    request_all(r, ch, n);
    pump_until(r, all_in, &c, 30000, "every image");
    long long images = ci_now_ms() - t0;
    pump(r, 1000);
    uint64_t before = c.updates;
    printf("first connection: %d images in %lld ms, %llu updates in the next second\n", n, images,
           (unsigned long long)before);
    if (before == 0)
        ci_fail("no updates before the provider was killed");

    kill(prov, SIGKILL);
    ci_wait(prov, 5000);
    running = 0;
    long long killed = ci_now_ms();
    long long lost = pump_until(r, all_suspect, &c, 10000, "every item suspect");
    printf("provider killed: channel down after %lld ms (%s), %d items Open/Suspect\n", lost,
           c.down_text, c.suspect);
    /* Started again just after the first reconnect attempt failed, so that the next attempt
     * (2 s later) finds the provider ready: the original ProvPerf -reactor hangs for good on a
     * connection that comes in its first moments (see start_prov). */
    pump_until(r, second_down, &c, 10000, "a failed reconnect attempt");
    char again[16];
    prov = start_prov(dir, exe, port, argv + 3, argc - 3, again, sizeof(again));
    pump_until(r, all_in, &c, 30000, "every image after the restart");
    uint64_t mid = c.updates;
    pump(r, 1000);
    printf("provider restarted: every one of %d items refreshed again %lld ms after the kill "
           "(%d connections), %llu updates in the next second\n",
           n, ci_now_ms() - 1000 - killed, c.ups, (unsigned long long)(c.updates - mid));
    int missing = 0;
    for (int i = 0; i < n; i++)
        if (c.items[i].refreshes < 2 || c.items[i].statuses < 1)
            missing++;
    rx_stats st;
    rx_get_stats(ch, &st);
    printf("watchlist: %u streams, %u requests, %u pending, %llu reconnects\n", st.wl_streams,
           st.wl_requests, st.wl_pending, (unsigned long long)st.reconnects);
    rx_destroy(r);
    kill(prov, SIGINT);
    ci_wait(prov, 5000);
    running = 0;
    if (missing)
        ci_fail("%d items did not get a status and a new refresh", missing);
    if (c.updates == mid)
        ci_fail("no updates after the restart");
    free(c.items);
    return 0;
}
