/*
 * tp_tls_keys: the protection of the records one side of a TLS connection writes, taken over
 * from OpenSSL after the handshake (AES-GCM suites, TLS 1.2 and 1.3): its key and IV, its
 * sequence number, and the sealing and opening of records with it (tp_gcm_vaes where the CPU
 * can, else OpenSSL's EVP). Used for the server's records: read in place by a client
 * (tp_tls_rx) and written by a server (tp_tls_tx).
 *
 * Keys: TLS 1.2 from the session's master secret expanded with the two randoms (the PRF of
 * the suite's hash); TLS 1.3 from the server's application traffic secret (reported by
 * OpenSSL's key-log callback), with HKDF-Expand-Label, and followed through key updates.
 *
 * Nonces never repeat under one key: the sequence number counts every record of the key and
 * starts again only with a new key (TLS 1.3 key update); a sealing side stops at
 * TP_TLS_GCM_RECORD_LIMIT records per key, and an opening side fails a record that would
 * take the sequence number past 2^64 - 1.
 */
#ifndef RWFPERF_TP_TLS_KEYS_H
#define RWFPERF_TP_TLS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "tp.h"
#include "tp_gcm_vaes.h"

struct ssl_st;
struct evp_cipher_ctx_st;
struct evp_md_st;

#define TP_TLS_REC_HDR 5                   /* type, version, length */
#define TP_TLS_REC_BODY_MAX (16384 + 2048) /* the largest TLS 1.2 ciphertext */
#define TP_TLS_REC_MAX (TP_TLS_REC_HDR + TP_TLS_REC_BODY_MAX)
#define TP_TLS_TAG 16
#define TP_TLS_NONCE12 8 /* TLS 1.2: the explicit part of the nonce, sent before each record */

/* The most records one AES-GCM key seals: 2^24.5 (RFC 8446 section 5.5, the limit for full-size
 * records that keeps the authenticated encryption margin near 2^-57). A TLS 1.3 sealing side
 * updates its keys before it would pass it (its KeyUpdate is the key's last record); a TLS 1.2
 * one, which cannot change keys without renegotiating, fails the channel instead. */
#define TP_TLS_GCM_RECORD_LIMIT 23726566u

/* GCM's 32-bit block counter cannot wrap inside a record: with a 96-bit nonce it starts at 2
 * (1 is the tag's), and the largest record body holds fewer than 2^32 - 2 blocks. */
_Static_assert(TP_TLS_REC_BODY_MAX / 16 + 2 < ((uint64_t)1 << 32),
               "a record cannot wrap the GCM block counter");

/* record content types */
enum { TP_TLS_CT_ALERT = 21, TP_TLS_CT_HANDSHAKE = 22, TP_TLS_CT_DATA = 23 };

typedef struct tp_tls_keys {
    tp_gcm_vaes g;                /* the key, when tp_gcm_vaes is used */
    struct evp_cipher_ctx_st *cx; /* otherwise (always set up) */
    struct ssl_st *ssl;           /* NULL when set up by tp_tls_keys_init_test */
    const struct evp_md_st *md;   /* the suite's hash */
    uint64_t seq;                 /* sequence number of the next record */
    uint32_t generation;          /* key updates followed (TLS 1.3) */
    uint8_t v13;
    uint8_t vaes;
    uint8_t enc; /* sealing (1) or opening (0) */
    uint8_t key_len;
    uint8_t secret_len;
    uint8_t iv[12]; /* TLS 1.2: the 4-byte implicit part; TLS 1.3: the whole IV */
    uint8_t secret[64];
} tp_tls_keys;

/* Sets up k for the records the server of ssl (handshake complete) writes, to seal them
 * (enc) or open them, with the AES-GCM code gcm chooses: secret13 (secret_len bytes) is the
 * server's TLS 1.3 application traffic secret (unused for TLS 1.2), records_after_hs the
 * records of that direction OpenSSL handled after the handshake. Returns 0; 1 when the
 * version or suite is not one handled here (k holds nothing to free); TP_EFAIL with
 * err_set(). */
int tp_tls_keys_init(tp_tls_keys *k, struct ssl_st *ssl, int enc, const uint8_t *secret13,
                     size_t secret_len, uint64_t records_after_hs, tp_tls_gcm gcm);

/* Test-only (the record-layer tests and fuzz targets, which have no handshake): sets up k as
 * tp_tls_keys_init would, from given keys instead of an OpenSSL connection. TLS 1.3 (v13):
 * secret is the traffic secret (secret_len 32: SHA-256, 48: SHA-384), key_len 16 or 32;
 * TLS 1.2: secret is the write key (key_len bytes) followed by the 4-byte implicit IV
 * (secret_len = key_len + 4), the PRF hash SHA-256 for AES-128, SHA-384 for AES-256. seq is
 * the sequence number of the next record (a test starts it near a limit). k->ssl stays NULL.
 * Returns 0, or TP_EFAIL with err_set() (sizes that fit no suite, VAES where the CPU lacks
 * it). */
int tp_tls_keys_init_test(tp_tls_keys *k, int enc, int v13, size_t key_len, const uint8_t *secret,
                          size_t secret_len, uint64_t seq, tp_tls_gcm gcm);

/* TLS 1.3 key update: the next traffic secret, key and IV; the sequence starts again. 0 or
 * TP_EFAIL. */
int tp_tls_keys_update(tp_tls_keys *k);

/* Opens (decrypts in place and checks) the n bytes at ct, whose tag follows them, with the
 * record's nonce and additional data. 0, or -1 when the check fails. */
int tp_tls_keys_open(tp_tls_keys *k, const uint8_t nonce[12], const uint8_t *aad, size_t alen,
                     uint8_t *ct, size_t n);

/* Seals n bytes from src into dst (the same place, or not overlapping) and writes the tag at
 * tag. 0 or TP_EFAIL. */
int tp_tls_keys_seal(tp_tls_keys *k, const uint8_t nonce[12], const uint8_t *aad, size_t alen,
                     const uint8_t *src, uint8_t *dst, size_t n, uint8_t *tag);

/* The nonce of record k->seq: TLS 1.3 the IV with the sequence number mixed in; TLS 1.2 the
 * implicit part and the 8 explicit bytes at expl. */
void tp_tls_keys_nonce(const tp_tls_keys *k, const uint8_t *expl, uint8_t nonce[12]);

/* Frees what k holds and wipes its keys. */
void tp_tls_keys_clear(tp_tls_keys *k);

/* ---- the derivations, exposed for their known-answer tests ------------------------------ */

/* TLS 1.3 (RFC 8446 section 7.3): the record key (key_len bytes) and the 12-byte IV of a
 * traffic secret, with HKDF-Expand-Label over md. 0 or -1. */
int tp_tls13_traffic_keys(const struct evp_md_st *md, const uint8_t *secret, size_t secret_len,
                          uint8_t *key, size_t key_len, uint8_t iv[12]);

/* TLS 1.3 (RFC 8446 section 7.2): the next traffic secret (secret_len bytes into next). 0 or
 * -1. */
int tp_tls13_next_secret(const struct evp_md_st *md, const uint8_t *secret, size_t secret_len,
                         uint8_t *next);

/* TLS 1.2 (RFC 5246 section 6.3): n bytes of the key block of master secret ms, the PRF of
 * md over "key expansion" and the server's then the client's random. 0 or -1. */
int tp_tls12_key_block(const struct evp_md_st *md, const uint8_t *ms, size_t ms_len,
                       const uint8_t server_random[32], const uint8_t client_random[32],
                       uint8_t *out, size_t n);

#endif
