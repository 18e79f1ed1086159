# Helpers of the command-line tests of the executables (sourced by test_data_folder.sh,
# test_option_checks.sh, test_peer_close.sh, test_run_script.sh, test_exit_status.sh): a
# scratch folder removed at exit with every process started here, checks that count failures,
# the tools' exit status and output.
#   cli_begin NAME          makes the scratch folder $work and cds into it; sets $bin, $src
#   ok TEXT / bad TEXT      report one check ("ok: ..." / "FAILED: ..."), bad counts it
#   run_tool OUT TOOL ARGS  runs $bin/TOOL with ARGS, stdout and stderr into OUT; $rc its status
#   start_tool OUT TOOL ARGS  the same in the background; $last_pid its process
#   has FILE TEXT           FILE holds TEXT (fixed string)
#   prov_port FILE          waits (5 s) for "Server N bound to port P." in FILE, prints P
#   cli_end                 prints the verdict and exits 0 when nothing failed, else 1
bin=${RWFPERF_BIN:?RWFPERF_BIN names the folder of the executables}
src=${RWFPERF_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
fails=0
cli_pids=()

cli_cleanup() {
    local p
    for p in "${cli_pids[@]}"; do
        kill -KILL "$p" 2>/dev/null || true
    done
    [ -n "${work:-}" ] && rm -rf "$work"
    return 0
}

cli_begin() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/rwfperf-$1.XXXXXX")
    trap cli_cleanup EXIT
    cd "$work" || exit 1
}

ok() { echo "ok: $*"; }
bad() {
    echo "FAILED: $*"
    fails=$((fails + 1))
}

run_tool() {
    local out=$1 tool=$2
    shift 2
    rc=0
    "$bin/$tool" "$@" > "$out" 2>&1 || rc=$?
}

start_tool() {
    local out=$1 tool=$2
    shift 2
    "$bin/$tool" "$@" > "$out" 2>&1 &
    last_pid=$!
    cli_pids+=("$last_pid")
}

has() { grep -qF -- "$2" "$1"; }

prov_port() {
    local p="" i
    for i in $(seq 1 100); do
        p=$(sed -n 's/^Server [0-9]* bound to port \([0-9]*\)\..*/\1/p' "$1" | head -1)
        [ -n "$p" ] && break
        sleep 0.05
    done
    echo "$p"
}

# Shows the end of a file after a failed check.
show() {
    echo "--- $1"
    tail -"${2:-15}" "$1" 2>/dev/null || true
}

cli_end() {
    if [ "$fails" -gt 0 ]; then
        echo "$fails check(s) FAILED"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
