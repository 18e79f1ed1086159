/*
 * tp_tls_rx: a TLS client's records read and decrypted in place, in the channel's input area.
 *
 * Through OpenSSL a record is read into OpenSSL's buffer, decrypted there and copied into the
 * channel's input area. Once the RIPC handshake is over, a client channel whose connection
 * uses an AES-GCM suite (TLS 1.2 or 1.3) reads the socket itself, straight into the input
 * area behind the bytes not yet parsed, and decrypts each record where it lies: no copy of the
 * data, one recv() for as many records as have arrived. OpenSSL keeps the handshake, the
 * certificate check and everything the channel writes; the read keys come from it (TLS 1.2:
 * the session's master secret expanded with the two randoms; TLS 1.3: the server's traffic
 * secret, reported by OpenSSL's key-log callback), with the number of records it read after
 * the handshake.
 *
 * Layout of the input area while reading in place (offsets into ch->in):
 *
 *     0 ... in_rd ........ in_wr ...... raw_rd ............ raw_wr ...... in_cap
 *           | plaintext not |  (spent     | records received, |
 *           | parsed yet    |   bytes)    | not decrypted yet |
 *
 * Each record is decrypted in place; its plaintext starts a header (and TLS 1.2 nonce) after
 * raw_rd, so the few bytes not yet parsed are moved up against it (at most one frame) and the
 * plaintext runs on without a gap. The area is compacted (both parts moved to its start) only
 * when a whole record might not fit behind raw_wr.
 *
 * Records other than data: a close_notify ends the stream; another alert fails it with the
 * alert's number; TLS 1.3 tickets are skipped and key updates followed (one asked for is
 * answered through OpenSSL, which writes); a TLS 1.2 hello request is ignored (the client
 * does not renegotiate). Anything else, and a record that fails its integrity check, fails
 * the channel saying so.
 */
#ifndef RWFPERF_TP_TLS_RX_H
#define RWFPERF_TP_TLS_RX_H

#include <stddef.h>
#include <stdint.h>

#include "tp_int.h"

struct ssl_st;
struct tp_tls_keys;
typedef struct tp_tls_rx tp_tls_rx;

/* Starts reading in place for a client connection ssl whose handshake is complete:
 * secret13 (secret_len bytes) is the server's TLS 1.3 application traffic secret (unused
 * for TLS 1.2); records_read counts the records OpenSSL read after the handshake; gcm chooses
 * the AES-GCM code. Returns 0 and *out; 1 when the connection's version or suite is not one
 * this reader handles (the caller keeps reading through OpenSSL); TP_EFAIL. */
int tp_tls_rx_new(struct ssl_st *ssl, const uint8_t *secret13, size_t secret_len,
                  uint64_t records_read, tp_tls_gcm gcm, tp_tls_rx **out);

/* Test-only (record-layer tests and fuzz targets, without a handshake): a reader with the
 * keys k set up by tp_tls_keys_init_test, which it takes over (k is left cleared, also on
 * failure). A key update the server asks for is followed but not answered (no connection to
 * answer through). 0 and *out, or TP_EFAIL. */
int tp_tls_rx_new_test(struct tp_tls_keys *k, tp_tls_rx **out);

/* The reader's keys (for tests: sequence number, key generation). */
const struct tp_tls_keys *tp_tls_rx_keys(const tp_tls_rx *rx);

/* Receives and decrypts records into ch's input area until it holds a complete frame (or a
 * frame length the parser will refuse) or no complete record is left to decrypt. Sets
 * ch->rx_pend while complete records are left (the descriptor will not announce them).
 * Returns 1 (bytes were added), 0 (none now: wait for the socket), TP_IO_EOF (the peer ended
 * the stream: close_notify or an orderly close between records; err_set() says which) or
 * TP_EFAIL (err_set() says what was wrong). */
int tp_tls_rx_fill(tp_channel *ch, tp_tls_rx *rx);

/* Frees rx and wipes its keys (NULL is fine). */
void tp_tls_rx_free(tp_tls_rx *rx);

#endif
