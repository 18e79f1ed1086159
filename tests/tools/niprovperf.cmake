# NIProvPerf: the configuration and report tests, linked from the tool's object library.
foreach(t test_niprovperf_config test_niprovperf_report)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c LIBS niprovperf_objs
        LABELS tools niprovperf)
    list(APPEND tools_special ${t})
endforeach()
# NIProvPerf on loopback against a test ADH (starts the real executable).
list(APPEND tools_special test_niprovperf_run)
if(TARGET NIProvPerf)
    rwfperf_unit_test(test_niprovperf_run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_niprovperf_run.c
        LABELS tools niprovperf integration threads TIMEOUT 300)
    add_dependencies(test_niprovperf_run NIProvPerf)
endif()
