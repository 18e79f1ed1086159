# ProvPerf: the configuration and report tests, linked from the tool's object library.
foreach(t test_provperf_config test_provperf_report)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c LIBS provperf_objs
        LABELS tools provperf)
    list(APPEND tools_special ${t})
endforeach()
# ProvPerf on loopback with a test consumer (starts the real executable).
list(APPEND tools_special test_provperf_run test_provperf_more)
if(TARGET ProvPerf)
    foreach(t test_provperf_run test_provperf_more)
        rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c
            LABELS tools provperf integration threads TIMEOUT 600)
        add_dependencies(${t} ProvPerf)
    endforeach()
endif()
# The original ConsPerf against our ProvPerf (only with RWFPERF_ORIG_BIN; skipped otherwise).
if(TARGET ProvPerf)
    rwfperf_integration_test(test_provperf_orig
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/provperf_orig.sh LABELS tools provperf orig TIMEOUT 300)
endif()
