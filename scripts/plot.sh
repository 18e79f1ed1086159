#!/usr/bin/env bash
# Plots the statistics and latency CSV files of ConsPerf, ProvPerf, NIProvPerf and TransportPerf
# (ours or the originals) as PNG images, with gnuplot and the chart definition rwfperf-report
# uses for its page (chart.gp), so both follow the same rules (docs/report.md).
#
# Usage: scripts/plot.sh [-o DIR] [-p PREFIX] [-i SECS] [-t TITLE] FILE.csv [FILE.csv ...]
#
# Each file is recognised by its header:
#   statistics CSV  (ConsStats1.csv, ProvStats1.csv, NIProvStats1.csv, TransportStats1_<pid>.csv)
#       <prefix>rate.png             message rates over time, one panel per quantity (updates,
#                                    images, posts, generic messages, ...): per-interval counts
#                                    divided by the interval, "... rate" columns as they are
#       <prefix>latency.png          latency avg / p50 / p99 / p99.9 / max and the scheduled
#                                    p99 over time, log scale, a panel per file sharing one
#                                    scale; posting_latency.png and genmsg_latency.png the same
#                                    for posts and generic messages, when the files have them
#       <prefix>cpu_mem.png          CPU % and resident memory over time, a panel each (one
#                                    line per process: a thread's file beside its first
#                                    thread's file holds the same process figures)
#     Several statistics files are drawn on the same plots, on one UTC time axis (e.g. the
#     threads of one run, a provider and its consumers, or a run of ours against a run of the
#     original). The originals' files lack our percentile columns: what they have is plotted.
#   latency CSV     (-latencyFile: "Message type, Send time, ..." or TransportPerf's
#                    "Send Time, Receive Time, Latency(nsec)")
#       <name>_histogram.png         latency distribution, log-spaced bins, one line per
#                                    message type (Upd, Pst, Gen)
#       <name>_percentiles.png       latency by percentile (0% .. 99.999%) on a log axis, with
#                                    the p50 ... p99.999 marks (hollow where the samples are too
#                                    few for the percentile: its value is the maximum)
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
# Environment: RWFPERF_CHARTS names chart.gp when it is neither beside this script (installed)
# nor in the source tree (common/report/chart.gp).
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
here=$(cd "$(dirname "$0")" && pwd)
chart=${RWFPERF_CHARTS:-}
if [ -z "$chart" ]; then
    for c in "$here/chart.gp" "$here/../common/report/chart.gp"; do
        if [ -f "$c" ]; then
            chart=$c
            break
        fi
    done
fi
[ -n "$chart" ] && [ -f "$chart" ] ||
    fail 1 "the chart definition chart.gp was not found (set RWFPERF_CHARTS to its path)"
command -v gnuplot >/dev/null 2>&1 ||
    fail 1 "gnuplot is not installed (scripts/setup.sh installs gnuplot-nox)"

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
#   $tmp/s<n>.dat   one row per interval: its UTC end in seconds since the epoch, then the
#                   file's columns 2..N ("nan" for a blank cell)
#   $tmp/s<n>.cols  one line per plotted column: group <TAB> data column <TAB> scale <TAB> name
#   $tmp/s<n>.span  the first and last row times
# Groups: rate:<quantity>, lat:<kind>, sched:<kind>, cpu, mem. Exits 2 with "file:line: what"
# on malformed input.
stats_read() {
    TZ=UTC awk -v file="$1" -v dat="$tmp/s$2.dat" -v cols="$tmp/s$2.cols" -v span="$tmp/s$2.span" \
        -v interval="$interval" '
    function bad(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    function numeric(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ || tolower(s) ~ /^-?(nan|inf)$/ }
    # The quantity a rate or count column is drawn as (its panel in rate.png).
    function quantity(name) {
        if (name ~ /^Update rate/ || name == "Updates sent") return "updates per second"
        if (name == "Images" || name == "Images sent") return "images per second"
        if (name == "Requests received") return "requests per second"
        if (name == "Posts reflected") return "posts per second"
        if (name ~ /^GenMsgs (sent|received)$/) return "generic messages per second"
        if (name ~ /^Msgs (sent|received)$/) return "messages per second"
        return tolower(name)
    }
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
            if (v != "nan" && v + 0 != 0) nonzero[i] = 1
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
        for (r = 1; r <= rows; r++) printf "%d%s\n", time[r], line[r] > dat
        printf "%d %d\n", time[1], time[rows] > span
        for (i = 2; i <= n; i++) {
            name = h[i]; col = i; lname = tolower(name)
            if (name ~ /^CPU usage/) { printf "cpu\t%d\t1\t%s\n", col, name > cols; continue }
            if (name ~ /^Memory/) { printf "mem\t%d\t1\t%s\n", col, name > cols; continue }
            if (!nonzero[i]) continue
            if (lname ~ /rate/) { printf "rate:%s\t%d\t1\t%s\n", quantity(name), col, name > cols; continue }
            if (name ~ /^(Images|Images sent|Updates sent|Requests received|Posts reflected|Msgs sent|Msgs received|GenMsgs sent|GenMsgs received)$/) {
                printf "rate:%s\t%d\t%.10g\t%s\n", quantity(name), col, 1 / iv, name > cols
                continue
            }
            # The scheduled view: its p99 is drawn with its kind.
            if (name ~ /^Sched /) {
                if (name ~ / p99 \(usec\)$/) {
                    kind = name; sub(/^Sched /, "", kind); sub(/ p99 \(usec\)$/, "", kind)
                    sched[kind] = col
                }
                continue
            }
            if (name ~ / (avg|p50|p99|p99\.9|max) \(usec\)$/) {
                kind = name; sub(/ (avg|p50|p99|p99\.9|max) \(usec\)$/, "", kind)
                stat = name; sub(/ \(usec\)$/, "", stat); sub(/.* /, "", stat)
                lat[kind, stat] = col
                if (!(kind in kinds)) { kinds[kind] = 1; korder[++nk] = kind }
            }
        }
        # Latency lines from the highest figure to the lowest (the first drawn widest), then
        # the scheduled p99.
        split("max p99.9 p99 p50 avg", order, " ")
        for (k = 1; k <= nk; k++) {
            for (s = 1; s <= 5; s++)
                if ((korder[k], order[s]) in lat)
                    printf "lat:%s\t%d\t1\t%s\n", korder[k], lat[korder[k], order[s]], order[s] > cols
            for (sk in sched)
                if (tolower(sk) == tolower(korder[k]))
                    printf "lat:%s\t%d\t1\tscheduled p99\n", korder[k], sched[sk] > cols
        }
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
#   $tmp/p<n>.<k>.fill, .hollow  its marks at p50 ... p99.999 (hollow: the samples, told by the
#                       last row's share, are too few for the percentile)
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
        k = idx[name]
        if (v + 0 > 0) printf "%.10g %.6g\n", 1 / (1 - p / 100), v > (base "." k ".dat")
        rows++
        cnt[k]++; pp[k, cnt[k]] = p + 0; vv[k, cnt[k]] = v + 0
    }
    END {
        if (failed) exit 2
        if (rows == 0) { NR = 1; bad("no rows after the header") }
        split("50 90 99 99.9 99.99 99.999", at, " ")
        for (k = 1; k <= n; k++) {
            # The last row is at the share below the last sample: (n - 1) / n.
            samples = int(1 / (1 - pp[k, cnt[k]] / 100) + 0.5)
            for (a = 1; a <= 6; a++) {
                need = int(100 / (100 - at[a]) + 0.999999)
                val = vv[k, 1]
                for (i = 1; i <= cnt[k]; i++) if (pp[k, i] < at[a]) val = vv[k, i]
                if (val > 0)
                    printf "%.10g %.6g\n", 1 / (1 - at[a] / 100), val > (base "." k (samples >= need ? ".fill" : ".hollow"))
            }
        }
    }' "$1" || exit 2
}

# ---------------------------------------------------------------------------------------------
# Drawing: every image is one block of $gp, a single gnuplot script run at the end; every panel
# is chart.gp loaded with the panel's variables.
# ---------------------------------------------------------------------------------------------

gp="$tmp/plots.gp"
pngs=()
nser=0
: >"$gp"

# gq VAR STRING: VAR = STRING as a gnuplot double-quoted literal ("\n" stays a line break).
gq() {
    local s=${2//\\/\\\\}
    s=${s//$'\n'/\\n}
    printf -v "$1" '"%s"' "${s//\"/\\\"}"
}

# series <out var> <awk program> <file>: a new series file made by the program from the file;
# the variable is left empty when the series has no value to draw.
series() {
    nser=$((nser + 1))
    printf -v "$1" '%s' "$tmp/ser$nser.dat"
    awk "$2" "$3" >"$tmp/ser$nser.dat"
    grep -qv ' nan$' "$tmp/ser$nser.dat" || printf -v "$1" '%s' ""
}

# A panel being put together: its lines and marks.
panel_begin() {
    L_F=() L_T=() L_C=() L_D=() L_P=() M_F=() M_T=() M_C=() M_P=()
}
# panel_line <file> <title> [colour] [dash] [marker]: a line, unless the file is "" (a series
# with no value) or missing.
panel_line() {
    [ -n "$1" ] && [ -s "$1" ] || return 0
    L_F+=("$1") L_T+=("$2") L_C+=("${3:-}") L_D+=("${4:-0}") L_P+=("${5:-0}")
}
# panel_mark <file> <title> <colour> <marker>: marks, unless the file is "" or empty.
panel_mark() {
    [ -n "$1" ] && [ -s "$1" ] || return 0
    M_F+=("$1") M_T+=("$2") M_C+=("$3") M_P+=("$4")
}
# Each line with the same values as an earlier one (values at the same x, equal within 0.5%)
# gets " (= <that line's title>)" in its title: the chart draws it inside the earlier one.
panel_same() {
    local i k
    for ((i = 1; i < ${#L_F[@]}; i++)); do
        for ((k = 0; k < i; k++)); do
            if awk 'NR == FNR { if ($2 != "nan") { a[$1] = $2; na++ }; next }
                    $2 == "nan" { next }
                    !($1 in a) { differ = 1; exit }
                    { m = a[$1] < 0 ? -a[$1] : a[$1]; b = $2 < 0 ? -$2 : $2
                      if (b > m) m = b; d = a[$1] - $2; if (d < 0) d = -d
                      if (d > 0.005 * m) { differ = 1; exit }; common++ }
                    END { exit !(common && common == na && !differ) }' "${L_F[$k]}" "${L_F[$i]}"; then
                L_T[$i]="${L_T[$i]} (= ${L_T[$k]})"
                break
            fi
        done
    done
}
# panel_emit <title> <xmode> <xlabel> <ylabel> <logy> <note> [<panel> <panels>] [<ymin> <ymax>]
panel_emit() {
    local i n=${#L_F[@]} nm=${#M_F[@]} q
    [ "$n" -gt 0 ] || return 0
    panel_same
    {
        gq q "$title$1"
        echo "TITLE = $q"
        gq q "$3"
        echo "XLABEL = $q"
        gq q "$4"
        echo "YLABEL = $q"
        gq q "$6"
        echo "NOTE = $q"
        echo "XMODE = \"$2\""
        echo "LOGY = $5"
        echo "DIAG = 0"
        echo "STYLE = \"${STYLE:-linespoints}\""
        if [ -n "${7:-}" ]; then echo "PANEL = $7"; echo "PANELS = $8"; else echo "undefine PANEL PANELS"; fi
        if [ -n "${9:-}" ]; then echo "YDATA_MIN = $9"; echo "YDATA_MAX = ${10}"; else echo "undefine YDATA_MIN YDATA_MAX"; fi
        if [ "$2" = time ] && [ -n "$xmin" ]; then echo "XMIN = $xmin"; echo "XMAX = $xmax"; else echo "undefine XMIN XMAX"; fi
        echo "N = $n"
        echo "array F[$n]"; echo "array T[$n]"; echo "array C[$n]"; echo "array D[$n]"; echo "array P[$n]"
        for ((i = 0; i < n; i++)); do
            gq q "${L_F[$i]}"
            echo "F[$((i + 1))] = $q"
            gq q "${L_T[$i]}"
            echo "T[$((i + 1))] = $q"
            echo "C[$((i + 1))] = \"${L_C[$i]}\""
            echo "D[$((i + 1))] = ${L_D[$i]}"
            echo "P[$((i + 1))] = ${L_P[$i]}"
        done
        local am=$((nm > 0 ? nm : 1))
        echo "NM = $nm"
        echo "array MF[$am]"; echo "array MT[$am]"; echo "array MC[$am]"; echo "array MP[$am]"
        for ((i = 0; i < nm; i++)); do
            gq q "${M_F[$i]}"
            echo "MF[$((i + 1))] = $q"
            gq q "${M_T[$i]}"
            echo "MT[$((i + 1))] = $q"
            echo "MC[$((i + 1))] = \"${M_C[$i]}\""
            echo "MP[$((i + 1))] = ${M_P[$i]}"
        done
        gq q "$chart"
        echo "load $q"
    } >>"$gp"
}
# image_begin <png> <panels>: a new image of that many panels (340 pixels high each).
image_begin() {
    local q
    gq q "$1"
    pngs+=("$1")
    {
        echo "set terminal pngcairo size 1200,$((340 * $2)) font \"sans,10\" background \"#ffffff\""
        echo "set output $q"
        echo "set multiplot"
    } >>"$gp"
}
image_end() {
    printf 'unset multiplot\nunset output\n' >>"$gp"
}

# ---------------------------------------------------------------------------------------------
# Images of the statistics files
# ---------------------------------------------------------------------------------------------

# The colour of file i's lines when several files share a panel.
palette=("#0072b2" "#e69f00" "#009e73" "#cc79a7" "#56b4e9" "#d55e00" "#333333" "#999933")

# rate_image: one panel per quantity, a line per (file, column).
rate_image() {
    local quantities q i g col scale name f k=0 np
    # Updates first, then images, posts, generic messages, messages, requests, the others.
    quantities=$(cut -f1 "$tmp"/s*.cols | grep '^rate:' | awk '!seen[$0]++' | awk '
        { r = 9; split("updates images posts generic messages requests", w, " ")
          for (i = 1; i <= 6; i++) if (index($0, "rate:" w[i]) == 1) { r = i; break }
          printf "%d\t%06d\t%s\n", r, NR, $0 }' | sort | cut -f3 || true)
    [ -n "$quantities" ] || return 0
    np=$(printf '%s\n' "$quantities" | wc -l)
    image_begin "$out_dir/${prefix}rate.png" "$np"
    while IFS= read -r q; do
        k=$((k + 1))
        panel_begin
        for ((i = 0; i < ${#stats_files[@]}; i++)); do
            while IFS=$'\t' read -r g col scale name; do
                [ "$g" = "$q" ] || continue
                [ ${#stats_files[@]} -gt 1 ] && name="${stats_labels[$i]}: $name"
                series f "{ v = \$$col; print \$1, (v == \"nan\" ? \"nan\" : v * $scale) }" "$tmp/s$i.dat"
                panel_line "$f" "$name"
            done <"$tmp/s$i.cols"
        done
        local label=${q#rate:}
        panel_emit "${label^} ($stats_names)" time "UTC (end of each interval)" "$label" 0 "" "$k" "$np"
    done <<<"$quantities"
    image_end
}

# latency_image <kind>: a panel per file having the kind, all on one scale: avg, p50, p99,
# p99.9, max and the scheduled p99; where the file left p99 blank (too few samples), a hollow
# mark at that interval's max.
latency_image() {
    local kind=$1 i g col scale name f files=() png lo hi k=0 max_col p99_col
    for ((i = 0; i < ${#stats_files[@]}; i++)); do
        grep -q "^lat:$kind	" "$tmp/s$i.cols" && files+=("$i")
    done
    [ ${#files[@]} -gt 0 ] || return 0
    # The panels' common extent: every drawn value of every file.
    read -r lo hi < <(for i in "${files[@]}"; do
        awk -F'\t' -v k="lat:$kind" '$1 == k { print $2 }' "$tmp/s$i.cols" | while read -r col; do
            awk -v c="$col" '$c != "nan" && $c > 0 { print $c }' "$tmp/s$i.dat"
        done
    done | awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 } END { if (NR) print lo, hi; else print "", "" }')
    name=${kind,,}
    png="$out_dir/${prefix}${name// /_}.png"
    image_begin "$png" "${#files[@]}"
    for i in "${files[@]}"; do
        k=$((k + 1))
        panel_begin
        max_col= p99_col=
        while IFS=$'\t' read -r g col scale name; do
            [ "$g" = "lat:$kind" ] || continue
            series f "{ print \$1, \$$col }" "$tmp/s$i.dat"
            case "$name" in
            max) max_col=$col; panel_line "$f" "max" "#666666" 3 -1 ;;
            p99.9) panel_line "$f" "p99.9" "#cc79a7" 4 11 ;;
            p99) p99_col=$col; panel_line "$f" "p99" "#d55e00" 1 7 ;;
            p50) panel_line "$f" "p50" "#0072b2" 1 5 ;;
            avg) panel_line "$f" "avg" "#009e73" 5 13 ;;
            *) panel_line "$f" "$name" "#e69f00" 2 9 ;;
            esac
        done <"$tmp/s$i.cols"
        if [ -n "$max_col" ] && [ -n "$p99_col" ]; then
            series f "\$$p99_col == \"nan\" && \$$max_col != \"nan\" && \$$max_col > 0 { print \$1, \$$max_col }" "$tmp/s$i.dat"
            panel_mark "$f" "max where p99 is blank" "#d55e00" 6
        fi
        local note=
        [ ${#M_F[@]} -gt 0 ] && note=$'hollow: p99 left blank (fewer than\n100 samples): the interval\'s max'
        panel_emit "$kind (${stats_labels[$i]})" time "UTC (end of each interval)" "latency (usec, log scale)" 1 "$note" "$k" "${#files[@]}" "$lo" "$hi"
    done
    image_end
}

# cpu_mem_image: CPU and memory, a panel each, a line per process: a file whose name differs
# from an earlier one's, in the same folder, only by its thread number is that process's.
cpu_mem_image() {
    local i g col scale name f key keys=() which k=0
    local -A first
    for ((i = 0; i < ${#stats_files[@]}; i++)); do
        key=$(cd "$(dirname "${stats_files[$i]}")" && pwd)/$(basename "${stats_files[$i]}" | sed -E 's/[0-9]+(_[0-9]+)?\.csv$/\1/')
        [ -z "${first[$key]:-}" ] && first[$key]=$i && keys+=("$i")
    done
    grep -qE '^(cpu|mem)	' "$tmp"/s*.cols || return 0
    image_begin "$out_dir/${prefix}cpu_mem.png" 2
    for which in cpu mem; do
        k=$((k + 1))
        panel_begin
        for i in "${keys[@]}"; do
            while IFS=$'\t' read -r g col scale name; do
                [ "$g" = "$which" ] || continue
                series f "{ print \$1, \$$col }" "$tmp/s$i.dat"
                panel_line "$f" "${stats_labels[$i]}"
            done <"$tmp/s$i.cols"
        done
        if [ $which = cpu ]; then
            panel_emit "CPU ($stats_names)" time "UTC (end of each interval)" "CPU (% of one core)" 0 "" 1 2
        else
            panel_emit "Memory ($stats_names)" time "UTC (end of each interval)" "resident memory (MiB)" 0 "" 2 2
        fi
    done
    image_end
}

# ---------------------------------------------------------------------------------------------
# Images of the latency files and percentile tables
# ---------------------------------------------------------------------------------------------

# latency_images <n> <label>: the histogram and the percentile curve of latency file n.
latency_images() {
    local n=$1 label=$2 t raw name k=0 colours=("#0072b2" "#e69f00" "#009e73" "#cc79a7")
    local hist_f=() hist_t=() pct=() nonpos count note c
    while read -r t; do
        raw="$tmp/l$n.$t.raw"
        # Log-spaced bins, 20 per decade, from the smallest positive sample to the largest;
        # samples <= 0 (unsynchronised clocks) are counted in the title, not drawn.
        # Percentile curve: the i-th smallest of n samples is drawn at x = 1 / (1 - (i-1)/n),
        # so 90% is at 10, 99% at 100 ...; about 200 points per decade, and the max. Marks: the
        # nearest-rank p50 ... p99.999, hollow when n is below what the percentile needs.
        awk -v hist="$tmp/l$n.$t.hist" -v pct="$tmp/l$n.$t.pct" -v info="$tmp/l$n.$t.info" \
            -v fill="$tmp/l$n.$t.fill" -v hollow="$tmp/l$n.$t.hollow" '
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
                split("50 90 99 99.9 99.99 99.999", at, " ")
                for (a = 1; a <= 6; a++) {
                    need = int(100 / (100 - at[a]) + 0.999999)
                    if (rank(at[a]) > 0)
                        printf "%.10g %.6g\n", 1 / (1 - at[a] / 100), rank(at[a]) > (NR >= need ? fill : hollow)
                }
                printf "%d %d\n", nonpos + 0, NR > info
            }' "$raw"
        read -r nonpos count <"$tmp/l$n.$t.info"
        name=$t note=
        [ "$t" = all ] && name="latency"
        [ "$nonpos" -gt 0 ] && note=", $nonpos <= 0 not drawn"
        c=${colours[$((k % 4))]}
        k=$((k + 1))
        hist_f+=("$tmp/l$n.$t.hist") hist_t+=("$name ($count samples$note)")
        pct+=("$t|$name, $count samples$note|$c")
    done <"$tmp/l$n.types"

    image_begin "$out_dir/${label}_histogram.png" 1
    panel_begin
    for ((k = 0; k < ${#hist_f[@]}; k++)); do
        [ -s "${hist_f[$k]}" ] && panel_line "${hist_f[$k]}" "${hist_t[$k]}"
    done
    STYLE=steps panel_emit "latency distribution ($label)" log \
        "latency (usec, log scale; 20 bins per decade)" "samples per bin" 0 ""
    image_end

    image_begin "$out_dir/${label}_percentiles.png" 1
    panel_begin
    local entry
    for entry in "${pct[@]}"; do
        IFS='|' read -r t name c <<<"$entry"
        [ -s "$tmp/l$n.$t.pct" ] && panel_line "$tmp/l$n.$t.pct" "$name" "$c" 0 -1
        panel_mark "$tmp/l$n.$t.fill" "" "$c" 7
        panel_mark "$tmp/l$n.$t.hollow" "" "$c" 6
    done
    panel_emit "latency by percentile ($label)" percentile "percentile (log scale of 1 / (1 - p))" \
        "latency (usec, log scale)" 1 $'filled: p50 p90 p99 p99.9 p99.99 p99.999\nhollow: too few samples for it\n(the value is the maximum)'
    image_end
}

# pct_image <n> <label>: one image with a line per series of percentile table n.
pct_image_of() {
    local n=$1 label=$2 k=0 name png colours=("#0072b2" "#e69f00" "#009e73" "#cc79a7" "#56b4e9" "#d55e00" "#333333" "#999933") c
    png=${pct_image:-$out_dir/$label.png}
    mkdir -p "$(dirname "$png")" || fail 2 "cannot create the folder of '$png'"
    image_begin "$png" 1
    panel_begin
    while IFS= read -r name; do
        k=$((k + 1))
        [ -s "$tmp/p$n.$k.dat" ] || continue
        c=${colours[$(((k - 1) % 8))]}
        panel_line "$tmp/p$n.$k.dat" "$name" "$c" 0 -1
        panel_mark "$tmp/p$n.$k.fill" "" "$c" 7
        panel_mark "$tmp/p$n.$k.hollow" "" "$c" 6
    done <"$tmp/p$n.names"
    STYLE=steps panel_emit "latency by percentile ($label)" percentile "percentile (log scale of 1 / (1 - p))" \
        "latency (usec, log scale)" 1 $'filled: p50 p90 p99 p99.9 p99.99 p99.999\nhollow: too few samples for it\n(the value is the maximum)'
    image_end
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
if [ -n "$pct_image" ] && [ ${#pct_files[@]} -ne 1 ]; then
    fail 2 "-f $pct_image: names the image of one percentile table; ${#pct_files[@]} were given"
fi
mkdir -p "$out_dir" || fail 2 "cannot create the folder '$out_dir'"

# One time axis for every statistics file.
xmin= xmax=
if [ ${#stats_files[@]} -gt 0 ]; then
    read -r xmin xmax < <(cat "$tmp"/s*.span | awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $2 > hi { hi = $2 } END { print lo, hi }')
    [ "$xmax" -gt "$xmin" ] || xmin= xmax=
    if [ "$prefix_set" = 0 ]; then
        prefix=
        if [ ${#stats_files[@]} -eq 1 ]; then prefix="${stats_labels[0]}_"; fi
    fi
    printf -v stats_names '%s, ' "${stats_labels[@]}"
    stats_names=${stats_names%, }
    rate_image
    # One latency image per kind found in any file (Latency, Posting Latency, GenMsg Latency).
    kinds=$(cut -f1 "$tmp"/s*.cols | grep '^lat:' | awk '!seen[$0]++' || true)
    while read -r k; do
        [ -n "$k" ] || continue
        latency_image "${k#lat:}"
    done <<<"$kinds"
    cpu_mem_image
fi
for ((i = 0; i < ${#lat_files[@]}; i++)); do
    latency_images "$i" "${lat_labels[$i]}"
done
for ((i = 0; i < ${#pct_files[@]}; i++)); do
    pct_image_of "$i" "${pct_labels[$i]}"
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
