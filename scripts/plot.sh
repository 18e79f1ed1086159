#!/usr/bin/env bash
# Plots the statistics and latency CSV files of ConsPerf, ProvPerf, NIProvPerf and TransportPerf
# (ours or the originals) as PNG images, with gnuplot.
#
# Usage: scripts/plot.sh [-o DIR] [-p PREFIX] [-i SECS] [-t TITLE] FILE.csv [FILE.csv ...]
#
# Each file is recognised by its header:
#   statistics CSV  (ConsStats1.csv, ProvStats1.csv, NIProvStats1.csv, TransportStats1_<pid>.csv)
#       <prefix>rate.png             message rates over time (per-interval counts divided by the
#                                    interval; "Update rate" columns as they are)
#       <prefix>latency.png          latency avg / p50 / p99 / p99.9 / max over time, log scale
#       <prefix>posting_latency.png  the same for posts, and genmsg_latency.png for generic
#                                    messages, when the file has such samples
#       <prefix>cpu_mem.png          CPU % and resident memory over time
#     Several statistics files are drawn on the same plots (one line per file and column), e.g.
#     the threads of one run, or a run of ours against a run of the original. The originals'
#     files lack our percentile columns: what they have is plotted.
#   latency CSV     (-latencyFile: "Message type, Send time, ..." or TransportPerf's
#                    "Send Time, Receive Time, Latency(nsec)")
#       <name>_histogram.png         latency distribution, log-spaced bins, one line per
#                                    message type (Upd, Pst, Gen)
#       <name>_percentiles.png       latency by percentile (0% .. 99.99% .. max) on a log axis
#   percentile table ("Series, Percentile, Latency (usec)": rwfperf-merge's
#                     <prefix>_percentiles.csv, rows "<series>, <% of samples below>, <latency>")
#       <name>.png (or -f FILE)      latency by percentile, one line per series
#
# Options:
#   -o DIR     folder for the images (created when missing; default: the current folder)
#   -p PREFIX  prefix of the statistics images (default: "<file name>_" for one statistics
#              file, none for several)
#   -i SECS    statistics interval in seconds (default: read from the UTC column, 5 when the
#              file has a single row)
#   -t TITLE   text put at the start of every plot title
#   -f FILE    image file of a percentile table (one table only; default DIR/<name>.png)
#   -h         this text
#
# Exit status: 0 when every image was written, 1 when gnuplot failed or is missing, 2 for a
# usage error or a file that is missing, empty or not one of the CSV files above (the message
# names the file and line).
set -euo pipefail

prog=plot.sh
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}
fail() { # fail <status> <message>
    echo "$prog: $2" >&2
    exit "$1"
}

out_dir=. prefix= prefix_set=0 interval= title= pct_image=
while getopts ":o:p:i:t:f:h" opt; do
    case "$opt" in
    o) out_dir=$OPTARG ;;
    p) prefix=$OPTARG prefix_set=1 ;;
    i) interval=$OPTARG ;;
    t) title="$OPTARG: " ;;
    f) pct_image=$OPTARG ;;
    h)
        usage
        exit 0
        ;;
    :) fail 2 "option -$OPTARG needs an argument (-h for usage)" ;;
    *) fail 2 "unknown option -$OPTARG (-h for usage)" ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || {
    usage >&2
    exit 2
}
if [ -n "$interval" ] && ! [[ "$interval" =~ ^[0-9]+(\.[0-9]+)?$ && "$interval" != 0 ]]; then
    fail 2 "-i $interval: expected a positive number of seconds"
fi
command -v gnuplot >/dev/null 2>&1 ||
    fail 1 "gnuplot is not installed (scripts/setup.sh installs gnuplot-nox)"
mkdir -p "$out_dir" || fail 2 "cannot create the folder '$out_dir'"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------------------------
# Reading the files
# ---------------------------------------------------------------------------------------------

# A file's kind from its first line, in $kind: "stats", "latency", or "" when it is neither.
file_kind() {
    local first=
    IFS= read -r first <"$1" || true
    case "${first%$'\r'}" in
    UTC,*) kind=stats ;;
    "Message type, Send time, Receive time, Latency"* | "Send Time, Receive Time, Latency"*)
        kind=latency
        ;;
    "Message type, Send Time, Receive Time, Latency"*) kind=latency ;;
    "Series, Percentile, Latency (usec)") kind=pct ;;
    *) kind= ;;
    esac
}

# stats_read <file> <n>: checks a statistics CSV and writes
#   $tmp/s<n>.dat   one row per interval: elapsed seconds, then the file's columns 2..N
#   $tmp/s<n>.cols  one line per plotted column: group <TAB> data column <TAB> scale <TAB> name
# Groups: rate, lat:<kind>, cpu, mem. Exits 2 with "file:line: what" on malformed input.
stats_read() {
    TZ=UTC awk -v file="$1" -v dat="$tmp/s$2.dat" -v cols="$tmp/s$2.cols" \
        -v interval="$interval" '
    function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    function numeric(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ || tolower(s) ~ /^-?(nan|inf)$/ }
    NR == 1 {
        n = split($0, h, ",")
        for (i = 1; i <= n; i++) h[i] = trim(h[i])
        if (h[1] != "UTC") bad("not a statistics CSV (the first column is not UTC)")
        if (n < 2) bad("a header with no column after UTC")
        next
    }
    /^[ \t\r]*$/ { next }
    {
        m = split($0, f, ",")
        if (m != n) bad(sprintf("%d values, but the header has %d columns", m, n))
        utc = trim(f[1])
        if (utc !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/)
            bad(sprintf("\"%s\" is not a UTC time (YYYY-MM-DD HH:MM:SS)", utc))
        gsub(/[-:]/, " ", utc)
        t = mktime(utc)
        if (t < 0) bad(sprintf("\"%s\" is not a valid time", trim(f[1])))
        rows++
        time[rows] = t
        line[rows] = ""
        for (i = 2; i <= n; i++) {
            v = trim(f[i])
            # A blank cell is a figure the tool left out (a percentile on too few samples).
            if (v == "") v = "nan"
            if (!numeric(v)) bad(sprintf("column \"%s\": \"%s\" is not a number", h[i], v))
            if (tolower(v) ~ /nan|inf/) v = "nan"
            line[rows] = line[rows] " " v
            if (v + 0 != 0) nonzero[i] = 1
        }
    }
    END {
        if (failed) exit 2
        if (rows == 0) { NR = 1; bad("no rows after the header (the run wrote no interval)") }
        # The interval: as given, else the most common step between rows.
        iv = interval + 0
        if (iv <= 0) {
            for (r = 2; r <= rows; r++) { d = time[r] - time[r - 1]; if (d > 0) steps[d]++ }
            best = 0
            for (d in steps) if (steps[d] > best || (steps[d] == best && d + 0 < iv)) { best = steps[d]; iv = d + 0 }
            if (iv <= 0) iv = 5
        }
        # Rows end at their UTC stamp; each covers the interval before it.
        for (r = 1; r <= rows; r++) printf "%g%s\n", time[r] - time[1] + iv, line[r] > dat
        for (i = 2; i <= n; i++) {
            name = h[i]; col = i; lname = tolower(name)
            if (name ~ /^CPU usage/) { printf "cpu\t%d\t1\t%s\n", col, name > cols; continue }
            if (name ~ /^Memory/) { printf "mem\t%d\t1\t%s\n", col, name > cols; continue }
            if (!nonzero[i]) continue
            if (lname ~ /rate/) { printf "rate\t%d\t1\t%s\n", col, name > cols; continue }
            if (name ~ /^(Images|Images sent|Updates sent|Requests received|Posts reflected|Msgs sent|Msgs received|GenMsgs sent|GenMsgs received)$/) {
                printf "rate\t%d\t%.10g\t%s/s\n", col, 1 / iv, name > cols
                continue
            }
            if (name ~ / (avg|p50|p99|p99\.9|max) \(usec\)$/ && name !~ /^Sched /) {
                kind = name; sub(/ (avg|p50|p99|p99\.9|max) \(usec\)$/, "", kind)
                stat = name; sub(/ \(usec\)$/, "", stat); sub(/.* /, "", stat)
                lat[kind, stat] = col
                if (!(kind in kinds)) { kinds[kind] = 1; korder[++nk] = kind }
            }
        }
        # Latency lines from the lowest figure to the highest.
        split("avg p50 p99 p99.9 max", order, " ")
        for (k = 1; k <= nk; k++)
            for (s = 1; s <= 5; s++)
                if ((korder[k], order[s]) in lat)
                    printf "lat:%s\t%d\t1\t%s %s (usec)\n", korder[k], lat[korder[k], order[s]], korder[k], order[s] > cols
    }' "$1" || exit 2
}

# latency_read <file> <n>: checks a latency CSV and writes, per message type T found,
#   $tmp/l<n>.<T>.raw   latencies in microseconds, one per line, sorted
#   $tmp/l<n>.types     the types in order of appearance ("all" for TransportPerf's files)
latency_read() {
    awk -v file="$1" -v base="$tmp/l$2" '
    function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    NR == 1 { typed = $0 ~ /^Message type/; nsec = $0 ~ /nsec/; want = typed ? 4 : 3; next }
    /^[ \t\r]*$/ { next }
    {
        m = split($0, f, ",")
        if (m != want) bad(sprintf("%d values, but a latency row has %d", m, want))
        type = typed ? trim(f[1]) : "all"
        if (type !~ /^[A-Za-z]+$/) bad(sprintf("\"%s\" is not a message type", type))
        v = trim(f[want])
        if (v !~ /^-?[0-9]+(\.[0-9]+)?$/) bad(sprintf("latency \"%s\" is not a number", v))
        if (!(type in seen)) { seen[type] = 1; printf "%s\n", type > (base ".types") }
        printf "%.6g\n", nsec ? v / 1000 : v > (base "." type ".unsorted")
        rows++
    }
    END {
        if (failed) exit 2
        if (rows == 0) { NR = 1; bad("no rows after the header") }
    }' "$1" || exit 2
    local t
    while read -r t; do
        sort -g "$tmp/l$2.$t.unsorted" >"$tmp/l$2.$t.raw"
    done <"$tmp/l$2.types"
}

# pct_read <file> <n>: checks a percentile table and writes, per series k (in order),
#   $tmp/p<n>.<k>.dat   x = 1 / (1 - percent/100) (so 90% is at 10, 99% at 100 ...), latency
#   $tmp/p<n>.names     the series names, one per line
pct_read() {
    awk -v file="$1" -v base="$tmp/p$2" '
    function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    NR == 1 { next }
    /^[ \t\r]*$/ { next }
    {
        m = split($0, f, ",")
        if (m != 3) bad(sprintf("%d values, but a percentile row has 3", m))
        name = trim(f[1]); p = trim(f[2]); v = trim(f[3])
        if (name == "") bad("a row without a series name")
        if (p !~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ || p + 0 >= 100)
            bad(sprintf("percentile \"%s\" is not a number from 0 to below 100", p))
        if (v !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) bad(sprintf("latency \"%s\" is not a number", v))
        if (!(name in idx)) { idx[name] = ++n; printf "%s\n", name > (base ".names") }
        if (v + 0 > 0) printf "%.10g %.6g\n", 1 / (1 - p / 100), v > (base "." idx[name] ".dat")
        rows++
    }
    END {
        if (failed) exit 2
        if (rows == 0) { NR = 1; bad("no rows after the header") }
    }' "$1" || exit 2
}

# pct_plot <n> <label>: one image with a line per series of percentile table n.
pct_plot() {
    local n=$1 label=$2 k=0 name plots=() q_file q_name png
    while IFS= read -r name; do
        k=$((k + 1))
        [ -s "$tmp/p$n.$k.dat" ] || continue
        gq q_file "$tmp/p$n.$k.dat"
        gq q_name "$name"
        plots+=("$q_file using 1:2 with lines lw 2 title $q_name")
    done <"$tmp/p$n.names"
    [ ${#plots[@]} -gt 0 ] || return 0
    png=${pct_image:-$out_dir/$label.png}
    mkdir -p "$(dirname "$png")" || fail 2 "cannot create the folder of '$png'"
    gp_begin "$png" "latency by percentile ($label)"
    cat >>"$gp" <<'EOF'
set xlabel "percentile"
set ylabel "latency (usec, log scale)"
set logscale xy
set xrange [1:*]
set xtics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000, "99.9999%%" 1000000)
EOF
    gp_plot "${plots[@]}"
}

# ---------------------------------------------------------------------------------------------
# Plots: every image is one block of $gp, a single gnuplot script run at the end
# ---------------------------------------------------------------------------------------------

gp="$tmp/plots.gp"
pngs=()
printf '%s\n' 'set terminal pngcairo size 1200,700 enhanced font "sans,10"' >"$gp"

# gq VAR STRING: VAR = STRING as a gnuplot double-quoted literal.
gq() {
    local s=${2//\\/\\\\}
    printf -v "$1" '"%s"' "${s//\"/\\\"}"
}

# Starts the block of image $1 titled $2 (gnuplot's settings reset, then ours).
gp_begin() {
    local q_png q_title
    gq q_png "$1"
    gq q_title "$title$2"
    pngs+=("$1")
    cat >>"$gp" <<EOF
reset
set output $q_png
set title $q_title noenhanced
set grid
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 4 noenhanced
set bmargin at screen 0.17
set datafile missing "nan"
EOF
}

# Ends a block with "plot a, b, ..." for the plot clauses given.
gp_plot() {
    local sep="plot " c
    for c in "$@"; do
        printf '%s%s' "$sep" "$c" >>"$gp"
        sep=$', \\\n     '
    done
    printf '\n' >>"$gp"
}

# stats_plot <image> <ylabel> <logscale 0|1> <group>: one line per (file, column) of the group,
# from every statistics file read.
stats_plot() {
    local png=$1 ylabel=$2 logy=$3 group=$4 plots=() i g col scale name q_dat q_name y
    for ((i = 0; i < ${#stats_files[@]}; i++)); do
        gq q_dat "$tmp/s$i.dat"
        while IFS=$'\t' read -r g col scale name; do
            [ "$g" = "$group" ] || continue
            if [ ${#stats_files[@]} -gt 1 ]; then name="${stats_labels[$i]}: $name"; fi
            gq q_name "$name"
            y="\$$col * $scale"
            if [ "$logy" = 1 ]; then y="\$$col > 0 ? \$$col * $scale : 1/0"; fi
            plots+=("$q_dat using 1:($y) with linespoints title $q_name")
        done <"$tmp/s$i.cols"
    done
    [ ${#plots[@]} -gt 0 ] || return 0
    local q_ylabel
    gq q_ylabel "$ylabel"
    gp_begin "$png" "$ylabel over time ($stats_names)"
    cat >>"$gp" <<EOF
set xlabel "seconds from the start"
set ylabel $q_ylabel noenhanced
set pointsize 0.6
EOF
    if [ "$logy" = 1 ]; then echo "set logscale y" >>"$gp"; else echo "set yrange [0:*]" >>"$gp"; fi
    gp_plot "${plots[@]}"
}

# The CPU and memory plot: CPU on the left axis, memory on the right.
stats_plot_res() {
    local png=$1 plots=() i g col scale name q_dat q_name axis
    for ((i = 0; i < ${#stats_files[@]}; i++)); do
        gq q_dat "$tmp/s$i.dat"
        while IFS=$'\t' read -r g col scale name; do
            case "$g" in
            cpu) axis=x1y1 ;;
            mem) axis=x1y2 ;;
            *) continue ;;
            esac
            if [ ${#stats_files[@]} -gt 1 ]; then name="${stats_labels[$i]}: $name"; fi
            gq q_name "$name"
            plots+=("$q_dat using 1:$col axes $axis with linespoints title $q_name")
        done <"$tmp/s$i.cols"
    done
    [ ${#plots[@]} -gt 0 ] || return 0
    gp_begin "$png" "CPU and memory over time ($stats_names)"
    cat >>"$gp" <<'EOF'
set xlabel "seconds from the start"
set ylabel "CPU usage (%)"
set y2label "resident memory (MB)"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set pointsize 0.6
EOF
    gp_plot "${plots[@]}"
}

# latency_plots <n> <label>: the histogram and the percentile curve of latency file n.
latency_plots() {
    local n=$1 label=$2 t raw hist=() pct=() q_file q_name
    local nonpos count p50 p99 p999 p9999 max name note
    while read -r t; do
        raw="$tmp/l$n.$t.raw"
        # Log-spaced bins, 20 per decade, from the smallest positive sample to the largest;
        # samples <= 0 (unsynchronised clocks) are counted in the title, not drawn.
        # Percentile curve: the i-th smallest of n samples is drawn at x = 1 / (1 - (i-1)/n),
        # so 90% is at 10, 99% at 100 ...; about 200 points per decade, and the max.
        awk -v hist="$tmp/l$n.$t.hist" -v pct="$tmp/l$n.$t.pct" -v info="$tmp/l$n.$t.info" '
            function floor(x) { return x < int(x) ? int(x) - 1 : int(x) }
            function rank(p,  r) { r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1; if (r > NR) r = NR; return v[r] }
            { v[NR] = $1 }
            $1 <= 0 { nonpos++; next }
            { b = floor(log($1) / log(10) * 20 + 1e-9); c[b]++
              if (lo == "" || b < lo) lo = b; if (hi == "" || b > hi) hi = b }
            END {
                if (hi != "") {
                    printf "%.6g 0\n", 10 ^ (lo / 20) > hist
                    for (b = lo; b <= hi; b++) printf "%.6g %d\n", 10 ^ (b / 20), c[b] + 0 > hist
                    printf "%.6g 0\n", 10 ^ ((hi + 1) / 20) > hist
                }
                next_x = 1
                for (i = 1; i <= NR; i++) {
                    x = 1 / (1 - (i - 1) / NR)
                    if (x >= next_x || i == NR) { if (v[i] > 0) printf "%.8g %.6g\n", x, v[i] > pct; next_x = x * 1.0116 }
                }
                printf "%d %d %.6g %.6g %.6g %.6g %.6g\n", nonpos + 0, NR, rank(50), rank(99), rank(99.9), rank(99.99), v[NR] > info
            }' "$raw"
        read -r nonpos count p50 p99 p999 p9999 max <"$tmp/l$n.$t.info"
        name=$t note=
        if [ "$t" = all ]; then name="latency"; fi
        if [ "$nonpos" -gt 0 ]; then note=", $nonpos <= 0 not drawn"; fi
        if [ -s "$tmp/l$n.$t.hist" ]; then
            gq q_file "$tmp/l$n.$t.hist"
            gq q_name "$name ($count samples$note)"
            hist+=("$q_file using 1:2 with steps lw 2 title $q_name")
        fi
        if [ -s "$tmp/l$n.$t.pct" ]; then
            gq q_file "$tmp/l$n.$t.pct"
            gq q_name "$name: p50 $p50, p99 $p99, p99.9 $p999, p99.99 $p9999, max $max usec"
            pct+=("$q_file using 1:2 with lines lw 2 title $q_name")
        fi
    done <"$tmp/l$n.types"

    if [ ${#hist[@]} -gt 0 ]; then
        gp_begin "$out_dir/${label}_histogram.png" "latency distribution ($label)"
        cat >>"$gp" <<'EOF'
set xlabel "latency (usec, log scale; 20 bins per decade)"
set ylabel "samples per bin"
set logscale x
set yrange [0:*]
EOF
        gp_plot "${hist[@]}"
    fi
    if [ ${#pct[@]} -gt 0 ]; then
        gp_begin "$out_dir/${label}_percentiles.png" "latency by percentile ($label)"
        cat >>"$gp" <<'EOF'
set xlabel "percentile"
set ylabel "latency (usec, log scale)"
set logscale xy
set xrange [1:*]
set xtics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000, "99.9999%%" 1000000)
EOF
        gp_plot "${pct[@]}"
    fi
}

# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

stats_files=() stats_labels=() lat_files=() lat_labels=() pct_files=() pct_labels=()
for f in "$@"; do
    [ -e "$f" ] || fail 2 "$f: no such file"
    [ -f "$f" ] && [ -r "$f" ] || fail 2 "$f: not a readable file"
    [ -s "$f" ] || fail 2 "$f: the file is empty"
    label=${f##*/}
    label=${label%.csv}
    # Two files of the same name (two runs' ConsStats1.csv) are told apart by their folder.
    for seen in "${stats_labels[@]}" "${lat_labels[@]}" "${pct_labels[@]}"; do
        if [ "$seen" = "$label" ]; then
            dir=$(cd "$(dirname "$f")" && pwd)
            label="${dir##*/}_$label"
            break
        fi
    done
    file_kind "$f"
    case "$kind" in
    stats)
        : >"$tmp/s${#stats_files[@]}.cols"
        stats_read "$f" ${#stats_files[@]}
        stats_files+=("$f")
        stats_labels+=("$label")
        ;;
    latency)
        latency_read "$f" ${#lat_files[@]}
        lat_files+=("$f")
        lat_labels+=("$label")
        ;;
    pct)
        pct_read "$f" ${#pct_files[@]}
        pct_files+=("$f")
        pct_labels+=("$label")
        ;;
    *)
        fail 2 "$f:1: not a statistics CSV (header starting \"UTC,\"), a latency CSV (\"Message type, Send time, ...\" or \"Send Time, Receive Time, Latency(nsec)\") nor a percentile table (\"Series, Percentile, Latency (usec)\")"
        ;;
    esac
done

if [ ${#stats_files[@]} -gt 0 ]; then
    if [ "$prefix_set" = 0 ]; then
        prefix=
        if [ ${#stats_files[@]} -eq 1 ]; then prefix="${stats_labels[0]}_"; fi
    fi
    printf -v stats_names '%s, ' "${stats_labels[@]}"
    stats_names=${stats_names%, }
    stats_plot "$out_dir/${prefix}rate.png" "messages per second" 0 rate
    # One latency image per kind found in any file (Latency, Posting Latency, GenMsg Latency).
    kinds=$(cut -f1 "$tmp"/s*.cols | grep '^lat:' | sort -u || true)
    while read -r k; do
        [ -n "$k" ] || continue
        k=${k#lat:}
        name=${k,,}
        stats_plot "$out_dir/${prefix}${name// /_}.png" "$k (usec)" 1 "lat:$k"
    done <<<"$kinds"
    stats_plot_res "$out_dir/${prefix}cpu_mem.png"
fi
for ((i = 0; i < ${#lat_files[@]}; i++)); do
    latency_plots "$i" "${lat_labels[$i]}"
done

if [ -n "$pct_image" ] && [ ${#pct_files[@]} -ne 1 ]; then
    fail 2 "-f $pct_image: names the image of one percentile table; ${#pct_files[@]} were given"
fi
for ((i = 0; i < ${#pct_files[@]}; i++)); do
    pct_plot "$i" "${pct_labels[$i]}"
done

[ ${#pngs[@]} -gt 0 ] || fail 2 "nothing to plot in $*"
if ! gnuplot "$gp" 2>"$tmp/gnuplot.err"; then
    cat "$tmp/gnuplot.err" >&2
    fail 1 "gnuplot failed (script: $gp)"
fi
for png in "${pngs[@]}"; do
    [ -s "$png" ] || fail 1 "gnuplot wrote nothing to $png"
    echo "wrote $png"
done
