// SPDX-License-Identifier: MIT OR Apache-2.0
// Reduction along a dim, one invocation per lane, i64: see reduce_thread_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define ELEM int64_t
#define ACC int64_t
#define IS_FLOAT 0
#define ELEM_LOWEST (-9223372036854775807l - 1l)
#define ELEM_HIGHEST 9223372036854775807l
#include "reduce_thread_body.glsl"
