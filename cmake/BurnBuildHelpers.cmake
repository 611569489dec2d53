# SPDX-License-Identifier: MIT OR Apache-2.0
# Build-speed settings: ccache when present, one link job at a time (2-core machines).
find_program(BURN_CCACHE ccache)
if(BURN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${BURN_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${BURN_CCACHE}")
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
