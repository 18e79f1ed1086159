# The four tools over TLS on loopback (test_tls_tools.sh ours), and against the original tools
# when RWFPERF_ORIG_BIN names them (test_tls_tools.sh orig; skipped otherwise).
rwfperf_integration_test(test_tls_tools COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_tls_tools.sh ours
    LABELS tools tls TIMEOUT 240)
rwfperf_integration_test(test_tls_tools_orig
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_tls_tools.sh orig LABELS tools tls interop
    TIMEOUT 240)
