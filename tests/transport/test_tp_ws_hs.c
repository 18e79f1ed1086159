/* The WebSocket upgrade pieces: SHA-1/base64 and the accept key, sub-protocol lists and the
 * server's choice, the request and response builders (verbatim as the ETA tools send them)
 * and parsers, and the permessage-deflate parameters. */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "testsupport.h"
#include "tp_ws.h"

static void hexof(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_sha1(void **st)
{
    (void)st;
    uint8_t d[20];
    char h[41];
    tp_sha1("", 0, d);
    hexof(d, 20, h);
    assert_string_equal(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    tp_sha1("abc", 3, d);
    hexof(d, 20, h);
    assert_string_equal(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    tp_sha1(m, strlen(m), d);
    hexof(d, 20, h);
    assert_string_equal(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    /* 64 bytes exactly: the padding takes a second block */
    char a64[65];
    memset(a64, 'a', 64);
    tp_sha1(a64, 64, d);
    hexof(d, 20, h);
    assert_string_equal(h, "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

static void test_base64_accept(void **st)
{
    (void)st;
    char b[64];
    assert_int_equal(tp_base64((const uint8_t *)"f", 1, b), 4);
    assert_string_equal(b, "Zg==");
    tp_base64((const uint8_t *)"fo", 2, b);
    assert_string_equal(b, "Zm8=");
    tp_base64((const uint8_t *)"foobar", 6, b);
    assert_string_equal(b, "Zm9vYmFy");
    char acc[29];
    /* RFC 6455 section 1.3 */
    tp_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", 24, acc);
    assert_string_equal(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    /* the ws_rwf capture of the original tools */
    tp_ws_accept("0N5PgTOCdBceOy+w1XlaBg==", 24, acc);
    assert_string_equal(acc, "wVw9ktuiR0gcttehc8ubpLSEySI=");
    uint8_t rnd[16];
    for (int i = 0; i < 16; i++)
        rnd[i] = (uint8_t)(i * 17);
    char key[25];
    tp_ws_key_make(rnd, key);
    assert_int_equal(strlen(key), 24);
    assert_string_equal(key + 22, "==");
}

typedef struct rw {
    const char *in;
    bool server;
    const char *out; /* NULL: refused */
} rw;

static void test_pl_rewrite(void **st)
{
    (void)st;
    static const rw cases[] = {
        {"rssl.rwf", false, "rssl.rwf"},
        {"rssl.json.v2", false, "tr_json2"},
        {"rssl.rwf, rssl.json.v2", false, "rssl.rwf, tr_json2"},
        {"rssl.rwf,rssl.json.v2", false, "rssl.rwf, tr_json2"},
        {" rssl.json.v2\trssl.rwf ", false, "tr_json2, rssl.rwf"},
        {"tr_json2", false, "tr_json2"},
        {"tr_rwf", false, "rssl.rwf"},
        {"rssl.rwf rssl.rwf,tr_rwf", false, "rssl.rwf"},
        {"tr_json2, rssl.json.v2", false, "tr_json2"},
        {"", false, ""},
        {", ,", false, ""},
        {"rssl.rwf, rssl.json.v2", true, "rssl.rwf, tr_json2, rssl.json.v2"},
        {"rssl.json.v2, rssl.rwf", true, "tr_json2, rssl.json.v2, rssl.rwf"},
        {"tr_json2", true, "tr_json2, rssl.json.v2"},
        {"rssl.rwf", true, "rssl.rwf"},
        {"bogus", false, NULL},
        {"rssl.rwfX", true, NULL},
        {"rssl.rwf, rssl.json", false, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[TP_WS_PL_MAX];
        int rc = tp_ws_pl_rewrite(cases[i].in, cases[i].server, out, sizeof(out));
        if (!cases[i].out) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err_msg(), "unknown WebSocket sub-protocol"));
            continue;
        }
        assert_int_equal(rc, 0);
        assert_string_equal(out, cases[i].out);
    }
    char out[TP_WS_PL_MAX];
    assert_int_equal(tp_ws_pl_rewrite(NULL, true, out, sizeof(out)), 0);
    assert_string_equal(out, "");
    assert_int_equal(tp_ws_pl_rewrite("bogus", true, out, sizeof(out)), -1);
    assert_non_null(strstr(err_msg(), "'bogus'"));
}

typedef struct sel {
    const char *server_pl; /* as given to -pl */
    const char *offer;     /* client's header value */
    tp_ws_proto want;
    const char *name;
} sel;

static void test_pl_select(void **st)
{
    (void)st;
    static const sel cases[] = {
        /* ws_srvpref_json: the server's order wins, the client's spelling is echoed */
        {"rssl.json.v2, rssl.rwf", "rssl.rwf, tr_json2", TP_WS_PROTO_JSON2, "tr_json2"},
        {"rssl.rwf, rssl.json.v2", "rssl.rwf, tr_json2", TP_WS_PROTO_RWF, "rssl.rwf"},
        {"rssl.rwf, rssl.json.v2", "tr_json2", TP_WS_PROTO_JSON2, "tr_json2"},
        {"rssl.rwf, rssl.json.v2", "rssl.json.v2", TP_WS_PROTO_JSON2, "rssl.json.v2"},
        {"rssl.rwf, rssl.json.v2", "rssl.rwf", TP_WS_PROTO_RWF, "rssl.rwf"},
        /* nego_json_to_rwfonly */
        {"rssl.rwf", "tr_json2", TP_WS_PROTO_NONE, NULL},
        /* nego_noconspl: empty offer; nego_noprovpl: empty server list */
        {"rssl.rwf, rssl.json.v2", "", TP_WS_PROTO_NONE, NULL},
        {"", "rssl.rwf", TP_WS_PROTO_NONE, NULL},
        {"rssl.rwf", "rssl.rwfx, xrssl.rwf", TP_WS_PROTO_NONE, NULL},
        {"rssl.rwf", "chat, rssl.rwf", TP_WS_PROTO_RWF, "rssl.rwf"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char list[TP_WS_PL_MAX];
        assert_int_equal(tp_ws_pl_rewrite(cases[i].server_pl, true, list, sizeof(list)), 0);
        const char *name;
        size_t nl;
        tp_ws_proto p = tp_ws_pl_select(list, cases[i].offer, strlen(cases[i].offer), &name, &nl);
        assert_int_equal(p, cases[i].want);
        if (cases[i].name) {
            assert_int_equal(nl, strlen(cases[i].name));
            assert_memory_equal(name, cases[i].name, nl);
        } else {
            assert_null(name);
        }
    }
}

static const char cap_req[] = "GET /WebSocket HTTP/1.1\r\n"
                              "Upgrade: websocket\r\n"
                              "Connection: keep-alive, Upgrade\r\n"
                              "Host: localhost:14510\r\n"
                              "Sec-WebSocket-Key: 0N5PgTOCdBceOy+w1XlaBg==\r\n"
                              "Sec-WebSocket-Version: 13\r\n"
                              "Sec-WebSocket-Protocol: rssl.rwf\r\n"
                              "User-Agent: Mozilla/5.0\r\n"
                              "\r\n";

static const char cap_resp[] = "HTTP/1.1 101 Switching Protocols\r\n"
                               "Upgrade: websocket\r\n"
                               "Connection: Upgrade\r\n"
                               "Sec-WebSocket-Protocol: rssl.rwf\r\n"
                               "Sec-WebSocket-Accept: wVw9ktuiR0gcttehc8ubpLSEySI=\r\n"
                               "\r\n";

static void test_build_verbatim(void **st)
{
    (void)st;
    char b[1024];
    int n = tp_ws_req_build(b, sizeof(b), "localhost", "14510",
                            "0N5PgTOCdBceOy+w1XlaBg==", "rssl.rwf", false);
    assert_int_equal(n, (int)strlen(cap_req));
    assert_string_equal(b, cap_req);
    /* ws_json_zlib: the deflate offer sits before User-Agent */
    n = tp_ws_req_build(b, sizeof(b), "localhost", "14580", "ZWdLbGIyYQLD7512KB5wdA==", "tr_json2",
                        true);
    assert_string_equal(b, "GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: "
                           "keep-alive, Upgrade\r\nHost: localhost:14580\r\nSec-WebSocket-Key: "
                           "ZWdLbGIyYQLD7512KB5wdA==\r\nSec-WebSocket-Version: "
                           "13\r\nSec-WebSocket-Protocol: tr_json2\r\nSec-WebSocket-Extensions: "
                           "permessage-deflate;server_no_context_takeover\r\nUser-Agent: "
                           "Mozilla/5.0\r\n\r\n");
    /* nego_noconspl: no -pl gives an empty header */
    tp_ws_req_build(b, sizeof(b), "localhost", "14521", "2mnhxSs1yS38m50RaX/TVg==", "", false);
    assert_non_null(strstr(b, "\r\nSec-WebSocket-Protocol: \r\n"));
    assert_int_equal(tp_ws_req_build(b, 100, "localhost", "1", "k", "rssl.rwf", false), -1);

    n = tp_ws_resp_101(b, sizeof(b), "rssl.rwf", 8, "wVw9ktuiR0gcttehc8ubpLSEySI=", NULL);
    assert_int_equal(n, (int)strlen(cap_resp));
    assert_string_equal(b, cap_resp);
    tp_ws_resp_101(b, sizeof(b), "tr_json2", 8,
                   "AuQyEtlTMh5UrQdkeDuTdEu2G+4=", "permessage-deflate;server_no_context_takeover");
    assert_string_equal(b, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
                           "Upgrade\r\nSec-WebSocket-Protocol: tr_json2\r\nSec-WebSocket-"
                           "Extensions: permessage-deflate;server_no_context_takeover\r\nSec-"
                           "WebSocket-Accept: AuQyEtlTMh5UrQdkeDuTdEu2G+4=\r\n\r\n");
    n = tp_ws_resp_400(b, sizeof(b), NULL);
    assert_string_equal(b, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html; "
                           "charset=UTF-8\r\nConnection: close\r\n\r\n");
    tp_ws_resp_400(b, sizeof(b), "no common sub-protocol");
    assert_string_equal(b, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html; "
                           "charset=UTF-8\r\nConnection: close\r\n\r\nno common sub-protocol\r\n");
}

static void assert_view(tp_ws_str s, const char *want)
{
    assert_non_null(s.p);
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(s.p, want, s.len);
}

static void test_parse_request(void **st)
{
    (void)st;
    tp_ws_req r;
    size_t n = strlen(cap_req);
    assert_int_equal(tp_ws_req_parse(cap_req, n, &r), (int)n);
    assert_view(r.method, "GET");
    assert_view(r.target, "/WebSocket");
    assert_int_equal(r.http_minor, 1);
    assert_view(r.host, "localhost:14510");
    assert_view(r.key, "0N5PgTOCdBceOy+w1XlaBg==");
    assert_view(r.protocol, "rssl.rwf");
    assert_view(r.connection, "keep-alive, Upgrade");
    assert_true(r.upgrade_ws && r.connection_upg && r.protocol_seen);
    assert_null(r.extensions.p);
    assert_int_equal(tp_ws_req_check(&r), 0);
    /* every prefix is incomplete, never an error; data after the block is not counted */
    for (size_t k = 0; k < n; k++)
        assert_int_equal(tp_ws_req_parse(cap_req, k, &r), 0);
    char more[600];
    snprintf(more, sizeof(more), "%s\x82\x83zz", cap_req);
    assert_int_equal(tp_ws_req_parse(more, strlen(more), &r), (int)n);
    /* bare LF line ends, lower-case names, an empty protocol header */
    const char *lf = "GET /WebSocket HTTP/1.1\nupgrade: WebSocket\nconnection: upgrade\n"
                     "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\nsec-websocket-version: 13\n"
                     "sec-websocket-protocol: \n\n";
    assert_int_equal(tp_ws_req_parse(lf, strlen(lf), &r), (int)strlen(lf));
    assert_int_equal(tp_ws_req_check(&r), 0);
    assert_true(r.protocol_seen);
    assert_int_equal(r.protocol.len, 0);
}

typedef struct bad {
    const char *req;
    const char *why; /* expected in err_msg() */
    int parse_fails; /* 1: the parser refuses; 0: the check does */
} bad;

static void test_bad_requests(void **st)
{
    (void)st;
    static const bad cases[] = {
        {"GET  /WebSocket HTTP/1.1\r\n\r\n", "bad HTTP request line", 1},
        {"GET /WebSocket HTTP/2.0\r\n\r\n", "bad HTTP request line", 1},
        {"GET /WebSocket\r\n\r\n", "bad HTTP request line", 1},
        {"\x16\x03\x01\x02\x01\r\n\r\n", "bad HTTP request line", 1},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade websocket\r\n\r\n", "not 'name: value'", 1},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\n folded\r\n\r\n", "white space", 1},
        {"GET /WebSocket HTTP/1.1\r\nX: a\x01b\r\n\r\n", "control character", 1},
        {"POST /WebSocket HTTP/1.1\r\n\r\n", "is not GET", 0},
        {"GET /other HTTP/1.1\r\n\r\n", "is not /WebSocket", 0},
        {"GET /WebSocket HTTP/1.0\r\n\r\n", "needs HTTP/1.1", 0},
        {"GET /WebSocket HTTP/1.1\r\nConnection: Upgrade\r\n\r\n", "Upgrade: websocket", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", "Connection: Upgrade", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
         "no Sec-WebSocket-Version", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Version: 8\r\n\r\n",
         "is not 13", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Version: 13\r\n\r\n",
         "no Sec-WebSocket-Key", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short==\r\n\r\n",
         "base64 of 16 bytes", 0},
        {"GET /WebSocket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
         "more than one", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tp_ws_req r;
        int rc = tp_ws_req_parse(cases[i].req, strlen(cases[i].req), &r);
        if (cases[i].parse_fails) {
            assert_int_equal(rc, -1);
        } else {
            assert_int_equal(rc, (int)strlen(cases[i].req));
            assert_int_equal(tp_ws_req_check(&r), -1);
        }
        if (!strstr(err_msg(), cases[i].why))
            fail_msg("case %zu: '%s' lacks '%s'", i, err_msg(), cases[i].why);
    }
    /* a block that never ends is refused once it passes the limit */
    static char big[TP_WS_HTTP_MAX + 10];
    memcpy(big, "GET /WebSocket HTTP/1.1\r\nX: ", 28);
    memset(big + 28, 'a', sizeof(big) - 28);
    tp_ws_req r;
    assert_int_equal(tp_ws_req_parse(big, TP_WS_HTTP_MAX - 1, &r), 0);
    assert_int_equal(tp_ws_req_parse(big, sizeof(big), &r), -1);
    assert_non_null(strstr(err_msg(), "longer than"));
}

static void test_parse_response(void **st)
{
    (void)st;
    tp_ws_resp r;
    size_t n = strlen(cap_resp);
    assert_int_equal(tp_ws_resp_parse(cap_resp, n, &r), (int)n);
    assert_int_equal(r.status, 101);
    assert_view(r.reason, "Switching Protocols");
    assert_view(r.accept, "wVw9ktuiR0gcttehc8ubpLSEySI=");
    assert_view(r.protocol, "rssl.rwf");
    assert_true(r.upgrade_ws && r.connection_upg);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(tp_ws_resp_parse(cap_resp, k, &r), 0);
    const char *r400 = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/html; charset=UTF-8\r\n"
                       "Connection: close\r\n\r\n";
    assert_int_equal(tp_ws_resp_parse(r400, strlen(r400), &r), (int)strlen(r400));
    assert_int_equal(r.status, 400);
    assert_false(r.connection_upg);
    assert_int_equal(tp_ws_resp_parse("HTTP/1.1 1O1 x\r\n\r\n", 18, &r), -1);
    assert_int_equal(tp_ws_resp_parse("RIPC\r\n\r\n", 8, &r), -1);
    assert_non_null(strstr(err_msg(), "bad HTTP status line"));
}

static void test_pmd_params(void **st)
{
    (void)st;
    tp_ws_pmd_params p;
    const char *v = "permessage-deflate;server_no_context_takeover";
    assert_int_equal(tp_ws_pmd_parse(v, strlen(v), &p), 0);
    assert_true(p.on && p.server_no_ctx && !p.client_no_ctx);
    char out[128];
    assert_int_equal(tp_ws_pmd_format(&p, out, sizeof(out)), (int)strlen(v));
    assert_string_equal(out, v);
    v = "x-webkit-deflate-frame, permessage-deflate; client_max_window_bits; "
        "server_max_window_bits=10; client_no_context_takeover";
    assert_int_equal(tp_ws_pmd_parse(v, strlen(v), &p), 0);
    assert_true(p.on && p.client_no_ctx && !p.server_no_ctx);
    assert_int_equal(p.client_max_window, 255);
    assert_int_equal(p.server_max_window, 10);
    tp_ws_pmd_format(&p, out, sizeof(out));
    assert_string_equal(out, "permessage-deflate;client_no_context_takeover;server_max_window_"
                             "bits=10");
    v = "x-other; a=1";
    assert_int_equal(tp_ws_pmd_parse(v, strlen(v), &p), 0);
    assert_false(p.on);
    const char *bads[] = {"permessage-deflate;foo", "permessage-deflate;server_max_window_bits=7",
                          "permessage-deflate;server_max_window_bits",
                          "permessage-deflate;server_no_context_takeover;server_no_context_"
                          "takeover",
                          "permessage-deflate;server_no_context_takeover=1"};
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
        assert_int_equal(tp_ws_pmd_parse(bads[i], strlen(bads[i]), &p), -1);
}

static void test_tokens(void **st)
{
    (void)st;
    assert_true(tp_ws_has_token("keep-alive, Upgrade", 19, "upgrade"));
    assert_false(tp_ws_has_token("keep-alive, Upgrades", 20, "upgrade"));
    assert_true(tp_ws_proto_of("tr_json2", 8) == TP_WS_PROTO_JSON2);
    assert_true(tp_ws_proto_of("rssl.rwf ", 9) == TP_WS_PROTO_NONE);
    assert_string_equal(tp_ws_proto_name(TP_WS_PROTO_JSON2), "rssl.json.v2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha1),           cmocka_unit_test(test_base64_accept),
        cmocka_unit_test(test_pl_rewrite),     cmocka_unit_test(test_pl_select),
        cmocka_unit_test(test_build_verbatim), cmocka_unit_test(test_parse_request),
        cmocka_unit_test(test_bad_requests),   cmocka_unit_test(test_parse_response),
        cmocka_unit_test(test_pmd_params),     cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
