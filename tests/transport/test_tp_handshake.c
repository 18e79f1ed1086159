/* The RIPC handshake against the original tools' captures: our client's ConnectReq equals the
 * captured one except host name, IP and component string; our server's ConnectAck equals
 * the captured one except the key-exchange numbers and component string, and our server
 * consumes the original client's 12-byte key message. Also the layouts of
 * docs/wire.md#ripc-handshake, the server negotiation rules, and every truncation of the messages.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_ripc.h"
#include "tp_testutil.h"

#define ETA_COMPONENT "eta3.6.5.G1.linux.rrg 64-bit Static"

typedef struct capture {
    const char *dir;
    uint16_t port;
    uint8_t protocol; /* 0 RWF, 88 TransportPerf */
    uint8_t major, minor;
    tp_comp comp;  /* requested by the client and offered by the server */
    uint8_t level; /* the server's zlib level */
} capture;

static const capture captures[] = {
    {"consprov_default", 14002, 0, 14, 1, TP_COMP_NONE, 0},
    {"consprov_tcpdelay", 14002, 0, 14, 1, TP_COMP_NONE, 0},
    {"consprov_pack", 14002, 0, 14, 1, TP_COMP_NONE, 0},
    {"consprov_zlib", 14002, 0, 14, 1, TP_COMP_ZLIB, 0},
    {"consprov_lz4", 14002, 0, 14, 1, TP_COMP_LZ4, 0},
    {"transportperf_socket", 15000, 88, 0, 0, TP_COMP_NONE, 5},
    {"transportperf_zlib", 15000, 88, 0, 0, TP_COMP_ZLIB, 5},
    {"transportperf_lz4", 15000, 88, 0, 0, TP_COMP_LZ4, 5},
    {"transportperf_reflect", 15000, 88, 0, 0, TP_COMP_NONE, 5},
};

static void load(const capture *c, ts_tcp_streams *s)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", c->dir, c->dir);
    const char *path = ts_capture(rel);
    assert_int_equal(ts_pcap_tcp_streams(path, c->port, s), 0);
}

static int raw_listen(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 4), 0);
    socklen_t l = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &l);
    *port = ntohs(a.sin_port);
    return fd;
}

static int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001)};
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* Reads exactly n bytes within 5 s while driving ch's handshake (ch may be NULL). */
static void read_exact(int fd, uint8_t *p, size_t n, tp_channel *ch)
{
    size_t got = 0;
    uint64_t end = tu_now_ms() + 5000;
    while (got < n) {
        assert_true(tu_now_ms() < end);
        if (ch)
            tp_init(ch);
        struct pollfd f = {.fd = fd, .events = POLLIN};
        if (poll(&f, 1, 5) <= 0)
            continue;
        ssize_t r = recv(fd, p + got, n - got, 0);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

static void test_req_encode_equals_capture(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
        ts_tcp_streams s;
        load(&captures[i], &s);
        const uint8_t *req = s.client_to_server.data;
        size_t n = (size_t)req[0] << 8 | req[1];
        tp_ripc_req r;
        if (tp_ripc_req_parse(req, n, &r) != 0)
            fail_msg("%s: %s", captures[i].dir, err_msg());
        assert_int_equal(r.gen, 14);
        assert_int_equal(r.flags, TP_RIPC_KEY_EXCHANGE);
        assert_int_equal(r.protocol_type, captures[i].protocol);
        assert_int_equal(r.rwf_major, captures[i].major);
        assert_int_equal(r.rwf_minor, captures[i].minor);
        assert_int_equal(r.ping_timeout, 60);
        assert_int_equal(r.comp_bitmap, captures[i].comp == TP_COMP_ZLIB  ? 1
                                        : captures[i].comp == TP_COMP_LZ4 ? 2
                                                                          : 0);
        assert_int_equal(r.host.len, 2);
        assert_memory_equal(r.host.p, "vm", 2);
        assert_int_equal(r.ip.len, 9);
        assert_int_equal(r.component.len, strlen(ETA_COMPONENT));
        uint8_t out[TP_RIPC_HS_MAX];
        int len = tp_ripc_req_encode(&r, out, sizeof(out));
        ts_assert_bytes_equal(out, (size_t)len, req, n);
        ts_tcp_streams_free(&s);
    }
}

/* Our client, configured as the original client was, sends the captured ConnectReq apart
 * from host name, IP and component string. */
static void test_client_req_on_wire(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
        const capture *c = &captures[i];
        ts_tcp_streams s;
        load(c, &s);
        const uint8_t *want = s.client_to_server.data;
        size_t wn = (size_t)want[0] << 8 | want[1];
        uint16_t port;
        int lfd = raw_listen(&port);
        char ps[16];
        snprintf(ps, sizeof(ps), "%u", port);
        tp_opts o;
        tu_opts(&o);
        o.port = ps;
        o.protocol_type = c->protocol;
        o.rwf_major = c->major;
        o.rwf_minor = c->minor;
        o.compression = c->comp;
        tp_channel *ch;
        assert_int_equal(tp_connect(&o, &ch), 0);
        int afd = -1;
        uint64_t end = tu_now_ms() + 5000;
        while (afd < 0 && tu_now_ms() < end) {
            tp_init(ch);
            struct pollfd f = {.fd = lfd, .events = POLLIN};
            if (poll(&f, 1, 5) > 0)
                afd = accept(lfd, NULL, NULL);
        }
        assert_true(afd >= 0);
        uint8_t got[TP_RIPC_HS_MAX];
        read_exact(afd, got, 2, ch);
        size_t gn = (size_t)got[0] << 8 | got[1];
        read_exact(afd, got + 2, gn - 2, ch);
        tp_ripc_req ours, theirs;
        assert_int_equal(tp_ripc_req_parse(got, gn, &ours), 0);
        assert_int_equal(tp_ripc_req_parse(want, wn, &theirs), 0);
        /* the capture, with our host name, IP and component put in, must be our bytes */
        theirs.host = ours.host;
        theirs.ip = ours.ip;
        theirs.component = ours.component;
        uint8_t re[TP_RIPC_HS_MAX];
        int rn = tp_ripc_req_encode(&theirs, re, sizeof(re));
        ts_assert_bytes_equal(got, gn, re, (size_t)rn);
        assert_int_equal(ours.ip.len, 9);
        assert_memory_equal(ours.ip.p, "127.0.0.1", 9);
        tp_close(ch);
        close(afd);
        close(lfd);
        ts_tcp_streams_free(&s);
    }
}

/* Our server, configured as the original server was, answers the captured ConnectReq with
 * the captured ConnectAck (key numbers aside), consumes the captured client key message and
 * then reads the client's first data frames. */
static void test_server_ack_on_wire(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
        const capture *c = &captures[i];
        ts_tcp_streams s;
        load(c, &s);
        const uint8_t *c2s = s.client_to_server.data;
        size_t reqn = (size_t)c2s[0] << 8 | c2s[1];
        const uint8_t *want = s.server_to_client.data;
        size_t wn = (size_t)want[0] << 8 | want[1];
        tp_opts o;
        tu_opts(&o);
        o.protocol_type = c->protocol;
        o.rwf_major = c->major;
        o.rwf_minor = c->minor;
        o.compression = c->comp;
        o.compression_level = c->level;
        o.component = ETA_COMPONENT;
        tp_server *srv;
        assert_int_equal(tp_bind(&o, &srv), 0);
        int fd = raw_connect(tp_server_port(srv));
        tp_channel *ch = NULL;
        uint64_t end = tu_now_ms() + 5000;
        while (!ch && tu_now_ms() < end)
            tp_accept(srv, &ch);
        assert_non_null(ch);
        assert_int_equal(send(fd, c2s, reqn, 0), (ssize_t)reqn);
        uint8_t got[TP_RIPC_HS_MAX];
        read_exact(fd, got, wn, ch);
        assert_int_equal((size_t)got[0] << 8 | got[1], wn);
        /* P, G and the server key are random; P has 63 bits and G is 5 */
        assert_true((got[22] & 0x80) == 0);
        uint8_t five[8] = {0, 0, 0, 0, 0, 0, 0, 5};
        assert_memory_equal(got + 30, five, 8);
        memcpy(got + 22, want + 22, 24);
        ts_assert_bytes_equal(got, wn, want, wn);
        /* the original client's key message, then its first data frames */
        const uint8_t *key = c2s + reqn;
        size_t kn = (size_t)key[0] << 8 | key[1];
        assert_int_equal(kn, 12);
        size_t rest = s.client_to_server.len - reqn;
        assert_int_equal(send(fd, key, rest, 0), (ssize_t)rest);
        assert_int_equal(tp_init_wait(ch, 5000), TP_ACTIVE);
        size_t off = kn;
        const uint8_t *d = key;
        int frames = 0;
        while (off + 3 <= rest && frames < 3) {
            size_t fl = (size_t)d[off] << 8 | d[off + 1];
            tp_msg m;
            assert_int_equal(tu_read(ch, &m, 5000), 1);
            if (d[off + 2] == 0x02)
                ts_assert_bytes_equal(m.data, m.len, d + off + 3, fl - 3);
            off += fl;
            frames++;
        }
        assert_true(frames > 0 || rest == kn);
        tp_close(ch);
        close(fd);
        tp_server_close(srv);
        ts_tcp_streams_free(&s);
    }
}

/* docs/wire.md#ripc-handshake layouts that the captures do not show. */
static void test_spec_examples(void **state)
{
    (void)state;
    uint8_t want[128], out[TP_RIPC_HS_MAX];
    size_t n = ts_hex("00 45 00 00 00 00 16 00 20 00 3C 00 00 0E 01 06"
                      "6D 79 68 6F 73 74 09 31 32 37 2E 30 2E 30 2E 31"
                      "24 23 65 74 61 33 2E 36 2E 35 2E 47 31 2E 6C 69"
                      "6E 75 78 2E 72 72 67 20 36 34 2D 62 69 74 20 53"
                      "74 61 74 69 63",
                      want, sizeof(want));
    tp_ripc_req r = {.gen = 13,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .host = {"myhost", 6},
                     .ip = {"127.0.0.1", 9},
                     .component = {ETA_COMPONENT, 35}};
    int len = tp_ripc_req_encode(&r, out, sizeof(out));
    ts_assert_bytes_equal(out, (size_t)len, want, n);

    n = ts_hex("00 38 01 01 0A 00 00 00 00 08 18 00 03 3C 0E 01"
               "00 00 00 25 23 65 74 61 33 2E 36 2E 35 2E 47 31"
               "2E 6C 69 6E 75 78 2E 72 72 67 20 36 34 2D 62 69"
               "74 20 53 74 61 74 69 63",
               want, sizeof(want));
    tp_ripc_ack a = {.gen = 13,
                     .flags = TP_F_EXT,
                     .max_user = 6144,
                     .session_flags = 3,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .component = {ETA_COMPONENT, 35}};
    len = tp_ripc_ack_encode(&a, out, sizeof(out));
    ts_assert_bytes_equal(out, (size_t)len, want, n);
    tp_ripc_ack back;
    assert_int_equal(tp_ripc_ack_parse(out, (size_t)len, 1, &back), 0);
    assert_int_equal(back.gen, 13);
    assert_int_equal(back.has_key, 0);
    assert_int_equal(back.component.len, 35);

    n = ts_hex("00 1C 01 02 08 00 00 14 43 6F 6E 6E 65 63 74 69"
               "6F 6E 20 72 65 66 75 73 65 64 2E 00",
               want, sizeof(want));
    len = tp_ripc_nak_encode("Connection refused.", out, sizeof(out));
    ts_assert_bytes_equal(out, (size_t)len, want, n);
    char text[64];
    assert_int_equal(tp_ripc_is_nak(out, (size_t)len, text, sizeof(text)), 1);
    assert_string_equal(text, "Connection refused.");

    n = ts_hex("00 0C 08 08 0A 0B 0C 0D 0E 0F 10 11", want, sizeof(want));
    len = tp_ripc_key_encode(1, 0x0A0B0C0D0E0F1011ull, out, sizeof(out));
    ts_assert_bytes_equal(out, (size_t)len, want, n);
    uint64_t k;
    int has;
    assert_int_equal(tp_ripc_key_parse(out, (size_t)len, &k, &has), 0);
    assert_true(has && k == 0x0A0B0C0D0E0F1011ull);
    len = tp_ripc_key_encode(0, 0, out, sizeof(out));
    n = ts_hex("00 04 08 00", want, sizeof(want));
    ts_assert_bytes_equal(out, (size_t)len, want, n);

    /* v10 and v11 requests: no protocol type, no component block */
    r.gen = 10;
    len = tp_ripc_req_encode(&r, out, sizeof(out));
    assert_int_equal(len, 16 + 6 + 9);
    assert_int_equal(out[8], 16 + 6 + 9);
    tp_ripc_req back_r;
    assert_int_equal(tp_ripc_req_parse(out, (size_t)len, &back_r), 0);
    assert_int_equal(back_r.gen, 10);
    assert_int_equal(back_r.component.len, 0);
    /* a v10 ack is 18 bytes */
    a.gen = 10;
    assert_int_equal(tp_ripc_ack_encode(&a, out, sizeof(out)), 18);
}

static void test_negotiation_rules(void **state)
{
    (void)state;
    tp_opts s;
    tp_opts_init(&s);
    tp_ripc_req r = {.gen = 14, .flags = 8, .ping_timeout = 60, .rwf_major = 14, .rwf_minor = 1};
    tp_ripc_ack a;
    int nak;
    /* ping: clamp to [min, server] */
    uint8_t pings[][2] = {{60, 60}, {10, 20}, {30, 30}, {200, 60}, {20, 20}, {19, 20}};
    for (size_t i = 0; i < sizeof(pings) / 2; i++) {
        r.ping_timeout = pings[i][0];
        tp_ripc_negotiate(&s, &r, &a, &nak);
        assert_int_equal(a.ping_timeout, pings[i][1]);
        assert_int_equal(nak, 0);
    }
    assert_int_equal(a.session_flags, 3);
    s.client_to_server_pings = false;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_int_equal(a.session_flags, 2);
    r.session_flags = 1;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_int_equal(a.session_flags, 3);
    /* RWF version: the lower of the two */
    r.rwf_major = 14;
    r.rwf_minor = 0;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_true(a.rwf_major == 14 && a.rwf_minor == 0);
    r.rwf_major = 15;
    r.rwf_minor = 0;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_true(a.rwf_major == 14 && a.rwf_minor == 1);
    r.rwf_major = 13;
    r.rwf_minor = 9;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_true(a.rwf_major == 13 && a.rwf_minor == 9);
    /* protocol type */
    r.protocol_type = 88;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_int_equal(nak, 1);
    r.gen = 11; /* v10/v11 carry no protocol type: RWF assumed */
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_int_equal(nak, 0);
    s.protocol_type = 88;
    tp_ripc_negotiate(&s, &r, &a, &nak);
    assert_int_equal(nak, 1);
    s.protocol_type = 0;
    r.protocol_type = 0;

    /* compression matrix: server type x client bitmap x force x version */
    struct {
        int gen, S, force, bm, want, forced;
    } cases[] = {
        {14, 0, 0, 1, 0, 0}, {14, 1, 0, 0, 0, 0}, {14, 1, 0, 1, 1, 0}, {14, 1, 0, 2, 0, 0},
        {14, 2, 0, 2, 2, 0}, {14, 2, 0, 3, 2, 0}, {14, 2, 1, 0, 2, 1}, {14, 1, 1, 2, 1, 1},
        {13, 2, 1, 1, 2, 1}, {12, 2, 1, 0, 1, 1}, {12, 2, 0, 2, 2, 0}, {12, 1, 1, 2, 0, 0},
        {11, 0, 1, 0, 0, 0}, {11, 1, 0, 1, 1, 0}, {10, 1, 0, 1, 1, 0}, {10, 2, 0, 1, 1, 0},
        {10, 1, 1, 0, 0, 0}, {10, 0, 0, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r.gen = (uint8_t)cases[i].gen;
        r.comp_bitmap = (uint8_t)cases[i].bm;
        s.compression = (tp_comp)cases[i].S;
        s.force_compression = cases[i].force;
        tp_ripc_negotiate(&s, &r, &a, &nak);
        if (a.compression != cases[i].want)
            fail_msg("case %zu: compression %u, want %d", i, a.compression, cases[i].want);
        assert_int_equal((a.flags & TP_F_COMP_FORCE) != 0, cases[i].forced);
    }
}

/* Every prefix of a valid message fails to parse (with a message), never crashes. */
static void test_truncations(void **state)
{
    (void)state;
    uint8_t req[TP_RIPC_HS_MAX], ack[TP_RIPC_HS_MAX], cut[TP_RIPC_HS_MAX];
    tp_ripc_req r = {.gen = 14,
                     .flags = 8,
                     .comp_bitmap = 1,
                     .ping_timeout = 60,
                     .rwf_major = 14,
                     .rwf_minor = 1,
                     .host = {"host", 4},
                     .ip = {"1.2.3.4", 7},
                     .component = {"comp", 4}};
    int rn = tp_ripc_req_encode(&r, req, sizeof(req));
    tp_ripc_ack a = {.gen = 14,
                     .flags = 1,
                     .max_user = 6144,
                     .has_key = 1,
                     .key_type = 1,
                     .key_p = 7,
                     .key_g = 5,
                     .key_k = 3,
                     .component = {"comp", 4}};
    int an = tp_ripc_ack_encode(&a, ack, sizeof(ack));
    tp_ripc_req pr;
    tp_ripc_ack pa;
    for (int n = 0; n < rn; n++) {
        memcpy(cut, req, (size_t)n);
        if (n >= 2) {
            cut[0] = (uint8_t)(n >> 8); /* a consistent length field, truncated content */
            cut[1] = (uint8_t)n;
        }
        err_clear();
        assert_int_equal(tp_ripc_req_parse(cut, (size_t)n, &pr), -1);
        assert_true(err_msg()[0] != 0);
    }
    for (int n = 0; n < an; n++) {
        memcpy(cut, ack, (size_t)n);
        if (n >= 2) {
            cut[0] = (uint8_t)(n >> 8);
            cut[1] = (uint8_t)n;
        }
        int rc = tp_ripc_ack_parse(cut, (size_t)n, 1, &pa);
        /* a v13+ ack cut inside its component block is still a usable ack */
        if (rc == 0)
            assert_true(n >= an - 6);
    }
    assert_int_equal(tp_ripc_req_parse(req, (size_t)rn, &pr), 0);
    assert_int_equal(tp_ripc_ack_parse(ack, (size_t)an, 1, &pa), 0);
    assert_true(pa.key_p == 7 && pa.key_g == 5 && pa.key_k == 3);
    /* wrong header length, unknown version, component block overrunning */
    memcpy(cut, req, (size_t)rn);
    cut[8]++;
    assert_int_equal(tp_ripc_req_parse(cut, (size_t)rn, &pr), -1);
    memcpy(cut, req, (size_t)rn);
    cut[6] = 0x18;
    assert_int_equal(tp_ripc_req_parse(cut, (size_t)rn, &pr), -1);
    memcpy(cut, req, (size_t)rn);
    cut[rn - 5] = 0xFF; /* component string length */
    assert_int_equal(tp_ripc_req_parse(cut, (size_t)rn, &pr), -1);
    memcpy(cut, ack, (size_t)an);
    cut[9] = 0x0A; /* ripcVersion 10 does not exist */
    assert_int_equal(tp_ripc_ack_parse(cut, (size_t)an, 1, &pa), -1);
    memcpy(cut, ack, (size_t)an);
    cut[17] = 3; /* compression type 3 */
    assert_int_equal(tp_ripc_ack_parse(cut, (size_t)an, 1, &pa), -1);
}

static void test_modpow(void **state)
{
    (void)state;
    assert_int_equal(tp_ripc_modpow(5, 3, 13), 125 % 13);
    assert_int_equal(tp_ripc_modpow(5, 0, 13), 1);
    assert_int_equal(tp_ripc_modpow(5, 7, 0), 0);
    /* both sides reach the same secret with 63-bit numbers */
    uint64_t p = 0x7FFFFFFFFFFFFFE7ull, g = 5, a = 0x123456789ABCDEFull, b = 0x0FEDCBA98765432ull;
    uint64_t A = tp_ripc_modpow(g, a, p), B = tp_ripc_modpow(g, b, p);
    assert_true(tp_ripc_modpow(B, a, p) == tp_ripc_modpow(A, b, p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_req_encode_equals_capture),
        cmocka_unit_test(test_client_req_on_wire),
        cmocka_unit_test(test_server_ack_on_wire),
        cmocka_unit_test(test_spec_examples),
        cmocka_unit_test(test_negotiation_rules),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_modpow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
