#!/usr/bin/env bash
# The fleet playbook (scripts/ansible/fleet.yml) across real hosts: three network namespaces
# joined by a bridge (198.19.<n>.0/24, inside the benchmark-testing range), each with its own
# sshd (a throw-away host key, an authorized key made here, listening on that namespace's
# address only) and its own host name; the controller runs ansible-playbook against an
# inventory of those addresses: prov1 (a provider), cons1 and cons2 (consumers).
#
#   1. Refused before anything starts, naming the host and the reason: an unknown group and so
#      no consumers, in one run; a variable of the wrong type (cons1), a host without the tools
#      (cons2), a port already taken on the provider host (prov1), an unreachable host (cons3)
#      and tools of another version (cons4, another name of cons2's host), in one run. Nothing
#      is left running, nothing started.
#   2. A run from the package (cpack's .deb unpacked on each host), -clock realtime, a test
#      clock skew of +2 ms on cons2's tools, chrony (a stand-in chronyc) on prov1: it passes;
#      every consumer got every image; every host's files came back; the combined update count
#      is the sum of the consumers'; the combined percentiles are those of a merge of the
#      fetched logs alone; the printed result begins with the combined block; each consumer's
#      measured clock offset to the provider is within its bound of the skew (-2 ms on cons2,
#      0 on cons1); prov1 reports chrony, the others an unknown synchronisation, so one-way
#      latency between hosts is marked not valid; the run's page (rwfperf-report) is written over
#      the results folder, its path printed, with a row per host and the combined figures.
#   3. A run from the build tree whose consumer on cons1 is killed mid-run: the play fails
#      naming cons1 and the signal, and prov1's and cons2's results are fetched and merged.
# The test prints the speed of run 2 (command to first update, last update to the printed
# result, the controller's CPU for the play). Every process it started (sshd, a listener) and
# every tool the plays started (found by their working folder) is ended by its id at the end.
# Skips (77) only without root or network namespaces.
set -uo pipefail
src=${RWFPERF_SOURCE_DIR:?}
build=${RWFPERF_BINARY_DIR:?}
bin=${RWFPERF_BIN:-$build/bin}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces and sshd)"
probe=rwfperf-probe-$$
ip netns add "$probe" 2>/dev/null || skip "cannot create a network namespace (ip netns add)"
ip netns del "$probe"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for p in ansible-playbook /usr/sbin/sshd ssh ssh-keygen unshare python3 cpack dpkg-deb; do
    command -v "$p" >/dev/null || { echo "FAIL: $p is missing (scripts/setup.sh installs it)"; exit 1; }
done

work=$(mktemp -d /tmp/rwfperf-fleet.XXXXXX)
id=$(printf '%04x' $((RANDOM % 65536)))
net=198.19.$((RANDOM % 200 + 20))
br=rfb$id
hosts=(prov1 cons1 cons2)
declare -A addr=([prov1]=$net.11 [cons1]=$net.12 [cons2]=$net.13)
pids=()

# Ends every tool a play started (its working folder is under $work/hosts) by its id.
kill_tools() {
    local p cwd
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        case $cwd in "$work"/hosts/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
    done
}
# The tools a play left running: their ids and command lines.
left_running() {
    local p cwd
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        case $cwd in "$work"/hosts/*) echo "${p#/proc/} $(tr '\0' ' ' < "$p/cmdline")" ;; esac
    done
}
cleanup() {
    kill_tools
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    for h in "${hosts[@]}"; do ip netns del "rf$id-$h" 2>/dev/null; done
    ip link del "$br" 2>/dev/null
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# ---- The hosts -------------------------------------------------------------------------------
ip link add "$br" type bridge && ip addr add "$net.1/24" dev "$br" && ip link set "$br" up ||
    { echo "FAIL: cannot make the bridge"; exit 1; }
mkdir -p /run/sshd "$work/ssh" "$work/hosts" "$work/fakebin"
ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/key" || exit 1
cp "$work/ssh/key.pub" "$work/ssh/authorized_keys"
for h in "${hosts[@]}"; do
    ns=rf$id-$h
    ip netns add "$ns" &&
        ip link add "v$id${h: -1}${h:0:1}" type veth peer name "p$id${h: -1}${h:0:1}" &&
        ip link set "p$id${h: -1}${h:0:1}" netns "$ns" &&
        ip link set "v$id${h: -1}${h:0:1}" master "$br" up &&
        ip -n "$ns" addr add "${addr[$h]}/24" dev "p$id${h: -1}${h:0:1}" &&
        ip -n "$ns" link set "p$id${h: -1}${h:0:1}" up && ip -n "$ns" link set lo up ||
        { echo "FAIL: cannot make host $h"; exit 1; }
    ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/host_$h" || exit 1
    cat > "$work/ssh/sshd_$h" <<EOF
ListenAddress ${addr[$h]}
HostKey $work/ssh/host_$h
AuthorizedKeysFile $work/ssh/authorized_keys
PidFile none
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxSessions 50
MaxStartups 50
Subsystem sftp internal-sftp
EOF
    ip netns exec "$ns" unshare --uts sh -c "hostname fleet-$h && exec /usr/sbin/sshd -D -e -f $work/ssh/sshd_$h" \
        > "$work/ssh/sshd_$h.log" 2>&1 &
    pids+=($!)
done
sshopts=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes
    -o ConnectTimeout=3 -i "$work/ssh/key")
for h in "${hosts[@]}"; do
    for _ in $(seq 50); do
        ssh "${sshopts[@]}" "root@${addr[$h]}" true 2>/dev/null && continue 2
        sleep 0.2
    done
    echo "FAIL: sshd of $h does not answer"; cat "$work/ssh/sshd_$h.log"; exit 1
done
echo "hosts: prov1 ${addr[prov1]}, cons1 ${addr[cons1]}, cons2 ${addr[cons2]} (sshd on each)"

export ANSIBLE_HOME=$work/ansible ANSIBLE_LOCAL_TEMP=$work/ansible/tmp
export ANSIBLE_REMOTE_TEMP=$work/ansible/remote ANSIBLE_SSH_CONTROL_PATH_DIR=$work/ansible/cp
export ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_FORKS=10
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
export RWFPERF_PLOT=$work/noplot.sh
printf 'exit 0\n' > "$RWFPERF_PLOT"
play=$src/scripts/ansible/fleet.yml

# inventory FILE [extra YAML lines for all.vars]: prov1, cons1, cons2 and the common variables.
inventory() {
    local f=$1
    shift
    {
        echo "all:"
        echo "  vars:"
        echo "    ansible_user: root"
        echo "    ansible_ssh_private_key_file: $work/ssh/key"
        echo "    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=3"
        echo "    rwfperf_work_dir: $work/hosts"
        echo "    rwfperf_results_dir: $work/results"
        echo "    rwfperf_merge: $bin/rwfperf-merge"
        echo "    rwfperf_chronyc: /nonexistent/chronyc"
        echo "    rwfperf_pmc: /nonexistent/pmc"
        echo "    rwfperf_steady_state: 3"
        echo "    rwfperf_item_count: 300"
        echo "    rwfperf_update_rate: 2000"
        echo "    rwfperf_latency_rate: 500"
        echo "    rwfperf_start_lead: 2"
        for l in "$@"; do echo "    $l"; done
        echo "  children:"
        echo "    providers:"
        echo "      hosts:"
        echo "        prov1: {ansible_host: ${addr[prov1]}, rwfperf_port: $port}"
        echo "    consumers:"
        echo "      hosts:"
        echo "        cons1: {ansible_host: ${addr[cons1]}}"
        echo "        cons2: {ansible_host: ${addr[cons2]}}"
    } > "$f"
}
port=$((20000 + RANDOM % 20000))

# run NAME INVENTORY [ansible-playbook options]: runs the play, its output (each line stamped
# with the time it was printed) in $work/NAME.out; status in $rc, controller CPU in $cpu.
run() {
    local name=$1 inv=$2
    shift 2
    python3 - "$work/$name.out" ansible-playbook -i "$inv" "$play" "$@" <<'PY'
import resource, subprocess, sys, time
out = open(sys.argv[1], "w")
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
for line in p.stdout:
    out.write("%.3f %s" % (time.time(), line))
rc = p.wait()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
out.write("%.3f rc %d cpu %.2f\n" % (time.time(), rc, ru.ru_utime + ru.ru_stime))
PY
    read -r _ _ rc _ cpu < <(tail -n 1 "$work/$name.out")
}
show() { echo "--- $1 (last 40 lines)"; tail -n 40 "$work/$1.out" | cut -c 16-; }
says() { grep -qF -- "$2" "$work/$1.out" || { fail "$1 does not say: $2"; return 1; }; }
nothing_started() {
    local l
    l=$(left_running)
    [ -z "$l" ] || fail "$1: tools left running: $l"
    find "$work/hosts" -name '*.pid' | grep -q . && fail "$1: a tool was started"
    return 0
}

# The package (cpack's .deb) for run 2, made while run 1 goes on.
t0=$(date +%s.%N)
(cd "$build" && cpack -G DEB -B "$work/deb" > "$work/cpack.log" 2>&1
    echo "$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" > "$work/cpack.status") &
cpack_pid=$!
pids+=($cpack_pid)

# ---- 1. Refused before anything starts -------------------------------------------------------
inventory "$work/inv_group.yml"
sed -i 's/^    consumers:$/    consumer:/' "$work/inv_group.yml"
run group "$work/inv_group.yml"
[ "$rc" != 0 ] || fail "an unknown group was accepted"
says group "group consumer (cons1, cons2): not a group of a fleet run" &&
    says group "no consumers: the consumers group is missing or empty"
nothing_started "unknown group"

# A listener on the provider's port (started here, ended by its id below).
ip netns exec "rf$id-prov1" python3 -c "
import socket, time
s = socket.socket(); s.bind(('${addr[prov1]}', $port)); s.listen(); time.sleep(120)" &
listener=$!
pids+=($listener)
# cons4 is another name for cons2's host, with tools of another version.
mkdir -p "$work/notools" "$work/oldtools"
printf '#!/bin/sh\necho "ConsPerf 0.9.0 0ld0ld0ld0ld"\n' > "$work/oldtools/ConsPerf"
chmod +x "$work/oldtools/ConsPerf"
inventory "$work/inv_bad.yml" "rwfperf_bin_dir: $bin"
sed -i "s|^        cons1: {ansible_host: ${addr[cons1]}}|        cons1: {ansible_host: ${addr[cons1]}, rwfperf_threads: many}|;
        s|^        cons2: {ansible_host: ${addr[cons2]}}|        cons2: {ansible_host: ${addr[cons2]}, rwfperf_bin_dir: $work/notools}\n        cons3: {ansible_host: $net.1, ansible_port: 9}\n        cons4: {ansible_host: ${addr[cons2]}, rwfperf_bin_dir: $work/oldtools}|" \
    "$work/inv_bad.yml"
for _ in $(seq 300); do ip netns exec "rf$id-prov1" ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
ip netns exec "rf$id-prov1" ss -Hltn "sport = :$port" | grep -q . || fail "the listener on port $port did not start"
run bad "$work/inv_bad.yml"
[ "$rc" != 0 ] || fail "bad hosts were accepted"
says bad "rwfperf: nothing started:"
says bad "prov1: port $port is taken"
says bad "cons1: rwfperf_threads: many is not a whole number"
says bad "cons2: $work/notools/ConsPerf -version:"
says bad "cons3: unreachable"
says bad "the tools are not of one version:" && says bad "cons4 0.9.0 0ld0ld0ld0ld"
kill "$listener"
wait "$listener" 2>/dev/null
nothing_started "bad hosts"

[ "$fails" = 0 ] || { show group; show bad; }

# ---- 2. A run from the package, realtime clocks, a skew on cons2 -----------------------------
wait "$cpack_pid"
read -r cpack_rc cpack_secs < "$work/cpack.status"
[ "$cpack_rc" = 0 ] || { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(ls "$work"/deb/rwfperf_*.deb)
echo "package: $(basename "$deb") made by cpack in $cpack_secs s (beside run 1)"
cat > "$work/fakebin/chronyc" <<'EOF'
#!/bin/sh
cat <<'T'
Reference ID    : C0A80001 (ntp1)
Stratum         : 3
System time     : 0.000012500 seconds fast of NTP time
Leap status     : Normal
T
EOF
chmod +x "$work/fakebin/chronyc"
skew=2000000
inventory "$work/inv_good.yml" "rwfperf_install: extract" "rwfperf_deb: $deb" "rwfperf_clock: realtime" \
    "rwfperf_run_id: good"
sed -i "s|^        prov1: {\(.*\)}|        prov1: {\1, rwfperf_chronyc: $work/fakebin/chronyc}|;
        s|^        cons1: {ansible_host: ${addr[cons1]}}|        cons1: {ansible_host: ${addr[cons1]}, rwfperf_threads: 2}|;
        s|^        cons2: {ansible_host: ${addr[cons2]}}|        cons2: {ansible_host: ${addr[cons2]}, rwfperf_env: {RWFPERF_TEST_CLOCK_SKEW_NS: '$skew'}}|" \
    "$work/inv_good.yml"
run good "$work/inv_good.yml"
good_cpu=$cpu
r=$work/results/good
if [ "$rc" != 0 ]; then
    fail "the run from the package failed (status $rc)"
    show good
else
    python3 - "$r" "$work/good.out" "$bin/rwfperf-merge" "$skew" <<'PY' || fails=$((fails + 1))
import glob, json, os, subprocess, sys
r, out, merge, skew = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad += not ok
for h, files in (("prov1", ["ProvSummary.out", "ProvSummary.json", "ProvStats1.csv", "hist1.hlog",
                            "ProvPerf.stdout", "host_clock.json"]),
                 ("cons1", ["host_clock.json", "cons1/ConsSummary.out", "cons1/ConsSummary.json",
                            "cons1/ConsStats1.csv", "cons1/ConsStats2.csv", "cons1/hist1.hlog",
                            "cons1/hist2.hlog"]),
                 ("cons2", ["host_clock.json", "cons1/ConsSummary.json", "cons1/hist1.hlog"])):
    missing = [f for f in files if not os.path.isfile(os.path.join(r, h, f))]
    check(not missing, f"{h}: its files came back" + (f" (missing {missing})" if missing else ""))
cons = {h: json.load(open(os.path.join(r, h, "cons1/ConsSummary.json"))) for h in ("cons1", "cons2")}
for h, d in cons.items():
    ov = d["results"]["overall"]
    check(ov["refreshes_received"] == ov["item_count"] == 300,
          f"{h}: every image ({ov['refreshes_received']} of {ov['item_count']})")
    check(d["clock"]["source"] == "realtime", f"{h}: the realtime clock")
merged = json.load(open(os.path.join(r, "merged.json")))
total = sum(d["results"]["overall"]["updates_received"] for d in cons.values())
got = merged["combined"]["totals"].get("updates_received")
check(got == total, f"combined updates received {got} = the consumers' sum {total}")
# The combined percentiles are those of a merge of the fetched logs alone.
logs = sorted(glob.glob(os.path.join(r, "cons*/cons*/hist*.hlog")))
alone = subprocess.run([merge, "-o", os.path.join(r, "alone")] + logs, capture_output=True, text=True)
a = json.load(open(os.path.join(r, "alone.json")))["combined"]["latency_usec"]["update"]
m = merged["combined"]["latency_usec"]["update"]
keys = ["count", "p50", "p90", "p99", "p99_9", "p99_99", "max"]
check(all(a[k] == m[k] for k in keys) and m["count"] > 0,
      "combined update latency = the merge of the fetched logs: " +
      ", ".join(f"{k} {m[k]}" for k in keys))
# The clock offsets: cons2's clock runs skew ns ahead of the provider's.
for h, want in (("cons1", 0), ("cons2", -skew / 1000.0)):
    o = cons[h]["results"].get("clock_offset", {})
    ok = o.get("measured") and abs(o["offset_usec"] - want) <= o["bound_usec"]
    check(bool(ok), f"{h}: clock offset {o.get('offset_usec')} usec within its bound "
                    f"{o.get('bound_usec')} of {want}")
clocks = merged["clocks"]
check(not clocks["one_way_valid"] and "synchronisation unknown on fleet-cons1" in clocks.get("one_way_not_valid", ""),
      "one-way latency between hosts marked not valid: " + clocks.get("one_way_not_valid", ""))
hp = [x for x in clocks["hosts"] if x["host"] == "fleet-prov1"]
check(bool(hp) and hp[0]["sync"] == "chrony" and hp[0]["synchronised"] and hp[0].get("sync_offset_ns") == 12500,
      f"prov1: chrony, synchronised, offset 12500 ns: {hp}")
text = [l.split(" ", 1)[1] for l in open(out)]
first = next((i for i, l in enumerate(text) if "--- COMBINED SUMMARY ---" in l), None)
inputs = next((i for i, l in enumerate(text) if "--- INPUTS ---" in l), None)
check(first is not None and inputs is not None and first < inputs, "the combined block is printed first")
# The run's page: written over results/<run id>/, its path printed (and again on the last line),
# a row per host beside the consumers' combined figures.
page = os.path.join(r, "report.html")
check(any(("rwfperf: report " + page) in l for l in text) and any(("; report " + page) in l for l in text),
      "the report's path printed: " + page)
html = open(page).read() if os.path.isfile(page) else ""
rows = [h for h in ("fleet-prov1", "fleet-cons1", "fleet-cons2")
        if f'data-figure="refreshes_received" data-host="{h}"' in html]
check(len(rows) == 3, f"the report's per-host table: {rows}")
check('data-figure="refreshes_received" data-tool="ConsPerf" data-value="600"' in html,
      "the report's combined figures: 600 images for the two consumers")
check("one-way latency between hosts (update, generic message, one way) is not valid:" in html
      and "synchronisation unknown on fleet-cons1" in html,
      "the report marks one-way latency between the hosts as not valid")
sys.exit(1 if bad else 0)
PY
    # Speed: command to the first update, last update to the printed combined result.
    python3 - "$r" "$work/good.out" "$good_cpu" <<'PY'
import glob, json, os, sys
r, out, cpu = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(out).read().splitlines()
start = float(lines[0].split()[0])
printed = next(float(l.split()[0]) for l in lines if "--- COMBINED SUMMARY ---" in l)
firsts, lasts = [], []
for f in glob.glob(os.path.join(r, "cons*/cons*/ConsSummary.json")):
    d = json.load(open(f))
    end = os.path.getmtime(f)
    firsts.append(end - d["results"]["overall"]["overall_secs"])
    lasts.append(end)
print("speed (3 hosts): command to first update %.1f s, last update to combined result %.1f s, "
      "controller CPU %.1f s" % (min(firsts) - start, printed - max(lasts), cpu))
PY
fi
[ -z "$(left_running)" ] || fail "run 2 left tools running: $(left_running)"

# ---- 3. A consumer killed mid-run -------------------------------------------------------------
inventory "$work/inv_kill.yml" "rwfperf_bin_dir: $bin" "rwfperf_data_dir: $src/data" "rwfperf_run_id: kill" \
    "rwfperf_steady_state: 6" "rwfperf_consumer_args: -writeStatsInterval 1"
(
    f=$work/hosts/cons1/kill/cons1
    # Once cons1's consumer has written its first statistics line (updates are flowing).
    for _ in $(seq 3000); do
        [ -s "$f/ConsPerf.pid" ] && [ -n "$(sed -n 2p "$f/ConsStats1.csv" 2>/dev/null)" ] && break
        grep -q " rc [0-9]* cpu " "$work/kill.out" 2>/dev/null && exit 0
        sleep 0.2
    done
    [ -s "$f/ConsPerf.pid" ] && kill -KILL "$(cat "$f/ConsPerf.pid")"
) &
killer=$!
run kill "$work/inv_kill.yml"
wait "$killer"
r=$work/results/kill
[ "$rc" != 0 ] || fail "a killed consumer did not fail the play"
says kill "cons1: ConsPerf 1 (cons1/): killed by signal 9 (KILL)"
for f in prov1/ProvSummary.json prov1/hist1.hlog cons2/cons1/ConsSummary.json cons2/cons1/hist1.hlog \
    cons1/cons1/ConsPerf.stdout merged.json; do
    [ -f "$r/$f" ] || fail "killed consumer: $f was not fetched"
done
says kill "--- COMBINED SUMMARY ---"
[ -z "$(left_running)" ] || fail "run 3 left tools running: $(left_running)"
[ "$fails" = 0 ] || show kill

if [ "$fails" != 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "fleet: every check passed"
