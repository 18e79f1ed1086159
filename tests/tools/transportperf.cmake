# TransportPerf: the configuration and report tests compile the tool's config.c and report.c.
foreach(t test_transportperf_config test_transportperf_report)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c
        ${CMAKE_SOURCE_DIR}/transportperf/config.c ${CMAKE_SOURCE_DIR}/transportperf/report.c
        LABELS tools transportperf)
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/transportperf ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND tools_special ${t})
endforeach()
