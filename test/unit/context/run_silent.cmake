# Runs PROGRAM; fails unless it exits 0 with nothing on stdout or stderr.
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 50)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "" OR NOT err STREQUAL "")
  message(FATAL_ERROR "${PROGRAM}: exit ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
