/*
 * bench_transport: messages per second through one loopback channel pair, and the CPU time
 * each side spends per message.
 *
 * A writer thread (pinned to one core) sends fixed-size messages as fast as the channel
 * takes them, each carrying a sequence number; a reader thread (pinned to the other core)
 * reads and checks every one. TCP is lossless, so the rate reached is the rate at which the
 * reader receives everything. CPU per message is each thread's user + system time
 * (getrusage RUSAGE_THREAD) divided by the messages it moved.
 *
 *   bench_transport [-t seconds] [-size bytes] [-pack n] [-hwm bytes] [-busy] [-reps n]
 *                   [-comp none|zlib|lz4] [-mode unpacked|packed|all] [-tls 1.2|1.3]
 *                   [-ws rwf|json] [-from client|server]
 *
 * Defaults: 3 s per run, 76-byte messages, packed runs with 50 messages per frame, the
 * transport's default high-water mark, readers that poll() when idle, best of 3 runs, a RIPC
 * channel written by its client.
 * -tls runs the channel encrypted (a throw-away self-signed RSA certificate made in a
 * temporary folder), TLS 1.2 (ECDHE-RSA-AES128-GCM-SHA256) or TLS 1.3 (TLS_AES_128_GCM_SHA256);
 * with -hwm 1 every message is flushed, so TLS writes one record per message.
 * -ws runs a WebSocket channel of that sub-protocol (inside TLS with -tls; json: each message
 * is "[" + the bytes + "]" on the wire, packed ones share an array; -comp zlib is then
 * permessage-deflate); -from server writes from the server's side (unmasked frames, as a
 * provider does) instead of the client's (masked).
 */
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "tp.h"

typedef struct cfg {
    double secs;
    uint32_t size;
    int pack; /* messages per packed frame; 1 = unpacked */
    uint32_t hwm;
    int busy;
    tp_comp comp;
    uint8_t tls;     /* 0 plain, else TP_TLS_V1_2 or TP_TLS_V1_3 */
    int ws;          /* 0 RIPC, TP_WS_PROTO_RWF, TP_WS_PROTO_JSON2 */
    int from_server; /* the server side writes */
} cfg;

static char cert_dir[64], cert_path[96], key_path[96];

/* A self-signed certificate for localhost and 127.0.0.1 in a temporary folder. 0 or -1. */
static int make_cert(void)
{
    snprintf(cert_dir, sizeof(cert_dir), "/tmp/bench_transport-XXXXXX");
    if (!mkdtemp(cert_dir))
        return -1;
    snprintf(cert_path, sizeof(cert_path), "%s/cert.pem", cert_dir);
    snprintf(key_path, sizeof(key_path), "%s/key.pem", cert_dir);
    EVP_PKEY *k = EVP_RSA_gen(2048);
    X509 *x = X509_new();
    if (!k || !x)
        return -1;
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -60);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, k);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)"localhost", -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    X509_EXTENSION *e =
        X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
    X509_sign(x, k, EVP_sha256());
    FILE *fc = fopen(cert_path, "w"), *fk = fopen(key_path, "w");
    int ok = fc && fk && PEM_write_X509(fc, x) == 1 &&
             PEM_write_PrivateKey(fk, k, NULL, NULL, 0, NULL, NULL) == 1;
    if (fc)
        fclose(fc);
    if (fk)
        fclose(fk);
    X509_free(x);
    EVP_PKEY_free(k);
    return ok ? 0 : -1;
}

static void remove_cert(void)
{
    if (!cert_dir[0])
        return;
    unlink(cert_path);
    unlink(key_path);
    rmdir(cert_dir);
}

typedef struct side {
    tp_channel *ch;
    const cfg *c;
    int cpu;
    uint64_t msgs;
    double cpu_s;
    double wall_s;
    char err[256];
} side;

static atomic_int stop_flag;
static atomic_int reader_ready;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *writer(void *arg)
{
    side *s = arg;
    const cfg *c = s->c;
    pin(s->cpu);
    while (!atomic_load(&reader_ready))
        ;
    double c0 = thread_cpu_s(), t0 = now_s(), end = t0 + c->secs;
    uint64_t seq = 0;
    uint32_t bufsize = c->pack > 1 ? (uint32_t)c->pack * (c->size + 2) : c->size;
    for (;;) {
        /* check the clock every few thousand messages */
        if ((seq & 4095) < (uint64_t)c->pack && now_s() >= end)
            break;
        tp_buf *b;
        int rc = tp_get_buffer(s->ch, bufsize, c->pack > 1, &b);
        if (rc == TP_ENOBUFS) {
            struct pollfd f = {.fd = tp_fd(s->ch), .events = POLLOUT};
            poll(&f, 1, 10);
            if (tp_flush(s->ch) < 0)
                goto fail;
            continue;
        }
        if (rc < 0)
            goto fail;
        for (int k = 0; k < c->pack; k++) {
            memcpy(b->data, &seq, 8);
            memset(b->data + 8, 0, c->size - 8);
            b->len = c->size;
            seq++;
            if (k + 1 < c->pack && tp_pack(s->ch, b) < 0)
                goto fail;
        }
        rc = tp_write(s->ch, b, 0);
        if (rc < 0)
            goto fail;
    }
    while (tp_flush(s->ch) > 0) {
        struct pollfd f = {.fd = tp_fd(s->ch), .events = POLLOUT};
        poll(&f, 1, 10);
    }
    s->wall_s = now_s() - t0;
    s->cpu_s = thread_cpu_s() - c0;
    s->msgs = seq;
    atomic_store(&stop_flag, 1);
    return NULL;
fail:
    snprintf(s->err, sizeof(s->err), "writer: %s", err_msg());
    atomic_store(&stop_flag, 1);
    s->msgs = seq;
    return NULL;
}

static void *reader(void *arg)
{
    side *s = arg;
    pin(s->cpu);
    atomic_store(&reader_ready, 1);
    double c0 = thread_cpu_s(), t0 = now_s();
    uint64_t expect = 0;
    int idle = 0;
    for (;;) {
        tp_msg m;
        int rc = tp_read(s->ch, &m);
        if (rc < 0) {
            snprintf(s->err, sizeof(s->err), "reader: %s", err_msg());
            break;
        }
        if (rc & TP_READ_MSG) {
            /* JSON: an array of one message, or of the packed ones, separated by "," */
            const uint8_t *p = m.data;
            uint32_t n = 1, step = s->c->size + 1;
            if (s->c->ws == TP_WS_PROTO_JSON2) {
                p++;
                n = (m.len - 1) / step;
            }
            for (uint32_t k = 0; k < n; k++, p += step) {
                uint64_t seq;
                memcpy(&seq, p, 8);
                if (seq != expect) {
                    snprintf(s->err, sizeof(s->err), "reader: sequence %llu, expected %llu",
                             (unsigned long long)seq, (unsigned long long)expect);
                    goto out;
                }
                expect++;
            }
            idle = 0;
        }
        if (rc & TP_READ_MORE)
            continue;
        if (rc == 0) {
            if (atomic_load(&stop_flag) && ++idle > 50)
                break;
            if (!s->c->busy) {
                struct pollfd f = {.fd = tp_fd(s->ch), .events = POLLIN};
                poll(&f, 1, 2);
            }
        }
    }
out:
    s->wall_s = now_s() - t0;
    s->cpu_s = thread_cpu_s() - c0;
    s->msgs = expect;
    return NULL;
}

static int run(const cfg *c, double *rate, double *wns, double *rns)
{
    tp_opts so, co;
    tp_opts_init(&so);
    tp_opts_init(&co);
    so.interface = "127.0.0.1";
    so.port = "0";
    so.guaranteed_output_buffers = co.guaranteed_output_buffers = 5000;
    so.compression = co.compression = c->comp;
    so.compression_level = 5;
    co.high_water_mark = so.high_water_mark = c->hwm;
    co.host = "127.0.0.1";
    if (c->tls) {
        so.conn_type = co.conn_type = TP_CONN_ENCRYPTED;
        so.tls_cert_file = cert_path;
        so.tls_key_file = key_path;
        co.tls_ca_store = cert_path;
        co.tls_protocols = c->tls;
    }
    if (c->ws) {
        so.ws_protocols = "rssl.rwf, rssl.json.v2";
        co.ws_protocols = c->ws == TP_WS_PROTO_JSON2 ? "rssl.json.v2" : "rssl.rwf";
        if (c->tls)
            co.encrypted_protocol = TP_CONN_WEBSOCKET;
        else
            co.conn_type = TP_CONN_WEBSOCKET;
        so.ws_no_utf8_check = co.ws_no_utf8_check = true; /* the messages are binary */
    }
    tp_server *srv;
    if (tp_bind(&so, &srv) < 0) {
        fprintf(stderr, "bind: %s\n", err_msg());
        return -1;
    }
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(srv));
    co.port = port;
    tp_channel *cl, *sv = NULL;
    if (tp_connect(&co, &cl) < 0) {
        fprintf(stderr, "connect: %s\n", err_msg());
        return -1;
    }
    double end = now_s() + 5;
    int rs = 0, rc = 0;
    while ((rs != TP_ACTIVE || rc != TP_ACTIVE) && now_s() < end) {
        if (!sv)
            tp_accept(srv, &sv);
        if (sv && rs != TP_ACTIVE && (rs = tp_init(sv)) < 0)
            break;
        if (rc != TP_ACTIVE && (rc = tp_init(cl)) < 0)
            break;
    }
    if (rs != TP_ACTIVE || rc != TP_ACTIVE) {
        fprintf(stderr, "handshake failed: %s\n", err_msg());
        return -1;
    }
    atomic_store(&stop_flag, 0);
    atomic_store(&reader_ready, 0);
    side w = {.ch = c->from_server ? sv : cl, .c = c, .cpu = 0};
    side r = {.ch = c->from_server ? cl : sv, .c = c, .cpu = 1};
    pthread_t tw, tr;
    pthread_create(&tr, NULL, reader, &r);
    pthread_create(&tw, NULL, writer, &w);
    pthread_join(tw, NULL);
    pthread_join(tr, NULL);
    tp_stats st;
    tp_get_stats(w.ch, &st);
    tp_close(cl);
    tp_close(sv);
    tp_server_close(srv);
    if (w.err[0] || r.err[0]) {
        fprintf(stderr, "%s%s\n", w.err, r.err);
        return -1;
    }
    if (r.msgs != w.msgs) {
        fprintf(stderr, "sent %llu, received %llu\n", (unsigned long long)w.msgs,
                (unsigned long long)r.msgs);
        return -1;
    }
    *rate = (double)w.msgs / w.wall_s;
    *wns = w.cpu_s * 1e9 / (double)w.msgs;
    *rns = r.cpu_s * 1e9 / (double)r.msgs;
    fprintf(stderr,
            "  run: %.2f M msgs/s, writer %.1f ns/msg (%.0f%% of a core), reader %.1f "
            "ns/msg (%.0f%%), %.0f msgs per send(), %.1f B avg frame\n",
            *rate / 1e6, *wns, 100 * w.cpu_s / w.wall_s, *rns, 100 * r.cpu_s / r.wall_s,
            (double)w.msgs / (double)(st.send_calls ? st.send_calls : 1),
            (double)st.bytes_written / (double)w.msgs);
    return 0;
}

static void bench(const char *name, const cfg *c, int reps)
{
    double best = 0, bw = 0, br = 0;
    for (int i = 0; i < reps; i++) {
        double rate, wns, rns;
        if (run(c, &rate, &wns, &rns) < 0) {
            printf("%s: FAILED\n", name);
            remove_cert();
            exit(1);
        }
        if (rate > best) {
            best = rate;
            bw = wns;
            br = rns;
        }
    }
    printf("%-34s %6.2f M msgs/s   CPU/msg: writer %6.1f ns, reader %6.1f ns   (best of %d)\n",
           name, best / 1e6, bw, br, reps);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    cfg c = {.secs = 3, .size = 76, .pack = 1, .hwm = 0, .busy = 0, .comp = TP_COMP_NONE};
    int packn = 50, reps = 3;
    const char *mode = "all";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-t") && v)
            c.secs = atof(v), i++;
        else if (!strcmp(a, "-size") && v)
            c.size = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-pack") && v)
            packn = atoi(v), i++;
        else if (!strcmp(a, "-hwm") && v)
            c.hwm = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "-reps") && v)
            reps = atoi(v), i++;
        else if (!strcmp(a, "-mode") && v)
            mode = v, i++;
        else if (!strcmp(a, "-comp") && v)
            c.comp = !strcmp(v, "zlib")  ? TP_COMP_ZLIB
                     : !strcmp(v, "lz4") ? TP_COMP_LZ4
                                         : TP_COMP_NONE,
            i++;
        else if (!strcmp(a, "-busy"))
            c.busy = 1;
        else if (!strcmp(a, "-tls") && v && (!strcmp(v, "1.2") || !strcmp(v, "1.3")))
            c.tls = !strcmp(v, "1.2") ? TP_TLS_V1_2 : TP_TLS_V1_3, i++;
        else if (!strcmp(a, "-ws") && v)
            c.ws = !strcmp(v, "json") ? TP_WS_PROTO_JSON2 : TP_WS_PROTO_RWF, i++;
        else if (!strcmp(a, "-from") && v)
            c.from_server = !strcmp(v, "server"), i++;
        else {
            fprintf(stderr,
                    "usage: %s [-t s] [-size n] [-pack n] [-hwm n] [-busy] [-reps n] "
                    "[-comp none|zlib|lz4] [-mode unpacked|packed|all] [-tls 1.2|1.3] "
                    "[-ws rwf|json] [-from client|server]\n",
                    argv[0]);
            return 2;
        }
    }
    if (c.size < 8) {
        fprintf(stderr, "-size must be at least 8\n");
        return 2;
    }
    if (c.tls && make_cert() < 0) {
        fprintf(stderr, "cannot make a certificate in /tmp\n");
        remove_cert();
        return 1;
    }
    char kind[32], name[128];
    snprintf(kind, sizeof(kind), "%s%s",
             c.tls == TP_TLS_V1_2 ? "tls1.2"
             : c.tls              ? "tls1.3"
             : c.ws               ? ""
                                  : "socket",
             c.ws == TP_WS_PROTO_JSON2 ? (c.tls ? "+ws-json" : "ws-json")
             : c.ws                    ? (c.tls ? "+ws-rwf" : "ws-rwf")
                                       : "");
    const char *from = c.from_server ? " from server" : "";
    if (strcmp(mode, "packed") != 0) {
        snprintf(name, sizeof(name), "%s %uB unpacked hwm %u%s%s", kind, c.size,
                 c.hwm ? c.hwm : 6000, c.comp ? " comp" : "", from);
        bench(name, &c, reps);
    }
    if (strcmp(mode, "unpacked") != 0) {
        c.pack = packn;
        snprintf(name, sizeof(name), "%s %uB packed %d hwm %u%s%s", kind, c.size, packn,
                 c.hwm ? c.hwm : 6000, c.comp ? " comp" : "", from);
        bench(name, &c, reps);
    }
    remove_cert();
    return 0;
}
