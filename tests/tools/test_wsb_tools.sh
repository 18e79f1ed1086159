#!/usr/bin/env bash
# ConsPerf -watchlist with warm standby, on loopback (our ProvPerf advertises warm standby with
# -supportStandby):
#   ours   two of our ProvPerf behind our ConsPerf, login and service based: each provider is
#          told its role (its console line), the standby sends no updates while standby; the
#          active one is killed (SIGKILL, by PID) mid-run: ConsPerf ends with status 0, every
#          image, updates after the switch from the other provider, every item open on it,
#          one switch-over and its time in the summary and the JSON summary, the promotion
#          time (loss detected to the standby made active) before the first update from it,
#          one status per item of the lost server counted. Providers that keep sending as
#          standby (-standbyIgnoreRole): only the active server's updates counted. A standby that
#          never comes up: the run completes on the active one (no switch). Providers without
#          -supportStandby: refused with the original's reason. Both providers
#          lost: a clear error, non-zero status. The options need -watchlist (exit 2 with the
#          original's message); an unknown mode is refused.
#   orig   (RWFPERF_ORIG_BIN set) the original ConsPerf behind two of our ProvPerf, both modes,
#          the active one killed: status 0, every image, updates from the other provider; our
#          ConsPerf against two original ProvPerf: refused with the original's reason (their
#          login refresh does not advertise warm standby).
# The cases are independent (each its own tools and ports) and mostly wait on run times, so
# they run PAR_JOBS (default 3) at a time (par.sh).
# Usage: test_wsb_tools.sh ours|orig
set -euo pipefail
what=${1:-ours}
bin=${RWFPERF_BIN:?RWFPERF_BIN names the folder of the executables}
src=${RWFPERF_SOURCE_DIR:?}
if [ "$what" = orig ] && { [ -z "${RWFPERF_ORIG_BIN:-}" ] || [ ! -x "$RWFPERF_ORIG_BIN/ConsPerf" ]; }; then
    echo "SKIP: RWFPERF_ORIG_BIN does not name a folder with the original tools"
    exit 77
fi
orig=${RWFPERF_ORIG_BIN:-}
dir=$(mktemp -d /tmp/rwfperf_wsb_tools.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
# shellcheck source=par.sh
. "$src/tests/tools/par.sh"
PAR_JOBS=${PAR_JOBS:-3}
cd "$dir"
cp "$src/data/RDMFieldDictionary" "$src/data/enumtype.def" "$src/data/MsgData.xml" .
items=500
"$src/data/gen_items.sh" $items > 350k.xml
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
has() { grep -qF -- "$2" "$1"; }
num() { sed -n "s/^  $2: \([0-9.]*\)\$/\1/p" "$1" | head -1; }
# The UpdRate of a provider's per-second console line NNN.
upd_at() { sed -n "s/^$2: UpdRate: *\([0-9]*\),.*/\1/p" "$1" | head -1; }

# run PROV-BIN CONS-BIN LABEL MODE KILL: two providers (A starting, B standby), the consumer
# with warm standby; KILL: "a" kills A 5 s after the providers started, "ab" both, "" none.
# B_PORT_DEAD=1: nothing listens on B's port. Sets rc (ConsPerf's status).
# shellcheck disable=SC2086
run() {
    local pa pb ppa ppb="" cp PROV_WSB=""
    # ours advertise warm standby with -supportStandby (NO_SUPPORT=1: without it)
    [ "$1" != "$bin" ] || [ "${NO_SUPPORT:-0}" = 1 ] || PROV_WSB=-supportStandby
    pa=$(free_port)
    pb=$(free_port)
    # IGNORE_ROLE=1: both keep sending updates as standby (-standbyIgnoreRole)
    [ "${IGNORE_ROLE:-0}" != 1 ] || PROV_WSB="$PROV_WSB -standbyIgnoreRole"
    "$1/ProvPerf" $PROV_WSB -p "$pa" -runTime 40 -updateRate 1000 -writeStatsInterval 1 \
        -summaryFile "provA_$3.sum" -statsFile "provA_$3_" > "provA_$3.out" 2>&1 &
    ppa=$!
    if [ "${B_PORT_DEAD:-0}" != 1 ]; then
        "$1/ProvPerf" $PROV_WSB -p "$pb" -runTime 40 -updateRate 1000 -writeStatsInterval 1 \
            -summaryFile "provB_$3.sum" -statsFile "provB_$3_" > "provB_$3.out" 2>&1 &
        ppb=$!
    fi
    sleep 1
    "$2/ConsPerf" -watchlist -itemCount $items -steadyStateTime 9 -startingHostName 127.0.0.1 \
        -startingPort "$pa" -standbyHostName 127.0.0.1 -standbyPort "$pb" -warmStandbyMode "$4" \
        -summaryFile "cons_$3.sum" -statsFile "cons_$3_" > "cons_$3.out" 2>&1 &
    cp=$!
    sleep 4
    case "$5" in
    a) kill -KILL "$ppa" ;;
    ab) kill -KILL "$ppa" ${ppb:+"$ppb"} ;;
    esac
    rc=0
    local waited=0
    while kill -0 "$cp" 2>/dev/null && [ $waited -lt 60 ]; do sleep 1; waited=$((waited + 1)); done
    kill -KILL "$cp" 2>/dev/null || true
    wait "$cp" || rc=$?
    kill -INT "$ppa" ${ppb:+"$ppb"} 2>/dev/null || true
    wait "$ppa" 2>/dev/null || true
    [ -z "$ppb" ] || wait "$ppb" 2>/dev/null || true
}

role_line() { # role_line MODE: the name of the role message of the mode
    [ "$1" = login ] && echo ConsumerConnectionStatus || echo ConsumerStatus
}

# the active server killed mid-run: the standby takes over (MODE login or service)
switch_over() {
    local mode=$1 l=$1 msg sw open after early active_early Mode promo first st
    run "$bin" "$bin" "$l" "$mode" a
    msg=$(role_line "$mode")
    sw=$(num "cons_$l.sum" "Warm standby switch-over time (msec)")
    open=$(num "cons_$l.sum" "Items open on the active server")
    after=$(num "provB_$l.sum" "Updates sent")
    early=$(upd_at "provB_$l.out" 002)
    active_early=$(upd_at "provA_$l.out" 002)
    echo "$mode: status $rc, switch-over ${sw:-none} ms, items open ${open:-none}," \
        "standby updates in second 2: ${early:-none} (active: ${active_early:-none})," \
        "updates from the standby: ${after:-none}"
    if [ "$rc" = 0 ] && has "cons_$l.sum" "Refreshes received: $items" &&
        has "cons_$l.sum" "Warm standby switch-overs: 1" && [ -n "$sw" ] &&
        [ "${open:-0}" = $items ] && [ "${after:-0}" -ge 2000 ]; then
        ok "$mode: the standby took over: every item open, updates after the switch"
    else
        bad "$mode: status $rc"; tail -30 "cons_$l.out"
    fi
    if [ "${early:-x}" = 0 ] && [ "${active_early:-0}" -gt 0 ]; then
        ok "$mode: no updates from the standby while standby"
    else
        bad "$mode: standby sent ${early:-?} updates/s in second 2 (active ${active_early:-?})"
    fi
    expect_lines() {
        local f=$1 miss=""
        shift
        for line in "$@"; do has "$f" "$line" || miss="$miss [$line]"; done
        [ -z "$miss" ] && ok "$mode: $f" || { bad "$mode: $f: missing$miss"; tail -30 "$f"; }
    }
    expect_lines "provA_$l.out" "Received $msg: this server is the active (WarmStandbyMode 0)."
    expect_lines "provB_$l.out" "Received $msg: this server is the standby (WarmStandbyMode 1)." \
        "Received $msg: this server is the active (WarmStandbyMode 0)."
    Mode=$([ "$mode" = login ] && echo Login || echo Service)
    expect_lines "cons_$l.out" "     Enable warm standby: Yes" \
        "       Warm standby mode: $Mode" "is the active server now." \
        "  Warm standby switch-overs: 1"
    if python3 - "cons_$l.sum.json" <<'EOF'; then
import json, sys
o = json.load(open(sys.argv[1]))["results"]["overall"]
assert o["wsb_switches"] == 1 and o["wsb_switch_over_ms"] >= 0 and o["wsb_items_open"] > 0, o
# the promotion comes first, the new active server's first update after it
assert 0 <= o["wsb_promotion_ms"] <= o["wsb_loss_to_first_update_ms"], o
EOF
        ok "$mode: switch-over and promotion times in the JSON summary"
    else
        bad "$mode: JSON summary"
    fi
    promo=$(num "cons_$l.sum" "Warm standby promotion time (msec)")
    first=$(num "cons_$l.sum" "Warm standby loss to first update (msec)")
    echo "$mode: promotion ${promo:-none} ms after the loss was detected, first update" \
        "${first:-none} ms after it"
    if [ -n "$promo" ] && [ -n "$first" ] &&
        ! python3 -c "import sys; p, f = map(float, sys.argv[1:]); sys.exit(not 0 <= p <= f)" \
            "$promo" "$first"; then
        bad "$mode: promotion $promo ms, first update $first ms: not in order"
    elif [ -n "$promo" ] && [ -n "$first" ] &&
        has "cons_$l.out" "Warm standby: promoted " &&
        has "cons_$l.out" "Warm standby: first update from the new active server "; then
        ok "$mode: promotion time and first update after the loss, summary and console"
    else
        bad "$mode: promotion lines missing"; grep -i "warm standby" "cons_$l.out" || true
    fi
    # every item of the lost active server got a status (Open: the run went on), counted
    # in the interval lines as the original counts them
    st=$(sed -n 's/^  - Received \([0-9]*\) status messages\.$/\1/p' "cons_$l.out" |
        awk '{ n += $1 } END { print n + 0 }')
    if [ "$st" = $items ] && has "cons_$l.sum" "Item status messages received: $items"; then
        ok "$mode: $st item statuses counted after the loss (interval lines and summary)"
    else
        bad "$mode: $st item statuses counted, $items expected"
    fi
}

# Providers that keep sending as standby (as the stand-ins of the original's captures):
# ConsPerf counts the active server's updates only, per service in service mode.
ignore_role() {
    local mode=$1 l=ignore_$1 got sa sb
    IGNORE_ROLE=1 run "$bin" "$bin" "$l" "$mode" ""
    got=$(num "cons_$l.sum" "Updates received")
    sa=$(num "provA_$l.sum" "Updates sent")
    sb=$(num "provB_$l.sum" "Updates sent")
    echo "$mode, standby ignoring its role: status $rc, received ${got:-none}," \
        "sent by the active ${sa:-none}, by the standby ${sb:-none}"
    # what the active sent, less what was in flight at the end (up to a second's worth)
    if [ "$rc" = 0 ] && [ -n "$got" ] && [ -n "$sa" ] && [ -n "$sb" ] &&
        [ "$sb" -ge 2000 ] && [ "$got" -le "$sa" ] && [ "$got" -ge $((sa - 1500)) ]; then
        ok "$mode: only the active server's updates counted (the standby sent $sb)"
    else
        bad "$mode: standby ignoring its role: status $rc"; tail -20 "cons_$l.out"
    fi
}

nostandby() {
    B_PORT_DEAD=1 run "$bin" "$bin" nostandby login ""
    if [ "$rc" = 0 ] && has cons_nostandby.sum "Refreshes received: $items" &&
        has cons_nostandby.sum "Warm standby switch-overs: 0" &&
        has cons_nostandby.out "Connection refused"; then
        ok "a standby that never comes up: the run completes on the active server"
    else
        bad "no standby: status $rc"; tail -30 cons_nostandby.out
    fi
}

both_lost() {
    local bst
    run "$bin" "$bin" both login ab
    # the items of the last server lost still get their statuses, counted before the end
    bst=$(num cons_both.sum "Item status messages received")
    if [ "$rc" != 0 ] && has cons_both.out "the standby server is not up" &&
        [ "${bst:-0}" -ge $items ] && ! grep -q 'Sanitizer\|Segmentation' cons_both.out; then
        ok "both providers lost: status $rc, the reason, $bst item statuses counted"
    else
        bad "both lost: status $rc"; tail -30 cons_both.out
    fi
}

nosupport() {
    NO_SUPPORT=1 run "$bin" "$bin" nosupport service ""
    if [ "$rc" != 0 ] &&
        has cons_nosupport.out "The login response doesn't support warm standby functionality."; then
        ok "ProvPerf without -supportStandby: refused with the original's reason (status $rc)"
    else
        bad "without -supportStandby: status $rc"; tail -20 cons_nosupport.out
    fi
}

options() {
    local crc crc2
    set +e
    "$bin/ConsPerf" -startingHostName a -startingPort 1 -standbyHostName b -standbyPort 2 \
        > cfg.out 2>&1
    crc=$?
    "$bin/ConsPerf" -watchlist -warmStandbyMode hot > cfg2.out 2>&1
    crc2=$?
    set -e
    if [ "$crc" = 2 ] &&
        has cfg.out "-watchlist must be specified in order to use the warm standby feature."; then
        ok "warm standby without -watchlist: exit 2 with the original's message"
    else
        bad "without -watchlist: status $crc"; cat cfg.out
    fi
    if [ "$crc2" = 2 ] && has cfg2.out "hot"; then
        ok "unknown warm standby mode: exit 2 naming it"
    else
        bad "unknown mode: status $crc2"; cat cfg2.out
    fi
}

if [ "$what" = ours ]; then
    for mode in login service; do
        par_start "switch_$mode" switch_over "$mode"
        par_start "ignore_$mode" ignore_role "$mode"
    done
    par_start nostandby nostandby
    par_start both_lost both_lost
    par_start nosupport nosupport
    par_start options options
    par_wait
else
    for mode in login service; do
        l=orig_$mode
        run "$bin" "$orig" "$l" "$mode" a
        after=$(num "provB_$l.sum" "Updates sent")
        echo "original ConsPerf, $mode: status $rc, updates from the standby: ${after:-none}"
        if [ "$rc" = 0 ] && has "cons_$l.sum" "Refreshes received: $items" &&
            [ "${after:-0}" -ge 2000 ] &&
            has "provB_$l.out" "this server is the standby (WarmStandbyMode 1)." &&
            has "provB_$l.out" "this server is the active (WarmStandbyMode 0)."; then
            ok "original ConsPerf, $mode: the standby took over"
        else
            bad "original ConsPerf, $mode: status $rc"; tail -30 "cons_$l.out"
        fi
    done
    run "$orig" "$bin" origprov login ""
    if [ "$rc" != 0 ] &&
        has cons_origprov.out "The login response doesn't support warm standby functionality."; then
        ok "our ConsPerf against the original ProvPerf: refused with the reason (status $rc)"
    else
        bad "against the original ProvPerf: status $rc"; tail -20 cons_origprov.out
    fi
fi
# A sanitizer's report in any tool's output (the ASan and TSan builds run this test too).
if grep -l 'Sanitizer' ./*.out 2>/dev/null; then
    bad "a sanitizer reported in the files above"; grep -h -A30 'Sanitizer' ./*.out | head -80
fi
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
