/* Which failures of a connection attempt are final (err_is_final(): trying again cannot heal
 * them) and which may heal: a service name the resolver does not know, the server's
 * certificate refused by the check, a WebSocket upgrade refused for want of a common
 * sub-protocol are final; a connection refused is not. A failed channel keeps the mark: later
 * calls on it fail the same way. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_tlsutil.h"

#define ERRCAP 1024

/* A loopback port nothing listens on (bound, then closed). */
static void free_port(char *port, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t len = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(port, cap, "%u", ntohs(a.sin_port));
    close(fd);
}

/* tp_init until the client fails (or timeout_ms): its result. */
static int init_until_done(tp_channel *c, int timeout_ms)
{
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    int rc = TP_PENDING;
    while (tu_now_ms() < end) {
        rc = tp_init(c);
        if (rc == TP_ACTIVE || rc < 0)
            return rc;
        struct pollfd f = {.fd = tp_fd(c), .events = tp_events(c)};
        poll(&f, 1, 5);
    }
    return rc;
}

static void test_refused_heals(void **state)
{
    (void)state;
    char port[16];
    free_port(port, sizeof(port));
    tp_opts o;
    tu_opts(&o);
    o.port = port;
    tp_channel *c = NULL;
    int rc = tp_connect(&o, &c);
    if (rc == 0)
        rc = init_until_done(c, 5000);
    assert_int_equal(rc, TP_EFAIL);
    assert_false(err_is_final());
    tp_close(c);
}

static void test_unknown_service_final(void **state)
{
    (void)state;
    tp_opts o;
    tu_opts(&o);
    o.port = "no-such-service-rwfperf";
    tp_channel *c = NULL;
    assert_int_equal(tp_connect(&o, &c), TP_EFAIL);
    tt_assert_has(err_msg(), "cannot resolve 127.0.0.1:no-such-service-rwfperf");
    assert_true(err_is_final());
    /* another failure after it is judged on its own */
    err_set("something else");
    assert_false(err_is_final());
}

static void test_certificate_refused_final(void **state)
{
    (void)state;
    tp_opts so, co;
    tt_server_opts(&so, &tt.server);
    tt_client_opts(&co, "localhost", tt.other.cert_path);
    tu_pair p;
    int rs, rc;
    char se[ERRCAP], ce[ERRCAP];
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    assert_int_equal(rc, TP_EFAIL);
    tt_assert_has(ce, "TLS certificate check of localhost:");
    /* the channel keeps the reason and its mark */
    assert_int_equal(tp_init(p.c), TP_EFAIL);
    tt_assert_has(err_msg(), "TLS certificate check of localhost:");
    assert_true(err_is_final());
    tu_close(&p);
}

static void test_sub_protocol_refused_final(void **state)
{
    (void)state;
    tp_opts so, co;
    tu_opts(&so);
    so.ws_protocols = "rssl.rwf";
    tu_opts(&co);
    co.conn_type = TP_CONN_WEBSOCKET;
    co.ws_protocols = "rssl.json.v2";
    tu_pair p;
    int rs, rc;
    char se[ERRCAP], ce[ERRCAP];
    tt_try(&p, &so, &co, &rs, &rc, se, ce, ERRCAP);
    assert_int_equal(rc, TP_EFAIL);
    tt_assert_has(ce, "WebSocket upgrade refused by ");
    tt_assert_has(ce, "status code 400");
    assert_int_equal(tp_init(p.c), TP_EFAIL);
    assert_true(err_is_final());
    tu_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_heals),
        cmocka_unit_test(test_unknown_service_final),
        cmocka_unit_test(test_certificate_refused_final),
        cmocka_unit_test(test_sub_protocol_refused_final),
    };
    return cmocka_run_group_tests(tests, tt_group_setup, tt_group_teardown);
}
