#!/usr/bin/env bash
# Three ConsPerf processes on loopback against one ProvPerf (scripts/run-multi.sh), each with
# -latencyFile and -histogramLog: rwfperf-merge's combined update latency must be that of the
# union of the three latency files: the same count (the sum), the same max, and p50, p90, p99
# in the same histogram counter as the exact nearest-rank values (within 1/128).
set -uo pipefail
src=${RWFPERF_SOURCE_DIR:?RWFPERF_SOURCE_DIR is not set}
bin=${RWFPERF_BIN:?RWFPERF_BIN is not set}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/test_run_multi.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'exit 0\n' >"$work/noplot.sh"

# Stamps in nanoseconds on both sides, so that the latency files hold what the histograms hold.
BIN=$bin OUT=$work/run N=3 RATE=30000 LAT_RATE=1000 ITEMS="1000 2000 500" THREADS="1 2 1" \
    STEADY=4 PROV_ARGS=-nanoTime RWFPERF_PLOT=$work/noplot.sh \
    "$src/scripts/run-multi.sh" -- -latencyFile lat -nanoTime >"$work/run.txt" 2>&1
rc=$?
cat "$work/run.txt"
if [ "$rc" != 0 ]; then
    echo "FAIL: run-multi.sh exited $rc"
    for f in "$work"/run/cons*/ConsPerf.stdout "$work"/run/prov/ProvPerf.stdout; do
        echo "== $f"
        tail -n 20 "$f"
    done
    exit 1
fi

python3 - "$work/run" <<'PY'
import glob, json, math, sys
run = sys.argv[1]
lat = []
files = sorted(glob.glob(run + "/cons*/lat*.csv"))
for f in files:
    with open(f) as fh:
        next(fh)
        for line in fh:
            t, send, recv, v = [x.strip() for x in line.split(",")]
            if t == "Upd":
                lat.append(int(v))
lat.sort()
merged = json.load(open(run + "/merged.json"))["combined"]["latency_usec"]["update"]
n = len(lat)
print(f"latency files: {len(files)}, {n} update samples; merged count {merged['count']}")
bad = 0
if n == 0 or merged["count"] != n:
    print("FAIL: the merged count is not the sum of the latency files' samples")
    bad += 1
def rank(p):
    return lat[max(1, min(n, math.ceil(p / 100 * n * (1 - 1e-12)))) - 1]
for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100)):
    exact = rank(p)
    got = merged[name] * 1000
    ok = abs(got - exact) <= max(exact / 128, 1) if name != "max" else abs(got - exact) < 0.5
    print(f"{name}: union of the files {exact} ns, merged {got:.1f} ns{'' if ok else '  FAIL'}")
    bad += not ok
print(f"{4 + 1 - bad} passed, {bad} failed")
sys.exit(1 if bad else 0)
PY
