/*
 * ts_tlsrec: the transport's TLS record layer without a handshake, for the record-layer tests
 * and fuzz targets (header only: the program that includes it links rwfperf_transport, whose
 * internal headers it uses).
 *
 *  - ts_tlsrec_channel: a bare client channel for tp_tls_rx over one end of a socketpair (made
 *    non-blocking), its input area sized as a client's is when it reads in place (the largest
 *    frame and two records);
 *  - ts_tlsrec_seal / ts_tlsrec_open: a peer's sealing and opening of one record with a
 *    tp_tls_keys set up by tp_tls_keys_init_test, which a test makes with OpenSSL's AES-GCM so
 *    that the peer does not share the code under test: records of any content type, TLS 1.3
 *    padding, as a server would send them; the records a sealer (tp_tls_tx) wrote, checked.
 */
#ifndef RWFPERF_TS_TLSREC_H
#define RWFPERF_TS_TLSREC_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_int.h"
#include "tp_tls_keys.h"

/* The bytes a record adds to its content at most: header, TLS 1.2 nonce or TLS 1.3 inner
 * type, tag. */
#define TS_TLSREC_OVERHEAD (TP_TLS_REC_HDR + TP_TLS_NONCE12 + 1 + TP_TLS_TAG)

/* A client channel reading in place from fd (which it owns and makes non-blocking), frames up
 * to max_frame bytes; NULL when out of memory. */
static inline tp_channel *ts_tlsrec_channel(int fd, uint32_t max_frame)
{
    tp_channel *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return NULL;
    ch->fd = fd;
    ch->max_in_frame = max_frame;
    ch->in_cap = max_frame + 2u * TP_TLS_REC_MAX;
    ch->in = malloc(ch->in_cap);
    ch->rx_inplace = 1;
    if (!ch->in) {
        free(ch);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return ch;
}

static inline void ts_tlsrec_channel_free(tp_channel *ch)
{
    if (!ch)
        return;
    close(ch->fd);
    free(ch->in);
    free(ch);
}

/* Seals one record with k (sealing keys) at out, room for n + pad + TS_TLSREC_OVERHEAD bytes,
 * and returns its length, or 0 when sealing failed. TLS 1.3: n bytes of content, their
 * content type and pad zero bytes, in an outer application_data record; TLS 1.2: a record of
 * content type type, its explicit nonce the sequence number (pad unused). The length field
 * is the body's length modulo 2^16 (a test may want an impossible one). */
static inline size_t ts_tlsrec_seal(tp_tls_keys *k, uint8_t type, const uint8_t *content, size_t n,
                                    size_t pad, uint8_t *out)
{
    uint8_t nonce[12], aad[13];
    size_t body;
    if (k->v13) {
        body = n + 1 + pad + TP_TLS_TAG;
        out[0] = TP_TLS_CT_DATA;
        out[1] = out[2] = 3;
        out[3] = (uint8_t)(body >> 8);
        out[4] = (uint8_t)body;
        uint8_t *in = out + TP_TLS_REC_HDR;
        memmove(in, content, n);
        in[n] = type;
        memset(in + n + 1, 0, pad);
        tp_tls_keys_nonce(k, NULL, nonce);
        if (tp_tls_keys_seal(k, nonce, out, TP_TLS_REC_HDR, in, in, n + 1 + pad, in + n + 1 + pad) <
            0)
            return 0;
    } else {
        body = TP_TLS_NONCE12 + n + TP_TLS_TAG;
        out[0] = type;
        out[1] = out[2] = 3;
        out[3] = (uint8_t)(body >> 8);
        out[4] = (uint8_t)body;
        for (int i = 0; i < 8; i++)
            aad[i] = out[TP_TLS_REC_HDR + i] = (uint8_t)(k->seq >> (56 - 8 * i));
        aad[8] = type;
        aad[9] = aad[10] = 3;
        aad[11] = (uint8_t)(n >> 8);
        aad[12] = (uint8_t)n;
        tp_tls_keys_nonce(k, out + TP_TLS_REC_HDR, nonce);
        uint8_t *ct = out + TP_TLS_REC_HDR + TP_TLS_NONCE12;
        memmove(ct, content, n);
        if (tp_tls_keys_seal(k, nonce, aad, sizeof(aad), ct, ct, n, ct + n) < 0)
            return 0;
    }
    k->seq++;
    return TP_TLS_REC_HDR + body;
}

/* Opens in place the record at rec (have bytes from there on) with k (opening keys), as a
 * peer would. Returns the record's length with *type, *content and *n set (TLS 1.3: the inner
 * type, the padding stripped); 0 when fewer than a whole record's bytes are there; -1 when
 * it is not a well-formed record of k's version or fails its check. */
static inline long ts_tlsrec_open(tp_tls_keys *k, uint8_t *rec, size_t have, uint8_t *type,
                                  uint8_t **content, size_t *n)
{
    if (have < TP_TLS_REC_HDR)
        return 0;
    size_t body = (size_t)rec[3] << 8 | rec[4];
    if (rec[1] != 3 || rec[2] != 3 || body > TP_TLS_REC_BODY_MAX)
        return -1;
    if (have < TP_TLS_REC_HDR + body)
        return 0;
    uint8_t nonce[12], aad[13];
    if (k->v13) {
        if (rec[0] != TP_TLS_CT_DATA || body < TP_TLS_TAG + 1)
            return -1;
        size_t clen = body - TP_TLS_TAG;
        uint8_t *ct = rec + TP_TLS_REC_HDR;
        tp_tls_keys_nonce(k, NULL, nonce);
        if (tp_tls_keys_open(k, nonce, rec, TP_TLS_REC_HDR, ct, clen) < 0)
            return -1;
        while (clen > 0 && ct[clen - 1] == 0)
            clen--;
        if (clen == 0)
            return -1;
        *type = ct[--clen];
        *content = ct;
        *n = clen;
    } else {
        if (body < TP_TLS_NONCE12 + TP_TLS_TAG)
            return -1;
        size_t clen = body - TP_TLS_NONCE12 - TP_TLS_TAG;
        uint8_t *ct = rec + TP_TLS_REC_HDR + TP_TLS_NONCE12;
        for (int i = 0; i < 8; i++)
            aad[i] = (uint8_t)(k->seq >> (56 - 8 * i));
        aad[8] = rec[0];
        aad[9] = aad[10] = 3;
        aad[11] = (uint8_t)(clen >> 8);
        aad[12] = (uint8_t)clen;
        tp_tls_keys_nonce(k, rec + TP_TLS_REC_HDR, nonce);
        if (tp_tls_keys_open(k, nonce, aad, sizeof(aad), ct, clen) < 0)
            return -1;
        *type = rec[0];
        *content = ct;
        *n = clen;
    }
    k->seq++;
    return (long)(TP_TLS_REC_HDR + body);
}

#endif
