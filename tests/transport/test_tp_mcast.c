/*
 * seqMCast channels, live, in a private network namespace (ts_netns.h: skipped, saying so,
 * where it cannot be created): the datagrams on the wire (checked by a plain UDP socket
 * joined to the group), packing, pings and the ping timeout, channel information, the
 * receiver's checks of malformed datagrams (counted by kind, never fatal), a flood of forged
 * instance ids, duplicates, the loss generator against the tracker's lost count, an oversized
 * datagram, the errors of a wrong set-up, and a channel's read side reset (tp_mc_reset_rx).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "testsupport.h"
#include "tp.h"
#include "tp_mcast.h"
#include "ts_netns.h"

#define GROUP "239.1.2.3"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Options of an end that receives on GROUP:rport and sends to GROUP:sport, as TransportPerf
 * sets them (protocol 88, RWF 0.0). */
static void mc_opts(tp_opts *o, const char *rport, const char *sport)
{
    tp_opts_init(o);
    o->conn_type = TP_CONN_SEQ_MCAST;
    o->mc_recv_addr = GROUP;
    o->mc_recv_port = rport;
    o->mc_send_addr = GROUP;
    o->mc_send_port = sport;
    o->interface = "127.0.0.1";
    o->protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o->rwf_major = o->rwf_minor = 0;
    o->rcvbuf = 4 << 20;
}

static tp_channel *mc_open(const tp_opts *o)
{
    tp_channel *ch = NULL;
    if (tp_connect(o, &ch) != 0)
        fail_msg("tp_connect: %s", err_msg());
    assert_int_equal(tp_init(ch), TP_ACTIVE); /* active at once: there is no handshake */
    return ch;
}

/* A plain UDP socket: bound to GROUP:port and joined (port != 0), sending from 127.0.0.1. */
static int raw_socket(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct in_addr ifa = {.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof(ifa)), 0);
    if (port) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        inet_pton(AF_INET, GROUP, &a.sin_addr);
        assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        struct ip_mreq m = {.imr_multiaddr = a.sin_addr, .imr_interface = ifa};
        assert_int_equal(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)), 0);
    }
    return fd;
}

static void raw_send(int fd, uint16_t port, const void *p, size_t n)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, GROUP, &a.sin_addr);
    assert_int_equal(sendto(fd, p, n, 0, (struct sockaddr *)&a, sizeof(a)), (ssize_t)n);
}

/* A datagram of protocol 88 with one message of len bytes of value v. */
static size_t dgram(uint8_t *out, uint16_t instance, uint32_t seq, uint32_t len, uint8_t v)
{
    tp_mc_hdr h = {TP_MC_VERSION, 0, 88, TP_MC_HDR_LEN, instance, 0, 0, seq};
    tp_mc_hdr_encode(&h, out);
    out[12] = (uint8_t)(len >> 8);
    out[13] = (uint8_t)len;
    memset(out + 14, v, len);
    return 14 + len;
}

/* Reads from ch until want messages arrived or timeout_ms passed; copies the first byte of
 * each (up to cap) into firsts. Returns messages read; counts pings in *pings (may be NULL). */
static int read_msgs(tp_channel *ch, int want, int timeout_ms, uint8_t *firsts, int cap, int *pings)
{
    int got = 0;
    uint64_t end = now_ms() + (uint64_t)timeout_ms;
    while (got < want && now_ms() < end) {
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            fail_msg("tp_read: %s", err_msg());
        if (rc & TP_READ_MSG) {
            if (firsts && got < cap)
                firsts[got] = m.len ? m.data[0] : 0;
            got++;
        }
        if ((rc & TP_READ_PING) && pings)
            (*pings)++;
        if (!(rc & TP_READ_MORE)) {
            struct pollfd p = {.fd = tp_fd(ch), .events = POLLIN};
            poll(&p, 1, 20);
        }
    }
    return got;
}

/* Drains what is readable now (for counts); returns the messages read. */
static int drain(tp_channel *ch, int ms)
{
    return read_msgs(ch, 1 << 30, ms, NULL, 0, NULL);
}

static int write_msg(tp_channel *ch, uint32_t len, uint8_t v, unsigned flags)
{
    tp_buf *b;
    int rc = tp_get_buffer(ch, len, false, &b);
    if (rc < 0)
        return rc;
    memset(b->data, v, len);
    b->len = len;
    return tp_write(ch, b, flags);
}

static void test_wire_and_delivery(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30001", "30009");
    tp_channel *rx = mc_open(&o);
    mc_opts(&o, "30002", "30001");
    tp_channel *tx = mc_open(&o);
    assert_int_equal(tp_mc_local_port(tx), 30002);
    int raw = raw_socket(30001); /* sees what the receiver sees */

    for (int i = 0; i < 100; i++)
        assert_true(write_msg(tx, 76, (uint8_t)i, 0) >= 0);
    assert_true(tp_queued(tx) > 0); /* batched below the high-water mark */
    assert_int_equal(tp_flush(tx), 0);
    assert_int_equal(tp_queued(tx), 0);

    uint8_t firsts[100];
    assert_int_equal(read_msgs(rx, 100, 3000, firsts, 100, NULL), 100);
    for (int i = 0; i < 100; i++)
        assert_int_equal(firsts[i], i);
    tp_mc_from from;
    uint32_t seq;
    assert_int_equal(tp_mc_last_from(rx, &from, &seq), 0);
    assert_int_equal(from.addr, 0x7F000001);
    assert_int_equal(from.port, 30002); /* the sender's receive port */
    assert_int_equal(seq, 100);

    /* the first datagram, byte for byte: the layout of the original's capture */
    uint8_t d[200];
    ssize_t n = recv(raw, d, sizeof(d), 0);
    assert_int_equal(n, 90);
    uint8_t want[14];
    ts_hex("01 00 58 0c 0000 00 00 00000001 004c", want, sizeof(want));
    ts_assert_bytes_equal(d, 14, want, sizeof(want));

    tp_mc_stats st;
    assert_int_equal(tp_mc_get_stats(rx, &st), 0);
    assert_int_equal(st.pkts_recv, 100);
    assert_int_equal(st.seq.received, 100);
    assert_int_equal(st.seq.gaps, 0);
    assert_int_equal(st.senders, 1);
    assert_int_equal(st.bad, 0);
    assert_int_equal(tp_mc_get_stats(tx, &st), 0);
    assert_int_equal(st.pkts_sent, 100);
    tp_stats ts;
    tp_get_stats(tx, &ts);
    assert_int_equal(ts.msgs_written, 100);
    assert_int_equal(ts.bytes_sent, 9000);
    assert_true(ts.send_calls < 100); /* batched */

    /* TP_WRITE_DIRECT sends at once */
    assert_int_equal(write_msg(tx, 16, 0xAB, TP_WRITE_DIRECT), 0);
    assert_int_equal(read_msgs(rx, 1, 2000, firsts, 1, NULL), 1);
    assert_int_equal(firsts[0], 0xAB);
    close(raw);
    tp_close(tx);
    tp_close(rx);
}

static void test_packed(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30011", "30019");
    tp_channel *rx = mc_open(&o);
    mc_opts(&o, "30012", "30011");
    tp_channel *tx = mc_open(&o);
    int raw = raw_socket(30011);
    tp_buf *b;
    /* as TransportPerf asks: (76 + 8) x 5 bytes */
    assert_int_equal(tp_get_buffer(tx, 84 * 5, true, &b), 0);
    for (int i = 0; i < 5; i++) {
        memset(b->data, 10 + i, 76);
        b->len = 76;
        if (i < 4)
            assert_int_equal(tp_pack(tx, b), 0);
    }
    assert_true(tp_write(tx, b, TP_WRITE_DIRECT) >= 0);
    uint8_t firsts[5];
    assert_int_equal(read_msgs(rx, 5, 2000, firsts, 5, NULL), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(firsts[i], 10 + i);
    uint8_t d[1000];
    assert_int_equal(recv(raw, d, sizeof(d), 0), 402); /* 12 + 5 x 78, as captured */
    tp_mc_stats st;
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.pkts_recv, 1);
    close(raw);
    tp_close(tx);
    tp_close(rx);
}

static void test_ping_and_timeout(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30021", "30029");
    o.ping_timeout = 1;
    tp_channel *rx = mc_open(&o);
    mc_opts(&o, "30022", "30021");
    tp_channel *tx = mc_open(&o);
    int raw = raw_socket(30021);
    assert_int_equal(tp_ping(tx), 0);
    int pings = 0;
    read_msgs(rx, 1, 300, NULL, 0, &pings);
    assert_int_equal(pings, 1);
    uint8_t d[64];
    assert_int_equal(recv(raw, d, sizeof(d), 0), 12); /* nothing sent yet: number 0 */
    uint8_t want[12];
    ts_hex("01 00 58 0c 0000 00 00 00000000", want, sizeof(want));
    ts_assert_bytes_equal(d, 12, want, 12);
    /* the receiver hears nothing more: its tick fails it after ping_timeout */
    tp_info info;
    assert_int_equal(tp_get_info(rx, &info), 0);
    assert_int_equal(info.ping_timeout, 1);
    uint64_t t0 = now_ms();
    int rc = 0;
    while (rc == 0 && now_ms() - t0 < 5000) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        rc = tp_tick(rx, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
        usleep(50000);
    }
    assert_int_equal(rc, TP_EFAIL);
    assert_string_equal(err_msg(), "Ping timed out.");
    assert_int_equal(tp_get_state(rx), TP_STATE_CLOSED);
    close(raw);
    tp_close(tx);
    tp_close(rx);
}

static void test_info_and_setup_errors(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30031", "30039");
    o.rcvbuf = 100000;
    o.interface = "lo"; /* an interface name works too */
    tp_channel *ch = mc_open(&o);
    tp_info info;
    assert_int_equal(tp_get_info(ch, &info), 0);
    assert_int_equal(info.conn_type, TP_CONN_SEQ_MCAST);
    assert_int_equal(info.max_fragment_size, 6144);
    assert_int_equal(info.max_output_buffers, 1);
    assert_int_equal(info.guaranteed_output_buffers, 1);
    assert_int_equal(info.num_input_buffers, 1);
    assert_int_equal(info.ping_timeout, 60);
    assert_false(info.client_to_server_pings);
    assert_false(info.server_to_client_pings);
    assert_int_equal(info.sys_recv_buf_size, 200000); /* Linux doubles it */
    assert_string_equal(info.component, "");
    /* buffers: one at a time, no larger than the maximum, nothing empty */
    tp_buf *b, *b2;
    assert_int_equal(tp_get_buffer(ch, 6145, false, &b), TP_EINVAL);
    assert_int_equal(tp_get_buffer(ch, 100, false, &b), 0);
    assert_int_equal(tp_get_buffer(ch, 100, false, &b2), TP_EINVAL);
    b->len = 0;
    assert_int_equal(tp_write(ch, b, 0), TP_EINVAL);
    assert_int_equal(tp_release(ch, b), 0);
    assert_int_equal(tp_get_buffer(ch, 100, false, &b), 0);
    assert_int_equal(tp_release(ch, b), 0);
    tp_close(ch);

    /* the largest message is capped at what a UDP datagram holds */
    o.max_fragment_size = 70000;
    ch = mc_open(&o);
    assert_int_equal(tp_get_info(ch, &info), 0);
    assert_int_equal(info.max_fragment_size, TP_MC_MAX_MSG);
    tp_close(ch);

    tp_opts_init(&o);
    o.conn_type = TP_CONN_SEQ_MCAST;
    o.host = "";
    o.port = "";
    assert_int_equal(tp_connect(&o, &ch), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "receive address and port"));
    mc_opts(&o, "30031", NULL);
    o.mc_send_port = "";
    assert_int_equal(tp_connect(&o, &ch), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "has no port (-sp)"));
    mc_opts(&o, "30031", "30039");
    o.interface = "no-such-if";
    assert_int_equal(tp_connect(&o, &ch), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "interface no-such-if"));
    /* no server */
    tp_server *s;
    mc_opts(&o, "30031", "30039");
    assert_int_equal(tp_bind(&o, &s), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "has no server"));
}

static void test_malformed_counted(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30041", "30049");
    tp_channel *rx = mc_open(&o);
    int raw = raw_socket(0);
    uint8_t d[200];
    size_t n = dgram(d, 0, 1, 20, 1);
    d[0] = 2; /* bad version */
    raw_send(raw, 30041, d, n);
    dgram(d, 0, 2, 20, 1);
    d[2] = 0; /* RWF */
    raw_send(raw, 30041, d, n);
    dgram(d, 0, 3, 20, 1);
    raw_send(raw, 30041, d, 11); /* too short */
    dgram(d, 0, 4, 20, 1);
    d[3] = 100; /* header length past the end */
    raw_send(raw, 30041, d, n);
    dgram(d, 0, 5, 20, 1);
    d[n] = 0; /* a packed entry cut after one byte of its length */
    raw_send(raw, 30041, d, n + 1);
    dgram(d, 0, 6, 20, 1);
    raw_send(raw, 30041, d, n - 1); /* the message runs past the datagram */
    dgram(d, 0, 7, 20, 0x77);       /* and a good one */
    raw_send(raw, 30041, d, n);
    uint8_t first;
    assert_int_equal(read_msgs(rx, 1, 2000, &first, 1, NULL), 1);
    assert_int_equal(first, 0x77);
    assert_int_equal(tp_get_state(rx), TP_STATE_ACTIVE);
    tp_mc_stats st;
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.pkts_recv, 7);
    assert_int_equal(st.bad, 6);
    assert_int_equal(st.bad_kind[TP_MC_BAD_VERSION], 1);
    assert_int_equal(st.bad_kind[TP_MC_BAD_PROTOCOL], 1);
    assert_int_equal(st.bad_kind[TP_MC_BAD_SHORT], 1);
    assert_int_equal(st.bad_kind[TP_MC_BAD_HDR_LEN], 1);
    assert_int_equal(st.bad_kind[TP_MC_BAD_TRUNC_LEN], 1);
    assert_int_equal(st.bad_kind[TP_MC_BAD_LEN_BEYOND], 1);
    assert_int_equal(st.seq.received, 1); /* malformed datagrams are not followed */
    char why[200];
    tp_mc_last_bad(rx, why, sizeof(why));
    assert_non_null(strstr(why, "message length past the end of the datagram (33-byte datagram "
                                "from 127.0.0.1:"));
    assert_non_null(strstr(why, "/0, at offset 12)"));
    close(raw);
    tp_close(rx);
}

static void test_forged_flood_and_duplicates(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30051", "30059");
    o.mc_max_senders = 16;
    tp_channel *rx = mc_open(&o);
    int raw = raw_socket(0);
    uint8_t d[200];
    int total = 0;
    for (int i = 0; i < 5000; i++) {
        size_t n = dgram(d, (uint16_t)(i + 1), 1, 16, 1);
        raw_send(raw, 30051, d, n);
        if (i % 500 == 499)
            total += drain(rx, 50);
    }
    total += drain(rx, 200);
    assert_int_equal(total, 5000); /* every message is still delivered */
    tp_mc_stats st;
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.senders, 16);
    assert_int_equal(st.untracked, 5000 - 16);
    /* a duplicated datagram of a followed sender */
    size_t n = dgram(d, 1, 2, 16, 1);
    raw_send(raw, 30051, d, n);
    raw_send(raw, 30051, d, n);
    assert_int_equal(drain(rx, 200), 2);
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.seq.duplicates, 1);
    close(raw);
    tp_close(rx);
}

static void test_loss_generator(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30061", "30069");
    o.mc_loss_ppm = 100000; /* 10 % */
    o.mc_loss_seed = 12345;
    tp_channel *rx = mc_open(&o);
    mc_opts(&o, "30062", "30061");
    tp_channel *tx = mc_open(&o);
    int got = 0;
    const int sent = 3000;
    for (int i = 0; i < sent; i++) {
        assert_true(write_msg(tx, 76, 1, 0) >= 0);
        if (i % 200 == 199) {
            tp_flush(tx);
            got += drain(rx, 20);
        }
    }
    tp_flush(tx);
    for (int i = 0; i < 4; i++)
        tp_ping(tx); /* the receiver learns the last number even if the end was dropped */
    got += drain(rx, 300);
    tp_mc_stats st;
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.seq.received, (uint64_t)got);
    assert_int_equal(st.seq.lost,
                     (uint64_t)(sent - got)); /* what the sender sent, less what came */
    assert_int_equal(st.seq.duplicates, 0);
    assert_int_equal(st.seq.late, 0);
    assert_int_equal(st.pkts_recv + st.loss_dropped, (uint64_t)sent + 4);
    assert_true(st.loss_dropped > (uint64_t)sent / 20 && st.loss_dropped < (uint64_t)sent / 5);
    tp_close(tx);
    tp_close(rx);
}

static void test_final_ping_and_oversize(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30071", "30079");
    o.max_fragment_size = 100;
    tp_channel *rx = mc_open(&o);
    mc_opts(&o, "30072", "30071");
    tp_channel *tx = mc_open(&o);
    assert_true(write_msg(tx, 200, 1, TP_WRITE_DIRECT) >= 0); /* larger than rx takes */
    assert_true(write_msg(tx, 50, 2, TP_WRITE_DIRECT) >= 0);
    assert_true(write_msg(tx, 50, 3, 0) > 0); /* queued */
    tp_close(tx); /* closing sends what is queued, and a ping with the last number: 3 */
    int pings = 0;
    uint8_t first[2] = {0, 0};
    assert_int_equal(read_msgs(rx, 2, 1000, first, 2, &pings), 2);
    read_msgs(rx, 1, 300, NULL, 0, &pings);
    assert_int_equal(first[0], 2);
    assert_int_equal(first[1], 3);
    assert_int_equal(pings, 1);
    tp_mc_stats st;
    tp_mc_get_stats(rx, &st);
    assert_int_equal(st.bad_kind[TP_MC_BAD_OVERSIZE], 1);
    assert_int_equal(st.pings_recv, 1);
    tp_close(rx);
}

/* Sends the series test_reset_rx reads twice: datagrams of 3 senders (the table holds 2),
 * a gap, a duplicate, a malformed one and a ping. */
static void reset_series(int raw, uint16_t port)
{
    uint8_t d[200];
    for (uint32_t seq = 1; seq <= 12; seq++) {
        if (seq == 5)
            continue; /* a gap */
        for (uint16_t inst = 1; inst <= 3; inst++)
            raw_send(raw, port, d, dgram(d, inst, seq, 10, (uint8_t)(inst * 16 + seq)));
    }
    raw_send(raw, port, d, dgram(d, 1, 12, 10, 0x55)); /* a duplicate */
    size_t n = dgram(d, 2, 13, 10, 1);
    d[0] = 2; /* bad version */
    raw_send(raw, port, d, n);
    tp_mc_hdr h = {TP_MC_VERSION, 0, 88, TP_MC_HDR_LEN, 1, 0, 0, 14};
    tp_mc_hdr_encode(&h, d);
    raw_send(raw, port, d, TP_MC_HDR_LEN); /* a ping: 13 and 14 of sender 1 are lost */
}

static void test_reset_rx(void **state)
{
    (void)state;
    tp_opts o;
    mc_opts(&o, "30081", "30089");
    o.mc_loss_ppm = 300000;
    o.mc_loss_seed = 99;
    o.mc_max_senders = 2;
    tp_channel *rx = mc_open(&o);
    int raw = raw_socket(0);
    uint8_t first[2][64];
    int got[2], pings[2] = {0, 0};
    tp_mc_stats st[2];
    char why[2][200];
    for (int round = 0; round < 2; round++) {
        reset_series(raw, 30081);
        got[round] = read_msgs(rx, 1 << 30, 300, first[round], 64, &pings[round]);
        tp_mc_get_stats(rx, &st[round]);
        tp_mc_last_bad(rx, why[round], sizeof(why[round]));
        /* datagrams still queued when the channel is reset are discarded */
        reset_series(raw, 30081);
        assert_int_equal(tp_mc_reset_rx(rx), 0);
        tp_mc_stats z;
        tp_mc_get_stats(rx, &z);
        assert_int_equal(z.pkts_recv + z.loss_dropped + z.bad + z.seq.received + z.senders, 0);
        assert_int_equal(z.untracked + z.pings_recv + z.seq.lost + z.seq.duplicates, 0);
        tp_mc_from from;
        uint32_t seq;
        assert_int_equal(tp_mc_last_from(rx, &from, &seq), TP_EINVAL);
        char none[200];
        assert_string_equal(tp_mc_last_bad(rx, none, sizeof(none)), "");
        assert_int_equal(tp_get_state(rx), TP_STATE_ACTIVE);
    }
    /* after the reset the channel reads the series as the new channel did: the same
     * messages, drops of the loss generator, senders and counts */
    assert_true(got[0] > 5 && got[0] < 34);
    assert_int_equal(got[1], got[0]);
    assert_memory_equal(first[1], first[0], (size_t)got[0]);
    assert_int_equal(pings[1], pings[0]);
    assert_true(st[0].loss_dropped > 0);
    assert_int_equal(st[0].senders, 2);
    assert_true(st[0].untracked > 0);
    assert_int_equal(st[1].pkts_recv, st[0].pkts_recv);
    assert_int_equal(st[1].loss_dropped, st[0].loss_dropped);
    assert_int_equal(st[1].bad, st[0].bad);
    assert_int_equal(st[1].pings_recv, st[0].pings_recv);
    assert_int_equal(st[1].senders, st[0].senders);
    assert_int_equal(st[1].untracked, st[0].untracked);
    assert_int_equal(st[1].seq.received, st[0].seq.received);
    assert_int_equal(st[1].seq.gaps, st[0].seq.gaps);
    assert_int_equal(st[1].seq.lost, st[0].seq.lost);
    assert_int_equal(st[1].seq.duplicates, st[0].seq.duplicates);
    assert_string_equal(why[1], why[0]);
    close(raw);
    tp_close(rx);

    /* another kind of channel */
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts so;
    tp_opts_init(&so);
    tp_channel *sock;
    assert_int_equal(tp_adopt(sv[0], false, &so, &sock), 0);
    assert_int_equal(tp_mc_reset_rx(sock), TP_EINVAL);
    tp_close(sock);
    close(sv[1]);
}

int main(void)
{
    ts_netns_enter_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_and_delivery),
        cmocka_unit_test(test_packed),
        cmocka_unit_test(test_ping_and_timeout),
        cmocka_unit_test(test_info_and_setup_errors),
        cmocka_unit_test(test_malformed_counted),
        cmocka_unit_test(test_forged_flood_and_duplicates),
        cmocka_unit_test(test_loss_generator),
        cmocka_unit_test(test_final_ping_and_oversize),
        cmocka_unit_test(test_reset_rx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
