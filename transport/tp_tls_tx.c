/* A TLS server's records sealed by the transport (see tp_tls_tx.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_int.h"
#include "tp_tls_keys.h"
#include "tp_tls_tx.h"

#define PLAIN_PER_RECORD 16384
#define RECORDS_PER_SEND 1 /* one record per send(): four measured worse for the reader */
/* a record's bytes beyond its content: header, TLS 1.2 nonce or TLS 1.3 content type, tag */
#define OVERHEAD (TP_TLS_REC_HDR + TP_TLS_NONCE12 + TP_TLS_TAG)
#define TX_BUF ((RECORDS_PER_SEND + 1) * (PLAIN_PER_RECORD + OVERHEAD))

struct tp_tls_tx {
    tp_tls_keys k;
    size_t len, sent;        /* sealed bytes in buf, and how many of them are in the socket */
    unsigned nrec, credited; /* records in buf; the first credited were reported taken */
    uint32_t rec_end[RECORDS_PER_SEND + 1];   /* where each record ends in buf */
    uint32_t rec_plain[RECORDS_PER_SEND + 1]; /* the caller's bytes it carries */
    uint8_t ku_asked;
    uint8_t buf[TX_BUF];
};

/* A sealer with nothing buffered (its keys not set up). NULL after err_set(). */
static tp_tls_tx *tx_alloc(void)
{
    tp_tls_tx *tx = malloc(sizeof(*tx));
    if (!tx) {
        err_set("out of memory for sealing TLS records");
        return NULL;
    }
    tx->len = tx->sent = 0;
    tx->nrec = tx->credited = 0;
    tx->ku_asked = 0;
    return tx;
}

int tp_tls_tx_new(struct ssl_st *ssl, const uint8_t *secret13, size_t secret_len,
                  uint64_t records_written, tp_tls_gcm gcm, tp_tls_tx **out)
{
    *out = NULL;
    tp_tls_tx *tx = tx_alloc();
    if (!tx)
        return TP_EFAIL;
    int rc = tp_tls_keys_init(&tx->k, ssl, 1, secret13, secret_len, records_written, gcm);
    if (rc != 0) {
        free(tx);
        return rc;
    }
    *out = tx;
    return 0;
}

int tp_tls_tx_new_test(tp_tls_keys *k, tp_tls_tx **out)
{
    *out = NULL;
    tp_tls_tx *tx = tx_alloc();
    if (!tx) {
        tp_tls_keys_clear(k);
        return TP_EFAIL;
    }
    tx->k = *k;
    memset(k, 0, sizeof(*k));
    *out = tx;
    return 0;
}

const tp_tls_keys *tp_tls_tx_keys(const tp_tls_tx *tx)
{
    return &tx->k;
}

void tp_tls_tx_free(tp_tls_tx *tx)
{
    if (!tx)
        return;
    tp_tls_keys_clear(&tx->k);
    free(tx);
}

void tp_tls_tx_key_update_asked(tp_tls_tx *tx)
{
    if (tx->k.v13) /* TLS 1.2 has no key update: its handshake message 24 is OpenSSL's to refuse */
        tx->ku_asked = 1;
}

/* Seals one record of content type type holding n bytes from src (n <= 16384) at dst (room
 * for n + OVERHEAD bytes). Returns the record's size, or TP_EFAIL when the key has sealed its
 * TP_TLS_GCM_RECORD_LIMIT records (never more, whoever asks). */
static long seal_record(tp_tls_keys *k, uint8_t type, const uint8_t *src, size_t n, uint8_t *dst)
{
    uint8_t nonce[12], aad[13];
    size_t body;
    int rc;
    if (k->seq >= TP_TLS_GCM_RECORD_LIMIT)
        return err_set("TLS %s: %u records sealed under one key, the AES-GCM limit (RFC 8446 "
                       "section 5.5)%s",
                       k->v13 ? "1.3" : "1.2", TP_TLS_GCM_RECORD_LIMIT,
                       k->v13 ? ""
                              : "; TLS 1.2 changes keys only by renegotiating, which the "
                                "transport does not do: the channel closes");
    if (k->v13) { /* outer type data; the content, then its type, sealed */
        body = n + 1 + TP_TLS_TAG;
        dst[0] = TP_TLS_CT_DATA;
        dst[1] = dst[2] = 3;
        tp_put16(dst + 3, (uint32_t)body);
        uint8_t *ct = dst + TP_TLS_REC_HDR;
        memmove(ct, src, n);
        ct[n] = type;
        tp_tls_keys_nonce(k, NULL, nonce);
        rc = tp_tls_keys_seal(k, nonce, dst, TP_TLS_REC_HDR, ct, ct, n + 1, ct + n + 1);
    } else { /* explicit nonce (the sequence number), then the content sealed from src */
        body = TP_TLS_NONCE12 + n + TP_TLS_TAG;
        dst[0] = type;
        dst[1] = dst[2] = 3;
        tp_put16(dst + 3, (uint32_t)body);
        for (int i = 0; i < 8; i++)
            aad[i] = dst[TP_TLS_REC_HDR + i] = (uint8_t)(k->seq >> (56 - 8 * i));
        aad[8] = type;
        aad[9] = aad[10] = 3;
        tp_put16(aad + 11, (uint32_t)n);
        tp_tls_keys_nonce(k, dst + TP_TLS_REC_HDR, nonce);
        uint8_t *ct = dst + TP_TLS_REC_HDR + TP_TLS_NONCE12;
        rc = tp_tls_keys_seal(k, nonce, aad, sizeof(aad), src, ct, n, ct + n);
    }
    if (rc < 0)
        return TP_EFAIL;
    k->seq++;
    return (long)(TP_TLS_REC_HDR + body);
}

/* Sends what is sealed and not yet sent. 1 when all of it is in the socket, 0 when the socket
 * is full, TP_EFAIL. */
static int push(tp_tls_tx *tx, int fd)
{
    while (tx->sent < tx->len) {
        ssize_t r = send(fd, tx->buf + tx->sent, tx->len - tx->sent, MSG_NOSIGNAL);
        if (r > 0) {
            tx->sent += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        tp_send_failed(r < 0 ? errno : EPIPE, "send");
        return TP_EFAIL;
    }
    return 1;
}

/* Seals up to RECORDS_PER_SEND records of the n bytes at buf into the empty record buffer,
 * after a key update when one was asked for or when the key (TLS 1.3) is down to its last
 * record. 0 or TP_EFAIL. */
static int seal_batch(tp_tls_tx *tx, const uint8_t *buf, size_t n)
{
    _Static_assert(RECORDS_PER_SEND < TP_TLS_GCM_RECORD_LIMIT, "one key update per batch");
    size_t at = 0, take = 0;
    tx->nrec = tx->credited = 0;
    /* A key has room for the batch's records and its KeyUpdate, or the KeyUpdate comes first
     * (a new key has room for the batch). */
    if (tx->k.v13 && tx->k.seq + RECORDS_PER_SEND >= TP_TLS_GCM_RECORD_LIMIT)
        tx->ku_asked = 1;
    if (tx->ku_asked) { /* KeyUpdate, update_not_requested, under the keys it replaces */
        static const uint8_t ku[5] = {24, 0, 0, 1, 0};
        long r = seal_record(&tx->k, TP_TLS_CT_HANDSHAKE, ku, sizeof(ku), tx->buf);
        if (r < 0 || tp_tls_keys_update(&tx->k) < 0)
            return TP_EFAIL;
        at = (size_t)r;
        tx->rec_end[tx->nrec] = (uint32_t)at;
        tx->rec_plain[tx->nrec++] = 0;
        tx->ku_asked = 0;
    }
    while (take < n && take < RECORDS_PER_SEND * PLAIN_PER_RECORD) {
        size_t m = n - take < PLAIN_PER_RECORD ? n - take : PLAIN_PER_RECORD;
        long r = seal_record(&tx->k, TP_TLS_CT_DATA, buf + take, m, tx->buf + at);
        if (r < 0)
            return TP_EFAIL;
        at += (size_t)r;
        take += m;
        tx->rec_end[tx->nrec] = (uint32_t)at;
        tx->rec_plain[tx->nrec++] = (uint32_t)m;
    }
    tx->len = at;
    tx->sent = 0;
    return 0;
}

long tp_tls_tx_write(tp_tls_tx *tx, int fd, const uint8_t *buf, size_t n)
{
    if (tx->len == 0 && seal_batch(tx, buf, n) < 0)
        return TP_EFAIL;
    int rc = push(tx, fd);
    if (rc < 0)
        return rc;
    /* the bytes of the records now wholly in the socket are taken */
    size_t taken = 0;
    while (tx->credited < tx->nrec && tx->rec_end[tx->credited] <= tx->sent)
        taken += tx->rec_plain[tx->credited++];
    if (rc == 1)
        tx->len = tx->sent = 0;
    return (long)taken;
}

void tp_tls_tx_close(tp_tls_tx *tx, int fd)
{
    if ((tx->len && push(tx, fd) != 1) || tx->k.seq >= TP_TLS_GCM_RECORD_LIMIT)
        return; /* still busy, or the key has sealed all it may */
    static const uint8_t close_notify[2] = {1, 0};
    long r = seal_record(&tx->k, TP_TLS_CT_ALERT, close_notify, sizeof(close_notify), tx->buf);
    if (r > 0) {
        tx->len = (size_t)r;
        tx->sent = 0;
        tx->nrec = tx->credited = 0;
        (void)push(tx, fd);
    }
}
