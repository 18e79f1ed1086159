#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs them, each starting from its kept
# corpus, then minimises what it grew back into the tree.
#
#   scripts/fuzz.sh [options] [target...]      every target when none is named
#     -t <secs>   time per target (default 60)
#     -n <runs>   stop each target after this many executions instead of after a time (with
#                 -t too: after whichever comes first)
#     -j <jobs>   targets run at once (default 1)
#     -N <nice>   niceness of the fuzzers (default 0; 19 uses only idle CPU)
#     -T <secs>   wall time one input may take before it counts as a hang (default 60; give
#                 more when the fuzzers run at a low priority on a busy machine, where a starved
#                 process otherwise reports false hangs)
#     -M          leave the kept corpus as it is (no merge back into the tree)
#     -l          list the targets and how many inputs each keeps
#
# Corpora: tests/fuzz/corpus/<target>/ is the kept corpus (minimised with -merge=1 after each
# run, so the next run starts where this one ended); tests/fuzz/seeds/<target>/ holds the
# hand-made seeds. New inputs of a run go to build-fuzz/work/<target>/ first. A crash leaves
# its input in build-fuzz/artifacts/<target>/ and the script's status is 1.
#
# At the end it prints, per target: executions and executions per second of this run, the
# coverage (libFuzzer's "cov:" edges and "ft:" features), the kept corpus (inputs and bytes),
# crashes, and the executions of every run so far (build-fuzz/fuzz-history.tsv).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=60 secs_given=0 runs="" jobs=1 niceness=0 hang=60 merge=1 list=0
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
while getopts "t:n:j:N:T:Mlh" o; do
    case $o in
    t) secs=$OPTARG secs_given=1 ;;
    n) runs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    N) niceness=$OPTARG ;;
    T) hang=$OPTARG ;;
    M) merge=0 ;;
    l) list=1 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
for v in "$secs" "$jobs" "$niceness" ${runs:+"$runs"}; do
    [[ $v =~ ^-?[0-9]+$ ]] || { echo "fuzz.sh: '$v' is not a number" >&2; exit 2; }
done

fz="$top/tests/fuzz"
all=$(cd "$fz" && ls fuzz_*.c | sed 's/\.c$//')
targets=${*:-$all}
for t in $targets; do
    grep -qx "$t" <<<"$all" || { echo "fuzz.sh: no target '$t' (-l lists them)" >&2; exit 2; }
done
if [ $list = 1 ]; then
    for t in $all; do
        n=$(find "$fz/corpus/$t" -type f 2>/dev/null | wc -l)
        echo "$t: $n kept inputs"
    done
    exit 0
fi

"$top/scripts/setup.sh"
echo "building the fuzz targets (build-fuzz) ..."
# scripts/build.sh fuzz's configuration, optimised (-O2 -g: ASan and UBSan work as well, and
# the targets run several times faster than at -O0); only the fuzz targets are built (clang).
cmake -S "$top" -B "$top/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRWFPERF_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang -DRWFPERF_SANITIZE=address,undefined >/dev/null
# shellcheck disable=SC2086
nice -n "$niceness" cmake --build "$top/build-fuzz" -j "$(nproc 2>/dev/null || echo 2)" \
    --target $targets >/dev/null
bindir="$top/build-fuzz/bin/fuzz"
out="$top/build-fuzz/runs"
history="$top/build-fuzz/fuzz-history.tsv"
mkdir -p "$out"

# Runs one target; its figures go to $out/<target>.tsv, its log to $out/<target>.log.
run_one() {
    local t=$1 work="$top/build-fuzz/work/$1" art="$top/build-fuzz/artifacts/$1/"
    local kept="$fz/corpus/$t" log="$out/$1.log"
    mkdir -p "$work" "$art" "$kept"
    local dirs=("$work" "$kept")
    [ -d "$fz/seeds/$t" ] && dirs+=("$fz/seeds/$t")
    local limit=(-max_total_time="$secs")
    [ -n "$runs" ] && limit=(-runs="$runs")
    [ -n "$runs" ] && [ $secs_given = 1 ] && limit+=(-max_total_time="$secs")
    local rc=0
    (cd "$top/build-fuzz" && nice -n "$niceness" "$bindir/$t" "${limit[@]}" -print_final_stats=1 \
        -artifact_prefix="$art" -timeout="$hang" "${dirs[@]}") >"$log" 2>&1 || rc=$?
    local execs cov ft speed
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    local crashes
    crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) | wc -l)
    if [ $rc -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes="?"; fi
    if [ $merge = 1 ] && [ $rc -eq 0 ]; then
        # Minimise the kept corpus, the seeds and this run's new inputs into a new kept corpus:
        # the smallest inputs that keep every coverage edge (-use_counters=0: hit counts do not
        # count), so that the tree keeps tens of KB per target, not hundreds.
        local new="$kept.new"
        rm -rf "$new" && mkdir -p "$new"
        if (cd "$top/build-fuzz" && nice -n "$niceness" "$bindir/$t" -merge=1 -use_counters=0 \
            -artifact_prefix="$art" "$new" "${dirs[@]:1}" "$work") >>"$log" 2>&1; then
            rm -rf "$kept" && mv "$new" "$kept" && rm -rf "$work"
        else
            rm -rf "$new"
        fi
    fi
    local files bytes
    files=$(find "$kept" -type f | wc -l)
    bytes=$(du -sb "$kept" | cut -f1)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-0}" "${speed:-0}" "${cov:-?}" \
        "${ft:-?}" "$files" "$bytes" "$crashes" >"$out/$t.tsv"
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${execs:-0}" "${cov:-?}" \
        "$crashes" >>"$history"
    echo "$t: done (${execs:-0} executions, cov ${cov:-?}, crashes $crashes)"
    return $rc
}

status=0
running=0
for t in $targets; do
    rm -f "$out/$t.tsv"
    if [ -n "$runs" ]; then what="$runs executions"; else what="$secs s"; fi
    [ -n "$runs" ] && [ $secs_given = 1 ] && what="$what or $secs s"

    echo "$t: running ($what) ..."
    run_one "$t" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
done
while [ $running -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done

echo
printf '%-18s %12s %8s %7s %8s %14s %8s %16s\n' target executions exec/s cov ft "kept corpus" \
    crashes "all runs' execs"
for t in $targets; do
    [ -f "$out/$t.tsv" ] || continue
    IFS=$'\t' read -r name execs speed cov ft files bytes crashes <"$out/$t.tsv"
    total=$(awk -F'\t' -v t="$t" '$2 == t { s += $3 } END { printf "%d", s }' "$history")
    printf '%-18s %12s %8s %7s %8s %14s %8s %16s\n' "$name" "$execs" "$speed" "$cov" "$ft" \
        "$files/$((bytes / 1024))K" "$crashes" "$total"
done
[ $status -eq 0 ] || echo "fuzz.sh: a target failed: see build-fuzz/runs/<target>.log and build-fuzz/artifacts/" >&2
exit $status
