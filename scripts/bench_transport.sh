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
# A run is loss-free when the client received every message the server sent (the original
# may lose its last burst at close: one tick's worth is allowed for it; a shared-memory
# reader is accountable from the message it attached at), the server achieved
# at least 99% of the offered rate, no message was refused for lack of output buffers, and no
# connection failed (sequence gap, slow shared-memory reader). Each series climbs its steps;
# each rate runs ROUNDS times per pair of tools, the pairs taking turns (ours, the original,
# ours, ...) so that whatever else the machine does falls on both alike; a rate is held when
# more than half of its rounds are loss-free, and a pair stops climbing at its second rate in a
# row not held. CPU is the average of the per-second samples each process takes
# (-writeStatsInterval 1), in % of one core, per side: the median over the rounds is shown,
# with the load average (1 minute) when the rate started.
#
# Environment:
#   BIN=<folder>        TransportPerf to measure (default: this tree's build/bin, built first)
#   ORIG_BIN=<folder>   the original TransportPerf: run in the same sweep, in turn with BIN
#                       (rows "orig"), and the ratio of the highest rates held printed at the end
#   ROUNDS=1            runs per rate and pair
#   REPEAT=1            with ROUNDS=1: runs per rate, the first loss-free one kept (others may
#                       be using the machine)
#   SECS=10             seconds each server sends
#   QUIET=60            wait up to this many seconds for a >= 90% idle machine before each run
#                       (0: do not wait)
#   SOCKET_RATES, PACK_RATES, SHMEM_RATES, TLS_RATES, TLSPACK_RATES   space-separated steps
#                       (messages/s)
#   OUT=<folder>        where the runs are kept (default: build/bench_transport)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${SECS:-10}
repeat=${REPEAT:-1}
rounds=${ROUNDS:-1}
orig_bin=${ORIG_BIN:-}
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
BIN=$(cd "$BIN" && pwd)
declare -A tool=([ours]=$BIN/TransportPerf)
pairs=(ours)
if [ -n "$orig_bin" ]; then
    tool[orig]=$(cd "$orig_bin" && pwd)/TransportPerf
    pairs+=(orig)
fi
for p in "${pairs[@]}"; do
    [ -x "${tool[$p]}" ] || { echo "bench_transport: no ${tool[$p]}" >&2; exit 2; }
done
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

# run_once TOOL KIND RATE DIR: one server/client pair of TOOL; prints
# "sent recv srv_cpu cli_cpu ok why".
run_once() {
    local tp=$1 kind=$2 rate=$3 dir=$4 port sargs cargs srv cli
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

# median of the numbers on stdin ("-" when none)
median() {
    sort -n | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2];
        else printf "%.2f\n", (v[NR/2] + v[NR/2+1]) / 2}' | sed 's/\.00$//'
}

declare -A best best_rate
for kind in "${series[@]}"; do
    case $kind in
    socket) rates=$socket_rates ;;
    pack) rates=$pack_rates ;;
    shmem) rates=$shmem_rates ;;
    tls) rates=$tls_rates ;;
    tlspack) rates=$tlspack_rates ;;
    *) echo "bench_transport: unknown series $kind" >&2; exit 2 ;;
    esac
    echo "== $kind ($secs s per run, $rounds round(s) per rate and pair)"
    for p in "${pairs[@]}"; do echo "   $p: ${tool[$p]}"; done
    printf '%-8s %-5s %10s %12s %12s %9s %9s %-5s %5s %s\n' series pair rate sent received \
        "srv CPU%" "cli CPU%" held load note
    declare -A fails=() climbing=()
    for p in "${pairs[@]}"; do
        fails[$p]=0 climbing[$p]=1 best[$kind.$p]="none"
    done
    for rate in $rates; do
        live=()
        for p in "${pairs[@]}"; do [ "${climbing[$p]}" = 1 ] && live+=("$p"); done
        [ ${#live[@]} -gt 0 ] || break
        load=$(cut -d' ' -f1 /proc/loadavg)
        declare -A lines=()
        for r in $(seq "$rounds"); do
            for p in "${live[@]}"; do
                if [ "$rounds" = 1 ]; then
                    # REPEAT: the first loss-free run of up to REPEAT
                    line=""
                    for t in $(seq "$repeat"); do
                        wait_quiet
                        l=$(run_once "${tool[$p]}" "$kind" "$rate" "$out/${kind}_${p}_${rate}_$t")
                        if [ -z "$line" ] || [ "$(echo "$l" | awk '{print $5}')" = yes ]; then
                            line=$l
                        fi
                        [ "$(echo "$line" | awk '{print $5}')" = yes ] && break
                    done
                else
                    wait_quiet
                    line=$(run_once "${tool[$p]}" "$kind" "$rate" "$out/${kind}_${p}_${rate}_$r")
                fi
                lines[$p]+="$line"$'\n'
            done
        done
        for p in "${live[@]}"; do
            rows=${lines[$p]%$'\n'}
            nok=$(echo "$rows" | awk '$5 == "yes"' | wc -l)
            sent=$(echo "$rows" | awk '{print $1}' | median)
            recv=$(echo "$rows" | awk '{print $2}' | median)
            scpu=$(echo "$rows" | awk '$3 != "-" {print $3}' | median)
            ccpu=$(echo "$rows" | awk '$4 != "-" {print $4}' | median)
            why=$(echo "$rows" | awk '$5 != "yes" {print $6}' | sort | uniq -c |
                awk '{printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1}')
            held=no
            [ $((nok * 2)) -gt "$rounds" ] && held=yes
            printf '%-8s %-5s %10s %12s %12s %9s %9s %-5s %5s %s\n' "$kind" "$p" "$rate" \
                "$sent" "$recv" "$scpu" "$ccpu" "$held($nok/$rounds)" "$load" "${why//_/ }"
            if [ "$held" = yes ]; then
                best[$kind.$p]="$rate msgs/s (server CPU $scpu%, client CPU $ccpu%, load $load)"
                best_rate[$kind.$p]=$rate
                fails[$p]=0
            else
                fails[$p]=$((fails[$p] + 1))
                [ "${fails[$p]}" -ge 2 ] && climbing[$p]=0
            fi
        done
        unset lines
    done
    unset fails climbing
done
echo
echo "== highest loss-free rate, 76-byte messages"
for kind in "${series[@]}"; do
    for p in "${pairs[@]}"; do
        printf '  %-7s %-5s %s\n' "$kind" "$p" "${best[$kind.$p]}"
    done
    if [ -n "$orig_bin" ] && [ -n "${best_rate[$kind.ours]:-}" ] &&
        [ -n "${best_rate[$kind.orig]:-}" ]; then
        printf '  %-7s ours/orig %.2fx\n' "$kind" \
            "$(echo "${best_rate[$kind.ours]} / ${best_rate[$kind.orig]}" | bc -l)"
    fi
done
