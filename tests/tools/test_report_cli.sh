#!/usr/bin/env bash
# rwfperf-report as a command: a page written for a folder (default place, -o), the folders of
# a fleet's hosts (their host clock files read), exit status 2 with the file and line named and
# no page (nor temporary file) left for bad input (a folder with no results, a cut-off
# statistics file or histogram log, files of two runs given as one or mixed in one folder), and
# a page without charts (status 1) when gnuplot cannot be run.
set -uo pipefail
bin=${RWFPERF_BIN:?RWFPERF_BIN is not set}
report=$bin/rwfperf-report
work=$(mktemp -d "${TMPDIR:-/tmp}/test_report_cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# summary <folder> <host> <pid> <written UTC>: a ConsPerf JSON summary and statistics file.
summary() {
    mkdir -p "$1"
    cat >"$1/ConsSummary.json" <<EOF
{"tool": "ConsPerf", "version": "1.0.0", "git_revision": "0123456789ab",
 "host": {"name": "$2", "kernel": "Linux 6", "cpu_model": "cpu", "cores": 2}, "pid": $3,
 "written_utc": "$4", "inputs": {"statsFile": "ConsStats", "writeStatsInterval": 1},
 "results": {"overall": {"item_count": 10, "refreshes_received": 10, "steady_update_rate": 100},
             "passed": true}}
EOF
    printf 'UTC, Latency updates, Images, Update rate (msg/sec), CPU usage (%%), Memory (MB)\n' >"$1/ConsStats1.csv"
    for s in 1 2 3; do
        printf '%s, 0, 0, 100, 1.0, 5.0\n' "$(date -u -d "$4 UTC - $((4 - s)) seconds" '+%Y-%m-%d %H:%M:%S')" >>"$1/ConsStats1.csv"
    done
}

# expect <status> <text in stderr or stdout> <args...>
expect() {
    local want=$1 text=$2 rc
    shift 2
    "$report" "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "rwfperf-report $* exited $rc, expected $want: $(cat err.txt)"; fi
    if grep -qF -- "$text" out.txt err.txt; then ok; else bad "rwfperf-report $*: no '$text' in: $(cat out.txt err.txt)"; fi
}

# A run: the page in the folder, or where -o says.
summary run h1 100 "2024-03-01 10:00:05"
expect 0 "wrote run/report.html (passed)" run
[ -s run/report.html ] && ok || bad "run/report.html not written"
grep -q 'data-verdict="passed"' run/report.html && ok || bad "no verdict in the page"
expect 0 "wrote $work/page.html" -o "$work/page.html" run
[ -s page.html ] && ok || bad "page.html not written"

# A fleet: a folder of per-host folders gives a table per host.
summary fleet/r1/hostA hostA 200 "2024-03-01 10:00:05"
summary fleet/r1/hostB hostB 300 "2024-03-01 10:00:06"
expect 0 "wrote fleet/r1/report.html" fleet/r1
grep -q '<h3>Per host</h3>' fleet/r1/report.html && ok || bad "no per-host table for a fleet"
grep -q 'data-figure="refreshes_received" data-host="hostB"' fleet/r1/report.html && ok ||
    bad "no hostB row in the per-host table"
# Its host clock files (the fleet playbook's host_clock.json) are read, not left out; one
# without a host is bad input.
printf '{"host_clock": {"host": "hostA", "sync": "chrony", "synchronised": true, "offset_ns": 12500}}\n' \
    >fleet/r1/hostA/host_clock.json
expect 0 "wrote fleet/r1/report.html" fleet/r1
grep -q 'left out: fleet/r1/hostA/host_clock.json' fleet/r1/report.html && bad "a host clock file was left out" || ok
grep -q '<li>host clock: fleet/r1/hostA/host_clock.json</li>' fleet/r1/report.html && ok ||
    bad "the host clock file is not among the files read"
mkdir -p fleet/r2 && cp -r fleet/r1/hostA fleet/r1/hostB fleet/r2/
printf '{"host_clock": {"sync": "chrony"}}\n' >fleet/r2/hostB/host_clock.json
expect 2 'fleet/r2/hostB/host_clock.json: a host clock file without "host"' fleet/r2

# Bad input: exit 2, the file and line named, no page and no temporary file left.
summary cut h1 400 "2024-03-01 10:00:05"
printf '2024-03-01 10:00:06, 0, 0, 1' >>cut/ConsStats1.csv
expect 2 "cut/ConsStats1.csv:5: the last line has no line end" cut
[ ! -e cut/report.html ] && ok || bad "a page was written for bad input"
[ -z "$(ls -A cut | grep -v -e ConsSummary.json -e ConsStats1.csv)" ] && ok ||
    bad "files left in cut/: $(ls -A cut)"
# A histogram log cut off in its last interval line.
summary cutlog h1 410 "2024-03-01 10:00:05"
{
    printf '#[rwfperf histogram log: ConsPerf 1.0.0 0123456789ab]\n#[Host: h1, pid 410, thread 1]\n'
    printf '#[Values: nanoseconds, Interval_Max in milliseconds]\n#[Histogram log format version 1.3]\n'
    printf '#[StartTime: 1709287202.000 (seconds since epoch), Fri Mar 01 10:00:02 UTC 2024]\n'
    printf '#[BaseTime: 1709287202.000 (seconds since epoch)]\n'
    printf '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
    printf 'Tag=update,0.000,1.000,0.500,HISTFAAAA'
} >cutlog/hist1.hlog
expect 2 "cutlog/hist1.hlog:8: no line end (the file was cut off)" cutlog
[ ! -e cutlog/report.html ] && ok || bad "a page was written for a cut-off log"
mkdir -p empty
expect 2 "empty: no results here" empty
expect 2 "nothere: No such file or directory" nothere
summary mixed/a h1 500 "2024-03-01 10:00:05"
summary mixed/b h1 501 "2024-03-01 11:00:05"
expect 2 "mixed/b/ConsStats1.csv:2: ConsPerf 501 ran from 2024-03-01 11:00:01 to 11:00:05 UTC, which does not meet" mixed/a mixed/b
grep -qF "files of two different runs" err.txt && ok || bad "mixed runs: not said: $(cat err.txt)"
[ ! -e mixed/a/report.html ] && [ ! -e mixed/b/report.html ] && ok || bad "a page was written for mixed runs"
# One folder holding another run's statistics file: its first row after the summary's time.
summary one h1 600 "2024-03-01 10:00:05"
summary other h1 601 "2024-03-01 12:00:05"
cp other/ConsStats1.csv one/ConsStats1.csv
expect 2 "one/ConsStats1.csv:4: a row of 2024-03-01 12:00:04 UTC, after its summary ConsSummary.json" one
[ ! -e one/report.html ] && ok || bad "a page was written for a folder of two runs"
expect 2 "unknown option" -x run
expect 2 "no folder given"
expect 0 "Usage: rwfperf-report" -h

# No gnuplot: the page without charts, status 1, said on stderr and on the page.
mkdir -p nognuplot
for t in sh bash cat rm mkdir; do ln -sf "$(command -v $t)" nognuplot/$t; done
PATH=$work/nognuplot "$report" run >out.txt 2>err.txt
rc=$?
[ "$rc" = 1 ] && ok || bad "without gnuplot: exit $rc, expected 1"
grep -q "gnuplot is not installed" err.txt && ok || bad "without gnuplot: stderr says $(cat err.txt)"
grep -q "Chart not drawn: gnuplot is not installed" run/report.html && ok ||
    bad "without gnuplot: the page does not say why it has no charts"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
