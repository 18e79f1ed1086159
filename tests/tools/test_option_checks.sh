#!/usr/bin/env bash
# Checks at start: every port option of every tool takes a number from 0 to 65535 or a service
# name this machine knows, anything else ends the tool with status 2 and a message naming the
# option; a combination ConsPerf cannot honour (posts or generic messages over rssl.json.v2
# without -addConversionOverhead) is refused at start with the option that enables it.
set -u
. "$(dirname "$0")/cli.sh"
cli_begin option-checks

# tool:option pairs of every port option.
ports=(ConsPerf:-p ConsPerf:-startingPort ConsPerf:-standbyPort ProvPerf:-p NIProvPerf:-p
    TransportPerf:-p TransportPerf:-sp TransportPerf:-rp TransportPerf:-u)
for tp in "${ports[@]}"; do
    tool=${tp%%:*}
    opt=${tp#*:}
    for v in 65536 -1 1e3 no-such-service-name ""; do
        run_tool out "$tool" "$opt" "$v"
        if [ "$rc" = 2 ] && grep -q "^Config Error: $opt" out; then
            :
        else
            bad "$tool $opt '$v': status $rc, not refused with the option named"
            show out 3
        fi
    done
    ok "$tool $opt: out-of-range and unknown ports refused (status 2, the option named)"
done
run_tool out ProvPerf -p 70000
has out "Config Error: -p 70000: a port is from 0 to 65535." && ok "the range in words" ||
    { bad "ProvPerf -p 70000 message"; show out 3; }
run_tool out ConsPerf -p nosuchservice
has out "Config Error: -p nosuchservice: not a port number (0-65535) nor a service name" &&
    ok "an unknown service name in words" || { bad "ConsPerf -p nosuchservice message"; show out 3; }

# In range, and a known service name, pass the check (-? after them: nothing is started).
for v in 0 1 14002 65535; do
    run_tool out ConsPerf -p "$v" -?
    [ "$rc" = 0 ] || bad "ConsPerf -p $v refused"
done
if getent services http >/dev/null 2>&1; then
    run_tool out TransportPerf -p http -?
    [ "$rc" = 0 ] && ok "a service name known to the machine is accepted" ||
        { bad "TransportPerf -p http refused"; show out 3; }
fi

# Posts and generic messages over rssl.json.v2 need the converter: refused at start.
run_tool out ConsPerf -connType websocket -pl rssl.json.v2 -postingRate 1000 \
    -postingLatencyRate 100
want="Config Error: -postingRate 1000 over WebSocket rssl.json.v2 needs -addConversionOverhead"
if [ "$rc" = 2 ] && has out "$want" && ! has out "TEST INPUTS"; then
    ok "posts over rssl.json.v2 without -addConversionOverhead refused at start"
else
    bad "posts over rssl.json.v2: status $rc"
    show out 5
fi
run_tool out ConsPerf -connType encrypted -encryptedConnType websocket -pl "rssl.rwf rssl.json.v2" \
    -genericMsgRate 1000
want="Config Error: -genericMsgRate 1000 over WebSocket rssl.json.v2 needs -addConversionOverhead"
if [ "$rc" = 2 ] && has out "$want"; then
    ok "generic messages offered over rssl.json.v2 (inside TLS) without the converter refused"
else
    bad "generic messages over rssl.json.v2: status $rc"
    show out 5
fi
# With the converter, over rssl.rwf alone, or through the watchlist, they are not refused: the
# run starts (and fails for want of a provider on port 1: status 1, not 2).
for args in "-pl rssl.json.v2 -postingRate 1000 -addConversionOverhead" \
    "-pl rssl.rwf -postingRate 1000" "-pl rssl.json.v2 -postingRate 1000 -watchlist"; do
    # shellcheck disable=SC2086
    run_tool out ConsPerf -connType websocket -p 1 -itemCount 10 -steadyStateTime 1 $args
    if [ "$rc" = 1 ] && has out "TEST INPUTS"; then
        ok "ConsPerf $args: not refused"
    else
        bad "ConsPerf $args: status $rc"
        show out 3
    fi
done
cli_end
