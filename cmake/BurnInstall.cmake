# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs the libraries, the public headers and the CMake package `burn`:
#
#   find_package(burn 0.1 CONFIG REQUIRED COMPONENTS cpu OPTIONAL_COMPONENTS cuda vulkan)
#   target_link_libraries(app PRIVATE burn::cpu)      # or burn::burn: everything installed
#
# Layout under the prefix:
#   include/burn/...                         public headers (core + every backend built)
#   lib/libburn_<component>.a                the libraries (static unless BUILD_SHARED_LIBS)
#   lib/cmake/burn/burnConfig.cmake          the entry point, generated from burnConfig.cmake.in
#   lib/cmake/burn/burnConfigVersion.cmake   SameMajorVersion
#   lib/cmake/burn/burn-<component>-targets.cmake   one export set per component, so that a
#                                            component is only loaded (and its dependencies only
#                                            searched for) when a consumer asks for it
#   lib/cmake/burn/burn-targets.cmake        the aggregate burn::burn
#   lib/cmake/burn/FindOpenBLAS.cmake        our find module, used by the config
#
# Adding a backend (cuda, vulkan): define target burn_<name> with EXPORT_NAME <name>, add its
# public include dir below if it has one, and list what its library needs at the consumer's link
# step in BURN_PACKAGE_DEPENDENCIES_<name> (the PRIVATE dependencies of a static library appear in
# the export as $<LINK_ONLY:...> and must exist as targets in the consumer).
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BURN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/burn" CACHE STRING
    "Where burnConfig.cmake is installed, relative to the prefix")
mark_as_advanced(BURN_INSTALL_CMAKEDIR)

# Every component the package knows about; those not built here are reported as not installed.
set(BURN_KNOWN_COMPONENTS core cpu cuda vulkan onnx distributed)

# Packages a consumer must find for each component, one `find_package` argument list per entry
# (";"-separated entries, arguments separated by spaces). Only needed when the libraries are
# static: a shared library carries its own dependencies and the public headers include none.
# Header-only private dependencies (Eigen) are linked as $<BUILD_INTERFACE:...> and never appear.
# zlib: the recorders' gzip layer (src/record); libcurl: the MNIST download (src/data/mnist.cpp);
# SQLite: SqliteDataset (src/data/sqlite.cpp, CMake's FindSQLite3); msgpack-c++ and stb_image are
# header-only and private.
set(BURN_PACKAGE_DEPENDENCIES_core "ZLIB" "CURL" "SQLite3")
set(BURN_PACKAGE_DEPENDENCIES_cpu "TBB CONFIG" "OpenBLAS MODULE")
set(BURN_PACKAGE_DEPENDENCIES_cuda "CUDAToolkit")
# onnx: ONNX import (burn::onnx) and the generator program burn::onnx-cli (`burn-onnx`), with the
# CMake function burn_onnx_generate() (cmake/BurnOnnxGenerate.cmake); libonnx and protobuf are
# private dependencies of the static library.
set(BURN_PACKAGE_DEPENDENCIES_onnx "Protobuf" "ONNX CONFIG")
# distributed: burn::distributed, the Communicator over Gloo (a shared library with its own
# dependencies); Gloo's CMake package defines the target gloo.
set(BURN_PACKAGE_DEPENDENCIES_distributed "Gloo CONFIG")
set(BURN_PACKAGE_DEPENDENCIES_vulkan "Vulkan 1.3 COMPONENTS shaderc_combined" "glslang CONFIG"
    "SPIRV-Tools-opt CONFIG")

set(BURN_INSTALLED_COMPONENTS "")
set(BURN_CONFIG_COMPONENT_DEPENDENCIES "")
foreach(_burn_comp IN LISTS BURN_KNOWN_COMPONENTS)
  if(NOT TARGET burn_${_burn_comp})
    continue()
  endif()
  list(APPEND BURN_INSTALLED_COMPONENTS ${_burn_comp})
  set(_burn_targets burn_${_burn_comp})
  if(_burn_comp STREQUAL "onnx" AND TARGET burn_onnx_cli)
    list(APPEND _burn_targets burn_onnx_cli)  # burn-onnx, in bin/, as burn::onnx-cli
  endif()
  if(_burn_comp STREQUAL "distributed" AND TARGET burn_run)
    list(APPEND _burn_targets burn_run)  # burn-run, the launcher, in bin/, as burn::run
  endif()
  install(TARGETS ${_burn_targets} EXPORT burn-${_burn_comp}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT burn-${_burn_comp}-targets NAMESPACE burn::
          DESTINATION ${BURN_INSTALL_CMAKEDIR})
  get_target_property(_burn_type burn_${_burn_comp} TYPE)
  if(_burn_type STREQUAL "STATIC_LIBRARY")
    set(_burn_deps "${BURN_PACKAGE_DEPENDENCIES_${_burn_comp}}")
  else()
    set(_burn_deps "")
  endif()
  # Installed shared libraries find each other (libburn_cpu.so -> libburn_core.so) in their own
  # directory, wherever the prefix is.
  if(_burn_type STREQUAL "SHARED_LIBRARY" AND NOT CMAKE_INSTALL_RPATH)
    if(APPLE)
      set_target_properties(burn_${_burn_comp} PROPERTIES INSTALL_RPATH "@loader_path")
    else()
      set_target_properties(burn_${_burn_comp} PROPERTIES INSTALL_RPATH "$ORIGIN")
    endif()
  endif()
  # Written into the config as: set(_burn_deps_<comp> "TBB CONFIG;OpenBLAS MODULE")
  string(APPEND BURN_CONFIG_COMPONENT_DEPENDENCIES
         "set(_burn_deps_${_burn_comp} \"${_burn_deps}\")\n")
endforeach()

# The aggregate: everything this build produced.
install(TARGETS burn_burn EXPORT burn-targets)
install(EXPORT burn-targets NAMESPACE burn:: DESTINATION ${BURN_INSTALL_CMAKEDIR})

# Public headers: the core's and each backend's include/burn tree merge into one include/burn.
set(_burn_header_dirs "${PROJECT_SOURCE_DIR}/include/burn")
foreach(_burn_comp cpu cuda vulkan)
  if(TARGET burn_${_burn_comp} AND IS_DIRECTORY "${PROJECT_SOURCE_DIR}/backends/${_burn_comp}/include/burn")
    list(APPEND _burn_header_dirs "${PROJECT_SOURCE_DIR}/backends/${_burn_comp}/include/burn")
  endif()
endforeach()
install(DIRECTORY ${_burn_header_dirs} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.inl")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/burnConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/burnConfig.cmake"
  INSTALL_DESTINATION "${BURN_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/burnConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/burnConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/burnConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/FindOpenBLAS.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/BurnOnnxGenerate.cmake"
  DESTINATION "${BURN_INSTALL_CMAKEDIR}")

foreach(_burn_license LICENSE-MIT LICENSE-APACHE)
  if(EXISTS "${PROJECT_SOURCE_DIR}/${_burn_license}")
    install(FILES "${PROJECT_SOURCE_DIR}/${_burn_license}" DESTINATION ${CMAKE_INSTALL_DOCDIR})
  endif()
endforeach()

unset(_burn_comp)
unset(_burn_targets)
unset(_burn_deps)
unset(_burn_type)
unset(_burn_header_dirs)
unset(_burn_license)
