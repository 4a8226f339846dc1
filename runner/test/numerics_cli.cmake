# CLI tests of qgpu lint / coverage / sfu-probe (label: numerics).
set(QGPU $<TARGET_FILE:qgpu>)
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.cmake)
add_test(NAME cli.lint_output COMMAND ${CMAKE_COMMAND} -DCMD=${QGPU}\;lint\;--json\;runner/test/data/lint_contraction.ptx
         -DEXPECT_RC=1 -DEXPECT_ERR= -P ${EXPECT} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME cli.lint_reports_line COMMAND ${QGPU} lint runner/test/data/lint_contraction.ptx WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.lint_reports_line PROPERTIES
  PASS_REGULAR_EXPRESSION "lint_contraction.ptx:11: contraction: .*line 10.*\n.*:14: approx: .*\n2 finding\\(s\\), 0 note")
add_test(NAME cli.lint_dot_is_clean COMMAND ${QGPU} lint kernels/dot/kernel.sm_75.ptx WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.lint_dot_is_clean PROPERTIES PASS_REGULAR_EXPRESSION "0 finding\\(s\\)")
add_test(NAME cli.lint_bad_input_exits_2 COMMAND ${CMAKE_COMMAND} -DCMD=${QGPU}\;lint\;/nonexistent.ptx -DEXPECT_RC=2
         -DEXPECT_ERR=cannot\ read -P ${EXPECT})
add_test(NAME cli.coverage_runs COMMAND ${QGPU} coverage WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.coverage_runs PROPERTIES
  PASS_REGULAR_EXPRESSION "covered by the numeric oracle: +[1-9][0-9]+.*PTX instructions the front end does not support:\n  [^\n]*brkpt")
add_test(NAME cli.coverage_json COMMAND ${QGPU} coverage --json WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.coverage_json PROPERTIES PASS_REGULAR_EXPRESSION "\"form\": \"fma.rz.ftz.sat.f32\",\n *\"oracle\": true")
# docs/ptx-isa.md's instruction table and docs/numerics.md's coverage figures are what
# ptx_isa.def and qgpu coverage say now.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME cli.isa_tables_up_to_date
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/isa_tables.py --check --qgpu ${QGPU})
add_test(NAME cli.sfu_probe_no_driver_exits_2 COMMAND ${CMAKE_COMMAND}
         -DCMD=${QGPU}\;sfu-probe\;rcp.approx.ftz.f32\;--range\;0x3f800000:0x3f800100 -DEXPECT_RC=2
         -DEXPECT_ERR=no\ CUDA -P ${EXPECT})
add_test(NAME cli.sfu_probe_self_check COMMAND ${QGPU} sfu-probe ex2.approx.f32 --range 0x3f800000:0x3f810000 --against interp)
set_tests_properties(cli.sfu_probe_self_check PROPERTIES PASS_REGULAR_EXPRESSION "65536/65536 bit-exact")
set_tests_properties(cli.lint_output cli.lint_reports_line cli.lint_dot_is_clean cli.lint_bad_input_exits_2
                     cli.coverage_runs cli.coverage_json cli.isa_tables_up_to_date cli.sfu_probe_no_driver_exits_2 cli.sfu_probe_self_check
                     PROPERTIES LABELS "cli;numerics")
