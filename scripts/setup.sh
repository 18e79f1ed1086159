#!/usr/bin/env bash
# Installs the Debian packages rwfperf needs to build, test and plot, only when missing.
# Safe to run again: it does nothing when everything is present.
set -euo pipefail

packages=(
    cmake gcc make pkg-config clang
    libxml2-dev libssl-dev zlib1g-dev liblz4-dev libhwloc-dev libcmocka-dev libjson-c-dev
    libclang-rt-14-dev gnuplot-nox python3 iproute2
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

# node and npm, for the test that reads our histogram logs with hdr-histogram-js (a test
# dependency only): Debian's packages, unless a node with its npm is there already.
if ! command -v npm >/dev/null 2>&1; then
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq || true
"${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
