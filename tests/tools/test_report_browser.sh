#!/usr/bin/env bash
# The page of real runs, opened in a real browser (Debian's chromium, headless): our ProvPerf
# and ConsPerf on 127.0.0.1 for a few seconds, then a merged run of two ConsPerf processes
# (scripts/run-multi.sh). For each page: it loads with no console message (it has no script,
# so any message is an error: a resource refused by its Content-Security-Policy, a parse
# error), refers to nothing outside itself, shows the verdict and figures of the JSON
# summaries (images, update rate, p50 and p99 of each latency kind: the summary's own for one
# process, rwfperf-merge's combined figures for several), holds its charts as SVG, and a
# screenshot of it is saved (in $RWFPERF_REPORT_SHOTS, default <build>/report-shots).
# Skipped, saying why, only when chromium is not installed (scripts/setup.sh installs it).
set -uo pipefail
src=${RWFPERF_SOURCE_DIR:?RWFPERF_SOURCE_DIR is not set}
bin=${RWFPERF_BIN:?RWFPERF_BIN is not set}
build=${RWFPERF_BINARY_DIR:?RWFPERF_BINARY_DIR is not set}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "SKIP: chromium is not installed (scripts/setup.sh installs Debian's chromium package)"
    exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
shots=${RWFPERF_REPORT_SHOTS:-$build/report-shots}
mkdir -p "$shots" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/test_report_browser.XXXXXX")
prov=0
cleanup() {
    [ "$prov" != 0 ] && kill -KILL "$prov" 2>/dev/null
    rm -rf "$work"
    return 0
}
trap cleanup EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# browse <page> <name>: opens the page in headless chromium: its DOM into <name>.dom, what the
# browser logged into <name>.log, a screenshot into $shots/<name>.png.
browse() {
    local ud="$work/chromium-$2"
    mkdir -p "$ud"
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$ud" --enable-logging=stderr --v=0 --hide-scrollbars \
        --window-size=1280,9000 --screenshot="$shots/$2.png" --dump-dom "file://$1" \
        >"$work/$2.dom" 2>"$work/$2.log"
    local rc=$?
    [ "$rc" = 0 ] && ok || bad "chromium exited $rc on $1: $(tail -n 5 "$work/$2.log")"
    if grep -E 'CONSOLE|Refused to|Not allowed to load' "$work/$2.log"; then
        bad "$2: the page logged messages in the browser (above)"
    else
        ok
    fi
    [ -s "$shots/$2.png" ] && ok || bad "$2: no screenshot"
}

# check <name> <expectations.json>: the DOM's verdict, figures and charts against the
# expectations: {"verdict": ..., "figures": [[figure, kind, tool, value], ...], "charts": [...]}.
check() {
    python3 - "$work/$1.dom" "$2" <<'PY'
import json, sys
from html.parser import HTMLParser
dom, want = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.figures, self.charts, self.verdict, self.refs = [], {}, None, []
        self.chart, self.open = None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "xlink:href"):
            v = a.get(k) or ""
            if v and not v.startswith("#"):
                self.refs.append(v)
        if tag == "section" and a.get("id") == "verdict":
            self.verdict = a.get("data-verdict")
        if "data-figure" in a:
            self.figures.append((a["data-figure"], a.get("data-kind", ""), a.get("data-tool", ""),
                                 float(a["data-value"])))
        if tag == "figure" and "data-chart" in a:
            self.chart = a["data-chart"]
            self.charts[self.chart] = 0
        if tag == "path" and self.chart:
            self.charts[self.chart] += 1
    def handle_endtag(self, tag):
        if tag == "figure":
            self.chart = None

p = Page()
p.feed(dom)
bad = 0
def fail(msg):
    global bad
    bad += 1
    print("FAIL:", msg)
if p.refs:
    fail(f"the page refers to things outside itself: {p.refs[:5]}")
if p.verdict != want["verdict"]:
    fail(f"verdict {p.verdict}, the JSON summaries say {want['verdict']}")
for fig, kind, tool, value in want["figures"]:
    got = [v for f, k, t, v in p.figures if f == fig and k == kind and t == tool]
    if not got:
        fail(f"{tool} {fig} {kind}: not on the page")
    elif abs(got[0] - value) > 1e-9 * max(1, abs(value)):
        fail(f"{tool} {fig} {kind}: the page shows {got[0]}, the JSON {value}")
    else:
        print(f"  {tool} {fig} {kind or ''}: {got[0]} (JSON {value})")
for c in want["charts"]:
    if p.charts.get(c, 0) < 5:
        fail(f"chart {c}: missing or empty ({p.charts.get(c)} paths); charts: {sorted(p.charts)}")
print(f"  {len(p.figures)} figures, {len(p.charts)} charts on the page")
sys.exit(1 if bad else 0)
PY
    [ $? = 0 ] && ok || bad "$1: the page's figures differ from the JSON summaries (above)"
}

data=$src/data
cd "$work" || exit 1

# 1. One ConsPerf against one ProvPerf, every latency kind.
mkdir -p single && cd single || exit 1
cp "$data/RDMFieldDictionary" "$data/enumtype.def" "$data/MsgData.xml" .
"$data/gen_items.sh" 1000 >items.xml
"$bin/ProvPerf" -p 0 -updateRate 20000 -latencyUpdateRate 500 -genericMsgRate 1000 \
    -genericMsgLatencyRate 200 -runTime 60 -writeStatsInterval 1 -histogramLog prov \
    >prov.out 2>&1 &
prov=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/^Server .* bound to port \([0-9]*\)\..*/\1/p' prov.out)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { bad "ProvPerf did not start: $(cat prov.out)"; exit 1; }
"$bin/ConsPerf" -p "$port" -itemCount 1000 -itemFile items.xml -steadyStateTime 3 \
    -writeStatsInterval 1 -postingRate 1000 -postingLatencyRate 200 -genericMsgRate 1000 \
    -genericMsgLatencyRate 200 -histogramLog cons >cons.out 2>&1
rc=$?
kill -INT "$prov"
wait "$prov"
prov=0
[ "$rc" = 0 ] && ok || bad "ConsPerf exited $rc: $(tail -n 5 cons.out)"
cd "$work" || exit 1
"$bin/rwfperf-report" single >report.out 2>&1 && ok || bad "rwfperf-report: $(cat report.out)"
python3 - single/ConsSummary.json single/ProvSummary.json >single.want <<'PY'
import json, sys
cons, prov = (json.load(open(f)) for f in sys.argv[1:3])
c, p = cons["results"]["overall"], prov["results"]["overall"]
figs = [["refreshes_received", "", "ConsPerf", c["refreshes_received"]],
        ["steady_update_rate", "", "ConsPerf", c["steady_update_rate"]]]
for tag, key in (("update", "latency"), ("sched-update", "sched_latency"),
                 ("post", "posting_latency"), ("sched-post", "sched_posting_latency"),
                 ("genmsg", "genmsg_latency"), ("sched-genmsg", "sched_genmsg_latency")):
    for pct in ("p50", "p99"):
        figs.append([pct, tag, "ConsPerf", c[key][pct]])
for tag, key in (("genmsg", "genmsg_latency"), ("sched-genmsg", "sched_genmsg_latency")):
    for pct in ("p50", "p99"):
        figs.append([pct, tag, "ProvPerf", p[key][pct]])
json.dump({"verdict": "passed" if cons["results"]["passed"] else "failed", "figures": figs,
           "charts": ["rates-updates", "rates-posts", "rates-genmsgs",
                      "latency-time-ConsPerf-update", "latency-time-ConsPerf-post",
                      "percentiles-ConsPerf-update", "percentiles-ConsPerf-genmsg",
                      "percentiles-ProvPerf-genmsg", "cpu", "memory"]}, sys.stdout)
PY
browse "$work/single/report.html" report-single
check report-single "$work/single.want"

# 2. Two ConsPerf processes merged (scripts/run-multi.sh): rwfperf-merge's combined figures.
BIN=$bin OUT=$work/multi N=2 RATE=20000 LAT_RATE=500 ITEMS="1000 500" STEADY=3 \
    "$src/scripts/run-multi.sh" >multi.out 2>&1
rc=$?
[ "$rc" = 0 ] && ok || bad "run-multi.sh exited $rc: $(tail -n 20 multi.out)"
grep -q "^report: $work/multi/report.html$" multi.out && ok || bad "run-multi.sh did not print the page's path"
python3 - "$work/multi" >multi.want <<'PY'
import glob, json, sys
run = sys.argv[1]
merged = json.load(open(run + "/merged.json"))["combined"]
cons = [json.load(open(f)) for f in sorted(glob.glob(run + "/cons*/ConsSummary.json"))]
figs = [["refreshes_received", "", "ConsPerf",
         sum(c["results"]["overall"]["refreshes_received"] for c in cons)],
        ["steady_update_rate", "", "ConsPerf",
         sum(c["results"]["overall"]["steady_update_rate"] for c in cons)]]
for tag in ("update", "sched-update"):
    for pct in ("p50", "p99"):
        figs.append([pct, tag, "ConsPerf", merged["latency_usec"][tag][pct]])
passed = all(c["results"]["passed"] for c in cons)
json.dump({"verdict": "passed" if passed else "failed", "figures": figs,
           "charts": ["rates-updates", "latency-time-ConsPerf-update",
                      "percentiles-ConsPerf-update", "cpu", "memory"]}, sys.stdout)
PY
browse "$work/multi/report.html" report-multi
check report-multi "$work/multi.want"

echo "screenshots: $shots/report-single.png, $shots/report-multi.png"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
