#!/usr/bin/env python3
"""TransportPerf over sequenced multicast (-connType seqMCast), live, inside a private network
namespace that this script creates (loopback up with multicast, 224.0.0.0/4 routed to it) and
deletes at the end: the host's interfaces are never used.

    transportperf_mcast.py <case>      runs one case (see CASES); exit 0 pass, 1 fail, 77 skip
    transportperf_mcast.py --list      lists the cases

Needs root (ip netns); skips, saying so, without it. Environment: RWFPERF_BIN (folder of our
TransportPerf), RWFPERF_ORIG_BIN (the original's folder, for the interop cases; skipped
without it), TPERF_KEEP=1 keeps the working folders.

A namespace is named rwfperf-mc-<pid>; one left behind by a run that was killed (its pid no
longer alive) is deleted by the next run. Processes are ended by their pid only.
"""
import atexit
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

OURS = os.environ.get("RWFPERF_BIN", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ORIG = os.environ.get("RWFPERF_ORIG_BIN", "")
SKIP = 77
PREFIX = "rwfperf-mc-"
NS = f"{PREFIX}{os.getpid()}"
GROUP = "239.1.2.3"
PROCS = []  # every process started, ended (by pid) before the namespace goes


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


# ---- the namespace -------------------------------------------------------------------------

def ip(*args, check_rc=True):
    r = subprocess.run(["ip"] + list(args), capture_output=True, text=True)
    if check_rc and r.returncode != 0:
        raise Fail(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def ns_create():
    if os.geteuid() != 0 or not shutil.which("ip"):
        raise Skip("creating a network namespace needs root and iproute2 (ip netns)")
    for line in ip("netns", "list", check_rc=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(PREFIX) and name[len(PREFIX):].isdigit():
            if not alive(int(name[len(PREFIX):])):
                ip("netns", "del", name, check_rc=False)
    r = ip("netns", "add", NS, check_rc=False)
    if r.returncode != 0:
        raise Skip(f"cannot create a network namespace: {r.stderr.strip()}")
    atexit.register(ns_delete)
    ip("-n", NS, "link", "set", "lo", "up", "multicast", "on")
    ip("-n", NS, "route", "add", "224.0.0.0/4", "dev", "lo")


def ns_delete():
    for p in PROCS:
        p.kill()
    ip("netns", "del", NS, check_rc=False)


def on_signal(signum, frame):
    ns_delete()
    sys.exit(1)


# ---- processes -----------------------------------------------------------------------------

class Proc:
    """One TransportPerf process, inside the namespace, in its own folder."""

    def __init__(self, work, name, binary, args):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.out_path = os.path.join(self.dir, "stdout")
        self.args = [binary] + args
        self.out = open(self.out_path, "w")
        # "ip netns exec" runs the program in place of itself: the pid is the tool's
        self.p = subprocess.Popen(["ip", "netns", "exec", NS] + self.args, cwd=self.dir,
                                  stdout=self.out, stderr=subprocess.STDOUT)
        self.rc = None
        PROCS.append(self)

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

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def overall(self):
        files = [f for f in os.listdir(self.dir) if f.endswith(".json")]
        check(len(files) == 1, f"{self.name}: expected one JSON summary, found {files}")
        with open(os.path.join(self.dir, files[0])) as f:
            return json.load(f)["results"]["overall"]

    def summary_count(self, label):
        """A count from the OVERALL SUMMARY printed on the console (for the original)."""
        text = self.text()
        tail = text[text.rfind("--- OVERALL SUMMARY ---"):]
        m = re.search(r"  " + re.escape(label) + r": (\d+)", tail)
        check(m, f"{self.name}: no '{label}' in its summary")
        return int(m.group(1))

    def describe(self):
        return f"--- {self.name}: {' '.join(self.args)} (exit {self.rc})\n{self.text()}"


def mc_args(rport, sport, run_time):
    return ["-appType", "client", "-connType", "seqMCast", "-sa", GROUP, "-sp", str(sport),
            "-ra", GROUP, "-rp", str(rport), "-if", "127.0.0.1", "-runTime", str(run_time)]


class Run:
    """Receivers and senders of one case; stop() ends whatever still runs."""

    def __init__(self, work):
        self.work = work
        self.procs = []

    def receiver(self, name, run_time, extra=(), binary=None, rport=30001):
        args = mc_args(rport, 30009, run_time) + ["-msgRate", "0", "-latencyMsgRate", "0",
                                                   "-recvBufSize", "8000000"] + list(extra)
        return self.start(name, args, binary)

    def sender(self, name, run_time, rate, extra=(), binary=None, rport=30002, sport=30001):
        args = mc_args(rport, sport, run_time) + ["-msgRate", str(rate)] + list(extra)
        return self.start(name, args, binary)

    def start(self, name, args, binary):
        p = Proc(self.work, name, binary or os.path.join(OURS, "TransportPerf"), args)
        self.procs.append(p)
        return p

    def stop(self):
        for p in self.procs:
            p.kill()

    def describe(self):
        return "\n".join(p.describe() for p in self.procs)


def no_seq_error(p):
    t = p.text()
    check("out-of-order" not in t and "too small" not in t, f"{p.name} reported a sequence error")
    check("--- OVERALL SUMMARY ---" in t, f"{p.name} printed no summary")


def need_orig():
    if not ORIG or not os.path.exists(os.path.join(ORIG, "TransportPerf")):
        raise Skip("the original TransportPerf is not available (set RWFPERF_ORIG_BIN)")
    return os.path.join(ORIG, "TransportPerf")


def one_way(run, recv_time, send_time, rate, recv_extra=(), send_extra=(), recv_bin=None,
            send_bin=None):
    """A receiver, then (after it joined) one sender; waits for both."""
    r = run.receiver("receiver", recv_time, recv_extra, recv_bin)
    time.sleep(1.0)
    s = run.sender("sender", send_time, rate, send_extra, send_bin)
    s.wait(send_time + 30)
    r.wait(recv_time + 30)
    return r, s


def sender_entry(ro):
    senders = ro["sequence"]["senders"]
    check(len(senders) == 1, f"expected one sender, the receiver saw {senders}")
    return senders[0]


def check_loss_accounted(ro, sent):
    """Our receiver's loss against what the sender sent: every message it did not receive is
    either counted lost (a gap between two it received), or came before its first one or
    after its last one (a loss at the edges, which no later number reveals)."""
    q = ro["sequence"]
    e = sender_entry(ro)
    recv = ro["msgs_received"]
    head, tail = e["first"], sent - 1 - e["last"]
    check(q["duplicates"] == 0 and q["out_of_order"] == 0, f"duplicates or reordering: {q}")
    check(q["lost"] + head + tail == sent - recv,
          f"sender sent {sent}, receiver got {recv}: lost {q['lost']} + before the first "
          f"{head} + after the last {tail} != {sent - recv}")
    return q["lost"], head, tail


# ---- cases ---------------------------------------------------------------------------------

def case_pair(work):
    """Ours to ours, unpacked, -mcastStats: every message, the datagram counts per interval."""
    run = Run(work)
    r, s = one_way(run, 8, 5, 2000, ["-mcastStats"], ["-mcastStats"])
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    no_seq_error(r)
    ro, so = r.overall(), s.overall()
    check(so["msgs_sent"] > 0 and ro["msgs_received"] == so["msgs_sent"],
          f"sent {so['msgs_sent']}, received {ro['msgs_received']}")
    check(ro["sequence"]["gaps"] == 0 and ro["sequence"]["lost"] == 0, "sequence")
    e = sender_entry(ro)
    check(e["port"] == 30002 and e["first"] == 0 and e["last"] == so["msgs_sent"] - 1,
          f"sender entry {e}")
    m = ro["multicast"]
    # every data datagram, and the sender's last ping
    check(m["pkts_received"] == so["msgs_sent"] + 1, f"datagrams received {m}")
    check(m["lost"] == 0 and m["malformed"]["total"] == 0, f"datagrams {m}")
    check(so["multicast"]["pkts_sent"] == so["msgs_sent"], f"sender {so['multicast']}")
    check(so["bytes_sent"] == so["msgs_sent"] * 90, f"bytes sent {so['bytes_sent']}")
    got = [int(x) for x in re.findall(r"Multicast: Pkts Sent: \d+, Pkts Received: (\d+)",
                                      r.text())]
    check(got and sum(got) <= m["pkts_received"] and got[0] > 0, f"interval lines {got}")
    check("Attempting segmented connect to server (send 239.1.2.3:30009,  recv "
          "239.1.2.3:30001) unicastPort ..." in r.text(), "connect line")


def case_pack(work):
    """Ours to ours, -pack 5: five messages per datagram, one sequence number each."""
    run = Run(work)
    r, s = one_way(run, 7, 4, 1000, [], ["-pack", "5", "-tickRate", "100"])
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    no_seq_error(r)
    ro, so = r.overall(), s.overall()
    check(ro["msgs_received"] == so["msgs_sent"] > 0, "messages")
    dg = ro["multicast"]["pkts_received"] - 1  # less the last ping
    check(dg * 5 == so["msgs_sent"], f"{dg} datagrams for {so['msgs_sent']} messages")


def case_gap_fail(work):
    """The default: the first missing number ends the run, with the original's lines."""
    run = Run(work)
    r, s = one_way(run, 8, 4, 1000, ["-recvLoss", "5", "-recvLossSeed", "3"])
    check(r.rc == 1, f"receiver exit status {r.rc}, expected 1")
    t = r.text()
    check(re.search(r"Error: Received out-of-order sequence number\(\d+ instead of \d+\)\.", t),
          "no out-of-order line")
    check("Channel Closed: RSSL_RET_FAILURE(Message callback returned failure.)" in t,
          "no Channel Closed line")
    check(r.overall()["sequence"]["gaps"] == 1, "one gap counted")


def case_gap_count(work):
    """-seqGaps count with the loss generator: the loss seen matches what the sender sent
    less what arrived; the datagram counts say the same."""
    run = Run(work)
    r, s = one_way(run, 9, 5, 2000, ["-seqGaps", "count", "-recvLoss", "2", "-recvLossSeed",
                                     "11"])
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    ro, so = r.overall(), s.overall()
    lost, head, tail = check_loss_accounted(ro, so["msgs_sent"])
    check(lost > 0, "the loss generator dropped nothing")
    m = ro["multicast"]
    # the generator drops data datagrams (one message each) and perhaps the last ping
    extra = m["loss_generator_dropped"] - (so["msgs_sent"] - ro["msgs_received"])
    check(extra in (0, 1), f"generator dropped {m['loss_generator_dropped']}")
    if extra == 0:  # the last ping arrived: the tail is known at the datagram level
        check(m["lost"] == so["msgs_sent"] - ro["msgs_received"] - head, f"datagrams {m}")
    t = r.text()
    check(re.search(r"  Sequence: gaps \d+, lost \d+, duplicated 0, out of order 0", t),
          "no interval Sequence line")
    check(f"  Msgs lost: {lost}\n" in t, "summary line")
    print(f"sent {so['msgs_sent']}, received {ro['msgs_received']}, lost {lost}, "
          f"head {head}, tail {tail}, generator dropped {m['loss_generator_dropped']}")


def case_two_senders(work):
    """Two senders into one group: each followed on its own, no error."""
    run = Run(work)
    r = run.receiver("receiver", 8)
    time.sleep(1.0)
    s1 = run.sender("sender1", 4, 1000, rport=30002)
    s2 = run.sender("sender2", 4, 1000, rport=30003)
    s1.wait(40)
    s2.wait(40)
    r.wait(40)
    check(r.rc == 0, f"receiver exit status {r.rc}")
    no_seq_error(r)
    ro = r.overall()
    sent = s1.overall()["msgs_sent"] + s2.overall()["msgs_sent"]
    check(ro["msgs_received"] == sent, f"sent {sent}, received {ro['msgs_received']}")
    ports = sorted(e["port"] for e in ro["sequence"]["senders"])
    check(ports == [30002, 30003], f"senders {ports}")


def inject(port, forged):
    """(Runs inside the namespace.) Malformed datagrams, then a flood of forged instance ids."""
    sk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sk.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    dst = (GROUP, port)

    def hdr(seq, inst=0, ver=1, proto=88, hl=12):
        return struct.pack(">BBBBHBBI", ver, 0, proto, hl, inst, 0, 0, seq)

    msg = struct.pack("<QQ", 0, 0) + bytes(60)
    entry = struct.pack(">H", len(msg)) + msg
    bad = [hdr(1, ver=2) + entry,               # bad version
           hdr(2)[:11],                          # shorter than the header
           hdr(3, proto=0) + entry,              # another protocol type
           hdr(4, hl=200) + entry,               # header length past the end
           hdr(5) + entry + b"\x00",             # a length prefix cut short
           hdr(6) + struct.pack(">H", 500) + msg]  # a length past the end
    for d in bad:
        sk.sendto(d, dst)
    for i in range(forged):
        sk.sendto(hdr(1, inst=1000 + i) + entry, dst)
        if i % 200 == 199:
            time.sleep(0.01)


def case_bad_input(work):
    """Malformed datagrams and a flood of forged instance ids while a sender runs: counted,
    the receiver (default mode) keeps going and gets every message of the real sender."""
    run = Run(work)
    r = run.receiver("receiver", 8)
    time.sleep(1.0)
    s = run.sender("sender", 5, 1000)
    time.sleep(1.5)
    forged = 3000
    inj = subprocess.run(["ip", "netns", "exec", NS, sys.executable, os.path.abspath(__file__),
                          "--inject", "30001", str(forged)], capture_output=True, text=True)
    check(inj.returncode == 0, f"injector: {inj.stderr}")
    s.wait(40)
    r.wait(40)
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    ro, so = r.overall(), s.overall()
    m = ro["multicast"]
    bad = m["malformed"]
    check(bad["total"] == 6 and bad["version"] == 1 and bad["short"] == 1 and
          bad["protocol_type"] == 1 and bad["header_length"] == 1 and bad["length_cut"] == 1 and
          bad["length_beyond"] == 1, f"malformed {bad}")
    # the sender table holds 256: the real sender and 255 forged ones; the rest not followed
    check(m["senders"] == 256 and m["untracked"] == forged - 255, f"senders {m}")
    q = ro["sequence"]
    check(q["untracked"] == forged - 255, f"messages not followed {q}")
    real = [e for e in q["senders"] if e["port"] == 30002]
    check(len(real) == 1 and real[0]["msgs"] == so["msgs_sent"] and real[0]["lost"] == 0,
          f"the real sender {real}")
    check(ro["msgs_received"] == so["msgs_sent"] + forged, "every message delivered")
    check("malformed (" in r.text(), "summary line of malformed datagrams")


def case_server_refused(work):
    """seqMCast has no server: a configuration error, as in the original."""
    run = Run(work)
    p = run.start("server", ["-appType", "server", "-connType", "seqMCast"], None)
    p.wait(20)
    check(p.rc == 2, f"exit status {p.rc}")
    check("Config Error: appType for Multicast connections must be client" in p.text(), "text")


def interop_rate(work, recv_bin, send_bin):
    run = Run(work)
    r, s = one_way(run, 14, 10, 20000, recv_bin=recv_bin, send_bin=send_bin)
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    no_seq_error(r)
    return r, s


def case_orig_to_ours(work):
    """The original sends 20,000 msgs/s for 10 s; ours receives every one, in sequence."""
    r, s = interop_rate(work, None, need_orig())
    sent = s.summary_count("Msgs Sent")
    ro = r.overall()
    check(sent >= 190000 and ro["msgs_received"] == sent,
          f"original sent {sent}, ours received {ro['msgs_received']}")
    check(ro["sequence"]["gaps"] == 0 and ro["multicast"]["lost"] == 0, "sequence")
    print(f"original sent {sent}, ours received {ro['msgs_received']}, gaps 0")


def case_ours_to_orig(work):
    """Ours sends 20,000 msgs/s for 10 s; the original receives every one, in sequence."""
    r, s = interop_rate(work, need_orig(), None)
    so = s.overall()
    got = r.summary_count("Msgs Received")
    check(so["msgs_sent"] >= 190000 and got == so["msgs_sent"],
          f"ours sent {so['msgs_sent']}, original received {got}")
    print(f"ours sent {so['msgs_sent']}, original received {got}, no sequence error")


def case_orig_to_ours_lossy(work):
    """The original sends; our receiver drops 1 % with its loss generator and counts."""
    orig = need_orig()
    run = Run(work)
    r, s = one_way(run, 9, 5, 20000, ["-seqGaps", "count", "-recvLoss", "1", "-recvLossSeed",
                                      "5"], send_bin=orig)
    check(r.rc == 0 and s.rc == 0, f"exit statuses {r.rc}/{s.rc}")
    sent = s.summary_count("Msgs Sent")
    lost, head, tail = check_loss_accounted(r.overall(), sent)
    check(lost > 0, "nothing lost")
    print(f"original sent {sent}, ours received {r.overall()['msgs_received']}, "
          f"lost {lost}, before the first {head}, after the last {tail}")


CASES = {
    "pair": case_pair,
    "pack": case_pack,
    "gap_fail": case_gap_fail,
    "gap_count": case_gap_count,
    "two_senders": case_two_senders,
    "bad_input": case_bad_input,
    "server_refused": case_server_refused,
    "orig_to_ours": case_orig_to_ours,
    "ours_to_orig": case_ours_to_orig,
    "orig_to_ours_lossy": case_orig_to_ours_lossy,
}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--inject":
        inject(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in CASES and sys.argv[1] != "--list":
        print(__doc__)
        return 2
    if sys.argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    case = sys.argv[1]
    work = tempfile.mkdtemp(prefix=f"tperf_mc_{case}_")
    run_ok = False
    try:
        signal.signal(signal.SIGTERM, on_signal)
        ns_create()
        CASES[case](work)
        run_ok = True
        print(f"PASS {case}")
        return 0
    except Skip as e:
        print(f"SKIP: {e}")
        run_ok = True
        return SKIP
    except Fail as e:
        print(f"FAIL {case}: {e}")
        for d in sorted(os.listdir(work)):
            out = os.path.join(work, d, "stdout")
            if os.path.exists(out):
                with open(out, errors="replace") as f:
                    print(f"--- {d}\n{f.read()[-4000:]}")
        return 1
    finally:
        ns_delete()
        if run_ok and not os.environ.get("TPERF_KEEP"):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
