# CTest driver (cmake -P): installs the xpose build in XPOSE_BINARY_DIR into a scratch prefix, then
# configures, builds and runs the consumer in CONSUMER_SOURCE_DIR against it.
# Inputs: XPOSE_BINARY_DIR, CONSUMER_SOURCE_DIR, WORK_DIR, CXX_COMPILER, GENERATOR, SANITIZE.
cmake_minimum_required(VERSION 3.24)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (${result}):\n${output}")
  endif()
  message(STATUS "package test: ${what}: ok")
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("install" ${CMAKE_COMMAND} --install ${XPOSE_BINARY_DIR} --prefix ${prefix})

set(consumer_args -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                  -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(SANITIZE)
  # A sanitizer build of the library needs the sanitizer runtime in the consumer's link.
  list(APPEND consumer_args "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
run_step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build}
         -G ${GENERATOR} ${consumer_args})
run_step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})

execute_process(COMMAND ${consumer_build}/app RESULT_VARIABLE result OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
message(STATUS "${output}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "package test: the consumer failed (${result})")
endif()
