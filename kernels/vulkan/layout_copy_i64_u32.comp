// SPDX-License-Identifier: MIT OR Apache-2.0
// Strided copy i64 -> u32 (see layout_copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define SRC_T int64_t
#define DST_T uint
#define CONVERT(v) uint((v) != int64_t(0))
#include "layout_copy.glsl"
