#!/usr/bin/env bash
# The main job: ProvPerf and ConsPerf against each other on loopback for a short run, then a
# one-line verdict:
#   PASS: 10000 images in 0.02 s, 100,001 upd/s, latency p50 27 us p99 91 us
#   FAIL: <why>
#
#   scripts/run.sh                     10,000 items, 100,000 updates/s, 10 s steady state
#   scripts/run.sh -- <ConsPerf args>  extra ConsPerf options (e.g. -- -postingRate 1000)
#
# It installs what building and running need when missing (scripts/setup.sh run: one line,
# apt's output in a log), builds the two tools, rwfperf-report and the data folder when they are
# missing or out of date (the build's output in a log), and runs them in RUN_DIR, where their
# files stay: ConsPerf.stdout, ConsSummary.out, ConsSummary.json, ConsStats1.csv, cons*.hlog and
# the same of ProvPerf, and the run's page (rwfperf-report) in report.html, its path printed.
# The input files come from the build's data folder (build/share/rwfperf, the item list made
# once at build time). ProvPerf stamps 1,000 updates a second (-latencyUpdateRate 1000), so
# that the steady state's p99 rests on thousands of samples.
#
# Environment: PORT (default 0: a free port), ITEMS (10000), UPDATE_RATE (100000), STEADY (10
# seconds), RUN_DIR (build/run), VERBOSE=1 (also print both summaries, before the verdict),
# BIN (a folder holding ConsPerf, ProvPerf and rwfperf-report to run instead: nothing is
# installed or built).
# Exit status: ConsPerf's (0 passed, 1 failed, 2 invalid input); 1 when ProvPerf did not start.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
port=${PORT:-0}
items=${ITEMS:-10000}
rate=${UPDATE_RATE:-100000}
steady=${STEADY:-10}
run_dir=${RUN_DIR:-$top/build/run}
extra=()
if [ "${1:-}" = "--" ]; then shift; extra=("$@"); fi
bin=${BIN:-$top/build/bin}

if [ -z "${BIN:-}" ]; then
    "$top/scripts/setup.sh" run

    # Builds the two tools (and the data folder); the test suite too when the build folder was
    # configured for it, else only where CMocka is there to build it.
    mkdir -p "$top/build"
    build_log=$top/build/run-build.log
    tests=ON
    if ! grep -qs "^RWFPERF_TESTS:BOOL=ON" "$top/build/CMakeCache.txt" &&
        ! pkg-config --exists cmocka 2>/dev/null; then
        tests=OFF
    fi
    [ -x "$bin/ConsPerf" ] && [ -x "$bin/ProvPerf" ] ||
        echo "build: ConsPerf, ProvPerf and rwfperf-report (log: $build_log)"
    if ! RWFPERF_TESTS=$tests "$top/scripts/build.sh" release ConsPerf ProvPerf rwfperf-report \
        rwfperf_data \
        > "$build_log" 2>&1; then
        tail -30 "$build_log"
        echo "FAIL: the build failed (log: $build_log)"
        exit 1
    fi
fi

mkdir -p "$run_dir"
cd "$run_dir"
rm -f ProvSummary.out ProvSummary.json ConsSummary.out ConsSummary.json ProvStats*.csv \
    ConsStats*.csv ProvPerf.stdout ConsPerf.stdout ./*.hlog report.html report.log

# Thousands separated by commas: 100001 -> 100,001.
commas() {
    echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[,.]\)/\1,\2\3/' -e 'ta'
}
# The value after "<label>: " in a section of a summary file (first match after the heading).
summary_value() { # file heading label
    sed -n "/^$2/,/^\$/s/^ *$3: \([0-9.]*\).*/\1/p" "$1" | head -1
}

run_time=$((steady + 30))
"$bin/ProvPerf" -p "$port" -updateRate "$rate" -latencyUpdateRate 1000 -runTime "$run_time" \
    -writeStatsInterval 1 -histogramLog prov \
    > ProvPerf.stdout 2>&1 &
prov=$!
trap 'kill "$prov" 2>/dev/null || true' EXIT
bound=""
for _ in $(seq 1 100); do
    bound=$(sed -n 's/^Server [0-9]* bound to port \([0-9]*\)\..*/\1/p' ProvPerf.stdout | head -1)
    [ -n "$bound" ] && break
    kill -0 "$prov" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$bound" ]; then
    why=$(grep -v '^ *$' ProvPerf.stdout | tail -1)
    echo "FAIL: ProvPerf did not start: ${why:-no output} ($run_dir/ProvPerf.stdout)"
    exit 1
fi
echo "run: ProvPerf -> ConsPerf on localhost:$bound, $(commas "$items") items," \
    "$(commas "$rate") upd/s, ${steady} s of steady state (files in $run_dir)"

set +e
"$bin/ConsPerf" -p "$bound" -itemCount "$items" -steadyStateTime "$steady" \
    -writeStatsInterval 1 -histogramLog cons "${extra[@]}" \
    > ConsPerf.stdout 2>&1
status=$?
set -e
kill -INT "$prov" 2>/dev/null || true
wait "$prov" 2>/dev/null || true
trap - EXIT

if [ "${VERBOSE:-0}" = 1 ]; then
    echo "=== ConsPerf summary ($run_dir/ConsSummary.out) ==="
    sed -n '/OVERALL SUMMARY/,$p' ConsSummary.out 2>/dev/null || tail -40 ConsPerf.stdout
    echo "=== ProvPerf summary ($run_dir/ProvSummary.out) ==="
    sed -n '/OVERALL SUMMARY/,$p' ProvSummary.out 2>/dev/null || tail -20 ProvPerf.stdout
fi

if [ "$status" = 0 ] && [ -f ConsSummary.out ]; then
    images=$(summary_value ConsSummary.out "Test Statistics:" "Refreshes received")
    secs=$(summary_value ConsSummary.out "Test Statistics:" "Image retrieval time (sec)")
    upd=$(summary_value ConsSummary.out "Steady State Statistics:" "Avg update rate")
    p50=$(summary_value ConsSummary.out "Steady State Statistics:" "Latency p50 (usec)")
    p99=$(summary_value ConsSummary.out "Steady State Statistics:" "Latency p99 (usec)")
    line="PASS: $images images in $(printf '%.2f' "${secs:-0}") s, $(commas "${upd:-0}") upd/s"
    if [ -n "$p50" ] && [ -n "$p99" ]; then
        line="$line, latency p50 $(printf '%.0f' "$p50") us p99 $(printf '%.0f' "$p99") us"
    else
        line="$line, no latency samples"
    fi
else
    # The reason: the summary's error, else ConsPerf's last error line, else its status.
    why=$(sed -n '/^ERROR: TEST FAILED/{n;s/^ *//p;q}' ConsSummary.out 2>/dev/null || true)
    [ -n "$why" ] || why=$(grep -E '^(Error|Config Error|Config error)' ConsPerf.stdout | tail -1 || true)
    [ -n "$why" ] || why="ConsPerf exited with status $status"
    line="FAIL: $why ($run_dir/ConsPerf.stdout)"
fi
# The run's page, then the verdict as the last line.
if [ -x "$bin/rwfperf-report" ] && "$bin/rwfperf-report" "$run_dir" > report.log 2>&1; then
    echo "report: $run_dir/report.html"
elif [ -f report.html ]; then
    echo "report: $run_dir/report.html (without charts: $(tail -1 report.log))"
fi
echo "$line"
exit "$status"
