#!/usr/bin/env bash
# The main job: ProvPerf and ConsPerf against each other on loopback for a short run, then
# the consumer's summary is printed.
#
#   scripts/run.sh                    10,000 items, 100,000 updates/s, 10 s steady state
#   scripts/run.sh -- <ConsPerf args>  extra ConsPerf options (e.g. -- -postingRate 1000)
#
# Environment: PORT (default 14002), ITEMS (10000), UPDATE_RATE (100000), STEADY (10 seconds),
# RUN_DIR (build/run). Exit status: ConsPerf's (0 passed, 1 failed, 2 invalid input).
# Both tools write statistics every second and histogram logs, for the run's page
# (rwfperf-report), written last to RUN_DIR/report.html, its path printed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
port=${PORT:-14002}
items=${ITEMS:-10000}
rate=${UPDATE_RATE:-100000}
steady=${STEADY:-10}
run_dir=${RUN_DIR:-$top/build/run}
extra=()
if [ "${1:-}" = "--" ]; then shift; extra=("$@"); fi

"$top/scripts/setup.sh"
"$top/scripts/build.sh" release >/dev/null
bin="$top/build/bin"

# The tools read their input files from the working folder, as the originals do.
mkdir -p "$run_dir"
cp "$top/data/RDMFieldDictionary" "$top/data/enumtype.def" "$top/data/MsgData.xml" "$run_dir/"
"$top/data/gen_items.sh" 350000 > "$run_dir/350k.xml"
cd "$run_dir"
rm -f ProvSummary.out ConsSummary.out ProvStats*.csv ConsStats*.csv ./*.json ./*.hlog report.html

run_time=$((steady + 20))
"$bin/ProvPerf" -p "$port" -updateRate "$rate" -runTime "$run_time" \
    -writeStatsInterval 1 -histogramLog prov \
    > ProvPerf.stdout 2>&1 &
prov=$!
trap 'kill "$prov" 2>/dev/null || true' EXIT

set +e
"$bin/ConsPerf" -p "$port" -itemCount "$items" -steadyStateTime "$steady" \
    -writeStatsInterval 1 -histogramLog cons "${extra[@]}" \
    > ConsPerf.stdout 2>&1
status=$?
set -e
kill -INT "$prov" 2>/dev/null || true
wait "$prov" 2>/dev/null || true
trap - EXIT

echo "=== ConsPerf summary ($run_dir/ConsSummary.out) ==="
sed -n '/OVERALL SUMMARY/,$p' ConsSummary.out 2>/dev/null || tail -40 ConsPerf.stdout
echo "=== ProvPerf summary ($run_dir/ProvSummary.out) ==="
sed -n '/OVERALL SUMMARY/,$p' ProvSummary.out 2>/dev/null || tail -20 ProvPerf.stdout
echo "ConsPerf exit status: $status (console output in $run_dir/ConsPerf.stdout)"
"$bin/rwfperf-report" "$run_dir" >/dev/null && echo "report: $run_dir/report.html"
exit "$status"
