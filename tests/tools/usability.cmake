# The tools as a new user meets them, each a test of the executables (status, message, files):
# the data folder of the build tree and the errors that name every place looked in; the checks
# at start (ports, combinations refused); the usage text and -version; the peer's normal close
# in words; scripts/run.sh and scripts/setup.sh; exit statuses (interrupted, never connected,
# failures that cannot heal); the progress line on a terminal (test_progress.py).
set(usability_tests test_data_folder test_option_checks test_peer_close test_run_script
    test_exit_status)
foreach(t ${usability_tests})
    rwfperf_integration_test(${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/${t}.sh
        LABELS tools usability TIMEOUT 120)
endforeach()
rwfperf_integration_test(test_usage COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_usage.py
    LABELS tools usability TIMEOUT 60)
rwfperf_integration_test(test_progress COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_progress.py
    LABELS tools usability TIMEOUT 120)
