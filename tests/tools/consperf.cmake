# ConsPerf's modules (configuration, reports, the main thread's statistics, the payload
# decoder), linked from the tool's object library.
foreach(t test_consperf_config test_consperf_report test_consperf_collect test_consperf_decode
          test_consperf_jdecode)
    rwfperf_unit_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c LIBS consperf_objs
        LABELS tools consperf)
    list(APPEND tools_special ${t})
endforeach()
# ConsPerf against captured provider traffic: the original ProvPerf's frames replayed to the
# real executable (consperf_replay.c), one test per capture.
if(TARGET ConsPerf)
    add_executable(consperf_replay ${CMAKE_CURRENT_SOURCE_DIR}/consperf_replay.c)
    target_link_libraries(consperf_replay PRIVATE rwfperf_testsupport ${RWFPERF_ALL_LIBS})
    add_executable(cons_test_prov ${CMAKE_CURRENT_SOURCE_DIR}/cons_test_prov.c)
    target_link_libraries(cons_test_prov PRIVATE rwfperf_testsupport ${RWFPERF_ALL_LIBS})
    foreach(v default:0 tcpdelay:0 pack:0 zlib:1 lz4:2)
        string(REPLACE ":" ";" vc ${v})
        list(GET vc 0 name)
        list(GET vc 1 comp)
        rwfperf_integration_test(test_consperf_replay_${name}
            COMMAND consperf_replay consprov_${name} ${comp} $<TARGET_FILE:ConsPerf>
            LABELS tools consperf threads TIMEOUT 90)
    endforeach()
    # ConsPerf against cons_test_prov, our minimal provider: one test per scenario.
    add_executable(consperf_itest ${CMAKE_CURRENT_SOURCE_DIR}/consperf_itest.c)
    target_link_libraries(consperf_itest PRIVATE rwfperf_testsupport ${RWFPERF_ALL_LIBS})
    foreach(s basic snapshot threads late killed closed generic post retry sigint invalid pings
            silent options)
        rwfperf_integration_test(test_consperf_${s}
            COMMAND consperf_itest ${s} $<TARGET_FILE:ConsPerf> $<TARGET_FILE:cons_test_prov>
            LABELS tools consperf threads TIMEOUT 120)
    endforeach()
    # Against the original ETA ProvPerf: run only when RWFPERF_ORIG_BIN (in the environment of
    # ctest) names its folder; skipped otherwise.
    foreach(s orig_default orig_pack orig_zlib orig_lz4 orig_dictionary orig_postgen orig_reactor
            orig_watchlist orig_watchlist_bare orig_watchlist_postgen)
        rwfperf_integration_test(test_consperf_${s}
            COMMAND consperf_itest ${s} $<TARGET_FILE:ConsPerf> $<TARGET_FILE:cons_test_prov>
            LABELS tools consperf orig TIMEOUT 120)
    endforeach()
    # The same scenarios against our ProvPerf, once it is built.
    if(TARGET ProvPerf)
        foreach(s default pack zlib lz4 dictionary postgen reactor watchlist watchlist_bare
                watchlist_postgen)
            rwfperf_integration_test(test_consperf_ours_${s}
                COMMAND consperf_itest ours_${s} $<TARGET_FILE:ConsPerf>
                        $<TARGET_FILE:cons_test_prov> $<TARGET_FILE:ProvPerf>
                LABELS tools consperf threads TIMEOUT 120)
        endforeach()
    endif()
endif()
