# Runs CMD (a ;-list), checks its exit code is EXPECT_RC and that stderr
# contains EXPECT_ERR.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout: ${out}\nstderr: ${err}")
endif()
string(FIND "${err}" "${EXPECT_ERR}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "stderr lacks '${EXPECT_ERR}':\n${err}")
endif()
message(STATUS "ok: exit ${rc}: ${err}")
