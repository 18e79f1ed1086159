/* AES-GCM against Project Wycheproof's test vectors (tests/data/wycheproof/aes_gcm_test.json,
 * see the README there), read with json-c.
 *
 * Every vector with a 96-bit IV, a 128-bit tag and a 128- or 256-bit key is run in both
 * directions through each code that seals and opens the transport's TLS records:
 *   - tp_gcm_vaes directly (skipped, saying so for each vector, on a CPU without VAES);
 *   - tp_tls_keys (the record layer's entry points) with tls_gcm vaes (likewise) and with
 *     tls_gcm openssl, its fallback to OpenSSL's EVP AES-GCM.
 * A valid vector must seal its message into exactly its ciphertext and tag, and open them back
 * into the message; an invalid one (a modified tag, ...) must be refused when opened, and the
 * seal of its message must not give its tag.
 *
 * The others are not supported and must not be computed: 192-bit keys are refused by both
 * set-ups (tp_gcm_vaes_init, tp_tls_keys_init_test), which each such vector is fed to. IVs other
 * than 96 bits and tags other than 128 bits cannot be expressed at all: the nonce and tag of
 * every entry point are a 12-byte and a 16-byte array by their types (TLS records use no
 * other), so such vectors are counted as unsupported without a call. Every vector of the file
 * is accounted for in one of these ways. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsupport.h"
#include "tp_gcm_vaes.h"
#include "tp_tls_keys.h"

/* One vector, decoded. */
typedef struct vec {
    int id;
    size_t klen, ivlen, alen, mlen, clen, tlen;
    uint8_t key[32], iv[512], tag[16]; /* the longest IV of the file: 2056 bits */
    uint8_t *aad, *msg, *ct;
    int valid;
} vec;

/* What the run met, for its summary line and the final checks. */
static struct {
    unsigned valid, invalid;  /* vectors run (96-bit IV, 128-bit tag, 128/256-bit key) */
    unsigned key192;          /* refused by both set-ups */
    unsigned iv_or_tag;       /* other IV or tag sizes: not expressible */
    unsigned vaes_skipped;    /* vectors not run through tp_gcm_vaes (CPU without it) */
    unsigned openssl_checked; /* vectors run through tp_tls_keys' OpenSSL path */
} seen;

/* The bytes of hex string s (its length / 2) into a new buffer (at least one byte, so that
 * an empty field still has an address). */
static uint8_t *hex_new(const char *s, size_t *n)
{
    size_t cap = strlen(s) / 2 + 1;
    uint8_t *p = malloc(cap);
    assert_non_null(p);
    *n = ts_hex(s, p, cap);
    return p;
}

static const char *str_of(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("vector without \"%s\"", key);
    return json_object_get_string(v);
}

static int int_of(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("object without \"%s\"", key);
    return json_object_get_int(v);
}

/* Decodes test t into v (the caller frees it with vec_free). */
static void decode(json_object *t, vec *v)
{
    memset(v, 0, sizeof(*v));
    v->id = int_of(t, "tcId");
    size_t n;
    uint8_t *p = hex_new(str_of(t, "key"), &n);
    assert_true(n <= sizeof(v->key));
    memcpy(v->key, p, n);
    v->klen = n;
    free(p);
    p = hex_new(str_of(t, "iv"), &n);
    assert_true(n <= sizeof(v->iv));
    memcpy(v->iv, p, n);
    v->ivlen = n;
    free(p);
    p = hex_new(str_of(t, "tag"), &n);
    assert_true(n <= sizeof(v->tag));
    memcpy(v->tag, p, n);
    v->tlen = n;
    free(p);
    v->aad = hex_new(str_of(t, "aad"), &v->alen);
    v->msg = hex_new(str_of(t, "msg"), &v->mlen);
    v->ct = hex_new(str_of(t, "ct"), &v->clen);
    const char *r = str_of(t, "result");
    if (strcmp(r, "valid") == 0)
        v->valid = 1;
    else if (strcmp(r, "invalid") == 0)
        v->valid = 0;
    else
        fail_msg("tcId %d: result \"%s\" is neither valid nor invalid", v->id, r);
}

static void vec_free(vec *v)
{
    free(v->aad);
    free(v->msg);
    free(v->ct);
}

/* The seal of v's message (out: mlen bytes, then the tag) and the open of its ciphertext,
 * through one code; checks them against v. seal and open return 0 or -1 as the entry points
 * do; what names the path in messages. */
typedef struct gcm_path {
    const char *what;
    int (*seal)(void *ctx, const vec *v, uint8_t *out, uint8_t tag[16]);
    int (*open)(void *ctx, const vec *v, uint8_t *buf);
} gcm_path;

static void check_path(const gcm_path *p, void *ctx, const vec *v)
{
    uint8_t *out = malloc(v->mlen + 1), *buf = malloc(v->clen + 1), tag[16];
    assert_non_null(out);
    assert_non_null(buf);
    assert_int_equal(p->seal(ctx, v, out, tag), 0);
    memcpy(buf, v->ct, v->clen);
    int opened = p->open(ctx, v, buf);
    if (v->valid) {
        if (v->clen != v->mlen || memcmp(out, v->ct, v->mlen) != 0 || memcmp(tag, v->tag, 16) != 0)
            fail_msg("tcId %d (%s): the seal differs from the vector", v->id, p->what);
        if (opened != 0)
            fail_msg("tcId %d (%s): a valid vector refused", v->id, p->what);
        ts_assert_bytes_equal(buf, v->clen, v->msg, v->mlen);
    } else {
        if (opened != -1)
            fail_msg("tcId %d (%s): an invalid vector opened", v->id, p->what);
        if (v->clen == v->mlen && memcmp(out, v->ct, v->mlen) == 0 && memcmp(tag, v->tag, 16) == 0)
            fail_msg("tcId %d (%s): the seal gives an invalid vector's tag", v->id, p->what);
    }
    free(out);
    free(buf);
}

/* tp_gcm_vaes directly. */
static int vaes_seal(void *ctx, const vec *v, uint8_t *out, uint8_t tag[16])
{
    tp_gcm_vaes_seal(ctx, v->iv, v->aad, v->alen, v->msg, out, v->mlen, tag);
    return 0;
}

static int vaes_open(void *ctx, const vec *v, uint8_t *buf)
{
    return tp_gcm_vaes_open(ctx, v->iv, v->aad, v->alen, buf, v->clen, v->tag);
}

/* tp_tls_keys: ctx holds a sealing and an opening set of keys. The tag is written right
 * after the ciphertext, as in a record. */
typedef struct keys_pair {
    tp_tls_keys seal, open;
} keys_pair;

static int keys_seal(void *ctx, const vec *v, uint8_t *out, uint8_t tag[16])
{
    keys_pair *k = ctx;
    uint8_t *rec = malloc(v->mlen + 16);
    assert_non_null(rec);
    int rc =
        tp_tls_keys_seal(&k->seal, v->iv, v->aad, v->alen, v->msg, rec, v->mlen, rec + v->mlen);
    memcpy(out, rec, v->mlen);
    memcpy(tag, rec + v->mlen, 16);
    free(rec);
    return rc;
}

static int keys_open(void *ctx, const vec *v, uint8_t *buf)
{
    keys_pair *k = ctx;
    uint8_t *rec = malloc(v->clen + 16);
    assert_non_null(rec);
    memcpy(rec, buf, v->clen);
    memcpy(rec + v->clen, v->tag, 16);
    int rc = tp_tls_keys_open(&k->open, v->iv, v->aad, v->alen, rec, v->clen);
    memcpy(buf, rec, v->clen);
    free(rec);
    return rc;
}

static const gcm_path vaes_path = {"tp_gcm_vaes", vaes_seal, vaes_open};
static const gcm_path keys_vaes_path = {"tp_tls_keys, vaes", keys_seal, keys_open};
static const gcm_path keys_openssl_path = {"tp_tls_keys, openssl", keys_seal, keys_open};

/* Sets up both keys of v for gcm (as a TLS 1.2 key: the key and a 4-byte implicit IV, which
 * the explicit nonces given below make irrelevant). 0 or the set-up's failure. */
static int keys_init(keys_pair *k, const vec *v, tp_tls_gcm gcm)
{
    uint8_t secret[36] = {0};
    memcpy(secret, v->key, v->klen);
    int rc = tp_tls_keys_init_test(&k->seal, 1, 0, v->klen, secret, v->klen + 4, 0, gcm);
    if (rc != 0)
        return rc;
    rc = tp_tls_keys_init_test(&k->open, 0, 0, v->klen, secret, v->klen + 4, 0, gcm);
    if (rc != 0)
        tp_tls_keys_clear(&k->seal);
    return rc;
}

static void keys_clear(keys_pair *k)
{
    tp_tls_keys_clear(&k->seal);
    tp_tls_keys_clear(&k->open);
}

/* One vector of the sizes TLS uses, through every path. */
static void run_vector(const vec *v)
{
    if (v->valid)
        seen.valid++;
    else
        seen.invalid++;
    keys_pair k;
    assert_int_equal(keys_init(&k, v, TP_TLS_GCM_OPENSSL), 0);
    assert_int_equal(k.seal.vaes, 0);
    check_path(&keys_openssl_path, &k, v);
    keys_clear(&k);
    seen.openssl_checked++;
    if (!tp_gcm_vaes_available()) {
        printf("SKIP tcId %d through tp_gcm_vaes: this CPU (or OS) lacks AES-NI, PCLMULQDQ, "
               "AVX2, VAES or VPCLMULQDQ\n",
               v->id);
        seen.vaes_skipped++;
        return;
    }
    tp_gcm_vaes g;
    assert_int_equal(tp_gcm_vaes_init(&g, v->key, v->klen), 0);
    check_path(&vaes_path, &g, v);
    tp_gcm_vaes_clear(&g);
    assert_int_equal(keys_init(&k, v, TP_TLS_GCM_VAES), 0);
    assert_int_equal(k.seal.vaes, 1);
    check_path(&keys_vaes_path, &k, v);
    keys_clear(&k);
}

/* A vector with a 192-bit key: both set-ups refuse it. */
static void refuse_key(const vec *v)
{
    tp_gcm_vaes g;
    if (tp_gcm_vaes_init(&g, v->key, v->klen) != -1)
        fail_msg("tcId %d: tp_gcm_vaes_init took a %zu-byte key", v->id, v->klen);
    keys_pair k;
    if (keys_init(&k, v, TP_TLS_GCM_OPENSSL) != TP_EFAIL)
        fail_msg("tcId %d: tp_tls_keys_init_test took a %zu-byte key", v->id, v->klen);
    seen.key192++;
}

static void test_wycheproof(void **state)
{
    (void)state;
    const char *path = ts_source_path("tests/data/wycheproof/aes_gcm_test.json");
    json_object *doc = json_object_from_file(path);
    if (!doc)
        fail_msg("cannot read %s: %s", path, json_util_get_last_err());
    assert_string_equal(str_of(doc, "algorithm"), "AES-GCM");
    int total = int_of(doc, "numberOfTests"), counted = 0;
    json_object *groups;
    assert_true(json_object_object_get_ex(doc, "testGroups", &groups));
    for (size_t gi = 0; gi < json_object_array_length(groups); gi++) {
        json_object *grp = json_object_array_get_idx(groups, gi), *tests;
        int key_bits = int_of(grp, "keySize"), iv_bits = int_of(grp, "ivSize");
        int tag_bits = int_of(grp, "tagSize");
        assert_true(json_object_object_get_ex(grp, "tests", &tests));
        for (size_t ti = 0; ti < json_object_array_length(tests); ti++, counted++) {
            vec v;
            decode(json_object_array_get_idx(tests, ti), &v);
            assert_int_equal(v.klen * 8, (size_t)key_bits);
            assert_int_equal(v.ivlen * 8, (size_t)iv_bits);
            assert_int_equal(v.tlen * 8, (size_t)tag_bits);
            if (iv_bits != 96 || tag_bits != 128)
                seen.iv_or_tag++; /* no entry point can be given these sizes */
            else if (key_bits != 128 && key_bits != 256)
                refuse_key(&v);
            else
                run_vector(&v);
            vec_free(&v);
        }
    }
    json_object_put(doc);
    printf("Wycheproof AES-GCM: %u valid and %u invalid vectors checked (OpenSSL path %u, "
           "tp_gcm_vaes %s), %u with 192-bit keys refused, %u with other IV or tag sizes "
           "(not expressible), of %d\n",
           seen.valid, seen.invalid, seen.openssl_checked, seen.vaes_skipped ? "skipped" : "all",
           seen.key192, seen.iv_or_tag, total);
    assert_int_equal(counted, total);
    assert_int_equal(seen.valid + seen.invalid + seen.key192 + seen.iv_or_tag, (unsigned)total);
    /* the file as brought in: the TLS sizes are well represented, both results */
    assert_true(seen.valid >= 70);
    assert_true(seen.invalid >= 50);
    assert_true(seen.key192 >= 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wycheproof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
