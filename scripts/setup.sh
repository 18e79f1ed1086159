#!/usr/bin/env bash
# Installs the Debian packages rwfperf needs, only those missing, quietly: one line says what
# is being installed and why, apt's own output goes to a log (printed only when it fails).
# Safe to run again: it does nothing when everything is present.
#
#   scripts/setup.sh        everything: building, running, testing (CMocka, clang and its
#                           fuzzing runtime, node/npm for the histogram-log test, chromium for
#                           the report page's test, ansible and sshd for the multi-host test)
#   scripts/setup.sh run    only what building and running the tools and drawing the run's
#                           page (gnuplot) need (scripts/run.sh)
#
# Environment: SETUP_LOG (default build/setup.log) where apt's output goes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
profile=${1:-all}
log=${SETUP_LOG:-$top/build/setup.log}

run_packages=(cmake gcc make pkg-config libxml2-dev libssl-dev zlib1g-dev liblz4-dev
    libhwloc-dev libjson-c-dev gnuplot-nox)
test_packages=(clang libcmocka-dev libclang-rt-14-dev python3 iproute2)
# What the multi-host test needs (its hosts are network namespaces, each with its own sshd,
# driven by ansible-playbook), without their recommendations (ansible-core recommends the whole
# collection of community modules; the playbook uses ansible.builtin only). A user's controller
# needs only ansible-core, a user's hosts an sshd and python3.
lean_packages=(ansible-core openssh-server openssh-client)

case "$profile" in
run) packages=("${run_packages[@]}"); lean_packages=(); why="to build and run the tools" ;;
all) packages=("${run_packages[@]}" "${test_packages[@]}"); why="to build, test and plot" ;;
*) echo "usage: $0 [run]" >&2; exit 2 ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=() lean_missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
for p in "${lean_packages[@]}"; do
    installed "$p" || lean_missing+=("$p")
done

# node and npm, for the test that reads our histogram logs with hdr-histogram-js (a test
# dependency only): Debian's packages, unless a node with its npm is there already.
if [ "$profile" = all ] && ! command -v npm >/dev/null 2>&1; then
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    missing+=(npm)
fi

# chromium, for the test that opens rwfperf-report's page in a browser (a test dependency
# only): Debian's package.
if [ "$profile" = all ]; then
    installed chromium || missing+=(chromium)
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#lean_missing[@]} -eq 0 ]; then
    exit 0
fi

mkdir -p "$(dirname "$log")"
echo "setup: installing ${missing[*]} ${lean_missing[*]} ($why; apt's output in $log)" |
    tr -s ' '
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
apt_install=("${sudo_cmd[@]}" apt-get install -y -qq -o DPkg::Lock::Timeout=600)
{
    "${sudo_cmd[@]}" apt-get update -qq -o DPkg::Lock::Timeout=600 || true
    [ ${#missing[@]} -eq 0 ] || "${apt_install[@]}" "${missing[@]}"
    [ ${#lean_missing[@]} -eq 0 ] ||
        "${apt_install[@]}" --no-install-recommends "${lean_missing[@]}"
} > "$log" 2>&1 || {
    status=$?
    echo "setup: apt-get failed (status $status); the end of $log:" >&2
    tail -20 "$log" >&2
    exit "$status"
}
