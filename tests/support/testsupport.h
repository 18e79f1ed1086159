/*
 * testsupport: helpers shared by the test programs.
 *
 * Includes CMocka with the headers it needs, and offers: the location of the captures kept
 * in tests/data/captures and of the source and build trees, whole-file reading, hex parsing,
 * and reassembly of the TCP byte streams in a pcap capture.
 */
#ifndef RWFPERF_TESTSUPPORT_H
#define RWFPERF_TESTSUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Exit status that ctest reports as "skipped". */
#define TS_SKIP 77

/* A growable byte string owned by the caller (free with ts_bytes_free). */
typedef struct ts_bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
} ts_bytes;

void ts_bytes_append(ts_bytes *b, const void *p, size_t n);
void ts_bytes_free(ts_bytes *b);

/* Returns "<source dir>/tests/data/captures/<rel>" (static buffer): a file of the original
 * tools' captures kept in the repository (tests/data/captures/README.md). A missing file fails
 * the test (fail_msg: inside a CMocka case that case, elsewhere the program). */
const char *ts_capture(const char *rel);

/* Returns "<source dir>/<rel>" (static buffer, not checked). */
const char *ts_source_path(const char *rel);

/* Returns "<build dir>/<rel>" (static buffer, not checked). */
const char *ts_binary_path(const char *rel);

/* Reads a whole file into *out (malloc'ed, NUL-terminated for convenience; the NUL is not
 * counted in *len). Returns 0, or -1 with errno set. */
int ts_read_file(const char *path, uint8_t **out, size_t *len);

/* Parses hex digits ("00 41 0a", "0041 0A", any whitespace) into out. Returns the number of
 * bytes written; aborts the test on odd digits, bad characters or overflow of cap. */
size_t ts_hex(const char *hex, uint8_t *out, size_t cap);

/* Fails the current test, printing both buffers as hex around the first difference, when
 * they differ in length or content. */
void ts_assert_bytes_equal(const void *got, size_t got_len, const void *want, size_t want_len);

/* The two directions of one TCP connection found in a pcap capture. */
typedef struct ts_tcp_streams {
    ts_bytes client_to_server; /* payload bytes sent to server_port, in sequence order */
    ts_bytes server_to_client; /* payload bytes sent from server_port */
} ts_tcp_streams;

/* Reads a classic pcap file (Ethernet or Linux cooked, IPv4, TCP) and reassembles the payload
 * of the first TCP connection whose server side uses server_port, ordering segments by
 * sequence number and dropping retransmitted bytes. Returns 0, or -1 with a message on stderr. */
int ts_pcap_tcp_streams(const char *path, uint16_t server_port, ts_tcp_streams *out);
void ts_tcp_streams_free(ts_tcp_streams *s);

/* One UDP datagram of a capture (addresses and ports in host byte order). */
typedef struct ts_udp_dgram {
    uint32_t src, dst;
    uint16_t sport, dport;
    const uint8_t *data;
    size_t len;
} ts_udp_dgram;

typedef void (*ts_udp_fn)(const ts_udp_dgram *d, void *arg);

/* Calls fn for every IPv4 UDP datagram of the classic pcap file at path, in capture order.
 * Returns how many, or -1 with a message on stderr. */
int ts_pcap_udp(const char *path, ts_udp_fn fn, void *arg);

#endif
