#!/usr/bin/env bash
# ConsPerf -tunnel and ProvPerf -reactor with tunnel streams, on loopback:
#   ours   our ProvPerf -reactor <- our ConsPerf -watchlist -tunnel with posts and generic
#          messages and -tunnelStreamBuffersUsed on both sides: every image, the console lines
#          of the original ("Opened Tunnel Stream.", the status events, the buffer usage lines,
#          "Tunnel stream has closed."), posts reflected and generic messages received inside
#          the tunnel; -reactor -tunnel -tunnelAuth: the login inside, "Client was
#          authenticated."; against the bare ProvPerf: the request refused twice (stream
#          version 2, then 1) with the reason, "Failed to receive all images"; -tunnel without
#          -reactor or -watchlist: exit 2 with the original's message.
#   orig   (RWFPERF_ORIG_BIN set) our ConsPerf -watchlist -tunnel <- the original ProvPerf
#          -reactor, and the original ConsPerf -watchlist -tunnel <- our ProvPerf -reactor:
#          2,000 items at 100,000 updates/s, 1,000 posts/s and 1,000 generic messages/s (100 of
#          each stamped): every image, the update rate, posts reflected, posting latency.
# The cases of "ours" are independent (each its own tools and ports) and mostly wait on run
# times, so they run at the same time (par.sh).
# Usage: test_tunnel_tools.sh ours|orig
set -euo pipefail
what=${1:-ours}
bin=${RWFPERF_BIN:?RWFPERF_BIN names the folder of the executables}
src=${RWFPERF_SOURCE_DIR:?}
if [ "$what" = orig ] && { [ -z "${RWFPERF_ORIG_BIN:-}" ] || [ ! -x "$RWFPERF_ORIG_BIN/ProvPerf" ]; }; then
    echo "SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools"
    exit 77
fi
orig=${RWFPERF_ORIG_BIN:-}
dir=$(mktemp -d /tmp/rwfperf_tunnel_tools.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
# shellcheck source=par.sh
. "$src/tests/tools/par.sh"
PAR_JOBS=${PAR_JOBS:-4}
cd "$dir"
cp "$src/data/RDMFieldDictionary" "$src/data/enumtype.def" "$src/data/MsgData.xml" .
"$src/data/gen_items.sh" 2000 > 350k.xml
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
has() { grep -qF -- "$2" "$1"; }
num() { sed -n "s/^  $2: \([0-9]*\)\$/\1/p" "$1" | head -1; }

pair() { # pair PROV-BIN CONS-BIN LABEL "PROV-ARGS" "CONS-ARGS": ConsPerf's status in rc
    local p
    p=$(free_port)
    # shellcheck disable=SC2086
    "$1/ProvPerf" -p "$p" -runTime 30 -summaryFile "prov_$3.sum" $4 > "prov_$3.out" 2>&1 &
    local pp=$!
    sleep 1.5 # the original ProvPerf -reactor hangs on a connection before its reactor is made
    rc=0
    # shellcheck disable=SC2086
    timeout 60 "$2/ConsPerf" -h 127.0.0.1 -p "$p" -summaryFile "cons_$3.sum" $5 \
        > "cons_$3.out" 2>&1 || rc=$?
    kill -INT "$pp" 2>/dev/null || true
    wait "$pp" || true
}

expect() { # expect FILE LABEL LINE...
    local f=$1 l=$2 miss=""
    shift 2
    for line in "$@"; do has "$f" "$line" || miss="$miss [$line]"; done
    if [ -z "$miss" ]; then ok "$l"; else bad "$l: missing$miss"; tail -40 "$f"; fi
}

slow="-tickRate 10 -updateRate 10"
cslow="-itemCount 5 -steadyStateTime 5 -tickRate 10 -postingRate 10 -postingLatencyRate 2 \
-genericMsgRate 10 -genericMsgLatencyRate 2"

watchlist_tunnel() {
    local reflected gen
    pair "$bin" "$bin" wl "-reactor $slow -tunnelStreamBuffersUsed" \
        "-watchlist -tunnel -tunnelStreamBuffersUsed $cslow"
    [ "$rc" = 0 ] && has cons_wl.sum "Refreshes received: 5" && ok "watchlist tunnel: every image" ||
        bad "watchlist tunnel: status $rc"
    expect cons_wl.out "ConsPerf's tunnel lines" "          Tunnel Enabled: Yes" \
        " Print Usage Tunnel Bufs: Yes" "Opened Tunnel Stream." \
        "Received RsslTunnelStreamStatusEvent for stream \"ConsPerf\", with Stream ID 1000 and State: Open/Ok/None - text: \"\"" \
        "  TunnelStreamBufferUsed: Avg:   0.0 StdDev:   0.0 Max:     0 Min:     0, Samples: " \
        "Tunnel stream has closed."
    expect prov_wl.out "ProvPerf's tunnel lines" "Received TunnelStream request on Stream ID 4." \
        "Received RsslTunnelStreamStatusEvent for stream \"ConsPerf\", with Stream ID 4 and State: Open/Ok/None - text: \"Tunnel stream established.\"" \
        "  TunnelStreamBufferUsed: Avg:   1.0 StdDev:   0.0 Max:     1 Min:     1, Samples: " \
        " Print Usage Tunnel Bufs: Yes"
    reflected=$(num prov_wl.sum "Posts reflected")
    gen=$(num prov_wl.sum "GenMsgs received")
    if [ "${reflected:-0}" -ge 40 ] && [ "${gen:-0}" -ge 40 ] &&
        has cons_wl.sum "Posting latency avg (usec)"; then
        ok "posts ($reflected reflected) and generic messages ($gen) inside the tunnel"
    else
        bad "posts reflected '$reflected', generic messages '$gen'"
    fi
}

auth_tunnel() {
    pair "$bin" "$bin" auth "-reactor $slow" "-reactor -tunnel -tunnelAuth $cslow"
    [ "$rc" = 0 ] && has cons_auth.sum "Refreshes received: 5" && ok "authenticated tunnel: every image" ||
        bad "authenticated tunnel: status $rc"
    expect cons_auth.out "authentication inside the tunnel (ConsPerf)" \
        "with Stream ID 1000 and State: Open/Ok/None - text: \"Tunnel login accepted.\"" \
        "  Client was authenticated."
    expect prov_auth.out "authentication inside the tunnel (ProvPerf)" \
        "Received TunnelStream request on Stream ID 1000." \
        "Received login request on tunnel stream(ID 1000) with stream ID 1." \
        "Sent response to tunnel login request."
}

bare_provider() {
    pair "$bin" "$bin" bare "$slow" "-watchlist -tunnel -itemCount 5 -steadyStateTime 3 -tickRate 10"
    expect cons_bare.out "the bare ProvPerf refuses the tunnel (ConsPerf)" \
        "Received RsslTunnelStreamStatusEvent for stream \"ConsPerf\", with Stream ID 1000 and State: Closed/Suspect/Usage error - text: \"Item request rejected for stream id 5 - this provider does not support domain 127\"" \
        "Tunnel stream has closed." "Failed to receive all images within 3 seconds."
    expect prov_bare.out "the bare ProvPerf refuses the tunnel (ProvPerf)" \
        "Rejecting Item Request with streamId=4 and domain RSSL_DMT_SYSTEM.  Reason: DOMAIN_NOT_SUPPORTED" \
        "Rejecting Item Request with streamId=5 and domain RSSL_DMT_SYSTEM.  Reason: DOMAIN_NOT_SUPPORTED"
}

option_check() {
    local crc
    set +e
    "$bin/ConsPerf" -tunnel > cfg.out 2>&1
    crc=$?
    set -e
    if [ "$crc" = 2 ] && has cfg.out "Should add -reactor or -watchlist to create and use special tunnel streams."; then
        ok "-tunnel alone: exit 2 with the original's message"
    else
        bad "-tunnel alone: status $crc"; cat cfg.out
    fi
}

if [ "$what" = ours ]; then
    par_start watchlist_tunnel watchlist_tunnel
    par_start auth_tunnel auth_tunnel
    par_start bare_provider bare_provider
    par_start option_check option_check
    par_wait
else
    fast="-reactor -tickRate 1000 -updateRate 100000"
    cfast="-watchlist -tunnel -itemCount 2000 -steadyStateTime 10 -tickRate 1000 \
-postingRate 1000 -postingLatencyRate 100 -genericMsgRate 1000 -genericMsgLatencyRate 100"
    for p in "orig_prov:$orig:$bin" "orig_cons:$bin:$orig"; do
        IFS=: read -r l pb cb <<< "$p"
        pair "$pb" "$cb" "$l" "$fast -tunnelStreamBuffersUsed" "$cfast"
        rate=$(sed -n '/^Steady State Statistics:/,/^$/s/^  Avg update rate: \([0-9]*\)$/\1/p' \
            "cons_$l.sum" | head -1)
        reflected=$(num "prov_$l.sum" "Posts reflected")
        echo "$l: steady-state update rate ${rate:-none}, posts reflected ${reflected:-none}," \
            "$(grep -m1 'Posting latency avg' "cons_$l.sum" || echo 'no posting latency')"
        if [ "$rc" = 0 ] && has "cons_$l.sum" "Refreshes received: 2000" &&
            [ "${rate:-0}" -ge 90000 ] && [ "${reflected:-0}" -ge 8000 ] &&
            has "cons_$l.sum" "Posting latency avg (usec)"; then
            ok "$l: every image, ~100k updates/s, posts and their latency through the tunnel"
        else
            bad "$l: status $rc"; tail -30 "cons_$l.out"
        fi
    done
fi
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
