#!/usr/bin/env bash
# The four tools over TLS on loopback (-connType encrypted), with throw-away certificates made
# by the openssl command in a temporary folder:
#   ours   ProvPerf -> ConsPerf: every image and the updates, TLS version and cipher in the
#          JSON summary and on the console of every tool ("TLS: TLSv1.3, <cipher>"); the wrong CA: ConsPerf names the reason once, retries, exits 1 with the
#          summary; a plain ConsPerf on the TLS port: ProvPerf closes only that connection and
#          serves the next; unusable server settings: exit 2 at start;
#          NIProvPerf: its channel comes up over TLS; with the wrong CA the reason once;
#          the Reactor modes: ConsPerf -reactor and -watchlist <- ProvPerf -reactor,
#          NIProvPerf -reactor;
#          TransportPerf one-way, -pack, lz4, reflect: counts match on both sides.
#   orig   (RWFPERF_ORIG_BIN set) our ConsPerf <- the original ProvPerf, the original ConsPerf
#          <- our ProvPerf (also in the Reactor modes), TransportPerf both ways.
# The cases are independent (each its own tools and ports) and mostly wait on run times, so
# they run PAR_JOBS at a time (par.sh).
# Usage: test_tls_tools.sh ours|orig
set -euo pipefail
what=${1:-ours}
bin=${RWFPERF_BIN:?RWFPERF_BIN names the folder of the executables}
src=${RWFPERF_SOURCE_DIR:?}
if [ "$what" = orig ] && { [ -z "${RWFPERF_ORIG_BIN:-}" ] || [ ! -x "$RWFPERF_ORIG_BIN/ProvPerf" ]; }; then
    echo "SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools"
    exit 77
fi
command -v openssl >/dev/null || { echo "SKIP: no openssl command"; exit 77; }
dir=$(mktemp -d /tmp/rwfperf_tls_tools.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
# shellcheck source=par.sh
. "$src/tests/tools/par.sh"
# shellcheck source=tperf_short.sh
. "$src/tests/tools/tperf_short.sh"
PAR_JOBS=${PAR_JOBS:-4}
cd "$dir"
cp "$src/data/RDMFieldDictionary" "$src/data/enumtype.def" "$src/data/MsgData.xml" .
"$src/data/gen_items.sh" 20 > 350k.xml
mk() { # mk NAME SUBJECT-CN SAN
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 2 \
        -subj "/CN=$2" -addext "subjectAltName=$3" 2>/dev/null
}
mk cert localhost "DNS:localhost,IP:127.0.0.1"
mk wrong localhost "DNS:localhost"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
has() { grep -qF -- "$2" "$1"; }
# the line an encrypted channel adds after its Channel Info block: "TLS: <version>, <cipher>"
tls_line() { grep -qE -- '^TLS: TLSv1\.[23], [A-Z0-9_-]+$' "$1"; }
count() { grep -cF -- "$2" "$1" || true; }

prov() { # prov BIN PORT OUT [args...]: an encrypted ProvPerf in the background
    local b=$1 p=$2 o=$3
    shift 3
    "$b/ProvPerf" -p "$p" -connType encrypted -keyfile cert.key -cert cert.pem -runTime 12 \
        -tickRate 10 -updateRate 50 "$@" > "$o" 2>&1 &
    sleep 1
}
cons() { # cons BIN PORT OUT [args...]: ConsPerf, returns its status
    local b=$1 p=$2 o=$3
    shift 3
    set +e
    "$b/ConsPerf" -h localhost -p "$p" -itemCount 5 -steadyStateTime 4 -tickRate 10 "$@" \
        > "$o" 2>&1
    local rc=$?
    set -e
    return $rc
}

consperf_pair() { # consperf_pair PROV-BIN CONS-BIN LABEL [PROV-ARGS [CONS-ARGS]]
    local p rc pa=${4:-} ca=${5:-}
    p=$(free_port)
    # shellcheck disable=SC2086
    prov "$1" "$p" "prov_$3.out" -summaryFile "prov_$3.sum.out" $pa
    # the original ProvPerf -reactor hangs on a connection before its reactor is made
    [[ " $pa " == *" -reactor "* ]] && sleep 1
    rc=0
    # shellcheck disable=SC2086
    cons "$2" "$p" "cons_$3.out" -connType encrypted -castore cert.pem \
        -summaryFile "cons_$3.sum.out" $ca || rc=$?
    # (ours: the negotiated version and cipher on the console, in every mode)
    if [ "$rc" = 0 ] && has "cons_$3.out" "Refreshes received: 5" &&
        has "cons_$3.out" "Connection Type: encrypted" &&
        has "cons_$3.out" "CA store location: cert.pem" &&
        { [ "$2" != "$bin" ] || tls_line "cons_$3.out"; } &&
        { [ "$1" != "$bin" ] || tls_line "prov_$3.out"; }; then
        ok "$3: ConsPerf got every image over TLS"
    else
        bad "$3: ConsPerf status $rc"; tail -30 "cons_$3.out"
    fi
    wait
}

tperf_pair() { # tperf_pair SERVER-BIN CLIENT-BIN LABEL [server args]
    local s=$1 c=$2 l=$3 p sent recv
    shift 3
    p=$(free_port)
    "$s/TransportPerf" -appType server -connType encrypted -keyfile cert.key -cert cert.pem \
        -p "$p" -runTime 4 -tickRate 100 -msgRate 10000 -latencyMsgRate 100 "$@" \
        > "srv_$l.out" 2>&1 &
    sleep 1
    # Our server's run ends first (its 4 s against the client's 1 + 5): it flushes what it has
    # queued and closes, and the client reads to the end. A client that closed first would lose
    # the tick in flight, which the server counted as sent. (The original server counts what it
    # still had queued when it closed: against it the client keeps the shorter run.)
    local crt=3
    [ "$s" = "$bin" ] && crt=5
    "$c/TransportPerf" -appType client -connType encrypted -encryptedConnType socket \
        -castore cert.pem -h localhost -p "$p" -runTime "$crt" -msgRate 0 -latencyMsgRate 0 \
        $( [[ " $* " == *" lz4 "* ]] && echo "-compressionType lz4") > "cli_$l.out" 2>&1 || true
    wait
    sent=$(sed -n 's/^ *Msgs Sent: \([0-9]*\).*/\1/p' "srv_$l.out" | tail -1)
    recv=$(sed -n 's/^ *Msgs Received: \([0-9]*\).*/\1/p' "cli_$l.out" | tail -1)
    # the original server's last burst may never leave it (tperf_short.sh); ours must deliver
    # every message it counted
    local short
    short=$(tperf_short "$s" "$sent" "$recv" "cli_$l.out")
    if [ -n "$sent" ] && [ "${sent:-0}" -gt 1000 ] && [[ "$recv" =~ ^[0-9]+$ ]] &&
        [ "$((recv + short))" = "$sent" ] && ! has "cli_$l.out" "out-of-order"; then
        ok "$l: TransportPerf client received $recv of the $sent messages sent over TLS"
    else
        bad "$l: sent '$sent', received '$recv'"; tail -20 "cli_$l.out"
    fi
}

ours() {
    consperf_pair "$bin" "$bin" ours
    # TEST INPUTS lines as the original's (the original's console in its TLS runs)
    local lines_ok=1 l
    for l in "         Connection Type: encrypted" "       CA store location: cert.pem" \
        "      TLS Protocol flags: 0"; do has cons_ours.out "$l" || lines_ok=0; done
    for l in "$(printf '\t\t  Connection Type: 1')" "             Private Key: cert.key" \
        "             Server Cert: cert.pem" "                  Cipher: "; do
        has prov_ours.out "$l" || lines_ok=0
    done
    if [ "$lines_ok" = 1 ]; then ok "TEST INPUTS lines of ConsPerf and ProvPerf"; else bad "TEST INPUTS lines"; fi
    if tls_line cons_ours.out && tls_line prov_ours.out; then
        ok "ConsPerf and ProvPerf: $(grep -m1 '^TLS: ' cons_ours.out) after the Channel Info block"
    else
        bad "the negotiated TLS version and cipher on the console"; grep -A2 "ComponentInfo" cons_ours.out prov_ours.out
    fi
    if python3 - cons_ours.sum.json prov_ours.sum.json <<'EOF'; then ok "JSON summaries record the TLS version and cipher"; else bad "JSON tls"; fi
import json, sys
for f in sys.argv[1:]:
    t = json.load(open(f))["results"]["tls"]
    assert t[0]["version"] in ("TLSv1.2", "TLSv1.3") and t[0]["cipher"] and t[0]["connections"] == 1, t
EOF
}

# the wrong CA: a failure that trying again cannot heal: one attempt, the reason named once on
# the console ("Error: ... cannot succeed") and in the summary, exit 1 at once; then a plain
# ConsPerf on the TLS port, then a TLS one: the provider keeps serving
wrong_ca() {
    local p rc n tries
    p=$(free_port)
    prov "$bin" "$p" prov_wrong.out -runTime 8
    rc=0
    cons "$bin" "$p" cons_wrong.out -connType encrypted -castore wrong.pem -steadyStateTime 3 || rc=$?
    n=$(count cons_wrong.out "self-signed certificate (unknown CA:")
    tries=$(count cons_wrong.out "Attempting to connect")
    if [ "$rc" = 1 ] && [ "$n" = 2 ] && [ "$tries" = 1 ] && has cons_wrong.out "TEST FAILED" &&
        has cons_wrong.out "OVERALL SUMMARY" && has cons_wrong.out "cannot succeed"; then
        ok "wrong CA: reason printed once (and in the summary), no second attempt, exit 1"
    else
        bad "wrong CA: status $rc, reason $n times, $tries attempts"; tail -20 cons_wrong.out
    fi
    rc=0
    cons "$bin" "$p" cons_plain.out -steadyStateTime 2 || rc=$?
    cons "$bin" "$p" cons_after.out -connType encrypted -castore cert.pem || rc=$?
    wait
    if has prov_wrong.out "the client is not speaking TLS" && has cons_after.out "Refreshes received: 5"; then
        ok "plain client on the TLS port: that connection closed, the next served"
    else
        bad "plain client on the TLS port"; tail -20 prov_wrong.out
    fi
}

# unusable server settings
bad_key() {
    local rc=0
    "$bin/ProvPerf" -connType encrypted -keyfile wrong.key -cert cert.pem -p 0 -runTime 1 \
        > prov_bad.out 2>&1 || rc=$?
    if [ "$rc" = 2 ] && has prov_bad.out "does not match the certificate"; then
        ok "ProvPerf with a key that does not match its certificate: exit 2"
    else
        bad "ProvPerf bad key: status $rc"; cat prov_bad.out
    fi
}

# NIProvPerf: the channel comes up over TLS; with the wrong CA, the reason once, no retry
ni() {
    local p
    p=$(free_port)
    prov "$bin" "$p" prov_ni.out -runTime 6
    "$bin/NIProvPerf" -h localhost -p "$p" -connType encrypted -castore cert.pem -runTime 2 \
        -itemCount 5 -tickRate 10 -updateRate 50 > ni.out 2>&1 || true
    "$bin/NIProvPerf" -h localhost -p "$p" -connType encrypted -castore wrong.pem -runTime 3 \
        -itemCount 5 -tickRate 10 -updateRate 50 > ni_wrong.out 2>&1 || true
    wait
    if has ni.out "Connection Type: encrypted" && has ni.out "active. Channel Info:" &&
        tls_line ni.out &&
        [ "$(count ni_wrong.out "unknown CA")" = 1 ] &&
        [ "$(count ni_wrong.out "Attempting unified connect")" = 1 ]; then
        ok "NIProvPerf over TLS; the wrong CA named once, not tried again"
    else
        bad "NIProvPerf"; tail -20 ni.out ni_wrong.out
    fi
}

# NIProvPerf -reactor
ni_rx() {
    local p
    p=$(free_port)
    prov "$bin" "$p" prov_ni_rx.out -runTime 6
    "$bin/NIProvPerf" -h localhost -p "$p" -connType encrypted -castore cert.pem -runTime 2 \
        -itemCount 5 -tickRate 10 -updateRate 50 -reactor > ni_rx.out 2>&1 || true
    wait
    if has ni_rx.out "Use Reactor: Yes" && has ni_rx.out "active. Channel Info:" && tls_line ni_rx.out &&
        has ni_rx.out "Created publishing list."; then
        ok "NIProvPerf -reactor over TLS"
    else
        bad "NIProvPerf -reactor"; tail -20 ni_rx.out
    fi
}

oneway() {
    tperf_pair "$bin" "$bin" oneway
    if has cli_oneway.out "Encrypted Connection Type: socket" &&
        has cli_oneway.out "$(printf '\t\t\t  CA Store: cert.pem')" &&
        has srv_oneway.out "$(printf '\tServer Private Key: cert.key')" &&
        has srv_oneway.out "$(printf '\tServer Certificate: cert.pem')" &&
        tls_line cli_oneway.out && tls_line srv_oneway.out; then
        ok "TEST INPUTS lines of TransportPerf, and the TLS line of each side"
    else
        bad "TransportPerf TEST INPUTS lines"
    fi
}

# reflect: the client's messages come back
reflect() {
    local p s r
    p=$(free_port)
    "$bin/TransportPerf" -appType server -connType encrypted -keyfile cert.key -cert cert.pem \
        -p "$p" -runTime 4 -tickRate 100 -reflectMsgs > srv_reflect.out 2>&1 &
    sleep 1
    "$bin/TransportPerf" -appType client -connType encrypted -castore cert.pem -h localhost \
        -p "$p" -runTime 2 -tickRate 100 -msgRate 5000 -latencyMsgRate 100 > cli_reflect.out 2>&1 || true
    wait
    s=$(sed -n 's/^ *Msgs Sent: \([0-9]*\).*/\1/p' cli_reflect.out | tail -1)
    r=$(sed -n 's/^ *Msgs Received: \([0-9]*\).*/\1/p' cli_reflect.out | tail -1)
    if [ -n "$s" ] && [ "${s:-0}" -gt 1000 ] && [ "$s" = "$r" ]; then
        ok "reflect over TLS: $r of $s back"
    else
        bad "reflect: sent '$s' received '$r'"; tail -20 cli_reflect.out
    fi
}

if [ "$what" = ours ]; then
    # the longest first
    par_start wrong_ca wrong_ca
    par_start ours ours
    # the Reactor modes over TLS: ProvPerf -reactor, ConsPerf -reactor and -watchlist;
    # NIProvPerf -reactor
    par_start ours_reactor consperf_pair "$bin" "$bin" ours_reactor -reactor -reactor
    par_start ours_watchlist consperf_pair "$bin" "$bin" ours_watchlist -reactor -watchlist
    par_start ni ni
    par_start ni_rx ni_rx
    par_start oneway oneway
    par_start pack tperf_pair "$bin" "$bin" pack -pack 10
    par_start lz4 tperf_pair "$bin" "$bin" lz4 -compressionType lz4
    par_start reflect reflect
    par_start bad_key bad_key
    par_wait
else
    o=$RWFPERF_ORIG_BIN
    consperf_pair "$o" "$bin" orig_prov_our_cons
    consperf_pair "$bin" "$o" our_prov_orig_cons
    consperf_pair "$o" "$bin" orig_prov_our_watchlist -reactor -watchlist
    consperf_pair "$bin" "$o" our_prov_orig_reactor -reactor -reactor
    tperf_pair "$o" "$bin" orig_server_our_client
    tperf_pair "$bin" "$o" our_server_orig_client
    tperf_pair "$bin" "$o" our_server_orig_client_pack -pack 10
fi
echo "$fails failed"
[ "$fails" = 0 ]
