/* tp_gcm_vaes: the AES-GCM open and seal against OpenSSL's EVP aes-128-gcm and aes-256-gcm
 * (random keys, IVs, AAD and lengths: every length 0..300, random lengths up to 17000, 1 MiB,
 * AAD longer than 128 bytes; the seal in place and out of place at odd addresses, its tag
 * written right after its output, then opened again), one flipped bit in ciphertext, AAD or
 * tag refused, and the GCM specification's test cases 1-4 (AES-128) and 13-16 (AES-256) in
 * both directions. Skipped when the CPU lacks the instructions. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsupport.h"
#include "tp_gcm_vaes.h"

/* A small deterministic generator (xorshift64*), so that a failure repeats. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rnd() >> 56);
}

/* Encrypts pt (len bytes) into ct with OpenSSL and writes the 16-byte tag. */
static void evp_seal(const uint8_t *key, size_t klen, const uint8_t *iv, const uint8_t *aad,
                     size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    assert_non_null(c);
    const EVP_CIPHER *ciph = klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    int n = 0;
    assert_int_equal(EVP_EncryptInit_ex(c, ciph, NULL, key, iv), 1);
    if (aad_len)
        assert_int_equal(EVP_EncryptUpdate(c, NULL, &n, aad, (int)aad_len), 1);
    if (len) {
        assert_int_equal(EVP_EncryptUpdate(c, ct, &n, pt, (int)len), 1);
        assert_int_equal((size_t)n, len);
    }
    assert_int_equal(EVP_EncryptFinal_ex(c, ct + len, &n), 1);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
    EVP_CIPHER_CTX_free(c);
}

/* Buffers for one case, the largest 1 MiB (plus room to open or seal at an odd address, the
 * tag after the output, and guard bytes around it). */
#define MAXLEN (1u << 20)
#define ROOM 96
static uint8_t *pt, *ct, *work, *src2;

/* One case: seal with OpenSSL, open with ours (at offset off in the work buffer) and compare,
 * then flip one random bit of the ciphertext, AAD or tag (which, by `which`) and check -1. */
static void one_case(size_t klen, size_t aad_len, size_t len, unsigned which)
{
    uint8_t key[32], iv[12], aad[300], tag[16];
    rnd_bytes(key, klen);
    rnd_bytes(iv, 12);
    rnd_bytes(aad, aad_len);
    rnd_bytes(pt, len);
    evp_seal(key, klen, iv, aad, aad_len, pt, len, ct, tag);
    tp_gcm_vaes g;
    assert_int_equal(tp_gcm_vaes_init(&g, key, klen), 0);
    size_t off = rnd() % 32;
    memcpy(work + off, ct, len);
    if (tp_gcm_vaes_open(&g, iv, aad, aad_len, work + off, len, tag) != 0)
        fail_msg("open failed: key %zu bytes, aad %zu, len %zu", klen, aad_len, len);
    ts_assert_bytes_equal(work + off, len, pt, len);

    /* one bit flipped: in the ciphertext, else the AAD, else the tag */
    which %= 3;
    if (which == 0 && len == 0)
        which = 1;
    if (which == 1 && aad_len == 0)
        which = 2;
    memcpy(work + off, ct, len);
    uint64_t r = rnd();
    if (which == 0)
        work[off + r % len] ^= (uint8_t)(1u << (r >> 40) % 8);
    else if (which == 1)
        aad[r % aad_len] ^= (uint8_t)(1u << (r >> 40) % 8);
    else
        tag[r % 16] ^= (uint8_t)(1u << (r >> 40) % 8);
    if (tp_gcm_vaes_open(&g, iv, aad, aad_len, work + off, len, tag) != -1)
        fail_msg("flipped bit accepted: key %zu bytes, aad %zu, len %zu, in %s", klen, aad_len, len,
                 which == 0   ? "ciphertext"
                 : which == 1 ? "aad"
                              : "tag");
    tp_gcm_vaes_clear(&g);
    for (size_t i = 0; i < sizeof(g); i++)
        assert_int_equal(((const uint8_t *)&g)[i], 0);
}

static const size_t aad_lens[] = {0, 5, 13, 17, 40};

/* One seal case: random key, IV, AAD and plaintext sealed by OpenSSL and by ours, in place
 * (inplace) or from another buffer, at random odd or even addresses, the tag written right
 * after the output; ciphertext and tag must match, the bytes around them stay as they were,
 * and our open of the result gives the plaintext back. */
static void seal_case(size_t klen, size_t aad_len, size_t len, int inplace)
{
    uint8_t key[32], iv[12], aad[300], tag[16];
    rnd_bytes(key, klen);
    rnd_bytes(iv, 12);
    rnd_bytes(aad, aad_len);
    rnd_bytes(pt, len);
    evp_seal(key, klen, iv, aad, aad_len, pt, len, ct, tag);
    tp_gcm_vaes g;
    assert_int_equal(tp_gcm_vaes_init(&g, key, klen), 0);
    const size_t off = 8 + rnd() % 40, soff = rnd() % 32;
    memset(work, 0xa5, len + ROOM);
    uint8_t *dst = work + off;
    const uint8_t *src = dst;
    if (inplace) {
        memcpy(dst, pt, len);
    } else {
        memcpy(src2 + soff, pt, len);
        src = src2 + soff;
    }
    tp_gcm_vaes_seal(&g, iv, aad, aad_len, src, dst, len, dst + len);
    if (memcmp(dst, ct, len) != 0 || memcmp(dst + len, tag, 16) != 0)
        fail_msg("seal differs: key %zu bytes, aad %zu, len %zu, %s", klen, aad_len, len,
                 inplace ? "in place" : "out of place");
    for (size_t i = 0; i < off; i++)
        assert_int_equal(work[i], 0xa5);
    for (size_t i = off + len + 16; i < len + ROOM; i++)
        assert_int_equal(work[i], 0xa5);
    if (!inplace)
        ts_assert_bytes_equal(src, len, pt, len);
    if (tp_gcm_vaes_open(&g, iv, aad, aad_len, dst, len, dst + len) != 0)
        fail_msg("open of seal failed: key %zu bytes, aad %zu, len %zu", klen, aad_len, len);
    ts_assert_bytes_equal(dst, len, pt, len);
    tp_gcm_vaes_clear(&g);
}

static const size_t seal_aad_lens[] = {0, 5, 13, 17, 40, 200};

static void test_seal_every_length(void **st)
{
    (void)st;
    int inplace = 0;
    for (size_t klen = 16; klen <= 32; klen += 16)
        for (size_t a = 0; a < sizeof(seal_aad_lens) / sizeof(seal_aad_lens[0]); a++)
            for (size_t len = 0; len <= 300; len++, inplace ^= 1)
                seal_case(klen, seal_aad_lens[a], len, inplace);
}

static void test_seal_random_lengths(void **st)
{
    (void)st;
    for (unsigned i = 0; i < 1000; i++)
        seal_case(i & 1 ? 32 : 16, seal_aad_lens[rnd() % 6], rnd() % 17001, (i >> 1) & 1);
}

/* AAD around and above the sixteen blocks hashed at a time, with record lengths around the
 * seal's stitched steps. */
static void test_seal_long_aad(void **st)
{
    (void)st;
    static const size_t alens[] = {127, 128, 129, 255, 256, 257, 300};
    static const size_t lens[] = {0, 1, 16, 128, 300, 511, 512, 513, 767, 768, 1024, 1040};
    unsigned n = 0;
    for (size_t a = 0; a < sizeof(alens) / sizeof(alens[0]); a++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++, n++)
            seal_case(n & 1 ? 32 : 16, alens[a], lens[l], (n >> 1) & 1);
}

static void test_seal_one_mib(void **st)
{
    (void)st;
    seal_case(16, 13, MAXLEN, 1);
    seal_case(32, 13, MAXLEN, 0);
    seal_case(16, 5, MAXLEN - 1, 0);
    seal_case(32, 5, MAXLEN - 3, 1);
}

static void test_every_length(void **st)
{
    (void)st;
    unsigned which = 0;
    for (size_t klen = 16; klen <= 32; klen += 16)
        for (size_t a = 0; a < sizeof(aad_lens) / sizeof(aad_lens[0]); a++)
            for (size_t len = 0; len <= 300; len++)
                one_case(klen, aad_lens[a], len, which++);
}

static void test_random_lengths(void **st)
{
    (void)st;
    for (unsigned i = 0; i < 1000; i++)
        one_case(i & 1 ? 32 : 16, aad_lens[rnd() % 5], rnd() % 17001, i);
}

/* AAD longer than the eight blocks hashed at a time. */
static void test_long_aad(void **st)
{
    (void)st;
    static const size_t alens[] = {127, 128, 129, 255, 256, 257, 300};
    static const size_t lens[] = {0, 1, 16, 128, 300};
    unsigned which = 0;
    for (size_t a = 0; a < sizeof(alens) / sizeof(alens[0]); a++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++, which++)
            one_case(which & 1 ? 32 : 16, alens[a], lens[l], which);
}

static void test_one_mib(void **st)
{
    (void)st;
    one_case(16, 13, MAXLEN, 0);
    one_case(32, 13, MAXLEN, 1);
    one_case(16, 5, MAXLEN - 1, 2);
}

/* A test case of the GCM specification: hex key, IV, plaintext, AAD, ciphertext, tag. */
typedef struct vec {
    const char *name, *key, *iv, *pt, *aad, *ct, *tag;
} vec;

#define P64                                                                                        \
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"                             \
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
#define P60                                                                                        \
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"                             \
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
#define K128 "feffe9928665731c6d6a8f9467308308"
#define IV "cafebabefacedbaddecaf888"
#define AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"

static const vec vecs[] = {
    {"1", "00000000000000000000000000000000", "000000000000000000000000", "", "", "",
     "58e2fccefa7e3061367f1d57a4e7455a"},
    {"2", "00000000000000000000000000000000", "000000000000000000000000",
     "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"},
    {"3", K128, IV, P64, "",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {"4", K128, IV, P60, AAD,
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {"13", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"},
    {"14", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", "00000000000000000000000000000000", "",
     "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"},
    {"15", K128 K128, IV, P64, "",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
     "b094dac5d93471bdec1a502270e3cc6c"},
    {"16", K128 K128, IV, P60, AAD,
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

static void test_spec_vectors(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        uint8_t key[32], iv[12], p[64], aad[20], c[64], tag[16];
        size_t klen = ts_hex(vecs[i].key, key, sizeof(key));
        assert_int_equal(ts_hex(vecs[i].iv, iv, sizeof(iv)), 12);
        size_t plen = ts_hex(vecs[i].pt, p, sizeof(p));
        size_t alen = ts_hex(vecs[i].aad, aad, sizeof(aad));
        assert_int_equal(ts_hex(vecs[i].ct, c, sizeof(c)), plen);
        assert_int_equal(ts_hex(vecs[i].tag, tag, sizeof(tag)), 16);
        tp_gcm_vaes g;
        assert_int_equal(tp_gcm_vaes_init(&g, key, klen), 0);
        if (tp_gcm_vaes_open(&g, iv, aad, alen, c, plen, tag) != 0)
            fail_msg("test case %s: tag refused", vecs[i].name);
        ts_assert_bytes_equal(c, plen, p, plen);
        ts_hex(vecs[i].ct, c, sizeof(c));
        tag[15] ^= 1;
        assert_int_equal(tp_gcm_vaes_open(&g, iv, aad, alen, c, plen, tag), -1);
        tag[15] ^= 1;
        ts_hex(vecs[i].ct, c, sizeof(c)); /* the refused open left plaintext there */

        /* the encrypt direction: in place, then out of place */
        uint8_t buf[64], out[64], t2[16];
        memcpy(buf, p, plen);
        tp_gcm_vaes_seal(&g, iv, aad, alen, buf, buf, plen, t2);
        ts_assert_bytes_equal(buf, plen, c, plen);
        ts_assert_bytes_equal(t2, 16, tag, 16);
        memset(t2, 0, sizeof(t2));
        tp_gcm_vaes_seal(&g, iv, aad, alen, p, out, plen, t2);
        ts_assert_bytes_equal(out, plen, c, plen);
        ts_assert_bytes_equal(t2, 16, tag, 16);
    }
}

static void test_bad_key_length(void **st)
{
    (void)st;
    static const uint8_t key[32];
    tp_gcm_vaes g;
    assert_int_equal(tp_gcm_vaes_init(&g, key, 24), -1);
    assert_int_equal(tp_gcm_vaes_init(&g, key, 0), -1);
}

int main(void)
{
    if (!tp_gcm_vaes_available()) {
        printf("SKIP: this CPU (or OS) lacks AES-NI, PCLMULQDQ, AVX2, VAES or VPCLMULQDQ\n");
        return TS_SKIP;
    }
    pt = malloc(MAXLEN);
    ct = malloc(MAXLEN + 16);
    work = malloc(MAXLEN + ROOM);
    src2 = malloc(MAXLEN + 32);
    if (!pt || !ct || !work || !src2)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_vectors),      cmocka_unit_test(test_bad_key_length),
        cmocka_unit_test(test_every_length),      cmocka_unit_test(test_random_lengths),
        cmocka_unit_test(test_long_aad),          cmocka_unit_test(test_one_mib),
        cmocka_unit_test(test_seal_every_length), cmocka_unit_test(test_seal_random_lengths),
        cmocka_unit_test(test_seal_long_aad),     cmocka_unit_test(test_seal_one_mib),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(pt);
    free(ct);
    free(work);
    free(src2);
    return rc;
}
