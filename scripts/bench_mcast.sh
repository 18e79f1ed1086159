#!/usr/bin/env bash
# Finds the highest loss-free rate of 76-byte TransportPerf messages over sequenced multicast
# (-connType seqMCast), one sender and one receiver of the same build on the same host, inside
# a private network namespace (loopback with multicast, 224.0.0.0/4 routed to it) that the
# script creates and deletes: unpacked and -pack 50, ours and (with RWFPERF_ORIG_BIN) the
# original's, in the same run. Needs root (ip netns).
#
#   scripts/bench_mcast.sh                      every series with the default rate steps
#   scripts/bench_mcast.sh ours-unpacked        only the named series:
#                                               {ours,orig}-{unpacked,packed}
#
# A rate is loss-free when the receiver got every message the sender sent (the receiver
# joins first and outlasts the sender), reported no sequence error, and the sender achieved
# at least 99% of the offered rate. Each series climbs its steps and stops at the second
# failure in a row; each rate runs REPEAT times and the first loss-free run is kept. CPU is
# the average of the per-second samples each process takes (-writeStatsInterval 1), in % of
# one core; "ns/msg" is that CPU divided by the rate achieved, per side.
#
# Environment:
#   BIN=<folder>          our TransportPerf (default: this tree's build/bin, built first)
#   RWFPERF_ORIG_BIN      the original's folder; its series are skipped without it
#   SECS=10               seconds each sender sends
#   REPEAT=1              runs per rate
#   QUIET=60              wait up to this many seconds for a >= 90% idle machine before each
#                         run (0: do not wait)
#   RECV_BUF=8000000      the receiver's -recvBufSize (the kernel caps it at 2 x rmem_max)
#   PACK=50               messages per datagram of the packed series
#   UNPACKED_RATES, PACKED_RATES   space-separated steps (messages/s)
#   OUT=<folder>          where the runs are kept (default: build/bench_mcast)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${SECS:-10}
repeat=${REPEAT:-1}
quiet=${QUIET:-60}
recv_buf=${RECV_BUF:-8000000}
pack=${PACK:-50}
out=${OUT:-$top/build/bench_mcast}
unpacked_rates=${UNPACKED_RATES:-"100000 200000 300000 400000 500000 600000 700000 800000 1000000 1200000 1500000"}
packed_rates=${PACKED_RATES:-"500000 1000000 2000000 3000000 4000000 5000000 6000000 7000000 8000000 10000000"}

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "bench_mcast: needs root and iproute2 to create a network namespace" >&2
    exit 2
fi
if [ -z "${BIN:-}" ]; then
    "$top/scripts/build.sh" release >/dev/null
    BIN=$top/build/bin
fi
[ -x "$BIN/TransportPerf" ] || { echo "bench_mcast: no $BIN/TransportPerf" >&2; exit 2; }
orig=${RWFPERF_ORIG_BIN:-}
series=("$@")
if [ ${#series[@]} -eq 0 ]; then
    series=(ours-unpacked ours-packed)
    [ -n "$orig" ] && series+=(orig-unpacked orig-packed)
fi
mkdir -p "$out"

ns=rwfperf-bench-$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$ns"
ip -n "$ns" link set lo up multicast on
ip -n "$ns" route add 224.0.0.0/4 dev lo

wait_quiet() {
    [ "$quiet" -gt 0 ] || return 0
    local t0=$SECONDS idle
    while :; do
        idle=$(vmstat 3 2 | tail -1 | awk '{print $15}')
        [ "$idle" -ge 90 ] && return 0
        if [ $((SECONDS - t0)) -ge "$quiet" ]; then
            echo "  (machine still busy: ${idle}% idle)" >&2
            return 0
        fi
    done
}

# field FILE LABEL: the number after "LABEL: " in the last OVERALL SUMMARY of FILE.
field() {
    sed -n '/--- OVERALL SUMMARY ---/,$p' "$1" | grep -m1 -F "  $2: " |
        sed 's/.*: \([-0-9.]*\).*/\1/'
}

# run_once TP PACKED RATE DIR: one receiver and one sender; prints
# "sent recv snd_cpu rcv_cpu ok why".
run_once() {
    local tp=$1 packed=$2 rate=$3 dir=$4 snd rcv
    local common=(-appType client -connType seqMCast -sa 239.1.2.3 -sp 30001 -ra 239.1.2.3
        -if 127.0.0.1 -writeStatsInterval 1)
    local rargs=("${common[@]}" -rp 30001 -msgRate 0 -latencyMsgRate 0 -recvBufSize "$recv_buf"
        -runTime $((secs + 4)))
    local sargs=("${common[@]}" -rp 30002 -msgRate "$rate" -latencyMsgRate 10 -runTime "$secs")
    [ "$packed" = yes ] && sargs+=(-pack "$pack")
    rm -rf "$dir"
    mkdir -p "$dir/receiver" "$dir/sender"
    (cd "$dir/receiver" && exec ip netns exec "$ns" "$tp" "${rargs[@]}" >stdout 2>&1) &
    rcv=$!
    sleep 1
    (cd "$dir/sender" && exec ip netns exec "$ns" "$tp" "${sargs[@]}" >stdout 2>&1) &
    snd=$!
    wait "$snd" || true
    wait "$rcv" || true

    local s=$dir/sender/stdout r=$dir/receiver/stdout sent recv scpu rcpu srate ok=yes why=""
    sent=$(field "$s" "Msgs Sent")
    recv=$(field "$r" "Msgs Received")
    srate=$(field "$s" "Avg. Msg Sent Rate")
    scpu=$(field "$s" "CPU Usage avg (%)")
    rcpu=$(field "$r" "CPU Usage avg (%)")
    sent=${sent:-0} recv=${recv:-0} srate=${srate:-0}
    if [ "$sent" -le 0 ] || [ "$recv" -ne "$sent" ]; then
        ok=no why="lost $((sent - recv))"
    elif grep -q "out-of-order\|too small" "$r"; then
        ok=no why="sequence error"
    elif [ "$srate" -lt $((rate * 99 / 100)) ]; then
        ok=no why="sent at $srate/s"
    fi
    echo "$sent $recv ${scpu:--} ${rcpu:--} $ok ${why// /_}"
}

# ns_per_msg CPU% RATE: nanoseconds of CPU per message.
ns_per_msg() {
    awk -v c="$1" -v r="$2" 'BEGIN { if (c == "-" || r <= 0) print "-"; else printf "%.0f", c / 100 * 1e9 / r }'
}

declare -A best
for s in "${series[@]}"; do
    case $s in
    ours-*) tp=$BIN/TransportPerf ;;
    orig-*)
        [ -n "$orig" ] || { echo "bench_mcast: $s needs RWFPERF_ORIG_BIN" >&2; continue; }
        tp=$orig/TransportPerf ;;
    *) echo "bench_mcast: unknown series $s" >&2; exit 2 ;;
    esac
    case $s in
    *-unpacked) packed=no rates=$unpacked_rates ;;
    *-packed) packed=yes rates=$packed_rates ;;
    *) echo "bench_mcast: unknown series $s" >&2; exit 2 ;;
    esac
    echo "== $s ($tp, $secs s per run, best of $repeat)"
    printf '%-14s %9s %10s %10s %8s %8s %8s %8s %-4s %s\n' series rate sent received \
        "snd CPU%" "rcv CPU%" "snd ns" "rcv ns" ok note
    fails=0
    best[$s]="none"
    for rate in $rates; do
        result=""
        for r in $(seq "$repeat"); do
            wait_quiet
            line=$(run_once "$tp" "$packed" "$rate" "$out/${s}_${rate}_$r")
            if [ -z "$result" ] || [ "$(echo "$line" | awk '{print $5}')" = yes ]; then
                result=$line
            fi
            [ "$(echo "$result" | awk '{print $5}')" = yes ] && break
        done
        read -r sent recv scpu rcpu ok why <<<"$result"
        achieved=$((sent / secs))
        sns=$(ns_per_msg "$scpu" "$achieved")
        rns=$(ns_per_msg "$rcpu" "$achieved")
        printf '%-14s %9s %10s %10s %8s %8s %8s %8s %-4s %s\n' "$s" "$rate" "$sent" "$recv" \
            "$scpu" "$rcpu" "$sns" "$rns" "$ok" "${why//_/ }"
        if [ "$ok" = yes ]; then
            best[$s]="$rate msgs/s (sender $scpu% CPU, $sns ns/msg; receiver $rcpu% CPU, $rns ns/msg)"
            fails=0
        else
            fails=$((fails + 1))
            [ "$fails" -ge 2 ] && break
        fi
    done
done
echo
echo "== highest loss-free rate over seqMCast, 76-byte messages, packed = -pack $pack"
for s in "${series[@]}"; do
    printf '  %-14s %s\n' "$s" "${best[$s]:-skipped}"
done
