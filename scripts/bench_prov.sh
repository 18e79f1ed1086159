#!/usr/bin/env bash
# Sweeps ProvPerf's update rate with 10,000 items, unpacked and packed, against one consumer,
# and prints per rate: the updates per second the consumer received in its steady state, the
# provider's CPU (% of one core, averaged over its statistics rows while it published) and its
# memory, and the consumer's own figures.
#
#   scripts/bench_prov.sh [drain|consperf|orig]
#
# Consumers: drain    - tests/bench/bench_prov_drain: reads and counts, decodes nothing
#            consperf - our ConsPerf (every field decoded; latency percentiles reported)
#            orig     - the original ETA ConsPerf in $RWFPERF_ORIG_BIN
# Environment: RATES ("100000 1000000 2000000 3000000 3400000"), PACKS ("1 10"; 10 = packing
#   of up to 10 messages in 6000-byte buffers), ITEMS (10000), SECS (10, the measured steady
#   state), PROV (the provider executable, default our ProvPerf; the original's works too),
#   REPS (1; with more, each point is run that many times and the best received rate kept).
# Everything runs on 127.0.0.1 with ports picked at run time; each run in its own folder under
# a temporary directory that is removed at the end (KEEP=1 keeps it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
consumer=${1:-drain}
rates=${RATES:-"100000 1000000 2000000 3000000 3400000"}
packs=${PACKS:-"1 10"}
items=${ITEMS:-10000}
secs=${SECS:-10}
reps=${REPS:-1}
bin=$top/build/bin
prov_bin=${PROV:-$bin/ProvPerf}
drain=$bin/bench/bench_prov_drain
case "$consumer" in
drain | consperf) ;;
orig)
    [ -x "${RWFPERF_ORIG_BIN:-}/ConsPerf" ] || {
        echo "orig needs RWFPERF_ORIG_BIN with the original ConsPerf" >&2
        exit 2
    }
    ;;
*)
    echo "usage: $0 [drain|consperf|orig]" >&2
    exit 2
    ;;
esac
[ -x "$prov_bin" ] && [ -x "$drain" ] || "$top/scripts/build.sh" release >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_prov.XXXXXX")
prov_pid=0
cleanup() {
    [ "$prov_pid" != 0 ] && kill -KILL "$prov_pid" 2>/dev/null
    [ "${KEEP:-0}" = 1 ] && echo "runs kept in $work" || rm -rf "$work"
}
trap cleanup EXIT

# avg_cpu_mem STATS_CSV MIN_UPDATES: "cpu mem" - the average CPU of the rows that sent at least
# MIN_UPDATES updates, and the largest memory figure.
avg_cpu_mem() {
    awk -F', *' -v min="$2" 'NR > 1 && $4 >= min { c += $14; n++ } NR > 1 && $15 > m { m = $15 }
        END { if (n) printf "%.1f %.1f", c / n, m; else printf "- %.1f", m }' "$1"
}

# run RATE PACK: one measurement; prints "received provcpu provmem consumer-figures"
run() {
    local rate=$1 pack=$2
    local dir=$work/r${rate}_p${pack}_$RANDOM
    mkdir -p "$dir"
    cp "$top/data/RDMFieldDictionary" "$top/data/enumtype.def" "$top/data/MsgData.xml" "$dir/"
    sh "$top/data/gen_items.sh" "$items" >"$dir/350k.xml"
    cd "$dir"
    local port
    port=$("$drain" --free-port)
    local packargs=""
    [ "$pack" -gt 1 ] && packargs="-maxPackCount $pack -packBufSize 6000"
    # shellcheck disable=SC2086
    stdbuf -oL "$prov_bin" -p "$port" -updateRate "$rate" -tickRate 1000 -runTime $((secs + 60)) \
        -writeStatsInterval 1 -noDisplayStats -statsFile pstats $packargs >prov.out 2>&1 &
    prov_pid=$!
    for _ in $(seq 100); do
        grep -q "bound to port" prov.out && break
        sleep 0.1
    done
    local got cons=""
    case "$consumer" in
    drain)
        "$drain" "$port" "$items" "$secs" >cons.out 2>&1 || true
        got=$(sed -n 's/.*updates\/s avg \([0-9]*\).* cpu \([0-9.]*\)%.*/\1/p' cons.out)
        cons="drain cpu $(sed -n 's/.* cpu \([0-9.]*\)%.*/\1/p' cons.out)%"
        ;;
    consperf | orig)
        local cbin=$bin/ConsPerf
        [ "$consumer" = orig ] && cbin=$RWFPERF_ORIG_BIN/ConsPerf
        timeout $((secs + 120)) "$cbin" -p "$port" -itemCount "$items" -steadyStateTime "$secs" \
            >cons.out 2>&1 || true
        got=$(sed -n '/^Steady State Statistics:/,/^$/s/^  Avg update rate: \([0-9]*\)$/\1/p' \
            ConsSummary.out 2>/dev/null | head -1)
        local lat
        lat=$(sed -n '/^Steady State Statistics:/,/^$/p' ConsSummary.out 2>/dev/null |
            awk -F': ' '/Latency avg/ {a=$2} /Latency p50/ {p50=$2} /Latency p99 \(/ {p99=$2; sub(/ .*/, "", p99)}
                /Latency max/ {mx=$2} END { printf "lat avg %s p50 %s p99 %s max %s", a, p50, p99, mx }')
        local ccpu
        ccpu=$(sed -n 's/^  CPU Usage avg (%): //p' ConsSummary.out 2>/dev/null | tail -1)
        cons="cons cpu ${ccpu:-?}% $lat"
        ;;
    esac
    kill -INT "$prov_pid" 2>/dev/null || true
    wait "$prov_pid" 2>/dev/null || true
    prov_pid=0
    local cm
    cm=$(avg_cpu_mem pstats1.csv $((rate * 8 / 10)))
    echo "${got:-0} $cm $cons"
    cd "$work"
}

printf "%-9s %-5s %-12s %-9s %-8s %s\n" "rate" "pack" "received/s" "prov cpu%" "prov MB" "consumer"
for pack in $packs; do
    for rate in $rates; do
        best=""
        for _ in $(seq "$reps"); do
            line=$(run "$rate" "$pack")
            if [ -z "$best" ] || [ "${line%% *}" -gt "${best%% *}" ]; then best=$line; fi
        done
        read -r got cpu mem rest <<<"$best"
        printf "%-9s %-5s %-12s %-9s %-8s %s\n" "$rate" "$pack" "$got" "$cpu" "$mem" "$rest"
    done
done
