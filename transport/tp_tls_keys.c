/* One direction's record protection taken over from OpenSSL (see tp_tls_keys.h): key
 * derivation for TLS 1.2 and 1.3, key updates, sealing and opening. */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>
#include <string.h>

#include "tp_int.h"
#include "tp_tls_keys.h"

/* The TLS 1.2 PRF of md over secret and seed, n bytes into out. 0 or -1. */
static int prf12(const EVP_MD *md, const uint8_t *secret, size_t slen, const uint8_t *seed,
                 size_t seed_len, uint8_t *out, size_t n)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS1-PRF", NULL);
    EVP_KDF_CTX *c = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, (void *)secret, slen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, (void *)seed, seed_len),
        OSSL_PARAM_construct_end(),
    };
    int ok = c && EVP_KDF_derive(c, out, n, p) == 1;
    EVP_KDF_CTX_free(c);
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
    EVP_KDF_CTX *c = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, slen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, 10 + ll),
        OSSL_PARAM_construct_end(),
    };
    int ok = c && EVP_KDF_derive(c, out, n, p) == 1;
    EVP_KDF_CTX_free(c);
    EVP_KDF_free(kdf);
    return ok ? 0 : -1;
}

int tp_tls13_traffic_keys(const EVP_MD *md, const uint8_t *secret, size_t secret_len, uint8_t *key,
                          size_t key_len, uint8_t iv[12])
{
    return expand_label(md, secret, secret_len, "key", key, key_len) < 0 ||
                   expand_label(md, secret, secret_len, "iv", iv, 12) < 0
               ? -1
               : 0;
}

int tp_tls13_next_secret(const EVP_MD *md, const uint8_t *secret, size_t secret_len, uint8_t *next)
{
    return expand_label(md, secret, secret_len, "traffic upd", next, secret_len);
}

int tp_tls12_key_block(const EVP_MD *md, const uint8_t *ms, size_t ms_len,
                       const uint8_t server_random[32], const uint8_t client_random[32],
                       uint8_t *out, size_t n)
{
    uint8_t seed[13 + 64];
    memcpy(seed, "key expansion", 13);
    memcpy(seed + 13, server_random, 32);
    memcpy(seed + 45, client_random, 32);
    return prf12(md, ms, ms_len, seed, sizeof(seed), out, n);
}

/* Installs key (k->key_len bytes) in the cipher(s). 0 or -1. */
static int install(tp_tls_keys *k, const uint8_t *key)
{
    int ok = k->enc ? EVP_EncryptInit_ex2(k->cx, NULL, key, NULL, NULL) == 1
                    : EVP_DecryptInit_ex2(k->cx, NULL, key, NULL, NULL) == 1;
    if (ok && k->vaes && tp_gcm_vaes_init(&k->g, key, k->key_len) < 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* TLS 1.3: key and IV from k->secret, installed; the sequence starts again. 0 or TP_EFAIL. */
static int keys13(tp_tls_keys *k)
{
    uint8_t key[32];
    int rc = 0;
    if (tp_tls13_traffic_keys(k->md, k->secret, k->secret_len, key, k->key_len, k->iv) < 0 ||
        install(k, key) < 0)
        rc = err_set("TLS: cannot derive the server's record keys");
    OPENSSL_cleanse(key, sizeof(key));
    ERR_clear_error();
    k->seq = 0;
    return rc < 0 ? TP_EFAIL : 0;
}

/* TLS 1.2: the server's write key and implicit IV from the session's master secret,
 * installed. 0 or TP_EFAIL. */
static int keys12(tp_tls_keys *k)
{
    uint8_t ms[64], sr[32], cr[32], block[2 * 32 + 8];
    size_t ms_len = SSL_SESSION_get_master_key(SSL_get_session(k->ssl), ms, sizeof(ms));
    int rc = 0;
    /* the key block: client key, server key, client IV, server IV */
    if (ms_len == 0 || SSL_get_server_random(k->ssl, sr, 32) != 32 ||
        SSL_get_client_random(k->ssl, cr, 32) != 32 ||
        tp_tls12_key_block(k->md, ms, ms_len, sr, cr, block, 2u * k->key_len + 8) < 0 ||
        install(k, block + k->key_len) < 0)
        rc = err_set("TLS: cannot derive the server's record keys");
    else
        memcpy(k->iv, block + 2 * k->key_len + 4, 4);
    OPENSSL_cleanse(ms, sizeof(ms));
    OPENSSL_cleanse(block, sizeof(block));
    ERR_clear_error();
    return rc < 0 ? TP_EFAIL : 0;
}

/* Whether gcm means tp_gcm_vaes (1) or OpenSSL (0) here; TP_EFAIL for VAES on a CPU without
 * it, or a value that is no choice. */
static int use_vaes(tp_tls_gcm gcm)
{
    switch (gcm) {
    case TP_TLS_GCM_AUTO:
        return tp_gcm_vaes_available();
    case TP_TLS_GCM_OPENSSL:
        return 0;
    case TP_TLS_GCM_VAES:
        if (tp_gcm_vaes_available())
            return 1;
        return err_set("TLS records with tp_gcm_vaes asked for, but this CPU (or OS) lacks "
                       "AES-NI, PCLMULQDQ, AVX2, VAES or VPCLMULQDQ");
    }
    return err_set("TLS: AES-GCM code choice %d is none of auto, vaes, openssl", (int)gcm);
}

bool tp_tls_vaes_available(void)
{
    return tp_gcm_vaes_available() != 0;
}

/* The common part of the set-ups: k cleared, its cipher context for AES-128-GCM or
 * AES-256-GCM (key_len), the choice of code. 0 or TP_EFAIL (k then holds nothing). */
static int setup(tp_tls_keys *k, int enc, size_t key_len, const EVP_MD *md, tp_tls_gcm gcm)
{
    memset(k, 0, sizeof(*k));
    int vaes = use_vaes(gcm);
    if (vaes < 0)
        return TP_EFAIL;
    const char *cname = key_len == 16 ? "AES-128-GCM" : "AES-256-GCM";
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, cname, NULL);
    k->cx = EVP_CIPHER_CTX_new();
    int ok = cipher && k->cx &&
             (enc ? EVP_EncryptInit_ex2(k->cx, cipher, NULL, NULL, NULL)
                  : EVP_DecryptInit_ex2(k->cx, cipher, NULL, NULL, NULL)) == 1;
    EVP_CIPHER_free(cipher); /* the context keeps its reference */
    if (!ok) {
        ERR_clear_error();
        tp_tls_keys_clear(k);
        return err_set("TLS: cannot set up %s records (%s)", enc ? "sealing" : "opening", cname);
    }
    k->md = md;
    k->enc = (uint8_t)(enc != 0);
    k->key_len = (uint8_t)key_len;
    k->vaes = (uint8_t)vaes;
    return 0;
}

int tp_tls_keys_init(tp_tls_keys *k, SSL *ssl, int enc, const uint8_t *secret13, size_t secret_len,
                     uint64_t records_after_hs, tp_tls_gcm gcm)
{
    memset(k, 0, sizeof(*k));
    const SSL_CIPHER *c = SSL_get_current_cipher(ssl);
    int ver = SSL_version(ssl);
    if (!c || (ver != TLS1_2_VERSION && ver != TLS1_3_VERSION))
        return 1;
    int nid = SSL_CIPHER_get_cipher_nid(c);
    const EVP_MD *md = SSL_CIPHER_get_handshake_digest(c);
    if ((nid != NID_aes_128_gcm && nid != NID_aes_256_gcm) || !md)
        return 1;
    if (ver == TLS1_3_VERSION && (secret_len == 0 || secret_len > sizeof(k->secret) ||
                                  (int)secret_len != EVP_MD_get_size(md)))
        return 1; /* the key-log callback reported no secret for this connection */
    if (setup(k, enc, nid == NID_aes_128_gcm ? 16 : 32, md, gcm) < 0)
        return TP_EFAIL;
    k->ssl = ssl;
    k->v13 = ver == TLS1_3_VERSION;
    int rc;
    if (k->v13) {
        memcpy(k->secret, secret13, secret_len);
        k->secret_len = (uint8_t)secret_len;
        rc = keys13(k);
        k->seq = records_after_hs;
    } else {
        rc = keys12(k);
        k->seq = records_after_hs + 1; /* the server's Finished was record 0 */
    }
    if (rc < 0) {
        tp_tls_keys_clear(k);
        return TP_EFAIL;
    }
    return 0;
}

int tp_tls_keys_init_test(tp_tls_keys *k, int enc, int v13, size_t key_len, const uint8_t *secret,
                          size_t secret_len, uint64_t seq, tp_tls_gcm gcm)
{
    memset(k, 0, sizeof(*k));
    if (key_len != 16 && key_len != 32)
        return err_set("TLS test keys: an AES-GCM key has 16 or 32 bytes, not %zu", key_len);
    if (v13 ? secret_len != 32 && secret_len != 48 : secret_len != key_len + 4)
        return err_set("TLS test keys: a %s secret of %zu bytes fits no suite",
                       v13 ? "TLS 1.3" : "TLS 1.2", secret_len);
    const EVP_MD *md = (v13 ? secret_len == 48 : key_len == 32) ? EVP_sha384() : EVP_sha256();
    if (setup(k, enc, key_len, md, gcm) < 0)
        return TP_EFAIL;
    k->v13 = (uint8_t)(v13 != 0);
    int rc = 0;
    if (k->v13) {
        memcpy(k->secret, secret, secret_len);
        k->secret_len = (uint8_t)secret_len;
        rc = keys13(k);
    } else {
        memcpy(k->iv, secret + key_len, 4);
        if (install(k, secret) < 0)
            rc = err_set("TLS test keys: cannot install the key");
        ERR_clear_error();
    }
    if (rc < 0) {
        tp_tls_keys_clear(k);
        return TP_EFAIL;
    }
    k->seq = seq;
    return 0;
}

int tp_tls_keys_update(tp_tls_keys *k)
{
    uint8_t next[64];
    if (tp_tls13_next_secret(k->md, k->secret, k->secret_len, next) < 0) {
        ERR_clear_error();
        return err_set("TLS: cannot follow a key update");
    }
    memcpy(k->secret, next, k->secret_len);
    OPENSSL_cleanse(next, sizeof(next));
    k->generation++;
    return keys13(k);
}

void tp_tls_keys_nonce(const tp_tls_keys *k, const uint8_t *expl, uint8_t nonce[12])
{
    if (k->v13) {
        memcpy(nonce, k->iv, 12);
        for (int i = 0; i < 8; i++)
            nonce[4 + i] ^= (uint8_t)(k->seq >> (56 - 8 * i));
    } else {
        memcpy(nonce, k->iv, 4);
        memcpy(nonce + 4, expl, TP_TLS_NONCE12);
    }
}

int tp_tls_keys_open(tp_tls_keys *k, const uint8_t nonce[12], const uint8_t *aad, size_t alen,
                     uint8_t *ct, size_t n)
{
    if (k->vaes)
        return tp_gcm_vaes_open(&k->g, nonce, aad, alen, ct, n, ct + n);
    int l = 0, l2 = 0;
    if (EVP_DecryptInit_ex2(k->cx, NULL, NULL, nonce, NULL) == 1 &&
        EVP_DecryptUpdate(k->cx, NULL, &l, aad, (int)alen) == 1 &&
        EVP_DecryptUpdate(k->cx, ct, &l, ct, (int)n) == 1 &&
        EVP_CIPHER_CTX_ctrl(k->cx, EVP_CTRL_AEAD_SET_TAG, TP_TLS_TAG, ct + n) == 1 &&
        EVP_DecryptFinal_ex(k->cx, ct + l, &l2) == 1)
        return 0;
    ERR_clear_error();
    return -1;
}

int tp_tls_keys_seal(tp_tls_keys *k, const uint8_t nonce[12], const uint8_t *aad, size_t alen,
                     const uint8_t *src, uint8_t *dst, size_t n, uint8_t *tag)
{
    if (k->vaes) {
        tp_gcm_vaes_seal(&k->g, nonce, aad, alen, src, dst, n, tag);
        return 0;
    }
    int l = 0, l2 = 0;
    if (EVP_EncryptInit_ex2(k->cx, NULL, NULL, nonce, NULL) == 1 &&
        EVP_EncryptUpdate(k->cx, NULL, &l, aad, (int)alen) == 1 &&
        EVP_EncryptUpdate(k->cx, dst, &l, src, (int)n) == 1 &&
        EVP_EncryptFinal_ex(k->cx, dst + l, &l2) == 1 &&
        EVP_CIPHER_CTX_ctrl(k->cx, EVP_CTRL_AEAD_GET_TAG, TP_TLS_TAG, tag) == 1)
        return 0;
    ERR_clear_error();
    return err_set("TLS: cannot seal a record");
}

void tp_tls_keys_clear(tp_tls_keys *k)
{
    EVP_CIPHER_CTX_free(k->cx);
    OPENSSL_cleanse(k, sizeof(*k));
}
