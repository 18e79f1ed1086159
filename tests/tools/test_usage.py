#!/usr/bin/env python3
"""The usage text (-?) and -version of the four tools.

-? of each tool: no line wider than 100 columns; every option listed once, under a section;
each default stated once (no "default" twice on an entry); no option named that the tool does
not have (the input-files paragraph names -itemFile and -msgFile only where they exist); the
sections where the options belong (the WebSocket, TLS and Reactor options each under their
own heading). -version: the version, the git revision, the build, and the versions of OpenSSL,
libxml2, zlib, lz4 in use; status 0 for both.
"""
import os
import re
import subprocess
import sys

BIN = os.environ["RWFPERF_BIN"]
TOOLS = ["ConsPerf", "ProvPerf", "NIProvPerf", "TransportPerf"]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


def run(tool, *args):
    p = subprocess.run([os.path.join(BIN, tool), *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def entries(text):
    """The usage's options: {name: (section, text of the entry)} and the list of names in
    order, with the refused ones apart."""
    section, cur, out, order, refused = None, None, {}, [], set()
    in_refused = False
    for line in text.splitlines():
        if not line.strip():
            cur = None
            continue
        if not line.startswith(" "):
            section = line.rstrip(":")
            in_refused = line.startswith("Recognised but not available")
            cur = None
            continue
        m = re.match(r"^  (-[^\s,]+)((?:, -[^\s,:]+)*)", line)
        if in_refused and m:
            for name in re.findall(r"-[\w.?]+", line.split(":")[0]):
                refused.add(name)
            continue
        if m and not line.startswith("    "):
            cur = m.group(1)
            order.append(cur)
            out.setdefault(cur, [section, ""])
            out[cur][1] += line
            for alias in re.findall(r"-[\w.]+", m.group(2)):
                out.setdefault(alias, [section, ""])
            continue
        if cur and line.startswith("    "):
            out[cur][1] += " " + line.strip()
    return out, order, refused


for tool in TOOLS:
    rc, text, err = run(tool, "-?")
    check(rc == 0, f"{tool} -?: status 0")
    wide = [l for l in text.splitlines() if len(l) > 100]
    check(not wide, f"{tool} -?: every line within 100 columns"
          + (f" ({len(wide)} wider: {wide[0][:60]}...)" if wide else ""))
    opts, order, refused = entries(text)
    check(len(order) == len(set(order)), f"{tool} -?: every option once")
    twice = [n for n, (_, t) in opts.items() if len(re.findall(r"default", t)) > 1]
    check(not twice, f"{tool} -?: each default stated once" + (f" (not: {twice})" if twice else ""))
    known = set(opts) | refused
    # (another tool's option may be named as such: ConsPerf's "the provider's -latencyUpdateRate")
    own = re.sub(r"provider's -\w+", "", text.split("\n", 1)[1])
    named = set(re.findall(r"(?<![\w<-])-[a-zA-Z][\w.]*[a-zA-Z0-9]", own))
    foreign = sorted(named - known)
    check(not foreign, f"{tool} -?: names only its own options"
          + (f" (also: {foreign})" if foreign else ""))
    # Where options belong.
    for name, (sec, _) in opts.items():
        if name == "-pl":
            check(sec.startswith("WebSocket"), f"{tool} -pl under WebSocket (is: {sec})")
        if name in ("-castore", "-keyfile", "-cert", "-cipher", "-encryptedConnType",
                    "-spTLSv1.2"):
            check(sec.startswith("Encrypted connections"),
                  f"{tool} {name} under Encrypted connections (is: {sec})")
        if name in ("-reactor", "-watchlist", "-workerThreads", "-maxEventsInPool"):
            check(sec == "Reactor", f"{tool} {name} under Reactor (is: {sec})")
        if name in ("-summaryFile", "-statsFile", "-latencyFile", "-writeStatsInterval"):
            check(sec == "Files and output", f"{tool} {name} under Files and output (is: {sec})")
    has_items, has_msgs = "-itemFile" in opts, "-msgFile" in opts
    para = re.search(r"Input files \(([^)]*)\)", text)
    if has_msgs or has_items:
        check(para is not None, f"{tool} -?: says where input files are found")
        if para:
            check(("-itemFile" in para.group(1)) == has_items
                  and ("-msgFile" in para.group(1)) == has_msgs,
                  f"{tool} -?: the input-files paragraph names its own file options")
    check("-version" in opts, f"{tool} -?: lists -version")
    check(("provider's -latencyUpdateRate" in text) == (tool == "ConsPerf"),
          f"{tool} -?: where update latency comes from (ConsPerf: the provider's option)")
    check("-noProgress" in opts and opts["-noProgress"][0].startswith("Ours"),
          f"{tool} -?: -noProgress among our own options")

    rc, text, err = run(tool, "-version")
    lines = text.splitlines()
    check(rc == 0 and lines and re.match(rf"^{tool} \d+\.\d+\.\d+ \S+$", lines[0]),
          f"{tool} -version: name, version and git revision ({lines[0] if lines else ''})")
    for what in (r"build: \S+", r"OpenSSL \d", r"libxml2 \d", r"zlib \d", r"lz4 \d"):
        check(any(re.search(what, l) for l in lines), f"{tool} -version: {what.split(' ')[0]}")

if failures:
    print(f"{len(failures)} check(s) FAILED")
    sys.exit(1)
print("all checks passed")
