/* Live interop with the original ETA tools (optional: runs only when RWFPERF_ORIG_BIN names
 * a folder holding them, skipped otherwise). Our transport against the original's, both
 * roles, over TCP (plain, zlib, lz4, packed, fragmented) and shared memory:
 *   - original TransportPerf server -> our client: every message, consecutive sequence;
 *   - our server -> original TransportPerf client: it receives, with no sequence error;
 *   - original ProvPerf -> our client: the captured ConsPerf login and directory requests
 *     get the captured login and directory refreshes back;
 *   - original ConsPerf -> our server: it sends the captured login request, takes our login
 *     and directory refreshes, and requests its items. */
#include "tp_origutil.h"

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
        assert_orig_component(info.component);
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
    assert_orig_component(info.component);
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
