# TransportPerf: the configuration and report tests, and the receiving side of a worker and
# the message layout, linked from the tool's object library.
foreach(t test_transportperf_config test_transportperf_report test_transportperf_worker)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c LIBS transportperf_objs
        LABELS tools transportperf)
    list(APPEND tools_special ${t})
endforeach()

# The original server's captured streams played into our client (runs the executable).
rwfperf_unit_test(test_transportperf_replay
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_transportperf_replay.c
    LABELS tools transportperf integration TIMEOUT 240)
set_tests_properties(test_transportperf_replay PROPERTIES ENVIRONMENT
    "RWFPERF_BIN=${CMAKE_BINARY_DIR}/bin")
list(APPEND tools_special test_transportperf_replay)

# Server and clients on loopback, one test per case of transportperf_pair.py. Cases labelled
# "threads" also run under ThreadSanitizer; "orig" ones need RWFPERF_ORIG_BIN (else skipped).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
    set(tperf_cases socket pack pack_partial zlib zlib_512 lz4 lz4_512 reflect threads
        busyread directwrite highwatermark outputbufs fragments socket_options latency_all
        stats_files pack_too_big no_server sigint bind_in_use bad_summary_path shmem
        shmem_slow_reader)
    set(tperf_threaded socket reflect threads latency_all stats_files shmem)
    set(tperf_orig orig_server_socket orig_server_pack orig_server_zlib orig_server_lz4
        orig_server_reflect orig_client_socket orig_client_pack orig_client_zlib
        orig_client_lz4 orig_client_reflect orig_server_shmem orig_client_shmem)
    foreach(c ${tperf_cases} ${tperf_orig})
        set(labels transportperf)
        if(c IN_LIST tperf_threaded)
            list(APPEND labels threads)
        endif()
        if(c IN_LIST tperf_orig)
            list(APPEND labels orig)
        endif()
        rwfperf_integration_test(transportperf_${c}
            COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/transportperf_pair.py ${c}
            LABELS ${labels} TIMEOUT 120)
        if(DEFINED ENV{RWFPERF_ORIG_BIN})
            set_property(TEST transportperf_${c} APPEND PROPERTY ENVIRONMENT
                "RWFPERF_ORIG_BIN=$ENV{RWFPERF_ORIG_BIN}")
        endif()
    endforeach()
endif()

# seqMCast, live, in a network namespace each case creates and deletes (transportperf_mcast.py;
# skipped without root). "orig" cases need RWFPERF_ORIG_BIN: the original sends or receives
# 20,000 msgs/s for 10 s, and a lossy link through our receiver's loss generator.
if(Python3_FOUND)
    set(tperf_mc_cases pair pack gap_fail gap_count two_senders bad_input server_refused)
    set(tperf_mc_orig orig_to_ours ours_to_orig orig_to_ours_lossy)
    foreach(c ${tperf_mc_cases} ${tperf_mc_orig})
        set(labels transportperf multicast)
        if(c STREQUAL "pair" OR c STREQUAL "two_senders")
            list(APPEND labels threads)
        endif()
        if(c IN_LIST tperf_mc_orig)
            list(APPEND labels orig interop)
        endif()
        rwfperf_integration_test(transportperf_mcast_${c}
            COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/transportperf_mcast.py ${c}
            LABELS ${labels} TIMEOUT 120)
        if(DEFINED ENV{RWFPERF_ORIG_BIN})
            set_property(TEST transportperf_mcast_${c} APPEND PROPERTY ENVIRONMENT
                "RWFPERF_ORIG_BIN=$ENV{RWFPERF_ORIG_BIN}")
        endif()
    endforeach()
endif()
