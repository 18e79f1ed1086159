# rwfperf-report: its library (readers, checks, verdicts, the page's figures), and the
# executable's bad input and outputs.
rwfperf_unit_test(test_report SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_report.c
    LIBS rwfperf_report_obj rwfperf_merge_obj rwfperf_measure LABELS tools report)
list(APPEND tools_special test_report)
rwfperf_integration_test(test_report_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_report_cli.sh
    LABELS tools report TIMEOUT 60)
