# Tests of common/ that need more than the default registration.
# Threaded hand-offs: also run under ThreadSanitizer (scripts/test.sh runs label "threads").
foreach(name test_latbuf test_latring)
    list(APPEND common_special ${name})
    rwfperf_unit_test(${name} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c LABELS common threads)
endforeach()
# The run-time's failure slot is filled from several threads at once (also under TSan).
list(APPEND common_special test_run)
rwfperf_unit_test(test_run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_run.c LABELS common threads)
