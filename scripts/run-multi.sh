#!/usr/bin/env bash
# One ProvPerf and N ConsPerf processes on this machine, every output collected into one
# folder and merged into one report (rwfperf-merge). Across hosts: the fleet playbook,
# scripts/ansible/fleet.yml (docs/fleet.md).
#
#   scripts/run-multi.sh                     3 consumers, 300,000 upd/s in all
#   N=5 RATE=500000 scripts/run-multi.sh     5 consumers, 500,000 upd/s in all
#   scripts/run-multi.sh -- -postingRate 100 extra ConsPerf options (every consumer)
#
# Environment:
#   N=3              consumer processes
#   RATE=300000      updates per second in all, shared evenly among the consumers' connections
#                    (ProvPerf's -updateRate is per connection)
#   LAT_RATE=1000    latency-stamped updates per second per connection (-latencyUpdateRate)
#   ITEMS=10000      items per consumer: one number, or one per consumer ("10000 20000 5000");
#                    consumer i requests its own items (RDT<first>..), not the others'
#   THREADS=1        connections (threads) per consumer: one number or one per consumer
#   STEADY=10        seconds of steady state (-steadyStateTime)
#   PROV_ARGS=       extra ProvPerf options (e.g. "-nanoTime" with ConsPerf's -nanoTime)
#   PORT=            ProvPerf's port (default: a free one)
#   BIN=             the tools' folder (default: this tree's build/bin, built first)
#   DATA=            the data files' folder (default: this tree's data/)
#   OUT=             where everything is collected (default build/run-multi/<UTC time>):
#                    prov/ and cons<i>/ with each process's files, merged.txt/.json/.png,
#                    and report.html, the page of the run (rwfperf-report), printed last
# Every process writes statistics every second and histogram logs (-histogramLog hist).
#
# Exit status: 0 when every consumer passed and the merge succeeded; otherwise the first
# failing consumer's status, or the merge's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
extra=()
if [ "${1:-}" = "--" ]; then
    shift
    extra=("$@")
elif [ $# -gt 0 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
fi

[ -z "${HOSTS:-}" ] || {
    echo "run-multi.sh: HOSTS: runs across hosts are the fleet playbook's now: ansible-playbook -i INVENTORY scripts/ansible/fleet.yml (docs/fleet.md)" >&2
    exit 2
}
n=${N:-3}
rate=${RATE:-300000}
lat_rate=${LAT_RATE:-1000}
read -r -a items <<<"${ITEMS:-10000}"
read -r -a threads <<<"${THREADS:-1}"
steady=${STEADY:-10}
data=${DATA:-$top/data}
out=${OUT:-$top/build/run-multi/$(date -u +%Y%m%d-%H%M%S)}

fail() {
    echo "run-multi.sh: $*" >&2
    exit 2
}
for v in "$n" "$rate" "$lat_rate" "$steady" "${items[@]}" "${threads[@]}"; do
    [[ "$v" =~ ^[0-9]+$ ]] || fail "\"$v\" is not a whole number"
done
[ ${#items[@]} = 1 ] || [ ${#items[@]} = "$n" ] || fail "ITEMS has ${#items[@]} numbers for $n consumers"
[ ${#threads[@]} = 1 ] || [ ${#threads[@]} = "$n" ] || fail "THREADS has ${#threads[@]} numbers for $n consumers"
item_of() { if [ ${#items[@]} = 1 ]; then echo "${items[0]}"; else echo "${items[$1]}"; fi; }
threads_of() { if [ ${#threads[@]} = 1 ]; then echo "${threads[0]}"; else echo "${threads[$1]}"; fi; }

if [ -z "${BIN:-}" ]; then
    "$top/scripts/setup.sh" >/dev/null
    "$top/scripts/build.sh" release >/dev/null
    BIN=$top/build/bin
fi
for t in ProvPerf ConsPerf rwfperf-merge rwfperf-report; do
    [ -x "$BIN/$t" ] || fail "$BIN/$t: not found (BIN names the tools' folder)"
done

# Connections in all, and the per-connection rate that makes RATE in all.
conns=0
for ((i = 0; i < n; i++)); do conns=$((conns + $(threads_of "$i"))); done
[ "$conns" -gt 0 ] || fail "no connection (THREADS is 0)"
per_conn=$((rate / conns))
[ "$lat_rate" -le "$per_conn" ] || lat_rate=$per_conn

mkdir -p "$out/prov"
out=$(cd "$out" && pwd)
echo "run-multi: 1 ProvPerf, $n ConsPerf ($conns connections, $per_conn upd/s each), results in $out"

# Data files for a process folder, and consumer i's item list (its own range of names).
copy_data() {
    cp "$data/RDMFieldDictionary" "$data/enumtype.def" "$data/MsgData.xml" "$1/"
}
item_list() { # item_list <first> <count>
    awk -v first="$1" -v n="$2" 'BEGIN {
        print "<itemList>"
        for (i = first; i < first + n; i++)
            printf "    <item domain=\"MarketPrice\" name=\"RDT%d\"%s/>\n", i,
                   i == first ? " post=\"true\" generic=\"true\"" : ""
        print "</itemList>"
    }'
}

# ProvPerf, on a free port unless PORT says which.
copy_data "$out/prov"
port=${PORT:-0}
prov_host=localhost
prov_run=$((steady * 3 + 120))
# The file exists before the provider starts, so that the wait below can read it at once (the
# background shell may not have opened it yet).
: >"$out/prov/ProvPerf.stdout"
(cd "$out/prov" && exec "$BIN/ProvPerf" -p "$port" -updateRate "$per_conn" \
    -latencyUpdateRate "$lat_rate" -runTime "$prov_run" -writeStatsInterval 1 -histogramLog hist \
    ${PROV_ARGS:-}) \
    >"$out/prov/ProvPerf.stdout" 2>&1 &
prov=$!
cleanup() { kill -INT "$prov" 2>/dev/null || true; }
trap cleanup EXIT
for ((w = 0; w < 100; w++)); do
    bound=$(sed -n 's/^Server .* bound to port \([0-9]*\)\..*/\1/p' "$out/prov/ProvPerf.stdout")
    [ -n "$bound" ] && break
    kill -0 "$prov" 2>/dev/null || break
    sleep 0.1
done
if [ -z "${bound:-}" ]; then
    cat "$out/prov/ProvPerf.stdout" >&2
    fail "ProvPerf did not start"
fi
echo "run-multi: ProvPerf pid $prov on port $bound"

# The consumers, all at once.
pids=() first=1
for ((i = 0; i < n; i++)); do
    dir="$out/cons$((i + 1))"
    mkdir -p "$dir"
    count=$(item_of "$i")
    item_list "$first" "$count" >"$dir/items.xml"
    first=$((first + count))
    thr=$(threads_of "$i")
    tlist=$(printf -- '-1,%.0s' $(seq "$thr"))
    args=(-h "$prov_host" -p "$bound" -itemCount "$count" -itemFile items.xml
        -threads "${tlist%,}" -steadyStateTime "$steady" -writeStatsInterval 1 -histogramLog hist
        "${extra[@]}")
    copy_data "$dir"
    (cd "$dir" && exec "$BIN/ConsPerf" "${args[@]}") >"$dir/ConsPerf.stdout" 2>&1 &
    echo "run-multi: consumer $((i + 1)) pid $!: $count items, $thr connection(s)"
    pids+=($!)
done

status=0
for ((i = 0; i < n; i++)); do
    rc=0
    wait "${pids[$i]}" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "run-multi: consumer $((i + 1)) exited with status $rc (see $out/cons$((i + 1))/ConsPerf.stdout)" >&2
        [ "$status" != 0 ] || status=$rc
    fi
done
cleanup
wait "$prov" 2>/dev/null || true
trap - EXIT

inputs=()
for f in "$out"/cons*/ConsSummary.json "$out"/cons*/hist*.hlog "$out"/prov/ProvSummary.json \
    "$out"/prov/hist*.hlog; do
    [ -f "$f" ] && inputs+=("$f")
done
[ ${#inputs[@]} -gt 0 ] || fail "no output to merge in $out"
rc=0
(cd "$out" && "$BIN/rwfperf-merge" -o merged "${inputs[@]#"$out/"}") || rc=$?
[ "$status" != 0 ] || status=$rc
echo "run-multi: report in $out/merged.txt, merged.json, merged.png"
rc=0
"$BIN/rwfperf-report" "$out" >/dev/null || rc=$?
[ "$status" != 0 ] || status=$rc
[ "$rc" != 0 ] || echo "report: $out/report.html"
exit "$status"
