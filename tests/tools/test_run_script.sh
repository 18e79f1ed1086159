#!/usr/bin/env bash
# scripts/run.sh, the main job, with the executables of this build (BIN: nothing installed or
# built): a short run ends with the one-line verdict "PASS: <n> images in <s> s, <rate> upd/s,
# latency p50 <us> us p99 <us> us", in a few lines, the steady state's p99 on enough samples,
# no item file made in the run's folder, the run's page written and its path printed; a failing run ends with "FAIL: <the reason>" and
# ConsPerf's status. scripts/setup.sh (with stand-ins for dpkg-query, apt-get and sudo): one
# line saying what it installs, apt's output in its log, and for run.sh only what building and
# running need.
set -u
. "$(dirname "$0")/cli.sh"
cli_begin run-script

# The pass.
BIN=$bin RUN_DIR=$work/run STEADY=2 ITEMS=1000 "$src/scripts/run.sh" > run.out 2>&1
rc=$?
last=$(tail -1 run.out)
lines=$(wc -l < run.out)
if [ "$rc" = 0 ] &&
    echo "$last" | grep -Eq '^PASS: 1000 images in [0-9]+\.[0-9]{2} s, [0-9]{2,3},[0-9]{3} upd/s, latency p50 [0-9]+ us p99 [0-9]+ us$'; then
    ok "the verdict: $last"
else
    bad "run.sh: status $rc, last line: $last"
    show run.out
fi
[ "$lines" -le 4 ] && ok "run.sh says it in $lines lines" || { bad "run.sh printed $lines lines"; show run.out 30; }
if grep -q "Latency p99 (usec)" run/ConsSummary.out &&
    ! sed -n '/^Steady State Statistics:/,/^$/p' run/ConsSummary.out |
        grep -q "^  Latency p99 (usec): .*only [0-9]* samples"; then
    ok "the steady state's p99 rests on enough samples"
else
    bad "too few latency samples for the p99"
    sed -n '/^Steady State Statistics:/,/^$/p' run/ConsSummary.out
fi
[ ! -e run/350k.xml ] && ok "no item file made for the run" || bad "run.sh made run/350k.xml"
if [ -s run/report.html ] && grep -q "^report: $work/run/report.html" run.out; then
    ok "the run's page written, its path printed before the verdict"
else
    bad "no report.html, or its path not printed"
    show run.out
fi

# A failure: the reason on the last line, ConsPerf's status.
BIN=$bin RUN_DIR=$work/run STEADY=1 ITEMS=10 "$src/scripts/run.sh" -- -itemFile nosuch.xml \
    > fail.out 2>&1
rc=$?
last=$(tail -1 fail.out)
if [ "$rc" = 2 ] && echo "$last" | grep -q "^FAIL: .*nosuch.xml not found; looked in"; then
    ok "a failed run: status 2, $last"
else
    bad "a failed run: status $rc, last line: $last"
    show fail.out
fi

# setup.sh: quiet, with stand-ins for the package tools that say nothing is installed.
mkdir fake
cat > fake/dpkg-query <<'STUB'
#!/bin/sh
exit 1
STUB
cat > fake/apt-get <<'STUB'
#!/bin/sh
echo "apt-get $*" >> "$APT_CALLS"
i=0
while [ $i -lt 50 ]; do echo "Unpacking something $i ..."; i=$((i + 1)); done
STUB
cat > fake/sudo <<'STUB'
#!/bin/sh
exec "$@"
STUB
chmod +x fake/*
export APT_CALLS=$work/apt-calls
PATH=$work/fake:$PATH SETUP_LOG=$work/setup.log "$src/scripts/setup.sh" run > setup.out 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -l < setup.out)" = 1 ] &&
    grep -q "^setup: installing cmake .* (to build and run the tools; apt's output in $work/setup.log)$" setup.out &&
    grep -q "Unpacking something 49" setup.log; then
    ok "setup.sh run: $(cat setup.out)"
else
    bad "setup.sh run: status $rc"
    show setup.out
fi
install=$(grep "apt-get install" "$APT_CALLS")
if [ -n "$install" ] && ! echo "$install" | grep -Eq "clang|cmocka|npm|nodejs|chromium|ansible"; then
    ok "setup.sh run installs only what building, running and the run's page need"
else
    bad "setup.sh run installs: $install"
fi
: > "$APT_CALLS"
PATH=$work/fake:$PATH SETUP_LOG=$work/setup.log "$src/scripts/setup.sh" > setup-all.out 2>&1
if grep -q "apt-get install.*libcmocka-dev" "$APT_CALLS" && [ "$(wc -l < setup-all.out)" = 1 ]; then
    ok "setup.sh (all) installs the test packages too, in one line"
else
    bad "setup.sh (all)"
    show setup-all.out
fi
cli_end
