#!/usr/bin/env bash
# The installed tree: `cmake --install` into a temporary prefix puts the four tools in bin/ and
# the data files in share/rwfperf/; the installed ProvPerf and ConsPerf, each started from an
# empty folder, find their input files there and run a short test against each other (exit
# status 0, every image received, nothing downloaded). -? says where input files are found.
# With gnuplot, the installed rwfperf-report and plot.sh draw that run with the installed chart
# definition (share/rwfperf/chart.gp).
set -u
build=${RWFPERF_BINARY_DIR:?}
base=$(mktemp -d "${TMPDIR:-/tmp}/rwfperf-install.XXXXXX")
prov=0
cleanup() {
    [ "$prov" != 0 ] && kill -KILL "$prov" 2>/dev/null
    rm -rf "$base"
    return 0
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for f in "$base"/p/prov.out "$base"/c/cons.out; do
        [ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }
    done
    exit 1
}

prefix=$base/prefix
cmake --install "$build" --prefix "$prefix" > "$base/install.log" 2>&1 ||
    { cat "$base/install.log"; fail "cmake --install"; }
for t in ConsPerf ProvPerf NIProvPerf TransportPerf rwfperf-merge rwfperf-report; do
    [ -x "$prefix/bin/$t" ] || fail "bin/$t not installed"
done
for f in RDMFieldDictionary enumtype.def MsgData.xml 350k.xml gen_items.sh plot.sh chart.gp; do
    [ -f "$prefix/share/rwfperf/$f" ] || fail "share/rwfperf/$f not installed"
done
"$prefix/bin/ConsPerf" -? | grep -qx "  $(realpath "$prefix")/share/rwfperf" ||
    fail "ConsPerf -? does not name the data folder"

mkdir -p "$base/p" "$base/c"
cd "$base/p" || fail "cd"
"$prefix/bin/ProvPerf" -p 0 -runTime 30 > prov.out 2>&1 &
prov=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/^Server [0-9]* bound to port \([0-9]*\)\..*/\1/p' prov.out)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "ProvPerf did not bind"
cd "$base/c" || fail "cd"
"$prefix/bin/ConsPerf" -p "$port" -itemCount 1000 -steadyStateTime 2 -writeStatsInterval 1 \
    -histogramLog hist > cons.out 2>&1
status=$?
[ "$status" = 0 ] || fail "ConsPerf exited with $status"
grep -q "Unable to load" cons.out && fail "ConsPerf did not find the installed dictionary"
grep -q "^  Refreshes received: 1000$" ConsSummary.out || fail "not every image received"
kill -INT "$prov"
wait "$prov"
pstatus=$?
prov=0
[ "$pstatus" = 0 ] || fail "ProvPerf exited with $pstatus"
echo "installed tools ran from empty folders"

# The installed report and plot script draw with the installed chart definition.
if command -v gnuplot >/dev/null 2>&1; then
    "$prefix/bin/rwfperf-report" "$base/c" > "$base/report.log" 2>&1 ||
        { cat "$base/report.log"; fail "the installed rwfperf-report"; }
    grep -q "<svg" "$base/c/report.html" || fail "the installed rwfperf-report drew no chart"
    "$prefix/share/rwfperf/plot.sh" -o "$base/plots" "$base/c/ConsStats1.csv" > "$base/plot.log" 2>&1 ||
        { cat "$base/plot.log"; fail "the installed plot.sh"; }
    echo "installed rwfperf-report and plot.sh drew their charts"
fi
