# rwfperf-report: its library (readers, checks, verdicts, the page's figures), the executable's
# bad input and outputs, and the page of real runs opened in a browser.
rwfperf_unit_test(test_report SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_report.c
    LIBS rwfperf_report_obj rwfperf_merge_obj rwfperf_measure LABELS tools report)
list(APPEND tools_special test_report)
rwfperf_integration_test(test_report_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_report_cli.sh
    LABELS tools report TIMEOUT 60)
# Real runs and the page in headless chromium (skipped, saying why, without chromium). The
# tools run under the sanitizers too; chromium's screenshots go to <build>/report-shots.
rwfperf_integration_test(test_report_browser
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_report_browser.sh LABELS tools report TIMEOUT 300)
