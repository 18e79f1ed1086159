#!/usr/bin/env python3
"""The progress line on a terminal (docs/outputs.md#the-progress-line), run by the executables.

ConsPerf against ProvPerf on 127.0.0.1, stdout and stderr each on a pseudo-terminal of its own
(raw: the bytes as written): stderr carries the line, redrawn in place ("\\r...\\033[K") with
its fields, and erased at the end; stdout carries no byte of it. The same run with stdout and
stderr not terminals: no progress text anywhere. -noProgress and RWFPERF_NO_PROGRESS=1 on a
terminal: none either. With two connections, one line for both. ProvPerf's line (its stderr a terminal): channels, rate, images sent.
NIProvPerf's and TransportPerf's lines (the client measures latency: p99), one of them on a
narrow terminal, cut to its width.
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

BIN = os.environ["RWFPERF_BIN"]
failures = []
lock = threading.Lock()


def check(cond, what, detail=""):
    with lock:
        print(("ok: " if cond else "FAILED: ") + what)
        if not cond:
            failures.append(what)
            if detail:
                print("  " + detail[-3000:].replace("\n", "\n  "))


def terminal(cols=200):
    """A pseudo-terminal in raw mode (no newline translation) of `cols` columns:
    (master, slave)."""
    m, s = pty.openpty()
    tty.setraw(s)
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    return m, s


def run(args, cwd, out_tty=True, err_tty=True, env=None, cols=200, timeout=90):
    """Runs a tool with stdout / stderr on terminals of their own (or pipes); returns
    (status, stdout bytes, stderr bytes)."""
    fds, slaves = {}, []
    popen = {"stdin": subprocess.DEVNULL}
    for name, on in (("stdout", out_tty), ("stderr", err_tty)):
        if on:
            m, s = terminal(cols)
            fds[name] = m
            slaves.append(s)
            popen[name] = s
        else:
            popen[name] = subprocess.PIPE
    p = subprocess.Popen([os.path.join(BIN, args[0])] + args[1:], cwd=cwd,
                         env=dict(os.environ, **(env or {})), **popen)
    for s in slaves:
        os.close(s)
    for name in ("stdout", "stderr"):
        if name not in fds:
            fds[name] = getattr(p, name).fileno()
    data = {name: b"" for name in fds}
    open_fds = dict(fds)
    end = time.time() + timeout
    while open_fds and time.time() < end:
        r, _, _ = select.select(list(open_fds.values()), [], [], 0.5)
        for fd in r:
            name = next(n for n, f in open_fds.items() if f == fd)
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the terminal's last writer has gone
                chunk = b""
            if chunk:
                data[name] += chunk
            else:
                del open_fds[name]
    if p.poll() is None:
        p.kill()
    rc = p.wait()
    for name in ("stdout", "stderr"):
        if out_tty if name == "stdout" else err_tty:
            os.close(fds[name])
    return rc, data["stdout"], data["stderr"]


def draws(err, tool):
    """The texts of the tool's progress line as drawn: "\\r<text>\\033[K"."""
    return re.findall(rb"\r(" + tool.encode() + rb" [^\r\x1b]*)\x1b\[K", err)


def no_progress(data):
    return b"\x1b[K" not in data and not re.search(rb"\d s \| ", data)


def start_prov(cwd, *extra):
    """ProvPerf on a free port of 127.0.0.1, its stdout to a file and its stderr on a
    terminal drained by a thread; returns (process, port, stderr collector)."""
    out = open(os.path.join(cwd, "prov.out"), "wb")
    m, s = terminal()
    p = subprocess.Popen([os.path.join(BIN, "ProvPerf"), "-p", "0", "-runTime", "60",
                          "-tickRate", "100", "-updateRate", "2000", "-latencyUpdateRate", "100",
                          *extra], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=s)
    os.close(s)
    got = {"err": b""}

    def drain():
        while True:
            try:
                chunk = os.read(m, 65536)
            except OSError:
                break
            if not chunk:
                break
            got["err"] += chunk
        os.close(m)

    threading.Thread(target=drain, daemon=True).start()
    port = None
    for _ in range(200):
        with open(os.path.join(cwd, "prov.out"), "rb") as f:
            mt = re.search(rb"bound to port (\d+)\.", f.read())
        if mt:
            port = mt.group(1).decode()
            break
        time.sleep(0.05)
    return p, port, got


def consperf(port, steady="4"):
    return ["ConsPerf", "-h", "127.0.0.1", "-p", port, "-itemCount", "100", "-steadyStateTime",
            steady, "-tickRate", "100", "-writeStatsInterval", "1"]


CONS_LINE = re.compile(
    rb"^ConsPerf \d+ s \| (steady state \d+/4 s, \d+ s left|waiting for images, \d+ s left)"
    rb" \| [\d,]+ upd/s \| p99 (-|\d+ us|[\d.]+ ms) \| images [\d,]+/100$")


def cons_on_terminal(cwd, port):
    rc, out, err = run(consperf(port), cwd)
    check(rc == 0, f"ConsPerf on a terminal: status {rc}", out.decode(errors="replace"))
    lines = draws(err, "ConsPerf")
    check(len(lines) >= 3, f"ConsPerf: the line redrawn in place on stderr ({len(lines)} draws)",
          repr(err[-2000:]))
    bad = [l for l in lines if not CONS_LINE.match(l)]
    check(lines and not bad, "ConsPerf: every draw has its fields",
          repr(bad[:3]) + " " + repr(lines[:2]))
    steady = [l for l in lines if l.startswith(b"ConsPerf") and b"steady state" in l
              and b"p99 -" not in l and b"images 100/100" in l
              and not l.endswith(b"| 0 upd/s")]
    check(any(re.search(rb"\| [1-9][\d,]* upd/s \| p99 (\d+ us|[\d.]+ ms) \| images 100/100$", l)
              for l in steady),
          "ConsPerf: in the steady state, a rate, the p99 so far and every image",
          repr(lines[-3:]))
    last = err.rfind(b"\rConsPerf")
    check(last >= 0 and err.endswith(b"\r\x1b[K") and err.rfind(b"\r\x1b[K") > last,
          "ConsPerf: the line erased at the end", repr(err[-300:]))
    check(b"\x1b" not in out and b"\r" not in out and b" upd/s | " not in out,
          "ConsPerf: stdout carries none of it")
    check(b"--- OVERALL SUMMARY ---" in out and b"Steady state time of 4 seconds has expired."
          in out, "ConsPerf: stdout has the console lines and the summary")
    print("  e.g. " + lines[-1].decode(errors="replace") if lines else "  (no line)")


def cons_not_terminal(cwd, port):
    rc, out, err = run(consperf(port, "2"), cwd, out_tty=False, err_tty=False)
    check(rc == 0 and no_progress(out) and no_progress(err) and b"\r" not in out + err,
          f"ConsPerf with stdout and stderr not terminals: no progress text (status {rc}, "
          f"{len(err)} bytes on stderr)", repr(err[-500:]))


def cons_turned_off(cwd, port):
    rc, out, err = run(consperf(port, "2") + ["-noProgress"], cwd)
    check(rc == 0 and no_progress(err) and no_progress(out),
          f"ConsPerf -noProgress on a terminal: no line (status {rc})", repr(err[-500:]))
    rc, out, err = run(consperf(port, "2"), cwd, env={"RWFPERF_NO_PROGRESS": "1"})
    check(rc == 0 and no_progress(err) and no_progress(out),
          f"ConsPerf, RWFPERF_NO_PROGRESS=1, on a terminal: no line (status {rc})",
          repr(err[-500:]))


def cons_two_threads(cwd, port):
    # two connections (each 2,000 upd/s from the provider): one line for both, their sum
    rc, out, err = run(consperf(port, "3") + ["-threads", "0,1"], cwd)
    lines = draws(err, "ConsPerf")
    rates = [int(m.group(1).replace(b",", b"")) for m in
             (re.search(rb"\| ([\d,]+) upd/s \|", l) for l in lines) if m]
    check(rc == 0 and any(l.endswith(b"| images 100/100") for l in lines)
          and rates and max(rates) > 2500 and b"Thread" not in err,
          f"ConsPerf -threads 0,1: one line for both connections, their rates summed (status "
          f"{rc}, rates {rates})", repr(lines[-3:]))


def niprov(cwd, port):
    # a narrow terminal: each draw cut to 39 columns
    rc, out, err = run(["NIProvPerf", "-h", "127.0.0.1", "-p", port, "-itemCount", "20",
                        "-runTime", "3", "-tickRate", "100", "-updateRate", "1000"], cwd,
                       cols=40)
    lines = draws(err, "NIProvPerf")
    check(len(lines) >= 2 and all(len(l) <= 39 for l in lines)
          and any(re.match(rb"^NIProvPerf \d+ s \| \d+ s left \| [\d,]+ upd/s", l)
                  for l in lines),
          f"NIProvPerf: its line on a 40-column terminal, cut to 39 (status {rc})",
          repr(lines[:3]) + repr(err[-300:]))
    rc, out, err = run(["NIProvPerf", "-h", "127.0.0.1", "-p", port, "-itemCount", "20",
                        "-runTime", "3", "-tickRate", "100", "-updateRate", "1000"], cwd)
    lines = draws(err, "NIProvPerf")
    check(any(re.match(rb"^NIProvPerf \d+ s \| \d+ s left \| [1-9][\d,]* upd/s \| images sent "
                       rb"[\d,]+ \| updates sent [1-9][\d,]*$", l) for l in lines),
          f"NIProvPerf: images and updates sent (status {rc})", repr(lines[-3:]))
    if lines:
        print("  e.g. " + lines[-1].decode(errors="replace"))


def transportperf(cwd):
    srv = subprocess.Popen([os.path.join(BIN, "TransportPerf"), "-appType", "server", "-p", "0",
                            "-runTime", "30", "-tickRate", "100", "-reflectMsgs"], cwd=cwd,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    port, buf = None, b""
    end = time.time() + 10
    while port is None and time.time() < end:
        r, _, _ = select.select([srv.stdout], [], [], 0.5)
        if r:
            buf += os.read(srv.stdout.fileno(), 4096)
            mt = re.search(rb"bound on port (\d+)", buf)
            port = mt.group(1).decode() if mt else None
    if port is None:
        check(False, "TransportPerf server started", buf.decode(errors="replace"))
        srv.kill()
        return
    rc, out, err = run(["TransportPerf", "-appType", "client", "-h", "127.0.0.1", "-p", port,
                        "-runTime", "4", "-tickRate", "100", "-msgRate", "2000",
                        "-latencyMsgRate", "100", "-writeStatsInterval", "1"], cwd)
    srv.send_signal(signal.SIGINT)
    srv_out, srv_err = srv.communicate(timeout=30)
    lines = draws(err, "TransportPerf")
    check(any(re.match(rb"^TransportPerf \d+ s \| \d+ s left \| sent [1-9][\d,]* msgs/s \| "
                       rb"received [1-9][\d,]* msgs/s \| rtt p99 (\d+ us|[\d.]+ ms)$", l) for l in lines),
          f"TransportPerf client: rates and the round trip's p99 (status {rc})",
          repr(lines[-3:]) + repr(err[-300:]))
    check(no_progress(srv_out) and no_progress(srv_err),
          "TransportPerf server, stdout and stderr pipes: no progress text")
    if lines:
        print("  e.g. " + lines[-1].decode(errors="replace"))


def main():
    cwd = tempfile.mkdtemp(prefix="rwfperf_progress.")
    prov, port, prov_err = start_prov(cwd)
    if not port:
        check(False, "ProvPerf started", open(os.path.join(cwd, "prov.out")).read())
        prov.kill()
        sys.exit(1)
    t = threading.Thread(target=transportperf, args=(cwd,))
    t.start()
    cons_on_terminal(cwd, port)
    cons_not_terminal(cwd, port)
    cons_turned_off(cwd, port)
    cons_two_threads(cwd, port)
    niprov(cwd, port)
    t.join()
    prov.send_signal(signal.SIGINT)
    prov.wait(timeout=30)
    time.sleep(0.2)
    lines = draws(prov_err["err"], "ProvPerf")
    check(any(re.match(rb"^ProvPerf \d+ s \| \d+ s left \| 1 channel \| [1-9][\d,]* upd/s \| "
                       rb"images sent [1-9][\d,]* \| updates sent [1-9][\d,]*$", l)
              for l in lines),
          "ProvPerf: its line on its terminal (channels, rate, images and updates sent)",
          repr(lines[-5:]))
    with open(os.path.join(cwd, "prov.out"), "rb") as f:
        check(no_progress(f.read()), "ProvPerf: its stdout (a file) carries none of it")
    if lines:
        print("  e.g. " + lines[-1].decode(errors="replace"))
    subprocess.run(["rm", "-rf", cwd])
    if failures:
        print(f"{len(failures)} check(s) FAILED")
        sys.exit(1)
    print("all checks passed")


main()
