#!/usr/bin/env bash
# The original ETA ConsPerf against our ProvPerf on loopback: default settings, packing, zlib,
# lz4, posting and generic messages. Each pairing must end with ConsPerf's exit status 0, every
# image received and the update count the rate and time give; posts reflected and generic
# messages counted where configured.
#
# Runs only when RWFPERF_ORIG_BIN names a folder holding the original ConsPerf; exits 77
# (skipped) otherwise. Ports are ephemeral (ProvPerf binds port 0 and prints it).
set -u
orig=${RWFPERF_ORIG_BIN:-}
if [ -z "$orig" ] || [ ! -x "$orig/ConsPerf" ]; then
    echo "SKIP: RWFPERF_ORIG_BIN does not name a folder with the original ConsPerf"
    exit 77
fi
src=${RWFPERF_SOURCE_DIR:?}
bin=${RWFPERF_BIN:?}
base=$(mktemp -d "${TMPDIR:-/tmp}/provperf-orig.XXXXXX")
prov=0
cleanup() {
    [ "$prov" != 0 ] && kill -KILL "$prov" 2>/dev/null
    return 0
}
trap cleanup EXIT
failures=0

fail() {
    echo "FAIL ($1): $2"
    failures=$((failures + 1))
}

# run NAME "PROVPERF ARGS" "CONSPERF ARGS" ITEMS STEADY_SECS
run() {
    local name=$1 pargs=$2 cargs=$3 items=$4 steady=$5
    local dir=$base/$name
    mkdir -p "$dir"
    cp "$src/data/RDMFieldDictionary" "$src/data/enumtype.def" "$src/data/MsgData.xml" "$dir/"
    sh "$src/data/gen_items.sh" 1000 > "$dir/350k.xml"
    cd "$dir" || return
    # shellcheck disable=SC2086
    "$bin/ProvPerf" -p 0 -runTime 60 $pargs > prov.out 2>&1 &
    prov=$!
    local port=""
    for _ in $(seq 100); do
        port=$(sed -n 's/.* bound to port \([0-9]*\)\..*/\1/p' prov.out)
        [ -n "$port" ] && break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        fail "$name" "ProvPerf did not start: $(cat prov.out)"
        return
    fi
    # shellcheck disable=SC2086
    timeout 60 "$orig/ConsPerf" -p "$port" -itemCount "$items" -steadyStateTime "$steady" \
        $cargs > cons.out 2>&1
    local crc=$?
    kill -INT "$prov"
    wait "$prov"
    local prc=$?
    prov=0
    [ $crc = 0 ] || fail "$name" "ConsPerf exit status $crc: $(tail -5 cons.out)"
    [ $prc = 0 ] || fail "$name" "ProvPerf exit status $prc"
    local sum=ConsSummary.out
    grep -q "  Refreshes received: $items\$" "$sum" || fail "$name" "not every image: $(grep Refreshes "$sum")"
    local updates
    updates=$(sed -n 's/^  Updates received: \([0-9]*\)$/\1/p' "$sum")
    echo "$name: $(grep -E 'Refreshes received|Updates received|Avg update rate|Posts reflected' "$sum" | tr -s ' ' | tr '\n' ';')"
    [ "${updates:-0}" -gt 0 ] || fail "$name" "no updates received"
    echo "$updates" > updates.txt
}

# The update rate over the steady state: ConsPerf's "Avg update rate" of its steady state must
# be the configured rate (ProvPerf's rate is per connection), within 2%.
check_rate() {
    local name=$1 want=$2
    local got
    got=$(sed -n '/^Steady State Statistics:/,/^$/s/^  Avg update rate: \([0-9]*\)$/\1/p' \
        "$base/$name/ConsSummary.out" | head -1)
    if [ -z "$got" ] || [ $((got * 100)) -lt $((want * 98)) ] || [ $((got * 100)) -gt $((want * 102)) ]; then
        fail "$name" "steady-state update rate ${got:-none}, wanted $want"
    fi
}

run default "-tickRate 1000 -updateRate 10000" "" 100 5
check_rate default 10000
run packed "-tickRate 1000 -updateRate 10000 -maxPackCount 10 -packBufSize 6000" "" 100 5
check_rate packed 10000
run zlib "-tickRate 1000 -updateRate 10000 -compressionType 1" "-compressionType 1" 100 5
check_rate zlib 10000
run lz4 "-tickRate 1000 -updateRate 10000 -compressionType 2" "-compressionType 2" 100 5
check_rate lz4 10000
run postgen "-tickRate 100 -updateRate 1000 -genericMsgRate 100 -genericMsgLatencyRate 10" \
    "-tickRate 100 -postingRate 100 -postingLatencyRate 10 -genericMsgRate 100 -genericMsgLatencyRate 10" 10 5
check_rate postgen 1100 # 1000 updates and 100 reflected posts a second
grep -q "Posts reflected: [1-9]" "$base/postgen/ConsSummary.out" 2>/dev/null ||
    grep -q "Posts reflected: [1-9]" "$base/postgen/ProvSummary.out" ||
    fail postgen "no posts reflected"
grep -q "  GenMsgs received: [1-9]" "$base/postgen/ProvSummary.out" || fail postgen "no generic messages received by ProvPerf"
grep -q "GenMsg latency avg (usec)" "$base/postgen/ConsSummary.out" || fail postgen "no generic-message latency at ConsPerf"
# The reactor modes: the original ConsPerf -reactor and -watchlist against ProvPerf -reactor
# (its worker bound by -workerThreads), and the watchlist against the bare ProvPerf.
run reactor "-tickRate 1000 -updateRate 10000 -reactor -workerThreads -1" "-reactor" 100 5
check_rate reactor 10000
run watchlist "-tickRate 1000 -updateRate 10000 -reactor" "-watchlist" 100 5
check_rate watchlist 10000
run watchlist_bare "-tickRate 1000 -updateRate 10000" "-watchlist" 100 5
check_rate watchlist_bare 10000
run watchlist_post "-tickRate 100 -updateRate 1000 -reactor" \
    "-tickRate 100 -postingRate 100 -postingLatencyRate 10 -watchlist" 10 5
check_rate watchlist_post 1100
grep -q "Posts reflected: [1-9]" "$base/watchlist_post/ProvSummary.out" ||
    fail watchlist_post "no posts reflected"
grep -q "Accepting new Reactor connection" "$base/reactor/prov.out" ||
    fail reactor "no \"Accepting new Reactor connection\" line"

if [ $failures = 0 ]; then
    rm -rf "$base"
    echo "all pairings passed"
    exit 0
fi
echo "$failures failure(s); outputs in $base"
exit 1
