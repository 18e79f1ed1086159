/*
 * bench_prov_drain: a plain consumer that drains a provider as fast as it can, to measure
 * what the provider sends without a full consumer's decoding cost.
 *
 *   bench_prov_drain <port> <items> <seconds> [host]
 *
 * Logs in, requests the directory, requests RDT1..RDT<items> (MarketPrice, service 1,
 * streaming), waits for every refresh, then counts the updates received each second for
 * <seconds> seconds (reading only the message class of each message). Prints one line per
 * second and a final line:
 *
 *   drain: items 10000 refreshes 10000 (0.35 s) updates/s avg 3400012 min 3398000 max ...
 *          cpu 61.2% (this process)
 *
 * Exit status 0, or 1 when the provider is not there or does not send every image.
 *
 *   bench_prov_drain --free-port
 *
 * prints a loopback port that is free now (for providers that cannot bind port 0).
 *
 *   bench_prov_drain --adh <port> <seconds>
 *
 * plays a minimal ADH for a non-interactive provider: listens on 127.0.0.1:<port>, accepts
 * one connection, answers its login, then counts the refreshes and updates that arrive each
 * second for <seconds> seconds once the first update came (same output lines).
 */
#include "clk.h"
#include "err.h"
#include "rwf.h"
#include "rwf_rdm.h"
#include "tp.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int send_enc(tp_channel *ch, uint8_t *buf, size_t cap, int (*fn)(rwf_enc *, const void *),
                    const void *arg)
{
    rwf_enc e;
    rwf_enc_init(&e, buf, cap);
    size_t len;
    if (fn(&e, arg) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        return -1;
    tp_buf *b;
    while (tp_get_buffer(ch, (uint32_t)len, false, &b) == TP_ENOBUFS) {
        if (tp_flush(ch) < 0)
            return -1;
        struct pollfd p = {.fd = tp_fd(ch), .events = POLLOUT};
        poll(&p, 1, 10);
    }
    memcpy(b->data, buf, len);
    b->len = (uint32_t)len;
    int rc = tp_write(ch, b, 0);
    return rc < 0 ? -1 : 0;
}

static int enc_login(rwf_enc *e, const void *arg)
{
    (void)arg;
    rwf_login l;
    memset(&l, 0, sizeof(l));
    l.stream_id = 1;
    l.user = RWF_STR("drain");
    l.flags =
        RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_HAS_POSITION | RWF_LOGIN_HAS_ROLE;
    l.app_id = RWF_STR("256");
    l.app_name = RWF_STR("ConsPerf");
    l.position = RWF_STR("127.0.0.1/net");
    return rwf_rdm_login_request(e, &l);
}

static int enc_dir(rwf_enc *e, const void *arg)
{
    (void)arg;
    return rwf_rdm_directory_request(e, 2, 7, 0, 0);
}

static int enc_item(rwf_enc *e, const void *arg)
{
    int i = *(const int *)arg;
    char name[32];
    snprintf(name, sizeof(name), "RDT%d", i + 1);
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_REQUEST, RWF_DMT_MARKET_PRICE, 5 + i, RWF_DT_NO_DATA);
    m.flags = RWF_RQMF_STREAMING | RWF_RQMF_HAS_QOS;
    m.qos.timeliness = RWF_QOS_TIME_REALTIME;
    m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
    m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
    m.key.service_id = 1;
    m.key.name = rwf_buf_cstr(name);
    return rwf_enc_msg(e, &m);
}

static double cpu_secs(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof(a);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &l) != 0) {
        perror("free port");
        return 1;
    }
    printf("%u\n", ntohs(a.sin_port));
    close(s);
    return 0;
}

static int enc_login_refresh(rwf_enc *e, const void *arg)
{
    (void)arg;
    rwf_login r;
    memset(&r, 0, sizeof(r));
    r.stream_id = 1;
    r.user = RWF_STR("user");
    r.flags = RWF_LOGIN_HAS_APP_ID | RWF_LOGIN_HAS_APP_NAME | RWF_LOGIN_SOLICITED;
    r.state.stream_state = RWF_STREAM_OPEN;
    r.state.data_state = RWF_DATA_OK;
    r.app_id = RWF_STR("256");
    r.app_name = RWF_STR("DrainADH");
    return rwf_rdm_login_refresh(e, &r);
}

static int adh(const char *port, int secs)
{
    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = port;
    o.num_input_buffers = 100;
    tp_server *srv;
    if (tp_bind(&o, &srv) != 0) {
        fprintf(stderr, "adh: bind: %s\n", err_msg());
        return 1;
    }
    tp_channel *ch = NULL;
    while (!ch) {
        struct pollfd p = {.fd = tp_server_fd(srv), .events = POLLIN};
        poll(&p, 1, 1000);
        if (tp_accept(srv, &ch) < 0) {
            fprintf(stderr, "adh: accept: %s\n", err_msg());
            return 1;
        }
    }
    if (tp_init_wait(ch, 5000) != TP_ACTIVE) {
        fprintf(stderr, "adh: handshake: %s\n", err_msg());
        return 1;
    }
    uint8_t buf[1024];
    uint64_t refreshes = 0, updates = 0;
    static uint64_t per_sec[3600];
    int sec = 0;
    int64_t next = 0;
    double cpu0 = 0;
    bool logged_in = false;
    if (secs > 3600)
        secs = 3600;
    for (;;) {
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0) {
            fprintf(stderr, "adh: read: %s\n", err_msg());
            break;
        }
        if (rc & TP_READ_MSG) {
            int cls = m.len > 3 ? m.data[2] : 0;
            if (cls == RWF_MC_UPDATE) {
                updates++;
                if (!next) {
                    next = clk_ns() + CLK_NS_PER_SEC;
                    cpu0 = cpu_secs();
                    updates = 0;
                }
            } else if (cls == RWF_MC_REFRESH) {
                refreshes++;
            } else if (cls == RWF_MC_REQUEST && m.data[3] == RWF_DMT_LOGIN && !logged_in) {
                logged_in = send_enc(ch, buf, sizeof(buf), enc_login_refresh, NULL) == 0;
                while (tp_flush(ch) > 0)
                    ;
            }
        }
        if (rc & TP_READ_MORE)
            continue;
        int64_t now = clk_ns();
        if (next && now >= next) {
            per_sec[sec] = updates;
            printf("adh: second %d: %" PRIu64 " updates\n", sec + 1, updates);
            fflush(stdout);
            updates = 0;
            next += CLK_NS_PER_SEC;
            if (++sec == secs)
                break;
        }
        struct pollfd p = {.fd = tp_fd(ch), .events = POLLIN};
        poll(&p, 1, 5);
    }
    double cpu = cpu_secs() - cpu0;
    uint64_t sum = 0;
    for (int i = 0; i < sec; i++)
        sum += per_sec[i];
    printf("adh: refreshes %" PRIu64 " updates/s avg %.0f cpu %.1f%% (this process)\n", refreshes,
           sec ? (double)sum / sec : 0.0, sec ? 100.0 * cpu / sec : 0.0);
    tp_close(ch);
    tp_server_close(srv);
    return sec ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--free-port") == 0)
        return free_port();
    if (argc == 4 && strcmp(argv[1], "--adh") == 0)
        return adh(argv[2], atoi(argv[3]));
    if (argc < 4) {
        fprintf(stderr, "usage: %s <port> <items> <seconds> [host]\n", argv[0]);
        return 2;
    }
    int items = atoi(argv[2]), secs = atoi(argv[3]);
    tp_opts o;
    tp_opts_init(&o);
    o.host = argc > 4 ? argv[4] : "127.0.0.1";
    o.port = argv[1];
    o.num_input_buffers = 100;
    tp_channel *ch;
    if (tp_connect(&o, &ch) != 0 || tp_init_wait(ch, 5000) != TP_ACTIVE) {
        fprintf(stderr, "drain: connect: %s\n", err_msg());
        return 1;
    }
    uint8_t buf[1024];
    int64_t t_req = clk_ns(), t_images = 0;
    send_enc(ch, buf, sizeof(buf), enc_login, NULL);
    send_enc(ch, buf, sizeof(buf), enc_dir, NULL);
    int requested = 0;
    uint64_t refreshes = 0, updates = 0;
    static uint64_t per_sec[3600];
    int sec = 0;
    bool counting = false;
    int64_t next = 0;
    double cpu0 = 0;
    if (secs > 3600)
        secs = 3600;
    for (;;) {
        /* Requests go out 1000 at a time between reads, as a consumer's request bursts do. */
        for (int k = 0; k < 1000 && requested < items; k++, requested++)
            if (send_enc(ch, buf, sizeof(buf), enc_item, &requested) != 0) {
                fprintf(stderr, "drain: request: %s\n", err_msg());
                return 1;
            }
        if (tp_queued(ch) && tp_flush(ch) < 0) {
            fprintf(stderr, "drain: flush: %s\n", err_msg());
            return 1;
        }
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0) {
            fprintf(stderr, "drain: read: %s\n", err_msg());
            break;
        }
        if (rc & TP_READ_MSG) {
            int cls = m.len > 3 ? m.data[2] : 0;
            if (cls == RWF_MC_UPDATE) {
                updates++;
            } else if (cls == RWF_MC_REFRESH && m.data[3] == RWF_DMT_MARKET_PRICE &&
                       ++refreshes == (uint64_t)items) {
                t_images = clk_ns();
                next = t_images + CLK_NS_PER_SEC; /* a second to settle, then count */
            }
        }
        if (rc & TP_READ_MORE)
            continue;
        int64_t now = clk_ns();
        if (!t_images && now - t_req > 60 * CLK_NS_PER_SEC) {
            fprintf(stderr, "drain: %" PRIu64 " of %d images in 60 s\n", refreshes, items);
            return 1;
        }
        if (t_images && now >= next) {
            if (counting) {
                per_sec[sec] = updates;
                printf("drain: second %d: %" PRIu64 " updates\n", sec + 1, updates);
                fflush(stdout);
                if (++sec == secs)
                    break;
            } else {
                counting = true;
                cpu0 = cpu_secs();
            }
            updates = 0;
            next += CLK_NS_PER_SEC;
        }
        struct pollfd p = {.fd = tp_fd(ch), .events = POLLIN};
        poll(&p, 1, 5);
    }
    double cpu = cpu_secs() - cpu0;
    uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < sec; i++) {
        sum += per_sec[i];
        lo = per_sec[i] < lo ? per_sec[i] : lo;
        hi = per_sec[i] > hi ? per_sec[i] : hi;
    }
    printf("drain: items %d refreshes %" PRIu64 " (%.2f s) updates/s avg %.0f min %" PRIu64
           " max %" PRIu64 " cpu %.1f%% (this process)\n",
           items, refreshes, t_images ? (double)(t_images - t_req) / 1e9 : 0.0,
           sec ? (double)sum / sec : 0.0, sec ? lo : 0, hi, sec ? 100.0 * cpu / sec : 0.0);
    tp_close(ch);
    return t_images ? 0 : 1;
}
