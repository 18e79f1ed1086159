"""Writes this host's clock synchronisation as rwfperf-merge reads it (a host clock file).

    python3 host_clock.py OUT.json [CHRONYC [PMC]]

{"host_clock": {"host": <this host's name, as the tools write it>, "sync": "chrony" | "ptp4l" |
"unknown", "synchronised": bool, "offset_ns": <the host's offset from its reference, when
known>, "detail": <what the host said>}}

chrony: `chronyc -n tracking`: synchronised when its leap status is not "Not synchronised";
the offset is its "System time" (fast: ahead, positive). ptp4l (when a ptp4l process runs):
`pmc -u -b 0 'GET TIME_STATUS_NP'`: synchronised when a grandmaster is present; the offset is
its master_offset. Otherwise "unknown". Always exits 0 once OUT is written.
"""
import json
import os
import re
import socket
import subprocess
import sys


def run(argv):
    """The output of argv, or None when it cannot run or fails."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def chrony(chronyc):
    out = run([chronyc, "-n", "tracking"])
    if not out:
        return None
    leap = re.search(r"^Leap status\s*:\s*(.+)$", out, re.M)
    leap = leap.group(1).strip() if leap else "unknown"
    st = re.search(r"^System time\s*:\s*([0-9.]+) seconds (fast|slow)", out, re.M)
    ref = re.search(r"^Reference ID\s*:\s*(.+)$", out, re.M)
    r = {"sync": "chrony", "synchronised": leap != "Not synchronised" and leap != "unknown",
         "detail": "leap status " + leap + (", reference " + ref.group(1).strip() if ref else "")}
    if st:
        ns = float(st.group(1)) * 1e9
        r["offset_ns"] = round(ns if st.group(2) == "fast" else -ns, 1)
    return r


def ptp(pmc):
    if run(["pgrep", "-x", "ptp4l"]) is None:
        return None
    out = run([pmc, "-u", "-b", "0", "GET TIME_STATUS_NP"])
    if not out:
        return {"sync": "unknown", "synchronised": False,
                "detail": "ptp4l runs, but " + pmc + " did not answer"}
    off = re.search(r"master_offset\s+(-?[0-9]+)", out)
    gm = re.search(r"gmPresent\s+(true|false)", out)
    r = {"sync": "ptp4l", "synchronised": bool(gm and gm.group(1) == "true"),
         "detail": "grandmaster " + ("present" if gm and gm.group(1) == "true" else "absent")}
    if off:
        r["offset_ns"] = int(off.group(1))
    return r


def main():
    out = sys.argv[1]
    chronyc = sys.argv[2] if len(sys.argv) > 2 else "chronyc"
    pmc = sys.argv[3] if len(sys.argv) > 3 else "pmc"
    r = chrony(chronyc) or ptp(pmc) or {
        "sync": "unknown", "synchronised": False,
        "detail": "neither chrony nor ptp4l answered"}
    r = {"host": socket.gethostname(), **r}
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"host_clock": r}, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
