# Transport tests that need more than the default registration.
# test_tp_threads: channels driven from several threads at once (also run under TSan).
rwfperf_unit_test(test_tp_threads SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tp_threads.c
                  LIBS rwfperf_transport rwfperf_base LABELS transport threads)
list(APPEND transport_special test_tp_threads)
# test_tp_interop: live interop with the original tools; runs only when RWFPERF_ORIG_BIN is
# set (about 25 s), skipped otherwise.
rwfperf_unit_test(test_tp_interop SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tp_interop.c
                  LIBS rwfperf_transport rwfperf_base LABELS transport interop TIMEOUT 240)
list(APPEND transport_special test_tp_interop)
# test_tp_tls_interop: live TLS interop with the original tools (RWFPERF_ORIG_BIN, a build whose
# encrypted connections work); skipped otherwise.
rwfperf_unit_test(test_tp_tls_interop SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tp_tls_interop.c
                  LABELS transport interop TIMEOUT 240)
list(APPEND transport_special test_tp_tls_interop)
# test_tp_ws_interop: live WebSocket interop with the original tools (RWFPERF_ORIG_BIN), about
# 40 s; skipped otherwise.
rwfperf_unit_test(test_tp_ws_interop SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tp_ws_interop.c
                  LABELS transport interop TIMEOUT 240)
list(APPEND transport_special test_tp_ws_interop)
# test_wycheproof_gcm: the AES-GCM code of the TLS records against Project Wycheproof's vectors
# (tests/data/wycheproof/), read with json-c.
rwfperf_unit_test(test_wycheproof_gcm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_wycheproof_gcm.c
                  LIBS rwfperf_transport rwfperf_base PkgConfig::JSONC LABELS transport)
list(APPEND transport_special test_wycheproof_gcm)
