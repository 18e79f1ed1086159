# ConsPerf: the configuration and report tests compile the tool's config.c and report.c.
foreach(t test_consperf_config test_consperf_report)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c
        ${CMAKE_SOURCE_DIR}/consperf/config.c ${CMAKE_SOURCE_DIR}/consperf/report.c
        LABELS tools consperf)
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/consperf ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND tools_special ${t})
endforeach()
