// SPDX-License-Identifier: MIT OR Apache-2.0
// i64 variant of reduce_arg_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define ELEM int64_t
#define IS_FLOAT 0
#include "reduce_arg_body.glsl"
