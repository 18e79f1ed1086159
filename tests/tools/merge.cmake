# rwfperf-merge: the merge of logs and summaries, bad inputs, and the executable's outputs.
rwfperf_unit_test(test_merge SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_merge.c
    LIBS rwfperf_merge_obj rwfperf_measure LABELS tools merge)
add_dependencies(test_merge rwfperf-merge)
list(APPEND tools_special test_merge)

# Three ConsPerf processes against one ProvPerf (scripts/run-multi.sh): the merged latency is
# that of the union of their latency files.
rwfperf_integration_test(test_run_multi COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_run_multi.sh
    LABELS tools merge TIMEOUT 240)
