/* TLS settings (an OpenSSL SSL_CTX) of encrypted clients and servers: versions, cipher
 * suites, a server's key and certificate, a client's CA store; and the check a tool runs at
 * start so that unusable settings are refused before anything connects. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tp_int.h"
#include "tp_tls.h"

/* The TLS 1.2 suites of the ETA tools (DHE/ECDHE with RSA certificates, AES-GCM first, then
 * AES-CBC with SHA-2), ordered for a server that picks: ECDHE before DHE (far cheaper key
 * exchange), AES-128 before AES-256 (cheaper per byte). */
#define TLS12_DEFAULT_CIPHERS                                                                      \
    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256:"           \
    "DHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:"                   \
    "DHE-RSA-AES128-SHA256:DHE-RSA-AES256-SHA256"
#define TLS13_SUITES "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

/* Read buffer of a channel's TLS stream: with read-ahead one recv() fills it with as many
 * records as have arrived. */
#define TLS_READ_BUF (64 * 1024)

/* err_set()s "<what>: <first OpenSSL error>" and empties the error queue. */
static int ssl_err(const char *fmt, const char *arg)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "";
    if (e) {
        const char *r = ERR_reason_error_string(e);
        if (r)
            snprintf(buf, sizeof(buf), "%s", r);
        else
            ERR_error_string_n(e, buf, sizeof(buf));
    }
    ERR_clear_error();
    char what[512];
    snprintf(what, sizeof(what), fmt, arg);
    return err_set("%s%s%s", what, buf[0] ? ": " : "", buf);
}

/* A file that exists and can be read, else err_set() naming the option. */
static int readable_file(const char *path, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set_errno(errno, "%s %s cannot be read", what, path);
    if (S_ISDIR(st.st_mode))
        return err_set("%s %s is a folder, not a PEM file", what, path);
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set_errno(errno, "%s %s cannot be read", what, path);
    fclose(f);
    return 0;
}

static int set_versions(SSL_CTX *ctx, uint8_t protocols)
{
    int min = TLS1_2_VERSION, max = TLS1_3_VERSION;
    if (protocols) {
        if (!(protocols & (TP_TLS_V1_2 | TP_TLS_V1_3)))
            return err_set("TLS protocol flags 0x%x name neither TLS 1.2 (0x%x) nor TLS 1.3 (0x%x)",
                           protocols, TP_TLS_V1_2, TP_TLS_V1_3);
        min = protocols & TP_TLS_V1_2 ? TLS1_2_VERSION : TLS1_3_VERSION;
        max = protocols & TP_TLS_V1_3 ? TLS1_3_VERSION : TLS1_2_VERSION;
    }
    if (SSL_CTX_set_min_proto_version(ctx, min) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, max) != 1)
        return ssl_err("TLS: cannot restrict the protocol versions%s", "");
    return 0;
}

static int server_files(SSL_CTX *ctx, const tp_opts *o)
{
    const char *cert = o->tls_cert_file, *key = o->tls_key_file;
    if (!cert || !*cert)
        return err_set("an encrypted server needs a certificate (-cert <PEM file>)");
    if (!key || !*key)
        return err_set("an encrypted server needs a private key (-keyfile <PEM file>)");
    if (readable_file(cert, "certificate file") < 0 || readable_file(key, "key file") < 0)
        return -1;
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
        return ssl_err("certificate file %s holds no usable PEM certificate", cert);
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        unsigned long e = ERR_peek_last_error();
        if (ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH) {
            ERR_clear_error();
            return err_set("the private key in %s does not match the certificate in %s", key, cert);
        }
        return ssl_err("key file %s holds no usable PEM private key", key);
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        return err_set("the private key in %s does not match the certificate in %s", key, cert);
    }
    return 0;
}

static int client_store(SSL_CTX *ctx, const tp_opts *o)
{
    const char *ca = o->tls_ca_store;
    if (!ca || !*ca) {
        if (SSL_CTX_set_default_verify_paths(ctx) != 1)
            return ssl_err("TLS: cannot use the system's default CA store%s", "");
        return 0;
    }
    struct stat st;
    if (stat(ca, &st) != 0)
        return err_set_errno(errno, "CA store %s cannot be read", ca);
    int dir = S_ISDIR(st.st_mode);
    if (!dir && readable_file(ca, "CA store") < 0)
        return -1;
    if (SSL_CTX_load_verify_locations(ctx, dir ? NULL : ca, dir ? ca : NULL) != 1)
        return ssl_err("CA store %s holds no usable PEM certificate", ca);
    return 0;
}

/* The choices of the transport's own record layer: in range, tp_gcm_vaes only where the CPU
 * has it. 0, or -1 after err_set(). */
static int record_choices(const tp_opts *o)
{
    if ((unsigned)o->tls_records > TP_TLS_RECORDS_OPENSSL)
        return err_set("TLS record choice %d is none of transport (0), read (1), write (2), "
                       "openssl (3)",
                       (int)o->tls_records);
    if ((unsigned)o->tls_gcm > TP_TLS_GCM_OPENSSL)
        return err_set("TLS AES-GCM code choice %d is none of auto (0), vaes (1), openssl (2)",
                       (int)o->tls_gcm);
    if (o->tls_gcm == TP_TLS_GCM_VAES && o->tls_records != TP_TLS_RECORDS_OPENSSL &&
        !tp_tls_vaes_available())
        return err_set("TLS records sealed and opened with VAES asked for, but this CPU (or OS) "
                       "lacks AES-NI, PCLMULQDQ, AVX2, VAES or VPCLMULQDQ");
    return 0;
}

int tp_tls_ctx_new(const tp_opts *o, int server, struct ssl_ctx_st **out)
{
    *out = NULL;
    if (record_choices(o) < 0)
        return TP_EINVAL;
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!ctx)
        return ssl_err("TLS: cannot create the TLS settings%s", "");
    const char *ciphers =
        o->tls_ciphers && *o->tls_ciphers ? o->tls_ciphers : TLS12_DEFAULT_CIPHERS;
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_clear_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_default_read_buffer_len(ctx, TLS_READ_BUF);
    SSL_CTX_set_keylog_callback(ctx, tp_tls_keylog); /* TLS 1.3 record keys (tp_tls_keys.h) */
    int rc = set_versions(ctx, o->tls_protocols);
    if (rc == 0 && SSL_CTX_set_cipher_list(ctx, ciphers) != 1)
        rc = ssl_err("TLS cipher list \"%s\" names no cipher this build can use", ciphers);
    if (rc == 0 && SSL_CTX_set_ciphersuites(ctx, TLS13_SUITES) != 1)
        rc = ssl_err("TLS: cannot set the TLS 1.3 suites%s", "");
    if (rc == 0 && server) {
        SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
        SSL_CTX_set_num_tickets(ctx, 0); /* clients of the tools never resume */
        SSL_CTX_set_dh_auto(ctx, 1);     /* DHE suites: the ETA client offers them first */
        rc = server_files(ctx, o);
    } else if (rc == 0) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        rc = client_store(ctx, o);
    }
    if (rc < 0) {
        SSL_CTX_free(ctx);
        return TP_EINVAL;
    }
    *out = ctx;
    return 0;
}

void tp_tls_ctx_free(struct ssl_ctx_st *ctx)
{
    SSL_CTX_free(ctx);
}

int tp_tls_ctx_ref(struct ssl_ctx_st *ctx)
{
    return SSL_CTX_up_ref(ctx) == 1 ? 0 : err_set("TLS: cannot share the TLS settings");
}

int tp_tls_check(const tp_opts *o, bool server)
{
    SSL_CTX *ctx;
    int rc = tp_tls_ctx_new(o, server, &ctx);
    if (rc < 0)
        return TP_EINVAL;
    SSL_CTX_free(ctx);
    return 0;
}
