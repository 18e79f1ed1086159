/*
 * tp_gcm_vaes: AES-GCM "open" (decryption in place and tag check) and "seal" (encryption and
 * tag) for TLS records, with VAES and VPCLMULQDQ on 256-bit registers: eight blocks per step
 * (four registers of two blocks for the counter mode), their GHASH aggregated with the key
 * powers H^1..H^16 and one reduction per sixteen blocks; the open hashes and decrypts in the
 * same pass, the seal hashes the ciphertext of the step before while it encrypts the next.
 *
 * Usable only when tp_gcm_vaes_available() says so (x86-64 with AES-NI, PCLMULQDQ, AVX2,
 * VAES, VPCLMULQDQ and the YMM state enabled by the OS); elsewhere the functions are stubs
 * that fail. The rest of the build needs no special compiler flags for it.
 */
#ifndef RWFPERF_TP_GCM_VAES_H
#define RWFPERF_TP_GCM_VAES_H

#include <stddef.h>
#include <stdint.h>

/* One key's state: the expanded AES round keys (each held twice, for both 128-bit halves of
 * a 256-bit register) and the GHASH key powers H^16..H^1. Read-only after init, so several
 * threads may open with the same one. Needs only 16-byte alignment (malloc's). */
typedef struct tp_gcm_vaes {
    _Alignas(16) uint8_t rk[15][32]; /* round keys 0..rounds, each twice */
    uint8_t hp[16][16];              /* hp[i] = H^(16-i), in the form the multiply takes */
    uint8_t hx[8][32];               /* per pair hp[2j], hp[2j+1]: each one's halves XORed */
    int rounds;                      /* 10 (AES-128) or 14 (AES-256) */
} tp_gcm_vaes;

/* Non-zero when this CPU (cpuid: AES-NI, PCLMULQDQ, AVX2, VAES, VPCLMULQDQ, and OS support of
 * YMM state via OSXSAVE/XGETBV) can run tp_gcm_vaes_open. Cheap after the first call. */
int tp_gcm_vaes_available(void);

/* Expands key (key_len 16 or 32 bytes: AES-128 or AES-256) and precomputes the GHASH key
 * powers. Returns 0, or -1 when key_len is neither. Only called when available. */
int tp_gcm_vaes_init(tp_gcm_vaes *g, const uint8_t *key, size_t key_len);

/* AES-GCM decryption in place of len bytes at buf (any length from 0 to 1 MiB, any alignment),
 * with the 12-byte iv, aad_len bytes of additional data (any length, TLS uses 5 or 13), checked
 * against the 16-byte tag (compared in constant time). Returns 0, or -1 when the tag does not
 * match (buf then holds unspecified bytes). Allocates nothing, takes no lock. */
int tp_gcm_vaes_open(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
                     uint8_t *buf, size_t len, const uint8_t tag[16]);

/* AES-GCM encryption of len bytes from src into dst (dst == src, in place, or not overlapping
 * at all; any alignment, any length up to 1 MiB), with the 12-byte iv and aad_len bytes of
 * additional data; writes the 16-byte tag at tag (which may directly follow dst's len bytes).
 * Allocates nothing, takes no lock. Only called when tp_gcm_vaes_available() (elsewhere it
 * writes zeros). */
void tp_gcm_vaes_seal(const tp_gcm_vaes *g, const uint8_t iv[12], const uint8_t *aad,
                      size_t aad_len, const uint8_t *src, uint8_t *dst, size_t len,
                      uint8_t tag[16]);

/* Wipes the key material. */
void tp_gcm_vaes_clear(tp_gcm_vaes *g);

#endif
