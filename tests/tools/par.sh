# Runs the independent cases of an integration test script at the same time (sourced by
# test_ws_tools.sh, test_tls_tools.sh, test_wsb_tools.sh). Each case is a shell function that
# starts its own tools on ports of its own and writes files named after its label; it reports
# with lines "ok: ..." and "FAILED: ...". The cases wait on the tools (sleeps, run times), not
# on the CPU, so that several at once take about the time of the longest.
#   par_start NAME FUNC [ARGS...]  runs FUNC ARGS in a subshell in the background, its output
#                                  in case_NAME.log; at most PAR_JOBS (default 4) at once
#   par_wait                       waits for every case started, prints their output in the
#                                  order they were started, and adds to `fails` the number of
#                                  "FAILED:" lines and of cases that exited with a non-zero
#                                  status (set -e in a case: a command that failed unchecked)
# A case's variables do not reach the script (a subshell): results go through files.
par_names=()
par_pids=()

par_start() {
    local name=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "${PAR_JOBS:-4}" ]; do
        wait -n || true
    done
    ("$@") > "case_$name.log" 2>&1 &
    par_names+=("$name")
    par_pids+=($!)
}

par_wait() {
    local i rc n
    for i in "${!par_pids[@]}"; do
        rc=0
        wait "${par_pids[$i]}" || rc=$?
        cat "case_${par_names[$i]}.log"
        n=$(grep -c '^FAILED:' "case_${par_names[$i]}.log" || true)
        fails=$((fails + n))
        if [ "$rc" != 0 ] && [ "$n" = 0 ]; then
            echo "FAILED: case ${par_names[$i]} ended with status $rc"
            fails=$((fails + 1))
        fi
    done
    par_names=()
    par_pids=()
}
