/*
 * The original TransportPerf server's byte streams, captured (tests/data/captures/transportperf_*),
 * played into our TransportPerf client: a test server does the RIPC handshake with the compression
 * of the capture, then writes the captured bytes that followed the ConnectAck as they are and
 * closes. The client must decode every message (plain, packed, zlib, lz4) with consecutive
 * sequence numbers, count as many as the original server sent, and end with status 0; with a
 * sequence number altered, it must report the gap and end with status 1.
 */
#include "testsupport.h"

#include "err.h"
#include "tp.h"

#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAPTURE_PORT 15000

typedef struct replay {
    char dir[64];
    pid_t pid;
    int status; /* exit status of the client */
    char *out;  /* its console output */
} replay;

static const char *comp_name(int c)
{
    return c == 1 ? "zlib" : c == 2 ? "lz4" : "none";
}

/* "Msgs Sent: N" of the original server's summary in the vector. */
static long vector_sent(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.server.stdout", name, name);
    uint8_t *text;
    size_t len;
    assert_int_equal(ts_read_file(ts_capture(rel), &text, &len), 0);
    const char *p = strstr((char *)text, "Msgs Sent: ");
    assert_non_null(p);
    long n = strtol(p + 11, NULL, 10);
    free(text);
    return n;
}

/* The captured server-to-client stream. */
static void capture(const char *name, ts_bytes *out)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", name, name);
    ts_tcp_streams st;
    assert_int_equal(ts_pcap_tcp_streams(ts_capture(rel), CAPTURE_PORT, &st), 0);
    ts_bytes_append(out, st.server_to_client.data, st.server_to_client.len);
    ts_tcp_streams_free(&st);
}

static void start_client(replay *r, uint16_t port, int comp)
{
    strcpy(r->dir, "/tmp/tperf_replay_XXXXXX");
    assert_non_null(mkdtemp(r->dir));
    char bin[1024], p[16];
    const char *bindir = getenv("RWFPERF_BIN");
    snprintf(bin, sizeof(bin), "%s/TransportPerf", bindir ? bindir : ts_binary_path("bin"));
    snprintf(p, sizeof(p), "%u", port);
    fflush(NULL);
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        if (chdir(r->dir) != 0 || !freopen("stdout", "w", stdout))
            _exit(127);
        dup2(fileno(stdout), 2);
        execl(bin, "TransportPerf", "-appType", "client", "-p", p, "-runTime", "30", "-msgRate",
              "0", "-latencyMsgRate", "0", "-compressionType", comp_name(comp),
              "-summaryFileStatic", "sum", "-statsFileStatic", "stats", (char *)NULL);
        _exit(127);
    }
}

static void wait_client(replay *r)
{
    for (int i = 0; i < 300; i++) {
        int st;
        pid_t got = waitpid(r->pid, &st, WNOHANG);
        if (got == r->pid) {
            r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            char path[128];
            size_t len;
            snprintf(path, sizeof(path), "%s/stdout", r->dir);
            assert_int_equal(ts_read_file(path, (uint8_t **)&r->out, &len), 0);
            return;
        }
        struct timespec nap = {0, 100 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
    fail_msg("the client did not end");
}

/* Binds a server, starts the client on its port, accepts it, completes the handshake, writes
 * the stream after the ConnectAck, closes, and waits for the client to end. */
static void run_replay(replay *r, const ts_bytes *stream)
{
    assert_true(stream->len > 20);
    size_t ack = (size_t)stream->data[0] << 8 | stream->data[1];
    int comp = stream->data[0x10] << 8 | stream->data[0x11];

    tp_opts o;
    tp_opts_init(&o);
    o.port = "0";
    o.host = "127.0.0.1";
    o.protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o.rwf_major = 0;
    o.rwf_minor = 0;
    o.compression = (tp_comp)comp;
    tp_server *srv;
    assert_int_equal(tp_bind(&o, &srv), 0);
    start_client(r, tp_server_port(srv), comp);

    tp_channel *ch = NULL;
    for (int i = 0; i < 100 && !ch; i++) {
        struct pollfd p = {.fd = tp_server_fd(srv), .events = POLLIN};
        poll(&p, 1, 100);
        assert_true(tp_accept(srv, &ch) >= 0);
    }
    assert_non_null(ch);
    if (tp_init_wait(ch, 10000) != TP_ACTIVE)
        fail_msg("handshake: %s", err_msg());

    int fd = tp_fd(ch);
    size_t off = ack;
    while (off < stream->len) {
        ssize_t n = write(fd, stream->data + off, stream->len - off);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        assert_true(n < 0 && (errno == EAGAIN || errno == EINTR));
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        poll(&p, 1, 1000);
    }
    tp_close(ch);
    tp_server_close(srv);
    wait_client(r);
}

static json_object *overall(replay *r)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/sum.json", r->dir);
    json_object *doc = json_object_from_file(path);
    assert_non_null(doc);
    json_object *res, *o;
    assert_true(json_object_object_get_ex(doc, "results", &res));
    assert_true(json_object_object_get_ex(res, "overall", &o));
    json_object_get(o);
    json_object_put(doc);
    return o;
}

static int64_t get_int(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("no %s in the JSON summary", key);
    return json_object_get_int64(v);
}

static void cleanup(replay *r)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
    if (system(cmd) != 0)
        print_message("could not remove %s\n", r->dir);
    free(r->out);
}

static void replay_vector(const char *name)
{
    long sent = vector_sent(name);
    ts_bytes stream = {0};
    capture(name, &stream);
    replay r;
    memset(&r, 0, sizeof(r));
    run_replay(&r, &stream);
    if (r.status != 0)
        fail_msg("%s: client exit status %d\n%s", name, r.status, r.out);
    json_object *o = overall(&r);
    assert_int_equal(get_int(o, "msgs_received"), sent);
    assert_int_equal(get_int(o, "sequence_gaps"), 0);
    assert_null(strstr(r.out, "Error"));
    json_object_put(o);
    cleanup(&r);
    ts_bytes_free(&stream);
}

static void test_socket(void **state)
{
    (void)state;
    replay_vector("transportperf_socket");
}

static void test_pack(void **state)
{
    (void)state;
    replay_vector("transportperf_socket_pack");
}

static void test_zlib(void **state)
{
    (void)state;
    replay_vector("transportperf_zlib");
}

static void test_zlib_512(void **state)
{
    (void)state;
    replay_vector("transportperf_zlib_msg512");
}

static void test_lz4(void **state)
{
    (void)state;
    replay_vector("transportperf_lz4");
}

static void test_lz4_512(void **state)
{
    (void)state;
    replay_vector("transportperf_lz4_msg512");
}

static void test_reflect(void **state)
{
    (void)state;
    replay_vector("transportperf_reflect");
}

/* The plain capture with message 99 renumbered 100: the client reports the gap, closes the
 * channel and fails. */
static void test_gap(void **state)
{
    (void)state;
    ts_bytes stream = {0};
    capture("transportperf_socket", &stream);
    size_t off = (size_t)stream.data[0] << 8 | stream.data[1];
    for (int k = 0; k < 99; k++) {
        assert_true(off + 3 <= stream.len);
        off += (size_t)stream.data[off] << 8 | stream.data[off + 1];
    }
    assert_int_equal(stream.data[off + 2], 0x02); /* a plain data frame */
    assert_int_equal(stream.data[off + 3], 99);   /* its sequence number, little-endian */
    stream.data[off + 3] = 100;
    replay r;
    memset(&r, 0, sizeof(r));
    run_replay(&r, &stream);
    assert_int_equal(r.status, 1);
    assert_non_null(
        strstr(r.out, "Error: Received out-of-order sequence number(100 instead of 99)."));
    json_object *o = overall(&r);
    assert_int_equal(get_int(o, "msgs_received"), 100);
    assert_int_equal(get_int(o, "sequence_gaps"), 1);
    json_object_put(o);
    cleanup(&r);
    ts_bytes_free(&stream);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_socket),  cmocka_unit_test(test_pack),
        cmocka_unit_test(test_zlib),    cmocka_unit_test(test_zlib_512),
        cmocka_unit_test(test_lz4),     cmocka_unit_test(test_lz4_512),
        cmocka_unit_test(test_reflect), cmocka_unit_test(test_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
