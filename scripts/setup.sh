#!/usr/bin/env bash
# Installs the Debian packages rwfperf needs to build, test and plot, only when missing.
# Safe to run again: it does nothing when everything is present.
set -euo pipefail

packages=(
    cmake gcc make pkg-config clang
    libxml2-dev libssl-dev zlib1g-dev liblz4-dev libhwloc-dev libcmocka-dev libjson-c-dev
    libclang-rt-14-dev gnuplot-nox python3 iproute2
)
# What the multi-host test needs (its hosts are network namespaces, each with its own sshd,
# driven by ansible-playbook), without their recommendations (ansible-core recommends the whole
# collection of community modules; the playbook uses ansible.builtin only). A user's controller
# needs only ansible-core, a user's hosts an sshd and python3.
lean_packages=(ansible-core openssh-server openssh-client)

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
if ! command -v npm >/dev/null 2>&1; then
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    missing+=(npm)
fi

# chromium, for the test that opens rwfperf-report's page in a browser (a test dependency
# only): Debian's package.
installed chromium || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ] && [ ${#lean_missing[@]} -eq 0 ]; then
    exit 0
fi

echo "setup: installing ${missing[*]} ${lean_missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq -o DPkg::Lock::Timeout=600 || true
apt_install=("${sudo_cmd[@]}" apt-get install -y -qq -o DPkg::Lock::Timeout=600)
[ ${#missing[@]} -eq 0 ] || "${apt_install[@]}" "${missing[@]}"
[ ${#lean_missing[@]} -eq 0 ] || "${apt_install[@]}" --no-install-recommends "${lean_missing[@]}"
