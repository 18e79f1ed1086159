/*
 * bench_gcm: what the AES-GCM open and seal of a TLS record cost, tp_gcm_vaes_open against
 * OpenSSL's EVP decryption with tag check and tp_gcm_vaes_seal against its EVP encryption with
 * tag, for AES-128 and AES-256 and records of 16384, 1024 and 128 bytes (13 bytes of AAD, as
 * TLS 1.2 has). The seals encrypt in place too.
 *
 *   bench_gcm [ms per run] [runs]     (default 100 ms, 5 runs per case; best and median)
 *
 * Prints bytes per second and cycles per byte at the nominal clock (2.445 GHz; $GCM_GHZ
 * names another). Both decrypt in place the same buffer over and over: after the first pass
 * the tag no longer matches, which changes nothing in the work done (the tag is computed and
 * compared in full every time). Each is checked once on a fresh record before timing.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tp_gcm_vaes.h"
#include "bench_util.h"

#define MAX_RUNS 64

/* Runs per case (second argument). */
static int runs = 5;

/* One configuration: key, IV, AAD, a record and its tag. */
typedef struct bcase {
    uint8_t key[32], iv[12], aad[13], tag[16];
    size_t klen, len;
    uint8_t *buf;
    EVP_CIPHER_CTX *evp;
    tp_gcm_vaes g;
} bcase;

/* OpenSSL's open of the record in place: 0 when the tag matched. */
static int evp_open(bcase *c)
{
    int n = 0, ok = 1;
    ok &= EVP_DecryptInit_ex(c->evp, NULL, NULL, NULL, c->iv);
    ok &= EVP_DecryptUpdate(c->evp, NULL, &n, c->aad, sizeof(c->aad));
    ok &= EVP_DecryptUpdate(c->evp, c->buf, &n, c->buf, (int)c->len);
    ok &= EVP_CIPHER_CTX_ctrl(c->evp, EVP_CTRL_GCM_SET_TAG, 16, c->tag);
    ok &= EVP_DecryptFinal_ex(c->evp, c->buf + n, &n) > 0;
    return ok ? 0 : -1;
}

/* Ours: 0 when the tag matched. */
static int vaes_open(bcase *c)
{
    return tp_gcm_vaes_open(&c->g, c->iv, c->aad, sizeof(c->aad), c->buf, c->len, c->tag);
}

/* OpenSSL's seal of the record in place, the tag into c->tag: 0 when all steps succeeded. */
static int evp_seal(bcase *c)
{
    int n = 0, ok = 1;
    ok &= EVP_EncryptInit_ex(c->evp, NULL, NULL, NULL, c->iv);
    ok &= EVP_EncryptUpdate(c->evp, NULL, &n, c->aad, sizeof(c->aad));
    ok &= EVP_EncryptUpdate(c->evp, c->buf, &n, c->buf, (int)c->len);
    ok &= EVP_EncryptFinal_ex(c->evp, c->buf + n, &n);
    ok &= EVP_CIPHER_CTX_ctrl(c->evp, EVP_CTRL_GCM_GET_TAG, 16, c->tag);
    return ok ? 0 : -1;
}

/* Ours: the record sealed in place, the tag into c->tag; always 0. */
static int vaes_seal(bcase *c)
{
    tp_gcm_vaes_seal(&c->g, c->iv, c->aad, sizeof(c->aad), c->buf, c->buf, c->len, c->tag);
    return 0;
}

/* Checks ours against OpenSSL once on c's key, IV and AAD with random plaintext: 0 when
 * ciphertext and tag are the same. */
static int check_seal(bcase *c)
{
    uint8_t *p = malloc(c->len + 1), tag[16];
    if (!p)
        return -1;
    for (size_t i = 0; i < c->len; i++)
        p[i] = c->buf[i] = (uint8_t)rand();
    int rc = evp_seal(c);
    memcpy(tag, c->tag, 16);
    tp_gcm_vaes_seal(&c->g, c->iv, c->aad, sizeof(c->aad), p, p, c->len, c->tag);
    if (rc == 0 && (memcmp(p, c->buf, c->len) != 0 || memcmp(tag, c->tag, 16) != 0))
        rc = -1;
    free(p);
    return rc;
}

/* Makes a fresh record: random plaintext sealed with OpenSSL. Returns 0 or -1. */
static int seal(bcase *c)
{
    for (size_t i = 0; i < c->len; i++)
        c->buf[i] = (uint8_t)rand();
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    int n = 0, ok = e != NULL;
    ok = ok && EVP_EncryptInit_ex(e, c->klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL,
                                  c->key, c->iv);
    ok = ok && EVP_EncryptUpdate(e, NULL, &n, c->aad, sizeof(c->aad));
    ok = ok && EVP_EncryptUpdate(e, c->buf, &n, c->buf, (int)c->len);
    ok = ok && EVP_EncryptFinal_ex(e, c->buf + n, &n);
    ok = ok && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, c->tag);
    EVP_CIPHER_CTX_free(e);
    return ok ? 0 : -1;
}

/* Times fn over runs of about ms milliseconds; writes best and median nanoseconds per call. */
static void timeit(int (*fn)(bcase *), bcase *c, double ms, double *best, double *median)
{
    double per[MAX_RUNS];
    long iters = 16;
    double t0 = bench_mono_ns();
    for (long i = 0; i < iters; i++)
        fn(c);
    double one = (bench_mono_ns() - t0) / iters;
    iters = (long)(ms * 1e6 / (one > 1 ? one : 1)) + 1;
    for (int r = 0; r < runs; r++) {
        t0 = bench_mono_ns();
        for (long i = 0; i < iters; i++)
            fn(c);
        per[r] = (bench_mono_ns() - t0) / iters;
    }
    qsort(per, (size_t)runs, sizeof(per[0]), bench_cmp_double);
    *best = per[0];
    *median = per[runs / 2];
}

/* Measures both opens for one key length and record size and prints a line each. */
static int run_case(size_t klen, size_t len, double ms, double ghz)
{
    bcase c = {.klen = klen, .len = len};
    for (size_t i = 0; i < sizeof(c.key); i++)
        c.key[i] = (uint8_t)rand();
    for (size_t i = 0; i < sizeof(c.iv); i++)
        c.iv[i] = (uint8_t)rand();
    for (size_t i = 0; i < sizeof(c.aad); i++)
        c.aad[i] = (uint8_t)rand();
    c.buf = malloc(len + 16);
    c.evp = EVP_CIPHER_CTX_new();
    if (!c.buf || !c.evp || tp_gcm_vaes_init(&c.g, c.key, klen) != 0 ||
        !EVP_DecryptInit_ex(c.evp, klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL, c.key,
                            c.iv)) {
        fprintf(stderr, "bench_gcm: setup failed\n");
        return -1;
    }
    static const struct {
        const char *name;
        int (*fn)(bcase *);
        int seals;
    } impl[] = {{"open tp_gcm_vaes", vaes_open, 0},
                {"open openssl-evp", evp_open, 0},
                {"seal tp_gcm_vaes", vaes_seal, 1},
                {"seal openssl-evp", evp_seal, 1}};
    for (size_t k = 0; k < sizeof(impl) / sizeof(impl[0]); k++) {
        int bad = impl[k].seals ? check_seal(&c) != 0 : seal(&c) != 0 || impl[k].fn(&c) != 0;
        if (bad) {
            fprintf(stderr, "bench_gcm: %s wrong on a record of %zu bytes\n", impl[k].name, len);
            return -1;
        }
        double best, med;
        timeit(impl[k].fn, &c, ms, &best, &med);
        printf("AES-%zu-GCM %6zu B  %-16s  best %8.1f ns  %6.2f GB/s  %5.3f cycles/B   median "
               "%6.2f GB/s  %5.3f cycles/B\n",
               klen * 8, len, impl[k].name, best, len / best, best * ghz / len, len / med,
               med * ghz / len);
    }
    tp_gcm_vaes_clear(&c.g);
    EVP_CIPHER_CTX_free(c.evp);
    free(c.buf);
    return 0;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 100;
    const char *ghz_env = getenv("GCM_GHZ");
    double ghz = ghz_env ? atof(ghz_env) : 2.445;
    runs = argc > 2 ? atoi(argv[2]) : 5;
    if (ms <= 0 || ghz <= 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr,
                "usage: bench_gcm [ms per run] [runs 1..%d]   ($GCM_GHZ: clock for "
                "cycles/B)\n",
                MAX_RUNS);
        return 2;
    }
    if (!tp_gcm_vaes_available()) {
        fprintf(stderr, "bench_gcm: this CPU lacks AES-NI, PCLMULQDQ, AVX2, VAES or VPCLMULQDQ\n");
        return 77;
    }
    printf("AES-GCM open and seal in place, 13 bytes of AAD, cycles at %.3f GHz\n", ghz);
    static const size_t lens[] = {16384, 1024, 128};
    for (size_t klen = 16; klen <= 32; klen += 16)
        for (size_t i = 0; i < 3; i++)
            if (run_case(klen, lens[i], ms, ghz) != 0)
                return 1;
    return 0;
}
