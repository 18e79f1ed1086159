# The installed tree (cmake --install into a temporary prefix), run from empty folders.
rwfperf_integration_test(test_install COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh
    LABELS tools install TIMEOUT 120)
