#!/usr/bin/env bash
# Finds the highest loss-free TransportPerf rate on this machine, 76-byte messages, server
# sending to a client on the same host: socket unpacked, socket -pack 50, shared memory, and
# the same two socket series over TLS (-connType encrypted, a throw-away self-signed
# certificate made with the openssl command).
#
#   scripts/bench_transport.sh                 socket, pack and shmem with the default steps
#   scripts/bench_transport.sh socket pack     only those series (socket | pack | shmem |
#                                              tls | tlspack)
#
# A rate is loss-free when the client received every message the server sent (the original
# may lose its last burst at close: one tick's worth is allowed for it; a shared-memory
# reader is accountable from the message it attached at), the server achieved
# at least 99% of the offered rate, no message was refused for lack of output buffers, and no
# connection failed (sequence gap, slow shared-memory reader). Each series climbs its steps
# and stops at the second failure in a row; each rate runs REPEAT times and the best run is
# kept. CPU is the average of the per-second samples each process takes (-writeStatsInterval 1),
# in % of one core, per side.
#
# Environment:
#   BIN=<folder>        TransportPerf to measure (default: this tree's build/bin, built first);
#                       point it at the original's folder to measure the original the same way
#   SECS=10             seconds each server sends
#   REPEAT=1            runs per rate (the best is kept: others may be using the machine)
#   QUIET=60            wait up to this many seconds for a >= 90% idle machine before each run
#                       (0: do not wait)
#   SOCKET_RATES, PACK_RATES, SHMEM_RATES, TLS_RATES, TLSPACK_RATES   space-separated steps
#                       (messages/s)
#   OUT=<folder>        where the runs are kept (default: build/bench_transport)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${SECS:-10}
repeat=${REPEAT:-1}
quiet=${QUIET:-60}
out=${OUT:-$top/build/bench_transport}
socket_rates=${SOCKET_RATES:-"3000000 4000000 5000000 5500000 6000000 6500000 7000000 7500000 8000000 9000000 10000000"}
pack_rates=${PACK_RATES:-"6000000 8000000 9000000 10000000 11000000 12100000 13000000 14000000 16000000 18000000"}
shmem_rates=${SHMEM_RATES:-"500000 1000000 2000000 3000000 4000000 5000000 6000000 8000000"}
tls_rates=${TLS_RATES:-"1000000 2000000 3000000 4000000 5000000 6000000 7000000 8000000"}
tlspack_rates=${TLSPACK_RATES:-"2000000 4000000 6000000 8000000 9000000 10000000 12000000"}

if [ -z "${BIN:-}" ]; then
    "$top/scripts/build.sh" release >/dev/null
    BIN=$top/build/bin
fi
tp=$BIN/TransportPerf
[ -x "$tp" ] || { echo "bench_transport: no $tp" >&2; exit 2; }
series=("$@")
[ ${#series[@]} -gt 0 ] || series=(socket pack shmem)
mkdir -p "$out"
case " ${series[*]} " in
*" tls "* | *" tlspack "*)
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$out/tls.key" -out "$out/tls.pem" \
        -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        2>/dev/null ;;
esac

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

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

# run_once KIND RATE DIR: one server/client pair; prints "sent recv srv_cpu cli_cpu ok why".
run_once() {
    local kind=$1 rate=$2 dir=$3 port sargs cargs srv cli
    rm -rf "$dir"
    mkdir -p "$dir/server" "$dir/client"
    sargs=(-appType server -runTime "$secs" -msgRate "$rate" -latencyMsgRate 10 -writeStatsInterval 1)
    cargs=(-appType client -runTime $((secs + 20)) -msgRate 0 -latencyMsgRate 0 -writeStatsInterval 1)
    case $kind in
    socket) ;;
    pack) sargs+=(-pack 50) ;;
    tls | tlspack)
        sargs+=(-connType encrypted -keyfile "$out/tls.key" -cert "$out/tls.pem")
        cargs+=(-connType encrypted -encryptedConnType socket -castore "$out/tls.pem"
                -h localhost)
        [ "$kind" = tlspack ] && sargs+=(-pack 50)
        ;;
    shmem)
        sargs+=(-connType shmem -outputBufs 9000 -maxFragmentSize 256 -threads 0)
        cargs+=(-connType shmem -threads 1)
        ;;
    esac
    if [ "$kind" = shmem ]; then
        port=tpbench$$
    else
        port=$(free_port)
    fi
    (cd "$dir/server" && exec "$tp" "${sargs[@]}" -p "$port" >stdout 2>&1) &
    srv=$!
    sleep 1
    (cd "$dir/client" && exec "$tp" "${cargs[@]}" -p "$port" >stdout 2>&1) &
    cli=$!
    wait "$srv" || true
    # The original client does not stop when its server goes: end it once the server is gone.
    for _ in $(seq 50); do kill -0 "$cli" 2>/dev/null || break; sleep 0.1; done
    kill -INT "$cli" 2>/dev/null || true
    wait "$cli" || true

    local s=$dir/server/stdout c=$dir/client/stdout sent recv scpu ccpu srate ok=yes why=""
    sent=$(field "$s" "Msgs Sent")
    recv=$(field "$c" "Msgs Received")
    srate=$(field "$s" "Avg. Msg Sent Rate")
    scpu=$(field "$s" "CPU Usage avg (%)")
    ccpu=$(field "$c" "CPU Usage avg (%)")
    sent=${sent:-0} recv=${recv:-0} srate=${srate:-0}
    # A shared-memory reader sees only what is written after it attached: ours says where it
    # joined (first_sequence in its JSON summary); for one that does not, the messages before
    # its first interval are not counted against it.
    local first burst=$((rate / 1000))
    first=$(grep -ho '"first_sequence": [0-9]*' "$dir"/client/*.json 2>/dev/null | head -1 |
        awk '{print $2}')
    if [ -n "$first" ]; then
        sent=$((sent - first))
    elif [ "$kind" = shmem ]; then
        burst=$((sent - recv > 0 && recv > 0 ? sent - recv : burst))
    fi
    if [ "$recv" -lt $((sent - burst)) ] || [ "$recv" -gt "$sent" ] || [ "$sent" -le 0 ]; then
        ok=no why="lost $((sent - recv))"
    elif [ "$srate" -lt $((rate * 99 / 100)) ]; then
        ok=no why="sent at $srate/s"
    elif [ -z "$first" ] && [ "$kind" = shmem ] &&
        [ "$(field "$c" "Avg. Msg Recv Rate")" -lt $((rate * 99 / 100)) ]; then
        ok=no why="received at $(field "$c" "Avg. Msg Recv Rate")/s"
    elif grep -q "lack of output buffers" "$s"; then
        ok=no why="out of buffers"
    elif grep -q "out-of-order\|SLOW_READER\|lags writer" "$c"; then
        ok=no why="connection failed"
    fi
    echo "$sent $recv ${scpu:--} ${ccpu:--} $ok ${why// /_}"
}

declare -A best
for kind in "${series[@]}"; do
    case $kind in
    socket) rates=$socket_rates ;;
    pack) rates=$pack_rates ;;
    shmem) rates=$shmem_rates ;;
    tls) rates=$tls_rates ;;
    tlspack) rates=$tlspack_rates ;;
    *) echo "bench_transport: unknown series $kind" >&2; exit 2 ;;
    esac
    echo "== $kind ($tp, $secs s per run, best of $repeat)"
    printf '%-8s %10s %12s %12s %9s %9s %-4s %s\n' series rate sent received "srv CPU%" \
        "cli CPU%" ok note
    fails=0
    best[$kind]="none"
    for rate in $rates; do
        result="" 
        for r in $(seq "$repeat"); do
            wait_quiet
            line=$(run_once "$kind" "$rate" "$out/${kind}_${rate}_$r")
            # keep the first loss-free run, else the last
            if [ -z "$result" ] || [ "$(echo "$line" | awk '{print $5}')" = yes ]; then
                result=$line
            fi
            [ "$(echo "$result" | awk '{print $5}')" = yes ] && break
        done
        read -r sent recv scpu ccpu ok why <<<"$result"
        printf '%-8s %10s %12s %12s %9s %9s %-4s %s\n' "$kind" "$rate" "$sent" "$recv" "$scpu" \
            "$ccpu" "$ok" "${why//_/ }"
        if [ "$ok" = yes ]; then
            best[$kind]="$rate msgs/s (server CPU $scpu%, client CPU $ccpu%)"
            fails=0
        else
            fails=$((fails + 1))
            [ "$fails" -ge 2 ] && break
        fi
    done
done
echo
echo "== highest loss-free rate, 76-byte messages ($tp)"
for kind in "${series[@]}"; do
    printf '  %-7s %s\n' "$kind" "${best[$kind]}"
done
