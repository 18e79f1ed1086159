/* Throw-away certificates for the TLS tests (see ts_tls.h). */
#include "ts_tls.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char tls_dir[256];
static EVP_PKEY *keys[3];
static int next_key;

const char *ts_tls_dir(void)
{
    if (tls_dir[0])
        return tls_dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(tls_dir, sizeof(tls_dir), "%s/rwfperf-tls-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tls_dir)) {
        tls_dir[0] = 0;
        fail_msg("cannot make a temporary folder for certificates");
    }
    return tls_dir;
}

/* The keys are costly to make: three are made and handed out in turn. */
static EVP_PKEY *some_key(void)
{
    int i = next_key++ % 3;
    if (!keys[i]) {
        keys[i] = EVP_RSA_gen(2048);
        if (!keys[i])
            fail_msg("cannot make an RSA key");
    }
    EVP_PKEY_up_ref(keys[i]);
    return keys[i];
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!e || X509_add_ext(x, e, -1) != 1)
        fail_msg("cannot add certificate extension %d = %s", nid, value);
    X509_EXTENSION_free(e);
}

static void write_pem(const char *path, const ts_cert *c, int key)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    int ok = key ? PEM_write_PrivateKey(f, c->key, NULL, NULL, 0, NULL, NULL)
                 : PEM_write_X509(f, c->x509);
    fclose(f);
    if (ok != 1)
        fail_msg("cannot write %s", path);
}

void ts_cert_make(ts_cert *out, const char *name, const char *cn, const char *san, long from_s,
                  long until_s, bool is_ca, const ts_cert *issuer)
{
    memset(out, 0, sizeof(*out));
    static long serial = 1;
    EVP_PKEY *k = some_key();
    X509 *x = X509_new();
    if (!x)
        fail_msg("X509_new");
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial++ + (long)getpid() * 1000);
    X509_gmtime_adj(X509_getm_notBefore(x), from_s);
    X509_gmtime_adj(X509_getm_notAfter(x), until_s);
    X509_set_pubkey(x, k);
    X509_NAME *n = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC, (const unsigned char *)"rwfperf tests", -1, -1,
                               0);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509 *ix = issuer ? issuer->x509 : x;
    EVP_PKEY *ik = issuer ? issuer->key : k;
    X509_set_issuer_name(x, X509_get_subject_name(ix));
    add_ext(x, ix, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE");
    if (is_ca)
        add_ext(x, ix, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_ext(x, ix, NID_subject_key_identifier, "hash");
    if (san)
        add_ext(x, ix, NID_subject_alt_name, san);
    if (X509_sign(x, ik, EVP_sha256()) <= 0)
        fail_msg("cannot sign certificate %s", name);
    out->x509 = x;
    out->key = k;
    const char *dir = ts_tls_dir();
    snprintf(out->cert_path, sizeof(out->cert_path), "%s/%s.pem", dir, name);
    snprintf(out->key_path, sizeof(out->key_path), "%s/%s.key", dir, name);
    write_pem(out->cert_path, out, 0);
    write_pem(out->key_path, out, 1);
}

const char *ts_cert_bundle(const char *name, const ts_cert *a, const ts_cert *b)
{
    static char path[600];
    snprintf(path, sizeof(path), "%s/%s.pem", ts_tls_dir(), name);
    FILE *f = fopen(path, "w");
    if (!f || PEM_write_X509(f, a->x509) != 1 || (b && PEM_write_X509(f, b->x509) != 1))
        fail_msg("cannot write %s", path);
    fclose(f);
    return path;
}

void ts_cert_free(ts_cert *c)
{
    X509_free(c->x509);
    EVP_PKEY_free(c->key);
    memset(c, 0, sizeof(*c));
}

void ts_tls_cleanup(void)
{
    if (!tls_dir[0])
        return;
    DIR *d = opendir(tls_dir);
    if (d) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof(p), "%s/%s", tls_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(tls_dir);
    tls_dir[0] = 0;
    for (int i = 0; i < 3; i++) {
        EVP_PKEY_free(keys[i]);
        keys[i] = NULL;
    }
}
