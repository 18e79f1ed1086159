/* The TLS stream: OpenSSL over the channel's socket; the handshake with its certificate
 * check and the texts that say why one failed; reads and writes of the RIPC byte stream,
 * handed to the transport's own record layer once active (tp_tls_rx, tp_tls_tx). The TLS
 * settings (SSL_CTX) are made in tp_tls_ctx.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_tls.h"
#include "tp_tls_keys.h"
#include "tp_tls_rx.h"
#include "tp_tls_tx.h"

typedef struct tp_tls {
    tp_stream base;
    SSL *ssl;
    tp_tls_rx *rx;          /* client: records read in place once active; NULL: through OpenSSL */
    tp_tls_tx *tx;          /* server: records sealed by the transport once active; NULL: OpenSSL */
    uint64_t read_after_hs; /* records OpenSSL read after the handshake */
    uint64_t written_after_hs; /* records OpenSSL wrote after the handshake */
    uint8_t hs_done;
    uint8_t no_inplace; /* OpenSSL followed a key update: its read keys are not ours */
    uint8_t secret_len; /* the server's TLS 1.3 application traffic secret (key-log callback) */
    uint8_t secret[64];
    char peer[320]; /* "host:port" of the server, or "client a.b.c.d:port" */
    /* the first certificate error the check met (client) */
    int v_err;
    char v_subject[160];
    char v_date[40];
} tp_tls;

/* ---- error texts --------------------------------------------------------------------- */

/* "host:port" of the server (client side) or "client a.b.c.d:port" (server side). */
static void peer_name(const tp_channel *ch, char *buf, size_t cap)
{
    if (!ch->server) {
        snprintf(buf, cap, "%s:%s", ch->host[0] ? ch->host : "localhost", ch->port);
        return;
    }
    char ip[64] = "?";
    uint16_t port = 0;
    tp_sock_peer(ch->fd, ip, sizeof(ip), &port);
    snprintf(buf, cap, "client %s:%u", ip, port);
}

/* The first OpenSSL error queued ("error:0A00010B:SSL routines::wrong version number"), its
 * reason code in *reason; the queue is emptied. "" when none was queued. */
static void take_ssl_error(char *buf, size_t cap, int *reason)
{
    unsigned long e = ERR_get_error();
    *reason = e ? ERR_GET_REASON(e) : 0;
    if (e)
        ERR_error_string_n(e, buf, cap);
    else
        buf[0] = 0;
    ERR_clear_error();
}

static int verify_cb(int ok, X509_STORE_CTX *x)
{
    SSL *ssl = X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx());
    tp_tls *t = ssl ? SSL_get_app_data(ssl) : NULL;
    if (ok || !t || t->v_err)
        return ok;
    t->v_err = X509_STORE_CTX_get_error(x);
    X509 *cert = X509_STORE_CTX_get_current_cert(x);
    if (!cert)
        return ok;
    X509_NAME_oneline(X509_get_subject_name(cert), t->v_subject, sizeof(t->v_subject));
    const ASN1_TIME *when = t->v_err == X509_V_ERR_CERT_NOT_YET_VALID ? X509_get0_notBefore(cert)
                                                                      : X509_get0_notAfter(cert);
    BIO *b = BIO_new(BIO_s_mem());
    if (b && ASN1_TIME_print(b, when) == 1) {
        int n = BIO_read(b, t->v_date, (int)sizeof(t->v_date) - 1);
        t->v_date[n > 0 ? n : 0] = 0;
    }
    BIO_free(b);
    return ok;
}

/* err_set()s why the client refused the server's certificate (verification result v). */
static int verify_fail(tp_tls *t, long v)
{
    const tp_channel *ch = t->base.ch;
    const char *peer = t->peer;
    char why[600];
    const char *subj = t->v_subject[0] ? t->v_subject : "?";
    const char *host = ch->host[0] ? ch->host : "localhost";
    char store[300];
    if (ch->tls_ca[0])
        snprintf(store, sizeof(store), "the CA store %s", ch->tls_ca);
    else
        snprintf(store, sizeof(store), "the system's default CA store");
    switch (v) {
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
        snprintf(why, sizeof(why), "unknown CA: %s is not signed by a CA in %s", subj, store);
        break;
    case X509_V_ERR_HOSTNAME_MISMATCH:
        snprintf(why, sizeof(why), "name mismatch: %s is not issued to %s", subj, host);
        break;
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        snprintf(why, sizeof(why), "name mismatch: %s has no IP address entry %s", subj, host);
        break;
    case X509_V_ERR_CERT_HAS_EXPIRED:
        snprintf(why, sizeof(why), "expired: %s was valid until %s", subj, t->v_date);
        break;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        snprintf(why, sizeof(why), "not yet valid: %s is valid from %s", subj, t->v_date);
        break;
    default:
        snprintf(why, sizeof(why), "%s", subj);
        break;
    }
    /* The same certificate is refused again on every attempt: final. */
    return err_set("TLS certificate check of %s failed: %s (%s)", peer,
                   X509_verify_cert_error_string(v), why),
           err_final();
}

/* err_set()s why the handshake failed (r, the SSL_do_handshake result). */
static int handshake_fail(tp_tls *t, int r)
{
    const tp_channel *ch = t->base.ch;
    int e = SSL_get_error(t->ssl, r);
    int sys = errno;
    const char *peer = t->peer;
    char ossl[256];
    int reason;
    take_ssl_error(ossl, sizeof(ossl), &reason);
    if (!ch->server) {
        long v = SSL_get_verify_result(t->ssl);
        if (v != X509_V_OK)
            return verify_fail(t, v);
    }
    const char *side = ch->server ? "the client" : "the server";
    if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING ||
        (e == SSL_ERROR_SYSCALL && !ossl[0] && sys == 0) || e == SSL_ERROR_ZERO_RETURN)
        return err_set("TLS handshake with %s failed: %s closed the connection%s", peer, side,
                       ch->server ? ""
                                  : " (does the server accept encrypted connections? a plain "
                                    "server drops a TLS client)");
    if (e == SSL_ERROR_SYSCALL && !ossl[0])
        return err_set_errno(sys, "TLS handshake with %s failed", peer);
    const char *hint = "";
    if (ch->server && (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_HTTP_REQUEST ||
                       reason == SSL_R_PACKET_LENGTH_TOO_LONG || reason == SSL_R_UNKNOWN_PROTOCOL ||
                       reason == SSL_R_RECORD_LENGTH_MISMATCH))
        hint = " (the client is not speaking TLS: a plain connection, or other bytes)";
    else if (reason == SSL_R_UNSUPPORTED_PROTOCOL)
        hint = " (no TLS version that both sides allow)";
    else if (reason == SSL_R_NO_SHARED_CIPHER)
        hint = " (no cipher suite that both sides allow)";
    return err_set("TLS handshake with %s failed: %s%s", peer, ossl[0] ? ossl : "unknown error",
                   hint);
}

/* ---- the stream ops ------------------------------------------------------------------ */

static int tls_handshake(tp_stream *st)
{
    tp_tls *t = (tp_tls *)st;
    ERR_clear_error();
    errno = 0;
    int r = SSL_do_handshake(t->ssl);
    if (r == 1) {
        t->hs_done = 1;
        return 1;
    }
    switch (SSL_get_error(t->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        st->want = POLLIN;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        st->want = POLLOUT;
        return 0;
    default:
        return handshake_fail(t, r);
    }
}

/* The failure of an SSL_read/SSL_write (r its result): 0 with st->want set when it must wait,
 * TP_IO_EOF when the peer ended the stream, TP_EFAIL otherwise; errno keeps the socket's
 * error, for callers that look at it. */
static long io_fail(tp_tls *t, int r, const char *what)
{
    int e = SSL_get_error(t->ssl, r);
    int sys = errno;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        t->base.want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        return 0;
    }
    char ossl[256];
    int reason;
    take_ssl_error(ossl, sizeof(ossl), &reason);
    if (e == SSL_ERROR_ZERO_RETURN) {
        err_set("connection closed by peer (TLS close_notify)");
        return TP_IO_EOF;
    }
    if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING ||
        (e == SSL_ERROR_SYSCALL && !ossl[0] && sys == 0)) {
        err_set("connection closed by peer");
        return TP_IO_EOF;
    }
    if (e == SSL_ERROR_SYSCALL && !ossl[0]) {
        err_set_errno(sys, "%s", what);
        errno = sys;
        return TP_EFAIL;
    }
    err_set("TLS error %s: %s", what, ossl[0] ? ossl : "unknown error");
    errno = sys ? sys : EPROTO;
    return TP_EFAIL;
}

static long tls_read(tp_stream *st, uint8_t *buf, size_t n)
{
    tp_tls *t = (tp_tls *)st;
    size_t got;
    if (TP_UNLIKELY(t->rx != NULL)) {
        err_set("TLS: the stream is read in place");
        return TP_EFAIL;
    }
    if (TP_LIKELY(SSL_read_ex(t->ssl, buf, n, &got) == 1)) {
        st->want = 0;
        return (long)got;
    }
    return io_fail(t, 0, "reading");
}

static long tls_write(tp_stream *st, const uint8_t *buf, size_t n)
{
    tp_tls *t = (tp_tls *)st;
    size_t put;
    if (t->tx) {
        long r = tp_tls_tx_write(t->tx, st->ch->fd, buf, n);
        st->want = r == 0 ? POLLOUT : 0;
        return r;
    }
    if (TP_LIKELY(SSL_write_ex(t->ssl, buf, n, &put) == 1)) {
        st->want = 0;
        return (long)put;
    }
    return io_fail(t, 0, "writing");
}

static int tls_pending(const tp_stream *st)
{
    const tp_tls *t = (const tp_tls *)st;
    return t->rx ? 0 : SSL_has_pending(t->ssl);
}

static int tls_fill(tp_stream *st)
{
    return tp_tls_rx_fill(st->ch, ((tp_tls *)st)->rx);
}

/* Counts the records OpenSSL reads and writes after the handshake (the sequence numbers that
 * the transport continues from: tp_tls_rx, tp_tls_tx) and notes the key updates it reads: a
 * client's OpenSSL has then moved its read keys away from the ones the transport would take
 * over; a server that seals its records answers a request for one. */
static void msg_cb(int write_p, int version, int content_type, const void *buf, size_t len,
                   SSL *ssl, void *arg)
{
    (void)ssl;
    tp_tls *t = arg;
    if (!t->hs_done)
        return;
    if (content_type == SSL3_RT_HEADER && len >= 5) {
        if (write_p)
            t->written_after_hs++;
        else
            t->read_after_hs++;
        return;
    }
    const uint8_t *m = buf;
    if (write_p || version != TLS1_3_VERSION || content_type != SSL3_RT_HANDSHAKE || len < 1 ||
        m[0] != 24)
        return; /* a KeyUpdate exists only in TLS 1.3 */
    if (!t->base.ch->server)
        t->no_inplace = 1;
    else if (t->tx && len >= 5 && m[4] == 1)
        tp_tls_tx_key_update_asked(t->tx);
}

void tp_tls_keylog(const SSL *ssl, const char *line)
{
    static const char tag[] = "SERVER_TRAFFIC_SECRET_0 ";
    tp_tls *t = SSL_get_app_data(ssl);
    if (!t || strncmp(line, tag, sizeof(tag) - 1) != 0)
        return;
    const char *hex = strchr(line + sizeof(tag) - 1, ' '); /* after the client random */
    size_t n = hex ? strlen(++hex) / 2 : 0;
    if (n == 0 || n > sizeof(t->secret))
        return;
    for (size_t i = 0; i < n; i++) {
        int hi = OPENSSL_hexchar2int((unsigned char)hex[2 * i]);
        int lo = OPENSSL_hexchar2int((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return;
        t->secret[i] = (uint8_t)(hi << 4 | lo);
    }
    t->secret_len = (uint8_t)n;
}

/* Whether the transport may protect records itself on this side (server: sealing what it
 * writes; client: reading in place), as the channel's tls_records says. */
static int inplace_allowed(const tp_channel *ch)
{
    switch (ch->o.tls_records) {
    case TP_TLS_RECORDS_TRANSPORT:
        return 1;
    case TP_TLS_RECORDS_READ:
        return !ch->server;
    case TP_TLS_RECORDS_WRITE:
        return ch->server;
    default:
        return 0;
    }
}

/* A client whose TLS stream is the top of the stack, whose OpenSSL holds no read bytes and
 * whose input area has room for a frame and two records: reads in place from now on
 * (tp_tls_rx.h). Returns 1 when it does. */
static int start_inplace(tp_tls *t)
{
    tp_channel *ch = t->base.ch;
    if (ch->strm != &t->base || t->no_inplace || SSL_has_pending(t->ssl) ||
        ch->in_rd != ch->in_wr || ch->in_cap < ch->max_in_frame + 2u * TP_TLS_REC_MAX)
        return 0;
    if (tp_tls_rx_new(t->ssl, t->secret, t->secret_len, t->read_after_hs, ch->o.tls_gcm, &t->rx) !=
        0) {
        t->rx = NULL;
        return 0; /* read through OpenSSL, as before */
    }
    SSL_set_msg_callback(t->ssl, NULL);
    ch->in_rd = ch->in_wr = 0;
    return 1;
}

/* Handshakes read exactly the records they need (so that what follows stays in the socket
 * and makes it readable). Once active, a client reads its records in place (tp_tls_rx.h) and a
 * server seals the ones it writes (tp_tls_tx.h) where the suite allows; what OpenSSL still
 * reads, it reads ahead, many records per recv(). */
static void tls_activate(tp_stream *st)
{
    tp_tls *t = (tp_tls *)st;
    tp_channel *ch = st->ch;
    if (inplace_allowed(ch)) {
        if (!ch->server && start_inplace(t)) {
            ch->rx_inplace = 1;
        } else if (ch->server && tp_tls_tx_new(t->ssl, t->secret, t->secret_len,
                                               t->written_after_hs, ch->o.tls_gcm, &t->tx) != 0) {
            t->tx = NULL; /* written through OpenSSL, as before */
        }
    }
    OPENSSL_cleanse(t->secret, sizeof(t->secret));
    if (!t->rx)
        SSL_set_read_ahead(t->ssl, 1);
}

static void tls_info(const tp_stream *st, tp_info *out)
{
    const tp_tls *t = (const tp_tls *)st;
    const SSL *ssl = t->ssl;
    out->tls_in_place = t->rx || t->tx;
    out->tls_vaes = t->rx ? tp_tls_rx_keys(t->rx)->vaes : t->tx ? tp_tls_tx_keys(t->tx)->vaes : 0;
    snprintf(out->tls_version, sizeof(out->tls_version), "%s", SSL_get_version(ssl));
    const char *c = SSL_get_cipher_name(ssl);
    snprintf(out->tls_cipher, sizeof(out->tls_cipher), "%s", c ? c : "");
}

static void tls_destroy(tp_stream *st, int graceful)
{
    tp_tls *t = (tp_tls *)st;
    if (graceful && st->done && t->tx)
        tp_tls_tx_close(t->tx, st->ch->fd); /* one try at close_notify; never waits */
    else if (graceful && st->done && !(SSL_get_shutdown(t->ssl) & SSL_SENT_SHUTDOWN))
        SSL_shutdown(t->ssl);
    ERR_clear_error();
    SSL_free(t->ssl);
    tp_tls_rx_free(t->rx);
    tp_tls_tx_free(t->tx);
    OPENSSL_cleanse(t->secret, sizeof(t->secret));
    free(t);
}

static const tp_stream_ops tls_ops = {
    .name = "TLS",
    .handshake = tls_handshake,
    .read = tls_read,
    .write = tls_write,
    .pending = tls_pending,
    .fill = tls_fill,
    .activate = tls_activate,
    .info = tls_info,
    .destroy = tls_destroy,
};

/* ---- the socket under OpenSSL --------------------------------------------------------
 * OpenSSL's own socket BIO writes with write(), which raises SIGPIPE when the peer has gone;
 * the transport never does (send with MSG_NOSIGNAL), so TLS uses this BIO over ch->fd. */

static BIO_METHOD *sock_method;
static pthread_once_t sock_once = PTHREAD_ONCE_INIT;

static int bio_write(BIO *b, const char *buf, int n)
{
    const tp_tls *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (t->tx)    /* OpenSSL's own record (a key update it answers, an alert) under write keys */
        return n; /* the transport has taken over: dropped, the transport answers itself */
    ssize_t r = send(t->base.ch->fd, buf, (size_t)n, MSG_NOSIGNAL);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)r;
}

static int bio_read(BIO *b, char *buf, int n)
{
    const tp_tls *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t r = recv(t->base.ch->fd, buf, (size_t)n, 0);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(b);
    return (int)r;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static void make_sock_method(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rwfperf socket");
    if (m && BIO_meth_set_write(m, bio_write) == 1 && BIO_meth_set_read(m, bio_read) == 1 &&
        BIO_meth_set_ctrl(m, bio_ctrl) == 1 && BIO_meth_set_create(m, bio_create) == 1) {
        sock_method = m;
        return;
    }
    BIO_meth_free(m);
}

/* A BIO over the socket of t's channel (not owning it), or NULL. */
static BIO *sock_bio(tp_tls *t)
{
    pthread_once(&sock_once, make_sock_method);
    if (!sock_method)
        return NULL;
    BIO *b = BIO_new(sock_method);
    if (b)
        BIO_set_data(b, t);
    return b;
}

/* ---- creation ------------------------------------------------------------------------ */

/* Client: the name the server is checked against (and sent as SNI when it is a DNS name). */
static int set_peer_name(tp_tls *t, const tp_channel *ch)
{
    const char *host = ch->host[0] ? ch->host : "localhost";
    unsigned char ip[16];
    int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    if (is_ip) {
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host) != 1)
            return err_set("TLS: cannot check the server's certificate against %s", host);
        return 0;
    }
    if (SSL_set_tlsext_host_name(t->ssl, host) != 1 || SSL_set1_host(t->ssl, host) != 1)
        return err_set("TLS: cannot check the server's certificate against %s", host);
    return 0;
}

int tp_tls_stream_new(tp_channel *ch, tp_stream **out)
{
    *out = NULL;
    if (!ch->tls_ctx)
        return err_set("TLS: the channel has no TLS settings");
    tp_tls *t = calloc(1, sizeof(*t));
    if (!t)
        return err_set("out of memory for a TLS stream");
    t->base.ops = &tls_ops;
    t->base.ch = ch;
    peer_name(ch, t->peer, sizeof(t->peer));
    ERR_clear_error();
    t->ssl = SSL_new(ch->tls_ctx);
    BIO *bio = t->ssl ? sock_bio(t) : NULL;
    if (bio)
        SSL_set_bio(t->ssl, bio, bio); /* the SSL owns it */
    if (!t->ssl || !bio) {
        char ossl[256];
        int reason;
        take_ssl_error(ossl, sizeof(ossl), &reason);
        if (t->ssl)
            SSL_free(t->ssl);
        free(t);
        return err_set("TLS: cannot start a connection: %s", ossl);
    }
    SSL_set_app_data(t->ssl, t);
    SSL_set_msg_callback(t->ssl, msg_cb);
    SSL_set_msg_callback_arg(t->ssl, t);
    if (ch->server) {
        SSL_set_accept_state(t->ssl);
    } else {
        SSL_set_connect_state(t->ssl);
        SSL_set_verify(t->ssl, SSL_VERIFY_PEER, verify_cb);
        if (set_peer_name(t, ch) < 0) {
            ERR_clear_error();
            SSL_free(t->ssl);
            free(t);
            return TP_EFAIL;
        }
    }
    t->base.want = ch->server ? POLLIN : POLLOUT;
    *out = &t->base;
    return 0;
}

struct ssl_st *tp_tls_ssl(tp_channel *ch)
{
    for (unsigned i = 0; i < ch->n_strm; i++)
        if (ch->stack[i]->ops == &tls_ops)
            return ((tp_tls *)ch->stack[i])->ssl;
    return NULL;
}
