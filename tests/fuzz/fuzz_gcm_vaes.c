/*
 * libFuzzer target: tp_gcm_vaes against OpenSSL's EVP AES-GCM (differential). The input is
 *
 *   byte 0     bit 0: AES-256 (else AES-128); bit 1: seal in place (else from another
 *              buffer); bits 2-3: what a changed byte hits (0-1 ciphertext, 2 AAD, 3 tag)
 *   byte 1     the plaintext's offset in its buffer (0..31), byte 2 the output's (0..31)
 *   bytes 3-4  the length, big-endian, modulo 17 KiB + 1 (0 .. 17408)
 *   byte 5     the AAD's length (0..255)
 *   bytes 6-7  which byte is changed, big-endian (modulo the length of what it hits); byte 8
 *              its XOR (0 taken as 1)
 *   then       the key (16 or 32 bytes), the 12-byte IV, the AAD, the plaintext: what the
 *              input holds of them, the rest zeros
 *
 * Checks: the seal gives OpenSSL's ciphertext and tag, in place or not, at any alignment,
 * touching no byte around its output; the open of OpenSSL's output gives the plaintext back;
 * the open with one changed byte of ciphertext, AAD or tag is refused (as by OpenSSL). A
 * difference aborts. On a CPU without VAES there is nothing to compare: every input returns
 * at once.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_gcm_vaes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_LEN (17 * 1024)
#define ROOM 64 /* offsets and guard bytes around a buffer */
#define GUARD 0xA5

static uint8_t *pt, *ct, *work, *src_buf;
static EVP_CIPHER_CTX *evp;
static int avail;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    avail = tp_gcm_vaes_available();
    pt = malloc(MAX_LEN);
    ct = malloc(MAX_LEN + 16);
    work = malloc(MAX_LEN + 16 + 2 * ROOM);
    src_buf = malloc(MAX_LEN + ROOM);
    evp = EVP_CIPHER_CTX_new();
    if (!pt || !ct || !work || !src_buf || !evp)
        abort();
    return 0;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_gcm_vaes: " __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* OpenSSL's seal of pt (len bytes) into ct, its tag at ct + len. */
static void evp_seal(const uint8_t *key, size_t klen, const uint8_t *iv, const uint8_t *aad,
                     size_t alen, size_t len)
{
    int n = 0;
    CHECK(EVP_EncryptInit_ex(evp, klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL, key,
                             iv) == 1,
          "EVP init");
    CHECK(EVP_EncryptUpdate(evp, NULL, &n, aad, (int)alen) == 1, "EVP aad");
    CHECK(EVP_EncryptUpdate(evp, ct, &n, pt, (int)len) == 1 && (size_t)n == len, "EVP update");
    CHECK(EVP_EncryptFinal_ex(evp, ct + len, &n) == 1, "EVP final");
    CHECK(EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_GET_TAG, 16, ct + len) == 1, "EVP tag");
}

/* OpenSSL's open of buf (len bytes, in place) with tag: 0 or -1. */
static int evp_open(const uint8_t *key, size_t klen, const uint8_t *iv, const uint8_t *aad,
                    size_t alen, uint8_t *buf, size_t len, const uint8_t *tag)
{
    int n = 0;
    if (EVP_DecryptInit_ex(evp, klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL, key,
                           iv) != 1 ||
        EVP_DecryptUpdate(evp, NULL, &n, aad, (int)alen) != 1 ||
        EVP_DecryptUpdate(evp, buf, &n, buf, (int)len) != 1 ||
        EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) != 1)
        return -1;
    return EVP_DecryptFinal_ex(evp, buf + n, &n) == 1 ? 0 : -1;
}

/* Takes n bytes from the input at *p (what is left of it), zeros beyond. */
static void take(uint8_t *dst, size_t n, const uint8_t **p, size_t *left)
{
    size_t k = n < *left ? n : *left;
    memcpy(dst, *p, k);
    memset(dst + k, 0, n - k);
    *p += k;
    *left -= k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!avail || size < 9)
        return 0;
    const int k256 = data[0] & 1, inplace = data[0] >> 1 & 1, hit = data[0] >> 2 & 3;
    const size_t src_off = data[1] % 32, dst_off = data[2] % 32;
    const size_t len = ((size_t)data[3] << 8 | data[4]) % (MAX_LEN + 1);
    const size_t alen = data[5];
    const size_t at = (size_t)data[6] << 8 | data[7];
    const uint8_t flip = data[8] ? data[8] : 1;
    const uint8_t *p = data + 9;
    size_t left = size - 9;
    const size_t klen = k256 ? 32 : 16;
    uint8_t key[32], iv[12], aad[256];
    take(key, klen, &p, &left);
    take(iv, 12, &p, &left);
    take(aad, alen, &p, &left);
    take(pt, len, &p, &left);

    evp_seal(key, klen, iv, aad, alen, len);
    tp_gcm_vaes g;
    CHECK(tp_gcm_vaes_init(&g, key, klen) == 0, "init");

    /* seal: the same bytes as OpenSSL, the tag right after them, nothing else touched */
    memset(work, GUARD, len + 16 + 2 * ROOM);
    uint8_t *dst = work + ROOM / 2 + dst_off;
    const uint8_t *src = dst;
    if (inplace) {
        memcpy(dst, pt, len);
    } else {
        memcpy(src_buf + src_off, pt, len);
        src = src_buf + src_off;
    }
    tp_gcm_vaes_seal(&g, iv, aad, alen, src, dst, len, dst + len);
    CHECK(memcmp(dst, ct, len + 16) == 0, "seal differs from OpenSSL (key %zu, len %zu, aad %zu)",
          klen, len, alen);
    for (uint8_t *q = work; q < dst; q++)
        CHECK(*q == GUARD, "seal wrote before its output");
    for (uint8_t *q = dst + len + 16; q < work + len + 16 + 2 * ROOM; q++)
        CHECK(*q == GUARD, "seal wrote after its tag");
    if (!inplace)
        CHECK(memcmp(src, pt, len) == 0, "seal changed its source");

    /* open of OpenSSL's output: the plaintext */
    memcpy(dst, ct, len + 16);
    CHECK(tp_gcm_vaes_open(&g, iv, aad, alen, dst, len, dst + len) == 0,
          "open refused OpenSSL's output (key %zu, len %zu, aad %zu)", klen, len, alen);
    CHECK(memcmp(dst, pt, len) == 0, "open gave other bytes");

    /* one changed byte: refused */
    int where = hit < 2 ? 0 : hit - 1; /* 0 ciphertext, 1 AAD, 2 tag */
    if (where == 0 && len == 0)
        where = 2;
    if (where == 1 && alen == 0)
        where = 2;
    memcpy(dst, ct, len + 16);
    uint8_t tag[16];
    memcpy(tag, ct + len, 16);
    if (where == 0)
        dst[at % len] ^= flip;
    else if (where == 1)
        aad[at % alen] ^= flip;
    else
        tag[at % 16] ^= flip;
    CHECK(tp_gcm_vaes_open(&g, iv, aad, alen, dst, len, tag) == -1,
          "a changed byte of the %s accepted (key %zu, len %zu, aad %zu)",
          where == 0   ? "ciphertext"
          : where == 1 ? "AAD"
                       : "tag",
          klen, len, alen);
    memcpy(dst, ct, len);
    if (where == 0)
        dst[at % len] ^= flip;
    CHECK(evp_open(key, klen, iv, aad, alen, dst, len, tag) == -1, "OpenSSL took the change too");
    tp_gcm_vaes_clear(&g);
    return 0;
}
