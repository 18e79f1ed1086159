#!/usr/bin/env bash
# Soak benchmark: ProvPerf -> ConsPerf on loopback for a long run, sampling both processes'
# resident memory and CPU once a minute, then a verdict:
#   memory  flat: after the first minute, neither process's RSS exceeds its level at the end of
#           the first minute by more than 1 MB (1,048,576 bytes);
#   rate    ProvPerf's achieved update rate (sent) and ConsPerf's steady-state rate (received)
#           both within 0.1% of the configured rate.
#
#   scripts/soak.sh [-d <minutes>] [-r <updates/s>] [-i <items>] [-o <folder>] [-s <secs>]
#     -d  duration of ConsPerf's steady state in minutes (default 30)
#     -r  update rate (default 100000)
#     -i  items (default 10000)
#     -o  output folder (default build/soak/<UTC time>); keep it out of the tree for long runs
#     -s  seconds between samples (default 60; "each minute")
#
# Writes in the output folder: soak.csv (one row per sample: elapsed seconds, UTC, RSS in KB
# and CPU % of one core of each process over the last interval, and ConsPerf's update rate
# over it), soak.png (memory and CPU over time, gnuplot), verdict.txt, and the tools' own
# summaries, statistics and JSON files. Exit status: 0 when both checks pass, 1 when one fails
# (or a tool failed), 2 on a usage error.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
minutes=30 rate=100000 items=10000 out="" every=60
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while getopts "d:r:i:o:s:h" o; do
    case $o in
    d) minutes=$OPTARG ;;
    r) rate=$OPTARG ;;
    i) items=$OPTARG ;;
    o) out=$OPTARG ;;
    s) every=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
for v in "$minutes" "$rate" "$items" "$every"; do
    [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || { echo "soak.sh: '$v' is not a positive number" >&2; exit 2; }
done
out=${out:-$top/build/soak/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

"$top/scripts/setup.sh"
"$top/scripts/build.sh" release >/dev/null
bin="$top/build/bin"
cp "$top/data/RDMFieldDictionary" "$top/data/enumtype.def" "$top/data/MsgData.xml" "$out/"
"$top/data/gen_items.sh" "$items" >"$out/items.xml"
cd "$out"
steady=$((minutes * 60))
hz=$(getconf CLK_TCK)
page_kb=$(($(getconf PAGESIZE) / 1024))

"$bin/ProvPerf" -p 0 -updateRate "$rate" -runTime $((steady + 600)) >ProvPerf.stdout 2>&1 &
prov=$!
cons=""
cleanup() {
    for p in $cons $prov; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
port=""
for _ in $(seq 100); do
    port=$(sed -n 's/^Server [0-9]* bound to port \([0-9]*\)\.$/\1/p' ProvPerf.stdout)
    [ -n "$port" ] && break
    kill -0 "$prov" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || { echo "soak.sh: ProvPerf did not start:" >&2; cat ProvPerf.stdout >&2; exit 1; }
"$bin/ConsPerf" -h 127.0.0.1 -p "$port" -itemFile items.xml -itemCount "$items" \
    -steadyStateTime "$steady" -expectedUpdateRate "$rate" >ConsPerf.stdout 2>&1 &
cons=$!
echo "soak: ProvPerf (pid $prov) -> ConsPerf (pid $cons), $rate updates/s, $items items," \
    "$minutes min; results in $out"

# CPU ticks (utime + stime) and RSS (KB) of a process: "<ticks> <rss_kb>", or "" when gone.
sample() {
    local f=/proc/$1/stat
    [ -r "$f" ] || return 0
    awk -v pk="$page_kb" '{ sub(/^.*\) /, ""); print $12 + $13, $22 * pk }' "$f" 2>/dev/null || true
}

# ConsPerf's mean "Update rate (msg/sec)" over the statistics rows after row $1 (0 when none).
cons_rate() {
    awk -F', ' -v skip="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Update rate (msg/sec)") c = i; next }
        NR - 1 > skip && c { s += $c; n++ } END { printf "%.1f %d", n ? s / n : 0, NR - 1 }' \
        ConsStats1.csv 2>/dev/null || echo "0 0"
}

echo "elapsed_s, utc, prov_rss_kb, prov_cpu_pct, cons_rss_kb, cons_cpu_pct, cons_update_rate" >soak.csv
start=$(date +%s.%N)
read -r pt0 _ <<<"$(sample $prov)"
read -r ct0 _ <<<"$(sample $cons)"
t_prev=$start rows=0 n=0
while kill -0 "$cons" 2>/dev/null; do
    n=$((n + 1))
    target=$(awk -v s="$start" -v k="$n" -v e="$every" 'BEGIN { printf "%.3f", s + k * e }')
    while kill -0 "$cons" 2>/dev/null; do
        now=$(date +%s.%N)
        left=$(awk -v t="$target" -v n="$now" 'BEGIN { d = t - n; printf "%.3f", (d > 1 ? 1 : d) }')
        awk -v l="$left" 'BEGIN { exit !(l <= 0) }' && break
        sleep "$left"
    done
    kill -0 "$cons" 2>/dev/null || break
    now=$(date +%s.%N)
    read -r pt prss <<<"$(sample $prov)"
    read -r ct crss <<<"$(sample $cons)"
    [ -n "${prss:-}" ] && [ -n "${crss:-}" ] || break
    read -r crate rows_now <<<"$(cons_rate "$rows")"
    rows=$rows_now
    awk -v t="$now" -v s="$start" -v tp="$t_prev" -v hz="$hz" -v pt="$pt" -v pt0="$pt0" \
        -v ct="$ct" -v ct0="$ct0" -v prss="$prss" -v crss="$crss" -v rate="$crate" \
        -v utc="$(date -u '+%Y-%m-%d %H:%M:%S')" 'BEGIN {
        w = t - tp
        printf "%.0f, %s, %d, %.2f, %d, %.2f, %.1f\n", t - s, utc, prss, 100 * (pt - pt0) / hz / w,
            crss, 100 * (ct - ct0) / hz / w, rate }' >>soak.csv
    tail -1 soak.csv | sed 's/^/soak: /'
    pt0=$pt ct0=$ct t_prev=$now
done
set +e
wait "$cons"
cons_rc=$?
kill -INT "$prov" 2>/dev/null
wait "$prov"
prov_rc=$?
set -e
trap - EXIT

# Verdict.
json_num() { # <file> <key> : the first number of "key" in the overall block
    awk -v k="\"$2\"" '$1 == k":" { gsub(/[,]/, "", $2); print $2; exit }' "$1" 2>/dev/null
}
sent=$(json_num ProvSummary.json achieved_update_rate)
recv=$(json_num ConsSummary.json achieved_update_rate)
{
    echo "soak: $rate updates/s, $items items, $minutes min steady state ($(date -u '+%F %T') UTC)"
    echo "exit status: ConsPerf $cons_rc, ProvPerf $prov_rc"
    awk -F', ' -v rate="$rate" -v sent="${sent:-0}" -v recv="${recv:-0}" -v crc="$cons_rc" -v prc="$prov_rc" '
    NR == 1 { next }
    { rows++; t[rows] = $1; pr[rows] = $3; pc[rows] = $4; cr[rows] = $5; cc[rows] = $6 }
    END {
        ok = 1
        if (rows < 2) { print "memory: too few samples (" rows ") to judge"; ok = 0 }
        else {
            # The baseline: the sample at the end of the first minute (or the first sample).
            b = 1; for (i = 1; i <= rows; i++) if (t[i] >= 60) { b = i; break }
            pmax = 0; cmax = 0
            for (i = b + 1; i <= rows; i++) {
                if (pr[i] - pr[b] > pmax) pmax = pr[i] - pr[b]
                if (cr[i] - cr[b] > cmax) cmax = cr[i] - cr[b]
            }
            for (i = 1; i <= rows; i++) { ps += pc[i]; cs += cc[i] }
            printf "ProvPerf RSS: %.2f MB at %ds, at most %.2f MB (+%d KB) later; CPU avg %.2f%%\n",
                pr[b] / 1024, t[b], (pr[b] + pmax) / 1024, pmax, ps / rows
            printf "ConsPerf RSS: %.2f MB at %ds, at most %.2f MB (+%d KB) later; CPU avg %.2f%%\n",
                cr[b] / 1024, t[b], (cr[b] + cmax) / 1024, cmax, cs / rows
            mem = pmax <= 1024 && cmax <= 1024
            printf "memory: %s (growth after the first minute at most 1024 KB)\n", mem ? "FLAT" : "GROWS"
            ok = ok && mem
        }
        es = (sent - rate) / rate * 100; er = (recv - rate) / rate * 100
        rok = sent != 0 && recv != 0 && es <= 0.1 && es >= -0.1 && er <= 0.1 && er >= -0.1
        printf "rate: ProvPerf sent %.1f/s (%+.3f%%), ConsPerf received %.1f/s (%+.3f%%): %s (within 0.1%%)\n",
            sent, es, recv, er, rok ? "OK" : "OFF"
        ok = ok && rok && crc == 0 && prc == 0
        print "verdict: " (ok ? "PASS" : "FAIL")
        exit !ok
    }' soak.csv
} | tee verdict.txt
status=${PIPESTATUS[0]}

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<EOF || echo "soak.sh: gnuplot failed; the figures are in soak.csv" >&2
set terminal pngcairo size 1100,700 noenhanced
set output "$out/soak.png"
set datafile separator ","
set multiplot layout 2,1 title "soak: $rate updates/s, $items items, $minutes min"
set xlabel "elapsed (min)"
set ylabel "RSS (MB)"
set grid
set key top left
plot "$out/soak.csv" every ::1 using (\$1/60):(\$3/1024) with linespoints title "ProvPerf RSS", \
     "" every ::1 using (\$1/60):(\$5/1024) with linespoints title "ConsPerf RSS"
set ylabel "CPU (% of one core)"
plot "$out/soak.csv" every ::1 using (\$1/60):4 with linespoints title "ProvPerf CPU", \
     "" every ::1 using (\$1/60):6 with linespoints title "ConsPerf CPU"
unset multiplot
EOF
    [ -f "$out/soak.png" ] && echo "soak: plot $out/soak.png"
fi
exit "$status"
