# SPDX-License-Identifier: MIT OR Apache-2.0
# Script mode (cmake -P), run after a GoogleTest executable links (tests/CMakeLists.txt,
# burn_gtest_discover with BURN_CTEST_UNIT=suite): writes the names of its test suites, one per
# line, to OUT, for the ctest include file that registers one ctest per suite.
#
#   cmake -D EXE=path/to/tests -D OUT=suites.txt [-D LIST_TIMEOUT=60] -P BurnGTestSuites.cmake
#
# OUT is written under a temporary name and renamed, so an interrupted run leaves the old list.
foreach(_var EXE OUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "BurnGTestSuites.cmake: -D ${_var}=... is required")
  endif()
endforeach()
if(NOT LIST_TIMEOUT)
  set(LIST_TIMEOUT 60)
endif()

set(_tmp "${OUT}.tmp")
execute_process(COMMAND "${EXE}" --gtest_list_tests
                OUTPUT_FILE "${_tmp}" ERROR_VARIABLE _err RESULT_VARIABLE _rc
                TIMEOUT ${LIST_TIMEOUT})
if(NOT _rc EQUAL 0)
  file(REMOVE "${_tmp}")
  message(FATAL_ERROR "BurnGTestSuites.cmake: '${EXE} --gtest_list_tests' failed (${_rc}): ${_err}")
endif()

# Suite lines start in the first column ("Suite." or "Prefix/Suite/0.  # TypeParam = ..."); the
# tests under them are indented.
file(STRINGS "${_tmp}" _lines REGEX "^[A-Za-z_]")
set(_suites "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^([^ ]+)\\.")
    string(APPEND _suites "${CMAKE_MATCH_1}\n")
  endif()
endforeach()
if(_suites STREQUAL "")
  file(REMOVE "${_tmp}")
  message(FATAL_ERROR "BurnGTestSuites.cmake: '${EXE}' lists no test suites")
endif()
file(WRITE "${_tmp}" "${_suites}")
file(RENAME "${_tmp}" "${OUT}")
