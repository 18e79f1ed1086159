/*
 * tp_tls_tx: a TLS server's records sealed by the transport instead of OpenSSL.
 *
 * Through OpenSSL each flush of the channel's queue is copied into OpenSSL's buffer and
 * encrypted there. Once the RIPC handshake is over, a server channel whose connection uses an
 * AES-GCM suite (TLS 1.2 or 1.3) seals its records itself (tp_tls_keys): TLS 1.2 records are
 * encrypted straight from the channel's queue into a record buffer, TLS 1.3 ones (whose
 * content type follows the data) are copied there and sealed in place; tp_gcm_vaes does the
 * AES-GCM work where the CPU can. OpenSSL keeps the handshake and everything the channel
 * reads. A client's key update request is answered before the next record; the orderly end is
 * a close_notify sealed the same way.
 *
 * Limits: a key seals at most TP_TLS_GCM_RECORD_LIMIT records. Under TLS 1.3 the sealer
 * updates its keys before that (a KeyUpdate, update_not_requested, as the key's last record);
 * under TLS 1.2 the write that would pass it fails the channel, saying so.
 *
 * The write contract is the stream's (tp_stream.h): the bytes of a record count as taken once
 * it is entirely in the socket; until then the call returns 0 and the caller offers the same
 * bytes again.
 */
#ifndef RWFPERF_TP_TLS_TX_H
#define RWFPERF_TP_TLS_TX_H

#include <stddef.h>
#include <stdint.h>

#include "tp.h"

struct ssl_st;
struct tp_tls_keys;
typedef struct tp_tls_tx tp_tls_tx;

/* Starts sealing for a server connection ssl whose handshake is complete (secret13: the
 * server's TLS 1.3 application traffic secret; records_written: the records OpenSSL wrote
 * after the handshake; gcm: the AES-GCM code). Returns 0 and *out; 1 when the version or
 * suite is not handled here (the caller keeps writing through OpenSSL); TP_EFAIL. */
int tp_tls_tx_new(struct ssl_st *ssl, const uint8_t *secret13, size_t secret_len,
                  uint64_t records_written, tp_tls_gcm gcm, tp_tls_tx **out);

/* Test-only (record-layer tests and fuzz targets, without a handshake): a sealer with the
 * keys k set up by tp_tls_keys_init_test, which it takes over (k is left cleared, also on
 * failure). 0 and *out, or TP_EFAIL. */
int tp_tls_tx_new_test(struct tp_tls_keys *k, tp_tls_tx **out);

/* The sealer's keys (for tests: sequence number, key generation). */
const struct tp_tls_keys *tp_tls_tx_keys(const tp_tls_tx *tx);

/* Writes up to n bytes at buf on fd as sealed records: the stream write contract (> 0 bytes
 * taken, 0 = must wait for POLLOUT, TP_EFAIL with err_set()). */
long tp_tls_tx_write(tp_tls_tx *tx, int fd, const uint8_t *buf, size_t n);

/* The peer asked for a key update (TLS 1.3): one is sent before the next record. Nothing
 * under TLS 1.2, which has none. */
void tp_tls_tx_key_update_asked(tp_tls_tx *tx);

/* One try at sending a close_notify (after whatever is still unsent), never waiting. */
void tp_tls_tx_close(tp_tls_tx *tx, int fd);

/* Frees tx and wipes its keys (NULL is fine). */
void tp_tls_tx_free(tp_tls_tx *tx);

#endif
