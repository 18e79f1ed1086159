/*
 * tp_tls: the TLS stream (OpenSSL) of encrypted channels, and their TLS settings.
 *
 * The stream sits directly on the socket (OpenSSL reads and writes ch->fd itself) and carries
 * the RIPC byte stream, or later a WebSocket stream, unchanged. Settings (tp_tls_ctx_new):
 * TLS 1.2 and 1.3 by default, TLS 1.2 alone with TP_TLS_V1_2 (as the ETA tools, which speak
 * only 1.2); TLS 1.2 suites are the DHE/ECDHE-RSA AES-GCM and SHA-2 suites of the ETA tools,
 * a server preferring ECDHE and AES-128 (the cheapest per byte) among them. A client checks
 * the server's certificate against the CA store and the host name it connected to: a DNS
 * name against the certificate's DNS subjectAltNames, else its CN; an IP address against its
 * IP subjectAltNames. Once active, an AES-GCM connection's records are the transport's: a
 * client reads them in place (tp_tls_rx.h), a server seals them (tp_tls_tx.h), each flush of the
 * channel's queue in records of up to 16 KiB; other suites stay with OpenSSL, which reads
 * ahead into one buffer (one recv() brings many records). On the steady-state path nothing is
 * allocated.
 */
#ifndef RWFPERF_TP_TLS_H
#define RWFPERF_TP_TLS_H

#include "tp_stream.h"

/* Creates the TLS stream of ch (client or server as ch says) over ch->fd with ch->tls_ctx.
 * Returns 0 and *out, or TP_EFAIL. */
int tp_tls_stream_new(tp_channel *ch, tp_stream **out);

struct ssl_st;

/* OpenSSL's key-log callback of client settings: keeps the server's TLS 1.3 application
 * traffic secret with the connection's stream, for reading its records in place. */
void tp_tls_keylog(const struct ssl_st *ssl, const char *line);

/* The OpenSSL connection of ch's TLS stream, or NULL (for tests that act as a peer would:
 * key updates, tickets, close_notify). */
struct ssl_st *tp_tls_ssl(tp_channel *ch);

#endif
