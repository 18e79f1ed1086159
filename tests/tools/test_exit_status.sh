#!/usr/bin/env bash
# Exit statuses a script can trust, each checked on the executables (status, console, files):
# ConsPerf stopped by SIGINT or SIGTERM before its steady state completed writes everything
# measured, says "interrupted" in its summary and JSON summary (passed: false) and exits 130 or
# 143; ProvPerf stopped by a signal ends normally (0); a failure that trying again cannot heal
# (a host name that does not resolve, a sub-protocol refused) ends ConsPerf, NIProvPerf and
# TransportPerf at once with status 1 and the reason on the console; a refused connection is
# tried again every second; a client that never connected (NIProvPerf, TransportPerf) exits 1
# with the reason.
set -u
. "$(dirname "$0")/cli.sh"
cli_begin exit-status

# waits (up to $3 s, default 10) for TEXT in FILE
wait_text() {
    local i
    for i in $(seq 1 $((${3:-10} * 20))); do
        has "$1" "$2" && return 0
        sleep 0.05
    done
    return 1
}
# a port nothing listens on
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
json_get() { # FILE PYTHON-EXPRESSION-ON-d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}

# ---- ConsPerf interrupted in its steady state (SIGINT): 130, interrupted, files written
start_tool prov.out ProvPerf -p 0 -runTime 60 -tickRate 100 -updateRate 10000
prov=$last_pid
port=$(prov_port prov.out)
[ -n "$port" ] || { bad "ProvPerf did not start"; show prov.out; cli_end; }
mkdir int && cd int
start_tool cons.out ConsPerf -p "$port" -itemCount 100 -steadyStateTime 15
cons=$last_pid
if wait_text cons.out "Image retrieval time" 10; then
    sleep 2
    kill -INT "$cons"
fi
wait "$cons"
rc=$?
passed=$(json_get ConsSummary.json 'd["results"]["passed"]')
interrupted=$(json_get ConsSummary.json 'd["results"]["interrupted"], d["results"]["signal"]')
if [ "$rc" = 130 ] && grep -q "^Test interrupted by SIGINT: [0-9.]* of the 15 seconds of steady state measured\.$" ConsSummary.out &&
    has cons.out "Test interrupted by SIGINT" && [ "$passed" = False ] &&
    [ "$interrupted" = "True SIGINT" ] && has ConsSummary.out "Steady State Statistics:" &&
    has ConsSummary.out "Refreshes received: 100" && [ -s ConsStats1.csv ]; then
    ok "ConsPerf SIGINT in the steady state: 130, $(grep -m1 "^Test interrupted" ConsSummary.out)"
else
    bad "ConsPerf SIGINT: status $rc, passed $passed, interrupted $interrupted"
    show cons.out 30
fi
cd ..

# ---- ProvPerf stopped by a signal: a normal end
kill -INT "$prov"
wait "$prov"
rc=$?
[ "$rc" = 0 ] && has prov.out "OVERALL SUMMARY" && ok "ProvPerf SIGINT: status 0, its summary" ||
    { bad "ProvPerf SIGINT: status $rc"; show prov.out; }

# ---- ConsPerf SIGTERM before its images (nothing listening: retried every second): 143
port=$(free_port)
mkdir term && cd term
start_tool cons.out ConsPerf -p "$port" -itemCount 10 -steadyStateTime 30
cons=$last_pid
sleep 2.5
kill -TERM "$cons"
wait "$cons"
rc=$?
tries=$(grep -c "Attempting to connect" cons.out)
interrupted=$(json_get ConsSummary.json 'd["results"]["interrupted"], d["results"]["passed"]')
if [ "$rc" = 143 ] && [ "$tries" -ge 2 ] &&
    has ConsSummary.out "Test interrupted by SIGTERM before the steady state began." &&
    has ConsSummary.out "Stopped by SIGTERM before all images were received" &&
    [ "$interrupted" = "True False" ]; then
    ok "ConsPerf SIGTERM before its images: 143, a refused connection tried $tries times"
else
    bad "ConsPerf SIGTERM: status $rc, $tries attempts, interrupted/passed $interrupted"
    show cons.out 30
fi
cd ..

# ---- a host name that does not resolve: at once, status 1, the reason on the console
getent hosts nosuch.invalid > /dev/null 2>&1
if [ $? != 2 ]; then
    echo "note: this resolver does not say that nosuch.invalid does not exist; skipped"
else
    start=$(date +%s)
    run_tool cons_name.out ConsPerf -h nosuch.invalid -p 14002 -itemCount 10 -steadyStateTime 30
    secs=$(($(date +%s) - start))
    if [ "$rc" = 1 ] && [ "$secs" -lt 10 ] && [ "$(grep -c "Attempting to connect" cons_name.out)" = 1 ] &&
        grep -q "^Error: connection to nosuch.invalid:14002 cannot succeed: cannot resolve" cons_name.out; then
        ok "ConsPerf -h nosuch.invalid: status 1 in ${secs} s, $(grep -m1 "^Error" cons_name.out)"
    else
        bad "ConsPerf -h nosuch.invalid: status $rc after $secs s"
        show cons_name.out
    fi
    for mode in "" -reactor; do
        start=$(date +%s)
        # shellcheck disable=SC2086
        run_tool ni_name.out NIProvPerf -h nosuch.invalid -p 14003 -itemCount 5 -runTime 30 $mode
        secs=$(($(date +%s) - start))
        if [ "$rc" = 1 ] && [ "$secs" -lt 10 ] && grep -q "^Error: .*cannot resolve" ni_name.out; then
            ok "NIProvPerf $mode -h nosuch.invalid: status 1 in ${secs} s"
        else
            bad "NIProvPerf $mode -h nosuch.invalid: status $rc after $secs s"
            show ni_name.out
        fi
    done
    start=$(date +%s)
    run_tool tp_name.out TransportPerf -appType client -h nosuch.invalid -p 14004 -runTime 30
    secs=$(($(date +%s) - start))
    if [ "$rc" = 1 ] && [ "$secs" -lt 10 ] && grep -q "^Error: .*cannot resolve" tp_name.out; then
        ok "TransportPerf -h nosuch.invalid: status 1 in ${secs} s"
    else
        bad "TransportPerf -h nosuch.invalid: status $rc after $secs s"
        show tp_name.out
    fi
fi

# ---- a sub-protocol refused (ConsPerf asks rssl.json.v2 of a provider that takes rssl.rwf)
start_tool prov_ws.out ProvPerf -p 0 -runTime 30 -pl rssl.rwf
prov=$last_pid
port=$(prov_port prov_ws.out)
start=$(date +%s)
run_tool cons_ws.out ConsPerf -p "$port" -connType websocket -pl rssl.json.v2 -itemCount 10 \
    -steadyStateTime 30
secs=$(($(date +%s) - start))
if [ "$rc" = 1 ] && [ "$secs" -lt 10 ] && grep -q "^Error: connection to .* cannot succeed" cons_ws.out &&
    [ "$(grep -c "Attempting to connect" cons_ws.out)" = 1 ]; then
    ok "ConsPerf, sub-protocol refused: status 1 in ${secs} s, $(grep -m1 "^Error" cons_ws.out | cut -c1-120)"
else
    bad "ConsPerf, sub-protocol refused: status $rc after $secs s"
    show cons_ws.out
fi
kill -INT "$prov"
wait "$prov"

# ---- clients that never connected (refused, retried every second): status 1 with the reason
port=$(free_port)
for mode in "" -reactor; do
    # shellcheck disable=SC2086
    run_tool ni.out NIProvPerf -p "$port" -itemCount 5 -runTime 3 $mode
    passed=$(json_get NIProvSummary.json 'd["results"]["passed"]')
    if [ "$rc" = 1 ] && grep -q "^Error: never connected to localhost:$port: .*refused" ni.out &&
        [ "$passed" != True ]; then
        ok "NIProvPerf $mode with nothing listening: status 1, $(grep -m1 "^Error" ni.out)"
    else
        bad "NIProvPerf $mode with nothing listening: status $rc, passed $passed"
        show ni.out
    fi
done
run_tool tp.out TransportPerf -appType client -p "$port" -runTime 3
if [ "$rc" = 1 ] && grep -q "^Error: thread 1 never connected to localhost:$port: .*refused" tp.out; then
    ok "TransportPerf with nothing listening: status 1, $(grep -m1 "^Error" tp.out)"
else
    bad "TransportPerf with nothing listening: status $rc"
    show tp.out
fi
cli_end
