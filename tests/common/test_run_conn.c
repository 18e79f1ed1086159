/* run_conn: the -connType words of each tool, the questions asked of a connection, and the one
 * mapping of run options to transport settings for each tool's kind of connection. */
#include "testsupport.h"

#include "err.h"
#include "run_drv.h"
#include "run_opts.h"

#include <string.h>
#include <strings.h>

/* The value of word in names, or -1 (not there, or refused). */
static int word(const opt_name *names, const char *w)
{
    for (; names->name; names++)
        if (strcmp(names->name, w) == 0)
            return names->refused ? -1 : names->value;
    return -1;
}

static void test_words(void **state)
{
    (void)state;
    assert_int_equal(word(run_conn_consperf, "socket"), TP_CONN_SOCKET);
    assert_int_equal(word(run_conn_consperf, "WebSocket"), TP_CONN_WEBSOCKET);
    assert_int_equal(word(run_conn_consperf, "encrypted"), TP_CONN_ENCRYPTED);
    assert_int_equal(word(run_conn_consperf, "http"), -1);
    assert_int_equal(word(run_conn_consperf, "shmem"), -1);
    assert_int_equal(word(run_conn_provperf, "encrypted"), TP_CONN_ENCRYPTED);
    assert_int_equal(word(run_conn_provperf, "websocket"), -1);
    assert_int_equal(word(run_conn_niprovperf, "reliableMCast"), -1);
    assert_int_equal(word(run_conn_niprovperf, "encrypted"), TP_CONN_ENCRYPTED);
    assert_int_equal(word(run_conn_transportperf, "shmem"), TP_CONN_SHMEM);
    assert_int_equal(word(run_conn_transportperf, "seqMCast"), TP_CONN_SEQ_MCAST);
    assert_int_equal(word(run_conn_transportperf, "websocket"), TP_CONN_WEBSOCKET);
    /* every word a tool accepts prints back as a -connType word */
    const opt_name *all[] = {run_conn_consperf, run_conn_provperf, run_conn_niprovperf,
                             run_conn_transportperf};
    for (size_t t = 0; t < sizeof(all) / sizeof(all[0]); t++)
        for (const opt_name *n = all[t]; n->name; n++)
            if (!n->refused)
                assert_int_equal(strcasecmp(run_conn_name((tp_conn_type)n->value), n->name), 0);
}

static void test_questions(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "s.out", "stats");
    assert_false(run_conn_websocket(&o));
    o.conn_type = TP_CONN_WEBSOCKET;
    assert_true(run_conn_websocket(&o));
    o.conn_type = TP_CONN_ENCRYPTED;
    assert_false(run_conn_websocket(&o));
    o.tls.encrypted_protocol = TP_CONN_WEBSOCKET;
    assert_true(run_conn_websocket(&o));

    assert_false(run_conn_offers(&o, TP_WS_PROTO_JSON2));
    strcpy(o.ws.pl, "rssl.rwf, tr_json2");
    assert_true(run_conn_offers(&o, TP_WS_PROTO_JSON2));
    assert_true(run_conn_offers(&o, TP_WS_PROTO_RWF));
    strcpy(o.ws.pl, "\trssl.json.v2");
    assert_true(run_conn_offers(&o, TP_WS_PROTO_JSON2));
    assert_false(run_conn_offers(&o, TP_WS_PROTO_RWF));
    strcpy(o.ws.pl, "json");
    assert_false(run_conn_offers(&o, TP_WS_PROTO_JSON2));

    assert_int_equal(run_conn_check(&o, RUN_CLIENT), -1); /* "json" is no sub-protocol */
    assert_non_null(strstr(err_msg(), "-pl"));
    strcpy(o.ws.pl, "rssl.rwf");
    o.conn_type = TP_CONN_SOCKET;
    assert_int_equal(run_conn_check(&o, RUN_CLIENT), 0);
    o.conn_type = TP_CONN_ENCRYPTED;
    strcpy(o.tls.keyfile, "/nonexistent/key.pem");
    strcpy(o.tls.cert, "/nonexistent/cert.pem");
    assert_int_equal(run_conn_check(&o, RUN_SERVER), -1);
    assert_non_null(strstr(err_msg(), "Config Error"));
}

/* A ConsPerf socket client: its buffers, sizes and address; what it does not give keeps the
 * transport's defaults. */
static void test_tp_consumer(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "s.out", "stats");
    o.input_bufs = 15;
    o.send_buf_size = 65536;
    o.high_water_mark = 3000;
    o.compression_type = 2;
    strcpy(o.interface_name, "127.0.0.1");
    tp_opts d, t;
    tp_opts_init(&d);
    run_link l = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF};
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_SOCKET);
    assert_string_equal(t.host, "localhost");
    assert_string_equal(t.port, "14002");
    assert_string_equal(t.interface, "127.0.0.1");
    assert_int_equal(t.protocol_type, TP_PROTOCOL_RWF);
    assert_int_equal(t.rwf_major, d.rwf_major);
    assert_int_equal(t.guaranteed_output_buffers, 5000);
    assert_int_equal(t.max_output_buffers, d.max_output_buffers); /* not given */
    assert_int_equal(t.num_input_buffers, 15);
    assert_int_equal(t.sndbuf, 65536);
    assert_int_equal(t.rcvbuf, 0);
    assert_int_equal(t.high_water_mark, 3000);
    assert_true(t.tcp_nodelay);
    assert_int_equal(t.compression, TP_COMP_LZ4);
    assert_int_equal(t.ping_timeout, d.ping_timeout);
    assert_false(t.ws_no_utf8_check);

    /* warm standby: another address */
    l.host = "standby";
    l.port = "14003";
    run_conn_tp(&o, &l, &t);
    assert_string_equal(t.host, "standby");
    assert_string_equal(t.port, "14003");
    o.interface_name[0] = '\0';
    run_conn_tp(&o, &l, &t);
    assert_null(t.interface);
}

/* WebSocket, in the clear and inside TLS; the client's handshake says RWF whatever the tool's
 * protocol. */
static void test_tp_websocket(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "s.out", "stats");
    o.conn_type = TP_CONN_WEBSOCKET;
    strcpy(o.ws.pl, "tr_json2");
    tp_opts t;
    run_link l = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_TRANSPORTPERF};
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_WEBSOCKET);
    assert_string_equal(t.ws_protocols, "tr_json2");
    assert_int_equal(t.protocol_type, TP_PROTOCOL_RWF);
    assert_int_equal(t.rwf_major, 0);
    assert_true(t.ws_no_utf8_check);
    l.side = RUN_SERVER; /* a TransportPerf server keeps its protocol */
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.protocol_type, TP_PROTOCOL_TRANSPORTPERF);

    o.conn_type = TP_CONN_ENCRYPTED;
    o.tls.encrypted_protocol = TP_CONN_WEBSOCKET;
    strcpy(o.tls.castore, "ca.pem");
    o.tls.sp_tls12 = true;
    l.side = RUN_CLIENT;
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_ENCRYPTED);
    assert_int_equal(t.encrypted_protocol, TP_CONN_WEBSOCKET);
    assert_string_equal(t.tls_ca_store, "ca.pem");
    assert_int_equal(t.tls_protocols, TP_TLS_V1_2);
    assert_int_equal(t.protocol_type, TP_PROTOCOL_RWF);
}

/* A ProvPerf server: its compression level, output buffers and fragment size. */
static void test_tp_server(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14002", "s.out", "stats");
    o.conn_type = TP_CONN_ENCRYPTED;
    o.max_output_bufs = 7000;
    o.max_fragment_size = 12000;
    o.compression_type = 1;
    o.compression_level = 6;
    strcpy(o.tls.keyfile, "key.pem");
    strcpy(o.tls.cert, "cert.pem");
    strcpy(o.tls.cipher, "AES128-GCM-SHA256");
    tp_opts t;
    run_link l = {.side = RUN_SERVER, .protocol_type = TP_PROTOCOL_RWF};
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_ENCRYPTED);
    assert_int_equal(t.encrypted_protocol, TP_CONN_SOCKET);
    assert_int_equal(t.max_output_buffers, 7000);
    assert_int_equal(t.max_fragment_size, 12000);
    assert_int_equal(t.compression, TP_COMP_ZLIB);
    assert_int_equal(t.compression_level, 6);
    assert_string_equal(t.tls_key_file, "key.pem");
    assert_string_equal(t.tls_cert_file, "cert.pem");
    assert_string_equal(t.tls_ciphers, "AES128-GCM-SHA256");
    assert_int_equal(t.tls_protocols, 0);
}

/* seqMCast: the groups (the receive group defaults to -h/-p), the thread's instance id and
 * loss seed; shared memory keeps its type. */
static void test_tp_mcast(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "30001", "s.out", "stats");
    o.conn_type = TP_CONN_SEQ_MCAST;
    strcpy(o.host, "239.1.1.1");
    strcpy(o.mc.send_addr, "239.1.1.2");
    strcpy(o.mc.send_port, "30002");
    o.mc.recv_loss_ppm = 2500;
    o.mc.recv_loss_seed = 7;
    tp_opts t;
    run_link l = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_TRANSPORTPERF, .thread = 2};
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_SEQ_MCAST);
    assert_string_equal(t.mc_recv_addr, "239.1.1.1");
    assert_string_equal(t.mc_recv_port, "30001");
    assert_string_equal(t.mc_send_addr, "239.1.1.2");
    assert_string_equal(t.mc_send_port, "30002");
    assert_int_equal(t.mc_instance_id, 2);
    assert_int_equal(t.mc_loss_ppm, 2500);
    assert_int_equal(t.mc_loss_seed, 9);
    strcpy(o.mc.recv_addr, "239.1.1.3");
    o.mc.recv_loss_seed = 0;
    run_conn_tp(&o, &l, &t);
    assert_string_equal(t.mc_recv_addr, "239.1.1.3");
    assert_int_equal(t.mc_loss_seed, 0);

    o.conn_type = TP_CONN_SHMEM;
    run_conn_tp(&o, &l, &t);
    assert_int_equal(t.conn_type, TP_CONN_SHMEM);
}

/* A server bound from the options: the side is the bind's whatever the link says, the port an
 * ephemeral one on 127.0.0.1; settings the transport refuses leave no server and say why. */
static void test_bind(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "0", "s.out", "stats");
    strcpy(o.interface_name, "127.0.0.1");
    o.compression_level = 9;
    run_link l = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_TRANSPORTPERF};
    tp_server *srv = NULL;
    assert_int_equal(run_conn_bind(&o, &l, &srv), 0);
    assert_non_null(srv);
    assert_true(tp_server_port(srv) > 0);
    tp_server_close(srv);

    o.compression_level = 12;
    assert_true(run_conn_bind(&o, &l, &srv) < 0);
    assert_null(srv);
    assert_non_null(strstr(err_msg(), "compression level 12"));
}

/* The Reactor's connection settings come from the same mapping, with the high-water mark. */
static void test_rx_conn(void **state)
{
    (void)state;
    run_opts o;
    run_opts_defaults(&o, "14003", "s.out", "stats");
    o.high_water_mark = 4096;
    rx_conn_opts co;
    run_link l = {.side = RUN_CLIENT, .protocol_type = TP_PROTOCOL_RWF};
    run_drv_rx_conn(&o, &l, &co);
    assert_string_equal(co.tp.port, "14003");
    assert_int_equal(co.tp.high_water_mark, 4096);
    assert_int_equal(co.high_water_mark, 4096);
    assert_int_equal(co.reconnect_limit, -1); /* the layer's defaults stay */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),       cmocka_unit_test(test_questions),
        cmocka_unit_test(test_tp_consumer), cmocka_unit_test(test_tp_websocket),
        cmocka_unit_test(test_tp_server),   cmocka_unit_test(test_tp_mcast),
        cmocka_unit_test(test_rx_conn),     cmocka_unit_test(test_bind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
