# SPDX-License-Identifier: MIT OR Apache-2.0
# Build-speed settings: ccache when present, one link job at a time (2-core machines).
find_program(BURN_CCACHE ccache)
if(BURN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # base_dir: paths under the source tree are hashed relative to it, so a fresh clone elsewhere
  # (CI) hits the cache of an earlier one. The sloppiness lets ccache cache the test files that
  # use CMake's precompiled header (otherwise every one of them is a miss).
  set(_burn_ccache ${CMAKE_COMMAND} -E env "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}"
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      "${BURN_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_burn_ccache})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_burn_ccache})
endif()
set_property(GLOBAL APPEND PROPERTY JOB_POOLS burn_link=1)
set(CMAKE_JOB_POOL_LINK burn_link)

# Flags for the compiled kernels (never for user code).
function(burn_kernel_flags target)
  if(BURN_CPU_ARCH AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    target_compile_options(${target} PRIVATE -march=${BURN_CPU_ARCH})
  endif()
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
endfunction()
