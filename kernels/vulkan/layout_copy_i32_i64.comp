// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy i32 -> i64 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define SRC_T int
#define DST_T int64_t
#define CONVERT(v) int64_t(v)
#include "layout_copy.glsl"
