# The tools over WebSocket on loopback, both sub-protocols, plain and inside TLS
# (test_ws_tools.sh ours), and against the original tools when RWFPERF_ORIG_BIN names them
# (test_ws_tools.sh orig; skipped otherwise).
rwfperf_integration_test(test_ws_tools COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_ws_tools.sh ours
    LABELS tools websocket TIMEOUT 400)
rwfperf_integration_test(test_ws_tools_orig
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_ws_tools.sh orig LABELS tools websocket interop
    TIMEOUT 400)
