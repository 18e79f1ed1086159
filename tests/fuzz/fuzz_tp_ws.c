/*
 * libFuzzer target for WebSocket channels, through a socketpair as from a real peer. The first
 * input byte chooses:
 *   bit 7 = 1: our server (it takes RIPC and WebSocket clients; -pl "rssl.rwf, rssl.json.v2",
 *              zlib offered when bit 4 is set); the rest is the client's byte stream. With
 *              bit 6 set a valid upgrade request (sub-protocol by bit 5: rssl.json.v2 /
 *              rssl.rwf; permessage-deflate offered by bit 4) comes first, so the input is
 *              about frames;
 *   bit 7 = 0: our client (-pl by bit 5, zlib by bit 4); with bit 6 set the peer answers the
 *              upgrade correctly (accept key computed from our request) and, for rssl.rwf, a
 *              ConnectAck (from a server naming itself rwfperf) in a binary frame follows;
 *              the rest is the server's byte stream.
 * The channel must fail cleanly or deliver messages; never crash, leak or loop.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp.h"
#include "tp_ripc.h"
#include "tp_ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void push(int fd, const uint8_t *p, size_t n, size_t *off)
{
    while (*off < n) {
        ssize_t w = write(fd, p + *off, n - *off);
        if (w <= 0)
            return;
        *off += (size_t)w;
    }
}

static size_t drain(int fd, uint8_t *keep, size_t cap, size_t have)
{
    uint8_t sink[4096];
    ssize_t r;
    while ((r = read(fd, sink, sizeof(sink))) > 0) {
        size_t k = (size_t)r;
        if (keep && have < cap) {
            size_t c = k < cap - have ? k : cap - have;
            memcpy(keep + have, sink, c);
            have += c;
        }
    }
    return have;
}

static void run(tp_channel *ch, int peer, const uint8_t *p, size_t n)
{
    size_t off = 0;
    int eof = 0;
    for (int i = 0; i < 100000; i++) {
        if (!eof) {
            push(peer, p, n, &off);
            if (off == n) {
                shutdown(peer, SHUT_WR);
                eof = 1;
            }
        }
        if ((i & 63) == 0)
            drain(peer, NULL, 0, 0);
        if (tp_get_state(ch) != TP_STATE_ACTIVE) {
            if (tp_init(ch) < 0)
                return;
            continue;
        }
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            return;
        if (rc & TP_READ_MSG) {
            volatile uint8_t sum = 0;
            for (uint32_t k = 0; k < m.len; k++)
                sum ^= m.data[k];
            (void)sum;
        }
        if ((i & 255) == 0)
            tp_ping(ch);
    }
}

/* Our client has sent its upgrade: answer it correctly (and, rssl.rwf, with a ConnectAck). */
static void answer_client(tp_channel *ch, int peer, bool json)
{
    uint8_t req[4096];
    size_t have = 0;
    for (int i = 0; i < 50 && !memmem(req, have, "\r\n\r\n", 4); i++) {
        tp_init(ch);
        have = drain(peer, req, sizeof(req), have);
    }
    tp_ws_req r;
    if (tp_ws_req_parse((const char *)req, have, &r) <= 0)
        return;
    char acc[29], resp[512];
    tp_ws_accept(r.key.p, r.key.len, acc);
    int n = tp_ws_resp_101(resp, sizeof(resp), json ? "tr_json2" : "rssl.rwf", 8, acc, NULL);
    size_t off = 0;
    push(peer, (const uint8_t *)resp, (size_t)n, &off);
    if (json)
        return;
    for (int i = 0; i < 4; i++) { /* the ConnectReq in its frame */
        tp_init(ch);
        drain(peer, NULL, 0, 0);
    }
    tp_ripc_ack a;
    memset(&a, 0, sizeof(a));
    a.gen = 14;
    a.flags = 1;
    a.max_user = 6144;
    a.session_flags = 3;
    a.ping_timeout = 60;
    a.rwf_major = 14;
    a.rwf_minor = 1;
    a.has_key = 1;
    a.key_type = 1;
    /* a server of ours: our client then reports the channel active at once, without the pause
     * it leaves an ETA server after the key message (20 ms per input) */
    a.component.p = "rwfperf1.0.0";
    a.component.len = 12;
    uint8_t ack[128], f[160];
    int al = tp_ripc_ack_encode(&a, ack, sizeof(ack));
    uint32_t h = tp_ws_hdr_write(f, true, false, TP_WS_OP_BINARY, (uint64_t)al, NULL);
    memcpy(f + h, ack, (size_t)al);
    off = 0;
    push(peer, f, h + (size_t)al, &off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    bool json = mode & 0x20, zlib = mode & 0x10, valid = mode & 0x40;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    tp_opts o;
    tp_opts_init(&o);
    o.max_reassembly = 1 << 20;
    o.ws_max_msg = 1 << 16;
    o.compression = zlib ? TP_COMP_ZLIB : TP_COMP_NONE;
    tp_channel *ch;
    if (mode & 0x80) {
        o.ws_protocols = "rssl.rwf, rssl.json.v2";
        o.compression_level = 6;
        if (tp_adopt(sv[0], true, &o, &ch) < 0) {
            close(sv[1]);
            return 0;
        }
        if (valid) {
            char req[512];
            int n =
                tp_ws_req_build(req, sizeof(req), "localhost", "14002",
                                "dGhlIHNhbXBsZSBub25jZQ==", json ? "tr_json2" : "rssl.rwf", zlib);
            size_t off = 0;
            push(sv[1], (const uint8_t *)req, (size_t)n, &off);
        }
    } else {
        o.conn_type = TP_CONN_WEBSOCKET;
        o.ws_protocols = json ? "rssl.json.v2" : "rssl.rwf";
        if (tp_adopt(sv[0], false, &o, &ch) < 0) {
            close(sv[1]);
            return 0;
        }
        if (valid)
            answer_client(ch, sv[1], json);
    }
    run(ch, sv[1], data, size);
    tp_close(ch);
    close(sv[1]);
    return 0;
}
