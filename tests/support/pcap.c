/* Reassembly of TCP payload streams, and the UDP datagrams, of classic pcap files (test
 * support only). */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t rd32(const uint8_t *p, int swap)
{
    return swap ? be32(p)
                : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* One direction being reassembled: bytes are appended only when they continue the stream. */
typedef struct dir_state {
    int started;
    uint32_t next_seq;
    ts_bytes *out;
} dir_state;

static void feed(dir_state *d, uint32_t seq, int syn, const uint8_t *payload, size_t len)
{
    if (syn) {
        d->started = 1;
        d->next_seq = seq + 1;
    }
    if (!len)
        return;
    if (!d->started) {
        d->started = 1;
        d->next_seq = seq;
    }
    int32_t off = (int32_t)(d->next_seq - seq);
    if (off < 0) {
        fprintf(stderr, "pcap: gap of %d bytes in TCP stream (capture lost data)\n", -off);
        return;
    }
    if ((size_t)off >= len)
        return; /* retransmission of bytes already taken */
    ts_bytes_append(d->out, payload + off, len - (size_t)off);
    d->next_seq += (uint32_t)(len - (size_t)off);
}

/* Reads the pcap file at path into *buf (the caller frees it) and its file header: byte
 * order and the length of the link-layer header. 0, or -1 with a message on stderr. */
static int open_capture(const char *path, uint8_t **buf, size_t *len, int *swap, size_t *l2len)
{
    if (ts_read_file(path, buf, len) != 0) {
        fprintf(stderr, "pcap: cannot read %s\n", path);
        return -1;
    }
    const char *why = NULL;
    uint32_t magic = *len < 24 ? 0 : rd32(*buf, 0);
    if (*len < 24)
        why = "too short";
    else if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
        *swap = 0;
    else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
        *swap = 1;
    else
        why = "not a classic pcap file";
    uint32_t linktype = why ? 0 : rd32(*buf + 20, *swap);
    if (!why && linktype == 1)
        *l2len = 14;
    else if (!why && linktype == 113)
        *l2len = 16;
    else if (!why)
        why = "of an unsupported link type";
    if (why) {
        free(*buf);
        fprintf(stderr, "pcap: %s is %s\n", path, why);
        return -1;
    }
    return 0;
}

int ts_pcap_tcp_streams(const char *path, uint16_t server_port, ts_tcp_streams *out)
{
    memset(out, 0, sizeof(*out));
    uint8_t *buf;
    size_t len, l2len;
    int swap;
    if (open_capture(path, &buf, &len, &swap, &l2len) < 0)
        return -1;
    dir_state c2s = {0, 0, &out->client_to_server};
    dir_state s2c = {0, 0, &out->server_to_client};
    uint16_t client_port = 0;
    size_t pos = 24;
    while (pos + 16 <= len) {
        uint32_t incl = rd32(buf + pos + 8, swap);
        const uint8_t *pkt = buf + pos + 16;
        pos += 16;
        if (pos + incl > len)
            break;
        pos += incl;
        if (incl < l2len + 20)
            continue;
        uint16_t ethertype = be16(pkt + l2len - 2);
        if (ethertype != 0x0800)
            continue;
        const uint8_t *ip = pkt + l2len;
        size_t iplen = incl - l2len;
        size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
        if ((ip[0] >> 4) != 4 || ip[9] != 6 || ihl < 20 || iplen < ihl + 20)
            continue;
        size_t total = be16(ip + 2);
        if (total > iplen || total < ihl + 20)
            continue;
        const uint8_t *tcp = ip + ihl;
        size_t tcplen = total - ihl;
        size_t doff = (size_t)(tcp[12] >> 4) * 4;
        if (doff < 20 || doff > tcplen)
            continue;
        uint16_t sport = be16(tcp), dport = be16(tcp + 2);
        uint32_t seq = be32(tcp + 4);
        int syn = (tcp[13] & 0x02) != 0;
        const uint8_t *payload = tcp + doff;
        size_t plen = tcplen - doff;
        if (dport == server_port) {
            if (!client_port)
                client_port = sport;
            if (sport == client_port)
                feed(&c2s, seq, syn, payload, plen);
        } else if (sport == server_port) {
            if (!client_port)
                client_port = dport;
            if (dport == client_port)
                feed(&s2c, seq, syn, payload, plen);
        }
    }
    free(buf);
    return 0;
}

void ts_tcp_streams_free(ts_tcp_streams *s)
{
    ts_bytes_free(&s->client_to_server);
    ts_bytes_free(&s->server_to_client);
}

int ts_pcap_udp(const char *path, ts_udp_fn fn, void *arg)
{
    uint8_t *buf;
    size_t len, l2len;
    int swap;
    if (open_capture(path, &buf, &len, &swap, &l2len) < 0)
        return -1;
    int n = 0;
    size_t pos = 24;
    while (pos + 16 <= len) {
        uint32_t incl = rd32(buf + pos + 8, swap);
        const uint8_t *pkt = buf + pos + 16;
        pos += 16;
        if (pos + incl > len)
            break;
        pos += incl;
        if (incl < l2len + 28 || be16(pkt + l2len - 2) != 0x0800)
            continue;
        const uint8_t *ip = pkt + l2len;
        size_t iplen = incl - l2len;
        size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
        if ((ip[0] >> 4) != 4 || ip[9] != 17 || ihl < 20 || iplen < ihl + 8)
            continue;
        size_t total = be16(ip + 2);
        if (total > iplen || total < ihl + 8)
            continue;
        const uint8_t *udp = ip + ihl;
        size_t ulen = be16(udp + 4);
        if (ulen < 8 || ulen > total - ihl)
            continue;
        ts_udp_dgram d = {.src = be32(ip + 12),
                          .dst = be32(ip + 16),
                          .sport = be16(udp),
                          .dport = be16(udp + 2),
                          .data = udp + 8,
                          .len = ulen - 8};
        fn(&d, arg);
        n++;
    }
    free(buf);
    return n;
}
