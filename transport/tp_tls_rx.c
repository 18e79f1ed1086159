/* A TLS client's records read and decrypted in place (see tp_tls_rx.h): the read keys taken
 * over from OpenSSL after the handshake, the record layer (AES-GCM, TLS 1.2 and 1.3), and the
 * input area's bookkeeping. */
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_gcm_vaes.h"
#include "tp_stream.h"
#include "tp_tls_rx.h"

#define REC_HDR 5                   /* type, version, length */
#define REC_BODY_MAX (16384 + 2048) /* the largest TLS 1.2 ciphertext (1.3: 2^14 + 256) */
#define REC_MAX (REC_HDR + REC_BODY_MAX)
#define TAG_LEN 16
#define NONCE12 8 /* TLS 1.2: the explicit part of the nonce, sent before each record */

enum { CT_ALERT = 21, CT_HANDSHAKE = 22, CT_DATA = 23 };

struct tp_tls_rx {
    tp_gcm_vaes g;      /* the keys, when records are opened by tp_gcm_vaes */
    EVP_CIPHER_CTX *cx; /* otherwise (and always set up) */
    SSL *ssl;
    const EVP_MD *md; /* the suite's hash (TLS 1.3 key updates) */
    uint64_t seq;     /* sequence number of the next record */
    uint32_t raw_rd, raw_wr;
    uint8_t v13;
    uint8_t vaes; /* open with tp_gcm_vaes_open */
    uint8_t key_len;
    uint8_t secret_len;
    uint8_t iv[12]; /* TLS 1.2: the 4-byte implicit part; TLS 1.3: the whole IV */
    uint8_t secret[EVP_MAX_MD_SIZE];
};

/* ---- keys ------------------------------------------------------------------------------ */

/* The TLS 1.2 PRF of md over secret and seed, n bytes into out. 0 or -1. */
static int prf12(const EVP_MD *md, const uint8_t *secret, size_t slen, const uint8_t *seed,
                 size_t seed_len, uint8_t *out, size_t n)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS1-PRF", NULL);
    EVP_KDF_CTX *k = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, (void *)secret, slen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, (void *)seed, seed_len),
        OSSL_PARAM_construct_end(),
    };
    int ok = k && EVP_KDF_derive(k, out, n, p) == 1;
    EVP_KDF_CTX_free(k);
    EVP_KDF_free(kdf);
    return ok ? 0 : -1;
}

/* TLS 1.3 HKDF-Expand-Label(secret, label, "", n) with md, into out. 0 or -1. */
static int expand_label(const EVP_MD *md, const uint8_t *secret, size_t slen, const char *label,
                        uint8_t *out, size_t n)
{
    uint8_t info[2 + 1 + 6 + 32 + 1];
    size_t ll = strlen(label);
    if (ll > 32 || n > 0xFFFF)
        return -1;
    info[0] = (uint8_t)(n >> 8);
    info[1] = (uint8_t)n;
    info[2] = (uint8_t)(6 + ll);
    memcpy(info + 3, "tls13 ", 6);
    memcpy(info + 9, label, ll);
    info[9 + ll] = 0; /* empty context */
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *k = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, slen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, 10 + ll),
        OSSL_PARAM_construct_end(),
    };
    int ok = k && EVP_KDF_derive(k, out, n, p) == 1;
    EVP_KDF_CTX_free(k);
    EVP_KDF_free(kdf);
    return ok ? 0 : -1;
}

/* TLS 1.3: key and IV from rx->secret, installed; the sequence starts again. 0 or TP_EFAIL. */
static int keys13(tp_tls_rx *rx)
{
    uint8_t key[32];
    int rc = 0;
    if (expand_label(rx->md, rx->secret, rx->secret_len, "key", key, rx->key_len) < 0 ||
        expand_label(rx->md, rx->secret, rx->secret_len, "iv", rx->iv, 12) < 0 ||
        EVP_DecryptInit_ex2(rx->cx, NULL, key, NULL, NULL) != 1 ||
        (rx->vaes && tp_gcm_vaes_init(&rx->g, key, rx->key_len) < 0))
        rc = err_set("TLS: cannot derive the server's record keys");
    OPENSSL_cleanse(key, sizeof(key));
    ERR_clear_error();
    rx->seq = 0;
    return rc < 0 ? TP_EFAIL : 0;
}

/* TLS 1.2: the server's write key and implicit IV from the session's master secret, installed.
 * 0 or TP_EFAIL. */
static int keys12(tp_tls_rx *rx)
{
    uint8_t ms[64], seed[13 + 64], block[2 * 32 + 8];
    size_t ms_len = SSL_SESSION_get_master_key(SSL_get_session(rx->ssl), ms, sizeof(ms));
    memcpy(seed, "key expansion", 13);
    int rc = 0;
    if (ms_len == 0 || SSL_get_server_random(rx->ssl, seed + 13, 32) != 32 ||
        SSL_get_client_random(rx->ssl, seed + 45, 32) != 32 ||
        prf12(rx->md, ms, ms_len, seed, sizeof(seed), block, 2u * rx->key_len + 8) < 0 ||
        EVP_DecryptInit_ex2(rx->cx, NULL, block + rx->key_len, NULL, NULL) != 1 ||
        (rx->vaes && tp_gcm_vaes_init(&rx->g, block + rx->key_len, rx->key_len) < 0))
        rc = err_set("TLS: cannot derive the server's record keys");
    else
        memcpy(rx->iv, block + 2 * rx->key_len + 4, 4); /* client IV, then the server's */
    OPENSSL_cleanse(ms, sizeof(ms));
    OPENSSL_cleanse(block, sizeof(block));
    ERR_clear_error();
    return rc < 0 ? TP_EFAIL : 0;
}

/* Whether records may be opened by tp_gcm_vaes (where the CPU can): unless RWFPERF_TLS_VAES=0,
 * which leaves them to OpenSSL (to compare the two). */
static int vaes_allowed(void)
{
    const char *e = getenv("RWFPERF_TLS_VAES");
    return !e || strcmp(e, "0") != 0;
}

int tp_tls_rx_new(SSL *ssl, const uint8_t *secret13, size_t secret_len, uint64_t records_read,
                  tp_tls_rx **out)
{
    *out = NULL;
    const SSL_CIPHER *c = SSL_get_current_cipher(ssl);
    int ver = SSL_version(ssl);
    if (!c || (ver != TLS1_2_VERSION && ver != TLS1_3_VERSION))
        return 1;
    int nid = SSL_CIPHER_get_cipher_nid(c);
    const char *cname = nid == NID_aes_128_gcm   ? "AES-128-GCM"
                        : nid == NID_aes_256_gcm ? "AES-256-GCM"
                                                 : NULL;
    const EVP_MD *md = SSL_CIPHER_get_handshake_digest(c);
    if (!cname || !md)
        return 1;
    if (ver == TLS1_3_VERSION &&
        (secret_len == 0 || secret_len > EVP_MAX_MD_SIZE || (int)secret_len != EVP_MD_get_size(md)))
        return 1; /* the key-log callback reported no secret for this connection */
    tp_tls_rx *rx = calloc(1, sizeof(*rx));
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, cname, NULL);
    if (rx)
        rx->cx = EVP_CIPHER_CTX_new();
    if (!rx || !cipher || !rx->cx || EVP_DecryptInit_ex2(rx->cx, cipher, NULL, NULL, NULL) != 1) {
        EVP_CIPHER_free(cipher);
        ERR_clear_error();
        tp_tls_rx_free(rx);
        return err_set("TLS: cannot set up reading records in place (%s)", cname);
    }
    EVP_CIPHER_free(cipher); /* the context keeps its reference */
    rx->ssl = ssl;
    rx->md = md;
    rx->key_len = nid == NID_aes_128_gcm ? 16 : 32;
    rx->v13 = ver == TLS1_3_VERSION;
    rx->vaes = vaes_allowed() && tp_gcm_vaes_available();
    int rc;
    if (rx->v13) {
        memcpy(rx->secret, secret13, secret_len);
        rx->secret_len = (uint8_t)secret_len;
        rc = keys13(rx);
        rx->seq = records_read;
    } else {
        rc = keys12(rx);
        rx->seq = records_read + 1; /* the server's Finished was record 0 */
    }
    if (rc < 0) {
        tp_tls_rx_free(rx);
        return TP_EFAIL;
    }
    *out = rx;
    return 0;
}

void tp_tls_rx_free(tp_tls_rx *rx)
{
    if (!rx)
        return;
    EVP_CIPHER_CTX_free(rx->cx);
    OPENSSL_cleanse(rx, sizeof(*rx));
    free(rx);
}

/* ---- records ----------------------------------------------------------------------------- */

/* AES-GCM decryption of n bytes at ct in place, checked against the tag after them. 0 or -1. */
static int decrypt(tp_tls_rx *rx, const uint8_t nonce[12], const uint8_t *aad, int alen,
                   uint8_t *ct, uint32_t n)
{
    if (rx->vaes)
        return tp_gcm_vaes_open(&rx->g, nonce, aad, (size_t)alen, ct, n, ct + n);
    int l = 0, l2 = 0;
    if (EVP_DecryptInit_ex2(rx->cx, NULL, NULL, nonce, NULL) == 1 &&
        EVP_DecryptUpdate(rx->cx, NULL, &l, aad, alen) == 1 &&
        EVP_DecryptUpdate(rx->cx, ct, &l, ct, (int)n) == 1 &&
        EVP_CIPHER_CTX_ctrl(rx->cx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, ct + n) == 1 &&
        EVP_DecryptFinal_ex(rx->cx, ct + l, &l2) == 1)
        return 0;
    ERR_clear_error();
    return -1;
}

/* Opens the record at rec (body bytes after its header) in place: *pt and *len give its
 * content, *type its content type. 0, or TP_EFAIL with err_set(). */
static int open_record(tp_tls_rx *rx, uint8_t *rec, uint32_t body, uint8_t **pt, uint32_t *len,
                       uint8_t *type)
{
    uint8_t nonce[12], aad[13];
    uint8_t *ct;
    uint32_t clen;
    int alen;
    if (rx->v13) {
        if (rec[0] != CT_DATA)
            return err_set("TLS 1.3 record of outer type %u after the handshake", rec[0]);
        if (body < TAG_LEN + 1)
            return err_set("TLS record of %u bytes is shorter than its tag", body);
        memcpy(nonce, rx->iv, 12);
        for (int i = 0; i < 8; i++)
            nonce[4 + i] ^= (uint8_t)(rx->seq >> (56 - 8 * i));
        memcpy(aad, rec, REC_HDR);
        alen = REC_HDR;
        ct = rec + REC_HDR;
        clen = body - TAG_LEN;
    } else {
        if (body < NONCE12 + TAG_LEN)
            return err_set("TLS record of %u bytes is shorter than its nonce and tag", body);
        memcpy(nonce, rx->iv, 4);
        memcpy(nonce + 4, rec + REC_HDR, NONCE12);
        ct = rec + REC_HDR + NONCE12;
        clen = body - NONCE12 - TAG_LEN;
        for (int i = 0; i < 8; i++)
            aad[i] = (uint8_t)(rx->seq >> (56 - 8 * i));
        aad[8] = rec[0];
        aad[9] = rec[1];
        aad[10] = rec[2];
        aad[11] = (uint8_t)(clen >> 8);
        aad[12] = (uint8_t)clen;
        alen = 13;
    }
    if (decrypt(rx, nonce, aad, alen, ct, clen) < 0)
        return err_set("TLS record %llu from the server failed its integrity check "
                       "(bad_record_mac)",
                       (unsigned long long)rx->seq);
    rx->seq++;
    if (rx->v13) { /* content, content type, zero padding */
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
        if (!rx->v13 && p[0] == 0 && mlen == 0) {
            /* hello request: the client does not renegotiate and may ignore it */
        } else if (rx->v13 && p[0] == 4) {
            /* new session ticket: the client keeps no session */
        } else if (rx->v13 && p[0] == 24 && mlen == 1 && p[4] <= 1 && n == 5) {
            uint8_t next[EVP_MAX_MD_SIZE];
            if (expand_label(rx->md, rx->secret, rx->secret_len, "traffic upd", next,
                             rx->secret_len) < 0)
                return err_set("TLS: cannot follow the server's key update");
            memcpy(rx->secret, next, rx->secret_len);
            OPENSSL_cleanse(next, sizeof(next));
            if (keys13(rx) < 0)
                return TP_EFAIL;
            if (p[4] == 1 && SSL_key_update(rx->ssl, SSL_KEY_UPDATE_NOT_REQUESTED) != 1) {
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
    case CT_ALERT:
        if (n != 2)
            return err_set("TLS alert record of %u bytes from the server", n);
        if (p[1] == 0) {
            err_set("connection closed by peer (TLS close_notify)");
            return TP_IO_EOF;
        }
        return err_set("TLS alert from the server: %s (%u)", SSL_alert_desc_string_long(p[1]),
                       p[1]);
    case CT_HANDSHAKE:
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
    rx->raw_rd += REC_HDR + body;
    if (type != CT_DATA)
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
    if (have < REC_HDR)
        return 0;
    const uint8_t *h = ch->in + rx->raw_rd;
    uint32_t body = tp_get16(h + 3);
    if (body > REC_BODY_MAX || h[1] != 3 || h[0] < 20 || h[0] > 23)
        return REC_HDR + body; /* reported at once, whatever follows */
    return have >= REC_HDR + body ? REC_HDR + body : 0;
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
    if (ch->in_cap - rx->raw_wr >= REC_MAX)
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
            if (len > REC_MAX) {
                err_set("TLS record of %u bytes from the server exceeds the maximum of %u",
                        len - REC_HDR, REC_BODY_MAX);
                return TP_EFAIL;
            }
            int rc = take_record(ch, rx, rec, len - REC_HDR);
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
