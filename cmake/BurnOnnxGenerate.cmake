# SPDX-License-Identifier: MIT OR Apache-2.0
# burn_onnx_generate(): Burn's ModelGen (build.rs) for CMake. Runs the burn-onnx generator on an
# ONNX model at build time, again whenever the model (or the generator) changes, and makes the
# generated header usable from TARGET:
#
#   burn_onnx_generate(TARGET app INPUT model.onnx NAME Mnist
#                      [RECORD_TYPE named-mpk|named-mpk-gz|bin|bin-gz|json-gz|pretty-json]
#                      [PRECISION full|half|double] [EMBED_STATES] [OUTPUT_DIR dir])
#
#   #include "mnist.hpp"   // template <burn::Backend B> struct Mnist
#   auto model = Mnist<burn::Cpu<>>::from_file(BURN_ONNX_MNIST_RECORD);
#
# Files go to OUTPUT_DIR (default: <current binary dir>/burn_onnx/<NAME>): <name>.hpp, the record
# <name>.<ext> and, with EMBED_STATES, <name>_states.cpp (compiled into TARGET; the struct then
# has from_embedded()). TARGET gets OUTPUT_DIR as an include directory, links burn::onnx, and the
# definition BURN_ONNX_<NAME>_RECORD: the record's absolute path (<NAME> upper snake case).
# Included by src/onnx/CMakeLists.txt in the build tree and by burnConfig.cmake when the
# package's onnx component is loaded.
include_guard(GLOBAL)

function(burn_onnx_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "EMBED_STATES"
                        "TARGET;INPUT;NAME;RECORD_TYPE;PRECISION;OUTPUT_DIR" "")
  foreach(_req TARGET INPUT NAME)
    if(NOT ARG_${_req})
      message(FATAL_ERROR "burn_onnx_generate: ${_req} is required")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "burn_onnx_generate: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "burn_onnx_generate: ${ARG_TARGET} is not a target")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "burn_onnx_generate: NAME '${ARG_NAME}' is not a C++ identifier")
  endif()
  if(NOT ARG_RECORD_TYPE)
    set(ARG_RECORD_TYPE named-mpk)
  endif()
  if(NOT ARG_PRECISION)
    set(ARG_PRECISION full)
  endif()
  set(_ext_named-mpk mpk)
  set(_ext_named-mpk-gz mpk.gz)
  set(_ext_bin bin)
  set(_ext_bin-gz bin.gz)
  set(_ext_json-gz json.gz)
  set(_ext_pretty-json json)
  if(NOT DEFINED _ext_${ARG_RECORD_TYPE})
    message(FATAL_ERROR "burn_onnx_generate: unknown RECORD_TYPE '${ARG_RECORD_TYPE}' (expected "
                        "named-mpk, named-mpk-gz, bin, bin-gz, json-gz or pretty-json)")
  endif()
  if(NOT ARG_PRECISION MATCHES "^(full|half|double)$")
    message(FATAL_ERROR "burn_onnx_generate: unknown PRECISION '${ARG_PRECISION}' (expected "
                        "full, half or double)")
  endif()
  get_filename_component(_input "${ARG_INPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  # A model made at build time (the OUTPUT of a custom command of the calling directory) need
  # not exist yet.
  get_source_file_property(_input_generated "${_input}" GENERATED)
  if(NOT EXISTS "${_input}" AND NOT _input_generated)
    message(FATAL_ERROR "burn_onnx_generate: INPUT ${_input} does not exist")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/burn_onnx/${ARG_NAME}")
  endif()
  get_filename_component(_out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  # The generator's snake case: "_" before an upper-case letter that follows a lower-case letter
  # or a digit, then lower case ("MyNet2D" -> "my_net2_d").
  string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" _snake "${ARG_NAME}")
  string(TOLOWER "${_snake}" _snake)
  string(TOUPPER "${_snake}" _upper)
  set(_header "${_out}/${_snake}.hpp")
  set(_record "${_out}/${_snake}.${_ext_${ARG_RECORD_TYPE}}")
  set(_outputs "${_header}" "${_record}")
  set(_flags --record-type ${ARG_RECORD_TYPE} --precision ${ARG_PRECISION})
  if(ARG_EMBED_STATES)
    set(_states "${_out}/${_snake}_states.cpp")
    list(APPEND _outputs "${_states}")
    list(APPEND _flags --embed-states)
  endif()
  # The generator: built here (in the burn tree) or installed with the package.
  if(TARGET burn_onnx_cli)
    set(_cli burn_onnx_cli)
  elseif(TARGET burn::onnx-cli)
    set(_cli burn::onnx-cli)
  else()
    message(FATAL_ERROR "burn_onnx_generate: the burn-onnx program is not available (burn was "
                        "built without ONNX import, or find_package(burn COMPONENTS onnx) was "
                        "not called)")
  endif()
  add_custom_command(
    OUTPUT ${_outputs}
    COMMAND $<TARGET_FILE:${_cli}> "${_input}" --name ${ARG_NAME} --out "${_out}" ${_flags} --quiet
    DEPENDS "${_input}" $<TARGET_FILE:${_cli}>
    COMMENT "burn-onnx: generating ${ARG_NAME} from ${ARG_INPUT}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${_outputs})
  set_source_files_properties("${_header}" "${_record}" PROPERTIES HEADER_FILE_ONLY TRUE)
  target_include_directories(${ARG_TARGET} PRIVATE "${_out}")
  if(TARGET burn_onnx)
    target_link_libraries(${ARG_TARGET} PRIVATE burn_onnx)
  else()
    target_link_libraries(${ARG_TARGET} PRIVATE burn::onnx)
  endif()
  target_compile_definitions(${ARG_TARGET} PRIVATE "BURN_ONNX_${_upper}_RECORD=\"${_record}\"")
endfunction()
