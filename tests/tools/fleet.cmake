# The fleet playbook (scripts/ansible/fleet.yml) across three network-namespace hosts with their
# own sshd: refused inventories and hosts, a run from the package with realtime clocks and a
# clock skew, a consumer killed mid-run. Needs root (skips without it or namespaces). RUN_SERIAL:
# it makes its own bridge and runs seven processes, and its timing checks want the CPU. nosan: it
# drives the playbook (the same under every build) for minutes; the C code it reaches (the clock
# offset, the merge) has unit tests that run under the sanitizers.
rwfperf_integration_test(test_fleet COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_fleet.sh
    LABELS tools fleet nosan TIMEOUT 1500)
set_tests_properties(test_fleet PROPERTIES RUN_SERIAL TRUE)
