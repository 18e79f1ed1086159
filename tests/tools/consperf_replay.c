/*
 * Replay of a captured ProvPerf session into our ConsPerf.
 *
 *     consperf_replay <vector> <compression 0|1|2> <ConsPerf executable>
 *
 * The vector (tests/data/captures/<vector>/<vector>.pcap) holds what the original ProvPerf sent to
 * the original ConsPerf. This program:
 *   1. counts the refreshes and updates that stream carries, by feeding the whole captured
 *      stream (handshake included) to a transport client through a socketpair;
 *   2. listens on an ephemeral loopback port (our transport, offering the capture's
 *      compression) and starts ConsPerf against it in a fresh working folder;
 *   3. performs the RIPC handshake, checks that the ack announces the capture's compression,
 *      then sends the captured frames that follow the original ConnectAck, paced by the
 *      consumer's requests: the login refresh after the login request, the directory refresh
 *      after the directory request, the rest once every item was requested;
 *   4. keeps the connection open until ConsPerf ends its steady state, then checks its exit
 *      status (0) and that its summary counts exactly the captured refreshes and updates.
 */
#include "cons_itest.h"

#include "err.h"
#include "rwf.h"
#include "tp.h"

#include <sys/socket.h>

typedef struct counts {
    unsigned refreshes, updates, others;
} counts;

static void count_msg(counts *c, const tp_msg *m)
{
    rwf_msg r;
    if (rwf_msg_decode(&r, rwf_buf_make(m->data, m->len)) != RWF_OK)
        ci_fail("captured message does not decode: %s", err_msg());
    if (r.stream_id < 5)
        return;
    if (r.msg_class == RWF_MC_REFRESH)
        c->refreshes++;
    else if (r.msg_class == RWF_MC_UPDATE)
        c->updates++;
    else
        c->others++;
}

/* Step 1: the whole captured stream through our client over a socketpair. */
static counts expected(const ts_bytes *s)
{
    counts c = {0};
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        ci_fail("socketpair: %s", strerror(errno));
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *ch;
    if (tp_adopt(sv[0], false, &o, &ch) != 0)
        ci_fail("tp_adopt: %s", err_msg());
    size_t sent = 0;
    uint8_t sink[4096];
    bool active = false;
    long long end = ci_now_ms() + 10000;
    for (;;) {
        if (ci_now_ms() > end)
            ci_fail("counting the capture timed out");
        if (sent < s->len) {
            ssize_t w = write(sv[1], s->data + sent, s->len - sent);
            if (w > 0)
                sent += (size_t)w;
            if (sent == s->len)
                shutdown(sv[1], SHUT_WR);
        }
        while (read(sv[1], sink, sizeof(sink)) > 0)
            ;
        if (!active) {
            int rc = tp_init(ch);
            if (rc < 0)
                ci_fail("handshake with the captured ack: %s", err_msg());
            active = rc == TP_ACTIVE;
            continue;
        }
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            break; /* end of the capture */
        if (rc & TP_READ_MSG)
            count_msg(&c, &m);
        if (!(rc & TP_READ_MORE)) {
            struct pollfd f = {.fd = sv[0], .events = POLLIN};
            poll(&f, 1, 1);
        }
    }
    tp_close(ch);
    close(sv[1]);
    return c;
}

/* Writes all of buf to fd (blocking with poll). */
static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd f = {.fd = fd, .events = POLLOUT};
            poll(&f, 1, 100);
            continue;
        }
        if (w <= 0)
            ci_fail("write to ConsPerf: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s <vector> <compression 0|1|2> <ConsPerf>\n", argv[0]);
        return 2;
    }
    const char *vec = argv[1];
    int comp = atoi(argv[2]);
    const char *exe = argv[3];

    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", vec, vec);
    ts_tcp_streams s;
    if (ts_pcap_tcp_streams(ts_capture(rel), 14002, &s) != 0)
        ci_fail("cannot read %s", rel);
    counts want = expected(&s.server_to_client);
    printf("%s: the capture carries %u refreshes and %u updates\n", vec, want.refreshes,
           want.updates);
    if (want.refreshes == 0 || want.updates == 0)
        ci_fail("nothing to replay");

    /* The captured frames after the ConnectAck, as (offset, length). */
    const ts_bytes *sc = &s.server_to_client;
    size_t off = (size_t)sc->data[0] << 8 | sc->data[1];
    size_t frames[4096][2], nframes = 0;
    while (off + 3 <= sc->len && nframes < 4096) {
        size_t fl = (size_t)sc->data[off] << 8 | sc->data[off + 1];
        if (fl < 3 || off + fl > sc->len)
            break; /* the capture ends inside a frame */
        frames[nframes][0] = off;
        frames[nframes][1] = fl;
        nframes++;
        off += fl;
    }

    const char *dir = ci_workdir(vec, (int)want.refreshes);
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = "0";
    o.compression = (tp_comp)comp;
    tp_server *srv;
    if (tp_bind(&o, &srv) != 0)
        ci_fail("tp_bind: %s", err_msg());
    char port[16], items[16], compression[4];
    snprintf(port, sizeof(port), "%u", tp_server_port(srv));
    snprintf(items, sizeof(items), "%u", want.refreshes);
    snprintf(compression, sizeof(compression), "%d", comp);
    char *cargv[] = {(char *)exe, "-h",
                     "127.0.0.1", "-p",
                     port,        "-itemCount",
                     items,       "-itemFile",
                     "items.xml", "-steadyStateTime",
                     "2",         "-compressionType",
                     compression, "-writeStatsInterval",
                     "1",         NULL};
    pid_t pid = ci_spawn(dir, "ConsPerf.out", exe, cargv);

    /* Accept and handshake. */
    tp_channel *ch = NULL;
    long long end = ci_now_ms() + 20000;
    int rc = TP_PENDING;
    while (rc != TP_ACTIVE) {
        if (ci_now_ms() > end)
            ci_fail("no handshake with ConsPerf");
        if (!ch) {
            if (tp_accept(srv, &ch) < 0)
                ci_fail("accept: %s", err_msg());
            struct pollfd f = {.fd = tp_server_fd(srv), .events = POLLIN};
            if (!ch) {
                poll(&f, 1, 20);
                continue;
            }
        }
        rc = tp_init(ch);
        if (rc < 0)
            ci_fail("handshake: %s", err_msg());
        struct pollfd f = {.fd = tp_fd(ch), .events = tp_events(ch)};
        if (rc != TP_ACTIVE)
            poll(&f, 1, 20);
    }
    tp_info info;
    tp_get_info(ch, &info);
    if ((int)info.compression != comp)
        ci_fail("the ack announced compression %d, the capture used %d", (int)info.compression,
                comp);

    /* Paced replay: frame 0 (login refresh) after the login request, frame 1 (directory
     * refresh) after the directory request, the rest after every item request. */
    unsigned got = 0;
    size_t next = 0;
    bool peer_gone = false;
    end = ci_now_ms() + 30000;
    while (!peer_gone && ci_now_ms() < end) {
        tp_msg m;
        int r = tp_read(ch, &m);
        if (r < 0) {
            peer_gone = true; /* ConsPerf closed the connection at its end */
            break;
        }
        if (r & TP_READ_MSG)
            got++;
        size_t upto = got >= 2 + want.refreshes ? nframes : got >= 2 ? 2 : got >= 1 ? 1 : 0;
        for (; next < upto; next++)
            write_all(tp_fd(ch), sc->data + frames[next][0], frames[next][1]);
        if (!(r & TP_READ_MORE) && !(r & TP_READ_MSG)) {
            struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
            poll(&f, 1, 20);
        }
    }
    int status = ci_wait(pid, 20000);
    tp_close(ch);
    tp_server_close(srv);
    ts_tcp_streams_free(&s);

    if (status != 0) {
        ci_show(dir, "ConsPerf.out");
        ci_fail("ConsPerf exited with status %d", status);
    }
    char *sum = ci_text(dir, "ConsSummary.out");
    unsigned refreshes = (unsigned)ci_num(sum, "  Refreshes received: ");
    unsigned updates = (unsigned)ci_num(sum, "  Updates received: ");
    if (refreshes != want.refreshes || updates != want.updates) {
        ci_show(dir, "ConsPerf.out");
        ci_fail("ConsPerf counted %u refreshes and %u updates, the capture has %u and %u",
                refreshes, updates, want.refreshes, want.updates);
    }
    if (ci_num_in(sum, "Test Statistics:", "  Requests sent: ") != want.refreshes)
        ci_fail("requests sent differ from the item count");
    free(sum);
    printf("%s: ConsPerf decoded %u refreshes and %u updates, exit status 0\n", vec, refreshes,
           updates);
    return 0;
}
