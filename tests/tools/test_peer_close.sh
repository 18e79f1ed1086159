#!/usr/bin/env bash
# A normal close by the peer is reported as one, in words: a consumer that ends its run closes
# its connection in order, and the provider says "Channel Closed: the peer closed the
# connection normally" (the original: "Channel Closed: RSSL_RET_FAILURE(recv: Connection reset
# by peer)", or "RSSL_RET_FAILURE(WS Code 1000 Normal Closure)" over WebSocket) for RIPC over
# TCP, WebSocket rssl.rwf, and TransportPerf's server for its client.
set -u
. "$(dirname "$0")/cli.sh"
cli_begin peer-close

# waits (10 s) for TEXT in FILE
wait_text() {
    local i
    for i in $(seq 1 200); do
        has "$1" "$2" && return 0
        sleep 0.05
    done
    return 1
}

pair() { # LABEL PROV-ARGS CONS-ARGS
    local l=$1 pargs=$2 cargs=$3 port
    # shellcheck disable=SC2086
    start_tool "prov_$l.out" ProvPerf -p 0 -runTime 30 -tickRate 100 -updateRate 10000 $pargs
    local prov=$last_pid
    port=$(prov_port "prov_$l.out")
    if [ -z "$port" ]; then
        bad "$l: ProvPerf did not start"
        show "prov_$l.out"
        return
    fi
    # shellcheck disable=SC2086
    run_tool "cons_$l.out" ConsPerf -p "$port" -itemCount 100 -steadyStateTime 2 $cargs
    if [ "$rc" != 0 ]; then
        bad "$l: ConsPerf status $rc"
        show "cons_$l.out"
    elif wait_text "prov_$l.out" "Channel Closed: the peer closed the connection normally" &&
        ! has "prov_$l.out" "RSSL_RET_FAILURE"; then
        ok "$l: $(grep -m1 "Channel Closed" "prov_$l.out")"
    else
        bad "$l: the consumer's end not reported as a normal close"
        grep "Channel Closed" "prov_$l.out"
    fi
    kill -INT "$prov" 2>/dev/null
    wait "$prov" 2>/dev/null
}

pair ripc "" ""
pair websocket "-pl rssl.rwf" "-connType websocket -pl rssl.rwf"
pair json "-pl rssl.json.v2" "-connType websocket -pl rssl.json.v2"

# TransportPerf: the client ends its run, the server says how.
start_tool srv.out TransportPerf -appType server -p 0 -runTime 30 -msgRate 0 -latencyMsgRate 0
srv=$last_pid
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*bound on port \([0-9]*\).*/\1/p;s/^Server [0-9]* bound to port \([0-9]*\)\..*/\1/p' srv.out | head -1)
    [ -n "$port" ] && break
    sleep 0.05
done
if [ -z "$port" ]; then
    bad "TransportPerf server did not start"
    show srv.out
else
    run_tool cli.out TransportPerf -appType client -p "$port" -runTime 1 -msgRate 1000 \
        -latencyMsgRate 10 -tickRate 100
    if [ "$rc" = 0 ] && wait_text srv.out "Channel Closed: the peer closed the connection normally"
    then
        ok "TransportPerf: $(grep -m1 "Channel Closed" srv.out)"
    else
        bad "TransportPerf: client status $rc, server's line:"
        grep "Channel Closed" srv.out
        show cli.out 5
    fi
fi
kill -INT "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
cli_end
