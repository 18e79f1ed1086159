/* The WebSocket upgrade: sub-protocol lists, the HTTP request and response (builders and
 * non-allocating parsers) and the permessage-deflate parameters. */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "tp_ws.h"

/* ---- small text helpers -------------------------------------------------------------- */

static inline char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static bool ieq(const char *a, size_t alen, const char *b)
{
    size_t bl = strlen(b);
    if (alen != bl)
        return false;
    for (size_t i = 0; i < bl; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

static inline bool is_ws(char c)
{
    return c == ' ' || c == '\t';
}

/* RFC 7230 tchar */
static bool is_tchar(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* Splits the next token at *pos out of s[0, len) on any of the separators; skips leading
 * separators. Returns false when none is left. */
static bool next_token(const char *s, size_t len, size_t *pos, const char *seps, const char **tok,
                       size_t *tlen)
{
    size_t i = *pos;
    while (i < len && strchr(seps, s[i]))
        i++;
    if (i >= len) {
        *pos = i;
        return false;
    }
    size_t st = i;
    while (i < len && !strchr(seps, s[i]))
        i++;
    *tok = s + st;
    *tlen = i - st;
    *pos = i;
    return true;
}

bool tp_ws_has_token(const char *list, size_t len, const char *tok)
{
    size_t pos = 0, tl;
    const char *t;
    while (list && next_token(list, len, &pos, ", \t", &t, &tl))
        if (ieq(t, tl, tok))
            return true;
    return false;
}

/* ---- sub-protocols ------------------------------------------------------------------- */

tp_ws_proto tp_ws_proto_of(const char *name, size_t len)
{
    if ((len == 8 && memcmp(name, "rssl.rwf", 8) == 0) ||
        (len == 6 && memcmp(name, "tr_rwf", 6) == 0))
        return TP_WS_PROTO_RWF;
    if ((len == 12 && memcmp(name, "rssl.json.v2", 12) == 0) ||
        (len == 8 && memcmp(name, "tr_json2", 8) == 0))
        return TP_WS_PROTO_JSON2;
    return TP_WS_PROTO_NONE;
}

const char *tp_ws_proto_name(tp_ws_proto p)
{
    return p == TP_WS_PROTO_RWF ? "rssl.rwf" : p == TP_WS_PROTO_JSON2 ? "rssl.json.v2" : "none";
}

int tp_ws_pl_rewrite(const char *pl, bool server, char *out, size_t cap)
{
    if (cap < TP_WS_PL_MAX)
        return err_set("sub-protocol list: %zu bytes of room, %d needed", cap, TP_WS_PL_MAX);
    out[0] = 0;
    if (!pl)
        return 0;
    size_t pos = 0, tl, len = strlen(pl);
    const char *t;
    bool rwf = false, json = false;
    while (next_token(pl, len, &pos, ", \t", &t, &tl)) {
        tp_ws_proto p = tp_ws_proto_of(t, tl);
        if (p == TP_WS_PROTO_NONE)
            return err_set("unknown WebSocket sub-protocol '%.*s' in '%s' (known: rssl.rwf, "
                           "rssl.json.v2, tr_json2, tr_rwf)",
                           (int)(tl > 64 ? 64 : tl), t, pl);
        if ((p == TP_WS_PROTO_RWF && rwf) || (p == TP_WS_PROTO_JSON2 && json))
            continue;
        if (out[0])
            strcat(out, ", ");
        if (p == TP_WS_PROTO_RWF) {
            strcat(out, "rssl.rwf");
            rwf = true;
        } else {
            strcat(out, server ? "tr_json2, rssl.json.v2" : "tr_json2");
            json = true;
        }
    }
    return 0;
}

tp_ws_proto tp_ws_pl_select(const char *server_list, const char *offer, size_t offer_len,
                            const char **name, size_t *name_len)
{
    size_t pos = 0, tl, len = server_list ? strlen(server_list) : 0;
    const char *t;
    *name = NULL;
    *name_len = 0;
    while (next_token(server_list, len, &pos, ", \t", &t, &tl)) {
        size_t op = 0, ol;
        const char *o;
        while (offer && next_token(offer, offer_len, &op, ", \t", &o, &ol)) {
            if (ol == tl && memcmp(o, t, tl) == 0) {
                *name = t;
                *name_len = tl;
                return tp_ws_proto_of(t, tl);
            }
        }
    }
    return TP_WS_PROTO_NONE;
}

/* ---- HTTP parsing -------------------------------------------------------------------- */

/* Finds the end of the header block: returns its length (through the empty line), 0 when
 * not complete, -1 when too long. Lines end with CRLF or a bare LF. */
static int block_end(const char *buf, size_t len)
{
    size_t lim = len < TP_WS_HTTP_MAX ? len : TP_WS_HTTP_MAX;
    for (size_t i = 0; i < lim; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return (int)(i + 2);
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return (int)(i + 3);
    }
    if (len >= TP_WS_HTTP_MAX)
        return err_set("HTTP header block is longer than %d bytes", TP_WS_HTTP_MAX);
    return 0;
}

/* The line starting at *pos within [0, end): sets *ls and *ll (without the line end) and moves
 * *pos past it. */
static void take_line(const char *buf, size_t end, size_t *pos, const char **ls, size_t *ll)
{
    size_t i = *pos;
    while (i < end && buf[i] != '\n')
        i++;
    size_t e = i;
    if (e > *pos && buf[e - 1] == '\r')
        e--;
    *ls = buf + *pos;
    *ll = e - *pos;
    *pos = i < end ? i + 1 : i;
}

/* Header field callback target: name/value views. */
typedef void (*field_fn)(void *ctx, const char *n, size_t nl, const char *v, size_t vl);

/* Parses the header lines after the start line (from pos up to the block end). */
static int parse_fields(const char *buf, size_t pos, size_t end, field_fn fn, void *ctx)
{
    for (;;) {
        size_t at = pos;
        const char *l;
        size_t ll;
        take_line(buf, end, &pos, &l, &ll);
        if (ll == 0)
            return 0; /* the empty line */
        if (is_ws(l[0]))
            return err_set("HTTP header line at byte %zu starts with white space (folded "
                           "lines are not accepted)",
                           at);
        size_t c = 0;
        while (c < ll && is_tchar((unsigned char)l[c]))
            c++;
        if (c == 0 || c >= ll || l[c] != ':')
            return err_set("HTTP header line at byte %zu is not 'name: value' ('%.*s')", at,
                           (int)(ll > 40 ? 40 : ll), l);
        size_t vs = c + 1, ve = ll;
        while (vs < ve && is_ws(l[vs]))
            vs++;
        while (ve > vs && is_ws(l[ve - 1]))
            ve--;
        for (size_t k = vs; k < ve; k++) {
            unsigned char ch = (unsigned char)l[k];
            if ((ch < 32 && ch != '\t') || ch == 127)
                return err_set("HTTP header '%.*s' at byte %zu holds control character 0x%02x",
                               (int)c, l, at, ch);
        }
        fn(ctx, l, c, l + vs, ve - vs);
    }
}

static void req_field(void *ctx, const char *n, size_t nl, const char *v, size_t vl)
{
    tp_ws_req *r = ctx;
    tp_ws_str s = {v, vl};
    if (ieq(n, nl, "Host"))
        r->host = s;
    else if (ieq(n, nl, "Sec-WebSocket-Key")) {
        if (r->key.p)
            r->duplicate_key = 1;
        r->key = s;
    } else if (ieq(n, nl, "Sec-WebSocket-Version"))
        r->version = s;
    else if (ieq(n, nl, "Sec-WebSocket-Protocol")) {
        r->protocol = s;
        r->protocol_seen = 1;
    } else if (ieq(n, nl, "Sec-WebSocket-Extensions"))
        r->extensions = s;
    else if (ieq(n, nl, "Upgrade")) {
        r->upgrade = s;
        r->upgrade_ws |= tp_ws_has_token(v, vl, "websocket");
    } else if (ieq(n, nl, "Connection")) {
        r->connection = s;
        r->connection_upg |= tp_ws_has_token(v, vl, "upgrade");
    } else if (ieq(n, nl, "User-Agent"))
        r->user_agent = s;
    else if (ieq(n, nl, "Origin"))
        r->origin = s;
}

/* "HTTP/1.x": stores x. */
static bool http_version(const char *p, size_t n, int *minor)
{
    if (n != 8 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9')
        return false;
    *minor = p[7] - '0';
    return true;
}

int tp_ws_req_parse(const char *buf, size_t len, tp_ws_req *out)
{
    memset(out, 0, sizeof(*out));
    int end = block_end(buf, len);
    if (end <= 0)
        return end;
    size_t pos = 0;
    const char *l;
    size_t ll;
    take_line(buf, (size_t)end, &pos, &l, &ll);
    /* method SP request-target SP HTTP-version, single spaces */
    size_t m = 0;
    while (m < ll && is_tchar((unsigned char)l[m]))
        m++;
    if (m == 0 || m >= ll || l[m] != ' ')
        return err_set("bad HTTP request line '%.*s' (expected 'GET /WebSocket HTTP/1.1')",
                       (int)(ll > 60 ? 60 : ll), l);
    size_t t = m + 1, te = t;
    while (te < ll && l[te] != ' ' && (unsigned char)l[te] > 32 && (unsigned char)l[te] < 127)
        te++;
    if (te == t || te >= ll || l[te] != ' ' ||
        !http_version(l + te + 1, ll - te - 1, &out->http_minor))
        return err_set("bad HTTP request line '%.*s' (expected 'GET /WebSocket HTTP/1.1')",
                       (int)(ll > 60 ? 60 : ll), l);
    out->method = (tp_ws_str){l, m};
    out->target = (tp_ws_str){l + t, te - t};
    if (parse_fields(buf, pos, (size_t)end, req_field, out) < 0)
        return -1;
    return end;
}

static bool is_b64(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

int tp_ws_req_check(const tp_ws_req *r)
{
    if (r->method.len != 3 || memcmp(r->method.p, "GET", 3) != 0)
        return err_set("HTTP method '%.*s' is not GET", (int)r->method.len, r->method.p);
    if (r->target.len < 10 || memcmp(r->target.p, "/WebSocket", 10) != 0)
        return err_set("request target '%.*s' is not /WebSocket",
                       (int)(r->target.len > 60 ? 60 : r->target.len), r->target.p);
    if (r->http_minor < 1)
        return err_set("HTTP/1.%d request; a WebSocket upgrade needs HTTP/1.1", r->http_minor);
    if (!r->upgrade_ws)
        return err_set("no 'Upgrade: websocket' header");
    if (!r->connection_upg)
        return err_set("no 'Connection: Upgrade' header");
    if (!r->version.p)
        return err_set("no Sec-WebSocket-Version header");
    if (r->version.len != 2 || memcmp(r->version.p, "13", 2) != 0)
        return err_set("Sec-WebSocket-Version '%.*s' is not 13",
                       (int)(r->version.len > 20 ? 20 : r->version.len), r->version.p);
    if (r->duplicate_key)
        return err_set("more than one Sec-WebSocket-Key header");
    if (!r->key.p)
        return err_set("no Sec-WebSocket-Key header");
    bool ok = r->key.len == 24 && r->key.p[22] == '=' && r->key.p[23] == '=';
    for (size_t i = 0; ok && i < 22; i++)
        ok = is_b64(r->key.p[i]);
    if (!ok)
        return err_set("Sec-WebSocket-Key '%.*s' is not the base64 of 16 bytes",
                       (int)(r->key.len > 40 ? 40 : r->key.len), r->key.p);
    return 0;
}

static void resp_field(void *ctx, const char *n, size_t nl, const char *v, size_t vl)
{
    tp_ws_resp *r = ctx;
    tp_ws_str s = {v, vl};
    if (ieq(n, nl, "Sec-WebSocket-Accept"))
        r->accept = s;
    else if (ieq(n, nl, "Sec-WebSocket-Protocol"))
        r->protocol = s;
    else if (ieq(n, nl, "Sec-WebSocket-Extensions"))
        r->extensions = s;
    else if (ieq(n, nl, "Upgrade")) {
        r->upgrade = s;
        r->upgrade_ws |= tp_ws_has_token(v, vl, "websocket");
    } else if (ieq(n, nl, "Connection")) {
        r->connection = s;
        r->connection_upg |= tp_ws_has_token(v, vl, "upgrade");
    }
}

int tp_ws_resp_parse(const char *buf, size_t len, tp_ws_resp *out)
{
    memset(out, 0, sizeof(*out));
    int end = block_end(buf, len);
    if (end <= 0)
        return end;
    size_t pos = 0;
    const char *l;
    size_t ll;
    take_line(buf, (size_t)end, &pos, &l, &ll);
    int minor;
    if (ll < 12 || !http_version(l, 8, &minor) || l[8] != ' ' || l[9] < '1' || l[9] > '5' ||
        l[10] < '0' || l[10] > '9' || l[11] < '0' || l[11] > '9' || (ll > 12 && l[12] != ' '))
        return err_set("bad HTTP status line '%.*s'", (int)(ll > 60 ? 60 : ll), l);
    out->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    out->reason = ll > 13 ? (tp_ws_str){l + 13, ll - 13} : (tp_ws_str){l + ll, 0};
    if (parse_fields(buf, pos, (size_t)end, resp_field, out) < 0)
        return -1;
    return end;
}

/* ---- HTTP building ------------------------------------------------------------------- */

static int fit(int n, size_t cap)
{
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int tp_ws_req_build(char *out, size_t cap, const char *host, const char *port, const char *key,
                    const char *protocols, bool deflate)
{
    int n = snprintf(out, cap,
                     "GET /WebSocket HTTP/1.1\r\n"
                     "Upgrade: websocket\r\n"
                     "Connection: keep-alive, Upgrade\r\n"
                     "Host: %s:%s\r\n"
                     "Sec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: %s\r\n"
                     "%s"
                     "User-Agent: Mozilla/5.0\r\n"
                     "\r\n",
                     host, port, key, protocols ? protocols : "",
                     deflate ? "Sec-WebSocket-Extensions: permessage-deflate;"
                               "server_no_context_takeover\r\n"
                             : "");
    return fit(n, cap);
}

int tp_ws_resp_101(char *out, size_t cap, const char *name, size_t name_len, const char *accept,
                   const char *ext)
{
    int n = snprintf(out, cap,
                     "HTTP/1.1 101 Switching Protocols\r\n"
                     "Upgrade: websocket\r\n"
                     "Connection: Upgrade\r\n"
                     "Sec-WebSocket-Protocol: %.*s\r\n"
                     "%s%s%s"
                     "Sec-WebSocket-Accept: %s\r\n"
                     "\r\n",
                     (int)name_len, name, ext ? "Sec-WebSocket-Extensions: " : "", ext ? ext : "",
                     ext ? "\r\n" : "", accept);
    return fit(n, cap);
}

int tp_ws_resp_400(char *out, size_t cap, const char *body)
{
    int n = snprintf(out, cap,
                     "HTTP/1.1 400 Bad Request\r\n"
                     "Content-Type: text/html; charset=UTF-8\r\n"
                     "Connection: close\r\n"
                     "\r\n"
                     "%s%s",
                     body ? body : "", body ? "\r\n" : "");
    return fit(n, cap);
}

/* ---- permessage-deflate parameters --------------------------------------------------- */

/* A window-bits value: 8..15. */
static int window_bits(const char *v, size_t vl, uint8_t *out)
{
    if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
        v++;
        vl -= 2;
    }
    if (vl == 1 && v[0] >= '8' && v[0] <= '9') {
        *out = (uint8_t)(v[0] - '0');
        return 0;
    }
    if (vl == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5') {
        *out = (uint8_t)(10 + v[1] - '0');
        return 0;
    }
    return err_set("permessage-deflate window bits '%.*s' are not 8..15", (int)vl, v);
}

/* One parameter "name[=value]" of a permessage-deflate entry. */
static int pmd_param(const char *t, size_t tl, tp_ws_pmd_params *p)
{
    while (tl && is_ws(*t)) {
        t++;
        tl--;
    }
    while (tl && is_ws(t[tl - 1]))
        tl--;
    const char *eq = memchr(t, '=', tl);
    size_t nl = eq ? (size_t)(eq - t) : tl;
    while (nl && is_ws(t[nl - 1]))
        nl--;
    const char *v = eq ? eq + 1 : NULL;
    size_t vl = eq ? tl - (size_t)(v - t) : 0;
    while (v && vl && is_ws(*v)) {
        v++;
        vl--;
    }
    if (ieq(t, nl, "server_no_context_takeover") && !v) {
        if (p->server_no_ctx)
            return err_set("permessage-deflate: server_no_context_takeover given twice");
        p->server_no_ctx = 1;
    } else if (ieq(t, nl, "client_no_context_takeover") && !v) {
        if (p->client_no_ctx)
            return err_set("permessage-deflate: client_no_context_takeover given twice");
        p->client_no_ctx = 1;
    } else if (ieq(t, nl, "server_max_window_bits") && v) {
        if (p->server_max_window)
            return err_set("permessage-deflate: server_max_window_bits given twice");
        return window_bits(v, vl, &p->server_max_window);
    } else if (ieq(t, nl, "client_max_window_bits")) {
        if (p->client_max_window)
            return err_set("permessage-deflate: client_max_window_bits given twice");
        if (!v)
            p->client_max_window = 255;
        else
            return window_bits(v, vl, &p->client_max_window);
    } else {
        return err_set("permessage-deflate: unknown parameter '%.*s'", (int)(tl > 40 ? 40 : tl), t);
    }
    return 0;
}

int tp_ws_pmd_parse(const char *v, size_t len, tp_ws_pmd_params *p)
{
    memset(p, 0, sizeof(*p));
    size_t pos = 0, el;
    const char *e;
    /* extensions are separated by ',', their parameters by ';' */
    while (v && next_token(v, len, &pos, ",", &e, &el)) {
        size_t q = 0, tl;
        const char *t;
        if (!next_token(e, el, &q, ";", &t, &tl))
            continue;
        while (tl && is_ws(*t)) {
            t++;
            tl--;
        }
        while (tl && is_ws(t[tl - 1]))
            tl--;
        if (!ieq(t, tl, "permessage-deflate"))
            continue;
        p->on = 1;
        while (next_token(e, el, &q, ";", &t, &tl))
            if (pmd_param(t, tl, p) < 0)
                return -1;
        return 0;
    }
    return 0;
}

int tp_ws_pmd_format(const tp_ws_pmd_params *p, char *out, size_t cap)
{
    char sw[32] = "", cw[32] = "";
    if (p->server_max_window)
        snprintf(sw, sizeof(sw), ";server_max_window_bits=%u", p->server_max_window);
    if (p->client_max_window && p->client_max_window != 255)
        snprintf(cw, sizeof(cw), ";client_max_window_bits=%u", p->client_max_window);
    int n = snprintf(out, cap, "permessage-deflate%s%s%s%s",
                     p->server_no_ctx ? ";server_no_context_takeover" : "",
                     p->client_no_ctx ? ";client_no_context_takeover" : "", sw, cw);
    return fit(n, cap);
}
