/*
 * libFuzzer target: the transport's own TLS record layer, the client's reader in place
 * (tp_tls_rx) and the server's sealer (tp_tls_tx), with fixed keys and no handshake: their
 * state is built by the test-only entry points (tp_tls_keys_init_test, tp_tls_rx_new_test,
 * tp_tls_tx_new_test), and they run over a socketpair as with a real peer. The peer seals and
 * opens with OpenSSL's AES-GCM (ts_tlsrec.h), whatever the code under test.
 *
 * Byte 0: bit 0 TLS 1.3 (else 1.2); bit 1 AES-256 (TLS 1.3: with SHA-384, else AES-128 with
 * SHA-256); bits 2-3 the AES-GCM code under test (1 openssl, 2 vaes where the CPU has it,
 * else auto); bit 4 sequence numbers start near their end (the reader's 4 below 2^64, the
 * sealer's 4 below the AES-GCM record limit); bit 7 the sealer (else the reader).
 *
 * Reader: the rest is what the peer (a server) does, one op byte (its low 3 bits) with its
 * operands:
 *   0 raw      n (1 byte), then n bytes: bytes as they are
 *   1 record   type (1 byte: 20-23 by its low 2 bits, the byte itself when bit 7 is set),
 *              length (2 bytes, modulo 17 KiB), padding (1 byte, TLS 1.3), content: a sealed
 *              record
 *   2 update   request (1 byte, bit 0): a KeyUpdate (TLS 1.2: the same bytes as a handshake
 *              record), the peer's keys updated after it
 *   3 ticket   length (1 byte): a NewSessionTicket of that body (TLS 1.2: a hello request)
 *   4 alert    level, description (2 bytes)
 *   5 corrupt  where (2 bytes), xor (1 byte): changes a byte not yet sent
 *   6 send     piece (1 byte): what is not yet sent goes out in pieces of piece + 1 bytes, the
 *              reader filling after each, at most PIECES of them (then the rest at once: a
 *              split deeper into a record's content finds the reader in the state of the
 *              ones before, and each piece costs two system calls)
 *   7 header   type, length (1 + 2 bytes): a bare record header (any type and length)
 * A data record that would take the data sent past 1 MiB ends the input there. At the end the
 * rest is sent, the peer shuts its side, and the reader fills until it fails or
 * reports the end. After each fill the complete frames (a 2-byte length, 3 to 6144 bytes) are
 * taken from the input area, as the RIPC parser would; a length outside that fails the
 * channel, as there.
 * Checks: no crash and nothing read or written outside a buffer (ASan); the input area's
 * offsets in order; every failure with a message; and, unless bytes were changed or given raw,
 * the bytes delivered are the start of the data records' contents, in order.
 *
 * Sealer: one op byte each:
 *   0 write    length (2 bytes, modulo 20 KiB, plus 1), content: written until all is taken,
 *              the peer reading when a write must wait
 *   1 update   a key update asked of the sealer, as a peer's request makes (TLS 1.2: none)
 *   2 drain    the peer reads what there is
 *   3 close    the close_notify; the program ends
 * Content, of n bytes: a count g (1 byte), then g bytes (at most n) repeated over the n (zeros
 * when g is 0). Operands past the input's end are zeros.
 *
 * Checks: the peer opens every record with its own count, follows the key updates and reads
 * exactly the bytes the writes took, in order, no record holding more than 16 KiB; a failed
 * write (TLS 1.2 at the limit) says why and nothing follows it on the wire.
 *
 * Speed: the key sets are made once per configuration and key-update generation and kept: the
 * code under test gets a copy of the first, the peer uses them in place and follows a key
 * update by taking the next generation's (no derivation); the reader's channel and the
 * sealer's socketpair are kept from one input to the next (the reader's socketpair is new
 * each time: its peer ends it).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "tp_stream.h"
#include "tp_tls_rx.h"
#include "tp_tls_tx.h"
#include "ts_tlsrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_tls_records: " __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define MAX_FRAME 6144
#define WIRE_MAX (1u << 18)     /* the peer's bytes not yet sent (reader) or received (sealer) */
#define EXPECT_MAX (1u << 20)   /* data the reader should deliver, or the sealer was given */
#define CONTENT_MAX (17 * 1024) /* a record's content (beyond 16 KiB: a record too long) */
#define PIECES 48               /* pieces of op 6 given the piece size asked; then the rest */

static const uint8_t secret[48] = {
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x10,
    0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0, 0x01, 0x02,
    0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x12, 0x34, 0x56};

static uint8_t wire[WIRE_MAX + CONTENT_MAX + 64];
static uint8_t expect[EXPECT_MAX], got[EXPECT_MAX];
static uint8_t content[CONTENT_MAX + 300];

/* The input, read as operands run out: zeros past its end. */
typedef struct in {
    const uint8_t *p;
    size_t left;
} in;

static uint8_t u8(in *i)
{
    if (!i->left)
        return 0;
    i->left--;
    return *i->p++;
}

static size_t u16(in *i)
{
    size_t hi = u8(i);
    return hi << 8 | u8(i);
}

static void bytes(in *i, uint8_t *dst, size_t n)
{
    size_t k = n < i->left ? n : i->left;
    memcpy(dst, i->p, k);
    memset(dst + k, 0, n - k);
    i->p += k;
    i->left -= k;
}

/* n bytes of content: a count g (1 byte), g bytes from the input (at most n), repeated over
 * the n bytes (zeros when g is 0), so that large records cost the input a few bytes. The
 * repeats are made by copies that double what is there (each a whole number of g bytes). */
static void content_of(in *i, uint8_t *dst, size_t n)
{
    size_t g = u8(i);
    if (g > n)
        g = n;
    bytes(i, dst, g);
    if (!g) {
        memset(dst, 0, n);
        return;
    }
    for (size_t have = g; have < n; have *= 2)
        memcpy(dst + have, dst, have < n - have ? have : n - have);
}

static tp_tls_gcm code_of(uint8_t cfg)
{
    switch (cfg >> 2 & 3) {
    case 1:
        return TP_TLS_GCM_OPENSSL;
    case 2:
        return tp_tls_vaes_available() ? TP_TLS_GCM_VAES : TP_TLS_GCM_AUTO;
    default:
        return TP_TLS_GCM_AUTO;
    }
}

/* The key sets of the configuration in byte 0 (its bits 0-3), sealing (enc) or opening, with
 * the code under test or, for the peer, OpenSSL's: generation 0 from the fixed secret and
 * each later one the key update of the one before (TLS 1.3). Each set is made once, when first
 * needed (tp_tls_keys_init_test or tp_tls_keys_update on a copy: a cipher fetched and keyed,
 * keys derived, which cost more than most inputs) and kept; past MAX_GEN generations there is
 * none (NULL). */
#define MAX_GEN 256
static tp_tls_keys *key_set(uint8_t cfg, int enc, int peer, uint32_t gen)
{
    static tp_tls_keys *made[2][2][16][MAX_GEN];
    if (gen >= MAX_GEN)
        return NULL;
    tp_tls_keys **t = &made[enc != 0][peer != 0][cfg & 15][gen];
    if (*t)
        return *t;
    tp_tls_keys *k = malloc(sizeof(*k));
    CHECK(k, "out of memory");
    if (gen == 0) {
        int v13 = cfg & 1, big = cfg >> 1 & 1;
        size_t key_len = big ? 32 : 16;
        size_t slen = v13 ? (big ? 48 : 32) : key_len + 4;
        tp_tls_gcm gcm = peer ? TP_TLS_GCM_OPENSSL : code_of(cfg);
        CHECK(tp_tls_keys_init_test(k, enc, v13, key_len, secret, slen, 0, gcm) == 0, "keys: %s",
              err_msg());
    } else {
        const tp_tls_keys *prev = key_set(cfg, enc, peer, gen - 1);
        *k = *prev;
        k->cx = EVP_CIPHER_CTX_new();
        CHECK(k->cx && EVP_CIPHER_CTX_copy(k->cx, prev->cx) == 1,
              "keys: the cipher context not copied");
        CHECK(tp_tls_keys_update(k) == 0, "keys: update %u: %s", gen, err_msg());
    }
    return *t = k;
}

/* The keys of the code under test (peer 0) as a copy of their first set, with a cipher
 * context of its own (the reader or sealer takes it over), the next record's sequence number
 * seq. */
static void make_keys(tp_tls_keys *k, uint8_t cfg, int enc, uint64_t seq)
{
    const tp_tls_keys *t = key_set(cfg, enc, 0, 0);
    *k = *t;
    k->cx = EVP_CIPHER_CTX_new();
    CHECK(k->cx && EVP_CIPHER_CTX_copy(k->cx, t->cx) == 1, "keys: the cipher context not copied");
    k->seq = seq;
}

/* The peer's keys (OpenSSL's AES-GCM), which it follows through key updates: the kept set of
 * each generation, used in place (one input at a time uses them), and past MAX_GEN a set of its
 * own, updated as it goes (freed by peer_keys_done). */
typedef struct peer_keys {
    tp_tls_keys *k; /* the keys in use */
    tp_tls_keys own;
    uint8_t cfg;
    int enc;
} peer_keys;

static void peer_keys_init(peer_keys *p, uint8_t cfg, int enc, uint64_t seq)
{
    p->cfg = cfg;
    p->enc = enc;
    p->own.cx = NULL;
    p->k = key_set(cfg, enc, 1, 0);
    p->k->seq = seq;
}

/* The peer's key update: the next generation's set. 0 or TP_EFAIL. */
static int peer_keys_update(peer_keys *p)
{
    uint32_t gen = p->k->generation + 1;
    tp_tls_keys *next = key_set(p->cfg, p->enc, 1, gen);
    if (next) {
        next->seq = 0;
        p->k = next;
        return 0;
    }
    if (p->k != &p->own) {
        p->own = *p->k;
        p->own.cx = EVP_CIPHER_CTX_new();
        CHECK(p->own.cx && EVP_CIPHER_CTX_copy(p->own.cx, p->k->cx) == 1,
              "keys: the cipher context not copied");
        p->k = &p->own;
    }
    return tp_tls_keys_update(p->k);
}

static void peer_keys_done(peer_keys *p)
{
    if (p->own.cx)
        tp_tls_keys_clear(&p->own);
}

/* ---- the reader ------------------------------------------------------------------------- */

typedef struct rd {
    tp_channel *ch;
    tp_tls_rx *rx;
    int peer;
    size_t pending, sent; /* wire bytes made, and how many of them are in the socket */
    size_t total;         /* wire bytes sent in all (pending and sent start again at 0) */
    size_t nexpect, ngot;
    int exact; /* no byte changed or given raw: the delivered bytes must match */
    int done;  /* the channel failed or ended */
} rd;

/* Takes the complete frames from the input area (as tp_read would); a frame length the
 * parser refuses fails the channel. */
static void take_frames(rd *r)
{
    tp_channel *ch = r->ch;
    CHECK(ch->in_rd <= ch->in_wr && ch->in_wr <= ch->in_cap, "input area offsets %u %u %u",
          ch->in_rd, ch->in_wr, ch->in_cap);
    while (!r->done && ch->in_wr - ch->in_rd >= 3) {
        uint32_t flen = (uint32_t)ch->in[ch->in_rd] << 8 | ch->in[ch->in_rd + 1];
        if (flen < 3 || flen > MAX_FRAME) {
            r->done = 1; /* the parser fails the channel */
            break;
        }
        if (flen > ch->in_wr - ch->in_rd)
            break;
        CHECK(r->ngot + flen <= EXPECT_MAX, "delivered too much");
        memcpy(got + r->ngot, ch->in + ch->in_rd, flen);
        r->ngot += flen;
        ch->in_rd += flen;
    }
}

/* One fill, its result judged. */
static void fill(rd *r)
{
    if (r->done)
        return;
    for (int i = 0; i < 64; i++) {
        err_clear();
        int rc = tp_tls_rx_fill(r->ch, r->rx);
        if (rc < 0) {
            CHECK(rc == TP_EFAIL || rc == TP_IO_EOF, "fill returned %d", rc);
            CHECK(err_msg()[0] != 0, "a failure without a message");
            r->done = 1;
            return;
        }
        take_frames(r);
        if (r->done || !r->ch->rx_pend)
            return;
    }
}

/* Sends wire bytes [sent, upto) in pieces of piece bytes, filling after each; after PIECES
 * pieces, in pieces as large as the socket takes. */
static void send_upto(rd *r, size_t upto, size_t piece)
{
    /* idle counts the sends in a row that the socket took nothing of */
    for (unsigned idle = 0, k = 0; !r->done && r->sent < upto; idle++, k++) {
        CHECK(idle < 100000, "the reader takes no more bytes (%zu of %zu sent)", r->sent, upto);
        if (k == PIECES)
            piece = WIRE_MAX;
        size_t n = upto - r->sent < piece ? upto - r->sent : piece;
        ssize_t w = send(r->peer, wire + r->sent, n, MSG_NOSIGNAL);
        if (w > 0) {
            r->sent += (size_t)w;
            r->total += (size_t)w;
            idle = 0;
        } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            r->done = 1;
        fill(r);
    }
}

/* Room for one more record in the wire buffer: what is made is sent first when there is
 * not. */
static void room(rd *r)
{
    if (r->pending + CONTENT_MAX + 300 > WIRE_MAX) {
        send_upto(r, r->pending, WIRE_MAX);
        r->pending = r->sent = 0;
    }
}

static void run_reader(uint8_t cfg, in *i)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return;
    fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    rd r = {0};
    r.exact = 1;
    r.peer = sv[1];
    /* one channel for every input (its allocation would cost more than most inputs): its
     * fields as new, its input area kept */
    static tp_channel *ch;
    if (!ch)
        ch = ts_tlsrec_channel(sv[0], MAX_FRAME);
    CHECK(ch, "out of memory");
    uint8_t *area = ch->in;
    memset(ch, 0, sizeof(*ch));
    ch->fd = sv[0];
    ch->in = area;
    ch->in_cap = MAX_FRAME + 2u * TP_TLS_REC_MAX;
    ch->max_in_frame = MAX_FRAME;
    ch->rx_inplace = 1;
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    r.ch = ch;
    uint64_t seq = cfg & 0x10 ? UINT64_MAX - 4 : 0;
    tp_tls_keys mine;
    peer_keys peer;
    make_keys(&mine, cfg, 0, seq);
    peer_keys_init(&peer, cfg, 1, seq);
    CHECK(tp_tls_rx_new_test(&mine, &r.rx) == 0, "reader: %s", err_msg());
    const int v13 = cfg & 1;
    while (i->left && !r.done) {
        uint8_t op = u8(i) & 7;
        room(&r);
        uint8_t *at = wire + r.pending;
        switch (op) {
        case 0: {
            size_t n = u8(i);
            bytes(i, at, n);
            r.pending += n;
            r.exact = 0;
            break;
        }
        case 1: {
            uint8_t t = u8(i);
            uint8_t type = t & 0x80 ? t : (uint8_t)(20 + (t & 3));
            size_t n = u16(i) % CONTENT_MAX, pad = v13 ? u8(i) : 0;
            content_of(i, content, n);
            if (type == TP_TLS_CT_DATA) {
                if (r.nexpect + n > EXPECT_MAX) {
                    i->left = 0; /* the input ends where the data would overflow expect[] */
                    break;
                }
                memcpy(expect + r.nexpect, content, n);
                r.nexpect += n;
            } else {
                r.exact = 0; /* a control record may end the channel */
            }
            r.pending += ts_tlsrec_seal(peer.k, type, content, n, pad, at);
            break;
        }
        case 2: {
            uint8_t ku[5] = {24, 0, 0, 1, (uint8_t)(u8(i) & 1)};
            r.pending += ts_tlsrec_seal(peer.k, TP_TLS_CT_HANDSHAKE, ku, 5, 0, at);
            if (v13)
                CHECK(peer_keys_update(&peer) == 0, "peer update");
            else
                r.exact = 0;
            break;
        }
        case 3: {
            size_t n = u8(i);
            content[0] = v13 ? 4 : 0;
            content[1] = 0;
            content[2] = (uint8_t)(n >> 8);
            content[3] = (uint8_t)n;
            bytes(i, content + 4, n);
            r.pending += ts_tlsrec_seal(peer.k, TP_TLS_CT_HANDSHAKE, content, 4 + n, 0, at);
            if (!v13 && n)
                r.exact = 0;
            break;
        }
        case 4: {
            uint8_t alert[2] = {u8(i), u8(i)};
            r.pending += ts_tlsrec_seal(peer.k, TP_TLS_CT_ALERT, alert, 2, 0, at);
            r.exact = 0;
            break;
        }
        case 5: {
            size_t where = u16(i);
            uint8_t x = u8(i);
            if (r.pending > r.sent && x) {
                wire[r.sent + where % (r.pending - r.sent)] ^= x;
                r.exact = 0;
            }
            break;
        }
        case 6:
            send_upto(&r, r.pending, (size_t)u8(i) + 1);
            break;
        default: {
            at[0] = u8(i);
            at[1] = at[2] = 3;
            size_t n = u16(i);
            at[3] = (uint8_t)(n >> 8);
            at[4] = (uint8_t)n;
            r.pending += 5;
            r.exact = 0;
            break;
        }
        }
    }
    send_upto(&r, r.pending, WIRE_MAX);
    shutdown(sv[1], SHUT_WR);
    /* Each fill opens at least one record (22 bytes at the least) or reads the end; the
     * socket may still hold many records when the last ones were sent at once. */
    for (size_t k = 0, most = r.total / 22 + 4; k < most && !r.done; k++)
        fill(&r);
    CHECK(r.done, "the reader neither failed nor ended after the peer's end");
    if (r.exact) {
        /* what is left in the input area is delivered too (the start of a frame) */
        size_t left = r.ch->in_wr - r.ch->in_rd;
        memcpy(got + r.ngot, r.ch->in + r.ch->in_rd, left);
        CHECK(r.ngot + left <= r.nexpect && memcmp(got, expect, r.ngot + left) == 0,
              "delivered bytes (%zu) are not the start of the data sent (%zu)", r.ngot + left,
              r.nexpect);
    }
    tp_tls_rx_free(r.rx);
    peer_keys_done(&peer);
    close(sv[0]);
    close(sv[1]);
}

/* ---- the sealer ------------------------------------------------------------------------- */

typedef struct wr {
    tp_tls_tx *tx;
    int fd, peer;
    peer_keys k; /* the peer's */
    size_t have; /* wire bytes received, not yet opened */
    size_t nwritten, nread;
    int failed;
} wr;

/* The peer reads and opens what has arrived. */
static void drain(wr *w)
{
    ssize_t n;
    while ((n = recv(w->peer, wire + w->have, WIRE_MAX - w->have, 0)) > 0)
        w->have += (size_t)n;
    size_t off = 0;
    for (;;) {
        uint8_t type = 0, *c = NULL;
        size_t len = 0;
        long r = ts_tlsrec_open(w->k.k, wire + off, w->have - off, &type, &c, &len);
        CHECK(r >= 0, "the peer cannot open record %llu of key %u", (unsigned long long)w->k.k->seq,
              w->k.k->generation);
        if (r == 0)
            break;
        CHECK(len <= 16384, "a record of %zu bytes of content", len);
        if (type == TP_TLS_CT_HANDSHAKE) {
            CHECK(w->k.k->v13 && len == 5 && c[0] == 24 && c[4] == 0, "a handshake record");
            CHECK(peer_keys_update(&w->k) == 0, "peer update");
        } else if (type == TP_TLS_CT_DATA) {
            CHECK(w->nread + len <= w->nwritten && memcmp(c, expect + w->nread, len) == 0,
                  "the peer read bytes that were not written");
            w->nread += len;
        } else {
            CHECK(type == TP_TLS_CT_ALERT && len == 2 && c[0] == 1 && c[1] == 0,
                  "an unexpected record of type %u", type);
        }
        off += (size_t)r;
    }
    memmove(wire, wire + off, w->have - off);
    w->have -= off;
}

/* The sealer's socketpair, one for every input (making one costs more than many inputs): what
 * an input left unread is discarded before the next; a pair in any other state is made again.
 * Its sealing end takes a few KB at a time. 0, or -1 when no pair can be made. */
static int sealer_pair(int sv[2])
{
    static int pair[2] = {-1, -1};
    if (pair[0] >= 0) {
        uint8_t junk[4096];
        ssize_t n;
        while ((n = recv(pair[1], junk, sizeof(junk), 0)) > 0)
            ;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(pair[0]);
            close(pair[1]);
            pair[0] = pair[1] = -1;
        }
    }
    if (pair[0] < 0) {
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
            pair[0] = pair[1] = -1;
            return -1;
        }
        for (int k = 0; k < 2; k++)
            fcntl(pair[k], F_SETFL, fcntl(pair[k], F_GETFL) | O_NONBLOCK);
        int small = 4096;
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    }
    sv[0] = pair[0];
    sv[1] = pair[1];
    return 0;
}

static void run_sealer(uint8_t cfg, in *i)
{
    int sv[2];
    if (sealer_pair(sv) < 0)
        return;
    wr w = {0};
    w.fd = sv[0];
    w.peer = sv[1];
    uint64_t seq = cfg & 0x10 ? TP_TLS_GCM_RECORD_LIMIT - 4 : 0;
    tp_tls_keys k;
    make_keys(&k, cfg, 1, seq);
    peer_keys_init(&w.k, cfg, 0, seq);
    CHECK(tp_tls_tx_new_test(&k, &w.tx) == 0, "sealer: %s", err_msg());
    int closed = 0;
    while (i->left && !w.failed && !closed) {
        switch (u8(i) & 3) {
        case 0: {
            size_t n = u16(i) % (20 * 1024) + 1;
            if (w.nwritten + n > EXPECT_MAX)
                n = 0;
            const size_t start = w.nwritten; /* the bytes taken so far count as written */
            content_of(i, expect + start, n);
            size_t off = 0;
            for (int tries = 0; off < n && tries < 10000; tries++) {
                err_clear();
                long r = tp_tls_tx_write(w.tx, w.fd, expect + start + off, n - off);
                if (r < 0) {
                    CHECK(err_msg()[0] != 0, "a failed write without a message");
                    w.failed = 1;
                    break;
                }
                CHECK((size_t)r <= n - off, "took more than offered");
                off += (size_t)r;
                w.nwritten = start + off;
                if (r == 0)
                    drain(&w);
            }
            CHECK(w.failed || off == n, "a write did not finish");
            break;
        }
        case 1:
            tp_tls_tx_key_update_asked(w.tx);
            break;
        case 2:
            drain(&w);
            break;
        default:
            tp_tls_tx_close(w.tx, w.fd);
            closed = 1;
            break;
        }
    }
    drain(&w);
    CHECK(w.nread == w.nwritten, "the peer read %zu of the %zu bytes taken", w.nread, w.nwritten);
    CHECK(w.have == 0 || !closed, "bytes after the close");
    if (w.failed) { /* nothing after the failure */
        size_t before = w.have;
        tp_tls_tx_close(w.tx, w.fd);
        drain(&w);
        CHECK(w.have == before, "a record after the failed write");
    }
    tp_tls_tx_free(w.tx);
    peer_keys_done(&w.k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    in i = {data + 1, size - 1};
    if (data[0] & 0x80)
        run_sealer(data[0], &i);
    else
        run_reader(data[0], &i);
    return 0;
}
