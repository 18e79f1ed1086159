/*
 * ts_tls: throw-away certificates for the TLS tests, made with the OpenSSL API in a
 * temporary folder (nothing is committed): a CA, certificates it signs or self-signed ones,
 * with a chosen CN, subjectAltNames and validity.
 */
#ifndef RWFPERF_TS_TLS_H
#define RWFPERF_TS_TLS_H

#include <stdbool.h>

typedef struct ts_cert {
    void *x509; /* X509 * */
    void *key;  /* EVP_PKEY * */
    char cert_path[512];
    char key_path[512];
} ts_cert;

/* A fresh folder under $TMPDIR (or /tmp) for this test program; removed by ts_tls_cleanup().
 * Fails the test when it cannot be made. */
const char *ts_tls_dir(void);

/* Makes a certificate named name (files <dir>/<name>.pem and <name>.key): subject CN cn,
 * subjectAltName san (OpenSSL syntax, "DNS:localhost,IP:127.0.0.1") or none when NULL, valid
 * from now + from_s to now + until_s seconds, a CA when is_ca, signed by issuer or
 * self-signed when issuer is NULL. Keys are RSA 2048 (a few are made and reused). Fails the
 * test on error. */
void ts_cert_make(ts_cert *out, const char *name, const char *cn, const char *san, long from_s,
                  long until_s, bool is_ca, const ts_cert *issuer);

/* Writes the certificates of a and b (b may be NULL) into one PEM file <dir>/<name>.pem and
 * returns its path (static storage, overwritten by the next call). */
const char *ts_cert_bundle(const char *name, const ts_cert *a, const ts_cert *b);

void ts_cert_free(ts_cert *c);

/* Removes the folder of ts_tls_dir() and what is in it. */
void ts_tls_cleanup(void);

#endif
