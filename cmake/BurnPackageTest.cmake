# SPDX-License-Identifier: MIT OR Apache-2.0
# burn_add_package_test(): registers the CTest test `package_consumer`, which installs this build
# tree into <build>/package-test/prefix, then configures, builds (Ninja, same compiler and flags)
# and runs the external project tests/package against that prefix (cmake/RunPackageTest.cmake).
# Call it from tests/CMakeLists.txt after include(BurnPackageTest). CTest runs after the build,
# so the test only has to install what was built.
include_guard(GLOBAL)

function(burn_add_package_test)
  set(_dir "${PROJECT_BINARY_DIR}/package-test")
  # The consumer is built with Ninja; fall back to this build's generator when there is none.
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(_generator "Ninja")
    set(_make_program "${CMAKE_MAKE_PROGRAM}")
  else()
    find_program(BURN_NINJA_PROGRAM NAMES ninja ninja-build)
    if(BURN_NINJA_PROGRAM)
      set(_generator "Ninja")
      set(_make_program "${BURN_NINJA_PROGRAM}")
    else()
      set(_generator "${CMAKE_GENERATOR}")
      set(_make_program "${CMAKE_MAKE_PROGRAM}")
    endif()
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
  add_test(NAME package_consumer
           COMMAND "${CMAKE_COMMAND}"
                   "-DBURN_BINARY_DIR=${PROJECT_BINARY_DIR}"
                   "-DBURN_CONSUMER_SOURCE_DIR=${PROJECT_SOURCE_DIR}/tests/package"
                   "-DBURN_WORK_DIR=${_dir}"
                   "-DBURN_CONFIG=$<CONFIG>"
                   "-DBURN_GENERATOR=${_generator}"
                   "-DBURN_MAKE_PROGRAM=${_make_program}"
                   "-DBURN_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
                   # The bare ccache (our launcher is a `cmake -E env ... ccache` list).
                   "-DBURN_CXX_COMPILER_LAUNCHER=${BURN_CCACHE}"
                   # Sanitizer and other global flags must match: the installed static libraries
                   # need the same runtime at the consumer's link step.
                   "-DBURN_CXX_FLAGS=${CMAKE_CXX_FLAGS}"
                   "-DBURN_CXX_FLAGS_CONFIG=${CMAKE_CXX_FLAGS_${_bt}}"
                   "-DBURN_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
                   -P "${PROJECT_SOURCE_DIR}/cmake/RunPackageTest.cmake")
  set_tests_properties(package_consumer PROPERTIES LABELS "package" TIMEOUT 900 COST 30)
endfunction()
