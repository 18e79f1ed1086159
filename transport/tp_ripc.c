#include "tp_ripc.h"

#include <string.h>

#include "err.h"

static inline void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static inline uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static uint8_t cut(size_t len, uint8_t max)
{
    return len > max ? max : (uint8_t)len;
}

int tp_ripc_req_encode(const tp_ripc_req *r, uint8_t *out, size_t cap)
{
    uint8_t hl = cut(r->host.len, 255), il = cut(r->ip.len, 255);
    uint8_t cl = cut(r->component.len, 253);
    size_t b = r->comp_bitmap ? 1 : 0;
    size_t hdr = (r->gen >= 12 ? 17 : 16) + b + hl + il;
    size_t total = hdr + (r->gen >= 13 ? 2u + cl : 0u);
    if (total > cap || hdr > 255)
        return -1;
    uint8_t *p = out;
    put16(p, (uint32_t)total);
    p[2] = 0;
    put32(p + 3, tp_ripc_conn_version(r->gen));
    p[7] = r->flags;
    p[8] = (uint8_t)hdr;
    p[9] = (uint8_t)b;
    p += 10;
    if (b)
        *p++ = r->comp_bitmap;
    *p++ = r->ping_timeout;
    *p++ = r->session_flags;
    if (r->gen >= 12)
        *p++ = r->protocol_type;
    *p++ = r->rwf_major;
    *p++ = r->rwf_minor;
    *p++ = hl;
    if (hl)
        memcpy(p, r->host.p, hl);
    p += hl;
    *p++ = il;
    if (il)
        memcpy(p, r->ip.p, il);
    p += il;
    if (r->gen >= 13) {
        *p++ = (uint8_t)(1 + cl);
        *p++ = cl;
        if (cl)
            memcpy(p, r->component.p, cl);
        p += cl;
    }
    return (int)(p - out);
}

/* Reads a length-prefixed string at *c, checking it fits in n. */
static int take_str(const uint8_t *p, size_t n, size_t *c, tp_str *s, const char *what)
{
    if (*c >= n)
        return err_set("%s length at offset %zu is past the end (%zu bytes)", what, *c, n);
    uint8_t len = p[*c];
    if (*c + 1 + len > n)
        return err_set("%s of %u bytes at offset %zu runs past the end (%zu bytes)", what, len,
                       *c + 1, n);
    s->p = (const char *)p + *c + 1;
    s->len = len;
    *c += 1 + (size_t)len;
    return 0;
}

int tp_ripc_req_parse(const uint8_t *p, size_t n, tp_ripc_req *r)
{
    memset(r, 0, sizeof(*r));
    if (n < 14)
        return err_set("ConnectReq of %zu bytes is shorter than the 14-byte minimum", n);
    if (get16(p) != n)
        return err_set("ConnectReq length field %u differs from its %zu bytes", get16(p), n);
    uint32_t cv = get32(p + 3);
    if (cv < 0x13 || cv > 0x17)
        return err_set("unknown RIPC connection version 0x%x", cv);
    r->gen = (uint8_t)(cv - 0x13 + 10);
    r->flags = p[7];
    size_t hdr = p[8];
    size_t b = p[9];
    size_t c = 10;
    if (c + b > n)
        return err_set("compression bitmap of %zu bytes runs past the end", b);
    if (b > 0)
        r->comp_bitmap = p[10];
    c += b;
    size_t fixed = r->gen >= 12 ? 5 : 4;
    if (c + fixed > n)
        return err_set("ConnectReq truncated at offset %zu", c);
    r->ping_timeout = p[c++];
    r->session_flags = p[c++];
    if (r->gen >= 12)
        r->protocol_type = p[c++];
    r->rwf_major = p[c++];
    r->rwf_minor = p[c++];
    if (take_str(p, n, &c, &r->host, "host name") < 0 ||
        take_str(p, n, &c, &r->ip, "IP address") < 0)
        return err_push("ConnectReq");
    if (hdr != c)
        return err_set("ConnectReq header length %zu differs from the %zu bytes it describes", hdr,
                       c);
    if (r->gen >= 13) {
        if (c >= n)
            return err_set("ConnectReq v%u lacks its component version block", r->gen);
        size_t blk = p[c];
        if (c + 1 + blk != n)
            return err_set("ConnectReq component block of %zu bytes does not end the message "
                           "(%zu + 1 + %zu != %zu)",
                           blk, c, blk, n);
        if (blk > 0) {
            size_t s = c + 1;
            if (take_str(p, n, &s, &r->component, "component version") < 0)
                return err_push("ConnectReq");
            if (r->component.len + 1u > blk)
                return err_set("component version of %u bytes exceeds its block of %zu",
                               r->component.len, blk);
        }
    } else if (c != n) {
        return err_set("ConnectReq v%u has %zu bytes after its header", r->gen, n - c);
    }
    return 0;
}

int tp_ripc_ack_encode(const tp_ripc_ack *a, uint8_t *out, size_t cap)
{
    uint8_t cl = cut(a->component.len, 253);
    size_t total = 18 + (a->gen >= 11 ? 1 : 0) + (a->gen >= 13 ? 2u + cl : 0u) +
                   (a->gen >= 14 && a->has_key ? 27 : 0);
    if (total > cap)
        return -1;
    uint8_t *p = out;
    put16(p, (uint32_t)total);
    p[2] = a->flags | TP_F_EXT;
    p[3] = TP_X_CONNACK;
    p[4] = 10;
    p[5] = 0;
    put32(p + 6, tp_ripc_ack_version(a->gen));
    put16(p + 10, a->max_user);
    p[12] = a->session_flags;
    p[13] = a->ping_timeout;
    p[14] = a->rwf_major;
    p[15] = a->rwf_minor;
    put16(p + 16, a->compression);
    p += 18;
    if (a->gen >= 11)
        *p++ = a->zlib_level;
    if (a->gen >= 14 && a->has_key) {
        *p++ = TP_RIPC_KEY_EXCHANGE;
        *p++ = a->key_type;
        *p++ = 24;
        put64(p, a->key_p);
        put64(p + 8, a->key_g);
        put64(p + 16, a->key_k);
        p += 24;
    }
    if (a->gen >= 13) {
        *p++ = (uint8_t)(2 + cl);
        *p++ = cl;
        if (cl)
            memcpy(p, a->component.p, cl);
        p += cl;
    }
    return (int)(p - out);
}

int tp_ripc_ack_parse(const uint8_t *p, size_t n, int expect_key, tp_ripc_ack *a)
{
    memset(a, 0, sizeof(*a));
    if (n < 18)
        return err_set("ConnectAck of %zu bytes is shorter than the 18-byte minimum", n);
    if (get16(p) != n)
        return err_set("ConnectAck length field %u differs from its %zu bytes", get16(p), n);
    a->flags = p[2];
    if (!(p[2] & TP_F_EXT) || !(p[3] & TP_X_CONNACK))
        return err_set("expected a ConnectAck, got flags 0x%02x/0x%02x", p[2], p[3]);
    uint32_t v = get32(p + 6);
    if (v < 5 || v > 9)
        return err_set("ConnectAck carries unknown RIPC version %u", v);
    a->gen = (uint8_t)(v + 5);
    a->max_user = (uint16_t)get16(p + 10);
    a->session_flags = p[12];
    a->ping_timeout = p[13];
    a->rwf_major = p[14];
    a->rwf_minor = p[15];
    a->compression = (uint16_t)get16(p + 16);
    size_t c = 18;
    if (a->gen >= 11) {
        if (c >= n)
            return err_set("ConnectAck v%u truncated before its zlib level", a->gen);
        a->zlib_level = p[c++];
    }
    if (a->gen >= 14 && expect_key) {
        if (c + 3 > n)
            return err_set("ConnectAck v14 truncated in its key-exchange block");
        a->has_key = 1;
        a->key_type = p[c + 1];
        size_t klen = p[c + 2];
        c += 3;
        if (c + klen > n)
            return err_set("ConnectAck key block of %zu bytes runs past the end", klen);
        if (a->key_type == 1 && klen >= 24) {
            a->key_p = get64(p + c);
            a->key_g = get64(p + c + 8);
            a->key_k = get64(p + c + 16);
        }
        c += klen;
    }
    if (a->gen >= 13 && c < n) {
        size_t blk = p[c];
        if (blk > 0) {
            if (c + 2 > n)
                return err_set("ConnectAck component block truncated");
            size_t s = p[c + 1];
            if (c + 2 + s > n)
                return err_set("ConnectAck component version of %zu bytes runs past the end", s);
            a->component.p = (const char *)p + c + 2;
            a->component.len = (uint8_t)s;
        }
    }
    if (a->compression > 2)
        return err_set("server specified unknown compression type %u", a->compression);
    if (a->max_user < 25)
        return err_set("server's maximum message size %u is below the 25-byte minimum",
                       a->max_user);
    return 0;
}

int tp_ripc_nak_encode(const char *text, uint8_t *out, size_t cap)
{
    size_t tl = strlen(text) + 1;
    if (tl > 200)
        tl = 200;
    if (8 + tl > cap)
        return -1;
    put16(out, (uint32_t)(8 + tl));
    out[2] = TP_F_EXT;
    out[3] = TP_X_CONNNAK;
    out[4] = 8;
    out[5] = 0;
    put16(out + 6, (uint32_t)tl);
    memcpy(out + 8, text, tl - 1);
    out[8 + tl - 1] = 0;
    return (int)(8 + tl);
}

int tp_ripc_is_nak(const uint8_t *p, size_t n, char *text, size_t cap)
{
    if (n < 4 || !(p[2] & TP_F_EXT) || !(p[3] & TP_X_CONNNAK))
        return 0;
    size_t tl = 0;
    if (n >= 8) {
        tl = get16(p + 6);
        if (tl > n - 8)
            tl = n - 8;
    }
    if (tl >= cap)
        tl = cap - 1;
    size_t o = 0;
    for (size_t i = 0; i < tl && p[8 + i]; i++)
        text[o++] = (char)(p[8 + i] >= 32 && p[8 + i] < 127 ? p[8 + i] : '?');
    text[o] = 0;
    return 1;
}

int tp_ripc_key_encode(int with_key, uint64_t key, uint8_t *out, size_t cap)
{
    size_t n = with_key ? 12 : 4;
    if (n > cap)
        return -1;
    put16(out, (uint32_t)n);
    out[2] = TP_RIPC_KEY_EXCHANGE;
    out[3] = with_key ? 8 : 0;
    if (with_key)
        put64(out + 4, key);
    return (int)n;
}

int tp_ripc_key_parse(const uint8_t *p, size_t n, uint64_t *key, int *has_key)
{
    *key = 0;
    *has_key = 0;
    if (n < 4 || get16(p) != n)
        return err_set("client key message of %zu bytes is malformed", n);
    if (p[2] != TP_RIPC_KEY_EXCHANGE)
        return err_set("client key message has opcode 0x%02x instead of 0x08", p[2]);
    size_t kl = p[3];
    if (4 + kl != n)
        return err_set("client key of %zu bytes does not fill its %zu-byte message", kl, n);
    if (kl == 8) {
        *key = get64(p + 4);
        *has_key = 1;
    }
    return 0;
}

void tp_ripc_negotiate(const tp_opts *srv, const tp_ripc_req *req, tp_ripc_ack *ack, int *nak)
{
    memset(ack, 0, sizeof(*ack));
    *nak = 0;
    ack->gen = req->gen;
    ack->max_user = (uint16_t)(srv->max_fragment_size > 0xFFFF ? 0xFFFF : srv->max_fragment_size);

    uint8_t c = req->ping_timeout, s = srv->ping_timeout, m = srv->min_ping_timeout;
    ack->ping_timeout = c < m ? m : (c < s ? c : s);
    ack->session_flags = (uint8_t)((srv->server_to_client_pings ? TP_PING_SERVER_TO_CLIENT : 0) |
                                   (srv->client_to_server_pings ? TP_PING_CLIENT_TO_SERVER : 0) |
                                   req->session_flags);

    if (req->rwf_major < srv->rwf_major ||
        (req->rwf_major == srv->rwf_major && req->rwf_minor < srv->rwf_minor)) {
        ack->rwf_major = req->rwf_major;
        ack->rwf_minor = req->rwf_minor;
    } else {
        ack->rwf_major = srv->rwf_major;
        ack->rwf_minor = srv->rwf_minor;
    }

    if (req->gen >= 12)
        *nak = req->protocol_type != srv->protocol_type;
    else
        *nak = srv->protocol_type != TP_PROTOCOL_RWF;

    /* as in ETA, the level and the force flag only count when the server compresses */
    uint8_t S = (uint8_t)srv->compression, bm = req->comp_bitmap;
    int F = S && srv->force_compression;
    uint16_t comp = 0;
    /* the client's bitmap is scanned zlib first, then lz4 */
    uint8_t match = (bm & 0x01) && (S & 1) ? 1 : ((bm & 0x02) && (S & 2) ? 2 : 0);
    if (req->gen >= 13) {
        if (S)
            comp = F ? S : match;
    } else if (req->gen >= 11) {
        if ((bm && S) || F)
            comp = bm ? match : TP_COMP_ZLIB;
    } else if (bm && S) {
        comp = (bm & 0x01) ? 1 : ((bm & 0x02) ? 2 : 0);
    }
    ack->compression = comp;
    ack->flags = TP_F_EXT;
    if (req->gen >= 11 && comp && F)
        ack->flags |= TP_F_COMP_FORCE;
    ack->zlib_level = S ? srv->compression_level : 0;
    ack->has_key = req->gen >= 14 && (req->flags & TP_RIPC_KEY_EXCHANGE);
    ack->key_type = 1;
}

uint64_t tp_ripc_modpow(uint64_t g, uint64_t e, uint64_t m)
{
    if (m == 0)
        return 0;
    unsigned __int128 r = 1 % m, b = g % m;
    while (e) {
        if (e & 1)
            r = (r * b) % m;
        b = (b * b) % m;
        e >>= 1;
    }
    return (uint64_t)r;
}
