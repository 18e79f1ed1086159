# The one shortfall a TransportPerf pair test allows (sourced by test_ws_tools.sh and
# test_tls_tools.sh): the original server counts as sent what it still had queued when its
# run time ended and it closed without flushing, so up to its last tick's burst (100 messages
# at the tests' -tickRate 100 -msgRate 10000) may never arrive, without a sequence gap.
#   tperf_short SERVER_BIN SENT RECV CLIENT_OUT   prints that shortfall (SENT - RECV) when
#                                                 SERVER_BIN is $RWFPERF_ORIG_BIN and it is
#                                                 1-100 with "Sequence gaps: 0" in
#                                                 CLIENT_OUT; else 0
tperf_short() {
    local s=$1 sent=$2 recv=$3 out=$4
    if [[ "$s" == "${RWFPERF_ORIG_BIN:-/none}" ]] && [[ "$sent" =~ ^[0-9]+$ ]] &&
        [[ "$recv" =~ ^[0-9]+$ ]] && [ "$recv" -lt "$sent" ] && [ $((sent - recv)) -le 100 ] &&
        grep -qF -- "Sequence gaps: 0" "$out"; then
        echo $((sent - recv))
    else
        echo 0
    fi
}
