# chart.gp: the one chart definition of rwfperf-report (SVG in the HTML page) and of
# scripts/plot.sh (PNG). The caller sets the terminal and the output (and, for several panels
# in one image, the multiplot layout), then the variables below, then loads this file once per
# panel. Every panel it draws follows the same rules:
#   - one quantity on the y axis, its unit in the label; a logarithmic axis where the values
#     span decades (latency);
#   - headroom: the y range ends above the highest value (15% on a linear axis, a factor 2.5
#     on a log axis), so that no line sits on the frame; linear axes start at zero;
#   - series that coincide stay visible: each is drawn thinner than the one before it, with
#     its own colour, dash pattern and marker, so a later line shows inside an earlier one;
#   - the legend sits right of the plot area, never over the data or an axis label; the plot
#     area's margins are fixed, so that panels of one image and charts of one page line up.
#
# Variables (strings may be "", counts may be 0):
#   TITLE, XLABEL, YLABEL  texts; YLABEL carries the unit; without a TITLE the plot area
#           starts higher (a page that heads the chart itself)
#   XMODE   "time": x in seconds since the epoch, labelled as UTC time of day; "linear";
#           "log"; "percentile": x = 1 / (1 - p) for the percentile p (0 <= p < 1), on a log
#           axis from 0% to 99.999% (HdrHistogram's percentile distribution)
#   PANELS, PANEL  several panels stacked in one image (the caller in "set multiplot"): the
#           panel's place, 1 at the top; unset for one chart per image
#   YDATA_MIN, YDATA_MAX  the extent of y the range is made from when both are set (panels
#           of one image that must share their scale); else the data's own
#   XMIN, XMAX  the x range of a "time" chart when both are set (charts of one page then share
#           their time axis); else the data's extent
#   LOGY    1: logarithmic y axis (the caller leaves out values <= 0, as "nan")
#   DIAG    1: a grey dashed y = x line, "received = offered" (a rate sweep)
#   STYLE   how series are drawn: "linespoints" or "steps" (a histogram's bins)
#   NOTE    text under the legend ("\n" breaks lines), for what the marks mean
#   N       line series (at least one), each: F[i] data file ("x y" per line, "nan" where a
#           value is missing), T[i] title, C[i] colour ("" for the palette's i-th), D[i] dash type
#           (0 for the i-th of the cycle), P[i] marker (0 for the i-th of the cycle, -1 none)
#   NM      mark series (markers only), each: MF[i] data file, MT[i] title ("" for none in
#           the legend), MC[i] colour, MP[i] marker (7 filled circle, 6 hollow circle ...)
# Missing values ("nan") break a series' line. Titles longer than the legend's width (about 32
# characters) are wrapped onto more lines, at " (= " first (a coinciding series' name).
# Arrays must exist with at least one element even when their count is 0.

unset logscale
unset label
unset arrow
unset object
unset title
set xtics autofreq norangelimit nomirror out
set ytics autofreq norangelimit nomirror out
set mxtics default
set mytics default
set format x "% h"
set format y "% h"
set grid xtics ytics lt 1 lc rgb "#e3e3e3" lw 1
set border 3 lc rgb "#555555"
unset xdata
set offsets 0, 0, 0, 0
set autoscale

# Plot area and legend: fixed fractions of the panel's part of the image.
CH_PANELS = exists("PANELS") ? PANELS : 1
CH_PANEL = exists("PANEL") ? PANEL : 1
CH_T0 = 1.0 - (CH_PANEL - 1.0) / CH_PANELS
CH_B0 = 1.0 - CH_PANEL * 1.0 / CH_PANELS
sy(f) = CH_B0 + (CH_T0 - CH_B0) * f
CH_TOP = strlen(TITLE) > 0 ? 0.88 : 0.95
set lmargin at screen 0.105
set rmargin at screen 0.70
set tmargin at screen sy(CH_TOP)
set bmargin at screen sy(0.22)
set key at screen 0.715, screen sy(CH_TOP) left top Left reverse noenhanced samplen 3.5 spacing 1.15 noautotitle nobox
if (strlen(TITLE) > 0) { set title TITLE noenhanced font ",13" }
set xlabel XLABEL noenhanced
set ylabel YLABEL noenhanced
if (strlen(NOTE) > 0) {
    set label 1 NOTE at screen 0.715, screen sy(0.40) left front noenhanced font ",10" tc rgb "#444444"
}

# Palette (colour-blind safe), dash and marker cycles.
array PAL[8] = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#333333", "#999933"]
array DCYC[6] = [1, 2, 4, 5, 3, 6]
array PCYC[8] = [7, 5, 9, 11, 13, 6, 4, 8]
colour(i) = strlen(C[i]) > 0 ? C[i] : PAL[(i - 1) % 8 + 1]
dash(i) = D[i] > 0 ? D[i] : DCYC[(i - 1) % 6 + 1]
marker(i) = P[i] != 0 ? P[i] : PCYC[(i - 1) % 8 + 1]
# Widths: the first series widest, each later one thinner, so that a later series drawn over
# an earlier one with the same values shows inside it.
width(i) = N > 1 ? 1.4 + 2.2 * (N - i) / (N - 1.0) : 2.0

# The data's extent, for the headroom and the markers' spacing.
CH_YMAX = -1e300
CH_YMIN = 1e300
CH_XMIN = 1e300
CH_XMAX = -1e300
array PI[N > 0 ? N : 1]
do for [i=1:N] {
    stats F[i] using 1:2 nooutput
    if (STATS_max_y > CH_YMAX) { CH_YMAX = STATS_max_y }
    if (STATS_min_y < CH_YMIN) { CH_YMIN = STATS_min_y }
    if (STATS_min_x < CH_XMIN) { CH_XMIN = STATS_min_x }
    if (STATS_max_x > CH_XMAX) { CH_XMAX = STATS_max_x }
    # About 24 markers per series, offset so that coinciding series do not stack them.
    PI[i] = STATS_records > 24 ? int(STATS_records / 24) : 1
}
do for [i=1:NM] {
    stats MF[i] using 1:2 nooutput
    if (STATS_max_y > CH_YMAX) { CH_YMAX = STATS_max_y }
    if (STATS_min_y < CH_YMIN) { CH_YMIN = STATS_min_y }
    if (STATS_min_x < CH_XMIN) { CH_XMIN = STATS_min_x }
    if (STATS_max_x > CH_XMAX) { CH_XMAX = STATS_max_x }
}
if (exists("YDATA_MIN") && exists("YDATA_MAX")) { CH_YMIN = YDATA_MIN; CH_YMAX = YDATA_MAX }
if (CH_YMAX < CH_YMIN) { CH_YMIN = 0; CH_YMAX = 1 }

# Numbers as people write them on charts: 0, 500, 20k, 1.5M.
si(v) = v == 0 ? "0" : abs(v) >= 1e6 ? sprintf("%gM", v / 1e6) : abs(v) >= 1e3 ? sprintf("%gk", v / 1e3) : sprintf("%g", v)
# A log axis's labels: plain numbers below a million (latency in usec reads best so), then
# si().
logl(v) = v >= 1e6 ? si(v) : sprintf("%g", v)
if (LOGY) {
    set logscale y 10
    if (CH_YMIN <= 0) { CH_YMIN = CH_YMAX / 1000 }
    set yrange [CH_YMIN / 1.6 : CH_YMAX * 2.5]
    # Tics at each power of ten; over less than three decades at 1, 2 and 5 times each (the
    # powers alone may leave a single labelled tic).
    CH_MS = CH_YMAX * 2.5 / (CH_YMIN / 1.6) < 1000 ? "1 2 5" : "1"
    set ytics ()
    do for [e=floor(log10(CH_YMIN / 1.6)):ceil(log10(CH_YMAX * 2.5))] {
        do for [m in CH_MS] {
            CH_V = real(m) * 10 ** e
            if (CH_V >= CH_YMIN / 1.6 && CH_V <= CH_YMAX * 2.5) { set ytics add (logl(CH_V) CH_V) }
        }
    }
} else {
    CH_TOP = CH_YMAX > 0 ? CH_YMAX * 1.15 : 1
    CH_BOT = CH_YMIN < 0 ? CH_YMIN * 1.15 : 0
    set yrange [CH_BOT : CH_TOP]
    if (CH_TOP >= 1e4 && CH_BOT == 0) {
        # Tics 1, 2 or 5 times a power of ten apart, about six of them, labelled with si().
        CH_RAW = CH_TOP / 6
        CH_MAG = 10 ** floor(log10(CH_RAW))
        CH_F = CH_RAW / CH_MAG
        CH_STEP = (CH_F <= 1 ? 1 : CH_F <= 2 ? 2 : CH_F <= 5 ? 5 : 10) * CH_MAG
        set ytics ("0" 0)
        do for [k=1:int(CH_TOP / CH_STEP)] { set ytics add (si(k * CH_STEP) k * CH_STEP) }
    }
}

if (XMODE eq "time") {
    if (exists("XMIN") && exists("XMAX")) { if (XMAX > XMIN) { CH_XMIN = XMIN; CH_XMAX = XMAX } }
    CH_PAD = (CH_XMAX - CH_XMIN) * 0.02 + 0.5
    set xrange [CH_XMIN - CH_PAD : CH_XMAX + CH_PAD]
    # Tics a whole number of seconds apart, at most about eight of them.
    array CH_STEPS[14] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200]
    CH_STEP = 14400
    do for [k=14:1:-1] { if ((CH_XMAX - CH_XMIN + 2 * CH_PAD) / CH_STEPS[k] <= 8) { CH_STEP = CH_STEPS[k] } }
    set xtics CH_STEP time
    set format x "%H:%M:%S" time
}
if (XMODE eq "log") {
    set logscale x 10
    set format x "%.0s%c"
    set xrange [CH_XMIN / 1.25 : CH_XMAX * 1.25]
    set mxtics 10
    # Less than three decades: tics at 1, 2 and 5 times each power of ten, as on the y axis.
    if (CH_XMAX * 1.25 / (CH_XMIN / 1.25) < 1000) {
        set xtics ()
        do for [e=floor(log10(CH_XMIN / 1.25)):ceil(log10(CH_XMAX * 1.25))] {
            do for [m in "1 2 5"] {
                CH_V = real(m) * 10 ** e
                if (CH_V >= CH_XMIN / 1.25 && CH_V <= CH_XMAX * 1.25) { set xtics add (logl(CH_V) CH_V) }
            }
        }
    }
}
if (XMODE eq "linear") {
    CH_PAD = (CH_XMAX - CH_XMIN) * 0.03
    if (CH_PAD <= 0) { CH_PAD = CH_XMAX > 0 ? CH_XMAX * 0.1 : 1 }
    set xrange [CH_XMIN - CH_PAD : CH_XMAX + CH_PAD]
    if (CH_XMAX >= 1e4 && CH_XMIN >= 0) {
        # Tics 1, 2 or 5 times a power of ten apart, labelled with si(), as on the y axis.
        CH_RAW = (CH_XMAX + CH_PAD) / 8
        CH_MAG = 10 ** floor(log10(CH_RAW))
        CH_F = CH_RAW / CH_MAG
        CH_STEP = (CH_F <= 1 ? 1 : CH_F <= 2 ? 2 : CH_F <= 5 ? 5 : 10) * CH_MAG
        set xtics ()
        do for [k=ceil((CH_XMIN - CH_PAD) / CH_STEP):int((CH_XMAX + CH_PAD) / CH_STEP)] { set xtics add (si(k * CH_STEP) k * CH_STEP) }
    }
}
if (XMODE eq "percentile") {
    set logscale x 10
    # 0% to 99.999%, with room around so that no mark sits on the frame.
    set xrange [0.8 : 180000]
    set xtics ("0%%" 1, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000)
    set mxtics 10
}

# A title as the legend shows it: lines of at most CH_WRAPW characters, broken at spaces (a
# word longer than that stays whole); a long title's " (= <name>)" on a line of its own. The
# first line is the series' own entry; each further one is an entry of its own with no sample
# (gnuplot would print a title's lines over the next entry's).
CH_WRAPW = 32
ch_lastsp(s, k) = k < 1 ? 0 : (s[k:k] eq " " ? k : ch_lastsp(s, k - 1))
ch_cut(s, k) = k > 1 ? s[1:k - 1] . "\n" . ch_line(s[k + 1:strlen(s)]) : s
ch_line(s) = strlen(s) <= CH_WRAPW ? s : ch_cut(s, ch_lastsp(s, CH_WRAPW + 1))
ch_lines(s, n) = n > 0 ? ch_line(s[1:n - 1]) . "\n" . ch_wrap(s[n + 1:strlen(s)]) : ch_line(s)
ch_wrap(s) = ch_lines(s, strstrt(s, "\n"))
ch_same(s, n) = n > 0 && strlen(s) > CH_WRAPW \
    ? ch_wrap(s[1:n - 1]) . "\n" . ch_wrap(s[n + 1:strlen(s)]) : ch_wrap(s)
ch_title(s) = ch_same(s, strstrt(s, " (= "))
# The number of lines of a text, and its k-th line.
ch_count(s) = strstrt(s, "\n") > 0 ? 1 + ch_count(s[strstrt(s, "\n") + 1:strlen(s)]) : 1
ch_nth(s, k) = k > 1 ? ch_nth(s[strstrt(s, "\n") + 1:strlen(s)], k - 1) \
    : strstrt(s, "\n") > 0 ? s[1:strstrt(s, "\n") - 1] : s
# The clauses of a series' further title lines ("" for none); name is the array ("T", "MT").
ch_more(name, i, t) = ch_count(t) < 2 ? "" : ch_more1(name, i, 2, ch_count(t))
ch_more1(name, i, k, n) = k > n ? "" : sprintf(", keyentry with lines lc bgnd title ch_nth(ch_title(%s[%d]), %d)", name, i, k) . ch_more1(name, i, k + 1, n)

# The plot command, one clause per series that has something to draw. Widths, dash, colour
# and marker as above.
CH_PLOT = "plot"
do for [i=1:N] {
    CH_WITH = STYLE eq "steps" \
        ? sprintf("steps lw width(%d) dt dash(%d) lc rgb colour(%d)", i, i, i) \
        : sprintf("linespoints lw width(%d) dt dash(%d) lc rgb colour(%d) pt marker(%d) ps 0.8 pi PI[%d]", i, i, i, i, i)
    CH_PLOT = CH_PLOT . (i > 1 ? ", " : " ") . sprintf("F[%d] using 1:2 with ", i) . CH_WITH \
        . sprintf(" title ch_nth(ch_title(T[%d]), 1)", i) . ch_more("T", i, ch_title(T[i]))
}
do for [i=1:NM] {
    CH_PLOT = CH_PLOT . sprintf(", MF[%d] using 1:2 with points pt MP[%d] ps 1.1 lw 1.5 lc rgb MC[%d] title ch_nth(ch_title(MT[%d]), 1)", i, i, i, i) \
        . ch_more("MT", i, ch_title(MT[i]))
}
if (DIAG) {
    CH_PLOT = CH_PLOT . ", x with lines lw 1.5 dt 2 lc rgb '#aaaaaa' title 'received = offered'"
}
eval CH_PLOT
