#!/usr/bin/env bash
# Compares two builds, A and B, mode by mode: the highest update rate each holds and the CPU
# per update both spend at one common rate. Runs taken in turn (A, B, A, B ... per mode, rate
# and round), so that whatever else loads the machine falls on both alike.
#
#   scripts/bench_ab.sh A_BIN B_BIN [mode ...]
#
# A_BIN, B_BIN: folders holding the tools the modes run: ConsPerf and ProvPerf, NIProvPerf
# (niprov), TransportPerf (socket, shmem) (a build's bin/; another checkout's build works, e.g.
# an older commit's). Modes (default: all, in this order):
#   bare       ProvPerf -> ConsPerf on a bare channel           scripts/bench.sh
#   reactor    both tools -reactor                              scripts/bench.sh MODES=reactor
#   watchlist  ProvPerf -reactor, ConsPerf -watchlist           scripts/bench.sh MODES=watchlist
#   wsb        warm standby: the watchlist mode with two ProvPerf -reactor -supportStandby (a
#              starting and a standby server) and ConsPerf given both, -warmStandbyMode login;
#              ProvPerf's figure is the active server's      scripts/bench.sh MODES=wsb
#   tls        bare over TLS                                    scripts/bench.sh ENCRYPTED=1
#   ws-rwf     the consumer over WebSocket, rssl.rwf            scripts/bench.sh WS=rssl.rwf
#   ws-json    the consumer over WebSocket, rssl.json.v2        scripts/bench.sh WS=rssl.json.v2
#   tunnel     the watchlist mode with ConsPerf -tunnel: items and updates inside one tunnel
#              stream                                           scripts/bench.sh CONS_ARGS=-tunnel
#   niprov     NIProvPerf publishing to tests/bench/bench_prov_drain --adh (one ADH stand-in,
#              this checkout's build/bin/bench/, for both builds: it answers the login and
#              counts the updates, decoding nothing); no ConsPerf        (below, niprov_one)
#   socket     TransportPerf, socket, unpacked                  scripts/bench_transport.sh
#   shmem      TransportPerf, shared memory                     scripts/bench_transport.sh
# Every option these modes give the tools is in the build of 77dde6b too (ProvPerf
# -supportStandby, ConsPerf's warm standby options, NIProvPerf's), so that build can be A.
#
# Each mode climbs its ladder of rates (unpacked, 10,000 items); a rate is held by a build when
# more than half of its rounds held it (scripts/bench.sh: steady state received >= 99% of the
# offered rate; niprov: the ADH received >= 99% of it a second over the seconds after the
# first, and NIProvPerf sent every image; scripts/bench_transport.sh: loss-free), and a build
# stops climbing at its second rate in a row not held, except that every build runs the mode's
# common rate. CPU per update is each tool's CPU time (all threads) per update received
# (ConsPerf; TransportPerf's client) or sent (ProvPerf, NIProvPerf; TransportPerf's server), in
# ns, the median over the rounds at the common rate, held or not (a "*" marks a figure of a
# rate not held). NIProvPerf's is its CPU time (from /proc) over the seconds the ADH counted,
# over the updates it received in them; niprov has no consumer figure.
#
# Ladders and common rates (near each mode's figures in docs/performance.md):
#   bare      1M 2M 3M 4M 5M, common 3M     tls       1M 2M 3M 3.375M 4M, common 3M
#   reactor   1M 2M 3M 4M,    common 2M     ws-rwf    1M 2M 3M 4M,        common 2M
#   watchlist 1M 2M 3M 4M,    common 2M     ws-json   0.4M 0.7M 1M 1.4M,  common 1M
#   wsb       1M 2M 3M 4M,    common 2M     niprov    1M 2M 3M 4M 5M 6M 8M, common 3M
#   tunnel    50k 100k 200k 300k 400k, common 100k
#   socket    4M 6M 8M 9M 10M, common 6M    shmem     1M 2M 4M 6M 8M,     common 4M
# About 25 minutes on an idle 2-core machine with the defaults (fewer rates when a build stops
# climbing early).
#
# Environment:
#   STEADY (6)        steady-state seconds per ConsPerf run; TransportPerf's server sends as long
#   ROUNDS (1)        runs per rate and build
#   QUICK=1           a smoke run of a minute or two: STEADY=2, one low rate per mode, also
#                     its common rate (100,000 upd/s; tunnel 20,000; TransportPerf 500,000 msgs/s)
#   RATES_<mode>      the ladder of a mode, space-separated upd/s or msgs/s ('-' in the mode's
#                     name written '_': RATES_ws_json="400000 1000000")
#   CPU_RATE_<mode>   its common rate (run by both builds even off the ladder)
#   ITEMS (10000)     items requested
#   OUT (build/bench_ab)  working folder, emptied of a previous comparison's runs first
#   PROV_CPU, CONS_CPU, PROV_WORKER, CONS_WORKER, LAT_RATE   passed to scripts/bench.sh (its
#                     other knobs are set per mode: MODES, PACK=0, ENCRYPTED, WS, CONS_ARGS);
#                     niprov binds NIProvPerf -threads PROV_CPU (0) and the ADH to CONS_CPU (1,
#                     with taskset), NIProvPerf -latencyUpdateRate LAT_RATE (1000)
#   DRAIN (build/bin/bench/bench_prov_drain)  the ADH stand-in of niprov
#   QUIET (0)         passed to scripts/bench_transport.sh: by default no wait for an idle machine
#
# Outputs: a line per run as it ends (mode, rate, build, round, received, held, CPU per update
# of each tool, 1-minute load average when it ended; for TransportPerf, the median of the
# rounds and the load when the rate started), the table (mode; highest rate held A / B;
# common rate; ConsPerf (client) and ProvPerf (server) ns per update A / B there; the range of
# the load averages of the mode's runs), and `uptime` before and after. In OUT: runs.csv (a
# row per run), table.txt (the table), and runs/<mode>/... with each run's own folder
# (scripts/bench.sh's bench.csv and run files, scripts/bench_transport.sh's output; niprov:
# NIProvPerf's summary, statistics and console, adh.out).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
all_modes=(bare reactor watchlist wsb tls ws-rwf ws-json tunnel niprov socket shmem)

die() { echo "bench_ab: $*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: $0 A_BIN B_BIN [mode ...] (modes: ${all_modes[*]})"
declare -A bin
for b in A B; do
    d=$1
    shift
    [ -d "$d" ] || die "$b: $d is not a folder"
    bin[$b]=$(cd "$d" && pwd)
done
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=("${all_modes[@]}")
declare -A need=()
for m in "${modes[@]}"; do
    case " ${all_modes[*]} " in *" $m "*) ;; *) die "unknown mode '$m' (modes: ${all_modes[*]})" ;; esac
    case $m in
    niprov) need[NIProvPerf]=1 ;;
    socket | shmem) need[TransportPerf]=1 ;;
    *) need[ConsPerf]=1 need[ProvPerf]=1 ;;
    esac
done
for b in A B; do
    for t in "${!need[@]}"; do
        [ -x "${bin[$b]}/$t" ] || die "$b: no executable ${bin[$b]}/$t"
    done
done
drain=${DRAIN:-$top/build/bin/bench/bench_prov_drain}
if [ -n "${need[NIProvPerf]:-}" ]; then
    [ -x "$drain" ] || die "niprov: no $drain (scripts/build.sh release builds it; or set DRAIN)"
fi

quick=${QUICK:-0}
steady=${STEADY:-6}
[ "$quick" = 1 ] && steady=${STEADY:-2}
rounds=${ROUNDS:-1}
items=${ITEMS:-10000}
out=${OUT:-$top/build/bench_ab}
for v in steady rounds items; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "${v^^}=${!v}: a positive whole number is wanted"
done

declare -A ladder=(
    [bare]="1000000 2000000 3000000 4000000 5000000"
    [reactor]="1000000 2000000 3000000 4000000"
    [watchlist]="1000000 2000000 3000000 4000000"
    [tls]="1000000 2000000 3000000 3375000 4000000"
    [ws-rwf]="1000000 2000000 3000000 4000000"
    [ws-json]="400000 700000 1000000 1400000"
    [tunnel]="50000 100000 200000 300000 400000"
    [wsb]="1000000 2000000 3000000 4000000"
    [niprov]="1000000 2000000 3000000 4000000 5000000 6000000 8000000"
    [socket]="4000000 6000000 8000000 9000000 10000000"
    [shmem]="1000000 2000000 4000000 6000000 8000000"
)
declare -A common=([bare]=3000000 [reactor]=2000000 [watchlist]=2000000 [tls]=3000000
    [ws-rwf]=2000000 [ws-json]=1000000 [tunnel]=100000 [socket]=6000000 [shmem]=4000000
    [wsb]=2000000 [niprov]=3000000)
declare -A quick_rate=([bare]=100000 [reactor]=100000 [watchlist]=100000 [tls]=100000
    [ws-rwf]=100000 [ws-json]=100000 [tunnel]=20000 [socket]=500000 [shmem]=500000
    [wsb]=100000 [niprov]=100000)
for m in "${modes[@]}"; do
    [ "$quick" = 1 ] && ladder[$m]=${quick_rate[$m]} common[$m]=${quick_rate[$m]}
    v=RATES_${m//-/_}
    [ -n "${!v:-}" ] && ladder[$m]=${!v}
    v=CPU_RATE_${m//-/_}
    [ -n "${!v:-}" ] && common[$m]=${!v}
    for r in ${ladder[$m]} ${common[$m]}; do
        [[ $r =~ ^[1-9][0-9]*$ ]] || die "$m: rate '$r' is not a positive whole number"
    done
    # the ladder in ascending order, with the common rate in it
    # shellcheck disable=SC2086
    ladder[$m]=$(printf '%s\n' ${ladder[$m]} "${common[$m]}" | sort -nu | tr '\n' ' ')
done

mkdir -p "$out"
rm -rf "$out/runs" "$out/runs.csv" "$out/table.txt"
mkdir -p "$out/runs"
echo "mode, rate, build, round, received, held, cons_ns_per_update, prov_ns_per_update, load1, run" \
    >"$out/runs.csv"
echo "A: ${bin[A]}"
echo "B: ${bin[B]}"
echo "before: $(uptime)"
printf '%-9s %9s %-5s %5s %10s %-4s %8s %8s %6s\n' mode rate build round received held \
    'cons ns' 'prov ns' load

# median of the numbers on stdin ("-" when none)
median() {
    grep -E '^[0-9.]+$' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"
        else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# record MODE RATE BUILD ROUND RECEIVED HELD CONS_NS PROV_NS LOAD DIR: prints and keeps one run.
record() {
    printf '%-9s %9s %-5s %5s %10s %-4s %8s %8s %6s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
        "$8" "$9"
    local line="" v
    for v in "$@"; do line+="${line:+, }${v:--}"; done
    echo "$line" >>"$out/runs.csv"
}

# bench_one MODE RATE BUILD ROUND: one scripts/bench.sh run of the ProvPerf -> ConsPerf modes.
bench_one() {
    local m=$1 rate=$2 b=$3 r=$4 dir env=() row
    dir=$out/runs/$m/${rate}_${b}_$r
    mkdir -p "$dir"
    case $m in
    bare) env=(MODES=bare) ;;
    reactor) env=(MODES=reactor) ;;
    watchlist) env=(MODES=watchlist) ;;
    wsb) env=(MODES=wsb WSB_MODE=login) ;;
    tls) env=(MODES=bare ENCRYPTED=1) ;;
    ws-rwf) env=(MODES=bare WS=rssl.rwf) ;;
    ws-json) env=(MODES=bare WS=rssl.json.v2) ;;
    tunnel) env=(MODES=watchlist CONS_ARGS=-tunnel) ;;
    esac
    env ENCRYPTED=0 WS= CONS_ARGS= PROV_ARGS= ORIG_BIN= "${env[@]}" PACK=0 STEADY="$steady" \
        ITEMS="$items" PROV_BIN="${bin[$b]}/ProvPerf" CONS_BIN="${bin[$b]}/ConsPerf" \
        RUN_DIR="$dir" "$top/scripts/bench.sh" "$rate" >"$dir/bench.log" 2>&1 || true
    # bench.csv: mode, pair, pack, offered, received, p50, p99, p99.9, sched p99, cons %,
    # cons MB, cons ns, prov %, prov MB, prov ns, held, load1, run
    row=$(sed -n 2p "$dir/bench.csv" 2>/dev/null || true)
    if [ -z "$row" ]; then
        record "$m" "$rate" "$b" "$r" - no - - "$(cut -d' ' -f1 /proc/loadavg)" "$dir"
        return
    fi
    IFS=',' read -r -a f <<<"${row// /}"
    record "$m" "$rate" "$b" "$r" "${f[4]}" "${f[15]}" "${f[11]}" "${f[14]}" "${f[16]}" "$dir"
}

# cpu_ticks PID: the CPU time (user + system, all threads) of a process, in clock ticks.
cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}

# niprov_one MODE RATE BUILD ROUND: one run of NIProvPerf publishing to the ADH stand-in (the
# drain), which counts the updates of each second from the first update. Measured: seconds 2
# to STEADY + 1 (the first is left out), the updates the ADH received and NIProvPerf's CPU
# time over them (from /proc when the ADH printed second 1 and second STEADY + 1).
niprov_one() {
    local m=$1 rate=$2 b=$3 r=$4 dir port adh ni recv held pns pin=() pcpu last=$((steady + 1))
    local c0="" c1="" t0="" t1="" images
    dir=$out/runs/$m/${rate}_${b}_$r
    mkdir -p "$dir"
    cp "$top/data/RDMFieldDictionary" "$top/data/enumtype.def" "$top/data/MsgData.xml" \
        "$out/runs/$m/items.xml" "$dir/"
    port=$("$drain" --free-port)
    pcpu=${PROV_CPU-0}
    [ -n "${CONS_CPU-1}" ] && pin=(taskset -c "${CONS_CPU-1}")
    (cd "$dir" && exec "${pin[@]}" "$drain" --adh "$port" $((last + 2))) >"$dir/adh.out" 2>&1 &
    adh=$!
    for _ in $(seq 100); do
        grep -q ":$(printf '%04X' "$port") 00000000:0000 0A" /proc/net/tcp && break
        sleep 0.05
    done
    (cd "$dir" && exec "${bin[$b]}/NIProvPerf" -h 127.0.0.1 -p "$port" -itemCount "$items" \
        -itemFile items.xml -updateRate "$rate" -latencyUpdateRate "${LAT_RATE:-1000}" \
        -runTime $((steady + 60)) -writeStatsInterval 1 -noDisplayStats \
        ${pcpu:+-threads "$pcpu"}) >"$dir/niprov.stdout" 2>&1 &
    ni=$!
    # up to 60 s for the images and the first update, then the seconds measured
    for _ in $(seq $(((steady + 60) * 50))); do
        if ! kill -0 "$ni" 2>/dev/null || ! kill -0 "$adh" 2>/dev/null; then break; fi
        if [ -z "$c0" ] && grep -q '^adh: second 1:' "$dir/adh.out"; then
            c0=$(cpu_ticks "$ni") t0=$(date +%s.%N)
        elif [ -n "$c0" ] && grep -q "^adh: second $last:" "$dir/adh.out"; then
            c1=$(cpu_ticks "$ni") t1=$(date +%s.%N)
            break
        fi
        sleep 0.02
    done
    kill -INT "$ni" 2>/dev/null || true
    wait "$ni" 2>/dev/null || true
    # the ADH leaves when NIProvPerf has gone (its last line then), or is made to
    for _ in $(seq 40); do kill -0 "$adh" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$adh" 2>/dev/null || true
    wait "$adh" 2>/dev/null || true
    # the mean of the ADH's seconds 2 to STEADY + 1
    recv=$(awk -v last="$last" '$1 == "adh:" && $2 == "second" && $3 + 0 >= 2 && $3 + 0 <= last {
        s += $4; n++ } END { if (n == last - 1) printf "%.0f", s / n }' "$dir/adh.out")
    held=no
    [ -n "$recv" ] && [ $((recv * 100)) -ge $((rate * 99)) ] && held=yes
    # Every image sent, or the run published to fewer items than asked: not held. (The build of
    # 77dde6b sends refreshes only in what is left of a tick after its updates: at 4,000,000
    # upd/s and more, some of its runs send the first burst of 10 images, then updates only.)
    images=$(sed -n 's/^  Images sent: \([0-9]*\)$/\1/p' "$dir/NIProvSummary.out" 2>/dev/null |
        head -1)
    if [ "${images:-0}" -lt "$items" ]; then
        echo "niprov: $b at $rate sent ${images:-no} images of $items: not held"
        held=no
    fi
    # CPU ns per update: the CPU time between the two samples over the updates of that time
    pns=$(awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
        -v r="${recv:-0}" 'BEGIN { if (c1 != "" && c0 != "" && r > 0 && t1 > t0)
                                    printf "%.0f", (c1 - c0) / hz * 1e9 / (r * (t1 - t0)) }')
    echo "cpu ticks $c0 $c1 at $t0 $t1, $(getconf CLK_TCK)/s; updates/s $recv" >"$dir/niprov_cpu.txt"
    record "$m" "$rate" "$b" "$r" "${recv:--}" "$held" - "${pns:--}" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$dir"
}

# transport_rate MODE RATE ROUNDS: scripts/bench_transport.sh over A (its "ours") and B (its
# "orig") at one rate, the two taking turns per round; records each build's median.
transport_rate() {
    local m=$1 rate=$2 dir v kind=$1
    dir=$out/runs/$m/$rate
    mkdir -p "$dir"
    v=${kind^^}_RATES
    env QUIET="${QUIET:-0}" SECS="$steady" ROUNDS="$rounds" REPEAT=1 BIN="${bin[A]}" \
        ORIG_BIN="${bin[B]}" OUT="$dir" "$v=$rate" "$top/scripts/bench_transport.sh" "$kind" \
        >"$dir/bench_transport.log" 2>&1 || true
    # rows: series pair rate sent received srvCPU% cliCPU% held(n/rounds) load note
    local p b line
    for p in ours orig; do
        b=A
        [ $p = orig ] && b=B
        line=$(awk -v k="$kind" -v p="$p" -v r="$rate" '$1 == k && $2 == p && $3 == r' \
            "$dir/bench_transport.log" | head -1)
        if [ -z "$line" ]; then
            record "$m" "$rate" "$b" all - no - - "$(cut -d' ' -f1 /proc/loadavg)" "$dir"
            continue
        fi
        read -r _ _ _ _ recv scpu ccpu held load _ <<<"$line"
        record "$m" "$rate" "$b" "all" "$recv" "$([ "${held%%(*}" = yes ] && echo yes || echo no)" \
            "$(awk -v c="$ccpu" -v r="$rate" 'BEGIN { if (c ~ /^[0-9.]+$/) printf "%.0f", c * 1e7 / r; else print "-" }')" \
            "$(awk -v c="$scpu" -v r="$rate" 'BEGIN { if (c ~ /^[0-9.]+$/) printf "%.0f", c * 1e7 / r; else print "-" }')" \
            "$load" "$dir"
    done
}

# The runs of one mode, rate and build from runs.csv: prints "held cons_ns prov_ns"
# (held: yes when more than half of the rounds held it; ns: medians, "-" when none). A
# TransportPerf row already holds its rounds' medians and verdict.
summary() {
    local rows n nok
    rows=$(awk -F', ' -v m="$1" -v r="$2" -v b="$3" '$1 == m && $2 == r && $3 == b' "$out/runs.csv")
    n=$(echo "$rows" | grep -c . || true)
    nok=$(echo "$rows" | awk -F', ' '$6 == "yes"' | grep -c . || true)
    printf '%s %s %s\n' "$([ "$n" -gt 0 ] && [ $((nok * 2)) -gt "$n" ] && echo yes || echo no)" \
        "$(echo "$rows" | awk -F', ' '{ print $7 }' | median)" \
        "$(echo "$rows" | awk -F', ' '{ print $8 }' | median)"
}

declare -A best
for m in "${modes[@]}"; do
    declare -A fails=([A]=0 [B]=0) climbing=([A]=1 [B]=1)
    best[$m.A]=none best[$m.B]=none
    for rate in ${ladder[$m]}; do
        live=()
        for b in A B; do
            [ "${climbing[$b]}" = 1 ] || [ "$rate" = "${common[$m]}" ] && live+=("$b")
        done
        [ ${#live[@]} -gt 0 ] || continue
        case $m in
        socket | shmem)
            transport_rate "$m" "$rate" ;;
        niprov)
            [ -f "$out/runs/$m/items.xml" ] ||
                { mkdir -p "$out/runs/$m" && "$top/data/gen_items.sh" "$items" >"$out/runs/$m/items.xml"; }
            for r in $(seq "$rounds"); do
                for b in "${live[@]}"; do niprov_one "$m" "$rate" "$b" "$r"; done
            done ;;
        *)
            for r in $(seq "$rounds"); do
                for b in "${live[@]}"; do bench_one "$m" "$rate" "$b" "$r"; done
            done ;;
        esac
        for b in "${live[@]}"; do
            read -r held _ _ <<<"$(summary "$m" "$rate" "$b")"
            if [ "$held" = yes ]; then
                best[$m.$b]=$rate
                fails[$b]=0
            elif [ "${climbing[$b]}" = 1 ]; then
                fails[$b]=$((fails[$b] + 1))
                [ "${fails[$b]}" -ge 2 ] && climbing[$b]=0
            fi
        done
    done
    unset fails climbing
done
echo "after: $(uptime)"

# The table.
fmt() { # NS HELD: the figure, "*" when its rate was not held
    [ "$1" = - ] && { echo -; return; }
    [ "$2" = yes ] && echo "$1" || echo "$1*"
}
{
    echo
    echo "A: ${bin[A]}"
    echo "B: ${bin[B]}"
    echo "Highest rate held, and CPU per update (ns) at the common rate, A / B (ConsPerf and"
    echo "ProvPerf; niprov: NIProvPerf as prov; TransportPerf's client and server); * = that"
    echo "rate not held; load = 1-minute load average at the end of the mode's runs,"
    echo "lowest-highest:"
    printf '%-9s %19s %9s %15s %15s %11s\n' mode 'held A / B' 'at' 'cons ns A / B' \
        'prov ns A / B' load
    for m in "${modes[@]}"; do
        c=${common[$m]}
        read -r ha ca pa <<<"$(summary "$m" "$c" A)"
        read -r hb cb pb <<<"$(summary "$m" "$c" B)"
        load=$(awk -F', ' -v m="$m" '$1 == m && $9 ~ /^[0-9.]+$/ { print $9 }' "$out/runs.csv" |
            sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%s-%s", lo, hi
                                                                   else print "-" }')
        printf '%-9s %19s %9s %15s %15s %11s\n' "$m" "${best[$m.A]} / ${best[$m.B]}" "$c" \
            "$(fmt "$ca" "$ha") / $(fmt "$cb" "$hb")" "$(fmt "$pa" "$ha") / $(fmt "$pb" "$hb")" \
            "$load"
    done
} | tee "$out/table.txt"
echo "runs: $out/runs.csv"
