#!/usr/bin/env bash
# Configures and builds one flavour of the tree.
#   scripts/build.sh [release|asan|tsan|fuzz] [target...]   (default: release, every target)
# Build folders: build/ (release), build-asan/, build-tsan/, build-fuzz/. Targets limit the
# build to those named (scripts/run.sh: ConsPerf ProvPerf rwfperf_data).
# RWFPERF_TESTS (environment, default ON): OFF builds the tools without the test suite (which
# needs CMocka); scripts/run.sh sets it where CMocka is not installed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
[ $# -gt 0 ] && shift
targets=("$@")
jobs=$(nproc 2>/dev/null || echo 2)

case "$flavour" in
release) dir=build;      args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
asan)    dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DRWFPERF_SANITIZE=address,undefined) ;;
tsan)    dir=build-tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DRWFPERF_SANITIZE=thread) ;;
fuzz)    dir=build-fuzz; args=(-DCMAKE_BUILD_TYPE=Debug -DRWFPERF_FUZZ=ON -DCMAKE_C_COMPILER=clang
                               -DRWFPERF_SANITIZE=address,undefined) ;;
*) echo "usage: $0 [release|asan|tsan|fuzz] [target...]" >&2; exit 2 ;;
esac

args+=(-DRWFPERF_TESTS="${RWFPERF_TESTS:-ON}")
cmake -S "$top" -B "$top/$dir" "${args[@]}" >/dev/null
if [ ${#targets[@]} -gt 0 ]; then
    cmake --build "$top/$dir" -j "$jobs" --target "${targets[@]}"
else
    cmake --build "$top/$dir" -j "$jobs"
fi
