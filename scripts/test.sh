#!/usr/bin/env bash
# Builds and runs every test: the release build, then AddressSanitizer +
# UndefinedBehaviorSanitizer, then ThreadSanitizer on the tests labelled "threads".
# Warnings are errors in every build. Exit status 0 only when all pass. The release pass also
# runs the timing tests (RWFPERF_TIMING_TESTS=1: the latency truth, rate and overload tests of
# tests/tools/latency_truth.py, skipped in a plain ctest run).
#   scripts/test.sh            all three passes
#   scripts/test.sh quick      release build only
# After each pass it says how many tests were skipped and why (scripts/skips.py). Everything
# the tests read is in the repository (the original tools' captures in tests/data/captures).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
jobs=$(nproc 2>/dev/null || echo 2)

run_pass() {
    local flavour=$1 dir=$2; shift 2
    echo "=== $flavour build ==="
    "$top/scripts/build.sh" "$flavour"
    echo "=== $flavour tests ==="
    local status=0
    (cd "$top/$dir" && ctest --output-on-failure -j "$jobs" --output-junit ctest-junit.xml "$@") ||
        status=$?
    python3 "$top/scripts/skips.py" "$top/$dir/ctest-junit.xml" || true
    return $status
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

RWFPERF_TIMING_TESTS=1 run_pass release build
if [ "${1:-}" = quick ]; then
    exit 0
fi
run_pass asan build-asan -LE nosan
run_pass tsan build-tsan -L threads
echo "=== all tests passed ==="
