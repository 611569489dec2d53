# SPDX-License-Identifier: MIT OR Apache-2.0
# Finds OpenBLAS (Debian: libopenblas-dev) and defines OpenBLAS::OpenBLAS.
find_path(OpenBLAS_INCLUDE_DIR NAMES cblas.h openblas_config.h
          PATH_SUFFIXES openblas openblas-pthread openblas-openmp)
find_library(OpenBLAS_LIBRARY NAMES openblas)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenBLAS REQUIRED_VARS OpenBLAS_LIBRARY OpenBLAS_INCLUDE_DIR)
if(OpenBLAS_FOUND AND NOT TARGET OpenBLAS::OpenBLAS)
  add_library(OpenBLAS::OpenBLAS UNKNOWN IMPORTED)
  set_target_properties(OpenBLAS::OpenBLAS PROPERTIES IMPORTED_LOCATION "${OpenBLAS_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${OpenBLAS_INCLUDE_DIR}")
endif()
mark_as_advanced(OpenBLAS_INCLUDE_DIR OpenBLAS_LIBRARY)
