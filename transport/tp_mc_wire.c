/* The seqMCast datagram: header encoding, and the check of a received datagram (header and
 * every length-prefixed entry) before any of it is used. */
#include <stdio.h>

#include "tp_int.h"
#include "tp_mcast.h"

void tp_mc_hdr_encode(const tp_mc_hdr *h, uint8_t *out)
{
    out[0] = h->version;
    out[1] = h->flags;
    out[2] = h->protocol_type;
    out[3] = h->hdr_len;
    tp_put16(out + 4, h->instance_id);
    out[6] = h->rwf_major;
    out[7] = h->rwf_minor;
    tp_put32(out + 8, h->seq);
}

const char *tp_mc_bad_name(tp_mc_bad k)
{
    static const char *const names[TP_MC_BAD_KINDS] = {
        "datagram shorter than the header",
        "unknown header version",
        "another protocol type",
        "bad header length",
        "length prefix cut short",
        "message length past the end of the datagram",
        "datagram larger than the receive limit",
    };
    return (unsigned)k < TP_MC_BAD_KINDS ? names[k] : "unknown fault";
}

static int fault(tp_mc_bad k, uint32_t off, uint32_t *bad_off)
{
    if (bad_off)
        *bad_off = off;
    return -1 - (int)k;
}

int tp_mc_parse(const uint8_t *p, size_t n, uint8_t protocol_type, tp_mc_hdr *h, uint32_t *bad_off)
{
    if (n < TP_MC_HDR_LEN)
        return fault(TP_MC_BAD_SHORT, 0, bad_off);
    h->version = p[0];
    h->flags = p[1];
    h->protocol_type = p[2];
    h->hdr_len = p[3];
    h->instance_id = (uint16_t)tp_get16(p + 4);
    h->rwf_major = p[6];
    h->rwf_minor = p[7];
    h->seq = tp_get32(p + 8);
    if (h->version != TP_MC_VERSION)
        return fault(TP_MC_BAD_VERSION, 0, bad_off);
    if (h->protocol_type != protocol_type)
        return fault(TP_MC_BAD_PROTOCOL, 2, bad_off);
    if (h->hdr_len < TP_MC_HDR_LEN || h->hdr_len > n)
        return fault(TP_MC_BAD_HDR_LEN, 3, bad_off);
    if (n == h->hdr_len)
        return 0; /* the header alone: a ping */
    uint32_t off = h->hdr_len, end = (uint32_t)n;
    while (off < end) {
        if (end - off < 2)
            return fault(TP_MC_BAD_TRUNC_LEN, off, bad_off);
        uint32_t len = tp_get16(p + off);
        if (len > end - off - 2)
            return fault(TP_MC_BAD_LEN_BEYOND, off, bad_off);
        off += 2 + len;
    }
    return 1;
}

const char *tp_mc_from_str(const tp_mc_from *from, char *buf, size_t cap)
{
    uint32_t a = from->addr;
    snprintf(buf, cap, "%u.%u.%u.%u:%u/%u", a >> 24, (a >> 16) & 0xFF, (a >> 8) & 0xFF, a & 0xFF,
             from->port, from->instance_id);
    return buf;
}
