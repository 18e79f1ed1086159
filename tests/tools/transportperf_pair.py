#!/usr/bin/env python3
"""TransportPerf on loopback: a server and its clients run as real processes, and the counts
they report (JSON summaries, console, files) are checked against each other.

    transportperf_pair.py <case>      runs one case (see CASES); exit 0 pass, 1 fail, 77 skip
    transportperf_pair.py --list      lists the cases

Environment: RWFPERF_BIN (folder of our TransportPerf), RWFPERF_ORIG_BIN (optional folder of
the original TransportPerf, for the interop cases; they are skipped without it),
TPERF_KEEP=1 keeps the working folders.

Every server binds port 0 and prints the port it got ("Server N bound on port P"); the
clients are started with that port. The original server cannot bind port 0, so it gets a
port that was free a moment before. Processes are ended by their PID only.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

OURS = os.environ.get("RWFPERF_BIN", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ORIG = os.environ.get("RWFPERF_ORIG_BIN", "")
SKIP = 77


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Proc:
    """One TransportPerf process in its own folder."""

    def __init__(self, work, name, binary, args):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.out_path = os.path.join(self.dir, "stdout")
        self.args = [binary] + args
        self.out = open(self.out_path, "w")
        self.p = subprocess.Popen(self.args, cwd=self.dir, stdout=self.out,
                                  stderr=subprocess.STDOUT)
        self.rc = None

    def text(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def wait(self, timeout):
        try:
            self.rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.rc = self.p.wait()
            raise Fail(f"{self.name} did not end within {timeout} s")
        finally:
            self.out.close()
        return self.rc

    def interrupt(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)

    def json(self):
        files = [f for f in os.listdir(self.dir) if f.endswith(".json")]
        check(len(files) == 1, f"{self.name}: expected one JSON summary, found {files}")
        with open(os.path.join(self.dir, files[0])) as f:
            return json.load(f)

    def overall(self):
        return self.json()["results"]["overall"]

    def summary_count(self, label):
        """A count from the OVERALL SUMMARY printed on the console (for the original)."""
        text = self.text()
        tail = text[text.rfind("--- OVERALL SUMMARY ---"):]
        m = re.search(r"  " + re.escape(label) + r": (\d+)", tail)
        check(m, f"{self.name}: no '{label}' in its summary")
        return int(m.group(1))

    def port(self, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(r"bound on port (\d+)", self.text())
            if m:
                return int(m.group(1))
            if self.p.poll() is not None:
                break
            time.sleep(0.05)
        raise Fail(f"{self.name} did not report its port:\n{self.text()}")

    def describe(self):
        return f"--- {self.name}: {' '.join(self.args)} (exit {self.rc})\n{self.text()}"


class Pair:
    """A server and its clients; run() starts them, waits, and leaves the processes."""

    def __init__(self, work):
        self.work = work
        self.procs = []

    def start(self, name, args, binary=None):
        p = Proc(self.work, name, binary or os.path.join(OURS, "TransportPerf"), args)
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in self.procs:
            if p.p.poll() is None:
                p.p.kill()
                p.p.wait()

    def describe(self):
        return "\n".join(p.describe() for p in self.procs)


def run_pair(work, server_args, client_args, srv_time=3, cli_time=10, clients=1,
             server_bin=None, client_bin=None, port_arg=None, interrupt_server=False,
             client_delay=0.0):
    """Starts the server, then the clients on its port; waits for them. The server runs
    srv_time seconds and each client cli_time; with interrupt_server the server gets SIGINT as
    soon as the clients are done (for tests where the clients end first)."""
    pair = Pair(work)
    try:
        sargs = ["-appType", "server", "-runTime", str(srv_time)] + server_args
        if port_arg is None:
            srv = pair.start("server", ["-p", "0"] + sargs, server_bin)
            port = srv.port()
        else:
            port = port_arg
            srv = pair.start("server", ["-p", str(port)] + sargs, server_bin)
            time.sleep(1.0)
        if client_delay:
            time.sleep(client_delay)
        clis = []
        for k in range(clients):
            cargs = ["-appType", "client", "-p", str(port), "-runTime", str(cli_time)]
            clis.append(pair.start(f"client{k + 1}", cargs + client_args, client_bin))
        for c in clis:
            c.wait(cli_time + 30)
        if interrupt_server:
            srv.interrupt()
        srv.wait(srv_time + 30)
        return pair, srv, clis
    except BaseException:
        pair.stop_all()
        raise


def common_checks(pair, srv, clis, srv_rc=0, cli_rc=0):
    check(srv.rc == srv_rc, f"server exit status {srv.rc}, expected {srv_rc}")
    for c in clis:
        check(c.rc == cli_rc, f"{c.name} exit status {c.rc}, expected {cli_rc}")
    for p in [srv] + clis:
        t = p.text()
        check("out-of-order" not in t and "too small to be valid" not in t,
              f"{p.name} reported bad data")
        check("--- OVERALL SUMMARY ---" in t, f"{p.name} printed no summary")


def oneway(work, server_args, client_args=(), msg_size=76, frame_overhead=3, **kw):
    """Server sends, clients receive: every message sent is received, in sequence."""
    pair, srv, clis = run_pair(work, server_args, ["-msgRate", "0", "-latencyMsgRate", "0"]
                               + list(client_args), **kw)
    try:
        common_checks(pair, srv, clis)
        so = srv.overall()
        recv = sum(c.overall()["msgs_received"] for c in clis)
        check(so["msgs_sent"] > 0, "the server sent nothing")
        check(so["msgs_sent"] == recv,
              f"server sent {so['msgs_sent']}, clients received {recv}")
        for c in clis:
            co = c.overall()
            check(co["sequence_gaps"] == 0, f"{c.name}: sequence gaps")
            check(co["bytes_received"] == co["msgs_received"] * msg_size,
                  f"{c.name}: {co['bytes_received']} bytes for {co['msgs_received']} msgs")
        if frame_overhead is not None:
            want = so["msgs_sent"] * (msg_size + frame_overhead)
            check(so["bytes_sent"] == want,
                  f"server counted {so['bytes_sent']} bytes sent, expected {want}")
        return pair, srv, clis
    except Fail:
        print(pair.describe())
        raise


STD = ["-tickRate", "100", "-msgRate", "20000", "-latencyMsgRate", "100"]


def case_socket(work):
    pair, srv, clis = oneway(work, STD)
    co = clis[0].overall()
    check(co["latency"]["count"] > 0, "no latency sample")
    check(co["sched_latency"]["count"] == co["latency"]["count"],
          "every stamped message of 76 bytes carries its scheduled time")
    so = srv.overall()
    check(so["offered_msg_rate"] == 20000, "offered rate")
    check(abs(so["achieved_msg_rate"] - 20000) < 200,
          f"achieved rate {so['achieved_msg_rate']} far from 20000")
    check("Channel Closed." in srv.text(), "server: orderly close")
    t = clis[0].text()
    check(re.search(r"Channel \d+ active\. Channel Info:\n  maxFragmentSize: 6142\n", t),
          "client: channel info block")
    check("Attempting to connect to server localhost:" in t, "client: connect line")


def case_pack(work):
    # 200 messages per tick: 20 full packed buffers of 10, each a 3-byte header + 10 x (2 + 76).
    pair, srv, clis = oneway(work, STD + ["-pack", "10"], frame_overhead=None)
    so = srv.overall()
    check(so["msgs_sent"] % 10 == 0, "whole packs")
    want = so["msgs_sent"] // 10 * (3 + 10 * 78)
    check(so["bytes_sent"] == want, f"packed bytes sent {so['bytes_sent']}, expected {want}")
    check("Packing: Yes(10 per pack)" in srv.text(), "packing input line")


def case_pack_partial(work):
    # 70 per tick with -pack 50: a buffer of 50, then one of 20 written at the end of the burst.
    pair, srv, clis = oneway(work, ["-tickRate", "100", "-msgRate", "7000", "-pack", "50"],
                             frame_overhead=None)
    so = srv.overall()
    ticks = so["msgs_sent"] // 70
    check(so["msgs_sent"] == ticks * 70, "whole bursts")
    want = ticks * ((3 + 50 * 78) + (3 + 20 * 78))
    check(so["bytes_sent"] == want, f"packed bytes sent {so['bytes_sent']}, expected {want}")


def compression(work, kind, msg_size, compressed):
    sargs = STD + ["-compressionType", kind, "-msgSize", str(msg_size)]
    pair, srv, clis = oneway(work, sargs, ["-compressionType", kind], msg_size=msg_size,
                             frame_overhead=None)
    so = srv.overall()
    plain = so["msgs_sent"] * (msg_size + 3)
    for p in [srv] + clis:
        check(f"compressionType: {kind}\n" in p.text(), f"{p.name}: compression not {kind}")
    if compressed:
        check(so["bytes_sent"] < plain // 2,
              f"{kind}: {so['bytes_sent']} bytes sent for {plain} uncompressed")
    else:
        check(so["bytes_sent"] == plain, f"{kind}: small messages go uncompressed")


def case_zlib(work):
    compression(work, "zlib", 76, True)


def case_lz4(work):
    compression(work, "lz4", 76, False)  # below lz4's 300-byte threshold


def case_lz4_512(work):
    compression(work, "lz4", 512, True)


def case_zlib_512(work):
    compression(work, "zlib", 512, True)


def case_reflect(work):
    cargs = ["-tickRate", "100", "-msgRate", "10000", "-latencyMsgRate", "100"]
    pair, srv, clis = run_pair(work, ["-reflectMsgs"], cargs, srv_time=30, cli_time=3,
                               interrupt_server=True)
    try:
        common_checks(pair, srv, clis)
        so, co = srv.overall(), clis[0].overall()
        check(co["msgs_sent"] > 0, "client sent nothing")
        check(so["msgs_received"] == co["msgs_sent"], "server received what the client sent")
        check(so["msgs_sent"] == so["msgs_received"], "server reflected everything")
        check(co["msgs_received"] == co["msgs_sent"], "client got every message back")
        check(co["latency"]["count"] > 0, "round-trip latency samples")
        check(co["sequence_gaps"] == 0, "client sequence")
        check("Msg Rate: 0(reflecting)" in srv.text(), "reflecting input line")
    except Fail:
        print(pair.describe())
        raise


def case_threads(work):
    pair, srv, clis = oneway(work, STD + ["-threads", "-1,-1"], clients=2, client_delay=0.3)
    so = srv.json()["results"]["threads"]
    check(len(so) == 2, "two server threads")
    check(all(t["msgs_sent"] > 0 for t in so), "each server thread served a client")
    t = srv.text()
    check("passed connection to handler 0" in t and "passed connection to handler 1" in t,
          "least-loaded hand-over")
    check("--- THREAD 1 SUMMARY ---" in t and "--- THREAD 2 SUMMARY ---" in t, "thread blocks")


def case_busyread(work):
    oneway(work, STD + ["-busyRead"], ["-busyRead"], srv_time=2)


def case_directwrite(work):
    oneway(work, STD + ["-directWrite"])


def case_highwatermark(work):
    oneway(work, STD + ["-highWaterMark", "200"])


def case_outputbufs(work):
    oneway(work, ["-tickRate", "100", "-msgRate", "50000", "-outputBufs", "10"])


def case_fragments(work):
    # 1000-byte messages over 256-byte fragments: every message goes in pieces.
    oneway(work, STD + ["-maxFragmentSize", "256", "-msgSize", "1000"], msg_size=1000,
           frame_overhead=None)


def case_socket_options(work):
    opts = ["-tcpDelay", "-sendBufSize", "65536", "-recvBufSize", "65536", "-if", "127.0.0.1"]
    pair, srv, clis = oneway(work, STD + opts, opts)
    check("Tcp_NoDelay: No" in srv.text(), "Tcp_NoDelay input line")
    check("Send Buffer Size: 65536 bytes" in srv.text(), "send buffer input line")


def case_latency_all(work):
    sargs = ["-tickRate", "100", "-msgRate", "2000", "-latencyMsgRate", "all"]
    pair, srv, clis = oneway(work, sargs, ["-latencyFile", "lat"])
    co = clis[0].overall()
    check(co["latency"]["count"] == co["msgs_received"], "every message stamped")
    logs = [f for f in os.listdir(clis[0].dir) if f.startswith("lat")]
    check(len(logs) == 1, f"one latency log, found {logs}")
    with open(os.path.join(clis[0].dir, logs[0])) as f:
        lines = f.read().splitlines()
    check(lines[0] == "Send Time, Receive Time, Latency(nsec)", "latency log header")
    check(len(lines) - 1 == co["msgs_received"], f"{len(lines) - 1} latency rows")
    for row in lines[1:4]:
        send, recv, lat = (int(x) for x in row.split(", "))
        check(lat == recv - send and lat > 0, f"latency row {row}")


def case_stats_files(work):
    sargs = STD + ["-writeStatsInterval", "1"]
    pair, srv, clis = oneway(work, sargs, ["-writeStatsInterval", "1"], srv_time=4)
    header = ("UTC, Msgs sent, Bytes sent, Msgs received, Bytes received, Latency msgs "
              "received, Latency avg (usec), Latency std dev (usec), Latency max (usec), "
              "Latency min (usec), CPU usage (%), Memory (MB)")
    for p, col in ((srv, 1), (clis[0], 3)):
        csvs = [f for f in os.listdir(p.dir) if f.startswith("TransportStats1_")]
        check(len(csvs) == 1, f"{p.name}: one stats file, found {csvs}")
        with open(os.path.join(p.dir, csvs[0])) as f:
            lines = f.read().splitlines()
        check(lines[0].startswith(header), f"{p.name}: stats header")
        rows = [r.split(", ") for r in lines[1:]]
        check(len(rows) >= 2, f"{p.name}: {len(rows)} stats rows")
        ncol = len(lines[0].split(", "))
        check(all(len(r) == ncol for r in rows), f"{p.name}: columns")
        total = p.overall()["msgs_sent" if col == 1 else "msgs_received"]
        check(sum(int(r[col]) for r in rows) <= total, f"{p.name}: rows add up")
        check(re.search(r"\n001:\n  Sent: MsgRate: ", p.text()), f"{p.name}: console interval")


def case_pack_too_big(work):
    pair, srv, clis = run_pair(work, STD + ["-pack", "100"],
                               ["-msgRate", "0", "-latencyMsgRate", "0"], srv_time=5)
    try:
        check(srv.rc == 2, f"server exit status {srv.rc}, expected 2")
        check("MaxFragmentSize 6142 is too small for packing buffer size 8400" in srv.text(),
              "pack size error")
        check("--- OVERALL SUMMARY ---" in srv.text(), "summary still written")
    except Fail:
        print(pair.describe())
        raise


def case_no_server(work):
    pair = Pair(work)
    c = pair.start("client", ["-appType", "client", "-p", str(free_port()), "-runTime", "3"])
    c.wait(30)
    try:
        check(c.rc == 1, f"exit status {c.rc}, expected 1")
        check(c.text().count("Attempting to connect to server") >= 2, "retries every second")
        check("--- OVERALL SUMMARY ---" in c.text(), "summary still written")
    except Fail:
        print(pair.describe())
        raise


def case_sigint(work):
    pair = Pair(work)
    try:
        srv = pair.start("server", ["-appType", "server", "-p", "0", "-runTime", "60"] + STD)
        port = srv.port()
        cli = pair.start("client", ["-appType", "client", "-p", str(port), "-runTime", "60",
                                    "-msgRate", "0", "-latencyMsgRate", "0"])
        time.sleep(2)
        srv.interrupt()
        srv.wait(30)
        cli.wait(30)
        common_checks(pair, srv, [cli])
        check(srv.overall()["msgs_sent"] == cli.overall()["msgs_received"], "counts")
        check(any(f.startswith("TransportSummary_") and f.endswith(".out")
                  for f in os.listdir(srv.dir)), "summary file")
    except Fail:
        print(pair.describe())
        raise
    finally:
        pair.stop_all()


def case_bind_in_use(work):
    """A port another socket holds: the server says so, still writes its summary, status 1."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen(1)
    port = held.getsockname()[1]
    pair = Pair(work)
    try:
        srv = pair.start("server", ["-appType", "server", "-p", str(port), "-if", "127.0.0.1",
                                    "-runTime", "5"])
        srv.wait(30)
        check(srv.rc == 1, f"exit status {srv.rc}, expected 1")
        check("Bind failed: " in srv.text(), "bind error line")
        check("--- OVERALL SUMMARY ---" in srv.text(), "summary still written")
    except Fail:
        print(pair.describe())
        raise
    finally:
        held.close()
        pair.stop_all()


def case_bad_summary_path(work):
    """A summary file that cannot be created is invalid input (status 2), said plainly."""
    pair = Pair(work)
    srv = pair.start("server", ["-appType", "server", "-p", "0", "-runTime", "5",
                                "-summaryFileStatic", "/nonexistent/dir/sum"])
    srv.wait(30)
    try:
        check(srv.rc == 2, f"exit status {srv.rc}, expected 2")
        check("Failed to open file '/nonexistent/dir/sum.out'" in srv.text(), "error line")
    except Fail:
        print(pair.describe())
        raise


def shm_key():
    """A key no other test uses at the same time (the segment is /dev/shm/tr.seg.<key>)."""
    return str(700000000 + (os.getpid() * 7919 + int(time.time() * 1000)) % 200000000)


def shmem_pair(work, server_args, client_args, srv_time=3, cli_time=10, server_bin=None,
               client_bin=None):
    key = shm_key()
    pair = Pair(work)
    try:
        srv = pair.start("server", ["-appType", "server", "-connType", "shmem", "-p", key,
                                    "-runTime", str(srv_time)] + server_args, server_bin)
        time.sleep(0.5)
        cli = pair.start("client", ["-appType", "client", "-connType", "shmem", "-p", key,
                                    "-runTime", str(cli_time), "-msgRate", "0",
                                    "-latencyMsgRate", "0"] + client_args, client_bin)
        return pair, srv, cli
    except BaseException:
        pair.stop_all()
        raise


def case_shmem(work):
    """Writer and reader in two processes: the reader gets everything written after it
    attached, in sequence."""
    pair, srv, cli = shmem_pair(work, STD, [])
    try:
        cli.wait(40)
        srv.wait(40)
        common_checks(pair, srv, [cli])
        so, co = srv.overall(), cli.overall()
        check(co["msgs_received"] > 0, "the reader got nothing")
        check(co["msgs_received"] + co["first_sequence"] == so["msgs_sent"],
              f"server sent {so['msgs_sent']}, the reader joined at {co['first_sequence']} "
              f"and received {co['msgs_received']}")
        check(so["bytes_sent"] == so["msgs_sent"] * 76, "shared memory counts payload bytes")
        check(co["bytes_received"] == co["msgs_received"] * 76, "bytes received")
        check(co["sequence_gaps"] == 0, "sequence")
        check(co["latency"]["count"] > 0, "latency samples")
        check("Server 5 bound on port 0" in srv.text() or "bound on port 0" in srv.text(),
              "shared-memory bind line")
        check("provider terminated" in cli.text(), "the reader saw the writer go")
    except Fail:
        print(pair.describe())
        raise
    finally:
        pair.stop_all()


def case_shmem_slow_reader(work):
    """A reader stopped long enough is lapped by the writer: when it resumes it reports the
    slow-reader condition the way the original does, and fails."""
    sargs = ["-tickRate", "1000", "-msgRate", "100000", "-latencyMsgRate", "10",
             "-outputBufs", "1000"]
    pair, srv, cli = shmem_pair(work, sargs, [], srv_time=7, cli_time=30)
    try:
        time.sleep(1.5)
        cli.p.send_signal(signal.SIGSTOP)
        # Longer than our writer waits for a reader whose position does not move (1 s), so
        # that it gives up on it and runs over it.
        time.sleep(3)
        cli.p.send_signal(signal.SIGCONT)
        cli.wait(40)
        srv.wait(40)
        t = cli.text()
        check(cli.rc == 1, f"reader exit status {cli.rc}, expected 1")
        check("Channel Closed: RSSL_RET_SLOW_READER(" in t and "lags writer by" in t,
              "slow-reader report")
        check("--- OVERALL SUMMARY ---" in t, "reader summary")
        check(srv.rc == 0, f"writer exit status {srv.rc}")
    except Fail:
        print(pair.describe())
        raise
    finally:
        pair.stop_all()


# ---- the original TransportPerf against ours (optional) ------------------------------------

def orig_bin():
    path = os.path.join(ORIG, "TransportPerf") if ORIG else ""
    if not path or not os.access(path, os.X_OK):
        print("SKIP: RWFPERF_ORIG_BIN does not hold the original TransportPerf")
        sys.exit(SKIP)
    return path


ORIG_SERVER = ["-tickRate", "100", "-msgRate", "2000", "-latencyMsgRate", "100"]


def orig_server(work, extra, client_extra=(), msg_size=76):
    """The original server sends; our client receives everything in sequence."""
    ob = orig_bin()
    pair, srv, clis = run_pair(work, ORIG_SERVER + extra,
                               ["-msgRate", "0", "-latencyMsgRate", "0"] + list(client_extra),
                               srv_time=3, cli_time=10, server_bin=ob, port_arg=free_port())
    try:
        check(clis[0].rc == 0, f"client exit status {clis[0].rc}")
        co = clis[0].overall()
        sent = srv.summary_count("Msgs Sent")
        check(sent > 0, "the original server sent nothing")
        # The original closes its channel without flushing, so its last burst (20 messages
        # at these rates) may be counted as sent and never leave.
        got = co["msgs_received"]
        check(sent - 20 <= got <= sent, f"sent {sent}, received {got}")
        check(co["sequence_gaps"] == 0, "sequence")
        check(co["bytes_received"] == got * msg_size, "bytes received")
        check(co["latency"]["count"] > 0, "latency samples")
        check("sched_latency" not in co, "the original sends no scheduled time")
    except Fail:
        print(pair.describe())
        raise


def orig_client(work, extra, client_extra=(), msg_size=76):
    """Our server sends; the original client receives everything."""
    ob = orig_bin()
    pair, srv, clis = run_pair(work, ORIG_SERVER + extra,
                               ["-msgRate", "0", "-latencyMsgRate", "0"] + list(client_extra),
                               srv_time=3, cli_time=10, client_bin=ob)
    try:
        check(srv.rc == 0, f"server exit status {srv.rc}")
        so = srv.overall()
        got = clis[0].summary_count("Msgs Received")
        check(so["msgs_sent"] > 0, "our server sent nothing")
        check(got == so["msgs_sent"], f"sent {so['msgs_sent']}, the original received {got}")
        t = clis[0].text()
        check("out-of-order" not in t and "too small" not in t, "the original saw bad data")
        check("Latency avg (usec)" in t, "the original measured latency")
    except Fail:
        print(pair.describe())
        raise


def case_orig_server_socket(work):
    orig_server(work, [])


def case_orig_server_pack(work):
    orig_server(work, ["-pack", "5"])


def case_orig_server_zlib(work):
    orig_server(work, ["-compressionType", "zlib"], ["-compressionType", "zlib"])


def case_orig_server_lz4(work):
    orig_server(work, ["-compressionType", "lz4", "-msgSize", "512"],
                ["-compressionType", "lz4"], msg_size=512)


def case_orig_client_socket(work):
    orig_client(work, [])


def case_orig_client_pack(work):
    orig_client(work, ["-pack", "5"])


def case_orig_client_zlib(work):
    orig_client(work, ["-compressionType", "zlib"], ["-compressionType", "zlib"])


def case_orig_client_lz4(work):
    orig_client(work, ["-compressionType", "lz4", "-msgSize", "512"],
                ["-compressionType", "lz4"])


def case_orig_server_reflect(work):
    """The original reflects what our client sends."""
    ob = orig_bin()
    cargs = ["-tickRate", "100", "-msgRate", "2000", "-latencyMsgRate", "100"]
    pair, srv, clis = run_pair(work, ["-reflectMsgs"], cargs, srv_time=30, cli_time=3,
                               server_bin=ob, port_arg=free_port(), interrupt_server=True)
    try:
        check(clis[0].rc == 0, f"client exit status {clis[0].rc}")
        co = clis[0].overall()
        check(co["msgs_sent"] > 0 and co["msgs_received"] == co["msgs_sent"],
              f"sent {co['msgs_sent']}, got back {co['msgs_received']}")
        check(co["latency"]["count"] > 0 and co["sched_latency"]["count"] > 0,
              "round trips of both views")
    except Fail:
        print(pair.describe())
        raise


def case_orig_client_reflect(work):
    """We reflect what the original client sends."""
    ob = orig_bin()
    cargs = ["-tickRate", "100", "-msgRate", "2000", "-latencyMsgRate", "100"]
    pair, srv, clis = run_pair(work, ["-reflectMsgs"], cargs, srv_time=30, cli_time=3,
                               client_bin=ob, interrupt_server=True)
    try:
        check(srv.rc == 0, f"server exit status {srv.rc}")
        so = srv.overall()
        sent = clis[0].summary_count("Msgs Sent")
        check(so["msgs_received"] > 0 and so["msgs_sent"] == so["msgs_received"],
              "reflected everything received")
        # The original closes at the end of its run without waiting for replies in flight.
        check(so["msgs_received"] <= sent, "received no more than sent")
        check("Latency avg (usec)" in clis[0].text(), "the original measured round trips")
    except Fail:
        print(pair.describe())
        raise


def case_orig_server_shmem(work):
    """The original writes shared memory, we read it."""
    ob = orig_bin()
    pair, srv, cli = shmem_pair(work, ORIG_SERVER, [], server_bin=ob)
    try:
        cli.wait(40)
        srv.wait(40)
        check(cli.rc == 0, f"reader exit status {cli.rc}")
        co = cli.overall()
        sent = srv.summary_count("Msgs Sent")
        check(co["msgs_received"] > 0, "the reader got nothing")
        check(co["msgs_received"] + co["first_sequence"] == sent,
              f"sent {sent}, joined at {co['first_sequence']}, received {co['msgs_received']}")
        check(co["sequence_gaps"] == 0 and co["latency"]["count"] > 0, "sequence and latency")
    except Fail:
        print(pair.describe())
        raise
    finally:
        pair.stop_all()


def case_orig_client_shmem(work):
    """We write shared memory, the original reads it."""
    ob = orig_bin()
    pair, srv, cli = shmem_pair(work, ORIG_SERVER, [], client_bin=ob)
    try:
        srv.wait(40)
        cli.wait(40)
        check(srv.rc == 0, f"writer exit status {srv.rc}")
        got = cli.summary_count("Msgs Received")
        sent = srv.overall()["msgs_sent"]
        check(0 < got <= sent, f"sent {sent}, the original received {got}")
        t = cli.text()
        check("out-of-order" not in t and "too small" not in t, "the original saw bad data")
        check("Latency avg (usec)" in t, "the original measured latency")
    except Fail:
        print(pair.describe())
        raise
    finally:
        pair.stop_all()


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if sys.argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    fn = CASES.get(sys.argv[1])
    if not fn:
        print(f"unknown case {sys.argv[1]}")
        return 2
    work = tempfile.mkdtemp(prefix=f"tperf_{sys.argv[1]}_")
    try:
        fn(work)
    except Fail as e:
        print(f"FAIL {sys.argv[1]}: {e}\n(work folder {work})")
        return 1
    print(f"PASS {sys.argv[1]}")
    if not os.environ.get("TPERF_KEEP"):
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
