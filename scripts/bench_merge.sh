#!/usr/bin/env bash
# Times rwfperf-merge on generated histogram logs: LOGS logs of SECS seconds each (one process
# each, "update" and "sched-update" series, one interval every INTERVAL seconds holding
# INTERVAL * RATE samples), then checks the merged sample count and percentiles against the
# exact union the generator reports.
#
#   scripts/bench_merge.sh                  100 logs of one hour, 5 s intervals, 1000 samples/s
#   LOGS=10 SECS=600 scripts/bench_merge.sh
#
# Environment: LOGS (100), SECS (3600), INTERVAL (5), RATE (1000 samples/s per log),
# OUT (build/bench_merge; the logs are kept there and reused when they match).
# Prints the generator's line, then the merge's wall-clock and CPU time without and with the
# image (gnuplot), and the merged figures against the union's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logs=${LOGS:-100}
secs=${SECS:-3600}
interval=${INTERVAL:-5}
rate=${RATE:-1000}
out=${OUT:-$top/build/bench_merge}

"$top/scripts/build.sh" release >/dev/null
bin=$top/build/bin
key="$logs $secs $interval $rate"
if [ "$(cat "$out/params" 2>/dev/null)" != "$key" ]; then
    rm -rf "$out"
    mkdir -p "$out"
    echo "generating $logs logs of $secs s ..."
    "$bin/bench/bench_merge_gen" "$out/logs" "$logs" "$secs" "$interval" "$rate" >"$out/gen.txt"
    echo "$key" >"$out/params"
fi
cat "$out/gen.txt"
cat "$out"/logs/*.hlog >/dev/null # in the page cache, as the second of two runs would be

noplot=$out/noplot.sh
printf '#!/bin/sh\nexit 0\n' >"$noplot"
chmod +x "$noplot"
cd "$out"
TIMEFORMAT='%R s wall, %U s user, %S s system'
echo "merge without the image:"
time (RWFPERF_PLOT=$noplot "$bin/rwfperf-merge" -o merged logs/*.hlog >merged.stdout)
echo "merge with the image:"
time ("$bin/rwfperf-merge" -o merged logs/*.hlog >merged.stdout)

union=$(sed -n 's/^union: //p' gen.txt)
echo "union of the samples (ns): $union"
grep -E '^  Latency (samples|p50|p99|max)[ :]' merged.stdout | sed 's/^ */merged: /'
read -r _ count _ p50 _ p99 _ max <<<"$union"
awk -v c="$count" -v p50="$p50" -v p99="$p99" -v max="$max" '
    /^  Latency samples:/ { if ($3 != c) bad = bad " count" }
    /^  Latency p50 \(usec\):/ { if ($4 != sprintf("%.1f", p50 / 1000)) bad = bad " p50" }
    /^  Latency p99 \(usec\):/ { if ($4 != sprintf("%.1f", p99 / 1000)) bad = bad " p99" }
    /^  Latency max \(usec\):/ { if ($4 != sprintf("%.1f", max / 1000)) bad = bad " max" }
    END { if (bad != "") { print "MISMATCH:" bad; exit 1 } print "merged figures equal the union'"'"'s" }
' merged.stdout
