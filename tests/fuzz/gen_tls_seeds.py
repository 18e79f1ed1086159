#!/usr/bin/env python3
"""Writes the hand-made seeds of the TLS fuzz targets (see the input formats at the top of
tests/fuzz/fuzz_tls_records.c and fuzz_gcm_vaes.c):

  seeds/fuzz_tls_records/  the peer's programs for the reader, valid sealed records of each
                           kind (data of sizes around the limits, TLS 1.3 padding, zero-length
                           records, tickets, key updates asked for or not, close_notify and
                           other alerts, a hello request), sent whole and split at every small
                           piece size, for TLS 1.2 and 1.3, AES-128 and AES-256, each AES-GCM
                           code, and sequence numbers near their end; and the sealer's programs
                           (writes of sizes around a record, key updates, the close);
  seeds/fuzz_gcm_vaes/     lengths around the 128-byte steps and the record sizes, both key
                           sizes, in place and not, each kind of changed byte.

The harness seals the records itself, so the seeds hold no keys or ciphertext and stay valid
whatever the keys. Run from anywhere: python3 tests/fuzz/gen_tls_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

DATA, ALERT, HANDSHAKE, CCS = 23, 21, 22, 20


def frames(n, seed=0):
    """n bytes of RIPC-like frames (2-byte length, then that many bytes in all)."""
    out = bytearray()
    while len(out) < n:
        flen = min(max(3, (seed * 37) % 600 + 3), n - len(out))
        if flen < 3:
            out += b"\0" * (n - len(out))
            break
        out += struct.pack(">H", flen) + bytes((seed + i) & 0xFF for i in range(flen - 2))
        seed += 1
    return bytes(out)


def content(n, pattern):
    """n bytes of content: pattern (at most 255 bytes, n at most) repeated."""
    pattern = pattern[:min(255, n)]
    return bytes([len(pattern)]) + pattern


def rec(type_, n, pattern=b"", pad=0):
    """op 1: a sealed record of content type type_ (its low 2 bits: 20 + them), n bytes."""
    return bytes([1, (type_ - 20) & 3]) + struct.pack(">H", n) + bytes([pad]) + content(n, pattern)


def data(n, seed=0, pad=0):
    """A data record of n bytes of frames (a pattern of whole frames, repeated)."""
    return rec(DATA, n, frames(min(n, 240), seed), pad)


def key_update(request):
    return bytes([2, request])


def ticket(n):
    return bytes([3, n]) + bytes(range(n))


def alert(level, desc):
    return bytes([4, level, desc])


def send(piece):
    return bytes([6, piece - 1])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def reader_seeds(out):
    n = 0
    for cfg_v13 in (0, 1):
        for big in (0, 1):
            for code in (0, 1, 2):
                cfg = cfg_v13 | big << 1 | code << 2
                base = cfg_v13 * 100 + big * 10 + code
                # data records of sizes around the limits, whole
                prog = bytearray([cfg])
                for size in (0, 1, 3, 15, 16, 17, 255, 256, 6144, 16383, 16384):
                    prog += data(size, size)
                prog += alert(1, 0)
                write(os.path.join(out, "data_sizes_%03d" % base), prog)
                # control records of each kind between data (TLS 1.3: padding too)
                prog = bytearray([cfg])
                prog += data(100, 1)
                if cfg_v13:
                    prog += ticket(40) + data(50, 2, pad=32)
                    prog += key_update(0) + data(70, 3)
                    prog += key_update(1) + data(30, 4, pad=255)
                    prog += data(0)  # a zero-length data record
                else:
                    prog += ticket(0)  # hello request (the client ignores it)
                    prog += data(70, 3)
                prog += alert(1, 0)
                write(os.path.join(out, "control_%03d" % base), prog)
                n += 2
                if code:
                    continue
                # the same records split at every piece size from 1 to 24 bytes
                for piece in (1, 2, 3, 5, 7, 13, 24):
                    prog = bytearray([cfg])
                    prog += data(200, piece)
                    if cfg_v13:
                        prog += key_update(0) + ticket(8)
                    prog += data(40, piece + 1) + send(piece)
                    write(os.path.join(out, "split_%03d_%02d" % (base, piece), ), prog)
                    n += 1
                # bad records: another alert, a change_cipher_spec, a corrupted byte, a header
                # longer than the largest record, bytes that are not TLS
                write(os.path.join(out, "alert_%03d" % base),
                      bytes([cfg]) + data(30, 5) + alert(2, 40))
                write(os.path.join(out, "ccs_%03d" % base), bytes([cfg]) + rec(CCS, 1, b"\x01"))
                write(os.path.join(out, "corrupt_%03d" % base),
                      bytes([cfg]) + data(60, 6) + bytes([5, 0, 20, 0x40]))
                write(os.path.join(out, "toolong_%03d" % base),
                      bytes([cfg]) + bytes([7, DATA, 0x48, 0x01]))
                write(os.path.join(out, "nottls_%03d" % base),
                      bytes([cfg]) + bytes([0, 18]) + b"GET / HTTP/1.1\r\n\r\n")
                # near the end of the sequence numbers
                write(os.path.join(out, "seqend_%03d" % base),
                      bytes([cfg | 0x10]) + b"".join(data(10, k) for k in range(6)))
                n += 6
    return n


def sealer_seeds(out):
    n = 0
    for cfg_v13 in (0, 1):
        for big in (0, 1):
            for code in (0, 1, 2):
                cfg = 0x80 | cfg_v13 | big << 1 | code << 2
                base = cfg_v13 * 100 + big * 10 + code
                prog = bytearray([cfg])
                for size in (1, 100, 16383, 16384, 16385, 20480):
                    prog += bytes([0]) + struct.pack(">H", size - 1)
                    prog += content(size, bytes((size + i) & 0xFF for i in range(64)))
                    prog += bytes([2])
                if cfg_v13:
                    prog += bytes([1, 0, 0, 99, 0]) + bytes([1, 1, 0, 0, 10, 0])
                prog += bytes([3])
                write(os.path.join(out, "seal_%03d" % base), prog)
                # at the AES-GCM limit: TLS 1.3 updates its keys, TLS 1.2 stops
                prog = bytearray([cfg | 0x10])
                for k in range(8):
                    prog += bytes([0, 0, 200, 3, 1, 2, 3])
                prog += bytes([3])
                write(os.path.join(out, "limit_%03d" % base), prog)
                n += 2
    return n


def gcm_seeds(out):
    n = 0
    for k256 in (0, 1):
        for length in (0, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 383, 384, 512, 1000,
                       4096, 16384, 16401, 17408):
            for hit in (0, 2, 3):
                inplace = (length // 16) & 1
                head = bytes([k256 | inplace << 1 | hit << 2, length % 32, (length * 7) % 32])
                head += struct.pack(">H", length) + bytes([(length * 3) % 256])
                head += struct.pack(">H", (length * 5 + 1) % 65536) + bytes([0x80])
                body = bytes((length + i * 13) & 0xFF for i in range(32 + 12 + 64))
                write(os.path.join(out, "gcm_%d_%05d_%d" % (k256, length, hit)), head + body)
                n += 1
    return n


def main():
    counts = []
    for target, gen in (("fuzz_tls_records", lambda d: reader_seeds(d) + sealer_seeds(d)),
                        ("fuzz_gcm_vaes", gcm_seeds)):
        out = os.path.join(HERE, "seeds", target)
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            os.remove(os.path.join(out, f))
        counts.append("%s: %d seeds" % (target, gen(out)))
    print("; ".join(counts))


if __name__ == "__main__":
    main()
