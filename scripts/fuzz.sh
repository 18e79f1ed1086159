#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs one of them for a given time.
#   scripts/fuzz.sh                   lists the targets
#   scripts/fuzz.sh <target> [secs]   runs <target> for secs seconds (default 60)
# Corpora live in build-fuzz/corpus/<target>; seeds come from tests/fuzz/seeds/<target>/ when present.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh" fuzz >/dev/null
bindir="$top/build-fuzz/bin/fuzz"
if [ $# -lt 1 ]; then
    echo "fuzz targets:"; ls "$bindir" 2>/dev/null | sed 's/^/  /'
    exit 0
fi
target=$1 secs=${2:-60}
[ -x "$bindir/$target" ] || { echo "fuzz.sh: no target '$target'" >&2; exit 2; }
corpus="$top/build-fuzz/corpus/$target"
mkdir -p "$corpus"
seeds=()
[ -d "$top/tests/fuzz/seeds/$target" ] && seeds=("$top/tests/fuzz/seeds/$target")
cd "$top/build-fuzz"
exec "$bindir/$target" -max_total_time="$secs" -print_final_stats=1 "$corpus" "${seeds[@]}"
