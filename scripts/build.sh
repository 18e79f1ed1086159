#!/usr/bin/env bash
# Configures and builds one flavour of the tree.
#   scripts/build.sh [release|asan|tsan|fuzz]   (default: release)
# Build folders: build/ (release), build-asan/, build-tsan/, build-fuzz/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
jobs=$(nproc 2>/dev/null || echo 2)

case "$flavour" in
release) dir=build;      args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
asan)    dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DRWFPERF_SANITIZE=address,undefined) ;;
tsan)    dir=build-tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DRWFPERF_SANITIZE=thread) ;;
fuzz)    dir=build-fuzz; args=(-DCMAKE_BUILD_TYPE=Debug -DRWFPERF_FUZZ=ON -DCMAKE_C_COMPILER=clang
                               -DRWFPERF_SANITIZE=address,undefined) ;;
*) echo "usage: $0 [release|asan|tsan|fuzz]" >&2; exit 2 ;;
esac

cmake -S "$top" -B "$top/$dir" "${args[@]}" >/dev/null
cmake --build "$top/$dir" -j "$jobs"
