/* Bad input on WebSocket channels: each closes only the bad connection, with a message saying
 * what was wrong (and, after the upgrade, a close frame with its status code); a good channel
 * of the same server keeps working throughout. The peer here is a raw TCP socket.
 *   server side: malformed upgrade (400), unknown sub-protocol (400 naming the server's list),
 *   unmasked client frame (1002), frame beyond the size limit (1009, announced only: its
 *   payload never arrives), invalid UTF-8 in a text frame (1007), a binary frame on a JSON
 *   channel (1003), a close frame in the middle of a fragmented message, a reserved opcode;
 *   client side: a wrong accept key, a sub-protocol that was not offered, a masked server
 *   frame. */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_testutil.h"
#include "tp_ws.h"

static tu_pair good;   /* a server and a healthy JSON channel on it */
static int good_round; /* messages moved on it so far */

static const char upgrade_fmt[] = "GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: "
                                  "Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                  "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n";

static int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void raw_send(int fd, const void *p, size_t n)
{
    assert_int_equal(send(fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Reads what the server sent until it closes (or 3 s pass). */
static size_t raw_drain(int fd, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    uint64_t end = tu_now_ms() + 3000;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    while (tu_now_ms() < end && n < cap) {
        ssize_t r = recv(fd, buf + n, cap - n, 0);
        if (r == 0)
            break;
        if (r > 0)
            n += (size_t)r;
        else
            poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 5);
    }
    return n;
}

/* Moves one message each way on the good channel. */
static void good_still_works(void)
{
    for (int dir = 0; dir < 2; dir++) {
        tp_channel *w = dir ? good.s : good.c, *r = dir ? good.c : good.s;
        char text[32];
        int n = snprintf(text, sizeof(text), "{\"ID\":%d}", ++good_round);
        tp_buf *b;
        assert_int_equal(tp_get_buffer(w, (uint32_t)n, false, &b), 0);
        memcpy(b->data, text, (size_t)n);
        b->len = (uint32_t)n;
        assert_true(tp_write(w, b, TP_WRITE_DIRECT) >= 0);
        tp_msg m;
        assert_int_equal(tu_read(r, &m, 3000), 1);
        assert_int_equal(m.len, n + 2);
        assert_memory_equal(m.data + 1, text, (size_t)n);
    }
}

/* Accepts the raw peer's channel and drives it (handshake, reads) until it fails; returns
 * with its error text in err_msg(). */
static void server_fails(tp_channel **out)
{
    tp_channel *ch = NULL;
    uint64_t end = tu_now_ms() + 3000;
    while (!ch && tu_now_ms() < end)
        if (tp_accept(good.srv, &ch) == 0)
            usleep(2000);
    assert_non_null(ch);
    for (;;) {
        if (tu_now_ms() > end)
            fail_msg("the bad channel did not fail");
        int rc = tp_init(ch);
        if (rc < 0)
            break;
        if (rc == TP_ACTIVE) {
            tp_msg m;
            rc = tp_read(ch, &m);
            if (rc < 0)
                break;
        }
        poll(&(struct pollfd){.fd = tp_fd(ch), .events = tp_events(ch)}, 1, 5);
    }
    *out = ch;
}

typedef struct bad_upgrade {
    const char *req;
    const char *body; /* expected in the 400's body and the server's error */
} bad_upgrade;

static void test_bad_upgrades(void **st)
{
    (void)st;
    char req[600];
    snprintf(req, sizeof(req), upgrade_fmt, "chat, superchat");
    const bad_upgrade cases[] = {
        {"GET /WebSocket HTTP/1.1\r\nUpgrade websocket\r\n\r\n", "not 'name: value'"},
        {"GET /WebSocket HTTP/1.1\r\nConnection: Upgrade\r\n\r\n", "no 'Upgrade: websocket'"},
        {"GET /chat HTTP/1.1\r\n\r\n", "is not /WebSocket"},
        {req, "the client offered 'chat, superchat'; this server supports 'rssl.rwf, tr_json2, "
              "rssl.json.v2'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int fd = raw_connect(tp_server_port(good.srv));
        raw_send(fd, cases[i].req, strlen(cases[i].req));
        tp_channel *ch;
        server_fails(&ch);
        if (!strstr(err_msg(), cases[i].body))
            fail_msg("server error '%s' lacks '%s'", err_msg(), cases[i].body);
        tp_close(ch);
        uint8_t buf[2048];
        size_t n = raw_drain(fd, buf, sizeof(buf) - 1);
        buf[n] = 0;
        const char *head = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html; "
                           "charset=UTF-8\r\nConnection: close\r\n\r\n";
        assert_memory_equal(buf, head, strlen(head));
        assert_non_null(strstr((char *)buf, cases[i].body));
        close(fd);
        good_still_works();
    }
}

/* Upgrades a raw peer to JSON, then sends frames; checks the close it gets. */
static void after_upgrade(const uint8_t *frames, size_t n, uint16_t code, const char *why)
{
    int fd = raw_connect(tp_server_port(good.srv));
    char req[600];
    snprintf(req, sizeof(req), upgrade_fmt, "tr_json2");
    raw_send(fd, req, strlen(req));
    raw_send(fd, frames, n);
    tp_channel *ch;
    server_fails(&ch);
    if (!strstr(err_msg(), why))
        fail_msg("server error '%s' lacks '%s'", err_msg(), why);
    tp_close(ch);
    uint8_t buf[4096];
    size_t got = raw_drain(fd, buf, sizeof(buf));
    const uint8_t *e = memmem(buf, got, "\r\n\r\n", 4);
    assert_non_null(e);
    size_t off = (size_t)(e + 4 - buf);
    /* the answer's frames: the last is the close, unmasked, with the code */
    tp_ws_hdr h;
    uint16_t last = 0;
    while (off < got) {
        int hl = tp_ws_hdr_parse(buf + off, got - off, &h);
        assert_true(hl > 0);
        assert_false(h.masked);
        if (h.opcode == TP_WS_OP_CLOSE)
            last = (uint16_t)(buf[off + hl] << 8 | buf[off + hl + 1]);
        off += (size_t)hl + h.len;
    }
    assert_int_equal(last, code);
    close(fd);
    good_still_works();
}

/* A masked frame from bytes (the key fixed). */
static size_t frame(uint8_t *out, bool fin, uint8_t op, const void *pay, uint32_t len, bool mask)
{
    static const uint8_t key[4] = {1, 2, 3, 4};
    uint32_t h = tp_ws_hdr_write(out, fin, false, op, len, mask ? key : NULL);
    memcpy(out + h, pay, len);
    if (mask)
        tp_ws_mask(out + h, len, key, 0);
    return h + len;
}

static void test_bad_frames(void **st)
{
    (void)st;
    uint8_t f[256];
    size_t n;
    n = frame(f, true, TP_WS_OP_TEXT, "[{}]", 4, false);
    after_upgrade(f, n, 1002, "Unmasked client frame");
    /* a header announcing 4 GiB: refused before any of it arrives */
    n = tp_ws_hdr_write(f, true, false, TP_WS_OP_TEXT, 1ull << 32, (const uint8_t *)"abcd");
    after_upgrade(f, n, 1009, "exceeds the limit");
    n = frame(f, true, TP_WS_OP_TEXT, "[\"\xc3\x28\"]", 6, true);
    after_upgrade(f, n, 1007, "not valid UTF-8");
    n = frame(f, true, TP_WS_OP_BINARY, "\x00\x03\x02", 3, true);
    after_upgrade(f, n, 1003, "binary message");
    n = frame(f, true, 0x3, "x", 1, true);
    after_upgrade(f, n, 1002, "unknown data opcode");
    n = frame(f, false, TP_WS_OP_TEXT, "[{\"ID\"", 6, true);
    n += frame(f + n, true, TP_WS_OP_CLOSE, "\x03\xe8", 2, true);
    after_upgrade(f, n, 1001, "in the middle of a fragmented message (6 bytes received)");
}

/* Client side: a server that answers wrongly. */
static void client_fails(const char *answer, const uint8_t *frames, size_t fn, const char *why)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(ls, 1), 0);
    socklen_t al = sizeof(a);
    getsockname(ls, (struct sockaddr *)&a, &al);
    char port[16];
    snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
    tp_opts o;
    tu_opts(&o);
    o.port = port;
    o.conn_type = TP_CONN_WEBSOCKET;
    o.ws_protocols = "rssl.json.v2";
    tp_channel *c;
    assert_int_equal(tp_connect(&o, &c), 0);
    int fd = accept(ls, NULL, NULL);
    assert_true(fd >= 0);
    /* the request's key, to answer with */
    char req[1024];
    size_t n = 0;
    uint64_t end = tu_now_ms() + 3000;
    while (!memmem(req, n, "\r\n\r\n", 4) && tu_now_ms() < end) {
        tp_init(c);
        ssize_t r = recv(fd, req + n, sizeof(req) - n, MSG_DONTWAIT);
        if (r > 0)
            n += (size_t)r;
        usleep(1000);
    }
    tp_ws_req r;
    assert_true(tp_ws_req_parse(req, n, &r) > 0);
    char acc[29], resp[1024];
    tp_ws_accept(r.key.p, r.key.len, acc);
    snprintf(resp, sizeof(resp), answer, acc);
    raw_send(fd, resp, strlen(resp));
    if (fn)
        raw_send(fd, frames, fn);
    int rc = TP_PENDING;
    while (tu_now_ms() < end) {
        rc = tp_init(c);
        if (rc == TP_ACTIVE) {
            tp_msg m;
            rc = tp_read(c, &m);
        }
        if (rc < 0)
            break;
        usleep(1000);
    }
    assert_true(rc < 0);
    if (!strstr(err_msg(), why))
        fail_msg("client error '%s' lacks '%s'", err_msg(), why);
    tp_close(c);
    close(fd);
    close(ls);
}

static void test_bad_servers(void **st)
{
    (void)st;
    const char *fmt = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
                      "Upgrade\r\nSec-WebSocket-Protocol: %s\r\nSec-WebSocket-Accept: %s\r\n"
                      "\r\n";
    char a[512];
    snprintf(a, sizeof(a), fmt, "tr_json2", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=%.0s");
    client_fails(a, NULL, 0, "Sec-WebSocket-Accept 's3pPLMBiTxaQ9kYGzzhZRbK+xOo='");
    snprintf(a, sizeof(a), fmt, "rssl.rwf", "%s");
    client_fails(a, NULL, 0, "chose sub-protocol 'rssl.rwf', which was not offered");
    snprintf(a, sizeof(a), fmt, "tr_json2", "%s");
    uint8_t f[64];
    size_t n = frame(f, true, TP_WS_OP_TEXT, "[{}]", 4, true);
    client_fails(a, f, n, "masked server frame");
    n = frame(f, true, TP_WS_OP_CLOSE, "\x03\xf0Policy", 8, false);
    client_fails(a, f, n, "WS Code 1008 Policy Violation: Policy");
    client_fails("HTTP/1.1 404 Not Found\r\n\r\nno such thing%.0s", NULL, 0,
                 "status code 404 Not Found: no such thing");
}

static int setup(void **st)
{
    (void)st;
    tp_opts so, co;
    tu_opts(&so);
    so.ws_protocols = "rssl.rwf, rssl.json.v2";
    tu_opts(&co);
    co.conn_type = TP_CONN_WEBSOCKET;
    co.ws_protocols = "rssl.json.v2";
    tu_connect(&good, &so, &co);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    tu_close(&good);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_upgrades),
        cmocka_unit_test(test_bad_frames),
        cmocka_unit_test(test_bad_servers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
