# SPDX-License-Identifier: MIT OR Apache-2.0
# cmake -P script behind the CTest test `package_consumer` (see BurnPackageTest.cmake):
#   1. cmake --install <BURN_BINARY_DIR> --prefix <BURN_WORK_DIR>/prefix   (a fresh prefix)
#   2. configure tests/package against that prefix only, build it, and run the program.
# Any failing step fails the test.
cmake_minimum_required(VERSION 3.25)

foreach(_var BURN_BINARY_DIR BURN_CONSUMER_SOURCE_DIR BURN_WORK_DIR BURN_GENERATOR
             BURN_CXX_COMPILER)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "RunPackageTest.cmake: -D${_var}=... is required")
  endif()
endforeach()

set(_prefix "${BURN_WORK_DIR}/prefix")
set(_build "${BURN_WORK_DIR}/consumer")
# Start from nothing, so that no stale header, library or cache entry can hide a packaging bug.
file(REMOVE_RECURSE "${_prefix}" "${_build}")

if(BURN_CONFIG STREQUAL "")
  set(BURN_CONFIG "Release")
endif()
string(TOUPPER "${BURN_CONFIG}" _config_upper)

message(STATUS "package test: installing ${BURN_BINARY_DIR} into ${_prefix}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${BURN_BINARY_DIR}" --prefix "${_prefix}"
          --config "${BURN_CONFIG}"
  OUTPUT_QUIET
  COMMAND_ERROR_IS_FATAL ANY)

set(_configure
  "${CMAKE_COMMAND}" -S "${BURN_CONSUMER_SOURCE_DIR}" -B "${_build}" -G "${BURN_GENERATOR}"
  "-DCMAKE_BUILD_TYPE=${BURN_CONFIG}"
  "-DCMAKE_CXX_COMPILER=${BURN_CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${BURN_CXX_FLAGS}"
  "-DCMAKE_CXX_FLAGS_${_config_upper}=${BURN_CXX_FLAGS_CONFIG}"
  "-DCMAKE_EXE_LINKER_FLAGS=${BURN_EXE_LINKER_FLAGS}"
  "-DCMAKE_PREFIX_PATH=${_prefix}"
  # Find burn in the fresh prefix only, never in a package registry or an older install.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(BURN_MAKE_PROGRAM)
  list(APPEND _configure "-DCMAKE_MAKE_PROGRAM=${BURN_MAKE_PROGRAM}")
endif()
if(BURN_CXX_COMPILER_LAUNCHER)
  list(APPEND _configure "-DCMAKE_CXX_COMPILER_LAUNCHER=${BURN_CXX_COMPILER_LAUNCHER}")
endif()

message(STATUS "package test: configuring ${BURN_CONSUMER_SOURCE_DIR}")
execute_process(COMMAND ${_configure} COMMAND_ERROR_IS_FATAL ANY)

# The package must come from the fresh prefix, not from a system-wide install.
file(STRINGS "${_build}/CMakeCache.txt" _burn_dir REGEX "^burn_DIR:")
string(REGEX REPLACE "^burn_DIR:[A-Z]+=" "" _burn_dir "${_burn_dir}")
file(REAL_PATH "${_prefix}" _real_prefix)
file(REAL_PATH "${_burn_dir}" _real_burn_dir)
string(FIND "${_real_burn_dir}" "${_real_prefix}/" _pos)
if(NOT _pos EQUAL 0)
  message(FATAL_ERROR "package test: burn was found in '${_burn_dir}', not under '${_prefix}'")
endif()

message(STATUS "package test: building")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${_build}" --config "${BURN_CONFIG}"
                COMMAND_ERROR_IS_FATAL ANY)

# consumer always; consumer_onnx where the package has the onnx component (it was built).
foreach(_program consumer consumer_onnx)
  set(_exe "${_build}/${_program}")
  if(NOT EXISTS "${_exe}" AND EXISTS "${_build}/${BURN_CONFIG}/${_program}")  # multi-config
    set(_exe "${_build}/${BURN_CONFIG}/${_program}")
  endif()
  if(NOT EXISTS "${_exe}")
    if(_program STREQUAL "consumer")
      message(FATAL_ERROR "package test: no consumer program was built")
    endif()
    continue()
  endif()
  message(STATUS "package test: running ${_program}")
  execute_process(COMMAND "${_exe}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "package test: ${_program} failed (${_rc})")
  endif()
endforeach()
message(STATUS "package test: passed")
