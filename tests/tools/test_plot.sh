#!/usr/bin/env bash
# scripts/plot.sh on small hand-made CSV files: ours (with the percentile columns), the
# originals' (without), several threads at once, latency logs of both forms; every image it
# reports must exist and be a PNG. Then the errors: usage, missing, empty and malformed files
# give exit status 2 and a message naming the file (and line).
set -uo pipefail
src=${RWFPERF_SOURCE_DIR:?RWFPERF_SOURCE_DIR is not set}
plot="$src/scripts/plot.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/test_plot.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

# A file is a PNG when it starts with the signature and an IHDR chunk of non-zero size.
is_png() {
    local b
    b=$(od -An -v -tx1 -N24 "$1")
    b=${b//[$' \n']/}
    [ "${b:0:32}" = "89504e470d0a1a0a0000000d49484452" ] || return 1
    [ $((16#${b:32:8})) -gt 0 ] && [ $((16#${b:40:8})) -gt 0 ] # width, height
}

# expect_pngs <out dir> <names...>: each exists and is a PNG, and nothing else was written.
expect_pngs() {
    local dir=$1 n
    shift
    for n in "$@"; do
        if [ -f "$dir/$n" ] && is_png "$dir/$n"; then ok; else bad "$dir/$n is missing or not a PNG"; fi
    done
    local have want
    have=$(cd "$dir" && ls | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    if [ "$have" = "$want" ]; then ok; else bad "$dir holds [$have], expected [$want]"; fi
}

# expect_fail <status> <text in stderr> <plot.sh args...>
expect_fail() {
    local want=$1 text=$2 rc
    shift 2
    "$plot" "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "plot.sh $* exited $rc, expected $want"; fi
    if grep -qF -- "$text" err.txt; then ok; else bad "plot.sh $*: stderr lacks '$text': $(cat err.txt)"; fi
}

cons_hdr="UTC, Latency updates, Latency avg (usec), Latency std dev (usec), Latency max (usec), Latency min (usec), Images, Update rate (msg/sec), Posting Latency updates, Posting Latency avg (usec), Posting Latency std dev (usec), Posting Latency max (usec), Posting Latency min (usec), GenMsgs sent, GenMsgs received, GenMsg Latencies sent, GenMsg latencies received, GenMsg Latency avg (usec), GenMsg Latency std dev (usec), GenMsg Latency max (usec), GenMsg Latency min (usec), CPU usage (%), Memory (MB)"
ours_extra=", Latency p50 (usec), Latency p90 (usec), Latency p99 (usec), Latency p99.9 (usec), Latency p99.99 (usec), Sched Latency avg (usec), Sched Latency p99 (usec), Sched Latency max (usec)"

# Ours: two threads, with percentile columns; posts in thread 1 only.
{
    echo "$cons_hdr$ours_extra"
    echo "2024-03-01 10:00:01, 100, 150.5, 20.1, 480.0, 90.0, 5000, 1000, 10, 200.0, 30.0, 300.0, 150.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 12.50, 40.20, 140.0, 180.0, 300.0, 470.0, 480.0, 160.0, 320.0, 500.0"
    echo "2024-03-01 10:00:02, 100, 140.2, 18.3, 350.0, 85.0, 0, 1000, 10, 210.0, 28.0, 320.0, 160.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 10.25, 40.30, 135.0, 170.0, 280.0, 340.0, 350.0, 150.0, 300.0, 360.0"
    echo "2024-03-01 10:00:03, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.50, 40.30, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0"
} >ConsStats1.csv
{
    echo "$cons_hdr$ours_extra"
    echo "2024-03-01 10:00:01, 90, 155.0, 21.0, 490.0, 95.0, 5000, 990, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 12.50, 40.20, 145.0, 185.0, 310.0, 480.0, 490.0, 165.0, 330.0, 510.0"
    # 95 samples: p99, p99.9 and p99.99 (and the sched p99) are left blank, as the tools write it
    echo "2024-03-01 10:00:02, 95, 145.0, 19.0, 360.0, 88.0, 0, 1010, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 10.25, 40.30, 138.0, 172.0, , , , 152.0, , 370.0"
} >ConsStats2.csv
# The original's: no percentile columns, a 5 s interval.
{
    echo "$cons_hdr"
    echo "2024-03-01 10:00:05, 46, 157.7, 134.6, 654.0, 91.0, 5, 9, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 7.83, 58.34"
    echo "2024-03-01 10:00:10, 50, 140.0, 100.0, 600.0, 80.0, 0, 10, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 6.00, 58.40"
} >orig_consstats1.csv
cat >ProvStats1.csv <<'CSV'
UTC, Requests received, Images sent, Updates sent, Posts reflected, GenMsgs sent, GenMsgs received, GenMSg Latencies sent, GenMsg Latencies received, GenMsg Latency avg (usec), GenMsg Latency std dev (usec), GenMsg Latency max (usec), GenMsg Latency min (usec), CPU usage (%), Memory (MB)
2024-03-01 10:00:05, 10000, 10000, 450000, 0, 500, 480, 50, 48, 120.5, 10.0, 200.0, 90.0, 35.20, 80.10
2024-03-01 10:00:10, 0, 0, 500000, 0, 500, 500, 50, 50, 118.0, 9.0, 190.0, 92.0, 36.00, 80.20
CSV
cat >TransportStats1_4242.csv <<'CSV'
UTC, Msgs sent, Bytes sent, Msgs received, Bytes received, Latency msgs received, Latency avg (usec), Latency std dev (usec), Latency max (usec), Latency min (usec), CPU usage (%), Memory (MB)
2024-03-01 10:00:01, 500000, 39500000, 500000, 38000000, 50, 14.107, 2.554, 19.491, 9.227, 0.00, 21.99
CSV
cat >latencyLog1.csv <<'CSV'
Message type, Send time, Receive time, Latency (usec)
Upd, 353725032296, 353725032521, 225
Upd, 353725032300, 353725032420, 120
Upd, 353725032310, 353725032400, 90
Upd, 353725032320, 353725033320, 1000
Upd, 353725032330, 353725032329, -1
Pst, 353724892323, 353724894740, 2417
Pst, 353724892330, 353724892630, 300
CSV
cat >TransportLat1_4242.csv <<'CSV'
Send Time, Receive Time, Latency(nsec)
1000, 15000, 14000
2000, 12000, 10000
3000, 25000, 22000
CSV

# Ours, two threads overlaid, plus a latency log.
"$plot" -o out1 ConsStats1.csv ConsStats2.csv latencyLog1.csv >out.txt 2>err.txt
rc=$?
if [ $rc = 0 ]; then ok; else bad "ours: exit $rc: $(cat err.txt)"; fi
expect_pngs out1 rate.png latency.png posting_latency.png cpu_mem.png \
    latencyLog1_histogram.png latencyLog1_percentiles.png
if [ "$(grep -c '^wrote ' out.txt)" = 6 ]; then ok; else bad "ours: expected 6 'wrote' lines: $(cat out.txt)"; fi

# The originals' files: one statistics file gets its name as prefix; what is there is plotted.
"$plot" -o out2 orig_consstats1.csv >out.txt 2>err.txt
rc=$?
if [ $rc = 0 ]; then ok; else bad "original: exit $rc: $(cat err.txt)"; fi
expect_pngs out2 orig_consstats1_rate.png orig_consstats1_latency.png orig_consstats1_cpu_mem.png

"$plot" -o out3 -p run_ -t "nightly" ProvStats1.csv TransportStats1_4242.csv TransportLat1_4242.csv \
    >out.txt 2>err.txt
rc=$?
if [ $rc = 0 ]; then ok; else bad "provider/transport: exit $rc: $(cat err.txt)"; fi
expect_pngs out3 run_rate.png run_latency.png run_genmsg_latency.png run_cpu_mem.png \
    TransportLat1_4242_histogram.png TransportLat1_4242_percentiles.png

# A percentile table (rwfperf-merge's): one image with a line per series, named by -f.
cat >merged_percentiles.csv <<'CSV'
Series, Percentile, Latency (usec)
combined update, 0, 20.5
combined update, 50, 35.2
combined update, 99, 420.1
combined update, 99.99, 490.0
vm ConsPerf pid 1 update, 0, 20.5
vm ConsPerf pid 1 update, 99.9, 50.0
CSV
"$plot" -f out5/merged.png merged_percentiles.csv >out.txt 2>err.txt
rc=$?
if [ $rc = 0 ]; then ok; else bad "percentile table: exit $rc: $(cat err.txt)"; fi
expect_pngs out5 merged.png
"$plot" -o out6 merged_percentiles.csv >out.txt 2>err.txt
expect_pngs out6 merged_percentiles.png
printf 'Series, Percentile, Latency (usec)\ncombined update, 100, 3\n' >badpct.csv
expect_fail 2 "badpct.csv:2: percentile \"100\" is not a number from 0 to below 100" badpct.csv
cp merged_percentiles.csv other_percentiles.csv
expect_fail 2 "names the image of one percentile table; 2 were given" -f x.png merged_percentiles.csv other_percentiles.csv

# Errors.
expect_fail 2 "Usage" # no file
expect_fail 2 "unknown option -z" -z ConsStats1.csv
expect_fail 2 "nothere.csv: no such file" nothere.csv
: >empty.csv
expect_fail 2 "empty.csv: the file is empty" empty.csv
echo "hello, world" >other.csv
expect_fail 2 "other.csv:1: not a statistics CSV" other.csv
{ echo "$cons_hdr"; echo "2024-03-01 10:00:05, 46, 157.7"; } >short.csv
expect_fail 2 "short.csv:2: 3 values, but the header has 23 columns" short.csv
{ echo "$cons_hdr"; echo "yesterday, 46, 157.7, 134.6, 654.0, 91.0, 5, 9, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 7.83, 58.34"; } >badtime.csv
expect_fail 2 "badtime.csv:2: \"yesterday\" is not a UTC time" badtime.csv
{ echo "$cons_hdr"; echo "2024-03-01 10:00:05, 46, abc, 134.6, 654.0, 91.0, 5, 9, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 7.83, 58.34"; } >badnum.csv
expect_fail 2 "badnum.csv:2: column \"Latency avg (usec)\": \"abc\" is not a number" badnum.csv
echo "$cons_hdr" >norows.csv
expect_fail 2 "norows.csv:1: no rows after the header" norows.csv
printf 'Message type, Send time, Receive time, Latency (usec)\nUpd, 1, 2\n' >badlat.csv
expect_fail 2 "badlat.csv:2: 3 values, but a latency row has 4" badlat.csv
expect_fail 2 "-i 0: expected a positive number" -i 0 ConsStats1.csv
# Nothing is written for a run that fails on its second file.
expect_fail 2 "other.csv:1:" -o out4 ConsStats1.csv other.csv
if [ ! -e out4 ] || [ -z "$(ls out4)" ]; then ok; else bad "out4 holds images after an error"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
