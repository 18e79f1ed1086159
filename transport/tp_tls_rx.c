/* A TLS client's records read and decrypted in place (see tp_tls_rx.h): the record layer
 * (AES-GCM, TLS 1.2 and 1.3, the keys in tp_tls_keys), the records that are not data, and the
 * input area's bookkeeping. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_stream.h"
#include "tp_tls_keys.h"
#include "tp_tls_rx.h"

struct tp_tls_rx {
    tp_tls_keys k; /* the server's records */
    uint32_t raw_rd, raw_wr;
};

int tp_tls_rx_new(SSL *ssl, const uint8_t *secret13, size_t secret_len, uint64_t records_read,
                  tp_tls_gcm gcm, tp_tls_rx **out)
{
    *out = NULL;
    tp_tls_rx *rx = calloc(1, sizeof(*rx));
    if (!rx)
        return err_set("out of memory for reading TLS records in place");
    int rc = tp_tls_keys_init(&rx->k, ssl, 0, secret13, secret_len, records_read, gcm);
    if (rc != 0) {
        free(rx);
        return rc;
    }
    *out = rx;
    return 0;
}

int tp_tls_rx_new_test(tp_tls_keys *k, tp_tls_rx **out)
{
    *out = NULL;
    tp_tls_rx *rx = calloc(1, sizeof(*rx));
    if (!rx) {
        tp_tls_keys_clear(k);
        return err_set("out of memory for reading TLS records in place");
    }
    rx->k = *k;
    memset(k, 0, sizeof(*k));
    *out = rx;
    return 0;
}

const tp_tls_keys *tp_tls_rx_keys(const tp_tls_rx *rx)
{
    return &rx->k;
}

void tp_tls_rx_free(tp_tls_rx *rx)
{
    if (!rx)
        return;
    tp_tls_keys_clear(&rx->k);
    free(rx);
}

/* ---- records ----------------------------------------------------------------------------- */

/* Opens the record at rec (body bytes after its header) in place: *pt and *len give its
 * content, *type its content type. 0, or TP_EFAIL with err_set(). */
static int open_record(tp_tls_rx *rx, uint8_t *rec, uint32_t body, uint8_t **pt, uint32_t *len,
                       uint8_t *type)
{
    tp_tls_keys *k = &rx->k;
    uint8_t nonce[12], aad[13];
    uint8_t *ct;
    uint32_t clen;
    size_t alen;
    if (k->seq == UINT64_MAX) /* its nonce would come round again */
        return err_set("TLS record from the server past sequence number 2^64 - 1 under one key");
    if (k->v13) {
        if (rec[0] != TP_TLS_CT_DATA)
            return err_set("TLS 1.3 record of outer type %u after the handshake", rec[0]);
        if (body < TP_TLS_TAG + 1)
            return err_set("TLS record of %u bytes is shorter than its tag", body);
        tp_tls_keys_nonce(k, NULL, nonce);
        memcpy(aad, rec, TP_TLS_REC_HDR);
        alen = TP_TLS_REC_HDR;
        ct = rec + TP_TLS_REC_HDR;
        clen = body - TP_TLS_TAG;
    } else {
        if (body < TP_TLS_NONCE12 + TP_TLS_TAG)
            return err_set("TLS record of %u bytes is shorter than its nonce and tag", body);
        tp_tls_keys_nonce(k, rec + TP_TLS_REC_HDR, nonce);
        ct = rec + TP_TLS_REC_HDR + TP_TLS_NONCE12;
        clen = body - TP_TLS_NONCE12 - TP_TLS_TAG;
        for (int i = 0; i < 8; i++)
            aad[i] = (uint8_t)(k->seq >> (56 - 8 * i));
        aad[8] = rec[0];
        aad[9] = rec[1];
        aad[10] = rec[2];
        aad[11] = (uint8_t)(clen >> 8);
        aad[12] = (uint8_t)clen;
        alen = 13;
    }
    if (tp_tls_keys_open(k, nonce, aad, alen, ct, clen) < 0)
        return err_set("TLS record %llu from the server failed its integrity check "
                       "(bad_record_mac)",
                       (unsigned long long)k->seq);
    k->seq++;
    if (k->v13) { /* content, content type, zero padding */
        while (clen > 0 && ct[clen - 1] == 0)
            clen--;
        if (clen == 0)
            return err_set("TLS 1.3 record from the server holds no content type");
        *type = ct[--clen];
    } else {
        *type = rec[0];
    }
    *pt = ct;
    *len = clen;
    return 0;
}

/* Handshake messages after the handshake (n bytes at p). 0 or TP_EFAIL. */
static int post_handshake(tp_tls_rx *rx, const uint8_t *p, uint32_t n)
{
    while (n > 0) {
        if (n < 4 || ((uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) > n - 4)
            return err_set("TLS handshake message from the server split across records (not "
                           "supported after the handshake)");
        uint32_t mlen = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (!rx->k.v13 && p[0] == 0 && mlen == 0) {
            /* hello request: the client does not renegotiate and may ignore it */
        } else if (rx->k.v13 && p[0] == 4) {
            /* new session ticket: the client keeps no session */
        } else if (rx->k.v13 && p[0] == 24 && mlen == 1 && p[4] <= 1 && n == 5) {
            if (tp_tls_keys_update(&rx->k) < 0)
                return TP_EFAIL;
            /* keys set up for a test have no connection to answer through */
            if (p[4] == 1 && rx->k.ssl &&
                SSL_key_update(rx->k.ssl, SSL_KEY_UPDATE_NOT_REQUESTED) != 1) {
                ERR_clear_error();
                return err_set("TLS: cannot answer the server's key update");
            }
        } else {
            return err_set("TLS handshake message %u from the server after the handshake", p[0]);
        }
        p += 4 + mlen;
        n -= 4 + mlen;
    }
    return 0;
}

/* A record that is not data. 0, TP_IO_EOF (close_notify) or TP_EFAIL, with err_set(). */
static int control(tp_tls_rx *rx, uint8_t type, const uint8_t *p, uint32_t n)
{
    switch (type) {
    case TP_TLS_CT_ALERT:
        if (n != 2)
            return err_set("TLS alert record of %u bytes from the server", n);
        if (p[1] == 0) {
            err_set("connection closed by peer (TLS close_notify)");
            return TP_IO_EOF;
        }
        return err_set("TLS alert from the server: %s (%u)", SSL_alert_desc_string_long(p[1]),
                       p[1]);
    case TP_TLS_CT_HANDSHAKE:
        return post_handshake(rx, p, n) < 0 ? TP_EFAIL : 0;
    default:
        return err_set("TLS record of content type %u from the server after the handshake", type);
    }
}

/* Opens the complete record at raw_rd and puts its data behind what the input area holds.
 * 1 (data added), 0 (a record without data), TP_IO_EOF or TP_EFAIL. */
static int take_record(tp_channel *ch, tp_tls_rx *rx, uint8_t *rec, uint32_t body)
{
    uint8_t *pt = NULL, type = 0;
    uint32_t n = 0;
    if (open_record(rx, rec, body, &pt, &n, &type) < 0)
        return TP_EFAIL;
    rx->raw_rd += TP_TLS_REC_HDR + body;
    if (type != TP_TLS_CT_DATA)
        return control(rx, type, pt, n);
    if (n == 0)
        return 0;
    uint32_t part = ch->in_wr - ch->in_rd, at = (uint32_t)(pt - ch->in);
    if (part) /* the start of a frame: up against the new bytes (over spent header bytes) */
        memmove(pt - part, ch->in + ch->in_rd, part);
    ch->in_rd = at - part;
    ch->in_wr = at + n;
    ch->st.bytes_read += n;
    return 1;
}

/* True when the input area holds a complete frame, or a frame length the parser refuses. */
static inline int frame_ready(const tp_channel *ch)
{
    uint32_t avail = ch->in_wr - ch->in_rd;
    if (avail < 3)
        return 0;
    uint32_t flen = tp_get16(ch->in + ch->in_rd);
    return flen <= avail || flen > ch->max_in_frame;
}

/* Length of the complete record at raw_rd, 0 when none is (an impossible length counts as
 * complete, so that opening it reports it). */
static inline uint32_t record_ready(const tp_channel *ch, const tp_tls_rx *rx)
{
    uint32_t have = rx->raw_wr - rx->raw_rd;
    if (have < TP_TLS_REC_HDR)
        return 0;
    const uint8_t *h = ch->in + rx->raw_rd;
    uint32_t body = tp_get16(h + 3);
    if (body > TP_TLS_REC_BODY_MAX || h[1] != 3 || h[0] < 20 || h[0] > 23)
        return TP_TLS_REC_HDR + body; /* reported at once, whatever follows */
    return have >= TP_TLS_REC_HDR + body ? TP_TLS_REC_HDR + body : 0;
}

/* Room behind raw_wr for a whole record: the unparsed bytes and the records not yet opened
 * moved to the start of the area when there is not. */
static void make_room(tp_channel *ch, tp_tls_rx *rx)
{
    uint32_t plen = ch->in_wr - ch->in_rd, rlen = rx->raw_wr - rx->raw_rd;
    if (plen == 0 && rlen == 0) {
        ch->in_rd = ch->in_wr = rx->raw_rd = rx->raw_wr = 0;
        return;
    }
    if (ch->in_cap - rx->raw_wr >= TP_TLS_REC_MAX)
        return;
    memmove(ch->in, ch->in + ch->in_rd, plen);
    memmove(ch->in + plen, ch->in + rx->raw_rd, rlen);
    ch->in_rd = 0;
    ch->in_wr = plen;
    rx->raw_rd = plen;
    rx->raw_wr = plen + rlen;
}

int tp_tls_rx_fill(tp_channel *ch, tp_tls_rx *rx)
{
    int added = 0, drained = 0;
    for (;;) {
        uint32_t len = record_ready(ch, rx);
        if (len) {
            uint8_t *rec = ch->in + rx->raw_rd;
            if (rec[1] != 3 || rec[0] < 20 || rec[0] > 23) {
                err_set("TLS: bytes that are not a TLS record (0x%02x%02x%02x%02x%02x) from the "
                        "server",
                        rec[0], rec[1], rec[2], rec[3], rec[4]);
                return TP_EFAIL;
            }
            if (len > TP_TLS_REC_MAX) {
                err_set("TLS record of %u bytes from the server exceeds the maximum of %u",
                        len - TP_TLS_REC_HDR, TP_TLS_REC_BODY_MAX);
                return TP_EFAIL;
            }
            int rc = take_record(ch, rx, rec, len - TP_TLS_REC_HDR);
            if (rc < 0)
                return rc;
            added |= rc;
            if (rc && frame_ready(ch))
                break;
            continue;
        }
        if (drained) /* the last recv() emptied the socket */
            break;
        make_room(ch, rx);
        uint32_t room = ch->in_cap - rx->raw_wr;
        ssize_t r = recv(ch->fd, ch->in + rx->raw_wr, room, 0);
        ch->st.recv_calls++;
        if (r > 0) {
            rx->raw_wr += (uint32_t)r;
            ch->rx_seen = 1;
            drained = (uint32_t)r < room;
            continue;
        }
        if (r == 0) {
            uint32_t have = rx->raw_wr - rx->raw_rd;
            if (have) {
                err_set("connection closed by peer in the middle of a TLS record (%u bytes of it "
                        "received)",
                        have);
                return TP_EFAIL;
            }
            err_set("connection closed by peer");
            return TP_IO_EOF;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        err_set_errno(errno, "recv");
        return TP_EFAIL;
    }
    ch->rx_pend = record_ready(ch, rx) != 0;
    return added;
}
