/* Golden tests on the WebSocket captures of the original tools (tests/data/captures): for every
 * connection, the upgrade request and response are parsed and rebuilt verbatim with our
 * builders (sub-protocol lists rewritten from the captured command lines, the server's
 * choice, the accept key); every frame of both directions is decoded and compared with the
 * frame dump (header bytes, length, payload, permessage-deflate undone with our codec); the
 * in-place message reader returns the same messages whatever the read sizes; rssl.rwf frames
 * hold exactly one RIPC message each (ConnectReq, ConnectAck and key message parse), JSON
 * messages are arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "testsupport.h"
#include "tp_ripc.h"
#include "tp_ws.h"

typedef struct vec {
    const char *name; /* folder/run */
    uint16_t port;    /* 0: no pcap, frames rebuilt from the dumps (TLS relay) */
    int json;         /* the JSON sub-protocol */
    int hex;          /* text frames are dumped as hex (TransportPerf's binary JSON mode) */
    int refused;      /* the server answered 400 */
} vec;

static const vec vecs[] = {
    {"ws_rwf/ws_rwf", 14510, 0, 0, 0},
    {"ws_rwf/ws_rwf_post", 14511, 0, 0, 0},
    {"ws_rwf/ws_rwf_pack", 14517, 0, 0, 0},
    {"ws_rwf/ws_rwf_ping", 14514, 0, 0, 0},
    {"ws_rwf/ws_rwf_zlib", 14581, 0, 0, 0},
    {"ws_rwf/nego_noprovpl", 14520, 0, 0, 1},
    {"ws_rwf/nego_noconspl", 14521, 0, 0, 1},
    {"ws_json/ws_json", 14512, 1, 0, 0},
    {"ws_json/ws_json_post", 14513, 1, 0, 0},
    {"ws_json/ws_json_conv", 14518, 1, 0, 0},
    {"ws_json/ws_json_pack", 14516, 1, 0, 0},
    {"ws_json/ws_json_ping", 14515, 1, 0, 0},
    {"ws_json/ws_json_zlib", 14580, 1, 0, 0},
    {"ws_json/ws_srvpref_json", 14522, 1, 0, 0},
    {"ws_json/nego_json_to_rwfonly", 14563, 1, 0, 1},
    {"transportperf_ws/tp_ws", 15010, 0, 0, 0},
    {"transportperf_ws/tp_ws_pack", 15011, 0, 0, 0},
    {"transportperf_ws/tp_ws_reflect", 15013, 0, 0, 0},
    {"transportperf_ws/tp_ws_big", 15022, 0, 0, 0},
    {"transportperf_ws/tp_ws_json", 15012, 1, 1, 0},
    {"transportperf_ws/tp_ws_json_big", 15023, 1, 1, 0},
    {"tls/tls_ws_rwf_relay", 0, 0, 0, 0},
};

/* ---- the frame dumps ----------------------------------------------------------------- */

typedef struct dline {
    int http;
    char text[4096]; /* HTTP: the unescaped block */
    size_t text_len;
    char op[8];
    int fin, rsv;
    uint32_t len;
    uint8_t hdr[TP_WS_HDR_MAX];
    size_t hdr_len;
    const char *pay; /* after "| " (points into the file) */
    size_t pay_len;
} dline;

typedef struct dump {
    char *file;
    dline *l;
    size_t n;
} dump;

static size_t unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            out[o++] = s[i];
            continue;
        }
        char c = s[++i];
        out[o++] = c == 'r' ? '\r' : c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    out[o] = 0;
    return o;
}

/* Reads the dump of one direction, keeping the lines of the first connection it names. */
static void dump_read(const char *path, dump *d)
{
    uint8_t *f;
    size_t flen;
    memset(d, 0, sizeof(*d));
    if (ts_read_file(path, &f, &flen) < 0)
        fail_msg("cannot read %s", path);
    d->file = (char *)f;
    d->l = calloc(flen / 8 + 2, sizeof(dline));
    char conn[16] = "";
    for (char *ln = d->file; ln && *ln;) {
        char *nl = strchr(ln, '\n');
        if (nl)
            *nl = 0;
        char *p = ln;
        ln = nl ? nl + 1 : NULL;
        /* tokens before the direction: time and connection in either order */
        char c[16] = "";
        for (int k = 0; k < 3; k++) {
            while (*p == ' ')
                p++;
            if (strncmp(p, "conn", 4) == 0)
                sscanf(p, "%15s", c);
            if (strncmp(p, "c2s ", 4) == 0 || strncmp(p, "s2c ", 4) == 0)
                break;
            p = strchr(p, ' ');
            if (!p)
                break;
        }
        if (!p || (strncmp(p, "c2s ", 4) && strncmp(p, "s2c ", 4)))
            continue;
        if (!conn[0])
            snprintf(conn, sizeof(conn), "%s", c);
        if (strcmp(conn, c) != 0)
            continue;
        p += 4;
        dline *x = &d->l[d->n];
        if (strncmp(p, "HTTP \"", 6) == 0) {
            char *e = strrchr(p, '"');
            x->http = 1;
            x->text_len = unescape(p + 6, (size_t)(e - p - 6), x->text, sizeof(x->text));
            d->n++;
            continue;
        }
        char hdr[64];
        int num;
        if (sscanf(p, "#%d %7s fin=%d rsv=%d mask=%*s len=%u hdr=%63s", &num, x->op, &x->fin,
                   &x->rsv, &x->len, hdr) != 6)
            fail_msg("%s: cannot read the line '%.80s'", path, p);
        x->hdr_len = ts_hex(hdr, x->hdr, sizeof(x->hdr));
        char *bar = strstr(p, " | ");
        assert_non_null(bar);
        x->pay = bar + 3;
        x->pay_len = strlen(x->pay);
        d->n++;
    }
}

static void dump_free(dump *d)
{
    free(d->file);
    free(d->l);
}

/* ---- the upgrade --------------------------------------------------------------------- */

/* The -pl value of one command line of NAME.cmd (line 0: server, 1: client), "" if none. */
static void cmd_pl(const char *path, int which, char *out, size_t cap)
{
    uint8_t *f;
    size_t n;
    if (ts_read_file(path, &f, &n) < 0)
        fail_msg("cannot read %s", path);
    char *line = (char *)f;
    for (int i = 0; i < which && line; i++) {
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    out[0] = 0;
    char *pl = line ? strstr(line, " -pl ") : NULL;
    char *eol = line ? strchr(line, '\n') : NULL;
    if (pl && (!eol || pl < eol)) {
        pl += 5;
        char q = *pl == '\'' || *pl == '"' ? *pl++ : ' ';
        size_t k = 0;
        while (pl[k] && pl[k] != q && pl[k] != '\n' && k + 1 < cap) {
            out[k] = pl[k];
            k++;
        }
        out[k] = 0;
    }
    free(f);
}

typedef struct hs {
    tp_ws_req req;
    tp_ws_resp resp;
    size_t req_len, resp_len;
    tp_ws_pmd_params pmd;
} hs;

static void str_of(tp_ws_str s, char *out, size_t cap)
{
    snprintf(out, cap, "%.*s", (int)s.len, s.p ? s.p : "");
}

/* Parses and rebuilds both halves of the upgrade, checking them against the dumps. */
static void check_upgrade(const vec *v, const char *c2s, size_t c2n, const char *s2c, size_t s2n,
                          const dump *dc, const dump *ds, hs *h)
{
    char rel[256], path[512], srv_pl[256], cli_pl[256], want[TP_WS_PL_MAX], b[1024];
    snprintf(rel, sizeof(rel), "%s.cmd", v->name);
    snprintf(path, sizeof(path), "%s", ts_capture(rel));
    cmd_pl(path, 0, srv_pl, sizeof(srv_pl));
    cmd_pl(path, 1, cli_pl, sizeof(cli_pl));

    int rl = tp_ws_req_parse(c2s, c2n, &h->req);
    assert_true(rl > 0);
    h->req_len = (size_t)rl;
    assert_true(dc->n > 0 && dc->l[0].http);
    ts_assert_bytes_equal(c2s, h->req_len, dc->l[0].text, dc->l[0].text_len);
    assert_int_equal(tp_ws_req_check(&h->req), 0);
    /* the client's list as the client rewrites it, and the request rebuilt verbatim */
    assert_int_equal(tp_ws_pl_rewrite(cli_pl, false, want, sizeof(want)), 0);
    char proto[128], key[64], host[128], port[16];
    str_of(h->req.protocol, proto, sizeof(proto));
    assert_string_equal(proto, want);
    str_of(h->req.key, key, sizeof(key));
    str_of(h->req.host, host, sizeof(host));
    char *colon = strrchr(host, ':');
    assert_non_null(colon);
    *colon = 0;
    snprintf(port, sizeof(port), "%s", colon + 1);
    int n = tp_ws_req_build(b, sizeof(b), host, port, key, proto, h->req.extensions.p != NULL);
    ts_assert_bytes_equal(b, (size_t)n, c2s, h->req_len);

    int sl = tp_ws_resp_parse(s2c, s2n, &h->resp);
    assert_true(sl > 0);
    h->resp_len = (size_t)sl;
    assert_true(ds->n > 0 && ds->l[0].http);
    ts_assert_bytes_equal(s2c, h->resp_len, ds->l[0].text, ds->l[0].text_len);
    /* the server's choice from its own list */
    assert_int_equal(tp_ws_pl_rewrite(srv_pl, true, want, sizeof(want)), 0);
    const char *name;
    size_t nl;
    tp_ws_proto p = tp_ws_pl_select(want, h->req.protocol.p, h->req.protocol.len, &name, &nl);
    if (v->refused) {
        assert_int_equal(h->resp.status, 400);
        assert_int_equal(p, TP_WS_PROTO_NONE);
        n = tp_ws_resp_400(b, sizeof(b), NULL);
        ts_assert_bytes_equal(b, (size_t)n, s2c, h->resp_len);
        return;
    }
    assert_int_equal(h->resp.status, 101);
    assert_int_equal(p, v->json ? TP_WS_PROTO_JSON2 : TP_WS_PROTO_RWF);
    ts_assert_bytes_equal(name, nl, h->resp.protocol.p, h->resp.protocol.len);
    char acc[29], ext[128] = "";
    tp_ws_accept(key, strlen(key), acc);
    ts_assert_bytes_equal(acc, 28, h->resp.accept.p, h->resp.accept.len);
    memset(&h->pmd, 0, sizeof(h->pmd));
    if (h->resp.extensions.p) {
        assert_int_equal(tp_ws_pmd_parse(h->resp.extensions.p, h->resp.extensions.len, &h->pmd), 0);
        assert_true(h->pmd.on);
        tp_ws_pmd_format(&h->pmd, ext, sizeof(ext));
    }
    n = tp_ws_resp_101(b, sizeof(b), name, nl, acc, ext[0] ? ext : NULL);
    ts_assert_bytes_equal(b, (size_t)n, s2c, h->resp_len);
}

/* ---- frames -------------------------------------------------------------------------- */

static void hex_of(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

/* Compares one frame's payload (unmasked, inflated if it was compressed) with its line. */
static void check_payload(const vec *v, const dline *l, const uint8_t *p, size_t n)
{
    static char hx[2 * 140000 + 1];
    if (strcmp(l->op, "CLOSE") == 0) {
        const char *h = strstr(l->pay, "hex=");
        assert_non_null(h);
        hex_of(p, n, hx);
        assert_string_equal(h + 4, hx);
        return;
    }
    if (v->json && !v->hex && (strcmp(l->op, "TEXT") == 0 || strcmp(l->op, "CONT") == 0)) {
        ts_assert_bytes_equal(p, n, l->pay, l->pay_len);
        return;
    }
    assert_true(n <= 140000);
    hex_of(p, n, hx);
    ts_assert_bytes_equal(hx, 2 * n, l->pay, l->pay_len);
}

/* Walks the frames of one direction after the upgrade, comparing each with the dump.
 * Returns the number of dump lines matched. */
static size_t walk_frames(const vec *v, const uint8_t *s, size_t n, const dump *d, bool server,
                          const tp_ws_pmd_params *pp)
{
    static uint8_t pay[140000], dec[400000];
    tp_ws_pmd z;
    if (pp->on)
        assert_int_equal(tp_ws_pmd_init(&z, pp, server, 6), 0);
    size_t off = 0, li = 1;
    while (li < d->n) {
        tp_ws_hdr h;
        int hl = tp_ws_hdr_parse(s + off, n - off, &h);
        if (hl <= 0 || h.len > n - off - (size_t)hl)
            break; /* the capture ends inside a frame */
        const dline *l = &d->l[li];
        ts_assert_bytes_equal(s + off, (size_t)hl, l->hdr, l->hdr_len);
        assert_int_equal(h.len, l->len);
        assert_int_equal(h.fin, l->fin);
        assert_int_equal(h.rsv, l->rsv);
        assert_int_equal(h.masked, server);
        assert_true(h.len <= sizeof(pay));
        memcpy(pay, s + off + hl, h.len);
        if (h.masked)
            tp_ws_mask(pay, h.len, h.key, 0);
        if (h.rsv & 4) {
            bool big;
            int m = tp_ws_pmd_inflate(&z, pay, (uint32_t)h.len, dec, sizeof(dec), &big);
            assert_true(m >= 0);
            check_payload(v, l, dec, (size_t)m);
        } else {
            check_payload(v, l, pay, h.len);
        }
        off += (size_t)hl + h.len;
        li++;
    }
    if (pp->on)
        tp_ws_pmd_free(&z);
    return li - 1;
}

/* Reads the messages with the in-place reader in chunks of step bytes; checks the RIPC or
 * JSON framing inside. Returns the number of data messages. */
static size_t read_messages(const vec *v, const uint8_t *s, size_t n, bool server, uint32_t step,
                            const tp_ws_pmd_params *pp)
{
    static uint8_t buf[400000], dec[400000];
    tp_ws_rx rx;
    tp_ws_rx_init(&rx, server, sizeof(buf));
    rx.deflate = pp->on;
    rx.utf8 = !v->hex;
    tp_ws_pmd z;
    if (pp->on)
        assert_int_equal(tp_ws_pmd_init(&z, pp, server, 6), 0);
    uint32_t rd = 0, wr = 0;
    size_t fed = 0, msgs = 0;
    for (;;) {
        tp_ws_ev e;
        int rc = tp_ws_rx_next(&rx, buf, &rd, wr, &e);
        if (rc < 0)
            fail_msg("%s: reader failed: %s", v->name, err_msg());
        if (rc == 1) {
            if (e.kind != TP_WS_EV_MSG)
                continue;
            const uint8_t *m = e.data;
            uint32_t ml = e.len;
            if (e.compressed) {
                bool big;
                int k = tp_ws_pmd_inflate(&z, m, ml, dec, sizeof(dec), &big);
                assert_true(k >= 0);
                assert_int_equal(tp_utf8_step(0, dec, (size_t)k), TP_UTF8_OK);
                m = dec;
                ml = (uint32_t)k;
            }
            if (v->json) {
                assert_int_equal(e.opcode, TP_WS_OP_TEXT);
                assert_true(ml >= 2 && m[0] == '[' && m[ml - 1] == ']');
            } else {
                assert_int_equal(e.opcode, TP_WS_OP_BINARY);
                assert_int_equal(e.frames, 1);
                /* one whole RIPC message, its length first */
                assert_true(ml >= 3);
                assert_int_equal((uint32_t)m[0] << 8 | m[1], ml);
                if (msgs == 0 && server) {
                    tp_ripc_req r;
                    assert_int_equal(tp_ripc_req_parse(m, ml, &r), 0);
                } else if (msgs == 0) {
                    tp_ripc_ack a;
                    assert_int_equal(tp_ripc_ack_parse(m, ml, 1, &a), 0);
                } else if (msgs == 1 && server) {
                    uint64_t k;
                    int has;
                    assert_int_equal(tp_ripc_key_parse(m, ml, &k, &has), 0);
                }
            }
            msgs++;
            continue;
        }
        if (fed == n)
            break;
        uint32_t keep = tp_ws_rx_keep(&rx, rd);
        memmove(buf, buf + keep, wr - keep);
        wr -= keep;
        rd -= keep;
        tp_ws_rx_moved(&rx, keep);
        size_t k = step < n - fed ? step : n - fed;
        assert_true(wr + k <= sizeof(buf));
        memcpy(buf + wr, s + fed, k);
        wr += (uint32_t)k;
        fed += k;
    }
    if (pp->on)
        tp_ws_pmd_free(&z);
    return msgs;
}

/* Rebuilds a direction's byte stream from its dump (for the TLS relay, whose pcap holds only
 * TLS records): the HTTP block, then each frame's header and payload, masked again. */
static void stream_from_dump(const dump *d, ts_bytes *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < d->n; i++) {
        const dline *l = &d->l[i];
        if (l->http) {
            ts_bytes_append(out, l->text, l->text_len);
            continue;
        }
        ts_bytes_append(out, l->hdr, l->hdr_len);
        uint8_t *p = malloc(l->len + 1);
        size_t pn = ts_hex(l->pay, p, l->len + 1);
        assert_int_equal(pn, l->len);
        tp_ws_hdr h;
        assert_true(tp_ws_hdr_parse(l->hdr, l->hdr_len, &h) > 0);
        if (h.masked)
            tp_ws_mask(p, pn, h.key, 0);
        ts_bytes_append(out, p, pn);
        free(p);
    }
}

static void check_vec(const vec *v)
{
    char rel[256], path[512];
    dump dc, ds;
    snprintf(rel, sizeof(rel), "%s.c2s.txt", v->name);
    dump_read(ts_capture(rel), &dc);
    snprintf(rel, sizeof(rel), "%s.s2c.txt", v->name);
    dump_read(ts_capture(rel), &ds);
    ts_tcp_streams tcp;
    memset(&tcp, 0, sizeof(tcp));
    if (v->port) {
        snprintf(rel, sizeof(rel), "%s.pcap", v->name);
        snprintf(path, sizeof(path), "%s", ts_capture(rel));
        if (ts_pcap_tcp_streams(path, v->port, &tcp) < 0)
            fail_msg("%s: cannot read the pcap", v->name);
    } else {
        stream_from_dump(&dc, &tcp.client_to_server);
        stream_from_dump(&ds, &tcp.server_to_client);
    }
    hs h;
    check_upgrade(v, (const char *)tcp.client_to_server.data, tcp.client_to_server.len,
                  (const char *)tcp.server_to_client.data, tcp.server_to_client.len, &dc, &ds, &h);
    if (!v->refused) {
        const uint8_t *c = tcp.client_to_server.data + h.req_len;
        size_t cn = tcp.client_to_server.len - h.req_len;
        const uint8_t *s = tcp.server_to_client.data + h.resp_len;
        size_t sn = tcp.server_to_client.len - h.resp_len;
        size_t mc = walk_frames(v, c, cn, &dc, true, &h.pmd);
        size_t ms = walk_frames(v, s, sn, &ds, false, &h.pmd);
        if (mc != dc.n - 1 || ms != ds.n - 1)
            fail_msg("%s: matched %zu of %zu c2s and %zu of %zu s2c frames", v->name, mc, dc.n - 1,
                     ms, ds.n - 1);
        assert_true(mc + ms > 0);
        static const uint32_t steps[] = {1 << 20, 1, 97, 6000};
        size_t first_c = 0, first_s = 0;
        for (size_t k = 0; k < 4; k++) {
            if (steps[k] == 1 && cn + sn > 200000)
                continue; /* byte by byte only on the small captures */
            size_t nc = read_messages(v, c, cn, true, steps[k], &h.pmd);
            size_t ns = read_messages(v, s, sn, false, steps[k], &h.pmd);
            if (k == 0) {
                first_c = nc;
                first_s = ns;
            }
            assert_int_equal(nc, first_c);
            assert_int_equal(ns, first_s);
        }
        printf("%-34s %4zu c2s and %5zu s2c frames, %zu + %zu messages\n", v->name, mc, ms, first_c,
               first_s);
    } else {
        printf("%-34s refused with 400\n", v->name);
    }
    if (v->port)
        ts_tcp_streams_free(&tcp);
    else {
        ts_bytes_free(&tcp.client_to_server);
        ts_bytes_free(&tcp.server_to_client);
    }
    dump_free(&dc);
    dump_free(&ds);
}

static void test_captures(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        check_vec(&vecs[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_captures)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
