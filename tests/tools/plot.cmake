# scripts/plot.sh on small hand-made statistics and latency CSV files (needs gnuplot; runs no
# program of ours, so nothing for the sanitizers to see).
rwfperf_integration_test(test_plot COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_plot.sh
    LABELS tools nosan TIMEOUT 120)
