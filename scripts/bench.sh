#!/usr/bin/env bash
# Sweeps the update rate of ProvPerf -> ConsPerf on loopback and prints, per rate, what the
# consumer received in steady state, its latency percentiles, and each tool's CPU and memory,
# for each mode (bare channel, Reactor, Reactor + watchlist, warm standby) and each pair of
# tools (ours, and the original's when ORIG_BIN is set); then, per mode and pair, the highest
# rate held (steady state received >= 99% of the offered rate) and the CPU per update at that
# rate.
#
#   scripts/bench.sh [rate ...]      default: 100000 500000 1000000 2000000 3400000
#
# Environment:
#   ITEMS (10000)   items requested          STEADY (10)  steady-state seconds per run
#   LAT_RATE (1000) latency-stamped updates per second (ProvPerf -latencyUpdateRate)
#   PACK ("0 10")   -maxPackCount values to run (0 = unpacked)
#   MODES ("bare")  any of: bare reactor watchlist wsb. reactor: ProvPerf -reactor, ConsPerf
#                   -reactor; watchlist: ProvPerf -reactor, ConsPerf -watchlist; wsb: warm
#                   standby, the watchlist mode with two ProvPerf -reactor -supportStandby (a
#                   starting and a standby server, both bound as PROV_CPU says) and ConsPerf
#                   -watchlist -warmStandbyMode WSB_MODE (login, or service) given both: the
#                   provider figures are the starting (active) server's, whose files are named
#                   as in the other modes (the standby's: ProvStandby*, prov_standby.stdout). No
#                   original pair in this mode: the original ProvPerf does not advertise warm
#                   standby, and ConsPerf refuses a server that does not
#   PROV_BIN, CONS_BIN   our executables (default: build/bin/ProvPerf, build/bin/ConsPerf);
#                   point PROV_BIN at the original ProvPerf to measure our ConsPerf against it
#   ORIG_BIN        a folder holding the original ProvPerf and ConsPerf: each mode also runs
#                   with both of them, in the same sweep (rows marked "orig")
#   PROV_CPU (0), CONS_CPU (1)   -threads of each tool (one core each); "" leaves them unbound
#   PROV_WORKER, CONS_WORKER ("")  -workerThreads of each tool in the Reactor modes ("": unbound)
#   PROV_ARGS, CONS_ARGS ("")  further options given to every provider / consumer run
#   RUN_DIR (build/bench)   working folder
#   ENCRYPTED=1     both tools over TLS (-connType encrypted; a throw-away self-signed RSA
#                   certificate for localhost is made in RUN_DIR with the openssl command);
#                   the original pair (ORIG_BIN) too
#   WS=<sub-protocol>  the consumer over WebSocket (-connType websocket -pl <sub-protocol>, or
#                   -encryptedConnType websocket with ENCRYPTED=1), the provider given -pl:
#                   rssl.rwf or rssl.json.v2; the original pair (ORIG_BIN) too
# CPU and memory are the means over the statistics rows written in steady state (after every
# image); CPU per update is the tool's CPU time (all its threads) per update received
# (consumer) or sent (provider), in nanoseconds. Each run uses a free loopback port. The
# machine is shared: repeat and keep the best.
#   CPU_STAT=median  the median of the per-second CPU rows instead of their mean: on a virtual
#                   machine whose host stalls its vCPUs without reporting steal time, a stall is
#                   charged to whichever thread was running, and a few such seconds (11-48% for
#                   a provider that needs 4%, its profile's samples per second flat meanwhile)
#                   move the mean by half or more; the median passes over them
#
# Outputs, in RUN_DIR (emptied of a previous sweep's first): bench.csv, a row per run with the
# figures printed and the 1-minute load average when it ended; runs/<row>/ with that run's
# summaries, JSON summaries, statistics files and console output; and report.html, the page
# rwfperf-report makes of them (offered against received rate, CPU per update and p99 per
# rate, ours and the original side by side), whose path is printed last.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(100000 500000 1000000 2000000 3400000)
items=${ITEMS:-10000}
steady=${STEADY:-10}
lat_rate=${LAT_RATE:-1000}
packs=${PACK:-"0 10"}
modes=${MODES:-bare}
prov_bin=${PROV_BIN:-$top/build/bin/ProvPerf}
cons_bin=${CONS_BIN:-$top/build/bin/ConsPerf}
orig_bin=${ORIG_BIN:-}
cpu_stat=${CPU_STAT:-mean}
case $cpu_stat in mean | median) ;; *) echo "CPU_STAT=$cpu_stat: mean or median" >&2; exit 2 ;; esac
prov_cpu=${PROV_CPU-0}
cons_cpu=${CONS_CPU-1}
prov_worker=${PROV_WORKER:-}
cons_worker=${CONS_WORKER:-}
run_dir=${RUN_DIR:-$top/build/bench}

for m in $modes; do
    case $m in bare | reactor | watchlist | wsb) ;; *) echo "unknown mode $m" >&2; exit 2 ;; esac
done
wsb_mode=${WSB_MODE:-login}
case $wsb_mode in login | service) ;; *) echo "WSB_MODE=$wsb_mode: login or service" >&2; exit 2 ;; esac
if [ ! -x "$prov_bin" ] || [ ! -x "$cons_bin" ]; then
    "$top/scripts/setup.sh"
    "$top/scripts/build.sh" release >/dev/null
fi
pairs=(ours)
if [ -n "$orig_bin" ]; then
    [ -x "$orig_bin/ProvPerf" ] && [ -x "$orig_bin/ConsPerf" ] ||
        { echo "ORIG_BIN=$orig_bin holds no ProvPerf and ConsPerf" >&2; exit 2; }
    pairs+=(orig)
fi
mkdir -p "$run_dir"
rm -rf "$run_dir/runs" "$run_dir/bench.csv" "$run_dir/report.html"
cp "$top/data/RDMFieldDictionary" "$top/data/enumtype.def" "$top/data/MsgData.xml" "$run_dir/"
"$top/data/gen_items.sh" "$items" > "$run_dir/items.xml"
cd "$run_dir"
tls_p=() tls_c=() host=127.0.0.1
if [ "${ENCRYPTED:-0}" = 1 ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout tls.key -out tls.pem -days 2 \
        -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
    tls_p=(-connType encrypted -keyfile tls.key -cert tls.pem)
    tls_c=(-connType encrypted -castore tls.pem)
    host=localhost
    echo "(encrypted: TLS, certificate $run_dir/tls.pem)"
fi
if [ -n "${WS:-}" ]; then
    tls_p+=(-pl "$WS")
    if [ "${ENCRYPTED:-0}" = 1 ]; then
        tls_c+=(-encryptedConnType websocket -pl "$WS")
    else
        tls_c=(-connType websocket -pl "$WS")
    fi
    echo "(WebSocket, sub-protocol $WS)"
fi

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Steady-state CPU % and memory MB of a statistics CSV: the mean (CPU_STAT=median: the
# median) of the CPU column over the rows written in steady state, and the mean of its
# "Updates sent" column over the same rows when it has one. Column `img` holds the images of a
# row. The consumer's file (`items` > 0): the rows after the one in which the images, cumulated,
# reached `items`. The provider's file (`items` 0): every row but the first, and but those in
# which it sent images (the original ProvPerf sends 100,000 images in its second row, at
# 45-60% of its core). Prints "cpu mem sent" ("-" for what is missing).
steady_res() {
    awk -F', ' -v img="$2" -v items="$3" -v stat="$cpu_stat" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "CPU usage (%)") c = i
                                             if ($i == "Memory (MB)") m = i
                                             if ($i == "Updates sent") u = i }
                  next }
        { if (items) { got += $img; if (got < items || !seen++) next }
          else if (!seen++ || $img + 0 > 0) next
          cpu += $c; mem = $m; upd += u ? $u : 0; n++
          # insertion sort of the samples, for the median (a minute of rows at most)
          for (j = n; j > 1 && v[j - 1] > $c + 0; j--) v[j] = v[j - 1]
          v[j] = $c + 0 }
        END { if (n && c) {
                  mid = stat == "median" ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : cpu / n
                  printf "%.2f %.2f %s", mid, mem, u ? sprintf("%.0f", upd / n) : "-"
              } else printf "- - -" }' "$1"
}

# Waits until the provider (pid $1) listens on port $2 and, in the Reactor modes ($3 != bare),
# runs its reactor's worker (3 threads: the original ProvPerf -reactor hangs for good on a
# connection that comes before its provider thread has made its reactor); then half a second.
wait_ready() {
    local hex want=3 i
    hex=$(printf ':%04X ' "$2")
    [ "$3" = bare ] && want=1
    for i in $(seq 300); do
        if grep -q "$hex[0-9A-F]*:[0-9A-F]* 0A" /proc/net/tcp &&
            [ "$(awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0)" -ge $want ]; then
            break
        fi
        sleep 0.05
    done
    sleep 0.5
}

# The number after "label" in the section of a file that starts with "section".
num() {
    awk -v s="$2" -v l="$3" 'BEGIN { on = s == "" } index($0, s) == 1 { on = 1 } on && index($0, l) == 1 {
        v = substr($0, length(l) + 1); sub(/ .*/, "", v); print v; exit }' "$1"
}

# CPU nanoseconds per update: a CPU % (of one core) at a rate of updates per second.
per_update() {
    awk -v c="$1" -v r="$2" 'BEGIN { if (c ~ /^[0-9.]+$/ && r > 0) printf "%.0f", c * 1e7 / r
                                     else printf "-" }'
}

declare -A best best_cons best_prov
echo "mode, pair, pack, offered, received, p50_us, p99_us, p99_9_us, sched_p99_us, cons_cpu_pct, cons_mem_mb, cons_ns_per_update, prov_cpu_pct, prov_mem_mb, prov_ns_per_update, held, load1, run" >bench.csv
row=0
printf '%-9s %-4s %-5s %9s %10s %8s %8s %8s %9s %7s %7s %8s %7s %7s %8s\n' mode pair pack \
    offered received 'p50 us' 'p99 us' 'p99.9 us' 'sched p99' 'cons %' 'cons MB' 'cons ns' \
    'prov %' 'prov MB' 'prov ns'
for mode in $modes; do
    for pair in "${pairs[@]}"; do
        if [ "$mode" = wsb ] && [ "$pair" = orig ]; then
            echo "(wsb: no original pair: the original ProvPerf does not advertise warm standby)"
            continue
        fi
        pb=$prov_bin cb=$cons_bin
        [ "$pair" = orig ] && pb=$orig_bin/ProvPerf cb=$orig_bin/ConsPerf
        for pack in $packs; do
            for rate in "${rates[@]}"; do
                port=$(free_port)
                rm -f ConsSummary.out ProvSummary.out ConsStats1.csv ProvStats1.csv \
                    ProvStandbySummary.out ProvStandbyStats1.csv
                pargs=(-p "$port" -updateRate "$rate" -latencyUpdateRate "$lat_rate"
                       -runTime $((steady + 40)) -writeStatsInterval 1 "${tls_p[@]}")
                [ "$pack" -gt 1 ] && pargs+=(-maxPackCount "$pack" -packBufSize 6000)
                [ -n "$prov_cpu" ] && pargs+=(-threads "$prov_cpu")
                cargs=(-itemCount "$items" -itemFile items.xml -steadyStateTime "$steady"
                       -writeStatsInterval 1 -noDisplayStats "${tls_c[@]}")
                if [ "$mode" = wsb ]; then
                    # the standby server's port: another free one
                    port2=$port
                    while [ "$port2" = "$port" ]; do port2=$(free_port); done
                    pargs+=(-supportStandby)
                    cargs+=(-startingHostName "$host" -startingPort "$port"
                            -standbyHostName "$host" -standbyPort "$port2"
                            -warmStandbyMode "$wsb_mode")
                else
                    cargs+=(-h "$host" -p "$port")
                fi
                [ -n "$cons_cpu" ] && cargs+=(-threads "$cons_cpu")
                # shellcheck disable=SC2206
                pargs+=(${PROV_ARGS:-}) cargs+=(${CONS_ARGS:-})
                if [ "$mode" != bare ]; then
                    pargs+=(-reactor)
                    [ -n "$prov_worker" ] && pargs+=(-workerThreads "$prov_worker")
                    [ "$mode" = reactor ] && cargs+=(-reactor) || cargs+=(-watchlist)
                    [ -n "$cons_worker" ] && cargs+=(-workerThreads "$cons_worker")
                fi
                "$pb" "${pargs[@]}" > prov.stdout 2>&1 &
                prov=$!
                provs=("$prov")
                if [ "$mode" = wsb ]; then
                    # pargs but its first two words, "-p $port"
                    "$pb" -p "$port2" "${pargs[@]:2}" -statsFile ProvStandbyStats \
                        -summaryFile ProvStandbySummary.out > prov_standby.stdout 2>&1 &
                    provs+=($!)
                    wait_ready "$!" "$port2" "$mode"
                fi
                wait_ready "$prov" "$port" "$mode"
                "$cb" "${cargs[@]}" > cons.stdout 2>&1 || true
                kill -INT "${provs[@]}" 2>/dev/null || true
                wait "${provs[@]}" 2>/dev/null || true
                s="Steady State Statistics:"
                received=$(num ConsSummary.out "$s" '  Avg update rate: ' || true)
                grep -q 'Steady state was not reached' ConsSummary.out 2>/dev/null &&
                    received="no-images"
                read -r ccpu cmem _ <<< "$(steady_res ConsStats1.csv 7 "$items" || echo '- - -')"
                read -r pcpu pmem psent <<< "$(steady_res ProvStats1.csv 3 0 || echo '- - -')"
                cns=$(per_update "$ccpu" "${received:-0}")
                # per update sent, over the same rows as its CPU (the offered rate when the
                # statistics have no "Updates sent")
                [[ "$psent" =~ ^[0-9]+$ ]] || psent=$rate
                pns=$(per_update "$pcpu" "$psent")
                fields=("$mode" "$pair" "$([ "$pack" -gt 1 ] && echo "$pack" || echo no)"
                    "$rate" "${received:--}"
                    "$(num ConsSummary.out "$s" '  Latency p50 (usec): ' || true)"
                    "$(num ConsSummary.out "$s" '  Latency p99 (usec): ' || true)"
                    "$(num ConsSummary.out "$s" '  Latency p99.9 (usec): ' || true)"
                    "$(num ConsSummary.out "$s" '  Sched latency p99 (usec): ' || true)"
                    "$ccpu" "$cmem" "$cns" "$pcpu" "$pmem" "$pns")
                printf '%-9s %-4s %-5s %9s %10s %8s %8s %8s %9s %7s %7s %8s %7s %7s %8s\n' \
                    "${fields[@]}"
                key="$mode $pair $pack"
                held=no
                if [[ "${received:-}" =~ ^[0-9]+$ ]] && [ $((received * 100)) -ge $((rate * 99)) ]; then
                    held=yes
                    if [ "$rate" -gt "${best[$key]:-0}" ]; then
                        best[$key]=$rate
                        best_cons[$key]=$cns
                        best_prov[$key]=$pns
                    fi
                fi
                # The row in bench.csv ("-" for a figure missing), the run's files in runs/.
                row=$((row + 1))
                rdir=runs/$(printf '%03d' "$row")
                mkdir -p "$rdir"
                for f in ConsSummary.out ConsSummary.json ProvSummary.out ProvSummary.json \
                    ConsStats1.csv ProvStats1.csv cons.stdout prov.stdout \
                    ProvStandbySummary.out ProvStandbySummary.json ProvStandbyStats1.csv \
                    prov_standby.stdout; do
                    [ -f "$f" ] && mv "$f" "$rdir/"
                done
                line=
                for v in "${fields[@]}" "$held" "$(cut -d' ' -f1 /proc/loadavg)" "$rdir"; do
                    line+="${line:+, }${v:--}"
                done
                echo "$line" >>bench.csv
            done
        done
    done
done

echo
echo "Highest update rate held (steady state >= 99% of the offered rate), and the CPU per update"
echo "at that rate:"
printf '%-9s %-4s %-5s %12s %12s %12s\n' mode pair pack 'rate held' 'cons ns/upd' 'prov ns/upd'
for mode in $modes; do
    for pair in "${pairs[@]}"; do
        [ "$mode" = wsb ] && [ "$pair" = orig ] && continue
        for pack in $packs; do
            key="$mode $pair $pack"
            printf '%-9s %-4s %-5s %12s %12s %12s\n' "$mode" "$pair" \
                "$([ "$pack" -gt 1 ] && echo "$pack" || echo no)" "${best[$key]:-none}" \
                "${best_cons[$key]:--}" "${best_prov[$key]:--}"
        done
    done
done

# The page of the sweep.
report=$(dirname "$cons_bin")/rwfperf-report
[ -x "$report" ] || report=$top/build/bin/rwfperf-report
echo
if [ -x "$report" ]; then
    "$report" "$run_dir" >/dev/null && echo "report: $run_dir/report.html"
else
    echo "(no rwfperf-report beside $cons_bin: no report.html)"
fi
