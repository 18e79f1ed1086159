# The numbers a user can trust (latency_truth.py): our latency figures against a delay line of
# known delay (delay_relay.c), the achieved update rate against the configured one, and a rate
# the machine cannot hold. They measure time, so each runs alone (RUN_SERIAL), and only with
# RWFPERF_TIMING_TESTS=1 in the environment (scripts/test.sh); otherwise they are skipped. In a
# build with sanitizers they always skip and say so: timing does not hold there (release only).
if(TARGET ProvPerf AND TARGET ConsPerf AND TARGET TransportPerf)
    add_executable(delay_relay ${CMAKE_CURRENT_SOURCE_DIR}/delay_relay.c)
    set_target_properties(delay_relay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/test)
    find_package(Python3 COMPONENTS Interpreter)
    if(Python3_FOUND)
        foreach(c latency_omm latency_oneway latency_rtt rates overload netem)
            rwfperf_integration_test(truth_${c}
                COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/latency_truth.py ${c}
                LABELS tools truth TIMEOUT 240)
            set_tests_properties(truth_${c} PROPERTIES RUN_SERIAL TRUE)
            set_property(TEST truth_${c} APPEND PROPERTY ENVIRONMENT
                "RWFPERF_RELAY=$<TARGET_FILE:delay_relay>" "RWFPERF_SANITIZE=${RWFPERF_SANITIZE}")
        endforeach()
    endif()
endif()
