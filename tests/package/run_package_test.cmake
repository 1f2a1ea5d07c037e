# SPDX-License-Identifier: Apache-2.0
# CTest driver (cmake -P): installs the xpose build in XPOSE_BINARY_DIR into a scratch prefix, then
# builds and runs outside projects against it:
#   1. tests/package with find_package(xpose), CUDA hidden (no nvcc on PATH, the toolkit's paths
#      ignored) unless the library is static with CUDA, which leaves the CUDA runtime to its
#      consumers; the program must not load libcudart or libcublas, and a shared libxpose must
#      export no internal or CUDA runtime symbols;
#   2. the same program compiled with a plain compiler line from pkg-config;
#   3. tests/package/dist with find_package(xpose COMPONENTS dist): it builds and runs where
#      xpose::dist was built, and fails to configure, saying why, where it was not;
#   4. tests/package/subproject: a parent project that adds the source tree (configured only).
# Inputs: XPOSE_BINARY_DIR, CONSUMER_SOURCE_DIR, WORK_DIR, CXX_COMPILER, GENERATOR, SANITIZE,
# LIBRARY_TYPE (SHARED or STATIC), HAVE_CUDA, HAVE_DIST, CUDA_ROOT.
cmake_minimum_required(VERSION 3.24)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (${result}):\n${output}")
  endif()
  message(STATUS "package test: ${what}: ok")
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

# Fails when `text` (the output of `what`) matches `regex`.
function(expect_no_match what text regex)
  string(REGEX MATCHALL "${regex}" found "${text}")
  if(found)
    message(FATAL_ERROR "package test: ${what} shows ${found}:\n${text}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run_step("install" ${CMAKE_COMMAND} --install ${XPOSE_BINARY_DIR} --prefix ${prefix})

# The installed library and headers.
file(GLOB_RECURSE libraries ${prefix}/libxpose.so ${prefix}/libxpose.a)
list(LENGTH libraries count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "package test: expected one libxpose in ${prefix}, found: ${libraries}")
endif()
get_filename_component(libdir ${libraries} DIRECTORY)
if(EXISTS ${prefix}/include/xpose/dist.hpp AND NOT HAVE_DIST)
  message(FATAL_ERROR "package test: dist.hpp is installed, but xpose::dist was not built")
endif()
if(NOT EXISTS ${prefix}/include/xpose/version.hpp)
  message(FATAL_ERROR "package test: xpose/version.hpp is not installed")
endif()

set(sanitize_flags "")
if(SANITIZE)
  # A sanitizer build of the library needs the sanitizer runtime in the consumer's link.
  set(sanitize_flags -fsanitize=address,undefined)
endif()

if(LIBRARY_TYPE STREQUAL "SHARED")
  run_step("soname of ${libraries}" objdump -p ${libraries})
  if(NOT step_output MATCHES "SONAME +libxpose\\.so\\.[0-9]")
    message(FATAL_ERROR "package test: libxpose.so has no versioned SONAME:\n${step_output}")
  endif()
  expect_no_match("objdump -p libxpose.so" "${step_output}" "NEEDED +lib(cublas|cublasLt|cudart)[^\n]*")
  # Exported: the public API, the two error functions xpose::dist records into, and the C++
  # library's templates; no other internal function and nothing of the static CUDA runtime.
  run_step("exported symbols" nm -D -C --defined-only ${libraries})
  string(REGEX REPLACE "xpose::detail::(fail|clear_error)\\(" "" exported "${step_output}")
  expect_no_match("nm -D libxpose.so" "${exported}" "xpose::(detail|cpu|cuda|gpu)::[^\n]*")
  expect_no_match("nm -D libxpose.so" "${exported}" " _*(cuda|cu)[A-Z][A-Za-z_]*")
endif()

# 1. find_package, with CUDA hidden where the package must not need it.
set(consumer_build ${WORK_DIR}/consumer)
set(base_args -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
              -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(SANITIZE)
  list(APPEND base_args "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}")
endif()
set(consumer_args ${base_args})
set(hide_cuda ON)
if(HAVE_CUDA AND LIBRARY_TYPE STREQUAL "STATIC")
  set(hide_cuda OFF)
endif()
set(consumer_env "")
if(hide_cuda)
  # nvcc's folders, on PATH or where CMake looks by itself, and the toolkit's prefixes are ignored
  # (through a cache script: a list does not survive execute_process's arguments).
  set(path_without_nvcc "")
  set(nvcc_dirs "")
  string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
  foreach(dir IN LISTS path_dirs ITEMS /usr/local/bin /usr/bin /bin)
    if(EXISTS "${dir}/nvcc")
      list(APPEND nvcc_dirs "${dir}")
    elseif(dir IN_LIST path_dirs)
      list(APPEND path_without_nvcc "${dir}")
    endif()
  endforeach()
  string(REPLACE ";" ":" path_without_nvcc "${path_without_nvcc}")
  file(GLOB cuda_prefixes /usr/local/cuda /usr/local/cuda-* /opt/nvidia/hpc_sdk)
  if(CUDA_ROOT)
    list(APPEND cuda_prefixes ${CUDA_ROOT})
  endif()
  file(WRITE ${WORK_DIR}/hide_cuda.cmake
       "set(CMAKE_IGNORE_PATH \"${nvcc_dirs}\" CACHE STRING \"\")\n"
       "set(CMAKE_IGNORE_PREFIX_PATH \"${cuda_prefixes}\" CACHE STRING \"\")\n")
  list(APPEND consumer_args -C ${WORK_DIR}/hide_cuda.cmake -DEXPECT_NO_CUDA=ON
                            -DCUDAToolkit_ROOT=${WORK_DIR}/no-cuda)
  set(consumer_env ${CMAKE_COMMAND} -E env --unset=CUDACXX --unset=CUDA_PATH --unset=CUDA_HOME
                   --unset=CUDAToolkit_ROOT --unset=LD_LIBRARY_PATH "PATH=${path_without_nvcc}")
endif()
run_step("configure consumer (CUDA hidden: ${hide_cuda})"
         ${consumer_env} ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} ${consumer_args})
run_step("build consumer" ${consumer_env} ${CMAKE_COMMAND} --build ${consumer_build})
run_step("run consumer" ${consumer_env} ${consumer_build}/app)
message(STATUS "${step_output}")
if(hide_cuda)
  run_step("ldd consumer" ldd ${consumer_build}/app)
  expect_no_match("ldd app" "${step_output}" "lib(cublas|cublasLt|cudart)[^\n]*")
endif()

# 2. A plain compiler line from pkg-config.
find_program(pkg_config pkg-config)
if(pkg_config)
  set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
  run_step("pkg-config --modversion" ${pkg_config} --modversion xpose)
  string(STRIP "${step_output}" pc_version)
  set(static_flag "")
  if(LIBRARY_TYPE STREQUAL "STATIC")
    set(static_flag --static)
  endif()
  run_step("pkg-config --cflags --libs" ${pkg_config} ${static_flag} --cflags --libs xpose)
  separate_arguments(pc_flags UNIX_COMMAND "${step_output}")
  run_step("compile with pkg-config's flags"
           ${CXX_COMPILER} -std=c++17 ${sanitize_flags} "-DEXPECTED_VERSION=\"${pc_version}\""
           ${CONSUMER_SOURCE_DIR}/main.cpp ${pc_flags} -Wl,-rpath,${libdir} -o ${WORK_DIR}/app_pkg_config)
  run_step("run the pkg-config build" ${WORK_DIR}/app_pkg_config)
else()
  message(STATUS "package test: pkg-config not found; its check is left out")
endif()

# 3. The dist component.
set(dist_build ${WORK_DIR}/dist_consumer)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/dist -B ${dist_build} ${base_args}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(HAVE_DIST)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package test: find_package(xpose COMPONENTS dist) failed:\n${output}")
  endif()
  run_step("build dist consumer" ${CMAKE_COMMAND} --build ${dist_build})
  run_step("run dist consumer" ${dist_build}/dist_app)
  message(STATUS "${step_output}")
else()
  if(result EQUAL 0 OR NOT output MATCHES "built without xpose::dist")
    message(FATAL_ERROR "package test: find_package(xpose COMPONENTS dist) without xpose::dist should fail "
                        "and say why (${result}):\n${output}")
  endif()
  message(STATUS "package test: COMPONENTS dist refused, as it should be without xpose::dist")
endif()

# 4. xpose as a subproject (add_subdirectory, as FetchContent does): configured only, which is
# where its defaults show (no tests, tools, examples or Python module; the parent's build type
# untouched); the library itself is what steps 1 and 2 built and ran.
get_filename_component(xpose_source ${CONSUMER_SOURCE_DIR}/../.. ABSOLUTE)
run_step("configure a parent project with add_subdirectory(xpose)"
         ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/subproject -B ${WORK_DIR}/parent -G ${GENERATOR}
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DXPOSE_SOURCE_DIR=${xpose_source})
