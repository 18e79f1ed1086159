#!/usr/bin/env bash
# The tools over WebSocket on loopback, both sub-protocols (rssl.rwf: RIPC in binary frames;
# rssl.json.v2: JSON in text frames), plain and inside TLS (throw-away certificates made by the
# openssl command in a temporary folder):
#   ours   ProvPerf -pl "rssl.rwf, rssl.json.v2" -> ConsPerf -connType websocket: every image,
#          the updates and their latency, in each sub-protocol, with packing and with zlib
#          (RIPC compression / permessage-deflate); JSON posts and generic messages with
#          -addConversionOverhead, refused at start without it;
#          -calcRWFJSONConversionLatency; the same inside TLS; a ProvPerf without -pl refuses
#          WebSocket clients (400 and the reason) and still serves a RIPC one on the port;
#          TransportPerf client and server in both sub-protocols (one-way, -pack, reflect),
#          also inside TLS; NIProvPerf -encryptedConnType websocket; ConsPerf -reactor and
#          -watchlist over WebSocket (both sub-protocols, to ProvPerf -reactor -pl too, inside
#          TLS, posts and generic messages through the watchlist in JSON).
#   orig   (RWFPERF_ORIG_BIN set) our ConsPerf <- the original ProvPerf -pl "rssl.rwf,
#          rssl.json.v2" in both sub-protocols; the original ConsPerf -connType websocket -pl
#          rssl.rwf and -pl rssl.json.v2 <- our ProvPerf; the same inside TLS
#          (-connType encrypted -encryptedConnType websocket); the reactor modes each way
#          (-reactor, -watchlist against a -reactor provider); TransportPerf both ways in
#          rssl.rwf (and tr_json2).
# The cases are independent (each its own tools and ports) and mostly wait on run times, so
# they run PAR_JOBS at a time (par.sh).
# Usage: test_ws_tools.sh ours|orig
set -euo pipefail
what=${1:-ours}
bin=${RWFPERF_BIN:?RWFPERF_BIN names the folder of the executables}
src=${RWFPERF_SOURCE_DIR:?}
if [ "$what" = orig ] && { [ -z "${RWFPERF_ORIG_BIN:-}" ] || [ ! -x "$RWFPERF_ORIG_BIN/ProvPerf" ]; }; then
    echo "SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools"
    exit 77
fi
command -v openssl >/dev/null || { echo "SKIP: no openssl command"; exit 77; }
dir=$(mktemp -d /tmp/rwfperf_ws_tools.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
# shellcheck source=par.sh
. "$src/tests/tools/par.sh"
# shellcheck source=tperf_short.sh
. "$src/tests/tools/tperf_short.sh"
PAR_JOBS=${PAR_JOBS:-4}
cd "$dir"
cp "$src/data/RDMFieldDictionary" "$src/data/enumtype.def" "$src/data/MsgData.xml" .
"$src/data/gen_items.sh" 20 > 350k.xml
openssl req -x509 -newkey rsa:2048 -nodes -keyout cert.key -out cert.pem -days 2 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
has() { grep -qF -- "$2" "$1"; }
num() { sed -n "s/^ *$2: \([0-9]*\).*/\1/p" "$1" | tail -1; }
TLS_SRV=(-connType encrypted -keyfile cert.key -cert cert.pem)
TLS_CLI=(-connType encrypted -encryptedConnType websocket -castore cert.pem)

prov() { # prov BIN PORT OUT [args...]: ProvPerf with both sub-protocols, in the background
    local b=$1 p=$2 o=$3
    shift 3
    "$b/ProvPerf" -p "$p" -pl "rssl.rwf, rssl.json.v2" -runTime 12 -tickRate 10 -updateRate 50 \
        -latencyUpdateRate 10 "$@" > "$o" 2>&1 &
    prov_pid=$!
    sleep 1
}
cons() { # cons BIN PORT OUT [args...]: ConsPerf, returns its status
    local b=$1 p=$2 o=$3
    shift 3
    set +e
    "$b/ConsPerf" -h localhost -p "$p" -itemCount 5 -steadyStateTime 5 -tickRate 10 "$@" \
        > "$o" 2>&1
    local rc=$?
    set -e
    return $rc
}

# consperf_pair PROV-BIN CONS-BIN LABEL PL "PROV-ARGS" [CONS-ARGS...]
consperf_pair() {
    local pb=$1 cb=$2 l=$3 pl=$4 pargs=$5 p rc
    shift 5
    p=$(free_port)
    # shellcheck disable=SC2086
    prov "$pb" "$p" "prov_$l.out" $pargs
    rc=0
    cons "$cb" "$p" "cons_$l.out" -pl "$pl" "$@" || rc=$?
    kill -INT "$prov_pid" 2>/dev/null || true # the provider's summary is not needed
    wait "$prov_pid" || true
    local lat
    lat=$(grep -c "Latency avg" "cons_$l.out" || true)
    if [ "$rc" = 0 ] && has "cons_$l.out" "Refreshes received: 5" &&
        [ "$(num "cons_$l.out" "Updates received")" -gt 100 ] && [ "$lat" -gt 0 ] &&
        has "cons_$l.out" "WS Protocol List: $pl"; then
        ok "$l: ConsPerf got every image and timed updates ($pl)"
    else
        bad "$l: ConsPerf status $rc ($pl)"; tail -30 "cons_$l.out"; tail -5 "prov_$l.out"
    fi
}

# tperf_pair SERVER-BIN CLIENT-BIN LABEL PL "SERVER-ARGS" [CLIENT-ARGS...]
tperf_pair() {
    local s=$1 c=$2 l=$3 pl=$4 sargs=$5 p sent recv
    shift 5
    p=$(free_port)
    # shellcheck disable=SC2086
    "$s/TransportPerf" -appType server -connType websocket -pl "$pl" -p "$p" -runTime 4 \
        -tickRate 100 -msgRate 10000 -latencyMsgRate 100 $sargs > "srv_$l.out" 2>&1 &
    sleep 1
    "$c/TransportPerf" -appType client -pl "$pl" -h localhost -p "$p" -runTime 5 -msgRate 0 \
        -latencyMsgRate 0 "$@" > "cli_$l.out" 2>&1 || true
    wait
    sent=$(num "srv_$l.out" "Msgs Sent")
    recv=$(num "cli_$l.out" "Msgs Received")
    # the original client counts every JSON message twice
    if [ "$pl" = tr_json2 ] && [[ "$c" == "${RWFPERF_ORIG_BIN:-/none}" ]]; then
        recv=$((recv / 2))
    fi
    # the original server's last burst may never leave it (tperf_short.sh)
    local short
    short=$(tperf_short "$s" "$sent" "$recv" "cli_$l.out")
    if [ -n "$sent" ] && [ "${sent:-0}" -gt 1000 ] && [ "$((recv + short))" = "$sent" ] &&
        ! has "cli_$l.out" "out-of-order"; then
        if [ "$short" -gt 0 ]; then
            ok "$l: TransportPerf client received $recv of $sent, in order; the $short the" \
                "original server had queued at its end never left it ($pl)"
        else
            ok "$l: TransportPerf client received all $recv messages ($pl)"
        fi
    else
        bad "$l: sent '$sent', received '$recv' ($pl)"; tail -n 20 "cli_$l.out" "srv_$l.out"
    fi
}

gen="-latencyUpdateRate 5 -genericMsgRate 10 -genericMsgLatencyRate 5"
pg=(-postingRate 10 -postingLatencyRate 5 -genericMsgRate 10 -genericMsgLatencyRate 5)
watchlist_postgen() {
    consperf_pair "$bin" "$bin" watchlist_postgen rssl.json.v2 "-reactor $gen" \
        -connType websocket -watchlist "${pg[@]}"
    if [ "$(num cons_watchlist_postgen.out "Posts sent")" -gt 10 ] &&
        [ "$(num cons_watchlist_postgen.out "GenMsgs sent")" -gt 10 ] &&
        [ "$(num cons_watchlist_postgen.out "GenMsgs received")" -gt 10 ]; then
        ok "watchlist over rssl.json.v2: posts and generic messages both ways"
    else
        bad "watchlist over rssl.json.v2: posts and generic messages"
        tail -30 cons_watchlist_postgen.out
    fi
}

# JSON posts and generic messages: sent with the converter, refused natively
conv() {
    consperf_pair "$bin" "$bin" conv rssl.json.v2 "$gen" -connType websocket \
        -addConversionOverhead "${pg[@]}"
    if [ "$(num cons_conv.out "Posts sent")" -gt 10 ] &&
        [ "$(num cons_conv.out "GenMsgs sent")" -gt 10 ] &&
        [ "$(num cons_conv.out "GenMsgs received")" -gt 10 ] &&
        has cons_conv.out "Use JSON Converter: Yes"; then
        ok "conversion mode: posts and generic messages both ways"
    else
        bad "conversion mode"; tail -30 cons_conv.out
    fi
}
native() {
    # Posts or generic messages asked for natively (no converter): refused at start, naming
    # the option that sends them (the original sends none and says so only at the end).
    local rc=0
    cons "$bin" 1 cons_native_refused.out -connType websocket -pl rssl.json.v2 "${pg[@]}" || rc=$?
    if [ "$rc" = 2 ] &&
        has cons_native_refused.out "-postingRate 10 over WebSocket rssl.json.v2 needs -addConversionOverhead"; then
        ok "native mode: posts without the converter refused at start (exit 2, the option named)"
    else
        bad "native mode posts: status $rc"; tail -5 cons_native_refused.out
    fi
    # Natively, ConsPerf still receives and measures the provider's generic messages.
    consperf_pair "$bin" "$bin" native rssl.json.v2 "$gen" -connType websocket
    if [ "$(num cons_native.out "GenMsgs received")" -gt 10 ]; then
        ok "native mode: the provider's generic messages received"
    else
        bad "native mode generic messages"; tail -30 cons_native.out
    fi
}
calc() {
    consperf_pair "$bin" "$bin" calc rssl.rwf "" -connType websocket \
        -calcRWFJSONConversionLatency
    if has cons_calc.out "Latency Show JSON Conv: Yes"; then
        ok "-calcRWFJSONConversionLatency"
    else
        bad "-calcRWFJSONConversionLatency"
    fi
}

# a ProvPerf without -pl refuses WebSocket clients and still serves RIPC ones
nopl() {
    local p rc=0
    p=$(free_port)
    "$bin/ProvPerf" -p "$p" -runTime 9 -tickRate 10 -updateRate 50 > prov_nopl.out 2>&1 &
    sleep 1
    cons "$bin" "$p" cons_nopl.out -connType websocket -pl rssl.rwf -steadyStateTime 2 || rc=$?
    cons "$bin" "$p" cons_ripc.out || rc=$?
    wait
    if has cons_nopl.out "status code 400 Bad Request" && has cons_nopl.out "no -pl list" &&
        has prov_nopl.out "this server accepts no WebSocket sub-protocol" &&
        has cons_ripc.out "Refreshes received: 5"; then
        ok "no -pl: WebSocket refused with 400 and the reason, RIPC served on the same port"
    else
        bad "no -pl"; tail -n 20 cons_nopl.out prov_nopl.out
    fi
}

# reflect: the client's messages come back (rssl.rwf and JSON)
reflect() {
    local pl=$1 p s r
    p=$(free_port)
    "$bin/TransportPerf" -appType server -connType websocket -pl "$pl" -p "$p" -runTime 4 \
        -tickRate 100 -reflectMsgs > "srv_reflect_$pl.out" 2>&1 &
    sleep 1
    "$bin/TransportPerf" -appType client -connType websocket -pl "$pl" -h localhost -p "$p" \
        -runTime 2 -tickRate 100 -msgRate 5000 -latencyMsgRate 100 > "cli_reflect_$pl.out" 2>&1 ||
        true
    wait
    s=$(num "cli_reflect_$pl.out" "Msgs Sent")
    r=$(num "cli_reflect_$pl.out" "Msgs Received")
    if [ -n "$s" ] && [ "${s:-0}" -gt 1000 ] && [ "$s" = "$r" ]; then
        ok "reflect ($pl): $r of $s back"
    else
        bad "reflect ($pl): sent '$s' received '$r'"; tail -20 "cli_reflect_$pl.out"
    fi
}

# TransportPerf inside TLS; the server's run ends first (4 s against the client's 1 + 5): it
# flushes what it counted as sent and closes, the client reads to the end
tperf_tls() {
    local p
    p=$(free_port)
    "$bin/TransportPerf" -appType server "${TLS_SRV[@]}" -pl rssl.rwf -p "$p" -runTime 4 \
        -tickRate 100 -msgRate 10000 -latencyMsgRate 100 > srv_tls.out 2>&1 &
    sleep 1
    "$bin/TransportPerf" -appType client "${TLS_CLI[@]}" -pl rssl.rwf -h localhost -p "$p" \
        -runTime 5 -msgRate 0 -latencyMsgRate 0 > cli_tls.out 2>&1 || true
    wait
    if [ "$(num srv_tls.out "Msgs Sent")" = "$(num cli_tls.out "Msgs Received")" ] &&
        [ "$(num cli_tls.out "Msgs Received")" -gt 1000 ]; then
        ok "TransportPerf over encrypted WebSocket"
    else
        bad "TransportPerf over encrypted WebSocket"; tail -20 cli_tls.out
    fi
}

# NIProvPerf inside TLS over WebSocket, bare and -reactor
ni() {
    local l=$1 p
    shift
    p=$(free_port)
    prov "$bin" "$p" "prov_$l.out" "${TLS_SRV[@]}" -runTime 6 "$@"
    "$bin/NIProvPerf" -h localhost -p "$p" "${TLS_CLI[@]}" -runTime 2 -itemCount 5 \
        -tickRate 10 -updateRate 50 "$@" > "$l.out" 2>&1 || true
    wait
    if [ $# = 0 ] && has "$l.out" "active. Channel Info:"; then
        ok "NIProvPerf over encrypted WebSocket (rssl.rwf)"
    elif [ $# != 0 ] && grep -q "Channel Info:" "$l.out" && ! grep -qi "error" "$l.out"; then
        ok "NIProvPerf $* over encrypted WebSocket (rssl.rwf)"
    else
        bad "NIProvPerf $* over encrypted WebSocket"; tail -20 "$l.out" "prov_$l.out"
    fi
}

if [ "$what" = ours ]; then
    # the longest first
    par_start nopl nopl
    for pl in rssl.rwf rssl.json.v2; do
        par_start "plain_$pl" consperf_pair "$bin" "$bin" "plain_$pl" "$pl" "" -connType websocket
        par_start "pack_$pl" consperf_pair "$bin" "$bin" "pack_$pl" "$pl" \
            "-maxPackCount 5 -packBufSize 6000" -connType websocket
        par_start "zlib_$pl" consperf_pair "$bin" "$bin" "zlib_$pl" "$pl" "-compressionType 1" \
            -connType websocket -compressionType 1
        par_start "tls_$pl" consperf_pair "$bin" "$bin" "tls_$pl" "$pl" "${TLS_SRV[*]}" \
            "${TLS_CLI[@]}"
        # over the reactor layer (it converts rssl.json.v2 in its worker), to a bare and to a
        # reactor provider, in the clear and inside TLS
        par_start "reactor_$pl" consperf_pair "$bin" "$bin" "reactor_$pl" "$pl" "" \
            -connType websocket -reactor
        par_start "watchlist_$pl" consperf_pair "$bin" "$bin" "watchlist_$pl" "$pl" "-reactor" \
            -connType websocket -watchlist
        par_start "tls_watchlist_$pl" consperf_pair "$bin" "$bin" "tls_watchlist_$pl" "$pl" \
            "${TLS_SRV[*]}" "${TLS_CLI[@]}" -watchlist
    done
    par_start watchlist_postgen watchlist_postgen
    par_start conv conv
    par_start native native
    par_start calc calc
    for pl in rssl.rwf tr_json2; do
        par_start "oneway_$pl" tperf_pair "$bin" "$bin" "oneway_$pl" "$pl" "" -connType websocket
        par_start "tpack_$pl" tperf_pair "$bin" "$bin" "pack_$pl" "$pl" "-pack 10" \
            -connType websocket
        par_start "reflect_$pl" reflect "$pl"
    done
    par_start tperf_tls tperf_tls
    par_start ni ni ni
    par_start nirx ni nirx -reactor
    par_wait
    if has cons_plain_rssl.json.v2.out "Connection Type: websocket" &&
        has cons_plain_rssl.json.v2.out "JSON Allocator Size: 65536"; then
        ok "TEST INPUTS: websocket lines"
    else
        bad "TEST INPUTS lines"
    fi
    has prov_zlib_rssl.json.v2.out "compression: zlib" ||
        has prov_zlib_rssl.json.v2.out "compressionType: 1" ||
        has prov_zlib_rssl.json.v2.out "compressionType: zlib" ||
        echo "note: ProvPerf's channel info does not name the compression"
else
    o=$RWFPERF_ORIG_BIN
    for pl in rssl.rwf rssl.json.v2; do
        consperf_pair "$o" "$bin" "orig_prov_our_cons_$pl" "$pl" "" -connType websocket
        consperf_pair "$bin" "$o" "our_prov_orig_cons_$pl" "$pl" "" -connType websocket
        consperf_pair "$o" "$bin" "tls_orig_prov_our_cons_$pl" "$pl" "${TLS_SRV[*]}" \
            "${TLS_CLI[@]}"
        consperf_pair "$bin" "$o" "tls_our_prov_orig_cons_$pl" "$pl" "${TLS_SRV[*]}" \
            "${TLS_CLI[@]}"
        # the reactor layers: ours against the original's, each way
        consperf_pair "$o" "$bin" "orig_prov_our_watchlist_$pl" "$pl" "-reactor" \
            -connType websocket -watchlist
        consperf_pair "$o" "$bin" "orig_prov_our_reactor_$pl" "$pl" "" -connType websocket \
            -reactor
        consperf_pair "$bin" "$o" "our_prov_orig_watchlist_$pl" "$pl" "-reactor" \
            -connType websocket -watchlist
    done
    for pl in rssl.rwf tr_json2; do
        tperf_pair "$o" "$bin" "orig_server_our_client_$pl" "$pl" "" -connType websocket
        tperf_pair "$bin" "$o" "our_server_orig_client_$pl" "$pl" "" -connType websocket
    done
    tperf_pair "$bin" "$o" our_server_orig_client_pack rssl.rwf "-pack 10" -connType websocket
fi
echo "$fails failed"
[ "$fails" = 0 ]
