# Warm standby in the tools (test_wsb_tools.sh ours: our ConsPerf -watchlist with two of our
# ProvPerf, login and service based, the active one killed mid-run; a standby that never comes
# up; both lost; the option checks), and against the original tools when RWFPERF_ORIG_BIN
# names them (test_wsb_tools.sh orig; skipped otherwise).
rwfperf_integration_test(test_wsb_tools
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_wsb_tools.sh ours LABELS tools wsb threads TIMEOUT 480)
rwfperf_integration_test(test_wsb_tools_orig
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_wsb_tools.sh orig LABELS tools wsb interop orig
    TIMEOUT 240)
