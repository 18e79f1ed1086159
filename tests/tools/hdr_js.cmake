# Our histogram logs against hdr-histogram-js (npm), an independent HdrHistogram reader and
# writer; the script installs it into <build>/npm-hdr and skips when npm cannot.
rwfperf_integration_test(test_hdr_js COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_hdr_js.sh
    LABELS tools merge nosan TIMEOUT 400)
