#!/usr/bin/env bash
# Our histogram logs against an independent HdrHistogram implementation, the hdr-histogram-js
# package from the npm registry (a test dependency only: installed here with npm into
# <build>/npm-hdr; the test is skipped, saying why, when node, npm or the registry is missing):
#   1. a log written by the package's own writer (3 significant digits, another layout than
#      ours) is merged by rwfperf-merge: count, min, max, p50, p99 agree with the package's;
#   2. logs written by our writer (generated) are read by the package: count, min, max, p50,
#      p99 agree with rwfperf-merge's report of them;
#   3. the tools' own logs (-histogramLog: ConsPerf against ProvPerf, TransportPerf one way and
#      round trip) read by the package give the count, min, max, p50 and p99 of the tool's
#      JSON summary (within the histogram's precision: the same counter).
set -uo pipefail
src=${RWFPERF_SOURCE_DIR:?RWFPERF_SOURCE_DIR is not set}
bin=${RWFPERF_BIN:?RWFPERF_BIN is not set}
build=${RWFPERF_BINARY_DIR:?RWFPERF_BINARY_DIR is not set}
check="$src/tests/tools/hdr_js_check.js"
skip() {
    echo "SKIP: $*"
    exit 77
}
command -v node >/dev/null 2>&1 || skip "node is not installed (scripts/setup.sh installs nodejs and npm)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (scripts/setup.sh installs it)"

npm_dir=$build/npm-hdr
if [ ! -f "$npm_dir/node_modules/hdr-histogram-js/package.json" ]; then
    mkdir -p "$npm_dir"
    if ! timeout 300 npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
        hdr-histogram-js@3.0.1 >"$npm_dir/install.log" 2>&1; then
        skip "npm could not install hdr-histogram-js (registry unreachable?): $(tail -n 3 "$npm_dir/install.log" | tr '\n' ' ')"
    fi
fi
export NODE_PATH=$npm_dir/node_modules
work=$(mktemp -d "${TMPDIR:-/tmp}/test_hdr_js.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# The image is not what this test checks: the merge's plot script does nothing here.
printf 'exit 0\n' >noplot.sh
export RWFPERF_PLOT=$work/noplot.sh
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}
# run <what> <command...>: runs it, showing its output; counts a pass or a failure.
run() {
    local what=$1
    shift
    if "$@" >out.txt 2>&1; then
        ok
    else
        bad "$what: exit $?"
    fi
    sed "s/^/  /" out.txt
}

# 1. The package writes, rwfperf-merge reads.
run "hdr-histogram-js writes a log" node "$check" write js.hlog
run "rwfperf-merge reads the package's log" "$bin/rwfperf-merge" -o js js.hlog
run "the package's figures equal rwfperf-merge's" \
    node "$check" compare js.hlog js.json update=combined.latency_usec.update

# 2. We write (two processes' logs of a minute), the package reads.
run "our logs written" "$bin/bench/bench_merge_gen" ours 2 60 5 2000
for i in 1 2; do
    run "rwfperf-merge reads log $i" "$bin/rwfperf-merge" -o ours$i ours/hist$i.hlog
    run "the package reads log $i as rwfperf-merge does" node "$check" compare ours/hist$i.hlog \
        ours$i.json update=combined.latency_usec.update sched-update=combined.latency_usec.sched-update
done

# 3. The tools write, the package reads, the JSON summary says the same.
data=$src/data
cp "$data/RDMFieldDictionary" "$data/enumtype.def" "$data/MsgData.xml" .
"$data/gen_items.sh" 2000 >350k.xml
# start_server <name> <port pattern> <command...>: runs it in the background, sets $port.
start_server() {
    local name=$1 pattern=$2
    shift 2
    "$@" >"$name.out" 2>&1 &
    server_pid=$!
    port=
    for _ in $(seq 100); do
        port=$(sed -n "s/$pattern/\1/p" "$name.out")
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    bad "$name did not start: $(cat "$name.out")"
    return 1
}
stop_server() {
    kill -INT "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
}

if start_server prov '^Server .* bound to port \([0-9]*\)\..*' "$bin/ProvPerf" -p 0 \
    -updateRate 20000 -latencyUpdateRate 1000 -runTime 60; then
    run "ConsPerf -histogramLog" "$bin/ConsPerf" -p "$port" -itemCount 2000 \
        -steadyStateTime 3 -histogramLog hist
    stop_server
    run "ConsPerf's log against its summary" node "$check" compare hist1.hlog ConsSummary.json \
        update=results.overall.latency sched-update=results.overall.sched_latency
fi

for mode in oneway rtt; do
    mkdir -p "tp_$mode" && cd "tp_$mode" || exit 1
    if [ $mode = oneway ]; then
        sargs=(-msgRate 20000 -latencyMsgRate 1000) cargs=(-msgRate 0 -latencyMsgRate 0)
    else
        sargs=(-reflectMsgs) cargs=(-msgRate 20000 -latencyMsgRate 1000)
    fi
    if start_server server '^Server .* bound on port \([0-9]*\).*' "$bin/TransportPerf" \
        -appType server -p 0 -runTime 30 -tickRate 1000 "${sargs[@]}"; then
        run "TransportPerf $mode -histogramLog" "$bin/TransportPerf" -appType client -p "$port" \
            -runTime 3 -tickRate 1000 "${cargs[@]}" -histogramLog th
        stop_server
        log=$(ls th1_*.hlog 2>/dev/null | head -n 1)
        summary=$(ls TransportSummary_*.json 2>/dev/null | grep -v "_$server_pid.json" | head -n 1)
        run "TransportPerf's $mode log against its summary" node "$check" compare "$log" \
            "$summary" "$mode=results.overall.latency" "sched-$mode=results.overall.sched_latency"
    fi
    cd .. || exit 1
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
