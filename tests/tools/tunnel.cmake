# Tunnel streams in the tools (test_tunnel_tools.sh ours: our ConsPerf -tunnel <- our ProvPerf
# -reactor, against the bare ProvPerf, the option check), and against the original tools when
# RWFPERF_ORIG_BIN names them (test_tunnel_tools.sh orig; skipped otherwise).
rwfperf_integration_test(test_tunnel_tools
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_tunnel_tools.sh ours LABELS tools tunnel TIMEOUT 240)
rwfperf_integration_test(test_tunnel_tools_orig
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_tunnel_tools.sh orig LABELS tools tunnel interop orig
    TIMEOUT 240)
