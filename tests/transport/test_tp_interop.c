/* Live interop with the original ETA tools (optional: runs only when RWFPERF_ORIG_BIN names
 * a folder holding them, skipped otherwise). Our transport against the original's, both
 * roles, over TCP (plain, zlib, lz4, packed, fragmented) and shared memory:
 *   - original TransportPerf server -> our client: every message, consecutive sequence;
 *   - our server -> original TransportPerf client: it receives, with no sequence error;
 *   - original ProvPerf -> our client: the captured ConsPerf login and directory requests
 *     get the captured login and directory refreshes back;
 *   - original ConsPerf -> our server: it sends the captured login request, takes our login
 *     and directory refreshes, and requests its items. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp_testutil.h"

static char bin[1024];
static char dir[256];

static void need_orig(void)
{
    const char *b = getenv("RWFPERF_ORIG_BIN");
    char p[1100];
    snprintf(p, sizeof(p), "%s/TransportPerf", b ? b : "");
    if (!b || !*b || access(p, X_OK) != 0) {
        printf("SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools\n");
        exit(TS_SKIP);
    }
    snprintf(bin, sizeof(bin), "%s", b);
}

static int setup(void **state)
{
    (void)state;
    need_orig();
    snprintf(dir, sizeof(dir), "/tmp/rwfperf_interop_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    const char *files[] = {"RDMFieldDictionary", "enumtype.def", "MsgData.xml"};
    for (int i = 0; i < 3; i++) {
        char rel[64], to[512];
        snprintf(rel, sizeof(rel), "data/%s", files[i]);
        snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
        if (symlink(ts_shared_path_or_skip(rel), to) != 0)
            return -1;
    }
    char items[512];
    snprintf(items, sizeof(items), "%s/items.xml", dir);
    FILE *f = fopen(items, "w");
    fprintf(f, "<itemList>\n<item domain=\"MarketPrice\" name=\"RDT1\" post=\"true\" "
               "generic=\"true\"/>\n");
    for (int i = 2; i <= 5; i++)
        fprintf(f, "<item domain=\"MarketPrice\" name=\"RDT%d\" post=\"true\"/>\n", i);
    fprintf(f, "</itemList>\n");
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

/* Starts bin/<tool> with args (a space-separated string) in dir, output to dir/<out>. */
static pid_t spawn(const char *tool, const char *args, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "exec %s/%s %s > %s 2>&1", bin, tool, args, out);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(127);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    return pid;
}

static pid_t reaped = -1; /* the last child exited() collected */

/* Waits for pid to exit by itself for up to ms; then ends it (SIGINT, then SIGKILL). */
static int finish(pid_t pid, int ms)
{
    int st = 0;
    if (pid == reaped)
        return 0;
    for (int i = 0; i < ms / 10; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGINT);
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return st;
}

static int exited(pid_t pid)
{
    int st;
    if (pid == reaped)
        return 1;
    if (waitpid(pid, &st, WNOHANG) != pid)
        return 0;
    reaped = pid;
    return 1;
}

static int free_port(void)
{
    tp_opts o;
    tu_opts(&o);
    tp_server *s;
    assert_int_equal(tp_bind(&o, &s), 0);
    int p = tp_server_port(s);
    tp_server_close(s);
    return p;
}

static void slurp(const char *name, char *buf, size_t cap)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Connects our client, retrying while the original server starts. */
static tp_channel *connect_retry(tp_opts *o)
{
    uint64_t end = tu_now_ms() + 8000;
    while (tu_now_ms() < end) {
        tp_channel *ch;
        if (tp_connect(o, &ch) == 0) {
            if (tp_init_wait(ch, 3000) == TP_ACTIVE)
                return ch;
            tp_close(ch);
        }
        usleep(100000);
    }
    fail_msg("could not connect to the original server: %s", err_msg());
    return NULL;
}

static const char *comp_arg(tp_comp c)
{
    return c == TP_COMP_ZLIB ? "zlib" : c == TP_COMP_LZ4 ? "lz4" : "none";
}

static void reads_transportperf(tp_channel *ch, uint32_t size, uint64_t want, int ms)
{
    uint64_t got = 0, first = 0;
    uint64_t end = tu_now_ms() + (uint64_t)ms;
    while (got < want && tu_now_ms() < end) {
        tp_msg m;
        int rc = tu_read(ch, &m, 100);
        if (rc < 0)
            fail_msg("after %llu messages: %s", (unsigned long long)got, err_msg());
        if (rc == 1) {
            uint64_t seq;
            assert_int_equal(m.len, size);
            memcpy(&seq, m.data, 8);
            if (got == 0)
                first = seq;
            if (seq != first + got)
                fail_msg("sequence %llu, expected %llu", (unsigned long long)seq,
                         (unsigned long long)(first + got));
            got++;
        }
    }
    if (got < want)
        fail_msg("only %llu of %llu messages arrived", (unsigned long long)got,
                 (unsigned long long)want);
}

/* Original TransportPerf server -> our client. */
static void test_their_server_our_client(void **state)
{
    (void)state;
    struct {
        tp_comp comp;
        const char *extra;
        uint32_t size;
    } cases[] = {{TP_COMP_NONE, "", 76},
                 {TP_COMP_ZLIB, "", 76},
                 {TP_COMP_LZ4, "-msgSize 512", 512},
                 {TP_COMP_NONE, "-pack 5", 76},
                 {TP_COMP_NONE, "-msgSize 20000", 20000},
                 {TP_COMP_ZLIB, "-msgSize 20000", 20000}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int port = free_port();
        char args[512], ps[16];
        snprintf(args, sizeof(args),
                 "-appType server -connType socket -p %d -runTime 3 -tickRate 100 -msgRate 2000 "
                 "-latencyMsgRate 10 -compressionType %s %s",
                 port, comp_arg(cases[i].comp), cases[i].extra);
        pid_t pid = spawn("TransportPerf", args, "server.stdout");
        snprintf(ps, sizeof(ps), "%d", port);
        tp_opts o;
        tu_opts(&o);
        o.port = ps;
        o.protocol_type = 88;
        o.rwf_major = o.rwf_minor = 0;
        o.compression = cases[i].comp;
        tp_channel *ch = connect_retry(&o);
        tp_info info;
        assert_int_equal(tp_get_info(ch, &info), 0);
        assert_int_equal(info.compression, cases[i].comp);
        assert_int_equal(info.ripc_version, 14);
        assert_string_equal(info.component, "eta3.6.5.G1.linux.rrg 64-bit Static");
        reads_transportperf(ch, cases[i].size, 500, 2500);
        tp_close(ch);
        finish(pid, 100);
    }
}

/* Our server -> original TransportPerf client. */
static void test_our_server_their_client(void **state)
{
    (void)state;
    struct {
        tp_comp comp;
        uint32_t size;
        int pack;
    } cases[] = {{TP_COMP_NONE, 76, 1}, {TP_COMP_ZLIB, 76, 1},    {TP_COMP_LZ4, 512, 1},
                 {TP_COMP_NONE, 76, 5}, {TP_COMP_NONE, 20000, 1}, {TP_COMP_LZ4, 20000, 1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tp_opts o;
        tu_opts(&o);
        o.protocol_type = 88;
        o.rwf_major = o.rwf_minor = 0;
        o.compression = cases[i].comp;
        o.compression_level = 5;
        o.guaranteed_output_buffers = 5000;
        tp_server *srv;
        assert_int_equal(tp_bind(&o, &srv), 0);
        char args[512];
        snprintf(args, sizeof(args),
                 "-appType client -connType socket -p %u -runTime 2 -msgRate 0 -latencyMsgRate 0 "
                 "-compressionType %s",
                 tp_server_port(srv), comp_arg(cases[i].comp));
        pid_t pid = spawn("TransportPerf", args, "client.stdout");
        tp_channel *ch = NULL;
        uint64_t end = tu_now_ms() + 5000;
        while (!ch && tu_now_ms() < end)
            if (tp_accept(srv, &ch) == 0)
                usleep(10000);
        assert_non_null(ch);
        assert_int_equal(tp_init_wait(ch, 5000), TP_ACTIVE);
        uint64_t seq = 0, stop = tu_now_ms() + 2000;
        uint8_t *msg = calloc(1, cases[i].size);
        while (!exited(pid) && tp_get_state(ch) == TP_STATE_ACTIVE && tu_now_ms() < stop) {
            for (int k = 0; k < 20; k++) {
                tp_buf *b;
                int rc = tp_get_buffer(ch, cases[i].size * (uint32_t)cases[i].pack + 16,
                                       cases[i].pack > 1, &b);
                if (rc < 0)
                    break;
                for (int j = 0; j < cases[i].pack; j++) {
                    memcpy(msg, &seq, 8);
                    memcpy(b->data, msg, cases[i].size);
                    b->len = cases[i].size;
                    seq++;
                    if (j + 1 < cases[i].pack)
                        tp_pack(ch, b);
                }
                if (tp_write(ch, b, 0) < 0)
                    break;
            }
            tp_flush(ch);
            tp_msg m;
            while (tp_read(ch, &m) > 0)
                ;
            usleep(10000);
        }
        free(msg);
        tp_close(ch); /* the client ends when its channel does */
        finish(pid, 5000);
        char out[65536];
        slurp("client.stdout", out, sizeof(out));
        const char *r = strstr(out, "Msgs Received: ");
        if (!r || strstr(out, "out-of-order") || atol(r + 15) < 300)
            fail_msg("case %zu: original client output:\n%s", i, out);
        tp_server_close(srv);
    }
}

/* Original TransportPerf over shared memory, both ways. */
static void test_shmem_both_ways(void **state)
{
    (void)state;
    char key[32];
    snprintf(key, sizeof(key), "rwfi%d", (int)getpid());
    /* their writer, our reader */
    char args[512];
    snprintf(args, sizeof(args),
             "-appType server -connType shmem -p %s -runTime 3 -tickRate 100 -msgRate 2000 "
             "-latencyMsgRate 10 -outputBufs 9000 -maxFragmentSize 256",
             key);
    pid_t pid = spawn("TransportPerf", args, "server.stdout");
    tp_opts o;
    tp_opts_init(&o);
    o.conn_type = TP_CONN_SHMEM;
    o.port = key;
    o.protocol_type = 88;
    o.rwf_major = o.rwf_minor = 0;
    tp_channel *ch = connect_retry(&o);
    tp_info info;
    assert_int_equal(tp_get_info(ch, &info), 0);
    assert_int_equal(info.guaranteed_output_buffers, 9000);
    assert_string_equal(info.component, "eta3.6.5.G1.linux.rrg 64-bit Static");
    reads_transportperf(ch, 76, 500, 2500);
    tp_close(ch);
    finish(pid, 100);
    /* our writer, their reader */
    snprintf(key, sizeof(key), "rwfj%d", (int)getpid());
    o.port = key;
    o.guaranteed_output_buffers = 9000;
    o.max_fragment_size = 256;
    tp_server *srv;
    assert_int_equal(tp_bind(&o, &srv), 0);
    tp_channel *w;
    assert_int_equal(tp_accept(srv, &w), 1);
    assert_int_equal(tp_init(w), TP_ACTIVE);
    snprintf(args, sizeof(args),
             "-appType client -connType shmem -p %s -runTime 1 -msgRate 0 -latencyMsgRate 0", key);
    pid = spawn("TransportPerf", args, "client.stdout");
    /* the ETA shmem reader never reports "would block", so the original client only stops
     * when its channel closes: write for a while, then shut the server down */
    uint64_t seq = 0, stop = tu_now_ms() + 1500;
    while (tu_now_ms() < stop && !exited(pid)) {
        for (int k = 0; k < 20; k++) {
            tp_buf *b;
            if (tp_get_buffer(w, 76, false, &b) != 0)
                break;
            memset(b->data, 0, 76);
            memcpy(b->data, &seq, 8);
            b->len = 76;
            assert_int_equal(tp_write(w, b, 0), 0);
            seq++;
        }
        usleep(10000);
    }
    tp_close(w);
    tp_server_close(srv);
    finish(pid, 5000);
    char out[65536];
    slurp("client.stdout", out, sizeof(out));
    const char *r = strstr(out, "Msgs Received: ");
    if (!r || strstr(out, "out-of-order") || atol(r + 15) < 500)
        fail_msg("original shmem client output:\n%s", out);
}

/* Frames of the consprov_default capture: c2s login request, directory request, item
 * requests; s2c login refresh and directory refresh. */
typedef struct frames {
    ts_tcp_streams s;
    const uint8_t *c2s[8], *s2c[4];
    uint32_t c2s_len[8], s2c_len[4];
} frames;

static void load_frames(frames *f)
{
    const char *p = ts_shared_path_or_skip("vectors/consprov_default/consprov_default.pcap");
    assert_int_equal(ts_pcap_tcp_streams(p, 14002, &f->s), 0);
    const uint8_t *c = f->s.client_to_server.data;
    size_t off = (size_t)(c[0] << 8 | c[1]) + 12; /* ConnectReq, key */
    for (int i = 0; i < 7; i++) {
        uint32_t l = (uint32_t)(c[off] << 8 | c[off + 1]);
        f->c2s[i] = c + off + 3;
        f->c2s_len[i] = l - 3;
        off += l;
    }
    const uint8_t *s = f->s.server_to_client.data;
    off = (size_t)(s[0] << 8 | s[1]);
    for (int i = 0; i < 2; i++) {
        uint32_t l = (uint32_t)(s[off] << 8 | s[off + 1]);
        f->s2c[i] = s + off + 3;
        f->s2c_len[i] = l - 3;
        off += l;
    }
}

static void write_msg(tp_channel *ch, const uint8_t *p, uint32_t n)
{
    tp_buf *b;
    assert_int_equal(tp_get_buffer(ch, n, false, &b), 0);
    memcpy(b->data, p, n);
    b->len = n;
    assert_true(tp_write(ch, b, 0) >= 0);
    assert_true(tp_flush(ch) >= 0);
}

/* Original ProvPerf -> our client. */
static void test_their_provperf(void **state)
{
    (void)state;
    frames f;
    load_frames(&f);
    for (int comp = 1; comp <= 2; comp++) {
        int port = free_port();
        char args[256], ps[16];
        snprintf(args, sizeof(args),
                 "-p %d -runTime 6 -tickRate 10 -updateRate 10 "
                 "-compressionType %d",
                 port, comp);
        pid_t pid = spawn("ProvPerf", args, "prov.stdout");
        snprintf(ps, sizeof(ps), "%d", port);
        tp_opts o;
        tu_opts(&o);
        o.port = ps;
        o.compression = (tp_comp)comp;
        tp_channel *ch = connect_retry(&o);
        write_msg(ch, f.c2s[0], f.c2s_len[0]); /* login request */
        tp_msg m;
        assert_int_equal(tu_read(ch, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, f.s2c[0], f.s2c_len[0]);
        write_msg(ch, f.c2s[1], f.c2s_len[1]); /* directory request */
        assert_int_equal(tu_read(ch, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, f.s2c[1], f.s2c_len[1]);
        tp_close(ch);
        finish(pid, 100);
    }
    ts_tcp_streams_free(&f.s);
}

/* Original ConsPerf -> our server. */
static void test_their_consperf(void **state)
{
    (void)state;
    frames f;
    load_frames(&f);
    for (int comp = 0; comp <= 2; comp++) {
        tp_opts o;
        tu_opts(&o);
        o.compression = (tp_comp)comp;
        tp_server *srv;
        assert_int_equal(tp_bind(&o, &srv), 0);
        char args[256];
        snprintf(args, sizeof(args),
                 "-p %u -itemCount 5 -steadyStateTime 2 -itemFile items.xml "
                 "-compressionType %d",
                 tp_server_port(srv), comp);
        pid_t pid = spawn("ConsPerf", args, "cons.stdout");
        tp_channel *ch = NULL;
        uint64_t end = tu_now_ms() + 5000;
        while (!ch && tu_now_ms() < end)
            if (tp_accept(srv, &ch) == 0)
                usleep(10000);
        assert_non_null(ch);
        assert_int_equal(tp_init_wait(ch, 5000), TP_ACTIVE);
        tp_info info;
        assert_int_equal(tp_get_info(ch, &info), 0);
        assert_int_equal(info.compression, comp);
        tp_msg m;
        assert_int_equal(tu_read(ch, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, f.c2s[0], f.c2s_len[0]); /* its login request */
        write_msg(ch, f.s2c[0], f.s2c_len[0]);                        /* our login refresh */
        assert_int_equal(tu_read(ch, &m, 5000), 1);
        ts_assert_bytes_equal(m.data, m.len, f.c2s[1], f.c2s_len[1]); /* directory request */
        write_msg(ch, f.s2c[1], f.s2c_len[1]);                        /* directory refresh */
        for (int i = 2; i < 7; i++) {                                 /* item requests RDT1..RDT5 */
            assert_int_equal(tu_read(ch, &m, 5000), 1);
            ts_assert_bytes_equal(m.data, m.len, f.c2s[i], f.c2s_len[i]);
        }
        finish(pid, 100);
        tp_close(ch);
        tp_server_close(srv);
    }
    ts_tcp_streams_free(&f.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_their_server_our_client),
        cmocka_unit_test(test_our_server_their_client),
        cmocka_unit_test(test_shmem_both_ways),
        cmocka_unit_test(test_their_provperf),
        cmocka_unit_test(test_their_consperf),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
